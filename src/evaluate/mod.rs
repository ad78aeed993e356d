//! Layer 3, evaluation: Case × Prediction -> Outcome (field scores, checks, the gate, thresholds),
//! and what is made of outcomes: aggregates, baseline comparison, the records of a run's tests.
//! Pure: knows nothing of terminals, files or processes.

pub mod aggregate;
pub mod aggregate_result;
pub mod analysis;
pub mod baseline;
pub mod checks;
pub mod digest;
mod docubench;
pub mod field;
pub mod finding;
pub mod gate;
pub mod grounding;
pub mod headline;
pub mod judge;
mod kieval;
pub mod miss;
pub mod outcome;
pub mod paired;
pub mod record;
pub mod repeat;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::base::budget::{CASE_STEPS, FIELD_STEPS};
use crate::base::value::Value;
use crate::evaluate::checks::{Context, gated_score_by};
use crate::evaluate::field::{
    Scored, apply_path_rules, has_alternatives, matched_items, resolved_gold, score_field,
};
use crate::evaluate::finding::{Absent, BeforeScoring, Note, PathRule, Problem, Spot};
use crate::evaluate::judge::Judgments;
use crate::evaluate::outcome::{
    FieldRow, MatchedItem, Metrics, Outcome, RubricVerdict, ThresholdVerdict,
};
use crate::metrics::effort::{self, Exceeded};
use crate::metrics::{brier, ece};
use crate::model::case::{Case, GoldField, Price};
use crate::model::metric::Metric;
use crate::model::prediction::Prediction;

/// Scores one prediction against its case, within [`CASE_STEPS`] of work: a case that needs
/// more fails saying so, rather than holding the run for minutes.
pub fn evaluate(case: &Case, prediction: &Prediction) -> Outcome {
    evaluate_judged(case, prediction, &Judgments::none())
}

/// [`evaluate`] with the verdicts of the case's `judge:` checks; the questions without one are
/// left in `judgments.missing`.
pub fn evaluate_judged(case: &Case, prediction: &Prediction, judgments: &Judgments) -> Outcome {
    evaluate_within(case, prediction, judgments, CASE_STEPS)
}

fn evaluate_within(
    case: &Case,
    prediction: &Prediction,
    judgments: &Judgments,
    steps: u64,
) -> Outcome {
    // The gold field being scored (by its place), for the message of one that runs out of steps.
    let mut last_field = None;
    match effort::within(steps, || {
        scored(case, prediction, judgments, &mut last_field)
    }) {
        Ok(outcome) => outcome,
        Err(Exceeded) => {
            let gold = case.gold.as_deref().unwrap_or(&[]);
            over_budget(
                case,
                last_field
                    .and_then(|i| gold.get(i))
                    .map(|g| g.name.as_str()),
            )
        }
    }
}

/// The outcome of a case whose scoring ran out of steps while scoring `field` (its rubrics, when
/// `None`): failed, with nothing measured, for a number computed halfway would mislead. Located
/// at the field's gold.
fn over_budget(case: &Case, field: Option<&str>) -> Outcome {
    let line = field
        .and_then(|f| case.gold.iter().flatten().find(|g| g.name == f))
        .map_or(1, |g| g.line);
    Outcome {
        problems: vec![Problem::OverBudget {
            file: case.file.display().to_string(),
            line,
            field: field.map(str::to_owned),
            steps: CASE_STEPS,
        }],
        fields: Vec::new(),
        metrics: Metrics::default(),
        rubrics: Vec::new(),
        gate_open: false,
        score: 0.0,
        thresholds: Vec::new(),
        passed: false,
        extra_fields: Vec::new(),
        target_error: case.target_error,
        acceptance: case.acceptance.clone(),
    }
}

