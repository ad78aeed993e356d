//! Gold sets without a YAML file per document (`cases:` of a suite): every gold file of a
//! pattern is a case, with its schema and its metadata record; a case YAML file of the same name
//! adds to it or overrides it key by key. Also what any case reads from a gold file and from
//! `tags:` written as a mapping.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::gold_file::{GoldFile, fields_of_schema, read_gold_file, read_schema};
use super::metadata::{Keep, Table, Unmatched, read_table};
use crate::base::fs::{inside_the_project, read_text, slashed};
use crate::base::location::{LoadError, Mark, closest};
use crate::load::suite::Suite;
use crate::model::case::Case;
use crate::spec::{CaseFile, CasesSpec, Node, NodeKind};

/// What a gold set gives one of its cases beyond its YAML keys.
#[derive(Debug, Clone, Default)]
pub(crate) struct Given {
    /// The gold file, and where the suite's `cases.gold` is written.
    pub(crate) gold: Option<(PathBuf, PathBuf, Mark)>,
    /// The JSON Schema of its scored fields.
    pub(crate) schema: Option<Arc<serde_json::Value>>,
    /// Its metadata record's chosen columns.
    pub(crate) attributes: Vec<(String, String)>,
    /// Where its YAML case file would be: what `{case}` names.
    pub(crate) case_file: Option<PathBuf>,
}

/// What the end of a run lists of a gold set's metadata table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum GoldSetNote {
    /// The records whose keys name no gold file: counted, the first few named (a table of
    /// millions of records for a few cases is one note, not a line a record).
    RecordsWithoutCase {
        /// The metadata table.
        metadata: PathBuf,
        /// How many, and the first few.
        records: Unmatched,
    },
    /// A case of the set that no record names.
    CaseWithoutRecord {
        /// The metadata table.
        metadata: PathBuf,
        /// The case's test name (without pipeline).
        case: String,
    },
}

/// A gold set: a suite's `cases:`, with its schema and metadata read once.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldSet {
    /// The suite file.
    suite: PathBuf,
    /// Its folder, where the paths of `cases:` are relative to.
    folder: PathBuf,
    /// The schema of every case, or the pattern of each case's.
    schema: Option<SchemaOf>,
    /// Each case's attributes, by case name.
    attributes: HashMap<String, Vec<(String, String)>>,
    /// A mistake that fails every case of the set (a schema or metadata table that does not read).
    problem: Option<LoadError>,
}

#[derive(Debug, Clone, PartialEq)]
enum SchemaOf {
    One(Arc<serde_json::Value>),
    /// `schemas/{case}.json`, relative to the suite's folder, and where the suite writes it.
    Each(String, Mark),
}

/// One case of a gold set, found.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// The test name, as a YAML case's beside the suite would be (`docubench/1ZVqiyJZ`).
    pub id: String,
    /// `{case}`.
    pub name: String,
    /// The gold file.
    pub gold: PathBuf,
    /// Where its YAML case file would be: the suites that apply to it are those of its folder.
    pub case_file: PathBuf,
    /// The case YAML file of the same name, which adds to it or overrides it key by key.
    pub overlay: Option<PathBuf>,
    /// Its set.
    pub set: Arc<GoldSet>,
}

/// The files that a path pattern with `{case}` (relative to `folder`) matches, with their
/// `{case}`, sorted.
pub(super) fn matching(folder: &Path, template: &str) -> Vec<(String, PathBuf)> {
    let Some((prefix, suffix)) = template.split_once("{case}") else {
        return Vec::new();
    };
    let fixed = prefix.rfind('/').map_or("", |i| &prefix[..i]);
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(folder.join(fixed))
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        if entry.file_type().is_dir() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(folder) else {
            continue;
        };
        let rel = slashed(rel);
        if rel.len() > prefix.len() + suffix.len()
            && rel.starts_with(prefix)
            && rel.ends_with(suffix)
        {
            let name = rel[prefix.len()..rel.len() - suffix.len()].to_owned();
            out.push((name, entry.path().to_path_buf()));
        }
    }
    out
}

