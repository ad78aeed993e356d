//! The block-style YAML most case files are written in, read in one pass.
//!
//! Parsing the case files through serde-saphyr is the largest part of a run's CPU: its events,
//! key fingerprints and span bookkeeping cost about five times what the documents need. Most case
//! files use a small part of YAML: block mappings and sequences, one-line plain and quoted
//! scalars, one-line flow sequences of scalars, and comments. This reader takes exactly that
//! part and hands the same serde calls, with the same `Spanned` locations, that serde-saphyr
//! would. It gives up on anything else, and on any doubt (a scalar YAML 1.1 could read as a
//! number, a boolean or a date, a duplicate key, a value the target type refuses): the file is
//! then read by serde-saphyr, so what a file means and every message stay serde-saphyr's. A
//! differential test holds the two readers to the same values and locations.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};

use super::node::NODE;
use crate::base::spanned::{NUMBERS, SPANNED};

/// `source` read as a `T`, or `None` where serde-saphyr must read it.
pub(crate) fn read<T: DeserializeOwned>(source: &str) -> Option<T> {
    let root = Reader::new(source)?.document()?;
    T::deserialize(Value(&root)).ok()
}

/// Where a node is written: serde-saphyr's `Location` (1-based line and column in characters)
/// and its `Span` (offset and length in characters and in bytes).
#[derive(Debug, Clone, Copy)]
struct At {
    line: u32,
    column: u32,
    chars: u32,
    char_len: u32,
    bytes: u32,
    byte_len: u32,
}

#[derive(Debug)]
enum Kind<'s> {
    /// A plain scalar, typed by what it says when it is read.
    Plain(&'s str),
    /// A quoted scalar: always text.
    Quoted(Cow<'s, str>),
    /// A value left out (`key:` with nothing after it).
    Empty,
    List(Vec<Node<'s>>),
    Map(Vec<(Node<'s>, Node<'s>)>),
}

#[derive(Debug)]
struct Node<'s> {
    kind: Kind<'s>,
    at: At,
}

/// One line holding YAML content (blank and comment lines are skipped).
struct Line<'s> {
    text: &'s str,
    /// 1-based.
    number: u32,
    /// Offsets of the line's start.
    bytes: u32,
    chars: u32,
    /// Leading spaces.
    indent: usize,
    /// Whether its characters are its bytes.
    ascii: bool,
}

struct Reader<'s> {
    lines: Vec<Line<'s>>,
    /// The next line not yet read.
    next: usize,
    /// The last place counted in characters on a line that is not ASCII, (line, byte,
    /// characters before it): nodes of a line are placed left to right, so each counts on from
    /// the one before rather than from the line's start.
    counted: std::cell::Cell<(usize, usize, usize)>,
}

impl<'s> Reader<'s> {
    /// The content lines of `source`, or `None` for what this reader leaves to serde-saphyr
    /// whatever the lines say: tabs, carriage returns, characters YAML does not print (which
    /// it refuses), a byte-order mark, directives and document markers.
    fn new(source: &'s str) -> Option<Self> {
        // Past 64 KiB a file could hold more values than serde-saphyr's budget lets it read
        // (250,000), and past 40 spaces of indentation be nested deeper than it reads (64: a
        // level a column, with a sequence at its key's column, a mapping after its dash and two
        // flow collections on the last line): those are said by its messages.
        if source.len() > 64 << 10 || !printable(source.as_bytes()) {
            return None;
        }
        let mut lines = Vec::new();
        let (mut bytes, mut chars) = (0u32, 0u32);
        for (i, text) in source.split('\n').enumerate() {
            let content = text.trim_start_matches(' ');
            let indent = text.len() - content.len();
            let ascii = text.is_ascii();
            if content.starts_with("---")
                || content.starts_with("...")
                || text.starts_with('%')
                || indent > 40
            {
                return None;
            }
            if !content.is_empty() && !content.starts_with('#') {
                lines.push(Line {
                    text,
                    ascii,
                    number: u32::try_from(i + 1).ok()?,
                    bytes,
                    chars,
                    indent,
                });
            }
            bytes = bytes.checked_add(u32::try_from(text.len() + 1).ok()?)?;
            let len = if ascii {
                text.len()
            } else {
                text.chars().count()
            };
            chars = chars.checked_add(u32::try_from(len + 1).ok()?)?;
        }
        Some(Reader {
            lines,
            next: 0,
            counted: std::cell::Cell::new((usize::MAX, 0, 0)),
        })
    }

