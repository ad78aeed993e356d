//! `goldgate review` as a user runs it: the queue of a run's records in its order with its ids,
//! gold edited in place (each edited file compared byte for byte with the one expected:
//! comments, quoting, flow and block style, CRLF kept; a leading-zero number; a variant added to
//! a plain value and to an existing `any_of`; a JSON gold file), a file changed since the run
//! refused, a test blessed, and the review on a real terminal (tmux).

#[path = "support/e2e.rs"]
mod e2e;
mod support;

use std::path::Path;
use std::time::{Duration, SystemTime};

use support::{goldgate, stderr, stdout, write_files};

const SUITE: &str = "\
pipelines:
  a: out/a/{case}.json
  b: out/b/{case}.json
defaults:
  thresholds: { min_exact_match: 1.0 }
";

const FLOW: &str = "gold: { total: 79, ref: 'A-1' }  # flow style\ndocument: scans/flow.pdf\n";

/// A block mapping written with a byte-order mark, CRLF line endings, comments and a blank line.
const BLOCK: &str = "\u{feff}# ACME invoice 173\r\ngold:\r\n  number: \"0173\"   # as printed\r\n  code: 0042\r\n\r\n  date: 2024-03-05\r\n  city:\r\n    any_of:\r\n      - Lyon   # written so\r\n      - Lyons\r\n";

const JSON_CASE: &str = "gold: ../../gold/json.json\n";
const JSON_GOLD: &str = "{\n  \"total\": \"12.50\",\n  \"date\": \"2024-03-05\"\n}\n";

