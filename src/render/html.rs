//! The HTML page of a run: one self-contained file (inline CSS and SVG, no script,
//! nothing fetched) that reads at a glance and prints: the summary, the comparison of pipelines,
//! the field × pipeline table, a reliability diagram and the latency distribution per pipeline,
//! every failing test with its message and coloured diffs, regressions and improvements.

use std::fmt::Write;

use super::compare::interval_text;
use super::markup::{escape, table_html};
use crate::evaluate::aggregate::{Aggregated, FieldStat};
use crate::record::run_end::RunEnd;
use crate::record::{AggregateRecord, TestRecord};

/// Everything the page shows.
pub struct Page<'a> {
    /// The end of the run: its counts and means, each pipeline's aggregate (bins and latencies
    /// included), regressions, improvements, new tests, what the gate made of it.
    pub end: &'a RunEnd,
    /// Each pipeline's headline metric with its interval, best first.
    pub headlines: &'a [crate::evaluate::headline::Headline],
    /// The field × pipeline table.
    pub fields: &'a [FieldStat],
    /// The case tests the page shows: those that failed and the repeated ones.
    pub cases: &'a [TestRecord],
    /// Every aggregate test.
    pub aggregates: &'a [AggregateRecord],
    /// The documents of the failing tests whose fields were not found where gold says, by test.
    pub documents: &'a [(String, super::html_analysis::DocumentImage)],
    /// Each pipeline's trend in its suite's history (its last runs), when the suite keeps one.
    pub trends: &'a [crate::record::history::Trend],
}

