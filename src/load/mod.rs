//! Case file -> checked [`Case`]: parse, validate, resolve rubric includes. Every mistake is a
//! [`LoadError`] naming the file, line, column, YAML path and the fix.

mod acceptance;
pub mod cases;
pub mod discover;
mod fields;
mod folder;
mod gold_file;
mod kieval_csv;
mod merge;
mod metadata;
mod place;
pub mod prediction;
mod prediction_format;
mod rubrics;
mod shortlist;
pub mod suite;
mod usage;

pub use folder::{Entry, Load, Planned, Problem, When, is_a_prediction, load_folder, plan_folder};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

use crate::base::budget::{OVERSIZED_HINT, oversized};
use crate::base::fs::read_text;
use crate::base::location::Mark;
use crate::base::location::{LoadError, closest};
use crate::base::normalize::Normalize;
use crate::base::value::Value;
use crate::load::suite::Suite;
use crate::model::case::{
    BoxUnits, Case, Document, FieldRule, GoldField, Grounding, PredictionSource, Profile, Scoring,
    WrittenIn,
};
use crate::model::metric::{
    DEFAULT_ECE_BINS, DEFAULT_PENALTY, Direction, Metric, Range, Threshold,
};
use crate::model::place::Place;
use crate::model::rubric::RubricKind;
use crate::spec::{CaseFile, Node, NodeKind, ThresholdsSpec, parse_yaml};
use rubrics::Sets;

/// Reads and checks one case file under its suites: one [`Case`] per pipeline (named
/// `id::pipeline`), or one when the suites declare none.
pub fn load_case_in(
    file: &Path,
    id: &str,
    rubrics_dir: &Path,
    suite: &Suite,
) -> Result<Vec<Case>, Vec<LoadError>> {
    let source = read_text(file).map_err(|e| vec![e])?;
    let spec: CaseFile = parse(file, &source).map_err(|e| vec![e])?;
    load_spec(file, spec, id, rubrics_dir, suite, &cases::Given::default())
}

/// Checks a case as read (a case file's, or one a suite's `cases:` makes, with what it `given`)
/// under its suites: one [`Case`] per pipeline.
fn load_spec(
    file: &Path,
    mut spec: CaseFile,
    id: &str,
    rubrics_dir: &Path,
    suite: &Suite,
    given: &cases::Given,
) -> Result<Vec<Case>, Vec<LoadError>> {
    let (mut origin, own_prediction) = inherit_defaults(&mut spec, suite);
    let labels = cases::tags_of(&spec, &origin, file).map_err(|e| vec![e])?;
    let gold_file = cases::gold_from_file(&mut spec, &mut origin, file, given)?;
    let case_in = CaseIn {
        file,
        named: given.case_file.as_deref().unwrap_or(file),
        spec: &spec,
        suite,
        origin,
    };
    let (mut case, prediction) = case_in.case(id, rubrics_dir, own_prediction)?;
    if let Some(g) = gold_file {
        case.gold_file = Some(g.path);
        case.gold_json = g.json.map(std::sync::Arc::new);
    }
    if let Some(named_by) = &given.case_file {
        case.named_by.clone_from(named_by);
    }
    case.formerly_named_by = given.gold.as_ref().map(|(gold, _, _)| gold.clone());
    case.schema.clone_from(&given.schema);
    (case.tags, case.attributes) = labels;
    case.attributes.extend(given.attributes.iter().cloned());
    judge_declared(&case).map_err(|e| vec![e])?;
    let document = case_in.document();
    let sources = Sources {
        here: &Here { file },
        named: given.case_file.as_deref().unwrap_or(file),
        spec: &spec,
        prediction: prediction.as_ref(),
        own_prediction,
        document: document.as_ref(),
    };
    let mut cases = per_pipeline(case, suite, &sources).map_err(|e| vec![e])?;
    read_through_formats(file, &spec, suite, &mut cases).map_err(|e| vec![e])?;
    if let Some(e) = cases.iter().find_map(csv_outside_kieval) {
        return Err(vec![e]);
    }
    Ok(cases)
}

/// Gives each case's prediction the format its document is read through: the case's own, else
/// its pipeline's, else its suites' (each replaces the next whole).
fn read_through_formats(
    file: &Path,
    spec: &CaseFile,
    suite: &Suite,
    cases: &mut [Case],
) -> Result<(), LoadError> {
    let own = spec
        .prediction_format
        .as_ref()
        .map(|f| prediction_format::format(file, "prediction_format", f).map(std::sync::Arc::new))
        .transpose()?;
    for case in cases {
        let pipeline = case.pipeline.as_deref().and_then(|name| {
            let pipelines = suite.pipelines.as_ref()?;
            Some((name, pipelines.format_of(name)?))
        });
        let format = own
            .clone()
            .or_else(|| pipeline.map(|(_, f)| std::sync::Arc::clone(f)))
            .or_else(|| suite.prediction_format.clone());
        match &mut case.prediction {
            PredictionSource::File { format: f, .. } | PredictionSource::Run { format: f, .. } => {
                *f = format;
            }
            // A format with nothing to read through it would be a setting that does nothing.
            PredictionSource::Inline(..) | PredictionSource::Text(_) => {
                if let Some(f) = &spec.prediction_format {
                    return Err(Here { file }
                        .err(
                            Mark::of(&f.fields.referenced),
                            "prediction_format",
                            "this case's `prediction_format` reads a pipeline's document, but its prediction is written in the case",
                        )
                        .hint("point `prediction:` at the pipeline's recorded .json document, or remove `prediction_format`"));
                }
                if let Some((name, f)) = pipeline {
                    return Err(LoadError::at(
                        &f.at.0,
                        f.at.1,
                        format!("pipelines.{name}.prediction_format"),
                        format!(
                            "the pipeline `{name}` reads its documents through a `prediction_format`, but the prediction of `{}` is written in the case",
                            file.display()
                        ),
                    )
                    .hint(format!("give `{name}` its recorded outputs, `prediction: outputs/{name}/{{case}}.json`, or remove its `prediction_format`")));
                }
            }
        }
    }
    Ok(())
}

/// A `.csv` gold or prediction is KIEval's layout, which only `profile: kieval` reads.
fn csv_outside_kieval(case: &Case) -> Option<LoadError> {
    if case.profile == crate::model::case::Profile::KiEval {
        return None;
    }
    let is_csv = |p: &Path| p.extension().is_some_and(|e| e == "csv");
    let (path, what) = match (&case.gold_file, &case.prediction) {
        (Some(g), _) if is_csv(g) => (g.clone(), "gold"),
        (_, PredictionSource::File { path, .. }) if is_csv(path) => (path.clone(), "prediction"),
        _ => return None,
    };
    Some(
        LoadError::file(
            &case.file,
            format!(
                "the {what} `{}` is a .csv, which goldgate reads in KIEval's layout only under `profile: kieval`",
                path.display()
            ),
        )
        .hint("add `profile: kieval` to the case or its suite, or give a .json or .yaml file"),
    )
}

/// A YAML file read as `T`, its mistakes located; those YAML's own message leaves unexplained
/// (a `[*]` path unquoted in flow style) are said with their fix.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    file: &Path,
    source: &str,
) -> Result<T, LoadError> {
    parse_yaml(file, source).map_err(|e| star_in_flow(e, source))
}

