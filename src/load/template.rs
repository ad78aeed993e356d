//! Path templates and commands: the placeholders of a suite's `{case}`, `{pipeline}` and
//! `{document}` expanded, each value checked so that it cannot change what a command runs.

use crate::base::location::LoadError;
use crate::base::location::Mark;
use crate::model::case::Document;
use std::path::{Path, PathBuf};

use super::in_file::InFile;

/// Every `{name}` (letters and `_`) in a text, braces included.
pub(super) fn placeholders(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('{').filter_map(|(i, _)| {
        let rest = &text[i + 1..];
        let end = rest.find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))?;
        (end > 0 && rest[end..].starts_with('}')).then(|| &text[i..i + end + 2])
    })
}

/// Fills `{case}`, `{pipeline}` and `{document}` in a suite's path or command argument
/// (`argument`, its index in `run.command` and whether a shell or interpreter there reads it as
/// code, see [`crate::base::shell::code_arguments`]).
///
/// A command's argument takes a value only if no shell or interpreter reads a character of it
/// specially: the suite's side (`suite::placeholder_may_stand`) keeps a placeholder out of
/// scripts, but cannot know that the program itself takes its argument as code (`[sh, -c,
/// "{case}"]`, `[awk, "{case}"]`, `[sed, -n, "{case}", f]`), so the value is checked too. One
/// holding anything but letters, digits and `_ - . /` (a document's path may hold spaces too),
/// or beginning the argument with `-` (an option), is refused for this case alone, at its file.
/// A document's space is refused in a script alone (`[sh, -c, "{document}"]` would run a file
/// named `touch PWNED` as a command), at the suite, whose command is what to change.
/// A value of letters alone still reaches a program that takes that argument as code
/// (`[node, -p, "{case}"]`): a placeholder belongs in a file argument, never in the code one. A path of recorded outputs is only read, and takes any value.
pub(super) fn expand(
    (here, (suite_file, suite_mark)): (&InFile, &(PathBuf, Mark)),
    text: &str,
    case_file: &Path,
    suite_dir: &Path,
    pipeline: Option<&str>,
    document: Option<&Document>,
    argument: Option<(usize, bool)>,
) -> Result<String, LoadError> {
    // A placeholder goldgate does not know would reach the command as literal text.
    if let Some(unknown) =
        placeholders(text).find(|p| !matches!(*p, "{case}" | "{pipeline}" | "{document}"))
    {
        return Err(InFile { file: suite_file }
            .err(
                *suite_mark,
                "",
                format!("`{text}` has the unknown placeholder `{unknown}`"),
            )
            .hint("the placeholders are {case}, {pipeline} and {document}"));
    }
    if text.contains("{pipeline}") && pipeline.is_none() {
        return Err(InFile { file: suite_file }
            .err(
                *suite_mark,
                "",
                format!("`{text}` uses {{pipeline}}, but no suite declares `pipelines`"),
            )
            .hint("declare `pipelines:`, or remove {pipeline}"));
    }
    let mut values: Vec<(&str, String)> = Vec::new();
    if text.contains("{case}") {
        values.push(("{case}", crate::base::fs::case_name(case_file, suite_dir)));
    }
    if text.contains("{pipeline}") {
        values.push(("{pipeline}", pipeline.unwrap_or("").to_owned()));
    }
    if text.contains("{document}") {
        let Some(document) = document else {
            return Err(here.err(Mark { line: 1, column: 1 }, "document", format!("the suite's `{text}` needs `{{document}}`, and this case has no `document:`"))
                .hint("add `document: path/to/the/scan.pdf` (relative to the case file)"));
        };
        let shown = crate::base::fs::relative_to(&document.path, suite_dir)
            .unwrap_or_else(|| document.path.clone());
        values.push(("{document}", shown.to_string_lossy().into_owned()));
    }
    if let Some((i, code)) = argument {
        for (placeholder, value) in &values {
            let leads = text.starts_with(placeholder);
            // Scans and exports name documents with spaces, and a document outside the suite's
            // folder is named by its absolute path: a space is let through there alone, and
            // never into a script, where it splits the value into a command and its arguments.
            let spaces = *placeholder == "{document}" && !code;
            if let Some(c) = special_in_an_argument(value, leads, spaces) {
                return Err(special_value(
                    (here, (suite_file, suite_mark)),
                    (placeholder, value),
                    c,
                    (i, text, code),
                    document,
                ));
            }
        }
    }
    let mut out = text.to_owned();
    for (placeholder, value) in &values {
        out = out.replace(placeholder, value);
    }
    Ok(out)
}

