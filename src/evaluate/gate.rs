//! The regression gate (`regression_gate`): this run's case values against the baseline's over
//! the cases both have, the seeded paired bootstrap of the comparison of pipelines, the smallest
//! drop the gold set can detect, and the gate's false-alarm rate between repeated attempts.

use crate::evaluate::paired::{Interval, bootstrap_at};
use crate::evaluate::record::CaseNumbers;
use crate::metrics::power::{detectable_drop, sample_sd};
use crate::model::metric::{Direction, Metric};
use crate::model::suite::RegressionGate;

/// The power the detectable drop is given at.
pub const POWER: f64 = 0.8;

/// The most cases a failed gate lists.
const DROPPED_LISTED: usize = 5;

/// One case's value in the baseline and in this run.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// The test.
    pub test: String,
    /// The baseline's value.
    pub old: f64,
    /// This run's.
    pub new: f64,
}

/// Where the spread the detectable drop is computed from comes from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Spread {
    /// The paired differences of this run and the baseline.
    Differences,
    /// The baseline's values, when the differences have no spread yet (a run equal to its
    /// baseline).
    Baseline,
    /// Neither varies: the figure is `min_effect`, a lower bound (the next run's noise is not
    /// known yet).
    None,
}

/// The smallest drop the gate detects at [`POWER`].
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Power {
    /// The smallest true mean drop detected with probability `power`, in the metric's units.
    pub detectable_drop: f64,
    /// The power (0.8).
    pub power: f64,
    /// The cases paired.
    pub cases: usize,
    /// The standard deviation it is computed from.
    pub sd: f64,
    /// Which values that deviation is of.
    pub spread: Spread,
}

/// The gate between repeated attempts of the same pipeline (A/A): pairs of attempts it calls
/// different although nothing changed.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct FalseAlarms {
    /// Pairs of attempts compared (attempt i against attempt j over the repeated cases).
    pub pairs: usize,
    /// Of which the gate calls different (a drop or a rise of at least `min_effect`, the
    /// interval wholly on one side of zero).
    pub alarms: usize,
    /// alarms / pairs.
    pub rate: f64,
}

/// What the gate found for one pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct GateVerdict {
    /// The metric compared.
    pub metric: Metric,
    /// The gate's `min_effect`.
    pub min_effect: f64,
    /// The gate's `confidence`.
    pub confidence: f64,
    /// The mean of this run's value minus the baseline's, with its interval; `None` when no
    /// case is in both.
    pub difference: Option<Interval>,
    /// Whether the gate holds.
    pub held: bool,
    /// The cases that dropped most, largest drop first (those that dropped).
    pub dropped_most: Vec<Pair>,
    /// This run's cases without a value in the baseline (new, or the metric unmeasured).
    pub unpaired: usize,
    /// The cases whose baseline entry has no value of the gated metric (an entry blessed when
    /// the gate was on another metric), in name order: the gate fails, for comparing the rest
    /// alone would judge a few cases as if they were all.
    pub lacking: Vec<String>,
    /// This run's cases that have an entry in the baseline, with the metric or without.
    pub entries: usize,
    /// This run's cases that have a value of the metric (a case that could not be scored has
    /// its worst).
    pub measured: usize,
    /// This run's paired cases that could not be scored (a call that crashed, a prediction that
    /// could not be read), counted at the metric's worst, in name order: a drop they make is
    /// theirs to fix, not values to accept.
    pub unscored: Vec<String>,
    /// The smallest drop the gold set can detect.
    pub power: Option<Power>,
    /// The gate between repeated attempts, when cases were repeated.
    pub false_alarms: Option<FalseAlarms>,
    /// Why the baseline could not be compared with (missing, unreadable): the gate fails.
    pub baseline_error: Option<String>,
    /// The baseline file.
    pub baseline: String,
    /// The command that accepts this run's values as the baseline.
    pub accept: String,
    /// Where `regression_gate:` is written.
    pub at: (String, u64),
}

/// A case's value of a metric, the gated score included.
pub fn case_value(numbers: &CaseNumbers, metric: Metric) -> Option<f64> {
    match metric {
        Metric::Score => numbers.rubrics.map(|t| t.score),
        m => numbers.metrics.as_ref().and_then(|x| x.metrics().get(m)),
    }
}

/// A drop in the metric's own sense: a fall of a metric better high, a rise of one better low.
fn drop_of(metric: Metric, difference: f64) -> f64 {
    match metric.about().direction {
        Direction::Higher => -difference,
        Direction::Lower => difference,
    }
}

