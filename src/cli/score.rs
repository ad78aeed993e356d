//! The `score` and `calibrate` commands: metrics of JSON lines, for checking goldgate against
//! other implementations.

use std::io::{BufRead, Write};

use serde_json::{Value as Json, json};

use crate::base::budget::{CASE_STEPS, FILE_BYTES, TEXT_CHARS, oversized};
use crate::base::normalize::Normalize;
use crate::base::value::Value;
use crate::evaluate::field::field_scores;
use crate::metrics::anls_star::{Tree, anls_star};
use crate::metrics::effort::levenshtein_steps;
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
    each_line_or(input, out, name, |_, _, _| None, f)
}

/// [`each_line`], offering the input to `quick` first: given the bytes at hand, which begin with a
/// line, and whether they are that whole line (the last line of the input may end without a
/// newline), it writes the line's output and returns the line's length with its newline, or
/// writes nothing and leaves the line to `f` (and to its messages).
pub(crate) fn each_line_or(
    input: impl BufRead,
    out: impl Write,
    name: &str,
    mut quick: impl FnMut(&[u8], bool, &mut Vec<u8>) -> Option<usize>,
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
        // Most lines lie whole in what the input holds: `quick` reads them there, uncopied. This
        // is what `Exchange::fill_buf` does, by its fields, so that `quick` can write `pending`.
        if io.left == 0 {
            io.send()?;
        }
        let held = io.input.fill_buf()?;
        let at_hand = held.len();
        io.left = at_hand;
        if at_hand > 0
            && let Some(length) = quick(held, false, &mut io.pending)
        {
            io.input.consume(length);
            io.left -= length;
            io.written_when_full()?;
            continue;
        }
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
        // A line that was at hand whole has been offered to `quick` already.
        let offered = line.len() <= at_hand && line.ends_with(b"\n");
        if too_long {
            skip_rest_of_line(&mut io)?;
        } else if !offered && quick(&line, true, &mut io.pending).is_some() {
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
        ok &= answer(&mut io, (name, i + 1), result)?;
        io.written_when_full()?;
    }
    io.send()?;
    Ok(ok)
}

/// Reads past the rest of a line too long to keep, without keeping it.
fn skip_rest_of_line(input: &mut impl BufRead) -> std::io::Result<()> {
    let mut rest = Vec::new();
    while !rest.ends_with(b"\n") {
        rest.clear();
        if std::io::Read::take(&mut *input, 1 << 20).read_until(b'\n', &mut rest)? == 0 {
            break;
        }
    }
    Ok(())
}

/// Writes a line's answer: its output, or its error as a line of its own and on standard error
/// (`name:line: why`). False for an error.
fn answer<I: BufRead, O: Write>(
    io: &mut Exchange<I, O>,
    (name, line): (&str, usize),
    result: Result<Json, ScoreError>,
) -> std::io::Result<bool> {
    match result {
        Ok(v) => writeln!(io.pending, "{v}")?,
        Err(e) => {
            // The lines before it first, so that a terminal shows the message in its place.
            io.send()?;
            eprintln!("error: {name}:{line}: {e}");
            writeln!(
                io.pending,
                "{}",
                json!({ "error": format!("line {line}: {e}") })
            )?;
            return Ok(false);
        }
    }
    Ok(true)
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
    /// The texts of a line that hold an escape, decoded.
    decoded: [Vec<u8>; 2],
    scores: Scores,
}

/// The buffers two texts are scored with.
#[derive(Default)]
struct Scores {
    /// Two ASCII texts normalized.
    normalized_ascii: [Vec<u8>; 2],
    /// Two texts normalized, one of them at least not ASCII.
    normalized: [Vec<char>; 2],
    distances: crate::metrics::Distances,
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

/// A text of a line, as [`Scores`] takes it: its UTF-8 is checked only where needed, and ASCII
/// needs no check.
#[derive(Clone, Copy)]
enum Text<'a> {
    Ascii(&'a [u8]),
    /// Bytes not all ASCII, their UTF-8 not checked yet.
    Unchecked(&'a [u8]),
    Utf8(&'a str),
}

impl Text<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Text::Ascii(bytes) | Text::Unchecked(bytes) => bytes,
            Text::Utf8(text) => text.as_bytes(),
        }
    }

