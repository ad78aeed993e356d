//! The gate relative to main (`fail_on: regressions`, SPEC §23) as a team runs it: a baseline
//! that keeps each test's verdict, known failures that fail nothing and are said as such on the
//! terminal, in JUnit and in the report, a test worse than its entry failing the run with the
//! last line naming it, a fixed test listed with its bless command.

mod support;

use std::path::Path;

use support::{goldgate, goldgate_report, goldgate_with, stderr, stdout, verdict_of, write_files};

/// Four receipts under one suite that keeps a baseline and fails on regressions: `001` and
/// `002` read right, `003` reads its address wrong, `004` its total. Every field must be exact.
fn receipts(root: &Path, fail_on: &str) {
    let suite = format!(
        "defaults:\n  thresholds:\n    min_exact_match: 1.0\nbaseline: baseline.json\n{fail_on}"
    );
    let mut files = vec![
        (
            "Cargo.toml".to_owned(),
            "[package]\nname = \"r\"\n".to_owned(),
        ),
        ("cases/suite.yaml".to_owned(), suite),
    ];
    for (n, total) in [
        ("001", "11.00"),
        ("002", "12.00"),
        ("003", "13.00"),
        ("004", "14.00"),
    ] {
        files.push((
            format!("cases/{n}.yaml"),
            format!(
                "prediction: out/{n}.json\ngold:\n  total: \"{total}\"\n  address: {n} Main St\n  company: ACME\n"
            ),
        ));
    }
    support::write_owned(root, &files);
    predict(root, "001", "11.00", "001 Main St", "ACME");
    predict(root, "002", "12.00", "002 Main St", "ACME");
    predict(root, "003", "13.00", "003 Main Road", "ACME");
    predict(root, "004", "99.00", "004 Main St", "ACME");
}

