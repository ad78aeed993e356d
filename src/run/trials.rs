//! The tests of a run: one per case and pipeline, one per suite aggregate and pipeline. Each case
//! is scored once per process, even when an aggregate needs it too, and compared with its
//! baseline; across processes, its command's output is shared (see [`super::predict`]).

use std::path::Path;
use std::sync::Arc;

use libtest_mimic::Failed;

use super::libtest::Completion;

use super::libtest::Job;

use super::session::Session;
use crate::base::budget::MESSAGE_ITEMS;
use crate::evaluate::aggregate as aggregation;
use crate::evaluate::aggregate_result::AggregateRecord;
use crate::evaluate::baseline::{EntryName, Standing};
use crate::evaluate::gate::{self, GateVerdict};
use crate::evaluate::record::{CaseNumbers, Cause, Compared, ErrorKind, Located, Record, Status};
use crate::load::{Load, Planned, Problem};
use crate::model::case::Case;
use crate::model::metric::Direction;
use crate::model::suite::BaselineSpec;
use crate::model::suite::{Aggregate, RegressionGate};
use crate::render::aggregate_message;
use std::collections::HashMap;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The most characters of one load error a message and a record keep: the error's place and
/// sentence, and the start of the value it quotes.
const ERROR_CHARS: usize = 2_000;

/// A load error cut after [`ERROR_CHARS`] characters, saying how many more there were.
fn bounded(error: &str) -> String {
    match error.char_indices().nth(ERROR_CHARS) {
        None => error.to_owned(),
        Some((at, _)) => format!(
            "{}… ({} more characters)",
            &error[..at],
            error[at..].chars().count()
        ),
    }
}

/// A message without colour codes, for records: a value's own escape sequences are shown
/// (`\u{1b}`) first, not stripped with the colours, so that every output shows them alike.
fn plain(message: &str) -> String {
    anstream::adapter::strip_str(&crate::render::visible_painted(message)).to_string()
}

/// A failure message; without colour codes where libtest-mimic prints them verbatim (JSON).
fn failed(message: String, plain: bool) -> Failed {
    // Printed on standard output, where a CI log reads workflow commands.
    let message = crate::render::inert(&message).into_owned();
    if plain {
        Failed::from(anstream::adapter::strip_str(&message).to_string())
    } else {
        Failed::from(message)
    }
}

/// The trial of one planned test. `flag_skipped`: `--ignored` selects skipped cases by
/// libtest's flag; `run_skipped`: `--ignored` or `--include-ignored` runs them.
pub(crate) fn case_trial(
    entry: Planned,
    session: &Arc<Session>,
    flag_skipped: bool,
    run_skipped: bool,
) -> Job {
    let session = Arc::clone(session);
    session.runs_case(&entry.id);
    // The entry a case that cannot be loaded has in its suite's baseline.
    let entry_name = entry.baseline.as_ref().map(|spec| {
        let name = EntryName::of(
            spec,
            &entry.named_by,
            entry.formerly_named_by.as_deref(),
            entry.pipeline.as_deref(),
        );
        (Arc::clone(spec), name)
    });
    let (id, file, pipeline) = (entry.id, entry.file, entry.pipeline);
    let (history, suite_folder) = (entry.history, entry.suite_folder);
    match entry.load {
        Load::Now(loaded) => match *loaded {
            Err(problem) => Job::new(id.clone(), move || {
                let test = NotLoaded {
                    id,
                    file: &file,
                    pipeline,
                    suite_folder,
                    history: history.as_deref(),
                    entry: entry_name,
                };
                not_loaded(test, &problem, &session)
            }),
            Ok(case) => {
                let flagged = case.skip.is_some() && flag_skipped;
                Job::new(id, move || run_case(&case, &session, run_skipped))
                    .with_ignored_flag(flagged)
            }
        },
        // Loaded as the test starts, and dropped as it ends. (A case that says `skip` is loaded
        // while planning, so that its test is flagged.)
        // The trial holds the pending file and the pipeline, no more: a run has one per test.
        Load::Later(pending) => Job::new(id, move || match pending.take(pipeline.as_deref()) {
            Ok(case) => run_case(&case, &session, run_skipped),
            Err(problem) => {
                let id = pending.test_id(pipeline.as_deref());
                let test = NotLoaded {
                    id,
                    file: pending.file(),
                    pipeline,
                    suite_folder,
                    history: pending.history(),
                    entry: entry_name,
                };
                not_loaded(test, &problem, &session)
            }
        }),
    }
}

