//! The records of a run's tests: what reports, tables and baselines are made from.

use super::aggregate::Aggregated;
use super::outcome::{Outcome, ThresholdVerdict};
use crate::model::prediction::Prediction;

/// How a case's test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Gate open, every threshold held.
    Passed,
    /// Gate closed, a threshold failed, or the case could not be loaded.
    Failed,
    /// Skipped (`skip:`), not run.
    Ignored,
}

/// What the report keeps of one case's test.
#[derive(Debug, Clone)]
pub struct Record {
    /// The test name.
    pub id: String,
    /// The pipeline, when the suite declares pipelines.
    pub pipeline: Option<String>,
    /// The case file.
    pub file: String,
    /// The case's description and tags, when it loaded.
    pub about: Option<(Option<String>, Vec<String>)>,
    /// How it ended.
    pub status: Status,
    /// The load or prediction error, when there was one.
    pub error: Option<String>,
    /// The skip reason.
    pub skip: Option<String>,
    /// The evaluation, when the case ran.
    pub outcome: Option<Outcome>,
    /// The prediction's model and usage, when read.
    pub prediction: Option<Prediction>,
    /// The suite's baseline, which `GOLDGATE_UPDATE=always` rewrites.
    pub baseline: Option<std::sync::Arc<crate::model::suite::BaselineSpec>>,
}

/// An aggregate test's result: its name, pipeline, metrics and threshold verdicts.
pub type AggregateResult = (String, Option<String>, Aggregated, Vec<ThresholdVerdict>);
