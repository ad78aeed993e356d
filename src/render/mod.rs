//! Everything a user reads: the failure message and diffs, the run summary, the JSON report.
//! Computes no metric.

mod analysis;
mod annotations;
mod compare;
mod comparison;
mod diff;
mod explain;
mod fields;
mod finding;
mod gate;
mod history;
mod html;
mod html_analysis;
mod html_charts;
mod html_failures;
mod html_slices;
mod junit;
mod markdown;
mod markup;
mod message;
pub mod prediction;
mod repeat;
mod report;
mod review;
mod standing;
mod summary;
mod svg;
mod table;
mod visible;

pub use annotations::{annotations, workflow_command};
pub use compare::{aggregate_message, comparison_table};
pub use comparison::{FullComparison, comparison_markdown, comparison_text};
pub use diff::{inline_diff, line_diff};
pub use explain::explain;
pub use finding::{before_scoring, verdict};
pub use history::{bad_line, history_page, history_text};
pub use html::{Page, html_page};
pub use html_analysis::{DocumentImage, PageImage};
pub use junit::Junit;
pub use markdown::{STEP_SUMMARY_LIMIT, step_summary};
pub use message::{failure_message, field_blocks};
pub use repeat::attempts_line;
pub use report::{ReportParts, write_report};
pub use review::{edit_line, item_screen, queue_lines, session_line};
pub use standing::{fixed_lines, gate_end, gate_line, known_failure, worse};
pub use summary::{Regressions, describe, run_end};
pub use visible::{visible, visible_painted};

/// A commit shortened to `digits` as git shortens it, keeping a `+dirty` mark (a run made on a
/// tree with uncommitted changes is not the commit's).
pub fn short_commit(commit: &str, digits: usize) -> String {
    let (sha, dirty) = match commit.strip_suffix("+dirty") {
        Some(sha) => (sha, "+dirty"),
        None => (commit, ""),
    };
    format!("{}{dirty}", sha.get(..digits).unwrap_or(sha))
}

use anstyle::{AnsiColor, Style};

/// Text printed to a terminal or a CI log, made safe to print: control characters shown escaped
/// but goldgate's own colours ([`visible_painted`]), and lines a CI log would read as workflow
/// commands made inert ([`crate::base::inert::inert`]).
pub fn inert(text: &str) -> std::borrow::Cow<'_, str> {
    match visible_painted(text) {
        std::borrow::Cow::Borrowed(text) => crate::base::inert::inert(text),
        std::borrow::Cow::Owned(text) => {
            std::borrow::Cow::Owned(crate::base::inert::inert(&text).into_owned())
        }
    }
}

/// The styles of rendered output, one per role. ANSI codes are always emitted; anstream strips them when the
/// output is not a terminal, under `NO_COLOR`, or with `--color never`.
pub struct Styles;

impl Styles {
    /// Failures and wrong fields.
    pub const BAD: Style = AnsiColor::Red.on_default().bold();
    /// Exact matches.
    pub const GOOD: Style = AnsiColor::Green.on_default();
    /// Text of the gold missing from the prediction.
    pub const REMOVED: Style = AnsiColor::Red.on_default();
    /// Text of the prediction not in the gold.
    pub const ADDED: Style = AnsiColor::Green.on_default();
    /// Headings.
    pub const HEADING: Style = Style::new().bold();
    /// Rows that are fine.
    pub const DIM: Style = Style::new().dimmed();
}

/// `text` wrapped in a style.
pub fn paint(style: Style, text: impl std::fmt::Display) -> String {
    format!("{style}{text}{style:#}")
}

/// The width of a table's column of names: its longest name, and at least `least` (its
/// heading's width).
pub(crate) fn column_width<'a>(names: impl IntoIterator<Item = &'a str>, least: usize) -> usize {
    names
        .into_iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(least)
        .clamp(least, MOST_WIDTH.max(least))
}

/// The widest a column is padded to: a longer cell (a tag value, a predicted key of 70,000
/// characters) runs past it rather than widening every row, and a width stays far below what
/// Rust's formatting takes (65,535), past which it would stop the run.
pub(crate) const MOST_WIDTH: usize = 60;

/// A metric with four decimals, or `-` when absent.
pub(crate) fn num(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"))
}
