//! The failure message of one case.

use std::fmt::Write;

use super::compare::threshold_text;
use super::{Styles, inline_diff, line_diff, paint};
use crate::base::budget::{MESSAGE_ITEMS, summarised};
use crate::base::normalize::Normalize;
use crate::base::value::Value;
use crate::evaluate::outcome::{FieldRow, MatchedItem, Outcome, ThresholdVerdict};
use crate::model::case::{Case, Profile, Scoring};
use crate::model::metric::Metric;
use crate::model::rubric::RubricKind;

/// The failure message: verdict line, failed rubrics and thresholds, each field involved with
/// gold, prediction, normalized forms, diff and scores, the table of every field, and where.
pub fn failure_message(case: &Case, outcome: &Outcome) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", verdict_line(outcome));

    let failed_rubrics: Vec<_> = outcome.rubrics.iter().filter(|r| !r.verdict.held).collect();
    let failed_thresholds: Vec<&ThresholdVerdict> =
        outcome.thresholds.iter().filter(|t| !t.held).collect();
    if !failed_rubrics.is_empty() || !failed_thresholds.is_empty() {
        out.push('\n');
    }
    for r in failed_rubrics.iter().take(MESSAGE_ITEMS) {
        let cost = match r.rubric.kind {
            RubricKind::MustRight => "closes the gate".to_owned(),
            RubricKind::EasyWrong if case.scoring == Scoring::Fraction => {
                "counts against the share that holds".to_owned()
            }
            RubricKind::EasyWrong => format!("costs {}", r.rubric.penalty),
        };
        let _ = writeln!(
            out,
            "{} `{}` failed ({cost}): {}",
            r.rubric.kind.key(),
            one_line(&r.rubric.label),
            super::finding::verdict(r.verdict.checked, &r.verdict.finding)
        );
    }
    more(&mut out, failed_rubrics.len(), "failed rubrics");
    for t in &failed_thresholds {
        let _ = writeln!(out, "threshold {}", threshold_text(t));
    }

    let involved = involved_fields(outcome);
    for row in involved.iter().take(MESSAGE_ITEMS) {
        out.push('\n');
        field_block(&mut out, row, case);
    }
    if involved.len() > MESSAGE_ITEMS {
        out.push('\n');
        more(&mut out, involved.len(), "fields");
    }

    extra_fields(&mut out, &outcome.extra_fields);

    if !outcome.fields.is_empty() {
        out.push('\n');
        field_table(&mut out, &outcome.fields);
    }

    places(&mut out, &failed_rubrics, &failed_thresholds);

    out.trim_end().to_owned()
}

/// The line after the first [`MESSAGE_ITEMS`] of `total` things shown: how many more there are.
/// The report (the run's record) keeps them all.
fn more(out: &mut String, total: usize, things: &str) {
    if total > MESSAGE_ITEMS {
        let _ = writeln!(
            out,
            "… and {} more {things} (the report has them all)",
            total - MESSAGE_ITEMS
        );
    }
}

/// The predicted fields gold does not list, by name.
fn extra_fields(out: &mut String, extra: &[(String, Value)]) {
    if extra.is_empty() {
        return;
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{}",
        paint(Styles::HEADING, "extra fields, predicted but not in gold")
    );
    let shown = &extra[..extra.len().min(MESSAGE_ITEMS)];
    let names: Vec<String> = shown.iter().map(|(n, _)| fit(n, NAME_SHOWN)).collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (name, (_, value)) in names.iter().zip(shown) {
        let _ = writeln!(out, "  {name:<width$}  {}", fit(&value.as_text(), 60));
    }
    more(out, extra.len(), "extra fields");
}

/// Where each failed rubric and threshold is written, a line each.
fn places(
    out: &mut String,
    failed_rubrics: &[&crate::evaluate::outcome::RubricVerdict],
    failed_thresholds: &[&ThresholdVerdict],
) {
    out.push('\n');
    for r in failed_rubrics.iter().take(MESSAGE_ITEMS) {
        let via = match &r.rubric.included_at {
            Some((file, line)) => format!(", included at {}:{line}", file.display()),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "at {}:{} ({} `{}`{via})",
            r.rubric.file.display(),
            r.rubric.line,
            r.rubric.kind.key(),
            one_line(&r.rubric.label)
        );
    }
    more(out, failed_rubrics.len(), "failed rubrics");
    for t in failed_thresholds {
        let _ = writeln!(
            out,
            "at {}:{} (thresholds.{})",
            t.file.display(),
            t.line,
            t.name
        );
    }
}

