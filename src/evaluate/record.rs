//! The records of a run's tests: what reports, tables and baselines are made from.

use super::baseline::Change;
use super::outcome::{Metrics, Outcome};
use crate::base::name::Name;
use crate::model::prediction::Usage;
use crate::model::rubric::RubricKind;

/// How a case's test ended.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Gate open, every threshold held, no regression.
    Passed,
    /// Gate closed, a threshold failed, a regression, or the case could not be loaded.
    Failed,
    /// Skipped (`skip:`), not run.
    Ignored,
    /// Failed as its baseline entry says, no worse, under `fail_on: regressions`: neither
    /// passed nor failing the run.
    KnownFailure,
}

/// The kinds of error that keep a case from being scored.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A case, suite or rubric file with mistakes.
    Load,
    /// A file or folder that could not be read at all.
    Unreadable,
    /// The prediction could not be read or produced (a command failed).
    Prediction,
    /// The baseline could not be read, or does not exist.
    Baseline,
    /// A suite's `run:` call failed after its retries (a non-zero exit, a timeout, output that
    /// is not JSON, or the pipeline saying so): an error of the call, not a wrong answer.
    Call,
}

impl ErrorKind {
    /// Its name, as the report writes it.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Load => "load",
            ErrorKind::Unreadable => "unreadable",
            ErrorKind::Prediction => "prediction",
            ErrorKind::Baseline => "baseline",
            ErrorKind::Call => "call",
        }
    }
}

/// Why a case could not be scored: its kind, and what went wrong with its fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong.
    pub message: String,
}

impl Cause {
    /// A cause of this kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Cause {
        Cause {
            kind,
            message: message.into(),
        }
    }
}

/// What a run keeps of one case's test.
#[derive(Debug, Clone)]
pub struct Record {
    /// The test name.
    pub id: String,
    /// The pipeline, when the suite declares pipelines.
    pub pipeline: Option<String>,
    /// The pipeline this one is compared with, under pipelines.
    pub reference: Option<String>,
    /// The case file.
    pub file: String,
    /// The case's source document, when it names one.
    pub document: Option<String>,
    /// The folder of its suite (JUnit's class name).
    pub suite: String,
    /// The case's description and tags, when it loaded.
    pub about: Option<(Option<String>, Vec<String>)>,
    /// The case's tags written as a mapping and its metadata columns: (name, value).
    pub attributes: Vec<(String, String)>,
    /// How it ended.
    pub status: Status,
    /// The load, prediction or baseline error, when there was one.
    pub error: Option<Cause>,
    /// The skip reason.
    pub skip: Option<String>,
    /// The evaluation, when the case ran.
    pub outcome: Option<Outcome>,
    /// The prediction's model, when it names one.
    pub model: Option<String>,
    /// The prediction's token usage, when it reports it.
    pub usage: Option<Usage>,
    /// A usage whose parts do not add up to its own total (priced from input + output).
    pub usage_mismatch: Option<crate::model::prediction::UsageMismatch>,
    /// How the test compares with its baseline entry.
    pub baseline: Compared,
    /// The failure message, plain (no colour), when the test failed.
    pub message: Option<String>,
    /// Where the case could not be loaded: every mistake, located.
    pub problems: Vec<Located>,
    /// Every attempt of a case its suite runs `repeat` times (more than once).
    pub repeated: Option<crate::evaluate::repeat::Repeated>,
    /// The calls of its `run:` command (every attempt), when a command made its prediction.
    pub calls: Option<crate::model::prediction::CallTally>,
    /// The digest of its gold and rules, when the case loaded.
    pub gold_digest: Option<String>,
    /// The run history its suite appends to (`history:`, absolute), when the case loaded.
    pub history: Option<String>,
}

/// A mistake in a file, where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// The file.
    pub file: String,
    /// 1-based line, 0 for the whole file.
    pub line: u64,
    /// 1-based column, 0 when unknown.
    pub column: u64,
    /// What is wrong, with its fix.
    pub message: String,
}

/// How a test compares with its baseline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Compared {
    /// The baseline file its suite declares, when it declares one: a test compared with it,
    /// whatever the comparison found, has an entry to bless.
    pub file: Option<std::path::PathBuf>,
    /// The baseline has no entry for it yet.
    pub new: bool,
    /// Metrics that dropped beyond the tolerance.
    pub regressions: Vec<Change>,
    /// Metrics that rose beyond the tolerance.
    pub improvements: Vec<Change>,
    /// How it stands against its entry under `fail_on: regressions`: a known failure, fixed,
    /// or regressed (and how).
    pub standing: Option<super::baseline::Standing>,
    /// Whether it was held to its entry (`fail_on: regressions`): counted in the gate's account.
    pub relative: bool,
    /// What moved against its entry however little: the metric it is held to, then its fields'
    /// EM and ANLS.
    pub moved: Vec<Change>,
}

