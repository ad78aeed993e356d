//! The files a run writes from its records (the JSON report, JUnit, the HTML page, GitHub's step
//! summary), written once, when the run is over: by the process that is the run, by `cargo
//! goldgate test` or `goldgate report --run ID` after a split run (from its journal), or by
//! `goldgate report FILE…` from the reports of a run's shards.
//!
//! Records travel as lines, `KIND<TAB>"TEST NAME"<TAB>{compact JSON}` (KIND `case/1` or
//! `aggregate/1`, the record's version after the slash), in files rather than in memory. The
//! report copies each case's line as it is, so it costs a pass over bytes.

use crate::record::run_end::RunEnd;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::base::fs::write_atomically_with;
use crate::evaluate::aggregate::{field_table, pipeline_rows, slice_rows, summarize};
use crate::evaluate::paired::paired;
use crate::evaluate::record::CaseNumbers;
use crate::record::{
    AggregateRecord, ComparisonRecord, PipelineMetrics, RECORD_VERSION, RunSummaryRecord,
    SliceRecord, TestRecord,
};
use crate::render::{
    Junit, Page, ReportParts, STEP_SUMMARY_LIMIT, html_page, step_summary, write_report,
};

/// What a line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A case test's record.
    Case,
    /// An aggregate test's record.
    Aggregate,
    /// A test the run's runner listed (nextest lists every test before it runs them): one that
    /// never records is a test that never ran.
    Listed,
}

impl Kind {
    fn tag(self) -> String {
        match self {
            Kind::Case => format!("case/{RECORD_VERSION}"),
            Kind::Aggregate => format!("aggregate/{RECORD_VERSION}"),
            Kind::Listed => format!("listed/{RECORD_VERSION}"),
        }
    }
}

/// A record as a line: its kind and version, the test name as a JSON string, the record's
/// compact JSON (which holds no raw tab or newline: JSON escapes them).
pub(crate) fn line(kind: Kind, id: &str, json: &str) -> String {
    let name = serde_json::to_string(id).unwrap_or_default();
    format!("{}\t{name}\t{json}\n", kind.tag())
}

/// The line of a test the run's runner listed.
pub(crate) fn listed_line(id: &str) -> String {
    line(Kind::Listed, id, "{}")
}

/// The key (scope and name) of a listed test's whole line, as [`Records`] keys its records.
pub(crate) fn key_of_listed(line: &str) -> Option<String> {
    match split(line)? {
        (Kind::Listed, key, _) => Some(key),
        _ => None,
    }
}

/// A case record's line.
pub(crate) fn case_line(record: &TestRecord) -> String {
    line(
        Kind::Case,
        &record.id,
        &serde_json::to_string(record).unwrap_or_default(),
    )
}

/// An aggregate record's line.
pub(crate) fn aggregate_line(record: &AggregateRecord) -> String {
    line(
        Kind::Aggregate,
        &record.id,
        &serde_json::to_string(record).unwrap_or_default(),
    )
}

/// A line's kind, key (the test name, after its scope in a journal) and record; `None` for a line that is not whole (torn by a kill) or
/// of another version.
fn split(text: &str) -> Option<(Kind, String, &str)> {
    let (kind, scope, id, json) = parts(text)?;
    let key = if scope.is_empty() {
        id
    } else {
        format!("{scope}\t{id}")
    };
    Some((kind, key, json))
}

/// The test a whole record line is of (without the scope a journal's line names first).
pub(crate) fn test_of_line(text: &str) -> Option<String> {
    parts(text).map(|(_, _, id, _)| id)
}

/// A line's kind, scope (empty outside a journal), test name and record.
fn parts(text: &str) -> Option<(Kind, &str, String, &str)> {
    let text = text.strip_suffix('\n')?;
    let (tag, rest) = text.split_once('\t')?;
    let (name, version) = tag.split_once('/')?;
    if version.parse() != Ok(RECORD_VERSION) {
        return None;
    }
    let kind = match name {
        "case" => Kind::Case,
        "aggregate" => Kind::Aggregate,
        "listed" => Kind::Listed,
        _ => return None,
    };
    // A journal's line names the cases folder it comes from first (see `Journal::line_of`): its
    // tests are kept apart from another crate's of the same names.
    let (scope, rest) = match rest.starts_with('"') {
        true => ("", rest),
        false => rest.split_once('\t')?,
    };
    let (id, json) = rest.split_once('\t')?;
    let id: String = serde_json::from_str(id).ok()?;
    Some((kind, scope, id, json))
}