/// The metrics of a scored case, and the predicted fields gold does not list.
fn case_metrics(
    case: &Case,
    prediction: &Prediction,
    fields: &[FieldRow],
    names: &Names,
) -> (Metrics, Vec<(String, Value)>) {
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
        cost_usd: cost(prediction, &case.pricing),
        ..Metrics::default()
    };
    let places_any = prediction.fields.iter().any(|f| f.place.is_some());
    let (grounded, iou, page_match) = grounding::case_grounding(fields, places_any);
    let metrics = Metrics {
        grounded,
        iou,
        page_match,
        ..metrics
    };
    let extra_fields: Vec<(String, Value)> = prediction
        .fields
        .iter()
        .filter(|f| {
            // Under a schema, only the fields it names are scored (they are the gold's).
            case.gold.is_some()
                && case.schema.is_none()
                && f.value.has_value()
                && !names.gold.contains(f.name.as_str())
        })
        .map(|f| (f.name.clone(), f.value.clone()))
        .collect();
    let metrics = if has_gold && prediction.is_document {
        let (precision, recall, f1) = field_f1(fields, extra_fields.len());
        Metrics {
            extra_fields: Some(extra_fields.len() as f64),
            precision: Some(precision),
            recall: Some(recall),
            f1: Some(f1),
            ..metrics
        }
    } else {
        metrics
    };
    (metrics, extra_fields)
}

fn scored(
    case: &Case,
    prediction: &Prediction,
    judgments: &Judgments,
    last_field: &mut Option<usize>,
) -> Outcome {
    let gold = case.gold.as_deref().unwrap_or(&[]);
    let names = Names::of(case, prediction);
    let mut fields = match field_rows(case, &names, last_field) {
        Ok(fields) => fields,
        Err(field) => return over_budget(case, Some(field)),
    };
    // Under `docubench` the document is scored whole, and each field is its part of that score.
    let document = (case.profile == crate::model::case::Profile::DocuBench)
        .then(|| docubench::document(case, prediction));
    if let Some(Ok(document)) = &document {
        rescore_as_parts(&mut fields, document);
    }
    for row in &mut fields {
        row.miss = miss::miss_of(row.em, &row.gold, &row.prediction);
    }
    let (mut metrics, extra_fields) = case_metrics(case, prediction, &fields, &names);
    if let Some(Ok(document)) = &document {
        metrics.anls = Some(document.score);
    }
    if case.profile == crate::model::case::Profile::KiEval
        && case.gold.is_some()
        && prediction.is_document
    {
        kieval::apply(&mut metrics, gold, prediction, case.kieval_keys.as_deref());
    }
    let Some(rubrics) = rubric_verdicts(case, prediction, judgments) else {
        return over_budget(case, None);
    };
    let (gate_open, score) = gated_score_by(
        &rubrics
            .iter()
            .map(|r| (r.rubric.kind, r.rubric.penalty, r.verdict.held))
            .collect::<Vec<_>>(),
        case.scoring,
    );
    let thresholds: Vec<ThresholdVerdict> = case
        .thresholds
        .iter()
        .map(|t| {
            let value = match t.metric {
                Metric::Score => Some(score),
                other => metrics.get(other),
            };
            ThresholdVerdict::of(t, value, || why_absent(t.metric, case, prediction))
        })
        .collect();
    let problems = problems_of(case, prediction, document);
    let passed = gate_open && thresholds.iter().all(|t| t.held) && problems.is_empty();
    Outcome {
        problems,
        fields,
        metrics,
        rubrics,
        gate_open,
        score,
        thresholds,
        passed,
        extra_fields,
        target_error: case.target_error,
        acceptance: case.acceptance.clone(),
    }
}

/// Each gold field scored, in order; the field the case ran out of steps on, if it did
/// (`last_field` says where too, for `within`).
fn field_rows<'a>(
    case: &'a Case,
    names: &Names,
    last_field: &mut Option<usize>,
) -> Result<Vec<FieldRow>, &'a str> {
    let gold = case.gold.as_deref().unwrap_or(&[]);
    let mut fields: Vec<FieldRow> = Vec::with_capacity(gold.len());
    for (i, g) in gold.iter().enumerate() {
        *last_field = Some(i);
        // Every field costs its share, however cheap its comparison: a case of 100,000 short
        // fields is bounded by the steps too.
        effort::spend(FIELD_STEPS);
        fields.push(field_row(g, case, names));
        // Out of steps: stop scoring now (`within` reports it, and the outcome is rebuilt there).
        if effort::exhausted() {
            return Err(&g.name);
        }
    }
    *last_field = None;
    Ok(fields)
}

