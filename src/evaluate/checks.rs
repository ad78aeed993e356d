//! Judging a rubric's check against a prediction, and the gate and score built from the verdicts
//! (SPEC §5, §6).

use crate::base::budget::{MESSAGE_ITEMS, summarised};
use crate::base::field_path::FieldPath;
use crate::base::location::closest_within;
use crate::base::normalize::Normalize;
use crate::base::typed::{canonical_number, parse_date, parse_number};
use crate::base::value::Value;
use crate::evaluate::field::{Scored, numbers_close, score_field};
use crate::evaluate::judge::Judgments;
use crate::evaluate::outcome::Verdict;
use crate::model::case::{FieldRule, GoldField, Profile, Scoring};
use crate::model::prediction::Prediction;
use crate::model::rubric::{Check, Probe, Rubric, RubricKind};

/// What rubrics read: the prediction and the case's gold, profile and normalization.
pub struct Context<'a> {
    /// The prediction.
    pub prediction: &'a Prediction,
    /// The verdicts of `judge:` checks.
    pub judgments: &'a Judgments<'a>,
    /// The case's gold fields.
    pub gold: &'a [GoldField],
    /// The case's scoring profile.
    pub profile: Profile,
    /// The case's normalization.
    pub normalize: Normalize,
    /// The prediction's whole text as a value, made once for the rubrics that read it.
    pub whole_text: std::cell::OnceCell<Value>,
}

/// One place a check looks at: a concrete path (or the whole text) and what is there.
struct Target<'a> {
    /// `None` for the whole prediction text.
    at: Option<FieldPath>,
    value: &'a Value,
    confidence: Option<f64>,
    /// The gold variants at the same place, when gold has them.
    gold: Option<Vec<Value>>,
    /// Why the path reached nothing, when it did not.
    missing: Option<String>,
    rule: FieldRule,
}

impl Rubric {
    /// Runs the rubric's check against the prediction.
    pub fn judge(&self, cx: &Context) -> Verdict {
        let whole = cx
            .whole_text
            .get_or_init(|| Value::Text(cx.prediction.text.clone()));
        let (state, detail) = judge(
            &self.probe,
            None,
            cx,
            self.probe.normalize.unwrap_or(cx.normalize),
            whole,
        );
        let detail = match state {
            State::Unchecked => format!("could not be checked: {detail}"),
            _ => detail,
        };
        Verdict {
            held: state == State::Held,
            detail,
            checked: state != State::Unchecked,
        }
    }
}

/// What came of a check: it held, it failed, or it could not be made (a misspelt field, a
/// `[*]` that reached nothing, a value that cannot be read as a number...). `not:` turns held
/// into failed and back, never "could not be made" into held: a typo must not pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Held,
    Failed,
    Unchecked,
}

impl From<bool> for State {
    fn from(held: bool) -> State {
        if held { State::Held } else { State::Failed }
    }
}

type Judged = (State, String);

