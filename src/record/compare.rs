//! Two runs compared (`goldgate report --compare BASE HEAD`): built once from their records,
//! as typed data, for the terminal and the pull-request comment to write. Per pipeline, its
//! means in each run and the paired differences over the tests both ran; per test, what
//! regressed, improved, appeared or went, with the fields that changed; whether the two runs
//! were scored against the same gold; and HEAD's gates.

use std::collections::BTreeMap;

use super::{AggregateRecord, FieldRecord, RegressionGateRecord, TestRecord, ThresholdRecord};
use crate::evaluate::aggregate::{pipeline_rows, row_of};
use crate::evaluate::paired::{Interval, McNemar, compare_pairs};
use crate::evaluate::record::{CaseNumbers, Status};

/// One run's records, as the comparison reads them.
pub(crate) struct RunSide<'a> {
    /// How the run is named: its run id, its commit, or which side it is.
    pub(crate) label: String,
    /// Its case tests' records.
    pub(crate) cases: &'a [TestRecord],
    /// Its case tests' numbers, in name order.
    pub(crate) numbers: &'a [CaseNumbers],
    /// Its aggregate tests' records.
    pub(crate) aggregates: &'a [AggregateRecord],
    /// The digest of its gold set, when its report has one.
    pub(crate) gold_digest: Option<&'a str>,
}

/// BASE and HEAD compared.
#[derive(Debug, Clone, PartialEq)]
pub struct RunComparison {
    /// BASE's name.
    pub base: String,
    /// HEAD's name.
    pub head: String,
    /// HEAD's verdict: its failing tests and gates.
    pub verdict: HeadVerdict,
    /// Each pipeline (or suite folder without pipelines) of either run, in the order of the
    /// comparison of pipelines.
    pub pipelines: Vec<PipelineChange>,
    /// Each test that changed: regressed, then improved, then new, then removed (see
    /// [`TestChange`] for the order within each).
    pub tests: Vec<TestChange>,
    /// Whether both runs were scored against the same gold.
    pub gold: GoldChange,
}

/// HEAD's failures.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadVerdict {
    /// Case tests in HEAD.
    pub cases: usize,
    /// Those that failed.
    pub failed_cases: usize,
    /// Aggregate tests in HEAD.
    pub aggregates: usize,
    /// The aggregate tests that failed, in name order.
    pub failed_gates: Vec<FailedGate>,
}

/// A failed aggregate test of HEAD and what closed it.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedGate {
    /// The aggregate test.
    pub test: String,
    /// Its regression gate, when that failed.
    pub regression: Option<RegressionGateRecord>,
    /// Its bounds that did not hold.
    pub bounds: Vec<ThresholdRecord>,
    /// Its slices that did not hold, as `tag=value`.
    pub slices: Vec<String>,
}

/// One pipeline in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineChange {
    /// The pipeline, or the folder of a suite without pipelines (`cases/receipts/`).
    pub pipeline: String,
    /// Tests of the pipeline both runs ran (skipped ones left out).
    pub paired: usize,
    /// Mean score, EM and ANLS in each run, with the paired difference.
    pub metrics: Vec<MetricDelta>,
    /// The share of tests passed in each run.
    pub pass_rate: (Option<f64>, Option<f64>),
    /// McNemar's exact test on pass/fail of the paired tests (`only_reference`: BASE only).
    pub mcnemar: McNemar,
}

/// A metric's mean in each run, and HEAD minus BASE over the paired tests.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricDelta {
    /// The metric, as the tables head it (`score`, `EM`, `ANLS`).
    pub metric: &'static str,
    /// BASE's mean over its tests of the pipeline.
    pub base: Option<f64>,
    /// HEAD's.
    pub head: Option<f64>,
    /// HEAD minus BASE over the paired tests, with its 95 % paired bootstrap interval.
    pub difference: Option<Interval>,
}

impl MetricDelta {
    /// Whether the interval of the difference lies wholly on one side of zero.
    pub fn significant(&self) -> Option<bool> {
        self.difference.map(|i| i.low > 0.0 || i.high < 0.0)
    }
}

