//! What the tests of one process share: each case scored once (its command run once), baselines
//! read once, and what the run keeps as tests finish: the numbers of each test in memory, its
//! record on disk (when a report is asked for), the entries to bless.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::baseline_file::{self, BaselineFileError};
use super::env::{Env, JudgeMode, Update};
use super::errors::{CallSkips, NothingScored, RecordNotKept, SessionError};
use super::journal::Journal;
use super::judge::{self, JudgeError, Recorded, Verdicts};
use super::outputs::{aggregate_line, case_line};
use super::predict::{Commands, predict};
use crate::base::lock::lock_for;
use crate::base::name::Name;
use crate::base::shell::shell_quote;
use crate::evaluate::aggregate_result::AggregateRecord;
use crate::evaluate::baseline::{self, Baseline, Entry, EntryName, Standing};
use crate::evaluate::judge::{JudgeFailed, JudgeVerdict, Judgments, Question};
use crate::evaluate::outcome::Outcome;
use crate::evaluate::record::{
    CaseNumbers, Cause, Compared, ErrorKind, Located, Record, Status, slices_of,
};
use crate::evaluate::repeat::{Attempt, Attempts, Repeated};
use crate::evaluate::{evaluate, evaluate_judged};
use crate::load::Problem;
use crate::model::case::{Case, PredictionSource};
use crate::model::prediction::{CallSource, CallTally};
use crate::model::prediction::{Prediction, Unscored, Usage};
use crate::model::suite::{BaselineSpec, FailOn, Judge};
use crate::record::{aggregate_record, test_record};
use crate::render::{describe, failure_message, field_blocks};

/// A baseline file as read: its content, `None` when missing, or why it could not be read.
/// Shared: every case test of a suite reads it, and a copy per test would cost the whole map.
type BaselineRead = Result<Option<Arc<Baseline>>, Arc<BaselineFileError>>;

/// A case test in this process: being scored (or scored), or finished with its numbers kept.
enum Slot {
    Scoring(Arc<OnceLock<Arc<Scored>>>),
    /// At this index of the kept numbers.
    Finished(usize),
}

/// One attempt of a case: its prediction and outcome, or why it could not be scored.
type Attempted = Result<(Prediction, Outcome), Box<Unscored>>;

/// A case test's result, computed once per process.
#[derive(Debug)]
pub(crate) struct Scored {
    /// The test's verdict, baseline included.
    pub(crate) passed: bool,
    /// What aggregates need.
    pub(crate) numbers: CaseNumbers,
    /// The rest, until the case's own test takes it (an aggregate needs only the numbers).
    full: Mutex<Option<Box<Full>>>,
}

/// What only the case's own test needs.
#[derive(Debug, Default)]
pub(crate) struct Full {
    pub(crate) message: Option<String>,
    pub(crate) error: Option<Cause>,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) model: Option<String>,
    pub(crate) usage: Option<Usage>,
    pub(crate) usage_mismatch: Option<crate::model::prediction::UsageMismatch>,
    pub(crate) baseline: Compared,
    /// A prediction that could not be read or produced, located.
    pub(crate) problems: Vec<Located>,
    /// Every attempt of a repeated case.
    pub(crate) repeated: Option<Repeated>,
}

impl Scored {
    /// Takes what the case's own test needs; `None` once taken.
    pub(crate) fn take(&self) -> Option<Full> {
        lock(&self.full).take().map(|full| *full)
    }
}

/// A baseline entry this run writes with `GOLDGATE_UPDATE=always`.
#[derive(Debug, Clone)]
pub(crate) struct Blessed {
    /// The entry's name in the baseline (`acme-173::guided`), and its former one.
    pub(crate) key: EntryName,
    /// The metrics.
    pub(crate) entry: Entry,
    /// Whether its test passed (a failed test's numbers are written too, and counted apart).
    pub(crate) passed: bool,
}

/// What a process keeps of its tests as they finish.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// The numbers of every case test.
    pub(crate) numbers: Vec<CaseNumbers>,
    /// Case records as JSON lines, when a report is written (on disk, not in memory).
    spool: Option<std::fs::File>,
    /// Why a record could not be kept (a full disk): the report would miss it.
    spool_error: Option<Arc<RecordNotKept>>,
    /// Aggregate tests.
    pub(crate) aggregates: Vec<AggregateRecord>,
    /// Baseline entries to write, by baseline file.
    pub(crate) blessings: BTreeMap<PathBuf, Vec<Blessed>>,
    /// The records of the tests `goldgate review` acts on, in a run in one process: written
    /// as they come, put in place when the run ends.
    reviewable: ForReview,
    /// On a full run: every entry name each baseline should hold, by file.
    pub(crate) expected_entries: BTreeMap<PathBuf, ExpectedEntries>,
    /// The cases folder of a run in one process, whose project keeps the records for review,
    /// and whether the run was filtered (it then updates those records instead of replacing
    /// them).
    pub(crate) review_of: Option<(PathBuf, bool)>,
    /// The case tests of each suite folder and pipeline, and those a call error left out
    /// (`run.call_errors: skip`): a group that had nothing else scored nothing.
    call_skips: CallSkips,
}

/// The records a run in one process keeps for `goldgate review`.
#[derive(Debug, Default)]
enum ForReview {
    /// No record yet.
    #[default]
    NotStarted,
    /// Being written to a file of this process, put in place when the run ends.
    Writing(std::io::BufWriter<std::fs::File>),
    /// A record could not be kept: the run leaves none.
    Failed,
}

/// The entries a full run expects of one baseline file: the others are of vanished cases.
#[derive(Debug, Default)]
pub(crate) struct ExpectedEntries {
    /// The part of the file this run covers: the name prefix of the run's folder below the
    /// suite's (empty: all of it).
    pub(crate) scope: String,
    /// The folder of the suite that declares the baseline, which entry names are relative to.
    pub(crate) suite_dir: PathBuf,
    /// The entries the run's loaded tests write.
    pub(crate) names: HashSet<String>,
    /// The names of tests that exist but could not be loaded (two files of one name, a folder
    /// that cannot be read, a broken suite): the run cannot tell their entries, or their
    /// pipelines', so it keeps each entry of such a name, `NAME::…` and `NAME/…` too.
    pub(crate) unseen: HashSet<String>,
}

impl ExpectedEntries {
    /// Whether a test of the run has the entry `name`, or may have it.
    pub(crate) fn holds(&self, name: &str) -> bool {
        if self.names.contains(name) {
            return true;
        }
        // The entry `a/b::p` is of the test `a/b`, of its pipeline `p`; `a/b/c` of the folder `a/b`.
        let mut stem = name;
        loop {
            if self.unseen.contains(stem) {
                return true;
            }
            match stem.rfind(['/', ':']) {
                Some(at) => stem = stem[..at].trim_end_matches(':'),
                None => return false,
            }
        }
    }
}

