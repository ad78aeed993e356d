//! `goldgate init`: a starter layout inside an existing crate.
//!
//! It adds goldgate as a dev-dependency and the `[[test]]` target to Cargo.toml, editing the
//! manifest with toml_edit so that its comments, order and formatting stay as they were, and
//! creates `tests/goldgate.rs`, the JSON schemas of the files a user writes (`schema/`), one
//! example case with its prediction and the rubric set that case includes, each pointing its
//! editor at its schema. It never overwrites a file and never replaces an entry, so running it
//! twice changes nothing; every step it skips is reported with the reason.
//!
//! goldgate is not published on crates.io, so the dependency says where it is: a checkout
//! (`--path`) or a repository (`--git`). Without either, init writes nothing and says so: a
//! `goldgate = "0.1"` would leave a manifest that does not resolve.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use toml_edit::{ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike, Value, value};

/// The name of the dependency, of the test target and of its file.
const GOLDGATE: &str = "goldgate";

/// Where the dependency comes from: what `--path` or `--git` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A goldgate checkout, written as given (Cargo reads a relative path from the manifest's
    /// folder, which is the folder init runs in).
    Path(PathBuf),
    /// A git repository, with the branch, tag or commit to take, if one is named.
    Git {
        /// The repository's URL (`https://…`, `ssh://…`, `file://…`).
        url: String,
        /// `branch`, `tag` or `rev`, and its value.
        pin: Option<(GitPin, String)>,
    },
}

/// Which of a repository's references a git dependency takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GitPin {
    /// `branch = "…"`.
    Branch,
    /// `tag = "…"`.
    Tag,
    /// `rev = "…"`, a commit.
    Rev,
}

impl GitPin {
    fn key(self) -> &'static str {
        match self {
            GitPin::Branch => "branch",
            GitPin::Tag => "tag",
            GitPin::Rev => "rev",
        }
    }
}

/// The schemas copied into the project: (kind, path in the crate).
const SCHEMAS: [(&str, &str); 3] = [
    ("case", "schema/case.schema.json"),
    ("rubrics", "schema/rubrics.schema.json"),
    ("suite", "schema/suite.schema.json"),
];

/// The test target's file, where a `[[test]]` without `path` looks for it.
const HARNESS_PATH: &str = "tests/goldgate.rs";

const HARNESS: &str = r#"//! Runs every YAML case under cases/ as a test: `cargo test --test goldgate`.

fn main() -> std::process::ExitCode {
    goldgate::Harness::new("cases").rubrics("rubrics").run()
}
"#;

/// The example case, its prediction and the rubric set it includes: (path in the crate, text).
const EXAMPLE: [(&str, &str); 5] = [
    ("cases/suite.yaml", EXAMPLE_SUITE),
    ("cases/baseline.json", EXAMPLE_BASELINE),
    ("cases/example-invoice.yaml", EXAMPLE_CASE),
    ("cases/outputs/example-invoice.json", EXAMPLE_PREDICTION),
    ("rubrics/invoice-basics.yaml", EXAMPLE_RUBRICS),
];

/// The suite of the cases: a baseline, and a CI gate that fails on what got worse than it, so
/// that the cases a pipeline already gets wrong do not turn every run red.
const EXAMPLE_SUITE: &str = r#"# yaml-language-server: $schema=../schema/suite.schema.json
# Settings for every case below this folder. The baseline keeps each test's last accepted numbers,
# its verdict and the rules it failed; `fail_on: regressions` fails a run on what got worse than it
# (a test that passed and fails now, a field it lost, a rule it breaks anew). A test that fails as
# its entry says is a known failure: it fails nothing, and the run's last line counts it.
# Accept a run's numbers as the baseline: GOLDGATE_UPDATE=always cargo test --test goldgate
baseline: baseline.json
fail_on: regressions
"#;

/// The baseline, empty: every test is new, judged by its own rules, until it is blessed.
const EXAMPLE_BASELINE: &str = "{\n  \"goldgate_baseline\": 1,\n  \"cases\": {}\n}\n";

const EXAMPLE_CASE: &str = r#"# yaml-language-server: $schema=../schema/case.schema.json
# An example case: one invoice, the values the extraction must find, the checks that matter and
# the bars to clear. Every YAML file under cases/ is one test named by its path without extension
# (this one is `example-invoice`): `cargo test --test goldgate`. The prediction is what your
# pipeline wrote for this document. Replace both with your own documents and outputs.
description: Northwind Traders, invoice INV-2024-0042 to Contoso Pharmaceuticals
tags: [invoice, example]
prediction: outputs/example-invoice.json   # relative to this file; or an inline mapping

