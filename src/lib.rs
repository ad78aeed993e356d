//! # goldgate
//!
//! goldgate turns YAML gold cases for document-extraction outputs (invoices, receipts, forms)
//! into `cargo test` cases. Each case scores a recorded prediction with exact match, ANLS and
//! calibration, applies gated scoring (one failed Must-Right rubric zeroes the case; each failed
//! Easy-Wrong rubric costs a penalty), checks thresholds, and prints a per-field diff on failure.
//!
//! ## Setup
//!
//! ```toml
//! # Cargo.toml
//! [dev-dependencies]
//! goldgate = "0.1"
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
//! `tolerance`, a `run` command, a `profile` and an `easy_wrong_penalty`. See [`suite`].
//!
//! ## Environment
//!
//! - `GOLDGATE_REPORT=FILE`: write the JSON report of the run there (atomically).
//! - `GOLDGATE_UPDATE=always|no`: rewrite the suites' baselines with this run's numbers, or not.
//! - `NO_COLOR`: no colour, as does `--color never` or a pipe.
//!
//! ## How the crate is laid out
//!
//! A case travels one way: file -> [`load`] (with its [`suite`]) -> [`evaluate`](mod@evaluate) -> [`render`];
//! [`trial`] makes the tests of a run, scores each case once and compares it with its
//! [`baseline`]; [`aggregate`] pools a suite's cases; [`run`] runs a suite's command. [`spec`] holds the
//! serde types of the files and the located nodes that keep written scalar text; [`metrics`]
//! holds EM, ANLS, ANLS* and calibration and knows nothing of YAML; [`Harness`] is the
//! libtest-mimic glue; [`discover`] finds the files; [`env`](mod@env) reads every `GOLDGATE_*` variable.
#![warn(missing_docs)]

pub mod base;
#[doc(hidden)]
pub mod cli;
pub mod evaluate;
pub mod load;
pub mod metrics;
pub mod model;
pub mod render;
pub mod run;
pub mod spec;

/// Writing cases: every key, every check and every threshold, by example.
#[doc = include_str!("guide.md")]
pub mod guide {}

pub use base::location::LoadError;
pub use base::normalize::Normalize;
pub use base::value::Value;
pub use evaluate::evaluate;
pub use evaluate::outcome::Outcome;
pub use model::case::Case;
pub use run::harness::Harness;
