//! Pins the metrics to values computed by independent implementations (`tests/reference/`, see its README):
//! the default profile, calibration, and profile `anls_star` against the `anls-star` package 1.0.1.

use goldgate::Normalize;
use goldgate::metrics::anls_star::{Tree, anls_star};
use goldgate::metrics::{brier, calibration_bins, ece, score_variants};
use serde_json::Value;

mod support;

const TOLERANCE: f64 = 1e-12;

fn reference_lines(name: &str) -> Vec<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    // Split on \n only: some strings hold raw U+2028 or U+0085.
    text.split('\n')
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Checks every line of a reference file: `check` returns a description of a disagreement.
fn every_line_agrees(name: &str, count: usize, check: impl Fn(&Value) -> Option<String>) {
    let lines = reference_lines(name);
    assert_eq!(lines.len(), count, "{name}");
    let disagreements: Vec<String> = lines.iter().filter_map(check).collect();
    assert!(
        disagreements.is_empty(),
        "{} of {} lines of {name} disagree:\n{}",
        disagreements.len(),
        lines.len(),
        disagreements.join("\n")
    );
}

#[test]
fn every_fields_line_agrees_with_the_reference() {
    every_line_agrees("fields.jsonl", 2005, |line| {
        let gold: Vec<&str> = line["gold"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap())
            .collect();
        let got = score_variants(&gold, line["pred"].as_str().unwrap(), Normalize::ALL);
        let (anls, em) = (line["anls"].as_f64().unwrap(), line["em"].as_f64().unwrap());
        ((got.anls - anls).abs() > TOLERANCE || got.em != em).then(|| {
            format!(
                "{}: got anls {} em {}, want {anls} {em}",
                line["id"], got.anls, got.em
            )
        })
    });
}

fn want_ece_of(line: &Value) -> f64 {
    line["ece"].as_f64().unwrap()
}

#[test]
fn every_calibration_line_agrees_with_the_reference() {
    every_line_agrees("calibration.jsonl", 324, |line| {
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
            .map(|x| x.as_f64() == Some(1.0))
            .collect();
        let bins = line["bins"].as_u64().unwrap() as u32;
        let (got_brier, got_ece) = (brier(&p, &o).unwrap(), ece(&p, &o, bins).unwrap());
        // The reliability diagram's bins hold every confidence and give the same ECE.
        let diagram = calibration_bins(&p, &o, bins);
        let counted: usize = diagram.iter().map(|b| b.count).sum();
        let from_bins: f64 = diagram
            .iter()
            .map(|b| b.count as f64 / p.len() as f64 * (b.accuracy - b.confidence).abs())
            .sum();
        if counted != p.len() || (from_bins - want_ece_of(line)).abs() > 1e-9 {
            return Some(format!(
                "{}: bins hold {counted} of {} confidences, ECE from bins {from_bins}",
                line["case"],
                p.len()
            ));
        }
        let (want_brier, want_ece) = (
            line["brier"].as_f64().unwrap(),
            line["ece"].as_f64().unwrap(),
        );
        ((got_brier - want_brier).abs() > TOLERANCE || (got_ece - want_ece).abs() > TOLERANCE).then(
            || {
                format!(
                    "{}: got brier {got_brier} ece {got_ece}, want {want_brier} {want_ece}",
                    line["case"]
                )
            },
        )
    });
}

