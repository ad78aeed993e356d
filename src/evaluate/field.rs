//! One field's EM_i and ANLS_i, by its rule and the case's profile.

use crate::base::decimal::Decimal;
use crate::base::field_path::{FieldPath, Shape};
use crate::base::location::closest_within;
use crate::base::normalize::Normalize;
use crate::base::typed::{canonical_number, identifier_key, parse_date, read_number};
use crate::base::value::Value;
use crate::evaluate::finding::{Note, Reading};
use crate::metrics::anls_star::{Rules, Tree, match_list, score_with};
use crate::metrics::score_variants;
use crate::model::case::{Comparison, Correctness, FieldRule, GoldField, Profile};
use crate::model::prediction::Prediction;

/// The scores of one field, and what the message should say about how they were reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// EM_i: 1 when the field is correct by its rule.
    pub em: f64,
    /// ANLS_i.
    pub anls: f64,
    /// How a comparison other than text was made, or why it could not be.
    pub note: Option<Note>,
    /// The variant the score came from (the first of equals).
    pub closest: usize,
}

/// The predicted field one edit from the gold field `name` (two for a name longer than five
/// letters) when the prediction lacks `name` and gold does not list it: `invoice_nr` for
/// `invoice_no`, a key the extraction may have misnamed.
pub(crate) fn misnamed_key<'a>(
    name: &str,
    gold: &[GoldField],
    prediction: &'a Prediction,
) -> Option<&'a str> {
    if prediction.field(name).is_some() {
        return None;
    }
    let listed: std::collections::HashSet<&str> = gold.iter().map(|g| g.name.as_str()).collect();
    let unlisted: Vec<&str> = prediction
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .filter(|n| !listed.contains(n))
        .collect();
    misnamed_among(name, &unlisted)
}

/// [`misnamed_key`] of a gold field the prediction lacks, among the predicted names gold does not
/// list (`unlisted`, made once for the case). Each comparison is charged to the case's steps: a
/// prediction that renamed every one of 100,000 keys would otherwise compare 10¹⁰ pairs.
pub(crate) fn misnamed_among<'a>(name: &str, unlisted: &[&'a str]) -> Option<&'a str> {
    let len = name.chars().count();
    for candidate in unlisted {
        if !crate::metrics::effort::spend(crate::metrics::effort::levenshtein_steps(
            len,
            candidate.len(),
        )) {
            return None;
        }
    }
    // As strict as for a misspelt field: names are short, and an absent field may be meant.
    closest_within(
        name,
        unlisted.iter().copied(),
        |len| {
            if len <= 5 { 1 } else { 2 }
        },
    )
}

/// Scores a predicted value against a field's gold variants.
pub fn score_field(
    variants: &[Value],
    rule: FieldRule,
    pred: &Value,
    normalize: Normalize,
    profile: Profile,
) -> Scored {
    let (em, anls) = match profile {
        Profile::Dream => field_scores(variants, pred, normalize),
        Profile::AnlsStar => anls_star_scores(variants, pred),
        Profile::DocuBench => docubench_scores(variants, pred),
        // KIEval compares values as written.
        Profile::KiEval => field_scores(variants, pred, Normalize::NONE),
    };
    let mut scored = Scored {
        em,
        anls,
        note: None,
        closest: closest_variant(variants, pred, normalize, profile),
    };
    if let (Value::Text(p), Comparison::Identifier, false) =
        (pred, rule.compare, variants.is_empty())
    {
        as_identifiers(&mut scored, variants, p);
    }
    let typed = matches!(
        rule.compare,
        Comparison::Number { .. } | Comparison::Date { .. }
    );
    if let (Value::Text(p), true) = (pred, typed) {
        as_typed(&mut scored, variants, rule.compare, p, pred);
    }
    if pred.is_nested() && rule.compare != Comparison::Text {
        scored.em = 0.0;
        scored.note = Some(Note::Nested {
            reading: rule.compare.into(),
            shape: Shape::of(pred),
        });
    }
    if let Correctness::Anls(min) = rule.correct {
        scored.em = if scored.anls >= min { 1.0 } else { 0.0 };
    }
    scored
}

