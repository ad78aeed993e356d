//! What evaluation found, made into records: the one place a test's result takes its typed,
//! serialized form.

use super::diff::{chars, lines};
use super::*;
use crate::base::value::Value;
use crate::evaluate::aggregate::{RunSummary, SliceRow};
use crate::evaluate::baseline::Change;
use crate::evaluate::outcome::{FieldRow, ThresholdVerdict};
use crate::evaluate::paired::{Paired, RESAMPLES, SEED};
use crate::evaluate::record::{self as evaluated, Record};

/// The record of a case test.
pub(crate) fn test_record(record: &Record) -> TestRecord {
    let (description, tags) = record.about.clone().unwrap_or_default();
    let mut out = TestRecord {
        id: record.id.clone(),
        pipeline: record.pipeline.clone(),
        file: record.file.clone(),
        suite: record.suite.clone(),
        status: record.status,
        passed: match record.status {
            Status::Passed => Some(true),
            Status::Failed | Status::KnownFailure => Some(false),
            Status::Ignored => None,
        },
        ignored: record.status == Status::Ignored,
        known_failure: record.status == Status::KnownFailure,
        skip: record.skip.clone(),
        error: record.error.as_ref().map(|c| TestError {
            kind: c.kind,
            message: c.message.clone(),
        }),
        description,
        tags,
        attributes: record.attributes.clone(),
        score: None,
        gate: None,
        metrics: None,
        fields: Vec::new(),
        rubrics: Vec::new(),
        thresholds: Vec::new(),
        extra_fields: Vec::new(),
        problems: Vec::new(),
        errors: record.problems.iter().map(located).collect(),
        model: record.model.clone(),
        usage: record.usage,
        usage_mismatch: record.usage_mismatch.clone(),
        baseline: comparison(&record.baseline),
        baseline_file: record
            .baseline
            .file
            .as_ref()
            .map(|f| f.display().to_string()),
        compared_to: record.reference.clone(),
        target_error: None,
        acceptance: None,
        document: record.document.clone(),
        message: record.message.clone(),
        repeat: record.repeated.as_ref().map(repeat),
        calls: record.calls,
        gold_digest: record.gold_digest.clone(),
        history: record.history.clone(),
    };
    if let Some(o) = &record.outcome {
        scored(&mut out, o);
    }
    out
}

/// A regression gate's verdict as a record.
pub(crate) fn gate_record(g: &crate::evaluate::gate::GateVerdict) -> RegressionGateRecord {
    RegressionGateRecord {
        metric: g.metric.name().to_owned(),
        min_effect: g.min_effect,
        confidence: g.confidence,
        held: g.held,
        difference: g.difference,
        bootstrap: BootstrapRecord {
            resamples: RESAMPLES,
            seed: SEED,
            level: g.confidence,
        },
        dropped_most: g
            .dropped_most
            .iter()
            .map(|p| CaseDrop {
                test: p.test.clone(),
                old: p.old,
                new: p.new,
            })
            .collect(),
        unpaired: g.unpaired,
        lacking: g.lacking.clone(),
        unscored: g.unscored.clone(),
        entries: g.entries,
        measured: g.measured,
        power: g.power,
        false_alarms: g.false_alarms,
        baseline_error: g.baseline_error.clone(),
        baseline: g.baseline.clone(),
        accept: g.accept.clone(),
        file: g.at.0.clone(),
        line: g.at.1,
    }
}

/// The attempts of a repeated case as a record.
fn repeat(r: &crate::evaluate::repeat::Repeated) -> RepeatRecord {
    let numbers = r.numbers();
    RepeatRecord {
        pass: r.pass.name().to_owned(),
        attempts: r.attempts.len(),
        passed: numbers.passed(),
        shown: r.shown() + 1,
        flip_rates: numbers.flip_rates(),
        each: r
            .attempts
            .iter()
            .enumerate()
            .map(|(i, a)| AttemptRecord {
                attempt: i + 1,
                passed: a.passed,
                error: a.error.clone(),
                score: a.outcome.as_ref().map(|o| o.score),
                metrics: a.outcome.as_ref().map(|o| o.metrics.clone()),
                fields: a.outcome.as_ref().map_or_else(Vec::new, |o| {
                    o.fields
                        .iter()
                        .map(|f| AttemptField {
                            name: f.name.clone(),
                            prediction: f.prediction.to_json(),
                            em: f.em,
                            anls: f.anls,
                            confidence: f.confidence,
                        })
                        .collect()
                }),
            })
            .collect(),
    }
}

