//! Report files: the records of a run merged, by test name, with what other processes of the
//! same run wrote (nextest runs one process per test), under a lock; a report left by another
//! run is replaced. `goldgate report` merges the reports of a run's shards the same way.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::base::fs::{lock_for, write_atomically};
use crate::evaluate::aggregate::{RunSummary, pipeline_rows, summarize};
use crate::evaluate::record::{CaseNumbers, Compared};
use crate::render::{compared_of, numbers_of, report_text};

/// The tests of one or several reports, by name, as JSON texts.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Tests {
    cases: BTreeMap<String, String>,
    aggregates: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(borrow)]
    cases: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    aggregates: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct Named {
    id: String,
}

impl Tests {
    /// Reads a report file.
    pub(crate) fn read(path: &Path) -> Result<Tests, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the report `{}`: {e}", path.display()))?;
        let raw: Raw = serde_json::from_str(&text).map_err(|e| {
            format!(
                "`{}` is not a goldgate report (a JSON object with `cases`): {e}",
                path.display()
            )
        })?;
        let mut tests = Tests::default();
        for case in raw.cases {
            tests.add_case(case.get().to_owned())?;
        }
        for aggregate in raw.aggregates {
            tests.add_aggregate(aggregate.get().to_owned())?;
        }
        Ok(tests)
    }

    fn id_of(text: &str) -> Result<String, String> {
        serde_json::from_str::<Named>(text)
            .map(|n| n.id)
            .map_err(|e| format!("a test of the report has no `id`: {e}"))
    }

    /// Adds (or replaces) a case test's record.
    pub(crate) fn add_case(&mut self, json: String) -> Result<(), String> {
        self.cases.insert(Tests::id_of(&json)?, json);
        Ok(())
    }

    /// Adds (or replaces) an aggregate test's record.
    pub(crate) fn add_aggregate(&mut self, json: String) -> Result<(), String> {
        self.aggregates.insert(Tests::id_of(&json)?, json);
        Ok(())
    }

    /// Adds every test of `other`; a test in both takes `other`'s record.
    pub(crate) fn merge(&mut self, other: Tests) {
        self.cases.extend(other.cases);
        self.aggregates.extend(other.aggregates);
    }

    /// Case tests.
    pub(crate) fn len(&self) -> usize {
        self.cases.len()
    }

    /// Each aggregate test's name and whether it passed.
    pub(crate) fn aggregates(&self) -> Result<Vec<(String, bool)>, String> {
        self.aggregates
            .iter()
            .map(|(id, text)| {
                let json: serde_json::Value =
                    serde_json::from_str(text).map_err(|e| e.to_string())?;
                Ok((
                    id.clone(),
                    json.get("passed") == Some(&serde_json::Value::Bool(true)),
                ))
            })
            .collect()
    }

    /// The numbers and the baseline comparison of every case test, in name order.
    pub(crate) fn numbers(&self) -> Result<Vec<(CaseNumbers, Compared)>, String> {
        self.cases
            .values()
            .map(|text| {
                let json: serde_json::Value =
                    serde_json::from_str(text).map_err(|e| e.to_string())?;
                Ok((numbers_of(&json)?, compared_of(&json)))
            })
            .collect()
    }

    /// The report's text: the summary and pipelines computed from every case test.
    pub(crate) fn text(&self) -> Result<String, String> {
        let numbers: Vec<CaseNumbers> = self.numbers()?.into_iter().map(|(n, _)| n).collect();
        let summary: RunSummary = summarize(&numbers);
        Ok(report_text(
            &summary,
            &pipeline_rows(&numbers),
            self.cases.values().map(String::as_str),
            self.aggregates.values().map(String::as_str),
        ))
    }

    /// Writes the report atomically.
    pub(crate) fn write(&self, path: &Path) -> Result<(), String> {
        let text = self.text()?;
        write_atomically(path, text.as_bytes())
            .map_err(|e| format!("cannot write the report `{}`: {e}", path.display()))
    }
}

/// Writes this process's tests into the report at `path`: merged with what other processes of
/// the run `run_id` wrote there, or replacing a report of another run.
pub(crate) fn write_for_run(path: &Path, run_id: &str, ours: Tests) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write the report `{}`: {e}", path.display());
    let mut held = lock_for(path).map_err(cannot)?;
    let mut tests = if held.note() == run_id && path.is_file() {
        Tests::read(path)?
    } else {
        Tests::default()
    };
    tests.merge(ours);
    tests.write(path)?;
    held.set_note(run_id).map_err(cannot)
}
