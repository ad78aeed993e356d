//! The comparison table of pipelines and the lines of an aggregate.

use std::fmt::Write;

use super::num;
use super::table::{Column, Table};
use crate::evaluate::aggregate::{Aggregated, SliceRow, SliceVerdict};
use crate::evaluate::outcome::ThresholdVerdict;
use crate::evaluate::paired::{Interval, Paired, Pairing, Unmeasured, Unpaired};
use crate::model::metric::Range;

/// One aggregate's numbers on two lines.
pub fn aggregate_table(a: &Aggregated) -> String {
    // The comparison's cells; the pass rate as a fraction, as the aggregate's bound is written.
    let [
        em,
        anls,
        crit_em,
        crit_anls,
        brier,
        ece,
        p50,
        p95,
        cost,
        _,
        gate,
        score,
        mr,
        ew,
    ] = comparison_cells(a);
    let mut table = format!(
        "  EM {em}  ANLS {anls}  critical EM {crit_em}  critical ANLS {crit_anls}  Brier {brier}  ECE {ece}\n  latency p50 {p50} ms  p95 {p95} ms  cost {cost} per case  pass rate {}\n  gate pass rate {gate}  mean score {score}  Must-Right accuracy {mr}  Easy-Wrong accuracy {ew}\n",
        num(a.pass_rate),
    );
    if a.pass_all_k.is_some() {
        let _ = writeln!(
            table,
            "  repeated: every attempt passed {}  one attempt passed {}  largest flip rate {}",
            num(a.pass_all_k),
            num(a.pass_any_k),
            num(a.max_flip_rate)
        );
    }
    table + &grounding_line(a)
}

/// The attempts of repeated cases, one row per pipeline that has them: pass^k (every attempt
/// passed), pass@k (one did), the largest flip rate and the fields that flipped; empty when no
/// case was repeated.
pub fn repeat_table(rows: &[(String, Aggregated)]) -> String {
    let rows: Vec<_> = rows
        .iter()
        .filter(|(_, a)| a.pass_all_k.is_some())
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let width = super::column_width(rows.iter().map(|(n, _)| n.as_str()), 8);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:>7}  {:>7}  {:>8}  flips (share of attempts against the majority)",
        "repeated", "pass^k", "pass@k", "max flip"
    );
    for (name, a) in rows {
        let flips = super::repeat::flip_rates_text(a.flip_rates.iter().filter(|f| f.rate > 0.0));
        let _ = writeln!(
            out,
            "{name:<width$}  {:>7}  {:>7}  {:>8}  {}",
            num(a.pass_all_k),
            num(a.pass_any_k),
            num(a.max_flip_rate),
            if flips.is_empty() { "none" } else { &flips }
        );
    }
    out
}

/// An aggregate's grounding and automation rate, when its cases measure them.
fn grounding_line(a: &Aggregated) -> String {
    let mut out = String::new();
    if a.grounded.is_some() {
        out.push_str(&format!(
            "  grounded {}  IoU {}  page match {}\n",
            num(a.grounded),
            num(a.iou),
            num(a.page_match)
        ));
    }
    if a.automation_rate.is_some() {
        out.push_str(&format!(
            "  automation rate {} (each field from its advised confidence, target error {})\n",
            num(a.automation_rate),
            a.target_error
        ));
    }
    out
}

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.0}"))
}

/// A pass rate: `94%`.
fn percent(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |r| format!("{:.0}%", r * 100.0))
}

fn usd(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("${v:.6}"))
}

/// A pipeline's cells in the comparison of pipelines, whatever the page: EM, ANLS, critical EM
/// and ANLS, Brier, ECE, p50 and p95 latency, cost per case, pass rate, then the gate's: gate
/// pass rate, mean score, Must-Right and Easy-Wrong accuracy.
pub(crate) fn comparison_cells(a: &Aggregated) -> [String; 14] {
    [
        num(a.exact_match),
        num(a.anls),
        num(a.exact_critical),
        num(a.anls_critical),
        num(a.brier),
        num(a.ece),
        ms(a.latency_p50),
        ms(a.latency_p95),
        usd(a.cost_usd),
        percent(a.pass_rate),
        num(a.gate_pass_rate),
        num(a.mean_score),
        num(a.must_right_accuracy),
        num(a.easy_wrong_accuracy),
    ]
}

