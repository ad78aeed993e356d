//! Speed of the hot paths: text scoring, the whole reference corpus, and a gold set end to end.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use goldgate::Normalize;
use goldgate::Value;
use goldgate::metrics::anls_star::{Rules, Tree, anls_star, score_with};
use goldgate::metrics::{ece, score_variants};

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
fn invoice_items() -> (Value, Value) {
    let item = |k: usize, typo: bool| {
        let t = |s: String| Value::Text(s);
        Value::Map(vec![
            (
                "description".into(),
                t(if typo {
                    format!("Cabel 3G2.5 lot {k}")
                } else {
                    format!("Câble 3G2.5 lot {k}")
                }),
            ),
            ("quantity".into(), t(format!("{}", k % 7 + 1))),
            ("unit_price".into(), t(format!("{}.{:02}", 10 + k, k % 100))),
            (
                "vat_rate".into(),
                t(if k.is_multiple_of(3) {
                    "20%".into()
                } else {
                    "5.5%".into()
                }),
            ),
            ("amount".into(), t(format!("{}.00", (k % 7 + 1) * (10 + k)))),
            ("reference".into(), t(format!("REF-{k:04}"))),
        ])
    };
    let gold = Value::List((0..50).map(|k| item(k, false)).collect());
    let mut pred: Vec<Value> = (1..50).map(|k| item(k, k.is_multiple_of(5))).collect();
    pred.push(item(99, false));
    pred.reverse();
    (gold, Value::List(pred))
}

fn nested(c: &mut Criterion) {
    let (gold, pred) = invoice_items();
    let to_tree = |v: &Value| Tree::from_json(&v.to_json());
    let (gold_tree, pred_tree) = (to_tree(&gold), to_tree(&pred));
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<(String, std::path::PathBuf)> =
        goldgate::load::discover::discover(&root.join("cases"))
            .unwrap()
            .into_iter()
            .filter_map(|f| match f {
                goldgate::load::discover::Found::Case { id, path } => Some((id, path)),
                _ => None,
            })
            .collect();
    c.bench_function("example gold set: load + read prediction + evaluate", |b| {
        b.iter(|| {
            for (id, path) in &cases {
                if let Ok(case) = goldgate::load::load_case(path, id, &root.join("rubrics"))
                    && let Ok(p) =
                        goldgate::load::prediction::read_prediction(&case.prediction, &case.file)
                {
                    black_box(goldgate::evaluate(&case, &p));
                }
            }
        })
    });
}

criterion_group!(benches, text_metrics, nested, gold_set);
criterion_main!(benches);
