//! `goldgate report --compare BASE HEAD` (SPEC §21), from the `goldgate` binary over runs made
//! here: the text for the terminal, and with `--markdown` the pull-request comment, read back
//! by a CommonMark + GFM renderer (pulldown-cmark, tables on) as GitHub reads it, for 20 and
//! for 5,000 changed tests.

mod support;

#[path = "support/chromium.rs"]
mod chromium;

use std::path::Path;

use support::{goldgate, stdout, write_owned};

/// GitHub's limit on a comment's body.
const LIMIT: usize = 65_536;

/// A suite of `n` cases `c0000`… under the pipeline `llm`, each gold `total` and `name`; the
/// output of case i gives `totals(i)` (gold's is `"1.00"`) and the gold name.
fn write_run(dir: &Path, n: usize, totals: impl Fn(usize) -> &'static str, gold_name: &str) {
    let mut files = vec![(
        "cases/suite.yaml".to_owned(),
        "pipelines:\n  llm: out/{case}.json\n".to_owned(),
    )];
    for i in 0..n {
        files.push((
            format!("cases/c{i:04}.yaml"),
            format!(
                "gold:\n  total: \"1.00\"\n  name: {gold_name}\nthresholds: {{min_exact_match: 1}}\n"
            ),
        ));
        files.push((
            format!("cases/out/c{i:04}.json"),
            format!("{{\"total\": \"{}\", \"name\": \"Acme\"}}", totals(i)),
        ));
    }
    write_owned(dir, &files);
}

/// Runs the cases of `dir` with the report at `name`.
fn run(dir: &Path, name: &str) {
    let out = goldgate(dir, &["test", "cases", "--report", name]);
    assert!(
        out.status.code().is_some_and(|c| c <= 101),
        "{}",
        stdout(&out)
    );
}

fn compare(dir: &Path, extra: &[&str]) -> String {
    let mut args = vec!["report", "--compare", "base.json", "head.json"];
    args.extend(extra);
    let out = goldgate(dir, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

#[test]
fn the_text_gives_each_pipeline_and_each_changed_test_with_its_field() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path(), 4, |_| "1.00", "Acme");
    run(dir.path(), "base.json");
    // c0001 regresses (a total of `1.0`: ANLS 0.75 for the field, 0.875 for the case), c0003
    // goes, c0004 comes; c0000's gold name becomes `Acme Co` (ANLS 4/7 for `Acme`): it regresses
    // too, on other gold. The means are over the 3 tests in both runs, whose EM drops by a third,
    // not significantly; each run's pass rate is over its own 4 tests. The fields' old values
    // are BASE's, though its tests passed.
    write_run(
        dir.path(),
        5,
        |i| if i == 1 { "1.0" } else { "1.00" },
        "Acme",
    );
    std::fs::remove_file(dir.path().join("cases/c0003.yaml")).unwrap();
    std::fs::write(
        dir.path().join("cases/c0000.yaml"),
        "gold:\n  total: \"1.00\"\n  name: Acme Co\nthresholds: {min_exact_match: 1}\n",
    )
    .unwrap();
    run(dir.path(), "head.json");
    let text = compare(dir.path(), &[]);
    assert_eq!(
        text,
        "\
comparing BASE `base.json` with HEAD `head.json`
different gold: the gold or rules of 1 test changed (c0000::llm), so their differences are not the pipeline's alone
HEAD: 2 of 4 case tests failed

llm, 3 tests in both runs:
metric     tests             base            head  HEAD − BASE, 95 % interval                                  significant
EM             3           1.0000          0.6667  -0.3333 [-0.5000, +0.0000]                                  no
ANLS           3           1.0000          0.8869  -0.1131 [-0.2143, +0.0000]                                  no
pass rate      3  100.0% (4 of 4)  50.0% (2 of 4)  passed only in BASE 2, only in HEAD 0 (McNemar p = 0.5000)  no

regressed (2):
  c0000::llm: passed → failed; ANLS 1.0000 → 0.7857, EM 1.0000 → 0.5000; its gold changed
    name: \"Acme\" → \"Acme\" (EM 1.0000 → 0.0000, ANLS 1.0000 → 0.5714; gold \"Acme\" → \"Acme Co\")
  c0001::llm: passed → failed; ANLS 1.0000 → 0.8750, EM 1.0000 → 0.5000
    total: \"1.00\" → \"1.0\" (EM 1.0000 → 0.0000, ANLS 1.0000 → 0.7500; gold \"1.00\")

new (1):
  c0004::llm: passed; ANLS 1.0000

removed (1):
  c0003::llm: passed in BASE; ANLS 1.0000
"
    );
}

