//! Layer 5, the review queue: from the records of a run, what a person (or a script) should
//! look at to bless, correct or extend the gold, in order: regressions against the baseline (a
//! test's, or a pipeline's regression gate); fields that two or more pipelines predict alike and
//! not as the gold ("the gold may be wrong"); other failing fields (of failing tests), most
//! confident first; tests that improved on their baseline entry; new tests without one.
//! An item's id names its test (or case) and field, so it is the same in every listing of one
//! run's records. Pure: records in, items out; the command line edits the files.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value as Json;

use crate::evaluate::finding::{Note, Reading};
use crate::record::{AggregateRecord, FieldDiff, FieldRecord, MetricChange, Status, TestRecord};

/// Why an item is in the queue, in the queue's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// The test dropped below its baseline entry.
    Regression,
    /// Two or more pipelines agree with each other and not with the gold.
    Contradicted,
    /// A field that does not match its gold.
    Failing,
    /// A test that rose above its baseline entry beyond the tolerance.
    Improved,
    /// A test without a baseline entry.
    New,
}

impl ItemKind {
    /// The kind as the queue names it.
    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Regression => "regression",
            ItemKind::Contradicted => "contradicted",
            ItemKind::Failing => "failing",
            ItemKind::Improved => "improved",
            ItemKind::New => "new",
        }
    }
}

/// One pipeline's value of an item's field.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Predicted {
    /// The test it comes from.
    pub test: String,
    /// The pipeline, when the suite declares pipelines.
    pub pipeline: Option<String>,
    /// The predicted value (`null` when absent).
    pub value: Json,
    /// Whether the prediction has the field at all.
    pub predicted: bool,
    /// The confidence the prediction gave.
    pub confidence: Option<f64>,
    /// EM of the field.
    pub em: f64,
    /// ANLS of the field.
    pub anls: f64,
    /// The diff of the gold into this value.
    pub diff: Option<FieldDiff>,
    /// The value as the field's rule read it, when not as text (`4521` for `4,521.00` under
    /// `compare: number`): two pipelines that read alike agree.
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) read_as: Option<String>,
}

impl Predicted {
    /// Whether two pipelines predicted the same value, as the field's rule reads it.
    fn alike(&self, other: &Predicted) -> bool {
        match (&self.read_as, &other.read_as) {
            (Some(a), Some(b)) => a == b,
            _ => self.value == other.value,
        }
    }
}

/// Where the gold of an item is written.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct GoldPlace {
    /// The file (the case file, or the gold file it names).
    pub file: String,
    /// 1-based line.
    pub line: u64,
    /// 1-based column.
    pub column: u64,
}

/// One thing to review.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Item {
    /// `TEST#FIELD`, `CASE#FIELD` for a field pipelines contradict alike, `TEST` for a test.
    pub id: String,
    /// Why it is in the queue.
    pub kind: ItemKind,
    /// The case (the test name without its pipeline).
    pub case: String,
    /// The tests a blessing writes the baseline entry of.
    pub tests: Vec<String>,
    /// The field, for an item about one field.
    pub field: Option<String>,
    /// The gold variants as written.
    pub gold: Vec<Json>,
    /// Every pipeline's value of the field, in the records' order.
    pub predictions: Vec<Predicted>,
    /// The prediction that accepting takes (an index into `predictions`).
    pub proposed: Option<usize>,
    /// The case file.
    pub file: String,
    /// Where the gold is written, once the case file is read.
    pub gold_at: Option<GoldPlace>,
    /// The case's document, when it names one.
    pub document: Option<String>,
    /// The metrics that dropped, for a regression.
    pub regressions: Vec<MetricChange>,
    /// Whether its tests compare with a baseline (their suite names a `baseline:` file), so
    /// that blessing has an entry to write.
    pub baseline: bool,
    /// How the field's rule reads its values, when not as text (`number`: an accepted `4,512.00`
    /// is written as the number `4512.00`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
    /// For a regression gate that failed: the tests a blessing writes and the gate's verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateItem>,
}

