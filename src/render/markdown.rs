//! The Markdown page a run appends to `GITHUB_STEP_SUMMARY`: the summary, the
//! comparison of pipelines, the failing tests with their verdict and `file:line`, regressions and
//! improvements; at most 1 MiB, as GitHub takes no more.

use super::num;
use super::table::{Kind, Table};
use crate::evaluate::aggregate::{Aggregated, is_pipeline_row};
use crate::record::run_end::RunEnd;
use crate::record::{AggregateRecord, Status, TestRecord};

/// GitHub refuses a step summary over 1 MiB.
pub const STEP_SUMMARY_LIMIT: usize = 1024 * 1024;

/// The step summary of a run, at most `limit` bytes: what does not fit is counted, not cut.
pub fn step_summary(
    end: &RunEnd,
    fields: &[crate::evaluate::aggregate::FieldStat],
    cases: &[TestRecord],
    aggregates: &[AggregateRecord],
    limit: usize,
) -> String {
    let (summary, pipelines) = (&end.summary, &end.pipelines[..]);
    let m = &summary.metrics;
    let known = match summary.known_failures {
        0 => String::new(),
        n => format!(", {n} known failure{}", if n == 1 { "" } else { "s" }),
    };
    let mut page = format!(
        "## goldgate\n\n**{} cases: {} passed, {} failed{known}, {} ignored** · mean EM {} · ANLS {} · critical EM {} · critical ANLS {} · Brier {} · ECE {}\n",
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
    if let Some(never) = super::summary::never_ran_line(&summary.never_ran) {
        page.push_str(&format!("\n**{}**\n", escaped(&never)));
    }
    if let Some(never) = &summary.never_ended {
        let line = super::summary::never_ended_line(never);
        page.push_str(&format!("\n**{}**\n", escaped(&line)));
    }
    if let Some(calls) = &summary.calls {
        page.push_str(&format!(
            "\n{}\n",
            escaped(&super::summary::calls_line(calls))
        ));
    }
    if pipelines.iter().any(|(name, _)| is_pipeline_row(name)) {
        page.push_str(&table_markdown(&super::compare::pipelines_table(pipelines)));
    }
    if let Some(line) = super::gate_line(&end.account) {
        page.push_str(&format!("\n**{}**\n", escaped(&line)));
    }
    if !end.slices.is_empty() {
        page.push_str(&table_markdown(&super::compare::slices_table(&end.slices)));
    }
    page.push_str(&fields_table(fields, pipelines));
    page.push_str(&table_markdown(&super::compare::grounding(pipelines)));
    // Every row that missed: the step summary is read once, in full, where the terminal shows
    // the most missed.
    let missed: Vec<_> = end.misses.iter().filter(|r| r.counts.total() > 0).collect();
    page.push_str(&table_markdown(&super::analysis::misses(&missed)));
    page.push_str(&advice_table(&end.acceptance));
    page.push_str(&table_markdown(&super::analysis::pooled_table(&end.pooled)));
    page.push_str(&gate_section(&end.gates));
    let items = listed(cases, aggregates, end);
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

/// Each pipeline's regression gate: its verdict (a failure with the difference, its interval and
/// the cases that dropped most), then how large a drop it catches; empty without gates.
fn gate_section(gates: &[(Option<String>, crate::record::RegressionGateRecord)]) -> String {
    let mut page = String::new();
    for (pipeline, g) in gates {
        let who = pipeline
            .as_deref()
            .map(|p| format!("{}: ", code(p)))
            .unwrap_or_default();
        let verdict = match super::gate::gate_headline(g) {
            Some(head) => format!("**{}**", text(&head)),
            None => match &g.difference {
                Some(d) => format!(
                    "held: {} {:+.4} ({:+.4} to {:+.4})",
                    text(&g.metric),
                    d.difference,
                    d.low,
                    d.high
                ),
                None => "held".to_owned(),
            },
        };
        page.push_str(&format!("- {who}{verdict}\n"));
        if !g.held && !g.dropped_most.is_empty() {
            let cases: Vec<String> = g
                .dropped_most
                .iter()
                .map(|c| format!("{} {:.4} → {:.4}", code(&c.test), c.old, c.new))
                .collect();
            page.push_str(&format!(
                "  - cases that dropped most: {}\n",
                cases.join(", ")
            ));
        }
        if !g.held && g.unscored.is_empty() {
            page.push_str(&format!(
                "  - accept the new values with: {}\n",
                code(&g.accept)
            ));
        } else if !g.held {
            page.push_str(&format!(
                "  - {} of the paired cases could not be scored and count at the metric's worst: run them again once they score\n",
                g.unscored.len()
            ));
        }
        if let Some(power) = super::gate::power_line(None, g) {
            page.push_str(&format!("  - {}\n", text(&power)));
        }
    }
    if page.is_empty() {
        return page;
    }
    format!("\n**Regression gate**\n\n{page}")
}

/// The page's list items, each with its section: baselines that could not be compared with,
/// failing tests, regressions, improvements.
fn listed(
    cases: &[TestRecord],
    aggregates: &[AggregateRecord],
    end: &RunEnd,
) -> Vec<(String, String)> {
    let mut items: Vec<(String, String)> = Vec::new();
    for why in &end.baseline_errors {
        let why = why.lines().collect::<Vec<_>>().join(" — ");
        items.push(("Baselines".into(), format!("- {}\n", text(&why))));
    }
    // The failing tests, then the known failures under their own heading.
    let failing = cases.iter().filter(|c| c.status == Status::Failed);
    let known = cases.iter().filter(|c| c.status == Status::KnownFailure);
    for (heading, case) in failing
        .map(|c| ("Failing tests", c))
        .chain(known.map(|c| ("Known failures", c)))
    {
        let at = case
            .place()
            .map(|(file, line)| {
                if line > 0 {
                    format!(" — {}", code(&format!("{file}:{line}")))
                } else {
                    format!(" — {}", code(&file))
                }
            })
            .unwrap_or_default();
        items.push((
            heading.into(),
            format!(
                "- {} — {}{at}{}\n",
                code(&case.id),
                text(&super::annotations::case_headline(case)),
                field_values(case)
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
            format!(
                "- {} — {} — {}\n",
                code(&a.id),
                text(verdict),
                code(&a.place())
            ),
        ));
    }
    items.extend(gate_items(end));
    for (test, changes) in &end.moved {
        items.push((
            "Moved against the baseline, worst first".into(),
            format!("- {} — {}\n", code(test), text(&super::describe(changes))),
        ));
    }
    for (test, changes) in &end.regressions {
        let line = format!("{test}: {}", super::describe(changes));
        items.push(("Regressions".into(), format!("- {}\n", text(&line))));
    }
    for (test, changes) in &end.improvements {
        let line = format!("{test}: {}", super::describe(changes));
        items.push((
            "Improvements beyond the tolerance".into(),
            format!("- {}\n", text(&line)),
        ));
    }
    items
}

/// The values of a failing test's first fields that are not exact, after its verdict: ` —
/// total: gold `13.00`, prediction `99.00``; and how many more there are.
fn field_values(case: &TestRecord) -> String {
    const SHOWN: usize = 3;
    const VALUE_CHARS: usize = 60;
    let missed: Vec<&crate::record::FieldRecord> =
        case.fields.iter().filter(|f| f.em < 1.0).collect();
    let mut values: Vec<String> = missed
        .iter()
        .take(SHOWN)
        .map(|f| {
            let gold = f
                .gold
                .first()
                .map_or_else(|| "null".to_owned(), ToString::to_string);
            let short = |v: &str| {
                let v = one_line(v);
                match v.char_indices().nth(VALUE_CHARS) {
                    Some((at, _)) => format!("{}…", &v[..at]),
                    None => v,
                }
            };
            format!(
                "{}: gold {}, prediction {}",
                code(&f.name),
                code(&short(&gold)),
                code(&short(&f.prediction.to_string()))
            )
        })
        .collect();
    if missed.len() > SHOWN {
        values.push(format!("{} more", missed.len() - SHOWN));
    }
    if values.is_empty() {
        return String::new();
    }
    format!(" — {}", values.join("; "))
}

/// What the gate made of the tests held to their entries: each regression with how it is
/// worse, each fixed test with its bless command; the known failures are listed with the
/// failing tests' lines, under their own heading.
fn gate_items(end: &RunEnd) -> Vec<(String, String)> {
    let account = &end.account;
    let mut items = Vec::new();
    for r in &account.regressions {
        let why = match &r.fails {
            _ if !r.worse.is_empty() => super::worse(&r.worse),
            Some(why) => why.clone(),
            None => "fails".to_owned(),
        };
        items.push((
            "Worse than the baseline".into(),
            format!("- {} — {}\n", code(&r.test), text(&why)),
        ));
    }
    for f in &account.fixed {
        items.push((
            "Fixed".into(),
            format!("- {} — bless it with {}\n", code(&f.test), code(&f.bless)),
        ));
    }
    items
}

/// The most fields the step summary lists; the HTML page and the report have every one.
const FIELD_ROWS: usize = 30;

/// The fields not exact for every pipeline, worst first, as the HTML page orders them (EM and
/// ANLS per pipeline), after the count of those that are; empty without fields.
fn fields_table(
    fields: &[crate::evaluate::aggregate::FieldStat],
    pipelines: &[(String, Aggregated)],
) -> String {
    let names: Vec<&str> = pipelines.iter().map(|(n, _)| n.as_str()).collect();
    let rows = super::fields::field_rows(fields, &names);
    let mut page = String::new();
    if let Some(line) = super::fields::perfect_line(&rows.perfect, names.len()) {
        page.push_str(&format!("\n{}.\n", escaped(&line)));
    }
    if rows.rows.is_empty() {
        return page;
    }
    page.push_str(&format!(
        "\n{} not exact for some pipeline, worst first (EM / ANLS):\n\n| field | {} |\n|---|{}\n",
        match rows.rows.len() {
            1 => "The field".to_owned(),
            n => format!("The {n} fields"),
        },
        names
            .iter()
            .map(|n| escaped(n))
            .collect::<Vec<_>>()
            .join(" | "),
        "---:|".repeat(names.len())
    ));
    for (field, stats) in rows.rows.iter().take(FIELD_ROWS) {
        let cells: Vec<String> = stats
            .iter()
            .map(|s| {
                s.map_or_else(
                    || "-".to_owned(),
                    |s| format!("{:.4} / {:.4}", s.em, s.anls),
                )
            })
            .collect();
        page.push_str(&format!("| {} | {} |\n", escaped(field), cells.join(" | ")));
    }
    if rows.rows.len() > FIELD_ROWS {
        page.push_str(&format!(
            "\n… and {} more fields: the HTML page and the report have every one.\n",
            rows.rows.len() - FIELD_ROWS
        ));
    }
    page
}

/// A table as Markdown: figures right-aligned, names and text left, and the columns left out
/// said once beneath; empty without rows.
pub(super) fn table_markdown(table: &Table) -> String {
    if table.rows.is_empty() {
        return String::new();
    }
    let headings: Vec<&str> = table.columns.iter().map(|c| c.heading).collect();
    let mut page = format!("\n| {} |\n|", headings.join(" | "));
    for c in &table.columns {
        page.push_str(match c.kind {
            Kind::Figure => "---:|",
            Kind::Name | Kind::Text => "---|",
        });
    }
    page.push('\n');
    for row in &table.rows {
        let cells: Vec<String> = row.iter().map(|c| escaped(c)).collect();
        page.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if let Some(left_out) = table.left_out_line() {
        page.push_str(&format!("\n{}\n", escaped(&left_out)));
    }
    page
}

/// Per pipeline and field with an advised threshold: the share it accepts and the error bound.
fn advice_table(all: &[crate::evaluate::analysis::FieldAcceptance]) -> String {
    let rows: Vec<_> = all.iter().filter_map(|r| Some((r, r.advised?))).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut page = "\n| accept when confidence ≥ | field | pipeline | automation | error bound 95% | target error |\n|---:|---|---|---:|---:|---:|\n".to_owned();
    for (r, p) in rows {
        page.push_str(&format!(
            "| {} | {} | {} | {:.4} | {:.4} | {} |\n",
            p.threshold,
            escaped(&r.field),
            escaped(&r.pipeline),
            p.share,
            p.error_upper,
            r.target_error
        ));
    }
    page
}

/// User text (labels, values, names) as Markdown that renders as that text, on one line: the
/// message's own `…` spans stay code spans, and everything else is escaped, so that a value
/// like `![t](https://…)` or `<img …>` shows as written instead of loading an image or a tag.
/// A backtick with no partner is escaped too: one stray backtick cannot open a span that would
/// swallow the rest of the line.
fn text(raw: &str) -> String {
    let raw = one_line(raw);
    let mut out = String::with_capacity(raw.len() + 16);
    let mut rest = raw.as_str();
    while let Some(open) = rest.find('`') {
        out.push_str(&escaped(&rest[..open]));
        let after = &rest[open + 1..];
        match after.find('`') {
            Some(close) => {
                out.push_str(&code(&after[..close]));
                rest = &after[close + 1..];
            }
            None => {
                out.push_str("\\`");
                rest = after;
            }
        }
    }
    out.push_str(&escaped(rest));
    out
}

/// Text a Markdown reader shows as is, on one line: HTML's `<` and `&` as entities, the
/// punctuation that makes links, images, emphasis, tables and spans backslash-escaped, and a
/// word joiner (U+2060, invisible) after each `@`, so that a name like `@octocat` notifies no
/// one where GitHub reads it. An underscore inside a word (`must_right`) emphasises nothing and
/// stays as it is, and so do `(`, `)` and `!`: with `[` and `]` escaped they make no link or
/// image. Every text the Markdown pages write goes through here or [`code`].
pub(super) fn escaped(text: &str) -> String {
    // A newline would end the item, row or heading the text is in, and open a block of its own
    // (`# …`, `- …`); control characters are shown (`\u{1b}`), their backslash then escaped.
    let chars: Vec<char> = one_line(text).chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let word = |at: Option<&char>| at.is_some_and(|c| c.is_alphanumeric());
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '_' if word(i.checked_sub(1).and_then(|j| chars.get(j))) && word(chars.get(i + 1)) => {
                out.push(c)
            }
            // GitHub links a mention in text, never in a code span: the joiner breaks it.
            '@' => out.push_str("@\u{2060}"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A code span of any text, on one line: its fence one backtick longer than the longest run
/// inside, padded with a space when the text starts or ends with a backtick or a space
/// (CommonMark strips one from each side). GitHub makes no mention or link inside it.
pub(super) fn code(raw: &str) -> String {
    let raw = one_line(raw);
    if raw.is_empty() {
        return String::new();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in raw.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if raw.starts_with(['`', ' ']) || raw.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{raw}{pad}{fence}")
}

/// A line of a list, a table or a heading: a newline (a lone CR too, for GitHub) would end it.
fn one_line(text: &str) -> String {
    super::visible(&text.replace(['\n', '\r'], " ")).into_owned()
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
        let end = RunEnd::of(Default::default(), &[], &[]);
        let page = step_summary(&end, &[], &cases, &[], 64 * 1024);
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
        let whole = step_summary(&end, &[], &cases, &[], STEP_SUMMARY_LIMIT);
        assert_eq!(whole.matches("\n- `invoices/").count(), 5000);
    }

    #[test]
    fn user_text_renders_as_text() {
        assert_eq!(
            text("gate closed by must_right `the total` (score 0)"),
            "gate closed by must_right `the total` (score 0)"
        );
        // A backtick inside a label closes its span: what follows is escaped, not Markdown.
        assert_eq!(
            text("must_right `a`b ![t](https://e.x/t.png) <img src=x> _e_ **s**` failed"),
            "must_right `a`b !\\[t\\](https://e.x/t.png) &lt;img src=x> \\_e\\_ \\*\\*s\\*\\*\\` failed"
        );
        assert_eq!(text("one ` two"), "one \\` two");
        assert_eq!(text("a\nb|c"), "a b\\|c");
        // A span holding backticks is fenced by a longer run.
        assert_eq!(code("a``b"), "```a``b```");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("x\ny"), "`x y`");
    }
}
