//! What suites declare for their cases: pipelines, aggregate thresholds, a baseline, a command.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::metric::{Metric, Threshold};
use crate::base::location::Mark;

/// Pipelines declared by a suite.
#[derive(Debug, Clone)]
pub struct Pipelines {
    /// The declaring suite's folder: paths and `{case}` are relative to it.
    pub dir: PathBuf,
    /// Names, each with its prediction path template (none when `run` produces them).
    pub list: Vec<(String, Option<String>)>,
    /// Where `pipelines:` is written, for errors in its paths.
    pub at: (PathBuf, Mark),
    /// Where each pipeline's path (or name) is written, in the order of `list`.
    pub marks: Vec<Mark>,
    /// The pipeline the others are compared with: `compare_to`, else the first declared; or
    /// how they are paired (see [`CompareTo`]).
    pub reference: String,
    /// The pipelines that give their own aggregate bounds, with them.
    pub bounds: Vec<(String, PipelineBounds)>,
    /// The pipelines that give their own `prediction_format`, with it.
    pub formats: Vec<(String, std::sync::Arc<super::prediction::PredictionFormat>)>,
}

impl Pipelines {
    /// The `prediction_format` a pipeline gives its own predictions, if it gives one.
    pub fn format_of(
        &self,
        pipeline: &str,
    ) -> Option<&std::sync::Arc<super::prediction::PredictionFormat>> {
        self.formats
            .iter()
            .find(|(name, _)| name == pipeline)
            .map(|(_, f)| f)
    }
}

/// What a suite's pipelines are compared with (`compare_to`), as a case's `reference` holds it:
/// a pipeline's name, or a word with a space, which no pipeline name holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareTo<'a> {
    /// Each pipeline against this one (`compare_to: NAME`, else the first declared).
    Pipeline(&'a str),
    /// Each pipeline against the next in the ranking by this metric, best first
    /// (`compare_to: neighbours`).
    Neighbours(Metric),
    /// Every pair of pipelines (`compare_to: all`).
    All,
}

impl<'a> CompareTo<'a> {
    const ALL: &'static str = "(every pair)";
    const NEIGHBOURS: &'static str = "(neighbours by ";

    /// What a reference stands for.
    pub fn of(reference: &'a str) -> CompareTo<'a> {
        if reference == Self::ALL {
            return CompareTo::All;
        }
        reference
            .strip_prefix(Self::NEIGHBOURS)
            .and_then(|rest| rest.strip_suffix(')'))
            .and_then(Metric::from_name)
            .map_or(CompareTo::Pipeline(reference), CompareTo::Neighbours)
    }

    /// As a case's `reference` holds it.
    pub fn reference(self) -> String {
        match self {
            CompareTo::Pipeline(name) => name.to_owned(),
            CompareTo::Neighbours(metric) => format!("{}{})", Self::NEIGHBOURS, metric.name()),
            CompareTo::All => Self::ALL.to_owned(),
        }
    }
}

/// A pipeline's own aggregate bounds, over those of a suite's `aggregate`: key by key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PipelineBounds {
    /// Bounds that replace the suite's bound on their metric, or add one.
    pub set: Vec<Threshold>,
    /// Metrics whose suite bound the pipeline removes (`max_ece: null`).
    pub removed: Vec<Metric>,
    /// Where the pipeline's `aggregate:` is written.
    pub at: (PathBuf, Mark),
}

impl PipelineBounds {
    /// The bounds of the pipeline's aggregate test: the suite's, with this pipeline's keys
    /// replacing or removing theirs, in the order of the metrics.
    pub fn over(&self, suite: &[Threshold]) -> Vec<Threshold> {
        let mut bounds: Vec<Threshold> = suite
            .iter()
            .filter(|t| {
                !self.removed.contains(&t.metric) && !self.set.iter().any(|s| s.metric == t.metric)
            })
            .chain(&self.set)
            .cloned()
            .collect();
        Threshold::in_metric_order(&mut bounds);
        bounds
    }
}

/// A suite's aggregate thresholds: one test per pipeline over its cases.
#[derive(Debug, Clone)]
pub struct Aggregate {
    /// The suite's folder relative to the cases folder, `/`-separated ("" for the root).
    pub id: String,
    /// The suite file.
    pub file: PathBuf,
    /// The bounds.
    pub thresholds: Vec<Threshold>,
    /// The bounds of each pipeline that gives its own, merged over `thresholds`.
    pub pipelines: Vec<(String, Vec<Threshold>)>,
    /// Bounds on slices of the cases (`slices: { lang=fr: { min_anls: 0.95 } }`), checked in
    /// every pipeline's aggregate test over that pipeline's cases of the slice; a pipeline's own
    /// bounds do not change them.
    pub slices: Vec<SliceBounds>,
    /// The suite's `regression_gate`, with the baseline it compares with.
    pub gate: Option<RegressionGate>,
}

