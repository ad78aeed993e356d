//! DocuBench's score of one document: the published benchmark's own rules, reproduced from its
//! documentation and its scorer's behaviour (DocuBench 0.1.0, DocuPipe), so that its leaderboard
//! can be recomputed and its gaps tested.
//!
//! How it differs from goldgate's default, on purpose (it is the benchmark's definition):
//! - Text is compared after lowercasing and removing every character that is not a letter, a
//!   digit or `_` (`"Acme, Inc."` equals `"ACME INC"`); numbers after rounding to 6 decimals.
//!   A leaf is right (1) or wrong (0): no partial credit, no ANLS.
//! - `""`, `[]` and `{}` are removed before anything is compared; `null` is kept, as a value.
//! - The document's JSON Schema says what is scored: its non-array leaves, each one point
//!   (both sides empty: not scored), and each of its arrays, matched item to item greedily
//!   (the best-scoring pair first, ties in label order), an item's similarity being the share of
//!   equal leaves over the leaves either item has. An array weighs its item count times the mean
//!   leaf count of its labelled items.
//! - The document's score is the weighted mean of the two; a system's is the plain mean over
//!   documents.
//!
//! Where the published scorer would stop with an error (a schema whose array path it cannot
//! follow, a schema with nothing to score), this returns a [`SchemaError`] instead.

use serde_json::{Map, Value};

/// What one document scored, by part: the non-array leaves, then each array by its name.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentScore {
    /// The document's score, in [0, 1].
    pub score: f64,
    /// The non-array leaves: the share right and how many were scored, when the schema has any.
    pub fields: Option<Part>,
    /// Each array of the schema, by its name (the first key under the schema's root below
    /// which it lies; two arrays under one such key count as the later one alone, as the
    /// benchmark's scorer counts them).
    pub arrays: Vec<(String, Part)>,
}

/// A part of a document's score: its score and its weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// The part's score, in [0, 1].
    pub score: f64,
    /// Its weight in the document's score: leaves scored, or items times leaves per item.
    pub weight: f64,
}

/// A schema DocuBench's scorer cannot score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError(pub String);

impl std::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SchemaError {}

/// DocuBench's score of `result` (a system's output, the object under its `data`) against
/// `label` (the gold), over the fields `schema` names.
pub fn score_document(
    result: &Value,
    schema: &Value,
    label: &Value,
) -> Result<DocumentScore, SchemaError> {
    score_prepared(&prepared(result), schema, &prepared(label))
}

/// A side as the benchmark compares it: emptied keys removed, then normalized.
fn prepared(v: &Value) -> Value {
    normalized(&stripped(v))
}

/// [`score_document`] of a result and a label already [`prepared`].
fn score_prepared(
    result: &Value,
    schema: &Value,
    label: &Value,
) -> Result<DocumentScore, SchemaError> {
    let mut arrays: Vec<(String, Part)> = Vec::new();
    let found = arrays_of(schema, &mut Vec::new());
    for path in &found {
        let name = path_name(path);
        let items_path = array_path(path)?;
        let label_items = items_at(label, &items_path);
        let result_items = items_at(result, &items_path);
        let items = label_items.len().max(result_items.len()) as f64;
        let part = Part {
            score: array_score(label_items, result_items),
            weight: items * mean_leaf_count(label_items),
        };
        // A later array of the same name replaces the earlier one, in the earlier one's place.
        match arrays.iter_mut().find(|(n, _)| *n == name) {
            Some((_, slot)) => *slot = part,
            None => arrays.push((name, part)),
        }
    }

    let without_arrays = without_arrays(schema);
    let has_fields = without_arrays
        .as_ref()
        .and_then(|s| s.get("properties"))
        .is_some_and(|p| match p {
            Value::Object(m) => !m.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::String(s) => !s.is_empty(),
            _ => false,
        });
    let fields = if has_fields {
        let schema = without_arrays.unwrap_or(Value::Null);
        let (right, scored) = leaves_score(Some(result), Some(label), &schema);
        Some(Part {
            score: if scored == 0 {
                1.0
            } else {
                right as f64 / scored as f64
            },
            weight: scored as f64,
        })
    } else {
        None
    };

    let score = if found.is_empty() {
        fields
            .ok_or_else(|| SchemaError("the schema has no field to score".to_owned()))?
            .score
    } else {
        let parts = arrays.iter().map(|(_, p)| *p).chain(fields);
        let (mut sum, mut weight) = (0.0, 0.0);
        for part in parts {
            weight += part.weight;
            sum += part.score * part.weight;
        }
        if weight > 0.0 { sum / weight } else { 1.0 }
    };
    Ok(DocumentScore {
        score,
        fields,
        arrays,
    })
}

