//! The tests of a run: one per case and pipeline, one per suite aggregate and pipeline. Each case
//! is scored once, even when an aggregate needs it too, and compared with its baseline.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use libtest_mimic::{Completion, Failed, Trial};

use crate::evaluate::aggregate::{self as aggregation};
use crate::evaluate::baseline::{self, Baseline, Change};
use crate::evaluate::evaluate;
use crate::evaluate::outcome::Outcome;
use crate::evaluate::record::AggregateResult;
use crate::evaluate::record::{Record, Status};
use crate::load::prediction::read_prediction;
use crate::load::{Entry, Problem};
use crate::model::case::Case;
use crate::model::prediction::Prediction;
use crate::model::suite::Aggregate;
use crate::render::failure_message;
use crate::run::env::Update;

/// A case test's result, computed once.
#[derive(Debug, Clone)]
pub struct Scored {
    /// The test's verdict, baseline included.
    pub passed: bool,
    /// The failure message.
    pub message: Option<String>,
    /// The load, prediction or baseline error.
    pub error: Option<String>,
    /// The evaluation.
    pub outcome: Option<Outcome>,
    /// The prediction read.
    pub prediction: Option<Prediction>,
}

/// A baseline file as read: its content, `None` when missing, or why it could not be read.
type BaselineRead = Result<Option<Baseline>, String>;

/// What the tests of a run share.
pub struct Run {
    /// Every case test's record, for the summary and the report.
    pub records: Mutex<Vec<Record>>,
    /// Scores by test name.
    scored: Mutex<HashMap<String, Arc<OnceLock<Scored>>>>,
    /// Baselines by file, read once.
    baselines: Mutex<HashMap<PathBuf, Arc<OnceLock<BaselineRead>>>>,
    /// Aggregate results, for the report.
    pub aggregates: Mutex<Vec<AggregateResult>>,
    /// Metrics that beat their baseline by more than the tolerance.
    pub improvements: Mutex<Vec<String>>,
    /// Tests without a baseline entry yet.
    pub new_cases: Mutex<Vec<String>>,
    /// Whether baselines are being rewritten.
    pub update: Update,
    /// How to run one test again, for the commands in messages (`goldgate test cases`).
    pub invocation: String,
    /// Strip colour from messages (JSON output prints them verbatim).
    pub plain: bool,
    /// Test threads, for scoring an aggregate's cases in parallel.
    pub threads: usize,
}

impl Run {
    /// A run's shared state.
    pub fn new(update: Update, invocation: String, plain: bool, threads: usize) -> Arc<Run> {
        Arc::new(Run {
            records: Mutex::default(),
            scored: Mutex::default(),
            baselines: Mutex::default(),
            aggregates: Mutex::default(),
            improvements: Mutex::default(),
            new_cases: Mutex::default(),
            update,
            invocation,
            plain,
            threads,
        })
    }

    /// The command that accepts this run's numbers for one test.
    pub fn accept_command(&self, test: &str) -> String {
        format!(
            "GOLDGATE_UPDATE=always {} --exact {}",
            self.invocation,
            crate::base::shell::shell_quote(test)
        )
    }

    fn cell(&self, id: &str) -> Arc<OnceLock<Scored>> {
        Arc::clone(lock(&self.scored).entry(id.to_owned()).or_default())
    }

    fn baseline(&self, file: &Path) -> BaselineRead {
        let cell = Arc::clone(lock(&self.baselines).entry(file.to_path_buf()).or_default());
        cell.get_or_init(|| baseline::read(file)).clone()
    }

    /// Scores a case once.
    pub fn score(&self, case: &Case) -> Scored {
        self.cell(&case.id)
            .get_or_init(|| self.score_now(case))
            .clone()
    }