/// In flow style (`[a, b]`, `{k: v}`) a plain text ends at `[`, and a `*` after it starts an
/// alias: `sum_of: [line_items[*].amount]` fails with "while scanning an anchor or alias". Said
/// as what happened, at the path, with the line quoted.
fn star_in_flow(e: LoadError, source: &str) -> LoadError {
    if !e.message.starts_with("while scanning an anchor or alias") || e.line == 0 || e.column == 0 {
        return e;
    }
    let Some(line) = source.lines().nth(e.line as usize - 1) else {
        return e;
    };
    let chars: Vec<char> = line.chars().collect();
    let star = e.column as usize - 1;
    let (paths, content) = unquoted_star_paths(&chars);
    let Some(&(start, end)) = paths.iter().find(|(s, e)| (*s..*e).contains(&star)) else {
        return e;
    };
    let path: String = chars[start..end].iter().collect();
    // The line as it should read, every such path on it quoted, its comment left out.
    let mut quoted = String::new();
    for (i, c) in chars[..content].iter().enumerate() {
        if paths.iter().any(|(s, e)| i == *s || i == *e) {
            quoted.push('"');
        }
        quoted.push(*c);
    }
    if paths.iter().any(|(_, e)| *e == content) {
        quoted.push('"');
    }
    let mark = Mark {
        line: e.line,
        column: start as u64 + 1,
    };
    LoadError::at(
        &e.file,
        mark,
        e.yaml_path,
        format!("`{path}` is unquoted inside flow brackets, where YAML reads its `*` as an alias"),
    )
    .hint(format!(
        "quote the path{}: `{}`, or write it in block style",
        if paths.len() == 1 { "" } else { "s" },
        quoted.trim()
    ))
}

/// The paths with a `[*` on a line, outside quotes, each as the range of its characters; and
/// where the line's comment begins (its length without one).
fn unquoted_star_paths(chars: &[char]) -> (Vec<(usize, usize)>, usize) {
    let in_path = |c: char| c.is_alphanumeric() || "_-.*]".contains(c);
    let mut paths = Vec::new();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && (i == 0 || chars[i - 1].is_whitespace()) => {
                return (paths, i);
            }
            None if c == '*' && i > 0 && chars[i - 1] == '[' => {
                // Back over the path's name and any steps before (`a[0].b[*]`): a `[` right
                // after a name is a step, one after a space, `,`, `:` or a bracket opens a list.
                let mut start = i - 1;
                while start > 0
                    && (in_path(chars[start - 1])
                        || chars[start - 1] == '['
                            && start > 1
                            && in_path(chars[start - 2])
                            && chars[start - 2] != '.')
                {
                    start -= 1;
                }
                // On to the end of its steps (`[*].amount[0]`), where the list around it closes.
                let mut depth = 1;
                let mut end = i + 1;
                while end < chars.len() {
                    match chars[end] {
                        '[' => depth += 1,
                        ']' if depth == 0 => break,
                        ']' => depth -= 1,
                        c if in_path(c) => {}
                        _ => break,
                    }
                    end += 1;
                }
                paths.push((start, end));
                i = end;
                continue;
            }
            None => {}
        }
        i += 1;
    }
    (paths, chars.len())
}

/// A suite's mistake, with the other bounds of its `aggregate` out of range when it is one: a
/// suite is read up to its first mistake, but `lint` lists every bound to fix at once.
pub(crate) fn with_every_bound(e: LoadError) -> Vec<LoadError> {
    if !e.yaml_path.starts_with("aggregate.") {
        return vec![e];
    }
    let every = read_text(&e.file)
        .and_then(|text| parse_yaml::<crate::spec::SuiteFile>(&e.file, &text))
        .ok()
        .and_then(|spec| {
            let agg = spec.aggregate.as_ref()?;
            let here = Here { file: &e.file };
            here.every_bound("aggregate", |key| agg.value.bound(key), None)
                .err()
        });
    match every {
        Some(all) if all.contains(&e) => all,
        _ => vec![e],
    }
}

/// A case file under its suites, with the suite file each key it inherits is written in.
struct CaseIn<'a> {
    file: &'a Path,
    /// The file its names are made from (`{case}`): its case file, or the one a gold set's case
    /// would have.
    named: &'a Path,
    spec: &'a CaseFile,
    suite: &'a Suite,
    origin: HashMap<&'static str, PathBuf>,
}

/// Where a mapping's key is written, from its value's mark: the key before the value on its
/// line (a node keeps no mark of its key), else the value's own.
fn key_mark(file: &Path, value: Mark, key: &str) -> Mark {
    let column = std::fs::read_to_string(file).ok().and_then(|text| {
        let line = text
            .lines()
            .nth(usize::try_from(value.line).ok()?.checked_sub(1)?)?;
        let before: String = line
            .chars()
            .take(usize::try_from(value.column).ok()?.saturating_sub(1))
            .collect();
        let at = before.rfind(key)?;
        Some(before[..at].chars().count() as u64 + 1)
    });
    column.map_or(value, |column| Mark {
        line: value.line,
        column,
    })
}

/// A gold value that says where it is on the document: a mapping whose keys are `value` and
/// only `page` and/or `bbox` (any other key makes it a tree, compared whole). Its value node,
/// page and box.
fn grounded_value(node: &Node) -> Option<(&Node, Option<&Node>, Option<&Node>)> {
    let entries = node.as_map()?;
    let get = |key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let only_place = entries
        .iter()
        .all(|(k, _)| matches!(k.as_str(), "value" | "page" | "bbox"));
    let (value, page, bbox) = (get("value")?, get("page"), get("bbox"));
    (only_place && (page.is_some() || bbox.is_some())).then_some((value, page, bbox))
}

/// A check's value, or `otherwise` with its mistake kept: past parsing, every mistake is
/// collected, so that `lint` lists them all.
fn keep<T>(errors: &mut Vec<LoadError>, result: Result<T, LoadError>, otherwise: T) -> T {
    result.unwrap_or_else(|e| {
        errors.push(e);
        otherwise
    })
}

/// A mistake in a suite's key, named for the case it was applied to.
fn as_applied_to(file: &Path, mut e: LoadError) -> LoadError {
    e.message
        .push_str(&format!(", as applied to `{}`", file.display()));
    e
}

/// The critical field names the suites give, nearest suite first.
fn suite_critical(suite: &Suite) -> Option<&[Spanned<String>]> {
    suite
        .defaults
        .iter()
        .find_map(|(_, d)| d.critical.as_deref())
}

/// One file that writes a key that merges across levels (`thresholds`, `rubrics`).
struct Level<'a, T> {
    /// The suite or case file.
    file: &'a Path,
    value: &'a T,
    /// Whether it is a suite's `defaults`: its mistakes then name the case.
    suite: bool,
}

impl<'a> CaseIn<'a> {
    /// The files that write a key for this case, outermost first: each suite's `defaults`, then
    /// the case itself.
    fn levels<T>(&self, key: impl Fn(&'a CaseFile) -> Option<&'a T>) -> Vec<Level<'a, T>> {
        let suites = self.suite.defaults.iter().rev().filter_map(|(file, d)| {
            key(d).map(|value| Level {
                file: file.as_path(),
                value,
                suite: true,
            })
        });
        let case = key(self.spec).map(|value| Level {
            file: self.file,
            value,
            suite: false,
        });
        suites.chain(case).collect()
    }
}

