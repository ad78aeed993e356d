//! JUnit XML, as CI servers read it, written with quick-junit (the crate nextest writes
//! its own with): a `testsuite` per suite folder and pipeline, a `testcase` per test.

use std::collections::BTreeMap;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::record::{AggregateRecord, TestRecord};

/// A run's JUnit document, one test at a time: each record becomes its `testcase` as it comes,
/// so that a run's records never need to be held together (100,000 of them would be a gigabyte).
#[derive(Default)]
pub struct Junit {
    suites: BTreeMap<(String, Option<String>), Vec<TestCase>>,
}

impl Junit {
    /// A case test's `testcase`, in its suite folder and pipeline's `testsuite`.
    pub fn case(&mut self, case: &TestRecord) {
        let mut test = TestCase::new(xml(&case.id), case_status(case));
        let folder = case.suite_folder();
        test.set_classname(xml(&folder));
        test.extra.insert("file".into(), xml(&case.file).into());
        if let Some(score) = case.score {
            test.add_property(Property::new("score", score.to_string()));
        }
        if let Some(metrics) = &case.metrics {
            properties(&mut test, metrics);
        }
        self.suites
            .entry((folder, case.pipeline.clone()))
            .or_default()
            .push(test);
    }

    /// An aggregate test's `testcase`: failed with its gate's headline, else its message's first
    /// line.
    pub fn aggregate(&mut self, aggregate: &AggregateRecord) {
        let status = if aggregate.passed {
            TestCaseStatus::success()
        } else {
            let message = aggregate.message.as_deref().unwrap_or("aggregate failed");
            let headline = aggregate
                .regression_gate
                .as_ref()
                .and_then(super::gate::gate_headline)
                .unwrap_or_else(|| message.lines().next().unwrap_or(message).to_owned());
            failure(NonSuccessKind::Failure, &headline, message)
        };
        let mut test = TestCase::new(xml(&aggregate.id), status);
        let folder = std::path::Path::new(&aggregate.file)
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        test.set_classname(xml(&folder));
        test.extra
            .insert("file".into(), xml(&aggregate.file).into());
        properties(&mut test, &aggregate.metrics);
        self.suites
            .entry((folder, aggregate.pipeline.clone()))
            .or_default()
            .push(test);
    }

    /// Writes the document: a `testsuite` per suite folder and pipeline, in name order.
    pub fn write(self, out: impl std::io::Write) -> std::io::Result<()> {
        let mut report = Report::new("goldgate");
        for ((folder, pipeline), tests) in self.suites {
            let folder = if folder.is_empty() { "." } else { &folder };
            let name = match pipeline {
                Some(p) => format!("{folder}::{p}"),
                None => folder.to_owned(),
            };
            let mut suite = TestSuite::new(xml(&name));
            suite.add_test_cases(tests);
            report.add_test_suite(suite);
        }
        // quick-junit's error says only that serializing failed: the writer keeps the system's
        // error (a full disk) to say why.
        let mut out = KeepsError { out, error: None };
        report
            .serialize(&mut out)
            .map_err(|e| out.error.take().unwrap_or_else(|| std::io::Error::other(e)))
    }
}

/// A writer that keeps the first error of the writer it writes to.
struct KeepsError<W> {
    out: W,
    error: Option<std::io::Error>,
}

impl<W> KeepsError<W> {
    fn kept<T>(&mut self, result: std::io::Result<T>) -> std::io::Result<T> {
        result.inspect_err(|e| {
            if self.error.is_none() {
                self.error = Some(std::io::Error::new(e.kind(), e.to_string()));
            }
        })
    }
}

impl<W: std::io::Write> std::io::Write for KeepsError<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.out.write(buf);
        self.kept(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let flushed = self.out.flush();
        self.kept(flushed)
    }
}

/// Each number of a metrics record, by its name, as a property.
fn properties(test: &mut TestCase, metrics: &impl serde::Serialize) {
    let Ok(serde_json::Value::Object(map)) = serde_json::to_value(metrics) else {
        return;
    };
    for (name, value) in map {
        if let Some(v) = value.as_f64() {
            test.add_property(Property::new(xml(&name), v.to_string()));
        }
    }
}

