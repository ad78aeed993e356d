//! Text shown where a CI log reads workflow commands (GitHub Actions: `::error …::`,
//! `::add-mask::`, `##[…]`), made inert wherever it comes from: a prediction, a case, a file name.

/// Text printed where a CI log reads workflow commands, made inert: a line that starts (after
/// spaces) with `::`, or holds `##[`, would be read by GitHub Actions as a command
/// (`::add-mask::`, `::error file=…::`) when a prediction or a case wrote it. A word joiner
/// (U+2060, invisible) goes between the two characters, so the line reads the same to a person.
pub fn inert(text: &str) -> std::borrow::Cow<'_, str> {
    // Colour codes are stripped before a log is read: a line is judged without them.
    let starts = |line: &str| {
        anstream::adapter::strip_str(line)
            .to_string()
            .trim_start()
            .starts_with("::")
    };
    let risky = |line: &str| line.contains("##[") || (line.contains("::") && starts(line));
    // A lone CR ends a line too, for the runner that reads the log.
    let breaks = ['\n', '\r'];
    if !text.split(breaks).any(risky) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for piece in text.split_inclusive(breaks) {
        let (line, end) = match piece.strip_suffix(breaks) {
            Some(line) => (line, &piece[line.len()..]),
            None => (piece, ""),
        };
        let safe = line.replace("##[", "##\u{2060}[");
        if line.contains("::") && starts(line) {
            // No colour code holds `::`: the first one is where the line starts.
            out.push_str(&safe.replacen("::", ":\u{2060}:", 1));
        } else {
            out.push_str(&safe);
        }
        out.push_str(end);
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_a_ci_log_would_read_as_a_command_is_made_inert() {
        let j = '\u{2060}';
        assert_eq!(
            inert("acme::guided ok\nfield `total`"),
            "acme::guided ok\nfield `total`"
        );
        assert_eq!(
            inert("  gold  1\n      ::error file=README.md,line=1::pwned\n::add-mask::x"),
            format!("  gold  1\n      :{j}:error file=README.md,line=1::pwned\n:{j}:add-mask::x")
        );
        assert_eq!(inert("note ##[error]x"), format!("note ##{j}[error]x"));
        assert_eq!(
            inert("P1\r::add-mask::P2\n"),
            format!("P1\r:{j}:add-mask::P2\n")
        );
        // A colour code before the command is stripped by the log, so it does not protect it.
        assert_eq!(
            inert("\u{1b}[31m::warning::x\u{1b}[0m"),
            format!("\u{1b}[31m:{j}:warning::x\u{1b}[0m")
        );
    }
}