impl CaseIn<'_> {
    /// Checks for a key, located in the file it is written in: the case's, or a suite's.
    fn at(&self, key: &str) -> Here<'_> {
        Here {
            file: self.origin.get(key).map_or(self.file, PathBuf::as_path),
        }
    }

    /// The case, checked whole (every mistake in it, else the case), with its prediction: `None`
    /// when the suites give one per pipeline.
    fn case(
        &self,
        id: &str,
        rubrics_dir: &Path,
        own_prediction: bool,
    ) -> Result<(Case, Option<PredictionSource>), Vec<LoadError>> {
        let (file, spec, suite) = (self.file, self.spec, self.suite);
        let mut errors: Vec<LoadError> = Vec::new();
        let grounding = self.grounding(&mut errors);
        let gold = self.gold_with_rules(&grounding, &mut errors);
        let scoring = self.scoring(&mut errors);
        let profile = self.profile(&mut errors);
        let critical = self.critical(gold.as_deref(), &mut errors);
        let normalize = self.normalize(&mut errors);
        let rubrics = self.rubrics(rubrics_dir, gold.as_deref(), normalize, &mut errors);
        let thresholds = self.thresholds(&critical, &mut errors);
        let ece_bins = self.ece_bins(&mut errors);
        let prediction = self.prediction(own_prediction, &rubrics, &mut errors);
        errors.extend(self.missing_document());
        // Rubrics or thresholds that failed to load still meant to check something.
        if errors.is_empty()
            && let Some(e) = could_only_pass(
                file,
                suite,
                (&rubrics, gold.as_deref().unwrap_or_default()),
                &thresholds,
                scoring,
            )
        {
            errors.push(e);
        }
        let skip = self.skip(&mut errors);
        if !errors.is_empty() {
            // In the order of the files and lines, so that the first is the first to fix.
            errors.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
            return Err(errors);
        }
        let case = Case {
            id: id.to_owned(),
            file: file.to_path_buf(),
            named_by: file.to_path_buf(),
            formerly_named_by: None,
            description: spec.description.clone(),
            tags: Vec::new(),
            attributes: Vec::new(),
            gold_file: None,
            skip,
            prediction: prediction
                .clone()
                .unwrap_or(PredictionSource::Text(String::new())),
            gold,
            critical,
            normalize,
            rubrics: rubrics.into_iter().map(std::sync::Arc::new).collect(),
            thresholds,
            ece_bins,
            profile,
            pipeline: None,
            pricing: suite.pricing.clone(),
            pricing_at: suite.pricing_at.clone(),
            baseline: suite.baseline.clone(),
            history: suite.history.clone(),
            aggregates: suite.aggregates.clone(),
            suite_folder: self.suite_folder(),
            scoring,
            reference: None,
            judge: suite.judge.clone(),
            pass: suite.pass.unwrap_or_default(),
            gold_json: None,
            schema: None,
            grounding,
            document: self.document().map(|d| d.path),
            target_error: suite
                .target_error
                .unwrap_or(crate::metrics::acceptance::DEFAULT_TARGET_ERROR),
            acceptance: suite.acceptance.clone(),
            kieval_keys: suite.kieval_keys.clone(),
        };
        Ok((case, prediction))
    }

    /// The bins of the case's ECE.
    fn ece_bins(&self, errors: &mut Vec<LoadError>) -> u32 {
        keep(
            errors,
            self.at("ece_bins").ece_bins(self.spec.ece_bins.as_ref()),
            DEFAULT_ECE_BINS,
        )
    }

    /// Why the case is skipped, if it is.
    fn skip(&self, errors: &mut Vec<LoadError>) -> Option<String> {
        keep(
            errors,
            self.spec
                .skip
                .as_ref()
                .map(|s| self.at("skip").skip_reason(s))
                .transpose(),
            None,
        )
    }

    /// The folder of the case's innermost suite, else its own.
    fn suite_folder(&self) -> PathBuf {
        self.suite
            .folder
            .clone()
            .unwrap_or_else(|| self.file.parent().unwrap_or(Path::new("")).to_path_buf())
    }

    /// How the case's places are read: its suites' `bbox_units` and `grounded_iou`, its own
    /// `page_size`.
    fn grounding(&self, errors: &mut Vec<LoadError>) -> Grounding {
        let mut grounding = Grounding {
            units: self.suite.bbox_units.unwrap_or_default(),
            ..Grounding::default()
        };
        if let Some(iou) = self.suite.grounded_iou {
            grounding.min_iou = iou;
        }
        if let Some(size) = &self.spec.page_size {
            let (w, h) = (size.value.width, size.value.height);
            if w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0 {
                grounding.page_size = Some((w, h));
            } else {
                errors.push(
                    self.at("page_size")
                        .err(
                            Mark::of(&size.referenced),
                            "page_size",
                            format!("`page_size` must give a width and a height above 0, found {w} x {h}"),
                        )
                        .hint("give the page's size in pixels: `page_size: { width: 1240, height: 1754 }`"),
                );
            }
        }
        if self.places_any() {
            match self.document() {
                Some(document) => match place::pdf_pages(&document, grounding.units) {
                    Ok(pages) => grounding.pdf_pages = pages,
                    Err(e) => errors.push(e),
                },
                None if grounding.units == BoxUnits::Points => errors.push(self.no_pdf()),
                None => {}
            }
        }
        grounding
    }

    /// Whether the case's gold places any value on the document (a `page` or a `bbox`): only
    /// then is its document read for its pages.
    fn places_any(&self) -> bool {
        self.spec
            .gold
            .as_ref()
            .and_then(Node::as_map)
            .is_some_and(|m| m.iter().any(|(_, v)| grounded_value(v).is_some()))
    }

    /// The mistake of boxes in PDF points in a case that names no document to measure them on.
    fn no_pdf(&self) -> LoadError {
        let gold = self
            .spec
            .gold
            .as_ref()
            .map_or(Mark { line: 1, column: 1 }, |g| g.mark);
        self.at("gold")
            .err(
                gold,
                "gold",
                "this case's boxes are in PDF points (`bbox_units: points`), but it names no `document:` to read its pages' sizes from",
            )
            .hint("name the PDF the boxes are on: `document: scans/acme.pdf` (in the case, or `{case}` in the suite's `defaults`)")
    }

    /// The gold fields, with the case's own `fields` rules applied and then its suites'.
    fn gold_with_rules(
        &self,
        grounding: &Grounding,
        errors: &mut Vec<LoadError>,
    ) -> Option<Vec<GoldField>> {
        let spec = self.spec;
        let mut gold = keep(
            errors,
            spec.gold
                .as_ref()
                .map(|g| self.at("gold").gold(g, grounding))
                .transpose(),
            None,
        );
        if let Some(rules) = &spec.fields {
            keep(
                errors,
                self.at("fields")
                    .rules(rules, gold.as_mut(), spec.gold.as_ref()),
                (),
            );
        }
        // The suites' rules, deeper over outer, for the fields this case's gold has and its own
        // `fields` leaves alone; a mistake in one is located in its suite file, naming the case.
        for (name, (rule, from)) in suite_rules(self.suite) {
            let own = spec.fields.as_ref().is_some_and(|f| f.contains_key(name));
            let has = gold.iter().flatten().any(|g| g.is_reached_by(name));
            if own || !has {
                continue;
            }
            let one = std::collections::BTreeMap::from([(name.clone(), rule.clone())]);
            keep(
                errors,
                Here { file: from }
                    .rules(&one, gold.as_mut(), spec.gold.as_ref())
                    .map_err(|e| as_applied_to(self.file, e)),
                (),
            );
        }
        gold
    }

    fn scoring(&self, errors: &mut Vec<LoadError>) -> Scoring {
        match &self.spec.scoring {
            None => self.suite.scoring.unwrap_or_default(),
            Some(s) => keep(errors, self.at("scoring").scoring(s), Scoring::default()),
        }
    }

    fn profile(&self, errors: &mut Vec<LoadError>) -> Profile {
        match &self.spec.profile {
            None => self.suite.profile.unwrap_or(Profile::Dream),
            Some(p) => keep(errors, self.at("profile").profile(p), Profile::Dream),
        }
    }

    fn critical(&self, gold: Option<&[GoldField]>, errors: &mut Vec<LoadError>) -> Vec<String> {
        match &self.spec.critical {
            Some(own) => keep(errors, self.at("critical").critical(own, gold), Vec::new()),
            // A suite's critical names that this case's gold has.
            None => suite_critical(self.suite).map_or_else(Vec::new, |names| {
                names
                    .iter()
                    .filter(|n| gold.into_iter().flatten().any(|g| g.name == n.value))
                    .map(|n| n.value.clone())
                    .collect()
            }),
        }
    }

    fn normalize(&self, errors: &mut Vec<LoadError>) -> Normalize {
        match &self.spec.normalize {
            Some(node) => keep(
                errors,
                self.at("normalize").normalize(node, "normalize"),
                Normalize::ALL,
            ),
            None => Normalize::ALL,
        }
    }

    /// The rubrics, with the rubric sets they include resolved: the suites' `defaults` first,
    /// then the case's (see [`merge::rubrics_over`]), from the nearest level that says `replace`.
    fn rubrics(
        &self,
        rubrics_dir: &Path,
        gold: Option<&[GoldField]>,
        normalize: Normalize,
        errors: &mut Vec<LoadError>,
    ) -> Vec<crate::model::rubric::Rubric> {
        let gold_names: Vec<&str> = gold
            .into_iter()
            .flatten()
            .map(|f| f.name.as_str())
            .collect();
        let mut sets = Sets {
            dir: rubrics_dir,
            gold: &gold_names,
            stack: Vec::new(),
            penalty: self.suite.easy_wrong_penalty.unwrap_or(DEFAULT_PENALTY),
            normalize,
        };
        let levels = self.levels(|d| d.rubrics.as_ref());
        // The levels above the nearest `replace` are dropped unread: their mistakes are not this
        // case's.
        let from = levels.iter().rposition(|l| l.value.replaces()).unwrap_or(0);
        let mut rubrics = Vec::new();
        for level in &levels[from..] {
            let mut own = Vec::new();
            for (i, entry) in level.value.entries().iter().enumerate() {
                let path = format!("{}[{i}]", level.value.path());
                let resolved = sets.resolve(level.file, &path, entry, &mut own);
                // A suite's rubric is checked against this case's gold: its mistake names the case.
                let resolved = match resolved {
                    Err(e) if level.suite => Err(as_applied_to(self.file, e)),
                    other => other,
                };
                keep(errors, resolved, ());
            }
            rubrics = merge::rubrics_over(rubrics, own, |r| r.label.as_str());
        }
        rubrics
    }

    /// The case's thresholds: its suites' `defaults` and its own merged bound by bound (see
    /// [`merge::holding_bounds`]), each checked in the file it is written in.
    fn thresholds(&self, critical: &[String], errors: &mut Vec<LoadError>) -> Vec<Threshold> {
        let levels = self.levels(|d| d.thresholds.as_ref());
        let specs: Vec<&ThresholdsSpec> = levels.iter().map(|l| &l.value.value).collect();
        let holding = merge::holding_bounds(&specs);
        // A suite's critical names apply where the gold has them: a receipt with none of a suite's
        // critical fields is not held to the suite's critical thresholds (its own would be an error).
        let no_suite_critical_here = self.spec.critical.is_none()
            && critical.is_empty()
            && suite_critical(self.suite).is_some_and(|names| !names.is_empty());
        let critical_keys = [
            Metric::ExactCritical.threshold_key(),
            Metric::AnlsCritical.threshold_key(),
        ];
        let mut out = Vec::new();
        for (i, level) in levels.iter().enumerate() {
            let skip_critical = level.suite && no_suite_critical_here;
            let written: Vec<&(usize, &str, Spanned<f64>)> = holding
                .iter()
                .filter(|(at, key, _)| *at == i && !(skip_critical && critical_keys.contains(key)))
                .collect();
            if written.is_empty() {
                continue;
            }
            let bound = |key: &str| {
                written
                    .iter()
                    .find(|(_, k, _)| *k == key)
                    .map(|(_, _, v)| v)
            };
            // Every bound out of range is said, each where it is written.
            match (Here { file: level.file }).every_bound("thresholds", bound, Some(critical)) {
                Ok(thresholds) => out.extend(thresholds),
                Err(all) => errors.extend(all.into_iter().map(|e| {
                    if level.suite {
                        as_applied_to(self.file, e)
                    } else {
                        e
                    }
                })),
            }
        }
        Threshold::in_metric_order(&mut out);
        out
    }

    /// The case's prediction; `None` when the suites give one per pipeline, by `run` or by a
    /// recorded file for each.
    fn prediction(
        &self,
        own_prediction: bool,
        rubrics: &[crate::model::rubric::Rubric],
        errors: &mut Vec<LoadError>,
    ) -> Option<PredictionSource> {
        let suite = self.suite;
        let from_suite = !own_prediction
            && (suite.run.is_some()
                || suite
                    .pipelines
                    .as_ref()
                    .is_some_and(|p| p.list.iter().all(|(_, t)| t.is_some())));
        let prediction = if from_suite {
            None
        } else {
            let written_in = self
                .origin
                .get("prediction")
                .map_or(WrittenIn::Case, |suite| WrittenIn::Defaults(suite.clone()));
            keep(
                errors,
                self.at("prediction")
                    .prediction(self.spec, written_in)
                    .map(Some),
                None,
            )
        };
        if prediction.as_ref().is_some_and(is_text) {
            errors.extend(fields_of_a_text(self.spec, rubrics, &self.at("gold")));
        }
        prediction
    }

    /// The mistake of a `document:` outside the project or not a file: a gold set with its scan
    /// gone is broken, whether or not a `run` command reads it.
    fn missing_document(&self) -> Option<LoadError> {
        let document = self.document()?;
        // The HTML page embeds a failing grounded case's document: one outside the project is
        // never read, lest a pull request publish any image its reader can open.
        let (named_in, at) = &document.at;
        let outside = crate::base::fs::inside_the_project(
            &document.path,
            "document",
            (named_in, *at, "document"),
        );
        let e = outside
            .err()
            .or_else(|| prediction::missing_document(&document))?;
        Some(if self.origin.contains_key("document") {
            as_applied_to(self.file, e)
        } else {
            e
        })
    }

    /// The document, its path relative to the file that names it; in a suite's `defaults`,
    /// `{case}` is the case's name from the suite's folder (`scans/{case}.pdf`), as in its
    /// pipelines' paths.
    fn document(&self) -> Option<Document> {
        self.spec.document.as_ref().map(|d| {
            let written = self.at("document").file;
            let folder = written.parent().unwrap_or(Path::new(""));
            let path = if written != self.file {
                let case = crate::base::fs::case_name(self.named, folder);
                d.value.replace("{case}", &case)
            } else {
                d.value.clone()
            };
            Document {
                path: folder.join(path),
                at: (written.to_path_buf(), Mark::of(&d.referenced)),
            }
        })
    }
}

