//! Suites: the `suite.yaml` files above a case, merged — a deeper one overrides key by
//! key — into the settings that apply to it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::base::fs::{is_project, read_text};
use crate::base::location::Mark;
use crate::base::location::{LoadError, closest};
use crate::base::spanned::Spanned;
use crate::load::in_file::InFile;
use crate::model::case::{Price, Profile, Scoring};
use crate::model::metric::{Metric, Threshold};
use crate::model::prediction::PredictionFormat;
use crate::model::suite::{
    Aggregate, BaselineSpec, CompareTo, Judge, PipelineBounds, Pipelines, RegressionGate,
    RunCommand, SliceBounds,
};
use crate::spec::{
    AggregateSpec, CaseFile, JudgeSpec, PipelineAggregateSpec, PipelineName, PipelineSpec,
    PipelineValue, PipelinesSpec, RegressionGateSpec, RunSpec, SuiteFile,
};

/// The names of a suite file.
pub const SUITE_FILES: [&str; 2] = ["suite.yaml", "suite.yml"];

/// What the suites above a case say, merged.
#[derive(Debug, Clone, Default)]
pub struct Suite {
    /// The folder of the nearest suite file (the case's suite folder, as JUnit groups tests).
    pub folder: Option<PathBuf>,
    /// `defaults` of each suite, nearest first, with the suite file they come from.
    pub defaults: Vec<(PathBuf, CaseFile)>,
    /// The pipelines, and the folder of the suite that declares them.
    pub pipelines: Option<Pipelines>,
    /// Every suite above (or at) the case that declares `aggregate`, outermost first.
    pub aggregates: Vec<Arc<Aggregate>>,
    /// Prices per model (a deeper suite's price of a model wins).
    pub pricing: Vec<Price>,
    /// Where the nearest `pricing` is written (its first model): where a missing price goes.
    pub pricing_at: Option<(PathBuf, Mark)>,
    /// The baseline the case is compared with.
    pub baseline: Option<Arc<BaselineSpec>>,
    /// The run history the case's tests are appended to (`history:`), absolute.
    pub history: Option<PathBuf>,
    /// The command that produces predictions.
    pub run: Option<Arc<RunCommand>>,
    /// How the attempts of a repeated case make its verdict (`pass`).
    pub pass: Option<crate::model::suite::PassRule>,
    /// Whether a suite here or above writes `tolerance`: a `regression_gate` without one
    /// replaces the per-case comparison, beside one it adds to it.
    pub tolerance_written: bool,
    /// The suite's profile.
    pub profile: Option<Profile>,
    /// The suite's default Easy-Wrong penalty.
    pub easy_wrong_penalty: Option<f64>,
    /// The units of the boxes of gold and predictions (`bbox_units`).
    pub bbox_units: Option<crate::model::case::BoxUnits>,
    /// The IoU from which a value counts as grounded (`grounded_iou`).
    pub grounded_iou: Option<f64>,
    /// The error rate automatic acceptance may not exceed (`target_error`).
    pub target_error: Option<f64>,
    /// The thresholds at which every field's values are pooled (`acceptance`).
    pub acceptance: Option<crate::metrics::acceptance::Pooling>,
    /// The keys KIEval scores (`kieval: { keys }`), under `profile: kieval`.
    pub kieval_keys: Option<Arc<crate::metrics::kieval::Shortlist>>,
    /// The suite's scoring.
    pub scoring: Option<Scoring>,
    /// The judge of `judge:` checks.
    pub judge: Option<Arc<Judge>>,
    /// Where the parts of a prediction are in the pipelines' own documents (a deeper suite's
    /// replaces it whole).
    pub prediction_format: Option<Arc<crate::model::prediction::PredictionFormat>>,
}

/// Suite files read so far, by path.
#[derive(Debug, Default)]
pub struct Suites {
    root: PathBuf,
    /// The folders above `root` whose suites apply, outermost first: the same for every case.
    above: Vec<PathBuf>,
    read: HashMap<PathBuf, Result<Arc<SuiteFile>, LoadError>>,
    /// One aggregate per suite file, shared by its cases (its test is made once).
    aggregates: HashMap<PathBuf, Arc<Aggregate>>,
}

impl Suites {
    /// Suites under the cases folder `root`.
    pub fn new(root: &Path) -> Suites {
        Suites {
            root: root.to_path_buf(),
            above: above(root),
            read: HashMap::new(),
            aggregates: HashMap::new(),
        }
    }

    /// The merged settings of every suite between the cases folder and `case_file`'s folder.
    pub fn for_case(&mut self, case_file: &Path) -> Result<Suite, LoadError> {
        let mut suite = Suite::default();
        let dir = case_file.parent().unwrap_or(Path::new(""));
        let rel = dir.strip_prefix(&self.root).unwrap_or(Path::new(""));
        let mut folders = vec![self.root.clone()];
        let mut at = self.root.clone();
        for part in rel.components() {
            at = at.join(part);
            folders.push(at.clone());
        }
        // Outermost first, so that deeper suites override. Aggregates above the cases folder
        // would cover cases this run does not see: they are left to runs from there.
        let above = self.above.clone();
        let n_above = above.len();
        for (i, folder) in above.into_iter().chain(folders).enumerate() {
            let Some(file) = SUITE_FILES
                .iter()
                .map(|n| folder.join(n))
                .find(|p| p.is_file())
            else {
                continue;
            };
            let spec = self.read(&file)?;
            let before = suite.aggregates.len();
            apply(&mut suite, &spec, &file, &folder, &self.root)?;
            suite.folder = Some(folder.clone());
            if i < n_above {
                suite.aggregates.truncate(before);
            }
            if suite.aggregates.len() > before
                && let Some(new) = suite.aggregates.pop()
            {
                let shared = self.aggregates.entry(file.clone()).or_insert(new);
                suite.aggregates.push(Arc::clone(shared));
            }
        }
        suite.defaults.reverse();
        Ok(suite)
    }

    fn read(&mut self, file: &Path) -> Result<Arc<SuiteFile>, LoadError> {
        self.read
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                let text = read_text(file)?;
                super::parse::<SuiteFile>(file, &text).map(Arc::new)
            })
            .clone()
    }
}

/// The most calls at once any suite under `root` asks for (`run.concurrency`): the run starts
/// that many test threads, unless `--test-threads` says. A suite that does not read is left to
/// the run, which says why.
pub fn most_concurrent_calls(root: &Path) -> Option<u32> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| SUITE_FILES.contains(&e.file_name().to_string_lossy().as_ref()))
        .filter_map(|e| {
            let text = read_text(e.path()).ok()?;
            let spec = super::parse::<SuiteFile>(e.path(), &text).ok()?;
            Some(spec.run?.value.concurrency?.value)
        })
        .max()
}

