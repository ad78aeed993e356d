//! KIEval (Khang et al., ICDAR 2025; arXiv:2503.05488), as its published scorer counts, for
//! the `kieval` profile: entity-level precision, recall and F1, and the group-level "aligned"
//! score, where the items of a group (a receipt's menu lines) are first aligned to the gold items
//! by an optimal assignment.
//!
//! The scorer's settings are those its CORD pipeline uses: empty marker `<empty>`, multi-value
//! separator `||`, merged values split, the empty marker not scored, Hungarian grouping. Values
//! are compared as written (the scorer normalizes nothing). Its quirks are kept, since they move
//! the published numbers: a whole value equal to the marker is dropped before a matched pair is
//! compared, but a marker inside a merged value (`a||<empty>`) is then an entity; a predicted key
//! that gold lacks outside groups counts its values unsplit.

use crate::base::value::Value;

/// KIEval's empty marker: a field with no value.
pub const EMPTY: &str = "<empty>";

/// What the first character of a block makes it to KIEval's reader, which asks Python
/// (`chunk[0].isdigit()`, then `int(chunk[0])`), as of Python 3.11 (Unicode 14.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heading {
    /// A group, numbered by the digit in any script (`3` and `٣` are group 3).
    Group(u32),
    /// A digit to `isdigit` that `int` refuses (`²`, `①`): KIEval's reader stops there.
    Refused,
    /// Entities outside groups.
    Entities,
}

/// How KIEval's reader takes a block that starts with `first`.
pub fn heading(first: char) -> Heading {
    use super::python_word::{DECIMAL_ZEROS, DIGITS_ONLY};
    let code = first as u32;
    let zero = DECIMAL_ZEROS.partition_point(|&z| z <= code);
    if let Some(&z) = zero.checked_sub(1).and_then(|at| DECIMAL_ZEROS.get(at))
        && code - z < 10
    {
        return Heading::Group(code - z);
    }
    let at = DIGITS_ONLY.partition_point(|&(_, last)| last < code);
    match DIGITS_ONLY.get(at) {
        Some(&(first, _)) if first <= code => Heading::Refused,
        _ => Heading::Entities,
    }
}

/// The keys KIEval scores (the `shortlist` its scorer takes): any other key is dropped from gold
/// and prediction alike, before anything is counted, as its reader drops it (a group's column, an
/// entity's line; an item left with no key is no item).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortlist {
    keys: std::collections::BTreeSet<String>,
}

/// CORD's 30 classes (CORD v2, `clovaai/cord`'s class definition): the ontology KIEval's
/// `eval_utils.load_ontology` derives from `naver-clova-ix/cord-v2`'s `gt_parse`, a nested
/// `sub` joined by `_` (`menu.sub_nm`), and passes as the shortlist of its CORD run.
pub const CORD_KEYS: [&str; 30] = [
    "menu.cnt",
    "menu.discountprice",
    "menu.etc",
    "menu.itemsubtotal",
    "menu.nm",
    "menu.num",
    "menu.price",
    "menu.sub_cnt",
    "menu.sub_etc",
    "menu.sub_nm",
    "menu.sub_price",
    "menu.sub_unitprice",
    "menu.unitprice",
    "menu.vatyn",
    "sub_total.discount_price",
    "sub_total.etc",
    "sub_total.othersvc_price",
    "sub_total.service_price",
    "sub_total.subtotal_price",
    "sub_total.tax_price",
    "total.cashprice",
    "total.changeprice",
    "total.creditcardprice",
    "total.emoneyprice",
    "total.menuqty_cnt",
    "total.menutype_cnt",
    "total.total_etc",
    "total.total_price",
    "void_menu.nm",
    "void_menu.price",
];

impl Shortlist {
    /// CORD's, as KIEval's CORD run has it ([`CORD_KEYS`]).
    pub fn cord() -> Shortlist {
        Shortlist::of(CORD_KEYS.iter().map(|k| (*k).to_owned()))
    }

    /// The keys given.
    pub fn of(keys: impl IntoIterator<Item = String>) -> Shortlist {
        Shortlist {
            keys: keys.into_iter().collect(),
        }
    }

