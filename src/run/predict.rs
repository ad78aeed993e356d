//! A case's prediction, wherever it comes from: a recorded file or inline text (read by `load`),
//! or a suite's `run` command, run here once per case and pipeline per run.
//!
//! In one process, each case is scored once (the session's cache), so its command runs once. When
//! a run spans processes (nextest starts one per test; `NEXTEST_RUN_ID` or `GOLDGATE_RUN_ID` names
//! the run), the command's output is kept on disk for the rest of the run, keyed by the command,
//! its arguments, its folder and the document's bytes, and a lock per key makes a second process
//! wait for the first instead of running the command again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::json;

use super::cache::{self, CacheError};
use super::command::{CommandError, Ran, Secrets, run};
use crate::base::fs::{canonical, document_digest, hash_hex, read_bytes, write_atomically};
use crate::base::location::LoadError;
use crate::base::state;
use crate::load::prediction::{RunOf, from_output, missing_document, read_prediction};
use crate::model::case::PredictionSource;
use crate::model::prediction::{CallSource, Prediction};
use crate::model::suite::{CacheMode, CallCache};

/// Where the outputs of a run's commands are shared between its processes, if anywhere, and how
/// the suites' caches of outputs are used.
#[derive(Debug, Clone, Default)]
pub(crate) struct Commands {
    shared: Option<PathBuf>,
    /// `GOLDGATE_CACHE`, over each suite's `run.cache`.
    cache_mode: Option<CacheMode>,
    /// The calls running at once, per suite file that bounds them (`run.concurrency`).
    slots: Arc<Mutex<HashMap<PathBuf, Arc<Slots>>>>,
}

/// A bound on the calls of a suite's command running at once.
#[derive(Debug)]
struct Slots {
    limit: usize,
    used: Mutex<usize>,
    freed: Condvar,
}

/// A call's place among those running at once, freed when dropped.
struct Slot(Arc<Slots>);

impl Slots {
    /// Waits for a free place.
    fn take(slots: Arc<Slots>) -> Slot {
        let mut used = slots.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used >= slots.limit {
            used = slots.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        *used += 1;
        drop(used);
        Slot(slots)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.used.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        self.0.freed.notify_one();
    }
}

/// One call of a case's command, as [`Commands::output`] makes it.
pub(crate) struct CallOf<'a> {
    pub(crate) command: &'a [String],
    pub(crate) dir: &'a Path,
    pub(crate) case_file: &'a Path,
    pub(crate) document: Option<&'a Path>,
    pub(crate) pipeline: Option<&'a str>,
    pub(crate) timeout: Duration,
    pub(crate) attempt: u32,
    /// The retry of the call (from 0): each is a call of its own within the run.
    pub(crate) retry: u32,
    pub(crate) cache: &'a CallCache,
    /// The suite file of the command, and how many of its calls may run at once.
    pub(crate) suite: &'a Path,
    pub(crate) concurrency: Option<u32>,
}

/// A call's output, where it came from, and how to keep it when it was made now.
pub(crate) type Output = (Ran, CallSource, Option<Keep>);

/// An output made now, to keep once it reads as a prediction; other processes wait for it.
pub(crate) struct Keep {
    folder: cache::Folder,
    key: cache::CallKey,
    run: Option<String>,
    _held: std::io::Result<crate::base::lock::Held>,
}

impl Keep {
    /// Keeps `ran`; an output that cannot be kept (a full disk) is still right, only called again
    /// next time. A link in the cache is no such accident but a committed trap (an entry leading to
    /// a file of the reviewer's): refused, and said, as the reason the case fails.
    fn keep(self, ran: &Ran) -> Result<(), String> {
        use crate::base::writing::Refused;
        match self.folder.keep(&self.key, ran, self.run.as_deref()) {
            Err(why @ (Refused::Link { .. } | Refused::Outside { .. })) => Err(why.to_string()),
            _ => Ok(()),
        }
    }
}

/// Why a call gave no output.
pub(crate) enum Uncalled {
    /// The call failed (its message ends with the tail of the command's standard error).
    Failed(CallError),
    /// `replay`, and no output of the call is kept: why, and the cache folder.
    NotKept { why: String, folder: PathBuf },
}

