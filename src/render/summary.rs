//! The run summary printed after libtest's result line.

use serde_json::{Value as Json, json};

use super::{Record, Status, num};
use crate::aggregate::aggregate;

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
    /// Mean EM over the cases that have it.
    pub exact_match: Option<f64>,
    /// Mean ANLS over the cases that have it.
    pub anls: Option<f64>,
    /// Mean critical EM.
    pub exact_critical: Option<f64>,
    /// Mean critical ANLS.
    pub anls_critical: Option<f64>,
    /// Brier pooled over every field with a confidence.
    pub brier: Option<f64>,
    /// ECE (5 bins) pooled over every field with a confidence.
    pub ece: Option<f64>,
}

impl RunSummary {
    /// Summarises the records of a run.
    pub fn of(records: &[Record]) -> RunSummary {
        let count = |status: Status| records.iter().filter(|r| r.status == status).count();
        let run = aggregate(
            records
                .iter()
                .filter(|r| r.status != Status::Ignored)
                .map(|r| (r.status == Status::Passed, r.outcome.as_ref())),
        );
        RunSummary {
            cases: records.len(),
            passed: count(Status::Passed),
            failed: count(Status::Failed),
            ignored: count(Status::Ignored),
            exact_match: run.exact_match,
            anls: run.anls,
            exact_critical: run.exact_critical,
            anls_critical: run.anls_critical,
            brier: run.brier,
            ece: run.ece,
        }
    }

    pub(crate) fn to_json(&self) -> Json {
        json!({
            "cases": self.cases, "passed": self.passed, "failed": self.failed, "ignored": self.ignored,
            "exact_match": self.exact_match, "anls": self.anls,
            "exact_critical": self.exact_critical, "anls_critical": self.anls_critical,
            "brier": self.brier, "ece": self.ece,
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
        num(s.exact_match),
        num(s.anls),
        num(s.exact_critical),
        num(s.anls_critical),
        num(s.brier),
        num(s.ece),
    )
}
