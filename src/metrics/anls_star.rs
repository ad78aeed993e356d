//! Profile `anls_star`: ANLS* exactly as the `anls-star` package 1.0.1 computes it,
//! with munkres 1.1.4 matching list items, quirks included.
//!
//! The package flattens a pair of trees into a list of leaf scores and divides their sum by a
//! "pairwise length". Every node here therefore yields the same four things the package derives
//! for it: the leaf scores in the package's order (summed left to right, as Python's `sum` does),
//! the pairwise length, whether the closest gold equals the prediction (`==` on the objects, which
//! breaks ties) and whether that closest gold is "none-like" (which hides a missing key).
//!
//! Leaves are text, so the package's `==` between Python numbers and strings (`1 != "1"`,
//! `1 == 1.0 == True`) is read as equality of their text. That only shows in two places: which of
//! two equally good items or alternatives is taken, and compatibility mode, which the package
//! enters only when every gold item and the prediction are Python strings.

use serde_json::Value;

use super::effort;
use super::munkres::munkres_max;
use crate::base::normalize::Normalize;

/// A gold or predicted tree as the anls-star package sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Tree {
    /// Python's `None`: no value.
    Null,
    /// A string leaf (numbers and booleans arrive as Python's `str()` of them).
    Text(String),
    /// A list, matched order-free against a predicted list.
    List(Vec<Tree>),
    /// A mapping, compared over the union of keys.
    Map(Vec<(String, Tree)>),
    /// Gold alternatives (the package's tuple); the best one is scored. In a prediction, where
    /// the package refuses tuples, it is scored as a `List`; an empty one scores as `Null`.
    AnyOf(Vec<Tree>),
}

impl Tree {
    /// From JSON: numbers and booleans become Python's str() of them; `{"__tuple__": [...]}` and
    /// `{"any_of": [...]}` (a single-key object) become AnyOf.
    ///
    /// A float keeps Python's `repr` (`1e16` -> `1e+16`, `1.0` -> `1.0`, `1e400` -> `inf`), an
    /// integer its digits at any length (`-0` -> `0`), a boolean becomes `True` or `False`.
    pub fn from_json(v: &Value) -> Tree {
        match v {
            Value::Null => Tree::Null,
            Value::Bool(b) => Tree::Text(if *b { "True" } else { "False" }.into()),
            Value::Number(n) => Tree::Text(crate::base::value::number_text(n)),
            Value::String(s) => Tree::Text(s.clone()),
            Value::Array(items) => Tree::List(items.iter().map(Tree::from_json).collect()),
            Value::Object(map) => {
                if map.len() == 1
                    && let Some((key, Value::Array(alts))) = map.iter().next()
                    && (key == "__tuple__" || key == "any_of")
                    && !alts.is_empty()
                {
                    return Tree::AnyOf(alts.iter().map(Tree::from_json).collect());
                }
                Tree::Map(
                    map.iter()
                        .map(|(k, v)| (k.clone(), Tree::from_json(v)))
                        .collect(),
                )
            }
        }
    }
}

/// The ANLS* score of `pred` against `gold` in [0, 1], as anls-star 1.0.1 computes it.
///
/// Leaves are lowercased and their whitespace folded (no accent stripping); a leaf scores its
/// normalized Levenshtein similarity when that is at least 0.5, else 0. The score is the sum of
/// the leaf scores over the pairwise length of the two trees. A gold list of texts against a
/// text prediction is read as alternatives, as the package does for VQA datasets.
///
/// ```
/// use goldgate::metrics::anls_star::{Tree, anls_star};
/// let t = |s: &str| Tree::Text(s.into());
/// let gold = Tree::Map(vec![
///     ("name".into(), t("hello")),
///     ("items".into(), Tree::List(vec![t("a"), t("b")])),
/// ]);
/// let pred = Tree::Map(vec![
///     ("name".into(), t("Hallo")),
///     ("items".into(), Tree::List(vec![t("b")])),
/// ]);
/// // name: 1 - 1/5 = 0.8; items: "b" matched (1), "a" missing (0, weighs 1): (0.8 + 1) / 3
/// assert_eq!(anls_star(&gold, &pred), (0.8 + 1.0) / 3.0);
/// ```
pub fn anls_star(gold: &Tree, pred: &Tree) -> f64 {
    score_with(gold, pred, Rules::REFERENCE)
}

