//! Judging a rubric's check against a prediction, and the gate and score built from the verdicts
//!.

use crate::base::decimal::Decimal;
use crate::base::field_path::{FieldPath, Missing};
use crate::base::location::closest_within;
use crate::base::normalize::Normalize;
use crate::base::typed::{canonical_number, parse_date, read_number};
use crate::base::value::Value;
use crate::evaluate::field::{Scored, numbers_close, score_field};
use crate::evaluate::finding::{Excerpt, Finding, Place, SumPart, Votes};
use crate::evaluate::judge::Judgments;
use crate::evaluate::outcome::Verdict;
use crate::metrics::effort;
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
    /// The whole text under each normalization rubrics asked for, made once each.
    pub whole_normalized: std::cell::RefCell<Vec<(Normalize, std::rc::Rc<str>)>>,
}

impl Context<'_> {
    /// `text` normalized; the whole text once per normalization. Normalizing costs a step a
    /// byte: a large prediction read whole by many rubrics is held to the case's budget.
    fn normalized(&self, t: &Target, text: &str, normalize: Normalize) -> std::rc::Rc<str> {
        let whole = t.at.is_none();
        if whole
            && let Some((_, done)) = self
                .whole_normalized
                .borrow()
                .iter()
                .find(|(n, _)| *n == normalize)
        {
            return done.clone();
        }
        effort::spend(text.len() as u64 + 1);
        let done: std::rc::Rc<str> = normalize.apply_visible(text).into();
        if whole {
            self.whole_normalized
                .borrow_mut()
                .push((normalize, done.clone()));
        }
        done
    }
}

/// One place a check looks at: a concrete path (or the whole text) and what is there.
struct Target<'a> {
    /// `None` for the whole prediction text.
    at: Option<FieldPath>,
    value: &'a Value,
    confidence: Option<f64>,
    /// The gold variants at the same place, when gold has them.
    gold: Option<Vec<Value>>,
    /// Why the path reached nothing in the prediction, when it did not.
    missing: Option<Missing>,
    /// Why the path reached nothing in any gold variant, when the field has gold but the
    /// place is not in it.
    not_in_gold: Option<Missing>,
    /// Why the path reached nothing in the prediction, when the field has no gold and the
    /// prediction has a key one edit from the one asked for: a typo below the root.
    typo: Option<Missing>,
    rule: FieldRule,
}