gold:
  invoice_number: INV-2024-0042
  issue_date:
    any_of: [2024-05-14, 05/14/2024, "May 14, 2024"]   # accepted variants: the best one counts
  supplier: Northwind Traders Ltd.
  customer: Contoso Pharmaceuticals
  subtotal: 1250.00                 # compared as written: the text "1250.00"
  tax: 250.00
  total: 1500.00
  currency: USD
  iban: null                        # none is printed: must be absent, null or empty

critical: [invoice_number, total]

fields:
  subtotal: { compare: number }     # read as amounts: "$1,250.00" equals 1250.00
  tax: { compare: number }
  total: { compare: number }

rubrics:
  - include: invoice-basics         # every rubric of rubrics/invoice-basics.yaml
  - must_right: the total is the amount due, tax included
    field: total
    exact: true
  - easy_wrong: the currency is an ISO 4217 code
    field: currency
    matches: '^[A-Z]{3}$'
    penalty: 0.1

thresholds:
  min_score: 1.0                    # the gate is open and no Easy-Wrong rubric failed
  min_exact_match: 0.85             # 8 of 9 fields exact: the supplier lost its final period
  min_anls: 0.95
  min_exact_critical: 1.0
  max_brier: 0.1                    # over the fields that carry a confidence
"#;

const EXAMPLE_PREDICTION: &str = r#"{
  "fields": {
    "invoice_number": { "value": "INV-2024-0042", "confidence": 0.98 },
    "issue_date": { "value": "05/14/2024", "confidence": 0.93 },
    "supplier": { "value": "Northwind Traders Ltd", "confidence": 0.35 },
    "customer": { "value": "Contoso Pharmaceuticals", "confidence": 0.9 },
    "subtotal": "$1,250.00",
    "tax": "$250.00",
    "total": { "value": "$1,500.00", "confidence": 0.96 },
    "currency": "USD"
  },
  "model": "example-model"
}
"#;

const EXAMPLE_RUBRICS: &str = r#"# yaml-language-server: $schema=../schema/rubrics.schema.json
# Checks every invoice must pass, shared by the cases that say `- include: invoice-basics`.
rubrics:
  - must_right: an invoice number is extracted
    field: invoice_number
    present: true
  - must_right: the invoice number is the one printed (leading zeros included)
    field: invoice_number
    exact: true
  - easy_wrong: the supplier is recognisable
    field: supplier
    min_anls: 0.8
  - easy_wrong: an issue date is extracted
    field: issue_date
    present: true
"#;

/// What `init` did, file by file, for the command to print.
///
/// One line per step, in order: `added goldgate to [dev-dependencies] in Cargo.toml`,
/// `created tests/goldgate.rs`, `skipped cases/example-invoice.yaml: it exists`, …
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitReport {
    /// What was added, created or skipped, and why it was skipped.
    pub lines: Vec<String>,
}

