//! The run summary printed after libtest's result line.

use super::{Styles, comparison_table, num, paint};
use crate::evaluate::aggregate::{Aggregated, RunSummary, is_pipeline_row};

/// `goldgate: 14 cases, 13 passed, 1 failed, 0 ignored; EM 0.9500  ANLS ...`, and what a
/// filter that matched no test ran: nothing.
pub fn summary_line(s: &RunSummary) -> String {
    let mut line = format!(
        "goldgate: {} cases, {} passed, {} failed, {} ignored; mean EM {}, ANLS {}, critical EM {}, critical ANLS {}; Brier {}, ECE {}",
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
    line
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

/// What the end of a run lists beyond its numbers.
#[derive(Debug, Clone, Copy)]
pub struct Notes<'a> {
    /// `test: metric old -> new` beyond the tolerance, upward.
    pub improvements: &'a [String],
    /// Tests the baseline has no entry for yet.
    pub new_cases: &'a [String],
    /// `test: metric old -> new` beyond the tolerance, downward (the tests printed them already;
    /// `goldgate report` lists them again).
    pub regressions: &'a [String],
    /// Each pipeline against its reference.
    pub comparisons: &'a [crate::evaluate::paired::Paired],
    /// Each pipeline per tag value (empty when no case has a tag).
    pub slices: &'a [crate::evaluate::aggregate::SliceRow],
    /// Why a declared baseline file could not be compared with (it does not exist, or does not
    /// read), once each; a missing one is said only here, its tests say where to look.
    pub baseline_errors: &'a [String],
    /// What the gold sets' metadata tables and cases do not match: listed after the run.
    pub gold_sets: &'a [crate::load::cases::GoldSetNote],
    /// Usages whose parts do not add up to their totals, once per prediction file.
    pub usage_mismatches: &'a [crate::model::prediction::UsageMismatch],
    /// Each pipeline's regression gate (`regression_gate`), whose power lines follow the
    /// comparison.
    pub gates: &'a [(Option<String>, crate::record::RegressionGateRecord)],
    /// The misses by kind, per pipeline, field and slice.
    pub misses: &'a [crate::evaluate::analysis::MissRow],
    /// Per pipeline and field with confidences, when values may be accepted automatically.
    pub acceptance: &'a [crate::evaluate::analysis::FieldAcceptance],
    /// Per pipeline whose suite gives `acceptance` thresholds, every field's values pooled.
    pub pooled: &'a [crate::evaluate::analysis::PooledAcceptance],
}

/// The end of a run: the summary line, the comparison of pipelines (when there are any), then
/// regressions, improvements and new tests.
pub fn run_end(summary: &RunSummary, pipelines: &[(String, Aggregated)], notes: &Notes) -> String {
    let mut out = format!("{}\n", paint(Styles::HEADING, summary_line(summary)));
    if pipelines.iter().any(|(name, _)| is_pipeline_row(name)) {
        out.push('\n');
        out.push_str(&comparison_table(pipelines));
        let kieval = super::compare::kieval_table(pipelines);
        if !kieval.is_empty() {
            out.push('\n');
            out.push_str(&kieval);
        }
        out.push_str(&super::compare::paired_lines(notes.comparisons));
    }
    let repeated = super::compare::repeat_table(pipelines);
    if !repeated.is_empty() {
        out.push('\n');
        out.push_str(&repeated);
    }
    for (pipeline, gate) in notes.gates {
        if let Some(line) = super::gate::power_line(pipeline.as_deref(), gate) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    let grounding = super::compare::grounding_table(pipelines);
    if !grounding.is_empty() {
        out.push('\n');
        out.push_str(&grounding);
    }
    if !notes.slices.is_empty() {
        out.push('\n');
        out.push_str(&super::compare::slice_table(notes.slices));
    }
    let misses = super::analysis::miss_table(notes.misses);
    if !misses.is_empty() {
        out.push('\n');
        out.push_str(&misses);
    }
    let advice = super::analysis::advice_table(notes.acceptance);
    if !advice.is_empty() {
        out.push('\n');
        out.push_str(&advice);
    }
    let pooled = super::analysis::table_text(&super::analysis::pooled_table(notes.pooled));
    if !pooled.is_empty() {
        out.push('\n');
        out.push_str(&pooled);
    }
    for line in notes.regressions {
        out.push_str(&format!(
            "regressed beyond the baseline's tolerance, {line}\n"
        ));
    }
    for line in notes.improvements {
        out.push_str(&format!(
            "improved beyond the baseline's tolerance, {line} (tighten it with GOLDGATE_UPDATE=always)\n"
        ));
    }
    if !notes.new_cases.is_empty() {
        out.push_str(&format!(
            "new, not in the baseline yet: {}\n",
            notes.new_cases.join(", ")
        ));
    }
    for why in notes.baseline_errors {
        out.push_str(&format!("error: {why}\n"));
    }
    for note in notes.gold_sets {
        out.push_str(&gold_set_note(note));
    }
    for m in notes.usage_mismatches {
        out.push_str(&super::prediction::usage_mismatch(m));
        out.push('\n');
    }
    out.push('\n');
    out
}

/// A record of a gold set's metadata table that names no case, or a case that no record names.
fn gold_set_note(note: &crate::load::cases::GoldSetNote) -> String {
    use crate::load::cases::GoldSetNote;
    match note {
        GoldSetNote::RecordWithoutCase { metadata, key } => format!(
            "metadata: the record `{key}` of `{}` names no case (no gold file of that name)\n",
            metadata.display()
        ),
        GoldSetNote::CaseWithoutRecord { metadata, case } => format!(
            "metadata: no record of `{}` names the case `{case}` (it has no attributes)\n",
            metadata.display()
        ),
    }
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
}
