//! YAML text -> serde types, with errors located by file, line, column and YAML path.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;

use super::block_yaml;
use super::node::{SplitDecimal, decimal_part, number_like, take_split_decimal, with_source};
use crate::base::location::Mark;
use crate::base::location::{LoadError, closest};

/// Parses a YAML document into `T`; scalars read as [`super::Node`] keep their written text.
///
/// Duplicate keys, unknown keys, wrong types and syntax errors come back as a [`LoadError`] with
/// the position, the YAML path and, for a misspelt key, the closest valid one.
pub fn parse_yaml<T: DeserializeOwned>(file: &Path, source: &str) -> Result<T, LoadError> {
    // Most case files are block YAML, read in a fifth of serde-saphyr's time; it reads the rest.
    if let Some(value) = with_source(source, || block_yaml::read(source)) {
        return Ok(value);
    }
    // Tracking the YAML path costs an allocation per key and half the parse; a file that reads is
    // parsed without it, and only a file in error is parsed again to name where.
    match parse_with(source, false) {
        Ok(value) => Ok(value),
        Err(_) => match parse_with::<T>(source, true) {
            Ok(value) => Ok(value),
            Err(error) => Err(located(file, source, &error.0, &error.1)),
        },
    }
}

/// One parse of `source`, with the YAML path of an error when `track_path`.
pub(super) fn parse_with<T: DeserializeOwned>(
    source: &str,
    track_path: bool,
) -> Result<T, Box<(String, serde_saphyr::Error)>> {
    let mut options = serde_saphyr::Options::default();
    options.with_snippet = false;
    // `.nan` and `.inf` reach the node as text; numeric checks then refuse them with a reason.
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::AsString;
    let mut path = String::new();
    let result = with_source(source, || {
        serde_saphyr::with_deserializer_from_str_with_options(source, options, |de| {
            if !track_path {
                return T::deserialize(de);
            }
            serde_path_to_error::deserialize(de).map_err(|e| {
                path = clean_path(e.path());
                e.into_inner()
            })
        })
    });
    result.map_err(|e| Box::new((path, e)))
}

fn located(file: &Path, source: &str, path: &str, error: &serde_saphyr::Error) -> LoadError {
    if let Some(split) = take_split_decimal() {
        return split_decimal(file, path, split, false);
    }
    let mark = error
        .location()
        .map(|l| Mark::of(&l.into()))
        .unwrap_or_default();
    let text = error.to_string();
    let text = strip_position(&text);
    // In a flow mapping of fixed keys (a rubric, thresholds) the second half of a French
    // decimal is an unknown key of digits: the same mistake, said the same way.
    if let Some(split) = unknown_digits(text).and_then(|key| split_before(source, mark, key)) {
        let parent = path.rsplit_once('.').map_or("", |(p, _)| p);
        let numeric = takes_a_number(&split.key);
        return split_decimal(file, parent, split, numeric);
    }
    let (message, mut hint) = explain(text);
    if let Some(misplaced) = unknown_key(text).and_then(|key| misplaced(path, key)) {
        hint = Some(misplaced);
    }
    // A duplicate key is named in the path too: `gold.total`.
    let path = match text.strip_prefix("duplicate mapping key: ") {
        Some(rest) => {
            let key = rest
                .split(", set DuplicateKeyPolicy")
                .next()
                .unwrap_or(rest);
            if path.is_empty() {
                key.to_owned()
            } else {
                format!("{path}.{key}")
            }
        }
        None => path.to_owned(),
    };
    let mut e = LoadError::at(file, mark, path, message);
    e.hint = hint;
    e
}

