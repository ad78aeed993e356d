//! Rubric entries -> checked rubrics: kinds, checks, penalties, and `include:` of rubric sets
//! (nested, with cycles and missing sets reported where the include is written).

use std::path::{Path, PathBuf};

use regex::Regex;
use serde_saphyr::Spanned;

use super::{DEFAULT_PENALTY, Here, read_text};
use crate::error::{LoadError, closest};
use crate::rubric::{Check, Rubric, RubricKind};
use crate::spec::{Mark, Node, NodeKind, RubricEntry, RubricSetFile, parse_yaml};

/// Resolves rubric entries against the rubric sets folder and the case's gold fields.
pub(super) struct Sets<'a> {
    /// The rubric sets folder.
    pub(super) dir: &'a Path,
    /// The case's gold field names, for checks that need gold.
    pub(super) gold: &'a [&'a str],
    /// The sets being included, outermost first: (canonical path, name), to catch cycles.
    pub(super) stack: Vec<(PathBuf, String)>,
}

impl Sets<'_> {
    /// Adds the rubrics of one entry (a rubric, or an include) to `out`.
    pub(super) fn resolve(
        &mut self,
        file: &Path,
        path: &str,
        entry: &Spanned<RubricEntry>,
        out: &mut Vec<Rubric>,
    ) -> Result<(), LoadError> {
        let rubrics_dir = self.dir;
        let mark = Mark::of(&entry.referenced);
        let e = &entry.value;
        let here = Here { file };
        if let Some(name) = &e.include {
            if e.must_right.is_some()
                || e.easy_wrong.is_some()
                || check_keys(e).next().is_some()
                || e.field.is_some()
            {
                return Err(here
                    .err(mark, path, "`include` stands alone in its entry")
                    .hint("put the rubric in an entry of its own"));
            }
            let set_file = find_set(rubrics_dir, &name.value).ok_or_else(|| {
                let available = available_sets(rubrics_dir);
                let err = here.err(
                    Mark::of(&name.referenced),
                    &format!("{path}.include"),
                    format!(
                        "rubric set `{}` not found: no `{}` or `.yml`",
                        name.value,
                        rubrics_dir.join(format!("{}.yaml", name.value)).display()
                    ),
                );
                match closest(&name.value, available.iter().map(String::as_str)) {
                    Some(best) => err.hint(format!("did you mean `{best}`?")),
                    None if available.is_empty() => err.hint(format!(
                        "create it, or point --rubrics at the folder of rubric sets (now `{}`)",
                        rubrics_dir.display()
                    )),
                    None => err.hint(format!("available sets: {}", available.join(", "))),
                }
            })?;
            let key = std::fs::canonicalize(&set_file).unwrap_or_else(|_| set_file.clone());
            if self.stack.iter().any(|(p, _)| *p == key) {
                let mut chain: Vec<String> =
                    self.stack.iter().map(|(_, n)| format!("`{n}`")).collect();
                chain.push(format!("`{}`", name.value));
                return Err(here
                    .err(
                        Mark::of(&name.referenced),
                        &format!("{path}.include"),
                        format!(
                            "rubric sets include each other in a cycle: {}",
                            chain.join(" -> ")
                        ),
                    )
                    .hint("remove one of the includes"));
            }
            let source = read_text(&set_file)?;
            let set: RubricSetFile = parse_yaml(&set_file, &source)?;
            self.stack.push((key, name.value.clone()));
            let first = out.len();
            for (i, inner) in set.rubrics.iter().enumerate() {
                self.resolve(&set_file, &format!("rubrics[{i}]"), inner, out)?;
            }
            self.stack.pop();
            // The outermost include is the line of the case file a reader looks for.
            for rubric in &mut out[first..] {
                rubric.included_at = Some((file.to_path_buf(), Mark::of(&name.referenced).line));
            }
            return Ok(());
        }
        out.push(rubric(&here, path, mark, e, self.gold)?);
        Ok(())
    }
}

fn find_set(dir: &Path, name: &str) -> Option<PathBuf> {
    ["yaml", "yml"]
        .iter()
        .map(|ext| dir.join(format!("{name}.{ext}")))
        .find(|p| p.is_file())
}

fn available_sets(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e.path().strip_prefix(dir).ok()?;
            let ext = rel.extension()?.to_str()?;
            matches!(ext, "yaml" | "yml")
                .then(|| rel.with_extension("").to_string_lossy().replace('\\', "/"))
        })
        .collect();
    names.sort();
    names
}

