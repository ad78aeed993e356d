//! `profile: kieval` as a user runs it: a `cases:` suite over KIEval's own CSV layout, gold and
//! prediction read with nothing converted, scored as KIEval's published scorer scores them. The
//! numbers of `tests/fixtures/kieval/` are worked out by hand in the comments below (the
//! published scorer gives the same over the same files).

use std::path::PathBuf;

use serde_json::Value;

mod support;
use support::{case, goldgate, goldgate_report, stdout, write_files};

fn fixture() -> PathBuf {
    support::fixtures("kieval")
}

/// Runs the fixture suite and returns its report.
fn report() -> Value {
    let (run, report) = goldgate_report(&fixture(), &["test", "."]);
    assert!(run.status.success(), "{}", stdout(&run));
    report
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|a| (a - b).abs() < 1e-12)
}

fn tally(labels: u64, exact: u64, fp: u64, fn_: u64, wrong: u64, missing: u64) -> Value {
    serde_json::json!({
        "labels": labels, "exact": exact, "false_positives": fp, "false_negatives": fn_,
        "wrong": wrong, "missing": missing,
    })
}

#[test]
fn a_receipt_is_counted_as_kieval_counts_it() {
    let r = report();
    let a = &case(&r, "a::model")["metrics"];
    // Menu lines aligned tea↔tea, cake↔cake (price wrong), `x` extra; date wrong, one of the two
    // phones missing, `extra` extra: 8 gold entities, 5 right, 4 FP, 3 FN, 2 wrong, 3 missing.
    assert_eq!(a["kieval"]["total"], tally(8, 5, 4, 3, 2, 3));
    assert_eq!(a["kieval"]["ungrouped"], tally(3, 1, 2, 2, 1, 2));
    assert_eq!(a["kieval"]["grouped"], tally(5, 4, 2, 1, 1, 1));
    assert_eq!(a["kieval"]["items"], tally(2, 1, 2, 1, 1, 1));
    assert!(close(&a["precision"], 5.0 / 9.0), "{a}");
    assert!(close(&a["recall"], 5.0 / 8.0), "{a}");
    assert!(close(&a["f1"], 10.0 / 17.0), "{a}");
    assert!(close(&a["aligned"], 0.5), "{a}");
}

#[test]
fn a_group_gold_lacks_is_extra_and_an_empty_part_is_left_out() {
    let r = report();
    let b = &case(&r, "b::model")["metrics"];
    // Group 1 is not in gold: its item and its one value are extra. No entity outside groups
    // in gold: that part is not in the total.
    assert_eq!(b["kieval"]["total"], tally(2, 2, 1, 0, 0, 1));
    assert_eq!(b["kieval"]["items"], tally(1, 1, 1, 0, 0, 1));
    assert!(close(&b["precision"], 2.0 / 3.0), "{b}");
    assert!(close(&b["recall"], 1.0), "{b}");
    assert!(close(&b["f1"], 0.8), "{b}");
    assert!(close(&b["aligned"], 2.0 / 3.0), "{b}");
}

#[test]
fn a_pipeline_scores_its_pooled_counts_not_a_mean_of_its_cases() {
    let r = report();
    let p = &r["pipelines"][0];
    assert_eq!(p["pipeline"], "model");
    assert_eq!(p["kieval"]["total"], tally(10, 7, 5, 3, 2, 4));
    assert_eq!(p["kieval"]["items"], tally(3, 2, 3, 1, 1, 2));
    assert!(close(&p["precision"], 7.0 / 12.0), "{p}");
    assert!(close(&p["recall"], 0.7), "{p}");
    // 2·7 / (2·7 + 5 + 3); the mean of the cases' F1s would be (10/17 + 0.8) / 2.
    assert!(close(&p["f1"], 7.0 / 11.0), "{p}");
    assert!(close(&p["aligned"], 7.0 / 13.0), "{p}");
}

#[test]
fn a_csv_is_read_only_under_the_kieval_profile() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "suite.yaml",
                "cases:\n  gold: gt/{case}.csv\npipelines:\n  model: pred/{case}.csv\ndefaults:\n  thresholds: { min_f1: 0.5 }\n",
            ),
            ("gt/a.csv", "0\nnm\ntea\n\n"),
            ("pred/a.csv", "0\nnm\ntea\n\n"),
        ],
    );
    let run = goldgate(dir.path(), &["test", "."]);
    assert!(!run.status.success());
    let out = stdout(&run);
    assert!(
        out.contains(
            "is a .csv, which goldgate reads in KIEval's layout only under `profile: kieval`"
        ),
        "{out}"
    );
}

#[test]
fn the_end_of_the_run_gives_kieval_s_scores_and_counts_per_pipeline() {
    let run = goldgate(&fixture(), &["test", "."]);
    let out = stdout(&run);
    assert!(
        out.contains(
            "KIEval    precision   recall       F1  aligned   labels    exact    wrong  missing\n\
             model        0.5833   0.7000   0.6364   0.5385       10        7        2        4\n"
        ),
        "{out}"
    );
}

