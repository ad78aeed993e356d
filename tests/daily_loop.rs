//! The loop a team lives in every day — run, review, accept or bless, run again — as a user runs
//! it: the state of the last run is the project's, the review queue lives as long as its items,
//! and bless takes what a user blesses (a failing, improved or new test, a pipeline's gate).

mod support;

use std::path::Path;

use support::{goldgate, stderr, stdout, write_files};

/// Two pipelines, a baseline, three cases: `flow` (both pipelines read `79,26`: contradicted),
/// `block` (pipeline `a` off on three fields, `b` right), `json` (its gold in a JSON file).
fn gold_set(root: &Path) {
    write_files(
        root,
        &[
            ("Cargo.toml", "[package]\nname = \"gold\"\n"),
            (
                "cases/inv/suite.yaml",
                "pipelines:\n  a: out/a/{case}.json\n  b: out/b/{case}.json\nbaseline: baseline.json\ndefaults:\n  thresholds: { min_exact_match: 1.0 }\n",
            ),
            ("cases/inv/baseline.json", "{\"cases\": {}}\n"),
            ("cases/inv/flow.yaml", "gold: { total: 79, ref: 'A-1' }\n"),
            (
                "cases/inv/block.yaml",
                "gold:\n  number: \"0173\"\n  code: \"0042\"\n  date: 2024-03-05\n",
            ),
            ("cases/inv/json.yaml", "gold: ../../gold/json.json\n"),
            (
                "gold/json.json",
                "{\n  \"total\": 12.50,\n  \"date\": \"2024-03-05\"\n}\n",
            ),
            (
                "cases/inv/out/a/flow.json",
                r#"{"total": "79,26", "ref": {"value": "A-2", "confidence": 0.5}}"#,
            ),
            (
                "cases/inv/out/b/flow.json",
                r#"{"total": "79,26", "ref": "A-1"}"#,
            ),
            (
                "cases/inv/out/a/block.json",
                r#"{"number": {"value": "0174", "confidence": 0.9}, "code": {"value": "0043", "confidence": 0.8}, "date": "05/03/2024"}"#,
            ),
            (
                "cases/inv/out/b/block.json",
                r#"{"number": "0173", "code": "0042", "date": "2024-03-05"}"#,
            ),
            (
                "cases/inv/out/a/json.json",
                r#"{"total": {"value": "12.60", "confidence": 0.7}, "date": "2024-03-05"}"#,
            ),
            (
                "cases/inv/out/b/json.json",
                r#"{"total": "12.50", "date": "2024-03-05"}"#,
            ),
        ],
    );
}

