//! `gold:` a path to a `.json` or `.yaml` file instead of a mapping: its values keep their written
//! text as YAML gold does, its mistakes are located in that file, and a JSON file's typed values
//! are kept for the profiles that compare types.

use std::path::{Path, PathBuf};

use crate::base::fs::{inside_the_project, read_text};
use crate::base::location::{LoadError, Mark};
use crate::spec::{Node, NodeKind};

/// A gold file, read.
#[derive(Debug, Clone)]
pub(crate) struct GoldFile {
    /// The file, where its mistakes are located.
    pub(crate) path: PathBuf,
    /// Its content, each scalar as written (`0173`, `1234.50`).
    pub(crate) node: Node,
    /// A JSON file's content as serde_json reads it, types and all.
    pub(crate) json: Option<serde_json::Value>,
}

/// The extensions a gold file may have (`.csv`: KIEval's layout, for `profile: kieval`).
const GOLD_EXTENSIONS: [&str; 4] = ["json", "yaml", "yml", "csv"];

/// Reads the gold file `path`, named `written` where `gold:` names it (`at` in `named_in`).
pub(crate) fn read_gold_file(
    path: &Path,
    written: &str,
    named_in: &Path,
    at: Mark,
) -> Result<GoldFile, LoadError> {
    let path = path.to_path_buf();
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !GOLD_EXTENSIONS.contains(&extension.as_str()) {
        return Err(LoadError::at(
            named_in,
            at,
            "gold",
            format!("the gold file `{written}` must end in `.json`, `.yaml` or `.yml` (or `.csv` under `profile: kieval`)"),
        )
        .hint("name a .json or .yaml file of the gold fields, or write them as a mapping under `gold:`"));
    }
    // Review writes where the gold is: a gold outside the project is never read, so never edited.
    inside_the_project(&path, "gold file", (named_in, at, "gold"))?;
    if !path.is_file() {
        return Err(LoadError::at(
            named_in,
            at,
            "gold",
            format!("the gold file `{}` does not exist", path.display()),
        )
        .hint("the path is relative to the file that names it"));
    }
    let text = read_text(&path)?;
    if extension == "csv" {
        let node = super::kieval_csv::read(&path, &text)?;
        return Ok(GoldFile {
            path,
            node,
            json: None,
        });
    }
    let json = if extension == "json" {
        Some(typed_json(&path, &text)?)
    } else {
        None
    };
    // JSON is YAML: read as YAML nodes, a number keeps the text it is written with.
    let node: Node = super::parse(&path, &text)?;
    if node.as_map().is_none() {
        return Err(LoadError::at(
            &path,
            node.mark,
            "",
            format!(
                "a gold file must hold a mapping of field names to values, found {}",
                node.kind_name()
            ),
        )
        .hint("write one key per field at the top of the file"));
    }
    Ok(GoldFile { path, node, json })
}

/// A JSON file as serde_json reads it (duplicate keys refused), its syntax errors located.
fn typed_json(path: &Path, text: &str) -> Result<serde_json::Value, LoadError> {
    crate::base::json::strict_json(text).map_err(|e| super::metadata::json_error(path, &e, 0))
}

/// The gold `node` limited to the fields a JSON Schema names, in its order: a property the
/// schema lists is a field even when the gold has none (`null`, "no value"); a gold key the
/// schema does not list is not scored. `None` when the schema has no `properties` mapping.
pub(crate) fn fields_of_schema(node: &Node, schema: &serde_json::Value) -> Option<Node> {
    let properties = schema.get("properties")?.as_object()?;
    let entries = node.as_map().unwrap_or_default();
    let kept = properties
        .keys()
        .map(|name| {
            let value = entries.iter().find(|(k, _)| k == name).map_or_else(
                || Node {
                    kind: NodeKind::Null,
                    mark: node.mark,
                },
                |(_, v)| v.clone(),
            );
            (name.clone(), value)
        })
        .collect();
    Some(Node {
        kind: NodeKind::Map(kept),
        mark: node.mark,
    })
}