    /// The document's root: a block mapping or sequence.
    fn document(mut self) -> Option<Node<'s>> {
        let first = self.lines.first()?;
        if first.indent != 0 {
            return None;
        }
        let root = self.block(0)?;
        (self.next == self.lines.len()).then_some(root)
    }

    fn at(&self, line: usize, start: usize, end: usize) -> Option<At> {
        let l = &self.lines[line];
        let (before, len) = if l.ascii {
            (start, end - start)
        } else {
            let (at_line, at_byte, at_chars) = self.counted.get();
            let (from, chars) = if at_line == line && at_byte <= start {
                (at_byte, at_chars)
            } else {
                (0, 0)
            };
            let before = chars + count_chars(l.text.get(from..start)?);
            self.counted.set((line, start, before));
            (before, count_chars(l.text.get(start..end)?))
        };
        Some(At {
            line: l.number,
            column: u32::try_from(before + 1).ok()?,
            chars: l.chars + u32::try_from(before).ok()?,
            char_len: u32::try_from(len).ok()?,
            bytes: l.bytes + u32::try_from(start).ok()?,
            byte_len: u32::try_from(end - start).ok()?,
        })
    }

    /// The block node that starts at column `column` of the next line: a sequence, a mapping,
    /// or a scalar alone on its line.
    fn block(&mut self, column: usize) -> Option<Node<'s>> {
        let rest = self.lines.get(self.next)?.text.get(column..)?;
        if is_dash(rest) {
            self.sequence(column)
        } else if key_end(rest).is_some() {
            self.mapping(column)
        } else {
            None
        }
    }

    /// A block sequence whose dashes stand at `column`.
    fn sequence(&mut self, column: usize) -> Option<Node<'s>> {
        let start = self.next;
        let mut items = Vec::new();
        while let Some(line) = self.lines.get(self.next)
            && line.indent == column
            && is_dash(&line.text[column..])
        {
            let after = &line.text[column + 1..];
            let content = after.trim_start_matches(' ');
            let at = column + 1 + after.len() - content.len();
            if content.is_empty() || content.starts_with('#') {
                self.next += 1;
                // A dash with nothing after it is a null placed at its line's end.
                items.push(self.nested_or_empty(column, self.next - 1, line.text.len())?);
            } else if is_dash(content) || key_end(content).is_some() {
                // `- key: value` opens a mapping whose keys stand at `at`; `- - x` is left to
                // serde-saphyr.
                if is_dash(content) {
                    return None;
                }
                items.push(self.entries(at, true)?);
            } else {
                items.push(self.inline(self.next, at)?);
                self.next += 1;
                self.nothing_deeper(column)?;
            }
        }
        let at = self.at(start, column, column)?;
        Some(Node {
            kind: Kind::List(items),
            at,
        })
    }

    /// A block mapping whose keys stand at `column`.
    fn mapping(&mut self, column: usize) -> Option<Node<'s>> {
        self.entries(column, false)
    }

    fn entries(&mut self, column: usize, compact: bool) -> Option<Node<'s>> {
        let start = self.next;
        let mut entries: Vec<(Node<'s>, Node<'s>)> = Vec::new();
        while let Some(line) = self.lines.get(self.next) {
            let first = self.next == start;
            if !(first && compact) && line.indent != column {
                if line.indent > column {
                    return None;
                }
                break;
            }
            let text = line.text;
            let rest = &text[column..];
            let end = key_end(rest)?;
            let key_text = &rest[..end];
            if taken(&entries, key_text) {
                return None;
            }
            let key = Node {
                kind: Kind::Plain(key_text),
                at: self.at(self.next, column, column + end)?,
            };
            let colon = column + end;
            let after = &text[colon + 1..];
            let content = after.trim_start_matches(' ');
            let value_at = colon + 1 + after.len() - content.len();
            let value = if content.is_empty() || content.starts_with('#') {
                self.next += 1;
                self.value_below(column, self.next - 1, colon)?
            } else {
                let value = self.inline(self.next, value_at)?;
                self.next += 1;
                self.nothing_deeper(column)?;
                value
            };
            entries.push((key, value));
        }
        let at = self.at(start, column, column)?;
        Some(Node {
            kind: Kind::Map(entries),
            at,
        })
    }

    /// The value of a key with nothing after its colon: the block below it (deeper, or a
    /// sequence at the key's own column), else left out, placed at the colon.
    fn value_below(&mut self, column: usize, line: usize, colon: usize) -> Option<Node<'s>> {
        if let Some(next) = self.lines.get(self.next)
            && next.indent == column
            && is_dash(&next.text[column..])
        {
            // A sequence at its key's column is placed where its first item starts.
            let mut list = self.sequence(column)?;
            let Kind::List(items) = &list.kind else {
                return None;
            };
            let first = items.first()?.at;
            if matches!(items[0].kind, Kind::Empty) || first.line != list.at.line {
                return None;
            }
            list.at = At {
                char_len: 0,
                byte_len: 0,
                ..first
            };
            return Some(list);
        }
        self.nested_or_empty(column, line, colon)
    }

    /// The block below a line whose node is at `column` when it is deeper, else a value left
    /// out at `empty_at` of `line`.
    fn nested_or_empty(&mut self, column: usize, line: usize, empty_at: usize) -> Option<Node<'s>> {
        match self.lines.get(self.next) {
            Some(next) if next.indent > column => {
                let indent = next.indent;
                self.block(indent)
            }
            _ => Some(Node {
                kind: Kind::Empty,
                at: self.at(line, empty_at, empty_at)?,
            }),
        }
    }

    /// After a one-line value in a block at `column`: a deeper line would continue a plain
    /// scalar over lines, or be an error, and is left to serde-saphyr.
    fn nothing_deeper(&self, column: usize) -> Option<()> {
        match self.lines.get(self.next) {
            Some(next) if next.indent > column => None,
            _ => Some(()),
        }
    }

    /// The one-line value starting at byte `start` of `line`, then nothing but a comment.
    fn inline(&self, line: usize, start: usize) -> Option<Node<'s>> {
        let text = self.lines[line].text;
        let (node, end) = match text.as_bytes()[start] {
            b'"' | b'\'' => self.quoted(line, start)?,
            b'[' => self.flow_sequence(line, start)?,
            b'{' => self.flow_mapping(line, start)?,
            _ => {
                let rest = &text[start..];
                let len = comment_start(rest);
                let plain = rest[..len].trim_end_matches(' ');
                if !plain_in_block(plain) {
                    return None;
                }
                let node = Node {
                    kind: Kind::Plain(plain),
                    at: self.at(line, start, start + plain.len())?,
                };
                (node, start + len)
            }
        };
        only_comment(&text[end..]).then_some(node)
    }

    /// A quoted scalar at `start`, and where it ends.
    fn quoted(&self, line: usize, start: usize) -> Option<(Node<'s>, usize)> {
        let text = self.lines[line].text;
        let quote = text.as_bytes()[start];
        let body = &text[start + 1..];
        let (value, len) = if quote == b'"' {
            double_quoted(body)?
        } else {
            single_quoted(body)?
        };
        let end = start + 1 + len + 1;
        let node = Node {
            kind: Kind::Quoted(value),
            at: self.at(line, start, end)?,
        };
        Some((node, end))
    }

    /// `[a, "b", c]` on one line: scalars only.
    fn flow_sequence(&self, line: usize, start: usize) -> Option<(Node<'s>, usize)> {
        let text = self.lines[line].text;
        let mut items = Vec::new();
        let mut i = start + 1;
        loop {
            i += spaces(&text[i..]);
            match *text.as_bytes().get(i)? {
                b']' if items.is_empty() => break,
                b'"' | b'\'' => {
                    let (item, end) = self.quoted(line, i)?;
                    items.push(item);
                    i = end;
                }
                b'[' | b'{' => return None,
                _ => {
                    let (item, end) = self.flow_plain(line, i, &[',', ']'])?;
                    items.push(item);
                    i = end;
                }
            }
            match after_item(text, i, b']')? {
                Next::Item(at) => i = at,
                Next::Closed(at) => {
                    i = at;
                    break;
                }
            }
        }
        let node = Node {
            kind: Kind::List(items),
            at: self.at(line, start, start + 1)?,
        };
        Some((node, i + 1))
    }
}

