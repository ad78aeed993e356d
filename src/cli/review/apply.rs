//! What a review decided, done: each gold edit made in place (checked to change that value and
//! nothing else, refused on a file changed since the run), the blessed tests' baseline entries
//! written by the run itself (`GOLDGATE_UPDATE=always` for them alone), and every touched test
//! run again, its verdict printed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use serde_json::Value as Json;

use super::{Place, Records, shown_path};
use crate::base::location::LoadError;
use crate::base::value::Value;
use crate::cli::report::RecordsError;
use crate::review::Item;
use crate::spec::edit::{EditError, Syntax, add_variant, replace};
use crate::spec::{Node, NodeKind, parse_yaml};

/// UTF-8's byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What a reviewer decided for an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// The prediction becomes the gold.
    Accept,
    /// The prediction becomes one more variant of the gold.
    Variant,
    /// The item's tests get their baseline entries from this run.
    Bless,
    /// Nothing.
    Skip,
}

impl Action {
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Variant => "variant",
            Action::Bless => "bless",
            Action::Skip => "skip",
        }
    }
}

/// How the tests are run: by this `goldgate` binary, or by `cargo test` in the crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Runner {
    /// `goldgate test DIR`.
    Goldgate,
    /// `cargo test` (for `cargo goldgate review`).
    Cargo,
}

/// The variables of a run that must not leak into the runs a review starts: they would write
/// the user's report, JUnit or HTML files, or append to another run's journal.
const RUN_VARIABLES: [&str; 7] = [
    "GOLDGATE_RUN_ID",
    "NEXTEST_RUN_ID",
    "GOLDGATE_REPORT",
    "GOLDGATE_JUNIT",
    "GOLDGATE_HTML",
    "GITHUB_STEP_SUMMARY",
    "GOLDGATE_UPDATE",
];

impl Runner {
    fn command(self, dir: &Path, rubrics: Option<&Path>) -> Result<Command, RunError> {
        let mut command = match self {
            Runner::Goldgate => {
                let exe = std::env::current_exe().map_err(RunError::NoProgram)?;
                let mut c = Command::new(exe);
                c.arg("test").arg(dir);
                if let Some(r) = rubrics {
                    c.arg("--rubrics").arg(r);
                }
                c
            }
            Runner::Cargo => {
                let mut c =
                    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
                c.arg("test");
                c
            }
        };
        for name in RUN_VARIABLES {
            command.env_remove(name);
        }
        crate::base::huge_pages::as_before(&mut command);
        Ok(command)
    }

    /// Runs every test of `dir`, its output shown (on standard error when standard output is
    /// JSON), and reads its report.
    pub(super) fn run_all(
        self,
        dir: &Path,
        rubrics: Option<&Path>,
        json: bool,
    ) -> Result<Records, RunError> {
        let folder = tempfile::tempdir().map_err(RunError::NoTemporaryFolder)?;
        let report = folder.path().join("report.json");
        let mut command = self.command(dir, rubrics)?;
        command.env("GOLDGATE_REPORT", &report);
        if json {
            command.stdout(std::io::stderr());
        }
        command.status().map_err(RunError::NotRun)?;
        if !report.is_file() {
            return Err(RunError::NoReport);
        }
        let report_read = super::super::report::read_report(&report).map_err(RunError::Report)?;
        let written_at = std::fs::metadata(&report)
            .and_then(|m| m.modified())
            .map_err(RunError::ReportTime)?;
        Ok(Records {
            cases: report_read.cases,
            aggregates: report_read.aggregates,
            written_at,
        })
    }