/// Whether differences with this interval are a drop the gate fails on.
fn fires(gate_metric: Metric, min_effect: f64, i: &Interval) -> bool {
    let drop = drop_of(gate_metric, i.difference);
    let beyond_zero = match gate_metric.about().direction {
        Direction::Higher => i.high < 0.0,
        Direction::Lower => i.low > 0.0,
    };
    drop >= min_effect - crate::model::metric::SLACK && beyond_zero
}

/// A gate that could not compare: its baseline is missing or does not read.
pub fn without_baseline(gate: &RegressionGate, why: String, accept: String) -> GateVerdict {
    GateVerdict {
        baseline_error: Some(why),
        accept,
        ..judge(gate, &[], 0, 0, &[])
    }
}

/// Judges one pipeline's pairs; `measured`: its cases with a value of the metric; `attempts`:
/// its repeated cases' per-attempt values.
pub fn judge(
    gate: &RegressionGate,
    pairs: &[Pair],
    unpaired: usize,
    measured: usize,
    attempts: &[Vec<Option<f64>>],
) -> GateVerdict {
    let differences: Vec<f64> = pairs.iter().map(|p| p.new - p.old).collect();
    let difference = bootstrap_at(&differences, gate.confidence);
    let held = !difference
        .as_ref()
        .is_some_and(|i| fires(gate.metric, gate.min_effect, i))
        && difference.is_some();
    let mut dropped: Vec<Pair> = pairs
        .iter()
        .filter(|p| drop_of(gate.metric, p.new - p.old) > 0.0)
        .cloned()
        .collect();
    dropped.sort_by(|a, b| {
        drop_of(gate.metric, b.new - b.old)
            .total_cmp(&drop_of(gate.metric, a.new - a.old))
            .then_with(|| a.test.cmp(&b.test))
    });
    dropped.truncate(DROPPED_LISTED);
    GateVerdict {
        metric: gate.metric,
        min_effect: gate.min_effect,
        confidence: gate.confidence,
        difference,
        held,
        dropped_most: dropped,
        unpaired,
        lacking: Vec::new(),
        entries: 0,
        measured,
        unscored: Vec::new(),
        power: power(gate, pairs),
        false_alarms: false_alarms(gate, attempts),
        baseline_error: None,
        baseline: gate.baseline.file.display().to_string(),
        accept: String::new(),
        at: (gate.at.0.display().to_string(), gate.at.1.line),
    }
}

impl GateVerdict {
    /// With the cases that have a baseline entry (`entries`) and those of them whose entry
    /// lacks the gated metric (`lacking`): any such case fails the gate.
    pub fn with_entries(self, entries: usize, mut lacking: Vec<String>) -> GateVerdict {
        lacking.sort();
        GateVerdict {
            held: self.held && lacking.is_empty(),
            lacking,
            entries,
            ..self
        }
    }

    /// With the paired cases that could not be scored (`unscored`).
    pub fn with_unscored(self, mut unscored: Vec<String>) -> GateVerdict {
        unscored.sort();
        GateVerdict { unscored, ..self }
    }
}

/// The smallest drop detected at [`POWER`]: from the spread of the paired differences, else of
/// the baseline's values; `None` under two paired cases.
fn power(gate: &RegressionGate, pairs: &[Pair]) -> Option<Power> {
    let differences: Vec<f64> = pairs.iter().map(|p| p.new - p.old).collect();
    let olds: Vec<f64> = pairs.iter().map(|p| p.old).collect();
    let (sd, spread) = match sample_sd(&differences)? {
        sd if sd > 0.0 => (sd, Spread::Differences),
        _ => match sample_sd(&olds)? {
            sd if sd > 0.0 => (sd, Spread::Baseline),
            _ => (0.0, Spread::None),
        },
    };
    Some(Power {
        detectable_drop: detectable_drop(pairs.len(), sd, gate.confidence, gate.min_effect, POWER),
        power: POWER,
        cases: pairs.len(),
        sd,
        spread,
    })
}

