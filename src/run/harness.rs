//! The `Harness` builder and the libtest-mimic glue: case files in, one trial per case, exit code out.

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::exit::Exit;
use std::sync::Arc;

use libtest_mimic::{Arguments, ColorSetting, FormatSetting};

use super::ahead;
use super::baseline_file;
use super::env::{Env, Update};
use super::errors::{ArgumentsError, EndError, StartError};
use super::journal::Journal;
use super::libtest::{self, Conclusion, Job};
use super::outputs::{OutputError, Outputs, Records, write_outputs};
use super::session::{Blessed, ExpectedEntries, Progress, Session};
use super::trials::{aggregate_name, aggregate_trial, case_record, case_trial};
use crate::evaluate::aggregate::summarize;
use crate::evaluate::baseline::{Entry as BaselineEntry, EntryName};
use crate::load::cases::GoldSetNote;
use crate::load::discover::{Found, discover, find_by_name};
use crate::load::{Load, Planned, When, load_folder, plan_folder};
use crate::model::suite::{Aggregate, FailOn};
use crate::model::test_name;
use crate::record::aggregate_record;
use crate::record::run_end::RunEnd;
use crate::render::{Regressions, annotations, run_end, workflow_command};

/// Runs a folder of YAML gold cases as tests.
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     goldgate::Harness::new("cases").rubrics("rubrics").run()
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Harness {
    cases: PathBuf,
    rubrics: Option<PathBuf>,
    report: Option<PathBuf>,
    junit: Option<PathBuf>,
    html: Option<PathBuf>,
    annotations: Option<bool>,
    args: Option<Vec<String>>,
    invocation: Option<String>,
}

impl Harness {
    /// A harness over the case files under `cases`.
    pub fn new(cases: impl Into<PathBuf>) -> Self {
        Harness {
            cases: cases.into(),
            rubrics: None,
            report: None,
            junit: None,
            html: None,
            annotations: None,
            args: None,
            invocation: None,
        }
    }

    /// The folder of rubric sets for `include:` (default: the nearest `rubrics` folder above the
    /// cases folder, up to the project root).
    pub fn rubrics(mut self, dir: impl Into<PathBuf>) -> Self {
        self.rubrics = Some(dir.into());
        self
    }

    /// Writes the JSON report there (overrides `GOLDGATE_REPORT`).
    pub fn report(mut self, file: impl Into<PathBuf>) -> Self {
        self.report = Some(file.into());
        self
    }

    /// Writes JUnit XML there (overrides `GOLDGATE_JUNIT`).
    pub fn junit(mut self, file: impl Into<PathBuf>) -> Self {
        self.junit = Some(file.into());
        self
    }

    /// Writes the run's HTML page there (overrides `GOLDGATE_HTML`).
    pub fn html(mut self, file: impl Into<PathBuf>) -> Self {
        self.html = Some(file.into());
        self
    }

    /// Prints GitHub Actions annotations of the failures (`true`), or never (`false`), whatever
    /// `GITHUB_ACTIONS` says (by default: when it is `true`).
    pub fn github_annotations(mut self, on: bool) -> Self {
        self.annotations = Some(on);
        self
    }

    /// libtest arguments, program name first (default: the process's own).
    pub fn args(mut self, args: impl IntoIterator<Item = String>) -> Self {
        self.args = Some(args.into_iter().collect());
        self
    }

    /// How to run the tests again, for the commands in messages (default: the `cargo test`
    /// command of this test target).
    pub fn invocation(mut self, command: impl Into<String>) -> Self {
        self.invocation = Some(command.into());
        self
    }

    /// Runs the cases: 0 when all pass, 101 when a test failed, as libtest; 2 for a usage error.
    #[must_use]
    pub fn run(self) -> ExitCode {
        end_quietly_when_the_reader_leaves();
        if self.asks_for_help() {
            print!(
                "{}\n{}",
                super::help::HARNESS,
                super::help::FLAGS_AND_ENVIRONMENT
            );
            return Exit::Success.into();
        }
        let (args, pipeline, fail_on) = match self.arguments() {
            Ok(args) => args,
            Err(message) => {
                eprintln!("error: {message}");
                return Exit::Usage.into();
            }
        };
        let env = match Env::from_process() {
            // `--fail-on` wins over `GOLDGATE_FAIL_ON`.
            Ok(env) => Env {
                fail_on: fail_on.or(env.fail_on),
                ..env
            },
            Err(message) => {
                eprintln!("error: {message}");
                return Exit::Usage.into();
            }
        };
        self.run_with(&args, pipeline.as_deref(), &env)
    }
}

