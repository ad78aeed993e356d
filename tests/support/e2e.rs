//! The tests that build whole crates as a user would (`cargo test` in a crate `goldgate init` set
//! up, `cargo nextest run` and `cargo nextest archive` in a scratch crate): they share one target
//! folder, so goldgate and its dependencies are built once for all of them, and they are ignored
//! unless asked for (`cargo test --test NAME -- --ignored`, as `.ci/run` runs them). Each build of
//! goldgate as a dependency costs minutes of CPU on 2 cores, which a quick `cargo test` cannot
//! carry.
//!
//! Included with `#[path = "support/e2e.rs"] mod e2e;` by the files that need it.

use std::path::PathBuf;

/// The one target folder of every crate these tests build.
pub fn target() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-crates")
}