/// The processes of a run that began and never ended (killed before their end).
#[derive(Debug, Clone, Default)]
pub(crate) struct Unended {
    /// How many.
    pub(crate) processes: usize,
    /// The keys (scope and name) of the tests they were to run.
    pub(crate) tests: std::collections::BTreeSet<String>,
}

/// Every record of a run, whoever wrote them: the cases as lines of a file (by test name, the
/// last line of a name winning), their numbers, the aggregates.
pub(crate) struct Records {
    file: File,
    index: BTreeMap<String, (u64, usize)>,
    /// The numbers of every case test, in name order.
    pub(crate) numbers: Vec<CaseNumbers>,
    /// Every aggregate test, by name.
    pub(crate) aggregates: BTreeMap<String, AggregateRecord>,
    /// Lines skipped because they were not whole (a process killed while appending).
    pub(crate) torn: usize,
    /// The tests the run's runner listed, by key (scope and name).
    listed: std::collections::BTreeSet<String>,
    /// The processes of the run that never ended, and the tests they were to run.
    unended: Unended,
    /// Each suite folder and pipeline's case tests, and those a call error left out.
    pub(crate) call_skips: super::errors::CallSkips,
}

/// A line a killed process left unfinished: its JSON ends early (or was cut mid-token). A whole
/// line that reads as JSON but not as a record is no such line: it is goldgate's own fault, and
/// skipping it would drop a test from the report without a word.
fn torn_off(e: &serde_json::Error) -> bool {
    !matches!(e.classify(), serde_json::error::Category::Data)
}

/// The error of a whole record that cannot be read back; `key` is its test's name, after the
/// scope a journal's line names first.
fn unreadable(key: &str, e: &serde_json::Error) -> std::io::Error {
    let test = key.rsplit('\t').next().unwrap_or(key);
    std::io::Error::other(format!(
        "the record of `{test}` cannot be read back ({e}); this is a bug of goldgate, please report it"
    ))
}

impl Records {
    /// The records of one process: its case lines (not read again: `numbers` are its own), its
    /// aggregates.
    pub(crate) fn own(
        file: File,
        mut numbers: Vec<CaseNumbers>,
        aggregates: Vec<AggregateRecord>,
    ) -> std::io::Result<Records> {
        // In place (no two tests share a name): a stable sort copies them all aside.
        numbers.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        let mut records = Records::read(file, false)?;
        records.numbers = numbers;
        records.aggregates = aggregates.into_iter().map(|a| (a.id.clone(), a)).collect();
        Ok(records)
    }

