//! The run summary printed after libtest's result line.

use super::{Styles, comparison_table, num, paint};
use crate::evaluate::aggregate::{NeverEnded, RunSummary, is_pipeline_row};
use crate::record::run_end::RunEnd;

/// `goldgate: 14 cases, 13 passed, 1 failed, 0 ignored; EM 0.9500  ANLS ...`, and what a
/// filter that matched no test ran: nothing.
pub fn summary_line(s: &RunSummary) -> String {
    // Known failures are said where there are any: a run without a baseline has none.
    let known = match s.known_failures {
        0 => String::new(),
        1 => ", 1 known failure".to_owned(),
        n => format!(", {n} known failures"),
    };
    let mut line = format!(
        "goldgate: {} cases, {} passed, {} failed{known}, {} ignored; mean EM {}, ANLS {}, critical EM {}, critical ANLS {}; Brier {}, ECE {}",
        s.cases,
        s.passed,
        s.failed,
        s.ignored,
        num(s.metrics.exact_match),
        num(s.metrics.anls),
        num(s.metrics.exact_critical),
        num(s.metrics.anls_critical),
        num(s.metrics.brier),
        num(s.metrics.ece),
    );
    if let Some(filter) = &s.unmatched_filter {
        line.push_str(&format!(
            "; the filter `{filter}` matched no test, so none ran (`--list` shows their names)"
        ));
    }
    if let Some(never) = never_ran_line(&s.never_ran) {
        line.push('\n');
        line.push_str(&never);
    }
    if let Some(never) = &s.never_ended {
        line.push('\n');
        line.push_str(&never_ended_line(never));
    }
    line
}

/// `INCOMPLETE: the run never ended …`: a process of it was killed, and its numbers are of the
/// tests it recorded, not of the run.
pub fn never_ended_line(never: &NeverEnded) -> String {
    let processes = match never.processes {
        1 => "a process of it was".to_owned(),
        n => format!("{n} processes of it were"),
    };
    let missing = match never.no_record.as_slice() {
        [] => "every test it began has a record".to_owned(),
        [one] => format!("1 test has no record: `{one}`"),
        [first, rest @ ..] => format!(
            "{} tests have no record: `{first}` and {} more",
            rest.len() + 1,
            rest.len()
        ),
    };
    format!(
        "INCOMPLETE: the run never ended ({processes} killed before its end); {missing}: these numbers are not the run's, run the tests again"
    )
}

/// `23 tests of this run never ran (…)`, when a split run stopped early.
pub fn never_ran_line(never_ran: &[String]) -> Option<String> {
    let (n, first) = (never_ran.len(), never_ran.first()?);
    let tests = if n == 1 { "test" } else { "tests" };
    let named = match n {
        1 => format!("`{first}`"),
        _ => format!("`{first}` and {} more", n - 1),
    };
    Some(format!(
        "{n} {tests} of this run never ran (nextest stopped at the first failure: pass --no-fail-fast): {named}"
    ))
}

/// Whether the end of a run lists its tests' regressions beyond their tolerance: a run in one
/// process printed them as its tests failed; the end of a split run lists them again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regressions {
    /// Listed.
    Listed,
    /// Said by the failures already.
    SaidBefore,
}

/// The end of a run: the summary line, the comparison of pipelines (when there are any), then
/// regressions, improvements and new tests; what the gate made of the run comes last
/// ([`super::gate_line`]).
pub fn run_end(end: &RunEnd, regressions: Regressions) -> String {
    let summary = &end.summary;
    let mut out = format!("{}\n", paint(Styles::HEADING, summary_line(summary)));
    if let Some(calls) = &summary.calls {
        out.push_str(&calls_line(calls));
        out.push('\n');
    }
    tables(&mut out, end);
    baseline_lines(&mut out, end, regressions);
    for note in &end.gold_sets {
        out.push_str(&gold_set_note(note));
    }
    for m in &end.usage_mismatches {
        out.push_str(&super::prediction::usage_mismatch(m));
        out.push('\n');
    }
    if let Some(line) = failed_calls_scored(&end.failed_calls_scored) {
        out.push_str(&line);
    }
    if let Some(digest) = &summary.gold_digest {
        // A line of its own, apart from the tables and notes above.
        out.push('\n');
        out.push_str(&gold_digest_line(digest));
    }
    out.push('\n');
    out
}

