//! Inline and line diffs of gold against prediction, built with `similar`.

use similar::{ChangeTag, TextDiff};

use super::{Styles, paint};

/// A character diff of `gold` into `pred`: `[-removed-]{+added+}` (coloured on a terminal).
pub fn inline_diff(gold: &str, pred: &str) -> String {
    let diff = TextDiff::from_chars(gold, pred);
    let mut out = String::new();
    let mut run: Option<(ChangeTag, String)> = None;
    for change in diff.iter_all_changes() {
        match &mut run {
            Some((tag, text)) if *tag == change.tag() => text.push_str(change.value()),
            _ => {
                if let Some((tag, text)) = run.take() {
                    push_run(&mut out, tag, &text);
                }
                run = Some((change.tag(), change.value().to_owned()));
            }
        }
    }
    if let Some((tag, text)) = run {
        push_run(&mut out, tag, &text);
    }
    out
}

fn push_run(out: &mut String, tag: ChangeTag, text: &str) {
    match tag {
        ChangeTag::Equal => out.push_str(text),
        ChangeTag::Delete => out.push_str(&paint(Styles::REMOVED, format!("[-{text}-]"))),
        ChangeTag::Insert => out.push_str(&paint(Styles::ADDED, format!("{{+{text}+}}"))),
    }
}

/// A line diff of two pretty-printed values, each line prefixed `-`, `+` or ` `.
pub fn line_diff(gold: &str, pred: &str) -> Vec<String> {
    TextDiff::from_lines(gold, pred)
        .iter_all_changes()
        .map(|c| {
            let line = c.value().trim_end_matches('\n');
            match c.tag() {
                ChangeTag::Equal => format!("  {line}"),
                ChangeTag::Delete => paint(Styles::REMOVED, format!("- {line}")),
                ChangeTag::Insert => paint(Styles::ADDED, format!("+ {line}")),
            }
        })
        .collect()
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
}
