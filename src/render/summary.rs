//! The run summary printed after libtest's result line.

use serde_json::{Value as Json, json};

use super::num;
use crate::evaluate::aggregate::{Aggregated, aggregate};
use crate::evaluate::record::{Record, Status};

/// Counts and mean metrics of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSummary {
    /// Case tests that ran or were skipped.
    pub cases: usize,
    /// Passed.
    pub passed: usize,
    /// Failed (including load errors).
    pub failed: usize,
    /// Skipped.
    pub ignored: usize,
    /// The metrics of every case test that ran, as a suite's aggregate computes them (means over
    /// the cases that have them, Brier and ECE pooled over every field with a confidence).
    pub metrics: Aggregated,
}

impl RunSummary {
    /// Summarises the records of a run.
    pub fn of(records: &[Record]) -> RunSummary {
        let count = |status: Status| records.iter().filter(|r| r.status == status).count();
        RunSummary {
            cases: records.len(),
            passed: count(Status::Passed),
            failed: count(Status::Failed),
            ignored: count(Status::Ignored),
            metrics: aggregate(
                records
                    .iter()
                    .filter(|r| r.status != Status::Ignored)
                    .map(|r| (r.status == Status::Passed, r.outcome.as_ref())),
            ),
        }
    }

    pub(crate) fn to_json(&self) -> Json {
        json!({
            "cases": self.cases, "passed": self.passed, "failed": self.failed, "ignored": self.ignored,
            "exact_match": self.metrics.exact_match, "anls": self.metrics.anls,
            "exact_critical": self.metrics.exact_critical, "anls_critical": self.metrics.anls_critical,
            "brier": self.metrics.brier, "ece": self.metrics.ece,
        })
    }
}

/// `goldgate: 14 cases, 13 passed, 1 failed, 0 ignored; EM 0.9500  ANLS ...`
pub fn summary_line(s: &RunSummary) -> String {
    format!(
        "goldgate: {} cases, {} passed, {} failed, {} ignored; mean EM {}, ANLS {}, critical EM {}, critical ANLS {}; Brier {}, ECE {}",
        s.cases,
        s.passed,
        s.failed,
        s.ignored,
        num(s.metrics.exact_match),
        num(s.metrics.anls),
        num(s.metrics.exact_critical),
        num(s.metrics.anls_critical),
        num(s.metrics.brier),
        num(s.metrics.ece),
    )
}
