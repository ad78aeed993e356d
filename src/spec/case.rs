//! serde types of the files users write. They say what may be written; `load` checks the rest.

use std::collections::BTreeMap;

use crate::base::spanned::Spanned;
use schemars::JsonSchema;
use serde::Deserialize;

use super::Node;
use super::pipelines::PipelinesSpec;

/// A case file, as written.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// One line about the document.
    pub description: Option<String>,
    /// Labels, for filtering, reports and slices: a list, or a mapping of names to values.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::tags")]
    pub tags: Option<Node>,
    /// When set, the test is reported ignored with this reason.
    #[schemars(with = "Option<String>")]
    pub skip: Option<Spanned<String>>,
    /// A path (relative to the case file) or an inline mapping.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::prediction")]
    pub prediction: Option<Node>,
    /// A free-text prediction, for cases checked by rubrics alone.
    #[schemars(with = "Option<String>")]
    pub prediction_text: Option<Spanned<String>>,
    /// Gold value of every field.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::gold")]
    pub gold: Option<Node>,
    /// Fields that must be right.
    #[schemars(with = "Option<Vec<String>>")]
    pub critical: Option<Vec<Spanned<String>>>,
    /// `false`, `true`, or a mapping of normalization steps.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::normalize")]
    pub normalize: Option<Node>,
    /// Must-Right and Easy-Wrong rubrics, inline or included: a list, added after the rubrics of
    /// the suites' `defaults` (one with the label of a suite rubric takes its place), or
    /// `{ replace: [...] }`, instead of them.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::rubrics")]
    pub rubrics: Option<super::RubricsSpec>,
    /// Bounds on metrics and on the score, merged with the suites' bound by bound (`null`
    /// removes one).
    #[schemars(with = "Option<ThresholdsSpec>")]
    pub thresholds: Option<Spanned<ThresholdsSpec>>,
    /// Number of uniform bins of the expected calibration error (default 5).
    #[schemars(with = "Option<u32>")]
    pub ece_bins: Option<Spanned<u32>>,
    /// Per-field comparison rules (`compare: number`, `correct: anls`...).
    #[schemars(with = "Option<BTreeMap<String, FieldRuleSpec>>")]
    pub fields: Option<BTreeMap<String, Spanned<FieldRuleSpec>>>,
    /// The scoring profile: `dream` (default), `anls_star`, `docubench` or `kieval`.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::profile")]
    pub profile: Option<Spanned<String>>,
    /// How failed Easy-Wrong rubrics lower the score: `penalty` (each subtracts its penalty, the
    /// default) or `fraction` (the share of Easy-Wrong rubrics that hold, as PerceptionRubrics).
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::scoring")]
    pub scoring: Option<Spanned<String>>,
    /// The source document (path relative to this file), for `{document}` in a suite's `run`
    /// command and pipeline paths.
    #[schemars(with = "Option<String>")]
    pub document: Option<Spanned<String>>,
    /// Where the parts of the prediction are in its pipeline's own document (overrides the
    /// suite's and the pipeline's).
    pub prediction_format: Option<super::PredictionFormatSpec>,
    /// The page's size in pixels, for boxes a suite's `bbox_units: pixels` writes in pixels.
    #[schemars(with = "Option<PageSizeSpec>")]
    pub page_size: Option<Spanned<PageSizeSpec>>,
}

/// A page's width and height, in pixels.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageSizeSpec {
    /// Width in pixels.
    pub width: f64,
    /// Height in pixels.
    pub height: f64,
}

