//! Layer 1, the file formats: serde types of case, suite and rubric files, located nodes that keep
//! the written text of scalars, the YAML parser's messages, and the JSON Schema of each file.

mod acceptance;
mod block_yaml;
mod case;
mod cases;
pub(crate) mod edit;
mod kieval;
mod node;
mod parse;
mod pipelines;
mod prediction_format;
mod rubrics;
pub mod schema;

pub use acceptance::AcceptanceSpec;
pub use case::{
    AggregateSpec, CaseFile, Compare, Correct, FieldRuleSpec, JudgeSpec, PipelineAggregateSpec,
    RegressionGateSpec, RubricEntry, RubricSetFile, RunSpec, SuiteFile, ThresholdsSpec,
};
pub use cases::CasesSpec;
pub use kieval::KievalSpec;
pub use node::{Node, NodeKind};
pub use parse::parse_yaml;
pub use pipelines::{PipelineName, PipelineSpec, PipelineValue, PipelinesSpec};
pub use prediction_format::PredictionFormatSpec;
pub use rubrics::RubricsSpec;