/// Why a call of a case's command gave no output.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The command failed.
    Command(CommandError),
    /// The suite's cache folder cannot be made or used.
    CacheFolder {
        /// The folder.
        folder: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The call could not be keyed.
    Key(CacheError),
    /// The document could not be read to key the call.
    Document {
        /// The document.
        path: PathBuf,
        /// Why (boxed: a load error is large, and a call's result is returned on every case).
        error: Box<LoadError>,
    },
    /// Another process of the run made the call and it failed: the message as that process
    /// wrote it beside the run's shared outputs (its error's type stayed in that process).
    Elsewhere(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Command(e) => e.fmt(f),
            CallError::CacheFolder { folder, source } => write!(
                f,
                "cannot use the cache folder `{}`: {source}",
                folder.display()
            ),
            CallError::Key(e) => e.fmt(f),
            CallError::Document { path, error } => {
                write!(f, "the document `{}`: {}", path.display(), error.message)?;
                match &error.hint {
                    Some(hint) => write!(f, " ({hint})"),
                    None => Ok(()),
                }
            }
            CallError::Elsewhere(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::Command(e) => e.source(),
            CallError::CacheFolder { source, .. } => Some(source),
            CallError::Key(e) => e.source(),
            CallError::Document { error, .. } => Some(&**error),
            CallError::Elsewhere(_) => None,
        }
    }
}

impl Commands {
    /// For a run that spans processes, in its journal's folder; without one, the process is
    /// the run. The state folder must be private to be used: one that is not is an error of the
    /// run. `cache_mode` is `GOLDGATE_CACHE`'s.
    pub(crate) fn for_run(
        journal: Option<&super::journal::Journal>,
        cache_mode: Option<CacheMode>,
    ) -> std::io::Result<Commands> {
        let Some(journal) = journal else {
            return Ok(Commands {
                shared: None,
                cache_mode,
                slots: Arc::default(),
            });
        };
        let shared = journal.folder().join("outputs");
        state::sub_dir(&shared)?;
        Ok(Commands {
            shared: Some(shared),
            cache_mode,
            slots: Arc::default(),
        })
    }

    /// The output of a call, taken from the suite's cache, from another process of the run, or
    /// run now: then with the means to keep it, once it reads as a prediction (a failed call is
    /// never kept), the call's lock held until then.
    pub(crate) fn output(&self, call: &CallOf) -> Result<Output, Uncalled> {
        let mode = self.cache_mode.unwrap_or(call.cache.mode);
        if mode == CacheMode::Off {
            return self
                .in_this_run(call)
                .map(|ran| (ran, CallSource::Called, None));
        }
        let folder = cache::Folder::open(&call.cache.folder).map_err(|source| {
            Uncalled::Failed(CallError::CacheFolder {
                folder: call.cache.folder.clone(),
                source,
            })
        })?;
        // Keyed once the folder is made: the key names the suite's folder from it.
        let key = cache::Call {
            command: call.command,
            dir: call.dir,
            case_file: call.case_file,
            document: call.document,
            pipeline: call.pipeline,
            attempt: call.attempt,
            settings: call.cache,
        }
        .key()
        .map_err(|e| Uncalled::Failed(CallError::Key(e)))?;
        // One call per key, whatever the processes and runs: the others wait, then read it.
        let _held = folder.lock(&key);
        if mode != CacheMode::Refresh
            && let Some((kept, made_by)) = folder.kept(&key)
        {
            // Made by another process of this run (an aggregate's, scoring the case for its
            // numbers): a call of the run, as it is when one process makes it, not a hit.
            let source = if made_by.is_some() && made_by == self.run() {
                CallSource::Called
            } else {
                CallSource::Cached
            };
            return Ok((kept, source, None));
        }
        if mode == CacheMode::Replay {
            return Err(Uncalled::NotKept {
                why: folder.why_missed(&key),
                folder: call.cache.folder.clone(),
            });
        }
        let ran = self.in_this_run(call)?;
        let run = self.run();
        Ok((
            ran,
            CallSource::Called,
            Some(Keep {
                folder,
                key,
                run,
                _held,
            }),
        ))
    }

    /// The run that spans processes, named by a digest of its shared folder (private to this
    /// machine, so never written into a cache a team may commit); `None` for a run in one
    /// process.
    fn run(&self) -> Option<String> {
        let shared = self.shared.as_ref()?;
        Some(crate::base::fs::hash_hex(&[shared
            .as_os_str()
            .as_encoded_bytes()]))
    }

    /// A place among the calls of the suite's command running at once, when its suite bounds
    /// them; the time spent waiting for one is no part of the call's latency.
    fn slot(&self, call: &CallOf) -> Option<Slot> {
        let limit = call.concurrency? as usize;
        let slots = {
            let mut all = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(all.entry(call.suite.to_path_buf()).or_insert_with(|| {
                Arc::new(Slots {
                    limit,
                    used: Mutex::new(0),
                    freed: Condvar::new(),
                })
            }))
        };
        Some(Slots::take(slots))
    }

    /// The command run now, in its place among those running at once.
    fn call_now(&self, call: &CallOf) -> Result<Ran, CallError> {
        let _slot = self.slot(call);
        let secrets = Secrets::of(&call.cache.env);
        run(call.command, call.dir, call.timeout, &secrets).map_err(CallError::Command)
    }