/// A text prediction compared as an identifier (case, spaces, `-` `.` `/` ignored).
fn as_identifiers(scored: &mut Scored, variants: &[Value], p: &str) {
    let key = identifier_key(p);
    let keys: Vec<String> = variants
        .iter()
        .map(|g| identifier_key(&g.as_text()))
        .collect();
    match keys.iter().position(|k| *k == key) {
        Some(i) => (scored.em, scored.anls, scored.closest) = (1.0, 1.0, i),
        None => {
            let s = score_variants(&keys, &key, Normalize::NONE);
            (scored.em, scored.anls, scored.closest) = (0.0, s.anls, s.closest);
            scored.note = Some(Note::Compared {
                reading: Reading::Identifier,
                gold: keys[s.closest].clone(),
                prediction: key,
            });
        }
    }
}

/// A text prediction compared as a number or a date.
fn as_typed(scored: &mut Scored, variants: &[Value], compare: Comparison, p: &str, pred: &Value) {
    let read = match compare {
        Comparison::Number { tolerance } => read_number(p).map(|_| {
            variants.iter().any(|g| match g {
                Value::Text(g) => numbers_close(g, p, tolerance),
                _ => false,
            })
        }),
        Comparison::Date { day_first } => parse_date(p, day_first).map(|p| {
            variants.iter().any(|g| match g {
                Value::Text(g) => parse_date(g, day_first) == Some(p),
                _ => false,
            })
        }),
        Comparison::Text | Comparison::Identifier => None,
    };
    if read == Some(true) {
        // The variant that equals the prediction as a number or a date.
        scored.closest = variants
            .iter()
            .position(|g| match (g, compare) {
                (Value::Text(g), Comparison::Number { tolerance }) => {
                    numbers_close(g, p, tolerance)
                }
                (Value::Text(g), Comparison::Date { day_first }) => {
                    parse_date(g, day_first).is_some()
                        && parse_date(g, day_first) == parse_date(p, day_first)
                }
                _ => false,
            })
            .unwrap_or(scored.closest);
    }
    match read {
        Some(true) => (scored.em, scored.anls) = (1.0, 1.0),
        Some(false) => {
            scored.em = 0.0;
            // The forms that were compared, so the message shows the difference that counted.
            let shown = |v: &Value| compared_form(v, compare).as_text();
            if let Some(gold) = variants.get(scored.closest) {
                scored.note = Some(Note::Compared {
                    reading: compare.into(),
                    gold: shown(gold),
                    prediction: shown(pred),
                });
            }
        }
        None if !p.trim().is_empty() => {
            scored.em = 0.0;
            scored.note = Some(Note::Unreadable {
                reading: compare.into(),
                value: p.to_owned(),
            });
        }
        None => {}
    }
}

/// The variant a field's score came from, by the profile's own scoring: the best, the first of
/// equals (as the reference breaks ties between alternatives).
fn closest_variant(
    variants: &[Value],
    pred: &Value,
    normalize: Normalize,
    profile: Profile,
) -> usize {
    if variants.len() < 2 {
        return 0;
    }
    if profile == Profile::Dream && !variants.iter().any(Value::is_nested) && !pred.is_nested() {
        // The best ANLS, then EM; among equals (ANLS 0 for all, say) the fewest edits, then the
        // first: the variant a reader would call closest.
        let p = normalize.apply(&pred.as_text());
        let mut best: Option<(usize, (f64, f64), usize)> = None;
        for (i, v) in variants.iter().enumerate() {
            let t = v.as_text();
            let s = score_variants(std::slice::from_ref(&t), &pred.as_text(), normalize);
            let edits = crate::metrics::levenshtein(&normalize.apply(&t), &p);
            let better = match best {
                None => true,
                Some((_, (anls, em), fewest)) => {
                    (s.anls, s.em) > (anls, em) || ((s.anls, s.em) == (anls, em) && edits < fewest)
                }
            };
            if better {
                best = Some((i, (s.anls, s.em), edits));
            }
        }
        return best.map_or(0, |(i, ..)| i);
    }
    let pred = to_tree(pred);
    let rules = rules(profile, normalize);
    let mut best = (0, f64::NEG_INFINITY);
    for (i, v) in variants.iter().enumerate() {
        let score = score_with(&gold_node(v), &pred, rules);
        if score > best.1 {
            best = (i, score);
        }
    }
    best.0
}

