//! Words as a POSIX shell reads them, for the commands goldgate prints.

/// A word as a POSIX shell reads it back: as is when plain, else in single quotes.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(
            shell_quote("invoices/acme::guided"),
            "invoices/acme::guided"
        );
        assert_eq!(shell_quote("sp ace/cases"), "'sp ace/cases'");
        assert_eq!(shell_quote("o'brien"), r"'o'\''brien'");
    }
}
