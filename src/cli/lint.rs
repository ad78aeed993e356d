//! `goldgate lint`: load every case and its prediction, run nothing, report every mistake.

use std::path::Path;

use crate::load::discover::{NoCases, discover};
use crate::load::prediction::read_prediction;
use crate::load::{Problem, load_folder};

/// What `lint` found.
#[derive(Debug, Clone, PartialEq)]
pub struct Lint {
    /// Case files checked.
    pub cases: usize,
    /// Every mistake, one located message each.
    pub errors: Vec<String>,
}

/// Loads every case under `cases` (rubric sets from `rubrics`) and reads its prediction.
pub fn lint(cases: &Path, rubrics: &Path) -> Result<Lint, NoCases> {
    let found = discover(cases)?;
    let entries = load_folder(&found, cases, rubrics, |_| true);
    let mut errors = Vec::new();
    for entry in &entries {
        match &entry.loaded {
            Err(Problem::Load(all)) => errors.extend(all.iter().map(ToString::to_string)),
            Err(problem) => errors.push(problem.to_string()),
            Ok(case) => {
                if let Err(e) = read_prediction(&case.prediction, &case.file) {
                    errors.push(e.to_string());
                }
            }
        }
    }
    Ok(Lint {
        cases: entries.len(),
        errors,
    })
}
