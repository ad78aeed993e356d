//! Gold from files, and gold sets without a YAML file per document (SPEC §14.1, issue 22), each
//! run through the `goldgate` binary over a fixture folder under `tests/fixtures/gold-files`:
//! `gold:` naming a `.json` or `.yaml` file keeps the written text of its values and locates its
//! mistakes in it; a suite's `cases:` makes a case of every gold file for each pipeline, scores
//! the fields its schema names, takes attributes from a metadata table (JSON, JSON Lines, CSV),
//! lets a case file of the same name override it, and reports every mismatch.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{
    case_in, goldgate, goldgate_with, read_report, stderr, stdout, verdicts, write_files,
};

fn fixture(name: &str) -> PathBuf {
    support::fixtures("gold-files").join(name)
}

/// The lines of a failure block, from its `---- NAME ----` line to the next block, blank lines
/// left out.
fn failure_block(out: &str, name: &str) -> Vec<String> {
    let mut lines = support::failure_lines(out, name);
    lines.retain(|l| !l.is_empty());
    lines
}

/// `goldgate test cases` in `dir` with a report written: (stdout, the report's cases by name).
fn run_with_report(dir: &Path, args: &[&str]) -> (String, Vec<Value>) {
    let out_dir = tempfile::tempdir().unwrap();
    let report = out_dir.path().join("report.json");
    let out = goldgate_with(dir, args, &[("GOLDGATE_REPORT", report.to_str().unwrap())]);
    let report = read_report(&report, &out);
    let cases = report["cases"].as_array().unwrap().clone();
    (stdout(&out), cases)
}

/// Each field's name and gold variants, as the report holds them.
fn golds(case: &Value) -> Vec<(String, Value)> {
    case["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap().to_owned(), f["gold"].clone()))
        .collect()
}

#[test]
fn a_gold_file_in_json_or_yaml_keeps_the_text_its_values_are_written_with() {
    let dir = fixture("text");
    let (out, cases) = run_with_report(&dir, &["test", "cases"]);
    assert_eq!(
        verdicts(&out),
        ["test json ... ok", "test yaml ... ok"],
        "{out}"
    );
    // `1234.50` is the text `1234.50`, from a JSON number as from YAML: the prediction's
    // "1234.50" matches it, where a re-printed 1234.5 would not.
    for id in ["json", "yaml"] {
        assert_eq!(
            golds(case_in(&cases, id)),
            [
                ("invoice_number".to_owned(), json!(["0173"])),
                ("total_ttc".to_owned(), json!(["1234.50"])),
                ("paid".to_owned(), json!(["false"])),
            ],
            "{id}"
        );
        assert_eq!(case_in(&cases, id)["metrics"]["exact_match"], json!(1.0));
    }
    // The YAML gold file among the cases is read by its case: no test of its own.
    let out = goldgate(&dir, &["lint", "cases"]);
    assert_eq!(
        stdout(&out),
        "lint: 2 case files, 0 errors\n",
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_mistake_in_a_gold_file_is_located_in_that_file() {
    let dir = fixture("broken");
    let out = stdout(&goldgate(&dir, &["test", "cases"]));
    assert_eq!(
        verdicts(&out),
        ["test any-of ... FAILED", "test broken ... FAILED"],
        "{out}"
    );
    assert_eq!(
        failure_block(&out, "broken"),
        [
            "error: cases/gold/broken.json:3:16: not valid JSON: expected value",
            "the case could not be loaded, so it was not run",
        ]
    );
    assert_eq!(
        failure_block(&out, "any-of"),
        [
            "error: cases/gold/any-of.yaml:2:11: gold.invoice_number.any_of: `any_of` is empty (give at least one accepted variant)",
            "the case could not be loaded, so it was not run",
        ]
    );
    let out = goldgate(&dir, &["lint", "cases"]);
    assert_eq!(
        stdout(&out),
        "error: cases/gold/any-of.yaml:2:11: gold.invoice_number.any_of: `any_of` is empty (give at least one accepted variant)\n\
         error: cases/gold/broken.json:3:16: not valid JSON: expected value\n\
         lint: 2 case files, 2 errors\n"
    );
}

#[test]
fn a_missing_gold_file_is_named_where_gold_names_it() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/a.yaml",
                "prediction: out.json\ngold: gold/nope.json\nthresholds: { min_anls: 1 }\n",
            ),
            ("cases/out.json", "{}\n"),
            (
                "cases/b.yaml",
                "prediction: out.json\ngold: gold.txt\nthresholds: { min_anls: 1 }\n",
            ),
        ],
    );
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert_eq!(
        failure_block(&out, "a")[0],
        "error: cases/a.yaml:2:7: gold: the gold file `cases/gold/nope.json` does not exist (the path is relative to the file that names it)"
    );
    assert_eq!(
        failure_block(&out, "b")[0],
        "error: cases/b.yaml:2:7: gold: the gold file `gold.txt` must end in `.json`, `.yaml` or `.yml` (or `.csv` under `profile: kieval`) (name a .json or .yaml file of the gold fields, or write them as a mapping under `gold:`)"
    );
}

