//! From confidence to a decision: "accept automatically when confidence ≥ t", the share of
//! values it accepts and the error rate among them, bounded with Wilson's interval.

use std::collections::BTreeMap;

/// The normal quantile of a two-sided 95 % interval, Φ⁻¹(0.975) (scipy's
/// `norm.isf(0.025)`, which statsmodels' `proportion_confint` uses).
pub const Z_95: f64 = 1.959_963_984_540_054_5;

/// The error rate automatic acceptance may not exceed by default (`target_error`).
pub const DEFAULT_TARGET_ERROR: f64 = 0.01;

/// The upper end of the two-sided 95 % Wilson score interval of `errors` in `n`, computed as
/// statsmodels' `proportion_confint(errors, n, alpha=0.05, method="wilson")` does; 1 when
/// nothing is counted.
///
/// ```
/// use goldgate::metrics::acceptance::wilson_upper;
/// // No error in 100 values: the error rate is 0, but as high as z²/(n + z²) is not ruled out.
/// let z2 = goldgate::metrics::acceptance::Z_95.powi(2);
/// assert!((wilson_upper(0, 100) - z2 / (100.0 + z2)).abs() < 1e-15);
/// assert_eq!(wilson_upper(0, 0), 1.0);
/// ```
pub fn wilson_upper(errors: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let (n, q) = (n as f64, errors as f64 / n as f64);
    let crit2 = Z_95 * Z_95;
    let denom = 1.0 + crit2 / n;
    let center = (q + crit2 / (2.0 * n)) / denom;
    let dist = Z_95 * (q * (1.0 - q) / n + crit2 / (4.0 * n * n)).sqrt() / denom;
    center + dist
}

/// The values of one field with a confidence, counted by confidence: as many distinct entries
/// as distinct confidences, however many values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    // A confidence's bits order as the confidence does: it is never negative.
    by_confidence: BTreeMap<u64, (usize, usize)>,
}

/// One point of the acceptance curve: what accepting every value of confidence ≥ `threshold`
/// gives (as the report keeps it).
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct AcceptancePoint {
    /// The threshold t: a confidence some value has.
    pub threshold: f64,
    /// Values with a confidence ≥ t.
    pub accepted: usize,
    /// Their share of all the values: the automation rate at t.
    pub share: f64,
    /// The wrong values among them.
    pub errors: usize,
    /// `errors / accepted`.
    pub error_rate: f64,
    /// The upper end of the two-sided 95 % Wilson interval of the error rate.
    pub error_upper: f64,
}

impl Tally {
    /// Counts one value of confidence `p` (in [0, 1]), right or wrong.
    pub fn add(&mut self, p: f64, correct: bool) {
        let entry = self.by_confidence.entry(p.abs().to_bits()).or_default();
        entry.0 += 1;
        entry.1 += usize::from(!correct);
    }

    /// Adds another tally.
    pub fn add_all(&mut self, other: &Tally) {
        for (bits, (n, errors)) in &other.by_confidence {
            let entry = self.by_confidence.entry(*bits).or_default();
            entry.0 += n;
            entry.1 += errors;
        }
    }

    /// Values counted.
    pub fn values(&self) -> usize {
        self.by_confidence.values().map(|(n, _)| n).sum()
    }

    /// The acceptance curve: a point per distinct confidence, lowest threshold first.
    pub fn curve(&self) -> Vec<AcceptancePoint> {
        let total = self.values();
        let (mut accepted, mut errors) = (0, 0);
        let mut points: Vec<AcceptancePoint> = self
            .by_confidence
            .iter()
            .rev()
            .map(|(bits, (n, e))| {
                accepted += n;
                errors += e;
                AcceptancePoint {
                    threshold: f64::from_bits(*bits),
                    accepted,
                    share: accepted as f64 / total as f64,
                    errors,
                    error_rate: errors as f64 / accepted as f64,
                    error_upper: wilson_upper(errors, accepted),
                }
            })
            .collect();
        points.reverse();
        points
    }
}

