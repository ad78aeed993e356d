//! JSON read strictly: a duplicate key is an error, where serde_json alone keeps the last of two
//! `"total"` keys without a word (predictions, baselines).

use std::cell::Cell;

use super::budget::JSON_VALUES;

/// A JSON document read like `serde_json::Value`, except that a duplicate key is an error:
/// serde_json alone keeps the last of two `"total"` keys without a word.
pub(crate) struct StrictJson(pub(crate) serde_json::Value);

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let count = Cell::new(0);
        let strict = Strict {
            count: &count,
            limit: usize::MAX,
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
}

impl Strict<'_> {
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
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        self.counted()?;
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate key `{key}`"
                )));
            }
            let value = map.next_value_seed(self)?;
            object.insert(key, value);
        }
        Ok(serde_json::Value::Object(object))
    }
}

/// Parses JSON text strictly.
pub(crate) fn strict_json(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::from_str::<StrictJson>(text).map(|j| j.0)
}

/// Parses a JSON prediction strictly, refusing one of more than [`JSON_VALUES`] values.
pub(crate) fn prediction_json(text: &str) -> Result<serde_json::Value, serde_json::Error> {
    use serde::de::DeserializeSeed;
    let count = Cell::new(0);
    let strict = Strict {
        count: &count,
        limit: JSON_VALUES,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = strict.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
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
    }
}