/// The tables of a comment as a CommonMark + GFM renderer reads them: per table, its header
/// cells and its rows' cells (text only).
fn tables(markdown: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut out: Vec<(Vec<String>, Vec<Vec<String>>)> = Vec::new();
    let (mut in_head, mut cell) = (false, None::<String>);
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Table(_)) => out.push((Vec::new(), Vec::new())),
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => out.last_mut().unwrap().1.push(Vec::new()),
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let text = cell.take().unwrap();
                let table = out.last_mut().unwrap();
                if in_head {
                    table.0.push(text);
                } else {
                    table.1.last_mut().unwrap().push(text);
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            _ => {}
        }
    }
    out
}

/// `n` cases, all passing in BASE; in HEAD the first `regressed` give a wrong total (case i
/// `"1.0"`, or `"9"` for every seventh, which drops further), the rest pass.
fn changed_runs(n: usize, regressed: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path(), n, |_| "1.00", "Acme");
    run(dir.path(), "base.json");
    write_run(
        dir.path(),
        n,
        move |i| match i {
            i if i >= regressed => "1.00",
            i if i % 7 == 0 => "9",
            _ => "1.0",
        },
        "Acme",
    );
    run(dir.path(), "head.json");
    dir
}

#[test]
fn the_comment_for_20_changed_tests_has_every_row_regressions_first_in_real_tables() {
    let dir = changed_runs(30, 20);
    let comment = compare(dir.path(), &["--markdown"]);
    assert!(comment.chars().count() <= LIMIT);
    assert_eq!(
        comment.lines().next().unwrap(),
        "❌ **goldgate**: 20 of 30 case tests failed"
    );
    assert!(!comment.contains("left out"), "{comment}");
    let tables = tables(&comment);
    assert_eq!(tables.len(), 2, "{comment}");
    let (head, rows) = &tables[0];
    assert_eq!(
        head,
        &[
            "metric",
            "tests",
            "base",
            "head",
            "HEAD − BASE, 95 % interval",
            "significant"
        ]
    );
    assert_eq!(rows[1][..4], ["ANLS", "30", "1.0000", "0.8792"]);
    assert_eq!(rows[1][5], "yes");
    let (head, rows) = &tables[1];
    assert_eq!(head, &["test", "verdict", "metric", "fields: BASE → HEAD"]);
    assert_eq!(rows.len(), 20);
    // The largest drops first (a total of `9` drops ANLS by more than one of `1.0`), then by name.
    let names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        names[..4],
        ["c0000::llm", "c0007::llm", "c0014::llm", "c0001::llm"]
    );
    assert_eq!(
        rows[3],
        [
            "c0001::llm",
            "passed → failed",
            "ANLS 1.0000 → 0.8750, EM 1.0000 → 0.5000",
            "total: \"1.00\" → \"1.0\" (EM 1.0000 → 0.0000, ANLS 1.0000 → 0.7500; gold \"1.00\")"
        ]
    );
    assert!(comment.contains("#### regressed (20)\n"), "{comment}");
}

