//! The gate's account of a run under `fail_on: regressions`: what got worse than the baseline,
//! what fails as before, what was fixed. Built one test at a time from the tests' records, the
//! same way whether the run was one process or many, and written by the terminal's last line,
//! the Markdown and HTML pages and the JSON report.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::evaluate::aggregate::{Aggregated, RunSummary, SliceRow};
use crate::evaluate::baseline::{Change, Standing, Worse};
use crate::evaluate::paired::Paired;
use crate::evaluate::record::{CaseNumbers, Status};

/// What the run's baselines say of it, under `fail_on: regressions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GateAccount {
    /// The baseline files tests were held to, as the run names them, sorted.
    pub baselines: Vec<String>,
    /// The tests that fail the run, in name order: each with how it is worse.
    pub regressions: Vec<Regression>,
    /// How many tests fail as their entries say, no worse.
    pub known_failures: usize,
    /// The tests whose entries say they failed and that pass now, in name order, each with the
    /// command that blesses it.
    pub fixed: Vec<Fixed>,
    /// How many tests have no entry yet.
    pub new: usize,
}

/// A test that failed in its entry and passes now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fixed {
    /// The test.
    pub test: String,
    /// The command that blesses it.
    pub bless: String,
}

/// A test that fails the run under `fail_on: regressions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Regression {
    /// The test.
    pub test: String,
    /// How it is worse than its entry; empty for a test judged by its own rules (no entry, or
    /// an aggregate's bounds), which fails all the same.
    pub worse: Vec<Worse>,
    /// Why it fails, when it is not worse than an entry: `new, fails`, an aggregate's verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fails: Option<String>,
}

impl GateAccount {
    /// Whether any test was held to a baseline under `fail_on: regressions`.
    pub fn holds(&self) -> bool {
        !self.baselines.is_empty()
    }

    /// Whether no test was (what a serialization leaves out).
    pub fn is_empty(&self) -> bool {
        !self.holds()
    }

    /// The account of a run: every case test's numbers, and its aggregate tests' records.
    pub(crate) fn of(
        numbers: &[CaseNumbers],
        aggregates: &[super::AggregateRecord],
    ) -> GateAccount {
        let mut account = GateAccount::default();
        for n in numbers {
            account.note_case(n);
        }
        for a in aggregates {
            let verdict = a.message.as_deref().and_then(|m| m.lines().next());
            account.note_aggregate(&a.id, a.passed, verdict);
        }
        account.sorted()
    }

    /// Notes one case test, when it was held to its entry.
    fn note_case(&mut self, n: &CaseNumbers) {
        let Some(held) = n.baseline.as_deref().filter(|b| b.held_to) else {
            return;
        };
        let file = held
            .file
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        if let Err(at) = self.baselines.binary_search(&file) {
            self.baselines.insert(at, file);
        }
        self.new += usize::from(held.new);
        let test = n.id.clone();
        match (&held.standing, n.status) {
            (Some(Standing::KnownFailure), _) => self.known_failures += 1,
            (Some(Standing::Fixed { bless }), _) => self.fixed.push(Fixed {
                test,
                bless: bless.clone(),
            }),
            (Some(Standing::Regressed { worse }), _) => self.regressions.push(Regression {
                test,
                worse: worse.clone(),
                fails: None,
            }),
            (None, Status::Failed) => self.regressions.push(Regression {
                test,
                worse: Vec::new(),
                fails: Some(if held.new { "new, fails" } else { "fails" }.to_owned()),
            }),
            (None, _) => {}
        }
    }

    /// Notes one aggregate test of a run held to its baselines: a failing one fails the run
    /// whatever the baselines say (its bounds and its regression gate are its own).
    fn note_aggregate(&mut self, test: &str, passed: bool, verdict: Option<&str>) {
        if passed || !self.holds() {
            return;
        }
        self.regressions.push(Regression {
            test: test.to_owned(),
            worse: Vec::new(),
            fails: Some(verdict.unwrap_or("fails").to_owned()),
        });
    }

    /// The regressions worst first (the largest fall of a held metric or a lost field's ANLS,
    /// then the name), the fixed tests in name order, once every test is noted: the last line's
    /// "first" is the worst, as the comparison of two runs lists them.
    fn sorted(mut self) -> GateAccount {
        self.regressions
            .sort_by(|a, b| fall(a).total_cmp(&fall(b)).then(a.test.cmp(&b.test)));
        self.fixed.sort_by(|a, b| a.test.cmp(&b.test));
        self
    }
}

/// How far a regression's metric or lost field fell, the most of its ways (0 for a test judged
/// by its rules alone, or worse only by its verdict or a rule).
fn fall(r: &Regression) -> f64 {
    r.worse
        .iter()
        .filter_map(|w| match w {
            Worse::Dropped { old, new, .. } => Some(new - old),
            Worse::Field {
                old: Some(old),
                new,
                ..
            } => Some(new.unwrap_or(0.0) - old),
            _ => None,
        })
        .fold(0.0, f64::min)
}

/// How far a test's held metric rose (a fall is negative; a metric better low counts its fall
/// as a rise), 0 when only its fields moved.
fn gain(changes: &[Change]) -> f64 {
    use crate::evaluate::baseline::field_of;
    use crate::model::metric::{Direction, Metric};
    let Some(c) = changes.first().filter(|c| field_of(&c.metric).is_none()) else {
        return 0.0;
    };
    match Metric::from_name(&c.metric).map(|m| m.about().direction) {
        Some(Direction::Lower) => c.old - c.new,
        _ => c.new - c.old,
    }
}

