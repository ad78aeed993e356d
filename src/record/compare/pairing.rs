//! The tests of two runs paired by name and grouped, once; the tests that changed found by
//! each one's gated metric; and the comparison made from them.

use std::collections::{BTreeMap, BTreeSet};

use super::changes::{group_change, test_change};
use super::{
    ChangeKind, FailedGate, GoldChange, HeadVerdict, PipelineChange, RunComparison, RunSide, Sides,
};
use crate::evaluate::aggregate::{is_pipeline_row, row_of};
use crate::evaluate::gate::case_value;
use crate::evaluate::paired::{RESAMPLES, SEED};
use crate::evaluate::record::{CaseNumbers, Status};
use crate::model::metric::{Direction, Metric};
use crate::record::{AggregateRecord, BootstrapRecord, TestRecord};

/// A move of a metric smaller than the figures shown is no move.
pub(super) const EPSILON: f64 = 5e-5;

/// A test of either run: its name, its group and its numbers in each run (`None`: absent).
pub(super) struct Entry<'a> {
    pub(super) id: &'a str,
    pub(super) group: String,
    pub(super) numbers: Sides<Option<&'a CaseNumbers>>,
}

impl Entry<'_> {
    /// Its numbers in both runs, when both ran it (a skipped test is compared on nothing).
    pub(super) fn paired(&self) -> Option<(&CaseNumbers, &CaseNumbers)> {
        let ran = |n: &&CaseNumbers| n.status != Status::Ignored;
        Some((
            self.numbers.base.filter(ran)?,
            self.numbers.head.filter(ran)?,
        ))
    }
}

/// The two runs' tests paired by name and grouped, once: what the comparison lists is read from
/// it (the caller then reads those tests' records whole), and the comparison is made from it.
pub(crate) struct Pairing<'a> {
    base: &'a RunSide<'a>,
    head: &'a RunSide<'a>,
    /// Every test of either run, in name order.
    entries: Vec<Entry<'a>>,
    /// Each group's `regression_gate` metric in HEAD, where it has one.
    gated: BTreeMap<String, Metric>,
    /// The entries that changed (by index), with how, each test's gated metric and its gain.
    changes: Vec<(usize, ChangeKind, Metric, f64)>,
}

