//! What evaluation found, as data: a rubric check's finding and a field's note. `render` turns
//! them into the sentences of the failure message; the record keeps them as they are (no
//! sentence is stored where a value can be).

use serde::{Deserialize, Serialize};

use crate::base::field_path::{Missing, Shape};

/// The most characters of a value a finding keeps: what a sentence of the message shows. The
/// whole value is in the field's row of the record.
pub const EXCERPT_CHARS: usize = 80;

/// A value as a check saw it, cut to [`EXCERPT_CHARS`] characters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Excerpt {
    /// The value's text, its first [`EXCERPT_CHARS`] characters.
    pub text: String,
    /// Whether the value was longer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

impl Excerpt {
    /// The excerpt of `text`.
    pub fn of(text: &str) -> Excerpt {
        match text.char_indices().nth(EXCERPT_CHARS) {
            None => Excerpt {
                text: text.to_owned(),
                cut: false,
            },
            Some((end, _)) => Excerpt {
                text: text[..end].to_owned(),
                cut: true,
            },
        }
    }
}

/// Where a check looked, when the finding names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// A concrete path into the prediction's fields (`line_items[2].amount`).
    Field(String),
    /// The prediction's whole text.
    Text,
}

/// How the answers of a judge asked several times split.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Votes {
    /// The answers that agree with the verdict.
    pub agree: usize,
    /// All answers.
    pub total: usize,
    /// The share of answers that differ from the verdict.
    pub flip_rate: f64,
}

/// One term of a `sum_of`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SumPart {
    /// Its path.
    pub at: String,
    /// Its value as a number, written in full (`1234.5`).
    pub number: String,
}

/// What a rubric's check found. A check held, failed or could not be made; the verdict says
/// which, the finding says what was seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "found", rename_all = "snake_case", deny_unknown_fields)]
pub enum Finding {
    /// `exact`: whether the value is an exact match of its gold.
    Exact {
        /// The value.
        value: Excerpt,
        /// Whether it matched.
        matched: bool,
    },
    /// `min_anls`: the value's ANLS against its gold, and the bound.
    Anls {
        /// The ANLS.
        anls: f64,
        /// The least it must be.
        min: f64,
    },
    /// `equals`.
    Equals {
        /// The value.
        value: Excerpt,
        /// What it must equal.
        expected: String,
        /// Whether it does.
        held: bool,
    },
    /// `one_of`.
    OneOf {
        /// The value.
        value: Excerpt,
        /// The options.
        options: Vec<String>,
        /// Whether it is one of them.
        held: bool,
    },
    /// `contains`: every needle when it held, the missing ones when it failed.
    Contains {
        /// The value.
        value: Excerpt,
        /// The needles (all, or those missing).
        needles: Vec<String>,
        /// Whether it held.
        held: bool,
    },
    /// `not_contains`: every needle when it held, the ones found when it failed.
    NotContains {
        /// The value.
        value: Excerpt,
        /// The needles (all, or those found).
        needles: Vec<String>,
        /// Whether it held.
        held: bool,
    },
    /// `matches`.
    Matches {
        /// The value.
        value: Excerpt,
        /// The pattern.
        pattern: String,
        /// Whether it matched.
        held: bool,
    },
    /// `present`: the value, `null` when absent, null or empty.
    Present {
        /// The value there is.
        value: Option<Excerpt>,
    },
    /// `number`: the value read as a number against the one written.
    Number {
        /// The value.
        value: Excerpt,
        /// The value read as a number.
        read: String,
        /// The number written in the rubric.
        expected: String,
        /// The tolerance.
        tolerance: f64,
        /// Whether they are equal within it.
        held: bool,
    },
    /// `date`: the value read as a date against the one written.
    Date {
        /// The value.
        value: Excerpt,
        /// The value read as a date.
        read: String,
        /// The date written in the rubric.
        expected: String,
        /// Whether they are the same day.
        held: bool,
    },
    /// `min_confidence`.
    Confidence {
        /// The prediction's confidence.
        confidence: f64,
        /// The least it must be.
        min: f64,
    },
    /// `count`: the list's length and the bounds.
    Count {
        /// The items the list has.
        count: usize,
        /// The fewest allowed.
        min: usize,
        /// The most allowed, `null` for no bound.
        max: Option<usize>,
    },
    /// `judge`: the recorded verdict of the suite's judge.
    Judge {
        /// What the judge said.
        held: bool,
        /// Its explanation.
        explanation: Excerpt,
        /// How its answers split, when it was asked more than once.
        votes: Option<Votes>,
    },
    /// `sum_of`: the value against the sum of other fields.
    SumOf {
        /// The value.
        value: Excerpt,
        /// The value read as a number, written in full (`1234.5`).
        total: String,
        /// The sum, computed exactly and written in full.
        sum: String,
        /// Its terms.
        parts: Vec<SumPart>,
        /// The tolerance.
        tolerance: f64,
        /// Whether they are equal within it.
        held: bool,
    },
    /// `all`: how many checks there are and those that failed.
    All {
        /// The nested checks.
        checks: usize,
        /// The findings of those that failed.
        failed: Vec<Finding>,
    },
    /// `any`: the check that held, or the findings of all that failed.
    Any {
        /// The first check that held.
        held: Option<Box<Finding>>,
        /// The findings of those that failed, when none held.
        failed: Vec<Finding>,
    },
    /// `not`: the nested check's finding, turned over.
    Not {
        /// The nested finding.
        finding: Box<Finding>,
    },
    /// A check at every element a `[*]` reached.
    Elements {
        /// The elements reached.
        total: usize,
        /// The finding at the last element that held.
        last_held: Option<Box<Finding>>,
        /// The findings at the elements that failed.
        failed: Vec<Finding>,
    },
    /// A finding at a place, with why the path reached nothing there in the prediction.
    At {
        /// Where, when the finding names it (a nested check on its parent's place does not).
        place: Option<Place>,
        /// Why the path reached nothing in the prediction, when it did not.
        missing: Option<Missing>,
        /// What was found there.
        finding: Box<Finding>,
    },
    /// Several checks that could not be made.
    Unchecked {
        /// Their findings.
        findings: Vec<Finding>,
    },
    /// A root field in neither gold nor the prediction, one edit from one that is.
    Misspelt {
        /// The field asked for.
        field: String,
        /// The known one it is one edit from.
        closest: String,
    },
    /// A path below a gold field that reaches nothing in its gold: there is nothing to check
    /// against, whatever the prediction has.
    NotInGold {
        /// Why.
        missing: Missing,
    },
    /// A path below a field without gold that the prediction does not have, one edit from a key
    /// it has: a typo.
    Misnamed {
        /// Why.
        missing: Missing,
    },
    /// A `[*]` that reached no element.
    NoElement {
        /// The path.
        path: String,
    },
    /// `exact` or `min_anls` where gold has no value.
    NoGold,
    /// The value is not a number.
    NotANumber {
        /// The value.
        value: Excerpt,
    },
    /// The value is not a date.
    NotADate {
        /// The value.
        value: Excerpt,
    },
    /// The value is not a list.
    NotAList {
        /// The value.
        value: Excerpt,
    },
    /// `min_confidence` where the prediction gives none.
    NoConfidence,
    /// A `sum_of` term that could not be summed.
    CannotSum {
        /// Why.
        because: Box<Finding>,
    },
    /// A `sum_of` term that reached no element.
    SumReachedNothing {
        /// The term's path.
        path: String,
    },
    /// A `sum_of` term that is not a number.
    SumUnreadable {
        /// The term's path.
        at: String,
        /// Its value.
        value: Excerpt,
    },
    /// A `judge` check in a suite that declares no judge.
    NoJudge,
    /// A `judge` check whose judge could not be asked, or answered out of form.
    JudgeFailed {
        /// What went wrong, as the run found it.
        error: String,
    },
    /// A `judge` check whose verdict has not been recorded.
    NoVerdict {
        /// The command that records it.
        record_command: String,
    },
}

