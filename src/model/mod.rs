//! Layer 2, the model: plain types with no behaviour beyond reading them. `load` builds them from
//! the files, `evaluate` reads them.

pub mod case;
pub mod metric;
pub mod place;
pub mod prediction;
pub mod rubric;
pub mod suite;
pub mod test_name;