    /// Reads every line of `file` from its start: when `parse`, each case record is read for
    /// its numbers, and a line that does not read (torn) is skipped and counted.
    pub(crate) fn read(mut file: File, parse: bool) -> std::io::Result<Records> {
        file.seek(SeekFrom::Start(0))?;
        let mut index = BTreeMap::new();
        let mut numbers = BTreeMap::new();
        let mut aggregates = BTreeMap::new();
        let mut torn = 0;
        let mut call_skips = super::errors::CallSkips::default();
        let mut reader = BufReader::new(&file);
        let (mut offset, mut buf) = (0u64, Vec::new());
        loop {
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf)?;
            if n == 0 {
                break;
            }
            let at = offset;
            offset += n as u64;
            let Some((kind, id, json)) = std::str::from_utf8(&buf).ok().and_then(split) else {
                torn += 1;
                continue;
            };
            match kind {
                Kind::Case => {
                    if parse {
                        match crate::base::json::read_back::<TestRecord>(json) {
                            Ok(record) => {
                                let call_error = record
                                    .error
                                    .as_ref()
                                    .filter(|e| e.kind == crate::evaluate::record::ErrorKind::Call);
                                call_skips.count(
                                    (&record.suite, record.pipeline.as_deref()),
                                    &record.id,
                                    record.status,
                                    call_error.map(|e| e.message.as_str()),
                                );
                                numbers.insert(id.clone(), record.numbers());
                            }
                            Err(e) if torn_off(&e) => {
                                torn += 1;
                                continue;
                            }
                            Err(e) => return Err(unreadable(&id, &e)),
                        }
                    }
                    let start = at + (n - 1 - json.len()) as u64;
                    index.insert(id, (start, json.len()));
                }
                Kind::Aggregate => match crate::base::json::read_back::<AggregateRecord>(json) {
                    Ok(record) => {
                        aggregates.insert(id, record);
                    }
                    Err(e) if torn_off(&e) => torn += 1,
                    Err(e) => return Err(unreadable(&id, &e)),
                },
                // Listings are kept beside a journal, not in it.
                Kind::Listed => torn += 1,
            }
        }
        drop(reader);
        Ok(Records {
            file,
            index,
            numbers: numbers.into_values().collect(),
            aggregates,
            torn,
            listed: std::collections::BTreeSet::new(),
            unended: Default::default(),
            call_skips,
        })
    }

    /// With the processes of the run that never ended.
    pub(crate) fn with_unended(mut self, unended: Unended) -> Records {
        self.unended = unended;
        self
    }

    /// With the keys of the tests the run's runner listed.
    pub(crate) fn with_listed(mut self, listed: std::collections::BTreeSet<String>) -> Records {
        self.listed = listed;
        self
    }

    /// The run's counts and means, with the tests it listed and never ran when one failed: a
    /// runner stops at its first failure unless told otherwise (a run that filtered its tests,
    /// or ran one partition of them, and failed nothing says nothing).
    pub(crate) fn summary(&self) -> crate::evaluate::aggregate::RunSummary {
        let mut summary = summarize(&self.numbers);
        summary.gold_digest = crate::evaluate::aggregate::gold_digest(
            &self.numbers,
            self.aggregates
                .values()
                .filter_map(|a| Some((a.id.as_str(), a.gold_digest.as_ref()?))),
        );
        let failed = summary.failed > 0 || self.aggregates.values().any(|a| !a.passed);
        if failed {
            summary.never_ran = self.without_record(&self.listed);
        }
        // A process killed before its end left tests without a record: the run is not whole,
        // whatever its recorded tests did. (Killed tests recorded since, by a retry, are whole.)
        let no_record = self.without_record(&self.unended.tests);
        if !no_record.is_empty() {
            summary.never_ended = Some(crate::evaluate::aggregate::NeverEnded {
                processes: self.unended.processes,
                no_record,
            });
        }
        summary
    }

    /// The names of the tests of `keys` (scope and name) that have no record, in name order.
    fn without_record(&self, keys: &std::collections::BTreeSet<String>) -> Vec<String> {
        let mut names: Vec<String> = keys
            .iter()
            .filter(|key| !self.index.contains_key(*key) && !self.aggregates.contains_key(*key))
            .map(|key| {
                key.split_once('\t')
                    .map_or(key.as_str(), |(_, name)| name)
                    .to_owned()
            })
            .collect();
        names.sort();
        names
    }

    /// Whether a split run ran a part of its tests only: some test its runner listed has no
    /// record (nextest's filter, an early stop), a killed process left tests without one, or,
    /// with no listing, a process noted that it ran a part (`noted`: a filter, a partition).
    pub(crate) fn partial(&self, noted: bool) -> bool {
        let listed = !self.listed.is_empty();
        (listed && !self.without_record(&self.listed).is_empty())
            || (!listed && noted)
            || !self.without_record(&self.unended.tests).is_empty()
    }

    /// How many case tests.
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    /// The case records as written (compact JSON), sorted by test name.
    fn lines(&self) -> impl Iterator<Item = std::io::Result<String>> + '_ {
        let file = &self.file;
        self.index.values().map(move |&(start, len)| {
            let mut handle = file;
            handle.seek(SeekFrom::Start(start))?;
            let mut buf = vec![0; len];
            handle.read_exact(&mut buf)?;
            String::from_utf8(buf).map_err(std::io::Error::other)
        })
    }

    /// Every case record whole, field rows of passing tests included (review finds there the
    /// values two pipelines predict alike), sorted by test name.
    pub(crate) fn whole_cases(&self) -> Result<Vec<TestRecord>, OutputError> {
        self.read_cases(true)
    }

    /// The records, whole, of the case tests whose names `wanted` takes, in name order: what
    /// compares two runs reads of the tests it lists (the others are read and dropped).
    pub(crate) fn whole_cases_of(
        &self,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<TestRecord>, OutputError> {
        let mut cases = Vec::new();
        for record in self.case_records(true) {
            let record = record?;
            if wanted(&record.id) {
                cases.push(record);
            }
        }
        Ok(cases)
    }

    /// The case records a run's pages and annotations show, in name order: the tests that
    /// failed and the repeated ones, slim (see `case_records`); with the run's
    /// notes, made from every record as it is read, so that the pages of 100,000 tests hold
    /// their failures, not their gold set.
    pub(crate) fn shown(&self) -> Result<(Vec<TestRecord>, RunEnd), OutputError> {
        let shown = self.shown_noting(|_| {})?;
        Ok((shown, self.end()))
    }

    /// The end of the run, as its numbers and aggregate tests make it.
    pub(crate) fn end(&self) -> RunEnd {
        RunEnd::of(self.summary(), &self.numbers, &self.aggregate_list())
    }

    /// The records [`Records::shown`] keeps; `each` sees every record on the way.
    pub(crate) fn shown_noting(
        &self,
        mut each: impl FnMut(&TestRecord),
    ) -> Result<Vec<TestRecord>, OutputError> {
        let mut shown = Vec::new();
        for record in self.case_records(false) {
            let record = record?;
            each(&record);
            if record.passed == Some(false) || record.repeat.is_some() {
                shown.push(record);
            }
        }
        Ok(shown)
    }

    fn read_cases(&self, whole: bool) -> Result<Vec<TestRecord>, OutputError> {
        let mut cases = Vec::with_capacity(self.index.len());
        for record in self.case_records(whole) {
            cases.push(record?);
        }
        Ok(cases)
    }

    /// Each case record in name order, read as it is asked for: unless `whole`, a test that did
    /// not fail keeps no field rows (a run holds many).
    fn case_records(
        &self,
        whole: bool,
    ) -> impl Iterator<Item = Result<TestRecord, OutputError>> + '_ {
        self.lines().map(move |text| {
            let text = text.map_err(OutputError::ReadBack)?;
            let mut record = crate::base::json::read_back::<TestRecord>(&text)
                .map_err(OutputError::BadRecord)?;
            if !whole && record.passed != Some(false) {
                record.fields = Vec::new();
                record.extra_fields = Vec::new();
            }
            Ok(record)
        })
    }

    /// Every aggregate record, sorted by test name.
    pub(crate) fn aggregate_list(&self) -> Vec<AggregateRecord> {
        self.aggregates.values().cloned().collect()
    }
}

