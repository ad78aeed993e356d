//! `goldgate lint`: load every case and its recorded prediction, check every `run` command
//! without running it, report every mistake.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::evaluate::before_scoring;
use crate::load::discover::{Found, NoCases, discover};
use crate::load::prediction::{check_command, read_prediction};
use crate::load::{Entry, Load, Planned, Problem, When, is_a_prediction, load_folder, plan_folder};
use crate::model::case::{Case, PredictionSource};
use crate::model::metric::Metric;
use crate::model::suite::Aggregate;

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
    let mut predictions: Vec<PathBuf> = Vec::new();
    let mut judges: Vec<Arc<crate::model::suite::Judge>> = Vec::new();
    let mut gates = Gates::default();
    for (i, entry) in plan.iter().enumerate() {
        let loaded = match &entry.load {
            Load::Now(loaded) => Cow::Borrowed(&**loaded),
            Load::Later(pending) => Cow::Owned(pending.take(entry.pipeline.as_deref())),
        };
        gates.note(&entry.aggregates, Result::as_ref(&loaded).ok());
        if let Ok(case) = &*loaded
            && let Some(judge) = &case.judge
            && judges.iter().all(|j| j.verdicts != judge.verdicts)
        {
            judges.push(Arc::clone(judge));
        }
        predictions.extend(files_read(entry, &loaded));
        if matches!(&*loaded, Err(Problem::Load(_))) {
            not_cases.push((i, &entry.file));
        }
        errors.extend(mistakes(&loaded).into_iter().map(|message| (i, message)));
    }
    let dropped = predictions_among(&not_cases, &predictions);
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
    errors.extend(gates.errors());
    // A case under several pipelines fails to load once per pipeline, with the same error.
    let mut seen = std::collections::HashSet::new();
    errors.retain(|e| seen.insert(e.clone()));
    Ok(Lint {
        cases: case_files(&entries),
        errors,
    })
}

/// The files a case reads besides its own: its prediction and its YAML gold file; of one that
/// does not load, the other files its mistakes are in.
fn files_read(entry: &Planned, loaded: &Result<Case, Problem>) -> Vec<PathBuf> {
    let mut read = Vec::new();
    if let Ok(case) = loaded
        && let PredictionSource::File { path, .. } = &case.prediction
    {
        read.push(path.clone());
    }
    // A YAML gold file among the cases is read by its case (a mistake located in it, too).
    match loaded {
        Ok(case) => read.extend(case.gold_file.iter().cloned()),
        Err(Problem::Load(all)) => read.extend(
            all.iter()
                .filter(|e| e.file != entry.file)
                .map(|e| e.file.clone()),
        ),
        Err(_) => {}
    }
    read
}

/// The mistakes of a case file: why it does not load, else what its prediction or its `run`
/// command gets wrong.
fn mistakes(loaded: &Result<Case, Problem>) -> Vec<String> {
    match loaded {
        Err(Problem::Load(all)) => all.iter().map(ToString::to_string).collect(),
        Err(problem) => vec![problem.to_string()],
        // A suite's `run` command is checked, never run: lint may sit in a pre-commit hook,
        // and a command may cost money or write files.
        Ok(case) if matches!(case.prediction, PredictionSource::Run { .. }) => {
            check_command(&case.prediction)
                .iter()
                .map(ToString::to_string)
                .collect()
        }
        // A skipped case is not run: `test` reports it ignored, so lint leaves its prediction.
        Ok(case) if case.skip.is_some() => Vec::new(),
        Ok(case) => match read_prediction(&case.prediction, &case.file) {
            Err(e) => vec![e.to_string()],
            // What `test` finds before scoring: misspelt rubric fields, an unpriced model.
            Ok(prediction) => before_scoring(case, &prediction)
                .iter()
                .map(crate::render::before_scoring)
                .collect(),
        },
    }
}

/// The entries (by index) of the files that do not load as cases because they are YAML
/// predictions a case reads: no cases of their own, so their mistakes are none.
fn predictions_among(not_cases: &[(usize, &Path)], predictions: &[PathBuf]) -> HashSet<usize> {
    let failed: Vec<&Path> = not_cases.iter().map(|(_, f)| *f).collect();
    let predictions_read = is_a_prediction(&failed, predictions);
    not_cases
        .iter()
        .filter(|(_, f)| predictions_read.contains(*f))
        .map(|(i, _)| *i)
        .collect()
}

