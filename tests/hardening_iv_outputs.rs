//! What goldgate writes and reads back stays bounded and inert whatever the runs hold (issue 51):
//! the pull-request comment counted whole with its regressions kept, names in Markdown that
//! mention no one and open no block, the HTML page embedding each document once, and the run
//! history and kept outputs read within bounds, their numbers checked.

use std::path::Path;

mod support;
use support::{goldgate, goldgate_with, stderr, stdout, write_files, write_owned};

/// GitHub's limit on a comment's body.
const LIMIT: usize = 65_536;

/// Runs the cases of `dir` with the report at `name`; the run may fail its tests.
fn run(dir: &Path, name: &str) {
    let out = goldgate(dir, &["test", "cases", "--report", name]);
    assert!(
        out.status.code().is_some_and(|c| c <= 101),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// `report --compare base.json head.json --markdown` in `dir`.
fn comment(dir: &Path) -> String {
    let out = goldgate(
        dir,
        &["report", "--compare", "base.json", "head.json", "--markdown"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

/// The text a Markdown reader shows outside code spans, and the blocks it opens, as GitHub's
/// renderer (CommonMark + GFM tables) reads the comment.
fn rendered(markdown: &str) -> (String, Vec<String>) {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let (mut text, mut blocks) = (String::new(), Vec::new());
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Text(t) => {
                text.push_str(&t);
                text.push('\n');
            }
            Event::Start(Tag::Heading { level, .. }) => blocks.push(format!("{level:?}")),
            Event::Start(Tag::Item) => blocks.push("item".to_owned()),
            _ => {}
        }
    }
    (text, blocks)
}

/// 120 suites of one case each, every suite's aggregate failing in HEAD and its case regressed:
/// the groups' tables alone outgrow GitHub's limit. The comment counts every part, keeps its
/// verdict and every regressed test, and leaves out tables, saying how many.
#[test]
fn a_comment_over_many_failing_suites_keeps_every_regression_within_the_limit() {
    const SUITES: usize = 120;
    let dir = tempfile::tempdir().unwrap();
    let write = |total: &str| {
        let mut files = Vec::new();
        for i in 0..SUITES {
            let suite = format!("cases/a-suite-of-invoices-with-a-rather-long-folder-name-{i:03}");
            files.push((
                format!("{suite}/suite.yaml"),
                "aggregate:\n  min_exact_match: 1\n".to_owned(),
            ));
            files.push((
                format!("{suite}/a.yaml"),
                format!("gold:\n  total: \"1.00\"\nprediction: {{ total: \"{total}\" }}\nthresholds: {{min_exact_match: 1}}\n"),
            ));
        }
        write_owned(dir.path(), &files);
    };
    write("1.00");
    run(dir.path(), "base.json");
    write("a total read from the wrong line of the invoice, long enough to be cut in its row");
    run(dir.path(), "head.json");
    let comment = comment(dir.path());
    let length = comment.chars().count();
    assert!(length <= LIMIT, "{length} characters");
    assert!(
        comment.starts_with(&format!(
            "❌ **goldgate**: {SUITES} of {SUITES} aggregate gates failed: "
        )),
        "{}",
        &comment[..300]
    );
    assert!(
        comment.contains(&format!("\n#### regressed ({SUITES})\n")),
        "{length}"
    );
    let regressed = comment
        .lines()
        .filter(|l| l.starts_with("| `a-suite-of-invoices") && l.contains("passed → failed"))
        .count();
    assert_eq!(regressed, SUITES, "every regressed test stays");
    let tables = comment.matches("\n#### cases/").count();
    assert!(tables < SUITES, "{tables} tables");
    let last = comment.trim_end().lines().last().unwrap();
    assert_eq!(
        last,
        format!(
            "_{} pipeline tables left out to stay within GitHub's 65,536 characters: the full comparison is `goldgate report --compare` on the report `head.json`_",
            SUITES - tables
        )
    );
}

/// A pipeline named `@octocat` and a case `@mona.yaml`: in the comment and in the step summary,
/// every name is shown, and none is a mention GitHub would notify.
#[test]
fn names_in_the_comment_and_the_step_summary_mention_no_one() {
    let dir = tempfile::tempdir().unwrap();
    let write = |total: &str| {
        write_files(
            dir.path(),
            &[
                (
                    "cases/suite.yaml",
                    "pipelines:\n  \"@octocat\": out/{case}.json\n",
                ),
                (
                    "cases/@mona.yaml",
                    "gold:\n  total: \"1.00\"\nthresholds: {min_exact_match: 1}\n",
                ),
                ("cases/out/@mona.json", &format!("{{\"total\": \"{total}\"}}")),
            ],
        );
    };
    write("1.00");
    run(dir.path(), "base.json");
    write("9");
    let summary = dir.path().join("summary.md");
    let out = goldgate_with(
        dir.path(),
        &["test", "cases", "--report", "head.json"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let summary = std::fs::read_to_string(&summary).unwrap();
    for page in [comment(dir.path()), summary] {
        let (text, _) = rendered(&page);
        let mention = regex::Regex::new(r"(^|[^\w`])@[A-Za-z0-9]").unwrap();
        assert!(
            !mention.is_match(&text),
            "a mention in:\n{text}\nof:\n{page}"
        );
        // The names are still there, to read.
        assert!(text.contains("@\u{2060}octocat"), "{page}");
        assert!(page.contains("`@mona::@octocat`"), "{page}");
    }
}

/// A test id holding newlines (a hand-edited report): the comment's gold line, table rows and
/// headings stay one line each, and open no heading or list of their own.
#[test]
fn a_newline_in_a_test_id_opens_no_block_in_the_comment() {
    let dir = tempfile::tempdir().unwrap();
    let write = |gold: &str| {
        write_files(
            dir.path(),
            &[(
                "cases/c1.yaml",
                &format!("gold:\n  total: \"{gold}\"\nprediction: {{ total: \"1.00\" }}\nthresholds: {{min_exact_match: 1}}\n"),
            )],
        );
    };
    write("1.00");
    run(dir.path(), "base.json");
    write("2.00");
    run(dir.path(), "head.json");
    for report in ["base.json", "head.json"] {
        let path = dir.path().join(report);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"c1\""), "{text}");
        std::fs::write(
            &path,
            text.replace("\"c1\"", "\"c1\\n# Heading\\n- item\\r> quote\""),
        )
        .unwrap();
    }
    let comment = comment(dir.path());
    let (_, blocks) = rendered(&comment);
    // The group's and the regressions' headings, level 4, and nothing else.
    assert_eq!(blocks, ["H4", "H4"], "{comment}");
    let gold = comment.lines().nth(2).unwrap();
    assert!(
        gold.starts_with("BASE `base.json` → HEAD `head.json` · different gold: ")
            && gold.contains("(c1 # Heading - item > quote)"),
        "{comment}"
    );
}