/// A French decimal that a flow mapping split in two, which would otherwise compare its first
/// half silently, located at the number, where the fix goes: quotes, or for a key that takes a
/// number (`numeric`) a decimal point.
fn split_decimal(file: &Path, path: &str, split: SplitDecimal, numeric: bool) -> LoadError {
    let SplitDecimal {
        mark,
        key,
        meant,
        read: (number, parts),
    } = split;
    let path = if path.is_empty() {
        key.clone()
    } else {
        format!("{path}.{key}")
    };
    let keys = parts
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (a_key, each) = if parts.len() == 1 {
        ("a key", "")
    } else {
        ("keys", " each")
    };
    LoadError::at(
        file,
        mark,
        path,
        format!(
            "`{meant}` in a flow mapping is read by YAML as `{key}: {number}` and {a_key} {keys}{each} holding null: a comma there separates entries"
        ),
    )
    .hint(if numeric {
        format!(
            "write it with a decimal point: `{key}: {}`",
            meant.replacen(',', ".", 1)
        )
    } else {
        format!("quote it: `{key}: \"{meant}\"`")
    })
}

/// Whether a key of goldgate's files takes a number (`min_anls`, `penalty`): a decimal comma
/// there is fixed with a point, not quotes.
fn takes_a_number(key: &str) -> bool {
    key.starts_with("min_")
        || key.starts_with("max_")
        || ["penalty", "tolerance", "timeout_s", "easy_wrong_penalty"].contains(&key)
}

/// The key of an unknown-key error when it begins with digits (`26` of `equals: 79,26`, `26€`
/// of `equals: 79,26€`).
fn unknown_digits(text: &str) -> Option<&str> {
    let key = text.strip_prefix("unknown field `")?.split('`').next()?;
    decimal_part(key).then_some(key)
}

/// The French decimal a key of digits at `mark` ends, read back from the line it is on:
/// `{ …, equals: 79,26 }` with the key `26`.
fn split_before(source: &str, mark: Mark, key: &str) -> Option<SplitDecimal> {
    let line = source
        .lines()
        .nth(usize::try_from(mark.line).ok()?.checked_sub(1)?)?;
    let column = usize::try_from(mark.column).ok()?.checked_sub(1)?;
    let at = line.char_indices().nth(column).map(|(i, _)| i)?;
    // A key written with its value (`95: 1`) is meant as a key.
    let after = line[at..].strip_prefix(key)?.trim_start();
    if after.starts_with(':') {
        return None;
    }
    // `equals: 79` and nothing but the comma (and spaces) between it and the key.
    let before = line[..at].trim_end().strip_suffix(',')?;
    let (entry_start, number) = before.rsplit_once(':')?;
    let name = entry_start
        .rsplit([',', '{'])
        .next()?
        .trim()
        .trim_matches(['"', '\'']);
    let written = number.trim();
    if name.is_empty() || !number_like(written) {
        return None;
    }
    let number_at = before.len() - number.trim_start().len();
    Some(SplitDecimal {
        mark: Mark {
            line: mark.line,
            column: line[..number_at].chars().count() as u64 + 1,
        },
        key: name.to_owned(),
        meant: format!("{written},{key}"),
        read: (written.to_owned(), vec![key.to_owned()]),
    })
}

/// serde-saphyr appends ` at line N, column M`; the position is rendered up front instead.
fn strip_position(text: &str) -> &str {
    match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => text,
    }
}

/// The key of an unknown-key error.
fn unknown_key(text: &str) -> Option<&str> {
    text.strip_prefix("unknown field `")?.split('`').next()
}

