//! `goldgate lint --explain CASE`: a case as its suites' `defaults` and its own keys make it,
//! each threshold and rubric with the file, line and column it comes from.

use std::fmt::Write as _;
use std::path::Path;

use crate::model::case::{Case, Comparison, Correctness, FieldRule, PredictionSource, WrittenIn};
use crate::model::prediction::PredictionFormat;

/// The merged case `name`, from the cases of its pipelines (one without pipelines): the keys
/// they share from the first, then each pipeline's prediction and the format it is read through.
pub fn explain(name: &str, cases: &[Case]) -> String {
    let Some(case) = cases.first() else {
        return String::new();
    };
    let mut out = String::new();
    let _ = writeln!(out, "case {name} ({})", case.file.display());
    let critical = if case.critical.is_empty() {
        "none".to_owned()
    } else {
        case.critical.join(", ")
    };
    let _ = writeln!(out, "critical: {critical}");
    fields(&mut out, case);
    thresholds(&mut out, case);
    rubrics(&mut out, case);
    for case in cases {
        let indent = match &case.pipeline {
            Some(p) => {
                let _ = writeln!(out, "pipeline {p}:");
                "  "
            }
            None => "",
        };
        let _ = writeln!(out, "{indent}prediction: {}", prediction(&case.prediction));
        let format = match &case.prediction {
            PredictionSource::File { format, .. } | PredictionSource::Run { format, .. } => {
                format.as_deref()
            }
            PredictionSource::Inline(..) | PredictionSource::Text(_) => None,
        };
        let format = format.map_or_else(|| "none (goldgate's envelope)".to_owned(), format_of);
        let _ = writeln!(out, "{indent}prediction_format: {format}");
    }
    out
}

/// The gold fields whose comparison is not the default, with their rules.
fn fields(out: &mut String, case: &Case) {
    let ruled: Vec<String> = case
        .gold
        .iter()
        .flatten()
        .filter(|g| g.rule != FieldRule::default() || !g.path_rules.is_empty())
        .map(|g| {
            let mut line = format!("  {}: {}", g.name, rule(g.rule));
            for (path, compare) in &g.path_rules {
                let _ = write!(line, "; {path}: {}", comparison(*compare));
            }
            line
        })
        .collect();
    let count = case.gold.as_ref().map_or(0, Vec::len);
    if ruled.is_empty() {
        let _ = writeln!(out, "fields: {count}, each compared as text, exact");
        return;
    }
    let _ = writeln!(
        out,
        "fields: {count}, compared as text, exact, but for these rules:"
    );
    for line in ruled {
        let _ = writeln!(out, "{line}");
    }
}

fn rule(rule: FieldRule) -> String {
    let correct = match rule.correct {
        Correctness::Exact => "exact".to_owned(),
        Correctness::Anls(min) => format!("anls at least {min}"),
    };
    format!("{}, correct when {correct}", comparison(rule.compare))
}

fn comparison(compare: Comparison) -> String {
    match compare {
        Comparison::Text => "text".to_owned(),
        Comparison::Number { tolerance } => format!("number (tolerance {tolerance})"),
        Comparison::Identifier => "identifier".to_owned(),
        Comparison::Date { day_first: true } => "date (day first)".to_owned(),
        Comparison::Date { day_first: false } => "date".to_owned(),
    }
}

/// Each bound with where it is written, in a column.
fn thresholds(out: &mut String, case: &Case) {
    let rows = case.thresholds.iter().map(|t| {
        let at = format!("{}:{}:{}", t.file.display(), t.line, t.column);
        (format!("{}: {}", t.name, t.limit), at)
    });
    located(out, "thresholds", rows.collect());
}

/// Each rubric with where it is written, and where its set is included.
fn rubrics(out: &mut String, case: &Case) {
    let rows = case.rubrics.iter().map(|r| {
        let mut at = format!("{}:{}:{}", r.file.display(), r.line, r.column);
        if let Some((file, line)) = &r.included_at {
            let _ = write!(at, " (included at {}:{line})", file.display());
        }
        (format!("{}: {}", r.kind.key(), r.label), at)
    });
    located(out, "rubrics", rows.collect());
}

/// `title:` and its rows (what, where it is written) in two columns, or `title: none`.
fn located(out: &mut String, title: &str, rows: Vec<(String, String)>) {
    if rows.is_empty() {
        let _ = writeln!(out, "{title}: none");
        return;
    }
    let _ = writeln!(out, "{title}:");
    let width = super::column_width(rows.iter().map(|(what, _)| what.as_str()), 0);
    for (what, at) in &rows {
        let _ = writeln!(out, "  {what:width$}  {at}");
    }
}

fn prediction(source: &PredictionSource) -> String {
    match source {
        PredictionSource::File {
            path,
            at,
            written_in,
            ..
        } => match written_in {
            WrittenIn::Case => format!("{} (`prediction:` at line {})", path.display(), at.line),
            WrittenIn::Pipeline(suite) | WrittenIn::Defaults(suite) => {
                let by = match written_in {
                    WrittenIn::Pipeline(_) => "the pipeline's path",
                    _ => "the suite's `defaults`",
                };
                let (line, column) = (at.line, at.column);
                format!(
                    "{} ({by} at {}:{line}:{column})",
                    path.display(),
                    suite.display()
                )
            }
        },
        PredictionSource::Inline(..) => "written in the case".to_owned(),
        PredictionSource::Text(_) => "the case's `prediction_text`".to_owned(),
        PredictionSource::Run {
            command, at, dir, ..
        } => format!(
            "the output of `{}` in {} (`run` at {}:{}:{})",
            command.join(" "),
            shown(dir),
            at.0.display(),
            at.1.line,
            at.1.column
        ),
    }
}

fn shown(dir: &Path) -> String {
    if dir.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        dir.display().to_string()
    }
}

/// The paths a format reads, as a user writes them (dotted), with where it is written.
fn format_of(format: &PredictionFormat) -> String {
    let mut parts = vec![format!("fields {}", format.fields.join("."))];
    if let Some((path, seconds)) = &format.latency {
        let key = if *seconds { "latency_s" } else { "latency_ms" };
        parts.push(format!("{key} {}", path.join(".")));
    }
    for (key, path) in [
        ("usage", &format.usage),
        ("model", &format.model),
        ("cost_usd", &format.cost_usd),
    ] {
        if let Some(path) = path {
            parts.push(format!("{key} {}", path.join(".")));
        }
    }
    for (path, value) in &format.ok {
        parts.push(format!("ok when {} is {value}", path.join(".")));
    }
    format!(
        "{} (at {}:{}:{})",
        parts.join(", "),
        format.at.0.display(),
        format.at.1.line,
        format.at.1.column
    )
}