/// The run's tables, each after a blank line: the pipelines compared (with KIEval's scores and
/// the paired comparisons' lines), repeated cases (with the gates' power lines), grounding,
/// slices, misses, the advice on confidences and the pooled acceptance; a table without rows is
/// left out.
fn tables(out: &mut String, end: &RunEnd) {
    let pipelines = &end.pipelines[..];
    let table = |out: &mut String, text: &str| {
        if !text.is_empty() {
            out.push('\n');
            out.push_str(text);
        }
    };
    if pipelines.iter().any(|(name, _)| is_pipeline_row(name)) {
        out.push('\n');
        out.push_str(&comparison_table(pipelines));
        table(out, &super::compare::kieval_table(pipelines));
        out.push_str(&super::compare::paired_lines(&end.comparisons));
    }
    table(out, &super::compare::repeat_table(pipelines));
    for (pipeline, gate) in &end.gates {
        let pipeline = pipeline.as_deref();
        let improved = super::gate::improvement_line(pipeline, gate);
        for line in improved
            .into_iter()
            .chain(super::gate::power_line(pipeline, gate))
        {
            out.push_str(&line);
            out.push('\n');
        }
    }
    table(out, &super::compare::grounding_table(pipelines));
    if !end.slices.is_empty() {
        out.push('\n');
        out.push_str(&super::compare::slice_table(&end.slices));
    }
    table(out, &super::analysis::miss_table(&end.misses));
    table(out, &super::analysis::advice_table(&end.acceptance));
    table(out, &super::analysis::pooled_table(&end.pooled).text());
}

/// What the run says of its baselines: regressions and improvements beyond their tolerance, new
/// tests, and baselines that could not be read.
fn baseline_lines(out: &mut String, end: &RunEnd, regressions: Regressions) {
    if regressions == Regressions::Listed {
        for (test, changes) in &end.regressions {
            out.push_str(&format!(
                "regressed beyond the baseline's tolerance, {test}: {}\n",
                describe(changes)
            ));
        }
    }
    for (test, changes) in &end.improvements {
        out.push_str(&format!(
            "improved beyond the baseline's tolerance, {test}: {} (tighten it with GOLDGATE_UPDATE=always)\n",
            describe(changes)
        ));
    }
    if !end.new_cases.is_empty() {
        out.push_str(&format!(
            "new, not in the baseline yet: {}\n",
            end.new_cases.join(", ")
        ));
    }
    for why in &end.baseline_errors {
        out.push_str(&format!("error: {why}\n"));
    }
}

/// The gold set's identity, short as git shortens a commit: runs on another digest were scored
/// against other gold.
pub fn gold_digest_line(digest: &str) -> String {
    format!(
        "gold digest: {} (of the gold values and rules; the report has it whole)\n",
        crate::evaluate::digest::short(digest)
    )
}

/// How many calls of the suites' `run:` commands the run made, and how many outputs it took from
/// the cache with what their calls took when they were made.
pub fn calls_line(calls: &crate::model::prediction::CallTally) -> String {
    let mut made = format!("{} made", calls.called);
    if calls.spent_cost_usd > 0.0 {
        made.push_str(&format!(" for ${:.4}", calls.spent_cost_usd));
    }
    let mut about: Vec<String> = Vec::new();
    match calls.retries {
        0 => {}
        1 => about.push("1 a retry".into()),
        n => about.push(format!("{n} retries")),
    }
    // "After their retries" only where there were retries: a suite without `retries` made none.
    match (calls.errors, calls.retries) {
        (0, _) => {}
        (1, 0) => about.push("1 call error".into()),
        (n, 0) => about.push(format!("{n} call errors")),
        (1, _) => about.push("1 call error: failed after its retries".into()),
        (n, _) => about.push(format!("{n} call errors: failed after their retries")),
    }
    if !about.is_empty() {
        made.push_str(&format!(" ({})", about.join(", ")));
    }
    if calls.cached == 0 {
        return format!("calls: {made}, none from the cache");
    }
    let cost = if calls.saved_cost_usd > 0.0 {
        format!(" and ${:.4}", calls.saved_cost_usd)
    } else {
        String::new()
    };
    let outputs = if calls.cached == 1 {
        "output"
    } else {
        "outputs"
    };
    format!(
        "calls: {made}, {} {outputs} from the cache (their calls took {}{cost} when they were made)",
        calls.cached,
        seconds(calls.saved_latency_ms)
    )
}

/// Milliseconds as a person reads a duration: `850 ms`, `8.1 s`, `12 min 5 s`.
fn seconds(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else if ms < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as u64;
        format!("{} min {} s", s / 60, s % 60)
    }
}