    fn score_now(&self, case: &Case) -> Scored {
        let prediction = match read_prediction(&case.prediction, &case.file) {
            Ok(p) => p,
            Err(error) => {
                return Scored {
                    passed: false,
                    message: Some(format!(
                        "error: {error}\nthe prediction could not be read, so nothing was scored"
                    )),
                    error: Some(error.to_string()),
                    outcome: None,
                    prediction: None,
                };
            }
        };
        let outcome = evaluate(case, &prediction);
        let mut passed = outcome.passed;
        let mut message = (!outcome.passed).then(|| failure_message(case, &outcome));
        let mut error = None;
        if let (Some(spec), Update::No) = (&case.baseline, self.update) {
            match self.baseline(&spec.file) {
                Err(why) => {
                    passed = false;
                    error = Some(why.clone());
                    message = Some(join(message, &format!("error: {why}")));
                }
                Ok(None) => {
                    passed = false;
                    let why = format!(
                        "the baseline `{}` declared by `{}` does not exist\ncreate it with: GOLDGATE_UPDATE=always {}",
                        spec.file.display(),
                        spec.suite_file.display(),
                        self.invocation
                    );
                    error = Some(why.clone());
                    message = Some(join(message, &format!("error: {why}")));
                }
                Ok(Some(base)) => match base
                    .cases
                    .get(&spec.key(&case.file, case.pipeline.as_deref()))
                {
                    None => lock(&self.new_cases).push(case.id.clone()),
                    Some(old) => {
                        let (worse, better) =
                            baseline::compare(old, &baseline::entry_of(&outcome), spec.tolerance);
                        if !better.is_empty() {
                            lock(&self.improvements).push(format!(
                                "{}: {}",
                                case.id,
                                changes(&better)
                            ));
                        }
                        if !worse.is_empty() {
                            passed = false;
                            let why = format!(
                                "regression against the baseline `{}` (tolerance {}): {}\naccept the new numbers with: {}",
                                spec.file.display(),
                                spec.tolerance,
                                changes(&worse),
                                self.accept_command(&case.id)
                            );
                            message = Some(join(message, &why));
                        }
                    }
                },
            }
        }
        Scored {
            passed,
            message,
            error,
            outcome: Some(outcome),
            prediction: Some(prediction),
        }
    }
}