const CHECKS: [&str; 8] = [
    "exact",
    "min_anls",
    "equals",
    "one_of",
    "contains",
    "not_contains",
    "matches",
    "present",
];

fn check_keys(e: &RubricEntry) -> impl Iterator<Item = &'static str> + '_ {
    let given = [
        e.exact.is_some(),
        e.min_anls.is_some(),
        e.equals.is_some(),
        e.one_of.is_some(),
        e.contains.is_some(),
        e.not_contains.is_some(),
        e.matches.is_some(),
        e.present.is_some(),
    ];
    CHECKS
        .iter()
        .zip(given)
        .filter(|(_, g)| *g)
        .map(|(k, _)| *k)
}

fn rubric(
    here: &Here,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
    gold: &[&str],
) -> Result<Rubric, LoadError> {
    let (kind, label) = match (&e.must_right, &e.easy_wrong) {
        (Some(l), None) => (RubricKind::MustRight, l),
        (None, Some(l)) => (RubricKind::EasyWrong, l),
        (Some(_), Some(_)) => {
            return Err(here
                .err(
                    mark,
                    path,
                    "a rubric is either `must_right` or `easy_wrong`, not both",
                )
                .hint("split it into two rubrics"));
        }
        (None, None) => {
            return Err(here.err(mark, path, "a rubric needs a kind and a label")
                .hint("start it with `must_right: LABEL` (a failure closes the gate) or `easy_wrong: LABEL` (a failure costs a penalty)"));
        }
    };
    if label.value.trim().is_empty() {
        return Err(here
            .err(
                Mark::of(&label.referenced),
                &format!("{path}.{}", kind.key()),
                "the rubric's label is empty",
            )
            .hint(
                "say what the rubric checks, e.g. `must_right: total is the tax-inclusive amount`",
            ));
    }
    let checks: Vec<&str> = check_keys(e).collect();
    if checks.len() != 1 {
        let message = if checks.is_empty() {
            format!("rubric `{}` has no check", label.value)
        } else {
            format!(
                "rubric `{}` has {} checks ({}); a rubric has exactly one",
                label.value,
                checks.len(),
                checks.join(", ")
            )
        };
        return Err(here.err(mark, path, message).hint(format!(
            "use one of {}; write several rubrics for several checks",
            CHECKS.map(|c| format!("`{c}`")).join(", ")
        )));
    }
    let check = check(here, path, e)?;
    let field = e.field.as_ref().map(|f| f.value.clone());
    if check.needs_gold() && field.is_none() {
        return Err(here
            .err(
                mark,
                path,
                format!(
                    "`{}` compares a field with its gold, so the rubric needs `field:`",
                    checks[0]
                ),
            )
            .hint("add `field: NAME`"));
    }
    if let (true, Some(f)) = (check.needs_gold(), &e.field)
        && !gold.contains(&f.value.as_str())
    {
        let name = &f.value;
        return Err(here.err(Mark::of(&f.referenced), &format!("{path}.field"), format!(
            "`{}` compares `{name}` with its gold, but gold has no `{name}`", checks[0]
        ))
        .hint(format!("add `{name}` under `gold:`, or use a check that needs no gold, such as `equals` or `present`")));
    }
    let penalty = match (&e.penalty, kind) {
        (Some(p), RubricKind::MustRight) => {
            return Err(here
                .err(
                    Mark::of(&p.referenced),
                    &format!("{path}.penalty"),
                    "a `must_right` rubric has no penalty: its failure closes the gate",
                )
                .hint("remove `penalty`, or make the rubric `easy_wrong`"));
        }
        (Some(p), RubricKind::EasyWrong) if !(p.value > 0.0 && p.value <= 1.0) => {
            return Err(here
                .err(
                    Mark::of(&p.referenced),
                    &format!("{path}.penalty"),
                    format!("penalty {} is outside (0, 1]", p.value),
                )
                .hint("use a value such as 0.1, the default"));
        }
        (Some(p), RubricKind::EasyWrong) => p.value,
        (None, RubricKind::EasyWrong) => DEFAULT_PENALTY,
        (None, RubricKind::MustRight) => 0.0,
    };
    let normalize = e
        .normalize
        .as_ref()
        .map(|n| here.normalize(n, &format!("{path}.normalize")))
        .transpose()?;
    Ok(Rubric {
        label: label.value.clone(),
        kind,
        field,
        normalize,
        penalty,
        check,
        file: here.file.to_path_buf(),
        line: mark.line,
        included_at: None,
    })
}