/// A `suite.yaml`: settings for its folder and every folder below it. A deeper suite
/// overrides key by key, and a case overrides its suite.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// Case keys given to every case below (a case's own key wins, whole; `thresholds` merge
    /// bound by bound, `rubrics` add to the suites' unless `replace`, `fields` rule by rule).
    pub defaults: Option<CaseFile>,
    /// Every gold file of a pattern is a case, with no YAML file per document.
    #[schemars(with = "Option<super::cases::CasesSpec>")]
    pub cases: Option<Spanned<super::cases::CasesSpec>>,
    /// Pipelines: one test per case and pipeline. A mapping of names to prediction paths
    /// (relative to this folder, with `{case}`, `{pipeline}`, `{document}`) or to a mapping of
    /// `prediction`, the pipeline's own `aggregate` bounds and `prediction_format`, or a list of
    /// names when `run` produces the predictions.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::pipelines")]
    pub pipelines: Option<Spanned<PipelinesSpec>>,
    /// Thresholds on the suite's aggregate metrics, one test per pipeline.
    #[schemars(with = "Option<AggregateSpec>")]
    pub aggregate: Option<Spanned<AggregateSpec>>,
    /// Prices per model, for `cost_usd`.
    #[schemars(with = "Option<BTreeMap<String, PriceSpec>>")]
    pub pricing: Option<BTreeMap<String, Spanned<PriceSpec>>>,
    /// The baseline file (relative to this folder) that no metric may drop below.
    #[schemars(with = "Option<String>")]
    pub baseline: Option<Spanned<String>>,
    /// How far below its baseline a metric may drop (default 0).
    #[schemars(with = "Option<f64>")]
    pub tolerance: Option<Spanned<f64>>,
    /// What fails the run: `failures` (every failing test, the default) or `regressions` (with
    /// a baseline: a test worse than its entry; one that fails as its entry says is a known
    /// failure). `goldgate test --fail-on` overrides it.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::fail_on")]
    pub fail_on: Option<Spanned<String>>,
    /// The run history (JSON Lines, relative to this folder): every run appends one record per
    /// pipeline of the suite's tests, for `goldgate history`.
    #[schemars(with = "Option<String>")]
    pub history: Option<Spanned<String>>,
    /// A command that produces each prediction instead of recorded files.
    #[schemars(with = "Option<RunSpec>")]
    pub run: Option<Spanned<RunSpec>>,
    /// How a case run `repeat` times passes: `all` (the default: every attempt passes),
    /// `majority` (more than half do) or `any` (one does).
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::pass")]
    pub pass: Option<Spanned<String>>,
    /// Gates each pipeline's aggregate test on a significant drop against the baseline over the
    /// paired cases: `{ metric: anls, min_effect: 0.02, confidence: 0.95 }`.
    #[schemars(with = "Option<RegressionGateSpec>")]
    pub regression_gate: Option<Spanned<RegressionGateSpec>>,
    /// The scoring profile of the suite's cases.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::profile")]
    pub profile: Option<Spanned<String>>,
    /// Default penalty of the suite's Easy-Wrong rubrics (0.1 otherwise).
    #[schemars(with = "Option<f64>")]
    pub easy_wrong_penalty: Option<Spanned<f64>>,
    /// How the suite's cases score failed Easy-Wrong rubrics: `penalty` or `fraction`.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::scoring")]
    pub scoring: Option<Spanned<String>>,
    /// The pipeline the others are compared with (the first declared, when not given);
    /// `neighbours`: each pipeline against the next in the ranking by the suite's gated metric
    /// (the first its `aggregate` bounds, else ANLS); `all`: every pair.
    #[schemars(with = "Option<String>")]
    pub compare_to: Option<Spanned<String>>,
    /// The command that answers `judge:` checks, and the file its verdicts are kept in.
    #[schemars(with = "Option<JudgeSpec>")]
    pub judge: Option<Spanned<JudgeSpec>>,
    /// Where the parts of a prediction are in the pipelines' own documents, for every case
    /// below (a deeper suite's, a pipeline's or a case's replaces it whole).
    pub prediction_format: Option<super::PredictionFormatSpec>,
    /// The units of the boxes (`bbox`) of gold and predictions: `normalized` (fractions of the
    /// page, 0 to 1, the default) or `pixels` (of the page whose `page_size` a case gives).
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::bbox_units")]
    pub bbox_units: Option<Spanned<String>>,
    /// The IoU of the predicted box with the gold one from which a value counts as grounded
    /// (0.5 by default).
    #[schemars(with = "Option<f64>")]
    pub grounded_iou: Option<Spanned<f64>>,
    /// The error rate that automatic acceptance may not exceed (the upper end of its 95 %
    /// Wilson interval): the advised confidence threshold of each field (0.01 by default).
    #[schemars(with = "Option<f64>")]
    pub target_error: Option<Spanned<f64>>,
    /// Every field's values accepted at chosen thresholds, pooled: the approval rate and the
    /// precision at each (`{ thresholds: [0.99], accept: above, share_of: labels }`).
    #[schemars(with = "Option<super::AcceptanceSpec>")]
    pub acceptance: Option<Spanned<super::AcceptanceSpec>>,
    /// KIEval's settings under `profile: kieval`: `keys`, the keys it scores (`cord`, a list,
    /// or a file of keys one a line); every key without it.
    #[schemars(with = "Option<super::KievalSpec>")]
    pub kieval: Option<Spanned<super::KievalSpec>>,
}