/// The smallest threshold whose error bound is at most `target`: the point that accepts the
/// most values while the error rate is bounded; `None` when no threshold bounds it.
pub fn advised(curve: &[AcceptancePoint], target: f64) -> Option<AcceptancePoint> {
    curve.iter().find(|p| p.error_upper <= target).copied()
}

/// Which values a threshold t accepts.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Accept {
    /// Confidence ≥ t, as the acceptance curve and its advice read it.
    #[default]
    AtLeast,
    /// Confidence > t, as benchmarks that approve "above the threshold" read it (nn-auto-bench).
    Above,
}

/// What the share of accepted values is a share of.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ShareOf {
    /// The values with a confidence.
    #[default]
    Values,
    /// Every gold field of the cases, with a confidence or not: the labels queried.
    Labels,
}

/// A suite's `acceptance:`: the thresholds at which every field's values are pooled, which of
/// them a threshold accepts, and what the approval rate is a share of.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pooling {
    /// The thresholds, as written.
    pub thresholds: Vec<f64>,
    /// Which values a threshold accepts.
    pub accept: Accept,
    /// What the approval rate is a share of.
    pub share_of: ShareOf,
}

/// What accepting every field's values at one threshold gives, pooled over the fields.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct PooledPoint {
    /// The threshold t.
    pub threshold: f64,
    /// Which values it accepts: confidence ≥ t (`at_least`) or > t (`above`).
    pub accept: Accept,
    /// What `approval_rate` is a share of.
    pub share_of: ShareOf,
    /// The values it accepts, over every field.
    pub accepted: usize,
    /// The denominator: the values with a confidence, or the gold labels, as `share_of` says.
    pub of: usize,
    /// `accepted / of`; absent when `of` is 0.
    pub approval_rate: Option<f64>,
    /// The wrong values among those accepted.
    pub errors: usize,
    /// `(accepted − errors) / accepted`; absent when nothing is accepted.
    pub precision: Option<f64>,
    /// The upper end of the two-sided 95 % Wilson interval of the error rate (1 when nothing
    /// is accepted).
    pub error_upper: f64,
}

impl Tally {
    /// The values accepted at `threshold` and the wrong ones among them.
    ///
    /// ```
    /// use goldgate::metrics::acceptance::{Accept, Tally};
    /// let mut t = Tally::default();
    /// t.add(0.99, true);
    /// t.add(0.99, false);
    /// t.add(1.0, true);
    /// assert_eq!(t.accepted_at(0.99, Accept::AtLeast), (3, 1));
    /// assert_eq!(t.accepted_at(0.99, Accept::Above), (1, 0));
    /// ```
    pub fn accepted_at(&self, threshold: f64, accept: Accept) -> (usize, usize) {
        use std::ops::Bound::{Excluded, Included, Unbounded};
        // A threshold below 0 accepts every value, whose bits are those of a non-negative number.
        let from = match accept {
            _ if threshold < 0.0 => Unbounded,
            Accept::AtLeast => Included(threshold.to_bits()),
            Accept::Above => Excluded(threshold.to_bits()),
        };
        self.by_confidence
            .range((from, Unbounded))
            .fold((0, 0), |(n, e), (_, (k, errors))| (n + k, e + errors))
    }
}

