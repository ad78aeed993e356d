//! A checked case: what `load` produces and `evaluate` consumes.

use std::path::PathBuf;

use super::metric::Threshold;
use crate::base::normalize::Normalize;
use crate::base::value::Value;
use crate::model::rubric::Rubric;

/// A gold case, validated and with its rubric sets resolved.
#[derive(Debug, Clone)]
pub struct Case {
    /// The test name: the path under the cases folder without extension, `/`-separated.
    pub id: String,
    /// The case file.
    pub file: PathBuf,
    /// The file its names are made from (`{case}`, its baseline entry's): its case file, or for
    /// a case of a gold set (a suite's `cases:`) the case file it would have, whether or not it
    /// has one, so that adding one renames nothing.
    pub named_by: PathBuf,
    /// For a case of a gold set: its gold file, which goldgate named its baseline entries after
    /// while it had no case file of its own (read as their former name).
    pub formerly_named_by: Option<PathBuf>,
    /// One line about the document.
    pub description: Option<String>,
    /// Free labels.
    pub tags: Vec<String>,
    /// The reason the case is skipped, if it is.
    pub skip: Option<String>,
    /// Where the prediction comes from.
    pub prediction: PredictionSource,
    /// The gold fields in written order; `None` when the case has no `gold`.
    pub gold: Option<Vec<GoldField>>,
    /// Names of the critical fields.
    pub critical: Vec<String>,
    /// How texts are normalized before comparison.
    pub normalize: Normalize,
    /// Must-Right and Easy-Wrong rubrics, includes expanded.
    pub rubrics: Vec<std::sync::Arc<Rubric>>,
    /// Bounds the case must meet.
    pub thresholds: Vec<Threshold>,
    /// Number of ECE bins.
    pub ece_bins: u32,
    /// How values are scored.
    pub profile: Profile,
    /// The pipeline this case is run for, when its suite declares pipelines.
    pub pipeline: Option<String>,
    /// Prices per model, from the suite.
    pub pricing: Vec<Price>,
    /// Where the suite's `pricing` is written: where a missing price goes.
    pub pricing_at: Option<(PathBuf, crate::base::location::Mark)>,
    /// The baseline of the suite, if it declares one.
    pub baseline: Option<std::sync::Arc<super::suite::BaselineSpec>>,
    /// The run history its suite appends to (`history:`), absolute.
    pub history: Option<PathBuf>,
    /// The aggregates of the suites above the case.
    pub aggregates: Vec<std::sync::Arc<super::suite::Aggregate>>,
    /// The folder of its nearest suite, else its own folder: where JUnit groups its tests.
    pub suite_folder: PathBuf,
    /// How failed Easy-Wrong rubrics lower the score.
    pub scoring: Scoring,
    /// The pipeline this case's pipeline is compared with, under pipelines.
    pub reference: Option<String>,
    /// The suite's judge, for `judge:` checks.
    pub judge: Option<std::sync::Arc<super::suite::Judge>>,
    /// How the attempts of a repeated case make its verdict (its suite's `pass`).
    pub pass: super::suite::PassRule,
    /// The gold as its JSON file holds it, types and all, when it comes from a `.json` file:
    /// what a profile that compares typed values (`docubench`) reads.
    pub gold_json: Option<std::sync::Arc<serde_json::Value>>,
    /// The JSON Schema that names the fields scored, when the case or its suite gives one.
    pub schema: Option<std::sync::Arc<serde_json::Value>>,
    /// Named labels (column name, value as text): a suite's metadata columns, and `tags:`
    /// written as a mapping (`{doc_type: invoice, lang: fr}`).
    pub attributes: Vec<(String, String)>,
    /// The file the gold is read from, when `gold:` names one (or a suite's `cases:` does).
    pub gold_file: Option<PathBuf>,
    /// How the places of values are read and scored.
    pub grounding: Grounding,
    /// The error rate that automatic acceptance of its values may not exceed (the suite's
    /// `target_error`).
    pub target_error: f64,
    /// The thresholds at which every field's values are pooled (the suite's `acceptance`).
    pub acceptance: Option<crate::metrics::acceptance::Pooling>,
    /// The keys KIEval scores under `profile: kieval` (its suite's `kieval: { keys }`); every
    /// key without one.
    pub kieval_keys: Option<std::sync::Arc<crate::metrics::kieval::Shortlist>>,
    /// The source document (`document:`), when the case names one: the HTML page shows a
    /// PNG or JPEG one with the boxes of the fields not found where gold says.
    pub document: Option<PathBuf>,
}

/// How failed Easy-Wrong rubrics lower a case's score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scoring {
    /// Each failed Easy-Wrong rubric subtracts its penalty.
    #[default]
    Penalty,
    /// The score is the share of Easy-Wrong rubrics that hold (1 when there is none).
    Fraction,
}