/// How a test changed from BASE to HEAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    /// It passed and fails, or its headline metric dropped.
    Regressed,
    /// It failed and passes, or its headline metric rose.
    Improved,
    /// Only HEAD has it.
    New,
    /// Only BASE has it.
    Removed,
}

/// A test that changed. Within each kind: a verdict that flipped first, then the largest move
/// of the headline metric, then by name.
#[derive(Debug, Clone, PartialEq)]
pub struct TestChange {
    /// The test.
    pub test: String,
    /// How it changed.
    pub kind: ChangeKind,
    /// Whether it passed in BASE and in HEAD (`None`: absent or skipped there).
    pub passed: (Option<bool>, Option<bool>),
    /// Its headline metric (score where it has rubrics, else ANLS, else EM) in BASE and HEAD.
    pub metric: Option<(&'static str, Option<f64>, Option<f64>)>,
    /// Its fields whose prediction or exact match changed, worst first.
    pub fields: Vec<FieldChange>,
    /// Whether its gold digest differs between the runs.
    pub gold_changed: bool,
}

impl TestChange {
    /// Whether its verdict flipped.
    pub fn flipped(&self) -> bool {
        matches!(self.passed, (Some(a), Some(b)) if a != b)
    }
}

/// A field of a test whose prediction or exact match changed.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChange {
    /// The field.
    pub field: String,
    /// BASE's prediction, as compact JSON text (`"10.00"`; `null` when absent); `None` when
    /// BASE kept no fields for the test (a test that passes keeps none).
    pub old: Option<String>,
    /// HEAD's, likewise.
    pub new: Option<String>,
    /// EM in BASE and HEAD, where kept.
    pub em: (Option<f64>, Option<f64>),
    /// Gold's value (its first variant), as compact JSON text, from whichever run kept the
    /// field: what a side that kept none matched, when it passed.
    pub gold: Option<String>,
}

/// Whether BASE and HEAD were scored against the same gold.
#[derive(Debug, Clone, PartialEq)]
pub enum GoldChange {
    /// The same digest.
    Same,
    /// Different digests; the tests of both runs whose own digest differs, in name order.
    Different(Vec<String>),
    /// A run's report carries no digest (written by an older goldgate).
    Unknown,
}

/// BASE and HEAD compared.
pub(crate) fn compare_runs(base: &RunSide, head: &RunSide) -> RunComparison {
    RunComparison {
        base: base.label.clone(),
        head: head.label.clone(),
        verdict: head_verdict(head),
        pipelines: pipeline_changes(base, head),
        tests: test_changes(base, head),
        gold: gold_change(base, head),
    }
}

fn head_verdict(head: &RunSide) -> HeadVerdict {
    let ran = head.cases.iter().filter(|c| !c.ignored);
    HeadVerdict {
        cases: ran.clone().count(),
        failed_cases: ran.filter(|c| c.passed == Some(false)).count(),
        aggregates: head.aggregates.len(),
        failed_gates: head
            .aggregates
            .iter()
            .filter(|a| !a.passed)
            .map(|a| FailedGate {
                test: a.id.clone(),
                regression: a.regression_gate.clone().filter(|g| !g.held),
                bounds: a.thresholds.iter().filter(|t| !t.held).cloned().collect(),
                slices: a
                    .slices
                    .iter()
                    .filter(|s| !s.held)
                    .map(|s| format!("{}={}", s.tag, s.value))
                    .collect(),
            })
            .collect(),
    }
}

