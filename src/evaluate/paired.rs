//! Pipelines compared with confidence: over the cases both pipelines ran, the
//! difference of mean score, EM and ANLS with a seeded 95 % paired bootstrap interval, and the
//! exact McNemar test on per-case pass/fail.

use std::collections::BTreeMap;

use crate::evaluate::aggregate::{aggregate, percentile};
use crate::evaluate::record::{CaseNumbers, Status};
use crate::metrics::agreement::mcnemar_exact;
use crate::model::metric::{Direction, Metric};
use crate::model::suite::CompareTo;

/// Resamples of the bootstrap.
pub const RESAMPLES: usize = 10_000;

/// The seed of the bootstrap: the same interval on every run and machine.
pub const SEED: u64 = 0x5eed_601d_6a7e;

/// A difference of means (`pipeline` − `reference`) and its 95 % paired bootstrap interval.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Interval {
    /// The observed difference of means over the paired cases.
    pub difference: f64,
    /// The 2.5th percentile of the resampled differences.
    pub low: f64,
    /// The 97.5th percentile.
    pub high: f64,
    /// The cases both pipelines have this metric for.
    pub cases: usize,
}

/// McNemar's exact test on pass/fail of the paired cases.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct McNemar {
    /// Cases the reference passed and the pipeline failed.
    pub only_reference: usize,
    /// Cases the pipeline passed and the reference failed.
    pub only_pipeline: usize,
    /// Two-sided p-value: the binomial test on the discordant pairs (statsmodels'
    /// `mcnemar(exact=True)`), 1 when there are none.
    pub p_value: f64,
}

/// Why a difference of means has no interval.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Unpaired {
    /// No case of the pair has rubrics: the gated score is 1 whatever the predictions say.
    NoRubrics,
    /// No case has the metric for both pipelines.
    NotMeasured,
}

/// A metric of the comparison left without an interval, and why.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Unmeasured {
    /// The metric (`score`, `exact_match`, `anls`).
    pub metric: String,
    /// Why.
    pub because: Unpaired,
}

/// How the pipelines of a suite are paired (`compare_to`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// Each pipeline against one reference (`compare_to: NAME`, else the first declared).
    Reference,
    /// Each pipeline against the next in the ranking by a metric (`compare_to: neighbours`).
    Neighbours(Metric),
    /// Every pair (`compare_to: all`).
    All,
}

/// One pipeline against its reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// How the pair was chosen.
    pub pairing: Pairing,
    /// The metrics left without an interval, and why.
    pub unmeasured: Vec<Unmeasured>,
    /// The pipeline.
    pub pipeline: String,
    /// The pipeline it is compared with.
    pub reference: String,
    /// Cases both ran (skipped ones left out).
    pub cases: usize,
    /// Mean gated score.
    pub score: Option<Interval>,
    /// Mean exact match.
    pub exact_match: Option<Interval>,
    /// Mean ANLS.
    pub anls: Option<Interval>,
    /// Pass/fail.
    pub mcnemar: McNemar,
}

