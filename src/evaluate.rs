//! Case × Prediction -> Outcome: metrics, field rows, rubric verdicts, threshold verdicts.
//! Knows nothing of terminals or files.

use crate::case::{Case, Metric};
use crate::error::closest_within;
use crate::metrics::{brier, ece};
use crate::prediction::Prediction;
use crate::rubric::{Rubric, RubricKind, Subject, Verdict, field_scores, gated_score};
use crate::value::Value;

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
    /// Gate open and every threshold held.
    pub passed: bool,
}

/// The scores of one gold field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRow {
    /// The field name.
    pub name: String,
    /// Its gold variants.
    pub gold: Vec<Value>,
    /// The predicted value (`Null` when absent).
    pub prediction: Value,
    /// Whether the prediction has the field at all.
    pub predicted: bool,
    /// The confidence the prediction gave, if any.
    pub confidence: Option<f64>,
    /// EM_i.
    pub em: f64,
    /// ANLS_i.
    pub anls: f64,
    /// Whether the field is critical.
    pub critical: bool,
}

/// Case metrics; `None` when they cannot be computed (no gold, no critical field, no confidence).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
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
    /// Latency reported by the prediction.
    pub latency_ms: Option<f64>,
}

/// A rubric and what came of it.
#[derive(Debug, Clone)]
pub struct RubricVerdict {
    /// The rubric.
    pub rubric: Rubric,
    /// Whether it held, and why.
    pub verdict: Verdict,
}

/// A threshold and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdVerdict {
    /// The key (`min_anls`).
    pub name: String,
    /// The limit.
    pub limit: f64,
    /// The measured value, `None` when the metric is absent.
    pub value: Option<f64>,
    /// Whether it held.
    pub held: bool,
    /// `max_*` or `min_*`.
    pub is_max: bool,
    /// Why an absent metric could not be measured.
    pub absent_because: Option<String>,
}

/// Scores one prediction against its case.
pub fn evaluate(case: &Case, prediction: &Prediction) -> Outcome {
    let gold = case.gold.as_deref().unwrap_or(&[]);
    let fields: Vec<FieldRow> = gold
        .iter()
        .map(|g| {
            let predicted = prediction.field(&g.name);
            let value = predicted.map_or(Value::Null, |p| p.value.clone());
            let (em, anls) = field_scores(&g.variants, &value, case.normalize);
            FieldRow {
                name: g.name.clone(),
                gold: g.variants.clone(),
                prediction: value,
                predicted: predicted.is_some(),
                confidence: predicted.and_then(|p| p.confidence),
                em,
                anls,
                critical: case.critical.contains(&g.name),
            }
        })
        .collect();

    let has_gold = case.gold.is_some() && !fields.is_empty();
    let critical: Vec<&FieldRow> = fields.iter().filter(|f| f.critical).collect();
    let (p, o): (Vec<f64>, Vec<bool>) = fields
        .iter()
        .filter_map(|f| f.confidence.map(|c| (c, f.em == 1.0)))
        .unzip();
    let metrics = Metrics {
        exact_match: has_gold.then(|| mean(fields.iter().map(|f| f.em))),
        anls: has_gold.then(|| mean(fields.iter().map(|f| f.anls))),
        exact_critical: (!critical.is_empty()).then(|| mean(critical.iter().map(|f| f.em))),
        anls_critical: (!critical.is_empty()).then(|| mean(critical.iter().map(|f| f.anls))),
        brier: brier(&p, &o),
        ece: ece(&p, &o, case.ece_bins),
        latency_ms: prediction.latency_ms,
    };

    let whole = Value::Text(prediction.text.clone());
    let rubrics: Vec<RubricVerdict> = case
        .rubrics
        .iter()
        .map(|rubric| {
            if let Some(verdict) = misspelt_field(rubric, case, prediction) {
                return RubricVerdict {
                    rubric: rubric.clone(),
                    verdict,
                };
            }
            let (value, gold_variants) = match &rubric.field {
                Some(name) => (
                    prediction.field(name).map_or(&Value::Null, |p| &p.value),
                    gold.iter()
                        .find(|g| &g.name == name)
                        .map(|g| g.variants.as_slice()),
                ),
                None => (&whole, None),
            };
            let verdict = rubric.judge(
                &Subject {
                    value,
                    gold: gold_variants,
                },
                case.normalize,
            );
            RubricVerdict {
                rubric: rubric.clone(),
                verdict,
            }
        })
        .collect();
    let (gate_open, score) = gated_score(
        &rubrics
            .iter()
            .map(|r| (r.rubric.kind, r.rubric.penalty, r.verdict.held))
            .collect::<Vec<_>>(),
    );

    let thresholds: Vec<ThresholdVerdict> = case
        .thresholds
        .iter()
        .map(|t| {
            let value = match t.metric {
                Metric::Score => Some(score),
                Metric::ExactMatch => metrics.exact_match,
                Metric::Anls => metrics.anls,
                Metric::ExactCritical => metrics.exact_critical,
                Metric::AnlsCritical => metrics.anls_critical,
                Metric::Brier => metrics.brier,
                Metric::Ece => metrics.ece,
            };
            let absent_because = value.is_none().then(|| match t.metric {
                Metric::ExactMatch | Metric::Anls => {
                    "the case has no gold fields to compare".to_owned()
                }
                Metric::ExactCritical | Metric::AnlsCritical => {
                    "the case has no critical field".to_owned()
                }
                _ => "no gold field of the prediction carries a confidence".to_owned(),
            });
            ThresholdVerdict {
                name: t.name.clone(),
                limit: t.limit,
                value,
                held: value.is_some_and(|v| t.holds(v)),
                is_max: t.is_max,
                absent_because,
            }
        })
        .collect();

    let passed = gate_open && thresholds.iter().all(|t| t.held);
    Outcome {
        fields,
        metrics,
        rubrics,
        gate_open,
        score,
        thresholds,
        passed,
    }
}

impl Outcome {
    /// The Must-Right rubrics that failed and closed the gate.
    pub fn closed_by(&self) -> impl Iterator<Item = &RubricVerdict> {
        self.rubrics
            .iter()
            .filter(|r| !r.verdict.held && r.rubric.kind == RubricKind::MustRight)
    }
}

/// A rubric whose field is in neither gold nor the prediction, but close to a name that is,
/// is a typo: it fails rather than pass on nothing (`not_contains` on `totl` always holds).
fn misspelt_field(rubric: &Rubric, case: &Case, prediction: &Prediction) -> Option<Verdict> {
    let name = rubric.field.as_deref()?;
    let gold = case.gold.as_deref().unwrap_or(&[]);
    if gold.iter().any(|g| g.name == name) || prediction.field(name).is_some() {
        return None;
    }
    let known = gold
        .iter()
        .map(|g| g.name.as_str())
        .chain(prediction.fields.iter().map(|f| f.name.as_str()));
    // Stricter than for keys: field names are short and an absent field may be meant.
    let best = closest_within(name, known, |len| if len <= 5 { 1 } else { 2 })?;
    Some(Verdict {
        held: false,
        detail: format!(
            "{name}: the field is in neither gold nor the prediction (did you mean `{best}`?)"
        ),
    })
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    sum / n as f64
}
