//! A `.csv` gold or prediction in KIEval's own layout, read as its published reader reads it,
//! for the `kieval` profile: blocks apart by a blank line; a block that starts with a digit (in any
//! script, as Python's `isdigit` and `int` read it: `٣` is 3) is a
//! group (that digit its name, then a line of keys, then one line of values per item, tab
//! apart), any other block holds entities outside groups (its first line a heading, then one
//! `key<TAB>value` a line). Cells are not unquoted, as KIEval splits on tabs alone.
//!
//! The document becomes fields: a group named `0` a list of items (mappings of its keys), an
//! entity its list of values (the empty marker `<empty>` dropped, as KIEval drops it).

use std::path::Path;

use crate::base::location::{LoadError, Mark};
use crate::metrics::kieval::{EMPTY, Heading, heading};
use crate::spec::{Node, NodeKind};

/// A field being read: its name, the line it starts at, its items or values.
type Field = (String, u64, Vec<Node>);

/// The document of a KIEval CSV file's `text`, as a mapping of fields; its mistakes are located
/// in `path`.
pub(crate) fn read(path: &Path, text: &str) -> Result<Node, LoadError> {
    // Python reads the file with universal newlines.
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut groups: Vec<Field> = Vec::new();
    let mut entities: Vec<Field> = Vec::new();
    let mut line = 1u64;
    for block in text.split("\n\n") {
        let start = line;
        line += block.matches('\n').count() as u64 + 2;
        let Some(first) = block.chars().next() else {
            continue;
        };
        let lines: Vec<&str> = block.split('\n').collect();
        // A digit in any script starts a group, as Python's `isdigit` and `int` read it.
        match heading(first) {
            Heading::Group(n) => group(path, &mut groups, n.to_string(), &lines, start)?,
            Heading::Entities => entity_lines(path, &mut entities, &lines, start)?,
            Heading::Refused => {
                return Err(LoadError::at(
                    path,
                    Mark {
                        line: start,
                        column: 1,
                    },
                    "",
                    format!(
                        "this block starts with `{first}`, a digit to Python's `isdigit` that `int` cannot read: KIEval's reader stops on this file"
                    ),
                )
                .hint("number a group with a decimal digit (`0`, `1`, …), or start an entity block with a heading that is no digit"));
            }
        }
    }
    if let Some((name, at, _)) = entities
        .iter()
        .find(|(name, _, _)| groups.iter().any(|(g, _, _)| g == name))
    {
        return Err(LoadError::at(
            path,
            mark(*at),
            "",
            format!("`{name}` names both a group and an entity"),
        )
        .hint("give the entity a key that is not a group's digit"));
    }
    let fields = groups
        .into_iter()
        .chain(entities)
        .map(|(name, at, items)| {
            (
                name,
                Node {
                    kind: NodeKind::List(items),
                    mark: mark(at),
                },
            )
        })
        .collect();
    Ok(Node {
        kind: NodeKind::Map(fields),
        mark: mark(1),
    })
}

fn mark(line: u64) -> Mark {
    Mark { line, column: 1 }
}

fn text(value: &str, line: u64) -> Node {
    Node {
        kind: NodeKind::Text(value.to_owned()),
        mark: mark(line),
    }
}

/// The list of the field `name`, made when it is new.
fn list_of<'a>(fields: &'a mut Vec<Field>, name: &str, line: u64) -> &'a mut Vec<Node> {
    let at = match fields.iter().position(|(k, _, _)| k == name) {
        Some(i) => i,
        None => {
            fields.push((name.to_owned(), line, Vec::new()));
            fields.len() - 1
        }
    };
    &mut fields[at].2
}

fn group(
    path: &Path,
    groups: &mut Vec<Field>,
    name: String,
    lines: &[&str],
    start: u64,
) -> Result<(), LoadError> {
    let keys: Vec<&str> = lines.get(1).map_or(Vec::new(), |l| l.split('\t').collect());
    header_once(path, &keys, start + 1)?;
    let mut items = Vec::new();
    for (i, row) in lines.iter().enumerate().skip(2) {
        if row.is_empty() {
            continue;
        }
        let at = start + i as u64;
        // Keys and values paired as far as both go (the keys are each named once).
        let entries: Vec<(String, Node)> = keys
            .iter()
            .zip(row.split('\t'))
            .map(|(k, v)| ((*k).to_owned(), text(v, at)))
            .collect();
        if !entries.is_empty() {
            items.push(Node {
                kind: NodeKind::Map(entries),
                mark: mark(at),
            });
        }
    }
    if !items.is_empty() {
        list_of(groups, &name, start).extend(items);
    }
    Ok(())
}

/// A group's line of keys (its header, on `line`), each key named once: KIEval's reader keeps
/// the last of two values of one key without a word, and which was meant cannot be known.
fn header_once(path: &Path, keys: &[&str], line: u64) -> Result<(), LoadError> {
    let mut column = 1u64;
    for (i, key) in keys.iter().enumerate() {
        if let Some(first) = keys[..i].iter().position(|k| k == key) {
            return Err(LoadError::at(
                path,
                Mark { line, column },
                "",
                format!(
                    "this group's line of keys names `{key}` twice (keys {} and {})",
                    first + 1,
                    i + 1
                ),
            )
            .hint("rename or remove one of them: each key of a group is named once"));
        }
        column += key.chars().count() as u64 + 1;
    }
    Ok(())
}

fn entity_lines(
    path: &Path,
    entities: &mut Vec<Field>,
    lines: &[&str],
    start: u64,
) -> Result<(), LoadError> {
    for (i, row) in lines.iter().enumerate().skip(1) {
        if row.is_empty() {
            continue;
        }
        let at = start + i as u64;
        let Some((key, value)) = row.split_once('\t') else {
            return Err(LoadError::at(
                path,
                mark(at),
                "",
                format!("a KIEval entity line is `key<TAB>value`, found `{row}`"),
            )
            .hint(
                "separate the key from its value with a tab; a group block starts with its digit",
            ));
        };
        if value != EMPTY {
            list_of(entities, key, at).push(text(value, at));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::value::Value;

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn groups_and_entities_are_read_as_kieval_reads_them() {
        let text = "0\r\nnm\tprice\r\ntea\t3\r\ncake\t<empty>\r\n\r\nheading\r\ndate\t1/2\r\ntel\t<empty>\r\ndate\t1/3\r\n\r\n";
        let node = read(Path::new("g.csv"), text).unwrap();
        assert_eq!(
            node.to_value(),
            Value::Map(vec![
                (
                    "0".into(),
                    Value::List(vec![
                        Value::Map(vec![("nm".into(), t("tea")), ("price".into(), t("3"))]),
                        Value::Map(vec![("nm".into(), t("cake")), ("price".into(), t(EMPTY))]),
                    ])
                ),
                ("date".into(), Value::List(vec![t("1/2"), t("1/3")])),
            ])
        );
    }

    #[test]
    fn a_group_key_named_twice_is_refused_where_the_second_is() {
        let e = read(
            Path::new("g.csv"),
            "head\ndate\t1/2\n\n0\nnm\tprice\tnm\ntea\t3\tx\n",
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (5, 10));
        assert_eq!(
            e.message,
            "this group's line of keys names `nm` twice (keys 1 and 3)"
        );
    }

    #[test]
    fn an_entity_line_without_a_tab_is_located() {
        let e = read(Path::new("g.csv"), "0\na\n1\n\nhead\ndate 1/2\n").unwrap_err();
        assert_eq!(e.line, 6);
        assert!(e.message.contains("`date 1/2`"), "{}", e.message);
    }
}
