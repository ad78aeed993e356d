//! A suite's aggregate metrics over its cases, and the comparison of pipelines.

use crate::evaluate::finding::Absent;
use crate::evaluate::outcome::{Metrics, ThresholdVerdict};
use crate::evaluate::record::{CaseNumbers, KeptMetrics, Status};
use crate::metrics::{Bin, Pooled};
use crate::model::metric::DEFAULT_ECE_BINS;
use crate::model::metric::{Metric, Threshold};

// The record writes these as they are (a report's table of pipelines, an aggregate test's
// metrics, a history line), in this order and under the names of the record's schema; what only
// the run itself reads (the last six fields: rubric counts, misses, acceptance, the target
// error, pooled acceptance, latencies) is not written, and is empty in a record read back.
/// The aggregate metrics of a group of case tests (a pipeline, a suite): case means (each case
/// weighs the same), Brier and ECE pooled over every field with a confidence, latency
/// percentiles, cost, pass rate.
#[derive(
    Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields, rename = "PipelineMetrics")]
pub struct Aggregated {
    /// The pipeline, in the report's table of pipelines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    /// Case tests counted (skipped ones are not).
    pub cases: usize,
    /// Of which passed.
    pub passed: usize,
    /// Share of case tests that passed.
    pub pass_rate: Option<f64>,
    /// Share of cases whose gate is open (one that could not be scored counts as closed); absent
    /// when no case has rubrics.
    pub gate_pass_rate: Option<f64>,
    /// Mean gated score of the cases (one that could not be scored counts 0); absent when no
    /// case has rubrics.
    pub mean_score: Option<f64>,
    /// Share of Must-Right rubric items that held, over every scored case.
    pub must_right_accuracy: Option<f64>,
    /// Share of Easy-Wrong rubric items that held, over every scored case.
    pub easy_wrong_accuracy: Option<f64>,
    /// Mean EM.
    pub exact_match: Option<f64>,
    /// Mean ANLS.
    pub anls: Option<f64>,
    /// Mean critical EM.
    pub exact_critical: Option<f64>,
    /// Mean critical ANLS.
    pub anls_critical: Option<f64>,
    /// Mean field-level F1; under `kieval`, KIEval's entity F1 of the pooled counts.
    pub f1: Option<f64>,
    /// Mean field-level precision; under `kieval`, KIEval's of the pooled counts.
    #[serde(default)]
    pub precision: Option<f64>,
    /// Mean field-level recall; under `kieval`, KIEval's of the pooled counts.
    #[serde(default)]
    pub recall: Option<f64>,
    /// KIEval's aligned score of the pooled counts (`profile: kieval`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aligned: Option<f64>,
    /// KIEval's counts summed over the cases that have them (`profile: kieval`): KIEval scores
    /// a set by its pooled counts (micro), not by a mean of its documents' scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kieval: Option<crate::metrics::kieval::Counts>,
    /// Pooled Brier score.
    pub brier: Option<f64>,
    /// Pooled ECE (5 bins).
    pub ece: Option<f64>,
    /// Median latency, in milliseconds.
    #[serde(rename = "latency_p50_ms")]
    pub latency_p50: Option<f64>,
    /// 95th percentile of latency, in milliseconds.
    #[serde(rename = "latency_p95_ms")]
    pub latency_p95: Option<f64>,
    /// Mean cost of a case, in US dollars.
    #[serde(rename = "cost_usd_per_case")]
    pub cost_usd: Option<f64>,
    /// Total cost, in US dollars.
    #[serde(rename = "cost_usd_total")]
    pub cost_total_usd: Option<f64>,
    /// The non-empty bins of the reliability diagram of the pooled confidences.
    #[serde(rename = "calibration")]
    pub bins: Vec<Bin>,
    /// Share of cases every attempt of which passed (a case run once counts its verdict);
    /// absent when no case was repeated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_all_k: Option<f64>,
    /// Share of cases one attempt of which passed; absent when no case was repeated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_any_k: Option<f64>,
    /// The largest flip rate of a field, pooled over the repeated cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_flip_rate: Option<f64>,
    /// Each field's flip rate pooled over the repeated cases, in the order fields first come.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flip_rates: Vec<crate::evaluate::repeat::FlipRate>,
    /// Mean share of grounded fields (right page, IoU at least `grounded_iou`), over the cases
    /// that measure it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounded: Option<f64>,
    /// Mean IoU of the predicted boxes with the gold ones, over the cases that measure it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iou: Option<f64>,
    /// Mean share of fields found on the right page, over the cases that measure it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_match: Option<f64>,
    /// The share of the values with a confidence accepted automatically, each field at its
    /// advised threshold (none of a field that no threshold bounds): absent without confidences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub automation_rate: Option<f64>,
    /// Scored cases that have rubrics. Without any, the gate's aggregates are absent: a case
    /// without rubrics has its gate open and a score of 1 whatever its prediction says.
    #[serde(skip)]
    pub with_rubrics: usize,
    /// The misses of the cases' fields, by kind.
    #[serde(skip)]
    pub misses: crate::evaluate::miss::MissCounts,
    /// Each field's values with a confidence, counted by confidence and correctness: its
    /// acceptance curve.
    #[serde(skip)]
    pub acceptance: std::collections::BTreeMap<String, crate::metrics::acceptance::Tally>,
    /// The error rate automatic acceptance may not exceed (the first case's suite's
    /// `target_error`).
    #[serde(skip)]
    pub target_error: f64,
    /// Every field's values accepted at the thresholds of the first case's suite's
    /// `acceptance`, pooled: empty when it gives none.
    #[serde(skip)]
    pub pooled: Vec<crate::metrics::acceptance::PooledPoint>,
    /// Every latency measured, sorted (for its distribution).
    #[serde(skip)]
    pub latencies: Vec<f64>,
}

