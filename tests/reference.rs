//! Pins the metrics to values computed by independent implementations (`../shared/reference/`).

use goldgate::Normalize;
use goldgate::metrics::{brier, ece, score_variants};
use serde_json::Value;

const TOLERANCE: f64 = 1e-12;

fn reference_lines(name: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    // Split on \n only: some strings hold raw U+2028 or U+0085.
    text.split('\n')
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_fields_line_agrees_with_the_reference() {
    let lines = reference_lines("fields.jsonl");
    assert_eq!(lines.len(), 2005);
    let mut disagreements = Vec::new();
    for line in &lines {
        let gold: Vec<&str> = line["gold"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap())
            .collect();
        let pred = line["pred"].as_str().unwrap();
        let got = score_variants(&gold, pred, Normalize::ALL);
        let want_anls = line["anls"].as_f64().unwrap();
        let want_em = line["em"].as_f64().unwrap();
        if (got.anls - want_anls).abs() > TOLERANCE || got.em != want_em {
            disagreements.push(format!(
                "{}: got anls {} em {}, want {} {}",
                line["id"], got.anls, got.em, want_anls, want_em
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} lines disagree:\n{}",
        disagreements.len(),
        lines.len(),
        disagreements.join("\n")
    );
}

#[test]
fn every_calibration_line_agrees_with_the_reference() {
    let lines = reference_lines("calibration.jsonl");
    assert_eq!(lines.len(), 324);
    let mut disagreements = Vec::new();
    for line in &lines {
        let p: Vec<f64> = line["p"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let o: Vec<bool> = line["o"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() == 1.0)
            .collect();
        let bins = line["bins"].as_u64().unwrap() as u32;
        let got_brier = brier(&p, &o).unwrap();
        let got_ece = ece(&p, &o, bins).unwrap();
        let (want_brier, want_ece) = (
            line["brier"].as_f64().unwrap(),
            line["ece"].as_f64().unwrap(),
        );
        if (got_brier - want_brier).abs() > TOLERANCE || (got_ece - want_ece).abs() > TOLERANCE {
            disagreements.push(format!(
                "{}: got brier {got_brier} ece {got_ece}, want {want_brier} {want_ece}",
                line["case"]
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} lines disagree:\n{}",
        disagreements.len(),
        lines.len(),
        disagreements.join("\n")
    );
}
