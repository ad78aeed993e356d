//! Entry points of the fuzz targets (`fuzz/`), one per input kind. Each writes the input where a
//! user's project would hold it and goes the way `goldgate test` goes (discover, load under the
//! suites, read the prediction, score, the failure message), but for running commands and the
//! harness. Every error is a result: only a panic, a hang or a memory blow-up is a finding.

use std::path::{Path, PathBuf};

use crate::load::discover::{default_rubrics, discover};
use crate::load::load_folder;
use crate::load::prediction::read_prediction;

/// A scratch project for one fuzzing process: a case that reads every kind of input, a rubric
/// set it includes, a suite above it, and a recorded prediction.
pub struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// The format the case's prediction is in now (the prediction target changes it).
    format: std::sync::Mutex<&'static str>,
}

/// The case the prediction, rubric-set and suite targets run: every kind of check and field.
const CASE: &str = r#"prediction: p.json
gold:
  invoice_number: INV-001
  issue_date: { any_of: [2024-03-05, 05/03/2024] }
  total: 1234.50
  supplier: Société Générale
  line_items:
    - { description: Widget, amount: "10.00" }
    - { description: Gadget, amount: "20.50" }
critical: [invoice_number, total]
fields:
  total: { compare: number, tolerance: 0.01 }
  issue_date: { compare: date, day_first: true }
  invoice_number: { compare: identifier }
rubrics:
  - include: set
  - must_right: the total is the sum of the items
    field: total
    sum_of: ["line_items[*].amount"]
    tolerance: 0.01
  - easy_wrong: every amount is a number
    field: line_items[*].amount
    matches: '^\d+\.\d{2}$'
  - easy_wrong: not a refund
    not: { field: total, equals: "-1234.50" }
thresholds:
  min_score: 0.5
  min_anls: 0.5
  min_exact_critical: 0.5
"#;

const SET: &str = r#"rubrics:
  - must_right: the invoice number is read
    field: invoice_number
    present: true
  - easy_wrong: the supplier keeps its accents
    field: supplier
    equals: Société Générale
    normalize: false
    penalty: 0.2
"#;

const SUITE: &str = r#"defaults:
  fields:
    supplier: { compare: text }
  critical: [invoice_number]
  thresholds:
    min_anls: 0.5
"#;

const PREDICTION: &str = r#"{"fields": {"invoice_number": {"value": "INV-001", "confidence": 0.9},
 "issue_date": "05/03/2024", "total": "1234.5", "supplier": "Societe Generale",
 "line_items": [{"description": "Widget", "amount": "10.00"}, {"description": "Gadgte", "amount": "20.50"}]},
 "latency_ms": 812, "usage": {"input_tokens": 1000, "output_tokens": 200}, "model": "m"}"#;

impl Project {
    /// A fresh scratch project.
    pub fn new() -> Project {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path().to_path_buf();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"fuzz\"\n").unwrap();
        std::fs::create_dir_all(root.join("cases")).unwrap();
        std::fs::create_dir_all(root.join("rubrics")).unwrap();
        let project = Project {
            _dir: dir,
            root,
            format: std::sync::Mutex::new("json"),
        };
        // Each input rewrites only its own file: a process fuzzes one kind.
        project.write("cases/c.yaml", CASE.as_bytes());
        project.write("cases/p.json", PREDICTION.as_bytes());
        project.write("rubrics/set.yaml", SET.as_bytes());
        project.write("cases/suite.yaml", SUITE.as_bytes());
        project
    }

    fn write(&self, path: &str, bytes: &[u8]) {
        std::fs::write(self.root.join(path), bytes).unwrap();
    }

    /// A case file, with the fixed prediction, rubric set and suite.
    pub fn case(&self, bytes: &[u8]) {
        self.write("cases/c.yaml", bytes);
        self.test();
    }

    /// A prediction; the first byte picks its format (JSON, YAML or text) and the case is
    /// pointed at it.
    pub fn prediction(&self, bytes: &[u8]) {
        let Some((&kind, rest)) = bytes.split_first() else {
            return;
        };
        let ext = ["json", "yaml", "txt"][usize::from(kind) % 3];
        let mut format = self.format.lock().unwrap_or_else(|e| e.into_inner());
        if *format != ext {
            let _ = std::fs::remove_file(self.root.join(format!("cases/p.{format}")));
            self.write(
                "cases/c.yaml",
                CASE.replace("prediction: p.json", &format!("prediction: p.{ext}"))
                    .as_bytes(),
            );
            *format = ext;
        }
        self.write(&format!("cases/p.{ext}"), rest);
        self.test();
    }

    /// A rubric set, included by the fixed case.
    pub fn rubric_set(&self, bytes: &[u8]) {
        self.write("rubrics/set.yaml", bytes);
        self.test();
    }

    /// A suite file above the fixed case.
    pub fn suite(&self, bytes: &[u8]) {
        self.write("cases/suite.yaml", bytes);
        self.test();
    }

    /// What `goldgate test cases` does with the project, but for commands and the harness: how
    /// many cases were scored.
    fn test(&self) -> usize {
        test_folder(&self.root.join("cases"))
    }
}

