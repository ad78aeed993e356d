//! Case file -> checked [`Case`]: parse, validate, resolve rubric includes. Every mistake is a
//! [`LoadError`] naming the file, line, column, YAML path and the fix.

mod acceptance;
pub mod cases;
pub mod discover;
mod fields;
mod folder;
mod gold_file;
pub(crate) mod in_file;
mod kieval_csv;
mod merge;
mod metadata;
mod per_pipeline;
mod place;
pub mod prediction;
mod prediction_format;
mod rubrics;
mod shortlist;
pub mod suite;
mod template;
mod usage;
pub(crate) mod vacuous;

pub use folder::{Entry, Load, Planned, Problem, When, is_a_prediction, load_folder, plan_folder};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::base::spanned::Spanned;

use crate::base::fs::read_text;
use crate::base::location::LoadError;
use crate::base::location::Mark;
use crate::base::normalize::Normalize;
use crate::load::suite::Suite;
use crate::model::case::{
    BoxUnits, Case, Document, GoldField, Grounding, PredictionSource, Profile, Scoring, WrittenIn,
};
use crate::model::metric::{DEFAULT_ECE_BINS, DEFAULT_PENALTY, Metric, Threshold};
use crate::spec::{CaseFile, Node, ThresholdsSpec, parse_yaml};
use in_file::{InFile, grounded_value};
use per_pipeline::{Sources, per_pipeline};
use rubrics::Sets;
use vacuous::{could_only_pass, judge_declared};

/// Reads and checks one case file under its suites: one [`Case`] per pipeline (named
/// `id::pipeline`), or one when the suites declare none.
pub fn load_case_in(
    file: &Path,
    id: &str,
    rubrics_dir: &Path,
    suite: &Suite,
) -> Result<Vec<Case>, Vec<LoadError>> {
    let source = read_text(file).map_err(|e| vec![e])?;
    load_case_text(file, &source, id, rubrics_dir, suite)
}

/// [`load_case_in`] of the file's text, already read.
pub(crate) fn load_case_text(
    file: &Path,
    source: &str,
    id: &str,
    rubrics_dir: &Path,
    suite: &Suite,
) -> Result<Vec<Case>, Vec<LoadError>> {
    let spec: CaseFile = parse(file, source).map_err(|e| vec![e])?;
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
        in_file: &InFile { file },
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
                    return Err(InFile { file }
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

/// A case's mistakes in the order of their files and lines, so that the first is the first to fix.
fn in_order(mut errors: Vec<LoadError>) -> Vec<LoadError> {
    errors.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    errors
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
            let here = InFile { file: &e.file };
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
    fn at(&self, key: &str) -> InFile<'_> {
        InFile {
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
        if errors.is_empty() {
            let checks = (&rubrics[..], gold.as_deref().unwrap_or_default());
            errors.extend(could_only_pass(file, suite, checks, &thresholds, scoring));
        }
        let skip = self.skip(&mut errors);
        if !errors.is_empty() {
            return Err(in_order(errors));
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
                InFile { file: from }
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
            match (InFile { file: level.file }).every_bound("thresholds", bound, Some(critical)) {
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
    gold_at: &InFile,
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

fn is_text(prediction: &PredictionSource) -> bool {
    match prediction {
        PredictionSource::Text(_) => true,
        PredictionSource::File { path, .. } => path.extension().is_some_and(|e| e == "txt"),
        PredictionSource::Inline(..) | PredictionSource::Run { .. } => false,
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
}