/// A gold set's schema and attributes, and the notes of its metadata table.
pub(super) fn gold_set(
    file: &Path,
    folder: &Path,
    cases: &CasesSpec,
    names: &[&str],
    id_of: &dyn Fn(&str) -> String,
) -> (GoldSet, Vec<GoldSetNote>) {
    let mut set = GoldSet {
        suite: file.to_path_buf(),
        folder: folder.to_path_buf(),
        schema: None,
        attributes: HashMap::new(),
        problem: None,
    };
    let mut notes = Vec::new();
    if let Some(schema) = &cases.schema {
        if schema.value.contains("{case}") {
            set.schema = Some(SchemaOf::Each(
                schema.value.clone(),
                Mark::of(&schema.referenced),
            ));
        } else {
            let named = (file, Mark::of(&schema.referenced), "cases.schema");
            match read_schema(&folder.join(&schema.value), named) {
                Ok(s) => set.schema = Some(SchemaOf::One(Arc::new(s))),
                Err(e) => set.problem = Some(e),
            }
        }
    }
    if let Some(metadata) = &cases.metadata {
        match attributes(file, folder, cases, metadata, names) {
            Ok((attributes, unmatched)) => {
                let path = folder.join(&metadata.value);
                if unmatched.count > 0 {
                    notes.push(GoldSetNote::RecordsWithoutCase {
                        metadata: path.clone(),
                        records: unmatched,
                    });
                }
                notes.extend(
                    names
                        .iter()
                        .filter(|n| !attributes.contains_key(**n))
                        .map(|n| GoldSetNote::CaseWithoutRecord {
                            metadata: path.clone(),
                            case: id_of(n),
                        }),
                );
                set.attributes = attributes;
            }
            Err(e) => set.problem = set.problem.take().or(Some(e)),
        }
    } else if let Some(key) = cases
        .key
        .as_ref()
        .or_else(|| cases.tags.iter().flatten().next())
    {
        set.problem = Some(
            LoadError::at(
                file,
                Mark::of(&key.referenced),
                "cases",
                "`key` and `tags` name columns of `metadata`, which is not given",
            )
            .hint("give the table of one record per case as `metadata: sources.json`"),
        );
    }
    (set, notes)
}

/// Each case's attributes from the metadata table, and the records that name no case.
type Attributes = (HashMap<String, Vec<(String, String)>>, Unmatched);

fn attributes(
    file: &Path,
    folder: &Path,
    cases: &CasesSpec,
    metadata: &crate::base::spanned::Spanned<String>,
    names: &[&str],
) -> Result<Attributes, LoadError> {
    let path = folder.join(&metadata.value);
    let at = Mark::of(&metadata.referenced);
    inside_the_project(&path, "metadata table", (file, at, "cases.metadata"))?;
    if !path.is_file() {
        return Err(LoadError::at(
            file,
            Mark::of(&metadata.referenced),
            "cases.metadata",
            format!("the metadata table `{}` does not exist", path.display()),
        )
        .hint("the path is relative to the suite's folder"));
    }
    let known: HashSet<&str> = names.iter().copied().collect();
    let keep = Keep {
        key: cases.key.as_ref().map(|k| k.value.as_str()),
        keep: &|name| known.contains(name),
    };
    let table = read_table(&path, &keep)?;
    let column = |name: &crate::base::spanned::Spanned<String>, yaml_path: &str| {
        table_column(&table, (file, yaml_path), &path, name)
    };
    let Some(key) = &cases.key else {
        return Err(LoadError::at(
            file,
            Mark::of(&metadata.referenced),
            "cases.metadata",
            "`metadata` needs `key`: the column that holds each record's case name",
        )
        .hint(format!(
            "add `key:` with one of `{}`",
            table.columns.join("`, `")
        )));
    };
    let key = column(key, "cases.key")?;
    let by_case = records_by_case(&table, &path, &key)?;
    let tags: Vec<String> = match &cases.tags {
        Some(tags) => tags
            .iter()
            .enumerate()
            .map(|(i, t)| column(t, &format!("cases.tags[{i}]")))
            .collect::<Result<_, _>>()?,
        None => table
            .columns
            .iter()
            .filter(|c| **c != key && repeats(by_case.values(), c))
            .cloned()
            .collect(),
    };
    let attributes = by_case
        .into_iter()
        .map(|(name, row)| {
            let kept = tags
                .iter()
                .filter_map(|t| row.iter().find(|(c, _)| c == t).cloned())
                .collect();
            (name, kept)
        })
        .collect();
    Ok((attributes, table.unmatched))
}