/// Why a case that loaded cleanly could only ever pass, if it could: it checks nothing, every
/// check holds on any prediction, or only Easy-Wrong rubrics can lower a score nothing bounds.
/// `gold` is the case's gold fields, which rubrics compare with.
fn could_only_pass(
    file: &Path,
    suite: &Suite,
    (rubrics, gold): (&[crate::model::rubric::Rubric], &[GoldField]),
    thresholds: &[Threshold],
    scoring: Scoring,
) -> Option<LoadError> {
    let gold: Vec<&str> = gold.iter().map(|g| g.name.as_str()).collect();
    let cannot_fail =
        |r: &crate::model::rubric::Rubric| rubrics::holds_on_anything(&r.probe, &gold);
    if rubrics.is_empty() && thresholds.is_empty() {
        return Some(LoadError::at(file, Mark { line: 1, column: 1 }, "", "this case checks nothing: it has no rubric and no threshold, so it could only ever pass")
            .hint("add `rubrics:` or `thresholds:`, for example `thresholds: { min_exact_match: 1.0 }`"));
    }
    if rubrics.iter().all(&cannot_fail)
        && thresholds
            .iter()
            .all(|t| bound_cannot_fail(t, rubrics.is_empty()))
    {
        // Located at its first check, the one to change.
        let (at_file, mark) =
            first_check(rubrics, thresholds).unwrap_or((file, Mark { line: 1, column: 1 }));
        return Some(LoadError::at(at_file, mark, "", "every check of this case holds whatever the prediction says, so it could only ever pass")
            .hint("bound a metric that can fail (`min_exact_match: 1.0`), or give a rubric a check that can fail"));
    }
    if suite.baseline.is_none()
        && suite.aggregates.is_empty()
        && only_easy_wrong_lowers_a_score_nothing_bounds(rubrics, &cannot_fail, thresholds, scoring)
    {
        let r = rubrics
            .iter()
            .find(|r| r.kind == RubricKind::EasyWrong && !cannot_fail(r))
            .unwrap_or(&rubrics[0]);
        return Some(LoadError::at(&r.file, Mark { line: r.line, column: r.column }, "", "no check of this case can fail it: its Easy-Wrong rubrics only lower the score, and no `min_score` (nor a baseline or an aggregate) holds the score they can lower it to, so it could only ever pass")
            .hint("add `thresholds: { min_score: 0.9 }` above what the failed rubrics leave, or make a rubric `must_right`"));
    }
    None
}