    /// Runs the tests `selection` (libtest's and goldgate's arguments: `--exact NAME`) selects
    /// again, blessing them when `bless`, and returns their verdict lines.
    fn run_again(
        self,
        dir: &Path,
        rubrics: Option<&Path>,
        selection: &[String],
        bless: bool,
    ) -> Result<Vec<String>, RunError> {
        let mut command = self.command(dir, rubrics)?;
        if self == Runner::Cargo {
            command.arg("--");
        }
        command
            .args(selection)
            .env("GOLDGATE_UPDATE", if bless { "always" } else { "no" })
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        let out = command.output().map_err(|source| RunError::NotAgain {
            selection: selection.to_vec(),
            source,
        })?;
        let text = String::from_utf8_lossy(&out.stdout);
        let verdicts: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("test ") && l.contains(" ... "))
            .map(str::to_owned)
            .collect();
        if verdicts.is_empty() {
            return Err(RunError::NoSuchTest {
                selection: selection.to_vec(),
            });
        }
        Ok(verdicts)
    }
}

/// Where each test's case is, for the tests of the queue.
pub(super) fn places(
    dir: &Path,
    rubrics: &Path,
    items: &[Item],
) -> Result<BTreeMap<String, Place>, crate::load::discover::NoCases> {
    // The loader selects by case (its file's name), and gives one entry per case and pipeline.
    let wanted: BTreeSet<&str> = items.iter().map(|i| i.case.as_str()).collect();
    if wanted.is_empty() {
        return Ok(BTreeMap::new());
    }
    let found = crate::load::discover::discover(dir)?;
    let mut places = BTreeMap::new();
    for entry in crate::load::load_folder(&found, dir, rubrics, |id| wanted.contains(id)) {
        let Ok(case) = entry.loaded else { continue };
        let mut sources = vec![(case.file.clone(), vec!["gold".to_owned()])];
        if let Some(file) = &case.gold_file {
            if *file == case.file {
                sources.clear();
            }
            sources.push((file.clone(), Vec::new()));
        }
        places.insert(
            entry.id,
            Place {
                sources,
                document: document_of(&case.file),
            },
        );
    }
    Ok(places)
}

/// The `document:` a case file names, as a path from the current folder.
fn document_of(case_file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(case_file).ok()?;
    let root: Node = parse_yaml(case_file, &text).ok()?;
    let (_, node) = root.as_map()?.iter().find(|(k, _)| k == "document")?;
    let NodeKind::Text(doc) = &node.kind else {
        return None;
    };
    Some(shown_path(&case_file.parent()?.join(doc)))
}

/// A review's edits and blessings, applied in order.
pub(super) struct Session {
    dir: PathBuf,
    rubrics: Option<PathBuf>,
    places: BTreeMap<String, Place>,
    /// When the run wrote its records: a file changed after it is not what the run read.
    written_at: SystemTime,
    runner: Runner,
    /// The text this session wrote to each file, so that its own edits are not taken for
    /// another's.
    written: BTreeMap<PathBuf, String>,
    /// The fields this session edited (file, field).
    edited: BTreeSet<(PathBuf, String)>,
}

impl Session {
    pub(super) fn new(
        dir: &Path,
        rubrics: Option<&Path>,
        places: BTreeMap<String, Place>,
        written_at: SystemTime,
        runner: Runner,
    ) -> Session {
        Session {
            dir: dir.to_path_buf(),
            rubrics: rubrics.map(Path::to_path_buf),
            places,
            written_at,
            runner,
            written: BTreeMap::new(),
            edited: BTreeSet::new(),
        }
    }

