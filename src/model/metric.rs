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
}

impl Metric {
    /// The metric's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Score => "score",
            Metric::ExactMatch => "exact_match",
            Metric::Anls => "anls",
            Metric::ExactCritical => "exact_critical",
            Metric::AnlsCritical => "anls_critical",
            Metric::Brier => "brier",
            Metric::Ece => "ece",
            Metric::ExtraFields => "extra_fields",
            Metric::F1 => "f1",
            Metric::Precision => "precision",
            Metric::Recall => "recall",
            Metric::LatencyMs => "latency_ms",
            Metric::CostUsd => "cost_usd",
            Metric::PassRate => "pass_rate",
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
}

impl Threshold {
    /// Whether a value meets the bound. A slack of 1e-9 absorbs floating-point noise in sums
    /// (`1 − (0.1 + 0.2)` must meet `min_score: 0.7`); no metric is that close by design.
    pub fn holds(&self, value: f64) -> bool {
        const SLACK: f64 = 1e-9;
        if self.is_max {
            value <= self.limit + SLACK
        } else {
            value >= self.limit - SLACK
        }
    }
}