impl Compared {
    /// What a run keeps to its end of how a test compares with its baseline (`error`: its
    /// error, when the baseline could not be compared with); `None` when there is nothing to
    /// say, its suite declaring none.
    pub fn note(&self, error: Option<&Cause>) -> Option<Box<BaselineNote>> {
        let error = error
            .filter(|e| e.kind == ErrorKind::Baseline)
            .map(|e| e.message.clone());
        let said = self.file.is_some()
            || !self.moved.is_empty()
            || self.new
            || !self.regressions.is_empty()
            || !self.improvements.is_empty()
            || error.is_some();
        said.then(|| {
            let file = self.file.as_ref().map(|f| f.display().to_string());
            Box::new(BaselineNote {
                file: file.as_deref().map(Name::of),
                new: self.new,
                regressions: self.regressions.clone(),
                improvements: self.improvements.clone(),
                error,
                held_to: self.relative,
                standing: self.standing.clone(),
                moved: self.moved.clone(),
            })
        })
    }
}

/// How a test compares with its baseline, as a run keeps it to its end: what the end of the
/// run, its pages and the gate's account are made of.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineNote {
    /// The baseline file its suite declares, as the run names it.
    pub file: Option<Name>,
    /// Whether the baseline has no entry for it yet.
    pub new: bool,
    /// Metrics that dropped beyond the tolerance.
    pub regressions: Vec<Change>,
    /// Metrics that rose beyond the tolerance.
    pub improvements: Vec<Change>,
    /// Why the baseline could not be compared with (it does not exist, or does not read).
    pub error: Option<String>,
    /// Whether it was held to its entry (`fail_on: regressions`).
    pub held_to: bool,
    /// How it stands against its entry then, when it is not as it was.
    pub standing: Option<super::baseline::Standing>,
    /// What moved against its entry however little: the metric it is held to, then its fields'
    /// EM and ANLS.
    pub moved: Vec<Change>,
}

/// The numbers of one case test that summaries and aggregates need: nothing proportional to
/// the prediction, so that a run can hold one per test whatever the gold set's size. A run
/// keeps one per test to its end, so what few cases have is boxed and repeated names are
/// interned ([`Name`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CaseNumbers {
    /// The test name.
    pub id: String,
    /// The pipeline.
    pub pipeline: Option<String>,
    /// How it ended.
    pub status: Status,
    /// The case metrics, when it was scored.
    pub metrics: Option<KeptMetrics>,
    /// (confidence, correct) of every field with a confidence, for pooled calibration.
    pub confidences: Confidences,
    /// Every gold field's numbers, for the field × pipeline table, the misses per field and
    /// the acceptance of confidences.
    pub fields: Box<[FieldNumbers]>,
    /// Each field that is not exact with its kind of miss, the predicted fields gold does not
    /// list among them (invented): kept whatever the run writes, as few as the misses.
    pub missed: Box<[(Name, crate::evaluate::miss::Miss)]>,
    /// The case's misses by kind.
    pub misses: crate::evaluate::miss::MissCounts,
    /// The error rate automatic acceptance of its values may not exceed (its suite's
    /// `target_error`).
    pub target_error: f64,
    /// The thresholds at which every field's values are pooled (its suite's `acceptance`).
    pub acceptance: Option<Box<crate::metrics::acceptance::Pooling>>,
    /// The gate, the score and the rubric items that held, when it was scored.
    pub rubrics: Option<RubricTally>,
    /// The pipeline this one is compared with, under pipelines.
    pub reference: Option<String>,
    /// The folder of its suite: the row of the comparison of pipelines a test without a
    /// pipeline is counted in.
    pub suite: Name,
    /// The slices the case is in, as (tag, value): each tag of a list as (`tag`, the tag),
    /// each tag of a mapping and metadata column as (its name, its value).
    pub slices: Vec<(String, String)>,
    /// What each attempt gave, when its suite runs it `repeat` times (more than once).
    pub attempts: Option<Box<crate::evaluate::repeat::Attempts>>,
    /// The calls of its `run:` command (every attempt), when a command made its prediction.
    pub calls: Option<Box<crate::model::prediction::CallTally>>,
    /// The digest of its gold and rules ([`crate::evaluate::digest`]), when the case loaded.
    pub gold_digest: Option<crate::evaluate::digest::KeptDigest>,
    /// The run history its suite appends to (`history:`), when the case loaded.
    pub history: Option<Name>,
    /// How it compares with its baseline, when its suite declares one.
    pub baseline: Option<Box<BaselineNote>>,
    /// A usage whose parts do not add up to its own total, said once at the end of the run.
    pub usage_mismatch: Option<Box<crate::model::prediction::UsageMismatch>>,
    /// Whether it is a failed call scored all the same (`profile: docubench`), counted in its
    /// pipeline's mean and said at the end of the run.
    pub failed_call_scored: bool,
}

