//! Text normalization before comparison (SPEC §4.1, profile `dream`).

use unicode_normalization::UnicodeNormalization;

/// Which normalization steps apply; all on by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Normalize {
    /// Unicode lowercase.
    pub lowercase: bool,
    /// NFD, drop combining diacritical marks, NFC.
    pub strip_accents: bool,
    /// Every run of Unicode White_Space becomes one space; trimmed.
    pub collapse_whitespace: bool,
}

impl Default for Normalize {
    fn default() -> Self {
        Normalize::ALL
    }
}

impl Normalize {
    /// Every step on (the default).
    pub const ALL: Normalize = Normalize {
        lowercase: true,
        strip_accents: true,
        collapse_whitespace: true,
    };
    /// Raw text comparison (`normalize: false`).
    pub const NONE: Normalize = Normalize {
        lowercase: false,
        strip_accents: false,
        collapse_whitespace: false,
    };

    /// Applies the steps in the order of the spec.
    ///
    /// ```
    /// use goldgate::Normalize;
    /// assert_eq!(Normalize::ALL.apply("  Société\u{a0}Générale "), "societe generale");
    /// assert_eq!(Normalize::NONE.apply(" É "), " É ");
    /// ```
    pub fn apply(&self, text: &str) -> String {
        let mut out = if self.lowercase {
            text.to_lowercase()
        } else {
            text.to_owned()
        };
        // ASCII has no accent to strip, and NFC(NFD(x)) = x for it: most values skip the
        // decomposition, the costliest step of a field's score.
        if self.strip_accents && !out.is_ascii() {
            out = out.nfd().filter(|c| !is_accent(*c)).nfc().collect();
        }
        if self.collapse_whitespace {
            let mut collapsed = String::with_capacity(out.len());
            for word in out.split(char::is_whitespace).filter(|w| !w.is_empty()) {
                if !collapsed.is_empty() {
                    collapsed.push(' ');
                }
                collapsed.push_str(word);
            }
            out = collapsed;
        }
        out
    }
}

/// The combining diacritical mark blocks of SPEC §4.1; marks elsewhere (dakuten, Indic vowel
/// signs, Hebrew points) change the letter and are kept.
fn is_accent(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps() {
        let n = Normalize::ALL;
        assert_eq!(n.apply("Crédit\tAgricole\u{2003}\n"), "credit agricole");
        assert_eq!(n.apply("ÉLECTRICITÉ"), "electricite");
        // Japanese dakuten is not an accent: が stays が.
        assert_eq!(n.apply("が"), "が");
        // Devanagari vowel sign is kept.
        assert_eq!(n.apply("कि"), "कि");
        let no_case = Normalize {
            lowercase: false,
            ..Normalize::ALL
        };
        assert_eq!(no_case.apply("Été"), "Ete");
        let keep_space = Normalize {
            collapse_whitespace: false,
            ..Normalize::ALL
        };
        assert_eq!(keep_space.apply(" a  b "), " a  b ");
    }
}
