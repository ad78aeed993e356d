//! A suite's run history (`history:`): a JSON Lines file, one [`HistoryRecord`] per pipeline per
//! run, appended at the run's end and never rewritten; and the [`Trend`] of each pipeline that
//! `goldgate history` and the run's page show, built once here from the records.
//!
//! A score is only comparable with another computed on the same gold: each record keeps the
//! digest of its suite's gold, and a trend marks the runs on other gold than its newest run's.

use serde::{Deserialize, Serialize};

use super::PipelineMetrics;

/// One run of one pipeline of a suite, as its history keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryRecord {
    /// When the run ended (RFC 3339, UTC).
    pub time: String,
    /// The commit the run was made at (`GITHUB_SHA`, else the checkout's `HEAD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The branch (`GITHUB_HEAD_REF`, `GITHUB_REF_NAME`, else the checkout's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The run's id.
    pub run: String,
    /// The pipeline; absent for a suite without pipelines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    /// The digest of the suite's gold (over its case tests' digests in name order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_digest: Option<String>,
    /// Whether the run ran a part of the suite's tests only (a filter, a partition).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Case tests of the pipeline in the run, skipped ones included.
    pub cases: usize,
    /// How many passed.
    pub passed: usize,
    /// How many failed.
    pub failed: usize,
    /// How many were skipped.
    pub ignored: usize,
    /// How many failed as their baseline entries say, no worse (`fail_on: regressions`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub known_failures: usize,
    /// The share of the tests run that passed.
    pub pass_rate: Option<f64>,
    /// The pipeline's metrics, as the report's table of pipelines gives them.
    pub metrics: PipelineMetrics,
}

/// A history line that does not read: where it is, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct BadLine {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
    /// What serde found.
    pub reason: String,
}

/// Reads a history's text: its records in the order they were appended. Blank lines are
/// nothing; any other line that is not a record is an error at its line.
pub fn read(text: &str) -> Result<Vec<HistoryRecord>, BadLine> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|e| BadLine {
                line: n + 1,
                column: e.column().max(1),
                reason: without_place(&e.to_string()),
            })
        })
        .collect()
}

/// serde's message without its own " at line L column C": the caller says where, in the file.
fn without_place(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// The metric a trend follows: ANLS where the pipeline measures it, else exact match, else the
/// pass rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Headline {
    /// ANLS.
    Anls,
    /// Exact match.
    ExactMatch,
    /// The pass rate.
    PassRate,
}

impl Headline {
    /// The headline of a run's record.
    fn of(record: &HistoryRecord) -> Headline {
        if record.metrics.anls.is_some() {
            Headline::Anls
        } else if record.metrics.exact_match.is_some() {
            Headline::ExactMatch
        } else {
            Headline::PassRate
        }
    }

    /// Its value in a run's record.
    pub fn value(self, record: &HistoryRecord) -> Option<f64> {
        match self {
            Headline::Anls => record.metrics.anls,
            Headline::ExactMatch => record.metrics.exact_match,
            Headline::PassRate => record.pass_rate,
        }
    }
}

/// One run in a trend.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrendRun {
    /// When the run ended.
    pub time: String,
    /// Its commit.
    pub commit: Option<String>,
    /// Its branch.
    pub branch: Option<String>,
    /// Its id.
    pub run: String,
    /// The digest of the gold it ran on.
    pub gold_digest: Option<String>,
    /// Whether it ran on the same gold as the trend's newest run.
    pub comparable: bool,
    /// Whether it ran a part of the suite's tests only.
    pub partial: bool,
    /// Its pass rate.
    pub pass_rate: Option<f64>,
    /// Its value of the trend's headline metric.
    pub value: Option<f64>,
    /// Its counts: cases, passed, failed, ignored.
    pub cases: usize,
    /// How many passed.
    pub passed: usize,
    /// How many failed.
    pub failed: usize,
    /// How many were skipped.
    pub ignored: usize,
}

