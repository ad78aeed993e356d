//! Two runs compared (`goldgate report --compare BASE HEAD`), written two ways from one
//! [`RunComparison`]: for the terminal, and as a pull-request comment (`--markdown`) that stays
//! within GitHub's 65,536 characters, its verdict and tables counted, by leaving out the least
//! important rows, and says so.

use std::fmt::Write;

use super::compare::interval_text;
use super::markdown::{code, escaped, table_markdown};
use super::table::{Column, Table};
use crate::evaluate::record::{ErrorKind, Status};
use crate::record::compare::{
    ChangeKind, FailedGate, FieldChange, FieldValue, GoldChange, Passes, PipelineChange,
    RunComparison, TestChange,
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
/// The longest value a row quotes, in characters.
const VALUE_SHOWN: usize = 60;
/// How many failed gates the verdict names before `and N more`, and how many reasons of each.
const GATES_SHOWN: usize = 10;

/// The comparison for the terminal: the runs, the gold, HEAD's verdict, a table per group of
/// tests, then the tests that changed, each kind under its heading, each with its fields.
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
        let _ = writeln!(out, "\n{}", nothing_listed(c));
    }
    out
}

/// Why no test is listed: none changed, or none by its verdict and gated metric.
fn nothing_listed(c: &RunComparison) -> String {
    match c.moved_otherwise {
        0 => "no test changed".to_owned(),
        n => format!(
            "no test's verdict or gated metric changed ({} moved on EM, ANLS or the score)",
            plural(n, "test")
        ),
    }
}

/// The comparison as a pull-request comment: one verdict line, the runs and the gold, a table
/// per group, then the tests that changed (regressed first) with their fields. Whatever the
/// runs' size it keeps within [`COMMENT_LIMIT`] characters, every part counted: the first lines
/// (within [`HEAD_CHARS`]) and the line about what is left out are kept first, then the
/// regressed tests, the groups' tables and the other tests, each in that order while they fit;
/// the last line says how many tables and rows were left out and where the whole is.
pub fn comparison_markdown(c: &RunComparison, full: &FullComparison) -> String {
    let mut out = format!(
        "{}\n\n",
        markdown_verdict(c, HEAD_CHARS - 2 * LABEL_CHARS - GOLD_CHARS)
    );
    let _ = writeln!(
        out,
        "BASE {} → HEAD {} · {}\n",
        code(&shortened_to(&c.base, LABEL_CHARS)),
        code(&shortened_to(&c.head, LABEL_CHARS)),
        escaped_within(&gold_line(&c.gold), GOLD_CHARS)
    );
    let tables: Vec<String> = c.pipelines.iter().map(pipeline_markdown).collect();
    let sections = test_sections(c);
    let rows: usize = sections.iter().map(|s| s.rows.len()).sum();
    let reserve = reserved(left_out_line(tables.len(), rows, full));
    let mut room = COMMENT_LIMIT.saturating_sub(out.chars().count() + reserve);
    // What a reviewer acts on first: the regressions, then the groups' numbers, then the rest.
    let mut shown = vec![0; sections.len()];
    let regressed = sections
        .iter()
        .position(|s| s.kind == ChangeKind::Regressed);
    if let Some(i) = regressed {
        let (n, used) = sections[i].fitting(room);
        (shown[i], room) = (n, room - used);
    }
    let (shown_tables, used) = fitting(&tables, room);
    room -= used;
    for (i, section) in sections.iter().enumerate() {
        if Some(i) != regressed {
            let (n, used) = section.fitting(room);
            (shown[i], room) = (n, room - used);
        }
    }
    for table in &tables[..shown_tables] {
        out.push_str(table);
    }
    for (section, &n) in sections.iter().zip(&shown) {
        section.write(&mut out, n);
    }
    let shown_rows: usize = shown.iter().sum();
    if shown_tables < tables.len() || shown_rows < rows {
        out.push_str(&left_out_line(
            tables.len() - shown_tables,
            rows - shown_rows,
            full,
        ));
        out.push('\n');
    }
    out
}

/// The most characters of the comment's first lines (verdict, runs, gold): the names in them
/// are the user's, of any length, and the tests need the room.
const HEAD_CHARS: usize = 16_000;
/// The most characters of a run's label (its report's path, its id) in the comment.
const LABEL_CHARS: usize = 200;
/// The most characters of the line about the gold.
const GOLD_CHARS: usize = 4_000;