/// A judge: a command reading `{"question", "text", "field", "gold", "case"}` on standard input
/// and printing `{"held": true|false, "explanation": "…"}`, and the verdict file it fills.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JudgeSpec {
    /// Program and arguments; run in the suite's folder.
    pub command: Vec<String>,
    /// The verdict file, relative to the suite's folder (committed beside it).
    pub verdicts: String,
    /// Ask this many times and keep the majority (1 by default).
    #[schemars(with = "Option<u32>")]
    pub repeat: Option<Spanned<u32>>,
    /// Seconds one answer may take (60 by default).
    #[schemars(with = "Option<f64>")]
    pub timeout_s: Option<Spanned<f64>>,
}

/// The keys of a suite's `aggregate:`, each with its doc: one list makes both the suite's bounds
/// and a pipeline's own, so that the two accept the same keys.
macro_rules! aggregate_keys {
    ($($(#[doc = $doc:literal])* $key:ident,)*) => {
        /// Thresholds on a suite's aggregate metrics.
        #[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct AggregateSpec {
            $(
                $(#[doc = $doc])*
                #[schemars(with = "Option<f64>")]
                pub $key: Option<Spanned<f64>>,
            )*
            /// Bounds on slices of the suite's cases, each checked over the slice's cases alone:
            /// `lang=fr: { min_anls: 0.95 }` (a tag of a mapping or a metadata column), `tag=scan`
            /// (a tag written in a list). A slice that matches no case fails the test.
            #[serde(default)]
            #[schemars(with = "Option<BTreeMap<String, AggregateSpec>>")]
            pub slices: Option<BTreeMap<String, Spanned<AggregateSpec>>>,
        }

        /// A pipeline's own aggregate thresholds: each key written replaces the suite's bound
        /// for this pipeline's aggregate test, and `null` removes it.
        #[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct PipelineAggregateSpec {
            $(
                $(#[doc = $doc])*
                #[serde(default, deserialize_with = "written")]
                #[schemars(with = "Option<f64>")]
                pub $key: Option<Spanned<Option<f64>>>,
            )*
        }

        impl AggregateSpec {
            /// The bound written under a threshold key (`min_anls`), if any.
            pub fn bound(&self, key: &str) -> Option<&Spanned<f64>> {
                match key {
                    $(stringify!($key) => self.$key.as_ref(),)*
                    _ => None,
                }
            }
        }

        impl PipelineAggregateSpec {
            /// What is written under a threshold key: a bound, or `null` (`Spanned` of `None`).
            pub fn bound(&self, key: &str) -> Option<&Spanned<Option<f64>>> {
                match key {
                    $(stringify!($key) => self.$key.as_ref(),)*
                    _ => None,
                }
            }
        }
    };
}

aggregate_keys! {
    /// Lower bound on the mean exact match of the cases.
    min_exact_match,
    /// Lower bound on the mean ANLS.
    min_anls,
    /// Lower bound on the mean critical exact match.
    min_exact_critical,
    /// Lower bound on the mean critical ANLS.
    min_anls_critical,
    /// Upper bound on the Brier score pooled over the suite.
    max_brier,
    /// Upper bound on the ECE pooled over the suite.
    max_ece,
    /// Lower bound on the share of the suite's case tests that passed.
    min_pass_rate,
    /// Lower bound on the mean field-level F1.
    min_f1,
    /// Upper bound on the 95th percentile of latency, in milliseconds.
    max_latency_ms,
    /// Upper bound on the mean cost of a case, in US dollars.
    max_cost_usd,
    /// Lower bound on the share of cases whose gate is open.
    min_gate_pass_rate,
    /// Lower bound on the mean gated score.
    min_mean_score,
    /// Lower bound on the share of Must-Right rubric items that held.
    min_must_right_accuracy,
    /// Lower bound on the share of Easy-Wrong rubric items that held.
    min_easy_wrong_accuracy,
    /// Lower bound on the share of cases every attempt of which passed (`repeat`).
    min_pass_all_k,
    /// Lower bound on the share of cases one attempt of which passed (`repeat`).
    min_pass_any_k,
    /// Upper bound on the largest flip rate of a field: the share of attempts whose exact
    /// match differs from the majority of its case's attempts (`repeat`).
    max_flip_rate,
    /// Lower bound on the mean share of grounded fields (page right, IoU at least `grounded_iou`).
    min_grounded,
    /// Lower bound on the mean IoU of the predicted boxes with the gold ones.
    min_iou,
    /// Lower bound on the mean share of fields found on the right page.
    min_page_match,
    /// Lower bound on the share of values accepted automatically, each field from its advised
    /// confidence threshold (the suite's `target_error`).
    min_automation_rate,
}

/// A key that is written is `Some`, even when it holds `null` (which removes a suite's bound).
fn written<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Spanned<Option<f64>>>, D::Error> {
    Spanned::<Option<f64>>::deserialize(d).map(Some)
}

/// A model's prices, in US dollars per million tokens.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriceSpec {
    /// Price of a million input (prompt) tokens.
    pub input_per_mtok: f64,
    /// Price of a million output tokens (reasoning and thinking tokens included: providers bill
    /// them as output).
    pub output_per_mtok: f64,
    /// Price of a million input tokens read from the provider's cache; without it, cached input
    /// is billed at `input_per_mtok`.
    pub cached_input_per_mtok: Option<f64>,
}

/// A command that produces a prediction on its standard output.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Program and arguments, with `{case}`, `{pipeline}`, `{document}`; run in the suite's folder.
    pub command: Vec<String>,
    /// Seconds before the command and its children are killed (default 60).
    pub timeout_s: Option<f64>,
    /// Runs the command this many times per case and pipeline (default 1), every attempt kept;
    /// the suite's `pass` says how the attempts make the verdict.
    #[schemars(range(min = 1, max = 100))]
    pub repeat: Option<u32>,
    /// How outputs are kept and reused: `use` (the default: a kept output is used, else the
    /// command is called and its output kept), `refresh` (call again, keep the new output),
    /// `replay` (never call: a call with no kept output fails its case) or `off`.
    /// `GOLDGATE_CACHE` overrides it.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::cache_mode")]
    pub cache: Option<Spanned<String>>,
    /// The folder outputs are kept in, relative to this folder (`.goldgate/cache` at the project's
    /// root by default); commit it to replay them where the pipeline cannot be called.
    #[schemars(with = "Option<String>")]
    pub cache_folder: Option<Spanned<String>>,
    /// Files beyond the command's own arguments whose bytes decide the output (globs relative
    /// to this folder: prompts, schemas, a model's configuration): a change calls again.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Variables whose values decide the output (a model name, an endpoint): a change calls
    /// again. Their values are kept only as digests.
    #[serde(default)]
    pub env: Vec<String>,
    /// Calls again after a non-zero exit, a timeout or output that is not JSON:
    /// `{ max: 3, backoff_s: 2 }` (none by default); the wait doubles after each retry.
    #[schemars(with = "Option<RetriesSpec>")]
    pub retries: Option<Spanned<RetriesSpec>>,
    /// What a call that still fails after its retries does to its case: `fail` (the default:
    /// the case fails, as a call error apart from wrong answers) or `skip` (the case is left out
    /// of the means and the gates, and the run says so).
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::call_errors")]
    pub call_errors: Option<Spanned<String>>,
    /// How many calls of the command run at once in a process (the test threads' number by
    /// default), whatever `--test-threads` says: calls that wait on a provider need no core. The
    /// attempts of a repeated case run at once too.
    #[schemars(with = "Option<u32>", range(min = 1, max = 256))]
    pub concurrency: Option<Spanned<u32>>,
}

