//! The comparison table of pipelines and the lines of an aggregate.

use std::fmt::Write;

use super::num;
use crate::evaluate::aggregate::Aggregated;
use crate::evaluate::outcome::ThresholdVerdict;
use crate::evaluate::paired::{Interval, Paired};
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
    format!(
        "  EM {em}  ANLS {anls}  critical EM {crit_em}  critical ANLS {crit_anls}  Brier {brier}  ECE {ece}\n  latency p50 {p50} ms  p95 {p95} ms  cost {cost} per case  pass rate {}\n  gate pass rate {gate}  mean score {score}  Must-Right accuracy {mr}  Easy-Wrong accuracy {ew}\n",
        num(a.pass_rate),
    )
}

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.0}"))
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
        a.pass_rate
            .map_or_else(|| "-".into(), |r| format!("{:.0}%", r * 100.0)),
        num(a.gate_pass_rate),
        num(a.mean_score),
        num(a.must_right_accuracy),
        num(a.easy_wrong_accuracy),
    ]
}

/// One row per pipeline: mean EM, ANLS, critical EM and ANLS, Brier, ECE, p50/p95 latency, cost,
/// pass rate.
pub fn comparison_table(rows: &[(String, Aggregated)]) -> String {
    let width = rows
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>10}  {:>5}  {:>7}  {:>7}  {:>7}  {:>7}",
        "pipeline",
        "EM",
        "ANLS",
        "crit.EM",
        "c.ANLS",
        "Brier",
        "ECE",
        "p50 ms",
        "p95 ms",
        "cost/case",
        "pass",
        "gate",
        "score",
        "MR acc",
        "EW acc"
    );
    for (name, a) in rows {
        let [
            em,
            anls,
            cem,
            canls,
            brier,
            ece,
            p50,
            p95,
            cost,
            pass,
            gate,
            score,
            mr,
            ew,
        ] = comparison_cells(a);
        let _ = writeln!(
            out,
            "{name:<width$}  {em:>7}  {anls:>7}  {cem:>7}  {canls:>7}  {brier:>7}  {ece:>7}  {p50:>7}  {p95:>7}  {cost:>10}  {pass:>5}  {gate:>7}  {score:>7}  {mr:>7}  {ew:>7}",
        );
    }
    out
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
/// paired bootstrap interval, and McNemar's exact p-value on pass/fail.
pub fn paired_lines(comparisons: &[Paired]) -> String {
    let mut out = String::new();
    let mut reference = None;
    for c in comparisons {
        if reference != Some(&c.reference) {
            let _ = writeln!(
                out,
                "\ncompared with {} (difference of means, 95 % paired bootstrap interval; McNemar's exact test on pass/fail):",
                c.reference
            );
            reference = Some(&c.reference);
        }
        let _ = writeln!(
            out,
            "  {} over {} cases: score {}  EM {}  ANLS {}  passed only by {}: {}, only by {}: {}, p = {:.4}",
            c.pipeline,
            c.cases,
            interval_text(c.score.as_ref()),
            interval_text(c.exact_match.as_ref()),
            interval_text(c.anls.as_ref()),
            c.reference,
            c.mcnemar.only_reference,
            c.pipeline,
            c.mcnemar.only_pipeline,
            c.mcnemar.p_value
        );
    }
    out
}

/// The failure message of an aggregate whose bounds failed.
pub fn aggregate_message(agg: &Aggregated, verdicts: &[ThresholdVerdict]) -> Option<String> {
    let failures = failed_bounds(verdicts);
    (!failures.is_empty()).then(|| {
        format!(
            "aggregate failed over {} case tests ({} passed): {}\n{}\n{}",
            agg.cases,
            agg.passed,
            failures.join("; "),
            aggregate_table(agg),
            verdicts
                .iter()
                .filter(|v| !v.held)
                .map(|v| format!("at {}:{} (aggregate.{})", v.file.display(), v.line, v.name))
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