/// The fixture: three cases (flow, block, JSON gold) and two pipelines; a report of its run.
fn fixture(root: &Path) {
    write_files(
        root,
        &[
            ("cases/inv/suite.yaml", SUITE),
            ("cases/inv/flow.yaml", FLOW),
            ("cases/inv/scans/flow.pdf", "%PDF-1.4\n"),
            ("cases/inv/block.yaml", BLOCK),
            ("cases/inv/json.yaml", JSON_CASE),
            ("gold/json.json", JSON_GOLD),
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
                r#"{"number": {"value": "0174", "confidence": 0.9}, "code": {"value": "0043", "confidence": 0.8}, "date": "05/03/2024", "city": "Lugdunum"}"#,
            ),
            (
                "cases/inv/out/b/block.json",
                r#"{"number": "0173", "code": "0042", "date": "2024-03-05", "city": "Lyon"}"#,
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
    let run = goldgate(root, &["test", "cases", "--report", "report.json"]);
    assert!(root.join("report.json").is_file(), "{}", stderr(&run));
}

fn read(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join(file)).unwrap()
}

/// The queue: the field both pipelines predict alike first, then failing fields by confidence
/// (0.9, 0.8, 0.7, 0.5, then none, by id); each with where its gold is written.
const LIST: &str = "\
inv/flow#total  contradicted  79 → 79,26  cases/inv/flow.yaml:1
inv/block::a#number  failing  0173 → 0174  cases/inv/block.yaml:3
inv/block::a#code  failing  0042 → 0043  cases/inv/block.yaml:4
inv/json::a#total  failing  12.50 → 12.60  gold/json.json:2
inv/flow::a#ref  failing  A-1 → A-2  cases/inv/flow.yaml:1
inv/block::a#city  failing  Lyon | Lyons → Lugdunum  cases/inv/block.yaml:8
inv/block::a#date  failing  2024-03-05 → 05/03/2024  cases/inv/block.yaml:6
7 items (accept with --accept ID, add a variant with --variant ID, bless with --bless ID)
";

/// `goldgate review cases --report report.json ARGS` in `root`: a review of the fixture's run.
fn review_of_report(root: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["review", "cases", "--report", "report.json"];
    all.extend_from_slice(args);
    goldgate(root, &all)
}

#[test]
fn the_queue_lists_items_in_order_with_stable_ids() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let out = goldgate(
        dir.path(),
        &["review", "cases", "--report", "report.json", "--list"],
    );
    assert_eq!(stdout(&out), LIST, "{}", stderr(&out));
    // The same ids again, and as JSON with the gold's place and every pipeline's value.
    let again = goldgate(
        dir.path(),
        &["review", "cases", "--report", "report.json", "--list"],
    );
    assert_eq!(stdout(&again), LIST);
    let json = goldgate(
        dir.path(),
        &[
            "review",
            "cases",
            "--report",
            "report.json",
            "--list",
            "--json",
        ],
    );
    let items: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    let first = &items[0];
    assert_eq!(first["id"], "inv/flow#total");
    assert_eq!(first["kind"], "contradicted");
    assert_eq!(
        first["tests"],
        serde_json::json!(["inv/flow::a", "inv/flow::b"])
    );
    assert_eq!(
        first["gold_at"],
        serde_json::json!({"file": "cases/inv/flow.yaml", "line": 1, "column": 16})
    );
    let values: Vec<&serde_json::Value> = first["predictions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["value"])
        .collect();
    assert_eq!(
        values,
        [&serde_json::json!("79,26"), &serde_json::json!("79,26")]
    );
    assert_eq!(items[1]["predictions"][0]["confidence"], 0.9);
}

#[test]
fn each_edit_changes_one_value_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fixture(root);
    let out = review_of_report(
        root,
        &[
            "--accept",
            "inv/flow#total",
            "inv/flow::a#ref",
            "inv/block::a#number",
            "inv/block::a#code",
            "inv/json::a#total",
            "--variant",
            "inv/block::a#date",
            "inv/block::a#city",
        ],
    );
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
cases/inv/flow.yaml:1: total: 79 → \"79,26\"
cases/inv/flow.yaml:1: ref: 'A-1' → 'A-2'
cases/inv/block.yaml:3: number: \"0173\" → \"0174\"
cases/inv/block.yaml:4: code: 0042 → 0043
gold/json.json:2: total: \"12.50\" → \"12.60\"
cases/inv/block.yaml:6: date: 2024-03-05 → { any_of: [2024-03-05, 05/03/2024] }
cases/inv/block.yaml:11: city: + Lugdunum

run again:
test inv/block::a ... ok
test inv/block::b ... FAILED
test inv/flow::a ... ok
test inv/flow::b ... FAILED
test inv/json::a ... ok
test inv/json::b ... FAILED
"
    );
    assert_eq!(
        read(root, "cases/inv/flow.yaml"),
        "gold: { total: \"79,26\", ref: 'A-2' }  # flow style\ndocument: scans/flow.pdf\n"
    );
    assert_eq!(
        read(root, "cases/inv/block.yaml"),
        "\u{feff}# ACME invoice 173\r\ngold:\r\n  number: \"0174\"   # as printed\r\n  code: 0043\r\n\r\n  date: { any_of: [2024-03-05, 05/03/2024] }\r\n  city:\r\n    any_of:\r\n      - Lyon   # written so\r\n      - Lyons\r\n      - Lugdunum\r\n"
    );
    assert_eq!(
        read(root, "gold/json.json"),
        "{\n  \"total\": \"12.60\",\n  \"date\": \"2024-03-05\"\n}\n"
    );
    // What the edits make of the next run: pipeline a passes everywhere.
    let list = goldgate(root, &["review", "cases", "--run", "--list"]);
    assert_eq!(
        stdout(&list).lines().last(),
        Some(
            "4 items (accept with --accept ID, add a variant with --variant ID, bless with --bless ID)"
        ),
        "{}",
        stdout(&list)
    );
}

