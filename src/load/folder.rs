//! Every case of a cases folder, loaded: what the harness runs and `lint` checks.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{load_case_in, load_case_text};
use crate::base::fs::{by_its_words, case_name};
use crate::base::location::{LoadError, Mark};
use crate::load::discover::Found;
use crate::load::suite::{SUITE_FILES, Suite, Suites};
use crate::model::case::{Case, PredictionSource};
use crate::model::suite::{Aggregate, BaselineSpec};

/// One test-to-be: a loaded case, or why it could not be loaded.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The test name (`invoices/acme-173::guided`).
    pub id: String,
    /// The case file (empty for an unreadable place).
    pub file: PathBuf,
    /// The case, or what is wrong.
    pub loaded: Result<Case, Problem>,
}

/// Why an entry could not be loaded.
#[derive(Debug, Clone)]
pub enum Problem {
    /// Mistakes in the file (every one found past parsing, in line order).
    Load(Vec<LoadError>),
    /// A folder or file that could not be read, or two files with one test name.
    Unreadable(String),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // Each after the first on a line of its own, as the harness prints `error: ` before it.
            Problem::Load(errors) => {
                let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
                f.write_str(&lines.join("\nerror: "))
            }
            Problem::Unreadable(reason) => f.write_str(reason),
        }
    }
}

/// Which of their `fields` rules and `critical` names the suites' cases use.
#[derive(Default)]
struct SuiteUses {
    /// By suite file.
    suites: std::collections::BTreeMap<PathBuf, Uses>,
}

/// One suite file's names: every one it declares (name, where, YAML path), those its cases'
/// gold has (a path: reaches), and whether a case below it could not be loaded (then nothing is said: its
/// gold is unknown).
type Uses = (Vec<(String, Mark, String)>, HashSet<String>, bool);

impl SuiteUses {
    fn note(&mut self, suite: &crate::load::suite::Suite, case: Option<&Case>) {
        for (file, defaults) in &suite.defaults {
            let (declared, used, broken) = self.suites.entry(file.clone()).or_insert_with(|| {
                let mut names = Vec::new();
                for (name, rule) in defaults.fields.iter().flatten() {
                    names.push((
                        name.clone(),
                        Mark::of(&rule.referenced),
                        format!("fields.{name}"),
                    ));
                }
                for (i, name) in defaults.critical.iter().flatten().enumerate() {
                    names.push((
                        name.value.clone(),
                        Mark::of(&name.referenced),
                        format!("critical[{i}]"),
                    ));
                }
                (names, HashSet::new(), false)
            });
            match case {
                Some(case) => used.extend(
                    declared
                        .iter()
                        .filter(|(name, _, _)| {
                            case.gold.iter().flatten().any(|g| g.is_reached_by(name))
                        })
                        .map(|(name, _, _)| name.clone()),
                ),
                None => *broken = true,
            }
        }
    }

    /// A failing test per suite file whose names no case uses, named after the suite file.
    fn unused(self, root: &Path) -> Vec<Entry> {
        let mut out = Vec::new();
        for (file, (declared, used, broken)) in self.suites {
            let inside = crate::base::fs::relative_to(&file, root);
            if broken || inside.is_none() {
                continue;
            }
            let errors: Vec<LoadError> = declared
                .iter()
                .filter(|(name, _, _)| !used.contains(name))
                .map(|(name, mark, path)| {
                    LoadError::at(
                        &file,
                        *mark,
                        format!("defaults.{path}"),
                        format!("no case below this suite has `{name}` in its gold"),
                    )
                    .hint("remove it, or fix its name")
                })
                .collect();
            if errors.is_empty() {
                continue;
            }
            let id = inside.map_or_else(
                || file.display().to_string(),
                |p| crate::base::fs::slashed(&p),
            );
            out.push(Entry {
                id,
                file: file.clone(),
                loaded: Err(Problem::Load(errors)),
            });
        }
        out
    }
}