/// A JSON Schema file, read; `named` where the suite names it.
pub(crate) fn read_schema(
    path: &Path,
    named: crate::base::fs::Named,
) -> Result<serde_json::Value, LoadError> {
    inside_the_project(path, "schema", named)?;
    let text = read_text(path)?;
    let schema = typed_json(path, &text)?;
    if schema.get("properties").is_none_or(|p| !p.is_object()) {
        return Err(LoadError::file(
            path,
            "a schema must be a JSON Schema object with `properties`: the fields it scores",
        )
        .hint("give the fields as `\"properties\": { \"total\": { \"type\": \"string\" } }`"));
    }
    Ok(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_json_gold_keeps_the_text_of_its_numbers_and_its_types() {
        let dir = tempfile::tempdir().unwrap();
        written(
            dir.path(),
            "g.json",
            "{\"no\": \"0173\", \"total\": 1234.50, \"n\": 1e3, \"e\": \"\\u00e9\"}",
        );
        let g = read_gold_file(
            &dir.path().join("g.json"),
            "g.json",
            &dir.path().join("c.yaml"),
            Mark::default(),
        )
        .unwrap();
        assert_eq!(
            g.node.to_value(),
            crate::base::value::Value::Map(vec![
                ("no".into(), crate::base::value::Value::Text("0173".into())),
                (
                    "total".into(),
                    crate::base::value::Value::Text("1234.50".into())
                ),
                ("n".into(), crate::base::value::Value::Text("1e3".into())),
                ("e".into(), crate::base::value::Value::Text("é".into())),
            ])
        );
        // Typed, and each number as written.
        let typed: serde_json::Value =
            serde_json::from_str(r#"{"no": "0173", "total": 1234.50, "n": 1e3, "e": "é"}"#)
                .unwrap();
        assert_eq!(g.json, Some(typed));
    }

    #[test]
    fn a_json_mistake_is_located_in_the_gold_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = written(dir.path(), "g.json", "{\n  \"a\": 1,\n  \"b\": ,\n}\n");
        let e = read_gold_file(
            &dir.path().join("g.json"),
            "g.json",
            &dir.path().join("c.yaml"),
            Mark::default(),
        )
        .unwrap_err();
        assert_eq!(e.file, p);
        assert_eq!((e.line, e.column), (3, 8));
        assert_eq!(e.message, "not valid JSON: expected value");
    }

    #[test]
    fn a_case_keeps_its_json_gold_typed_and_where_it_was_read() {
        let dir = tempfile::tempdir().unwrap();
        written(
            dir.path(),
            "g.json",
            "{\"total\": 1234.50, \"items\": [1, \"a\"]}",
        );
        written(dir.path(), "p.json", "{\"total\": \"1234.50\"}");
        let case = written(
            dir.path(),
            "c.yaml",
            "gold: g.json\nprediction: p.json\nthresholds: { min_anls: 1 }\n",
        );
        let suite = crate::load::suite::Suite::default();
        let cases = crate::load::load_case_in(&case, "c", dir.path(), &suite).unwrap();
        let typed: serde_json::Value =
            serde_json::from_str(r#"{"total": 1234.50, "items": [1, "a"]}"#).unwrap();
        assert_eq!(cases[0].gold_json.as_deref(), Some(&typed));
        assert_eq!(cases[0].gold_file, Some(dir.path().join("g.json")));
        let gold = cases[0].gold.as_ref().unwrap();
        assert_eq!(
            gold[0].variants,
            [crate::base::value::Value::Text("1234.50".into())]
        );
    }

    #[test]
    fn a_schema_names_the_fields() {
        let node: Node = crate::spec::parse_yaml(Path::new("g.yaml"), "a: 1\nz: 2\n").unwrap();
        let schema = serde_json::json!({"properties": {"b": {}, "a": {}}});
        let kept = fields_of_schema(&node, &schema).unwrap();
        let names: Vec<&str> = kept
            .as_map()
            .unwrap()
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(names, ["b", "a"]);
        assert_eq!(kept.as_map().unwrap()[0].1.kind, NodeKind::Null);
    }
}
