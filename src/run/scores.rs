//! Every test of a folder scored the way `goldgate test` scores it (recorded predictions read,
//! `run` commands run and kept for the run, judges replayed from their verdict files, never
//! asked), without the harness: for `goldgate agree`, which sets these beside people's verdicts.

use std::path::Path;

use super::env::{Env, EnvError, JudgeMode, Update};
use super::errors::SessionError;
use super::session::{Progress, Session};
use crate::evaluate::outcome::Outcome;
use crate::load::discover::{NoCases, discover};
use crate::load::load_folder;

/// One test's outcome, or why it has none.
pub(crate) struct Scored {
    /// The test name.
    pub(crate) id: String,
    /// The outcome, when the case loaded and its prediction was read.
    pub(crate) outcome: Option<Outcome>,
    /// Why it could not be scored.
    pub(crate) error: Option<String>,
}

/// Why a folder's tests could not be scored.
#[derive(Debug)]
pub enum ScoringError {
    /// The folder holds no cases to score.
    NoCases(NoCases),
    /// A variable of goldgate's is set to a value it does not take.
    Env(EnvError),
    /// The run's state could not be made.
    Session(SessionError),
}

impl std::fmt::Display for ScoringError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScoringError::NoCases(e) => f.write_str(&e.0),
            ScoringError::Env(e) => e.fmt(f),
            ScoringError::Session(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ScoringError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScoringError::NoCases(_) | ScoringError::Env(_) => None,
            ScoringError::Session(e) => e.source(),
        }
    }
}

/// Scores every case test under `cases` (skipped ones left out).
pub(crate) fn score_folder(cases: &Path, rubrics: &Path) -> Result<Vec<Scored>, ScoringError> {
    let found = discover(cases).map_err(ScoringError::NoCases)?;
    let env = Env {
        update: Update::No,
        judge: JudgeMode::Replay,
        ..Env::from_process().map_err(ScoringError::Env)?
    };
    let invocation = format!("goldgate test {}", cases.display());
    let session = Session::new(&env, invocation, true, 1, false, Progress::None, None)
        .map_err(ScoringError::Session)?;
    let mut out = Vec::new();
    for entry in load_folder(&found, cases, rubrics, |_| true) {
        match entry.loaded {
            Ok(case) if case.skip.is_some() => {}
            Ok(case) => {
                let full = session.score(&case).take().unwrap_or_default();
                out.push(Scored {
                    id: case.id.clone(),
                    outcome: full.outcome,
                    error: full.error.map(|c| c.message),
                });
            }
            Err(problem) => out.push(Scored {
                id: entry.id,
                outcome: None,
                error: Some(problem.to_string()),
            }),
        }
    }
    Ok(out)
}
