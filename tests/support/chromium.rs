//! Headless Chromium for the tests that render the HTML page: found on the PATH when the machine
//! has it (`.ci/run` installs it and sets `GOLDGATE_REQUIRE_CHROMIUM`, which makes its absence a
//! failure), and started with no profile, network or first-run work of its own.
//!
//! Included with `#[path = "support/chromium.rs"] mod chromium;` by the files that need it.

#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::Command;

/// Chromium, when the machine has it (`.ci/run` installs it and sets GOLDGATE_REQUIRE_CHROMIUM).
pub fn find() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("GOLDGATE_REQUIRE_CHROMIUM").is_none(),
            "headless Chromium is required here: install it (`apt-get install chromium`)"
        );
        eprintln!("not checked: no Chromium on this machine to render the HTML page");
    }
    found
}

/// `chromium` headless in a window `width` by `height` pixels, with `profile` as its user data.
pub fn headless(chromium: &Path, profile: &Path, width: u32, height: u32) -> Command {
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ])
    .arg(format!("--window-size={width},{height}"))
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}
