//! Baselines: the last accepted metrics of every case and pipeline, in a sorted, stable
//! JSON file; a drop beyond the tolerance is a regression.

use std::collections::BTreeMap;
use std::path::Path;

use crate::evaluate::outcome::Outcome;
use crate::model::case::Case;
use crate::model::metric::{Direction, Metric, Range};
use crate::model::suite::BaselineSpec;

/// The metrics of one case test, by name; each gold field's EM and ANLS under
/// `fields.NAME.em` and `fields.NAME.anls` (a `fields` mapping in the file).
pub type Metrics = BTreeMap<String, f64>;

/// One test's entry: its metrics, and its verdict when the entry was written (entries written
/// before goldgate kept verdicts have none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entry {
    /// The metrics, by name.
    pub metrics: Metrics,
    /// Whether the test passed, and the rules it failed.
    pub verdict: Option<EntryVerdict>,
}

/// An entry of metrics alone, as older baselines wrote them (for tests).
#[cfg(test)]
impl<const N: usize> From<[(String, f64); N]> for Entry {
    fn from(metrics: [(String, f64); N]) -> Entry {
        Entry {
            metrics: metrics.into(),
            verdict: None,
        }
    }
}

/// A test's verdict as its entry keeps it: `fail_on: regressions` fails a test that is worse
/// than this, and calls one that fails as this says a known failure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryVerdict {
    /// Whether it passed.
    pub passed: bool,
    /// The rules it failed, sorted: `must_right: LABEL`, `easy_wrong: LABEL`, a threshold's key
    /// (`min_anls`), `problem: KIND`, `error: KIND` (it could not be scored).
    pub failed: Vec<String>,
}

impl Entry {
    /// A metric's value.
    pub fn get(&self, metric: &str) -> Option<f64> {
        self.metrics.get(metric).copied()
    }
}

/// The key of a field's metric in an entry.
fn field_key(field: &str, metric: &str) -> String {
    format!("fields.{field}.{metric}")
}

/// The field and metric of a field key (`fields.total.em` -> `total`, `em`).
pub fn field_of(key: &str) -> Option<(&str, &str)> {
    key.strip_prefix("fields.")?.rsplit_once('.')
}

/// A baseline file's content: one entry per test name (`invoices/acme-173::guided`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Baseline {
    /// Entries by test name, sorted.
    pub cases: BTreeMap<String, Entry>,
}

impl Baseline {
    /// The entry of a test: under its name, else under its former one.
    pub fn entry(&self, name: &EntryName) -> Option<&Entry> {
        self.cases
            .get(&name.name)
            .or_else(|| self.cases.get(name.former.as_deref()?))
    }

    /// Writes `entry` under its test's name, and takes the entry under its former name out (a
    /// rename, which the caller says: never an entry dropped unsaid): the entry it replaces
    /// (under its name, else its former one), and the former name if an entry was there.
    pub fn put(&mut self, name: &EntryName, entry: Entry) -> (Option<Entry>, Option<String>) {
        let former = name
            .former
            .as_ref()
            .and_then(|f| self.cases.remove(f).map(|e| (f.clone(), e)));
        let replaced = self.cases.insert(name.name.clone(), entry);
        match former {
            Some((was, old)) => (replaced.or(Some(old)), Some(was)),
            None => (replaced, None),
        }
    }
}

/// The names of a test's entry: the one it is written under, and the one goldgate wrote it under
/// before a gold set's case was named alike with or without its case file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryName {
    /// The case's path (where its case file is, or would be) relative to the suite that declares
    /// the baseline, without extension, and `::pipeline`: the test's own name from there.
    pub name: String,
    /// For a case of a gold set (a suite's `cases:`) without a case file of its own: its gold
    /// file's path in the same form (`gold/x::p`), which older baselines hold. Read when the
    /// entry is missing under its name, and replaced by it when the entry is next written.
    pub former: Option<String>,
}

