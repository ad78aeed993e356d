//! Layer 5, running: the harness, the tests of a run and what they share, commands.

pub mod command;
pub mod env;
pub mod harness;
pub mod trials;