/// `lint --explain CASE`: the case named `case` (a test name, `invoices/acme` or
/// `invoices/acme::gpt` for one pipeline, or the path of its file) as its suites and its own keys
/// merge, in plain text; else its mistakes, one `FILE:LINE:COL: …` line each, or why no case
/// has that name.
// Strings: each error is one line `lint` prints as is, the load problems' own messages deduplicated
// by their text.
pub fn explain(cases: &Path, rubrics: &Path, case: &str) -> Result<String, Vec<String>> {
    let found = discover(cases).map_err(|e| vec![e.0])?;
    let id = case_id(&found, case);
    // A test name of one pipeline (`acme::gpt`) loads its case, whose name it begins with.
    let matched = std::cell::RefCell::new(None);
    let wanted = |candidate: &str| {
        let hit = id.as_deref() == Some(candidate)
            || crate::model::test_name::is_of_a_pipeline_of(case, candidate);
        if hit {
            *matched.borrow_mut() = Some(candidate.to_owned());
        }
        hit
    };
    let entries = load_folder(&found, cases, rubrics, wanted);
    let one_pipeline: Vec<&Entry> = entries.iter().filter(|e| e.id == case).collect();
    // `acme::gtp` names a pipeline's test the case does not have: never its other pipelines'.
    if id.is_none() && one_pipeline.is_empty() && !entries.is_empty() {
        let tests: Vec<String> = entries.iter().map(|e| format!("`{}`", e.id)).collect();
        return Err(vec![format!(
            "no test is named `{case}`: its case has {}",
            tests.join(", ")
        )]);
    }
    let chosen: Vec<&Entry> = if one_pipeline.is_empty() {
        entries.iter().collect()
    } else {
        one_pipeline
    };
    if chosen.is_empty() {
        return Err(vec![no_such_case(&found, cases, case)]);
    }
    let mut loaded = Vec::new();
    let mut errors = Vec::new();
    for entry in &chosen {
        match &entry.loaded {
            Ok(c) => loaded.push(c.clone()),
            Err(Problem::Load(all)) => errors.extend(all.iter().map(ToString::to_string)),
            Err(problem) => errors.push(problem.to_string()),
        }
    }
    if !errors.is_empty() {
        // One mistake per file, not one per pipeline.
        let mut seen = HashSet::new();
        errors.retain(|e| seen.insert(e.clone()));
        return Err(errors);
    }
    let name = matched.into_inner().unwrap_or_else(|| case.to_owned());
    Ok(crate::render::explain(&name, &loaded))
}

/// The test name of the case `case` names: itself, or the case whose file (or a gold set's gold
/// or case file) is that path; `None` when it names a pipeline's test (`acme::gpt`).
fn case_id(found: &[Found], case: &str) -> Option<String> {
    let given = Path::new(case);
    if given.is_file() {
        let same = |p: &Path| std::fs::canonicalize(p).ok() == std::fs::canonicalize(given).ok();
        return found.iter().find_map(|f| match f {
            Found::Case { id, path } if same(path) => Some(id.clone()),
            Found::Listed(l) if same(&l.gold) || l.overlay.as_deref().is_some_and(same) => {
                Some(l.id.clone())
            }
            _ => None,
        });
    }
    (!case.contains("::")).then(|| case.to_owned())
}

/// Why `case` names no case under `cases`, with the nearest name.
fn no_such_case(found: &[Found], cases: &Path, case: &str) -> String {
    let ids = found.iter().filter_map(|f| match f {
        Found::Case { id, .. } => Some(id.as_str()),
        Found::Listed(l) => Some(l.id.as_str()),
        _ => None,
    });
    let hint = match crate::base::location::closest(case, ids) {
        Some(best) => format!(" (did you mean `{best}`?)"),
        None => {
            " (name it as its test is named, `invoices/acme`, or by its file's path)".to_owned()
        }
    };
    format!("no case `{case}` under `{}`{hint}", cases.display())
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

/// Each suite aggregate of the plan, with what its cases say of the gate: whether one of them
/// has rubrics, and whether one could not be read (its rubrics then unknown).
#[derive(Default)]
struct Gates(Vec<(Arc<Aggregate>, bool, bool)>);

impl Gates {
    /// Notes a case (`None`: one that did not load) under `aggregates`.
    fn note(&mut self, aggregates: &[Arc<Aggregate>], case: Option<&crate::model::case::Case>) {
        // A skipped case is left out of its aggregates, as `test` leaves it out.
        let has_rubrics = case.is_some_and(|c| c.skip.is_none() && !c.rubrics.is_empty());
        for agg in aggregates {
            let at = match self.0.iter().position(|(a, _, _)| Arc::ptr_eq(a, agg)) {
                Some(at) => at,
                None => {
                    self.0.push((Arc::clone(agg), false, false));
                    self.0.len() - 1
                }
            };
            let seen = &mut self.0[at];
            seen.1 |= has_rubrics;
            seen.2 |= case.is_none();
        }
    }

    /// A bound on the gate (`min_mean_score`, `min_gate_pass_rate`, the rubric accuracies) of an
    /// aggregate none of whose cases has rubrics: `test` fails it, as it measures nothing.
    fn errors(&self) -> Vec<String> {
        let of_the_gate = |m: Metric| {
            matches!(
                m,
                Metric::GatePassRate
                    | Metric::MeanScore
                    | Metric::MustRightAccuracy
                    | Metric::EasyWrongAccuracy
            )
        };
        let mut bounds: Vec<&crate::model::metric::Threshold> = self
            .0
            .iter()
            .filter(|(_, has_rubrics, unread)| !has_rubrics && !unread)
            .flat_map(|(agg, _, _)| agg.thresholds.iter())
            .filter(|t| of_the_gate(t.metric))
            .collect();
        // In the order they are written.
        bounds.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        bounds
            .into_iter()
            .map(|t| {
                format!(
                    "{}:{}:{}: aggregate.{}: no case of the suite has rubrics, so it has no gate to measure and `{}` fails every run (give its cases `rubrics:`, or remove `{}`)",
                    t.file.display(),
                    t.line,
                    t.column,
                    t.name,
                    t.name,
                    t.name
                )
            })
            .collect()
    }
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
            Err(why) => why.to_string(),
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