/// The part of a document's score that one top-level field of the schema makes: its leaves
/// and its arrays together, weighted as in the document's score.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldPart {
    /// The field: a top-level property of the schema.
    pub name: String,
    /// Its score, in [0, 1]; 1 when nothing of it is scored.
    pub score: f64,
    /// Its weight in the document's score (0 when nothing of it is scored).
    pub weight: f64,
}

/// The document's score and what each top-level field of the schema makes of it, in the
/// schema's order. A field is right when its score is 1: every leaf matches, every array item.
pub fn score_fields(
    result: &Value,
    schema: &Value,
    label: &Value,
) -> Result<(DocumentScore, Vec<FieldPart>), SchemaError> {
    let (result, label) = (prepared(result), prepared(label));
    let document = score_prepared(&result, schema, &label)?;
    let mut parts: Vec<FieldPart> = Vec::new();
    let mut add =
        |name: &str, right: f64, weight: f64| match parts.iter_mut().find(|p| p.name == name) {
            Some(p) => {
                p.score = p.score * p.weight + right;
                p.weight += weight;
                p.score = if p.weight > 0.0 {
                    p.score / p.weight
                } else {
                    1.0
                };
            }
            None => parts.push(FieldPart {
                name: name.to_owned(),
                score: if weight > 0.0 { right / weight } else { 1.0 },
                weight,
            }),
        };
    if let Some(schema) = without_arrays(schema)
        && schema.get("type").and_then(Value::as_str) == Some("object")
        && let Some(Value::Object(properties)) = schema.get("properties")
    {
        for (name, part) in properties {
            let (right, scored) = leaves_score(
                result.as_object().and_then(|m| m.get(name)),
                label.as_object().and_then(|m| m.get(name)),
                part,
            );
            add(name, right as f64, scored as f64);
        }
    }
    for (name, part) in &document.arrays {
        add(name, part.score * part.weight, part.weight);
    }
    Ok((document, parts))
}

/// One value against its gold, as DocuBench scores a document holding that value alone (its
/// schema the gold's shape): a text or number 1 or 0, a list by its greedy matching, a mapping
/// by its leaves.
pub fn value_score(gold: &Value, pred: &Value) -> f64 {
    let wrap = |v: &Value| serde_json::json!({ "value": v });
    let (label, result) = (wrap(gold), wrap(pred));
    score_document(&result, &schema_of(&label), &label).map_or(0.0, |d| d.score)
}

/// A goldgate value tree as JSON for this profile, when no typed JSON is at hand (gold written
/// in YAML, a prediction written inline): a text that reads as a JSON number is that number,
/// `true` and `false` are booleans, any other text a string.
pub fn json_of(value: &crate::base::value::Value) -> Value {
    use crate::base::value::Value as V;
    match value {
        V::Null => Value::Null,
        V::Text(t) => match t.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => serde_json::from_str::<serde_json::Number>(t)
                .map_or_else(|_| Value::String(t.clone()), Value::Number),
        },
        V::List(items) => Value::Array(items.iter().map(json_of).collect()),
        V::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), json_of(v)))
                .collect(),
        ),
    }
}

