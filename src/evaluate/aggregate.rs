//! A suite's aggregate metrics over its cases (SPEC §7), and the comparison of pipelines.

use crate::evaluate::outcome::{Outcome, ThresholdVerdict};
use crate::load::DEFAULT_ECE_BINS;
use crate::metrics::{brier, ece};
use crate::model::metric::{Metric, Threshold};

/// Aggregate metrics: case means (each case weighs the same), Brier and ECE pooled over every
/// field with a confidence, latency percentiles, cost, pass rate.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Aggregated {
    /// Case tests counted (skipped ones are not).
    pub cases: usize,
    /// Of which passed.
    pub passed: usize,
    /// Mean EM.
    pub exact_match: Option<f64>,
    /// Mean ANLS.
    pub anls: Option<f64>,
    /// Mean critical EM.
    pub exact_critical: Option<f64>,
    /// Mean critical ANLS.
    pub anls_critical: Option<f64>,
    /// Mean field-level F1.
    pub f1: Option<f64>,
    /// Pooled Brier score.
    pub brier: Option<f64>,
    /// Pooled ECE (5 bins).
    pub ece: Option<f64>,
    /// Median latency.
    pub latency_p50: Option<f64>,
    /// 95th percentile of latency.
    pub latency_p95: Option<f64>,
    /// Mean cost of a case.
    pub cost_usd: Option<f64>,
    /// Total cost.
    pub cost_total_usd: Option<f64>,
    /// Share of case tests that passed.
    pub pass_rate: Option<f64>,
}

/// Aggregates case results: `(passed, outcome)` per case test, the outcome `None` when the case
/// could not be scored (it then counts as failed).
pub fn aggregate<'a>(results: impl IntoIterator<Item = (bool, Option<&'a Outcome>)>) -> Aggregated {
    let results: Vec<(bool, Option<&Outcome>)> = results.into_iter().collect();
    let outcomes: Vec<&Outcome> = results.iter().filter_map(|(_, o)| *o).collect();
    let mean = |get: &dyn Fn(&Outcome) -> Option<f64>| {
        let values: Vec<f64> = outcomes.iter().filter_map(|o| get(o)).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let (p, o): (Vec<f64>, Vec<bool>) = outcomes
        .iter()
        .flat_map(|out| {
            out.fields
                .iter()
                .filter_map(|f| f.confidence.map(|c| (c, f.em == 1.0)))
        })
        .unzip();
    let mut latencies: Vec<f64> = outcomes
        .iter()
        .filter_map(|o| o.metrics.latency_ms)
        .collect();
    latencies.sort_by(f64::total_cmp);
    let costs: Vec<f64> = outcomes.iter().filter_map(|o| o.metrics.cost_usd).collect();
    let passed = results.iter().filter(|(p, _)| *p).count();
    Aggregated {
        cases: results.len(),
        passed,
        exact_match: mean(&|o| o.metrics.exact_match),
        anls: mean(&|o| o.metrics.anls),
        exact_critical: mean(&|o| o.metrics.exact_critical),
        anls_critical: mean(&|o| o.metrics.anls_critical),
        f1: mean(&|o| o.metrics.f1),
        brier: brier(&p, &o),
        ece: ece(&p, &o, DEFAULT_ECE_BINS),
        latency_p50: percentile(&latencies, 0.50),
        latency_p95: percentile(&latencies, 0.95),
        cost_usd: (!costs.is_empty()).then(|| costs.iter().sum::<f64>() / costs.len() as f64),
        cost_total_usd: (!costs.is_empty()).then(|| costs.iter().sum()),
        pass_rate: (!results.is_empty()).then(|| passed as f64 / results.len() as f64),
    }
}

/// The q-th percentile with linear interpolation between closest ranks (numpy's default).
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64))
}

impl Aggregated {
    /// The verdicts of aggregate thresholds.
    pub fn judge(&self, thresholds: &[Threshold]) -> Vec<ThresholdVerdict> {
        thresholds
            .iter()
            .map(|t| {
                let value = match t.metric {
                    Metric::ExactMatch => self.exact_match,
                    Metric::Anls => self.anls,
                    Metric::ExactCritical => self.exact_critical,
                    Metric::AnlsCritical => self.anls_critical,
                    Metric::Brier => self.brier,
                    Metric::Ece => self.ece,
                    Metric::PassRate => self.pass_rate,
                    Metric::F1 => self.f1,
                    Metric::LatencyMs => self.latency_p95,
                    Metric::CostUsd => self.cost_usd,
                    _ => None,
                };
                ThresholdVerdict::of(t, value, || {
                    format!("no case of the suite measures {}", t.metric.name())
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn percentile_interpolates() {
        assert_eq!(percentile(&[100.0, 200.0, 300.0, 400.0], 0.5), Some(250.0));
        assert_eq!(percentile(&[], 0.95), None);
    }
}