#[test]
fn the_comment_for_5000_changed_tests_stays_within_githubs_limit_and_says_what_it_left_out() {
    let dir = changed_runs(5_000, 5_000);
    let comment = compare(
        dir.path(),
        &[
            "--markdown",
            "--page-url",
            "https://ci.example/runs/7/page.html",
        ],
    );
    let length = comment.chars().count();
    assert!(length <= LIMIT, "{length} characters");
    assert!(
        length > LIMIT - 2_000,
        "{length}: the comment leaves room unused"
    );
    let tables = tables(&comment);
    let rows = &tables.last().unwrap().1;
    assert!(rows.len() > 100, "{} rows", rows.len());
    // Regressions first, the largest drops (every seventh case) before the others.
    assert!(rows.iter().all(|r| r[1] == "passed → failed"));
    // The 715 largest drops come first: the rows that fit (each with its field, old → new,
    // their EM and ANLS and gold's value) are all of them.
    assert_eq!(rows[0][0], "c0000::llm");
    assert!(rows.len() < 715, "{} rows", rows.len());
    assert!(
        rows.iter()
            .all(|r| r[2] == "ANLS 1.0000 → 0.5000, EM 1.0000 → 0.5000"),
        "{rows:?}"
    );
    // The regressions are kept before the group's table, which is what is left out.
    let expected = format!(
        "_1 pipeline table and {} rows left out to stay within GitHub's 65,536 characters: [the full page](https://ci.example/runs/7/page.html)_\n",
        5_000 - rows.len()
    );
    assert!(
        comment.ends_with(&expected),
        "{}",
        &comment[comment.len() - 400..]
    );
    // Without a page, the report's file is named.
    let comment = compare(dir.path(), &["--markdown"]);
    assert!(
        comment.ends_with(&format!(
            "_1 pipeline table and {} rows left out to stay within GitHub's 65,536 characters: the full comparison is `goldgate report --compare` on the report `head.json`_\n",
            5_000 - tables.last().unwrap().1.len()
        )),
        "{}",
        &comment[comment.len() - 400..]
    );
}

