//! `goldgate report`: the end of a run (summary, comparison of pipelines, regressions,
//! improvements, aggregates) and its files, from the journal of a split run (`--run ID`,
//! `--last`), or from one report or the reports of a run's shards, merged; `--compare OLD NEW`
//! compares two runs with confidence.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::record::compare::{Pairing, RunSide};
use crate::record::run_end::RunEnd;
use crate::record::{AggregateRecord, RECORD_VERSION, Report};
use crate::render::Regressions;
use crate::render::{FullComparison, comparison_markdown, comparison_text, run_end};
use crate::run::history::AppendError;
use crate::run::journal::Journal;
use crate::run::outputs::{
    OutputError, Outputs, Records, aggregate_line, case_line, write_pages, write_report_and_junit,
};

/// Reports merged by test name: the last file's record of a test wins.
struct Merged {
    records: Records,
    /// Tests found in more than one file with different records: the last file's is kept.
    conflicts: Vec<String>,
}

impl Merged {
    fn read(files: &[PathBuf]) -> Result<Merged, RecordsError> {
        let mut lines = tempfile::tempfile().map_err(RecordsError::NoTemporaryFile)?;
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let mut conflicts = Vec::new();
        for path in files {
            let report = read_report(path)?;
            let mut out = std::io::BufWriter::new(&mut lines);
            let cannot = |source| RecordsError::NotKept {
                path: path.clone(),
                source,
            };
            for case in &report.cases {
                let line = case_line(case);
                let fingerprint = crate::base::fs::hash_hex(&[line.as_bytes()]);
                if seen
                    .insert(case.id.clone(), fingerprint.clone())
                    .is_some_and(|old| old != fingerprint)
                {
                    conflicts.push(case.id.clone());
                }
                out.write_all(line.as_bytes()).map_err(cannot)?;
            }
            for aggregate in &report.aggregates {
                out.write_all(aggregate_line(aggregate).as_bytes())
                    .map_err(cannot)?;
            }
            out.flush().map_err(cannot)?;
        }
        let records = Records::read(lines, true).map_err(RecordsError::MergedUnread)?;
        Ok(Merged { records, conflicts })
    }
}

/// A report file, read as the record's schema says.
pub(crate) fn read_report(path: &Path) -> Result<Report, RecordsError> {
    let text = std::fs::read_to_string(path).map_err(|source| RecordsError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    /// The version alone: the rest of the report is passed over unkept (read into a JSON
    /// value, a report of 10,000 cases took 1.2 GB).
    #[derive(serde::Deserialize)]
    struct Versioned {
        record_version: Option<u64>,
    }
    // (A struct reads from a JSON list too, `[2]`, which is no report.)
    let version: Option<u32> = crate::base::json::read_back::<Versioned>(&text)
        .ok()
        .filter(|_| text.trim_start().starts_with('{'))
        .and_then(|j| j.record_version)
        .and_then(|v| u32::try_from(v).ok());
    if let Some(v) = version
        && v != RECORD_VERSION
    {
        return Err(RecordsError::OtherVersion {
            path: path.to_path_buf(),
            version: v,
        });
    }
    crate::base::json::read_back(&text).map_err(|source| RecordsError::NotAReport {
        path: path.to_path_buf(),
        source,
    })
}

/// Why a run's records could not be had: from report files, or from a run's journal.
#[derive(Debug)]
pub enum RecordsError {
    /// A report cannot be read.
    Unreadable {
        /// The report.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A report holds records of another version.
    OtherVersion {
        /// The report.
        path: PathBuf,
        /// The version it holds.
        version: u32,
    },
    /// A file does not read as a report.
    NotAReport {
        /// The file.
        path: PathBuf,
        /// serde's error.
        source: serde_json::Error,
    },
    /// No temporary file to merge reports in.
    NoTemporaryFile(std::io::Error),
    /// A report's cases could not be kept in the merge.
    NotKept {
        /// The report.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The merged cases cannot be read back.
    MergedUnread(std::io::Error),
    /// The state folder (where runs keep their journals) cannot be used.
    State(std::io::Error),
    /// A side of `--compare` is neither a report file nor a run of this project.
    NeitherReportNorRun {
        /// What was given.
        id: String,
    },
    /// `--run ID` names no run of this project.
    NoSuchRun {
        /// The run id.
        id: String,
    },
    /// `--last`, and no run of this project has written records.
    NoRunYet,
    /// A run's journal cannot be read.
    RunUnread {
        /// The run id.
        id: String,
        /// The system's error.
        source: std::io::Error,
    },
}

impl std::fmt::Display for RecordsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordsError::Unreadable { path, source } => {
                write!(f, "cannot read the report `{}`: {source}", path.display())
            }
            RecordsError::OtherVersion { path, version } => write!(
                f,
                "`{}` holds records of version {version}, and this goldgate reads version {RECORD_VERSION}: run the tests again with this goldgate",
                path.display()
            ),
            RecordsError::NotAReport { path, source } => write!(
                f,
                "`{}` is not a goldgate report (`goldgate schema --kind report` gives its schema): {source}",
                path.display()
            ),
            RecordsError::NoTemporaryFile(e) => write!(f, "cannot make a temporary file: {e}"),
            RecordsError::NotKept { path, source } => {
                write!(f, "cannot keep the cases of `{}`: {source}", path.display())
            }
            RecordsError::MergedUnread(e) => write!(f, "cannot read back the merged cases: {e}"),
            RecordsError::State(e) => e.fmt(f),
            RecordsError::NeitherReportNorRun { id } => write!(
                f,
                "`{id}` is neither a report file nor a run of this project: give a report (`--report FILE`, `GOLDGATE_REPORT`) or a run id (nextest's run id, or GOLDGATE_RUN_ID)"
            ),
            RecordsError::NoSuchRun { id } => write!(
                f,
                "the run `{id}` has written no records in this project (its id is nextest's run id, or GOLDGATE_RUN_ID; `--last` takes this project's newest run)"
            ),
            RecordsError::NoRunYet => f.write_str(
                "no run of this project has written records yet (a run that spans processes keeps them: under nextest, or with GOLDGATE_RUN_ID set; the project is the folder with Cargo.toml or .git above the current one)",
            ),
            RecordsError::RunUnread { id, source } => {
                write!(f, "cannot read the records of the run `{id}`: {source}")
            }
        }
    }
}

