//! goldgate
pub mod error;
pub mod metrics;
mod normalize;
pub mod spec;
pub mod value;
pub use normalize::Normalize;
pub use value::Value;
pub mod case;
pub mod discover;
pub mod env;
pub mod evaluate;
mod harness;
pub mod load;
pub mod prediction;
pub mod render;
pub mod rubric;
pub use harness::Harness;
pub mod cli;