#[test]
fn every_anls_star_line_agrees_with_the_package() {
    every_line_agrees("anls_star.jsonl", 2074, |line| {
        let got = anls_star(
            &Tree::from_json(&line["gt"]),
            &Tree::from_json(&line["pred"]),
        );
        let want = line["score"].as_f64().unwrap();
        ((got - want).abs() > TOLERANCE).then(|| format!("{}: got {got}, want {want}", line["id"]))
    });
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

/// Agreement with people (SPEC §12) and McNemar's test (§13) against scikit-learn, scipy and
/// statsmodels (`agreement.jsonl`, made by `agreement.py`).
#[test]
fn every_agreement_line_agrees_with_scikit_learn_scipy_and_statsmodels() {
    use goldgate::metrics::agreement::{
        Confusion, kendall_tau_b, mcnemar_exact, pearson, spearman,
    };
    // scipy's correlations go through other float steps than ours: equal to 1e-9.
    let same = |ours: Option<f64>, theirs: &Value| match (ours, theirs.as_f64()) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9,
        _ => false,
    };
    let bools = |v: &Value| -> Vec<bool> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_bool().unwrap())
            .collect()
    };
    let floats = |v: &Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_f64().unwrap())
            .collect()
    };
    every_line_agrees("agreement.jsonl", 700, |line| {
        let id = line["id"].as_str().unwrap();
        match line["kind"].as_str().unwrap() {
            "verdicts" => {
                let pairs: Vec<(bool, bool)> = bools(&line["person"])
                    .into_iter()
                    .zip(bools(&line["goldgate"]))
                    .collect();
                let c = Confusion::of(&pairs);
                let ours = [c.agreement(), c.kappa(), c.balanced_f1()];
                let keys = ["agreement", "kappa", "balanced_f1"];
                keys.iter()
                    .zip(ours)
                    .find(|(k, v)| !same(*v, &line[**k]))
                    .map(|(k, v)| format!("{id}: {k} {v:?}, want {}", line[*k]))
            }
            "ratings" => {
                let (x, y) = (floats(&line["rating"]), floats(&line["score"]));
                let ours = [spearman(&x, &y), kendall_tau_b(&x, &y), pearson(&x, &y)];
                let keys = ["spearman", "kendall_tau_b", "pearson"];
                keys.iter()
                    .zip(ours)
                    .find(|(k, v)| !same(*v, &line[**k]))
                    .map(|(k, v)| format!("{id}: {k} {v:?}, want {}", line[*k]))
            }
            _ => {
                let (b, c) = (line["b"].as_u64().unwrap(), line["c"].as_u64().unwrap());
                let ours = mcnemar_exact(b as usize, c as usize);
                let want = line["p_value"].as_f64().unwrap();
                // Relative: p-values of thousands of pairs are tiny.
                ((ours - want).abs() > 1e-9 * want.max(1e-300) && (ours - want).abs() > 1e-15)
                    .then(|| format!("{id}: McNemar p {ours}, want {want}"))
            }
        }
    });
}

/// The regression gate's power (SPEC §16) and the normal distribution under it against scipy
/// and statsmodels (`power.jsonl`, made by `power.py`).
#[test]
fn every_power_line_agrees_with_scipy_and_statsmodels() {
    use goldgate::metrics::power::{detectable_drop, normal_cdf, normal_quantile, sample_sd};
    let close =
        |ours: f64, theirs: &Value, within: f64| (ours - theirs.as_f64().unwrap()).abs() <= within;
    every_line_agrees("power.jsonl", 83, |line| {
        match line["kind"].as_str().unwrap() {
            "quantile" => {
                let ours = normal_quantile(line["p"].as_f64().unwrap());
                (!close(ours, &line["z"], 1e-12))
                    .then(|| format!("ppf({}) = {ours}, want {}", line["p"], line["z"]))
            }
            "cdf" => {
                let ours = normal_cdf(line["x"].as_f64().unwrap());
                (!close(ours, &line["cdf"], 1e-15))
                    .then(|| format!("cdf({}) = {ours}, want {}", line["x"], line["cdf"]))
            }
            _ => {
                let differences: Vec<f64> = line["differences"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_f64().unwrap())
                    .collect();
                let sd = sample_sd(&differences).unwrap();
                let ours = detectable_drop(
                    differences.len(),
                    sd,
                    line["confidence"].as_f64().unwrap(),
                    line["min_effect"].as_f64().unwrap(),
                    0.8,
                );
                // The closed form with scipy's quantiles to 1e-12; statsmodels' numerical
                // solution of the same equation to 1e-5 of it (its root finder stops there).
                let solved = line["statsmodels"]
                    .as_f64()
                    .is_some_and(|s| (ours - s).abs() > 1e-5 * s);
                (solved
                    || !close(sd, &line["sd"], 1e-12)
                    || !close(ours, &line["detectable_drop"], 1e-12))
                .then(|| {
                    format!(
                        "{}: sd {sd}, drop {ours}, want {} and {}",
                        line["id"], line["sd"], line["detectable_drop"]
                    )
                })
            }
        }
    });
}

