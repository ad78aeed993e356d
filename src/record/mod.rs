//! Layer 4, the record of a test: what a case or aggregate test found, as typed data. A
//! test writes its record once; every output of a run (summary, comparison table, JSON
//! report, JUnit, annotations, step summary, HTML page, `goldgate report`) is made from records
//! and from nothing else. The JSON report is the records, sorted, with the run's summary: its
//! schema is [`Report`]'s (`goldgate schema --kind report`).

pub mod compare;
mod convert;
pub mod diff;
pub mod history;
pub mod run_end;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

pub(crate) use convert::{aggregate_record, gate_record, test_record};
pub use diff::{DiffOp, DiffSpan, FieldDiff};

use crate::base::name::Name;
/// The aggregate metrics of a group of case tests (a pipeline, a suite), as the record writes
/// them: evaluate's own, serialized.
pub use crate::evaluate::aggregate::Aggregated as PipelineMetrics;
pub use crate::evaluate::aggregate::FieldStat;
/// The former name of a report's field row, which is now evaluate's own [`FieldStat`].
#[deprecated(note = "a report's field rows are `FieldStat`")]
pub type FieldStatRecord = FieldStat;
use crate::evaluate::finding::{Absent, Finding, Note, Problem};
pub use crate::evaluate::outcome::{MatchedItem, Metrics};
pub use crate::evaluate::paired::{Interval, McNemar, Unmeasured, Unpaired};
use crate::evaluate::record::{CaseNumbers, Compared, RubricTally};
pub use crate::evaluate::record::{ErrorKind, Status};
pub use crate::evaluate::repeat::FlipRate;
pub use crate::metrics::Bin;
pub use crate::metrics::acceptance::AcceptancePoint;
pub use crate::model::prediction::Usage;
use crate::model::rubric::RubricKind;

/// A case's attributes as a JSON object (`{"lang": "fr"}`), their order kept.
mod attributes_object {
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde::ser::{SerializeMap, Serializer};

    pub(super) fn serialize<S: Serializer>(
        attributes: &[(String, String)],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(attributes.len()))?;
        for (name, value) in attributes {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(String, String)>, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Vec<(String, String)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of attribute names to texts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, String>()? {
                    out.push(entry);
                }
                Ok(out)
            }
        }
        d.deserialize_map(Entries)
    }
}

/// The version of the record's shape; a reader refuses another.
pub const RECORD_VERSION: u32 = 1;

