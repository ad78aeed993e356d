//! How a case merges with its suites (SPEC §19), from the `goldgate` binary over folders made
//! here: `thresholds` bound by bound (`null` removes one), `rubrics` added to the suites' unless
//! the case says `replace`, a `prediction_format` per pipeline, and `lint --explain`, which
//! prints the case as merged.

mod support;

use std::path::Path;

use support::{failure_block, goldgate, stdout, verdict_of, write_files};

/// A suite with three bounds and a critical field; cases whose prediction gets the critical
/// `number` right and on its page, and `supplier` half wrong (ANLS 0.5625, mean ANLS 0.78).
fn thresholds_project(dir: &Path) {
    write_files(
        dir,
        &[
            (
                "cases/suite.yaml",
                "defaults:\n  critical: [number]\n  thresholds: { min_score: 0.5, min_anls: 0.95, min_exact_critical: 1 }\n",
            ),
            (
                "cases/pred.json",
                "{\"number\": {\"value\": \"FA-1\", \"page\": 1}, \"supplier\": \"ACME Corp\"}\n",
            ),
            (
                "cases/adds.yaml",
                "prediction: pred.json\ngold:\n  number: { value: FA-1, page: 1 }\n  supplier: ACME Corporation\nthresholds: { min_grounded: 1 }\n",
            ),
            (
                "cases/removes.yaml",
                "prediction: pred.json\ngold:\n  number: { value: FA-1, page: 1 }\n  supplier: ACME Corporation\nthresholds: { min_anls: null }\n",
            ),
            (
                "cases/nothing.yaml",
                "prediction: pred.json\ngold:\n  number: FA-1\nthresholds: { min_score: null, min_anls: null, min_exact_critical: null }\n",
            ),
        ],
    );
}

/// A case that adds `min_grounded` keeps the suite's `min_anls`, and fails on it alone, the
/// bound located in the suite file; `null` removes the suite's bound; a case that removes every
/// bound, with no rubric, checks nothing, which is an error.
#[test]
fn a_case_threshold_adds_to_the_suites_and_null_removes_one() {
    let dir = tempfile::tempdir().unwrap();
    thresholds_project(dir.path());
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(verdict_of(&text, "adds"), "test adds ... FAILED", "{text}");
    let block = failure_block(&text, "adds");
    assert!(
        block.starts_with("case failed: min_anls failed: 0.7812 < 0.95 (score 1.0000)"),
        "{block}"
    );
    assert!(
        block.ends_with("at cases/suite.yaml:3 (thresholds.min_anls)"),
        "{block}"
    );
    assert!(!block.contains("min_grounded failed"), "{block}");
    assert_eq!(
        verdict_of(&text, "removes"),
        "test removes ... ok",
        "{text}"
    );
    assert_eq!(
        verdict_of(&text, "nothing"),
        "test nothing ... FAILED",
        "{text}"
    );
    assert!(
        failure_block(&text, "nothing").contains(
            "cases/nothing.yaml:1:1: this case checks nothing: it has no rubric and no threshold"
        ),
        "{text}"
    );
}

/// A bound out of range is said where it is written: the suite's in the suite file, naming the
/// case, the case's own in the case file.
#[test]
fn a_bound_out_of_range_is_located_in_the_file_that_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "defaults:\n  thresholds: { min_anls: 2, min_score: 0.5 }\n",
            ),
            (
                "cases/a.yaml",
                "prediction: { n: x }\ngold: { n: x }\nthresholds:\n  min_exact_match: 1.5\n",
            ),
        ],
    );
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(
        stdout(&out).lines().collect::<Vec<_>>(),
        [
            "error: cases/a.yaml:4:20: thresholds.min_exact_match: `min_exact_match` is 1.5, outside [0, 1] (metrics and the score lie between 0 and 1)",
            "error: cases/suite.yaml:2:27: thresholds.min_anls: `min_anls` is 2, outside [0, 1], as applied to `cases/a.yaml` (metrics and the score lie between 0 and 1)",
            "lint: 1 case files, 2 errors",
        ]
    );
}

