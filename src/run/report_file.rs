//! Report files, whoever writes them: one process, the processes of one run (nextest runs one per
//! test), or `goldgate report` merging the reports of a run's shards.
//!
//! Records travel as lines, `"TEST NAME"<TAB>{compact JSON}`, in files rather than in memory: a
//! process's own records (its spool), and across the processes of a run, journals kept under the
//! temporary folder for the report (cases, their numbers, aggregates). A process of a run appends
//! its lines to the journals and rewrites the report from them, under the report's lock; a new run
//! starts the journals afresh, so a report left by another run is replaced. Writing copies each
//! case's line as it is, so a report costs a pass over bytes, not a parse of every case.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::base::fs::{canonical, hash_hex, lock_for, state_dir, write_atomically_with};
use crate::evaluate::aggregate::{field_table, pipeline_rows, summarize};
use crate::evaluate::outcome::Metrics;
use crate::evaluate::record::{CaseNumbers, Status};
use crate::render::write_report;

/// A record as a line: the test name as a JSON string, a tab, the record's compact JSON (which
/// holds no raw tab or newline: JSON escapes them).
pub(crate) fn line(id: &str, json: &str) -> String {
    format!("{}\t{json}\n", Json::from(id))
}

/// Splits a line into its test name and record.
fn split(text: &str) -> Option<(String, &str)> {
    let (id, json) = text.trim_end_matches('\n').split_once('\t')?;
    Some((serde_json::from_str(id).ok()?, json))
}

/// Record lines in a file, by test name (the last line of a name wins).
pub(crate) struct Lines {
    file: File,
    index: BTreeMap<String, (u64, usize)>,
}

impl Lines {
    /// Indexes the lines of `file`, from its start.
    pub(crate) fn of(mut file: File) -> std::io::Result<Lines> {
        file.seek(SeekFrom::Start(0))?;
        let mut index = BTreeMap::new();
        let mut reader = BufReader::new(&file);
        let (mut offset, mut buf) = (0u64, Vec::new());
        loop {
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf)?;
            if n == 0 {
                break;
            }
            let broken = || {
                std::io::Error::other(format!(
                    "a broken record line at byte {offset} of a report's records"
                ))
            };
            let text = std::str::from_utf8(&buf).map_err(|_| broken())?;
            let (id, json) = split(text).ok_or_else(broken)?;
            let start = offset + (json.as_ptr() as usize - text.as_ptr() as usize) as u64;
            index.insert(id, (start, json.len()));
            offset += n as u64;
        }
        drop(reader);
        Ok(Lines { file, index })
    }

    /// How many tests.
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    /// The records, sorted by test name.
    fn records(&mut self) -> impl Iterator<Item = std::io::Result<String>> + '_ {
        let file = &self.file;
        self.index.values().map(move |&(start, len)| {
            let mut handle = file;
            handle.seek(SeekFrom::Start(start))?;
            let mut buf = vec![0; len];
            handle.read_exact(&mut buf)?;
            String::from_utf8(buf).map_err(std::io::Error::other)
        })
    }
}

/// The numbers of a case test as a journal record.
fn numbers_json(n: &CaseNumbers) -> String {
    let metrics = n.metrics.map(|m| {
        Metrics::reported()
            .map(|metric| (metric.name().to_owned(), json!(m.get(metric))))
            .collect::<serde_json::Map<_, _>>()
    });
    json!({
        "pipeline": n.pipeline,
        "status": match n.status { Status::Passed => "passed", Status::Failed => "failed", Status::Ignored => "ignored" },
        "metrics": metrics,
        "confidences": n.confidences,
        "fields": n.fields,
    })
    .to_string()
}

/// A journal record back into numbers.
fn numbers_from(id: String, text: &str) -> Option<CaseNumbers> {
    let j: Json = serde_json::from_str(text).ok()?;
    let metrics = j.get("metrics").and_then(Json::as_object).map(|m| {
        let mut metrics = Metrics::default();
        for metric in Metrics::reported() {
            metrics.set(metric, m.get(metric.name()).and_then(Json::as_f64));
        }
        metrics
    });
    Some(CaseNumbers {
        id,
        pipeline: j.get("pipeline").and_then(Json::as_str).map(str::to_owned),
        status: match j.get("status")?.as_str()? {
            "passed" => Status::Passed,
            "ignored" => Status::Ignored,
            _ => Status::Failed,
        },
        metrics,
        confidences: serde_json::from_value(j.get("confidences")?.clone()).ok()?,
        fields: serde_json::from_value(j.get("fields")?.clone()).ok()?,
    })
}

/// Writes a report: the summary and pipelines computed from `numbers` (one per case test), the
/// cases copied from their lines, the aggregates (JSON texts) in name order.
pub(crate) fn write(
    path: &Path,
    cases: &mut Lines,
    aggregates: &BTreeMap<String, String>,
    numbers: &[CaseNumbers],
) -> Result<(), String> {
    let summary = summarize(numbers);
    let pipelines = pipeline_rows(numbers);
    let fields = field_table(numbers);
    let aggregates: Vec<String> = aggregates.values().cloned().collect();
    write_atomically_with(path, |out| {
        write_report(
            out,
            &summary,
            &pipelines,
            &fields,
            &mut cases.records(),
            &aggregates,
        )
    })
    .map_err(|e| format!("cannot write the report `{}`: {e}", path.display()))
}

