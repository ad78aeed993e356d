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

/// The buffers `score --jsonl` computes its distances with, kept from one pair to the next: the
/// bit masks of the shorter text's characters (empty between two distances).
pub(crate) struct Distances {
    /// The mask of each ASCII character.
    ascii: [u64; 128],
    /// The masks of the other characters, by open addressing; `'\0'` marks a free slot (no key
    /// is ASCII).
    keys: [char; 128],
    masks: [u64; 128],
    /// The slots of `keys` in use, to free after a distance.
    used: Vec<u8>,
}

impl Default for Distances {
    fn default() -> Self {
        Distances {
            ascii: [0; 128],
            keys: ['\0'; 128],
            masks: [0; 128],
            used: Vec::new(),
        }
    }
}

impl Distances {
    /// [`anls_normalized`] of two texts as code points, with no step counted: the caller has
    /// bounded the work.
    pub(crate) fn anls_chars(&mut self, a: &[char], b: &[char]) -> f64 {
        if a == b {
            return 1.0;
        }
        ratio(self.char_distance(a, b), a.len().max(b.len()))
    }

    /// [`anls_chars`](Self::anls_chars) of two ASCII texts.
    pub(crate) fn anls_ascii(&mut self, a: &[u8], b: &[u8]) -> f64 {
        if a == b {
            return 1.0;
        }
        ratio(self.ascii_distance(a, b), a.len().max(b.len()))
    }

    /// The Levenshtein distance of two ASCII texts.
    fn ascii_distance(&mut self, a: &[u8], b: &[u8]) -> usize {
        let (a, b) = without_common_affix(a, b);
        let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        if short.is_empty() {
            return long.len();
        }
        if short.len() > 64 {
            return rapidfuzz::distance::levenshtein::distance(short.iter(), long.iter());
        }
        for (i, &c) in short.iter().enumerate() {
            self.ascii[usize::from(c & 0x7F)] |= 1 << i;
        }
        let ascii = &self.ascii;
        let distance = hyyro(short.len(), long, |c| ascii[usize::from(c & 0x7F)]);
        for &c in short {
            self.ascii[usize::from(c & 0x7F)] = 0;
        }
        distance
    }

    /// The Levenshtein distance of two texts of code points.
    fn char_distance(&mut self, a: &[char], b: &[char]) -> usize {
        let (a, b) = without_common_affix(a, b);
        let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        if short.is_empty() {
            return long.len();
        }
        if short.len() > 64 {
            return rapidfuzz::distance::levenshtein::distance(short.iter(), long.iter());
        }
        for (i, &c) in short.iter().enumerate() {
            *self.mask_slot(c) |= 1 << i;
        }
        let distance = hyyro(short.len(), long, |c| self.mask(c));
        for &c in short {
            if c.is_ascii() {
                self.ascii[c as usize] = 0;
            }
        }
        for slot in self.used.drain(..) {
            self.keys[usize::from(slot)] = '\0';
            self.masks[usize::from(slot)] = 0;
        }
        distance
    }

    /// Where the mask of `c` is kept, its slot taken if it had none.
    fn mask_slot(&mut self, c: char) -> &mut u64 {
        if c.is_ascii() {
            return &mut self.ascii[c as usize];
        }
        // At most 64 keys in 128 slots: a free slot is always found.
        let mut slot = c as usize % 128;
        while self.keys[slot] != c {
            if self.keys[slot] == '\0' {
                self.keys[slot] = c;
                self.used.push(slot as u8);
                break;
            }
            slot = (slot + 1) % 128;
        }
        &mut self.masks[slot]
    }

    /// The mask of `c`: 0 for a character the short text does not hold.
    fn mask(&self, c: char) -> u64 {
        if c.is_ascii() {
            return self.ascii[c as usize];
        }
        let mut slot = c as usize % 128;
        loop {
            if self.keys[slot] == c {
                return self.masks[slot];
            }
            if self.keys[slot] == '\0' {
                return 0;
            }
            slot = (slot + 1) % 128;
        }
    }
}

/// ANLS of a distance between texts of at most `longest` characters (not both empty).
fn ratio(distance: usize, longest: usize) -> f64 {
    let nl = distance as f64 / longest as f64;
    if nl < TAU { 1.0 - nl } else { 0.0 }
}

/// Both texts without the start and the end they share, which the distance does not depend on.
fn without_common_affix<'a, T: PartialEq>(a: &'a [T], b: &'a [T]) -> (&'a [T], &'a [T]) {
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[start..], &b[start..]);
    let end = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (&a[..a.len() - end], &b[..b.len() - end])
}

