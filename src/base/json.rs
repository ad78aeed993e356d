//! JSON read strictly: a duplicate key is an error, where serde_json alone keeps the last of two
//! `"total"` keys without a word (predictions, baselines).

use std::cell::Cell;

use super::budget::JSON_VALUES;
use super::value::{Value, number_text};

/// A JSON document read like `serde_json::Value`, except that a duplicate key is an error:
/// serde_json alone keeps the last of two `"total"` keys without a word.
pub(crate) struct StrictJson(pub(crate) serde_json::Value);

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let count = Cell::new(0);
        let strict = Strict {
            count: &count,
            limit: usize::MAX,
            depth: 0,
        };
        d.deserialize_any(strict).map(StrictJson)
    }
}

/// The visitor, counting values against `limit` as it goes: a document over the bound is refused
/// before it is built, not after it has taken the memory.
#[derive(Clone, Copy)]
struct Strict<'a> {
    count: &'a Cell<usize>,
    limit: usize,
    /// How many lists and mappings hold the value being read.
    depth: usize,
}

/// The deepest nesting goldgate reads in JSON: deeper than any extraction, and as deep as the
/// references' Python reads (its `json` stops near 1,000, its recursion limit); serde_json's own
/// bound (128) is lifted for it.
pub(crate) const JSON_DEPTH: usize = 1_000;

impl Strict<'_> {
    /// The visitor of the values inside a list or mapping, one level deeper; an error beyond
    /// [`JSON_DEPTH`].
    fn inside<E: serde::de::Error>(self) -> Result<Self, E> {
        if self.depth >= JSON_DEPTH {
            return Err(E::custom(format_args!(
                "nested more than {JSON_DEPTH} levels deep, more than goldgate reads"
            )));
        }
        Ok(Strict {
            depth: self.depth + 1,
            ..self
        })
    }

    fn counted<E: serde::de::Error>(self) -> Result<(), E> {
        let n = self.count.get() + 1;
        self.count.set(n);
        if n > self.limit {
            return Err(E::custom(format_args!(
                "more than {} values, more than goldgate reads in one prediction",
                self.limit
            )));
        }
        Ok(())
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Strict<'_> {
    type Value = serde_json::Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Strict<'_> {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.counted()?;
        Ok(v.into())
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.counted()?;
        Ok(v.into())
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.counted()?;
        Ok(v.into())
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.counted()?;
        Ok(serde_json::Number::from_f64(v)
            .map_or(serde_json::Value::Null, serde_json::Value::Number))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.counted()?;
        Ok(v.into())
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.counted()?;
        Ok(v.into())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        self.counted()?;
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        self.counted()?;
        let inside = self.inside()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inside)? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        self.counted()?;
        let mut object = serde_json::Map::new();
        let mut first = true;
        while let Some(key) = map.next_key::<String>()? {
            if std::mem::take(&mut first) && key == NUMBER {
                return number(&mut map).map(serde_json::Value::Number);
            }
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate key `{key}`"
                )));
            }
            let value = map.next_value_seed(self.inside()?)?;
            object.insert(key, value);
        }
        Ok(serde_json::Value::Object(object))
    }
}

/// The key under which serde_json hands a number over, as a one-entry map holding its text,
/// when it keeps numbers as written (`arbitrary_precision`): so that an integer of any length, a
/// `-0` or a `1e400` reaches the metrics as the text it is, as Python's `json` reads it.
const NUMBER: &str = "$serde_json::private::Number";

/// The number of such a map, as written.
fn number<'de, A: serde::de::MapAccess<'de>>(map: &mut A) -> Result<serde_json::Number, A::Error> {
    let text: String = map.next_value()?;
    text.parse().map_err(serde::de::Error::custom)
}

/// A reader of JSON text without serde_json's bound on nesting: [`Strict`] keeps its own,
/// [`JSON_DEPTH`].
fn reader(text: &str) -> serde_json::Deserializer<serde_json::de::StrRead<'_>> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    de
}

/// Reads back JSON goldgate wrote itself (records, reports): without serde_json's bound of 128
/// levels, since a record holds a prediction read up to [`JSON_DEPTH`] levels deep a few levels
/// down; what it wrote is no deeper than that.
pub(crate) fn read_back<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let mut de = reader(text);
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Reads a value through a `serde_json::Value`: for a field that holds an internally tagged enum
/// (a finding, a note, a problem). Read straight, a float inside one (a finding's `anls`) would
/// fail: serde buffers such an enum, and serde_json, which keeps numbers as written
/// (`arbitrary_precision`), hands the buffer each number as a map. A `Value`'s number is handed
/// over as the float it is. Only these fields pay for the detour, not the whole record.
pub(crate) fn through_a_value<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde::Deserialize;
    let value = serde_json::Value::deserialize(d)?;
    T::deserialize(value).map_err(serde::de::Error::custom)
}

