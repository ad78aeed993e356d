//! Usage as each provider writes it, priced as the provider bills it: Gemini's thinking at the
//! output price, OpenAI's reasoning not counted twice, Anthropic's cache reads at the cached
//! price, Gemini's `modelVersion` read as the model. The binary over a project written here.

mod support;

use support::{goldgate, read_report, stdout, write_files};

const SUITE: &str = "\
pricing:
  gemini-2.5-pro: { input_per_mtok: 1.25, output_per_mtok: 10 }
  gpt-5: { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 }
  claude-sonnet-4-5: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3 }
";

fn case(name: &str) -> (String, String) {
    (
        format!("cases/{name}.yaml"),
        format!(
            "prediction: outputs/{name}.json\ngold:\n  total: \"12\"\nthresholds: {{ min_exact_match: 1 }}\n"
        ),
    )
}

fn cost_of(report: &serde_json::Value, id: &str) -> f64 {
    let case = support::case(report, id);
    case["metrics"]["cost_usd"]
        .as_f64()
        .unwrap_or_else(|| panic!("{case:#}"))
}

#[test]
fn every_provider_s_usage_is_priced_as_it_is_billed() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(String, String)> = ["gemini", "openai", "anthropic"].map(case).into();
    let mut files: Vec<(&str, &str)> = cases
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    files.push(("cases/suite.yaml", SUITE));
    // The recording of the issue: 2,211 prompt, 293 candidate and 1,342 thinking tokens.
    files.push((
        "cases/outputs/gemini.json",
        r#"{"fields": {"total": "12"}, "modelVersion": "gemini-2.5-pro",
            "usageMetadata": {"promptTokenCount": 2211, "candidatesTokenCount": 293,
            "thoughtsTokenCount": 1342, "totalTokenCount": 3846}}"#,
    ));
    files.push((
        "cases/outputs/openai.json",
        r#"{"fields": {"total": "12"}, "model": "gpt-5",
            "usage": {"input_tokens": 2000, "input_tokens_details": {"cached_tokens": 1000},
            "output_tokens": 500, "output_tokens_details": {"reasoning_tokens": 300},
            "total_tokens": 2500}}"#,
    ));
    files.push((
        "cases/outputs/anthropic.json",
        r#"{"fields": {"total": "12"}, "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 1000, "cache_creation_input_tokens": 200,
            "cache_read_input_tokens": 4000, "output_tokens": 100}}"#,
    ));
    write_files(dir.path(), &files);
    let out = goldgate(dir.path(), &["test", "cases", "--report", "report.json"]);
    assert!(out.status.success(), "{}", stdout(&out));
    let report = read_report(&dir.path().join("report.json"), &out);

    let gemini = cost_of(&report, "gemini");
    assert_eq!(gemini, 2211.0 / 1e6 * 1.25 + (293.0 + 1342.0) / 1e6 * 10.0);
    // 3.4 times what the prompt and the candidates alone would cost.
    let without_thinking = 2211.0 / 1e6 * 1.25 + 293.0 / 1e6 * 10.0;
    assert!(
        (gemini / without_thinking - 3.36).abs() < 0.01,
        "{}",
        gemini / without_thinking
    );
    let case_record = |id: &str| {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(case_record("gemini")["model"], "gemini-2.5-pro");
    assert_eq!(case_record("gemini")["usage"]["reasoning_tokens"], 1342.0);

    // Reasoning is inside OpenAI's output count already; the cached input is at its price.
    assert_eq!(
        cost_of(&report, "openai"),
        1000.0 / 1e6 * 1.25 + 1000.0 / 1e6 * 0.125 + 500.0 / 1e6 * 10.0
    );
    // Anthropic's cache reads and writes are input beside `input_tokens`.
    assert_eq!(
        cost_of(&report, "anthropic"),
        1200.0 / 1e6 * 3.0 + 4000.0 / 1e6 * 0.3 + 100.0 / 1e6 * 15.0
    );
    assert_eq!(case_record("anthropic")["usage"]["input_tokens"], 5200.0);
}

#[test]
fn two_names_of_the_model_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/a.yaml",
                "prediction: a.json\ngold:\n  total: \"12\"\nthresholds: { min_exact_match: 1 }\n",
            ),
            (
                "cases/a.json",
                r#"{"fields": {"total": "12"}, "model": "x", "modelVersion": "y"}"#,
            ),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101));
    assert!(
        stdout(&out).contains(
            "modelVersion: `modelVersion` and `model` both name the model (keep one of them: `model` or `modelVersion`)"
        ),
        "{}",
        stdout(&out)
    );
}