impl<'a> Pairing<'a> {
    /// BASE's and HEAD's tests paired and grouped, and those that changed found.
    pub(crate) fn of(base: &'a RunSide<'a>, head: &'a RunSide<'a>) -> Pairing<'a> {
        let folders = Folders::of(&[base, head]);
        let mut by_id: BTreeMap<&str, Sides<Option<&CaseNumbers>>> = BTreeMap::new();
        for n in base.numbers {
            by_id.entry(&n.id).or_default().base = Some(n);
        }
        for n in head.numbers {
            by_id.entry(&n.id).or_default().head = Some(n);
        }
        let entries: Vec<Entry> = by_id
            .into_iter()
            .map(|(id, numbers)| {
                let either = numbers.head.or(numbers.base);
                let group = either.map_or_else(String::new, |n| folders.group(n));
                Entry { id, group, numbers }
            })
            .collect();
        let gated = gated_metrics(head.aggregates);
        let mut pairing = Pairing {
            base,
            head,
            entries,
            gated,
            changes: Vec::new(),
        };
        pairing.changes = pairing.find_changes();
        pairing
    }

    /// The tests the comparison lists, whose records it reads whole (with their fields).
    pub(crate) fn listed(&self) -> BTreeSet<&'a str> {
        self.changes
            .iter()
            .map(|&(i, ..)| self.entries[i].id)
            .collect()
    }

    /// The comparison, with the records of (at least) the [`Pairing::listed`] tests of each run.
    pub(crate) fn compare(&self, base: &[TestRecord], head: &[TestRecord]) -> RunComparison {
        fn index(records: &[TestRecord]) -> BTreeMap<&str, &TestRecord> {
            records.iter().map(|r| (r.id.as_str(), r)).collect()
        }
        let (before, after) = (index(base), index(head));
        let tests = self
            .changes
            .iter()
            .map(|&(i, kind, metric, _)| {
                let entry = &self.entries[i];
                let records = Sides {
                    base: before.get(entry.id).copied(),
                    head: after.get(entry.id).copied(),
                };
                test_change(entry, kind, metric, records)
            })
            .collect();
        RunComparison {
            base: self.base.label.clone(),
            head: self.head.label.clone(),
            verdict: head_verdict(self.head),
            gold: self.gold_change(),
            pipelines: self.pipeline_changes(),
            tests,
            moved_otherwise: self.moved_otherwise(),
            bootstrap: BootstrapRecord {
                resamples: RESAMPLES,
                seed: SEED,
                level: 0.95,
            },
        }
    }

    /// The metric a test is listed and ranked by: its group's gated metric, else ANLS where a
    /// run measured it, else the score.
    fn metric_of(&self, entry: &Entry) -> Metric {
        if let Some(m) = self.gated.get(&entry.group) {
            return *m;
        }
        let sides = [entry.numbers.base, entry.numbers.head];
        let has_anls = sides
            .iter()
            .flatten()
            .any(|n| case_value(n, Metric::Anls).is_some());
        if has_anls {
            Metric::Anls
        } else {
            Metric::Score
        }
    }

    /// Every test that changed, worst first (see [`TestChange`]).
    fn find_changes(&self) -> Vec<(usize, ChangeKind, Metric, f64)> {
        let mut changes: Vec<(usize, ChangeKind, Metric, f64)> = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            let metric = self.metric_of(entry);
            let change = match (entry.numbers.base, entry.numbers.head) {
                (None, Some(_)) => Some((ChangeKind::New, 0.0)),
                (Some(_), None) => Some((ChangeKind::Removed, 0.0)),
                _ => entry.paired().and_then(|(b, h)| change_of(b, h, metric)),
            };
            if let Some((kind, gain)) = change {
                changes.push((i, kind, metric, gain));
            }
        }
        let flipped = |i: usize| {
            let passed = |n: &CaseNumbers| n.status == Status::Passed;
            self.entries[i]
                .paired()
                .is_some_and(|(b, h)| passed(b) != passed(h))
        };
        // The worst first: the largest drop of a regression, the largest gain of an improvement.
        let worst = |kind: ChangeKind, gain: f64| match kind {
            ChangeKind::Regressed => gain,
            ChangeKind::Improved => -gain,
            ChangeKind::New | ChangeKind::Removed => 0.0,
        };
        changes.sort_by(|&(a, ka, _, ga), &(b, kb, _, gb)| {
            (ka, !flipped(a))
                .cmp(&(kb, !flipped(b)))
                .then(worst(ka, ga).total_cmp(&worst(kb, gb)))
                .then(self.entries[a].id.cmp(self.entries[b].id))
        });
        changes
    }

    /// Paired tests not listed whose EM, ANLS or score moved.
    fn moved_otherwise(&self) -> usize {
        let listed: BTreeSet<usize> = self.changes.iter().map(|&(i, ..)| i).collect();
        let moved = |b: &CaseNumbers, h: &CaseNumbers| {
            [Metric::ExactMatch, Metric::Anls, Metric::Score]
                .into_iter()
                .any(|m| match (case_value(b, m), case_value(h, m)) {
                    (Some(o), Some(n)) => (n - o).abs() > EPSILON,
                    (o, n) => o.is_some() != n.is_some(),
                })
        };
        self.entries
            .iter()
            .enumerate()
            .filter(|(i, _)| !listed.contains(i))
            .filter_map(|(_, e)| e.paired())
            .filter(|(b, h)| moved(b, h))
            .count()
    }

    /// Each group of either run, pipelines first, by name.
    fn pipeline_changes(&self) -> Vec<PipelineChange> {
        let mut groups: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
        for entry in &self.entries {
            groups.entry(&entry.group).or_default().push(entry);
        }
        let mut names: Vec<&str> = groups.keys().copied().collect();
        names.sort_by_key(|name| (!is_pipeline_row(name), *name));
        names
            .into_iter()
            .map(|name| group_change(name, self.gated.get(name).copied(), &groups[name]))
            .collect()
    }

    /// Whether every paired test (and aggregate) was scored against the same gold in both runs.
    fn gold_change(&self) -> GoldChange {
        let (Some(base), Some(head)) = (self.base.gold_digest, self.head.gold_digest) else {
            return GoldChange::Unknown;
        };
        let (mut tests, mut unchecked) = (Vec::new(), Vec::new());
        let mut paired = 0;
        for entry in &self.entries {
            let (Some(b), Some(h)) = (entry.numbers.base, entry.numbers.head) else {
                continue;
            };
            paired += 1;
            match (&b.gold_digest, &h.gold_digest) {
                (Some(b), Some(h)) if b == h => {}
                (Some(_), Some(_)) => tests.push(entry.id.to_owned()),
                _ => unchecked.push(entry.id.to_owned()),
            }
        }
        let digests = |side: &RunSide<'a>| -> BTreeMap<&'a str, Option<&'a str>> {
            side.aggregates
                .iter()
                .map(|a| (a.id.as_str(), a.gold_digest.as_deref()))
                .collect()
        };
        let after = digests(self.head);
        for (id, before) in digests(self.base) {
            match (before, after.get(id)) {
                (Some(b), Some(Some(h))) if b == *h => {}
                (Some(_), Some(Some(_))) => tests.push(id.to_owned()),
                (_, Some(_)) => unchecked.push(id.to_owned()),
                (_, None) => {}
            }
        }
        tests.sort();
        unchecked.sort();
        if paired == 0 {
            // "The same gold for every test both runs hold" would be true of no test.
            return GoldChange::NothingPaired;
        }
        match (tests.is_empty(), unchecked.is_empty()) {
            (false, _) => GoldChange::Different { tests, unchecked },
            (true, false) => GoldChange::Unchecked { tests: unchecked },
            (true, true) if base == head => GoldChange::Same,
            (true, true) => GoldChange::SameForPaired,
        }
    }
}