    /// Whether `key` is scored.
    pub fn holds(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds no key (then nothing is scored).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// KIEval's separator of the values of a multi-valued field.
pub const SEPARATOR: &str = "||";

/// An item of a group: its keys and values, in written order.
pub type Item = Vec<(String, String)>;

/// A document as KIEval reads it: entities outside groups (a key and its values), and groups of
/// items (a group's name and its items, each item its keys and values, in written order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    /// Entities outside groups: key, values (the empty marker already dropped).
    pub entities: Vec<(String, Vec<String>)>,
    /// Groups: name, items.
    pub groups: Vec<(String, Vec<Item>)>,
}

impl Document {
    /// The document of a case's fields: a list of mappings (or one mapping) is a group of items,
    /// any other value an entity (a list its several values); `null` is nothing, a nested value
    /// inside an item is its values joined by `||`.
    pub fn of_fields<'a>(fields: impl IntoIterator<Item = (&'a str, &'a Value)>) -> Document {
        let mut doc = Document::default();
        for (name, value) in fields {
            match value {
                Value::Null => {}
                Value::Text(t) => doc.entities.push((name.to_owned(), vec![t.clone()])),
                Value::Map(entries) => doc.groups.push((name.to_owned(), vec![item(entries)])),
                Value::List(items) if !items.is_empty() && items.iter().all(is_map) => {
                    let items = items
                        .iter()
                        .filter_map(|i| match i {
                            Value::Map(entries) => Some(item(entries)),
                            _ => None,
                        })
                        .filter(|i| !i.is_empty())
                        .collect();
                    doc.groups.push((name.to_owned(), items));
                }
                Value::List(items) => {
                    let values: Vec<String> = items.iter().filter_map(text_of).collect();
                    let values = values.into_iter().filter(|v| v != EMPTY).collect();
                    doc.entities.push((name.to_owned(), values));
                }
            }
        }
        doc
    }
}

impl Document {
    /// The document with only the keys of `shortlist`: entities outside it dropped, and its
    /// columns dropped from every item (an item left with no key dropped, a group left with no
    /// item too), as KIEval's reader drops them.
    pub fn keep_only(mut self, shortlist: &Shortlist) -> Document {
        self.entities.retain(|(key, _)| shortlist.holds(key));
        for (_, items) in &mut self.groups {
            for item in items.iter_mut() {
                item.retain(|(key, _)| shortlist.holds(key));
            }
            items.retain(|item| !item.is_empty());
        }
        self.groups.retain(|(_, items)| !items.is_empty());
        self
    }
}

fn is_map(v: &Value) -> bool {
    matches!(v, Value::Map(_))
}

/// An item's keys and values; a key written twice keeps its last value at its first place.
fn item(entries: &[(String, Value)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let text = text_of(v).unwrap_or_else(|| EMPTY.to_owned());
        match out.iter_mut().find(|(key, _)| key == k) {
            Some(slot) => slot.1 = text,
            None => out.push((k.clone(), text)),
        }
    }
    out
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Text(t) => Some(t.clone()),
        Value::List(items) => {
            let parts: Vec<String> = items.iter().filter_map(text_of).collect();
            (!parts.is_empty()).then(|| parts.join(SEPARATOR))
        }
        Value::Map(entries) => {
            let parts: Vec<String> = entries.iter().filter_map(|(_, v)| text_of(v)).collect();
            (!parts.is_empty()).then(|| parts.join(SEPARATOR))
        }
    }
}