/// Loads the found cases whose file name `wanted` accepts, one entry per case and pipeline. A
/// YAML prediction file under the cases folder is not a case of its own (it does not load as
/// one); a file that does load as a case stays a test even when another names it.
pub fn load_folder(
    found: &[Found],
    root: &Path,
    rubrics: &Path,
    wanted: impl Fn(&str) -> bool,
) -> Vec<Entry> {
    plan_folder(found, root, rubrics, wanted, When::Now)
        .into_iter()
        .map(|p| Entry {
            loaded: match p.load {
                Load::Now(loaded) => *loaded,
                Load::Later(pending) => pending.take(p.pipeline.as_deref()),
            },
            id: p.id,
            file: p.file,
        })
        .collect()
}

/// One test-to-be of a run: what its name, its aggregates and its baseline need, with the case
/// loaded now or when the test runs.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The test name (`invoices/acme-173::guided`).
    pub id: String,
    /// The case file (empty for an unreadable place).
    pub file: PathBuf,
    /// The file its names are made from (see [`Case::named_by`]).
    pub named_by: PathBuf,
    /// The file it was named after before (see [`Case::formerly_named_by`]).
    pub formerly_named_by: Option<PathBuf>,
    /// The pipeline, when the suite declares pipelines.
    pub pipeline: Option<String>,
    /// The folder of its innermost suite, when it has one: the row of the comparison of
    /// pipelines a test without a pipeline counts in, loaded or not.
    pub suite_folder: Option<PathBuf>,
    /// The aggregates of the suites above it.
    pub aggregates: Vec<Arc<Aggregate>>,
    /// The baseline of its suite.
    pub baseline: Option<Arc<BaselineSpec>>,
    /// The run history of its suite (`history:`): a case that cannot be loaded is still
    /// counted in it.
    pub history: Option<PathBuf>,
    /// Whether its prediction is the output of the suite's `run` command.
    pub runs_a_command: bool,
    /// The case.
    pub load: Load,
}

/// How many bytes of case files' text a plan keeps for their tests, which then do not read the
/// files again: every file of 10,000 cases of a kilobyte or so. A plan of more keeps none.
const KEPT_TEXT: usize = 16 << 20;

/// When the cases of a plan are loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// While planning.
    Now,
    /// By each case's test, when nothing in the plan needs the case before: a file is read
    /// while planning to learn whether it says `skip` (its test is flagged) and whether it is a
    /// case at all (a YAML prediction among the cases is no test).
    ByItsTest,
    /// In turn, by a reader of every case that needs nothing of them in the plan (`lint`):
    /// no file is read while planning, and a file that does not load as a case is kept; the
    /// reader tells a YAML prediction from a broken case itself ([`is_a_prediction`]).
    InTurn,
}

/// A planned test's case.
#[derive(Debug, Clone)]
pub enum Load {
    /// Loaded while planning: the case, or what is wrong.
    Now(Box<Result<Case, Problem>>),
    /// Loaded by the test that needs it.
    Later(Arc<Pending>),
}

/// A case file's case for each pipeline (until its test takes it), or what is wrong.
type FileCases = Result<Vec<(Option<String>, Option<Case>)>, Problem>;

/// A case file loaded when a test of it runs, so that a run holds no more cases than it has
/// tests running: its pipelines' cases are loaded together and each test takes its own.
#[derive(Debug)]
pub struct Pending {
    id: String,
    path: PathBuf,
    /// The rubric sets' folder, one for every case.
    rubrics: Arc<Path>,
    suite: Arc<Suite>,
    /// Each pipeline's case until its test takes it; `None` until loaded.
    cases: Mutex<Option<FileCases>>,
    /// The file's text as the plan read it, for its first load (see [`KEPT_TEXT`]).
    text: Mutex<Option<String>>,
    /// The pipelines whose tests run in this process (none noted: all).
    expected: Mutex<Vec<String>>,
}