/// The acceptance curve of a field's confidences and the advised threshold, against
/// statsmodels' Wilson interval (`acceptance.py`): every point's counts exactly, its share,
/// error rate and the interval's upper end within the tolerance; the advised threshold and its
/// automation rate exactly.
#[test]
fn every_acceptance_line_agrees_with_statsmodels() {
    use goldgate::metrics::acceptance::{Tally, advised};
    every_line_agrees("acceptance.jsonl", 104, |line| {
        let p = line["p"].as_array().unwrap();
        let o = line["o"].as_array().unwrap();
        let mut tally = Tally::default();
        for (p, o) in p.iter().zip(o) {
            tally.add(p.as_f64().unwrap(), o.as_bool().unwrap());
        }
        let curve = tally.curve();
        let want = line["curve"].as_array().unwrap();
        if curve.len() != want.len() {
            return Some(format!("{} points, want {}", curve.len(), want.len()));
        }
        for (got, want) in curve.iter().zip(want) {
            let close = |a: f64, key: &str| (a - want[key].as_f64().unwrap()).abs() <= TOLERANCE;
            let exact = got.threshold == want["threshold"].as_f64().unwrap()
                && got.accepted as u64 == want["accepted"].as_u64().unwrap()
                && got.errors as u64 == want["errors"].as_u64().unwrap();
            if !exact
                || !close(got.share, "share")
                || !close(got.error_rate, "error_rate")
                || !close(got.error_upper, "error_upper")
            {
                return Some(format!("got {got:?}, want {want}"));
            }
        }
        let target = line["target_error"].as_f64().unwrap();
        let got = advised(&curve, target);
        let threshold = got.map(|p| p.threshold);
        let rate = got.map_or(0.0, |p| p.share);
        (threshold != line["threshold"].as_f64()
            || rate != line["automation_rate"].as_f64().unwrap())
        .then(|| {
            format!(
                "advised {threshold:?} at {rate}, want {} at {}",
                line["threshold"], line["automation_rate"]
            )
        })
    });
}