/// Every pipeline against its reference (each case's `reference`), in name order; the cases are
/// paired by name (the test name without `::pipeline`). Under `compare_to: neighbours` each
/// pipeline is compared with the next in the ranking (best first) by the suite's gated metric,
/// and under `compare_to: all` every pair is, the later name against the earlier.
pub fn paired(records: &[CaseNumbers]) -> Vec<Paired> {
    // reference -> pipeline -> case -> numbers
    type Cases<'a> = BTreeMap<&'a str, &'a CaseNumbers>;
    let mut by_case: BTreeMap<&str, BTreeMap<&str, Cases>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.status != Status::Ignored) {
        let (Some(pipeline), Some(reference)) = (r.pipeline.as_deref(), r.reference.as_deref())
        else {
            continue;
        };
        let case = crate::model::test_name::case_of(&r.id, pipeline);
        by_case
            .entry(reference)
            .or_default()
            .entry(pipeline)
            .or_default()
            .insert(case, r);
    }
    let pair = |pairing, pipeline: &str, reference: &str, of: &BTreeMap<&str, Cases>| {
        let (cases, base) = (of.get(pipeline)?, of.get(reference)?);
        let pairs: Vec<(&CaseNumbers, &CaseNumbers)> = cases
            .iter()
            .filter_map(|(case, r)| base.get(case).map(|b| (*b, *r)))
            .collect();
        Some(Paired {
            pairing,
            ..compare_pairs(pipeline, reference, &pairs)
        })
    };
    let mut out = Vec::new();
    for (&reference, pipelines) in &by_case {
        let names: Vec<&str> = pipelines.keys().copied().collect();
        match CompareTo::of(reference) {
            CompareTo::Pipeline(reference) => out.extend(
                names
                    .iter()
                    .filter(|p| **p != reference)
                    .filter_map(|p| pair(Pairing::Reference, p, reference, pipelines)),
            ),
            CompareTo::All => {
                for (i, earlier) in names.iter().enumerate() {
                    out.extend(
                        names[i + 1..]
                            .iter()
                            .filter_map(|later| pair(Pairing::All, later, earlier, pipelines)),
                    );
                }
            }
            CompareTo::Neighbours(metric) => {
                let ranked = ranking(pipelines, metric);
                out.extend(
                    ranked
                        .windows(2)
                        .filter_map(|w| pair(Pairing::Neighbours(metric), w[0], w[1], pipelines)),
                );
            }
        }
    }
    out
}

/// Pipelines best first by the aggregate of `metric` over their cases (those without it last),
/// ties in name order.
fn ranking<'a>(
    pipelines: &BTreeMap<&'a str, BTreeMap<&str, &CaseNumbers>>,
    metric: Metric,
) -> Vec<&'a str> {
    let lower = metric.about().direction == Direction::Lower;
    let mut ranked: Vec<(&str, Option<f64>)> = pipelines
        .iter()
        .map(|(name, cases)| (*name, aggregate(cases.values().copied()).get(metric)))
        .collect();
    ranked.sort_by(|(a, x), (b, y)| match (x, y) {
        (Some(x), Some(y)) if lower => x.total_cmp(y).then(a.cmp(b)),
        (Some(x), Some(y)) => y.total_cmp(x).then(a.cmp(b)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    });
    ranked.into_iter().map(|(name, _)| name).collect()
}

/// The comparison of paired cases: (reference's numbers, pipeline's numbers).
pub fn compare_pairs(
    pipeline: &str,
    reference: &str,
    pairs: &[(&CaseNumbers, &CaseNumbers)],
) -> Paired {
    let mut unmeasured = Vec::new();
    let mut metric = |name: &str, get: &dyn Fn(&CaseNumbers) -> Option<f64>| {
        let differences: Vec<f64> = pairs
            .iter()
            .filter_map(|(b, p)| Some(get(p)? - get(b)?))
            .collect();
        let interval = bootstrap(&differences);
        if interval.is_none() {
            let has_rubrics =
                |r: &CaseNumbers| r.rubrics.is_some_and(|t| t.must_right + t.easy_wrong > 0);
            // With no case paired at all, nothing says the cases lack rubrics.
            let because = if name == "score"
                && !pairs.is_empty()
                && !pairs.iter().any(|(b, p)| has_rubrics(b) || has_rubrics(p))
            {
                Unpaired::NoRubrics
            } else {
                Unpaired::NotMeasured
            };
            unmeasured.push(Unmeasured {
                metric: name.to_owned(),
                because,
            });
        }
        interval
    };
    // A case without rubrics has a score of 1 whatever its prediction: it measures nothing.
    let score = metric("score", &|r| {
        r.rubrics
            .filter(|t| t.must_right + t.easy_wrong > 0)
            .map(|t| t.score)
    });
    let exact_match = metric("exact_match", &|r| {
        r.metrics.as_ref()?.metrics().exact_match
    });
    let anls = metric("anls", &|r| r.metrics.as_ref()?.metrics().anls);
    Paired {
        pairing: Pairing::Reference,
        unmeasured,
        pipeline: pipeline.to_owned(),
        reference: reference.to_owned(),
        cases: pairs.len(),
        score,
        exact_match,
        anls,
        mcnemar: McNemar::of(pairs),
    }
}

