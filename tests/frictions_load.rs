//! Frictions a new user met (issue 24), each run through the `goldgate` binary over a fixture
//! folder under `tests/fixtures/frictions-load`: a subfolder of the cases finds the project's
//! rubric sets, lint lists every bound out of range, every check on an unknown field says "did
//! you mean", a gold key one edit from a predicted key is named, a `[*]` unquoted in flow style
//! is explained with its fix, and `agree` skips the labels of rubrics it could not check.

mod support;

use std::path::PathBuf;

use support::{failure_lines, goldgate, stderr, stdout};

fn fixture(name: &str) -> PathBuf {
    support::fixtures("frictions-load").join(name)
}

/// `goldgate test cases/invoices/fr` finds `rubrics/` up to the project root, as it finds
/// suites: the include resolves, for `test`, `lint` and `agree` alike; `--rubrics` still wins.
#[test]
fn a_subfolder_of_the_cases_reads_the_rubric_sets_of_the_project() {
    let dir = fixture("subfolder");
    let out = goldgate(&dir, &["test", "cases/invoices/fr"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("test acme ... ok\n"),
        "{}",
        stdout(&out)
    );

    let out = goldgate(&dir, &["lint", "cases/invoices/fr"]);
    assert_eq!(stdout(&out), "lint: 1 case files, 0 errors\n");

    let out = goldgate(
        &dir,
        &["agree", "--human", "labels.jsonl", "cases/invoices/fr"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("  must_right       1  1.0000       -  1.0000   1 0 0 0\n"),
        "{}",
        stdout(&out)
    );

    // From inside the cases folder too: the walk starts at the folder named.
    let out = goldgate(&dir.join("cases/invoices"), &["lint", "en"]);
    assert_eq!(stdout(&out), "lint: 1 case files, 0 errors\n");

    let out = goldgate(
        &dir,
        &["lint", "cases/invoices/fr", "--rubrics", "cases/nowhere"],
    );
    assert_eq!(
        stdout(&out),
        "error: cases/invoices/fr/acme.yaml:4:14: rubrics[0].include: rubric set `money` not found: no `cases/nowhere/money.yaml` or `.yml` (create it, or point --rubrics at the folder of rubric sets, now `cases/nowhere`)\nlint: 1 case files, 1 error\n"
    );
}

/// Every threshold and aggregate bound out of its metric's range is said, in line order, each
/// at its line and column: `max_latency_ms: -5` as much as `min_anls: 2`.
#[test]
fn lint_lists_every_bound_out_of_range_in_line_order() {
    let out = goldgate(&fixture("bounds"), &["lint", "cases"]);
    let expected = [
        "error: cases/agg/suite.yaml:2:19: aggregate.max_latency_ms: `max_latency_ms` is -5; it must be 0 or more",
        "error: cases/agg/suite.yaml:3:18: aggregate.min_pass_rate: `min_pass_rate` is 3, outside [0, 1] (metrics and the score lie between 0 and 1)",
        "error: cases/agg/suite.yaml:4:13: aggregate.min_anls: `min_anls` is -1, outside [0, 1] (metrics and the score lie between 0 and 1)",
        "error: cases/thresholds.yaml:4:19: thresholds.max_latency_ms: `max_latency_ms` is -5; it must be 0 or more",
        "error: cases/thresholds.yaml:5:13: thresholds.min_anls: `min_anls` is 2, outside [0, 1] (metrics and the score lie between 0 and 1)",
        "error: cases/thresholds.yaml:6:20: thresholds.min_exact_match: `min_exact_match` is 1.5, outside [0, 1] (metrics and the score lie between 0 and 1)",
        "error: cases/thresholds.yaml:7:21: thresholds.max_extra_fields: `max_extra_fields` is 0.5, not a count (write a whole number such as 0)",
        "error: cases/thresholds.yaml:8:17: thresholds.max_cost_usd: `max_cost_usd` is -1; it must be 0 or more",
        "lint: 2 case files, 8 errors",
    ];
    assert_eq!(stdout(&out).lines().collect::<Vec<_>>(), expected);
    assert_eq!(out.status.code(), Some(1));

    // `test` refuses the case with the same list.
    let out = goldgate(
        &fixture("bounds"),
        &["test", "cases", "--exact", "thresholds"],
    );
    let block = failure_lines(&stdout(&out), "thresholds");
    assert_eq!(block[..5], expected[3..8]);
}

/// `field: totl` says "did you mean `total`?" whatever the check: those that compare with gold
/// (refused when the case loads) and those that read the value (found before scoring).
#[test]
fn every_check_on_an_unknown_field_asks_did_you_mean() {
    let out = goldgate(&fixture("did-you-mean"), &["lint", "cases"]);
    assert_eq!(
        stdout(&out).lines().collect::<Vec<_>>(),
        [
            "error: cases/against-gold.yaml:5:12: rubrics[0].field: `exact` compares `totl` with its gold, but gold has no `totl` (did you mean `total`?)",
            "error: cases/against-gold.yaml:8:12: rubrics[1].field: `min_anls` compares `totl` with its gold, but gold has no `totl` (did you mean `total`?)",
            "error: cases/on-the-value.yaml:4:5: must_right `the total is a number`: totl: the field is in neither gold nor the prediction (did you mean `total`?)",
            "error: cases/on-the-value.yaml:7:5: must_right `the total is there`: totl: the field is in neither gold nor the prediction (did you mean `total`?)",
            "lint: 2 case files, 4 errors",
        ]
    );
}

/// Gold `invoice_no`, prediction `invoice_nr`: the failure message names the predicted key, in
/// the field's block and in the verdict of a rubric on it.
#[test]
fn a_gold_key_one_edit_from_a_predicted_key_is_named_as_maybe_misnamed() {
    let out = goldgate(&fixture("misnamed"), &["test", "cases"]);
    let stdout = stdout(&out);
    let absent = "  prediction  (absent; the prediction has `invoice_nr`, maybe a misnamed key)";
    let threshold = failure_lines(&stdout, "by-threshold");
    assert_eq!(
        threshold[..5],
        [
            "case failed: min_exact_match failed: 0.5000 < 1 (score 1.0000)",
            "",
            "threshold min_exact_match failed: 0.5000 < 1",
            "",
            "field `invoice_no`",
        ]
    );
    assert_eq!(threshold[6], absent);
    let rubric = failure_lines(&stdout, "by-rubric");
    assert_eq!(
        rubric[2],
        "must_right `the invoice number is exact` failed (closes the gate): invoice_no: `` is not an exact match of its gold (the prediction has no `invoice_no` but has `invoice_nr`, maybe a misnamed key)"
    );
    assert_eq!(rubric[6], absent);
}

/// `sum_of: [line_items[*].amount]` is an alias for YAML: the error says so at the path, with
/// the line quoted, in a case, a rubric set and a suite, under any key written in flow style.
/// Quoted or in block style, the path reads.
#[test]
fn a_star_path_unquoted_in_flow_style_is_explained_with_its_fix() {
    let out = goldgate(&fixture("star-in-flow"), &["lint", "cases"]);
    assert_eq!(
        stdout(&out).lines().collect::<Vec<_>>(),
        [
            "error: cases/critical.yaml:3:12: critical: `line_items[*].amount` is unquoted inside flow brackets, where YAML reads its `*` as an alias (quote the paths: `critical: [\"line_items[*].amount\", \"line_items[*].name\"]`, or write it in block style)",
            "error: cases/defaults/suite.yaml:2:13: defaults.fields: `line_items[*].amount` is unquoted inside flow brackets, where YAML reads its `*` as an alias (quote the path: `fields: { \"line_items[*].amount\": { number: true } }`, or write it in block style)",
            "error: rubrics/lines.yaml:4:15: rubrics[0].sum_of: `line_items[*].amount` is unquoted inside flow brackets, where YAML reads its `*` as an alias (quote the path: `sum_of: [ \"line_items[*].amount\" ]`, or write it in block style)",
            "error: cases/mapping.yaml:4:52: rubrics: `line_items[*].amount` is unquoted inside flow brackets, where YAML reads its `*` as an alias (quote the path: `- { must_right: every line has an amount, field: \"line_items[*].amount\", present: true }`, or write it in block style)",
            "error: cases/sum.yaml:6:14: rubrics[0].sum_of: `line_items[*].amount` is unquoted inside flow brackets, where YAML reads its `*` as an alias (quote the path: `sum_of: [\"line_items[*].amount\"]`, or write it in block style)",
            "lint: 6 case files, 5 errors",
        ]
    );
    let out = goldgate(
        &fixture("star-in-flow"),
        &["test", "cases", "--exact", "block"],
    );
    assert!(
        stdout(&out).contains("test block ... ok\n"),
        "{}",
        stdout(&out)
    );
}

/// A label of a rubric goldgate could not check, or a rating of a test with one, is skipped and
/// listed with its line; the other labels are compared. A broken line names its own line and
/// column, not serde_json's `line 1`.
#[test]
fn agree_skips_the_labels_of_unchecked_rubrics_and_names_the_right_line() {
    let dir = fixture("agree");
    let out = goldgate(&dir, &["agree", "--human", "labels.jsonl", "cases"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "rubric verdicts    n   agree   kappa  bal.F1   confusion, person × goldgate (held·held held·failed failed·held failed·failed)
  all              1  1.0000       -  1.0000   1 0 0 0
  must_right       1  1.0000       -  1.0000   1 0 0 0
no disagreement
skipped 2 labels, as goldgate could not check a rubric (fix it to count them):
  labels.jsonl:3: `receipt` rubric `the date reads as a number` could not be checked: date: `x` could not be read as a number
  labels.jsonl:4: the rating of `receipt`: its score is no measure to grade, as its rubric `the date reads as a number` could not be checked: date: `x` could not be read as a number
"
    );

    let out = goldgate(
        &dir,
        &["agree", "--human", "labels.jsonl", "cases", "--json"],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["skipped"][0],
        serde_json::json!({
            "at": "labels.jsonl:3",
            "test": "receipt",
            "rubric": "the date reads as a number",
            "why": "could not be checked: date: `x` could not be read as a number",
        })
    );
    assert_eq!(json["skipped"][1]["rubric"], serde_json::Value::Null);
    assert_eq!(json["verdicts"]["all"]["n"], 1);

    // With every label skipped there is nothing to agree on: an error, with what to fix.
    let out = goldgate(&dir, &["agree", "--human", "only-unchecked.jsonl", "cases"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: only-unchecked.jsonl: no label could be compared, as goldgate could not check a rubric each needs (fix it to count them):
  only-unchecked.jsonl:1: `receipt` rubric `the date reads as a number` could not be checked: date: `x` could not be read as a number
"
    );

    let out = goldgate(&dir, &["agree", "--human", "broken.jsonl", "cases"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: broken.jsonl:3:64: invalid JSON: expected ident\nerror: broken.jsonl:4: no test is named `reciept` (did you mean `receipt`?)\n"
    );
}