impl Kept {
    /// Counts a finished case test in its suite folder and pipeline (see [`CallSkips`]).
    fn count_call_skip(&mut self, record: &Record) {
        let call_error = record.error.as_ref().filter(|e| e.kind == ErrorKind::Call);
        self.call_skips.count(
            (&record.suite, record.pipeline.as_deref()),
            &record.id,
            record.status,
            call_error.map(|e| e.message.as_str()),
        );
    }

    /// A suite folder and pipeline whose every case test a call error left out (`run.call_errors:
    /// skip`): the run checked nothing of it, which must not pass.
    pub(crate) fn nothing_scored(&self) -> Result<(), NothingScored> {
        self.call_skips.nothing_scored()
    }

    /// Why a record could not be kept, if one could not.
    pub(crate) fn take_error(&self) -> Result<(), Arc<RecordNotKept>> {
        match &self.spool_error {
            Some(why) => Err(Arc::clone(why)),
            None => Ok(()),
        }
    }

    /// Keeps a record line for `goldgate review`; a folder that cannot take it leaves the run
    /// without one (review then says how to get records), not the run failed.
    fn keep_for_review(&mut self, line: &[u8]) {
        if let ForReview::NotStarted = self.reviewable {
            self.reviewable = match tempfile::tempfile() {
                Ok(file) => ForReview::Writing(std::io::BufWriter::new(file)),
                Err(_) => ForReview::Failed,
            };
        }
        if let ForReview::Writing(file) = &mut self.reviewable
            && file.write_all(line).is_err()
        {
            // Never begun again: records that lack the ones before would be put in place.
            self.reviewable = ForReview::Failed;
        }
    }

    /// Puts the records for `goldgate review` of the project of `cases` in place. A full run's
    /// replace the last ones (a run with none leaves none, so that review does not read an
    /// older run's); a `filtered` run's (review's own reruns among them) replace those of the
    /// tests it ran and keep the others, so that the queue lives as long as its items. Under the
    /// records' lock: two runs of a project at once each keep what the other wrote. A full run
    /// whose records could not all be kept leaves none; a filtered one leaves the last ones.
    pub(crate) fn finish_review_records(&mut self) {
        let Some((cases, filtered)) = self.review_of.clone() else {
            return;
        };
        let project = match crate::base::state::Project::of(&cases) {
            Ok(project) => project,
            Err(e) => return not_kept_for_review(&e),
        };
        let last = super::journal::Journal::of_the_last_run_in_one_process(&project);
        let _held = match last.hold() {
            Ok(held) => held,
            Err(e) => return not_kept_for_review(&e),
        };
        let own = match std::mem::replace(&mut self.reviewable, ForReview::Failed) {
            ForReview::Writing(file) => file.into_inner().map(Some).map_err(|e| e.into_error()),
            ForReview::NotStarted => Ok(None),
            ForReview::Failed => Err(std::io::Error::other("records not kept")),
        };
        let ran: HashSet<&str> = self
            .numbers
            .iter()
            .map(|n| n.id.as_str())
            .chain(self.aggregates.iter().map(|a| a.id.as_str()))
            .collect();
        let aggregates: String = self
            .aggregates
            .iter()
            .map(aggregate_record)
            .filter(|a| !a.passed)
            .map(|a| aggregate_line(&a))
            .collect();
        let done = own.and_then(|own| {
            let mut next = last.begin()?;
            if filtered && let Some((before, _)) = super::journal::Journal::to_review(&project)? {
                before.copy_records(&mut next, |test| !ran.contains(test))?;
            }
            if let Some(mut own) = own {
                use std::io::{Seek, SeekFrom};
                own.seek(SeekFrom::Start(0))?;
                next.copy_from(&mut own)?;
            }
            next.write(aggregates.as_bytes())?;
            next.finish()
        });
        if let Err(e) = &done {
            not_kept_for_review(e);
            if !filtered {
                last.forget();
            }
        }
    }

    /// The file of case records kept for the report (as lines), or why one is missing.
    pub(crate) fn take_records(&mut self) -> std::io::Result<Option<std::fs::File>> {
        if let Some(why) = &self.spool_error {
            return Err(std::io::Error::other(Arc::clone(why)));
        }
        Ok(self.spool.take())
    }
}

/// Says, on standard error, that a run kept no records for `goldgate review` and `goldgate report
/// --last`, and why: a state folder goldgate refuses (another user's, open to others) once left
/// those commands finding nothing with no word of the reason. The run's verdict stands.
fn not_kept_for_review(why: &std::io::Error) {
    eprintln!(
        "warning: goldgate kept no records of this run for `goldgate review` and `goldgate report --last`: {}",
        crate::render::inert(&why.to_string())
    );
}

/// A test against its baseline entry.
#[derive(Debug, Default)]
struct Against {
    passed: bool,
    message: Option<String>,
    error: Option<Cause>,
    problems: Vec<Located>,
    compared: Compared,
}

impl Against {
    /// Nothing against it (yet).
    fn passing() -> Against {
        Against {
            passed: true,
            ..Against::default()
        }
    }

    fn add(&mut self, more: String) {
        self.message = Some(join(self.message.take(), &more));
    }
}

/// How live commands show their progress on standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress {
    /// Not at all: standard error is not a terminal, nextest runs the test, or output is JSON.
    None,
    /// A bar that redraws itself, when standard output is not the terminal too (libtest's lines
    /// would be glued to it).
    Bar,
    /// One line at the end, when libtest's own lines show the tests going by.
    Line,
}

/// The state of a run in this process.
pub(crate) struct Session {
    /// Whether baselines are being rewritten.
    pub(crate) update: Update,
    /// What fails the run, over each suite's `fail_on` (`--fail-on`, `GOLDGATE_FAIL_ON`).
    fail_on: Option<FailOn>,
    /// Whether judges are asked.
    judge_mode: JudgeMode,
    /// The verdict files read so far, by path.
    verdicts: Mutex<HashMap<PathBuf, Arc<Mutex<VerdictStore>>>>,
    /// How to run one test again, for the commands in messages (`goldgate test cases`).
    pub(crate) invocation: String,
    /// Strip colour from messages (JSON output prints them verbatim).
    pub(crate) plain: bool,
    /// Test threads, for scoring an aggregate's cases in parallel.
    pub(crate) threads: usize,
    commands: Commands,
    /// The run's journal, when the run spans processes: each test appends its record there.
    journal: Option<Journal>,
    /// Each case test scored or being scored in this process, by name.
    scored: Mutex<HashMap<String, Slot>>,
    /// Whether records are kept for the run's files (then numbers keep every field's too).
    keeps_records: bool,
    baselines: Mutex<HashMap<PathBuf, Arc<OnceLock<BaselineRead>>>>,
    /// Case tests this process runs: an aggregate leaves their full results for them.
    own: Mutex<HashSet<String>>,
    /// Whether the run has aggregate tests: then a finished case test's numbers stay findable by
    /// its name, and the case tests of this process are noted.
    aggregates: std::sync::atomic::AtomicBool,
    kept: Mutex<Kept>,
    /// How this process shows the progress of its live commands.
    progress_shown: Progress,
    /// Live commands done out of those expected, on standard error.
    progress: OnceLock<indicatif::ProgressBar>,
}

