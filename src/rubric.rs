//! Rubrics: checks -> verdicts, and the gate and score built from them (SPEC §5).

use std::path::PathBuf;

use regex::Regex;

use crate::case::{FieldRule, GoldField, Profile};
use crate::normalize::Normalize;
use crate::score::{Scored, score_field};
use crate::value::Value;

/// Must-Right closes the gate when it fails; Easy-Wrong costs its penalty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RubricKind {
    /// One failure zeroes the case.
    MustRight,
    /// Each failure subtracts its penalty.
    EasyWrong,
}

impl RubricKind {
    /// The key users write.
    pub fn key(self) -> &'static str {
        match self {
            RubricKind::MustRight => "must_right",
            RubricKind::EasyWrong => "easy_wrong",
        }
    }
}

/// What a rubric checks.
#[derive(Debug, Clone)]
pub enum Check {
    /// EM of the field against its gold is 1.
    Exact,
    /// ANLS of the field against its gold is at least this.
    MinAnls(f64),
    /// Normalized value equals this.
    Equals(String),
    /// Normalized value equals one of these.
    OneOf(Vec<String>),
    /// Normalized value contains every one of these.
    Contains(Vec<String>),
    /// Normalized value contains none of these.
    NotContains(Vec<String>),
    /// The raw value matches.
    Matches(Regex),
    /// The field has a non-empty value (`true`) or none (`false`).
    Present(bool),
}

impl Check {
    /// Whether the check compares against the field's gold.
    pub fn needs_gold(&self) -> bool {
        matches!(self, Check::Exact | Check::MinAnls(_))
    }
}

/// One named check.
#[derive(Debug, Clone)]
pub struct Rubric {
    /// The label written after `must_right:` or `easy_wrong:`.
    pub label: String,
    /// Must-Right or Easy-Wrong.
    pub kind: RubricKind,
    /// The field checked; `None` reads the whole prediction text.
    pub field: Option<String>,
    /// A normalization override.
    pub normalize: Option<Normalize>,
    /// Penalty when an Easy-Wrong rubric fails (0 for Must-Right).
    pub penalty: f64,
    /// The check.
    pub check: Check,
    /// The file the rubric is written in (the case, or a rubric set).
    pub file: PathBuf,
    /// Its line there.
    pub line: u64,
    /// Where the case includes it, when it comes from a rubric set: (case file, line of `include:`).
    pub included_at: Option<(PathBuf, u64)>,
}

/// What a rubric reads: the predicted value and, when the check needs it, the field's gold.
pub struct Subject<'a> {
    /// The value (a field's, or the whole prediction text).
    pub value: &'a Value,
    /// The field's gold and rule, if it has gold.
    pub gold: Option<&'a GoldField>,
    /// The case's scoring profile.
    pub profile: Profile,
}

/// The outcome of one rubric.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether the check held.
    pub held: bool,
    /// Why, in a sentence fit for the failure message.
    pub detail: String,
}

impl Rubric {
    /// Runs the check against what it reads.
    pub fn judge(&self, subject: &Subject, case_normalize: Normalize) -> Verdict {
        let normalize = self.normalize.unwrap_or(case_normalize);
        let raw = subject.value.as_text();
        let norm = normalize.apply(&raw);
        let shown = shorten(&raw);
        let (held, detail) = match &self.check {
            Check::Exact | Check::MinAnls(_) => {
                let (variants, rule) = subject.gold.map_or((&[][..], FieldRule::default()), |g| {
                    (g.variants.as_slice(), g.rule)
                });
                let Scored { em, anls, .. } =
                    score_field(variants, rule, subject.value, normalize, subject.profile);
                match &self.check {
                    Check::MinAnls(min) => (
                        anls >= *min,
                        format!("ANLS {anls:.4} against gold, needs at least {min}"),
                    ),
                    _ => (
                        em == 1.0,
                        format!(
                            "`{shown}` is {}an exact match of its gold",
                            if em == 1.0 { "" } else { "not " }
                        ),
                    ),
                }
            }
            Check::Equals(v) => {
                let held = norm == normalize.apply(v);
                (
                    held,
                    format!(
                        "`{shown}` {} `{v}`",
                        if held { "equals" } else { "does not equal" }
                    ),
                )
            }
            Check::OneOf(options) => {
                let held = options.iter().any(|v| normalize.apply(v) == norm);
                (
                    held,
                    format!(
                        "`{shown}` is {}one of {}",
                        if held { "" } else { "not " },
                        list(options)
                    ),
                )
            }
            Check::Contains(needles) => {
                let missing: Vec<String> = needles
                    .iter()
                    .filter(|s| !norm.contains(&normalize.apply(s)))
                    .cloned()
                    .collect();
                if missing.is_empty() {
                    (true, format!("`{shown}` contains {}", list(needles)))
                } else {
                    (
                        false,
                        format!("`{shown}` does not contain {}", list(&missing)),
                    )
                }
            }
            Check::NotContains(needles) => {
                let found: Vec<String> = needles
                    .iter()
                    .filter(|s| norm.contains(&normalize.apply(s)))
                    .cloned()
                    .collect();
                if found.is_empty() {
                    (
                        true,
                        format!("`{shown}` contains none of {}", list(needles)),
                    )
                } else {
                    (false, format!("`{shown}` contains {}", list(&found)))
                }
            }
            Check::Matches(re) => {
                let held = re.is_match(&raw);
                (
                    held,
                    format!(
                        "`{shown}` {} /{}/",
                        if held { "matches" } else { "does not match" },
                        re.as_str()
                    ),
                )
            }
            Check::Present(want) => {
                let present = !subject.value.is_empty() && !raw.trim().is_empty();
                let detail = if present {
                    format!("has the value `{shown}`")
                } else {
                    "is absent, null or empty".into()
                };
                (present == *want, detail)
            }
        };
        let detail = match &self.field {
            Some(field) => format!("{field}: {detail}"),
            None => format!("prediction: {detail}"),
        };
        Verdict { held, detail }
    }
}

/// The gate and the gated score of a set of verdicts.
///
/// ```
/// use goldgate::rubric::{RubricKind::*, gated_score};
/// assert_eq!(gated_score(&[(EasyWrong, 0.2, false), (EasyWrong, 0.1, true)]), (true, 0.8));
/// assert_eq!(gated_score(&[(MustRight, 0.0, false), (EasyWrong, 0.1, true)]), (false, 0.0));
/// assert_eq!(gated_score(&[(EasyWrong, 0.7, false), (EasyWrong, 0.7, false)]), (true, 0.0));
/// assert_eq!(gated_score(&[]), (true, 1.0));
/// ```
pub fn gated_score(verdicts: &[(RubricKind, f64, bool)]) -> (bool, f64) {
    let gate_open = verdicts
        .iter()
        .all(|&(kind, _, held)| held || kind == RubricKind::EasyWrong);
    if !gate_open {
        return (false, 0.0);
    }
    let lost: f64 = verdicts
        .iter()
        .filter(|(_, _, held)| !held)
        .map(|(_, penalty, _)| penalty)
        .sum();
    (true, (1.0 - lost).max(0.0))
}

fn list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    let one_line = text.replace('\n', "⏎");
    if one_line.chars().count() <= MAX {
        one_line
    } else {
        format!("{}…", one_line.chars().take(MAX).collect::<String>())
    }
}