/// The files a run writes from its records.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
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

    /// Whether a page is asked for (the HTML page or the step summary), which reads the records
    /// of the tests it shows.
    pub(crate) fn pages(&self) -> bool {
        self.html.is_some() || self.step_summary.is_some()
    }

    /// Each file of `self`, else of `other`.
    pub(crate) fn or(self, other: Outputs) -> Outputs {
        Outputs {
            report: self.report.or(other.report),
            junit: self.junit.or(other.junit),
            html: self.html.or(other.html),
            step_summary: self.step_summary.or(other.step_summary),
        }
    }

    /// The same files by absolute paths (a split run's end step may run elsewhere).
    pub(crate) fn absolute(self) -> Outputs {
        let abs = |p: Option<PathBuf>| p.map(|p| std::path::absolute(&p).unwrap_or(p));
        Outputs {
            report: abs(self.report),
            junit: abs(self.junit),
            html: abs(self.html),
            step_summary: abs(self.step_summary),
        }
    }
}

/// Why a run's files could not be made from its records.
#[derive(Debug)]
pub enum OutputError {
    /// The run's records could not be read back from where they were kept.
    ReadBack(std::io::Error),
    /// A record of the run does not read back as one.
    BadRecord(serde_json::Error),
    /// A file could not be written.
    Write {
        /// Which of the run's files.
        file: OutputFile,
        /// Where.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// One of the files a run writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFile {
    /// The JSON report.
    Report,
    /// JUnit XML.
    Junit,
    /// The HTML page.
    Html,
    /// GitHub's step summary, appended to.
    StepSummary,
}

impl OutputError {
    fn write(file: OutputFile, path: &Path, source: std::io::Error) -> OutputError {
        OutputError::Write {
            file,
            path: path.to_path_buf(),
            source,
        }
    }
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutputError::ReadBack(e) => write!(f, "cannot read back the run's records: {e}"),
            OutputError::BadRecord(e) => write!(f, "a record of the run cannot be read back: {e}"),
            OutputError::Write { file, path, source } => {
                let path = path.display();
                match file {
                    OutputFile::Report => write!(f, "cannot write the report `{path}`: {source}"),
                    OutputFile::Junit => {
                        write!(f, "cannot write the JUnit file `{path}`: {source}")
                    }
                    OutputFile::Html => write!(f, "cannot write the HTML page `{path}`: {source}"),
                    OutputFile::StepSummary => {
                        write!(f, "cannot append to the step summary `{path}`: {source}")
                    }
                }
            }
        }
    }
}