/// A regression gate that failed, as an item: blessing it writes the baseline entries of the
/// tests it compares (as its accept command does), then runs it again.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct GateItem {
    /// The pipeline whose tests it compares (none for a suite without pipelines).
    pub pipeline: Option<String>,
    /// The name prefix of its suite's tests (`invoices/`); none for the root suite's.
    pub folder: Option<String>,
    /// Its verdict: the difference, its interval, the cases that dropped most.
    pub verdict: crate::record::RegressionGateRecord,
}

impl GateItem {
    /// The arguments of the run that blesses the tests it compares: `--pipeline NAME` (the
    /// name matched exactly) and the suite's folder.
    pub fn selection(&self) -> Vec<String> {
        let pipeline = self
            .pipeline
            .iter()
            .flat_map(|p| ["--pipeline".to_owned(), p.clone()]);
        pipeline.chain(self.folder.clone()).collect()
    }
}

impl Item {
    /// The value accepting takes: `pipeline`'s when given, else the proposed one.
    pub fn value_of(&self, pipeline: Option<&str>) -> Option<&Predicted> {
        match pipeline {
            Some(name) => self
                .predictions
                .iter()
                .find(|p| p.pipeline.as_deref() == Some(name)),
            None => self.proposed.and_then(|i| self.predictions.get(i)),
        }
    }
}

/// How the rule of a field read its values, when not as text.
fn reading_of(f: &FieldRecord) -> Option<Reading> {
    match f.note.as_ref()? {
        Note::Compared { reading, .. }
        | Note::Unreadable { reading, .. }
        | Note::Nested { reading, .. } => Some(*reading).filter(|r| *r != Reading::Text),
        Note::Inside { .. } => None,
    }
}

/// The items of the regression gates that failed: each blesses the tests it compares.
fn gate_items(aggregates: &[AggregateRecord], records: &[TestRecord]) -> Vec<Item> {
    aggregates
        .iter()
        .filter_map(|a| {
            let verdict = a.regression_gate.clone().filter(|g| !g.held)?;
            // `SUITE::aggregate…`: the suite's tests are named `SUITE/…`, but for the root
            // suite's, named after the cases folder, whose tests have no common prefix.
            let suite = crate::model::test_name::suite_of_aggregate(&a.id).unwrap_or(&a.id);
            let folder = format!("{suite}/");
            let folder = records
                .iter()
                .any(|r| r.id.starts_with(&folder))
                .then_some(folder);
            Some(Item {
                id: a.id.clone(),
                kind: ItemKind::Regression,
                case: a.id.clone(),
                tests: vec![a.id.clone()],
                field: None,
                gold: Vec::new(),
                predictions: Vec::new(),
                proposed: None,
                file: a.file.clone(),
                gold_at: None,
                document: None,
                regressions: Vec::new(),
                reading: None,
                baseline: true,
                gate: Some(GateItem {
                    pipeline: a.pipeline.clone(),
                    folder,
                    verdict,
                }),
            })
        })
        .collect()
}

/// The review queue of a run's records (its case tests and aggregate tests).
pub fn queue(records: &[TestRecord], aggregates: &[AggregateRecord]) -> Vec<Item> {
    let mut items = gate_items(aggregates, records);
    items.extend(case_items(records));
    items
}

/// The scored records of a run, each case's together, for the items made of them.
struct Scored<'a> {
    /// Each case's records, in the order they came, for every pipeline's value of a field.
    by_case: BTreeMap<String, Vec<&'a TestRecord>>,
    /// Every scored record, by test name.
    sorted: Vec<&'a TestRecord>,
    /// Each test's fields by name: an item looks its field up in every pipeline's record, and a
    /// search through the fields would make a case of many fields quadratic.
    /// Keyed by the record's address, which is unique where a test's name may not be.
    fields: HashMap<*const TestRecord, HashMap<&'a str, &'a FieldRecord>>,
}

