//! What the hardening tests share: the `goldgate` binary run over a fixture folder made in the
//! test, with none of the caller's run settings.

#![allow(dead_code)] // each test file uses its own part

use std::path::Path;
use std::process::{Command, Output};

/// `goldgate ARGS` in `dir`, with colour off and none of the caller's run settings.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    cmd.args(args).current_dir(dir).env("NO_COLOR", "1");
    clear_run_settings(&mut cmd);
    cmd
}

/// Removes the caller's goldgate, nextest and GitHub settings from `cmd`: a run of this crate's
/// tests under `cargo goldgate test --nextest` sets `NEXTEST_RUN_ID`, `GOLDGATE_RUN_END=later`
/// and more, which would make the fixtures' runs one run and keep their ends unsaid.
pub fn clear_run_settings(cmd: &mut Command) {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("GOLDGATE_") || name.starts_with("NEXTEST") {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd.env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY");
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

/// [`write_files`] for files whose paths and texts were made.
pub fn write_owned(root: &Path, files: &[(String, String)]) {
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_files(root, &borrowed);
}

/// `tests/fixtures/FOLDER` of this crate.
pub fn fixtures(folder: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(folder)
}

/// The report a run wrote at `path`, read as JSON; the run's output is shown when there is none.
pub fn read_report(path: &Path, run: &Output) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no report ({e}):\n{}{}", stdout(run), stderr(run)));
    serde_json::from_str(&text).unwrap()
}

/// Runs `goldgate ARGS --report PATH` in `dir`, PATH in a folder of its own: the run and its
/// report.
pub fn goldgate_report(dir: &Path, args: &[&str]) -> (Output, serde_json::Value) {
    let out_dir = tempfile::tempdir().unwrap();
    let path = out_dir.path().join("report.json");
    let mut all = args.to_vec();
    all.extend(["--report", path.to_str().unwrap()]);
    let run = goldgate(dir, &all);
    let report = read_report(&path, &run);
    (run, report)
}

/// The case named `id` among `cases` (a report's `cases`).
pub fn case_in<'a>(cases: &'a [serde_json::Value], id: &str) -> &'a serde_json::Value {
    cases
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id} in the report"))
}

/// The case named `id` in a report.
pub fn case<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    case_in(report["cases"].as_array().expect("a report has cases"), id)
}

/// The lines of the failure block libtest prints for `name`, from its `---- NAME ----` line to
/// the next block or the `failures:` list.
pub fn failure_lines(out: &str, name: &str) -> Vec<String> {
    let start = out
        .find(&format!("---- {name} ----\n"))
        .unwrap_or_else(|| panic!("no failure block for {name} in:\n{out}"));
    out[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("---- ") && *l != "failures:")
        .map(str::to_owned)
        .collect()
}

/// The failure block libtest prints for `name`, as one text without its trailing blank lines.
pub fn failure_block(out: &str, name: &str) -> String {
    failure_lines(out, name).join("\n").trim_end().to_owned()
}

/// The `test NAME ... VERDICT` lines of a run, spaces of alignment squeezed.
pub fn verdicts(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("test ") && l.contains(" ... "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// The `test NAME ... VERDICT` line of one test, spaces squeezed.
pub fn verdict_of(out: &str, name: &str) -> String {
    verdicts(out)
        .into_iter()
        .find(|l| l.starts_with(&format!("test {name} ")))
        .unwrap_or_else(|| panic!("no line for {name} in:\n{out}"))
}