/// The comment as GitHub would draw it (pulldown-cmark's HTML in GitHub's table style), in
/// headless Chromium: a screenshot for the book, `docs/src/pr-comment.png`, made again with
/// `GOLDGATE_BLESS=1`.
#[test]
#[ignore = "needs headless Chromium (apt-get install chromium); .ci/run installs it and runs the ignored tests"]
fn headless_chromium_draws_the_comment_with_its_tables() {
    let chromium = chromium::require();
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path(), 12, |_| "1.00", "Acme");
    run(dir.path(), "base.json");
    write_run(
        dir.path(),
        14,
        |i| match i {
            0 | 5 => "9",
            3 | 8 | 11 => "1.0",
            _ => "1.00",
        },
        "Acme",
    );
    std::fs::remove_file(dir.path().join("cases/c0010.yaml")).unwrap();
    run(dir.path(), "head.json");
    let comment = compare(
        dir.path(),
        &[
            "--markdown",
            "--page-url",
            "https://ci.example/runs/7/page.html",
        ],
    );
    let mut body = String::new();
    pulldown_cmark::html::push_html(
        &mut body,
        pulldown_cmark::Parser::new_ext(&comment, pulldown_cmark::Options::ENABLE_TABLES),
    );
    // The pipeline's table, the regressed, new and removed tests.
    assert_eq!(body.matches("<table>").count(), 4, "{body}");
    let page = dir.path().join("comment.html");
    std::fs::write(
        &page,
        format!(
            "<!doctype html><meta charset=utf-8><style>\
             body{{font:14px -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328;margin:16px;max-width:900px}}\
             table{{border-collapse:collapse;margin:8px 0 16px}}\
             th,td{{border:1px solid #d1d9e0;padding:6px 13px}}tr:nth-child(2n){{background:#f6f8fa}}\
             code{{background:#eff1f3;border-radius:6px;padding:.2em .4em;font-size:85%}}h4{{margin:16px 0 8px}}\
             </style><body>{body}</body>"
        ),
    )
    .unwrap();
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("goldgate-comment.png");
    let _ = std::fs::remove_file(&shot);
    let out = chromium::headless(&chromium, &dir.path().join("profile"), 940, 1000)
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let png = std::fs::read(&shot)
        .unwrap_or_else(|_| panic!("no screenshot: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
    if std::env::var_os("GOLDGATE_BLESS").is_some() {
        let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/pr-comment.png");
        std::fs::write(book, &png).unwrap();
    }
}

/// BASE and HEAD may be runs of this project by id, or reports; a report is named by the commit
/// it was written at (`GITHUB_SHA` here), never by its path; HEAD's failed gate heads the comment.
#[test]
fn runs_are_named_by_their_id_or_commit_and_a_failed_gate_heads_the_comment() {
    let dir = tempfile::tempdir().unwrap();
    // A project of its own (its state is keyed by the folder with `.git`), with a gate.
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write_run(dir.path(), 4, |_| "1.00", "Acme");
    let id = format!("compare-{}", std::process::id());
    let base = support::goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_RUN_ID", id.as_str())],
    );
    assert!(base.status.success(), "{}", stdout(&base));
    write_run(dir.path(), 4, |i| if i < 2 { "9" } else { "1.00" }, "Acme");
    std::fs::write(
        dir.path().join("cases/suite.yaml"),
        "pipelines:\n  llm: out/{case}.json\naggregate:\n  min_anls: 0.9\n",
    )
    .unwrap();
    let head = support::goldgate_with(
        dir.path(),
        &["test", "cases", "--report", "head.json"],
        &[("GITHUB_SHA", "9e07aa41c5d2b7e3f1a0c4d5e6f708192a3b4c5d")],
    );
    assert_eq!(head.status.code(), Some(101), "{}", stdout(&head));
    let out = goldgate(dir.path(), &["report", "--compare", &id, "head.json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!(
            "comparing BASE `run {id}` with HEAD `commit 9e07aa41c5d2`\nthe same gold for every test both runs hold (the gold sets differ by the tests added or removed)\nHEAD: 1 of 1 aggregate gate failed: cases::aggregate::llm (min_anls 0.9, got 0.7500); 2 of 4 case tests failed\n"
        )),
        "{text}"
    );
    let comment = stdout(&goldgate(
        dir.path(),
        &["report", "--compare", &id, "head.json", "--markdown"],
    ));
    assert_eq!(
        comment.lines().next().unwrap(),
        "❌ **goldgate**: 1 of 1 aggregate gate failed: cases::aggregate::llm (min_anls 0.9, got 0.7500); 2 of 4 case tests failed"
    );
    // A name that is neither a report nor a run says which it looked for.
    let out = goldgate(dir.path(), &["report", "--compare", "nope", "head.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "`nope` is neither a report file nor a run of this project: give a report (`--report FILE`, `GOLDGATE_REPORT`) or a run id (nextest's run id, or GOLDGATE_RUN_ID)"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test with rubrics is compared on its ANLS (its pipeline has no regression gate), passing in
/// both runs or not, and its score is shown beside: an Easy-Wrong rubric that fails in HEAD
/// lowers the score, and the test regressed though it still passes.
#[test]
fn a_passing_test_with_rubrics_is_compared_on_its_anls_with_its_score() {
    let dir = tempfile::tempdir().unwrap();
    let case = |total: &str| {
        format!(
            "gold: {{total: \"12\", vendor: ACME}}\nprediction: {{total: \"{total}\", vendor: ACME}}\nrubrics:\n  - easy_wrong: the total is right\n    field: total\n    equals: \"12\"\n    penalty: 0.2\n  - easy_wrong: the vendor is right\n    field: vendor\n    equals: ACME\n    penalty: 0.2\nthresholds:\n  min_score: 0.7\n"
        )
    };
    write_owned(dir.path(), &[("cases/a.yaml".to_owned(), case("12"))]);
    run(dir.path(), "base.json");
    write_owned(dir.path(), &[("cases/a.yaml".to_owned(), case("13"))]);
    run(dir.path(), "head.json");
    let text = compare(dir.path(), &[]);
    assert!(
        text.contains("regressed (1):\n  a: passed → passed; ANLS 1.0000 → 0.5000, EM 1.0000 → 0.5000, score 1.0000 → 0.8000\n    total: \"12\" → \"13\" (EM 1.0000 → 0.0000, ANLS 1.0000 → 0.0000; gold \"12\")\n"),
        "{text}"
    );
}

/// Three receipts whose rubrics check the total and the vendor, under the pipeline `llm`; each
/// output gives `address` (gold's is `12 Main Street Springfield`).
fn write_receipts(dir: &Path, address: &str) {
    let receipt = "gold:\n  total: \"10.00\"\n  vendor: ACME\n  address: 12 Main Street Springfield\nrubrics:\n  - must_right: the total is right\n    field: total\n    equals: \"10.00\"\n  - easy_wrong: the vendor is right\n    field: vendor\n    equals: ACME\n    penalty: 0.2\n";
    let mut files = vec![(
        "cases/suite.yaml".to_owned(),
        "pipelines:\n  llm: out/{case}.json\n".to_owned(),
    )];
    for i in 1..=3 {
        files.push((format!("cases/r{i}.yaml"), receipt.to_owned()));
        files.push((
            format!("cases/out/r{i}.json"),
            format!("{{\"total\": \"10.00\", \"vendor\": \"ACME\", \"address\": \"{address}\"}}"),
        ));
    }
    write_owned(dir, &files);
}

/// `report --compare base.json head.json --json`, read.
fn compare_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&compare(dir, &["--json"])).unwrap()
}

/// The names of the tests the text lists under a kind (`  name: …` lines).
fn listed_in_text(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .filter_map(|l| l.trim_start().split(": ").next())
        .map(str::to_owned)
        .collect()
}

/// The address regresses on every receipt (ANLS 1 → 0.8462) while the rubrics, on other
/// fields, hold and the tests pass: each receipt is listed, ranked by ANLS (the score did not
/// move), with the address old → new read from BASE's report, EM and ANLS, in the text, the
/// comment and the JSON alike; no placeholder stands for a value a passing test kept.
#[test]
fn a_drop_on_a_field_no_rubric_checks_lists_every_test_with_its_old_and_new_values() {
    let dir = tempfile::tempdir().unwrap();
    write_receipts(dir.path(), "12 Main Street Springfield");
    run(dir.path(), "base.json");
    write_receipts(dir.path(), "12 Main St Springfield");
    run(dir.path(), "head.json");
    let field = "address: \"12 Main Street Springfield\" → \"12 Main St Springfield\" (EM 1.0000 → 0.0000, ANLS 1.0000 → 0.8462; gold \"12 Main Street Springfield\")";

    let text = compare(dir.path(), &[]);
    assert!(!text.contains("no test changed"), "{text}");
    assert!(!text.contains("(passed)"), "{text}");
    assert!(text.contains("\nregressed (3):\n"), "{text}");
    for i in 1..=3 {
        assert!(
            text.contains(&format!(
                "\n  r{i}::llm: passed → passed; ANLS 1.0000 → 0.9487, EM 1.0000 → 0.6667\n    {field}\n"
            )),
            "{text}"
        );
    }

    let comment = compare(dir.path(), &["--markdown"]);
    assert!(!comment.contains("_passed_"), "{comment}");
    assert!(comment.contains("#### regressed (3)\n"), "{comment}");
    let tables = tables(&comment);
    let (_, rows) = tables.last().unwrap();
    assert_eq!(rows.len(), 3, "{comment}");
    for row in rows {
        assert_eq!(row[1], "passed → passed");
        assert_eq!(row[2], "ANLS 1.0000 → 0.9487, EM 1.0000 → 0.6667");
        assert_eq!(row[3], field);
    }

    let json = compare_json(dir.path());
    let tests = json["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["test"].as_str().unwrap()).collect();
    assert_eq!(names, listed_in_text(&text));
    let address = &tests[0]["fields"][0];
    assert_eq!(address["field"], "address");
    assert_eq!(address["base"]["prediction"], "12 Main Street Springfield");
    assert_eq!(address["head"]["prediction"], "12 Main St Springfield");
    assert_eq!(tests[0]["metrics"][0]["metric"], "anls");
}

/// Tests are ranked by their pipeline's `regression_gate` metric, here EM: t1 (each field one
/// character off: EM 1 → 0, ANLS 1 → 0.9) before t2 (one field wholly wrong: EM 1 → 0.5, ANLS
/// 1 → 0.5), where ANLS would rank t2 first.
#[test]
fn tests_are_ranked_by_their_pipelines_regression_gate_metric() {
    let dir = tempfile::tempdir().unwrap();
    let outputs = |t1: &str, t2: &str| {
        let mut files = vec![(
            "cases/suite.yaml".to_owned(),
            "pipelines:\n  llm: out/{case}.json\nbaseline: baseline.json\nregression_gate: { metric: exact_match, min_effect: 0.02 }\n".to_owned(),
        )];
        for (name, output) in [("t1", t1), ("t2", t2)] {
            files.push((
                format!("cases/{name}.yaml"),
                "gold:\n  a: abcdefghij\n  b: klmnopqrst\nthresholds: {min_anls: 0.1}\n".to_owned(),
            ));
            files.push((format!("cases/out/{name}.json"), output.to_owned()));
        }
        write_owned(dir.path(), &files);
    };
    let right = r#"{"a": "abcdefghij", "b": "klmnopqrst"}"#;
    outputs(right, right);
    let base = support::goldgate_with(
        dir.path(),
        &["test", "cases", "--report", "base.json"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(base.status.success(), "{}", stdout(&base));
    outputs(
        r#"{"a": "abcdefghiX", "b": "klmnopqrsX"}"#,
        r#"{"a": "abcdefghij", "b": "zzzzzzzzzz"}"#,
    );
    run(dir.path(), "head.json");
    let text = compare(dir.path(), &[]);
    assert!(
        text.contains(
            "\nregressed (2):\n  t1::llm: passed → passed; EM 1.0000 → 0.0000, ANLS 1.0000 → 0.9000\n"
        ),
        "{text}"
    );
    let t2 = text.find("\n  t2::llm: passed → passed; EM 1.0000 → 0.5000, ANLS 1.0000 → 0.5000\n");
    assert!(
        t2.is_some_and(|at| at > text.find("t1::llm").unwrap()),
        "{text}"
    );
    let json = compare_json(dir.path());
    assert_eq!(json["tests"][0]["metrics"][0]["metric"], "exact_match");
}

/// 400 pipelines of two cases each, every case regressed and every pipeline's gate failed: the
/// pipelines' tables alone would outgrow GitHub's limit. The comment keeps within it, verdict
/// and tables counted, lists regressed tests with their fields, and says what it left out.
#[test]
fn the_comment_of_many_pipelines_stays_within_githubs_limit_with_its_regressions() {
    let dir = tempfile::tempdir().unwrap();
    let write = |total: &str| {
        let pipelines: String = (0..400)
            .map(|j| format!("  p{j:03}: out/p{j:03}/{{case}}.json\n"))
            .collect();
        let mut files = vec![(
            "cases/suite.yaml".to_owned(),
            format!("pipelines:\n{pipelines}aggregate:\n  min_exact_match: 1\n"),
        )];
        for case in ["a", "b"] {
            files.push((
                format!("cases/{case}.yaml"),
                "gold:\n  total: \"1.00\"\nthresholds: {min_exact_match: 1}\n".to_owned(),
            ));
            for j in 0..400 {
                files.push((
                    format!("cases/out/p{j:03}/{case}.json"),
                    format!("{{\"total\": \"{total}\"}}"),
                ));
            }
        }
        write_owned(dir.path(), &files);
    };
    write("1.00");
    run(dir.path(), "base.json");
    write("9");
    run(dir.path(), "head.json");
    let comment = compare(
        dir.path(),
        &["--markdown", "--page-url", "https://ci.example/runs/7"],
    );
    let length = comment.chars().count();
    assert!(length <= LIMIT, "{length} characters");
    assert!(
        comment.starts_with("❌ **goldgate**: 400 of 400 aggregate gates failed: "),
        "{}",
        &comment[..300]
    );
    assert!(comment.contains("#### regressed (800)\n"), "{length}");
    let tables = tables(&comment);
    let (head, rows) = tables.last().unwrap();
    assert_eq!(head, &["test", "verdict", "metric", "fields: BASE → HEAD"]);
    assert!(rows.len() > 20, "{} rows", rows.len());
    assert!(
        rows.iter()
            .all(|r| r[3].starts_with("total: \"1.00\" → \"9\" (EM 1.0000 → 0.0000")),
        "{rows:?}"
    );
    let last = comment.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("_") && last.contains("pipeline tables and ") && last.contains(" rows left out to stay within GitHub's 65,536 characters: [the full page](https://ci.example/runs/7)_"),
        "{last}"
    );
}

/// A suite without pipelines whose case in a subfolder does not load in BASE (2 of its 4 tests
/// passed) and does in HEAD (3 of 4): one group, each run's pass rate over its own 4 tests; the
/// means are over the tests both runs scored, so that HEAD − BASE is their difference; and the
/// gold of the case BASE could not load is not said to be the same.
#[test]
fn counts_use_each_runs_own_denominator_and_means_agree_with_their_difference() {
    let dir = tempfile::tempdir().unwrap();
    let case = |total: &str| {
        format!(
            "gold:\n  total: \"1.00\"\nprediction:\n  total: \"{total}\"\nthresholds: {{min_exact_match: 1}}\n"
        )
    };
    let mut files = vec![(
        "cases/suite.yaml".to_owned(),
        "aggregate:\n  min_anls: 0.1\n".to_owned(),
    )];
    for (name, total) in [("c1", "1.00"), ("c2", "1.00"), ("c3", "2"), ("c4", "1.00")] {
        files.push((format!("cases/sub/{name}.yaml"), case(total)));
    }
    write_owned(dir.path(), &files);
    std::fs::write(
        dir.path().join("cases/sub/c4.yaml"),
        "gold:\n  total: [unclosed\n",
    )
    .unwrap();
    run(dir.path(), "base.json");
    std::fs::write(dir.path().join("cases/sub/c4.yaml"), case("1.00")).unwrap();
    run(dir.path(), "head.json");

    let text = compare(dir.path(), &[]);
    assert!(text.contains("\ncases/, 4 tests in both runs:\n"), "{text}");
    assert!(!text.contains("cases/sub/"), "{text}");
    let row = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(
        row("pass rate").starts_with(
            "pass rate 4 50.0% (2 of 4) 75.0% (3 of 4) passed only in BASE 0, only in HEAD 1"
        ),
        "{text}"
    );
    assert!(
        row("EM").starts_with("EM 3 0.6667 0.6667 +0.0000 "),
        "{text}"
    );
    assert!(
        row("ANLS").starts_with("ANLS 3 0.6667 0.6667 +0.0000 "),
        "{text}"
    );
    assert!(!text.contains("the same gold"), "{text}");
    assert!(text.contains("sub/c4"), "{text}");

    let json = compare_json(dir.path());
    let groups = json["pipelines"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{json}");
    assert_eq!(
        groups[0]["pass_rate"]["base"],
        serde_json::json!({"passed": 2, "cases": 4, "rate": 0.5})
    );
    for metric in ["exact_match", "anls"] {
        let m = &groups[0][metric];
        let (base, head, difference) = (
            m["base"].as_f64().unwrap(),
            m["head"].as_f64().unwrap(),
            m["difference"].as_f64().unwrap(),
        );
        assert!((head - base - difference).abs() < 1e-12, "{m}");
        assert_eq!(m["cases"], 3, "{m}");
    }
}

/// Under `fail_on: regressions`, a test that fails as its baseline entry says is a known
/// failure: not a failure of HEAD's verdict, not passed in its pass rate, and no change from a
/// test that failed in BASE.
#[test]
fn a_known_failure_is_counted_as_such_and_not_as_passed() {
    let dir = tempfile::tempdir().unwrap();
    write_run(dir.path(), 4, |i| if i == 3 { "9" } else { "1.00" }, "Acme");
    std::fs::write(
        dir.path().join("cases/suite.yaml"),
        "pipelines:\n  llm: out/{case}.json\nbaseline: baseline.json\n",
    )
    .unwrap();
    let base = support::goldgate_with(
        dir.path(),
        &["test", "cases", "--report", "base.json"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert_eq!(base.status.code(), Some(101), "{}", stdout(&base));
    std::fs::write(
        dir.path().join("cases/suite.yaml"),
        "pipelines:\n  llm: out/{case}.json\nbaseline: baseline.json\nfail_on: regressions\n",
    )
    .unwrap();
    let head = goldgate(dir.path(), &["test", "cases", "--report", "head.json"]);
    assert!(head.status.success(), "{}", stdout(&head));
    let text = compare(dir.path(), &[]);
    // Held to its baseline, HEAD is judged by its gate, as its run was.
    assert!(
        text.contains("\nHEAD: no regression against cases/baseline.json (1 known failure, 0 fixed, 0 new); 0 of 4 case tests failed\n"),
        "{text}"
    );
    assert!(text.contains("75.0% (3 of 4)  75.0% (3 of 4)"), "{text}");
    assert!(text.ends_with("\nno test changed\n"), "{text}");
    let comment = compare(dir.path(), &["--markdown"]);
    assert_eq!(
        comment.lines().next().unwrap(),
        "✅ **goldgate**: no regression against cases/baseline.json (1 known failure, 0 fixed, 0 new); 0 of 4 case tests failed"
    );
}

/// Two suites without pipelines: the text, the comment and the JSON group the tests by the
/// same folders and list the same tests.
#[test]
fn text_markdown_and_json_are_one_grouping_of_the_same_tests() {
    let dir = tempfile::tempdir().unwrap();
    let write = |x1: &str, y1: &str| {
        let case = |total: &str| {
            format!(
                "gold:\n  total: \"1.00\"\nprediction:\n  total: \"{total}\"\nthresholds: {{min_anls: 0.1}}\n"
            )
        };
        write_owned(
            dir.path(),
            &[
                ("cases/a/suite.yaml".to_owned(), "defaults: {}\n".to_owned()),
                ("cases/a/x1.yaml".to_owned(), case(x1)),
                ("cases/a/x2.yaml".to_owned(), case("1.00")),
                ("cases/b/suite.yaml".to_owned(), "defaults: {}\n".to_owned()),
                ("cases/b/y1.yaml".to_owned(), case(y1)),
            ],
        );
    };
    write("1.00", "1.00");
    run(dir.path(), "base.json");
    write("1.0", "1.000");
    run(dir.path(), "head.json");
    let text = compare(dir.path(), &[]);
    let headings: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_suffix(" in both runs:"))
        .filter_map(|l| l.rsplit_once(", ").map(|(name, _)| name))
        .collect();
    assert_eq!(headings, ["cases/a/", "cases/b/"], "{text}");
    let json = compare_json(dir.path());
    let groups: Vec<&str> = json["pipelines"]
        .as_array()
        .unwrap_or_else(|| panic!("{json}"))
        .iter()
        .map(|p| p["pipeline"].as_str().unwrap())
        .collect();
    assert_eq!(groups, headings);
    let tests: Vec<&str> = json["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["test"].as_str().unwrap())
        .collect();
    assert_eq!(tests, listed_in_text(&text), "{text}");
    assert_eq!(tests.len(), 2, "{text}");
    let groups_of_tests: Vec<&str> = json["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["pipeline"].as_str().unwrap())
        .collect();
    assert_eq!(groups_of_tests, ["cases/a/", "cases/b/"], "{json}");
    let comment = compare(dir.path(), &["--markdown"]);
    let tables = tables(&comment);
    let rows = &tables.last().unwrap().1;
    let in_comment: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(in_comment, tests);
}

/// Under a regression gate on EM, a test whose EM held and whose ANLS rose is not listed, and
/// the text does not say that no test changed: it says one moved on another metric. Two runs
/// where nothing moved say "no test changed".
#[test]
fn no_test_changed_is_said_only_when_no_paired_tests_metric_moved() {
    let dir = tempfile::tempdir().unwrap();
    let write = |a: &str| {
        write_owned(
            dir.path(),
            &[
                (
                    "cases/suite.yaml".to_owned(),
                    "pipelines:\n  llm: out/{case}.json\nbaseline: baseline.json\nregression_gate: { metric: exact_match, min_effect: 0.02 }\n".to_owned(),
                ),
                (
                    "cases/t1.yaml".to_owned(),
                    "gold:\n  a: abcdefghij\n  b: klmnopqrst\nthresholds: {min_anls: 0.1}\n".to_owned(),
                ),
                (
                    "cases/out/t1.json".to_owned(),
                    format!("{{\"a\": \"{a}\", \"b\": \"klmnopqrst\"}}"),
                ),
            ],
        );
    };
    write("zzzzzzzzzz");
    let base = support::goldgate_with(
        dir.path(),
        &["test", "cases", "--report", "base.json"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(base.status.success(), "{}", stdout(&base));
    write("abcdefghiX");
    run(dir.path(), "head.json");
    let text = compare(dir.path(), &[]);
    assert!(
        text.ends_with(
            "\nno test's verdict or gated metric changed (1 test moved on EM, ANLS or the score)\n"
        ),
        "{text}"
    );
    std::fs::copy(dir.path().join("base.json"), dir.path().join("head.json")).unwrap();
    assert!(compare(dir.path(), &[]).ends_with("\nno test changed\n"));
}
