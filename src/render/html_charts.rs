//! The charts of the HTML page, drawn in inline SVG with [`super::svg`]'s vocabulary: each
//! pipeline's headline metric with its interval, the forest plot of the compared pairs, the
//! reliability diagrams and the latency distribution.

use std::fmt::Write;

use super::markup::escape;
use super::num;
use super::svg::{Scale, axis, interval};
use crate::evaluate::aggregate::{Aggregated, percentile};
use crate::evaluate::headline::Headline;
use crate::evaluate::paired::{Interval, Paired};
use crate::model::metric::Metric;

/// The width of a chart of rows, its column of labels and its column of figures.
const WIDTH: f64 = 760.0;
const LABELS: f64 = 250.0;
const FIGURES: f64 = 200.0;
/// The height of a row of a chart.
const ROW: f64 = 26.0;

/// A chart of rows: each a label, a point with its interval on one scale, and its figures.
struct Rows<'a> {
    /// The SVG's class and label.
    class: &'a str,
    label: String,
    /// Extra attributes of the SVG (`data-metric="anls"`).
    data: String,
    /// Zero marked (differences) or not (means).
    signed: bool,
    /// Each row: its group's class and attributes, its label, its interval and its title.
    rows: Vec<Row>,
}

struct Row {
    class: &'static str,
    data: String,
    label: String,
    interval: Interval,
}

/// A number of a chart's figures: `+0.0125` for a difference, `0.9724` for a mean.
fn figure(value: f64, signed: bool) -> String {
    if signed {
        format!(
            "{}{:.4}",
            if value < 0.0 { "\u{2212}" } else { "+" },
            value.abs()
        )
    } else {
        format!("{value:.4}")
    }
}

/// A label cut to what its column holds, whole in its title.
fn fitted(label: &str) -> String {
    const MOST: usize = 38;
    if label.chars().count() <= MOST {
        escape(label)
    } else {
        let cut: String = label.chars().take(MOST - 1).collect();
        format!("{}\u{2026}", escape(&cut))
    }
}

fn rows_chart(out: &mut String, chart: &Rows) {
    let scale = Scale::over(
        chart
            .rows
            .iter()
            .flat_map(|r| [r.interval.low, r.interval.high, r.interval.difference]),
        chart.signed,
        LABELS + 12.0,
        WIDTH - FIGURES - 12.0,
    );
    let top = 6.0;
    let bottom = top + ROW * chart.rows.len() as f64;
    let height = bottom + 22.0;
    let _ = writeln!(
        out,
        "<svg class=\"chart {}\" {} role=\"img\" aria-label=\"{}\" width=\"{WIDTH}\" height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\">",
        chart.class,
        chart.data,
        escape(&chart.label)
    );
    axis(out, &scale, top, bottom, chart.signed);
    for (i, r) in chart.rows.iter().enumerate() {
        let y = top + ROW * (i as f64 + 0.5);
        let i = &r.interval;
        let _ = write!(
            out,
            "<g class=\"{}\" {} data-low=\"{}\" data-high=\"{}\"><title>{}: {} [{}, {}] over {} cases</title><text class=\"label\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            r.class,
            r.data,
            i.low,
            i.high,
            escape(&r.label),
            figure(i.difference, chart.signed),
            figure(i.low, chart.signed),
            figure(i.high, chart.signed),
            i.cases,
            LABELS,
            y + 4.0,
            fitted(&r.label)
        );
        interval(out, &scale, y, i.low, i.difference, i.high);
        let _ = writeln!(
            out,
            "<text class=\"figures\" x=\"{}\" y=\"{:.1}\">{} [{}, {}]</text></g>",
            WIDTH - FIGURES,
            y + 4.0,
            figure(i.difference, chart.signed),
            figure(i.low, chart.signed),
            figure(i.high, chart.signed)
        );
    }
    out.push_str("</svg>\n");
}

