//! The value tree shared by gold and predictions: text leaves that keep their written form.

use std::fmt;

/// A gold or predicted value. Scalars are text exactly as written; `Null` is "no value".
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// No value: YAML `null`/`~`, JSON `null`, or an absent field.
    Null,
    /// A scalar, as its written text (`0173`, `1234.50`, `no`).
    Text(String),
    /// A list value (line items, several addresses).
    List(Vec<Value>),
    /// A mapping value, in written order.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// A value that counts as given: some leaf holds more than spaces (`[null]`, `[""]` and `{}`
    /// hold nothing), the one meaning of "empty" that `present`, F1 and extra fields share.
    pub fn has_value(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Text(t) => !t.trim().is_empty(),
            Value::List(items) => items.iter().any(Value::has_value),
            Value::Map(entries) => entries.iter().any(|(_, v)| v.has_value()),
        }
    }

    /// True for lists and mappings, which are scored as trees (ANLS*).
    pub fn is_nested(&self) -> bool {
        matches!(self, Value::List(_) | Value::Map(_))
    }

    /// The text a rubric reads: scalars as written, `Null` as empty, trees as compact JSON.
    pub fn as_text(&self) -> String {
        match self {
            Value::Null => String::new(),
            Value::Text(t) => t.clone(),
            nested => nested.to_json().to_string(),
        }
    }

    /// The JSON form used in reports: scalars are JSON strings, so `0173` stays `"0173"`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Text(t) => serde_json::Value::String(t.clone()),
            Value::List(items) => items.iter().map(Value::to_json).collect(),
            Value::Map(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// Converts a JSON document; numbers become their shortest round-trip text (`1234.5`).
    pub fn from_json(json: &serde_json::Value) -> Value {
        match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Text(b.to_string()),
            // Integers as written; floats as Python's repr, the shortest round-trip text
            // (`1234.5`, `1e-05`, `1e+16`), which is also what the anls-star reference compares.
            serde_json::Value::Number(n) => Value::Text(match n.as_f64() {
                Some(f) if !n.is_i64() && !n.is_u64() => python_float_str(f),
                _ => n.to_string(),
            }),
            serde_json::Value::String(s) => Value::Text(s.clone()),
            serde_json::Value::Array(items) => {
                Value::List(items.iter().map(Value::from_json).collect())
            }
            serde_json::Value::Object(map) => Value::Map(
                map.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// Looks a key up in a mapping value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    /// Scalars as written, `null` for no value, trees as pretty JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Text(t) => f.write_str(t),
            nested => {
                let pretty =
                    serde_json::to_string_pretty(&nested.to_json()).map_err(|_| fmt::Error)?;
                f.write_str(&pretty)
            }
        }
    }
}

/// Python's `repr` of a float: shortest round-trip digits, exponent form below 1e-4 or from 1e16.
pub fn python_float_str(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf" } else { "inf" }.into();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0.0");
    }
    let scientific = format!("{:e}", f.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exponent + 1; // digits are 0.DDD × 10^point
    if !(-4 < point && point <= 16) {
        let (head, tail) = digits.split_at(1);
        let dot = if tail.is_empty() { "" } else { "." };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{head}{dot}{tail}e{exp_sign}{:02}", exponent.abs());
    }
    if point <= 0 {
        return format!(
            "{sign}0.{}{digits}",
            "0".repeat(point.unsigned_abs() as usize)
        );
    }
    let point = point as usize;
    if point >= digits.len() {
        format!("{sign}{digits}{}.0", "0".repeat(point - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}