impl Pending {
    /// The case of `pipeline`: loaded now unless another test of the file loaded it, and loaded
    /// again if another test already took it (an aggregate and the case's own test).
    pub fn take(&self, pipeline: Option<&str>) -> Result<Case, Problem> {
        let mut cases = self.cases.lock().unwrap_or_else(|e| e.into_inner());
        let taken = |c: &FileCases| {
            c.as_ref().is_ok_and(|all| {
                !all.iter()
                    .any(|(p, case)| p.as_deref() == pipeline && case.is_some())
            })
        };
        if cases.as_ref().is_none_or(taken) {
            let mut loaded = self.load();
            // Only the cases of tests this process runs wait for them (`test cases ::guided`
            // keeps no other pipeline's); a case taken again is loaded again.
            let expected = self.expected.lock().unwrap_or_else(|e| e.into_inner());
            if let Ok(all) = &mut loaded
                && !expected.is_empty()
            {
                for (p, case) in all.iter_mut() {
                    if p.as_deref() != pipeline && !expected.iter().any(|e| Some(e) == p.as_ref()) {
                        *case = None;
                    }
                }
            }
            *cases = Some(loaded);
        }
        let case = match cases.as_mut() {
            Some(Ok(all)) => all
                .iter_mut()
                .find(|(p, _)| p.as_deref() == pipeline)
                .and_then(|(_, case)| case.take())
                .ok_or_else(|| {
                    Problem::Unreadable(format!(
                        "`{}` has no case for the pipeline `{}`",
                        self.path.display(),
                        pipeline.unwrap_or("")
                    ))
                }),
            Some(Err(problem)) => Err(problem.clone()),
            None => unreachable!("loaded above"),
        };
        // Once every case of the file is taken, the list goes too (a take again loads the file
        // again, as it would with the list): it has the room of the cases it was collected from,
        // and lint, which keeps its plan to the end, held 94 MB of them at 100,000 cases.
        if let Some(Ok(all)) = &*cases
            && all.iter().all(|(_, case)| case.is_none())
        {
            *cases = None;
        }
        case
    }

    /// Notes that the test of `pipeline` runs in this process (when it has pipelines: the
    /// others' cases are not kept waiting).
    pub fn expect(&self, pipeline: Option<&str>) {
        if let Some(p) = pipeline {
            self.expected
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(p.to_owned());
        }
    }

    /// The name of the test of `pipeline`.
    pub fn test_id(&self, pipeline: Option<&str>) -> String {
        crate::model::test_name::of_case(&self.id, pipeline)
    }

    /// The case file.
    /// The run history of its suite.
    pub fn history(&self) -> Option<&Path> {
        self.suite.history.as_deref()
    }

    pub fn file(&self) -> &Path {
        &self.path
    }

    fn load(&self) -> FileCases {
        let kept = self.text.lock().unwrap_or_else(|e| e.into_inner()).take();
        match kept {
            Some(text) => load_case_text(&self.path, &text, &self.id, &self.rubrics, &self.suite),
            None => load_case_in(&self.path, &self.id, &self.rubrics, &self.suite),
        }
        .map(|cases| {
            cases
                .into_iter()
                .map(|c| (c.pipeline.clone(), Some(c)))
                .collect()
        })
        .map_err(Problem::Load)
    }

    /// The prediction files its cases read (loading it, and leaving it unloaded again).
    fn prediction_files(&self) -> Vec<PathBuf> {
        let files = match self.load() {
            Ok(cases) => cases
                .iter()
                .flat_map(|(_, c)| c.as_ref().map(read_files).unwrap_or_default())
                .collect(),
            // A mistake located in another file is in a file the case reads (its gold file).
            Err(Problem::Load(errors)) => errors
                .iter()
                .filter(|e| e.file != self.path)
                .map(|e| e.file.clone())
                .collect(),
            Err(Problem::Unreadable(_)) => Vec::new(),
        };
        *self.cases.lock().unwrap_or_else(|e| e.into_inner()) = None;
        files
    }
}