impl std::error::Error for RecordsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordsError::Unreadable { source, .. }
            | RecordsError::NotKept { source, .. }
            | RecordsError::RunUnread { source, .. }
            | RecordsError::NoTemporaryFile(source)
            | RecordsError::MergedUnread(source)
            | RecordsError::State(source) => Some(source),
            RecordsError::NotAReport { source, .. } => Some(source),
            RecordsError::OtherVersion { .. }
            | RecordsError::NeitherReportNorRun { .. }
            | RecordsError::NoSuchRun { .. }
            | RecordsError::NoRunYet => None,
        }
    }
}

/// Why `goldgate report` (or `--compare`) made nothing.
#[derive(Debug)]
pub enum ReportError {
    /// The records could not be had.
    Records(RecordsError),
    /// The records could not be read back, or a run's file not written.
    Output(OutputError),
    /// The run could not be appended to a history.
    History(AppendError),
    /// `--compare`, and the two runs have no test in common.
    NothingToCompare {
        /// BASE, as given.
        base: PathBuf,
        /// HEAD, as given.
        head: PathBuf,
    },
}

impl From<RecordsError> for ReportError {
    fn from(e: RecordsError) -> Self {
        ReportError::Records(e)
    }
}

impl From<OutputError> for ReportError {
    fn from(e: OutputError) -> Self {
        ReportError::Output(e)
    }
}

impl From<AppendError> for ReportError {
    fn from(e: AppendError) -> Self {
        ReportError::History(e)
    }
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::Records(e) => e.fmt(f),
            ReportError::Output(e) => e.fmt(f),
            ReportError::History(e) => e.fmt(f),
            ReportError::NothingToCompare { base, head } => write!(
                f,
                "`{}` and `{}` have no test to compare",
                base.display(),
                head.display()
            ),
        }
    }
}

impl std::error::Error for ReportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReportError::Records(e) => e.source(),
            ReportError::Output(e) => e.source(),
            ReportError::History(e) => e.source(),
            ReportError::NothingToCompare { .. } => None,
        }
    }
}

/// How `report --compare` writes the comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum CompareFormat {
    /// For the terminal.
    Text,
    /// The comparison itself, serialized: the same groups and tests as the text.
    Json,
    /// A pull-request comment, with the page it links to for what it leaves out.
    Markdown {
        /// `--page-url`.
        page_url: Option<String>,
    },
}

/// One side of a comparison: a report file, or a run of this project by id.
struct Side {
    records: Records,
    label: String,
    /// Where the whole of it is, for the comment's line about rows left out.
    whole: FullComparison,
}