impl Harness {
    /// The run, once its arguments and environment are read: its trials planned, run, and
    /// written where its outputs go.
    fn run_with(self, args: &Arguments, pipeline: Option<&str>, env: &Env) -> ExitCode {
        let outputs = self.outputs(env);
        let annotations = self.annotations.unwrap_or(env.github_actions);
        let rubrics = self
            .rubrics
            .clone()
            .unwrap_or_else(|| crate::load::discover::default_rubrics(&self.cases));

        let found = match self.found(args) {
            Ok(found) => found,
            Err(no_cases) => return fail_early(&no_cases.0),
        };
        let threads = self.threads(args, env);
        let keeps = (env.run_id.is_none() && outputs.any()) || annotations;
        let session = match self.session(env, args, threads, keeps) {
            Ok(s) => s,
            Err(e) => return fail_early(&e.to_string()),
        };
        let filtered = filtered(args, pipeline);
        if env.run_id.is_none() {
            session.kept().review_of = Some((self.cases.clone(), filtered));
        }
        let selection = (args, pipeline, filtered);
        let trials = trials(&found, &self.cases, &rubrics, selection, &session);
        if let Some(why) = selects_nothing(args, pipeline, &trials) {
            return fail_early(&why);
        }
        let gold_sets = gold_set_notes(&found);
        let found = kept_for_listing(args, found);
        // A filter that matches no test runs nothing and libtest exits 0, as `cargo test FILTER`
        // needs of a filter meant for another test target: the summary line says so instead.
        let unmatched = args
            .filter
            .as_deref()
            .filter(|_| !matches_a_test(args, &trials));
        let begun = match note_the_run(args, env, &session, (&trials, filtered)) {
            Ok(begun) => begun,
            Err(e) => {
                eprintln!("error: cannot note the run's tests: {e}");
                return Exit::TestFailed.into();
            }
        };
        let conclusion = run_trials(args, trials, threads);
        session.end_progress();
        // The run's files are not written either: a run no one could read is not the run.
        let Ok(conclusion) = conclusion.map_err(|e| eprintln!("error: {e}")) else {
            return Exit::Error.into();
        };
        if args.list {
            // nextest never starts an ignored test, but it lists them (`--list --ignored`) under
            // the run's id: the run's files learn its skipped cases here.
            if args.ignored
                && env.run_id.is_some()
                && let Err(e) = record_skipped(&session, &found, &self.cases, &rubrics, &outputs)
            {
                eprintln!("error: {e}");
                return Exit::TestFailed.into();
            }
            return conclusion.exit_code();
        }

        let ended = end_of_run(
            &session,
            env,
            &outputs,
            annotations,
            args,
            unmatched,
            &gold_sets,
        );
        if let Some(Err(e)) = begun.map(super::journal::Begun::ended) {
            eprintln!("error: cannot note the end of this process of the run: {e}");
            return Exit::TestFailed.into();
        }
        if !ended {
            return Exit::TestFailed.into();
        }
        conclusion.exit_code()
    }

    /// How many tests run at once: `--test-threads`, else the cores, or more when a suite's
    /// calls wait on a provider.
    fn threads(&self, args: &Arguments, env: &Env) -> usize {
        // Calls that wait on a provider need threads, not cores: a suite's `run.concurrency`
        // raises the default (never `--test-threads`).
        // A process of one test (nextest's, `--exact`) has no calls to run at once: it does not
        // read every suite for them.
        args.test_threads.unwrap_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            if env.under_nextest || args.exact {
                return cores;
            }
            let calls = crate::load::suite::most_concurrent_calls(&self.cases).unwrap_or(0);
            cores.max(calls as usize)
        })
    }

    /// The files the run writes: the harness's own settings, else the environment's.
    fn outputs(&self, env: &Env) -> Outputs {
        Outputs {
            report: self.report.clone().or_else(|| env.report.clone()),
            junit: self.junit.clone().or_else(|| env.junit.clone()),
            html: self.html.clone().or_else(|| env.html.clone()),
            step_summary: env.step_summary.clone(),
        }
    }

    /// The state of the run in this process; a run that spans processes keeps each test's
    /// record in its journal.
    fn session(
        &self,
        env: &Env,
        args: &Arguments,
        threads: usize,
        keeps_records: bool,
    ) -> Result<Arc<Session>, StartError> {
        let invocation = self.invocation.clone().unwrap_or_else(cargo_invocation);
        let journal = match env.run_id.as_deref() {
            Some(id) => Some(Journal::for_run(id, &self.cases).map_err(StartError::Journal)?),
            None => None,
        };
        Ok(Session::new(
            env,
            invocation,
            args.format == Some(FormatSetting::Json),
            threads,
            keeps_records,
            progress_shown(env, args),
            journal,
        )?)
    }

    /// libtest's arguments, with a thread count that can run.
    /// `-h` or `--help`: libtest-mimic's own help would list neither goldgate's variables nor
    /// what its flags mean here.
    fn asks_for_help(&self) -> bool {
        match &self.args {
            Some(a) => super::help::asked(a),
            None => super::help::asked(&std::env::args_os().collect::<Vec<_>>()),
        }
    }

    /// libtest's arguments, and the pipeline `--pipeline NAME` selects (goldgate's own flag,
    /// taken out before libtest reads the rest).
    fn arguments(&self) -> Result<(Arguments, Option<String>, Option<FailOn>), ArgumentsError> {
        let given: Vec<OsString> = match &self.args {
            Some(a) => a.iter().map(OsString::from).collect(),
            None => std::env::args_os().collect(),
        };
        let (given, pipeline) = pipeline_flag(given)?;
        let (given, fail_on) = fail_on_flag(given)?;
        let args = Arguments::from_iter(name_after_exact(given));
        if args.test_threads == Some(0) {
            return Err(ArgumentsError::NoThreads);
        }
        // One thread each is started up front: a typo such as 10000000 would exhaust the machine.
        if let Some(n) = args.test_threads.filter(|&n| n > MAX_TEST_THREADS) {
            return Err(ArgumentsError::TooManyThreads {
                asked: n,
                most: MAX_TEST_THREADS,
            });
        }
        Ok((args, pipeline, fail_on))
    }

    /// The case files of the run: one test by its name (nextest's one process per test) reads
    /// its own case alone; any other run walks the folder.
    fn found(&self, args: &Arguments) -> Result<Vec<Found>, crate::load::discover::NoCases> {
        let by_name = match (&args.filter, args.exact, args.list) {
            (Some(name), true, false) if !test_name::is_aggregate(name) => {
                find_by_name(&self.cases, name)
            }
            _ => None,
        };
        by_name.map_or_else(|| discover(&self.cases), Ok)
    }
}