impl std::error::Error for OutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OutputError::ReadBack(source) | OutputError::Write { source, .. } => Some(source),
            OutputError::BadRecord(e) => Some(e),
        }
    }
}

/// Writes the run's files from its records (the records the pages show read only for a page).
pub(crate) fn write_outputs(outputs: &Outputs, records: &Records) -> Result<(), OutputError> {
    write_report_and_junit(outputs, records)?;
    if outputs.pages() {
        let (cases, end) = records.shown()?;
        write_pages(outputs, records, &cases, &end)?;
    }
    Ok(())
}

/// Writes the report and JUnit, each from the records one at a time.
pub(crate) fn write_report_and_junit(
    outputs: &Outputs,
    records: &Records,
) -> Result<(), OutputError> {
    if let Some(path) = &outputs.report {
        write(path, records)?;
    }
    if let Some(path) = &outputs.junit {
        write_junit(path, records)?;
    }
    Ok(())
}

/// Writes the HTML page and the step summary, when asked for, from the records they show and
/// the end of the run ([`Records::shown`]).
pub(crate) fn write_pages(
    outputs: &Outputs,
    records: &Records,
    cases: &[TestRecord],
    end: &RunEnd,
) -> Result<(), OutputError> {
    if !outputs.pages() {
        return Ok(());
    }
    let aggregates = records.aggregate_list();
    if let Some(path) = &outputs.html {
        let numbers = &records.numbers;
        let page = html_page(&Page {
            end,
            headlines: &crate::evaluate::headline::headlines(numbers),
            fields: &field_table(numbers),
            cases,
            aggregates: &aggregates,
            documents: &super::documents::document_images(cases),
            trends: &super::history::trends_of(numbers),
        });
        write_atomically_with(path, |out| out.write_all(page.as_bytes()))
            .map_err(|e| OutputError::write(OutputFile::Html, path, e))?;
    }
    if let Some(path) = &outputs.step_summary {
        append_step_summary(path, records, cases, &aggregates, end)?;
    }
    Ok(())
}

/// Writes JUnit XML from the records read one at a time: the document holds each test's
/// `testcase`, never the run's records together.
fn write_junit(path: &Path, records: &Records) -> Result<(), OutputError> {
    let mut junit = Junit::default();
    for record in records.case_records(false) {
        junit.case(&record?);
    }
    records.aggregates.values().for_each(|a| junit.aggregate(a));
    write_atomically_with(path, |out| junit.write(out))
        .map_err(|e| OutputError::write(OutputFile::Junit, path, e))
}

