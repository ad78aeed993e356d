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
        &[
            "report",
            "--compare",
            "base.json",
            "head.json",
            "--markdown",
        ],
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
    let write = |total: &str, vendor: &str| {
        let mut files = Vec::new();
        for i in 0..SUITES {
            let suite = format!("cases/a-suite-of-invoices-with-a-rather-long-folder-name-{i:03}");
            files.push((
                format!("{suite}/suite.yaml"),
                "aggregate:\n  min_exact_match: 1\n".to_owned(),
            ));
            files.push((
                format!("{suite}/a.yaml"),
                format!("gold:\n  total: \"1.00\"\n  vendor: ACME\nprediction: {{ total: \"{total}\", vendor: \"{vendor}\" }}\nthresholds: {{min_exact_match: 1}}\n"),
            ));
        }
        write_owned(dir.path(), &files);
    };
    write("1.00", "ACME");
    run(dir.path(), "base.json");
    let wrong = "a value read from the wrong line of the invoice, long enough to be cut in its row";
    write(wrong, wrong);
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
                (
                    "cases/out/@mona.json",
                    &format!("{{\"total\": \"{total}\"}}"),
                ),
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
    let mention = regex::Regex::new(r"(^|[^\w`])@[A-Za-z0-9]").unwrap();
    for page in [comment(dir.path()), summary] {
        let (text, _) = rendered(&page);
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
                &format!(
                    "gold:\n  total: \"{gold}\"\nprediction: {{ total: \"1.00\" }}\nthresholds: {{min_exact_match: 1}}\n"
                ),
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

/// A suite keeping its history, run once: its history's one line.
fn history_line(dir: &Path) -> String {
    write_files(
        dir,
        &[
            ("cases/suite.yaml", "history: history.jsonl\n"),
            (
                "cases/a.yaml",
                "gold:\n  total: \"1.00\"\nprediction: { total: \"1.00\" }\nthresholds: {min_exact_match: 1}\n",
            ),
        ],
    );
    run(dir, "report.json");
    let text = std::fs::read_to_string(dir.join("cases/history.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    text.trim_end().to_owned()
}

/// A history of 1,500 runs: `goldgate history` keeps each pipeline's newest 1,000 (the older
/// lines read, checked and let go, so its memory is that of the runs kept); a line over 1 MiB
/// is no record, an error at its line.
#[test]
fn a_history_is_read_line_by_line_keeping_the_newest_runs() {
    let dir = tempfile::tempdir().unwrap();
    let line = history_line(dir.path());
    let run_id = serde_json::from_str::<serde_json::Value>(&line).unwrap()["run"]
        .as_str()
        .unwrap()
        .to_owned();
    let lines: Vec<String> = (0..1_500)
        .map(|i| line.replace(&run_id, &format!("run-{i:04}")))
        .collect();
    let history = dir.path().join("cases/history.jsonl");
    std::fs::write(&history, lines.join("\n") + "\n").unwrap();
    let out = goldgate(dir.path(), &["history", "cases", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let runs = json["trends"][0]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1_000);
    assert_eq!(runs[0]["run"], "run-0500");
    assert_eq!(runs[999]["run"], "run-1499");
    // One line of 2 MiB among them.
    let mut long = lines.clone();
    long[3] = format!("{}{}", line, " ".repeat(2 << 20));
    std::fs::write(&history, long.join("\n") + "\n").unwrap();
    let out = goldgate(dir.path(), &["history", "cases"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("history.jsonl:4:1: this line of the run history does not read as a run's record (a line of more than 1048576 bytes, longer than any record); goldgate appends every line itself: restore the line from version control, or delete it"),
        "{err}"
    );
}

/// Numbers out of their range in a hand-edited history: each is an error at its file, line and
/// key, saying the range and the fix, never a chart of ANLS 2.5 or a pass rate of `inf%`.
#[test]
fn a_number_out_of_range_in_a_history_is_an_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let line = history_line(dir.path());
    let history = dir.path().join("cases/history.jsonl");
    let mut record: serde_json::Value = serde_json::from_str(&line).unwrap();
    for (key, value, said) in [
        ("pass_rate", "1e308", "`pass_rate` is 1e308, outside 0 to 1"),
        ("anls", "-1e308", "`metrics.anls` is -1e308, outside 0 to 1"),
        ("anls", "2.5", "`metrics.anls` is 2.5, outside 0 to 1"),
        ("pass_rate", "-5", "`pass_rate` is -5, outside 0 to 1"),
    ] {
        let value: serde_json::Value = serde_json::from_str(value).unwrap();
        let mut edited = record.clone();
        match key {
            "pass_rate" => edited["pass_rate"] = value,
            _ => edited["metrics"][key] = value,
        }
        std::fs::write(&history, format!("{line}\n{edited}\n")).unwrap();
        let out = goldgate(dir.path(), &["history", "cases"]);
        assert!(!out.status.success(), "{}", stdout(&out));
        let err = stderr(&out);
        let text = edited.to_string();
        let column = match key {
            "pass_rate" => text.find("\"pass_rate\"").unwrap(),
            _ => {
                text.find("\"metrics\"").unwrap()
                    + text[text.find("\"metrics\"").unwrap()..]
                        .find(&format!("\"{key}\""))
                        .unwrap()
            }
        } + 1;
        assert!(
            err.contains(&format!("history.jsonl:2:{column}: this line of the run history does not read as a run's record ({said}, the range of a share); goldgate appends every line itself: restore the line from version control, or delete it")),
            "{err}"
        );
        assert!(!stdout(&out).contains("inf"), "{}", stdout(&out));
    }
    record["metrics"]["anls"] = serde_json::json!(0.5);
    std::fs::write(&history, format!("{record}\n")).unwrap();
    let out = goldgate(dir.path(), &["history", "cases"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Twenty failing grounded cases on one image: the HTML page holds the image once, and each
/// case's figure uses it by its id, drawn at the image's size with its boxes over it.
#[test]
fn the_page_embeds_a_document_once_however_many_tests_show_it() {
    let dir = tempfile::tempdir().unwrap();
    let png = std::fs::read(support::fixtures("grounding").join("invoice.png")).unwrap();
    std::fs::write(dir.path().join("invoice.png"), &png).unwrap();
    let mut files = vec![(
        "cases/suite.yaml".to_owned(),
        "bbox_units: pixels\npipelines:\n  ocr: out/{case}.json\n".to_owned(),
    )];
    for i in 0..20 {
        files.push((
            format!("cases/c{i:02}.yaml"),
            "document: ../invoice.png\npage_size: { width: 800, height: 500 }\ngold:\n  total: { value: \"12.50\", page: 1, bbox: [600, 400, 720, 450] }\nthresholds: {min_exact_match: 1, min_grounded: 1}\n".to_owned(),
        ));
        files.push((
            format!("cases/out/c{i:02}.json"),
            r#"{"fields": {"total": {"value": "12.50", "page": 1, "bbox": [600, 280, 640, 300]}}}"#
                .to_owned(),
        ));
    }
    write_owned(dir.path(), &files);
    let out = goldgate(dir.path(), &["test", "cases", "--html", "page.html"]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let html = std::fs::read_to_string(dir.path().join("page.html")).unwrap();
    let encoded = png.len().div_ceil(3) * 4;
    assert_eq!(html.matches("data:image/png;base64,").count(), 1);
    assert!(
        html.contains("<svg class=\"images\" width=\"0\" height=\"0\" aria-hidden=\"true\"><defs>\n<image id=\"document-0\" width=\"800\" height=\"500\" href=\"data:image/png;base64,iVBORw0KGgo"),
        "{}",
        &html[..html.len().min(4000)]
    );
    assert!(html.len() < encoded + 200_000, "{} bytes", html.len());
    for i in 0..20 {
        let figure = html
            .split(&format!(
                "<figure class=\"page\" data-test=\"c{i:02}::ocr\">"
            ))
            .nth(1)
            .and_then(|rest| rest.split("</figure>").next())
            .unwrap_or_else(|| panic!("no figure of c{i:02}"));
        assert!(
            figure.contains(&format!("<svg class=\"page-image\" width=\"800\" height=\"500\" viewBox=\"0 0 800 500\" role=\"img\" aria-label=\"the document of c{i:02}::ocr\"><use href=\"#document-0\"/></svg>")),
            "{figure}"
        );
        assert!(figure.contains("<rect class=\"gold\""), "{figure}");
    }
}
