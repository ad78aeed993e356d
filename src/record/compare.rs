//! Two runs compared (`goldgate report --compare BASE HEAD`), built once as typed data: the
//! terminal's text and the pull-request comment are its writers, `--json` its serialization.
//!
//! The tests of both runs are paired by name, each in one group (its pipeline, else its suite's
//! folder). Per group: each run's pass rate over its own tests, and the means of the paired tests
//! with their paired difference. Per test: what regressed, improved, appeared or went, by its
//! pipeline's gated metric, with its fields old → new. Whether the paired tests were scored
//! against the same gold, and HEAD's gates.

mod changes;
mod pairing;

use serde::Serialize;
use serde_json::Value as Json;

use super::{BootstrapRecord, RegressionGateRecord, ThresholdRecord};
use crate::evaluate::paired::{Interval, McNemar};
use crate::evaluate::record::{CaseNumbers, ErrorKind, Status};
pub(crate) use pairing::Pairing;

/// One run's numbers, as the comparison reads them.
pub(crate) struct RunSide<'a> {
    /// How the run is named: its run id, its commit, or which side it is.
    pub(crate) label: String,
    /// Its case tests' numbers.
    pub(crate) numbers: &'a [CaseNumbers],
    /// Its aggregate tests' records.
    pub(crate) aggregates: &'a [super::AggregateRecord],
    /// The digest of its gold set, when its report has one.
    pub(crate) gold_digest: Option<&'a str>,
}

/// A value in BASE and in HEAD.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Sides<T> {
    /// BASE's.
    pub base: T,
    /// HEAD's.
    pub head: T,
}

/// BASE and HEAD compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunComparison {
    /// BASE's name.
    pub base: String,
    /// HEAD's name.
    pub head: String,
    /// HEAD's verdict: its failing tests and gates.
    pub verdict: HeadVerdict,
    /// Whether the paired tests were scored against the same gold.
    pub gold: GoldChange,
    /// Each group of tests of either run: its pipeline, else its suite's folder (`cases/receipts/`);
    /// pipelines first, by name.
    pub pipelines: Vec<PipelineChange>,
    /// Each test that changed: regressed, then improved, then new, then removed (see
    /// [`TestChange`] for the order within each).
    pub tests: Vec<TestChange>,
    /// Paired tests left out of `tests` (their verdict and gated metric held) whose EM, ANLS or
    /// score moved all the same.
    pub moved_otherwise: usize,
    /// How the intervals were drawn.
    pub bootstrap: BootstrapRecord,
}

/// HEAD's failures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeadVerdict {
    /// Case tests that ran in HEAD (skipped ones left out).
    pub cases: usize,
    /// Those that failed.
    pub failed_cases: usize,
    /// Those that failed as their baseline entries say (`fail_on: regressions`): not passed,
    /// and not failing the run.
    pub known_failures: usize,
    /// Aggregate tests in HEAD.
    pub aggregates: usize,
    /// The aggregate tests that failed, in name order.
    pub failed_gates: Vec<FailedGate>,
    /// What HEAD's baselines say of its tests held to their entries (`fail_on: regressions`):
    /// the verdict a pull request is judged by, when any test was.
    #[serde(skip_serializing_if = "super::run_end::GateAccount::is_empty")]
    pub gate: super::run_end::GateAccount,
}

/// A failed aggregate test of HEAD and what closed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailedGate {
    /// The aggregate test.
    pub test: String,
    /// Its regression gate, when that failed.
    pub regression: Option<RegressionGateRecord>,
    /// Its bounds that did not hold.
    pub bounds: Vec<ThresholdRecord>,
    /// Its slices that did not hold, as `tag=value`.
    pub slices: Vec<String>,
}

/// One group of tests (a pipeline, or the folder of a suite without pipelines) in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PipelineChange {
    /// The pipeline, or the folder of a suite without pipelines (`cases/receipts/`).
    pub pipeline: String,
    /// Tests of the group both runs ran (skipped ones left out).
    pub paired: usize,
    /// Its `regression_gate` metric in HEAD, when it has one: its tests are listed and ranked by
    /// it (else by ANLS, else by the score).
    pub regression_gate: Option<&'static str>,
    /// The mean score of the paired tests with rubrics in each run, and their difference.
    pub score: MetricDelta,
    /// The mean EM of the paired tests both runs scored, and their difference.
    pub exact_match: MetricDelta,
    /// The mean ANLS, likewise.
    pub anls: MetricDelta,
    /// Each run's tests of the group that passed, over every one that ran there: a case that
    /// could not be loaded or scored and a known failure count as not passed.
    pub pass_rate: Sides<Passes>,
    /// McNemar's exact test on pass/fail of the paired tests (`only_reference`: BASE only).
    pub mcnemar: McNemar,
}