/// Whether a case file can wait for its test to be loaded, and whether it names a prediction of
/// its own, with its text as read: nothing in the run's plan needs it now. The plan needs a file
/// now when its suite declares field rules or critical names (a name no case uses is an error of
/// the suite), or `skip` (a skipped test is flagged before the run); when the file may hold `skip:` itself; and
/// when it does not look like a case (a YAML prediction among the cases is no test of its own,
/// known only by reading it).
fn can_wait(path: &Path, suite: &Suite, when: When) -> Option<(bool, Option<String>)> {
    let declares = suite.defaults.iter().any(|(_, d)| {
        d.skip.is_some()
            || d.fields.as_ref().is_some_and(|f| !f.is_empty())
            || d.critical.as_ref().is_some_and(|c| !c.is_empty())
    });
    match when {
        When::Now => return None,
        _ if declares => return None,
        When::InTurn => return Some((false, None)),
        When::ByItsTest => {}
    }
    let text = crate::base::fs::read_text(path).ok()?;
    // The keys at the top of the file, in one pass over its lines.
    let (mut a_case, mut own_prediction) = (false, false);
    for line in text.split('\n') {
        // Only a line that starts with a key's first letter can be one of these keys (a key
        // indented is a value's): the others are passed over unread.
        if !matches!(line.as_bytes().first(), Some(b'g' | b'r' | b't' | b'p')) {
            continue;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some((key, _)) = line.split_once(':') else {
            continue;
        };
        match key.trim_end() {
            "gold" | "rubrics" | "thresholds" => a_case = true,
            "prediction" | "prediction_text" => own_prediction = true,
            _ => {}
        }
    }
    // A case names its prediction, or its suites give it one; a YAML prediction with a field
    // named `gold` does neither.
    let given_one = suite.run.is_some()
        || suite.pipelines.is_some()
        || suite.defaults.iter().any(|(_, d)| d.prediction.is_some());
    if text.contains("skip") || !a_case || !(own_prediction || given_one) {
        return None;
    }
    Some((own_prediction, Some(text)))
}

/// The prediction files a suite's pipelines name for a case, where a path template says it
/// without reading the case (`outputs/{pipeline}/{case}.yaml`; not one with `{document}`), by
/// its words.
fn pipeline_predictions(case_file: &Path, suite: &Suite) -> Vec<PathBuf> {
    let Some(pipelines) = &suite.pipelines else {
        return Vec::new();
    };
    pipelines
        .list
        .iter()
        .filter_map(|(name, template)| {
            let template = template.as_ref().filter(|t| !t.contains("{document}"))?;
            let path = template
                .replace("{case}", &case_name(case_file, &pipelines.dir))
                .replace("{pipeline}", name);
            Some(by_its_words(&pipelines.dir.join(path)))
        })
        .collect()
}

/// Plans the found cases whose file name `wanted` accepts, one test per case and pipeline (see
/// [`load_folder`]), each loaded [`When`] said.
pub fn plan_folder(
    found: &[Found],
    root: &Path,
    rubrics: &Path,
    wanted: impl Fn(&str) -> bool,
    when: When,
) -> Vec<Planned> {
    let mut plan = Plan {
        suites: Suites::new(root),
        suite_of: HashMap::new(),
        broken_suites: Vec::new(),
        entries: Vec::new(),
        uses: SuiteUses::default(),
        pending: Vec::new(),
        rubrics,
        rubrics_dir: Arc::from(rubrics),
        named_by_pipelines: HashSet::new(),
        broken: broken_sets(found),
        when,
        text_room: Some(KEPT_TEXT),
    };
    if when == When::ByItsTest {
        plan.note_pipeline_predictions(found);
    }
    for f in found {
        match f {
            Found::Case { id, path } if wanted(id) => plan.case(id, path),
            Found::Listed(listed) if wanted(&listed.id) => plan.listed(listed),
            Found::NoGold {
                id,
                pipeline,
                reason,
            } if wanted(id) => plan.entries.push(Planned {
                pipeline: Some(pipeline.clone()),
                ..Planned::failed(
                    crate::model::test_name::of_case(id, Some(pipeline)),
                    PathBuf::new(),
                    unreadable(reason),
                )
            }),
            Found::Unreadable { id, reason } if wanted(id) => {
                plan.entries.push(Planned::failed(
                    id.clone(),
                    PathBuf::new(),
                    unreadable(reason),
                ));
            }
            _ => {}
        }
    }
    finish_plan(
        found,
        root,
        plan.entries,
        plan.uses,
        when,
        plan.named_by_pipelines,
        &plan.pending,
        wanted,
    )
}

/// A folder's plan as it is made, case by case.
struct Plan<'a> {
    suites: Suites,
    /// Every case of a folder has that folder's suites; when they do not load, their mistakes,
    /// read once for all the folder's cases (each bound of a broken `aggregate` is found by
    /// reading the suite again).
    suite_of: HashMap<PathBuf, Result<Arc<Suite>, Vec<LoadError>>>,
    /// Each suite mistake met, with every bound it stands for: the same for every folder under
    /// the broken suite.
    broken_suites: Vec<(LoadError, Vec<LoadError>)>,
    entries: Vec<Planned>,
    uses: SuiteUses,
    pending: Vec<Arc<Pending>>,
    rubrics: &'a Path,
    rubrics_dir: Arc<Path>,
    /// The files pipelines name as predictions: loaded now, so that one that is no case is
    /// known as a prediction before the run (no test of its own) without reading the cases
    /// that name it.
    named_by_pipelines: HashSet<PathBuf>,
    /// The gold sets whose `cases:` could not be read, by folder.
    broken: Vec<(&'a Path, &'a LoadError)>,
    when: When,
    /// How many more bytes of case files' text the plan may keep for their tests; `None` once a
    /// file did not fit, when the plan keeps none.
    text_room: Option<usize>,
}

