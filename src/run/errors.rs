//! What stops a run from starting or from ending: the errors of the harness and of the
//! session, each said in the words the run prints.

use std::sync::Arc;

use super::history::AppendError;
use super::outputs::OutputError;

/// A test's record the run could not keep (a full disk): the run's files would miss it.
#[derive(Debug)]
pub(crate) struct RecordNotKept {
    /// The test.
    pub(crate) test: String,
    /// The system's error.
    pub(crate) source: std::io::Error,
}

impl std::fmt::Display for RecordNotKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot keep the record of `{}` for the run: {}",
            self.test, self.source
        )
    }
}

impl std::error::Error for RecordNotKept {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// A suite folder and pipeline whose every case test was left out for a call error
/// (`run.call_errors: skip`): the run scored nothing of it, and a run that checked nothing
/// must not pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NothingScored {
    /// The suite's folder.
    pub(crate) suite: String,
    /// The pipeline, under pipelines.
    pub(crate) pipeline: Option<String>,
    /// The case tests left out: all there were.
    pub(crate) skipped: usize,
    /// The first of them by name.
    pub(crate) test: String,
    /// Its call's error, its first line.
    pub(crate) error: String,
}

impl std::fmt::Display for NothingScored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let of = match &self.pipeline {
            Some(p) => format!("the pipeline `{p}` of `{}`", self.suite),
            None => format!("`{}`", self.suite),
        };
        let (each, calls) = if self.skipped == 1 {
            ("its", "call")
        } else {
            ("all", "calls")
        };
        write!(
            f,
            "nothing of {of} was scored: {each} {} {calls} failed and `run.call_errors: skip` left their cases out, so the run checked nothing of it; the first, `{}`: {} (fix the pipeline's calls and run again; `run.call_errors: fail` shows each case's error)",
            self.skipped, self.test, self.error
        )
    }
}

impl std::error::Error for NothingScored {}

/// The case tests of each suite folder and pipeline, and those a call error left out
/// (`run.call_errors: skip`): a group that had nothing else scored nothing. Counted by the
/// process that is the run, and by the end step of a run split over processes, from the
/// records, since each of its processes holds only a part of a suite.
#[derive(Debug, Default)]
pub(crate) struct CallSkips {
    groups: std::collections::BTreeMap<(String, Option<String>), Group>,
}

/// A suite folder and pipeline's case tests, as [`CallSkips`] counts them.
#[derive(Debug, Default)]
struct Group {
    /// Case tests that ran (not those a case's `skip:` left out).
    ran: usize,
    /// Of them, those a call error left out.
    skipped: usize,
    /// The first of those, by name, and the first line of its call's error.
    first: Option<(String, String)>,
}

impl CallSkips {
    /// Counts a finished case test of `(suite, pipeline)`: one skipped for its call's error
    /// (`call_error`), one a `skip:` left out (not counted), or one that ran.
    pub(crate) fn count(
        &mut self,
        (suite, pipeline): (&str, Option<&str>),
        id: &str,
        status: crate::evaluate::record::Status,
        call_error: Option<&str>,
    ) {
        use crate::evaluate::record::Status;
        let skipped = status == Status::Ignored && call_error.is_some();
        if status == Status::Ignored && !skipped {
            return;
        }
        let group = self
            .groups
            .entry((suite.to_owned(), pipeline.map(str::to_owned)))
            .or_default();
        group.ran += 1;
        if let (true, Some(error)) = (skipped, call_error) {
            group.skipped += 1;
            let first_line = error.lines().next().unwrap_or_default();
            if group
                .first
                .as_ref()
                .is_none_or(|(first, _)| id < first.as_str())
            {
                group.first = Some((id.to_owned(), first_line.to_owned()));
            }
        }
    }

    /// The first group whose every case test a call error left out, if one was.
    pub(crate) fn nothing_scored(&self) -> Result<(), NothingScored> {
        let all_skipped = self
            .groups
            .iter()
            .find(|(_, g)| g.ran > 0 && g.skipped == g.ran);
        match all_skipped {
            Some(((suite, pipeline), group)) => {
                let (test, error) = group.first.clone().unwrap_or_default();
                Err(NothingScored {
                    suite: suite.clone(),
                    pipeline: pipeline.clone(),
                    skipped: group.skipped,
                    test,
                    error,
                })
            }
            None => Ok(()),
        }
    }
}