impl Finding {
    /// The findings nested in this one.
    fn nested(&self) -> Vec<&Finding> {
        match self {
            Finding::All { failed, .. } => failed.iter().collect(),
            Finding::Any { held, failed } => held.as_deref().into_iter().chain(failed).collect(),
            Finding::Elements {
                last_held, failed, ..
            } => last_held.as_deref().into_iter().chain(failed).collect(),
            Finding::Unchecked { findings } => findings.iter().collect(),
            Finding::Not { finding } | Finding::At { finding, .. } => vec![finding],
            Finding::CannotSum { because } => vec![because],
            _ => Vec::new(),
        }
    }

    /// Whether a judge's verdict that was never recorded is why (some of) this could not be
    /// checked.
    pub fn waits_for_a_verdict(&self) -> bool {
        matches!(self, Finding::NoVerdict { .. })
            || self.nested().into_iter().any(Finding::waits_for_a_verdict)
    }
}

/// A place in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Spot {
    /// The file.
    pub file: String,
    /// Its line, from 1.
    pub line: u64,
    /// Its column, from 1.
    pub column: u64,
}

/// What fails a case besides its checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "problem", rename_all = "snake_case", deny_unknown_fields)]
pub enum Problem {
    /// Scoring a field (its rubrics, when `field` is `null`) needed more steps than one case may
    /// spend; nothing was measured.
    OverBudget {
        /// The case file.
        file: String,
        /// The line of the field's gold.
        line: u64,
        /// The field.
        field: Option<String>,
        /// The steps one case may spend.
        steps: u64,
    },
    /// The case's schema cannot be scored by its profile (`docubench`): nothing was measured.
    Unscorable {
        /// The case file.
        file: String,
        /// Why, in the profile's words.
        why: String,
    },
    /// The prediction's model has no price in a suite that prices models: its cost would be
    /// silently left out of every mean.
    Unpriced {
        /// The model.
        model: String,
        /// The closest priced one.
        closest: String,
        /// Where the suite's `pricing` is written.
        pricing: Option<Spot>,
    },
    /// A predicted box of a grounded field lies beyond the page its case's units allow (pixels
    /// in a suite of fractions of the page): its IoU would mean nothing.
    OffThePage {
        /// Where the box is written.
        at: Spot,
        /// Its path there (`fields.total.bbox`).
        path: String,
        /// What is wrong.
        message: String,
        /// The fix.
        hint: String,
    },
    /// A predicted confidence outside [0, 1]: the field's value is scored, its confidence left
    /// out of calibration and acceptance; the other fields count as they are.
    ConfidenceOutOfRange {
        /// Where the confidence is written.
        at: Spot,
        /// Its path there (`predicted_field_conf_scores.total_amount`).
        path: String,
        /// What is wrong.
        message: String,
        /// The fix.
        hint: String,
    },
}

