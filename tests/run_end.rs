//! The end of a run is one account (SPEC §23): the terminal, the step summary, the HTML page
//! and the JSON report give the same numbers and name the same tests, and each says what it
//! says only where it is true.

mod support;

use std::path::Path;

use support::{goldgate_with, stdout, write_files};

/// Five receipts under a baseline held to on regressions: `a` passes, `b` fails as its entry
/// says, `c` fails worse than its entry, `d` is fixed, `e` is new and fails.
fn week(root: &Path) {
    let suite = "defaults:\n  thresholds:\n    min_exact_match: 1.0\nbaseline: baseline.json\nfail_on: regressions\n";
    let mut files = vec![
        (
            "Cargo.toml".to_owned(),
            "[package]\nname = \"w\"\n".to_owned(),
        ),
        ("cases/suite.yaml".to_owned(), suite.to_owned()),
    ];
    for n in ["a", "b", "c", "d", "e"] {
        files.push((
            format!("cases/{n}.yaml"),
            format!("prediction: out/{n}.json\ngold:\n  total: \"10.00\"\n  address: 1 Main St\n  company: ACME\n"),
        ));
    }
    support::write_owned(root, &files);
    read(root, "a", "10.00", "1 Main St");
    read(root, "b", "10.00", "1 Main Road");
    read(root, "c", "10.00", "1 Main Road");
    read(root, "d", "99.00", "1 Main St");
}

fn read(root: &Path, n: &str, total: &str, address: &str) {
    write_files(
        root,
        &[(
            &format!("cases/out/{n}.json"),
            &format!(r#"{{"total": "{total}", "address": "{address}", "company": "ACME"}}"#),
        )],
    );
}

#[test]
fn the_terminal_the_pages_and_the_report_give_the_same_account() {
    let dir = tempfile::tempdir().unwrap();
    week(dir.path());
    // `e` has no case yet when the baseline is blessed.
    std::fs::rename(dir.path().join("cases/e.yaml"), dir.path().join("e.yaml")).unwrap();
    let bless = goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(
        stdout(&bless).contains("baseline: cases/baseline.json: 4 entries, 4 new"),
        "{}",
        stdout(&bless)
    );
    std::fs::rename(dir.path().join("e.yaml"), dir.path().join("cases/e.yaml")).unwrap();
    read(dir.path(), "c", "11.00", "1 Main Road");
    read(dir.path(), "d", "10.00", "1 Main St");
    read(dir.path(), "e", "10.00", "1 Main Rd");
    let files = tempfile::tempdir().unwrap();
    let (report, html, summary) = (
        files.path().join("report.json"),
        files.path().join("page.html"),
        files.path().join("summary.md"),
    );
    let run = goldgate_with(
        dir.path(),
        &[
            "test",
            "cases",
            "--report",
            report.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let s = &report["summary"];
    assert_eq!(
        (
            &s["cases"],
            &s["passed"],
            &s["failed"],
            &s["known_failures"]
        ),
        (&5.into(), &2.into(), &2.into(), &1.into()),
        "{s:#}"
    );
    let gate = &report["gate"];
    let regressions: Vec<&str> = gate["regressions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["test"].as_str().unwrap())
        .collect();
    assert_eq!(regressions, ["c", "e"], "{gate:#}");
    assert_eq!(gate["fixed"][0]["test"], "d");
    assert_eq!(
        (&gate["known_failures"], &gate["new"]),
        (&1.into(), &1.into())
    );
    let line = "goldgate: 2 regressions against cases/baseline.json (first: c total 1.00 → 0.80; also e; 1 known failure, 1 fixed, 1 new)";
    // The terminal: its counts, and the gate's line last.
    assert!(
        out.contains("goldgate: 5 cases, 2 passed, 2 failed, 1 known failure, 0 ignored;"),
        "{out}"
    );
    assert_eq!(
        out.lines().rev().find(|l| !l.is_empty()),
        Some(line),
        "{out}"
    );
    // The step summary: the same counts and line, the regressions and the fixed test named.
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.contains("**5 cases: 2 passed, 2 failed, 1 known failure, 0 ignored**"),
        "{md}"
    );
    assert!(md.contains(&format!("\n**{line}**\n")), "{md}");
    assert!(
        md.contains("\n### Worse than the baseline\n\n- `c` — "),
        "{md}"
    );
    assert!(md.contains("\n- `e` — new, fails\n"), "{md}");
    assert!(md.contains("\n### Fixed\n\n- `d` — bless it with "), "{md}");
    assert!(md.contains("\n### Known failures\n\n- `b` — "), "{md}");
    // Every test that moved against its entry, worst first, with its fields' EM and ANLS.
    let moved = &md[md
        .find("\n### Moved against the baseline, worst first\n\n")
        .expect(&md)..];
    let c = moved.find("\n- `c` — anls 0.8788 -> 0.8121, field `total` ANLS 1.0000 -> 0.8000, field `total` EM 1.0000 -> 0.0000\n");
    let d = moved.find("\n- `d` — anls 0.8667 -> 1.0000");
    assert!(c.is_some() && d.is_some() && c < d, "{moved}");
    assert!(!md.contains("### Failing tests\n\n- `b`"), "{md}");
    // The page: the gate's verdict, the same counts and line.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<span class=\"fail\">regressed</span> · 5 case tests: 2 passed, 2 failed, 1 known failure, 0 ignored"),
        "{page}"
    );
    assert!(
        page.contains(&format!("<p class=\"gate-line\" id=\"gate\">{}</p>", line)),
        "{page}"
    );
    assert!(
        page.contains("<li><b>d</b>: bless it with <code>"),
        "{page}"
    );
    assert!(
        page.contains("<h2>Failing tests (3, 1 of them a known failure)</h2>"),
        "{page}"
    );
    assert!(
        page.contains("<span class=\"why\">known failure: min_exact_match failed"),
        "{page}"
    );
    // Annotations are errors of the run: none for the known failure.
    let run = goldgate_with(
        dir.path(),
        &["test", "cases", "--annotations", "github"],
        &[],
    );
    let err = support::stderr(&run);
    assert!(err.contains("title=c%3A "), "{err}");
    assert!(!err.contains("title=b%3A "), "{err}");
    assert!(
        page.contains("1 known failure: failing as their baseline entries say"),
        "{page}"
    );
    assert!(
        page.contains("<p>moved against the baseline (2), worst first:</p>\n<ul class=\"moved\">\n<li><b>c</b>: anls 0.8788 -&gt; 0.8121"),
        "{page}"
    );
}

#[test]
fn a_failing_tests_row_names_the_field_that_failed_it() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("Cargo.toml", "[package]\nname = \"f\"\n"),
            (
                "cases/a.yaml",
                "prediction: { address: 1 Main Road, total: '9.00' }\ngold:\n  address: 1 Main St\n  total: '10.00'\nrubrics:\n  - must_right: the total is right\n    field: total\n    exact: true\n",
            ),
        ],
    );
    let html = dir.path().join("page.html");
    let run = goldgate_with(
        dir.path(),
        &["test", "cases", "--html", html.to_str().unwrap()],
        &[],
    );
    assert_eq!(run.status.code(), Some(101));
    let page = std::fs::read_to_string(&html).unwrap();
    // `address` is the first field not exact, and no rule checks it: `total` failed the case.
    assert!(
        page.contains("<span class=\"test\">a</span><span class=\"name\">-</span><span class=\"field\">total</span>"),
        "{page}"
    );
}