/// Writes what the pipeline read of a receipt.
fn predict(root: &Path, n: &str, total: &str, address: &str, company: &str) {
    write_files(
        root,
        &[(
            &format!("cases/out/{n}.json"),
            &format!(r#"{{"total": "{total}", "address": "{address}", "company": "{company}"}}"#),
        )],
    );
}

/// Blesses every test's entry.
fn bless(root: &Path) {
    let run = goldgate_with(root, &["test", "cases"], &[("GOLDGATE_UPDATE", "always")]);
    assert!(
        stdout(&run).contains("baseline: cases/baseline.json: 4 entries, 4 new"),
        "{}{}",
        stdout(&run),
        stderr(&run)
    );
}

fn last_line(out: &str) -> &str {
    out.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
}

#[test]
fn known_failures_pass_the_run_and_are_said_as_such_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    let junit = dir.path().join("junit.xml");
    let (run, report) = goldgate_report(
        dir.path(),
        &["test", "cases", "--junit", junit.to_str().unwrap()],
    );
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{out}{}", stderr(&run));
    assert_eq!(verdict_of(&out, "001"), "test 001 ... ok");
    assert_eq!(
        verdict_of(&out, "003"),
        "test 003 ... known failure (fails `min_exact_match`, as in cases/baseline.json)"
    );
    assert!(
        out.contains("test result: ok. 2 passed; 0 failed; 2 known failures; 0 ignored;"),
        "{out}"
    );
    assert!(
        out.contains("goldgate: 4 cases, 2 passed, 0 failed, 2 known failures, 0 ignored;"),
        "{out}"
    );
    assert_eq!(
        last_line(&out),
        "goldgate: no regression against cases/baseline.json (2 known failures, 0 fixed, 0 new)"
    );
    // The report: its own status, never passed; the summary counts them apart.
    let case = support::case(&report, "004");
    assert_eq!(case["status"], "known_failure");
    assert_eq!(case["known_failure"], true);
    assert_eq!(case["passed"], false);
    assert_eq!(case["baseline"]["standing"]["kind"], "known_failure");
    assert_eq!(report["summary"]["known_failures"], 2);
    assert_eq!(report["summary"]["passed"], 2);
    assert_eq!(report["summary"]["failed"], 0);
    // JUnit: pytest's xfail, a skipped test with its reason.
    let xml = std::fs::read_to_string(&junit).unwrap();
    let at = xml.find(r#"<testcase name="003""#).unwrap();
    let end = at + xml[at..].find("</testcase>").unwrap();
    assert!(
        xml[at..end].contains(r#"<skipped message="known failure: "#),
        "{}",
        &xml[at..end]
    );
    assert!(
        xml.contains(r#"tests="4" skipped="2" failures="0""#),
        "{xml}"
    );
}

#[test]
fn a_test_that_passed_in_the_baseline_and_fails_now_fails_the_run_named_last() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    predict(dir.path(), "002", "12.00", "002 Main Street", "ACME");
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    assert_eq!(verdict_of(&out, "002"), "test 002 ... FAILED");
    assert_eq!(
        last_line(&out),
        "goldgate: 1 regression against cases/baseline.json (first: 002 address 1.00 → 0.73; 2 known failures, 0 fixed, 0 new)"
    );
    let block = support::failure_block(&out, "002");
    assert!(
        block.contains("regression against the baseline `cases/baseline.json` (fail_on: regressions): passed in the baseline, fails now; field `address` was exact, ANLS 1.0000 -> 0.7333; anls 1.0000 -> 0.9111; fails `min_exact_match`, which it did not there\n"),
        "{block}"
    );
}

#[test]
fn a_known_failure_that_fails_one_more_field_is_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    // 003 read its address wrong; now its company too. The case's EM drops within no
    // tolerance that hides a field, and the field it lost is named with its old -> new ANLS.
    predict(dir.path(), "003", "13.00", "003 Main Road", "ACNE");
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    assert_eq!(
        last_line(&out),
        "goldgate: 1 regression against cases/baseline.json (first: 003 company 1.00 → 0.75; 1 known failure, 0 fixed, 0 new)"
    );
    let block = support::failure_block(&out, "003");
    assert!(
        block.contains("field `company` was exact, ANLS 1.0000 -> 0.7500"),
        "{block}"
    );
    assert!(
        block.contains(
            "accept the new numbers with: GOLDGATE_UPDATE=always goldgate test cases --exact 003"
        ),
        "{block}"
    );
}

#[test]
fn a_known_failure_that_passes_now_is_fixed_and_says_how_to_bless_it() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    predict(dir.path(), "004", "14.00", "004 Main St", "ACME");
    let (run, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{out}");
    assert!(
        out.contains("fixed: 004 fails no more; bless it with: GOLDGATE_UPDATE=always goldgate test cases --exact 004\n"),
        "{out}"
    );
    assert_eq!(
        last_line(&out),
        "goldgate: no regression against cases/baseline.json (1 known failure, 1 fixed, 0 new)"
    );
    assert_eq!(
        support::case(&report, "004")["baseline"]["standing"]["kind"],
        "fixed"
    );
    assert_eq!(support::case(&report, "004")["status"], "passed");
}

#[test]
fn the_flag_wins_over_the_suite_and_the_default_fails_on_failures() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "");
    bless(dir.path());
    // The default: every failing test fails the run, and no gate line is said.
    let run = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(run.status.code(), Some(101));
    assert!(
        !stdout(&run).contains("regression against"),
        "{}",
        stdout(&run)
    );
    for args in [
        &["test", "cases", "--fail-on", "regressions"][..],
        &["test", "--fail-on=regressions", "cases"][..],
    ] {
        let run = goldgate(dir.path(), args);
        assert_eq!(run.status.code(), Some(0), "{args:?}: {}", stdout(&run));
    }
    let run = goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_FAIL_ON", "regressions")],
    );
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    // The flag wins over the variable, and over the suite's own `fail_on`.
    receipts(dir.path(), "fail_on: regressions\n");
    let run = goldgate_with(
        dir.path(),
        &["test", "cases", "--fail-on", "failures"],
        &[("GOLDGATE_FAIL_ON", "regressions")],
    );
    assert_eq!(run.status.code(), Some(101), "{}", stdout(&run));
    let run = goldgate(dir.path(), &["test", "cases", "--fail-on", "worse"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("`--fail-on` takes `failures`"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn regressions_without_a_baseline_is_a_load_error_at_the_key() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    let suite = "defaults:\n  thresholds:\n    min_exact_match: 1.0\nfail_on: regressions\n";
    write_files(dir.path(), &[("cases/suite.yaml", suite)]);
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101));
    assert!(
        out.contains("cases/suite.yaml:4:10: fail_on: `fail_on: regressions` fails a test that is worse than its baseline entry, and no suite here or above declares a `baseline:`"),
        "{out}"
    );
    write_files(
        dir.path(),
        &[(
            "cases/suite.yaml",
            "baseline: b.json\nfail_on: regresions\n",
        )],
    );
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert!(out.contains("did you mean `regressions`?"), "{out}");
}