/// How often a failed call is made again.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetriesSpec {
    /// Calls made again at most (after the first).
    #[schemars(range(min = 0, max = 10))]
    pub max: u32,
    /// Seconds before the first retry (1 by default), doubled before each next one.
    pub backoff_s: Option<f64>,
}

/// A gate on a significant drop against the baseline: the paired mean drop of `metric` over the
/// cases both have must be under `min_effect`, or its interval must reach zero.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegressionGateSpec {
    /// The case metric compared: `score`, `exact_match`, `anls`, `exact_critical`,
    /// `anls_critical`, `f1`, `brier` or `ece`.
    #[schemars(schema_with = "crate::spec::schema::gated_metric")]
    pub metric: Spanned<String>,
    /// The smallest mean drop that fails the gate (a drop is a fall of a metric better high, a
    /// rise of one better low), in the metric's units.
    #[schemars(with = "f64", range(min = 0, max = 1))]
    pub min_effect: Spanned<f64>,
    /// The level of the interval of the difference (default 0.95).
    #[schemars(with = "Option<f64>", range(min = 0.5, max = 0.999))]
    pub confidence: Option<Spanned<f64>>,
}

/// How one field is compared and when it counts as correct.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldRuleSpec {
    /// `text` (default), `number` or `date`.
    pub compare: Option<Compare>,
    /// Largest difference two numbers may have and still be equal (`compare: number`).
    #[schemars(with = "Option<f64>")]
    pub tolerance: Option<Spanned<f64>>,
    /// Whether numeric dates are day-first, `05/03/2024` = 5 March (`compare: date`).
    #[schemars(with = "Option<bool>")]
    pub day_first: Option<Spanned<bool>>,
    /// `exact` (default) or `anls`: what makes the field correct (EM and calibration).
    pub correct: Option<Correct>,
    /// With `correct: anls`, the ANLS from which the field is correct (default 0.5).
    #[schemars(with = "Option<f64>")]
    pub min_anls: Option<Spanned<f64>>,
}

