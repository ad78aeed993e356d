//! The JSON report of a run (`GOLDGATE_REPORT` / `--report`): the records of its tests, sorted by
//! name, with the run's summary, its pipelines, the field table and the comparisons; the shape
//! of [`crate::record::Report`], written as a stream so that a report of any size is never held
//! in memory (each case's record is copied as the compact line the test wrote).

use serde::Serialize;

use crate::record::{
    AggregateRecord, ComparisonRecord, FieldStat, PipelineMetrics, RECORD_VERSION,
    RunSummaryRecord, SliceRecord,
};

/// What a report holds besides its cases.
pub struct ReportParts<'a> {
    /// The digest of the run's gold set, when a test has one.
    pub gold_digest: Option<&'a str>,
    /// The commit the report is written at, when there is one.
    pub commit: Option<&'a str>,
    /// The run's summary.
    pub summary: &'a RunSummaryRecord,
    /// What the baselines say of the tests held to their entries (`fail_on: regressions`).
    pub gate: &'a crate::record::run_end::GateAccount,
    /// Each pipeline's metrics.
    pub pipelines: &'a [PipelineMetrics],
    /// The field × pipeline table.
    pub fields: &'a [FieldStat],
    /// Each pipeline against its reference.
    pub comparisons: &'a [ComparisonRecord],
    /// Each pipeline per tag value.
    pub slices: &'a [SliceRecord],
    /// The aggregate tests.
    pub aggregates: &'a [AggregateRecord],
    /// The run's error analysis.
    pub analysis: &'a crate::record::AnalysisRecord,
}

/// Writes the whole report: every case test's record (the compact JSON lines given, in the
/// order given: sorted by test name), one a line, and the rest pretty.
pub fn write_report(
    out: &mut dyn std::io::Write,
    parts: &ReportParts,
    cases: &mut dyn Iterator<Item = std::io::Result<String>>,
) -> std::io::Result<()> {
    writeln!(out, "{{")?;
    writeln!(
        out,
        "  \"goldgate\": {},",
        serde_json::to_string(env!("CARGO_PKG_VERSION"))?
    )?;
    writeln!(out, "  \"record_version\": {RECORD_VERSION},")?;
    writeln!(
        out,
        "  \"gold_digest\": {},",
        serde_json::to_string(&parts.gold_digest)?
    )?;
    if let Some(commit) = parts.commit {
        writeln!(out, "  \"commit\": {},", serde_json::to_string(commit)?)?;
    }
    writeln!(out, "  \"summary\": {},", indented(parts.summary, 1))?;
    if parts.gate.holds() {
        writeln!(out, "  \"gate\": {},", indented(parts.gate, 1))?;
    }
    write!(out, "  \"cases\": [")?;
    let mut first = true;
    for case in cases {
        write!(out, "{}    {}", if first { "\n" } else { ",\n" }, case?)?;
        first = false;
    }
    write!(out, "{}]", if first { "" } else { "\n  " })?;
    write!(out, ",\n  \"pipelines\": ")?;
    pretty_list(out, parts.pipelines.iter().map(|p| indented(p, 2)))?;
    write!(out, ",\n  \"fields\": ")?;
    pretty_list(
        out,
        parts
            .fields
            .iter()
            .map(|f| serde_json::to_string(f).unwrap_or_default()),
    )?;
    write!(out, ",\n  \"slices\": ")?;
    pretty_list(
        out,
        parts
            .slices
            .iter()
            .map(|s| serde_json::to_string(s).unwrap_or_default()),
    )?;
    write!(out, ",\n  \"comparisons\": ")?;
    pretty_list(out, parts.comparisons.iter().map(|c| indented(c, 2)))?;
    write!(out, ",\n  \"aggregates\": ")?;
    pretty_list(out, parts.aggregates.iter().map(|a| indented(a, 2)))?;
    write!(out, ",\n  \"analysis\": ")?;
    write_indented(out, parts.analysis, 1)?;
    writeln!(out, "\n}}")
}

fn pretty_list(
    out: &mut dyn std::io::Write,
    items: impl Iterator<Item = String>,
) -> std::io::Result<()> {
    let mut first = true;
    write!(out, "[")?;
    for item in items {
        write!(out, "{}    {item}", if first { "\n" } else { ",\n" })?;
        first = false;
    }
    write!(out, "{}]", if first { "" } else { "\n  " })
}

/// Pretty JSON whose lines after the first are indented `level` times two spaces, to sit inside
/// the report's own pretty layout.
fn indented(value: &impl Serialize, level: usize) -> String {
    let mut text = Vec::new();
    match write_indented(&mut text, value, level) {
        Ok(()) => String::from_utf8(text).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// [`indented`], written straight into `out`: the analysis's acceptance curves hold a point per
/// distinct confidence of each field, tens of megabytes that a `String` would hold twice.
fn write_indented(
    out: &mut dyn std::io::Write,
    value: &impl Serialize,
    level: usize,
) -> std::io::Result<()> {
    let mut indenting = Indenting {
        out,
        pad: "  ".repeat(level),
    };
    serde_json::to_writer_pretty(&mut indenting, value).map_err(std::io::Error::from)
}

/// A writer that writes `pad` after each newline it passes on.
struct Indenting<'a> {
    out: &'a mut dyn std::io::Write,
    pad: String,
}

impl std::io::Write for Indenting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.out.write_all(&rest[..=at])?;
            self.out.write_all(self.pad.as_bytes())?;
            rest = &rest[at + 1..];
        }
        self.out.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