/// The record of one case test (a case and a pipeline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestRecord {
    /// The test name (`invoices/acme-173::guided`).
    pub id: String,
    /// The pipeline, when the suite declares pipelines.
    pub pipeline: Option<String>,
    /// The case file.
    pub file: String,
    /// The folder of its suite (JUnit's class name).
    #[serde(default)]
    pub suite: String,
    /// How it ended.
    pub status: Status,
    /// `true`, `false`, or `null` when skipped (the same as `status`, for readers of one key).
    pub passed: Option<bool>,
    /// Whether it was skipped.
    pub ignored: bool,
    /// Whether it failed as its baseline entry says, no worse (`fail_on: regressions`): the
    /// same as `status` `known_failure`, for readers of one key. Neither passed nor failing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub known_failure: bool,
    /// The skip reason.
    pub skip: Option<String>,
    /// What stopped the case from being scored (load, prediction or baseline error), by kind.
    pub error: Option<TestError>,
    /// The case's description, when it loaded.
    #[serde(default)]
    pub description: Option<String>,
    /// The case's tags, when it loaded.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Tags written as a mapping, and a metadata table's columns: (name, value), written as a
    /// JSON object in the case's order.
    #[serde(default, with = "attributes_object")]
    #[schemars(with = "std::collections::BTreeMap<String, String>")]
    pub attributes: Vec<(String, String)>,
    /// The gated score, when it was scored.
    pub score: Option<f64>,
    /// The gate, when it was scored.
    pub gate: Option<Gate>,
    /// The case metrics, when it was scored.
    pub metrics: Option<Metrics>,
    /// One row per gold field.
    #[serde(default)]
    pub fields: Vec<FieldRecord>,
    /// One verdict per rubric, in order.
    #[serde(default)]
    pub rubrics: Vec<RubricRecord>,
    /// One verdict per threshold.
    #[serde(default)]
    pub thresholds: Vec<ThresholdRecord>,
    /// Predicted fields with a value that gold does not list.
    #[serde(default)]
    pub extra_fields: Vec<ExtraField>,
    /// What fails the case besides its checks (a model the suite's `pricing` lacks).
    #[serde(default, deserialize_with = "crate::base::json::through_a_value")]
    pub problems: Vec<Problem>,
    /// Every mistake that kept the case from loading, located.
    #[serde(default)]
    pub errors: Vec<LocatedProblem>,
    /// The prediction's model, when it names one.
    #[serde(default)]
    pub model: Option<String>,
    /// The prediction's token usage, when it reports it.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// A usage whose parts do not add up to its own total: its cost is computed from input +
    /// output as billed.
    #[serde(default)]
    pub usage_mismatch: Option<crate::model::prediction::UsageMismatch>,
    /// How the test compares with its baseline entry, when it has one to compare.
    #[serde(default)]
    pub baseline: Option<BaselineComparison>,
    /// The baseline file its suite declares (as the run names it), when it declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_file: Option<String>,
    /// The pipeline this one is compared with.
    #[serde(default)]
    pub compared_to: Option<String>,
    /// The case's source document (`document:`), when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// The error rate automatic acceptance of its values may not exceed (its suite's
    /// `target_error`), when it was scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_error: Option<f64>,
    /// The thresholds at which every field's values are pooled (its suite's `acceptance`),
    /// when it was scored and its suite gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<crate::metrics::acceptance::Pooling>,
    /// The failure message as the test printed it (plain), when it failed.
    #[serde(default)]
    pub message: Option<String>,
    /// Every attempt of a case its suite runs `repeat` times (more than once); the fields,
    /// metrics and message above are those of the attempt shown (`repeat.shown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<RepeatRecord>,
    /// The calls of the suite's `run:` command behind this test (every attempt): made now, or
    /// taken from the cache with what they saved; absent for a recorded prediction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<crate::model::prediction::CallTally>,
    /// The SHA-256 of the case's gold values and rules as loaded (not of its files' bytes),
    /// when it loaded: two runs' values of a test are comparable where it is the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_digest: Option<String>,
    /// The run history its suite appends to (`history:`, an absolute path), when it declares
    /// one: the step that ends the run appends the run's record there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<String>,
}

/// The attempts of a repeated case and what they make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepeatRecord {
    /// The suite's `pass` rule: `all`, `majority` or `any`.
    pub pass: String,
    /// How many attempts ran.
    pub attempts: usize,
    /// How many passed.
    pub passed: usize,
    /// The attempt the record's fields, metrics and message are of (1-based): the first whose
    /// verdict is the case's.
    pub shown: usize,
    /// Each gold field's flip rate: the share of attempts whose exact match differs from the
    /// majority of the attempts.
    pub flip_rates: Vec<FlipRate>,
    /// Every attempt, in the order they ran.
    pub each: Vec<AttemptRecord>,
}

/// One attempt of a repeated case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttemptRecord {
    /// Its number, from 1.
    pub attempt: usize,
    /// Whether it alone passes the case (gate and thresholds).
    pub passed: bool,
    /// Why it could not be scored (its command failed, its output does not read).
    #[serde(default)]
    pub error: Option<String>,
    /// Its gated score.
    #[serde(default)]
    pub score: Option<f64>,
    /// Its metrics.
    #[serde(default)]
    pub metrics: Option<Metrics>,
    /// Each gold field: the prediction, EM, ANLS and confidence of this attempt.
    #[serde(default)]
    pub fields: Vec<AttemptField>,
}