/// How a field's values are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Compare {
    /// As normalized text.
    Text,
    /// As amounts.
    Number,
    /// As calendar dates.
    Date,
    /// As identifiers: case, whitespace and `-` `.` `/` ignored (VAT numbers, IBANs, SIRET).
    Identifier,
}

/// What makes a field correct.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Correct {
    /// An exact match (by its comparison).
    Exact,
    /// ANLS at least `min_anls`.
    Anls,
}

/// A rubric set in `rubrics/NAME.yaml`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RubricSetFile {
    /// Its rubrics, which may include other sets.
    #[schemars(with = "Vec<RubricEntry>")]
    pub rubrics: Vec<Spanned<RubricEntry>>,
}

/// One entry of a `rubrics` list: a rubric, or `include: NAME`. The same keys, without the
/// rubric's kind, label and penalty, make the nested checks of `all`, `any` and `not`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RubricEntry {
    /// Pulls in every rubric of `rubrics/NAME.yaml`.
    #[schemars(with = "Option<String>")]
    pub include: Option<Spanned<String>>,
    /// Label of a rubric whose failure closes the gate.
    #[schemars(with = "Option<String>")]
    pub must_right: Option<Spanned<String>>,
    /// Label of a rubric whose failure costs a penalty.
    #[schemars(with = "Option<String>")]
    pub easy_wrong: Option<Spanned<String>>,
    /// The field checked (`total`, `address.city`, `line_items[0].description`,
    /// `line_items[*].quantity`); without it the check reads the whole prediction text.
    #[schemars(with = "Option<String>")]
    pub field: Option<Spanned<String>>,
    /// A normalization override for this rubric.
    #[serde(default)]
    #[schemars(schema_with = "crate::spec::schema::normalize")]
    pub normalize: Option<Node>,
    /// Penalty of a failed Easy-Wrong rubric, in (0, 1]; 0.1 by default.
    #[schemars(with = "Option<f64>")]
    pub penalty: Option<Spanned<f64>>,
    /// Check: the field matches its gold exactly.
    #[schemars(with = "Option<bool>")]
    pub exact: Option<Spanned<bool>>,
    /// Check: ANLS of the field against its gold is at least this.
    #[schemars(with = "Option<f64>")]
    pub min_anls: Option<Spanned<f64>>,
    /// Check: the normalized value equals this.
    #[serde(default, deserialize_with = "given")]
    #[schemars(schema_with = "crate::spec::schema::one_value")]
    pub equals: Option<Node>,
    /// Check: the normalized value equals one of these.
    #[serde(default, deserialize_with = "given")]
    #[schemars(schema_with = "crate::spec::schema::values")]
    pub one_of: Option<Node>,
    /// Check: the normalized value contains every one of these.
    #[serde(default, deserialize_with = "given")]
    #[schemars(schema_with = "crate::spec::schema::texts")]
    pub contains: Option<Node>,
    /// Check: the normalized value contains none of these.
    #[serde(default, deserialize_with = "given")]
    #[schemars(schema_with = "crate::spec::schema::texts")]
    pub not_contains: Option<Node>,
    /// Check: the raw value matches this regular expression.
    #[schemars(with = "Option<String>")]
    pub matches: Option<Spanned<String>>,
    /// Check: the field has a non-empty value (`true`) or none (`false`).
    #[schemars(with = "Option<bool>")]
    pub present: Option<Spanned<bool>>,
    /// Check: the value read as a number equals this (within `tolerance`).
    #[serde(default, deserialize_with = "given")]
    #[schemars(schema_with = "crate::spec::schema::one_value")]
    pub number: Option<Node>,
    /// Check: the value read as a date equals this (numeric dates read as `day_first` says).
    #[serde(default, deserialize_with = "given")]
    #[schemars(schema_with = "crate::spec::schema::one_value")]
    pub date: Option<Node>,
    /// Check: the field's confidence is at least this.
    #[schemars(with = "Option<f64>")]
    pub min_confidence: Option<Spanned<f64>>,
    /// Check: the list has this many items, or `{ min, max }`.
    #[serde(default, deserialize_with = "given")]
    #[schemars(schema_with = "crate::spec::schema::count")]
    pub count: Option<Node>,
    /// Check: every nested check holds.
    #[schemars(with = "Option<Vec<RubricEntry>>")]
    pub all: Option<Vec<Spanned<RubricEntry>>>,
    /// Check: at least one nested check holds.
    #[schemars(with = "Option<Vec<RubricEntry>>")]
    pub any: Option<Vec<Spanned<RubricEntry>>>,
    /// Check: the nested check does not hold.
    #[schemars(with = "Option<RubricEntry>")]
    pub not: Option<Box<Spanned<RubricEntry>>>,
    /// Check: the value read as a number equals the sum of these fields' numbers.
    #[schemars(with = "Option<Vec<String>>")]
    pub sum_of: Option<Vec<Spanned<String>>>,
    /// Check: the suite's judge answers yes to this question about the field (or the whole
    /// prediction without `field`).
    #[schemars(with = "Option<String>")]
    pub judge: Option<Spanned<String>>,
    /// With `number` or `sum_of`: the largest difference still equal (default 0).
    #[schemars(with = "Option<f64>")]
    pub tolerance: Option<Spanned<f64>>,
    /// With `date`: numeric dates are day-first (`05/03/2024` is 5 March).
    #[schemars(with = "Option<bool>")]
    pub day_first: Option<Spanned<bool>>,
}

