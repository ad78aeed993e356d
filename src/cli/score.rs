//! The `score` and `calibrate` commands: metrics of JSON lines, for checking goldgate against
//! other implementations.

use std::io::{BufRead, Write};

use serde_json::{Value as Json, json};

use crate::base::budget::{CASE_STEPS, FILE_BYTES, oversized};
use crate::base::normalize::Normalize;
use crate::base::value::Value;
use crate::evaluate::field::field_scores;
use crate::metrics::anls_star::{Tree, anls_star};
use crate::metrics::{brier, ece};
use crate::model::case::Profile;

/// The scoring profiles `--profile` accepts.
pub const PROFILES: [&str; 4] = Profile::NAMES;

/// EM and ANLS of one gold/prediction pair as a JSON object, in a profile.
pub fn score_pair_in(profile: Profile, gold: &Json, pred: &Json) -> Result<Json, String> {
    // The budgets of a case hold for a line too (the command is a front door like any).
    for (side, value) in [("gold", gold), ("pred", pred)] {
        if let Some((below, why)) = oversized(&Value::from_json(value)) {
            return Err(format!("`{side}{below}` is {why}"));
        }
    }
    crate::metrics::effort::within(CASE_STEPS, || score_unbounded(profile, gold, pred))
        .unwrap_or_else(|_| {
            Err(format!(
                "scoring the pair needs more work than goldgate spends on one case ({:.1} billion steps)",
                CASE_STEPS as f64 / 1e9
            ))
        })
}

fn score_unbounded(profile: Profile, gold: &Json, pred: &Json) -> Result<Json, String> {
    match profile {
        Profile::Dream => score_pair(gold, pred),
        Profile::AnlsStar => {
            let score = anls_star(&Tree::from_json(gold), &Tree::from_json(pred));
            Ok(json!({ "anls": score, "em": u8::from(score == 1.0) }))
        }
        Profile::DocuBench => {
            let score = crate::metrics::docubench::value_score(gold, pred);
            Ok(json!({ "anls": score, "em": u8::from(score == 1.0) }))
        }
        Profile::KiEval => kieval_pair(gold, pred),
    }
}

/// KIEval's counts and scores of one pair of documents (objects of fields).
fn kieval_pair(gold: &Json, pred: &Json) -> Result<Json, String> {
    use crate::metrics::kieval::{Document, score};
    let document = |side: &str, json: &Json| match Value::from_json(json) {
        Value::Map(fields) => Ok(fields),
        _ => Err(format!(
            "under `kieval` the {side} is a document: an object of fields"
        )),
    };
    let (gold, pred) = (document("gold", gold)?, document("pred", pred)?);
    let of = |f: &[(String, Value)]| Document::of_fields(f.iter().map(|(k, v)| (k.as_str(), v)));
    let counts = score(&of(&gold), &of(&pred));
    let t = counts.total;
    Ok(json!({
        "precision": t.precision(),
        "recall": t.recall(),
        "f1": t.f1(),
        "aligned": t.aligned(),
        "kieval": counts,
    }))
}

/// EM and ANLS of one gold/prediction pair as a JSON object (default profile).
pub fn score_pair(gold: &Json, pred: &Json) -> Result<Json, String> {
    let mut variants = variants(gold)?;
    // Compatibility mode of the reference: a gold list of texts against a text is its variants.
    if let (Some(list), true) = (gold.as_array(), pred.is_string())
        && !list.is_empty()
        && list.iter().all(Json::is_string)
    {
        variants = list.iter().map(Value::from_json).collect();
    }
    let pred = Value::from_json(pred);
    let (em, anls) = field_scores(&variants, &pred, Normalize::ALL);
    Ok(json!({ "anls": anls, "em": em as u8 }))
}

/// Gold variants: `{"any_of": [...]}`, or a list of texts scored against a text (the reference's
/// compatibility mode), or one value.
fn variants(gold: &Json) -> Result<Vec<Value>, String> {
    if let Some(map) = gold.as_object()
        && let Some(any_of) = map.get("any_of")
    {
        return match any_of.as_array() {
            Some(list) if map.len() == 1 && !list.is_empty() => {
                Ok(list.iter().map(Value::from_json).collect())
            }
            _ => Err("`any_of` must be the only key, with a non-empty list".into()),
        };
    }
    Ok(vec![Value::from_json(gold)])
}

/// Brier and ECE of one `{"p": [...], "o": [...], "bins": M}` line.
pub fn calibrate_line(line: &Json) -> Result<Json, String> {
    let p: Vec<f64> = line["p"]
        .as_array()
        .ok_or("`p` must be a list of confidences")?
        .iter()
        .map(|x| {
            x.as_f64()
                .filter(|v| (0.0..=1.0).contains(v))
                .ok_or_else(|| format!("confidence {x} is not a number in [0, 1]"))
        })
        .collect::<Result<_, _>>()?;
    let o: Vec<bool> = line["o"]
        .as_array()
        .ok_or("`o` must be a list of 0/1 outcomes")?
        .iter()
        .map(|x| match x {
            Json::Bool(b) => Ok(*b),
            n if n.as_f64() == Some(1.0) => Ok(true),
            n if n.as_f64() == Some(0.0) => Ok(false),
            other => Err(format!("outcome {other} is not 0 or 1")),
        })
        .collect::<Result<_, _>>()?;
    if p.len() != o.len() {
        return Err(format!(
            "`p` has {} values but `o` has {}",
            p.len(),
            o.len()
        ));
    }
    let bins = match &line["bins"] {
        Json::Null => 5,
        b => b
            .as_u64()
            .filter(|b| (1..=u64::from(u32::MAX)).contains(b))
            .ok_or("`bins` must be a whole number from 1")? as u32,
    };
    Ok(json!({ "brier": brier(&p, &o), "ece": ece(&p, &o, bins) }))
}

/// Applies `f` to every JSON line of `input`, writing one line out per line in. A bad line gets
/// `{"error": ...}` and is reported on stderr; returns whether every line was good.
pub fn each_line(
    mut input: impl BufRead,
    mut out: impl Write,
    name: &str,
    f: impl Fn(&Json) -> Result<Json, String>,
) -> std::io::Result<bool> {
    use std::io::Read;
    let mut ok = true;
    let mut line = Vec::new();
    for i in 0.. {
        // Split on \n only: JSON strings may hold U+2028 or U+0085. A line is held to the
        // budgets of a prediction file: never more than FILE_BYTES of it in memory.
        line.clear();
        let read = (&mut input)
            .take(FILE_BYTES + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        let too_long = line.len() as u64 > FILE_BYTES;
        if too_long {
            // The rest of the line is skipped, not kept.
            let mut rest = Vec::new();
            while !rest.ends_with(b"\n") {
                rest.clear();
                if (&mut input).take(1 << 20).read_until(b'\n', &mut rest)? == 0 {
                    break;
                }
            }
        }
        let text = String::from_utf8_lossy(&line);
        if !too_long && text.trim().is_empty() {
            continue;
        }
        let result = if too_long {
            Err(format!(
                "the line is longer than goldgate reads ({} MiB)",
                FILE_BYTES >> 20
            ))
        } else {
            crate::base::json::prediction_json(&text)
                .map_err(|e| format!("invalid JSON: {e}"))
                .and_then(|j| f(&j))
        };
        match result {
            Ok(v) => writeln!(out, "{v}")?,
            Err(e) => {
                ok = false;
                eprintln!("error: {name}:{}: {e}", i + 1);
                writeln!(
                    out,
                    "{}",
                    json!({ "error": format!("line {}: {e}", i + 1) })
                )?;
            }
        }
    }
    Ok(ok)
}