    /// Whether the text is UTF-8 (serde_json refuses it otherwise).
    fn is_utf8(&self) -> bool {
        match self {
            Text::Unchecked(bytes) => std::str::from_utf8(bytes).is_ok(),
            _ => true,
        }
    }

    /// The text normalized (`Normalize::ALL`) into `out` as code points, through `ascii` where
    /// it is ASCII; false for a text that is not UTF-8.
    fn normalize_into(&self, out: &mut Vec<char>, ascii: &mut Vec<u8>) -> bool {
        let text = match self {
            Text::Ascii(bytes) => {
                Normalize::ALL.apply_ascii_bytes_into(bytes, ascii);
                out.clear();
                out.extend(ascii.iter().map(|&b| char::from(b)));
                return true;
            }
            Text::Unchecked(bytes) => {
                // Checked as it is decoded, in the one pass; where the pass leaves the text to
                // the steps, the steps check it whole.
                let mut chars = Utf8::from(*bytes);
                if Normalize::ALL.apply_one_pass_into(&mut chars, out) {
                    return !chars.invalid;
                }
                match std::str::from_utf8(bytes) {
                    Ok(text) => text,
                    Err(_) => return false,
                }
            }
            Text::Utf8(text) => text,
        };
        Normalize::ALL.apply_chars_into(text, out);
        true
    }
}

/// The characters of bytes read as UTF-8, as `str::from_utf8` reads them: at the first byte
/// that is not UTF-8 they end, `invalid` set.
struct Utf8<'a> {
    bytes: &'a [u8],
    invalid: bool,
}

impl<'a> From<&'a [u8]> for Utf8<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Utf8 {
            bytes,
            invalid: false,
        }
    }
}

impl Utf8<'_> {
    fn invalid(&mut self) -> Option<char> {
        self.invalid = true;
        self.bytes = &[];
        None
    }
}

impl Iterator for Utf8<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let (&first, rest) = self.bytes.split_first()?;
        if first < 0x80 {
            self.bytes = rest;
            return Some(char::from(first));
        }
        // The length of the sequence and the range of its second byte (Unicode's table 3-7:
        // no overlong form, no surrogate, nothing beyond U+10FFFF).
        let (length, second) = match first {
            0xC2..=0xDF => (2, 0x80..=0xBF),
            0xE0 => (3, 0xA0..=0xBF),
            0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80..=0xBF),
            0xED => (3, 0x80..=0x9F),
            0xF0 => (4, 0x90..=0xBF),
            0xF1..=0xF3 => (4, 0x80..=0xBF),
            0xF4 => (4, 0x80..=0x8F),
            _ => return self.invalid(),
        };
        let Some(sequence) = self.bytes.get(..length) else {
            return self.invalid();
        };
        if !second.contains(&sequence[1]) || sequence[2..].iter().any(|&b| b & 0xC0 != 0x80) {
            return self.invalid();
        }
        let code = sequence[1..]
            .iter()
            .fold(u32::from(first) & (0x7F >> length), |code, &b| {
                code << 6 | u32::from(b & 0x3F)
            });
        self.bytes = &self.bytes[length..];
        char::from_u32(code).or_else(|| self.invalid())
    }
}

