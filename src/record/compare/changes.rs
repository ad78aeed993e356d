//! What the comparison says of a group of tests (pass rates, paired means and differences) and
//! of a test that changed (its metrics and its fields old → new).

use super::pairing::{EPSILON, Entry};
use super::{
    ChangeKind, FieldChange, FieldValue, MetricDelta, MetricMove, Passes, PipelineChange, Sides,
    TestChange,
};
use crate::evaluate::gate::case_value;
use crate::evaluate::paired::{McNemar, bootstrap};
use crate::evaluate::record::{CaseNumbers, Status};
use crate::model::metric::Metric;
use crate::record::{FieldRecord, TestRecord};

impl Passes {
    /// Of a run's tests: those that ran (not skipped), and of them those that passed.
    pub(super) fn of<'a>(tests: impl Iterator<Item = &'a CaseNumbers>) -> Passes {
        let (mut passed, mut cases) = (0, 0);
        for n in tests.filter(|n| n.status != Status::Ignored) {
            cases += 1;
            passed += usize::from(n.status == Status::Passed);
        }
        Passes {
            passed,
            cases,
            rate: (cases > 0).then(|| passed as f64 / cases as f64),
        }
    }
}

/// A group in both runs: each run's pass rate over its own tests; the means, differences and
/// McNemar's test over the paired ones.
pub(super) fn group_change(
    name: &str,
    gated: Option<Metric>,
    entries: &[&Entry],
) -> PipelineChange {
    let pairs: Vec<(&CaseNumbers, &CaseNumbers)> =
        entries.iter().filter_map(|e| e.paired()).collect();
    // A test without rubrics has a score of 1 whatever its prediction: it measures nothing.
    let score = |n: &CaseNumbers| {
        n.rubrics
            .filter(|t| t.must_right + t.easy_wrong > 0)
            .map(|t| t.score)
    };
    PipelineChange {
        pipeline: name.to_owned(),
        paired: pairs.len(),
        regression_gate: gated.map(Metric::name),
        score: metric_delta("score", &pairs, score),
        exact_match: metric_delta("EM", &pairs, |n| case_value(n, Metric::ExactMatch)),
        anls: metric_delta("ANLS", &pairs, |n| case_value(n, Metric::Anls)),
        pass_rate: Sides {
            base: Passes::of(entries.iter().filter_map(|e| e.numbers.base)),
            head: Passes::of(entries.iter().filter_map(|e| e.numbers.head)),
        },
        mcnemar: McNemar::of(&pairs),
    }
}

/// A metric's means over the paired tests both runs measured, and its paired difference there.
fn metric_delta(
    metric: &'static str,
    pairs: &[(&CaseNumbers, &CaseNumbers)],
    value: impl Fn(&CaseNumbers) -> Option<f64>,
) -> MetricDelta {
    let measured: Vec<(f64, f64)> = pairs
        .iter()
        .filter_map(|(b, h)| Some((value(b)?, value(h)?)))
        .collect();
    let n = measured.len() as f64;
    let mean = |side: fn(&(f64, f64)) -> f64| {
        (!measured.is_empty()).then(|| measured.iter().map(side).sum::<f64>() / n)
    };
    let differences: Vec<f64> = measured.iter().map(|(b, h)| h - b).collect();
    MetricDelta {
        metric,
        base: mean(|m| m.0),
        head: mean(|m| m.1),
        difference: bootstrap(&differences),
    }
}

/// A listed test's change, its fields read from its records.
pub(super) fn test_change<'a>(
    entry: &Entry<'a>,
    kind: ChangeKind,
    metric: Metric,
    records: Sides<Option<&'a TestRecord>>,
) -> TestChange {
    let numbers = entry.numbers;
    let status = |n: Option<&CaseNumbers>| n.map(|n| n.status);
    let digest = |n: Option<&'a CaseNumbers>| n.and_then(|n| n.gold_digest.as_ref());
    let error = |r: Option<&TestRecord>| r.and_then(|r| r.error.as_ref()).map(|e| e.kind);
    let scored = |r: Option<&'a TestRecord>| r.filter(|r| r.metrics.is_some());
    let fields = match (scored(records.base), scored(records.head)) {
        (Some(b), Some(h)) => field_changes(&b.fields, &h.fields),
        _ => Vec::new(),
    };
    TestChange {
        test: entry.id.to_owned(),
        pipeline: entry.group.clone(),
        kind,
        status: Sides {
            base: status(numbers.base),
            head: status(numbers.head),
        },
        error: Sides {
            base: error(records.base),
            head: error(records.head),
        },
        metrics: metric_moves(numbers, metric),
        fields,
        gold_changed: matches!(
            (digest(numbers.base), digest(numbers.head)),
            (Some(a), Some(b)) if a != b
        ),
        bless: records
            .head
            .and_then(|r| r.baseline.as_ref()?.standing.as_ref())
            .and_then(|s| match s {
                crate::evaluate::baseline::Standing::Fixed { bless } => Some(bless.clone()),
                _ => None,
            }),
    }
}

