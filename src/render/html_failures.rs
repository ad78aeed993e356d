//! The failing tests on the HTML page: one compact row each (the test, its pipeline, the first
//! field that is not exact, its numbers, why it failed), its message, coloured diffs, attempts
//! and document folded beneath it, within a budget of bytes so that a page of hundreds of
//! failing tests stays quick to open.

use std::fmt::Write;

use super::html_analysis::DocumentImage;
use super::markup::escape;
use super::num;
use crate::record::{AggregateRecord, TestRecord};

/// Up to this many failing tests are shown open; more are folded to their row.
const OPEN_UP_TO: usize = 10;

/// The most bytes of a failing test's message the page holds (the report holds it whole).
const MESSAGE_BYTES: usize = 3 * 1024;

/// The most bytes of a failing test's coloured diffs the page holds.
const DIFF_BYTES: usize = 3 * 1024;

/// The failing tests, one row each, their details folded beneath (open when there are few).
pub(super) fn failures(
    out: &mut String,
    cases: &[TestRecord],
    aggregates: &[AggregateRecord],
    documents: &[(String, DocumentImage)],
) {
    let failing: Vec<&TestRecord> = cases.iter().filter(|c| c.passed == Some(false)).collect();
    let failing_aggregates: Vec<&AggregateRecord> =
        aggregates.iter().filter(|a| !a.passed).collect();
    let count = failing.len() + failing_aggregates.len();
    let known = failing
        .iter()
        .filter(|c| c.status == crate::record::Status::KnownFailure)
        .count();
    let known = match known {
        0 => String::new(),
        1 => ", 1 of them a known failure".to_owned(),
        n => format!(", {n} of them known failures"),
    };
    let _ = writeln!(
        out,
        "<section id=\"failures\">\n<h2>Failing tests ({count}{known})</h2>"
    );
    if count == 0 {
        out.push_str("<p class=\"none\">None.</p>\n</section>\n");
        return;
    }
    super::html_analysis::image_definitions(out, documents);
    let open = if count <= OPEN_UP_TO { " open" } else { "" };
    // The numbers of the rows: a column no failing test has is not drawn.
    let shown = Shown {
        metrics: failing.iter().any(|c| c.metrics.is_some()),
        score: failing.iter().any(|c| !c.rubrics.is_empty()),
        open,
    };
    let columns = shown.columns();
    let pipelines = failing.iter().filter_map(|c| c.pipeline.as_deref()).chain(
        failing_aggregates
            .iter()
            .filter_map(|a| a.pipeline.as_deref()),
    );
    let template = grid_template(&columns, pipelines);
    let _ = writeln!(
        out,
        "<p>One row each; open a row for its message and diffs{}.</p>\n<div class=\"failing\" style=\"--columns:{template}\">\n<div class=\"row head\">{}</div>",
        if open.is_empty() {
            " (the report holds every message whole)"
        } else {
            ""
        },
        columns
            .iter()
            .map(|c| format!(
                "<span class=\"{}\">{c}</span>",
                if matches!(*c, "EM" | "ANLS" | "score") {
                    "num"
                } else {
                    "text"
                }
            ))
            .collect::<String>()
    );
    for case in failing {
        failing_case(out, case, &shown, documents);
    }
    for a in failing_aggregates {
        failing_aggregate(out, a, columns.len() - 4, open);
    }
    out.push_str("</div>\n</section>\n");
}

/// Which of a failing test's numbers the rows show, and whether they start open.
struct Shown {
    metrics: bool,
    score: bool,
    open: &'static str,
}

impl Shown {
    fn columns(&self) -> Vec<&'static str> {
        let mut columns = vec!["test", "pipeline", "field that failed"];
        if self.metrics {
            columns.extend(["EM", "ANLS"]);
        }
        if self.score {
            columns.push("score");
        }
        columns.push("why");
        columns
    }
}