/// The history files the suites under `root` declare (`history:`), each with its suite file, in
/// the order of the suite files' paths; a suite file that does not read is an error (`goldgate
/// lint` shows all its mistakes).
pub fn histories(root: &Path) -> Result<Vec<(PathBuf, PathBuf)>, LoadError> {
    let mut found = Vec::new();
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| SUITE_FILES.contains(&e.file_name().to_string_lossy().as_ref()))
        .map(walkdir::DirEntry::into_path)
        .collect();
    files.sort();
    for file in files {
        let text = read_text(&file)?;
        let spec = super::parse::<SuiteFile>(&file, &text)?;
        if let Some(h) = spec.history {
            let dir = file.parent().unwrap_or(Path::new("."));
            found.push((file.clone(), dir.join(&h.value)));
        }
    }
    Ok(found)
}

/// `pipelines`: names with their prediction paths, or names alone (a `run` command makes them),
/// and the bounds and prediction format a pipeline gives its own.
fn pipelines(
    here: &InFile,
    spec: &Spanned<PipelinesSpec>,
    dir: &Path,
) -> Result<Pipelines, LoadError> {
    let file = here.file;
    let at = Mark::of(&spec.referenced);
    let mut list: Vec<(String, Option<String>)> = Vec::new();
    let mut marks: Vec<Mark> = Vec::new();
    let mut bounds: Vec<(String, PipelineBounds)> = Vec::new();
    let mut formats = Vec::new();
    match &spec.value {
        PipelinesSpec::Map(entries) => {
            for (name, v) in entries {
                let mark = Mark::of(&v.referenced);
                let (template, mark) = match &v.value {
                    PipelineValue::Text(t) => (Some(t.clone()), mark),
                    PipelineValue::Entry(entry) => {
                        pipeline_entry(here, (name, entry, mark), &mut bounds, &mut formats)?
                    }
                    PipelineValue::Other(kind) => {
                        return Err(here
                            .err(
                                mark,
                                &format!("pipelines.{name}"),
                                format!(
                                    "a pipeline's prediction path must be a text, found {kind}"
                                ),
                            )
                            .hint("write `guided: outputs/guided/{case}.json`"));
                    }
                };
                list.push((name.clone(), template));
                marks.push(mark);
            }
        }
        PipelinesSpec::List(items) => {
            for (i, v) in items.iter().enumerate() {
                list.push((pipeline_name(here, i, v)?, None));
                marks.push(Mark::of(&v.referenced));
            }
        }
        PipelinesSpec::Other => {
            return Err(here
                .err(
                    at,
                    "pipelines",
                    "`pipelines` must map names to prediction paths, or list names",
                )
                .hint("write `pipelines: { guided: outputs/guided/{case}.json }`"));
        }
    }
    if list.is_empty() {
        return Err(here
            .err(at, "pipelines", "`pipelines` is empty")
            .hint("name at least one pipeline, or remove the key"));
    }
    for (name, _) in &list {
        if name.is_empty() || name.contains(['/', ':', ' ']) {
            return Err(here.err(at, &format!("pipelines.{name}"), format!("pipeline name `{name}` cannot hold `/`, `:` or spaces: it is part of test names")));
        }
    }
    templates(here, &list, &marks)?;
    Ok(Pipelines {
        dir: dir.to_path_buf(),
        reference: list[0].0.clone(),
        list,
        at: (file.to_path_buf(), at),
        marks,
        bounds,
        formats,
    })
}

/// The `i`th name of a list of pipelines.
fn pipeline_name(here: &InFile, i: usize, v: &Spanned<PipelineName>) -> Result<String, LoadError> {
    match &v.value {
        PipelineName::Text(t) => Ok(t.clone()),
        PipelineName::Other(kind) => Err(here
            .err(
                Mark::of(&v.referenced),
                &format!("pipelines[{i}]"),
                format!("a pipeline name must be a text, found {kind}"),
            )
            .hint("to give a pipeline its own keys, write the pipelines as a mapping: `pipelines: { llm: {}, ocr: { aggregate: { max_ece: null } } }`")),
    }
}

/// A pipeline written as a mapping: its prediction path (none when `run` makes them) and where
/// it is written (else the pipeline's `mark`); its own aggregate bounds and prediction format
/// go to `bounds` and `formats`.
fn pipeline_entry(
    here: &InFile,
    (name, entry, mark): (&str, &PipelineSpec, Mark),
    bounds: &mut Vec<(String, PipelineBounds)>,
    formats: &mut Vec<(String, Arc<PredictionFormat>)>,
) -> Result<(Option<String>, Mark), LoadError> {
    if let Some(agg) = &entry.aggregate {
        bounds.push((name.to_owned(), pipeline_bounds(here, name, agg)?));
    }
    if let Some(f) = &entry.prediction_format {
        let section = format!("pipelines.{name}.prediction_format");
        let format = super::prediction_format::format(here.file, &section, f)?;
        formats.push((name.to_owned(), Arc::new(format)));
    }
    Ok(match &entry.prediction {
        Some(p) => (Some(p.value.clone()), Mark::of(&p.referenced)),
        None => (None, mark),
    })
}

/// A pipeline's `aggregate`: bounds checked as the suite's are, and the keys set to `null`,
/// which remove the suite's bound for this pipeline.
fn pipeline_bounds(
    here: &InFile,
    name: &str,
    agg: &Spanned<PipelineAggregateSpec>,
) -> Result<PipelineBounds, LoadError> {
    let section = format!("pipelines.{name}.aggregate");
    let mut given: Vec<(&str, Spanned<f64>)> = Vec::new();
    let mut removed = Vec::new();
    for metric in Metric::ALL.into_iter().filter(|m| m.bounds_in(true)) {
        let key = metric.threshold_key();
        match agg.value.bound(key) {
            Some(Spanned {
                value: Some(v),
                referenced,
                defined,
            }) => given.push((key, Spanned::new(*v, *referenced, *defined))),
            Some(Spanned { value: None, .. }) => removed.push(metric),
            None => {}
        }
    }
    let set = here.bounds(
        &section,
        |key| given.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
        None,
    )?;
    let at = Mark::of(&agg.referenced);
    if set.is_empty() && removed.is_empty() {
        return Err(here
            .err(at, &section, format!("`{section}` changes no bound"))
            .hint("give a bound that replaces the suite's, such as `min_anls: 0.8`, or `null` to remove one, such as `max_ece: null`"));
    }
    can_fail(here, &section, &set)?;
    Ok(PipelineBounds {
        set,
        removed,
        at: (here.file.to_path_buf(), at),
    })
}

