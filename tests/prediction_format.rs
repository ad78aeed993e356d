//! Recorded outputs in the shape their pipelines write them (`prediction_format:`): OpenAI-,
//! Anthropic- and Gemini-shaped documents read through a suite's format, a failed call failing
//! its case with the pipeline's own words, a reported cost winning over pricing, a usage that
//! does not add up said once, a case's and a deeper suite's format replacing the suite's. The
//! binary over the fixtures in `tests/fixtures/prediction-format`.

mod support;

use std::path::PathBuf;

use serde_json::Value;
use support::{case, goldgate, goldgate_report, stdout};

fn fixture(name: &str) -> PathBuf {
    support::fixtures("prediction-format").join(name)
}

/// The run over the `run` fixture: its output and its report.
fn run() -> (String, bool, Value) {
    let (out, report) = goldgate_report(&fixture("run"), &["test", "cases"]);
    (stdout(&out), out.status.success(), report)
}

/// The failure block of a test in libtest's output, to its first blank line.
fn failure(out: &str, id: &str) -> String {
    let lines = support::failure_lines(out, id);
    let block: Vec<&str> = lines
        .iter()
        .map(String::as_str)
        .take_while(|l| !l.is_empty())
        .collect();
    block.join("\n")
}

#[test]
fn each_provider_s_document_is_read_through_the_suite_s_format() {
    let (out, _, report) = run();
    for id in ["openai", "anthropic", "gemini"] {
        assert!(out.contains(&format!("test {id} ")), "{out}");
        let c = case(&report, id);
        assert_eq!(c["status"], "passed", "{c:#}");
        assert_eq!(c["metrics"]["exact_match"], 1.0, "{c:#}");
    }
    // `time_sec` is seconds; the case's latency is in milliseconds.
    assert_eq!(case(&report, "openai")["metrics"]["latency_ms"], 10250.0);
    assert_eq!(case(&report, "anthropic")["metrics"]["latency_ms"], 15500.0);
    assert_eq!(case(&report, "gemini")["metrics"]["latency_ms"], 7500.0);
    // `meta.model` and `meta.usage`, in each provider's own names.
    let openai = case(&report, "openai");
    assert_eq!(openai["model"], "gpt-5.5");
    assert_eq!(openai["usage"]["input_tokens"], 1954.0);
    assert_eq!(openai["usage"]["reasoning_tokens"], 174.0);
    assert_eq!(
        openai["metrics"]["cost_usd"].as_f64().unwrap(),
        1954.0 / 1e6 * 1.25 + 388.0 / 1e6 * 10.0
    );
    let anthropic = case(&report, "anthropic");
    assert_eq!(anthropic["model"], "claude-sonnet-4-6");
    assert_eq!(
        anthropic["metrics"]["cost_usd"].as_f64().unwrap(),
        3272.0 / 1e6 * 3.0 + 230.0 / 1e6 * 15.0
    );
    // Gemini's thinking is output, beside its candidates.
    let gemini = case(&report, "gemini");
    assert_eq!(gemini["model"], "gemini-3.5-flash");
    assert_eq!(gemini["usage"]["output_tokens"], 388.0 + 961.0);
    assert_eq!(
        gemini["metrics"]["cost_usd"].as_f64().unwrap(),
        574.0 / 1e6 * 0.3 + (388.0 + 961.0) / 1e6 * 2.5
    );
    // A `cost: null` is not reported: the cost is computed from the pricing, as above.
    assert!(openai["usage_mismatch"].is_null(), "{openai:#}");
}

#[test]
fn a_reported_cost_wins_over_pricing_and_needs_no_price() {
    let (_, _, report) = run();
    // A million input tokens at 1.25 would be 1.25; the pipeline says it cost 0.0625.
    let reported = case(&report, "reported");
    assert_eq!(reported["status"], "passed");
    assert_eq!(reported["metrics"]["cost_usd"], 0.0625);
    // A model the pricing lacks is no problem when the pipeline reports its cost.
    let unpriced = case(&report, "unpriced");
    assert_eq!(unpriced["status"], "passed", "{unpriced:#}");
    assert_eq!(unpriced["model"], "extend-v2");
    assert_eq!(unpriced["metrics"]["cost_usd"], 0.0625);
    assert_eq!(unpriced["problems"], serde_json::json!([]));
}

#[test]
fn a_failed_call_fails_its_case_with_the_pipeline_s_own_words() {
    let (out, passed, report) = run();
    assert!(!passed);
    assert_eq!(
        failure(&out, "rate-limited"),
        "error: cases/outputs/rate-limited.json:2:3: the pipeline's call failed: Rate limit reached for gpt-5.5: retry in 20s (`status` is \"error\", not \"ok\")\n\
         the case counts as a failed call, not as an empty prediction: nothing was scored"
    );
    let limited = case(&report, "rate-limited");
    assert_eq!(limited["status"], "failed");
    assert_eq!(limited["error"]["kind"], "prediction");
    assert_eq!(
        limited["error"]["message"],
        "the pipeline's call failed: Rate limit reached for gpt-5.5: retry in 20s (`status` is \"error\", not \"ok\")"
    );
    // Not scored as an empty prediction: no metrics at all.
    assert!(limited["metrics"].is_null(), "{limited:#}");
    // `data: null` with `status: ok` and no error text: which key held what.
    assert_eq!(
        failure(&out, "no-data"),
        "error: cases/outputs/no-data.json:5:3: the pipeline's call failed: `data` is null\n\
         the case counts as a failed call, not as an empty prediction: nothing was scored"
    );
    assert!(case(&report, "no-data")["metrics"].is_null());
    assert!(
        out.contains("test result: FAILED. 9 passed; 2 failed;"),
        "{out}"
    );
}