/// The schema a gold tree implies when the case gives none: every key of the gold a property,
/// a list an array of its first item's shape, anything else a leaf.
///
/// A list or mapping with nothing in it (no leaf but `""`, `null` or empty ones: `[]`, `{"b": []}`,
/// `{"b": null}`) says no shape: it is a leaf, empty as `""` is, so that its scorer's rule for an
/// empty value applies (`is_empty` is one rule for `""`, `[]` and `{}`): a prediction of
/// nothing is not scored, anything else is wrong. As an array it would weigh nothing, and a
/// prediction that is no list at all (`"WRONG"`) would score 1 there.
pub fn schema_of(gold: &Value) -> Value {
    match gold {
        // The document itself is a mapping of fields, however empty they are.
        Value::Object(map) => serde_json::json!({
            "type": "object",
            "properties": map
                .iter()
                .map(|(k, v)| (k.clone(), shape(v)))
                .collect::<Map<String, Value>>(),
        }),
        other => shape(other),
    }
}

/// The schema a gold value inside the document implies (see [`schema_of`]).
fn shape(gold: &Value) -> Value {
    match gold {
        Value::Array(_) | Value::Object(_) if !has_content(gold) => {
            serde_json::json!({ "type": "string" })
        }
        Value::Object(map) => serde_json::json!({
            "type": "object",
            "properties": map
                .iter()
                .map(|(k, v)| (k.clone(), shape(v)))
                .collect::<Map<String, Value>>(),
        }),
        Value::Array(items) => serde_json::json!({
            "type": "array",
            "items": shape(&items[0]),
        }),
        // A leaf says its type: an empty schema (`{}`) is no field at all to the benchmark.
        Value::String(_) => serde_json::json!({ "type": "string" }),
        Value::Number(_) => serde_json::json!({ "type": "number" }),
        Value::Bool(_) => serde_json::json!({ "type": "boolean" }),
        Value::Null => serde_json::json!({ "type": ["string", "null"] }),
    }
}

/// Whether a gold value holds a leaf that is not empty (`""` and `null` are empty).
fn has_content(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => items.iter().any(has_content),
        Value::Object(map) => map.values().any(has_content),
        Value::Number(_) | Value::Bool(_) => true,
    }
}

// ---- normalization ---------------------------------------------------------------------------

fn is_empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(m)) => m.is_empty(),
        _ => false,
    }
}

/// Keys whose value is `""`, `[]` or `{}` (after the same is done inside it) removed; `null`
/// kept; items of a list kept, emptied or not.
fn stripped(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), stripped(v)))
                .filter(|(_, v)| {
                    !matches!(v, Value::String(_) | Value::Array(_) | Value::Object(_))
                        || !is_empty(Some(v))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(stripped).collect()),
        other => other.clone(),
    }
}

/// Numbers as floats rounded to 6 decimals, text lowercased with everything but letters,
/// digits and `_` removed.
fn normalized(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), normalized(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalized).collect()),
        Value::String(s) => Value::String(normalized_text(s)),
        Value::Number(n) => n
            .as_f64()
            .map(round6)
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| v.clone(), Value::Number),
        other => other.clone(),
    }
}

/// Rounded to 6 decimals, correctly (the decimal nearest the binary value, ties to even), as
/// the benchmark's `round(x, 6)` does.
fn round6(x: f64) -> f64 {
    format!("{x:.6}").parse().unwrap_or(x)
}

/// White space removed, then lowercased, then every character that is not a word character
/// removed, as the benchmark's Python 3.11 has them: a letter or a number assigned by Unicode
/// 14.0 (its `str.isalnum()`), or `_`; a character Unicode assigned later (U+1C89, U+A7CB) is
/// removed, as the reference removes it (see [`python_word`](super::python_word)). Combining
/// marks are not word characters: `é` written as `e` and U+0301 becomes `e`. The order matters:
/// `ΟΔΟΣ ΑΘΗΝΑ` loses its space before it is lowercased, so its `Σ` is inside a word and becomes
/// `σ`, not the final `ς`.
pub fn normalized_text(s: &str) -> String {
    // The benchmark's white space: Unicode's, and the four information separators U+001C–1F.
    // A character its Unicode had not assigned is one `lower()` leaves and `\W` removes, and
    // one that neither is nor ignores case beside a `Σ`: U+FFFF stands for it until it goes.
    let spaceless: String = s
        .chars()
        .filter(|&c| !(c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)))
        .map(|c| {
            if within(&super::python_word::ASSIGNED, c) {
                c
            } else {
                '\u{ffff}'
            }
        })
        .collect();
    spaceless
        .to_lowercase()
        .chars()
        .filter(|&c| is_word(c))
        .collect()
}