/// Every pair of attempts (i < j) of the repeated cases, attempt j against attempt i over the
/// cases that have both values: the share the gate would call different, in either direction.
fn false_alarms(gate: &RegressionGate, attempts: &[Vec<Option<f64>>]) -> Option<FalseAlarms> {
    let k = attempts.iter().map(Vec::len).max()?;
    if k < 2 {
        return None;
    }
    let (mut pairs, mut alarms) = (0, 0);
    for i in 0..k {
        for j in i + 1..k {
            let differences: Vec<f64> = attempts
                .iter()
                .filter_map(|values| Some(values.get(j).copied()?? - values.get(i).copied()??))
                .collect();
            let Some(interval) = bootstrap_at(&differences, gate.confidence) else {
                continue;
            };
            pairs += 1;
            let beyond = interval.high < 0.0 || interval.low > 0.0;
            if beyond && interval.difference.abs() >= gate.min_effect - crate::model::metric::SLACK
            {
                alarms += 1;
            }
        }
    }
    (pairs > 0).then(|| FalseAlarms {
        pairs,
        alarms,
        rate: alarms as f64 / pairs as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::suite::BaselineSpec;
    use std::sync::Arc;

    fn gate(metric: Metric, min_effect: f64) -> RegressionGate {
        RegressionGate {
            metric,
            min_effect,
            confidence: 0.95,
            baseline: Arc::new(BaselineSpec {
                file: "baseline.json".into(),
                tolerance: 0.0,
                per_case: false,
                suite_file: "suite.yaml".into(),
                at: Default::default(),
                fail_on: Default::default(),
                gated: None,
            }),
            at: ("suite.yaml".into(), Default::default()),
        }
    }

    fn pairs(values: &[(f64, f64)]) -> Vec<Pair> {
        values
            .iter()
            .enumerate()
            .map(|(i, &(old, new))| Pair {
                test: format!("c{i:02}"),
                old,
                new,
            })
            .collect()
    }

    #[test]
    fn one_slipped_case_of_forty_holds_and_a_broad_drop_fails() {
        let mut one = vec![(0.9, 0.9); 40];
        one[7] = (0.9, 0.4);
        let v = judge(&gate(Metric::Anls, 0.02), &pairs(&one), 0, 40, &[]);
        assert!(v.held, "{v:?}");
        assert_eq!(v.dropped_most.len(), 1);
        let mut broad: Vec<(f64, f64)> = (0..40)
            .map(|i| (0.9, if i < 30 { 0.85 } else { 0.9 }))
            .collect();
        broad[0] = (0.9, 0.8);
        let v = judge(&gate(Metric::Anls, 0.02), &pairs(&broad), 0, 40, &[]);
        assert!(!v.held, "{v:?}");
        let i = v.difference.unwrap();
        assert!(i.high < 0.0 && (i.difference - (-(0.05 * 29.0 + 0.1) / 40.0)).abs() < 1e-12);
        assert_eq!(v.dropped_most[0].test, "c00");
        assert_eq!(v.dropped_most.len(), 5);
    }

    #[test]
    fn a_metric_better_low_drops_when_it_rises() {
        let rise: Vec<(f64, f64)> = (0..30)
            .map(|i| (0.1, 0.2 + f64::from(i % 3) * 0.01))
            .collect();
        assert!(!judge(&gate(Metric::Brier, 0.02), &pairs(&rise), 0, 30, &[]).held);
        let fall: Vec<(f64, f64)> = (0..30)
            .map(|i| (0.2, 0.1 + f64::from(i % 3) * 0.01))
            .collect();
        assert!(judge(&gate(Metric::Brier, 0.02), &pairs(&fall), 0, 30, &[]).held);
    }

    #[test]
    fn a_gate_with_nothing_paired_does_not_hold() {
        let v = judge(&gate(Metric::Anls, 0.02), &[], 3, 3, &[]);
        assert!(!v.held && v.difference.is_none() && v.power.is_none());
    }

    #[test]
    fn the_spread_is_of_the_differences_else_of_the_baseline() {
        let same = pairs(&[(0.5, 0.5), (0.7, 0.7), (0.9, 0.9)]);
        let p = judge(&gate(Metric::Anls, 0.0), &same, 0, 3, &[])
            .power
            .unwrap();
        assert_eq!((p.spread, p.sd), (Spread::Baseline, 0.2));
        let moved = pairs(&[(0.5, 0.4), (0.7, 0.7), (0.9, 0.9)]);
        let p = judge(&gate(Metric::Anls, 0.0), &moved, 0, 3, &[])
            .power
            .unwrap();
        assert_eq!(p.spread, Spread::Differences);
    }

    #[test]
    fn attempts_that_agree_raise_no_alarm_and_a_shifted_one_does() {
        let steady = vec![vec![Some(0.9), Some(0.9), Some(0.9)]; 20];
        let f = judge(&gate(Metric::Anls, 0.02), &[], 0, 0, &steady)
            .false_alarms
            .unwrap();
        assert_eq!((f.pairs, f.alarms), (3, 0));
        // Attempt 3 is lower on every case: pairs (1,3) and (2,3) are called different.
        let shifted: Vec<Vec<Option<f64>>> = (0..20)
            .map(|i| vec![Some(0.9), Some(0.9 - f64::from(i % 2) * 0.001), Some(0.7)])
            .collect();
        let f = judge(&gate(Metric::Anls, 0.02), &[], 0, 0, &shifted)
            .false_alarms
            .unwrap();
        assert_eq!((f.pairs, f.alarms), (3, 2));
        assert!((f.rate - 2.0 / 3.0).abs() < 1e-15);
    }
}
