//! The help of a run: the libtest flags goldgate's harness takes and the environment it reads,
//! printed by `cargo test --test goldgate -- --help` and, under goldgate's own flags, by
//! `goldgate test --help`. libtest-mimic's own help knows neither goldgate's flags nor its
//! variables, so it is never shown.

/// What `cargo test --test goldgate -- --help` prints.
pub const HARNESS: &str = "\
Runs every YAML case under the harness's cases folder as a test, and one aggregate test per
suite and pipeline.

Usage: cargo test --test goldgate -- [OPTIONS] [FILTER]
       cargo goldgate test [--nextest] [--report FILE] [--junit FILE] [--html FILE] [-- OPTIONS]
";

/// The libtest flags the harness takes, and the environment it reads.
pub const FLAGS_AND_ENVIRONMENT: &str = "\
Test selection and output (libtest's flags):
  [FILTER]                  Run the tests whose name contains FILTER
      --exact               Match FILTER exactly (one test: `--exact invoices/acme-173`)
      --skip FILTER         Skip the tests whose name contains FILTER (repeatable)
      --pipeline NAME       Run the tests of the pipeline NAME alone (goldgate's flag)
      --fail-on RULE        failures: every failing test fails the run; regressions: a test worse
                            than its baseline entry, a known failure fails nothing (goldgate's)
      --list                List the tests, run nothing (`--format terse` as nextest reads it)
      --ignored             Run only the cases marked `skip:`
      --include-ignored     Run the cases marked `skip:` too
      --test-threads N      Cases scored at once (default: the number of cores)
  -q, --quiet               One character per test (`--format terse`)
      --format FORMAT       pretty, terse or json
      --color WHEN          auto, always or never (NO_COLOR turns colour off too)
      --logfile PATH        Write the test lines to PATH instead of standard output
      --test, --bench, --nocapture, --show-output, -Z FLAG
                            Taken for cargo's sake and without effect

Environment:
  GOLDGATE_UPDATE=always    Rewrite the baselines with this run's numbers (`no` or unset: never)
  GOLDGATE_REPORT=FILE      Write the JSON report there after the run
  GOLDGATE_JUNIT=FILE       Write JUnit XML there
  GOLDGATE_HTML=FILE        Write the run's HTML page there
  GOLDGATE_FAIL_ON=RULE     failures or regressions, as `--fail-on` (which wins over it)
  GOLDGATE_JUDGE=MODE       replay (default: recorded verdicts only), record or refresh
  GOLDGATE_RUN_ID=ID        The run this process belongs to when a run spans processes (set by
                            `cargo goldgate test`; nextest's NEXTEST_RUN_ID counts the same)
  GITHUB_ACTIONS=true       Annotations of the failures (paths relative to GITHUB_WORKSPACE)
  GITHUB_STEP_SUMMARY=FILE  Append the run's Markdown summary there
  NO_COLOR                  No colour

Exit status: 0 every test passed (or, under `fail_on: regressions`, none got worse than its
baseline entry); 101 a test failed or no case could be found; 2 a usage error.
";

/// Whether the arguments ask for help: `-h` or `--help` before any `--`, the program's name
/// (the first argument) aside.
pub fn asked<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> bool {
    args.iter()
        .skip(1)
        .map(AsRef::as_ref)
        .take_while(|a| *a != "--")
        .any(|a| a == "-h" || a == "--help")
}
