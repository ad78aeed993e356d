//! A value read from YAML with where it is written: goldgate's own `Spanned`, read from either
//! reader of case files.
//!
//! serde-saphyr hands its `Spanned` a map of four keys and two `Location` maps of four keys each,
//! a dozen string keys matched per located value, and allocates the first. goldgate's own reader
//! of block YAML knows its locations as numbers: it hands this type a
//! sequence of them, then the value. serde-saphyr's map is read as before, so what a file
//! means and where it says so are the same whichever reader read it (the reader's differential
//! tests hold them to it).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};
use serde_saphyr::Span;

/// The name a located value asks its deserializer for: serde-saphyr's, so that it hands its
/// locations over.
pub const SPANNED: &str = "__yaml_spanned";

/// The first key of the map serde-saphyr hands a located value.
const MARKER: &str = "__serde_saphyr_private_spanned";

/// How many numbers of a location come before the value in the sequence goldgate's reader
/// hands over: line, column, then the span's offset and length in characters and in bytes.
pub const NUMBERS: usize = 6;

/// Where a node is written: its line and column (from 1) and its span, in characters and bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    line: u32,
    column: u32,
    span: Span,
}

impl Location {
    /// A value read with no place in a file (from JSON, or buffered by serde).
    pub const UNKNOWN: Location = Location {
        line: 0,
        column: 0,
        span: Span::UNKNOWN,
    };

    /// 1-based line; 0 when unknown.
    pub fn line(&self) -> u64 {
        u64::from(self.line)
    }

    /// 1-based column; 0 when unknown.
    pub fn column(&self) -> u64 {
        u64::from(self.column)
    }

    /// Where the node's text is, in characters and in bytes.
    pub fn span(&self) -> Span {
        self.span
    }

    /// Built from the [`NUMBERS`] numbers of goldgate's reader.
    fn of(n: [u32; NUMBERS]) -> Location {
        Location {
            line: n[0],
            column: n[1],
            span: Span::new(u64::from(n[2]), u64::from(n[3]))
                .with_byte_info(u64::from(n[4]), u64::from(n[5])),
        }
    }
}

impl From<serde_saphyr::Location> for Location {
    fn from(at: serde_saphyr::Location) -> Location {
        // serde-saphyr counts lines and columns in `u32` and hands them over as `u64`.
        let narrow = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        Location {
            line: narrow(at.line()),
            column: narrow(at.column()),
            span: at.span(),
        }
    }
}

/// A value and where it is written: `referenced` where it is used, `defined` where it is
/// written (an alias's anchor; the same place otherwise).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spanned<T> {
    pub value: T,
    pub referenced: Location,
    pub defined: Location,
}

impl<T> Spanned<T> {
    pub const fn new(value: T, referenced: Location, defined: Location) -> Self {
        Spanned {
            value,
            referenced,
            defined,
        }
    }

    fn unknown(value: T) -> Self {
        Spanned::new(value, Location::UNKNOWN, Location::UNKNOWN)
    }
}

/// Written as its value alone, as serde-saphyr's is (the schemas' defaults are written so).
impl<T: serde::Serialize> serde::Serialize for Spanned<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(SPANNED, Wrapper(PhantomData))
    }
}

/// What a located value is, in a message of serde's.
const EXPECTED: &str = "a value with its place in the file";

/// The newtype a located value asks for: serde-saphyr answers it with its map, goldgate's reader
/// with its own newtype of numbers, JSON with the value (read by [`Located`]).
struct Wrapper<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Wrapper<T> {
    type Value = Spanned<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(Located(PhantomData))
    }
}

/// What a located value is handed: goldgate's numbers and value, serde-saphyr's map, or (from
/// JSON, or buffered by serde) the value alone. (A JSON number serde_json's
/// `arbitrary_precision` hands over as its own map, a float among them, is not read as a value,
/// as serde-saphyr's `Spanned` does not read it: no file goldgate reads as a spec is JSON.)
struct Located<T>(PhantomData<T>);

