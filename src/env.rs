//! Every `GOLDGATE_*` environment variable, parsed in one place.

use std::path::PathBuf;

/// The settings goldgate reads from the environment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Env {
    /// `GOLDGATE_REPORT`: where to write the JSON report.
    pub report: Option<PathBuf>,
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
        Ok(Env { report })
    }
}