#[test]
fn a_file_changed_since_the_run_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fixture(root);
    let changed = format!("{FLOW}# a note written after the run\n");
    std::fs::write(root.join("cases/inv/flow.yaml"), &changed).unwrap();
    let later = SystemTime::now() + Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(root.join("cases/inv/flow.yaml"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    let out = review_of_report(root, &["--accept", "inv/flow#total"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "refused `inv/flow#total`: `cases/inv/flow.yaml` changed since the run: run the tests again (`goldgate review --run`) and review what they find\n"
    );
    assert_eq!(read(root, "cases/inv/flow.yaml"), changed);
}

#[test]
fn unknown_ids_and_missing_ids_are_said_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fixture(root);
    let out = review_of_report(root, &["--accept", "inv/flow#total", "inv/nope#x"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: no item `inv/nope#x` in the queue of this run's records (`goldgate review --list` lists them)\n"
    );
    assert_eq!(read(root, "cases/inv/flow.yaml"), FLOW);
    let out = review_of_report(root, &["--all"]);
    assert_eq!(
        stderr(&out),
        "error: `--all` says which items `--accept`, `--variant` or `--bless` act on: give one of them (`goldgate review --bless --all`)\n"
    );
    // A suite without a baseline has no entry to bless.
    let out = review_of_report(root, &["--bless", "inv/flow#total"]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (
            Some(1),
            "refused `inv/flow#total`: its suite names no `baseline:` file, so there is no entry to bless\n".to_owned()
        )
    );
    let out = review_of_report(root, &["--accept"]);
    assert_eq!(
        stderr(&out),
        "error: `--accept` needs item ids (from `goldgate review --list`), or `--all` for the whole queue\n"
    );
}

#[test]
fn a_regression_comes_first_and_a_new_test_is_blessed_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            (
                "cases/s/suite.yaml",
                "baseline: baseline.json\ntolerance: 0.01\ndefaults:\n  thresholds: { min_anls: 0.1 }\n",
            ),
            (
                "cases/s/old.yaml",
                "gold: { name: Anna }\nprediction: old.json\n",
            ),
            ("cases/s/old.json", r#"{"name": "Anne"}"#),
            (
                "cases/s/fresh.yaml",
                "gold: { name: Bo }\nprediction: fresh.json\n",
            ),
            ("cases/s/fresh.json", r#"{"name": "Bo"}"#),
            (
                "cases/s/baseline.json",
                "{\n  \"goldgate_baseline\": 1,\n  \"cases\": {\n    \"old\": { \"anls\": 1.0 }\n  }\n}\n",
            ),
        ],
    );
    let run = goldgate(root, &["test", "cases", "--report", "report.json"]);
    assert!(root.join("report.json").is_file(), "{}", stderr(&run));
    let list = review_of_report(root, &["--list"]);
    assert_eq!(
        stdout(&list),
        "\
s/old#name  regression  Anna → Anne  cases/s/old.yaml:1
s/fresh  new
2 items (accept with --accept ID, add a variant with --variant ID, bless with --bless ID)
",
        "{}",
        stderr(&list)
    );
    let out = review_of_report(root, &["--bless", "s/fresh"]);
    assert_eq!(
        stdout(&out),
        "\nrun again:\ntest s/fresh ... ok (blessed)\n",
        "{}",
        stderr(&out)
    );
    let baseline: serde_json::Value =
        serde_json::from_str(&read(root, "cases/s/baseline.json")).unwrap();
    let entries: Vec<&String> = baseline["cases"].as_object().unwrap().keys().collect();
    assert_eq!(entries, ["fresh", "old"]);
    assert_eq!(
        baseline["cases"]["old"]["anls"], 1.0,
        "the other entry is kept"
    );
    assert_eq!(baseline["cases"]["fresh"]["anls"], 1.0);
}

#[test]
fn the_named_pipeline_gives_the_value_and_all_acts_on_the_whole_queue() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fixture(root);
    // `--pipeline b` takes b's value where the pipelines differ: here the gold's own.
    let out = review_of_report(
        root,
        &["--variant", "inv/block::a#number", "--pipeline", "b"],
    );
    assert_eq!(
        stderr(&out),
        "refused `inv/block::a#number`: cases/inv/block.yaml:3:11: the value is already one of the variants\n"
    );
    // `--variant --all`: every field item gets its prediction as a variant.
    let out = review_of_report(root, &["--variant", "--all"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).lines().take(7).collect::<Vec<_>>(),
        [
            "cases/inv/flow.yaml:1: total: 79 → { any_of: [79, \"79,26\"] }",
            "cases/inv/block.yaml:3: number: \"0173\" → { any_of: [\"0173\", \"0174\"] }",
            "cases/inv/block.yaml:4: code: 0042 → { any_of: [0042, 0043] }",
            "gold/json.json:2: total: \"12.50\" → {\"any_of\": [\"12.50\", \"12.60\"]}",
            "cases/inv/flow.yaml:1: ref: 'A-1' → { any_of: ['A-1', 'A-2'] }",
            "cases/inv/block.yaml:11: city: + Lugdunum",
            "cases/inv/block.yaml:6: date: 2024-03-05 → { any_of: [2024-03-05, 05/03/2024] }",
        ]
    );
    assert_eq!(
        read(root, "cases/inv/flow.yaml"),
        "gold: { total: { any_of: [79, \"79,26\"] }, ref: { any_of: ['A-1', 'A-2'] } }  # flow style\ndocument: scans/flow.pdf\n"
    );
    assert_eq!(
        read(root, "gold/json.json"),
        "{\n  \"total\": {\"any_of\": [\"12.50\", \"12.60\"]},\n  \"date\": \"2024-03-05\"\n}\n"
    );
    // Every test passes now.
    let text = stdout(&out);
    let verdicts: Vec<&str> = text.lines().skip(9).collect();
    assert_eq!(
        verdicts,
        [
            "test inv/block::a ... ok",
            "test inv/block::b ... ok",
            "test inv/flow::a ... ok",
            "test inv/flow::b ... ok",
            "test inv/json::a ... ok",
            "test inv/json::b ... ok",
        ]
    );
}