/// Judges a probe; `inherited` is the place an enclosing check looks at.
fn judge(
    probe: &Probe,
    inherited: Option<&FieldPath>,
    cx: &Context,
    normalize: Normalize,
    whole: &Value,
) -> Judged {
    let normalize = probe.normalize.unwrap_or(normalize);
    let path = probe.field.as_ref().or(inherited);
    // `present: false` asks for absence, which an unknown name satisfies (SPEC §5); every other
    // check on a name one edit from a known one is a typo that would hold on nothing.
    if let Some(path) = path
        && !matches!(probe.check, Check::Present(false))
        && let Some(hint) = misspelt(path, cx)
    {
        return (State::Unchecked, hint);
    }
    let targets = targets(path, cx, whole);
    if targets.is_empty() {
        let path = path.map(ToString::to_string).unwrap_or_default();
        return (
            State::Unchecked,
            format!("{path}: `[*]` reached no element, so nothing could be checked"),
        );
    }
    // A nested check on its parent's place does not repeat the path.
    let named = probe.field.is_some() || inherited.is_none();
    let mut failures = Vec::new();
    let mut unchecked = Vec::new();
    let mut last = String::new();
    for target in &targets {
        let (state, mut detail) = judge_at(&probe.check, target, cx, normalize, whole);
        if let Some(why) = &target.missing {
            detail.push_str(&format!(" ({why})"));
        }
        let detail = match (&target.at, named) {
            (_, false) => detail,
            (Some(at), true) => format!("{at}: {detail}"),
            (None, true) => format!("prediction: {detail}"),
        };
        match state {
            State::Held => last = detail,
            State::Failed => failures.push(detail),
            State::Unchecked => unchecked.push(detail),
        }
    }
    if !unchecked.is_empty() {
        return (State::Unchecked, summarised(&unchecked, "; "));
    }
    match (failures.is_empty(), targets.len()) {
        (true, 1) => (State::Held, last),
        (true, n) => (State::Held, format!("all {n} elements hold ({last})")),
        (false, n) if failures.len() > MESSAGE_ITEMS => (
            State::Failed,
            format!(
                "{} of {n} elements fail: {}",
                failures.len(),
                summarised(&failures, "; ")
            ),
        ),
        (false, _) => (State::Failed, failures.join("; ")),
    }
}

/// The typo in the field a rubric reads (at any depth of its nested checks), if it has one.
pub(crate) fn misspelt_field(rubric: &Rubric, cx: &Context) -> Option<String> {
    fn walk(probe: &Probe, cx: &Context) -> Option<String> {
        if let Some(path) = &probe.field
            && !matches!(probe.check, Check::Present(false))
            && let Some(hint) = misspelt(path, cx)
        {
            return Some(hint);
        }
        match &probe.check {
            Check::All(ps) | Check::Any(ps) => ps.iter().find_map(|p| walk(p, cx)),
            Check::Not(p) => walk(p, cx),
            Check::SumOf { fields, .. } => fields.iter().find_map(|f| misspelt(f, cx)),
            _ => None,
        }
    }
    walk(&rubric.probe, cx)
}

/// A root field in neither gold nor the prediction, one edit from a name that is, is a typo.
fn misspelt(path: &FieldPath, cx: &Context) -> Option<String> {
    let name = path.root();
    if cx.gold.iter().any(|g| g.name == name) || cx.prediction.field(name).is_some() {
        return None;
    }
    let known = cx
        .gold
        .iter()
        .map(|g| g.name.as_str())
        .chain(cx.prediction.fields.iter().map(|f| f.name.as_str()));
    // Stricter than for keys: field names are short and an absent field may be meant.
    let best = closest_within(name, known, |len| if len <= 5 { 1 } else { 2 })?;
    Some(format!(
        "{name}: the field is in neither gold nor the prediction (did you mean `{best}`?)"
    ))
}

fn targets<'a>(path: Option<&FieldPath>, cx: &'a Context, whole: &'a Value) -> Vec<Target<'a>> {
    let Some(path) = path else {
        return vec![Target {
            at: None,
            value: whole,
            confidence: None,
            gold: None,
            rule: FieldRule::default(),
            missing: None,
        }];
    };
    let field = cx.prediction.field(path.root());
    let root = field.map_or(&Value::Null, |f| &f.value);
    let gold = cx.gold.iter().find(|g| g.name == path.root());
    path.resolve(root)
        .into_iter()
        .map(|(at, value)| Target {
            confidence: if at.is_field() {
                field.and_then(|f| f.confidence)
            } else {
                None
            },
            gold: gold.map(|g| g.variants.iter().map(|v| at.get(v).clone()).collect()),
            rule: if at.is_field() {
                gold.map_or(FieldRule::default(), |g| g.rule)
            } else {
                FieldRule::default()
            },
            missing: if matches!(value, Value::Null) {
                at.why_missing(root)
            } else {
                None
            },
            at: Some(at),
            value,
        })
        .collect()
}

