//! `kieval:`, as written: the settings of KIEval's scorer under `profile: kieval`.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::Node;

/// KIEval's settings (`{ keys: cord }`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KievalSpec {
    /// The keys scored (KIEval's shortlist): `cord` (CORD's 30 classes, as KIEval's CORD run
    /// has them), a list of keys, or a file of keys, one a line (relative to this folder). Every
    /// key is scored without it.
    #[schemars(schema_with = "keys")]
    pub keys: Node,
}

fn keys(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "`cord`, a file of keys one a line, or a list of keys.",
        "anyOf": [
            { "type": "string" },
            { "type": "array", "items": { "type": "string" } }
        ]
    })
}
