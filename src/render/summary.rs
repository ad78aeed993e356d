//! The run summary printed after libtest's result line.

use serde_json::{Value as Json, json};

use super::{Record, Status, num};
use crate::load::DEFAULT_ECE_BINS;
use crate::metrics::{brier, ece};

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
        let outcomes: Vec<_> = records.iter().filter_map(|r| r.outcome.as_ref()).collect();
        let mean = |get: &dyn Fn(&crate::evaluate::Metrics) -> Option<f64>| {
            let values: Vec<f64> = outcomes.iter().filter_map(|o| get(&o.metrics)).collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let (p, o): (Vec<f64>, Vec<bool>) = outcomes
            .iter()
            .flat_map(|out| {
                out.fields
                    .iter()
                    .filter_map(|f| f.confidence.map(|c| (c, f.em == 1.0)))
            })
            .unzip();
        RunSummary {
            cases: records.len(),
            passed: records
                .iter()
                .filter(|r| r.status == Status::Passed)
                .count(),
            failed: records
                .iter()
                .filter(|r| r.status == Status::Failed)
                .count(),
            ignored: records
                .iter()
                .filter(|r| r.status == Status::Ignored)
                .count(),
            exact_match: mean(&|m| m.exact_match),
            anls: mean(&|m| m.anls),
            exact_critical: mean(&|m| m.exact_critical),
            anls_critical: mean(&|m| m.anls_critical),
            brier: brier(&p, &o),
            ece: ece(&p, &o, DEFAULT_ECE_BINS),
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
