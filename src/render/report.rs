//! The JSON report of a run (`GOLDGATE_REPORT` / `--report`): each case test's record and each
//! aggregate as JSON, the whole report's text, and the numbers read back from a case's JSON, so
//! that reports of several processes or shards can be merged and summarised again.

use serde_json::{Value as Json, json};

use super::aggregated_json;
use super::compare::paired_json;
use super::summary::summary_json;
use crate::evaluate::aggregate::{Aggregated, FieldStat, RunSummary};
use crate::evaluate::baseline::Change;
use crate::evaluate::outcome::{Metrics, ThresholdVerdict};
use crate::evaluate::paired::Paired;
use crate::evaluate::record::{
    AggregateRecord, CaseNumbers, Compared, Record, RubricTally, Status,
};
use crate::model::rubric::RubricKind;

/// A case test's record as the report shows it.
pub fn case_json(record: &Record) -> Json {
    let mut case = json!({
        "id": record.id,
        "pipeline": record.pipeline,
        "file": record.file,
        "suite": record.suite,
        "passed": match record.status { Status::Passed => Json::Bool(true), Status::Failed => Json::Bool(false), Status::Ignored => Json::Null },
        "ignored": record.status == Status::Ignored,
        "skip": record.skip,
        "error": record.error,
        "score": Json::Null,
        "gate": Json::Null,
        "metrics": Json::Null,
        "fields": [],
        "rubrics": [],
        "thresholds": [],
        "extra_fields": [],
    });
    if let Some((description, tags)) = &record.about {
        case["description"] = json!(description);
        case["tags"] = json!(tags);
    }
    if let Some(message) = &record.message {
        case["message"] = json!(message);
    }
    if !record.problems.is_empty() {
        case["errors"] = record
            .problems
            .iter()
            .map(|p| json!({"file": p.file, "line": p.line, "column": p.column, "message": p.message}))
            .collect();
    }
    if record.model.is_some() || record.usage.is_some() {
        case["model"] = json!(record.model);
        case["usage"] = record.usage.map_or(Json::Null, |u| json!({
            "input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "total_tokens": u.total_tokens,
        }));
    }
    let b = &record.baseline;
    if b.new || !b.regressions.is_empty() || !b.improvements.is_empty() {
        case["baseline"] = json!({
            "new": b.new,
            "regressions": b.regressions.iter().map(change_json).collect::<Vec<_>>(),
            "improvements": b.improvements.iter().map(change_json).collect::<Vec<_>>(),
        });
    }
    if let Some(reference) = &record.reference {
        case["compared_to"] = json!(reference);
    }
    let Some(o) = &record.outcome else {
        return case;
    };
    let m = &o.metrics;
    case["score"] = json!(o.score);
    if !o.problems.is_empty() {
        case["problems"] = json!(o.problems);
    }
    case["gate"] = json!({
        "open": o.gate_open,
        "closed_by": o.closed_by().map(|r| r.rubric.label.clone()).collect::<Vec<_>>(),
    });
    case["metrics"] = Metrics::reported()
        .map(|metric| (metric.name().to_owned(), json!(m.get(metric))))
        .collect::<serde_json::Map<_, _>>()
        .into();
    case["extra_fields"] = o
        .extra_fields
        .iter()
        .map(|(name, value)| {
            json!({
                "name": name, "prediction": value.to_json(),
            })
        })
        .collect();
    case["fields"] = o
        .fields
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "gold": f.gold.iter().map(|g| g.to_json()).collect::<Vec<_>>(),
                "prediction": f.prediction.to_json(),
                "em": f.em, "anls": f.anls, "confidence": f.confidence, "critical": f.critical,
                "note": f.note,
                "metadata": f.metadata.iter().cloned().collect::<serde_json::Map<_, _>>(),
            })
        })
        .collect();
    case["rubrics"] = o
            .rubrics
            .iter()
            .map(|r| {
                json!({
                    "label": r.rubric.label, "kind": r.rubric.kind.key(), "check": r.rubric.probe.check.key(), "field": r.rubric.probe.field.as_ref().map(ToString::to_string),
                    "held": r.verdict.held, "penalty": r.rubric.penalty, "detail": r.verdict.detail,
                    "file": r.rubric.file.display().to_string(), "line": r.rubric.line, "column": r.rubric.column,
                })
            })
            .collect();
    case["thresholds"] = o.thresholds.iter().map(threshold_json).collect();
    case
}