/// A suite that includes a rubric set and cases whose `number` is predicted wrong.
fn rubrics_project(dir: &Path) {
    write_files(
        dir,
        &[
            (
                "rubrics/basics.yaml",
                "rubrics:\n  - must_right: the number is right\n    field: number\n    exact: true\n",
            ),
            (
                "cases/suite.yaml",
                "defaults:\n  rubrics:\n    - include: basics\n",
            ),
            (
                "cases/pred.json",
                "{\"number\": \"FA-2\", \"supplier\": \"ACME\"}\n",
            ),
            (
                "cases/adds.yaml",
                "prediction: pred.json\ngold: { number: FA-1, supplier: ACME }\nrubrics:\n  - must_right: the supplier is named\n    field: supplier\n    contains: acme\n",
            ),
            (
                "cases/replaces.yaml",
                "prediction: pred.json\ngold: { number: FA-1, supplier: ACME }\nrubrics:\n  replace:\n    - must_right: the supplier is named\n      field: supplier\n      contains: acme\n",
            ),
            (
                "cases/same-label.yaml",
                "prediction: pred.json\ngold: { number: FA-1, supplier: ACME }\nrubrics:\n  - must_right: the number is right\n    field: number\n    matches: \"^FA-\"\n",
            ),
        ],
    );
}

/// A case's rubrics keep the suite's include, first; `replace` drops them; a case rubric with a
/// suite rubric's label takes its place instead of counting twice.
#[test]
fn a_case_rubrics_keep_the_suites_unless_it_says_replace() {
    let dir = tempfile::tempdir().unwrap();
    rubrics_project(dir.path());
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(verdict_of(&text, "adds"), "test adds ... FAILED", "{text}");
    let block = failure_block(&text, "adds");
    assert!(
        block.contains("must_right `the number is right` failed"),
        "{block}"
    );
    assert_eq!(
        verdict_of(&text, "replaces"),
        "test replaces ... ok",
        "{text}"
    );
    assert_eq!(
        verdict_of(&text, "same-label"),
        "test same-label ... ok",
        "{text}"
    );
}

/// `rubrics:` as a mapping takes `replace` alone: another key is refused with the one it takes.
#[test]
fn a_rubrics_mapping_without_replace_is_refused_at_its_key() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "cases/a.yaml",
            "prediction: { n: x }\ngold: { n: x }\nrubrics:\n  replce: []\n",
        )],
    );
    let out = goldgate(dir.path(), &["lint", "cases"]);
    let text = stdout(&out);
    assert!(
        text.starts_with("error: cases/a.yaml:4:3: rubrics.replce: unknown key `replce`"),
        "{text}"
    );
    assert!(text.contains("did you mean `replace`?"), "{text}");
}

/// Two pipelines write their documents in two shapes, each read through its own format.
fn formats_project(dir: &Path, gpt_fields: &str) {
    let suite = format!(
        "pipelines:\n  gpt:\n    prediction: results/gpt/{{case}}.json\n    prediction_format: {{ fields: \"{gpt_fields}\", model: model }}\n  claude:\n    prediction: results/claude/{{case}}.json\n    prediction_format:\n      fields: content.0.input\n      latency_ms: ms\n"
    );
    write_files(
        dir,
        &[
            ("cases/suite.yaml", &suite),
            (
                "cases/inv.yaml",
                "gold: { number: FA-1 }\nthresholds: { min_exact_match: 1 }\n",
            ),
            (
                "cases/results/gpt/inv.json",
                "{\"model\": \"gpt-5\", \"choices\": [{\"message\": {\"parsed\": {\"number\": \"FA-1\"}}}]}\n",
            ),
            (
                "cases/results/claude/inv.json",
                "{\"ms\": 1200, \"content\": [{\"input\": {\"number\": \"FA-1\"}}]}\n",
            ),
        ],
    );
}

#[test]
fn each_pipeline_reads_its_documents_through_its_own_format() {
    let dir = tempfile::tempdir().unwrap();
    formats_project(dir.path(), "choices.0.message.parsed");
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(
        verdict_of(&text, "inv::gpt"),
        "test inv::gpt ... ok",
        "{text}"
    );
    assert_eq!(
        verdict_of(&text, "inv::claude"),
        "test inv::claude ... ok",
        "{text}"
    );

    // A mistake in a pipeline's format is located at its key in the suite file.
    let dir = tempfile::tempdir().unwrap();
    formats_project(dir.path(), "choices..parsed");
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some(
            "error: cases/suite.yaml:4:34: pipelines.gpt.prediction_format.fields: `choices..parsed`: a dotted path with an empty step (write a dotted path (`meta.usage`, a list index as a number: `choices.0`) or a JSON pointer (`/meta/usage`))"
        ),
        "{}",
        stdout(&out)
    );
}

