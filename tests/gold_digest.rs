//! The gold set's digest (SPEC §21): a SHA-256 over the gold values and rules as loaded, in
//! every report (per test and for the run), the HTML page and the end of the run. Reformatting
//! the YAML or reordering a mapping's keys leaves it; changing a gold value, a rubric, a
//! threshold or an aggregate's bound changes it, and only for the tests it is about.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{case, goldgate, goldgate_report, stdout, write_files};

const SUITE: &str = "aggregate:\n  min_anls: 0.5\n";

const A: &str = "\
prediction: {invoice_number: \"0173\", total: \"10.00\", lines: [{sku: A1, qty: \"2\"}]}
gold:
  invoice_number: \"0173\"
  total: \"10.00\"
  lines:
    - {sku: A1, qty: \"2\"}
critical: [invoice_number, total]
rubrics:
  - must_right: the total is exact
    field: total
    exact: true
thresholds:
  min_exact_match: 0.5
  min_anls: 0.5
";

/// `A` reformatted: block style, keys of every mapping in another order, quotes changed,
/// comments added, the critical fields listed in another order.
const A_REWRITTEN: &str = "\
# the same case, written otherwise
thresholds: {min_anls: 0.5, min_exact_match: 0.5}
rubrics:
  - must_right: the total is exact
    exact: true
    field: total
critical: [total, invoice_number]
gold:
  lines:
    - qty: '2'
      sku: A1
  total: '10.00'      # as printed
  invoice_number: '0173'
prediction:
  total: \"10.00\"
  invoice_number: \"0173\"
  lines: [{sku: A1, qty: \"2\"}]
";

const B: &str = "\
prediction: {name: Acme}
gold:
  name: Acme
thresholds: {min_exact_match: 1}
";

fn folder(a: &str, suite: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("cases/suite.yaml", suite),
            ("cases/a.yaml", a),
            ("cases/b.yaml", B),
        ],
    );
    dir
}

/// (the run's digest, a's, b's, the aggregate's) in the report of a run over `dir`.
fn digests(dir: &Path) -> [String; 4] {
    // A changed gold value may fail its case: the report is written all the same.
    let (_, report) = goldgate_report(dir, &["test", "cases"]);
    let text = |v: &Value| {
        v.as_str()
            .unwrap_or_else(|| panic!("no digest: {v}"))
            .to_owned()
    };
    let aggregate = &report["aggregates"][0]["gold_digest"];
    [
        text(&report["gold_digest"]),
        text(&case(&report, "a")["gold_digest"]),
        text(&case(&report, "b")["gold_digest"]),
        text(aggregate),
    ]
}

fn edited(a: &str, from: &str, to: &str) -> String {
    assert!(a.contains(from), "`{from}` is not in the case");
    a.replacen(from, to, 1)
}

#[test]
fn reformatting_a_case_keeps_its_digest() {
    let written = digests(folder(A, SUITE).path());
    for d in &written {
        assert_eq!(d.len(), 64, "{d}");
        assert!(d.bytes().all(|b| b.is_ascii_hexdigit()), "{d}");
    }
    assert_eq!(digests(folder(A_REWRITTEN, SUITE).path()), written);
}

#[test]
fn changing_a_value_a_rule_or_a_threshold_changes_the_digest_of_its_case_alone() {
    let [run, a, b, aggregate] = digests(folder(A, SUITE).path());
    for (what, changed) in [
        (
            "a gold value",
            edited(A, "total: \"10.00\"\n", "total: \"10.0\"\n"),
        ),
        (
            "a nested gold value",
            edited(
                A,
                "{sku: A1, qty: \"2\"}\ncritical",
                "{sku: A1, qty: \"3\"}\ncritical",
            ),
        ),
        (
            "a rubric's check",
            edited(A, "exact: true", "min_anls: 0.9"),
        ),
        (
            "a rubric's label",
            edited(A, "the total is exact", "the total is right"),
        ),
        ("a threshold", edited(A, "min_anls: 0.5", "min_anls: 0.6")),
        (
            "the critical fields",
            edited(A, "critical: [invoice_number, total]", "critical: [total]"),
        ),
    ] {
        let [run_now, a_now, b_now, aggregate_now] = digests(folder(&changed, SUITE).path());
        assert_ne!(a_now, a, "{what} left the case's digest");
        assert_ne!(run_now, run, "{what} left the run's digest");
        assert_eq!(
            (&b_now, &aggregate_now),
            (&b, &aggregate),
            "{what} changed another test's digest"
        );
    }
    let [run_now, a_now, b_now, aggregate_now] =
        digests(folder(A, "aggregate:\n  min_anls: 0.6\n").path());
    assert_ne!(
        aggregate_now, aggregate,
        "an aggregate's bound left its digest"
    );
    assert_ne!(run_now, run);
    assert_eq!((a_now, b_now), (a, b));
}

#[test]
fn the_end_of_the_run_and_the_page_show_the_digest_short() {
    let dir = folder(A, SUITE);
    let [run, ..] = digests(dir.path());
    let page = dir.path().join("page.html");
    let out = goldgate(
        dir.path(),
        &["test", "cases", "--html", page.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stdout(&out));
    let line = format!(
        "gold digest: {} (of the gold values and rules; the report has it whole)\n",
        &run[..12]
    );
    assert!(stdout(&out).contains(&line), "{}", stdout(&out));
    let html = std::fs::read_to_string(page).unwrap();
    assert!(
        html.contains(&format!(
            "title=\"SHA-256 of the gold values and rules: {run}\">gold digest <code>{}</code></p>",
            &run[..12]
        )),
        "the page's header has no digest"
    );
}

/// The digests of this file's suite, as goldgate computed them before it wrote its tokens
/// straight into the hash: a digest is compared across runs and versions (`report --compare`,
/// the history), so how it is computed may change only if every byte hashed stays the same.
#[test]
fn the_digests_stay_those_earlier_versions_wrote() {
    let dir = folder(A, SUITE);
    assert_eq!(
        digests(dir.path()),
        [
            "baa470ed034cdb486f57ec99d6342b38989140e92c71633062be0a3e21264aae",
            "aba3845257d180597118a95b01734951f87f68f530bfb936771a226ba30e02ac",
            "add87d2275ef662e9a199411a96b7937866193920e7998dbf11cee91fcad050e",
            "5fcd5e09d25f6c9b947652f203b29352868fd20c7da22b447e6adf6144d55f97",
        ]
    );
}
