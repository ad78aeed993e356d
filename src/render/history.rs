//! A suite's run history as text (`goldgate history`), as an offline page with a line chart per
//! pipeline (`--html`), and as the small trend the run's page shows beside its pipelines. Runs on
//! other gold than a trend's newest run are not comparable: marked in text, drawn hollow and
//! apart in SVG, and the sparkline breaks there.

use std::fmt::Write;

use crate::record::history::{BadLine, Headline, Trend, TrendRun};

use super::markup::escape;

/// The blocks of a sparkline, lowest first.
const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The error of a history line that does not read.
pub fn bad_line(file: &str, bad: &BadLine) -> String {
    format!(
        "{file}:{}:{}: this line of the run history does not read as a run's record ({}); goldgate appends every line itself: restore the line from version control, or delete it",
        bad.line, bad.column, bad.reason
    )
}

/// The headline's name as a table heads it.
fn headline_name(headline: Headline) -> &'static str {
    match headline {
        Headline::Anls => "ANLS",
        Headline::ExactMatch => "EM",
        Headline::PassRate => "pass rate",
    }
}

/// The sparkline of a trend's headline over the range of its comparable runs: a block per run,
/// `┆` (a break) for a run on other gold, `·` for a run without the value.
fn sparkline(trend: &Trend) -> String {
    let values = trend
        .runs
        .iter()
        .filter(|r| r.comparable)
        .filter_map(|r| r.value);
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    trend
        .runs
        .iter()
        .map(|r| match (r.comparable, r.value) {
            (false, _) => '┆',
            (true, None) => '·',
            (true, Some(_)) if hi - lo < 1e-9 => BLOCKS[3],
            (true, Some(v)) => BLOCKS[((v - lo) / (hi - lo) * 7.0).round() as usize],
        })
        .collect()
}

/// Every trend as `goldgate history` prints it: a heading per pipeline, a line per run, the
/// sparkline.
pub fn history_text(trends: &[Trend]) -> String {
    let mut out = String::new();
    for (n, trend) in trends.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let name = headline_name(trend.headline);
        let _ = writeln!(
            out,
            "{}: {}, {} run{} (headline: {name})",
            trend.history,
            pipeline_label(trend),
            trend.runs.len(),
            if trend.runs.len() == 1 { "" } else { "s" }
        );
        for run in &trend.runs {
            out.push_str(&run_line(run, name));
        }
        let _ = writeln!(out, "  {name} {}", sparkline(trend));
    }
    out
}

fn pipeline_label(trend: &Trend) -> String {
    match &trend.pipeline {
        Some(p) => format!("pipeline `{p}`"),
        None => "the suite".to_owned(),
    }
}

/// A run's line: time, short commit, pass rate, headline, and its marks.
fn run_line(run: &TrendRun, name: &str) -> String {
    let commit = run
        .commit
        .as_deref()
        .map_or("-------".to_owned(), |c| super::short_commit(c, 7));
    let mut marks = Vec::new();
    if !run.comparable {
        marks.push("not comparable: other gold");
    }
    if run.partial {
        marks.push("partial run");
    }
    let marks = if marks.is_empty() {
        String::new()
    } else {
        format!("  ({})", marks.join("; "))
    };
    format!(
        "  {}  {commit}  pass rate {}  {name} {}  {}/{} passed{marks}\n",
        run.time,
        percent(run.pass_rate),
        number(run.value),
        run.passed,
        run.cases - run.ignored,
    )
}

fn percent(v: Option<f64>) -> String {
    v.map_or_else(|| "   —  ".to_owned(), |v| format!("{:5.1}%", v * 100.0))
}

fn number(v: Option<f64>) -> String {
    v.map_or_else(|| "  —   ".to_owned(), |v| format!("{v:.4}"))
}

/// The change since the last comparable run, signed, as the run's page shows it.
fn change_text(change: Option<f64>) -> String {
    match change {
        None => "no comparable run before".to_owned(),
        Some(c) if c.abs() < 5e-5 => "±0.0000 since the last comparable run".to_owned(),
        Some(c) if c < 0.0 => format!("\u{2212}{:.4} since the last comparable run", -c),
        Some(c) => format!("+{c:.4} since the last comparable run"),
    }
}