/// A key that is present is `Some`, even when its value is `null` (`equals: null` is a check).
fn given<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Node>, D::Error> {
    Node::deserialize(d).map(Some)
}

/// The thresholds of a case (or of a suite's `defaults`); all optional. They merge with the
/// suites' bound by bound: a bound written here replaces the suite's on its metric, and `null`
/// removes the suite's.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThresholdsSpec {
    /// Lower bound on the gated score.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_score: Option<Spanned<Option<f64>>>,
    /// Lower bound on mean exact match.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_exact_match: Option<Spanned<Option<f64>>>,
    /// Lower bound on mean ANLS.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_anls: Option<Spanned<Option<f64>>>,
    /// Lower bound on mean exact match over critical fields.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_exact_critical: Option<Spanned<Option<f64>>>,
    /// Lower bound on mean ANLS over critical fields.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_anls_critical: Option<Spanned<Option<f64>>>,
    /// Upper bound on the Brier score.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub max_brier: Option<Spanned<Option<f64>>>,
    /// Upper bound on the expected calibration error.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub max_ece: Option<Spanned<Option<f64>>>,
    /// Upper bound on the number of predicted fields that gold does not list.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub max_extra_fields: Option<Spanned<Option<f64>>>,
    /// Lower bound on field-level F1.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_f1: Option<Spanned<Option<f64>>>,
    /// Lower bound on field-level precision.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_precision: Option<Spanned<Option<f64>>>,
    /// Lower bound on field-level recall.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_recall: Option<Spanned<Option<f64>>>,
    /// Upper bound on the latency, in milliseconds.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub max_latency_ms: Option<Spanned<Option<f64>>>,
    /// Upper bound on the cost, in US dollars.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub max_cost_usd: Option<Spanned<Option<f64>>>,
    /// Lower bound on the share of grounded fields (page right, IoU at least `grounded_iou`).
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_grounded: Option<Spanned<Option<f64>>>,
    /// Lower bound on the mean IoU of the predicted boxes with the gold ones.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_iou: Option<Spanned<Option<f64>>>,
    /// Lower bound on the share of fields found on the right page.
    #[serde(default, deserialize_with = "written")]
    #[schemars(with = "Option<f64>")]
    pub min_page_match: Option<Spanned<Option<f64>>>,
}

