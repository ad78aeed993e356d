//! The daily loop holds (SPEC §19, §7, §14.1), each run through the `goldgate` binary over a
//! fixture folder made in the test: a gold set's case keeps one test and baseline name whether or
//! not a case file overrides it, and a baseline written under its former name is read and
//! rewritten; a suite's mistake is named in the suite file and for the case it was applied to;
//! a mistake in `cases:` comes without the errors it causes; a `document:` that does not exist
//! fails its case with or without a `run:` command.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{
    failure_block, goldgate, goldgate_report, goldgate_with, stdout, verdicts, write_files,
};

/// A gold set of three invoices and one pipeline, with a baseline and a regression gate; `c`'s
/// total is now predicted wrong. The baseline holds each entry under the name goldgate gave it
/// before, after its gold file (`gold/a::gemini`).
fn gold_set(root: &Path) {
    let mut files: Vec<(String, String)> = vec![
        (
            "cases/inv/suite.yaml".into(),
            "cases:\n  gold: gold/{case}.json\npipelines:\n  gemini: out/gemini/{case}.json\nbaseline: baseline.json\ntolerance: 0.01\nregression_gate: { metric: exact_match, min_effect: 0.02, confidence: 0.95 }\ndefaults:\n  thresholds: { min_exact_match: 0.5 }\n".into(),
        ),
        (
            "cases/inv/baseline.json".into(),
            "{\"goldgate_baseline\": 1, \"cases\": {\"gold/a::gemini\": {\"exact_match\": 1.0}, \"gold/b::gemini\": {\"exact_match\": 1.0}, \"gold/c::gemini\": {\"exact_match\": 1.0}}}\n".into(),
        ),
    ];
    for name in ["a", "b", "c"] {
        let gold = format!("{{\"number\": \"N-{name}\", \"total\": \"1.00\"}}");
        let total = if name == "c" { "9.99" } else { "1.00" };
        files.push((format!("cases/inv/gold/{name}.json"), gold));
        files.push((
            format!("cases/inv/out/gemini/{name}.json"),
            format!("{{\"number\": \"N-{name}\", \"total\": \"{total}\"}}"),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_files(root, &refs);
}

/// The entry names of the fixture's baseline.
fn baseline_names(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("cases/inv/baseline.json")).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    json["cases"].as_object().unwrap().keys().cloned().collect()
}

/// The verdict lines of the case tests (the aggregates' left out).
fn case_verdicts(out: &str) -> Vec<String> {
    verdicts(out)
        .into_iter()
        .filter(|v| !v.contains("aggregate"))
        .collect()
}

/// A run that finds every entry: `c`'s regression is found under its former name, no test is
/// new, no entry is of a test that no longer exists, and the gate pairs every case.
fn assert_every_entry_found(root: &Path) {
    let (run, report) = goldgate_report(root, &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(
        case_verdicts(&out),
        [
            "test inv/a::gemini ... ok",
            "test inv/b::gemini ... ok",
            "test inv/c::gemini ... FAILED",
        ],
        "{out}"
    );
    assert!(
        failure_block(&out, "inv/c::gemini")
            .starts_with("regression against the baseline `cases/inv/baseline.json`"),
        "{out}"
    );
    assert!(!out.contains("new, not in the baseline yet"), "{out}");
    assert!(!out.contains("no longer exist"), "{out}");
    let gate = &report["aggregates"][0]["regression_gate"];
    assert_eq!(gate["difference"]["cases"], 3, "{gate}");
}

/// A gold set's case is named `{case}` from the suite's folder, as its case file would be, with
/// or without that file: adding one renames neither its test nor its baseline entry. A baseline
/// written under the names goldgate gave before (after the gold file) is read, and rewritten
/// under the tests' names, said as such, when it is next written.
#[test]
fn a_gold_set_case_keeps_its_name_and_its_former_baseline_entry() {
    let dir = tempfile::tempdir().unwrap();
    gold_set(dir.path());
    assert_every_entry_found(dir.path());

    // A case file of the same name gives `a` a rubric: its names stay.
    write_files(
        dir.path(),
        &[(
            "cases/inv/a.yaml",
            "description: the number is what matters\nrubrics:\n  - must_right: the number is exact\n    field: number\n    exact: true\n",
        )],
    );
    assert_every_entry_found(dir.path());

    let out = goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    let out = stdout(&out);
    assert!(
        out.contains("baseline: cases/inv/baseline.json: 3 entries, 0 new, 3 changed, 0 of failed tests; 3 in the file\n\
         baseline: cases/inv/baseline.json: renamed 3 entries to their tests' names: gold/a::gemini -> a::gemini, gold/b::gemini -> b::gemini, gold/c::gemini -> c::gemini\n"),
        "{out}"
    );
    assert!(!out.contains("dropped"), "{out}");
    assert_eq!(
        baseline_names(dir.path()),
        ["a::gemini", "b::gemini", "c::gemini"]
    );

    // Read under the new names alike; `c`'s new numbers are accepted.
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert!(run.status.success(), "{out}");
    assert!(!out.contains("new, not in the baseline yet"), "{out}");
    assert!(!out.contains("no longer exist"), "{out}");
}

/// A value a case inherits from its suite's `defaults` is wrong for that case: its error is at
/// the suite file's line and column, and names the case it was applied to (a recorded
/// prediction, an inline one, a rubric on a field the case's gold lacks). A case's own value is
/// named with the case file, and no suite.
#[test]
fn a_suite_value_is_named_in_the_suite_and_for_its_case() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/inv/suite.yaml",
                "defaults:\n  thresholds: { min_exact_match: 1.0 }\n  prediction: outputs/missing.json\n",
            ),
            ("cases/inv/acme.yaml", "gold:\n  total: \"12\"\n"),
            (
                "cases/inv/own.yaml",
                "gold:\n  total: \"12\"\nprediction: outputs/own.json\n",
            ),
            (
                "cases/inline/suite.yaml",
                "defaults:\n  thresholds: { min_exact_match: 1.0 }\n  prediction: { fields: { total: { value: \"12\", confidence: 7 } } }\n",
            ),
            ("cases/inline/acme.yaml", "gold:\n  total: \"12\"\n"),
            (
                "cases/rubric/suite.yaml",
                "defaults:\n  prediction: { total: \"12\" }\n  rubrics:\n    - must_right: the number is exact\n      field: number\n      exact: true\n",
            ),
            ("cases/rubric/receipt.yaml", "gold:\n  total: \"12\"\n"),
        ],
    );
    let errors = [
        "error: cases/inline/suite.yaml:3:61: prediction.fields.total.confidence: confidence 7 is outside [0, 1], as applied to `cases/inline/acme.yaml` (write a confidence in [0, 1]; meanwhile the value is scored, its confidence left out of calibration and acceptance)",
        "error: cases/inv/suite.yaml:3:15: prediction: prediction file `cases/inv/outputs/missing.json` does not exist, as applied to `cases/inv/acme.yaml` (record the pipeline's output there, or fix the path: it is relative to the suite's folder)",
        "error: cases/inv/own.yaml:3:13: prediction: prediction file `cases/inv/outputs/own.json` does not exist (record the pipeline's output there, or fix the path: it is relative to the case file)",
        "error: cases/rubric/suite.yaml:5:14: rubrics[0].field: `exact` compares `number` with its gold, but gold has no `number`, as applied to `cases/rubric/receipt.yaml` (add `number` under `gold:`, or use a check that needs no gold, such as `equals` or `present`)",
    ];
    let out = stdout(&goldgate(dir.path(), &["lint", "cases"]));
    assert_eq!(
        out,
        format!("{}\nlint: 4 case files, 4 errors\n", errors.join("\n"))
    );
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    for (test, error) in ["inline/acme", "inv/acme", "inv/own", "rubric/receipt"]
        .iter()
        .zip(errors)
    {
        let block = failure_block(&out, test);
        // A confidence outside [0, 1] fails its field, not the prediction: the case is scored.
        let want = match error.strip_prefix("error: ") {
            Some(rest) if *test == "inline/acme" => format!("case failed: {rest} (score 1.0000)"),
            _ => error.to_owned(),
        };
        assert_eq!(block.lines().next(), Some(want.as_str()), "{out}");
    }
}