/// The first character of a placeholder's value that a shell or interpreter reads specially
/// (see [`expand`]); `leads` when the value begins its argument, where a `-` makes it an option.
pub(super) fn special_in_an_argument(value: &str, leads: bool, spaces: bool) -> Option<char> {
    if leads && value.starts_with('-') {
        return Some('-');
    }
    // An allow-list, as the argument's own is: letters, digits, `_ - . /` (and a document's
    // spaces); every other character (`+ , % : @ ^` as much as `$ ; (`) some interpreter reads.
    value.chars().find(|&c| {
        // The path separator of `{document}` on Windows is `\`, which no shell there reads.
        !(c.is_alphanumeric()
            || "_-./".contains(c)
            || c == std::path::MAIN_SEPARATOR
            || (spaces && c == ' '))
    })
}

/// The error of a value refused in a command's argument, at the file the value comes from: the
/// case file for `{case}`, where `document:` is written for `{document}`, the `run` command for
/// `{pipeline}` (a name the suite gives).
pub(super) fn special_value(
    (here, (suite_file, suite_mark)): (&InFile, (&PathBuf, &Mark)),
    (placeholder, value): (&str, &str),
    c: char,
    (i, text, code): (usize, &str, bool),
    document: Option<&Document>,
) -> LoadError {
    let what = match c {
        ' ' => "a space".to_owned(),
        '-' => "a leading `-`, which makes it an option".to_owned(),
        '`' => "a backquote".to_owned(),
        c if c.is_whitespace() || c.is_control() => {
            format!("`{}`", c.escape_default())
        }
        c => format!("`{c}`"),
    };
    if code && placeholder == "{document}" && c == ' ' {
        return script_space((suite_file, suite_mark), value, (i, text), here.file);
    }
    let (at, mark, path, whose, fix) = match placeholder {
        "{case}" => (
            here.file.to_path_buf(),
            Mark { line: 1, column: 1 },
            String::new(),
            "this case's name",
            "rename the case file with letters, digits and `_ - .` only, or pass the command its `document:` with `{document}` instead",
        ),
        "{document}" => {
            let (file, mark) = document
                .map(|d| d.at.clone())
                .unwrap_or_else(|| (here.file.to_path_buf(), Mark { line: 1, column: 1 }));
            (
                file,
                mark,
                "document".to_owned(),
                "the document's path",
                "rename the document (and its `document:`) with letters, digits and `_ - . /` only, or pass the command `{case}` instead",
            )
        }
        _ => (
            suite_file.clone(),
            *suite_mark,
            format!("run.command[{i}]"),
            "the pipeline's name",
            "rename the pipeline with letters, digits and `_ - .` only",
        ),
    };
    LoadError::at(
        &at,
        mark,
        path,
        format!(
            "{whose} `{value}` would fill `{placeholder}` in `run.command[{i}]` (`{text}`) of `{}:{}:{}`, and it holds {what}: a shell or interpreter may read it as code (`[sh, -c, \"{placeholder}\"]` runs it), so no such value is passed to a command",
            suite_file.display(),
            suite_mark.line,
            suite_mark.column
        ),
    )
    .hint(fix)
}

/// The error of a document's path with a space that would fill a script (`[sh, -c,
/// "{document}"]`): at the suite, since the fix is its command's, which should pass the path as
/// an argument of its own, where a space is only part of a name.
pub(super) fn script_space(
    (suite_file, suite_mark): (&PathBuf, &Mark),
    value: &str,
    (i, text): (usize, &str),
    case_file: &Path,
) -> LoadError {
    LoadError::at(
        suite_file,
        *suite_mark,
        format!("run.command[{i}]"),
        format!(
            "the document's path `{value}` (of `{}`) would fill `{{document}}` in `run.command[{i}]` (`{text}`), which a shell or interpreter reads as a script, and it holds a space: the script would run it as a command and its arguments, so a value with anything but letters, digits and `_ - . /` is never pasted into a script",
            case_file.display()
        ),
    )
    .hint("pass the path as an argument of its own and quote it in the script: `[sh, -c, 'extract \"$1\"', sh, \"{document}\"]`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_without_a_regex() {
        let found: Vec<&str> = placeholders("a/{case}-{pipe_line}.{x1} {} {{document}}").collect();
        assert_eq!(found, ["{case}", "{pipe_line}", "{document}"]);
    }
}
