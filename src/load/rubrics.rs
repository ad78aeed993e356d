//! Rubric entries -> checked rubrics: kinds, checks, penalties, and `include:` of rubric sets
//! (nested, with cycles and missing sets reported where the include is written).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::base::spanned::Spanned;
use regex::Regex;

use super::in_file::InFile;
use crate::base::field_path::FieldPath;
use crate::base::fs::{by_its_words, outside_the_project, project_root, read_text};
use crate::base::location::Mark;
use crate::base::location::{LoadError, closest};
use crate::base::normalize::Normalize;
use crate::base::typed::{parse_date, read_number};
use crate::model::metric::SLACK;
use crate::model::rubric::{Check, Probe, Rubric, RubricKind};
use crate::spec::{Node, NodeKind, RubricEntry, RubricSetFile};

/// Resolves rubric entries against the rubric sets folder and the case's gold fields.
pub(super) struct Sets<'a> {
    /// The rubric sets folder.
    pub(super) dir: &'a Path,
    /// The case's gold field names, for checks that need gold.
    pub(super) gold: &'a [&'a str],
    /// The sets being included, outermost first: (canonical path, name), to catch cycles.
    pub(super) stack: Vec<(PathBuf, String)>,
    /// The default Easy-Wrong penalty (the suite's, or 0.1).
    pub(super) penalty: f64,
    /// The case's normalization, which a rubric without `normalize` compares under.
    pub(super) normalize: Normalize,
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
        let mark = Mark::of(&entry.referenced);
        let e = &entry.value;
        let here = InFile { file };
        if let Some(name) = &e.include {
            return self.include(&here, path, mark, e, name, out);
        }
        out.push(rubric(
            &here,
            path,
            mark,
            e,
            self.penalty,
            (self.gold, self.normalize),
        )?);
        Ok(())
    }

    /// `include:` the rubrics of a set, resolved in turn, as if written where the include is.
    fn include(
        &mut self,
        here: &InFile,
        path: &str,
        mark: Mark,
        e: &RubricEntry,
        name: &Spanned<String>,
        out: &mut Vec<Rubric>,
    ) -> Result<(), LoadError> {
        if e.must_right.is_some()
            || e.easy_wrong.is_some()
            || check_keys(e).next().is_some()
            || e.field.is_some()
        {
            return Err(here
                .err(mark, path, "`include` stands alone in its entry")
                .hint("put the rubric in an entry of its own"));
        }
        let set_file = find_set(self.dir, &name.value)
            .ok_or_else(|| set_not_found(here, self.dir, path, name))?;
        refuse_set_outside(here, self.dir, path, name, &set_file)?;
        let key = std::fs::canonicalize(&set_file).unwrap_or_else(|_| set_file.clone());
        self.refuse_cycle(here, path, name, &key)?;
        let source = read_text(&set_file)?;
        let set: RubricSetFile = super::parse(&set_file, &source)?;
        self.stack.push((key, name.value.clone()));
        let first = out.len();
        for (i, inner) in set.rubrics.iter().enumerate() {
            self.resolve(&set_file, &format!("rubrics[{i}]"), inner, out)?;
        }
        self.stack.pop();
        // The outermost include is the line of the case file a reader looks for.
        for rubric in &mut out[first..] {
            rubric.included_at = Some((here.file.to_path_buf(), Mark::of(&name.referenced).line));
        }
        Ok(())
    }

    /// A set already being included (`key`, its canonical path) would include itself forever.
    fn refuse_cycle(
        &self,
        here: &InFile,
        path: &str,
        name: &Spanned<String>,
        key: &Path,
    ) -> Result<(), LoadError> {
        if !self.stack.iter().any(|(p, _)| *p == key) {
            return Ok(());
        }
        let mut chain: Vec<String> = self.stack.iter().map(|(_, n)| format!("`{n}`")).collect();
        chain.push(format!("`{}`", name.value));
        Err(here
            .err(
                Mark::of(&name.referenced),
                &format!("{path}.include"),
                format!(
                    "rubric sets include each other in a cycle: {}",
                    chain.join(" -> ")
                ),
            )
            .hint("remove one of the includes"))
    }
}

/// The error of an include whose set is not in the rubric sets folder, with the nearest name.
fn set_not_found(
    here: &InFile,
    rubrics_dir: &Path,
    path: &str,
    name: &Spanned<String>,
) -> LoadError {
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
            "create it, or point --rubrics at the folder of rubric sets, now `{}`",
            rubrics_dir.display()
        )),
        None => err.hint(format!("available sets: {}", available.join(", "))),
    }
}

/// An included set that leads out of the project is refused, unless the rubrics folder itself was
/// named outside it.
fn refuse_set_outside(
    here: &InFile,
    rubrics_dir: &Path,
    path: &str,
    name: &Spanned<String>,
    set_file: &Path,
) -> Result<(), LoadError> {
    let reader = here.file.parent().unwrap_or(Path::new("."));
    // A rubrics folder named outside the project (`--rubrics /shared/sets`) is the user's
    // choice: what is in it is read wherever it is. One inside the project by its name
    // (the default `rubrics/` beside the cases) is project content, and a link in it that
    // leads out is refused like any other.
    let named_outside =
        project_root(reader).is_some_and(|root| !by_its_words(rubrics_dir).starts_with(root));
    let in_rubrics = named_outside
        && std::fs::canonicalize(rubrics_dir)
            .ok()
            .zip(std::fs::canonicalize(set_file).ok())
            .is_some_and(|(dir, set)| set.starts_with(dir));
    if let Some(root) = outside_the_project(reader, set_file).filter(|_| !in_rubrics) {
        return Err(here
            .err(
                Mark::of(&name.referenced),
                &format!("{path}.include"),
                format!(
                    "rubric set `{}` is `{}`, outside the project `{}`, and goldgate reads nothing outside it",
                    name.value,
                    set_file.display(),
                    root.display()
                ),
            )
            .hint("name a set of the rubrics folder, inside the project"));
    }
    Ok(())
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
            matches!(ext, "yaml" | "yml").then(|| crate::base::fs::slashed(&rel.with_extension("")))
        })
        .collect();
    names.sort();
    names
}