/// Each pipeline's prediction path names its own file per case: a path without `{case}` (or
/// `{document}`) is one file that every case would be scored against, and two pipelines whose
/// paths lead to the same files score the same predictions twice, under two names.
fn templates(
    here: &InFile,
    list: &[(String, Option<String>)],
    marks: &[Mark],
) -> Result<(), LoadError> {
    let mark = |i: usize| marks.get(i).copied().unwrap_or_default();
    let mut seen: Vec<(String, &str)> = Vec::new();
    for (i, (name, template)) in list.iter().enumerate() {
        let Some(template) = template else {
            continue;
        };
        if !template.contains("{case}") && !template.contains("{document}") {
            return Err(here
                .err(
                    mark(i),
                    &format!("pipelines.{name}"),
                    format!("`{template}` names no case: every case would be scored against this one file"),
                )
                .hint(format!("put the case's name in the path: `{name}: outputs/{name}/{{case}}.json`")));
        }
        // `{pipeline}` is the one part that differs between pipelines of one path.
        let files = template.replace("{pipeline}", name);
        if let Some((_, first)) = seen.iter().find(|(f, _)| *f == files) {
            return Err(here
                .err(
                    mark(i),
                    &format!("pipelines.{name}"),
                    format!("pipelines `{first}` and `{name}` read the same files (`{files}`): each would be scored on the other's predictions"),
                )
                .hint(format!("give each pipeline its own folder: `{name}: outputs/{name}/{{case}}.json`")));
        }
        seen.push((files, name));
    }
    Ok(())
}

/// `aggregate`: the suite's bounds, each pipeline's own over them (`pipelines` in effect at
/// this suite), and the name of its test.
fn aggregate(
    here: &InFile,
    agg: Option<&Spanned<AggregateSpec>>,
    gate: Option<RegressionGate>,
    pipelines: Option<&Pipelines>,
    dir: &Path,
    root: &Path,
) -> Result<Aggregate, LoadError> {
    let file = here.file;
    let (thresholds, slices) = match agg {
        Some(agg) => (
            here.bounds("aggregate", |key| agg.value.bound(key), None)?,
            slice_bounds(here, &agg.value)?,
        ),
        None => (Vec::new(), Vec::new()),
    };
    if let Some(agg) = agg.filter(|_| thresholds.is_empty() && slices.is_empty()) {
        return Err(here
            .err(
                Mark::of(&agg.referenced),
                "aggregate",
                "`aggregate` bounds nothing",
            )
            .hint("give at least one threshold, such as `min_pass_rate: 0.95`"));
    }
    can_fail(here, "aggregate", &thresholds)?;
    let mut own = Vec::new();
    for (name, bounds) in pipelines.map_or(&[][..], |p| &p.bounds) {
        let merged = bounds.over(&thresholds);
        // As an `aggregate` that bounds nothing: the pipeline's test could only pass.
        if merged.is_empty() {
            return Err(LoadError::at(
                &bounds.at.0,
                bounds.at.1,
                format!("pipelines.{name}.aggregate"),
                format!("`pipelines.{name}.aggregate` removes every bound of the `aggregate` of `{}`, so the aggregate test of `{name}` could only pass", file.display()),
            )
            .hint("keep a bound the pipeline can meet, such as `min_pass_rate: 0.95`"));
        }
        own.push((name.clone(), merged));
    }
    // The root suite's aggregate is named after the cases folder, so that no case name
    // (a case `aggregate.yaml`) can take its test name.
    let id = match dir.strip_prefix(root).map(crate::base::fs::slashed) {
        Ok(rel) if !rel.is_empty() => rel,
        _ => std::fs::canonicalize(root)
            .ok()
            .and_then(|r| r.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "cases".into()),
    };
    Ok(Aggregate {
        id,
        file: file.to_path_buf(),
        thresholds,
        pipelines: own,
        slices,
        gate,
    })
}

/// The case metrics a `regression_gate` may compare: those a baseline keeps per case.
const GATED: [Metric; 8] = [
    Metric::Score,
    Metric::ExactMatch,
    Metric::Anls,
    Metric::ExactCritical,
    Metric::AnlsCritical,
    Metric::F1,
    Metric::Brier,
    Metric::Ece,
];

/// `regression_gate`: a case metric a baseline keeps, a `min_effect` in [0, 1), a
/// `confidence` in [0.5, 1); the suite (or one above) must declare the baseline.
fn regression_gate(
    here: &InFile,
    gate: &Spanned<RegressionGateSpec>,
    baseline: Option<&Arc<BaselineSpec>>,
) -> Result<RegressionGate, LoadError> {
    let g = &gate.value;
    let names: Vec<&str> = GATED.iter().map(|m| m.name()).collect();
    let metric = GATED
        .into_iter()
        .find(|m| m.name() == g.metric.value)
        .ok_or_else(|| {
            let e = here.err(
                Mark::of(&g.metric.referenced),
                "regression_gate.metric",
                format!(
                    "`{}` is not a case metric the baseline keeps: the gate compares each case's value with its entry",
                    g.metric.value
                ),
            );
            match closest(&g.metric.value, names.iter().copied()) {
                Some(best) => e.hint(format!("did you mean `{best}`?")),
                None => e.hint(format!("write one of {}", names.join(", "))),
            }
        })?;
    let effect = &g.min_effect;
    if !(0.0..1.0).contains(&effect.value) {
        return Err(here
            .err(
                Mark::of(&effect.referenced),
                "regression_gate.min_effect",
                format!(
                    "`min_effect` is {}; it must be 0 or more and under 1: the metrics a baseline keeps lie in [0, 1]",
                    effect.value
                ),
            )
            .hint("write the smallest mean drop that matters, such as `min_effect: 0.02`"));
    }
    let confidence = match &g.confidence {
        None => 0.95,
        Some(c) if (0.5..1.0).contains(&c.value) && c.value <= 0.999 => c.value,
        Some(c) => {
            return Err(here
                .err(
                    Mark::of(&c.referenced),
                    "regression_gate.confidence",
                    format!("`confidence` is {}; it must be from 0.5 to 0.999", c.value),
                )
                .hint("write the level of the interval, such as `confidence: 0.95`"));
        }
    };
    let mark = Mark::of(&gate.referenced);
    let Some(baseline) = baseline else {
        return Err(here
            .err(
                mark,
                "regression_gate",
                "`regression_gate` compares with a baseline, and no suite here or above declares one",
            )
            .hint("declare it beside the gate: `baseline: baseline.json`"));
    };
    Ok(RegressionGate {
        metric,
        min_effect: effect.value,
        confidence,
        baseline: Arc::clone(baseline),
        at: (here.file.to_path_buf(), mark),
    })
}