/// Judges one check at one place.
fn judge_at(
    check: &Check,
    t: &Target,
    cx: &Context,
    normalize: Normalize,
    whole: &Value,
) -> Judged {
    match check {
        Check::Exact | Check::MinAnls(_) => against_gold(check, t, cx, normalize),
        Check::Equals(_)
        | Check::OneOf(_)
        | Check::Contains(_)
        | Check::NotContains(_)
        | Check::Matches(_)
        | Check::Present(_) => {
            let (held, detail) = on_text(check, t, normalize);
            (held.into(), detail)
        }
        Check::Number { .. }
        | Check::Date { .. }
        | Check::MinConfidence(_)
        | Check::Count { .. } => on_typed(check, t),
        Check::All(_) | Check::Any(_) | Check::Not(_) => combined(check, t, cx, normalize, whole),
        Check::SumOf { fields, tolerance } => sum_of(fields, *tolerance, t, cx),
        Check::Judge(question) => judged(question, t, cx),
    }
}

/// `judge`: the recorded verdict of the suite's judge on the question about this value.
fn judged(question: &str, t: &Target, cx: &Context) -> Judged {
    let text = t.value.as_text();
    let field = t.at.as_ref().map(ToString::to_string);
    match cx
        .judgments
        .verdict(question, &text, field, t.gold.as_deref())
    {
        Ok(v) => {
            let votes = if v.votes.len() > 1 {
                let agree = v.votes.iter().filter(|h| **h == v.held).count();
                format!(
                    " ({agree} of {} answers; flip rate {:.2})",
                    v.votes.len(),
                    v.flip_rate()
                )
            } else {
                String::new()
            };
            (
                v.held.into(),
                format!(
                    "the judge says {}: {}{votes}",
                    if v.held { "yes" } else { "no" },
                    shorten(&v.explanation)
                ),
            )
        }
        Err(why) => (State::Unchecked, why),
    }
}

/// `exact` and `min_anls`: the value against its gold, by the field's rule and the profile.
fn against_gold(check: &Check, t: &Target, cx: &Context, normalize: Normalize) -> Judged {
    let shown = shorten(&t.value.as_text());
    let Some(gold) = &t.gold else {
        return (
            State::Unchecked,
            "gold has no value here to compare with".into(),
        );
    };
    let Scored { em, anls, .. } = score_field(gold, t.rule, t.value, normalize, cx.profile);
    match check {
        Check::MinAnls(min) => (
            (anls >= *min).into(),
            format!("ANLS {anls:.4} against gold, needs at least {min}"),
        ),
        _ => (
            (em == 1.0).into(),
            format!(
                "`{shown}` is {}an exact match of its gold",
                if em == 1.0 { "" } else { "not " }
            ),
        ),
    }
}

/// Checks on the value's text: `equals`, `one_of`, `contains`, `not_contains`, `matches`,
/// `present`.
fn on_text(check: &Check, t: &Target, normalize: Normalize) -> (bool, String) {
    let raw = t.value.as_text();
    let norm = normalize.apply(&raw);
    let shown = shorten(&raw);
    match check {
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
            let present = t.value.has_value();
            let detail = if present {
                format!("has the value `{shown}`")
            } else {
                "is absent, null or empty".into()
            };
            (present == *want, detail)
        }
        _ => unreachable!("judge_at sends only text checks here"),
    }
}

