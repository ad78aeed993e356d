//! `acceptance:`, as written: the thresholds at which a suite's confidences are pooled over
//! every field.

use crate::base::spanned::Spanned;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

/// Accepting every field's values at chosen thresholds, pooled over the fields: the approval
/// rate and the precision at each (`{ thresholds: [0.9, 0.99], accept: above, share_of: labels }`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptanceSpec {
    /// The thresholds t, each in [0, 1].
    #[schemars(with = "Vec<f64>")]
    pub thresholds: Vec<Spanned<f64>>,
    /// `at_least` (confidence ≥ t, the default, as each field's curve) or `above` (confidence > t).
    #[serde(default)]
    #[schemars(schema_with = "accept")]
    pub accept: Option<Spanned<String>>,
    /// What the approval rate is a share of: `values` (the values with a confidence, the
    /// default) or `labels` (every gold field of the cases, with a confidence or not).
    #[serde(default)]
    #[schemars(schema_with = "share_of")]
    pub share_of: Option<Spanned<String>>,
}

fn accept(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "Which values a threshold t accepts: confidence ≥ t (`at_least`, the default) or > t (`above`).",
        "enum": ["at_least", "above"]
    })
}

fn share_of(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "What the approval rate is a share of: the values with a confidence (`values`, the default) or every gold field (`labels`).",
        "enum": ["values", "labels"]
    })
}
