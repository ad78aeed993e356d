//! ANLS* of a nested value in the default profile (SPEC §4.3): lists matched order-free by an
//! optimal assignment, mappings over the union of keys, leaves compared as in §4.2.

use super::text::anls_normalized;
use crate::normalize::Normalize;
use crate::value::Value;

/// ANLS* of `pred` against `gold`, and whether it is an exact match (every leaf exact, nothing
/// missing or extra).
///
/// ```
/// use goldgate::{Normalize, Value, metrics::score_tree};
/// let t = |s: &str| Value::Text(s.into());
/// let gold = Value::List(vec![t("a"), t("b")]);
/// let pred = Value::List(vec![t("b"), t("a")]);
/// assert_eq!(score_tree(&gold, &pred, Normalize::ALL), (1.0, true));
/// let short = Value::List(vec![t("a")]);
/// assert_eq!(score_tree(&gold, &short, Normalize::ALL), (0.5, false));
/// ```
pub fn score_tree(gold: &Value, pred: &Value, normalize: Normalize) -> (f64, bool) {
    // Each text is normalized once here, not once per pair the list matching tries.
    scored(&normalized(gold, normalize), &normalized(pred, normalize))
}

/// A tree with every text normalized.
fn normalized(value: &Value, normalize: Normalize) -> Value {
    match value {
        Value::Null => Value::Null,
        Value::Text(t) => Value::Text(normalize.apply(t)),
        Value::List(items) => Value::List(items.iter().map(|v| normalized(v, normalize)).collect()),
        Value::Map(entries) => Value::Map(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), normalized(v, normalize)))
                .collect(),
        ),
    }
}

/// ANLS* of two normalized trees, and whether they match exactly.
fn scored(gold: &Value, pred: &Value) -> (f64, bool) {
    let (sum, count) = tally(gold, pred);
    let score = if count == 0.0 { 1.0 } else { sum / count };
    (score, sum == count)
}

/// (sum of leaf scores, number of leaves counted) of a pair of subtrees.
fn tally(gold: &Value, pred: &Value) -> (f64, f64) {
    match (gold, pred) {
        (Value::Null, p) => (if p.is_empty() { 1.0 } else { 0.0 }, 1.0),
        (Value::Text(g), Value::Text(p)) => (anls_normalized(g, p), 1.0),
        (Value::Text(g), Value::Null) => (anls_normalized(g, ""), 1.0),
        (Value::List(g), Value::List(p)) => tally_lists(g, p),
        (Value::List(g), Value::Null) => tally_lists(g, &[]),
        (Value::Map(g), Value::Map(p)) => tally_maps(g, p),
        (Value::Map(g), Value::Null) => tally_maps(g, &[]),
        // A value of the wrong shape scores nothing and weighs what gold weighs.
        (g, _) => (0.0, leaves(g).max(1.0)),
    }
}

fn leaves(v: &Value) -> f64 {
    match v {
        Value::List(items) => items.len() as f64,
        Value::Map(entries) => entries.iter().map(|(_, v)| leaves(v).max(1.0)).sum(),
        _ => 1.0,
    }
}

fn tally_maps(gold: &[(String, Value)], pred: &[(String, Value)]) -> (f64, f64) {
    let (mut sum, mut count) = (0.0, 0.0);
    for (key, g) in gold {
        let p = pred
            .iter()
            .find(|(k, _)| k == key)
            .map_or(&Value::Null, |(_, v)| v);
        let (s, c) = tally(g, p);
        sum += s;
        count += c;
    }
    // An extra key counts against the score when it holds something.
    for (key, p) in pred {
        if !p.is_empty() && !gold.iter().any(|(k, _)| k == key) {
            count += 1.0;
        }
    }
    (sum, count)
}

