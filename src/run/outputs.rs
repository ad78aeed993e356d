//! The files a run writes from its records (the JSON report, JUnit, the HTML page, GitHub's step
//! summary), whoever writes them: one process, the processes of one run (nextest runs one per
//! test), or `goldgate report` merging the reports of a run's shards.
//!
//! Records travel as lines, `"TEST NAME"<TAB>{compact JSON}`, in files rather than in memory: a
//! process's own records (its spool), and across the processes of a run, journals kept under the
//! temporary folder for the run (cases, their numbers, aggregates). A process of a run appends its
//! lines to the journals and rewrites the files from them, under the journals' lock; a new run has
//! new journals, so the files of an earlier run are replaced. The report copies each case's line
//! as it is, so it costs a pass over bytes, not a parse of every case.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::base::fs::{canonical, hash_hex, lock_for, state_dir, write_atomically_with};
use crate::evaluate::aggregate::{field_table, pipeline_rows, summarize};
use crate::evaluate::baseline::describe;
use crate::evaluate::outcome::Metrics;
use crate::evaluate::paired::paired;
use crate::evaluate::record::{CaseNumbers, Status};
use crate::render::{
    Notes, Page, ReportAggregate, ReportCase, STEP_SUMMARY_LIMIT, compared_of, html_page,
    junit_xml, step_summary, write_report,
};

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
        "rubrics": n.rubrics,
        "reference": n.reference,
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
        reference: j.get("reference").and_then(Json::as_str).map(str::to_owned),
        rubrics: j
            .get("rubrics")
            .and_then(|r| serde_json::from_value(r.clone()).ok()),
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
    let comparisons = paired(numbers);
    let aggregates: Vec<String> = aggregates.values().cloned().collect();
    write_atomically_with(path, |out| {
        write_report(
            out,
            &summary,
            &pipelines,
            &fields,
            &comparisons,
            &mut cases.records(),
            &aggregates,
        )
    })
    .map_err(|e| format!("cannot write the report `{}`: {e}", path.display()))
}

/// What this process adds to a run's records.
pub(crate) struct Ours<'a> {
    /// Its case records, as lines.
    pub(crate) cases: File,
    /// The numbers of its case tests.
    pub(crate) numbers: &'a [CaseNumbers],
    /// Its aggregate tests: name and JSON.
    pub(crate) aggregates: Vec<(String, String)>,
}

/// The files a run writes from its records.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outputs {
    /// The JSON report.
    pub(crate) report: Option<PathBuf>,
    /// JUnit XML.
    pub(crate) junit: Option<PathBuf>,
    /// The HTML page.
    pub(crate) html: Option<PathBuf>,
    /// The Markdown page appended to GitHub's step summary.
    pub(crate) step_summary: Option<PathBuf>,
}

impl Outputs {
    /// Whether any file is asked for (the run then keeps its records).
    pub(crate) fn any(&self) -> bool {
        self.report.is_some()
            || self.junit.is_some()
            || self.html.is_some()
            || self.step_summary.is_some()
    }
}

/// Every record of a run, whoever wrote them: the cases as lines, their numbers, the aggregates.
pub(crate) struct Records {
    pub(crate) cases: Lines,
    pub(crate) numbers: Vec<CaseNumbers>,
    pub(crate) aggregates: BTreeMap<String, String>,
}

/// Writes the run's files: from this process's records alone when the process is the run
/// (`run_id` is `None`), else from every process of the run `run_id`, whose records are kept
/// in journals under the temporary folder; a new run starts them afresh, so its files replace
/// those of any earlier run.
pub(crate) fn write_outputs(
    outputs: &Outputs,
    run_id: Option<&str>,
    ours: Ours,
) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot keep the run's records: {e}");
    let Some(run_id) = run_id else {
        let mut records = Records {
            cases: Lines::of(ours.cases).map_err(cannot)?,
            numbers: ours.numbers.to_vec(),
            aggregates: ours.aggregates.into_iter().collect(),
        };
        write_files(outputs, &mut records)?;
        if let Some(path) = &outputs.step_summary {
            append_step_summary(path, &mut records, None)?;
        }
        return Ok(());
    };
    let journal = Journal::for_run(run_id);
    let _held = lock_for(&journal.dir).map_err(cannot)?;
    journal.append(ours).map_err(cannot)?;
    let mut records = journal.read().map_err(cannot)?;
    write_files(outputs, &mut records)?;
    if let Some(path) = &outputs.step_summary {
        append_step_summary(path, &mut records, Some(&journal))?;
    }
    Ok(())
}

