//! JUnit XML (SPEC §11), as CI servers read it, written with quick-junit (the crate nextest writes
//! its own with): a `testsuite` per suite folder and pipeline, a `testcase` per test.

use std::collections::BTreeMap;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::record::{AggregateRecord, TestRecord};

/// The JUnit document of a run's tests.
pub fn junit_xml(cases: &[TestRecord], aggregates: &[AggregateRecord]) -> String {
    let mut suites: BTreeMap<(String, Option<String>), Vec<TestCase>> = BTreeMap::new();
    for case in cases {
        let mut test = TestCase::new(case.id.as_str(), case_status(case));
        let folder = case.suite_folder();
        test.set_classname(folder.as_str());
        test.extra.insert("file".into(), case.file.as_str().into());
        if let Some(score) = case.score {
            test.add_property(Property::new("score", score.to_string()));
        }
        if let Some(metrics) = &case.metrics {
            properties(&mut test, metrics);
        }
        suites
            .entry((folder, case.pipeline.clone()))
            .or_default()
            .push(test);
    }
    for aggregate in aggregates {
        let status = if aggregate.passed {
            TestCaseStatus::success()
        } else {
            failure(aggregate.message.as_deref().unwrap_or("aggregate failed"))
        };
        let mut test = TestCase::new(aggregate.id.as_str(), status);
        let folder = std::path::Path::new(&aggregate.file)
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        test.set_classname(folder.as_str());
        test.extra
            .insert("file".into(), aggregate.file.as_str().into());
        properties(&mut test, &aggregate.metrics);
        suites
            .entry((folder, aggregate.pipeline.clone()))
            .or_default()
            .push(test);
    }
    let mut report = Report::new("goldgate");
    for ((folder, pipeline), tests) in suites {
        let folder = if folder.is_empty() { "." } else { &folder };
        let name = match pipeline {
            Some(p) => format!("{folder}::{p}"),
            None => folder.to_owned(),
        };
        let mut suite = TestSuite::new(name);
        suite.add_test_cases(tests);
        report.add_test_suite(suite);
    }
    report
        .to_string()
        .unwrap_or_else(|e| format!("<!-- goldgate could not write JUnit: {e} -->\n"))
}

/// Each number of a metrics record, by its name, as a property.
fn properties(test: &mut TestCase, metrics: &impl serde::Serialize) {
    let Ok(serde_json::Value::Object(map)) = serde_json::to_value(metrics) else {
        return;
    };
    for (name, value) in map {
        if let Some(v) = value.as_f64() {
            test.add_property(Property::new(name.as_str(), v.to_string()));
        }
    }
}

fn case_status(case: &TestRecord) -> TestCaseStatus {
    match case.passed {
        Some(true) => TestCaseStatus::success(),
        None => {
            let mut status = TestCaseStatus::skipped();
            if let Some(reason) = &case.skip {
                status.set_message(reason.as_str());
            }
            status
        }
        Some(false) => failure(case.message.as_deref().unwrap_or("case failed")),
    }
}

/// A failure: the verdict line as its message, the whole plain message as its text.
fn failure(message: &str) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status.set_message(message.lines().next().unwrap_or(message));
    status.set_description(message);
    status
}