/// Writes the report: the summary and pipelines computed from the records' numbers, the cases
/// copied from their lines, the aggregates, in name order.
pub(crate) fn write(path: &Path, records: &Records) -> Result<(), OutputError> {
    let numbers = &records.numbers;
    let run = records.summary();
    let summary = RunSummaryRecord::from(&run);
    let rows = pipeline_rows(numbers);
    let pipelines: Vec<PipelineMetrics> = rows
        .iter()
        .map(|(name, a)| PipelineMetrics {
            pipeline: Some(name.clone()),
            ..a.clone()
        })
        .collect();
    let fields = field_table(numbers);
    let comparisons: Vec<ComparisonRecord> = paired(numbers).iter().map(Into::into).collect();
    let slice_list = slice_rows(numbers);
    let slices: Vec<SliceRecord> = slice_list.iter().map(Into::into).collect();
    let aggregates = records.aggregate_list();
    let analysis = crate::record::AnalysisRecord {
        misses: crate::evaluate::analysis::miss_rows(numbers, &rows, &slice_list)
            .iter()
            .map(Into::into)
            .collect(),
        acceptance: crate::evaluate::analysis::acceptance_rows(&rows)
            .iter()
            .map(Into::into)
            .collect(),
        pooled: crate::evaluate::analysis::pooled_rows(&rows),
    };
    let commit = super::env::commit();
    let gate = crate::record::run_end::GateAccount::of(numbers, &aggregates);
    let parts = ReportParts {
        gate: &gate,
        gold_digest: run.gold_digest.as_deref(),
        commit: commit.as_deref(),
        analysis: &analysis,
        summary: &summary,
        pipelines: &pipelines,
        fields: &fields,
        comparisons: &comparisons,
        slices: &slices,
        aggregates: &aggregates,
    };
    write_atomically_with(path, |out| write_report(out, &parts, &mut records.lines()))
        .map_err(|e| OutputError::write(OutputFile::Report, path, e))
}

/// Appends the run's page to the step summary, in what is left of GitHub's 1 MiB for the file.
fn append_step_summary(
    path: &Path,
    records: &Records,
    cases: &[TestRecord],
    aggregates: &[AggregateRecord],
    end: &RunEnd,
) -> Result<(), OutputError> {
    let cannot = |e| OutputError::write(OutputFile::StepSummary, path, e);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(cannot)?;
    let start = file.metadata().map_err(cannot)?.len();
    let room = STEP_SUMMARY_LIMIT.saturating_sub(start as usize);
    if room < 1024 {
        // The step's verdict stands; only the page is missing, and the report has it all.
        eprintln!(
            "warning: the step summary `{}` already holds {start} bytes of GitHub's 1 MiB: no room for the run's page",
            path.display()
        );
        return Ok(());
    }
    let page = step_summary(end, &field_table(&records.numbers), cases, aggregates, room);
    file.write_all(page.as_bytes()).map_err(cannot)
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
            file.write_all(line(Kind::Case, id, json).as_bytes())
                .unwrap();
        }
        let records = Records::read(file, false).unwrap();
        assert_eq!(records.len(), 2);
        let lines: Vec<String> = records.lines().map(Result::unwrap).collect();
        assert_eq!(lines, [r#"{"n":2}"#, r#"{"n":3}"#]);
    }

    #[test]
    fn a_line_of_another_version_or_torn_is_skipped() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"case/0\t\"a\"\t{}\n").unwrap();
        file.write_all(line(Kind::Case, "b", "{}").as_bytes())
            .unwrap();
        file.write_all(b"case/1\t\"c\"\t{\"id").unwrap();
        let records = Records::read(file, false).unwrap();
        assert_eq!((records.len(), records.torn), (1, 2));
    }

    /// A whole record that reads as JSON but not as a record fails the reading, naming its test:
    /// skipped, it would be a test lost from the report.
    #[test]
    fn a_whole_record_that_does_not_read_is_an_error() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(line(Kind::Case, "b", r#"{"id": 3}"#).as_bytes())
            .unwrap();
        let e = Records::read(file, true).err().expect("an error");
        assert!(
            e.to_string()
                .starts_with("the record of `b` cannot be read back ("),
            "{e}"
        );
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(line(Kind::Aggregate, "a", r#"{"id": 3}"#).as_bytes())
            .unwrap();
        let e = Records::read(file, true).err().expect("an error");
        assert!(e.to_string().contains("`a`"), "{e}");
        // A journal's line: its scope is no part of the name shown.
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"case/1\t1d5902b5\t\"bulk/c1\"\t{\"id\": 3}\n")
            .unwrap();
        let e = Records::read(file, true).err().expect("an error");
        assert!(e.to_string().starts_with("the record of `bulk/c1` "), "{e}");
    }
}
