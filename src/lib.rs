//! goldgate
pub mod error;
pub mod spec;
pub mod value;
pub mod metrics;
mod normalize;
pub use normalize::Normalize;
pub use value::Value;
pub mod case;
pub mod load;
pub mod prediction;
pub mod rubric;
pub mod evaluate;
pub mod render;
pub mod discover;
pub mod env;
mod harness;
pub use harness::Harness;
pub mod cli;