/// The test of a case that could not be loaded: its name, file, pipeline, suite's history, and
/// its suite's baseline with its entry's name there.
struct NotLoaded<'a> {
    id: String,
    file: &'a Path,
    pipeline: Option<String>,
    /// The folder of its innermost suite: it counts in that row, as a loaded case would.
    suite_folder: Option<std::path::PathBuf>,
    history: Option<&'a Path>,
    entry: Option<(Arc<BaselineSpec>, EntryName)>,
}

/// The failing test of a case that could not be loaded.
fn not_loaded(test: NotLoaded, problem: &Problem, session: &Session) -> Result<Completion, Failed> {
    let NotLoaded {
        id,
        file,
        pipeline,
        suite_folder,
        history,
        entry,
    } = test;
    let file = file.display().to_string();
    // Each error cut to a bound, in the message and the record alike: an error quotes the value
    // it is about, and 300 rubrics of 99,000 digits each would be 30 MB of message.
    let errors: Vec<String> = match problem {
        Problem::Load(errors) => errors.iter().map(|e| bounded(&e.to_string())).collect(),
        Problem::Unreadable(reason) => vec![bounded(reason)],
    };
    let mut message = not_loaded_message(problem, &errors);
    let problems = located(problem, &errors, &file);
    let kind = match problem {
        Problem::Load(_) => ErrorKind::Load,
        Problem::Unreadable(_) => ErrorKind::Unreadable,
    };
    let (compared, more) = unloaded_against_baseline(entry.as_ref(), kind, &id, session);
    if let Some(more) = more {
        message = format!("{message}\n\n{more}");
    }
    let known = matches!(compared.standing, Some(Standing::KnownFailure));
    let record = Record {
        id,
        pipeline,
        reference: None,
        suite: suite_folder
            .as_deref()
            .or_else(|| Path::new(&file).parent())
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        file,
        document: None,
        about: None,
        attributes: Vec::new(),
        status: if known {
            Status::KnownFailure
        } else {
            Status::Failed
        },
        error: Some(Cause::new(
            kind,
            // Every error, each cut as in `problems`: the whole text would repeat them uncut.
            errors.join("\nerror: "),
        )),
        skip: None,
        outcome: None,
        model: None,
        usage: None,
        usage_mismatch: None,
        baseline: compared,
        message: Some(plain(&message)),
        problems,
        repeated: None,
        calls: None,
        gold_digest: None,
        history: history.map(|h| h.display().to_string()),
    };
    let bless = entry.map(|(spec, name)| (spec.file.clone(), name));
    session.finish_case(&record, bless);
    if known {
        let file = record.baseline.file.as_deref().unwrap_or(Path::new(""));
        let rule = format!("error: {}", kind.name());
        return Ok(Completion::KnownFailure {
            reason: crate::render::known_failure(&[rule], &file.display().to_string()),
        });
    }
    Err(failed(message, session.plain))
}

/// How a case that could not be loaded (`kind`) compares with its entry, when its suite keeps a
/// baseline (`entry`: the spec and its entry's name), and what its message adds when it
/// regressed: under `fail_on: regressions`, a case whose entry says it could not be loaded
/// either is a known failure.
fn unloaded_against_baseline(
    entry: Option<&(Arc<BaselineSpec>, EntryName)>,
    kind: ErrorKind,
    test: &str,
    session: &Session,
) -> (Compared, Option<String>) {
    let Some((spec, name)) = entry else {
        return (Compared::default(), None);
    };
    let (standing, more) = session
        .unscored_standing(spec, name, kind, test)
        .map_or((None, None), |(s, more)| (Some(s), more));
    let compared = Compared {
        file: Some(spec.file.clone()),
        standing,
        relative: session.judged_relative(spec),
        // A case its baseline has no entry for is new, loaded or not.
        new: session.has_entry(spec, name) == Some(false),
        ..Compared::default()
    };
    (compared, more)
}

/// The message of a case that could not be loaded: its first errors, and how many more.
fn not_loaded_message(problem: &Problem, errors: &[String]) -> String {
    let mut lines: Vec<String> = errors
        .iter()
        .take(MESSAGE_ITEMS)
        .map(|e| format!("error: {e}"))
        .collect();
    if errors.len() > MESSAGE_ITEMS {
        lines.push(format!(
            "… and {} more errors (the report has them all)",
            errors.len() - MESSAGE_ITEMS
        ));
    }
    let mut message = lines.join("\n");
    if let Problem::Load(_) = problem {
        message.push_str("\nthe case could not be loaded, so it was not run");
    }
    message
}

