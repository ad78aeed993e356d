//! `prediction_format:` checked, and a pipeline's own document read through it.

use std::path::Path;

use crate::base::spanned::Spanned;

use crate::base::json::Json;
use crate::base::location::{LoadError, Mark};
use crate::model::prediction::{CallFailure, PredictionFormat};
use crate::spec::{NodeKind, PredictionFormatSpec};

/// The format as written in `file` (a suite's, a pipeline's or a case's) at the YAML path
/// `section` (`prediction_format`, `pipelines.gpt.prediction_format`), its paths split into steps.
pub(crate) fn format(
    file: &Path,
    section: &str,
    spec: &PredictionFormatSpec,
) -> Result<PredictionFormat, LoadError> {
    let key = |name: &str| format!("{section}.{name}");
    let path = |name: &str, written: &Spanned<String>| steps(file, &key(name), written);
    let optional = |name: &str, written: &Option<Spanned<String>>| {
        written.as_ref().map(|w| path(name, w)).transpose()
    };
    let latency = match (&spec.latency_s, &spec.latency_ms) {
        (Some(_), Some(ms)) => {
            return Err(LoadError::at(
                file,
                Mark::of(&ms.referenced),
                key("latency_ms"),
                "`latency_s` and `latency_ms` both give the latency",
            )
            .hint("keep the one in the unit the document writes"));
        }
        (Some(s), None) => Some((path("latency_s", s)?, true)),
        (None, Some(ms)) => Some((path("latency_ms", ms)?, false)),
        (None, None) => None,
    };
    let mut ok = Vec::new();
    for (written, node) in spec.ok.iter().flatten() {
        let at = node.mark;
        let value = match &node.kind {
            NodeKind::Text(t) => t.clone(),
            _ => {
                return Err(LoadError::at(
                    file,
                    at,
                    key(&format!("ok.{written}")),
                    "the value of a successful call must be a scalar (`status: ok`)",
                ));
            }
        };
        ok.push((
            split(written).map_err(|why| {
                LoadError::at(file, at, key("ok"), format!("`{written}`: {why}")).hint(PATH_HINT)
            })?,
            value,
        ));
    }
    Ok(PredictionFormat {
        fields: path("fields", &spec.fields)?,
        latency,
        usage: optional("usage", &spec.usage)?,
        model: optional("model", &spec.model)?,
        cost_usd: optional("cost_usd", &spec.cost_usd)?,
        confidence: optional("confidence", &spec.confidence)?,
        ok,
        at: (file.to_path_buf(), Mark::of(&spec.fields.referenced)),
    })
}

const PATH_HINT: &str = "write a dotted path (`meta.usage`, a list index as a number: `choices.0`) or a JSON pointer (`/meta/usage`)";

fn steps(file: &Path, key: &str, written: &Spanned<String>) -> Result<Vec<String>, LoadError> {
    split(&written.value).map_err(|why| {
        LoadError::at(
            file,
            Mark::of(&written.referenced),
            key,
            format!("`{}`: {why}", written.value),
        )
        .hint(PATH_HINT)
    })
}

/// Why a path of `prediction_format` has no steps to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathFault {
    /// `''`.
    Empty,
    /// `meta..usage`, `.usage`.
    EmptyStep,
}

impl std::fmt::Display for PathFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PathFault::Empty => "an empty path",
            PathFault::EmptyStep => "a dotted path with an empty step",
        })
    }
}

/// The steps of a dotted path or a JSON pointer (`~1` is `/`, `~0` is `~`).
fn split(written: &str) -> Result<Vec<String>, PathFault> {
    if written.is_empty() {
        return Err(PathFault::Empty);
    }
    if let Some(pointer) = written.strip_prefix('/') {
        return Ok(pointer
            .split('/')
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect());
    }
    let parts: Vec<String> = written.split('.').map(str::to_owned).collect();
    if parts.iter().any(String::is_empty) {
        return Err(PathFault::EmptyStep);
    }
    Ok(parts)
}