impl fmt::Display for InitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.lines {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// Why `init` stopped. Nothing is written before the manifest has been read and checked.
///
/// The cause, when there is one, is part of the message.
#[derive(Debug)]
pub enum InitError {
    /// The folder has no Cargo.toml.
    NoManifest {
        /// The folder `init` was run in.
        dir: PathBuf,
    },
    /// Cargo.toml does not parse.
    NotToml {
        /// The manifest.
        file: PathBuf,
        /// The parser's message, with the line and column.
        cause: String,
    },
    /// Cargo.toml is a virtual workspace manifest: it has no `[package]` to test.
    NotAPackage {
        /// The manifest.
        file: PathBuf,
    },
    /// An entry `init` must read or extend has another shape (`dev-dependencies = 1`).
    BadEntry {
        /// The manifest.
        file: PathBuf,
        /// The key (`dev-dependencies`, `test`).
        key: &'static str,
        /// What it should be (`a table`).
        expected: &'static str,
    },
    /// The manifest needs a goldgate dependency and neither `--path` nor `--git` says where
    /// goldgate is.
    NoSource {
        /// The checkout this goldgate was built from, when it is still there to suggest.
        built_from: Option<PathBuf>,
    },
    /// `--path` names a folder that is not a goldgate checkout.
    NotGoldgate {
        /// The path given.
        path: PathBuf,
        /// What is there instead (`it has no Cargo.toml`, `its Cargo.toml is package `x``).
        found: String,
    },
    /// `--git` is not a URL Cargo takes.
    NotAUrl {
        /// What was given.
        url: String,
    },
    /// The goldgate path is not UTF-8, which Cargo.toml cannot hold.
    PathNotUtf8 {
        /// The path given.
        path: PathBuf,
    },
    /// Reading or writing a file failed.
    Io {
        /// What was being done (`read`, `write`, `create`).
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        cause: io::Error,
    },
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitError::NoManifest { dir } => write!(
                f,
                "no Cargo.toml in `{}`: run goldgate init inside a crate",
                dir.display()
            ),
            InitError::NotToml { file, cause } => {
                write!(f, "`{}` is not valid TOML: {cause}", file.display())
            }
            InitError::NotAPackage { file } => write!(
                f,
                "`{}` has no [package]: run goldgate init inside a member crate, not at the \
                 workspace root",
                file.display()
            ),
            InitError::BadEntry {
                file,
                key,
                expected,
            } => write!(
                f,
                "`{}`: `{key}` is not {expected}: fix it, then run goldgate init again",
                file.display()
            ),
            InitError::NoSource { built_from } => {
                write!(
                    f,
                    "init cannot know where goldgate lives: it is not published on crates.io, so \
                     `{GOLDGATE} = \"0.1\"` would leave a Cargo.toml that does not resolve. Say \
                     where it is: `goldgate init --path DIR` (a goldgate checkout on this \
                     machine) or `goldgate init --git URL` (its repository, with `--branch`, \
                     `--tag` or `--rev` to pin it). Nothing was written"
                )?;
                match built_from {
                    Some(dir) => write!(
                        f,
                        ".\nThis goldgate was built from `{0}`: `goldgate init --path {0}`",
                        dir.display()
                    ),
                    None => Ok(()),
                }
            }
            InitError::NotGoldgate { path, found } => write!(
                f,
                "`{}` is not a goldgate checkout: {found}. Give `--path` the folder that holds \
                 goldgate's Cargo.toml. Nothing was written",
                path.display()
            ),
            InitError::NotAUrl { url } => write!(
                f,
                "`{url}` is not a URL Cargo can fetch: give `--git` one such as \
                 `https://host/owner/goldgate.git`, `ssh://git@host/owner/goldgate.git` or \
                 `file:///path/to/goldgate`. Nothing was written"
            ),
            InitError::PathNotUtf8 { path } => write!(
                f,
                "the goldgate path `{}` is not UTF-8, which Cargo.toml cannot hold: give another path",
                path.display()
            ),
            InitError::Io {
                action,
                path,
                cause,
            } => write!(f, "cannot {action} `{}`: {cause}", path.display()),
        }
    }
}

impl std::error::Error for InitError {}

/// Sets up goldgate in the crate at `crate_dir`; never overwrites, so running it again is a no-op.
///
/// The dev-dependency is `goldgate = { path = "…" }` with the path written as given (Cargo
/// reads a relative path from the manifest's folder, `crate_dir`), or `goldgate = { git = "…" }`.
/// When the manifest has no goldgate dependency and `source` is `None`, nothing is written:
/// [`InitError::NoSource`].
pub fn init(crate_dir: &Path, source: Option<&Source>) -> Result<InitReport, InitError> {
    let manifest = crate_dir.join("Cargo.toml");
    let text = match fs::read_to_string(&manifest) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(InitError::NoManifest {
                dir: crate_dir.to_path_buf(),
            });
        }
        Err(cause) => return Err(io_error("read", &manifest, cause)),
    };
    let mut doc = text
        .parse::<DocumentMut>()
        .map_err(|e| InitError::NotToml {
            file: manifest.clone(),
            cause: e.to_string().trim_end().to_owned(),
        })?;
    let dependency = source.map(|s| dependency(crate_dir, s)).transpose()?;

    let mut report = InitReport::default();
    let bad = |key, expected| InitError::BadEntry {
        file: manifest.clone(),
        key,
        expected,
    };
    let package = doc.get("package").ok_or_else(|| InitError::NotAPackage {
        file: manifest.clone(),
    })?;
    let package = package
        .as_table_like()
        .ok_or_else(|| bad("package", "a table"))?;
    if package.get("name").and_then(Item::as_str) == Some(GOLDGATE) {
        report.lines.push(format!(
            "skipped the {GOLDGATE} dev-dependency: this crate is {GOLDGATE}"
        ));
    } else {
        add_dev_dependency(&mut doc, dependency, &mut report.lines).map_err(|e| match e {
            Unmet::Shape(k, e) => bad(k, e),
            Unmet::NoSource => InitError::NoSource {
                built_from: built_from(),
            },
        })?;
    }
    let harness_path = add_test_target(&mut doc, &mut report.lines).map_err(|(k, e)| bad(k, e))?;

    let edited = doc.to_string();
    if edited != text {
        // Whole or not at all: a full disk must not leave a truncated manifest.
        crate::base::fs::write_atomically(&manifest, edited.as_bytes())
            .map_err(|cause| io_error("write", &manifest, cause))?;
    }

    match harness_path {
        Some(path) if path != HARNESS_PATH => report.lines.push(format!(
            "skipped {HARNESS_PATH}: [[test]] {GOLDGATE} runs `{path}`"
        )),
        _ => create(crate_dir, HARNESS_PATH, HARNESS, &mut report.lines)?,
    }
    for (kind, path) in SCHEMAS {
        let schema = super::schema(kind);
        create(crate_dir, path, &schema, &mut report.lines)?;
        if fs::read_to_string(crate_dir.join(path)).is_ok_and(|text| text != schema)
            && let Some(line) = report.lines.last_mut()
        {
            line.push_str(&format!(
                " (another goldgate's: `goldgate schema --kind {kind} > {path}` brings it up \
                 to date)"
            ));
        }
    }
    for (path, contents) in EXAMPLE {
        create(crate_dir, path, contents, &mut report.lines)?;
    }
    Ok(report)
}