/// Each error of a case that could not be loaded (`errors`, as cut), where it is: an unreadable
/// file's at the file.
fn located(problem: &Problem, errors: &[String], file: &str) -> Vec<Located> {
    match problem {
        Problem::Load(all) => all
            .iter()
            .zip(errors)
            .map(|(e, text)| Located {
                file: e.file.display().to_string(),
                line: e.line,
                column: e.column,
                message: text.clone(),
            })
            .collect(),
        Problem::Unreadable(_) => vec![Located {
            file: file.to_owned(),
            line: 0,
            column: 0,
            message: errors.concat(),
        }],
    }
}

/// The record of a case's test before it runs (a skipped case's, as it stays).
pub(crate) fn case_record(case: &Case) -> Record {
    Record {
        gold_digest: Some(crate::evaluate::digest::case_digest(case).to_string()),
        ..unhashed_record(case)
    }
}

/// [`case_record`] without the gold digest, for a case whose scoring takes it (once per case:
/// it hashes every gold value).
fn unhashed_record(case: &Case) -> Record {
    Record {
        id: case.id.clone(),
        pipeline: case.pipeline.clone(),
        reference: case.reference.clone(),
        file: case.file.display().to_string(),
        document: case.document.as_ref().map(|d| d.display().to_string()),
        suite: case.suite_folder.display().to_string(),
        about: Some((case.description.clone(), case.tags.clone())),
        attributes: case.attributes.clone(),
        status: Status::Failed,
        error: None,
        skip: case.skip.clone(),
        outcome: None,
        model: None,
        usage: None,
        usage_mismatch: None,
        baseline: Compared::default(),
        message: None,
        problems: Vec::new(),
        repeated: None,
        calls: None,
        gold_digest: None,
        history: case.history.as_ref().map(|h| h.display().to_string()),
    }
}

fn run_case(case: &Case, session: &Session, run_skipped: bool) -> Result<Completion, Failed> {
    if let (Some(reason), false) = (&case.skip, run_skipped) {
        let mut record = case_record(case);
        record.status = Status::Ignored;
        session.finish_case(&record, None);
        return Ok(Completion::ignored_with(reason));
    }
    let mut record = unhashed_record(case);
    let scored = session.score(case);
    record.gold_digest = scored.numbers.gold_digest.as_ref().map(ToString::to_string);
    let full = scored.take().unwrap_or_default();
    record.status = scored.numbers.status;
    if record.status == Status::Ignored {
        // A call error its suite skips (`run.call_errors: skip`): ignored, with its reason.
        let reason = format!(
            "call error, skipped (run.call_errors: skip): {}",
            full.error
                .as_ref()
                .map_or("", |e| e.message.lines().next().unwrap_or(""))
        );
        record.error = full.error;
        record.skip = Some(reason.clone());
        record.problems = full.problems;
        record.calls = scored.numbers.calls.as_deref().copied();
        session.finish_case(&record, None);
        return Ok(Completion::ignored_with(reason));
    }
    record.error = full.error;
    record.outcome = full.outcome;
    record.model = full.model;
    record.usage = full.usage;
    record.usage_mismatch = full.usage_mismatch;
    record.baseline = full.baseline;
    record.problems = full.problems;
    record.repeated = full.repeated;
    record.calls = scored.numbers.calls.as_deref().copied();
    // The record's copy of the message, without colour, is for the run's files only (a known
    // failure's too: it says why the test fails).
    record.message = (record.status != Status::Passed && session.keeps_records())
        .then(|| plain(full.message.as_deref().unwrap_or("case failed")));
    let bless = case
        .baseline
        .as_ref()
        .map(|spec| (spec.file.clone(), EntryName::of_case(spec, case)));
    // The numbers its scoring made, the same as its record's.
    let numbers = scored.numbers.clone().noting(&record);
    // (As written: a field without a confidence keeps it as NaN, which equals nothing.)
    debug_assert_eq!(format!("{numbers:?}"), format!("{:?}", record.numbers()));
    session.finish_scored_case(&record, numbers, bless);
    if record.status == Status::KnownFailure {
        let failed = match &record.outcome {
            Some(outcome) => crate::evaluate::baseline::failed_rules(outcome),
            None => record
                .error
                .iter()
                .map(|e| format!("error: {}", e.kind.name()))
                .collect(),
        };
        let file = record.baseline.file.as_deref().unwrap_or(Path::new(""));
        Ok(Completion::KnownFailure {
            reason: crate::render::known_failure(&failed, &file.display().to_string()),
        })
    } else if scored.passed {
        Ok(Completion::Completed)
    } else {
        Err(failed(
            full.message.unwrap_or_else(|| "case failed".into()),
            session.plain,
        ))
    }
}

