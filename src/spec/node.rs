//! A located YAML node whose scalars keep the text written in the file.
//!
//! serde-saphyr types plain scalars during `deserialize_any` (`0173` arrives as 173.0), so the
//! written text is recovered from the source: each node is read through `Spanned`, and a typed
//! scalar is replaced by the slice of the source its span covers.

use std::cell::RefCell;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::base::location::Mark;
use crate::base::value::Value;

thread_local! {
    /// The document being deserialized; set by [`super::parse::parse_yaml`] for the duration of a parse.
    static SOURCE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs `f` with `source` as the text that typed scalars are sliced from.
pub(crate) fn with_source<R>(source: &str, f: impl FnOnce() -> R) -> R {
    let previous = SOURCE.with(|s| std::mem::replace(&mut *s.borrow_mut(), source.to_owned()));
    let result = f();
    SOURCE.with(|s| *s.borrow_mut() = previous);
    result
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
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Parsed::Kind(NodeKind::List(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key, value));
        }
        Ok(Parsed::Kind(NodeKind::Map(entries)))
    }
}

struct ParsedNode(Parsed);

impl<'de> Deserialize<'de> for ParsedNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ParsedVisitor).map(ParsedNode)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<ParsedNode>::deserialize(d)?;
        let kind = match spanned.value.0 {
            Parsed::Kind(kind) => kind,
            // An alias's text is at its anchor, hence `defined`.
            Parsed::Typed => NodeKind::Text(written_text(&spanned.defined).ok_or_else(|| {
                de::Error::custom("cannot recover the written text of this scalar")
            })?),
        };
        Ok(Node {
            kind,
            mark: Mark::of(&spanned.referenced),
        })
    }
}

fn written_text(location: &serde_saphyr::Location) -> Option<String> {
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