#[test]
fn what_cannot_be_edited_in_place_is_refused_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            (
                "cases/c.yaml",
                "prediction: c.json\nthresholds: { min_exact_match: 1.0 }\ngold:\n  note: |\n    paid\n  iban:\n",
            ),
            ("cases/c.json", r#"{"note": "due", "iban": "FR76"}"#),
        ],
    );
    goldgate(root, &["test", "cases", "--report", "report.json"]);
    let out = review_of_report(root, &["--accept", "c#note", "c#iban"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "refused `c#note`: cases/c.yaml:5:5: the value is a block scalar (`|` or `>`), which goldgate does not rewrite in place: edit it by hand\n"
    );
    assert_eq!(
        stdout(&out),
        "cases/c.yaml:6: iban: (nothing) → FR76\n\nrun again:\ntest c ... FAILED\n"
    );
    assert_eq!(
        read(root, "cases/c.yaml"),
        "prediction: c.json\nthresholds: { min_exact_match: 1.0 }\ngold:\n  note: |\n    paid\n  iban: FR76\n"
    );
}

#[test]
fn without_a_report_the_newest_run_is_reviewed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fixture(root);
    // The run's journal lives in the temporary folder: one of this test's own.
    let tmp = root.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let tmp = tmp.to_str().unwrap();
    let none = support::goldgate_with(root, &["review", "cases", "--list"], &[("TMPDIR", tmp)]);
    assert_eq!(
        stderr(&none),
        "error: no run of this project has written records yet: review with `--run` (runs the tests first), or give the report of a run with `--report FILE`\n"
    );
    support::goldgate_with(
        root,
        &["test", "cases"],
        &[("TMPDIR", tmp), ("GOLDGATE_RUN_ID", "review-of-a-journal")],
    );
    let out = support::goldgate_with(root, &["review", "cases", "--list"], &[("TMPDIR", tmp)]);
    assert_eq!(stdout(&out), LIST, "{}", stderr(&out));
    // The newest run is not the one of another folder.
    std::fs::create_dir(root.join("other")).unwrap();
    let other = support::goldgate_with(root, &["review", "other", "--list"], &[("TMPDIR", tmp)]);
    assert_eq!(
        stderr(&other),
        "error: no run of this project has written records yet: review with `--run` (runs the tests first), or give the report of a run with `--report FILE`\n"
    );
    // A run in one process (`goldgate test`, `cargo test`) leaves what it can be reviewed for.
    let alone = root.join("tmp-alone");
    std::fs::create_dir(&alone).unwrap();
    let alone = alone.to_str().unwrap();
    support::goldgate_with(root, &["test", "cases"], &[("TMPDIR", alone)]);
    let out = support::goldgate_with(root, &["review", "cases", "--list"], &[("TMPDIR", alone)]);
    assert_eq!(stdout(&out), LIST, "{}", stderr(&out));
}