/// A metric as a chart names it.
pub(super) fn metric_name(metric: Metric) -> &'static str {
    match metric {
        Metric::Anls => "ANLS",
        Metric::ExactMatch => "EM",
        Metric::ExactCritical => "critical EM",
        Metric::AnlsCritical => "critical ANLS",
        Metric::MeanScore => "mean score",
        _ => metric.name(),
    }
}

/// Each pipeline's headline metric as a point with its 95 % bootstrap interval over its cases,
/// best first.
pub(super) fn headline_chart(out: &mut String, headlines: &[Headline]) {
    let Some(first) = headlines.first() else {
        return;
    };
    let name = metric_name(first.metric);
    let chart = Rows {
        class: "headline",
        label: format!("{name} of each pipeline with its 95 % interval"),
        data: format!("data-metric=\"{}\"", first.metric.name()),
        signed: false,
        rows: headlines
            .iter()
            .map(|h| Row {
                class: "pipeline",
                data: format!(
                    "data-pipeline=\"{}\" data-mean=\"{}\"",
                    escape(&h.pipeline),
                    h.mean.difference
                ),
                label: h.pipeline.clone(),
                interval: h.mean,
            })
            .collect(),
    };
    let _ = writeln!(out, "<figure class=\"headline\">");
    rows_chart(out, &chart);
    let _ = writeln!(
        out,
        "<figcaption><b>{name}</b> of each pipeline, best first: the mean over its cases, and the 95 % interval of that mean (10,000 seeded bootstrap resamples of the cases).</figcaption>\n</figure>"
    );
}

/// The compared pairs as forest plots, one per metric with intervals (the headline metric
/// first): each pair's difference of means as a point, its 95 % paired interval as a line, zero
/// marked; a pair whose interval excludes zero filled and set in bold.
pub(super) fn forest_plots(out: &mut String, comparisons: &[Paired], headline: Option<Metric>) {
    type Get = fn(&Paired) -> Option<Interval>;
    let mut metrics: Vec<(Metric, &str, Get)> = vec![
        (Metric::MeanScore, "score", |c| c.score),
        (Metric::ExactMatch, "exact_match", |c| c.exact_match),
        (Metric::Anls, "anls", |c| c.anls),
    ];
    // The headline metric first.
    metrics.sort_by_key(|(m, _, _)| Some(*m) != headline);
    for (metric, key, get) in metrics {
        let rows: Vec<Row> = comparisons
            .iter()
            .filter_map(|c| {
                let i = get(c)?;
                let significant = i.low > 0.0 || i.high < 0.0;
                Some(Row {
                    class: if significant {
                        "pair significant"
                    } else {
                        "pair"
                    },
                    data: format!(
                        "data-pipeline=\"{}\" data-reference=\"{}\" data-difference=\"{}\"",
                        escape(&c.pipeline),
                        escape(&c.reference),
                        i.difference
                    ),
                    label: format!("{} \u{2212} {}", c.pipeline, c.reference),
                    interval: i,
                })
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let significant = rows
            .iter()
            .filter(|r| r.class.ends_with("significant"))
            .count();
        let name = metric_name(metric);
        let chart = Rows {
            class: "forest",
            label: format!("forest plot of the differences of {name}"),
            data: format!("data-metric=\"{key}\""),
            signed: true,
            rows,
        };
        out.push_str("<figure class=\"forest\">\n");
        rows_chart(out, &chart);
        let _ = writeln!(
            out,
            "<figcaption><b>{name}</b>: each pipeline minus the one it is compared with, over the cases both ran; the line is the 95 % paired bootstrap interval. {}</figcaption>\n</figure>",
            match significant {
                0 => "No interval excludes zero: no difference here is beyond what the cases' spread allows.".to_owned(),
                1 => "<span class=\"key-significant\">Filled</span>: the one pair whose interval excludes zero.".to_owned(),
                n => format!("<span class=\"key-significant\">Filled</span>: the {n} pairs whose interval excludes zero."),
            }
        );
    }
}

pub(super) fn calibration(out: &mut String, pipelines: &[(String, Aggregated)]) {
    out.push_str("<section id=\"calibration\">\n<h2>Calibration</h2>\n");
    if pipelines.iter().all(|(_, a)| a.bins.is_empty()) {
        // Said once, not in a figure per pipeline.
        out.push_str("<p class=\"none\">No prediction gives a confidence: nothing to calibrate.</p>\n</section>\n");
        return;
    }
    out.push_str("<div class=\"diagrams\">\n");
    for (name, a) in pipelines {
        reliability_diagram(out, name, a);
    }
    out.push_str("</div>\n</section>\n");
}

/// The plot's side and margin, in pixels.
const SIZE: f64 = 220.0;
const PAD: f64 = 34.0;

/// A reliability diagram's frame: the square, its ticks, the diagonal, the accuracy label.
fn frame(out: &mut String) {
    let (x, y) = (
        |v: f64| PAD + v * SIZE,
        |v: f64| PAD / 2.0 + (1.0 - v) * SIZE,
    );
    // Frame, ticks and the diagonal.
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{SIZE}\" height=\"{SIZE}\" fill=\"#fafbfc\" stroke=\"#c9d0d8\"/>",
        x(0.0),
        y(1.0)
    );
    for t in [0.0, 0.5, 1.0] {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{t}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{t}</text>",
            x(t),
            y(0.0) + 14.0,
            x(0.0) - 4.0,
            y(t) + 4.0
        );
    }
    let _ = writeln!(
        out,
        "<line class=\"diagonal\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#8a96a3\" stroke-dasharray=\"4 3\"/>",
        x(0.0),
        y(0.0),
        x(1.0),
        y(1.0)
    );
    let _ = writeln!(
        out,
        "<text x=\"10\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 10 {})\">accuracy</text>",
        y(0.5),
        y(0.5)
    );
}