/// What this process adds to a run's report.
pub(crate) struct Ours<'a> {
    /// Its case records, as lines.
    pub(crate) cases: File,
    /// The numbers of its case tests.
    pub(crate) numbers: &'a [CaseNumbers],
    /// Its aggregate tests: name and JSON.
    pub(crate) aggregates: Vec<(String, String)>,
}

/// Writes this process's tests into the report at `path`: alone when the process is the run
/// (`run_id` is `None`), else merged with every other process of the run `run_id`, replacing a
/// report of another run.
pub(crate) fn write_for_run(path: &Path, run_id: Option<&str>, ours: Ours) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write the report `{}`: {e}", path.display());
    let mut held = lock_for(path).map_err(cannot)?;
    let Some(run_id) = run_id else {
        let mut cases = Lines::of(ours.cases).map_err(cannot)?;
        write(
            path,
            &mut cases,
            &ours.aggregates.into_iter().collect(),
            ours.numbers,
        )?;
        // A later run, whatever its id, starts afresh.
        return held.set_note("").map_err(cannot);
    };
    let journal = Journal::for_report(path);
    let fresh = held.note() != run_id;
    journal.append(ours, fresh).map_err(cannot)?;
    let (mut cases, numbers, aggregates) = journal.read().map_err(cannot)?;
    write(path, &mut cases, &aggregates, &numbers)?;
    held.set_note(run_id).map_err(cannot)
}

/// The journals of a report across the processes of one run.
struct Journal {
    dir: PathBuf,
}

impl Journal {
    fn for_report(report: &Path) -> Journal {
        let name = hash_hex(&[canonical(report).as_os_str().as_encoded_bytes()]);
        Journal {
            dir: state_dir().join("reports").join(name),
        }
    }

    fn file(&self, name: &str, fresh: bool) -> std::io::Result<File> {
        std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(!fresh)
            .write(true)
            .truncate(fresh)
            .open(self.dir.join(name))
    }

    /// Adds this process's records; `fresh` starts the run's journals anew.
    fn append(&self, mut ours: Ours, fresh: bool) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut cases = self.file("cases", fresh)?;
        ours.cases.seek(SeekFrom::Start(0))?;
        std::io::copy(&mut ours.cases, &mut cases)?;
        let mut numbers = std::io::BufWriter::new(self.file("numbers", fresh)?);
        for n in ours.numbers {
            numbers.write_all(line(&n.id, &numbers_json(n)).as_bytes())?;
        }
        numbers.flush()?;
        let mut aggregates = self.file("aggregates", fresh)?;
        for (id, json) in &ours.aggregates {
            aggregates.write_all(line(id, json).as_bytes())?;
        }
        Ok(())
    }

    /// Every record of the run so far.
    fn read(&self) -> std::io::Result<(Lines, Vec<CaseNumbers>, BTreeMap<String, String>)> {
        let cases = Lines::of(self.file("cases", false)?)?;
        let mut numbers = BTreeMap::new();
        for text in BufReader::new(self.file("numbers", false)?).lines() {
            let text = text?;
            if let Some(n) = split(&text).and_then(|(id, json)| numbers_from(id, json)) {
                numbers.insert(n.id.clone(), n);
            }
        }
        let mut aggregates = BTreeMap::new();
        for text in BufReader::new(self.file("aggregates", false)?).lines() {
            if let Some((id, json)) = split(&text?) {
                aggregates.insert(id, json.to_owned());
            }
        }
        Ok((cases, numbers.into_values().collect(), aggregates))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_the_last_record_of_a_name_in_name_order() {
        let mut file = tempfile::tempfile().unwrap();
        for (id, json) in [
            ("b", r#"{"n":1}"#),
            ("a\tx", r#"{"n":2}"#),
            ("b", r#"{"n":3}"#),
        ] {
            file.write_all(line(id, json).as_bytes()).unwrap();
        }
        let mut lines = Lines::of(file).unwrap();
        assert_eq!(lines.len(), 2);
        let records: Vec<String> = lines.records().map(Result::unwrap).collect();
        assert_eq!(records, [r#"{"n":2}"#, r#"{"n":3}"#]);
    }

    #[test]
    fn numbers_survive_the_journal() {
        let n = CaseNumbers {
            id: "a::p".into(),
            pipeline: Some("p".into()),
            status: Status::Failed,
            metrics: Some(Metrics {
                anls: Some(0.25),
                latency_ms: Some(812.5),
                ..Metrics::default()
            }),
            confidences: vec![(0.9, true), (0.1, false)],
            fields: vec![("total".into(), 0.0, 0.25)],
        };
        assert_eq!(numbers_from("a::p".into(), &numbers_json(&n)), Some(n));
    }
}