/// Aggregates case tests (skipped ones left out by the caller); a test without metrics could not
/// be scored and counts as failed.
pub fn aggregate<'a>(results: impl IntoIterator<Item = &'a CaseNumbers>) -> Aggregated {
    let results: Vec<&CaseNumbers> = results.into_iter().collect();
    let passed = results
        .iter()
        .filter(|r| r.status == Status::Passed)
        .count();
    let mut all = Aggregated {
        cases: results.len(),
        passed,
        pass_rate: (!results.is_empty()).then(|| passed as f64 / results.len() as f64),
        ..Aggregated::default()
    };
    scores(&results, &mut all);
    calibration(&results, &mut all);
    latency_and_cost(&results, &mut all);
    gate(&results, &mut all);
    attempts(&results, &mut all);
    acceptance_curves(&results, &mut all);
    all
}

/// The scores: case means (each case weighs the same), but KIEval's F1, precision, recall and
/// aligned score of the counts pooled over the cases that have them.
fn scores(results: &[&CaseNumbers], all: &mut Aggregated) {
    // Read back once per metric, never all held at once: a run keeps its cases' metrics compact.
    let scored = || {
        results
            .iter()
            .filter_map(|r| r.metrics.as_ref().map(KeptMetrics::metrics))
    };
    let mean = |get: &dyn Fn(&Metrics) -> Option<f64>| {
        let values: Vec<f64> = scored().filter_map(|m| get(&m)).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let kieval = scored()
        .filter_map(|m| m.kieval.as_deref().copied())
        .reduce(|mut sum, c| {
            sum.add(&c);
            sum
        });
    let pooled_kieval =
        |get: fn(&crate::metrics::kieval::Tally) -> f64| kieval.map(|c| get(&c.total));
    all.exact_match = mean(&|m| m.exact_match);
    all.anls = mean(&|m| m.anls);
    all.exact_critical = mean(&|m| m.exact_critical);
    all.anls_critical = mean(&|m| m.anls_critical);
    all.grounded = mean(&|m| m.grounded);
    all.iou = mean(&|m| m.iou);
    all.page_match = mean(&|m| m.page_match);
    all.f1 = pooled_kieval(crate::metrics::kieval::Tally::f1).or_else(|| mean(&|m| m.f1));
    all.precision =
        pooled_kieval(crate::metrics::kieval::Tally::precision).or_else(|| mean(&|m| m.precision));
    all.recall =
        pooled_kieval(crate::metrics::kieval::Tally::recall).or_else(|| mean(&|m| m.recall));
    all.aligned = pooled_kieval(crate::metrics::kieval::Tally::aligned);
    all.kieval = kieval;
}

/// Brier, ECE and the reliability diagram, over every field with a confidence.
fn calibration(results: &[&CaseNumbers], all: &mut Aggregated) {
    // Pooled as they come: a run of 100,000 cases has two million confidences.
    let mut pooled = Pooled::new(DEFAULT_ECE_BINS);
    for (p, o) in results.iter().flat_map(|r| r.confidences.iter()) {
        pooled.add(p, o);
    }
    all.brier = pooled.brier();
    all.ece = pooled.ece();
    all.bins = pooled.bins();
}

/// The latency percentiles and the cost of a case and of all, over the scored cases.
fn latency_and_cost(results: &[&CaseNumbers], all: &mut Aggregated) {
    let scored = || {
        results
            .iter()
            .filter_map(|r| r.metrics.as_ref().map(KeptMetrics::metrics))
    };
    let mut latencies: Vec<f64> = scored().filter_map(|m| m.latency_ms).collect();
    latencies.sort_by(f64::total_cmp);
    let costs: Vec<f64> = scored().filter_map(|m| m.cost_usd).collect();
    all.latency_p50 = percentile(&latencies, 0.50);
    all.latency_p95 = percentile(&latencies, 0.95);
    all.cost_usd = (!costs.is_empty()).then(|| costs.iter().sum::<f64>() / costs.len() as f64);
    all.cost_total_usd = (!costs.is_empty()).then(|| costs.iter().sum());
    all.latencies = latencies;
}

/// The gate's aggregates (PerceptionRubrics): a case that could not be scored has a closed
/// gate and a score of 0, as it fails; rubric items count only where they were judged.
fn gate(results: &[&CaseNumbers], all: &mut Aggregated) {
    // Each case's tally read as it is summed, never all copied at once.
    let tallies = || results.iter().map(|r| r.rubrics.unwrap_or_default());
    let share = |held: usize, of: usize| (of > 0).then(|| held as f64 / of as f64);
    let sum = |get: fn(&crate::evaluate::record::RubricTally) -> usize| {
        tallies().map(|t| get(&t)).sum::<usize>()
    };
    // Over cases none of which has a rubric the gate measured nothing: a bound on it would
    // hold whatever the predictions say, so the metric is absent and the bound fails.
    let with_rubrics = results
        .iter()
        .filter_map(|r| r.rubrics)
        .filter(|t| t.must_right + t.easy_wrong > 0)
        .count();
    let cases = if with_rubrics > 0 { results.len() } else { 0 };
    all.with_rubrics = with_rubrics;
    all.gate_pass_rate = share(tallies().filter(|t| t.gate_open).count(), cases);
    all.mean_score = (cases > 0).then(|| tallies().map(|t| t.score).sum::<f64>() / cases as f64);
    all.must_right_accuracy = share(sum(|t| t.must_right_held), sum(|t| t.must_right));
    all.easy_wrong_accuracy = share(sum(|t| t.easy_wrong_held), sum(|t| t.easy_wrong));
}

/// pass^k, pass@k and the flip rates, when a case was repeated.
fn attempts(results: &[&CaseNumbers], all: &mut Aggregated) {
    // A case run once is one attempt: its verdict is both pass^1 and pass@1.
    let repeated: Vec<&crate::evaluate::repeat::Attempts> = results
        .iter()
        .filter_map(|r| r.attempts.as_deref())
        .collect();
    let of_attempts = |every: bool| {
        let held = results
            .iter()
            .filter(|r| match &r.attempts {
                Some(a) if every => a.passed() == a.each.len(),
                Some(a) => a.passed() > 0,
                None => r.status == Status::Passed,
            })
            .count();
        (!repeated.is_empty()).then(|| held as f64 / results.len() as f64)
    };
    let flip_rates = crate::evaluate::repeat::pooled_flip_rates(repeated.iter().copied());
    all.pass_all_k = of_attempts(true);
    all.pass_any_k = of_attempts(false);
    all.max_flip_rate = flip_rates.iter().map(|f| f.rate).reduce(f64::max);
    all.flip_rates = flip_rates;
}

/// The misses by kind, and each field's acceptance curve, with what automatic acceptance
/// would take at the first case's suite's `target_error` and `acceptance` thresholds.
fn acceptance_curves(results: &[&CaseNumbers], all: &mut Aggregated) {
    let mut misses = crate::evaluate::miss::MissCounts::default();
    let mut acceptance: std::collections::BTreeMap<String, crate::metrics::acceptance::Tally> =
        std::collections::BTreeMap::new();
    for r in results {
        misses.add_all(&r.misses);
        for f in &r.fields {
            if let Some(c) = f.confidence() {
                let tally = match acceptance.get_mut(f.name.as_str()) {
                    Some(t) => t,
                    None => acceptance.entry(f.name.as_str().to_owned()).or_default(),
                };
                tally.add(c, f.em() == 1.0);
            }
        }
    }
    let target_error = results
        .first()
        .map_or(crate::metrics::acceptance::DEFAULT_TARGET_ERROR, |r| {
            r.target_error
        });
    // The labels queried: every gold field of the scored cases, with a confidence or not.
    let labels: usize = results.iter().map(|r| r.fields.len()).sum();
    all.pooled = results
        .first()
        .and_then(|r| r.acceptance.as_ref())
        .map_or_else(Vec::new, |pooling| {
            crate::metrics::acceptance::pooled(acceptance.values(), labels, pooling)
        });
    all.automation_rate = automation_rate(&acceptance, target_error);
    all.acceptance = acceptance;
    all.target_error = target_error;
    all.misses = misses;
}

/// The share of the values accepted automatically when each field accepts from its advised
/// threshold, the smallest whose error bound is at most `target`: absent without confidences.
pub fn automation_rate(
    acceptance: &std::collections::BTreeMap<String, crate::metrics::acceptance::Tally>,
    target: f64,
) -> Option<f64> {
    let values: usize = acceptance.values().map(|t| t.values()).sum();
    let accepted: usize = acceptance
        .values()
        .filter_map(|t| crate::metrics::acceptance::advised(&t.curve(), target))
        .map(|p| p.accepted)
        .sum();
    (values > 0).then(|| accepted as f64 / values as f64)
}

/// Counts and mean metrics of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSummary {
    /// Case tests that ran or were skipped.
    pub cases: usize,
    /// Passed.
    pub passed: usize,
    /// Failed (including load errors).
    pub failed: usize,
    /// Skipped.
    pub ignored: usize,
    /// Failed as their baseline entries say, no worse (`fail_on: regressions`): neither passed
    /// nor failed.
    pub known_failures: usize,
    /// The metrics of every case test that ran, as a suite's aggregate computes them (means over
    /// the cases that have them, Brier and ECE pooled over every field with a confidence).
    pub metrics: Aggregated,
    /// The run's test filter, when it matched no test: the run ran nothing, and exits 0 as
    /// libtest does (`cargo test FILTER` gives the filter to every test target).
    pub unmatched_filter: Option<String>,
    /// The tests of a split run that were listed and never ran (nextest stops at the first
    /// failure unless told otherwise), in name order.
    pub never_ran: Vec<String>,
    /// Processes of the run that began and never ended (killed) and left tests without a
    /// record: the run is not whole.
    pub never_ended: Option<NeverEnded>,
    /// The calls of the suites' `run:` commands behind the run's tests, when any made a
    /// prediction: made, or taken from the cache.
    pub calls: Option<crate::model::prediction::CallTally>,
    /// The digest of the run's gold set ([`crate::evaluate::digest::run_digest`]), when a test
    /// has one.
    pub gold_digest: Option<String>,
}