/// The blocks of the named fields (gold, prediction, diff, scores), as the failure message shows
/// them: what a regression message shows of the fields that dropped.
pub fn field_blocks(case: &Case, outcome: &Outcome, names: &[&str]) -> String {
    let mut out = String::new();
    let rows: Vec<&FieldRow> = outcome
        .fields
        .iter()
        .filter(|f| names.contains(&f.name.as_str()))
        .collect();
    for row in rows.iter().take(MESSAGE_ITEMS) {
        out.push('\n');
        field_block(&mut out, row, case);
    }
    if rows.len() > MESSAGE_ITEMS {
        out.push('\n');
        more(&mut out, rows.len(), "fields");
    }
    out
}

fn verdict_line(outcome: &Outcome) -> String {
    let mut parts = Vec::new();
    let closed: Vec<String> = outcome
        .closed_by()
        .map(|r| format!("`{}`", one_line(&r.rubric.label)))
        .collect();
    if !closed.is_empty() {
        parts.push(format!(
            "gate closed by must_right {}",
            summarised(&closed, ", ")
        ));
    }
    for t in outcome.thresholds.iter().filter(|t| !t.held) {
        parts.push(threshold_text(t));
    }
    parts.extend(outcome.problems.iter().map(super::finding::problem));
    let score = format!("score {:.4}", outcome.score);
    if parts.is_empty() {
        // A failure with an open gate and every threshold held cannot happen; say so rather than nothing.
        return paint(Styles::BAD, format!("case failed ({score})"));
    }
    paint(
        Styles::BAD,
        format!("case failed: {} ({score})", parts.join("; ")),
    )
}

/// Fields named by failed rubrics, then (when a metric threshold failed) the fields that are not exact.
fn involved_fields(outcome: &Outcome) -> Vec<&FieldRow> {
    let mut names: Vec<&str> = outcome
        .rubrics
        .iter()
        .filter(|r| !r.verdict.held)
        .filter_map(|r| r.rubric.field())
        .collect();
    let placing = |m: Metric| matches!(m, Metric::Grounded | Metric::Iou | Metric::PageMatch);
    // A bound on grounding fails for the fields that were not found where gold says.
    if outcome
        .thresholds
        .iter()
        .any(|t| !t.held && placing(t.metric))
    {
        names.extend(
            outcome
                .fields
                .iter()
                .filter(|f| f.grounding.is_some_and(|g| g.grounded < 1.0))
                .map(|f| f.name.as_str()),
        );
    }
    let metric_failed = outcome
        .thresholds
        .iter()
        .any(|t| !t.held && t.metric != Metric::Score && !placing(t.metric));
    if metric_failed {
        let only_critical = outcome
            .thresholds
            .iter()
            .filter(|t| !t.held && t.metric != Metric::Score)
            .all(|t| matches!(t.metric, Metric::ExactCritical | Metric::AnlsCritical));
        names.extend(
            outcome
                .fields
                .iter()
                .filter(|f| f.em < 1.0 && (f.critical || !only_critical))
                .map(|f| f.name.as_str()),
        );
    }
    // Sets, not searches of lists: a case of 100,000 failing fields is named in linear time.
    let names: std::collections::HashSet<&str> = names.into_iter().collect();
    let mut seen = std::collections::HashSet::new();
    outcome
        .fields
        .iter()
        .filter(|f| names.contains(f.name.as_str()) && seen.insert(f.name.as_str()))
        .collect()
}