impl EntryName {
    /// The names of the entry of the test of `named_by` (the case file, or the one a gold set's
    /// case would have), `formerly` named after another file (a gold set's gold file).
    pub fn of(
        spec: &BaselineSpec,
        named_by: &Path,
        formerly: Option<&Path>,
        pipeline: Option<&str>,
    ) -> EntryName {
        let name = spec.key(named_by, pipeline);
        let former = formerly
            .map(|file| spec.key(file, pipeline))
            .filter(|former| *former != name);
        EntryName { name, former }
    }

    /// The names of a case's entry under its suite's baseline.
    pub fn of_case(spec: &BaselineSpec, case: &Case) -> EntryName {
        let formerly = case.formerly_named_by.as_deref();
        EntryName::of(spec, &case.named_by, formerly, case.pipeline.as_deref())
    }

    /// Its name, then its former one.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.former.as_deref())
    }
}

/// The entry of a scored test: its outcome's baselined metrics and its verdict.
pub fn entry_of(outcome: &Outcome, passed: bool) -> Entry {
    Entry {
        metrics: metrics_of(outcome),
        verdict: Some(EntryVerdict {
            passed,
            failed: failed_rules(outcome),
        }),
    }
}

/// The entry of a test that could not be scored (`kind`: `load`, `prediction`, `call`…): no
/// metric, a failed verdict.
pub fn unscored_entry(kind: &str) -> Entry {
    Entry {
        metrics: Metrics::new(),
        verdict: Some(EntryVerdict {
            passed: false,
            failed: vec![format!("error: {kind}")],
        }),
    }
}

/// The rules an outcome fails, sorted: its rubrics that did not hold, its thresholds that did
/// not, and what else fails it.
pub fn failed_rules(outcome: &Outcome) -> Vec<String> {
    let rubrics = outcome
        .rubrics
        .iter()
        .filter(|r| !r.verdict.held)
        .map(|r| format!("{}: {}", r.rubric.kind.key(), r.rubric.label));
    let thresholds = outcome
        .thresholds
        .iter()
        .filter(|t| !t.held)
        .map(|t| t.name.clone());
    let problems = outcome.problems.iter().map(|p| {
        let kind = serde_json::to_value(p)
            .ok()
            .and_then(|v| v.get("problem")?.as_str().map(str::to_owned))
            .unwrap_or_default();
        format!("problem: {kind}")
    });
    let mut failed: Vec<String> = rubrics.chain(thresholds).chain(problems).collect();
    failed.sort();
    failed.dedup();
    failed
}

/// The baselined metrics of an outcome (those it has), from the table of metrics.
fn metrics_of(outcome: &Outcome) -> Metrics {
    let mut entry: Metrics = Metric::ALL
        .into_iter()
        .filter(|m| m.about().baselined)
        .filter_map(|m| outcome.value(m).map(|v| (m.name().to_owned(), v)))
        .collect();
    for f in &outcome.fields {
        entry.insert(field_key(&f.name, "em"), f.em);
        entry.insert(field_key(&f.name, "anls"), f.anls);
    }
    entry
}

/// The fields whose EM or ANLS is among `changes`, in the order they come.
pub fn fields_among(changes: &[Change]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for c in changes {
        if let Some((field, _)) = field_of(&c.metric)
            && !names.contains(&field)
        {
            names.push(field);
        }
    }
    names
}

/// A metric that moved beyond the tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The metric.
    pub metric: String,
    /// Its baseline value.
    pub old: f64,
    /// This run's value (NaN when this run does not measure it).
    pub new: f64,
}

/// What a change must exceed besides the tolerance: it absorbs the rounding of values written
/// and read back.
const SLACK: f64 = 1e-9;