/// Where a test is grouped: its pipeline, else its suite's folder. A case that did not load has
/// its file's folder for its suite's, which a case in a subfolder does not share: it is counted
/// in the folder of the suite of loaded tests above it, as the run counted it among its tests.
struct Folders(BTreeSet<String>);

impl Folders {
    /// The folders of the suites without pipelines that loaded tests of either run.
    fn of(sides: &[&RunSide]) -> Folders {
        let folders = sides
            .iter()
            .flat_map(|side| side.numbers.iter())
            .filter(|n| n.pipeline.is_none() && loaded(n))
            .map(|n| row_of(n).into_owned())
            .filter(|row| row.ends_with('/'))
            .collect();
        Folders(folders)
    }

    fn group(&self, n: &CaseNumbers) -> String {
        let row = row_of(n);
        if n.pipeline.is_some() || loaded(n) {
            return row.into_owned();
        }
        // The longest folder that holds this one (each ends with `/`, so a prefix is a folder).
        self.0
            .iter()
            .filter(|folder| row.starts_with(folder.as_str()))
            .max_by_key(|folder| folder.len())
            .cloned()
            .unwrap_or_else(|| row.into_owned())
    }
}

/// Whether a test's case loaded (it has a gold digest, or was scored).
fn loaded(n: &CaseNumbers) -> bool {
    n.gold_digest.is_some() || n.metrics.is_some() || n.rubrics.is_some()
}

/// Each group's `regression_gate` metric, from its aggregates: a pipeline's by its name, a suite
/// without pipelines by its folder.
fn gated_metrics(aggregates: &[AggregateRecord]) -> BTreeMap<String, Metric> {
    let mut gated = BTreeMap::new();
    for a in aggregates {
        let Some(metric) = a
            .regression_gate
            .as_ref()
            .and_then(|g| Metric::from_name(&g.metric))
        else {
            continue;
        };
        let group = a.pipeline.clone().unwrap_or_else(|| {
            let folder = std::path::Path::new(&a.file)
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            format!("{}/", folder.trim_end_matches('/'))
        });
        gated.entry(group).or_insert(metric);
    }
    gated
}

/// A metric's move in its own sense: positive when it got better.
fn gain(metric: Metric, old: f64, new: f64) -> f64 {
    match metric.about().direction {
        Direction::Higher => new - old,
        Direction::Lower => old - new,
    }
}