fn field_block(out: &mut String, row: &FieldRow, case: &Case) {
    let critical = if row.critical { " (critical)" } else { "" };
    let _ = writeln!(
        out,
        "{}",
        paint(
            Styles::HEADING,
            format!("field `{}`{critical}", one_line(&row.name))
        )
    );
    gold_lines(out, row);
    let prediction = match (&row.misnamed, row.predicted) {
        (_, true) => indent_value(&row.prediction),
        (Some(key), false) => format!(
            "(absent; the prediction has `{}`, maybe a misnamed key)",
            one_line(key)
        ),
        (None, false) => "(absent)".to_owned(),
    };
    let _ = writeln!(out, "  {:<12}{prediction}", "prediction");
    difference(out, row, case);
    if let Some(note) = &row.note {
        let _ = writeln!(out, "  {:<12}{}", "note", super::finding::note(note));
    }
    let em = if row.em == 1.0 {
        paint(Styles::GOOD, "1")
    } else {
        paint(Styles::BAD, "0")
    };
    let _ = writeln!(
        out,
        "  EM {em}   ANLS {:.4}   confidence {}",
        row.anls,
        row.confidence.map_or("-".into(), |c| c.to_string())
    );
    if let Some(g) = &row.grounding {
        place_lines(out, g);
    }
}

/// A field's gold variants, as many as a message shows, the closest marked.
fn gold_lines(out: &mut String, row: &FieldRow) {
    let closest = row.closest;
    for i in shown_variants(row.gold.len(), closest) {
        let label = if i == 0 { "gold" } else { "" };
        let mark = if row.gold.len() > 1 && i == closest {
            "   (closest)"
        } else {
            ""
        };
        let _ = writeln!(out, "  {label:<12}{}{mark}", indent_value(&row.gold[i]));
    }
    if row.gold.len() > MESSAGE_ITEMS {
        let _ = writeln!(
            out,
            "  {:<12}… and {} more variants",
            "",
            row.gold.len() - MESSAGE_ITEMS
        );
    }
}

/// How the prediction differs from the gold the score came from: a line diff of nested values
/// (and their items), else the texts normalized and diffed inline.
fn difference(out: &mut String, row: &FieldRow, case: &Case) {
    // The variant the score came from, its own alternatives resolved as the scoring chose them.
    let gold = row.resolved.as_ref().unwrap_or(&row.gold[row.closest]);
    if row.resolved.is_some() {
        let _ = writeln!(out, "  {:<12}{}", "closest", indent_value(gold));
    }
    // With rules on paths inside, the diff and the items are of the compared forms.
    let (gold, prediction, diff) = match &row.compared {
        Some((g, p)) => (g, p, "diff as compared"),
        None => (gold, &row.prediction, "diff"),
    };
    if gold.is_nested() || prediction.is_nested() {
        let _ = writeln!(out, "  {diff}");
        for line in line_diff(&gold.to_string(), &prediction.to_string()) {
            let _ = writeln!(out, "    {line}");
        }
        if let (Value::List(g), Value::List(p)) = (gold, prediction)
            && !row.items.is_empty()
        {
            items_block(out, g, p, &row.items);
        }
        return;
    }
    let (g, p) = (gold.as_text(), prediction.as_text());
    let (ng, np) = (
        shown_normalize(case).apply(&g),
        shown_normalize(case).apply(&p),
    );
    if ng != g || np != p {
        let _ = writeln!(
            out,
            "  {:<12}gold `{}`, prediction `{}`",
            "normalized",
            cut(&ng),
            cut(&np)
        );
    }
    if g != p {
        let _ = writeln!(out, "  {:<12}{}", "diff", inline_diff(&g, &p));
    }
}

/// Where gold and the prediction place a field's value, and how well they agree.
fn place_lines(out: &mut String, g: &crate::evaluate::outcome::FieldGrounding) {
    let _ = writeln!(
        out,
        "  {:<12}{}",
        "gold place",
        place_text(g.gold_page, g.gold_bbox)
    );
    let _ = writeln!(
        out,
        "  {:<12}{}",
        "predicted",
        place_text(g.predicted_page, g.predicted_bbox)
    );
    let grounded = if g.grounded == 1.0 {
        paint(Styles::GOOD, "1")
    } else {
        paint(Styles::BAD, "0")
    };
    let score = |v: Option<f64>, digits: usize| v.map_or("-".into(), |v| format!("{v:.digits$}"));
    let _ = writeln!(
        out,
        "  grounded {grounded}   page match {}   IoU {}",
        score(g.page_match, 0),
        score(g.iou, 4)
    );
}