/// A case's [`Metrics`] as a run keeps them to its end: the values it has, in order, with a
/// bit each, in about 90 bytes instead of 264 (a case has some eight of the sixteen).
#[derive(Clone, PartialEq, Default)]
pub struct KeptMetrics {
    /// Bit `i` set when slot `i` of [`slots`] has a value.
    present: u16,
    /// The values present, in slot order.
    values: Box<[f64]>,
    kieval: Option<Box<crate::metrics::kieval::Counts>>,
}

/// Every optional number of [`Metrics`], in a fixed order. Written as a destructuring without
/// `..`, so that a metric added to [`Metrics`] does not compile until it has its slot here.
fn slots(m: &mut Metrics) -> [&mut Option<f64>; 16] {
    let Metrics {
        exact_match,
        anls,
        exact_critical,
        anls_critical,
        brier,
        ece,
        latency_ms,
        cost_usd,
        extra_fields,
        precision,
        recall,
        f1,
        aligned,
        kieval: _,
        grounded,
        iou,
        page_match,
    } = m;
    [
        exact_match,
        anls,
        exact_critical,
        anls_critical,
        brier,
        ece,
        latency_ms,
        cost_usd,
        extra_fields,
        precision,
        recall,
        f1,
        aligned,
        grounded,
        iou,
        page_match,
    ]
}

impl From<&Metrics> for KeptMetrics {
    fn from(metrics: &Metrics) -> KeptMetrics {
        let mut m = metrics.clone();
        let kieval = m.kieval.take();
        let (mut present, mut values) = (0u16, Vec::new());
        for (i, slot) in slots(&mut m).into_iter().enumerate() {
            if let Some(v) = *slot {
                present |= 1 << i;
                values.push(v);
            }
        }
        KeptMetrics {
            present,
            values: values.into_boxed_slice(),
            kieval,
        }
    }
}

impl KeptMetrics {
    /// The metrics as they were.
    pub fn metrics(&self) -> Metrics {
        let mut m = Metrics {
            kieval: self.kieval.clone(),
            ..Metrics::default()
        };
        let mut values = self.values.iter();
        for (i, slot) in slots(&mut m).into_iter().enumerate() {
            if self.present & (1 << i) != 0 {
                *slot = values.next().copied();
            }
        }
        m
    }
}

impl std::fmt::Debug for KeptMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.metrics().fmt(f)
    }
}

/// What the run's tables need of one gold field of a case test, in 24 bytes: a run keeps one
/// per gold field of every case when it writes a report or has aggregates.
#[derive(Clone, Copy, PartialEq)]
pub struct FieldNumbers {
    /// The field.
    pub name: Name,
    /// The kind of miss, when it is not exact.
    pub miss: Option<crate::evaluate::miss::Miss>,
    /// EM_i, which is 0 or 1.
    exact: bool,
    /// ANLS_i.
    pub anls: f64,
    /// The prediction's confidence, NaN when it gives none (a confidence is a number of JSON
    /// or YAML in [0, 1], never NaN).
    confidence: f64,
}

impl FieldNumbers {
    /// A field's numbers: its EM_i (0 or 1), ANLS_i, confidence and kind of miss.
    pub fn new(
        name: Name,
        em: f64,
        anls: f64,
        confidence: Option<f64>,
        miss: Option<crate::evaluate::miss::Miss>,
    ) -> FieldNumbers {
        FieldNumbers {
            name,
            miss,
            exact: em == 1.0,
            anls,
            confidence: confidence.unwrap_or(f64::NAN),
        }
    }

    /// EM_i.
    pub fn em(&self) -> f64 {
        if self.exact { 1.0 } else { 0.0 }
    }

