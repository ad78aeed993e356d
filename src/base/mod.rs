//! Layer 0, plain data: imports nothing else of the crate.
//!
//! The value tree, text normalization, typed reading of amounts and dates, field paths, locations
//! and load errors, file helpers and shell quoting.

pub mod budget;
pub mod decimal;
pub mod field_path;
pub mod fs;
pub mod huge_pages;
pub mod image;
pub mod inert;
pub mod json;
pub mod location;
pub(crate) mod lock;
pub mod name;
pub mod normalize;
pub mod pdf;
#[cfg(feature = "pdf")]
pub(crate) mod pdf_filters;
#[cfg(feature = "pdf")]
pub(crate) mod pdf_scan;
pub mod shell;
pub mod spanned;
pub mod state;
pub mod typed;
pub mod value;
pub mod writing;