impl Side {
    /// `which` is a report file when one is there, else the id of a run of this project.
    fn read(which: &Path) -> Result<Side, RecordsError> {
        if which.is_file() {
            let report = read_report(which)?;
            let records = Merged::read(&[which.to_path_buf()])?.records;
            let name = which.file_name().map_or_else(
                || which.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            // A run is named by its commit; a report written outside git by its file's name.
            let label = report.commit.as_deref().map_or(name, |c| {
                format!("commit {}", crate::render::short_commit(c, 12))
            });
            return Ok(Side {
                records,
                label,
                whole: FullComparison::Report(which.display().to_string()),
            });
        }
        let id = which.to_string_lossy().into_owned();
        let here =
            crate::base::state::Project::find(Path::new(".")).map_err(RecordsError::State)?;
        let Some(journal) = Journal::existing(&id, &here).map_err(RecordsError::State)? else {
            return Err(RecordsError::NeitherReportNorRun { id });
        };
        let records = journal.read().map_err(|source| RecordsError::RunUnread {
            id: id.clone(),
            source,
        })?;
        Ok(Side {
            records,
            label: format!("run {id}"),
            whole: FullComparison::Run(id),
        })
    }

    /// The digest of its gold set, as its run's end gives it.
    fn gold_digest(&self, aggregates: &[AggregateRecord]) -> Option<String> {
        crate::evaluate::aggregate::gold_digest(
            &self.records.numbers,
            aggregates
                .iter()
                .filter_map(|a| Some((a.id.as_str(), a.gold_digest.as_ref()?))),
        )
    }
}

/// `goldgate report --compare BASE HEAD`: the tests of both runs paired and grouped once (per
/// pipeline, else suite folder: each run's pass rate, the paired tests' means and difference with
/// a 95 % paired bootstrap interval and McNemar's exact test), the tests that regressed, improved,
/// appeared or went with their fields old → new, and whether the gold is the same; written as
/// text or a pull-request comment, or serialized as JSON.
pub fn compare_runs(
    base: &Path,
    head: &Path,
    format: &CompareFormat,
) -> Result<String, ReportError> {
    let (before, after) = (Side::read(base)?, Side::read(head)?);
    let (base_aggregates, head_aggregates) = (
        before.records.aggregate_list(),
        after.records.aggregate_list(),
    );
    let (base_digest, head_digest) = (
        before.gold_digest(&base_aggregates),
        after.gold_digest(&head_aggregates),
    );
    let base_side = RunSide {
        label: before.label.clone(),
        numbers: &before.records.numbers,
        aggregates: &base_aggregates,
        gold_digest: base_digest.as_deref(),
    };
    let head_side = RunSide {
        label: after.label.clone(),
        numbers: &after.records.numbers,
        aggregates: &head_aggregates,
        gold_digest: head_digest.as_deref(),
    };
    let pairing = Pairing::of(&base_side, &head_side);
    // The records of the tests listed only, each with its fields, a passing test's too.
    let listed = pairing.listed();
    let comparison = pairing.compare(
        &before.records.whole_cases_of(|id| listed.contains(id))?,
        &after.records.whole_cases_of(|id| listed.contains(id))?,
    );
    if comparison.pipelines.iter().all(|p| p.paired == 0) && comparison.tests.is_empty() {
        return Err(ReportError::NothingToCompare {
            base: base.to_path_buf(),
            head: head.to_path_buf(),
        });
    }
    Ok(match format {
        CompareFormat::Text => comparison_text(&comparison),
        CompareFormat::Markdown { page_url } => {
            let whole = page_url.clone().map_or(after.whole, FullComparison::Page);
            comparison_markdown(&comparison, &whole)
        }
        CompareFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&comparison).unwrap_or_default()
        ),
    })
}

/// Where `goldgate report` reads a run's records from.
pub enum Source {
    /// Report files: one, or one per shard of a run.
    Files(Vec<PathBuf>),
    /// The journal of the run with this id.
    Run(String),
    /// The journal of the newest run.
    Last,
}

/// Reads the records, returns what to print (the end of the run), and writes the run's files
/// asked for: `outputs`, and for a run's journal also those its processes were asked for.
/// What `goldgate report` printed, and whether the run ran every test it listed (a split run
/// that stopped early fails, as its runner did).
pub(crate) struct Reported {
    /// The end of the run.
    pub(crate) text: String,
    /// Whether every test the run listed ran.
    pub(crate) complete: bool,
}

