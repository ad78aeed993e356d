//! What a new user met in a first real run: a pipeline's own aggregate bounds, a missing
//! baseline said once per run, cases of unrelated suites kept apart in the comparison of
//! pipelines, and an HTML page whose long lines wrap on screen and in print.

use std::path::Path;
use std::process::Output;

#[path = "support/chromium.rs"]
mod chromium;
mod support;
use support::{failure_block, goldgate, read_report, stderr, stdout, verdict_of, write_files};

/// Two cases scored by two pipelines: `llm` confident at 0.3 on fields it has right (ECE 0.7),
/// `ocr` with no confidence at all (no ECE to measure).
const TWO_PIPELINES: [(&str, &str); 6] = [
    (
        "cases/a.yaml",
        "gold: { number: F-001, total: \"100.00\" }\nthresholds: { min_exact_match: 1.0 }\n",
    ),
    (
        "cases/b.yaml",
        "gold: { number: F-002, total: \"200.00\" }\nthresholds: { min_exact_match: 1.0 }\n",
    ),
    (
        "cases/out/llm/a.json",
        r#"{"fields": {"number": {"value": "F-001", "confidence": 0.3}, "total": {"value": "100.00", "confidence": 0.3}}}"#,
    ),
    (
        "cases/out/llm/b.json",
        r#"{"fields": {"number": {"value": "F-002", "confidence": 0.3}, "total": {"value": "200.00", "confidence": 0.3}}}"#,
    ),
    (
        "cases/out/ocr/a.json",
        r#"{"fields": {"number": "F-001", "total": "100.00"}}"#,
    ),
    (
        "cases/out/ocr/b.json",
        r#"{"fields": {"number": "F-002", "total": "200.00"}}"#,
    ),
];

#[test]
fn a_pipeline_without_confidences_drops_the_suite_ece_bound_while_the_others_keep_it() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &TWO_PIPELINES);
    let suite = "pipelines:\n  llm: out/llm/{case}.json\n  ocr:\n    prediction: out/ocr/{case}.json\n    aggregate: { max_ece: null }\naggregate:\n  min_anls: 0.9\n  max_ece: 0.2\n";
    write_files(dir.path(), &[("cases/suite.yaml", suite)]);
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(101), "{text}{}", stderr(&out));
    assert_eq!(
        verdict_of(&text, "cases::aggregate::ocr"),
        "test cases::aggregate::ocr ... ok"
    );
    assert_eq!(
        verdict_of(&text, "cases::aggregate::llm"),
        "test cases::aggregate::llm ... FAILED"
    );
    assert_eq!(
        failure_block(&text, "cases::aggregate::llm").lines().next(),
        Some("aggregate failed over 2 case tests (2 passed): max_ece failed: 0.7000 > 0.2")
    );
    // Every case test passed: only the bound the pipeline keeps can fail.
    assert!(
        text.contains("test result: FAILED. 5 passed; 1 failed;"),
        "{text}"
    );

    // A bound written for a pipeline replaces the suite's for it alone.
    let suite = suite.replace(
        "  llm: out/llm/{case}.json\n",
        "  llm:\n    prediction: out/llm/{case}.json\n    aggregate: { max_ece: 0.8 }\n",
    );
    write_files(dir.path(), &[("cases/suite.yaml", &suite)]);
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert_eq!(
        verdict_of(&text, "cases::aggregate::llm"),
        "test cases::aggregate::llm ... ok"
    );
}

