//! `goldgate review` and `cargo goldgate review`: the queue of a run's records, reviewed on a
//! terminal (one key an item) or acted on by id (`--list`, `--accept`, `--variant`, `--bless`),
//! then the gold edited in place, baseline entries blessed, and the touched tests run again.

mod apply;
mod terminal;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use clap::Args;

use crate::record::TestRecord;
use crate::review::{GoldPlace, Item, queue};
use crate::run::exit::Exit;
use crate::run::journal::Journal;

pub(crate) use apply::Runner;
use apply::{Action, RunError, Session};
use terminal::TerminalError;

use super::report::RecordsError;
use crate::load::discover::NoCases;
use crate::run::outputs::OutputError;

/// `goldgate review`'s arguments.
#[derive(Args, Debug)]
pub(crate) struct ReviewArgs {
    /// The cases folder.
    #[arg(default_value = "cases")]
    dir: PathBuf,
    /// The rubric sets folder (default: the nearest `rubrics` above DIR, up to the project root).
    #[arg(long, value_name = "DIR")]
    rubrics: Option<PathBuf>,
    /// Read the records of this JSON report (`goldgate test DIR --report FILE`) instead of the
    /// newest run's.
    #[arg(long, value_name = "FILE", conflicts_with = "run")]
    report: Option<PathBuf>,
    /// Run the tests of DIR first, then review their records.
    #[arg(long)]
    run: bool,
    /// Print the queue (each item's id, kind, gold, proposed value and where the gold is) and
    /// change nothing.
    #[arg(long, conflicts_with_all = ["accept", "variant", "bless"])]
    list: bool,
    /// With --list: print the queue as JSON.
    #[arg(long, requires = "list")]
    json: bool,
    /// Write these items' predictions as their gold.
    #[arg(long, value_name = "ID", num_args = 0..)]
    accept: Option<Vec<String>>,
    /// Add these items' predictions to their gold as variants (`any_of`).
    #[arg(long, value_name = "ID", num_args = 0..)]
    variant: Option<Vec<String>>,
    /// Bless these items' tests: write their baseline entries from this run (as
    /// GOLDGATE_UPDATE=always does for them alone).
    #[arg(long, value_name = "ID", num_args = 0..)]
    bless: Option<Vec<String>>,
    /// With --accept, --variant or --bless without ids: act on every item of the queue.
    #[arg(long)]
    all: bool,
    /// Take this pipeline's value where the pipelines' values differ.
    #[arg(long, value_name = "NAME")]
    pipeline: Option<String>,
}

/// Help shown after the options.
pub(crate) const AFTER_HELP: &str = "\
The queue, in order: regressions against the baseline; fields that two or more pipelines predict
alike and not as the gold; other fields of failing tests off their gold, most confident first;
tests without a baseline entry. An item's id is TEST#FIELD (CASE#FIELD for a field pipelines contradict alike, TEST for a
test): the same in every listing of one run's records.

On a terminal, each item takes one key: a accept the prediction as the gold, v add it as a
variant (any_of), b bless the baseline entry, s skip, u undo, q quit; A, B, S apply to every
remaining item. The decisions are carried out when the session ends (Enter after the last
item, or q); Ctrl-C leaves with nothing written.

An edit changes the bytes of one value and nothing else (comments, order, quoting, style, line
endings stay), goes through a temporary file and a rename, and is printed as a one-line diff; a
file changed since the run is refused. The tests a session touched run again and their verdicts
are printed.

Examples:
  goldgate review --run
  goldgate review --list --json
  goldgate review --accept 'invoices/acme::guided#total' --variant 'invoices/acme#date'
  goldgate review --bless --all";

/// The records to review and when the run wrote them.
struct Records {
    cases: Vec<TestRecord>,
    /// The aggregate tests (a failed regression gate is an item).
    aggregates: Vec<crate::record::AggregateRecord>,
    written_at: SystemTime,
}