/// The gated metric of a test in each run, then EM, ANLS and its score (with rubrics) where they
/// moved.
fn metric_moves(numbers: Sides<Option<&CaseNumbers>>, gated: Metric) -> Vec<MetricMove> {
    let value = |n: Option<&CaseNumbers>, m: Metric| n.and_then(|n| case_value(n, m));
    let with_rubrics = |n: Option<&CaseNumbers>| {
        n.and_then(|n| n.rubrics)
            .is_some_and(|t| t.must_right + t.easy_wrong > 0)
    };
    let of = |m: Metric| MetricMove {
        metric: m.name(),
        base: value(numbers.base, m),
        head: value(numbers.head, m),
    };
    let moved = |m: &MetricMove| match (m.base, m.head) {
        (Some(o), Some(n)) => (n - o).abs() > EPSILON,
        (o, n) => o.is_some() != n.is_some() && numbers.base.is_some() && numbers.head.is_some(),
    };
    let mut moves = vec![of(gated)];
    for m in [Metric::ExactMatch, Metric::Anls, Metric::Score] {
        let measures =
            m != Metric::Score || with_rubrics(numbers.base) || with_rubrics(numbers.head);
        let other = of(m);
        if m != gated && measures && moved(&other) {
            moves.push(other);
        }
    }
    moves
}

/// A field's row in a run, as the comparison shows it.
fn field_value(f: &FieldRecord) -> FieldValue {
    FieldValue {
        prediction: f.prediction.clone(),
        em: f.em,
        anls: f.anls,
        gold: f.gold.get(f.closest).or(f.gold.first()).cloned(),
    }
}

/// The fields of a test both runs scored whose prediction, EM, ANLS or gold changed (HEAD's
/// order, then BASE's own): the largest drop of ANLS, then of EM, first; a field one run's gold
/// lacks last.
fn field_changes(base: &[FieldRecord], head: &[FieldRecord]) -> Vec<FieldChange> {
    let find = |fields: &[FieldRecord], name: &str| {
        fields.iter().find(|f| f.name == name).map(field_value)
    };
    let mut names: Vec<&str> = head.iter().map(|f| f.name.as_str()).collect();
    names.extend(
        base.iter()
            .map(|f| f.name.as_str())
            .filter(|n| !head.iter().any(|h| h.name == *n)),
    );
    let mut changes: Vec<FieldChange> = names
        .into_iter()
        .map(|name| FieldChange {
            field: name.to_owned(),
            base: find(base, name),
            head: find(head, name),
        })
        .filter(|c| c.base != c.head)
        .collect();
    let loss = |c: &FieldChange| match (&c.base, &c.head) {
        (Some(b), Some(h)) => (0, h.anls - b.anls, h.em - b.em),
        _ => (1, 0.0, 0.0),
    };
    changes.sort_by(|a, b| {
        let ((ka, aa, ea), (kb, ab, eb)) = (loss(a), loss(b));
        ka.cmp(&kb).then(aa.total_cmp(&ab)).then(ea.total_cmp(&eb))
    });
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::outcome::Metrics;
    use crate::evaluate::record::KeptMetrics;

    fn with_anls(anls: Option<f64>) -> CaseNumbers {
        let mut n = CaseNumbers::of("t", None, Status::Passed, None);
        n.metrics = Some(KeptMetrics::from(&Metrics {
            anls,
            ..Metrics::default()
        }));
        n
    }

    /// BASE's mean, HEAD's and their difference are over the same tests: a test one run did not
    /// measure counts in neither mean.
    #[test]
    fn the_means_are_over_the_tests_both_runs_measured_and_differ_by_their_difference() {
        let (base, head) = (
            [with_anls(Some(1.0)), with_anls(Some(0.5)), with_anls(None)],
            [
                with_anls(Some(0.5)),
                with_anls(Some(0.5)),
                with_anls(Some(1.0)),
            ],
        );
        let pairs: Vec<(&CaseNumbers, &CaseNumbers)> = base.iter().zip(&head).collect();
        let delta = metric_delta("ANLS", &pairs, |n| case_value(n, Metric::Anls));
        assert_eq!((delta.base, delta.head), (Some(0.75), Some(0.5)));
        let interval = delta.difference.unwrap();
        assert_eq!((interval.difference, interval.cases), (-0.25, 2));
    }
}