/// The column of the metadata table a suite names (`cases.key`, `cases.tags[i]`, at `at`), or
/// the error saying which columns there are.
fn table_column(
    table: &Table,
    (file, yaml_path): (&Path, &str),
    path: &Path,
    name: &crate::base::spanned::Spanned<String>,
) -> Result<String, LoadError> {
    if table.columns.contains(&name.value) {
        return Ok(name.value.clone());
    }
    let e = LoadError::at(
        file,
        Mark::of(&name.referenced),
        yaml_path,
        format!(
            "the metadata table `{}` has no column `{}`",
            path.display(),
            name.value
        ),
    );
    Err(
        match closest(&name.value, table.columns.iter().map(String::as_str)) {
            Some(best) => e.hint(format!("did you mean `{best}`?")),
            None => e.hint(format!("its columns are `{}`", table.columns.join("`, `"))),
        },
    )
}

/// The records of the metadata table at `path` by the case their `key` names: one per case.
fn records_by_case(
    table: &Table,
    path: &Path,
    key: &str,
) -> Result<HashMap<String, Vec<(String, String)>>, LoadError> {
    let mut by_case: HashMap<String, Vec<(String, String)>> = HashMap::new();
    // The table kept only the records of known cases, each with its key.
    for (line, row) in &table.rows {
        let Some((_, name)) = row.iter().find(|(c, _)| *c == key) else {
            continue;
        };
        if by_case.insert(name.clone(), row.clone()).is_some() {
            return Err(LoadError::at(
                path,
                Mark {
                    line: *line,
                    column: 1,
                },
                "",
                format!("a second record names the case `{name}` by `{key}`"),
            )
            .hint("keep one record per case"));
        }
    }
    Ok(by_case)
}

/// Whether some value of `column` is shared by two of `rows`: a column unique per case slices
/// nothing.
fn repeats<'a>(rows: impl Iterator<Item = &'a Vec<(String, String)>>, column: &str) -> bool {
    let mut seen = HashSet::new();
    rows.filter_map(|row| row.iter().find(|(c, _)| c == column))
        .any(|(_, v)| !seen.insert(v.as_str()))
}

/// Loads a gold set's case: its gold file under its suites, its YAML case file of the same name
/// over it key by key.
pub(crate) fn load_listed(
    listed: &Listed,
    rubrics_dir: &Path,
    suite: &Suite,
) -> Result<Vec<Case>, Vec<LoadError>> {
    let set = &listed.set;
    if let Some(problem) = &set.problem {
        return Err(vec![problem.clone()]);
    }
    let (file, spec): (&Path, CaseFile) = match &listed.overlay {
        Some(path) => {
            let text = read_text(path).map_err(|e| vec![e])?;
            (path, super::parse(path, &text).map_err(|e| vec![e])?)
        }
        None => (
            &listed.gold,
            super::parse(&listed.gold, "{}").map_err(|e| vec![e])?,
        ),
    };
    let schema = match &set.schema {
        None => None,
        Some(SchemaOf::One(s)) => Some(Arc::clone(s)),
        Some(SchemaOf::Each(template, at)) => {
            let path = set.folder.join(template.replace("{case}", &listed.name));
            if !path.is_file() {
                return Err(vec![
                    LoadError::file(
                        &set.suite,
                        format!(
                            "cases.schema: the schema `{}` of `{}` does not exist",
                            path.display(),
                            listed.id
                        ),
                    )
                    .hint("add it, or give one schema for the whole suite"),
                ]);
            }
            let named = (set.suite.as_path(), *at, "cases.schema");
            Some(Arc::new(read_schema(&path, named).map_err(|e| vec![e])?))
        }
    };
    let given = Given {
        gold: Some((listed.gold.clone(), set.suite.clone(), Mark::default())),
        schema,
        attributes: set
            .attributes
            .get(&listed.name)
            .cloned()
            .unwrap_or_default(),
        case_file: Some(listed.case_file.clone()),
    };
    super::load_spec(file, spec, &listed.id, rubrics_dir, suite, &given)
}

