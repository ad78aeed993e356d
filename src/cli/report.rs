//! `goldgate report FILE…`: the end of a run (summary, comparison of pipelines, regressions,
//! improvements, aggregates) from one report or from the reports of a run's shards, merged; with
//! `-o`, the merged report written. Under nextest, where a passing test's output is hidden, this
//! is how the table is seen.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value as Json;
use serde_json::value::RawValue;

use crate::base::fs::write_atomically;
use crate::evaluate::aggregate::{pipeline_rows, summarize};
use crate::evaluate::baseline::describe;
use crate::evaluate::paired::{compare_pairs, paired};
use crate::evaluate::record::{CaseNumbers, Compared, Status};
use crate::render::junit_xml;
use crate::render::{Notes, compared_of, numbers_of, paired_json, paired_lines, run_end};
use crate::run::outputs::{Lines, Records, html_of, line, parsed, write};

#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(borrow)]
    cases: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    aggregates: Vec<&'a RawValue>,
}

/// Reports merged by test name: the last file's record of a test wins.
struct Merged {
    cases: tempfile::NamedTempFile,
    numbers: BTreeMap<String, (CaseNumbers, Compared)>,
    aggregates: BTreeMap<String, String>,
    /// Tests found in more than one file with different records: the last file's is kept.
    conflicts: Vec<String>,
    /// A hash of each test's record, to tell a conflict from the same record twice.
    records: BTreeMap<String, String>,
}

impl Merged {
    fn read(files: &[PathBuf]) -> Result<Merged, String> {
        let mut merged = Merged {
            cases: tempfile::NamedTempFile::new()
                .map_err(|e| format!("cannot make a temporary file: {e}"))?,
            numbers: BTreeMap::new(),
            aggregates: BTreeMap::new(),
            conflicts: Vec::new(),
            records: BTreeMap::new(),
        };
        for file in files {
            merged.add(file)?;
        }
        Ok(merged)
    }

    /// Adds the tests of one report file.
    fn add(&mut self, path: &Path) -> Result<(), String> {
        let name = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the report `{name}`: {e}"))?;
        let raw: Raw = serde_json::from_str(&text).map_err(|e| {
            format!("`{name}` is not a goldgate report (a JSON object with `cases`): {e}")
        })?;
        let mut out = std::io::BufWriter::new(self.cases.as_file_mut());
        for case in raw.cases {
            let json: Json = serde_json::from_str(case.get()).map_err(|e| e.to_string())?;
            let numbers = numbers_of(&json).map_err(|e| format!("the report `{name}`: {e}"))?;
            // One compact line a case, whatever layout the file had.
            let compact = json.to_string();
            let fingerprint = crate::base::fs::hash_hex(&[compact.as_bytes()]);
            if self
                .records
                .insert(numbers.id.clone(), fingerprint.clone())
                .is_some_and(|old| old != fingerprint)
            {
                self.conflicts.push(numbers.id.clone());
            }
            out.write_all(line(&numbers.id, &compact).as_bytes())
                .map_err(|e| format!("cannot keep the cases of `{name}`: {e}"))?;
            self.numbers
                .insert(numbers.id.clone(), (numbers, compared_of(&json)));
        }
        out.flush()
            .map_err(|e| format!("cannot keep the cases of `{name}`: {e}"))?;
        for aggregate in raw.aggregates {
            let json: Json = serde_json::from_str(aggregate.get()).map_err(|e| e.to_string())?;
            let id = json
                .get("id")
                .and_then(Json::as_str)
                .ok_or_else(|| format!("the report `{name}`: an aggregate without an `id`"))?;
            self.aggregates.insert(id.to_owned(), json.to_string());
        }
        Ok(())
    }
}