impl<'s> Reader<'s> {
    /// `{ key: value, ... }` on one line, its values scalars or `[...]`. A key that starts with a
    /// digit or has no value is left to serde-saphyr: it may be a French decimal split by the
    /// comma (`{ total: 79,26 }`), which the parse reports.
    fn flow_mapping(&self, line: usize, start: usize) -> Option<(Node<'s>, usize)> {
        let text = self.lines[line].text;
        let mut entries: Vec<(Node<'s>, Node<'s>)> = Vec::new();
        let mut i = start + 1;
        loop {
            i += spaces(&text[i..]);
            if text.as_bytes().get(i) == Some(&b'}') && entries.is_empty() {
                break;
            }
            let end = text[i..].find(": ")?;
            let key = &text[i..i + end];
            if !plain_in_flow(key)
                || key.ends_with(' ')
                || key.starts_with(|c: char| c.is_ascii_digit())
                || key.len() > LONGEST_KEY
                || taken(&entries, key)
            {
                return None;
            }
            let key = Node {
                kind: Kind::Plain(key),
                at: self.at(line, i, i + end)?,
            };
            i += end + 1;
            i += spaces(&text[i..]);
            let value = match *text.as_bytes().get(i)? {
                b'"' | b'\'' => self.quoted(line, i)?,
                b'[' => self.flow_sequence(line, i)?,
                _ => self.flow_plain(line, i, &[',', '}'])?,
            };
            entries.push((key, value.0));
            match after_item(text, value.1, b'}')? {
                Next::Item(at) => i = at,
                Next::Closed(at) => {
                    i = at;
                    break;
                }
            }
        }
        let node = Node {
            kind: Kind::Map(entries),
            at: self.at(line, start, start + 1)?,
        };
        Some((node, i + 1))
    }

    /// A plain scalar inside `[...]` or `{...}`, ended by one of `ends`.
    fn flow_plain(&self, line: usize, start: usize, ends: &[char]) -> Option<(Node<'s>, usize)> {
        let rest = &self.lines[line].text[start..];
        let len = rest.find(ends)?;
        let plain = rest[..len].trim_end_matches(' ');
        if !plain_in_flow(plain) {
            return None;
        }
        let node = Node {
            kind: Kind::Plain(plain),
            at: self.at(line, start, start + plain.len())?,
        };
        Some((node, start + plain.len()))
    }
}

/// What follows an item of a flow collection.
enum Next {
    /// A comma: the next item starts at or after this byte.
    Item(usize),
    /// The closing bracket, at this byte.
    Closed(usize),
}

/// After an item ending at byte `end` of `text`: spaces, then a comma or `close`.
fn after_item(text: &str, end: usize, close: u8) -> Option<Next> {
    let at = end + spaces(&text[end..]);
    match *text.as_bytes().get(at)? {
        b',' => Some(Next::Item(at + 1)),
        b if b == close => Some(Next::Closed(at)),
        _ => None,
    }
}

fn spaces(text: &str) -> usize {
    text.len() - text.trim_start_matches(' ').len()
}

/// Whether a text holds only characters YAML prints (and no byte-order mark), in one pass
/// over its bytes: no control character but the newline, no C1 control (U+0080–U+009F), no
/// U+FEFF, U+FFFE or U+FFFF.
fn printable(bytes: &[u8]) -> bool {
    !bytes.iter().enumerate().any(|(i, &b)| match b {
        b'\n' => false,
        0..=0x1f | 0x7f => true,
        0xc2 => bytes.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)),
        0xef => matches!(
            (bytes.get(i + 1), bytes.get(i + 2)),
            (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xbe | 0xbf))
        ),
        _ => false,
    })
}