/// KIEval's reader asks Python whether a block starts with a digit (`isdigit`, then `int`): a
/// group numbered `٣` (Arabic-Indic three) is group 3, the same group as one numbered `3`,
/// not a block of entities; a block starting with `²`, a digit `int` cannot read, stops its
/// reader, and goldgate refuses the file where the block starts.
#[test]
fn a_group_numbered_in_another_script_is_that_group() {
    let dir = tempfile::tempdir().unwrap();
    let suite = "profile: kieval\ncases:\n  gold: gt/{case}.csv\npipelines:\n  model: pred/{case}.csv\ndefaults:\n  thresholds: { min_f1: 0.5 }\n";
    write_files(
        dir.path(),
        &[
            ("cases/suite.yaml", suite),
            (
                "cases/gt/a.csv",
                "3\nnm\tprice\ntea\t3\n\ninfo\ndate\t1/2\n",
            ),
            (
                "cases/pred/a.csv",
                "٣\nnm\tprice\ntea\t3\n\ninfo\ndate\t1/2\n",
            ),
            ("cases/gt/b.csv", "0\nnm\ntea\n"),
            ("cases/pred/b.csv", "0\nnm\ntea\n\n²\nnm\ncake\n"),
        ],
    );
    let (run, report) = goldgate_report(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    let a = &case(&report, "a::model")["metrics"];
    // The group and the entity both right: as group 3 the menu line aligns with gold's.
    assert_eq!(a["kieval"]["total"], tally(3, 3, 0, 0, 0, 0), "{out}");
    assert_eq!(a["kieval"]["items"], tally(1, 1, 0, 0, 0, 0), "{out}");
    assert!(
        out.contains("cases/pred/b.csv:5:1: this block starts with `²`, a digit to Python's `isdigit` that `int` cannot read: KIEval's reader stops on this file"),
        "{out}"
    );
}

/// A gold receipt and a prediction that adds a key CORD does not have (`menu.bogus` in each menu
/// line, `store` and `extra` outside groups), the rest right.
const GOLD_CORD: &str = "0\nmenu.nm\tmenu.price\ntea\t3\ncake\t5\n\n1\nsub_total.subtotal_price\n8\n\ninfo\ntotal.total_price\t8\nstore\tacme\n";
const PRED_CORD: &str = "0\nmenu.nm\tmenu.price\tmenu.bogus\ntea\t3\tx\ncake\t5\ty\n\n1\nsub_total.subtotal_price\n8\n\ninfo\ntotal.total_price\t8\nstore\tother\nextra\tz\n";

/// The report of a suite of the receipt above whose suite file ends in `kieval`.
fn shortlisted(kieval: &str, files: &[(&str, &str)]) -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let suite = format!(
        "profile: kieval\ncases:\n  gold: gt/{{case}}.csv\npipelines:\n  model: pred/{{case}}.csv\ndefaults:\n  thresholds: {{ min_f1: 0.5 }}\n{kieval}"
    );
    let mut all = vec![
        ("cases/suite.yaml", suite.as_str()),
        ("cases/gt/r.csv", GOLD_CORD),
        ("cases/pred/r.csv", PRED_CORD),
    ];
    all.extend_from_slice(files);
    write_files(dir.path(), &all);
    let (run, report) = goldgate_report(dir.path(), &["test", "cases"]);
    (stdout(&run), report)
}

/// KIEval scores only the keys of its shortlist (CORD's ontology in its CORD run) and drops the
/// others from gold and prediction before counting; `kieval: { keys: cord }` does the same, so a
/// predicted key outside CORD's 30 classes is no false positive. A list of keys and a file of
/// keys (one a line, `#` comments) are the same shortlist written out.
#[test]
fn keys_outside_the_shortlist_are_dropped_as_kieval_drops_them() {
    // Every key of CORD right: 2 menu lines of 2 entities and a sub-total (5 entities in 3
    // items), a total outside groups.
    let right = (tally(6, 6, 0, 0, 0, 0), tally(3, 3, 0, 0, 0, 0));
    for (kieval, files) in [
        ("kieval: { keys: cord }\n", vec![]),
        (
            "kieval:\n  keys: [menu.nm, menu.price, sub_total.subtotal_price, total.total_price]\n",
            vec![],
        ),
        (
            "kieval: { keys: keys.txt }\n",
            vec![(
                "cases/keys.txt",
                "# the keys scored\nmenu.nm\nmenu.price\n\nsub_total.subtotal_price\r\ntotal.total_price\n",
            )],
        ),
    ] {
        let (out, report) = shortlisted(kieval, &files);
        let k = &case(&report, "r::model")["metrics"]["kieval"];
        assert_eq!(
            (&k["total"], &k["items"]),
            (&right.0, &right.1),
            "{kieval}{out}"
        );
    }
    // Without a shortlist every key counts: `menu.bogus` makes both menu lines wrong, `store`
    // is wrong and `extra` extra.
    let (out, report) = shortlisted("", &[]);
    let k = &case(&report, "r::model")["metrics"]["kieval"];
    assert_eq!(k["ungrouped"], tally(2, 1, 2, 1, 1, 1), "{out}");
    assert_eq!(k["items"], tally(3, 1, 2, 2, 2, 0), "{out}");
}

/// `kieval:` without `profile: kieval` is refused where it is written (it would change
/// nothing), and a file of keys that does not exist is refused with the names it may take.
#[test]
fn a_shortlist_is_refused_where_it_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "cases:\n  gold: gt/{case}.yaml\npipelines:\n  model: pred/{case}.json\nkieval: { keys: cord }\n",
            ),
            ("cases/gt/r.yaml", "a: 1\n"),
            ("cases/pred/r.json", "{\"a\": \"1\"}"),
        ],
    );
    let run = goldgate(dir.path(), &["test", "cases"]);
    let out = stdout(&run);
    assert!(
        out.contains("cases/suite.yaml:5:9: kieval: `kieval:` sets KIEval's scorer, and no `profile: kieval` here or above uses it"),
        "{out}"
    );
    let (out, _) = shortlisted("kieval: { keys: crod }\n", &[]);
    assert!(
        out.contains("kieval.keys: `crod` is not `cord`, and no file of keys `"),
        "{out}"
    );
    let (out, _) = shortlisted("kieval: { keys: [] }\n", &[]);
    assert!(
        out.contains("kieval.keys: `keys` gives no key: nothing would be scored"),
        "{out}"
    );
}
