//! A located YAML node whose scalars keep the text written in the file.
//!
//! serde-saphyr types plain scalars during `deserialize_any` (`0173` arrives as 173.0), so the
//! written text is recovered from the source: each node is read through `Spanned`, and a typed
//! scalar is replaced by the slice of the source its span covers.

use std::cell::RefCell;

use crate::base::spanned::Spanned;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::base::location::Mark;
use crate::base::value::Value;

thread_local! {
    /// The document being deserialized; set by [`super::parse::parse_yaml`] for the duration of a parse.
    static SOURCE: RefCell<String> = const { RefCell::new(String::new()) };
    /// The French decimal that stopped the parse, if one did: the error the deserializer carries
    /// has no place for its position, so the parser reads it here.
    static SPLIT: RefCell<Option<SplitDecimal>> = const { RefCell::new(None) };
}

/// Runs `f` with `source` as the text that typed scalars are sliced from.
pub(crate) fn with_source<R>(source: &str, f: impl FnOnce() -> R) -> R {
    let previous = SOURCE.with(|s| std::mem::replace(&mut *s.borrow_mut(), source.to_owned()));
    SPLIT.with(|s| *s.borrow_mut() = None);
    let result = f();
    SOURCE.with(|s| *s.borrow_mut() = previous);
    result
}

/// A French decimal in a flow mapping, which YAML reads as two entries: `{ total: 79,26 }` is
/// `total: 79` and a key `26` with no value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SplitDecimal {
    /// Where the number starts, where the quote goes.
    pub(crate) mark: Mark,
    /// The key the number is under (`total`).
    pub(crate) key: String,
    /// The number as it was meant (`79,26`).
    pub(crate) meant: String,
    /// What YAML read: the number's part and the keys of digits (`79`, `26`).
    pub(crate) read: (String, Vec<String>),
}

/// The French decimal the last parse on this thread stopped at, if any.
pub(crate) fn take_split_decimal() -> Option<SplitDecimal> {
    SPLIT.with(|s| s.borrow_mut().take())
}

/// A YAML node with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node's content.
    pub kind: NodeKind,
    /// Where it starts.
    pub mark: Mark,
}