/// A gold field in one attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttemptField {
    /// The field.
    pub name: String,
    /// What this attempt predicted (`null` when absent).
    pub prediction: Json,
    /// Its exact match.
    pub em: f64,
    /// Its ANLS.
    pub anls: f64,
    /// Its confidence.
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// Why a case could not be scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong, with its fix.
    pub message: String,
}

/// A mistake in a file, where it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LocatedProblem {
    /// The file.
    pub file: String,
    /// 1-based line, 0 for the whole file.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// What is wrong, with its fix.
    pub message: String,
}

/// The gate of a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    /// Whether every Must-Right rubric held.
    pub open: bool,
    /// The labels of the Must-Right rubrics that closed it.
    pub closed_by: Vec<String>,
}

/// One gold field: its gold, its prediction and their scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldRecord {
    /// The field name.
    pub name: String,
    /// The line of the field in its gold, when known: where an annotation about it points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Its gold variants (scalars as the text written: `0173` is `"0173"`).
    pub gold: Vec<Json>,
    /// The predicted value (`null` when absent).
    pub prediction: Json,
    /// Whether the prediction has the field at all.
    #[serde(default)]
    pub predicted: bool,
    /// EM_i.
    pub em: f64,
    /// ANLS_i.
    pub anls: f64,
    /// The confidence the prediction gave.
    pub confidence: Option<f64>,
    /// Whether the field is critical.
    pub critical: bool,
    /// How a comparison other than text was made, or why it could not be (`render` says it).
    #[serde(default, deserialize_with = "crate::base::json::through_a_value")]
    pub note: Option<Note>,
    /// The value object's other keys (`page`, `bbox`…), never scored.
    pub metadata: serde_json::Map<String, Json>,
    /// The index of the gold variant the scores came from.
    #[serde(default)]
    pub closest: usize,
    /// For a field compared by rules on paths inside it, the compared forms of gold and
    /// prediction (`1 234,50` read as `1234.5`).
    #[serde(default)]
    pub compared: Option<ComparedForms>,
    /// For a list field that is not exact: how gold and predicted items were matched.
    #[serde(default)]
    pub items: Vec<MatchedItem>,
    /// For a field whose gold and prediction differ: the closest variant into the prediction,
    /// as data (characters for text, lines for nested values).
    #[serde(default)]
    pub diff: Option<FieldDiff>,
    /// Where gold and the prediction place the value and how well they agree, when gold gives
    /// a place (`page`, `bbox`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding: Option<crate::evaluate::outcome::FieldGrounding>,
    /// What kind of miss the field is (`missing`, `invented`, `format`, `wrong`), when it is not
    /// an exact match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub miss: Option<crate::evaluate::miss::Miss>,
}

/// Gold and prediction in their compared forms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComparedForms {
    /// The gold as compared.
    pub gold: Json,
    /// The prediction as compared.
    pub prediction: Json,
}

/// A predicted field that gold does not list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtraField {
    /// Its name.
    pub name: String,
    /// Its value.
    pub prediction: Json,
}

/// A rubric and its verdict, where it is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RubricRecord {
    /// The label.
    pub label: String,
    /// `must_right` or `easy_wrong`.
    pub kind: String,
    /// The check's key (`exact`, `min_anls`…).
    pub check: String,
    /// The field it reads.
    pub field: Option<String>,
    /// Whether it held.
    pub held: bool,
    /// Whether it could be checked at all (a misspelt field or a judge without a verdict
    /// could not).
    #[serde(default = "yes")]
    pub checked: bool,
    /// The penalty of an Easy-Wrong rubric.
    pub penalty: f64,
    /// What the check found, as data (`render` says it).
    #[serde(deserialize_with = "crate::base::json::through_a_value")]
    pub finding: Finding,
    /// The file it is written in.
    pub file: String,
    /// Its line.
    pub line: u64,
    /// Its column.
    pub column: u64,
}

fn yes() -> bool {
    true
}