#[test]
fn a_pipeline_aggregate_is_checked_as_the_suite_aggregate_is() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &TWO_PIPELINES);
    let first_error = |suite: &str| {
        write_files(dir.path(), &[("cases/suite.yaml", suite)]);
        let out = goldgate(dir.path(), &["test", "cases"]);
        assert_eq!(out.status.code(), Some(101));
        let text = stdout(&out);
        text.lines()
            .find(|l| l.starts_with("error: "))
            .unwrap_or_else(|| panic!("no error in:\n{text}"))
            .to_owned()
    };
    let suite = |over: &str| {
        format!(
            "pipelines:\n  llm: out/llm/{{case}}.json\n  ocr:\n    prediction: out/ocr/{{case}}.json\n    aggregate: {over}\naggregate:\n  max_ece: 0.2\n"
        )
    };
    assert_eq!(
        first_error(&suite("{ max_ecee: null }")),
        "error: cases/suite.yaml:5:18: pipelines.ocr.aggregate.max_ecee: unknown key `max_ecee` (did you mean `max_ece`?)"
    );
    assert_eq!(
        first_error(&suite("{ max_ece: 1.5 }")),
        "error: cases/suite.yaml:5:27: pipelines.ocr.aggregate.max_ece: `max_ece` is 1.5, outside [0, 1] (metrics and the score lie between 0 and 1)"
    );
    assert_eq!(
        first_error(&suite("{ max_ece: 1.0 }")),
        "error: cases/suite.yaml:5:27: pipelines.ocr.aggregate.max_ece: `max_ece` is 1, so it holds whatever the predictions say: `ece` is 1 or less, and bounds are compared with a slack of 1e-9 (lower it to what the suite may not exceed, such as `max_ece: 0.1`, or remove it)"
    );
    assert_eq!(
        first_error(&suite("{}")),
        "error: cases/suite.yaml:5:16: pipelines.ocr.aggregate: `pipelines.ocr.aggregate` changes no bound (give a bound that replaces the suite's, such as `min_anls: 0.8`, or `null` to remove one, such as `max_ece: null`)"
    );
    assert_eq!(
        first_error(&suite("{ max_ece: null }\n    predictions: out")),
        "error: cases/suite.yaml:6:5: pipelines.ocr.predictions: unknown key `predictions` (did you mean `prediction`?)"
    );
    // A list holds names alone: a pipeline's own keys need the mapping form.
    assert_eq!(
        first_error(
            "pipelines:\n  - llm\n  - ocr: { aggregate: { max_ece: null } }\naggregate:\n  max_ece: 0.2\n"
        ),
        "error: cases/suite.yaml:3:5: pipelines[1]: a pipeline name must be a text, found a mapping (to give a pipeline its own keys, write the pipelines as a mapping: `pipelines: { llm: {}, ocr: { aggregate: { max_ece: null } } }`)"
    );
    // Removing the suite's only bound leaves a test that could only pass.
    assert_eq!(
        first_error(&suite("{ max_ece: null }")),
        "error: cases/suite.yaml:5:16: pipelines.ocr.aggregate: `pipelines.ocr.aggregate` removes every bound of the `aggregate` of `cases/suite.yaml`, so the aggregate test of `ocr` could only pass (keep a bound the pipeline can meet, such as `min_pass_rate: 0.95`)"
    );
}

