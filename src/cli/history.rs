//! `goldgate history [DIR] [--json] [--html FILE]`: each pipeline's trend in the run histories
//! the suites under DIR declare.

use std::path::{Path, PathBuf};

use crate::base::fs::write_atomically_with;
use crate::base::location::LoadError;
use crate::record::history::{BadLine, RUNS_KEPT, Trend, open, read, trends};
use crate::render::{bad_line, history_page, history_text};

/// What `goldgate history` prints: the trends as text, or as JSON; with `html`, the page too.
pub fn history(dir: &Path, json: bool, html: Option<&Path>) -> Result<String, HistoryError> {
    let all = trends_under(dir)?;
    if let Some(path) = html {
        write_atomically_with(path, |out| {
            std::io::Write::write_all(out, history_page(&all).as_bytes())
        })
        .map_err(|source| HistoryError::Page {
            path: path.to_path_buf(),
            source,
        })?;
    }
    if json {
        let text = serde_json::to_string_pretty(&serde_json::json!({ "trends": all }))
            .map_err(HistoryError::Json)?;
        return Ok(text + "\n");
    }
    if all.is_empty() {
        return Ok(format!(
            "no run history under `{}`: a suite keeps one with `history: history.jsonl`, and each run appends to it\n",
            dir.display()
        ));
    }
    Ok(history_text(&all))
}

/// Every trend of every history declared under `dir`, suite by suite; a history no run has
/// written yet has none.
fn trends_under(dir: &Path) -> Result<Vec<Trend>, HistoryError> {
    let declared = crate::load::suite::histories(dir).map_err(HistoryError::Suites)?;
    let mut all = Vec::new();
    for (_, file) in declared {
        let reader = match open(&file) {
            Ok(Some(reader)) => reader,
            Ok(None) => continue,
            Err(source) => return Err(HistoryError::Unreadable { file, source }),
        };
        let records = match read(reader, RUNS_KEPT) {
            Ok(records) => records,
            Err(bad) => return Err(HistoryError::BadLine { file, bad }),
        };
        all.extend(trends(&file.display().to_string(), &records, None));
    }
    Ok(all)
}

/// Why `goldgate history` shows no trends.
#[derive(Debug)]
pub enum HistoryError {
    /// A suite under the folder does not load, so its history is not known.
    Suites(LoadError),
    /// A history cannot be read.
    Unreadable {
        /// The history.
        file: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A line of a history is not a run's record.
    BadLine {
        /// The history.
        file: PathBuf,
        /// The line, and why.
        bad: BadLine,
    },
    /// The page (`--html`) cannot be written.
    Page {
        /// The page.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The trends cannot be written as JSON.
    Json(serde_json::Error),
}

impl std::fmt::Display for HistoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HistoryError::Suites(e) => e.fmt(f),
            HistoryError::Unreadable { file, source } => {
                write!(f, "cannot read the history `{}`: {source}", file.display())
            }
            HistoryError::BadLine { file, bad } => {
                f.write_str(&bad_line(&file.display().to_string(), bad))
            }
            HistoryError::Page { path, source } => {
                write!(f, "cannot write the page `{}`: {source}", path.display())
            }
            HistoryError::Json(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for HistoryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HistoryError::Suites(e) => Some(e),
            HistoryError::Unreadable { source, .. } | HistoryError::Page { source, .. } => {
                Some(source)
            }
            HistoryError::BadLine { .. } => None,
            HistoryError::Json(e) => Some(e),
        }
    }
}
