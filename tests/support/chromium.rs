//! Headless Chromium for the tests that render the HTML page (ignored unless asked for: `.ci/run`
//! installs Chromium and runs them with `--ignored`): found on the PATH, its absence a
//! failure that says how to install it, and started with no profile, network or first-run work
//! of its own.
//!
//! Included with `#[path = "support/chromium.rs"] mod chromium;` by the files that need it.

#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::Command;

/// Chromium, which a test that was asked for needs.
pub fn require() -> PathBuf {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
        })
        .expect("headless Chromium renders the page in this test: install it (`apt-get install chromium`)")
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