#[test]
fn a_missing_baseline_is_said_once_per_run_however_many_tests_it_fails() {
    let dir = tempfile::tempdir().unwrap();
    let case =
        "gold: { n: \"1\" }\nprediction: { n: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n";
    write_files(
        dir.path(),
        &[
            ("cases/suite.yaml", "baseline: baseline.json\n"),
            ("cases/a.yaml", case),
            ("cases/b.yaml", case),
            ("cases/c.yaml", case),
            ("cases/d.yaml", case),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(101), "{all}");
    let said = "error: the baseline `cases/baseline.json` declared by `cases/suite.yaml` does not exist\ncreate it with: GOLDGATE_UPDATE=always goldgate test cases\n";
    assert_eq!(all.matches(said).count(), 1, "{all}");
    assert_eq!(all.matches("does not exist").count(), 1, "{all}");
    assert_eq!(all.matches("create it with").count(), 1, "{all}");
    // Each test still says why it failed, and where the fix is.
    for name in ["a", "b", "c", "d"] {
        assert_eq!(
            failure_block(&stdout(&out), name),
            "error: no baseline to compare with: `cases/baseline.json` is missing (the end of the run says how to create it)"
        );
    }
    // At the end of the run, after the summary line.
    let end = stdout(&out);
    let summary = end.find("\ngoldgate: 4 cases").unwrap();
    assert!(end[summary..].contains(said), "{end}");
}

/// Two suites without pipelines, `cases/b` (its case passes) and `cases/c` (its case fails).
const TWO_SUITES: [(&str, &str); 4] = [
    (
        "cases/b/suite.yaml",
        "defaults:\n  thresholds: { min_anls: 0.5 }\n",
    ),
    (
        "cases/b/y.yaml",
        "gold: { n: \"1\" }\nprediction: { n: \"1\" }\n",
    ),
    (
        "cases/c/suite.yaml",
        "defaults:\n  thresholds: { min_anls: 0.5 }\n",
    ),
    (
        "cases/c/z.yaml",
        "gold: { n: \"1\" }\nprediction: { n: \"2\" }\n",
    ),
];

#[test]
fn cases_of_two_suites_without_pipelines_are_two_rows_named_by_their_folders() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &TWO_SUITES);
    let out = goldgate(dir.path(), &["test", "cases", "--report", "report.json"]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let report = read_report(&dir.path().join("report.json"), &out);
    let rows: Vec<(&str, f64)> = report["pipelines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["pipeline"].as_str().unwrap(),
                p["pass_rate"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows, [("cases/b/", 1.0), ("cases/c/", 0.0)]);

    // Beside a suite with pipelines, the terminal's comparison lists each folder apart, after
    // the pipelines.
    write_files(
        dir.path(),
        &[
            (
                "cases/p/suite.yaml",
                "pipelines:\n  llm: out/llm/{case}.json\n",
            ),
            (
                "cases/p/x.yaml",
                "gold: { n: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            ("cases/p/out/llm/x.json", "{\"n\": \"1\"}"),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("pipeline "))
        .take_while(|l| !l.is_empty() && !l.starts_with("not measured: "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(table, ["pipeline", "llm", "cases/b/", "cases/c/"], "{text}");
    let row = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap()
    };
    assert_eq!(row("cases/b/"), "cases/b/ 1 1.0000 1.0000 100%");
    assert_eq!(row("cases/c/"), "cases/c/ 1 0.0000 0.0000 0%");
}

/// The DOM headless Chromium builds of `page` in a window `width` pixels wide.
fn rendered(chromium: &Path, profile: &Path, page: &Path, width: u32) -> Output {
    chromium::headless(chromium, profile, width, 3000)
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap()
}

/// Measures the page as the browser laid it out and writes what it found into the DOM, which
/// `--dump-dom` then prints: each box that ends beyond the window's width, or whose content is
/// wider than the box (scrolled or clipped). The page itself has no script: this one is put in a
/// copy, for the test alone.
const MEASURE: &str = r#"<script>
(() => {
  const width = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ')[0] : '');
  const over = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > width + 0.5) over.push(name(el) + ' ends at ' + Math.round(r.right) + ' of ' + width);
    else if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth) over.push(name(el) + ' holds ' + el.scrollWidth + ' in ' + el.clientWidth);
  }
  const messages = [...document.querySelectorAll('pre.message')].filter((m) => m.getBoundingClientRect().height > 0).length;
  const out = document.createElement('pre');
  out.id = 'measured';
  out.textContent = messages + ' message blocks shown, ' + over.length + ' boxes overflowing\n' + over.join('\n');
  document.body.appendChild(out);
})();
</script>"#;

/// What the measuring script found.
fn measured(dom: &str) -> &str {
    let start = dom
        .find("<pre id=\"measured\">")
        .unwrap_or_else(|| panic!("the measure did not run:\n{dom}"));
    let rest = &dom[start + "<pre id=\"measured\">".len()..];
    &rest[..rest.find("</pre>").unwrap()]
}

#[test]
#[ignore = "needs headless Chromium (apt-get install chromium); .ci/run installs it and runs the ignored tests"]
fn the_html_page_wraps_long_lines_and_fits_its_tables_on_screen_and_in_print() {
    let chromium = chromium::require();
    let dir = tempfile::tempdir().unwrap();
    // A vendor read as a 1,000-character run without a space: its diff line and the message
    // line that quotes it are far wider than any window or page.
    let long = format!("Acme {} {}", "Corporation-".repeat(40), "y".repeat(500));
    let prediction = |p: &str| {
        format!(
            r#"{{"fields": {{"vendor": {{"value": "{long}", "confidence": 0.9}}, "number": {{"value": "F-001", "confidence": 0.8}}}}, "latency_ms": {p}}}"#
        )
    };
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "pipelines:\n  alpha: out/alpha/{case}.json\n  beta: out/beta/{case}.json\n",
            ),
            (
                "cases/long.yaml",
                "gold:\n  vendor: Acme\n  number: F-001\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            ("cases/out/alpha/long.json", &prediction("120")),
            ("cases/out/beta/long.json", &prediction("340")),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases", "--html", "page.html"]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let page = std::fs::read_to_string(dir.path().join("page.html")).unwrap();
    assert!(
        !page.contains("<script"),
        "the page has no script of its own"
    );
    assert!(page.contains(&"y".repeat(500)));
    assert_eq!(page.matches("<pre class=\"message\">").count(), 2);
    // The screen at a laptop's width; print as the page's print rules lay it out on an A4 sheet
    // (its printable width, 720 px at 96 dpi, with those rules taken as the screen's).
    let screen = page.replace("</body>", &format!("{MEASURE}</body>"));
    let print = screen.replace("@media print", "@media all");
    assert_ne!(print, screen, "the page has print rules");
    for (name, html, width) in [("screen", &screen, 1280), ("print", &print, 720)] {
        let file = dir.path().join(format!("{name}.html"));
        std::fs::write(&file, html).unwrap();
        let dom = rendered(&chromium, &dir.path().join("profile"), &file, width);
        let dom = String::from_utf8_lossy(&dom.stdout);
        assert_eq!(
            measured(&dom),
            "2 message blocks shown, 0 boxes overflowing\n",
            "{name}"
        );
    }
}