impl Scoring {
    /// The names `scoring:` accepts.
    pub const NAMES: [&'static str; 2] = ["penalty", "fraction"];

    /// The scoring of a name.
    pub fn from_name(name: &str) -> Option<Scoring> {
        match name {
            "penalty" => Some(Scoring::Penalty),
            "fraction" => Some(Scoring::Fraction),
            _ => None,
        }
    }
}

/// A model's prices, in US dollars per million tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct Price {
    /// The model, as the prediction names it.
    pub model: String,
    /// Price of a million input tokens.
    pub input_per_mtok: f64,
    /// Price of a million output tokens.
    pub output_per_mtok: f64,
    /// Price of a million cached input tokens, when the pricing gives one.
    pub cached_input_per_mtok: Option<f64>,
}

/// A scoring profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// goldgate's own rules (§4.1–4.2): accents stripped, NL = 0.5 scores 0.
    #[default]
    Dream,
    /// The `anls-star` package 1.0.1, reproduced.
    AnlsStar,
    /// DocuBench 0.1.0's scoring, reproduced: normalized exact leaves, greedy list matching, a
    /// case's ANLS the document's score.
    DocuBench,
    /// KIEval's scorer, reproduced: entity-level precision, recall and F1 and the aligned score,
    /// counts pooled over the set; a `.csv` gold or prediction is read in KIEval's layout.
    KiEval,
}

impl Profile {
    /// The names users write.
    pub const NAMES: [&'static str; 4] = ["dream", "anls_star", "docubench", "kieval"];

    /// The profile of a name.
    pub fn from_name(name: &str) -> Option<Profile> {
        match name {
            "dream" => Some(Profile::Dream),
            "anls_star" => Some(Profile::AnlsStar),
            "docubench" => Some(Profile::DocuBench),
            "kieval" => Some(Profile::KiEval),
            _ => None,
        }
    }
}

/// How a field is compared and when it is correct (`fields:`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FieldRule {
    /// Text, number or date comparison.
    pub compare: Comparison,
    /// What makes the field correct.
    pub correct: Correctness,
}

/// How a field's values are compared.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Comparison {
    /// Normalized text (the default).
    #[default]
    Text,
    /// Amounts, equal within `tolerance`.
    Number {
        /// Largest difference still equal.
        tolerance: f64,
    },
    /// Identifiers (VAT numbers, IBANs, SIRET, order numbers): case, whitespace and the
    /// separators `-` `.` `/` ignored.
    Identifier,
    /// Calendar dates.
    Date {
        /// Whether `05/03/2024` is the 5th of March.
        day_first: bool,
    },
}

/// What makes a field correct: its EM_i and its calibration outcome o_i.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Correctness {
    /// An exact match by its comparison (the default).
    #[default]
    Exact,
    /// ANLS at least this.
    Anls(f64),
}

/// One field of `gold` with its accepted variants.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldField {
    /// The field name.
    pub name: String,
    /// Accepted values; one unless written with `any_of`.
    pub variants: Vec<Value>,
    /// Line of the field in the case file.
    pub line: u64,
    /// How it is compared (`fields:`).
    pub rule: FieldRule,
    /// Rules on paths inside its value (`line_items[*].amount: {compare: number}`): how the
    /// leaves they reach are compared inside ANLS*.
    pub path_rules: Vec<(crate::base::field_path::FieldPath, Comparison)>,
    /// Where the value is on the document, when gold says (`{value: FA-1, page: 1, bbox: […]}`).
    pub place: Option<super::place::Place>,
}

/// How a case's boxes are written (`bbox_units`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoxUnits {
    /// Fractions of the page's width and height, 0 to 1 (the default).
    #[default]
    Normalized,
    /// Pixels of the page, whose size the case's `page_size` gives.
    Pixels,
    /// PDF points (1/72 inch) from the page's top-left corner, as pdfplumber gives them: the
    /// page's size is read from the case's PDF `document:`.
    Points,
}