/// A page and a box as the message shows them (`page 1, box [0.1, 0.2, 0.3, 0.25]`): the box
/// in fractions of the page to 4 decimals (a ten-thousandth of an A4 page is 0.08 points), as a
/// box in pixels or points divided by its page's size has many more.
pub(crate) fn place_text(page: Option<u32>, bbox: Option<[f64; 4]>) -> String {
    let page = page.map(|p| format!("page {p}"));
    let edge = |x: f64| {
        let text = format!("{x:.4}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        if text == "-0" {
            "0".to_owned()
        } else {
            text.to_owned()
        }
    };
    let bbox = bbox.map(|b| {
        format!(
            "box [{}, {}, {}, {}]",
            edge(b[0]),
            edge(b[1]),
            edge(b[2]),
            edge(b[3])
        )
    });
    match (page, bbox) {
        (Some(p), Some(b)) => format!("{p}, {b}"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => "(no place)".to_owned(),
    }
}

/// The variants of a gold a field block shows, with their indices: the first
/// [`MESSAGE_ITEMS`], the closest one last among them when it is further down the list.
fn shown_variants(count: usize, closest: usize) -> impl Iterator<Item = usize> {
    let first = if closest < MESSAGE_ITEMS || count <= MESSAGE_ITEMS {
        MESSAGE_ITEMS.min(count)
    } else {
        MESSAGE_ITEMS - 1
    };
    let extra = (first < MESSAGE_ITEMS.min(count)).then_some(closest);
    (0..first).chain(extra)
}

/// Matched list items side by side with each pair's score, so the wrong line item stands out.
fn items_block(out: &mut String, gold: &[Value], pred: &[Value], items: &[MatchedItem]) {
    const WIDTH: usize = 44;
    let _ = writeln!(
        out,
        "  items       gold ↔ prediction, by the matching that scores best"
    );
    // A long list shows the pairs that are not exact, then counts the rest.
    let long = items.len() > MESSAGE_ITEMS;
    let shown: Vec<&MatchedItem> = items
        .iter()
        .filter(|m| !long || m.score < 1.0)
        .take(MESSAGE_ITEMS)
        .collect();
    for m in &shown {
        let side = |list: &[Value], i: Option<usize>, absent: &str| match i {
            Some(i) => fit(&format!("[{i}] {}", item_text(&list[i])), WIDTH),
            None => absent.to_owned(),
        };
        let line = format!(
            "    {:<WIDTH$}  ↔  {:<WIDTH$}  {:.4}",
            side(gold, m.gold, "(extra)"),
            side(pred, m.prediction, "(missing)"),
            m.score
        );
        let style = if m.score == 1.0 {
            Styles::DIM
        } else {
            Styles::BAD
        };
        let _ = writeln!(out, "{}", paint(style, line));
    }
    if long {
        let exact = items.iter().filter(|m| m.score == 1.0).count();
        let below = items.len() - exact - shown.len();
        let _ = writeln!(
            out,
            "    … {exact} more pairs match exactly{}",
            if below > 0 {
                format!(", {below} more score below 1 (the report lists every pair)")
            } else {
                String::new()
            }
        );
    }
}

/// A line item in a few words: a mapping's values joined by ` · `, in written order.
fn item_text(item: &Value) -> String {
    match item {
        Value::Map(entries) => entries
            .iter()
            .map(|(_, v)| v.as_text())
            .collect::<Vec<_>>()
            .join(" · "),
        other => other.as_text(),
    }
}

fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(width - 1).collect::<String>())
    }
}

/// The normalization the case's profile compares with: `anls_star` keeps accents.
fn shown_normalize(case: &Case) -> Normalize {
    match case.profile {
        Profile::Dream => case.normalize,
        Profile::AnlsStar => Normalize {
            strip_accents: false,
            ..Normalize::ALL
        },
        // Its own normalization (punctuation and spaces gone) is not one of goldgate's: the
        // values are shown as written.
        Profile::DocuBench | Profile::KiEval => Normalize::NONE,
    }
}

/// The most characters of a gold or predicted value a message shows; the report holds it whole.
const VALUE_SHOWN: usize = 2_000;