/// Parses JSON text strictly.
pub(crate) fn strict_json(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    use serde::Deserialize;
    let mut de = reader(text);
    let value = StrictJson::deserialize(&mut de)?;
    de.end()?;
    Ok(value.0)
}

/// Parses a JSON prediction strictly, refusing one of more than [`JSON_VALUES`] values.
pub(crate) fn prediction_json(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    use serde::de::DeserializeSeed;
    let count = Cell::new(0);
    let strict = Strict {
        count: &count,
        limit: JSON_VALUES,
        depth: 0,
    };
    let mut de = reader(text);
    let value = strict.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A JSON prediction as read: keys in written order, numbers kept as numbers (a confidence is
/// used as read, never printed and parsed back), strings owned once and moved onwards.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// What kind of value it is, as a message says it (`a mapping`, `null`).
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a text",
            Json::Array(_) => "a list",
            Json::Object(_) => "a mapping",
        }
    }

    /// The value tree goldgate scores: scalars as their text, numbers as their shortest
    /// round-trip text (`1234.5`), what the anls-star reference compares too.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Text(b.to_string()),
            Json::Number(n) => Value::Text(number_text(&n)),
            Json::String(s) => Value::Text(s),
            Json::Array(items) => Value::List(items.into_iter().map(Json::into_value).collect()),
            Json::Object(entries) => Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, v.into_value()))
                    .collect(),
            ),
        }
    }

    /// A value tree as JSON of strings (a YAML document has no types to keep).
    pub(crate) fn of_value(value: Value) -> Json {
        match value {
            Value::Null => Json::Null,
            Value::Text(t) => Json::String(t),
            Value::List(items) => Json::Array(items.into_iter().map(Json::of_value).collect()),
            Value::Map(entries) => Json::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, Json::of_value(v)))
                    .collect(),
            ),
        }
    }

    /// As `serde_json` holds it (a field's metadata, kept as written).
    pub(crate) fn to_serde(&self) -> serde_json::Value {
        match self {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number(n) => serde_json::Value::Number(n.clone()),
            Json::String(s) => serde_json::Value::String(s.clone()),
            Json::Array(items) => items.iter().map(Json::to_serde).collect(),
            Json::Object(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_serde()))
                    .collect(),
            ),
        }
    }
}

/// Parses a JSON prediction strictly into a [`Json`] tree, refusing one of more than
/// [`JSON_VALUES`] values (counted as it is read) and any duplicate key.
pub(crate) fn prediction_tree(text: &str) -> Result<Json, serde_json::Error> {
    use serde::de::DeserializeSeed;
    let count = Cell::new(0);
    let tree = Tree(Strict {
        count: &count,
        limit: JSON_VALUES,
        depth: 0,
    });
    let mut de = reader(text);
    let value = tree.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The visitor of [`prediction_tree`]: [`Strict`]'s counting, building a [`Json`].
#[derive(Clone, Copy)]
struct Tree<'a>(Strict<'a>);