/// Where a case's first check is written: its first rubric, else its first threshold.
fn first_check<'a>(
    rubrics: &'a [crate::model::rubric::Rubric],
    thresholds: &'a [Threshold],
) -> Option<(&'a Path, Mark)> {
    rubrics
        .first()
        .map(|r| {
            (
                r.file.as_path(),
                Mark {
                    line: r.line,
                    column: r.column,
                },
            )
        })
        .or_else(|| {
            thresholds.first().map(|t| {
                (
                    t.file.as_path(),
                    Mark {
                        line: t.line,
                        column: t.column,
                    },
                )
            })
        })
}

/// A `judge:` check with no judge to ask could never be checked: said now, where it is written.
fn judge_declared(case: &Case) -> Result<(), LoadError> {
    if case.judge.is_none()
        && let Some(r) = case.rubrics.iter().find(|r| asks_a_judge(&r.probe.check))
    {
        return Err(LoadError::at(
            &r.file,
            Mark {
                line: r.line,
                column: r.column,
            },
            "rubrics",
            format!(
                "{} `{}` asks a judge, but no suite above the case declares one",
                r.kind.key(),
                r.label
            ),
        )
        .hint("declare it in the suite: `judge: {command: [python3, judge.py], verdicts: verdicts.json}`"));
    }
    Ok(())
}

/// Whether a check (or one nested in it) is a `judge:` check.
fn asks_a_judge(check: &crate::model::rubric::Check) -> bool {
    use crate::model::rubric::Check;
    match check {
        Check::Judge(_) => true,
        Check::All(probes) | Check::Any(probes) => probes.iter().any(|p| asks_a_judge(&p.check)),
        Check::Not(probe) => asks_a_judge(&probe.check),
        _ => false,
    }
}

/// Whether the only checks that can fail are Easy-Wrong rubrics whose failures no threshold
/// notices: every Must-Right rubric holds on any text, every threshold but `min_score` cannot
/// fail, and `min_score` (if any) is at most the lowest score the Easy-Wrong rubrics can leave.
fn only_easy_wrong_lowers_a_score_nothing_bounds(
    rubrics: &[crate::model::rubric::Rubric],
    cannot_fail: &dyn Fn(&crate::model::rubric::Rubric) -> bool,
    thresholds: &[Threshold],
    scoring: Scoring,
) -> bool {
    let failable: Vec<_> = rubrics.iter().filter(|r| !cannot_fail(r)).collect();
    if failable.is_empty() || failable.iter().any(|r| r.kind == RubricKind::MustRight) {
        return false;
    }
    let lowest = match scoring {
        Scoring::Fraction => 0.0,
        Scoring::Penalty => (1.0 - failable.iter().map(|r| r.penalty).sum::<f64>()).max(0.0),
    };
    thresholds.iter().all(|t| {
        if t.metric == Metric::Score {
            t.limit <= lowest
        } else {
            bound_cannot_fail(t, false)
        }
    })
}

/// A bound no value can break: `min_score` without a rubric (the score is then 1), or a bound
/// that holds at the worst value its metric can take, 0 for a `min_` and 1 for a `max_` on a
/// metric in [0, 1]. The bound's own comparison decides, slack of 1e-9 included, so that
/// `min_exact_match: 1e-10` cannot fail any more than `min_exact_match: 0` can.
fn bound_cannot_fail(t: &Threshold, no_rubric: bool) -> bool {
    let about = t.metric.about();
    let worst = match (about.direction, about.range) {
        // Every metric bounded from below is 0 or more.
        (Direction::Higher, _) => Some(0.0),
        (Direction::Lower, Range::Unit) => Some(1.0),
        // Latency, cost and counts have no worst value.
        (Direction::Lower, _) => None,
    };
    (t.metric == Metric::Score && no_rubric) || worst.is_some_and(|w| t.holds(w))
}

/// The `fields` rules of a case's suites by field, a deeper suite's over an outer one's, each with
/// the suite file it is written in.
fn suite_rules(
    suite: &Suite,
) -> std::collections::BTreeMap<&String, (&Spanned<crate::spec::FieldRuleSpec>, &Path)> {
    let mut rules = std::collections::BTreeMap::new();
    // `defaults` is nearest first: the outer ones go in first and are overridden.
    for (file, defaults) in suite.defaults.iter().rev() {
        for (name, rule) in defaults.fields.iter().flatten() {
            rules.insert(name, (rule, file.as_path()));
        }
    }
    rules
}

/// A suite's `defaults` give the keys the case leaves out, whole (but for those that merge);
/// errors in them point at the suite file (the returned origins), and their paths are relative
/// to it. Also says whether the case gives its own prediction.
fn inherit_defaults(spec: &mut CaseFile, suite: &Suite) -> (HashMap<&'static str, PathBuf>, bool) {
    let mut origin: HashMap<&'static str, PathBuf> = HashMap::new();
    macro_rules! inherit {
        ($($key:ident),*) => {$(
            if spec.$key.is_none()
                && let Some((from, value)) = suite.defaults.iter().find_map(|(f, d)| d.$key.as_ref().map(|v| (f, v)))
            {
                spec.$key = Some(value.clone());
                origin.insert(stringify!($key), from.clone());
            }
        )*};
    }
    // `fields` and `critical` are not taken whole: a suite's rules and critical names apply
    // where the case's gold has the field, merged rule by rule. `thresholds` and `rubrics` merge
    // too (`CaseIn::thresholds`, `CaseIn::rubrics`).
    inherit!(
        description,
        tags,
        skip,
        gold,
        normalize,
        ece_bins,
        profile,
        document,
        page_size
    );
    let own_prediction = spec.prediction.is_some() || spec.prediction_text.is_some();
    if !own_prediction
        && let Some((from, d)) = suite
            .defaults
            .iter()
            .find(|(_, d)| d.prediction.is_some() || d.prediction_text.is_some())
    {
        spec.prediction = d.prediction.clone();
        spec.prediction_text = d.prediction_text.clone();
        origin.insert("prediction", from.clone());
    }
    (origin, own_prediction)
}

/// A text prediction has no fields: `gold` and `field:` rubrics cannot apply to it.
fn fields_of_a_text(
    spec: &CaseFile,
    rubrics: &[crate::model::rubric::Rubric],
    gold_at: &Here,
) -> Vec<LoadError> {
    let mut errors = Vec::new();
    if let Some(g) = &spec.gold {
        errors.push(gold_at.err(g.mark, "gold", "a text prediction has no fields to compare with `gold`")
            .hint("check free text with rubrics alone, or record the prediction as a .json field document"));
    }
    if let Some(r) = rubrics.iter().find(|r| r.field().is_some()) {
        errors.push(
            LoadError::at(
                &r.file,
                Mark {
                    line: r.line,
                    column: 1,
                },
                "",
                format!(
                    "rubric `{}` reads the field `{}`, but a text prediction has no fields",
                    r.label,
                    r.field().unwrap_or_default()
                ),
            )
            .hint("remove `field:` to check the whole text"),
        );
    }
    errors
}

/// What decides where each pipeline's prediction comes from.
struct Sources<'a> {
    here: &'a Here<'a>,
    /// The path `{case}` is the name of: the case file, or where a gold set's case file would be.
    named: &'a Path,
    spec: &'a CaseFile,
    /// The prediction the case (or a suite's `defaults`) gives, if any.
    prediction: Option<&'a PredictionSource>,
    /// Whether the case file itself gives it: it then wins over the suite's.
    own_prediction: bool,
    document: Option<&'a Document>,
}