/// A `document:` that does not exist is a broken gold set whether or not a `run` command reads
/// it: the case fails, as `lint` says, at the `document:` key with the fix; a case whose
/// document is there passes.
#[test]
fn a_missing_document_fails_its_case_without_a_command() {
    let dir = tempfile::tempdir().unwrap();
    let case = "gold:\n  total: \"12\"\nprediction: { total: \"12\" }\nthresholds: { min_exact_match: 1.0 }\n";
    write_files(
        dir.path(),
        &[
            (
                "cases/gone.yaml",
                &format!("document: scans/gone.pdf\n{case}"),
            ),
            (
                "cases/kept.yaml",
                &format!("document: scans/kept.pdf\n{case}"),
            ),
            ("cases/scans/kept.pdf", "%PDF-1.4\n"),
        ],
    );
    let error = "error: cases/gone.yaml:1:11: document: the document `cases/scans/gone.pdf` does not exist (`document:` is relative to the file it is written in)";
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(101), "{out}");
    assert_eq!(
        verdicts(&out),
        ["test gone ... FAILED", "test kept ... ok"],
        "{out}"
    );
    assert_eq!(
        failure_block(&out, "gone"),
        format!("{error}\nthe case could not be loaded, so it was not run")
    );
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(lint.status.code(), Some(1));
    assert_eq!(
        stdout(&lint),
        format!("{error}\nlint: 2 case files, 1 error\n")
    );
}