    /// Applies `decisions` (items of `items`), then runs the touched tests again. Whether every
    /// decision could be carried out.
    pub(super) fn apply(
        &mut self,
        items: &[Item],
        decisions: &[(usize, Action)],
        pipeline: Option<&str>,
    ) -> bool {
        let mut done = true;
        let mut again: BTreeSet<String> = BTreeSet::new();
        let mut blessed: BTreeSet<String> = BTreeSet::new();
        // Regression gates blessed: the tests each compares, blessed in one run as its accept
        // command does, then the gate's own test, once the entries are written.
        let mut gates: Vec<(Vec<String>, String)> = Vec::new();
        for &(i, action) in decisions {
            let item = &items[i];
            match action {
                Action::Skip => {}
                Action::Bless if !item.baseline => {
                    eprintln!(
                        "{}",
                        crate::render::inert(&format!(
                            "refused `{}`: its suite names no `baseline:` file, so there is no entry to bless",
                            item.id
                        ))
                    );
                    done = false;
                }
                Action::Bless => match &item.gate {
                    Some(gate) => gates.push((gate.selection(), item.id.clone())),
                    None => {
                        blessed.extend(item.tests.iter().cloned());
                        again.extend(item.tests.iter().cloned());
                    }
                },
                Action::Accept | Action::Variant => match self.edit(item, action, pipeline) {
                    Ok(line) => {
                        println!("{}", crate::render::inert(&line));
                        // The gold is the case's: every pipeline's test of it runs again.
                        again.extend(self.tests_of(&item.case));
                        again.extend(item.predictions.iter().map(|p| p.test.clone()));
                    }
                    Err(e) => {
                        eprintln!(
                            "{}",
                            crate::render::inert(&format!("refused `{}`: {e}", item.id))
                        );
                        done = false;
                    }
                },
            }
        }
        if again.is_empty() && gates.is_empty() {
            return done;
        }
        println!("\nrun again:");
        let exact = |test: &String| vec!["--exact".to_owned(), test.clone()];
        let runs = again
            .iter()
            .map(|test| (exact(test), blessed.contains(test)))
            .chain(gates.iter().map(|(selection, _)| (selection.clone(), true)))
            .chain(gates.iter().map(|(_, gate)| (exact(gate), false)));
        for (selection, bless) in runs {
            let ran = self
                .runner
                .run_again(&self.dir, self.rubrics.as_deref(), &selection, bless);
            let blessing = if bless { " (blessed)" } else { "" };
            for line in ran.iter().flatten() {
                println!("{}{blessing}", crate::render::inert(line));
            }
            done &= said(ran.map(|_| ()));
        }
        done
    }

    /// Blesses every test of the run (of `pipeline`, when one is named), its entry written
    /// whatever its verdict: `--bless --all` leaves no entry stale, a test that passes better
    /// than its entry says included (it is no item of the queue). Says how many it wrote.
    pub(super) fn bless_every_test(&self, pipeline: Option<&str>) -> bool {
        let selection: Vec<String> = pipeline
            .map(|p| vec!["--pipeline".to_owned(), p.to_owned()])
            .unwrap_or_default();
        let ran = self
            .runner
            .run_again(&self.dir, self.rubrics.as_deref(), &selection, true);
        if let Ok(lines) = &ran {
            println!("blessed every test's entry: {} tests", lines.len());
        }
        said(ran.map(|_| ()))
    }

    /// Every test of `case` (one per pipeline) the review found.
    fn tests_of(&self, case: &str) -> Vec<String> {
        let pipelines = format!("{case}::");
        self.places
            .keys()
            .filter(|t| *t == case || t.starts_with(&pipelines))
            .cloned()
            .collect()
    }