/// A gate on a significant drop against the baseline (`regression_gate`), checked in each
/// pipeline's aggregate test over the cases this run and the baseline both have.
#[derive(Debug, Clone, PartialEq)]
pub struct RegressionGate {
    /// The case metric compared.
    pub metric: Metric,
    /// The smallest mean drop that fails the gate.
    pub min_effect: f64,
    /// The level of the bootstrap interval of the difference.
    pub confidence: f64,
    /// The baseline compared with.
    pub baseline: std::sync::Arc<BaselineSpec>,
    /// Where `regression_gate:` is written.
    pub at: (PathBuf, Mark),
}

/// How the attempts of a case run `repeat` times make its verdict (`pass`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PassRule {
    /// Every attempt passes (pass^k).
    #[default]
    All,
    /// More than half of the attempts pass.
    Majority,
    /// One attempt passes (pass@k).
    Any,
}

impl PassRule {
    /// The names, as a suite writes them.
    pub const NAMES: [&'static str; 3] = ["all", "majority", "any"];

    /// The rule of a name.
    pub fn from_name(name: &str) -> Option<PassRule> {
        match name {
            "all" => Some(PassRule::All),
            "majority" => Some(PassRule::Majority),
            "any" => Some(PassRule::Any),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            PassRule::All => "all",
            PassRule::Majority => "majority",
            PassRule::Any => "any",
        }
    }

    /// Whether `passed` attempts of `of` pass the case.
    pub fn holds(self, passed: usize, of: usize) -> bool {
        match self {
            PassRule::All => passed == of,
            PassRule::Majority => 2 * passed > of,
            PassRule::Any => passed > 0,
        }
    }
}

/// The bounds of one slice of a suite's cases: those tagged `tag=value`.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceBounds {
    /// The tag (`lang`; `tag` for a tag written in a list).
    pub tag: String,
    /// Its value.
    pub value: String,
    /// The bounds, over the slice's cases alone.
    pub thresholds: Vec<Threshold>,
    /// Where the slice is written in the suite file.
    pub at: Mark,
}

impl Aggregate {
    /// The bounds of one pipeline's aggregate test.
    pub fn bounds(&self, pipeline: Option<&str>) -> &[Threshold] {
        pipeline
            .and_then(|p| self.pipelines.iter().find(|(name, _)| name == p))
            .map_or(&self.thresholds, |(_, bounds)| bounds)
    }
}

/// A suite's baseline file.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineSpec {
    /// The baseline file.
    pub file: PathBuf,
    /// How far a metric may drop below it.
    pub tolerance: f64,
    /// Whether each case test is compared with its entry within `tolerance`: not when the
    /// suites gate on a significant drop (`regression_gate`) and write no `tolerance`.
    pub per_case: bool,
    /// The suite file that declares it.
    pub suite_file: PathBuf,
    /// Where `baseline:` is written in it.
    pub at: crate::base::location::Mark,
    /// What fails the run (`fail_on`), of the suite here or the nearest above that says.
    pub fail_on: FailOn,
    /// The metric the suite's `regression_gate` compares, when it has one: what a test is held
    /// to under `fail_on: regressions` (else ANLS, else the score).
    pub gated: Option<Metric>,
}

/// What fails a run (`fail_on`, and `goldgate test --fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailOn {
    /// Every failing test (the default).
    #[default]
    Failures,
    /// A test worse than its baseline entry: one that fails as its entry says is a known
    /// failure, which fails nothing.
    Regressions,
}

impl FailOn {
    /// The words users write.
    pub const NAMES: [&'static str; 2] = ["failures", "regressions"];

    /// The rule a word names.
    pub fn from_name(name: &str) -> Option<FailOn> {
        match name {
            "failures" => Some(FailOn::Failures),
            "regressions" => Some(FailOn::Regressions),
            _ => None,
        }
    }
}

impl BaselineSpec {
    /// A test's entry name: the case's path relative to the suite that declares the baseline,
    /// without extension, and `::pipeline` — the same whichever folder the run starts from.
    pub fn key(&self, case_file: &Path, pipeline: Option<&str>) -> String {
        let dir = self.suite_file.parent().unwrap_or(Path::new(""));
        let mut key = crate::base::fs::case_name(case_file, dir);
        if let Some(p) = pipeline {
            key.push_str("::");
            key.push_str(p);
        }
        key
    }
}

/// A suite's judge: the command that answers `judge:` checks, and its verdict file.
#[derive(Debug, Clone, PartialEq)]
pub struct Judge {
    /// The declaring suite's folder: the command runs there.
    pub dir: PathBuf,
    /// Program and arguments.
    pub command: Vec<String>,
    /// The verdict file.
    pub verdicts: PathBuf,
    /// How many times each question is asked; the majority is kept.
    pub repeat: u32,
    /// When to kill one answer.
    pub timeout: Duration,
    /// Where `judge:` is written, for errors in its command.
    pub at: (PathBuf, Mark),
}

/// A command that produces predictions.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCommand {
    /// The declaring suite's folder: the command runs there.
    pub dir: PathBuf,
    /// Program and arguments, with `{case}`, `{pipeline}`, `{document}`.
    pub command: Vec<String>,
    /// When to kill it.
    pub timeout: Duration,
    /// How many times it runs per case and pipeline (`repeat`, 1 by default).
    pub repeat: u32,
    /// Where `run:` is written, for errors in its command.
    pub at: (PathBuf, Mark),
    /// How its outputs are kept and reused.
    pub cache: std::sync::Arc<CallCache>,
    /// How its calls are made: retried, at once, and what one that still fails does.
    pub policy: CallPolicy,
}