/// Checks that read the value as something: `number`, `date`, `min_confidence`, `count`.
fn on_typed(check: &Check, t: &Target) -> Judged {
    let raw = t.value.as_text();
    let shown = shorten(&raw);
    match check {
        Check::Number { written, tolerance } => match canonical_number(&raw) {
            Some(n) => {
                let held = numbers_close(&raw, written, *tolerance);
                let value = canonical_number(written).unwrap_or_else(|| written.clone());
                (
                    held.into(),
                    format!(
                        "`{shown}` reads as {n}, {} {value}{}",
                        if held { "equal to" } else { "not" },
                        within(*tolerance)
                    ),
                )
            }
            None => (
                State::Unchecked,
                format!("`{shown}` could not be read as a number"),
            ),
        },
        Check::Date { value, day_first } => match parse_date(&raw, *day_first) {
            Some(d) => (
                (d == *value).into(),
                format!(
                    "`{shown}` reads as {d}, {} {value}",
                    if d == *value { "equal to" } else { "not" }
                ),
            ),
            None => (
                State::Unchecked,
                format!("`{shown}` could not be read as a date"),
            ),
        },
        Check::MinConfidence(min) => match t.confidence {
            Some(c) => (
                (c >= *min).into(),
                format!("confidence {c}, needs at least {min}"),
            ),
            None => (
                State::Unchecked,
                "the prediction gives no confidence for it".into(),
            ),
        },
        Check::Count { min, max } => {
            let n = match t.value {
                Value::List(items) => items.len(),
                Value::Null => 0,
                _ => return (State::Unchecked, format!("`{shown}` is not a list")),
            };
            let wanted = if min == max {
                format!("{min}")
            } else if *max == usize::MAX {
                format!("at least {min}")
            } else {
                format!("{min} to {max}")
            };
            (
                (*min..=*max).contains(&n).into(),
                format!(
                    "has {n} item{}, needs {wanted}",
                    if n == 1 { "" } else { "s" }
                ),
            )
        }
        _ => unreachable!("judge_at sends only typed checks here"),
    }
}

/// `all`, `any` and `not`: nested checks at the same place. A nested check that could not be
/// made makes the whole one unchecked, whatever the others say.
fn combined(
    check: &Check,
    t: &Target,
    cx: &Context,
    normalize: Normalize,
    whole: &Value,
) -> Judged {
    let here = t.at.as_ref();
    let nested = |probes: &[Probe]| -> Vec<Judged> {
        probes
            .iter()
            .map(|p| judge(p, here, cx, normalize, whole))
            .collect()
    };
    let unchecked = |results: &[Judged]| -> Option<Judged> {
        let why: Vec<&str> = results
            .iter()
            .filter(|(s, _)| *s == State::Unchecked)
            .map(|(_, d)| d.as_str())
            .collect();
        (!why.is_empty()).then(|| (State::Unchecked, summarised(&why, "; ")))
    };
    let details = |results: &[Judged], state: State| -> String {
        let picked: Vec<&str> = results
            .iter()
            .filter(|(s, _)| *s == state)
            .map(|(_, d)| d.as_str())
            .collect();
        summarised(&picked, "; ")
    };
    match check {
        Check::All(probes) => {
            let results = nested(probes);
            if let Some(u) = unchecked(&results) {
                return u;
            }
            if results.iter().all(|(s, _)| *s == State::Held) {
                (State::Held, format!("all {} checks hold", probes.len()))
            } else {
                (
                    State::Failed,
                    format!("not all checks hold: {}", details(&results, State::Failed)),
                )
            }
        }
        Check::Any(probes) => {
            let results = nested(probes);
            if let Some(u) = unchecked(&results) {
                return u;
            }
            match results.iter().find(|(s, _)| *s == State::Held) {
                Some((_, d)) => (State::Held, format!("one check holds: {d}")),
                None => (
                    State::Failed,
                    format!("no check holds: {}", details(&results, State::Failed)),
                ),
            }
        }
        Check::Not(probe) => {
            let (state, detail) = judge(probe, here, cx, normalize, whole);
            let state = match state {
                State::Held => State::Failed,
                State::Failed => State::Held,
                State::Unchecked => return (State::Unchecked, detail),
            };
            (state, format!("not ({detail})"))
        }
        _ => unreachable!("judge_at sends only combinators here"),
    }
}

