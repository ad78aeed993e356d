//! Exact match and ANLS of one text against its variants.

use crate::base::normalize::Normalize;

/// The ANLS threshold τ: a normalized distance at or above it scores 0.
pub const TAU: f64 = 0.5;

/// Levenshtein distance counted in Unicode code points.
///
/// ```
/// assert_eq!(goldgate::metrics::levenshtein("Société", "Societe"), 2);
/// ```
pub fn levenshtein(a: &str, b: &str) -> usize {
    // Out of steps, the distance is not computed: the scoring that asked is thrown away
    // (`effort::within`), and every comparison after the budget ran out costs nothing.
    if !super::effort::spend(super::effort::levenshtein_steps(a.len(), b.len())) {
        return a.len().max(b.len());
    }
    // In ASCII a byte is a code point: the bytes need no decoding, and rapidfuzz matches them
    // in a table where it hashes a `char`.
    if a.is_ascii() && b.is_ascii() {
        return rapidfuzz::distance::levenshtein::distance(a.bytes(), b.bytes());
    }
    rapidfuzz::distance::levenshtein::distance(a.chars(), b.chars())
}

/// 1 when the normalized texts are equal, else 0.
///
/// ```
/// use goldgate::{Normalize, metrics::exact_match};
/// assert_eq!(exact_match("ACME  Corp", "acme corp", Normalize::ALL), 1.0);
/// assert_eq!(exact_match("ACME", "ACNE", Normalize::ALL), 0.0);
/// ```
pub fn exact_match(gold: &str, pred: &str, normalize: Normalize) -> f64 {
    if normalize.apply(gold) == normalize.apply(pred) {
        1.0
    } else {
        0.0
    }
}

/// ANLS of one prediction against one variant: 1 − NL when NL < 0.5, else 0; both empty = 1.
///
/// ```
/// use goldgate::{Normalize, metrics::anls};
/// // "invoice" vs "invoce": distance 1 over 7 code points.
/// assert_eq!(anls("invoice", "invoce", Normalize::ALL), 1.0 - 1.0 / 7.0);
/// // NL = 0.5 exactly scores 0 (strict threshold).
/// assert_eq!(anls("ab", "ax", Normalize::ALL), 0.0);
/// ```
pub fn anls(gold: &str, pred: &str, normalize: Normalize) -> f64 {
    anls_normalized(&normalize.apply(gold), &normalize.apply(pred))
}

pub(crate) fn anls_normalized(a: &str, b: &str) -> f64 {
    // Most fields are read right: no distance to compute.
    if a == b {
        return 1.0;
    }
    let longest = a.chars().count().max(b.chars().count());
    if longest == 0 {
        return 1.0;
    }
    let nl = levenshtein(a, b) as f64 / longest as f64;
    if nl < TAU { 1.0 - nl } else { 0.0 }
}

/// EM and ANLS of a prediction against one variant, the texts normalized into `scratch`: what
/// [`score_variants`] gives for one variant, with no string allocated per pair (`score --jsonl`
/// scores a hundred thousand of them).
pub(crate) fn score_one(
    gold: &str,
    pred: &str,
    normalize: Normalize,
    scratch: &mut [String; 2],
) -> (f64, f64) {
    let [a, b] = scratch;
    normalize.apply_into(gold, a);
    normalize.apply_into(pred, b);
    (if a == b { 1.0 } else { 0.0 }, anls_normalized(a, b))
}

/// The scores of one field: the best over its variants, and which variant came closest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldScore {
    /// EM_i: 1 when some variant matches exactly.
    pub em: f64,
    /// ANLS_i: the best ANLS over the variants.
    pub anls: f64,
    /// Index of the closest variant (best ANLS, then EM; the first wins a tie).
    pub closest: usize,
}

/// EM_i and ANLS_i of a prediction over the variants of a field.
///
/// ```
/// use goldgate::{Normalize, metrics::score_variants};
/// let s = score_variants(&["2024-03-05", "05/03/2024"], "05/03/2024", Normalize::ALL);
/// assert_eq!((s.em, s.anls, s.closest), (1.0, 1.0, 1));
/// ```
pub fn score_variants<S: AsRef<str>>(
    variants: &[S],
    pred: &str,
    normalize: Normalize,
) -> FieldScore {
    let b = normalize.apply(pred);
    let mut best = FieldScore {
        em: 0.0,
        anls: 0.0,
        closest: 0,
    };
    for (i, variant) in variants.iter().enumerate() {
        let a = normalize.apply(variant.as_ref());
        let em = if a == b { 1.0 } else { 0.0 };
        let anls = anls_normalized(&a, &b);
        if (anls, em) > (best.anls, best.em) {
            best = FieldScore {
                em,
                anls,
                closest: i,
            };
        }
        // No later variant can do better than an exact match, and the first wins a tie.
        if best.em == 1.0 && best.anls == 1.0 {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_the_budget_is_spent_no_distance_is_computed() {
        let long = "ab".repeat(5_000);
        let mut seen = 0;
        let cut = crate::metrics::effort::within(100, || {
            levenshtein(&long, &long[1..]);
            // Computed, this is 1; out of steps, it is not computed at all.
            seen = levenshtein("abc", "abd");
        });
        assert!(cut.is_err());
        assert_eq!(seen, 3, "a distance was computed after the budget ran out");
        // Outside a budget, every distance is computed.
        assert_eq!(levenshtein("abc", "abd"), 1);
    }

    #[test]
    fn both_empty_scores_one() {
        assert_eq!(anls("", "", Normalize::ALL), 1.0);
        assert_eq!(exact_match("", "  ", Normalize::ALL), 1.0);
        assert_eq!(anls("abc", "", Normalize::ALL), 0.0);
    }

    #[test]
    fn just_under_the_threshold_keeps_its_score() {
        // distance 2 over 5: NL = 0.4 -> 0.6
        assert!((anls("abcde", "abxye", Normalize::ALL) - 0.6).abs() < 1e-15);
        // distance 3 over 6: NL = 0.5 -> 0
        assert_eq!(anls("abcdef", "abcxyz", Normalize::ALL), 0.0);
    }
}