/// The columns of the comparison of pipelines after the pipeline's name and its cases, in the
/// order of [`comparison_cells`], each with why it would be empty.
const METRIC_COLUMNS: [Column; 14] = [
    Column::figure("EM", 7, "no case was scored"),
    Column::figure("ANLS", 7, "no case was scored"),
    Column::figure("crit.EM", 7, "no case names a critical field"),
    Column::figure("c.ANLS", 7, "no case names a critical field"),
    Column::figure("Brier", 7, "no prediction gives a confidence"),
    Column::figure("ECE", 7, "no prediction gives a confidence"),
    Column::figure("p50 ms", 7, "no prediction gives its latency"),
    Column::figure("p95 ms", 7, "no prediction gives its latency"),
    Column::figure(
        "cost/case",
        10,
        "no prediction gives a cost or a priced usage",
    ),
    Column::figure("pass", 5, "no case was scored"),
    Column::figure("gate", 7, "no case has rubrics"),
    Column::figure("score", 7, "no case has rubrics"),
    Column::figure("MR acc", 7, "no case has a Must-Right rubric"),
    Column::figure("EW acc", 7, "no case has an Easy-Wrong rubric"),
];

/// The comparison of pipelines, one row per pipeline: its cases, mean EM, ANLS, critical EM
/// and ANLS, Brier, ECE, p50/p95 latency, cost, pass rate and the gate's aggregates; a column
/// no pipeline has a value in is left out.
pub(crate) fn pipelines_table(rows: &[(String, Aggregated)]) -> Table {
    let mut columns = vec![Column::name("pipeline"), Column::count("cases", 5)];
    columns.extend(METRIC_COLUMNS);
    let rows = rows
        .iter()
        .map(|(name, a)| {
            let mut row = vec![name.clone(), a.cases.to_string()];
            row.extend(comparison_cells(a));
            row
        })
        .collect();
    Table::new(columns, rows)
}

/// The comparison of pipelines as the terminal prints it.
pub fn comparison_table(rows: &[(String, Aggregated)]) -> String {
    pipelines_table(rows).text()
}

/// One row per pipeline that grounds its values (a prediction gives pages or boxes where gold
/// does): the share grounded, the mean IoU, the share on the right page; empty when none does.
pub fn grounding_table(rows: &[(String, Aggregated)]) -> String {
    grounding(rows).text()
}

/// The table of [`grounding_table`], for the terminal, Markdown and HTML writers: IoU or page
/// match left out, and said so once, when no prediction gives a box or a page.
pub(crate) fn grounding(rows: &[(String, Aggregated)]) -> Table {
    let rows = rows
        .iter()
        .filter(|(_, a)| a.grounded.is_some())
        .map(|(name, a)| vec![name.clone(), num(a.grounded), num(a.iou), num(a.page_match)])
        .collect();
    Table::new(
        vec![
            Column::name("grounding"),
            Column::count("grounded", 8),
            Column::figure("IoU", 7, "no prediction gives a box"),
            Column::figure("page match", 10, "no prediction gives a page"),
        ],
        rows,
    )
}

/// Under `profile: kieval`, one row per pipeline of KIEval's scores and counts, pooled over its
/// cases (entities: gold ones, right, wrong, missing or extra); empty when no pipeline has them.
pub fn kieval_table(rows: &[(String, Aggregated)]) -> String {
    let rows: Vec<_> = rows
        .iter()
        .filter_map(|(n, a)| a.kieval.map(|c| (n, a, c.total)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let width = super::column_width(rows.iter().map(|(n, _, _)| n.as_str()), 8);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:>9}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}",
        "KIEval", "precision", "recall", "F1", "aligned", "labels", "exact", "wrong", "missing"
    );
    for (name, a, t) in rows {
        let _ = writeln!(
            out,
            "{name:<width$}  {:>9}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}",
            num(a.precision),
            num(a.recall),
            num(a.f1),
            num(a.aligned),
            t.labels,
            t.exact,
            t.wrong,
            t.missing
        );
    }
    out
}