/// How a failed call (a non-zero exit, a timeout, output that is not JSON) is made again
/// (`run.retries`), and what one that still fails does to its case (`run.call_errors`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CallPolicy {
    /// Calls made again at most.
    pub max_retries: u32,
    /// The wait before the first retry, doubled before each next one.
    pub backoff: Duration,
    /// Whether a case whose call still fails is left out (`skip`) rather than failed.
    pub skip_call_errors: bool,
    /// How many calls run at once in a process (`run.concurrency`), when the suite says.
    pub concurrency: Option<u32>,
}

/// How a suite's `run:` outputs are kept and reused (`run.cache`, `run.inputs`, `run.env`).
#[derive(Debug, Clone, PartialEq)]
pub struct CallCache {
    /// Whether the cache is read and written.
    pub mode: CacheMode,
    /// The cache folder (`run.cache_folder`, else `.goldgate/cache` in the suite's folder).
    pub folder: PathBuf,
    /// Globs of files that decide the output beyond the command's own arguments (prompts,
    /// schemas, a model's configuration), relative to the suite's folder.
    pub inputs: Vec<String>,
    /// Variables whose values decide the output (a model name, an endpoint).
    pub env: Vec<String>,
}

/// How a run uses the cache of `run:` outputs (`run.cache`, or `GOLDGATE_CACHE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// A kept output is used; a call is made otherwise, and its output kept.
    #[default]
    Use,
    /// Every call is made again, and its output kept.
    Refresh,
    /// No call is made: a call with no kept output fails its case (CI without keys).
    Replay,
    /// Nothing is read or kept.
    Off,
}

impl CacheMode {
    /// The names users write.
    pub const NAMES: [&str; 4] = ["use", "refresh", "replay", "off"];

    /// The mode named `name`.
    pub fn from_name(name: &str) -> Option<CacheMode> {
        match name {
            "use" => Some(CacheMode::Use),
            "refresh" => Some(CacheMode::Refresh),
            "replay" => Some(CacheMode::Replay),
            "off" => Some(CacheMode::Off),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(metric: Metric, limit: f64, line: u64) -> Threshold {
        Threshold {
            name: metric.threshold_key().to_owned(),
            metric,
            limit,
            is_max: metric.threshold_key().starts_with("max_"),
            file: "suite.yaml".into(),
            line,
            column: 3,
        }
    }

    #[test]
    fn a_reference_says_how_pipelines_are_paired() {
        for to in [
            CompareTo::Pipeline("guided"),
            CompareTo::Neighbours(Metric::Anls),
            CompareTo::Neighbours(Metric::Ece),
            CompareTo::All,
        ] {
            assert_eq!(CompareTo::of(&to.reference()), to);
        }
        assert_eq!(CompareTo::All.reference(), "(every pair)");
        assert_eq!(
            CompareTo::Neighbours(Metric::Anls).reference(),
            "(neighbours by anls)"
        );
    }

    #[test]
    fn a_pipeline_replaces_removes_and_adds_bounds_key_by_key() {
        let suite = [
            bound(Metric::Anls, 0.9, 7),
            bound(Metric::Ece, 0.1, 8),
            bound(Metric::CostUsd, 0.02, 9),
        ];
        let own = PipelineBounds {
            set: vec![
                bound(Metric::Anls, 0.8, 4),
                bound(Metric::PassRate, 0.95, 4),
            ],
            removed: vec![Metric::Ece, Metric::Brier],
            at: (
                "suite.yaml".into(),
                Mark {
                    line: 4,
                    column: 16,
                },
            ),
        };
        let merged = own.over(&suite);
        let merged: Vec<(&str, f64, u64)> = merged
            .iter()
            .map(|t| (t.name.as_str(), t.limit, t.line))
            .collect();
        assert_eq!(
            merged,
            [
                ("min_anls", 0.8, 4),
                ("max_cost_usd", 0.02, 9),
                ("min_pass_rate", 0.95, 4)
            ]
        );
    }
}
