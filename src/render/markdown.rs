//! The Markdown page a run appends to `GITHUB_STEP_SUMMARY` (SPEC §11): the summary, the
//! comparison of pipelines, the failing tests with their verdict and `file:line`, regressions and
//! improvements; at most 1 MiB, as GitHub takes no more.

use super::compare::comparison_cells;
use super::num;
use super::summary::Notes;
use crate::evaluate::aggregate::{Aggregated, NO_PIPELINE, RunSummary};
use crate::record::{AggregateRecord, TestRecord};

/// GitHub refuses a step summary over 1 MiB.
pub const STEP_SUMMARY_LIMIT: usize = 1024 * 1024;

/// The step summary of a run, at most `limit` bytes: what does not fit is counted, not cut.
pub fn step_summary(
    summary: &RunSummary,
    pipelines: &[(String, Aggregated)],
    cases: &[TestRecord],
    aggregates: &[AggregateRecord],
    notes: &Notes,
    limit: usize,
) -> String {
    let m = &summary.metrics;
    let mut page = format!(
        "## goldgate\n\n**{} cases: {} passed, {} failed, {} ignored** · mean EM {} · ANLS {} · critical EM {} · critical ANLS {} · Brier {} · ECE {}\n",
        summary.cases,
        summary.passed,
        summary.failed,
        summary.ignored,
        num(m.exact_match),
        num(m.anls),
        num(m.exact_critical),
        num(m.anls_critical),
        num(m.brier),
        num(m.ece)
    );
    if pipelines.iter().any(|(name, _)| name != NO_PIPELINE) {
        page.push_str(&pipelines_table(pipelines));
    }
    let items = listed(cases, aggregates, notes);
    let mut heading = String::new();
    for (i, (section, item)) in items.iter().enumerate() {
        let head = if *section != heading {
            format!("\n### {section}\n\n")
        } else {
            String::new()
        };
        // Keep room for the line that says what was left out.
        if page.len() + head.len() + item.len() + 200 > limit {
            page.push_str(&format!(
                "\n… {} more lines left out: GitHub takes at most 1 MiB; the report has them all.\n",
                items.len() - i
            ));
            break;
        }
        page.push_str(&head);
        page.push_str(item);
        heading.clone_from(section);
    }
    page.push('\n');
    page
}

/// The page's list items, each with its section: failing tests, regressions, improvements.
fn listed(
    cases: &[TestRecord],
    aggregates: &[AggregateRecord],
    notes: &Notes,
) -> Vec<(String, String)> {
    let mut items: Vec<(String, String)> = Vec::new();
    for case in cases.iter().filter(|c| c.passed == Some(false)) {
        let at = case
            .place()
            .map(|(file, line)| {
                if line > 0 {
                    format!(" — `{file}:{line}`")
                } else {
                    format!(" — `{file}`")
                }
            })
            .unwrap_or_default();
        items.push((
            "Failing tests".into(),
            format!(
                "- `{}` — {}{at}\n",
                case.id,
                cell(case.verdict_line().unwrap_or("failed"))
            ),
        ));
    }
    for a in aggregates.iter().filter(|a| !a.passed) {
        let verdict = a
            .message
            .as_deref()
            .and_then(|m| m.lines().next())
            .unwrap_or("failed");
        items.push((
            "Failing tests".into(),
            format!("- `{}` — {} — `{}`\n", a.id, cell(verdict), a.place()),
        ));
    }
    for line in notes.regressions {
        items.push(("Regressions".into(), format!("- {}\n", cell(line))));
    }
    for line in notes.improvements {
        items.push((
            "Improvements beyond the tolerance".into(),
            format!("- {}\n", cell(line)),
        ));
    }
    items
}

/// The comparison of pipelines as a Markdown table.
fn pipelines_table(pipelines: &[(String, Aggregated)]) -> String {
    let mut page = String::new();
    page.push_str("\n| pipeline | EM | ANLS | crit. EM | crit. ANLS | Brier | ECE | p50 ms | p95 ms | cost/case | pass | gate | score | MR acc. | EW acc. |\n");
    page.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (name, a) in pipelines {
        page.push_str(&format!(
            "| {} | {} |\n",
            cell(name),
            comparison_cells(a).join(" | ")
        ));
    }
    page
}

/// A table cell or list item on one line: `|` escaped, newlines folded.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failing(i: usize) -> TestRecord {
        let mut case = TestRecord::named(
            &format!("invoices/case-{i:05}::guided"),
            &format!("cases/invoices/case-{i:05}.yaml"),
        );
        case.status = crate::record::Status::Failed;
        case.passed = Some(false);
        case.message =
            Some("case failed: gate closed by must_right `total` (score 0.0000)\nmore".into());
        case.rubrics = vec![crate::record::RubricRecord {
            label: "total".into(),
            kind: "must_right".into(),
            check: "exact".into(),
            field: Some("total".into()),
            held: false,
            checked: true,
            penalty: 0.0,
            finding: crate::evaluate::finding::Finding::NoGold,
            file: "cases/invoices/suite.yaml".into(),
            line: 7,
            column: 5,
        }];
        case
    }

    #[test]
    fn a_page_never_passes_its_limit_and_says_what_it_left_out() {
        let cases: Vec<TestRecord> = (0..5000).map(failing).collect();
        let notes = Notes {
            improvements: &[],
            new_cases: &[],
            regressions: &[],
            comparisons: &[],
        };
        let summary = RunSummary::default();
        let page = step_summary(&summary, &[], &cases, &[], &notes, 64 * 1024);
        assert!(page.len() <= 64 * 1024, "{} bytes", page.len());
        let listed = page.matches("\n- `invoices/").count();
        assert!(listed > 100 && listed < 5000, "{listed}");
        assert!(
            page.contains(&format!(
                "\n… {} more lines left out: GitHub takes at most 1 MiB",
                5000 - listed
            )),
            "{}",
            &page[page.len() - 300..]
        );
        assert!(page.contains("- `invoices/case-00000::guided` — case failed: gate closed by must_right `total` (score 0.0000) — `cases/invoices/suite.yaml:7`\n"));
        let whole = step_summary(&summary, &[], &cases, &[], &notes, STEP_SUMMARY_LIMIT);
        assert_eq!(whole.matches("\n- `invoices/").count(), 5000);
    }
}
