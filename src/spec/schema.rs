//! `goldgate schema`: JSON Schemas (draft-07) of case and rubric files, generated from the serde
//! types, for editors (`# yaml-language-server: $schema=...`).

use schemars::{Schema, SchemaGenerator, generate::SchemaSettings, json_schema};

use crate::spec::{CaseFile, RubricSetFile, SuiteFile};

/// Which file a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A case file.
    Case,
    /// A rubric set in `rubrics/`.
    Rubrics,
    /// A `suite.yaml`.
    Suite,
}

/// The draft-07 schema of a kind of file, as derived from the serde types (the loader's own
/// rules are added above, where the table of metrics is known).
pub fn derived(kind: Kind) -> serde_json::Value {
    let mut generator = SchemaSettings::draft07().into_generator();
    let schema = match kind {
        Kind::Case => generator.root_schema_for::<CaseFile>(),
        Kind::Rubrics => generator.root_schema_for::<RubricSetFile>(),
        Kind::Suite => generator.root_schema_for::<SuiteFile>(),
    };
    serde_json::to_value(&schema).unwrap_or_default()
}

fn scalar() -> serde_json::Value {
    serde_json::json!({ "type": ["string", "number", "integer", "boolean", "null"] })
}

/// `gold:` a mapping of field names to values, or `{ any_of: [...] }`.
pub(crate) fn gold(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "Gold value of every field; scalars are compared as the text written. `{ any_of: [a, b] }` gives accepted variants; `null` means the field must be absent or empty; `{ value: v, page: 1, bbox: [x0, y0, x1, y1] }` also says where the value is on the document. Or a .json or .yaml file of them, relative to this file.",
        "type": ["object", "string"],
        "additionalProperties": true
    })
}

/// `tags:` a list of labels, or a mapping of names to values.
pub(crate) fn tags(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "Labels: a list (`[invoice, fr]`) or a mapping of names to values (`{doc_type: invoice, lang: fr}`).",
        "oneOf": [
            { "type": "array", "items": { "type": "string" } },
            { "type": "object", "additionalProperties": { "type": ["string", "number", "boolean"] } }
        ]
    })
}

/// `prediction:` a path or an inline mapping.
pub(crate) fn prediction(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A .json/.yaml/.yml/.txt file relative to this case, or an inline field document.",
        "type": ["string", "object"]
    })
}

/// `normalize:` a boolean or the three steps.
pub(crate) fn normalize(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "`false` compares raw text; or switch steps off one by one.",
        "oneOf": [
            { "type": "boolean" },
            {
                "type": "object",
                "properties": {
                    "lowercase": { "type": "boolean" },
                    "strip_accents": { "type": "boolean" },
                    "collapse_whitespace": { "type": "boolean" }
                },
                "additionalProperties": false
            }
        ]
    })
}

/// One value (`equals`, `number`, `date`).
pub(crate) fn one_value(_: &mut SchemaGenerator) -> Schema {
    Schema::try_from(scalar()).unwrap_or_default()
}

/// A list of values (`one_of`).
pub(crate) fn values(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "array", "items": scalar(), "minItems": 1 })
}

/// A text or a list of texts (`contains`, `not_contains`).
pub(crate) fn texts(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "oneOf": [scalar(), { "type": "array", "items": scalar(), "minItems": 1 }] })
}

/// `count: N` or `count: { min, max }`.
pub(crate) fn count(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "oneOf": [
            { "type": "integer", "minimum": 0 },
            {
                "type": "object",
                "properties": { "min": { "type": "integer", "minimum": 0 }, "max": { "type": "integer", "minimum": 0 } },
                "additionalProperties": false
            }
        ]
    })
}

/// `pipelines:` names to prediction paths (or to a pipeline's mapping), or a list of names (with
/// `run`).
pub(crate) fn pipelines(generator: &mut SchemaGenerator) -> Schema {
    let entry = generator.subschema_for::<crate::spec::PipelineSpec>();
    json_schema!({
        "description": "One test per case and pipeline: names to prediction paths ({case}, {pipeline}, {document}) or to `{ prediction, aggregate, prediction_format }` (the pipeline's own aggregate bounds, each replacing the suite's, `null` removing it; the format its documents are read through, replacing the suite's), or a list of names when `run` produces the predictions.",
        "oneOf": [
            { "type": "object", "additionalProperties": { "oneOf": [{ "type": "string" }, entry] } },
            { "type": "array", "items": { "type": "string" } }
        ]
    })
}

/// `rubrics:` a list of rubrics (added to the suites'), or `{ replace: [...] }`.
pub(crate) fn rubrics(generator: &mut SchemaGenerator) -> Schema {
    let entry = generator.subschema_for::<crate::spec::RubricEntry>();
    let list = serde_json::json!({ "type": "array", "items": entry });
    // The description is the field's own.
    json_schema!({
        "oneOf": [
            list.clone(),
            {
                "type": "object",
                "properties": { "replace": list },
                "required": ["replace"],
                "additionalProperties": false
            },
            { "type": "null" }
        ]
    })
}

/// `bbox_units:` how boxes are written.
pub(crate) fn bbox_units(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "The units of the boxes of gold and predictions: fractions of the page (0 to 1), pixels of the page whose `page_size` a case gives, or PDF points from the page's top-left corner (the page's size read from the case's PDF `document`).",
        "enum": ["normalized", "pixels", "points"]
    })
}

/// `run.cache:` one of the cache modes.
pub(crate) fn cache_mode(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "description": "How outputs are kept and reused.", "enum": ["use", "refresh", "replay", "off"] })
}

/// `run.call_errors:` what a call error does to its case.
pub(crate) fn call_errors(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "description": "What a call that fails after its retries does to its case.", "enum": ["fail", "skip"] })
}

/// `profile:` one of the profile names.
pub(crate) fn profile(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "description": "The scoring profile.", "enum": ["dream", "anls_star", "docubench", "kieval"] })
}

/// `pass:` how the attempts of a repeated case make its verdict.
pub(crate) fn pass(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "How a case run `repeat` times passes: every attempt, more than half, or one.",
        "enum": ["all", "majority", "any"]
    })
}

/// `fail_on`: what fails the run.
pub(crate) fn fail_on(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "What fails the run: every failing test, or (with a baseline) a test worse than its entry.",
        "enum": ["failures", "regressions"]
    })
}

/// `regression_gate.metric`: the case metrics a baseline keeps.
pub(crate) fn gated_metric(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "The case metric the gate compares with the baseline.",
        "enum": ["score", "exact_match", "anls", "exact_critical", "anls_critical", "f1", "brier", "ece"]
    })
}

pub(crate) fn scoring(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "How failed Easy-Wrong rubrics lower the score: each subtracts its penalty, or the score is the share that hold.",
        "enum": ["penalty", "fraction"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_top_level_keys_are_refused_by_the_schema() {
        let schema = derived(Kind::Case);
        assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
        assert_eq!(schema["additionalProperties"], false);
        assert!(schema["properties"]["gold"].is_object());
    }
}