/// The end of a run as typed data, built once from its tests' numbers and its aggregate tests'
/// records, whether the run was one process or many: what the terminal, the step summary and
/// the HTML page write, and what the JSON report holds of it.
#[derive(Debug, Clone)]
pub(crate) struct RunEnd {
    /// The run's counts and means.
    pub summary: RunSummary,
    /// Each row of the comparison of pipelines (a pipeline, or a suite's folder), aggregated.
    pub pipelines: Vec<(String, Aggregated)>,
    /// Each test with the metrics that dropped beyond the tolerance, in name order.
    pub regressions: Vec<(String, Vec<Change>)>,
    /// Each test with the metrics that rose beyond the tolerance, in name order.
    pub improvements: Vec<(String, Vec<Change>)>,
    /// Tests the baseline has no entry for yet, in name order.
    pub new_cases: Vec<String>,
    /// Each test whose metric or fields moved against its entry however little, worst first:
    /// the metric it is held to, then its fields' EM and ANLS.
    pub moved: Vec<(String, Vec<Change>)>,
    /// Each pipeline against its reference.
    pub comparisons: Vec<Paired>,
    /// Each pipeline per tag value (empty when no case has a tag).
    pub slices: Vec<SliceRow>,
    /// Why a declared baseline file could not be compared with, once each, sorted.
    pub baseline_errors: Vec<String>,
    /// What the gold sets' metadata tables and cases do not match.
    pub gold_sets: Vec<crate::load::cases::GoldSetNote>,
    /// Usages whose parts do not add up to their totals, once per prediction file, sorted.
    pub usage_mismatches: Vec<crate::model::prediction::UsageMismatch>,
    /// The failed calls scored as DocuBench scores them, in name order.
    pub failed_calls_scored: Vec<String>,
    /// Each pipeline's regression gate, in the order of the aggregate tests.
    pub gates: Vec<(Option<String>, super::RegressionGateRecord)>,
    /// The misses by kind, per pipeline, field and slice.
    pub misses: Vec<crate::evaluate::analysis::MissRow>,
    /// Per pipeline and field with confidences, when values may be accepted automatically.
    pub acceptance: Vec<crate::evaluate::analysis::FieldAcceptance>,
    /// Per pipeline whose suite gives `acceptance` thresholds, every field's values pooled.
    pub pooled: Vec<crate::evaluate::analysis::PooledAcceptance>,
    /// Whether a test has a baseline entry or its suite declares a baseline file.
    pub baselines: bool,
    /// What the baselines say of the tests held to their entries.
    pub account: GateAccount,
}

impl RunEnd {
    /// The end of a run of `summary`, from its case tests' numbers (in name order) and its
    /// aggregate tests' records.
    pub(crate) fn of(
        summary: RunSummary,
        numbers: &[CaseNumbers],
        aggregates: &[super::AggregateRecord],
    ) -> RunEnd {
        use crate::evaluate::analysis::{acceptance_rows, miss_rows, pooled_rows};
        let pipelines = crate::evaluate::aggregate::pipeline_rows(numbers);
        let slices = crate::evaluate::aggregate::slice_rows(numbers);
        let mut end = RunEnd {
            summary,
            comparisons: crate::evaluate::paired::paired(numbers),
            misses: miss_rows(numbers, &pipelines, &slices),
            acceptance: acceptance_rows(&pipelines),
            pooled: pooled_rows(&pipelines),
            pipelines,
            slices,
            regressions: Vec::new(),
            improvements: Vec::new(),
            new_cases: Vec::new(),
            moved: Vec::new(),
            baseline_errors: Vec::new(),
            gold_sets: Vec::new(),
            usage_mismatches: Vec::new(),
            failed_calls_scored: Vec::new(),
            gates: aggregates
                .iter()
                .filter_map(|a| Some((a.pipeline.clone(), a.regression_gate.clone()?)))
                .collect(),
            baselines: false,
            account: GateAccount::of(numbers, aggregates),
        };
        for n in numbers {
            end.note(n);
        }
        end.baseline_errors.sort();
        end.baseline_errors.dedup();
        // Worst first: the largest fall of the metric each is held to (a rise of one better
        // low), the name breaking ties; a test whose fields alone moved after.
        end.moved
            .sort_by(|(a, x), (b, y)| gain(x).total_cmp(&gain(y)).then(a.cmp(b)));
        end.usage_mismatches.sort_by(|a, b| a.file.cmp(&b.file));
        end.usage_mismatches.dedup_by(|a, b| a.file == b.file);
        end
    }

    /// With the notes of the gold sets the run found (a run of one process knows them).
    pub(crate) fn with_gold_sets(mut self, notes: Vec<crate::load::cases::GoldSetNote>) -> RunEnd {
        self.gold_sets = notes;
        self
    }

    /// What one case test adds to the lists.
    fn note(&mut self, n: &CaseNumbers) {
        if let Some(m) = &n.usage_mismatch {
            self.usage_mismatches.push((**m).clone());
        }
        if n.failed_call_scored {
            self.failed_calls_scored.push(n.id.clone());
        }
        let Some(b) = n.baseline.as_deref() else {
            return;
        };
        self.baselines = true;
        if !b.regressions.is_empty() {
            self.regressions.push((n.id.clone(), b.regressions.clone()));
        }
        if !b.improvements.is_empty() {
            self.improvements
                .push((n.id.clone(), b.improvements.clone()));
        }
        if b.new {
            self.new_cases.push(n.id.clone());
        }
        if !b.moved.is_empty() {
            self.moved.push((n.id.clone(), b.moved.clone()));
        }
        self.baseline_errors.extend(b.error.clone());
    }
}
