//! The run's error analysis as the end of a run prints it: the misses by kind, and the
//! confidence from which each field's values may be accepted automatically.

use std::fmt::Write;

use crate::evaluate::analysis::{MissRow, MissScope};

/// What a row of the misses counts over, as the table names it: `(all fields)`, a field's
/// name, a slice's `tag=value`.
pub(crate) fn scope_text(scope: &MissScope) -> String {
    match scope {
        MissScope::Pipeline => "(all fields)".to_owned(),
        MissScope::Field(name) => name.clone(),
        MissScope::Slice { tag, value } => format!("{tag}={value}"),
    }
}

/// The misses by kind, a row per pipeline that missed, then per field and per slice of it that
/// missed; empty when nothing missed.
pub fn miss_table(rows: &[MissRow]) -> String {
    // A pipeline that missed nothing has no row here (the report keeps it).
    let rows: Vec<&MissRow> = rows.iter().filter(|r| r.counts.total() > 0).collect();
    if rows.is_empty() {
        return String::new();
    }
    let scopes: Vec<String> = rows.iter().map(|r| scope_text(&r.scope)).collect();
    let width = super::column_width(scopes.iter().map(String::as_str), 6);
    let pwidth = super::column_width(rows.iter().map(|r| r.pipeline.as_str()), 8);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:<pwidth$}  {:>7}  {:>8}  {:>6}  {:>5}",
        "misses", "pipeline", "missing", "invented", "format", "wrong"
    );
    for (r, scope) in rows.iter().zip(&scopes) {
        let c = r.counts;
        let _ = writeln!(
            out,
            "{scope:<width$}  {:<pwidth$}  {:>7}  {:>8}  {:>6}  {:>5}",
            r.pipeline, c.missing, c.invented, c.format, c.wrong
        );
    }
    out
}

/// Per pipeline and field with confidences: the advised threshold (the smallest whose 95 %
/// Wilson bound on the error rate is at most the target), the share of values it accepts and
/// that bound; empty without confidences.
pub fn advice_table(all: &[crate::evaluate::analysis::FieldAcceptance]) -> String {
    // The fields no threshold bounds are counted on one line: with few values, that is most.
    let rows: Vec<_> = all.iter().filter(|r| r.advised.is_some()).collect();
    let unbounded = all.len() - rows.len();
    let tail = match unbounded {
        0 => String::new(),
        n => format!(
            "{n} {} with confidences: no threshold keeps the error within the target (the report and the HTML page have each curve)\n",
            if n == 1 { "more field" } else { "more fields" }
        ),
    };
    if rows.is_empty() {
        return tail;
    }
    let width = super::column_width(rows.iter().map(|r| r.field.as_str()), 16);
    let pwidth = super::column_width(rows.iter().map(|r| r.pipeline.as_str()), 8);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:<pwidth$}  {:>6}  {:>12}  {:>9}  {:>11}  {:>15}",
        "accept when conf",
        "pipeline",
        "values",
        "target error",
        "threshold",
        "automation",
        "error bound 95%"
    );
    for r in rows {
        let values = r.values();
        let Some(p) = r.advised else { continue };
        let _ = writeln!(
            out,
            "{:<width$}  {:<pwidth$}  {values:>6}  {:>12}  {:>9}  {:>11.4}  {:>15.4}",
            r.field, r.pipeline, r.target_error, p.threshold, p.share, p.error_upper
        );
    }
    out.push_str(&tail);
    out
}
