//! Where things are in files, and load errors: what went wrong in which file, where, and how to
//! fix it, with the closest valid name for a misspelt one.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where a node starts in its file (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mark {
    /// Line, from 1.
    pub line: u64,
    /// Column, from 1.
    pub column: u64,
}

impl Mark {
    pub(crate) fn of(location: &super::spanned::Location) -> Mark {
        Mark {
            line: location.line(),
            column: location.column(),
        }
    }
}

/// A mistake in a case, rubric or prediction file, located to the character.
///
/// Renders as `cases/acme.yaml:14:5: rubrics[2]: unknown key `must-right` (did you mean `must_right`?)`.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    /// The file the mistake is in.
    pub file: PathBuf,
    /// 1-based line; 0 when the mistake concerns the whole file.
    pub line: u64,
    /// 1-based column; 0 when unknown.
    pub column: u64,
    /// The YAML path of the mistake (`rubrics[2].field`), empty for the whole document.
    pub yaml_path: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is something to say.
    pub hint: Option<String>,
}

impl LoadError {
    /// An error at a node of a file.
    pub fn at(
        file: &Path,
        mark: Mark,
        yaml_path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        LoadError {
            file: file.to_path_buf(),
            line: mark.line,
            column: mark.column,
            yaml_path: yaml_path.into(),
            message: message.into(),
            hint: None,
        }
    }

    /// An error about a whole file (unreadable, missing).
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        LoadError::at(file, Mark::default(), "", message)
    }

    /// Adds what to do about it.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        f.write_str(": ")?;
        if !self.yaml_path.is_empty() {
            write!(f, "{}: ", self.yaml_path)?;
        }
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// The closest of `candidates` to a misspelt `word`, when it is close enough to be a likely typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    closest_within(word, candidates, |len| (len / 3).max(2))
}

/// As [`closest`], with the largest distance allowed for a candidate of a given length.
pub fn closest_within<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    allowed: impl Fn(usize) -> usize,
) -> Option<&'a str> {
    let folded = word.to_lowercase().replace('-', "_");
    candidates
        .into_iter()
        .map(|c| {
            (
                rapidfuzz::distance::levenshtein::distance(folded.chars(), c.chars()),
                c,
            )
        })
        .filter(|(d, c)| *d <= allowed(c.chars().count()))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_finds_typos_and_refuses_strangers() {
        let keys = ["must_right", "easy_wrong", "field", "penalty"];
        assert_eq!(closest("must-right", keys), Some("must_right"));
        assert_eq!(closest("feild", keys), Some("field"));
        assert_eq!(closest("penalti", keys), Some("penalty"));
        assert_eq!(closest("colour", keys), None);
    }

    #[test]
    fn renders_file_line_column_path_and_hint() {
        let e = LoadError::at(
            Path::new("cases/a.yaml"),
            Mark {
                line: 14,
                column: 5,
            },
            "rubrics[2]",
            "unknown key `must-right`",
        )
        .hint("did you mean `must_right`?");
        assert_eq!(
            e.to_string(),
            "cases/a.yaml:14:5: rubrics[2]: unknown key `must-right` (did you mean `must_right`?)"
        );
        assert_eq!(
            LoadError::file(Path::new("x.json"), "not found").to_string(),
            "x.json: not found"
        );
    }
}