/// A line chart of a trend's headline: runs left to right, comparable runs joined by a line and
/// drawn filled, runs on other gold drawn hollow, apart (no line reaches them).
fn chart(out: &mut String, trend: &Trend, (width, height): (f64, f64), axes: bool) {
    let pad = if axes { 36.0 } else { 3.0 };
    // The headline is a share: 0 at the bottom, 1 at the top, whatever the runs' range.
    let (top, bottom) = (if axes { 10.0 } else { 3.0 }, height - pad / 2.0);
    let y = |v: f64| bottom - v.clamp(0.0, 1.0) * (bottom - top);
    let left = if axes { pad + 12.0 } else { pad };
    let step = (width - left - 6.0) / (trend.runs.len().max(2) - 1) as f64;
    let x = |i: usize| left + i as f64 * step;
    let _ = write!(
        out,
        "<svg class=\"trend\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{} of {}\">",
        headline_name(trend.headline),
        escape(&pipeline_label(trend))
    );
    if axes {
        for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let _ = write!(
                out,
                "<line class=\"tick\" x1=\"{pad}\" x2=\"{width}\" y1=\"{0:.1}\" y2=\"{0:.1}\"/><text x=\"{1}\" y=\"{2:.1}\" text-anchor=\"end\">{t:.2}</text>",
                y(t),
                pad - 4.0,
                y(t) + 4.0
            );
        }
    }
    let mut path = String::new();
    for (i, run) in trend.runs.iter().enumerate() {
        match (run.comparable, run.value) {
            (true, Some(v)) => {
                let verb = if path.is_empty() { 'M' } else { 'L' };
                let _ = write!(path, "{verb}{:.1},{:.1} ", x(i), y(v));
            }
            // The line breaks at a run on other gold or without the value.
            _ if !path.is_empty() => {
                let _ = write!(out, "<path class=\"line\" d=\"{}\"/>", path.trim_end());
                path.clear();
            }
            _ => {}
        }
    }
    if !path.is_empty() {
        let _ = write!(out, "<path class=\"line\" d=\"{}\"/>", path.trim_end());
    }
    for (i, run) in trend.runs.iter().enumerate() {
        let Some(v) = run.value else { continue };
        let class = if run.comparable {
            "point"
        } else {
            "point other"
        };
        let _ = write!(
            out,
            "<circle class=\"{class}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\"><title>{} {}: {v:.4}{}</title></circle>",
            x(i),
            y(v),
            if axes { 4 } else { 2 },
            escape(&run.time),
            escape(&commit_of(run)),
            if run.comparable {
                ""
            } else {
                " (other gold: not comparable)"
            }
        );
    }
    out.push_str("</svg>");
}

/// The style both the page of histories and the run's page give the charts.
pub(super) const TREND_STYLE: &str = "svg.trend .line { fill:none; stroke:#2f5fa7; stroke-width:2; } \
svg.trend .point { fill:#2f5fa7; stroke:#2f5fa7; stroke-width:1.5; } \
svg.trend .point.other { fill:#fff; stroke:#8a94a0; } \
svg.trend .tick { stroke:#e6e9ed; } svg.trend text { font-size:11px; fill:#5b6673; }";

/// The offline page of `goldgate history --html`: per pipeline, its chart and its runs.
pub fn history_page(trends: &[Trend]) -> String {
    let mut out = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>goldgate: run history</title>\n<style>\n\
body { margin:0; padding:24px 32px; font:15px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif; color:#1d232b; }\n\
h1 { font-size:22px; margin:0 0 12px; } h2 { font-size:17px; margin:24px 0 6px; }\n\
table { border-collapse:collapse; font-size:13px; margin-top:8px; } td, th { padding:2px 10px; border-bottom:1px solid #d9dee4; text-align:left; }\n\
tr.other td { color:#8a94a0; } .legend { color:#5b6673; font-size:13px; }\n",
    );
    out.push_str(TREND_STYLE);
    out.push_str("\n</style></head><body>\n<h1>Run history</h1>\n<p class=\"legend\">Filled points: runs on the newest run's gold. Hollow points, apart from the line: runs on other gold, not comparable.</p>\n");
    for trend in trends {
        let name = headline_name(trend.headline);
        let _ = writeln!(
            out,
            "<section class=\"history\"><h2>{} — {}</h2><p class=\"legend\">{} runs (headline: {name}); {}</p>",
            escape(&trend.history),
            escape(&pipeline_label(trend)),
            trend.runs.len(),
            escape(&change_text(trend.change))
        );
        chart(&mut out, trend, (640.0, 220.0), true);
        out.push_str("<table><tr><th>time</th><th>commit</th><th>pass rate</th><th>");
        out.push_str(name);
        out.push_str("</th><th></th></tr>\n");
        for run in &trend.runs {
            let _ = writeln!(
                out,
                "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                if run.comparable {
                    ""
                } else {
                    " class=\"other\""
                },
                escape(&run.time),
                escape(&commit_of(run)),
                percent(run.pass_rate).trim(),
                number(run.value).trim(),
                if run.comparable {
                    ""
                } else {
                    "other gold: not comparable"
                }
            );
        }
        out.push_str("</table></section>\n");
    }
    out.push_str("</body></html>\n");
    out
}

/// The run page's section of trends: each pipeline's last runs as a sparkline and the change
/// since its last comparable run.
pub(super) fn trends_section(out: &mut String, trends: &[Trend]) {
    if trends.is_empty() {
        return;
    }
    out.push_str("<section id=\"trends\">\n<h2>Trends</h2>\n<table class=\"compare\"><tr><th>pipeline</th><th>headline</th><th>last runs</th><th>change</th></tr>\n");
    for trend in trends {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>",
            escape(trend.pipeline.as_deref().unwrap_or("(suite)")),
            headline_name(trend.headline)
        );
        chart(out, trend, (160.0, 32.0), false);
        let _ = writeln!(
            out,
            "</td><td>{}</td></tr>",
            escape(&change_text(trend.change))
        );
    }
    out.push_str("</table>\n</section>\n");
}
/// A run's commit as git shortens it (its `+dirty` kept), empty when it has none.
fn commit_of(run: &TrendRun) -> String {
    run.commit
        .as_deref()
        .map_or(String::new(), |c| super::short_commit(c, 7))
}