fn threshold_json(t: &ThresholdVerdict) -> Json {
    json!({
        "name": t.name, "limit": t.limit, "value": t.value, "held": t.held, "absent_because": t.absent_because,
        "file": t.file.display().to_string(), "line": t.line, "column": t.column,
    })
}

fn change_json(c: &Change) -> Json {
    json!({"metric": c.metric, "old": c.old, "new": if c.new.is_nan() { Json::Null } else { json!(c.new) }})
}

/// An aggregate test as the report shows it.
pub fn aggregate_json(a: &AggregateRecord) -> Json {
    json!({
        "id": a.id,
        "pipeline": a.pipeline,
        "file": a.file,
        "passed": a.thresholds.iter().all(|v| v.held),
        "message": a.message,
        "metrics": aggregated_json(&a.metrics),
        "thresholds": a.thresholds.iter().map(threshold_json).collect::<Vec<_>>(),
    })
}

/// The numbers of a case test, read back from its JSON in a report.
pub fn numbers_of(case: &Json) -> Result<CaseNumbers, String> {
    let id = case
        .get("id")
        .and_then(Json::as_str)
        .ok_or("a case without an `id`")?;
    let status = match (case.get("passed"), case.get("ignored")) {
        (_, Some(Json::Bool(true))) => Status::Ignored,
        (Some(Json::Bool(true)), _) => Status::Passed,
        (Some(Json::Bool(false)), _) => Status::Failed,
        _ => return Err(format!("the case `{id}` has no `passed`")),
    };
    let m = case.get("metrics").filter(|m| m.is_object());
    let get = |name: &str| m.and_then(|m| m.get(name)).and_then(Json::as_f64);
    let metrics = m.map(|_| {
        let mut metrics = Metrics::default();
        for metric in Metrics::reported() {
            metrics.set(metric, get(metric.name()));
        }
        metrics
    });
    let confidences =
        case.get("fields")
            .and_then(Json::as_array)
            .map_or_else(Default::default, |fields| {
                fields
                    .iter()
                    .filter_map(|f| {
                        let c = f.get("confidence")?.as_f64()?;
                        Some((c, f.get("em")?.as_f64()? == 1.0))
                    })
                    .collect()
            });
    let fields = case
        .get("fields")
        .and_then(Json::as_array)
        .map_or_else(Vec::new, |fields| {
            fields
                .iter()
                .filter_map(|f| {
                    Some((
                        f.get("name")?.as_str()?.to_owned(),
                        f.get("em")?.as_f64()?,
                        f.get("anls")?.as_f64()?,
                    ))
                })
                .collect()
        });
    // The tally of the gate from the rubric verdicts the report lists.
    let rubrics = case
        .get("gate")
        .and_then(|g| g.get("open"))
        .and_then(Json::as_bool)
        .map(|gate_open| {
            let verdicts =
                case.get("rubrics")
                    .and_then(Json::as_array)
                    .map_or_else(Vec::new, |list| {
                        list.iter()
                            .filter_map(|r| {
                                let kind = match r.get("kind")?.as_str()? {
                                    "must_right" => RubricKind::MustRight,
                                    _ => RubricKind::EasyWrong,
                                };
                                Some((kind, r.get("held")?.as_bool()?))
                            })
                            .collect()
                    });
            let score = case.get("score").and_then(Json::as_f64).unwrap_or(0.0);
            RubricTally::of(gate_open, score, verdicts)
        });
    Ok(CaseNumbers {
        id: id.to_owned(),
        fields,
        rubrics,
        reference: case
            .get("compared_to")
            .and_then(Json::as_str)
            .map(str::to_owned),
        pipeline: case
            .get("pipeline")
            .and_then(Json::as_str)
            .map(str::to_owned),
        status,
        metrics,
        confidences,
    })
}