impl Plan<'_> {
    /// The suites of the folder of `case_file`, read once for all its cases.
    fn suite(&mut self, case_file: &Path) -> &Result<Arc<Suite>, Vec<LoadError>> {
        let folder = case_file.parent().unwrap_or(Path::new("")).to_path_buf();
        self.suite_of.entry(folder).or_insert_with(|| {
            self.suites
                .for_case(case_file)
                .map(Arc::new)
                .map_err(|e| every_bound(&mut self.broken_suites, e))
        })
    }

    /// Notes the prediction files every case's pipelines name, before any case is planned.
    fn note_pipeline_predictions(&mut self, found: &[Found]) {
        for f in found {
            if let Found::Case { path, .. } = f
                && let Ok(s) = self.suite(path)
            {
                let named = pipeline_predictions(path, s);
                self.named_by_pipelines.extend(named);
            }
        }
    }

    /// The tests of a case file: left to its tests to load when it can wait, else loaded now.
    fn case(&mut self, id: &str, path: &Path) {
        let suite = self.suite(path).clone();
        let pipelines = pipelines_of(&suite);
        let test_id =
            |pipeline: &Option<String>| crate::model::test_name::of_case(id, pipeline.as_deref());
        if let Ok(s) = &suite
            // (A path made absolute costs a `getcwd` a case: asked only of pipelines' files.)
            && (self.named_by_pipelines.is_empty()
                || !self.named_by_pipelines.contains(&by_its_words(path)))
            && set_broken_above(&self.broken, path).is_none()
            && let Some((own_prediction, text)) = can_wait(path, s, self.when)
        {
            let text = text.and_then(|text| self.keep(text));
            self.later(id, path, s, (own_prediction, text), pipelines);
            return;
        }
        let loaded = suite
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|s| load_case_in(path, id, self.rubrics, s))
            .map_err(|e| set_broken_above(&self.broken, path).map_or(e, |set| vec![set]));
        self.loaded((path, path, None), &suite, pipelines, &test_id, loaded);
    }

    /// A case file's text, kept for its test while the plan has room for every file's: the
    /// first that does not fit lets go of those kept, whose memory a larger gold set's run
    /// needs for its numbers.
    fn keep(&mut self, text: String) -> Option<String> {
        let room = self.text_room?.checked_sub(text.len());
        self.text_room = room;
        if room.is_none() {
            for pending in &self.pending {
                *pending.text.lock().unwrap_or_else(|e| e.into_inner()) = None;
            }
        }
        room.map(|_| text)
    }

    /// The tests of a case file its tests load, one per pipeline, sharing one load (of the
    /// text the plan read, when it kept it).
    fn later(
        &mut self,
        id: &str,
        path: &Path,
        s: &Arc<Suite>,
        (own_prediction, text): (bool, Option<String>),
        pipelines: Vec<Option<String>>,
    ) {
        let later = Arc::new(Pending {
            id: id.to_owned(),
            path: path.to_path_buf(),
            rubrics: Arc::clone(&self.rubrics_dir),
            suite: Arc::clone(s),
            cases: Mutex::new(None),
            text: Mutex::new(text),
            expected: Mutex::new(Vec::new()),
        });
        self.pending.push(Arc::clone(&later));
        for pipeline in pipelines {
            self.entries.push(Planned {
                id: crate::model::test_name::of_case(id, pipeline.as_deref()),
                file: path.to_path_buf(),
                named_by: path.to_path_buf(),
                formerly_named_by: None,
                pipeline,
                suite_folder: s.folder.clone(),
                aggregates: s.aggregates.clone(),
                baseline: s.baseline.clone(),
                history: s.history.clone(),
                runs_a_command: s.run.is_some() && !own_prediction,
                load: Load::Later(Arc::clone(&later)),
            });
        }
    }

    /// The tests of a case of a gold set's `cases:`, loaded now.
    fn listed(&mut self, listed: &super::cases::Listed) {
        let suite = self.suite(&listed.case_file).clone();
        let pipelines = pipelines_of(&suite);
        let test_id = |pipeline: &Option<String>| {
            crate::model::test_name::of_case(&listed.id, pipeline.as_deref())
        };
        let loaded = suite
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|s| super::cases::load_listed(listed, self.rubrics, s));
        let file = listed.overlay.as_ref().unwrap_or(&listed.gold);
        let files = (
            file.as_path(),
            listed.case_file.as_path(),
            Some(listed.gold.as_path()),
        );
        self.loaded(files, &suite, pipelines, &test_id, loaded);
    }

    /// The tests of a case loaded now, its suite's use of it noted.
    fn loaded(
        &mut self,
        files: (&Path, &Path, Option<&Path>),
        suite: &Result<Arc<Suite>, Vec<LoadError>>,
        pipelines: Vec<Option<String>>,
        test_id: &dyn Fn(&Option<String>) -> String,
        loaded: Result<Vec<Case>, Vec<LoadError>>,
    ) {
        if let Ok(s) = suite {
            self.uses
                .note(s, loaded.as_ref().ok().and_then(|cases| cases.first()));
        }
        push_loaded(&mut self.entries, files, suite, pipelines, test_id, loaded);
    }
}

