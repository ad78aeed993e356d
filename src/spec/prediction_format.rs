//! `prediction_format:`, as written: where the parts of a prediction are in a pipeline's own
//! document.

use std::collections::BTreeMap;

use crate::base::spanned::Spanned;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::Node;

/// Where a pipeline's document holds the parts of a prediction. Each path is dotted
/// (`meta.usage`, a list index as a number: `choices.0`) or a JSON pointer (`/meta/usage`).
/// Keys of the document the format does not name are ignored.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PredictionFormatSpec {
    /// The path of the predicted fields (a mapping; `null` there is a failed call).
    #[schemars(with = "String")]
    pub fields: Spanned<String>,
    /// The path of the latency in seconds.
    #[schemars(with = "Option<String>")]
    pub latency_s: Option<Spanned<String>>,
    /// The path of the latency in milliseconds.
    #[schemars(with = "Option<String>")]
    pub latency_ms: Option<Spanned<String>>,
    /// The path of the provider's usage mapping, read in the provider's own names.
    #[schemars(with = "Option<String>")]
    pub usage: Option<Spanned<String>>,
    /// The path of the model's name.
    #[schemars(with = "Option<String>")]
    pub model: Option<Spanned<String>>,
    /// The path of a cost in US dollars the pipeline reports itself (a `null` is not reported);
    /// it wins over one computed from `pricing`.
    #[schemars(with = "Option<String>")]
    pub cost_usd: Option<Spanned<String>>,
    /// The path of a mapping of field names to confidences beside the fields
    /// (`predicted_field_conf_scores`); a field's own `confidence` may not say it twice.
    #[schemars(with = "Option<String>")]
    pub confidence: Option<Spanned<String>>,
    /// Paths and the values they hold in a successful call (`{ status: ok }`): any other value
    /// is a failed call.
    #[serde(default)]
    #[schemars(schema_with = "ok")]
    pub ok: Option<BTreeMap<String, Node>>,
}

/// `ok:` a mapping of paths to scalars.
fn ok(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "Paths and the values they hold in a successful call (`{ status: ok }`): any other value is a failed call.",
        "type": "object",
        "additionalProperties": { "type": ["string", "number", "integer", "boolean"] }
    })
}
