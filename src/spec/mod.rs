//! The YAML model: serde types of case and rubric files, and located nodes that keep raw text.

mod case;
mod node;
mod parse;

pub use case::{
    AggregateSpec, CaseFile, Compare, Correct, FieldRuleSpec, PriceSpec, RubricEntry,
    RubricSetFile, RunSpec, SuiteFile, ThresholdsSpec,
};
pub use node::{Mark, Node, NodeKind};
pub use parse::parse_yaml;