/// How a test compares with its baseline, when there is anything to say.
fn comparison(b: &evaluated::Compared) -> Option<BaselineComparison> {
    let said = b.new
        || !b.regressions.is_empty()
        || !b.improvements.is_empty()
        || b.standing.is_some()
        || b.relative
        || !b.moved.is_empty();
    said.then(|| BaselineComparison {
        new: b.new,
        regressions: b.regressions.iter().map(change).collect(),
        improvements: b.improvements.iter().map(change).collect(),
        standing: b.standing.clone(),
        fail_on_regressions: b.relative,
        moved: b.moved.iter().map(change).collect(),
    })
}

/// What the evaluation of a scored case adds to its record.
fn scored(out: &mut TestRecord, o: &crate::evaluate::outcome::Outcome) {
    out.score = Some(o.score);
    out.gate = Some(Gate {
        open: o.gate_open,
        closed_by: o.closed_by().map(|r| r.rubric.label.clone()).collect(),
    });
    out.metrics = Some(o.metrics.clone());
    out.fields = o.fields.iter().map(field).collect();
    out.rubrics = o.rubrics.iter().map(rubric).collect();
    out.thresholds = o.thresholds.iter().map(threshold).collect();
    out.extra_fields = o
        .extra_fields
        .iter()
        .map(|(name, value)| ExtraField {
            name: name.clone(),
            prediction: value.to_json(),
        })
        .collect();
    out.problems = o.problems.clone();
    out.target_error = Some(o.target_error);
    out.acceptance = o.acceptance.clone();
}

/// A rubric's verdict as a record, where the rubric is written.
fn rubric(r: &crate::evaluate::outcome::RubricVerdict) -> RubricRecord {
    RubricRecord {
        label: r.rubric.label.clone(),
        kind: r.rubric.kind.key().to_owned(),
        check: r.rubric.probe.check.key().to_owned(),
        field: r.rubric.probe.field.as_ref().map(ToString::to_string),
        held: r.verdict.held,
        checked: r.verdict.checked,
        penalty: r.rubric.penalty,
        finding: r.verdict.finding.clone(),
        file: r.rubric.file.display().to_string(),
        line: r.rubric.line,
        column: r.rubric.column,
    }
}

fn located(p: &evaluated::Located) -> LocatedProblem {
    LocatedProblem {
        file: p.file.clone(),
        line: p.line,
        column: p.column,
        message: p.message.clone(),
    }
}

fn change(c: &Change) -> MetricChange {
    MetricChange {
        metric: c.metric.clone(),
        old: c.old,
        new: (!c.new.is_nan()).then_some(c.new),
    }
}

/// A field's row as a record, its diff made as data.
fn field(f: &FieldRow) -> FieldRecord {
    FieldRecord {
        name: f.name.clone(),
        line: (f.line > 0).then_some(f.line),
        gold: f.gold.iter().map(Value::to_json).collect(),
        prediction: f.prediction.to_json(),
        predicted: f.predicted,
        em: f.em,
        anls: f.anls,
        confidence: f.confidence,
        critical: f.critical,
        note: f.note.clone(),
        metadata: f.metadata.iter().cloned().collect(),
        closest: f.closest,
        compared: f.compared.as_ref().map(|(g, p)| ComparedForms {
            gold: g.to_json(),
            prediction: p.to_json(),
        }),
        items: f.items.clone(),
        diff: field_diff(f),
        grounding: f.grounding,
        miss: f.miss,
    }
}

/// The diff the failure message shows for a field: the closest variant (its own alternatives
/// resolved) into the prediction, or the compared forms where rules on paths inside it apply;
/// `None` when they read the same.
pub(crate) fn field_diff(f: &FieldRow) -> Option<FieldDiff> {
    if f.em == 1.0 {
        return None;
    }
    let closest = f.resolved.as_ref().or_else(|| f.gold.get(f.closest))?;
    let (gold, prediction, as_compared) = match &f.compared {
        Some((g, p)) => (g, p, true),
        None => (closest, &f.prediction, false),
    };
    if gold.is_nested() || prediction.is_nested() {
        let spans = lines(&gold.to_string(), &prediction.to_string());
        return Some(FieldDiff {
            lines: true,
            as_compared,
            spans,
        });
    }
    let (g, p) = (gold.as_text(), prediction.as_text());
    (g != p).then(|| FieldDiff {
        lines: false,
        as_compared,
        spans: chars(&g, &p),
    })
}