fn tally_lists(gold: &[Value], pred: &[Value]) -> (f64, f64) {
    if gold.is_empty() && pred.is_empty() {
        return (1.0, 1.0);
    }
    let scores: Vec<Vec<f64>> = gold
        .iter()
        .map(|g| pred.iter().map(|p| scored(g, p).0).collect())
        .collect();
    let matched: f64 = assign_max(&scores)
        .into_iter()
        .map(|(i, j)| scores[i][j])
        .sum();
    (matched, gold.len().max(pred.len()) as f64)
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

/// How the items of two lists were matched, gold order first, then the extra predicted items.
///
/// ```
/// use goldgate::{Normalize, Value, metrics::{ItemMatch, match_items}};
/// let t = |s: &str| Value::Text(s.into());
/// let m = match_items(&[t("a"), t("b")], &[t("b"), t("x")], Normalize::ALL);
/// assert_eq!(m[0], ItemMatch { gold: Some(0), pred: Some(1), score: 0.0 });
/// assert_eq!(m[1], ItemMatch { gold: Some(1), pred: Some(0), score: 1.0 });
/// ```
pub fn match_items(gold: &[Value], pred: &[Value], normalize: Normalize) -> Vec<ItemMatch> {
    let gold_n: Vec<Value> = gold.iter().map(|g| normalized(g, normalize)).collect();
    let pred_n: Vec<Value> = pred.iter().map(|p| normalized(p, normalize)).collect();
    let scores: Vec<Vec<f64>> = gold_n
        .iter()
        .map(|g| pred_n.iter().map(|p| scored(g, p).0).collect())
        .collect();
    let pairs = assign_max(&scores);
    let mut out: Vec<ItemMatch> = (0..gold.len())
        .map(|i| match pairs.iter().find(|(g, _)| *g == i) {
            Some(&(g, p)) => ItemMatch {
                gold: Some(g),
                pred: Some(p),
                score: scores[g][p],
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
            .filter(|j| !pairs.iter().any(|(_, p)| p == j))
            .map(|j| ItemMatch {
                gold: None,
                pred: Some(j),
                score: 0.0,
            }),
    );
    out
}

/// The assignment of rows to columns maximising the total score (Hungarian method, O(n²m)).
pub(crate) fn assign_max(scores: &[Vec<f64>]) -> Vec<(usize, usize)> {
    let rows = scores.len();
    let cols = scores.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    let transposed = rows > cols;
    let (n, m) = if transposed {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let cost = |i: usize, j: usize| {
        if transposed {
            -scores[j][i]
        } else {
            -scores[i][j]
        }
    };
    // Potentials and matching, 1-based with a virtual column 0 (e-maxx formulation).
    let mut u = vec![0.0; n + 1];
    let mut v = vec![0.0; m + 1];
    let mut owner = vec![0usize; m + 1];
    let mut way = vec![0usize; m + 1];
    for i in 1..=n {
        owner[0] = i;
        let mut j0 = 0;
        let mut minv = vec![f64::INFINITY; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let i0 = owner[j0];
            let mut delta = f64::INFINITY;
            let mut j1 = 0;
            for j in 1..=m {
                if !used[j] {
                    let cur = cost(i0 - 1, j - 1) - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[owner[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if owner[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            owner[j0] = owner[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    (1..=m)
        .filter(|&j| owner[j] != 0)
        .map(|j| {
            if transposed {
                (j - 1, owner[j] - 1)
            } else {
                (owner[j] - 1, j - 1)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_is_optimal_not_greedy() {
        // Greedy would take (0,0)=0.9 then (1,1)=0.1; the optimum is 0.8 + 0.8.
        let scores = vec![vec![0.9, 0.8], vec![0.8, 0.1]];
        let mut a = assign_max(&scores);
        a.sort();
        assert_eq!(a, vec![(0, 1), (1, 0)]);
        let tall = vec![vec![0.1], vec![0.7], vec![0.3]];
        assert_eq!(assign_max(&tall), vec![(1, 0)]);
    }

    #[test]
    fn maps_count_missing_and_extra_keys() {
        let t = |s: &str| Value::Text(s.into());
        let gold = Value::Map(vec![("a".into(), t("x")), ("b".into(), t("y"))]);
        let pred = Value::Map(vec![
            ("a".into(), t("x")),
            ("c".into(), t("z")),
            ("d".into(), Value::Null),
        ]);
        // a: 1, b missing: 0, c extra: counted, d null extra: not counted -> 1/3
        assert_eq!(score_tree(&gold, &pred, Normalize::ALL), (1.0 / 3.0, false));
    }
}
