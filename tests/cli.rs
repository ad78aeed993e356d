//! The harness as a user runs it: the `goldgate` binary over fixture folders, asserting test
//! names, verdicts, exit codes, report values and failure messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

mod support;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs `goldgate ARGS` in `dir`, with colour off and none of the caller's run settings.
fn goldgate(dir: &Path, args: &[&str]) -> Output {
    support::command(dir, args)
        .output()
        .expect("the goldgate binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The failure block libtest prints for one test.
fn failure_block(out: &str, name: &str) -> String {
    let start = out
        .find(&format!("---- {name} ----\n"))
        .unwrap_or_else(|| panic!("no failure block for {name} in:\n{out}"));
    let body = &out[start..].split_once('\n').unwrap().1;
    let end = [body.find("\n---- "), body.find("\nfailures:")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(body.len());
    body[..end].trim_end().to_owned()
}

/// Compares with a snapshot in tests/snapshots; `GOLDGATE_BLESS=1` rewrites it.
fn assert_snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("GOLDGATE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{actual}\n")).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing snapshot {}", path.display()));
    assert_eq!(
        actual,
        expected.trim_end(),
        "snapshot {name} differs (GOLDGATE_BLESS=1 to accept)"
    );
}

/// Writes files under `root`, their folders created: a fixture made in the test itself.
fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// Expected `test NAME ... VERDICT` lines, as `test_lines` gives them.
fn expected(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, verdict)| (name.to_string(), verdict.to_string()))
        .collect()
}

fn test_lines(out: &str) -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> = out
        .lines()
        .filter_map(|l| l.strip_prefix("test "))
        .filter_map(|l| l.split_once(" ... "))
        .map(|(name, verdict)| (name.trim().to_owned(), verdict.to_owned()))
        .collect();
    lines.sort();
    lines
}

fn report(dir: &Path, args: &[&str]) -> (Output, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("report.json");
    let mut all = vec!["test", "cases", "--report", file.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = goldgate(dir, &all);
    let json =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("report written")).unwrap();
    (out, json)
}

fn case<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id} in report"))
}

fn close(a: &Value, b: f64) -> bool {
    (a.as_f64().unwrap_or(f64::NAN) - b).abs() < 1e-12
}

