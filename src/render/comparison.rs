//! Two runs compared (`goldgate report --compare BASE HEAD`), written two ways from one
//! [`RunComparison`]: for the terminal, and as a pull-request comment (`--markdown`) that stays
//! within GitHub's 65,536 characters by leaving out its least important rows, and says so.

use std::fmt::Write;

use super::compare::interval_text;
use super::markdown::{code, escaped, table_markdown};
use super::table::{Column, Table};
use crate::record::compare::{
    ChangeKind, FailedGate, FieldChange, GoldChange, PipelineChange, RunComparison, TestChange,
};

/// The most characters GitHub keeps of a comment's body.
pub const COMMENT_LIMIT: usize = 65_536;

/// Where the whole comparison is, for the comment's line about the rows it left out.
#[derive(Debug, Clone, PartialEq)]
pub enum FullComparison {
    /// A page the comment links to (`--page-url`).
    Page(String),
    /// HEAD's report file.
    Report(String),
    /// HEAD's run, by id.
    Run(String),
}

/// How many fields a test's row names before `and N more`.
const FIELDS_SHOWN: usize = 3;
/// The longest prediction a row quotes, in characters.
const VALUE_SHOWN: usize = 60;

/// The comparison for the terminal: the runs, the gold, HEAD's verdict, a table per pipeline,
/// then the tests that changed, each kind under its heading.
pub fn comparison_text(c: &RunComparison) -> String {
    let mut out = format!("comparing BASE `{}` with HEAD `{}`\n", c.base, c.head);
    let _ = writeln!(out, "{}", gold_line(&c.gold));
    let _ = writeln!(out, "HEAD: {}", verdict_text(c));
    for p in &c.pipelines {
        let _ = write!(
            out,
            "\n{}:\n{}",
            pipeline_heading(p),
            pipeline_table(p).text()
        );
    }
    for kind in KINDS {
        let tests: Vec<&TestChange> = c.tests.iter().filter(|t| t.kind == kind).collect();
        if tests.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{} ({}):", kind_name(kind), tests.len());
        for t in tests {
            let _ = writeln!(out, "  {}: {}", t.test, test_summary(t));
            for f in &t.fields {
                let _ = writeln!(out, "    {}", field_text(f, false));
            }
        }
    }
    if c.tests.is_empty() {
        out.push_str("\nno test changed\n");
    }
    out
}

/// The comparison as a pull-request comment: one verdict line, the runs and the gold, a table
/// per pipeline, then the tests that changed (regressed first), cut to [`COMMENT_LIMIT`]
/// characters by leaving out the last rows, with a line saying how many and where all is.
pub fn comparison_markdown(c: &RunComparison, full: &FullComparison) -> String {
    let mut out = format!("{}\n\n", markdown_verdict(c));
    let _ = writeln!(
        out,
        "BASE {} → HEAD {} · {}\n",
        code(&c.base),
        code(&c.head),
        escaped(&gold_line(&c.gold))
    );
    for p in &c.pipelines {
        let _ = write!(
            out,
            "#### {}\n\n{}\n",
            escaped(&pipeline_heading(p)),
            table_markdown(&pipeline_table(p)).trim_start()
        );
    }
    let sections: Vec<(ChangeKind, Vec<String>)> = KINDS
        .iter()
        .map(|&kind| {
            let rows = c
                .tests
                .iter()
                .filter(|t| t.kind == kind)
                .map(|t| markdown_row(&test_cells(t)))
                .collect();
            (kind, rows)
        })
        .filter(|(_, rows): &(ChangeKind, Vec<String>)| !rows.is_empty())
        .collect();
    let total: usize = sections.iter().map(|(_, rows)| rows.len()).sum();
    // Room for the line about rows left out, whatever their number.
    let reserve = left_out_line(total, full).chars().count() + 2;
    let mut used = out.chars().count();
    let mut shown = 0;
    'sections: for (kind, rows) in &sections {
        let head = format!(
            "#### {} ({})\n\n{}",
            kind_name(*kind),
            rows.len(),
            tests_table_head()
        );
        let mut part = String::new();
        for row in rows {
            let extra = if part.is_empty() {
                head.chars().count()
            } else {
                0
            };
            if used + extra + row.chars().count() + 1 + reserve > COMMENT_LIMIT {
                if !part.is_empty() {
                    out.push_str(&part);
                    out.push('\n');
                }
                break 'sections;
            }
            if part.is_empty() {
                part.push_str(&head);
            }
            part.push_str(row);
            used += extra + row.chars().count();
            shown += 1;
        }
        out.push_str(&part);
        out.push('\n');
        used += 1;
    }
    if shown < total {
        out.push_str(&left_out_line(total - shown, full));
        out.push('\n');
    }
    out
}