/// A value on one line: scalars as written, trees as compact JSON (the diff shows them pretty);
/// a long one cut after [`VALUE_SHOWN`] characters, saying how many more there are.
fn indent_value(v: &Value) -> String {
    let text = match v {
        Value::Null => "null".to_owned(),
        other => other.as_text(),
    };
    cut(&text).replace('\n', "\n              ")
}

/// The first [`VALUE_SHOWN`] characters of a text, then how many more there are.
fn cut(text: &str) -> String {
    let count = text.chars().count();
    if count > VALUE_SHOWN {
        let head: String = text.chars().take(VALUE_SHOWN).collect();
        format!("{head}… ({} more characters)", count - VALUE_SHOWN)
    } else {
        text.to_owned()
    }
}

/// The longest field name the table and the list of extra fields show.
const NAME_SHOWN: usize = 60;

/// The most gold variants a row of the table shows; the field's block shows more.
const VARIANTS_IN_CELL: usize = 3;

/// The table of the fields, a row each; a long one shows the rows that are not exact (the first
/// [`MESSAGE_ITEMS`] of them) and counts the rest.
fn field_table(out: &mut String, fields: &[FieldRow]) {
    let long = fields.len() > MESSAGE_ITEMS;
    let rows: Vec<&FieldRow> = fields
        .iter()
        .filter(|f| !long || f.em < 1.0)
        .take(MESSAGE_ITEMS)
        .collect();
    let names: Vec<String> = rows.iter().map(|f| fit(&f.name, NAME_SHOWN)).collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        out,
        "{}",
        paint(
            Styles::HEADING,
            format!(
                "  {:<width$}  crit  EM  ANLS    conf    gold | prediction",
                "field"
            )
        )
    );
    // Written in place, row by row: a failing case of many fields prints one row each.
    let mut line = String::new();
    for (f, name) in rows.iter().zip(&names) {
        line.clear();
        let _ = write!(
            line,
            "  {name:<width$}  {:<4}  {:<2}  {:<6.4}  ",
            if f.critical { "*" } else { "" },
            f.em as u8,
            f.anls,
        );
        match f.confidence {
            Some(c) => {
                let _ = write!(line, "{c:<6.2}  ");
            }
            None => line.push_str("-       "),
        }
        for (i, gold) in f.gold.iter().take(VARIANTS_IN_CELL).enumerate() {
            if i > 0 {
                line.push_str(" / ");
            }
            line.push_str(&cell(gold));
        }
        if f.gold.len() > VARIANTS_IN_CELL {
            let _ = write!(line, " / … and {} more", f.gold.len() - VARIANTS_IN_CELL);
        }
        line.push_str(" | ");
        if f.predicted {
            line.push_str(&cell(&f.prediction));
        } else {
            line.push_str("(absent)");
        }
        let style = if f.em == 1.0 {
            Styles::DIM
        } else {
            Styles::BAD
        };
        let _ = writeln!(out, "{style}{}{style:#}", line.trim_end());
    }
    if long {
        let exact = fields.iter().filter(|f| f.em == 1.0).count();
        let _ = writeln!(
            out,
            "  … and {} more rows ({exact} exact; the report has every field)",
            fields.len() - rows.len()
        );
    }
}

fn cell(v: &Value) -> String {
    let text = match v {
        Value::Null => "null".to_owned(),
        other => other.as_text(),
    };
    if text.chars().count() > 32 {
        format!("{}…", text.chars().take(31).collect::<String>())
    } else {
        text
    }
}

/// A label on one line: a newline in it would cut the verdict line that CI tools show. A long
/// one is cut after [`VALUE_SHOWN`] characters, as values are.
fn one_line(text: &str) -> String {
    cut(&text.replace(['\r', '\n'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_of_variants_shows_the_first_and_the_closest() {
        let shown = |count, closest| shown_variants(count, closest).collect::<Vec<_>>();
        assert_eq!(shown(3, 2), [0, 1, 2]);
        assert_eq!(shown(30, 4), (0..20).collect::<Vec<_>>());
        // Further down: the first nineteen, then the closest, twenty in all.
        let far = shown(30, 25);
        assert_eq!(far.len(), MESSAGE_ITEMS);
        assert_eq!(far[..19], (0..19).collect::<Vec<_>>()[..]);
        assert_eq!(far[19], 25);
    }
}