/// A threshold and its verdict, where it is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThresholdRecord {
    /// The key (`min_anls`).
    pub name: String,
    /// The limit.
    pub limit: f64,
    /// The measured value, `null` when the metric is absent.
    pub value: Option<f64>,
    /// Whether it held.
    pub held: bool,
    /// Why an absent metric could not be measured.
    #[serde(default, deserialize_with = "crate::base::json::through_a_value")]
    pub absent_because: Option<Absent>,
    /// The file it is written in.
    pub file: String,
    /// Its line.
    pub line: u64,
    /// Its column.
    pub column: u64,
}

/// How a test compares with its baseline entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaselineComparison {
    /// The baseline has no entry for it yet.
    pub new: bool,
    /// Metrics that dropped beyond the tolerance.
    pub regressions: Vec<MetricChange>,
    /// Metrics that rose beyond the tolerance.
    pub improvements: Vec<MetricChange>,
    /// Under `fail_on: regressions`: a known failure, fixed, or regressed and how.
    // Through a value: a tagged enum's numbers are read as maps under `arbitrary_precision`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::base::json::through_a_value"
    )]
    pub standing: Option<crate::evaluate::baseline::Standing>,
    /// Whether the test was held to its entry (`fail_on: regressions`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fail_on_regressions: bool,
    /// What moved against its entry however little: the metric it is held to (its suite's
    /// `regression_gate` metric, else ANLS, else the score), then its fields' EM and ANLS.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<MetricChange>,
}

/// One metric, then and now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricChange {
    /// The metric (`anls`, or `field:total:anls`).
    pub metric: String,
    /// Its baseline value.
    pub old: f64,
    /// This run's value, `null` when this run does not measure it.
    pub new: Option<f64>,
}

/// The record of one aggregate test (a suite's bounds over its cases, for one pipeline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AggregateRecord {
    /// The test name (`invoices::aggregate::guided`).
    pub id: String,
    /// The pipeline.
    pub pipeline: Option<String>,
    /// The suite file that declares it.
    pub file: String,
    /// Whether every bound held.
    pub passed: bool,
    /// The failure message as the test printed it (plain), when it failed.
    pub message: Option<String>,
    /// The aggregate metrics.
    pub metrics: PipelineMetrics,
    /// The verdict of each bound.
    pub thresholds: Vec<ThresholdRecord>,
    /// The verdict of each slice's bounds (`aggregate.slices`).
    #[serde(default)]
    pub slices: Vec<SliceVerdictRecord>,
    /// The suite's `regression_gate` over this pipeline's cases, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression_gate: Option<RegressionGateRecord>,
    /// The SHA-256 of its bounds, its slices' bounds and its regression gate's rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_digest: Option<String>,
}

/// The regression gate of one pipeline: this run against the baseline over the paired cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegressionGateRecord {
    /// The metric compared.
    pub metric: String,
    /// The smallest mean drop that fails the gate.
    pub min_effect: f64,
    /// The level of the interval.
    pub confidence: f64,
    /// Whether it held.
    pub held: bool,
    /// The mean of this run's value minus the baseline's, over the paired cases, with its
    /// seeded paired bootstrap interval (as the comparison of pipelines draws it).
    pub difference: Option<Interval>,
    /// How the bootstrap was drawn.
    pub bootstrap: BootstrapRecord,
    /// The cases that dropped most, largest drop first.
    pub dropped_most: Vec<CaseDrop>,
    /// Cases of this run without a value in the baseline.
    pub unpaired: usize,
    /// The cases whose baseline entry has no value of the metric, in name order: the gate
    /// fails until the baseline is blessed with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lacking: Vec<String>,
    /// Cases of this run with an entry in the baseline, with the metric or without.
    #[serde(default)]
    pub entries: usize,
    /// Cases of this run with a value of the metric (one that could not be scored at its worst).
    #[serde(default)]
    pub measured: usize,
    /// The paired cases of this run that could not be scored, counted at the metric's worst, in
    /// name order: a drop they make is theirs to fix, not values to accept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unscored: Vec<String>,
    /// The smallest drop the gold set detects at 80 % power, when it can be estimated.
    pub power: Option<crate::evaluate::gate::Power>,
    /// The gate between repeated attempts (A/A), when cases were repeated.
    pub false_alarms: Option<crate::evaluate::gate::FalseAlarms>,
    /// Why the baseline could not be compared with.
    pub baseline_error: Option<String>,
    /// The baseline file.
    pub baseline: String,
    /// The command that accepts this run's values.
    pub accept: String,
    /// The suite file and line of `regression_gate:`.
    pub file: String,
    /// Its line.
    pub line: u64,
}