/// Each field's ANLS and EM as its part of the DocuBench document's score (the last part of a
/// name, where several share one).
fn rescore_as_parts(fields: &mut [FieldRow], document: &docubench::Scored) {
    let parts: HashMap<&str, _> = document
        .fields
        .iter()
        .rev()
        .map(|p| (p.name.as_str(), p))
        .collect();
    for row in fields {
        if let Some(part) = parts.get(row.name.as_str()) {
            row.anls = part.score;
            row.em = if part.score == 1.0 { 1.0 } else { 0.0 };
        }
    }
}

/// Each rubric judged, in order; `None` when the case runs out of steps.
fn rubric_verdicts(
    case: &Case,
    prediction: &Prediction,
    judgments: &Judgments,
) -> Option<Vec<RubricVerdict>> {
    let cx = Context {
        prediction,
        judgments,
        gold: case.gold.as_deref().unwrap_or(&[]),
        profile: case.profile,
        normalize: case.normalize,
        whole_text: std::cell::OnceCell::new(),
        whole_normalized: Default::default(),
    };
    let mut rubrics: Vec<RubricVerdict> = Vec::with_capacity(case.rubrics.len());
    for rubric in &case.rubrics {
        rubrics.push(RubricVerdict {
            rubric: rubric.clone(),
            verdict: rubric.judge(&cx),
        });
        // One budget for the whole case: the rubrics spend what the fields left.
        if effort::exhausted() {
            return None;
        }
    }
    Some(rubrics)
}

/// What fails a case besides its checks: places off the page, confidences out of range, a
/// model without a price, a document DocuBench cannot score.
fn problems_of(
    case: &Case,
    prediction: &Prediction,
    document: Option<Result<docubench::Scored, crate::metrics::docubench::SchemaError>>,
) -> Vec<Problem> {
    let mut problems: Vec<Problem> = off_the_page(case, prediction);
    problems.extend(confidences_out_of_range(prediction));
    problems.extend(unpriced(prediction, case));
    if let Some(Err(why)) = document {
        problems.push(Problem::Unscorable {
            file: case.file.display().to_string(),
            why: why.to_string(),
        });
    }
    problems
}

/// A case's field names, looked up once: a search of the prediction (or the gold) for each
/// field would make a case of many fields quadratic.
struct Names<'a> {
    /// Each predicted field by name, the first of a name (as [`Prediction::field`] finds it).
    predicted: HashMap<&'a str, &'a crate::model::prediction::PredictedField>,
    /// The gold's field names.
    gold: HashSet<&'a str>,
    /// The predicted names the gold does not list, in written order.
    unlisted: Vec<&'a str>,
    /// The critical fields.
    critical: HashSet<&'a str>,
}

impl<'a> Names<'a> {
    fn of(case: &'a Case, prediction: &'a Prediction) -> Names<'a> {
        let gold: HashSet<&str> = case
            .gold
            .iter()
            .flatten()
            .map(|g| g.name.as_str())
            .collect();
        // Sized once: growing the table as it fills cost a tenth of scoring a case.
        let mut predicted = HashMap::with_capacity(prediction.fields.len());
        for f in &prediction.fields {
            predicted.entry(f.name.as_str()).or_insert(f);
        }
        let unlisted = prediction
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| !gold.contains(n))
            .collect();
        Names {
            predicted,
            gold,
            unlisted,
            critical: case.critical.iter().map(String::as_str).collect(),
        }
    }
}