/// One case per pipeline (or one without pipelines), each with its prediction: the case's own,
/// else the suite's `run` command, else the pipeline's recorded file.
fn per_pipeline(case: Case, suite: &Suite, sources: &Sources) -> Result<Vec<Case>, LoadError> {
    let pipelines: Vec<(Option<String>, Option<String>)> = match &suite.pipelines {
        Some(p) => p
            .list
            .iter()
            .map(|(n, t)| (Some(n.clone()), t.clone()))
            .collect(),
        None => vec![(None, None)],
    };
    // Under pipelines, a case's own prediction would be scored alike by each of them, and their
    // outputs never read: a comparison that compares nothing.
    if let (true, Some(p)) = (sources.own_prediction, &suite.pipelines) {
        return Err(own_prediction_under_pipelines(sources, p));
    }
    let mut out = Vec::with_capacity(pipelines.len());
    // The last pipeline (the only one, without pipelines) takes the case itself: a clone per
    // case is memory and time a gold set of thousands pays for nothing.
    let count = pipelines.len();
    let mut base = Some(case);
    for (i, (pipeline, template)) in pipelines.into_iter().enumerate() {
        let next = if i + 1 < count {
            base.clone()
        } else {
            base.take()
        };
        let Some(mut case) = next else { break };
        if let Some(name) = &pipeline {
            case.id = format!("{}::{name}", case.id);
            case.reference = suite.pipelines.as_ref().map(|p| p.reference.clone());
        }
        case.prediction = pipeline_prediction(
            &case,
            suite,
            sources,
            i,
            pipeline.as_deref(),
            template.as_deref(),
        )?;
        case.pipeline = pipeline;
        out.push(case);
    }
    Ok(out)
}

/// The mistake of a case that gives its own prediction under a suite's pipelines.
fn own_prediction_under_pipelines(
    sources: &Sources,
    p: &crate::model::suite::Pipelines,
) -> LoadError {
    let mark = match (&sources.spec.prediction, &sources.spec.prediction_text) {
        (Some(node), _) => node.mark,
        (None, Some(text)) => Mark::of(&text.referenced),
        (None, None) => Mark { line: 1, column: 1 },
    };
    let names: Vec<String> = p.list.iter().map(|(n, _)| format!("`{n}`")).collect();
    sources
        .here
        .err(
            mark,
            "prediction",
            format!(
                "this case gives its own prediction, but `{}` declares pipelines ({}): each would score this one, and none its own",
                p.at.0.display(),
                names.join(", ")
            ),
        )
        .hint("remove `prediction:` to score each pipeline's output, or move the case to a folder without pipelines")
}

/// The prediction of the case for its `i`th pipeline (`template` the path of its recorded
/// outputs), filled in for the case.
fn pipeline_prediction(
    case: &Case,
    suite: &Suite,
    sources: &Sources,
    i: usize,
    pipeline: Option<&str>,
    template: Option<&str>,
) -> Result<PredictionSource, LoadError> {
    let fill = |at: &(PathBuf, Mark), text: &str, dir: &Path, argument: Option<(usize, bool)>| {
        expand(
            (sources.here, at),
            text,
            sources.named,
            dir,
            pipeline,
            sources.document,
            argument,
        )
    };
    Ok(
        match (sources.prediction, &suite.run, template, &suite.pipelines) {
            (Some(own), _, _, _)
                if sources.own_prediction || suite.run.is_none() && template.is_none() =>
            {
                own.clone()
            }
            (_, Some(run), _, _) => PredictionSource::Run {
                command: {
                    let code = crate::base::shell::code_arguments(&run.command);
                    run.command
                        .iter()
                        .zip(code)
                        .enumerate()
                        .map(|(i, (a, code))| fill(&run.at, a, &run.dir, Some((i, code))))
                        .collect::<Result<_, _>>()?
                },
                dir: run.dir.clone(),
                timeout: run.timeout,
                repeat: run.repeat,
                expect_fields: case.gold.is_some()
                    || case.rubrics.iter().any(|r| r.field().is_some()),
                document: sources.document.cloned(),
                at: run.at.clone(),
                format: None,
                pipeline: pipeline.map(str::to_owned),
                cache: std::sync::Arc::clone(&run.cache),
                policy: run.policy,
            },
            (_, None, Some(template), Some(p)) => {
                // This pipeline's own line, for errors in its path.
                let at = (p.at.0.clone(), p.marks.get(i).copied().unwrap_or(p.at.1));
                PredictionSource::File {
                    path: p.dir.join(fill(&at, template, &p.dir, None)?),
                    at: at.1,
                    written_in: WrittenIn::Pipeline(at.0),
                    format: None,
                }
            }
            (Some(own), _, _, _) => own.clone(),
            _ => sources.here.prediction(sources.spec, WrittenIn::Case)?,
        },
    )
}

/// Every `{name}` (letters and `_`) in a text, braces included.
fn placeholders(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('{').filter_map(|(i, _)| {
        let rest = &text[i + 1..];
        let end = rest.find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))?;
        (end > 0 && rest[end..].starts_with('}')).then(|| &text[i..i + end + 2])
    })
}

/// Fills `{case}`, `{pipeline}` and `{document}` in a suite's path or command argument
/// (`argument`, its index in `run.command` and whether a shell or interpreter there reads it as
/// code, see [`crate::base::shell::code_arguments`]).
///
/// A command's argument takes a value only if no shell or interpreter reads a character of it
/// specially: the suite's side (`suite::placeholder_may_stand`) keeps a placeholder out of
/// scripts, but cannot know that the program itself takes its argument as code (`[sh, -c,
/// "{case}"]`, `[awk, "{case}"]`, `[sed, -n, "{case}", f]`), so the value is checked too. One
/// holding anything but letters, digits and `_ - . /` (a document's path may hold spaces too),
/// or beginning the argument with `-` (an option), is refused for this case alone, at its file.
/// A document's space is refused in a script alone (`[sh, -c, "{document}"]` would run a file
/// named `touch PWNED` as a command), at the suite, whose command is what to change.
/// A value of letters alone still reaches a program that takes that argument as code
/// (`[node, -p, "{case}"]`): a placeholder belongs in a file argument, never in the code one. A path of recorded outputs is only read, and takes any value.
fn expand(
    (here, (suite_file, suite_mark)): (&Here, &(PathBuf, Mark)),
    text: &str,
    case_file: &Path,
    suite_dir: &Path,
    pipeline: Option<&str>,
    document: Option<&Document>,
    argument: Option<(usize, bool)>,
) -> Result<String, LoadError> {
    // A placeholder goldgate does not know would reach the command as literal text.
    if let Some(unknown) =
        placeholders(text).find(|p| !matches!(*p, "{case}" | "{pipeline}" | "{document}"))
    {
        return Err(Here { file: suite_file }
            .err(
                *suite_mark,
                "",
                format!("`{text}` has the unknown placeholder `{unknown}`"),
            )
            .hint("the placeholders are {case}, {pipeline} and {document}"));
    }
    if text.contains("{pipeline}") && pipeline.is_none() {
        return Err(Here { file: suite_file }
            .err(
                *suite_mark,
                "",
                format!("`{text}` uses {{pipeline}}, but no suite declares `pipelines`"),
            )
            .hint("declare `pipelines:`, or remove {pipeline}"));
    }
    let mut values: Vec<(&str, String)> = Vec::new();
    if text.contains("{case}") {
        values.push(("{case}", crate::base::fs::case_name(case_file, suite_dir)));
    }
    if text.contains("{pipeline}") {
        values.push(("{pipeline}", pipeline.unwrap_or("").to_owned()));
    }
    if text.contains("{document}") {
        let Some(document) = document else {
            return Err(here.err(Mark { line: 1, column: 1 }, "document", format!("the suite's `{text}` needs `{{document}}`, and this case has no `document:`"))
                .hint("add `document: path/to/the/scan.pdf` (relative to the case file)"));
        };
        let shown = crate::base::fs::relative_to(&document.path, suite_dir)
            .unwrap_or_else(|| document.path.clone());
        values.push(("{document}", shown.to_string_lossy().into_owned()));
    }
    if let Some((i, code)) = argument {
        for (placeholder, value) in &values {
            let leads = text.starts_with(placeholder);
            // Scans and exports name documents with spaces, and a document outside the suite's
            // folder is named by its absolute path: a space is let through there alone, and
            // never into a script, where it splits the value into a command and its arguments.
            let spaces = *placeholder == "{document}" && !code;
            if let Some(c) = special_in_an_argument(value, leads, spaces) {
                return Err(special_value(
                    (here, (suite_file, suite_mark)),
                    (placeholder, value),
                    c,
                    (i, text, code),
                    document,
                ));
            }
        }
    }
    let mut out = text.to_owned();
    for (placeholder, value) in &values {
        out = out.replace(placeholder, value);
    }
    Ok(out)
}

