//! `cases:` of a suite file: every file of a pattern is a case, with no YAML file per document.

use crate::base::spanned::Spanned;
use schemars::JsonSchema;
use serde::Deserialize;

/// Where a suite's gold files are, and what is known of each document.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CasesSpec {
    /// The gold files, relative to the suite's folder, with `{case}` (`labels/{case}.json`): each
    /// `.json` or `.yaml` file that matches is one case, named by `{case}`.
    #[schemars(with = "String")]
    pub gold: Spanned<String>,
    /// A JSON Schema per case (`schemas/{case}.json`) or one for the whole suite: only the fields
    /// it names are scored.
    #[schemars(with = "Option<String>")]
    pub schema: Option<Spanned<String>>,
    /// A table of one record per case: a JSON array of objects, `.jsonl` or `.csv`.
    #[schemars(with = "Option<String>")]
    pub metadata: Option<Spanned<String>>,
    /// The column of `metadata` that holds the case's name (`{case}`).
    #[schemars(with = "Option<String>")]
    pub key: Option<Spanned<String>>,
    /// The columns of `metadata` that become the case's attributes (default: every column
    /// whose values repeat across cases).
    #[schemars(with = "Option<Vec<String>>")]
    pub tags: Option<Vec<Spanned<String>>>,
}