/// One row per slice (`tag=value`) and pipeline: its cases, pass rate, EM, ANLS, critical EM
/// and ANLS, Brier, ECE, cost per case; a column no slice has a value in is left out.
pub(crate) fn slices_table(rows: &[SliceRow]) -> Table {
    let columns = vec![
        Column::text("slice"),
        Column::name("pipeline"),
        Column::count("cases", 5),
        METRIC_COLUMNS[9].clone(),
        METRIC_COLUMNS[0].clone(),
        METRIC_COLUMNS[1].clone(),
        METRIC_COLUMNS[2].clone(),
        METRIC_COLUMNS[3].clone(),
        METRIC_COLUMNS[4].clone(),
        METRIC_COLUMNS[5].clone(),
        METRIC_COLUMNS[8].clone(),
    ];
    let rows = rows
        .iter()
        .map(|s| {
            let a = &s.metrics;
            vec![
                format!("{}={}", s.tag, s.value),
                s.pipeline.clone(),
                a.cases.to_string(),
                percent(a.pass_rate),
                num(a.exact_match),
                num(a.anls),
                num(a.exact_critical),
                num(a.anls_critical),
                num(a.brier),
                num(a.ece),
                usd(a.cost_usd),
            ]
        })
        .collect();
    Table::new(columns, rows)
}

/// One row per slice (`tag=value`) and pipeline, as the terminal prints it.
pub fn slice_table(rows: &[SliceRow]) -> String {
    slices_table(rows).text()
}

/// `min_anls failed: 0.8800 < 0.92` for each threshold that failed.
pub fn failed_bounds(verdicts: &[ThresholdVerdict]) -> Vec<String> {
    verdicts
        .iter()
        .filter(|v| !v.held)
        .map(threshold_text)
        .collect()
}

/// `min_anls failed: 0.8800 < 0.92`, or why the metric is absent.
pub(crate) fn threshold_text(t: &ThresholdVerdict) -> String {
    match t.value {
        Some(v) if t.metric.about().range == Range::Count => {
            format!("{} failed: {v} > {}", t.name, t.limit)
        }
        Some(v) => {
            // Four decimals, unless they would print a comparison that reads as false
            // (`0.7143 < 0.714296`): then every digit.
            let short = format!("{v:.4}");
            let reads_true = short
                .parse::<f64>()
                .is_ok_and(|s| if t.is_max { s > t.limit } else { s < t.limit });
            let shown = if reads_true { short } else { v.to_string() };
            format!(
                "{} failed: {shown} {} {}",
                t.name,
                if t.is_max { ">" } else { "<" },
                t.limit
            )
        }
        None => format!(
            "{} failed: the metric is absent ({})",
            t.name,
            t.absent_because
                .as_ref()
                .map_or_else(|| "not measured".to_owned(), super::finding::absent)
        ),
    }
}

fn signed(v: f64) -> String {
    format!("{}{:.4}", if v >= 0.0 { "+" } else { "-" }, v.abs())
}

/// `+0.1667 [-0.0833, +0.5000]`, or `-` without paired values.
pub(crate) fn interval_text(i: Option<&Interval>) -> String {
    i.map_or_else(
        || "-".into(),
        |i| {
            format!(
                "{} [{}, {}]",
                signed(i.difference),
                signed(i.low),
                signed(i.high)
            )
        },
    )
}