    /// The output of a call run now or taken from another process of the run.
    fn in_this_run(&self, call: &CallOf) -> Result<Ran, Uncalled> {
        let Some(shared) = &self.shared else {
            return self.call_now(call).map_err(Uncalled::Failed);
        };
        // Streamed and bounded: a scan of gigabytes is neither held in memory nor read whole.
        let document_digest = match call.document {
            Some(d) => document_digest(d).map_err(|error| {
                Uncalled::Failed(CallError::Document {
                    path: d.to_path_buf(),
                    error: Box::new(error),
                })
            })?,
            None => String::new(),
        };
        let mut parts: Vec<&[u8]> = call.command.iter().map(|a| a.as_bytes()).collect();
        // The folder's real place: two checkouts with the same layout run their own commands.
        let real_dir = canonical(call.dir);
        parts.push(real_dir.as_os_str().as_encoded_bytes());
        parts.push(document_digest.as_bytes());
        // Each attempt of a repeated case is its own run of the command; the first keeps the
        // key a case run once has.
        let attempt_part = format!("attempt {}", call.attempt);
        if call.attempt > 0 {
            parts.push(attempt_part.as_bytes());
        }
        // A retry runs the command again, whatever an earlier call of the run gave.
        let retry_part = format!("retry {}", call.retry);
        if call.retry > 0 {
            parts.push(retry_part.as_bytes());
        }
        let key = hash_hex(&parts);
        let entry = shared.join(format!("{key}.json"));
        let held = crate::base::lock::lock_file(&shared.join(format!("{key}.lock")));
        if let Some(kept) = read_kept(&entry) {
            return kept.map_err(Uncalled::Failed);
        }
        let result = self.call_now(call);
        let kept = match &result {
            Ok(ran) => {
                json!({"stdout": ran.stdout, "latency_ms": ran.latency_ms, "stderr_tail": ran.stderr_tail})
            }
            Err(why) => json!({"error": why.to_string()}),
        };
        // Without the lock or the folder the output is still right, only not shared.
        // An output larger than a reader takes back is not shared: each process calls.
        let kept = kept.to_string();
        if held.is_ok() && kept.len() as u64 <= KEPT_BYTES {
            let _ = write_atomically(&entry, kept.as_bytes());
        }
        result.map_err(Uncalled::Failed)
    }
}

/// The most a kept output's file may hold ([`crate::base::budget::KEPT_OUTPUT_BYTES`]).
const KEPT_BYTES: u64 = crate::base::budget::KEPT_OUTPUT_BYTES;

fn read_kept(entry: &Path) -> Option<Result<Ran, CallError>> {
    let json: serde_json::Value =
        serde_json::from_slice(&read_bytes(entry, KEPT_BYTES).ok()?).ok()?;
    if let Some(why) = json.get("error").and_then(|e| e.as_str()) {
        return Some(Err(CallError::Elsewhere(why.to_owned())));
    }
    Some(Ok(Ran {
        stdout: json.get("stdout")?.as_str()?.to_owned(),
        latency_ms: json.get("latency_ms")?.as_f64()?,
        stderr_tail: json.get("stderr_tail")?.as_str()?.to_owned(),
    }))
}

/// Reads or produces a case's prediction; `attempt` (from 0) is the attempt of a case its suite
/// runs `repeat` times.
pub(crate) fn predict(
    source: &PredictionSource,
    case_file: &Path,
    commands: &Commands,
    attempt: u32,
) -> Result<Prediction, LoadError> {
    let PredictionSource::Run {
        command,
        dir,
        timeout,
        repeat: _,
        expect_fields,
        document,
        at,
        format,
        pipeline,
        cache,
        policy,
    } = source
    else {
        return read_prediction(source, case_file);
    };
    if let Some(missing) = document.as_ref().and_then(missing_document) {
        return Err(missing);
    }
    let run_of = RunOf {
        command,
        expect_fields: *expect_fields,
        at,
        format: format.as_deref(),
    };
    let mut reasons: Vec<String> = Vec::new();
    loop {
        let call = CallOf {
            command,
            dir,
            case_file,
            document: document.as_ref().map(|d| d.path.as_path()),
            pipeline: pipeline.as_deref(),
            timeout: *timeout,
            attempt,
            retry: reasons.len() as u32,
            cache,
            suite: &at.0,
            concurrency: policy.concurrency,
        };
        match one_call(commands, &call, &run_of) {
            Ok(mut prediction) => {
                prediction.retried = reasons.len() as u32;
                return Ok(prediction);
            }
            Err(Failure::Again(error)) if (reasons.len() as u32) < policy.max_retries => {
                let wait = policy.backoff * 2u32.saturating_pow(reasons.len() as u32);
                let why = error.message.lines().next().unwrap_or_default().to_owned();
                // Said as it happens: a retry is no failure, yet the one watching should know.
                eprintln!(
                    "retry {} of {} for `{}` in {:.1} s: {why}",
                    reasons.len() + 1,
                    policy.max_retries,
                    case_file.display(),
                    wait.as_secs_f64()
                );
                reasons.push(why);
                std::thread::sleep(wait);
            }
            Err(Failure::Again(mut error)) | Err(Failure::Final(mut error)) => {
                if !reasons.is_empty() {
                    error.message = format!(
                        "{} (the last of {} calls; before it: {})",
                        error.message,
                        reasons.len() + 1,
                        reasons.join("; ")
                    );
                }
                return Err(error);
            }
        }
    }
}