/// KIEval's counts of one kind of thing (entities or items).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    /// Gold ones (KIEval's `label`).
    pub labels: usize,
    /// Right ones (true positives, KIEval's `exact_match`).
    pub exact: usize,
    /// Predicted ones that are not right (false positives).
    pub false_positives: usize,
    /// Gold ones not predicted right (false negatives).
    pub false_negatives: usize,
    /// A wrong value where a gold one is (KIEval's `wrong_match`: min(FP, FN) of a key).
    pub wrong: usize,
    /// A value missing or extra (KIEval's `no_match`: |FP − FN| of a key).
    pub missing: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.labels += o.labels;
        self.exact += o.exact;
        self.false_positives += o.false_positives;
        self.false_negatives += o.false_negatives;
        self.wrong += o.wrong;
        self.missing += o.missing;
    }

    /// Counts a key's comparison: its true and false positives and false negatives.
    fn key(&mut self, tp: usize, fp: usize, fn_: usize, labels: usize) {
        self.exact += tp;
        self.false_positives += fp;
        self.false_negatives += fn_;
        self.wrong += fp.min(fn_);
        self.missing += fp.max(fn_) - fp.min(fn_);
        self.labels += labels;
    }

    /// Values predicted where gold has nothing: each is extra.
    fn extra(&mut self, n: usize) {
        self.false_positives += n;
        self.missing += n;
    }

    /// Gold values nothing was predicted for: each is missing.
    fn lacking(&mut self, n: usize) {
        self.false_negatives += n;
        self.missing += n;
        self.labels += n;
    }

    /// TP / (TP + FP), 0 when nothing was predicted.
    pub fn precision(&self) -> f64 {
        ratio(self.exact, self.exact + self.false_positives)
    }

    /// TP / (TP + FN), 0 when gold has nothing.
    pub fn recall(&self) -> f64 {
        ratio(self.exact, self.exact + self.false_negatives)
    }

    /// KIEval's entity F1: the harmonic mean of precision and recall, 0 when both are 0.
    ///
    /// ```
    /// use goldgate::metrics::kieval::Tally;
    /// let t = Tally { labels: 4, exact: 3, false_positives: 1, false_negatives: 1, wrong: 1, missing: 0 };
    /// assert_eq!(t.f1(), 0.75);
    /// ```
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * (p * r) / (p + r)
        }
    }

    /// KIEval's aligned score: TP / (TP + missing + wrong), 0 when all are 0.
    ///
    /// ```
    /// use goldgate::metrics::kieval::Tally;
    /// let t = Tally { labels: 4, exact: 3, false_positives: 2, false_negatives: 1, wrong: 1, missing: 1 };
    /// assert_eq!(t.aligned(), 0.6);
    /// ```
    pub fn aligned(&self) -> f64 {
        ratio(self.exact, self.exact + self.missing + self.wrong)
    }

    /// TP / (TP + FP + FN).
    pub fn accuracy(&self) -> f64 {
        ratio(
            self.exact,
            self.exact + self.false_positives + self.false_negatives,
        )
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// KIEval's counts of a document or of a set of them: entities outside groups, entities inside
/// groups, the items of groups, and the total KIEval reports (`total.kieval`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// The entities KIEval scores: those outside groups when gold has any, plus those inside
    /// groups when gold has any (KIEval's `total.kieval`). Precision, recall, F1 and aligned
    /// are computed from it.
    pub total: Tally,
    /// Entities outside groups (KIEval's `total.non_group`).
    pub ungrouped: Tally,
    /// Entities inside the items of groups (KIEval's `total.group`).
    pub grouped: Tally,
    /// Items of groups, each right only when all its values are (KIEval's `total.grouping`):
    /// `wrong` a matched item with a wrong value, `missing` a gold item left unmatched or a
    /// predicted one extra.
    pub items: Tally,
}

impl Counts {
    /// Adds another document's counts (KIEval pools its counts over the whole set).
    pub fn add(&mut self, o: &Counts) {
        self.ungrouped.add(&o.ungrouped);
        self.grouped.add(&o.grouped);
        self.items.add(&o.items);
        self.total = total(&self.ungrouped, &self.grouped);
    }
}

/// A part counts in KIEval's total only when the set has gold entities of that part.
fn total(ungrouped: &Tally, grouped: &Tally) -> Tally {
    let mut t = Tally::default();
    if ungrouped.labels > 0 {
        t.add(ungrouped);
    }
    if grouped.labels > 0 {
        t.add(grouped);
    }
    t
}

/// The values of a merged value (`a||b`), optionally without the empty marker.
fn split(value: &str, drop_empty: bool) -> Vec<&str> {
    value
        .split(SEPARATOR)
        .filter(|v| !drop_empty || *v != EMPTY)
        .collect()
}

/// (TP, FP, FN) of two lists of values as multisets.
fn tp_fp_fn(gold: &[&str], pred: &[&str]) -> (usize, usize, usize) {
    let mut left: Vec<&str> = gold.to_vec();
    let mut tp = 0;
    for p in pred {
        if let Some(i) = left.iter().position(|g| g == p) {
            left.remove(i);
            tp += 1;
        }
    }
    (tp, pred.len() - tp, left.len())
}

/// KIEval's counts of one predicted document against its gold.
pub fn score(gold: &Document, pred: &Document) -> Counts {
    let mut counts = Counts::default();
    ungrouped(gold, pred, &mut counts.ungrouped);
    grouped(gold, pred, &mut counts);
    counts.total = total(&counts.ungrouped, &counts.grouped);
    counts
}

