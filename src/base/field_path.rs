//! Field paths in rubrics: `total`, `address.city`, `line_items[0].description`,
//! `line_items[*].quantity` (every element).

use std::fmt;

use crate::base::value::Value;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A mapping key (the first step is the field name).
    Key(String),
    /// A list index.
    Index(usize),
    /// Every element of a list.
    Every,
}

/// A parsed field path, with the text it was written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    /// The steps, a key first.
    pub steps: Vec<Step>,
}

/// Why a field path does not parse: the path as written, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPathError {
    /// The path as written.
    pub text: String,
    /// What is wrong with it.
    pub kind: PathFault,
}

/// What is wrong with a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathFault {
    /// A `[` is never closed.
    Unclosed,
    /// A `]` closes no `[`.
    Unopened,
    /// What is inside `[…]` is neither a number nor `*`.
    NotAnIndex {
        /// The text between the brackets.
        inside: String,
        /// Why it is not a number.
        source: std::num::ParseIntError,
    },
    /// A `]` is followed by something else than `.` or `[`.
    NoStepAfterIndex,
    /// A step has no name (`a..b`, `.a`).
    EmptyName,
    /// The path ends with `.`.
    EndsWithDot,
    /// The path starts with an index, or is empty.
    NoFieldFirst,
}

impl fmt::Display for FieldPathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &self.text;
        match &self.kind {
            PathFault::Unclosed => write!(f, "`[` without `]` in `{text}`"),
            PathFault::Unopened => write!(f, "`]` without `[` in `{text}`"),
            PathFault::NotAnIndex { inside, .. } => {
                write!(f, "`[{inside}]` in `{text}` is not an index")
            }
            PathFault::NoStepAfterIndex => write!(f, "expected `.` or `[` after `]` in `{text}`"),
            PathFault::EmptyName => write!(f, "an empty name in `{text}`"),
            PathFault::EndsWithDot => write!(f, "`{text}` ends with `.`"),
            PathFault::NoFieldFirst => write!(f, "`{text}` must start with a field name"),
        }
    }
}

impl std::error::Error for FieldPathError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            PathFault::NotAnIndex { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl FieldPath {
    /// Parses `a.b[0].c[*]`; `Err` says what is wrong.
    pub fn parse(text: &str) -> Result<FieldPath, FieldPathError> {
        let error = |kind| FieldPathError {
            text: text.to_owned(),
            kind,
        };
        let mut steps = Vec::new();
        let mut rest = text;
        let mut expect_key = true;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('[') {
                let (inside, after) = after
                    .split_once(']')
                    .ok_or_else(|| error(PathFault::Unclosed))?;
                steps.push(match inside.trim() {
                    "*" => Step::Every,
                    n => Step::Index(n.parse().map_err(|source| {
                        error(PathFault::NotAnIndex {
                            inside: inside.to_owned(),
                            source,
                        })
                    })?),
                });
                rest = after;
                expect_key = false;
            } else {
                if !expect_key {
                    rest = rest
                        .strip_prefix('.')
                        .ok_or_else(|| error(PathFault::NoStepAfterIndex))?;
                }
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                let key = &rest[..end];
                if key.is_empty() {
                    return Err(error(PathFault::EmptyName));
                }
                if key.contains(']') {
                    return Err(error(PathFault::Unopened));
                }
                steps.push(Step::Key(key.to_owned()));
                rest = &rest[end..];
                if let Some(after) = rest.strip_prefix('.') {
                    rest = after;
                    expect_key = true;
                    if rest.is_empty() {
                        return Err(error(PathFault::EndsWithDot));
                    }
                } else {
                    expect_key = false;
                }
            }
        }
        match steps.first() {
            Some(Step::Key(_)) => Ok(FieldPath { steps }),
            _ => Err(error(PathFault::NoFieldFirst)),
        }
    }

    /// The top-level field the path starts at.
    pub fn root(&self) -> &str {
        match self.steps.first() {
            Some(Step::Key(k)) => k,
            _ => "",
        }
    }

    /// True for a bare field name.
    pub fn is_field(&self) -> bool {
        self.steps.len() == 1
    }

