//! `goldgate lint`: load every case and its recorded prediction, check every `run` command
//! without running it, report every mistake.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use crate::evaluate::before_scoring;
use crate::load::discover::{NoCases, discover};
use crate::load::prediction::{check_command, read_prediction};
use crate::load::{Load, Planned, Problem, When, is_a_prediction, plan_folder};
use crate::model::case::PredictionSource;

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
    // Each case is loaded, checked and dropped in turn: lint holds no more than one at a time.
    let plan = plan_folder(&found, cases, rubrics, |_| true, When::InTurn);
    drop(found);
    // (entry, message); a file that does not load as a case is said only if no case reads it as
    // its prediction, which is known once every case is read.
    let mut errors: Vec<(usize, String)> = Vec::new();
    let mut not_cases: Vec<(usize, &Path)> = Vec::new();
    let mut predictions: Vec<std::path::PathBuf> = Vec::new();
    let mut judges: Vec<Arc<crate::model::suite::Judge>> = Vec::new();
    for (i, entry) in plan.iter().enumerate() {
        let loaded = match &entry.load {
            Load::Now(loaded) => Cow::Borrowed(&**loaded),
            Load::Later(pending) => Cow::Owned(pending.take(entry.pipeline.as_deref())),
        };
        if let Ok(case) = &*loaded
            && let Some(judge) = &case.judge
            && judges.iter().all(|j| j.verdicts != judge.verdicts)
        {
            judges.push(Arc::clone(judge));
        }
        if let Ok(case) = &*loaded
            && let PredictionSource::File { path, .. } = &case.prediction
        {
            predictions.push(path.clone());
        }
        let mut say = |message: String| errors.push((i, message));
        match &*loaded {
            Err(Problem::Load(all)) => {
                not_cases.push((i, &entry.file));
                all.iter().map(ToString::to_string).for_each(&mut say);
            }
            Err(problem) => say(problem.to_string()),
            // A suite's `run` command is checked, never run: lint may sit in a pre-commit hook,
            // and a command may cost money or write files.
            Ok(case) if matches!(case.prediction, PredictionSource::Run { .. }) => {
                check_command(&case.prediction)
                    .iter()
                    .map(ToString::to_string)
                    .for_each(&mut say)
            }
            // A skipped case is not run: `test` reports it ignored, so lint leaves its prediction.
            Ok(case) if case.skip.is_some() => {}
            Ok(case) => match read_prediction(&case.prediction, &case.file) {
                Err(e) => say(e.to_string()),
                // What `test` finds before scoring: misspelt rubric fields, an unpriced model.
                Ok(prediction) => before_scoring(case, &prediction)
                    .iter()
                    .map(crate::render::before_scoring)
                    .for_each(say),
            },
        }
    }
    // A YAML prediction among the cases does not load as a case: it is no case of its own.
    let failed: Vec<&Path> = not_cases.iter().map(|(_, f)| *f).collect();
    let predictions_read = is_a_prediction(&failed, &predictions);
    let dropped: HashSet<usize> = not_cases
        .iter()
        .filter(|(_, f)| predictions_read.contains(*f))
        .map(|(i, _)| *i)
        .collect();
    let mut errors: Vec<String> = errors
        .into_iter()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, e)| e)
        .collect();
    let entries: Vec<&Planned> = plan
        .iter()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(i))
        .map(|(_, e)| e)
        .collect();
    errors.extend(baseline_errors(&entries, cases));
    errors.extend(judge_errors(judges));
    // A case under several pipelines fails to load once per pipeline, with the same error.
    let mut seen = std::collections::HashSet::new();
    errors.retain(|e| seen.insert(e.clone()));
    Ok(Lint {
        cases: case_files(&entries),
        errors,
    })
}

/// How many case files the plan holds: files, not tests (a case under three pipelines is one
/// file; an unreadable place, one each); a suite whose rules no case uses is a failing entry of
/// its own, not a case file.
fn case_files(entries: &[&Planned]) -> usize {
    let files: std::collections::HashSet<&std::path::Path> = entries
        .iter()
        .map(|e| e.file.as_path())
        .filter(|f| {
            f.file_name()
                .is_none_or(|n| !crate::load::suite::SUITE_FILES.iter().any(|s| n == *s))
        })
        .filter(|f| !f.as_os_str().is_empty())
        .collect();
    files.len()
        + entries
            .iter()
            .filter(|e| e.file.as_os_str().is_empty())
            .count()
}

/// A baseline a suite declares must exist and read, as `test` requires of every case under it.
fn baseline_errors(entries: &[&Planned], cases: &Path) -> Vec<String> {
    let mut errors = Vec::new();
    let mut baselines: Vec<&crate::model::suite::BaselineSpec> = Vec::new();
    for spec in entries.iter().filter_map(|e| e.baseline.as_deref()) {
        if baselines.iter().all(|b| b.file != spec.file) {
            baselines.push(spec);
        }
    }
    for spec in baselines {
        let why = match crate::run::baseline_file::read(&spec.file) {
            Ok(Some(_)) => continue,
            Ok(None) => format!(
                "the baseline `{}` does not exist (create it with: GOLDGATE_UPDATE=always goldgate test {})",
                spec.file.display(),
                cases.display()
            ),
            Err(why) => why,
        };
        errors.push(format!(
            "{}:{}:{}: baseline: {why}",
            spec.suite_file.display(),
            spec.at.line,
            spec.at.column
        ));
    }
    errors
}

/// A judge's verdict file must read, as every judged check under it needs (a missing one is
/// fine: `GOLDGATE_JUDGE=record` makes it).
fn judge_errors(judges: Vec<Arc<crate::model::suite::Judge>>) -> Vec<String> {
    let mut errors = Vec::new();
    for judge in judges {
        if let Err(why) = crate::run::judge::read(&judge.verdicts) {
            errors.push(format!(
                "{}:{}:{}: judge.verdicts: {why}",
                judge.at.0.display(),
                judge.at.1.line,
                judge.at.1.column
            ));
        }
    }
    errors
}
