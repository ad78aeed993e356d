//! Layer 7, running: the harness, the tests of a run and what they share, commands.

mod ahead;
pub(crate) mod baseline_file;
pub(crate) mod cache;
pub mod command;
mod documents;
pub mod env;
pub(crate) mod errors;
pub mod exit;
pub mod harness;
pub mod help;
pub(crate) mod history;
pub(crate) mod journal;
pub(crate) mod judge;
mod libtest;
pub(crate) mod outputs;
mod predict;
pub(crate) mod scores;
mod session;
mod trials;
