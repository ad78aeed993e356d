//! Metrics by name, and the thresholds that bound them.

use std::path::PathBuf;

/// Default penalty of a failed Easy-Wrong rubric.
pub const DEFAULT_PENALTY: f64 = 0.1;
/// Default number of ECE bins.
pub const DEFAULT_ECE_BINS: u32 = 5;

/// A metric a threshold may bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// The gated rubric score.
    Score,
    /// Mean exact match over the gold fields.
    ExactMatch,
    /// Mean ANLS over the gold fields.
    Anls,
    /// Mean exact match over the critical fields.
    ExactCritical,
    /// Mean ANLS over the critical fields.
    AnlsCritical,
    /// Brier score of the confidences.
    Brier,
    /// Expected calibration error of the confidences.
    Ece,
    /// Number of predicted fields that gold does not list.
    ExtraFields,
    /// Field-level F1.
    F1,
    /// Field-level precision.
    Precision,
    /// Field-level recall.
    Recall,
    /// Latency in milliseconds (a case's, or the 95th percentile of a suite's).
    LatencyMs,
    /// Cost in US dollars (a case's, or the mean of a suite's).
    CostUsd,
    /// Share of a suite's case tests that passed.
    PassRate,
    /// Share of a suite's cases whose gate is open (every Must-Right rubric held).
    GatePassRate,
    /// Mean gated score of a suite's cases.
    MeanScore,
    /// Share of a suite's Must-Right rubric items that held.
    MustRightAccuracy,
    /// Share of a suite's Easy-Wrong rubric items that held.
    EasyWrongAccuracy,
    /// Share of a suite's cases every attempt of which passed (`repeat`: pass^k).
    PassAllK,
    /// Share of a suite's cases one attempt of which passed (`repeat`: pass@k).
    PassAnyK,
    /// The largest flip rate of a field over a suite's repeated cases (bounded by
    /// `max_flip_rate`).
    FlipRate,
    /// Share of the grounded gold fields found on the right page with an IoU of at least the
    /// suite's `grounded_iou`.
    Grounded,
    /// Mean IoU of the predicted boxes with the gold ones.
    Iou,
    /// Share of the grounded gold fields found on the right page.
    PageMatch,
    /// Share of a suite's values with a confidence accepted automatically, each field from its
    /// advised threshold (the suite's `target_error`).
    AutomationRate,
}

/// Whether a metric is better high or low.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Higher is better: thresholds are `min_*`.
    Higher,
    /// Lower is better: thresholds are `max_*`.
    Lower,
}

/// Where a metric may be bounded by a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A case's `thresholds` only.
    Case,
    /// A suite's `aggregate` only.
    Aggregate,
    /// Both.
    Both,
}

/// The values a metric takes, which its thresholds must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// In [0, 1].
    Unit,
    /// A whole number, 0 or more.
    Count,
    /// 0 or more (milliseconds, dollars).
    NonNegative,
}

impl Range {
    /// Whether a value lies in the range: what a bound on a metric of this range must respect
    /// (a bound outside it is refused by the loader, and by the schema's `minimum`/`maximum`).
    pub fn holds(self, value: f64) -> bool {
        match self {
            Range::Unit => (0.0..=1.0).contains(&value),
            Range::Count => value >= 0.0 && value.fract() == 0.0,
            Range::NonNegative => value >= 0.0 && value.is_finite(),
        }
    }
}

/// One row of the table of metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct About {
    /// The name in reports, baselines and threshold keys (`min_` + name).
    pub name: &'static str,
    /// Better high or low.
    pub direction: Direction,
    /// Where a threshold may bound it.
    pub scope: Scope,
    /// The values it takes.
    pub range: Range,
    /// Whether a baseline keeps it per case.
    pub baselined: bool,
}

impl Metric {
    /// Every metric, in the order reports list them.
    pub const ALL: [Metric; 25] = [
        Metric::Score,
        Metric::ExactMatch,
        Metric::Anls,
        Metric::ExactCritical,
        Metric::AnlsCritical,
        Metric::Brier,
        Metric::Ece,
        Metric::ExtraFields,
        Metric::F1,
        Metric::Precision,
        Metric::Recall,
        Metric::LatencyMs,
        Metric::CostUsd,
        Metric::PassRate,
        Metric::GatePassRate,
        Metric::MeanScore,
        Metric::MustRightAccuracy,
        Metric::EasyWrongAccuracy,
        Metric::PassAllK,
        Metric::PassAnyK,
        Metric::FlipRate,
        Metric::Grounded,
        Metric::Iou,
        Metric::PageMatch,
        Metric::AutomationRate,
    ];

