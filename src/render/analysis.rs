//! The run's error analysis as the end of a run prints it: the misses by kind, and the
//! confidence from which each field's values may be accepted automatically.

use std::fmt::Write;

use super::table::{Column, Table};
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
    let (rows, left_out) = most_missed(rows);
    let mut out = misses(&rows).text();
    if left_out > 0 {
        let _ = writeln!(
            out,
            "… and {left_out} more fields and slices that missed fewer (the report and the HTML page have every one)"
        );
    }
    out
}

/// The misses of these rows by kind, for the terminal and Markdown writers.
pub(crate) fn misses(rows: &[&MissRow]) -> Table {
    let rows = rows
        .iter()
        .map(|r| {
            let c = r.counts;
            vec![
                scope_text(&r.scope),
                r.pipeline.clone(),
                c.missing.to_string(),
                c.invented.to_string(),
                c.format.to_string(),
                c.wrong.to_string(),
            ]
        })
        .collect();
    Table::new(
        vec![
            Column::text("misses"),
            Column::name("pipeline"),
            Column::count("missing", 7),
            Column::count("invented", 8),
            Column::count("format", 6),
            Column::count("wrong", 5),
        ],
        rows,
    )
}

/// The most fields and slices a pipeline's misses show at the end of a run: one case of 100,000
/// fields would otherwise print 100,000 rows.
const MISS_ROWS: usize = 20;

/// The rows shown, in their order: each pipeline's own row, and its [`MISS_ROWS`] fields and
/// [`MISS_ROWS`] slices that missed most; and how many were left out.
fn most_missed(rows: Vec<&MissRow>) -> (Vec<&MissRow>, usize) {
    let kind = |r: &MissRow| match r.scope {
        MissScope::Pipeline => 0,
        MissScope::Field(_) => 1,
        MissScope::Slice { .. } => 2,
    };
    let mut keep = vec![false; rows.len()];
    let mut by_misses: Vec<usize> = (0..rows.len()).collect();
    // Most misses first; the table's own order between equals.
    by_misses.sort_by_key(|&i| std::cmp::Reverse(rows[i].counts.total()));
    let mut shown: std::collections::HashMap<(&str, u8), usize> = std::collections::HashMap::new();
    for i in by_misses {
        let r = rows[i];
        let count = shown.entry((r.pipeline.as_str(), kind(r))).or_default();
        if kind(r) == 0 || *count < MISS_ROWS {
            keep[i] = true;
            *count += 1;
        }
    }
    let left_out = keep.iter().filter(|k| !**k).count();
    let rows = rows
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(r, _)| r)
        .collect();
    (rows, left_out)
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

/// Every field's values accepted at each `acceptance` threshold, pooled: a row per pipeline
/// and threshold.
pub(crate) fn pooled_table(all: &[crate::evaluate::analysis::PooledAcceptance]) -> Table {
    use crate::evaluate::analysis::{Accept, ShareOf};
    let rate = |r: Option<f64>| r.map_or_else(|| "-".to_owned(), |r| format!("{r:.6}"));
    let rows = all
        .iter()
        .flat_map(|r| {
            r.points.iter().map(|p| {
                let sign = match p.accept {
                    Accept::AtLeast => "≥",
                    Accept::Above => ">",
                };
                let of = match p.share_of {
                    ShareOf::Values => "values",
                    ShareOf::Labels => "labels",
                };
                vec![
                    r.pipeline.clone(),
                    format!("conf {sign} {}", p.threshold),
                    p.accepted.to_string(),
                    format!("{} {of}", p.of),
                    rate(p.approval_rate),
                    p.errors.to_string(),
                    rate(p.precision),
                    format!("{:.4}", p.error_upper),
                ]
            })
        })
        .collect();
    Table::new(
        vec![
            Column::name("pooled acceptance"),
            Column::count("accept when", 1),
            Column::count("accepted", 1),
            Column::count("of", 1),
            Column::count("approval", 1),
            Column::count("errors", 1),
            Column::count("precision", 1),
            Column::count("error bound 95%", 1),
        ],
        rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::miss::MissCounts;

    fn row(scope: MissScope, wrong: u32) -> MissRow {
        MissRow {
            scope,
            pipeline: "cases/".to_owned(),
            counts: MissCounts {
                missing: 0,
                invented: 1,
                format: 0,
                wrong,
            },
        }
    }

    #[test]
    fn a_count_wider_than_its_heading_widens_its_column() {
        // The `(all fields)` row sums every field of every case: at 100,000 cases its count
        // outgrows the heading. The column widens with it, as every table of the run does,
        // instead of that one row running past its column (as the table's own format did
        // before it was a `Table`).
        let rows = [
            row(MissScope::Pipeline, 123_456),
            row(MissScope::Field("total".to_owned()), 12),
        ];
        assert_eq!(
            miss_table(&rows),
            "misses        pipeline  missing  invented  format   wrong\n\
             (all fields)  cases/          0         1       0  123456\n\
             total         cases/          0         1       0      12\n"
        );
    }
}
