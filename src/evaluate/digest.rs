//! The gold set's digest: a SHA-256 over the gold values and the rules a test is judged by, as
//! loaded. A score is only comparable with another computed on the same gold, so every report
//! carries the digest of each test and of the run; the run's history and `report --compare` say
//! when two runs differ in it.
//!
//! The digest is taken over the loaded model, never over the files' bytes: written text is kept
//! (`0173` is not `173`), but a mapping's keys are taken in name order and places in files
//! (lines, columns, which file a rule comes from) are left out, so that reformatting YAML or
//! reordering a mapping's keys changes nothing, and changing a gold value, a rule, a threshold
//! or a rubric changes it.

use sha2::{Digest, Sha256};

use crate::base::value::Value;
use crate::model::case::{Case, Comparison, Correctness, FieldRule, GoldField};
use crate::model::metric::Threshold;
use crate::model::rubric::{Check, Probe, Rubric};
use crate::model::suite::Aggregate;

/// The canonical text of what is digested: every token written so that no two different
/// sequences of tokens read alike (texts quoted as JSON strings, lists and maps bracketed).
/// Tokens are gathered in one buffer and hashed once: a run digests every case, and hashing
/// each of a case's hundreds of small tokens as it came cost more than the hashing itself.
struct Canon(Vec<u8>);

/// A value [`Canon::shared`] wrote, with its text.
type Written = (Box<dyn std::any::Any>, Vec<u8>);

thread_local! {
    /// The last value of each type [`Canon::shared`] wrote.
    static LAST_WRITTEN: std::cell::RefCell<Vec<Written>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl std::io::Write for Canon {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::fmt::Write for Canon {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.extend_from_slice(text.as_bytes());
        Ok(())
    }
}

impl Canon {
    fn new(kind: &str) -> Canon {
        let mut canon = Canon(Vec::with_capacity(512));
        canon.key(kind);
        canon
    }

    /// A key or a text, quoted.
    fn key(&mut self, text: &str) -> &mut Canon {
        // Most texts hold nothing JSON escapes (a quote, a backslash, a control character):
        // written as it writes them, without its writer.
        if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            self.0.push(b'"');
            self.0.extend_from_slice(text.as_bytes());
            self.0.extend_from_slice(b"\" ");
        } else {
            // Writing a `str` as JSON into a buffer cannot fail.
            let _ = serde_json::to_writer(&mut *self, text);
            self.0.push(b' ');
        }
        self
    }

    /// A number, in its shortest form that reads back the same.
    fn number(&mut self, n: f64) -> &mut Canon {
        let _ = std::fmt::Write::write_fmt(self, format_args!("{n:?} "));
        self
    }

    /// Anything whose `Debug` form holds no place in a file (a profile, a comparison rule).
    fn debug(&mut self, thing: &impl std::fmt::Debug) -> &mut Canon {
        let _ = std::fmt::Write::write_fmt(self, format_args!("{thing:?} "));
        self
    }

    /// [`debug`](Self::debug) of a rule most of a run's fields or cases share (a field's
    /// comparison, a normalization): its text is written once per thread and copied while the
    /// same rule comes again. Writing it field by field was a fifth of the digest. Only for
    /// types whose equal values write alike (`Eq`: no float, where `-0.0 == 0.0`).
    fn shared<T: std::fmt::Debug + Eq + Clone + 'static>(&mut self, thing: &T) -> &mut Canon {
        LAST_WRITTEN.with_borrow_mut(|last| {
            let at = last.iter().position(|(seen, _)| seen.is::<T>());
            if let Some(i) = at
                && last[i].0.downcast_ref::<T>() == Some(thing)
            {
                self.0.extend_from_slice(&last[i].1);
                return;
            }
            let start = self.0.len();
            self.debug(thing);
            let entry: Written = (Box::new(thing.clone()), self.0[start..].to_vec());
            match at {
                Some(i) => last[i] = entry,
                None => last.push(entry),
            }
        });
        self
    }

    fn open(&mut self, bracket: &str) -> &mut Canon {
        self.0.extend_from_slice(bracket.as_bytes());
        self
    }

    /// A list of items each digested alone, sorted: a mapping whose written order means nothing.
    fn unordered(&mut self, mut items: Vec<String>) -> &mut Canon {
        items.sort();
        self.open("{");
        for item in &items {
            self.key(item);
        }
        self.open("}")
    }

    /// [`unordered`](Self::unordered) of digests' hex digits (which no key escapes).
    fn unordered_digests(&mut self, mut digests: Vec<[u8; 64]>) -> &mut Canon {
        digests.sort_unstable();
        self.open("{");
        for digits in &digests {
            self.0.push(b'"');
            self.0.extend_from_slice(digits);
            self.0.extend_from_slice(b"\" ");
        }
        self.open("}")
    }

    fn finish(self) -> String {
        hex(&Sha256::digest(&self.0).into())
    }

    fn finish_kept(self) -> KeptDigest {
        KeptDigest::Sha256(Sha256::digest(&self.0).into())
    }
}

