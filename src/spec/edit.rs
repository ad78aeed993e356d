//! Edits of one gold value in its file that change that value's bytes and nothing else:
//! comments, key order, quoting, flow or block style, blank lines and line endings stay as
//! written. The parser gives where a value starts ([`Node::mark`]); where it ends is found here,
//! by a small scanner of YAML's scalar and flow syntax (JSON is flow YAML). What cannot be edited
//! that way (a block scalar, a block collection replaced whole, an anchor) is refused, never
//! rewritten approximately.

use serde_json::Value as Json;

use super::{Node, NodeKind};
use crate::base::location::Mark;

/// The syntax of a gold file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// A YAML case or gold file.
    Yaml,
    /// A JSON gold file.
    Json,
}

/// What an edit did: the file's new text, and the value before and after, as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Edit {
    /// The whole file after the edit.
    pub(crate) text: String,
    /// The line of the value (1-based).
    pub(crate) line: u64,
    /// The value as it was written; `None` when the edit adds an item to a list.
    pub(crate) before: Option<String>,
    /// The value as it is written now, or the item added.
    pub(crate) after: String,
}

/// Why a value could not be edited in place.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EditError {
    /// The path names no value of the file.
    NotFound(String),
    /// The value is written in a way this editor does not rewrite (`what`), at `mark`.
    Unsupported { mark: Mark, what: &'static str },
    /// The value to add is already one of the variants.
    AlreadyAVariant(Mark),
    /// The gold is "no value" (`null` or nothing), which has no variants.
    NoValue(Mark),
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditError::NotFound(path) => write!(f, "`{path}` is not in the file"),
            EditError::Unsupported { mark, what } => write!(
                f,
                "{}:{}: the value is {what}, which goldgate does not rewrite in place: edit it by hand",
                mark.line, mark.column
            ),
            EditError::AlreadyAVariant(mark) => write!(
                f,
                "{}:{}: the value is already one of the variants",
                mark.line, mark.column
            ),
            EditError::NoValue(mark) => write!(
                f,
                "{}:{}: the gold is no value (`null`), which takes no variant: accept the prediction instead",
                mark.line, mark.column
            ),
        }
    }
}

impl std::error::Error for EditError {}

/// A value found in the file: its node, where its text lies, and whether it sits inside a flow
/// collection (where `,` `[` `]` `{` `}` end a plain scalar).
struct Found<'a> {
    node: &'a Node,
    start: usize,
    in_flow: bool,
    /// Nothing is written after the key (`iban:`): the value goes after the colon.
    empty: bool,
}

impl Found<'_> {
    fn end(&self, source: &str) -> Result<usize, EditError> {
        if self.empty {
            return Ok(self.start);
        }
        extent(source, self.start, self.in_flow, self.node.mark)
    }
}

/// Replaces the value at `path` (mapping keys from the root) with `value`.
pub(crate) fn replace(
    source: &str,
    root: &Node,
    path: &[&str],
    syntax: Syntax,
    value: &Json,
) -> Result<Edit, EditError> {
    let found = find(source, root, path)?;
    let end = found.end(source)?;
    let before = &source[found.start..end];
    let after = written(value, syntax, found.in_flow, quote_of(before));
    let inserted = if found.empty {
        format!(" {after}")
    } else {
        after.clone()
    };
    Ok(Edit {
        text: spliced(source, found.start, end, &inserted),
        line: found.node.mark.line,
        before: Some(before.to_owned()),
        after,
    })
}

/// Adds `value` as a variant of the value at `path`: `x` becomes `{ any_of: [x, value] }`, an
/// existing `any_of` list gets one more item in its own style (flow or block).
pub(crate) fn add_variant(
    source: &str,
    root: &Node,
    path: &[&str],
    syntax: Syntax,
    value: &Json,
) -> Result<Edit, EditError> {
    let found = find(source, root, path)?;
    if found.node.kind == NodeKind::Null {
        return Err(EditError::NoValue(found.node.mark));
    }
    match &found.node.kind {
        NodeKind::Map(entries) if entries.len() == 1 && entries[0].0 == "any_of" => {
            another_variant(source, &found, &entries[0].1, path, syntax, value)
        }
        _ => first_variant(source, &found, syntax, value),
    }
}