const STYLE: &str = r#"
:root { --ink:#1d232b; --muted:#5b6673; --line:#d9dee4; --bg:#f6f7f9; --good:#1a7f37; --bad:#c62828; --accent:#2f5fa7; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--ink); background:#fff; }
header { padding:24px 32px 16px; background:var(--bg); border-bottom:1px solid var(--line); }
h1 { margin:0 0 4px; font-size:22px; letter-spacing:.2px; }
h2 { font-size:17px; margin:28px 0 10px; }
main { padding:0 32px 40px; max-width:1200px; overflow-wrap:anywhere; }
.verdict { font-size:16px; margin:4px 0 10px; }
.verdict .pass { color:var(--good); font-weight:600; } .verdict .fail { color:var(--bad); font-weight:600; }
.failed-gates { margin:0 0 10px; padding-left:20px; color:var(--bad); }
.failed-gates b { color:var(--ink); }
p.fail { color:var(--bad); }
.chips { display:flex; flex-wrap:wrap; gap:8px; margin:0; padding:0; list-style:none; }
.chips li { background:#fff; border:1px solid var(--line); border-radius:6px; padding:4px 10px; font-size:13px; }
.chips b { font-variant-numeric:tabular-nums; }
table { border-collapse:collapse; font-variant-numeric:tabular-nums; font-size:13.5px; max-width:100%; }
th, td { padding:5px 10px; border-bottom:1px solid var(--line); text-align:right; overflow-wrap:anywhere; vertical-align:top; }
th { overflow-wrap:normal; }
th:first-child, td:first-child, th.name, td.name, th.text, td.text { text-align:left; }
td.num, td.name, .num, .bounds { white-space:nowrap; font-variant-numeric:tabular-nums; }
th.num, th.name { white-space:normal; }
@media print, (max-width: 1000px) { td.interval { white-space:normal; } }
td .bounds { color:var(--muted); }
.left-out { color:var(--muted); font-size:13px; margin:6px 0 0; }
thead th { background:var(--bg); font-weight:600; }
.diagrams { display:flex; flex-wrap:wrap; gap:18px; }
figure { margin:0; max-width:100%; min-width:0; background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
figcaption { font-size:13px; color:var(--muted); margin-top:4px; }
figcaption b { color:var(--ink); }
svg text { font:11px system-ui,sans-serif; fill:var(--muted); }
details { border:1px solid var(--line); border-radius:8px; margin:10px 0; background:#fff; }
.gold-digest { color:var(--muted); font-size:12px; margin:4px 0 0; }
summary { cursor:pointer; padding:8px 12px; font-weight:600; }
summary .v { font-weight:400; color:var(--bad); }
pre { white-space:break-spaces; overflow-wrap:anywhere; }
pre.message { margin:0; padding:10px 14px; border-top:1px solid var(--line); background:#fbfbfc; font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; }
svg { max-width:100%; height:auto; }
@media screen { .failing pre.message, .failing pre.diff { max-height:24em; overflow-y:auto; } }
del { background:#ffe1e1; color:#9b1c1c; text-decoration:line-through; }
ins { background:#dcf5e3; color:#14532d; text-decoration:none; }
.removed { color:#9b1c1c; } .added { color:#14532d; }
.at { color:var(--muted); font-size:12.5px; padding:0 14px 8px; margin:0; }
figure.page { margin:0 14px 12px; display:inline-block; }
.page-view { position:relative; display:inline-block; max-width:100%; line-height:0; border:1px solid var(--line); }
.page-view svg.page-image { display:block; max-width:100%; height:auto; }
.page-view svg.boxes { position:absolute; left:0; top:0; width:100%; height:100%; }
figure.page[data-page] { width:min(440px, calc(100% - 28px)); vertical-align:top; }
figure.page[data-page] .page-view, figure.page[data-page] svg.page-image { width:100%; }
rect.gold, rect.predicted { fill:none; stroke-width:2.5; vector-effect:non-scaling-stroke; }
rect.gold { stroke:var(--good); } rect.predicted { stroke:var(--bad); stroke-dasharray:6 3; }
.key-gold { color:var(--good); font-weight:600; } .key-predicted { color:var(--bad); font-weight:600; }
.none { color:var(--muted); }
figure.headline, figure.forest { display:block; width:fit-content; margin:6px 0 14px; }
svg.chart { display:block; }
svg.chart .tick { stroke:#e6e9ee; }
svg.chart .tick.zero { stroke:#1d232b; stroke-dasharray:4 3; }
svg.chart .interval { stroke:#8a96a3; stroke-width:2; }
svg.chart .point { fill:#fff; stroke:#5b6673; stroke-width:1.6; }
svg.chart .pipeline .interval, svg.chart .significant .interval { stroke:var(--accent); stroke-width:3; }
svg.chart .pipeline .point, svg.chart .significant .point { fill:var(--accent); stroke:var(--accent); }
svg.chart text.label { fill:var(--ink); font-size:12px; }
svg.chart text.figures { font-size:12px; font-variant-numeric:tabular-nums; }
svg.chart .significant text { fill:var(--ink); font-weight:600; }
.key-significant { color:var(--accent); font-weight:600; }
.matrices { display:flex; flex-wrap:wrap; gap:6px 28px; align-items:flex-start; }
table.matrix td.cell { min-width:4.2em; }
table.matrix tbody td:first-child { font-weight:600; overflow-wrap:break-word; }
.legend { display:flex; flex-wrap:wrap; align-items:center; gap:2px; margin:4px 0 8px; font-size:12px; font-variant-numeric:tabular-nums; }
.legend span { padding:1px 6px; } .legend .words { color:var(--muted); }
details.perfect > summary { font-weight:400; }
details.perfect .names { margin:0; padding:0 12px 10px; color:var(--muted); font-size:13px; }
.failing { margin:8px 0; border-top:1px solid var(--line); }
.failing .row { display:grid; grid-template-columns:var(--columns); gap:0 12px; align-items:baseline; padding:4px 10px; font-size:13.5px; }
.failing .head { font-weight:600; background:var(--bg); }
.failing .head .num { text-align:right; }
.failing details { margin:0; border:0; border-bottom:1px solid var(--line); border-radius:0; }
.failing summary.row { font-weight:400; list-style:none; }
.failing summary::-webkit-details-marker { display:none; }
.failing summary .test::before { content:"\25B8\00A0"; color:var(--muted); }
.failing details[open] > summary .test::before { content:"\25BE\00A0"; }
.failing .why { color:var(--bad); }
.failing .num { text-align:right; }
.failing .test, .failing .field, .failing .why { min-width:0; overflow-wrap:anywhere; }
footer { color:var(--muted); font-size:12px; padding:0 32px 24px; }
.scroll { max-width:100%; }
@media (max-width: 700px) { header, main, footer { padding-left:14px; padding-right:14px; } th, td { padding:4px 5px; } }
@media print {
  main { max-width:none; }
  header, main, footer { padding-left:0; padding-right:0; }
  table { font-size:10.5px; }
  th, td { padding:3px 4px; }
  pre.message { font-size:10.5px; }
  header { background:none; }
  details { break-inside:avoid; }
  summary { list-style:none; }
}
"#;

/// The page.
pub fn html_page(page: &Page) -> String {
    let mut out = String::new();
    let s = &page.end.summary;
    let pipelines = &page.end.pipelines[..];
    let _ = writeln!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>goldgate: {} cases, {} failed</title>\n<style>{STYLE}{}{}</style>\n</head>\n<body>",
        s.cases,
        s.failed,
        super::svg::step_classes(),
        super::history::TREND_STYLE
    );
    header(&mut out, page);
    out.push_str("<main>\n");
    pipelines_table(&mut out, pipelines, page.headlines);
    super::history::trends_section(&mut out, page.trends);
    comparisons(
        &mut out,
        &page.end.comparisons,
        page.headlines.first().map(|h| h.metric),
    );
    gates(&mut out, &page.end.gates);
    repeats(&mut out, pipelines, page.cases);
    let ranked: Vec<&str> = page.headlines.iter().map(|h| h.pipeline.as_str()).collect();
    super::html_slices::slices(
        &mut out,
        &page.end.slices,
        page.headlines.first().map(|h| h.metric),
        &ranked,
    );
    fields_table(&mut out, page.fields, pipelines);
    super::html_analysis::grounding_table(&mut out, pipelines);
    super::html_analysis::misses_table(&mut out, &page.end.misses);
    super::html_analysis::acceptance(&mut out, &page.end.acceptance);
    super::html_analysis::pooled(&mut out, &page.end.pooled);
    super::html_charts::calibration(&mut out, pipelines);
    super::html_charts::latency(&mut out, pipelines);
    super::html_failures::failures(&mut out, page.cases, page.aggregates, page.documents);
    notes(&mut out, page.end);
    out.push_str("</main>\n");
    let _ = writeln!(
        out,
        "<footer>goldgate {} · a page of the run's report: its JSON holds every test.</footer>\n</body>\n</html>",
        env!("CARGO_PKG_VERSION")
    );
    out
}

/// The page's one verdict: whether everything passed, the case tests that failed, and every
/// gate that failed by name with why (an aggregate's bounds or slices, a regression gate); then
/// the run's means that were measured.
fn header(out: &mut String, page: &Page) {
    let s = &page.end.summary;
    let m = &s.metrics;
    let gates = failed_gates(page.aggregates);
    let account = &page.end.account;
    let verdict = verdict(page.end, gates.is_empty());
    let known = match s.known_failures {
        0 => String::new(),
        n => format!(", {n} known failure{}", if n == 1 { "" } else { "s" }),
    };
    let held = page.aggregates.iter().filter(|a| a.passed).count();
    let aggregates = match page.aggregates.len() {
        0 => String::new(),
        1 => format!(
            " · 1 aggregate test, {}",
            if held == 1 { "held" } else { "failed" }
        ),
        n => format!(" · {n} aggregate tests: {held} held, {} failed", n - held),
    };
    let _ = writeln!(
        out,
        "<header>\n<h1>goldgate</h1>\n<p class=\"verdict\" id=\"summary\">{verdict} · {} case tests: {} passed, {} failed{known}, {} ignored{aggregates}</p>",
        s.cases, s.passed, s.failed, s.ignored,
    );
    if let Some(line) = super::gate_line(account) {
        let _ = writeln!(
            out,
            "<p class=\"gate-line\" id=\"gate\">{}</p>",
            escape(&line)
        );
    }
    if !gates.is_empty() {
        out.push_str("<ul class=\"failed-gates\">\n");
        for (name, why) in &gates {
            let _ = writeln!(out, "<li><b>{}</b>: {}</li>", escape(name), escape(why));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<ul class=\"chips\">");
    for (label, value) in [
        ("EM", m.exact_match),
        ("ANLS", m.anls),
        ("critical EM", m.exact_critical),
        ("critical ANLS", m.anls_critical),
        ("Brier", m.brier),
        ("ECE", m.ece),
    ] {
        // A mean no case measures is left out, as a column of the tables is.
        if let Some(value) = value {
            let _ = write!(out, "<li>{label} <b>{value:.4}</b></li>");
        }
    }
    out.push_str("</ul>\n");
    // What the run's live pipelines cost: the calls made, and the outputs the cache gave.
    if let Some(calls) = &s.calls {
        let _ = writeln!(
            out,
            "<p class=\"calls\" id=\"calls\">{}</p>",
            escape(&super::summary::calls_line(calls))
        );
    }
    // The gold set's identity, quiet: whole on hover, short as git shortens a commit.
    if let Some(digest) = &s.gold_digest {
        let _ = writeln!(
            out,
            "<p class=\"gold-digest\" id=\"gold-digest\" title=\"SHA-256 of the gold values and rules: {digest}\">gold digest <code>{}</code></p>",
            crate::evaluate::digest::short(digest)
        );
    }
    out.push_str("</header>\n");
}

/// The page's one word: the gate's when tests are held to their baselines (known failures fail
/// nothing), else whether every test and aggregate passed.
fn verdict(end: &RunEnd, no_gate_failed: bool) -> &'static str {
    if end.account.holds() {
        if end.account.regressions.is_empty() {
            "<span class=\"pass\">no regression</span>"
        } else {
            "<span class=\"fail\">regressed</span>"
        }
    } else if end.summary.failed == 0 && no_gate_failed {
        "<span class=\"pass\">all passed</span>"
    } else {
        "<span class=\"fail\">failed</span>"
    }
}

/// Every gate that failed, named, with why: a failing aggregate test's bounds or slices (its
/// verdict), and each regression gate that failed (its first line).
fn failed_gates(aggregates: &[AggregateRecord]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for a in aggregates.iter().filter(|a| !a.passed) {
        let gate = a.regression_gate.as_ref().filter(|g| !g.held);
        let bounds = a.thresholds.iter().any(|t| !t.held) || a.slices.iter().any(|s| !s.held);
        if bounds || gate.is_none() {
            let verdict = a
                .message
                .as_deref()
                .and_then(|m| m.lines().next())
                .unwrap_or("aggregate failed");
            let why = verdict
                .strip_prefix("aggregate failed ")
                .and_then(|rest| rest.split_once("): "))
                .map_or(verdict, |(_, why)| why);
            out.push((a.id.clone(), why.to_owned()));
        }
        if let Some(why) = gate.and_then(super::gate::gate_failure) {
            out.push((
                format!(
                    "regression gate of {}",
                    a.pipeline.as_deref().unwrap_or(&a.id)
                ),
                why.lines().next().unwrap_or_default().to_owned(),
            ));
        }
    }
    out
}

fn pipelines_table(
    out: &mut String,
    pipelines: &[(String, Aggregated)],
    headlines: &[crate::evaluate::headline::Headline],
) {
    out.push_str("<section id=\"pipelines\">\n<h2>Pipelines</h2>\n");
    super::html_charts::headline_chart(out, headlines);
    table_html(out, &super::compare::pipelines_table(pipelines), "compare");
    out.push_str("</section>\n");
}

/// Each pipeline against its reference, with intervals and McNemar's p-value. A metric no pair
/// has an interval of, for one reason, is left out and the reason said once; the other reasons
/// stay on their row.
fn comparisons(
    out: &mut String,
    comparisons: &[crate::evaluate::paired::Paired],
    headline: Option<crate::model::metric::Metric>,
) {
    if comparisons.is_empty() {
        return;
    }
    out.push_str("<section id=\"comparisons\">\n<h2>Compared with confidence</h2>\n");
    super::html_charts::forest_plots(out, comparisons, headline);
    out.push_str("<p>The same differences of means, over the cases both ran, with their 95 % paired bootstrap interval (10,000 resamples, seeded), and McNemar's exact test on pass/fail.</p>\n");
    table_html(out, &intervals_table(comparisons), "compare intervals");
    // The pairs that lack an interval for a reason the others do not share, beneath the table
    // (a column of sentences would squeeze the figures).
    let shared: Vec<Option<String>> = ["score", "exact_match", "anls"]
        .iter()
        .map(|m| said_once(comparisons, m))
        .collect();
    for c in comparisons {
        let own: Vec<String> = c
            .unmeasured
            .iter()
            .map(super::compare::unmeasured_text)
            .filter(|t| !shared.iter().any(|s| s.as_ref() == Some(t)))
            .collect();
        if !own.is_empty() {
            let _ = writeln!(
                out,
                "<p class=\"left-out\">{} against {}: {}</p>",
                escape(&c.pipeline),
                escape(&c.reference),
                escape(&own.join("; "))
            );
        }
    }
    out.push_str("</section>\n");
}

/// The reason shared by every pair that lacks a metric, when every pair lacks it.
fn said_once(comparisons: &[crate::evaluate::paired::Paired], metric: &str) -> Option<String> {
    let reasons: Vec<String> = comparisons
        .iter()
        .map(|c| {
            c.unmeasured
                .iter()
                .find(|u| u.metric == metric)
                .map(super::compare::unmeasured_text)
        })
        .collect::<Option<_>>()?;
    reasons
        .iter()
        .all(|r| *r == reasons[0])
        .then(|| reasons[0].clone())
}

/// The table of the pairs: their intervals and McNemar's test, a column no pair has an interval
/// of empty, with the reason they share.
fn intervals_table(comparisons: &[crate::evaluate::paired::Paired]) -> super::table::Table {
    let interval_column = |heading: &'static str, metric: &str| super::table::Column {
        heading,
        kind: super::table::Kind::Figure,
        width: 0,
        empty: said_once(comparisons, metric).map(|why| {
            // `no score: no case of the pair has rubrics` -> `no case of any pair has rubrics`
            let why = why
                .split_once(": ")
                .map_or(why.clone(), |(_, w)| w.to_owned());
            std::borrow::Cow::Owned(why.replace("of the pair", "of any pair"))
        }),
    };
    let columns = vec![
        super::table::Column::name("pipeline"),
        super::table::Column::name("against"),
        super::table::Column::count("cases", 0),
        interval_column("score", "score"),
        interval_column("EM", "exact_match"),
        interval_column("ANLS", "anls"),
        super::table::Column::count("passed only by reference / pipeline", 0),
        super::table::Column::count("McNemar p", 0),
    ];
    let rows = comparisons
        .iter()
        .map(|c| {
            vec![
                c.pipeline.clone(),
                c.reference.clone(),
                c.cases.to_string(),
                interval_text(c.score.as_ref()),
                interval_text(c.exact_match.as_ref()),
                interval_text(c.anls.as_ref()),
                format!("{} / {}", c.mcnemar.only_reference, c.mcnemar.only_pipeline),
                format!("{:.4}", c.mcnemar.p_value),
            ]
        })
        .collect();
    super::table::Table::new(columns, rows)
}

/// Each pipeline's regression gate: the paired difference against the baseline, its interval,
/// the verdict, the smallest drop it detects and the false alarms between repeated attempts.
fn gates(out: &mut String, gates: &[(Option<String>, crate::record::RegressionGateRecord)]) {
    use super::table::{ABSENT, Column, Table};
    if gates.is_empty() {
        return;
    }
    out.push_str("<section id=\"gates\">\n<h2>Regression gate</h2>\n<p>This run against the baseline over the cases both have: the mean difference with its seeded paired bootstrap interval; the gate fails on a mean drop of at least <code>min_effect</code> whose interval lies wholly beyond zero.</p>\n");
    let rows = gates
        .iter()
        .map(|(pipeline, g)| {
            let verdict = match (&g.baseline_error, g.held) {
                (Some(why), _) => why.clone(),
                (None, true) => "held".to_owned(),
                (None, false) => "failed".to_owned(),
            };
            vec![
                pipeline.as_deref().unwrap_or(ABSENT).to_owned(),
                g.metric.clone(),
                g.difference.map_or(0, |d| d.cases).to_string(),
                interval_text(g.difference.as_ref()),
                g.min_effect.to_string(),
                verdict,
                g.power.map_or_else(
                    || ABSENT.to_owned(),
                    |p| format!("{:.4}", p.detectable_drop),
                ),
                g.false_alarms.map_or_else(
                    || ABSENT.to_owned(),
                    |f| format!("{} of {} pairs ({:.2})", f.alarms, f.pairs, f.rate),
                ),
            ]
        })
        .collect();
    let table = Table::new(
        vec![
            Column::name("pipeline"),
            Column::text("metric"),
            Column::count("cases", 0),
            Column::figure("difference", 0, "no case is paired with the baseline"),
            Column::count("min_effect", 0),
            Column::text("verdict"),
            Column::figure(
                "detectable drop (80 % power)",
                0,
                "no value to measure a spread from",
            ),
            Column::figure(
                "false alarms between attempts",
                0,
                "no pipeline repeats its cases",
            ),
        ],
        rows,
    );
    table_html(out, &table, "compare");
    out.push_str("</section>\n");
}

/// Repeated cases: per pipeline pass^k, pass@k and the fields that flipped; per case its pass
/// count and flip rates.
fn repeats(out: &mut String, pipelines: &[(String, Aggregated)], cases: &[TestRecord]) {
    use super::table::{Column, Table};
    let repeated: Vec<&TestRecord> = cases.iter().filter(|c| c.repeat.is_some()).collect();
    if repeated.is_empty() {
        return;
    }
    out.push_str("<section id=\"repeats\">\n<h2>Repeated attempts</h2>\n<p>Each case ran several times: pass^k is the share of cases every attempt of which passed, pass@k the share one attempt of which did; a field's flip rate is the share of attempts whose exact match differs from the majority.</p>\n");
    let rows = pipelines
        .iter()
        .filter(|(_, a)| a.pass_all_k.is_some())
        .map(|(name, a)| {
            vec![
                name.clone(),
                super::num(a.pass_all_k),
                super::num(a.pass_any_k),
                super::num(a.max_flip_rate),
                super::repeat::flip_rates_text(&a.flip_rates),
            ]
        })
        .collect();
    let table = Table::new(
        vec![
            Column::name("pipeline"),
            Column::count("pass^k", 0),
            Column::count("pass@k", 0),
            Column::count("largest flip rate", 0),
            Column::text("flip rate by field"),
        ],
        rows,
    );
    table_html(out, &table, "compare");
    let rows = repeated
        .iter()
        .filter_map(|case| {
            let r = case.repeat.as_ref()?;
            Some(vec![
                case.id.clone(),
                format!("{} of {}", r.passed, r.attempts),
                r.pass.clone(),
                if case.passed == Some(true) {
                    "passed"
                } else {
                    "failed"
                }
                .to_owned(),
                super::repeat::flip_rates_text(&r.flip_rates),
            ])
        })
        .collect();
    let table = Table::new(
        vec![
            Column::text("test"),
            Column::count("attempts passed", 0),
            Column::text("pass"),
            Column::text("verdict"),
            Column::text("flip rate by field"),
        ],
        rows,
    );
    table_html(out, &table, "compare");
    out.push_str("</section>\n");
}

/// The field × pipeline table: the fields exact for every pipeline on one line (their names
/// folded), the others worst first.
fn fields_table(out: &mut String, fields: &[FieldStat], pipelines: &[(String, Aggregated)]) {
    out.push_str("<section id=\"fields\">\n<h2>Fields × pipelines</h2>\n");
    if fields.is_empty() {
        out.push_str("<p class=\"none\">No case has gold fields.</p>\n</section>\n");
        return;
    }
    let names: Vec<&str> = pipelines.iter().map(|(n, _)| n.as_str()).collect();
    let rows = super::fields::field_rows(fields, &names);
    if let Some(line) = super::fields::perfect_line(&rows.perfect, names.len()) {
        let _ = writeln!(
            out,
            "<details class=\"perfect\"><summary>{}</summary>\n<p class=\"names\">{}</p>\n</details>",
            escape(&line),
            escape(&rows.perfect.join(", "))
        );
    }
    if rows.rows.is_empty() {
        out.push_str("</section>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<p>{} not exact for some pipeline, worst first: the mean EM and ANLS of each pipeline over its cases with the field.</p>",
        match rows.rows.len() {
            1 => "The field".to_owned(),
            n => format!("The {n} fields"),
        }
    );
    let lo = super::svg::heat_floor(
        rows.rows
            .iter()
            .flat_map(|(_, stats)| stats.iter().flatten().flat_map(|s| [s.em, s.anls])),
    );
    out.push_str(&super::svg::legend(lo));
    out.push_str(
        "<div class=\"scroll\"><table class=\"fields\">\n<thead><tr><th class=\"text\">field</th>",
    );
    for name in &names {
        let _ = write!(
            out,
            "<th colspan=\"2\" class=\"name\">{}</th>",
            escape(name)
        );
    }
    out.push_str("</tr><tr><th></th>");
    for _ in &names {
        out.push_str("<th class=\"num\">EM</th><th class=\"num\">ANLS</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (field, stats) in &rows.rows {
        let _ = write!(out, "<tr><td class=\"text\">{}</td>", escape(field));
        for stat in stats {
            match stat {
                Some(f) => {
                    let _ = write!(
                        out,
                        "<td class=\"num c{}\">{:.4}</td><td class=\"num c{}\">{:.4}</td>",
                        super::svg::step_of(f.em, lo, 1.0),
                        f.em,
                        super::svg::step_of(f.anls, lo, 1.0),
                        f.anls
                    );
                }
                None => out.push_str("<td class=\"num\">-</td><td class=\"num\">-</td>"),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
}

/// Regressions and improvements of tests against their baselines: what the gate made of the
/// tests held to their entries, then each test's metrics beyond its tolerance. A run whose
/// regression gate failed never reads "none" here; "none beyond the tolerance" is said only
/// where a suite compares each test within one.
fn notes(out: &mut String, end: &RunEnd) {
    out.push_str("<section id=\"regressions\">\n<h2>Regressions and improvements</h2>\n");
    account(out, &end.account);
    if end.regressions.is_empty() && end.improvements.is_empty() && !end.account.holds() {
        out.push_str(&format!(
            "<p class=\"none\">{}</p>\n",
            escape(&nothing_moved(end))
        ));
    }
    for (title, list, class) in [
        ("regressed", &end.regressions, "removed"),
        ("improved", &end.improvements, "added"),
    ] {
        if list.is_empty() {
            continue;
        }
        let _ = write!(out, "<p>{title}:</p>\n<ul class=\"{class}\">\n");
        for (test, changes) in list {
            let line = format!("{test}: {}", super::describe(changes));
            let _ = writeln!(out, "<li>{}</li>", escape(&line));
        }
        out.push_str("</ul>\n");
    }
    moved(out, &end.moved);
    if !end.new_cases.is_empty() {
        let _ = writeln!(
            out,
            "<p>new, not in the baseline yet: {}</p>",
            escape(&end.new_cases.join(", "))
        );
    }
    for why in &end.baseline_errors {
        let _ = writeln!(out, "<pre class=\"message\">error: {}</pre>", escape(why));
    }
    out.push_str("</section>\n");
}

/// Every test that moved against its entry however little, worst first: the metric it is held
/// to, then its fields' EM and ANLS; the first [`MOVED_SHOWN`], the report holding them all.
fn moved(out: &mut String, moved: &[(String, Vec<crate::evaluate::baseline::Change>)]) {
    const MOVED_SHOWN: usize = 200;
    if moved.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<p>moved against the baseline ({}), worst first:</p>\n<ul class=\"moved\">\n",
        moved.len()
    );
    for (test, changes) in moved.iter().take(MOVED_SHOWN) {
        let _ = writeln!(
            out,
            "<li><b>{}</b>: {}</li>",
            escape(test),
            escape(&super::describe(changes))
        );
    }
    if moved.len() > MOVED_SHOWN {
        let _ = writeln!(
            out,
            "<li>… and {} more: the report has them all</li>",
            moved.len() - MOVED_SHOWN
        );
    }
    out.push_str("</ul>\n");
}

/// Why no test is listed as regressed or improved: the regression gate failed, no test moved
/// beyond a tolerance its suite sets, the suites gate on a significant drop instead, or no suite
/// keeps a baseline.
fn nothing_moved(end: &RunEnd) -> String {
    let failed: Vec<&str> = end
        .gates
        .iter()
        .filter(|(_, g)| !g.held)
        .map(|(p, _)| p.as_deref().unwrap_or("its cases"))
        .collect();
    if !failed.is_empty() {
        return format!(
            "No test moved beyond its own tolerance, but the regression gate failed for {}: see Regression gate above.",
            failed.join(", ")
        );
    }
    if !end.gates.is_empty() {
        return "No suite sets a per-test tolerance: the regression gate above compares the run with its baseline.".to_owned();
    }
    if end.baselines || !end.baseline_errors.is_empty() || !end.new_cases.is_empty() {
        return "None beyond the baselines' tolerance.".to_owned();
    }
    "No suite declares a baseline: nothing is compared with an earlier run.".to_owned()
}

/// The tests held to their entries (`fail_on: regressions`): the regressions with how each is
/// worse, the fixed tests with their bless commands, the known failures counted.
fn account(out: &mut String, account: &crate::record::run_end::GateAccount) {
    if !account.holds() {
        return;
    }
    if !account.regressions.is_empty() {
        out.push_str("<p class=\"fail\">worse than the baseline:</p>\n<ul class=\"removed\">\n");
        for r in &account.regressions {
            let why = match &r.fails {
                _ if !r.worse.is_empty() => super::worse(&r.worse),
                Some(why) => why.clone(),
                None => "fails".to_owned(),
            };
            let _ = writeln!(out, "<li><b>{}</b>: {}</li>", escape(&r.test), escape(&why));
        }
        out.push_str("</ul>\n");
    }
    if !account.fixed.is_empty() {
        out.push_str("<p>fixed:</p>\n<ul class=\"added\">\n");
        for f in &account.fixed {
            let _ = writeln!(
                out,
                "<li><b>{}</b>: bless it with <code>{}</code></li>",
                escape(&f.test),
                escape(&f.bless)
            );
        }
        out.push_str("</ul>\n");
    }
    let _ = writeln!(
        out,
        "<p class=\"known\">{} known failure{}: failing as their baseline entries say, no worse.</p>",
        account.known_failures,
        if account.known_failures == 1 { "" } else { "s" }
    );
}