fn count_chars(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

/// `- item` or a dash alone.
fn is_dash(rest: &str) -> bool {
    rest == "-" || rest.starts_with("- ")
}

// The scans below are byte loops: on lines of a few dozen bytes a substring search costs more
// to set up than to run, and a case file has hundreds of them.

/// Where a plain key ends (its colon), if `rest` starts with one: `key: value` or `key:`.
fn key_end(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    if !starts_as_text(bytes) {
        return None;
    }
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            // A key holds no colon of its own, and no space before its colon.
            b':' => {
                let ends = bytes.get(i + 1).is_none_or(|&next| next == b' ');
                return (ends && bytes[i - 1] != b' ' && i <= LONGEST_KEY).then_some(i);
            }
            b',' | b'[' | b']' | b'{' | b'}' | b'#' => return None,
            _ => {}
        }
    }
    None
}

/// Where a comment starts in a plain scalar's line (` #`), else its end.
fn comment_start(rest: &str) -> usize {
    let bytes = rest.as_bytes();
    (1..bytes.len())
        .find(|&i| bytes[i] == b'#' && bytes[i - 1] == b' ')
        .map_or(bytes.len(), |i| i - 1)
}

/// Nothing, or a comment after a space.
fn only_comment(rest: &str) -> bool {
    let trimmed = rest.trim_start_matches(' ');
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// Whether a plain scalar starts as text does: not with one of YAML's indicators, though `-12`
/// may.
fn starts_as_text(bytes: &[u8]) -> bool {
    match bytes.first() {
        None => false,
        Some(b'-') => bytes.len() > 1 && bytes[1] != b' ',
        Some(first) => !matches!(
            first,
            b'?' | b':'
                | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
        ),
    }
}

/// A plain scalar this reader takes in block context: it starts as text does, and holds no
/// `: ` or ` #` that would make it something else.
fn plain_in_block(text: &str) -> bool {
    let bytes = text.as_bytes();
    starts_as_text(bytes)
        && bytes.last() != Some(&b':')
        && !bytes.windows(2).any(|w| w == b": " || w == b" #")
}

/// A plain scalar this reader takes inside `[...]` and as a key: as in block context, and
/// without the flow indicators or a colon.
fn plain_in_flow(text: &str) -> bool {
    let bytes = text.as_bytes();
    starts_as_text(bytes)
        && !bytes
            .iter()
            .any(|b| matches!(b, b',' | b'[' | b']' | b'{' | b'}' | b':' | b'#'))
}

/// The longest key YAML reads without a `?`, in characters (serde-saphyr's budget), counted
/// here in bytes: never fewer.
const LONGEST_KEY: usize = 1024;

/// The most keys a mapping read here holds.
const MOST_KEYS: usize = 256;

/// Whether `key` is already among a mapping's keys (a handful: a scan beats a set).
fn taken(entries: &[(Node<'_>, Node<'_>)], key: &str) -> bool {
    // Past a few hundred keys the scan grows with their square: serde-saphyr reads the file.
    entries.len() >= MOST_KEYS
        || entries.iter().any(|(k, _)| match k.kind {
            Kind::Plain(t) => t.as_bytes().last() == key.as_bytes().last() && t == key,
            _ => false,
        })
}

/// The text of a double-quoted scalar whose body starts `body`, and the body's length up to
/// the closing quote; the common escapes only.
fn double_quoted(body: &str) -> Option<(Cow<'_, str>, usize)> {
    let end = body.find(['"', '\\'])?;
    if body.as_bytes()[end] == b'"' {
        return Some((Cow::Borrowed(&body[..end]), end));
    }
    let mut text = String::from(&body[..end]);
    let mut chars = body[end..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((Cow::Owned(text), end + i)),
            '\\' => text.push(match chars.next()?.1 {
                '\\' => '\\',
                '"' => '"',
                '/' => '/',
                'n' => '\n',
                't' => '\t',
                _ => return None,
            }),
            c => text.push(c),
        }
    }
    None
}

/// The text of a single-quoted scalar (`''` is a quote), and its body's length.
fn single_quoted(body: &str) -> Option<(Cow<'_, str>, usize)> {
    let end = body.find('\'')?;
    if !body[end + 1..].starts_with('\'') {
        return Some((Cow::Borrowed(&body[..end]), end));
    }
    let mut text = String::new();
    let mut i = 0;
    loop {
        let quote = i + body[i..].find('\'')?;
        text.push_str(&body[i..quote]);
        if body[quote + 1..].starts_with('\'') {
            text.push('\'');
            i = quote + 2;
        } else {
            return Some((Cow::Owned(text), quote));
        }
    }
}

/// What a plain scalar reads as, where this reader is sure serde-saphyr reads it so.
enum Typed<'s> {
    Null,
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Text(&'s str),
}

