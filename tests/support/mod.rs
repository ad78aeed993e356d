//! What the hardening tests share: the `goldgate` binary run over a fixture folder made in the
//! test, with none of the caller's run settings.

#![allow(dead_code)] // each test file uses its own part

use std::path::Path;
use std::process::{Command, Output};

/// `goldgate ARGS` in `dir`, with colour off and none of the caller's run settings.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        // A run of this crate's tests under nextest must not make the fixtures' runs one run.
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("GOLDGATE_RUN_ID")
        .env_remove("GOLDGATE_REPORT")
        .env_remove("GOLDGATE_JUNIT")
        .env_remove("GOLDGATE_HTML")
        .env_remove("GOLDGATE_UPDATE")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

/// Runs `goldgate ARGS` in `dir` with `envs` set.
pub fn goldgate_with(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    command(dir, args)
        .envs(envs.iter().copied())
        .output()
        .expect("the goldgate binary runs")
}

/// Runs `goldgate ARGS` in `dir`.
pub fn goldgate(dir: &Path, args: &[&str]) -> Output {
    goldgate_with(dir, args, &[])
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes files under `root`, their folders created.
pub fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}
