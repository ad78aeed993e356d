//! A prediction: what the extraction produced for one document.

use crate::base::value::Value;

/// What the extraction produced for one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The predicted fields in written order; empty for a text prediction.
    pub fields: Vec<PredictedField>,
    /// The whole prediction as text, for rubrics without `field`.
    pub text: String,
    /// Whether this is a field document (as opposed to plain text).
    pub is_document: bool,
    /// Latency reported by the pipeline, in milliseconds.
    pub latency_ms: Option<f64>,
    /// Token usage reported by the pipeline.
    pub usage: Option<Usage>,
    /// The model that produced it.
    pub model: Option<String>,
}

/// One predicted field.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictedField {
    /// The field name.
    pub name: String,
    /// The value.
    pub value: Value,
    /// The model's confidence in [0, 1], when given.
    pub confidence: Option<f64>,
    /// The other keys of a value object (`page`, `bbox`, `logprob`, `source`…): kept, never scored.
    pub metadata: Vec<(String, serde_json::Value)>,
    /// The value object as written, for a field whose gold is itself a mapping with a `value`
    /// key (then the mapping is what is compared).
    pub whole: Option<crate::base::json::Json>,
}

/// Token counts of one call.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Prompt (input) tokens.
    pub input_tokens: Option<f64>,
    /// Output (completion, candidates) tokens.
    pub output_tokens: Option<f64>,
    /// Total tokens.
    pub total_tokens: Option<f64>,
}

impl Prediction {
    /// The predicted field of that name.
    pub fn field(&self, name: &str) -> Option<&PredictedField> {
        self.fields.iter().find(|f| f.name == name)
    }
}