/// The dependency `source` asks for, checked as far as can be without a network: a path must
/// hold goldgate's Cargo.toml, a git source must be a URL.
fn dependency(crate_dir: &Path, source: &Source) -> Result<Item, InitError> {
    let mut table = InlineTable::new();
    match source {
        Source::Path(path) => {
            let text = path.to_str().ok_or_else(|| InitError::PathNotUtf8 {
                path: path.to_path_buf(),
            })?;
            let not = |found: String| InitError::NotGoldgate {
                path: path.to_path_buf(),
                found,
            };
            let manifest = fs::read_to_string(crate_dir.join(path).join("Cargo.toml"))
                .map_err(|e| not(format!("its Cargo.toml cannot be read ({e})")))?;
            let name = manifest
                .parse::<DocumentMut>()
                .ok()
                .and_then(|doc| doc.get("package")?.get("name")?.as_str().map(str::to_owned));
            match name.as_deref() {
                Some(GOLDGATE) => {}
                Some(other) => return Err(not(format!("its Cargo.toml is package `{other}`"))),
                None => return Err(not("its Cargo.toml names no package".to_owned())),
            }
            table.insert("path", text.into());
        }
        Source::Git { url, pin } => {
            // Cargo takes URLs only: no scp-like `git@host:path`, no bare folder.
            let scheme = url.split_once("://").map(|(s, _)| s);
            if !matches!(scheme, Some("https" | "http" | "ssh" | "git" | "file")) {
                return Err(InitError::NotAUrl { url: url.clone() });
            }
            table.insert("git", url.as_str().into());
            if let Some((pin, value)) = pin {
                table.insert(pin.key(), value.as_str().into());
            }
        }
    }
    Ok(value(table))
}

/// The checkout this goldgate was built from, when it still holds goldgate's manifest.
fn built_from() -> Option<PathBuf> {
    let dir = PathBuf::from(option_env!("CARGO_MANIFEST_DIR")?);
    let manifest = fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    manifest
        .parse::<DocumentMut>()
        .ok()?
        .get("package")?
        .get("name")?
        .as_str()
        .is_some_and(|name| name == GOLDGATE)
        .then_some(dir)
}

/// A manifest entry of the wrong shape: its key and what it should be.
type Shape = (&'static str, &'static str);

/// Why the dependency could not be added.
enum Unmet {
    /// An entry of the wrong shape.
    Shape(&'static str, &'static str),
    /// The manifest needs the dependency and nothing says where goldgate is.
    NoSource,
}

impl From<Shape> for Unmet {
    fn from((key, expected): Shape) -> Self {
        Unmet::Shape(key, expected)
    }
}