#[test]
fn a_gold_set_makes_a_test_of_every_gold_file_for_each_pipeline() {
    let dir = fixture("sets");
    let out = stdout(&goldgate(&dir, &["test", "cases"]));
    assert_eq!(
        verdicts(&out),
        [
            "test docs/a1::alpha ... ok",
            "test docs/a1::beta ... FAILED",
            "test docs/a2::alpha ... ok",
            "test docs/a2::beta ... ok",
            "test docs/a3::alpha ... ok",
            "test docs/a3::beta ... FAILED",
            "test docs/zz::alpha ... FAILED",
            "test lines/b1::alpha ... ok",
            "test lines/b2::alpha ... ok",
            "test table/c1::alpha ... ok",
            "test table/c2::alpha ... ok",
            "test table/c3::alpha ... ok",
        ],
        "{out}"
    );
    // One test of the set runs alone by its name, as nextest runs it.
    let out = stdout(&goldgate(
        &dir,
        &["test", "cases", "--exact", "docs/a2::alpha"],
    ));
    assert_eq!(verdicts(&out), ["test docs/a2::alpha ... ok"], "{out}");
}

#[test]
fn a_schema_says_which_fields_are_scored() {
    let (out, cases) = run_with_report(&fixture("sets"), &["test", "cases"]);
    // `po_number` has no gold but the schema lists it: a field, whose gold is null; the gold's
    // `ignored` is not in the schema: no field.
    let a1 = case_in(&cases, "docs/a1::alpha");
    assert_eq!(
        golds(a1),
        [
            ("number".to_owned(), json!(["0042"])),
            ("total".to_owned(), json!(["10.50"])),
            ("po_number".to_owned(), json!([null])),
        ]
    );
    // The prediction's `notes` is outside the schema: ignored, not an extra field.
    assert_eq!(a1["metrics"]["extra_fields"], json!(0.0));
    assert_eq!(a1["extra_fields"], json!([]));
    // A prediction of the gold-empty field is scored against its null gold.
    let block = failure_block(&out, "docs/a1::beta");
    assert_eq!(
        block[0],
        "case failed: min_exact_match failed: 0.3333 < 1 (score 1.0000)"
    );
    assert!(
        block
            .iter()
            .any(|l| l == "  po_number        0   0.0000  -       null | PO-1"),
        "{block:#?}"
    );
    // One schema for the whole set.
    assert_eq!(
        golds(case_in(&cases, "lines/b2::alpha")),
        [("number".to_owned(), json!(["1234.50"]))]
    );
}

#[test]
fn metadata_columns_become_the_cases_attributes() {
    let (_, cases) = run_with_report(&fixture("sets"), &["test", "cases"]);
    let attributes = |id: &str| case_in(&cases, id)["attributes"].clone();
    // JSON, default columns: `lang` repeats across the cases, `ftype` and `pages` do not.
    assert_eq!(attributes("docs/a1::alpha"), json!({"lang": "en"}));
    assert_eq!(attributes("docs/a1::beta"), json!({"lang": "en"}));
    // JSON Lines, the columns chosen by `tags`.
    assert_eq!(attributes("lines/b1::alpha"), json!({"lang": "fr"}));
    assert_eq!(attributes("lines/b2::alpha"), json!({"lang": "de"}));
    // CSV (a quoted comma in a unique column), default columns.
    assert_eq!(
        attributes("table/c1::alpha"),
        json!({"lang": "fr", "ftype": "pdf"})
    );
    assert_eq!(
        attributes("table/c3::alpha"),
        json!({"lang": "en", "ftype": "jpeg"})
    );
    // A list of tags stays a list.
    assert_eq!(case_in(&cases, "table/c3::alpha")["tags"], json!([]));
}