/// Why a run's state could not be made.
#[derive(Debug)]
pub enum SessionError {
    /// No temporary file to keep the records of the report in.
    NoSpool(std::io::Error),
    /// The folder where the run's processes share their commands' outputs cannot be used.
    SharedOutputs(std::io::Error),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::NoSpool(e) => {
                write!(f, "cannot make a temporary file for the report: {e}")
            }
            SessionError::SharedOutputs(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SessionError::NoSpool(e) | SessionError::SharedOutputs(e) => Some(e),
        }
    }
}

/// Why a run could not start its state.
#[derive(Debug)]
pub(crate) enum StartError {
    /// The run's journal (a run that spans processes) cannot be opened.
    Journal(std::io::Error),
    /// The session cannot be made.
    Session(SessionError),
}

impl From<SessionError> for StartError {
    fn from(e: SessionError) -> Self {
        StartError::Session(e)
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Journal(e) => e.fmt(f),
            StartError::Session(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StartError::Journal(e) => Some(e),
            StartError::Session(e) => e.source(),
        }
    }
}

/// Arguments of a run that it does not take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgumentsError {
    /// `--pipeline` without a name.
    NoPipelineName,
    /// `--fail-on` without `failures` or `regressions`: what it was given.
    FailOn(String),
    /// `--test-threads 0`.
    NoThreads,
    /// `--test-threads` over the most a run starts.
    TooManyThreads {
        /// The threads asked for.
        asked: usize,
        /// The most a run starts.
        most: usize,
    },
}

impl std::fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgumentsError::NoPipelineName => {
                f.write_str("`--pipeline` needs the name of a pipeline (`--pipeline gemini`)")
            }
            ArgumentsError::FailOn(given) => write!(
                f,
                "`--fail-on` takes `failures` (every failing test fails the run) or `regressions` (a test worse than its baseline entry), not `{given}`"
            ),
            ArgumentsError::NoThreads => f.write_str("`--test-threads` must be at least 1"),
            ArgumentsError::TooManyThreads { asked, most } => write!(
                f,
                "`--test-threads` {asked} is more than {most} (cases are scored on CPU; a few per core is plenty)"
            ),
        }
    }
}

impl std::error::Error for ArgumentsError {}

/// Why the end of a run could not make what it owes: its records, its notes, its files.
#[derive(Debug)]
pub(crate) enum EndError {
    /// A test's record could not be kept.
    RecordNotKept(Arc<RecordNotKept>),
    /// The run's files could not be noted in its journal.
    NotNoted(std::io::Error),
    /// The records could not be taken from where they were kept.
    NotTaken(std::io::Error),
    /// The run kept no records.
    NoRecords,
    /// The records kept could not be read back.
    NotReadBack(std::io::Error),
    /// The run could not be appended to a history.
    History(AppendError),
    /// The run's files could not be made.
    Output(OutputError),
}

impl From<Arc<RecordNotKept>> for EndError {
    fn from(e: Arc<RecordNotKept>) -> Self {
        EndError::RecordNotKept(e)
    }
}

impl From<AppendError> for EndError {
    fn from(e: AppendError) -> Self {
        EndError::History(e)
    }
}

impl From<OutputError> for EndError {
    fn from(e: OutputError) -> Self {
        EndError::Output(e)
    }
}

impl std::fmt::Display for EndError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EndError::RecordNotKept(e) => e.fmt(f),
            EndError::NotNoted(e) => write!(f, "cannot note the run's files: {e}"),
            EndError::NotTaken(e) => write!(f, "cannot keep the run's records: {e}"),
            EndError::NoRecords => f.write_str("the run kept no records"),
            EndError::NotReadBack(e) => write!(f, "cannot read back the run's records: {e}"),
            EndError::History(e) => e.fmt(f),
            EndError::Output(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for EndError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EndError::RecordNotKept(e) => e.source(),
            EndError::NotNoted(e) | EndError::NotTaken(e) | EndError::NotReadBack(e) => Some(e),
            EndError::NoRecords => None,
            EndError::History(e) => e.source(),
            EndError::Output(e) => e.source(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record lost to a full disk fails the end of the run with its message, the disk's
    /// error still reachable under it.
    #[test]
    fn a_record_not_kept_ends_the_run_with_its_io_cause() {
        let lost = Arc::new(RecordNotKept {
            test: "a::p".to_owned(),
            source: std::io::Error::from(std::io::ErrorKind::StorageFull),
        });
        let end = EndError::from(Arc::clone(&lost));
        assert!(
            end.to_string()
                .starts_with("cannot keep the record of `a::p` for the run: "),
            "{end}"
        );
        let io = std::error::Error::source(&end)
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::StorageFull);
        // Taken as the records' io error, it says the same.
        assert_eq!(std::io::Error::other(lost).to_string(), end.to_string());
    }
}