/// How a case test compared with its baseline, read back from its JSON in a report.
pub fn compared_of(case: &Json) -> Compared {
    let Some(b) = case.get("baseline") else {
        return Compared::default();
    };
    let changes = |key: &str| {
        b.get(key)
            .and_then(Json::as_array)
            .map_or_else(Vec::new, |list| {
                list.iter()
                    .filter_map(|c| {
                        Some(Change {
                            metric: c.get("metric")?.as_str()?.to_owned(),
                            old: c.get("old")?.as_f64()?,
                            new: c.get("new").and_then(Json::as_f64).unwrap_or(f64::NAN),
                        })
                    })
                    .collect()
            })
    };
    Compared {
        new: b.get("new").and_then(Json::as_bool).unwrap_or(false),
        regressions: changes("regressions"),
        improvements: changes("improvements"),
    }
}

/// Writes the whole report: the summary, every case test (one compact JSON object a line, in the
/// order given: sorted by test name), the pipelines and the aggregates (JSON texts). Cases are
/// streamed, so that a report of any size is never held in memory.
pub fn write_report(
    out: &mut dyn std::io::Write,
    summary: &RunSummary,
    pipelines: &[(String, Aggregated)],
    fields: &[FieldStat],
    comparisons: &[Paired],
    cases: &mut dyn Iterator<Item = std::io::Result<String>>,
    aggregates: &[String],
) -> std::io::Result<()> {
    writeln!(out, "{{")?;
    writeln!(out, "  \"goldgate\": {},", json!(env!("CARGO_PKG_VERSION")))?;
    writeln!(
        out,
        "  \"summary\": {},",
        indented(&summary_json(summary), 1)
    )?;
    write!(out, "  \"cases\": [")?;
    let mut first = true;
    for case in cases {
        write!(out, "{}    {}", if first { "\n" } else { ",\n" }, case?)?;
        first = false;
    }
    write!(out, "{}]", if first { "" } else { "\n  " })?;
    let pipelines: Vec<String> = pipelines
        .iter()
        .map(|(name, a)| {
            let mut row = aggregated_json(a);
            row["pipeline"] = json!(name);
            indented(&row, 2)
        })
        .collect();
    write!(out, ",\n  \"pipelines\": ")?;
    pretty_list(out, pipelines.into_iter())?;
    write!(out, ",\n  \"fields\": ")?;
    pretty_list(
        out,
        fields.iter().map(|f| {
            json!({"field": f.field, "pipeline": f.pipeline, "cases": f.cases, "em": f.em, "anls": f.anls})
                .to_string()
        }),
    )?;
    write!(out, ",\n  \"comparisons\": ")?;
    pretty_list(
        out,
        comparisons.iter().map(|c| indented(&paired_json(c), 2)),
    )?;
    write!(out, ",\n  \"aggregates\": ")?;
    pretty_list(
        out,
        aggregates.iter().map(|a| {
            serde_json::from_str::<Json>(a).map_or_else(|_| a.clone(), |j| indented(&j, 2))
        }),
    )?;
    writeln!(out, "\n}}")
}

fn pretty_list(
    out: &mut dyn std::io::Write,
    items: impl Iterator<Item = String>,
) -> std::io::Result<()> {
    let mut first = true;
    write!(out, "[")?;
    for item in items {
        write!(out, "{}    {item}", if first { "\n" } else { ",\n" })?;
        first = false;
    }
    write!(out, "{}]", if first { "" } else { "\n  " })
}

/// Pretty JSON whose lines after the first are indented `level` times two spaces, to sit inside
/// the report's own pretty layout.
fn indented(value: &Json, level: usize) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    let pad = "  ".repeat(level);
    text.replace('\n', &format!("\n{pad}"))
}

/// A case test as read back from its record, for the pages made from a run's records (JUnit,
/// annotations, the step summary, HTML).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReportCase {
    /// The test name.
    pub id: String,
    /// The pipeline.
    #[serde(default)]
    pub pipeline: Option<String>,
    /// The case file.
    #[serde(default)]
    pub file: String,
    /// The folder of its suite.
    #[serde(default)]
    pub suite: Option<String>,
    /// `true`, `false`, or `null` when skipped.
    #[serde(default)]
    pub passed: Option<bool>,
    /// The skip reason.
    #[serde(default)]
    pub skip: Option<String>,
    /// The plain failure message.
    #[serde(default)]
    pub message: Option<String>,
    /// The gated score.
    #[serde(default)]
    pub score: Option<f64>,
    /// The case metrics by name.
    #[serde(default)]
    pub metrics: Option<serde_json::Map<String, Json>>,
    /// Rubric verdicts.
    #[serde(default)]
    pub rubrics: Vec<ReportRubric>,
    /// Threshold verdicts.
    #[serde(default)]
    pub thresholds: Vec<ReportThreshold>,
    /// Load errors, located.
    #[serde(default)]
    pub errors: Vec<ReportError>,
    /// How it compares with its baseline.
    #[serde(default)]
    pub baseline: Option<Json>,
}

