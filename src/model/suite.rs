//! What suites declare for their cases: pipelines, aggregate thresholds, a baseline, a command.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::metric::Threshold;
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
    /// The pipeline the others are compared with: `compare_to`, else the first declared.
    pub reference: String,
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
}

/// A suite's baseline file.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineSpec {
    /// The baseline file.
    pub file: PathBuf,
    /// How far a metric may drop below it.
    pub tolerance: f64,
    /// The suite file that declares it.
    pub suite_file: PathBuf,
    /// Where `baseline:` is written in it.
    pub at: crate::base::location::Mark,
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
    /// Where `run:` is written, for errors in its command.
    pub at: (PathBuf, Mark),
}