/// The notes of the gold sets found, for the run's end.
fn gold_set_notes(found: &[Found]) -> Vec<GoldSetNote> {
    found
        .iter()
        .filter_map(|f| match f {
            Found::Note(note) => Some(note.clone()),
            _ => None,
        })
        .collect()
}

/// Whether the run selects a part of its tests (a filter, `--skip`, `--ignored`, `--pipeline`):
/// it then knows neither every entry its baselines should hold nor every record review keeps.
fn filtered(args: &Arguments, pipeline: Option<&str>) -> bool {
    args.filter.is_some() || !args.skip.is_empty() || args.ignored || pipeline.is_some()
}

/// Why a selection that runs nothing is an error: a misspelt `--exact NAME` or `--pipeline NAME`
/// would pass having run nothing.
fn selects_nothing(args: &Arguments, pipeline: Option<&str>, trials: &[Job]) -> Option<String> {
    if let Some(name) = pipeline.filter(|_| trials.is_empty()) {
        return Some(format!(
            "no test runs the pipeline `{name}` (`--list` shows the tests, `::NAME` ends a pipeline's)"
        ));
    }
    match (args.exact, &args.filter) {
        (true, Some(name)) if !args.list && !trials.iter().any(|t| t.name() == name) => {
            Some(format!(
                "no test is named `{name}` (with `--exact` the whole name counts; `--list` shows them)"
            ))
        }
        _ => None,
    }
}

/// goldgate's own flag `FLAG VALUE` (or `FLAG=VALUE`) taken out of the arguments before any
/// `--`, libtest knowing nothing of it: the value, empty when the flag ends the arguments.
fn take_flag(mut args: Vec<OsString>, flag: &str) -> (Vec<OsString>, Option<String>) {
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let with_value = format!("{flag}=");
    let Some(at) = args[..end]
        .iter()
        .position(|a| a == flag || a.to_string_lossy().starts_with(&with_value))
    else {
        return (args, None);
    };
    let given = args.remove(at).to_string_lossy().into_owned();
    let value = match given.split_once('=') {
        Some((_, value)) => value.to_owned(),
        None if at < end - 1 => args.remove(at).to_string_lossy().into_owned(),
        None => String::new(),
    };
    (args, Some(value))
}

/// `--pipeline NAME`: the tests of that pipeline alone, named exactly (a filter `::NAME` would
/// also take a pipeline whose name starts with NAME).
fn pipeline_flag(args: Vec<OsString>) -> Result<(Vec<OsString>, Option<String>), ArgumentsError> {
    match take_flag(args, "--pipeline") {
        (_, Some(name)) if name.is_empty() || name.starts_with('-') => {
            Err(ArgumentsError::NoPipelineName)
        }
        taken => Ok(taken),
    }
}

/// `--fail-on RULE`: what fails the run, over every suite's `fail_on`.
fn fail_on_flag(args: Vec<OsString>) -> Result<(Vec<OsString>, Option<FailOn>), ArgumentsError> {
    match take_flag(args, "--fail-on") {
        (args, None) => Ok((args, None)),
        (args, Some(rule)) => match FailOn::from_name(&rule) {
            Some(rule) => Ok((args, Some(rule))),
            None => Err(ArgumentsError::FailOn(rule)),
        },
    }
}

/// libtest's flags, as they are written before any `=value`.
const LIBTEST_FLAGS: [&str; 18] = [
    "--include-ignored",
    "--ignored",
    "--test",
    "--bench",
    "--list",
    "--nocapture",
    "--show-output",
    "--exact",
    "--quiet",
    "--test-threads",
    "--logfile",
    "--skip",
    "--color",
    "--format",
    "--help",
    "-q",
    "-Z",
    "-h",
];