/// A suite's `defaults: { document: scans/{case}.pdf }` names each case's own document, for a
/// gold set's cases too: `{case}` is the case's name from the suite's folder, as in its
/// pipelines' paths. The one whose scan is gone fails, named by its substituted path.
#[test]
fn a_suites_document_names_each_cases_own() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/inv/suite.yaml",
                "cases:\n  gold: gold/{case}.json\npipelines:\n  p: out/{case}.json\ndefaults:\n  document: scans/{case}.pdf\n  thresholds: { min_exact_match: 1.0 }\n",
            ),
            ("cases/inv/gold/a.json", r#"{"total": "12"}"#),
            ("cases/inv/gold/b.json", r#"{"total": "12"}"#),
            ("cases/inv/out/a.json", r#"{"total": "12"}"#),
            ("cases/inv/out/b.json", r#"{"total": "12"}"#),
            ("cases/inv/scans/a.pdf", "%PDF-1.4\n"),
        ],
    );
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert_eq!(
        case_verdicts(&out),
        ["test inv/a::p ... ok", "test inv/b::p ... FAILED"],
        "{out}"
    );
    assert!(
        failure_block(&out, "inv/b::p")
            .contains("the document `cases/inv/scans/b.pdf` does not exist"),
        "{out}"
    );
}

/// A mistake in `cases:` (a misspelt folder, a misspelt key) is the one error said: the case
/// files meant to add to the set's cases, left without gold by it, fail with it rather than with
/// errors that follow from it.
#[test]
fn a_mistake_in_cases_is_said_without_the_errors_it_causes() {
    for (cases, error) in [
        (
            "cases:\n  gold: lables/{case}.json\n",
            "error: cases/inv/suite.yaml:2:9: cases.gold: `lables/{case}.json` matches no file in `cases/inv` (check the path, relative to the suite's folder)",
        ),
        (
            "cases:\n  gol: gold/{case}.json\n",
            "error: cases/inv/suite.yaml:2:3: cases.gol: unknown key `gol` (did you mean `gold`?)",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        gold_set(dir.path());
        let overlay = "description: the number is what matters\nrubrics:\n  - must_right: the number is exact\n    field: number\n    exact: true\n";
        let suite = format!(
            "{cases}pipelines:\n  gemini: out/gemini/{{case}}.json\ndefaults:\n  thresholds: {{ min_exact_match: 0.5 }}\n"
        );
        write_files(
            dir.path(),
            &[
                ("cases/inv/suite.yaml", &suite),
                ("cases/inv/a.yaml", overlay),
                ("cases/inv/b.yaml", overlay),
            ],
        );
        let lint = stdout(&goldgate(dir.path(), &["lint", "cases"]));
        assert_eq!(lint, format!("{error}\nlint: 3 case files, 1 error\n"));
        let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
        assert_eq!(failure_block(&out, "inv/suite.yaml"), error, "{out}");
        for test in ["inv/a", "inv/b"] {
            let test = if cases.contains("gol:") {
                test.to_owned()
            } else {
                format!("{test}::gemini")
            };
            assert_eq!(
                failure_block(&out, &test),
                format!("{error}\nthe case could not be loaded, so it was not run"),
                "{out}"
            );
        }
    }
}