/// `aggregate.slices`: each `tag=value` with its bounds, checked as the suite's are.
fn slice_bounds(here: &InFile, agg: &AggregateSpec) -> Result<Vec<SliceBounds>, LoadError> {
    let mut out = Vec::new();
    for (key, spec) in agg.slices.iter().flatten() {
        let at = Mark::of(&spec.referenced);
        let section = format!("aggregate.slices.{key}");
        let Some((tag, value)) = key
            .split_once('=')
            .filter(|(t, v)| !t.trim().is_empty() && !v.trim().is_empty())
        else {
            return Err(here
                .err(at, &section, format!("slice `{key}` is not `tag=value`"))
                .hint("name a tag and its value, such as `lang=fr`, or `tag=scan` for a tag written in a list"));
        };
        if spec.value.slices.is_some() {
            return Err(here
                .err(
                    at,
                    &section,
                    format!("slice `{key}` gives `slices` of its own"),
                )
                .hint("write each slice once, under the suite's `aggregate.slices`"));
        }
        let thresholds = here.bounds(&section, |k| spec.value.bound(k), None)?;
        if thresholds.is_empty() {
            return Err(here
                .err(at, &section, format!("slice `{key}` bounds nothing"))
                .hint("give it at least one threshold, such as `min_anls: 0.9`"));
        }
        can_fail(here, &section, &thresholds)?;
        out.push(SliceBounds {
            tag: tag.trim().to_owned(),
            value: value.trim().to_owned(),
            thresholds,
            at,
        });
    }
    Ok(out)
}

/// A bound every run meets is refused as it is in a case: the aggregate test could not fail on
/// it, and whoever wrote it meant a bound that can.
fn can_fail(here: &InFile, section: &str, thresholds: &[Threshold]) -> Result<(), LoadError> {
    let Some(t) = thresholds.iter().find(|t| t.cannot_fail(false)) else {
        return Ok(());
    };
    let (worst, fix) = if t.is_max {
        (
            "1 or less",
            format!(
                "lower it to what the suite may not exceed, such as `{}: 0.1`",
                t.name
            ),
        )
    } else {
        (
            "0 or more",
            format!(
                "raise it to what the suite must reach, such as `{}: 0.9`",
                t.name
            ),
        )
    };
    Err(here
        .err(
            Mark {
                line: t.line,
                column: t.column,
            },
            &format!("{section}.{}", t.name),
            format!(
                "`{}` is {}, so it holds whatever the predictions say: `{}` is {worst}, and bounds are compared with a slack of 1e-9",
                t.name,
                t.limit,
                t.metric.name()
            ),
        )
        .hint(format!("{fix}, or remove it")))
}

/// A command's `timeout_s` (60 s unless given): more than 0, at most a week.
fn timeout_of(
    here: &InFile,
    mark: Mark,
    path: &str,
    seconds: Option<f64>,
) -> Result<Duration, LoadError> {
    let seconds = seconds.unwrap_or(60.0);
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|t| !t.is_zero() && t.as_secs() <= 7 * 24 * 3600)
        .ok_or_else(|| {
            here.err(
                mark,
                path,
                format!("`timeout_s` is {seconds}; it must be more than 0 and at most a week"),
            )
            .hint("write the seconds a command may take, such as 60")
        })
}

/// `judge`: the command that answers `judge:` checks, its verdict file and how often it is asked.
fn judge_command(
    here: &InFile,
    judge: &Spanned<JudgeSpec>,
    dir: &Path,
) -> Result<Judge, LoadError> {
    let j = &judge.value;
    let mark = Mark::of(&judge.referenced);
    if j.command.is_empty() || j.command[0].trim().is_empty() {
        return Err(here
            .err(mark, "judge.command", "`command` is empty")
            .hint("write `command: [python3, judge.py]`"));
    }
    // A judge is asked on its standard input: a placeholder would reach it as literal text.
    if let Some((i, arg)) = j
        .command
        .iter()
        .enumerate()
        .find(|(_, a)| PLACEHOLDERS.iter().any(|p| a.contains(p)))
    {
        return Err(here
            .err(
                mark,
                &format!("judge.command[{i}]"),
                format!("`{arg}` holds a placeholder, but a judge's command takes none: it would reach the judge as this very text"),
            )
            .hint("the judge reads each question (with its case) on its standard input: remove the placeholder"));
    }
    let repeat = j.repeat.as_ref().map_or(1, |r| r.value);
    if !(1..=99).contains(&repeat) {
        let at = j.repeat.as_ref().map_or(mark, |r| Mark::of(&r.referenced));
        return Err(here
            .err(
                at,
                "judge.repeat",
                format!("`repeat` is {repeat}; it must be 1 to 99"),
            )
            .hint("an odd number, such as 3, has a majority every time"));
    }
    if j.verdicts.trim().is_empty() {
        return Err(here
            .err(mark, "judge.verdicts", "`verdicts` is empty")
            .hint("write `verdicts: verdicts.json`"));
    }
    if let Some(e) = not_writable(
        here,
        mark,
        "judge.verdicts",
        ("verdict file", &j.verdicts),
        dir,
    ) {
        return Err(e);
    }
    let timeout = match &j.timeout_s {
        Some(t) => timeout_of(
            here,
            Mark::of(&t.referenced),
            "judge.timeout_s",
            Some(t.value),
        )?,
        None => timeout_of(here, mark, "judge.timeout_s", None)?,
    };
    Ok(Judge {
        dir: dir.to_path_buf(),
        command: j.command.clone(),
        verdicts: dir.join(&j.verdicts),
        repeat,
        timeout,
        at: (here.file.to_path_buf(), mark),
    })
}

/// `run`: the command that produces predictions, with its timeout.
fn run_command(here: &InFile, run: &Spanned<RunSpec>, dir: &Path) -> Result<RunCommand, LoadError> {
    let file = here.file;
    let r = &run.value;
    let mark = Mark::of(&run.referenced);
    if r.command.is_empty() || r.command[0].trim().is_empty() {
        return Err(here
            .err(mark, "run.command", "`command` is empty")
            .hint("write `command: [python3, extract.py, \"{document}\"]`"));
    }
    if let Some(i) = r.command.iter().position(|a| !placeholder_may_stand(a)) {
        return Err(here
            .err(
                mark,
                &format!("run.command[{i}]"),
                format!("a placeholder inside a shell script would be pasted in unquoted, and `{}` may be one: a placeholder may stand only as a whole argument or in a file path, since any program (`sh -c`, `awk`, `perl -e`, `env -S`...) may read an argument as code, where a case file named `$(rm -rf ~).yaml` would run as a command", r.command[i]),
            )
            .hint("pass it as an argument of its own and quote it in the script: `[sh, -c, 'extract \"$1\"', sh, \"{case}\"]`, or drop the shell: `[extract, \"{case}\"]`"));
    }
    let timeout = timeout_of(here, mark, "run.timeout_s", r.timeout_s)?;
    let repeat = r.repeat.unwrap_or(1);
    if !(1..=100).contains(&repeat) {
        return Err(here
            .err(
                mark,
                "run.repeat",
                format!("`repeat` is {repeat}; it must be from 1 to 100"),
            )
            .hint("write how many times each case runs, such as `repeat: 3`"));
    }
    Ok(RunCommand {
        dir: dir.to_path_buf(),
        command: r.command.clone(),
        timeout,
        repeat,
        at: (file.to_path_buf(), mark),
        cache: Arc::new(call_cache(here, mark, r, dir)?),
        policy: call_policy(here, r)?,
    })
}