/// `--exact NAME` names one test, and goldgate prints it so in the commands it suggests
/// (`GOLDGATE_UPDATE=always … --exact NAME`). A name that starts with `-`, from a case file such
/// as `-rf.yaml`, would be read as flags; it is moved behind `--`, where libtest reads the
/// filter, unless it is one of libtest's flags or the arguments already have a `--`.
fn name_after_exact(mut args: Vec<OsString>) -> Vec<OsString> {
    if args.iter().skip(1).any(|a| a == "--") {
        return args;
    }
    let is_name = |a: &OsString| {
        let a = a.to_string_lossy();
        let flag = a.split_once('=').map_or(&*a, |(f, _)| f);
        // `-Z` is the one short flag that takes its value attached (`-Zunstable-options`).
        a.starts_with('-') && !LIBTEST_FLAGS.contains(&flag) && !a.starts_with("-Z")
    };
    let at = args
        .iter()
        .enumerate()
        .skip(1)
        .position(|(i, a)| a == "--exact" && args.get(i + 1).is_some_and(is_name));
    if let Some(i) = at {
        // `position` counts from the first argument after the program's name.
        let name = args.remove(i + 2);
        args.push("--".into());
        args.push(name);
    }
    args
}

/// Whether the run's filter (without `--skip`, `--ignored`) matches one of its tests.
fn matches_a_test(args: &Arguments, trials: &[Job]) -> bool {
    let filter = Arguments {
        filter: args.filter.clone(),
        exact: args.exact,
        ..Arguments::default()
    };
    trials
        .iter()
        .any(|t| !libtest::is_filtered_out(&filter, t.name(), false))
}

/// Runs the tests, printed as libtest prints them from this thread, the tests worked on ahead
/// of it on `threads`, when the plan says so.
fn run_trials(
    args: &Arguments,
    trials: Vec<Job>,
    threads: usize,
) -> Result<Conclusion, libtest::PrintError> {
    match ahead::plan(args, trials, threads) {
        // One test at most, or one thread: on this thread, whose stack is the main thread's.
        (trials, None) => libtest::run(args, trials),
        (trials, Some(workers)) => workers.run_beside(|| libtest::run(args, trials)),
    }
}

/// The end of a run: the summary and the comparison of pipelines, the baselines blessed,
/// annotations printed, the run's files written (merged with the other processes of the run).
/// `unmatched` is the run's filter when it matched no test. False when a baseline or a file could
/// not be written.
fn end_of_run(
    session: &Session,
    env: &Env,
    outputs: &Outputs,
    annotations: bool,
    args: &Arguments,
    unmatched: Option<&str>,
    gold_sets: &[GoldSetNote],
) -> bool {
    let mut kept = session.kept();
    // In place: a stable sort copies every case's numbers aside (54 MB at 100,000 cases), and
    // no two tests share a name.
    kept.numbers.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    let mut summary = summarize(&kept.numbers);
    summary.gold_digest = crate::evaluate::aggregate::gold_digest(
        &kept.numbers,
        kept.aggregates
            .iter()
            .map(|a| (a.id.as_str(), &a.gold_digest)),
    );
    summary.unmatched_filter = unmatched.map(str::to_owned);
    let mut out = anstream::AutoStream::new(std::io::stdout(), color_choice(args.color));
    // The end of the run, built once from what the run kept; said unless the output is JSON
    // or a later step says it (a split run's).
    let end = (args.format != Some(FormatSetting::Json) && !env.end_later).then(|| {
        let aggregates: Vec<_> = kept.aggregates.iter().map(aggregate_record).collect();
        RunEnd::of(summary, &kept.numbers, &aggregates).with_gold_sets(gold_sets.to_vec())
    });
    if let Some(end) = &end {
        // The tests printed their regressions as they failed.
        let text = run_end(end, Regressions::SaidBefore);
        let _ = write!(out, "{}", crate::render::inert(&text));
    }
    let mut failed = false;
    let vanished = vanished_entries(&kept.expected_entries, session);
    if env.update == Update::Always && !bless(&kept.blessings, &vanished, &mut out) {
        failed = true;
    }
    if env.update != Update::Always {
        for (file, names) in &vanished {
            let _ = writeln!(
                out,
                "baseline: {}: {} entries of tests that no longer exist: {} (a full run with GOLDGATE_UPDATE=always drops them)",
                file.display(),
                names.len(),
                names.join(", ")
            );
        }
    }
    if let Err(e) = own_files(&mut kept, session, outputs, annotations, env) {
        eprintln!("error: {e}");
        failed = true;
    }
    // A process of a run split over processes holds a part of a suite's tests: only the whole
    // run can tell that it scored nothing.
    if env.run_id.is_none()
        && let Err(e) = kept.nothing_scored()
    {
        eprintln!("error: {e}");
        failed = true;
    }
    if let Some(account) = end.as_ref().map(|e| &e.account) {
        // Last, whatever was said before it: what the gate made of the run.
        let _ = write!(out, "{}", crate::render::fixed_lines(account));
        if let Some(line) = crate::render::gate_line(account) {
            let _ = writeln!(out, "{}", paint(&line, account.regressions.is_empty()));
        }
    }
    !failed
}

