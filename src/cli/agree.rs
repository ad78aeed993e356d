//! `goldgate agree --human LABELS.jsonl [DIR]`: goldgate's verdicts and scores beside people's on
//! the same cases: raw agreement, Cohen's κ, balanced F1 and the confusion matrix on
//! rubric verdicts, overall and per kind; Spearman's ρ, Kendall's τ-b and Pearson's r between
//! people's grades and goldgate's scores; then every disagreement, located.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::base::fs::read_text;
use crate::evaluate::outcome::Outcome;
use crate::metrics::agreement::{Confusion, kendall_tau_b, pearson, spearman};
use crate::run::scores::{ScoringError, score_folder};

/// A rubric verdict of a person set beside goldgate's.
struct Pair {
    test: String,
    rubric: String,
    kind: &'static str,
    person: bool,
    goldgate: bool,
    at: String,
    detail: String,
}

/// The agreement of people's labels with goldgate on the cases under `cases`, as text or JSON.
pub fn agree(
    labels: &Path,
    cases: &Path,
    rubrics: &Path,
    as_json: bool,
) -> Result<String, AgreeError> {
    let text = read_text(labels).map_err(AgreeError::Labels)?;
    let scored = score_folder(cases, rubrics).map_err(AgreeError::Scoring)?;
    let by_test: HashMap<&str, (&Option<Outcome>, &Option<String>)> = scored
        .iter()
        .map(|s| (s.id.as_str(), (&s.outcome, &s.error)))
        .collect();
    let mut pairs: Vec<Pair> = Vec::new();
    let mut ratings: Vec<(f64, f64)> = Vec::new();
    let mut refused: Vec<(usize, Why)> = Vec::new();
    // Labels of rubrics goldgate could not check: no verdict to set beside them, but no reason
    // to throw away the others either.
    let mut skipped: Vec<Skipped> = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match label(line, &by_test) {
            Ok(Label::Verdict(pair)) => pairs.push(pair),
            Ok(Label::Rating(rating, score)) => ratings.push((rating, score)),
            Ok(Label::Unchecked(mut label)) => {
                label.at = format!("{}:{}", labels.display(), i + 1);
                skipped.push(label);
            }
            Err(why) => refused.push((i + 1, why)),
        }
    }
    if !refused.is_empty() {
        return Err(AgreeError::Refused {
            labels: labels.to_path_buf(),
            lines: refused,
        });
    }
    if pairs.is_empty() && ratings.is_empty() {
        if skipped.is_empty() {
            return Err(AgreeError::NoLabels {
                labels: labels.to_path_buf(),
            });
        }
        // Nothing left to compare: no agreement to print, only what to fix.
        return Err(AgreeError::NoneCompared {
            labels: labels.to_path_buf(),
            skipped,
        });
    }
    let groups: Vec<(&str, Confusion)> = ["all", "must_right", "easy_wrong"]
        .into_iter()
        .map(|kind| {
            let chosen: Vec<(bool, bool)> = pairs
                .iter()
                .filter(|p| kind == "all" || p.kind == kind)
                .map(|p| (p.person, p.goldgate))
                .collect();
            (kind, Confusion::of(&chosen))
        })
        .filter(|(_, c)| c.n() > 0)
        .collect();
    let (rating, score): (Vec<f64>, Vec<f64>) = ratings.iter().copied().unzip();
    let correlations = [
        ("spearman", spearman(&rating, &score)),
        ("kendall_tau_b", kendall_tau_b(&rating, &score)),
        ("pearson", pearson(&rating, &score)),
    ];
    let disagreements: Vec<&Pair> = pairs.iter().filter(|p| p.person != p.goldgate).collect();
    let found = Agreement {
        groups: &groups,
        ratings: ratings.len(),
        correlations: &correlations,
        disagreements: &disagreements,
        skipped: &skipped,
    };
    Ok(if as_json { found.json() } else { found.text() })
}

/// What agreement found, for printing.
struct Agreement<'a> {
    groups: &'a [(&'a str, Confusion)],
    ratings: usize,
    correlations: &'a [(&'a str, Option<f64>); 3],
    disagreements: &'a [&'a Pair],
    /// The labels set aside, each with its place in the labels file and why.
    skipped: &'a [Skipped],
}

