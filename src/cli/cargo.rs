//! `cargo goldgate test [--nextest] [-- ARGS]`: the one command of a split run. It runs `cargo
//! test` (or `cargo nextest run` with `--nextest`) with ARGS under one run id
//! (`GOLDGATE_RUN_ID`), so that every process of the run appends its tests' records to the run's
//! journal and writes nothing else; then, once, it writes the run's files (`GOLDGATE_REPORT`,
//! `GOLDGATE_JUNIT`, `GOLDGATE_HTML`, `GITHUB_STEP_SUMMARY`, or `--report`, `--junit`, `--html`)
//! from the journal and prints the end of the run. Its exit code is the runner's.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::run::exit::Exit;

use super::report::{Source, report};
use crate::run::env::Env;
use crate::run::outputs::Outputs;

const USAGE: &str = "Usage: cargo goldgate test [--nextest] [--report FILE] [--junit FILE] [--html FILE] [-- ARGS]\n       cargo goldgate review [DIR] [OPTIONS]\n\n\
Runs `cargo test ARGS` (or `cargo nextest run ARGS` with --nextest) under one run id, then writes the\n\
run's report, JUnit and HTML files from every process's records and prints the end of the run.\n\
`cargo goldgate review --help` tells how to review the last run's failures and edit the gold.";

/// `cargo goldgate review`: `goldgate review` with the tests run by `cargo test`.
#[derive(clap::Parser)]
#[command(
    name = "cargo goldgate review",
    about = "Review the last run's failures and bless, correct or extend the gold in place; the tests run by `cargo test`",
    after_help = super::review::AFTER_HELP
)]
struct Review {
    #[command(flatten)]
    args: super::review::ReviewArgs,
}

/// What the command line asks.
#[derive(Debug, Default, PartialEq)]
struct Asked {
    nextest: bool,
    outputs: Outputs,
    runner_args: Vec<OsString>,
}

/// A command line `cargo goldgate` does not take; its message ends with the usage.
#[derive(Debug, Clone, PartialEq)]
enum UsageError {
    /// No command: the usage alone.
    NoCommand,
    /// A command other than `test` (`review` is taken before).
    UnknownCommand(String),
    /// An option that names a file, without one.
    NeedsAFile(&'static str),
    /// An argument before `--` that is none of goldgate's.
    Unexpected(OsString),
}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UsageError::NoCommand => return f.write_str(USAGE),
            UsageError::UnknownCommand(other) => write!(
                f,
                "unknown command `{other}`: `test` and `review` are known"
            )?,
            UsageError::NeedsAFile(name) => write!(f, "`{name}` needs a file")?,
            UsageError::Unexpected(arg) => write!(
                f,
                "unexpected argument `{}`: arguments for the runner go after `--`",
                arg.to_string_lossy()
            )?,
        }
        write!(f, "\n\n{USAGE}")
    }
}

impl std::error::Error for UsageError {}

fn parse(args: &[OsString]) -> Result<Asked, UsageError> {
    let mut args = args.iter();
    let mut asked = Asked::default();
    match args.next().and_then(|a| a.to_str()) {
        Some("test") => {}
        Some(other) => return Err(UsageError::UnknownCommand(other.to_owned())),
        None => return Err(UsageError::NoCommand),
    }
    while let Some(arg) = args.next() {
        let mut path = |name: &'static str| {
            args.next()
                .map(PathBuf::from)
                .ok_or(UsageError::NeedsAFile(name))
        };
        match arg.to_str() {
            Some("--") => {
                asked.runner_args = args.cloned().collect();
                break;
            }
            Some("--nextest") => asked.nextest = true,
            Some("--report") => asked.outputs.report = Some(path("--report")?),
            Some("--junit") => asked.outputs.junit = Some(path("--junit")?),
            Some("--html") => asked.outputs.html = Some(path("--html")?),
            _ => return Err(UsageError::Unexpected(arg.clone())),
        }
    }
    Ok(asked)
}

/// A run id no other run has: the time and this process's id.
fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("cargo-goldgate-{nanos}-{}", std::process::id())
}

/// Whether the runner's arguments run a part of the tests it lists: a partition, a filter
/// expression, the test binary's own flags after a second `--` (a name filter, `--skip`,
/// `--exact`), or which ignored tests run.
fn runs_a_subset(args: &[OsString]) -> bool {
    const SELECTING: [&str; 6] = [
        "--partition",
        "-E",
        "--filter-expr",
        "--filterset",
        "--run-ignored",
        "--",
    ];
    args.iter().filter_map(|a| a.to_str()).any(|a| {
        SELECTING
            .iter()
            .any(|flag| a == *flag || a.starts_with(&format!("{flag}=")))
    })
}