/// A case's value in the baseline and in this run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseDrop {
    /// The test.
    pub test: String,
    /// The baseline's value.
    pub old: f64,
    /// This run's.
    pub new: f64,
}

/// The verdict of an aggregate's bounds on one slice of its cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SliceVerdictRecord {
    /// The tag (`lang`; `tag` for a tag written in a list).
    pub tag: String,
    /// Its value.
    pub value: String,
    /// The aggregate's case tests in the slice.
    pub cases: usize,
    /// Whether the slice has cases and every bound held (a slice that matches no case fails).
    pub held: bool,
    /// The verdict of each bound over the slice's cases.
    pub thresholds: Vec<ThresholdRecord>,
    /// The suite file.
    pub file: String,
    /// Where the slice is written.
    pub line: u64,
    /// Its column.
    pub column: u64,
}

/// Whether a count is 0 (left out of a record, as older records had no such count).
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The summary of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct RunSummaryRecord {
    /// The tests of a split run that were listed and never ran (nextest stopped at the first
    /// failure), in name order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub never_ran: Vec<String>,
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    pub ignored: usize,
    /// Tests that failed as their baseline entries say, no worse (`fail_on: regressions`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub known_failures: usize,
    pub exact_match: Option<f64>,
    pub anls: Option<f64>,
    pub exact_critical: Option<f64>,
    pub anls_critical: Option<f64>,
    pub brier: Option<f64>,
    pub ece: Option<f64>,
    /// The calls of the suites' `run:` commands: made in this run, or taken from the cache with
    /// the latency and cost they saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<crate::model::prediction::CallTally>,
}

/// The run's error analysis: what kind of miss each field that is not exact is, counted.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalysisRecord {
    /// The misses by kind: each pipeline's (no `field`, no `tag`), then per field and per tag
    /// value of that pipeline, where there is one.
    #[serde(default)]
    pub misses: Vec<MissRecord>,
    /// Per pipeline and field with confidences: "accept automatically when confidence ≥ t",
    /// for each distinct t, and the advised t.
    #[serde(default)]
    pub acceptance: Vec<AcceptanceRecord>,
    /// Per pipeline whose suite gives `acceptance` thresholds: every field's values accepted
    /// at each, pooled.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pooled: Vec<crate::evaluate::analysis::PooledAcceptance>,
}

/// When one field's values may be accepted automatically, for one pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptanceRecord {
    /// The pipeline, else the folder of the suite of cases without pipelines.
    pub pipeline: String,
    /// The field.
    pub field: String,
    /// Its values with a confidence.
    pub values: usize,
    /// The error rate the advice bounds (the suite's `target_error`).
    pub target_error: f64,
    /// The advised threshold: the smallest whose error bound is at most `target_error`;
    /// `null` when none is.
    pub threshold: Option<f64>,
    /// The share of the values it accepts (0 when no threshold bounds the error).
    pub automation_rate: f64,
    /// The upper end of the 95 % Wilson interval of the error rate at the advised threshold.
    pub error_upper: Option<f64>,
    /// For each distinct confidence t, lowest first: accepting every value of confidence ≥ t.
    pub curve: Vec<AcceptancePoint>,
}

