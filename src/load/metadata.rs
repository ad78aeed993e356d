//! A gold set's metadata table (`metadata:` of `cases:`): a JSON array of records, JSON Lines or
//! CSV, each value read as text. A table may hold millions of records for a few cases: it is read
//! record by record, and only the records of known cases are kept; the others are counted.

use std::io::BufRead;
use std::path::Path;

use crate::base::location::{LoadError, Mark};

/// What is kept of a table: its columns, the records that name a case, and a count of the others.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Table {
    /// The columns, in the order they are first met.
    pub(crate) columns: Vec<String>,
    /// The records whose key names a case: the line each starts on (0 when not known), and its
    /// values.
    pub(crate) rows: Vec<(u64, Vec<(String, String)>)>,
    /// The records whose key names no case.
    pub(crate) unmatched: Unmatched,
}

/// The records of a table that name no case: how many, and the first few (line, key).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unmatched {
    /// How many records name no case.
    pub count: u64,
    /// The first [`Unmatched::SHOWN`] of them: the line each starts on (0 when not known), and
    /// its key.
    pub first: Vec<(u64, String)>,
}

impl Unmatched {
    /// How many of them a note names.
    pub const SHOWN: usize = 3;
}

/// Which records a table keeps: those whose `key` column holds a name `keep` accepts. Without
/// a key, none (the columns alone are read).
pub(crate) struct Keep<'a> {
    pub(crate) key: Option<&'a str>,
    pub(crate) keep: &'a dyn Fn(&str) -> bool,
}

impl Table {
    fn push(&mut self, line: u64, row: Vec<(String, String)>, keep: &Keep) {
        for (column, _) in &row {
            if !self.columns.contains(column) {
                self.columns.push(column.clone());
            }
        }
        self.offer(line, row, keep);
    }

    /// Keeps `row` when its key names a case, else counts it; a row without the key is neither.
    fn offer(&mut self, line: u64, row: Vec<(String, String)>, keep: &Keep) {
        let Some(key) = keep.key else { return };
        let Some((_, name)) = row.iter().find(|(c, _)| c == key) else {
            return;
        };
        if (keep.keep)(name) {
            self.rows.push((line, row));
            return;
        }
        self.unmatched.count += 1;
        if self.unmatched.first.len() < Unmatched::SHOWN {
            let name = name.clone();
            self.unmatched.first.push((line, name));
        }
    }
}

/// Reads the table `path` by its extension (`.json`, `.jsonl` or `.csv`), one record at a time,
/// keeping the records `keep` asks for.
pub(crate) fn read_table(path: &Path, keep: &Keep) -> Result<Table, LoadError> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let read: fn(&Path, &mut dyn BufRead, &Keep) -> Result<Table, LoadError> =
        match extension.as_str() {
            "json" => json_table,
            "jsonl" | "ndjson" => jsonl_table,
            "csv" => csv_table,
            _ => {
                return Err(LoadError::file(
                    path,
                    "a metadata table must be a `.json` array of records, `.jsonl` or `.csv`",
                )
                .hint("convert it to one of these, one record per case"));
            }
        };
    let mut reader = crate::base::fs::open_text(path)?;
    read(path, &mut reader, keep)
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

/// An error reading `path` (its bytes, or its text as UTF-8), `line` the line being read.
fn unread(path: &Path, line: u64, e: &std::io::Error) -> LoadError {
    let mark = Mark { line, column: 1 };
    if e.kind() == std::io::ErrorKind::InvalidData {
        return LoadError::at(path, mark, "", "this line is not UTF-8 text")
            .hint("save it as UTF-8");
    }
    LoadError::at(
        path,
        mark,
        "",
        format!("cannot read the file: {}", crate::base::fs::io_reason(e)),
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

/// A JSON array of records, read one record at a time (its bytes through serde_json's reader,
/// each record strictly: a duplicate key is an error).
fn json_table(path: &Path, reader: &mut dyn BufRead, keep: &Keep) -> Result<Table, LoadError> {
    let not_an_array = || {
        LoadError::file(path, "a `.json` metadata table must be an array of records").hint(
            "write `[{\"doc_id\": \"a\", \"lang\": \"en\"}, …]`, or one record a line in `.jsonl`",
        )
    };
    // The first byte that is not white space says whether it is an array, before any is read.
    loop {
        let buffer = reader.fill_buf().map_err(|e| unread(path, 0, &e))?;
        match buffer.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) if buffer[i] == b'[' => break,
            Some(_) => return Err(not_an_array()),
            None if buffer.is_empty() => return Err(not_an_array()),
            None => {
                let n = buffer.len();
                reader.consume(n);
            }
        }
    }
    let mut table = Table::default();
    let mut refused: Option<LoadError> = None;
    let records = Records {
        path,
        keep,
        table: &mut table,
        refused: &mut refused,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let read = serde::de::DeserializeSeed::deserialize(records, &mut de).and_then(|()| de.end());
    match (read, refused) {
        (_, Some(e)) => Err(e),
        (Err(e), None) => Err(json_error(path, &e, 0)),
        (Ok(()), None) => Ok(table),
    }
}

/// The records of a JSON array, each given to the table as it is read; a record that is not an
/// object stops the reading, its mistake kept in `refused`.
struct Records<'a> {
    path: &'a Path,
    keep: &'a Keep<'a>,
    table: &'a mut Table,
    refused: &'a mut Option<LoadError>,
}

