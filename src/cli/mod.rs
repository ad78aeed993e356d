//! Layer 8, the command line (clap): `goldgate test`, `score`, `calibrate`, `lint`, `schema`,
//! `init`, `report`, `review`. `main.rs` only calls [`main`].

pub mod agree;
mod cache;
pub mod cargo;
pub mod fuzz;
pub mod history;
pub mod init;
pub mod lint;
pub mod report;
pub mod review;
pub mod score;

use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::run::exit::Exit;

use crate::model::case::Profile;
use clap::{Parser, Subcommand};
use score::{PROFILES, ScoreError, TextPairs, calibrate_line, each_line_or, score_pair_in};

/// Test document-extraction outputs against YAML gold cases.
#[derive(Parser)]
#[command(name = "goldgate", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the cases as tests: goldgate test [DIR] [--rubrics DIR] [--report FILE] [libtest flags]
    #[command(disable_help_flag = true)]
    Test {
        /// DIR (default `cases`), then libtest's own flags and filter.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// EM and ANLS of one gold/prediction pair, or of every line of a JSONL file, as JSON.
    Score {
        /// The gold text.
        #[arg(required_unless_present = "jsonl")]
        gold: Option<String>,
        /// The predicted text.
        #[arg(required_unless_present = "jsonl")]
        pred: Option<String>,
        /// A file of `{"gold": ..., "pred": ...}` lines (`-` for standard input).
        #[arg(long, conflicts_with_all = ["gold", "pred"])]
        jsonl: Option<PathBuf>,
        /// The scoring profile.
        #[arg(long, default_value = "dream", value_parser = PROFILES)]
        profile: String,
    },
    /// Brier score and ECE of every `{"p": [...], "o": [...], "bins": M}` line, as JSON lines.
    Calibrate {
        /// The JSONL file (`-` for standard input).
        #[arg(long)]
        jsonl: PathBuf,
    },
    /// Print the JSON Schema (draft-07) of case files, rubric sets, suite files, the JSON report or the review queue.
    Schema {
        /// `case`, `rubrics`, `suite`, `report` (the JSON report: the records of a run), or
        /// `review` (the queue `goldgate review --list --json` prints).
        #[arg(long, default_value = "case", value_parser = ["case", "rubrics", "suite", "report", "review"])]
        kind: String,
    },
    /// Set up goldgate in the crate of the current folder: dev-dependency, test target,
    /// tests/goldgate.rs, the schemas, an example case and rubric set. Never overwrites a file.
    ///
    /// goldgate is not on crates.io: say where it is with --path or --git.
    Init {
        /// Depend on the goldgate checkout in this folder (written as given; a relative path is
        /// read from the crate's folder).
        #[arg(long, value_name = "DIR", conflicts_with = "git")]
        path: Option<PathBuf>,
        /// Depend on goldgate from this git repository.
        #[arg(long, value_name = "URL")]
        git: Option<String>,
        /// With --git: the branch to take.
        #[arg(long, requires = "git", conflicts_with_all = ["tag", "rev"])]
        branch: Option<String>,
        /// With --git: the tag to take.
        #[arg(long, requires = "git", conflicts_with = "rev")]
        tag: Option<String>,
        /// With --git: the commit to take.
        #[arg(long, requires = "git")]
        rev: Option<String>,
    },
    /// Load every case and prediction, run nothing, print every mistake (exit 1 if any).
    Lint {
        /// The cases folder.
        #[arg(default_value = "cases")]
        dir: PathBuf,
        /// The rubric sets folder (default: the nearest `rubrics` above DIR, up to the project root).
        #[arg(long)]
        rubrics: Option<PathBuf>,
        /// Print one case as its suites and its own keys make it: its thresholds and rubrics,
        /// each with the file it comes from, its fields rules, critical fields, and each
        /// pipeline's prediction and prediction_format. CASE is its test name (`invoices/acme`,
        /// or `invoices/acme::gpt` for one pipeline) or its file's path.
        #[arg(long, value_name = "CASE")]
        explain: Option<String>,
    },
    /// goldgate's rubric verdicts and scores beside people's: agreement, Cohen's kappa, balanced
    /// F1, confusion; Spearman, Kendall and Pearson between grades and scores; the disagreements.
    Agree {
        /// People's labels, one JSON object a line: `{"test", "rubric", "held"}` or `{"test", "rating"}`.
        #[arg(long = "human", value_name = "LABELS.jsonl")]
        human: PathBuf,
        /// The cases folder.
        #[arg(default_value = "cases")]
        dir: PathBuf,
        /// The rubric sets folder (default: the nearest `rubrics` above DIR, up to the project root).
        #[arg(long)]
        rubrics: Option<PathBuf>,
        /// Print the same as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Each pipeline's trend in its suite's run history (`history:`): a line per run and a
    /// sparkline of its headline metric; runs on other gold are marked not comparable.
    History {
        /// The cases folder.
        #[arg(default_value = "cases")]
        dir: PathBuf,
        /// Print the trends as JSON.
        #[arg(long)]
        json: bool,
        /// Also write an offline HTML page with a chart per pipeline.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
    /// The end of a run (summary, comparison of pipelines, regressions, improvements) from its
    /// report, or from the reports of its shards, merged.
    Report {
        /// Report files (`GOLDGATE_REPORT`, `--report`): one, or one per shard of a run.
        #[arg(required_unless_present_any = ["compare", "run", "last"], conflicts_with_all = ["run", "last"])]
        files: Vec<PathBuf>,
        /// The run whose records to read: nextest's run id, or `GOLDGATE_RUN_ID`.
        #[arg(long, value_name = "ID", conflicts_with = "last")]
        run: Option<String>,
        /// The newest run's records.
        #[arg(long)]
        last: bool,
        /// Compare two runs, each a report file or a run id: each pipeline and each test, HEAD
        /// against BASE, with confidence.
        #[arg(long, num_args = 2, value_names = ["BASE", "HEAD"], conflicts_with_all = ["files", "output", "html", "junit", "run", "last"])]
        compare: Option<Vec<PathBuf>>,
        /// With `--compare`: print the comparison as JSON (the same groups and tests as the text).
        #[arg(long, requires = "compare", conflicts_with = "markdown")]
        json: bool,
        /// With `--compare`: write a pull-request comment (GitHub Markdown, at most 65,536
        /// characters, regressions first).
        #[arg(long, requires = "compare")]
        markdown: bool,
        /// With `--markdown`: the page the comment links to for the rows it leaves out (the
        /// run's HTML page, as CI publishes it).
        #[arg(long, value_name = "URL", requires = "markdown")]
        page_url: Option<String>,
        /// Write the merged report there.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// Write the run's HTML page there.
        #[arg(long)]
        html: Option<PathBuf>,
        /// Write the run's JUnit XML there.
        #[arg(long)]
        junit: Option<PathBuf>,
    },
    /// The kept outputs of the suites' `run:` commands (`run.cache`): prune them by age or
    /// size, or clear them.
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Review the last run's failures and bless, correct or extend the gold in place: on a
    /// terminal one key an item, or by id for scripts (--list, --accept, --variant, --bless).
    #[command(after_help = review::AFTER_HELP)]
    Review(review::ReviewArgs),
}

#[derive(Subcommand)]
enum CacheAction {
    /// Remove the outputs not used for a while, then the least recently used ones beyond a size.
    Prune {
        /// The folder whose cache folders to prune (every folder holding goldgate's marker,
        /// `goldgate-cache.json`, under it; `target` and hidden folders but `.goldgate` skipped).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Remove the outputs not written or used for this many days.
        #[arg(long, value_name = "DAYS", default_value_t = 30)]
        older_than: u64,
        /// Then keep at most this many megabytes in each folder, the least recently used removed first.
        #[arg(long, value_name = "MB")]
        max_mb: Option<u64>,
    },
    /// Remove every kept output (the next run calls every command again).
    Clear {
        /// The folder whose cache folders to clear.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
}

/// `goldgate cache prune|clear`.
fn tidy_cache(action: CacheAction) -> ExitCode {
    let (dir, what) = match action {
        CacheAction::Prune {
            dir,
            older_than,
            max_mb,
        } => (
            dir,
            cache::Tidy::Prune {
                older_than: std::time::Duration::from_secs(older_than.saturating_mul(24 * 3600)),
                max_bytes: max_mb.map(|mb| mb.saturating_mul(1024 * 1024)),
            },
        ),
        CacheAction::Clear { dir } => (dir, cache::Tidy::Clear),
    };
    printed(cache::tidy(&dir, &what))
}

/// Turns transparent huge pages off for this process, not for the commands it starts (a
/// pipeline's `run:`, `cargo`, `git`), which get back what it had: what the `goldgate` binary
/// does for its allocator before it runs [`main`].
pub use crate::base::huge_pages::turn_off as no_huge_pages;

/// The `goldgate` command line: parses the process's arguments and runs the subcommand.
pub fn main() -> ExitCode {
    crate::run::harness::end_quietly_when_the_reader_leaves();
    let cli = Cli::parse();
    match cli.command {
        Command::Test { args } => test(args),
        Command::Score {
            gold,
            pred,
            jsonl,
            profile,
        } => score(gold, pred, jsonl, &profile),
        Command::Calibrate { jsonl } => lines(&jsonl, |_, _, _| None, calibrate_line),
        Command::Cache { action } => tidy_cache(action),
        Command::Lint {
            dir,
            rubrics,
            explain: Some(case),
        } => explain(&dir, rubrics, &case),
        Command::Lint { dir, rubrics, .. } => lint(&dir, rubrics),
        Command::Agree {
            human,
            dir,
            rubrics,
            json,
        } => {
            let rubrics = rubrics.unwrap_or_else(|| crate::load::discover::default_rubrics(&dir));
            printed(agree::agree(&human, &dir, &rubrics, json))
        }
        Command::History { dir, json, html } => {
            printed(history::history(&dir, json, html.as_deref()))
        }
        Command::Report {
            compare: Some(runs),
            json,
            markdown,
            page_url,
            ..
        } => compare(&runs, json, markdown, page_url),
        Command::Report {
            files,
            run,
            last,
            output,
            html,
            junit,
            ..
        } => reported(report::report(
            &match (run, last) {
                (Some(id), _) => report::Source::Run(id),
                (None, true) => report::Source::Last,
                (None, false) => report::Source::Files(files),
            },
            crate::run::outputs::Outputs {
                report: output,
                junit,
                html,
                step_summary: None,
            },
        )),
        Command::Init {
            path,
            git,
            branch,
            tag,
            rev,
        } => init_here(path, git, [branch, tag, rev]),
        Command::Review(args) => review::review(args, review::Runner::Goldgate),
        Command::Schema { kind } => {
            print!("{}", schema(&kind));
            Exit::Success.into()
        }
    }
}

/// `score GOLD PRED` (one pair) or `score --jsonl FILE` (a pair a line).
fn score(
    gold: Option<String>,
    pred: Option<String>,
    jsonl: Option<PathBuf>,
    profile: &str,
) -> ExitCode {
    match (gold, pred, jsonl) {
        (Some(gold), Some(pred), None) => printed(
            score_pair_in(
                profile_of(profile),
                &serde_json::Value::String(gold),
                &serde_json::Value::String(pred),
            )
            .map(|v| format!("{v}\n"))
            .map_err(|e| e.to_string()),
        ),
        (_, _, Some(file)) => score_lines(&file, profile_of(profile)),
        _ => usage("give GOLD and PRED, or --jsonl FILE"),
    }
}

/// `report --compare BASE HEAD`, as text, JSON or a pull-request comment.
fn compare(runs: &[PathBuf], json: bool, markdown: bool, page_url: Option<String>) -> ExitCode {
    let format = match (json, markdown) {
        (true, _) => report::CompareFormat::Json,
        (_, true) => report::CompareFormat::Markdown { page_url },
        _ => report::CompareFormat::Text,
    };
    printed(report::compare_runs(&runs[0], &runs[1], &format))
}

/// `goldgate init` in the current folder: goldgate from a path, or from a git URL pinned by
/// the first of its branch, tag and revision given.
fn init_here(
    path: Option<PathBuf>,
    git: Option<String>,
    [branch, tag, rev]: [Option<String>; 3],
) -> ExitCode {
    use init::{GitPin, Source};
    let pin = [
        (GitPin::Branch, branch),
        (GitPin::Tag, tag),
        (GitPin::Rev, rev),
    ]
    .into_iter()
    .find_map(|(pin, value)| Some((pin, value?)));
    let source = match (path, git) {
        (Some(path), _) => Some(Source::Path(path)),
        (None, Some(url)) => Some(Source::Git { url, pin }),
        (None, None) => None,
    };
    printed(init::init(std::path::Path::new("."), source.as_ref()).map(|r| r.to_string()))
}

fn explain(dir: &std::path::Path, rubrics: Option<PathBuf>, case: &str) -> ExitCode {
    let rubrics = rubrics.unwrap_or_else(|| crate::load::discover::default_rubrics(dir));
    match lint::explain(dir, &rubrics, case) {
        Ok(text) => {
            // A CI log reads workflow commands here too: a hostile file name or value is inert.
            print!("{}", crate::render::inert(&text));
            Exit::Success.into()
        }
        Err(errors) => {
            for error in &errors {
                println!("{}", crate::render::inert(&format!("error: {error}")));
            }
            Exit::Error.into()
        }
    }
}

fn lint(dir: &std::path::Path, rubrics: Option<PathBuf>) -> ExitCode {
    let rubrics = rubrics.unwrap_or_else(|| crate::load::discover::default_rubrics(dir));
    match lint::lint(dir, &rubrics) {
        Err(no_cases) => fail(&no_cases.0),
        Ok(found) => {
            for error in &found.errors {
                // A CI log reads workflow commands here too: a hostile file name or value is inert.
                println!("{}", crate::render::inert(&format!("error: {error}")));
            }
            let n = found.errors.len();
            println!(
                "lint: {} case files, {n} error{}",
                found.cases,
                if n == 1 { "" } else { "s" }
            );
            if n == 0 {
                Exit::Success.into()
            } else {
                Exit::Error.into()
            }
        }
    }
}

/// clap has already checked the name against `PROFILES`.
fn profile_of(name: &str) -> Profile {
    Profile::from_name(name).unwrap_or_default()
}

/// `f` (after `quick`, see [`each_line_or`]) on every line of `file`, `-` for standard input;
/// a line `f` refuses is answered with its error's message.
fn lines(
    file: &PathBuf,
    quick: impl FnMut(&[u8], bool, &mut Vec<u8>) -> Option<usize>,
    f: impl Fn(&serde_json::Value) -> Result<serde_json::Value, ScoreError>,
) -> ExitCode {
    let name = file.display().to_string();
    let input: Box<dyn std::io::BufRead> = if name == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(file) {
            Ok(f) => Box::new(BufReader::with_capacity(1 << 16, f)),
            Err(e) => return fail(&format!("cannot read `{name}`: {e}")),
        }
    };
    match each_line_or(input, std::io::stdout().lock(), &name, quick, f) {
        Ok(true) => Exit::Success.into(),
        Ok(false) => Exit::Error.into(),
        Err(e) => fail(&format!("cannot read `{name}`: {e}")),
    }
}

/// Splits `goldgate test` arguments: DIR, goldgate's own options, and the rest for libtest.
fn test(args: Vec<String>) -> ExitCode {
    // `args` has no program name in front: `asked` skips the first argument.
    if crate::run::help::asked(&[&["goldgate test".to_owned()], &args[..]].concat()) {
        print!("{TEST_HELP}\n{}", crate::run::help::FLAGS_AND_ENVIRONMENT);
        return Exit::Success.into();
    }
    let asked = match TestArgs::read(args) {
        Ok(asked) => asked,
        Err(Misused(why)) => return usage(&why),
    };
    let dir = asked.dir.unwrap_or_else(|| PathBuf::from("cases"));
    let quote = |p: &PathBuf| crate::base::shell::shell_quote(&p.to_string_lossy());
    let mut invocation = format!("goldgate test {}", quote(&dir));
    if let Some(r) = &asked.rubrics {
        invocation.push_str(&format!(" --rubrics {}", quote(r)));
    }
    let mut harness = crate::run::harness::Harness::new(dir)
        .args(asked.rest)
        .invocation(invocation);
    if let Some(r) = asked.rubrics {
        harness = harness.rubrics(r);
    }
    if let Some(r) = asked.report {
        harness = harness.report(r);
    }
    if let Some(j) = asked.junit {
        harness = harness.junit(j);
    }
    if let Some(h) = asked.html {
        harness = harness.html(h);
    }
    if let Some(on) = asked.annotations {
        harness = harness.github_annotations(on);
    }
    harness.run()
}

/// The arguments of `goldgate test`: its folder, goldgate's own options, and libtest's.
#[derive(Default)]
struct TestArgs {
    dir: Option<PathBuf>,
    rubrics: Option<PathBuf>,
    report: Option<PathBuf>,
    junit: Option<PathBuf>,
    html: Option<PathBuf>,
    annotations: Option<bool>,
    /// libtest's, behind the program name it prints.
    rest: Vec<String>,
}

/// A `goldgate test` argument misused: what the usage line follows.
struct Misused(String);

impl TestArgs {
    fn read(args: Vec<String>) -> Result<TestArgs, Misused> {
        // libtest flags that take a value: their value is not DIR.
        const VALUED: [&str; 8] = [
            "--fail-on",
            "--pipeline",
            "--test-threads",
            "--skip",
            "--format",
            "--color",
            "--logfile",
            "-Z",
        ];
        let mut asked = TestArgs {
            rest: vec!["goldgate test".to_owned()],
            ..TestArgs::default()
        };
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
                _ => (arg.clone(), None),
            };
            match flag.as_str() {
                "--rubrics" | "--report" | "--junit" | "--html" => {
                    let Some(value) = inline.or_else(|| it.next()) else {
                        return Err(Misused(format!("`{flag}` needs a value")));
                    };
                    let slot = match flag.as_str() {
                        "--rubrics" => &mut asked.rubrics,
                        "--report" => &mut asked.report,
                        "--junit" => &mut asked.junit,
                        _ => &mut asked.html,
                    };
                    *slot = Some(PathBuf::from(value));
                }
                "--annotations" => match inline.or_else(|| it.next()).as_deref() {
                    Some("github") => asked.annotations = Some(true),
                    Some("none") => asked.annotations = Some(false),
                    other => {
                        return Err(Misused(format!(
                            "`--annotations` takes `github` or `none`, not `{}`",
                            other.unwrap_or("")
                        )));
                    }
                },
                f if VALUED.contains(&f) && inline.is_none() => {
                    asked.rest.push(arg);
                    asked.rest.extend(it.next());
                }
                _ if !arg.starts_with('-') && asked.dir.is_none() => {
                    asked.dir = Some(PathBuf::from(arg));
                }
                _ => asked.rest.push(arg),
            }
        }
        Ok(asked)
    }
}