/// How leaves are compared and what counts: the reference's rules, or goldgate's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// `None` for the reference's folding (lowercase, Python whitespace); else goldgate's
    /// normalization.
    normalize: Option<Normalize>,
}

impl Rules {
    /// The `anls-star` package 1.0.1, every quirk included.
    pub const REFERENCE: Rules = Rules { normalize: None };

    /// goldgate's default profile: leaves normalized and scored as everywhere else (NL = 0.5 scores 0), a predicted
    /// extra key holding nothing not counted, every form of "nothing" equal to every other, and
    /// no reading of a gold list as alternatives.
    pub fn dream(normalize: Normalize) -> Rules {
        Rules {
            normalize: Some(normalize),
        }
    }

    fn is_reference(self) -> bool {
        self.normalize.is_none()
    }

    fn fold(self, s: &str) -> Vec<char> {
        match self.normalize {
            None => fold(s),
            Some(n) => n.apply(s).chars().collect(),
        }
    }

    /// The leaf score: 1 − NL, kept from 0.5 (reference) or above 0.5.
    fn similarity(self, a: &[char], b: &[char]) -> f64 {
        let score = similarity(a, b);
        if !self.is_reference() && score <= 0.5 && !(a.is_empty() && b.is_empty()) {
            0.0
        } else {
            score
        }
    }
}

/// ANLS* of `pred` against `gold` under `rules`.
///
/// ```
/// use goldgate::Normalize;
/// use goldgate::metrics::anls_star::{Rules, Tree, score_with};
/// let t = |s: &str| Tree::Text(s.into());
/// // "ab" vs "a8": NL = 0.5 keeps 0.5 in the reference, scores 0 in goldgate's default profile.
/// assert_eq!(score_with(&t("ab"), &t("a8"), Rules::REFERENCE), 0.5);
/// assert_eq!(score_with(&t("ab"), &t("a8"), Rules::dream(Normalize::ALL)), 0.0);
/// ```
pub fn score_with(gold: &Tree, pred: &Tree, rules: Rules) -> f64 {
    let compat;
    let gold = match (gold, pred) {
        // The package's "compatibility mode" for ST-VQA-like datasets. It raises on an empty
        // list; that is left as a list here (scored 0 against the text).
        (Tree::List(items), Tree::Text(_))
            if rules.is_reference()
                && !items.is_empty()
                && items.iter().all(|i| matches!(i, Tree::Text(_))) =>
        {
            compat = Tree::AnyOf(items.clone());
            &compat
        }
        _ => gold,
    };
    let pair = compare(&Node::gold(gold, rules), &Node::pred(pred, rules), rules);
    mean(&pair.scores, pair.len)
}

/// How the items of two lists were matched (gold order first, then extra predicted items),
/// with each pair's ANLS*, as the list scoring matched them.
pub fn match_list(gold: &[Tree], pred: &[Tree], rules: Rules) -> Vec<ItemMatch> {
    let gold: Vec<Node> = gold.iter().map(|g| Node::gold(g, rules)).collect();
    let pred: Vec<Node> = pred.iter().map(|p| Node::pred(p, rules)).collect();
    let (assignment, kept) = assign(&gold, &pred, rules);
    let score = |g: usize, p: usize| match &kept {
        Some(pairs) => pairs[g * pred.len() + p].average(),
        None => compare(&gold[g], &pred[p], rules).average(),
    };
    let mut out: Vec<ItemMatch> = (0..gold.len())
        .map(|i| match assignment.iter().find(|(g, _)| *g == i) {
            Some(&(g, p)) => ItemMatch {
                gold: Some(g),
                pred: Some(p),
                score: score(g, p),
            },
            None => ItemMatch {
                gold: Some(i),
                pred: None,
                score: 0.0,
            },
        })
        .collect();
    out.extend(
        (0..pred.len())
            .filter(|j| !assignment.iter().any(|(_, p)| p == j))
            .map(|j| ItemMatch {
                gold: None,
                pred: Some(j),
                score: 0.0,
            }),
    );
    out
}