/// Whether an entry's key is of a metric in [0, 1], as every baselined metric and each field's
/// EM and ANLS are; keys goldgate does not write are left to [`compare`], which finds them gone.
fn is_of_unit(key: &str) -> bool {
    match field_of(key) {
        Some((_, metric)) => matches!(metric, "em" | "anls"),
        None => Metric::from_name(key).is_some_and(|m| m.about().range == Range::Unit),
    }
}

/// The first value of a baseline outside [0, 1] where its metric lies in [0, 1] (`anls: -5`):
/// its test, its key and its value. A value below a metric's worst hides every regression of it,
/// one beyond its best makes every run one.
pub fn out_of_range(baseline: &Baseline) -> Option<(&str, &str, f64)> {
    baseline.cases.iter().find_map(|(test, entry)| {
        entry
            .metrics
            .iter()
            .find(|(key, value)| is_of_unit(key) && !(0.0..=1.0).contains(*value))
            .map(|(key, value)| (test.as_str(), key.as_str(), *value))
    })
}

/// Regressions and improvements of `new` against `old`, beyond `tolerance`.
pub fn compare(old: &Entry, new: &Entry, tolerance: f64) -> (Vec<Change>, Vec<Change>) {
    let (mut worse, mut better) = (Vec::new(), Vec::new());
    let (old, new) = (&old.metrics, &new.metrics);
    for (metric, &was) in old {
        // A metric the baseline had and this run lacks (confidences gone, say) is a regression.
        let Some(&now) = new.get(metric) else {
            worse.push(Change {
                metric: metric.clone(),
                old: was,
                new: f64::NAN,
            });
            continue;
        };
        let lower_is_better =
            Metric::from_name(metric).is_some_and(|m| m.about().direction == Direction::Lower);
        let gain = if lower_is_better {
            was - now
        } else {
            now - was
        };
        let change = Change {
            metric: metric.clone(),
            old: was,
            new: now,
        };
        if gain < -(tolerance + SLACK) {
            worse.push(change);
        } else if gain > tolerance + SLACK {
            better.push(change);
        }
    }
    (worse, better)
}

/// How a test stands against its entry under `fail_on: regressions`, when the entry keeps a
/// verdict and the test is not just as it was. In the report: `{"kind": "known_failure"}`,
/// `{"kind": "fixed"}`, `{"kind": "regressed", "worse": […]}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Standing {
    /// It failed there and fails now, no worse: it fails nothing.
    KnownFailure,
    /// It failed there and passes now: blessing it makes its entry a passing one.
    Fixed {
        /// The command that blesses it (the run knows how it was started; empty until then).
        #[serde(default)]
        bless: String,
    },
    /// It is worse than its entry, in each of these ways: it fails the run.
    Regressed {
        /// Each way, in this order: it fails now, the fields it lost, the metric it is held
        /// to, the rules it fails anew.
        worse: Vec<Worse>,
    },
}

/// One way a test is worse than its entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Worse {
    /// It passed there and fails now.
    NowFails,
    /// A field exact there is not now (a test that fails now): the field, its ANLS then and now.
    Field {
        /// The field.
        field: String,
        /// Its ANLS in the entry.
        old: Option<f64>,
        /// Its ANLS now (none when the test could not be scored).
        new: Option<f64>,
    },
    /// The metric it is held to dropped more than the tolerance below its entry.
    Dropped {
        /// The metric.
        metric: String,
        /// Its value in the entry.
        old: f64,
        /// Its value now.
        new: f64,
    },
    /// It fails a rule it did not fail there.
    Rule {
        /// The rule: `must_right: LABEL`, a threshold's key, `error: KIND`…
        rule: String,
    },
}