/// goldgate's own flags of `goldgate test`, before libtest's.
const TEST_HELP: &str = "\
Runs every YAML case under DIR as a test, and one aggregate test per suite and pipeline.

Usage: goldgate test [DIR] [OPTIONS] [FILTER]

Arguments:
  [DIR]                     The cases folder (default: cases)

Options:
      --rubrics DIR         The rubric sets folder (default: the nearest `rubrics` folder above DIR)
      --report FILE         Write the JSON report there after the run (as GOLDGATE_REPORT)
      --junit FILE          Write JUnit XML there (as GOLDGATE_JUNIT)
      --html FILE           Write the run's HTML page there (as GOLDGATE_HTML)
      --annotations WHEN    github: GitHub Actions annotations of the failures; none: never
                            (default: github when GITHUB_ACTIONS=true)
  -h, --help                Print this help
";

fn usage(message: &str) -> ExitCode {
    eprintln!(
        "error: {message}\n\nUsage: goldgate test [DIR] [--rubrics DIR] [--report FILE] [--junit FILE] [--html FILE] [--annotations github] [libtest flags]"
    );
    Exit::Usage.into()
}

/// `goldgate score --jsonl FILE`: a line of scores for each line of gold and prediction.
fn score_lines(file: &PathBuf, profile: Profile) -> ExitCode {
    // The common line, two texts in the default profile, is read and scored without building
    // its JSON tree; any other goes the general way.
    let mut pairs = TextPairs::default();
    let quick = |held: &[u8], whole: bool, out: &mut Vec<u8>| {
        (profile == Profile::Dream)
            .then(|| pairs.score(held, whole, out))
            .flatten()
    };
    lines(file, quick, |j| {
        // `gt` is the anls-star reference's name for gold.
        let gold = j
            .get("gold")
            .or_else(|| j.get("gt"))
            .ok_or(ScoreError::NoGold)?;
        let pred = j.get("pred").ok_or(ScoreError::NoPred)?;
        score_pair_in(profile, gold, pred)
    })
}