/// A gold value with every `any_of` inside it replaced by the alternative the prediction came
/// closest to (by the profile's scoring; list items against the predicted items they were matched
/// with), so that a message diffs against the gold the score came from.
pub fn resolved_gold(gold: &Value, pred: &Value, normalize: Normalize, profile: Profile) -> Value {
    match gold {
        Value::Map(entries) => match entries.as_slice() {
            [(key, Value::List(alternatives))] if key == "any_of" && !alternatives.is_empty() => {
                let pred_tree = to_tree(pred);
                let rules = rules(profile, normalize);
                let mut best = (0, f64::NEG_INFINITY);
                for (i, alt) in alternatives.iter().enumerate() {
                    let score = score_with(&gold_node(alt), &pred_tree, rules);
                    if score > best.1 {
                        best = (i, score);
                    }
                }
                resolved_gold(&alternatives[best.0], pred, normalize, profile)
            }
            _ => Value::Map(
                entries
                    .iter()
                    .map(|(k, v)| {
                        let p = pred.get(k).unwrap_or(&Value::Null);
                        (k.clone(), resolved_gold(v, p, normalize, profile))
                    })
                    .collect(),
            ),
        },
        Value::List(items) => {
            let Value::List(pred_items) = pred else {
                return Value::List(
                    items
                        .iter()
                        .map(|g| resolved_gold(g, &Value::Null, normalize, profile))
                        .collect(),
                );
            };
            let mut out: Vec<Value> = items.clone();
            for (g, p, _) in matched_items(items, pred_items, normalize, profile) {
                if let Some(g) = g {
                    let p = p.map_or(&Value::Null, |p| &pred_items[p]);
                    out[g] = resolved_gold(&items[g], p, normalize, profile);
                }
            }
            Value::List(out)
        }
        other => other.clone(),
    }
}

/// Whether a gold value holds `any_of` somewhere inside it.
pub fn has_alternatives(gold: &Value) -> bool {
    match gold {
        Value::Map(entries) => entries
            .iter()
            .any(|(k, v)| k == "any_of" || has_alternatives(v)),
        Value::List(items) => items.iter().any(has_alternatives),
        _ => false,
    }
}

/// How the items of a gold list and a predicted list were matched, with each pair's score, as
/// the profile's list scoring matched them: (gold index, predicted index, score), gold order
/// first, then extra predicted items.
pub fn matched_items(
    gold: &[Value],
    pred: &[Value],
    normalize: Normalize,
    profile: Profile,
) -> Vec<(Option<usize>, Option<usize>, f64)> {
    let gold: Vec<Tree> = gold.iter().map(gold_node).collect();
    let pred: Vec<Tree> = pred.iter().map(to_tree).collect();
    match_list(&gold, &pred, rules(profile, normalize))
        .into_iter()
        .map(|m| (m.gold, m.pred, m.score))
        .collect()
}

/// A field's gold variants and prediction with the leaves its path rules reach written in their
/// compared form (a number's shortest text, a date's ISO form, an identifier's key), so that the
/// tree comparison (matching, leaf scores, EM) compares them as the rules say.
pub fn apply_path_rules(
    rules: &[(FieldPath, Comparison)],
    variants: &[Value],
    pred: &Value,
) -> (Vec<Value>, Value) {
    let mut variants = variants.to_vec();
    let mut pred = pred.clone();
    for (path, comparison) in rules {
        let leaf = |v: &Value| compared_form(v, *comparison);
        variants = variants.iter().map(|g| path.map(g, &leaf)).collect();
        pred = path.map(&pred, &leaf);
    }
    (variants, pred)
}

