//! Every environment variable goldgate reads (`GOLDGATE_*`, nextest's run id, GitHub Actions'),
//! parsed in one place.

use std::path::PathBuf;

/// Whether a run rewrites its baselines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Update {
    /// Never write (`GOLDGATE_UPDATE` unset or `no`).
    #[default]
    No,
    /// Rewrite the baselines with this run's numbers (`GOLDGATE_UPDATE=always`).
    Always,
}

/// Whether a run asks its judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JudgeMode {
    /// Never ask: every verdict comes from the verdict files (`GOLDGATE_JUDGE` unset or `replay`).
    #[default]
    Replay,
    /// Ask for the verdicts the files lack, and record them (`GOLDGATE_JUDGE=record`).
    Record,
    /// Ask again for every verdict the run needs, and record them (`GOLDGATE_JUDGE=refresh`).
    Refresh,
}

/// The settings goldgate reads from the environment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Env {
    /// `GOLDGATE_REPORT`: where to write the JSON report.
    pub report: Option<PathBuf>,
    /// `GOLDGATE_UPDATE`: whether baselines are rewritten.
    pub update: Update,
    /// `GOLDGATE_JUDGE`: whether judges are asked.
    pub judge: JudgeMode,
    /// `GOLDGATE_CACHE`: how the suites' `run:` outputs are kept and reused, over each suite's
    /// `run.cache`.
    pub cache: Option<crate::model::suite::CacheMode>,
    /// The run this process is part of, when a run spans processes: `NEXTEST_RUN_ID` (set by
    /// cargo-nextest) or `GOLDGATE_RUN_ID` (for other ways of splitting a run).
    pub run_id: Option<String>,
    /// `GOLDGATE_JUNIT`: where to write JUnit XML.
    pub junit: Option<PathBuf>,
    /// `GOLDGATE_HTML`: where to write the HTML page.
    pub html: Option<PathBuf>,
    /// `GITHUB_ACTIONS=true`: print annotations of the failures.
    pub github_actions: bool,
    /// `GITHUB_WORKSPACE`: annotations name files relative to it.
    pub github_workspace: Option<PathBuf>,
    /// `GITHUB_STEP_SUMMARY`: the file the run's Markdown page is appended to.
    pub step_summary: Option<PathBuf>,
    /// Under cargo-nextest (`NEXTEST_RUN_ID` set): no progress bars.
    pub under_nextest: bool,
    /// `GOLDGATE_RUN_END=later`, set by `cargo goldgate test` for the processes it starts: the
    /// end of the run (summary, table of pipelines) is printed once, by the end step, not by
    /// each process too.
    pub end_later: bool,
    /// `GOLDGATE_FAIL_ON` (`failures` or `regressions`), which `--fail-on` overrides: what
    /// fails the run, over each suite's `fail_on` (the way to say it to every process of a
    /// split run).
    pub fail_on: Option<crate::model::suite::FailOn>,
    /// `GOLDGATE_SUBSET=1` (set by `cargo goldgate test` when the runner's arguments give
    /// `--partition` or a filter expression): the run runs a part of the tests its runner lists,
    /// so a listed test that did not run is no test that never ran.
    pub subset: bool,
}

/// A variable of goldgate's set to a value it does not take: the value as set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvError {
    /// `GOLDGATE_UPDATE`.
    Update(std::ffi::OsString),
    /// `GOLDGATE_JUDGE`.
    Judge(std::ffi::OsString),
    /// `GOLDGATE_CACHE`.
    Cache(std::ffi::OsString),
    /// `GOLDGATE_FAIL_ON`.
    FailOn(std::ffi::OsString),
}

impl std::fmt::Display for EnvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EnvError::Update(v) => write!(
                f,
                "GOLDGATE_UPDATE=`{}` is not one of `always`, `no`: set `GOLDGATE_UPDATE=always` to rewrite the baselines, or unset it",
                v.to_string_lossy()
            ),
            EnvError::Judge(v) => write!(
                f,
                "GOLDGATE_JUDGE=`{}` is not one of `replay`, `record`, `refresh`: set `GOLDGATE_JUDGE=record` to ask the judges for missing verdicts, or unset it",
                v.to_string_lossy()
            ),
            EnvError::Cache(v) => write!(
                f,
                "GOLDGATE_CACHE=`{}` is not one of `use`, `refresh`, `replay`, `off`: set `GOLDGATE_CACHE=replay` to run on kept outputs alone, or unset it",
                v.to_string_lossy()
            ),
            EnvError::FailOn(v) => write!(
                f,
                "GOLDGATE_FAIL_ON=`{}` is not one of `failures`, `regressions`: set `GOLDGATE_FAIL_ON=regressions` to fail only on what got worse than the baseline, or unset it",
                v.to_string_lossy()
            ),
        }
    }
}

impl std::error::Error for EnvError {}

impl Env {
    /// Reads the process environment.
    pub fn from_process() -> Result<Env, EnvError> {
        Env::from_lookup(|name| std::env::var_os(name))
    }