/// `_12 rows left out to stay within GitHub's 65,536 characters: the full comparison is …_`.
fn left_out_line(n: usize, full: &FullComparison) -> String {
    let rows = if n == 1 { "row" } else { "rows" };
    let whole = match full {
        FullComparison::Page(url) => format!("[the full page]({url})"),
        FullComparison::Report(file) => {
            format!("the full comparison is `goldgate report --compare` on the report `{file}`")
        }
        FullComparison::Run(id) => {
            format!("the full comparison is `goldgate report --compare` on the run `{id}`")
        }
    };
    format!("_{n} {rows} left out to stay within GitHub's 65,536 characters: {whole}_")
}

const KINDS: [ChangeKind; 4] = [
    ChangeKind::Regressed,
    ChangeKind::Improved,
    ChangeKind::New,
    ChangeKind::Removed,
];

fn kind_name(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Regressed => "regressed",
        ChangeKind::Improved => "improved",
        ChangeKind::New => "new",
        ChangeKind::Removed => "removed",
    }
}

fn gold_line(gold: &GoldChange) -> String {
    match gold {
        GoldChange::Same => "the same gold in both runs".to_owned(),
        GoldChange::Unknown => {
            "gold not compared (a report has no gold digest: it was written by an older goldgate)"
                .to_owned()
        }
        GoldChange::Different(tests) if tests.is_empty() => {
            "the same gold for every test both runs hold (the gold sets differ by the tests added or removed)".to_owned()
        }
        GoldChange::Different(tests) => {
            let named: Vec<&str> = tests.iter().take(10).map(String::as_str).collect();
            let more = match tests.len().saturating_sub(named.len()) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            format!(
                "different gold: the gold or rules of {} changed ({}{more}), so their differences are not the pipeline's alone",
                plural(tests.len(), "test"),
                named.join(", ")
            )
        }
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// `1 of 2 aggregate gates failed: … ; 3 of 40 case tests failed`, or `all passed: …`.
fn verdict_text(c: &RunComparison) -> String {
    let v = &c.verdict;
    let cases = format!("{} of {} case tests failed", v.failed_cases, v.cases);
    if v.failed_gates.is_empty() {
        let gates = match v.aggregates {
            0 => String::new(),
            n => format!(", {} held", plural(n, "aggregate gate")),
        };
        return if v.failed_cases == 0 {
            format!("all passed ({} case tests{gates})", v.cases)
        } else {
            format!("{cases}{gates}")
        };
    }
    let gates: Vec<String> = v.failed_gates.iter().map(gate_text).collect();
    format!(
        "{} of {} failed: {}; {cases}",
        v.failed_gates.len(),
        plural(v.aggregates, "aggregate gate"),
        gates.join("; ")
    )
}

fn markdown_verdict(c: &RunComparison) -> String {
    let v = &c.verdict;
    let mark = if v.failed_gates.is_empty() && v.failed_cases == 0 {
        "✅"
    } else {
        "❌"
    };
    format!("{mark} **goldgate**: {}", escaped(&verdict_text(c)))
}

/// `cases::aggregate::llm (regression gate: ANLS -0.1177 [-0.1600, -0.0800])`.
fn gate_text(g: &FailedGate) -> String {
    let mut why: Vec<String> = Vec::new();
    if let Some(r) = &g.regression {
        why.push(format!(
            "regression gate: {} {}",
            r.metric,
            interval_text(r.difference.as_ref())
        ));
    }
    for t in &g.bounds {
        let value = t
            .value
            .map_or_else(|| "none".to_owned(), |v| format!("{v:.4}"));
        why.push(format!("{} {}, got {value}", t.name, t.limit));
    }
    for s in &g.slices {
        why.push(format!("slice {s}"));
    }
    format!("{} ({})", g.test, why.join(", "))
}

fn pipeline_heading(p: &PipelineChange) -> String {
    format!("{}, {} in both runs", p.pipeline, plural(p.paired, "test"))
}

/// A pipeline's metrics in each run, with the paired difference and whether it is significant.
fn pipeline_table(p: &PipelineChange) -> Table {
    let figure = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"));
    let percent =
        |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{:.1}%", v * 100.0));
    let yes_no = |s: Option<bool>| match s {
        Some(true) => "yes".to_owned(),
        Some(false) => "no".to_owned(),
        None => "-".to_owned(),
    };
    let mut rows: Vec<Vec<String>> = p
        .metrics
        .iter()
        .filter(|m| m.base.is_some() || m.head.is_some())
        .map(|m| {
            vec![
                m.metric.to_owned(),
                figure(m.base),
                figure(m.head),
                interval_text(m.difference.as_ref()),
                yes_no(m.significant()),
            ]
        })
        .collect();
    let m = &p.mcnemar;
    rows.push(vec![
        "pass rate".to_owned(),
        percent(p.pass_rate.0),
        percent(p.pass_rate.1),
        format!(
            "passed only in BASE {}, only in HEAD {} (McNemar p = {:.4})",
            m.only_reference, m.only_pipeline, m.p_value
        ),
        yes_no((p.paired > 0).then_some(m.p_value < 0.05)),
    ]);
    Table::new(
        vec![
            Column::name("metric"),
            Column::count("base", 6),
            Column::count("head", 6),
            Column::text("HEAD − BASE, 95 % interval"),
            Column::text("significant"),
        ],
        rows,
    )
}

fn tests_table_head() -> String {
    "| test | verdict | metric | fields: BASE → HEAD |\n|---|---|---|---|\n".to_owned()
}

/// A row of a table of tests: its cells are Markdown already (code spans, `<br>` between
/// fields); a `|` in them is escaped, which GFM undoes inside a code span too.
fn markdown_row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    format!("| {} |\n", cells.join(" | "))
}

fn verdict_word(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "passed",
        Some(false) => "failed",
        None => "-",
    }
}

