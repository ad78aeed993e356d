//! Speed of the hot paths: text scoring, the whole reference corpus, and a gold set end to end.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use goldgate::Normalize;
use goldgate::metrics::{ece, score_variants};

fn reference(name: &str) -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference")
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

fn gold_set(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<(String, std::path::PathBuf)> =
        goldgate::discover::discover(&root.join("cases"))
            .unwrap()
            .into_iter()
            .filter_map(|f| match f {
                goldgate::discover::Found::Case { id, path } => Some((id, path)),
                _ => None,
            })
            .collect();
    c.bench_function("example gold set: load + read prediction + evaluate", |b| {
        b.iter(|| {
            for (id, path) in &cases {
                if let Ok(case) = goldgate::load::load_case(path, id, &root.join("rubrics"))
                    && let Ok(p) =
                        goldgate::prediction::read_prediction(&case.prediction, &case.file)
                {
                    black_box(goldgate::evaluate(&case, &p));
                }
            }
        })
    });
}

criterion_group!(benches, text_metrics, gold_set);
criterion_main!(benches);