    /// Whether `file`, which holds `text`, changed since the run: not as this session wrote it,
    /// or written after the run.
    fn changed_since_the_run(&self, file: &Path, text: &str) -> bool {
        match self.written.get(file) {
            Some(mine) => mine != text,
            None => std::fs::metadata(file)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t > self.written_at),
        }
    }

    /// Writes an edited gold file atomically, keeping the byte-order mark it had (the reader
    /// drops it), and notes the text as this session's.
    fn write(&mut self, file: &Path, read: &str, text: String) -> Result<(), Refused> {
        write_gold(file, read, &text)?;
        self.written.insert(file.to_path_buf(), text);
        Ok(())
    }

    /// One gold edit: the file (inside the project, no link) locked, read, checked unchanged
    /// since the run, edited, the edit read back and checked to change that value alone, written
    /// atomically, then unlocked. The one-line diff.
    fn edit(
        &mut self,
        item: &Item,
        action: Action,
        pipeline: Option<&str>,
    ) -> Result<String, Refused> {
        let field = item.field.as_deref().ok_or(Refused::NotAField)?;
        let place = item
            .tests
            .iter()
            .find_map(|t| self.places.get(t))
            .ok_or(Refused::NoLongerLoads)?
            .clone();
        let value = taken(item, pipeline)?;
        not_in_csv(&place)?;
        let (file, prefix, _) = place.of(field).ok_or_else(|| Refused::NoFileHolds {
            field: field.to_owned(),
        })?;
        let file = &file;
        let name = shown_path(file);
        let key = (file.clone(), field.to_owned());
        if self.edited.contains(&key) {
            return Err(Refused::AlreadyEdited {
                file: file.clone(),
                field: field.to_owned(),
            });
        }
        editable(&self.dir, file)?;
        // Another review may edit this file at once: whether it changed since the run is asked
        // under its lock, and the lock is held until the rename, so that neither edit is lost
        // (the second finds the file changed, and is refused).
        let _lock =
            crate::base::lock::lock_in_place(file).map_err(|source| Refused::NotLocked {
                file: file.clone(),
                source,
            })?;
        let text = crate::base::fs::read_text(file).map_err(Refused::NotRead)?;
        if self.changed_since_the_run(file, &text) {
            return Err(Refused::FileChanged { file: file.clone() });
        }
        let path: Vec<&str> = prefix.iter().map(String::as_str).chain([field]).collect();
        let edit = edited(file, &text, &path, item, (action, &value))?;
        self.write(file, &text, edit.text)?;
        self.edited.insert(key);
        Ok(crate::render::edit_line(
            &name,
            edit.line,
            field,
            edit.before.as_deref(),
            &edit.after,
        ))
    }
}

/// Writes `text`, an edit of `read` (the text of `file` as it was read under the lock), keeping
/// the byte-order mark the file had (the reader drops it). An editor does not take goldgate's
/// lock: a save of theirs since `read` is found just before the rename and refused, never lost.
fn write_gold(file: &Path, read: &str, text: &str) -> Result<(), Refused> {
    let bom = std::fs::read(file).is_ok_and(|b| b.starts_with(BOM));
    let mark: &[u8] = if bom { BOM } else { &[] };
    let (was, bytes) = (
        [mark, read.as_bytes()].concat(),
        [mark, text.as_bytes()].concat(),
    );
    let written =
        crate::base::fs::replace_unless_changed(file, &was, &bytes).map_err(|source| {
            Refused::NotWritten {
                file: file.to_path_buf(),
                source,
            }
        })?;
    if written {
        Ok(())
    } else {
        Err(Refused::FileChanged {
            file: file.to_path_buf(),
        })
    }
}

/// What to do about an item whose gold is not as the run read it.
const RERUN: &str = "run the tests again (`goldgate review --run`) and review what they find";

/// Why the tests could not be run for a review, or run again after it.
#[derive(Debug)]
pub(crate) enum RunError {
    /// This program's own path is not known, to run `goldgate test` with.
    NoProgram(std::io::Error),
    /// No temporary folder for the run's report.
    NoTemporaryFolder(std::io::Error),
    /// The tests could not be started.
    NotRun(std::io::Error),
    /// The tests ran and wrote no report.
    NoReport,
    /// Their report does not read.
    Report(RecordsError),
    /// When their report was written is not known.
    ReportTime(std::io::Error),
    /// Tests to run again could not be started.
    NotAgain {
        /// libtest's and goldgate's arguments that select them.
        selection: Vec<String>,
        /// The system's error.
        source: std::io::Error,
    },
    /// Tests to run again ran none: they are gone.
    NoSuchTest {
        /// libtest's and goldgate's arguments that select them.
        selection: Vec<String>,
    },
}