/// The value at a path of a document, if the path reaches one.
pub(crate) fn at<'a>(doc: &'a Json, path: &[String]) -> Option<&'a Json> {
    path.iter().try_fold(doc, |node, step| match node {
        Json::Object(entries) => entries.iter().find(|(k, _)| k == step).map(|(_, v)| v),
        Json::Array(items) => step.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// Takes the value at a path out of a document (left `null` there).
pub(crate) fn take(doc: &mut Json, path: &[String]) -> Option<Json> {
    let (last, above) = path.split_last()?;
    let mut node = doc;
    for step in above {
        node = match node {
            Json::Object(entries) => entries
                .iter_mut()
                .find(|(k, _)| k == step)
                .map(|(_, v)| v)?,
            Json::Array(items) => items.get_mut(step.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    let slot = match node {
        Json::Object(entries) => entries
            .iter_mut()
            .find(|(k, _)| k == last)
            .map(|(_, v)| v)?,
        Json::Array(items) => items.get_mut(last.parse::<usize>().ok()?)?,
        _ => return None,
    };
    Some(std::mem::replace(slot, Json::Null))
}

/// A scalar as text (`true`, `200`, `ok`); `None` for a list or a mapping.
pub(crate) fn scalar_text(value: &Json) -> Option<String> {
    match value {
        Json::Null => Some("null".into()),
        Json::Bool(b) => Some(b.to_string()),
        Json::Number(n) => Some(n.to_string()),
        Json::String(s) => Some(s.clone()),
        Json::Array(_) | Json::Object(_) => None,
    }
}

/// The document's own error text: `error` (a text, or a mapping with `message`), else `message`.
pub(crate) fn said(doc: &Json) -> Option<String> {
    let text = |v: Option<&Json>| match v {
        Some(Json::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    };
    let error = at(doc, &["error".to_owned()]);
    text(error)
        .or_else(|| text(at(doc, &["error".to_owned(), "message".to_owned()])))
        .or_else(|| text(at(doc, &["message".to_owned()])))
}

/// The first `ok:` key that does not hold its success value, as a failure.
pub(crate) fn not_ok(doc: &Json, format: &PredictionFormat) -> Option<(Vec<String>, CallFailure)> {
    format.ok.iter().find_map(|(path, expected)| {
        let found = at(doc, path).and_then(scalar_text);
        (found.as_deref() != Some(expected.as_str())).then(|| {
            (
                path.clone(),
                CallFailure::NotOk {
                    key: path.join("."),
                    expected: expected.clone(),
                    found,
                    said: said(doc),
                },
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_paths_and_json_pointers_split_into_steps() {
        assert_eq!(split("meta.usage").unwrap(), ["meta", "usage"]);
        assert_eq!(split("/meta/usage").unwrap(), ["meta", "usage"]);
        assert_eq!(split("/a~1b/c~0d").unwrap(), ["a/b", "c~d"]);
        assert_eq!(
            split("meta..usage").unwrap_err().to_string(),
            "a dotted path with an empty step"
        );
        assert_eq!(split("").unwrap_err(), PathFault::Empty);
        assert_eq!(split(".usage").unwrap_err(), PathFault::EmptyStep);
    }

    #[test]
    fn a_path_reaches_into_lists_by_index() {
        let doc = crate::base::json::prediction_tree(r#"{"choices": [{"m": {"x": 1}}]}"#).unwrap();
        let steps = split("choices.0.m").unwrap();
        assert!(matches!(at(&doc, &steps), Some(Json::Object(_))));
        assert!(at(&doc, &split("choices.1").unwrap()).is_none());
    }

    #[test]
    fn the_document_s_own_error_text_is_found() {
        let said_of = |text: &str| said(&crate::base::json::prediction_tree(text).unwrap());
        assert_eq!(said_of(r#"{"error": "boom"}"#).as_deref(), Some("boom"));
        assert_eq!(
            said_of(r#"{"error": {"message": "quota"}}"#).as_deref(),
            Some("quota")
        );
        assert_eq!(said_of(r#"{"message": "busy"}"#).as_deref(), Some("busy"));
        assert_eq!(said_of(r#"{"error": null}"#), None);
    }
}