    /// The table of metrics: the one place that says what each is.
    pub fn about(self) -> About {
        use {Direction::*, Range::*, Scope::*};
        let (name, direction, scope, range, baselined) = match self {
            Metric::Score => ("score", Higher, Case, Unit, true),
            Metric::ExactMatch => ("exact_match", Higher, Both, Unit, true),
            Metric::Anls => ("anls", Higher, Both, Unit, true),
            Metric::ExactCritical => ("exact_critical", Higher, Both, Unit, true),
            Metric::AnlsCritical => ("anls_critical", Higher, Both, Unit, true),
            Metric::Brier => ("brier", Lower, Both, Unit, true),
            Metric::Ece => ("ece", Lower, Both, Unit, true),
            Metric::ExtraFields => ("extra_fields", Lower, Case, Count, false),
            Metric::F1 => ("f1", Higher, Both, Unit, true),
            Metric::Precision => ("precision", Higher, Case, Unit, false),
            Metric::Recall => ("recall", Higher, Case, Unit, false),
            Metric::LatencyMs => ("latency_ms", Lower, Both, NonNegative, false),
            Metric::CostUsd => ("cost_usd", Lower, Both, NonNegative, false),
            Metric::PassRate => ("pass_rate", Higher, Aggregate, Unit, false),
            Metric::GatePassRate => ("gate_pass_rate", Higher, Aggregate, Unit, false),
            Metric::MeanScore => ("mean_score", Higher, Aggregate, Unit, false),
            Metric::MustRightAccuracy => ("must_right_accuracy", Higher, Aggregate, Unit, false),
            Metric::EasyWrongAccuracy => ("easy_wrong_accuracy", Higher, Aggregate, Unit, false),
            Metric::PassAllK => ("pass_all_k", Higher, Aggregate, Unit, false),
            Metric::PassAnyK => ("pass_any_k", Higher, Aggregate, Unit, false),
            Metric::FlipRate => ("flip_rate", Lower, Aggregate, Unit, false),
            Metric::Grounded => ("grounded", Higher, Both, Unit, false),
            Metric::Iou => ("iou", Higher, Both, Unit, false),
            Metric::PageMatch => ("page_match", Higher, Both, Unit, false),
            Metric::AutomationRate => ("automation_rate", Higher, Aggregate, Unit, false),
        };
        About {
            name,
            direction,
            scope,
            range,
            baselined,
        }
    }

    /// The metric's name in reports and baselines.
    pub fn name(self) -> &'static str {
        self.about().name
    }

    /// The metric of a name.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Its threshold key: `min_anls`, `max_brier`.
    pub fn threshold_key(self) -> &'static str {
        // Made once: every case's thresholds are read by these names.
        static KEYS: std::sync::OnceLock<Vec<(Metric, String)>> = std::sync::OnceLock::new();
        let keys = KEYS.get_or_init(|| {
            Metric::ALL
                .iter()
                .map(|&m| {
                    let key = match m.about().direction {
                        Direction::Higher => format!("min_{}", m.name()),
                        Direction::Lower => format!("max_{}", m.name()),
                    };
                    (m, key)
                })
                .collect()
        });
        keys.iter()
            .find(|(m, _)| *m == self)
            .map_or("", |(_, key)| key.as_str())
    }

    /// Whether a threshold on it may appear in a case (`false`) or a suite's `aggregate` (`true`).
    pub fn bounds_in(self, aggregate: bool) -> bool {
        match self.about().scope {
            Scope::Both => true,
            Scope::Case => !aggregate,
            Scope::Aggregate => aggregate,
        }
    }
}

/// A bound on a metric: `min_*` must be reached, `max_*` must not be exceeded.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    /// The key as written (`min_anls`).
    pub name: String,
    /// What it bounds.
    pub metric: Metric,
    /// The limit.
    pub limit: f64,
    /// True for `max_*`.
    pub is_max: bool,
    /// The file it is written in (the case, or a suite's `defaults`).
    pub file: PathBuf,
    /// Its line there.
    pub line: u64,
    /// Its column there.
    pub column: u64,
}

impl Threshold {
    /// Puts bounds gathered from several places (suites, a pipeline, a case) back in the order
    /// of the metrics, so that a merged set reads as a written one.
    pub fn in_metric_order(thresholds: &mut [Threshold]) {
        thresholds.sort_by_key(|t| Metric::ALL.iter().position(|m| *m == t.metric));
    }
}

/// How far a value may miss a threshold and still meet it: it absorbs floating-point noise in
/// sums (`1 − (0.1 + 0.2)` must meet `min_score: 0.7`); no metric is that close by design.
pub const SLACK: f64 = 1e-9;

/// Whether a baseline's tolerance lets it flag anything: every baselined metric lies in [0, 1],
/// so no drop is larger than 1, and one of `tolerance` (plus the slack) or more is never flagged.
pub fn tolerance_can_bind(tolerance: f64) -> bool {
    1.0 > tolerance + SLACK
}

impl Threshold {
    /// Whether no value can break the bound: `min_score` without a rubric (the score is then
    /// 1), or a bound that holds at the worst value its metric can take, 0 for a `min_` and 1
    /// for a `max_` on a metric in [0, 1]. The bound's own comparison decides, slack of 1e-9
    /// included, so that `min_exact_match: 1e-10` cannot fail any more than
    /// `min_exact_match: 0` can.
    pub fn cannot_fail(&self, no_rubric: bool) -> bool {
        let about = self.metric.about();
        let worst = match (about.direction, about.range) {
            // Every metric bounded from below is 0 or more.
            (Direction::Higher, _) => Some(0.0),
            (Direction::Lower, Range::Unit) => Some(1.0),
            // Latency, cost and counts have no worst value.
            (Direction::Lower, _) => None,
        };
        (self.metric == Metric::Score && no_rubric) || worst.is_some_and(|w| self.holds(w))
    }

    /// Whether a value meets the bound, within [`SLACK`].
    pub fn holds(&self, value: f64) -> bool {
        if self.is_max {
            value <= self.limit + SLACK
        } else {
            value >= self.limit - SLACK
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_holds_what_its_schema_allows_and_nothing_else() {
        assert!(Range::Unit.holds(0.0) && Range::Unit.holds(1.0) && !Range::Unit.holds(1.5));
        assert!(!Range::Unit.holds(f64::NAN) && !Range::Unit.holds(-0.1));
        assert!(Range::Count.holds(3.0) && !Range::Count.holds(0.5) && !Range::Count.holds(-1.0));
        assert!(!Range::Count.holds(f64::INFINITY));
        assert!(Range::NonNegative.holds(0.0) && Range::NonNegative.holds(12.5));
        assert!(!Range::NonNegative.holds(-5.0) && !Range::NonNegative.holds(f64::INFINITY));
    }
}
