//! The `Harness` builder and the libtest-mimic glue: case files in, one trial per case, exit code out.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, ColorSetting, FormatSetting, Trial};

use crate::evaluate::aggregate::{Aggregated, aggregate};
use crate::evaluate::record::{Record, Status};
use crate::load::discover::{Found, discover};
use crate::load::{Entry, load_folder};
use crate::model::suite::Aggregate;
use crate::render::{RunSummary, Styles, comparison_table, paint, summary_line, write_report};
use crate::run::env::{Env, Update};
use crate::run::trials::{Run, aggregate_trial, case_trial};

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
    invocation: Option<String>,
}

impl Harness {
    /// A harness over the case files under `cases`.
    pub fn new(cases: impl Into<PathBuf>) -> Self {
        Harness {
            cases: cases.into(),
            rubrics: None,
            report: None,
            args: None,
            invocation: None,
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

    /// How to run the tests again, for the commands in messages (default: the `cargo test`
    /// command of this test target).
    pub fn invocation(mut self, command: impl Into<String>) -> Self {
        self.invocation = Some(command.into());
        self
    }

    /// Runs the cases: 0 when all pass, 101 when a test failed, as libtest; 2 for a usage error.
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
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        };
        let report = self.report.clone().or(env.report);
        let rubrics = self
            .rubrics
            .clone()
            .unwrap_or_else(|| crate::load::discover::default_rubrics(&self.cases));

        let found = match discover(&self.cases) {
            Ok(found) => found,
            Err(no_cases) => return fail_early(&no_cases.0),
        };
        let invocation = self.invocation.clone().unwrap_or_else(cargo_invocation);
        let threads = args
            .test_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
        let run = Run::new(
            env.update,
            invocation,
            args.format == Some(FormatSetting::Json),
            threads,
        );
        let trials = trials(&found, &self.cases, &rubrics, &args, &run);
        let conclusion = libtest_mimic::run(&args, trials);
        if args.list {
            return conclusion.exit_code();
        }

        let mut records =
            std::mem::take(&mut *run.records.lock().unwrap_or_else(|e| e.into_inner()));
        records.sort_by(|a, b| a.id.cmp(&b.id));
        let summary = RunSummary::of(&records);
        let pipelines = pipeline_rows(&records);
        if args.format != Some(FormatSetting::Json) {
            let mut out = anstream::AutoStream::new(std::io::stdout(), color_choice(args.color));
            let _ = writeln!(out, "{}", paint(Styles::HEADING, summary_line(&summary)));
            if pipelines.iter().any(|(name, _)| name != NO_PIPELINE) {
                let _ = write!(out, "\n{}", comparison_table(&pipelines));
            }
            for line in run
                .improvements
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
            {
                let _ = writeln!(
                    out,
                    "improved beyond the baseline's tolerance, {line} (tighten it with GOLDGATE_UPDATE=always)"
                );
            }
            let new_cases = run
                .new_cases
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            if !new_cases.is_empty() {
                let _ = writeln!(
                    out,
                    "new, not in the baseline yet: {}",
                    new_cases.join(", ")
                );
            }
            let _ = writeln!(out);
        }
        if env.update == Update::Always
            && let Err(e) = update_baselines(&records)
        {
            eprintln!("error: {e}");
            return ExitCode::from(101);
        }
        let aggregates = run
            .aggregates
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(path) = report
            && let Err(e) = write_report(&path, &records, &summary, &pipelines, &aggregates)
        {
            eprintln!("error: cannot write the report `{}`: {e}", path.display());
            return ExitCode::from(101);
        }
        conclusion.exit_code()
    }
}

/// The row name of cases without pipelines in the comparison table.
const NO_PIPELINE: &str = "(none)";

/// The comparison of pipelines: every case test of each pipeline, aggregated.
fn pipeline_rows(records: &[Record]) -> Vec<(String, Aggregated)> {
    let mut names: Vec<String> = records
        .iter()
        .map(|r| r.pipeline.clone().unwrap_or_else(|| NO_PIPELINE.into()))
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let results = records
                .iter()
                .filter(|r| {
                    r.pipeline.as_deref().unwrap_or(NO_PIPELINE) == name
                        && r.status != Status::Ignored
                })
                .map(|r| (r.status == Status::Passed, r.outcome.as_ref()));
            (name.clone(), aggregate(results))
        })
        .collect()
}

/// Rewrites each baseline with the numbers of the tests that ran; other entries stay.
fn update_baselines(records: &[Record]) -> Result<(), String> {
    let mut files: Vec<(PathBuf, Vec<(String, crate::evaluate::baseline::Entry)>)> = Vec::new();
    for record in records {
        let (Some(spec), Some(outcome)) = (record.baseline.as_ref(), record.outcome.as_ref())
        else {
            continue;
        };
        let entry = crate::evaluate::baseline::entry_of(outcome);
        let key = spec.key(Path::new(&record.file), record.pipeline.as_deref());
        match files.iter_mut().find(|(f, _)| *f == spec.file) {
            Some((_, list)) => list.push((key, entry)),
            None => files.push((spec.file.clone(), vec![(key, entry)])),
        }
    }
    for (file, entries) in files {
        let mut base = crate::evaluate::baseline::read(&file)?.unwrap_or_default();
        for (id, entry) in entries {
            base.cases.insert(id, entry);
        }
        crate::evaluate::baseline::write(&file, &base)
            .map_err(|e| format!("cannot write the baseline `{}`: {e}", file.display()))?;
    }
    Ok(())
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
    ExitCode::from(101)
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
    args: &Arguments,
    run: &Arc<Run>,
) -> Vec<Trial> {
    let exact = match (&args.filter, args.exact) {
        (Some(filter), true) => Some(filter.clone()),
        _ => None,
    };
    let wanted = |file_id: &str| match &exact {
        // An aggregate needs every case of its suite.
        Some(name)
            if name.contains("::aggregate")
                || name == "aggregate"
                || name.starts_with("aggregate::") =>
        {
            true
        }
        Some(name) => name.split("::").next() == Some(file_id),
        None => true,
    };
    let entries = load_folder(found, root, rubrics, wanted);
    let mut aggregates: Vec<(Arc<Aggregate>, Option<String>)> = Vec::new();
    for entry in &entries {
        for agg in &entry.aggregates {
            if !aggregates
                .iter()
                .any(|(a, p)| Arc::ptr_eq(a, agg) && *p == entry.pipeline)
            {
                aggregates.push((Arc::clone(agg), entry.pipeline.clone()));
            }
        }
    }
    let mut trials: Vec<Trial> = aggregates
        .into_iter()
        .map(|(agg, pipeline)| {
            let cases: Vec<Entry> = entries
                .iter()
                .filter(|e| {
                    e.pipeline == pipeline && e.aggregates.iter().any(|a| Arc::ptr_eq(a, &agg))
                })
                .cloned()
                .collect();
            aggregate_trial(agg, pipeline, cases, run)
        })
        .collect();
    let (flag, run_skipped) = (args.ignored, args.ignored || args.include_ignored);
    trials.extend(
        entries
            .into_iter()
            .map(|entry| case_trial(entry, run, flag, run_skipped)),
    );
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    trials
}