/// A rubric verdict as the report holds it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReportRubric {
    /// The label.
    pub label: String,
    /// `must_right` or `easy_wrong`.
    pub kind: String,
    /// Whether it held.
    pub held: bool,
    /// Why.
    #[serde(default)]
    pub detail: String,
    /// Where it is written.
    #[serde(default)]
    pub file: String,
    /// Its line.
    #[serde(default)]
    pub line: u64,
    /// Its column.
    #[serde(default)]
    pub column: u64,
}

/// A threshold verdict as the report holds it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReportThreshold {
    /// `min_anls`.
    pub name: String,
    /// Whether it held.
    pub held: bool,
    /// The limit.
    #[serde(default)]
    pub limit: f64,
    /// The value, when measured.
    #[serde(default)]
    pub value: Option<f64>,
    /// Why it is absent.
    #[serde(default)]
    pub absent_because: Option<String>,
    /// Where it is written.
    #[serde(default)]
    pub file: String,
    /// Its line.
    #[serde(default)]
    pub line: u64,
    /// Its column.
    #[serde(default)]
    pub column: u64,
}

/// A load error as the report holds it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReportError {
    /// The file.
    pub file: String,
    /// Its line (0: the whole file).
    #[serde(default)]
    pub line: u64,
    /// Its column.
    #[serde(default)]
    pub column: u64,
    /// The message.
    pub message: String,
}

/// An aggregate test as the report holds it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ReportAggregate {
    /// The test name.
    pub id: String,
    /// The pipeline.
    #[serde(default)]
    pub pipeline: Option<String>,
    /// The suite file.
    #[serde(default)]
    pub file: String,
    /// Whether every bound held.
    pub passed: bool,
    /// The plain failure message.
    #[serde(default)]
    pub message: Option<String>,
    /// Its threshold verdicts.
    #[serde(default)]
    pub thresholds: Vec<ReportThreshold>,
    /// Its metrics by name.
    #[serde(default)]
    pub metrics: Option<serde_json::Map<String, Json>>,
}

impl ReportAggregate {
    /// Where its first failing bound is written, as `file:line` (the suite file alone when none
    /// failed).
    pub fn place(&self) -> String {
        match self.thresholds.iter().find(|t| !t.held) {
            Some(t) if t.line > 0 => format!("{}:{}", t.file, t.line),
            _ => self.file.clone(),
        }
    }
}

impl ReportCase {
    /// The first line of the failure message: which gate closed, which thresholds failed.
    pub fn verdict_line(&self) -> Option<&str> {
        self.message.as_deref().and_then(|m| m.lines().next())
    }

    /// Where the failure is: the first failing Must-Right rubric, load error, threshold or
    /// Easy-Wrong rubric, as `file:line`.
    pub fn place(&self) -> Option<(String, u64)> {
        let rubric = |kind: &str| {
            self.rubrics
                .iter()
                .find(|r| !r.held && r.kind == kind)
                .map(|r| (r.file.clone(), r.line))
        };
        rubric("must_right")
            .or_else(|| self.errors.first().map(|e| (e.file.clone(), e.line)))
            .or_else(|| {
                self.thresholds
                    .iter()
                    .find(|t| !t.held)
                    .map(|t| (t.file.clone(), t.line))
            })
            .or_else(|| rubric("easy_wrong"))
            .or_else(|| (self.passed == Some(false)).then(|| (self.file.clone(), 0)))
    }

    /// The folder of its suite (as the case file's path names it), else of its file.
    pub fn suite_folder(&self) -> String {
        self.suite.clone().unwrap_or_else(|| {
            std::path::Path::new(&self.file)
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        })
    }
}