/// A leaf as a comparison reads it; as written when it cannot be read so.
fn compared_form(value: &Value, comparison: Comparison) -> Value {
    let Value::Text(t) = value else {
        return value.clone();
    };
    let read = match comparison {
        Comparison::Text => None,
        Comparison::Number { .. } => canonical_number(t),
        Comparison::Date { day_first } => parse_date(t, day_first).map(|d| d.to_string()),
        Comparison::Identifier => Some(identifier_key(t)),
    };
    read.map_or_else(|| value.clone(), Value::Text)
}

/// Two written numbers equal within the tolerance, computed exactly at any length (see
/// [`Decimal`]): `9007199254740993` is not `9007199254740992`, nor are two 40-digit numbers
/// that differ in their last digit; the tolerance is read as it was written (`0.01`).
pub(crate) fn numbers_close(a: &str, b: &str, tolerance: f64) -> bool {
    let (Some(a), Some(b)) = (read_number(a), read_number(b)) else {
        return false;
    };
    let difference = a.sub(&b).abs();
    match Decimal::from_f64(tolerance) {
        Some(tolerance) => difference <= tolerance,
        None => tolerance == f64::INFINITY,
    }
}

/// EM_i and ANLS_i in the default profile: text by §4.2, trees by ANLS* with §4.2 leaves.
pub fn field_scores(variants: &[Value], pred: &Value, normalize: Normalize) -> (f64, f64) {
    if variants.iter().any(Value::is_nested) || pred.is_nested() {
        let score = score_with(
            &gold_tree(variants),
            &to_tree(pred),
            Rules::dream(normalize),
        );
        (if score == 1.0 { 1.0 } else { 0.0 }, score)
    } else {
        let texts: Vec<String> = variants.iter().map(Value::as_text).collect();
        let s = score_variants(&texts, &pred.as_text(), normalize);
        (s.em, s.anls)
    }
}

/// EM_i and ANLS_i in the `anls_star` profile: the reference's score, EM when it is 1.
fn anls_star_scores(variants: &[Value], pred: &Value) -> (f64, f64) {
    let score = score_with(&gold_tree(variants), &to_tree(pred), Rules::REFERENCE);
    (if score == 1.0 { 1.0 } else { 0.0 }, score)
}

/// EM_i and ANLS_i in the `docubench` profile, for one field alone (a rubric's check): its
/// score as DocuBench scores a document of that one field, the best of its variants.
fn docubench_scores(variants: &[Value], pred: &Value) -> (f64, f64) {
    use crate::metrics::docubench::{json_of, value_score};
    let pred = json_of(pred);
    let score = variants
        .iter()
        .map(|v| value_score(&json_of(v), &pred))
        .fold(0.0, f64::max);
    (if score == 1.0 { 1.0 } else { 0.0 }, score)
}

/// The rules of a profile (for the items a diff pairs; `docubench` scores with its own).
fn rules(profile: Profile, normalize: Normalize) -> Rules {
    match profile {
        Profile::Dream | Profile::DocuBench => Rules::dream(normalize),
        Profile::AnlsStar => Rules::REFERENCE,
        Profile::KiEval => Rules::dream(Normalize::NONE),
    }
}

/// A field's variants as one gold tree; `{ any_of: [...] }` at any depth gives alternatives.
pub fn gold_tree(variants: &[Value]) -> Tree {
    match variants {
        [one] => gold_node(one),
        many => Tree::AnyOf(many.iter().map(gold_node).collect()),
    }
}