fn check(here: &Here, path: &str, e: &RubricEntry) -> Result<Check, LoadError> {
    if let Some(exact) = &e.exact {
        if !exact.value {
            return Err(here
                .err(
                    Mark::of(&exact.referenced),
                    &format!("{path}.exact"),
                    "`exact: false` checks nothing",
                )
                .hint(
                    "write `exact: true`, or use `not_contains` / `min_anls` for a looser check",
                ));
        }
        return Ok(Check::Exact);
    }
    if let Some(min) = &e.min_anls {
        if !(0.0..=1.0).contains(&min.value) {
            return Err(here.err(
                Mark::of(&min.referenced),
                &format!("{path}.min_anls"),
                format!("`min_anls` is {}, outside [0, 1]", min.value),
            ));
        }
        return Ok(Check::MinAnls(min.value));
    }
    if let Some(node) = &e.equals {
        return Ok(Check::Equals(scalar(
            here,
            node,
            &format!("{path}.equals"),
        )?));
    }
    if let Some(node) = &e.one_of {
        let p = format!("{path}.one_of");
        return match &node.kind {
            NodeKind::List(items) if !items.is_empty() => Ok(Check::OneOf(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, n)| scalar(here, n, &format!("{p}[{i}]")))
                    .collect::<Result<_, _>>()?,
            )),
            _ => Err(here
                .err(node.mark, &p, "`one_of` must be a non-empty list")
                .hint("write `one_of: [a, b]`")),
        };
    }
    if let Some(node) = &e.contains {
        return Ok(Check::Contains(texts(
            here,
            node,
            &format!("{path}.contains"),
        )?));
    }
    if let Some(node) = &e.not_contains {
        return Ok(Check::NotContains(texts(
            here,
            node,
            &format!("{path}.not_contains"),
        )?));
    }
    if let Some(pattern) = &e.matches {
        if pattern.value.is_empty() {
            return Err(here.err(Mark::of(&pattern.referenced), &format!("{path}.matches"), "an empty pattern matches everything")
                .hint("write the pattern the value must match, anchored with ^ and $ for a whole-value match"));
        }
        return Regex::new(&pattern.value)
            .map(Check::Matches)
            .map_err(|err| {
                let detail = err
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .trim()
                    .trim_start_matches("error: ")
                    .to_owned();
                here.err(
                    Mark::of(&pattern.referenced),
                    &format!("{path}.matches"),
                    format!("invalid regular expression: {detail}"),
                )
                .hint("the syntax is Rust's `regex` crate; quote the pattern in YAML")
            });
    }
    if let Some(present) = &e.present {
        return Ok(Check::Present(present.value));
    }
    Err(here.err(Mark::default(), path, "rubric has no check"))
}

fn scalar(here: &Here, node: &Node, path: &str) -> Result<String, LoadError> {
    match &node.kind {
        NodeKind::Text(t) => Ok(t.clone()),
        NodeKind::Null => Ok(String::new()),
        _ => Err(here.err(
            node.mark,
            path,
            format!("expected a single value, found {}", node.kind_name()),
        )),
    }
}

fn texts(here: &Here, node: &Node, path: &str) -> Result<Vec<String>, LoadError> {
    let texts = texts_as_written(here, node, path)?;
    if texts.iter().any(|t| t.trim().is_empty()) {
        return Err(here
            .err(
                node.mark,
                path,
                "an empty text checks nothing: every value contains it",
            )
            .hint("give the words to look for"));
    }
    Ok(texts)
}

fn texts_as_written(here: &Here, node: &Node, path: &str) -> Result<Vec<String>, LoadError> {
    match &node.kind {
        NodeKind::List(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, n)| scalar(here, n, &format!("{path}[{i}]")))
            .collect(),
        NodeKind::List(_) => Err(here
            .err(node.mark, path, "the list is empty")
            .hint("give at least one text")),
        NodeKind::Text(t) => Ok(vec![t.clone()]),
        _ => Err(here.err(
            node.mark,
            path,
            format!(
                "expected a text or a list of texts, found {}",
                node.kind_name()
            ),
        )),
    }
}