/// The first character of a placeholder's value that a shell or interpreter reads specially
/// (see [`expand`]); `leads` when the value begins its argument, where a `-` makes it an option.
fn special_in_an_argument(value: &str, leads: bool, spaces: bool) -> Option<char> {
    if leads && value.starts_with('-') {
        return Some('-');
    }
    // An allow-list, as the argument's own is: letters, digits, `_ - . /` (and a document's
    // spaces); every other character (`+ , % : @ ^` as much as `$ ; (`) some interpreter reads.
    value.chars().find(|&c| {
        // The path separator of `{document}` on Windows is `\`, which no shell there reads.
        !(c.is_alphanumeric()
            || "_-./".contains(c)
            || c == std::path::MAIN_SEPARATOR
            || (spaces && c == ' '))
    })
}

/// The error of a value refused in a command's argument, at the file the value comes from: the
/// case file for `{case}`, where `document:` is written for `{document}`, the `run` command for
/// `{pipeline}` (a name the suite gives).
fn special_value(
    (here, (suite_file, suite_mark)): (&Here, (&PathBuf, &Mark)),
    (placeholder, value): (&str, &str),
    c: char,
    (i, text, code): (usize, &str, bool),
    document: Option<&Document>,
) -> LoadError {
    let what = match c {
        ' ' => "a space".to_owned(),
        '-' => "a leading `-`, which makes it an option".to_owned(),
        '`' => "a backquote".to_owned(),
        c if c.is_whitespace() || c.is_control() => {
            format!("`{}`", c.escape_default())
        }
        c => format!("`{c}`"),
    };
    if code && placeholder == "{document}" && c == ' ' {
        return script_space((suite_file, suite_mark), value, (i, text), here.file);
    }
    let (at, mark, path, whose, fix) = match placeholder {
        "{case}" => (
            here.file.to_path_buf(),
            Mark { line: 1, column: 1 },
            String::new(),
            "this case's name",
            "rename the case file with letters, digits and `_ - .` only, or pass the command its `document:` with `{document}` instead",
        ),
        "{document}" => {
            let (file, mark) = document
                .map(|d| d.at.clone())
                .unwrap_or_else(|| (here.file.to_path_buf(), Mark { line: 1, column: 1 }));
            (
                file,
                mark,
                "document".to_owned(),
                "the document's path",
                "rename the document (and its `document:`) with letters, digits and `_ - . /` only, or pass the command `{case}` instead",
            )
        }
        _ => (
            suite_file.clone(),
            *suite_mark,
            format!("run.command[{i}]"),
            "the pipeline's name",
            "rename the pipeline with letters, digits and `_ - .` only",
        ),
    };
    LoadError::at(
        &at,
        mark,
        path,
        format!(
            "{whose} `{value}` would fill `{placeholder}` in `run.command[{i}]` (`{text}`) of `{}:{}:{}`, and it holds {what}: a shell or interpreter may read it as code (`[sh, -c, \"{placeholder}\"]` runs it), so no such value is passed to a command",
            suite_file.display(),
            suite_mark.line,
            suite_mark.column
        ),
    )
    .hint(fix)
}

/// The error of a document's path with a space that would fill a script (`[sh, -c,
/// "{document}"]`): at the suite, since the fix is its command's, which should pass the path as
/// an argument of its own, where a space is only part of a name.
fn script_space(
    (suite_file, suite_mark): (&PathBuf, &Mark),
    value: &str,
    (i, text): (usize, &str),
    case_file: &Path,
) -> LoadError {
    LoadError::at(
        suite_file,
        *suite_mark,
        format!("run.command[{i}]"),
        format!(
            "the document's path `{value}` (of `{}`) would fill `{{document}}` in `run.command[{i}]` (`{text}`), which a shell or interpreter reads as a script, and it holds a space: the script would run it as a command and its arguments, so a value with anything but letters, digits and `_ - . /` is never pasted into a script",
            case_file.display()
        ),
    )
    .hint("pass the path as an argument of its own and quote it in the script: `[sh, -c, 'extract \"$1\"', sh, \"{document}\"]`")
}

fn is_text(prediction: &PredictionSource) -> bool {
    match prediction {
        PredictionSource::Text(_) => true,
        PredictionSource::File { path, .. } => path.extension().is_some_and(|e| e == "txt"),
        PredictionSource::Inline(..) | PredictionSource::Run { .. } => false,
    }
}

/// Checks over one file's nodes.
pub(crate) struct Here<'a> {
    pub(crate) file: &'a Path,
}