/// The cache folder of a suite in `dir` that names none: `.goldgate/cache` at the root of its
/// project (the nearest folder up with `Cargo.toml` or `.git`), written as `dir` is (`cases/x` run
/// from the crate gives `.goldgate/cache`), else beside the suite.
fn default_cache_folder(dir: &Path) -> PathBuf {
    let cache = |root: &Path| root.join(".goldgate").join("cache");
    for up in dir.ancestors() {
        let here = if up.as_os_str().is_empty() {
            Path::new(".")
        } else {
            up
        };
        if is_project(here) {
            return cache(up);
        }
    }
    crate::base::fs::project_root(dir).map_or_else(|| cache(dir), |root| cache(&root))
}

/// `run.retries`, `run.call_errors` and `run.concurrency`.
fn call_policy(here: &InFile, r: &RunSpec) -> Result<crate::model::suite::CallPolicy, LoadError> {
    let mut policy = crate::model::suite::CallPolicy::default();
    if let Some(spec) = &r.retries {
        let at = Mark::of(&spec.referenced);
        if spec.value.max > 10 {
            return Err(here
                .err(
                    at,
                    "run.retries.max",
                    format!("`max` is {}; at most 10 retries", spec.value.max),
                )
                .hint(
                    "a call that fails 10 times in a row will not work the 11th: write `max: 3`",
                ));
        }
        let backoff = spec.value.backoff_s.unwrap_or(1.0);
        if !(0.0..=600.0).contains(&backoff) {
            return Err(here
                .err(
                    at,
                    "run.retries.backoff_s",
                    format!("`backoff_s` {backoff} is outside [0, 600]"),
                )
                .hint("give the seconds to wait before the first retry, such as 2"));
        }
        policy.max_retries = spec.value.max;
        policy.backoff = Duration::from_secs_f64(backoff);
    }
    if let Some(n) = &r.concurrency {
        if !(1..=256).contains(&n.value) {
            return Err(here
                .err(
                    Mark::of(&n.referenced),
                    "run.concurrency",
                    format!("`concurrency` is {}; it must be from 1 to 256", n.value),
                )
                .hint("give how many calls may wait on the provider at once, such as 16"));
        }
        policy.concurrency = Some(n.value);
    }
    if let Some(rule) = &r.call_errors {
        policy.skip_call_errors = match rule.value.as_str() {
            "fail" => false,
            "skip" => true,
            other => {
                return Err(here
                    .err(
                        Mark::of(&rule.referenced),
                        "run.call_errors",
                        format!("unknown `call_errors: {other}`"),
                    )
                    .hint("`fail` (the default) fails the case; `skip` leaves it out of the means and the gates"));
            }
        };
    }
    Ok(policy)
}

/// `run.cache`, `run.cache_folder`, `run.inputs` and `run.env`: how the command's outputs are
/// kept and reused.
fn call_cache(
    here: &InFile,
    mark: Mark,
    r: &RunSpec,
    dir: &Path,
) -> Result<crate::model::suite::CallCache, LoadError> {
    use crate::model::suite::CacheMode;
    let mode = match &r.cache {
        None => CacheMode::default(),
        Some(name) => CacheMode::from_name(&name.value).ok_or_else(|| {
            let e = here.err(
                Mark::of(&name.referenced),
                "run.cache",
                format!("unknown `cache: {}`", name.value),
            );
            match closest(&name.value, CacheMode::NAMES) {
                Some(best) => e.hint(format!("did you mean `{best}`?")),
                None => e.hint("the modes are `use` (the default), `refresh`, `replay` and `off`"),
            }
        })?,
    };
    // Checked as it will be written, made or not: a folder that does not exist yet can lead out
    // as well as one that does, and `.goldgate` may be a committed link.
    let (folder, at, written) = match &r.cache_folder {
        None => {
            let folder = default_cache_folder(dir);
            let written = std::path::absolute(&folder).unwrap_or_else(|_| folder.clone());
            (folder, mark, written.to_string_lossy().into_owned())
        }
        Some(f) => (dir.join(&f.value), Mark::of(&f.referenced), f.value.clone()),
    };
    if let Some(e) = not_writable(
        here,
        at,
        "run.cache_folder",
        ("cache folder", &written),
        dir,
    ) {
        return Err(e);
    }
    for (i, pattern) in r.inputs.iter().enumerate() {
        if let Err(e) = glob::Pattern::new(pattern) {
            return Err(here
                .err(
                    mark,
                    &format!("run.inputs[{i}]"),
                    format!("`{pattern}` is not a glob: {}", e.msg),
                )
                .hint("name files relative to this folder, such as `prompts/*.txt`"));
        }
    }
    for (i, name) in r.env.iter().enumerate() {
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            return Err(here
                .err(
                    mark,
                    &format!("run.env[{i}]"),
                    format!("`{name}` is not the name of a variable"),
                )
                .hint("name the variables whose values decide the output, such as `MODEL`"));
        }
    }
    Ok(crate::model::suite::CallCache {
        mode,
        folder,
        inputs: r.inputs.clone(),
        env: r.env.clone(),
    })
}

/// The placeholders a suite's command may hold.
const PLACEHOLDERS: [&str; 3] = ["{case}", "{pipeline}", "{document}"];

/// Whether a command's argument holds its placeholders only where no program can read them as
/// code: an allow-list of places, not a list of interpreters (there are always more: `env -S`,
/// `flock -c`, `awk`, `perl -le`...). A placeholder may stand
/// - as the whole argument (`"{document}"`): it reaches the program as one argument, unquoted
///   by no shell;
/// - in a file path (`out/{pipeline}/{case}.json`, `scans/{case}.pdf`): around the placeholders
///   only letters, digits and `_` `-` `.` `/`, and no leading `-`, which would make it an option
///   (`-c{case}` is a script for `python3`, `--eval={case}` for `node`).
///
/// Anything else (a space, a quote, `$`, `;`, `(`, `=`...) could make the argument code, and
/// the placeholder's text (a case's file name) part of it.
fn placeholder_may_stand(arg: &str) -> bool {
    if !PLACEHOLDERS.iter().any(|p| arg.contains(p)) || PLACEHOLDERS.contains(&arg) {
        return true;
    }
    let mut around = arg.to_owned();
    for p in PLACEHOLDERS {
        around = around.replace(p, "/");
    }
    !arg.starts_with('-')
        && around
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
}