fn find<'a, T>(list: &'a [(String, T)], key: &str) -> Option<&'a T> {
    list.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Union of the names of two lists, gold's first.
fn union<'a, A, B>(gold: &'a [(String, A)], pred: &'a [(String, B)]) -> Vec<&'a str> {
    let mut names: Vec<&str> = gold.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in pred {
        if !names.contains(&k.as_str()) {
            names.push(k);
        }
    }
    names
}

fn ungrouped(gold: &Document, pred: &Document, t: &mut Tally) {
    for key in union(&gold.entities, &pred.entities) {
        let predicted = find(&pred.entities, key);
        match find(&gold.entities, key) {
            Some(g) => {
                let gold_values: Vec<&str> = g.iter().flat_map(|v| split(v, true)).collect();
                let pred_values: Vec<&str> = predicted
                    .into_iter()
                    .flatten()
                    .flat_map(|v| split(v, true))
                    .collect();
                let (tp, fp, fn_) = tp_fp_fn(&gold_values, &pred_values);
                t.key(tp, fp, fn_, gold_values.len());
            }
            // A key gold lacks: its values count unsplit, as KIEval counts them.
            None => t.extra(
                predicted
                    .into_iter()
                    .flatten()
                    .filter(|v| *v != EMPTY)
                    .count(),
            ),
        }
    }
}

fn grouped(gold: &Document, pred: &Document, counts: &mut Counts) {
    let no_items: Vec<Item> = Vec::new();
    for name in union(&gold.groups, &pred.groups) {
        let predicted = find(&pred.groups, name).unwrap_or(&no_items);
        let Some(gold_items) = find(&gold.groups, name) else {
            predicted.iter().for_each(|p| extra_item(p, counts));
            continue;
        };
        // How many values of each predicted item are right against each gold item.
        let profit: Vec<Vec<f64>> = gold_items
            .iter()
            .map(|g| {
                predicted
                    .iter()
                    .map(|p| {
                        p.iter()
                            .filter_map(|(k, pv)| {
                                let gv = find(g, k)?;
                                let (tp, _, _) = tp_fp_fn(&split(gv, true), &split(pv, true));
                                Some(tp)
                            })
                            .sum::<usize>() as f64
                    })
                    .collect()
            })
            .collect();
        // Nothing predicted leaves no column: no pair.
        let pairs = lsap_max(&profit);
        for &(gi, pi) in &pairs {
            pair(&gold_items[gi], &predicted[pi], counts);
        }
        for (pi, p) in predicted.iter().enumerate() {
            if !pairs.iter().any(|&(_, q)| q == pi) {
                extra_item(p, counts);
            }
        }
        for (gi, g) in gold_items.iter().enumerate() {
            if !pairs.iter().any(|&(h, _)| h == gi) {
                counts.items.lacking(1);
                counts.grouped.lacking(value_count(g));
            }
        }
    }
}

/// The values of an item, the empty marker dropped.
fn value_count(item: &[(String, String)]) -> usize {
    item.iter().map(|(_, v)| split(v, true).len()).sum()
}

/// A predicted item aligned to no gold item: it and its values are extra.
fn extra_item(item: &[(String, String)], counts: &mut Counts) {
    counts.items.extra(1);
    counts.grouped.extra(value_count(item));
}

/// A gold item and the predicted item aligned to it.
fn pair(gold: &[(String, String)], pred: &[(String, String)], counts: &mut Counts) {
    let given = |item: &[(String, String)]| -> Vec<(String, String)> {
        item.iter().filter(|(_, v)| v != EMPTY).cloned().collect()
    };
    let (g, p) = (given(gold), given(pred));
    let same = g.len() == p.len() && g.iter().all(|(k, v)| find(&p, k) == Some(v));
    if same {
        counts.items.exact += 1;
    } else {
        counts.items.false_positives += 1;
        counts.items.false_negatives += 1;
        counts.items.wrong += 1;
    }
    counts.items.labels += 1;
    let t = &mut counts.grouped;
    for (k, pv) in &p {
        match find(&g, k) {
            // A whole value equal to the marker is gone here, but one inside a merged value
            // is an entity: the pair is compared without dropping it, as KIEval does.
            Some(gv) => {
                let gold_values = split(gv, false);
                let (tp, fp, fn_) = tp_fp_fn(&gold_values, &split(pv, false));
                t.key(tp, fp, fn_, gold_values.len());
            }
            None => t.extra(split(pv, false).len()),
        }
    }
    for (k, gv) in &g {
        if find(&p, k).is_none() {
            t.lacking(split(gv, false).len());
        }
    }
}

