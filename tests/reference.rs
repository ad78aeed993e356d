//! Pins the metrics to values computed by independent implementations (`../shared/reference/`):
//! the default profile, calibration, and profile `anls_star` against the `anls-star` package 1.0.1.

use goldgate::Normalize;
use goldgate::metrics::anls_star::{Tree, anls_star};
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

#[test]
fn every_anls_star_line_agrees_with_the_package() {
    let lines = reference_lines("anls_star.jsonl");
    assert_eq!(lines.len(), 2074);
    let mut disagreements = Vec::new();
    for line in &lines {
        let gold = Tree::from_json(&line["gt"]);
        let pred = Tree::from_json(&line["pred"]);
        let got = anls_star(&gold, &pred);
        let want = line["score"].as_f64().unwrap();
        if (got - want).abs() > TOLERANCE {
            disagreements.push(format!("{}: got {got}, want {want}", line["id"]));
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

/// Line item `k` of an invoice, six keys; `typo` misspells its description.
fn line_item(k: usize, typo: bool) -> Tree {
    let t = |s: String| Tree::Text(s);
    let word = if typo { "Widgit" } else { "Widget" };
    let tax = if k.is_multiple_of(3) { "20%" } else { "5.5%" };
    Tree::Map(vec![
        ("description".into(), t(format!("{word} model {k}"))),
        ("quantity".into(), t(format!("{}", k % 9 + 1))),
        ("unit_price".into(), t(format!("{}.{:02}", 10 + k, k % 100))),
        ("amount".into(), t(format!("{}.50", (10 + k) * (k % 9 + 1)))),
        ("sku".into(), t(format!("SKU-{:05}", k * 13))),
        ("tax_rate".into(), t(tax.into())),
    ])
}

fn invoice(number: &str, items: Vec<Tree>) -> Tree {
    Tree::Map(vec![
        ("invoice_number".into(), Tree::Text(number.into())),
        ("line_items".into(), Tree::List(items)),
    ])
}

#[test]
fn fifty_shuffled_line_items_score_as_the_package_does() {
    let gold = invoice("INV-173", (0..50).map(|k| line_item(k, false)).collect());
    // Shuffled, one item dropped, one invented, every fifth description misspelt.
    let mut items: Vec<Tree> = (0..49)
        .map(|i| (i * 7 + 3) % 50)
        .map(|k| line_item(k, k.is_multiple_of(5)))
        .collect();
    items.push(line_item(99, false));
    let pred = invoice("INV-173", items);
    // The value anls-star 1.0.1 computes for these two trees (speed: `cargo bench`).
    let score = anls_star(&gold, &pred);
    assert!((score - 0.9847597953910247).abs() < TOLERANCE, "{score}");
}