/// The Levenshtein distance of a text of `m` characters (1 to 64), whose characters' positions
/// `mask` gives as bits, to `long`: Hyyrö's bit-parallel form of the table (2003), one column of
/// `m` cells a word, as rapidfuzz computes it.
fn hyyro<T: Copy>(m: usize, long: &[T], mask: impl Fn(T) -> u64) -> usize {
    debug_assert!((1..=64).contains(&m));
    let last = 1u64 << (m - 1);
    let (mut vp, mut vn) = (!0u64, 0u64);
    let mut distance = m;
    for &c in long {
        let x = mask(c);
        let d0 = (((x & vp).wrapping_add(vp)) ^ vp) | x | vn;
        let hp = vn | !(d0 | vp);
        let hn = d0 & vp;
        distance += usize::from(hp & last != 0);
        distance -= usize::from(hn & last != 0);
        let hp = (hp << 1) | 1;
        let hn = hn << 1;
        vp = hn | !(d0 | hp);
        vn = hp & d0;
    }
    distance
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
    use proptest::prelude::*;

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

    /// The distance by the table itself, a row at a time.
    fn plain_distance(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, x) in a.iter().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, y) in b.iter().enumerate() {
                let next = (diagonal + usize::from(x != y))
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                diagonal = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    }

    /// Texts of a few characters each, so that two of them share many: ASCII, Latin, Greek, CJK,
    /// an emoji, and characters 128 apart that meet in the same slot of the masks.
    fn text(max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(vec![
                'a',
                'b',
                'c',
                'A',
                ' ',
                '0',
                '\u{7f}',
                'é',
                'ß',
                'σ',
                '日',
                '本',
                '😀',
                '\u{100}',
                '\u{180}',
                '\u{200}',
                '\u{10000}',
                '\u{10080}',
            ]),
            0..max,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// The distance [`Distances`] computes, out of its ANLS: exact when the distance is below
    /// the longest length (else the ANLS is 0 anyway).
    fn kept_distance(distances: &mut Distances, a: &str, b: &str) -> usize {
        if a.is_ascii() && b.is_ascii() {
            distances.ascii_distance(a.as_bytes(), b.as_bytes())
        } else {
            let (x, y): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            distances.char_distance(&x, &y)
        }
    }

    /// The ANLS [`Distances`] computes, as `score --jsonl` asks it.
    fn kept_anls(distances: &mut Distances, a: &str, b: &str) -> f64 {
        if a.is_ascii() && b.is_ascii() {
            distances.anls_ascii(a.as_bytes(), b.as_bytes())
        } else {
            let (x, y): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            distances.anls_chars(&x, &y)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn the_kept_distance_equals_the_table(a in text(80), b in text(80), c in text(70)) {
            // One `Distances` for all three pairs: what one distance leaves must not change the next.
            let mut distances = Distances::default();
            for (x, y) in [(&a, &b), (&b, &c), (&c, &a)] {
                prop_assert_eq!(kept_distance(&mut distances, x, y), plain_distance(x, y));
                prop_assert_eq!(kept_anls(&mut distances, x, y), anls_normalized(x, y));
                let (xs, ys): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
                prop_assert_eq!(distances.anls_chars(&xs, &ys), anls_normalized(x, y));
                prop_assert_eq!(levenshtein(x, y), plain_distance(x, y));
            }
        }

        #[test]
        fn the_kept_distance_equals_the_table_on_ascii(a in "[a-d ]{0,140}", b in "[a-d ]{0,140}") {
            let mut distances = Distances::default();
            prop_assert_eq!(kept_distance(&mut distances, &a, &b), plain_distance(&a, &b));
            prop_assert_eq!(kept_anls(&mut distances, &a, &b).to_bits(), anls_normalized(&a, &b).to_bits());
        }

        #[test]
        fn the_kept_distance_equals_the_table_on_any_text(a in "\\PC{0,70}", b in "\\PC{0,70}") {
            let mut distances = Distances::default();
            prop_assert_eq!(kept_distance(&mut distances, &a, &b), plain_distance(&a, &b));
            prop_assert_eq!(kept_anls(&mut distances, &a, &b).to_bits(), anls_normalized(&a, &b).to_bits());
        }
    }

    #[test]
    fn the_kept_distance_at_the_width_of_a_word() {
        let mut distances = Distances::default();
        for n in [63, 64, 65, 128] {
            let a = "a".repeat(n);
            for b in [
                format!("b{a}"),
                a[1..].to_owned(),
                "é".repeat(n),
                format!("{}é", &a[1..]),
            ] {
                assert_eq!(
                    kept_distance(&mut distances, &a, &b),
                    plain_distance(&a, &b),
                    "{n} {b}"
                );
            }
        }
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