/// The content of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// `null`, `~` or nothing.
    Null,
    /// A scalar as written (quotes removed, escapes resolved).
    Text(String),
    /// A sequence.
    List(Vec<Node>),
    /// A mapping, keys as written, in order.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// The node as a value tree (positions dropped).
    pub fn to_value(&self) -> Value {
        match &self.kind {
            NodeKind::Null => Value::Null,
            NodeKind::Text(t) => Value::Text(t.clone()),
            NodeKind::List(items) => Value::List(items.iter().map(Node::to_value).collect()),
            NodeKind::Map(entries) => Value::Map(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// The entries of a mapping node.
    pub fn as_map(&self) -> Option<&[(String, Node)]> {
        match &self.kind {
            NodeKind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// A short name of the node's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Null => "null",
            NodeKind::Text(_) => "a scalar",
            NodeKind::List(_) => "a list",
            NodeKind::Map(_) => "a mapping",
        }
    }
}

/// What `deserialize_any` handed over, before the written text is restored.
enum Parsed {
    Kind(NodeKind),
    /// A mapping, with which of its values are left out (`{ a, b: 1 }`: `a` has none), as
    /// opposed to written `null` or `~`.
    Map(Vec<(String, Node)>, Vec<bool>),
    /// A number or boolean: its text must come from the source.
    Typed,
}

struct ParsedVisitor;

impl<'de> Visitor<'de> for ParsedVisitor {
    type Value = Parsed;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_str<E>(self, v: &str) -> Result<Parsed, E> {
        Ok(Parsed::Kind(NodeKind::Text(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Parsed, E> {
        Ok(Parsed::Kind(NodeKind::Text(v)))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Parsed, E> {
        Ok(Parsed::Typed)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Parsed, E> {
        Ok(Parsed::Typed)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Parsed, E> {
        Ok(Parsed::Typed)
    }
    fn visit_i128<E>(self, _: i128) -> Result<Parsed, E> {
        Ok(Parsed::Typed)
    }
    fn visit_u128<E>(self, _: u128) -> Result<Parsed, E> {
        Ok(Parsed::Typed)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Parsed, E> {
        Ok(Parsed::Typed)
    }
    fn visit_unit<E>(self) -> Result<Parsed, E> {
        Ok(Parsed::Kind(NodeKind::Null))
    }
    fn visit_none<E>(self) -> Result<Parsed, E> {
        Ok(Parsed::Kind(NodeKind::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Parsed, D::Error> {
        d.deserialize_any(ParsedVisitor)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Parsed, D::Error> {
        d.deserialize_any(ParsedVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Parsed::Kind(NodeKind::List(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let mut entries = Vec::new();
        let mut left_out = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let Entry(value, empty) = map.next_value::<Entry>()?;
            entries.push((key, value));
            left_out.push(empty);
        }
        Ok(Parsed::Map(entries, left_out))
    }
}

/// A mapping's value, and whether it is left out: a null with nothing written.
struct Entry(Node, bool);

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<ParsedNode>::deserialize(d)?;
        let empty = matches!(spanned.value.0, Parsed::Kind(NodeKind::Null))
            && spanned.referenced.span().byte_len() == Some(0);
        Ok(Entry(node(spanned)?, empty))
    }
}

struct ParsedNode(Parsed);

impl<'de> Deserialize<'de> for ParsedNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Named so that a reader which knows the node keeps scalars as written (`0173`, `no`)
        // can hand them over as text; serde-saphyr reads the newtype as its content.
        d.deserialize_newtype_struct(NODE, ParsedVisitor)
            .map(ParsedNode)
    }
}

/// The name a [`Node`]'s content is asked for by.
pub(super) const NODE: &str = "__goldgate_node";

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        node(Spanned::<ParsedNode>::deserialize(d)?)
    }
}

/// The node of what was parsed, its scalars' written text restored; a French decimal split by
/// a flow mapping stops the parse.
fn node<E: de::Error>(spanned: Spanned<ParsedNode>) -> Result<Node, E> {
    let kind = match spanned.value.0 {
        Parsed::Kind(kind) => kind,
        Parsed::Map(entries, left_out) => {
            // An alias's mapping is written at its anchor, hence `defined`.
            if is_flow(&spanned.defined)
                && let Some(split) = split_decimal(&entries, &left_out)
            {
                let message = format!("`{}` is split by YAML", split.meant);
                SPLIT.with(|s| *s.borrow_mut() = Some(split));
                return Err(E::custom(message));
            }
            NodeKind::Map(entries)
        }
        // An alias's text is at its anchor, hence `defined`.
        Parsed::Typed => NodeKind::Text(
            written_text(&spanned.defined)
                .ok_or_else(|| E::custom("cannot recover the written text of this scalar"))?,
        ),
    };
    Ok(Node {
        kind,
        mark: Mark::of(&spanned.referenced),
    })
}

/// Whether a mapping is written in flow style, `{ ... }`: only there does a comma end a value.
fn is_flow(location: &crate::base::spanned::Location) -> bool {
    let Some(start) = location
        .span()
        .byte_offset()
        .and_then(|o| usize::try_from(o).ok())
    else {
        return false;
    };
    SOURCE.with(|s| s.borrow().get(start..).is_some_and(|t| t.starts_with('{')))
}

/// The first French decimal of a flow mapping's entries: a number-like value followed by keys
/// that begin with digits whose values are left out (`{ total: 79,26 }`, `{ n: 1,234,56 }`, and
/// with a unit, `{ total: 79,26€ }`, `{ rate: 5,5% }`, where the unit ends the number). A key
/// written with its value (`26: null`) is meant as one.
fn split_decimal(entries: &[(String, Node)], left_out: &[bool]) -> Option<SplitDecimal> {
    let part = |i: usize| left_out.get(i) == Some(&true) && decimal_part(&entries[i].0);
    (1..entries.len()).find_map(|i| {
        let (key, value) = &entries[i - 1];
        let NodeKind::Text(number) = &value.kind else {
            return None;
        };
        if !part(i) || !number_like(number) {
            return None;
        }
        let mut parts: Vec<String> = Vec::new();
        for (j, (part_key, _)) in entries.iter().enumerate().skip(i) {
            if !part(j) {
                break;
            }
            parts.push(part_key.clone());
            // A unit (`56€`) ends the number: what follows it is an entry of its own.
            if !part_key.bytes().all(|b| b.is_ascii_digit()) {
                break;
            }
        }
        Some(SplitDecimal {
            mark: value.mark,
            key: key.clone(),
            meant: format!("{number},{}", parts.join(",")),
            read: (number.clone(), parts),
        })
    })
}

/// Whether a key reads as the decimals of an amount cut off by a comma: digits first, and
/// after them anything, a unit (`26`, `26€`, `26 EUR`, `5%`).
pub(crate) fn decimal_part(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_digit())
}

/// Text that reads as the integral part of an amount: digits, with a sign, a currency sign
/// and the separators of thousands (`79`, `-1 234`, `€1.234`).
pub(crate) fn number_like(text: &str) -> bool {
    let text = text.trim();
    let text = text.strip_prefix(['+', '-']).unwrap_or(text);
    let text = text.trim_start_matches(['€', '$', '£', '¥', '₹']);
    text.starts_with(|c: char| c.is_ascii_digit())
        && text.ends_with(|c: char| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '.' | '\'' | '_' | '\u{a0}'))
}

fn written_text(location: &crate::base::spanned::Location) -> Option<String> {
    let span = location.span();
    let start = usize::try_from(span.byte_offset()?).ok()?;
    let len = usize::try_from(span.byte_len()?).ok()?;
    SOURCE.with(|s| {
        let source = s.borrow();
        let text = source.get(start..start.checked_add(len)?)?;
        // A tagged scalar (`!!float 1.0`) spans its tag too.
        let text = match text.strip_prefix('!') {
            Some(rest) => rest
                .split_once(char::is_whitespace)
                .map_or(rest, |(_, v)| v),
            None => text,
        };
        Some(text.trim().to_owned())
    })
}