/// The report, JUnit and HTML files.
fn write_files(outputs: &Outputs, records: &mut Records) -> Result<(), String> {
    if let Some(path) = &outputs.report {
        write(
            path,
            &mut records.cases,
            &records.aggregates,
            &records.numbers,
        )?;
    }
    if outputs.junit.is_none() && outputs.html.is_none() {
        return Ok(());
    }
    let (cases, aggregates) = parsed(records)?;
    if let Some(path) = &outputs.junit {
        write_atomically_with(path, |out| {
            out.write_all(junit_xml(&cases, &aggregates).as_bytes())
        })
        .map_err(|e| format!("cannot write the JUnit file `{}`: {e}", path.display()))?;
    }
    if let Some(path) = &outputs.html {
        let page = html_of(&records.numbers, &cases, &aggregates);
        write_atomically_with(path, |out| out.write_all(page.as_bytes()))
            .map_err(|e| format!("cannot write the HTML page `{}`: {e}", path.display()))?;
    }
    Ok(())
}

/// Every case and aggregate record, read back for the pages made from them.
pub(crate) fn parsed(
    records: &mut Records,
) -> Result<(Vec<ReportCase>, Vec<ReportAggregate>), String> {
    let cases = records
        .cases
        .records()
        .map(|text| {
            let text = text.map_err(|e| format!("cannot read back the run's records: {e}"))?;
            serde_json::from_str::<ReportCase>(&text)
                .map_err(|e| format!("a record of the run cannot be read back: {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let aggregates = records
        .aggregates
        .values()
        .map(|text| {
            serde_json::from_str::<ReportAggregate>(text)
                .map_err(|e| format!("a record of the run cannot be read back: {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((cases, aggregates))
}

/// Regressions, improvements and new tests, read from the cases' records, in name order.
pub(crate) fn notes_of(cases: &[ReportCase]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (mut regressions, mut improvements, mut new) = (Vec::new(), Vec::new(), Vec::new());
    for case in cases {
        let Some(b) = &case.baseline else { continue };
        let compared = compared_of(&json!({ "baseline": b }));
        if !compared.regressions.is_empty() {
            regressions.push(format!("{}: {}", case.id, describe(&compared.regressions)));
        }
        if !compared.improvements.is_empty() {
            improvements.push(format!("{}: {}", case.id, describe(&compared.improvements)));
        }
        if compared.new {
            new.push(case.id.clone());
        }
    }
    (regressions, improvements, new)
}

/// The HTML page of a run.
pub(crate) fn html_of(
    numbers: &[CaseNumbers],
    cases: &[ReportCase],
    aggregates: &[ReportAggregate],
) -> String {
    let (regressions, improvements, new_cases) = notes_of(cases);
    let comparisons = paired(numbers);
    let notes = Notes {
        improvements: &improvements,
        new_cases: &new_cases,
        regressions: &regressions,
        comparisons: &comparisons,
    };
    html_page(&Page {
        summary: &summarize(numbers),
        pipelines: &pipeline_rows(numbers),
        fields: &field_table(numbers),
        cases,
        aggregates,
        notes: &notes,
    })
}

/// The run's Markdown page, in at most `limit` bytes.
fn step_summary_page(records: &mut Records, limit: usize) -> Result<String, String> {
    let (cases, aggregates) = parsed(records)?;
    let (regressions, improvements, new_cases) = notes_of(&cases);
    let comparisons = paired(&records.numbers);
    let notes = Notes {
        improvements: &improvements,
        new_cases: &new_cases,
        regressions: &regressions,
        comparisons: &comparisons,
    };
    Ok(step_summary(
        &summarize(&records.numbers),
        &pipeline_rows(&records.numbers),
        &cases,
        &aggregates,
        &notes,
        limit,
    ))
}

/// Appends the run's page to the step summary, in what is left of GitHub's 1 MiB for the file;
/// the processes of one run replace the page the run appended before, so that the step shows
/// one page per run.
fn append_step_summary(
    path: &Path,
    records: &mut Records,
    journal: Option<&Journal>,
) -> Result<(), String> {
    let cannot = |e: std::io::Error| {
        format!(
            "cannot append to the step summary `{}`: {e}",
            path.display()
        )
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .write(true)
        .truncate(false)
        .open(path)
        .map_err(cannot)?;
    let length = file.metadata().map_err(cannot)?.len();
    let start = match journal {
        None => length,
        Some(journal) => {
            let marker = journal.dir.join(format!(
                "summary-{}",
                hash_hex(&[canonical(path).as_os_str().as_encoded_bytes()])
            ));
            let recorded = std::fs::read_to_string(&marker)
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
                .filter(|&at| at <= length);
            match recorded {
                Some(at) => at,
                None => {
                    std::fs::write(&marker, length.to_string()).map_err(cannot)?;
                    length
                }
            }
        }
    };
    let room = STEP_SUMMARY_LIMIT.saturating_sub(start as usize);
    if room < 1024 {
        // The step's verdict stands; only the page is missing, and the report has it all.
        eprintln!(
            "warning: the step summary `{}` already holds {start} bytes of GitHub's 1 MiB: no room for the run's page",
            path.display()
        );
        return Ok(());
    }
    let page = step_summary_page(records, room)?;
    file.set_len(start).map_err(cannot)?;
    file.seek(SeekFrom::Start(start)).map_err(cannot)?;
    file.write_all(page.as_bytes()).map_err(cannot)
}

/// The journals of one run's records across its processes.
struct Journal {
    dir: PathBuf,
}

impl Journal {
    fn for_run(run_id: &str) -> Journal {
        Journal {
            dir: state_dir()
                .join("runs")
                .join(hash_hex(&[run_id.as_bytes()]))
                .join("records"),
        }
    }

    fn file(&self, name: &str) -> std::io::Result<File> {
        std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(self.dir.join(name))
    }

    /// Adds this process's records.
    fn append(&self, mut ours: Ours) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut cases = self.file("cases")?;
        ours.cases.seek(SeekFrom::Start(0))?;
        std::io::copy(&mut ours.cases, &mut cases)?;
        let mut numbers = std::io::BufWriter::new(self.file("numbers")?);
        for n in ours.numbers {
            numbers.write_all(line(&n.id, &numbers_json(n)).as_bytes())?;
        }
        numbers.flush()?;
        let mut aggregates = self.file("aggregates")?;
        for (id, json) in &ours.aggregates {
            aggregates.write_all(line(id, json).as_bytes())?;
        }
        Ok(())
    }

    /// Every record of the run so far.
    fn read(&self) -> std::io::Result<Records> {
        let cases = Lines::of(self.file("cases")?)?;
        let mut numbers = BTreeMap::new();
        for text in BufReader::new(self.file("numbers")?).lines() {
            let text = text?;
            if let Some(n) = split(&text).and_then(|(id, json)| numbers_from(id, json)) {
                numbers.insert(n.id.clone(), n);
            }
        }
        let mut aggregates = BTreeMap::new();
        for text in BufReader::new(self.file("aggregates")?).lines() {
            if let Some((id, json)) = split(&text?) {
                aggregates.insert(id, json.to_owned());
            }
        }
        Ok(Records {
            cases,
            numbers: numbers.into_values().collect(),
            aggregates,
        })
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
            confidences: [(0.9, true), (0.1, false)].into_iter().collect(),
            fields: vec![("total".into(), 0.0, 0.25)],
            reference: Some("q".into()),
            rubrics: Some(crate::evaluate::record::RubricTally {
                gate_open: true,
                score: 0.5,
                must_right_held: 2,
                must_right: 2,
                easy_wrong_held: 1,
                easy_wrong: 2,
            }),
        };
        assert_eq!(numbers_from("a::p".into(), &numbers_json(&n)), Some(n));
    }
}
