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
    /// The cost the pipeline reports itself (a `prediction_format`'s `cost_usd`), in US dollars:
    /// it is the case's `cost_usd`, whatever the pricing says.
    pub reported_cost_usd: Option<f64>,
    /// A call the pipeline says failed (a `prediction_format`'s `ok:`, or its fields `null`): the
    /// case fails with the pipeline's own words, nothing scored.
    pub failed: Option<FailedCall>,
    /// A usage whose parts do not add up to its own total: its cost is computed from input +
    /// output as billed, and the run says so.
    pub usage_mismatch: Option<UsageMismatch>,
    /// Where the output of a suite's `run:` command came from; `None` for a recorded file or a
    /// prediction written in the case.
    pub call: Option<CallSource>,
    /// How many times its call was made again before this output (`run.retries`).
    pub retried: u32,
    /// The predicted fields as the JSON document holds them, types and all, kept only when the
    /// case's profile compares typed values (`docubench`).
    pub document: Option<std::sync::Arc<serde_json::Value>>,
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
    /// Where the value object says the value is (`page`, `bbox`), read and checked.
    pub place: Option<crate::model::place::Place>,
    /// Where its `bbox` is written: an error there whose message is [`BOX_MESSAGE`], to be
    /// replaced by what is wrong with the box, which only its case can tell (a box beyond the
    /// page its units allow).
    pub bbox_at: Option<crate::base::location::LoadError>,
    /// A confidence outside [0, 1], located where it is written: the field's value is scored,
    /// the confidence left out, and the case fails saying where (the other fields still count).
    pub confidence_error: Option<crate::base::location::LoadError>,
}

/// What [`PredictedField::bbox_at`]'s message holds until the mistake is known.
pub const BOX_MESSAGE: &str = "\u{1}";

/// Token counts of one call, as the provider bills them, whatever names it wrote them in.
///
/// `input_tokens` is every input token billed, cached ones included (Anthropic writes its cache
/// reads and writes beside its `input_tokens`: they are added in); `output_tokens` every output
/// token billed, reasoning included (Gemini writes its thinking beside its candidates: it is
/// added in). The breakdowns say how much of each is cached or reasoning.
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
    /// Input tokens billed, cached ones included.
    pub input_tokens: Option<f64>,
    /// Output tokens billed, reasoning and thinking included.
    pub output_tokens: Option<f64>,
    /// The total the provider reports, when it reports one.
    pub total_tokens: Option<f64>,
    /// Of the input, the tokens read from a cache (billed at the cached price when the pricing
    /// gives one).
    pub cached_input_tokens: Option<f64>,
    /// Of the input, the tokens written to a cache (Anthropic's `cache_creation_input_tokens`).
    pub cache_write_tokens: Option<f64>,
    /// Of the output, the reasoning or thinking tokens.
    pub reasoning_tokens: Option<f64>,
}

impl Usage {
    /// The reported total against the sum of the billed parts, when they differ: (total,
    /// input + output). A usage that does not add up is reported, never priced silently.
    pub fn unaccounted(&self) -> Option<(f64, f64)> {
        let total = self.total_tokens?;
        let parts = self.input_tokens.unwrap_or(0.0) + self.output_tokens.unwrap_or(0.0);
        ((total - parts).abs() >= 0.5).then_some((total, parts))
    }
}

/// A call that failed, as its pipeline's document says.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedCall {
    /// The prediction file.
    pub file: std::path::PathBuf,
    /// Where in it the failure is written.
    pub at: crate::base::location::Mark,
    /// How the document says it.
    pub because: CallFailure,
}