/// Where a key that is unknown at `path` (its YAML path, the key last) belongs, when it is a
/// key of goldgate's files written in the wrong place.
fn misplaced(path: &str, key: &str) -> Option<String> {
    let parent = path
        .strip_suffix(key)
        .map(|p| p.trim_end_matches('.'))
        .unwrap_or(path);
    let in_thresholds = parent == "thresholds" || parent.ends_with(".thresholds");
    match key {
        "min_iou" if !in_thresholds && parent != "aggregate" => Some(
            "`min_iou` bounds the mean IoU in `thresholds`/`aggregate`; the IoU from which a field is grounded is `grounded_iou`".to_owned(),
        ),
        "min_automation_rate"
        | "min_pass_rate"
        | "min_gate_pass_rate"
        | "min_mean_score"
        | "min_must_right_accuracy"
        | "min_easy_wrong_accuracy"
        | "min_pass_all_k"
        | "min_pass_any_k"
        | "max_flip_rate"
            if in_thresholds =>
        {
            Some(format!(
                "`{key}` bounds a suite's aggregate: it belongs in a suite's `aggregate:`"
            ))
        }
        // The keys of repeated attempts, each in its one place.
        "repeat" if parent.is_empty() => Some(
            "the command of a suite repeats with `run: { command: […], repeat: 3 }`".to_owned(),
        ),
        "pass" if parent == "defaults" => Some(
            "`pass` is a suite's key, beside its `run:` (`pass: majority`), not a case's".to_owned(),
        ),
        _ => None,
    }
}