#[test]
fn a_usage_that_does_not_add_up_is_said_once_and_the_case_still_passes() {
    let (out, _, report) = run();
    let warning = "warning: `cases/outputs/mismatch.json`: the usage's total is 2600 tokens but its parts (input + output) are 2500; its cost is computed from input + output as billed\n";
    assert_eq!(out.matches(warning).count(), 1, "{out}");
    for id in ["mismatch-a", "mismatch-b"] {
        let c = case(&report, id);
        assert_eq!(c["status"], "passed");
        assert_eq!(
            c["usage_mismatch"],
            serde_json::json!({"file": "cases/outputs/mismatch.json", "total": 2600.0, "parts": 2500.0})
        );
        // Priced from input + output as billed.
        assert_eq!(
            c["metrics"]["cost_usd"].as_f64().unwrap(),
            2000.0 / 1e6 * 1.25 + 500.0 / 1e6 * 10.0
        );
    }
    // `goldgate report` lists it again, from the report.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    std::fs::write(&path, report.to_string()).unwrap();
    let again = goldgate(dir.path(), &["report", path.to_str().unwrap()]);
    assert_eq!(
        stdout(&again).matches(warning).count(),
        1,
        "{}",
        stdout(&again)
    );
}

#[test]
fn a_case_s_and_a_deeper_suite_s_format_replace_the_suite_s_whole() {
    let (_, _, report) = run();
    // The case's own format: JSON pointers, `~1` for a `/` in a key, no `ok:` (its `status` is
    // ignored) and no usage.
    let own = case(&report, "own-format");
    assert_eq!(own["status"], "passed", "{own:#}");
    assert_eq!(own["metrics"]["latency_ms"], 1250.0);
    assert!(own["model"].is_null());
    // A deeper suite's format, with a list index in its pointer; its cost reported.
    let listed = case(&report, "pointer/listed");
    assert_eq!(listed["status"], "passed", "{listed:#}");
    assert_eq!(listed["model"], "in-house-7");
    assert_eq!(listed["metrics"]["latency_ms"], 420.0);
    assert_eq!(listed["metrics"]["cost_usd"], 0.004);
}

#[test]
fn an_unknown_key_of_the_format_is_refused_with_a_hint() {
    let out = goldgate(&fixture("typo"), &["test", "cases"]);
    assert!(!out.status.success());
    assert_eq!(
        failure(&stdout(&out), "a"),
        "error: cases/suite.yaml:3:3: prediction_format.latency_sec: unknown key `latency_sec` (did you mean `latency_s`?)\n\
         the case could not be loaded, so it was not run"
    );
}

#[test]
fn fields_the_path_does_not_reach_are_a_located_error() {
    let out = goldgate(&fixture("missing"), &["test", "cases"]);
    assert!(!out.status.success());
    assert_eq!(
        failure(&stdout(&out), "a"),
        "error: cases/outputs/a.json:1:1: `result.fields` reaches nothing in this document, where the `prediction_format` at cases/suite.yaml:2:11 reads the fields (fix the format's `fields` path, or record the pipeline's whole document)\n\
         the prediction could not be read, so nothing was scored"
    );
}

#[test]
fn a_command_s_output_is_read_through_the_format_too() {
    let out_dir = tempfile::tempdir().unwrap();
    let report = out_dir.path().join("report.json");
    let out = goldgate(
        &fixture("command"),
        &["test", "cases", "--report", report.to_str().unwrap()],
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let served = case(&report, "served");
    assert_eq!(served["status"], "passed", "{served:#}");
    assert_eq!(served["model"], "gpt-5.5");
    // The document's own `message`, the call located at the suite's `run`.
    assert_eq!(
        failure(&stdout(&out), "refused"),
        "error: cases/suite.yaml:3:3: the pipeline's call failed: the document is password-protected (`status` is \"error\", not \"ok\")\n\
         the case counts as a failed call, not as an empty prediction: nothing was scored"
    );
}

#[test]
fn a_prediction_that_is_not_json_under_a_format_is_refused() {
    let out = goldgate(&fixture("yaml"), &["test", "cases"]);
    assert!(!out.status.success());
    assert_eq!(
        failure(&stdout(&out), "a"),
        "error: cases/a.yaml:1:13: prediction: prediction `cases/outputs/a.yaml` is not a .json document, and the `prediction_format` at cases/suite.yaml:2:11 reads JSON documents (record the pipeline's JSON document there, a .json file)\n\
         the prediction could not be read, so nothing was scored"
    );
}

#[test]
fn a_case_s_format_over_an_inline_prediction_is_refused() {
    let out = goldgate(&fixture("inline"), &["test", "cases"]);
    assert!(!out.status.success());
    assert_eq!(
        failure(&stdout(&out), "a"),
        "error: cases/a.yaml:4:11: prediction_format: this case's `prediction_format` reads a pipeline's document, but its prediction is written in the case (point `prediction:` at the pipeline's recorded .json document, or remove `prediction_format`)\n\
         the case could not be loaded, so it was not run"
    );
}
