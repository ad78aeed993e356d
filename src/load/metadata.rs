//! A gold set's metadata table (`metadata:` of `cases:`): a JSON array of records, JSON Lines or
//! CSV, each value read as text.

use std::path::Path;

use crate::base::fs::read_text;
use crate::base::location::{LoadError, Mark};

/// A table of records, each a list of (column, value as text) with the line it starts on.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Table {
    /// The columns, in the order they are first met.
    pub(crate) columns: Vec<String>,
    /// The records: the line each starts on (0 when not known), and its values.
    pub(crate) rows: Vec<(u64, Vec<(String, String)>)>,
}

impl Table {
    fn push(&mut self, line: u64, row: Vec<(String, String)>) {
        for (column, _) in &row {
            if !self.columns.contains(column) {
                self.columns.push(column.clone());
            }
        }
        self.rows.push((line, row));
    }
}

/// Reads the table `path` by its extension: `.json`, `.jsonl` or `.csv`.
pub(crate) fn read_table(path: &Path) -> Result<Table, LoadError> {
    let text = read_text(path)?;
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "json" => json_table(path, &text),
        "jsonl" | "ndjson" => jsonl_table(path, &text),
        "csv" => csv_table(path, &text),
        _ => Err(LoadError::file(
            path,
            "a metadata table must be a `.json` array of records, `.jsonl` or `.csv`",
        )
        .hint("convert it to one of these, one record per case")),
    }
}

/// A JSON syntax error located in `path`, `line_offset` lines below where the parsed text starts.
pub(super) fn json_error(path: &Path, e: &serde_json::Error, line_offset: u64) -> LoadError {
    let message = e.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    LoadError::at(
        path,
        Mark {
            line: e.line() as u64 + line_offset,
            column: e.column() as u64,
        },
        "",
        format!("not valid JSON: {message}"),
    )
}

/// A record's values as text; nested values and nulls are left out.
fn record(
    path: &Path,
    line: u64,
    value: serde_json::Value,
) -> Result<Vec<(String, String)>, LoadError> {
    let serde_json::Value::Object(map) = value else {
        return Err(LoadError::at(
            path,
            Mark { line, column: 1 },
            "",
            "a metadata record must be a JSON object of columns",
        ));
    };
    Ok(map
        .into_iter()
        .filter_map(|(k, v)| {
            let text = match v {
                serde_json::Value::String(s) => s,
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Bool(b) => b.to_string(),
                _ => return None,
            };
            Some((k, text))
        })
        .collect())
}

fn json_table(path: &Path, text: &str) -> Result<Table, LoadError> {
    let value = crate::base::json::strict_json(text).map_err(|e| json_error(path, &e, 0))?;
    let serde_json::Value::Array(items) = value else {
        return Err(LoadError::file(
            path,
            "a `.json` metadata table must be an array of records",
        )
        .hint("write `[{\"doc_id\": \"a\", \"lang\": \"en\"}, …]`, or one record a line in `.jsonl`"));
    };
    let mut table = Table::default();
    for item in items {
        table.push(0, record(path, 0, item)?);
    }
    Ok(table)
}

fn jsonl_table(path: &Path, text: &str) -> Result<Table, LoadError> {
    let mut table = Table::default();
    for (i, line) in text.lines().enumerate() {
        let number = i as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value =
            crate::base::json::strict_json(line).map_err(|e| json_error(path, &e, number - 1))?;
        table.push(number, record(path, number, value)?);
    }
    Ok(table)
}

/// CSV as RFC 4180 writes it: a header line, commas, fields in double quotes where they hold a
/// comma, a quote (doubled) or a line break.
fn csv_table(path: &Path, text: &str) -> Result<Table, LoadError> {
    let records = csv_records(path, text)?;
    let mut records = records.into_iter();
    let Some((_, header)) = records.next() else {
        return Ok(Table::default());
    };
    let mut table = Table {
        columns: header.clone(),
        rows: Vec::new(),
    };
    for (line, fields) in records {
        if fields.len() == 1 && fields[0].is_empty() {
            continue;
        }
        if fields.len() != header.len() {
            return Err(LoadError::at(
                path,
                Mark { line, column: 1 },
                "",
                format!(
                    "this record has {} fields, the header {}",
                    fields.len(),
                    header.len()
                ),
            )
            .hint("quote a field that holds a comma: `\"Paris, France\"`"));
        }
        let row = header
            .iter()
            .cloned()
            .zip(fields)
            .filter(|(_, v)| !v.is_empty())
            .collect();
        table.rows.push((line, row));
    }
    Ok(table)
}

/// The records of a CSV text, each with the line it starts on.
fn csv_records(path: &Path, text: &str) -> Result<Vec<(u64, Vec<String>)>, LoadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records = Vec::new();
    let (mut fields, mut field) = (Vec::new(), String::new());
    let (mut line, mut start, mut quoted, mut quote_at) = (1u64, 1u64, false, (1u64, 1u64));
    let mut column = 0u64;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        column += 1;
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                column += 1;
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, '\n') => {
                line += 1;
                column = 0;
                field.push('\n');
            }
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => {
                quoted = true;
                quote_at = (line, column);
            }
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                fields.push(std::mem::take(&mut field));
                records.push((start, std::mem::take(&mut fields)));
                line += 1;
                column = 0;
                start = line;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(LoadError::at(
            path,
            Mark {
                line: quote_at.0,
                column: quote_at.1,
            },
            "",
            "this quoted field is never closed",
        )
        .hint("end it with `\"`; a quote inside a field is written twice: `\"\"`"));
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        records.push((start, fields));
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_as_rfc_4180_says() {
        let t = csv_table(
            Path::new("m.csv"),
            "id,name,n\r\na,\"Paris, \"\"FR\"\"\",1\nb,,2\n",
        )
        .unwrap();
        assert_eq!(t.columns, ["id", "name", "n"]);
        assert_eq!(
            t.rows,
            vec![
                (
                    2,
                    vec![
                        ("id".into(), "a".into()),
                        ("name".into(), "Paris, \"FR\"".into()),
                        ("n".into(), "1".into())
                    ]
                ),
                (3, vec![("id".into(), "b".into()), ("n".into(), "2".into())]),
            ]
        );
        let e = csv_table(Path::new("m.csv"), "id,n\na\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (2, "this record has 1 fields, the header 2")
        );
        let e = csv_table(Path::new("m.csv"), "id\n\"a\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
    }

    #[test]
    fn json_lines_are_located_by_their_line() {
        let e = jsonl_table(Path::new("m.jsonl"), "{\"a\": 1}\n\n{\"a\": }\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 7));
        let t = jsonl_table(
            Path::new("m.jsonl"),
            "{\"a\": 1, \"b\": [1], \"c\": true}\n",
        )
        .unwrap();
        assert_eq!(
            t.rows,
            vec![(
                1,
                vec![("a".into(), "1".into()), ("c".into(), "true".into())]
            )]
        );
    }
}