/// The same columns on every row: fractions of the width for text, fixed widths for figures and
/// pipelines' names (which never break).
fn grid_template<'a>(columns: &[&str], pipelines: impl Iterator<Item = &'a str>) -> String {
    let longest_pipeline = pipelines
        .map(|p| p.chars().count())
        .max()
        .unwrap_or(1)
        .max("pipeline".len());
    columns
        .iter()
        .map(|c| match *c {
            "test" => "minmax(0,2.2fr)".to_owned(),
            "pipeline" => format!("{:.1}ch", longest_pipeline as f64 * 1.2 + 1.0),
            "field that failed" => "minmax(0,1.4fr)".to_owned(),
            "why" => "minmax(0,3fr)".to_owned(),
            _ => "4.6em".to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A failing case test's row, and its message, diffs, attempts and document beneath it.
fn failing_case(
    out: &mut String,
    case: &TestRecord,
    shown: &Shown,
    documents: &[(String, DocumentImage)],
) {
    let mut row = vec![
        format!("<span class=\"test\">{}</span>", escape(case.case_name())),
        format!(
            "<span class=\"name\">{}</span>",
            escape(case.pipeline.as_deref().unwrap_or("-"))
        ),
        format!(
            "<span class=\"field\">{}</span>",
            escape(failing_field(case).unwrap_or("-"))
        ),
    ];
    if shown.metrics {
        let m = case.metrics.as_ref();
        row.push(format!(
            "<span class=\"num\">{}</span>",
            num(m.and_then(|m| m.exact_match))
        ));
        row.push(format!(
            "<span class=\"num\">{}</span>",
            num(m.and_then(|m| m.anls))
        ));
    }
    if shown.score {
        let score = (!case.rubrics.is_empty()).then_some(case.score).flatten();
        row.push(format!("<span class=\"num\">{}</span>", num(score)));
    }
    // A known failure says so first: it fails as its baseline entry says, and fails nothing.
    let known = if case.status == crate::record::Status::KnownFailure {
        "known failure: "
    } else {
        ""
    };
    row.push(format!(
        "<span class=\"why\">{known}{}</span>",
        escape(&why(case.verdict_line().unwrap_or("failed")))
    ));
    let _ = write!(
        out,
        "<details class=\"failure\" id=\"{}\"{}>\n<summary class=\"row\">{}</summary>\n",
        escape(&anchor(&case.id)),
        shown.open,
        row.concat()
    );
    message(out, case.message.as_deref().unwrap_or("case failed"));
    field_diffs(out, &case.fields);
    attempts_table(out, case);
    if let Some((_, image)) = documents.iter().find(|(id, _)| *id == case.id) {
        super::html_analysis::document_view(out, case, image);
    }
    let _ = writeln!(out, "<p class=\"at\">{}</p>\n</details>", escape(&at(case)));
}

/// The field that failed a test: that of its first failing Must-Right rubric, else of its first
/// failing Easy-Wrong one, else its first critical field that is not exact, else its first field
/// that is not exact. (The first field not exact may be one no rule checks, while the case failed
/// on another.)
fn failing_field(case: &TestRecord) -> Option<&str> {
    let rubric = |kind: &str| {
        case.rubrics
            .iter()
            .find(|r| !r.held && r.kind == kind && r.field.is_some())
            .and_then(|r| r.field.as_deref())
    };
    let missed = |critical: bool| {
        case.fields
            .iter()
            .find(|f| f.em < 1.0 && (f.critical || !critical))
            .map(|f| f.name.as_str())
    };
    rubric("must_right")
        .or_else(|| rubric("easy_wrong"))
        .or_else(|| missed(true))
        .or_else(|| missed(false))
}

/// A failing aggregate test's row (`blanks` empty number cells), and its message beneath it.
fn failing_aggregate(out: &mut String, a: &AggregateRecord, blanks: usize, open: &str) {
    let message_text = a.message.as_deref().unwrap_or("aggregate failed");
    let _ = write!(
        out,
        "<details class=\"failure aggregate\" id=\"{}\"{open}>\n<summary class=\"row\"><span class=\"test\">{}</span><span class=\"name\">{}</span>{}<span class=\"why\">{}</span></summary>\n",
        escape(&anchor(&a.id)),
        escape(&a.id),
        escape(a.pipeline.as_deref().unwrap_or("-")),
        "<span class=\"field\">-</span>".to_owned() + &"<span class=\"num\"></span>".repeat(blanks),
        escape(&why(message_text.lines().next().unwrap_or("")))
    );
    message(out, message_text);
    let _ = writeln!(
        out,
        "<p class=\"at\">{}</p>\n</details>",
        escape(&a.place())
    );
}

/// The id of a test's row, for a link to it (`#fail-invoices/acme::guided`).
pub(super) fn anchor(test: &str) -> String {
    format!("fail-{}", test.replace(char::is_whitespace, "_"))
}

/// Why a test failed, as its row says it: the verdict without `case failed: ` (or an
/// aggregate's counts) and the score the row gives.
fn why(verdict: &str) -> String {
    // `aggregate failed over 4 case tests (2 passed): min_pass_rate failed: …`
    let aggregate = verdict
        .strip_prefix("aggregate failed ")
        .and_then(|rest| rest.split_once("): "))
        .map(|(_, why)| why);
    let verdict = verdict
        .strip_prefix("case failed: ")
        .or(aggregate)
        .unwrap_or(verdict);
    match verdict.rfind(" (score ") {
        Some(at) if verdict.ends_with(')') => verdict[..at].to_owned(),
        _ => verdict.to_owned(),
    }
}

/// Where the failure is written: `file:line`.
fn at(case: &TestRecord) -> String {
    case.place()
        .map(|(file, line)| {
            if line > 0 {
                format!("{file}:{line}")
            } else {
                file
            }
        })
        .unwrap_or_default()
}

/// The longest part of `text` within `budget` bytes that ends at a line's end, and the count of
/// lines left out.
fn within(text: &str, budget: usize) -> (&str, usize) {
    if text.len() <= budget {
        return (text, 0);
    }
    let mut end = budget;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').unwrap_or(end);
    (
        &text[..end],
        text[end..].trim_start_matches('\n').lines().count(),
    )
}

/// A failure message as plain text, within [`MESSAGE_BYTES`].
fn message(out: &mut String, text: &str) {
    let (shown, left_out) = within(text, MESSAGE_BYTES);
    let _ = write!(out, "<pre class=\"message\">{}", escape(shown));
    if left_out > 0 {
        let _ = write!(
            out,
            "\n<span class=\"none\">… {left_out} more lines: the report holds the whole message</span>"
        );
    }
    out.push_str("</pre>\n");
}

/// Every attempt of a repeated case: its verdict and each field's prediction and exact match.
fn attempts_table(out: &mut String, case: &TestRecord) {
    use super::table::{Column, Table};
    let Some(r) = &case.repeat else { return };
    let rows = r
        .each
        .iter()
        .map(|a| {
            let fields: Vec<String> = a
                .fields
                .iter()
                .map(|f| format!("{} {} ({})", f.name, f.prediction, f.em))
                .collect();
            let verdict = match (&a.error, a.passed) {
                (Some(why), _) => why.lines().next().unwrap_or("").to_owned(),
                (None, true) => "passed".to_owned(),
                (None, false) => "failed".to_owned(),
            };
            vec![
                format!(
                    "{}{}",
                    a.attempt,
                    if a.attempt == r.shown { " (shown)" } else { "" }
                ),
                verdict,
                fields.join("; "),
            ]
        })
        .collect();
    let table = Table::new(
        vec![
            Column::count("attempt", 0),
            Column::text("verdict"),
            Column::text("fields (prediction, EM)"),
        ],
        rows,
    );
    super::markup::table_html(out, &table, "attempts");
}

/// Each field's diff, coloured from the record's diff data: characters as `<del>` and `<ins>`,
/// the lines of a nested value's diff as removed and added lines; within [`DIFF_BYTES`], the
/// fields beyond counted.
fn field_diffs(out: &mut String, fields: &[crate::record::FieldRecord]) {
    use crate::record::DiffOp;
    let with_diff: Vec<_> = fields
        .iter()
        .filter_map(|f| f.diff.as_ref().map(|d| (f, d)))
        .collect();
    if with_diff.is_empty() {
        return;
    }
    let mut table = String::new();
    let mut left_out = 0;
    for (field, diff) in &with_diff {
        let mut cell = String::new();
        for span in &diff.spans {
            let text = escape(&span.text);
            match (diff.lines, span.op) {
                (false, DiffOp::Equal) => cell.push_str(&text),
                (false, DiffOp::Removed) => {
                    let _ = write!(cell, "<del>{text}</del>");
                }
                (false, DiffOp::Added) => {
                    let _ = write!(cell, "<ins>{text}</ins>");
                }
                (true, DiffOp::Equal) => {
                    let _ = writeln!(cell, "  {text}");
                }
                (true, DiffOp::Removed) => {
                    let _ = writeln!(cell, "<span class=\"removed\">- {text}</span>");
                }
                (true, DiffOp::Added) => {
                    let _ = writeln!(cell, "<span class=\"added\">+ {text}</span>");
                }
            }
        }
        let label = if diff.as_compared {
            "diff as compared"
        } else {
            "diff"
        };
        let row = format!(
            "<tr><th><code>{}</code> {label}</th><td><pre class=\"diff\">{cell}</pre></td></tr>\n",
            escape(&field.name)
        );
        if table.len() + row.len() > DIFF_BYTES {
            left_out += 1;
            continue;
        }
        table.push_str(&row);
    }
    if !table.is_empty() {
        let _ = write!(out, "<table class=\"diffs\">\n{table}</table>\n");
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "<p class=\"at\">the diffs of {left_out} more fields: in the message of the report</p>"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_says_why_in_a_few_words() {
        assert_eq!(
            why("case failed: min_anls failed: 0.6667 < 0.8 (score 1.0000)"),
            "min_anls failed: 0.6667 < 0.8"
        );
        assert_eq!(
            why(
                "aggregate failed over 4 case tests (2 passed): min_pass_rate failed: 0.5000 < 0.7"
            ),
            "min_pass_rate failed: 0.5000 < 0.7"
        );
        assert_eq!(
            why("error: cases/a.yaml:1:1: x"),
            "error: cases/a.yaml:1:1: x"
        );
    }

    #[test]
    fn a_failing_test_holds_at_most_its_budget_of_bytes() {
        use crate::record::{DiffOp, DiffSpan, FieldDiff, TestRecord};
        let long = "a line of the message, as long as lines of a message are\n".repeat(2000);
        let mut case = TestRecord::named("big::p", "big.yaml");
        case.pipeline = Some("p".into());
        case.passed = Some(false);
        case.message = Some(format!("case failed: min_anls failed: 0 < 1\n{long}"));
        let field = |name: &str| crate::record::FieldRecord {
            name: name.into(),
            line: None,
            gold: vec!["x".into()],
            prediction: "y".into(),
            predicted: true,
            em: 0.0,
            anls: 0.0,
            confidence: None,
            critical: false,
            note: None,
            metadata: Default::default(),
            closest: 0,
            compared: None,
            items: Vec::new(),
            diff: Some(FieldDiff {
                lines: true,
                as_compared: false,
                spans: vec![DiffSpan {
                    op: DiffOp::Removed,
                    text: "z".repeat(1500),
                }],
            }),
            grounding: None,
            miss: None,
        };
        case.fields = (0..20).map(|i| field(&format!("f{i}"))).collect();
        let mut out = String::new();
        failures(&mut out, &[case], &[], &[]);
        assert!(
            out.len() < MESSAGE_BYTES + DIFF_BYTES + 2048,
            "{} bytes",
            out.len()
        );
        assert!(out.contains("more lines: the report holds the whole message</span></pre>"));
        assert!(out.contains("the diffs of 19 more fields: in the message of the report"));
        assert!(out.contains("<span class=\"field\">f0</span>"), "{out}");
    }

    #[test]
    fn diffs_are_coloured_from_the_records_data_and_text_escaped() {
        use crate::record::{DiffOp, DiffSpan, FieldDiff, TestRecord};
        let span = |op, text: &str| DiffSpan {
            op,
            text: text.into(),
        };
        let mut field = TestRecord::named("a", "a.yaml");
        field.fields = vec![crate::record::FieldRecord {
            name: "n<o>".into(),
            line: None,
            gold: vec!["1234".into()],
            prediction: "1334".into(),
            predicted: true,
            em: 0.0,
            anls: 0.75,
            confidence: None,
            critical: false,
            note: None,
            metadata: Default::default(),
            closest: 0,
            compared: None,
            items: Vec::new(),
            diff: Some(FieldDiff {
                lines: false,
                as_compared: false,
                spans: vec![
                    span(DiffOp::Equal, "1"),
                    span(DiffOp::Removed, "2"),
                    span(DiffOp::Added, "<3>"),
                    span(DiffOp::Equal, "34"),
                ],
            }),
            grounding: None,
            miss: None,
        }];
        let mut out = String::new();
        field_diffs(&mut out, &field.fields);
        assert!(out.contains("<code>n&lt;o&gt;</code> diff</th><td><pre class=\"diff\">1<del>2</del><ins>&lt;3&gt;</ins>34</pre>"), "{out}");
    }
}