/// A suite's mistake with the other bounds of its `aggregate` (see
/// [`super::with_every_bound`]), read from the suite once whatever the folders under it.
fn every_bound(read: &mut Vec<(LoadError, Vec<LoadError>)>, e: LoadError) -> Vec<LoadError> {
    if let Some((_, all)) = read.iter().find(|(first, _)| *first == e) {
        return all.clone();
    }
    let all = super::with_every_bound(e.clone());
    read.push((e, all.clone()));
    all
}

impl Planned {
    /// A test of no pipeline or suite that could not be loaded (`loaded` is its error), named by
    /// its file.
    fn failed(id: String, file: PathBuf, loaded: Result<Case, Problem>) -> Planned {
        Planned {
            id,
            named_by: file.clone(),
            file,
            formerly_named_by: None,
            pipeline: None,
            suite_folder: None,
            aggregates: Vec::new(),
            baseline: None,
            history: None,
            runs_a_command: false,
            load: Load::Now(Box::new(loaded)),
        }
    }
}

/// A place that could not be read, as the error of its test.
fn unreadable(reason: &str) -> Result<Case, Problem> {
    Err(Problem::Unreadable(reason.to_owned()))
}

/// The gold sets whose `cases:` could not be read, by folder.
fn broken_sets(found: &[Found]) -> Vec<(&Path, &LoadError)> {
    found
        .iter()
        .filter_map(|f| match f {
            Found::BrokenSet { folder, error } => Some((folder.as_path(), &**error)),
            _ => None,
        })
        .collect()
}

/// The mistake of the gold set above `case`, if its `cases:` could not be read: what a case
/// that does not load says instead of its own errors, which may follow from it (a case file
/// meant to add to a case of the set has no gold of its own). Loaded while planning, then.
fn set_broken_above(broken: &[(&Path, &LoadError)], case: &Path) -> Option<LoadError> {
    broken
        .iter()
        .find(|(folder, _)| case.starts_with(folder))
        .map(|(_, error)| (*error).clone())
}