/// The processes of a run that were killed before their end, as its journal shows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NeverEnded {
    /// How many processes began and never ended.
    pub processes: usize,
    /// The tests they were to run that have no record, in name order (never empty).
    pub no_record: Vec<String>,
}

/// Summarises the case tests of a run.
pub fn summarize(records: &[CaseNumbers]) -> RunSummary {
    let count = |status: Status| records.iter().filter(|r| r.status == status).count();
    RunSummary {
        cases: records.len(),
        passed: count(Status::Passed),
        failed: count(Status::Failed),
        ignored: count(Status::Ignored),
        known_failures: count(Status::KnownFailure),
        metrics: aggregate(records.iter().filter(|r| r.status != Status::Ignored)),
        unmatched_filter: None,
        never_ran: Vec::new(),
        never_ended: None,
        calls: records
            .iter()
            .filter_map(|r| r.calls.as_deref().copied())
            .reduce(|mut all, c| {
                all.add(&c);
                all
            }),
        // Its aggregates' digests count too: the run's end gives it (`gold_digest`).
        gold_digest: None,
    }
}

/// The digest of a run's gold set: its case tests' and its aggregate tests' (name, digest).
pub fn gold_digest<'a>(
    cases: &'a [CaseNumbers],
    aggregates: impl IntoIterator<Item = (&'a str, &'a String)>,
) -> Option<String> {
    let cases = cases.iter().filter_map(|c| {
        let digest: &dyn std::fmt::Display = c.gold_digest.as_ref()?;
        Some((c.id.as_str(), digest))
    });
    let aggregates = aggregates.into_iter().map(|(name, digest)| {
        let digest: &dyn std::fmt::Display = digest;
        (name, digest)
    });
    crate::evaluate::digest::run_digest(cases.chain(aggregates))
}