impl Agreement<'_> {
    /// As JSON.
    fn json(&self) -> String {
        let verdicts: serde_json::Map<String, Json> = self
            .groups
            .iter()
            .map(|(kind, c)| ((*kind).to_owned(), confusion_json(c)))
            .collect();
        let mut ratings_json = json!({ "n": self.ratings });
        for (name, v) in self.correlations {
            ratings_json[*name] = json!(v);
        }
        let doc = json!({
            "verdicts": verdicts,
            "ratings": ratings_json,
            "disagreements": self.disagreements.iter().map(|p| json!({
                "test": p.test, "rubric": p.rubric, "kind": p.kind,
                "person": p.person, "goldgate": p.goldgate, "at": p.at, "detail": p.detail,
            })).collect::<Vec<_>>(),
            "skipped": self.skipped.iter().map(|s| json!({
                "at": s.at, "test": s.test, "rubric": s.rubric, "why": s.why,
            })).collect::<Vec<_>>(),
        });
        format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )
    }

    /// As text.
    fn text(&self) -> String {
        let mut out = String::new();
        let num = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"));
        if !self.groups.is_empty() {
            let _ = writeln!(
                out,
                "rubric verdicts    n   agree   kappa  bal.F1   confusion, person × goldgate (held·held held·failed failed·held failed·failed)"
            );
            for (kind, c) in self.groups {
                let _ = writeln!(
                    out,
                    "  {kind:<12} {:>5}  {}  {:>6}  {}   {} {} {} {}",
                    c.n(),
                    num(c.agreement()),
                    num(c.kappa()),
                    num(c.balanced_f1()),
                    c.both_held,
                    c.person_held_goldgate_failed,
                    c.person_failed_goldgate_held,
                    c.both_failed
                );
            }
        }
        if self.ratings > 0 {
            let _ = writeln!(
                out,
                "ratings against scores: n {}  Spearman {}  Kendall tau-b {}  Pearson {}",
                self.ratings,
                num(self.correlations[0].1),
                num(self.correlations[1].1),
                num(self.correlations[2].1)
            );
        }
        if self.disagreements.is_empty() {
            let _ = writeln!(out, "no disagreement");
        } else {
            let _ = writeln!(out, "disagreements:");
            for p in self.disagreements {
                let say = |held: bool| if held { "held" } else { "failed" };
                let _ = writeln!(
                    out,
                    "  {} {} `{}`: person {}, goldgate {} ({}) at {}",
                    p.test,
                    p.kind,
                    p.rubric,
                    say(p.person),
                    say(p.goldgate),
                    p.detail,
                    p.at
                );
            }
        }
        if !self.skipped.is_empty() {
            let n = self.skipped.len();
            let _ = writeln!(
                out,
                "skipped {n} label{}, as goldgate could not check a rubric (fix it to count {}):",
                if n == 1 { "" } else { "s" },
                if n == 1 { "the label" } else { "them" }
            );
            for s in self.skipped {
                let _ = writeln!(out, "  {}", s.line());
            }
        }
        out
    }
}

fn confusion_json(c: &Confusion) -> Json {
    json!({
        "n": c.n(),
        "agreement": c.agreement(),
        "kappa": c.kappa(),
        "balanced_f1": c.balanced_f1(),
        "confusion": {
            "both_held": c.both_held,
            "person_held_goldgate_failed": c.person_held_goldgate_failed,
            "person_failed_goldgate_held": c.person_failed_goldgate_held,
            "both_failed": c.both_failed,
        },
    })
}

/// A label set aside: goldgate could not check a rubric it needs.
#[derive(Debug)]
pub struct Skipped {
    /// `labels.jsonl:3`.
    at: String,
    test: String,
    /// The rubric labelled; `None` for a rating.
    rubric: Option<String>,
    /// Why, with the rubric that could not be checked for a rating.
    why: String,
}

impl Skipped {
    /// `labels.jsonl:3: `receipt` rubric `LABEL` could not be checked: …`.
    fn line(&self) -> String {
        match &self.rubric {
            Some(rubric) => format!(
                "{}: `{}` rubric `{rubric}` {}",
                self.at, self.test, self.why
            ),
            None => format!("{}: the rating of `{}`: {}", self.at, self.test, self.why),
        }
    }
}

/// Why a rubric has no verdict to set beside a person's.
fn unchecked(r: &crate::evaluate::outcome::RubricVerdict) -> String {
    if r.verdict.finding.waits_for_a_verdict() {
        "has no recorded verdict (record the run's verdicts with `GOLDGATE_JUDGE=record goldgate test …`)".to_owned()
    } else {
        crate::render::verdict(r.verdict.checked, &r.verdict.finding)
    }
}

