//! GitHub Actions annotations: one `::error` line per failed regression gate, failing
//! Must-Right rubric, load error, threshold and Easy-Wrong rubric, in that order (GitHub shows 10
//! a step). Each is placed where its cause is: a rule a case breaks at the case's own file (at its
//! field's gold line when known), with where a suite writes the rule as a second location; a
//! suite's own bound or gate at its line. The title is the test and the reason it failed; no
//! text repeats its own location.

use std::path::Path;

use crate::record::{AggregateRecord, RubricRecord, TestRecord, ThresholdRecord};

/// One annotation: where, for which test, what.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// The file, relative to the workspace when it lies inside it.
    pub file: String,
    /// 1-based line, 0 when unknown.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// The test and why it failed.
    pub title: String,
    /// What failed.
    pub message: String,
    /// Regression gates, Must-Right and load errors come first.
    pub rank: u8,
}

/// The reason a case test failed, as its headline says it (the JUnit message, the step
/// summary's line, the annotation's title): its failure message's first line, after the count
/// of attempts of a repeated case, which it then ends with.
pub fn case_headline(case: &TestRecord) -> String {
    // Each load error is placed where it is; the headline counts them.
    match case.errors.len() {
        0 => {}
        1 => return "the case could not be loaded (1 error)".to_owned(),
        n => return format!("the case could not be loaded ({n} errors)"),
    }
    let message = case.message.as_deref().unwrap_or("case failed");
    let mut lines = message.lines();
    match (&case.repeat, lines.next(), lines.next()) {
        (Some(r), Some(_), Some(reason)) => format!(
            "{reason}; {} of {} attempts passed (pass: {})",
            r.passed, r.attempts, r.pass
        ),
        (_, Some(first), _) => first.to_owned(),
        _ => "case failed".to_owned(),
    }
}

/// The annotations of failed tests and aggregates, most important first.
pub fn annotations(
    cases: &[TestRecord],
    aggregates: &[AggregateRecord],
    workspace: Option<&Path>,
) -> Vec<Annotation> {
    let mut out = Vec::new();
    // A known failure fails nothing: no error of the run is annotated for it, and it leaves the
    // annotations GitHub shows to what got worse.
    let failed = |c: &&TestRecord| c.status == crate::record::Status::Failed;
    for case in cases.iter().filter(failed) {
        case_annotations(case, workspace, &mut out);
    }
    for a in aggregates.iter().filter(|a| !a.passed) {
        aggregate_annotations(a, workspace, &mut out);
    }
    out.sort_by_key(|a| a.rank);
    out
}

/// Where a case's broken rule is reported: at the rule, when the case file writes it; else at
/// the case (its field's gold line when known), the rule's place said after the message.
fn at_the_case(
    case: &TestRecord,
    rule: (&str, u64, u64),
    field: Option<&str>,
    message: String,
) -> ((String, u64, u64), String) {
    let (file, line, column) = rule;
    if file == case.file {
        return ((file.to_owned(), line, column), message);
    }
    let root = field.map(|f| f.split(['.', '[']).next().unwrap_or(f));
    let gold_line = root
        .and_then(|r| case.fields.iter().find(|f| f.name == r))
        .and_then(|f| f.line)
        .unwrap_or(0);
    let written = if line > 0 {
        format!("{file}:{line}")
    } else {
        file.to_owned()
    };
    (
        (case.file.clone(), gold_line, 0),
        format!("{message} (the rule is written at {written})"),
    )
}

fn case_annotations(case: &TestRecord, workspace: Option<&Path>, out: &mut Vec<Annotation>) {
    let title = format!("{}: {}", case.id, case_headline(case));
    let mut add = |(file, line, column): (String, u64, u64), message: String, rank: u8| {
        out.push(Annotation {
            file: relative(&file, workspace),
            line,
            column,
            title: title.clone(),
            message,
            rank,
        });
    };
    for e in &case.errors {
        add(
            (e.file.clone(), e.line, e.column),
            without_place(&e.message, &e.file, e.line, e.column),
            0,
        );
    }
    for r in case.rubrics.iter().filter(|r| !r.held) {
        let rank = if r.kind == "must_right" { 0 } else { 2 };
        let (at, message) = at_the_case(
            case,
            (&r.file, r.line, r.column),
            r.field.as_deref(),
            rubric_message(r),
        );
        add(at, message, rank);
    }
    for t in case.thresholds.iter().filter(|t| !t.held) {
        let (at, message) = at_the_case(
            case,
            (&t.file, t.line, t.column),
            None,
            threshold_message(t),
        );
        add(at, message, 1);
    }
    if let Some(changes) = regressions(case) {
        add(
            (case.file.clone(), 0, 0),
            format!("regression against the baseline: {changes}"),
            1,
        );
    }
    let placed = case.errors.len()
        + case.rubrics.iter().filter(|r| !r.held).count()
        + case.thresholds.iter().filter(|t| !t.held).count()
        + usize::from(regressions(case).is_some());
    if placed == 0 {
        // Failed for a reason without a place of its own: the case file, with the headline.
        add((case.file.clone(), 0, 0), case_headline(case), 1);
    }
}

fn rubric_message(r: &RubricRecord) -> String {
    format!(
        "{} `{}` failed: {}",
        r.kind,
        one_line(&r.label),
        super::finding::verdict(r.checked, &r.finding)
    )
}

fn aggregate_annotations(a: &AggregateRecord, workspace: Option<&Path>, out: &mut Vec<Annotation>) {
    let headline = a
        .message
        .as_deref()
        .and_then(|m| m.lines().next())
        .unwrap_or("aggregate failed");
    if let Some(g) = &a.regression_gate
        && let (Some(reason), Some(head)) =
            (super::gate::gate_reason(g), super::gate::gate_headline(g))
    {
        let mut message = reason;
        if let Some(power) = super::gate::power_line(None, g) {
            message.push_str(&format!("\n{power}"));
        }
        out.push(Annotation {
            file: relative(&g.file, workspace),
            line: g.line,
            column: 0,
            title: format!("{}: {head}", a.id),
            message,
            rank: 0,
        });
    }
    for t in a.thresholds.iter().filter(|t| !t.held) {
        out.push(Annotation {
            file: relative(&t.file, workspace),
            line: t.line,
            column: t.column,
            title: format!("{}: {headline}", a.id),
            message: threshold_message(t),
            rank: 1,
        });
    }
}

/// A load error's text without the `file:line:column: ` it starts with: the annotation is
/// placed there already.
fn without_place(message: &str, file: &str, line: u64, column: u64) -> String {
    [
        format!("{file}:{line}:{column}: "),
        format!("{file}:{line}: "),
        format!("{file}: "),
    ]
    .iter()
    .find_map(|prefix| message.strip_prefix(prefix.as_str()))
    .unwrap_or(message)
    .to_owned()
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