    /// Every concrete path and value the path reaches in `root_value` (the value of the first
    /// key). A missing step gives `Null`; `[*]` on a list gives one entry per element.
    pub fn resolve<'a>(&self, root_value: &'a Value) -> Vec<(FieldPath, &'a Value)> {
        let mut reached = vec![(vec![self.steps[0].clone()], root_value)];
        for step in &self.steps[1..] {
            let mut next = Vec::new();
            for (at, value) in reached {
                match step {
                    Step::Every => {
                        if let Value::List(items) = value {
                            for (i, item) in items.iter().enumerate() {
                                let mut at = at.clone();
                                at.push(Step::Index(i));
                                next.push((at, item));
                            }
                        }
                    }
                    Step::Index(i) => {
                        let mut at = at.clone();
                        at.push(step.clone());
                        next.push((
                            at,
                            match value {
                                Value::List(items) => items.get(*i).unwrap_or(&Value::Null),
                                _ => &Value::Null,
                            },
                        ));
                    }
                    Step::Key(k) => {
                        let mut at = at.clone();
                        at.push(step.clone());
                        next.push((at, value.get(k).unwrap_or(&Value::Null)));
                    }
                }
            }
            reached = next;
        }
        reached
            .into_iter()
            .map(|(steps, v)| (FieldPath { steps }, v))
            .collect()
    }

    /// `root_value` (the value of the first key) with `f` applied to every value the path
    /// reaches; gold alternatives (`{any_of: [...]}`) on the way are followed into each one.
    pub fn map(&self, root_value: &Value, f: &dyn Fn(&Value) -> Value) -> Value {
        map_steps(&self.steps[1..], root_value, f)
    }

    /// The value at a concrete path (no `[*]`) inside `root_value`.
    pub fn get<'a>(&self, root_value: &'a Value) -> &'a Value {
        self.resolve(root_value)
            .into_iter()
            .next()
            .map_or(&Value::Null, |(_, v)| v)
    }

    /// Why a concrete path reaches nothing in `root_value`: an index past the end, a step into
    /// a value of the wrong shape, or a key the mapping does not have (with the closest one).
    pub fn why_missing(&self, root_value: &Value) -> Option<Missing> {
        let mut value = root_value;
        let mut at = FieldPath {
            steps: vec![self.steps[0].clone()],
        };
        if matches!(value, Value::Null) {
            return None;
        }
        for step in &self.steps[1..] {
            let next = match (step, value) {
                (Step::Index(i), Value::List(items)) => match items.get(*i) {
                    Some(v) => v,
                    None => {
                        return Some(Missing::PastTheEnd {
                            at: at.to_string(),
                            items: items.len(),
                        });
                    }
                },
                (Step::Key(k), Value::Map(entries)) => {
                    match entries.iter().find(|(key, _)| key == k) {
                        Some((_, v)) => v,
                        None => {
                            let keys = entries.iter().map(|(key, _)| key.as_str());
                            return Some(Missing::NoKey {
                                at: at.to_string(),
                                key: k.clone(),
                                closest: crate::base::location::closest(k, keys).map(str::to_owned),
                            });
                        }
                    }
                }
                (Step::Index(_), other) | (Step::Every, other)
                    if !matches!(other, Value::List(_)) =>
                {
                    return Some(Missing::NotAList {
                        at: at.to_string(),
                        is: Shape::of(other),
                    });
                }
                (Step::Key(_), other) => {
                    return Some(Missing::NotAMapping {
                        at: at.to_string(),
                        is: Shape::of(other),
                    });
                }
                _ => return None,
            };
            at.steps.push(step.clone());
            value = next;
        }
        None
    }
}

/// Why a path reaches nothing in a value, as data (`render` says it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "missing", rename_all = "snake_case", deny_unknown_fields)]
pub enum Missing {
    /// An index past the end of the list at `at`, which has `items` items.
    PastTheEnd {
        /// The path of the list.
        at: String,
        /// How many items it has.
        items: usize,
    },
    /// A key the mapping at `at` does not have.
    NoKey {
        /// The path of the mapping.
        at: String,
        /// The key asked for.
        key: String,
        /// The closest key the mapping has, when one is near.
        closest: Option<String>,
    },
    /// An index or `[*]` into something that is not a list.
    NotAList {
        /// The path of the value.
        at: String,
        /// What it is.
        is: Shape,
    },
    /// A key into something that is not a mapping.
    NotAMapping {
        /// The path of the value.
        at: String,
        /// What it is.
        is: Shape,
    },
}