fn gold_node(value: &Value) -> Tree {
    match value {
        Value::Map(entries) => match entries.as_slice() {
            [(key, Value::List(alternatives))] if key == "any_of" && !alternatives.is_empty() => {
                Tree::AnyOf(alternatives.iter().map(gold_node).collect())
            }
            _ => Tree::Map(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), gold_node(v)))
                    .collect(),
            ),
        },
        Value::List(items) => Tree::List(items.iter().map(gold_node).collect()),
        other => to_tree(other),
    }
}

/// Scalars keep their written text, which is what the reference compares after `str()`.
pub fn to_tree(value: &Value) -> Tree {
    match value {
        Value::Null => Tree::Null,
        Value::Text(t) => Tree::Text(t.clone()),
        Value::List(items) => Tree::List(items.iter().map(to_tree).collect()),
        Value::Map(entries) => Tree::Map(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), to_tree(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    fn map(entries: &[(&str, Value)]) -> Value {
        Value::Map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn anls(gold: &Value, pred: &Value) -> f64 {
        field_scores(std::slice::from_ref(gold), pred, Normalize::ALL).1
    }

    #[test]
    fn nested_values_weigh_their_leaves() {
        // A missing four-key item costs four leaves: 1 of 5.
        let widget = map(&[
            ("description", t("Widget")),
            ("quantity", t("1")),
            ("unit", t("pcs")),
            ("price", t("10")),
        ]);
        let shipping = map(&[("description", t("Shipping"))]);
        assert_eq!(
            anls(
                &Value::List(vec![widget, shipping.clone()]),
                &Value::List(vec![shipping])
            ),
            1.0 / 5.0
        );
        // An extra three-leaf address costs three leaves, as a missing one would: 1 of 4.
        let name = map(&[("name", t("ACME"))]);
        let address = map(&[
            ("street", t("Main")),
            ("city", t("Paris")),
            ("zip", t("75001")),
        ]);
        let with_address = map(&[("name", t("ACME")), ("address", address)]);
        assert_eq!(anls(&name, &with_address), 0.25);
        assert_eq!(anls(&with_address, &name), 0.25);
    }

    #[test]
    fn nothing_equals_nothing_and_an_empty_extra_key_is_not_counted() {
        assert_eq!(
            field_scores(&[Value::List(vec![])], &t(""), Normalize::ALL),
            (1.0, 1.0)
        );
        let gold = map(&[("a", t("x"))]);
        let pred = map(&[("a", t("x")), ("b", Value::Null)]);
        assert_eq!(
            field_scores(std::slice::from_ref(&gold), &pred, Normalize::ALL),
            (1.0, 1.0)
        );
        // The reference counts it: 1 of 2.
        assert_eq!(anls_star_scores(&[gold], &pred), (0.0, 0.5));
    }

    #[test]
    fn alternatives_inside_a_value() {
        let gold = map(&[(
            "city",
            map(&[("any_of", Value::List(vec![t("Paris"), t("Lutèce")]))]),
        )]);
        assert_eq!(anls(&gold, &map(&[("city", t("Lutece"))])), 1.0);
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn typed_and_loose_fields() {
        let t = |s: &str| Value::Text(s.into());
        let amount = FieldRule {
            compare: Comparison::Number { tolerance: 0.0 },
            correct: Correctness::Exact,
        };
        let s = score_field(
            &[t("1234.50")],
            amount,
            &t("1 234,50 €"),
            Normalize::ALL,
            Profile::Dream,
        );
        assert_eq!((s.em, s.anls), (1.0, 1.0));
        // Correct by ANLS: "invoce" scores 1 − 1/7 against "invoice", above 0.8.
        let loose = FieldRule {
            compare: Comparison::Text,
            correct: Correctness::Anls(0.8),
        };
        let s = score_field(
            &[t("invoice")],
            loose,
            &t("invoce"),
            Normalize::ALL,
            Profile::Dream,
        );
        assert_eq!((s.em, s.anls), (1.0, 1.0 - 1.0 / 7.0));
    }
}