fn records(args: &ReviewArgs, runner: &Runner) -> Result<Records, ReviewError> {
    if args.run {
        return Ok(runner.run_all(&args.dir, args.rubrics.as_deref(), args.json)?);
    }
    if let Some(file) = &args.report {
        let report = super::report::read_report(file)?;
        let written_at = std::fs::metadata(file)
            .and_then(|m| m.modified())
            .map_err(|source| ReviewError::ReportTime {
                file: file.clone(),
                source,
            })?;
        return Ok(Records {
            cases: report.cases,
            aggregates: report.aggregates,
            written_at,
        });
    }
    let project = crate::base::state::Project::find(&args.dir).map_err(ReviewError::State)?;
    let (journal, id) = Journal::to_review(&project)
        .map_err(ReviewError::State)?
        .ok_or(ReviewError::NoRunYet)?;
    let written_at = journal.written_at().map_err(ReviewError::State)?;
    let read = journal
        .read()
        .map_err(|source| RecordsError::RunUnread { id, source })?;
    Ok(Records {
        cases: read.whole_cases()?,
        aggregates: read.aggregate_list(),
        written_at,
    })
}

/// Why a review could not begin, or ended before its decisions were carried out.
#[derive(Debug)]
pub(crate) enum ReviewError {
    /// The tests could not be run first (`--run`).
    Run(RunError),
    /// The run's records could not be had.
    Records(RecordsError),
    /// They could not be read back.
    ReadBack(OutputError),
    /// When the report given was written is not known.
    ReportTime {
        /// The report.
        file: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The state folder (where runs keep their records) cannot be used.
    State(std::io::Error),
    /// No run of the project has written records.
    NoRunYet,
    /// The records hold no test of the cases folder.
    NoTestOf {
        /// The cases folder.
        dir: PathBuf,
    },
    /// The cases folder cannot be searched for the tests' cases.
    NoCases(NoCases),
    /// The queue cannot be written as JSON.
    Json(serde_json::Error),
    /// `--all` without an action to take.
    AllOfNothing,
    /// An action without ids, and no `--all`.
    NoIds {
        /// The action.
        action: Action,
    },
    /// An id that is no item of the queue.
    NoItem {
        /// The id.
        id: String,
    },
    /// A test's id given to an action on fields.
    NotAField {
        /// The id.
        id: String,
    },
    /// The terminal could not be used.
    Terminal(TerminalError),
}

impl From<RunError> for ReviewError {
    fn from(e: RunError) -> Self {
        ReviewError::Run(e)
    }
}

impl From<RecordsError> for ReviewError {
    fn from(e: RecordsError) -> Self {
        ReviewError::Records(e)
    }
}

impl From<OutputError> for ReviewError {
    fn from(e: OutputError) -> Self {
        ReviewError::ReadBack(e)
    }
}

impl From<TerminalError> for ReviewError {
    fn from(e: TerminalError) -> Self {
        ReviewError::Terminal(e)
    }
}

impl std::fmt::Display for ReviewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReviewError::Run(e) => e.fmt(f),
            ReviewError::Records(e) => e.fmt(f),
            ReviewError::ReadBack(e) => e.fmt(f),
            ReviewError::ReportTime { file, source } => {
                write!(f, "cannot read `{}`: {source}", file.display())
            }
            ReviewError::State(e) => e.fmt(f),
            ReviewError::NoRunYet => f.write_str(
                "no run of this project has written records yet: review with `--run` (runs the tests first), or give the report of a run with `--report FILE`",
            ),
            ReviewError::NoTestOf { dir } => write!(
                f,
                "the run's records hold no test of `{}`: name the cases folder it ran (`goldgate review DIR`), or review with `--run`",
                shown_path(dir)
            ),
            ReviewError::NoCases(e) => f.write_str(&e.0),
            ReviewError::Json(e) => e.fmt(f),
            ReviewError::AllOfNothing => f.write_str(
                "`--all` says which items `--accept`, `--variant` or `--bless` act on: give one of them (`goldgate review --bless --all`)",
            ),
            ReviewError::NoIds { action } => write!(
                f,
                "`--{}` needs item ids (from `goldgate review --list`), or `--all` for the whole queue",
                action.flag()
            ),
            ReviewError::NoItem { id } => write!(
                f,
                "no item `{id}` in the queue of this run's records (`goldgate review --list` lists them)"
            ),
            ReviewError::NotAField { id } => write!(
                f,
                "the item `{id}` is a test, not a field: it can only be blessed (`--bless {id}`)"
            ),
            ReviewError::Terminal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReviewError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReviewError::Run(e) => e.source(),
            ReviewError::Records(e) => e.source(),
            ReviewError::ReadBack(e) => e.source(),
            ReviewError::Terminal(e) => e.source(),
            ReviewError::ReportTime { source, .. } | ReviewError::State(source) => Some(source),
            ReviewError::Json(e) => Some(e),
            _ => None,
        }
    }
}

