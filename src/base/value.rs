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
            // Invisible characters (a zero-width space) are no more a value than spaces are.
            Value::Text(t) => t
                .chars()
                .any(|c| !c.is_whitespace() && !crate::base::normalize::is_invisible(c)),
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
            serde_json::Value::Number(n) => Value::Text(number_text(n)),
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

/// A JSON number as text, as Python's `str()` gives it after `json.loads` (what the anls-star
/// reference compares): an integer exactly, at any length (`-0` is `0`); any other number as a
/// float's `repr`, the shortest round-trip text (`1234.5`, `1e-05`, `1e+16`), `inf` beyond a
/// float's range (`1e400`). serde_json keeps the number's text (`arbitrary_precision`), so
/// nothing was rounded before this reads it.
pub(crate) fn number_text(n: &serde_json::Number) -> String {
    let text = n.to_string();
    if text.contains(['.', 'e', 'E']) {
        return python_float_str(text.parse().unwrap_or(f64::NAN));
    }
    match text.strip_prefix('-') {
        Some(digits) if digits.bytes().all(|b| b == b'0') => "0".to_owned(),
        _ => text,
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
    // Between 1e-4 and 1e16 Python writes the shortest digits positionally, as Rust's `Display`
    // does; an integral value gains `.0`. (A float below 1e-4 cannot have shortest digits at or
    // above it: rounding is monotonic, and 1e-4 itself rounds to the float compared with.)
    if (1e-4..1e16).contains(&f.abs()) {
        let mut text = f.to_string();
        if !text.contains('.') {
            text.push_str(".0");
        }
        return text;
    }
    python_float_scientific(f, sign)
}

/// [`python_float_str`] by the decimal exponent of the shortest digits.
fn python_float_scientific(f: f64, sign: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_repr_by_display_equals_it_by_the_exponent() {
        let sign = |f: f64| if f.is_sign_negative() { "-" } else { "" };
        // Python 3.11's repr, and the values at the edges of the positional range.
        for (f, python) in [
            (0.91, "0.91"),
            (5.0, "5.0"),
            (1e-4, "0.0001"),
            (9.999999999999999e-5, "9.999999999999999e-05"),
            (1e16, "1e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (-1234.5, "-1234.5"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(python_float_str(f), python, "{f:e}");
            assert_eq!(python_float_scientific(f, sign(f)), python, "{f:e}");
        }
        // Random bit patterns (every finite float is as likely as its pattern) and random
        // values in the positional range.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for i in 0..400_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let f = if i % 2 == 0 {
                f64::from_bits(state)
            } else {
                (state >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((i % 24) - 6)
            };
            if !f.is_finite() || f == 0.0 {
                continue;
            }
            assert_eq!(
                python_float_str(f),
                python_float_scientific(f, sign(f)),
                "{f:e}"
            );
        }
    }
}