fn case_status(case: &TestRecord) -> TestCaseStatus {
    // A known failure is pytest's xfail: skipped, with why, and its whole message kept.
    if case.status == crate::record::Status::KnownFailure {
        let mut status = TestCaseStatus::skipped();
        let headline = super::annotations::case_headline(case);
        status.set_message(xml(&format!("known failure: {headline}")));
        if let Some(message) = &case.message {
            status.set_description(xml(message));
        }
        return status;
    }
    match case.passed {
        Some(true) => TestCaseStatus::success(),
        None => {
            let mut status = TestCaseStatus::skipped();
            if let Some(reason) = &case.skip {
                status.set_message(xml(reason));
            }
            status
        }
        Some(false) => {
            // A call that failed is an error of the run, not a wrong answer (JUnit's `<error>`).
            let kind = match &case.error {
                Some(e) if e.kind == crate::evaluate::record::ErrorKind::Call => {
                    NonSuccessKind::Error
                }
                _ => NonSuccessKind::Failure,
            };
            failure(
                kind,
                &super::annotations::case_headline(case),
                case.message.as_deref().unwrap_or("case failed"),
            )
        }
    }
}

/// A failure (or an error): its headline (the reason) as its message, the whole plain message as
/// its text.
fn failure(kind: NonSuccessKind, headline: &str, message: &str) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    status.set_message(xml(headline));
    status.set_description(xml(message));
    status
}

/// Text as XML 1.0 can hold it: control characters shown as every output shows them
/// (`\u{1b}`), and a character XML does not allow besides (U+FFFE, U+FFFF) becomes U+FFFD, as
/// escaping cannot save it (not even as a character reference) and one such character in a value
/// would leave the whole file unreadable.
fn xml(text: &str) -> String {
    super::visible(text)
        .chars()
        .map(|c| if allowed_in_xml(c) { c } else { '\u{FFFD}' })
        .collect()
}

/// XML 1.0's `Char`: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
/// (a Rust `char` is never a surrogate).
fn allowed_in_xml(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that takes `room` bytes, then fails as a full disk does.
    struct Full {
        room: usize,
    }

    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err(std::io::Error::from_raw_os_error(28));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_says_what_the_system_said() {
        let mut junit = Junit::default();
        for i in 0..50 {
            junit.case(&TestRecord::named(&format!("case-{i}"), "cases/a.yaml"));
        }
        let error = junit.write(Full { room: 100 }).unwrap_err();
        assert_eq!(error.raw_os_error(), None);
        assert_eq!(error.kind(), std::io::ErrorKind::StorageFull);
        assert!(
            error.to_string().starts_with("No space left on device"),
            "{error}"
        );
    }

    #[test]
    fn characters_xml_cannot_hold_are_replaced_everywhere() {
        let mut case = TestRecord::named("bad\u{FFFF}name", "cases/bad\u{1}.yaml");
        case.status = crate::record::Status::Failed;
        case.passed = Some(false);
        case.message = Some("case failed: `\u{FFFE}` is not\u{0} exact\nmore \u{1B}[31m".into());
        let mut junit = Junit::default();
        junit.case(&case);
        let mut out = Vec::new();
        junit.write(&mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.chars().all(allowed_in_xml), "{out:?}");
        assert!(out.contains("name=\"bad\u{FFFD}name\""), "{out}");
        assert!(out.contains("file=\"cases/bad\\u{1}.yaml\""), "{out}");
        assert!(
            out.contains("case failed: `\u{FFFD}` is not\\0 exact"),
            "{out}"
        );
        assert!(out.contains("more \\u{1b}[31m"), "{out}");
        // What XML holds stays as it was: tabs, newlines, CJK, emoji.
        assert_eq!(xml("a\tb\nc 名 🦀"), "a\tb\nc 名 🦀");
    }
}