/// A case's tags written as a list, and those written as a mapping (its attributes).
type Labels = (Vec<String>, Vec<(String, String)>);

/// `tags:` as labels (a list) and attributes (a mapping of names to values).
pub(crate) fn tags_of(
    spec: &CaseFile,
    origin: &HashMap<&'static str, PathBuf>,
    file: &Path,
) -> Result<Labels, LoadError> {
    let Some(node) = &spec.tags else {
        return Ok((Vec::new(), Vec::new()));
    };
    let here = origin.get("tags").map_or(file, PathBuf::as_path);
    let scalar = |n: &Node, path: String| match &n.kind {
        NodeKind::Text(t) => Ok(t.clone()),
        _ => Err(LoadError::at(
            here,
            n.mark,
            path,
            format!("a tag must be a text, found {}", n.kind_name()),
        )
        .hint("write `tags: [invoice, fr]` or `tags: {doc_type: invoice, lang: fr}`")),
    };
    match &node.kind {
        NodeKind::Null => Ok((Vec::new(), Vec::new())),
        NodeKind::List(items) => Ok((
            items
                .iter()
                .enumerate()
                .map(|(i, n)| scalar(n, format!("tags[{i}]")))
                .collect::<Result<_, _>>()?,
            Vec::new(),
        )),
        NodeKind::Map(entries) => Ok((
            Vec::new(),
            entries
                .iter()
                .map(|(k, n)| Ok((k.clone(), scalar(n, format!("tags.{k}"))?)))
                .collect::<Result<_, LoadError>>()?,
        )),
        NodeKind::Text(_) => Err(LoadError::at(
            here,
            node.mark,
            "tags",
            "`tags` must be a list or a mapping, found a scalar",
        )
        .hint("write `tags: [invoice, fr]` or `tags: {doc_type: invoice, lang: fr}`")),
    }
}

/// The gold as its file holds it, when `gold:` names a file (or the gold set gives one and the
/// case writes none): `spec.gold` becomes the file's content (limited to the fields the case's
/// schema names), located in that file.
pub(crate) fn gold_from_file(
    spec: &mut CaseFile,
    origin: &mut HashMap<&'static str, PathBuf>,
    file: &Path,
    given: &Given,
) -> Result<Option<GoldFile>, Vec<LoadError>> {
    let read = match (&spec.gold, &given.gold) {
        (
            Some(Node {
                kind: NodeKind::Text(written),
                mark,
            }),
            _,
        ) => {
            let named_in = origin.get("gold").map_or(file, PathBuf::as_path);
            let dir = named_in.parent().unwrap_or(Path::new(""));
            Some(read_gold_file(&dir.join(written), written, named_in, *mark))
        }
        (None, Some((path, suite, mark))) => Some(read_gold_file(
            path,
            &path.display().to_string(),
            suite,
            *mark,
        )),
        _ => None,
    };
    let gold = read.transpose().map_err(|e| vec![e])?;
    if let Some(g) = &gold {
        spec.gold = Some(g.node.clone());
        origin.insert("gold", g.path.clone());
    }
    if let (Some(schema), Some(node)) = (&given.schema, &spec.gold)
        && let Some(kept) = fields_of_schema(node, schema)
    {
        spec.gold = Some(kept);
    }
    Ok(gold)
}