/// The items of the case tests, in the queue's order. A (test, field) in an item is in no
/// later one.
fn case_items(records: &[TestRecord]) -> Vec<Item> {
    let mut sorted: Vec<&TestRecord> = records
        .iter()
        .filter(|r| r.status != Status::Ignored && r.error.is_none())
        .collect();
    let mut by_case: BTreeMap<String, Vec<&TestRecord>> = BTreeMap::new();
    for r in &sorted {
        by_case.entry(r.case_name().to_owned()).or_default().push(r);
    }
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let fields = sorted
        .iter()
        .map(|r| {
            let by_name = r.fields.iter().map(|f| (f.name.as_str(), f));
            (std::ptr::from_ref(*r), by_name.collect())
        })
        .collect();
    let scored = Scored {
        by_case,
        sorted,
        fields,
    };
    let mut covered: BTreeSet<(String, String)> = BTreeSet::new();
    let mut items = scored.regressions(&mut covered);
    items.extend(scored.contradicted(&mut covered));
    items.extend(scored.failing(&covered));
    items.extend(scored.whole_tests(ItemKind::Improved, |b| {
        !b.improvements.is_empty() && b.regressions.is_empty()
    }));
    items.extend(scored.whole_tests(ItemKind::New, |b| b.new));
    items
}