/// Adds the goldgate dependency to `[dev-dependencies]` unless the manifest has one already.
fn add_dev_dependency(
    doc: &mut DocumentMut,
    dependency: Option<Item>,
    lines: &mut Vec<String>,
) -> Result<(), Unmet> {
    // A normal dependency serves the tests too; `dev_dependencies` is the pre-2024 spelling.
    for key in ["dependencies", "dev-dependencies", "dev_dependencies"] {
        let Some(item) = doc.get(key) else { continue };
        let table = item.as_table_like().ok_or((key, "a table"))?;
        if table.contains_key(GOLDGATE) {
            lines.push(format!("skipped {GOLDGATE} in [{key}]: Cargo.toml has it"));
            return Ok(());
        }
    }
    let dependency = dependency.ok_or(Unmet::NoSource)?;
    // Cargo rejects both spellings in one manifest, so extend the one in use.
    let key = if doc.contains_key("dev_dependencies") && !doc.contains_key("dev-dependencies") {
        "dev_dependencies"
    } else {
        "dev-dependencies"
    };
    let table = doc
        .entry(key)
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or((key, "a table"))?;
    // As `cargo add` does: keep a sorted table sorted, leave any other order alone.
    let sorted = table
        .iter()
        .filter(|(_, item)| item.is_value())
        .map(|(name, _)| name)
        .is_sorted();
    table.insert(GOLDGATE, dependency);
    if sorted {
        table.sort_values();
    }
    lines.push(format!("added {GOLDGATE} to [{key}] in Cargo.toml"));
    Ok(())
}

/// Adds `[[test]] name = "goldgate" harness = false` unless a test target has that name.
///
/// Returns the `path` of an existing goldgate target that sets one.
fn add_test_target(
    doc: &mut DocumentMut,
    lines: &mut Vec<String>,
) -> Result<Option<String>, Shape> {
    const SHAPE: Shape = ("test", "an array of tables ([[test]])");
    let mut target = Table::new();
    target.insert("name", value(GOLDGATE));
    target.insert("harness", value(false));
    let existing = match doc.get_mut("test") {
        None => {
            let mut targets = ArrayOfTables::new();
            targets.push(target);
            doc.insert("test", Item::ArrayOfTables(targets));
            None
        }
        Some(Item::ArrayOfTables(targets)) => {
            let found = targets.iter().find_map(|t| goldgate_target(t));
            if found.is_none() {
                targets.push(target);
            }
            found
        }
        // `test = [{ name = "…" }]` is the same array written inline.
        Some(Item::Value(Value::Array(targets))) => {
            let mut found = None;
            for t in targets.iter() {
                found = found.or(goldgate_target(t.as_inline_table().ok_or(SHAPE)?));
            }
            if found.is_none() {
                targets.push(target.into_inline_table());
            }
            found
        }
        Some(_) => return Err(SHAPE),
    };
    let Some(existing) = existing else {
        lines.push(format!("added [[test]] {GOLDGATE} to Cargo.toml"));
        return Ok(None);
    };
    lines.push(if existing.harness == Some(false) {
        format!("skipped [[test]] {GOLDGATE}: Cargo.toml has it")
    } else {
        format!(
            "skipped [[test]] {GOLDGATE}: Cargo.toml has it, without `harness = false`: add it, \
             or the cases will not run"
        )
    });
    Ok(existing.path)
}

/// A test target named goldgate that the manifest already has.
struct ExistingTarget {
    path: Option<String>,
    harness: Option<bool>,
}

fn goldgate_target(target: &dyn TableLike) -> Option<ExistingTarget> {
    (target.get("name")?.as_str()? == GOLDGATE).then(|| ExistingTarget {
        path: target.get("path").and_then(Item::as_str).map(str::to_owned),
        harness: target.get("harness").and_then(Item::as_bool),
    })
}

/// Creates `crate_dir/path` with `contents` unless something is there already.
fn create(
    crate_dir: &Path,
    path: &str,
    contents: &str,
    lines: &mut Vec<String>,
) -> Result<(), InitError> {
    let file = crate_dir.join(path);
    if let Some(dir) = file.parent() {
        fs::create_dir_all(dir).map_err(|cause| io_error("create", dir, cause))?;
    }
    // Anything there already, a dangling symlink included, is left alone: nothing is clobbered.
    if fs::symlink_metadata(&file).is_ok() {
        lines.push(format!("skipped {path}: it exists"));
        return Ok(());
    }
    // Written beside it, then linked into place without replacing anything: a full disk leaves
    // no empty or half-written file that a second `init` would skip.
    let dir = file.parent().unwrap_or(crate_dir);
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(|cause| io_error("create", &file, cause))?;
    tmp.write_all(contents.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|cause| io_error("write", &file, cause))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp.as_file().set_permissions(fs::Permissions::from_mode(
            0o666 & !crate::base::fs::umask(),
        ));
    }
    match tmp.persist_noclobber(&file) {
        Ok(_) => lines.push(format!("created {path}")),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {
            lines.push(format!("skipped {path}: it exists"));
        }
        Err(e) => return Err(io_error("create", &file, e.error)),
    }
    Ok(())
}

fn io_error(action: &'static str, path: &Path, cause: io::Error) -> InitError {
    InitError::Io {
        action,
        path: path.to_path_buf(),
        cause,
    }
}