/// A pipeline's runs in a history, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trend {
    /// The history file, as the caller names it.
    pub history: String,
    /// The pipeline; absent for a suite without pipelines.
    pub pipeline: Option<String>,
    /// The metric the trend follows (its newest run's).
    pub headline: Headline,
    /// The runs, oldest first.
    pub runs: Vec<TrendRun>,
    /// The newest run's headline value minus that of the comparable run before it, when both
    /// are measured.
    pub change: Option<f64>,
}

/// Each pipeline's trend in a history's records (in the order the pipelines first appear),
/// each of its last `last` runs when given.
pub fn trends(history: &str, records: &[HistoryRecord], last: Option<usize>) -> Vec<Trend> {
    let mut pipelines: Vec<&Option<String>> = Vec::new();
    for r in records {
        if !pipelines.contains(&&r.pipeline) {
            pipelines.push(&r.pipeline);
        }
    }
    pipelines
        .into_iter()
        .map(|pipeline| {
            let mine: Vec<&HistoryRecord> =
                records.iter().filter(|r| &r.pipeline == pipeline).collect();
            let keep = last.map_or(0, |n| mine.len().saturating_sub(n));
            trend(history, pipeline.clone(), &mine[keep..])
        })
        .collect()
}

/// The trend of one pipeline's records (at least one).
fn trend(history: &str, pipeline: Option<String>, records: &[&HistoryRecord]) -> Trend {
    let newest = records.last().expect("a pipeline has a record");
    let headline = Headline::of(newest);
    let runs: Vec<TrendRun> = records
        .iter()
        .map(|r| TrendRun {
            time: r.time.clone(),
            commit: r.commit.clone(),
            branch: r.branch.clone(),
            run: r.run.clone(),
            gold_digest: r.gold_digest.clone(),
            comparable: r.gold_digest == newest.gold_digest,
            partial: r.partial,
            pass_rate: r.pass_rate,
            value: headline.value(r),
            cases: r.cases,
            passed: r.passed,
            failed: r.failed,
            ignored: r.ignored,
        })
        .collect();
    let change = match runs.split_last() {
        Some((last, before)) => before
            .iter()
            .rev()
            .find(|r| r.comparable && r.value.is_some())
            .and_then(|r| Some(last.value? - r.value?)),
        None => None,
    };
    Trend {
        history: history.to_owned(),
        pipeline,
        headline,
        runs,
        change,
    }
}

/// Whether a count is 0: left out of a line, as lines written before the count had none.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(pipeline: &str, digest: &str, anls: f64) -> HistoryRecord {
        HistoryRecord {
            time: "2026-12-04T10:00:00Z".into(),
            commit: None,
            branch: None,
            run: "r".into(),
            pipeline: Some(pipeline.into()),
            gold_digest: Some(digest.into()),
            partial: false,
            cases: 2,
            passed: 1,
            failed: 1,
            ignored: 0,
            known_failures: 0,
            pass_rate: Some(0.5),
            metrics: PipelineMetrics {
                anls: Some(anls),
                ..Default::default()
            },
        }
    }

    #[test]
    fn runs_on_other_gold_than_the_newest_are_not_comparable_and_the_change_skips_them() {
        let records = [
            record("a", "d1", 0.5),
            record("b", "d2", 0.1),
            record("a", "d2", 0.7),
            record("a", "d2", 0.75),
        ];
        let t = trends("h", &records, None);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].headline, Headline::Anls);
        let comparable: Vec<bool> = t[0].runs.iter().map(|r| r.comparable).collect();
        assert_eq!(comparable, [false, true, true]);
        assert!((t[0].change.unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(t[1].change, None);
        assert_eq!(trends("h", &records, Some(2))[0].runs.len(), 2);
    }

    #[test]
    fn a_line_that_does_not_read_is_located() {
        let good = serde_json::to_string(&record("a", "d", 0.5)).unwrap();
        let text = format!("{good}\n\n{{\"time\": 3}}\n");
        let bad = read(&text).unwrap_err();
        assert_eq!((bad.line, bad.column), (3, 10));
        assert_eq!(bad.reason, "invalid type: integer `3`, expected a string");
        assert_eq!(read(&format!("{good}\n")).unwrap().len(), 1);
    }
}
