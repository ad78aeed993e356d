//! Every `GOLDGATE_*` environment variable, parsed in one place.

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

/// The settings goldgate reads from the environment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Env {
    /// `GOLDGATE_REPORT`: where to write the JSON report.
    pub report: Option<PathBuf>,
    /// `GOLDGATE_UPDATE`: whether baselines are rewritten.
    pub update: Update,
    /// The run this process is part of, when a run spans processes: `NEXTEST_RUN_ID` (set by
    /// cargo-nextest) or `GOLDGATE_RUN_ID` (for other ways of splitting a run).
    pub run_id: Option<String>,
}

impl Env {
    /// Reads the process environment.
    pub fn from_process() -> Result<Env, String> {
        Env::from_lookup(|name| std::env::var_os(name))
    }

    /// Reads variables through `lookup` (tests pass a map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<std::ffi::OsString>) -> Result<Env, String> {
        let report = match lookup("GOLDGATE_REPORT") {
            Some(v) if v.is_empty() => None,
            Some(v) => Some(PathBuf::from(v)),
            None => None,
        };
        let update = match lookup("GOLDGATE_UPDATE") {
            None => Update::No,
            Some(v) => match v.to_str() {
                Some("no") | Some("") => Update::No,
                Some("always") => Update::Always,
                _ => {
                    return Err(format!(
                        "GOLDGATE_UPDATE=`{}` is not one of `always`, `no`: set `GOLDGATE_UPDATE=always` to rewrite the baselines, or unset it",
                        v.to_string_lossy()
                    ));
                }
            },
        };
        let run_id = ["GOLDGATE_RUN_ID", "NEXTEST_RUN_ID"]
            .iter()
            .find_map(|name| lookup(name).filter(|v| !v.is_empty()))
            .map(|v| v.to_string_lossy().into_owned());
        Ok(Env {
            report,
            update,
            run_id,
        })
    }
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
        assert_eq!(
            env("yes").unwrap_err(),
            "GOLDGATE_UPDATE=`yes` is not one of `always`, `no`: set `GOLDGATE_UPDATE=always` to rewrite the baselines, or unset it"
        );
    }
}