/// The shape of a value.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Null.
    Null,
    /// A text (any scalar).
    Text,
    /// A list.
    List,
    /// A mapping.
    Mapping,
}

impl Shape {
    /// The shape of `v`.
    pub fn of(v: &Value) -> Shape {
        match v {
            Value::Null => Shape::Null,
            Value::Text(_) => Shape::Text,
            Value::List(_) => Shape::List,
            Value::Map(_) => Shape::Mapping,
        }
    }
}

fn map_steps(steps: &[Step], value: &Value, f: &dyn Fn(&Value) -> Value) -> Value {
    // Alternatives of gold: each one is mapped as the value itself would be.
    if let Value::Map(entries) = value
        && let [(key, Value::List(alternatives))] = entries.as_slice()
        && key == "any_of"
    {
        let mapped = alternatives
            .iter()
            .map(|a| map_steps(steps, a, f))
            .collect();
        return Value::Map(vec![(key.clone(), Value::List(mapped))]);
    }
    let Some((step, rest)) = steps.split_first() else {
        return f(value);
    };
    match (step, value) {
        (Step::Every, Value::List(items)) => {
            Value::List(items.iter().map(|i| map_steps(rest, i, f)).collect())
        }
        (Step::Index(n), Value::List(items)) => Value::List(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    if i == *n {
                        map_steps(rest, item, f)
                    } else {
                        item.clone()
                    }
                })
                .collect(),
        ),
        (Step::Key(k), Value::Map(entries)) => Value::Map(
            entries
                .iter()
                .map(|(key, v)| {
                    let v = if key == k {
                        map_steps(rest, v, f)
                    } else {
                        v.clone()
                    };
                    (key.clone(), v)
                })
                .collect(),
        ),
        _ => value.clone(),
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps.iter().enumerate() {
            match step {
                Step::Key(k) if i == 0 => f.write_str(k)?,
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(n) => write!(f, "[{n}]")?,
                Step::Every => f.write_str("[*]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_show() {
        for text in [
            "total",
            "address.city",
            "line_items[0].description",
            "items[*].tags[*]",
            "a[2][3]",
        ] {
            assert_eq!(FieldPath::parse(text).unwrap().to_string(), text);
        }
        for bad in ["", ".a", "a.", "a..b", "[0]", "a[", "a[-1]", "a]b"] {
            assert!(FieldPath::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resolve_every_element() {
        let t = |s: &str| Value::Text(s.into());
        let item = |q: &str| Value::Map(vec![("quantity".into(), t(q))]);
        let items = Value::List(vec![item("1"), item("2")]);
        let p = FieldPath::parse("line_items[*].quantity").unwrap();
        let got: Vec<String> = p
            .resolve(&items)
            .iter()
            .map(|(at, v)| format!("{at}={}", v.as_text()))
            .collect();
        assert_eq!(
            got,
            ["line_items[0].quantity=1", "line_items[1].quantity=2"]
        );
        let missing = FieldPath::parse("line_items[5].quantity").unwrap();
        assert_eq!(missing.get(&items), &Value::Null);
        assert_eq!(
            missing.why_missing(&items),
            Some(Missing::PastTheEnd {
                at: "line_items".into(),
                items: 2
            })
        );
        let typo = FieldPath::parse("line_items[0].quantty").unwrap();
        assert_eq!(
            typo.why_missing(&items),
            Some(Missing::NoKey {
                at: "line_items[0]".into(),
                key: "quantty".into(),
                closest: Some("quantity".into())
            })
        );
        let shape = FieldPath::parse("line_items.quantity").unwrap();
        assert_eq!(
            shape.why_missing(&items),
            Some(Missing::NotAMapping {
                at: "line_items".into(),
                is: Shape::List
            })
        );
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn parse_steps() {
        let p = FieldPath::parse("line_items[*].quantity").unwrap();
        assert_eq!(
            p.steps,
            [
                Step::Key("line_items".into()),
                Step::Every,
                Step::Key("quantity".into())
            ]
        );
        let e = FieldPath::parse("items[x]").unwrap_err();
        assert_eq!(e.to_string(), "`[x]` in `items[x]` is not an index");
        assert!(
            std::error::Error::source(&e).is_some(),
            "the number's error is its source"
        );
        assert_eq!(
            FieldPath::parse("a.").unwrap_err().kind,
            PathFault::EndsWithDot
        );
    }
}
