//! The JSON report of a run (`GOLDGATE_REPORT` / `--report`), written atomically.

use std::path::Path;

use serde_json::{Value as Json, json};

use super::RunSummary;
use super::aggregated_json;
use crate::evaluate::aggregate::Aggregated;
use crate::evaluate::record::{AggregateResult, Record, Status};

/// A case test's record as the report shows it.
pub(crate) fn record_json(record: &Record) -> Json {
    let mut case = json!({
        "id": record.id,
        "pipeline": record.pipeline,
        "file": record.file,
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
    if let Some(p) = &record.prediction {
        case["model"] = json!(p.model);
        case["usage"] = p.usage.map_or(Json::Null, |u| json!({
                "input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "total_tokens": u.total_tokens,
            }));
    }
    let Some(o) = &record.outcome else {
        return case;
    };
    let m = &o.metrics;
    case["score"] = json!(o.score);
    case["gate"] = json!({
        "open": o.gate_open,
        "closed_by": o.closed_by().map(|r| r.rubric.label.clone()).collect::<Vec<_>>(),
    });
    case["metrics"] = json!({
        "exact_match": m.exact_match, "anls": m.anls,
        "exact_critical": m.exact_critical, "anls_critical": m.anls_critical,
        "brier": m.brier, "ece": m.ece, "latency_ms": m.latency_ms, "cost_usd": m.cost_usd,
        "extra_fields": m.extra_fields, "precision": m.precision, "recall": m.recall, "f1": m.f1,
    });
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
            })
        })
        .collect();
    case["rubrics"] = o
            .rubrics
            .iter()
            .map(|r| {
                json!({
                    "label": r.rubric.label, "kind": r.rubric.kind.key(), "field": r.rubric.probe.field.as_ref().map(ToString::to_string),
                    "held": r.verdict.held, "penalty": r.rubric.penalty, "detail": r.verdict.detail,
                    "file": r.rubric.file.display().to_string(), "line": r.rubric.line,
                })
            })
            .collect();
    case["thresholds"] = o.thresholds.iter().map(|t| json!({
            "name": t.name, "limit": t.limit, "value": t.value, "held": t.held, "absent_because": t.absent_because,
        })).collect();
    case
}

/// Writes the report next to its destination, then renames it over: a reader never sees half a file.
pub fn write_report(
    path: &Path,
    records: &[Record],
    summary: &RunSummary,
    pipelines: &[(String, Aggregated)],
    aggregates: &[AggregateResult],
) -> std::io::Result<()> {
    let mut aggregates = aggregates.to_vec();
    aggregates.sort_by(|a, b| a.0.cmp(&b.0));
    let report = json!({
        "goldgate": env!("CARGO_PKG_VERSION"),
        "summary": summary.to_json(),
        "cases": records.iter().map(record_json).collect::<Vec<_>>(),
        "pipelines": pipelines.iter().map(|(name, a)| {
            let mut row = aggregated_json(a);
            row["pipeline"] = json!(name);
            row
        }).collect::<Vec<_>>(),
        "aggregates": aggregates.iter().map(|(name, pipeline, a, verdicts)| json!({
            "id": name,
            "pipeline": pipeline,
            "passed": verdicts.iter().all(|v| v.held),
            "metrics": aggregated_json(a),
            "thresholds": verdicts.iter().map(|t| json!({
                "name": t.name, "limit": t.limit, "value": t.value, "held": t.held, "absent_because": t.absent_because,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&report).map_err(std::io::Error::other)?;
    text.push('\n');
    crate::base::fs::write_atomically(path, text.as_bytes())
}