/// The assignment of rows to columns of greatest total profit, as SciPy's
/// `linear_sum_assignment(-profit)` finds it (the shortest augmenting path of Crouse, 2016,
/// step for step): among assignments of equal profit KIEval keeps the one SciPy picks, and that
/// choice moves its wrong and missing counts. Returns (row, column) pairs.
pub(crate) fn lsap_max(profit: &[Vec<f64>]) -> Vec<(usize, usize)> {
    let rows = profit.len();
    let cols = profit.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 {
        return Vec::new();
    }
    // SciPy solves the wide problem: more rows than columns is solved transposed.
    let transpose = cols < rows;
    let (nr, nc) = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let cost: Vec<f64> = (0..nr)
        .flat_map(|i| {
            (0..nc).map(move |j| {
                if transpose {
                    -profit[j][i]
                } else {
                    -profit[i][j]
                }
            })
        })
        .collect();
    super::effort::spend((nr * nc) as u64);
    let mut lsap = Lsap {
        nc,
        cost,
        u: vec![0.0; nr],
        v: vec![0.0; nc],
        shortest: vec![f64::INFINITY; nc],
        path: vec![usize::MAX; nc],
        col4row: vec![usize::MAX; nr],
        row4col: vec![usize::MAX; nc],
        sr: vec![false; nr],
        sc: vec![false; nc],
        remaining: vec![0; nc],
    };
    for cur in 0..nr {
        // Finite costs always leave a column to reach.
        let Some((sink, min_val)) = lsap.augmenting_path(cur) else {
            return Vec::new();
        };
        lsap.update_duals(cur, min_val);
        lsap.augment(cur, sink);
    }
    (0..nr)
        .map(|r| {
            if transpose {
                (lsap.col4row[r], r)
            } else {
                (r, lsap.col4row[r])
            }
        })
        .collect()
}

/// The state of SciPy's `solve` for a cost matrix of `nc` columns (row-major), named as there:
/// the duals `u` and `v`, the shortest path lengths and predecessors, the assignment both ways,
/// the rows and columns scanned and the columns left to scan.
struct Lsap {
    nc: usize,
    cost: Vec<f64>,
    u: Vec<f64>,
    v: Vec<f64>,
    shortest: Vec<f64>,
    path: Vec<usize>,
    col4row: Vec<usize>,
    row4col: Vec<usize>,
    sr: Vec<bool>,
    sc: Vec<bool>,
    remaining: Vec<usize>,
}

impl Lsap {
    /// SciPy's `augmenting_path`: the shortest path from row `cur` to an unassigned column (the
    /// sink), and its length; `None` when no column can be reached.
    fn augmenting_path(&mut self, cur: usize) -> Option<(usize, f64)> {
        let nc = self.nc;
        let mut min_val = 0.0;
        let mut left = nc;
        for (it, r) in self.remaining.iter_mut().enumerate() {
            *r = nc - it - 1;
        }
        self.sr.fill(false);
        self.sc.fill(false);
        self.shortest.fill(f64::INFINITY);
        let mut i = cur;
        loop {
            let mut index = usize::MAX;
            let mut lowest = f64::INFINITY;
            self.sr[i] = true;
            for (it, &j) in self.remaining.iter().take(left).enumerate() {
                let r = min_val + self.cost[i * nc + j] - self.u[i] - self.v[j];
                if r < self.shortest[j] {
                    self.path[j] = i;
                    self.shortest[j] = r;
                }
                if self.shortest[j] < lowest
                    || (self.shortest[j] == lowest && self.row4col[j] == usize::MAX)
                {
                    lowest = self.shortest[j];
                    index = it;
                }
            }
            min_val = lowest;
            if index == usize::MAX {
                return None;
            }
            let j = self.remaining[index];
            self.sc[j] = true;
            left -= 1;
            self.remaining[index] = self.remaining[left];
            if self.row4col[j] == usize::MAX {
                return Some((j, min_val));
            }
            i = self.row4col[j];
        }
    }