#[test]
fn every_mismatch_of_a_gold_set_is_reported() {
    let out = stdout(&goldgate(&fixture("sets"), &["test", "cases"]));
    // A gold file that no output of a pipeline matches fails its test.
    assert_eq!(
        failure_block(&out, "docs/a3::beta"),
        [
            "error: cases/docs/suite.yaml:8:9: pipelines: prediction file `cases/docs/results/beta/a3.json` does not exist, as applied to `cases/docs/labels/a3.json` (record the pipeline's output there, or fix the path: it is relative to the suite's folder, and `{case}` is the case's path from there)",
            "the prediction could not be read, so nothing was scored",
        ]
    );
    // An output with no gold fails a test of its name.
    assert_eq!(
        failure_block(&out, "docs/zz::alpha"),
        [
            "error: `cases/docs/results/alpha/zz.json` is an output of the pipeline `alpha` with no gold: no file `cases/docs/labels/zz.json`"
        ]
    );
    // A record that names no case and a case that no record names are listed after the run.
    let end: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("metadata: "))
        .collect();
    assert_eq!(
        end,
        [
            "metadata: the record `gone` of `cases/docs/sources.json` names no case (no gold file of that name)",
            "metadata: no record of `cases/docs/sources.json` names the case `docs/a3` (it has no attributes)",
        ]
    );
}

#[test]
fn a_case_file_of_the_same_name_overrides_the_set_key_by_key() {
    let (out, cases) = run_with_report(&fixture("sets"), &["test", "cases"]);
    // `a2.yaml` lowers the bar to 0.5: alpha's wrong total passes; its gold is still the set's.
    assert!(verdicts(&out).contains(&"test docs/a2::alpha ... ok".to_owned()));
    let a2 = case_in(&cases, "docs/a2::alpha");
    assert_eq!(a2["metrics"]["exact_match"], json!(0.5));
    assert_eq!(
        a2["description"],
        json!("a second document, held to a lower bar")
    );
    assert_eq!(
        golds(a2),
        [
            ("number".to_owned(), json!(["7"])),
            ("total".to_owned(), json!(["3.00"])),
        ]
    );
    // Its `tags:` mapping adds attributes to the metadata's.
    assert_eq!(a2["attributes"], json!({"priority": "high", "lang": "en"}));
    // The case file is no test of its own.
    // (Verdict lines are padded for alignment: squeezed, a test `docs/a2` would start so.)
    assert!(
        !verdicts(&out)
            .iter()
            .any(|l| l.starts_with("test docs/a2 ")),
        "{out}"
    );
}

#[test]
fn a_gold_set_names_what_is_wrong_in_its_settings() {
    let dir = tempfile::tempdir().unwrap();
    let suite = |cases: &str| {
        format!(
            "cases:\n{cases}pipelines:\n  p: out/{{case}}.json\ndefaults:\n  thresholds: {{ min_anls: 1 }}\n"
        )
    };
    write_files(
        dir.path(),
        &[
            (
                "cases/tag/suite.yaml",
                &suite(
                    "  gold: labels/{case}.json\n  metadata: m.csv\n  key: id\n  tags: [lamg]\n",
                ),
            ),
            ("cases/tag/m.csv", "id,lang\nx,fr\n"),
            ("cases/tag/labels/x.json", "{\"a\": \"1\"}\n"),
            ("cases/tag/out/x.json", "{\"a\": \"1\"}\n"),
            (
                "cases/none/suite.yaml",
                &suite("  gold: labels/{case}.json\n"),
            ),
            ("cases/once/suite.yaml", &suite("  gold: labels/x.json\n")),
        ],
    );
    let out = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert_eq!(
        failure_block(&out, "tag/x::p")[0],
        "error: cases/tag/suite.yaml:5:10: cases.tags[0]: the metadata table `cases/tag/m.csv` has no column `lamg` (did you mean `lang`?)"
    );
    assert_eq!(
        failure_block(&out, "none/suite.yaml")[0],
        "error: cases/none/suite.yaml:2:9: cases.gold: `labels/{case}.json` matches no file in `cases/none` (check the path, relative to the suite's folder)"
    );
    assert_eq!(
        failure_block(&out, "once/suite.yaml")[0],
        "error: cases/once/suite.yaml:2:9: cases.gold: `labels/x.json` must hold `{case}` once: the part of each file's path that names its case (write the path of the gold files with `{case}` for the name, `labels/{case}.json`)"
    );
}