/// Folders above the cases folder whose suites still apply: every ancestor up to
/// the project root (the folder with `Cargo.toml` or `.git`), so that running `cases/invoices/fr`
/// keeps `cases/suite.yaml` even when `cases/invoices` has none. Without a project root above,
/// the unbroken chain of parents that hold a suite file.
fn above(root: &Path) -> Vec<PathBuf> {
    let Ok(start) = std::fs::canonicalize(root) else {
        return Vec::new();
    };
    let has_suite = |dir: &Path| SUITE_FILES.iter().any(|n| dir.join(n).is_file());
    let ancestors: Vec<&Path> = start.ancestors().skip(1).collect();
    let project = if is_project(&start) {
        Some(0)
    } else {
        ancestors.iter().position(|a| is_project(a)).map(|i| i + 1)
    };
    let mut chain: Vec<PathBuf> = match project {
        // Up to the project root, every folder with a suite.
        Some(n) => ancestors
            .iter()
            .take(n)
            .filter(|a| has_suite(a))
            .map(|a| a.to_path_buf())
            .collect(),
        None => ancestors
            .iter()
            .take_while(|a| has_suite(a))
            .map(|a| a.to_path_buf())
            .collect(),
    };
    chain.reverse();
    chain
}

/// Why goldgate cannot write the file a suite in `dir` names as `written` (a baseline, a history,
/// a judge's verdicts, a cache folder), as a located error at `key`; `None` when it can. The file
/// is resolved as it will be written ([`crate::base::writing`]): inside the project (else the
/// suite's own folder), no link on the way, `..` taken as the folder it leads to.
fn not_writable(
    here: &InFile,
    at: Mark,
    key: &str,
    (what, written): (&str, &str),
    dir: &Path,
) -> Option<LoadError> {
    let real = std::fs::canonicalize(dir).ok()?;
    let root = real
        .ancestors()
        .find(|a| is_project(a))
        .map_or_else(|| real.clone(), Path::to_path_buf);
    let why = match crate::base::writing::resolve_in(&root, &dir.join(written)) {
        Ok(_) => return None,
        Err(crate::base::writing::Refused::Outside { root }) => format!(
            "the {what} `{written}` is outside the project `{}`: goldgate writes only inside it",
            root.display()
        ),
        Err(crate::base::writing::Refused::Link { link }) => format!(
            "the {what} `{written}` goes through the link `{}`: goldgate writes nothing of a project through a link, which a commit can point anywhere",
            link.display()
        ),
        Err(crate::base::writing::Refused::Io(e)) => {
            format!("the {what} `{written}` cannot be looked at: {e}")
        }
    };
    let fix = format!(
        "keep it in a real folder inside the project, beside the suite, as `{key}: {}`",
        Path::new(written)
            .file_name()
            .map_or_else(|| written.into(), |n| n.to_string_lossy())
    );
    Some(here.err(at, key, why).hint(fix))
}

/// Folds one suite file into the settings merged so far, key by key.
fn apply(
    suite: &mut Suite,
    spec: &SuiteFile,
    file: &Path,
    dir: &Path,
    root: &Path,
) -> Result<(), LoadError> {
    let here = InFile { file };
    if let Some(defaults) = &spec.defaults {
        suite.defaults.push((file.to_path_buf(), defaults.clone()));
    }
    if let Some(p) = &spec.pipelines {
        suite.pipelines = Some(pipelines(&here, p, dir)?);
    }
    if let Some(to) = &spec.compare_to {
        compare_to(&here, suite, to, spec.aggregate.as_ref())?;
    }
    pricing(&here, suite, spec)?;
    let tolerance = tolerance(&here, spec.tolerance.as_ref())?;
    suite.tolerance_written |= tolerance.is_some();
    baseline(&here, suite, spec.baseline.as_ref(), tolerance, dir)?;
    if let Some(rule) = &spec.fail_on {
        fail_on(&here, suite, rule)?;
    }
    suite.history = history(&here, spec.history.as_ref(), dir)?.or(suite.history.take());
    let gate = match &spec.regression_gate {
        Some(g) => Some(gate_over_baseline(&here, suite, g)?),
        None => None,
    };
    if spec.aggregate.is_some() || gate.is_some() {
        let agg = aggregate(
            &here,
            spec.aggregate.as_ref(),
            gate,
            suite.pipelines.as_ref(),
            dir,
            root,
        )?;
        suite.aggregates.push(Arc::new(agg));
    }
    if let Some(run) = &spec.run {
        suite.run = Some(Arc::new(run_command(&here, run, dir)?));
    }
    if let Some(p) = &spec.pass {
        suite.pass = Some(pass_over_attempts(&here, suite, p)?);
    }
    if let Some(p) = &spec.profile {
        suite.profile = Some(here.profile(p)?);
    }
    if let Some(k) = &spec.kieval {
        kieval(&here, suite, k, dir)?;
    }
    if let Some(s) = &spec.scoring {
        suite.scoring = Some(here.scoring(s)?);
    }
    if let Some(j) = &spec.judge {
        suite.judge = Some(Arc::new(judge_command(&here, j, dir)?));
    }
    // In `defaults:` it means the same: the suite's cases read their documents through it.
    let format = spec.prediction_format.as_ref().or_else(|| {
        spec.defaults
            .as_ref()
            .and_then(|d| d.prediction_format.as_ref())
    });
    if let Some(f) = format {
        let format = super::prediction_format::format(file, "prediction_format", f)?;
        suite.prediction_format = Some(Arc::new(format));
    }
    if let Some(p) = &spec.easy_wrong_penalty {
        suite.easy_wrong_penalty = Some(easy_wrong_penalty(&here, p)?);
    }
    grounding(&here, suite, spec)?;
    Ok(())
}

/// `regression_gate:` over the baseline here or above, which it makes the suite's comparison
/// when no `tolerance` is written (the gate then replaces the per-case comparison).
fn gate_over_baseline(
    here: &InFile,
    suite: &mut Suite,
    gate: &Spanned<RegressionGateSpec>,
) -> Result<RegressionGate, LoadError> {
    if let Some(b) = suite.baseline.as_mut().filter(|_| !suite.tolerance_written) {
        *b = Arc::new(BaselineSpec {
            per_case: false,
            ..(**b).clone()
        });
    }
    let gate = regression_gate(here, gate, suite.baseline.as_ref())?;
    // Under `fail_on: regressions` each test is held to the gate's metric.
    if let Some(b) = suite.baseline.as_mut() {
        *b = Arc::new(BaselineSpec {
            gated: Some(gate.metric),
            ..(**b).clone()
        });
    }
    Ok(gate)
}

