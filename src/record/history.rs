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

/// The longest line of a history read, in bytes: a record is one or two KB, a pipeline of
/// hundreds of fields some tens; a longer line is no record goldgate wrote.
pub const LINE_BYTES: usize = 1 << 20;

/// How many runs of each pipeline a history's reading keeps, the newest: what `goldgate history`
/// shows (the run's page shows fewer). Older lines are read and checked, then let go, so that a
/// history of years is read in the memory of these runs.
pub const RUNS_KEPT: usize = 1_000;

/// How many pipelines a history may hold: a suite has a few, and each keeps its runs.
pub const PIPELINES: usize = 1_000;

/// Reads a history line by line: each pipeline's newest `last` records (at most
/// [`RUNS_KEPT`]), the pipelines in the order they first appear, each's records in the order
/// they were appended. Blank lines are nothing; any other line that is not a record, longer than
/// [`LINE_BYTES`] or holding a number out of its range, is an error at its line.
pub fn read(reader: impl std::io::BufRead, last: usize) -> Result<Vec<HistoryRecord>, BadLine> {
    use std::collections::VecDeque;
    let last = last.clamp(1, RUNS_KEPT);
    let mut kept: Vec<(Option<String>, VecDeque<HistoryRecord>)> = Vec::new();
    let mut reader = std::io::Read::take(reader, 0);
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        // One more byte than a line may hold: a line that reaches it is too long.
        reader.set_limit(LINE_BYTES as u64 + 1);
        let read =
            std::io::BufRead::read_until(&mut reader, b'\n', &mut line).map_err(|e| BadLine {
                line: n,
                column: 1,
                reason: format!("it cannot be read: {e}"),
            })?;
        if read == 0 {
            break;
        }
        let record = match record_of(&line, n)? {
            Some(record) => record,
            None => continue,
        };
        let at = match kept.iter().position(|(p, _)| *p == record.pipeline) {
            Some(at) => at,
            None if kept.len() < PIPELINES => {
                kept.push((record.pipeline.clone(), VecDeque::new()));
                kept.len() - 1
            }
            None => {
                return Err(BadLine {
                    line: n,
                    column: 1,
                    reason: format!("a pipeline past the {PIPELINES} a history may hold"),
                });
            }
        };
        let runs = &mut kept[at].1;
        if runs.len() == last {
            runs.pop_front();
        }
        runs.push_back(record);
    }
    Ok(kept.into_iter().flat_map(|(_, runs)| runs).collect())
}