/// A reliability diagram: each non-empty bin's accuracy (bar) and mean confidence (dot)
/// against the diagonal of perfect calibration, with its count.
fn reliability_diagram(out: &mut String, name: &str, a: &Aggregated) {
    if a.bins.is_empty() {
        let _ = writeln!(
            out,
            "<figure class=\"reliability empty\" data-pipeline=\"{}\"><figcaption><b>{}</b> · no field carries a confidence: nothing to calibrate</figcaption></figure>",
            escape(name),
            escape(name)
        );
        return;
    }
    let (x, y) = (
        |v: f64| PAD + v * SIZE,
        |v: f64| PAD / 2.0 + (1.0 - v) * SIZE,
    );
    let n: usize = a.bins.iter().map(|b| b.count).sum();
    let _ = writeln!(
        out,
        "<figure class=\"reliability\" data-pipeline=\"{}\">\n<svg role=\"img\" aria-label=\"reliability diagram of {}\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">",
        escape(name),
        escape(name),
        w = SIZE + PAD + 12.0,
        h = SIZE + PAD + 26.0,
    );
    frame(out);
    for b in &a.bins {
        let (left, right) = (x(b.lower), x(b.upper));
        // The bin's whole column, faint, so that a bin with no correct answer still shows.
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{SIZE}\" fill=\"#2f5fa7\" fill-opacity=\"0.06\"/>",
            left + 1.0,
            y(1.0),
            (right - left - 2.0).max(1.0)
        );
        let _ = writeln!(
            out,
            "<rect class=\"bin\" data-count=\"{}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#2f5fa7\" fill-opacity=\"0.28\" stroke=\"#2f5fa7\"><title>({:.2}, {:.2}]: {} confidences, mean {:.3}, accuracy {:.3}</title></rect>",
            b.count,
            left + 1.0,
            y(b.accuracy),
            (right - left - 2.0).max(1.0),
            y(0.0) - y(b.accuracy),
            b.lower,
            b.upper,
            b.count,
            b.confidence,
            b.accuracy
        );
        let _ = writeln!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"#c62828\"/><text class=\"count\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x(b.confidence),
            y(b.accuracy),
            (left + right) / 2.0,
            (y(b.accuracy) - 5.0).max(10.0),
            b.count
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">confidence</text>\n</svg>\n<figcaption><b>{}</b> · ECE {} · Brier {} · {n} confidences</figcaption>\n</figure>",
        x(0.5),
        y(0.0) + 30.0,
        escape(name),
        num(a.ece),
        num(a.brier)
    );
}