impl Session {
    /// A run's state; `run_id` names a run that spans processes; `report`: whether records are
    /// kept for a report.
    pub(crate) fn new(
        env: &Env,
        invocation: String,
        plain: bool,
        threads: usize,
        report: bool,
        progress_shown: Progress,
        journal: Option<Journal>,
    ) -> Result<Arc<Session>, SessionError> {
        let spool = if report {
            Some(tempfile::tempfile().map_err(SessionError::NoSpool)?)
        } else {
            None
        };
        let keeps_records = report || journal.is_some();
        Ok(Arc::new(Session {
            update: env.update,
            fail_on: env.fail_on,
            judge_mode: env.judge,
            verdicts: Mutex::default(),
            invocation,
            plain,
            threads,
            commands: Commands::for_run(journal.as_ref(), env.cache)
                .map_err(SessionError::SharedOutputs)?,
            journal,
            scored: Mutex::default(),
            keeps_records,
            baselines: Mutex::default(),
            own: Mutex::default(),
            aggregates: std::sync::atomic::AtomicBool::new(false),
            kept: Mutex::new(Kept {
                spool,
                ..Kept::default()
            }),
            progress_shown,
            progress: OnceLock::new(),
        }))
    }

    /// Shows the progress of `total` live commands, when the process may show it.
    pub(crate) fn expect_commands(&self, total: usize) {
        if total == 0 || self.progress_shown == Progress::None {
            return;
        }
        let bar = indicatif::ProgressBar::new(total as u64);
        if self.progress_shown == Progress::Line {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "run commands {pos}/{len} [{elapsed}] {per_sec} {wide_bar}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let _ = self.progress.set(bar);
    }

    /// Clears the progress bar at the end of the run.
    pub(crate) fn end_progress(&self) {
        let Some(bar) = self.progress.get() else {
            return;
        };
        bar.finish_and_clear();
        if self.progress_shown == Progress::Line {
            let seconds = bar.elapsed().as_secs_f64();
            eprintln!(
                "run commands {}/{} [{seconds:.1} s] {:.2}/s",
                bar.position(),
                bar.length().unwrap_or_default(),
                bar.position() as f64 / seconds.max(1e-9)
            );
        }
    }

    /// Whether records are kept for the run's files (a report, JUnit, HTML, annotations).
    pub(crate) fn keeps_records(&self) -> bool {
        self.keeps_records
    }

    /// Notes that the run has aggregate tests, before its case tests are made.
    pub(crate) fn expect_aggregates(&self) {
        self.aggregates
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn has_aggregates(&self) -> bool {
        self.aggregates.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Notes that this process runs the case test `id` (what only aggregates ask).
    pub(crate) fn runs_case(&self, id: &str) {
        if self.has_aggregates() {
            lock(&self.own).insert(id.to_owned());
        }
    }

    /// Makes room for the numbers of `tests` case tests at once (a run of 100,000 would
    /// otherwise copy them as the list doubles).
    pub(crate) fn expect_cases(&self, tests: usize) {
        lock(&self.kept).numbers.reserve_exact(tests);
    }

    /// What the run kept, for its end.
    pub(crate) fn kept(&self) -> MutexGuard<'_, Kept> {
        lock(&self.kept)
    }

    /// The command that accepts this run's numbers for one test.
    pub(crate) fn accept_command(&self, test: &str) -> String {
        format!(
            "GOLDGATE_UPDATE=always {} --exact {}",
            self.invocation,
            shell_quote(test)
        )
    }

    /// The command that accepts this run's values as the baseline for the tests of `pipeline`
    /// (named exactly: `--pipeline NAME`) whose names start with `folder`.
    pub(crate) fn accept_filter(&self, pipeline: Option<&str>, folder: Option<&str>) -> String {
        let mut command = format!("GOLDGATE_UPDATE=always {}", self.invocation);
        if let Some(name) = pipeline {
            command.push_str(&format!(" --pipeline {}", shell_quote(name)));
        }
        if let Some(folder) = folder {
            command.push(' ');
            command.push_str(&shell_quote(folder));
        }
        command
    }

    /// Whether this run writes its baselines (`GOLDGATE_UPDATE=always`).
    pub(crate) fn blesses(&self) -> bool {
        self.update == Update::Always
    }

    /// A baseline file, read once per process.
    pub(crate) fn baseline(&self, file: &std::path::Path) -> BaselineRead {
        let cell = Arc::clone(lock(&self.baselines).entry(file.to_path_buf()).or_default());
        cell.get_or_init(|| {
            baseline_file::read(file)
                .map(|b| b.map(Arc::new))
                .map_err(Arc::new)
        })
        .clone()
    }

    /// The command that records the verdicts a test lacks.
    fn record_command(&self, test: &str) -> String {
        format!(
            "GOLDGATE_JUDGE=record {} --exact {}",
            self.invocation,
            shell_quote(test)
        )
    }

    /// Evaluates a case; its `judge:` checks get their verdicts from the verdict file, and, when
    /// the run records or refreshes them, from the judge (each distinct question asked once).
    fn evaluate(&self, case: &Case, prediction: &Prediction) -> Outcome {
        let Some(judge) = &case.judge else {
            return evaluate(case, prediction);
        };
        let store = Arc::clone(
            lock(&self.verdicts)
                .entry(judge.verdicts.clone())
                .or_insert_with(|| {
                    Arc::new(Mutex::new(VerdictStore {
                        read: judge::read(&judge.verdicts).map_err(Arc::new),
                        ..VerdictStore::default()
                    }))
                }),
        );
        let mode = self.judge_mode;
        let record_command = self.record_command(&case.id);
        let lookup = |key: &str| lock(&store).lookup(key, mode);
        let judged = |lookup: &dyn Fn(&str) -> Option<Result<JudgeVerdict, JudgeFailed>>| {
            let judgments = Judgments {
                command: Some(&judge.command),
                case: &case.id,
                lookup,
                record_command: &record_command,
                missing: Default::default(),
            };
            let outcome = evaluate_judged(case, prediction, &judgments);
            (outcome, judgments.missing.take())
        };
        let (outcome, missing) = judged(&lookup);
        if mode == JudgeMode::Replay || missing.is_empty() {
            return outcome;
        }
        self.ask(judge, &store, missing);
        judged(&lookup).0
    }

    /// Asks the judge the questions whose verdicts are missing, under the verdict file's lock
    /// (another process of the run may have recorded one meanwhile), and records the answers.
    ///
    /// The file's lock is held from the read to the write, so that no other process of the run
    /// asks the same question meanwhile: judges are asked one at a time, run-wide (a run records
    /// once; replay, its every other run, asks nothing).
    fn ask(&self, judge: &Judge, store: &Mutex<VerdictStore>, missing: Vec<Question>) {
        let mode = self.judge_mode;
        let mut store = lock(store);
        let _file = match lock_for(&judge.verdicts) {
            Ok(held) => held,
            Err(source) => {
                let why = Arc::new(JudgeError::NotLocked {
                    path: judge.verdicts.clone(),
                    source,
                });
                for question in missing {
                    store.failed.insert(question.key, Arc::clone(&why));
                }
                return;
            }
        };
        if let Ok(now) = judge::read(&judge.verdicts)
            && let Ok(known) = &mut store.read
        {
            for (key, r) in now {
                known.entry(key).or_insert(r);
            }
        }
        let mut recorded = Vec::new();
        for question in missing {
            if store.lookup(&question.key, mode).is_some() {
                continue;
            }
            match judge::ask(judge, &question) {
                Ok(verdict) => {
                    let r = Recorded { question, verdict };
                    store.refreshed.insert(r.question.key.clone());
                    if let Ok(known) = &mut store.read {
                        known.insert(r.question.key.clone(), r.clone());
                    }
                    recorded.push(r);
                }
                Err(e) => {
                    store.failed.insert(question.key, Arc::new(e));
                }
            }
        }
        if !recorded.is_empty()
            && let Err(e) = judge::merge_held(&judge.verdicts, &recorded)
        {
            let e = Arc::new(e);
            for r in &recorded {
                store.failed.insert(r.question.key.clone(), Arc::clone(&e));
            }
        }
    }

    /// Scores a case once in this process, whichever test asks first.
    pub(crate) fn score(&self, case: &Case) -> Arc<Scored> {
        Arc::clone(
            self.cell(&case.id)
                .get_or_init(|| Arc::new(self.score_now(case))),
        )
    }

    /// The cell a case test is scored in (a new one if its test has finished: it is not asked).
    fn cell(&self, id: &str) -> Arc<OnceLock<Arc<Scored>>> {
        let mut scored = lock(&self.scored);
        let slot = scored
            .entry(id.to_owned())
            .or_insert_with(|| Slot::Scoring(Arc::default()));
        match slot {
            Slot::Scoring(cell) => Arc::clone(cell),
            Slot::Finished(_) => Arc::default(),
        }
    }

    /// The numbers of a case test this process has scored, if it has.
    fn scored_numbers(&self, id: &str) -> Option<CaseNumbers> {
        let slot = match lock(&self.scored).get(id)? {
            Slot::Finished(at) => Err(*at),
            Slot::Scoring(cell) => Ok(Arc::clone(cell)),
        };
        match slot {
            Err(at) => lock(&self.kept).numbers.get(at).cloned(),
            Ok(cell) => cell.get().map(|s| s.numbers.clone()),
        }
    }

    /// A case's numbers for an aggregate: scored now unless a test has scored it (its full
    /// result then dropped at once unless its own test runs in this process).
    pub(crate) fn numbers_for_aggregate(&self, case: &Case) -> CaseNumbers {
        if let Some(numbers) = self.scored_numbers(&case.id) {
            return numbers;
        }
        let scored = self.score(case);
        if !lock(&self.own).contains(&case.id) {
            scored.take();
        }
        scored.numbers.clone()
    }

    /// A case's numbers for an aggregate, the case loaded only when no test of this process
    /// scored it yet. `None` for a skipped case.
    pub(crate) fn numbers_for_aggregate_later(
        &self,
        id: &str,
        load: impl FnOnce() -> Result<Case, Problem>,
    ) -> Result<Option<CaseNumbers>, Problem> {
        if let Some(numbers) = self.scored_numbers(id) {
            return Ok(Some(numbers));
        }
        let case = load()?;
        if case.skip.is_some() {
            return Ok(None);
        }
        Ok(Some(self.numbers_for_aggregate(&case)))
    }

    /// One attempt's prediction (the only one, unless the suite runs the case `repeat` times).
    fn predicted(&self, case: &Case, attempt: u32) -> Result<Prediction, Box<Unscored>> {
        let predicted = predict(&case.prediction, &case.file, &self.commands, attempt);
        // A profile that compares typed values reads the document's own JSON, and scores a
        // failed call as its benchmark does.
        let docubench = case.profile == crate::model::case::Profile::DocuBench;
        let predicted = if docubench {
            crate::load::prediction::as_docubench(&case.prediction, predicted)
        } else {
            predicted
        };
        // A call its pipeline says failed is a failure of the case, not an empty prediction;
        // under `docubench` it is scored too, and fails when its outcome is made.
        match predicted {
            Err(e) => Err(Box::new(Unscored::Unreadable(Box::new(e)))),
            Ok(mut p) => match p.failed.take() {
                Some(call) if !(docubench && p.document.is_some()) => {
                    Err(Box::new(Unscored::FailedCall(call)))
                }
                failed => {
                    p.failed = failed;
                    Ok(p)
                }
            },
        }
    }

    /// Every attempt of a case, scored: one, or `repeat` of them (at once when its suite runs
    /// calls at once).
    fn attempts(&self, case: &Case) -> Vec<Attempted> {
        let (repeat, at_once) = match &case.prediction {
            PredictionSource::Run { repeat, policy, .. } => {
                (*repeat, policy.concurrency.is_some_and(|n| n > 1))
            }
            _ => (1, false),
        };
        let attempt = |attempt: u32| {
            self.predicted(case, attempt).map(|p| {
                let mut outcome = self.evaluate(case, &p);
                // A failed call scored as its benchmark scores it still fails.
                outcome.passed &= p.failed.is_none();
                (p, outcome)
            })
        };
        if !(at_once && repeat > 1) {
            return (0..repeat.max(1)).map(attempt).collect();
        }
        std::thread::scope(|s| {
            // The stack of the test threads: a prediction may be read 1,000 levels deep.
            let running: Vec<_> = (0..repeat)
                .map(|n| {
                    std::thread::Builder::new()
                        .stack_size(super::ahead::WORKER_STACK)
                        .spawn_scoped(s, move || attempt(n))
                        .map_err(|_| n)
                })
                .collect();
            running
                .into_iter()
                .map(|r| match r {
                    Ok(thread) => thread
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p)),
                    // No thread to be had: this attempt runs here, after the others.
                    Err(n) => attempt(n),
                })
                .collect()
        })
    }