/// The tests of a case loaded while planning: one per pipeline, failing alike when it does not
/// load. `(path, named_by, formerly)`: its file, the file its names are made from, and the one
/// they were made from before.
fn push_loaded(
    entries: &mut Vec<Planned>,
    (path, named_by, formerly): (&Path, &Path, Option<&Path>),
    suite: &Result<Arc<Suite>, Vec<LoadError>>,
    pipelines: Vec<Option<String>>,
    test_id: &dyn Fn(&Option<String>) -> String,
    loaded: Result<Vec<Case>, Vec<LoadError>>,
) {
    match loaded {
        Ok(cases) => entries.extend(cases.into_iter().map(|case| Planned {
            id: case.id.clone(),
            file: path.to_path_buf(),
            named_by: case.named_by.clone(),
            formerly_named_by: case.formerly_named_by.clone(),
            pipeline: case.pipeline.clone(),
            suite_folder: Some(case.suite_folder.clone()),
            aggregates: case.aggregates.clone(),
            baseline: case.baseline.clone(),
            history: case.history.clone(),
            runs_a_command: matches!(case.prediction, PredictionSource::Run { .. }),
            load: Load::Now(Box::new(Ok(case))),
        })),
        Err(error) => {
            // One failing test per pipeline, as the case would have had.
            let (aggregates, baseline, history, folder) = match &suite {
                Ok(s) => (
                    s.aggregates.clone(),
                    s.baseline.clone(),
                    s.history.clone(),
                    s.folder.clone(),
                ),
                Err(_) => (Vec::new(), None, None, None),
            };
            for pipeline in pipelines {
                entries.push(Planned {
                    id: test_id(&pipeline),
                    file: path.to_path_buf(),
                    named_by: named_by.to_path_buf(),
                    formerly_named_by: formerly.map(Path::to_path_buf),
                    pipeline,
                    suite_folder: folder.clone(),
                    aggregates: aggregates.clone(),
                    baseline: baseline.clone(),
                    history: history.clone(),
                    runs_a_command: false,
                    load: Load::Now(Box::new(Err(Problem::Load(error.clone())))),
                });
            }
        }
    }
}

/// The end of a plan: the suites' unused names, YAML predictions dropped, in name order.
#[allow(clippy::too_many_arguments)]
fn finish_plan(
    found: &[Found],
    root: &Path,
    mut entries: Vec<Planned>,
    uses: SuiteUses,
    when: When,
    named_by_pipelines: HashSet<PathBuf>,
    pending: &[Arc<Pending>],
    wanted: impl Fn(&str) -> bool,
) -> Vec<Planned> {
    // A suite's rule or critical name that no case below it has: a typo, or a leftover. Only
    // when every case was loaded, and for suites inside the folder: else some cases are unseen.
    // (Cases left to their tests are under suites that declare no names.)
    let every_case = found.iter().all(|f| {
        !matches!(f, Found::Case { id, .. } if !wanted(id))
            && !matches!(f, Found::Listed(l) if !wanted(&l.id))
            && !matches!(f, Found::Elsewhere)
    });
    if every_case {
        entries.extend(
            uses.unused(root)
                .into_iter()
                .map(|e| Planned::failed(e.id, e.file, e.loaded)),
        );
    }
    if when != When::InTurn {
        drop_predictions(&mut entries, named_by_pipelines, pending);
    }
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    entries
}