impl<'de> serde::de::DeserializeSeed<'de> for Records<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Records<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of records")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(item) = seq.next_element::<crate::base::json::StrictJson>()? {
            match record(self.path, 0, item.0) {
                Ok(row) => self.table.push(0, row, self.keep),
                Err(e) => {
                    *self.refused = Some(e);
                    return Err(serde::de::Error::custom("a record is not an object"));
                }
            }
        }
        Ok(())
    }
}

/// JSON Lines, read a line at a time.
fn jsonl_table(path: &Path, reader: &mut dyn BufRead, keep: &Keep) -> Result<Table, LoadError> {
    let mut table = Table::default();
    let mut line = String::new();
    let mut number = 0u64;
    loop {
        line.clear();
        number += 1;
        if reader
            .read_line(&mut line)
            .map_err(|e| unread(path, number, &e))?
            == 0
        {
            return Ok(table);
        }
        if line.trim().is_empty() {
            continue;
        }
        let value =
            crate::base::json::strict_json(&line).map_err(|e| json_error(path, &e, number - 1))?;
        table.push(number, record(path, number, value)?, keep);
    }
}

/// CSV as RFC 4180 writes it: a header line (each column once), commas, fields in double quotes
/// where they hold a comma, a quote (doubled) or a line break.
fn csv_table(path: &Path, reader: &mut dyn BufRead, keep: &Keep) -> Result<Table, LoadError> {
    let mut records = CsvRecords::new(path, reader);
    let Some((_, header)) = records.next_record()? else {
        return Ok(Table::default());
    };
    let header = csv_header(path, header)?;
    let mut table = Table {
        columns: header.clone(),
        ..Table::default()
    };
    while let Some((line, fields)) = records.next_record()? {
        if fields.len() == 1 && fields[0].1.is_empty() {
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
            .zip(fields.into_iter().map(|(_, v)| v))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        table.offer(line, row, keep);
    }
    Ok(table)
}

/// The columns of a CSV header, each named once: a column named twice would leave a record's
/// value to whichever is read first.
fn csv_header(path: &Path, header: Vec<(u64, String)>) -> Result<Vec<String>, LoadError> {
    let mut columns: Vec<String> = Vec::with_capacity(header.len());
    for (column, name) in header {
        if let Some(first) = columns.iter().position(|c| *c == name) {
            return Err(LoadError::at(
                path,
                Mark { line: 1, column },
                "",
                format!(
                    "the header names the column `{name}` twice (columns {} and {})",
                    first + 1,
                    columns.len() + 1
                ),
            )
            .hint("rename or remove one of them: each column of the header is named once"));
        }
        columns.push(name);
    }
    Ok(columns)
}

/// A CSV record: the line it starts on, and its fields, each with the column it starts at.
type CsvRecord = (u64, Vec<(u64, String)>);

/// The records of a CSV text, read one at a time from its reader.
struct CsvRecords<'a> {
    path: &'a Path,
    reader: &'a mut dyn BufRead,
    /// The lines read so far.
    line: u64,
    buffer: String,
}