/// An unknown key or value, with the closest one the format knows, or the list of them.
fn unknown_name(text: &str) -> Option<(String, Option<String>)> {
    for (prefix, what, otherwise) in [
        ("unknown field `", "key", "expected one of"),
        ("unknown variant `", "value", "use one of"),
    ] {
        if let Some(rest) = text.strip_prefix(prefix) {
            let (word, expected) = rest.split_once('`').unwrap_or((rest, ""));
            let expected: Vec<&str> = expected
                .trim_start_matches(", expected one of ")
                .trim_start_matches(", expected ")
                .split(", ")
                .map(|k| k.trim_matches('`'))
                .filter(|k| !k.is_empty())
                .collect();
            let hint = match closest(word, expected.iter().copied()) {
                Some(best) => format!("did you mean `{best}`?"),
                None => format!(
                    "{otherwise} {}",
                    expected
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            return Some((format!("unknown {what} `{word}`"), Some(hint)));
        }
    }
    None
}

/// A file over the YAML reader's budget: what it went over, and the fix.
fn over_budget(breach: &str) -> (String, Option<String>) {
    let hint = Some("split it into several cases, or keep only what is compared".to_owned());
    if breach.starts_with("Nodes") {
        return (
            "more than 250000 values, more than goldgate reads in one YAML file".into(),
            hint,
        );
    }
    if breach.starts_with("Depth") {
        return (
            "nested more than 64 levels deep, more than goldgate reads".into(),
            Some("flatten the value: no gold set needs that depth".into()),
        );
    }
    (
        format!("the file goes over goldgate's YAML budget ({breach})"),
        hint,
    )
}

/// Rewrites the parser's wording into a message and a fix.
fn explain(text: &str) -> (String, Option<String>) {
    if let Some(explained) = unknown_name(text) {
        return explained;
    }
    if let Some(rest) = text.strip_prefix("duplicate mapping key: ") {
        let key = rest
            .split(", set DuplicateKeyPolicy")
            .next()
            .unwrap_or(rest);
        return (
            format!("duplicate key `{key}`"),
            Some("a key may appear once in a mapping; remove or rename the other one".into()),
        );
    }
    if let Some(breach) = text.strip_prefix("budget breached: ") {
        return over_budget(breach);
    }
    if let Some(field) = text.strip_prefix("missing field `") {
        let field = field.trim_end_matches('`');
        return (
            format!("missing key `{field}`"),
            Some(format!("add `{field}:`")),
        );
    }
    if text.starts_with("cannot deserialize null into string") {
        return (
            "expected a text, found null".into(),
            Some("quote it, as `\"~\"` or `\"null\"`, if the text itself is meant".into()),
        );
    }
    if text.starts_with("multiple YAML documents detected") {
        return (
            "a file holds one YAML document, this one has several".into(),
            Some("remove the `---` separator, or split the file in two".into()),
        );
    }
    if let Some(ty) = text.strip_prefix("invalid ")
        && ["u8", "u16", "u32", "u64", "i32", "i64", "usize"].contains(&ty)
    {
        return (
            "expected a whole number".into(),
            Some("write a number such as `5`".into()),
        );
    }
    if text.starts_with("invalid floating point") {
        return (
            "expected a number".into(),
            Some("write a number such as `0.9`".into()),
        );
    }
    if text == "expected sequence start" {
        return (
            "expected a list".into(),
            Some("write `[a, b]`, or one `- item` per line".into()),
        );
    }
    if text == "expected mapping start" {
        return (
            "expected a mapping".into(),
            Some("write `key: value` pairs".into()),
        );
    }
    if text.contains("invalid type") || text.starts_with("invalid boolean") {
        return (text.replace("invalid type: ", "wrong type: "), None);
    }
    (text.to_owned(), None)
}

/// Renders serde_path_to_error's path the way users write it, dropping the `value` step that
/// every `Spanned` wrapper adds after the segment it wraps.
fn clean_path(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    let mut last_consumed = true;
    for segment in path.iter() {
        match segment {
            Segment::Map { key } if key == "value" && !last_consumed => last_consumed = true,
            Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
                last_consumed = false;
            }
            Segment::Seq { index } => {
                out.push_str(&format!("[{index}]"));
                last_consumed = false;
            }
            Segment::Enum { variant } => {
                out.push_str(&format!(".{variant}"));
                last_consumed = false;
            }
            Segment::Unknown => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{CaseFile, NodeKind};

    fn parse(src: &str) -> Result<CaseFile, LoadError> {
        parse_yaml(Path::new("c.yaml"), src)
    }

    #[test]
    fn the_yaml_budget_is_said_in_words() {
        // On a stack the size of the main thread's, where goldgate reads its files (a debug
        // build's deserializer needs more than a test thread's 2 MiB for 60 levels).
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(|| {
                let fits = format!("gold:\n  a: {}1{}\n", "[".repeat(60), "]".repeat(60));
                assert!(parse(&fits).is_ok());
                let deep = format!("gold:\n  a: {}1{}\n", "[".repeat(70), "]".repeat(70));
                let e = parse(&deep).unwrap_err();
                assert_eq!(
                    e.message,
                    "nested more than 64 levels deep, more than goldgate reads"
                );
                let many = format!("gold:\n  a: [{}]\n", vec!["1"; 250_001].join(", "));
                let e = parse(&many).unwrap_err();
                assert_eq!(
                    e.message,
                    "more than 250000 values, more than goldgate reads in one YAML file"
                );
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn scalars_keep_their_written_text() {
        let case = parse("gold:\n  a: 0173\n  b: 1234.50\n  c: no\n  d: 1e3\n  e: \"~\"\n  f: ~\n  g: &x 1.10\n  h: *x\nrubrics: []\n").unwrap();
        let gold = case.gold.unwrap();
        let map = gold.as_map().unwrap();
        let text = |i: usize| match &map[i].1.kind {
            NodeKind::Text(t) => t.clone(),
            NodeKind::Null => "<null>".into(),
            _ => "<tree>".into(),
        };
        let got: Vec<String> = (0..8).map(text).collect();
        assert_eq!(
            got,
            [
                "0173", "1234.50", "no", "1e3", "~", "<null>", "1.10", "1.10"
            ]
        );
    }

    #[test]
    fn unknown_key_gets_position_path_and_suggestion() {
        let e = parse("gold: {a: x}\nrubrics:\n  - must-right: x\n    exact: true\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:3:5: rubrics[0].must-right: unknown key `must-right` (did you mean `must_right`?)"
        );
    }

    #[test]
    fn duplicate_key_is_an_error() {
        let e = parse("gold:\n  total: 1\n  total: 2\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3));
        assert!(e.message.contains("duplicate key `total`"), "{e}");
    }

    #[test]
    fn wrong_number_is_located() {
        let e = parse("thresholds:\n  min_anls: high\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:2:13: thresholds.min_anls: expected a number (write a number such as `0.9`)"
        );
    }

    #[test]
    fn a_french_decimal_split_by_a_flow_mapping_is_an_error() {
        let e = parse("gold: { total: 79,26 }\nrubrics: []\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:1:16: gold.total: `79,26` in a flow mapping is read by YAML as `total: 79` and a key `26` holding null: a comma there separates entries (quote it: `total: \"79,26\"`)"
        );
        let e = parse("gold:\n  lines:\n    - { n: 1,234,56, q: x }\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 12));
        assert_eq!(e.yaml_path, "gold.lines[0].n");
        assert!(
            e.message
                .contains("`n: 1` and keys `234`, `56` each holding null"),
            "{e}"
        );
        assert_eq!(e.hint.as_deref(), Some("quote it: `n: \"1,234,56\"`"));
        let e = parse("prediction: { a: x, total: -1 234,5 }\n").unwrap_err();
        assert_eq!((e.yaml_path.as_str(), e.column), ("prediction.total", 28));
        // In a flow mapping of fixed keys the second half is an unknown key of digits.
        let e = parse("rubrics:\n  - { must_right: a, field: t, equals: 79,26 }\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.yaml:2:40: rubrics[0].equals: `79,26` in a flow mapping is read by YAML as `equals: 79` and a key `26` holding null: a comma there separates entries (quote it: `equals: \"79,26\"`)"
        );
        let e = parse("thresholds: { min_anls: 0,95 }\n").unwrap_err();
        assert_eq!(
            (e.line, e.column, e.yaml_path.as_str()),
            (1, 25, "thresholds.min_anls")
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("write it with a decimal point: `min_anls: 0.95`")
        );
        // A unit after the decimals ends the number, in any flow mapping.
        for (text, meant, key, parts) in [
            ("gold: { total: 79,26€ }\n", "79,26€", "total", "`26€`"),
            (
                "gold: { total: 79,26 EUR, n: 1 }\n",
                "79,26 EUR",
                "total",
                "`26 EUR`",
            ),
            ("gold: { rate: 5,5% }\n", "5,5%", "rate", "`5%`"),
            (
                "prediction: { total: 79,26€ }\n",
                "79,26€",
                "total",
                "`26€`",
            ),
            ("gold: { n: 1,234,56€ }\n", "1,234,56€", "n", "`234`, `56€`"),
            (
                "rubrics:\n  - { must_right: a, field: t, equals: 5,5% }\n",
                "5,5%",
                "equals",
                "`5%`",
            ),
        ] {
            let e = parse(text).unwrap_err();
            let number = meant.split(',').next().unwrap();
            assert!(
                e.message.starts_with(&format!(
                    "`{meant}` in a flow mapping is read by YAML as `{key}: {number}` and "
                )) && e.message.contains(parts),
                "{text}: {e}"
            );
            assert_eq!(
                e.hint,
                Some(format!("quote it: `{key}: \"{meant}\"`")),
                "{text}"
            );
        }
        // Any other unknown key is said as before.
        let e = parse("thresholds: { min_anls: 0.9, 95: 1 }\n").unwrap_err();
        assert_eq!(e.message, "unknown key `95`");
    }

    #[test]
    fn what_is_no_split_decimal_reads() {
        let case = parse(
            "gold:\n  a: 79,26\n  b: { total: \"79,26\" }\n  c: { x: 79, 26: null }\n  d: { x: ab, 26 }\n  e: [79,26]\n",
        )
        .unwrap();
        let gold = case.gold.unwrap().to_value();
        assert_eq!(
            serde_json::to_string(&gold.to_json()).unwrap(),
            r#"{"a":"79,26","b":{"total":"79,26"},"c":{"x":"79","26":null},"d":{"x":"ab","26":null},"e":["79","26"]}"#
        );
    }
}
