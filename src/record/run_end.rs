//! The gate's account of a run under `fail_on: regressions`: what got worse than the baseline,
//! what fails as before, what was fixed. Built one test at a time from the tests' records, the
//! same way whether the run was one process or many, and written by the terminal's last line,
//! the Markdown and HTML pages and the JSON report.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::evaluate::baseline::{Standing, Worse};
use crate::evaluate::record::{Compared, Status};

/// What the run's baselines say of it, under `fail_on: regressions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GateAccount {
    /// The baseline files tests were held to, as the run names them, sorted.
    pub baselines: Vec<String>,
    /// The tests that fail the run, in name order: each with how it is worse.
    pub regressions: Vec<Regression>,
    /// How many tests fail as their entries say, no worse.
    pub known_failures: usize,
    /// The tests whose entries say they failed and that pass now, in name order.
    pub fixed: Vec<String>,
    /// How many tests have no entry yet.
    pub new: usize,
}

/// A test that fails the run under `fail_on: regressions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Regression {
    /// The test.
    pub test: String,
    /// How it is worse than its entry; empty for a test judged by its own rules (no entry, or
    /// an aggregate's bounds), which fails all the same.
    pub worse: Vec<Worse>,
    /// Why it fails, when it is not worse than an entry: `new, fails`, an aggregate's verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fails: Option<String>,
}

impl GateAccount {
    /// Whether any test was held to a baseline under `fail_on: regressions`.
    pub fn holds(&self) -> bool {
        !self.baselines.is_empty()
    }

    /// Notes one case test: its name, how it ended, and how it compares with its entry. Only
    /// tests held to their entries (`fail_on: regressions`) count.
    pub fn note_case(&mut self, test: &str, status: Status, compared: &Compared) {
        if !compared.relative {
            return;
        }
        if let Some(file) = &compared.file {
            let file = file.display().to_string();
            if let Err(at) = self.baselines.binary_search(&file) {
                self.baselines.insert(at, file);
            }
        }
        self.new += usize::from(compared.new);
        match (&compared.standing, status) {
            (Some(Standing::KnownFailure), _) => self.known_failures += 1,
            (Some(Standing::Fixed), _) => self.fixed.push(test.to_owned()),
            (Some(Standing::Regressed { worse }), _) => self.regressions.push(Regression {
                test: test.to_owned(),
                worse: worse.clone(),
                fails: None,
            }),
            (None, Status::Failed) => self.regressions.push(Regression {
                test: test.to_owned(),
                worse: Vec::new(),
                fails: Some(if compared.new {
                    "new, fails".to_owned()
                } else {
                    "fails".to_owned()
                }),
            }),
            (None, _) => {}
        }
    }

    /// Notes one aggregate test of a run held to its baselines: a failing one fails the run
    /// whatever the baselines say (its bounds and its regression gate are its own).
    pub fn note_aggregate(&mut self, test: &str, passed: bool, verdict: Option<&str>) {
        if passed || !self.holds() {
            return;
        }
        self.regressions.push(Regression {
            test: test.to_owned(),
            worse: Vec::new(),
            fails: Some(verdict.unwrap_or("fails").to_owned()),
        });
    }

    /// The lists in name order, once every test is noted.
    pub fn sorted(mut self) -> GateAccount {
        self.regressions.sort_by(|a, b| a.test.cmp(&b.test));
        self.fixed.sort();
        self
    }
}
