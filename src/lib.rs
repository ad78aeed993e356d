//! goldgate
pub mod error;
pub mod spec;
pub mod value;