    /// The duals after a path of length `min_val` from row `cur`, as SciPy updates them.
    fn update_duals(&mut self, cur: usize, min_val: f64) {
        self.u[cur] += min_val;
        for r in 0..self.u.len() {
            if self.sr[r] && r != cur {
                self.u[r] += min_val - self.shortest[self.col4row[r]];
            }
        }
        for c in 0..self.nc {
            if self.sc[c] {
                self.v[c] -= min_val - self.shortest[c];
            }
        }
    }

    /// The assignment along the path from the sink back to row `cur`.
    fn augment(&mut self, cur: usize, sink: usize) {
        let mut j = sink;
        loop {
            let r = self.path[j];
            self.row4col[j] = r;
            std::mem::swap(&mut self.col4row[r], &mut j);
            if r == cur {
                break;
            }
        }
    }
}

#[cfg(test)]
mod headings {
    use super::{Heading, heading};

    #[test]
    fn a_block_heading_is_read_as_python_reads_it() {
        assert_eq!(heading('0'), Heading::Group(0));
        assert_eq!(heading('3'), Heading::Group(3));
        assert_eq!(heading('٣'), Heading::Group(3));
        assert_eq!(heading('९'), Heading::Group(9));
        assert_eq!(heading('𝟘'), Heading::Group(0));
        assert_eq!(heading('²'), Heading::Refused);
        assert_eq!(heading('①'), Heading::Refused);
        assert_eq!(heading('Ⅻ'), Heading::Entities);
        assert_eq!(heading('m'), Heading::Entities);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn entities(pairs: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.iter().map(|s| (*s).to_owned()).collect()))
            .collect()
    }

    fn tally(
        labels: usize,
        exact: usize,
        fp: usize,
        fn_: usize,
        wrong: usize,
        missing: usize,
    ) -> Tally {
        Tally {
            labels,
            exact,
            false_positives: fp,
            false_negatives: fn_,
            wrong,
            missing,
        }
    }

    #[test]
    fn entities_outside_groups_count_as_multisets_of_split_values() {
        let gold = Document {
            entities: entities(&[("date", &["1/2"]), ("tel", &["1||2"]), ("name", &[EMPTY])]),
            groups: vec![],
        };
        let pred = Document {
            entities: entities(&[("date", &["1/3"]), ("tel", &["2"]), ("extra", &["a||b"])]),
            groups: vec![],
        };
        // date: wrong (1 FP, 1 FN); tel: 1 right, 1 missing; extra: one unsplit value extra;
        // name: the marker is no entity.
        let c = score(&gold, &pred);
        assert_eq!(c.ungrouped, tally(3, 1, 2, 2, 1, 2));
        assert_eq!(c.total, c.ungrouped);
        assert_eq!(c.total.precision(), 1.0 / 3.0);
        assert_eq!(c.total.recall(), 1.0 / 3.0);
        assert_eq!(c.total.aligned(), 0.25);
    }

    #[test]
    fn items_are_aligned_before_their_entities_are_counted() {
        // Gold lines a, b; predicted lines in the other order, b's price wrong, plus one extra.
        let gold = Document {
            entities: vec![],
            groups: vec![(
                "0".into(),
                vec![
                    item(&[("nm", "tea"), ("price", "3"), ("cnt", EMPTY)]),
                    item(&[("nm", "cake"), ("price", "5"), ("cnt", "2")]),
                ],
            )],
        };
        let pred = Document {
            entities: vec![],
            groups: vec![(
                "0".into(),
                vec![
                    item(&[("nm", "cake"), ("price", "6"), ("cnt", "2")]),
                    item(&[("nm", "tea"), ("price", "3"), ("cnt", EMPTY)]),
                    item(&[("nm", "x"), ("price", EMPTY), ("cnt", EMPTY)]),
                ],
            )],
        };
        let c = score(&gold, &pred);
        // tea ↔ tea: 2 right; cake ↔ cake: 2 right, price wrong; x: 1 extra value.
        assert_eq!(c.grouped, tally(5, 4, 2, 1, 1, 1));
        assert_eq!(c.items, tally(2, 1, 2, 1, 1, 1));
        assert!((c.total.f1() - 8.0 / 11.0).abs() < 1e-12);
        assert_eq!(c.total.aligned(), 4.0 / 6.0);
    }

    #[test]
    fn a_group_gold_lacks_is_all_extra_and_one_prediction_lacks_all_missing() {
        let gold = Document {
            entities: vec![],
            groups: vec![("0".into(), vec![item(&[("a", "1||2"), ("b", EMPTY)])])],
        };
        let pred = Document {
            entities: vec![],
            groups: vec![("1".into(), vec![item(&[("c", "x"), ("d", EMPTY)])])],
        };
        let c = score(&gold, &pred);
        assert_eq!(c.grouped, tally(2, 0, 1, 2, 0, 3));
        assert_eq!(c.items, tally(1, 0, 1, 1, 0, 2));
        assert_eq!(c.total.f1(), 0.0);
    }

    #[test]
    fn a_part_without_gold_entities_is_left_out_of_the_total() {
        let gold = Document {
            entities: vec![],
            groups: vec![("0".into(), vec![item(&[("a", "1")])])],
        };
        let pred = Document {
            entities: entities(&[("z", &["9"])]),
            groups: vec![("0".into(), vec![item(&[("a", "1")])])],
        };
        let c = score(&gold, &pred);
        assert_eq!(c.ungrouped, tally(0, 0, 1, 0, 0, 1));
        assert_eq!(c.total, tally(1, 1, 0, 0, 0, 0));
        assert_eq!(c.total.f1(), 1.0);
    }

    #[test]
    fn counts_pool_over_documents() {
        let mut all = Counts::default();
        all.add(&Counts {
            grouped: tally(2, 1, 1, 1, 1, 0),
            ..Counts::default()
        });
        all.add(&Counts {
            ungrouped: tally(0, 0, 3, 0, 0, 3),
            grouped: tally(2, 2, 0, 0, 0, 0),
            ..Counts::default()
        });
        assert_eq!(all.total, tally(4, 3, 1, 1, 1, 0));
        assert_eq!(all.total.f1(), 0.75);
    }

    #[test]
    fn the_assignment_is_optimal_and_breaks_ties_as_scipy_does() {
        assert_eq!(
            lsap_max(&[vec![1.0, 3.0], vec![3.0, 2.0]]),
            [(0, 1), (1, 0)]
        );
        // scipy.optimize.linear_sum_assignment(-np.zeros((2, 2))) → ([0, 1], [0, 1]).
        assert_eq!(
            lsap_max(&[vec![0.0, 0.0], vec![0.0, 0.0]]),
            [(0, 0), (1, 1)]
        );
        // Three rows, two columns: the transposed problem; the best two rows are taken.
        assert_eq!(
            lsap_max(&[vec![1.0, 0.0], vec![5.0, 0.0], vec![0.0, 4.0]]),
            [(1, 0), (2, 1)]
        );
        // linear_sum_assignment(-np.array([[1, 1, 0], [1, 1, 0]])) → ([0, 1], [0, 1]).
        assert_eq!(
            lsap_max(&[vec![1.0, 1.0, 0.0], vec![1.0, 1.0, 0.0]]),
            [(0, 0), (1, 1)]
        );
        // linear_sum_assignment(-np.ones((3, 2))) → ([0, 1], [0, 1]).
        assert_eq!(
            lsap_max(&[vec![1.0, 1.0], vec![1.0, 1.0], vec![1.0, 1.0]]),
            [(0, 0), (1, 1)]
        );
    }

    #[test]
    fn fields_become_a_document() {
        let fields = [
            ("date".to_owned(), Value::Text("1/2".into())),
            (
                "0".to_owned(),
                Value::List(vec![Value::Map(vec![
                    ("nm".into(), Value::Text("tea".into())),
                    ("cnt".into(), Value::Null),
                ])]),
            ),
            (
                "tel".to_owned(),
                Value::List(vec![Value::Text("1".into()), Value::Text(EMPTY.into())]),
            ),
            ("none".to_owned(), Value::Null),
        ];
        let doc = Document::of_fields(fields.iter().map(|(k, v)| (k.as_str(), v)));
        assert_eq!(
            doc.entities,
            entities(&[("date", &["1/2"]), ("tel", &["1"])])
        );
        assert_eq!(
            doc.groups,
            vec![("0".to_owned(), vec![item(&[("nm", "tea"), ("cnt", EMPTY)])])]
        );
    }
}