/// Plain values arrive unlocated: each is read as `T`.
macro_rules! unlocated {
    ($($method:ident($ty:ty))*) => {
        $(fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            T::deserialize(v.into_deserializer()).map(Spanned::unknown)
        })*
    };
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Located<T> {
    type Value = Spanned<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    /// goldgate's reader: a newtype of the location's numbers, then the value. (From serde-saphyr
    /// a located value arrives as a map, from JSON as the value itself: a sequence there is a
    /// value, never numbers.)
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(Numbers(PhantomData))
    }

    /// A sequence (from JSON) is the value itself, unlocated.
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        T::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Spanned::unknown)
    }

    /// serde-saphyr's map `{ marker, value, referenced, defined }`; any other map is the value
    /// itself, unlocated.
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return T::deserialize(de::value::MapAccessDeserializer::new(map))
                .map(Spanned::unknown);
        };
        if first != MARKER {
            return T::deserialize(de::value::MapAccessDeserializer::new(Prepended {
                first: Some(first),
                rest: map,
            }))
            .map(Spanned::unknown);
        }
        map.next_value::<de::IgnoredAny>()?;
        let (mut value, mut referenced, mut defined) = (None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "value" => value = Some(map.next_value()?),
                "referenced" => referenced = Some(map.next_value::<serde_saphyr::Location>()?),
                "defined" => defined = Some(map.next_value::<serde_saphyr::Location>()?),
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        let missing = |field| move || de::Error::missing_field(field);
        Ok(Spanned::new(
            value.ok_or_else(missing("value"))?,
            referenced.ok_or_else(missing("referenced"))?.into(),
            defined.ok_or_else(missing("defined"))?.into(),
        ))
    }

    unlocated! {
        visit_bool(bool) visit_i64(i64) visit_u64(u64) visit_i128(i128) visit_u128(u128)
        visit_f64(f64) visit_char(char) visit_string(String)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        T::deserialize(v.into_deserializer()).map(Spanned::unknown)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        T::deserialize(de::value::BorrowedStrDeserializer::new(v)).map(Spanned::unknown)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        T::deserialize(().into_deserializer()).map(Spanned::unknown)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        T::deserialize(d).map(Spanned::unknown)
    }
}

/// The numbers of a location then the value, as goldgate's reader hands them.
struct Numbers<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Numbers<T> {
    type Value = Spanned<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the numbers of a place in the file, then a value")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut numbers = [0u32; NUMBERS];
        for n in &mut numbers {
            *n = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        }
        let value = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(NUMBERS, &self))?;
        let at = Location::of(numbers);
        Ok(Spanned::new(value, at, at))
    }
}

/// A map whose first key was read to see whether it is serde-saphyr's marker.
struct Prepended<A> {
    first: Option<String>,
    rest: A,
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for Prepended<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.first.take() {
            Some(first) => seed.deserialize(first.into_deserializer()).map(Some),
            None => self.rest.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.rest.next_value_seed(seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Doc {
        name: Spanned<String>,
        items: Vec<Spanned<u32>>,
    }

    /// serde-saphyr's map is read with every number of its locations.
    #[test]
    fn serde_saphyrs_locations_are_kept() {
        let text = "name: café\nitems:\n  - 7\n";
        let doc: Doc = serde_saphyr::from_str(text).unwrap();
        assert_eq!(doc.name.value, "café");
        let at = doc.name.referenced;
        assert_eq!((at.line(), at.column()), (1, 7));
        assert_eq!((at.span().offset(), at.span().len()), (6, 4));
        assert_eq!(
            (at.span().byte_offset(), at.span().byte_len()),
            (Some(6), Some(5))
        );
        let seven = &doc.items[0];
        assert_eq!(
            (
                seven.value,
                seven.referenced.line(),
                seven.referenced.column()
            ),
            (7, 3, 5)
        );
        assert_eq!(seven.defined, seven.referenced);
    }

    /// From JSON a value has no place: it is read as itself, unlocated.
    #[test]
    fn a_value_from_json_is_unlocated() {
        let doc: Doc = serde_json::from_str(r#"{"name": "a", "items": [1, 2]}"#).unwrap();
        assert_eq!(doc.name, Spanned::unknown("a".to_owned()));
        assert_eq!(doc.items[1].value, 2);
        assert_eq!(doc.items[1].referenced, Location::UNKNOWN);
        // A list of numbers is a value, never taken for a location.
        let list: Spanned<Vec<u32>> = serde_json::from_str("[1, 2, 3, 4, 5, 6, 7]").unwrap();
        assert_eq!(list, Spanned::unknown(vec![1, 2, 3, 4, 5, 6, 7]));
    }
}