/// The misses of one pipeline, over every field, one field (`field`), or the cases of one tag
/// value (`tag`, `value`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MissRecord {
    /// The pipeline, else the folder of the suite of cases without pipelines.
    pub pipeline: String,
    /// The field counted over, when the row is one field's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The tag of the slice counted over (`tag` for a tag written in a list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Its value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Gold has a value, the prediction none.
    pub missing: u32,
    /// The prediction has a value, gold none (a `null` gold, or a field gold does not list).
    pub invented: u32,
    /// Equal read as a number, a date or an identifier, but not as the field's rule compares.
    pub format: u32,
    /// Any other difference.
    pub wrong: u32,
}

/// One slice of the run (the case tests tagged `tag=value`) for one pipeline: the metrics of
/// the table of pipelines over them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct SliceRecord {
    /// The tag (`lang`; `tag` for a tag written in a list, `tags: [fr]`).
    pub tag: String,
    /// Its value (`fr`).
    pub value: String,
    /// The pipeline, else the folder of the suite of cases without pipelines.
    pub pipeline: String,
    pub cases: usize,
    pub passed: usize,
    pub pass_rate: Option<f64>,
    pub exact_match: Option<f64>,
    pub anls: Option<f64>,
    pub exact_critical: Option<f64>,
    pub anls_critical: Option<f64>,
    pub brier: Option<f64>,
    pub ece: Option<f64>,
    pub cost_usd_per_case: Option<f64>,
    pub cost_usd_total: Option<f64>,
}

/// One pipeline against its reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct ComparisonRecord {
    pub pipeline: String,
    pub reference: String,
    pub cases: usize,
    pub score: Option<Interval>,
    pub exact_match: Option<Interval>,
    pub anls: Option<Interval>,
    pub mcnemar: McNemar,
    pub bootstrap: BootstrapRecord,
    /// The metrics left without an interval, and why (the score of cases without rubrics).
    #[serde(default)]
    pub unmeasured: Vec<Unmeasured>,
}

/// How the bootstrap was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct BootstrapRecord {
    pub resamples: usize,
    pub seed: u64,
    pub level: f64,
}

/// The JSON report of a run: its records, sorted by test name, with what is computed from them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// The goldgate version that wrote it.
    pub goldgate: String,
    /// The version of the records' shape (1).
    pub record_version: u32,
    /// The SHA-256 of the gold set as loaded: over every test's name and `gold_digest`, in name
    /// order. Two runs' scores are comparable where it is the same.
    #[serde(default)]
    pub gold_digest: Option<String>,
    /// The commit the report was written at (`GITHUB_SHA`, else the checkout's `HEAD`), when
    /// there is one: how `report --compare` names the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The run's summary (computed from the cases: a reader may leave it out).
    #[serde(default)]
    pub summary: Option<RunSummaryRecord>,
    /// What the baselines say of the tests held to their entries (`fail_on: regressions`),
    /// when any was.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::base::json::through_a_value"
    )]
    pub gate: Option<run_end::GateAccount>,
    /// Every case test's record.
    pub cases: Vec<TestRecord>,
    /// Each pipeline's aggregate metrics (computed from the cases).
    #[serde(default)]
    pub pipelines: Vec<PipelineMetrics>,
    /// The field × pipeline table (computed from the cases).
    #[serde(default)]
    pub fields: Vec<FieldStat>,
    /// Each pipeline per tag value (computed from the cases), when a case has a tag.
    #[serde(default)]
    pub slices: Vec<SliceRecord>,
    /// Each pipeline against its reference (computed from the cases).
    #[serde(default)]
    pub comparisons: Vec<ComparisonRecord>,
    /// Every aggregate test's record.
    #[serde(default)]
    pub aggregates: Vec<AggregateRecord>,
    /// The run's error analysis (computed from the cases).
    #[serde(default)]
    pub analysis: AnalysisRecord,
}

impl TestRecord {
    /// The case this test belongs to: its name without `::pipeline`.
    pub fn case_name(&self) -> &str {
        match &self.pipeline {
            Some(p) => crate::model::test_name::case_of(&self.id, p),
            None => &self.id,
        }
    }

