//! Inline and line diffs of gold against prediction, built with `similar`.

use similar::ChangeTag;

use crate::base::budget::MESSAGE_ITEMS;

use super::{Styles, paint};

/// The longest stretch of unchanged text an inline diff shows whole; a longer one keeps its
/// ends around `…`, so that a change deep in a long text is seen in its context.
const EQUAL_SHOWN: usize = 60;

/// The most changed runs an inline diff shows.
const RUNS_SHOWN: usize = 2 * MESSAGE_ITEMS;

/// The most lines a line diff shows before it keeps only the changed lines and their context.
const LINES_SHOWN: usize = 3 * MESSAGE_ITEMS;

/// A character diff of `gold` into `pred`: `[-removed-]{+added+}` (coloured on a terminal).
pub fn inline_diff(gold: &str, pred: &str) -> String {
    // The same diff data the record keeps (and the HTML page colours).
    let runs: Vec<(ChangeTag, String)> = crate::record::diff::chars(gold, pred)
        .into_iter()
        .map(|s| (tag(s.op), s.text))
        .collect();
    let last = runs.len().saturating_sub(1);
    let mut out = String::new();
    let mut changed = 0;
    for (i, (tag, text)) in runs.iter().enumerate() {
        if *tag == ChangeTag::Equal {
            out.push_str(&shortened_equal(text, i == 0, i == last));
            continue;
        }
        changed += 1;
        if changed > RUNS_SHOWN {
            let rest = runs[i..]
                .iter()
                .filter(|(t, _)| *t != ChangeTag::Equal)
                .count();
            out.push_str(&format!(" … and {rest} more changes"));
            break;
        }
        push_run(&mut out, *tag, &fit_chars(text, 4 * EQUAL_SHOWN));
    }
    out
}

/// An unchanged stretch: whole when short, else its ends (only the end that touches a change,
/// at the start or the end of the text).
fn shortened_equal(text: &str, first: bool, last: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= EQUAL_SHOWN {
        return text.to_owned();
    }
    let side = EQUAL_SHOWN / 2;
    let head: String = chars[..side].iter().collect();
    let tail: String = chars[chars.len() - side..].iter().collect();
    match (first, last) {
        (true, true) => text.to_owned(),
        (true, false) => format!("…{tail}"),
        (false, true) => format!("{head}…"),
        (false, false) => format!("{head}…{tail}"),
    }
}

/// The first `width` characters of a changed run, then how many more.
fn fit_chars(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_owned();
    }
    let head: String = text.chars().take(width).collect();
    format!("{head}… ({} more characters)", count - width)
}

fn tag(op: crate::record::DiffOp) -> ChangeTag {
    match op {
        crate::record::DiffOp::Equal => ChangeTag::Equal,
        crate::record::DiffOp::Removed => ChangeTag::Delete,
        crate::record::DiffOp::Added => ChangeTag::Insert,
    }
}

fn push_run(out: &mut String, tag: ChangeTag, text: &str) {
    match tag {
        ChangeTag::Equal => out.push_str(text),
        ChangeTag::Delete => out.push_str(&paint(Styles::REMOVED, format!("[-{text}-]"))),
        ChangeTag::Insert => out.push_str(&paint(Styles::ADDED, format!("{{+{text}+}}"))),
    }
}

/// A line diff of two pretty-printed values, each line prefixed `-`, `+` or ` `. A long one keeps
/// the changed lines with two lines of context each, `…` where lines are left out, and at most
/// [`LINES_SHOWN`] lines.
pub fn line_diff(gold: &str, pred: &str) -> Vec<String> {
    let spans = crate::record::diff::lines(gold, pred);
    let changes: Vec<(ChangeTag, &str)> =
        spans.iter().map(|s| (tag(s.op), s.text.as_str())).collect();
    let line = |(tag, text): (ChangeTag, &str)| match tag {
        ChangeTag::Equal => format!("  {text}"),
        ChangeTag::Delete => paint(Styles::REMOVED, format!("- {text}")),
        ChangeTag::Insert => paint(Styles::ADDED, format!("+ {text}")),
    };
    if changes.len() <= LINES_SHOWN {
        return changes.into_iter().map(line).collect();
    }
    const CONTEXT: usize = 2;
    let mut kept = vec![false; changes.len()];
    for (i, (tag, _)) in changes.iter().enumerate() {
        if *tag != ChangeTag::Equal {
            let from = i.saturating_sub(CONTEXT);
            let to = (i + CONTEXT).min(changes.len() - 1);
            kept[from..=to].iter_mut().for_each(|k| *k = true);
        }
    }
    let mut out = Vec::new();
    let mut skipped = false;
    for (i, change) in changes.iter().enumerate() {
        if !kept[i] {
            skipped = true;
            continue;
        }
        if out.len() >= LINES_SHOWN {
            let rest = changes[i..]
                .iter()
                .filter(|(t, _)| *t != ChangeTag::Equal)
                .count();
            out.push(format!("… and {rest} more changed lines"));
            break;
        }
        if skipped {
            out.push("…".to_owned());
            skipped = false;
        }
        out.push(line(*change));
    }
    out
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn inline_diff_marks_removed_and_added() {
        let diff = inline_diff("1234.50", "1 234,50");
        assert_eq!(
            anstream::adapter::strip_str(&diff).to_string(),
            "1{+ +}234[-.-]{+,+}50"
        );
    }

    #[test]
    fn a_change_deep_in_a_long_text_is_shown_in_its_context() {
        let gold = format!("{}middle{}", "a".repeat(500), "b".repeat(500));
        let pred = format!("{}muddle{}", "a".repeat(500), "b".repeat(500));
        let diff = anstream::adapter::strip_str(&inline_diff(&gold, &pred)).to_string();
        // Thirty characters each side of the change, counted from the unchanged runs' ends.
        assert_eq!(
            diff,
            format!("…{}m[-i-]{{+u+}}ddle{}…", "a".repeat(29), "b".repeat(26))
        );
    }

    #[test]
    fn a_long_line_diff_keeps_the_changed_lines_and_their_context() {
        let gold: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let pred = gold.replace("line 500\n", "line 5OO\n");
        let lines: Vec<String> = line_diff(&gold, &pred)
            .iter()
            .map(|l| anstream::adapter::strip_str(l).to_string())
            .collect();
        assert_eq!(
            lines,
            [
                "…",
                "  line 498",
                "  line 499",
                "- line 500",
                "+ line 5OO",
                "  line 501",
                "  line 502"
            ]
        );
    }
}