/// What `lint` finds in a case and its prediction before any score.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeScoring {
    /// A rubric reads a field one edit from a known one.
    Misspelt {
        /// Where the rubric is written.
        at: Spot,
        /// `must_right` or `easy_wrong`.
        kind: &'static str,
        /// Its label.
        label: String,
        /// The typo.
        typo: Finding,
    },
    /// The prediction's model has no price in the suite's `pricing`.
    Unpriced {
        /// The case file.
        case: String,
        /// The model.
        model: String,
        /// The closest priced one.
        closest: String,
        /// Where the suite's `pricing` is written.
        pricing: Option<Spot>,
    },
    /// A predicted box of a grounded field beyond the page (a [`Problem::OffThePage`]).
    OffThePage(Problem),
    /// A predicted confidence outside [0, 1] (a [`Problem::ConfidenceOutOfRange`]).
    ConfidenceOutOfRange(Problem),
}

/// Why a metric a threshold bounds could not be measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "absent", rename_all = "snake_case", deny_unknown_fields)]
pub enum Absent {
    /// The case has no gold fields to compare.
    NoGoldFields,
    /// The case has no critical field.
    NoCriticalField,
    /// No gold field of the prediction carries a confidence.
    NoConfidence,
    /// The prediction reports no latency and goldgate did not run it.
    NoLatency,
    /// The prediction reports no token usage.
    NoUsage,
    /// The prediction names no model to price.
    NoModel,
    /// The suite's `pricing` has no price for the model.
    NoPrice {
        /// The model.
        model: String,
    },
    /// The metric belongs to a suite's aggregate.
    OfAnAggregate,
    /// The case has no gold fields, or its prediction is text, so fields cannot be counted.
    NoFieldsCounted,
    /// No gold field gives a `page` or a `bbox`, so none is grounded.
    NoGoldPlace,
    /// No gold field gives a `bbox`, so no IoU is measured.
    NoGoldBox,
    /// No gold field gives a `page`, so no page is matched.
    NoGoldPage,
    /// The prediction places no value (no value object gives a `page` or a `bbox`).
    NoPredictedPlace,
    /// No case of the suite has rubrics, so it has no gate to measure.
    NoGate {
        /// The threshold's key, which the fix names.
        threshold: String,
    },
    /// No case of the suite measures the metric.
    NotMeasured {
        /// The metric's name.
        metric: String,
    },
}

/// How a comparison read two values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// As text.
    Text,
    /// As numbers.
    Number,
    /// As dates.
    Date,
    /// As identifiers.
    Identifier,
}

impl From<crate::model::case::Comparison> for Reading {
    fn from(c: crate::model::case::Comparison) -> Reading {
        use crate::model::case::Comparison;
        match c {
            Comparison::Text => Reading::Text,
            Comparison::Number { .. } => Reading::Number,
            Comparison::Date { .. } => Reading::Date,
            Comparison::Identifier => Reading::Identifier,
        }
    }
}

/// How a field's score was reached, when its rule compared it other than as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "note", rename_all = "snake_case", deny_unknown_fields)]
pub enum Note {
    /// The forms compared, as the rule read them.
    Compared {
        /// How they were read.
        reading: Reading,
        /// The gold's form.
        gold: String,
        /// The prediction's form.
        prediction: String,
    },
    /// The prediction could not be read as the rule reads values.
    Unreadable {
        /// How it should have been read.
        reading: Reading,
        /// The prediction.
        value: String,
    },
    /// The prediction is a list or a mapping where the rule reads a scalar.
    Nested {
        /// How it should have been read.
        reading: Reading,
        /// What it is.
        shape: Shape,
    },
    /// Rules on paths inside the value.
    Inside {
        /// Each path and how it is read.
        rules: Vec<PathRule>,
    },
}

/// A rule on a path inside a field's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathRule {
    /// The path.
    pub path: String,
    /// How its leaves are read.
    pub reading: Reading,
}

#[cfg(test)]
mod examples {
    use super::*;

    #[test]
    fn an_excerpt_keeps_eighty_characters_and_says_when_it_cut() {
        let short = Excerpt::of("0173");
        assert_eq!((short.text.as_str(), short.cut), ("0173", false));
        let exact = "é".repeat(EXCERPT_CHARS);
        assert!(!Excerpt::of(&exact).cut);
        let long = Excerpt::of(&format!("{exact}x"));
        assert_eq!((long.text, long.cut), (exact, true));
    }
}