    /// Whether this test is a failed call that was scored all the same: a prediction that could
    /// not be scored has no metrics, except a failed call under `profile: docubench`, which is
    /// scored as its benchmark scores it and counts in its pipeline's mean.
    pub(crate) fn is_a_scored_failed_call(&self) -> bool {
        self.error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::Prediction)
            && self.metrics.as_ref().is_some_and(|m| m.anls.is_some())
    }

    /// What summaries and aggregates need of this record.
    pub(crate) fn numbers(&self) -> CaseNumbers {
        let rubrics = self.gate.as_ref().map(|g| {
            RubricTally::of(
                g.open,
                self.score.unwrap_or(0.0),
                self.rubrics.iter().map(|r| {
                    let kind = if r.kind == RubricKind::MustRight.key() {
                        RubricKind::MustRight
                    } else {
                        RubricKind::EasyWrong
                    };
                    (kind, r.held)
                }),
            )
        });
        CaseNumbers {
            id: self.id.clone(),
            pipeline: self.pipeline.clone(),
            status: self.status,
            metrics: self
                .metrics
                .as_ref()
                .map(crate::evaluate::record::KeptMetrics::from),
            confidences: self
                .fields
                .iter()
                .filter_map(|f| f.confidence.map(|c| (c, f.em == 1.0)))
                .collect(),
            fields: self
                .fields
                .iter()
                .map(|f| {
                    crate::evaluate::record::FieldNumbers::new(
                        Name::of(&f.name),
                        f.em,
                        f.anls,
                        f.confidence,
                        f.miss,
                    )
                })
                .collect(),
            missed: Box::default(),
            misses: Default::default(),
            target_error: self
                .target_error
                .unwrap_or(crate::metrics::acceptance::DEFAULT_TARGET_ERROR),
            acceptance: self.acceptance.clone().map(Box::new),
            rubrics,
            reference: self.compared_to.clone(),
            suite: Name::of(&self.suite_folder()),
            slices: crate::evaluate::record::slices_of(&self.tags, &self.attributes),
            attempts: self.repeat.as_ref().map(|r| Box::new(r.numbers())),
            calls: self.calls.map(Box::new),
            gold_digest: self
                .gold_digest
                .as_deref()
                .map(crate::evaluate::digest::KeptDigest::of),
            history: self.history.as_deref().map(Name::of),
            baseline: self.compared().note(
                self.error
                    .as_ref()
                    .map(|e| crate::evaluate::record::Cause::new(e.kind, e.message.clone()))
                    .as_ref(),
            ),
            usage_mismatch: self.usage_mismatch.clone().map(Box::new),
            failed_call_scored: self.is_a_scored_failed_call(),
        }
        .with_misses(self.extra_fields.iter().map(|f| f.name.as_str()))
    }

    /// How it compares with its baseline.
    pub(crate) fn compared(&self) -> Compared {
        let file = self.baseline_file.as_ref().map(std::path::PathBuf::from);
        let compared = self.baseline.as_ref().map_or_else(Compared::default, |b| {
            let back = |list: &[MetricChange]| {
                list.iter()
                    .map(|c| crate::evaluate::baseline::Change {
                        metric: c.metric.clone(),
                        old: c.old,
                        new: c.new.unwrap_or(f64::NAN),
                    })
                    .collect()
            };
            Compared {
                file: None,
                new: b.new,
                regressions: back(&b.regressions),
                improvements: back(&b.improvements),
                standing: b.standing.clone(),
                relative: b.fail_on_regressions,
                moved: back(&b.moved),
            }
        });
        Compared { file, ..compared }
    }

    /// Where the failure is: the first failing Must-Right rubric, load error, threshold or
    /// Easy-Wrong rubric, as (file, line).
    pub fn place(&self) -> Option<(String, u64)> {
        let rubric = |kind: &str| {
            self.rubrics
                .iter()
                .find(|r| !r.held && r.kind == kind)
                .map(|r| (r.file.clone(), r.line))
        };
        rubric("must_right")
            .or_else(|| self.errors.first().map(|e| (e.file.clone(), e.line)))
            .or_else(|| {
                self.thresholds
                    .iter()
                    .find(|t| !t.held)
                    .map(|t| (t.file.clone(), t.line))
            })
            .or_else(|| rubric("easy_wrong"))
            .or_else(|| (self.passed == Some(false)).then(|| (self.file.clone(), 0)))
    }

    /// The first line of the failure message: which gate closed, which thresholds failed.
    pub fn verdict_line(&self) -> Option<&str> {
        self.message.as_deref().and_then(|m| m.lines().next())
    }

    /// The folder of its suite (as the case file's path names it), else of its file.
    pub fn suite_folder(&self) -> String {
        if !self.suite.is_empty() {
            return self.suite.clone();
        }
        std::path::Path::new(&self.file)
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    }
}

