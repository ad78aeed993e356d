//! Case file -> checked [`Case`]: parse, validate, resolve rubric includes. Every mistake is a
//! [`LoadError`] naming the file, line, column, YAML path and the fix.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde_saphyr::Spanned;

use crate::case::{
    Case, Comparison, Correctness, FieldRule, GoldField, Metric, PredictionSource, Profile,
    Threshold,
};
use crate::error::{LoadError, closest};
use crate::normalize::Normalize;
use crate::rubric::{Check, Rubric, RubricKind};
use crate::spec::{
    CaseFile, Mark, Node, NodeKind, RubricEntry, RubricSetFile, ThresholdsSpec, parse_yaml,
};
use crate::spec::{Compare, Correct, FieldRuleSpec};
use crate::typed::{parse_date, parse_number};
use crate::value::Value;

/// Default penalty of a failed Easy-Wrong rubric.
pub const DEFAULT_PENALTY: f64 = 0.1;
/// Default number of ECE bins.
pub const DEFAULT_ECE_BINS: u32 = 5;

/// Reads and checks one case file. `id` is its test name; includes are looked up in `rubrics_dir`.
pub fn load_case(file: &Path, id: &str, rubrics_dir: &Path) -> Result<Case, LoadError> {
    let source = read_text(file)?;
    let spec: CaseFile = parse_yaml(file, &source)?;
    let here = Here { file };

    let mut gold = spec.gold.as_ref().map(|g| here.gold(g)).transpose()?;
    if let Some(rules) = &spec.fields {
        here.rules(rules, gold.as_mut(), spec.gold.as_ref())?;
    }
    let profile = match &spec.profile {
        None => Profile::Dream,
        Some(p) => Profile::from_name(&p.value).ok_or_else(|| {
            let e = here.err(
                Mark::of(&p.referenced),
                "profile",
                format!("unknown profile `{}`", p.value),
            );
            match closest(&p.value, Profile::NAMES) {
                Some(best) => e.hint(format!("did you mean `{best}`?")),
                None => e.hint("the profiles are `dream` (the default) and `anls_star`"),
            }
        })?,
    };
    let critical = here.critical(spec.critical.as_deref().unwrap_or(&[]), gold.as_deref())?;
    let normalize = match &spec.normalize {
        Some(node) => here.normalize(node, "normalize")?,
        None => Normalize::ALL,
    };

    let mut rubrics = Vec::new();
    let gold_names: Vec<&str> = gold.iter().flatten().map(|f| f.name.as_str()).collect();
    let mut sets = Sets {
        dir: rubrics_dir,
        gold: &gold_names,
        stack: Vec::new(),
    };
    for (i, entry) in spec.rubrics.iter().flatten().enumerate() {
        sets.resolve(file, &format!("rubrics[{i}]"), entry, &mut rubrics)?;
    }

    let thresholds = match &spec.thresholds {
        Some(t) => here.thresholds(t, &critical)?,
        None => Vec::new(),
    };
    let ece_bins = match &spec.ece_bins {
        Some(b) if b.value == 0 => {
            return Err(LoadError::at(
                file,
                Mark::of(&b.referenced),
                "ece_bins",
                "`ece_bins` must be at least 1",
            )
            .hint("the default is 5"));
        }
        Some(b) => b.value,
        None => DEFAULT_ECE_BINS,
    };
    let prediction = here.prediction(&spec)?;
    if is_text(&prediction) {
        if let Some(g) = &spec.gold {
            return Err(here.err(g.mark, "gold", "a text prediction has no fields to compare with `gold`")
                .hint("check free text with rubrics alone, or record the prediction as a .json field document"));
        }
        if let Some(r) = rubrics.iter().find(|r| r.field.is_some()) {
            return Err(LoadError::at(
                &r.file,
                Mark {
                    line: r.line,
                    column: 1,
                },
                "",
                format!(
                    "rubric `{}` reads the field `{}`, but a text prediction has no fields",
                    r.label,
                    r.field.as_deref().unwrap_or_default()
                ),
            )
            .hint("remove `field:` to check the whole text"));
        }
    }

    if rubrics.is_empty() && thresholds.is_empty() {
        return Err(LoadError::at(file, Mark { line: 1, column: 1 }, "", "this case checks nothing: it has no rubric and no threshold, so it could only ever pass")
            .hint("add `rubrics:` or `thresholds:`, for example `thresholds: { min_exact_match: 1.0 }`"));
    }

    Ok(Case {
        id: id.to_owned(),
        file: file.to_path_buf(),
        description: spec.description,
        tags: spec.tags.unwrap_or_default(),
        skip: spec.skip.map(|s| here.skip_reason(&s)).transpose()?,
        prediction,
        gold,
        critical,
        normalize,
        rubrics,
        thresholds,
        ece_bins,
        profile,
    })
}

