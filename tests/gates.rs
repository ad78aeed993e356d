//! Gates that know noise from a regression (SPEC §16), from the `goldgate` binary over folders
//! made here:
//!
//! - a flaky command repeated (`run: repeat: 3`): its attempt n (counted per case in a file)
//!   predicts a wrong `total` when n is listed in the file `wrong`, so the attempts and their
//!   flips are known exactly;
//! - a regression gate over 40 cases of four fields each, exact match 1 in the baseline: one
//!   case slipping by two fields, or 30 cases by one field each; the differences are those of
//!   the first two `power` lines of `tests/reference/power.jsonl` (computed by scipy and
//!   statsmodels), whose detectable drop the report must give.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{
    case, failure_block, goldgate, goldgate_report, goldgate_with, read_report, stdout, verdict_of,
    write_files,
};

/// The flaky command: attempt n of a case predicts `total` 9.99 when n is in `wrong`, else 10.00.
const FLAKY: &str = r#"#!/bin/sh
mkdir -p counts
f="counts/$(echo "$1" | tr / _)"
n=$(( $(cat "$f" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$f"
if grep -qx "$n" wrong; then total=9.99; else total=10.00; fi
printf '{"total": "%s", "date": "2024-01-01"}\n' "$total"
"#;

/// One case `a` under a suite that runs the flaky command `repeat` times with `pass`.
fn flaky(pass: &str, wrong: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let suite = format!(
        "pipelines: [llm]\nrun:\n  command: [sh, flaky.sh, \"{{case}}\"]\n  repeat: 3\npass: {pass}\naggregate:\n  max_flip_rate: 0.5\n"
    );
    write_files(
        dir.path(),
        &[
            ("cases/suite.yaml", &suite),
            ("cases/flaky.sh", FLAKY),
            ("cases/wrong", wrong),
            (
                "cases/a.yaml",
                "gold:\n  total: \"10.00\"\n  date: \"2024-01-01\"\nthresholds:\n  min_exact_match: 1\n",
            ),
        ],
    );
    dir
}

fn runs_of(dir: &Path, case: &str) -> String {
    std::fs::read_to_string(dir.join("cases/counts").join(case)).unwrap_or_default()
}

#[test]
fn a_flaky_command_fails_under_all_passes_under_majority_and_its_flip_rate_is_exact() {
    let all = flaky("all", "2\n");
    let (run, report) = goldgate_report(all.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(verdict_of(&out, "a::llm"), "test a::llm ... FAILED");
    let block = failure_block(&out, "a::llm");
    assert!(
        block.starts_with(
            "2 of 3 attempts passed (pass: all); attempt 2 shown; flips: total 1 of 3\n"
        ),
        "{block}"
    );
    assert!(
        block.contains("9.99"),
        "the failing attempt's value is shown:\n{block}"
    );
    // One run of the command per attempt, though the aggregate test needs the case too.
    assert_eq!(runs_of(all.path(), "a"), "3\n");
    let repeat = &case(&report, "a::llm")["repeat"];
    assert_eq!(repeat["pass"], "all");
    assert_eq!(
        (repeat["attempts"].as_u64(), repeat["passed"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(repeat["shown"], 2);
    let each = repeat["each"].as_array().unwrap();
    let totals: Vec<&Value> = each.iter().map(|a| &a["fields"][0]["prediction"]).collect();
    assert_eq!(totals, ["10.00", "9.99", "10.00"]);
    let passed: Vec<&Value> = each.iter().map(|a| &a["passed"]).collect();
    assert_eq!(passed, [true, false, true]);
    assert_eq!(repeat["flip_rates"][0]["field"], "total");
    assert_eq!(repeat["flip_rates"][0]["rate"].as_f64(), Some(1.0 / 3.0));
    assert_eq!(repeat["flip_rates"][1]["rate"].as_f64(), Some(0.0));
    let pipeline = &report["pipelines"][0];
    assert_eq!(pipeline["pass_all_k"].as_f64(), Some(0.0));
    assert_eq!(pipeline["pass_any_k"].as_f64(), Some(1.0));
    assert_eq!(pipeline["max_flip_rate"].as_f64(), Some(1.0 / 3.0));
    assert!(
        out.contains("\nrepeated   pass^k   pass@k  max flip  flips (share of attempts against the majority)\nllm        0.0000   1.0000    0.3333  total 0.3333\n"),
        "{out}"
    );

    let majority = flaky("majority", "2\n");
    let run = goldgate(majority.path(), &["test", "cases"]);
    assert_eq!(verdict_of(&stdout(&run), "a::llm"), "test a::llm ... ok");
    let twice = flaky("majority", "1\n3\n");
    let out = stdout(&goldgate(twice.path(), &["test", "cases"]));
    assert_eq!(verdict_of(&out, "a::llm"), "test a::llm ... FAILED");
    assert!(failure_block(&out, "a::llm").starts_with(
        "1 of 3 attempts passed (pass: majority); attempt 1 shown; flips: total 1 of 3"
    ));
    let any = flaky("any", "1\n3\n");
    let out = stdout(&goldgate(any.path(), &["test", "cases"]));
    assert_eq!(verdict_of(&out, "a::llm"), "test a::llm ... ok");
    // Two flips of three break the aggregate's bound: the majority is wrong, one attempt right.
    let flippy = flaky("any", "1\n2\n");
    let out = stdout(&goldgate(flippy.path(), &["test", "cases"]));
    assert_eq!(verdict_of(&out, "a::llm"), "test a::llm ... ok");
    assert_eq!(
        verdict_of(&out, "cases::aggregate::llm"),
        "test cases::aggregate::llm ... ok"
    );
}

#[test]
fn attempts_run_once_however_the_run_is_split_over_processes() {
    let dir = flaky("all", "2\n");
    let id = format!("gates-split-{}", std::process::id());
    let env = [("GOLDGATE_RUN_ID", id.as_str())];
    let case = goldgate_with(dir.path(), &["test", "cases", "--exact", "a::llm"], &env);
    assert_eq!(
        verdict_of(&stdout(&case), "a::llm"),
        "test a::llm ... FAILED"
    );
    let aggregate = goldgate_with(
        dir.path(),
        &["test", "cases", "--exact", "cases::aggregate::llm"],
        &env,
    );
    assert_eq!(
        verdict_of(&stdout(&aggregate), "cases::aggregate::llm"),
        "test cases::aggregate::llm ... ok"
    );
    // The aggregate's process took the case's three outputs from the run.
    assert_eq!(runs_of(dir.path(), "a"), "3\n");
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("report.json");
    let merged = goldgate(
        dir.path(),
        &["report", "--run", &id, "-o", path.to_str().unwrap()],
    );
    let report = read_report(&path, &merged);
    let repeat = &case_report(&report)["repeat"];
    assert_eq!(repeat["each"].as_array().unwrap().len(), 3);
    assert_eq!(report["pipelines"][0]["pass_all_k"].as_f64(), Some(0.0));
    assert_eq!(
        report["aggregates"][0]["metrics"]["max_flip_rate"].as_f64(),
        Some(1.0 / 3.0)
    );
}

fn case_report(report: &Value) -> &Value {
    case(report, "a::llm")
}

/// 40 cases `c01`..`c40` of four fields, each predicted with `wrong(i)` of its fields wrong,
/// under a suite with a regression gate and a baseline giving every case exact match 1.
fn gated(wrong: impl Fn(usize) -> usize, extra_suite: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = vec![(
        "cases/suite.yaml".into(),
        format!(
            "baseline: baseline.json\nregression_gate: {{ metric: exact_match, min_effect: 0.02, confidence: 0.95 }}\n{extra_suite}"
        ),
    )];
    let mut entries = Vec::new();
    for i in 1..=40 {
        let gold = (0..4)
            .map(|f| format!("  f{f}: \"v{i}-{f}\"\n"))
            .collect::<String>();
        let prediction = (0..4)
            .map(|f| {
                let v = if f < wrong(i) {
                    "wrong".to_owned()
                } else {
                    format!("v{i}-{f}")
                };
                format!("\"f{f}\": \"{v}\"")
            })
            .collect::<Vec<_>>()
            .join(", ");
        files.push((
            format!("cases/c{i:02}.yaml"),
            format!("prediction: out/c{i:02}.json\ngold:\n{gold}thresholds: {{ min_exact_match: 0.25 }}\n"),
        ));
        files.push((
            format!("cases/out/c{i:02}.json"),
            format!("{{{prediction}}}"),
        ));
        entries.push(format!("\"c{i:02}\": {{\"exact_match\": 1.0}}"));
    }
    files.push(("cases/baseline.json".into(), baseline(&entries)));
    write_owned(dir.path(), &files);
    dir
}

/// A baseline file of these entries (`"NAME": {…}` each).
fn baseline(entries: &[String]) -> String {
    format!(
        "{{\"goldgate_baseline\": 1, \"cases\": {{{}}}}}\n",
        entries.join(", ")
    )
}

/// Writes files given as owned (path, text) pairs.
fn write_owned(root: &Path, files: &[(String, String)]) {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_files(root, &refs);
}

/// The `power` line of the reference named `id`.
fn reference(id: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/power.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .split('\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no reference {id}"))
}

#[test]
fn one_slipped_case_of_forty_passes_the_gate_and_its_power_is_the_references() {
    let dir = gated(|i| if i == 7 { 2 } else { 0 }, "");
    let (run, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(
        verdict_of(&out, "cases::aggregate"),
        "test cases::aggregate ... ok"
    );
    let gate = &report["aggregates"][0]["regression_gate"];
    assert_eq!(gate["held"], true);
    let d = &gate["difference"];
    assert_eq!(d["cases"], 40);
    assert!(
        (d["difference"].as_f64().unwrap() - (-0.5 / 40.0)).abs() < 1e-15,
        "{d}"
    );
    assert_eq!(gate["dropped_most"][0]["test"], "c07");
    let want = reference("one_slipped_of_40");
    let power = &gate["power"];
    assert_eq!(power["spread"], "differences");
    assert!((power["sd"].as_f64().unwrap() - want["sd"].as_f64().unwrap()).abs() < 1e-12);
    let drop = power["detectable_drop"].as_f64().unwrap();
    assert!(
        (drop - want["detectable_drop"].as_f64().unwrap()).abs() < 1e-12,
        "{drop}"
    );
    assert!(
        out.contains(&format!(
            "\nwith 40 cases, a drop of {drop:.4} exact match or more is caught 80% of the time, a smaller one less often (gate at 95% confidence, min_effect 0.02; spread of the paired differences)\n"
        )),
        "{out}"
    );
    // Without a `tolerance`, the gate replaces the per-case comparison: c07 passes its own test.
    assert_eq!(verdict_of(&out, "c07"), "test c07 ... ok");
}

#[test]
fn thirty_cases_dropping_fail_the_gate_with_their_interval_and_the_accept_command() {
    let dir = gated(|i| usize::from(i <= 30), "");
    let (run, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(
        verdict_of(&out, "cases::aggregate"),
        "test cases::aggregate ... FAILED"
    );
    let gate = &report["aggregates"][0]["regression_gate"];
    assert_eq!(gate["held"], false);
    let d = &gate["difference"];
    let (low, high) = (d["low"].as_f64().unwrap(), d["high"].as_f64().unwrap());
    assert_eq!(d["difference"].as_f64(), Some(-0.1875));
    assert!(low < -0.1875 && high < 0.0 && high > -0.1875, "{d}");
    let block = failure_block(&out, "cases::aggregate");
    let first = block.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "regression against the baseline `cases/baseline.json`: exact match dropped 0.1875 on average over 40 paired cases (95% interval of the difference {low:+.4} to {high:+.4}; the gate fails from a mean drop of 0.02 with an interval wholly below zero)"
        )
    );
    assert!(block.contains("\ncases that dropped most: c01 1.0000 -> 0.7500, c02 1.0000 -> 0.7500, c03 1.0000 -> 0.7500, c04 1.0000 -> 0.7500, c05 1.0000 -> 0.7500\n"), "{block}");
    assert!(block.contains("\naccept the new values with: GOLDGATE_UPDATE=always goldgate test cases\nat cases/suite.yaml:2 (regression_gate)"), "{block}");
    let want = reference("thirty_dropped_of_40");
    let drop = gate["power"]["detectable_drop"].as_f64().unwrap();
    assert!(
        (drop - want["detectable_drop"].as_f64().unwrap()).abs() < 1e-12,
        "{drop}"
    );
    // Accepting writes the baseline; the next run holds.
    let bless = goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(bless.status.success(), "{}", stdout(&bless));
    let again = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert_eq!(
        verdict_of(&again, "cases::aggregate"),
        "test cases::aggregate ... ok"
    );
}

#[test]
fn beside_a_tolerance_the_gate_adds_to_the_per_case_comparison() {
    let dir = gated(|i| if i == 7 { 2 } else { 0 }, "tolerance: 0.1\n");
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert_eq!(verdict_of(&out, "c07"), "test c07 ... FAILED");
    assert!(failure_block(&out, "c07").contains("regression against the baseline"));
    assert_eq!(
        verdict_of(&out, "cases::aggregate"),
        "test cases::aggregate ... ok"
    );
}

#[test]
fn a_gate_without_its_baseline_or_with_nothing_paired_fails() {
    let dir = gated(|_| 0, "");
    std::fs::remove_file(dir.path().join("cases/baseline.json")).unwrap();
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert_eq!(
        failure_block(&out, "cases::aggregate"),
        "regression gate: the baseline `cases/baseline.json` declared by `cases/suite.yaml` does not exist\ncreate it with: GOLDGATE_UPDATE=always goldgate test cases\nat cases/suite.yaml:2 (regression_gate)"
    );
    std::fs::write(
        dir.path().join("cases/baseline.json"),
        "{\"goldgate_baseline\": 1, \"cases\": {}}\n",
    )
    .unwrap();
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert!(
        failure_block(&out, "cases::aggregate").starts_with("regression gate: no case of this run has a `exact_match` value in the baseline `cases/baseline.json` (40 unpaired), so the gate compared nothing"),
        "{out}"
    );
}

#[test]
fn a_gate_and_a_repeat_are_checked_where_they_are_written() {
    for (suite, message) in [
        (
            "regression_gate: { metric: anls, min_effect: 0.02 }\n",
            "cases/suite.yaml:1:18: regression_gate: `regression_gate` compares with a baseline, and no suite here or above declares one (declare it beside the gate: `baseline: baseline.json`)",
        ),
        (
            "baseline: b.json\nregression_gate: { metric: latency_ms, min_effect: 0.02 }\n",
            "cases/suite.yaml:2:28: regression_gate.metric: `latency_ms` is not a case metric the baseline keeps",
        ),
        (
            "baseline: b.json\nregression_gate: { metric: anls, min_effect: 1.5 }\n",
            "cases/suite.yaml:2:46: regression_gate.min_effect: `min_effect` is 1.5; it must be 0 or more and under 1",
        ),
        (
            "baseline: b.json\nregression_gate: { metric: anls, min_effect: 0.1, confidence: 1 }\n",
            "cases/suite.yaml:2:63: regression_gate.confidence: `confidence` is 1; it must be from 0.5 to 0.999",
        ),
        (
            "pass: most\n",
            "cases/suite.yaml:1:7: pass: unknown `pass` rule `most`",
        ),
        (
            "repeat: 3\n",
            "cases/suite.yaml:1:1: repeat: unknown key `repeat` (the command of a suite repeats with `run: { command: […], repeat: 3 }`)",
        ),
        (
            "defaults:\n  pass: any\n",
            "cases/suite.yaml:2:3: defaults.pass: unknown key `pass` (`pass` is a suite's key, beside its `run:` (`pass: majority`), not a case's)",
        ),
        (
            "run: { command: [echo, \"{}\"], repeat: 0 }\n",
            "cases/suite.yaml:1:6: run.repeat: `repeat` is 0; it must be from 1 to 100",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_files(
            dir.path(),
            &[
                ("cases/suite.yaml", suite),
                (
                    "cases/a.yaml",
                    "prediction: { x: \"1\" }\ngold: { x: \"1\" }\nthresholds: { min_exact_match: 1 }\n",
                ),
            ],
        );
        let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
        assert!(out.contains(message), "{suite}: {out}");
        let lint = goldgate(dir.path(), &["lint", "cases"]);
        assert!(!lint.status.success(), "lint passes {suite}");
    }
}

#[test]
fn repeated_attempts_measure_the_gates_false_alarms() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = vec![
        (
            "cases/suite.yaml".into(),
            "pipelines: [llm]\nrun:\n  command: [sh, flaky.sh, \"{case}\"]\n  repeat: 3\npass: majority\nbaseline: baseline.json\nregression_gate: { metric: exact_match, min_effect: 0.02 }\n".into(),
        ),
        ("cases/flaky.sh".into(), FLAKY.into()),
        // The third attempt of every case is wrong on `total`: it differs from the first two.
        ("cases/wrong".into(), "3\n".into()),
    ];
    let mut entries = Vec::new();
    for i in 1..=10 {
        files.push((
            format!("cases/c{i:02}.yaml"),
            "gold:\n  total: \"10.00\"\n  date: \"2024-01-01\"\nthresholds:\n  min_exact_match: 1\n".into(),
        ));
        entries.push(format!("\"c{i:02}::llm\": {{\"exact_match\": 1.0}}"));
    }
    files.push(("cases/baseline.json".into(), baseline(&entries)));
    write_owned(dir.path(), &files);
    let (run, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    let gate = &report["aggregates"][0]["regression_gate"];
    // Pairs (1, 2) agree; (1, 3) and (2, 3) differ by 0.5 on every case.
    assert_eq!(gate["false_alarms"]["pairs"], 3);
    assert_eq!(gate["false_alarms"]["alarms"], 2);
    assert_eq!(gate["false_alarms"]["rate"].as_f64(), Some(2.0 / 3.0));
    // The shown attempts (the first, passing) equal the baseline: the gate holds, and neither
    // the differences nor the baseline's values vary: the figure is min_effect, a lower bound.
    assert_eq!(gate["held"], true);
    assert!(
        out.contains("llm: with 10 cases, a drop of 0.0200 exact match or more is caught 80% of the time, a smaller one less often (gate at 95% confidence, min_effect 0.02; neither the paired differences nor the baseline's values vary yet: a lower bound); between repeated attempts the gate called 2 of 3 pairs different (false-alarm rate 0.67)\n"),
        "{out}"
    );
}

#[test]
fn the_html_page_shows_the_attempts_and_the_gate() {
    let dir = flaky("all", "2\n");
    let page = dir.path().join("page.html");
    goldgate(
        dir.path(),
        &["test", "cases", "--html", page.to_str().unwrap()],
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<h2>Repeated attempts</h2>"), "{html}");
    assert!(html.contains("<tr><td class=\"name\">llm</td><td class=\"num\">0.0000</td><td class=\"num\">1.0000</td><td class=\"num\">0.3333</td><td class=\"text\">total 0.3333, date 0.0000</td></tr>"), "{html}");
    assert!(html.contains("<tr><td class=\"text\">a::llm</td><td class=\"num\">2 of 3</td><td class=\"text\">all</td><td class=\"text\">failed</td><td class=\"text\">total 0.3333, date 0.0000</td></tr>"), "{html}");
    assert!(html.contains("<tr><td class=\"num\">2 (shown)</td><td class=\"text\">failed</td><td class=\"text\">total &quot;9.99&quot; (0); date &quot;2024-01-01&quot; (1)</td></tr>"), "{html}");
    let gated = gated(|i| usize::from(i <= 30), "");
    let page = gated.path().join("page.html");
    goldgate(
        gated.path(),
        &["test", "cases", "--html", page.to_str().unwrap()],
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<h2>Regression gate</h2>"));
    assert!(
        html.contains("<td class=\"text\">exact_match</td><td class=\"num\">40</td>"),
        "{html}"
    );
    assert!(
        html.contains("<td class=\"num\">0.02</td><td class=\"text\">failed</td>"),
        "{html}"
    );
    // One verdict: the headline names the failed gate, and the regressions never read "none"
    // beside it.
    let header = &html[html.find("<header>").unwrap()..html.find("</header>").unwrap()];
    assert!(
        header.contains("<span class=\"fail\">failed</span> · 40 case tests: 40 passed, 0 failed, 0 ignored · 1 aggregate test, failed</p>\n<ul class=\"failed-gates\">\n<li><b>regression gate of cases::aggregate</b>: regression against the baseline `cases/baseline.json`: exact match dropped"),
        "{header}"
    );
    assert!(
        !html.contains("None beyond the baselines' tolerance"),
        "{html}"
    );
    assert!(
        html.contains("No test moved beyond its own tolerance, but the regression gate failed")
    );
}

#[test]
fn a_gate_on_a_metric_no_case_measures_says_so_and_how_to_fix_it() {
    let dir = gated(|_| 0, "");
    let suite = dir.path().join("cases/suite.yaml");
    std::fs::write(
        &suite,
        "baseline: baseline.json\nregression_gate: { metric: brier, min_effect: 0.02 }\n",
    )
    .unwrap();
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert_eq!(
        failure_block(&out, "cases::aggregate"),
        "regression gate: no case of this run measures `brier`, so the gate compared nothing: its predictions give no confidences; gate on a metric the cases measure, such as `metric: anls`\nat cases/suite.yaml:2 (regression_gate)"
    );
}

#[test]
fn a_rise_of_a_metric_better_low_is_what_the_power_line_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![(
        "cases/suite.yaml".to_owned(),
        "baseline: baseline.json\nregression_gate: { metric: brier, min_effect: 0.02 }\n"
            .to_owned(),
    )];
    let mut entries = Vec::new();
    for i in 1..=10 {
        files.push((
            format!("cases/c{i:02}.yaml"),
            format!(
                "prediction: {{ a: {{ value: \"x\", confidence: 0.{i:02} }} }}\ngold: {{ a: \"x\" }}\nthresholds: {{ min_exact_match: 1 }}\n"
            ),
        ));
        entries.push(format!("\"c{i:02}\": {{\"brier\": 0.5}}"));
    }
    files.push(("cases/baseline.json".into(), baseline(&entries)));
    write_owned(dir.path(), &files);
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert!(out.contains("\nwith 10 cases, a rise of "), "{out}");
    assert!(
        out.contains(" Brier or more is caught 80% of the time, a smaller one less often"),
        "{out}"
    );
}

#[test]
fn a_split_runs_report_says_why_its_gate_failed() {
    let dir = gated(|i| usize::from(i <= 30), "");
    let id = format!("gates-report-{}", std::process::id());
    let env = [("GOLDGATE_RUN_ID", id.as_str())];
    for name in ["c01", "c31", "cases::aggregate"] {
        goldgate_with(dir.path(), &["test", "cases", "--exact", name], &env);
    }
    let out = stdout(&goldgate(dir.path(), &["report", "--run", &id]));
    assert!(
        out.contains("\naggregate cases::aggregate: FAILED\n  regression against the baseline `cases/baseline.json`: exact match dropped 0.1875 on average over 40 paired cases"),
        "{out}"
    );
    assert!(
        out.contains(
            "\n  accept the new values with: GOLDGATE_UPDATE=always goldgate test cases\n"
        ),
        "{out}"
    );
}

#[test]
fn a_pass_rule_without_repeated_attempts_is_refused() {
    for suite in [
        "pass: any\n",
        "run: { command: [echo, \"{}\"] }\npass: majority\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_files(
            dir.path(),
            &[
                ("cases/suite.yaml", suite),
                (
                    "cases/a.yaml",
                    "gold: { x: \"1\" }\nthresholds: { min_exact_match: 1 }\n",
                ),
            ],
        );
        let out = stdout(&goldgate(dir.path(), &["lint", "cases"]));
        let line = suite.lines().position(|l| l.starts_with("pass")).unwrap() + 1;
        assert!(
            out.contains(&format!("cases/suite.yaml:{line}:7: pass: `pass: ")),
            "{suite}: {out}"
        );
        assert!(out.contains("and no `run` here or above repeats its command (repeat the suite's command, `run: { command: […], repeat: 3 }`, or remove `pass`)"), "{out}");
    }
}

/// The lines of `::error` annotations a run printed on standard error.
fn annotation_lines(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("::error "))
        .map(str::to_owned)
        .collect()
}

/// A failed regression gate is a GitHub annotation at the suite's `regression_gate` line, the
/// JUnit message and the step summary's section say the drop with its interval, the cases that
/// dropped most and the accept command, and the power line beside it reads as a chance.
#[test]
fn a_failed_gate_is_an_annotation_a_junit_reason_and_a_step_summary_section() {
    let dir = gated(|i| usize::from(i <= 30), "");
    let summary = dir.path().join("summary.md");
    let junit = dir.path().join("junit.xml");
    let out = goldgate_with(
        dir.path(),
        &["test", "cases", "--junit", junit.to_str().unwrap()],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
            ("GITHUB_WORKSPACE", dir.path().to_str().unwrap()),
        ],
    );
    let report_dir = tempfile::tempdir().unwrap();
    let report_path = report_dir.path().join("r.json");
    goldgate(
        dir.path(),
        &["test", "cases", "--report", report_path.to_str().unwrap()],
    );
    let report = read_report(&report_path, &out);
    let d = &report["aggregates"][0]["regression_gate"]["difference"];
    let (low, high) = (d["low"].as_f64().unwrap(), d["high"].as_f64().unwrap());
    let drop = report["aggregates"][0]["regression_gate"]["power"]["detectable_drop"]
        .as_f64()
        .unwrap();
    let headline = format!(
        "regression gate failed: exact match dropped 0.1875 (95% interval {low:+.4} to {high:+.4})"
    );
    let lines = annotation_lines(&out);
    let gate = lines
        .iter()
        .find(|l| l.contains("title=cases%3A%3Aaggregate"))
        .unwrap_or_else(|| panic!("no annotation of the gate: {lines:#?}"));
    // First of all, at the gate's line; its text gives the drop and never its own place.
    assert_eq!(&lines[0], gate);
    let title = headline.replace('%', "%25").replace(':', "%3A");
    assert!(
        gate.starts_with(&format!(
            "::error file=cases/suite.yaml,line=2,title=cases%3A%3Aaggregate%3A {title}::regression against the baseline `cases/baseline.json`: exact match dropped 0.1875"
        )),
        "{gate}"
    );
    assert!(
        gate.contains("%0Acases that dropped most: c01 1.0000 -> 0.7500, "),
        "{gate}"
    );
    assert!(!gate.contains("suite.yaml:2"), "{gate}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(&format!("<failure message=\"{headline}\"")),
        "{xml}"
    );
    let page = std::fs::read_to_string(&summary).unwrap();
    let section = page
        .split("**Regression gate**\n\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{page}"));
    assert!(
        section.starts_with(&format!(
            "- **{headline}**\n  - cases that dropped most: `c01` 1.0000 → 0.7500, `c02` 1.0000 → 0.7500, `c03` 1.0000 → 0.7500, `c04` 1.0000 → 0.7500, `c05` 1.0000 → 0.7500\n  - accept the new values with: `GOLDGATE_UPDATE=always goldgate test cases`\n  - with 40 cases, a drop of {drop:.4} exact match or more is caught 80% of the time, a smaller one less often (gate at 95% confidence, min_effect 0.02; spread of the paired differences)\n"
        )),
        "{section}"
    );
}

/// A repeated case that fails says why in its headlines (JUnit message, step summary line,
/// annotation title), the count of attempts after it, not instead of it.
#[test]
fn a_repeated_case_fails_under_its_reason_not_its_count_of_attempts() {
    let dir = flaky("majority", "1\n3\n");
    let summary = dir.path().join("summary.md");
    let junit = dir.path().join("junit.xml");
    let out = goldgate_with(
        dir.path(),
        &["test", "cases", "--junit", junit.to_str().unwrap()],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
        ],
    );
    let reason = "case failed: min_exact_match failed: 0.5000 < 1 (score 1.0000); 1 of 3 attempts passed (pass: majority)";
    // XML and the step summary's Markdown write `<` as `&lt;`.
    let escaped = reason.replace('<', "&lt;");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(&format!("<failure message=\"{escaped}\"")),
        "{xml}"
    );
    let page = std::fs::read_to_string(&summary).unwrap();
    assert!(
        page.contains(&format!("- `a::llm` — {escaped} — ")),
        "{page}"
    );
    let lines = annotation_lines(&out);
    let title = reason.replace(':', "%3A");
    assert!(
        lines
            .iter()
            .all(|l| l.contains(&format!("title=a%3A%3Allm%3A {title}::"))
                || !l.contains("a%3A%3Allm")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("title=a%3A%3Allm")),
        "{lines:#?}"
    );
}