/// Every field's values pooled at chosen thresholds (a suite's `acceptance:`), against
/// statsmodels (`pooled_acceptance.py`): 2,396 points, accepting above or at least each
/// threshold, as a share of the values or of the labels; counts exactly, rates and the Wilson
/// bound within the tolerance.
#[test]
fn every_pooled_acceptance_point_agrees_with_statsmodels() {
    use goldgate::metrics::acceptance::{Accept, Pooling, ShareOf, Tally, pooled};
    let lines = reference_lines("pooled_acceptance.jsonl");
    let points: usize = lines
        .iter()
        .map(|l| l["points"].as_array().unwrap().len())
        .sum();
    assert!(points >= 2000, "{points} points");
    every_line_agrees("pooled_acceptance.jsonl", 83, |line| {
        let tallies: Vec<Tally> = line["fields"]
            .as_object()
            .unwrap()
            .values()
            .map(|f| {
                let mut t = Tally::default();
                let (p, o) = (f["p"].as_array().unwrap(), f["o"].as_array().unwrap());
                for (p, o) in p.iter().zip(o) {
                    t.add(p.as_f64().unwrap(), o.as_bool().unwrap());
                }
                t
            })
            .collect();
        let labels = line["labels"].as_u64().unwrap() as usize;
        let thresholds: Vec<f64> = line["thresholds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        let mut got = Vec::new();
        for accept in [Accept::Above, Accept::AtLeast] {
            for share_of in [ShareOf::Values, ShareOf::Labels] {
                let pooling = Pooling {
                    thresholds: thresholds.clone(),
                    accept,
                    share_of,
                };
                got.extend(pooled(&tallies, labels, &pooling));
            }
        }
        let want = line["points"].as_array().unwrap();
        if got.len() != want.len() {
            return Some(format!("{} points, want {}", got.len(), want.len()));
        }
        let close = |a: Option<f64>, b: &Value| match (a, b.as_f64()) {
            (Some(a), Some(b)) => (a - b).abs() <= TOLERANCE,
            (a, b) => a.is_none() && b.is_none(),
        };
        got.iter().zip(want).find_map(|(g, w)| {
            let same = serde_json::to_value(g.accept).unwrap() == w["accept"]
                && serde_json::to_value(g.share_of).unwrap() == w["share_of"]
                && g.threshold == w["threshold"].as_f64().unwrap()
                && g.accepted as u64 == w["accepted"].as_u64().unwrap()
                && g.of as u64 == w["of"].as_u64().unwrap()
                && g.errors as u64 == w["errors"].as_u64().unwrap()
                && close(g.approval_rate, &w["approval_rate"])
                && close(g.precision, &w["precision"])
                && close(Some(g.error_upper), &w["error_upper"]);
            (!same).then(|| format!("got {g:?}, want {w}"))
        })
    });
}

/// DocuBench's own scorer (0.1.0, under Python 3.11) on 2,400 documents generated with a fixed
/// seed (`docubench.py`): texts in many scripts, letters Unicode assigned after Python 3.11's
/// tables, white space of every kind, numbers at their sixth decimal, lists reordered, and failed
/// calls (`"data"` null, a list, a text, missing), which `score_all.py` scores as `.get("data",
/// {})`. Every document's score agrees to 1e-9.
#[test]
fn every_docubench_document_scores_as_its_scorer_scores_it() {
    use goldgate::metrics::docubench::score_document;
    every_line_agrees("docubench_pairs.jsonl", 2400, |line| {
        let empty = serde_json::json!({});
        let data = line["result"].get("data").unwrap_or(&empty);
        let got = score_document(data, &line["schema"], &line["label"]);
        let want = line["final"].as_f64().unwrap();
        match got {
            Ok(d) if (d.score - want).abs() <= 1e-9 => None,
            Ok(d) => Some(format!("{}: got {}, want {want}", line["id"], d.score)),
            Err(e) => Some(format!("{}: got {e:?}, want {want}", line["id"])),
        }
    });
}

/// The `anls-star` package 1.0.1 on 2,200 pairs generated with a fixed seed
/// (`anls_star_numbers.py`), read as Python's `json.loads` reads them: integers beyond 64 bits,
/// `-0`, `1e400` (infinity), floats at their last digit, trees nested up to 220 levels. Each
/// pair goes through `goldgate score --profile anls_star --jsonl` as written, so that goldgate's
/// own JSON reading (numbers as their text, nesting beyond serde_json's 128) is what is pinned.
#[test]
fn every_number_and_deep_tree_scores_as_the_package_scores_it() {
    let lines = reference_lines("anls_star_numbers.jsonl");
    assert_eq!(lines.len(), 2200);
    let dir = tempfile::tempdir().unwrap();
    let pairs: String = lines
        .iter()
        .map(|l| {
            let (gt, pred) = (l["gt"].as_str().unwrap(), l["pred"].as_str().unwrap());
            format!("{{\"gt\": {gt}, \"pred\": {pred}}}\n")
        })
        .collect();
    std::fs::write(dir.path().join("pairs.jsonl"), pairs).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(["score", "--profile", "anls_star", "--jsonl", "pairs.jsonl"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        got.len(),
        lines.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let disagreements: Vec<String> = lines
        .iter()
        .zip(&got)
        .filter_map(|(line, got)| {
            let want = line["score"].as_f64().unwrap();
            let scored: Value = serde_json::from_str(got).ok()?;
            let anls = scored["anls"].as_f64();
            (anls.is_none_or(|a| (a - want).abs() > TOLERANCE))
                .then(|| format!("{}: got {got}, want {want}", line["id"]))
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "{} of {} pairs disagree:\n{}",
        disagreements.len(),
        lines.len(),
        disagreements.join("\n")
    );
}

/// KIEval's own scorer (UpstageAI/KIEval, under Python 3.11 and SciPy 1.17, the same under its
/// pins) on 2,738 documents generated with a fixed seed (`kieval.py`): CORD-like receipts with
/// values changed, items dropped, added, reordered and duplicated, `<empty>` cells, merged values,
/// keys outside CORD's ontology, groups numbered in other scripts' digits, rows shorter and
/// longer than their keys, documents without groups. Each document is a case of a `cases:`
/// suite read straight from its CSVs, scored with every key (`all`) and with CORD's shortlist
/// (`kieval: { keys: cord }`); 24 sets of them are suites of their own, whose pipeline pools its
/// cases' counts as KIEval pools a set's. Every count agrees, and every score to 1e-12.
#[test]
fn every_kieval_document_and_set_counts_as_its_scorer_counts_them() {
    let lines = reference_lines("kieval.jsonl");
    let documents: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "document").collect();
    let sets: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "set").collect();
    assert!(
        documents.len() >= 4_000 && sets.len() >= 40,
        "{}",
        lines.len()
    );
    let by_id: std::collections::HashMap<(&str, &str), &Value> = documents
        .iter()
        .map(|d| ((d["id"].as_str().unwrap(), d["keys"].as_str().unwrap()), *d))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    // A suite per shortlist, and per set, each with a pipeline of its own name.
    let suite = |folder: &str, keys: &str, docs: &[&Value]| {
        let root = dir.path().join("cases").join(folder);
        std::fs::create_dir_all(root.join("gt")).unwrap();
        std::fs::create_dir_all(root.join("pred")).unwrap();
        let shortlist = if keys == "cord" {
            "kieval: { keys: cord }\n"
        } else {
            ""
        };
        std::fs::write(
            root.join("suite.yaml"),
            format!(
                "profile: kieval\n{shortlist}cases:\n  gold: gt/{{case}}.csv\npipelines:\n  {}: pred/{{case}}.csv\ndefaults:\n  thresholds: {{ min_f1: 0.5 }}\n",
                folder.replace('-', "_")
            ),
        )
        .unwrap();
        for d in docs {
            let id = d["id"].as_str().unwrap();
            std::fs::write(
                root.join(format!("gt/{id}.csv")),
                d["gold"].as_str().unwrap(),
            )
            .unwrap();
            std::fs::write(
                root.join(format!("pred/{id}.csv")),
                d["pred"].as_str().unwrap(),
            )
            .unwrap();
        }
    };
    for keys in ["all", "cord"] {
        let docs: Vec<&Value> = documents
            .iter()
            .copied()
            .filter(|d| d["keys"] == keys)
            .collect();
        suite(keys, keys, &docs);
    }
    for set in &sets {
        let keys = set["keys"].as_str().unwrap();
        let docs: Vec<&Value> = set["documents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| by_id[&(id.as_str().unwrap(), keys)])
            .collect();
        suite(
            &format!("{}-{keys}", set["id"].as_str().unwrap()),
            keys,
            &docs,
        );
    }
    let report = dir.path().join("report.json");
    // Its own run, whatever runs this test (`cargo goldgate test --nextest` sets a run id).
    let out = support::command(
        dir.path(),
        &["test", "cases", "--report", report.to_str().unwrap()],
    )
    .output()
    .unwrap();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap_or_else(|e| {
            panic!("no report ({e}):\n{}", String::from_utf8_lossy(&out.stdout))
        }))
        .unwrap();
    let agrees = |got: &Value, want: &Value| -> Option<String> {
        let same = got["kieval"] == want["counts"]
            && ["precision", "recall", "f1", "aligned"].iter().all(|k| {
                got[k]
                    .as_f64()
                    .zip(want[k].as_f64())
                    .is_some_and(|(g, w)| (g - w).abs() <= TOLERANCE)
            });
        (!same).then(|| {
            format!(
                "got {} P {} R {} F1 {} aligned {}, want {} P {} R {} F1 {} aligned {}",
                got["kieval"],
                got["precision"],
                got["recall"],
                got["f1"],
                got["aligned"],
                want["counts"],
                want["precision"],
                want["recall"],
                want["f1"],
                want["aligned"]
            )
        })
    };
    let cases: std::collections::HashMap<&str, &Value> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), &c["metrics"]))
        .collect();
    let mut disagreements: Vec<String> = documents
        .iter()
        .filter_map(|d| {
            let (id, keys) = (d["id"].as_str().unwrap(), d["keys"].as_str().unwrap());
            let name = format!("{keys}/{id}::{keys}");
            match cases.get(name.as_str()) {
                Some(got) => agrees(got, d).map(|why| format!("{name}: {why}")),
                None => Some(format!("{name}: not in the report")),
            }
        })
        .collect();
    let pipelines: std::collections::HashMap<&str, &Value> = report["pipelines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["pipeline"].as_str().unwrap(), p))
        .collect();
    disagreements.extend(sets.iter().filter_map(|s| {
        let name = format!(
            "{}_{}",
            s["id"].as_str().unwrap(),
            s["keys"].as_str().unwrap()
        );
        match pipelines.get(name.as_str()) {
            Some(got) => agrees(got, s).map(|why| format!("set {name}: {why}")),
            None => Some(format!("set {name}: not in the report")),
        }
    }));
    assert!(
        disagreements.is_empty(),
        "{} of {} documents and sets disagree:\n{}",
        disagreements.len(),
        documents.len() + sets.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
}