/// One gold field scored against the prediction: its row of the outcome.
fn field_row(g: &GoldField, case: &Case, names: &Names) -> FieldRow {
    let predicted = names.predicted.get(g.name.as_str()).copied();
    let (whole, value) = predicted_value(g, predicted);
    // Rules on paths inside the value: its leaves there are compared as the rules say (without
    // rules, as they are: nothing is copied).
    let (variants, compared): (Cow<[Value]>, Cow<Value>) = if g.path_rules.is_empty() {
        (Cow::Borrowed(&g.variants), Cow::Borrowed(&value))
    } else {
        let (variants, compared) = apply_path_rules(&g.path_rules, &g.variants, &value);
        (Cow::Owned(variants), Cow::Owned(compared))
    };
    let Scored {
        em,
        anls,
        note,
        closest,
    } = score_field(&variants, g.rule, &compared, case.normalize, case.profile);
    let note = note.or_else(|| compared_inside(g));
    let resolved = (em < 1.0 && has_alternatives(&variants[closest]))
        .then(|| resolved_gold(&variants[closest], &compared, case.normalize, case.profile));
    let shown_gold = resolved.as_ref().unwrap_or(&variants[closest]);
    let items = if em < 1.0 {
        items_matched(shown_gold, &compared, case)
    } else {
        Vec::new()
    };
    let compared =
        (em < 1.0 && !g.path_rules.is_empty()).then(|| (shown_gold.clone(), compared.into_owned()));
    FieldRow {
        name: g.name.clone(),
        // A line of the case file; a gold file's lines are not where a reader of the case looks.
        line: if case.gold_file.is_none() { g.line } else { 0 },
        gold: g.variants.clone(),
        prediction: value,
        predicted: predicted.is_some(),
        confidence: predicted
            .filter(|p| !whole || p.whole.is_none())
            .and_then(|p| p.confidence),
        metadata: predicted
            .filter(|p| !whole || p.whole.is_none())
            .map_or_else(Vec::new, |p| p.metadata.clone()),
        em,
        anls,
        critical: names.critical.contains(g.name.as_str()),
        note,
        closest,
        resolved,
        items,
        compared,
        // Classed once the field's EM is final (a profile may rescore it): in `scored`.
        miss: None,
        grounding: grounding::field_grounding(
            g.place,
            predicted.and_then(|p| p.place),
            &case.grounding,
        ),
        misnamed: predicted
            .is_none()
            .then(|| crate::evaluate::field::misnamed_among(&g.name, &names.unlisted))
            .flatten()
            .map(str::to_owned),
    }
}

/// The predicted value of a gold field, and whether it is compared whole: a gold that is
/// itself a mapping with a `value` key compares the value object whole.
fn predicted_value(
    g: &GoldField,
    predicted: Option<&crate::model::prediction::PredictedField>,
) -> (bool, Value) {
    let whole = g
        .variants
        .iter()
        .any(|v| matches!(v, Value::Map(_)) && v.get("value").is_some());
    let value = match predicted {
        Some(p) if whole => p
            .whole
            .clone()
            .map_or_else(|| p.value.clone(), crate::base::json::Json::into_value),
        Some(p) => p.value.clone(),
        None => Value::Null,
    };
    (whole, value)
}

/// How a field with rules on paths inside its value was compared, when no other note says.
fn compared_inside(g: &GoldField) -> Option<Note> {
    (!g.path_rules.is_empty()).then(|| Note::Inside {
        rules: g
            .path_rules
            .iter()
            .map(|(path, c)| PathRule {
                path: path.to_string(),
                reading: (*c).into(),
            })
            .collect(),
    })
}