/// Every field's values pooled at each of `pooling`'s thresholds, in their written order;
/// `labels` is the number of gold fields the values belong to, read when the approval rate is
/// a share of them.
///
/// ```
/// use goldgate::metrics::acceptance::{Accept, Pooling, ShareOf, Tally, pooled};
/// let (mut total, mut date) = (Tally::default(), Tally::default());
/// total.add(0.99, true);
/// date.add(1.0, true);
/// date.add(1.0, false);
/// let pooling = Pooling { thresholds: vec![0.99], accept: Accept::Above, share_of: ShareOf::Labels };
/// let p = pooled([&total, &date], 4, &pooling)[0];
/// assert_eq!((p.accepted, p.of, p.errors), (2, 4, 1));
/// assert_eq!((p.approval_rate, p.precision), (Some(0.5), Some(0.5)));
/// ```
pub fn pooled<'a>(
    tallies: impl IntoIterator<Item = &'a Tally>,
    labels: usize,
    pooling: &Pooling,
) -> Vec<PooledPoint> {
    let tallies: Vec<&Tally> = tallies.into_iter().collect();
    let of = match pooling.share_of {
        ShareOf::Values => tallies.iter().map(|t| t.values()).sum(),
        ShareOf::Labels => labels,
    };
    pooling
        .thresholds
        .iter()
        .map(|&threshold| {
            let (accepted, errors) = tallies
                .iter()
                .map(|t| t.accepted_at(threshold, pooling.accept))
                .fold((0, 0), |(n, e), (k, f)| (n + k, e + f));
            PooledPoint {
                threshold,
                accept: pooling.accept,
                share_of: pooling.share_of,
                accepted,
                of,
                approval_rate: (of > 0).then(|| accepted as f64 / of as f64),
                errors,
                precision: (accepted > 0).then(|| (accepted - errors) as f64 / accepted as f64),
                error_upper: wilson_upper(errors, accepted),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_accepts_from_each_distinct_confidence() {
        let mut t = Tally::default();
        for (p, right) in [
            (0.9, true),
            (0.5, false),
            (0.9, true),
            (0.7, true),
            (0.5, true),
        ] {
            t.add(p, right);
        }
        let curve = t.curve();
        let points: Vec<(f64, usize, usize)> = curve
            .iter()
            .map(|p| (p.threshold, p.accepted, p.errors))
            .collect();
        assert_eq!(points, [(0.5, 5, 1), (0.7, 3, 0), (0.9, 2, 0)]);
        assert_eq!((curve[0].share, curve[0].error_rate), (1.0, 0.2));
        assert_eq!(curve[2].share, 0.4);
        // Bounds: 1 error in 5, 0.6244; none in 3, z²/(3 + z²) = 0.5615; none in 2, 0.6576.
        let z2 = Z_95 * Z_95;
        assert!((curve[1].error_upper - z2 / (3.0 + z2)).abs() < 1e-15);
        assert_eq!(advised(&curve, 0.5), None);
        assert_eq!(advised(&curve, 0.6).map(|p| p.threshold), Some(0.7));
        assert_eq!(advised(&curve, 0.7).map(|p| p.threshold), Some(0.5));
    }

    #[test]
    fn pooled_points_accept_above_or_at_least_the_threshold_over_every_field() {
        let (mut a, mut b) = (Tally::default(), Tally::default());
        for (p, right) in [(0.5, false), (0.9, true), (0.9, false)] {
            a.add(p, right);
        }
        for (p, right) in [(0.9, true), (1.0, true), (0.0, false)] {
            b.add(p, right);
        }
        let at = |accept, share_of| {
            let pooling = Pooling {
                thresholds: vec![0.9, 0.0, 1.0],
                accept,
                share_of,
            };
            pooled([&a, &b], 10, &pooling)
                .iter()
                .map(|p| (p.accepted, p.errors, p.of))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at(Accept::AtLeast, ShareOf::Values),
            [(4, 1, 6), (6, 3, 6), (1, 0, 6)]
        );
        assert_eq!(
            at(Accept::Above, ShareOf::Labels),
            [(1, 0, 10), (5, 2, 10), (0, 0, 10)]
        );
        let none = pooled(
            [&a],
            0,
            &Pooling {
                thresholds: vec![1.0],
                accept: Accept::Above,
                share_of: ShareOf::Labels,
            },
        )[0];
        assert_eq!(
            (none.approval_rate, none.precision, none.error_upper),
            (None, None, 1.0)
        );
    }
}