    /// The prediction's confidence, when it gives one.
    pub fn confidence(&self) -> Option<f64> {
        (!self.confidence.is_nan()).then_some(self.confidence)
    }
}

impl std::fmt::Debug for FieldNumbers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FieldNumbers")
            .field("name", &self.name)
            .field("em", &self.em())
            .field("anls", &self.anls)
            .field("confidence", &self.confidence())
            .field("miss", &self.miss)
            .finish()
    }
}

impl CaseNumbers {
    /// The fields that missed, and the extra fields (invented), with the case's counts.
    pub(crate) fn with_misses<'a>(mut self, extra: impl Iterator<Item = &'a str>) -> Self {
        use crate::evaluate::miss::Miss;
        self.missed = self
            .fields
            .iter()
            .filter_map(|f| f.miss.map(|m| (f.name, m)))
            .chain(extra.map(|name| (Name::of(name), Miss::Invented)))
            .collect();
        self.misses = Default::default();
        for (_, miss) in &self.missed {
            self.misses.add(*miss);
        }
        self
    }
}

/// The tag name of a tag written in a list: `tags: [fr]` puts the case in the slice `tag=fr`.
pub const LIST_TAG: &str = "tag";

/// The slices of a case: its listed tags as (`tag`, label), then its named ones as they are.
pub fn slices_of(tags: &[String], attributes: &[(String, String)]) -> Vec<(String, String)> {
    tags.iter()
        .map(|t| (LIST_TAG.to_owned(), t.clone()))
        .chain(attributes.iter().cloned())
        .collect()
}

/// (confidence, correct) pairs in eight bytes each, as a run keeps one list per case test: a
/// confidence is never negative, so its sign says whether the field was right (`-0.0` a wrong
/// field at confidence 0).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Confidences(Box<[f64]>);

impl Confidences {
    /// Each (confidence, correct), in order.
    pub fn iter(&self) -> impl Iterator<Item = (f64, bool)> + '_ {
        self.0.iter().map(|&x| (x.abs(), x.is_sign_positive()))
    }
}

impl FromIterator<(f64, bool)> for Confidences {
    fn from_iter<I: IntoIterator<Item = (f64, bool)>>(pairs: I) -> Self {
        // `abs` first: a confidence written `-0` is 0.
        Confidences(
            pairs
                .into_iter()
                .map(|(p, right)| if right { p.abs() } else { -p.abs() })
                .collect(),
        )
    }
}

impl serde::Serialize for Confidences {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Confidences {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<(f64, bool)>::deserialize(d).map(|pairs| pairs.into_iter().collect())
    }
}

/// What a case's rubrics came to: what the aggregates of the gate count.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct RubricTally {
    /// Whether every Must-Right rubric held.
    pub gate_open: bool,
    /// The gated score.
    pub score: f64,
    /// Must-Right rubrics that held, of `must_right`.
    pub must_right_held: usize,
    /// Must-Right rubrics.
    pub must_right: usize,
    /// Easy-Wrong rubrics that held, of `easy_wrong`.
    pub easy_wrong_held: usize,
    /// Easy-Wrong rubrics.
    pub easy_wrong: usize,
}

impl RubricTally {
    /// The tally of held verdicts by kind: (kind, held) per rubric.
    pub fn of(
        gate_open: bool,
        score: f64,
        verdicts: impl IntoIterator<Item = (RubricKind, bool)>,
    ) -> Self {
        let mut t = RubricTally {
            gate_open,
            score,
            ..RubricTally::default()
        };
        for (kind, held) in verdicts {
            let (count, held_count) = match kind {
                RubricKind::MustRight => (&mut t.must_right, &mut t.must_right_held),
                RubricKind::EasyWrong => (&mut t.easy_wrong, &mut t.easy_wrong_held),
            };
            *count += 1;
            *held_count += usize::from(held);
        }
        t
    }
}