/// What a selection names, for a message: a test, or the tests of a gate.
fn selected(selection: &[String]) -> String {
    match selection {
        [exact, name] if exact == "--exact" => format!("`{name}`"),
        _ => format!("the tests of `{}`", selection.join(" ")),
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::NoProgram(e) => {
                write!(f, "cannot find the goldgate program to run the tests: {e}")
            }
            RunError::NoTemporaryFolder(e) => write!(f, "cannot make a temporary folder: {e}"),
            RunError::NotRun(e) => write!(f, "cannot run the tests: {e}"),
            RunError::NoReport => f.write_str("the tests wrote no report: see their output above"),
            RunError::Report(e) => e.fmt(f),
            RunError::ReportTime(e) => e.fmt(f),
            RunError::NotAgain { selection, source } => {
                write!(f, "cannot run `{}` again: {source}", selected(selection))
            }
            RunError::NoSuchTest { selection } => write!(
                f,
                "{} did not run again: no such test now",
                selected(selection)
            ),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RunError::NoProgram(e)
            | RunError::NoTemporaryFolder(e)
            | RunError::NotRun(e)
            | RunError::ReportTime(e)
            | RunError::NotAgain { source: e, .. } => Some(e),
            RunError::Report(e) => e.source(),
            RunError::NoReport | RunError::NoSuchTest { .. } => None,
        }
    }
}

/// Why a gold edit was refused. A file is named as the user reads its path.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The item is a test: there is no value to edit.
    NotAField,
    /// The item's case does not load now.
    NoLongerLoads,
    /// No value to take: of the pipeline named, or none proposed.
    NoValue {
        /// `--pipeline`, when given.
        pipeline: Option<String>,
    },
    /// The gold is in a CSV file.
    InCsv {
        /// The CSV file.
        file: PathBuf,
    },
    /// No file of the case holds the field now.
    NoFileHolds {
        /// The field.
        field: String,
    },
    /// The field was edited already in this session.
    AlreadyEdited {
        /// The file.
        file: PathBuf,
        /// The field.
        field: String,
    },
    /// The file is not there to be edited.
    NotFound {
        /// The file.
        file: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file is a symbolic link.
    Link {
        /// The file.
        file: PathBuf,
    },
    /// The file is not a regular file.
    NotARegularFile {
        /// The file.
        file: PathBuf,
    },
    /// The file is outside the project.
    OutsideTheProject {
        /// The file.
        file: PathBuf,
        /// The project's root.
        root: PathBuf,
    },
    /// The file could not be locked.
    NotLocked {
        /// The file.
        file: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file could not be read, or does not parse.
    NotRead(LoadError),
    /// The file changed since the run.
    FileChanged {
        /// The file.
        file: PathBuf,
    },
    /// The file has no gold for the field now (file, field).
    NoGoldNow {
        /// The file and the field.
        at: (PathBuf, String),
    },
    /// The field's gold changed since the run (file, field).
    GoldChanged {
        /// The file and the field.
        at: (PathBuf, String),
    },
    /// The value cannot be edited in place.
    NotEdited {
        /// The file.
        file: PathBuf,
        /// Why, with where in the file.
        source: EditError,
    },
    /// The edit, read back, changes more than the field.
    MoreThanTheField {
        /// The file and the field.
        at: (PathBuf, String),
        /// The line of the edit.
        line: u64,
    },
    /// The edited file could not be written.
    NotWritten {
        /// The file.
        file: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NotAField => f.write_str("this item is a test, not a field"),
            Refused::NoLongerLoads => f.write_str("its case no longer loads: run the tests again"),
            Refused::NoValue {
                pipeline: Some(name),
            } => write!(f, "no value of the pipeline `{name}` for this field"),
            Refused::NoValue { pipeline: None } => {
                f.write_str("no prediction to take: name one with `--pipeline NAME`")
            }
            Refused::InCsv { file } => write!(
                f,
                "the gold is in the CSV file `{}`, which goldgate does not edit in place: edit it by hand",
                shown_path(file)
            ),
            Refused::NoFileHolds { field } => write!(
                f,
                "no file of its case holds the gold `{field}` now: run the tests again"
            ),
            Refused::AlreadyEdited { file, field } => write!(
                f,
                "`{field}` of `{}` is already edited in this session",
                shown_path(file)
            ),
            Refused::NotRead(e) => e.fmt(f),
            Refused::FileChanged { file } => {
                write!(f, "`{}` changed since the run: {RERUN}", shown_path(file))
            }
            Refused::NoGoldNow { at: (file, field) } => write!(
                f,
                "`{}` has no gold `{field}` now: {RERUN}",
                shown_path(file)
            ),
            Refused::GoldChanged { at: (file, field) } => write!(
                f,
                "the gold of `{field}` in `{}` changed since the run: {RERUN}",
                shown_path(file)
            ),
            Refused::NotEdited {
                file,
                source: source @ EditError::NotFound(_),
            } => write!(f, "`{}`: {source}", shown_path(file)),
            Refused::NotEdited { file, source } => write!(f, "{}:{source}", shown_path(file)),
            Refused::MoreThanTheField {
                at: (file, field),
                line,
            } => write!(
                f,
                "{}:{line}: the edit would change more than `{field}`: edit it by hand",
                shown_path(file)
            ),
            _ => self.fmt_file(f),
        }
    }
}