impl BoxUnits {
    /// The names `bbox_units` accepts.
    pub const NAMES: [&'static str; 3] = ["normalized", "pixels", "points"];

    /// The units of a name.
    pub fn from_name(name: &str) -> Option<BoxUnits> {
        match name {
            "normalized" => Some(BoxUnits::Normalized),
            "pixels" => Some(BoxUnits::Pixels),
            "points" => Some(BoxUnits::Points),
            _ => None,
        }
    }
}

/// How far past a PDF page's edge a box in points may reach and still be on it: readers round
/// a word's box outward, by a fraction of a point.
pub const POINT_SLACK: f64 = 0.5;

/// The width and height of each page of a PDF in points, page 1 first.
pub type PdfPageSizes = std::sync::Arc<[(f64, f64)]>;

/// How a case's places are read and scored.
#[derive(Debug, Clone, PartialEq)]
pub struct Grounding {
    /// The units of the boxes, gold and predicted alike.
    pub units: BoxUnits,
    /// The page's width and height in pixels (`page_size`), for boxes in pixels.
    pub page_size: Option<(f64, f64)>,
    /// The width and height of each page of the case's PDF document in points, page 1 first,
    /// when its places needed them: boxes in points, or pages to check against the count.
    pub pdf_pages: Option<PdfPageSizes>,
    /// The IoU from which a value counts as grounded (`grounded_iou`, 0.5 by default).
    pub min_iou: f64,
}

impl Grounding {
    /// The width and height of the page a box on `page` (page 1 when none is said) is measured
    /// against: the case's `page_size` for pixels, the PDF's page for points; `None` for boxes
    /// in fractions of the page, or a page the document does not have.
    pub fn page_extent(&self, page: Option<u32>) -> Option<(f64, f64)> {
        match self.units {
            BoxUnits::Normalized => None,
            BoxUnits::Pixels => self.page_size,
            BoxUnits::Points => {
                let index = usize::try_from(page.unwrap_or(1)).ok()?.checked_sub(1)?;
                self.pdf_pages.as_ref()?.get(index).copied()
            }
        }
    }
}

impl Default for Grounding {
    fn default() -> Self {
        Grounding {
            units: BoxUnits::Normalized,
            page_size: None,
            pdf_pages: None,
            min_iou: crate::metrics::grounding::DEFAULT_GROUNDED_IOU,
        }
    }
}

impl GoldField {
    /// Whether a `fields:` rule named `rule` (a field, or a path inside one such as
    /// `line_items[*].amount`) reaches something in this gold field: how a suite's rule is
    /// known to apply to a case. A path that does not parse is said to apply, so that its
    /// error is reported.
    pub fn is_reached_by(&self, rule: &str) -> bool {
        if !rule.contains(['[', '.']) {
            return self.name == rule;
        }
        match crate::base::field_path::FieldPath::parse(rule) {
            Err(_) => true,
            Ok(path) => {
                path.root() == self.name
                    && self.variants.iter().any(|v| {
                        path.resolve(v)
                            .iter()
                            .any(|(_, leaf)| !matches!(leaf, Value::Null))
                    })
            }
        }
    }
}

/// Where a case's prediction is given: the errors about it point there.
#[derive(Debug, Clone, PartialEq)]
pub enum WrittenIn {
    /// The case file's own `prediction:`.
    Case,
    /// A suite's `defaults`, applied to the case (the suite file).
    Defaults(PathBuf),
    /// A suite's pipeline path (the suite file).
    Pipeline(PathBuf),
}

/// The source document of a case (`document:`), which a suite's `run` command reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The resolved path.
    pub path: PathBuf,
    /// Where `document:` is written: the case, or a suite's `defaults`.
    pub at: (PathBuf, crate::base::location::Mark),
}

/// Where a case's prediction comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum PredictionSource {
    /// A `.json`, `.yaml`, `.yml` or `.txt` file (resolved against the case's folder).
    File {
        /// The resolved path.
        path: PathBuf,
        /// Where `prediction:` is in the file that names the path (`written_in`).
        at: crate::base::location::Mark,
        /// The file that names the path.
        written_in: WrittenIn,
        /// Where the parts of the prediction are in its pipeline's own document, when a suite or
        /// the case says (`prediction_format:`).
        format: Option<std::sync::Arc<crate::model::prediction::PredictionFormat>>,
    },
    /// An inline field document, and the file it is written in.
    Inline(crate::spec::Node, WrittenIn),
    /// `prediction_text:`.
    Text(String),
    /// A suite's `run` command: its standard output is the prediction.
    Run {
        /// Program and arguments, placeholders filled.
        command: Vec<String>,
        /// Where it runs (the suite's folder).
        dir: PathBuf,
        /// When it is killed.
        timeout: std::time::Duration,
        /// How many times it runs (`repeat`; 1 by default), each attempt scored.
        repeat: u32,
        /// Whether the case reads fields (gold or `field:` rubrics), so that text output is an error.
        expect_fields: bool,
        /// The case's `document`, which the command reads (part of what identifies its output).
        document: Option<Document>,
        /// Where `run:` is written (the suite file), for errors in its command.
        at: (PathBuf, crate::base::location::Mark),
        /// Where the parts of the prediction are in the command's output, when a suite or the
        /// case says (`prediction_format:`).
        format: Option<std::sync::Arc<crate::model::prediction::PredictionFormat>>,
        /// The pipeline it predicts for, when the suite declares pipelines (part of the key of
        /// its kept output).
        pipeline: Option<String>,
        /// How its outputs are kept and reused.
        cache: std::sync::Arc<crate::model::suite::CallCache>,
        /// How its calls are made: retried, at once, and what one that still fails does.
        policy: crate::model::suite::CallPolicy,
    },
}