impl Rubric {
    /// Runs the rubric's check against the prediction.
    pub fn judge(&self, cx: &Context) -> Verdict {
        let whole = cx
            .whole_text
            .get_or_init(|| Value::Text(cx.prediction.text.clone()));
        let (state, finding) = judge(
            &self.probe,
            None,
            cx,
            self.probe.normalize.unwrap_or(cx.normalize),
            whole,
        );
        Verdict {
            held: state == State::Held,
            finding,
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

type Judged = (State, Finding);

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
    // `present: false` asks for absence, which an unknown name satisfies; every other
    // check on a name one edit from a known one is a typo that would hold on nothing.
    if let Some(path) = path
        && !matches!(probe.check, Check::Present(false))
        && let Some(typo) = misspelt(path, cx)
    {
        return (State::Unchecked, typo);
    }
    let targets = targets(path, cx, whole);
    if targets.is_empty() {
        let path = path.map(ToString::to_string).unwrap_or_default();
        return (State::Unchecked, Finding::NoElement { path });
    }
    // A nested check on its parent's place does not repeat the path.
    let named = probe.field.is_some() || inherited.is_none();
    let total = targets.len();
    let mut failed = Vec::new();
    let mut unchecked = Vec::new();
    let mut last_held = None;
    for target in targets {
        let (state, finding) = judge_at(&probe.check, &target, cx, normalize, whole);
        let place = match (target.at, named) {
            (_, false) => None,
            (Some(at), true) => Some(Place::Field(at.to_string())),
            (None, true) => Some(Place::Text),
        };
        // Gold's own reason says it all when the prediction misses the place alike.
        let missing = target.missing.filter(|m| match &finding {
            Finding::NotInGold { missing: why } | Finding::Misnamed { missing: why } => why != m,
            _ => true,
        });
        let finding = if place.is_none() && missing.is_none() {
            finding
        } else {
            Finding::At {
                place,
                missing,
                finding: Box::new(finding),
            }
        };
        match state {
            State::Held => last_held = Some(finding),
            State::Failed => failed.push(finding),
            State::Unchecked => unchecked.push(finding),
        }
    }
    if !unchecked.is_empty() {
        return (State::Unchecked, several(unchecked));
    }
    let state = if failed.is_empty() {
        State::Held
    } else {
        State::Failed
    };
    if total == 1 {
        let only = failed.pop().or(last_held).expect("one element, judged");
        return (state, only);
    }
    let finding = Finding::Elements {
        total,
        last_held: (state == State::Held).then(|| Box::new(last_held.expect("all held"))),
        failed,
    };
    (state, finding)
}

/// One finding, or the findings of several checks that could not be made.
fn several(mut findings: Vec<Finding>) -> Finding {
    if findings.len() == 1 {
        findings.pop().expect("one")
    } else {
        Finding::Unchecked { findings }
    }
}

/// The typo in the field a rubric reads (at any depth of its nested checks), if it has one: a
/// root field one edit from a known one, or a path below a gold field that its gold does not
/// have (`supplier.nmae`, `line_items[9]` of two), which `test` finds could not be checked.
pub(crate) fn misspelt_field(rubric: &Rubric, cx: &Context) -> Option<Finding> {
    fn walk(probe: &Probe, inherited: Option<&FieldPath>, cx: &Context) -> Option<Finding> {
        let path = probe.field.as_ref().or(inherited);
        if let Some(path) = path
            && !matches!(probe.check, Check::Present(false))
            && let Some(typo) = misspelt(path, cx)
        {
            return Some(typo);
        }
        match &probe.check {
            Check::All(ps) | Check::Any(ps) => ps.iter().find_map(|p| walk(p, path, cx)),
            Check::Not(p) => walk(p, path, cx),
            Check::SumOf { fields, .. } => fields.iter().find_map(|f| misspelt(f, cx)),
            Check::Present(_) => None,
            _ => {
                let path = path?;
                let finding = match not_in_gold(path, cx) {
                    Some(missing) => Finding::NotInGold { missing },
                    None => Finding::Misnamed {
                        missing: misnamed(path, cx)?,
                    },
                };
                Some(Finding::At {
                    place: Some(Place::Field(path.to_string())),
                    missing: None,
                    finding: Box::new(finding),
                })
            }
        }
    }
    walk(&rubric.probe, None, cx)
}

/// Why `path` reaches nothing in every variant of its field's gold, when the field has gold.
fn not_in_gold(path: &FieldPath, cx: &Context) -> Option<Missing> {
    let gold = cx.gold.iter().find(|g| g.name == path.root())?;
    in_no_variant(&gold.variants, |v| {
        path.resolve(v)
            .into_iter()
            .find_map(|(at, value)| matches!(value, Value::Null).then(|| at.why_missing(v))?)
    })
}

/// The first variant's reason when every variant misses (`why` of each), else `None`: a place
/// one alternative of the gold has is in the gold.
fn in_no_variant(variants: &[Value], why: impl Fn(&Value) -> Option<Missing>) -> Option<Missing> {
    let mut all = variants.iter().map(why);
    let first = all.next()??;
    all.all(|w| w.is_some()).then_some(first)
}

/// Why a path reaches nothing in a prediction without gold to tell, when that is a mistake of
/// the path rather than an absent value: a step of the wrong shape (`line_items.quantity`
/// without `[*]`, a key into a text), an index past the end, or a key the mapping lacks, close
/// to one it has: within one edit for a key of three letters or fewer, two for a longer one (a
/// swap of two letters is two edits): stricter than for a case's keys, as an absent key may be
/// meant.
fn one_edit_away(missing: &Missing) -> bool {
    match missing {
        Missing::NotAList { .. } | Missing::NotAMapping { .. } | Missing::PastTheEnd { .. } => true,
        Missing::NoKey {
            key,
            closest: Some(best),
            ..
        } => closest_within(key, [best.as_str()], |len| if len <= 3 { 1 } else { 2 }).is_some(),
        _ => false,
    }
}

/// Why `path` reaches nothing in the prediction, when its field has no gold and the prediction
/// has a key one edit from the one asked for.
fn misnamed(path: &FieldPath, cx: &Context) -> Option<Missing> {
    if cx.gold.iter().any(|g| g.name == path.root()) {
        return None;
    }
    let root = &cx.prediction.field(path.root())?.value;
    path.resolve(root).into_iter().find_map(|(at, value)| {
        matches!(value, Value::Null)
            .then(|| at.why_missing(root))?
            .filter(one_edit_away)
    })
}

/// A root field in neither gold nor the prediction, one edit from a name that is, is a typo.
fn misspelt(path: &FieldPath, cx: &Context) -> Option<Finding> {
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
    Some(Finding::Misspelt {
        field: name.to_owned(),
        closest: best.to_owned(),
    })
}

fn targets<'a>(path: Option<&FieldPath>, cx: &'a Context, whole: &'a Value) -> Vec<Target<'a>> {
    let Some(path) = path else {
        return vec![Target {
            at: None,
            value: whole,
            confidence: None,
            gold: None,
            not_in_gold: None,
            typo: None,
            rule: FieldRule::default(),
            missing: None,
        }];
    };
    let field = cx.prediction.field(path.root());
    let root = field.map_or(&Value::Null, |f| &f.value);
    let gold = cx.gold.iter().find(|g| g.name == path.root());
    // A gold field the prediction lacks, one edit from a field it has that gold does not list:
    // a key the extraction may have misnamed (`invoice_nr` for `invoice_no`).
    let misnamed = gold
        .and_then(|g| crate::evaluate::field::misnamed_key(&g.name, cx.gold, cx.prediction))
        .map(|key| Missing::NoKey {
            at: String::new(),
            key: path.root().to_owned(),
            closest: Some(key.to_owned()),
        });
    path.resolve(root)
        .into_iter()
        .map(|(at, value)| Target {
            confidence: if at.is_field() {
                field.and_then(|f| f.confidence)
            } else {
                None
            },
            gold: gold.map(|g| g.variants.iter().map(|v| at.get(v).clone()).collect()),
            // The place is below a gold field but reaches nothing in any of its variants: a
            // typo or an index past the end of the gold, whatever the prediction has there.
            not_in_gold: gold.and_then(|g| in_no_variant(&g.variants, |v| at.why_missing(v))),
            rule: if at.is_field() {
                gold.map_or(FieldRule::default(), |g| g.rule)
            } else {
                FieldRule::default()
            },
            missing: if matches!(value, Value::Null) {
                at.why_missing(root).or_else(|| misnamed.clone())
            } else {
                None
            },
            typo: if gold.is_none() && matches!(value, Value::Null) {
                at.why_missing(root).filter(one_edit_away)
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
    // Only `present` may ask about a place gold does not have (`present: false` on
    // `line_items[2]` of a two-item gold); a combinator asks its nested checks.
    let asks_a_value = !matches!(
        check,
        Check::Present(_) | Check::All(_) | Check::Any(_) | Check::Not(_)
    );
    if let Some(missing) = &t.not_in_gold
        && asks_a_value
    {
        return (
            State::Unchecked,
            Finding::NotInGold {
                missing: missing.clone(),
            },
        );
    }
    // Without gold to tell, a key one edit from one the prediction has is a typo, as a root
    // field one edit from a known one is: it would hold on nothing.
    if let Some(missing) = &t.typo
        && asks_a_value
    {
        return (
            State::Unchecked,
            Finding::Misnamed {
                missing: missing.clone(),
            },
        );
    }
    match check {
        Check::Exact | Check::MinAnls(_) => against_gold(check, t, cx, normalize),
        Check::Equals(_)
        | Check::OneOf(_)
        | Check::Contains(_)
        | Check::NotContains(_)
        | Check::Matches(_)
        | Check::Present(_) => on_text(check, t, cx, normalize),
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
            let votes = (v.votes.len() > 1).then(|| Votes {
                agree: v.votes.iter().filter(|h| **h == v.held).count(),
                total: v.votes.len(),
                flip_rate: v.flip_rate(),
            });
            (
                v.held.into(),
                Finding::Judge {
                    held: v.held,
                    explanation: Excerpt::of(&v.explanation),
                    votes,
                },
            )
        }
        Err(why) => (State::Unchecked, why),
    }
}

/// `exact` and `min_anls`: the value against its gold, by the field's rule and the profile.
fn against_gold(check: &Check, t: &Target, cx: &Context, normalize: Normalize) -> Judged {
    let Some(gold) = &t.gold else {
        return (State::Unchecked, Finding::NoGold);
    };
    let Scored { em, anls, .. } = score_field(gold, t.rule, t.value, normalize, cx.profile);
    match check {
        Check::MinAnls(min) => ((anls >= *min).into(), Finding::Anls { anls, min: *min }),
        _ => (
            (em == 1.0).into(),
            Finding::Exact {
                value: Excerpt::of(&t.value.as_text()),
                matched: em == 1.0,
            },
        ),
    }
}

/// Checks on the value's text: `equals`, `one_of`, `contains`, `not_contains`, `matches`,
/// `present`.
fn on_text(check: &Check, t: &Target, cx: &Context, normalize: Normalize) -> Judged {
    let raw = t.value.as_text();
    let norm = cx.normalized(t, &raw, normalize);
    effort::spend(text_steps(check, &raw));
    let norm = &*norm;
    let value = Excerpt::of(&raw);
    let (held, finding) = match check {
        Check::Equals(v) => {
            let held = norm == normalize.apply_visible(v);
            let expected = v.clone();
            (
                held,
                Finding::Equals {
                    value,
                    expected,
                    held,
                },
            )
        }
        Check::OneOf(options) => {
            let held = options.iter().any(|v| normalize.apply_visible(v) == norm);
            let options = options.clone();
            (
                held,
                Finding::OneOf {
                    value,
                    options,
                    held,
                },
            )
        }
        Check::Contains(needles) => {
            let (held, needles) = needles_said(needles, norm, normalize, true);
            (
                held,
                Finding::Contains {
                    value,
                    needles,
                    held,
                },
            )
        }
        Check::NotContains(needles) => {
            let (held, needles) = needles_said(needles, norm, normalize, false);
            (
                held,
                Finding::NotContains {
                    value,
                    needles,
                    held,
                },
            )
        }
        Check::Matches(re) => {
            let held = re.is_match(&raw);
            let pattern = re.as_str().to_owned();
            (
                held,
                Finding::Matches {
                    value,
                    pattern,
                    held,
                },
            )
        }
        Check::Present(want) => {
            let present = t.value.has_value();
            let value = present.then_some(value);
            (present == *want, Finding::Present { value })
        }
        _ => unreachable!("judge_at sends only text checks here"),
    };
    (held.into(), finding)
}

/// What a check of the text costs: a search a step per 8 bytes and needle; a pattern, a step
/// a byte (a Unicode class such as `\w{20}` runs at a few nanoseconds a byte).
fn text_steps(check: &Check, raw: &str) -> u64 {
    match check {
        Check::OneOf(v) | Check::Contains(v) | Check::NotContains(v) => {
            (raw.len() as u64 / 8 + 1) * v.len() as u64
        }
        Check::Matches(_) => raw.len() as u64 + 1,
        _ => raw.len() as u64 / 8 + 1,
    }
}

/// Whether a `contains` (`wanted` in the text) or `not_contains` held, and the needles its
/// finding names: every needle when it held, else those that failed it (missing or found).
fn needles_said(
    needles: &[String],
    norm: &str,
    normalize: Normalize,
    wanted: bool,
) -> (bool, Vec<String>) {
    let failing: Vec<String> = needles
        .iter()
        .filter(|s| normalize.contains(norm, &normalize.apply_visible(s)) != wanted)
        .cloned()
        .collect();
    let held = failing.is_empty();
    (held, if held { needles.to_vec() } else { failing })
}

/// Checks that read the value as something: `number`, `date`, `min_confidence`, `count`.
fn on_typed(check: &Check, t: &Target) -> Judged {
    let raw = t.value.as_text();
    let value = Excerpt::of(&raw);
    match check {
        Check::Number { written, tolerance } => match canonical_number(&raw) {
            Some(read) => {
                let held = numbers_close(&raw, written, *tolerance);
                let expected = canonical_number(written).unwrap_or_else(|| written.clone());
                let tolerance = *tolerance;
                (
                    held.into(),
                    Finding::Number {
                        value,
                        read,
                        expected,
                        tolerance,
                        held,
                    },
                )
            }
            None => (State::Unchecked, Finding::NotANumber { value }),
        },
        Check::Date {
            value: expected,
            day_first,
        } => match parse_date(&raw, *day_first) {
            Some(d) => (
                (d == *expected).into(),
                Finding::Date {
                    value,
                    read: d.to_string(),
                    expected: expected.to_string(),
                    held: d == *expected,
                },
            ),
            None => (State::Unchecked, Finding::NotADate { value }),
        },
        Check::MinConfidence(min) => match t.confidence {
            Some(confidence) => (
                (confidence >= *min).into(),
                Finding::Confidence {
                    confidence,
                    min: *min,
                },
            ),
            None => (State::Unchecked, Finding::NoConfidence),
        },
        Check::Count { min, max } => {
            let count = match t.value {
                Value::List(items) => items.len(),
                Value::Null => 0,
                _ => return (State::Unchecked, Finding::NotAList { value }),
            };
            (
                (*min..=*max).contains(&count).into(),
                Finding::Count {
                    count,
                    min: *min,
                    max: (*max != usize::MAX).then_some(*max),
                },
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
    let nested = |probes: &[Probe]| -> Result<Vec<Judged>, Box<Judged>> {
        let results: Vec<Judged> = probes
            .iter()
            .map(|p| judge(p, here, cx, normalize, whole))
            .collect();
        let why: Vec<Finding> = results
            .iter()
            .filter(|(s, _)| *s == State::Unchecked)
            .map(|(_, f)| f.clone())
            .collect();
        if why.is_empty() {
            Ok(results)
        } else {
            Err(Box::new((State::Unchecked, several(why))))
        }
    };
    let failed = |results: Vec<Judged>| -> Vec<Finding> {
        results
            .into_iter()
            .filter(|(s, _)| *s == State::Failed)
            .map(|(_, f)| f)
            .collect()
    };
    match check {
        Check::All(probes) => {
            let results = match nested(probes) {
                Ok(results) => results,
                Err(unchecked) => return *unchecked,
            };
            let failed = failed(results);
            let state = failed.is_empty().into();
            let checks = probes.len();
            (state, Finding::All { checks, failed })
        }
        Check::Any(probes) => {
            let mut results = match nested(probes) {
                Ok(results) => results,
                Err(unchecked) => return *unchecked,
            };
            match results.iter().position(|(s, _)| *s == State::Held) {
                Some(i) => (
                    State::Held,
                    Finding::Any {
                        held: Some(Box::new(results.swap_remove(i).1)),
                        failed: Vec::new(),
                    },
                ),
                None => (
                    State::Failed,
                    Finding::Any {
                        held: None,
                        failed: failed(results),
                    },
                ),
            }
        }
        Check::Not(probe) => {
            let (state, finding) = judge(probe, here, cx, normalize, whole);
            let state = match state {
                State::Held => State::Failed,
                State::Failed => State::Held,
                State::Unchecked => return (State::Unchecked, finding),
            };
            let finding = Box::new(finding);
            (state, Finding::Not { finding })
        }
        _ => unreachable!("judge_at sends only combinators here"),
    }
}

/// `sum_of`: the value read as a number against the sum of other fields' numbers, computed
/// exactly (see [`Decimal`]): no rounding makes `1e308 + 1e308` equal to `1`, nor two long
/// amounts equal that differ in a digit.
fn sum_of(fields: &[FieldPath], tolerance: f64, t: &Target, cx: &Context) -> Judged {
    let raw = t.value.as_text();
    let value = Excerpt::of(&raw);
    let Some(total) = read_number(&raw) else {
        return (State::Unchecked, Finding::NotANumber { value });
    };
    let mut sum = Decimal::ZERO;
    let mut parts = Vec::new();
    for path in fields {
        if let Some(typo) = misspelt(path, cx) {
            let because = Box::new(typo);
            return (State::Unchecked, Finding::CannotSum { because });
        }
        let root = cx
            .prediction
            .field(path.root())
            .map_or(&Value::Null, |f| &f.value);
        let reached = path.resolve(root);
        if reached.is_empty() {
            let path = path.to_string();
            return (State::Unchecked, Finding::SumReachedNothing { path });
        }
        for (at, v) in reached {
            let text = v.as_text();
            let at = at.to_string();
            match read_number(&text) {
                Some(number) => {
                    sum = sum.add(&number);
                    let number = number.to_string();
                    parts.push(SumPart { at, number });
                }
                None => {
                    let value = Excerpt::of(&text);
                    return (State::Unchecked, Finding::SumUnreadable { at, value });
                }
            }
        }
    }
    let difference = total.sub(&sum).abs();
    // The tolerance is finite (checked at load), so it is a decimal.
    let held = Decimal::from_f64(tolerance).is_some_and(|tolerance| difference <= tolerance);
    (
        held.into(),
        Finding::SumOf {
            value,
            total: total.to_string(),
            sum: sum.to_string(),
            parts,
            tolerance,
            held,
        },
    )
}

/// The gate and the gated score under a scoring: `penalty` subtracts each failed Easy-Wrong
/// rubric's penalty; `fraction` is S = G × (held Easy-Wrong / all Easy-Wrong), 1 when
/// there is none (PerceptionRubrics).
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