impl Here<'_> {
    pub(crate) fn err(&self, mark: Mark, path: &str, message: impl Into<String>) -> LoadError {
        LoadError::at(self.file, mark, path, message)
    }

    /// A scoring name.
    pub(crate) fn scoring(&self, name: &Spanned<String>) -> Result<Scoring, LoadError> {
        Scoring::from_name(&name.value).ok_or_else(|| {
            let e = self.err(
                Mark::of(&name.referenced),
                "scoring",
                format!("unknown scoring `{}`", name.value),
            );
            match closest(&name.value, Scoring::NAMES) {
                Some(best) => e.hint(format!("did you mean `{best}`?")),
                None => e.hint("the scorings are `penalty` (the default) and `fraction`"),
            }
        })
    }

    /// A profile name.
    pub(crate) fn profile(&self, name: &Spanned<String>) -> Result<Profile, LoadError> {
        Profile::from_name(&name.value).ok_or_else(|| {
            let e = self.err(
                Mark::of(&name.referenced),
                "profile",
                format!("unknown profile `{}`", name.value),
            );
            match closest(&name.value, Profile::NAMES) {
                Some(best) => e.hint(format!("did you mean `{best}`?")),
                None => e.hint("the profiles are `dream` (the default) and `anls_star`"),
            }
        })
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

    fn gold(&self, node: &Node, grounding: &Grounding) -> Result<Vec<GoldField>, LoadError> {
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
            .map(|(name, written)| {
                let path = format!("gold.{name}");
                self.misspelt_place(written, &path)?;
                let (value, place) = match grounded_value(written) {
                    Some((value, page, bbox)) => {
                        (value, Some(self.place(page, bbox, &path, grounding)?))
                    }
                    None => (written, None),
                };
                let variants = match value.as_map() {
                    Some(m) if m.iter().any(|(k, _)| k == "any_of") => {
                        self.any_of(value, m, &path)?
                    }
                    _ => vec![self.gold_value(value, &path)?],
                };
                if let Some((below, why)) = variants.iter().find_map(oversized) {
                    return Err(self
                        .err(value.mark, &path, format!("`{name}{below}` is {why}"))
                        .hint(OVERSIZED_HINT));
                }
                Ok(GoldField {
                    name: name.clone(),
                    variants,
                    line: value.mark.line,
                    rule: FieldRule::default(),
                    path_rules: Vec::new(),
                    place,
                })
            })
            .collect()
    }

    /// A gold mapping with `value` whose other keys are `page`, `bbox` or one edit from them
    /// (`pag`) means a grounded value: the misspelt key would make it a tree, compared whole and
    /// never matched.
    fn misspelt_place(&self, node: &Node, path: &str) -> Result<(), LoadError> {
        let Some(entries) = node.as_map() else {
            return Ok(());
        };
        if !entries.iter().any(|(k, _)| k == "value") {
            return Ok(());
        }
        let near = |k: &str| crate::base::location::closest_within(k, ["page", "bbox"], |_| 1);
        let others: Vec<&(String, Node)> = entries
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "value" | "page" | "bbox"))
            .collect();
        if others.is_empty() || !others.iter().all(|(k, _)| near(k).is_some()) {
            return Ok(());
        }
        let (key, at) = others[0];
        let meant = near(key).unwrap_or("page");
        Err(self
            .err(
                key_mark(self.file, at.mark, key),
                &format!("{path}.{key}"),
                format!("unknown key `{key}` in a grounded value: did you mean `{meant}`?"),
            )
            .hint("a grounded value holds `value`, `page` and `bbox`; with any other key the mapping is a tree, compared whole"))
    }

    /// A grounded value's `page` and `bbox`, checked: a page from 1, a box of four numbers
    /// with its edges in order, on the page (0 to 1, or within `page_size` in pixels).
    fn place(
        &self,
        page: Option<&Node>,
        bbox: Option<&Node>,
        path: &str,
        grounding: &Grounding,
    ) -> Result<Place, LoadError> {
        let text = |n: &Node| match &n.kind {
            NodeKind::Text(t) => t.clone(),
            _ => n.kind_name().to_owned(),
        };
        let mistake = |n: &Node, key: &str, (message, hint): place::Mistake| {
            self.err(n.mark, &format!("{path}.{key}"), message)
                .hint(hint)
        };
        let page_node = page;
        let page = page
            .map(|n| place::page(&text(n)).map_err(|e| mistake(n, "page", e)))
            .transpose()?;
        let normalized = grounding.units == BoxUnits::Normalized;
        let bbox = match bbox {
            None => None,
            Some(n) => {
                let NodeKind::List(items) = &n.kind else {
                    return Err(mistake(
                        n,
                        "bbox",
                        (
                            format!(
                                "`bbox` must be a list of four numbers, found {}",
                                n.kind_name()
                            ),
                            "write the box as `[x0, y0, x1, y1]`: left, top, right, bottom"
                                .to_owned(),
                        ),
                    ));
                };
                let texts: Vec<String> = items.iter().map(text).collect();
                let b = place::bbox(&texts, normalized).map_err(|e| mistake(n, "bbox", e))?;
                place::has_area(b).map_err(|e| mistake(n, "bbox", e))?;
                match (grounding.units, grounding.page_size) {
                    (BoxUnits::Pixels, Some(size)) => {
                        place::on_page(b, size).map_err(|e| mistake(n, "bbox", e))?;
                    }
                    (BoxUnits::Pixels, None) => {
                        return Err(mistake(
                            n,
                            "bbox",
                            (
                                "this box is in pixels (`bbox_units: pixels`), but the case gives no `page_size`".to_owned(),
                                "give the page's size in pixels: `page_size: { width: 1240, height: 1754 }` (in the case or the suite's `defaults`)".to_owned(),
                            ),
                        ));
                    }
                    (BoxUnits::Points, _) => {
                        if let Some(extent) = grounding.page_extent(page) {
                            place::on_pdf_page(b, page.unwrap_or(1), extent)
                                .map_err(|e| mistake(n, "bbox", e))?;
                        }
                    }
                    (BoxUnits::Normalized, _) => {}
                }
                Some(b)
            }
        };
        if let (Some(p), Some(pages), Some(n)) = (page, &grounding.pdf_pages, page_node) {
            place::within_the_document(p, pages.len()).map_err(|e| mistake(n, "page", e))?;
        }
        Ok(Place { page, bbox })
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
                // Alternatives inside a value (`{ city: { any_of: [Paris, PARIS] } }`) are
                // checked like a field's and kept in the tree, where ANLS* reads them.
                if entries.iter().any(|(k, _)| k == "any_of") {
                    self.any_of(node, entries, path)?;
                    return Ok(node.to_value());
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

    fn ece_bins(&self, bins: Option<&Spanned<u32>>) -> Result<u32, LoadError> {
        match bins {
            Some(b) if b.value == 0 => Err(self
                .err(
                    Mark::of(&b.referenced),
                    "ece_bins",
                    "`ece_bins` must be at least 1",
                )
                .hint("the default is 5")),
            Some(b) => Ok(b.value),
            None => Ok(DEFAULT_ECE_BINS),
        }
    }

    /// Checks bounds on metrics: in [0, 1], a count, or (latency, cost) at least 0. `critical` is
    /// the case's critical fields, `None` for a suite's aggregate. The first mistake, in line
    /// order; [`Here::every_bound`] gives them all.
    pub(crate) fn bounds<'s>(
        &self,
        section: &str,
        bound: impl Fn(&str) -> Option<&'s Spanned<f64>>,
        critical: Option<&[String]>,
    ) -> Result<Vec<Threshold>, LoadError> {
        self.every_bound(section, bound, critical)
            .map_err(|mut all| all.remove(0))
    }

    /// As [`Here::bounds`], with every bound out of its metric's range (never none), in line order.
    pub(crate) fn every_bound<'s>(
        &self,
        section: &str,
        bound: impl Fn(&str) -> Option<&'s Spanned<f64>>,
        critical: Option<&[String]>,
    ) -> Result<Vec<Threshold>, Vec<LoadError>> {
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for metric in Metric::ALL
            .into_iter()
            .filter(|m| m.bounds_in(critical.is_none()))
        {
            let name = metric.threshold_key();
            let Some(value) = bound(name) else { continue };
            let mark = Mark::of(&value.referenced);
            let path = format!("{section}.{name}");
            let v = value.value;
            let range = metric.about().range;
            if !range.holds(v) {
                errors.push(match range {
                    Range::Unit => self
                        .err(mark, &path, format!("`{name}` is {v}, outside [0, 1]"))
                        .hint("metrics and the score lie between 0 and 1"),
                    Range::Count => self
                        .err(mark, &path, format!("`{name}` is {v}, not a count"))
                        .hint("write a whole number such as 0"),
                    Range::NonNegative => self.err(
                        mark,
                        &path,
                        format!("`{name}` is {v}; it must be 0 or more"),
                    ),
                });
                continue;
            }
            if matches!(metric, Metric::ExactCritical | Metric::AnlsCritical)
                && critical.is_some_and(<[String]>::is_empty)
            {
                errors.push(self
                    .err(mark, &path, format!("`{name}` bounds the critical fields, but `critical` is empty"))
                    .hint("list the critical fields with `critical: [field, ...]`, or remove this threshold"));
                continue;
            }
            out.push(Threshold {
                is_max: metric.about().direction == Direction::Lower,
                name: name.to_owned(),
                metric,
                limit: v,
                file: self.file.to_path_buf(),
                line: mark.line,
                column: mark.column,
            });
        }
        if errors.is_empty() {
            return Ok(out);
        }
        errors.sort_by_key(|e| (e.line, e.column));
        Err(errors)
    }

    /// The prediction `spec` gives, `written_in` the case file or a suite's `defaults`.
    fn prediction(
        &self,
        spec: &CaseFile,
        written_in: WrittenIn,
    ) -> Result<PredictionSource, LoadError> {
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
                    Ok(PredictionSource::File { path: base.join(path), at: node.mark, written_in, format: None })
                }
                NodeKind::Map(_) => Ok(PredictionSource::Inline(node.clone(), written_in)),
                _ => Err(self.err(node.mark, "prediction", format!("`prediction` must be a file path or a mapping, found {}", node.kind_name()))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_paths_are_found_outside_quotes_and_comments() {
        let found = |line: &str| {
            let chars: Vec<char> = line.chars().collect();
            let (paths, content) = unquoted_star_paths(&chars);
            let paths: Vec<String> = paths
                .iter()
                .map(|(s, e)| chars[*s..*e].iter().collect())
                .collect();
            (paths, content)
        };
        let none: Vec<String> = Vec::new();
        assert_eq!(
            found("sum_of: [line_items[*].amount]"),
            (vec!["line_items[*].amount".to_owned()], 30)
        );
        assert_eq!(
            found("x: [a[0].b[*].c, \"d[*]\", e[*]] # f[*]"),
            (vec!["a[0].b[*].c".to_owned(), "e[*]".to_owned()], 31)
        );
        assert_eq!(found("x: [[*].a]"), (vec!["[*].a".to_owned()], 10));
        assert_eq!(found("x: 'a[*]'"), (none, 9));
    }

    #[test]
    fn placeholders_are_found_without_a_regex() {
        let found: Vec<&str> = placeholders("a/{case}-{pipe_line}.{x1} {} {{document}}").collect();
        assert_eq!(found, ["{case}", "{pipe_line}", "{document}"]);
    }
}