/// One line of a list comparison: which gold item went with which predicted item, and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemMatch {
    /// Index in the gold list; `None` for an extra predicted item.
    pub gold: Option<usize>,
    /// Index in the predicted list; `None` for a missing item.
    pub pred: Option<usize>,
    /// The pair's ANLS* (0 for a missing or extra item).
    pub score: f64,
}

/// A tree prepared for scoring: leaves folded once, Python's `len()` cached.
enum Node<'a> {
    Null,
    Leaf { raw: &'a str, folded: Vec<char> },
    List(Vec<Node<'a>>, usize),
    Map(Vec<(&'a str, Node<'a>)>, usize),
    AnyOf(Vec<Node<'a>>, usize),
}

impl<'a> Node<'a> {
    fn gold(tree: &'a Tree, rules: Rules) -> Self {
        Self::build(tree, true, rules)
    }

    fn pred(tree: &'a Tree, rules: Rules) -> Self {
        Self::build(tree, false, rules)
    }

    fn build(tree: &'a Tree, is_gold: bool, rules: Rules) -> Self {
        match tree {
            Tree::Null => Node::Null,
            Tree::Text(s) => Node::Leaf {
                raw: s,
                folded: rules.fold(s),
            },
            Tree::List(items) => list(items, is_gold, rules),
            Tree::AnyOf(items) if !is_gold => list(items, is_gold, rules),
            Tree::AnyOf(alts) if alts.is_empty() => Node::Null,
            Tree::AnyOf(alts) => {
                let alts: Vec<_> = alts
                    .iter()
                    .map(|a| Self::build(a, is_gold, rules))
                    .collect();
                let len = alts.iter().map(Node::len).max().unwrap_or(0);
                Node::AnyOf(alts, len)
            }
            Tree::Map(entries) => {
                // As a Python dict built from the pairs: first position, last value.
                let mut map: Vec<(&str, Node)> = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    let node = Self::build(v, is_gold, rules);
                    match map.iter_mut().find(|(key, _)| key == k) {
                        Some(slot) => slot.1 = node,
                        None => map.push((k, node)),
                    }
                }
                let len = map.iter().map(|(_, v)| v.len()).sum();
                Node::Map(map, len)
            }
        }
    }

    /// Python's `len()` of the package's tree node.
    fn len(&self) -> usize {
        match self {
            Node::Null | Node::Leaf { .. } => 1,
            Node::List(_, len) | Node::Map(_, len) | Node::AnyOf(_, len) => *len,
        }
    }

    /// The package's `check_if_none`: `None`, `""`, `[]` or `{}`.
    fn is_noney(&self) -> bool {
        match self {
            Node::Null => true,
            Node::Leaf { raw, .. } => raw.is_empty(),
            Node::List(items, _) => items.is_empty(),
            Node::Map(entries, _) => entries.is_empty(),
            Node::AnyOf(..) => false,
        }
    }

    fn get(entries: &'a [(&'a str, Node<'a>)], key: &str) -> Option<&'a Node<'a>> {
        entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

fn list(items: &[Tree], is_gold: bool, rules: Rules) -> Node<'_> {
    let items: Vec<_> = items
        .iter()
        .map(|i| Node::build(i, is_gold, rules))
        .collect();
    let len = items.iter().map(Node::len).sum();
    Node::List(items, len)
}

/// What the package derives from one (gold, prediction) pair.
struct Pair {
    /// Leaf scores in the package's order (`nls_list`).
    scores: Vec<f64>,
    /// `pairwise_len`.
    len: usize,
    /// The closest gold `==` the prediction.
    equal: bool,
    /// The closest gold is `None`, `""`, `[]` or `{}`.
    closest_noney: bool,
}

impl Pair {
    fn leaf(score: f64, len: usize, equal: bool, closest_noney: bool) -> Self {
        Pair {
            scores: vec![score],
            len,
            equal,
            closest_noney,
        }
    }

    fn average(&self) -> f64 {
        mean(&self.scores, self.len)
    }
}

/// `sum(scores) / len`, or 1 for a zero length. Summed left to right, as Python's `sum` of floats.
fn mean(scores: &[f64], len: usize) -> f64 {
    if len == 0 {
        return 1.0;
    }
    scores.iter().fold(0.0, |acc, s| acc + s) / len as f64
}

static MISSING: Node<'static> = Node::Null;

fn compare(gold: &Node, pred: &Node, rules: Rules) -> Pair {
    let weigh = || gold.len().max(pred.len());
    // Out of steps: any pair will do, the caller throws the score away.
    if !effort::spend(1) {
        return Pair::leaf(0.0, weigh(), false, false);
    }
    // goldgate's rule: every form of "nothing" equals every other (`[]` and `""` included).
    if !rules.is_reference() && gold.is_noney() && pred.is_noney() {
        // Two empty lists or mappings weigh nothing, as in the reference: a score of 1 over a
        // length of 0 would lift the mean of a tree around them above 1.
        return match weigh() {
            0 => Pair {
                scores: Vec::new(),
                len: 0,
                equal: true,
                closest_noney: true,
            },
            len => Pair::leaf(1.0, len, true, true),
        };
    }
    match gold {
        Node::Null => {
            // The closest gold is then the prediction itself.
            let noney = pred.is_noney();
            Pair::leaf(f64::from(u8::from(noney)), weigh(), noney, true)
        }
        Node::Leaf { raw, folded } => match pred {
            Node::Leaf {
                raw: pred_raw,
                folded: pred_folded,
            } => Pair::leaf(
                rules.similarity(folded, pred_folded),
                weigh(),
                if rules.is_reference() {
                    raw == pred_raw
                } else {
                    folded == pred_folded
                },
                raw.is_empty(),
            ),
            _ => Pair::leaf(0.0, weigh(), false, raw.is_empty()),
        },
        Node::List(items, _) => match pred {
            Node::List(pred_items, _) => compare_lists(items, pred_items, rules),
            _ => Pair::leaf(0.0, weigh(), false, items.is_empty()),
        },
        Node::Map(entries, _) => match pred {
            Node::Map(pred_entries, _) => compare_maps(entries, pred_entries, rules),
            _ => Pair::leaf(0.0, weigh(), false, entries.is_empty()),
        },
        Node::AnyOf(alts, _) => {
            // max(key=(average, equal)) keeps the first of equal keys.
            let mut best: Option<(f64, bool, Pair)> = None;
            for alt in alts {
                let pair = compare(alt, pred, rules);
                let average = pair.average();
                let better = best
                    .as_ref()
                    .is_none_or(|(a, e, _)| average > *a || (average == *a && pair.equal && !*e));
                if better {
                    best = Some((average, pair.equal, pair));
                }
            }
            best.map_or_else(|| compare(&MISSING, pred, rules), |(_, _, pair)| pair)
        }
    }
}

fn compare_lists(gold: &[Node], pred: &[Node], rules: Rules) -> Pair {
    let (assignment, mut kept) = assign(gold, pred, rules);
    let mut gold_used = vec![false; gold.len()];
    let mut pred_used = vec![false; pred.len()];
    let mut scores = Vec::new();
    let mut len = 0;
    let mut equal = gold.len() == pred.len();
    for &(row, col) in &assignment {
        // A long list keeps no pair but its numbers: the n matched pairs are compared again,
        // which costs 1/n more, never doubles per level of nesting.
        let pair = match kept.as_mut() {
            Some(pairs) => std::mem::replace(
                &mut pairs[row * pred.len() + col],
                Pair::leaf(0.0, 0, false, false),
            ),
            None => compare(&gold[row], &pred[col], rules),
        };
        scores.extend_from_slice(&pair.scores);
        len += pair.len;
        equal &= pair.equal;
        gold_used[row] = true;
        pred_used[col] = true;
    }
    len += unused_len(gold, &gold_used) + unused_len(pred, &pred_used);
    Pair {
        scores,
        len,
        equal,
        closest_noney: gold.is_empty(),
    }
}

/// The most pairs of items whose comparisons a list matching keeps whole: beyond, it keeps one
/// number a pair (n² of them) and compares the n matched pairs again.
const PAIRS_KEPT: usize = 4096;

/// The matching of list items: munkres on per-pair averages, nudged up one ulp for equal items;
/// with the pairs, row by row, when there are few.
fn assign(gold: &[Node], pred: &[Node], rules: Rules) -> (Vec<(usize, usize)>, Option<Vec<Pair>>) {
    if gold.is_empty() || pred.is_empty() {
        return (Vec::new(), None);
    }
    // The allocations of a matching cost as much as a few dozen steps, however small the lists.
    effort::spend(128);
    let keep = gold.len() * pred.len() <= PAIRS_KEPT;
    let mut kept = Vec::new();
    let profit: Vec<Vec<f64>> = gold
        .iter()
        .map(|g| {
            pred.iter()
                .map(|p| {
                    let pair = compare(g, p, rules);
                    let average = pair.average();
                    // The package's nudge towards exactly equal items.
                    let profit = if pair.equal {
                        average.next_up()
                    } else {
                        average
                    };
                    if keep {
                        kept.push(pair);
                    }
                    profit
                })
                .collect()
        })
        .collect();
    (munkres_max(&profit), keep.then_some(kept))
}

fn unused_len(items: &[Node], used: &[bool]) -> usize {
    items
        .iter()
        .zip(used)
        .filter(|(_, used)| !**used)
        .map(|(item, _)| item.len())
        .sum()
}

fn compare_maps<'a>(
    gold: &'a [(&'a str, Node<'a>)],
    pred: &'a [(&'a str, Node<'a>)],
    rules: Rules,
) -> Pair {
    let extra = pred.iter().filter(|(k, _)| Node::get(gold, k).is_none());
    let keys = gold.iter().chain(extra).map(|(k, _)| *k);
    let mut scores = Vec::new();
    let mut len = 0;
    let mut equal = true;
    let mut closest_empty = true;
    for key in keys {
        let gold_value = Node::get(gold, key);
        let pred_value = Node::get(pred, key);
        let (g, p) = (
            gold_value.unwrap_or(&MISSING),
            pred_value.unwrap_or(&MISSING),
        );
        if gold_value.is_none() && p.is_noney() {
            // A hallucinated empty key: skipped by the scores, counted by the reference's length
            // (not by goldgate's: it predicted nothing).
            if rules.is_reference() {
                len += 1;
            }
            equal = false;
            continue;
        }
        let pair = compare(g, p, rules);
        scores.extend_from_slice(&pair.scores);
        len += pair.len;
        // A missing key whose closest gold is none-like is left out of the closest gold.
        let kept = pred_value.is_some() || !pair.closest_noney;
        closest_empty &= !kept;
        equal &= if pred_value.is_some() {
            pair.equal
        } else {
            !kept
        };
    }
    Pair {
        scores,
        len,
        equal,
        closest_noney: closest_empty,
    }
}

/// The package's leaf score: normalized Levenshtein similarity, 0 below 0.5.
fn similarity(a: &[char], b: &[char]) -> f64 {
    // Out of steps, nothing more is computed: the result is thrown away (`effort::within`).
    if !effort::spend(effort::levenshtein_steps(a.len(), b.len())) {
        return 0.0;
    }
    let longest = a.len().max(b.len());
    let distance = if longest == 0 {
        0.0
    } else {
        levenshtein(a, b) as f64 / longest as f64
    };
    let score = 1.0 - distance;
    if score < 0.5 { 0.0 } else { score }
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    rapidfuzz::distance::levenshtein::distance(a.iter().copied(), b.iter().copied())
}

/// `" ".join(s.strip().lower().split())`: Python's lowercasing (final sigma included) and its
/// whitespace, which adds U+001C..U+001F to Unicode's White_Space.
fn fold(s: &str) -> Vec<char> {
    let lower = s.to_lowercase();
    let mut out = Vec::with_capacity(lower.len());
    for word in lower.split(is_python_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars());
    }
    out
}