/// The gate's line in green when nothing regressed, else red.
fn paint(line: &str, held: bool) -> String {
    let color = if held {
        anstyle::AnsiColor::Green
    } else {
        anstyle::AnsiColor::Red
    };
    let style = anstyle::Style::new().fg_color(Some(color.into())).bold();
    format!("{style}{}{style:#}", crate::render::inert(line))
}

/// What this process does with its records at its end: the annotations of its failures, and
/// the run's files when the process is the run. In a run that spans processes each test's
/// record is in the run's journal already; the files are made from it when the run is over.
fn own_files(
    kept: &mut super::session::Kept,
    session: &Session,
    outputs: &Outputs,
    annotations: bool,
    env: &Env,
) -> Result<(), EndError> {
    kept.take_error()?;
    if let Some(journal) = session.journal() {
        journal.note_outputs(outputs).map_err(EndError::NotNoted)?;
    }
    if env.run_id.is_none() {
        kept.finish_review_records();
        // A run of one process appends to its suites' histories; a split run's end step does.
        let filtered = kept.review_of.as_ref().is_some_and(|(_, f)| *f);
        let facts = super::history::RunFacts::single(None, filtered || env.subset);
        super::history::append(&kept.numbers, &facts)?;
    }
    let own = (env.run_id.is_none() && outputs.any()) || annotations;
    if !own {
        return Ok(());
    }
    let cases = kept
        .take_records()
        .map_err(EndError::NotTaken)?
        .ok_or(EndError::NoRecords)?;
    let records = Records::own(
        cases,
        std::mem::take(&mut kept.numbers),
        kept.aggregates.iter().map(aggregate_record).collect(),
    )
    .map_err(EndError::NotReadBack)?;
    if annotations {
        print_annotations(&records, env.github_workspace.as_deref())?;
    }
    if env.run_id.is_none() && outputs.any() {
        write_outputs(outputs, &records)?;
    }
    Ok(())
}

/// Records the skipped cases as ignored tests in the run's files, printing nothing (standard
/// output is the list nextest reads).
fn record_skipped(
    session: &Session,
    found: &[Found],
    root: &Path,
    rubrics: &Path,
    outputs: &Outputs,
) -> Result<(), EndError> {
    for entry in load_folder(found, root, rubrics, |_| true) {
        if let Ok(case) = &entry.loaded
            && case.skip.is_some()
        {
            let mut record = case_record(case);
            record.status = crate::evaluate::record::Status::Ignored;
            session.finish_case(&record, None);
        }
    }
    let kept = session.kept();
    kept.take_error()?;
    // The listing's records are in the run's journal, for its end step; the outputs too.
    if let Some(journal) = session.journal() {
        journal.note_outputs(outputs).map_err(EndError::NotNoted)?;
    }
    Ok(())
}

/// nextest lists every test before it runs them: under a run id, the listing notes them (those
/// not ignored) with the run's journal, in one append, so that the end step can tell the tests
/// that never ran (nextest stops at the first failure). A run that runs a part of what it lists
/// (`GOLDGATE_SUBSET`: a partition) notes none.
fn note_listing(
    args: &Arguments,
    env: &Env,
    session: &Session,
    trials: &[Job],
) -> std::io::Result<()> {
    let Some(journal) = session
        .journal()
        .filter(|_| args.list && !args.ignored && !env.subset)
    else {
        return Ok(());
    };
    let lines: Vec<u8> = trials
        .iter()
        .filter(|t| !t.is_ignored())
        .flat_map(|t| journal.line_of(&super::outputs::listed_line(t.name())))
        .collect();
    journal.note_listed(&lines)
}

/// Under a run id, what the run's end step needs to know of this process: the tests a listing
/// lists, whether the process runs a part of them, and the tests it runs, noted until its end
/// ([`begin_process`]).
fn note_the_run(
    args: &Arguments,
    env: &Env,
    session: &Session,
    (trials, filtered): (&[Job], bool),
) -> std::io::Result<Option<super::journal::Begun>> {
    note_listing(args, env, session, trials)?;
    note_part(args, env, session, filtered)?;
    begin_process(args, session, trials)
}

/// What was found, kept only for a listing of skipped tests (its paths are the trials'): dropped
/// otherwise, not shadowed (a shadowed binding lives to the end of the run: 12 MB of paths at
/// 100,000 cases).
fn kept_for_listing(args: &Arguments, found: Vec<Found>) -> Vec<Found> {
    if args.list {
        found
    } else {
        drop(found);
        Vec::new()
    }
}

/// Under a run id, notes that this process runs a part of the tests (a filter, a partition): the
/// run's history then says the run is partial, unless the runner's listing says what ran
/// (nextest runs one test a process, each by a filter).
fn note_part(
    args: &Arguments,
    env: &Env,
    session: &Session,
    filtered: bool,
) -> std::io::Result<()> {
    match session.journal() {
        Some(journal) if !args.list && (filtered || env.subset) => journal.note_partial(),
        _ => Ok(()),
    }
}