impl<'de> serde::de::DeserializeSeed<'de> for Tree<'_> {
    type Value = Json;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Tree<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Json, E> {
        self.0.counted()?;
        Ok(Json::Bool(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Json, E> {
        self.0.counted()?;
        Ok(Json::Number(v.into()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Json, E> {
        self.0.counted()?;
        Ok(Json::Number(v.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
        self.0.counted()?;
        Ok(serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Json, E> {
        self.0.counted()?;
        Ok(Json::String(v.to_owned()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Json, E> {
        self.0.counted()?;
        Ok(Json::String(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Json, E> {
        self.0.counted()?;
        Ok(Json::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        self.0.counted()?;
        let inside = Tree(self.0.inside()?);
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inside)? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        self.0.counted()?;
        let mut entries: Vec<(String, Json)> = Vec::new();
        // Most objects are small: their keys are compared in turn; a large one's are hashed.
        let mut seen: Option<std::collections::HashSet<String>> = None;
        while let Some(key) = map.next_key::<String>()? {
            if entries.is_empty() && seen.is_none() && key == NUMBER {
                return number(&mut map).map(Json::Number);
            }
            let duplicate = match &mut seen {
                Some(seen) => !seen.insert(key.clone()),
                None => entries.iter().any(|(k, _)| *k == key),
            };
            if duplicate {
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate key `{key}`"
                )));
            }
            if seen.is_none() && entries.len() >= 16 {
                let mut all: std::collections::HashSet<String> =
                    entries.iter().map(|(k, _)| k.clone()).collect();
                all.insert(key.clone());
                seen = Some(all);
            }
            let value = map.next_value_seed(Tree(self.0.inside()?))?;
            entries.push((key, value));
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    /// A float inside an internally tagged enum, as a finding holds one, reads back as written
    /// through a `Value`; read straight, it does not (which is why record fields holding such an
    /// enum say `through_a_value`).
    #[test]
    fn a_float_in_a_tagged_enum_reads_back() {
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "found", rename_all = "snake_case")]
        enum Found {
            Close { anls: f64, least: f64, n: u64 },
        }
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        struct Rubric {
            #[serde(deserialize_with = "through_a_value")]
            finding: Found,
            penalty: f64,
        }
        let rubrics = vec![Rubric {
            finding: Found::Close {
                anls: 0.8571428571428571,
                least: 1e-7,
                n: 3,
            },
            penalty: 0.1,
        }];
        let text = serde_json::to_string(&rubrics).unwrap();
        assert_eq!(read_back::<Vec<Rubric>>(&text).unwrap(), rubrics);
        let bare = serde_json::to_string(&rubrics[0].finding).unwrap();
        assert!(read_back::<Found>(&bare).is_err());
    }

    use super::*;

    #[test]
    fn a_duplicate_key_is_an_error() {
        let e = strict_json(r#"{"cases": {"a": {"anls": 1}, "a": {"anls": 0}}}"#).unwrap_err();
        assert!(e.to_string().starts_with("duplicate key `a`"), "{e}");
        assert!(strict_json(r#"{"a": 1, "b": [1, {"a": 2}]}"#).is_ok());
    }

    #[test]
    fn a_prediction_of_too_many_values_is_refused_where_it_goes_over() {
        let fits = format!("[{}]", vec!["1"; JSON_VALUES - 1].join(","));
        assert!(prediction_json(&fits).is_ok());
        let over = format!("[{}]", vec!["[]"; JSON_VALUES].join(","));
        let e = prediction_json(&over).unwrap_err();
        assert!(e.to_string().starts_with("more than 250000 values"), "{e}");
        // The outer `[`, 249,999 `[],`, then just past the bracket of the value over the bound.
        assert_eq!(e.column(), 1 + 3 * (JSON_VALUES - 1) + 2);
        assert!(prediction_json(r#"{"a": 1} x"#).is_err());
        let over = format!("[{}]", vec!["[]"; JSON_VALUES].join(","));
        assert_eq!(
            prediction_tree(&over).unwrap_err().column(),
            1 + 3 * (JSON_VALUES - 1) + 2
        );
    }

    #[test]
    fn a_tree_keeps_order_and_types_and_refuses_duplicates_of_large_objects_too() {
        let t = prediction_tree(r#"{"b": 1, "a": [1.5, "x", null, true], "c": 1e-5}"#).unwrap();
        let Json::Object(entries) = &t else { panic!() };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        let Some((_, c)) = entries.last() else {
            panic!()
        };
        assert_eq!(c.clone().into_value(), Value::Text("1e-05".into()));
        // Numbers are kept as written (`arbitrary_precision`), `1e-5` too.
        let as_written: serde_json::Value =
            serde_json::from_str(r#"{"b": 1, "a": [1.5, "x", null, true], "c": 1e-5}"#).unwrap();
        assert_eq!(t.to_serde(), as_written);
        assert_eq!(t.to_serde()["c"].to_string(), "1e-5");
        for n in [3, 16, 17, 40] {
            let keys: Vec<String> = (0..n).map(|i| format!("\"k{i}\": {i}")).collect();
            let fine = format!("{{{}}}", keys.join(", "));
            assert!(prediction_tree(&fine).is_ok(), "{n}");
            let twice = format!("{{{}, \"k{}\": 0}}", keys.join(", "), n - 1);
            let e = prediction_tree(&twice).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with(&format!("duplicate key `k{}`", n - 1)),
                "{e}"
            );
        }
    }
}
