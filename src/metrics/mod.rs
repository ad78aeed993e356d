//! Metrics: exact match and ANLS of text (§4.2), ANLS* of trees (§4.3), calibration (§4.4),
//! agreement with people (§12).
//! They know nothing of YAML or terminals.

pub mod acceptance;
pub mod agreement;
pub mod anls_star;
mod calibration;
pub mod docubench;
pub(crate) mod effort;
pub mod grounding;
pub mod kieval;
mod munkres;
pub mod power;
mod python_word;
mod text;

pub use calibration::{Bin, Pooled, brier, calibration_bins, ece};
pub(crate) use text::Distances;
pub use text::{FieldScore, anls, exact_match, levenshtein, score_variants};