/// `fail_on:` over the baseline here or above: `regressions` compares each test with its entry,
/// and there is no entry without a baseline.
fn fail_on(here: &InFile, suite: &mut Suite, rule: &Spanned<String>) -> Result<(), LoadError> {
    use crate::model::suite::FailOn;
    let at = Mark::of(&rule.referenced);
    let Some(fail_on) = FailOn::from_name(&rule.value) else {
        let e = here.err(
            at,
            "fail_on",
            format!("unknown `fail_on` rule `{}`", rule.value),
        );
        return Err(match closest(&rule.value, FailOn::NAMES) {
            Some(best) => e.hint(format!("did you mean `{best}`?")),
            None => e.hint("write `failures` (every failing test fails the run, the default) or `regressions` (a test worse than its baseline entry)"),
        });
    };
    match suite.baseline.as_mut() {
        Some(b) => {
            *b = Arc::new(BaselineSpec {
                fail_on,
                ..(**b).clone()
            });
            Ok(())
        }
        None if fail_on == FailOn::Failures => Ok(()),
        None => Err(here
            .err(
                at,
                "fail_on",
                "`fail_on: regressions` fails a test that is worse than its baseline entry, and no suite here or above declares a `baseline:`",
            )
            .hint("declare one beside it, `baseline: baseline.json`, and create it with `GOLDGATE_UPDATE=always`")),
    }
}

/// `pass:`, the rule that makes a repeated case's verdict of its attempts: an error where no
/// `run` here or above repeats its command (a rule over attempts that never come says nothing).
fn pass_over_attempts(
    here: &InFile,
    suite: &Suite,
    pass: &Spanned<String>,
) -> Result<crate::model::suite::PassRule, LoadError> {
    let rule = pass_rule(here, pass)?;
    if suite.run.as_ref().is_none_or(|r| r.repeat < 2) {
        return Err(here
            .err(
                Mark::of(&pass.referenced),
                "pass",
                format!(
                    "`pass: {}` says how the attempts of a repeated case make its verdict, and no `run` here or above repeats its command",
                    pass.value
                ),
            )
            .hint("repeat the suite's command, `run: { command: […], repeat: 3 }`, or remove `pass`"));
    }
    Ok(rule)
}

/// `kieval:`: KIEval's settings, which only `profile: kieval` (here or above) reads.
fn kieval(
    here: &InFile,
    suite: &mut Suite,
    spec: &Spanned<crate::spec::KievalSpec>,
    dir: &Path,
) -> Result<(), LoadError> {
    if suite.profile != Some(Profile::KiEval) {
        return Err(here
            .err(
                Mark::of(&spec.referenced),
                "kieval",
                "`kieval:` sets KIEval's scorer, and no `profile: kieval` here or above uses it",
            )
            .hint("add `profile: kieval` to this suite, or remove `kieval:`"));
    }
    suite.kieval_keys = Some(Arc::new(super::shortlist::shortlist(here, spec, dir)?));
    Ok(())
}

/// `bbox_units`, `grounded_iou` and `target_error`: a name of units, an IoU in (0, 1], an
/// error rate in (0, 1).
fn grounding(here: &InFile, suite: &mut Suite, spec: &SuiteFile) -> Result<(), LoadError> {
    use crate::model::case::BoxUnits;
    if let Some(units) = &spec.bbox_units {
        let mark = Mark::of(&units.referenced);
        suite.bbox_units = Some(BoxUnits::from_name(&units.value).ok_or_else(|| {
            let e = here.err(
                mark,
                "bbox_units",
                format!("unknown `bbox_units: {}`", units.value),
            );
            match closest(&units.value, BoxUnits::NAMES) {
                Some(best) => e.hint(format!("did you mean `{best}`?")),
                None => e.hint(
                    "boxes are `normalized` (fractions of the page, the default), `pixels` or PDF `points`",
                ),
            }
        })?);
    }
    if let Some(iou) = &spec.grounded_iou {
        if !(iou.value > 0.0 && iou.value <= 1.0) {
            return Err(here
                .err(
                    Mark::of(&iou.referenced),
                    "grounded_iou",
                    format!("`grounded_iou` {} is outside (0, 1]", iou.value),
                )
                .hint("give the IoU from which a box counts as found, 0.5 in the benchmarks"));
        }
        suite.grounded_iou = Some(iou.value);
    }
    if let Some(target) = &spec.target_error {
        if !(target.value > 0.0 && target.value < 1.0) {
            return Err(here
                .err(Mark::of(&target.referenced), "target_error", format!("`target_error` {} is outside (0, 1)", target.value))
                .hint("give the share of wrong values automatic acceptance may let through, such as 0.01"));
        }
        suite.target_error = Some(target.value);
    }
    if let Some(a) = &spec.acceptance {
        suite.acceptance = Some(super::acceptance::pooling(here, a)?);
    }
    Ok(())
}

/// `compare_to`: the reference pipeline, which must be one that this suite or one above declares.
/// `compare_to`: a pipeline; `neighbours`, each pipeline against the next in the ranking by the
/// suite's gated metric (the first, in the order of the metrics, that this suite's `aggregate`
/// bounds, else the nearest suite's above; ANLS without one); or `all`, every pair.
fn compare_to(
    here: &InFile,
    suite: &mut Suite,
    to: &Spanned<String>,
    aggregate: Option<&Spanned<AggregateSpec>>,
) -> Result<(), LoadError> {
    let mark = Mark::of(&to.referenced);
    let gated = || {
        let own = aggregate.and_then(|a| {
            Metric::ALL
                .into_iter()
                .find(|m| a.value.bound(m.threshold_key()).is_some())
        });
        own.or_else(|| {
            suite
                .aggregates
                .last()
                .and_then(|a| a.thresholds.first().map(|t| t.metric))
        })
        .unwrap_or(Metric::Anls)
    };
    let mode = match to.value.as_str() {
        "neighbours" => Some(CompareTo::Neighbours(gated())),
        "all" => Some(CompareTo::All),
        _ => None,
    };
    let Some(p) = suite.pipelines.as_mut() else {
        return Err(here
            .err(
                mark,
                "compare_to",
                "`compare_to` names a pipeline, but no suite declares `pipelines`",
            )
            .hint("declare `pipelines:` in this suite or one above it"));
    };
    let named = p.list.iter().any(|(n, _)| *n == to.value);
    if let Some(mode) = mode {
        if named {
            return Err(here
                .err(
                    mark,
                    "compare_to",
                    format!(
                        "`compare_to: {}` could be the pipeline `{0}` or every pipeline's pairing",
                        to.value
                    ),
                )
                .hint(format!("rename the pipeline `{}`", to.value)));
        }
        p.reference = mode.reference();
        return Ok(());
    }
    if !named {
        let names: Vec<&str> = p.list.iter().map(|(n, _)| n.as_str()).collect();
        let e = here.err(
            mark,
            "compare_to",
            format!(
                "`compare_to` names `{}`, which is not a pipeline (nor `neighbours` or `all`)",
                to.value
            ),
        );
        return Err(match closest(&to.value, names.iter().copied()) {
            Some(best) => e.hint(format!("did you mean `{best}`?")),
            None => e.hint(format!("the pipelines are {}", names.join(", "))),
        });
    }
    p.reference = to.value.clone();
    Ok(())
}