impl Refused {
    /// The messages of a file review may not, or cannot, write.
    fn fmt_file(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::base::fs::io_reason;
        match self {
            Refused::NotFound { file, source } => {
                write!(
                    f,
                    "cannot read `{}`: {}",
                    shown_path(file),
                    io_reason(source)
                )
            }
            Refused::Link { file } => write!(
                f,
                "`{}` is a link, and review writes no file through a link (it could lead out of the project): edit the file it leads to by hand, or put that file in the link's place",
                shown_path(file)
            ),
            Refused::NotARegularFile { file } => write!(
                f,
                "`{}` is not a regular file, so review does not write it",
                shown_path(file)
            ),
            Refused::OutsideTheProject { file, root } => write!(
                f,
                "`{}` is outside the project `{}`, and review writes nothing outside it: move it into the project and name it from there",
                shown_path(file),
                root.display()
            ),
            Refused::NotLocked { file, source } => write!(
                f,
                "cannot lock `{}` to edit it: {}",
                shown_path(file),
                io_reason(source)
            ),
            Refused::NotWritten { file, source } => {
                write!(f, "cannot write `{}`: {source}", shown_path(file))
            }
            // The others are said by `fmt`, which asks this of these alone.
            other => std::fmt::Display::fmt(other, f),
        }
    }
}

