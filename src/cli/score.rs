//! The `score` and `calibrate` commands: metrics of JSON lines, for checking goldgate against
//! other implementations.

use std::io::{BufRead, Write};

use serde_json::{Value as Json, json};

use crate::base::budget::{CASE_STEPS, FILE_BYTES, TEXT_CHARS, oversized};
use crate::base::normalize::Normalize;
use crate::base::value::Value;
use crate::evaluate::field::field_scores;
use crate::metrics::anls_star::{Tree, anls_star};
use crate::metrics::score_one;
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
    input: impl BufRead,
    out: impl Write,
    name: &str,
    f: impl Fn(&Json) -> Result<Json, String>,
) -> std::io::Result<bool> {
    each_line_or(input, out, name, |_, _| false, f)
}

/// [`each_line`], offering each line to `quick` first: it writes the line's output and returns
/// true, or writes nothing and leaves the line to `f` (and to its messages).
pub(crate) fn each_line_or(
    input: impl BufRead,
    out: impl Write,
    name: &str,
    mut quick: impl FnMut(&str, &mut Vec<u8>) -> bool,
    f: impl Fn(&Json) -> Result<Json, String>,
) -> std::io::Result<bool> {
    use std::io::Read;
    let mut io = Exchange {
        input,
        out,
        pending: Vec::new(),
        left: 0,
    };
    let mut ok = true;
    let mut line = Vec::new();
    for i in 0.. {
        // Split on \n only: JSON strings may hold U+2028 or U+0085. A line is held to the
        // budgets of a prediction file: never more than FILE_BYTES of it in memory.
        line.clear();
        let read = (&mut io)
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
                if (&mut io).take(1 << 20).read_until(b'\n', &mut rest)? == 0 {
                    break;
                }
            }
        } else if std::str::from_utf8(&line).is_ok_and(|text| quick(text, &mut io.pending)) {
            io.written_when_full()?;
            continue;
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
            Ok(v) => writeln!(io.pending, "{v}")?,
            Err(e) => {
                ok = false;
                // The lines before it first, so that a terminal shows the message in its place.
                io.send()?;
                eprintln!("error: {name}:{}: {e}", i + 1);
                writeln!(
                    io.pending,
                    "{}",
                    json!({ "error": format!("line {}: {e}", i + 1) })
                )?;
            }
        }
        io.written_when_full()?;
    }
    io.send()?;
    Ok(ok)
}

/// The input and output of [`each_line`]: the lines out are held until reading the next line in
/// would wait, then written at once. A file's scores go out in large writes, not a write per
/// line (standard output is line-buffered), and a program that writes a line to standard input
/// and waits for its score still gets it.
struct Exchange<R, W> {
    input: R,
    out: W,
    /// The lines out not yet written.
    pending: Vec<u8>,
    /// How much of what `input` holds is not yet read: at 0, the next read may wait.
    left: usize,
}

impl<R, W: Write> Exchange<R, W> {
    /// Writes the pending lines out and flushes them.
    fn send(&mut self) -> std::io::Result<()> {
        self.out.write_all(&self.pending)?;
        self.pending.clear();
        self.out.flush()
    }

    /// Writes the pending lines out once they are many, so that what is held stays small.
    fn written_when_full(&mut self) -> std::io::Result<()> {
        if self.pending.len() >= 1 << 16 {
            self.out.write_all(&self.pending)?;
            self.pending.clear();
        }
        Ok(())
    }
}

impl<R: BufRead, W: Write> std::io::Read for Exchange<R, W> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::io::Read::read(&mut self.fill_buf()?, buf)?;
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead, W: Write> BufRead for Exchange<R, W> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.left == 0 {
            self.send()?;
        }
        let available = self.input.fill_buf()?;
        self.left = available.len();
        Ok(available)
    }

    fn consume(&mut self, amount: usize) {
        self.left -= amount;
        self.input.consume(amount);
    }
}

/// The buffers `score --jsonl` scores its text pairs with in the default profile, kept from one
/// line to the next.
#[derive(Default)]
pub(crate) struct TextPairs {
    normalized: [String; 2],
}

/// A line of two texts, read without copying them where they hold no escape.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TextPair<'a> {
    #[serde(borrow)]
    gold: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    pred: std::borrow::Cow<'a, str>,
}

impl TextPairs {
    /// The scores of a line `{"gold": TEXT, "pred": TEXT}` in the default profile, written to
    /// `out` as [`score_pair`] and [`each_line`] write them; false, with nothing written, for any
    /// other line (a number, a list, `gt`, a duplicate or unknown key, a text over the budgets,
    /// a line that is no JSON), which the general path reads with its messages.
    pub(crate) fn score(&mut self, line: &str, out: &mut Vec<u8>) -> bool {
        // From a `str`, checked as UTF-8 whole: from bytes serde_json checks each text apart,
        // which costs more on short texts.
        let Ok(pair) = serde_json::from_str::<TextPair>(line) else {
            return false;
        };
        // A byte count bounds the character count (the budget `oversized` checks).
        if pair.gold.len() > TEXT_CHARS || pair.pred.len() > TEXT_CHARS {
            return false;
        }
        // Texts written alike normalize alike, and equal texts need no distance (nor its steps):
        // most predictions are read right.
        let scored = if pair.gold == pair.pred {
            Ok((1.0, 1.0))
        } else {
            crate::metrics::effort::within(CASE_STEPS, || {
                score_one(&pair.gold, &pair.pred, Normalize::ALL, &mut self.normalized)
            })
        };
        let Ok((em, anls)) = scored else {
            return false;
        };
        out.extend_from_slice(b"{\"anls\":");
        // serde_json writes a float as `json!` does: the shortest text that reads back, `1.0`
        // and `0.0` for the scores most lines get.
        if anls.to_bits() == 1.0f64.to_bits() {
            out.extend_from_slice(b"1.0");
        } else if anls.to_bits() == 0.0f64.to_bits() {
            out.extend_from_slice(b"0.0");
        } else if serde_json::to_writer(&mut *out, &anls).is_err() {
            unreachable!("writing to memory does not fail");
        }
        out.extend_from_slice(if em == 1.0 {
            b",\"em\":1}\n"
        } else {
            b",\"em\":0}\n"
        });
        true
    }
}
