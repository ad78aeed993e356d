//! Speed of the hot paths: text scoring, the whole reference corpus, and a gold set end to end.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use goldgate::Normalize;
use goldgate::metrics::anls_star::{Rules, Tree, anls_star, score_with};
use goldgate::metrics::{ece, score_variants};
use serde_json::{Value as Json, json};

fn reference(name: &str) -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(name);
    let text = std::fs::read_to_string(path).expect("reference data beside the repository");
    text.split('\n')
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn text_metrics(c: &mut Criterion) {
    c.bench_function("score_variants short pair", |b| {
        b.iter(|| {
            score_variants(
                black_box(&["Société Générale d'Électricité"]),
                black_box("Societe Generale d Electricite"),
                Normalize::ALL,
            )
        })
    });
    let long_gold = "Câble 3G2.5 ".repeat(40);
    let long_pred = "Cable 3G25 ".repeat(40);
    c.bench_function("score_variants 480-char pair", |b| {
        b.iter(|| {
            score_variants(
                black_box(&[long_gold.as_str()]),
                black_box(&long_pred),
                Normalize::ALL,
            )
        })
    });

    let lines: Vec<(Vec<String>, String)> = reference("fields.jsonl")
        .iter()
        .map(|l| {
            let gold = l["gold"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g.as_str().unwrap().to_owned())
                .collect();
            (gold, l["pred"].as_str().unwrap().to_owned())
        })
        .collect();
    c.bench_function("fields.jsonl corpus (2005 lines)", |b| {
        b.iter(|| {
            lines
                .iter()
                .map(|(g, p)| score_variants(g, p, Normalize::ALL).anls)
                .sum::<f64>()
        })
    });

    let cal: Vec<(Vec<f64>, Vec<bool>, u32)> = reference("calibration.jsonl")
        .iter()
        .map(|l| {
            let p = l["p"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            let o = l["o"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() == 1.0)
                .collect();
            (p, o, l["bins"].as_u64().unwrap() as u32)
        })
        .collect();
    c.bench_function("calibration.jsonl corpus (324 lines)", |b| {
        b.iter(|| {
            cal.iter()
                .filter_map(|(p, o, m)| ece(p, o, *m))
                .sum::<f64>()
        })
    });
}

/// An invoice of 50 line items × 6 keys against a shuffled prediction with one item dropped,
/// one invented and every fifth description misspelt.
fn invoice_items() -> (Json, Json) {
    let item = |k: usize, typo: bool| {
        json!({
            "description": if typo { format!("Cabel 3G2.5 lot {k}") } else { format!("Câble 3G2.5 lot {k}") },
            "quantity": format!("{}", k % 7 + 1),
            "unit_price": format!("{}.{:02}", 10 + k, k % 100),
            "vat_rate": if k.is_multiple_of(3) { "20%" } else { "5.5%" },
            "amount": format!("{}.00", (k % 7 + 1) * (10 + k)),
            "reference": format!("REF-{k:04}"),
        })
    };
    let gold = Json::Array((0..50).map(|k| item(k, false)).collect());
    let mut pred: Vec<Json> = (1..50usize).map(|k| item(k, k.is_multiple_of(5))).collect();
    pred.push(item(99, false));
    pred.reverse();
    (gold, Json::Array(pred))
}

fn nested(c: &mut Criterion) {
    let (gold, pred) = invoice_items();
    let (gold_tree, pred_tree) = (Tree::from_json(&gold), Tree::from_json(&pred));
    c.bench_function("ANLS* default profile, 50 line items x 6 keys", |b| {
        b.iter(|| {
            score_with(
                black_box(&gold_tree),
                black_box(&pred_tree),
                Rules::dream(Normalize::ALL),
            )
        })
    });
    c.bench_function("ANLS* anls_star profile, 50 line items x 6 keys", |b| {
        b.iter(|| anls_star(black_box(&gold_tree), black_box(&pred_tree)))
    });
    let corpus: Vec<(Tree, Tree)> = reference("anls_star.jsonl")
        .iter()
        .map(|l| (Tree::from_json(&l["gt"]), Tree::from_json(&l["pred"])))
        .collect();
    c.bench_function("anls_star.jsonl corpus (2074 lines)", |b| {
        b.iter(|| corpus.iter().map(|(g, p)| anls_star(g, p)).sum::<f64>())
    });
}

fn gold_set(c: &mut Criterion) {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
    c.bench_function("example gold set: load + read prediction + evaluate", |b| {
        b.iter(|| goldgate::cli::evaluate_folder(black_box(&cases)).unwrap())
    });
}

criterion_group!(benches, text_metrics, nested, gold_set);
criterion_main!(benches);
