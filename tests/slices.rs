//! Tags and slices (SPEC §14.3) and comparisons a vendor choice needs (§13, §14.4), from the
//! `goldgate` binary over `tests/fixtures/slices`: three pipelines over four cases, two tagged
//! `lang: en`, one `lang: fr`, one `[scan]`, one field `name` with gold `abcd`. Each pipeline
//! predicts, per case (en-1, en-2, fr-1, scan-1):
//!
//! - alpha: `abcd`, `abce`, `abcd`, `wxyz` — EM 1, 0, 1, 0; ANLS 1, 0.75, 1, 0
//! - beta:  `abce`, `abce`, `abce`, `abcd` — EM 0, 0, 0, 1; ANLS 0.75, 0.75, 0.75, 1
//! - gamma: `wxyz`, `wxyz`, `abcd`, `wxyz` — EM 0, 0, 1, 0; ANLS 0, 0, 1, 0
//!
//! (`abce` is one edit of four from `abcd`: ANLS 0.75; `wxyz` four of four: 0.) Every case
//! needs `min_anls: 0.8`, so a case passes when its ANLS is 1. The numbers below are these,
//! worked by hand.

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::{goldgate, read_report, stdout};

/// A copy of the fixture's cases in a temporary folder, with `suites/NAME.yaml` as their suite.
fn fixture(suite: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = support::fixtures("slices");
    copy_dir(&from.join("cases"), &dir.path().join("cases"));
    std::fs::copy(
        from.join("suites").join(format!("{suite}.yaml")),
        dir.path().join("cases/suite.yaml"),
    )
    .unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs `goldgate test cases ARGS --report report.json`: its standard output and report.
fn run(dir: &Path, args: &[&str], report: &str) -> (String, Value) {
    let mut all = vec!["test", "cases"];
    all.extend(args);
    all.extend(["--report", report]);
    let out = goldgate(dir, &all);
    let report = read_report(&dir.join(report), &out);
    (stdout(&out), report)
}

/// A slice row of the report as (tag, value, pipeline, cases, passed, EM, ANLS).
fn slice(
    tag: &str,
    value: &str,
    pipeline: &str,
    cases: u64,
    passed: u64,
    em: f64,
    anls: f64,
) -> Value {
    json!({
        "tag": tag, "value": value, "pipeline": pipeline, "cases": cases, "passed": passed,
        "pass_rate": passed as f64 / cases as f64, "exact_match": em, "anls": anls,
        "exact_critical": null, "anls_critical": null, "brier": null, "ece": null,
        "cost_usd_per_case": null, "cost_usd_total": null,
    })
}

fn expected_slices() -> Value {
    json!([
        slice("lang", "en", "alpha", 2, 1, 0.5, 0.875),
        slice("lang", "en", "beta", 2, 0, 0.0, 0.75),
        slice("lang", "en", "gamma", 2, 0, 0.0, 0.0),
        slice("lang", "fr", "alpha", 1, 1, 1.0, 1.0),
        slice("lang", "fr", "beta", 1, 0, 0.0, 0.75),
        slice("lang", "fr", "gamma", 1, 1, 1.0, 1.0),
        slice("tag", "scan", "alpha", 1, 0, 0.0, 0.0),
        slice("tag", "scan", "beta", 1, 1, 1.0, 1.0),
        slice("tag", "scan", "gamma", 1, 0, 0.0, 0.0),
    ])
}

#[test]
fn every_tag_value_slices_every_pipeline_in_the_report_and_the_run_end() {
    let dir = fixture("plain");
    let (text, report) = run(dir.path(), &[], "report.json");
    assert_eq!(report["slices"], expected_slices());
    let table = "\
slice     pipeline  cases   pass       EM     ANLS
lang=en   alpha         2    50%   0.5000   0.8750
lang=en   beta          2     0%   0.0000   0.7500
lang=en   gamma         2     0%   0.0000   0.0000
lang=fr   alpha         1   100%   1.0000   1.0000
lang=fr   beta          1     0%   0.0000   0.7500
lang=fr   gamma         1   100%   1.0000   1.0000
tag=scan  alpha         1     0%   0.0000   0.0000
tag=scan  beta          1   100%   1.0000   1.0000
tag=scan  gamma         1     0%   0.0000   0.0000
not measured: crit.EM, c.ANLS (no case names a critical field); Brier, ECE (no prediction gives a confidence); cost/case (no prediction gives a cost or a priced usage)
";
    assert!(text.contains(table), "{text}");
}

#[test]
fn the_step_summary_and_the_html_page_have_the_slice_table() {
    let dir = fixture("plain");
    let summary = dir.path().join("summary.md");
    let out = support::goldgate_with(
        dir.path(),
        &["test", "cases", "--html", "page.html"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    let page = std::fs::read_to_string(&summary).unwrap_or_else(|_| support::stderr(&out));
    assert!(
        page.contains("| slice | pipeline | cases | pass | EM | ANLS |\n"),
        "{page}"
    );
    assert!(
        page.contains("| lang=en | alpha | 2 | 50% | 0.5000 | 0.8750 |\n"),
        "{page}"
    );
    let html = std::fs::read_to_string(dir.path().join("page.html")).unwrap();
    assert!(html.contains("<section id=\"slices\">"), "no slice table");
    // A matrix per tag of each pipeline's ANLS (best first), the values whose pipelines differ
    // most first, each with its cases.
    assert!(
        html.contains("<table class=\"matrix\" data-tag=\"lang\">\n<thead><tr><th class=\"text\">lang</th><th class=\"num\">cases</th><th class=\"pipeline name\">beta</th><th class=\"pipeline name\">alpha</th><th class=\"pipeline name\">gamma</th><th class=\"num\">spread</th></tr></thead>\n<tbody>\n<tr data-value=\"en\"><td class=\"text\">en</td><td class=\"num cases\">2</td><td class=\"num cell c5\" data-pipeline=\"beta\">0.7500</td><td class=\"num cell c6\" data-pipeline=\"alpha\">0.8750</td><td class=\"num cell c0\" data-pipeline=\"gamma\">0.0000</td><td class=\"num\">0.8750</td></tr>\n<tr data-value=\"fr\">"),
        "{html}"
    );
    assert!(html.contains("<table class=\"matrix\" data-tag=\"tag\">"));
    // Every slice and metric, folded beneath.
    assert!(
        html.contains("<details class=\"more\"><summary>Every slice and metric (9 rows)</summary>")
    );
    assert!(
        html.contains("<tr><td class=\"text\">tag=scan</td><td class=\"name\">beta</td><td class=\"num\">1</td><td class=\"num\">100%</td><td class=\"num\">1.0000</td><td class=\"num\">1.0000</td></tr>"),
        "{html}"
    );
}

#[test]
fn a_run_without_tags_has_no_slice_table() {
    let dir = fixture("plain");
    for case in ["en-1", "en-2", "fr-1", "scan-1"] {
        let file = dir.path().join(format!("cases/{case}.yaml"));
        let text = std::fs::read_to_string(&file).unwrap();
        let untagged: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
        std::fs::write(&file, untagged).unwrap();
    }
    let (text, report) = run(dir.path(), &[], "report.json");
    assert_eq!(report["slices"], json!([]));
    assert!(!text.contains("slice "), "{text}");
}

#[test]
fn a_split_run_gives_the_slices_of_one_process() {
    let dir = fixture("plain");
    let (_, whole) = run(dir.path(), &[], "whole.json");
    // Two processes, each with part of the cases, their reports merged.
    let (_, first) = run(dir.path(), &["en-"], "first.json");
    let (_, second) = run(dir.path(), &["--skip", "en-"], "second.json");
    assert_eq!(first["cases"].as_array().unwrap().len(), 6);
    assert_eq!(second["cases"].as_array().unwrap().len(), 6);
    let out = goldgate(
        dir.path(),
        &["report", "first.json", "second.json", "-o", "merged.json"],
    );
    assert!(out.status.success(), "{}", support::stderr(&out));
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("merged.json")).unwrap())
            .unwrap();
    assert_eq!(merged["slices"], expected_slices());
    assert_eq!(merged["slices"], whole["slices"]);
    assert!(stdout(&out).contains("lang=fr   beta          1     0%   0.0000   0.7500"));
}

/// The verdict of each aggregate test, by name.
fn aggregates(report: &Value) -> Vec<(String, bool)> {
    report["aggregates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].as_str().unwrap().to_owned(), a["passed"] == true))
        .collect()
}

#[test]
fn a_slice_bound_fails_the_aggregate_naming_the_slice_its_bound_and_value() {
    let dir = fixture("slice-fails");
    let (text, report) = run(dir.path(), &[], "report.json");
    assert_eq!(
        aggregates(&report),
        [
            ("cases::aggregate::alpha".to_owned(), false),
            ("cases::aggregate::beta".to_owned(), false),
            ("cases::aggregate::gamma".to_owned(), false),
        ]
    );
    // alpha: French ANLS 1 holds 0.9; its scan's EM 0 fails 0.5.
    assert!(text.contains("---- cases::aggregate::alpha ----\naggregate failed over 4 case tests (2 passed): slice tag=scan (1 case tests): min_exact_match failed: 0.0000 < 0.5\n"), "{text}");
    assert!(text.contains("at cases/suite.yaml:12 (aggregate.slices.tag=scan.min_exact_match)"));
    // beta: French ANLS 0.75 fails 0.9, though its ANLS over every case (0.8125) holds 0.2.
    assert!(text.contains("---- cases::aggregate::beta ----\naggregate failed over 4 case tests (1 passed): slice lang=fr (1 case tests): min_anls failed: 0.7500 < 0.9\n"), "{text}");
    assert!(text.contains("at cases/suite.yaml:11 (aggregate.slices.lang=fr.min_anls)"));
    let beta = &report["aggregates"][1];
    assert_eq!(beta["thresholds"][0]["held"], true);
    assert_eq!(
        beta["slices"],
        json!([
            {"tag": "lang", "value": "fr", "cases": 1, "held": false, "thresholds": [{
                "name": "min_anls", "limit": 0.9, "value": 0.75, "held": false,
                "absent_because": null, "file": "cases/suite.yaml", "line": 11, "column": 26}],
             "file": "cases/suite.yaml", "line": 11, "column": 14},
            {"tag": "tag", "value": "scan", "cases": 1, "held": true, "thresholds": [{
                "name": "min_exact_match", "limit": 0.5, "value": 1.0, "held": true,
                "absent_because": null, "file": "cases/suite.yaml", "line": 12, "column": 34}],
             "file": "cases/suite.yaml", "line": 12, "column": 15},
        ])
    );
}

#[test]
fn slice_bounds_that_hold_pass() {
    let dir = fixture("slice-holds");
    let (text, report) = run(dir.path(), &[], "report.json");
    assert!(
        aggregates(&report).iter().all(|(_, passed)| *passed),
        "{text}"
    );
    assert!(
        text.contains("test cases::aggregate::beta  ... ok"),
        "{text}"
    );
}

#[test]
fn a_slice_that_matches_no_case_fails_its_aggregate() {
    let dir = fixture("slice-unmatched");
    let (text, report) = run(dir.path(), &[], "report.json");
    assert!(
        aggregates(&report).iter().all(|(_, passed)| !*passed),
        "{text}"
    );
    assert!(text.contains("aggregate failed over 4 case tests (2 passed): slice lang=de matches no case test, so its bounds measure nothing (the slices of these cases: lang=en, lang=fr, tag=scan)\n"), "{text}");
    assert!(
        text.contains("at cases/suite.yaml:11 (aggregate.slices.lang=de)"),
        "{text}"
    );
}

#[test]
fn a_slice_not_written_as_tag_equals_value_is_refused() {
    let dir = fixture("slice-holds");
    let suite = dir.path().join("cases/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(&suite, text.replace("lang=fr:", "french:")).unwrap();
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert!(
        stdout(&out).contains("cases/suite.yaml:11:13: aggregate.slices.french: slice `french` is not `tag=value` (name a tag and its value, such as `lang=fr`, or `tag=scan` for a tag written in a list)"),
        "{}",
        stdout(&out)
    );
}

/// A comparison of the report as (pipeline, reference, EM difference, ANLS difference, only by
/// the reference, only by the pipeline).
fn pairs(report: &Value) -> Vec<(String, String, f64, f64, u64, u64)> {
    report["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["pipeline"].as_str().unwrap().to_owned(),
                c["reference"].as_str().unwrap().to_owned(),
                c["exact_match"]["difference"].as_f64().unwrap(),
                c["anls"]["difference"].as_f64().unwrap(),
                c["mcnemar"]["only_reference"].as_u64().unwrap(),
                c["mcnemar"]["only_pipeline"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn pair(
    p: &str,
    r: &str,
    em: f64,
    anls: f64,
    only_r: u64,
    only_p: u64,
) -> (String, String, f64, f64, u64, u64) {
    (p.into(), r.into(), em, anls, only_r, only_p)
}

#[test]
fn neighbours_compares_each_pipeline_with_the_next_by_anls() {
    // ANLS: beta 0.8125, alpha 0.6875, gamma 0.25.
    let dir = fixture("neighbours");
    let (text, report) = run(dir.path(), &[], "report.json");
    assert_eq!(
        pairs(&report),
        [
            // beta − alpha per case: EM -1, 0, -1, 1; ANLS -0.25, 0, -0.25, 1.
            pair("beta", "alpha", -0.25, 0.125, 2, 1),
            // alpha − gamma: EM 1, 0, 0, 0; ANLS 1, 0.75, 0, 0.
            pair("alpha", "gamma", 0.25, 0.4375, 0, 1),
        ]
    );
    assert!(text.contains("\neach pipeline against the next in the ranking by anls (difference of means, 95 % paired bootstrap interval; McNemar's exact test on pass/fail):\n  beta against alpha over 4 cases: EM -0.2500 ["), "{text}");
}

#[test]
fn neighbours_ranks_by_the_metric_the_aggregate_bounds() {
    // EM: alpha 0.5, beta 0.25, gamma 0.25 (a tie, in name order).
    let dir = fixture("neighbours");
    let suite = dir.path().join("cases/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        format!("{text}aggregate: {{ min_exact_match: 0.1 }}\n"),
    )
    .unwrap();
    let (text, report) = run(dir.path(), &[], "report.json");
    assert_eq!(
        pairs(&report),
        [
            // alpha − beta: EM 1, 0, 1, -1; ANLS 0.25, 0, 0.25, -1.
            pair("alpha", "beta", 0.25, -0.125, 1, 2),
            // beta − gamma: EM 0, 0, -1, 1; ANLS 0.75, 0.75, -0.25, 1.
            pair("beta", "gamma", 0.0, 0.5625, 1, 1),
        ]
    );
    assert!(text.contains("in the ranking by exact_match"), "{text}");
}

#[test]
fn all_compares_every_pair() {
    let dir = fixture("all");
    let (text, report) = run(dir.path(), &[], "report.json");
    assert_eq!(
        pairs(&report),
        [
            pair("beta", "alpha", -0.25, 0.125, 2, 1),
            // gamma − alpha: EM -1, 0, 0, 0; ANLS -1, -0.75, 0, 0.
            pair("gamma", "alpha", -0.25, -0.4375, 1, 0),
            // gamma − beta: EM 0, 0, 1, -1; ANLS -0.75, -0.75, 0.25, -1.
            pair("gamma", "beta", 0.0, -0.5625, 1, 1),
        ]
    );
    assert!(
        text.contains("\nevery pair of pipelines (difference of means"),
        "{text}"
    );
    assert!(
        text.contains("  gamma against beta over 4 cases: EM +0.0000 ["),
        "{text}"
    );
}

#[test]
fn a_score_no_case_measures_gets_no_interval_and_says_why() {
    let dir = fixture("plain");
    let (text, report) = run(dir.path(), &[], "report.json");
    for c in report["comparisons"].as_array().unwrap() {
        assert_eq!(c["score"], Value::Null);
        assert_eq!(
            c["unmeasured"],
            json!([{"metric": "score", "because": "no_rubrics"}])
        );
    }
    assert!(!text.contains("score +0.0000"), "{text}");
    assert!(
        text.contains("  beta over 4 cases: EM -0.2500 [-1.0000, +0.5000]  ANLS +0.1250 ["),
        "{text}"
    );
    // Every pair lacks it for one reason: said once, after the pairs.
    assert_eq!(text.matches("no score").count(), 1, "{text}");
    assert!(
        text.contains("p = 1.0000\n  for every pair: no score: no case of any pair has rubrics\n"),
        "{text}"
    );
}
