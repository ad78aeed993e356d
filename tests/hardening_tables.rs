//! The tables goldgate reads stay bounded and unambiguous: a metadata table of many records for
//! a few cases is read a record at a time, its records that name no case one counted note; a
//! column named twice in a CSV header (a metadata table, a KIEval gold file) is refused where the
//! second is, the other cases running on.

mod support;
use support::{failure_block, goldgate, stdout, verdict_of, write_files};

/// A `cases:` suite of the gold files `a` and `b` (each right), with `extra` settings.
fn gold_set(extra: &str) -> String {
    format!(
        "cases:\n  gold: labels/{{case}}.json\n{extra}pipelines:\n  p: out/{{case}}.json\ndefaults:\n  thresholds: {{ min_exact_match: 1 }}\n"
    )
}

#[test]
fn records_of_a_metadata_table_that_name_no_case_are_one_counted_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = String::from("id,lang\na,en\nb,fr\n");
    for i in 0..10_000 {
        table.push_str(&format!("x{i},de\n"));
    }
    let right = "{\"total\": \"1\"}";
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                &gold_set("  metadata: m.csv\n  key: id\n"),
            ),
            ("cases/m.csv", &table),
            ("cases/labels/a.json", right),
            ("cases/labels/b.json", right),
            ("cases/out/a.json", right),
            ("cases/out/b.json", right),
        ],
    );
    let text = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert_eq!(verdict_of(&text, "a::p"), "test a::p ... ok", "{text}");
    let notes: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("metadata: "))
        .collect();
    assert_eq!(
        notes,
        [
            "metadata: 10,000 records of `cases/m.csv` name no case (no gold file of those names; first: line 4 `x0`, line 5 `x1`, line 6 `x2`, …)"
        ]
    );
}

#[test]
fn a_csv_header_that_names_a_column_twice_is_refused_where_the_second_is() {
    let dir = tempfile::tempdir().unwrap();
    let right = "{\"total\": \"1\"}";
    write_files(
        dir.path(),
        &[
            (
                "cases/m/suite.yaml",
                &gold_set("  metadata: m.csv\n  key: id\n"),
            ),
            ("cases/m/m.csv", "id,lang,lang\na,en,fr\n"),
            ("cases/m/labels/a.json", right),
            ("cases/m/out/a.json", right),
            (
                "cases/k/suite.yaml",
                "profile: kieval\ncases:\n  gold: gt/{case}.csv\npipelines:\n  p: pred/{case}.csv\ndefaults:\n  thresholds: { min_f1: 0.5 }\n",
            ),
            ("cases/k/gt/a.csv", "0\nnm\tprice\tnm\ntea\t3\tcake\n\n"),
            ("cases/k/pred/a.csv", "0\nnm\tprice\ntea\t3\n\n"),
            ("cases/k/gt/b.csv", "0\nnm\tprice\ntea\t3\n\n"),
            ("cases/k/pred/b.csv", "0\nnm\tprice\ntea\t3\n\n"),
        ],
    );
    let text = stdout(&goldgate(dir.path(), &["test", "cases"]));
    assert_eq!(
        failure_block(&text, "m/a::p"),
        "error: cases/m/m.csv:1:9: the header names the column `lang` twice (columns 2 and 3) (rename or remove one of them: each column of the header is named once)\nthe case could not be loaded, so it was not run"
    );
    assert_eq!(
        failure_block(&text, "k/a::p"),
        "error: cases/k/gt/a.csv:2:10: this group's line of keys names `nm` twice (keys 1 and 3) (rename or remove one of them: each key of a group is named once)\nthe case could not be loaded, so it was not run"
    );
    // The other case of the set runs on.
    assert_eq!(verdict_of(&text, "k/b::p"), "test k/b::p ... ok", "{text}");
}
