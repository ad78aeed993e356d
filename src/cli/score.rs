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

/// Why a line of `score --jsonl` or `calibrate --jsonl` (or the pair of `score GOLD PRED`) has no
/// scores. The message names the key or value at fault.
#[derive(Debug)]
pub enum ScoreError {
    /// The line is longer than goldgate reads ([`FILE_BYTES`]).
    LineTooLong,
    /// The line is not JSON, or JSON over a budget of a prediction.
    InvalidJson(serde_json::Error),
    /// The line has neither `gold` nor `gt`.
    NoGold,
    /// The line has no `pred`.
    NoPred,
    /// A side of the pair is over a budget of a case ([`oversized`]).
    Oversized {
        /// `gold` or `pred`.
        side: &'static str,
        /// The path below the side (`[3].description`), empty for the side itself.
        below: String,
        /// What is over the budget.
        why: String,
    },
    /// Scoring the pair needs more steps than a case gets ([`CASE_STEPS`]).
    TooMuchWork,
    /// Under `kieval`, a side that is not an object of fields.
    NotADocument {
        /// `gold` or `pred`.
        side: &'static str,
    },
    /// `any_of` beside another key, or not a non-empty list.
    BadAnyOf,
    /// `p` is not a list.
    NoConfidences,
    /// A confidence that is not a number from 0 to 1, as written.
    BadConfidence(Json),
    /// `o` is not a list.
    NoOutcomes,
    /// An outcome that is not 0 or 1 (nor a boolean), as written.
    BadOutcome(Json),
    /// `p` and `o` differ in length.
    Unpaired {
        /// The length of `p`.
        confidences: usize,
        /// The length of `o`.
        outcomes: usize,
    },
    /// `bins` is not a whole number from 1.
    BadBins,
}

impl std::fmt::Display for ScoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScoreError::LineTooLong => write!(
                f,
                "the line is longer than goldgate reads ({} MiB)",
                FILE_BYTES >> 20
            ),
            ScoreError::InvalidJson(cause) => write!(f, "invalid JSON: {cause}"),
            ScoreError::NoGold => write!(f, "the line has no `gold` key"),
            ScoreError::NoPred => write!(f, "the line has no `pred` key"),
            ScoreError::Oversized { side, below, why } => write!(f, "`{side}{below}` is {why}"),
            ScoreError::TooMuchWork => write!(
                f,
                "scoring the pair needs more work than goldgate spends on one case ({:.1} billion steps)",
                CASE_STEPS as f64 / 1e9
            ),
            ScoreError::NotADocument { side } => write!(
                f,
                "under `kieval` the {side} is a document: an object of fields"
            ),
            ScoreError::BadAnyOf => {
                write!(f, "`any_of` must be the only key, with a non-empty list")
            }
            ScoreError::NoConfidences => write!(f, "`p` must be a list of confidences"),
            ScoreError::BadConfidence(x) => {
                write!(f, "confidence {x} is not a number in [0, 1]")
            }
            ScoreError::NoOutcomes => write!(f, "`o` must be a list of 0/1 outcomes"),
            ScoreError::BadOutcome(x) => write!(f, "outcome {x} is not 0 or 1"),
            ScoreError::Unpaired {
                confidences,
                outcomes,
            } => write!(f, "`p` has {confidences} values but `o` has {outcomes}"),
            ScoreError::BadBins => write!(f, "`bins` must be a whole number from 1"),
        }
    }
}

impl std::error::Error for ScoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScoreError::InvalidJson(cause) => Some(cause),
            _ => None,
        }
    }
}

/// EM and ANLS of one gold/prediction pair as a JSON object, in a profile.
pub fn score_pair_in(profile: Profile, gold: &Json, pred: &Json) -> Result<Json, ScoreError> {
    // The budgets of a case hold for a line too (the command is a front door like any).
    for (side, value) in [("gold", gold), ("pred", pred)] {
        if let Some((below, why)) = oversized(&Value::from_json(value)) {
            return Err(ScoreError::Oversized { side, below, why });
        }
    }
    crate::metrics::effort::within(CASE_STEPS, || score_unbounded(profile, gold, pred))
        .unwrap_or(Err(ScoreError::TooMuchWork))
}

