//! An aggregate test's result: its suite's bounds over its cases, its slices, its gate.

use super::aggregate::{Aggregated, SliceVerdict};
use super::gate::GateVerdict;
use super::outcome::ThresholdVerdict;

/// An aggregate test's result.
#[derive(Debug, Clone, PartialEq)]
pub struct AggregateRecord {
    /// The test name (`invoices::aggregate::guided`).
    pub id: String,
    /// The pipeline.
    pub pipeline: Option<String>,
    /// The aggregate metrics.
    pub metrics: Aggregated,
    /// The verdict of each aggregate threshold.
    pub thresholds: Vec<ThresholdVerdict>,
    /// The verdict of each slice's bounds.
    pub slices: Vec<SliceVerdict>,
    /// The failure message, plain, when it failed.
    pub message: Option<String>,
    /// The suite file that declares it.
    pub file: String,
    /// The verdict of the suite's `regression_gate`, when it has one and the run does not
    /// bless its baseline.
    pub gate: Option<GateVerdict>,
    /// The digest of its bounds and gate ([`crate::evaluate::digest::aggregate_digest`]).
    pub gold_digest: String,
}
