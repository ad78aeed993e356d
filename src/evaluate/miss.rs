//! What kind of miss a field that is not an exact match is: missing, invented, a format the
//! rule does not accept, or wrong.

use crate::base::typed::{parse_date, read_number, same_identifier};
use crate::base::value::Value;

/// The kind of a miss.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Miss {
    /// Gold has a value, the prediction none.
    Missing,
    /// The prediction has a value, gold none (a `null` gold, or a field gold does not list).
    Invented,
    /// Not equal as the field's rule compares, but equal read as a number, a date or an
    /// identifier: a way of writing the value that the rule does not accept.
    Format,
    /// Any other difference.
    Wrong,
}

/// How many misses of each kind.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct MissCounts {
    /// Gold has a value, the prediction none.
    pub missing: u32,
    /// The prediction has a value, gold none.
    pub invented: u32,
    /// Equal read as a number, a date or an identifier, but not as the rule compares.
    pub format: u32,
    /// Any other difference.
    pub wrong: u32,
}

impl MissCounts {
    /// Counts one more miss of a kind.
    pub fn add(&mut self, miss: Miss) {
        match miss {
            Miss::Missing => self.missing += 1,
            Miss::Invented => self.invented += 1,
            Miss::Format => self.format += 1,
            Miss::Wrong => self.wrong += 1,
        }
    }

    /// Adds another tally.
    pub fn add_all(&mut self, other: &MissCounts) {
        self.missing += other.missing;
        self.invented += other.invented;
        self.format += other.format;
        self.wrong += other.wrong;
    }

    /// Every miss counted.
    pub fn total(&self) -> u32 {
        self.missing + self.invented + self.format + self.wrong
    }
}

/// The kind of miss of a field scored `em` against its gold variants; `None` when it is exact.
pub fn miss_of(em: f64, variants: &[Value], prediction: &Value) -> Option<Miss> {
    if em == 1.0 {
        return None;
    }
    let gold_given = variants.iter().any(Value::has_value);
    Some(match (gold_given, prediction.has_value()) {
        (true, false) => Miss::Missing,
        (false, true) => Miss::Invented,
        // Both empty yet not exact: a rule (`correct: anls`) or a profile judged them apart.
        (false, false) => Miss::Wrong,
        (true, true) if variants.iter().any(|g| same_read_otherwise(g, prediction)) => Miss::Format,
        (true, true) => Miss::Wrong,
    })
}

/// Two scalars that read the same as a number, a date (either order of day and month) or an
/// identifier.
fn same_read_otherwise(gold: &Value, prediction: &Value) -> bool {
    let (Value::Text(g), Value::Text(p)) = (gold, prediction) else {
        return false;
    };
    // Two numbers are read as numbers alone: `12.50` and `1250` are one identifier's keys, but
    // not one amount.
    if let Some((a, b)) = read_number(g).zip(read_number(p)) {
        return a == b;
    }
    let date = [false, true].into_iter().any(|day_first| {
        let gold = parse_date(g, day_first);
        gold.is_some() && gold == parse_date(p, day_first)
    });
    date || same_identifier(g, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn each_kind_of_miss() {
        assert_eq!(miss_of(1.0, &[t("a")], &t("a")), None);
        assert_eq!(
            miss_of(0.0, &[t("FA-1")], &Value::Null),
            Some(Miss::Missing)
        );
        assert_eq!(miss_of(0.0, &[t("FA-1")], &t("  ")), Some(Miss::Missing));
        assert_eq!(miss_of(0.0, &[Value::Null], &t("x")), Some(Miss::Invented));
        assert_eq!(
            miss_of(0.0, &[t("1234.50")], &t("1 234,50")),
            Some(Miss::Format)
        );
        assert_eq!(
            miss_of(0.0, &[t("2024-03-05")], &t("05/03/2024")),
            Some(Miss::Format)
        );
        assert_eq!(
            miss_of(0.0, &[t("FR 32 123")], &t("FR32-123")),
            Some(Miss::Format)
        );
        assert_eq!(
            miss_of(0.0, &[t("1234.50")], &t("1234.60")),
            Some(Miss::Wrong)
        );
        assert_eq!(miss_of(0.0, &[t("ACME")], &t("ACNE")), Some(Miss::Wrong));
        assert_eq!(miss_of(0.0, &[t("12.50")], &t("1250")), Some(Miss::Wrong));
        // The best of the variants: one reads the same as a date.
        assert_eq!(
            miss_of(0.0, &[t("x"), t("2024-03-05")], &t("5 March 2024")),
            Some(Miss::Format)
        );
    }
}