/// `goldgate review`.
pub(crate) fn review(args: ReviewArgs, runner: Runner) -> ExitCode {
    match reviewed(args, runner) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{}", crate::render::inert(&format!("error: {e}")));
            Exit::Error.into()
        }
    }
}

fn reviewed(args: ReviewArgs, runner: Runner) -> Result<ExitCode, ReviewError> {
    let mut records = records(&args, &runner)?;
    // The newest run may be another folder's (or another project's): its tests are not these.
    let dir = crate::base::fs::by_its_words(&args.dir);
    let had = records.cases.len();
    records
        .cases
        .retain(|r| crate::base::fs::by_its_words(Path::new(&r.file)).starts_with(&dir));
    if had > 0 && records.cases.is_empty() {
        return Err(ReviewError::NoTestOf { dir: args.dir });
    }
    let rubrics = args
        .rubrics
        .clone()
        .unwrap_or_else(|| crate::load::discover::default_rubrics(&args.dir));
    let mut items = queue(&records.cases, &records.aggregates);
    let places = apply::places(&args.dir, &rubrics, &items).map_err(ReviewError::NoCases)?;
    // Each case's files read once, however many of its fields are in the queue.
    let mut golds: HashMap<String, Vec<GoldKeys>> = HashMap::new();
    for item in &mut items {
        if let Some(place) = places.get(&item.tests[0]) {
            item.document = place.document.clone();
            if let Some(field) = &item.field {
                let keys = golds
                    .entry(item.tests[0].clone())
                    .or_insert_with(|| place.gold_keys());
                item.gold_at = keys.iter().find_map(|k| k.at(field));
            }
        }
    }
    if args.list {
        if args.json {
            let text = serde_json::to_string_pretty(&items).map_err(ReviewError::Json)?;
            println!("{text}");
        } else {
            print!(
                "{}",
                crate::render::inert(&crate::render::queue_lines(&items))
            );
        }
        return Ok(Exit::Success.into());
    }
    let decisions = match (&args.accept, &args.variant, &args.bless) {
        (None, None, None) if args.all => return Err(ReviewError::AllOfNothing),
        (None, None, None) => match terminal::session(&items)? {
            Some(decisions) => decisions,
            None => return Ok(Exit::Success.into()),
        },
        _ => by_id(&args, &items)?,
    };
    let mut session = Session::new(
        &args.dir,
        args.rubrics.as_deref(),
        places,
        records.written_at,
        runner,
    );
    let mut done = session.apply(&items, &decisions, args.pipeline.as_deref());
    // Blessing everything writes every test's entry, not only the queue's.
    if args.all && args.bless.is_some() {
        done &= session.bless_every_test(args.pipeline.as_deref());
    }
    Ok(if done {
        Exit::Success.into()
    } else {
        Exit::Error.into()
    })
}

