//! What evaluation found: the outcome of a case, with its field rows and verdicts.

use crate::base::value::Value;
use crate::model::metric::{Metric, Threshold};
use crate::model::rubric::{Rubric, RubricKind};

/// Everything measured about one case.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// One row per gold field.
    pub fields: Vec<FieldRow>,
    /// The case metrics.
    pub metrics: Metrics,
    /// One verdict per rubric, in order.
    pub rubrics: Vec<RubricVerdict>,
    /// Whether every Must-Right rubric held.
    pub gate_open: bool,
    /// The gated score.
    pub score: f64,
    /// One verdict per threshold.
    pub thresholds: Vec<ThresholdVerdict>,
    /// Gate open, every threshold held, and no problem.
    pub passed: bool,
    /// What fails the case besides its checks: a model the suite's `pricing` lacks.
    pub problems: Vec<crate::evaluate::finding::Problem>,
    /// Predicted fields with a value that gold does not list (hallucinated fields).
    pub extra_fields: Vec<(String, Value)>,
    /// The error rate automatic acceptance may not exceed (the suite's `target_error`).
    pub target_error: f64,
    /// The thresholds at which every field's values are pooled (the suite's `acceptance`).
    pub acceptance: Option<crate::metrics::acceptance::Pooling>,
}

/// The scores of one gold field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRow {
    /// The field name.
    pub name: String,
    /// The line of the field in its gold (the case file, or the gold file it names), 0 when
    /// not known.
    pub line: u64,
    /// Its gold variants.
    pub gold: Vec<Value>,
    /// The predicted value (`Null` when absent).
    pub prediction: Value,
    /// Whether the prediction has the field at all.
    pub predicted: bool,
    /// The confidence the prediction gave, if any.
    pub confidence: Option<f64>,
    /// The value object's other keys (`page`, `bbox`…), kept for the report, never scored.
    pub metadata: Vec<(String, serde_json::Value)>,
    /// EM_i.
    pub em: f64,
    /// ANLS_i.
    pub anls: f64,
    /// Whether the field is critical.
    pub critical: bool,
    /// How a comparison other than text was made, or why it could not be.
    pub note: Option<crate::evaluate::finding::Note>,
    /// The gold variant the scores came from.
    pub closest: usize,
    /// That variant with every `any_of` inside it resolved to the alternative the prediction came
    /// closest to, when it holds any (a nested value): what the message diffs against.
    pub resolved: Option<Value>,
    /// For a list field that is not exact: how gold and predicted items were matched, as the
    /// scoring matched them.
    pub items: Vec<MatchedItem>,
    /// For a field with rules on paths inside it that is not exact: the gold it was scored
    /// against and the prediction, with the leaves those rules reach in their compared form
    /// (`1 234,50` read as `1234.5`): what the message diffs, so that it shows the difference
    /// that counted.
    pub compared: Option<(Value, Value)>,
    /// When the prediction lacks the field: its field one edit from it that gold does not list
    /// (`invoice_nr` for `invoice_no`), a key the extraction may have misnamed.
    pub misnamed: Option<String>,
    /// Where gold and the prediction place the value, and how well they agree, when gold
    /// gives a place.
    pub grounding: Option<FieldGrounding>,
    /// What kind of miss the field is, when it is not an exact match.
    pub miss: Option<crate::evaluate::miss::Miss>,
}

/// Where a field's value is, by gold and by the prediction, and how well they agree.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct FieldGrounding {
    /// The gold page, from 1.
    pub gold_page: Option<u32>,
    /// The gold box `[x0, y0, x1, y1]`, in fractions of the page (pixels divided by the page's
    /// size under `bbox_units: pixels`).
    pub gold_bbox: Option<[f64; 4]>,
    /// The predicted page.
    pub predicted_page: Option<u32>,
    /// The predicted box, in fractions of the page.
    pub predicted_bbox: Option<[f64; 4]>,
    /// 1 when the pages agree, 0 when they differ or the prediction gives none; absent when gold
    /// gives no page.
    pub page_match: Option<f64>,
    /// IoU of the two boxes (0 on different pages, or without a predicted box); absent when
    /// gold gives no box.
    pub iou: Option<f64>,
    /// 1 when the page is right (where gold gives one) and the IoU reaches `grounded_iou`
    /// (where gold gives a box).
    pub grounded: f64,
}

/// A gold item and the predicted item the list scoring paired it with.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct MatchedItem {
    /// The gold item's index; `None` for an extra predicted item.
    pub gold: Option<usize>,
    /// The predicted item's index; `None` for a gold item left unmatched.
    pub prediction: Option<usize>,
    /// The pair's score.
    pub score: f64,
}