/// Why one call gave no prediction: a failure another call may not have (a non-zero exit, a
/// timeout, output that is not JSON), or one it would (no kept output to replay).
enum Failure {
    Again(LoadError),
    Final(LoadError),
}

/// One call of a case's command, read as its prediction, and kept when it is one.
fn one_call(commands: &Commands, call: &CallOf, run_of: &RunOf) -> Result<Prediction, Failure> {
    let (at, case_file) = (run_of.at, call.case_file);
    let (ran, source, keep) = commands.output(call).map_err(|uncalled| match uncalled {
        Uncalled::Failed(why) => Failure::Again(failed(&why.to_string(), at, case_file)),
        Uncalled::NotKept { why, folder } => Failure::Final(not_kept(&why, &folder, at, case_file)),
    })?;
    let mut prediction = from_output(
        ran.stdout.clone(),
        ran.latency_ms,
        &ran.stderr_tail,
        run_of,
        case_file,
    )
    .map_err(Failure::Again)?;
    if let Some(failed) = &mut prediction.failed {
        clean_said(&mut failed.because, &Secrets::of(&call.cache.env));
    }
    // Kept only when it reads as a prediction of a call that did not fail (`ok: false`).
    if let Some(keep) = keep.filter(|_| prediction.failed.is_none())
        && let Err(why) = keep.keep(&ran)
    {
        return Err(Failure::Final(
            LoadError::at(
                &at.0,
                at.1,
                "run",
                format!(
                    "the output of the call for `{}` cannot be kept in the cache: {why}",
                    case_file.display()
                ),
            )
            .hint("remove the link (`git rm` it if it is committed) and run again: goldgate makes the file itself"),
        ));
    }
    prediction.call = Some(source);
    Ok(prediction)
}

/// A pipeline's own words of its failure cleaned of `secrets`, as its standard error is: they
/// go into the records and the reports (an error that quotes the request's headers).
fn clean_said(because: &mut crate::model::prediction::CallFailure, secrets: &Secrets) {
    use crate::model::prediction::CallFailure;
    let (said, found) = match because {
        CallFailure::NotOk { said, found, .. } => (said, found.as_mut()),
        CallFailure::NullFields { said, .. } | CallFailure::NoFields { said, .. } => (said, None),
        CallFailure::NotFields { said, found, .. } => (said, Some(found)),
    };
    for text in said.iter_mut().chain(found) {
        *text = secrets.clean(text);
    }
}

/// A failed call, located at the suite's `run`, naming the case; the tail of its standard error
/// stays last.
fn failed(why: &str, at: &(PathBuf, crate::base::location::Mark), case_file: &Path) -> LoadError {
    let (first, tail) = why.split_once('\n').map_or((why, ""), |(f, t)| (f, t));
    let tail = if tail.is_empty() {
        String::new()
    } else {
        format!("\n{tail}")
    };
    LoadError::at(
        &at.0,
        at.1,
        "run.command",
        format!("{first}, as applied to `{}`{tail}", case_file.display()),
    )
}

/// Where a call `replay` cannot make is located: the error is the cache's, no call was made.
pub(crate) const NOT_KEPT: &str = "run.cache";

/// A call `replay` cannot make: no output of it is kept.
fn not_kept(
    why: &str,
    folder: &Path,
    at: &(PathBuf, crate::base::location::Mark),
    case_file: &Path,
) -> LoadError {
    LoadError::at(
        &at.0,
        at.1,
        NOT_KEPT,
        format!(
            "no output of the call for `{}` is kept in `{}` ({why}), and the cache replays, calling nothing",
            case_file.display(),
            folder.display()
        ),
    )
    .hint(format!(
        "run it once where the pipeline can be called (`GOLDGATE_CACHE=use goldgate test`, or `cargo goldgate test`) and commit `{}`",
        folder.display()
    ))
}
