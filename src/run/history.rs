//! Appends the run's records to its suites' histories (`history:`), at the run's end, by the step
//! that writes the report: the process that is the run, or the end step of a split run (never
//! each of its processes). Each history gets one line per pipeline, in one write under the lock
//! of the file itself, so that concurrent runs never interleave lines; old lines are never
//! rewritten, and a run already in a history (an end step run twice) is not appended again.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::evaluate::aggregate::{is_pipeline_row, pipeline_rows, row_of};
use crate::evaluate::record::{CaseNumbers, Status};
use crate::record::history::{HistoryRecord, Trend, trends};

/// Each pipeline's trend (its last 20 runs) in the histories the run's case tests name, for the
/// run's page. A history that cannot be read shows no trend (`goldgate history` says why).
pub(crate) fn trends_of(numbers: &[CaseNumbers]) -> Vec<Trend> {
    let paths: std::collections::BTreeSet<&str> = numbers
        .iter()
        .filter_map(|n| n.history.as_deref())
        .collect();
    paths
        .into_iter()
        .filter_map(|path| {
            let reader = crate::record::history::open(Path::new(path)).ok()??;
            let records = crate::record::history::read(reader, PAGE_RUNS).ok()?;
            Some(trends(path, &records, Some(PAGE_RUNS)))
        })
        .flatten()
        .collect()
}

/// How many runs of a pipeline the run's page shows.
const PAGE_RUNS: usize = 20;

/// What every record of a run shares.
pub(crate) struct RunFacts {
    /// The run's id.
    pub(crate) run: String,
    /// Whether the run ran a part of its tests only.
    pub(crate) partial: bool,
}

impl RunFacts {
    /// The facts of a run that was one process: its id is made here, unless the environment
    /// gives one.
    pub(crate) fn single(run_id: Option<&str>, partial: bool) -> RunFacts {
        let run = run_id.map_or_else(
            || {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos());
                format!("goldgate-{nanos}-{}", std::process::id())
            },
            str::to_owned,
        );
        RunFacts { run, partial }
    }
}

/// A history the run could not be appended to: the history, and the system's error.
#[derive(Debug)]
pub struct AppendError {
    history: PathBuf,
    source: std::io::Error,
}

impl std::fmt::Display for AppendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot append the run to the history `{}`: {}",
            self.history.display(),
            self.source
        )
    }
}

impl std::error::Error for AppendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Appends one record per pipeline to each history the run's case tests name.
pub(crate) fn append(numbers: &[CaseNumbers], facts: &RunFacts) -> Result<(), AppendError> {
    let mut by_history: BTreeMap<&str, Vec<CaseNumbers>> = BTreeMap::new();
    for n in numbers {
        if let Some(h) = &n.history {
            by_history.entry(h.as_str()).or_default().push(n.clone());
        }
    }
    if by_history.is_empty() {
        return Ok(());
    }
    let (time, commit, branch) = (now(), super::env::commit(), super::env::branch());
    for (path, tests) in by_history {
        let records = records_of(&tests, facts, (&time, &commit, &branch));
        append_to(Path::new(path), &facts.run, &records).map_err(|source| AppendError {
            history: PathBuf::from(path),
            source,
        })?;
    }
    Ok(())
}

/// The records of one suite's tests: one per pipeline (one for a suite without pipelines).
fn records_of(
    tests: &[CaseNumbers],
    facts: &RunFacts,
    (time, commit, branch): (&str, &Option<String>, &Option<String>),
) -> Vec<HistoryRecord> {
    let gold_digest = crate::evaluate::digest::run_digest(
        tests
            .iter()
            .filter_map(|t| Some((t.id.as_str(), t.gold_digest.as_ref()?))),
    );
    pipeline_rows(tests)
        .iter()
        .map(|(row, aggregated)| {
            let mine = tests.iter().filter(|t| row_of(t) == row.as_str());
            let count = |status| mine.clone().filter(|t| t.status == status).count();
            let metrics = aggregated.clone();
            HistoryRecord {
                time: time.to_owned(),
                commit: commit.clone(),
                branch: branch.clone(),
                run: facts.run.clone(),
                pipeline: is_pipeline_row(row).then(|| row.clone()),
                gold_digest: gold_digest.clone(),
                partial: facts.partial,
                cases: mine.clone().count(),
                passed: count(Status::Passed),
                failed: count(Status::Failed),
                ignored: count(Status::Ignored),
                known_failures: count(Status::KnownFailure),
                pass_rate: metrics.pass_rate,
                metrics,
            }
        })
        .collect()
}

/// Appends `records` to the history at `path` in one write, under the lock of the file itself,
/// unless the run is in it already.
fn append_to(path: &Path, run: &str, records: &[HistoryRecord]) -> std::io::Result<()> {
    // A history is committed: never appended through a link, nor outside the project.
    let mut file = crate::base::writing::open_to_append(path)?;
    // The lock is on the file, which is only ever appended to (never replaced by a rename).
    file.lock()?;
    file.seek(SeekFrom::Start(0))?;
    let marker = format!("\"run\":{}", serde_json::to_string(run)?);
    let (present, ends_open) = holds_run(&file, marker.as_bytes())?;
    if present {
        return Ok(());
    }
    // A hand edit may have left the last line without its newline: a new line starts after it.
    let mut out = String::new();
    if ends_open {
        out.push('\n');
    }
    for record in records {
        out.push_str(&serde_json::to_string(record)?);
        out.push('\n');
    }
    file.write_all(out.as_bytes())?;
    file.flush()
}

/// Whether a line of the history holds `marker`, and whether its last line lacks its newline:
/// read a piece at a time, so that a history of years is checked in the memory of one line.
fn holds_run(file: &std::fs::File, marker: &[u8]) -> std::io::Result<(bool, bool)> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::with_capacity(64 << 10, file);
    let (mut line, mut ends_open) = (Vec::new(), false);
    loop {
        line.clear();
        let limit = crate::record::history::LINE_BYTES as u64;
        if (&mut reader).take(limit).read_until(b'\n', &mut line)? == 0 {
            return Ok((false, ends_open));
        }
        ends_open = !line.ends_with(b"\n");
        if line.windows(marker.len()).any(|w| w == marker) {
            return Ok((true, ends_open));
        }
    }
}

/// The time now, in RFC 3339 (UTC, to the second); `SOURCE_DATE_EPOCH` (seconds) sets it, as it
/// does for reproducible builds.
fn now() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    rfc3339(seconds)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (the proleptic Gregorian calendar).
fn rfc3339(seconds: i64) -> String {
    let (days, secs) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_rfc_3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_410_115), "2026-12-04T18:48:35Z");
    }
}