fn check_keys(e: &RubricEntry) -> impl Iterator<Item = &'static str> + '_ {
    Check::KEYS.into_iter().filter(|key| e.gives(key))
}

/// What a check is loaded against: the case's gold field names, and the normalization it
/// compares under when it sets none of its own (the case's, or that of the check around it).
type Around<'a> = (&'a [&'a str], Normalize);

fn rubric(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
    default_penalty: f64,
    around: Around,
) -> Result<Rubric, LoadError> {
    let (kind, label) = kind_and_label(here, path, mark, e)?;
    let probe = probe(here, path, mark, e, around, false)?;
    let penalty = penalty(here, path, e.penalty.as_ref(), kind, default_penalty)?;
    Ok(Rubric {
        label: label.value.clone(),
        kind,
        probe,
        penalty,
        file: here.file.to_path_buf(),
        line: mark.line,
        column: mark.column,
        included_at: None,
    })
}

/// A rubric's kind, by the key its label is given under, and the label, which says something.
fn kind_and_label<'e>(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &'e RubricEntry,
) -> Result<(RubricKind, &'e Spanned<String>), LoadError> {
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
    Ok((kind, label))
}

/// What a failure of a rubric costs: nothing for a `must_right` (it closes the gate), its
/// `penalty` or the default for an `easy_wrong`, a penalty a score can see.
fn penalty(
    here: &InFile,
    path: &str,
    penalty: Option<&Spanned<f64>>,
    kind: RubricKind,
    default_penalty: f64,
) -> Result<f64, LoadError> {
    Ok(match (penalty, kind) {
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
        // A score is compared with its bound within the slack: a smaller penalty lowers it by
        // less than any `min_score`, even 1.0, can see.
        (Some(p), RubricKind::EasyWrong) if p.value <= SLACK => {
            return Err(here
                .err(
                    Mark::of(&p.referenced),
                    &format!("{path}.penalty"),
                    format!("penalty {} is within the slack of 1e-9 that scores are compared with, so a failure of this rubric could not fail even `min_score: 1.0`", p.value),
                )
                .hint("use a value such as 0.1, the default"));
        }
        (Some(p), RubricKind::EasyWrong) => p.value,
        (None, RubricKind::EasyWrong) => default_penalty,
        (None, RubricKind::MustRight) => 0.0,
    })
}

/// A check with its field and normalization; `nested` for the entries of `all`, `any`, `not`.
fn probe(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
    (gold, normalize_around): Around,
    nested: bool,
) -> Result<Probe, LoadError> {
    if nested {
        refuse_rubric_keys(here, path, mark, e)?;
    }
    let key = only_check(here, path, mark, e, nested)?;
    let field = field(here, path, e)?;
    refuse_options_of_other_checks(here, path, e)?;
    let normalize = e
        .normalize
        .as_ref()
        .map(|n| here.normalize(n, &format!("{path}.normalize")))
        .transpose()?;
    let around = (gold, normalize.unwrap_or(normalize_around));
    let check = check(here, path, mark, e, around)?;
    match &field {
        // A nested check reads the field of the rubric around it.
        None if !nested => needs_field(here, path, mark, key, &check)?,
        Some(f) if check.needs_gold() => gold_has_field(here, path, mark, e, key, f, gold)?,
        _ => {}
    }
    Ok(Probe {
        field,
        normalize,
        check,
    })
}

/// A nested check is only a check: the keys of a rubric have no meaning inside it.
fn refuse_rubric_keys(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
) -> Result<(), LoadError> {
    let rubric_only = [
        ("must_right", e.must_right.is_some()),
        ("easy_wrong", e.easy_wrong.is_some()),
        ("penalty", e.penalty.is_some()),
        ("include", e.include.is_some()),
    ];
    if let Some((key, _)) = rubric_only.iter().find(|(_, given)| *given) {
        return Err(here
            .err(
                mark,
                path,
                format!("`{key}` belongs to a rubric, not to a nested check"),
            )
            .hint("a nested check holds a check and, if needed, `field` and `normalize`"));
    }
    Ok(())
}

/// The key of the entry's one check: none, or several, is an error.
fn only_check(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
    nested: bool,
) -> Result<&'static str, LoadError> {
    let checks: Vec<&str> = check_keys(e).collect();
    if let [key] = checks[..] {
        return Ok(key);
    }
    let what = if nested {
        "the nested check".to_owned()
    } else {
        format!(
            "rubric `{}`",
            e.must_right
                .as_ref()
                .or(e.easy_wrong.as_ref())
                .map_or("", |l| l.value.as_str())
        )
    };
    let message = if checks.is_empty() {
        format!("{what} has no check")
    } else {
        format!(
            "{what} has {} checks ({}); it takes exactly one",
            checks.len(),
            checks.join(", ")
        )
    };
    Err(here.err(mark, path, message).hint(format!(
        "use one of {}; combine several with `all: [...]` or `any: [...]`",
        Check::KEYS.map(|c| format!("`{c}`")).join(", ")
    )))
}

/// `field`: the path of the value checked, parsed now.
fn field(here: &InFile, path: &str, e: &RubricEntry) -> Result<Option<FieldPath>, LoadError> {
    match &e.field {
        Some(f) => Some(FieldPath::parse(&f.value).map_err(|why| {
            here.err(Mark::of(&f.referenced), &format!("{path}.field"), format!("invalid field path: {why}"))
                .hint("a path is a field name and `.key`, `[0]` or `[*]` steps, as `line_items[*].quantity`")
        })).transpose(),
        None => Ok(None),
    }
}