/// Under a run id, notes the tests this process runs (those its filter keeps, ignored ones only
/// when asked for) until its end: a process killed before then leaves its note, and `goldgate
/// report` says the run is incomplete. A listing runs nothing and notes nothing.
fn begin_process(
    args: &Arguments,
    session: &Session,
    trials: &[Job],
) -> std::io::Result<Option<super::journal::Begun>> {
    let Some(journal) = session.journal().filter(|_| !args.list) else {
        return Ok(None);
    };
    let runs = |t: &&Job| {
        (!t.is_ignored() || args.ignored || args.include_ignored)
            && !libtest::is_filtered_out(args, t.name(), false)
    };
    let names: Vec<&str> = trials.iter().filter(runs).map(Job::name).collect();
    journal.begin_process(&names).map(Some)
}

/// Writes the run's baseline entries, each file under its lock, and says what it wrote. False
/// when a file could not be written.
fn bless(
    blessings: &std::collections::BTreeMap<std::path::PathBuf, Vec<Blessed>>,
    vanished: &std::collections::BTreeMap<std::path::PathBuf, Vec<String>>,
    out: &mut dyn Write,
) -> bool {
    let mut ok = true;
    let none = Vec::new();
    let mut files: Vec<&std::path::PathBuf> = blessings.keys().chain(vanished.keys()).collect();
    files.sort();
    files.dedup();
    for file in files {
        let blessed = blessings.get(file).unwrap_or(&none);
        let drop = vanished.get(file).map_or(&[][..], Vec::as_slice);
        let entries: Vec<(EntryName, BaselineEntry)> = blessed
            .iter()
            .map(|b| (b.key.clone(), b.entry.clone()))
            .collect();
        match baseline_file::merge(file, &entries, drop) {
            Ok(w) => {
                // The baseline's line, then how many the file holds now.
                let _ = writeln!(
                    out,
                    "baseline: {}: {} entries, {} new, {} changed, {} of failed tests; {} in the file",
                    file.display(),
                    entries.len(),
                    w.new,
                    w.changed,
                    blessed.iter().filter(|b| !b.passed).count(),
                    w.entries,
                );
                if let Some(renamed) = w.renamed_line() {
                    let _ = writeln!(out, "baseline: {}: {renamed}", file.display());
                }
                if !drop.is_empty() {
                    let _ = writeln!(
                        out,
                        "baseline: {}: dropped {} entries of tests that no longer exist: {}",
                        file.display(),
                        drop.len(),
                        drop.join(", ")
                    );
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                ok = false;
            }
        }
    }
    ok
}

/// The entries of each baseline, within the part a full run covers, that no test of the run
/// would write: their cases were deleted or renamed. The baselines are the ones the run's tests
/// compared with, as the process read them (a second reading held the file's JSON twice).
fn vanished_entries(
    expected: &std::collections::BTreeMap<std::path::PathBuf, ExpectedEntries>,
    session: &Session,
) -> std::collections::BTreeMap<std::path::PathBuf, Vec<String>> {
    let mut out = std::collections::BTreeMap::new();
    for (file, expected) in expected {
        let Ok(Some(base)) = session.baseline(file) else {
            continue;
        };
        let scope = &expected.scope;
        let in_scope = |name: &str| scope.is_empty() || name.starts_with(&format!("{scope}/"));
        let gone: Vec<String> = base
            .cases
            .keys()
            .filter(|k| in_scope(k) && !expected.holds(k))
            .cloned()
            .collect();
        if !gone.is_empty() {
            out.insert(file.clone(), gone);
        }
    }
    out
}

/// GitHub annotations of this process's failed tests, Must-Right and load errors first, on
/// standard error (GitHub reads workflow commands there too, and standard output stays libtest's,
/// JSON included).
fn print_annotations(records: &Records, workspace: Option<&Path>) -> Result<(), OutputError> {
    // (What the annotations name: the tests that failed, kept whole.)
    let cases = records.shown_noting(|_| {})?;
    let aggregates = records.aggregate_list();
    let mut err = std::io::stderr().lock();
    for a in annotations(&cases, &aggregates, workspace) {
        let _ = writeln!(err, "{}", workflow_command(&a));
    }
    Ok(())
}

/// Progress only where a person watches: standard error a terminal, not nextest, not JSON.
fn progress_shown(env: &Env, args: &Arguments) -> Progress {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal()
        || env.under_nextest
        || args.format == Some(FormatSetting::Json)
        || args.list
    {
        Progress::None
    } else if std::io::stdout().is_terminal() {
        Progress::Line
    } else {
        Progress::Bar
    }
}

/// `cargo test --test NAME --`, from the name of this test binary.
fn cargo_invocation() -> String {
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_ref()
        .and_then(|e| e.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Cargo names test binaries `NAME-HASH`.
    let name = stem.rsplit_once('-').map_or(stem.as_str(), |(n, _)| n);
    format!("cargo test --test {name} --")
}

fn fail_early(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    Exit::TestFailed.into()
}

fn color_choice(setting: Option<ColorSetting>) -> anstream::ColorChoice {
    match setting {
        Some(ColorSetting::Always) => anstream::ColorChoice::Always,
        Some(ColorSetting::Never) => anstream::ColorChoice::Never,
        _ => anstream::ColorChoice::Auto,
    }
}

/// The trials of a run. With `--exact NAME` only the cases that test needs are loaded, so a
/// runner that starts one process per test (nextest) stays fast.
fn trials(
    found: &[Found],
    root: &Path,
    rubrics: &Path,
    (args, pipeline, filtered): (&Arguments, Option<&str>, bool),
    session: &Arc<Session>,
) -> Vec<Job> {
    let mut entries = plan_entries(found, root, rubrics, args);
    if let Some(name) = pipeline {
        entries.retain(|e| e.pipeline.as_deref() == Some(name));
    }
    let aggregates = aggregates_of(&entries);
    let (flag, run_skipped) = (args.ignored, args.ignored || args.include_ignored);
    // The commands this process will run, for the progress bar: those of the case tests that
    // pass the filters, and of the cases of the aggregates that do.
    let runs = |name: &str| !libtest::is_filtered_out(args, name, false);
    let live = |e: &Planned| {
        e.runs_a_command
            && match &e.load {
                Load::Now(loaded) => loaded
                    .as_ref()
                    .as_ref()
                    .is_ok_and(|c| c.skip.is_none() || run_skipped),
                Load::Later(_) => true,
            }
    };
    let mut commands: HashSet<&str> = entries
        .iter()
        .filter(|e| live(e) && runs(&e.id))
        .map(|e| e.id.as_str())
        .collect();
    let mut trials: Vec<Job> = Vec::new();
    if !aggregates.is_empty() {
        session.expect_aggregates();
    }
    session.expect_cases(entries.iter().filter(|e| runs(&e.id)).count());
    for entry in entries.iter().filter(|e| runs(&e.id)) {
        if let Load::Later(pending) = &entry.load {
            pending.expect(entry.pipeline.as_deref());
        }
    }
    for (agg, pipeline) in aggregates {
        let cases: Vec<Planned> = entries
            .iter()
            .filter(|e| e.pipeline == pipeline && e.aggregates.iter().any(|a| Arc::ptr_eq(a, &agg)))
            .cloned()
            .collect();
        if runs(&aggregate_name(&agg, pipeline.as_deref())) {
            let ids: HashSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
            commands.extend(
                entries
                    .iter()
                    .filter(|e| live(e) && ids.contains(e.id.as_str()))
                    .map(|e| e.id.as_str()),
            );
        }
        trials.push(aggregate_trial(agg, pipeline, cases, session));
    }
    session.expect_commands(commands.len());
    // A full run knows every entry each baseline should hold: the others belong to vanished cases.
    if !filtered {
        expect_entries(session, &entries, root);
    }
    trials.extend(
        entries
            .into_iter()
            .map(|entry| case_trial(entry, session, flag, run_skipped)),
    );
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    // Aggregates run after the cases (their list stays in name order): by then their cases'
    // numbers are in, and no case is loaded twice.
    if !args.list {
        trials.sort_by_key(|t| test_name::is_aggregate(t.name()));
    }
    trials
}

/// The plan of the run's tests. With `--exact NAME` only the cases that test needs are
/// loaded, so a runner that starts one process per test (nextest) stays fast.
fn plan_entries(found: &[Found], root: &Path, rubrics: &Path, args: &Arguments) -> Vec<Planned> {
    let exact = match (&args.filter, args.exact) {
        (Some(filter), true) => Some(filter.clone()),
        _ => None,
    };
    let wanted = |file_id: &str| match &exact {
        // An aggregate needs every case of its suite.
        Some(name) if test_name::is_aggregate(name) => true,
        // The case's own test, or one of its pipelines'.
        Some(name) => test_name::is_of_case(name, file_id),
        None => true,
    };
    let mut entries = plan_folder(found, root, rubrics, wanted, When::ByItsTest);
    // A case found by its name that does not load may be another case's YAML prediction (no
    // test of its own), which only the whole folder tells: then the folder is walked after all.
    let unloadable = |e: &Planned| matches!(&e.load, Load::Now(l) if matches!(**l, Err(crate::load::Problem::Load(_))));
    if found.iter().any(|f| matches!(f, Found::Elsewhere))
        && entries.iter().any(unloadable)
        && let Ok(all) = discover(root)
    {
        entries = plan_folder(&all, root, rubrics, wanted, When::ByItsTest);
    }
    entries
}

/// Each suite aggregate and pipeline the planned cases belong to, once, in plan order.
fn aggregates_of(entries: &[Planned]) -> Vec<(Arc<Aggregate>, Option<String>)> {
    let mut aggregates: Vec<(Arc<Aggregate>, Option<String>)> = Vec::new();
    for entry in entries {
        for agg in &entry.aggregates {
            if !aggregates
                .iter()
                .any(|(a, p)| Arc::ptr_eq(a, agg) && *p == entry.pipeline)
            {
                aggregates.push((Arc::clone(agg), entry.pipeline.clone()));
            }
        }
    }
    aggregates
}

/// Notes every entry each baseline should hold (on a full run), and the names of the tests that
/// exist but could not be loaded, whose entries stay.
fn expect_entries(session: &Session, entries: &[Planned], root: &Path) {
    let mut expected = session.kept();
    for entry in entries {
        let Some(spec) = &entry.baseline else {
            continue;
        };
        expected
            .expected_entries
            .entry(spec.file.clone())
            .or_insert_with(|| {
                // Once per baseline file: it may touch the filesystem.
                let suite_dir = spec.suite_file.parent().unwrap_or(Path::new(""));
                let scope = crate::base::fs::relative_to(root, suite_dir)
                    .map(|p| crate::base::fs::slashed(&p))
                    .unwrap_or_default();
                ExpectedEntries {
                    scope,
                    suite_dir: suite_dir.to_path_buf(),
                    ..ExpectedEntries::default()
                }
            })
            .names
            .extend(
                EntryName::of(
                    spec,
                    &entry.named_by,
                    entry.formerly_named_by.as_deref(),
                    entry.pipeline.as_deref(),
                )
                .all()
                .map(str::to_owned),
            );
    }
    // A test without its suite's baseline is one that could not be loaded far enough to know
    // it (two files of one name, an unreadable folder, a broken suite): its name, from the
    // cases folder, is kept in each baseline whose suite folder holds it.
    for entry in entries.iter().filter(|e| e.baseline.is_none()) {
        let name = entry.id.split("::").next().unwrap_or(&entry.id);
        let place = root.join(name);
        for file in expected.expected_entries.values_mut() {
            if let Some(rel) = crate::base::fs::relative_to(&place, &file.suite_dir) {
                file.unseen.insert(crate::base::fs::slashed(&rel));
            }
        }
    }
}

/// The most threads a run starts (`--test-threads`).
const MAX_TEST_THREADS: usize = 1024;

/// `goldgate test | head`: when whoever reads standard output goes away, end as `cat` and `grep`
/// do, by the default action of SIGPIPE, instead of a panic in the test printer (Rust ignores
/// SIGPIPE, so each write would fail). Baselines and reports are written whole or not at all.
pub(crate) fn end_quietly_when_the_reader_leaves() {
    // SAFETY: setting a signal's disposition to its default touches no Rust state.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    fail_cleanly_when_output_fails();
}

/// `goldgate lint > /dev/full`: a standard output that cannot be written (a full disk) ends the
/// command with one line on standard error and exit code 1, instead of the panic of std's
/// `print!` and its backtrace. Any other panic is reported as before. (The test printer returns
/// its errors: [`super::libtest::PrintError`].)
fn fail_cleanly_when_output_fails() {
    let before = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // If standard output cannot be written now, that is why, and the error is asked of the
        // output itself (nothing is read back out of the panic's text).
        let std_print = info
            .payload()
            .downcast_ref::<String>()
            .is_some_and(|m| m.starts_with("failed printing to stdout"));
        if std_print && let Err(e) = stdout_writes() {
            eprintln!(
                "error: goldgate cannot write to its standard output: {}",
                crate::base::fs::io_reason(&e)
            );
            std::process::exit(Exit::Error as i32);
        }
        before(info);
    }));
}

