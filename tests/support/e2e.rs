//! The tests that build whole crates as a user would (`cargo test` in a crate `goldgate init` set
//! up, `cargo nextest run` and `cargo nextest archive` in a scratch crate): they share one target
//! folder, so goldgate and its dependencies are built once for all of them, and they run only
//! when `GOLDGATE_E2E` is set (`.ci/run` sets it). Each build of goldgate as a dependency costs
//! minutes of CPU on 2 cores, which a quick `cargo test` cannot carry.
//!
//! Included with `#[path = "support/e2e.rs"] mod e2e;` by the files that need it.

use std::path::PathBuf;

/// The one target folder of every crate these tests build.
pub fn target() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-crates")
}

/// Whether the test named `test` runs: `GOLDGATE_E2E` is set. When it is not, the test says
/// so on its output (shown by `cargo test -- --nocapture` and by nextest) and checks nothing.
pub fn enabled(test: &str) -> bool {
    let on = std::env::var_os("GOLDGATE_E2E").is_some_and(|v| !v.is_empty() && v != "0");
    if !on {
        eprintln!(
            "{test}: not run: it builds a whole crate (minutes of CPU); set GOLDGATE_E2E=1 to run \
             it (.ci/run does)"
        );
    }
    on
}