impl McNemar {
    /// McNemar's exact test on the pass/fail of paired tests (reference first): the pairs
    /// only one side passed, and the binomial test on them. A known failure has not passed.
    pub(crate) fn of(pairs: &[(&CaseNumbers, &CaseNumbers)]) -> McNemar {
        let passed = |r: &CaseNumbers| r.status == Status::Passed;
        let only = |first: bool| {
            pairs
                .iter()
                .filter(|(b, p)| passed(b) == first && passed(p) != first)
                .count()
        };
        let (only_reference, only_pipeline) = (only(true), only(false));
        McNemar {
            only_reference,
            only_pipeline,
            p_value: mcnemar_exact(only_reference, only_pipeline),
        }
    }
}

/// The mean of paired differences with its 95 % percentile bootstrap interval: [`RESAMPLES`]
/// resamples of the cases with replacement, drawn by a seeded generator.
pub fn bootstrap(differences: &[f64]) -> Option<Interval> {
    bootstrap_at(differences, 0.95)
}

/// As [`bootstrap`], the interval at `level` (the gate's `confidence`): the same resamples.
pub fn bootstrap_at(differences: &[f64], level: f64) -> Option<Interval> {
    if differences.is_empty() {
        return None;
    }
    let n = differences.len();
    let mean = |xs: &mut dyn Iterator<Item = f64>| xs.sum::<f64>() / n as f64;
    let difference = mean(&mut differences.iter().copied());
    // 0.95 exactly as written, not 1 − 0.95 in floating point.
    let tail = if level == 0.95 {
        0.025
    } else {
        (1.0 - level) / 2.0
    };
    let mut rng = SplitMix64(SEED);
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| mean(&mut (0..n).map(|_| differences[rng.below(n)])))
        .collect();
    means.sort_by(f64::total_cmp);
    Some(Interval {
        difference,
        low: percentile(&means, tail)?,
        high: percentile(&means, 1.0 - tail)?,
        cases: n,
    })
}

/// SplitMix64 (Steele, Lea and Flood): small, fast, and the same stream everywhere.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (Lemire's multiply-shift; its bias is below 2^-40 for any n a gold set has).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bootstrap_interval_holds_the_observed_difference_and_is_reproducible() {
        let d = [0.5, 0.0, 0.25, 0.0, -0.25, 0.5, 0.0, 0.25];
        let a = bootstrap(&d).unwrap();
        assert_eq!(a.difference, 0.15625);
        assert!(a.low <= a.difference && a.difference <= a.high, "{a:?}");
        assert!(a.low > -0.25 && a.high < 0.5, "{a:?}");
        assert_eq!(bootstrap(&d), Some(a));
        // No variation, no width.
        let flat = bootstrap(&[0.5; 5]).unwrap();
        assert_eq!((flat.low, flat.high), (0.5, 0.5));
        assert_eq!(bootstrap(&[]), None);
    }

    /// Two pipelines with no case in common measured nothing: that is the reason given, not
    /// that their cases lack rubrics.
    #[test]
    fn no_paired_case_is_said_as_nothing_measured() {
        let compared = compare_pairs("b", "a", &[]);
        let reasons: Vec<(&str, Unpaired)> = compared
            .unmeasured
            .iter()
            .map(|u| (u.metric.as_str(), u.because))
            .collect();
        assert_eq!(
            reasons,
            [
                ("score", Unpaired::NotMeasured),
                ("exact_match", Unpaired::NotMeasured),
                ("anls", Unpaired::NotMeasured)
            ]
        );
    }
}