impl TextPairs {
    /// The scores of the line `held` begins with, when it is `{"gold": TEXT, "pred": TEXT}`,
    /// written to `out` as [`score_pair`] and [`each_line`] write them in the default profile;
    /// the line's length (with its newline). `None`, with nothing written, for any other line (a
    /// number, a list, `gt`, a duplicate or unknown key, a text over the budgets, a line that is
    /// no JSON), which the general path reads with its messages, and for a line that `held` does
    /// not hold whole: `whole` says that `held` is the line, with or without a newline.
    pub(crate) fn score(&mut self, held: &[u8], whole: bool, out: &mut Vec<u8>) -> Option<usize> {
        if let Some(([gold, pred], length)) = read_pair(held, whole, &mut self.decoded) {
            return self.scores.write(gold, pred, out).then_some(length);
        }
        // Any other way of writing two texts (a key with an escape, say) is read by serde_json.
        let length = if whole {
            held.len()
        } else {
            held.iter().position(|&b| b == b'\n')? + 1
        };
        let line = std::str::from_utf8(&held[..length]).ok()?;
        // serde_json reads a struct from a list too (`["a", "b"]`): only an object is a pair.
        if !line
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .starts_with('{')
        {
            return None;
        }
        let pair = serde_json::from_str::<TextPair>(line).ok()?;
        self.scores
            .write(Text::Utf8(&pair.gold), Text::Utf8(&pair.pred), out)
            .then_some(length)
    }
}

impl Scores {
    /// Writes the scores of two texts, or nothing and false where the general path must score
    /// them (over the budgets).
    fn write(&mut self, gold: Text, pred: Text, out: &mut Vec<u8>) -> bool {
        // A byte count bounds the character count (the budget `oversized` checks).
        if gold.bytes().len() > TEXT_CHARS || pred.bytes().len() > TEXT_CHARS {
            return false;
        }
        // Texts written alike normalize alike, and equal texts need no distance (nor its steps):
        // most predictions are read right.
        // The one distance is the only work the general path counts here: it is within the
        // steps of a case exactly when `effort::within(CASE_STEPS, ..)` lets it finish.
        let bounded = |a: usize, b: usize| levenshtein_steps(a, b) < CASE_STEPS;
        // The same bound on texts as code points, whose UTF-8 is at most 4 bytes a character.
        let bounded_chars = |a: &[char], b: &[char]| {
            let bytes = |text: &[char]| text.iter().map(|c| c.len_utf8()).sum();
            bounded(a.len() * 4, b.len() * 4) || bounded(bytes(a), bytes(b))
        };
        let (em, anls) = if gold.bytes() == pred.bytes() {
            // One check of the UTF-8 serves both.
            if !gold.is_utf8() {
                return false;
            }
            (true, 1.0)
        } else if let (Text::Ascii(gold), Text::Ascii(pred)) = (gold, pred) {
            let [a, b] = &mut self.normalized_ascii;
            Normalize::ALL.apply_ascii_bytes_into(gold, a);
            Normalize::ALL.apply_ascii_bytes_into(pred, b);
            if a == b {
                (true, 1.0)
            } else if !bounded(a.len(), b.len()) {
                return false;
            } else {
                (false, self.distances.anls_ascii(a, b))
            }
        } else {
            let [a, b] = &mut self.normalized;
            let ascii = &mut self.normalized_ascii[0];
            if !gold.normalize_into(a, ascii) || !pred.normalize_into(b, ascii) {
                return false;
            }
            if a == b {
                (true, 1.0)
            } else if !bounded_chars(a, b) {
                return false;
            } else {
                (false, self.distances.anls_chars(a, b))
            }
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
        out.extend_from_slice(if em { b",\"em\":1}\n" } else { b",\"em\":0}\n" });
        true
    }
}

/// Reads the line `held` begins with as `{"gold": TEXT, "pred": TEXT}` (the keys in either order,
/// JSON white space between the parts) as serde_json reads it, but for the UTF-8 of the texts,
/// which is checked only where they are used: the two texts and the line's length with its
/// newline. `None` for any other line, which serde_json then reads: a key or value written
/// otherwise, white space that is a newline within the line, an escape serde_json refuses (a
/// lone surrogate), a line `held` does not hold whole (`whole`: `held` is the line, ending with
/// its newline or not).
///
/// The texts are the line's bytes where they hold no escape, else decoded into `decoded`.
fn read_pair<'a>(
    held: &'a [u8],
    whole: bool,
    decoded: &'a mut [Vec<u8>; 2],
) -> Option<([Text<'a>; 2], usize)> {
    let mut at = 0;
    let mut texts: [Option<Written>; 2] = [None, None];
    // Moves past `token` and the JSON white space before it (but the newline, which ends the
    // line); false where something else comes first.
    let token = |at: &mut usize, token: u8| loop {
        match held.get(*at) {
            Some(&b) if b == token => {
                *at += 1;
                return true;
            }
            Some(b' ' | b'\t' | b'\r') => *at += 1,
            _ => return false,
        }
    };
    if !token(&mut at, b'{') {
        return None;
    }
    for n in 0..2 {
        if !token(&mut at, b'"') {
            return None;
        }
        let k = match held.get(at..at + 5)? {
            b"gold\"" => 0,
            b"pred\"" => 1,
            _ => return None,
        };
        if texts[k].is_some() {
            return None;
        }
        at += 5;
        if !token(&mut at, b':') || !token(&mut at, b'"') {
            return None;
        }
        texts[k] = Some(read_text(held, &mut at, &mut decoded[k])?);
        if !token(&mut at, if n == 0 { b',' } else { b'}' }) {
            return None;
        }
    }
    // The line ends at its newline, or with what is held when that is the whole line.
    if !(token(&mut at, b'\n') || (whole && at == held.len())) {
        return None;
    }
    let length = at;
    let [Some(gold), Some(pred)] = texts else {
        return None;
    };
    let [gold_decoded, pred_decoded] = decoded;
    let text = |written: Written, decoded: &'a Vec<u8>| {
        let bytes = match written.within {
            Some((start, end)) => &held[start..end],
            None => decoded,
        };
        if written.ascii {
            Text::Ascii(bytes)
        } else {
            Text::Unchecked(bytes)
        }
    };
    Some(([text(gold, gold_decoded), text(pred, pred_decoded)], length))
}