/// The name of a suite's aggregate test: `invoices::aggregate::guided`.
pub(crate) fn aggregate_name(aggregate: &Aggregate, pipeline: Option<&str>) -> String {
    crate::model::test_name::of_aggregate(&aggregate.id, pipeline)
}

/// One aggregate test over the cases of `entries` under `aggregate` for one pipeline.
pub(crate) fn aggregate_trial(
    aggregate: Arc<Aggregate>,
    pipeline: Option<String>,
    cases: Vec<Planned>,
    session: &Arc<Session>,
) -> Job {
    let session = Arc::clone(session);
    let name = aggregate_name(&aggregate, pipeline.as_deref());
    Job::new(name.clone(), move || {
        let numbers = numbers_of_cases(&cases, &session);
        let agg = aggregation::aggregate(&numbers);
        let verdicts = agg.judge(aggregate.bounds(pipeline.as_deref()));
        let counted: Vec<CaseNumbers> = numbers
            .into_iter()
            .filter(|n| n.status != Status::Ignored)
            .collect();
        let slices: Vec<_> = aggregate
            .slices
            .iter()
            .map(|bounds| aggregation::judge_slice(&counted, bounds, &aggregate.file))
            .collect();
        // A run that blesses its baseline is not gated on it.
        let gate = aggregate
            .gate
            .as_ref()
            .filter(|_| !session.blesses())
            .map(|g| {
                gate_verdict(
                    g,
                    &cases,
                    &counted,
                    pipeline.as_deref(),
                    aggregate.id.as_str(),
                    &session,
                )
            });
        let gate_record = gate.as_ref().map(crate::record::gate_record);
        let message = aggregate_message(&agg, &verdicts, &slices, gate_record.as_ref());
        session.finish_aggregate(AggregateRecord {
            id: name.clone(),
            pipeline: pipeline.clone(),
            metrics: agg.clone(),
            thresholds: verdicts,
            slices,
            message: message.as_deref().map(plain),
            file: aggregate.file.display().to_string(),
            gate,
            gold_digest: crate::evaluate::digest::aggregate_digest(&aggregate, pipeline.as_deref()),
        });
        let Some(message) = message else {
            return Ok(Completion::Completed);
        };
        Err(failed(message, session.plain))
    })
}

/// The regression gate of one pipeline: its cases' values against their baseline entries.
fn gate_verdict(
    gate: &RegressionGate,
    cases: &[Planned],
    numbers: &[CaseNumbers],
    pipeline: Option<&str>,
    suite: &str,
    session: &Session,
) -> GateVerdict {
    // The suite's folder (the root suite's cases have no common prefix: all of them), and the
    // pipeline's tests by its name.
    let prefix = format!("{suite}/");
    let folder = cases
        .iter()
        .all(|c| c.id.starts_with(&prefix))
        .then_some(prefix.as_str());
    let accept = session.accept_filter(pipeline, folder);
    let base = match session.baseline(&gate.baseline.file) {
        Err(why) => return gate::without_baseline(gate, why.to_string(), accept),
        Ok(None) => {
            let why = format!(
                "the baseline `{}` declared by `{}` does not exist",
                gate.baseline.file.display(),
                gate.baseline.suite_file.display()
            );
            return gate::without_baseline(gate, why, accept);
        }
        Ok(Some(base)) => base,
    };
    let paired = AgainstBaseline::of(gate, &base, cases, numbers);
    let attempts: Vec<Vec<Option<f64>>> = numbers
        .iter()
        .filter_map(|n| n.attempts.as_ref())
        .map(|a| a.each.iter().map(|x| x.value(gate.metric)).collect())
        .collect();
    GateVerdict {
        accept,
        ..gate::judge(
            gate,
            &paired.pairs,
            paired.unpaired,
            paired.measured,
            &attempts,
        )
    }
    .with_entries(paired.entries, paired.lacking)
    .with_unscored(paired.unscored)
}

/// A pipeline's cases against their baseline entries, by the gate's metric.
struct AgainstBaseline {
    /// The cases with a value in both.
    pairs: Vec<gate::Pair>,
    /// The cases without one or the other.
    unpaired: usize,
    /// The cases with a value now (one that could not be scored at the metric's worst).
    measured: usize,
    /// The cases with an entry.
    entries: usize,
    /// The cases whose entry lacks the metric they measure: blessing would record it.
    lacking: Vec<String>,
    /// The paired cases that could not be scored, at the metric's worst.
    unscored: Vec<String>,
}