/// A word character of the reference's Python (`\w`).
fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    within(&super::python_word::WORD, c)
}

/// Whether a character is in a table of sorted ranges.
fn within(table: &[(u32, u32)], c: char) -> bool {
    let code = c as u32;
    let at = table.partition_point(|&(_, last)| last < code);
    table.get(at).is_some_and(|&(first, _)| first <= code)
}

/// Equality as the benchmark compares leaves: numbers by value, `true` equal to 1 and `false`
/// to 0, lists item by item, objects key by key whatever their order.
fn same(a: &Value, b: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    };
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// Equality of two lists nested in array items, which the benchmark compares as their JSON
/// text with sorted keys: as [`same`], except that `true` is not 1 and `-0.0` is not `0.0`.
fn same_text(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y && x.is_sign_negative() == y.is_sign_negative(),
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_text(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_text(v, w)))
        }
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

// ---- the schema ------------------------------------------------------------------------------

fn is_array_type(schema: &Map<String, Value>) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(types)) => types.iter().any(|t| t == "array"),
        _ => false,
    }
}

/// Every array of the schema, as the path of keys that leads to it, found by walking every
/// key of the schema (not below an array).
fn arrays_of<'s>(schema: &'s Value, path: &mut Vec<&'s str>) -> Vec<(Vec<&'s str>, &'s Value)> {
    match schema {
        Value::Object(map) if is_array_type(map) => vec![(path.clone(), schema)],
        Value::Object(map) => {
            let mut found = Vec::new();
            for (key, value) in map {
                path.push(key);
                found.extend(arrays_of(value, path));
                path.pop();
            }
            found
        }
        Value::Array(items) => items.iter().flat_map(|i| arrays_of(i, path)).collect(),
        _ => Vec::new(),
    }
}

/// An array's name: the first key below the schema's root `properties` on its path, or, when
/// the path does not begin that way, as the benchmark's scorer reads the partial schema it
/// builds for it.
fn path_name(found: &(Vec<&str>, &Value)) -> String {
    let (path, _) = found;
    match path.as_slice() {
        ["properties", name, ..] => (*name).to_owned(),
        // The partial schema's root then has `type` and the path's first key, so its name is
        // none of the keys: the benchmark names it `None`.
        [_, ..] => "None".to_owned(),
        [] => "None".to_owned(),
    }
}

/// The keys of the data that lead to an array's items: the path without its `properties`,
/// checked the way the benchmark's scorer checks it (each level an object with one property,
/// the last an array with `items`).
fn array_path(found: &(Vec<&str>, &Value)) -> Result<Vec<String>, SchemaError> {
    let (path, array) = found;
    let unfollowable = || {
        SchemaError(format!(
            "the array at `{}` cannot be followed from the schema's root through `properties`",
            path.join(".")
        ))
    };
    let Value::Object(array) = array else {
        return Err(unfollowable());
    };
    // A schema that is itself an array has no property to follow.
    if path.is_empty() {
        return Err(unfollowable());
    }
    // The partial schema is objects down the path: `properties` opens a level, any other
    // key is a property that must itself be followed by `properties` (or be the array).
    let mut keys = Vec::new();
    let mut expect_properties = true;
    for (i, key) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        if expect_properties {
            if *key != "properties" || last {
                return Err(unfollowable());
            }
            expect_properties = false;
        } else {
            keys.push((*key).to_owned());
            if last {
                break;
            }
            expect_properties = true;
        }
    }
    if array.contains_key("items") {
        Ok(keys)
    } else {
        Err(SchemaError(format!(
            "the array at `{}` has no `items`",
            path.join(".")
        )))
    }
}