/// A test's digest as a run keeps it to its end: SHA-256's 32 bytes rather than its 64 hex
/// digits in a string of their own (6 MB at 100,000 cases). A digest read back from a record
/// that is not 64 lowercase hex digits keeps its text, as written.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum KeptDigest {
    Sha256([u8; 32]),
    Text(Box<str>),
}

impl KeptDigest {
    /// The digest a record writes.
    pub fn of(text: &str) -> KeptDigest {
        let nibble = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let mut bytes = [0u8; 32];
        let read = text.len() == 64
            && text
                .as_bytes()
                .chunks(2)
                .zip(&mut bytes)
                .all(|(pair, byte)| match (nibble(pair[0]), nibble(pair[1])) {
                    (Some(high), Some(low)) => {
                        *byte = high << 4 | low;
                        true
                    }
                    _ => false,
                });
        if read {
            KeptDigest::Sha256(bytes)
        } else {
            KeptDigest::Text(text.into())
        }
    }
}

impl std::fmt::Display for KeptDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeptDigest::Sha256(bytes) => f.write_str(&hex(bytes)),
            KeptDigest::Text(text) => f.write_str(text),
        }
    }
}

fn hex(digest: &[u8; 32]) -> String {
    hex_digits(digest).into_iter().map(char::from).collect()
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// A SHA-256 digest's 64 hex digits, as [`hex`] writes them, without a string of their own.
fn hex_digits(digest: &[u8; 32]) -> [u8; 64] {
    let mut digits = [0u8; 64];
    for (pair, b) in digits.chunks_exact_mut(2).zip(digest) {
        pair[0] = HEX_DIGITS[usize::from(b >> 4)];
        pair[1] = HEX_DIGITS[usize::from(b & 0xf)];
    }
    digits
}

/// The digest of a case test: its gold (values, variants, places, field rules), its critical
/// fields, normalization, profile and scoring, rubrics, thresholds, `pass` rule and
/// `target_error`.
pub fn case_digest(case: &Case) -> KeptDigest {
    let mut canon = Canon::new("case");
    canon.key("gold");
    match &case.gold {
        None => canon.open("none "),
        Some(fields) => canon.unordered_digests(gold_fields(fields)),
    };
    canon.key("gold_json");
    match &case.gold_json {
        None => {
            canon.open("none ");
        }
        Some(json) => json_value(&mut canon, json),
    }
    canon
        .key("critical")
        .unordered(case.critical.clone())
        .key("normalize")
        .shared(&case.normalize)
        .key("profile")
        .debug(&case.profile)
        .key("scoring")
        .debug(&case.scoring)
        .key("pass")
        .debug(&case.pass)
        .key("grounding")
        .debug(&case.grounding)
        .key("kieval_keys")
        .debug(&case.kieval_keys)
        .key("rubrics")
        .open("[");
    for rubric in &case.rubrics {
        rubric_part(&mut canon, rubric);
    }
    canon
        .open("]")
        .key("thresholds")
        .unordered(case.thresholds.iter().map(threshold).collect());
    // The bound automatic acceptance is held to decides the run's advice as a threshold does;
    // the default writes nothing, so that digests of earlier versions stay what they were.
    if case.target_error != crate::metrics::acceptance::DEFAULT_TARGET_ERROR {
        canon.key("target_error").number(case.target_error);
    }
    canon.finish_kept()
}

/// The digest of an aggregate test: its suite's bounds for the pipeline, its slices' bounds and
/// its regression gate's rule.
pub fn aggregate_digest(aggregate: &Aggregate, pipeline: Option<&str>) -> String {
    let mut canon = Canon::new("aggregate");
    canon
        .key("bounds")
        .unordered(aggregate.bounds(pipeline).iter().map(threshold).collect());
    let slices = aggregate
        .slices
        .iter()
        .map(|s| {
            let mut part = Canon::new("slice");
            part.key(&s.tag)
                .key(&s.value)
                .unordered(s.thresholds.iter().map(threshold).collect());
            part.finish()
        })
        .collect();
    canon.key("slices").unordered(slices).key("gate");
    match &aggregate.gate {
        None => canon.open("none "),
        Some(g) => canon
            .debug(&g.metric)
            .number(g.min_effect)
            .number(g.confidence),
    };
    canon.finish()
}

/// The digest of a run: over each test's name and digest, in name order, so that a run split
/// over processes has the digest of the same run in one. `None` when no test has one.
pub fn run_digest<'a, D: std::fmt::Display + ?Sized + 'a>(
    tests: impl IntoIterator<Item = (&'a str, &'a D)>,
) -> Option<String> {
    let mut tests: Vec<(&str, &D)> = tests.into_iter().collect();
    if tests.is_empty() {
        return None;
    }
    // As (name, digest) texts are ordered: names first, digests only where names tie.
    tests.sort_unstable_by(|a, b| {
        a.0.cmp(b.0)
            .then_with(|| a.1.to_string().cmp(&b.1.to_string()))
    });
    let mut canon = Canon::new("run");
    for (name, digest) in tests {
        canon.key(name).key(&digest.to_string());
    }
    Some(canon.finish())
}

/// The short form a page or a terminal shows: the first 12 hex digits, as git shortens a commit.
pub fn short(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}

/// The digest of each of a case's gold fields (the case's digest sorts them), each field's
/// text written into one buffer in turn: a case has tens of fields, and a buffer and a string
/// of its own for each was a third of the digest.
fn gold_fields(fields: &[GoldField]) -> Vec<[u8; 64]> {
    let mut canon = Canon(Vec::with_capacity(512));
    fields
        .iter()
        .map(|field| {
            canon.0.clear();
            canon.key("field");
            gold_field(&mut canon, field);
            hex_digits(&Sha256::digest(&canon.0).into())
        })
        .collect()
}

fn gold_field(canon: &mut Canon, field: &GoldField) {
    canon.key(&field.name).open("[");
    for variant in &field.variants {
        value(canon, variant);
    }
    canon.open("]");
    match field.rule {
        // The rules without a number (the default's text and exact match among them).
        FieldRule {
            // Each field named: a number added to a kind of rule fails to compile here.
            compare: Comparison::Text | Comparison::Identifier | Comparison::Date { day_first: _ },
            correct: Correctness::Exact,
        } => canon.shared(&RuleWithoutNumber(field.rule)),
        _ => canon.debug(&field.rule),
    };
    if field.path_rules.is_empty() {
        canon.open("{}");
    } else {
        let rules = field
            .path_rules
            .iter()
            .map(|(path, rule)| format!("{path} {rule:?}"))
            .collect();
        canon.unordered(rules);
    }
    match &field.place {
        // (`None`, as `Debug` writes it, without its machinery: most fields have no place.)
        None => canon.open("None "),
        Some(_) => canon.debug(&field.place),
    };
}

/// A field rule that holds no number: its equal values write alike.
#[derive(Clone, PartialEq)]
struct RuleWithoutNumber(FieldRule);

impl Eq for RuleWithoutNumber {}

impl std::fmt::Debug for RuleWithoutNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

fn value(canon: &mut Canon, value: &Value) {
    match value {
        Value::Null => {
            canon.open("null ");
        }
        Value::Text(text) => {
            canon.key(text);
        }
        Value::List(items) => {
            canon.open("[");
            for item in items {
                self::value(canon, item);
            }
            canon.open("]");
        }
        Value::Map(entries) => {
            let mut sorted: Vec<&(String, Value)> = entries.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            canon.open("{");
            for (key, item) in sorted {
                canon.key(key);
                self::value(canon, item);
            }
            canon.open("}");
        }
    }
}

fn json_value(canon: &mut Canon, json: &serde_json::Value) {
    use serde_json::Value as Json;
    match json {
        Json::Null => canon.open("null "),
        Json::Bool(b) => canon.debug(b),
        Json::Number(n) => canon.open("#").key(&n.to_string()),
        Json::String(s) => canon.key(s),
        Json::Array(items) => {
            canon.open("[");
            for item in items {
                json_value(canon, item);
            }
            canon.open("]")
        }
        Json::Object(map) => {
            let mut sorted: Vec<(&String, &Json)> = map.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            canon.open("{");
            for (key, item) in sorted {
                canon.key(key);
                json_value(canon, item);
            }
            canon.open("}")
        }
    };
}

fn threshold(t: &Threshold) -> String {
    format!("{} {:?}", t.name, t.limit)
}

fn rubric_part(canon: &mut Canon, rubric: &Rubric) {
    canon
        .open("(")
        .key(&rubric.label)
        .key(rubric.kind.key())
        .number(rubric.penalty);
    probe(canon, &rubric.probe);
    canon.open(")");
}

fn probe(canon: &mut Canon, probe: &Probe) {
    canon
        .key(
            &probe
                .field
                .as_ref()
                .map(|f| f.to_string())
                .unwrap_or_default(),
        )
        .shared(&probe.normalize)
        .key(probe.check.key());
    match &probe.check {
        Check::All(probes) | Check::Any(probes) => {
            canon.open("[");
            for p in probes {
                self::probe(canon, p);
            }
            canon.open("]");
        }
        Check::Not(inner) => self::probe(canon, inner),
        Check::Matches(regex) => {
            canon.key(regex.as_str());
        }
        Check::SumOf { fields, tolerance } => {
            for f in fields {
                canon.key(&f.to_string());
            }
            canon.number(*tolerance);
        }
        // The other checks hold numbers, texts and dates only, and no place in a file.
        other => {
            canon.debug(other);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field's digest as it was first written, a buffer and a string of its own per field: the
    /// one buffer of [`gold_fields`] must hash the same bytes, or every run's history would say
    /// that the gold changed.
    fn field_digest_as_first_written(field: &GoldField) -> String {
        let mut canon = Canon::new("field");
        canon.key(&field.name).open("[");
        for variant in &field.variants {
            value(&mut canon, variant);
        }
        canon.open("]").debug(&field.rule);
        let rules = field
            .path_rules
            .iter()
            .map(|(path, rule)| format!("{path} {rule:?}"))
            .collect();
        canon.unordered(rules).debug(&field.place);
        canon.finish()
    }

    #[test]
    fn a_field_digests_as_it_was_first_written_with_a_place_and_path_rules_or_none() {
        use crate::base::field_path::FieldPath;
        use crate::model::place::Place;
        let field = |name: &str, compare, place, path_rules| GoldField {
            name: name.to_owned(),
            variants: vec![
                Value::Text("FA-1 \"x\"".to_owned()),
                Value::List(vec![Value::Null, Value::Text("b".to_owned())]),
            ],
            line: 3,
            rule: FieldRule {
                compare,
                correct: Correctness::Exact,
            },
            path_rules,
            place,
        };
        let fields = vec![
            field("plain", Comparison::Text, None, Vec::new()),
            field(
                "placed",
                Comparison::Identifier,
                Some(Place {
                    page: Some(2),
                    bbox: Some([0.1, 0.25, 0.5, -0.0]),
                }),
                Vec::new(),
            ),
            field(
                "page_only",
                Comparison::Date { day_first: true },
                Some(Place {
                    page: Some(1),
                    bbox: None,
                }),
                Vec::new(),
            ),
            field(
                "items",
                Comparison::Number { tolerance: 0.01 },
                None,
                vec![
                    (
                        FieldPath::parse("items[*].amount").unwrap(),
                        Comparison::Number { tolerance: 0.5 },
                    ),
                    (
                        FieldPath::parse("items[*].code").unwrap(),
                        Comparison::Identifier,
                    ),
                ],
            ),
        ];
        let digests = gold_fields(&fields);
        for (field, digits) in fields.iter().zip(&digests) {
            assert_eq!(
                std::str::from_utf8(digits).unwrap(),
                field_digest_as_first_written(field),
                "{}",
                field.name
            );
        }
    }

    #[test]
    fn a_text_is_written_as_json_writes_it() {
        for text in [
            "",
            "a",
            "é 日本",
            "a\"b",
            "a\\b",
            "\u{1}",
            "tab\t",
            "\u{7f}",
            "line\n",
        ] {
            let mut canon = Canon(Vec::new());
            canon.key(text);
            let json = serde_json::to_string(text).unwrap() + " ";
            assert_eq!(String::from_utf8(canon.0).unwrap(), json, "{text:?}");
        }
    }

    /// A shared rule's text is copied only while the same rule comes again: each write is its
    /// `Debug` form, whatever came before it on the thread.
    #[test]
    fn a_shared_rule_writes_its_own_text_whatever_came_before() {
        let rules = [
            Comparison::Date { day_first: true },
            Comparison::Date { day_first: false },
            Comparison::Date { day_first: false },
            Comparison::Identifier,
            Comparison::Date { day_first: true },
        ];
        for compare in rules {
            let rule = RuleWithoutNumber(FieldRule {
                compare,
                correct: Correctness::Exact,
            });
            let mut canon = Canon(Vec::new());
            canon
                .shared(&rule)
                .shared(&Some(crate::base::normalize::Normalize::NONE));
            let expected = format!(
                "{:?} {:?} ",
                rule.0,
                Some(crate::base::normalize::Normalize::NONE)
            );
            assert_eq!(String::from_utf8(canon.0).unwrap(), expected);
        }
    }

    #[test]
    fn a_run_digest_is_the_same_whatever_order_its_tests_come_in() {
        let one = run_digest([("a", "1"), ("b", "2")]);
        assert_eq!(one, run_digest([("b", "2"), ("a", "1")]));
        assert_ne!(one, run_digest([("a", "1"), ("b", "3")]));
        assert_eq!(run_digest::<str>([]), None);
        // Kept as bytes, a digest counts as its hex digits.
        let hex = "0f".repeat(32);
        let kept = KeptDigest::of(&hex);
        assert!(matches!(kept, KeptDigest::Sha256(_)));
        assert_eq!(kept.to_string(), hex);
        assert_eq!(
            run_digest([("a", &kept)]),
            run_digest([("a", hex.as_str())])
        );
        for text in [
            "0F".repeat(32),
            "0f".repeat(31),
            "zz".repeat(32),
            String::new(),
        ] {
            assert_eq!(
                KeptDigest::of(&text),
                KeptDigest::Text(text.as_str().into())
            );
        }
    }

    #[test]
    fn a_mapping_digests_alike_in_any_key_order_and_a_changed_text_does_not() {
        let map = |entries: &[(&str, &str)]| {
            let mut canon = Canon::new("t");
            value(
                &mut canon,
                &Value::Map(
                    entries
                        .iter()
                        .map(|(k, v)| (k.to_string(), Value::Text(v.to_string())))
                        .collect(),
                ),
            );
            canon.finish()
        };
        let written = map(&[("a", "1"), ("b", "2")]);
        assert_eq!(written, map(&[("b", "2"), ("a", "1")]));
        assert_ne!(written, map(&[("a", "1"), ("b", "02")]));
        // A key and a value never read as each other.
        assert_ne!(map(&[("a", "b")]), map(&[("ab", "")]));
        assert_eq!(written.len(), 64);
    }
}