impl PipelineChange {
    /// Its metrics, in the order the tables show them.
    pub fn metrics(&self) -> [&MetricDelta; 3] {
        [&self.score, &self.exact_match, &self.anls]
    }
}

/// A run's tests that passed of those that ran.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Passes {
    /// Passed.
    pub passed: usize,
    /// Ran.
    pub cases: usize,
    /// `passed / cases`; absent when none ran.
    pub rate: Option<f64>,
}

/// A metric's means in each run over the same paired tests (those both runs measured), and the
/// mean of their paired differences — which is HEAD's mean minus BASE's — with its 95 % paired
/// bootstrap interval and the number of tests (`cases`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricDelta {
    /// The metric, as the tables head it (`score`, `EM`, `ANLS`).
    #[serde(skip)]
    pub metric: &'static str,
    /// BASE's mean over the paired tests.
    pub base: Option<f64>,
    /// HEAD's, over the same tests.
    pub head: Option<f64>,
    /// HEAD minus BASE over them, with its interval.
    #[serde(flatten)]
    pub difference: Option<Interval>,
}

impl MetricDelta {
    /// Whether the interval of the difference lies wholly on one side of zero.
    pub fn significant(&self) -> Option<bool> {
        self.difference.map(|i| i.low > 0.0 || i.high < 0.0)
    }
}

/// How a test changed from BASE to HEAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// It passed and does not now, or its gated metric dropped.
    Regressed,
    /// It did not pass and does now, or its gated metric rose.
    Improved,
    /// Only HEAD has it.
    New,
    /// Only BASE has it.
    Removed,
}

/// A test that changed. Within each kind: a verdict that flipped first, then the largest move
/// of the gated metric (a side that could not be scored the largest), then by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestChange {
    /// The test.
    pub test: String,
    /// Its group, as [`PipelineChange::pipeline`] names it.
    pub pipeline: String,
    /// How it changed.
    pub kind: ChangeKind,
    /// How it ended in each run (`None`: absent there).
    pub status: Sides<Option<Status>>,
    /// Why a run could not score it (it did not load, its prediction could not be had).
    pub error: Sides<Option<ErrorKind>>,
    /// Its gated metric, then those of EM, ANLS and the score (with rubrics) that moved too.
    pub metrics: Vec<MetricMove>,
    /// Its fields whose prediction, EM, ANLS or gold changed, worst first: for a test both runs
    /// scored.
    pub fields: Vec<FieldChange>,
    /// Whether its gold digest differs between the runs.
    pub gold_changed: bool,
    /// The command that blesses it, when HEAD fixed it (it failed as its entry says, and
    /// passes now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bless: Option<String>,
}

/// A metric of a test in each run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricMove {
    /// The metric's name in reports (`anls`, `exact_match`, `score`).
    pub metric: &'static str,
    /// BASE's value, when it has one.
    pub base: Option<f64>,
    /// HEAD's.
    pub head: Option<f64>,
}

/// A field of a test, in each run that has it among its gold fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    /// The field.
    pub field: String,
    /// BASE's row of it; `None` when BASE's gold has no such field.
    pub base: Option<FieldValue>,
    /// HEAD's.
    pub head: Option<FieldValue>,
}

/// A field's prediction and scores in one run, as its record holds them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldValue {
    /// The predicted value (`null` when absent).
    pub prediction: Json,
    /// Its exact match.
    pub em: f64,
    /// Its ANLS.
    pub anls: f64,
    /// The gold variant it was scored against.
    pub gold: Option<Json>,
}

/// Whether BASE and HEAD were scored against the same gold.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GoldChange {
    /// Every test of both runs has the same digest in each.
    Same,
    /// Every paired test has the same digest in each; the runs differ by tests added or removed.
    SameForPaired,
    /// Paired tests whose digests differ, in name order; `unchecked` as in [`GoldChange::Unchecked`].
    Different {
        /// The tests whose gold or rules changed.
        tests: Vec<String>,
        /// Paired tests a run has no digest of.
        unchecked: Vec<String>,
    },
    /// No paired test's digest differs, but these paired tests have none in a run (a case that
    /// did not load there), in name order.
    Unchecked {
        /// The tests.
        tests: Vec<String>,
    },
    /// A run's report carries no digest (written by an older goldgate).
    Unknown,
    /// No test is in both runs: there is no gold to compare.
    NothingPaired,
}