/// `sum_of`: the value read as a number against the sum of other fields' numbers.
fn sum_of(fields: &[FieldPath], tolerance: f64, t: &Target, cx: &Context) -> Judged {
    let raw = t.value.as_text();
    let shown = shorten(&raw);
    let Some(total) = parse_number(&raw) else {
        return (
            State::Unchecked,
            format!("`{shown}` could not be read as a number"),
        );
    };
    let mut sum = 0.0;
    let mut parts = Vec::new();
    for path in fields {
        if let Some(hint) = misspelt(path, cx) {
            return (State::Unchecked, format!("cannot sum it: {hint}"));
        }
        let root = cx
            .prediction
            .field(path.root())
            .map_or(&Value::Null, |f| &f.value);
        let reached = path.resolve(root);
        if reached.is_empty() {
            return (
                State::Unchecked,
                format!("cannot sum it: `{path}` reached no element"),
            );
        }
        for (at, v) in reached {
            match parse_number(&v.as_text()) {
                Some(n) => {
                    sum += n;
                    parts.push(format!("{at} {n}"));
                }
                None => {
                    return (
                        State::Unchecked,
                        format!(
                            "{at} `{}` could not be read as a number, so the sum is unknown",
                            shorten(&v.as_text())
                        ),
                    );
                }
            }
        }
    }
    let held = (total - sum).abs() <= tolerance + 1e-9 * total.abs().max(sum.abs()).max(1.0);
    let sum_text = format!("{}", (sum * 1e9).round() / 1e9);
    (
        held.into(),
        format!(
            "`{shown}` reads as {total}, {} the sum {sum_text} of {}{}",
            if held { "equal to" } else { "not" },
            summarised(&parts, " + "),
            within(tolerance)
        ),
    )
}

fn within(tolerance: f64) -> String {
    if tolerance > 0.0 {
        format!(" (within {tolerance})")
    } else {
        String::new()
    }
}

/// The gate and the gated score under a scoring: `penalty` subtracts each failed Easy-Wrong
/// rubric's penalty (SPEC §5); `fraction` is S = G × (held Easy-Wrong / all Easy-Wrong), 1 when
/// there is none (PerceptionRubrics, SPEC §12).
pub fn gated_score_by(verdicts: &[(RubricKind, f64, bool)], scoring: Scoring) -> (bool, f64) {
    let gate_open = verdicts
        .iter()
        .all(|&(kind, _, held)| held || kind == RubricKind::EasyWrong);
    if !gate_open {
        return (false, 0.0);
    }
    if scoring == Scoring::Fraction {
        let easy: Vec<bool> = verdicts
            .iter()
            .filter(|(kind, _, _)| *kind == RubricKind::EasyWrong)
            .map(|(_, _, held)| *held)
            .collect();
        if easy.is_empty() {
            return (true, 1.0);
        }
        let held = easy.iter().filter(|h| **h).count();
        return (true, held as f64 / easy.len() as f64);
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

#[cfg(test)]
mod examples {
    fn gated_score(verdicts: &[(RubricKind, f64, bool)]) -> (bool, f64) {
        gated_score_by(verdicts, Scoring::Penalty)
    }

    use super::*;

    #[test]
    fn gate_and_penalties() {
        use RubricKind::*;
        assert_eq!(
            gated_score(&[(EasyWrong, 0.2, false), (EasyWrong, 0.1, true)]),
            (true, 0.8)
        );
        assert_eq!(
            gated_score(&[(MustRight, 0.0, false), (EasyWrong, 0.1, true)]),
            (false, 0.0)
        );
        assert_eq!(
            gated_score(&[(EasyWrong, 0.7, false), (EasyWrong, 0.7, false)]),
            (true, 0.0)
        );
        assert_eq!(gated_score(&[]), (true, 1.0));
        let fraction = |v: &[(RubricKind, f64, bool)]| gated_score_by(v, Scoring::Fraction);
        assert_eq!(
            fraction(&[
                (EasyWrong, 0.2, false),
                (EasyWrong, 0.1, true),
                (EasyWrong, 0.1, true)
            ]),
            (true, 2.0 / 3.0)
        );
        assert_eq!(fraction(&[(MustRight, 0.0, true)]), (true, 1.0));
        assert_eq!(
            fraction(&[(MustRight, 0.0, false), (EasyWrong, 0.1, true)]),
            (false, 0.0)
        );
    }
}
