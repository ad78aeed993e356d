//! `goldgate report FILE…`: the end of a run (summary, comparison of pipelines, regressions,
//! improvements, aggregates) from one report or from the reports of a run's shards, merged; with
//! `-o`, the merged report written. Under nextest, where a passing test's output is hidden, this
//! is how the table is seen.

use std::path::{Path, PathBuf};

use crate::evaluate::aggregate::{pipeline_rows, summarize};
use crate::evaluate::baseline::describe;
use crate::evaluate::record::CaseNumbers;
use crate::render::{Notes, run_end};
use crate::run::report_file::Tests;

/// Merges `files` (a test in several takes the last file's record), returns what to print, and
/// writes the merged report to `output` when given.
pub fn report(files: &[PathBuf], output: Option<&Path>) -> Result<String, String> {
    let mut tests = Tests::default();
    for file in files {
        tests.merge(Tests::read(file)?);
    }
    let rows = tests.numbers()?;
    let (mut regressions, mut improvements, mut new_cases) = (Vec::new(), Vec::new(), Vec::new());
    for (numbers, compared) in &rows {
        if !compared.regressions.is_empty() {
            regressions.push(format!(
                "{}: {}",
                numbers.id,
                describe(&compared.regressions)
            ));
        }
        if !compared.improvements.is_empty() {
            improvements.push(format!(
                "{}: {}",
                numbers.id,
                describe(&compared.improvements)
            ));
        }
        if compared.new {
            new_cases.push(numbers.id.clone());
        }
    }
    let numbers: Vec<CaseNumbers> = rows.into_iter().map(|(n, _)| n).collect();
    let notes = Notes {
        improvements: &improvements,
        new_cases: &new_cases,
        regressions: &regressions,
    };
    let mut out = run_end(&summarize(&numbers), &pipeline_rows(&numbers), &notes);
    for (id, passed) in tests.aggregates()? {
        out.push_str(&format!(
            "aggregate {id}: {}\n",
            if passed { "passed" } else { "FAILED" }
        ));
    }
    if let Some(path) = output {
        tests.write(path)?;
        out.push_str(&format!(
            "report: `{}`: {} case tests from {} file{}\n",
            path.display(),
            tests.len(),
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(out)
}