#[cfg(test)]
impl TestRecord {
    /// A record with nothing in it but its name and file, for tests.
    pub(crate) fn named(id: &str, file: &str) -> TestRecord {
        TestRecord {
            id: id.into(),
            pipeline: None,
            file: file.into(),
            suite: String::new(),
            status: Status::Passed,
            passed: Some(true),
            ignored: false,
            known_failure: false,
            skip: None,
            error: None,
            description: None,
            tags: Vec::new(),
            attributes: Vec::new(),
            score: None,
            gate: None,
            metrics: None,
            fields: Vec::new(),
            rubrics: Vec::new(),
            thresholds: Vec::new(),
            extra_fields: Vec::new(),
            problems: Vec::new(),
            errors: Vec::new(),
            model: None,
            usage: None,
            usage_mismatch: None,
            baseline: None,
            baseline_file: None,
            compared_to: None,
            document: None,
            target_error: None,
            acceptance: None,
            message: None,
            repeat: None,
            calls: None,
            gold_digest: None,
            history: None,
        }
    }
}

impl RepeatRecord {
    /// What aggregates need of the attempts.
    pub(crate) fn numbers(&self) -> crate::evaluate::repeat::Attempts {
        use crate::evaluate::repeat::{AttemptNumbers, Attempts};
        Attempts {
            pass: crate::model::suite::PassRule::from_name(&self.pass).unwrap_or_default(),
            each: self
                .each
                .iter()
                .map(|a| AttemptNumbers {
                    passed: a.passed,
                    metrics: a.metrics.clone(),
                    score: a.score,
                    fields: a.fields.iter().map(|f| (f.name.clone(), f.em)).collect(),
                })
                .collect(),
        }
    }
}

impl AggregateRecord {
    /// Where its first failing bound is written, as `file:line` (the suite file alone when none
    /// failed).
    pub fn place(&self) -> String {
        let slice = self.slices.iter().find(|s| !s.held).map(|s| {
            s.thresholds
                .iter()
                .find(|t| !t.held)
                .map_or((s.file.as_str(), s.line), |t| (t.file.as_str(), t.line))
        });
        let bound = self.thresholds.iter().find(|t| !t.held);
        match bound.map(|t| (t.file.as_str(), t.line)).or(slice) {
            Some((file, line)) if line > 0 => format!("{file}:{line}"),
            _ => self.file.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A threshold whose metric was measured reads back without `absent_because`, as one written
    /// with it `null` does: the field read through a `Value` keeps serde's default for a missing
    /// `Option`.
    #[test]
    fn a_record_without_its_optional_tagged_fields_reads_back() {
        let written = r#"{"name": "min_anls", "limit": 0.9, "value": 0.95, "held": true, "file": "a.yaml", "line": 3, "column": 1}"#;
        let t: ThresholdRecord = crate::base::json::read_back(written).unwrap();
        assert_eq!((t.absent_because, t.value), (None, Some(0.95)));
        let with_null =
            written.replace("\"held\": true", "\"held\": true, \"absent_because\": null");
        let t: ThresholdRecord = crate::base::json::read_back(&with_null).unwrap();
        assert_eq!(t.absent_because, None);
    }
}