fn score_unbounded(profile: Profile, gold: &Json, pred: &Json) -> Result<Json, ScoreError> {
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
fn kieval_pair(gold: &Json, pred: &Json) -> Result<Json, ScoreError> {
    use crate::metrics::kieval::{Document, score};
    let document = |side: &'static str, json: &Json| match Value::from_json(json) {
        Value::Map(fields) => Ok(fields),
        _ => Err(ScoreError::NotADocument { side }),
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
pub fn score_pair(gold: &Json, pred: &Json) -> Result<Json, ScoreError> {
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
fn variants(gold: &Json) -> Result<Vec<Value>, ScoreError> {
    if let Some(map) = gold.as_object()
        && let Some(any_of) = map.get("any_of")
    {
        return match any_of.as_array() {
            Some(list) if map.len() == 1 && !list.is_empty() => {
                Ok(list.iter().map(Value::from_json).collect())
            }
            _ => Err(ScoreError::BadAnyOf),
        };
    }
    Ok(vec![Value::from_json(gold)])
}

/// Brier and ECE of one `{"p": [...], "o": [...], "bins": M}` line.
pub fn calibrate_line(line: &Json) -> Result<Json, ScoreError> {
    let p: Vec<f64> = line["p"]
        .as_array()
        .ok_or(ScoreError::NoConfidences)?
        .iter()
        .map(|x| {
            x.as_f64()
                .filter(|v| (0.0..=1.0).contains(v))
                .ok_or_else(|| ScoreError::BadConfidence(x.clone()))
        })
        .collect::<Result<_, _>>()?;
    let o: Vec<bool> = line["o"]
        .as_array()
        .ok_or(ScoreError::NoOutcomes)?
        .iter()
        .map(|x| match x {
            Json::Bool(b) => Ok(*b),
            n if n.as_f64() == Some(1.0) => Ok(true),
            n if n.as_f64() == Some(0.0) => Ok(false),
            other => Err(ScoreError::BadOutcome(other.clone())),
        })
        .collect::<Result<_, _>>()?;
    if p.len() != o.len() {
        return Err(ScoreError::Unpaired {
            confidences: p.len(),
            outcomes: o.len(),
        });
    }
    let bins = match &line["bins"] {
        Json::Null => 5,
        b => b
            .as_u64()
            .filter(|b| (1..=u64::from(u32::MAX)).contains(b))
            .ok_or(ScoreError::BadBins)? as u32,
    };
    Ok(json!({ "brier": brier(&p, &o), "ece": ece(&p, &o, bins) }))
}

/// Applies `f` to every JSON line of `input`, writing one line out per line in. A bad line gets
/// `{"error": ...}` and is reported on stderr; returns whether every line was good.
pub fn each_line(
    input: impl BufRead,
    out: impl Write,
    name: &str,
    f: impl Fn(&Json) -> Result<Json, ScoreError>,
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
    f: impl Fn(&Json) -> Result<Json, ScoreError>,
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
            Err(ScoreError::LineTooLong)
        } else {
            crate::base::json::prediction_json(&text)
                .map_err(ScoreError::InvalidJson)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages are those the commands wrote when their errors were strings.
    #[test]
    fn every_error_says_what_it_said() {
        let line = |text: &str| serde_json::from_str::<Json>(text).unwrap();
        let calibrate = |text: &str| calibrate_line(&line(text)).unwrap_err().to_string();
        assert_eq!(
            calibrate(r#"{"o": []}"#),
            "`p` must be a list of confidences"
        );
        assert_eq!(
            calibrate(r#"{"p": [0.5, 1.5], "o": [0, 1]}"#),
            "confidence 1.5 is not a number in [0, 1]"
        );
        assert_eq!(
            calibrate(r#"{"p": []}"#),
            "`o` must be a list of 0/1 outcomes"
        );
        assert_eq!(
            calibrate(r#"{"p": [0.5], "o": ["yes"]}"#),
            "outcome \"yes\" is not 0 or 1"
        );
        assert_eq!(
            calibrate(r#"{"p": [0.5], "o": [1, 0]}"#),
            "`p` has 1 values but `o` has 2"
        );
        assert_eq!(
            calibrate(r#"{"p": [0.5], "o": [1], "bins": 0}"#),
            "`bins` must be a whole number from 1"
        );
        let score = |profile, gold: &str, pred: &str| {
            score_pair_in(profile, &line(gold), &line(pred))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            score(Profile::Dream, r#"{"any_of": []}"#, r#""a""#),
            "`any_of` must be the only key, with a non-empty list"
        );
        assert_eq!(
            score(Profile::KiEval, r#"{"a": "b"}"#, r#""a""#),
            "under `kieval` the pred is a document: an object of fields"
        );
        let long = format!("\"{}\"", "a".repeat(TEXT_CHARS + 1));
        assert_eq!(
            score(Profile::Dream, &long, r#""a""#),
            format!(
                "`gold` is a text of {} characters, more than goldgate compares ({TEXT_CHARS})",
                TEXT_CHARS + 1
            )
        );
        assert_eq!(
            ScoreError::TooMuchWork.to_string(),
            "scoring the pair needs more work than goldgate spends on one case (1.2 billion steps)"
        );
        assert_eq!(
            ScoreError::LineTooLong.to_string(),
            "the line is longer than goldgate reads (64 MiB)"
        );
        let invalid = ScoreError::InvalidJson(serde_json::from_str::<Json>("{").unwrap_err());
        assert_eq!(
            invalid.to_string(),
            "invalid JSON: EOF while parsing an object at line 1 column 1"
        );
        assert!(std::error::Error::source(&invalid).is_some());
        assert_eq!(ScoreError::NoGold.to_string(), "the line has no `gold` key");
        assert_eq!(ScoreError::NoPred.to_string(), "the line has no `pred` key");
    }
}
