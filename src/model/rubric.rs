//! Rubrics: a label, a kind (Must-Right or Easy-Wrong) and one check.

use std::path::PathBuf;

use regex::Regex;

use crate::base::field_path::FieldPath;
use crate::base::normalize::Normalize;
use crate::base::typed::Date;

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

/// What a check looks at and what it asks of it.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The field path; `None` inherits the enclosing one (the whole prediction at the top).
    pub field: Option<FieldPath>,
    /// A normalization override.
    pub normalize: Option<Normalize>,
    /// The check.
    pub check: Check,
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
    Matches(std::sync::Arc<Regex>),
    /// The field has a non-empty value (`true`) or none (`false`).
    Present(bool),
    /// The value read as a number equals this, within the tolerance.
    Number {
        /// The expected number, as written (compared exactly, digit for digit, where it can be).
        written: String,
        /// Largest difference still equal.
        tolerance: f64,
    },
    /// The value read as a date equals this.
    Date {
        /// The expected date.
        value: Date,
        /// How numeric dates are read.
        day_first: bool,
    },
    /// The field's confidence is at least this.
    MinConfidence(f64),
    /// The list has between `min` and `max` items.
    Count {
        /// At least this many.
        min: usize,
        /// At most this many.
        max: usize,
    },
    /// Every nested check holds.
    All(Vec<Probe>),
    /// At least one nested check holds.
    Any(Vec<Probe>),
    /// The nested check does not hold.
    Not(Box<Probe>),
    /// The suite's judge answers yes to this question (a recorded verdict).
    Judge(String),
    /// The value read as a number equals the sum of these fields' numbers.
    SumOf {
        /// The fields summed (`[*]` sums every element).
        fields: Vec<FieldPath>,
        /// Largest difference still equal.
        tolerance: f64,
    },
}

impl Check {
    /// The table of check keys: every key a rubric may give its check with, in the order the
    /// guide lists them.
    pub const KEYS: [&'static str; 17] = [
        "exact",
        "min_anls",
        "equals",
        "one_of",
        "contains",
        "not_contains",
        "matches",
        "present",
        "number",
        "date",
        "min_confidence",
        "count",
        "all",
        "any",
        "not",
        "sum_of",
        "judge",
    ];

    /// The key this check is written with.
    pub fn key(&self) -> &'static str {
        let i = match self {
            Check::Exact => 0,
            Check::MinAnls(_) => 1,
            Check::Equals(_) => 2,
            Check::OneOf(_) => 3,
            Check::Contains(_) => 4,
            Check::NotContains(_) => 5,
            Check::Matches(_) => 6,
            Check::Present(_) => 7,
            Check::Number { .. } => 8,
            Check::Date { .. } => 9,
            Check::MinConfidence(_) => 10,
            Check::Count { .. } => 11,
            Check::All(_) => 12,
            Check::Any(_) => 13,
            Check::Not(_) => 14,
            Check::SumOf { .. } => 15,
            Check::Judge(_) => 16,
        };
        Check::KEYS[i]
    }

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
    /// What is checked, and how.
    pub probe: Probe,
    /// Penalty when an Easy-Wrong rubric fails (0 for Must-Right).
    pub penalty: f64,
    /// The file the rubric is written in (the case, or a rubric set).
    pub file: PathBuf,
    /// Its line there.
    pub line: u64,
    /// Its column there.
    pub column: u64,
    /// Where the case includes it, when it comes from a rubric set: (case file, line of `include:`).
    pub included_at: Option<(PathBuf, u64)>,
}

impl Rubric {
    /// The top-level field the rubric reads, if any.
    pub fn field(&self) -> Option<&str> {
        self.probe.field.as_ref().map(FieldPath::root)
    }
}