/// The items of a gold list paired with the prediction's, each with its score, for a list
/// field that did not match exactly.
fn items_matched(gold: &Value, compared: &Value, case: &Case) -> Vec<MatchedItem> {
    match (gold, compared) {
        (Value::List(gold), Value::List(pred)) => {
            matched_items(gold, pred, case.normalize, case.profile)
                .into_iter()
                .map(|(gold, prediction, score)| MatchedItem {
                    gold,
                    prediction,
                    score,
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// Why a case metric a threshold bounds could not be measured.
fn why_absent(metric: Metric, case: &Case, prediction: &Prediction) -> Absent {
    let gold_places = |has: fn(&crate::model::place::Place) -> bool| {
        case.gold
            .iter()
            .flatten()
            .any(|g| g.place.as_ref().is_some_and(has))
    };
    match metric {
        Metric::Grounded | Metric::Iou | Metric::PageMatch
            if !gold_places(|p| p.page.is_some() || p.bbox.is_some()) =>
        {
            Absent::NoGoldPlace
        }
        Metric::Iou if !gold_places(|p| p.bbox.is_some()) => Absent::NoGoldBox,
        Metric::PageMatch if !gold_places(|p| p.page.is_some()) => Absent::NoGoldPage,
        Metric::Grounded | Metric::Iou | Metric::PageMatch => Absent::NoPredictedPlace,
        Metric::ExactMatch | Metric::Anls => Absent::NoGoldFields,
        Metric::ExactCritical | Metric::AnlsCritical => Absent::NoCriticalField,
        Metric::Brier | Metric::Ece => Absent::NoConfidence,
        Metric::LatencyMs => Absent::NoLatency,
        Metric::CostUsd => match (&prediction.usage, &prediction.model) {
            (None, _) => Absent::NoUsage,
            (_, None) => Absent::NoModel,
            (_, Some(model)) => Absent::NoPrice {
                model: model.clone(),
            },
        },
        Metric::PassRate => Absent::OfAnAggregate,
        _ => Absent::NoFieldsCounted,
    }
}

/// What `test` would find wrong with a case and its prediction before any score, for `lint`:
/// rubrics reading a field one edit from a known one, a model the suite's `pricing` lacks.
pub(crate) fn before_scoring(case: &Case, prediction: &Prediction) -> Vec<BeforeScoring> {
    let gold = case.gold.as_deref().unwrap_or(&[]);
    let none = Judgments::none();
    let cx = Context {
        prediction,
        judgments: &none,
        gold,
        profile: case.profile,
        normalize: case.normalize,
        whole_text: std::cell::OnceCell::new(),
        whole_normalized: Default::default(),
    };
    let mut found: Vec<BeforeScoring> = case
        .rubrics
        .iter()
        .filter_map(|r| {
            Some(BeforeScoring::Misspelt {
                typo: crate::evaluate::checks::misspelt_field(r, &cx)?,
                at: Spot {
                    file: r.file.display().to_string(),
                    line: r.line,
                    column: r.column,
                },
                kind: r.kind.key(),
                label: r.label.clone(),
            })
        })
        .collect();
    found.extend(unpriced_model(prediction, case).map(|(model, closest)| {
        BeforeScoring::Unpriced {
            case: case.file.display().to_string(),
            model: model.to_owned(),
            closest: closest.to_owned(),
            pricing: pricing_at(case),
        }
    }));
    found.extend(
        off_the_page(case, prediction)
            .into_iter()
            .map(BeforeScoring::OffThePage),
    );
    found.extend(
        confidences_out_of_range(prediction)
            .into_iter()
            .map(BeforeScoring::ConfidenceOutOfRange),
    );
    found
}

/// The predicted confidences outside [0, 1], located where the prediction writes them.
fn confidences_out_of_range(prediction: &Prediction) -> Vec<Problem> {
    prediction
        .fields
        .iter()
        .filter_map(|f| f.confidence_error.as_ref())
        .map(|at| Problem::ConfidenceOutOfRange {
            at: Spot {
                file: at.file.display().to_string(),
                line: at.line,
                column: at.column,
            },
            path: at.yaml_path.clone(),
            message: at.message.clone(),
            hint: at.hint.clone().unwrap_or_default(),
        })
        .collect()
}

/// Where the suite's `pricing` is written.
fn pricing_at(case: &Case) -> Option<Spot> {
    case.pricing_at.as_ref().map(|(file, mark)| Spot {
        file: file.display().to_string(),
        line: mark.line,
        column: mark.column,
    })
}

/// The predicted boxes of grounded fields beyond the page the case's units allow, located
/// where the prediction writes them.
fn off_the_page(case: &Case, prediction: &Prediction) -> Vec<Problem> {
    // Looked up by name: a search of the gold per predicted field is quadratic.
    let boxed: HashSet<&str> = case
        .gold
        .iter()
        .flatten()
        .filter(|g| g.place.is_some_and(|g| g.bbox.is_some()))
        .map(|g| g.name.as_str())
        .collect();
    prediction
        .fields
        .iter()
        .filter(|p| boxed.contains(p.name.as_str()))
        .filter_map(|p| {
            let place = p.place?;
            let (message, hint) =
                grounding::beyond_the_page(place.bbox?, place.page, &case.grounding)?;
            let at = p.bbox_at.as_ref()?;
            Some(Problem::OffThePage {
                at: Spot {
                    file: at.file.display().to_string(),
                    line: at.line,
                    column: at.column,
                },
                path: at.yaml_path.clone(),
                message: at
                    .message
                    .replace(crate::model::prediction::BOX_MESSAGE, &message),
                hint,
            })
        })
        .collect()
}

/// A model that a suite declaring `pricing` has no price for: a cost silently left out of a mean
/// would be a silent pass.
fn unpriced(prediction: &Prediction, case: &Case) -> Option<Problem> {
    let (model, closest) = unpriced_model(prediction, case)?;
    Some(Problem::Unpriced {
        model: model.to_owned(),
        closest: closest.to_owned(),
        pricing: pricing_at(case),
    })
}

/// The prediction's model when the suite prices models but not this one, with the closest
/// priced one.
fn unpriced_model<'a>(prediction: &'a Prediction, case: &'a Case) -> Option<(&'a str, &'a str)> {
    // A cost the pipeline reports needs no price.
    if prediction.reported_cost_usd.is_some() {
        return None;
    }
    let pricing = &case.pricing;
    let model = prediction.model.as_deref()?;
    if pricing.is_empty() || pricing.iter().any(|p| p.model == model) {
        return None;
    }
    let closest = pricing
        .iter()
        .map(|p| {
            (
                crate::metrics::levenshtein(model, &p.model),
                p.model.as_str(),
            )
        })
        .min()
        .map(|(_, m)| m)
        .unwrap_or_default();
    Some((model, closest))
}

/// The cost of the prediction's tokens at its model's price, as the provider bills them: every
/// output token (reasoning and thinking included, which the usage already counts in its output)
/// at the output price, cached input at the cached price when the pricing gives one, the rest
/// of the input (cache writes included) at the input price. A cost the pipeline reports itself
/// wins.
fn cost(prediction: &Prediction, pricing: &[Price]) -> Option<f64> {
    if let Some(reported) = prediction.reported_cost_usd {
        return Some(reported);
    }
    let usage = prediction.usage?;
    let model = prediction.model.as_deref()?;
    let price = pricing.iter().find(|p| p.model == model)?;
    if usage.input_tokens.is_none() && usage.output_tokens.is_none() {
        return None;
    }
    let input = usage.input_tokens.unwrap_or(0.0);
    let output = usage.output_tokens.unwrap_or(0.0);
    let cached = match price.cached_input_per_mtok {
        Some(_) => usage.cached_input_tokens.unwrap_or(0.0).min(input),
        None => 0.0,
    };
    let cached_price = price.cached_input_per_mtok.unwrap_or(price.input_per_mtok);
    Some(
        (input - cached) / 1e6 * price.input_per_mtok
            + cached / 1e6 * cached_price
            + output / 1e6 * price.output_per_mtok,
    )
}

/// Precision, recall and F1 over fields (KIEval's entity level): a field is a true positive when
/// its prediction is non-empty and correct by its rule; extra fields are false positives.
///
/// With nothing predicted and nothing to predict, all three are 1; with one side empty, 0.
fn field_f1(fields: &[FieldRow], extra: usize) -> (f64, f64, f64) {
    let true_positives = fields
        .iter()
        .filter(|f| f.prediction.has_value() && f.em == 1.0)
        .count() as f64;
    let predicted = (fields.iter().filter(|f| f.prediction.has_value()).count() + extra) as f64;
    let actual = fields
        .iter()
        .filter(|f| f.gold.iter().any(Value::has_value))
        .count() as f64;
    if predicted == 0.0 && actual == 0.0 {
        return (1.0, 1.0, 1.0);
    }
    let precision = if predicted > 0.0 {
        true_positives / predicted
    } else {
        0.0
    };
    let recall = if actual > 0.0 {
        true_positives / actual
    } else {
        0.0
    };
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    (precision, recall, f1)
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    sum / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::case::{FieldRule, GoldField, PredictionSource, Profile};
    use crate::model::prediction::PredictedField;

    fn case_of(gold: Value) -> Case {
        Case {
            id: "long".into(),
            file: "long.yaml".into(),
            named_by: "long.yaml".into(),
            formerly_named_by: None,
            description: None,
            tags: Vec::new(),
            skip: None,
            prediction: PredictionSource::Text(String::new()),
            gold: Some(vec![GoldField {
                name: "line_items".into(),
                variants: vec![gold],
                line: 2,
                rule: FieldRule::default(),
                path_rules: Vec::new(),
                place: None,
            }]),
            critical: Vec::new(),
            normalize: crate::base::normalize::Normalize::ALL,
            rubrics: Vec::new(),
            thresholds: Vec::new(),
            ece_bins: 10,
            profile: Profile::Dream,
            pipeline: None,
            pricing: Vec::new(),
            pricing_at: None,
            baseline: None,
            history: None,
            aggregates: Vec::new(),
            suite_folder: ".".into(),
            scoring: Default::default(),
            reference: None,
            judge: None,
            pass: Default::default(),
            gold_json: None,
            schema: None,
            attributes: Vec::new(),
            gold_file: None,
            grounding: Default::default(),
            target_error: 0.01,
            acceptance: None,
            kieval_keys: None,
            document: None,
        }
    }

    fn prediction_of(value: Value) -> Prediction {
        Prediction {
            fields: vec![PredictedField {
                name: "line_items".into(),
                value,
                confidence: None,
                metadata: Vec::new(),
                whole: None,
                place: None,
                bbox_at: None,
                confidence_error: None,
            }],
            text: String::new(),
            is_document: true,
            latency_ms: None,
            usage: None,
            model: None,
            reported_cost_usd: None,
            failed: None,
            usage_mismatch: None,
            call: None,
            retried: 0,
            document: None,
        }
    }

    fn items(prefix: &str, n: usize) -> Value {
        Value::List(
            (0..n)
                .map(|i| Value::Text(format!("{prefix}{}", i * 7 % n)))
                .collect(),
        )
    }

    /// A case of `n` flat one-word fields `fI`, predicted as `names` says.
    fn flat(n: usize, predicted: impl Fn(usize) -> (String, String)) -> (Case, Prediction) {
        let mut case = case_of(Value::Null);
        case.gold = Some(
            (0..n)
                .map(|i| GoldField {
                    name: format!("f{i}"),
                    variants: vec![Value::Text(format!("v{i}"))],
                    line: i as u64 + 2,
                    rule: FieldRule::default(),
                    path_rules: Vec::new(),
                    place: None,
                })
                .collect(),
        );
        let mut prediction = prediction_of(Value::Null);
        prediction.fields = (0..n)
            .map(|i| {
                let (name, value) = predicted(i);
                PredictedField {
                    name,
                    value: Value::Text(value),
                    ..prediction_of(Value::Null).fields.remove(0)
                }
            })
            .collect();
        (case, prediction)
    }

    /// Fields whose comparison costs next to nothing were free: 100,000 of them took minutes
    /// with no budget message. Each is charged its share now, and a case of too many fails at
    /// the field where the steps ran out.
    #[test]
    fn every_field_is_charged_to_the_case_budget() {
        let (case, prediction) = flat(1_000, |i| (format!("f{i}"), format!("v{i}")));
        let steps = 1_000 * FIELD_STEPS;
        let scored = evaluate_within(&case, &prediction, &Judgments::none(), 2 * steps);
        assert!(
            scored.passed || scored.problems.is_empty(),
            "{:?}",
            scored.problems
        );
        assert_eq!(scored.fields.len(), 1_000);
        assert_eq!(scored.metrics.exact_match, Some(1.0));
        let cut = evaluate_within(&case, &prediction, &Judgments::none(), steps / 2);
        assert!(!cut.passed && cut.fields.is_empty());
        assert_eq!(
            cut.problems,
            [Problem::OverBudget {
                file: "long.yaml".into(),
                line: 501,
                field: Some("f499".into()),
                steps: CASE_STEPS
            }]
        );
    }

    /// Every gold field missing from a prediction whose keys are all renamed was compared with
    /// every predicted key (and each key checked against every gold name): the search for a
    /// misnamed key is charged per comparison, and still finds one.
    #[test]
    fn the_search_for_misnamed_keys_is_charged_and_finds_them() {
        let (case, prediction) = flat(300, |i| (format!("f{i}_"), format!("v{i}")));
        let scored = evaluate_within(&case, &prediction, &Judgments::none(), CASE_STEPS);
        assert_eq!(scored.fields[7].misnamed.as_deref(), Some("f7_"));
        // 300 × 300 comparisons of short names: beyond 300 fields' own share.
        let cut = evaluate_within(&case, &prediction, &Judgments::none(), 400 * FIELD_STEPS);
        assert!(matches!(cut.problems[..], [Problem::OverBudget { .. }]));
    }

    #[test]
    fn a_case_that_needs_more_work_than_its_budget_fails_saying_so() {
        let case = case_of(items("item ", 60));
        let prediction = prediction_of(items("itme ", 60));
        // 60 × 60 pairs, then the matching: well within a million steps, not within a thousand.
        let scored = evaluate_within(&case, &prediction, &Judgments::none(), 1_000_000);
        assert!(scored.problems.is_empty(), "{:?}", scored.problems);
        assert_eq!(scored.fields.len(), 1);
        let cut = evaluate_within(&case, &prediction, &Judgments::none(), 1_000);
        assert!(!cut.passed && cut.fields.is_empty());
        assert_eq!(cut.problems.len(), 1);
        assert_eq!(
            cut.problems[0],
            Problem::OverBudget {
                file: "long.yaml".into(),
                line: 2,
                field: Some("line_items".into()),
                steps: CASE_STEPS
            }
        );
    }

    #[test]
    fn rubrics_reading_the_whole_text_spend_the_case_budget() {
        use crate::model::rubric::{Check, Probe, Rubric, RubricKind};
        let mut case = case_of(items("item ", 2));
        case.rubrics = (0..64)
            .map(|i| {
                std::sync::Arc::new(Rubric {
                    label: format!("r{i}"),
                    kind: RubricKind::MustRight,
                    probe: Probe {
                        field: None,
                        normalize: None,
                        check: Check::NotContains(vec![format!("needle {i}")]),
                    },
                    penalty: 0.0,
                    file: "long.yaml".into(),
                    line: 3 + i,
                    column: 5,
                    included_at: None,
                })
            })
            .collect();
        let mut prediction = prediction_of(items("item ", 2));
        prediction.text = "word ".repeat(200_000);
        // A million bytes normalized once (a step a byte), then searched 64 times (a step per
        // 8 bytes): some 9 million steps, which 20 million cover and 5 million do not.
        let within = evaluate_within(&case, &prediction, &Judgments::none(), 20_000_000);
        assert!(within.passed, "{:?}", within.problems);
        let cut = evaluate_within(&case, &prediction, &Judgments::none(), 5_000_000);
        assert!(!cut.passed && cut.rubrics.is_empty());
        assert_eq!(
            cut.problems,
            [Problem::OverBudget {
                file: "long.yaml".into(),
                line: 1,
                field: None,
                steps: CASE_STEPS
            }]
        );
    }
}
