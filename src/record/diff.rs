//! The diff of a field as data: gold (its closest variant) into the prediction, characters for
//! text and lines for nested values, as every output shows it (the terminal and plain messages
//! with `[-…-]{+…+}`, the HTML page with `<del>` and `<ins>`).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff};

use crate::base::budget::DIFF_SECONDS;

/// What a span of a diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiffOp {
    /// In both.
    Equal,
    /// In the gold, not in the prediction.
    Removed,
    /// In the prediction, not in the gold.
    Added,
}

/// A run of text (or of lines, each without its newline, joined by `\n`) of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffSpan {
    /// What the span is.
    pub op: DiffOp,
    /// Its text.
    pub text: String,
}

/// The diff of one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldDiff {
    /// Whether the spans are lines of pretty-printed values (nested values), else characters.
    pub lines: bool,
    /// Whether the diff is of the forms the field's rules compared (`1 234,50` read as `1234.5`).
    pub as_compared: bool,
    /// The spans, in order.
    pub spans: Vec<DiffSpan>,
}

fn op(tag: ChangeTag) -> DiffOp {
    match tag {
        ChangeTag::Equal => DiffOp::Equal,
        ChangeTag::Delete => DiffOp::Removed,
        ChangeTag::Insert => DiffOp::Added,
    }
}

/// The character diff of `gold` into `pred`, runs of one kind merged.
///
/// ```ignore
/// chars("1234", "1334") == [Equal "1", Removed "2", Added "3", Equal "34"]
/// ```
pub fn chars(gold: &str, pred: &str) -> Vec<DiffSpan> {
    // Past the deadline `similar` settles for a coarser diff: a message stays quick however
    // long the texts.
    let diff = TextDiff::configure()
        .timeout(Duration::from_secs_f64(DIFF_SECONDS))
        .diff_chars(gold, pred);
    let mut spans: Vec<DiffSpan> = Vec::new();
    for change in diff.iter_all_changes() {
        let kind = op(change.tag());
        match spans.last_mut() {
            Some(last) if last.op == kind => last.text.push_str(change.value()),
            _ => spans.push(DiffSpan {
                op: kind,
                text: change.value().to_owned(),
            }),
        }
    }
    spans
}

/// The line diff of two pretty-printed values: one span a line, without its newline.
pub fn lines(gold: &str, pred: &str) -> Vec<DiffSpan> {
    let diff = TextDiff::configure()
        .timeout(Duration::from_secs_f64(DIFF_SECONDS))
        .diff_lines(gold, pred);
    diff.iter_all_changes()
        .map(|c| DiffSpan {
            op: op(c.tag()),
            text: c.value().trim_end_matches('\n').to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(op: DiffOp, text: &str) -> DiffSpan {
        DiffSpan {
            op,
            text: text.into(),
        }
    }

    #[test]
    fn characters_merge_into_runs() {
        assert_eq!(
            chars("0173", "0183"),
            [
                span(DiffOp::Equal, "01"),
                span(DiffOp::Removed, "7"),
                span(DiffOp::Added, "8"),
                span(DiffOp::Equal, "3"),
            ]
        );
    }

    #[test]
    fn lines_are_one_span_each() {
        assert_eq!(
            lines("a\nb\n", "a\nc\n"),
            [
                span(DiffOp::Equal, "a"),
                span(DiffOp::Removed, "b"),
                span(DiffOp::Added, "c"),
            ]
        );
    }
}