impl Default for Project {
    fn default() -> Self {
        Project::new()
    }
}

fn test_folder(cases: &Path) -> usize {
    let Ok(found) = discover(cases) else {
        return 0;
    };
    let rubrics = default_rubrics(cases);
    let mut scored = 0;
    for entry in load_folder(&found, cases, &rubrics, |_| true) {
        let Ok(case) = entry.loaded else {
            continue;
        };
        if let Ok(prediction) = read_prediction(&case.prediction, &case.file) {
            let outcome = crate::evaluate::evaluate(&case, &prediction);
            std::hint::black_box(crate::render::failure_message(&case, &outcome));
            scored += 1;
        }
    }
    scored
}

/// A baseline file: read, written back, read again.
pub fn baseline(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Ok(baseline) = crate::evaluate::baseline::parse(text, "baseline.json") {
        let again = crate::evaluate::baseline::to_text(&baseline);
        std::hint::black_box(crate::evaluate::baseline::parse(&again, "baseline.json"))
            .expect("a baseline goldgate wrote reads back");
    }
}

/// A line of `goldgate score` (both profiles) and of `goldgate calibrate`.
pub fn score_line(bytes: &[u8]) {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return;
    };
    let null = serde_json::Value::Null;
    let (gold, pred) = (
        json.get("gold").or_else(|| json.get("gt")).unwrap_or(&null),
        json.get("pred").unwrap_or(&null),
    );
    for profile in [
        crate::model::case::Profile::Dream,
        crate::model::case::Profile::AnlsStar,
    ] {
        if let Ok(scores) = super::score::score_pair_in(profile, gold, pred) {
            let anls = scores["anls"].as_f64().unwrap_or(0.0);
            assert!((0.0..=1.0).contains(&anls), "ANLS {anls} outside [0, 1]");
        }
    }
    std::hint::black_box(super::score::calibrate_line(&json)).ok();
}

/// Two values and a tolerance, read as numbers and dates (`compare: number | date`, `number:`,
/// `sum_of`): beyond not panicking, what the reading promises. A number reads back from the form
/// it is written in; it equals itself and nothing else at tolerance 0; closeness is symmetric;
/// a sum less a part is the other part; a date reads back from how it is shown.
pub fn reading(bytes: &[u8]) {
    use crate::base::typed::{canonical_number, parse_date, plain_number, read_number};
    use crate::evaluate::field::numbers_close;
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let mut parts = text.splitn(3, '\u{0}');
    let (a, b) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let tolerance = parts.next().and_then(|t| t.parse::<f64>().ok());
    let tolerance = tolerance
        .filter(|t| t.is_finite() && *t >= 0.0)
        .unwrap_or(0.0);
    for one in [a, b] {
        let Some(number) = read_number(one) else {
            assert!(!numbers_close(one, one, 0.0), "`{one}` is no number");
            continue;
        };
        let written = canonical_number(one).expect("a number has a written form");
        assert_eq!(
            read_number(&written),
            Some(number.clone()),
            "`{one}` as `{written}`"
        );
        let plain = plain_number(one).expect("a number has a plain form");
        assert_eq!(read_number(&plain), Some(number), "`{one}` as `{plain}`");
        assert!(numbers_close(one, &written, 0.0), "`{one}` and `{written}`");
        for day_first in [false, true] {
            if let Some(date) = parse_date(one, day_first) {
                let shown = date.to_string();
                assert_eq!(parse_date(&shown, day_first), Some(date), "`{one}`");
            }
        }
    }
    assert_eq!(
        numbers_close(a, b, tolerance),
        numbers_close(b, a, tolerance),
        "`{a}` and `{b}` within {tolerance}"
    );
    if let (Some(x), Some(y)) = (read_number(a), read_number(b)) {
        assert_eq!(x.add(&y).sub(&y), x, "`{a}` + `{b}` - `{b}`");
        assert_eq!(x == y, numbers_close(a, b, 0.0), "`{a}` = `{b}`");
    }
    for day_first in [false, true] {
        if let Some(date) = parse_date(a, day_first) {
            assert_eq!(
                parse_date(&date.to_string(), day_first),
                Some(date),
                "`{a}`"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    /// The fixed case, prediction, rubric set and suite that each target changes one of load
    /// and score: a suite that no longer reads (its keys moved) would leave every fuzzed input
    /// stopping at the same load error, and a campaign measuring nothing.
    #[test]
    fn the_scratch_project_scores_its_case() {
        assert_eq!(super::Project::new().test(), 1);
    }
}