/// The test runner's command: `cargo test ARGS` or `cargo nextest run ARGS`, under `run_id`.
fn runner(asked: &Asked, run_id: &str) -> std::process::Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut runner = std::process::Command::new(cargo);
    if asked.nextest {
        runner.args(["nextest", "run"]);
    } else {
        runner.arg("test");
    }
    runner
        .args(&asked.runner_args)
        .env("GOLDGATE_RUN_ID", run_id)
        // The end of the run is printed once, below, from every process's records.
        .env("GOLDGATE_RUN_END", "later");
    // A partition or a filter expression runs some of the tests the runner lists: the others
    // are no tests that never ran.
    if runs_a_subset(&asked.runner_args) {
        runner.env("GOLDGATE_SUBSET", "1");
    }
    crate::base::huge_pages::as_before(&mut runner);
    runner
}

/// `cargo goldgate …` (cargo passes `goldgate` first) or `cargo-goldgate …`.
pub fn main() -> ExitCode {
    crate::run::harness::end_quietly_when_the_reader_leaves();
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "goldgate") {
        args.remove(0);
    }
    if args.first().is_some_and(|a| a == "review") {
        use clap::Parser;
        let review = Review::parse_from(
            std::iter::once(OsString::from("cargo goldgate review"))
                .chain(args.into_iter().skip(1)),
        );
        return super::review::review(review.args, super::review::Runner::Cargo);
    }
    // `cargo goldgate --help`, `cargo goldgate help`, `cargo goldgate test --help`.
    let asks_help = |a: &OsString| a == "-h" || a == "--help";
    let before_runner_args = args.iter().take_while(|a| *a != "--");
    if args.first().is_some_and(|a| a == "help") || before_runner_args.clone().any(asks_help) {
        println!("{USAGE}");
        return Exit::Success.into();
    }
    let asked = match parse(&args) {
        Ok(a) => a,
        Err(message) => {
            eprintln!("{message}");
            return Exit::Usage.into();
        }
    };
    let env = match Env::from_process() {
        Ok(env) => env,
        Err(message) => {
            eprintln!("error: {message}");
            return Exit::Usage.into();
        }
    };
    let run_id = new_run_id();
    let mut runner = runner(&asked, &run_id);
    // The processes of the run write no run file: the end step below writes each once.
    let status = match runner.status() {
        Ok(status) => status,
        Err(e) => {
            eprintln!("error: cannot start the test runner: {e}");
            return Exit::Usage.into();
        }
    };
    let outputs = asked.outputs.or(Outputs {
        report: env.report,
        junit: env.junit,
        html: env.html,
        step_summary: env.step_summary,
    });
    let failed = Exit::TestFailed as u8;
    let mut code = status
        .code()
        .map_or(failed, |c| u8::try_from(c).unwrap_or(failed));
    match report(&Source::Run(run_id.clone()), outputs) {
        Ok(reported) => {
            use std::io::Write;
            let mut out = anstream::stdout();
            let _ = write!(out, "{}", reported.text);
            if !reported.complete && code == 0 {
                code = failed;
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            if code == 0 {
                code = failed;
            }
        }
    }
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_partition_a_filter_expression_or_the_binarys_own_filters_run_a_subset() {
        assert!(runs_a_subset(&args(&["--partition", "hash:1/2"])));
        assert!(runs_a_subset(&args(&["--partition=count:1/3"])));
        assert!(runs_a_subset(&args(&["-E", "test(acme)"])));
        assert!(runs_a_subset(&args(&[
            "--no-fail-fast",
            "--",
            "--skip",
            "live/"
        ])));
        assert!(!runs_a_subset(&args(&[
            "--no-fail-fast",
            "--test",
            "goldgate"
        ])));
    }

    #[test]
    fn arguments_after_the_separator_go_to_the_runner() {
        let asked = parse(&args(&[
            "test",
            "--nextest",
            "--report",
            "r.json",
            "--",
            "--partition",
            "hash:1/2",
        ]))
        .unwrap();
        assert!(asked.nextest);
        assert_eq!(asked.outputs.report, Some(PathBuf::from("r.json")));
        assert_eq!(asked.runner_args, args(&["--partition", "hash:1/2"]));
        assert!(
            parse(&args(&["test", "--partition"]))
                .unwrap_err()
                .to_string()
                .starts_with(
                    "unexpected argument `--partition`: arguments for the runner go after `--`"
                )
        );
        assert!(
            parse(&args(&["revue"]))
                .unwrap_err()
                .to_string()
                .starts_with("unknown command `revue`: `test` and `review` are known")
        );
    }
}