/// A JSON string as read from a line.
#[derive(Clone, Copy)]
struct Written {
    /// Where its text lies in the line (`start..end`); `None` when it holds an escape, its text
    /// then decoded apart.
    within: Option<(usize, usize)>,
    /// Whether its text is ASCII (no UTF-8 to check).
    ascii: bool,
}

/// Reads a JSON string from `at`, just past its opening quote, to just past its closing quote,
/// its text decoded into `decoded` when it holds an escape (the UTF-8 is not checked here);
/// `None` for a string serde_json refuses or that goes beyond `held`.
fn read_text(held: &[u8], at: &mut usize, decoded: &mut Vec<u8>) -> Option<Written> {
    let start = *at;
    let mut high = plain_run(held, at);
    match held.get(*at)? {
        b'"' => {
            *at += 1;
            return Some(Written {
                within: Some((start, *at - 1)),
                ascii: high == 0,
            });
        }
        b'\\' => {}
        // serde_json refuses a control character written as it is.
        _ => return None,
    }
    decoded.clear();
    decoded.extend_from_slice(&held[start..*at]);
    loop {
        // At a backslash.
        let escape = *held.get(*at + 1)?;
        *at += 2;
        let c = match escape {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => read_unicode_escape(held, at)?,
            _ => return None,
        };
        high |= u64::from(u32::from(c).min(0x80));
        decoded.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        let run = *at;
        high |= plain_run(held, at);
        decoded.extend_from_slice(&held[run..*at]);
        match held.get(*at)? {
            b'"' => {
                *at += 1;
                return Some(Written {
                    within: None,
                    ascii: high == 0,
                });
            }
            b'\\' => {}
            _ => return None,
        }
    }
}