/// Whether standard output takes a byte now (a full disk or a closed pipe says why not).
fn stdout_writes() -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(b"\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after_exact(args: &[&str]) -> Vec<String> {
        name_after_exact(args.iter().map(OsString::from).collect())
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn a_name_that_reads_as_flags_after_exact_is_the_filter() {
        assert_eq!(
            after_exact(&["t", "--exact", "-rf", "--nocapture"]),
            ["t", "--exact", "--nocapture", "--", "-rf"]
        );
        assert_eq!(
            after_exact(&["t", "--exact", "-rf::guided"]),
            ["t", "--exact", "--", "-rf::guided"]
        );
        // libtest's own flags, names that read as names, and a `--` already given stay as written.
        for args in [
            &["t", "--exact", "--list"][..],
            &["t", "--exact", "--format=json", "x"],
            &["t", "--exact", "-q", "x"],
            &["t", "--exact", "-Zunstable-options", "x"],
            &["t", "--exact", "invoices/a"],
            &["t", "--exact", "--", "-rf"],
            &["t", "-rf"],
        ] {
            assert_eq!(after_exact(args), args, "{args:?}");
        }
        let parsed = Arguments::from_iter(name_after_exact(
            ["t", "--exact", "-rf", "--test-threads", "2"]
                .map(OsString::from)
                .to_vec(),
        ));
        assert_eq!(
            (parsed.filter.as_deref(), parsed.exact, parsed.test_threads),
            (Some("-rf"), true, Some(2))
        );
    }
}