/// The end of a run `goldgate report` made: a run that did not run every test it listed fails.
fn reported(result: Result<report::Reported, impl std::fmt::Display>) -> ExitCode {
    match result {
        Ok(r) if !r.complete => {
            let _ = printed(Ok::<_, &str>(r.text));
            Exit::TestFailed.into()
        }
        Ok(r) => printed(Ok::<_, &str>(r.text)),
        Err(e) => fail(&e.to_string()),
    }
}

/// What a subcommand made, printed (exit 0), or its error (exit 1): the typed errors of the
/// subcommands become their messages here.
fn printed(result: Result<String, impl std::fmt::Display>) -> ExitCode {
    match result {
        Ok(text) => {
            use std::io::Write;
            let mut out = anstream::stdout();
            let _ = write!(out, "{}", crate::render::inert(&text));
            Exit::Success.into()
        }
        Err(e) => fail(&e.to_string()),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("{}", crate::render::inert(&format!("error: {message}")));
    Exit::Error.into()
}

/// The JSON Schema of a kind of file (`case`, `rubrics`, `suite`, `report` or `review`; anything else: `case`), as
/// `goldgate schema --kind KIND` prints it.
pub fn schema(kind: &str) -> String {
    let kind = match kind {
        "rubrics" | "suite" | "report" | "review" => kind,
        _ => "case",
    };
    if kind == "report" || kind == "review" {
        let generator = schemars::generate::SchemaSettings::draft07().into_generator();
        let schema = if kind == "report" {
            generator.into_root_schema_for::<crate::record::Report>()
        } else {
            generator.into_root_schema_for::<Vec<crate::review::Item>>()
        };
        let mut json = serde_json::to_value(&schema).unwrap_or_default();
        identify(&mut json, kind);
        let mut text = serde_json::to_string_pretty(&json).unwrap_or_default();
        text.push('\n');
        return text;
    }
    use crate::spec::schema::{Kind, derived};
    let mut json = derived(match kind {
        "rubrics" => Kind::Rubrics,
        "suite" => Kind::Suite,
        _ => Kind::Case,
    });
    loader_rules(&mut json);
    identify(&mut json, kind);
    let mut text = serde_json::to_string_pretty(&json).unwrap_or_default();
    text.push('\n');
    text
}

/// Gives a schema its `$id`, after `$schema`: one name per kind and goldgate version, so that a
/// copy in a user's project says which goldgate wrote it. goldgate has no web address of its
/// own, so the name is a URN rather than a URL nothing answers at.
fn identify(schema: &mut serde_json::Value, kind: &str) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    let id = format!("urn:goldgate:{}:schema:{kind}", env!("CARGO_PKG_VERSION"));
    let mut identified = serde_json::Map::new();
    for (key, value) in std::mem::take(object) {
        let after = key == "$schema";
        identified.insert(key, value);
        if after {
            identified.insert("$id".to_owned(), id.clone().into());
        }
    }
    if !identified.contains_key("$id") {
        identified.insert("$id".to_owned(), id.into());
    }
    *object = identified;
}