impl CaseNumbers {
    /// The numbers of a scored (or unscorable) case test.
    pub fn of(id: &str, pipeline: Option<&str>, status: Status, outcome: Option<&Outcome>) -> Self {
        CaseNumbers {
            id: id.to_owned(),
            pipeline: pipeline.map(str::to_owned),
            status,
            metrics: outcome.map(|o| KeptMetrics::from(&o.metrics)),
            confidences: outcome.map_or_else(Confidences::default, |o| {
                o.fields
                    .iter()
                    .filter_map(|f| f.confidence.map(|c| (c, f.em == 1.0)))
                    .collect()
            }),
            reference: None,
            suite: Name::of(""),
            slices: Vec::new(),
            attempts: None,
            calls: None,
            gold_digest: None,
            history: None,
            baseline: None,
            usage_mismatch: None,
            failed_call_scored: false,
            rubrics: outcome.map(|o| {
                RubricTally::of(
                    o.gate_open,
                    o.score,
                    o.rubrics.iter().map(|r| (r.rubric.kind, r.verdict.held)),
                )
            }),
            fields: outcome.map_or_else(Box::default, |o| {
                o.fields
                    .iter()
                    .map(|f| {
                        FieldNumbers::new(Name::of(&f.name), f.em, f.anls, f.confidence, f.miss)
                    })
                    .collect()
            }),
            missed: Box::default(),
            misses: Default::default(),
            target_error: outcome.map_or(crate::metrics::acceptance::DEFAULT_TARGET_ERROR, |o| {
                o.target_error
            }),
            acceptance: outcome.and_then(|o| o.acceptance.clone().map(Box::new)),
        }
        .with_misses(
            outcome
                .into_iter()
                .flat_map(|o| o.extra_fields.iter().map(|(n, _)| n.as_str())),
        )
    }
}

impl Record {
    /// What summaries and aggregates need of this record.
    pub fn numbers(&self) -> CaseNumbers {
        let tags = self.about.as_ref().map_or(&[][..], |(_, t)| t);
        CaseNumbers {
            reference: self.reference.clone(),
            suite: Name::of(&self.suite),
            slices: slices_of(tags, &self.attributes),
            attempts: self.repeated.as_ref().map(|r| Box::new(r.numbers())),
            calls: self.calls.map(Box::new),
            gold_digest: self
                .gold_digest
                .as_deref()
                .map(crate::evaluate::digest::KeptDigest::of),
            history: self.history.as_deref().map(Name::of),
            ..CaseNumbers::of(
                &self.id,
                self.pipeline.as_deref(),
                self.status,
                self.outcome.as_ref(),
            )
        }
        .noting(self)
    }

    /// Whether it is a failed call scored all the same (`profile: docubench`): a prediction
    /// error, and metrics.
    pub fn is_a_scored_failed_call(&self) -> bool {
        self.error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::Prediction)
            && self
                .outcome
                .as_ref()
                .is_some_and(|o| o.metrics.anls.is_some())
    }
}

impl CaseNumbers {
    /// With what the end of the run says of the test of `record`: its baseline, a usage that
    /// does not add up, a failed call scored.
    pub fn noting(self, record: &Record) -> CaseNumbers {
        CaseNumbers {
            baseline: record.baseline.note(record.error.as_ref()),
            usage_mismatch: record.usage_mismatch.clone().map(Box::new),
            failed_call_scored: record.is_a_scored_failed_call(),
            ..self
        }
    }
}

#[cfg(test)]
mod kept_metrics {
    use super::*;

    #[test]
    fn kept_metrics_read_back_as_they_were() {
        let some = Metrics {
            anls: Some(0.25),
            ece: Some(0.0),
            page_match: Some(1.0),
            kieval: Some(Box::default()),
            ..Metrics::default()
        };
        let mut all = Metrics::default();
        for (i, slot) in slots(&mut all).into_iter().enumerate() {
            *slot = Some(i as f64 + 0.5);
        }
        for m in [Metrics::default(), some, all] {
            let kept = KeptMetrics::from(&m);
            assert_eq!(kept.metrics(), m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidences_keep_each_pair_in_eight_bytes() {
        let pairs = [
            (0.9, true),
            (0.0, false),
            (0.0, true),
            (1.0, false),
            (-0.0, true),
            (0.25, false),
        ];
        let kept: Confidences = pairs.into_iter().collect();
        let back: Vec<(f64, bool)> = kept.iter().collect();
        // `-0` reads as 0, right or wrong as it was.
        assert_eq!(
            back,
            [
                (0.9, true),
                (0.0, false),
                (0.0, true),
                (1.0, false),
                (0.0, true),
                (0.25, false)
            ]
        );
        assert!(back.iter().all(|(p, _)| p.is_sign_positive()));
        let json = serde_json::to_string(&kept).unwrap();
        assert_eq!(
            json,
            "[[0.9,true],[0.0,false],[0.0,true],[1.0,false],[0.0,true],[0.25,false]]"
        );
        assert_eq!(serde_json::from_str::<Confidences>(&json).unwrap(), kept);
    }
}
