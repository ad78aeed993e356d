//! The `Harness` builder and the libtest-mimic glue: case files in, one trial per case, exit code out.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use libtest_mimic::{Arguments, ColorSetting, Completion, Failed, FormatSetting, Trial};

use crate::case::Case;
use crate::discover::{Found, discover};
use crate::env::Env;
use crate::evaluate::evaluate;
use crate::load::{Problem, load_folder};
use crate::prediction::read_prediction;
use crate::render::{
    Record, RunSummary, Status, Styles, failure_message, paint, summary_line, write_report,
};

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
    args: Option<Vec<String>>,
}

type Records = Arc<Mutex<Vec<Record>>>;

impl Harness {
    /// A harness over the case files under `cases`.
    pub fn new(cases: impl Into<PathBuf>) -> Self {
        Harness {
            cases: cases.into(),
            rubrics: None,
            report: None,
            args: None,
        }
    }

    /// The folder of rubric sets for `include:` (default: `rubrics` beside the cases folder).
    pub fn rubrics(mut self, dir: impl Into<PathBuf>) -> Self {
        self.rubrics = Some(dir.into());
        self
    }

    /// Writes the JSON report there (overrides `GOLDGATE_REPORT`).
    pub fn report(mut self, file: impl Into<PathBuf>) -> Self {
        self.report = Some(file.into());
        self
    }

    /// libtest arguments, program name first (default: the process's own).
    pub fn args(mut self, args: impl IntoIterator<Item = String>) -> Self {
        self.args = Some(args.into_iter().collect());
        self
    }

    /// Runs the cases: 0 when all pass, 101 when a test failed, as libtest.
    #[must_use]
    pub fn run(self) -> ExitCode {
        let args = match &self.args {
            Some(a) => Arguments::from_iter(a.clone()),
            None => Arguments::from_args(),
        };
        if args.test_threads == Some(0) {
            eprintln!("error: `--test-threads` must be at least 1");
            return ExitCode::from(2);
        }
        let env = match Env::from_process() {
            Ok(env) => env,
            Err(message) => return fail_early(&message),
        };
        let report = self.report.clone().or(env.report);
        let rubrics = self
            .rubrics
            .clone()
            .unwrap_or_else(|| crate::discover::default_rubrics(&self.cases));

        let found = match discover(&self.cases) {
            Ok(found) => found,
            Err(no_cases) => return fail_early(&no_cases.0),
        };
        let records: Records = Arc::default();
        let trials = trials(found, &rubrics, &args, &records);
        let conclusion = libtest_mimic::run(&args, trials);
        if args.list {
            return conclusion.exit_code();
        }

        let mut records = std::mem::take(&mut *records.lock().unwrap_or_else(|e| e.into_inner()));
        records.sort_by(|a, b| a.id.cmp(&b.id));
        let summary = RunSummary::of(&records);
        if args.format != Some(FormatSetting::Json) {
            let mut out = anstream::AutoStream::new(std::io::stdout(), color_choice(args.color));
            let _ = writeln!(out, "{}\n", paint(Styles::HEADING, summary_line(&summary)));
        }
        if let Some(path) = report
            && let Err(e) = write_report(&path, &records, &summary)
        {
            eprintln!("error: cannot write the report `{}`: {e}", path.display());
            return ExitCode::from(101);
        }
        conclusion.exit_code()
    }
}

fn fail_early(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(101)
}

fn color_choice(setting: Option<ColorSetting>) -> anstream::ColorChoice {
    match setting {
        Some(ColorSetting::Always) => anstream::ColorChoice::Always,
        Some(ColorSetting::Never) => anstream::ColorChoice::Never,
        _ => anstream::ColorChoice::Auto,
    }
}

/// Loads the cases libtest will run and makes one trial of each. With `--exact NAME` only that
/// case is loaded, so a runner that starts one process per test (nextest) stays fast.
fn trials(found: Vec<Found>, rubrics: &Path, args: &Arguments, records: &Records) -> Vec<Trial> {
    let wanted = |id: &str| match (&args.filter, args.exact) {
        (Some(filter), true) => id == filter,
        _ => true,
    };
    let plain = args.format == Some(FormatSetting::Json);
    load_folder(&found, rubrics, wanted)
        .into_iter()
        .map(|entry| match entry.loaded {
            Ok(case) => case_trial(case, args, Arc::clone(records), plain),
            Err(problem) => {
                let (id, file) = (entry.id, entry.file.display().to_string());
                let records = Arc::clone(records);
                Trial::test(id.clone(), move || {
                    let message = match &problem {
                        Problem::Load(error) => format!(
                            "error: {error}\nthe case could not be loaded, so it was not run"
                        ),
                        Problem::Unreadable(reason) => format!("error: {reason}"),
                    };
                    let record = Record {
                        id,
                        pipeline: None,
                        file,
                        about: None,
                        status: Status::Failed,
                        error: Some(problem.to_string()),
                        skip: None,
                        outcome: None,
                        prediction: None,
                    };
                    push(&records, record);
                    Err(failed(message, plain))
                })
            }
        })
        .collect()
}

fn case_trial(case: Case, args: &Arguments, records: Records, plain: bool) -> Trial {
    // `--ignored` selects skipped cases by libtest's flag; otherwise they report their reason.
    let flagged = case.skip.is_some() && args.ignored;
    let run_skipped = args.ignored || args.include_ignored;
    Trial::ignorable_test(case.id.clone(), move || {
        let file = case.file.display().to_string();
        let mut record = Record {
            id: case.id.clone(),
            pipeline: None,
            file,
            about: Some((case.description.clone(), case.tags.clone())),
            status: Status::Failed,
            error: None,
            skip: case.skip.clone(),
            outcome: None,
            prediction: None,
        };
        if let (Some(reason), false) = (&case.skip, run_skipped) {
            record.status = Status::Ignored;
            let reason = reason.clone();
            push(&records, record);
            return Ok(Completion::ignored_with(reason));
        }
        let prediction = match read_prediction(&case.prediction, &case.file) {
            Ok(p) => p,
            Err(error) => {
                record.error = Some(error.to_string());
                push(&records, record);
                return Err(failed(
                    format!(
                        "error: {error}\nthe prediction could not be read, so nothing was scored"
                    ),
                    plain,
                ));
            }
        };
        let outcome = evaluate(&case, &prediction);
        let result = if outcome.passed {
            Ok(Completion::Completed)
        } else {
            Err(failed(failure_message(&case, &outcome), plain))
        };
        record.status = if outcome.passed {
            Status::Passed
        } else {
            Status::Failed
        };
        record.outcome = Some(outcome);
        record.prediction = Some(prediction);
        push(&records, record);
        result
    })
    .with_ignored_flag(flagged)
}

/// A failure message; without colour codes where libtest-mimic would print them verbatim (JSON).
fn failed(message: String, plain: bool) -> Failed {
    if plain {
        Failed::from(anstream::adapter::strip_str(&message).to_string())
    } else {
        Failed::from(message)
    }
}

fn push(records: &Records, record: Record) {
    records
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(record);
}