/// What the schema can say of the loader's own rules, so that an editor flags them too: the
/// bounds of every threshold (from the table of metrics), and exactly one check per rubric (or
/// an `include`).
fn loader_rules(schema: &mut serde_json::Value) {
    use crate::model::metric::{Metric, Range};
    use crate::model::rubric::Check;
    for defs in ["definitions", "$defs"] {
        let Some(defs) = schema.get_mut(defs).and_then(|d| d.as_object_mut()) else {
            continue;
        };
        for bounds in ["ThresholdsSpec", "AggregateSpec", "PipelineAggregateSpec"] {
            let Some(props) = defs
                .get_mut(bounds)
                .and_then(|t| t.get_mut("properties"))
                .and_then(|p| p.as_object_mut())
            else {
                continue;
            };
            for metric in Metric::ALL {
                let Some(prop) = props.get_mut(metric.threshold_key()) else {
                    continue;
                };
                let limits = match metric.about().range {
                    Range::Unit => serde_json::json!({"minimum": 0, "maximum": 1}),
                    Range::Count => serde_json::json!({"minimum": 0, "multipleOf": 1}),
                    Range::NonNegative => serde_json::json!({"minimum": 0}),
                };
                if let (Some(prop), Some(limits)) = (prop.as_object_mut(), limits.as_object()) {
                    prop.extend(limits.clone());
                }
            }
        }
        if let Some(entry) = defs.get_mut("RubricEntry").and_then(|e| e.as_object_mut()) {
            let one_of: Vec<serde_json::Value> = std::iter::once("include")
                .chain(Check::KEYS)
                .map(|key| serde_json::json!({"required": [key]}))
                .collect();
            entry.insert("oneOf".into(), serde_json::Value::Array(one_of));
        }
    }
}