/// The decisions the command line names by id, every id checked first.
fn by_id(args: &ReviewArgs, items: &[Item]) -> Result<Vec<(usize, Action)>, ReviewError> {
    let mut decisions = Vec::new();
    for (action, ids) in [
        (Action::Accept, &args.accept),
        (Action::Variant, &args.variant),
        (Action::Bless, &args.bless),
    ] {
        let Some(ids) = ids else { continue };
        if ids.is_empty() {
            if !args.all {
                return Err(ReviewError::NoIds { action });
            }
            decisions.extend(
                (0..items.len())
                    .filter(|&i| action == Action::Bless || items[i].field.is_some())
                    .map(|i| (i, action)),
            );
            continue;
        }
        for id in ids {
            let Some(i) = items.iter().position(|item| &item.id == id) else {
                return Err(ReviewError::NoItem { id: id.clone() });
            };
            if action != Action::Bless && items[i].field.is_none() {
                return Err(ReviewError::NotAField { id: id.clone() });
            }
            decisions.push((i, action));
        }
    }
    Ok(decisions)
}

/// Where a test's case lies: the files its gold may be written in, its document.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// Where the gold's fields are, first first: (file, path to the fields), `["gold"]` in a
    /// case file, `[]` in a gold file. A case file beside a gold file of a `cases:` suite may
    /// override some of its fields.
    pub(crate) sources: Vec<(PathBuf, Vec<String>)>,
    /// The case's document.
    pub(crate) document: Option<String>,
}

impl Place {
    /// The file and path where `field` is written, and where in the file.
    pub(crate) fn of(
        &self,
        field: &str,
    ) -> Option<(PathBuf, Vec<String>, crate::base::location::Mark)> {
        self.sources.iter().find_map(|(file, prefix)| {
            let text = crate::base::fs::read_text(file).ok()?;
            let root: crate::spec::Node = crate::spec::parse_yaml(file, &text).ok()?;
            let mut node = &root;
            for key in prefix.iter().map(String::as_str).chain([field]) {
                node = &node.as_map()?.iter().find(|(k, _)| k == key)?.1;
            }
            Some((file.clone(), prefix.clone(), node.mark))
        })
    }

    /// The fields written in each of its sources, first first, each file read once.
    fn gold_keys(&self) -> Vec<GoldKeys> {
        self.sources
            .iter()
            .filter_map(|(file, prefix)| {
                let text = crate::base::fs::read_text(file).ok()?;
                let root: crate::spec::Node = crate::spec::parse_yaml(file, &text).ok()?;
                let mut node = &root;
                for key in prefix {
                    node = &node.as_map()?.iter().find(|(k, _)| k == key)?.1;
                }
                // The first of a key written twice, as `of` finds it.
                let mut marks = HashMap::new();
                for (k, v) in node.as_map()? {
                    marks.entry(k.to_string()).or_insert(v.mark);
                }
                Some(GoldKeys {
                    file: shown_path(file),
                    marks,
                })
            })
            .collect()
    }
}

/// The fields one gold source writes, and where.
struct GoldKeys {
    /// The file, as the user reads its path.
    file: String,
    marks: HashMap<String, crate::base::location::Mark>,
}

impl GoldKeys {
    fn at(&self, field: &str) -> Option<GoldPlace> {
        let mark = self.marks.get(field)?;
        Some(GoldPlace {
            file: self.file.clone(),
            line: mark.line,
            column: mark.column,
        })
    }
}

/// A path as the user reads it: from the current folder, `..` resolved.
fn shown_path(path: &Path) -> String {
    use crate::base::fs::{by_its_words, slashed};
    let words = by_its_words(path);
    let here = std::env::current_dir().map(|d| by_its_words(&d));
    match here.as_ref().map(|h| words.strip_prefix(h)) {
        Ok(Ok(relative)) => slashed(relative),
        _ => slashed(&words),
    }
}