fn is_python_space(c: char) -> bool {
    matches!(c, '\u{1c}'..='\u{1f}') || c.is_whitespace()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_lists_cost_what_their_pairs_cost_not_twice_a_level() {
        // [[[…"a"…]]] sixty deep: one pair a level. Comparing the matched pair again at each
        // level doubled the work per level (2^60 comparisons).
        let nest =
            |leaf: &str| (0..60).fold(Tree::Text(leaf.into()), |inner, _| Tree::List(vec![inner]));
        let scored = super::effort::within(100_000, || {
            score_with(&nest("invoice"), &nest("invoce"), Rules::REFERENCE)
        });
        assert_eq!(scored, Ok(1.0 - 1.0 / 7.0));
    }

    #[test]
    fn empty_lists_on_both_sides_weigh_nothing_in_either_profile() {
        // Found by tests/properties.rs: {a: [], b: null} against itself scored 2 in goldgate's
        // profile (a score of 1 over a length of 0 for the empty lists).
        let t = |s: &str| Tree::Text(s.into());
        let tree = |b: Tree| {
            Tree::Map(vec![
                ("a".into(), Tree::List(vec![])),
                ("b".into(), b),
                ("c".into(), Tree::Map(vec![])),
            ])
        };
        let dream = Rules::dream(Normalize::ALL);
        assert_eq!(score_with(&tree(Tree::Null), &tree(Tree::Null), dream), 1.0);
        let (gold, pred) = (tree(t("invoice")), tree(t("invoce")));
        assert_eq!(score_with(&gold, &pred, dream), 1.0 - 1.0 / 7.0);
        assert_eq!(score_with(&gold, &pred, Rules::REFERENCE), 1.0 - 1.0 / 7.0);
    }

    fn t(s: &str) -> Tree {
        Tree::Text(s.into())
    }

    fn list(items: &[&str]) -> Tree {
        Tree::List(items.iter().map(|s| t(s)).collect())
    }

    fn map(entries: Vec<(&str, Tree)>) -> Tree {
        Tree::Map(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    #[test]
    fn case_and_whitespace_fold_but_accents_stay() {
        assert_eq!(
            anls_star(&t("  Hello\u{2028}\tWORLD "), &t("hello world")),
            1.0
        );
        // Python's split() also breaks on the information separators U+001C..U+001F.
        assert_eq!(anls_star(&t("a\u{1c}b"), &t("a b")), 1.0);
        assert_eq!(anls_star(&t("café"), &t("cafe")), 1.0 - 1.0 / 4.0);
        assert_eq!(anls_star(&t("é"), &t("e")), 0.0);
        assert_eq!(anls_star(&t("ΟΔΟΣ"), &t("οδος")), 1.0); // final sigma, as str.lower()
    }

    #[test]
    fn a_similarity_of_exactly_one_half_is_kept() {
        assert_eq!(anls_star(&t("ab"), &t("ac")), 0.5);
        assert_eq!(anls_star(&t("abc"), &t("axy")), 0.0); // 1/3 < 0.5
    }

    #[test]
    fn numbers_and_booleans_become_python_text() {
        let text = |v: serde_json::Value| match Tree::from_json(&v) {
            Tree::Text(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(text(json!(1e16)), "1e+16");
        assert_eq!(text(json!(1e15)), "1000000000000000.0");
        assert_eq!(text(json!(1.0)), "1.0");
        assert_eq!(text(json!(123456789.0)), "123456789.0");
        assert_eq!(text(json!(1e-5)), "1e-05");
        assert_eq!(text(json!(0.0001)), "0.0001");
        assert_eq!(text(json!(0.1 + 0.2)), "0.30000000000000004");
        assert_eq!(text(json!(1.5e300)), "1.5e+300");
        assert_eq!(text(json!(-2.5e-10)), "-2.5e-10");
        assert_eq!(text(json!(-0.0)), "-0.0");
        assert_eq!(text(json!(12)), "12");
        assert_eq!(text(json!(-7)), "-7");
        assert_eq!(text(json!(u64::MAX)), "18446744073709551615");
        assert_eq!(text(json!(true)), "True");
        let score = |g, p| anls_star(&Tree::from_json(&g), &Tree::from_json(&p));
        assert_eq!(score(json!(true), json!("true")), 1.0);
        assert_eq!(score(json!(12.0), json!(12)), 0.5); // "12.0" against "12"
        assert_eq!(score(json!(1e16), json!("10000000000000000")), 0.0);
    }

    #[test]
    fn tuples_and_any_of_are_alternatives() {
        let alts = Tree::AnyOf(vec![t("a"), t("b")]);
        assert_eq!(Tree::from_json(&json!({"__tuple__": ["a", "b"]})), alts);
        assert_eq!(Tree::from_json(&json!({"any_of": ["a", "b"]})), alts);
        let nested = json!({"x": [{"__tuple__": ["a", {"__tuple__": ["b"]}]}]});
        let inner = Tree::AnyOf(vec![t("a"), Tree::AnyOf(vec![t("b")])]);
        assert_eq!(
            Tree::from_json(&nested),
            map(vec![("x", Tree::List(vec![inner]))])
        );
        // Not a single-key object holding a non-empty list: a plain map.
        assert!(matches!(
            Tree::from_json(&json!({"any_of": []})),
            Tree::Map(_)
        ));
        assert_eq!(anls_star(&alts, &t("b")), 1.0);
    }

    #[test]
    fn gold_none_accepts_every_empty_prediction_but_not_the_reverse() {
        for empty in [Tree::Null, t(""), Tree::List(vec![]), Tree::Map(vec![])] {
            assert_eq!(anls_star(&Tree::Null, &empty), 1.0);
        }
        // A missing key is None.
        assert_eq!(anls_star(&map(vec![("a", Tree::Null)]), &map(vec![])), 1.0);
        assert_eq!(anls_star(&Tree::Null, &t(" ")), 0.0);
        assert_eq!(anls_star(&t(""), &Tree::Null), 0.0);
        assert_eq!(anls_star(&Tree::List(vec![]), &Tree::Null), 0.0); // weighs max(0, 1)
    }

    #[test]
    fn empty_containers_weigh_nothing() {
        // The pairwise length is 0, so the score is 1, even across types.
        assert_eq!(anls_star(&Tree::List(vec![]), &Tree::List(vec![])), 1.0);
        assert_eq!(anls_star(&Tree::List(vec![]), &Tree::Map(vec![])), 1.0);
    }

    #[test]
    fn a_prediction_only_key_weighs_one_even_when_empty() {
        let gold = map(vec![("a", t("x"))]);
        for extra in [Tree::Null, t(""), Tree::List(vec![]), t("y")] {
            let pred = map(vec![("a", t("x")), ("b", extra)]);
            assert_eq!(anls_star(&gold, &pred), 0.5);
        }
        // A non-empty extra weighs its own length: (1 + 0) / (1 + max(1, 2)).
        let pred = map(vec![("a", t("x")), ("b", list(&["y", "z"]))]);
        assert_eq!(anls_star(&gold, &pred), 1.0 / 3.0);
    }

    #[test]
    fn a_list_of_texts_against_a_text_is_alternatives() {
        let gold = list(&["abc", "xyz"]);
        assert_eq!(anls_star(&gold, &t("xyz")), 1.0);
        // Against a list it stays a list: "abc" is missing.
        assert_eq!(anls_star(&gold, &list(&["xyz"])), 0.5);
        // The package raises on an empty list; here it stays a list against a text.
        assert_eq!(anls_star(&list(&[]), &t("x")), 0.0);
    }

    #[test]
    fn list_items_match_in_any_order_and_missing_ones_count() {
        assert_eq!(
            anls_star(&list(&["a", "b", "c"]), &list(&["c", "a"])),
            2.0 / 3.0
        );
    }

    #[test]
    fn among_tied_alternatives_the_first_wins() {
        // ["x", "q"] scores (1 + 0) / 2, ["x", "y", "q1", "q2"] scores (1 + 1) / 4: a tie
        // whose winner decides the total.
        let short = list(&["x", "q"]);
        let long = list(&["x", "y", "q1", "q2"]);
        let pred = map(vec![("k", list(&["x", "y"])), ("m", t("z"))]);
        let gold = |alts| map(vec![("k", Tree::AnyOf(alts)), ("m", t("z"))]);
        let short_first = gold(vec![short.clone(), long.clone()]);
        assert_eq!(anls_star(&short_first, &pred), 2.0 / 3.0); // (1 + 0 + 1) / (2 + 1)
        let long_first = gold(vec![long, short]);
        assert_eq!(anls_star(&long_first, &pred), 3.0 / 5.0); // (1 + 1 + 1) / (4 + 1)
    }

    #[test]
    fn an_alternative_equal_to_the_prediction_wins_a_tie() {
        // Both alternatives average 1, but only the second equals the prediction ("X" != "x").
        let loose = map(vec![("a", t("X")), ("b", Tree::Null)]);
        let exact = map(vec![("a", t("x"))]);
        let gold = map(vec![("k", Tree::AnyOf(vec![loose, exact])), ("m", t("z"))]);
        let pred = map(vec![("k", map(vec![("a", t("x"))])), ("m", t("q"))]);
        assert_eq!(anls_star(&gold, &pred), 0.5); // (1 + 0) / (1 + 1), not (1 + 1 + 0) / 3
    }

    #[test]
    fn exactly_equal_items_win_ties_and_munkres_breaks_the_rest() {
        // a-aB and aB-b (0.5 each) tie with aB-aB (1): the nudge picks aB-aB. The remaining
        // zero-score pairs tie too; munkres 1.1.4 pairs a with {z: ""} and the map with b, each
        // weighing 1 (the map against {z: ""} would weigh 2): 1 / 3, not 1 / 4.
        let gold = Tree::List(vec![t("a"), map(vec![("v", t("ab"))]), t("aB")]);
        let pred = Tree::List(vec![t("b"), map(vec![("z", t(""))]), t("aB")]);
        assert_eq!(anls_star(&gold, &pred), 1.0 / 3.0);
    }

    #[test]
    fn munkres_takes_the_last_free_zero_of_a_row() {
        let nudged = 1.0_f64.next_up();
        let profit = vec![
            vec![0.0, 0.0, 0.5],
            vec![0.0, 0.0, 0.0],
            vec![0.5, 0.0, nudged],
        ];
        assert_eq!(munkres_max(&profit), vec![(0, 1), (1, 0), (2, 2)]);
        // Rectangular matrices are padded; only real pairs come back.
        assert_eq!(munkres_max(&[vec![0.2, 0.9, 0.4]]), vec![(0, 1)]);
        assert_eq!(munkres_max(&[vec![1.0], vec![1.0]]), vec![(0, 0)]);
    }
}
