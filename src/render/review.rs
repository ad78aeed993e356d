//! The review queue as a person reads it: an item on the terminal (gold and every pipeline's
//! value side by side, the diff, the confidence, the document and where the gold is written),
//! the queue as a list, and what an action did.

use serde_json::Value as Json;

use super::{Styles, inline_diff, paint};
use crate::review::{GateItem, Item, Predicted};

/// A value as a line shows it: a text as written, `(absent)` for a field not predicted,
/// anything else as compact JSON.
fn shown(value: &Json, predicted: bool) -> String {
    match value {
        // One line a value: a line break or a tab is shown as its escape.
        Json::String(s) if s.contains(['\n', '\r', '\t']) => s
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .replace('\t', "\\t"),
        Json::String(s) => s.clone(),
        Json::Null if !predicted => "(absent)".to_owned(),
        other => other.to_string(),
    }
}

/// The gold variants as one text (`a | b` for several).
fn gold_shown(gold: &[Json]) -> String {
    if gold.is_empty() {
        return "(none)".to_owned();
    }
    gold.iter()
        .map(|g| shown(g, true))
        .collect::<Vec<_>>()
        .join(" | ")
}

fn label(p: &Predicted) -> &str {
    p.pipeline.as_deref().unwrap_or("prediction")
}

/// One item of the queue as the terminal review shows it, `n` of `total`.
pub fn item_screen(item: &Item, n: usize, total: usize) -> String {
    let mut out = format!(
        "{} {n}/{total}  {}  {}\n\n",
        paint(Styles::HEADING, "goldgate review"),
        paint(Styles::BAD, item.kind.name()),
        paint(Styles::HEADING, &item.id)
    );
    let width = super::column_width(item.predictions.iter().map(label), 8);
    out.push_str(&format!("  {:<width$}  {}\n", "case", item.case));
    if let Some(doc) = &item.document {
        out.push_str(&format!("  {:<width$}  {doc}\n", "document"));
    }
    if let Some(field) = &item.field {
        out.push_str(&format!("  {:<width$}  {field}\n", "field"));
        let place = item
            .gold_at
            .as_ref()
            .map(|g| {
                format!(
                    "   {}",
                    paint(Styles::DIM, format!("{}:{}", g.file, g.line))
                )
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "  {:<width$}  {}{place}\n",
            "gold",
            paint(Styles::HEADING, gold_shown(&item.gold))
        ));
        out.push_str(&prediction_lines(item, width));
    }
    for r in &item.regressions {
        let new = super::num(r.new);
        out.push_str(&format!(
            "  {:<width$}  {} {:.4} → {new}\n",
            "dropped", r.metric, r.old
        ));
    }
    out.push_str(&what_blessing_writes(item, width));
    out.push('\n');
    out.push_str(&format!("  {}\n", keys(item).join("  ")));
    out.push_str(&format!(
        "  {} to every remaining item\n",
        ["A", "B", "S"].map(|k| paint(Styles::HEADING, k)).join(" ")
    ));
    out
}

/// Each pipeline's value of an item's field, against the gold, with its scores; `›` marks the
/// one proposed.
fn prediction_lines(item: &Item, width: usize) -> String {
    let mut out = String::new();
    let gold = item
        .gold
        .first()
        .map(|g| shown(g, true))
        .unwrap_or_default();
    for (i, p) in item.predictions.iter().enumerate() {
        let value = shown(&p.value, p.predicted);
        let mark = if Some(i) == item.proposed { "›" } else { " " };
        let value = if p.em >= 1.0 {
            paint(Styles::GOOD, &value)
        } else {
            inline_diff(&gold, &value)
        };
        let confidence = p
            .confidence
            .map(|c| format!("  confidence {c:.2}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{mark} {:<width$}  {value}   {}\n",
            label(p),
            paint(
                Styles::DIM,
                format!("EM {}  ANLS {:.2}{confidence}", p.em, p.anls)
            )
        ));
    }
    out
}