/// Opens a history to [`read`] it: `None` when no run has written it yet. A folder, a FIFO or a
/// device is refused before a byte is read (a FIFO would be waited on).
pub fn open(file: &std::path::Path) -> std::io::Result<Option<std::io::BufReader<std::fs::File>>> {
    let opened = match std::fs::File::open(file) {
        Ok(opened) => opened,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !opened.metadata()?.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    Ok(Some(std::io::BufReader::with_capacity(64 << 10, opened)))
}

/// The record of line `n` of a history (its bytes, the newline included), `None` for a blank one.
fn record_of(bytes: &[u8], n: usize) -> Result<Option<HistoryRecord>, BadLine> {
    let bad = |column: usize, reason: String| BadLine {
        line: n,
        column,
        reason,
    };
    if bytes.len() > LINE_BYTES {
        return Err(bad(
            1,
            format!("a line of more than {LINE_BYTES} bytes, longer than any record"),
        ));
    }
    let line = std::str::from_utf8(bytes)
        .map_err(|e| bad(e.valid_up_to() + 1, "it is not UTF-8 text".to_owned()))?;
    if line.trim().is_empty() {
        return Ok(None);
    }
    let record: HistoryRecord = serde_json::from_str(line)
        .map_err(|e| bad(e.column().max(1), without_place(&e.to_string())))?;
    if let Some((key, value, range)) = out_of_range(&record) {
        // The key's place: under `metrics` for a metric, else the record's own.
        let (path, from) = match key.strip_prefix("metrics.") {
            Some(name) => (name, line.find("\"metrics\"").unwrap_or(0)),
            None => (key.as_str(), 0),
        };
        let column = line[from..]
            .find(&format!("\"{path}\""))
            .map_or(1, |at| from + at + 1);
        // 1e308 as written, not its 309 digits.
        let value = if value != 0.0 && !(1e-4..1e6).contains(&value.abs()) {
            format!("{value:e}")
        } else {
            value.to_string()
        };
        return Err(bad(column, format!("`{key}` is {value}, outside {range}")));
    }
    Ok(Some(record))
}

/// The first number of a record outside the range its metric takes (a share in 0 to 1, a
/// latency or a cost 0 or more, every one finite): its key, its value and the range said.
fn out_of_range(record: &HistoryRecord) -> Option<(String, f64, &'static str)> {
    use crate::model::metric::{Metric, Range};
    let said = |range: Range| match range {
        Range::Unit => "0 to 1, the range of a share",
        Range::Count => "the whole numbers 0 or more",
        Range::NonNegative => "the finite numbers 0 or more",
    };
    let m = &record.metrics;
    let own = [
        ("pass_rate".to_owned(), record.pass_rate, Range::Unit),
        (
            "metrics.latency_p50_ms".to_owned(),
            m.latency_p50,
            Range::NonNegative,
        ),
        (
            "metrics.cost_usd_total".to_owned(),
            m.cost_total_usd,
            Range::NonNegative,
        ),
    ];
    let metrics = Metric::ALL.into_iter().filter_map(|metric| {
        let value = m.get(metric)?;
        let name = match metric {
            // The names the record is written with (`Aggregated`'s serde names).
            Metric::LatencyMs => "latency_p95_ms",
            Metric::CostUsd => "cost_usd_per_case",
            Metric::FlipRate => "max_flip_rate",
            other => other.name(),
        };
        Some((format!("metrics.{name}"), Some(value), metric.about().range))
    });
    own.into_iter()
        .chain(metrics)
        .find_map(|(key, value, range)| {
            let value = value?;
            (!(value.is_finite() && range.holds(value))).then(|| (key, value, said(range)))
        })
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

    fn read_text(text: &str, last: usize) -> Result<Vec<HistoryRecord>, BadLine> {
        read(text.as_bytes(), last)
    }

    #[test]
    fn a_line_that_does_not_read_is_located() {
        let good = serde_json::to_string(&record("a", "d", 0.5)).unwrap();
        let text = format!("{good}\n\n{{\"time\": 3}}\n");
        let bad = read_text(&text, RUNS_KEPT).unwrap_err();
        assert_eq!((bad.line, bad.column), (3, 10));
        assert_eq!(bad.reason, "invalid type: integer `3`, expected a string");
        assert_eq!(read_text(&format!("{good}\n"), RUNS_KEPT).unwrap().len(), 1);
        // A last line without its newline reads.
        assert_eq!(read_text(&good, RUNS_KEPT).unwrap().len(), 1);
        let long = format!("{good}\n{}\n", " ".repeat(LINE_BYTES + 1));
        let bad = read_text(&long, RUNS_KEPT).unwrap_err();
        assert_eq!((bad.line, bad.column), (2, 1));
    }

    #[test]
    fn only_each_pipelines_newest_runs_are_kept() {
        let lines: Vec<String> = (0..10)
            .map(|i| {
                let pipeline = if i % 2 == 0 { "a" } else { "b" };
                serde_json::to_string(&record(pipeline, "d", f64::from(i) / 10.0)).unwrap()
            })
            .collect();
        let kept = read_text(&lines.join("\n"), 2).unwrap();
        let shown: Vec<(Option<&str>, Option<f64>)> = kept
            .iter()
            .map(|r| (r.pipeline.as_deref(), r.metrics.anls))
            .collect();
        assert_eq!(
            shown,
            [
                (Some("a"), Some(0.6)),
                (Some("a"), Some(0.8)),
                (Some("b"), Some(0.7)),
                (Some("b"), Some(0.9))
            ]
        );
    }

    #[test]
    fn a_number_out_of_its_range_is_an_error_at_its_key() {
        let line = |edit: &dyn Fn(&mut HistoryRecord)| {
            let mut r = record("a", "d", 0.5);
            edit(&mut r);
            serde_json::to_string(&r).unwrap()
        };
        type Edit = dyn Fn(&mut HistoryRecord);
        let cases: [(&Edit, &str); 4] = [
            (
                &|r| r.pass_rate = Some(1e308),
                "`pass_rate` is 1e308, outside 0 to 1",
            ),
            (
                &|r| r.metrics.anls = Some(-1e308),
                "`metrics.anls` is -1e308, outside 0 to 1",
            ),
            (
                &|r| r.metrics.anls = Some(2.5),
                "`metrics.anls` is 2.5, outside 0 to 1",
            ),
            (
                &|r| r.metrics.latency_p50 = Some(-5.0),
                "`metrics.latency_p50_ms` is -5, outside the finite numbers 0 or more",
            ),
        ];
        for (edit, reason) in cases {
            let text = line(edit);
            let bad = read_text(&text, RUNS_KEPT).unwrap_err();
            assert!(bad.reason.starts_with(reason), "{}", bad.reason);
            let key = reason[1..].split('`').next().unwrap();
            let name = key.rsplit('.').next().unwrap();
            assert_eq!(
                &text[bad.column - 1..][..name.len() + 2],
                format!("\"{name}\"")
            );
        }
    }
}
