//! Baseline files: read once per run, and rewritten by `GOLDGATE_UPDATE=always` with a
//! read-merge-write under a lock, so that concurrent processes (nextest, two `goldgate test`
//! runs) each add their entries and none is lost.

use std::path::{Path, PathBuf};

use crate::base::fs::read_text_if_present;
use crate::base::location::LoadError;
use crate::base::lock::lock_for;
use crate::evaluate::baseline::{
    Baseline, BaselineError, Entry, EntryName, field_of, out_of_range, parse, to_text,
};

/// Why a baseline file cannot be used.
#[derive(Debug)]
pub(crate) enum BaselineFileError {
    /// It cannot be read (a FIFO, over the budget, not UTF-8…).
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why (boxed: a load error is large, and a baseline is read on every test's path).
        error: Box<LoadError>,
    },
    /// Its text is not a baseline.
    Invalid(BaselineError),
    /// An entry, or a field of one, holds no number.
    EmptyEntry {
        /// The file.
        path: PathBuf,
        /// The entry's test.
        test: String,
        /// The field that holds none, when it is a field.
        field: Option<String>,
    },
    /// A metric of [0, 1] holds a value outside it.
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// The entry's test.
        test: String,
        /// The metric's key in the entry (`fields.NAME.METRIC` for a field's).
        key: String,
        /// The value.
        value: f64,
    },
    /// It cannot be locked or written.
    NotWritten {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// How a test's entry is written again, for the messages about one.
fn write_again(test: &str) -> String {
    format!(
        "write its numbers again with `GOLDGATE_UPDATE=always` and `--exact {test}`, or delete the entry"
    )
}

impl std::fmt::Display for BaselineFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BaselineFileError::Unreadable { path, error } => {
                write!(
                    f,
                    "cannot read the baseline `{}`: {}",
                    path.display(),
                    error.message
                )?;
                match &error.hint {
                    Some(hint) => write!(f, " ({hint})"),
                    None => Ok(()),
                }
            }
            BaselineFileError::Invalid(e) => e.fmt(f),
            BaselineFileError::EmptyEntry { path, test, field } => {
                let what = match field {
                    Some(field) => {
                        format!("the field `{field}` of the entry `{test}` holds no metric")
                    }
                    None => format!("the entry `{test}` holds no metric"),
                };
                write!(
                    f,
                    "the baseline `{}`: {what}, so it would hide any regression of its test ({})",
                    path.display(),
                    write_again(test)
                )
            }
            BaselineFileError::OutOfRange {
                path,
                test,
                key,
                value,
            } => {
                let what = match field_of(key) {
                    Some((field, metric)) => format!(
                        "the field `{field}` of the entry `{test}` holds `{metric}: {value}`"
                    ),
                    None => format!("the entry `{test}` holds `{key}: {value}`"),
                };
                write!(
                    f,
                    "the baseline `{}`: {what}, outside [0, 1] where the metric lies, so it compares with no score its test can have ({})",
                    path.display(),
                    write_again(test)
                )
            }
            BaselineFileError::NotWritten { path, source } => {
                write!(
                    f,
                    "cannot write the baseline `{}`: {source}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for BaselineFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BaselineFileError::Unreadable { error, .. } => Some(&**error),
            BaselineFileError::Invalid(e) => e.source(),
            BaselineFileError::NotWritten { source, .. } => Some(source),
            BaselineFileError::EmptyEntry { .. } | BaselineFileError::OutOfRange { .. } => None,
        }
    }
}

/// Reads a baseline; `Ok(None)` when the file does not exist. An entry that holds no number, or
/// a metric of [0, 1] outside it, is an error: it would compare nothing, and so pass whatever its
/// test scores (or fail whatever it scores).
pub(crate) fn read(path: &Path) -> Result<Option<Baseline>, BaselineFileError> {
    let Some((base, text)) = read_as_written(path)? else {
        return Ok(None);
    };
    if let Some((test, field)) = empty_entry(&text) {
        return Err(BaselineFileError::EmptyEntry {
            path: path.to_path_buf(),
            test,
            field,
        });
    }
    // A value no run can score compares with nothing: below the metric's worst it hides every
    // regression, beyond its best it makes every run one.
    if let Some((test, key, value)) = out_of_range(&base) {
        return Err(BaselineFileError::OutOfRange {
            path: path.to_path_buf(),
            test: test.to_owned(),
            key: key.to_owned(),
            value,
        });
    }
    Ok(Some(base))
}

