//! Everything a user reads: the failure message and diffs, the run summary, the JSON report.
//! Computes no metric.

mod compare;
mod diff;
mod message;
mod report;
mod summary;

pub use compare::{aggregate_table, aggregated_json, comparison_table};
pub use diff::{inline_diff, line_diff};
pub use message::failure_message;
pub use report::{Record, Status, write_report};
pub use summary::{RunSummary, summary_line};

use anstyle::{AnsiColor, Style};

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

/// A metric with four decimals, or `-` when absent.
pub(crate) fn num(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"))
}

/// A word as a POSIX shell reads it back: as is when plain, else in single quotes.
///
/// ```
/// use goldgate::render::shell_quote;
/// assert_eq!(shell_quote("invoices/acme::guided"), "invoices/acme::guided");
/// assert_eq!(shell_quote("sp ace/cases"), "'sp ace/cases'");
/// assert_eq!(shell_quote("o'brien"), r"'o'\''brien'");
/// ```
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
