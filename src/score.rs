//! One field's EM_i and ANLS_i, by its rule (SPEC §6) and the case's profile (SPEC §4.3).

use crate::case::{Comparison, Correctness, FieldRule, Profile};
use crate::metrics::anls_star::{Tree, anls_star};
use crate::metrics::{score_tree, score_variants};
use crate::normalize::Normalize;
use crate::typed::{parse_date, parse_number};
use crate::value::Value;

/// The scores of one field, and what the message should say about how they were reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// EM_i: 1 when the field is correct by its rule.
    pub em: f64,
    /// ANLS_i.
    pub anls: f64,
    /// Why a typed comparison could not be made (`could not be read as a number`).
    pub note: Option<String>,
}

/// Scores a predicted value against a field's gold variants.
///
/// ```
/// use goldgate::case::{Comparison, Correctness, FieldRule, Profile};
/// use goldgate::{Normalize, Value, score::score_field};
/// let t = |s: &str| Value::Text(s.into());
/// let amount = FieldRule { compare: Comparison::Number { tolerance: 0.0 }, correct: Correctness::Exact };
/// let s = score_field(&[t("1234.50")], amount, &t("1 234,50 €"), Normalize::ALL, Profile::Dream);
/// assert_eq!((s.em, s.anls), (1.0, 1.0));
/// // Correct by ANLS: "invoce" scores 1 − 1/7 against "invoice", above 0.8.
/// let loose = FieldRule { compare: Comparison::Text, correct: Correctness::Anls(0.8) };
/// let s = score_field(&[t("invoice")], loose, &t("invoce"), Normalize::ALL, Profile::Dream);
/// assert_eq!((s.em, s.anls), (1.0, 1.0 - 1.0 / 7.0));
/// ```
pub fn score_field(
    variants: &[Value],
    rule: FieldRule,
    pred: &Value,
    normalize: Normalize,
    profile: Profile,
) -> Scored {
    let (mut em, mut anls) = match profile {
        Profile::Dream => field_scores(variants, pred, normalize),
        Profile::AnlsStar => anls_star_scores(variants, pred),
    };
    let mut note = None;
    if let (Value::Text(p), false) = (pred, rule.compare == Comparison::Text) {
        let (read, what) = match rule.compare {
            Comparison::Number { tolerance } => (
                parse_number(p).map(|p| {
                    variants.iter().any(|g| match g {
                        Value::Text(g) => parse_number(g).is_some_and(|g| close(g, p, tolerance)),
                        _ => false,
                    })
                }),
                "a number",
            ),
            Comparison::Date { day_first } => (
                parse_date(p, day_first).map(|p| {
                    variants.iter().any(|g| match g {
                        Value::Text(g) => parse_date(g, day_first) == Some(p),
                        _ => false,
                    })
                }),
                "a date",
            ),
            Comparison::Text => (None, ""),
        };
        match read {
            Some(true) => (em, anls) = (1.0, 1.0),
            Some(false) => em = 0.0,
            None if !p.trim().is_empty() => {
                em = 0.0;
                note = Some(format!("`{p}` could not be read as {what}"));
            }
            None => {}
        }
    }
    if let Correctness::Anls(min) = rule.correct {
        em = if anls >= min { 1.0 } else { 0.0 };
    }
    Scored { em, anls, note }
}

/// Equal within the tolerance, and within the rounding of the decimal forms.
fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance + 4.0 * f64::EPSILON * a.abs().max(b.abs())
}

/// EM_i and ANLS_i in the default profile: text by §4.2, trees by ANLS*.
pub fn field_scores(variants: &[Value], pred: &Value, normalize: Normalize) -> (f64, f64) {
    if variants.iter().any(Value::is_nested) || pred.is_nested() {
        variants.iter().fold((0.0, 0.0), |(em, anls), g| {
            let (s, exact) = score_tree(g, pred, normalize);
            (em.max(if exact { 1.0 } else { 0.0 }), anls.max(s))
        })
    } else {
        let texts: Vec<String> = variants.iter().map(Value::as_text).collect();
        let s = score_variants(&texts, &pred.as_text(), normalize);
        (s.em, s.anls)
    }
}

/// EM_i and ANLS_i in the `anls_star` profile: the reference's score, EM when it is 1.
fn anls_star_scores(variants: &[Value], pred: &Value) -> (f64, f64) {
    let gold = match variants {
        [one] => to_tree(one),
        many => Tree::AnyOf(many.iter().map(to_tree).collect()),
    };
    let score = anls_star(&gold, &to_tree(pred));
    (if score == 1.0 { 1.0 } else { 0.0 }, score)
}

/// Scalars keep their written text, which is what the reference compares after `str()`.
fn to_tree(value: &Value) -> Tree {
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