/// The items at `path` in `data`, or none when the path does not reach a list.
fn items_at<'d>(data: &'d Value, path: &[String]) -> &'d [Value] {
    let mut at = data;
    for key in path {
        match at.get(key.as_str()) {
            Some(next) if at.is_object() => at = next,
            _ => return &[],
        }
    }
    at.as_array().map_or(&[], Vec::as_slice)
}

/// The schema with its arrays removed, and objects left without a property removed with them.
fn without_arrays(schema: &Value) -> Option<Value> {
    let is_nothing = |v: &Value| match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    };
    match schema {
        Value::Object(map) if is_array_type(map) => Some(Value::Object(Map::new())),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                if let Some(v) = without_arrays(v).filter(|v| !is_nothing(v)) {
                    out.insert(k.clone(), v);
                }
            }
            let object = match out.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
                _ => false,
            };
            let no_properties = out.get("properties").is_none_or(|p| match p {
                Value::Object(m) => m.is_empty(),
                Value::Array(a) => a.is_empty(),
                Value::String(s) => s.is_empty(),
                Value::Bool(b) => !b,
                Value::Number(n) => n.as_f64() == Some(0.0),
                Value::Null => true,
            });
            if out.contains_key("type") && object && no_properties {
                return Some(Value::Object(Map::new()));
            }
            Some(Value::Object(out))
        }
        Value::Array(items) => {
            let kept: Vec<Value> = items
                .iter()
                .filter_map(without_arrays)
                .filter(|v| !is_nothing(v))
                .collect();
            Some(if kept.is_empty() {
                Value::Object(Map::new())
            } else {
                Value::Array(kept)
            })
        }
        other => Some(other.clone()),
    }
}

/// (right, scored) over the non-array leaves the schema names: an object with `properties` is
/// walked, anything else is one leaf (both sides empty: not scored).
fn leaves_score(result: Option<&Value>, label: Option<&Value>, schema: &Value) -> (usize, usize) {
    let walked = schema.get("type").and_then(Value::as_str) == Some("object");
    if let (true, Some(Value::Object(properties))) = (walked, schema.get("properties")) {
        let (mut right, mut scored) = (0, 0);
        for (name, part) in properties {
            let (r, s) = leaves_score(
                result.and_then(|v| v.as_object()).and_then(|m| m.get(name)),
                label.and_then(|v| v.as_object()).and_then(|m| m.get(name)),
                part,
            );
            right += r;
            scored += s;
        }
        return (right, scored);
    }
    if is_empty(result) && is_empty(label) {
        (0, 0)
    } else if same(
        result.unwrap_or(&Value::Null),
        label.unwrap_or(&Value::Null),
    ) {
        (1, 1)
    } else {
        (0, 1)
    }
}

// ---- arrays ----------------------------------------------------------------------------------

/// A leaf of an array item: a value, or a list nested in the item (compared as its JSON text).
enum Leaf<'v> {
    Value(&'v Value),
    List(&'v Value),
}

/// An item's leaves by dotted key (`address.city`); a value that is not an object is one leaf.
fn leaves(item: &Value) -> Vec<(String, Leaf<'_>)> {
    fn walk<'v>(map: &'v Map<String, Value>, prefix: &str, out: &mut Vec<(String, Leaf<'v>)>) {
        for (k, v) in map {
            let key = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                Value::Object(inner) => walk(inner, &key, out),
                Value::Array(_) => out.push((key, Leaf::List(v))),
                _ => out.push((key, Leaf::Value(v))),
            }
        }
    }
    match item {
        Value::Object(map) => {
            let mut out = Vec::new();
            walk(map, "", &mut out);
            // A key met twice (`a.b` and a literal `a.b`) keeps its last value.
            let mut unique: Vec<(String, Leaf<'_>)> = Vec::with_capacity(out.len());
            for (k, v) in out {
                match unique.iter_mut().find(|(u, _)| *u == k) {
                    Some(slot) => slot.1 = v,
                    None => unique.push((k, v)),
                }
            }
            unique
        }
        other => vec![("_val".to_owned(), Leaf::Value(other))],
    }
}

fn leaf_is_empty(leaf: Option<&Leaf<'_>>) -> bool {
    // A nested list is compared as text, and its text is never empty.
    match leaf {
        None => true,
        Some(Leaf::List(_)) => false,
        Some(Leaf::Value(v)) => is_empty(Some(v)),
    }
}

fn leaves_equal(a: Option<&Leaf<'_>>, b: Option<&Leaf<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Leaf::List(x)), Some(Leaf::List(y))) => same_text(x, y),
        (Some(Leaf::Value(x)), Some(Leaf::Value(y))) => same(x, y),
        // A missing leaf is `None`, equal to a `null`.
        (None, Some(Leaf::Value(Value::Null))) | (Some(Leaf::Value(Value::Null)), None) => true,
        _ => false,
    }
}

