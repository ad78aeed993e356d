//! The slices on the HTML page as matrices: per tag, its values as rows and the pipelines as
//! columns, each cell the headline metric coloured by its step, the values whose pipelines differ
//! most first; every slice and metric in the full table folded beneath.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::markup::{escape, table_html};
use super::svg::{heat_floor, legend, step_of};
use crate::evaluate::aggregate::SliceRow;
use crate::model::metric::Metric;

/// One value of a tag: its cases and each pipeline's slice.
struct Value<'a> {
    value: &'a str,
    by_pipeline: BTreeMap<&'a str, &'a SliceRow>,
}

/// The slices: a matrix per tag of `metric` (when given), then the full table folded.
pub(super) fn slices(
    out: &mut String,
    slices: &[SliceRow],
    metric: Option<Metric>,
    ranked: &[&str],
) {
    if slices.is_empty() {
        return;
    }
    out.push_str("<section id=\"slices\">\n<h2>Slices</h2>\n");
    if let Some(metric) = metric {
        matrices(out, slices, metric, ranked);
    }
    let table = super::compare::slices_table(slices);
    let _ = writeln!(
        out,
        "<details class=\"more\"><summary>Every slice and metric ({} rows)</summary>",
        table.rows.len()
    );
    table_html(out, &table, "compare");
    out.push_str("</details>\n</section>\n");
}

/// A matrix per tag: values as rows (by the spread of `metric` between pipelines, widest first),
/// the pipelines as columns (`ranked` first, the others by name).
fn matrices(out: &mut String, slices: &[SliceRow], metric: Metric, ranked: &[&str]) {
    let mut tags: BTreeMap<&str, BTreeMap<&str, Value>> = BTreeMap::new();
    for s in slices {
        tags.entry(s.tag.as_str())
            .or_default()
            .entry(s.value.as_str())
            .or_insert_with(|| Value {
                value: s.value.as_str(),
                by_pipeline: BTreeMap::new(),
            })
            .by_pipeline
            .insert(s.pipeline.as_str(), s);
    }
    let mut pipelines: Vec<&str> = slices.iter().map(|s| s.pipeline.as_str()).collect();
    pipelines.sort_unstable();
    pipelines.dedup();
    pipelines.sort_by_key(|p| ranked.iter().position(|r| r == p).unwrap_or(ranked.len()));
    let lo = heat_floor(slices.iter().filter_map(|s| s.metrics.get(metric)));
    let name = super::html_charts::metric_name(metric);
    let _ = writeln!(
        out,
        "<p><b>{name}</b> of each pipeline over the cases of each tag's value (their count beside it), the values whose pipelines differ most first.</p>\n{}",
        legend(lo)
    );
    out.push_str("<div class=\"matrices\">\n");
    let columns = Columns {
        pipelines: &pipelines,
        metric,
        lo,
    };
    for (tag, values) in &tags {
        matrix(out, tag, values, &columns);
    }
    out.push_str("</div>\n");
}

/// What every matrix shares: the pipelines as columns, the metric of the cells and the floor of
/// their colours.
struct Columns<'a> {
    pipelines: &'a [&'a str],
    metric: Metric,
    lo: f64,
}

/// The spread of the metric between the pipelines of a value, when two or more measure it.
fn spread(v: &Value, metric: Metric) -> Option<f64> {
    let all: Vec<f64> = v
        .by_pipeline
        .values()
        .filter_map(|s| s.metrics.get(metric))
        .collect();
    let (min, max) = all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(*x), b.max(*x))
        });
    (all.len() > 1).then_some(max - min)
}

/// The matrix of one tag: its values as rows, widest spread first.
fn matrix(out: &mut String, tag: &str, values: &BTreeMap<&str, Value>, columns: &Columns) {
    let mut rows: Vec<&Value> = values.values().collect();
    rows.sort_by(|a, b| {
        spread(b, columns.metric)
            .unwrap_or(-1.0)
            .total_cmp(&spread(a, columns.metric).unwrap_or(-1.0))
            .then(a.value.cmp(b.value))
    });
    let _ = write!(
        out,
        "<div class=\"scroll\"><table class=\"matrix\" data-tag=\"{}\">\n<thead><tr><th class=\"text\">{}</th><th class=\"num\">cases</th>",
        escape(tag),
        escape(tag)
    );
    for p in columns.pipelines {
        // A folder's row (`cases/invoices/fr/`) may break after a `/`; a pipeline's name
        // never breaks.
        let _ = write!(
            out,
            "<th class=\"pipeline name\">{}</th>",
            escape(p).replace('/', "/<wbr>")
        );
    }
    out.push_str("<th class=\"num\">spread</th></tr></thead>\n<tbody>\n");
    for v in rows {
        matrix_row(out, v, columns);
    }
    out.push_str("</tbody>\n</table></div>\n");
}

/// A value's row: its cases (the most of any pipeline), each pipeline's cell, the spread.
fn matrix_row(out: &mut String, v: &Value, columns: &Columns) {
    let cases = v
        .by_pipeline
        .values()
        .map(|s| s.metrics.cases)
        .max()
        .unwrap_or(0);
    let _ = write!(
        out,
        "<tr data-value=\"{}\"><td class=\"text\">{}</td><td class=\"num cases\">{cases}</td>",
        escape(v.value),
        escape(v.value)
    );
    for p in columns.pipelines {
        let measured = v
            .by_pipeline
            .get(p)
            .and_then(|s| Some((s, s.metrics.get(columns.metric)?)));
        match measured {
            Some((s, x)) => {
                let _ = write!(
                    out,
                    "<td class=\"num cell c{}\" data-pipeline=\"{}\"{}>{x:.4}</td>",
                    step_of(x, columns.lo, 1.0),
                    escape(p),
                    if s.metrics.cases == cases {
                        String::new()
                    } else {
                        format!(" title=\"{} cases\"", s.metrics.cases)
                    }
                );
            }
            None => {
                let _ = write!(
                    out,
                    "<td class=\"num cell\" data-pipeline=\"{}\">-</td>",
                    escape(p)
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "<td class=\"num\">{}</td></tr>",
        super::num(spread(v, columns.metric))
    );
}
