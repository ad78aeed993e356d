//! The `docubench` profile over a whole case: the document scored as DocuBench scores it (its
//! gold, its prediction and its schema as typed JSON), each gold field's part of that score
//! its EM (1 when every leaf of it matches) and ANLS, the document's score the case's ANLS.
//!
//! The typed JSON is the gold file's and the prediction document's when there are such files;
//! gold written in YAML and predictions written inline are read as JSON the profile's way
//! (a text that reads as a number is a number), and a case without a schema is scored over
//! its gold's shape.

use std::borrow::Cow;

use crate::base::value::Value;
use crate::metrics::docubench::{FieldPart, SchemaError, json_of, schema_of, score_fields};
use crate::model::case::Case;
use crate::model::prediction::Prediction;

/// The document's score and each top-level field's part of it.
pub(crate) struct Scored {
    /// The document's score: the case's ANLS.
    pub score: f64,
    /// Each top-level field of the schema, by name.
    pub fields: Vec<FieldPart>,
}

/// Scores the case's document; an error when its schema cannot be scored.
pub(crate) fn document(case: &Case, prediction: &Prediction) -> Result<Scored, SchemaError> {
    // Borrowed where the case and prediction hold the JSON already: no tree is copied.
    let label: Cow<serde_json::Value> = match &case.gold_json {
        Some(gold) => Cow::Borrowed(&**gold),
        None => Cow::Owned(json_of(&Value::Map(
            case.gold
                .as_deref()
                .unwrap_or_default()
                .iter()
                .map(|g| {
                    (
                        g.name.clone(),
                        g.variants.first().cloned().unwrap_or(Value::Null),
                    )
                })
                .collect(),
        ))),
    };
    let result: Cow<serde_json::Value> = match &prediction.document {
        Some(document) => Cow::Borrowed(&**document),
        None => Cow::Owned(json_of(&Value::Map(
            prediction
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.value.clone()))
                .collect(),
        ))),
    };
    let schema: Cow<serde_json::Value> = match &case.schema {
        Some(schema) => Cow::Borrowed(&**schema),
        None => Cow::Owned(schema_of(&label)),
    };
    let (document, fields) = score_fields(&result, &schema, &label)?;
    Ok(Scored {
        score: document.score,
        fields,
    })
}