impl std::error::Error for Refused {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Refused::NotFound { source, .. }
            | Refused::NotLocked { source, .. }
            | Refused::NotWritten { source, .. } => Some(source),
            Refused::NotRead(e) => Some(e),
            Refused::NotEdited { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The edit of the gold at `path` in `file`'s `text`: the gold checked to be what the run read,
/// the new text checked to change that value alone.
fn edited(
    file: &Path,
    text: &str,
    path: &[&str],
    item: &Item,
    (action, value): (Action, &Json),
) -> Result<crate::spec::edit::Edit, Refused> {
    let field = path.last().copied().unwrap_or_default();
    let at_field = || (file.to_path_buf(), field.to_owned());
    let root: Node = parse_yaml(file, text).map_err(Refused::NotRead)?;
    let node = at(&root, path).ok_or_else(|| Refused::NoGoldNow { at: at_field() })?;
    if variants(node) != item.gold {
        return Err(Refused::GoldChanged { at: at_field() });
    }
    let syntax = if file.extension().is_some_and(|e| e == "json") {
        Syntax::Json
    } else {
        Syntax::Yaml
    };
    let edit = match action {
        Action::Accept => replace(text, &root, path, syntax, value),
        _ => add_variant(text, &root, path, syntax, value),
    }
    .map_err(|source| Refused::NotEdited {
        file: file.to_path_buf(),
        source,
    })?;
    // Read back: the new text must be the old tree with this one value changed.
    let expected = edited_tree(&root, node, path, action, value);
    let read_back: Option<Node> = parse_yaml(file, &edit.text).ok();
    if read_back.map(|n| n.to_value()) != Some(expected) {
        return Err(Refused::MoreThanTheField {
            at: at_field(),
            line: edit.line,
        });
    }
    Ok(edit)
}

/// Whether review may write `file`: a regular file, not a link, inside the project of the
/// reviewed folder `dir`. Loading refuses a gold outside the project; this refuses it again
/// where the write happens, since the file may have changed since.
fn editable(dir: &Path, file: &Path) -> Result<(), Refused> {
    let file_of = || file.to_path_buf();
    let meta = std::fs::symlink_metadata(file).map_err(|source| Refused::NotFound {
        file: file_of(),
        source,
    })?;
    if meta.file_type().is_symlink() {
        return Err(Refused::Link { file: file_of() });
    }
    if !meta.is_file() {
        return Err(Refused::NotARegularFile { file: file_of() });
    }
    match crate::base::fs::outside_the_project(dir, file) {
        Some(root) => Err(Refused::OutsideTheProject {
            file: file_of(),
            root,
        }),
        None => Ok(()),
    }
}

/// Whether `result` is a success; an error is said on standard error.
fn said(result: Result<(), RunError>) -> bool {
    match result {
        Ok(()) => true,
        Err(e) => {
            eprintln!("{}", crate::render::inert(&format!("error: {e}")));
            false
        }
    }
}

/// A gold in a CSV file (KIEval's layout) is not edited in place: said with its file.
fn not_in_csv(place: &Place) -> Result<(), Refused> {
    match place
        .sources
        .iter()
        .find(|(f, _)| f.extension().is_some_and(|e| e == "csv"))
    {
        Some((csv, _)) => Err(Refused::InCsv { file: csv.clone() }),
        None => Ok(()),
    }
}

/// The value an accept or a variant takes: `pipeline`'s, else the proposed one, as the gold
/// writes it.
fn taken(item: &Item, pipeline: Option<&str>) -> Result<Json, Refused> {
    match item.value_of(pipeline) {
        Some(p) => Ok(as_gold(item, p.value.clone())),
        None => Err(Refused::NoValue {
            pipeline: pipeline.map(str::to_owned),
        }),
    }
}

/// The tree `root` as an edit should leave it: the gold `node` at `path` replaced by `value`
/// (accept), or given it as one more variant.
fn edited_tree(root: &Node, node: &Node, path: &[&str], action: Action, value: &Json) -> Value {
    let new = Value::from_json(value);
    let changed_to = match action {
        Action::Accept => new,
        _ => match node.to_value() {
            Value::Map(mut entries) if entries.len() == 1 && entries[0].0 == "any_of" => {
                if let Value::List(items) = &mut entries[0].1 {
                    items.push(new);
                }
                Value::Map(entries)
            }
            old => Value::Map(vec![("any_of".to_owned(), Value::List(vec![old, new]))]),
        },
    };
    let mut expected = root.to_value();
    set(&mut expected, path, changed_to);
    expected
}

/// A predicted value as the gold writes it: a field read as a number keeps a number
/// (`4,512.00` is written `4512.00`).
fn as_gold(item: &Item, value: Json) -> Json {
    match (item.reading, &value) {
        (Some(crate::evaluate::finding::Reading::Number), Json::String(text)) => {
            crate::base::typed::plain_number(text).map_or(value, Json::String)
        }
        _ => value,
    }
}

/// The node at `path` (mapping keys from the root).
fn at<'a>(root: &'a Node, path: &[&str]) -> Option<&'a Node> {
    let mut node = root;
    for key in path {
        node = &node.as_map()?.iter().find(|(k, _)| k == key)?.1;
    }
    Some(node)
}