fn changes(list: &[Change]) -> String {
    list.iter()
        .map(|c| {
            if c.new.is_nan() {
                format!("{} {:.4} -> absent", c.metric, c.old)
            } else {
                format!("{} {:.4} -> {:.4}", c.metric, c.old, c.new)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn join(message: Option<String>, more: &str) -> String {
    match message {
        Some(m) => format!("{m}\n\n{more}"),
        None => more.to_owned(),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A failure message; without colour codes where libtest-mimic prints them verbatim (JSON).
fn failed(message: String, plain: bool) -> Failed {
    if plain {
        Failed::from(anstream::adapter::strip_str(&message).to_string())
    } else {
        Failed::from(message)
    }
}

/// The trial of one entry. `flag_skipped`: `--ignored` selects skipped cases by libtest's
/// flag; `run_skipped`: `--ignored` or `--include-ignored` runs them.
pub fn case_trial(entry: Entry, run: &Arc<Run>, flag_skipped: bool, run_skipped: bool) -> Trial {
    let run = Arc::clone(run);
    match entry.loaded {
        Err(problem) => {
            let (id, file, pipeline) = (entry.id, entry.file.display().to_string(), entry.pipeline);
            Trial::test(id.clone(), move || {
                let message = match &problem {
                    Problem::Load(_) => {
                        format!("error: {problem}\nthe case could not be loaded, so it was not run")
                    }
                    Problem::Unreadable(reason) => format!("error: {reason}"),
                };
                let record = Record {
                    id: id.clone(),
                    pipeline,
                    file,
                    about: None,
                    status: Status::Failed,
                    error: Some(problem.to_string()),
                    skip: None,
                    outcome: None,
                    prediction: None,
                    baseline: None,
                };
                lock(&run.records).push(record);
                lock(&run.scored)
                    .entry(id)
                    .or_default()
                    .get_or_init(|| Scored {
                        passed: false,
                        message: None,
                        error: Some(problem.to_string()),
                        outcome: None,
                        prediction: None,
                    });
                Err(failed(message, run.plain))
            })
        }
        Ok(case) => {
            let flagged = case.skip.is_some() && flag_skipped;
            Trial::ignorable_test(case.id.clone(), move || {
                let mut record = Record {
                    id: case.id.clone(),
                    pipeline: case.pipeline.clone(),
                    file: case.file.display().to_string(),
                    about: Some((case.description.clone(), case.tags.clone())),
                    status: Status::Failed,
                    error: None,
                    skip: case.skip.clone(),
                    outcome: None,
                    prediction: None,
                    baseline: case.baseline.clone(),
                };
                if let (Some(reason), false) = (&case.skip, run_skipped) {
                    record.status = Status::Ignored;
                    lock(&run.records).push(record);
                    return Ok(Completion::ignored_with(reason));
                }
                let scored = run.score(&case);
                record.status = if scored.passed {
                    Status::Passed
                } else {
                    Status::Failed
                };
                record.error = scored.error.clone();
                record.outcome = scored.outcome.clone();
                record.prediction = scored.prediction.clone();
                lock(&run.records).push(record);
                match (scored.passed, scored.message) {
                    (true, _) => Ok(Completion::Completed),
                    (false, message) => Err(failed(
                        message.unwrap_or_else(|| "case failed".into()),
                        run.plain,
                    )),
                }
            })
            .with_ignored_flag(flagged)
        }
    }
}

/// The name of a suite's aggregate test: `invoices::aggregate::guided`.
pub fn aggregate_name(aggregate: &Aggregate, pipeline: Option<&str>) -> String {
    let mut name = if aggregate.id.is_empty() {
        "aggregate".to_owned()
    } else {
        format!("{}::aggregate", aggregate.id)
    };
    if let Some(p) = pipeline {
        name.push_str("::");
        name.push_str(p);
    }
    name
}

/// One aggregate test over the cases of `entries` under `aggregate` for one pipeline.
pub fn aggregate_trial(
    aggregate: Arc<Aggregate>,
    pipeline: Option<String>,
    cases: Vec<Entry>,
    run: &Arc<Run>,
) -> Trial {
    let run = Arc::clone(run);
    let name = aggregate_name(&aggregate, pipeline.as_deref());
    Trial::test(name.clone(), move || {
        // Score the cases on as many threads as the run has, so that `run` commands go on in
        // parallel even when this test reaches them first.
        let to_score: Vec<&Case> = cases
            .iter()
            .filter_map(|e| e.loaded.as_ref().ok())
            .filter(|c| c.skip.is_none())
            .collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..run.threads.max(1).min(to_score.len()) {
                scope.spawn(|| {
                    while let Some(case) =
                        to_score.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        run.score(case);
                    }
                });
            }
        });
        let mut results = Vec::new();
        for entry in &cases {
            match &entry.loaded {
                Ok(case) if case.skip.is_some() => {}
                Ok(case) => results.push(run.score(case)),
                Err(problem) => results.push(Scored {
                    passed: false,
                    message: None,
                    error: Some(problem.to_string()),
                    outcome: None,
                    prediction: None,
                }),
            }
        }
        let agg = aggregation::aggregate(results.iter().map(|s| (s.passed, s.outcome.as_ref())));
        let verdicts = agg.judge(&aggregate.thresholds);
        lock(&run.aggregates).push((
            name.clone(),
            pipeline.clone(),
            agg.clone(),
            verdicts.clone(),
        ));
        let failed_bounds: Vec<String> = verdicts
            .iter()
            .filter(|v| !v.held)
            .map(|v| match v.value {
                Some(x) => format!(
                    "{} failed: {:.4} {} {}",
                    v.name,
                    x,
                    if v.is_max { ">" } else { "<" },
                    v.limit
                ),
                None => format!(
                    "{} failed: the metric is absent ({})",
                    v.name,
                    v.absent_because.as_deref().unwrap_or("")
                ),
            })
            .collect();
        if failed_bounds.is_empty() {
            return Ok(());
        }
        let mut message = format!(
            "aggregate failed over {} case tests ({} passed): {}\n",
            agg.cases,
            agg.passed,
            failed_bounds.join("; ")
        );
        message.push_str(&crate::render::aggregate_table(&agg));
        message.push_str(&format!("\nat {} (aggregate)", aggregate.file.display()));
        Err(failed(message, run.plain))
    })
}