/// A plain scalar's type as serde-saphyr gives it, or `None` where YAML 1.1's forms (`yes`,
/// `012`, `1_000`, `0x1F`, `.inf`, dates, times) or anything else makes it unsure.
fn typed(text: &str) -> Option<Typed<'_>> {
    match text {
        "~" | "null" | "Null" | "NULL" => return Some(Typed::Null),
        "true" => return Some(Typed::Bool(true)),
        "false" => return Some(Typed::Bool(false)),
        _ => {}
    }
    let first = text.chars().next()?;
    if first.is_alphabetic() || first == '_' {
        // Compared whatever their case, without a lowercased copy of every scalar.
        const WORDS: [&str; 12] = [
            "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf", "infinity",
        ];
        let word = WORDS.iter().any(|w| text.eq_ignore_ascii_case(w));
        return (!word).then_some(Typed::Text(text));
    }
    if text.starts_with('/') || text.starts_with("./") || text.starts_with("../") {
        return Some(Typed::Text(text));
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (digits, None),
    };
    let plain_digits = |s: &str, most: usize| {
        !s.is_empty() && s.len() <= most && s.bytes().all(|b| b.is_ascii_digit())
    };
    if !plain_digits(whole, 15) || (whole.len() > 1 && whole.starts_with('0')) {
        return None;
    }
    match fraction {
        Some(f) if plain_digits(f, 15) => text.parse().ok().map(Typed::Float),
        Some(_) => None,
        None if negative => {
            (whole != "0").then_some(())?;
            text.parse().ok().map(Typed::Signed)
        }
        None => text.parse().ok().map(Typed::Unsigned),
    }
}

/// Why this reader left a file: never shown, the file is read again by serde-saphyr.
#[derive(Debug)]
struct GiveUp;

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("left to serde-saphyr")
    }
}

impl std::error::Error for GiveUp {}

impl de::Error for GiveUp {
    fn custom<T: fmt::Display>(_: T) -> Self {
        GiveUp
    }
}

/// A node handed to serde.
#[derive(Clone, Copy)]
struct Value<'a, 's>(&'a Node<'s>);

impl<'a, 's> Value<'a, 's> {
    /// The node as text, where it is text for certain.
    fn text(self) -> Result<&'a str, GiveUp> {
        match &self.0.kind {
            Kind::Quoted(text) => Ok(text),
            Kind::Plain(text) => match typed(text) {
                Some(Typed::Text(text)) => Ok(text),
                _ => Err(GiveUp),
            },
            _ => Err(GiveUp),
        }
    }

    fn is_null(self) -> bool {
        match self.0.kind {
            Kind::Empty => true,
            Kind::Plain(text) => matches!(text, "~" | "null" | "Null" | "NULL"),
            _ => false,
        }
    }

    fn number<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        let Kind::Plain(text) = self.0.kind else {
            return Err(GiveUp);
        };
        match typed(text) {
            Some(Typed::Unsigned(n)) => visitor.visit_u64(n),
            Some(Typed::Signed(n)) => visitor.visit_i64(n),
            Some(Typed::Float(n)) => visitor.visit_f64(n),
            _ => Err(GiveUp),
        }
    }
}

/// The deserializer's methods for numbers: each reads a plain scalar by [`typed`].
macro_rules! numbers {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
            self.number(visitor)
        })*
    };
}