/// A value without variants becomes an `any_of` of itself and `value`, in flow style.
fn first_variant(
    source: &str,
    found: &Found,
    syntax: Syntax,
    value: &Json,
) -> Result<Edit, EditError> {
    if found.node.to_value() == crate::base::value::Value::from_json(value) {
        return Err(EditError::AlreadyAVariant(found.node.mark));
    }
    // A plain value moved into a flow list must still read the same there.
    let end = found.end(source)?;
    let old = &source[found.start..end];
    let old = match syntax {
        Syntax::Yaml if quote_of(old).is_none() && !plain_is_safe(old, true) => double_quoted(old),
        _ => old.to_owned(),
    };
    let new = written(value, syntax, true, quote_of(old.as_str()));
    let after = match syntax {
        Syntax::Yaml => format!("{{ any_of: [{old}, {new}] }}"),
        Syntax::Json => format!("{{\"any_of\": [{old}, {new}]}}"),
    };
    Ok(Edit {
        text: spliced(source, found.start, end, &after),
        line: found.node.mark.line,
        before: Some(source[found.start..end].to_owned()),
        after,
    })
}

/// The last item of an `any_of` list, after which a new one goes.
struct LastItem {
    start: usize,
    end: usize,
    /// Where its line starts.
    line_start: usize,
    mark: Mark,
}

/// One more item, `value`, at the end of the `any_of` list `list`.
fn another_variant(
    source: &str,
    found: &Found,
    list: &Node,
    path: &[&str],
    syntax: Syntax,
    value: &Json,
) -> Result<Edit, EditError> {
    let NodeKind::List(items) = &list.kind else {
        return Err(EditError::Unsupported {
            mark: list.mark,
            what: "an `any_of` that is not a list",
        });
    };
    let Some(last) = items.last() else {
        return Err(EditError::Unsupported {
            mark: list.mark,
            what: "an empty `any_of`",
        });
    };
    if items
        .iter()
        .any(|i| i.to_value() == crate::base::value::Value::from_json(value))
    {
        return Err(EditError::AlreadyAVariant(list.mark));
    }
    let list_start = offset(source, list.mark).ok_or(EditError::NotFound(path.join(".")))?;
    let last_start = offset(source, last.mark).ok_or(EditError::NotFound(path.join(".")))?;
    let flow = source[list_start..].starts_with('[');
    let last = LastItem {
        start: last_start,
        end: extent(source, last_start, flow || found.in_flow, last.mark)?,
        line_start: line_start(source, last_start),
        mark: last.mark,
    };
    let last_text = &source[last.start..last.end];
    let new = written(value, syntax, flow || found.in_flow, quote_of(last_text));
    let (at, inserted) = if flow {
        flow_item(source, list_start, &last, &new)
    } else {
        block_item(source, &last, &new)?
    };
    let text = spliced(source, at, at, &inserted);
    // The line the new item is on.
    let new_at = at + inserted.find(new.as_str()).unwrap_or(0);
    let line = text[..new_at].matches('\n').count() as u64 + 1;
    Ok(Edit {
        text,
        line,
        before: None,
        after: new,
    })
}

/// Where a new item `new` of a flow list goes and what is inserted there, in the list's own
/// layout: one item a line, or all on one.
fn flow_item(source: &str, list_start: usize, last: &LastItem, new: &str) -> (usize, String) {
    let eol = line_ending(source, last.start);
    let own_line = source[last.line_start..last.start].trim().is_empty()
        && !source[list_start..last.start]
            .lines()
            .next()
            .unwrap_or("")
            .contains(',');
    if own_line && source[list_start..last.start].contains('\n') {
        let indent = &source[last.line_start..last.start];
        (last.end, format!(",{eol}{indent}{new}"))
    } else {
        (last.end, format!(", {new}"))
    }
}