/// How a pipeline's document says its call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum CallFailure {
    /// An `ok:` key holds another value than the format's.
    NotOk {
        /// The key's path in the document (`status`).
        key: String,
        /// The value the format calls a success.
        expected: String,
        /// The value found; `None` when the key reaches nothing.
        found: Option<String>,
        /// The document's own error text (`error`, `message` or `error.message`), if any.
        said: Option<String>,
    },
    /// The fields path holds `null`.
    NullFields {
        /// The fields path (`data`).
        path: String,
        /// The document's own error text, if any.
        said: Option<String>,
    },
    /// The fields path reaches nothing (`profile: docubench`, which scores the call as `{}`).
    NoFields {
        /// The fields path (`data`).
        path: String,
        /// The document's own error text, if any.
        said: Option<String>,
    },
    /// The fields path holds something other than a mapping (`profile: docubench`, which
    /// scores the call as it is written).
    NotFields {
        /// The fields path (`data`).
        path: String,
        /// What it holds: `a list`, `a text`, ...
        found: String,
        /// The document's own error text, if any.
        said: Option<String>,
    },
}

/// A usage whose parts do not add up to its own total.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UsageMismatch {
    /// The prediction file.
    pub file: String,
    /// The total the provider reports.
    pub total: f64,
    /// Input + output as billed, which the cost is computed from.
    pub parts: f64,
}

/// Why a case's prediction could not be scored.
#[derive(Debug, Clone)]
pub enum Unscored {
    /// It could not be read or produced.
    Unreadable(Box<crate::base::location::LoadError>),
    /// The pipeline's call failed.
    FailedCall(FailedCall),
}

/// Where a pipeline's document holds the parts of a prediction (a suite's or a case's
/// `prediction_format`). Each path is a list of steps: keys, or indices of lists.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionFormat {
    /// The predicted fields.
    pub fields: Vec<String>,
    /// The latency, and whether it is in seconds (else milliseconds).
    pub latency: Option<(Vec<String>, bool)>,
    /// The provider's usage mapping.
    pub usage: Option<Vec<String>>,
    /// The model's name.
    pub model: Option<Vec<String>>,
    /// The cost the pipeline reports.
    pub cost_usd: Option<Vec<String>>,
    /// A mapping of field names to confidences beside the fields.
    pub confidence: Option<Vec<String>>,
    /// Keys whose values say the call succeeded: (path, the value of a success).
    pub ok: Vec<(Vec<String>, String)>,
    /// Where the format is written (file, place): errors of a document read through it name it.
    pub at: (std::path::PathBuf, crate::base::location::Mark),
}

impl Prediction {
    /// The predicted field of that name.
    pub fn field(&self, name: &str) -> Option<&PredictedField> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Where a suite's `run:` output came from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CallSource {
    /// The command was called in this run.
    Called,
    /// The output an earlier run kept (`run.cache`): nothing was called, its latency and cost
    /// are those of the call that made it.
    Cached,
}

/// The calls of a suite's `run:` command behind one test: made now, or taken from the cache, and
/// what those taken would have cost (their recorded latency and cost).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct CallTally {
    /// Calls made in this run (a failed one too).
    pub called: u32,
    /// Outputs taken from the cache, no call made.
    pub cached: u32,
    /// Of the calls made, those made again after a failure (`run.retries`).
    #[serde(default)]
    pub retries: u32,
    /// Attempts whose call still failed after its retries: call errors, not wrong answers.
    #[serde(default)]
    pub errors: u32,
    /// The latency the cached outputs' calls took when they were made, in milliseconds.
    pub saved_latency_ms: f64,
    /// The cost of the cached outputs' calls, in US dollars (as far as their usage tells).
    pub saved_cost_usd: f64,
    /// The cost of the calls made, in US dollars (as far as their usage tells; a failed call's
    /// is not known).
    #[serde(default)]
    pub spent_cost_usd: f64,
}

impl CallTally {
    /// Adds another test's calls.
    pub fn add(&mut self, o: &CallTally) {
        self.called += o.called;
        self.cached += o.cached;
        self.retries += o.retries;
        self.errors += o.errors;
        self.saved_latency_ms += o.saved_latency_ms;
        self.saved_cost_usd += o.saved_cost_usd;
        self.spent_cost_usd += o.spent_cost_usd;
    }
}
