//! A case's prediction, wherever it comes from: a recorded file or inline text (read by `load`),
//! or a suite's `run` command, run here once per case and pipeline per run.
//!
//! In one process, each case is scored once (the session's cache), so its command runs once. When
//! a run spans processes (nextest starts one per test; `NEXTEST_RUN_ID` or `GOLDGATE_RUN_ID` names
//! the run), the command's output is kept on disk for the rest of the run, keyed by the command,
//! its arguments, its folder and the document's bytes, and a lock per key makes a second process
//! wait for the first instead of running the command again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use super::command::{Ran, run};
use crate::base::fs::{canonical, document_digest, hash_hex, read_bytes, write_atomically};
use crate::base::location::LoadError;
use crate::base::state;
use crate::load::prediction::{RunOf, from_output, missing_document, read_prediction};
use crate::model::case::PredictionSource;
use crate::model::prediction::Prediction;

/// Where the outputs of a run's commands are shared between its processes, if anywhere.
#[derive(Debug, Clone, Default)]
pub(crate) struct Commands {
    shared: Option<PathBuf>,
}

impl Commands {
    /// For a run that spans processes, in its journal's folder; without one, the process is
    /// the run. The state folder must be private to be used: one that is not is an error of the
    /// run.
    pub(crate) fn for_run(journal: Option<&super::journal::Journal>) -> std::io::Result<Commands> {
        let Some(journal) = journal else {
            return Ok(Commands::default());
        };
        let shared = journal.folder().join("outputs");
        state::sub_dir(&shared)?;
        Ok(Commands {
            shared: Some(shared),
        })
    }

    /// The output of `command` in `dir`, run now or taken from another process of the run;
    /// `attempt` (from 0) tells the attempts of a repeated case apart.
    fn output(
        &self,
        command: &[String],
        dir: &Path,
        document: Option<&Path>,
        timeout: Duration,
        attempt: u32,
    ) -> Result<Ran, String> {
        let Some(shared) = &self.shared else {
            return run(command, dir, timeout);
        };
        // Streamed and bounded: a scan of gigabytes is neither held in memory nor read whole.
        let document_digest = match document {
            Some(d) => document_digest(d).map_err(|e| {
                let hint = e.hint.map(|h| format!(" ({h})")).unwrap_or_default();
                format!("the document `{}`: {}{hint}", d.display(), e.message)
            })?,
            None => String::new(),
        };
        let mut parts: Vec<&[u8]> = command.iter().map(|a| a.as_bytes()).collect();
        // The folder's real place: two checkouts with the same layout run their own commands.
        let real_dir = canonical(dir);
        parts.push(real_dir.as_os_str().as_encoded_bytes());
        parts.push(document_digest.as_bytes());
        // Each attempt of a repeated case is its own run of the command; the first keeps the
        // key a case run once has.
        let attempt_part = format!("attempt {attempt}");
        if attempt > 0 {
            parts.push(attempt_part.as_bytes());
        }
        let key = hash_hex(&parts);
        let entry = shared.join(format!("{key}.json"));
        let held = crate::base::fs::lock_file(&shared.join(format!("{key}.lock")));
        if let Some(kept) = read_kept(&entry) {
            return kept;
        }
        let result = run(command, dir, timeout);
        let kept = match &result {
            Ok(ran) => {
                json!({"stdout": ran.stdout, "latency_ms": ran.latency_ms, "stderr_tail": ran.stderr_tail})
            }
            Err(why) => json!({"error": why}),
        };
        // Without the lock or the folder the output is still right, only not shared.
        if held.is_ok() {
            let _ = write_atomically(&entry, kept.to_string().as_bytes());
        }
        result
    }
}

/// The most a kept output's file may hold: its standard output at the capture limit (the input
/// budget), every byte of it escaped by JSON (`\u0000`, six bytes), and the rest of the entry.
const KEPT_BYTES: u64 = 6 * crate::base::budget::FILE_BYTES + (1 << 20);

fn read_kept(entry: &Path) -> Option<Result<Ran, String>> {
    let json: serde_json::Value =
        serde_json::from_slice(&read_bytes(entry, KEPT_BYTES).ok()?).ok()?;
    if let Some(why) = json.get("error").and_then(|e| e.as_str()) {
        return Some(Err(why.to_owned()));
    }
    Some(Ok(Ran {
        stdout: json.get("stdout")?.as_str()?.to_owned(),
        latency_ms: json.get("latency_ms")?.as_f64()?,
        stderr_tail: json.get("stderr_tail")?.as_str()?.to_owned(),
    }))
}

/// The folder of the run `run_id` of `project` in the state folder (made 0700), where its
/// journal and its commands' outputs are kept; the project's other runs older than a day are
/// removed first.
pub(crate) fn run_dir(project: &state::Project, run_id: &str) -> std::io::Result<PathBuf> {
    let runs = project.dir().join("runs");
    state::sub_dir(&runs)?;
    let own = hash_hex(&[run_id.as_bytes()]);
    static PRUNED: std::sync::Once = std::sync::Once::new();
    PRUNED.call_once(|| forget_old_runs(&runs, &own));
    let dir = runs.join(own);
    state::sub_dir(&dir)?;
    Ok(dir)
}

/// Removes the folders of other runs older than a day; a run in progress keeps its own.
fn forget_old_runs(runs: &Path, current: &str) {
    let Ok(list) = std::fs::read_dir(runs) else {
        return;
    };
    for entry in list.flatten() {
        let old = entry.metadata().is_ok_and(|m| state::is_old(&m));
        if old && entry.file_name().to_string_lossy() != current {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Reads or produces a case's prediction; `attempt` (from 0) is the attempt of a case its suite
/// runs `repeat` times.
pub(crate) fn predict(
    source: &PredictionSource,
    case_file: &Path,
    commands: &Commands,
    attempt: u32,
) -> Result<Prediction, LoadError> {
    match source {
        PredictionSource::Run {
            command,
            dir,
            timeout,
            repeat: _,
            expect_fields,
            document,
            at,
            format,
        } => {
            if let Some(missing) = document.as_ref().and_then(missing_document) {
                return Err(missing);
            }
            let ran = commands
                .output(
                    command,
                    dir,
                    document.as_ref().map(|d| d.path.as_path()),
                    *timeout,
                    attempt,
                )
                .map_err(|why| {
                    // Located at the suite's `run`, naming the case; the tail of its standard
                    // error stays last.
                    let (first, tail) = why
                        .split_once('\n')
                        .map_or((why.as_str(), ""), |(f, t)| (f, t));
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
                })?;
            from_output(
                ran.stdout,
                ran.latency_ms,
                &ran.stderr_tail,
                &RunOf {
                    command,
                    expect_fields: *expect_fields,
                    at,
                    format: format.as_deref(),
                },
                case_file,
            )
        }
        _ => read_prediction(source, case_file),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn runs_older_than_a_day_are_forgotten_but_the_current_one() {
        let runs = tempfile::tempdir().unwrap();
        let past = std::time::SystemTime::now() - Duration::from_secs(2 * 24 * 3600);
        for name in ["old", "current", "recent"] {
            let dir = runs.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            if name != "recent" {
                std::fs::File::open(&dir)
                    .unwrap()
                    .set_modified(past)
                    .unwrap();
            }
        }
        forget_old_runs(runs.path(), "current");
        let mut left: Vec<String> = std::fs::read_dir(runs.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["current", "recent"]);
    }
}