/// Where a new item `new` of a block list goes and what is inserted there: a new `- item` line
/// under the last one, at its indentation.
fn block_item(source: &str, last: &LastItem, new: &str) -> Result<(usize, String), EditError> {
    let eol = line_ending(source, last.start);
    // The last item's line up to the item (`      - `), its dashes kept and the rest blank.
    let indent: String = source[last.line_start..last.start]
        .chars()
        .map(|c| if c == '-' { '-' } else { ' ' })
        .collect();
    if !source[last.line_start..last.start]
        .trim_start()
        .starts_with('-')
    {
        return Err(EditError::Unsupported {
            mark: last.mark,
            what: "a block list item on a line of its own",
        });
    }
    let end_of_line = source[last.end..]
        .find('\n')
        .map_or(source.len(), |i| last.end + i + 1);
    let lead = if end_of_line == source.len() && !source.ends_with('\n') {
        eol
    } else {
        ""
    };
    Ok((end_of_line, format!("{lead}{indent}{new}{eol}")))
}

fn spliced(source: &str, start: usize, end: usize, with: &str) -> String {
    let mut text = String::with_capacity(source.len() + with.len());
    text.push_str(&source[..start]);
    text.push_str(with);
    text.push_str(&source[end..]);
    text
}

/// The value at `path`, its text's extent and context.
fn find<'a>(source: &str, root: &'a Node, path: &[&str]) -> Result<Found<'a>, EditError> {
    let mut node = root;
    let mut in_flow = false;
    for key in path {
        let start = offset(source, node.mark).ok_or_else(|| EditError::NotFound(path.join(".")))?;
        in_flow |= source[start..].starts_with(['{', '[']);
        node = node
            .as_map()
            .and_then(|m| m.iter().find(|(k, _)| k == key))
            .map(|(_, v)| v)
            .ok_or_else(|| EditError::NotFound(path.join(".")))?;
    }
    let mut start = offset(source, node.mark).ok_or_else(|| EditError::NotFound(path.join(".")))?;
    // A value left out (`iban:`) is placed at its key's colon, or at the line's end.
    let rest = &source[start..];
    let nothing = |t: &str| {
        let t = t.trim_start_matches(' ');
        t.is_empty() || t.starts_with(['\n', '\r', '#'])
    };
    let empty = node.kind == NodeKind::Null
        && (nothing(rest) || rest.starts_with(':') && nothing(&rest[1..]));
    if empty && rest.starts_with(':') {
        start += 1;
    }
    Ok(Found {
        node,
        start,
        in_flow,
        empty,
    })
}

/// The byte offset of a 1-based line and column (in characters).
fn offset(source: &str, mark: Mark) -> Option<usize> {
    let mut line_start = 0;
    for _ in 1..mark.line {
        line_start += source[line_start..].find('\n')? + 1;
    }
    let line = &source[line_start..];
    let column = usize::try_from(mark.column).ok()?.checked_sub(1)?;
    let within = line
        .char_indices()
        .nth(column)
        .map_or(line.len(), |(i, _)| i);
    Some(line_start + within)
}