/// The keys an item takes, each with what it does: `b` only where there is a baseline to bless.
fn keys(item: &Item) -> Vec<String> {
    let keys: &[(&str, &str)] = if item.field.is_some() {
        &[
            ("a", "accept as gold"),
            ("v", "add as variant"),
            ("b", "bless baseline"),
            ("s", "skip"),
            ("u", "undo"),
            ("q", "quit"),
        ]
    } else {
        &[
            ("b", "bless baseline"),
            ("s", "skip"),
            ("u", "undo"),
            ("q", "quit"),
        ]
    };
    keys.iter()
        .filter(|(k, _)| *k != "b" || item.baseline)
        .map(|(k, what)| format!("{} {what}", paint(Styles::HEADING, k)))
        .collect()
}

/// What blessing an item without a field writes: its gate's verdict and its pipeline's tests,
/// or its tests.
fn what_blessing_writes(item: &Item, width: usize) -> String {
    let mut out = String::new();
    match &item.gate {
        Some(gate) => {
            let verdict = super::gate::gate_failure(&gate.verdict);
            for line in verdict.iter().flat_map(|v| v.lines()) {
                out.push_str(&format!("  {line}\n"));
            }
            out.push_str(&format!(
                "  {:<width$}  the regression gate{} failed: blessing writes the baseline entries of its tests\n",
                "gate",
                of_pipeline(gate)
            ));
        }
        None if item.field.is_none() => out.push_str(&format!(
            "  {:<width$}  {}\n",
            "tests",
            item.tests.join(", ")
        )),
        None => {}
    }
    out
}

/// ` of `gemini``, for a gate of a pipeline.
fn of_pipeline(gate: &GateItem) -> String {
    gate.pipeline
        .as_ref()
        .map(|p| format!(" of `{p}`"))
        .unwrap_or_default()
}

/// A gate's item in the list: what moved, by how much, with its interval.
fn gate_shown(gate: &GateItem) -> String {
    let of = of_pipeline(gate);
    match &gate.verdict.difference {
        Some(d) => format!(
            "  the regression gate{of}: {} {:+.4} over {} cases, interval {:+.4} to {:+.4} (bless writes its tests)",
            gate.verdict.metric, d.difference, d.cases, d.low, d.high
        ),
        None => format!("  the regression gate{of} (bless writes its tests)"),
    }
}

/// The queue as lines: id, kind, gold, the proposed value, where the gold is written.
pub fn queue_lines(items: &[Item]) -> String {
    if items.is_empty() {
        return "nothing to review: no regression, no failing field, no new test\n".to_owned();
    }
    let mut out = String::new();
    for item in items {
        let what = match item.value_of(None) {
            Some(p) if item.field.is_some() => format!(
                "  {} → {}",
                gold_shown(&item.gold),
                shown(&p.value, p.predicted)
            ),
            _ => item.gate.as_ref().map(gate_shown).unwrap_or_default(),
        };
        let place = item
            .gold_at
            .as_ref()
            .map(|g| format!("  {}:{}", g.file, g.line))
            .unwrap_or_default();
        out.push_str(&format!("{}  {}{what}{place}\n", item.id, item.kind.name()));
    }
    out.push_str(&format!(
        "{} item{} (accept with --accept ID, add a variant with --variant ID, bless with --bless ID)\n",
        items.len(),
        if items.len() == 1 { "" } else { "s" }
    ));
    out
}

/// The one-line diff of an edit: `FILE:LINE: FIELD: BEFORE → AFTER`, or `+ ITEM` for a variant
/// added to a list.
pub fn edit_line(file: &str, line: u64, field: &str, before: Option<&str>, after: &str) -> String {
    match before {
        Some("") => format!("{file}:{line}: {field}: (nothing) → {after}"),
        Some(before) => format!("{file}:{line}: {field}: {before} → {after}"),
        None => format!("{file}:{line}: {field}: + {after}"),
    }
}

/// What a terminal session decided, counted: `reviewed 7 of 7 items: 1 accept, …`.
pub fn session_line(reviewed: usize, total: usize, counts: &[(&str, usize)]) -> String {
    let said: Vec<String> = counts
        .iter()
        .map(|(what, n)| format!("{n} {what}"))
        .collect();
    format!("reviewed {reviewed} of {total} items: {}", said.join(", "))
}