fn is_text(prediction: &PredictionSource) -> bool {
    match prediction {
        PredictionSource::Text(_) => true,
        PredictionSource::File { path, .. } => path.extension().is_some_and(|e| e == "txt"),
        PredictionSource::Inline(_) => false,
    }
}

/// Reads a file as UTF-8 text (a leading byte-order mark dropped), with an error naming it.
pub(crate) fn read_text(file: &Path) -> Result<String, LoadError> {
    if file.is_dir() {
        return Err(LoadError::file(file, "this is a folder, not a file"));
    }
    let bytes = std::fs::read(file)
        .map_err(|e| LoadError::file(file, format!("cannot read the file: {}", io_reason(&e))))?;
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    String::from_utf8(bytes).map_err(|e| {
        LoadError::file(
            file,
            format!(
                "the file is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
        .hint("save it as UTF-8")
    })
}

pub(crate) fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "it does not exist".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Checks over one file's nodes.
struct Here<'a> {
    file: &'a Path,
}

impl Here<'_> {
    fn err(&self, mark: Mark, path: &str, message: impl Into<String>) -> LoadError {
        LoadError::at(self.file, mark, path, message)
    }

    /// Applies `fields:` rules to the gold fields, checking that they fit.
    fn rules(
        &self,
        rules: &std::collections::BTreeMap<String, Spanned<FieldRuleSpec>>,
        gold: Option<&mut Vec<GoldField>>,
        gold_node: Option<&Node>,
    ) -> Result<(), LoadError> {
        let mut empty = Vec::new();
        let gold = gold.unwrap_or(&mut empty);
        for (name, spec) in rules {
            let mark = Mark::of(&spec.referenced);
            let path = format!("fields.{name}");
            let names: Vec<String> = gold.iter().map(|g| g.name.clone()).collect();
            let Some(field) = gold.iter_mut().find(|g| &g.name == name) else {
                let e = self.err(
                    mark,
                    &path,
                    format!("`fields` has a rule for `{name}`, which is not in `gold`"),
                );
                return Err(match closest(name, names.iter().map(String::as_str)) {
                    Some(best) => e.hint(format!("did you mean `{best}`?")),
                    None => e.hint("give the field a gold value, or remove its rule"),
                });
            };
            let s = &spec.value;
            let compare = s.compare.unwrap_or(Compare::Text);
            if let (Some(t), false) = (&s.tolerance, compare == Compare::Number) {
                return Err(self
                    .err(
                        Mark::of(&t.referenced),
                        &format!("{path}.tolerance"),
                        "`tolerance` applies to `compare: number`",
                    )
                    .hint("add `compare: number`, or remove `tolerance`"));
            }
            if let (Some(d), false) = (&s.day_first, compare == Compare::Date) {
                return Err(self
                    .err(
                        Mark::of(&d.referenced),
                        &format!("{path}.day_first"),
                        "`day_first` applies to `compare: date`",
                    )
                    .hint("add `compare: date`, or remove `day_first`"));
            }
            let correct = s.correct.unwrap_or(Correct::Exact);
            if let (Some(m), Correct::Exact) = (&s.min_anls, correct) {
                return Err(self
                    .err(
                        Mark::of(&m.referenced),
                        &format!("{path}.min_anls"),
                        "`min_anls` applies to `correct: anls`",
                    )
                    .hint("add `correct: anls`, or remove `min_anls`"));
            }
            let tolerance = s.tolerance.as_ref().map_or(0.0, |t| t.value);
            if !(tolerance >= 0.0 && tolerance.is_finite()) {
                return Err(self.err(
                    mark,
                    &format!("{path}.tolerance"),
                    format!("`tolerance` is {tolerance}; it must be 0 or more"),
                ));
            }
            let min_anls = s.min_anls.as_ref().map_or(0.5, |m| m.value);
            if !(0.0..=1.0).contains(&min_anls) {
                return Err(self.err(
                    mark,
                    &format!("{path}.min_anls"),
                    format!("`min_anls` is {min_anls}, outside [0, 1]"),
                ));
            }
            field.rule = FieldRule {
                compare: match compare {
                    Compare::Text => Comparison::Text,
                    Compare::Number => Comparison::Number { tolerance },
                    Compare::Date => Comparison::Date {
                        day_first: s.day_first.as_ref().is_some_and(|d| d.value),
                    },
                },
                correct: match correct {
                    Correct::Exact => Correctness::Exact,
                    Correct::Anls => Correctness::Anls(min_anls),
                },
            };
            // A gold value that is not a number (or date) could never be matched: say so now.
            let what = match field.rule.compare {
                Comparison::Text => continue,
                Comparison::Number { .. } => "a number",
                Comparison::Date { .. } => "a date",
            };
            for variant in &field.variants {
                let readable = match (variant, field.rule.compare) {
                    (Value::Null, _) => true,
                    (Value::Text(t), Comparison::Number { .. }) => parse_number(t).is_some(),
                    (Value::Text(t), Comparison::Date { day_first }) => {
                        parse_date(t, day_first).is_some()
                    }
                    _ => false,
                };
                if !readable {
                    let at = gold_node
                        .and_then(|g| g.as_map())
                        .and_then(|m| m.iter().find(|(k, _)| k == name))
                        .map_or(mark, |(_, n)| n.mark);
                    return Err(self.err(at, &format!("gold.{name}"), format!("gold `{variant}` cannot be read as {what}, as `fields.{name}` requires"))
                        .hint(if what == "a date" {
                            "write the date as 2024-03-05 or 5 March 2024, or as 05/03/2024 with `day_first: true`"
                        } else {
                            "write the amount with digits, such as 1234.50 or 1 234,50"
                        }));
                }
            }
        }
        Ok(())
    }

    /// `skip:` takes a reason; `false`, `no` or an empty value would hide the case silently.
    fn skip_reason(&self, skip: &Spanned<String>) -> Result<String, LoadError> {
        let text = skip.value.trim();
        let looks_boolean = [
            "true", "false", "yes", "no", "on", "off", "y", "n", "0", "1",
        ]
        .contains(&text.to_lowercase().as_str());
        if text.is_empty() || looks_boolean {
            return Err(self.err(Mark::of(&skip.referenced), "skip", format!("`skip` takes the reason the case is skipped, not `{text}`"))
                .hint("to run the case, remove `skip`; to skip it, write why: `skip: vendor export is broken`"));
        }
        Ok(skip.value.clone())
    }

    fn gold(&self, node: &Node) -> Result<Vec<GoldField>, LoadError> {
        let entries = node.as_map().ok_or_else(|| {
            self.err(
                node.mark,
                "gold",
                format!(
                    "`gold` must be a mapping of field names to values, found {}",
                    node.kind_name()
                ),
            )
            .hint("write one `field: value` per line under `gold:`")
        })?;
        entries
            .iter()
            .map(|(name, value)| {
                let path = format!("gold.{name}");
                let variants = match value.as_map() {
                    Some(m) if m.iter().any(|(k, _)| k == "any_of") => {
                        self.any_of(value, m, &path)?
                    }
                    _ => vec![self.gold_value(value, &path)?],
                };
                Ok(GoldField {
                    name: name.clone(),
                    variants,
                    line: value.mark.line,
                    rule: FieldRule::default(),
                })
            })
            .collect()
    }

    fn any_of(
        &self,
        node: &Node,
        entries: &[(String, Node)],
        path: &str,
    ) -> Result<Vec<Value>, LoadError> {
        if entries.len() != 1 {
            return Err(self
                .err(
                    node.mark,
                    path,
                    "`any_of` must be the only key of its mapping",
                )
                .hint("move the other keys out, or write the variants as `{ any_of: [a, b] }`"));
        }
        let list = &entries[0].1;
        let path = format!("{path}.any_of");
        match &list.kind {
            NodeKind::List(items) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.gold_value(item, &format!("{path}[{i}]")))
                .collect(),
            NodeKind::List(_) => Err(self
                .err(list.mark, &path, "`any_of` is empty")
                .hint("give at least one accepted variant")),
            _ => Err(self
                .err(
                    list.mark,
                    &path,
                    format!(
                        "`any_of` must be a list of variants, found {}",
                        list.kind_name()
                    ),
                )
                .hint("write `any_of: [variant1, variant2]`")),
        }
    }

    /// A gold value; `any_of` is only allowed directly under a field.
    fn gold_value(&self, node: &Node, path: &str) -> Result<Value, LoadError> {
        match &node.kind {
            NodeKind::Map(entries) => {
                if let Some((_, inner)) = entries.iter().find(|(k, _)| k == "any_of") {
                    return Err(self
                        .err(
                            inner.mark,
                            &format!("{path}.any_of"),
                            "`any_of` is only allowed directly under a gold field",
                        )
                        .hint("give the variants of the whole field: `field: { any_of: [...] }`"));
                }
                for (k, v) in entries {
                    self.gold_value(v, &format!("{path}.{k}"))?;
                }
            }
            NodeKind::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.gold_value(item, &format!("{path}[{i}]"))?;
                }
            }
            _ => {}
        }
        Ok(node.to_value())
    }

    fn critical(
        &self,
        names: &[Spanned<String>],
        gold: Option<&[GoldField]>,
    ) -> Result<Vec<String>, LoadError> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let fields: Vec<&str> = gold
                    .unwrap_or(&[])
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect();
                if fields.contains(&name.value.as_str()) {
                    return Ok(name.value.clone());
                }
                let e = self.err(
                    Mark::of(&name.referenced),
                    &format!("critical[{i}]"),
                    format!("critical field `{}` is not in `gold`", name.value),
                );
                Err(match closest(&name.value, fields.iter().copied()) {
                    Some(best) => e.hint(format!("did you mean `{best}`?")),
                    None => e.hint("a critical field must have a gold value; add it under `gold:`"),
                })
            })
            .collect()
    }

    fn normalize(&self, node: &Node, path: &str) -> Result<Normalize, LoadError> {
        match &node.kind {
            NodeKind::Text(_) => Ok(if self.boolean(node, path)? {
                Normalize::ALL
            } else {
                Normalize::NONE
            }),
            NodeKind::Map(entries) => {
                let mut n = Normalize::ALL;
                const KEYS: [&str; 3] = ["lowercase", "strip_accents", "collapse_whitespace"];
                for (key, value) in entries {
                    let step_path = format!("{path}.{key}");
                    let on = match key.as_str() {
                        "lowercase" | "strip_accents" | "collapse_whitespace" => {
                            self.boolean(value, &step_path)?
                        }
                        _ => {
                            let e = self.err(
                                value.mark,
                                &step_path,
                                format!("unknown normalization step `{key}`"),
                            );
                            return Err(match closest(key, KEYS) {
                                Some(best) => e.hint(format!("did you mean `{best}`?")),
                                None => e.hint("the steps are `lowercase`, `strip_accents`, `collapse_whitespace`"),
                            });
                        }
                    };
                    match key.as_str() {
                        "lowercase" => n.lowercase = on,
                        "strip_accents" => n.strip_accents = on,
                        _ => n.collapse_whitespace = on,
                    }
                }
                Ok(n)
            }
            _ => Err(self
                .err(
                    node.mark,
                    path,
                    format!(
                        "`normalize` must be `true`, `false` or a mapping of steps, found {}",
                        node.kind_name()
                    ),
                )
                .hint("for example `normalize: { lowercase: true, strip_accents: false }`")),
        }
    }

    fn boolean(&self, node: &Node, path: &str) -> Result<bool, LoadError> {
        match &node.kind {
            NodeKind::Text(t) if matches!(t.as_str(), "true" | "True" | "TRUE") => Ok(true),
            NodeKind::Text(t) if matches!(t.as_str(), "false" | "False" | "FALSE") => Ok(false),
            _ => Err(self.err(node.mark, path, "expected `true` or `false`")),
        }
    }

    fn thresholds(
        &self,
        spec: &Spanned<ThresholdsSpec>,
        critical: &[String],
    ) -> Result<Vec<Threshold>, LoadError> {
        let t = &spec.value;
        let all = [
            ("min_score", Metric::Score, &t.min_score),
            ("min_exact_match", Metric::ExactMatch, &t.min_exact_match),
            ("min_anls", Metric::Anls, &t.min_anls),
            (
                "min_exact_critical",
                Metric::ExactCritical,
                &t.min_exact_critical,
            ),
            (
                "min_anls_critical",
                Metric::AnlsCritical,
                &t.min_anls_critical,
            ),
            ("max_brier", Metric::Brier, &t.max_brier),
            ("max_ece", Metric::Ece, &t.max_ece),
            ("max_extra_fields", Metric::ExtraFields, &t.max_extra_fields),
            ("min_f1", Metric::F1, &t.min_f1),
            ("min_precision", Metric::Precision, &t.min_precision),
            ("min_recall", Metric::Recall, &t.min_recall),
        ];
        let mut out = Vec::new();
        for (name, metric, value) in all {
            let Some(value) = value else { continue };
            let mark = Mark::of(&value.referenced);
            let path = format!("thresholds.{name}");
            if metric == Metric::ExtraFields {
                if !(value.value >= 0.0 && value.value.fract() == 0.0) {
                    return Err(self
                        .err(
                            mark,
                            &path,
                            format!("`{name}` is {}, not a count", value.value),
                        )
                        .hint("write a whole number such as 0"));
                }
            } else if !(0.0..=1.0).contains(&value.value) {
                return Err(self
                    .err(
                        mark,
                        &path,
                        format!("`{name}` is {}, outside [0, 1]", value.value),
                    )
                    .hint("metrics and the score lie between 0 and 1"));
            }
            if matches!(metric, Metric::ExactCritical | Metric::AnlsCritical) && critical.is_empty()
            {
                return Err(self.err(mark, &path, format!("`{name}` bounds the critical fields, but `critical` is empty"))
                    .hint("list the critical fields with `critical: [field, ...]`, or remove this threshold"));
            }
            out.push(Threshold {
                name: name.into(),
                metric,
                limit: value.value,
                is_max: name.starts_with("max_"),
                line: mark.line,
            });
        }
        Ok(out)
    }

    fn prediction(&self, spec: &CaseFile) -> Result<PredictionSource, LoadError> {
        match (&spec.prediction, &spec.prediction_text) {
            (Some(node), Some(_)) => Err(self.err(node.mark, "prediction", "give either `prediction` or `prediction_text`, not both")),
            (None, Some(text)) => Ok(PredictionSource::Text(text.value.clone())),
            (None, None) => Err(self.err(Mark { line: 1, column: 1 }, "", "this case has no prediction")
                .hint("add `prediction: outputs/NAME.json`, a path relative to this file, or an inline mapping, or `prediction_text:`")),
            (Some(node), None) => match &node.kind {
                NodeKind::Text(path) => {
                    let ext = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
                    if !matches!(ext, "json" | "yaml" | "yml" | "txt") {
                        return Err(self.err(node.mark, "prediction", format!("prediction file `{path}` must end in .json, .yaml, .yml or .txt"))
                            .hint("a string under `prediction:` is always a path; for inline text use `prediction_text:`"));
                    }
                    let base = self.file.parent().unwrap_or(Path::new("."));
                    Ok(PredictionSource::File { path: base.join(path), at: node.mark })
                }
                NodeKind::Map(_) => Ok(PredictionSource::Inline(node.clone())),
                _ => Err(self.err(node.mark, "prediction", format!("`prediction` must be a file path or a mapping, found {}", node.kind_name()))),
            },
        }
    }
}

/// Resolves rubric entries against the rubric sets folder and the case's gold fields.
struct Sets<'a> {
    dir: &'a Path,
    gold: &'a [&'a str],
    /// The sets being included, outermost first: (canonical path, name), to catch cycles.
    stack: Vec<(PathBuf, String)>,
}

impl Sets<'_> {
    /// Adds the rubrics of one entry (a rubric, or an include) to `out`.
    fn resolve(
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