enum Label {
    Verdict(Pair),
    Rating(f64, f64),
    /// A label of a rubric goldgate could not check, or a rating of a test with one.
    Unchecked(Skipped),
}

/// Why `goldgate agree` has no agreement to print.
#[derive(Debug)]
pub enum AgreeError {
    /// The labels cannot be read.
    Labels(crate::base::location::LoadError),
    /// The cases cannot be scored.
    Scoring(ScoringError),
    /// Lines of labels refused: each line's number (from 1), and why.
    Refused {
        /// The labels file.
        labels: PathBuf,
        /// The lines refused.
        lines: Vec<(usize, Why)>,
    },
    /// The file holds no label.
    NoLabels {
        /// The labels file.
        labels: PathBuf,
    },
    /// Every label needs a rubric goldgate could not check.
    NoneCompared {
        /// The labels file.
        labels: PathBuf,
        /// The labels set aside.
        skipped: Vec<Skipped>,
    },
}

impl std::fmt::Display for AgreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgreeError::Labels(e) => e.fmt(f),
            AgreeError::Scoring(e) => e.fmt(f),
            AgreeError::Refused { labels, lines } => {
                for (n, (line, why)) in lines.iter().enumerate() {
                    if n > 0 {
                        f.write_str("\nerror: ")?;
                    }
                    let at = format!("{}:{line}", labels.display());
                    match why {
                        // serde_json counts columns within the one line it was given.
                        Why::Json(e) => write!(f, "{at}:{}: {why}", e.column())?,
                        _ => write!(f, "{at}: {why}")?,
                    }
                }
                Ok(())
            }
            AgreeError::NoLabels { labels } => write!(f, "{}: no labels", labels.display()),
            AgreeError::NoneCompared { labels, skipped } => {
                let lines: Vec<String> =
                    skipped.iter().map(|s| format!("  {}", s.line())).collect();
                write!(
                    f,
                    "{}: no label could be compared, as goldgate could not check a rubric each needs (fix it to count them):\n{}",
                    labels.display(),
                    lines.join("\n")
                )
            }
        }
    }
}

impl std::error::Error for AgreeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AgreeError::Labels(e) => Some(e),
            AgreeError::Scoring(e) => e.source(),
            _ => None,
        }
    }
}

/// Why a line of labels is refused.
#[derive(Debug)]
pub enum Why {
    /// Not JSON.
    Json(serde_json::Error),
    /// No `test`.
    NoTest,
    /// `test` names no test of the folder.
    UnknownTest {
        /// The name given.
        test: String,
        /// The closest name, to suggest.
        closest: Option<String>,
    },
    /// The test has no outcome to set a label beside.
    NotScored {
        /// The test.
        test: String,
        /// Why, as the run says it.
        why: Option<String>,
    },
    /// `rating` is not a number.
    RatingNotANumber,
    /// Neither `rubric` and `held`, nor `rating`.
    NoRubric,
    /// `held` is not a boolean.
    HeldNotABoolean,
    /// The test has no rubric of that label.
    UnknownRubric {
        /// The test.
        test: String,
        /// The label given.
        rubric: String,
        /// The closest label, to suggest.
        closest: Option<String>,
    },
    /// The test has several rubrics of that label.
    AmbiguousRubric {
        /// The test.
        test: String,
        /// The label given.
        rubric: String,
        /// How many rubrics have it.
        count: usize,
    },
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hint = |closest: &Option<String>| {
            closest
                .as_ref()
                .map_or_else(String::new, |best| format!(" (did you mean `{best}`?)"))
        };
        match self {
            // serde_json's message without its position, which counts within the one line.
            Why::Json(e) => {
                let text = e.to_string();
                let position = format!(" at line {} column {}", e.line(), e.column());
                write!(
                    f,
                    "invalid JSON: {}",
                    text.strip_suffix(&position).unwrap_or(&text)
                )
            }
            Why::NoTest => f.write_str("a label needs `test`, the name of a test"),
            Why::UnknownTest { test, closest } => {
                write!(f, "no test is named `{test}`{}", hint(closest))
            }
            Why::NotScored { test, why } => write!(
                f,
                "`{test}` could not be scored: {}",
                why.as_deref().unwrap_or("no outcome")
            ),
            Why::RatingNotANumber => f.write_str("`rating` must be a number (a grade, such as 4)"),
            Why::NoRubric => f.write_str("a label needs `rubric` and `held`, or `rating`"),
            Why::HeldNotABoolean => f.write_str("`held` must be true or false"),
            Why::UnknownRubric {
                test,
                rubric,
                closest,
            } => write!(f, "`{test}` has no rubric `{rubric}`{}", hint(closest)),
            Why::AmbiguousRubric {
                test,
                rubric,
                count,
            } => write!(
                f,
                "`{test}` has {count} rubrics labelled `{rubric}`: give them labels of their own"
            ),
        }
    }
}