/// How the test of `now` (this run's entry, with its verdict) stands against its entry `old`,
/// held to the metric `gated` within `tolerance`; `None` when the entry keeps no verdict (an
/// entry older than verdicts) or the test passes, as it did, no worse.
pub fn stand(old: &Entry, now: &Entry, gated: Metric, tolerance: f64) -> Option<Standing> {
    let (Some(was), Some(is)) = (&old.verdict, &now.verdict) else {
        return None;
    };
    let mut worse = Vec::new();
    if was.passed && !is.passed {
        worse.push(Worse::NowFails);
    }
    // (A test that could not be scored lost every field: the error it fails with says why.)
    if !is.passed && !now.metrics.is_empty() {
        worse.extend(fields_lost(old, now));
    }
    let metric = gated.name();
    if let (Some(then), Some(since)) = (old.get(metric), now.get(metric)) {
        let gain = match gated.about().direction {
            Direction::Lower => then - since,
            Direction::Higher => since - then,
        };
        if gain < -(tolerance + SLACK) {
            worse.push(Worse::Dropped {
                metric: metric.to_owned(),
                old: then,
                new: since,
            });
        }
    }
    worse.extend(
        is.failed
            .iter()
            .filter(|rule| !was.failed.contains(rule))
            .map(|rule| Worse::Rule { rule: rule.clone() }),
    );
    if !worse.is_empty() {
        Some(Standing::Regressed { worse })
    } else if is.passed {
        (!was.passed).then(|| Standing::Fixed {
            bless: String::new(),
        })
    } else {
        Some(Standing::KnownFailure)
    }
}

/// What moved between a test's entry and this run, however little: the metric it is held to
/// first (`gated`), then each field's EM and ANLS that changed, in name order. What the pages
/// list of each test against its baseline, worst first.
pub fn moved(old: &Entry, now: &Entry, gated: Metric) -> Vec<Change> {
    let change = |metric: &str| {
        let (was, is) = (old.get(metric)?, now.get(metric)?);
        ((is - was).abs() > SLACK).then(|| Change {
            metric: metric.to_owned(),
            old: was,
            new: is,
        })
    };
    let fields = old
        .metrics
        .keys()
        .filter(|k| field_of(k).is_some())
        .filter_map(|k| change(k));
    change(gated.name()).into_iter().chain(fields).collect()
}

/// The fields exact in `old` and not in `now`, each with its ANLS then and now.
fn fields_lost(old: &Entry, now: &Entry) -> Vec<Worse> {
    old.metrics
        .iter()
        .filter_map(|(key, &em)| {
            let (field, "em") = field_of(key)? else {
                return None;
            };
            let lost = em >= 1.0 && now.get(key).is_none_or(|em| em < 1.0);
            lost.then(|| Worse::Field {
                field: field.to_owned(),
                old: old.get(&field_key(field, "anls")),
                new: now.get(&field_key(field, "anls")),
            })
        })
        .collect()
}

/// The metric a test of `spec` is held to under `fail_on: regressions`: its suite's
/// `regression_gate` metric, else ANLS where the entry has it, else the score.
pub fn gated_metric(gated: Option<Metric>, entry: &Entry) -> Metric {
    gated.unwrap_or(if entry.get(Metric::Anls.name()).is_some() {
        Metric::Anls
    } else {
        Metric::Score
    })
}

/// Why a baseline file's text is not a baseline: the file as messages name it, and what is wrong.
#[derive(Debug)]
pub struct BaselineError {
    /// The file, as messages name it.
    pub name: String,
    /// What is wrong with it.
    pub kind: BaselineFault,
}

/// What is wrong with a baseline file's text.
#[derive(Debug)]
pub enum BaselineFault {
    /// It is not JSON (or holds a key twice).
    NotJson(serde_json::Error),
    /// It is of a version this goldgate does not read (`goldgate_baseline`).
    NewerVersion(serde_json::Value),
    /// It has no `cases` mapping.
    NoCases,
    /// A test's entry is not a mapping.
    NotMetrics {
        /// The test.
        test: String,
    },
    /// A test's `verdict` is not `passed` or `failed`, or its `failed` not a list of texts.
    NotAVerdict {
        /// The test.
        test: String,
    },
    /// A test's `fields` is not a mapping.
    FieldsNotMapping {
        /// The test.
        test: String,
    },
    /// A metric's value is not a number.
    NotANumber {
        /// The test.
        test: String,
        /// The field, for a field's metric.
        field: Option<String>,
        /// The metric.
        metric: String,
    },
}

