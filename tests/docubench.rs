//! DocuBench's published leaderboard, recomputed: every document's score for each of the six
//! systems, their macro scores and the breakdowns by language and file type equal the figures
//! DocuBench published (`tests/reference/docubench/published.json`) to 1e-9.
//!
//! The DocuBench data (labels, schemas, the systems' outputs, `sources.json`; CC BY 4.0) is not
//! in this repository: the test reads it from the folder `GOLDGATE_DOCUBENCH` names (`.ci/run`
//! sets it when `../shared/docubench` exists) and says it skipped otherwise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use goldgate::metrics::docubench::score_document;
use serde_json::Value;

mod support;

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn data() -> Option<PathBuf> {
    match std::env::var_os("GOLDGATE_DOCUBENCH") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!(
                "docubench: skipped: GOLDGATE_DOCUBENCH does not name the DocuBench data \
                 (.ci/run sets it when ../shared/docubench exists)"
            );
            None
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

#[test]
fn the_published_leaderboard_is_reproduced() {
    let Some(dir) = data() else { return };
    let published = read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/docubench/published.json"),
    );
    let systems: Vec<String> = published["aggregates"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(systems.len(), 6);

    // Every document's score, per system.
    let mut scores: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for row in published["per_doc"].as_array().unwrap() {
        let doc = row["doc_id"].as_str().unwrap();
        let schema = read(&dir.join("schemas").join(format!("{doc}.json")));
        let label = read(&dir.join("labels").join(format!("{doc}.json")));
        for system in &systems {
            let output = read(&dir.join("results").join(system).join(format!("{doc}.json")));
            let result = output
                .get("data")
                .cloned()
                .unwrap_or(Value::Object(Default::default()));
            let score = score_document(&result, &schema, &label)
                .unwrap_or_else(|e| panic!("{doc} {system}: {e}"))
                .score;
            let expected = row[system.as_str()].as_f64().unwrap();
            if !close(score, expected) {
                wrong.push(format!("{doc} {system}: {score} against {expected}"));
            }
            scores
                .entry(system.clone())
                .or_default()
                .insert(doc.to_owned(), score);
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of 300 documents differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );

    // The macro scores.
    for system in &systems {
        let all: Vec<f64> = scores[system].values().copied().collect();
        let expected = published["aggregates"][system.as_str()].as_f64().unwrap();
        assert!(
            close(mean(&all), expected),
            "{system}: {} against {expected}",
            mean(&all)
        );
    }

    // The breakdowns: the mean over the documents of each language and file type.
    let sources = read(&dir.join("sources.json"));
    let attribute = |doc: &str, key: &str| -> String {
        sources
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["doc_id"] == doc)
            .and_then(|s| s[key].as_str())
            .unwrap_or_else(|| panic!("{doc} has no {key} in sources.json"))
            .to_owned()
    };
    let mut checked = 0;
    for key in ["lang", "ftype"] {
        for slice in published["breakdowns"][key].as_array().unwrap() {
            let value = slice["value"].as_str().unwrap();
            let docs: Vec<&String> = scores[&systems[0]]
                .keys()
                .filter(|d| attribute(d, key) == value)
                .collect();
            assert_eq!(
                docs.len() as u64,
                slice["doc_count"].as_u64().unwrap(),
                "{key} {value}"
            );
            for system in &systems {
                let values: Vec<f64> = docs.iter().map(|d| scores[system][*d]).collect();
                let expected = slice[system.as_str()].as_f64().unwrap();
                assert!(
                    close(mean(&values), expected),
                    "{key} {value} {system}: {} against {expected}",
                    mean(&values)
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 6 * 20, "{checked} slices checked");
}

/// `profile: docubench` on a case of its own: the document's score is the case's ANLS, each
/// field's part of it is its ANLS, and its EM is 1 when all of it matches.
#[test]
fn a_case_under_the_docubench_profile_scores_as_the_benchmark_does() {
    let dir = tempfile::tempdir().unwrap();
    support::write_files(
        dir.path(),
        &[
            (
                "cases/f-1.yaml",
                "profile: docubench\nprediction: f-1.json\ngold:\n  number: F-1\n  total: 30\n  \
                 lines:\n    - { what: a, amount: 10 }\n    - { what: b, amount: 20 }\n\
                 thresholds: { min_anls: 0.8 }\n",
            ),
            (
                "cases/f-1.json",
                r#"{"fields": {"number": "f 1", "total": 31, "lines": [{"what": "b", "amount": 20}, {"what": "a", "amount": 10.0}]}}"#,
            ),
        ],
    );
    let out = support::goldgate(dir.path(), &["test", "cases", "--report", "report.json"]);
    assert!(out.status.success(), "{}", support::stdout(&out));
    let report = read(&dir.path().join("report.json"));
    let case = &report["cases"][0];
    assert_eq!(case["metrics"]["anls"], 5.0 / 6.0);
    assert_eq!(case["metrics"]["exact_match"], 2.0 / 3.0);
    let fields: Vec<(&str, f64, f64)> = case["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap(),
                f["em"].as_f64().unwrap(),
                f["anls"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("number", 1.0, 1.0),
            ("total", 0.0, 0.0),
            ("lines", 1.0, 1.0)
        ]
    );

    // The same prediction under the default profile: `f 1` is not `F-1`, and the lists are
    // scored by ANLS*.
    let yaml = std::fs::read_to_string(dir.path().join("cases/f-1.yaml")).unwrap();
    std::fs::write(
        dir.path().join("cases/f-1.yaml"),
        yaml.replace("profile: docubench\n", ""),
    )
    .unwrap();
    let out = support::goldgate(dir.path(), &["test", "cases", "--report", "report.json"]);
    let report = read(&dir.path().join("report.json"));
    assert_ne!(
        report["cases"][0]["metrics"]["anls"],
        5.0 / 6.0,
        "{}",
        support::stdout(&out)
    );
}