/// The row name of cases without pipelines nor a known folder in the comparison of pipelines.
pub const NO_PIPELINE: &str = "(none)";

/// The row of a case test in the comparison of pipelines: its pipeline, else the folder of its
/// suite with a final `/` (`cases/receipts/`), which no pipeline name can hold: cases of two
/// suites without pipelines are two rows, not one.
pub fn row_of(r: &CaseNumbers) -> std::borrow::Cow<'_, str> {
    match row_parts(r) {
        (folder, true) => format!("{folder}/").into(),
        (name, false) => name.into(),
    }
}

/// A case test's row as its text and whether a `/` follows it (a suite's folder written without
/// one): what [`row_of`] writes and [`in_row`] compares, without making the name.
fn row_parts(r: &CaseNumbers) -> (&str, bool) {
    match (&r.pipeline, r.suite.as_str()) {
        (Some(p), _) => (p.as_str(), false),
        (None, "") => (NO_PIPELINE, false),
        (None, folder) => (folder, !folder.ends_with('/')),
    }
}

/// Whether a row of the comparison is a pipeline's, not that of a folder of cases without one.
pub fn is_pipeline_row(name: &str) -> bool {
    name != NO_PIPELINE && !name.ends_with('/')
}

/// The comparison of pipelines: every case test of each pipeline, aggregated, by name; then
/// the cases without pipelines, by the folder of their suite.
pub fn pipeline_rows(records: &[CaseNumbers]) -> Vec<(String, Aggregated)> {
    rows_of(records.iter())
}