/// Case metrics; `None` when they cannot be computed (no gold, no critical field, no confidence).
#[derive(
    Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// Mean EM over the gold fields.
    pub exact_match: Option<f64>,
    /// Mean ANLS over the gold fields.
    pub anls: Option<f64>,
    /// Mean EM over the critical fields.
    pub exact_critical: Option<f64>,
    /// Mean ANLS over the critical fields.
    pub anls_critical: Option<f64>,
    /// Brier score over the fields with a confidence.
    pub brier: Option<f64>,
    /// Expected calibration error over the fields with a confidence.
    pub ece: Option<f64>,
    /// Latency: measured around the pipeline's run, else reported by the prediction.
    pub latency_ms: Option<f64>,
    /// input tokens / 1e6 · input price + output tokens / 1e6 · output price.
    pub cost_usd: Option<f64>,
    /// Number of predicted fields with a value that gold does not list.
    pub extra_fields: Option<f64>,
    /// Field-level precision: correct non-empty predicted fields over non-empty predicted fields.
    pub precision: Option<f64>,
    /// Field-level recall: correct non-empty predicted fields over non-empty gold fields.
    pub recall: Option<f64>,
    /// Harmonic mean of precision and recall.
    pub f1: Option<f64>,
    /// KIEval's aligned score (`profile: kieval`): right entities over right, wrong and missing
    /// ones once the items of groups are aligned.
    #[serde(default)]
    pub aligned: Option<f64>,
    /// KIEval's counts (`profile: kieval`), from which its precision, recall, F1 and aligned are
    /// computed.
    // Boxed: 192 bytes that only KIEval's cases have, in every case's metrics.
    #[serde(default)]
    pub kieval: Option<Box<crate::metrics::kieval::Counts>>,
    /// Share of the gold fields with a place that the prediction found there: right page, IoU
    /// at least the suite's `grounded_iou`.
    #[serde(default)]
    pub grounded: Option<f64>,
    /// Mean IoU over the gold fields with a box.
    #[serde(default)]
    pub iou: Option<f64>,
    /// Share of the gold fields with a page found on it.
    #[serde(default)]
    pub page_match: Option<f64>,
}

impl Metrics {
    /// The case's value of a metric (`score` and `pass_rate` are not case metrics: `None`).
    pub fn get(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::ExactMatch => self.exact_match,
            Metric::Anls => self.anls,
            Metric::ExactCritical => self.exact_critical,
            Metric::AnlsCritical => self.anls_critical,
            Metric::Brier => self.brier,
            Metric::Ece => self.ece,
            Metric::ExtraFields => self.extra_fields,
            Metric::F1 => self.f1,
            Metric::Precision => self.precision,
            Metric::Recall => self.recall,
            Metric::LatencyMs => self.latency_ms,
            Metric::CostUsd => self.cost_usd,
            Metric::Grounded => self.grounded,
            Metric::Iou => self.iou,
            Metric::PageMatch => self.page_match,
            Metric::Score
            | Metric::AutomationRate
            | Metric::PassRate
            | Metric::GatePassRate
            | Metric::MeanScore
            | Metric::MustRightAccuracy
            | Metric::EasyWrongAccuracy
            | Metric::PassAllK
            | Metric::PassAnyK
            | Metric::FlipRate => None,
        }
    }
}

impl Outcome {
    /// The value of a metric for this case, the score included.
    pub fn value(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Score => Some(self.score),
            other => self.metrics.get(other),
        }
    }
}

/// A rubric and what came of it.
#[derive(Debug, Clone)]
pub struct RubricVerdict {
    /// The rubric.
    pub rubric: std::sync::Arc<Rubric>,
    /// Whether it held, and why.
    pub verdict: Verdict,
}

/// A threshold and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdVerdict {
    /// The key (`min_anls`).
    pub name: String,
    /// The metric it bounds.
    pub metric: Metric,
    /// The limit.
    pub limit: f64,
    /// The measured value, `None` when the metric is absent.
    pub value: Option<f64>,
    /// Whether it held.
    pub held: bool,
    /// `max_*` or `min_*`.
    pub is_max: bool,
    /// Why an absent metric could not be measured.
    pub absent_because: Option<crate::evaluate::finding::Absent>,
    /// The file the threshold is written in (the case, a suite's `defaults` or `aggregate`).
    pub file: std::path::PathBuf,
    /// Its line there.
    pub line: u64,
    /// Its column there.
    pub column: u64,
}

impl ThresholdVerdict {
    /// The verdict of `threshold` on a measured `value`; `why_absent` explains a missing one.
    pub fn of(
        threshold: &Threshold,
        value: Option<f64>,
        why_absent: impl FnOnce() -> crate::evaluate::finding::Absent,
    ) -> ThresholdVerdict {
        ThresholdVerdict {
            name: threshold.name.clone(),
            metric: threshold.metric,
            limit: threshold.limit,
            value,
            held: value.is_some_and(|v| threshold.holds(v)),
            is_max: threshold.is_max,
            absent_because: value.is_none().then(why_absent),
            file: threshold.file.clone(),
            line: threshold.line,
            column: threshold.column,
        }
    }
}

/// The outcome of one rubric.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether the check held.
    pub held: bool,
    /// What the check found there.
    pub finding: crate::evaluate::finding::Finding,
    /// Whether the check could be made at all (a misspelt field, a judge without a verdict
    /// could not): a rubric not checked fails, but says nothing of the prediction.
    pub checked: bool,
}

impl Outcome {
    /// The Must-Right rubrics that failed and closed the gate.
    pub fn closed_by(&self) -> impl Iterator<Item = &RubricVerdict> {
        self.rubrics
            .iter()
            .filter(|r| !r.verdict.held && r.rubric.kind == RubricKind::MustRight)
    }
}