/// Each pipeline against its reference: the difference of mean score, EM and ANLS with its 95 %
/// paired bootstrap interval, and McNemar's exact p-value on pass/fail. A metric no case of the
/// pair measures is left out of the line, and the line says why.
pub fn paired_lines(comparisons: &[Paired]) -> String {
    let mut out = String::new();
    let mut heading = None;
    // A reason every pair shares is said once, after them, not on every line.
    let shared: Vec<&Unmeasured> = match comparisons.split_first() {
        Some((first, rest)) if !rest.is_empty() => first
            .unmeasured
            .iter()
            .filter(|u| rest.iter().all(|c| c.unmeasured.contains(u)))
            .collect(),
        _ => Vec::new(),
    };
    for c in comparisons {
        let head = match c.pairing {
            Pairing::Reference => format!("compared with {}", c.reference),
            Pairing::Neighbours(metric) => format!(
                "each pipeline against the next in the ranking by {}",
                metric.name()
            ),
            Pairing::All => "every pair of pipelines".to_owned(),
        };
        if heading.as_ref() != Some(&head) {
            let _ = writeln!(
                out,
                "\n{head} (difference of means, 95 % paired bootstrap interval; McNemar's exact test on pass/fail):"
            );
            heading = Some(head);
        }
        let name = match c.pairing {
            Pairing::Reference => c.pipeline.clone(),
            _ => format!("{} against {}", c.pipeline, c.reference),
        };
        let mut metrics = String::new();
        for (label, interval) in [
            ("score", &c.score),
            ("EM", &c.exact_match),
            ("ANLS", &c.anls),
        ] {
            if let Some(i) = interval {
                let _ = write!(metrics, "{label} {}  ", interval_text(Some(i)));
            }
        }
        let _ = write!(
            out,
            "  {name} over {} cases: {metrics}passed only by {}: {}, only by {}: {}, p = {:.4}",
            c.cases,
            c.reference,
            c.mcnemar.only_reference,
            c.pipeline,
            c.mcnemar.only_pipeline,
            c.mcnemar.p_value
        );
        let own: Vec<String> = c
            .unmeasured
            .iter()
            .filter(|u| !shared.contains(u))
            .map(unmeasured_text)
            .collect();
        if !own.is_empty() {
            let _ = write!(out, " ({})", own.join("; "));
        }
        out.push('\n');
    }
    if !shared.is_empty() {
        let why: Vec<String> = shared
            .iter()
            .map(|u| unmeasured_text(u).replace("of the pair", "of any pair"))
            .collect();
        let _ = writeln!(out, "  for every pair: {}", why.join("; "));
    }
    out
}

/// `no score: no case of the pair has rubrics`.
pub(crate) fn unmeasured_text(u: &Unmeasured) -> String {
    let name = match u.metric.as_str() {
        "exact_match" => "EM",
        "anls" => "ANLS",
        other => other,
    };
    match u.because {
        Unpaired::NoRubrics => format!("no {name}: no case of the pair has rubrics"),
        Unpaired::NotMeasured => format!("no {name}: no case of the pair measures it for both"),
    }
}

/// The failure message of an aggregate whose bounds failed.
pub fn aggregate_message(
    agg: &Aggregated,
    verdicts: &[ThresholdVerdict],
    slices: &[SliceVerdict],
    gate: Option<&crate::record::RegressionGateRecord>,
) -> Option<String> {
    let gate = gate.and_then(super::gate::gate_failure);
    let bounds = aggregate_bounds_message(agg, verdicts, slices);
    match (bounds, gate) {
        (None, None) => None,
        (Some(m), None) | (None, Some(m)) => Some(m),
        (Some(bounds), Some(gate)) => Some(format!("{bounds}\n{gate}")),
    }
}

/// The failure of an aggregate's bounds and slices, when one failed.
fn aggregate_bounds_message(
    agg: &Aggregated,
    verdicts: &[ThresholdVerdict],
    slices: &[SliceVerdict],
) -> Option<String> {
    let mut failures = failed_bounds(verdicts);
    failures.extend(slices.iter().filter(|s| !s.held).map(slice_failure));
    (!failures.is_empty()).then(|| {
        let mut places: Vec<String> = verdicts
            .iter()
            .filter(|v| !v.held)
            .map(|v| format!("at {}:{} (aggregate.{})", v.file.display(), v.line, v.name))
            .collect();
        for s in slices.iter().filter(|s| !s.held) {
            let key = format!("{}={}", s.tag, s.value);
            match s.thresholds.iter().filter(|t| !t.held).collect::<Vec<_>>() {
                failed if s.cases > 0 => places.extend(failed.iter().map(|t| {
                    format!(
                        "at {}:{} (aggregate.slices.{key}.{})",
                        t.file.display(),
                        t.line,
                        t.name
                    )
                })),
                _ => places.push(format!(
                    "at {}:{} (aggregate.slices.{key})",
                    s.file.display(),
                    s.line
                )),
            }
        }
        format!(
            "aggregate failed over {} case tests ({} passed): {}\n{}\n{}",
            agg.cases,
            agg.passed,
            failures.join("; "),
            aggregate_table(agg),
            places.join("\n")
        )
    })
}