    fn score_now(&self, case: &Case) -> Scored {
        let mut attempts = self.attempts(case);
        if let (PredictionSource::Run { .. }, Some(bar)) = (&case.prediction, self.progress.get()) {
            bar.inc(1);
        }
        let calls = match &case.prediction {
            PredictionSource::Run { policy, .. } => Some(call_tally(&attempts, policy.max_retries)),
            _ => None,
        };
        let with_calls = |mut scored: Scored| {
            scored.numbers.calls = calls.map(Box::new);
            scored
        };
        if attempts.len() == 1 {
            let only = attempts.remove(0);
            return with_calls(self.scored(case, only, None));
        }
        let repeated = Repeated {
            pass: case.pass,
            attempts: attempts
                .iter()
                .map(|a| match a {
                    Ok((_, outcome)) => Attempt {
                        passed: outcome.passed,
                        outcome: Some(outcome.clone()),
                        error: None,
                    },
                    Err(why) => Attempt {
                        passed: false,
                        outcome: None,
                        error: Some(crate::render::prediction::unscored(why)),
                    },
                })
                .collect(),
        };
        // Every attempt was paid for: the case costs their sum (each keeps its own figure in
        // the attempts of its record).
        let spent = attempts
            .iter()
            .filter_map(|a| a.as_ref().ok()?.1.metrics.cost_usd)
            .reduce(|a, b| a + b);
        let shown = repeated.shown();
        let mut attempt = attempts.swap_remove(shown);
        if let Ok((_, outcome)) = &mut attempt {
            outcome.metrics.cost_usd = spent;
        }
        with_calls(self.scored(case, attempt, Some(repeated)))
    }