impl std::fmt::Display for BaselineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = &self.name;
        match &self.kind {
            BaselineFault::NotJson(e) => write!(f, "the baseline `{name}` is not valid JSON: {e}"),
            BaselineFault::NewerVersion(version) => write!(
                f,
                "the baseline `{name}` is of version {version}, written by a newer goldgate: this one reads version 1"
            ),
            BaselineFault::NoCases => write!(
                f,
                "the baseline `{name}` has no `cases` mapping (an empty baseline is `{{\"goldgate_baseline\": 1, \"cases\": {{}}}}`; GOLDGATE_UPDATE=always fills it)"
            ),
            BaselineFault::NotMetrics { test } => write!(
                f,
                "the baseline `{name}`: `{test}` is not a mapping of metrics"
            ),
            BaselineFault::NotAVerdict { test } => write!(
                f,
                "the baseline `{name}`: `{test}.verdict` is not `passed` or `failed`, or its `failed` is not a list of the rules it failed"
            ),
            BaselineFault::FieldsNotMapping { test } => write!(
                f,
                "the baseline `{name}`: `{test}.fields` is not a mapping of fields"
            ),
            BaselineFault::NotANumber {
                test,
                field: Some(field),
                metric,
            } => write!(
                f,
                "the baseline `{name}`: `{test}.fields.{field}.{metric}` is not a number"
            ),
            BaselineFault::NotANumber {
                test,
                field: None,
                metric,
            } => write!(
                f,
                "the baseline `{name}`: `{test}.{metric}` is not a number"
            ),
        }
    }
}

impl std::error::Error for BaselineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            BaselineFault::NotJson(e) => Some(e),
            _ => None,
        }
    }
}

/// Reads a baseline file's text; `name` names the file in messages.
pub fn parse(text: &str, name: &str) -> Result<Baseline, BaselineError> {
    let error = |kind| BaselineError {
        name: name.to_owned(),
        kind,
    };
    let json: serde_json::Value =
        crate::base::json::strict_json(text).map_err(|e| error(BaselineFault::NotJson(e)))?;
    if let Some(version) = json.get("goldgate_baseline")
        && version != &serde_json::json!(1)
    {
        return Err(error(BaselineFault::NewerVersion(version.clone())));
    }
    let cases = json
        .get("cases")
        .and_then(|c| c.as_object())
        .ok_or_else(|| error(BaselineFault::NoCases))?;
    let mut out = Baseline::default();
    for (test, entry) in cases {
        let entry = entry
            .as_object()
            .ok_or_else(|| error(BaselineFault::NotMetrics { test: test.clone() }))?;
        let not_a_number = |field: Option<&String>, metric: &String| {
            error(BaselineFault::NotANumber {
                test: test.clone(),
                field: field.cloned(),
                metric: metric.clone(),
            })
        };
        let mut metrics = Metrics::new();
        let verdict = entry_verdict(entry)
            .map_err(|()| error(BaselineFault::NotAVerdict { test: test.clone() }))?;
        for (k, v) in entry {
            if k == "verdict" || k == "failed" {
                continue;
            }
            if k == "fields" {
                let fields = v
                    .as_object()
                    .ok_or_else(|| error(BaselineFault::FieldsNotMapping { test: test.clone() }))?;
                for (field, scores) in fields {
                    for (metric, value) in scores.as_object().into_iter().flatten() {
                        let value = value
                            .as_f64()
                            .ok_or_else(|| not_a_number(Some(field), metric))?;
                        metrics.insert(field_key(field, metric), value);
                    }
                }
                continue;
            }
            let value = v.as_f64().ok_or_else(|| not_a_number(None, k))?;
            metrics.insert(k.clone(), value);
        }
        out.cases.insert(test.clone(), Entry { metrics, verdict });
    }
    Ok(out)
}