/// The share of equal leaves over the leaves either item has (both empty: not counted); 1 when
/// none counts.
fn item_similarity(label: &Value, result: &Value) -> f64 {
    let label = leaves(label);
    let result = leaves(result);
    let get = |side: &'_ [(String, Leaf<'_>)], key: &str| side.iter().position(|(k, _)| k == key);
    let mut keys: Vec<&str> = label.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in &result {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    let (mut scored, mut equal) = (0usize, 0usize);
    for key in keys {
        let l = get(&label, key).map(|i| &label[i].1);
        let r = get(&result, key).map(|i| &result[i].1);
        if leaf_is_empty(l) && leaf_is_empty(r) {
            continue;
        }
        scored += 1;
        if leaves_equal(l, r) {
            equal += 1;
        }
    }
    if scored == 0 {
        1.0
    } else {
        equal as f64 / scored as f64
    }
}

/// The mean count of non-empty leaves per labelled item (at least 1 each); 1 without items.
fn mean_leaf_count(items: &[Value]) -> f64 {
    if items.is_empty() {
        return 1.0;
    }
    let total: usize = items
        .iter()
        .map(|item| {
            leaves(item)
                .iter()
                .filter(|(_, leaf)| !leaf_is_empty(Some(leaf)))
                .count()
                .max(1)
        })
        .sum();
    total as f64 / items.len() as f64
}

