//! Every case of a cases folder, loaded: what the harness runs and `lint` checks.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::load_case;
use crate::case::{Case, PredictionSource};
use crate::discover::Found;
use crate::error::LoadError;

/// One test-to-be: a loaded case, or why it could not be loaded.
#[derive(Debug)]
pub struct Entry {
    /// The test name.
    pub id: String,
    /// The case file (empty for an unreadable place).
    pub file: PathBuf,
    /// The case, or what is wrong.
    pub loaded: Result<Case, Problem>,
}

/// Why an entry could not be loaded.
#[derive(Debug, Clone)]
pub enum Problem {
    /// A mistake in the file.
    Load(LoadError),
    /// A folder or file that could not be read, or two files with one test name.
    Unreadable(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Load(e) => e.fmt(f),
            Problem::Unreadable(reason) => f.write_str(reason),
        }
    }
}

/// Loads the found cases whose name `wanted` accepts. A YAML prediction file under the cases
/// folder is not a case of its own (it does not load as one); a file that does load as a case
/// stays a test even when another names it as its prediction.
pub fn load_folder(found: &[Found], rubrics: &Path, wanted: impl Fn(&str) -> bool) -> Vec<Entry> {
    let mut entries: Vec<Entry> = found
        .iter()
        .filter_map(|f| match f {
            Found::Case { id, path } if wanted(id) => Some(Entry {
                id: id.clone(),
                file: path.clone(),
                loaded: load_case(path, id, rubrics).map_err(Problem::Load),
            }),
            Found::Unreadable { id, reason } if wanted(id) => Some(Entry {
                id: id.clone(),
                file: PathBuf::new(),
                loaded: Err(Problem::Unreadable(reason.clone())),
            }),
            _ => None,
        })
        .collect();
    let predictions: HashSet<PathBuf> = entries
        .iter()
        .filter_map(|e| match e.loaded.as_ref().ok().map(|c| &c.prediction) {
            Some(PredictionSource::File { path, .. }) => std::fs::canonicalize(path).ok(),
            _ => None,
        })
        .collect();
    entries.retain(|e| {
        let is_prediction = std::fs::canonicalize(&e.file).is_ok_and(|p| predictions.contains(&p));
        !(matches!(e.loaded, Err(Problem::Load(_))) && is_prediction)
    });
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    entries
}