/// Moves `at` past the bytes of a JSON string that stand for themselves, to the next quote,
/// backslash or control character (or the end of `held`); 0 when those bytes are ASCII. Eight
/// bytes at a time.
fn plain_run(held: &[u8], at: &mut usize) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte that is 0 (exact up to the first such byte: a borrow only
    // moves upwards).
    let zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    let mut high = 0;
    while let Some(chunk) = held.get(*at..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*chunk);
        let stops = zero(word ^ (ONES * u64::from(b'"')))
            | zero(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGHS);
        if stops == 0 {
            high |= word;
            *at += 8;
            continue;
        }
        let plain = stops.trailing_zeros() / 8;
        high |= word & ((1u64 << (8 * plain)) - 1);
        *at += plain as usize;
        return high & HIGHS;
    }
    while let Some(&b) = held.get(*at) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        high |= u64::from(b);
        *at += 1;
    }
    high & HIGHS
}

/// The character of a `\uXXXX` escape from `at` (just past its `u`), two escapes for a
/// character beyond U+FFFF; `None` for a lone surrogate, which serde_json refuses in a string.
fn read_unicode_escape(held: &[u8], at: &mut usize) -> Option<char> {
    let hex = |at: &mut usize| -> Option<u32> {
        let digits = held.get(*at..*at + 4)?;
        *at += 4;
        digits
            .iter()
            .try_fold(0, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))
    };
    let first = hex(at)?;
    if !(0xD800..0xDC00).contains(&first) {
        // A trailing surrogate alone is `None` here.
        return char::from_u32(first);
    }
    if held.get(*at..*at + 2)? != b"\\u" {
        return None;
    }
    *at += 2;
    let second = hex(at)?;
    if !(0xDC00..0xE000).contains(&second) {
        return None;
    }
    char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The general path of `score --jsonl` in the default profile, as `cli::score_lines` gives it.
    fn general(j: &Json) -> Result<Json, ScoreError> {
        let gold = j
            .get("gold")
            .or_else(|| j.get("gt"))
            .ok_or(ScoreError::NoGold)?;
        let pred = j.get("pred").ok_or(ScoreError::NoPred)?;
        score_pair_in(Profile::Dream, gold, pred)
    }

    /// What `score --jsonl` writes for `input` read `capacity` bytes at a time, with the quick
    /// path or without it.
    fn scored(input: &[u8], capacity: usize, quick: bool) -> (String, bool) {
        let reader = std::io::BufReader::with_capacity(capacity, input);
        let mut out = Vec::new();
        let mut pairs = TextPairs::default();
        let ok = if quick {
            each_line_or(
                reader,
                &mut out,
                "test",
                |held, whole, out| pairs.score(held, whole, out),
                general,
            )
        } else {
            each_line(reader, &mut out, "test", general)
        };
        (String::from_utf8(out).unwrap(), ok.unwrap())
    }

    /// The texts serde_json reads from `line` as the quick path did before it read lines itself.
    fn by_serde(line: &[u8]) -> Option<(String, String)> {
        let pair = serde_json::from_str::<TextPair>(std::str::from_utf8(line).ok()?).ok()?;
        Some((pair.gold.into_owned(), pair.pred.into_owned()))
    }

    /// The texts the reader reads from `line` (a whole line), and the length it says the line has.
    fn by_reader(line: &[u8]) -> Option<((String, String), usize)> {
        let mut decoded = [Vec::new(), Vec::new()];
        let (texts, length) = read_pair(line, true, &mut decoded)?;
        // A text that is not UTF-8 is left to the general path.
        let owned = |text: Text| String::from_utf8(text.bytes().to_vec()).ok();
        Some(((owned(texts[0])?, owned(texts[1])?), length))
    }

    /// Lines written every way a line of two texts can be, and ways it cannot.
    const TRICKY: &[&[u8]] = &[
        br#"{"gold": "Invoice", "pred": "invoice"}"#,
        br#"{"pred": "invoice", "gold": "Invoice"}"#,
        b"{\"gold\":\"a\",\"pred\":\"b\"}",
        b" \t{ \"gold\" :\t\"a\" , \"pred\"\r: \"b\" } \t\r",
        br#"{"gold": "Fran\u00e7ois", "pred": "FRAN\u00C7OIS"}"#,
        br#"{"gold": "\ud83d\ude00 smile", "pred": "\uD83D\uDE00"}"#,
        br#"{"gold": "\ud83d", "pred": "x"}"#,
        br#"{"gold": "\ude00", "pred": "x"}"#,
        br#"{"gold": "\ud83d\u0041", "pred": "x"}"#,
        br#"{"gold": "\ud83dx", "pred": "x"}"#,
        br#"{"gold": "\u00e", "pred": "x"}"#,
        br#"{"gold": "\u00g9", "pred": "x"}"#,
        br#"{"gold": "\x41", "pred": "x"}"#,
        br#"{"gold": "a\"b\\c\/d\be\ff\ng\rh\ti", "pred": "a\"b"}"#,
        br#"{"gold": "\u0000", "pred": "\u001f"}"#,
        b"{\"gold\": \"tab\tin\", \"pred\": \"x\"}",
        b"{\"gold\": \"del\x7f\", \"pred\": \"x\"}",
        "{\"gold\": \"line\u{2028}sep\u{85}\", \"pred\": \"é日😀\"}".as_bytes(),
        br#"{"gold": "a", "pred": "b", "x": 1}"#,
        br#"{"gold": "a", "gold": "b"}"#,
        br#"{"gold": "a", "pred": "b", "pred": "c"}"#,
        br#"{"gt": "a", "pred": "b"}"#,
        br#"{"gol\u0064": "a", "pred": "b"}"#,
        br#"{"gold": 1234, "pred": "1235"}"#,
        br#"{"gold": "1234", "pred": 1235}"#,
        br#"{"gold": null, "pred": "x"}"#,
        br#"{"gold": ["a", "b"], "pred": "b"}"#,
        br#"{"gold": {"any_of": ["a"]}, "pred": "a"}"#,
        br#"{"gold": "a"}"#,
        br#"{"pred": "a"}"#,
        br#"{}"#,
        br#"{"gold": "a", "pred": "b",}"#,
        br#"{"gold": "a" "pred": "b"}"#,
        br#"{"gold": "a", "pred": "b"} x"#,
        br#"{"gold": "a", "pred": "b"}}"#,
        br#"{"gold": "a", "pred": "b""#,
        br#"{"gold": "a, "pred": "b"}"#,
        br#"["gold", "pred"]"#,
        br#""gold""#,
        b"\xef\xbb\xbf{\"gold\": \"a\", \"pred\": \"b\"}",
        b"{\"gold\": \"caf\xe9\", \"pred\": \"cafe\"}",
        b"{\"gold\": \"caf\xc3\", \"pred\": \"cafe\"}",
        b"{\"gold\": \"\xed\xa0\x80\", \"pred\": \"x\"}",
        b"{\"gold\": \"a\\u00e9\xff\", \"pred\": \"x\"}",
        b"{\"gold\": \"\xc3\\u00a9\", \"pred\": \"x\"}",
        b"",
        b"   ",
        b"\r",
        b"{\"gold\": \"a\",\n\"pred\": \"b\"}",
        b"{\"gold\": \"a\x0c\", \"pred\": \"b\"}",
        "{\"gold\": \"a\", \"pred\": \"b\"}\u{a0}".as_bytes(),
    ];

    #[test]
    fn the_reader_reads_what_serde_json_reads_and_nothing_else() {
        for line in TRICKY {
            for end in [&b""[..], b"\n", b"\r\n"] {
                let line = [line, end].concat();
                if let Some((texts, length)) = by_reader(&line) {
                    assert_eq!(length, line.len(), "{}", line.escape_ascii());
                    assert_eq!(Some(texts), by_serde(&line), "{}", line.escape_ascii());
                }
            }
        }
        // The common lines are read.
        for line in &TRICKY[..6] {
            assert!(by_reader(line).is_some(), "{}", line.escape_ascii());
        }
        assert!(by_reader(TRICKY[13]).is_some());
        // serde_json reads a struct from a list too: the quick path takes only an object.
        assert!(by_serde(br#"["gold", "pred"]"#).is_some());
        let mut pairs = TextPairs::default();
        assert_eq!(
            pairs.score(br#"["gold", "pred"]"#, true, &mut Vec::new()),
            None
        );
    }

    #[test]
    fn the_tricky_lines_score_as_the_general_path_scores_them() {
        let mut input = Vec::new();
        for line in TRICKY {
            input.extend_from_slice(line);
            input.push(b'\n');
        }
        // The last line without its newline, then with CRLF.
        input.extend_from_slice(TRICKY[1]);
        for capacity in [1, 7, 64, 1 << 16] {
            assert_eq!(
                scored(&input, capacity, true),
                scored(&input, capacity, false)
            );
        }
        let crlf = input.iter().fold(Vec::new(), |mut crlf, &b| {
            if b == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(b);
            crlf
        });
        assert_eq!(scored(&crlf, 1 << 16, true), scored(&crlf, 1 << 16, false));
    }

    /// A character of a text, as a test writes it.
    fn character() -> impl Strategy<Value = char> {
        prop_oneof![
            4 => proptest::sample::select(vec!['a', 'B', 'z', '0', ' ', '-', '.']),
            2 => proptest::sample::select(vec![
                'é', 'É', 'ß', 'ø', 'İ', 'Σ', '日', '😀', '\u{2028}', '\u{85}', '\u{a0}', '\u{301}',
                '"', '\\', '/', '\t', '\n', '\u{0}', '\u{1f}', '\u{7f}', '\u{ffff}', '\u{10ffff}',
            ]),
            1 => any::<char>(),
        ]
    }

    /// A text written as JSON: each character as it is, as a short escape, or as `\u` escapes;
    /// now and then written wrong (a raw control character is wrong too).
    fn written_text() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec((character(), 0..8u8), 0..12).prop_map(|chars| {
            let mut out = b"\"".to_vec();
            for (c, how) in chars {
                match (c, how) {
                    ('"', 0..=5) => out.extend_from_slice(b"\\\""),
                    ('\\', 0..=5) => out.extend_from_slice(b"\\\\"),
                    ('\n', 0..=5) => out.extend_from_slice(b"\\n"),
                    ('\t', 0..=3) => out.extend_from_slice(b"\\t"),
                    ('/', 0..=3) => out.extend_from_slice(b"\\/"),
                    (_, 0..=3) => out.extend_from_slice(c.to_string().as_bytes()),
                    (_, 4..=6) => {
                        for unit in c.encode_utf16(&mut [0; 2]) {
                            let hex = if how == 5 {
                                format!("\\u{unit:04X}")
                            } else {
                                format!("\\u{unit:04x}")
                            };
                            out.extend_from_slice(hex.as_bytes());
                        }
                    }
                    // Wrong: a lone surrogate, a short escape, a byte that is not UTF-8.
                    (_, _) => out.extend_from_slice(
                        [
                            &b"\\ud800"[..],
                            b"\\udc00",
                            b"\\u12",
                            b"\\q",
                            b"\xff",
                            b"\xc3",
                        ][c as usize % 6],
                    ),
                }
            }
            out.push(b'"');
            out
        })
    }

    /// A line of two texts as one writes it, or nearly.
    fn written_line() -> impl Strategy<Value = Vec<u8>> {
        let space = proptest::sample::select(vec!["", "", " ", "  ", "\t", "\r", "\n"]);
        let key = proptest::sample::select(vec![
            "\"gold\"",
            "\"pred\"",
            "\"gold\"",
            "\"pred\"",
            "\"gt\"",
            "\"x\"",
            "\"gol\\u0064\"",
            "gold",
        ]);
        let value = prop_oneof![
            8 => written_text(),
            1 => proptest::sample::select(vec!["1234", "null", "[\"a\"]", "{\"any_of\": [\"a\"]}", "\"a\" \"b\""])
                .prop_map(|v| v.as_bytes().to_vec()),
        ];
        let member = (space.clone(), key, space.clone(), value, space.clone());
        (
            space.clone(),
            proptest::collection::vec(member, 0..4),
            space,
            any::<bool>(),
            0..20u8,
        )
            .prop_map(|(before, members, after, pred_first, shape)| {
                let mut members = members;
                // Most lines are the two texts, in either order.
                if shape < 14 && members.len() >= 2 {
                    members.truncate(2);
                    let order = if pred_first {
                        ["\"pred\"", "\"gold\""]
                    } else {
                        ["\"gold\"", "\"pred\""]
                    };
                    members[0].1 = order[0];
                    members[1].1 = order[1];
                }
                let mut line = before.as_bytes().to_vec();
                line.push(b'{');
                for (i, (s1, key, s2, value, s3)) in members.iter().enumerate() {
                    if i > 0 {
                        line.push(if shape == 19 { b';' } else { b',' });
                    }
                    line.extend_from_slice(s1.as_bytes());
                    line.extend_from_slice(key.as_bytes());
                    line.extend_from_slice(s2.as_bytes());
                    line.push(b':');
                    line.extend_from_slice(value);
                    line.extend_from_slice(s3.as_bytes());
                }
                line.push(b'}');
                line.extend_from_slice(after.as_bytes());
                line
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn the_reader_agrees_with_serde_json_on_any_line(line in written_line(), end in 0..3usize) {
            // The first line of what was written (white space may be a newline), with an end.
            let line = match line.iter().position(|&b| b == b'\n') {
                Some(newline) => line[..=newline].to_vec(),
                None => [&line[..], [&b""[..], b"\n", b"\r\n"][end]].concat(),
            };
            if let Some((texts, length)) = by_reader(&line) {
                prop_assert_eq!(length, line.len());
                prop_assert_eq!(Some(texts), by_serde(&line));
            } else {
                // What the reader leaves, serde_json refuses, or reads from a line the reader
                // does not take (a key with an escape).
                prop_assert!(
                    by_serde(&line).is_none() || line.windows(9).any(|w| w == b"gol\\u0064")
                );
            }
        }

        #[test]
        fn any_lines_score_as_the_general_path_scores_them(
            lines in proptest::collection::vec(written_line(), 1..12),
            capacity in prop_oneof![1..80usize, Just(1 << 16)],
            last_newline in any::<bool>(),
        ) {
            let mut input = lines.join(&b'\n');
            if last_newline {
                input.push(b'\n');
            }
            prop_assert_eq!(scored(&input, capacity, true), scored(&input, capacity, false));
        }
    }

    /// What [`Utf8`] reads from `bytes`: its characters, or `None` where they are not UTF-8.
    fn decoded(bytes: &[u8]) -> Option<String> {
        let mut chars = Utf8::from(bytes);
        let text: String = chars.by_ref().collect();
        (!chars.invalid).then_some(text)
    }

    #[test]
    fn utf8_is_read_as_the_standard_library_reads_it() {
        // Every sequence of one and two bytes, and of three and four from the edges of each range.
        let edges = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
            0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ];
        let mut cases: Vec<Vec<u8>> = (0..=0xFFFFu32)
            .map(|n| n.to_be_bytes()[2..].to_vec())
            .collect();
        cases.extend((0..=0xFFu8).map(|b| vec![b]));
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    cases.push(vec![a, b, c]);
                    for &d in &edges {
                        cases.push(vec![a, b, c, d]);
                    }
                }
            }
        }
        for bytes in cases {
            let want = std::str::from_utf8(&bytes).ok().map(str::to_owned);
            assert_eq!(decoded(&bytes), want, "{}", bytes.escape_ascii());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]
        #[test]
        fn any_bytes_are_read_as_the_standard_library_reads_them(
            bytes in proptest::collection::vec(prop_oneof![any::<u8>(), 0x80u8..0xC0, 0xC0u8..], 0..16),
            text in "\\PC{0,8}",
        ) {
            let want = std::str::from_utf8(&bytes).ok().map(str::to_owned);
            prop_assert_eq!(decoded(&bytes), want);
            prop_assert_eq!(decoded(text.as_bytes()), Some(text));
        }
    }

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