impl<'a> Scored<'a> {
    /// The field named `field` of `r`.
    fn field(&self, r: &TestRecord, field: &str) -> Option<&'a FieldRecord> {
        self.fields.get(&std::ptr::from_ref(r))?.get(field).copied()
    }

    /// Every pipeline's value of `field` in `case`.
    fn values(&self, case: &str, field: &str) -> Vec<Predicted> {
        self.by_case[case]
            .iter()
            .filter_map(|r| {
                let f = self.field(r, field)?;
                Some(Predicted {
                    test: r.id.clone(),
                    pipeline: r.pipeline.clone(),
                    value: f.prediction.clone(),
                    predicted: f.predicted,
                    confidence: f.confidence,
                    em: f.em,
                    anls: f.anls,
                    diff: f.diff.clone(),
                    read_as: match &f.note {
                        Some(Note::Compared {
                            reading,
                            prediction,
                            ..
                        }) if *reading != Reading::Text => Some(prediction.clone()),
                        _ => None,
                    },
                })
            })
            .collect()
    }

    /// An item of `r` (about `field`, or the whole test), blessing `tests`.
    fn item(
        &self,
        kind: ItemKind,
        id: String,
        r: &TestRecord,
        field: Option<&str>,
        tests: Vec<String>,
    ) -> Item {
        let case = r.case_name().to_owned();
        let (gold, predictions) = match field {
            Some(name) => (
                self.field(r, name)
                    .map(|f| f.gold.clone())
                    .unwrap_or_default(),
                self.values(&case, name),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let proposed = predictions.iter().position(|p| p.test == r.id);
        Item {
            id,
            kind,
            case,
            tests,
            field: field.map(str::to_owned),
            gold,
            predictions,
            proposed,
            file: r.file.clone(),
            gold_at: None,
            document: None,
            regressions: r
                .baseline
                .as_ref()
                .map(|b| b.regressions.clone())
                .unwrap_or_default(),
            baseline: r.baseline.is_some() || r.baseline_file.is_some(),
            reading: field
                .and_then(|name| self.field(r, name))
                .and_then(reading_of),
            gate: None,
        }
    }

    /// Tests that dropped below their baseline entry: one item per field off its gold, or the
    /// test's own when none is.
    fn regressions(&self, covered: &mut BTreeSet<(String, String)>) -> Vec<Item> {
        let mut items = Vec::new();
        for r in &self.sorted {
            if r.baseline.as_ref().is_none_or(|b| b.regressions.is_empty()) {
                continue;
            }
            let fields: Vec<&str> = off_gold(r).collect();
            if fields.is_empty() {
                let tests = vec![r.id.clone()];
                items.push(self.item(ItemKind::Regression, r.id.clone(), r, None, tests));
            }
            for f in fields {
                covered.insert((r.id.clone(), f.to_owned()));
                let id = format!("{}#{f}", r.id);
                items.push(self.item(ItemKind::Regression, id, r, Some(f), vec![r.id.clone()]));
            }
        }
        items
    }

    /// Fields that two or more pipelines predict alike and not as the gold: one item per case
    /// and field, blessing the tests that agree.
    fn contradicted(&self, covered: &mut BTreeSet<(String, String)>) -> Vec<Item> {
        let mut items = Vec::new();
        for (case, tests) in &self.by_case {
            // In the order they come, each once: a set beside the list keeps it linear.
            let mut seen: HashSet<&str> = HashSet::new();
            let mut names: Vec<&str> = Vec::new();
            for f in tests.iter().flat_map(|r| &r.fields) {
                if seen.insert(&f.name) {
                    names.push(&f.name);
                }
            }
            for name in names {
                let values = self.values(case, name);
                let wrong: Vec<&Predicted> = values
                    .iter()
                    .filter(|p| p.em < 1.0 && p.predicted && !p.value.is_null())
                    .collect();
                let Some(alike) = wrong.iter().find_map(|p| {
                    let alike: Vec<&&Predicted> = wrong.iter().filter(|q| q.alike(p)).collect();
                    (alike.len() >= 2).then_some(alike)
                }) else {
                    continue;
                };
                let seen = |p: &&&Predicted| covered.contains(&(p.test.clone(), name.to_owned()));
                if alike.iter().all(seen) {
                    continue;
                }
                let Some(r) = tests.iter().find(|r| r.id == alike[0].test) else {
                    continue;
                };
                let agreeing = alike.iter().map(|p| p.test.clone()).collect();
                let id = format!("{case}#{name}");
                items.push(self.item(ItemKind::Contradicted, id, r, Some(name), agreeing));
                for p in &values {
                    covered.insert((p.test.clone(), name.to_owned()));
                }
            }
        }
        items
    }

    /// The other fields of failing tests off their gold, most confident first (without a
    /// confidence, last), then by id. A field off its gold in a test that passes (within its
    /// thresholds) is no failure.
    fn failing(&self, covered: &BTreeSet<(String, String)>) -> Vec<Item> {
        let mut rest: Vec<(Option<f64>, Item)> = Vec::new();
        // A known failure fails as its entry says: its fields off their gold are as much to
        // review (gold wrong, or the pipeline) as a new failure's.
        let failing = |r: &&&TestRecord| matches!(r.status, Status::Failed | Status::KnownFailure);
        for r in self.sorted.iter().filter(failing) {
            for f in r.fields.iter().filter(|f| f.em < 1.0) {
                if covered.contains(&(r.id.clone(), f.name.clone())) {
                    continue;
                }
                let id = format!("{}#{}", r.id, f.name);
                let item = self.item(ItemKind::Failing, id, r, Some(&f.name), vec![r.id.clone()]);
                rest.push((f.confidence, item));
            }
        }
        rest.sort_by(|(a, x), (b, y)| {
            b.unwrap_or(-1.0)
                .total_cmp(&a.unwrap_or(-1.0))
                .then_with(|| x.id.cmp(&y.id))
        });
        rest.into_iter().map(|(_, i)| i).collect()
    }

    /// A `kind` item for each test whose baseline comparison `holds`.
    fn whole_tests(
        &self,
        kind: ItemKind,
        holds: impl Fn(&crate::record::BaselineComparison) -> bool,
    ) -> Vec<Item> {
        self.sorted
            .iter()
            .filter(|r| r.baseline.as_ref().is_some_and(&holds))
            .map(|r| self.item(kind, r.id.clone(), r, None, vec![r.id.clone()]))
            .collect()
    }
}

/// The fields of a test that are not an exact match.
fn off_gold(r: &TestRecord) -> impl Iterator<Item = &str> {
    r.fields
        .iter()
        .filter(|f| f.em < 1.0)
        .map(|f| f.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{BaselineComparison, FieldRecord};

    fn field(name: &str, gold: &str, pred: &str, confidence: Option<f64>) -> FieldRecord {
        FieldRecord {
            name: name.into(),
            line: None,
            gold: vec![Json::from(gold)],
            prediction: Json::from(pred),
            predicted: true,
            em: if gold == pred { 1.0 } else { 0.0 },
            anls: if gold == pred { 1.0 } else { 0.5 },
            confidence,
            critical: false,
            note: None,
            metadata: Default::default(),
            closest: 0,
            compared: None,
            items: Vec::new(),
            diff: None,
            grounding: None,
            miss: None,
        }
    }

    fn record(id: &str, pipeline: Option<&str>, fields: Vec<FieldRecord>) -> TestRecord {
        let mut r: TestRecord = serde_json::from_value(serde_json::json!({
            "id": id, "pipeline": pipeline, "file": "c.yaml", "status": "failed",
            "passed": false, "ignored": false, "skip": null, "error": null, "score": null,
            "gate": null, "metrics": null,
        }))
        .unwrap();
        r.fields = fields;
        r
    }

    #[test]
    fn the_queue_is_regressions_then_contradicted_then_failing_by_confidence_then_new() {
        let mut a = record(
            "inv::a",
            Some("a"),
            vec![
                field("total", "12", "13", Some(0.2)),
                field("date", "d1", "d2", Some(0.9)),
            ],
        );
        let b = record(
            "inv::b",
            Some("b"),
            vec![
                field("total", "12", "13", Some(0.3)),
                field("date", "d1", "d1", None),
            ],
        );
        let mut c = record("other", None, vec![field("n", "1", "2", Some(0.95))]);
        c.baseline = Some(BaselineComparison {
            new: false,
            regressions: vec![MetricChange {
                metric: "anls".into(),
                old: 1.0,
                new: Some(0.5),
            }],
            improvements: Vec::new(),
            ..BaselineComparison::default()
        });
        let mut d = record("fresh", None, vec![field("x", "1", "1", None)]);
        d.baseline = Some(BaselineComparison {
            new: true,
            ..Default::default()
        });
        a.fields.push(field("name", "A", "B", None));
        // A test that passes within its thresholds has no failing field, however confident.
        let mut e = record("calm", None, vec![field("n", "1", "2", Some(0.99))]);
        e.status = Status::Passed;
        let ids: Vec<(String, &str)> = queue(&[a, b, c, d, e], &[])
            .iter()
            .map(|i| (i.id.clone(), i.kind.name()))
            .collect();
        assert_eq!(
            ids,
            [
                ("other#n".into(), "regression"),
                ("inv#total".into(), "contradicted"),
                ("inv::a#date".into(), "failing"),
                ("inv::a#name".into(), "failing"),
                ("fresh".into(), "new"),
            ]
        );
    }

    #[test]
    fn a_contradicted_item_shows_every_pipeline_and_blesses_the_agreeing_ones() {
        let a = record("inv::a", Some("a"), vec![field("t", "12", "13", None)]);
        let b = record("inv::b", Some("b"), vec![field("t", "12", "13", None)]);
        let c = record("inv::c", Some("c"), vec![field("t", "12", "12", None)]);
        let items = queue(&[a, b, c], &[]);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].tests, ["inv::a", "inv::b"]);
        assert_eq!(items[0].predictions.len(), 3);
        assert_eq!(items[0].value_of(None).unwrap().value, Json::from("13"));
        assert_eq!(
            items[0].value_of(Some("c")).unwrap().value,
            Json::from("12")
        );
    }
}