/// `tolerance` and `day_first` given to a check that ignores them would be silently dropped.
fn refuse_options_of_other_checks(
    here: &InFile,
    path: &str,
    e: &RubricEntry,
) -> Result<(), LoadError> {
    if let (Some(t), false) = (&e.tolerance, e.number.is_some() || e.sum_of.is_some()) {
        return Err(here
            .err(
                Mark::of(&t.referenced),
                &format!("{path}.tolerance"),
                "`tolerance` goes with `number` or `sum_of`",
            )
            .hint("remove it, or use it with one of those checks"));
    }
    if let (Some(d), false) = (&e.day_first, e.date.is_some()) {
        return Err(here
            .err(
                Mark::of(&d.referenced),
                &format!("{path}.day_first"),
                "`day_first` goes with `date`",
            )
            .hint("remove it, or use it with `date:`"));
    }
    Ok(())
}

/// A rubric without `field:` whose check (`key`) compares with gold or reads a field.
fn needs_field(
    here: &InFile,
    path: &str,
    mark: Mark,
    key: &str,
    check: &Check,
) -> Result<(), LoadError> {
    if check.needs_gold() {
        return Err(here
            .err(
                mark,
                path,
                format!("`{key}` compares a field with its gold, so the rubric needs `field:`"),
            )
            .hint("add `field: NAME`"));
    }
    if matches!(
        check,
        Check::MinConfidence(_) | Check::SumOf { .. } | Check::Count { .. }
    ) {
        return Err(here
            .err(
                mark,
                path,
                format!("`{key}` reads a field, so the rubric needs `field:`"),
            )
            .hint("add `field: NAME`"));
    }
    Ok(())
}

/// A check (`key`) that compares `field` with its gold needs the case's gold to have it.
fn gold_has_field(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
    key: &str,
    field: &FieldPath,
    gold: &[&str],
) -> Result<(), LoadError> {
    let name = field.root();
    if gold.contains(&name) {
        return Ok(());
    }
    let at = e.field.as_ref().map_or(mark, |f| Mark::of(&f.referenced));
    let error = here.err(
        at,
        &format!("{path}.field"),
        format!("`{key}` compares `{name}` with its gold, but gold has no `{name}`"),
    );
    // A name one edit from a gold field is a typo, said as every check says it.
    Err(match misspelt_field(name, gold.iter().copied()) {
        Some(best) => error.hint(format!("did you mean `{best}`?")),
        None => error.hint(format!("add `{name}` under `gold:`, or use a check that needs no gold, such as `equals` or `present`")),
    })
}

/// The known field one edit from `name` (two for a name longer than five letters): field names
/// are short, and an absent field may be meant, so the rule is stricter than for keys.
pub(crate) fn misspelt_field<'a>(
    name: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    crate::base::location::closest_within(name, known, |len| if len <= 5 { 1 } else { 2 })
}

fn check(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
    around: Around,
) -> Result<Check, LoadError> {
    let normalize = around.1;
    if let Some(exact) = &e.exact {
        return exact_check(here, path, exact);
    }
    if let Some(min) = &e.min_anls {
        return min_anls_check(here, &format!("{path}.min_anls"), min);
    }
    if let Some(node) = &e.equals {
        return Ok(Check::Equals(scalar(
            here,
            node,
            &format!("{path}.equals"),
        )?));
    }
    if let Some(node) = &e.one_of {
        return one_of_check(here, node, &format!("{path}.one_of"));
    }
    if let Some(node) = &e.contains {
        return Ok(Check::Contains(needles(
            here,
            node,
            &format!("{path}.contains"),
            normalize,
        )?));
    }
    if let Some(node) = &e.not_contains {
        return Ok(Check::NotContains(needles(
            here,
            node,
            &format!("{path}.not_contains"),
            normalize,
        )?));
    }
    if let Some(pattern) = &e.matches {
        return pattern_check(here, &format!("{path}.matches"), pattern);
    }
    if let Some(present) = &e.present {
        return Ok(Check::Present(present.value));
    }
    if e.number.is_some() || e.date.is_some() {
        return typed_check(here, path, mark, e);
    }
    if let Some(min) = &e.min_confidence {
        let at = format!("{path}.min_confidence");
        let x = unit(here, min, &at)?;
        // A confidence is never below 0: the bound would ask only that one is given.
        if x <= crate::model::metric::SLACK {
            return Err(here
                .err(
                    Mark::of(&min.referenced),
                    &at,
                    format!("`min_confidence: {x}` is 0 within the comparison's slack (1e-9), so the check holds on every confidence given"),
                )
                .hint("raise it to the confidence a value must reach, such as 0.8"));
        }
        return Ok(Check::MinConfidence(x));
    }
    if let Some(node) = &e.count {
        return count(here, node, &format!("{path}.count"));
    }
    if e.all.is_some() || e.any.is_some() || e.not.is_some() {
        return nested_check(here, path, mark, e, around);
    }
    if let Some(fields) = &e.sum_of {
        return sum_check(here, path, mark, e, fields);
    }
    if let Some(question) = &e.judge {
        return judge_check(here, &format!("{path}.judge"), question);
    }
    Err(here.err(mark, path, "the rubric has no check"))
}

/// `exact: true`; `exact: false` is refused, as it would pass every value.
fn exact_check(here: &InFile, path: &str, exact: &Spanned<bool>) -> Result<Check, LoadError> {
    if !exact.value {
        return Err(here
            .err(
                Mark::of(&exact.referenced),
                &format!("{path}.exact"),
                "`exact: false` checks nothing",
            )
            .hint("write `exact: true`, or `not: { exact: true }` for the opposite"));
    }
    Ok(Check::Exact)
}