/// A file that does not load as a case is no test when another case reads it as its
/// prediction: one a pipeline names is known by its path; for another, the cases left to their
/// tests that may name it are read for theirs (those that mention its name, and those whose
/// suite gives them a prediction its words do not show).
fn drop_predictions(
    entries: &mut Vec<Planned>,
    named_by_pipelines: HashSet<PathBuf>,
    pending: &[Arc<Pending>],
) {
    let failed = |e: &Planned| {
        matches!(&e.load, Load::Now(l) if matches!(**l, Err(Problem::Load(_))))
            && e.file
                .file_name()
                .is_some_and(|n| !SUITE_FILES.iter().any(|s| n == *s))
    };
    if entries.iter().any(failed) {
        let mut predictions: HashSet<PathBuf> = named_by_pipelines;
        for e in entries.iter() {
            if let Load::Now(loaded) = &e.load {
                match &**loaded {
                    Ok(case) => {
                        predictions.extend(read_files(case).iter().map(|p| by_its_words(p)));
                    }
                    // A mistake located in another file than the case's is in a file the
                    // case reads (its gold file): that file is no case of its own.
                    Err(Problem::Load(errors)) => predictions.extend(
                        errors
                            .iter()
                            .filter(|err| err.file != e.file)
                            .map(|err| by_its_words(&err.file)),
                    ),
                    Err(Problem::Unreadable(_)) => {}
                }
            }
        }
        let unnamed: Vec<String> = entries
            .iter()
            .filter(|e| failed(e) && !predictions.contains(&by_its_words(&e.file)))
            .filter_map(|e| e.file.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        if !unnamed.is_empty() {
            for later in pending {
                let suite = &later.suite;
                let hidden = suite.defaults.iter().any(|(_, d)| d.prediction.is_some())
                    || suite.pipelines.as_ref().is_some_and(|p| {
                        p.list
                            .iter()
                            .any(|(_, t)| t.as_ref().is_some_and(|t| t.contains("{document}")))
                    });
                let may_name = hidden
                    || crate::base::fs::read_text(&later.path)
                        .is_ok_and(|text| unnamed.iter().any(|n| text.contains(n.as_str())));
                if may_name {
                    predictions.extend(later.prediction_files().iter().map(|p| by_its_words(p)));
                }
            }
        }
        let real: HashSet<PathBuf> = predictions
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        entries.retain(|e| {
            let is_prediction = predictions.contains(&by_its_words(&e.file))
                || std::fs::canonicalize(&e.file).is_ok_and(|p| real.contains(&p));
            !(failed(e) && is_prediction)
        });
    }
}

/// The files a case reads besides its own: its prediction and its gold file (a YAML one among
/// the cases is no case of its own).
fn read_files(case: &Case) -> Vec<PathBuf> {
    let prediction = match &case.prediction {
        PredictionSource::File { path, .. } => Some(path.clone()),
        _ => None,
    };
    prediction
        .into_iter()
        .chain(case.gold_file.clone())
        .collect()
}

/// Of the files that did not load as cases, those that a loaded case reads as its prediction
/// (`predictions`, as the cases name them): YAML predictions among the cases, no cases of their own.
pub fn is_a_prediction(failed: &[&Path], predictions: &[PathBuf]) -> HashSet<PathBuf> {
    if failed.is_empty() {
        return HashSet::new();
    }
    let read: HashSet<PathBuf> = predictions
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    failed
        .iter()
        .filter(|f| std::fs::canonicalize(f).is_ok_and(|real| read.contains(&real)))
        .map(|f| f.to_path_buf())
        .collect()
}

/// The pipelines a case is a test for: its suite's, else one test without a pipeline (also
/// when the suite does not load: its error is the test's).
fn pipelines_of<E>(suite: &Result<Arc<Suite>, E>) -> Vec<Option<String>> {
    match suite {
        Ok(s) => s.pipelines.as_ref().map_or(vec![None], |p| {
            p.list.iter().map(|(n, _)| Some(n.clone())).collect()
        }),
        Err(_) => vec![None],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test loads its case from the text its plan read (the plan decided from it that the file
    /// is a case and not skipped), and a case taken again is read again.
    #[test]
    fn a_test_loads_the_text_its_plan_read() {
        let dir = tempfile::tempdir().unwrap();
        let cases = dir.path().join("cases");
        std::fs::create_dir_all(&cases).unwrap();
        let file = cases.join("a.yaml");
        let case = |description: &str| {
            format!(
                "description: {description}\nprediction: a.json\ngold: {{total: \"5\"}}\nthresholds: {{min_exact_match: 1.0}}\n"
            )
        };
        std::fs::write(&file, case("as planned")).unwrap();
        std::fs::write(cases.join("a.json"), "{\"total\": \"5\"}").unwrap();
        let found = crate::load::discover::discover(&cases).unwrap();
        let plan = plan_folder(&found, &cases, &cases, |_| true, When::ByItsTest);
        let [planned] = plan.as_slice() else {
            panic!("one test: {plan:?}")
        };
        let Load::Later(pending) = &planned.load else {
            panic!("loaded by its test: {planned:?}")
        };
        std::fs::write(&file, case("edited")).unwrap();
        let first = pending.take(None).unwrap();
        assert_eq!(first.description.as_deref(), Some("as planned"));
        let again = pending.take(None).unwrap();
        assert_eq!(again.description.as_deref(), Some("edited"));
    }
}