#[test]
fn verdicts_of_every_fixture_case() {
    let out = goldgate(&fixtures().join("verdicts"), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let verdicts = test_lines(&stdout(&out));
    let expected = [
        ("anls/at-threshold", "FAILED"),
        ("calibration/no-confidence", "FAILED"),
        ("calibration/overconfident", "FAILED"),
        ("critical/wrong-total", "FAILED"),
        ("exact/pass", "ok"),
        ("gate/closed", "FAILED"),
        ("negation/summary", "ok"),
        ("nested/line-items", "ok"),
        ("nulls/absent-iban", "ok"),
        ("nulls/hallucinated-iban", "FAILED"),
        ("penalty/default", "FAILED"),
        ("penalty/half", "ok"),
        ("raw/leading-zero", "FAILED"),
        (
            "skip/later",
            "ignored (vendor export is broken until the next release)",
        ),
        ("typo/field", "FAILED"),
        ("variants/any-of", "ok"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(verdicts, expected);
    assert!(stdout(&out).contains("test result: FAILED. 6 passed; 9 failed; 1 ignored"));
    assert!(
        stdout(&out).contains(
            "goldgate: 16 cases, 6 passed, 9 failed, 1 ignored; mean EM 0.7361, ANLS 0.8581"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn report_values() {
    let (out, r) = report(&fixtures().join("verdicts"), &[]);
    assert_eq!(out.status.code(), Some(101));
    assert_eq!(r["summary"]["cases"], 16);
    assert_eq!(r["summary"]["failed"], 9);

    let raw = case(&r, "raw/leading-zero");
    assert_eq!(raw["passed"], false);
    assert_eq!(raw["file"], "cases/raw/leading-zero.yaml");
    assert_eq!(raw["fields"][0]["gold"], serde_json::json!(["0173"]));
    assert_eq!(raw["fields"][0]["prediction"], "173");
    assert!(close(&raw["fields"][0]["anls"], 0.75));
    assert_eq!(raw["fields"][1]["gold"], serde_json::json!(["no"]));
    assert!(close(&raw["metrics"]["exact_match"], 0.5));
    assert_eq!(
        raw["thresholds"][0],
        serde_json::json!({"name": "min_exact_match", "limit": 1.0, "value": 0.5, "held": false, "absent_because": null,
            "file": "cases/raw/leading-zero.yaml", "line": 7, "column": 20})
    );

    assert!(close(
        &case(&r, "anls/at-threshold")["metrics"]["anls"],
        (0.0 + 6.0 / 7.0) / 2.0
    ));

    let cal = case(&r, "calibration/overconfident");
    assert!(close(&cal["metrics"]["brier"], (0.81 + 0.04 + 0.49) / 3.0));
    assert!(close(&cal["metrics"]["ece"], 0.6));
    assert!(close(&cal["metrics"]["latency_ms"], 640.0));
    assert_eq!(cal["model"], "gemini-2.5-flash");
    assert_eq!(cal["description"], Value::Null);
    assert_eq!(case(&r, "skip/later")["tags"], serde_json::json!([]));
    assert_eq!(cal["usage"]["input_tokens"], 1000.0);
    assert_eq!(cal["fields"][0]["confidence"], 0.9);

    let absent = case(&r, "calibration/no-confidence");
    assert_eq!(absent["metrics"]["brier"], Value::Null);
    assert_eq!(absent["thresholds"][0]["held"], false);
    assert_eq!(
        absent["thresholds"][0]["absent_because"],
        json!({"absent": "no_confidence"})
    );

    let gate = case(&r, "gate/closed");
    assert_eq!(gate["score"], 0.0);
    assert_eq!(
        gate["gate"],
        serde_json::json!({"open": false, "closed_by": ["total is exact"]})
    );
    assert_eq!(gate["rubrics"][1]["held"], true);
    assert_eq!(gate["rubrics"][0]["kind"], "must_right");

    assert!(close(&case(&r, "penalty/half")["score"], 0.5));
    assert_eq!(case(&r, "penalty/half")["passed"], true);
    assert!(close(&case(&r, "penalty/default")["score"], 0.7));
    assert_eq!(case(&r, "penalty/default")["rubrics"][2]["penalty"], 0.1);

    let crit = case(&r, "critical/wrong-total");
    assert!(close(&crit["metrics"]["exact_critical"], 0.5));
    assert!(close(&crit["metrics"]["exact_match"], 2.0 / 3.0));
    assert_eq!(crit["fields"][1]["critical"], true);

    let skipped = case(&r, "skip/later");
    assert_eq!(skipped["passed"], Value::Null);
    assert_eq!(skipped["ignored"], true);
    assert_eq!(
        skipped["skip"],
        "vendor export is broken until the next release"
    );

    assert_eq!(case(&r, "nulls/hallucinated-iban")["fields"][0]["em"], 0.0);
    assert_eq!(case(&r, "nested/line-items")["fields"][0]["em"], 1.0);
}

#[test]
fn report_from_the_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("r.json");
    // None of the caller's run settings: under `cargo goldgate test` with GOLDGATE_UPDATE=always
    // this run would bless the fixture's baseline and join the caller's run.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    support::clear_run_settings(&mut cmd);
    let out = cmd
        .args(["test", "cases", "--exact", "exact/pass"])
        .current_dir(fixtures().join("verdicts"))
        .env("GOLDGATE_REPORT", &file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(r["cases"].as_array().unwrap().len(), 1);
    assert_eq!(r["cases"][0]["passed"], true);
}

#[test]
fn failure_messages() {
    let out = stdout(&goldgate(
        &fixtures().join("verdicts"),
        &["test", "cases", "--test-threads", "1"],
    ));
    for name in [
        "gate/closed",
        "raw/leading-zero",
        "penalty/default",
        "calibration/no-confidence",
        "typo/field",
    ] {
        assert_snapshot(&name.replace('/', "-"), &failure_block(&out, name));
    }
}

#[test]
fn colour_on_request_and_never_in_a_pipe() {
    let dir = fixtures().join("verdicts");
    let plain = goldgate(&dir, &["test", "cases", "gate/closed"]);
    assert!(!stdout(&plain).contains('\u{1b}'));
    let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .env_remove("NEXTEST_RUN_ID")
        .args(["test", "cases", "gate/closed", "--color", "always"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("\u{1b}[31m[-.-]"),
        "the removed part is red: {text}"
    );
}

#[test]
fn libtest_flags() {
    let dir = fixtures().join("verdicts");
    let list = stdout(&goldgate(&dir, &["test", "cases", "--list"]));
    assert!(
        list.starts_with("anls/at-threshold: test\ncalibration/no-confidence: test\n"),
        "{list}"
    );
    assert_eq!(list.lines().filter(|l| l.ends_with(": test")).count(), 16);

    let exact = goldgate(&dir, &["test", "cases", "--exact", "penalty/half"]);
    assert_eq!(exact.status.code(), Some(0));
    assert_eq!(
        test_lines(&stdout(&exact)),
        vec![("penalty/half".to_owned(), "ok".to_owned())]
    );

    let filtered = goldgate(&dir, &["test", "cases", "nulls/"]);
    assert_eq!(test_lines(&stdout(&filtered)).len(), 2);
    assert_eq!(filtered.status.code(), Some(101));

    let skipped = goldgate(&dir, &["test", "cases", "nulls/", "--skip", "hallucinated"]);
    assert_eq!(skipped.status.code(), Some(0));

    let ignored = goldgate(&dir, &["test", "cases", "--ignored"]);
    assert_eq!(
        test_lines(&stdout(&ignored)),
        vec![("skip/later".to_owned(), "FAILED".to_owned())]
    );
    let ignored_list = stdout(&goldgate(&dir, &["test", "cases", "--list", "--ignored"]));
    assert_eq!(ignored_list.trim(), "skip/later: test");

    let include = goldgate(&dir, &["test", "cases", "skip/", "--include-ignored"]);
    assert_eq!(
        test_lines(&stdout(&include)),
        vec![("skip/later".to_owned(), "FAILED".to_owned())]
    );

    let terse = stdout(&goldgate(
        &dir,
        &["test", "cases", "variants/", "--format", "terse"],
    ));
    assert!(terse.contains("running 1 test\n."), "{terse}");
    let json = stdout(&goldgate(
        &dir,
        &[
            "test",
            "cases",
            "--exact",
            "variants/any-of",
            "--format",
            "json",
            "-Z",
            "unstable-options",
        ],
    ));
    assert!(json.contains(r#""name": "variants/any-of""#), "{json}");
}

/// `tests/ui/cases/NAME.yaml` is a broken case named after its mistake; `NAME.expected` beside
/// it is the first line of its failure message.
#[test]
fn ui_broken_files_fail_alone_with_location_and_fix() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let out = goldgate(&dir, &["test", "cases", "--test-threads", "1"]);
    assert_eq!(out.status.code(), Some(101));
    let text = stdout(&out);
    let verdicts = test_lines(&text);
    assert!(
        verdicts.contains(&("valid".to_owned(), "ok".to_owned())),
        "a good case among broken ones still runs"
    );
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(dir.join("cases")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "expected") {
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let expected = std::fs::read_to_string(&path).unwrap();
            let block = failure_block(&text, &name);
            assert_eq!(
                block.lines().next().unwrap(),
                expected.trim_end(),
                "tests/ui/cases/{name}"
            );
            checked.push(name);
        }
    }
    let failed: Vec<&String> = verdicts
        .iter()
        .filter(|(_, v)| v == "FAILED")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        checked.len(),
        failed.len(),
        "every broken case has its .expected: {failed:?}"
    );
    assert!(checked.len() >= 30, "{} ui cases", checked.len());
}

#[test]
fn zero_cases_and_missing_folder_fail_naming_them() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("cases")).unwrap();
    let out = goldgate(tmp.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101));
    assert!(
        stderr(&out).contains("no case files found in `cases` matching `**/*.yaml` or `**/*.yml`"),
        "{}",
        stderr(&out)
    );
    let out = goldgate(tmp.path(), &["test", "elsewhere"]);
    assert_eq!(out.status.code(), Some(101));
    assert!(stderr(&out).contains("`elsewhere` does not exist"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = fixtures().join("verdicts");
    assert_eq!(
        goldgate(&dir, &["test", "cases", "--rubrics"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        goldgate(&dir, &["test", "cases", "--no-such-flag"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(goldgate(&dir, &["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        goldgate(&dir, &["score", "only-gold"]).status.code(),
        Some(2)
    );
}

/// `score --jsonl` writes the same bytes whichever way a line is read: two texts go a quick way
/// in the default profile (read by goldgate's own reader, or by serde_json where a key is written
/// with an escape; texts written alike, ASCII byte by byte, Latin letters by one lookup, accents
/// by a lookup or a decomposition in one pass, other text by the Unicode steps), any other line
/// the general way. `scores.jsonl` was written by goldgate before the quick way existed (but its
/// last two lines: a list, which the quick way once scored, and a key written with an escape); the pairs cover each way, characters NFKC
/// would fold (goldgate does not), empty texts, numbers and the lines that are errors.
#[test]
fn score_jsonl_writes_the_pinned_scores_on_every_path() {
    let dir = fixtures().join("score");
    let out = goldgate(&dir, &["score", "--jsonl", "pairs.jsonl"]);
    let pinned = std::fs::read_to_string(dir.join("scores.jsonl")).unwrap();
    assert_eq!(stdout(&out), pinned);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).lines().collect::<Vec<_>>(),
        [
            "error: pairs.jsonl:62: invalid JSON: duplicate key `gold` at line 1 column 20",
            "error: pairs.jsonl:63: the line has no `pred` key",
            "error: pairs.jsonl:64: invalid JSON: expected ident at line 1 column 2",
            "error: pairs.jsonl:65: invalid JSON: trailing comma at line 1 column 27",
            "error: pairs.jsonl:66: invalid JSON: unexpected end of hex escape at line 1 column 30",
            // serde_json reads a struct from a list: the quick way once scored this line.
            "error: pairs.jsonl:67: the line has no `gold` key",
        ]
    );
}

/// The scores of standard input are held only while more input is at hand: a program that
/// writes a line and waits for its score gets it before it writes the next one.
#[test]
fn score_jsonl_answers_each_line_of_standard_input_before_the_next() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = support::command(&fixtures(), &["score", "--jsonl", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    for (pair, score) in [
        (
            r#"{"gold": "Invoice", "pred": "invoice"}"#,
            r#"{"anls":1.0,"em":1}"#,
        ),
        (
            r#"{"gold": 1234, "pred": "1235"}"#,
            r#"{"anls":0.75,"em":0}"#,
        ),
    ] {
        writeln!(input, "{pair}").unwrap();
        input.flush().unwrap();
        // Were the score held back, this read would wait for ever: the input is still open.
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        assert_eq!(line.trim_end(), score);
    }
    drop(input);
    assert!(child.wait().unwrap().success());
}

#[test]
fn score_and_calibrate_commands() {
    let dir = fixtures();
    let out = goldgate(&dir, &["score", "Société Générale", "societe generale"]);
    assert_eq!(stdout(&out).trim(), r#"{"anls":1.0,"em":1}"#);
    let out = goldgate(&dir, &["score", "invoice", "invoce"]);
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(close(&v["anls"], 1.0 - 1.0 / 7.0));
    assert_eq!(v["em"], 0);

    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.jsonl");
    std::fs::write(
        &input,
        concat!(
            r#"{"gold": {"any_of": ["2024-03-05", "05/03/2024"]}, "pred": "05/03/2024"}"#,
            "\n",
            r#"{"gold": "abcdef", "pred": "abcxyz"}"#,
            "\n",
            r#"{"gold": null, "pred": null}"#,
            "\n",
            "not json\n",
        ),
    )
    .unwrap();
    let out = goldgate(&dir, &["score", "--jsonl", input.to_str().unwrap()]);
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(
        lines[..3],
        [
            r#"{"anls":1.0,"em":1}"#,
            r#"{"anls":0.0,"em":0}"#,
            r#"{"anls":1.0,"em":1}"#
        ]
    );
    assert!(lines[3].contains("error") && lines[3].contains("line 4"));
    assert_eq!(out.status.code(), Some(1));

    std::fs::write(&input, "{\"p\": [0.2, 0.9], \"o\": [0, 1], \"bins\": 5}\n{\"p\": [0.6000000000000001], \"o\": [1]}\n").unwrap();
    let out = goldgate(&dir, &["calibrate", "--jsonl", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(close(&lines[0]["brier"], (0.04 + 0.01) / 2.0));
    assert!(close(&lines[0]["ece"], 0.15));
    assert!(close(&lines[1]["ece"], 0.3999999999999999));
}

#[test]
fn the_readme_shows_a_real_failure_message() {
    let out = stdout(&goldgate(&fixtures().join("readme"), &["test", "cases"]));
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let shown = readme
        .split("## A failure, as goldgate prints it\n\n```\n")
        .nth(1)
        .unwrap()
        .split("\n```")
        .next()
        .unwrap();
    assert_eq!(failure_block(&out, "acme"), shown);
}

#[test]
fn zero_test_threads_is_a_usage_error() {
    let out = goldgate(
        &fixtures().join("verdicts"),
        &["test", "cases", "--test-threads", "0"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--test-threads"));
    let out = goldgate(
        &fixtures().join("verdicts"),
        &["test", "cases", "--test-threads", "10000000"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: `--test-threads` 10000000 is more than 1024 (cases are scored on CPU; a few per core is plenty)\n"
    );
}

#[test]
fn json_output_carries_no_colour_codes() {
    let out = goldgate(
        &fixtures().join("verdicts"),
        &["test", "cases", "gate/", "--format", "json"],
    );
    let text = stdout(&out);
    assert!(text.contains("gate closed by must_right"), "{text}");
    assert!(
        !text.contains("\\u001b") && !text.contains('\u{1b}'),
        "{text}"
    );
}

#[test]
fn run_from_inside_the_cases_folder_finds_the_rubrics_beside_it() {
    let out = goldgate(
        &fixtures().join("verdicts/cases"),
        &["test", ".", "--exact", "penalty/default"],
    );
    let text = stdout(&out);
    assert!(text.contains("rubrics/one-more-miss.yaml:2 (easy_wrong `says supplier`, included at ./penalty/default.yaml:4)"), "{text}");
}

#[test]
fn typed_fields_extra_fields_nested_values_and_profiles() {
    let (out, r) = report(&fixtures().join("typed"), &["--test-threads", "1"]);
    assert_eq!(out.status.code(), Some(101));
    let verdicts: Vec<(String, String)> = test_lines(&stdout(&out));
    let failed: Vec<&str> = verdicts
        .iter()
        .filter(|(_, v)| v == "FAILED")
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(
        failed,
        [
            "correct/by-anls",
            "extra/hallucinated",
            "nested/missing-item",
            "numbers/unreadable"
        ]
    );

    let numbers = case(&r, "numbers/forms");
    assert!(
        numbers["fields"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["em"] == 1.0 && f["anls"] == 1.0)
    );

    let dates = case(&r, "dates/forms");
    let ems: Vec<f64> = dates["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["em"].as_f64().unwrap())
        .collect();
    assert_eq!(ems, [1.0, 1.0, 1.0, 0.0]);

    let unreadable = case(&r, "numbers/unreadable");
    assert_eq!(
        unreadable["fields"][0]["note"],
        json!({"note": "unreadable", "reading": "number", "value": "twelve hundred"})
    );

    // title is correct by ANLS (o = 1), vendor is not: Brier = ((0.9 - 1)^2 + 0.9^2) / 2.
    let by_anls = case(&r, "correct/by-anls");
    assert_eq!(by_anls["fields"][0]["em"], 1.0);
    assert!(close(&by_anls["fields"][0]["anls"], 1.0 - 1.0 / 7.0));
    assert!(close(&by_anls["metrics"]["brier"], (0.01 + 0.81) / 2.0));

    // 1 correct of 2 non-empty predictions (iban is extra, note is empty); 1 correct of 2 gold fields.
    let extra = case(&r, "extra/hallucinated");
    assert_eq!(
        extra["extra_fields"],
        serde_json::json!([{"name": "iban", "prediction": "FR76 3000 6000 0112"}])
    );
    assert_eq!(extra["metrics"]["extra_fields"], 1.0);
    assert!(close(&extra["metrics"]["precision"], 0.5));
    assert!(close(&extra["metrics"]["recall"], 0.5));
    assert!(close(&extra["metrics"]["f1"], 0.5));

    let nested = case(&r, "nested/missing-item");
    assert!(close(&nested["metrics"]["anls"], 2.0 / 3.0));
    assert_eq!(nested["fields"][0]["em"], 0.0);

    // anls_star: NL = 0.5 keeps 0.5; accents count: 1 - 2/7.
    let star = case(&r, "profile/anls-star");
    assert!(close(&star["fields"][0]["anls"], 0.5));
    assert!(close(&star["fields"][1]["anls"], 1.0 - 2.0 / 7.0));
    assert_eq!(star["passed"], true);

    let text = stdout(&out);
    for name in [
        "nested/missing-item",
        "numbers/unreadable",
        "extra/hallucinated",
    ] {
        assert_snapshot(&name.replace('/', "-"), &failure_block(&text, name));
    }
}

#[test]
fn score_in_the_anls_star_profile() {
    let out = goldgate(
        &fixtures(),
        &["score", "--profile", "anls_star", "ab", "a8"],
    );
    assert_eq!(stdout(&out).trim(), r#"{"anls":0.5,"em":0}"#);
    let out = goldgate(&fixtures(), &["score", "ab", "a8"]);
    assert_eq!(stdout(&out).trim(), r#"{"anls":0.0,"em":0}"#);
    assert_eq!(
        goldgate(&fixtures(), &["score", "--profile", "anls-star", "a", "b"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn every_check_of_the_vocabulary_holds_and_fails() {
    let (out, r) = report(&fixtures().join("checks"), &[]);
    let verdicts = test_lines(&stdout(&out));
    assert_eq!(
        verdicts,
        [
            ("fails".to_owned(), "FAILED".to_owned()),
            ("passes".to_owned(), "ok".to_owned())
        ]
    );
    let passes = case(&r, "passes");
    assert_eq!(passes["rubrics"].as_array().unwrap().len(), 14);
    assert!(
        passes["rubrics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["held"] == true)
    );
    let fails = case(&r, "fails");
    assert!(
        fails["rubrics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["held"] == false)
    );
    assert!(close(&fails["score"], 0.1));
    assert_eq!(fails["rubrics"][5]["field"], "line_items[*].quantity");
    assert_snapshot("checks-fails", &failure_block(&stdout(&out), "fails"));
}

#[test]
fn the_book_carries_the_case_writing_guide_of_the_crate_docs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chapter = std::fs::read_to_string(root.join("docs/src/writing-cases.md")).unwrap();
    let guide = std::fs::read_to_string(root.join("src/guide.md")).unwrap();
    assert!(
        chapter.contains(&guide),
        "docs/src/writing-cases.md must hold src/guide.md word for word"
    );
}

#[test]
fn the_guide_examples_load() {
    // Every rubric of the guide, against a prediction that makes each hold.
    let dir = tempfile::tempdir().unwrap();
    let guide = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/guide.md"))
        .unwrap();
    let rubrics = guide
        .split("```yaml\nrubrics:\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let case = format!(
        "prediction: p.json\ngold:\n  invoice_number: \"0173\"\n  supplier: {{ name: ACME }}\nrubrics:\n{rubrics}"
    );
    std::fs::create_dir(dir.path().join("cases")).unwrap();
    std::fs::create_dir(dir.path().join("rubrics")).unwrap();
    std::fs::write(
        dir.path().join("rubrics/invoice-basics.yaml"),
        "rubrics:\n  - must_right: a number\n    field: invoice_number\n    present: true\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("cases/guide.yaml"), case).unwrap();
    // The guide's `judge:` rubric: a judge that says yes, its verdict recorded by the run. It
    // never reads its input: writing the question to it once killed the run by SIGPIPE.
    std::fs::write(
        dir.path().join("cases/suite.yaml"),
        "judge:\n  command: [sh, -c, 'echo \"{\\\"held\\\": true, \\\"explanation\\\": \\\"yes\\\"}\"']\n  verdicts: verdicts.json\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("cases/p.json"), r#"{"fields": {
        "invoice_number": "0173", "supplier": {"name": "ACME"}, "currency": "eur", "payment_method": "card",
        "iban": null, "vat_number": "FR25812345678", "total_ht": "1 028,75", "tva": "205,75",
        "total_ttc": {"value": "1 234,50", "confidence": 0.9}, "issue_date": "5 mars 2024",
        "line_items": [{"description": "Câble 3G2.5", "quantity": "10"}, {"description": "Gaine", "quantity": "2"},
                       {"description": "Boîte", "quantity": "1"}],
        "summary": "ACME invoice, unpaid"}}"#).unwrap();
    let out = goldgate_env(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_JUDGE", "record")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// Copies a fixture folder to a temporary one, for tests that write files.
fn scratch(fixture: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = fixtures().join(fixture);
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let to = dir.path().join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    dir
}

fn goldgate_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
    // A run of this crate's tests under nextest or `cargo goldgate test` must not make the
    // fixtures' runs part of it: none of the caller's run settings reach them.
    support::clear_run_settings(&mut cmd);
    cmd.args(args).current_dir(dir).env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn suites_pipelines_aggregates_and_the_comparison_table() {
    let (out, r) = report(&fixtures().join("suites"), &["--test-threads", "1"]);
    let verdicts = test_lines(&stdout(&out));
    let expected: Vec<(String, String)> = [
        ("invoices/acme::all_in_one", "FAILED"),
        ("invoices/acme::guided", "ok"),
        ("invoices/beta::all_in_one", "FAILED"),
        ("invoices/beta::guided", "ok"),
        ("invoices::aggregate::all_in_one", "FAILED"),
        ("invoices::aggregate::guided", "ok"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(verdicts, expected);
    let text = stdout(&out);
    // Defaults from the suite: the critical field and its threshold apply to acme, located in the suite.
    assert!(
        failure_block(&text, "invoices/acme::all_in_one")
            .ends_with("at cases/invoices/suite.yaml:4 (thresholds.min_exact_critical)"),
        "{text}"
    );
    assert!(
        failure_block(&text, "invoices/acme::all_in_one")
            .starts_with("case failed: min_exact_critical failed: 0.0000 < 1"),
        "{text}"
    );
    assert!(failure_block(&text, "invoices::aggregate::all_in_one")
        .starts_with("aggregate failed over 2 case tests (0 passed): min_anls failed: 0.8875 < 0.9; min_pass_rate failed: 0.0000 < 1"));
    // No prediction gives a confidence: Brier and ECE are not drawn, and that is said once.
    assert!(text.contains("pipeline    cases       EM     ANLS  crit.EM   c.ANLS   p50 ms   p95 ms   cost/case   pass\n"), "{text}");
    assert!(text.contains("guided          2   1.0000   1.0000   1.0000   1.0000     1000     1180   $0.000925   100%\n"), "{text}");
    assert!(text.contains("not measured: Brier, ECE (no prediction gives a confidence); gate, score (no case has rubrics)"), "{text}");

    let acme = case(&r, "invoices/acme::guided");
    assert_eq!(acme["pipeline"], "guided");
    // 1000 input tokens at $0.30/M + 200 output tokens at $2.50/M.
    assert!(close(
        &acme["metrics"]["cost_usd"],
        1000.0 / 1e6 * 0.30 + 200.0 / 1e6 * 2.50
    ));
    assert!(close(&acme["metrics"]["latency_ms"], 800.0));
    let rows = r["pipelines"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let guided = rows.iter().find(|p| p["pipeline"] == "guided").unwrap();
    assert!(close(&guided["latency_p50_ms"], 1000.0));
    assert!(close(&guided["latency_p95_ms"], 800.0 + 0.95 * 400.0));
    assert!(close(&guided["pass_rate"], 1.0));
    let agg = r["aggregates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "invoices::aggregate::all_in_one")
        .unwrap();
    assert_eq!(agg["passed"], false);
    assert!(close(&agg["metrics"]["anls"], (0.875 + 0.9) / 2.0));
}

#[test]
fn the_baseline_flow() {
    let dir = scratch("baseline");
    let base = dir.path().join("cases/baseline.json");

    // Declared but missing: refused, with the command that creates it.
    let out = goldgate_env(dir.path(), &["test", "cases"], &[]);
    assert_eq!(out.status.code(), Some(101));
    assert!(
        stdout(&out)
            .contains("does not exist\ncreate it with: GOLDGATE_UPDATE=always goldgate test cases"),
        "{}",
        stdout(&out)
    );
    assert!(!base.exists());

    // A bad GOLDGATE_UPDATE is refused, naming the allowed values; nothing is written.
    let out = goldgate_env(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "yes")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("GOLDGATE_UPDATE=`yes` is not one of `always`, `no`"));
    assert!(!base.exists());

    // Recording.
    let out = goldgate_env(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let written = std::fs::read_to_string(&base).unwrap();
    let json: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(json["cases"]["acme"]["anls"], 1.0);
    // Each field's EM and ANLS too.
    assert_eq!(
        json["cases"]["acme"]["fields"],
        serde_json::json!({"invoice_number": {"anls": 1.0, "em": 1.0}, "supplier": {"anls": 1.0, "em": 1.0}})
    );
    assert_eq!(
        json["cases"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["acme", "beta"]
    );
    assert_eq!(
        goldgate_env(dir.path(), &["test", "cases"], &[])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        goldgate_env(dir.path(), &["test", "cases"], &[("GOLDGATE_UPDATE", "no")])
            .status
            .code(),
        Some(0)
    );

    // A regression fails its test alone and ends with the command that accepts it.
    std::fs::write(
        dir.path().join("cases/outputs/acme.json"),
        r#"{"invoice_number": "0173", "supplier": "ACME Corp"}"#,
    )
    .unwrap();
    let out = goldgate_env(dir.path(), &["test", "cases"], &[]);
    assert_eq!(out.status.code(), Some(101));
    let text = stdout(&out);
    assert_eq!(
        test_lines(&text),
        [
            ("acme".to_owned(), "FAILED".to_owned()),
            ("beta".to_owned(), "ok".to_owned())
        ]
    );
    let block = failure_block(&text, "acme");
    assert!(block.contains("regression against the baseline"), "{block}");
    // supplier: `acme corp` against `acme corporation` is 1 − 7/16; the mean of two fields.
    assert!(block.contains("anls 1.0000 -> 0.7812"), "{block}");
    // The field that dropped, named, with its gold, prediction and diff.
    assert!(
        block.contains(
            "field `supplier` ANLS 1.0000 -> 0.5625, field `supplier` EM 1.0000 -> 0.0000"
        ),
        "{block}"
    );
    assert!(
        block.contains(
            "field `supplier`\n  gold        ACME Corporation\n  prediction  ACME Corp\n"
        ),
        "{block}"
    );
    assert!(
        block.contains("diff        ACME Corp[-oration-]"),
        "{block}"
    );
    assert!(
        block.ends_with(
            "accept the new numbers with: GOLDGATE_UPDATE=always goldgate test cases --exact acme"
        ),
        "{block}"
    );
    assert_eq!(
        std::fs::read_to_string(&base).unwrap(),
        written,
        "nothing is written without GOLDGATE_UPDATE"
    );

    // Accepting, with the command the message gave: only that entry moves.
    let out = goldgate_env(
        dir.path(),
        &["test", "cases", "--exact", "acme"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    assert!(close(
        &json["cases"]["acme"]["anls"],
        (1.0 + (1.0 - 7.0 / 16.0)) / 2.0
    ));
    assert_eq!(json["cases"]["beta"]["anls"], 1.0);
    assert_eq!(
        goldgate_env(dir.path(), &["test", "cases"], &[])
            .status
            .code(),
        Some(0)
    );

    // Entries are named from the suite that declares the baseline: a run from inside finds them.
    let out = goldgate_env(&dir.path().join("cases"), &["test", "."], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        !stdout(&out).contains("new, not in the baseline"),
        "{}",
        stdout(&out)
    );

    // An improvement beyond the tolerance is reported.
    std::fs::write(
        dir.path().join("cases/outputs/acme.json"),
        r#"{"invoice_number": "0173", "supplier": "ACME Corporation"}"#,
    )
    .unwrap();
    let out = goldgate_env(dir.path(), &["test", "cases"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out)
            .contains("improved beyond the baseline's tolerance, acme: anls 0.7812 -> 1.0000"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn run_commands_crash_hang_and_succeed() {
    let dir = scratch("run");
    let out = goldgate_env(dir.path(), &["test", "cases", "--test-threads", "4"], &[]);
    let text = stdout(&out);
    assert_eq!(
        test_lines(&text),
        expected(&[
            ("crash", "FAILED"),
            ("garbled", "FAILED"),
            ("good", "ok"),
            ("hang", "FAILED"),
            ("linger", "ok"),
            ("silent", "FAILED"),
            ("text", "ok")
        ])
    );
    let garbled = failure_block(&text, "garbled");
    assert!(
        garbled.contains(
            "the output of `sh extract.sh garbled scans/garbled.pdf` is not a JSON field document"
        ),
        "{garbled}"
    );
    assert!(
        garbled.contains("  model returned a truncated answer"),
        "{garbled}"
    );
    let silent = failure_block(&text, "silent");
    assert!(silent.starts_with("error: cases/suite.yaml:3:3: run.command: `sh extract.sh silent scans/silent.pdf` printed nothing, as applied to `cases/silent.yaml`\nend of its standard error:\n  no text layer on page 1"), "{silent}");
    let crash = failure_block(&text, "crash");
    assert!(
        crash.starts_with(
            "error: cases/suite.yaml:3:3: run.command: `sh extract.sh crash scans/crash.pdf` failed (exit status: 3), as applied to `cases/crash.yaml`\n"
        ),
        "{crash}"
    );
    assert!(crash.contains("end of its standard error:\n  loading model weights\n  Traceback: ValueError: page 2 is empty"), "{crash}");
    let hang = failure_block(&text, "hang");
    assert!(hang.contains("`sh extract.sh hang scans/hang.pdf` did not finish within 1 s and was killed, with its children"), "{hang}");
    // The hung command's own child was killed with it.
    let pid = std::fs::read_to_string(dir.path().join("cases/hang-child.pid")).unwrap();
    // Gone, or a zombie waiting to be reaped: either way no longer running.
    let state = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    let running = state
        .rsplit(") ")
        .next()
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.is_empty());
    assert!(!running, "the child {pid} survived the timeout: {state}");
}

#[test]
fn lint_lists_every_mistake_and_runs_nothing() {
    let out = goldgate(&fixtures().join("lint"), &["lint", "cases"]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            "error: cases/three-mistakes.yaml:5:12: critical[0]: critical field `b` is not in `gold` (did you mean `a`?)",
            "error: cases/three-mistakes.yaml:12:14: rubrics[1].penalty: penalty 3 is outside (0, 1] (use a value such as 0.1, the default)",
            "error: cases/three-mistakes.yaml:15:13: thresholds.min_anls: `min_anls` is 5, outside [0, 1] (metrics and the score lie between 0 and 1)",
            "error: cases/unknown-key.yaml:4:5: rubrics[0].must-right: unknown key `must-right` (did you mean `must_right`?)",
            "lint: 2 case files, 4 errors",
        ]
    );
    // The verdicts fixture's one mistake `lint` can see is the misspelt field `test` fails on.
    let verdicts = goldgate(&fixtures().join("verdicts"), &["lint", "cases"]);
    assert_eq!(verdicts.status.code(), Some(1), "{}", stdout(&verdicts));
    assert_eq!(
        stdout(&verdicts),
        "error: cases/typo/field.yaml:6:5: must_right `the total is not the pre-tax amount`: totl: the field is in neither gold nor the prediction (did you mean `total`?)\nlint: 16 case files, 1 error\n"
    );
    let clean = goldgate(&fixtures().join("typed"), &["lint", "cases"]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
}

#[test]
fn a_suite_placeholder_goldgate_does_not_know_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("cases")).unwrap();
    std::fs::write(
        dir.path().join("cases/suite.yaml"),
        "run:\n  command: [sh, x.sh, \"{doc}\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("cases/a.yaml"),
        "rubrics:\n  - must_right: r\n    contains: x\n",
    )
    .unwrap();
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("error: cases/suite.yaml:2:3: `{doc}` has the unknown placeholder `{doc}` (the placeholders are {case}, {pipeline} and {document})"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn the_anls_star_profile_shows_its_own_normalized_forms_and_present_false_holds_on_any_absent_name()
{
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("cases")).unwrap();
    std::fs::write(
        dir.path().join("cases/star.yaml"),
        "profile: anls_star\ngold: { b: Crème }\nprediction: { b: creme }\nthresholds: { min_exact_match: 1.0 }\n",
    )
    .unwrap();
    // `z` is one edit from `x`, but `present: false` asks for absence, which holds (SPEC §5).
    std::fs::write(
        dir.path().join("cases/absent.yaml"),
        "gold: { x: ~ }\nprediction: { x: null }\nrubrics:\n  - { must_right: no z, field: z, present: false }\n",
    )
    .unwrap();
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(
        test_lines(&text),
        expected(&[("absent", "ok"), ("star", "FAILED")])
    );
    assert!(
        failure_block(&text, "star").contains("normalized  gold `crème`, prediction `creme`"),
        "{text}"
    );
}

/// The variant marked "(closest)" is the one evaluation scored, not one the message recomputed.
#[test]
fn the_closest_variant_is_the_one_the_score_came_from() {
    let out = goldgate(&fixtures().join("closest"), &["test", "cases"]);
    let text = stdout(&out);
    let code = failure_block(&text, "code");
    assert!(
        code.contains("  gold        xy\n              ab   (closest)\n"),
        "{code}"
    );
    assert!(code.contains("ANLS 0.5000"), "{code}");
    let dream = failure_block(&text, "dream");
    assert!(
        dream.contains("  gold        xy\n              ab   (closest)\n"),
        "{dream}"
    );
    assert!(dream.contains("a[-b-]{+8+}"), "{dream}");
    let nested = failure_block(&text, "nested");
    assert!(
        nested.contains("  closest     {\"name\":\"ACME\",\"city\":\"Lyon\"}\n"),
        "{nested}"
    );
    assert!(
        nested.contains("    -   \"city\": \"Lyon\"\n    +   \"city\": \"Lyom\"\n"),
        "{nested}"
    );
    let amount = failure_block(&text, "amount");
    assert!(
        amount.contains("  gold        1234.5\n              99   (closest)\n"),
        "{amount}"
    );
}

/// A `document:` that does not exist fails the case in `test` (the command is not run on it)
/// and is an error in `lint`, both at the line of `document:`.
#[test]
fn a_missing_document_fails_its_case_in_test_and_lint() {
    let dir = fixtures().join("document");
    let out = goldgate(&dir, &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let block = failure_block(&stdout(&out), "missing");
    assert!(
        block.starts_with(
            "error: cases/missing.yaml:1:11: document: the document `cases/scans/nope.pdf` does not exist"
        ),
        "{block}"
    );
    let lint = goldgate(&dir, &["lint", "cases"]);
    assert_eq!(lint.status.code(), Some(1));
    assert!(
        stdout(&lint).starts_with(
            "error: cases/missing.yaml:1:11: document: the document `cases/scans/nope.pdf` does not exist"
        ),
        "{}",
        stdout(&lint)
    );
}

/// `goldgate report` over reports that disagree on a test keeps the last file's record and says
/// so; the same record twice is no conflict. Bad files are errors that name them.
#[test]
fn report_merges_names_conflicts_and_refuses_what_is_not_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let case = |passed: bool| {
        serde_json::json!({"id": "a", "pipeline": null, "file": "a.yaml", "passed": passed, "ignored": false,
            "status": if passed { "passed" } else { "failed" },
            "metrics": {"exact_match": if passed { 1.0 } else { 0.0 }}, "fields": []})
    };
    let write = |name: &str, passed: bool| {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            serde_json::json!({"goldgate": "0.1.0", "record_version": 1, "cases": [case(passed)], "aggregates": []}).to_string(),
        )
        .unwrap();
        path.display().to_string()
    };
    let (one, two, same) = (
        write("one.json", true),
        write("two.json", false),
        write("same.json", true),
    );
    let out = goldgate(dir.path(), &["report", &one, &same]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("note:"), "{}", stdout(&out));
    let out = goldgate(dir.path(), &["report", &one, &two, "-o", "merged.json"]);
    assert!(
        stdout(&out).contains(
            "note: a test is in more than one report with different results; the last file's kept: a\n"
        ),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).starts_with("goldgate: 1 cases, 0 passed, 1 failed"),
        "{}",
        stdout(&out)
    );
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("merged.json")).unwrap())
            .unwrap();
    assert_eq!(merged["cases"][0]["passed"], false);
    std::fs::write(dir.path().join("list.json"), "[1, 2]").unwrap();
    std::fs::write(dir.path().join("two.json"), "[2]").unwrap();
    // A later version's report, with what this goldgate does not know: its version is read.
    std::fs::write(
        dir.path().join("later.json"),
        r#"{"goldgate": "9.0.0", "record_version": 2, "cases": [{"id": "a", "more": [1]}], "kept_as": {}}"#,
    )
    .unwrap();
    for (file, says) in [
        ("nowhere.json", "cannot read the report `nowhere.json`"),
        ("list.json", "`list.json` is not a goldgate report"),
        (
            "later.json",
            "`later.json` holds records of version 2, and this goldgate reads version 1",
        ),
        // A list is no report, whatever it holds.
        ("two.json", "`two.json` is not a goldgate report"),
    ] {
        let out = goldgate(dir.path(), &["report", file]);
        assert_eq!(out.status.code(), Some(1), "{file}");
        assert!(
            stderr(&out).starts_with(&format!("error: {says}")),
            "{}",
            stderr(&out)
        );
    }
}

/// Live commands show their progress on a terminal only: never in a pipe (CI logs, nextest).
#[test]
fn progress_of_live_commands_only_on_a_terminal() {
    let dir = fixtures().join("run");
    let piped = goldgate(&dir, &["test", "cases", "--exact", "good"]);
    assert!(
        !stderr(&piped).contains("run commands"),
        "{}",
        stderr(&piped)
    );
    // `script` gives the command a terminal (util-linux, on every Linux).
    let Ok(out) = Command::new("script")
        .args(["-qec"])
        .arg(format!(
            "{} test cases --exact good",
            env!("CARGO_BIN_EXE_goldgate")
        ))
        .arg("/dev/null")
        .current_dir(&dir)
        .env_remove("NEXTEST_RUN_ID")
        .output()
    else {
        panic!("`script` (util-linux) gives this test its terminal: install it");
    };
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("run commands 1/1"), "{shown}");
}

/// A command whose grandchild escapes its process group does not hang the run, and a command
/// that floods its output fails its case instead of exhausting memory.
#[test]
fn escaping_grandchildren_and_floods_end_cleanly() {
    let dir = fixtures().join("floods");
    let out = goldgate(&dir, &["test", "cases"]);
    // goldgate ended while the grandchild still held the pipe: it did not wait for it.
    #[cfg(target_os = "linux")]
    {
        let alive: Vec<u32> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == b"31.7"))
            })
            .collect();
        assert!(
            !alive.is_empty(),
            "the grandchild was gone: goldgate waited for it"
        );
        for pid in alive {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    }
    let text = stdout(&out);
    assert_eq!(
        test_lines(&text),
        expected(&[
            ("escape/held", "ok"),
            ("flood/endless", "FAILED"),
            ("noise/loud", "FAILED")
        ])
    );
    // Stopped at the cap, not at the timeout (600 s), whichever stream floods.
    for (name, stream) in [
        ("flood/endless", "standard output"),
        ("noise/loud", "standard error"),
    ] {
        let block = failure_block(&text, name);
        assert!(
            block.contains(&format!(
                "printed more than 64 MiB on its {stream}; goldgate keeps no more, and stopped it"
            )),
            "{block}"
        );
    }
}

/// `--exact` finds a test by its whole name, `::` in a file name included; `present: true` needs
/// a value that some leaf holds.
#[test]
fn exact_names_and_what_present_means() {
    let dir = fixtures().join("edges");
    let out = goldgate(&dir, &["test", "cases", "--exact", "odd::name"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(test_lines(&stdout(&out)), expected(&[("odd::name", "ok")]));
    let missing = goldgate(&dir, &["test", "cases", "--exact", "odd"]);
    assert_eq!(missing.status.code(), Some(101));
    assert!(
        stderr(&missing).starts_with("error: no test is named `odd`"),
        "{}",
        stderr(&missing)
    );
    let out = goldgate(&dir, &["test", "cases", "--exact", "present"]);
    let block = failure_block(&stdout(&out), "present");
    for (label, held) in [("a", false), ("b", false), ("c", false), ("d", true)] {
        assert_eq!(
            block.contains(&format!("easy_wrong `{label} is there` failed")),
            !held,
            "{block}"
        );
    }
    assert!(block.contains("(score 0.7000)"), "{block}");
}

/// Guards hold inside `not:` and `any:`: a check that cannot be made fails its rubric.
#[test]
fn a_check_that_cannot_be_made_fails_even_when_negated() {
    let out = goldgate(
        &fixtures().join("edges"),
        &["test", "cases", "--exact", "guards"],
    );
    let block = failure_block(&stdout(&out), "guards");
    for (label, why) in [
        (
            "not a typo",
            "totl: the field is in neither gold nor the prediction (did you mean `total`?)",
        ),
        ("not on nothing", "items[*].qty: `[*]` reached no element"),
        (
            "any with a typo",
            "totl: the field is in neither gold nor the prediction",
        ),
        (
            "not an unreadable number",
            "note: `about 99` could not be read as a number",
        ),
    ] {
        let line = block
            .lines()
            .find(|l| l.starts_with(&format!("easy_wrong `{label}` failed")))
            .unwrap_or_else(|| panic!("`{label}` held:\n{block}"));
        assert!(
            line.contains("could not be checked: ") && line.contains(why),
            "{line}"
        );
    }
    assert!(
        !block.contains("`a negation that can be made` failed"),
        "{block}"
    );
    assert!(block.contains("(score 0.6000)"), "{block}");
}

/// A placeholder inside a `sh -c` script is refused at the suite file, so a case file named
/// `$(touch pwned).yaml` runs nothing.
#[test]
fn placeholders_are_never_pasted_into_a_shell_script() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    std::fs::create_dir(&cases).unwrap();
    for entry in std::fs::read_dir(fixtures().join("injection/cases")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), cases.join(entry.file_name())).unwrap();
    }
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101));
    let block = failure_block(&stdout(&out), "$(touch pwned)");
    assert!(
        block.starts_with("error: cases/suite.yaml:3:3: run.command[2]: a placeholder inside a shell script would be pasted in unquoted"),
        "{block}"
    );
    assert!(!dir.path().join("pwned").exists() && !cases.join("pwned").exists());
    // Behind a wrapper, or in another interpreter's script, a placeholder is refused as well.
    for (command, at) in [
        (r#"[env, sh, -c, "echo {case}"]"#, 3),
        (r#"[nice, -n, "5", bash, -ec, "echo {case}"]"#, 5),
        (
            r#"[timeout, "5", /usr/bin/env, dash, -c, "echo {case}"]"#,
            5,
        ),
        (r#"[python3, -c, "import os; os.system('echo {case}')"]"#, 2),
        (r#"[perl, -e, "system('echo {document}')"]"#, 2),
    ] {
        std::fs::write(
            cases.join("suite.yaml"),
            format!("run:\n  command: {command}\n"),
        )
        .unwrap();
        let out = goldgate(dir.path(), &["test", "cases"]);
        let block = failure_block(&stdout(&out), "$(touch pwned)");
        assert!(
            block.starts_with(&format!("error: cases/suite.yaml:2:3: run.command[{at}]: a placeholder inside a shell script")),
            "{command}: {block}"
        );
        assert!(!dir.path().join("pwned").exists() && !cases.join("pwned").exists());
    }
}

/// Value objects with metadata (SPEC §3.1): the value is scored, the confidence calibrated, the
/// rest kept in the report; a gold mapping with `value` compares the object whole; envelope
/// words in a document without `fields` are an error that says so.
#[test]
fn value_objects_and_envelopes_that_lost_their_fields() {
    let dir = fixtures().join("values");
    let (out, r) = report(&dir, &[]);
    assert_eq!(
        test_lines(&stdout(&out)),
        expected(&[
            ("flat-envelope", "FAILED"),
            ("identifier", "FAILED"),
            ("metadata", "ok"),
            ("metadata-json", "ok"),
            ("misspelt-fields", "FAILED"),
            ("nested-rules", "ok"),
            ("nested-rules-miss", "FAILED"),
            ("string-confidence", "FAILED"),
            ("transposed-fields", "FAILED"),
            ("whole", "ok")
        ])
    );
    assert_eq!(
        failure_block(&stdout(&out), "string-confidence")
            .lines()
            .next(),
        Some(
            "error: cases/outputs/string-confidence.json:1:41: fields.number.confidence: confidence must be a number, found the string \"0.9\" (write it without quotes: `\"confidence\": 0.9`)"
        )
    );
    assert_eq!(
        failure_block(&stdout(&out), "transposed-fields")
            .lines()
            .next(),
        Some(
            "error: cases/outputs/transposed.json:1:2: feilds: `feilds` at the top of a prediction: did you mean `fields`? (an envelope holds its predicted fields under `fields:`)"
        )
    );
    let field = &case(&r, "metadata")["fields"][0];
    assert_eq!(field["prediction"], "FA-1");
    assert_eq!(field["confidence"], 0.9);
    assert_eq!(
        field["metadata"],
        serde_json::json!({"page": "1", "bbox": ["10", "20", "30", "40"], "source": "ocr"})
    );
    // From a JSON file, metadata keeps its JSON types.
    assert_eq!(
        case(&r, "metadata-json")["fields"][0]["metadata"],
        serde_json::json!({"page": 1, "bbox": [10, 20.5, 30, 40], "source": "ocr", "checked": true})
    );
    // Rules on paths inside line items: amounts as numbers, references as identifiers.
    assert_eq!(case(&r, "nested-rules")["fields"][0]["em"], 1.0);
    let miss = failure_block(&stdout(&out), "nested-rules-miss");
    assert!(
        miss.contains("note        compared inside: line_items[*].amount as numbers"),
        "{miss}"
    );
    // The diff and the items are of the compared forms: the difference that counted.
    assert!(miss.contains("diff as compared"), "{miss}");
    assert!(miss.contains("[1] 1234.5 "), "{miss}");
    assert!(miss.contains("[0] 10 "), "{miss}");
    assert!(close(
        &case(&r, "nested-rules-miss")["fields"][0]["anls"],
        0.5
    ));
    let whole = &case(&r, "whole")["fields"][0];
    assert_eq!(
        whole["prediction"],
        serde_json::json!({"value": "10.00", "unit": "EUR"})
    );
    assert_eq!(whole["metadata"], serde_json::json!({}));
    let text = stdout(&out);
    assert!(
        failure_block(&text, "flat-envelope").starts_with(
            "error: cases/flat-envelope.yaml:2:41: prediction.latency_ms: `latency_ms` belongs to an envelope, but this document has no `fields`"
        ),
        "{text}"
    );
    assert!(
        failure_block(&text, "misspelt-fields")
            .contains("`field` at the top of a prediction: did you mean `fields`?"),
        "{text}"
    );
}

/// `compare: identifier` ignores case, whitespace and `-` `.` `/`, and says so when it differs.
#[test]
fn identifiers_compare_without_case_spaces_or_separators() {
    let (out, r) = report(&fixtures().join("values"), &["--exact", "identifier"]);
    let fields = case(&r, "identifier")["fields"].as_array().unwrap().clone();
    let em: Vec<(String, f64)> = fields
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["em"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        em,
        [
            ("vat".into(), 1.0),
            ("iban".into(), 1.0),
            ("order".into(), 0.0)
        ]
    );
    let block = failure_block(&stdout(&out), "identifier");
    assert!(
        block.contains(
            "note        compared as identifiers: gold `PO2024117`, prediction `PO2024118`"
        ),
        "{block}"
    );
}

/// A suite's rules on a path inside a field and on a field apply to the cases whose gold they
/// reach (and are not an unused rule), its critical threshold to the cases with a critical field;
/// a typed miss says the forms that were compared.
#[test]
fn suite_path_rules_apply_where_they_reach_and_typed_misses_show_the_compared_forms() {
    let out = goldgate(&fixtures().join("suite-paths"), &["test", "cases"]);
    assert_eq!(
        test_lines(&stdout(&out)),
        expected(&[
            ("items", "ok"),
            ("items-without-amounts", "ok"),
            ("total-miss", "FAILED")
        ])
    );
    let block = failure_block(&stdout(&out), "total-miss");
    assert!(
        block.starts_with(
            "case failed: min_exact_match failed: 0.0000 < 1; min_exact_critical failed: 0.0000 < 1"
        ),
        "{block}"
    );
    assert!(
        block.contains("  note        compared as numbers: gold `1234.5`, prediction `1243.5`\n"),
        "{block}"
    );
    let lint = goldgate(&fixtures().join("suite-paths"), &["lint", "cases"]);
    assert_eq!(lint.status.code(), Some(0), "{}", stdout(&lint));
}

/// A model the suite's `pricing` lacks fails its case, naming the closest priced model.
#[test]
fn an_unpriced_model_fails_its_case() {
    let (out, r) = report(&fixtures().join("pricing"), &[]);
    assert_eq!(
        test_lines(&stdout(&out)),
        expected(&[("priced", "ok"), ("unpriced", "FAILED")])
    );
    assert!(close(
        &case(&r, "priced")["metrics"]["cost_usd"],
        0.3 + 0.25
    ));
    let block = failure_block(&stdout(&out), "unpriced");
    assert!(
        block.starts_with("case failed: the prediction's model `gemini-2.5-flash-lite` has no price in the suite's `pricing` at cases/suite.yaml:2:21 (the closest priced one is `gemini-2.5-flash`; add `gemini-2.5-flash-lite` there)"),
        "{block}"
    );
}

/// `lint` finds what `test` finds before scoring (a misspelt rubric field, an unpriced model),
/// and agrees with `test` on skipped cases.
#[test]
fn lint_checks_what_test_checks_before_scoring() {
    let out = goldgate(&fixtures().join("edges"), &["lint", "cases"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "error: cases/guards.yaml:6:5: easy_wrong `not a typo`: totl: the field is in neither gold nor the prediction (did you mean `total`?)\n\
         error: cases/guards.yaml:10:5: easy_wrong `any with a typo`: totl: the field is in neither gold nor the prediction (did you mean `total`?)\n\
         lint: 4 case files, 2 errors\n"
    );
    let out = goldgate(&fixtures().join("pricing"), &["lint", "cases"]);
    assert!(
        stdout(&out).starts_with("error: cases/suite.yaml:2:21: pricing: no price for `gemini-2.5-flash-lite`, the model of the prediction of `cases/unpriced.yaml` (the closest priced one is `gemini-2.5-flash`; add `gemini-2.5-flash-lite` here)\n"),
        "{}",
        stdout(&out)
    );
}

/// A pipeline's missing output is located at the suite's `pipelines`, naming the case; a case's
/// own prediction under pipelines is refused (each would score it alike); a declared baseline that does not exist fails every case in `test` and is one error in `lint`.
#[test]
fn a_missing_pipeline_output_and_baseline_are_located_in_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "pipelines:\n  a: outputs/a/{case}.json\n  b: outputs/b/{case}.json\nbaseline: baseline.json\n",
            ),
            (
                "cases/x.yaml",
                "gold: { total: \"5\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            ("cases/outputs/a/x.json", "{\"total\": \"5\"}"),
            // A case's own prediction under pipelines would be scored alike by each: refused.
            (
                "cases/own/y.yaml",
                "prediction: { total: \"5\" }\ngold: { total: \"5\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    let own = "error: cases/own/y.yaml:1:13: prediction: this case gives its own prediction, but `cases/suite.yaml` declares pipelines (`a`, `b`): each would score this one, and none its own (remove `prediction:` to score each pipeline's output, or move the case to a folder without pipelines)";
    let missing_b = "error: cases/suite.yaml:3:6: pipelines: prediction file `cases/outputs/b/x.json` does not exist, as applied to `cases/x.yaml` (record the pipeline's output there, or fix the path: it is relative to the suite's folder, and `{case}` is the case's path from there)";
    let test = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(
        failure_block(&stdout(&test), "x::b").lines().next(),
        Some(missing_b)
    );
    assert_eq!(
        failure_block(&stdout(&test), "own/y::b").lines().next(),
        Some(own)
    );
    assert!(
        failure_block(&stdout(&test), "x::a").contains(
            "no baseline to compare with: `cases/baseline.json` is missing (the end of the run says how to create it)"
        ),
        "{}",
        stdout(&test)
    );
    let lint = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(
        stdout(&lint),
        format!(
            "{own}\n{missing_b}\nerror: cases/suite.yaml:4:11: baseline: the baseline `cases/baseline.json` does not exist (create it with: GOLDGATE_UPDATE=always goldgate test cases)\nlint: 2 case files, 3 errors\n"
        )
    );
}

/// `correct: anls` with `min_anls: 0` would make every value correct: refused at its line.
#[test]
fn a_field_rule_that_cannot_fail_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[(
            "cases/m.yaml",
            "prediction: { total: \"6\" }\ngold: { total: \"5\" }\nfields: { total: { correct: anls, min_anls: 0 } }\nthresholds: { min_exact_match: 1.0 }\n",
        )],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101));
    assert_eq!(
        failure_block(&stdout(&out), "m").lines().next(),
        Some(
            "error: cases/m.yaml:3:45: fields.total.min_anls: `min_anls` is 0, so every value of this field would count as correct (raise it to the default 0.5 or above, or remove `correct: anls`)"
        )
    );
}

/// `goldgate test | head`: a reader that goes away ends the run as it ends `cat`, by SIGPIPE,
/// with no panic on standard error.
#[test]
fn a_reader_that_goes_away_ends_the_run_quietly() {
    use std::os::unix::process::ExitStatusExt;
    for args in [&["test", "cases"][..], &["lint", "cases"][..]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .env_remove("NEXTEST_RUN_ID")
            .args(args)
            .current_dir(fixtures().join("verdicts"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Closed before the first line is written: every write meets a closed pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.signal(), Some(13), "{args:?}: {:?}", out.status);
    }
}

/// A standard output that cannot be written (a full disk) ends the run with one line and exit
/// code 1, not a panic.
#[test]
fn a_full_disk_on_standard_output_ends_the_run_with_one_line() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full (Linux) is the full disk of this test");
    for args in [
        &["test", "cases"][..],
        &["lint", "cases"][..],
        &["schema"][..],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .env_remove("NEXTEST_RUN_ID")
            .args(args)
            .current_dir(fixtures().join("verdicts"))
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(
                "error: goldgate cannot write to its standard output: No space left on device"
            ),
            "{args:?}: {stderr}"
        );
        assert_eq!(out.status.code(), Some(1), "{args:?}");
    }
}

/// A suite's baseline outside the project is refused before anything is written.
#[test]
fn a_baseline_outside_the_project_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let outside = dir.path().join("elsewhere/deep/x.json");
    write_files(
        &project,
        &[
            (
                "cases/suite.yaml",
                &format!("baseline: {}\n", outside.display()),
            ),
            (
                "cases/x.yaml",
                "prediction: { a: \"1\" }\ngold: { a: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    let out = goldgate_env(
        &project,
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert_eq!(out.status.code(), Some(101));
    let block = failure_block(&stdout(&out), "x");
    assert!(
        block.starts_with(&format!(
            "error: cases/suite.yaml:1:11: baseline: the baseline `{}` is outside the project `{}`",
            outside.display(),
            std::fs::canonicalize(&project).unwrap().display()
        )),
        "{block}"
    );
    assert!(!dir.path().join("elsewhere").exists());
}

/// A new report takes its mode from the umask, as a file the shell creates would.
#[test]
fn a_new_report_honours_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    for (umask, mode) in [("077", 0o600), ("002", 0o664)] {
        let report = dir.path().join(format!("report-{umask}.json"));
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask {umask} && exec \"$0\" test cases --report \"$1\" > /dev/null"
            ))
            .arg(env!("CARGO_BIN_EXE_goldgate"))
            .arg(&report)
            .current_dir(fixtures().join("verdicts"))
            // Under nextest this test's own run id would make the fixture's run a split one,
            // whose report is written by its end step.
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("GOLDGATE_RUN_ID")
            .status()
            .unwrap();
        assert!(status.code().is_some(), "{status:?}");
        let got = std::fs::metadata(&report).unwrap().permissions().mode() & 0o777;
        assert_eq!(got, mode, "umask {umask}: {got:o}");
    }
}

/// A subfolder run by a relative path (`cases/rec/sub`, `./cases/rec/sub`, `.` from inside it)
/// names `{case}` and baseline entries from the suite's folder, as a run of the whole set does.
#[test]
fn a_subfolder_by_any_path_finds_the_same_predictions_and_baseline_entries() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| write_files(root, &[(path, text)]);
    write(
        "cases/rec/suite.yaml",
        "pipelines:\n  alpha: out/alpha/{case}.json\nbaseline: base.json\n",
    );
    write(
        "cases/rec/base.json",
        "{\"goldgate_baseline\": 1, \"cases\": {}}\n",
    );
    write(
        "cases/rec/sub/deep.yaml",
        "gold: { a: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
    );
    write("cases/rec/out/alpha/sub/deep.json", "{\"a\": \"1\"}\n");
    for (cwd, folder) in [
        (root.to_path_buf(), "cases/rec/sub"),
        (root.to_path_buf(), "./cases/rec/sub"),
        (root.join("cases/rec/sub"), "."),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .args(["test", folder])
            .current_dir(&cwd)
            .env("NO_COLOR", "1")
            .env("GOLDGATE_UPDATE", "always")
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("GOLDGATE_RUN_ID")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{folder}: {}", stdout(&out));
        let base: Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("cases/rec/base.json")).unwrap(),
        )
        .unwrap();
        let keys: Vec<&String> = base["cases"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["sub/deep::alpha"], "{folder}");
    }
}

/// Entries of cases that no longer exist are listed after a full run, dropped by a full blessing
/// run, and kept by a filtered one.
#[test]
fn entries_of_vanished_cases_are_listed_and_dropped_by_a_full_blessing() {
    let dir = scratch("baseline");
    let base = dir.path().join("cases/baseline.json");
    let out = goldgate_env(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let mut json: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    json["cases"]["ghost"] = serde_json::json!({"anls": 1.0});
    std::fs::write(&base, json.to_string()).unwrap();

    let out = goldgate_env(dir.path(), &["test", "cases"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("baseline: cases/baseline.json: 1 entries of tests that no longer exist: ghost (a full run with GOLDGATE_UPDATE=always drops them)"),
        "{}",
        stdout(&out)
    );
    // A filtered run neither lists nor drops it: it does not see every case.
    let out = goldgate_env(
        dir.path(),
        &["test", "cases", "--exact", "acme"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(
        !stdout(&out).contains("no longer exist"),
        "{}",
        stdout(&out)
    );
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    assert!(kept["cases"].get("ghost").is_some());

    let out = goldgate_env(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert!(
        stdout(&out).contains(
            "baseline: cases/baseline.json: dropped 1 entries of tests that no longer exist: ghost"
        ),
        "{}",
        stdout(&out)
    );
    let dropped: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    let keys: Vec<&String> = dropped["cases"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["acme", "beta"]);
}

/// A mixed gold set (SPEC §7): a suite's `fields` rules and `critical` names apply where a case's
/// gold has the field, merged rule by rule with a case's own; a rule no case uses is an error on
/// the suite file; an error a suite rule causes names the suite's line and the case.
#[test]
fn suite_rules_fit_a_mixed_gold_set() {
    let (out, r) = report(&fixtures().join("mixed"), &[]);
    assert_eq!(
        test_lines(&stdout(&out)),
        expected(&[
            ("invoice", "ok"),
            ("own-rule", "ok"),
            ("receipt", "ok"),
            ("typo/one", "ok"),
            ("typo/suite.yaml", "FAILED"),
            ("unreadable/pending", "FAILED")
        ])
    );
    let critical = |id: &str| -> Vec<(String, bool)> {
        case(&r, id)["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_owned(),
                    f["critical"] == true,
                )
            })
            .collect()
    };
    assert_eq!(critical("receipt"), [("total".to_string(), true)]);
    assert_eq!(
        critical("invoice"),
        [
            ("invoice_number".to_string(), true),
            ("total".to_string(), true),
            ("issue_date".to_string(), false)
        ]
    );
    // `own-rule` has its own `issue_date` rule; the suite's `total` rule still reads `99,00`.
    assert_eq!(case(&r, "own-rule")["metrics"]["exact_match"], 1.0);
    let text = stdout(&out);
    assert!(
        failure_block(&text, "typo/suite.yaml").starts_with(
            "error: cases/typo/suite.yaml:4:11: defaults.fields.totl: no case below this suite has `totl` in its gold"
        ),
        "{text}"
    );
    assert!(
        failure_block(&text, "unreadable/pending").starts_with(
            "error: cases/unreadable/suite.yaml:3:17: gold.amount: gold `n/a` cannot be read as a number, as `fields.amount` requires, as applied to `cases/unreadable/pending.yaml`"
        ),
        "{text}"
    );
}

/// A subfolder run keeps every suite up to the project root, though a folder between has none.
#[test]
fn suites_above_a_subfolder_apply_up_to_the_project_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| write_files(root, &[(path, text)]);
    write("Cargo.toml", "[package]\nname = \"x\"\n");
    write(
        "cases/suite.yaml",
        "defaults:\n  thresholds: { min_exact_match: 1.0 }\n",
    );
    write(
        "cases/invoices/fr/a.yaml",
        "prediction: { n: \"1\" }\ngold: { n: \"2\" }\n",
    );
    for (cwd, folder) in [
        (root.to_path_buf(), "cases"),
        (root.to_path_buf(), "cases/invoices/fr"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .args(["test", folder])
            .current_dir(&cwd)
            .env("NO_COLOR", "1")
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("GOLDGATE_RUN_ID")
            .output()
            .unwrap();
        // The root suite's threshold is what fails the case, from either folder.
        assert_eq!(out.status.code(), Some(101), "{folder}: {}", stdout(&out));
        assert!(
            stdout(&out).contains("threshold min_exact_match failed: 0.0000 < 1"),
            "{folder}: {}",
            stdout(&out)
        );
    }
}

/// Inputs beyond goldgate's budgets fail their case alone, located where the input is and
/// saying the bound; nothing blocks on a FIFO; long lists of failures are summarised.
#[test]
fn inputs_over_a_budget_fail_their_case_located_and_messages_stay_short() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let items = |n: usize| {
        let list: Vec<String> = (0..n)
            .map(|i| format!("{{\"sku\": \"S{i}\", \"qty\": \"1\"}}"))
            .collect();
        format!("[{}]", list.join(", "))
    };
    let long_text = "x".repeat(100_001);
    let skus: Vec<String> = (0..100).map(|i| format!("{{\"sku\": \"B{i}\"}}")).collect();
    write_files(
        root,
        &[
            ("Cargo.toml", "[package]\nname = \"p\"\n"),
            (
                "cases/long_list.yaml",
                &format!(
                    "prediction: p.json\ngold:\n  line_items: {}\nthresholds:\n  min_anls: 0.9\n",
                    items(2_001)
                ),
            ),
            (
                "cases/long_text.yaml",
                "prediction: long_text.json\ngold:\n  notes: short\nthresholds:\n  min_anls: 0.9\n",
            ),
            (
                "cases/long_text.json",
                &format!("{{\"fields\": {{\"notes\": \"{long_text}\"}}}}"),
            ),
            (
                "cases/fifo.yaml",
                "prediction: pipe.json\ngold:\n  total: 1\nthresholds:\n  min_anls: 0.9\n",
            ),
            (
                "cases/many.yaml",
                "prediction: many.json\ngold:\n  total: 1\nrubrics:\n  - must_right: every sku is an A\n    field: line_items[*].sku\n    matches: '^A'\n",
            ),
            (
                "cases/many.json",
                &format!(
                    "{{\"fields\": {{\"total\": \"1\", \"line_items\": [{}]}}}}",
                    skus.join(", ")
                ),
            ),
            ("cases/p.json", "{\"fields\": {\"line_items\": []}}"),
        ],
    );
    let fifo = root.join("cases/pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let out = goldgate(root, &["test", "cases"]);
    let text = stdout(&out);
    let mut want = vec![
        ("fifo", "FAILED"),
        ("long_list", "FAILED"),
        ("long_text", "FAILED"),
        ("many", "FAILED"),
    ];
    if !made.is_ok_and(|s| s.success()) {
        want.remove(0);
    }
    assert_eq!(test_lines(&text), expected(&want), "{text}");
    let list = failure_block(&text, "long_list");
    assert!(
        list.contains("cases/long_list.yaml:3:15: gold.line_items: `line_items` is a list of 2001 items, more than goldgate matches (2000)"),
        "{list}"
    );
    let long = failure_block(&text, "long_text");
    assert!(
        long.contains("cases/long_text.json:1:13: fields.notes: `notes` is a text of 100001 characters, more than goldgate compares (100000)"),
        "{long}"
    );
    if want.len() == 4 {
        let fifo = failure_block(&text, "fifo");
        assert!(
            fifo.contains("pipe.json: this is not a regular file"),
            "{fifo}"
        );
    }
    // 100 failing elements: the first 20 and a count, not a hundred lines.
    let many = failure_block(&text, "many");
    assert!(
        many.contains("100 of 100 elements fail: line_items[0].sku: "),
        "{many}"
    );
    assert!(many.contains("; … and 80 more"), "{many}");
    assert!(!many.contains("line_items[20].sku"), "{many}");
}

/// Under `compare: number` and `number:`, integers beyond 2^53 compare digit for digit, and `-0`
/// is 0.
#[test]
fn long_integers_compare_exactly_and_minus_zero_is_zero() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            ("Cargo.toml", "[package]\nname = \"p\"\n"),
            (
                "cases/big.yaml",
                "prediction: big.json\ngold:\n  account: 9007199254740993\nfields:\n  account: { compare: number }\nthresholds:\n  min_exact_match: 1\n",
            ),
            (
                "cases/big.json",
                "{\"fields\": {\"account\": 9007199254740992}}",
            ),
            (
                "cases/big_rubric.yaml",
                "prediction: big.json\ngold:\n  account: 9007199254740992\nrubrics:\n  - must_right: the account\n    field: account\n    number: 9007199254740993\n",
            ),
            (
                "cases/zero.yaml",
                "prediction: zero.json\ngold:\n  balance: 0\nfields:\n  balance: { compare: number }\nrubrics:\n  - must_right: nothing is due\n    field: balance\n    number: 0\nthresholds:\n  min_exact_match: 1\n",
            ),
            ("cases/zero.json", "{\"fields\": {\"balance\": \"-0\"}}"),
        ],
    );
    let out = goldgate(root, &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(
        test_lines(&text),
        expected(&[("big", "FAILED"), ("big_rubric", "FAILED"), ("zero", "ok")]),
        "{text}"
    );
    let rubric = failure_block(&text, "big_rubric");
    assert!(
        rubric.contains("`9007199254740992` reads as 9007199254740992, not 9007199254740993"),
        "{rubric}"
    );
}

/// A case in a project reads no prediction and no rubric set from outside it, by path or by a
/// link; a rubrics folder named on the command line is read wherever it is.
#[test]
fn nothing_is_read_from_outside_the_project() {
    let outside = tempfile::tempdir().unwrap();
    write_files(
        outside.path(),
        &[
            ("secret.json", "{\"fields\": {\"total\": \"s3cr3t\"}}"),
            (
                "sets/secret.yaml",
                "rubrics:\n  - must_right: s3cr3t\n    contains: [absent]\n",
            ),
        ],
    );
    let secret = outside.path().join("secret.json");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            ("Cargo.toml", "[package]\nname = \"p\"\n"),
            (
                "cases/absolute.yaml",
                &format!(
                    "prediction: {}\ngold:\n  total: 1\nthresholds:\n  min_anls: 0.9\n",
                    secret.display()
                ),
            ),
            (
                "cases/linked.yaml",
                "prediction: link.json\ngold:\n  total: 1\nthresholds:\n  min_anls: 0.9\n",
            ),
            (
                "cases/included.yaml",
                &format!(
                    "prediction_text: total 1\nrubrics:\n  - include: {}\n",
                    outside.path().join("sets/secret").display()
                ),
            ),
        ],
    );
    std::os::unix::fs::symlink(&secret, root.join("cases/link.json")).unwrap();
    // Case files behind a link that leads out of the project are not read either.
    write_files(
        outside.path(),
        &[(
            "more/leak.yaml",
            "prediction: {total: s3cr3t}\ngold: {total: s3cr3t}\nthresholds: {min_anls: 1}\n",
        )],
    );
    std::os::unix::fs::symlink(outside.path().join("more"), root.join("cases/more")).unwrap();
    let out = goldgate(root, &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(
        test_lines(&text),
        expected(&[
            ("absolute", "FAILED"),
            ("included", "FAILED"),
            ("linked", "FAILED"),
            ("more/leak", "FAILED")
        ]),
        "{text}"
    );
    assert!(
        failure_block(&text, "more/leak").contains("leads out of the project"),
        "{text}"
    );
    std::fs::remove_file(root.join("cases/more")).unwrap();
    assert!(!text.contains("s3cr3t"), "{text}");
    for name in ["absolute", "linked"] {
        let block = failure_block(&text, name);
        assert!(
            block.contains(&format!("cases/{name}.yaml:1:13: prediction: prediction `"))
                && block.contains("is outside the project `")
                && block.contains("and goldgate reads nothing outside it"),
            "{block}"
        );
    }
    let block = failure_block(&text, "included");
    assert!(
        block.contains("cases/included.yaml:3:14: rubrics[0].include: rubric set `")
            && block.contains("outside the project"),
        "{block}"
    );
    // The default rubrics folder is project content: a link in it that leads out is refused.
    std::fs::create_dir(root.join("rubrics")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("sets/secret.yaml"),
        root.join("rubrics/linked.yaml"),
    )
    .unwrap();
    write_files(
        root,
        &[(
            "cases/included.yaml",
            "prediction_text: total 1\nrubrics:\n  - include: linked\n",
        )],
    );
    let out = goldgate(root, &["test", "cases", "--exact", "included"]);
    let block = failure_block(&stdout(&out), "included");
    assert!(
        block.contains("rubric set `linked` is") && block.contains("outside the project"),
        "{block}"
    );
    // Named on the command line, the folder of rubric sets is the user's choice.
    let sets = outside.path().join("sets");
    write_files(
        root,
        &[(
            "cases/included.yaml",
            "prediction_text: total 1\nrubrics:\n  - include: secret\n",
        )],
    );
    let out = goldgate(
        root,
        &[
            "test",
            "cases",
            "--exact",
            "included",
            "--rubrics",
            sets.to_str().unwrap(),
        ],
    );
    assert_eq!(
        test_lines(&stdout(&out)),
        expected(&[("included", "FAILED")])
    );
    assert!(
        failure_block(&stdout(&out), "included").contains("must_right `s3cr3t` failed"),
        "{}",
        stdout(&out)
    );
}

/// Easy-Wrong rubrics only lower the score: with no `min_score` they can reach, the case could
/// only ever pass, and is an error located at the rubric.
#[test]
fn easy_wrong_rubrics_that_no_threshold_notices_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rubric = "  - easy_wrong: t\n    field: total\n    equals: \"99\"\n    penalty: 0.3\n";
    write_files(
        dir.path(),
        &[
            (
                "cases/alone.yaml",
                &format!("prediction: {{total: \"12\"}}\nrubrics:\n{rubric}"),
            ),
            (
                "cases/unreachable.yaml",
                &format!(
                    "prediction: {{total: \"12\"}}\nrubrics:\n{rubric}thresholds:\n  min_score: 0.7\n"
                ),
            ),
            (
                "cases/bounded.yaml",
                &format!(
                    "prediction: {{total: \"12\"}}\nrubrics:\n{rubric}thresholds:\n  min_score: 0.8\n"
                ),
            ),
            (
                "cases/fraction.yaml",
                &format!(
                    "prediction: {{total: \"12\"}}\nscoring: fraction\nrubrics:\n{rubric}thresholds:\n  min_score: 0.7\n"
                ),
            ),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(
        test_lines(&text),
        expected(&[
            ("alone", "FAILED"),
            ("bounded", "FAILED"),
            ("fraction", "FAILED"),
            ("unreachable", "FAILED")
        ]),
        "{text}"
    );
    for name in ["alone", "unreachable"] {
        let block = failure_block(&text, name);
        assert!(
            block.starts_with(&format!(
                "error: cases/{name}.yaml:3:5: no check of this case can fail it"
            )),
            "{block}"
        );
    }
    // 1 − 0.3 < 0.8, and under `fraction` one failed rubric of one leaves 0: scored, and failed.
    assert!(
        failure_block(&text, "bounded").starts_with("case failed: min_score failed: 0.7000 < 0.8")
    );
    assert!(
        failure_block(&text, "fraction").starts_with("case failed: min_score failed: 0.0000 < 0.7")
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Judged rubrics (SPEC §12): replay never calls the judge and names the command that records;
/// record asks each distinct question once; replay then gets every verdict; refresh asks again;
/// `scoring: fraction` and the four aggregates of the gate per pipeline.
#[test]
fn judged_rubrics_are_recorded_once_and_replayed_offline() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("judged"), dir.path());
    let counter = dir.path().join("calls.txt");
    std::fs::write(&counter, "").unwrap();
    let calls = || std::fs::read_to_string(&counter).unwrap().lines().count();
    let counter_text = counter.to_str().unwrap();
    let run = |mode: &str| {
        goldgate_env(
            dir.path(),
            &["test", "cases", "--report", "report.json"],
            &[("GOLDGATE_JUDGE", mode), ("JUDGE_COUNTER", counter_text)],
        )
    };
    let verdicts = dir.path().join("cases/verdicts.json");

    // Replay without verdicts: every judged test fails, naming the command; nothing is called.
    let out = run("replay");
    let text = stdout(&out);
    assert_eq!(calls(), 0);
    assert!(!verdicts.exists());
    let block = failure_block(&text, "two::a");
    assert!(
        block.contains("could not be checked: prediction: no recorded verdict for this question; record it with `GOLDGATE_JUDGE=record goldgate test cases --exact two::a`"),
        "{block}"
    );

    // Record: 3 questions on each of one's two texts, 2 on two's one text (both pipelines wrote
    // the same): 8 calls, not 10.
    let out = run("record");
    assert_eq!(calls(), 8, "{}", std::fs::read_to_string(&counter).unwrap());
    assert!(verdicts.exists());
    let recorded = std::fs::read_to_string(&verdicts).unwrap();
    assert_eq!(recorded.matches("\"question\"").count(), 8);

    // Replay: no call, every verdict.
    let out2 = run("replay");
    assert_eq!(calls(), 8);
    assert_eq!(test_lines(&stdout(&out)), test_lines(&stdout(&out2)));
    let text = stdout(&out2);
    assert_eq!(
        test_lines(&text),
        expected(&[
            ("cases::aggregate::a", "ok"),
            ("cases::aggregate::b", "ok"),
            ("one::a", "ok"),
            ("one::b", "FAILED"),
            ("two::a", "ok"),
            ("two::b", "ok"),
        ])
    );
    assert!(!text.contains("no recorded verdict"), "{text}");
    let block = failure_block(&text, "one::b");
    assert!(
        block.contains("must_right `says it is open` failed (closes the gate): prediction: the judge says no: quoted phrases missing"),
        "{block}"
    );
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    // Fraction scoring: one::a 1, one::b 0 (gate closed), two 1 of 1 Easy-Wrong.
    assert_eq!(case(&r, "one::a")["score"], 1.0);
    assert_eq!(case(&r, "one::b")["score"], 0.0);
    let aggregate = |name: &str| {
        r["aggregates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == name)
            .unwrap_or_else(|| panic!("no aggregate {name}: {}", r["aggregates"]))["metrics"]
            .clone()
    };
    let b = aggregate("cases::aggregate::b");
    assert_eq!(b["gate_pass_rate"], 0.5);
    assert_eq!(b["mean_score"], 0.5);
    assert_eq!(b["must_right_accuracy"], 0.5);
    assert_eq!(b["easy_wrong_accuracy"], 2.0 / 3.0);
    let a = aggregate("cases::aggregate::a");
    assert_eq!(
        [
            &a["gate_pass_rate"],
            &a["mean_score"],
            &a["must_right_accuracy"],
            &a["easy_wrong_accuracy"]
        ],
        [1.0, 1.0, 1.0, 1.0]
    );

    // b against a (the first pipeline declared), paired over one and two.
    let c = &r["comparisons"][0];
    assert_eq!(
        (&c["pipeline"], &c["reference"], &c["cases"]),
        (&json!("b"), &json!("a"), &json!(2))
    );
    assert_eq!(c["score"]["difference"], -0.5);
    assert_eq!(
        (&c["score"]["low"], &c["score"]["high"]),
        (&json!(-1.0), &json!(0.0))
    );
    assert_eq!(
        c["mcnemar"],
        json!({"only_reference": 1, "only_pipeline": 0, "p_value": 1.0})
    );
    std::fs::copy(dir.path().join("report.json"), dir.path().join("old.json")).unwrap();

    // Refresh asks again for every verdict the run needs, each once.
    run("refresh");
    assert_eq!(calls(), 16);
    // `lint` never calls a judge.
    goldgate_env(
        dir.path(),
        &["lint", "cases"],
        &[("JUDGE_COUNTER", counter_text)],
    );
    assert_eq!(calls(), 16);

    // Two runs compared: b's summary of one now says it is open, as a's does.
    std::fs::copy(
        dir.path().join("cases/outputs/a/one.txt"),
        dir.path().join("cases/outputs/b/one.txt"),
    )
    .unwrap();
    run("record");
    let out = goldgate(
        dir.path(),
        &["report", "--compare", "old.json", "report.json", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runs: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let b = runs["pipelines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["pipeline"] == "b")
        .unwrap();
    assert_eq!(b["score"]["difference"], 0.5);
    assert_eq!(b["mcnemar"]["only_pipeline"], 1);
    let text = stdout(&goldgate(
        dir.path(),
        &["report", "--compare", "old.json", "report.json"],
    ));
    // A table per pipeline: the score's paired difference and its interval, not significant.
    let b = text
        .split("\nb, 2 tests in both runs:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let score = b.lines().find(|l| l.starts_with("score")).unwrap();
    assert!(score.contains("+0.5000 [+0.0000, +1.0000]"), "{text}");
    assert!(score.ends_with("  no"), "{text}");

    // `lint` finds a verdict file that does not read, located at the suite's judge.
    std::fs::write(&verdicts, "{\"goldgate_verdicts\": 1, \"verdicts\": [").unwrap();
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(out.status.code(), Some(1));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        all.contains("cases/suite.yaml:6:3: judge.verdicts: ")
            && all.contains("not a goldgate verdict file"),
        "{all}"
    );
}

/// `goldgate agree` on the example judged suite: the values scikit-learn and scipy give for the
/// same labels (computed there, written here), and both disagreements, located.
#[test]
fn agreement_with_people_equals_scikit_learn_and_scipy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = goldgate(
        root,
        &[
            "agree",
            "--human",
            "cases/judged/people.jsonl",
            "cases/judged",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let a: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let near = |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-12;
    // sklearn 1.9.1: cohen_kappa_score(p, g), f1_score(p, g, average="macro") with
    // p = [1,1,1,1,0,1,1,0,1,0], g = [1,1,1,1,0,1,0,0,1,1].
    let all = &a["verdicts"]["all"];
    assert_eq!(all["n"], 10);
    assert!(near(&all["agreement"], 0.8));
    assert!(near(&all["kappa"], 0.5238095238095238), "{all}");
    assert!(near(&all["balanced_f1"], 0.7619047619047619), "{all}");
    assert_eq!(
        all["confusion"],
        json!({"both_held": 6, "person_held_goldgate_failed": 1, "person_failed_goldgate_held": 1, "both_failed": 2})
    );
    assert_eq!(a["verdicts"]["must_right"]["n"], 3);
    assert_eq!(a["verdicts"]["easy_wrong"]["n"], 7);
    // scipy 1.17.1 on ratings [5,3,5,2,4,3] against scores [1,.5,.5,.5,1,1].
    let r = &a["ratings"];
    assert!(near(&r["spearman"], 0.3015113445777636), "{r}");
    assert!(near(&r["kendall_tau_b"], 0.2773500981126146), "{r}");
    assert!(near(&r["pearson"], 0.30151134457776363), "{r}");
    let d = a["disagreements"].as_array().unwrap();
    assert_eq!(d.len(), 2);
    assert_eq!(
        (
            &d[0]["test"],
            &d[0]["at"],
            &d[0]["person"],
            &d[0]["goldgate"]
        ),
        (
            &json!("northwind-77::careful"),
            &json!("cases/judged/northwind-77.yaml:12"),
            &json!(true),
            &json!(false)
        )
    );
    assert_eq!(
        (&d[1]["test"], &d[1]["at"]),
        (
            &json!("globex-3::terse"),
            &json!("cases/judged/globex-3.yaml:6")
        )
    );
    // Judged rubrics whose verdicts were never recorded cannot be set beside people's.
    let unrecorded = tempfile::tempdir().unwrap();
    copy_tree(&root.join("cases/judged"), unrecorded.path());
    std::fs::remove_file(unrecorded.path().join("verdicts.json")).unwrap();
    let out = goldgate(
        unrecorded.path(),
        &["agree", "--human", "people.jsonl", "."],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("people.jsonl:1: `acme-1001::careful` rubric `the summary does not claim the invoice was paid` has no recorded verdict"),
        "{}",
        stderr(&out)
    );
    // A label naming no test is an error located in the labels file.
    let dir = tempfile::tempdir().unwrap();
    let labels = dir.path().join("bad.jsonl");
    std::fs::write(
        &labels,
        "{\"test\": \"acme-1001::carefull\", \"rating\": 3}\n",
    )
    .unwrap();
    let out = goldgate(
        root,
        &["agree", "--human", labels.to_str().unwrap(), "cases/judged"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("bad.jsonl:1: no test is named `acme-1001::carefull` (did you mean `acme-1001::careful`?)"),
        "{}",
        stderr(&out)
    );
}

/// `goldgate score` holds a line to the budgets of a case.
#[test]
fn a_score_line_over_a_budget_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let items: Vec<String> = (0..2001).map(|i| format!("\"{i}\"")).collect();
    let lines = format!(
        "{{\"gold\": [{}], \"pred\": []}}\n{{\"gold\": \"ab\", \"pred\": \"ab\"}}\n",
        items.join(",")
    );
    std::fs::write(dir.path().join("pairs.jsonl"), lines).unwrap();
    let out = goldgate(dir.path(), &["score", "--jsonl", "pairs.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "error: pairs.jsonl:1: `gold` is a list of 2001 items, more than goldgate matches (2000)"
        ),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).ends_with("{\"anls\":1.0,\"em\":1}\n"),
        "{}",
        stdout(&out)
    );
}

/// A judge's settings out of range are located at their values.
#[test]
fn a_judge_out_of_range_is_located_at_its_value() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "judge:\n  command: [python3, judge.py]\n  verdicts: verdicts.json\n  repeat: 0\n",
            ),
            (
                "cases/a.yaml",
                "prediction_text: hello\nrubrics:\n  - must_right: polite\n    judge: Is the text polite?\n",
            ),
        ],
    );
    let out = goldgate(dir.path(), &["lint", "cases"]);
    assert_eq!(out.status.code(), Some(1));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        all.contains("cases/suite.yaml:4:11: judge.repeat: `repeat` is 0; it must be 1 to 99"),
        "{all}"
    );
}

/// The plan of a run reads a file before its test only to learn what the plan needs: a YAML
/// prediction among the cases is no test (in `test` and in `lint`, which tells it apart once
/// every case is read), a file that is no case and no prediction fails, a case that says `skip`
/// is flagged before the run (`--ignored` runs it), and one under a pipeline suite is a test per
/// pipeline, loaded once.
#[test]
fn a_plan_tells_predictions_broken_files_and_skipped_cases_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_files(
        root,
        &[
            ("Cargo.toml", "[package]\nname = \"x\"\n"),
            (
                "cases/a.yaml",
                "prediction: out/a.yaml\ngold: {total: \"5\"}\nthresholds: {min_exact_match: 1.0}\n",
            ),
            ("cases/out/a.yaml", "total: 5\n"),
            ("cases/broken.yaml", "gold: {x: 1}\nrubrics: [\n"),
            ("cases/notes.yaml", "hello: world\n"),
            (
                "cases/s.yaml",
                "skip: later\nprediction: out/a.yaml\ngold: {total: \"5\"}\nthresholds: {min_exact_match: 1.0}\n",
            ),
            (
                "cases/two/suite.yaml",
                "pipelines:\n  p: out/p/{case}.json\n  q: out/q/{case}.json\n",
            ),
            (
                "cases/two/t.yaml",
                "gold: {total: \"5\"}\nthresholds: {min_exact_match: 1.0}\n",
            ),
            ("cases/two/out/p/t.json", "{\"total\": \"5\"}"),
            ("cases/two/out/q/t.json", "{\"total\": \"6\"}"),
            // YAML predictions whose fields look like a case's keys.
            (
                "cases/g/c.yaml",
                "prediction: p.yaml\ngold: {gold: \"x\"}\nthresholds: {min_exact_match: 1.0}\n",
            ),
            ("cases/g/p.yaml", "gold: x\n"),
            (
                "cases/three/suite.yaml",
                "pipelines:\n  p: out/{pipeline}/{case}.yaml\n",
            ),
            (
                "cases/three/t.yaml",
                "gold: {total: \"5\"}\nthresholds: {min_exact_match: 1.0}\n",
            ),
            (
                "cases/three/out/p/t.yaml",
                "gold: \"5\"\ntotal: \"5\"\nthresholds: none\n",
            ),
        ],
    );
    let out = goldgate(root, &["test", "cases", "--test-threads", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        test_lines(&stdout),
        expected(&[
            ("a", "ok"),
            ("broken", "FAILED"),
            ("g/c", "ok"),
            ("notes", "FAILED"),
            ("s", "ignored (later)"),
            ("three/t::p", "ok"),
            ("two/t::p", "ok"),
            ("two/t::q", "FAILED"),
        ]),
        "{stdout}"
    );
    let ignored = goldgate(root, &["test", "cases", "--ignored"]);
    let ignored = String::from_utf8_lossy(&ignored.stdout);
    assert_eq!(test_lines(&ignored), expected(&[("s", "ok")]), "{ignored}");
    let lint = goldgate(root, &["lint", "cases"]);
    let text =
        String::from_utf8_lossy(&lint.stdout).to_string() + &String::from_utf8_lossy(&lint.stderr);
    assert!(text.contains("cases/broken.yaml:"), "{text}");
    assert!(text.contains("cases/notes.yaml:"), "{text}");
    assert!(!text.contains("cases/out/a.yaml"), "{text}");
    assert!(!text.contains("p.yaml"), "{text}");
    assert!(text.contains("lint: 7 case files, 2 errors"), "{text}");
}

/// A rubric path below a gold field that gold does not have (a typo, an index past the end)
/// could not be checked, whatever the prediction has there: gold and prediction both having
/// nothing must not compare equal (issue 21). `present: false` may still ask about it; lint
/// says each one; the report keeps what was found as data.
#[test]
fn a_rubric_path_that_reaches_nothing_in_gold_could_not_be_checked() {
    let dir = fixtures().join("gold-paths");
    let (out, report) = report(&dir, &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(101), "{text}");
    assert_eq!(
        test_lines(&text),
        expected(&[
            ("absence-past-the-end", "ok"),
            ("absent-key-meant", "ok"),
            ("not-over-a-typo", "FAILED"),
            ("past-the-end", "FAILED"),
            ("shape-without-gold", "FAILED"),
            ("typo-below-root", "FAILED"),
            ("typo-in-every-item", "FAILED"),
            ("typo-without-gold", "FAILED"),
        ])
    );
    let nothing = "so there is nothing to check against";
    for (name, line) in [
        (
            "typo-below-root",
            format!(
                "must_right `the supplier's name is exact` failed (closes the gate): could not be checked: supplier.nmae: gold has nothing here (`supplier` has no `nmae`; did you mean `name`?), {nothing}"
            ),
        ),
        (
            "not-over-a-typo",
            format!(
                "must_right `the supplier's name is not blank` failed (closes the gate): could not be checked: supplier.nmae: gold has nothing here (`supplier` has no `nmae`; did you mean `name`?), {nothing}"
            ),
        ),
        (
            "past-the-end",
            format!(
                "must_right `the tenth line is exact` failed (closes the gate): could not be checked: line_items[9]: gold has nothing here (`line_items` has 2 items), {nothing}"
            ),
        ),
        (
            "typo-in-every-item",
            format!(
                "must_right `every quantity reads well` failed (closes the gate): could not be checked: line_items[0].quanity: gold has nothing here (`line_items[0]` has no `quanity`; did you mean `quantity`?), {nothing}; line_items[1].quanity: gold has nothing here (`line_items[1]` has no `quanity`; did you mean `quantity`?), {nothing}"
            ),
        ),
    ] {
        let block = failure_block(&text, name);
        assert!(block.lines().any(|l| l == line), "{name}:\n{block}");
    }
    let rubric = &case(&report, "past-the-end")["rubrics"][0];
    assert_eq!(
        (&rubric["held"], &rubric["checked"]),
        (&json!(false), &json!(false))
    );
    assert_eq!(
        rubric["finding"],
        json!({"found": "at", "place": {"field": "line_items[9]"}, "missing": null,
            "finding": {"found": "not_in_gold", "missing": {"missing": "past_the_end", "at": "line_items", "items": 2}}})
    );

    let lint = goldgate(&dir, &["lint", "cases"]);
    assert_eq!(lint.status.code(), Some(1));
    assert_eq!(
        stdout(&lint) + &stderr(&lint),
        format!("error: cases/not-over-a-typo.yaml:7:5: must_right `the supplier's name is not blank`: supplier.nmae: gold has nothing here (`supplier` has no `nmae`; did you mean `name`?), {nothing}
error: cases/past-the-end.yaml:7:5: must_right `the tenth line is exact`: line_items[9]: gold has nothing here (`line_items` has 2 items), {nothing}
error: cases/shape-without-gold.yaml:6:5: must_right `forgot the star`: line_items.quantity: the prediction has nothing here (`line_items` is a list, not a mapping), so nothing could be checked
error: cases/shape-without-gold.yaml:9:5: must_right `past the end`: line_items[9].quantity: the prediction has nothing here (`line_items` has 2 items), so nothing could be checked
error: cases/shape-without-gold.yaml:12:5: must_right `key on a text`: supplier.name.first: the prediction has nothing here (`supplier.name` is a text, not a mapping), so nothing could be checked
error: cases/typo-below-root.yaml:8:5: must_right `the supplier's name is exact`: supplier.nmae: gold has nothing here (`supplier` has no `nmae`; did you mean `name`?), {nothing}
error: cases/typo-in-every-item.yaml:11:5: must_right `every quantity reads well`: line_items[*].quanity: gold has nothing here (`line_items[0]` has no `quanity`; did you mean `quantity`?), {nothing}
error: cases/typo-without-gold.yaml:5:5: must_right `the supplier is not ACME`: supplier.nmae: the prediction has nothing here (`supplier` has no `nmae`; did you mean `name`?), so nothing could be checked
lint: 8 case files, 8 errors
")
    );
}

/// Prediction text printed on standard output never starts a line GitHub Actions reads as a
/// workflow command (issue 21): the failure message and the end of the run are made inert.
#[test]
fn prediction_text_never_starts_a_workflow_command_on_standard_output() {
    let tmp = tempfile::tempdir().unwrap();
    write_files(
        tmp.path(),
        &[
            (
                "cases/hostile.yaml",
                "prediction: hostile.json\ngold:\n  note: \"ok\\nfine\"\n  total: \"12\"\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/hostile.json",
                r###"{"note": "ok\n::error file=README.md,line=1::pwned\n  ::add-mask::secret\n##[error]old\r::notice::cr", "total": "::warning::13", "\n::add-mask::KEY": "1"}"###,
            ),
            (
                "cases/n\n::error::NAME.yaml",
                "prediction: { x: wrong }\ngold: { x: right }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/::error::lead.yaml",
                "prediction: { x: wrong }\ngold: { x: right }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    let out = goldgate(tmp.path(), &["test", "cases"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(101), "{text}");
    assert!(text.contains("pwned") && text.contains("secret"), "{text}");
    assert!(text.contains("NAME") && text.contains("lead"), "{text}");
    for line in text.split(['\n', '\r']) {
        assert!(
            !line.trim_start().starts_with("::") && !line.contains("##["),
            "a workflow command on standard output: {line:?}\n{text}"
        );
    }
}