impl<'a> CsvRecords<'a> {
    fn new(path: &'a Path, reader: &'a mut dyn BufRead) -> CsvRecords<'a> {
        CsvRecords {
            path,
            reader,
            line: 0,
            buffer: String::new(),
        }
    }

    /// The next record; `None` at the end of the text.
    fn next_record(&mut self) -> Result<Option<CsvRecord>, LoadError> {
        let start = self.line + 1;
        let (mut fields, mut field, mut field_at) = (Vec::new(), String::new(), 1u64);
        let (mut quoted, mut quote_at) = (false, (start, 1u64));
        loop {
            self.buffer.clear();
            let read = self.reader.read_line(&mut self.buffer);
            if read.map_err(|e| unread(self.path, self.line + 1, &e))? == 0 {
                break;
            }
            self.line += 1;
            let mut column = 0u64;
            let mut chars = self.buffer.chars().peekable();
            while let Some(c) = chars.next() {
                column += 1;
                match (quoted, c) {
                    (true, '"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        column += 1;
                        field.push('"');
                    }
                    (true, '"') => quoted = false,
                    (true, c) => field.push(c),
                    (false, '"') if field.is_empty() => {
                        quoted = true;
                        quote_at = (self.line, column);
                    }
                    (false, ',') => {
                        fields.push((field_at, std::mem::take(&mut field)));
                        field_at = column + 1;
                    }
                    (false, '\r') if chars.peek() == Some(&'\n') => {}
                    (false, '\n') => {
                        fields.push((field_at, field));
                        return Ok(Some((start, fields)));
                    }
                    (false, c) => field.push(c),
                }
            }
        }
        if quoted {
            return Err(LoadError::at(
                self.path,
                Mark {
                    line: quote_at.0,
                    column: quote_at.1,
                },
                "",
                "this quoted field is never closed",
            )
            .hint("end it with `\"`; a quote inside a field is written twice: `\"\"`"));
        }
        if self.line < start {
            return Ok(None);
        }
        fields.push((field_at, field));
        Ok(Some((start, fields)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps every record whose `id` is not `x…`.
    fn read(
        table: fn(&Path, &mut dyn BufRead, &Keep) -> Result<Table, LoadError>,
        name: &str,
        text: &str,
    ) -> Result<Table, LoadError> {
        let keep = Keep {
            key: Some("id"),
            keep: &|name| !name.starts_with('x'),
        };
        table(Path::new(name), &mut text.as_bytes(), &keep)
    }

    #[test]
    fn csv_fields_are_quoted_as_rfc_4180_says() {
        let t = read(
            csv_table,
            "m.csv",
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
        let e = read(csv_table, "m.csv", "id,n\na\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (2, "this record has 1 fields, the header 2")
        );
        let e = read(csv_table, "m.csv", "id\n\"a\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        // A quoted line break: the next record starts on the line after it.
        let t = read(csv_table, "m.csv", "id,n\na,\"1\n2\"\nb,3").unwrap();
        assert_eq!(t.rows[0].1[1].1, "1\n2");
        assert_eq!(t.rows[1].0, 4);
    }

    #[test]
    fn a_csv_column_named_twice_is_refused_where_the_second_is() {
        let e = read(csv_table, "m.csv", "id,lang,\"lang\"\na,en,fr\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 9));
        assert_eq!(
            e.message,
            "the header names the column `lang` twice (columns 2 and 3)"
        );
        assert!(e.hint.unwrap().starts_with("rename or remove one of them"));
    }

    #[test]
    fn records_that_name_no_case_are_counted_and_the_first_few_kept() {
        let mut text = String::from("id,lang\na,en\n");
        for i in 0..1000 {
            text.push_str(&format!("x{i},fr\n"));
        }
        let t = read(csv_table, "m.csv", &text).unwrap();
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.unmatched.count, 1000);
        assert_eq!(
            t.unmatched.first,
            [(3, "x0".into()), (4, "x1".into()), (5, "x2".into())]
        );
    }

    #[test]
    fn json_lines_are_located_by_their_line() {
        let e = read(jsonl_table, "m.jsonl", "{\"a\": 1}\n\n{\"a\": }\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 7));
        let t = read(
            jsonl_table,
            "m.jsonl",
            "{\"id\": 1, \"b\": [1], \"c\": true}\n{\"id\": \"x\", \"d\": 1}\n",
        )
        .unwrap();
        assert_eq!(
            t.rows,
            vec![(
                1,
                vec![("id".into(), "1".into()), ("c".into(), "true".into())]
            )]
        );
        // A nested value is no column.
        assert_eq!(t.columns, ["id", "c", "d"]);
        assert_eq!(t.unmatched.count, 1);
    }

    #[test]
    fn a_json_array_is_read_a_record_at_a_time() {
        let t = read(
            json_table,
            "m.json",
            " [{\"id\": \"a\", \"n\": 1}, {\"id\": \"x1\"}]\n",
        )
        .unwrap();
        assert_eq!(
            t.rows,
            vec![(0, vec![("id".into(), "a".into()), ("n".into(), "1".into())])]
        );
        assert_eq!(t.unmatched.first, [(0, "x1".into())]);
        let e = read(json_table, "m.json", "{\"id\": \"a\"}").unwrap_err();
        assert!(e.message.contains("must be an array"), "{}", e.message);
        let e = read(json_table, "m.json", "[1]").unwrap_err();
        assert_eq!(
            e.message,
            "a metadata record must be a JSON object of columns"
        );
        let e = read(json_table, "m.json", "[{\"id\": 1, \"id\": 2}]").unwrap_err();
        assert!(e.message.contains("duplicate key `id`"), "{}", e.message);
        let e = read(json_table, "m.json", "[{\"id\": 1}] x").unwrap_err();
        assert!(e.message.starts_with("not valid JSON"), "{}", e.message);
    }
}