#[test]
fn bless_writes_every_tests_verdict_and_a_case_that_cannot_load_is_a_known_one() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    // A case whose prediction cannot be read has an entry too: its verdict.
    std::fs::remove_file(dir.path().join("cases/out/004.json")).unwrap();
    bless(dir.path());
    let text = std::fs::read_to_string(dir.path().join("cases/baseline.json")).unwrap();
    let base: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(base["cases"]["001"]["verdict"], "passed");
    assert_eq!(base["cases"]["001"].get("failed"), None);
    assert_eq!(base["cases"]["003"]["verdict"], "failed");
    assert_eq!(
        base["cases"]["003"]["failed"],
        serde_json::json!(["min_exact_match"])
    );
    assert_eq!(base["cases"]["003"]["fields"]["address"]["em"], 0.0);
    assert_eq!(
        base["cases"]["004"],
        serde_json::json!({"verdict": "failed", "failed": ["error: prediction"]})
    );
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{out}");
    assert_eq!(
        verdict_of(&out, "004"),
        "test 004 ... known failure (fails `error: prediction`, as in cases/baseline.json)"
    );
    // A case that cannot be loaded at all fails the run while its entry says it was scored.
    write_files(
        dir.path(),
        &[("cases/001.yaml", "prediction: out/001.json\ngold: [\n")],
    );
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    assert!(
        last_line(&out).starts_with(
            "goldgate: 1 regression against cases/baseline.json (first: 001 fails error: load;"
        ),
        "{out}"
    );
}

#[test]
fn an_entry_without_a_verdict_is_judged_by_its_own_rules() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    // A baseline written before entries kept verdicts: 003 fails, and nothing says it did.
    write_files(
        dir.path(),
        &[(
            "cases/baseline.json",
            r#"{"goldgate_baseline": 1, "cases": {"001": {"anls": 1.0}, "002": {"anls": 1.0}, "003": {"anls": 0.9}, "004": {"anls": 0.9}}}"#,
        )],
    );
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    assert_eq!(
        last_line(&out),
        "goldgate: 2 regressions against cases/baseline.json (first: 003 fails; also 004; 0 known failures, 0 fixed, 0 new)"
    );
}