/// How a test both runs ran changed, with its gated metric's gain (infinite when a run could
/// not score it); `None` when its verdict held and its metric did not move.
fn change_of(base: &CaseNumbers, head: &CaseNumbers, metric: Metric) -> Option<(ChangeKind, f64)> {
    let gained = match (case_value(base, metric), case_value(head, metric)) {
        (Some(o), Some(n)) => gain(metric, o, n),
        (Some(_), None) => f64::NEG_INFINITY,
        (None, Some(_)) => f64::INFINITY,
        (None, None) => 0.0,
    };
    let passed = |n: &CaseNumbers| n.status == Status::Passed;
    match (passed(base), passed(head)) {
        (true, false) => Some((ChangeKind::Regressed, gained)),
        (false, true) => Some((ChangeKind::Improved, gained)),
        _ if gained < -EPSILON => Some((ChangeKind::Regressed, gained)),
        _ if gained > EPSILON => Some((ChangeKind::Improved, gained)),
        _ => None,
    }
}

fn head_verdict(head: &RunSide) -> HeadVerdict {
    let count = |status: Status| head.numbers.iter().filter(|n| n.status == status).count();
    HeadVerdict {
        cases: head.numbers.len() - count(Status::Ignored),
        failed_cases: count(Status::Failed),
        known_failures: count(Status::KnownFailure),
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
        gate: crate::record::run_end::GateAccount::of(head.numbers, head.aggregates),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::outcome::Metrics;
    use crate::evaluate::record::KeptMetrics;

    /// A test's numbers with these metrics.
    fn scored(status: Status, metrics: Metrics) -> CaseNumbers {
        let mut n = CaseNumbers::of("a::llm", Some("llm"), status, None);
        n.metrics = Some(KeptMetrics::from(&metrics));
        n
    }

    fn latency(status: Status, ms: f64) -> CaseNumbers {
        let metrics = Metrics {
            latency_ms: Some(ms),
            ..Metrics::default()
        };
        scored(status, metrics)
    }

    #[test]
    fn a_metric_better_low_regresses_as_it_rises_and_a_lost_pass_regresses_whatever_it_gained() {
        let (fast, slow) = (
            latency(Status::Passed, 100.0),
            latency(Status::Passed, 150.0),
        );
        let gate = Metric::LatencyMs;
        assert_eq!(
            change_of(&fast, &slow, gate),
            Some((ChangeKind::Regressed, -50.0))
        );
        assert_eq!(
            change_of(&slow, &fast, gate),
            Some((ChangeKind::Improved, 50.0))
        );
        assert_eq!(change_of(&fast, &fast, gate), None);
        // Faster, but failing now (a known failure is not passed either).
        let known = latency(Status::KnownFailure, 50.0);
        assert_eq!(
            change_of(&fast, &known, gate),
            Some((ChangeKind::Regressed, 50.0))
        );
        // A run that could not score it has no value: the largest drop.
        let unscored = CaseNumbers::of("a::llm", Some("llm"), Status::Failed, None);
        assert_eq!(
            change_of(&fast, &unscored, gate),
            Some((ChangeKind::Regressed, f64::NEG_INFINITY))
        );
    }

    #[test]
    fn a_case_that_did_not_load_is_grouped_with_the_suite_of_the_folder_above_it() {
        let in_folder = |folder: &str, loaded: bool| {
            let mut n = if loaded {
                scored(Status::Passed, Metrics::default())
            } else {
                CaseNumbers::of("sub/c4", None, Status::Failed, None)
            };
            n.pipeline = None;
            n.suite = crate::base::name::Name::of(folder);
            n
        };
        let base = [in_folder("cases", true), in_folder("cases/other", true)];
        let side = RunSide {
            label: String::new(),
            numbers: &base,
            aggregates: &[],
            gold_digest: None,
        };
        let folders = Folders::of(&[&side]);
        assert_eq!(folders.group(&in_folder("cases/sub", false)), "cases/");
        assert_eq!(
            folders.group(&in_folder("cases/other/x", false)),
            "cases/other/"
        );
        // A loaded case keeps its own suite's folder; one under no known folder keeps its own.
        assert_eq!(folders.group(&in_folder("cases/sub", true)), "cases/sub/");
        assert_eq!(folders.group(&in_folder("elsewhere", false)), "elsewhere/");
    }
}
