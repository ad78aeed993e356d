//! Every case of a cases folder, loaded: what the harness runs and `lint` checks.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use super::load_case_in;
use crate::base::location::{LoadError, Mark};
use crate::load::discover::Found;
use crate::load::suite::Suites;
use crate::model::case::{Case, PredictionSource};
use crate::model::suite::{Aggregate, BaselineSpec};

/// One test-to-be: a loaded case, or why it could not be loaded.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The test name (`invoices/acme-173::guided`).
    pub id: String,
    /// The case file (empty for an unreadable place).
    pub file: PathBuf,
    /// The pipeline, when the suite declares pipelines.
    pub pipeline: Option<String>,
    /// The aggregates of the suites above it, so that a broken case still counts as failed.
    pub aggregates: Vec<Arc<Aggregate>>,
    /// The baseline of its suite, so that a broken case's entry is not taken for a vanished one.
    pub baseline: Option<Arc<BaselineSpec>>,
    /// The case, or what is wrong.
    pub loaded: Result<Case, Problem>,
}

/// Why an entry could not be loaded.
#[derive(Debug, Clone)]
pub enum Problem {
    /// Mistakes in the file (every one found past parsing, in line order).
    Load(Vec<LoadError>),
    /// A folder or file that could not be read, or two files with one test name.
    Unreadable(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // Each after the first on a line of its own, as the harness prints `error: ` before it.
            Problem::Load(errors) => {
                let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                f.write_str(&lines.join("\nerror: "))
            }
            Problem::Unreadable(reason) => f.write_str(reason),
        }
    }
}

/// Which of their `fields` rules and `critical` names the suites' cases use.
#[derive(Default)]
struct SuiteUses {
    /// By suite file.
    suites: std::collections::BTreeMap<PathBuf, Uses>,
}

/// One suite file's names: every one it declares (name, where, YAML path), those its cases'
/// gold has (a path: reaches), and whether a case below it could not be loaded (then nothing is said: its
/// gold is unknown).
type Uses = (Vec<(String, Mark, String)>, HashSet<String>, bool);

impl SuiteUses {
    fn note(&mut self, suite: &crate::load::suite::Suite, case: Option<&Case>) {
        for (file, defaults) in &suite.defaults {
            let (declared, used, broken) = self.suites.entry(file.clone()).or_insert_with(|| {
                let mut names = Vec::new();
                for (name, rule) in defaults.fields.iter().flatten() {
                    names.push((
                        name.clone(),
                        Mark::of(&rule.referenced),
                        format!("fields.{name}"),
                    ));
                }
                for (i, name) in defaults.critical.iter().flatten().enumerate() {
                    names.push((
                        name.value.clone(),
                        Mark::of(&name.referenced),
                        format!("critical[{i}]"),
                    ));
                }
                (names, HashSet::new(), false)
            });
            match case {
                Some(case) => used.extend(
                    declared
                        .iter()
                        .filter(|(name, _, _)| {
                            case.gold.iter().flatten().any(|g| g.is_reached_by(name))
                        })
                        .map(|(name, _, _)| name.clone()),
                ),
                None => *broken = true,
            }
        }
    }

    /// A failing test per suite file whose names no case uses, named after the suite file.
    fn unused(self, root: &Path) -> Vec<Entry> {
        let mut out = Vec::new();
        for (file, (declared, used, broken)) in self.suites {
            let inside = crate::base::fs::relative_to(&file, root);
            if broken || inside.is_none() {
                continue;
            }
            let errors: Vec<LoadError> = declared
                .iter()
                .filter(|(name, _, _)| !used.contains(name))
                .map(|(name, mark, path)| {
                    LoadError::at(
                        &file,
                        *mark,
                        format!("defaults.{path}"),
                        format!("no case below this suite has `{name}` in its gold"),
                    )
                    .hint("remove it, or fix its name")
                })
                .collect();
            if errors.is_empty() {
                continue;
            }
            let id = inside.map_or_else(
                || file.display().to_string(),
                |p| crate::base::fs::slashed(&p),
            );
            out.push(Entry {
                id,
                file: file.clone(),
                pipeline: None,
                aggregates: Vec::new(),
                baseline: None,
                loaded: Err(Problem::Load(errors)),
            });
        }
        out
    }
}

/// Loads the found cases whose file name `wanted` accepts, one entry per case and pipeline. A
/// YAML prediction file under the cases folder is not a case of its own (it does not load as
/// one); a file that does load as a case stays a test even when another names it.
pub fn load_folder(
    found: &[Found],
    root: &Path,
    rubrics: &Path,
    wanted: impl Fn(&str) -> bool,
) -> Vec<Entry> {
    let mut suites = Suites::new(root);
    let mut entries: Vec<Entry> = Vec::new();
    let mut uses = SuiteUses::default();
    for f in found {
        match f {
            Found::Case { id, path } if wanted(id) => {
                let suite = suites.for_case(path);
                let loaded = suite
                    .as_ref()
                    .map_err(Clone::clone)
                    .map_err(|e| vec![e])
                    .and_then(|s| load_case_in(path, id, rubrics, s));
                if let Ok(s) = &suite {
                    uses.note(s, loaded.as_ref().ok().and_then(|cases| cases.first()));
                }
                match loaded {
                    Ok(cases) => entries.extend(cases.into_iter().map(|case| Entry {
                        id: case.id.clone(),
                        file: path.clone(),
                        pipeline: case.pipeline.clone(),
                        aggregates: case.aggregates.clone(),
                        baseline: case.baseline.clone(),
                        loaded: Ok(case),
                    })),
                    Err(error) => {
                        // One failing test per pipeline, as the case would have had.
                        let (pipelines, aggregates, baseline) = match &suite {
                            Ok(s) => (
                                s.pipelines.as_ref().map_or(vec![None], |p| {
                                    p.list.iter().map(|(n, _)| Some(n.clone())).collect()
                                }),
                                s.aggregates.clone(),
                                s.baseline.clone(),
                            ),
                            Err(_) => (vec![None], Vec::new(), None),
                        };
                        for pipeline in pipelines {
                            entries.push(Entry {
                                id: pipeline
                                    .as_ref()
                                    .map_or_else(|| id.clone(), |p| format!("{id}::{p}")),
                                file: path.clone(),
                                pipeline,
                                aggregates: aggregates.clone(),
                                baseline: baseline.clone(),
                                loaded: Err(Problem::Load(error.clone())),
                            });
                        }
                    }
                }
            }
            Found::Unreadable { id, reason } if wanted(id) => entries.push(Entry {
                id: id.clone(),
                file: PathBuf::new(),
                pipeline: None,
                aggregates: Vec::new(),
                baseline: None,
                loaded: Err(Problem::Unreadable(reason.clone())),
            }),
            _ => {}
        }
    }
    // A suite's rule or critical name that no case below it has: a typo, or a leftover. Only
    // when every case was loaded, and for suites inside the folder: else some cases are unseen.
    let every_case = found
        .iter()
        .all(|f| !matches!(f, Found::Case { id, .. } if !wanted(id)));
    if every_case {
        entries.extend(uses.unused(root));
    }
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