/// [`pipeline_rows`] of some of a run's case tests.
fn rows_of<'a>(
    records: impl Iterator<Item = &'a CaseNumbers> + Clone,
) -> Vec<(String, Aggregated)> {
    // The rows' names, each once: not one name per case (a folder's is a string of its own).
    let mut seen = std::collections::HashSet::new();
    let mut names: Vec<std::borrow::Cow<str>> = Vec::new();
    for r in records.clone() {
        let key = match &r.pipeline {
            Some(p) => (Some(p.as_str()), None),
            None => (None, Some(r.suite)),
        };
        if seen.insert(key) {
            names.push(row_of(r));
        }
    }
    names.sort_unstable_by(|a, b| (!is_pipeline_row(a), a).cmp(&(!is_pipeline_row(b), b)));
    // (Two folders, `x` and `x/`, are one row.)
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let rows = records
                .clone()
                .filter(|r| in_row(r, &name) && r.status != Status::Ignored);
            let aggregated = aggregate(rows);
            (name.into_owned(), aggregated)
        })
        .collect()
}

/// Whether a case test is counted in the row `name` ([`row_of`] without making the name).
fn in_row(r: &CaseNumbers, name: &str) -> bool {
    match row_parts(r) {
        (folder, true) => name.strip_suffix('/') == Some(folder),
        (text, false) => name == text,
    }
}

/// One slice of the run for one row of the comparison of pipelines: the case tests tagged
/// `tag=value`, aggregated.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceRow {
    /// The tag (`lang`; `tag` for a tag written in a list).
    pub tag: String,
    /// Its value (`fr`).
    pub value: String,
    /// The row of the comparison of pipelines: the pipeline, else the suite's folder.
    pub pipeline: String,
    /// The slice's case tests of that row, aggregated.
    pub metrics: Aggregated,
}

/// Every slice of the run (per tag value, then per row of the comparison of pipelines), in
/// order of tag, value and row; empty when no case has a tag.
pub fn slice_rows(records: &[CaseNumbers]) -> Vec<SliceRow> {
    let mut slices: Vec<(&str, &str)> = records
        .iter()
        .flat_map(|r| r.slices.iter().map(|(t, v)| (t.as_str(), v.as_str())))
        .collect();
    slices.sort_unstable();
    slices.dedup();
    let mut out = Vec::new();
    for (tag, value) in slices {
        let of_slice = records.iter().filter(|r| in_slice(r, tag, value));
        for (pipeline, metrics) in rows_of(of_slice) {
            out.push(SliceRow {
                tag: tag.to_owned(),
                value: value.to_owned(),
                pipeline,
                metrics,
            });
        }
    }
    out
}

