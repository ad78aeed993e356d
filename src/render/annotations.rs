//! GitHub Actions annotations: one `::error` line per failing Must-Right rubric, load
//! error, threshold and Easy-Wrong rubric, in that order (GitHub shows 10 a step), at the file
//! and line where it is written.

use std::path::Path;

use crate::record::{AggregateRecord, TestRecord, ThresholdRecord};

/// One annotation: where, for which test, what.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// The file, relative to the workspace when it lies inside it.
    pub file: String,
    /// 1-based line, 0 when unknown.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// The test.
    pub title: String,
    /// What failed.
    pub message: String,
    /// Must-Right and load errors come first.
    pub rank: u8,
}

/// The annotations of failed tests and aggregates, most important first.
pub fn annotations(
    cases: &[TestRecord],
    aggregates: &[AggregateRecord],
    workspace: Option<&Path>,
) -> Vec<Annotation> {
    let mut out = Vec::new();
    for case in cases.iter().filter(|c| c.passed == Some(false)) {
        let before = out.len();
        let mut add = |file: &str, line: u64, column: u64, message: String, rank: u8| {
            out.push(Annotation {
                file: relative(file, workspace),
                line,
                column,
                title: case.id.clone(),
                message,
                rank,
            });
        };
        for e in &case.errors {
            add(&e.file, e.line, e.column, e.message.clone(), 0);
        }
        for r in case.rubrics.iter().filter(|r| !r.held) {
            let rank = if r.kind == "must_right" { 0 } else { 2 };
            let message = format!(
                "{} `{}` failed: {}",
                r.kind,
                one_line(&r.label),
                super::finding::verdict(r.checked, &r.finding)
            );
            add(&r.file, r.line, r.column, message, rank);
        }
        for t in case.thresholds.iter().filter(|t| !t.held) {
            add(&t.file, t.line, t.column, threshold_message(t), 1);
        }
        if let Some(changes) = regressions(case) {
            add(
                &case.file,
                0,
                0,
                format!("regression against the baseline: {changes}"),
                1,
            );
        }
        if out.len() == before {
            // Failed for a reason without a place of its own: the case file, with the verdict.
            let message = case.verdict_line().unwrap_or("case failed").to_owned();
            out.push(Annotation {
                file: relative(&case.file, workspace),
                line: 0,
                column: 0,
                title: case.id.clone(),
                message,
                rank: 1,
            });
        }
    }
    for a in aggregates.iter().filter(|a| !a.passed) {
        for t in a.thresholds.iter().filter(|t| !t.held) {
            out.push(Annotation {
                file: relative(&t.file, workspace),
                line: t.line,
                column: t.column,
                title: a.id.clone(),
                message: threshold_message(t),
                rank: 1,
            });
        }
    }
    out.sort_by_key(|a| a.rank);
    out
}

fn threshold_message(t: &ThresholdRecord) -> String {
    match t.value {
        Some(v) => format!(
            "{} failed: {v:.4} {} {}",
            t.name,
            if t.name.starts_with("max_") { ">" } else { "<" },
            t.limit
        ),
        None => format!(
            "{} failed: the metric is absent ({})",
            t.name,
            t.absent_because
                .as_ref()
                .map_or_else(|| "not measured".to_owned(), super::finding::absent)
        ),
    }
}

/// `metric old -> new, …` of a case's regressions, when it has any.
fn regressions(case: &TestRecord) -> Option<String> {
    let list = &case.baseline.as_ref()?.regressions;
    let changes: Vec<String> = list
        .iter()
        .map(|c| match c.new {
            Some(new) => format!("{} {:.4} -> {new:.4}", c.metric, c.old),
            None => format!("{} {:.4} -> absent", c.metric, c.old),
        })
        .collect();
    (!changes.is_empty()).then(|| changes.join(", "))
}

/// A label on one line.
fn one_line(text: &str) -> String {
    text.replace(['\r', '\n'], " ")
}

/// A workflow command line: `::error file=…,line=…,col=…,title=…::message`.
pub fn workflow_command(a: &Annotation) -> String {
    let mut props = vec![format!("file={}", property(&a.file))];
    if a.line > 0 {
        props.push(format!("line={}", a.line));
    }
    if a.column > 0 {
        props.push(format!("col={}", a.column));
    }
    props.push(format!("title={}", property(&a.title)));
    format!("::error {}::{}", props.join(","), data(&a.message))
}

/// A message as GitHub reads it back: control characters shown (`\u{1b}`, a CR as `\r`), then
/// `%`, CR and LF escaped.
pub fn data(text: &str) -> String {
    super::visible(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: as a message, and `:` and `,` escaped too.
pub fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

fn relative(file: &str, workspace: Option<&Path>) -> String {
    let Some(workspace) = workspace else {
        return file.to_owned();
    };
    crate::base::fs::relative_to(Path::new(file), workspace)
        .map_or_else(|| file.to_owned(), |p| crate::base::fs::slashed(&p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_as_github_documents_it() {
        assert_eq!(data("50% off\nnext"), "50%25 off%0Anext");
        // A terminal's controls are shown: the log runs no escape sequence of a prediction.
        assert_eq!(data("a\u{1b}]0;x\u{7}\r\n"), "a\\u{1b}]0;x\\u{7}\\r%0A");
        assert_eq!(property("cases/a,b::guided"), "cases/a%2Cb%3A%3Aguided");
        let a = Annotation {
            file: "cases/a.yaml".into(),
            line: 12,
            column: 5,
            title: "invoices/a::guided".into(),
            message: "must_right `total` failed:\nit is 100%".into(),
            rank: 0,
        };
        assert_eq!(
            workflow_command(&a),
            "::error file=cases/a.yaml,line=12,col=5,title=invoices/a%3A%3Aguided::must_right `total` failed:%0Ait is 100%25"
        );
    }
}