/// `text` escaped for Markdown within `max` characters: cut (before escaping, so that no escape
/// is cut in two) with `…` where it would be longer.
fn escaped_within(text: &str, max: usize) -> String {
    let whole = escaped(text);
    if whole.chars().count() <= max {
        return whole;
    }
    // The longest start whose escaped form fits; an escape is at most a dozen characters.
    let (mut low, mut high) = (0, text.chars().count().min(max));
    while low < high {
        let mid = (low + high).div_ceil(2);
        if escaped(&shortened_to(text, mid)).chars().count() <= max {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    escaped(&shortened_to(text, low))
}

/// `text` within `max` characters, its end cut to `…` when longer.
fn shortened_to(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// How many of `parts`, from the first, fit in `room` characters, and their length.
fn fitting(parts: &[String], room: usize) -> (usize, usize) {
    let mut used = 0;
    for (i, part) in parts.iter().enumerate() {
        let length = part.chars().count();
        if used + length > room {
            return (i, used);
        }
        used += length;
    }
    (parts.len(), used)
}

/// The tests of one kind, as the comment's table rows.
struct Section {
    kind: ChangeKind,
    head: String,
    rows: Vec<String>,
}

impl Section {
    /// How many of its rows, from the first, fit in `room` characters with its heading and the
    /// blank line after, and their length: none when not even one row fits.
    fn fitting(&self, room: usize) -> (usize, usize) {
        let frame = self.head.chars().count() + 1;
        let (shown, used) = fitting(&self.rows, room.saturating_sub(frame));
        match shown {
            0 => (0, 0),
            n => (n, used + frame),
        }
    }

    /// Writes its heading and its first `shown` rows; nothing when `shown` is 0.
    fn write(&self, out: &mut String, shown: usize) {
        if shown == 0 {
            return;
        }
        out.push_str(&self.head);
        for row in &self.rows[..shown] {
            out.push_str(row);
        }
        out.push('\n');
    }
}

fn test_sections(c: &RunComparison) -> Vec<Section> {
    KINDS
        .iter()
        .map(|&kind| {
            let rows: Vec<String> = c
                .tests
                .iter()
                .filter(|t| t.kind == kind)
                .map(|t| markdown_row(&test_cells(t)))
                .collect();
            let head = format!(
                "#### {} ({})\n\n{}",
                kind_name(kind),
                rows.len(),
                tests_table_head()
            );
            Section { kind, head, rows }
        })
        .filter(|s| !s.rows.is_empty())
        .collect()
}

/// The room kept for the line about what was left out, whatever its number: the same for any
/// place of the whole comparison of a usual length, so that the comment shows the same rows
/// whether it links to a page or names a report.
fn reserved(line: String) -> usize {
    line.chars().count().max(400) + 1
}

/// `_12 rows left out to stay within GitHub's 65,536 characters: the full comparison is …_`.
fn left_out_line(tables: usize, rows: usize, full: &FullComparison) -> String {
    let whole = match full {
        FullComparison::Page(url) => format!("[the full page]({})", link_target(url)),
        FullComparison::Report(file) => format!(
            "the full comparison is `goldgate report --compare` on the report {}",
            code(file)
        ),
        FullComparison::Run(id) => format!(
            "the full comparison is `goldgate report --compare` on the run {}",
            code(id)
        ),
    };
    let rows_text = if rows == 1 {
        "1 row".to_owned()
    } else {
        format!("{rows} rows")
    };
    let what = match tables {
        0 => rows_text,
        n if rows == 0 => plural(n, "pipeline table"),
        n => format!("{} and {rows_text}", plural(n, "pipeline table")),
    };
    format!("_{what} left out to stay within GitHub's 65,536 characters: {whole}_")
}

/// A link's target as written, kept to the link: what would end it or the line (a bracket, a
/// space, a line break, a control character) percent-encoded, as a URL holds them.
fn link_target(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if matches!(c, '<' | '>' | '(' | ')' | '\\') || c.is_whitespace() || c.is_control() {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
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
        GoldChange::SameForPaired => {
            "the same gold for every test both runs hold (the gold sets differ by the tests added or removed)".to_owned()
        }
        GoldChange::Unknown => {
            "gold not compared (a report has no gold digest: it was written by an older goldgate)"
                .to_owned()
        }
        GoldChange::NothingPaired => {
            "gold not compared: no case test is in both runs".to_owned()
        }
        GoldChange::Different { tests, unchecked } => {
            let mut line = format!(
                "different gold: the gold or rules of {} changed ({}), so their differences are not the pipeline's alone",
                plural(tests.len(), "test"),
                some_of(tests)
            );
            if !unchecked.is_empty() {
                let _ = write!(line, "; {}", unchecked_text(unchecked, true));
            }
            line
        }
        GoldChange::Unchecked { tests } => {
            format!(
                "{}; the other tests' gold is unchanged",
                unchecked_text(tests, false)
            )
        }
    }
}

/// `the gold of 1 test both runs hold cannot be compared, a run having not loaded it (c4)`.
fn unchecked_text(tests: &[String], more: bool) -> String {
    let (n, it) = match tests.len() {
        1 => ("1".to_owned(), "it"),
        n => (n.to_string(), "them"),
    };
    let what = match (more, tests.len()) {
        (true, _) => format!("{n} more"),
        (false, 1) => "1 test both runs hold".to_owned(),
        (false, _) => format!("{n} tests both runs hold"),
    };
    format!(
        "the gold of {what} cannot be compared, a run having not loaded {it} ({})",
        some_of(tests)
    )
}

/// The first ten names, and how many more.
fn some_of(names: &[String]) -> String {
    let named: Vec<&str> = names.iter().take(10).map(String::as_str).collect();
    match names.len() - named.len() {
        0 => named.join(", "),
        n => format!("{} and {n} more", named.join(", ")),
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// `1 of 2 aggregate gates failed: … ; 3 of 40 case tests failed, 2 known failures`, or
/// `all passed: …`.
fn verdict_text(c: &RunComparison) -> String {
    let v = &c.verdict;
    // Held to its baselines, HEAD is judged by its gate: what got worse, not what was wrong.
    if let Some(line) = super::gate_line(&v.gate) {
        let line = line.strip_prefix("goldgate: ").unwrap_or(&line).to_owned();
        return format!(
            "{line}; {} of {} case tests failed",
            v.failed_cases, v.cases
        );
    }
    let mut cases = format!("{} of {} case tests failed", v.failed_cases, v.cases);
    if v.known_failures > 0 {
        let _ = write!(cases, ", {}", plural(v.known_failures, "known failure"));
    }
    if v.failed_gates.is_empty() {
        let gates = match v.aggregates {
            0 => String::new(),
            n => format!(", {} held", plural(n, "aggregate gate")),
        };
        return if v.failed_cases == 0 && v.known_failures == 0 {
            format!("all passed ({} case tests{gates})", v.cases)
        } else {
            format!("{cases}{gates}")
        };
    }
    let mut gates: Vec<String> = v
        .failed_gates
        .iter()
        .take(GATES_SHOWN)
        .map(gate_text)
        .collect();
    if v.failed_gates.len() > GATES_SHOWN {
        gates.push(format!("and {} more", v.failed_gates.len() - GATES_SHOWN));
    }
    format!(
        "{} of {} failed: {}; {cases}",
        v.failed_gates.len(),
        plural(v.aggregates, "aggregate gate"),
        gates.join("; ")
    )
}

/// The comment's first line, its text within `max` characters.
fn markdown_verdict(c: &RunComparison, max: usize) -> String {
    let v = &c.verdict;
    let held = if v.gate.holds() {
        v.gate.regressions.is_empty()
    } else {
        v.failed_gates.is_empty() && v.failed_cases == 0
    };
    let mark = if held { "✅" } else { "❌" };
    format!(
        "{mark} **goldgate**: {}",
        escaped_within(&verdict_text(c), max)
    )
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
    if why.len() > GATES_SHOWN {
        let more = why.len() - GATES_SHOWN;
        why.truncate(GATES_SHOWN);
        why.push(format!("and {more} more"));
    }
    format!("{} ({})", g.test, why.join(", "))
}

fn pipeline_heading(p: &PipelineChange) -> String {
    format!("{}, {} in both runs", p.pipeline, plural(p.paired, "test"))
}

fn pipeline_markdown(p: &PipelineChange) -> String {
    format!(
        "#### {}\n\n{}\n",
        escaped(&pipeline_heading(p)),
        table_markdown(&pipeline_table(p)).trim_start()
    )
}

fn figure(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"))
}

/// `50.0% (2 of 4)`.
fn passes_text(p: &Passes) -> String {
    p.rate.map_or_else(
        || "-".to_owned(),
        |r| format!("{:.1}% ({} of {})", r * 100.0, p.passed, p.cases),
    )
}

/// A group's metrics: each the means of the tests both runs measured (`tests`) and their paired
/// difference, whether significant; the pass rates, each over its own run's tests.
fn pipeline_table(p: &PipelineChange) -> Table {
    let yes_no = |s: Option<bool>| match s {
        Some(true) => "yes".to_owned(),
        Some(false) => "no".to_owned(),
        None => "-".to_owned(),
    };
    let mut rows: Vec<Vec<String>> = p
        .metrics()
        .into_iter()
        .filter(|m| m.base.is_some() || m.head.is_some())
        .map(|m| {
            vec![
                m.metric.to_owned(),
                m.difference.map_or(0, |i| i.cases).to_string(),
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
        p.paired.to_string(),
        passes_text(&p.pass_rate.base),
        passes_text(&p.pass_rate.head),
        format!(
            "passed only in BASE {}, only in HEAD {} (McNemar p = {:.4})",
            m.only_reference, m.only_pipeline, m.p_value
        ),
        yes_no((p.paired > 0).then_some(m.p_value < 0.05)),
    ]);
    Table::new(
        vec![
            Column::name("metric"),
            Column::count("tests", 5),
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

fn status_word(s: Option<Status>) -> &'static str {
    match s {
        Some(Status::Passed) => "passed",
        Some(Status::Failed) => "failed",
        Some(Status::KnownFailure) => "known failure",
        Some(Status::Ignored) => "skipped",
        None => "-",
    }
}

/// ` (not loaded)`: why a run could not score the test.
fn error_word(e: Option<ErrorKind>) -> &'static str {
    match e {
        Some(ErrorKind::Load) => " (not loaded)",
        Some(ErrorKind::Unreadable) => " (unreadable)",
        Some(ErrorKind::Prediction) => " (no prediction)",
        Some(ErrorKind::Baseline) => " (no baseline)",
        Some(ErrorKind::Call) => " (its call failed)",
        None => "",
    }
}

/// `passed → failed; ANLS 1.0000 → 0.8000, EM 1.0000 → 0.5000; its gold changed`.
fn test_summary(t: &TestChange) -> String {
    let mut parts = vec![verdict_change(t)];
    let metrics = metrics_text(t);
    if !metrics.is_empty() {
        parts.push(metrics);
    }
    if t.gold_changed {
        parts.push("its gold changed".to_owned());
    }
    parts.join("; ")
}

fn verdict_change(t: &TestChange) -> String {
    let side =
        |s: Option<Status>, e: Option<ErrorKind>| format!("{}{}", status_word(s), error_word(e));
    match t.kind {
        ChangeKind::New => side(t.status.head, t.error.head),
        ChangeKind::Removed => format!("{} in BASE", side(t.status.base, t.error.base)),
        ChangeKind::Regressed | ChangeKind::Improved => {
            let mut change = format!(
                "{} → {}",
                side(t.status.base, t.error.base),
                side(t.status.head, t.error.head)
            );
            // A fixed test says how its entry catches up, as the run's end does.
            if let Some(bless) = &t.bless {
                let _ = write!(change, " (fixed: bless it with {bless})");
            }
            change
        }
    }
}

/// How the tables head a metric.
fn metric_heading(name: &str) -> &str {
    match name {
        "exact_match" => "EM",
        "anls" => "ANLS",
        other => other,
    }
}

/// `ANLS 1.0000 → 0.8000, EM 1.0000 → 0.5000`; a new or removed test's values alone.
fn metrics_text(t: &TestChange) -> String {
    let one_run = matches!(t.kind, ChangeKind::New | ChangeKind::Removed);
    let parts: Vec<String> = t
        .metrics
        .iter()
        .filter_map(|m| {
            let name = metric_heading(m.metric);
            match (m.base, m.head) {
                (None, None) => None,
                (Some(v), None) | (None, Some(v)) if one_run => {
                    Some(format!("{name} {}", figure(Some(v))))
                }
                (b, h) => Some(format!("{name} {} → {}", figure(b), figure(h))),
            }
        })
        .collect();
    parts.join(", ")
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
    let metrics = metrics_text(t);
    vec![
        code(&t.test),
        escaped(&verdict),
        if metrics.is_empty() {
            "-".to_owned()
        } else {
            escaped(&metrics)
        },
        if fields.is_empty() {
            "-".to_owned()
        } else {
            fields.join("<br>")
        },
    ]
}

/// `total: "10.00" → "10.0" (EM 1.0000 → 0.0000, ANLS 1.0000 → 0.7500; gold "10.00")`; in
/// Markdown each value as code. Gold's value is given where a run's prediction is not exact,
/// old → new where it changed; a run whose gold has no such field reads `no such field`.
fn field_text(f: &FieldChange, markdown: bool) -> String {
    let value = |v: &serde_json::Value| {
        let text = shortened(&v.to_string());
        if markdown { code(&text) } else { text }
    };
    // Both predictions cut from where they differ, so that a change at the end of a long value
    // shows.
    let from = first_difference(
        f.base.as_ref().map(|s| s.prediction.to_string()),
        f.head.as_ref().map(|s| s.prediction.to_string()),
    );
    let side = |s: &Option<FieldValue>| {
        s.as_ref().map_or_else(
            || "(no such field)".to_owned(),
            |s| {
                let text = from_char(&s.prediction.to_string(), from);
                if markdown { code(&text) } else { text }
            },
        )
    };
    let score = |get: fn(&FieldValue) -> f64| {
        let of = |s: &Option<FieldValue>| figure(s.as_ref().map(get));
        format!("{} → {}", of(&f.base), of(&f.head))
    };
    let inexact = [&f.base, &f.head]
        .iter()
        .any(|s| s.as_ref().is_some_and(|s| s.em < 1.0));
    let gold_text = match (gold_of(&f.base), gold_of(&f.head)) {
        (Some(b), Some(h)) if b != h => format!("; gold {} → {}", value(b), value(h)),
        (b, h) if inexact => h
            .or(b)
            .map_or_else(String::new, |g| format!("; gold {}", value(g))),
        _ => String::new(),
    };
    let name = if markdown {
        code(&f.field)
    } else {
        f.field.clone()
    };
    format!(
        "{name}: {} → {} (EM {}, ANLS {}{gold_text})",
        side(&f.base),
        side(&f.head),
        score(|s| s.em),
        score(|s| s.anls)
    )
}

fn gold_of(side: &Option<FieldValue>) -> Option<&serde_json::Value> {
    side.as_ref().and_then(|s| s.gold.as_ref())
}

/// Where two long values part, less a little context, in characters: 0 when either is short
/// enough to show whole, or they part early.
fn first_difference(old: Option<String>, new: Option<String>) -> usize {
    const CONTEXT: usize = 12;
    let (Some(old), Some(new)) = (old, new) else {
        return 0;
    };
    if old.chars().count() <= VALUE_SHOWN && new.chars().count() <= VALUE_SHOWN {
        return 0;
    }
    let same = old
        .chars()
        .zip(new.chars())
        .take_while(|(a, b)| a == b)
        .count();
    same.saturating_sub(CONTEXT)
}

/// `text` shown from its character `from` (after `…` when that is not its start), shortened.
fn from_char(text: &str, from: usize) -> String {
    if from == 0 {
        return shortened(text);
    }
    let rest: String = text.chars().skip(from).collect();
    shortened(&format!("…{rest}"))
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
    fn a_change_at_the_end_of_a_long_value_shows() {
        let base = format!(
            "\"Long description of a line item number 2 that goes on and on, {}\"",
            "x".repeat(40)
        );
        let head = base.replace("xxxx\"", "xxyy\"");
        let from = first_difference(Some(base.clone()), Some(head.clone()));
        assert!(from > 0, "{from}");
        let (old, new) = (from_char(&base, from), from_char(&head, from));
        assert_ne!(old, new);
        assert!(
            old.starts_with('…') && new.ends_with("xxyy\""),
            "{old} / {new}"
        );
        assert!(new.chars().count() <= VALUE_SHOWN, "{new}");
        // Short values show whole.
        assert_eq!(
            first_difference(Some("\"a\"".into()), Some("\"b\"".into())),
            0
        );
    }

    #[test]
    fn the_left_out_line_names_what_it_left_out_and_where_the_whole_is() {
        assert_eq!(
            left_out_line(0, 1, &FullComparison::Page("https://x/y".into())),
            "_1 row left out to stay within GitHub's 65,536 characters: [the full page](https://x/y)_"
        );
        assert_eq!(
            left_out_line(0, 4980, &FullComparison::Report("head.json".into())),
            "_4980 rows left out to stay within GitHub's 65,536 characters: the full comparison is `goldgate report --compare` on the report `head.json`_"
        );
        assert_eq!(
            left_out_line(3, 0, &FullComparison::Run("r1".into())),
            "_3 pipeline tables left out to stay within GitHub's 65,536 characters: the full comparison is `goldgate report --compare` on the run `r1`_"
        );
        assert_eq!(
            left_out_line(1, 2, &FullComparison::Run("r1".into())),
            "_1 pipeline table and 2 rows left out to stay within GitHub's 65,536 characters: the full comparison is `goldgate report --compare` on the run `r1`_"
        );
    }
}