/// A gold node's variants as the record keeps them.
fn variants(node: &Node) -> Vec<Json> {
    match &node.kind {
        NodeKind::Map(entries) if entries.len() == 1 && entries[0].0 == "any_of" => {
            match &entries[0].1.kind {
                NodeKind::List(items) => items.iter().map(|i| i.to_value().to_json()).collect(),
                _ => vec![node.to_value().to_json()],
            }
        }
        _ => vec![node.to_value().to_json()],
    }
}

/// Sets the value at `path` in a tree of mappings.
fn set(tree: &mut Value, path: &[&str], to: Value) {
    let Some((first, rest)) = path.split_first() else {
        *tree = to;
        return;
    };
    if let Value::Map(entries) = tree
        && let Some((_, v)) = entries.iter_mut().find(|(k, _)| k == first)
    {
        set(v, rest, to);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn review_writes_no_link_and_nothing_outside_the_project() {
        let tmp = tempfile::tempdir().unwrap();
        let (proj, outside) = (tmp.path().join("proj"), tmp.path().join("outside"));
        std::fs::create_dir_all(proj.join(".git")).unwrap();
        std::fs::create_dir_all(proj.join("cases")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        for file in [proj.join("cases/g.json"), outside.join("g.json")] {
            std::fs::write(file, "{}").unwrap();
        }
        std::os::unix::fs::symlink(proj.join("cases/g.json"), proj.join("cases/l.json")).unwrap();
        let cases = proj.join("cases");
        editable(&cases, &cases.join("g.json")).unwrap();
        let link = editable(&cases, &cases.join("l.json")).unwrap_err();
        assert!(matches!(link, Refused::Link { .. }), "{link}");
        assert!(link.to_string().ends_with("l.json` is a link, and review writes no file through a link (it could lead out of the project): edit the file it leads to by hand, or put that file in the link's place"), "{link}");
        let out = editable(&cases, &outside.join("g.json")).unwrap_err();
        assert!(
            matches!(&out, Refused::OutsideTheProject { root, .. } if root.ends_with("proj")),
            "{out}"
        );
        let through = cases.join("../../outside/g.json");
        assert!(editable(&cases, &through).is_err());
        let gone = editable(&cases, &cases.join("none.json")).unwrap_err();
        let io = std::error::Error::source(&gone)
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }

    /// An editor's save between review's reading of a gold file and its rename (review holds
    /// its lock; the editor takes none) is kept, and the edit refused with the fix: on main the
    /// edit replaced the file and the save was lost while review said it wrote.
    #[test]
    fn an_editors_save_during_an_edit_is_kept_and_the_edit_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("gold.json");
        let read = "{\"total\": \"1\"}\n";
        std::fs::write(&file, read).unwrap();
        // Nothing changed since the read: the edit is written.
        write_gold(&file, read, "{\"total\": \"2\"}\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "{\"total\": \"2\"}\n"
        );
        // The editor saves after review read `read`: review's edit of `read` is refused.
        std::fs::write(&file, "{\"total\": \"3\", \"note\": \"saved\"}\n").unwrap();
        let refused = write_gold(&file, read, "{\"total\": \"4\"}\n").unwrap_err();
        assert!(matches!(refused, Refused::FileChanged { .. }), "{refused}");
        assert!(
            refused.to_string().contains("changed since the run"),
            "{refused}"
        );
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "{\"total\": \"3\", \"note\": \"saved\"}\n"
        );
        // A byte-order mark the file has is kept, and counted in what was read.
        std::fs::write(&file, [BOM, read.as_bytes()].concat()).unwrap();
        write_gold(&file, read, "{\"total\": \"5\"}\n").unwrap();
        assert_eq!(
            std::fs::read(&file).unwrap(),
            [BOM, "{\"total\": \"5\"}\n".as_bytes()].concat()
        );
        // No temporary file is left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