impl<'de> de::Deserializer<'de> for Value<'_, '_> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        match &self.0.kind {
            Kind::Empty => visitor.visit_unit(),
            Kind::Quoted(text) => visitor.visit_str(text),
            Kind::Plain(text) => match typed(text).ok_or(GiveUp)? {
                Typed::Null => visitor.visit_unit(),
                Typed::Bool(b) => visitor.visit_bool(b),
                Typed::Unsigned(n) => visitor.visit_u64(n),
                Typed::Signed(n) => visitor.visit_i64(n),
                Typed::Float(n) => visitor.visit_f64(n),
                Typed::Text(text) => visitor.visit_str(text),
            },
            Kind::List(items) => visitor.visit_seq(Items(items.iter())),
            Kind::Map(entries) => visitor.visit_map(Entries {
                entries: entries.iter(),
                value: None,
            }),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        match self.0.kind {
            Kind::Plain("true") => visitor.visit_bool(true),
            Kind::Plain("false") => visitor.visit_bool(false),
            _ => Err(GiveUp),
        }
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_f32 deserialize_f64
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        visitor.visit_str(self.text()?)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        visitor.visit_str(self.text()?)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        visitor.visit_str(self.text()?)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        if self.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        if self.is_null() {
            visitor.visit_unit()
        } else {
            Err(GiveUp)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, GiveUp> {
        if name == SPANNED {
            visitor.visit_newtype_struct(Located(self))
        } else if name == NODE {
            visitor.visit_newtype_struct(Written(self))
        } else {
            visitor.visit_newtype_struct(self)
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        match &self.0.kind {
            Kind::List(items) => visitor.visit_seq(Items(items.iter())),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        match &self.0.kind {
            Kind::Map(entries) => visitor.visit_map(Entries {
                entries: entries.iter(),
                value: None,
            }),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, GiveUp> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, GiveUp> {
        let text: StrDeserializer<'_, GiveUp> = self.text()?.into_deserializer();
        visitor.visit_enum(text)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        visitor.visit_unit()
    }

    /// Types case files never hold: serde-saphyr reads them.
    fn deserialize_char<V: Visitor<'de>>(self, _: V) -> Result<V::Value, GiveUp> {
        Err(GiveUp)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, _: V) -> Result<V::Value, GiveUp> {
        Err(GiveUp)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, _: V) -> Result<V::Value, GiveUp> {
        Err(GiveUp)
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, GiveUp> {
        self.deserialize_unit(visitor)
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, GiveUp> {
        Err(GiveUp)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, GiveUp> {
        Err(GiveUp)
    }
}

/// A node read as a [`crate::spec::Node`], which keeps a plain scalar as written whatever YAML
/// would type it as (`0173`, `2024-02-14`, `no`): only its null is told apart.
struct Written<'a, 's>(Value<'a, 's>);

impl<'de> de::Deserializer<'de> for Written<'_, '_> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        match self.0.0.kind {
            // serde-saphyr hands an infinite or not-a-number float over as the text `.inf` or
            // `.nan`, whatever was written (`1e999`): left to it, to read alike.
            Kind::Plain(text) if non_finite(text) => Err(GiveUp),
            Kind::Plain(text) if !self.0.is_null() => visitor.visit_str(text),
            _ => self.0.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A plain scalar YAML may read as an infinite or not-a-number float: `.inf`, `-.NaN`, `1e999`.
fn non_finite(text: &str) -> bool {
    let bytes = text.as_bytes();
    let word = |w: &[u8]| {
        w[0] == b'.' && (w[1..].eq_ignore_ascii_case(b"inf") || w[1..].eq_ignore_ascii_case(b"nan"))
    };
    let numeric = bytes
        .first()
        .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.'));
    bytes.windows(4).any(word) || numeric && text.parse::<f64>().is_ok_and(|n| !n.is_finite())
}

struct Items<'a, 's>(std::slice::Iter<'a, Node<'s>>);

impl<'de> de::SeqAccess<'de> for Items<'_, '_> {
    type Error = GiveUp;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, GiveUp> {
        self.0
            .next()
            .map(|n| seed.deserialize(Value(n)))
            .transpose()
    }
}

struct Entries<'a, 's> {
    entries: std::slice::Iter<'a, (Node<'s>, Node<'s>)>,
    value: Option<&'a Node<'s>>,
}

impl<'de> de::MapAccess<'de> for Entries<'_, '_> {
    type Error = GiveUp;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, GiveUp> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(Value(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, GiveUp> {
        seed.deserialize(Value(self.value.take().ok_or(GiveUp)?))
    }
}

/// A located value as [`Spanned`](crate::base::spanned::Spanned) reads it from this reader: a
/// newtype (which neither serde-saphyr nor JSON hands it here) holding the numbers of its
/// location, then the value (the two places of a `Spanned` are one: this reader takes no
/// aliases).
struct Located<'a, 's>(Value<'a, 's>);

impl<'de> de::Deserializer<'de> for Located<'_, '_> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        visitor.visit_newtype_struct(Numbers {
            node: self.0,
            next: 0,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The numbers of a node's location, then the node.
struct Numbers<'a, 's> {
    node: Value<'a, 's>,
    next: usize,
}

impl<'de> de::Deserializer<'de> for Numbers<'_, '_> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, GiveUp> {
        visitor.visit_seq(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> de::SeqAccess<'de> for Numbers<'_, '_> {
    type Error = GiveUp;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, GiveUp> {
        let at = self.node.0.at;
        // In the order `Location` reads them: line, column, then the span in characters and in
        // bytes; then the node.
        let number = match self.next {
            0 => at.line,
            1 => at.column,
            2 => at.chars,
            3 => at.char_len,
            4 => at.bytes,
            5 => at.byte_len,
            NUMBERS => {
                self.next += 1;
                return seed.deserialize(self.node).map(Some);
            }
            _ => return Ok(None),
        };
        self.next += 1;
        seed.deserialize(number.into_deserializer()).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;
    use std::path::Path;

    use crate::base::spanned::Spanned;
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess};

    use super::*;
    use crate::spec::node::with_source;
    use crate::spec::parse::parse_with;
    use crate::spec::{CaseFile, RubricSetFile, SuiteFile};

    /// Both readers place a located value alike, a list and its items included.
    #[test]
    fn a_located_list_is_placed_alike() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
        struct Lists {
            a: Spanned<Vec<Spanned<u32>>>,
        }
        let text = "a:\n  - 1\n  - 2\n";
        let saphyr: Lists = serde_saphyr::from_str(text).unwrap();
        let ours: Lists = read(text).expect("read here, not left to serde-saphyr");
        assert_eq!(ours, saphyr);
        assert_eq!(ours.a.referenced.line(), 2);
        assert_eq!(ours.a.value[1].referenced.line(), 3);
    }

    /// Any YAML value with the location of every node and key: what the two readers must agree on.
    #[derive(Debug)]
    #[allow(dead_code)] // read through Debug
    enum Any {
        Null,
        Bool(bool),
        Signed(i64),
        Unsigned(u64),
        Float(f64),
        Text(String),
        List(Vec<Spanned<Any>>),
        Map(Vec<(Spanned<String>, Spanned<Any>)>),
    }

    struct AnyVisitor;

    impl<'de> Visitor<'de> for AnyVisitor {
        type Value = Any;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any YAML value")
        }
        fn visit_bool<E>(self, v: bool) -> Result<Any, E> {
            Ok(Any::Bool(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Any, E> {
            Ok(Any::Signed(v))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Any, E> {
            Ok(Any::Unsigned(v))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Any, E> {
            Ok(Any::Float(v))
        }
        fn visit_str<E>(self, v: &str) -> Result<Any, E> {
            Ok(Any::Text(v.to_owned()))
        }
        fn visit_unit<E>(self) -> Result<Any, E> {
            Ok(Any::Null)
        }
        fn visit_none<E>(self) -> Result<Any, E> {
            Ok(Any::Null)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Any, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            Ok(Any::List(items))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Any, A::Error> {
            let mut entries = Vec::new();
            while let Some(key) = map.next_key()? {
                entries.push((key, map.next_value()?));
            }
            Ok(Any::Map(entries))
        }
    }

    impl<'de> Deserialize<'de> for Any {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Any, D::Error> {
            d.deserialize_any(AnyVisitor)
        }
    }

    /// Whether this reader took `source` as a `T`; where it did, serde-saphyr reads the same.
    fn agrees<T: DeserializeOwned + Debug>(source: &str) -> bool {
        let Some(fast) = with_source(source, || read::<T>(source)) else {
            return false;
        };
        match parse_with::<T>(source, false) {
            Ok(slow) => assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{source}"),
            Err(e) => panic!("read here, refused by serde-saphyr ({}):\n{source}", e.1),
        }
        true
    }

    fn yaml_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                yaml_files(&path, found);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                found.push(path);
            }
        }
    }

    #[test]
    fn every_yaml_file_of_the_project_reads_as_serde_saphyr_reads_it() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in [
            "cases", "tests", "docs", "rubrics", "schema", "perf", "fuzz",
        ] {
            yaml_files(&root.join(dir), &mut files);
        }
        assert!(files.len() > 200, "{} YAML files", files.len());
        let mut read_here = 0;
        for file in &files {
            let source = std::fs::read_to_string(file).unwrap();
            if agrees::<Spanned<Any>>(&source) {
                read_here += 1;
            }
            agrees::<CaseFile>(&source);
            agrees::<SuiteFile>(&source);
            agrees::<RubricSetFile>(&source);
        }
        // Most of them are block YAML; if this falls, the reader has stopped taking them.
        assert!(
            read_here * 2 > files.len(),
            "{read_here} of {}",
            files.len()
        );
    }

    #[test]
    fn a_case_as_the_perf_kit_writes_it_is_read_here() {
        let case = "prediction: outputs/c000000.json\ngold:\n  field_00: \"FA-42446\"\n  \
                    field_03:\n    any_of: [\"FA-07748\", \"FA-07748 SARL\"]\n  \
                    field_07: \"Générale\"\ncritical: [field_00, field_03]\nrubrics:\n  \
                    - must_right: rubric 0 on field_00\n    field: field_00\n    exact: true\n  \
                    - easy_wrong: rubric 1 on field_01\n    field: field_01\n    min_anls: 0.8\n  \
                    - easy_wrong: rubric 4 on field_04\n    field: field_04\n    matches: '.+'\n\
                    thresholds:\n  min_anls: 0.5\n  max_ece: 0.9\n";
        assert!(agrees::<CaseFile>(case));
        assert!(agrees::<Spanned<Any>>(case));
    }

    #[test]
    fn what_the_reader_leaves_to_serde_saphyr() {
        for source in [
            "a: yes\n",
            "a: 012\n",
            "a: 1_000\n",
            "a: 2024-01-05\n",
            "a: .inf\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: |\n  text\n",
            "a: long\n  text\n",
            "a: { b: 1, 26: 2 }\n",
            "a: { total: 79,26 }\n",
            "a: { b, c: 1 }\n",
            "a: [[1]]\n",
            "a: 1\na: 2\n",
            "\"a\": 1\n",
            "---\na: 1\n",
            "a:\tb\n",
            "a: 1\r\n",
            "a: \"open\n",
            "a: \"\\u00e9\"\n",
            "- - 1\n",
            "a: 1\n   b: 2\n",
            "just text\n",
        ] {
            assert!(
                with_source(source, || read::<Spanned<Any>>(source)).is_none(),
                "{source}"
            );
        }
        // What could pass serde-saphyr's budget: more values than it reads, nested deeper, a
        // longer key than it reads; and characters it refuses.
        let many = format!("a: [{}]\n", vec!["1"; 40_000].join(", "));
        let deep: String = (0..61).map(|d| format!("{}k:\n", " ".repeat(d))).collect();
        let dashes: String = (0..30)
            .map(|d| format!("{}- a:\n", " ".repeat(2 * d)))
            .collect();
        let long = "k".repeat(1025);
        for source in [
            many,
            deep + &" ".repeat(60) + "- a: {b: [x]}\n",
            "a:\n".to_owned() + &dashes + &" ".repeat(60) + "- a: {b: [x]}\n",
            format!("{long}: 1\n"),
            format!("a: {{{long}: 1}}\n"),
            "a: x\u{1}y\n".to_owned(),
            "# c\u{7f}\na: x\n".to_owned(),
            "a: \"x\u{86}\"\n".to_owned(),
            "a: x\u{ffff}\n".to_owned(),
            "\u{feff}a: x\n".to_owned(),
            "a: \u{9f}\n".to_owned(),
        ] {
            assert!(with_source(&source, || read::<Spanned<Any>>(&source)).is_none());
        }
    }

    /// Scalars of every kind this reader decides on or leaves, written plain and quoted.
    const SCALARS: &[&str] = &[
        "a",
        "field_00",
        "true",
        "false",
        "True",
        "FALSE",
        "y",
        "n",
        "No",
        "on",
        "Off",
        "~",
        "null",
        "Null",
        "NULL",
        "nULL",
        "0",
        "7",
        "-12",
        "-0",
        "0.8",
        "-0.5",
        "1.50",
        "012",
        "00",
        "1.",
        ".5",
        "+1",
        "1e5",
        "1_000",
        "0x1F",
        "0o17",
        "123456789012345",
        "1234567890123456",
        "0.123456789012345",
        "0.1234567890123456",
        "2024-01-05",
        "12:30",
        "http://x.y/z",
        "../outputs/c.json",
        "./a",
        "/abs",
        "a b  c",
        "é à",
        "Générale 12",
        "x#y",
        "-a",
        "€12",
        "$5",
        "a,b",
        "a]b",
        "a[b",
        "a}b",
        "NaN",
        ".inf",
        "-.inf",
        "inf",
        "\"a\"",
        "\"es\\\"c\"",
        "\"line\\nx\"",
        "'it''s'",
        "''",
        "\"\"",
        "\"é\"",
        "'0.8'",
        "'true'",
        "\"a # b\"",
        "\"\\/\"",
        "'a' b",
        "a # comment",
        "a: b",
        "a:b",
        "-",
        "- a",
        "?",
        "? a",
        ":a",
        "!a",
        "&a",
        "*a",
        "|",
        ">",
        "%a",
        "@a",
        "`a",
        "a:",
        "日本",
        "\"日本\"",
        "𝒳 x",
        "1e999",
        "-1e999",
        "0o8",
        "0x",
        "0b2",
        "1__0",
        "+.inf",
        ".NaN",
        "99999999999999999999999",
        "1:2:3",
        "0:30",
        "1,234.5",
        "12 rue",
        "2024-01-05T10:00:00Z",
        "~x",
        "null x",
        "<<",
        "=",
        "!",
        "&",
        "*",
    ];

    /// A small deterministic generator (a linear congruential one): the documents are the same
    /// on every run.
    struct Dice(u64);

    impl Dice {
        fn roll(&mut self, sides: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) % sides as u64) as usize
        }
        fn scalar(&mut self) -> &'static str {
            SCALARS[self.roll(SCALARS.len())]
        }
    }

    fn comment(dice: &mut Dice) -> &'static str {
        ["", "", "", " # note", "  #x"][dice.roll(5)]
    }

    fn mapping(dice: &mut Dice, indent: usize, depth: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        let n = 1 + dice.roll(4);
        for i in 0..n {
            if dice.roll(6) == 0 {
                out.push_str(&format!("{pad}# a comment line\n\n"));
            }
            let key = if dice.roll(25) == 0 {
                dice.scalar().to_owned()
            } else {
                format!("k{}", if dice.roll(30) == 0 { 0 } else { i })
            };
            out.push_str(&format!("{pad}{key}:"));
            value(dice, indent, depth, true, out);
        }
    }

    fn sequence(dice: &mut Dice, indent: usize, depth: usize, out: &mut String) {
        let pad = " ".repeat(indent);
        for _ in 0..1 + dice.roll(3) {
            out.push_str(&format!("{pad}-"));
            if depth > 0 && dice.roll(3) == 0 {
                // `- key: value` and its other keys below.
                out.push(' ');
                let mut inner = String::new();
                mapping(dice, indent + 2, depth - 1, &mut inner);
                out.push_str(&inner[indent + 2..]);
            } else {
                value(dice, indent, depth, false, out);
            }
        }
    }

    /// What follows `key:` or `-`.
    fn value(dice: &mut Dice, indent: usize, depth: usize, in_map: bool, out: &mut String) {
        let choice = if depth == 0 {
            dice.roll(4)
        } else {
            dice.roll(7)
        };
        match choice {
            0 | 1 => out.push_str(&format!(" {}{}\n", dice.scalar(), comment(dice))),
            2 => {
                let items: Vec<&str> = (0..dice.roll(4)).map(|_| dice.scalar()).collect();
                let spaced = dice.roll(2) == 0;
                let inside = items.join(if spaced { ", " } else { "," });
                out.push_str(&format!(" [{inside}]{}\n", comment(dice)));
            }
            3 => out.push_str(&format!("{}\n", comment(dice))),
            4 if dice.roll(3) == 0 => {
                let entries: Vec<String> = (0..dice.roll(4))
                    .map(|i| format!("k{i}: {}", dice.scalar()))
                    .collect();
                out.push_str(&format!(" {{ {} }}{}\n", entries.join(", "), comment(dice)));
            }
            4 => {
                out.push_str(&format!("{}\n", comment(dice)));
                let deeper = indent + 2 + 2 * dice.roll(2);
                mapping(dice, deeper, depth - 1, out);
            }
            _ => {
                out.push_str(&format!("{}\n", comment(dice)));
                let same = in_map && dice.roll(2) == 0;
                sequence(dice, if same { indent } else { indent + 2 }, depth - 1, out);
            }
        }
    }

    #[test]
    fn generated_documents_read_as_serde_saphyr_reads_them() {
        let mut dice = Dice(37);
        let mut read_here = 0;
        for n in 0..4000 {
            let mut source = String::new();
            if n % 5 == 0 {
                sequence(&mut dice, 0, 3, &mut source);
            } else {
                mapping(&mut dice, 0, 3, &mut source);
            }
            if agrees::<Spanned<Any>>(&source) {
                read_here += 1;
            }
        }
        // Enough of them are in the reader's part of YAML for the agreement to mean something.
        assert!(read_here > 500, "{read_here} of 4000 read here");
    }

    #[test]
    fn generated_gold_reads_as_serde_saphyr_reads_it() {
        let mut dice = Dice(41);
        let mut read_here = 0;
        for _ in 0..3000 {
            let mut source = String::from("gold:\n");
            mapping(&mut dice, 2, 2, &mut source);
            source.push_str("prediction:");
            value(&mut dice, 0, 0, true, &mut source);
            if agrees::<CaseFile>(&source) {
                read_here += 1;
            }
        }
        assert!(read_here > 500, "{read_here} of 3000 read here");
    }
}