/// `lint --explain` prints the case as merged: thresholds and rubrics each with where it is
/// written (a deeper suite's bound over the outer one's), and each pipeline's prediction and
/// format; by test name or by file.
#[test]
fn lint_explain_prints_the_case_as_merged() {
    let dir = tempfile::tempdir().unwrap();
    formats_project(dir.path(), "choices.0.message.parsed");
    write_files(
        dir.path(),
        &[
            (
                "rubrics/basics.yaml",
                "rubrics:\n  - must_right: the number is right\n    field: number\n    exact: true\n",
            ),
            (
                "cases/inv/suite.yaml",
                "defaults:\n  critical: [number]\n  thresholds: { min_anls: 0.8, min_exact_critical: 1 }\n  rubrics: [{ include: basics }]\n  fields: { total: { compare: number, tolerance: 0.01 } }\n",
            ),
            (
                "cases/inv/acme.yaml",
                "gold: { number: FA-1, total: \"10.00\" }\nthresholds: { min_anls: 0.9, min_exact_critical: null, max_extra_fields: 0 }\nrubrics:\n  - easy_wrong: no currency sign\n    field: total\n    not_contains: \"€\"\n",
            ),
        ],
    );
    let expected = "\
case inv/acme (cases/inv/acme.yaml)
critical: number
fields: 2, compared as text, exact, but for these rules:
  total: number (tolerance 0.01), correct when exact
thresholds:
  min_anls: 0.9        cases/inv/acme.yaml:2:25
  max_extra_fields: 0  cases/inv/acme.yaml:2:74
rubrics:
  must_right: the number is right  rubrics/basics.yaml:2:5 (included at cases/inv/suite.yaml:4)
  easy_wrong: no currency sign     cases/inv/acme.yaml:4:5
pipeline claude:
  prediction: cases/results/claude/inv/acme.json (the pipeline's path at cases/suite.yaml:6:17)
  prediction_format: fields content.0.input, latency_ms ms (at cases/suite.yaml:8:15)
pipeline gpt:
  prediction: cases/results/gpt/inv/acme.json (the pipeline's path at cases/suite.yaml:3:17)
  prediction_format: fields choices.0.message.parsed, model model (at cases/suite.yaml:4:34)
";
    let out = goldgate(dir.path(), &["lint", "cases", "--explain", "inv/acme"]);
    assert_eq!(stdout(&out), expected);
    assert!(out.status.success());
    let out = goldgate(
        dir.path(),
        &["lint", "cases", "--explain", "cases/inv/acme.yaml"],
    );
    assert_eq!(stdout(&out), expected);

    // One pipeline's test name explains that pipeline alone; a name of no case is said with
    // the nearest.
    let out = goldgate(dir.path(), &["lint", "cases", "--explain", "inv/acme::gpt"]);
    assert!(
        stdout(&out).ends_with(
            "pipeline gpt:\n  prediction: cases/results/gpt/inv/acme.json (the pipeline's path at cases/suite.yaml:3:17)\n  prediction_format: fields choices.0.message.parsed, model model (at cases/suite.yaml:4:34)\n"
        ),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("pipeline claude"));
    // A misspelt pipeline explains none of the others.
    let out = goldgate(dir.path(), &["lint", "cases", "--explain", "inv/acme::gtp"]);
    assert_eq!(
        stdout(&out),
        "error: no test is named `inv/acme::gtp`: its case has `inv/acme::claude`, `inv/acme::gpt`\n"
    );
    assert_eq!(out.status.code(), Some(1));
    let out = goldgate(dir.path(), &["lint", "cases", "--explain", "inv/acmee"]);
    assert_eq!(
        stdout(&out),
        "error: no case `inv/acmee` under `cases` (did you mean `inv/acme`?)\n"
    );
    assert_eq!(out.status.code(), Some(1));
}