/// `slice lang=fr (2 case tests): min_anls failed: 0.9000 < 0.95`, or the slice that matches
/// no case, with the slices there are.
fn slice_failure(s: &SliceVerdict) -> String {
    let key = format!("{}={}", s.tag, s.value);
    if s.cases == 0 {
        let known: Vec<String> = s.known.iter().map(|(t, v)| format!("{t}={v}")).collect();
        return format!(
            "slice {key} matches no case test, so its bounds measure nothing ({})",
            if known.is_empty() {
                "no case has a tag".to_owned()
            } else {
                format!("the slices of these cases: {}", known.join(", "))
            }
        );
    }
    format!(
        "slice {key} ({} case tests): {}",
        s.cases,
        failed_bounds(&s.thresholds).join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grounding_without_a_box_leaves_out_iou_and_says_why() {
        let pages_only = Aggregated {
            grounded: Some(0.5),
            page_match: Some(0.75),
            ..Aggregated::default()
        };
        let boxes = Aggregated {
            iou: Some(0.25),
            ..pages_only.clone()
        };
        assert_eq!(
            grounding_table(&[("a".to_owned(), pages_only.clone())]),
            "grounding  grounded  page match\n\
             a            0.5000      0.7500\n\
             not measured: IoU (no prediction gives a box)\n"
        );
        // One pipeline with a box draws the column, the other's cell empty.
        assert_eq!(
            grounding_table(&[("a".to_owned(), pages_only), ("b".to_owned(), boxes)]),
            "grounding  grounded      IoU  page match\n\
             a            0.5000        -      0.7500\n\
             b            0.5000   0.2500      0.7500\n"
        );
    }

    /// A reason every compared pair shares is said once, after the pairs; a pair's own reason
    /// stays on its line.
    #[test]
    fn a_reason_every_pair_shares_is_said_once() {
        use crate::evaluate::paired::McNemar;
        let no_score = Unmeasured {
            metric: "score".into(),
            because: Unpaired::NoRubrics,
        };
        let pair = |pipeline: &str, reference: &str, extra: Option<Unmeasured>| Paired {
            pairing: Pairing::Neighbours(crate::model::metric::Metric::Anls),
            unmeasured: std::iter::once(no_score.clone()).chain(extra).collect(),
            pipeline: pipeline.into(),
            reference: reference.into(),
            cases: 4,
            score: None,
            exact_match: None,
            anls: None,
            mcnemar: McNemar {
                only_reference: 0,
                only_pipeline: 0,
                p_value: 1.0,
            },
        };
        let no_em = Unmeasured {
            metric: "exact_match".into(),
            because: Unpaired::NotMeasured,
        };
        let text = paired_lines(&[pair("b", "a", None), pair("c", "b", Some(no_em))]);
        assert_eq!(text.matches("no score").count(), 1, "{text}");
        assert!(text.contains("p = 1.0000\n"), "{text}");
        assert!(
            text.contains("p = 1.0000 (no EM: no case of the pair measures it for both)\n"),
            "{text}"
        );
        assert!(
            text.ends_with("  for every pair: no score: no case of any pair has rubrics\n"),
            "{text}"
        );
        // One pair alone keeps its reason on its line.
        let one = paired_lines(&[pair("b", "a", None)]);
        assert!(
            one.contains("p = 1.0000 (no score: no case of the pair has rubrics)\n"),
            "{one}"
        );
    }
    use crate::model::metric::Metric;

    #[test]
    fn a_failed_bound_never_reads_as_true() {
        let verdict = |value: f64, limit: f64| ThresholdVerdict {
            name: "min_gate_pass_rate".into(),
            metric: Metric::GatePassRate,
            limit,
            value: Some(value),
            held: false,
            is_max: false,
            absent_because: None,
            file: "suite.yaml".into(),
            line: 3,
            column: 3,
        };
        assert_eq!(
            threshold_text(&verdict(0.5, 0.75)),
            "min_gate_pass_rate failed: 0.5000 < 0.75"
        );
        // 5/7 rounds to 0.7143, which is not below 0.714296: every digit is shown.
        assert_eq!(
            threshold_text(&verdict(5.0 / 7.0, 0.714296)),
            "min_gate_pass_rate failed: 0.7142857142857143 < 0.714296"
        );
    }
}