#[test]
fn a_gold_set_of_json_labels_is_edited_in_its_labels() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            (
                "cases/set/suite.yaml",
                "cases:\n  gold: labels/{case}.json\npipelines:\n  a: res/a/{case}.json\ndefaults:\n  thresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/set/labels/d1.json",
                "{\r\n  \"total\": 12.50,\r\n  \"id\": \"0173\"\r\n}\r\n",
            ),
            (
                "cases/set/res/a/d1.json",
                r#"{"total": "12.60", "id": "0174"}"#,
            ),
        ],
    );
    goldgate(root, &["test", "cases", "--report", "report.json"]);
    let out = review_of_report(root, &["--accept", "--all"]);
    assert_eq!(
        stdout(&out),
        "cases/set/labels/d1.json:3: id: \"0173\" → \"0174\"\ncases/set/labels/d1.json:2: total: 12.50 → 12.60\n\nrun again:\ntest set/d1::a ... ok\n",
        "{}",
        stderr(&out)
    );
    // A number stays a number, a text a text, CRLF stays.
    let labels = "{\r\n  \"total\": 12.60,\r\n  \"id\": \"0174\"\r\n}\r\n";
    assert_eq!(read(root, "cases/set/labels/d1.json"), labels);
    // A case file beside the labels overrides their gold: it is the one edited.
    write_files(
        root,
        &[(
            "cases/set/d1.yaml",
            "gold:\n  id: \"0172\"  # checked by hand\n  total: 12.60\n",
        )],
    );
    goldgate(root, &["test", "cases", "--report", "report.json"]);
    let out = review_of_report(root, &["--accept", "set/d1::a#id"]);
    assert_eq!(
        stdout(&out),
        "cases/set/d1.yaml:2: id: \"0172\" → \"0174\"\n\nrun again:\ntest set/d1::a ... ok\n",
        "{}",
        stderr(&out)
    );
    assert_eq!(
        read(root, "cases/set/d1.yaml"),
        "gold:\n  id: \"0174\"  # checked by hand\n  total: 12.60\n"
    );
    assert_eq!(read(root, "cases/set/labels/d1.json"), labels);
}

/// tmux, which the terminal review's test needs (ignored unless asked for: `.ci/run` installs
/// tmux and runs the ignored tests).
fn tmux() -> std::path::PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("tmux"))
        .find(|p| p.is_file())
        .expect("tmux drives the terminal review in this test: install it (`apt-get install tmux`)")
}

/// A tmux server of its own (its socket in the test's folder), one window running a command.
struct Terminal {
    tmux: std::path::PathBuf,
    socket: std::path::PathBuf,
}

impl Terminal {
    fn start(tmux: std::path::PathBuf, dir: &Path, command: &str) -> Terminal {
        let socket = dir.join("tmux.sock");
        let t = Terminal { tmux, socket };
        let ok = t
            .run(&[
                "new-session",
                "-d",
                "-s",
                "review",
                "-x",
                "100",
                "-y",
                "30",
                "-c",
            ])
            .arg(dir)
            .arg(command)
            .env_remove("TMUX")
            .status()
            .unwrap();
        assert!(ok.success());
        t
    }

    fn run(&self, args: &[&str]) -> std::process::Command {
        let mut c = std::process::Command::new(&self.tmux);
        c.arg("-S").arg(&self.socket).args(args);
        c
    }