/// The ids of `goldgate review --list` in `root`, each with its kind.
fn listed(root: &Path) -> Vec<String> {
    let out = goldgate(root, &["review", "cases", "--list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .filter(|l| l.contains("  "))
        .map(|l| l.split("  ").take(2).collect::<Vec<_>>().join(" "))
        .collect()
}

fn baseline(root: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(root.join("cases/inv/baseline.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

const FIRST_QUEUE: [&str; 12] = [
    "inv/flow#total contradicted",
    "inv/block::a#number failing",
    "inv/block::a#code failing",
    "inv/json::a#total failing",
    "inv/flow::a#ref failing",
    "inv/block::a#date failing",
    "inv/block::a new",
    "inv/block::b new",
    "inv/flow::a new",
    "inv/flow::b new",
    "inv/json::a new",
    "inv/json::b new",
];

/// A run in another project (another checkout of the same layout) never changes what this
/// project's review reads, nor its `report --last`.
#[test]
fn the_last_run_is_the_projects_own() {
    let (ours, theirs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    gold_set(ours.path());
    gold_set(theirs.path());
    // Theirs has one more failing field, so that its queue differs.
    std::fs::write(
        theirs.path().join("cases/inv/out/b/json.json"),
        r#"{"total": "99", "date": "2024-03-05"}"#,
    )
    .unwrap();
    goldgate(ours.path(), &["test", "cases"]);
    goldgate(theirs.path(), &["test", "cases"]);
    assert_eq!(listed(ours.path()), FIRST_QUEUE);
    assert!(listed(theirs.path()).contains(&"inv/json::b#total failing".to_owned()));
}

/// An accept reruns every pipeline's test of its case, and the queue keeps every other item:
/// an id listed before the edit is still valid after it, and `--run --list` keeps it too.
#[test]
fn the_queue_survives_its_edits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gold_set(root);
    goldgate(root, &["test", "cases"]);
    assert_eq!(listed(root), FIRST_QUEUE);
    let out = goldgate(
        root,
        &["review", "cases", "--accept", "inv/block::a#number"],
    );
    assert_eq!(
        stdout(&out),
        "cases/inv/block.yaml:2: number: \"0173\" → \"0174\"\n\nrun again:\ntest inv/block::a ... FAILED\ntest inv/block::b ... FAILED\n",
        "{}",
        stderr(&out)
    );
    let after = listed(root);
    assert!(!after.contains(&"inv/block::a#number failing".to_owned()));
    // `b` read 0173, the old gold: now it is off, and in the queue.
    assert!(after.contains(&"inv/block::b#number failing".to_owned()));
    for kept in FIRST_QUEUE
        .iter()
        .filter(|i| !i.starts_with("inv/block::a#number"))
    {
        assert!(
            after.contains(&kept.to_string()),
            "{kept} left the queue: {after:#?}"
        );
    }
    // An id listed before the edit still acts.
    let out = goldgate(root, &["review", "cases", "--variant", "inv/block::a#date"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(
            "cases/inv/block.yaml:4: date: 2024-03-05 → { any_of: [2024-03-05, 05/03/2024] }\n"
        ),
        "{}",
        stdout(&out)
    );
    // `--run --list` runs everything and leaves the whole queue for the next listing.
    let run = goldgate(root, &["review", "cases", "--run", "--list"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let again = listed(root);
    assert!(
        again.contains(&"inv/flow#total contradicted".to_owned()),
        "{again:#?}"
    );
    assert!(
        again.contains(&"inv/block::a#code failing".to_owned()),
        "{again:#?}"
    );
}

/// A failing test of a suite with a baseline is blessed by the id of one of its fields: its
/// entry is written from this run, its numbers as they are.
#[test]
fn a_failing_test_is_blessed_by_id() {
    failing_test_blessed_by_id("");
}

/// In a suite gated on a significant drop (`regression_gate`, no `tolerance`), a failing test's
/// item is blessed by id too: its suite names a baseline.
#[test]
fn a_failing_test_is_blessed_under_a_regression_gate() {
    failing_test_blessed_by_id("regression_gate: { metric: anls, min_effect: 0.02 }\n");
}

/// The gold set, with `more` added to its suite, blessed whole; then `json::a` reads its total
/// `12.99` (ANLS 0.6 against `12.50`) and fails; its field's item is blessed by id.
fn failing_test_blessed_by_id(more: &str) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gold_set(root);
    let suite = root.join("cases/inv/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.replace("baseline.json\n", &format!("baseline.json\n{more}")),
    )
    .unwrap();
    // A first entry for every test, so that none is new: then a failing test is only failing.
    let bless_all =
        support::goldgate_with(root, &["test", "cases"], &[("GOLDGATE_UPDATE", "always")]);
    assert!(
        stdout(&bless_all).contains("baseline: "),
        "{}",
        stdout(&bless_all)
    );
    std::fs::write(
        root.join("cases/inv/out/a/json.json"),
        r#"{"total": {"value": "12.99", "confidence": 0.7}, "date": "2024-03-05"}"#,
    )
    .unwrap();
    goldgate(root, &["test", "cases"]);
    let out = goldgate(root, &["review", "cases", "--bless", "inv/json::a#total"]);
    assert_eq!(
        stdout(&out),
        "\nrun again:\ntest inv/json::a ... FAILED (blessed)\n",
        "{}",
        stderr(&out)
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let entry = &baseline(root)["cases"]["json::a"];
    assert_eq!(entry["fields"]["total"]["anls"], 0.6, "{entry}");
    assert_eq!(entry["fields"]["date"]["em"], 1.0, "{entry}");
}

/// A test that rose above its entry beyond the tolerance is an `improved` item, blessed alone.
#[test]
fn an_improved_test_is_in_the_queue_and_blessed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gold_set(root);
    let suite = root.join("cases/inv/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.replace("baseline.json\n", "baseline.json\ntolerance: 0.01\n"),
    )
    .unwrap();
    support::goldgate_with(root, &["test", "cases"], &[("GOLDGATE_UPDATE", "always")]);
    std::fs::write(
        root.join("cases/inv/out/a/json.json"),
        r#"{"total": {"value": "12.50", "confidence": 0.7}, "date": "2024-03-05"}"#,
    )
    .unwrap();
    goldgate(root, &["test", "cases"]);
    assert!(
        listed(root).contains(&"inv/json::a improved".to_owned()),
        "{:#?}",
        listed(root)
    );
    let out = goldgate(root, &["review", "cases", "--bless", "inv/json::a"]);
    assert_eq!(
        stdout(&out),
        "\nrun again:\ntest inv/json::a ... ok (blessed)\n",
        "{}",
        stderr(&out)
    );
    assert_eq!(baseline(root)["cases"]["json::a"]["anls"], 1.0);
    assert!(!listed(root).contains(&"inv/json::a improved".to_owned()));
}

/// The gold set gated on a significant drop (no `tolerance`), with pipelines `a` and `ab` (a
/// name that starts alike).
fn gated_gold_set(root: &Path) {
    gold_set(root);
    write_files(
        root,
        &[(
            "cases/inv/suite.yaml",
            "pipelines:\n  a: out/a/{case}.json\n  ab: out/b/{case}.json\nbaseline: baseline.json\nregression_gate: { metric: anls, min_effect: 0.02 }\ndefaults:\n  thresholds: { min_anls: 0.1 }\n",
        )],
    );
}

/// Under `regression_gate` (no `tolerance`), a pipeline whose cases dropped is one item: its
/// aggregate test. Blessing it writes the entries of that pipeline's tests (not of a pipeline
/// whose name starts alike) and the gate holds again.
#[test]
fn a_failed_regression_gate_is_blessed_for_its_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gated_gold_set(root);
    for case in ["flow", "block", "json"] {
        std::fs::copy(
            root.join(format!("cases/inv/out/b/{case}.json")),
            root.join(format!("cases/inv/out/a/{case}.json")),
        )
        .unwrap();
    }
    support::goldgate_with(root, &["test", "cases"], &[("GOLDGATE_UPDATE", "always")]);
    let before_ab = baseline(root)["cases"]["block::ab"].clone();
    for case in ["flow", "block", "json"] {
        std::fs::write(
            root.join(format!("cases/inv/out/a/{case}.json")),
            r#"{"total": "9", "ref": "Z", "number": "1", "code": "2", "date": "y"}"#,
        )
        .unwrap();
    }
    // A case added since the baseline is new, in a suite gated without a `tolerance` too.
    write_files(
        root,
        &[
            ("cases/inv/extra.yaml", "gold: { total: 5 }\n"),
            ("cases/inv/out/a/extra.json", r#"{"total": "5"}"#),
            ("cases/inv/out/b/extra.json", r#"{"total": "5"}"#),
        ],
    );
    goldgate(root, &["test", "cases"]);
    let queue = listed(root);
    assert_eq!(queue[0], "inv::aggregate::a regression");
    assert!(queue.contains(&"inv/extra::a new".to_owned()), "{queue:#?}");
    assert!(
        queue.contains(&"inv/extra::ab new".to_owned()),
        "{queue:#?}"
    );
    // The gate's item carries its verdict: the difference and its interval.
    let json = goldgate(root, &["review", "cases", "--list", "--json"]);
    let items: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(
        items[0]["gate"]["verdict"]["metric"], "anls",
        "{}",
        items[0]
    );
    assert_eq!(
        items[0]["gate"]["verdict"]["difference"]["cases"], 3,
        "{}",
        items[0]
    );
    assert_eq!(items[0]["gate"]["pipeline"], "a", "{}", items[0]);
    assert_eq!(items[0]["gate"]["folder"], "inv/", "{}", items[0]);
    std::fs::remove_file(root.join("cases/inv/extra.yaml")).unwrap();
    goldgate(root, &["test", "cases"]);
    let out = goldgate(root, &["review", "cases", "--bless", "inv::aggregate::a"]);
    assert_eq!(
        stdout(&out),
        "\nrun again:\ntest inv/block::a ... FAILED (blessed)\ntest inv/flow::a  ... FAILED (blessed)\ntest inv/json::a  ... FAILED (blessed)\ntest inv::aggregate::a ... ok\n",
        "{}",
        stderr(&out)
    );
    assert_eq!(baseline(root)["cases"]["block::a"]["anls"], 0.0);
    assert_eq!(baseline(root)["cases"]["block::ab"], before_ab);
    assert!(
        !listed(root)
            .iter()
            .any(|i| i.starts_with("inv::aggregate::a"))
    );
}

/// Accepting `4,513.50` into a gold whose field is `compare: number` writes a number, its
/// decimals kept, in a JSON gold file and in a case file alike.
#[test]
fn an_accepted_number_stays_a_number() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            (
                "cases/suite.yaml",
                "defaults:\n  fields:\n    total: { compare: number }\n  thresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/inv.yaml",
                "gold: ../gold/inv.json\nprediction: inv.out.json\n",
            ),
            ("gold/inv.json", "{\"total\": 4512.00, \"n\": \"x\"}\n"),
            ("cases/inv.out.json", r#"{"total": "4,513.50", "n": "x"}"#),
            (
                "cases/y.yaml",
                "gold:\n  total: 12.50\nprediction: y.out.json\n",
            ),
            ("cases/y.out.json", r#"{"total": "1 234,50 €"}"#),
        ],
    );
    goldgate(root, &["test", "cases"]);
    let out = goldgate(
        root,
        &["review", "cases", "--accept", "inv#total", "y#total"],
    );
    assert_eq!(
        stdout(&out),
        "gold/inv.json:1: total: 4512.00 → 4513.50\ncases/y.yaml:2: total: 12.50 → 1234.50\n\nrun again:\ntest inv ... ok\ntest y ... ok\n",
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(root.join("gold/inv.json")).unwrap(),
        "{\"total\": 4513.50, \"n\": \"x\"}\n"
    );
}

/// A gate's accept command names its pipeline exactly (`--pipeline a`, not the filter `::a`,
/// which also takes `ab` and every `::aggregate…`) and its suite's folder; run as printed, it
/// writes that pipeline's entries alone. A pipeline no test runs is an error.
#[test]
fn the_gates_accept_command_blesses_its_pipeline_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gated_gold_set(root);
    support::goldgate_with(root, &["test", "cases"], &[("GOLDGATE_UPDATE", "always")]);
    let before = baseline(root);
    for case in ["flow", "block", "json"] {
        std::fs::write(
            root.join(format!("cases/inv/out/a/{case}.json")),
            r#"{"total": "9", "ref": "Z", "number": "1", "code": "2", "date": "y"}"#,
        )
        .unwrap();
        std::fs::write(
            root.join(format!("cases/inv/out/b/{case}.json")),
            r#"{"total": "8", "ref": "Y", "number": "3", "code": "4", "date": "z"}"#,
        )
        .unwrap();
    }
    let out = goldgate(root, &["test", "cases"]);
    let accept = "accept the new values with: GOLDGATE_UPDATE=always goldgate test cases --pipeline a inv/\n";
    assert!(stdout(&out).contains(accept), "{}", stdout(&out));
    let blessed = support::goldgate_with(
        root,
        &["test", "cases", "--pipeline", "a", "inv/"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(
        stdout(&blessed).contains("baseline: cases/inv/baseline.json: 3 entries, 0 new, 3 changed"),
        "{}",
        stdout(&blessed)
    );
    let after = baseline(root);
    assert_eq!(after["cases"]["block::a"]["anls"], 0.0);
    for case in ["block::ab", "flow::ab", "json::ab"] {
        assert_eq!(
            after["cases"][case], before["cases"][case],
            "{case} was blessed"
        );
    }
    let none = goldgate(root, &["test", "cases", "--pipeline", "c"]);
    assert_eq!(none.status.code(), Some(101));
    assert!(
        stderr(&none).starts_with("error: no test runs the pipeline `c`"),
        "{}",
        stderr(&none)
    );
}

/// Two pipelines that read a number alike (`4,521.00` and `4521.00` under `compare: number`)
/// contradict the gold together: one item, not two failing ones on the same gold value.
#[test]
fn numbers_read_alike_contradict_the_gold_together() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            (
                "cases/suite.yaml",
                "pipelines:\n  a: out/a/{case}.json\n  b: out/b/{case}.json\ndefaults:\n  fields:\n    total: { compare: number }\n  thresholds: { min_exact_match: 1.0 }\n",
            ),
            ("cases/r05.yaml", "gold: { total: 4512.00 }\n"),
            ("cases/out/a/r05.json", r#"{"total": "4,521.00"}"#),
            ("cases/out/b/r05.json", r#"{"total": "4521.00"}"#),
        ],
    );
    goldgate(root, &["test", "cases"]);
    assert_eq!(listed(root), ["r05#total contradicted"]);
    let out = goldgate(root, &["review", "cases", "--accept", "r05#total"]);
    assert!(
        stdout(&out).starts_with("cases/r05.yaml:1: total: 4512.00 → 4521.00\n"),
        "{}",
        stdout(&out)
    );
}

/// The gate of a suite without pipelines is an item too: blessing it writes its cases' entries
/// (the whole suite's) and its test holds again.
#[test]
fn a_gate_without_pipelines_is_blessed_for_its_suite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut files = vec![(
        "cases/inv/suite.yaml".to_owned(),
        "baseline: baseline.json\nregression_gate: { metric: anls, min_effect: 0.02 }\ndefaults:\n  thresholds: { min_anls: 0.1 }\n".to_owned(),
    )];
    files.push(("cases/inv/baseline.json".into(), "{\"cases\": {}}\n".into()));
    for case in ["a", "b", "c"] {
        files.push((
            format!("cases/inv/{case}.yaml"),
            format!("gold: {{ total: \"12.50\" }}\nprediction: out/{case}.json\n"),
        ));
        files.push((
            format!("cases/inv/out/{case}.json"),
            r#"{"total": "12.50"}"#.into(),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_files(root, &files);
    support::goldgate_with(root, &["test", "cases"], &[("GOLDGATE_UPDATE", "always")]);
    for case in ["a", "b", "c"] {
        std::fs::write(
            root.join(format!("cases/inv/out/{case}.json")),
            r#"{"total": "99"}"#,
        )
        .unwrap();
    }
    goldgate(root, &["test", "cases"]);
    assert_eq!(listed(root)[0], "inv::aggregate regression");
    let out = goldgate(root, &["review", "cases", "--bless", "inv::aggregate"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("test inv::aggregate ... ok\n"),
        "{}",
        stdout(&out)
    );
    assert_eq!(baseline(root)["cases"]["a"]["anls"], 0.0);
    assert!(!listed(root).iter().any(|i| i.starts_with("inv::aggregate")));
}

/// Runs of one project that end at once each keep what the other wrote: three reruns of three
/// tests, started together, each changing its test's item; the queue ends with all three.
#[test]
fn reruns_at_once_keep_each_others_records() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gold_set(root);
    goldgate(root, &["test", "cases"]);
    let cases = ["flow", "block", "json"];
    for case in cases {
        std::fs::write(
            root.join(format!("cases/inv/out/a/{case}.json")),
            r#"{"total": "7", "ref": "R-7", "number": "7", "code": "7", "date": "7"}"#,
        )
        .unwrap();
    }
    let runs: Vec<std::process::Child> = cases
        .iter()
        .map(|case| {
            support::command(
                root,
                &["test", "cases", "--exact", &format!("inv/{case}::a")],
            )
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
        })
        .collect();
    for mut run in runs {
        run.wait().unwrap();
    }
    let list = stdout(&goldgate(root, &["review", "cases", "--list"]));
    for item in [
        "inv/flow::a#ref  failing  A-1 → R-7",
        "inv/block::a#code  failing  0042 → 7",
        "inv/json::a#date  failing  2024-03-05 → 7",
    ] {
        assert!(list.contains(item), "{item} lost:\n{list}");
    }
}