impl AgainstBaseline {
    fn of(
        gate: &RegressionGate,
        base: &crate::evaluate::baseline::Baseline,
        cases: &[Planned],
        numbers: &[CaseNumbers],
    ) -> AgainstBaseline {
        let files: HashMap<&str, (&Path, Option<&Path>)> = cases
            .iter()
            .map(|c| {
                (
                    c.id.as_str(),
                    (c.named_by.as_path(), c.formerly_named_by.as_deref()),
                )
            })
            .collect();
        // A case that could not be scored counts at the metric's worst: it is a drop.
        let worst = match gate.metric.about().direction {
            Direction::Higher => 0.0,
            Direction::Lower => 1.0,
        };
        let mut paired = AgainstBaseline {
            pairs: Vec::new(),
            unpaired: 0,
            measured: 0,
            entries: 0,
            lacking: Vec::new(),
            unscored: Vec::new(),
        };
        for n in numbers {
            let entry = files
                .get(n.id.as_str())
                .map(|(named_by, formerly)| {
                    EntryName::of(&gate.baseline, named_by, *formerly, n.pipeline.as_deref())
                })
                .and_then(|name| base.entry(&name));
            let old = entry.and_then(|entry| entry.get(gate.metric.name()));
            paired.entries += usize::from(entry.is_some());
            let now = gate::case_value(n, gate.metric);
            // An entry of a test that could not be scored holds its verdict alone: no value to
            // pair, not one blessed on another metric.
            let scored_then = entry.is_some_and(|e| !e.metrics.is_empty());
            if scored_then && old.is_none() && now.is_some() {
                paired.lacking.push(n.id.clone());
            }
            let new = now.or((n.metrics.is_none()).then_some(worst));
            paired.measured += usize::from(new.is_some());
            if old.is_some() && now.is_none() && new.is_some() {
                paired.unscored.push(n.id.clone());
            }
            match (old, new) {
                (Some(old), Some(new)) => paired.pairs.push(gate::Pair {
                    test: n.id.clone(),
                    old,
                    new,
                }),
                _ => paired.unpaired += 1,
            }
        }
        paired
    }
}

/// The numbers of an aggregate's cases, in plan order, those that could not be loaded (failed
/// tests) last. The cases are scored on as many threads as the run has, so that `run` commands
/// go on in parallel even when this test reaches them first; a case scored by its own test is
/// not loaded again: only its numbers are needed.
fn numbers_of_cases(cases: &[Planned], session: &Session) -> Vec<CaseNumbers> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<(usize, CaseNumbers)>> = Default::default();
    let unloaded: std::sync::Mutex<Vec<(usize, CaseNumbers)>> = Default::default();
    std::thread::scope(|scope| {
        for _ in 0..session.threads.max(1).min(cases.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(entry) = cases.get(i) else { break };
                    // A case that could not be loaded counts as a failed test.
                    let failed = || {
                        let numbers = CaseNumbers::of(
                            &entry.id,
                            entry.pipeline.as_deref(),
                            Status::Failed,
                            None,
                        );
                        lock(&unloaded).push((i, numbers));
                    };
                    let numbers = match &entry.load {
                        Load::Now(loaded) => match &**loaded {
                            Ok(case) if case.skip.is_some() => continue,
                            Ok(case) => session.numbers_for_aggregate(case),
                            Err(_) => {
                                failed();
                                continue;
                            }
                        },
                        Load::Later(pending) => match session
                            .numbers_for_aggregate_later(&entry.id, || {
                                pending.take(entry.pipeline.as_deref())
                            }) {
                            Ok(Some(numbers)) => numbers,
                            Ok(None) => continue,
                            Err(_) => {
                                failed();
                                continue;
                            }
                        },
                    };
                    lock(&results).push((i, numbers));
                }
            });
        }
    });
    let in_order = |m: std::sync::Mutex<Vec<(usize, CaseNumbers)>>| {
        let mut all = m.into_inner().unwrap_or_else(|e| e.into_inner());
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, n)| n)
    };
    let mut numbers: Vec<CaseNumbers> = in_order(results).collect();
    numbers.extend(in_order(unloaded));
    numbers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_load_error_is_cut_and_says_how_much() {
        assert_eq!(bounded("short"), "short");
        let long = format!("{}é{}", "9".repeat(ERROR_CHARS - 1), "9".repeat(10));
        let cut = bounded(&long);
        assert_eq!(
            cut.chars().count(),
            ERROR_CHARS + "… (10 more characters)".chars().count()
        );
        assert!(cut.ends_with("é… (10 more characters)"), "{cut}");
    }
}
