//! The case metrics of `profile: kieval`: KIEval's counts of the document, and its precision,
//! recall, F1 and aligned score of them (a pipeline's are computed from the counts pooled over
//! its cases, as KIEval pools them over the set).

use crate::base::value::Value;
use crate::evaluate::outcome::Metrics;
use crate::metrics::kieval::{Counts, Document, Shortlist, score};
use crate::model::case::GoldField;
use crate::model::prediction::Prediction;

/// Sets the case's KIEval metrics in place of the field-level precision, recall and F1; only the
/// keys of `shortlist` are scored, when the suite gives one.
pub(super) fn apply(
    metrics: &mut Metrics,
    gold: &[GoldField],
    prediction: &Prediction,
    shortlist: Option<&Shortlist>,
) {
    let gold = Document::of_fields(
        gold.iter()
            .map(|g| (g.name.as_str(), g.variants.first().unwrap_or(&Value::Null))),
    );
    let pred = Document::of_fields(
        prediction
            .fields
            .iter()
            .map(|f| (f.name.as_str(), &f.value)),
    );
    let (gold, pred) = match shortlist {
        Some(keys) => (gold.keep_only(keys), pred.keep_only(keys)),
        None => (gold, pred),
    };
    set(metrics, score(&gold, &pred));
}

/// The scores of KIEval's counts.
pub(crate) fn set(metrics: &mut Metrics, counts: Counts) {
    let t = counts.total;
    metrics.precision = Some(t.precision());
    metrics.recall = Some(t.recall());
    metrics.f1 = Some(t.f1());
    metrics.aligned = Some(t.aligned());
    metrics.kieval = Some(Box::new(counts));
}