/// An entry's `verdict` (`passed` or `failed`) and `failed` (the rules it failed, texts);
/// `Err` when either is there and is not that.
fn entry_verdict(
    entry: &serde_json::Map<String, serde_json::Value>,
) -> Result<Option<EntryVerdict>, ()> {
    let passed = match entry.get("verdict") {
        None => {
            return if entry.contains_key("failed") {
                Err(())
            } else {
                Ok(None)
            };
        }
        Some(v) if v == "passed" => true,
        Some(v) if v == "failed" => false,
        Some(_) => return Err(()),
    };
    let mut failed = match entry.get("failed") {
        None => Vec::new(),
        Some(serde_json::Value::Array(rules)) => rules
            .iter()
            .map(|r| r.as_str().map(str::to_owned).ok_or(()))
            .collect::<Result<Vec<_>, ()>>()?,
        Some(_) => return Err(()),
    };
    failed.sort();
    failed.dedup();
    Ok(Some(EntryVerdict { passed, failed }))
}

/// A baseline file's text: sorted keys, one metric per line, so that a git diff shows what moved.
pub fn to_text(baseline: &Baseline) -> String {
    let cases: serde_json::Map<String, serde_json::Value> = baseline
        .cases
        .iter()
        .map(|(name, entry)| {
            let mut object = serde_json::Map::new();
            let mut fields: BTreeMap<&str, serde_json::Map<String, serde_json::Value>> =
                BTreeMap::new();
            for (k, v) in &entry.metrics {
                match field_of(k) {
                    Some((field, metric)) => {
                        fields
                            .entry(field)
                            .or_default()
                            .insert(metric.to_owned(), serde_json::json!(v));
                    }
                    None => {
                        object.insert(k.clone(), serde_json::json!(v));
                    }
                }
            }
            if !fields.is_empty() {
                object.insert(
                    "fields".into(),
                    fields
                        .into_iter()
                        .map(|(f, m)| (f.to_owned(), serde_json::Value::Object(m)))
                        .collect::<serde_json::Map<_, _>>()
                        .into(),
                );
            }
            if let Some(verdict) = &entry.verdict {
                let word = if verdict.passed { "passed" } else { "failed" };
                object.insert("verdict".into(), word.into());
                if !verdict.failed.is_empty() {
                    object.insert("failed".into(), serde_json::json!(verdict.failed));
                }
            }
            (name.clone(), serde_json::Value::Object(object))
        })
        .collect();
    let json = serde_json::json!({ "goldgate_baseline": 1, "cases": cases });
    let mut text = serde_json::to_string_pretty(&json).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_entry_is_refused() {
        let e = parse(
            r#"{"cases": {"a": {"anls": 1}, "a": {"anls": 0}}}"#,
            "b.json",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the baseline `b.json` is not valid JSON: duplicate key `a`"),
            "{e}"
        );
        // The parser's own error stays reachable, for its line and column.
        let json = std::error::Error::source(&e).unwrap();
        assert!(json.is::<serde_json::Error>(), "{json}");
    }

    #[test]
    fn a_baseline_without_cases_says_what_an_empty_one_is() {
        let e = parse("{}", "b.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the baseline `b.json` has no `cases` mapping (an empty baseline is `{\"goldgate_baseline\": 1, \"cases\": {}}`; GOLDGATE_UPDATE=always fills it)"
        );
    }

    #[test]
    fn a_baseline_of_a_newer_version_is_refused() {
        let e = parse(r#"{"goldgate_baseline": 2, "cases": {}}"#, "b.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the baseline `b.json` is of version 2, written by a newer goldgate: this one reads version 1"
        );
        assert!(parse(r#"{"goldgate_baseline": 1, "cases": {}}"#, "b.json").is_ok());
    }

    #[test]
    fn a_value_outside_its_metrics_range_is_found() {
        for (cases, found) in [
            (r#"{"a": {"anls": 1, "brier": 0}}"#, None),
            (r#"{"a": {"anls": -5}}"#, Some(("a", "anls", -5.0))),
            (r#"{"a": {"brier": 1.5}}"#, Some(("a", "brier", 1.5))),
            (
                r#"{"a": {"anls": 1, "fields": {"x": {"em": -1e308}}}}"#,
                Some(("a", "fields.x.em", -1e308)),
            ),
            // Underflow reads as 0, a value the metric takes.
            (r#"{"a": {"anls": 1e-400}}"#, None),
            (r#"{"a": {"anls": -1e-400}}"#, None),
        ] {
            let base = parse(&format!("{{\"cases\": {cases}}}"), "b.json").unwrap();
            assert_eq!(out_of_range(&base), found, "{cases}");
        }
    }

    #[test]
    fn a_tolerance_of_one_or_more_never_binds() {
        use crate::model::metric::tolerance_can_bind;
        assert!(tolerance_can_bind(0.0));
        assert!(tolerance_can_bind(0.999));
        assert!(!tolerance_can_bind(1.0));
        assert!(!tolerance_can_bind(1.0 - 1e-10));
        assert!(!tolerance_can_bind(7.0));
        // The largest drop, 1 to 0, is flagged exactly when the tolerance can bind.
        let (old, new): (Entry, Entry) =
            ([("anls".into(), 1.0)].into(), [("anls".into(), 0.0)].into());
        assert_eq!(compare(&old, &new, 0.999).0.len(), 1);
        assert!(compare(&old, &new, 1.0).0.is_empty());
    }

    #[test]
    fn an_entry_is_found_under_its_former_name_and_moved_to_its_name() {
        let name = EntryName {
            name: "a::p".into(),
            former: Some("gold/a::p".into()),
        };
        let entry = |v: f64| -> Entry { [("anls".to_string(), v)].into() };
        let mut base = Baseline::default();
        base.cases.insert("gold/a::p".into(), entry(0.5));
        assert_eq!(base.entry(&name), Some(&entry(0.5)));
        // Written under its name, the former entry is taken out, and said.
        assert_eq!(
            base.put(&name, entry(0.7)),
            (Some(entry(0.5)), Some("gold/a::p".to_owned()))
        );
        assert_eq!(base.cases.keys().collect::<Vec<_>>(), ["a::p"]);
        // Its name wins over a stale former entry.
        base.cases.insert("gold/a::p".into(), entry(0.1));
        assert_eq!(base.entry(&name), Some(&entry(0.7)));
        assert_eq!(
            base.put(&name, entry(0.7)),
            (Some(entry(0.7)), Some("gold/a::p".to_owned()))
        );
        assert_eq!(base.cases.len(), 1);
    }

    #[test]
    fn a_metric_gone_is_a_regression() {
        let old: Entry = [("anls".to_string(), 0.9), ("brier".to_string(), 0.1)].into();
        let new: Entry = [("anls".to_string(), 0.9)].into();
        let (worse, better) = compare(&old, &new, 0.01);
        assert_eq!(
            (worse.len(), worse[0].metric.as_str(), better.len()),
            (1, "brier", 0)
        );
        assert!(worse[0].new.is_nan());
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn compare_splits_worse_and_better() {
        let old = [("anls".to_string(), 0.95), ("brier".to_string(), 0.10)].into();
        let new = [("anls".to_string(), 0.90), ("brier".to_string(), 0.02)].into();
        let (worse, better) = compare(&old, &new, 0.01);
        assert_eq!(
            worse,
            [Change {
                metric: "anls".into(),
                old: 0.95,
                new: 0.90
            }]
        );
        assert_eq!(
            better,
            [Change {
                metric: "brier".into(),
                old: 0.10,
                new: 0.02
            }]
        );
    }
}
