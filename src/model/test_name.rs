//! A test's name, built and read here alone, as libtest shows it and a filter matches it:
//!
//! - a case: its file's path under the cases folder without extension (`invoices/acme`);
//! - a case under a pipeline: `invoices/acme::guided`;
//! - a suite's aggregate: `invoices::aggregate`, and under a pipeline `invoices::aggregate::guided`.
//!
//! A case's file may hold `::` in its name, so a name is never split blindly on it: a pipeline
//! is recognised by the case it follows, an aggregate by its `::aggregate` part.

/// What marks an aggregate's test.
const AGGREGATE: &str = "::aggregate";

/// The test of a case, under `pipeline` when its suites have pipelines.
pub fn of_case(case: &str, pipeline: Option<&str>) -> String {
    match pipeline {
        Some(p) => format!("{case}::{p}"),
        None => case.to_owned(),
    }
}

/// The test of the aggregate of the suite `suite` (its id: the root suite's is the cases
/// folder's name, never empty), under `pipeline` when its suites have pipelines.
pub fn of_aggregate(suite: &str, pipeline: Option<&str>) -> String {
    of_case(&format!("{suite}{AGGREGATE}"), pipeline)
}

/// Whether a test is a suite's aggregate.
pub fn is_aggregate(name: &str) -> bool {
    name.contains(AGGREGATE)
}

/// The suite of an aggregate's test (`invoices` of `invoices::aggregate::guided`).
pub fn suite_of_aggregate(name: &str) -> Option<&str> {
    name.split_once(AGGREGATE).map(|(suite, _)| suite)
}

/// The case of a test under `pipeline` (`invoices/acme` of `invoices/acme::guided`); the name
/// itself when it is not that pipeline's.
pub fn case_of<'a>(name: &'a str, pipeline: &str) -> &'a str {
    name.strip_suffix(pipeline)
        .and_then(|c| c.strip_suffix("::"))
        .unwrap_or(name)
}

/// Whether `name` is the test of the case `case`, or of one of its pipelines.
pub fn is_of_case(name: &str, case: &str) -> bool {
    name == case || is_of_a_pipeline_of(name, case)
}

/// Whether `name` is the test of one of the pipelines of the case `case`.
pub fn is_of_a_pipeline_of(name: &str, case: &str) -> bool {
    name.strip_prefix(case).is_some_and(|p| p.starts_with("::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_as_they_were_built() {
        let case = of_case("invoices/a::b", Some("guided"));
        assert_eq!(case, "invoices/a::b::guided");
        assert_eq!(case_of(&case, "guided"), "invoices/a::b");
        assert_eq!(case_of("invoices/a", "guided"), "invoices/a");
        assert_eq!(case_of("invoices/aguided", "guided"), "invoices/aguided");
        assert!(is_of_case(&case, "invoices/a::b"));
        assert!(is_of_case("invoices/a", "invoices/a"));
        assert!(!is_of_case("invoices/ab", "invoices/a"));
        assert!(is_of_a_pipeline_of("invoices/a::x", "invoices/a"));
        assert!(!is_of_a_pipeline_of("invoices/a", "invoices/a"));
        assert!(!is_aggregate(&case));

        let aggregate = of_aggregate("invoices", Some("guided"));
        assert_eq!(aggregate, "invoices::aggregate::guided");
        assert_eq!(of_aggregate("cases", None), "cases::aggregate");
        assert!(is_aggregate(&aggregate));
        assert_eq!(suite_of_aggregate(&aggregate), Some("invoices"));
        assert_eq!(suite_of_aggregate("cases::aggregate"), Some("cases"));
        assert_eq!(suite_of_aggregate("invoices/a"), None);
    }
}