/// A baseline and its text, through the reader of every input file: within the input budget,
/// and a FIFO or a device in its place refused at once instead of hanging the run.
fn read_as_written(path: &Path) -> Result<Option<(Baseline, String)>, BaselineFileError> {
    let too_large = "a baseline holds a few numbers per test, so goldgate did not write this one: remove it and bless the tests again with `GOLDGATE_UPDATE=always`";
    let text =
        read_text_if_present(path, too_large).map_err(|error| BaselineFileError::Unreadable {
            path: path.to_path_buf(),
            error: Box::new(error),
        })?;
    let Some(text) = text else {
        return Ok(None);
    };
    let base = parse(&text, &path.display().to_string()).map_err(BaselineFileError::Invalid)?;
    Ok(Some((base, text)))
}

/// The first entry of a baseline's text (already parsed) that holds no number (`{}`, or
/// `{"fields": {}}`), or the first field of one that holds none: with the field's name. Asked of
/// the text, not of the parsed entry, where a field left `{}` has already vanished.
fn empty_entry(text: &str) -> Option<(String, Option<String>)> {
    fn holds_a_number(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::Number(_) => true,
            serde_json::Value::Object(m) => m.values().any(holds_a_number),
            _ => false,
        }
    }
    let json: serde_json::Value = serde_json::from_str(text).ok()?;
    json.get("cases")?
        .as_object()?
        .iter()
        .find_map(|(test, entry)| {
            // The entry of a test that could not be scored holds its verdict alone.
            if !holds_a_number(entry) && entry.get("verdict").is_none() {
                return Some((test.clone(), None));
            }
            let fields = entry.get("fields")?.as_object()?;
            let (field, _) = fields.iter().find(|(_, f)| !holds_a_number(f))?;
            Some((test.clone(), Some(field.clone())))
        })
}

/// What a blessing wrote to one baseline file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written {
    /// Entries in the file after the write.
    pub(crate) entries: usize,
    /// Entries this run added.
    pub(crate) new: usize,
    /// Entries this run changed.
    pub(crate) changed: usize,
    /// Entries found under their former names and written under their tests' (former, name).
    pub(crate) renamed: Vec<(String, String)>,
}

impl Written {
    /// The entries moved from their former names to their tests' (`renamed 2 entries to their
    /// tests' names: gold/a::p -> a::p, …`), if any: an entry is never gone unsaid.
    pub(crate) fn renamed_line(&self) -> Option<String> {
        if self.renamed.is_empty() {
            return None;
        }
        let moves: Vec<String> = self
            .renamed
            .iter()
            .map(|(former, name)| format!("{former} -> {name}"))
            .collect();
        Some(format!(
            "renamed {} entries to their tests' names: {}",
            moves.len(),
            moves.join(", ")
        ))
    }
}

/// Adds (or replaces) `entries` in the baseline at `path` and removes those named in `drop`,
/// keeping every other entry, as one atomic rewrite under the file's lock. An entry held under
/// its former name is written under its name instead (and counted as changed only if it is).
pub(crate) fn merge(
    path: &Path,
    entries: &[(EntryName, Entry)],
    drop: &[String],
) -> Result<Written, BaselineFileError> {
    let cannot = |source| BaselineFileError::NotWritten {
        path: path.to_path_buf(),
        source,
    };
    let _held = lock_for(path).map_err(cannot)?;
    // An entry left empty does not stop the blessing that fills it again.
    let mut base = read_as_written(path)?.map(|(b, _)| b).unwrap_or_default();
    let (mut new, mut changed, mut renamed) = (0, 0, Vec::new());
    for (name, entry) in entries {
        let (old, former) = base.put(name, entry.clone());
        match old {
            None => new += 1,
            Some(old) if old != *entry => changed += 1,
            Some(_) => {}
        }
        renamed.extend(former.map(|f| (f, name.name.clone())));
    }
    for name in drop {
        base.cases.remove(name);
    }
    // In name order, whatever order the tests finished in.
    renamed.sort();
    // A baseline is committed: never written through a link, nor outside the project.
    crate::base::writing::replace(path, to_text(&base).as_bytes()).map_err(|r| cannot(r.into()))?;
    Ok(Written {
        entries: base.cases.len(),
        new,
        changed,
        renamed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_or_a_field_without_numbers_is_found() {
        let text = |cases: &str| format!("{{\"goldgate_baseline\": 1, \"cases\": {cases}}}");
        for (cases, found) in [
            (r#"{"a": {"anls": 1}, "b": {}}"#, Some(("b", None))),
            (r#"{"a": {"fields": {}}}"#, Some(("a", None))),
            (
                r#"{"a": {"anls": 1, "fields": {"x": {"em": 1}, "y": {}}}}"#,
                Some(("a", Some("y"))),
            ),
            (r#"{"a": {"fields": {"x": {"em": 0}}}}"#, None),
            (r#"{}"#, None),
        ] {
            let want = found.map(|(t, f)| (t.to_owned(), f.map(str::to_owned)));
            assert_eq!(empty_entry(&text(cases)), want, "{cases}");
        }
    }
}