    /// A case's result from the attempt it shows, and every attempt when it was repeated: the
    /// verdict is then the suite's `pass` rule over them.
    fn scored(
        &self,
        case: &Case,
        attempt: Result<(Prediction, Outcome), Box<Unscored>>,
        repeated: Option<Repeated>,
    ) -> Scored {
        let attempts = repeated.as_ref().map(Repeated::numbers);
        // The attempts' line leads the message of a repeated case.
        let attempts_line = attempts
            .as_ref()
            .map(|a| crate::render::attempts_line(a, repeated.as_ref().map_or(0, Repeated::shown)));
        let (prediction, outcome) = match attempt {
            Ok(scored) => scored,
            Err(why) => {
                let scored = unscored(case, &why, attempts, attempts_line, repeated);
                return self.unscored_against_baseline(case, scored);
            }
        };
        let passed = attempts.as_ref().map_or(outcome.passed, Attempts::holds);
        // (A known failure keeps its message too: its record shows why it fails.)
        let message = (!passed).then(|| {
            let message = match &prediction.failed {
                Some(call) => crate::render::prediction::failed_call_scored(
                    call,
                    outcome.metrics.anls.unwrap_or(0.0),
                ),
                None => failure_message(case, &outcome),
            };
            match &attempts_line {
                Some(line) => format!("{line}\n{message}"),
                None => message,
            }
        });
        let against = self.against(case, &outcome, passed);
        let known = matches!(against.compared.standing, Some(Standing::KnownFailure));
        // A known failure fails nothing, and has not passed.
        let passed = known || passed && against.passed;
        let message = match (message, against.message) {
            (m, None) => m,
            (m, Some(more)) => Some(join(m, &more)),
        };
        let (mut error, mut problems, compared) =
            (against.error, against.problems, against.compared);
        if let Some(call) = &prediction.failed {
            failed_call_scored(call, &mut error, &mut problems);
        }
        let status = if known {
            Status::KnownFailure
        } else if passed {
            Status::Passed
        } else {
            Status::Failed
        };
        Scored {
            passed,
            numbers: case_numbers(case, status, Some(&outcome), attempts),
            full: Mutex::new(Some(Box::new(Full {
                message,
                repeated,
                error,
                outcome: Some(outcome),
                model: prediction.model,
                usage: prediction.usage,
                usage_mismatch: prediction.usage_mismatch,
                baseline: compared,
                problems,
            }))),
        }
    }

    /// A test of a suite gated on a significant drop (no `tolerance`): not compared with its
    /// entry on its own (its aggregate test is), but known to have a baseline to bless, and new
    /// when the baseline has no entry for it yet. A missing or unreadable baseline is said by the
    /// gate.
    fn in_baseline(&self, case: &Case, spec: &BaselineSpec) -> Against {
        let mut against = Against::passing();
        against.compared.file = Some(spec.file.clone());
        if let Ok(Some(base)) = self.baseline(&spec.file) {
            against.compared.new = base.entry(&EntryName::of_case(spec, case)).is_none();
        }
        against
    }

    /// How a scored case (`passed` by its own rules) stands against its baseline, as its suite
    /// and the run say it is judged: held to its entry (`fail_on: regressions`), blessed, gated
    /// on a significant drop by its aggregate, or compared within its tolerance; with what moved
    /// against its entry.
    fn against(&self, case: &Case, outcome: &Outcome, passed: bool) -> Against {
        let spec = match (&case.baseline, self.update) {
            (Some(spec), Update::Always) if self.judged_relative(spec) => {
                return self.blessed_relative(spec, passed);
            }
            (None, Update::No) if self.fail_on == Some(FailOn::Regressions) => {
                return self.no_baseline_to_hold_to();
            }
            (Some(spec), Update::No) => spec,
            _ => return Against::passing(),
        };
        // The entry this run would write, made once for every comparison with the one it has.
        let now = baseline::entry_of(outcome, passed);
        let mut against = if self.holds_to_entries(spec) {
            self.relative_to_baseline(case, spec, outcome, &now)
        } else if spec.per_case {
            self.against_baseline(case, spec, outcome, &now)
        } else {
            // Gated on a significant drop instead, in the aggregate tests.
            self.in_baseline(case, spec)
        };
        against.compared.moved = self.moved(case, spec, &now);
        against
    }

    /// What moved between a scored test's entry and its outcome, however little: the metric it
    /// is held to, then its fields' EM and ANLS (nothing without an entry).
    fn moved(&self, case: &Case, spec: &BaselineSpec, now: &Entry) -> Vec<baseline::Change> {
        let Ok(Some(base)) = self.baseline(&spec.file) else {
            return Vec::new();
        };
        let Some(old) = base.entry(&EntryName::of_case(spec, case)) else {
            return Vec::new();
        };
        baseline::moved(old, now, baseline::gated_metric(spec.gated, old))
    }

    /// What fails the run for a test of `spec`: `--fail-on` (or `GOLDGATE_FAIL_ON`), else its
    /// suite's `fail_on`.
    fn fails_on(&self, spec: &BaselineSpec) -> FailOn {
        self.fail_on.unwrap_or(spec.fail_on)
    }

    /// Whether the tests of `spec` are held to their entries: `fail_on: regressions`, in a run
    /// that does not bless them.
    pub(crate) fn holds_to_entries(&self, spec: &BaselineSpec) -> bool {
        self.update == Update::No && self.fails_on(spec) == FailOn::Regressions
    }

    /// Whether the tests of `spec` are judged against their entries, held to them or blessed
    /// under `fail_on: regressions`: a blessing run writes each test's verdict, so a test that
    /// fails is a known failure of the entry it writes, as the next run will call it.
    pub(crate) fn judged_relative(&self, spec: &BaselineSpec) -> bool {
        self.fails_on(spec) == FailOn::Regressions
    }

    /// A test blessed under `fail_on: regressions`: a known failure of the entry it writes when
    /// it fails.
    fn blessed_relative(&self, spec: &BaselineSpec, passed: bool) -> Against {
        let mut against = Against::passing();
        against.compared.file = Some(spec.file.clone());
        against.compared.relative = true;
        against.compared.standing = (!passed).then_some(Standing::KnownFailure);
        against
    }