/// How many tests were failed calls that still count in their pipeline's mean, and which.
fn failed_calls_scored(tests: &[String]) -> Option<String> {
    let (first, rest) = tests.split_first()?;
    let named = match rest.len() {
        0 => format!("`{first}`"),
        1 => format!("`{first}` and `{}`", rest[0]),
        n => format!("`{first}` and {n} more"),
    };
    let (count, were) = match tests.len() {
        1 => ("1 test".to_owned(), "was a failed call"),
        n => (format!("{n} tests"), "were failed calls"),
    };
    Some(format!(
        "{count} {were} ({named}): failing, and scored as DocuBench's scorer scores a failed call (its fields as written, `{{}}` when missing), so counted in their pipeline's mean\n"
    ))
}

/// A record of a gold set's metadata table that names no case, or a case that no record names.
fn gold_set_note(note: &crate::load::cases::GoldSetNote) -> String {
    use crate::load::cases::GoldSetNote;
    match note {
        GoldSetNote::RecordsWithoutCase { metadata, records } => match records.first.as_slice() {
            [(_, key)] if records.count == 1 => format!(
                "metadata: the record `{key}` of `{}` names no case (no gold file of that name)\n",
                metadata.display()
            ),
            first => {
                let named: Vec<String> = first
                    .iter()
                    .map(|(line, key)| match line {
                        0 => format!("`{key}`"),
                        line => format!("line {line} `{key}`"),
                    })
                    .collect();
                let more = if records.count > first.len() as u64 {
                    ", …"
                } else {
                    ""
                };
                format!(
                    "metadata: {} records of `{}` name no case (no gold file of those names; first: {}{more})\n",
                    grouped(records.count),
                    metadata.display(),
                    named.join(", ")
                )
            }
        },
        GoldSetNote::CaseWithoutRecord { metadata, case } => format!(
            "metadata: no record of `{}` names the case `{case}` (it has no attributes)\n",
            metadata.display()
        ),
    }
}

/// A count with its thousands apart: `1,770,000`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// `anls 0.9500 -> 0.9000, field `total` EM 1.0000 -> 0.0000, brier 0.1000 -> absent`: changes
/// as messages list them.
pub fn describe(list: &[crate::evaluate::baseline::Change]) -> String {
    list.iter()
        .map(|c| {
            let name = match crate::evaluate::baseline::field_of(&c.metric) {
                Some((field, metric)) => format!("field `{field}` {}", metric.to_uppercase()),
                None => c.metric.clone(),
            };
            if c.new.is_nan() {
                format!("{name} {:.4} -> absent", c.old)
            } else {
                format!("{name} {:.4} -> {:.4}", c.old, c.new)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_errors_are_after_their_retries_only_when_there_were_retries() {
        use crate::model::prediction::CallTally;
        let none = CallTally {
            called: 5,
            errors: 5,
            ..CallTally::default()
        };
        assert_eq!(
            calls_line(&none),
            "calls: 5 made (5 call errors), none from the cache"
        );
        let retried = CallTally {
            called: 10,
            retries: 5,
            errors: 5,
            ..CallTally::default()
        };
        assert_eq!(
            calls_line(&retried),
            "calls: 10 made (5 retries, 5 call errors: failed after their retries), none from the cache"
        );
    }

    #[test]
    fn a_filter_that_matched_no_test_is_said() {
        let mut s = RunSummary::default();
        let plain = "goldgate: 0 cases, 0 passed, 0 failed, 0 ignored; mean EM -, ANLS -, critical EM -, critical ANLS -; Brier -, ECE -";
        assert_eq!(summary_line(&s), plain);
        s.unmatched_filter = Some("invoice/".into());
        assert_eq!(
            summary_line(&s),
            format!(
                "{plain}; the filter `invoice/` matched no test, so none ran (`--list` shows their names)"
            )
        );
    }

    #[test]
    fn a_run_that_never_ended_names_its_tests_without_a_record() {
        let never = |processes, names: &[&str]| NeverEnded {
            processes,
            no_record: names.iter().map(|n| n.to_string()).collect(),
        };
        assert_eq!(
            never_ended_line(&never(3, &["a", "b", "c"])),
            "INCOMPLETE: the run never ended (3 processes of it were killed before its end); 3 tests have no record: `a` and 2 more: these numbers are not the run's, run the tests again"
        );
        let mut s = crate::evaluate::aggregate::summarize(&[]);
        s.never_ended = Some(never(1, &["x::guided"]));
        assert!(
            summary_line(&s).ends_with("\nINCOMPLETE: the run never ended (a process of it was killed before its end); 1 test has no record: `x::guided`: these numbers are not the run's, run the tests again"),
            "{}",
            summary_line(&s)
        );
    }
}