fn line_start(source: &str, at: usize) -> usize {
    source[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// `\r\n` when the line at `at` ends so, else `\n`.
fn line_ending(source: &str, at: usize) -> &'static str {
    let end = source[at..].find('\n').map(|i| at + i);
    match end {
        Some(e) if e > 0 && source.as_bytes()[e - 1] == b'\r' => "\r\n",
        Some(_) => "\n",
        None if source.contains("\r\n") => "\r\n",
        None => "\n",
    }
}

/// Where the value starting at `start` ends (exclusive), trailing blanks and comments left out.
fn extent(source: &str, start: usize, in_flow: bool, mark: Mark) -> Result<usize, EditError> {
    let bytes = source.as_bytes();
    let unsupported = |what| Err(EditError::Unsupported { mark, what });
    // The parser places a block scalar, an anchored or a tagged value at its content: what
    // precedes it says what it is.
    let before = source[..start].trim_end();
    let token = &before[before
        .rfind(|c: char| c.is_whitespace() || c == '[' || c == '{' || c == ',')
        .map_or(0, |i| i + 1)..];
    match token.chars().next() {
        Some('|' | '>') => return unsupported("a block scalar (`|` or `>`)"),
        Some('&') => return unsupported("written with an anchor"),
        Some('!') => return unsupported("written with a tag"),
        _ => {}
    }
    match bytes.get(start) {
        None => Ok(start),
        Some(b'"') => quoted_end(bytes, start, b'"').map_or(unsupported("an unclosed quote"), Ok),
        Some(b'\'') => quoted_end(bytes, start, b'\'').map_or(unsupported("an unclosed quote"), Ok),
        Some(b'[' | b'{') => {
            flow_end(bytes, start).map_or(unsupported("an unclosed flow collection"), Ok)
        }
        Some(b'|' | b'>') => unsupported("a block scalar (`|` or `>`)"),
        Some(b'&' | b'*') => unsupported("written with an anchor or an alias"),
        Some(b'!') => unsupported("written with a tag"),
        Some(b'-' | b'?') if matches!(bytes.get(start + 1), Some(b' ' | b'\n' | b'\r') | None) => {
            unsupported("a block collection")
        }
        Some(_) if !in_flow && is_block_mapping(source, start) => unsupported("a block collection"),
        Some(_) => {
            let end = plain_end(bytes, start, in_flow);
            // A plain scalar continued on the next lines is one value over several lines.
            if !in_flow && continues(source, start, end) {
                return unsupported("a plain text over several lines");
            }
            Ok(end)
        }
    }
}

/// The end of a quoted scalar (after its closing quote).
fn quoted_end(bytes: &[u8], start: usize, quote: u8) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end of a flow collection (after its closing bracket), quotes and comments inside skipped.
fn flow_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            q @ (b'"' | b'\'') if i == start || is_value_start(bytes, i) => {
                i = quoted_end(bytes, i, q)?;
                continue;
            }
            b'#' if i > 0 && matches!(bytes[i - 1], b' ' | b'\t' | b'\n') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether a quote at `i` opens a quoted scalar (after an indicator or a blank), not sits in a
/// plain one (`l'eau`).
fn is_value_start(bytes: &[u8], i: usize) -> bool {
    let mut j = i;
    while j > 0 {
        j -= 1;
        match bytes[j] {
            b' ' | b'\t' | b'\n' | b'\r' => continue,
            b'[' | b'{' | b',' | b':' => return true,
            _ => return false,
        }
    }
    true
}

/// The end of a plain scalar: a comment, the line's end, or in flow a flow indicator.
fn plain_end(bytes: &[u8], start: usize, in_flow: bool) -> usize {
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' | b'\r' => break,
            b'#' if i > start && matches!(bytes[i - 1], b' ' | b'\t') => break,
            b',' | b']' | b'}' | b'[' | b'{' if in_flow => break,
            b':' if in_flow
                && matches!(
                    bytes.get(i + 1),
                    Some(b' ' | b',' | b']' | b'}' | b'\n') | None
                ) =>
            {
                break;
            }
            _ => {}
        }
        i += 1;
    }
    while i > start && matches!(bytes[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    i
}

/// Whether the line at `start` is a key of a block mapping (`a: 1`), the value a mapping.
fn is_block_mapping(source: &str, start: usize) -> bool {
    let line = &source[start
        ..source[start..]
            .find('\n')
            .map_or(source.len(), |i| start + i)];
    let bytes = line.as_bytes();
    if matches!(bytes.first(), Some(b'"' | b'\'')) {
        return false;
    }
    let end = plain_end(source.as_bytes(), start, false) - start;
    line[..end].contains(": ") || line[..end].ends_with(':')
}

/// Whether the plain scalar at `start..end` goes on over the next lines: the next line that is
/// not blank nor a comment is indented more than the scalar's own line and is no key or item.
fn continues(source: &str, start: usize, end: usize) -> bool {
    let own = line_start(source, start);
    let indent = source[own..].len() - source[own..].trim_start_matches(' ').len();
    let Some(next) = source[end..].find('\n').map(|i| end + i + 1) else {
        return false;
    };
    for line in source[next..].lines() {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.trim().is_empty() || trimmed.starts_with('#') {
            continue;
        }
        return line.len() - trimmed.len() > indent;
    }
    false
}

/// The quote a written scalar is in, if any.
fn quote_of(text: &str) -> Option<char> {
    text.chars().next().filter(|c| matches!(c, '"' | '\''))
}

/// `value` as written in the file: a text plain where YAML reads it back the same (in a quoted
/// style when the old value was quoted), a number with its text, a list or mapping in flow
/// style.
fn written(value: &Json, syntax: Syntax, in_flow: bool, quote: Option<char>) -> String {
    if syntax == Syntax::Json {
        // A number written as a number stays one: its type is kept for the profiles that
        // compare types.
        if let (None, Json::String(s)) = (quote, value)
            && serde_json::from_str::<serde_json::Number>(s).is_ok()
        {
            return s.clone();
        }
        return serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    }
    match value {
        Json::Null => "null".to_owned(),
        Json::Bool(b) => b.to_string(),
        Json::Number(n) => crate::base::value::number_text(n),
        Json::String(s) => match quote {
            Some('\'') if !s.contains(['\n', '\r', '\t']) && !s.chars().any(char::is_control) => {
                format!("'{}'", s.replace('\'', "''"))
            }
            Some(_) => double_quoted(s),
            None if plain_is_safe(s, in_flow) => s.clone(),
            None => double_quoted(s),
        },
        Json::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|i| written(i, syntax, true, None))
                .collect();
            format!("[{}]", items.join(", "))
        }
        Json::Object(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    let key = if plain_is_safe(k, true) {
                        k.clone()
                    } else {
                        double_quoted(k)
                    };
                    format!("{key}: {}", written(v, syntax, true, None))
                })
                .collect();
            if entries.is_empty() {
                "{}".to_owned()
            } else {
                format!("{{ {} }}", entries.join(", "))
            }
        }
    }
}

