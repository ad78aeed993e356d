//! Control characters shown, never obeyed: a prediction (or a file name, a command's output) that
//! holds an escape, an OSC or BEL sequence, a lone carriage return or a C1 control would drive
//! the terminal, the CI log or the page it is shown in. Every output shows them as Rust writes
//! them in a string (`\u{1b}`, `\0`, `\r`, `\u{9b}`), the same in each format; tab and newline
//! are left to each format, which needs them as they are (a message's lines) or escapes them its
//! own way (a workflow command's `%0A`).

use std::borrow::Cow;

use super::Styles;

/// Whether `c` is shown escaped: every C0 control but tab and newline, DEL, every C1 control,
/// and the bidirectional overrides, embeddings and isolates (U+202A–202E, U+2066–2069), which
/// reorder the text around them where it is shown (a value that reads otherwise than it is).
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n') || bidi(c)
}

fn bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `c` as it is shown: `\0`, `\r`, `\u{1b}`, `\u{202e}`.
fn shown(c: char, out: &mut String) {
    if bidi(c) {
        out.push_str(&format!("\\u{{{:x}}}", c as u32));
    } else {
        out.extend(c.escape_debug());
    }
}

/// `text` with its control characters (but tab and newline) shown escaped.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            shown(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The colour sequences goldgate writes itself ([`Styles`]): the only escapes a terminal's text
/// keeps. A value that holds one of them changes a colour at most; any other sequence (a cursor
/// move, a title, a hyperlink, the clipboard's OSC 52) is shown escaped.
fn own_sequences() -> &'static [String] {
    static OWN: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    OWN.get_or_init(|| {
        let styles = [
            Styles::BAD,
            Styles::GOOD,
            Styles::REMOVED,
            Styles::ADDED,
            Styles::HEADING,
            Styles::DIM,
        ];
        let mut own: Vec<String> = styles
            .iter()
            .flat_map(|s| [s.render().to_string(), s.render_reset().to_string()])
            .filter(|s| !s.is_empty())
            .collect();
        // Longest first, so that a sequence is never cut at a shorter one's end.
        own.sort_by_key(|s| std::cmp::Reverse(s.len()));
        own.dedup();
        own
    })
}

/// [`visible`] for text painted for a terminal: goldgate's own colour sequences kept, every
/// other control character shown escaped.
pub fn visible_painted(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let own = own_sequences();
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\u{1b}'
            && let Some(seq) = own.iter().find(|s| rest.starts_with(s.as_str()))
        {
            out.push_str(seq);
            rest = &rest[seq.len()..];
            continue;
        }
        if hidden(c) {
            shown(c, &mut out);
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_and_tab_and_newline_kept() {
        assert_eq!(visible("plain\ttext\n"), "plain\ttext\n");
        // A right-to-left override would show `paid` where `diap` is written.
        assert_eq!(visible("x\u{202e}diap"), "x\\u{202e}diap");
        assert_eq!(visible("\u{2066}a\u{2069}"), "\\u{2066}a\\u{2069}");
        assert_eq!(
            visible("a\u{1b}]0;pwned\u{7}b\u{0}c\rd\u{9b}31m\u{7f}"),
            "a\\u{1b}]0;pwned\\u{7}b\\0c\\rd\\u{9b}31m\\u{7f}"
        );
    }

    #[test]
    fn a_painted_text_keeps_goldgate_s_colours_alone() {
        let painted = super::super::paint(Styles::BAD, "wrong \u{1b}]8;;http://x\u{7}link");
        let shown = visible_painted(&painted);
        assert!(
            shown.starts_with(&Styles::BAD.render().to_string()),
            "{shown:?}"
        );
        assert!(
            shown.ends_with(&Styles::BAD.render_reset().to_string()),
            "{shown:?}"
        );
        assert!(
            shown.contains("wrong \\u{1b}]8;;http://x\\u{7}link"),
            "{shown:?}"
        );
        assert_eq!(visible_painted("\u{1b}[2J"), "\\u{1b}[2J");
    }
}