impl std::error::Error for Why {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Why::Json(e) => Some(e),
            _ => None,
        }
    }
}

/// One line of labels, set beside goldgate's verdict or score.
fn label(
    line: &str,
    by_test: &HashMap<&str, (&Option<Outcome>, &Option<String>)>,
) -> Result<Label, Why> {
    let j: Json = serde_json::from_str(line).map_err(Why::Json)?;
    let test = j.get("test").and_then(Json::as_str).ok_or(Why::NoTest)?;
    let outcome = labelled_test(test, by_test)?;
    match j.get("rating") {
        Some(rating) => rating_label(test, rating, outcome),
        None => verdict_label(&j, test, outcome),
    }
}

/// The outcome of the test a label names, or why there is none to set the label beside.
fn labelled_test<'a>(
    test: &str,
    by_test: &HashMap<&str, (&'a Option<Outcome>, &Option<String>)>,
) -> Result<&'a Outcome, Why> {
    let Some((outcome, error)) = by_test.get(test) else {
        let mut names: Vec<&&str> = by_test.keys().collect();
        names.sort();
        return Err(Why::UnknownTest {
            test: test.to_owned(),
            closest: crate::base::location::closest(test, names.iter().map(|n| **n))
                .map(str::to_owned),
        });
    };
    let Some(outcome) = outcome else {
        return Err(Why::NotScored {
            test: test.to_owned(),
            why: (*error).clone(),
        });
    };
    Ok(outcome)
}

/// A person's grade of a test, beside its score.
fn rating_label(test: &str, rating: &Json, outcome: &Outcome) -> Result<Label, Why> {
    let rating = rating.as_f64().ok_or(Why::RatingNotANumber)?;
    // The score of a test with an unchecked rubric is no measure to grade.
    if let Some(r) = outcome.rubrics.iter().find(|r| !r.verdict.checked) {
        return Ok(Label::Unchecked(Skipped {
            at: String::new(),
            test: test.to_owned(),
            rubric: None,
            why: format!(
                "its score is no measure to grade, as its rubric `{}` {}",
                r.rubric.label,
                unchecked(r)
            ),
        }));
    }
    Ok(Label::Rating(rating, outcome.score))
}

/// A person's verdict on a rubric of a test, beside goldgate's.
fn verdict_label(j: &Json, test: &str, outcome: &Outcome) -> Result<Label, Why> {
    let rubric = j
        .get("rubric")
        .and_then(Json::as_str)
        .ok_or(Why::NoRubric)?;
    let held = j
        .get("held")
        .and_then(Json::as_bool)
        .ok_or(Why::HeldNotABoolean)?;
    let matching: Vec<_> = outcome
        .rubrics
        .iter()
        .filter(|r| r.rubric.label == rubric)
        .collect();
    let verdict = match matching.as_slice() {
        // A rubric goldgate could not check (a judged one never recorded, say) has no verdict to
        // set beside a person's: counted as failed, it would make every statistic meaningless.
        [one] if !one.verdict.checked => {
            return Ok(Label::Unchecked(Skipped {
                at: String::new(),
                test: test.to_owned(),
                rubric: Some(rubric.to_owned()),
                why: unchecked(one),
            }));
        }
        [one] => one,
        [] => {
            let labels: Vec<&str> = outcome
                .rubrics
                .iter()
                .map(|r| r.rubric.label.as_str())
                .collect();
            return Err(Why::UnknownRubric {
                test: test.to_owned(),
                rubric: rubric.to_owned(),
                closest: crate::base::location::closest(rubric, labels.iter().copied())
                    .map(str::to_owned),
            });
        }
        _ => {
            return Err(Why::AmbiguousRubric {
                test: test.to_owned(),
                rubric: rubric.to_owned(),
                count: matching.len(),
            });
        }
    };
    Ok(Label::Verdict(Pair {
        test: test.to_owned(),
        rubric: rubric.to_owned(),
        kind: verdict.rubric.kind.key(),
        person: held,
        goldgate: verdict.verdict.held,
        at: format!("{}:{}", verdict.rubric.file.display(), verdict.rubric.line),
        detail: crate::render::verdict(verdict.verdict.checked, &verdict.verdict.finding),
    }))
}
