//! # goldgate
//!
//! goldgate turns YAML gold cases for document-extraction outputs (invoices, receipts, forms)
//! into `cargo test` cases. Each case scores a recorded prediction with exact match, ANLS and
//! calibration, applies gated scoring (one failed Must-Right rubric zeroes the case; each failed
//! Easy-Wrong rubric costs a penalty), checks thresholds, and prints a per-field diff on failure.
//!
//! ## Setup
//!
//! goldgate is not published on crates.io: depend on a checkout or on its repository.
//! `goldgate init --path DIR` (or `--git URL`) writes all of this.
//!
//! ```toml
//! # Cargo.toml
//! [dev-dependencies]
//! goldgate = { path = "../goldgate" }   # or { git = "https://…/goldgate.git" }
//!
//! [[test]]
//! name = "goldgate"
//! harness = false
//! ```
//!
//! ```no_run
//! // tests/goldgate.rs
//! fn main() -> std::process::ExitCode {
//!     goldgate::Harness::new("cases").rubrics("rubrics").run()
//! }
//! ```
//!
//! `cargo test` then runs one test per file under `cases/`, named by its path without extension
//! (`invoices/fr/acme-173`). libtest's flags work: filters, `--exact`, `--skip`, `--list`,
//! `--ignored`, `--include-ignored`, `--test-threads`, `--format`, `--color`.
//!
//! ## A case
//!
//! ```yaml
//! description: ACME invoice no. 173
//! prediction: outputs/acme-173.json        # relative to this file; or an inline mapping
//! gold:
//!   invoice_number: 0173                   # compared as the text written: "0173"
//!   total_ttc: 1234.50                     # the text "1234.50"
//!   issue_date: { any_of: [2024-03-05, 05/03/2024] }
//!   iban: null                             # must be absent, null or empty
//! critical: [invoice_number, total_ttc]
//! rubrics:
//!   - include: invoice-basics              # rubrics/invoice-basics.yaml
//!   - must_right: total is the tax-inclusive amount
//!     field: total_ttc
//!     exact: true
//! thresholds:
//!   min_anls: 0.9
//!   max_brier: 0.25
//! ```
//!
//! ## Suites
//!
//! A `suite.yaml` gives its folder and the folders below `defaults` (any case key), `pipelines`
//! (one test per case and pipeline, `invoices/acme-173::guided`), `aggregate` thresholds (one
//! test per pipeline, `invoices::aggregate::guided`), `pricing`, a `baseline` with its
//! `tolerance`, a `run` command, a `profile` and an `easy_wrong_penalty`. A case's own key wins
//! over a default, whole, but for `thresholds` (merged bound by bound, `null` removing one),
//! `rubrics` (added after the suite's unless `rubrics: { replace: [...] }`) and `fields` (rule by
//! rule). See the [`guide`].
//!
//! ## Environment
//!
//! - `GOLDGATE_REPORT=FILE`: write the JSON report of the run there (atomically).
//! - `GOLDGATE_UPDATE=always|no`: rewrite the suites' baselines with this run's numbers, or not.
//! - `GOLDGATE_JUNIT=FILE`, `GOLDGATE_HTML=FILE`: write JUnit XML, the run's HTML page.
//! - `GITHUB_ACTIONS=true` (with `GITHUB_WORKSPACE`): print annotations of the failures;
//!   `GITHUB_STEP_SUMMARY`: append the run's Markdown page there.
//! - `NEXTEST_RUN_ID` (set by cargo-nextest) or `GOLDGATE_RUN_ID`: the run this process is part
//!   of, when a run spans processes (below).
//! - `NO_COLOR`: no colour, as does `--color never` or a pipe.
//!
//! ## One run, any number of processes
//!
//! `cargo nextest run` starts one process per test, and `--partition hash:k/N` spreads a run over
//! CI machines. The results are the same however a run is split, and each process costs its own
//! tests only:
//!
//! - A process of a run with an id (`NEXTEST_RUN_ID`, set by nextest, or `GOLDGATE_RUN_ID`)
//!   appends each test's record to the run's journal as the test ends (one line, under a short
//!   lock) and writes no run file. `--exact NAME` reads that test's case, suites and rubric sets
//!   alone: the name is the case's path, so the folder is not walked.
//! - The run's files (report, JUnit, HTML, step summary) are written once, from the journal, when
//!   the run is over: `cargo goldgate test [--nextest] [-- ARGS]` runs `cargo test` or `cargo
//!   nextest run` under one run id, then writes them and prints the end of the run; after a run
//!   started without it, `goldgate report --run ID` (or `--last`) does the same step.
//! - Without a run id a process is a run: it writes the run's files itself when it ends.
//! - `GOLDGATE_UPDATE=always` merges each test's entry into the baseline under a lock: concurrent
//!   processes lose none.
//! - A suite's `run` command runs once per case and pipeline per run: an aggregate test reuses the
//!   case tests' outputs (in one process, the scores; across processes, the command's output,
//!   kept for the run and keyed by the command, its arguments, its folder and the document's
//!   bytes).
//! - `goldgate report FILE…` prints the end of a run from one report or the reports of several
//!   shards, and `-o FILE` writes the merged report.
//! - The journal, shared outputs and locks live in `goldgate-UID` under the temporary folder,
//!   made 0700 (files 0600), used only when it is this user's own folder and not a link; a line
//!   torn by a killed process is skipped; runs and idle lock files older than a day are pruned.
//!
//! ## The record of a test
//!
//! Each test's result is one typed record ([`record::TestRecord`], [`record::AggregateRecord`]):
//! fields with their gold, prediction, compared forms, scores, matched items and diff as data;
//! rubric and threshold verdicts with their `file:line:col`; the gate, metrics, usage, the
//! baseline comparison; load errors with a kind. The JSON report is the records, sorted, with the
//! run's summary ([`record::Report`]; `goldgate schema --kind report` prints its schema), and
//! every output is made from records.
//!
//! ## Reviewing the gold
//!
//! `goldgate review` (and `cargo goldgate review`) reads the last run's records (or runs the
//! tests first with `--run`) and queues what needs a decision: regressions, fields two or more
//! pipelines predict alike and not as the gold, other failing fields by confidence, new tests.
//! On a terminal one key an item accepts the prediction as the gold (`a`), adds it as an
//! `any_of` variant (`v`), blesses the baseline entry (`b`); for scripts, `--list [--json]` and
//! `--accept ID…`, `--variant ID…`, `--bless ID…`. An edit changes the bytes of one value and
//! nothing else, is refused on a file changed since the run, and the touched tests run again.
//!
//! ## How the crate is laid out
//!
//! A case travels one way: file -> load -> evaluate -> render, and the run drives it. Modules
//! sit in layers; each imports only from the layers below it (a test, `tests/layers.rs`, reads
//! the sources and fails on an import that climbs):
//!
//! | layer | module | what it holds |
//! |---|---|---|
//! | 0 | `base` | the value tree, text normalization, typed reading of amounts and dates, field paths, locations and load errors, file helpers (atomic writes, locks), the private state folder |
//! | 1 | `spec` | the file formats: serde types of case, suite and rubric files, located nodes that keep written text, the parser's messages, the JSON Schema, byte-preserving edits of one gold value |
//! | 1 | [`metrics`] | EM, ANLS, ANLS\*, calibration; knows nothing of YAML |
//! | 2 | `model` | plain types: case, rubric (and the table of check keys), suite, prediction, metric (the table of metrics) |
//! | 3 | `load` | files -> model: discovery, suites, cases, rubrics, recorded predictions; runs nothing |
//! | 3 | `evaluate` | model -> outcome, pure: field scores, checks, the gate, thresholds, aggregates, baseline comparison, the records of a run |
//! | 4 | [`record`] | the record of a test: typed, serde-derived, versioned; the report's schema; diffs as data |
//! | 5 | `review` | the review queue of a run's records: regressions, fields pipelines contradict alike, failing fields by confidence, new tests; items with ids that stay across listings |
//! | 6 | `render` | outcomes and records -> text: the failure message, diffs, summary, comparison table, the JSON report, JUnit, annotations, the step summary, the HTML page; computes nothing |
//! | 7 | `run` | the [`Harness`], the tests of a run, the session they share, commands and their shared outputs, the run's journal and files (report, JUnit, HTML, step summary), baseline files, environment variables |
//! | 8 | `cli` | the command line's subcommands and `cargo goldgate` (hidden: for the binaries) |
//!
//! The public API is [`Harness`], [`metrics`] with [`Normalize`], [`record`] (what a report
//! holds), and the [`guide`].
#![warn(missing_docs)]

mod base;
#[doc(hidden)]
pub mod cli;
mod evaluate;
mod load;
pub mod metrics;
mod model;
pub mod record;
mod render;
mod review;
mod run;
mod spec;

/// Writing cases: every key, every check and every threshold, by example.
#[doc = include_str!("guide.md")]
pub mod guide {}

pub use base::normalize::Normalize;
pub use run::harness::Harness;
