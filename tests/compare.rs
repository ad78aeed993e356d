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
    // too, on other gold. Paired over 3 tests, EM drops by a third, not significantly.
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
metric       base    head  HEAD − BASE, 95 % interval                                  significant
EM         1.0000  0.7500  -0.3333 [-0.5000, +0.0000]                                  no
ANLS       1.0000  0.9152  -0.1131 [-0.2143, +0.0000]                                  no
pass rate  100.0%   50.0%  passed only in BASE 2, only in HEAD 0 (McNemar p = 0.5000)  no

regressed (2):
  c0000::llm: passed → failed; ANLS 1.0000 → 0.7857; its gold changed
    name: (passed) → \"Acme\" (gold \"Acme Co\")
  c0001::llm: passed → failed; ANLS 1.0000 → 0.8750
    total: (passed) → \"1.0\" (gold \"1.00\")

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
            "base",
            "head",
            "HEAD − BASE, 95 % interval",
            "significant"
        ]
    );
    assert_eq!(rows[1][..3], ["ANLS", "1.0000", "0.8792"]);
    assert_eq!(rows[1][4], "yes");
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
            "ANLS 1.0000 → 0.8750",
            "total: passed → \"1.0\" (gold \"1.00\")"
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
    // The 715 largest drops come first: the rows that fit (each with its field, old → new and
    // gold's value) are all of them.
    assert_eq!(rows[0][0], "c0000::llm");
    assert!(rows.len() < 715, "{} rows", rows.len());
    assert!(rows.iter().all(|r| r[2] == "ANLS 1.0000 → 0.5000"));
    let expected = format!(
        "_{} rows left out to stay within GitHub's 65,536 characters: [the full page](https://ci.example/runs/7/page.html)_\n",
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
            "_{} rows left out to stay within GitHub's 65,536 characters: the full comparison is `goldgate report --compare` on the report `head.json`_\n",
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

/// A test with rubrics is compared on its score, passing in both runs or not: an Easy-Wrong
/// rubric that fails in HEAD lowers the score, and the test regressed though it still passes.
#[test]
fn a_passing_test_with_rubrics_is_compared_on_its_score() {
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
        text.contains("regressed (1):\n  a: passed → passed; score 1.0000 → 0.8000\n"),
        "{text}"
    );
}