/// `min_anls: x`; 0 is refused as its field-rule twin is: ANLS is never below 0, so the check
/// would hold on every value, an absent one included.
fn min_anls_check(here: &InFile, path: &str, min: &Spanned<f64>) -> Result<Check, LoadError> {
    let x = unit(here, min, path)?;
    if x <= 0.0 {
        return Err(here
            .err(
                Mark::of(&min.referenced),
                path,
                "`min_anls` is 0, so the check holds on every value, an absent one included",
            )
            .hint("raise it to where a value counts as close, such as 0.8, or use `present: true` to ask only for a value"));
    }
    Ok(Check::MinAnls(x))
}

/// `one_of`: the values allowed, at least one.
fn one_of_check(here: &InFile, node: &Node, path: &str) -> Result<Check, LoadError> {
    match &node.kind {
        NodeKind::List(items) if !items.is_empty() => Ok(Check::OneOf(
            items
                .iter()
                .enumerate()
                .map(|(i, n)| scalar(here, n, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        )),
        _ => Err(here
            .err(node.mark, path, "`one_of` must be a non-empty list")
            .hint("write `one_of: [a, b]`")),
    }
}

/// `judge`: the yes/no question the judge answers about the field.
fn judge_check(here: &InFile, path: &str, question: &Spanned<String>) -> Result<Check, LoadError> {
    if question.value.trim().is_empty() {
        return Err(here
            .err(Mark::of(&question.referenced), path, "the question is empty")
            .hint("ask a yes/no question about the field, such as `Is the summary faithful to the invoice?`"));
    }
    Ok(Check::Judge(question.value.clone()))
}

/// A pattern compiled once per process and shared: a gold set of thousands of cases with the same
/// `matches:` (from a rubric set, say) pays for one compilation and one copy of the program. At
/// most [`PATTERNS_KEPT`] are kept, so that no input grows the cache without end.
fn compiled(pattern: &str) -> Result<Arc<Regex>, regex::Error> {
    static KEPT: OnceLock<Mutex<HashMap<String, Arc<Regex>>>> = OnceLock::new();
    let kept = KEPT.get_or_init(Mutex::default);
    if let Some(re) = kept.lock().unwrap_or_else(|e| e.into_inner()).get(pattern) {
        return Ok(Arc::clone(re));
    }
    // A rubric's pattern is a line, not a program: 1 MiB of compiled program is far above any,
    // and bounds what the cache can hold.
    let re = Arc::new(
        regex::RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .build()?,
    );
    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() < PATTERNS_KEPT {
        kept.insert(pattern.to_owned(), Arc::clone(&re));
    }
    Ok(re)
}

/// The most distinct patterns kept compiled.
const PATTERNS_KEPT: usize = 4096;

/// `matches`: a regular expression, checked now so that a broken one fails at load.
fn pattern_check(here: &InFile, path: &str, pattern: &Spanned<String>) -> Result<Check, LoadError> {
    if pattern.value.is_empty() {
        return Err(here
            .err(Mark::of(&pattern.referenced), path, "an empty pattern matches everything")
            .hint("write the pattern the value must match, anchored with ^ and $ for a whole-value match"));
    }
    compiled(&pattern.value).map(Check::Matches).map_err(|err| {
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
            path,
            format!("invalid regular expression: {detail}"),
        )
        .hint("the syntax is Rust's `regex` crate; quote the pattern in YAML")
    })
}

/// `number` and `date`: the expected value, read now so that an unreadable one fails at load.
fn typed_check(here: &InFile, path: &str, mark: Mark, e: &RubricEntry) -> Result<Check, LoadError> {
    if let Some(node) = &e.number {
        let p = format!("{path}.number");
        let text = scalar(here, node, &p)?;
        read_number(&text).ok_or_else(|| {
            here.err(
                node.mark,
                &p,
                format!("`{text}` cannot be read as a number"),
            )
            .hint("write it with digits, such as 1234.50")
        })?;
        return Ok(Check::Number {
            written: text,
            tolerance: tolerance(here, e, path)?,
        });
    }
    if let Some(node) = &e.date {
        let p = format!("{path}.date");
        let text = scalar(here, node, &p)?;
        let day_first = e.day_first.as_ref().is_some_and(|d| d.value);
        let value = parse_date(&text, day_first).ok_or_else(|| {
            here.err(node.mark, &p, format!("`{text}` cannot be read as a date"))
                .hint("write it as 2024-03-05 or 5 March 2024, or as 05/03/2024 with `day_first: true`")
        })?;
        return Ok(Check::Date { value, day_first });
    }
    Err(here.err(mark, path, "the rubric has no typed check"))
}

/// `all`, `any` and `not`: checks nested at the same place.
fn nested_check(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
    around: Around,
) -> Result<Check, LoadError> {
    for (key, list) in [("all", &e.all), ("any", &e.any)] {
        if let Some(list) = list {
            if list.is_empty() {
                return Err(here
                    .err(mark, &format!("{path}.{key}"), format!("`{key}` is empty"))
                    .hint("give at least one check"));
            }
            let probes = list
                .iter()
                .enumerate()
                .map(|(i, entry)| {
                    probe(
                        here,
                        &format!("{path}.{key}[{i}]"),
                        Mark::of(&entry.referenced),
                        &entry.value,
                        around,
                        true,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(if key == "all" {
                Check::All(probes)
            } else {
                Check::Any(probes)
            });
        }
    }
    if let Some(entry) = &e.not {
        let inner = probe(
            here,
            &format!("{path}.not"),
            Mark::of(&entry.referenced),
            &entry.value,
            around,
            true,
        )?;
        return Ok(Check::Not(Box::new(inner)));
    }
    Err(here.err(mark, path, "the rubric has no nested check"))
}

/// `sum_of`: the field paths that add up, parsed now.
fn sum_check(
    here: &InFile,
    path: &str,
    mark: Mark,
    e: &RubricEntry,
    fields: &[Spanned<String>],
) -> Result<Check, LoadError> {
    if fields.is_empty() {
        return Err(here
            .err(mark, &format!("{path}.sum_of"), "`sum_of` is empty")
            .hint("list the fields that add up: `sum_of: [total_ht, tva]`"));
    }
    let paths = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            FieldPath::parse(&f.value).map_err(|why| {
                here.err(
                    Mark::of(&f.referenced),
                    &format!("{path}.sum_of[{i}]"),
                    format!("invalid field path: {why}"),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Check::SumOf {
        fields: paths,
        tolerance: tolerance(here, e, path)?,
    })
}

fn unit(here: &InFile, value: &Spanned<f64>, path: &str) -> Result<f64, LoadError> {
    if (0.0..=1.0).contains(&value.value) {
        Ok(value.value)
    } else {
        Err(here.err(
            Mark::of(&value.referenced),
            path,
            format!("{} is outside [0, 1]", value.value),
        ))
    }
}

fn tolerance(here: &InFile, e: &RubricEntry, path: &str) -> Result<f64, LoadError> {
    match &e.tolerance {
        None => Ok(0.0),
        Some(t) if t.value >= 0.0 && t.value.is_finite() => Ok(t.value),
        Some(t) => Err(here.err(
            Mark::of(&t.referenced),
            &format!("{path}.tolerance"),
            format!("`tolerance` is {}; it must be 0 or more", t.value),
        )),
    }
}

/// `count: N` or `count: { min: A, max: B }` (either bound may be left out).
fn count(here: &InFile, node: &Node, path: &str) -> Result<Check, LoadError> {
    let whole = |n: &Node, p: &str| -> Result<usize, LoadError> {
        match &n.kind {
            NodeKind::Text(t) => t.trim().parse().map_err(|_| {
                here.err(n.mark, p, format!("`{t}` is not a count"))
                    .hint("write a whole number such as 3")
            }),
            _ => Err(here.err(
                n.mark,
                p,
                format!("expected a count, found {}", n.kind_name()),
            )),
        }
    };
    match &node.kind {
        NodeKind::Map(entries) => {
            let (mut min, mut max) = (0, usize::MAX);
            for (key, value) in entries {
                let p = format!("{path}.{key}");
                match key.as_str() {
                    "min" => min = whole(value, &p)?,
                    "max" => max = whole(value, &p)?,
                    _ => {
                        let e = here.err(value.mark, &p, format!("unknown key `{key}` in `count`"));
                        return Err(match closest(key, ["min", "max"]) {
                            Some(best) => e.hint(format!("did you mean `{best}`?")),
                            None => e.hint("`count` takes `min` and `max`"),
                        });
                    }
                }
            }
            if entries.is_empty() || min > max {
                return Err(here
                    .err(
                        node.mark,
                        path,
                        "`count` needs `min` ≤ `max`, at least one of them",
                    )
                    .hint("write `count: { min: 1, max: 5 }`"));
            }
            // Every list has 0 items or more, and an absent one counts 0.
            if min == 0 && max == usize::MAX {
                return Err(here
                    .err(
                        node.mark,
                        path,
                        "`count: { min: 0 }` without a `max` holds on any number of items, so the check holds whatever the prediction says",
                    )
                    .hint("ask for at least one item with `min: 1`, or bound it with `max`"));
            }
            Ok(Check::Count { min, max })
        }
        _ => {
            let n = whole(node, path)?;
            Ok(Check::Count { min: n, max: n })
        }
    }
}

fn scalar(here: &InFile, node: &Node, path: &str) -> Result<String, LoadError> {
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

fn texts(here: &InFile, node: &Node, path: &str) -> Result<Vec<String>, LoadError> {
    let texts = match &node.kind {
        NodeKind::List(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, n)| scalar(here, n, &format!("{path}[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        NodeKind::List(_) => {
            return Err(here
                .err(node.mark, path, "the list is empty")
                .hint("give at least one text"));
        }
        NodeKind::Text(t) => vec![t.clone()],
        _ => {
            return Err(here.err(
                node.mark,
                path,
                format!(
                    "expected a text or a list of texts, found {}",
                    node.kind_name()
                ),
            ));
        }
    };
    Ok(texts)
}

/// The texts `contains` and `not_contains` look for. One that is empty once normalized (`"  "`,
/// or `"\u0301"` with accents stripped) is in every value: `contains` would hold on anything and
/// `not_contains` on nothing.
fn needles(
    here: &InFile,
    node: &Node,
    path: &str,
    normalize: Normalize,
) -> Result<Vec<String>, LoadError> {
    let texts = texts(here, node, path)?;
    if texts.iter().any(|t| t.trim().is_empty()) {
        return Err(here
            .err(
                node.mark,
                path,
                "an empty text checks nothing: every value contains it",
            )
            .hint("give the words to look for"));
    }
    if let Some(t) = texts
        .iter()
        .find(|t| normalize.apply_visible(t).trim().is_empty())
    {
        return Err(here
            .err(
                node.mark,
                path,
                format!(
                    "`{}` is empty once normalized, and an empty text checks nothing: every value contains it",
                    escaped(t)
                ),
            )
            .hint(if normalize.apply(t).trim().is_empty() {
                "give the words to look for; to look for the mark itself, turn off the step that removes it, as `normalize: { strip_accents: false }`"
            } else {
                // Invisible characters go whenever a step is on: only raw text keeps them.
                "give the words to look for; to look for an invisible character itself, compare raw text: `normalize: false`"
            }));
    }
    Ok(texts)
}

/// A text as YAML would write it between double quotes: marks and controls that show as nothing
/// are written `\u0301`.
fn escaped(text: &str) -> String {
    text.chars()
        .map(|c| {
            let debug: String = c.escape_debug().collect();
            match u32::from(c) {
                _ if !debug.starts_with("\\u{") => debug,
                n if n <= 0xFFFF => format!("\\u{n:04X}"),
                n => format!("\\U{n:08X}"),
            }
        })
        .collect()
}

/// Whether a rubric's check holds whatever the prediction says, seen through `all`, `any` and
/// `not` (`not: { not: { matches: '(?s).*' } }` holds on anything as surely as the pattern does).
/// `gold` is the case's gold field names: a check against gold is made wherever gold has the
/// rubric's field.
pub(super) fn holds_on_anything(probe: &Probe, gold: &[&str]) -> bool {
    let gold_here = probe
        .field
        .as_ref()
        .is_some_and(|f| gold.contains(&f.root()));
    on_anything(&probe.check, gold_here) == Some(true)
}

/// What a check says of every value when it says the same of all: `Some(true)` when it holds on
/// any, `Some(false)` when it fails on every one (and is never left unchecked, so that `not:`
/// turns it into a hold), `None` when the prediction decides. A combinator is left unchecked when
/// one of its checks is (no gold at the place, no confidence), so it holds on anything only when
/// none of its checks can be.
fn on_anything(check: &Check, gold_here: bool) -> Option<bool> {
    // A nested check with a `field` of its own reads a place that may not be there.
    let nested = |p: &Probe| {
        p.field
            .is_none()
            .then(|| on_anything(&p.check, gold_here))
            .flatten()
    };
    let checked = |probes: &[Probe]| always_checked(probes, gold_here);
    let each = |probes: &[Probe]| -> Vec<Option<bool>> { probes.iter().map(nested).collect() };
    match check {
        // A pattern that matches these matches any text.
        Check::Matches(re) => {
            if ["", "x", "\n", "0173 ¤ é", "{\"a\": [1]}"]
                .iter()
                .all(|t| re.is_match(t))
            {
                Some(true)
            } else {
                // A text check is made on every value, present or not: one that can match
                // nothing fails on every one, and `not:` of it holds on anything.
                never_matches(re.as_str()).then_some(false)
            }
        }
        Check::All(probes) => {
            let each = each(probes);
            if each.iter().all(|v| *v == Some(true)) {
                Some(true)
            } else if checked(probes) && (each.contains(&Some(false)) || has_complements(probes)) {
                Some(false)
            } else {
                None
            }
        }
        Check::Any(probes) => {
            let each = each(probes);
            if each.iter().all(|v| *v == Some(false)) {
                Some(false)
            } else if checked(probes) && (each.contains(&Some(true)) || has_complements(probes)) {
                Some(true)
            } else {
                None
            }
        }
        Check::Not(probe) => nested(probe).map(|held| !held),
        _ => None,
    }
}

/// Whether a pattern matches no text at all (`[^\s\S]`, `a\P{any}`, `x|[a&&b]`), shown from its
/// structure: the pattern is read as alternatives of items, and its language is empty when every
/// alternative has an item that must appear and matches no character. Whether a class (`[...]`,
/// `\p{...}`) matches none is asked of the regex engine itself, over every Unicode scalar value,
/// so its sets, ranges and operators need no reading here. The reading is conservative: a pattern
/// it does not follow (flags such as `(?i)`, which change what a class holds, or anything it
/// cannot place) is taken as one that may match, and an anchor or a word boundary as matching the
/// empty text, which can only make more patterns look matchable. So `true` is a proof, and
/// `false` only says none was found.
fn never_matches(pattern: &str) -> bool {
    static KEPT: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();
    let kept = KEPT.get_or_init(Mutex::default);
    if let Some(&never) = kept.lock().unwrap_or_else(|e| e.into_inner()).get(pattern) {
        return never;
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut at = 0;
    let never = alternatives(&chars, &mut at) == Some(true) && at == chars.len();
    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() < PATTERNS_KEPT {
        kept.insert(pattern.to_owned(), never);
    }
    never
}

/// Alternatives up to a `)` or the end: `Some(true)` when none can match (see [`never_matches`]),
/// `None` when the pattern is not one this reading follows.
fn alternatives(c: &[char], at: &mut usize) -> Option<bool> {
    let mut empty = sequence(c, at)?;
    while c.get(*at) == Some(&'|') {
        *at += 1;
        empty &= sequence(c, at)?;
    }
    Some(empty)
}

/// Items one after the other: none can match when one of them must appear and matches nothing.
fn sequence(c: &[char], at: &mut usize) -> Option<bool> {
    let mut empty = false;
    while let Some(&next) = c.get(*at) {
        if next == '|' || next == ')' {
            break;
        }
        let item = item(c, at)?;
        let optional = repetition(c, at)?;
        empty |= item && !optional;
    }
    Some(empty)
}

/// One item, `Some(true)` when it matches nothing.
fn item(c: &[char], at: &mut usize) -> Option<bool> {
    let start = *at;
    match c.get(start)? {
        '(' => {
            *at += 1;
            if c.get(*at) == Some(&'?') {
                // `(?:...)` and named groups only: flags change what the items inside match.
                match (c.get(*at + 1), c.get(*at + 2)) {
                    (Some(':'), _) => *at += 2,
                    (Some('P'), Some('<')) | (Some('<'), _) => {
                        let close = c[*at..].iter().position(|&x| x == '>')?;
                        *at += close + 1;
                    }
                    _ => return None,
                }
            }
            let empty = alternatives(c, at)?;
            (c.get(*at) == Some(&')')).then_some(())?;
            *at += 1;
            Some(empty)
        }
        '[' => {
            *at = class_end(c, start)?;
            class_matches_nothing(&c[start..*at])
        }
        '\\' => match c.get(start + 1)? {
            'p' | 'P' => {
                *at = match c.get(start + 2)? {
                    '{' => start + 2 + c[start + 2..].iter().position(|&x| x == '}')? + 1,
                    _ => start + 3,
                };
                class_matches_nothing(&c[start..*at])
            }
            // `\b{start}` and the like are assertions this reading does not follow.
            'b' | 'B' if c.get(start + 2) == Some(&'{') => None,
            'x' | 'u' | 'U' => {
                *at = match c.get(start + 2)? {
                    '{' => start + 2 + c[start + 2..].iter().position(|&x| x == '}')? + 1,
                    _ => {
                        let digits = match c[start + 1] {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        start + 2 + digits
                    }
                };
                (*at <= c.len()).then_some(false)
            }
            // A class such as `\d`, an assertion or an escaped character: each matches.
            _ => {
                *at = start + 2;
                Some(false)
            }
        },
        '*' | '+' | '?' | '{' => None,
        _ => {
            *at += 1;
            Some(false)
        }
    }
}

/// Reads the repetition after an item, if any: `Some(true)` when it allows none of it (`*`,
/// `?`, `{0,n}`), so that an item matching nothing still lets the sequence match.
fn repetition(c: &[char], at: &mut usize) -> Option<bool> {
    let optional = match c.get(*at) {
        Some('*' | '?') => {
            *at += 1;
            true
        }
        Some('+') => {
            *at += 1;
            false
        }
        Some('{') => {
            let close = c[*at..].iter().position(|&x| x == '}')?;
            let inside: String = c[*at + 1..*at + close].iter().collect();
            let min = inside.split(',').next()?.trim();
            let min: u64 = min.parse().ok()?;
            *at += close + 1;
            min == 0
        }
        _ => return Some(false),
    };
    // A lazy repetition (`*?`) allows the same counts.
    if c.get(*at) == Some(&'?') {
        *at += 1;
    }
    Some(optional)
}

/// The end (one past its `]`) of the class opening at `start`, nested classes included.
fn class_end(c: &[char], start: usize) -> Option<usize> {
    // After an opening `[` (and a `^`), a `]` is the character itself.
    let open = |i: usize| {
        let i = i + 1;
        let i = if c.get(i) == Some(&'^') { i + 1 } else { i };
        if c.get(i) == Some(&']') { i + 1 } else { i }
    };
    let mut i = open(start);
    let mut depth = 1;
    while let Some(&x) = c.get(i) {
        match x {
            '\\' => i += 2,
            '[' => {
                depth += 1;
                i = open(i);
            }
            ']' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Whether a class (`[^\s\S]`, `\P{any}`) matches no character, asked of the regex engine over
/// every Unicode scalar value, a block at a time so that no more than one block is held: `None`
/// when it does not compile alone.
fn class_matches_nothing(class: &[char]) -> Option<bool> {
    let re = Regex::new(&class.iter().collect::<String>()).ok()?;
    let mut block = String::new();
    for first in (0..=u32::from(char::MAX)).step_by(1 << 16) {
        block.clear();
        block.extend((first..first + (1 << 16)).filter_map(char::from_u32));
        if re.is_match(&block) {
            return Some(false);
        }
    }
    Some(true)
}

/// Whether none of these nested checks can be left unchecked at the place their combinator is
/// judged at: checks of its text, with no `field` of their own, and `exact` and `min_anls` where
/// gold has the field (`gold_here`). A confidence, a count, a number or a judge's verdict may be
/// missing from the prediction.
fn always_checked(probes: &[Probe], gold_here: bool) -> bool {
    probes.iter().all(|p| {
        p.field.is_none()
            && match &p.check {
                Check::Equals(_)
                | Check::OneOf(_)
                | Check::Contains(_)
                | Check::NotContains(_)
                | Check::Matches(_)
                | Check::Present(_) => true,
                Check::Exact | Check::MinAnls(_) => gold_here,
                Check::All(inner) | Check::Any(inner) => always_checked(inner, gold_here),
                Check::Not(inner) => always_checked(std::slice::from_ref(inner), gold_here),
                _ => false,
            }
    })
}

/// Whether two of the checks are each other's opposite on the one value their combinator is
/// judged at, so that one of them holds on every value: `present: true` and `present: false`, or
/// a check on the text and `not:` of the same check (`any: [{ equals: x }, { not: { equals: x } }]`).
fn has_complements(probes: &[Probe]) -> bool {
    probes
        .iter()
        .any(|a| probes.iter().any(|b| complements(a, b)))
}

fn complements(a: &Probe, b: &Probe) -> bool {
    // A check with a `field` of its own may read several values (`items[*].x`), where neither
    // of the two need hold on all.
    if a.field.is_some() || b.field.is_some() {
        return false;
    }
    // Checks on the text alone: one that compares with gold or reads a confidence may be left
    // unchecked, and then neither of the two holds.
    let on_text = |c: &Check| {
        matches!(
            c,
            Check::Equals(_)
                | Check::OneOf(_)
                | Check::Contains(_)
                | Check::NotContains(_)
                | Check::Matches(_)
                | Check::Present(_)
        )
    };
    match (&a.check, &b.check) {
        (Check::Present(x), Check::Present(y)) => x != y && a.normalize == b.normalize,
        (check, Check::Not(inner)) if on_text(check) => {
            // The negated check reads the normalization of its `not` unless it sets its own.
            inner.field.is_none()
                && inner.normalize.or(b.normalize) == a.normalize
                // Checks hold no closures: their debug form is their whole content.
                && format!("{:?}", inner.check) == format!("{check:?}")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(check: Check) -> Probe {
        Probe {
            field: None,
            normalize: None,
            check,
        }
    }

    fn pattern(p: &str) -> Check {
        Check::Matches(compiled(p).unwrap())
    }

    /// A probe that holds on any value.
    fn anything() -> Probe {
        probe(pattern("(?s).*"))
    }

    /// A probe left unchecked where gold has no value.
    fn decided() -> Probe {
        probe(Check::Exact)
    }

    fn text() -> Probe {
        probe(Check::Equals("x".into()))
    }

    fn not(p: Probe) -> Probe {
        probe(Check::Not(Box::new(p)))
    }

    fn assert_holds_on_anything(cases: Vec<(Check, bool)>) {
        for (check, holds) in cases {
            assert_eq!(
                holds_on_anything(&probe(check.clone()), &[]),
                holds,
                "{check:?}"
            );
        }
    }

    #[test]
    fn what_holds_on_anything_is_seen_through_all_any_and_not() {
        assert_holds_on_anything(vec![
            (pattern("(?s).*"), true),
            (pattern("^x"), false),
            (Check::All(vec![anything()]), true),
            (Check::All(vec![anything(), decided()]), false),
            (Check::Any(vec![text(), anything()]), true),
            // `exact` is left unchecked where gold has no value, and the `any` with it.
            (Check::Any(vec![decided(), anything()]), false),
            (Check::Not(Box::new(not(anything()))), true),
            (Check::Not(Box::new(anything())), false),
            // Never holds, then negated: holds on anything.
            (
                Check::Not(Box::new(probe(Check::All(vec![text(), not(anything())])))),
                true,
            ),
            (
                Check::Not(Box::new(probe(Check::All(vec![
                    decided(),
                    not(anything()),
                ])))),
                false,
            ),
            (Check::Any(vec![text(), not(anything())]), false),
            // A pattern that matches nothing fails on every value: its `not` holds on any.
            (Check::Not(Box::new(probe(pattern(r"[^\s\S]")))), true),
            (Check::Not(Box::new(probe(pattern(r"[^\s\S]*")))), false),
            // A place of its own may not be there.
            (
                Check::Any(vec![
                    Probe {
                        field: Some(FieldPath::parse("total").unwrap()),
                        ..anything()
                    },
                    text(),
                ]),
                false,
            ),
        ]);
    }

    #[test]
    fn a_check_and_its_opposite_at_one_place_hold_on_anything() {
        assert_holds_on_anything(vec![
            (
                Check::Any(vec![
                    probe(Check::Present(true)),
                    probe(Check::Present(false)),
                ]),
                true,
            ),
            (
                Check::Any(vec![
                    probe(Check::Equals("x".into())),
                    not(probe(Check::Equals("x".into()))),
                ]),
                true,
            ),
            (
                Check::Any(vec![
                    probe(Check::Equals("x".into())),
                    not(probe(Check::Equals("y".into()))),
                ]),
                false,
            ),
            (
                Check::Not(Box::new(probe(Check::All(vec![
                    probe(pattern("^a")),
                    not(probe(pattern("^a"))),
                ])))),
                true,
            ),
            // Gold may be missing there: neither holds then.
            (Check::Any(vec![decided(), not(decided())]), false),
            (Check::MinAnls(0.5), false),
        ]);
    }

    #[test]
    fn where_gold_has_the_rubrics_field_exact_is_always_made() {
        let total = |check: Check| Probe {
            field: Some(FieldPath::parse("total").unwrap()),
            ..probe(check)
        };
        let any = total(Check::Any(vec![decided(), anything()]));
        assert!(holds_on_anything(&any, &["total"]));
        assert!(!holds_on_anything(&any, &["other"]));
    }

    #[test]
    fn a_pattern_that_matches_nothing_is_found_and_no_other() {
        for (p, never) in [
            (r"[^\s\S]", true),
            (r"[^\d\D]", true),
            (r"\P{any}", true),
            (r"a[^\s\S]b", true),
            (r"^(?:x[^\w\W])$", true),
            (r"(?P<n>[^\s\S])|(?<m>\P{any}+)", true),
            (r"[a&&b]", true),
            (r"[[^\s\S]]{2,}?", true),
            // Optional, in one alternative only, or a class that holds something.
            (r"[^\s\S]*", false),
            (r"[^\s\S]{0,3}", false),
            (r"x|[^\s\S]", false),
            (r"[^\s\S]?y", false),
            (r"[]\[^\s\S]", false),
            (r"\[^\s\S]", false),
            (r"[^\s]", false),
            (r"\x{10FFFF}", false),
            (r"[\x{10FFFF}]", false),
            (r"^\d{3}$", false),
            // Flags change what a class holds: not followed, taken as matchable.
            (r"(?i)[a&&A]", false),
            (r"(?i)[^\s\S]", false),
            (r"\b{start}[^\s\S]", false),
        ] {
            assert!(compiled(p).is_ok(), "{p}");
            assert_eq!(never_matches(p), never, "{p}");
            // What is found matches nothing the engine is given.
            if never {
                let re = compiled(p).unwrap();
                assert!(
                    !["", "x", "ab", "a b", "\n"].iter().any(|t| re.is_match(t)),
                    "{p}"
                );
            }
        }
    }

    #[test]
    fn invisible_text_is_shown_as_yaml_escapes() {
        assert_eq!(escaped("\u{301}"), "\\u0301");
        assert_eq!(escaped("a\u{308}\t"), "a\\u0308\\t");
        assert_eq!(escaped("\u{E0100}"), "\\U000E0100");
        assert_eq!(escaped("é"), "é");
    }
}