#[test]
fn no_tolerance_is_named_where_the_suites_set_none() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("Cargo.toml", "[package]\nname = \"t\"\n"),
            (
                "cases/suite.yaml",
                "baseline: baseline.json\nregression_gate: { metric: anls, min_effect: 0.02 }\n",
            ),
            (
                "cases/a.yaml",
                "prediction: { total: '10.00' }\ngold: { total: '10.00' }\nthresholds: { min_anls: 0.5 }\n",
            ),
        ],
    );
    let html = dir.path().join("page.html");
    let bless = goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(bless.status.success(), "{}", stdout(&bless));
    let run = goldgate_with(
        dir.path(),
        &["test", "cases", "--html", html.to_str().unwrap()],
        &[],
    );
    assert!(run.status.success(), "{}", stdout(&run));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains("tolerance."), "{page}");
    assert!(
        page.contains("No suite sets a per-test tolerance: the regression gate above compares the run with its baseline."),
        "{page}"
    );
}

#[test]
fn two_runs_that_share_no_test_are_not_said_to_share_their_gold() {
    let dir = tempfile::tempdir().unwrap();
    let case = "prediction: { x: \"1\" }\ngold: { x: \"1\" }\nthresholds: { min_anls: 0.5 }\n";
    write_files(
        dir.path(),
        &[
            ("Cargo.toml", "[package]\nname = \"g\"\n"),
            ("cases/a.yaml", case),
        ],
    );
    let files = tempfile::tempdir().unwrap();
    let (base, head) = (
        files.path().join("base.json"),
        files.path().join("head.json"),
    );
    goldgate_with(
        dir.path(),
        &["test", "cases", "--report", base.to_str().unwrap()],
        &[],
    );
    std::fs::rename(
        dir.path().join("cases/a.yaml"),
        dir.path().join("cases/b.yaml"),
    )
    .unwrap();
    goldgate_with(
        dir.path(),
        &["test", "cases", "--report", head.to_str().unwrap()],
        &[],
    );
    let out = goldgate_with(
        dir.path(),
        &[
            "report",
            "--compare",
            base.to_str().unwrap(),
            head.to_str().unwrap(),
        ],
        &[],
    );
    let text = stdout(&out);
    assert!(
        text.contains("gold not compared: no case test is in both runs"),
        "{text}"
    );
    assert!(!text.contains("the same gold"), "{text}");
}