    /// Reads variables through `lookup` (tests pass a map).
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<Env, EnvError> {
        let path = |name: &str| lookup(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let report = path("GOLDGATE_REPORT");
        let update = match lookup("GOLDGATE_UPDATE") {
            None => Update::No,
            Some(v) => match v.to_str() {
                Some("no") | Some("") => Update::No,
                Some("always") => Update::Always,
                _ => return Err(EnvError::Update(v)),
            },
        };
        let judge = match lookup("GOLDGATE_JUDGE") {
            None => JudgeMode::Replay,
            Some(v) => match v.to_str() {
                Some("replay") | Some("") => JudgeMode::Replay,
                Some("record") => JudgeMode::Record,
                Some("refresh") => JudgeMode::Refresh,
                _ => return Err(EnvError::Judge(v)),
            },
        };
        let cache = match lookup("GOLDGATE_CACHE") {
            None => None,
            Some(v) if v.is_empty() => None,
            Some(v) => match v
                .to_str()
                .and_then(crate::model::suite::CacheMode::from_name)
            {
                Some(mode) => Some(mode),
                None => return Err(EnvError::Cache(v)),
            },
        };
        let fail_on = match lookup("GOLDGATE_FAIL_ON") {
            None => None,
            Some(v) if v.is_empty() => None,
            Some(v) => match v.to_str().and_then(crate::model::suite::FailOn::from_name) {
                Some(rule) => Some(rule),
                None => return Err(EnvError::FailOn(v)),
            },
        };
        let run_id = ["GOLDGATE_RUN_ID", "NEXTEST_RUN_ID"]
            .iter()
            .find_map(|name| lookup(name).filter(|v| !v.is_empty()))
            .map(|v| v.to_string_lossy().into_owned());
        Ok(Env {
            report,
            update,
            judge,
            cache,
            run_id,
            junit: path("GOLDGATE_JUNIT"),
            html: path("GOLDGATE_HTML"),
            github_actions: lookup("GITHUB_ACTIONS").is_some_and(|v| v == "true"),
            github_workspace: path("GITHUB_WORKSPACE"),
            step_summary: path("GITHUB_STEP_SUMMARY"),
            under_nextest: lookup("NEXTEST_RUN_ID").is_some(),
            end_later: lookup("GOLDGATE_RUN_END").is_some_and(|v| v == "later"),
            subset: lookup("GOLDGATE_SUBSET").is_some_and(|v| v == "1"),
            fail_on,
        })
    }
}

/// The branch a run is made on: `GITHUB_HEAD_REF` (a pull request's) or `GITHUB_REF_NAME` in
/// GitHub Actions, else the branch checked out around the current folder; `None` outside git or
/// on a detached `HEAD`.
pub(crate) fn branch() -> Option<String> {
    for name in ["GITHUB_HEAD_REF", "GITHUB_REF_NAME"] {
        if let Some(v) = std::env::var(name).ok().filter(|s| !s.is_empty()) {
            return Some(v);
        }
    }
    let out = git(&["symbolic-ref", "--quiet", "--short", "HEAD"])?;
    let name = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !name.is_empty()).then_some(name)
}

/// What `git ARGS` printed, its standard error dropped; `None` without git.
fn git(args: &[&str]) -> Option<std::process::Output> {
    let mut command = std::process::Command::new("git");
    command.args(args).stderr(std::process::Stdio::null());
    crate::base::huge_pages::as_before(&mut command);
    command.output().ok()
}

/// The commit a run's report is written at: `GITHUB_SHA` in GitHub Actions, else the `HEAD` of
/// the git checkout around the current folder, `SHA+dirty` when a tracked file differs from it
/// (the run is not of that commit); `None` outside one (or without git).
pub(crate) fn commit() -> Option<String> {
    if let Some(sha) = std::env::var("GITHUB_SHA").ok().filter(|s| !s.is_empty()) {
        return Some(sha);
    }
    let out = git(&["rev-parse", "--verify", "--quiet", "HEAD"])?;
    let sha = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    let is_sha = sha.len() >= 40 && sha.bytes().all(|b| b.is_ascii_hexdigit());
    if !(out.status.success() && is_sha) {
        return None;
    }
    // Untracked files are left out: a run's own outputs (a report, a history) are often
    // untracked, and a checkout with them is still the commit's.
    let changed = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|out| out.status.success() && !out.stdout.is_empty());
    Some(if changed { format!("{sha}+dirty") } else { sha })
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn update_values() {
        let env = |v: &'static str| {
            Env::from_lookup(move |name| (name == "GOLDGATE_UPDATE").then(|| v.into()))
        };
        assert_eq!(env("always").unwrap().update, Update::Always);
        assert_eq!(env("no").unwrap().update, Update::No);
        let judge = |v: &'static str| {
            Env::from_lookup(move |name| (name == "GOLDGATE_JUDGE").then(|| v.into()))
        };
        assert_eq!(judge("record").unwrap().judge, JudgeMode::Record);
        assert_eq!(judge("refresh").unwrap().judge, JudgeMode::Refresh);
        assert_eq!(judge("replay").unwrap().judge, JudgeMode::Replay);
        assert!(
            judge("always")
                .unwrap_err()
                .to_string()
                .starts_with("GOLDGATE_JUDGE=`always` is not one of")
        );
        assert_eq!(
            env("yes").unwrap_err().to_string(),
            "GOLDGATE_UPDATE=`yes` is not one of `always`, `no`: set `GOLDGATE_UPDATE=always` to rewrite the baselines, or unset it"
        );
    }
}