#[test]
fn known_failures_in_libtest_json_are_ignored_tests_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    let run = goldgate(
        dir.path(),
        &[
            "test",
            "cases",
            "--format",
            "json",
            "-Z",
            "unstable-options",
        ],
    );
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{out}");
    assert!(
        out.contains(r#"{ "type": "test", "name": "003", "event": "ignored", "message": "known failure: fails `min_exact_match`, as in cases/baseline.json" }"#),
        "{out}"
    );
    assert!(
        out.contains(r#""passed": 2, "failed": 0, "ignored": 2"#),
        "{out}"
    );
}

#[test]
fn a_report_made_on_a_tree_with_changes_names_its_commit_dirty() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_AUTHOR_NAME", "a")
            .env("GIT_AUTHOR_EMAIL", "a@b")
            .env("GIT_COMMITTER_NAME", "a")
            .env("GIT_COMMITTER_EMAIL", "a@b")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    git(&["init", "-q", "."]);
    git(&["add", "."]);
    git(&["commit", "-qm", "v1"]);
    let sha = git(&["rev-parse", "HEAD"]);
    let commit = |report: &serde_json::Value| report["commit"].as_str().map(str::to_owned);
    let (_, report) = goldgate_report(dir.path(), &["test", "cases"]);
    assert_eq!(commit(&report), Some(sha.clone()));
    // v2 of the pipeline, not committed yet: not the commit's run.
    predict(dir.path(), "004", "14.00", "004 Main St", "ACME");
    let (_, report) = goldgate_report(dir.path(), &["test", "cases"]);
    assert_eq!(commit(&report), Some(format!("{sha}+dirty")));
    // A comparison names the dirty run so.
    let files = tempfile::tempdir().unwrap();
    let (clean, dirty) = (
        files.path().join("clean.json"),
        files.path().join("dirty.json"),
    );
    goldgate(
        dir.path(),
        &["test", "cases", "--report", dirty.to_str().unwrap()],
    );
    git(&["stash", "-q"]);
    goldgate(
        dir.path(),
        &["test", "cases", "--report", clean.to_str().unwrap()],
    );
    git(&["stash", "pop", "-q"]);
    let out = goldgate(
        dir.path(),
        &[
            "report",
            "--compare",
            clean.to_str().unwrap(),
            dirty.to_str().unwrap(),
        ],
    );
    assert!(
        stdout(&out).contains(&format!("HEAD `commit {}+dirty`", &sha[..12])),
        "{}",
        stdout(&out)
    );
}