    /// Under `fail_on: regressions`, how a scored test whose entry this run would write is
    /// `now` stands against the entry it has: worse fails it, the same failure is a known one.
    /// A test without an entry, or whose entry keeps no verdict (written before verdicts were),
    /// is compared as under `fail_on: failures`.
    fn relative_to_baseline(
        &self,
        case: &Case,
        spec: &BaselineSpec,
        outcome: &Outcome,
        now: &Entry,
    ) -> Against {
        let as_before = || {
            let mut against = if spec.per_case {
                self.against_baseline(case, spec, outcome, now)
            } else {
                self.in_baseline(case, spec)
            };
            against.compared.relative = true;
            against
        };
        let base = match self.baseline(&spec.file) {
            Ok(Some(base)) => base,
            // A baseline that is missing or does not read fails the test, and says so.
            _ => return as_before(),
        };
        let Some(old) = base.entry(&EntryName::of_case(spec, case)) else {
            return as_before();
        };
        let gated = baseline::gated_metric(spec.gated, old);
        let Some(standing) = baseline::stand(old, now, gated, spec.tolerance) else {
            if old.verdict.is_none() {
                return as_before();
            }
            return self.improved(spec, old, now);
        };
        let mut against = self.improved(spec, old, now);
        let mut standing = standing;
        if let Standing::Fixed { bless } = &mut standing {
            *bless = self.accept_command(&case.id);
        }
        if let Standing::Regressed { worse } = &standing {
            against.passed = false;
            // The metrics that dropped beyond the tolerance, in the record as under `failures`;
            // a test that passes its own rules has no failure message to show its fields, so
            // the fields that dropped follow, each with its gold, prediction and diff.
            let dropped = baseline::compare(old, now, spec.tolerance).0;
            let passes = now.verdict.as_ref().is_some_and(|v| v.passed);
            let fields = if passes && !dropped.is_empty() {
                let fields = field_blocks(case, outcome, &baseline::fields_among(&dropped));
                format!("\n{fields}")
            } else {
                String::new()
            };
            against.add(format!(
                "regression against the baseline `{}` (fail_on: regressions): {}{fields}\naccept the new numbers with: {}",
                spec.file.display(),
                crate::render::worse(worse),
                self.accept_command(&case.id)
            ));
            against.compared.regressions = dropped;
        }
        against.compared.standing = Some(standing);
        against
    }

    /// `--fail-on regressions` (or `GOLDGATE_FAIL_ON`) for a case whose suites declare no
    /// baseline: it has no entry to be held to, and a run held to nothing would pass having
    /// compared nothing. Its test fails, saying so.
    fn no_baseline_to_hold_to(&self) -> Against {
        let why = "`--fail-on regressions` holds each test to its baseline entry, and no suite of this case declares a `baseline:`; declare one (`baseline: baseline.json` in its suite.yaml, created with GOLDGATE_UPDATE=always) or run it with `--fail-on failures`";
        Against {
            passed: false,
            message: Some(format!("error: {why}")),
            error: Some(Cause::new(ErrorKind::Baseline, why)),
            ..Against::default()
        }
    }

    /// Whether the test named `name` has an entry in `spec`'s baseline (`None`: the baseline is
    /// missing or does not read).
    pub(crate) fn has_entry(&self, spec: &BaselineSpec, name: &EntryName) -> Option<bool> {
        let base = self.baseline(&spec.file).ok()??;
        Some(base.entry(name).is_some())
    }

    /// Under `fail_on: regressions` (and not blessing), how a test that could not be scored
    /// (`kind`: it did not load, its prediction could not be read) stands against its entry
    /// `name` in `spec`'s baseline, with what its message adds when it regressed. `None` when it
    /// is judged by its own rules: no entry, an entry without a verdict, no baseline to read.
    pub(crate) fn unscored_standing(
        &self,
        spec: &BaselineSpec,
        name: &EntryName,
        kind: ErrorKind,
        test: &str,
    ) -> Option<(Standing, Option<String>)> {
        if !self.judged_relative(spec) {
            return None;
        }
        if self.update == Update::Always {
            return Some((Standing::KnownFailure, None));
        }
        let base = self.baseline(&spec.file).ok()??;
        let old = base.entry(name)?;
        let now = baseline::unscored_entry(kind.name());
        let gated = baseline::gated_metric(spec.gated, old);
        let standing = baseline::stand(old, &now, gated, spec.tolerance)?;
        let more = match &standing {
            Standing::Regressed { worse } => Some(format!(
                "regression against the baseline `{}` (fail_on: regressions): {}\naccept the new numbers with: {}",
                spec.file.display(),
                crate::render::worse(worse),
                self.accept_command(test)
            )),
            _ => None,
        };
        Some((standing, more))
    }

    /// A case that could not be scored, as [`unscored`] makes it, stood against its entry
    /// under `fail_on: regressions`: a known failure while its entry says it failed alike.
    fn unscored_against_baseline(&self, case: &Case, mut scored: Scored) -> Scored {
        let Some(spec) = &case.baseline else {
            return scored;
        };
        let status = scored.numbers.status;
        let holds = self.judged_relative(spec);
        let full = scored.full.get_mut().unwrap_or_else(|e| e.into_inner());
        let known = full.as_deref_mut().and_then(|full| {
            if holds {
                full.baseline.file = Some(spec.file.clone());
                full.baseline.relative = true;
                let name = EntryName::of_case(spec, case);
                full.baseline.new = self.has_entry(spec, &name) == Some(false);
            }
            let kind = match (&full.error, status) {
                (Some(error), Status::Failed) => error.kind,
                _ => return None,
            };
            let name = EntryName::of_case(spec, case);
            let (standing, more) = self.unscored_standing(spec, &name, kind, &case.id)?;
            full.baseline.file = Some(spec.file.clone());
            if let Some(more) = more {
                full.message = Some(join(full.message.take(), &more));
            }
            let known = standing == Standing::KnownFailure;
            full.baseline.standing = Some(standing);
            Some(known)
        });
        if known == Some(true) {
            scored.passed = true;
            scored.numbers.status = Status::KnownFailure;
        }
        scored
    }

    /// A test that is no worse than its entry: passing (for now), with the metrics that rose
    /// beyond the tolerance, when its suite compares each test within one.
    fn improved(&self, spec: &BaselineSpec, old: &Entry, now: &Entry) -> Against {
        let mut against = Against::passing();
        against.compared.file = Some(spec.file.clone());
        against.compared.relative = true;
        if spec.per_case {
            against.compared.improvements = baseline::compare(old, now, spec.tolerance).1;
        }
        against
    }