/// Items matched greedily, the most similar pair first (ties: label order, then result
/// order), each item used once; the sum of the matched similarities over the longer list.
fn array_score(label: &[Value], result: &[Value]) -> f64 {
    if label.is_empty() && result.is_empty() {
        return 1.0;
    }
    if label.is_empty() || result.is_empty() {
        return 0.0;
    }
    let mut pairs: Vec<(f64, usize, usize)> = Vec::with_capacity(label.len() * result.len());
    for (i, l) in label.iter().enumerate() {
        for (j, r) in result.iter().enumerate() {
            pairs.push((item_similarity(l, r), i, j));
        }
    }
    // Stable: equal similarities keep their order.
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut used_label = vec![false; label.len()];
    let mut used_result = vec![false; result.len()];
    let mut total = 0.0;
    for (similarity, i, j) in pairs {
        if used_label[i] || used_result[j] {
            continue;
        }
        total += similarity;
        used_label[i] = true;
        used_result[j] = true;
    }
    total / label.len().max(result.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn score(result: Value, schema: Value, label: Value) -> DocumentScore {
        score_document(&result, &schema, &label).unwrap()
    }

    fn items_schema(properties: Value) -> Value {
        json!({"type": "object", "properties": {"items": {"type": "array", "items": {
            "type": "object", "properties": properties}}}})
    }

    #[test]
    fn arrays_match_in_any_order_after_normalization() {
        let schema = items_schema(json!({"sku": {"type": "string"}, "qty": {"type": "number"}}));
        let label = json!({"items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 3}]});
        let result = json!({"items": [{"sku": "B 2", "qty": 3.0}, {"sku": "a1", "qty": 2}]});
        assert_eq!(score(result, schema, label).score, 1.0);
    }

    #[test]
    fn leaves_empty_on_both_sides_are_not_scored() {
        let schema = json!({"type": "object", "properties": {
            "empty": {"type": "string"}, "name": {"type": "string"}}});
        let out = score(
            json!({"empty": "", "name": "ACME INC"}),
            schema,
            json!({"empty": "", "name": "Acme, Inc."}),
        );
        assert_eq!(out.fields.unwrap().weight, 1.0);
        assert_eq!(out.score, 1.0);
    }

    #[test]
    fn an_extra_leaf_in_an_item_halves_its_similarity() {
        let schema = items_schema(json!({"sku": {"type": "string"}}));
        let out = score(
            json!({"items": [{"sku": "A", "extra": "not requested"}]}),
            schema,
            json!({"items": [{"sku": "A"}]}),
        );
        assert_eq!(out.score, 0.5);
    }

    /// An invoice's schema (two fields and an array of lines of two leaves) and its gold.
    fn invoice() -> (Value, Value) {
        let schema = json!({"type": "object", "properties": {
            "number": {"type": "string"}, "total": {"type": "number"},
            "lines": {"type": "array", "items": {"type": "object", "properties": {
                "what": {"type": "string"}, "amount": {"type": "number"}}}}}});
        let label = json!({"number": "F-1", "total": 30,
            "lines": [{"what": "a", "amount": 10}, {"what": "b", "amount": 20}]});
        (schema, label)
    }

    /// Two label items, three predicted: the greedy match takes the exact pairs, the third
    /// item counts in the denominator; the array weighs 3 items × 2 leaves against 2 fields.
    #[test]
    fn parts_are_weighted_by_their_leaves() {
        let (schema, label) = invoice();
        let result = json!({"number": "F-1", "total": 31,
            "lines": [{"what": "b", "amount": 20}, {"what": "a", "amount": 10.0000004},
                      {"what": "c", "amount": 0}]});
        let out = score(result, schema, label);
        let lines = out.arrays[0].1;
        assert_eq!(lines.score, 2.0 / 3.0);
        assert_eq!(lines.weight, 6.0);
        assert_eq!(out.fields.unwrap().score, 0.5);
        assert_eq!(out.score, (2.0 / 3.0 * 6.0 + 0.5 * 2.0) / 8.0);
    }

    #[test]
    fn text_keeps_letters_and_digits_of_every_script() {
        assert_eq!(
            normalized_text("Société Générale, S.A."),
            "sociétégénéralesa"
        );
        // A combining accent is not a word character: it goes.
        assert_eq!(normalized_text("Socie\u{301}te\u{301}"), "societe");
        assert_eq!(normalized_text("株式会社 ２０２４"), "株式会社２０２４");
        assert_eq!(normalized_text("snake_case-id"), "snake_caseid");
        assert_eq!(normalized_text("ΟΔΟΣ ΑΘΗΝΑ"), "οδοσαθηνα");
        assert_eq!(normalized_text("ΟΔΟΣ-ΑΘΗΝΑ"), "οδοςαθηνα");
        // Letters Unicode assigned after 14.0, the reference's Python's: not word characters.
        assert_eq!(normalized_text("Fee Simple\u{1c89}"), "feesimple");
        assert_eq!(normalized_text("x\u{a7cb}\u{11f04}\u{13460}"), "x");
        assert_eq!(normalized_text("²_ⅻ①"), "²_ⅻ①");
        // A later letter beside a `Σ` neither makes it final nor keeps it from being so.
        assert_eq!(normalized_text("ΑΣ\u{a7cb}Α"), "ας\u{3b1}");
    }

    #[test]
    fn an_empty_gold_is_one_rule_whatever_its_type() {
        use serde_json::json;
        for empty in [json!(""), json!([]), json!({})] {
            assert_eq!(
                value_score(&empty, &json!("WRONG")),
                0.0,
                "{empty} vs WRONG"
            );
            assert_eq!(value_score(&empty, &json!(["x"])), 0.0, "{empty} vs [x]");
            assert_eq!(
                value_score(&empty, &json!({"k": "x"})),
                0.0,
                "{empty} vs {{k}}"
            );
            for nothing in [json!(""), json!([]), json!({})] {
                assert_eq!(value_score(&empty, &nothing), 1.0, "{empty} vs {nothing}");
            }
        }
        // Nested, and with nothing but empty values: no shape either.
        for empty in [
            json!({"b": []}),
            json!({"b": {}}),
            json!({"b": ""}),
            json!({"b": null}),
        ] {
            let gold = json!({ "a": empty });
            assert_eq!(value_score(&gold, &json!({"a": "WRONG"})), 0.0, "{gold}");
        }
        // In a document: the empty list is a field that the prediction got wrong.
        let label = json!({"a": [], "b": "x"});
        let schema = schema_of(&label);
        let score = |result: Value| score_document(&result, &schema, &label).unwrap().score;
        assert_eq!(score(json!({"a": "WRONG", "b": "x"})), 0.5);
        assert_eq!(score(json!({"a": [], "b": "x"})), 1.0);
        assert_eq!(score(json!({"b": "x"})), 1.0);
    }

    #[test]
    fn numbers_are_rounded_to_six_decimals_and_true_equals_one() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "number"}, "b": {"type": "number"}, "c": {}}});
        let out = score(
            json!({"a": 8.459999999999999, "b": 1.0000005, "c": true}),
            schema,
            json!({"a": 8.46, "b": 1.000001, "c": 1}),
        );
        assert_eq!(out.fields.unwrap().score, 1.0);
    }

    /// The fields' parts weigh what the document's score weighs: their weighted mean is it.
    #[test]
    fn the_fields_parts_make_the_document_s_score() {
        let (schema, label) = invoice();
        let result = json!({"number": "f 1", "total": 31,
            "lines": [{"what": "b", "amount": 20}, {"what": "a", "amount": 10}]});
        let (document, parts) = score_fields(&result, &schema, &label).unwrap();
        let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["number", "total", "lines"]);
        let scores: Vec<f64> = parts.iter().map(|p| p.score).collect();
        assert_eq!(scores, [1.0, 0.0, 1.0]);
        let weighted: f64 = parts.iter().map(|p| p.score * p.weight).sum::<f64>()
            / parts.iter().map(|p| p.weight).sum::<f64>();
        assert_eq!(weighted, document.score);
        assert_eq!(document.score, 5.0 / 6.0);
    }

    #[test]
    fn yaml_texts_read_as_json_and_a_gold_tree_implies_its_schema() {
        use crate::base::value::Value as V;
        let gold = V::Map(vec![
            ("total".into(), V::Text("1234.50".into())),
            ("paid".into(), V::Text("true".into())),
            ("number".into(), V::Text("INV-1".into())),
            (
                "lines".into(),
                V::List(vec![V::Map(vec![("a".into(), V::Text("1".into()))])]),
            ),
        ]);
        let json = json_of(&gold);
        let typed: Value = serde_json::from_str(
            r#"{"total": 1234.50, "paid": true, "number": "INV-1", "lines": [{"a": 1}]}"#,
        )
        .unwrap();
        assert_eq!(json, typed);
        assert_eq!(
            schema_of(&json),
            json!({"type": "object", "properties": {"total": {"type": "number"},
                "paid": {"type": "boolean"}, "number": {"type": "string"},
                "lines": {"type": "array", "items": {"type": "object", "properties": {
                    "a": {"type": "number"}}}}}})
        );
    }

    #[test]
    fn one_value_scores_against_its_gold() {
        assert_eq!(value_score(&json!("F-1"), &json!("f 1")), 1.0);
        assert_eq!(value_score(&json!(30), &json!(31)), 0.0);
        assert_eq!(value_score(&json!(null), &json!("")), 1.0);
        assert_eq!(
            value_score(&json!([{"a": "x"}, {"a": "y"}]), &json!([{"a": "y"}])),
            0.5
        );
    }

    #[test]
    fn a_schema_with_nothing_to_score_is_an_error() {
        let err = score_document(&json!({}), &json!({"type": "object"}), &json!({})).unwrap_err();
        assert_eq!(err.to_string(), "the schema has no field to score");
    }
}