/// `goldgate report --compare OLD NEW`: each pipeline's tests in both runs, NEW against OLD:
/// differences of mean score, EM and ANLS with a 95 % paired bootstrap interval, and McNemar's
/// exact p-value on pass/fail (SPEC §13).
pub fn compare_runs(old: &Path, new: &Path, json: bool) -> Result<String, String> {
    let (before, after) = (
        Merged::read(&[old.to_path_buf()])?,
        Merged::read(&[new.to_path_buf()])?,
    );
    let mut groups: BTreeMap<Option<String>, Vec<(&CaseNumbers, &CaseNumbers)>> = BTreeMap::new();
    for (id, (n, _)) in &after.numbers {
        if let Some((b, _)) = before.numbers.get(id)
            && n.status != Status::Ignored
            && b.status != Status::Ignored
        {
            groups.entry(n.pipeline.clone()).or_default().push((b, n));
        }
    }
    if groups.is_empty() {
        return Err(format!(
            "`{}` and `{}` have no test in common to compare",
            old.display(),
            new.display()
        ));
    }
    let label = |path: &Path, pipeline: &Option<String>| match pipeline {
        Some(p) => format!("{} {p}", path.display()),
        None => path.display().to_string(),
    };
    let comparisons: Vec<_> = groups
        .iter()
        .map(|(pipeline, pairs)| compare_pairs(&label(new, pipeline), &label(old, pipeline), pairs))
        .collect();
    if json {
        let list: Vec<Json> = comparisons.iter().map(paired_json).collect();
        return Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        ));
    }
    Ok(paired_lines(&comparisons).trim_start().to_owned())
}

/// Merges `files`, returns what to print, and writes the merged report to `output`, the HTML page
/// to `html` and JUnit XML to `junit`, when given.
pub fn report(
    files: &[PathBuf],
    output: Option<&Path>,
    html: Option<&Path>,
    junit: Option<&Path>,
) -> Result<String, String> {
    let merged = Merged::read(files)?;
    let (mut regressions, mut improvements, mut new_cases) = (Vec::new(), Vec::new(), Vec::new());
    for (numbers, compared) in merged.numbers.values() {
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
    let numbers: Vec<CaseNumbers> = merged.numbers.values().map(|(n, _)| n.clone()).collect();
    let notes = Notes {
        improvements: &improvements,
        new_cases: &new_cases,
        regressions: &regressions,
        comparisons: &paired(&numbers),
    };
    let mut out = run_end(&summarize(&numbers), &pipeline_rows(&numbers), &notes);
    for (id, json) in &merged.aggregates {
        let passed = serde_json::from_str::<Json>(json)
            .is_ok_and(|j| j.get("passed") == Some(&Json::Bool(true)));
        out.push_str(&format!(
            "aggregate {id}: {}\n",
            if passed { "passed" } else { "FAILED" }
        ));
    }
    if !merged.conflicts.is_empty() {
        out.push_str(&format!(
            "note: {} in more than one report with different results; the last file's kept: {}\n",
            if merged.conflicts.len() == 1 {
                "a test is"
            } else {
                "tests are"
            },
            merged.conflicts.join(", ")
        ));
    }
    let file = merged
        .cases
        .reopen()
        .map_err(|e| format!("cannot read back the merged cases: {e}"))?;
    let mut records = Records {
        cases: Lines::of(file).map_err(|e| format!("cannot read back the merged cases: {e}"))?,
        numbers,
        aggregates: merged.aggregates,
    };
    if let Some(path) = output {
        write(
            path,
            &mut records.cases,
            &records.aggregates,
            &records.numbers,
        )?;
        out.push_str(&format!(
            "report: `{}`: {} case tests from {} file{}\n",
            path.display(),
            records.cases.len(),
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        ));
    }
    if html.is_some() || junit.is_some() {
        let (cases, aggregates) = parsed(&mut records)?;
        for (path, text, what) in [
            (
                html,
                html_of(&records.numbers, &cases, &aggregates),
                "HTML page",
            ),
            (junit, junit_xml(&cases, &aggregates), "JUnit file"),
        ] {
            let Some(path) = path else { continue };
            write_atomically(path, text.as_bytes())
                .map_err(|e| format!("cannot write the {what} `{}`: {e}", path.display()))?;
            out.push_str(&format!("{what}: `{}`\n", path.display()));
        }
    }
    Ok(out)
}