impl ThresholdsSpec {
    /// What is written under a threshold key (`min_anls`): a bound, or `null` (`Spanned` of
    /// `None`), which removes a suite's bound.
    pub fn bound(&self, key: &str) -> Option<&Spanned<Option<f64>>> {
        match key {
            "min_score" => self.min_score.as_ref(),
            "min_exact_match" => self.min_exact_match.as_ref(),
            "min_anls" => self.min_anls.as_ref(),
            "min_exact_critical" => self.min_exact_critical.as_ref(),
            "min_anls_critical" => self.min_anls_critical.as_ref(),
            "max_brier" => self.max_brier.as_ref(),
            "max_ece" => self.max_ece.as_ref(),
            "max_extra_fields" => self.max_extra_fields.as_ref(),
            "min_f1" => self.min_f1.as_ref(),
            "min_precision" => self.min_precision.as_ref(),
            "min_recall" => self.min_recall.as_ref(),
            "max_latency_ms" => self.max_latency_ms.as_ref(),
            "max_cost_usd" => self.max_cost_usd.as_ref(),
            "min_grounded" => self.min_grounded.as_ref(),
            "min_iou" => self.min_iou.as_ref(),
            "min_page_match" => self.min_page_match.as_ref(),
            _ => None,
        }
    }
}

impl RubricEntry {
    /// Whether the entry gives the check of that key (one of `Check::KEYS` in the model).
    pub fn gives(&self, key: &str) -> bool {
        match key {
            "exact" => self.exact.is_some(),
            "min_anls" => self.min_anls.is_some(),
            "equals" => self.equals.is_some(),
            "one_of" => self.one_of.is_some(),
            "contains" => self.contains.is_some(),
            "not_contains" => self.not_contains.is_some(),
            "matches" => self.matches.is_some(),
            "present" => self.present.is_some(),
            "number" => self.number.is_some(),
            "date" => self.date.is_some(),
            "min_confidence" => self.min_confidence.is_some(),
            "count" => self.count.is_some(),
            "all" => self.all.is_some(),
            "any" => self.any.is_some(),
            "not" => self.not.is_some(),
            "sum_of" => self.sum_of.is_some(),
            "judge" => self.judge.is_some(),
            _ => false,
        }
    }
}