    /// How an outcome stands against its baseline entry: a regression fails the test, a missing
    /// or unreadable baseline too.
    fn against_baseline(
        &self,
        case: &Case,
        spec: &BaselineSpec,
        outcome: &Outcome,
        now: &Entry,
    ) -> Against {
        let mut against = Against::passing();
        against.compared.file = Some(spec.file.clone());
        match self.baseline(&spec.file) {
            Err(why) => {
                let why = why.to_string();
                against.passed = false;
                against.problems.push(at_suite(&spec.suite_file, &why));
                against.error = Some(Cause::new(ErrorKind::Baseline, why.clone()));
                against.add(format!("error: {why}"));
            }
            Ok(None) => {
                let why = format!(
                    "the baseline `{}` declared by `{}` does not exist\ncreate it with: GOLDGATE_UPDATE=always {}",
                    spec.file.display(),
                    spec.suite_file.display(),
                    self.invocation
                );
                against.passed = false;
                against.problems.push(at_suite(&spec.suite_file, &why));
                against.error = Some(Cause::new(ErrorKind::Baseline, why.clone()));
                // It fails every test compared with it, and is said once, at the end of the
                // run; each test says where to look. JSON output has no end: each says all.
                if self.plain {
                    against.add(format!("error: {why}"));
                } else {
                    against.add(format!(
                        "error: no baseline to compare with: `{}` is missing (the end of the run says how to create it)",
                        spec.file.display()
                    ));
                }
            }
            Ok(Some(base)) => match base.entry(&EntryName::of_case(spec, case)) {
                None => against.compared.new = true,
                Some(old) => {
                    let (worse, better) = baseline::compare(old, now, spec.tolerance);
                    if !worse.is_empty() {
                        against.passed = false;
                        // The fields that dropped, each with its gold, prediction and diff.
                        let fields = field_blocks(case, outcome, &baseline::fields_among(&worse));
                        let why = format!(
                            "regression against the baseline `{}` (tolerance {}): {}\n{fields}\naccept the new numbers with: {}",
                            spec.file.display(),
                            spec.tolerance,
                            describe(&worse),
                            self.accept_command(&case.id)
                        );
                        against.add(why);
                    }
                    against.compared.regressions = worse;
                    against.compared.improvements = better;
                }
            },
        }
        against
    }

    /// Keeps a finished case test: its numbers, its record (on disk, for the report), its
    /// baseline entry to bless, and what the summary lists.
    pub(crate) fn finish_case(&self, record: &Record, bless: Option<(PathBuf, EntryName)>) {
        self.finish_scored_case(record, record.numbers(), bless);
    }

    /// [`finish_case`](Self::finish_case) with the record's numbers, as its scoring made them
    /// (not made again from the record).
    pub(crate) fn finish_scored_case(
        &self,
        record: &Record,
        mut numbers: CaseNumbers,
        bless: Option<(PathBuf, EntryName)>,
    ) {
        // What is kept is made before the lock is taken: the test threads finish their tests
        // at once, and made under it, a record's numbers and lines kept the other thread
        // waiting (a sleep and a wake a few tests, 600 of each in a run of 10,000 cases).
        // Only the run's files show each field's numbers by pipeline.
        // Aggregates read each field's confidences (the acceptance of confidences), and so do
        // the pooled rows of a suite's `acceptance:` at the end of the run.
        if !self.keeps_records && !self.has_aggregates() && numbers.acceptance.is_none() {
            numbers.fields = Box::default();
        }
        let reviewable = self.journal.is_none() && reviewable(record);
        // (A run keeps records when it spools them for a report or journals them.)
        let line = (reviewable || self.keeps_records).then(|| case_line(&test_record(record)));
        let journaled = match (&self.journal, &line) {
            (Some(journal), Some(line)) => journal.append(&journal.line_of(line)),
            _ => Ok(()),
        };
        let blessed = bless.and_then(|(file, key)| {
            let passed = record.status == Status::Passed;
            // A test that could not be scored has an entry too: its verdict, so that under
            // `fail_on: regressions` it is a known failure while it fails the same way.
            let entry = match (&record.outcome, &record.error) {
                (Some(outcome), _) => baseline::entry_of(outcome, passed),
                (None, Some(error)) => baseline::unscored_entry(error.kind.name()),
                (None, None) => return None,
            };
            Some((file, Blessed { key, entry, passed }))
        });

        let mut kept = lock(&self.kept);
        kept.count_call_skip(record);
        kept.numbers.push(numbers);
        // The test's scored result goes: its numbers are kept once, here, and found by name
        // when an aggregate may ask for them.
        let at = kept.numbers.len() - 1;
        if self.has_aggregates() {
            lock(&self.scored).insert(record.id.clone(), Slot::Finished(at));
        } else {
            lock(&self.scored).remove(&record.id);
        }
        if let Some(line) = &line {
            if reviewable {
                kept.keep_for_review(line.as_bytes());
            }
            let spooled = kept
                .spool
                .as_mut()
                .map_or(Ok(()), |spool| spool.write_all(line.as_bytes()));
            if let Err(source) = spooled.and(journaled) {
                kept.spool_error.get_or_insert_with(|| {
                    Arc::new(RecordNotKept {
                        test: record.id.clone(),
                        source,
                    })
                });
            }
        }
        if let Some((file, entry)) = blessed {
            kept.blessings.entry(file).or_default().push(entry);
        }
    }

    /// Keeps a finished aggregate test.
    pub(crate) fn finish_aggregate(&self, record: AggregateRecord) {
        let mut kept = lock(&self.kept);
        if let Some(journal) = &self.journal
            && let Err(source) =
                journal.append(&journal.line_of(&aggregate_line(&aggregate_record(&record))))
        {
            kept.spool_error.get_or_insert_with(|| {
                Arc::new(RecordNotKept {
                    test: record.id.clone(),
                    source,
                })
            });
        }
        kept.aggregates.push(record);
    }

    /// The run's journal, when the run spans processes.
    pub(crate) fn journal(&self) -> Option<&Journal> {
        self.journal.as_ref()
    }
}

/// A failed call scored all the same (`profile: docubench`): its cause leads the test's
/// problems and is its error, and the run's end counts it (from its record).
fn failed_call_scored(
    call: &crate::model::prediction::FailedCall,
    error: &mut Option<Cause>,
    problems: &mut Vec<Located>,
) {
    let cause = crate::render::prediction::failed_call(call);
    let at = Located {
        file: call.file.display().to_string(),
        line: call.at.line,
        column: call.at.column,
        message: cause.clone(),
    };
    problems.insert(0, at);
    error.get_or_insert(Cause::new(ErrorKind::Prediction, cause));
}

/// A baseline's trouble, at the suite file that declares the baseline.
fn at_suite(suite_file: &std::path::Path, why: &str) -> Located {
    Located {
        file: suite_file.display().to_string(),
        line: 0,
        column: 0,
        message: why.to_owned(),
    }
}