/// A gold set kept as its labelling tool wrote it (a `cases:` suite, no pipelines), read by a
/// command, one gold file of which cannot be read (`RM 3.90` under `compare: number`).
fn gold_set_with_a_broken_file(root: &Path) {
    let mut files = vec![
        ("Cargo.toml".to_owned(), "[package]\nname = \"g\"\n".to_owned()),
        (
            "cases/suite.yaml".to_owned(),
            "cases:\n  gold: key/{case}.json\nrun:\n  command: [sh, ../extract.sh, \"{case}\"]\ndefaults:\n  fields:\n    total: { compare: number }\n  thresholds:\n    min_exact_match: 1.0\nhistory: history.jsonl\n".to_owned(),
        ),
        ("extract.sh".to_owned(), "cat \"../out/$(basename \"$1\").json\"\n".to_owned()),
    ];
    for (n, total) in [
        ("001", "11.00"),
        ("002", "12.00"),
        ("003", "RM 3.90"),
        ("004", "14.00"),
    ] {
        let gold = format!(r#"{{"total": "{total}", "company": "ACME"}}"#);
        let read = if n == "002" {
            gold.replace("ACME", "ACNE")
        } else {
            gold.clone()
        };
        files.push((format!("cases/key/{n}.json"), gold));
        files.push((format!("out/{n}.json"), read));
    }
    support::write_owned(root, &files);
}

#[test]
fn a_case_that_cannot_load_counts_in_its_own_row_and_history_has_one_line_per_run() {
    let dir = tempfile::tempdir().unwrap();
    gold_set_with_a_broken_file(dir.path());
    for _ in 0..2 {
        let (run, report) = goldgate_report(dir.path(), &["test", "cases"]);
        let out = stdout(&run);
        assert_eq!(run.status.code(), Some(101), "{out}");
        assert!(
            out.contains("goldgate: 4 cases, 2 passed, 2 failed"),
            "{out}"
        );
        // One row, the suite's: the case that did not load is a failed test of it.
        let rows: Vec<&str> = report["pipelines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["pipeline"].as_str().unwrap_or("-"))
            .collect();
        assert_eq!(rows, ["cases/"], "{:#}", report["pipelines"]);
        assert_eq!(report["pipelines"][0]["pass_rate"], 0.5);
        assert_eq!(support::case(&report, "003")["suite"], "cases");
    }
    let history = std::fs::read_to_string(dir.path().join("cases/history.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = history
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{history}");
    for line in &lines {
        assert_eq!(
            (&line["cases"], &line["passed"], &line["failed"]),
            (&4.into(), &2.into(), &2.into())
        );
        assert_eq!(line["pass_rate"], 0.5);
    }
}

/// A live pipeline gated on a significant drop: four receipts read by a script that reads
/// `out/NAME.json`, and crashes for a receipt whose output is missing.
fn gated(root: &Path) {
    let mut files = vec![
        ("Cargo.toml".to_owned(), "[package]\nname = \"g\"\n".to_owned()),
        (
            "cases/suite.yaml".to_owned(),
            "run:\n  command: [sh, ../extract.sh, \"{case}\"]\n  cache: off\nbaseline: baseline.json\nregression_gate: { metric: anls, min_effect: 0.02 }\n".to_owned(),
        ),
        ("extract.sh".to_owned(), "cat \"../out/$1.json\" || exit 3\n".to_owned()),
    ];
    for n in ["001", "002", "003", "004"] {
        files.push((
            format!("cases/{n}.yaml"),
            format!("gold:\n  address: {n} Main Street West\n  company: ACME\nthresholds:\n  min_anls: 0.5\n"),
        ));
        files.push((
            format!("out/{n}.json"),
            format!(r#"{{"address": "{n} Main Stret Wst", "company": "ACME"}}"#),
        ));
    }
    support::write_owned(root, &files);
}

#[test]
fn a_gate_says_a_run_improved_and_never_offers_to_bless_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    gated(dir.path());
    let run = goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(run.status.success(), "{}", stdout(&run));
    // Every address read right now: the run passes, and says it is better than its baseline.
    for n in ["001", "002", "003", "004"] {
        write_files(
            dir.path(),
            &[(
                &format!("out/{n}.json"),
                &format!(r#"{{"address": "{n} Main Street West", "company": "ACME"}}"#),
            )],
        );
    }
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{out}");
    assert!(
        out.contains("improved against the baseline `cases/baseline.json`: ANLS rose 0.0"),
        "{out}"
    );
    assert!(out.contains("paired cases (95% interval +0.0"), "{out}");
    assert!(
        out.contains("; bless the new values with: GOLDGATE_UPDATE=always goldgate test cases\n"),
        "{out}"
    );
    // Three calls crash: the gate fails on their worst values, and does not offer to bless.
    for n in ["001", "002", "003"] {
        std::fs::remove_file(dir.path().join(format!("out/{n}.json"))).unwrap();
    }
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    let block = support::failure_block(&out, "cases::aggregate");
    assert!(
        block.contains("3 of the paired cases could not be scored (001 and 2 more) and count at the metric's worst"),
        "{block}"
    );
    assert!(!block.contains("accept the new values with"), "{block}");
}

#[test]
fn review_bless_all_writes_every_tests_entry_not_only_the_queues() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "tolerance: 0.5\nfail_on: regressions\n");
    bless(dir.path());
    // 003 reads its address right now: fixed, passing, within the tolerance, so no item of
    // review's queue. Blessing everything must write its entry all the same.
    predict(dir.path(), "003", "13.00", "003 Main St", "ACME");
    let run = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    let out = goldgate(dir.path(), &["review", "cases", "--bless", "--all"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("blessed every test's entry: 4 tests"),
        "{}",
        stdout(&out)
    );
    let text = std::fs::read_to_string(dir.path().join("cases/baseline.json")).unwrap();
    let base: serde_json::Value = serde_json::from_str(&text).unwrap();
    // 003, fixed, passes in its entry now; every other entry is as this run scored it.
    assert_eq!(base["cases"]["003"]["verdict"], "passed", "{text}");
    assert_eq!(
        base["cases"]["003"]["fields"]["address"]["em"], 1.0,
        "{text}"
    );
}

#[test]
fn the_pull_request_comment_leads_with_the_gate_and_names_what_got_worse() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    let base = goldgate(dir.path(), &["test", "cases", "--report", "base.json"]);
    assert_eq!(base.status.code(), Some(0), "{}", stdout(&base));
    predict(dir.path(), "002", "12.00", "002 Main Street", "ACME");
    let head = goldgate(dir.path(), &["test", "cases", "--report", "head.json"]);
    assert_eq!(head.status.code(), Some(101), "{}", stdout(&head));
    let out = goldgate(
        dir.path(),
        &[
            "report",
            "--compare",
            "base.json",
            "head.json",
            "--markdown",
        ],
    );
    let comment = stdout(&out);
    assert!(
        comment.starts_with("❌ **goldgate**: 1 regression against cases/baseline.json (first: 002 address 1.00 → 0.73; 2 known failures, 0 fixed, 0 new); 1 of 4 case tests failed\n"),
        "{comment}"
    );
    // The field that got worse, with its old value as the base report holds it.
    assert!(comment.contains("| `002` | passed → failed |"), "{comment}");
    assert!(
        comment.contains("`address`: `\"002 Main St\"` → `\"002 Main Street\"`"),
        "{comment}"
    );
}

#[test]
fn a_passing_test_whose_held_metric_dropped_shows_the_fields_that_dropped() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("Cargo.toml", "[package]\nname = \"r\"\n"),
            (
                "cases/suite.yaml",
                "baseline: baseline.json\ntolerance: 0.01\nfail_on: regressions\n",
            ),
            (
                "cases/a.yaml",
                "prediction: out.json\ngold: { name: Corner Bakery, id: \"7\" }\nthresholds: { min_anls: 0.5 }\n",
            ),
            ("cases/out.json", r#"{"name": "Corner Bakery", "id": "7"}"#),
        ],
    );
    bless_all(dir.path());
    write_files(
        dir.path(),
        &[("cases/out.json", r#"{"name": "Corner Bakry", "id": "7"}"#)],
    );
    let (run, report) = support::goldgate_report(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    let block = support::failure_block(&out, "a");
    assert!(block.contains("anls 1.0000 -> 0.9615"), "{block}");
    assert!(
        block.contains("field `name`\n  gold        Corner Bakery\n  prediction  Corner Bakry"),
        "{block}"
    );
    // The record lists the metrics that dropped, as it does under `fail_on: failures`.
    let dropped = &support::case(&report, "a")["baseline"]["regressions"];
    assert_eq!(dropped[0]["metric"], "anls", "{dropped:#}");
}

/// Blesses every test, whatever they do.
fn bless_all(root: &Path) {
    let run = goldgate_with(root, &["test", "cases"], &[("GOLDGATE_UPDATE", "always")]);
    assert!(stdout(&run).contains("baseline: "), "{}", stdout(&run));
}

#[test]
fn a_new_case_that_cannot_load_is_new_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    write_files(dir.path(), &[("cases/broken.yaml", "gold: { a: \"x\"\n")]);
    let (run, report) = support::goldgate_report(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    assert_eq!(
        last_line(&out),
        "goldgate: 1 regression against cases/baseline.json (first: broken new, fails; 2 known failures, 0 fixed, 1 new)"
    );
    assert_eq!(support::case(&report, "broken")["baseline"]["new"], true);
}

#[test]
fn fail_on_regressions_without_a_baseline_fails_the_test_that_has_none() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("Cargo.toml", "[package]\nname = \"r\"\n"),
            (
                "cases/a.yaml",
                "prediction: { x: \"1\" }\ngold: { x: \"1\" }\nthresholds: { min_anls: 0.5 }\n",
            ),
        ],
    );
    let run = goldgate(dir.path(), &["test", "cases", "--fail-on", "regressions"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    assert!(
        out.contains("error: `--fail-on regressions` holds each test to its baseline entry, and no suite of this case declares a `baseline:`"),
        "{out}"
    );
}

#[test]
fn blessing_under_regressions_makes_the_failing_tests_known_failures() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    let run = goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{out}");
    assert!(out.contains("test 003 ... known failure ("), "{out}");
    assert_eq!(
        last_line(&out),
        "goldgate: no regression against cases/baseline.json (2 known failures, 0 fixed, 0 new)"
    );
}

#[test]
fn fixing_a_case_that_could_not_load_passes_its_regression_gate() {
    let dir = tempfile::tempdir().unwrap();
    gated(dir.path());
    write_files(dir.path(), &[("cases/004.yaml", "gold: [\n")]);
    bless_all(dir.path());
    let text = std::fs::read_to_string(dir.path().join("cases/baseline.json")).unwrap();
    assert!(text.contains("\"error: load\""), "{text}");
    write_files(
        dir.path(),
        &[(
            "cases/004.yaml",
            "gold:\n  address: 004 Main Street West\n  company: ACME\nthresholds:\n  min_anls: 0.5\n",
        )],
    );
    let run = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
}

#[test]
fn the_last_line_names_the_worst_regression_first() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    predict(dir.path(), "001", "11.00", "001 Main Sx", "ACME");
    predict(dir.path(), "002", "12.00", "Nowhere at all", "ACME");
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert!(
        last_line(&out).starts_with(
            "goldgate: 2 regressions against cases/baseline.json (first: 002 address 1.00 → "
        ),
        "{out}"
    );
    assert!(last_line(&out).contains("; also 001;"), "{out}");
}

#[test]
fn a_run_split_across_processes_gives_one_account_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    predict(dir.path(), "002", "12.00", "002 Main Street", "ACME");
    let split = [
        ("GOLDGATE_RUN_ID", "split-1"),
        ("GOLDGATE_RUN_END", "later"),
    ];
    // Two processes, each a part of the run: one holds the known failures, the other the
    // regression; each exits as its own tests say.
    let first = goldgate_with(
        dir.path(),
        &["test", "cases", "--skip", "001", "--skip", "002"],
        &split,
    );
    assert_eq!(first.status.code(), Some(0), "{}", stdout(&first));
    assert!(
        stdout(&first).contains("test 003 ... known failure ("),
        "{}",
        stdout(&first)
    );
    let second = goldgate_with(
        dir.path(),
        &["test", "cases", "--skip", "003", "--skip", "004"],
        &split,
    );
    assert_eq!(second.status.code(), Some(101), "{}", stdout(&second));
    let end = goldgate(dir.path(), &["report", "--run", "split-1"]);
    let out = stdout(&end);
    assert!(
        out.contains("goldgate: 4 cases, 1 passed, 1 failed, 2 known failures, 0 ignored;"),
        "{out}"
    );
    assert_eq!(
        last_line(&out),
        "goldgate: 1 regression against cases/baseline.json (first: 002 address 1.00 → 0.73; 2 known failures, 0 fixed, 0 new)"
    );
}

#[test]
fn review_lists_a_known_failures_fields() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    let run = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(run.status.code(), Some(0), "{}", stdout(&run));
    // 003 reads its address wrong, 004 its total: gold or pipeline, each is an item to decide.
    let list = stdout(&goldgate(dir.path(), &["review", "cases", "--list"]));
    assert!(list.contains("003#address"), "{list}");
    assert!(list.contains("004#total"), "{list}");
}

#[test]
fn a_comparison_gives_a_fixed_test_its_bless_command() {
    let dir = tempfile::tempdir().unwrap();
    receipts(dir.path(), "fail_on: regressions\n");
    bless(dir.path());
    goldgate(dir.path(), &["test", "cases", "--report", "base.json"]);
    predict(dir.path(), "004", "14.00", "004 Main St", "ACME");
    goldgate(dir.path(), &["test", "cases", "--report", "head.json"]);
    let text = stdout(&goldgate(
        dir.path(),
        &["report", "--compare", "base.json", "head.json"],
    ));
    assert!(
        text.contains("  004: known failure → passed (fixed: bless it with GOLDGATE_UPDATE=always goldgate test cases --exact 004);"),
        "{text}"
    );
}