fn pipeline_changes(base: &RunSide, head: &RunSide) -> Vec<PipelineChange> {
    let (base_rows, head_rows) = (pipeline_rows(base.numbers), pipeline_rows(head.numbers));
    let before: BTreeMap<&str, &CaseNumbers> =
        base.numbers.iter().map(|n| (n.id.as_str(), n)).collect();
    let mut pairs: BTreeMap<String, Vec<(&CaseNumbers, &CaseNumbers)>> = BTreeMap::new();
    for n in head.numbers.iter().filter(|n| n.status != Status::Ignored) {
        if let Some(b) = before
            .get(n.id.as_str())
            .filter(|b| b.status != Status::Ignored)
        {
            pairs
                .entry(row_of(n).into_owned())
                .or_default()
                .push((b, n));
        }
    }
    // HEAD's rows in their order, then those only BASE has.
    let mut names: Vec<&String> = head_rows.iter().map(|(name, _)| name).collect();
    names.extend(
        base_rows
            .iter()
            .map(|(name, _)| name)
            .filter(|n| !head_rows.iter().any(|(h, _)| h == *n)),
    );
    names
        .into_iter()
        .map(|name| {
            let of = |rows: &[(String, crate::evaluate::aggregate::Aggregated)]| {
                rows.iter().find(|(n, _)| n == name).map(|(_, a)| a.clone())
            };
            let (b, h) = (of(&base_rows), of(&head_rows));
            let paired = pairs.get(name).map_or(&[][..], Vec::as_slice);
            let compared = compare_pairs(name, name, paired);
            let mean =
                |a: &Option<crate::evaluate::aggregate::Aggregated>,
                 get: fn(&crate::evaluate::aggregate::Aggregated) -> Option<f64>| {
                    a.as_ref().and_then(get)
                };
            let delta = |metric, get, difference| MetricDelta {
                metric,
                base: mean(&b, get),
                head: mean(&h, get),
                difference,
            };
            PipelineChange {
                pipeline: name.clone(),
                paired: paired.len(),
                metrics: vec![
                    delta("score", |a| a.mean_score, compared.score),
                    delta("EM", |a| a.exact_match, compared.exact_match),
                    delta("ANLS", |a| a.anls, compared.anls),
                ],
                pass_rate: (mean(&b, |a| a.pass_rate), mean(&h, |a| a.pass_rate)),
                mcnemar: compared.mcnemar,
            }
        })
        .collect()
}

fn test_changes(base: &RunSide, head: &RunSide) -> Vec<TestChange> {
    let before: BTreeMap<&str, &TestRecord> =
        base.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let after: BTreeMap<&str, &TestRecord> =
        head.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut changes: Vec<TestChange> = Vec::new();
    for (id, h) in &after {
        match before.get(id) {
            None => changes.push(one_sided(h, ChangeKind::New)),
            Some(b) => changes.extend(both_sides(b, h)),
        }
    }
    for (id, b) in &before {
        if !after.contains_key(id) {
            changes.push(one_sided(b, ChangeKind::Removed));
        }
    }
    changes.sort_by(|a, b| {
        let moved = |c: &TestChange| {
            c.metric
                .and_then(|(_, old, new)| Some((new? - old?).abs()))
                .unwrap_or(0.0)
        };
        (a.kind, !a.flipped())
            .cmp(&(b.kind, !b.flipped()))
            .then(moved(b).total_cmp(&moved(a)))
            .then(a.test.cmp(&b.test))
    });
    changes
}

fn verdict(record: &TestRecord) -> Option<bool> {
    if record.ignored { None } else { record.passed }
}

/// A test's headline metric: its score where it has rubrics, else ANLS, else EM.
fn headline(record: &TestRecord) -> Option<(&'static str, f64)> {
    if !record.rubrics.is_empty() {
        return record.score.map(|s| ("score", s));
    }
    let metrics = record.metrics.as_ref()?;
    metrics
        .anls
        .map(|v| ("ANLS", v))
        .or(metrics.exact_match.map(|v| ("EM", v)))
}

fn one_sided(record: &TestRecord, kind: ChangeKind) -> TestChange {
    let metric = headline(record).map(|(name, v)| match kind {
        ChangeKind::Removed => (name, Some(v), None),
        _ => (name, None, Some(v)),
    });
    TestChange {
        test: record.id.clone(),
        kind,
        passed: match kind {
            ChangeKind::Removed => (verdict(record), None),
            _ => (None, verdict(record)),
        },
        metric,
        fields: Vec::new(),
        gold_changed: false,
    }
}