fn join(message: Option<String>, more: &str) -> String {
    match message {
        Some(m) => format!("{m}\n\n{more}"),
        None => more.to_owned(),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One verdict file as this process knows it.
#[derive(Debug)]
struct VerdictStore {
    /// The file as read (its verdicts, with those this process recorded), or why it could not be.
    read: Result<Verdicts, Arc<JudgeError>>,
    /// The keys asked in this run (`refresh` asks each once).
    refreshed: HashSet<String>,
    /// The keys whose judge failed in this run, with why.
    failed: HashMap<String, Arc<JudgeError>>,
}

impl Default for VerdictStore {
    fn default() -> Self {
        VerdictStore {
            read: Ok(Verdicts::new()),
            refreshed: HashSet::new(),
            failed: HashMap::new(),
        }
    }
}

impl VerdictStore {
    /// The verdict under `key`, as the mode sees it: `refresh` ignores what this run has not
    /// asked; a judge that failed, or a file that cannot be read, is the reason there is none.
    fn lookup(&self, key: &str, mode: JudgeMode) -> Option<Result<JudgeVerdict, JudgeFailed>> {
        if let Some(e) = self.failed.get(key) {
            return Some(Err(Arc::clone(e) as JudgeFailed));
        }
        let known = match &self.read {
            Ok(known) => known,
            Err(e) => return Some(Err(Arc::clone(e) as JudgeFailed)),
        };
        if mode == JudgeMode::Refresh && !self.refreshed.contains(key) {
            return None;
        }
        known.get(key).map(|r| Ok(r.verdict.clone()))
    }
}

/// The calls behind a case's attempts: each made now (a failed one too, with its retries: a
/// call that still failed made every retry) or taken from the cache, with what the cached ones
/// cost when they were made. An attempt `replay` could not make, or one that never reached its
/// command (a missing document), made no call.
fn call_tally(
    attempts: &[Result<(Prediction, Outcome), Box<Unscored>>],
    max_retries: u32,
) -> CallTally {
    let mut tally = CallTally::default();
    for attempt in attempts {
        match attempt {
            Ok((p, o)) if p.call == Some(CallSource::Cached) => {
                tally.cached += 1;
                tally.saved_latency_ms += o.metrics.latency_ms.unwrap_or(0.0);
                tally.saved_cost_usd += o.metrics.cost_usd.unwrap_or(0.0);
            }
            Ok((p, o)) => {
                tally.called += 1 + p.retried;
                tally.retries += p.retried;
                tally.spent_cost_usd += o.metrics.cost_usd.unwrap_or(0.0);
            }
            Err(e) => match &**e {
                Unscored::FailedCall(_) => {
                    tally.called += 1;
                    tally.errors += 1;
                }
                Unscored::Unreadable(_) if reached_its_command(attempt) => {
                    tally.called += 1 + max_retries;
                    tally.retries += max_retries;
                    tally.errors += 1;
                }
                Unscored::Unreadable(_) => {}
            },
        }
    }
    tally
}

/// The result of a case that could not be scored: its cause located, a call error its suite
/// skips left out (`run.call_errors: skip`).
fn unscored(
    case: &Case,
    why: &Unscored,
    attempts: Option<Attempts>,
    attempts_line: Option<String>,
    repeated: Option<Repeated>,
) -> Scored {
    let (cause, at) = match why {
        Unscored::Unreadable(error) => (
            error.to_string(),
            (error.file.display().to_string(), error.line, error.column),
        ),
        Unscored::FailedCall(call) => (
            crate::render::prediction::failed_call(call),
            (
                call.file.display().to_string(),
                call.at.line,
                call.at.column,
            ),
        ),
    };
    let message = crate::render::prediction::unscored(why);
    let kind = if is_a_call_error(case, why) {
        ErrorKind::Call
    } else {
        ErrorKind::Prediction
    };
    // `call_errors: skip`: left out of the means and the gates, and said.
    let skipped = kind == ErrorKind::Call
        && matches!(&case.prediction, PredictionSource::Run { policy, .. } if policy.skip_call_errors);
    let status = if skipped {
        Status::Ignored
    } else {
        Status::Failed
    };
    Scored {
        passed: skipped,
        numbers: case_numbers(case, status, None, attempts),
        full: Mutex::new(Some(Box::new(Full {
            message: Some(match attempts_line {
                Some(line) => format!("{line}\n{message}"),
                None => message,
            }),
            repeated,
            error: Some(Cause::new(kind, cause.clone())),
            problems: vec![Located {
                file: at.0,
                line: at.1,
                column: at.2,
                message: cause,
            }],
            ..Full::default()
        }))),
    }
}

/// Whether a case's prediction failed as a call of its suite's `run:` command fails (its exit,
/// its time, its output, or the pipeline's own word), not for a mistake of the project.
fn is_a_call_error(case: &Case, why: &Unscored) -> bool {
    matches!(case.prediction, PredictionSource::Run { .. })
        && match why {
            Unscored::FailedCall(_) => true,
            Unscored::Unreadable(e) => e.yaml_path == "run.command",
        }
}

/// Whether an attempt ran its command (or took another process's run of it).
fn reached_its_command(attempt: &Result<(Prediction, Outcome), Box<Unscored>>) -> bool {
    match attempt {
        Ok(_) => true,
        Err(e) => match &**e {
            Unscored::FailedCall(_) => true,
            Unscored::Unreadable(e) => {
                e.yaml_path.starts_with("run") && e.yaml_path != super::predict::NOT_KEPT
            }
        },
    }
}

/// Whether a run in one process leaves a finished case test for `goldgate review` to act on: a
/// failed test, a new or improved one, and a pipeline's passing test with a field that is not an
/// exact match (other pipelines may predict it alike: the gold may be wrong).
fn reviewable(record: &Record) -> bool {
    matches!(record.status, Status::Failed | Status::KnownFailure)
        || record.baseline.new
        || !record.baseline.improvements.is_empty()
        || record.pipeline.is_some()
            && record
                .outcome
                .as_ref()
                .is_some_and(|o| o.fields.iter().any(|f| f.em < 1.0))
}

/// The numbers a run keeps of a case's test, its gold digest taken here once (the record takes
/// it from them).
fn case_numbers(
    case: &Case,
    status: Status,
    outcome: Option<&Outcome>,
    attempts: Option<Attempts>,
) -> CaseNumbers {
    CaseNumbers {
        reference: case.reference.clone(),
        suite: Name::of(&case.suite_folder.display().to_string()),
        slices: slices_of(&case.tags, &case.attributes),
        attempts: attempts.map(Box::new),
        gold_digest: Some(crate::evaluate::digest::case_digest(case)),
        history: case
            .history
            .as_ref()
            .map(|h| Name::of(&h.display().to_string())),
        ..CaseNumbers::of(&case.id, case.pipeline.as_deref(), status, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entries_of_a_test_that_could_not_be_loaded_are_held() {
        let expected = ExpectedEntries {
            names: ["a".to_owned()].into(),
            unseen: ["b".to_owned(), "dir/c".to_owned()].into(),
            ..ExpectedEntries::default()
        };
        for held in ["a", "b", "b::guided", "dir/c", "dir/c::p", "dir/c/d"] {
            assert!(expected.holds(held), "{held}");
        }
        for gone in ["c", "bb", "a::guided", "dir/d", "dir"] {
            assert!(!expected.holds(gone), "{gone}");
        }
    }
}