/// Whether a case test is in the slice `tag=value`.
pub fn in_slice(r: &CaseNumbers, tag: &str, value: &str) -> bool {
    r.slices.iter().any(|(t, v)| t == tag && v == value)
}

/// The verdict of an aggregate's bounds on one slice of its cases.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceVerdict {
    /// The tag.
    pub tag: String,
    /// Its value.
    pub value: String,
    /// The aggregate's case tests in the slice (skipped ones left out).
    pub cases: usize,
    /// The verdict of each bound over them (every one failed when there is no case).
    pub thresholds: Vec<ThresholdVerdict>,
    /// Whether the slice has cases and every bound held: a slice that matches no case fails,
    /// as a bound over nothing would pass whatever the predictions say.
    pub held: bool,
    /// The slices the aggregate's cases are in, when this one matches none of them.
    pub known: Vec<(String, String)>,
    /// The suite file.
    pub file: std::path::PathBuf,
    /// Where the slice is written in it.
    pub line: u64,
    /// Its column.
    pub column: u64,
}

/// Judges a slice's bounds over the slice's cases of `records` (an aggregate's, skipped ones
/// left out by the caller).
pub fn judge_slice(
    records: &[CaseNumbers],
    bounds: &crate::model::suite::SliceBounds,
    file: &std::path::Path,
) -> SliceVerdict {
    let of_slice: Vec<&CaseNumbers> = records
        .iter()
        .filter(|r| in_slice(r, &bounds.tag, &bounds.value))
        .collect();
    let metrics = aggregate(of_slice.iter().copied());
    let thresholds = metrics.judge(&bounds.thresholds);
    let known = if of_slice.is_empty() {
        let mut all: Vec<(String, String)> = records
            .iter()
            .flat_map(|r| r.slices.iter().cloned())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    } else {
        Vec::new()
    };
    SliceVerdict {
        tag: bounds.tag.clone(),
        value: bounds.value.clone(),
        cases: of_slice.len(),
        held: !of_slice.is_empty() && thresholds.iter().all(|t| t.held),
        thresholds,
        known,
        file: file.to_path_buf(),
        line: bounds.at.line,
        column: bounds.at.column,
    }
}

/// The mean EM and ANLS of one gold field over the case tests of one pipeline.
// A row of the report's `fields` as it is: the record has no copy of it, and its schema keeps
// the record's name.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "FieldStatRecord")]
pub struct FieldStat {
    /// The field.
    pub field: String,
    /// The row of the comparison of pipelines: the pipeline, else the suite's folder
    /// (`cases/receipts/`).
    pub pipeline: String,
    /// Case tests that have the field in their gold.
    pub cases: usize,
    /// Mean EM.
    pub em: f64,
    /// Mean ANLS.
    pub anls: f64,
}

/// The field × pipeline table: each gold field's mean EM and ANLS per pipeline, by field then
/// pipeline.
pub fn field_table(records: &[CaseNumbers]) -> Vec<FieldStat> {
    let mut sums: std::collections::BTreeMap<(&str, std::borrow::Cow<str>), (usize, f64, f64)> =
        std::collections::BTreeMap::new();
    for r in records.iter().filter(|r| r.status != Status::Ignored) {
        let pipeline = row_of(r);
        for f in &r.fields {
            let s = sums.entry((f.name.as_str(), pipeline.clone())).or_default();
            *s = (s.0 + 1, s.1 + f.em(), s.2 + f.anls);
        }
    }
    sums.into_iter()
        .map(|((field, pipeline), (n, em, anls))| FieldStat {
            field: field.to_owned(),
            pipeline: pipeline.into_owned(),
            cases: n,
            em: em / n as f64,
            anls: anls / n as f64,
        })
        .collect()
}

/// The q-th percentile with linear interpolation between closest ranks (numpy's default).
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64))
}