/// `pricing`: a deeper suite's price of a model replaces the one from above.
fn pricing(here: &InFile, suite: &mut Suite, spec: &SuiteFile) -> Result<(), LoadError> {
    let Some(prices) = &spec.pricing else {
        return Ok(());
    };
    if let Some(first) = prices.values().next() {
        suite.pricing_at = Some((here.file.to_path_buf(), Mark::of(&first.referenced)));
    }
    for (model, price) in prices {
        let p = &price.value;
        let valid = |x: f64| x >= 0.0 && x.is_finite();
        if !(valid(p.input_per_mtok)
            && valid(p.output_per_mtok)
            && p.cached_input_per_mtok.is_none_or(valid))
        {
            return Err(here.err(
                Mark::of(&price.referenced),
                &format!("pricing.{model}"),
                "prices must be 0 or more",
            ));
        }
        suite.pricing.retain(|q| &q.model != model);
        suite.pricing.push(Price {
            model: model.clone(),
            input_per_mtok: p.input_per_mtok,
            output_per_mtok: p.output_per_mtok,
            cached_input_per_mtok: p.cached_input_per_mtok,
        });
    }
    Ok(())
}

/// `tolerance`, when given: 0 or more, and under 1, where it could flag a drop.
fn tolerance(here: &InFile, tolerance: Option<&Spanned<f64>>) -> Result<Option<f64>, LoadError> {
    match tolerance {
        Some(t) if !(t.value >= 0.0 && t.value.is_finite()) => Err(here.err(
            Mark::of(&t.referenced),
            "tolerance",
            format!("`tolerance` is {}; it must be 0 or more", t.value),
        )),
        // Metrics lie in [0, 1]: a drop is at most 1, and a tolerance of 1 hides every one.
        Some(t) if !crate::model::metric::tolerance_can_bind(t.value) => Err(here
            .err(
                Mark::of(&t.referenced),
                "tolerance",
                format!("`tolerance` is {}, so the baseline never flags a drop: every metric it keeps lies in [0, 1], and drops by 1 at most", t.value),
            )
            .hint("write how far a metric may drop below its baseline, such as `tolerance: 0.02`")),
        Some(t) => Ok(Some(t.value)),
        None => Ok(None),
    }
}

/// `baseline` and `tolerance`: a suite may give a new baseline file, or only a new tolerance for
/// the baseline from above; a new file without a tolerance keeps the one from above.
fn baseline(
    here: &InFile,
    suite: &mut Suite,
    baseline: Option<&Spanned<String>>,
    tolerance: Option<f64>,
    dir: &Path,
) -> Result<(), LoadError> {
    if let Some(b) = baseline {
        if let Some(e) = not_writable(
            here,
            Mark::of(&b.referenced),
            "baseline",
            ("baseline", &b.value),
            dir,
        ) {
            return Err(e);
        }
        suite.baseline = Some(Arc::new(BaselineSpec {
            file: dir.join(&b.value),
            tolerance: tolerance
                .or(suite.baseline.as_ref().map(|b| b.tolerance))
                .unwrap_or(0.0),
            per_case: true,
            suite_file: here.file.to_path_buf(),
            at: Mark::of(&b.referenced),
            // What fails the run, and the metric a test is held to, carry to a new file.
            fail_on: suite
                .baseline
                .as_ref()
                .map(|b| b.fail_on)
                .unwrap_or_default(),
            gated: suite.baseline.as_ref().and_then(|b| b.gated),
        }));
    } else if let (Some(t), Some(b)) = (tolerance, &suite.baseline) {
        suite.baseline = Some(Arc::new(BaselineSpec {
            tolerance: t,
            per_case: true,
            ..(**b).clone()
        }));
    }
    Ok(())
}

/// `history`: a file inside the project, by its absolute path (a split run's end step may run
/// in another folder).
fn history(
    here: &InFile,
    h: Option<&Spanned<String>>,
    dir: &Path,
) -> Result<Option<PathBuf>, LoadError> {
    let Some(h) = h else { return Ok(None) };
    if let Some(e) = not_writable(
        here,
        Mark::of(&h.referenced),
        "history",
        ("history", &h.value),
        dir,
    ) {
        return Err(e);
    }
    let file = dir.join(&h.value);
    Ok(Some(std::path::absolute(&file).unwrap_or(file)))
}

/// `pass`: `all`, `majority` or `any`.
fn pass_rule(
    here: &InFile,
    name: &Spanned<String>,
) -> Result<crate::model::suite::PassRule, LoadError> {
    use crate::model::suite::PassRule;
    PassRule::from_name(&name.value).ok_or_else(|| {
        let e = here.err(
            Mark::of(&name.referenced),
            "pass",
            format!("unknown `pass` rule `{}`", name.value),
        );
        match closest(&name.value, PassRule::NAMES) {
            Some(best) => e.hint(format!("did you mean `{best}`?")),
            None => e.hint("write `all` (every attempt passes), `majority` or `any`"),
        }
    })
}

/// `easy_wrong_penalty`: in (0, 1], and above the slack scores are compared with.
fn easy_wrong_penalty(here: &InFile, penalty: &Spanned<f64>) -> Result<f64, LoadError> {
    if !(penalty.value > 0.0 && penalty.value <= 1.0) {
        return Err(here.err(
            Mark::of(&penalty.referenced),
            "easy_wrong_penalty",
            format!("penalty {} is outside (0, 1]", penalty.value),
        ));
    }
    // As a rubric's own `penalty`: one within the slack of the score's comparison is no penalty.
    if penalty.value <= crate::model::metric::SLACK {
        return Err(here
            .err(
                Mark::of(&penalty.referenced),
                "easy_wrong_penalty",
                format!("penalty {} is within the slack of 1e-9 that scores are compared with, so a failed Easy-Wrong rubric could not fail even `min_score: 1.0`", penalty.value),
            )
            .hint("use a value such as 0.1, the default"));
    }
    Ok(penalty.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_stands_only_as_a_whole_argument_or_in_a_path() {
        for (arg, allowed) in [
            ("extract.py", true),
            ("echo $1", true),
            ("{case}", true),
            ("{document}", true),
            ("out/{pipeline}/{case}.json", true),
            ("{case}.pdf", true),
            ("../scans/{case}-v2.pdf", true),
            ("{case}{pipeline}", true),
            ("echo {case}", false),
            ("sh -c 'echo {case}'", false),
            ("import os; os.system('echo {case}')", false),
            ("BEGIN { system(\"echo {case}\") }", false),
            ("print \"{case}\"", false),
            ("$({case})", false),
            ("--input={document}", false),
            ("-c{case}", false),
            ("-out/{case}", false),
            ("out/{case};id", false),
            ("out/{case} x", false),
        ] {
            assert_eq!(placeholder_may_stand(arg), allowed, "{arg}");
        }
    }
}