/// A threshold's verdict as a record.
pub(crate) fn threshold(t: &ThresholdVerdict) -> ThresholdRecord {
    ThresholdRecord {
        name: t.name.clone(),
        limit: t.limit,
        value: t.value,
        held: t.held,
        absent_because: t.absent_because.clone(),
        file: t.file.display().to_string(),
        line: t.line,
        column: t.column,
    }
}

/// The record of an aggregate test.
pub(crate) fn aggregate_record(
    a: &crate::evaluate::aggregate_result::AggregateRecord,
) -> AggregateRecord {
    AggregateRecord {
        id: a.id.clone(),
        pipeline: a.pipeline.clone(),
        file: a.file.clone(),
        passed: a.thresholds.iter().all(|v| v.held)
            && a.slices.iter().all(|s| s.held)
            && a.gate.as_ref().is_none_or(|g| g.held),
        regression_gate: a.gate.as_ref().map(gate_record),
        gold_digest: Some(a.gold_digest.clone()),
        message: a.message.clone(),
        metrics: a.metrics.clone(),
        thresholds: a.thresholds.iter().map(threshold).collect(),
        slices: a
            .slices
            .iter()
            .map(|s| SliceVerdictRecord {
                tag: s.tag.clone(),
                value: s.value.clone(),
                cases: s.cases,
                held: s.held,
                thresholds: s.thresholds.iter().map(threshold).collect(),
                file: s.file.display().to_string(),
                line: s.line,
                column: s.column,
            })
            .collect(),
    }
}

impl From<&RunSummary> for RunSummaryRecord {
    fn from(s: &RunSummary) -> Self {
        RunSummaryRecord {
            never_ran: s.never_ran.clone(),
            cases: s.cases,
            passed: s.passed,
            failed: s.failed,
            ignored: s.ignored,
            known_failures: s.known_failures,
            exact_match: s.metrics.exact_match,
            anls: s.metrics.anls,
            exact_critical: s.metrics.exact_critical,
            anls_critical: s.metrics.anls_critical,
            brier: s.metrics.brier,
            ece: s.metrics.ece,
            calls: s.calls,
        }
    }
}

impl From<&SliceRow> for SliceRecord {
    fn from(s: &SliceRow) -> Self {
        let a = &s.metrics;
        SliceRecord {
            tag: s.tag.clone(),
            value: s.value.clone(),
            pipeline: s.pipeline.clone(),
            cases: a.cases,
            passed: a.passed,
            pass_rate: a.pass_rate,
            exact_match: a.exact_match,
            anls: a.anls,
            exact_critical: a.exact_critical,
            anls_critical: a.anls_critical,
            brier: a.brier,
            ece: a.ece,
            cost_usd_per_case: a.cost_usd,
            cost_usd_total: a.cost_total_usd,
        }
    }
}

impl From<&Paired> for ComparisonRecord {
    fn from(c: &Paired) -> Self {
        ComparisonRecord {
            pipeline: c.pipeline.clone(),
            reference: c.reference.clone(),
            unmeasured: c.unmeasured.clone(),
            cases: c.cases,
            score: c.score,
            exact_match: c.exact_match,
            anls: c.anls,
            mcnemar: c.mcnemar,
            bootstrap: BootstrapRecord {
                resamples: RESAMPLES,
                seed: SEED,
                level: 0.95,
            },
        }
    }
}

impl From<&crate::evaluate::analysis::MissRow> for crate::record::MissRecord {
    fn from(r: &crate::evaluate::analysis::MissRow) -> Self {
        use crate::evaluate::analysis::MissScope;
        let (field, tag, value) = match &r.scope {
            MissScope::Pipeline => (None, None, None),
            MissScope::Field(f) => (Some(f.clone()), None, None),
            MissScope::Slice { tag, value } => (None, Some(tag.clone()), Some(value.clone())),
        };
        crate::record::MissRecord {
            pipeline: r.pipeline.clone(),
            field,
            tag,
            value,
            missing: r.counts.missing,
            invented: r.counts.invented,
            format: r.counts.format,
            wrong: r.counts.wrong,
        }
    }
}

impl From<&crate::evaluate::analysis::FieldAcceptance> for crate::record::AcceptanceRecord {
    fn from(a: &crate::evaluate::analysis::FieldAcceptance) -> Self {
        crate::record::AcceptanceRecord {
            pipeline: a.pipeline.clone(),
            field: a.field.clone(),
            values: a.values(),
            target_error: a.target_error,
            threshold: a.advised.map(|p| p.threshold),
            automation_rate: a.advised.map_or(0.0, |p| p.share),
            error_upper: a.advised.map(|p| p.error_upper),
            curve: a.curve.clone(),
        }
    }
}