/// Whether `text` written plain reads back as the same text in goldgate and in any YAML
/// reader: not empty, no null or boolean word, no indicator first, no `: ` or ` #`, no blank at
/// an end, and in flow style no flow indicator. Numbers stay plain: goldgate keeps their text.
pub(crate) fn plain_is_safe(text: &str, in_flow: bool) -> bool {
    const WORDS: [&str; 12] = [
        "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n", ".nan", ".inf",
    ];
    let Some(first) = text.chars().next() else {
        return false;
    };
    if WORDS.contains(&text.to_ascii_lowercase().as_str())
        || text.to_ascii_lowercase().trim_start_matches(['+', '-']) == ".inf"
    {
        return false;
    }
    let second = text[first.len_utf8()..].chars().next();
    let indicator = match first {
        '-' | '?' | ':' => second.is_none_or(|c| c == ' ' || (in_flow && ",[]{}".contains(c))),
        ',' | '[' | ']' | '{' | '}' | '#' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%'
        | '@' | '`' => true,
        _ => false,
    };
    !indicator
        && !text.contains(": ")
        && !text.ends_with(':')
        && !text.contains(" #")
        && !text.starts_with([' ', '\t'])
        && !text.ends_with([' ', '\t'])
        && !text.chars().any(char::is_control)
        && !(in_flow && text.contains([',', '[', ']', '{', '}']))
}

