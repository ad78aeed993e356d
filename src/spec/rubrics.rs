//! A case's `rubrics:` as written: a list, added to its suites' rubrics, or `{ replace: [...] }`,
//! which stands instead of them.

use crate::base::spanned::Spanned;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};

use super::RubricEntry;

/// A case's (or a suite's `defaults`') `rubrics:`.
#[derive(Debug, Clone)]
pub enum RubricsSpec {
    /// `rubrics: [...]`: after the rubrics of the suites above.
    Add(Vec<Spanned<RubricEntry>>),
    /// `rubrics: { replace: [...] }`: instead of the rubrics of the suites above.
    Replace(Vec<Spanned<RubricEntry>>),
}

impl RubricsSpec {
    /// The entries written.
    pub fn entries(&self) -> &[Spanned<RubricEntry>] {
        match self {
            RubricsSpec::Add(entries) | RubricsSpec::Replace(entries) => entries,
        }
    }

    /// Whether the rubrics of the suites above are dropped.
    pub fn replaces(&self) -> bool {
        matches!(self, RubricsSpec::Replace(_))
    }

    /// The YAML path of the entries: `rubrics`, or `rubrics.replace`.
    pub fn path(&self) -> &'static str {
        match self {
            RubricsSpec::Add(_) => "rubrics",
            RubricsSpec::Replace(_) => "rubrics.replace",
        }
    }
}

impl<'de> Deserialize<'de> for RubricsSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RubricsVisitor)
    }
}

struct RubricsVisitor;

impl<'de> Visitor<'de> for RubricsVisitor {
    type Value = RubricsSpec;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of rubrics, or `{ replace: [...] }`")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RubricsSpec, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = seq.next_element::<Spanned<RubricEntry>>()? {
            entries.push(entry);
        }
        Ok(RubricsSpec::Add(entries))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RubricsSpec, A::Error> {
        let mut replace = None;
        while map.next_key::<Replace>()?.is_some() {
            if replace.is_some() {
                return Err(de::Error::duplicate_field("replace"));
            }
            replace = Some(map.next_value::<Vec<Spanned<RubricEntry>>>()?);
        }
        replace
            .map(RubricsSpec::Replace)
            .ok_or_else(|| de::Error::missing_field("replace"))
    }
}

/// The one key of `rubrics:` written as a mapping; any other is refused as the key is read, so
/// that its error names it in its YAML path (`rubrics.replce`).
struct Replace;

impl<'de> Deserialize<'de> for Replace {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_identifier(ReplaceVisitor)
    }
}

struct ReplaceVisitor;

impl Visitor<'_> for ReplaceVisitor {
    type Value = Replace;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("`replace`")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Replace, E> {
        if key == "replace" {
            Ok(Replace)
        } else {
            Err(E::unknown_field(key, &["replace"]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rubrics(yaml: &str) -> Result<RubricsSpec, crate::base::location::LoadError> {
        #[derive(Deserialize)]
        struct Holder {
            rubrics: RubricsSpec,
        }
        crate::spec::parse_yaml::<Holder>(std::path::Path::new("c.yaml"), yaml).map(|h| h.rubrics)
    }

    #[test]
    fn a_list_adds_and_a_mapping_of_replace_replaces() {
        let add = rubrics("rubrics:\n  - include: basics\n").unwrap();
        assert!(!add.replaces() && add.entries().len() == 1 && add.path() == "rubrics");
        let replace = rubrics("rubrics:\n  replace:\n    - include: basics\n").unwrap();
        assert!(replace.replaces() && replace.entries().len() == 1);
        assert_eq!(replace.path(), "rubrics.replace");
        assert!(
            rubrics("rubrics: { replace: [] }\n")
                .unwrap()
                .entries()
                .is_empty()
        );
        assert_eq!(
            rubrics("rubrics: { replace: true }\n")
                .unwrap_err()
                .to_string(),
            "c.yaml:1:21: rubrics.replace: expected a list (write `[a, b]`, or one `- item` per line)"
        );
        assert_eq!(
            rubrics("rubrics: {}\n").unwrap_err().to_string(),
            "c.yaml:1:10: rubrics: missing key `replace` (add `replace:`)"
        );
    }
}