/// The case files under `dir` that load without error (rubric sets from `rubrics` beside it).
pub fn loading_case_files(
    dir: &std::path::Path,
) -> Result<Vec<PathBuf>, crate::load::discover::NoCases> {
    let found = crate::load::discover::discover(dir)?;
    let rubrics = crate::load::discover::default_rubrics(dir);
    let mut files: Vec<PathBuf> = crate::load::load_folder(&found, dir, &rubrics, |_| true)
        .into_iter()
        .filter(|e| e.loaded.is_ok())
        .map(|e| e.file)
        .collect();
    files.dedup();
    Ok(files)
}

/// Loads every case under `dir`, reads its recorded prediction (commands are not run) and
/// evaluates it: the whole path of a test but for the harness, for the benchmark. Returns how
/// many cases were evaluated.
pub fn evaluate_folder(dir: &std::path::Path) -> Result<usize, crate::load::discover::NoCases> {
    let found = crate::load::discover::discover(dir)?;
    let rubrics = crate::load::discover::default_rubrics(dir);
    let mut evaluated = 0;
    for entry in crate::load::load_folder(&found, dir, &rubrics, |_| true) {
        if let Ok(case) = entry.loaded
            && let Ok(p) = crate::load::prediction::read_prediction(&case.prediction, &case.file)
        {
            std::hint::black_box(crate::evaluate::evaluate(&case, &p));
            evaluated += 1;
        }
    }
    Ok(evaluated)
}