fn double_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn root(source: &str) -> Node {
        super::super::parse_yaml(Path::new("t.yaml"), source).unwrap()
    }

    fn replaced(source: &str, path: &[&str], value: Json) -> String {
        replace(source, &root(source), path, Syntax::Yaml, &value)
            .unwrap()
            .text
    }

    fn variant(source: &str, path: &[&str], value: Json, syntax: Syntax) -> String {
        add_variant(source, &root(source), path, syntax, &value)
            .unwrap()
            .text
    }

    #[test]
    fn a_block_scalar_is_replaced_and_its_comment_kept() {
        let src = "# head\ngold:\n  total: 12.50   # the total\n  n: 0173\n";
        assert_eq!(
            replaced(src, &["gold", "total"], Json::from("13.50")),
            "# head\ngold:\n  total: 13.50   # the total\n  n: 0173\n"
        );
        assert_eq!(
            replaced(src, &["gold", "n"], Json::from("0174")),
            "# head\ngold:\n  total: 12.50   # the total\n  n: 0174\n"
        );
    }

    #[test]
    fn a_flow_value_is_quoted_only_where_flow_needs_it() {
        let src = "gold: { total: 79, n: \"0173\" }\n";
        assert_eq!(
            replaced(src, &["gold", "total"], Json::from("79,26")),
            "gold: { total: \"79,26\", n: \"0173\" }\n"
        );
        assert_eq!(
            replaced(src, &["gold", "n"], Json::from("0174")),
            "gold: { total: 79, n: \"0174\" }\n"
        );
        let block = "gold:\n  total: 79\n";
        assert_eq!(
            replaced(block, &["gold", "total"], Json::from("79,26")),
            "gold:\n  total: 79,26\n"
        );
    }

    #[test]
    fn single_quotes_stay_single_and_crlf_stays() {
        let src = "gold:\r\n  name: 'l''eau'\r\n  x: 1\r\n";
        assert_eq!(
            replaced(src, &["gold", "name"], Json::from("d'or")),
            "gold:\r\n  name: 'd''or'\r\n  x: 1\r\n"
        );
    }

    #[test]
    fn words_yaml_reads_otherwise_are_quoted() {
        for (text, written) in [
            ("yes", "\"yes\""),
            ("null", "\"null\""),
            ("a: b", "\"a: b\""),
            ("a #b", "\"a #b\""),
            ("*x", "\"*x\""),
            ("@x", "\"@x\""),
            ("", "\"\""),
            ("-5", "-5"),
            ("0173", "0173"),
            ("2024-03-05", "2024-03-05"),
            ("l'eau", "l'eau"),
        ] {
            let src = "gold:\n  v: x\n";
            assert_eq!(
                replaced(src, &["gold", "v"], Json::from(text)),
                format!("gold:\n  v: {written}\n"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_variant_wraps_a_plain_value_in_flow_any_of() {
        let src = "gold:\n  date: 2024-03-05 # issued\n";
        assert_eq!(
            variant(
                src,
                &["gold", "date"],
                Json::from("05/03/2024"),
                Syntax::Yaml
            ),
            "gold:\n  date: { any_of: [2024-03-05, 05/03/2024] } # issued\n"
        );
        let french = "gold:\n  total: 79,26\n";
        assert_eq!(
            variant(
                french,
                &["gold", "total"],
                Json::from("79.26"),
                Syntax::Yaml
            ),
            "gold:\n  total: { any_of: [\"79,26\", \"79.26\"] }\n"
        );
    }

    #[test]
    fn a_variant_extends_an_any_of_in_its_style() {
        let flow = "gold:\n  date: { any_of: [a, b] }\n";
        assert_eq!(
            variant(flow, &["gold", "date"], Json::from("c"), Syntax::Yaml),
            "gold:\n  date: { any_of: [a, b, c] }\n"
        );
        let block = "gold:\n  date:\n    any_of:\n      - a   # first\n      - 'b'\n  x: 1\n";
        assert_eq!(
            variant(block, &["gold", "date"], Json::from("c"), Syntax::Yaml),
            "gold:\n  date:\n    any_of:\n      - a   # first\n      - 'b'\n      - 'c'\n  x: 1\n"
        );
        let at_end = "gold:\n  date:\n    any_of:\n    - a";
        assert_eq!(
            variant(at_end, &["gold", "date"], Json::from("b"), Syntax::Yaml),
            "gold:\n  date:\n    any_of:\n    - a\n    - b\n"
        );
    }

    #[test]
    fn json_is_edited_in_place() {
        let src =
            "{\n  \"total\": 12.50,\n  \"date\": {\"any_of\": [\n    \"a\",\n    \"b\"\n  ]}\n}\n";
        let r = root(src);
        assert_eq!(
            replace(src, &r, &["total"], Syntax::Json, &Json::from("13.50"))
                .unwrap()
                .text,
            "{\n  \"total\": 13.50,\n  \"date\": {\"any_of\": [\n    \"a\",\n    \"b\"\n  ]}\n}\n"
        );
        assert_eq!(
            variant(src, &["date"], Json::from("c"), Syntax::Json),
            "{\n  \"total\": 12.50,\n  \"date\": {\"any_of\": [\n    \"a\",\n    \"b\",\n    \"c\"\n  ]}\n}\n"
        );
        assert_eq!(
            variant(src, &["total"], Json::from("13"), Syntax::Json),
            "{\n  \"total\": {\"any_of\": [12.50, 13]},\n  \"date\": {\"any_of\": [\n    \"a\",\n    \"b\"\n  ]}\n}\n"
        );
    }

    #[test]
    fn a_json_number_stays_a_number_and_a_json_text_a_text() {
        let src = "{\"total\": 12.50, \"id\": \"0173\"}";
        let r = root(src);
        let edit = |path: &str, to: &str| {
            replace(src, &r, &[path], Syntax::Json, &Json::from(to))
                .unwrap()
                .text
        };
        assert_eq!(
            edit("total", "12.60"),
            "{\"total\": 12.60, \"id\": \"0173\"}"
        );
        assert_eq!(
            edit("total", "12,60"),
            "{\"total\": \"12,60\", \"id\": \"0173\"}"
        );
        assert_eq!(edit("id", "0174"), "{\"total\": 12.50, \"id\": \"0174\"}");
    }

    #[test]
    fn what_cannot_be_rewritten_in_place_is_refused() {
        for src in [
            "gold:\n  t: |\n    x\n",
            "gold:\n  t: &a x\n",
            "gold:\n  t:\n    - a\n",
            "gold:\n  t: one\n    two\n",
        ] {
            let e = replace(
                src,
                &root(src),
                &["gold", "t"],
                Syntax::Yaml,
                &Json::from("y"),
            );
            assert!(
                matches!(e, Err(EditError::Unsupported { .. })),
                "{src:?}: {e:?}"
            );
        }
        let src = "gold:\n  t: x\n";
        assert_eq!(
            replace(
                src,
                &root(src),
                &["gold", "u"],
                Syntax::Yaml,
                &Json::from("y")
            ),
            Err(EditError::NotFound("gold.u".into()))
        );
    }

    #[test]
    fn a_value_left_out_is_written_after_its_colon() {
        let src = "gold:\n  iban:\n  empty: # none\n  x: 1\n";
        assert_eq!(
            replaced(src, &["gold", "iban"], Json::from("FR76")),
            "gold:\n  iban: FR76\n  empty: # none\n  x: 1\n"
        );
        assert_eq!(
            replaced(src, &["gold", "empty"], Json::from("v")),
            "gold:\n  iban:\n  empty: v # none\n  x: 1\n"
        );
        assert_eq!(
            add_variant(
                src,
                &root(src),
                &["gold", "iban"],
                Syntax::Yaml,
                &Json::from("v")
            ),
            Err(EditError::NoValue(
                root(src).as_map().unwrap()[0].1.as_map().unwrap()[0].1.mark
            ))
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Whatever the text, it reads back as itself, in block and in flow style.
        #[test]
        // Texts made of YAML's indicators, blanks and a few words, so that those that need
        // quotes come up often.
        fn any_text_written_reads_back_as_itself(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                " ", "#", ":", ",", "'", "\"", "[", "]", "{", "}", "?", "*", "&", "!", "|", ">",
                "%", "@", "`", "~", "-", "\\", "\t", "\n", "0173", "1.50", "yes", "null", "a",
                "é", "- ", ": ", " #",
            ]), 0..6)
        ) {
            let text: String = parts.concat();
            for src in [
                "gold:\n  v: x # c\n  w: 1\n",
                "gold: { v: x, w: 1 }\n",
                "gold: { v: 'x', w: 1 }\n",
                "gold:\n  v: \"x\"\n",
            ] {
                let path = ["gold", "v"];
                let Ok(edit) = replace(src, &root(src), &path, Syntax::Yaml, &Json::from(text.as_str())) else {
                    continue;
                };
                let back = root(&edit.text);
                let v = back.as_map().unwrap()[0].1.as_map().unwrap()[0].1.to_value();
                proptest::prop_assert_eq!(v, crate::base::value::Value::Text(text.clone()), "{}", edit.text);
            }
        }
    }

    #[test]
    fn a_list_value_is_written_in_flow_style() {
        let src = "gold:\n  items: [{ q: \"10\" }] # items\n";
        assert_eq!(
            replaced(
                src,
                &["gold", "items"],
                serde_json::json!([{"q": "10", "d": "Câble, 3G"}])
            ),
            "gold:\n  items: [{ q: 10, d: \"Câble, 3G\" }] # items\n"
        );
    }
}