impl Aggregated {
    /// The aggregate value of a metric: a mean, pooled calibration, the 95th percentile of
    /// latency, the mean cost per case, the pass rate.
    pub fn get(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::ExactMatch => self.exact_match,
            Metric::Anls => self.anls,
            Metric::ExactCritical => self.exact_critical,
            Metric::AnlsCritical => self.anls_critical,
            Metric::Brier => self.brier,
            Metric::Ece => self.ece,
            Metric::PassRate => self.pass_rate,
            Metric::GatePassRate => self.gate_pass_rate,
            Metric::MeanScore => self.mean_score,
            Metric::MustRightAccuracy => self.must_right_accuracy,
            Metric::EasyWrongAccuracy => self.easy_wrong_accuracy,
            Metric::F1 => self.f1,
            Metric::Precision => self.precision,
            Metric::Recall => self.recall,
            Metric::LatencyMs => self.latency_p95,
            Metric::CostUsd => self.cost_usd,
            Metric::PassAllK => self.pass_all_k,
            Metric::PassAnyK => self.pass_any_k,
            Metric::FlipRate => self.max_flip_rate,
            Metric::Grounded => self.grounded,
            Metric::Iou => self.iou,
            Metric::PageMatch => self.page_match,
            Metric::AutomationRate => self.automation_rate,
            Metric::Score | Metric::ExtraFields => None,
        }
    }

    /// The verdicts of aggregate thresholds.
    pub fn judge(&self, thresholds: &[Threshold]) -> Vec<ThresholdVerdict> {
        thresholds
            .iter()
            .map(|t| {
                let value = self.get(t.metric);
                ThresholdVerdict::of(t, value, || {
                    if self.with_rubrics == 0 && of_the_gate(t.metric) {
                        Absent::NoGate {
                            threshold: t.name.clone(),
                        }
                    } else {
                        Absent::NotMeasured {
                            metric: t.metric.name().to_owned(),
                        }
                    }
                })
            })
            .collect()
    }
}

/// Whether a metric is one of the gate's, which only cases with rubrics measure.
fn of_the_gate(metric: Metric) -> bool {
    matches!(
        metric,
        Metric::GatePassRate
            | Metric::MeanScore
            | Metric::MustRightAccuracy
            | Metric::EasyWrongAccuracy
    )
}

#[cfg(test)]
mod examples {
    use super::*;
    use crate::evaluate::record::RubricTally;
    use crate::model::rubric::RubricKind;

    fn scored(tally: Option<RubricTally>) -> CaseNumbers {
        CaseNumbers {
            id: "c".into(),
            pipeline: None,
            status: Status::Passed,
            metrics: Some(KeptMetrics::default()),
            confidences: Default::default(),
            fields: Box::default(),
            missed: Box::default(),
            misses: Default::default(),
            target_error: 0.01,
            acceptance: None,
            rubrics: tally,
            reference: None,
            suite: crate::base::name::Name::of(""),
            slices: Vec::new(),
            attempts: None,
            calls: None,
            gold_digest: None,
            history: None,
            baseline: None,
            usage_mismatch: None,
            failed_call_scored: false,
        }
    }

    #[test]
    fn the_gate_is_measured_only_where_a_case_has_rubrics() {
        let none = RubricTally::of(true, 1.0, []);
        let failed = RubricTally::of(false, 0.0, [(RubricKind::MustRight, false)]);
        let without = aggregate(&[scored(Some(none)), scored(Some(none))]);
        assert_eq!(
            (
                without.with_rubrics,
                without.mean_score,
                without.gate_pass_rate
            ),
            (0, None, None)
        );
        let verdicts = without.judge(&[Threshold {
            name: "min_mean_score".into(),
            metric: Metric::MeanScore,
            limit: 0.9,
            is_max: false,
            file: "suite.yaml".into(),
            line: 2,
            column: 19,
        }]);
        assert!(!verdicts[0].held);
        assert_eq!(
            verdicts[0].absent_because,
            Some(Absent::NoGate {
                threshold: "min_mean_score".into()
            })
        );
        // One case with rubrics: every case counts, the one without as an open gate.
        let mixed = aggregate(&[scored(Some(none)), scored(Some(failed))]);
        assert_eq!(
            (mixed.with_rubrics, mixed.mean_score, mixed.gate_pass_rate),
            (1, Some(0.5), Some(0.5))
        );
    }

    #[test]
    fn percentile_interpolates() {
        assert_eq!(percentile(&[100.0, 200.0, 300.0, 400.0], 0.5), Some(250.0));
        assert_eq!(percentile(&[], 0.95), None);
    }
}