/// `passed → failed; ANLS 1.0000 → 0.8000 (gold changed)`.
fn test_summary(t: &TestChange) -> String {
    let mut parts = vec![verdict_change(t)];
    if let Some(metric) = metric_change(t) {
        parts.push(metric);
    }
    if t.gold_changed {
        parts.push("its gold changed".to_owned());
    }
    parts.join("; ")
}

fn verdict_change(t: &TestChange) -> String {
    match t.kind {
        ChangeKind::New => verdict_word(t.passed.1).to_owned(),
        ChangeKind::Removed => format!("{} in BASE", verdict_word(t.passed.0)),
        _ => format!(
            "{} → {}",
            verdict_word(t.passed.0),
            verdict_word(t.passed.1)
        ),
    }
}

fn metric_change(t: &TestChange) -> Option<String> {
    let (name, old, new) = t.metric?;
    let figure = |v: Option<f64>| v.map(|v| format!("{v:.4}"));
    Some(match (figure(old), figure(new)) {
        (Some(o), Some(n)) => format!("{name} {o} → {n}"),
        (Some(o), None) => format!("{name} {o}"),
        (None, Some(n)) => format!("{name} {n}"),
        (None, None) => return None,
    })
}

fn test_cells(t: &TestChange) -> Vec<String> {
    let mut verdict = verdict_change(t);
    if t.gold_changed {
        verdict.push_str(" (gold changed)");
    }
    let mut fields: Vec<String> = t
        .fields
        .iter()
        .take(FIELDS_SHOWN)
        .map(|f| field_text(f, true))
        .collect();
    if t.fields.len() > FIELDS_SHOWN {
        fields.push(format!("and {} more", t.fields.len() - FIELDS_SHOWN));
    }
    vec![
        code(&t.test),
        escaped(&verdict),
        escaped(&metric_change(t).unwrap_or_else(|| "-".to_owned())),
        if fields.is_empty() {
            "-".to_owned()
        } else {
            fields.join("<br>")
        },
    ]
}

/// `total: "10.00" → "10.0"`; in Markdown each value as code. A side that kept no fields (its
/// test passed) reads `passed`, and gold's value follows, which that side matched or came near.
fn field_text(f: &FieldChange, markdown: bool) -> String {
    let side = |v: &Option<String>| match v {
        None if markdown => "_passed_".to_owned(),
        None => "(passed)".to_owned(),
        Some(v) if markdown => code(&shortened(v)),
        Some(v) => shortened(v),
    };
    let name = if markdown {
        code(&f.field)
    } else {
        f.field.clone()
    };
    let gold = match (&f.gold, f.old.is_none() || f.new.is_none()) {
        (Some(gold), true) => format!(" (gold {})", side(&Some(gold.clone()))),
        _ => String::new(),
    };
    format!("{name}: {} → {}{gold}", side(&f.old), side(&f.new))
}

fn shortened(text: &str) -> String {
    if text.chars().count() <= VALUE_SHOWN {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(VALUE_SHOWN - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_left_out_line_names_where_the_whole_is() {
        assert_eq!(
            left_out_line(1, &FullComparison::Page("https://x/y".into())),
            "_1 row left out to stay within GitHub's 65,536 characters: [the full page](https://x/y)_"
        );
        assert_eq!(
            left_out_line(4980, &FullComparison::Report("head.json".into())),
            "_4980 rows left out to stay within GitHub's 65,536 characters: the full comparison is `goldgate report --compare` on the report `head.json`_"
        );
    }
}