pub(super) fn latency(out: &mut String, pipelines: &[(String, Aggregated)]) {
    out.push_str("<section id=\"latency\">\n<h2>Latency</h2>\n");
    let max = pipelines
        .iter()
        .filter_map(|(_, a)| a.latencies.last().copied())
        .fold(0.0f64, f64::max);
    if max <= 0.0 {
        out.push_str("<p class=\"none\">No latency measured.</p>\n</section>\n");
        return;
    }
    const WIDTH: f64 = 520.0;
    const LABEL: f64 = 120.0;
    let row = 30.0;
    let height = row * pipelines.len() as f64 + 30.0;
    let x = |v: f64| LABEL + v / max * WIDTH;
    let _ = writeln!(
        out,
        "<figure class=\"latency\">\n<svg role=\"img\" aria-label=\"latency distribution per pipeline\" width=\"{}\" height=\"{height}\" viewBox=\"0 0 {} {height}\">",
        LABEL + WIDTH + 60.0,
        LABEL + WIDTH + 60.0
    );
    for (i, (name, a)) in pipelines.iter().enumerate() {
        let mid = 14.0 + row * i as f64;
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            LABEL - 8.0,
            mid + 4.0,
            escape(name)
        );
        let l = &a.latencies;
        let Some((&lo, &hi)) = l.first().zip(l.last()) else {
            let _ = writeln!(
                out,
                "<text x=\"{LABEL}\" y=\"{}\">no latency measured</text>",
                mid + 4.0
            );
            continue;
        };
        let q = |p: f64| percentile(l, p).unwrap_or(lo);
        let _ = writeln!(
            out,
            "<g class=\"box\"><line x1=\"{:.1}\" y1=\"{mid}\" x2=\"{:.1}\" y2=\"{mid}\" stroke=\"#8a96a3\"/><rect x=\"{:.1}\" y=\"{}\" width=\"{:.1}\" height=\"14\" fill=\"#2f5fa7\" fill-opacity=\"0.25\" stroke=\"#2f5fa7\"/><line x1=\"{:.1}\" y1=\"{}\" x2=\"{:.1}\" y2=\"{}\" stroke=\"#1d232b\" stroke-width=\"2\"/><line x1=\"{:.1}\" y1=\"{}\" x2=\"{:.1}\" y2=\"{}\" stroke=\"#c62828\"/><title>{}: min {lo:.0}, p25 {:.0}, p50 {:.0}, p75 {:.0}, p95 {:.0}, max {hi:.0} ms over {} cases</title></g>",
            x(lo),
            x(hi),
            x(q(0.25)),
            mid - 7.0,
            (x(q(0.75)) - x(q(0.25))).max(1.0),
            x(q(0.5)),
            mid - 7.0,
            x(q(0.5)),
            mid + 7.0,
            x(q(0.95)),
            mid - 9.0,
            x(q(0.95)),
            mid + 9.0,
            escape(name),
            q(0.25),
            q(0.5),
            q(0.75),
            q(0.95),
            l.len()
        );
    }
    let axis = 14.0 + row * pipelines.len() as f64;
    for t in [0.0, 0.5, 1.0] {
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{axis}\" text-anchor=\"middle\">{:.0} ms</text>",
            x(t * max),
            t * max
        );
    }
    out.push_str("</svg>\n<figcaption>box: p25 to p75, black: median, red: p95, whiskers: min to max</figcaption>\n</figure>\n</section>\n");
}