/// The end step of a split run appends the run to its suites' histories, once.
fn append_history(run: Option<(String, bool)>, records: &Records) -> Result<(), AppendError> {
    let Some((run, noted)) = run else {
        return Ok(());
    };
    let facts = crate::run::history::RunFacts {
        run,
        partial: records.partial(noted),
    };
    crate::run::history::append(&records.numbers, &facts)
}

pub(crate) fn report(source: &Source, outputs: Outputs) -> Result<Reported, ReportError> {
    let (records, conflicts, from, outputs, run_id) = match source {
        Source::Files(files) => {
            let merged = Merged::read(files)?;
            let from = format!(
                "from {} file{}",
                files.len(),
                if files.len() == 1 { "" } else { "s" }
            );
            (merged.records, merged.conflicts, from, outputs, None)
        }
        Source::Run(_) | Source::Last => {
            // The project of the current folder, and the projects inside it.
            let here =
                crate::base::state::Project::find(Path::new(".")).map_err(RecordsError::State)?;
            let (journal, id) = match source {
                Source::Run(id) => {
                    let journal = Journal::existing(id, &here)
                        .map_err(RecordsError::State)?
                        .ok_or_else(|| RecordsError::NoSuchRun { id: id.clone() })?;
                    (journal, id.clone())
                }
                _ => Journal::last(&here)
                    .map_err(RecordsError::State)?
                    .ok_or(RecordsError::NoRunYet)?,
            };
            let records = journal.read().map_err(|source| RecordsError::RunUnread {
                id: id.clone(),
                source,
            })?;
            let outputs = outputs.or(journal.outputs());
            let (from, noted) = (format!("of the run `{id}`"), journal.partial_noted());
            (records, Vec::new(), from, outputs, Some((id, noted)))
        }
    };
    let (cases, end) = records.shown()?;
    let summary = &end.summary;
    // A suite or pipeline whose every call failed under `call_errors: skip` was checked in no
    // process of the run: only its end can tell, and a run that checked nothing fails.
    let nothing_scored = records.call_skips.nothing_scored().err();
    let complete =
        summary.never_ran.is_empty() && summary.never_ended.is_none() && nothing_scored.is_none();
    let mut out = end_of_run(&records, &end);
    if let Some(e) = &nothing_scored {
        out.push_str(&format!("error: {e}\n"));
    }
    if records.torn > 0 {
        out.push_str(&format!(
            "note: {} record line{} not whole (a process was killed while writing it) and {} skipped\n",
            records.torn,
            if records.torn == 1 { " was" } else { "s were" },
            if records.torn == 1 { "was" } else { "were" },
        ));
    }
    if !conflicts.is_empty() {
        out.push_str(&format!(
            "note: {} in more than one report with different results; the last file's kept: {}\n",
            if conflicts.len() == 1 {
                "a test is"
            } else {
                "tests are"
            },
            conflicts.join(", ")
        ));
    }
    // Before the page, which shows each pipeline's trend with this run.
    append_history(run_id, &records)?;
    write_report_and_junit(&outputs, &records)?;
    write_pages(&outputs, &records, &cases, &end)?;
    if let Some(path) = &outputs.report {
        out.push_str(&format!(
            "report: `{}`: {} case tests {from}\n",
            path.display(),
            records.len(),
        ));
    }
    for (path, what) in [(&outputs.html, "HTML page"), (&outputs.junit, "JUnit file")] {
        if let Some(path) = path {
            out.push_str(&format!("{what}: `{}`\n", path.display()));
        }
    }
    // Last, whatever was said before it: what the gate made of the run.
    out.push_str(&crate::render::gate_end(&end.account));
    Ok(Reported {
        text: out,
        complete,
    })
}

/// The end of a run as the process that is the run prints it, and each aggregate's verdict.
fn end_of_run(records: &Records, end: &RunEnd) -> String {
    let mut out = run_end(end, Regressions::Listed);
    for aggregate in records.aggregates.values() {
        out.push_str(&format!(
            "aggregate {}: {}\n",
            aggregate.id,
            if aggregate.passed { "passed" } else { "FAILED" }
        ));
        // Why, as its test printed it: under nextest a failing test's output is in its log
        // only, and a gate's message carries the interval and the cases that dropped.
        if let Some(message) = aggregate.message.as_deref().filter(|_| !aggregate.passed) {
            for line in message.lines() {
                out.push_str("  ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}