    fn screen(&self) -> String {
        let out = self
            .run(&["capture-pane", "-p", "-t", "review"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen shows `text` (the program redraws after each key).
    fn shows(&self, text: &str) -> String {
        // Up to 30 s: a loaded machine is slow, and a screen that never comes fails.
        for _ in 0..1200 {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("the screen never showed {text:?}:\n{}", self.screen());
    }

    fn key(&self, key: &str) {
        assert!(
            self.run(&["send-keys", "-t", "review", key])
                .status()
                .unwrap()
                .success()
        );
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]).status();
    }
}

#[test]
#[ignore = "needs tmux (apt-get install tmux); .ci/run installs it and runs the ignored tests"]
fn the_terminal_review_takes_one_key_an_item_and_undoes() {
    let tmux = tmux();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fixture(root);
    let command = format!(
        "NO_COLOR=1 {} review cases --report report.json; echo review ended with $?; sleep 60",
        env!("CARGO_BIN_EXE_goldgate")
    );
    let term = Terminal::start(tmux, root, &command);
    let first = term.shows("goldgate review 1/7  contradicted  inv/flow#total");
    for line in [
        "  case      inv/flow",
        "  document  cases/inv/scans/flow.pdf",
        "  field     total",
        "  gold      79   cases/inv/flow.yaml:1",
        "› a         79{+,26+}   EM 0  ANLS 0.00",
        "  b         79{+,26+}   EM 0  ANLS 0.00",
        "  a accept as gold  v add as variant  s skip  u undo  q quit",
    ] {
        assert!(
            first.lines().any(|l| l == line),
            "{line:?} not in:\n{first}"
        );
    }
    term.key("a");
    let second = term.shows("goldgate review 2/7  failing  inv/block::a#number");
    assert!(
        second
            .lines()
            .any(|l| l == "› a         017[-3-]{+4+}   EM 0  ANLS 0.75  confidence 0.90"),
        "{second}"
    );
    term.key("s");
    term.shows("goldgate review 3/7  failing  inv/block::a#code");
    term.key("u");
    let undone = term.shows("undone: skip of inv/block::a#number");
    assert!(undone.contains("goldgate review 2/7"), "{undone}");
    term.key("v");
    term.shows("goldgate review 3/7");
    term.key("S");
    // Every item decided: nothing is written until Enter, and `u` undoes the whole `S`.
    let all = term.shows("reviewed 7 of 7 items: 1 accept, 1 variant, 0 bless, 5 skip");
    assert!(
        all.contains("Enter or q writes them, u undoes the last"),
        "{all}"
    );
    assert_eq!(read(root, "cases/inv/block.yaml"), BLOCK);
    term.key("u");
    term.shows("undone: skip of the 5 items from inv/block::a#code");
    term.key("S");
    term.shows("Enter or q writes them");
    term.key("Enter");
    let end = term.shows("review ended with 0");
    for line in [
        "reviewed 7 of 7 items: 1 accept, 1 variant, 0 bless, 5 skip",
        "cases/inv/flow.yaml:1: total: 79 → \"79,26\"",
        "cases/inv/block.yaml:3: number: \"0173\" → { any_of: [\"0173\", \"0174\"] }",
        "run again:",
        "test inv/block::a ... FAILED",
        "test inv/block::b ... ok",
        "test inv/flow::a ... FAILED",
        "test inv/flow::b ... ok",
    ] {
        assert!(end.lines().any(|l| l == line), "{line:?} not in:\n{end}");
    }
    assert_eq!(
        read(root, "cases/inv/flow.yaml"),
        "gold: { total: \"79,26\", ref: 'A-1' }  # flow style\ndocument: scans/flow.pdf\n"
    );
    assert_eq!(
        read(root, "cases/inv/block.yaml"),
        BLOCK.replace(
            "number: \"0173\"",
            "number: { any_of: [\"0173\", \"0174\"] }"
        )
    );
}

/// `cargo goldgate review` in a crate set up as a user's: the tests run by `cargo test`, for the
/// records (`--run`) and again after the edit. Builds goldgate as a dependency: ignored unless
/// asked for.
#[test]
#[ignore = "builds a whole crate (minutes of CPU); .ci/run runs the ignored tests"]
fn cargo_goldgate_review_runs_the_tests_with_cargo() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path();
    let goldgate = env!("CARGO_MANIFEST_DIR");
    write_files(
        krate,
        &[
            (
                "Cargo.toml",
                &format!(
                    "[package]\nname = \"review-e2e\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
                     [dev-dependencies]\ngoldgate = {{ path = {goldgate:?} }}\n\n\
                     [[test]]\nname = \"goldgate\"\nharness = false\n"
                ),
            ),
            ("src/lib.rs", ""),
            (
                "tests/goldgate.rs",
                "fn main() -> std::process::ExitCode {\n    goldgate::Harness::new(\"cases\").run()\n}\n",
            ),
        ],
    );
    std::fs::copy(
        Path::new(goldgate).join("Cargo.lock"),
        krate.join("Cargo.lock"),
    )
    .unwrap();
    fixture(krate);
    let cargo_goldgate = |args: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-goldgate"));
        cmd.arg("goldgate").args(args).current_dir(krate);
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            if name.starts_with("GOLDGATE_") || name.starts_with("NEXTEST") {
                cmd.env_remove(name.as_ref());
            }
        }
        cmd.env("NO_COLOR", "1")
            .env("CARGO_TERM_COLOR", "never")
            .env("CARGO_TARGET_DIR", e2e::target())
            .env(
                "CARGO",
                std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
            )
            .output()
            .unwrap()
    };
    let list = cargo_goldgate(&["review", "--run", "--list"]);
    assert!(
        stdout(&list).ends_with(LIST),
        "{}{}",
        stdout(&list),
        stderr(&list)
    );
    let out = cargo_goldgate(&["review", "--run", "--accept", "inv/flow#total"]);
    assert!(
        stdout(&out).ends_with(
            "cases/inv/flow.yaml:1: total: 79 → \"79,26\"\n\nrun again:\ntest inv/flow::a ... FAILED\ntest inv/flow::b ... ok\n"
        ),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}