/// The change of a test both runs have, when it changed: its verdict first, else its headline
/// metric (a skipped test is compared on nothing).
fn both_sides(base: &TestRecord, head: &TestRecord) -> Option<TestChange> {
    let passed = (verdict(base), verdict(head));
    let (old, new) = (headline(base), headline(head));
    let metric = match (old, new) {
        (Some((name, o)), Some((_, n))) => Some((name, Some(o), Some(n))),
        (Some((name, o)), None) => Some((name, Some(o), None)),
        (None, Some((name, n))) => Some((name, None, Some(n))),
        (None, None) => None,
    };
    // A move smaller than the figures shown is no move.
    const EPSILON: f64 = 5e-5;
    let kind = match passed {
        (Some(true), Some(false)) => ChangeKind::Regressed,
        (Some(false), Some(true)) => ChangeKind::Improved,
        (Some(_), Some(_)) => match metric {
            Some((_, Some(o), Some(n))) if n < o - EPSILON => ChangeKind::Regressed,
            Some((_, Some(o), Some(n))) if n > o + EPSILON => ChangeKind::Improved,
            _ => return None,
        },
        _ => return None,
    };
    Some(TestChange {
        test: head.id.clone(),
        kind,
        passed,
        metric,
        fields: field_changes(&base.fields, &head.fields),
        gold_changed: matches!((&base.gold_digest, &head.gold_digest), (Some(a), Some(b)) if a != b),
    })
}

/// The fields whose prediction or exact match changed: those that lost their match first. A
/// run keeps the fields of its failing tests only: against a side without them, the fields
/// that are not exact on the other side are listed.
fn field_changes(base: &[FieldRecord], head: &[FieldRecord]) -> Vec<FieldChange> {
    let kept = |fields: &[FieldRecord], name: &str| {
        if fields.is_empty() {
            return (None, None);
        }
        let f = fields.iter().find(|f| f.name == name);
        (
            Some(f.map_or_else(|| "null".to_owned(), |f| f.prediction.to_string())),
            Some(f.map_or(0.0, |f| f.em)),
        )
    };
    let mut names: Vec<&str> = head.iter().map(|f| f.name.as_str()).collect();
    names.extend(
        base.iter()
            .map(|f| f.name.as_str())
            .filter(|n| !head.iter().any(|h| h.name == *n)),
    );
    let mut changes: Vec<FieldChange> = names
        .into_iter()
        .filter_map(|name| {
            let ((old, old_em), (new, new_em)) = (kept(base, name), kept(head, name));
            let changed = match (old_em, new_em) {
                (Some(_), Some(_)) => old != new || old_em != new_em,
                (None, Some(em)) | (Some(em), None) => em < 1.0,
                (None, None) => false,
            };
            let gold = head
                .iter()
                .chain(base)
                .find(|f| f.name == name)
                .and_then(|f| f.gold.first())
                .map(ToString::to_string);
            changed.then(|| FieldChange {
                field: name.to_owned(),
                old,
                new,
                em: (old_em, new_em),
                gold,
            })
        })
        .collect();
    // What a field lost, its EM unknown taken as exact.
    let lost = |c: &FieldChange| c.em.1.unwrap_or(1.0) - c.em.0.unwrap_or(1.0);
    changes.sort_by(|a, b| lost(a).total_cmp(&lost(b)));
    changes
}

fn gold_change(base: &RunSide, head: &RunSide) -> GoldChange {
    let (Some(b), Some(h)) = (base.gold_digest, head.gold_digest) else {
        return GoldChange::Unknown;
    };
    if b == h {
        return GoldChange::Same;
    }
    let digests = |side: &RunSide| -> BTreeMap<String, String> {
        side.cases
            .iter()
            .filter_map(|c| Some((c.id.clone(), c.gold_digest.clone()?)))
            .chain(
                side.aggregates
                    .iter()
                    .filter_map(|a| Some((a.id.clone(), a.gold_digest.clone()?))),
            )
            .collect()
    };
    let (before, after) = (digests(base), digests(head));
    GoldChange::Different(
        after
            .iter()
            .filter(|(id, d)| before.get(*id).is_some_and(|old| old != *d))
            .map(|(id, _)| id.clone())
            .collect(),
    )
}
