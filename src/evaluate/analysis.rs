//! What went wrong across a run: the misses by kind per pipeline, per field and per tag; and
//! per field, from which confidence its values may be accepted automatically.

use std::collections::BTreeMap;

use crate::evaluate::aggregate::{SliceRow, row_of};
use crate::evaluate::miss::MissCounts;
use crate::evaluate::record::{CaseNumbers, Status};
use crate::metrics::acceptance::{AcceptancePoint, PooledPoint, advised};
// What a pooled row says of its threshold, for the renderers to name.
pub use crate::metrics::acceptance::{Accept, ShareOf};

/// What a row of the misses counts over.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum MissScope {
    /// Every field of the pipeline's cases.
    Pipeline,
    /// One field (a gold field, or a predicted one gold does not list).
    Field(String),
    /// The cases tagged `tag=value`.
    Slice {
        /// The tag.
        tag: String,
        /// Its value.
        value: String,
    },
}

/// The misses of one scope for one row of the comparison of pipelines.
#[derive(Debug, Clone, PartialEq)]
pub struct MissRow {
    /// What the row counts over.
    pub scope: MissScope,
    /// The row of the comparison: the pipeline, else the suite's folder.
    pub pipeline: String,
    /// The misses by kind.
    pub counts: MissCounts,
}

/// The misses of a run: each pipeline's (every one, misses or not), then each field's and each
/// slice's that has a miss, in order of pipeline, then field or slice.
pub fn miss_rows(
    records: &[CaseNumbers],
    pipelines: &[(String, crate::evaluate::aggregate::Aggregated)],
    slices: &[SliceRow],
) -> Vec<MissRow> {
    let mut by_field: BTreeMap<(String, String), MissCounts> = BTreeMap::new();
    for r in records.iter().filter(|r| r.status != Status::Ignored) {
        let pipeline = row_of(r).into_owned();
        for (name, miss) in &r.missed {
            by_field
                .entry((pipeline.clone(), name.as_str().to_owned()))
                .or_default()
                .add(*miss);
        }
    }
    let mut rows: Vec<MissRow> = pipelines
        .iter()
        .filter(|(_, a)| a.cases > 0)
        .map(|(name, a)| MissRow {
            scope: MissScope::Pipeline,
            pipeline: name.clone(),
            counts: a.misses,
        })
        .collect();
    rows.extend(
        by_field
            .into_iter()
            .map(|((pipeline, field), counts)| MissRow {
                scope: MissScope::Field(field),
                pipeline,
                counts,
            }),
    );
    rows.extend(
        slices
            .iter()
            .filter(|s| s.metrics.misses.total() > 0)
            .map(|s| MissRow {
                scope: MissScope::Slice {
                    tag: s.tag.clone(),
                    value: s.value.clone(),
                },
                pipeline: s.pipeline.clone(),
                counts: s.metrics.misses,
            }),
    );
    // Pipelines in the comparison's order; within one, its total, its fields, its slices.
    let order: Vec<&str> = pipelines.iter().map(|(n, _)| n.as_str()).collect();
    rows.sort_by(|a, b| {
        let at = |p: &str| order.iter().position(|o| *o == p);
        (at(&a.pipeline), &a.scope).cmp(&(at(&b.pipeline), &b.scope))
    });
    rows
}

/// When one field's values may be accepted automatically, for one row of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldAcceptance {
    /// The row of the comparison: the pipeline, else the suite's folder.
    pub pipeline: String,
    /// The field.
    pub field: String,
    /// The error rate the advice bounds.
    pub target_error: f64,
    /// The acceptance curve, lowest threshold first.
    pub curve: Vec<AcceptancePoint>,
    /// The smallest threshold whose error bound is at most the target, when one is.
    pub advised: Option<AcceptancePoint>,
}

impl FieldAcceptance {
    /// The field's values with a confidence: all of them are accepted at the lowest threshold.
    pub fn values(&self) -> usize {
        self.curve.first().map_or(0, |p| p.accepted)
    }
}

/// Each field with confidences, per row of the comparison of pipelines, in the comparison's
/// order and then by field.
pub fn acceptance_rows(
    pipelines: &[(String, crate::evaluate::aggregate::Aggregated)],
) -> Vec<FieldAcceptance> {
    pipelines
        .iter()
        .flat_map(|(name, a)| {
            a.acceptance.iter().map(move |(field, tally)| {
                let curve = tally.curve();
                FieldAcceptance {
                    pipeline: name.clone(),
                    field: field.clone(),
                    target_error: a.target_error,
                    advised: advised(&curve, a.target_error),
                    curve,
                }
            })
        })
        .collect()
}

/// Every field's values accepted at the suite's `acceptance` thresholds, pooled over the
/// fields, for one row of the comparison (as the report keeps it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PooledAcceptance {
    /// The pipeline, else the folder of the suite of cases without pipelines.
    pub pipeline: String,
    /// One point per threshold, in the order `acceptance.thresholds` writes them.
    pub points: Vec<PooledPoint>,
}

/// The pooled points of each row of the comparison whose suite gives `acceptance`
/// thresholds, in the comparison's order.
pub fn pooled_rows(
    pipelines: &[(String, crate::evaluate::aggregate::Aggregated)],
) -> Vec<PooledAcceptance> {
    pipelines
        .iter()
        .filter(|(_, a)| !a.pooled.is_empty())
        .map(|(name, a)| PooledAcceptance {
            pipeline: name.clone(),
            points: a.pooled.clone(),
        })
        .collect()
}
