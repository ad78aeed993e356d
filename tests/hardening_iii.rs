//! Hardening III: a document's path pasted into a shell's script, control characters of a
//! prediction in every output, a review queue and a case of very many fields, a run killed
//! before its end, and a regression gate over baseline entries that lack its metric. The
//! `goldgate` binary runs over fixture folders made in a temporary folder by each test.

mod support;
use support::{failure_block, goldgate, stderr, stdout, verdict_of, write_files};

const CASE: &str = "gold: { a: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n";

/// A document named `touch PWNED` filled the script of `sh -c` and ran as a command (a
/// document's path may hold spaces, as a whole argument). In a script its space is refused, at
/// the suite, with the fix; that case alone fails, the same path passed as an argument of its
/// own still runs, and nothing was touched.
#[test]
fn a_document_path_with_a_space_never_fills_a_script() {
    let fields = "printf '{\"fields\": {\"a\": \"1\"}}'";
    for (command, index) in [
        (r#"[sh, -c, "{document}"]"#, 2),
        (r#"[timeout, "30", bash, -ec, "{document}"]"#, 4),
        (r#"[perl, -e, "{document}"]"#, 2),
        (r#"[env, -S, "{document}"]"#, 2),
        // Options between the flag and the script: the shell still reads it as one.
        (r#"[sh, -c, --, "{document}"]"#, 3),
        (r#"[sh, -ec, --, "{document}"]"#, 3),
        (r#"[bash, -c, -x, "{document}"]"#, 3),
        (r#"[dash, -c, +e, "{document}"]"#, 3),
        (r#"[sh, -c, -o, errexit, "{document}"]"#, 4),
        (r#"[timeout, "60", sh, -c, --, "{document}"]"#, 5),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_files(
            dir.path(),
            &[
                ("cases/suite.yaml", &format!("run:\n  command: {command}\n")),
                (
                    "cases/evil.yaml",
                    &format!("document: \"touch PWNED\"\n{CASE}"),
                ),
                ("cases/touch PWNED", ""),
                // A path of safe characters still fills the script, and runs.
                (
                    "cases/plain.yaml",
                    &format!("document: bin/plain.sh\n{CASE}"),
                ),
                ("cases/bin/plain.sh", &format!("#!/bin/sh\n{fields}\n")),
            ],
        );
        use std::os::unix::fs::PermissionsExt;
        let script = dir.path().join("cases/bin/plain.sh");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = goldgate(dir.path(), &["test", "cases"]);
        let shown = stdout(&out);
        assert_eq!(out.status.code(), Some(101), "{command}: {shown}");
        let block = failure_block(&shown, "evil");
        assert_eq!(
            block.lines().next().unwrap(),
            format!(
                "error: cases/suite.yaml:2:3: run.command[{index}]: the document's path `touch PWNED` (of `cases/evil.yaml`) would fill `{{document}}` in `run.command[{index}]` (`{{document}}`), which a shell or interpreter reads as a script, and it holds a space: the script would run it as a command and its arguments, so a value with anything but letters, digits and `_ - . /` is never pasted into a script (pass the path as an argument of its own and quote it in the script: `[sh, -c, 'extract \"$1\"', sh, \"{{document}}\"]`)"
            ),
            "{command}"
        );
        for touched in ["PWNED", "cases/PWNED"] {
            assert!(
                !dir.path().join(touched).exists(),
                "{command} ran {touched}"
            );
        }
        if command.starts_with("[sh") {
            assert_eq!(verdict_of(&shown, "plain"), "test plain ... ok", "{shown}");
        }
    }
    // The fix the message names runs the same document, its space and all.
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "run:\n  command: [sh, -c, 'test -f \"$1\" && printf \"{\\\"fields\\\": {\\\"a\\\": \\\"1\\\"}}\"', sh, \"{document}\"]\n",
            ),
            (
                "cases/evil.yaml",
                &format!("document: \"touch PWNED\"\n{CASE}"),
            ),
            ("cases/touch PWNED", ""),
        ],
    );
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(!dir.path().join("cases/PWNED").exists());
}

/// A case of `n` text fields, every one predicted wrong: `cases/big.yaml` (field `fI` on line
/// `I + 4`) and its prediction `cases/big.json`.
fn many_wrong_fields(root: &std::path::Path, n: usize) {
    let gold: String = (0..n).map(|i| format!("  f{i}: \"v{i}\"\n")).collect();
    let fields: Vec<String> = (0..n).map(|i| format!("\"f{i}\": \"w{i}\"")).collect();
    write_files(
        root,
        &[
            ("Cargo.toml", "[package]\nname = \"x\"\n"),
            (
                "cases/big.yaml",
                &format!(
                    "prediction: big.json\nthresholds: {{ min_exact_match: 1.0 }}\ngold:\n{gold}"
                ),
            ),
            (
                "cases/big.json",
                &format!("{{\"fields\": {{{}}}}}", fields.join(", ")),
            ),
        ],
    );
}

/// The queue of one case with thousands of failing fields read the case file once per field
/// and searched every record's fields per item (1,000 items took 35 s, 10,000 more than two
/// minutes): each file is read once and fields are looked up by name. Every item is listed,
/// with the line of its gold.
#[test]
fn the_review_queue_of_a_case_with_thousands_of_failing_fields_is_whole_and_placed() {
    let n = 3000;
    let dir = tempfile::tempdir().unwrap();
    many_wrong_fields(dir.path(), n);
    let run = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(run.status.code(), Some(101), "{}", stdout(&run));
    let out = goldgate(dir.path(), &["review", "--list", "--json", "cases"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let items: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(items.len(), n);
    for item in &items {
        let field = item["field"].as_str().unwrap();
        let i: u64 = field[1..].parse().unwrap();
        assert_eq!(item["id"], format!("big#{field}"));
        assert_eq!(item["kind"], "failing");
        assert_eq!(item["gold"][0], format!("v{i}"));
        assert_eq!(item["predictions"][0]["value"], format!("w{i}"));
        assert_eq!(item["gold_at"]["file"], "cases/big.yaml");
        assert_eq!(item["gold_at"]["line"], i + 4, "{item}");
    }
}

/// A run whose process was killed before its end left a journal of the tests it had finished,
/// and `report --run` printed their numbers as a passing run. It now says the run never ended
/// and names the test without a record, and fails; a run that ends says nothing of the kind.
#[test]
fn the_report_of_a_killed_run_says_it_is_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("Cargo.toml", "[package]\nname = \"x\"\n"),
            ("cases/suite.yaml", "run:\n  command: [sleep, \"10\"]\n"),
            ("cases/a.yaml", &format!("prediction: a.json\n{CASE}")),
            ("cases/a.json", "{\"fields\": {\"a\": \"1\"}}"),
            ("cases/b.yaml", CASE),
        ],
    );
    let id = "killed-run";
    let mut child = support::command(dir.path(), &["test", "cases", "--test-threads", "1"])
        .env("GOLDGATE_RUN_ID", id)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed once `a` is recorded, while `b` waits for its command.
    let recorded = |dir: &std::path::Path| {
        let out = goldgate(dir, &["report", "--run", id]);
        stdout(&out).contains("goldgate: 1 cases, 1 passed")
    };
    let mut waited = 0;
    while !recorded(dir.path()) {
        assert!(waited < 600, "`a` was never recorded");
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let out = goldgate(dir.path(), &["report", "--run", id]);
    let shown = stdout(&out);
    assert_ne!(out.status.code(), Some(0), "{shown}");
    assert!(
        shown.contains("INCOMPLETE: the run never ended (a process of it was killed before its end); 1 test has no record: `b`: these numbers are not the run's, run the tests again"),
        "{shown}"
    );
    // A run that ends is whole, failing or not.
    write_files(
        dir.path(),
        &[("cases/suite.yaml", "run:\n  command: [\"false\"]\n")],
    );
    let run = support::command(dir.path(), &["test", "cases"])
        .env("GOLDGATE_RUN_ID", "ended-run")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(101), "{}", stdout(&run));
    let out = goldgate(dir.path(), &["report", "--run", "ended-run"]);
    assert!(!stdout(&out).contains("INCOMPLETE"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("goldgate: 2 cases, 1 passed, 1 failed"),
        "{}",
        stdout(&out)
    );
}

/// Ten cases gated on ANLS against a baseline of ANLS 1, whose entries but `c0`'s hold only a
/// `score` (blessed under a gate on another metric); each case but `c0` now drops to ANLS 0.75.
fn gated_on_anls(root: &std::path::Path) {
    let mut files: Vec<(String, String)> = vec![(
        "cases/suite.yaml".into(),
        "baseline: baseline.json\nregression_gate: { metric: anls, min_effect: 0.02 }\n".into(),
    )];
    let mut entries = Vec::new();
    for i in 0..10 {
        let predicted = if i == 0 { "abcd" } else { "abcz" };
        files.push((
            format!("cases/c{i}.yaml"),
            format!("prediction: {{ a: \"{predicted}\" }}\ngold: {{ a: \"abcd\" }}\nthresholds: {{ min_anls: 0.5 }}\n"),
        ));
        let entry = if i == 0 {
            "{\"anls\": 1.0}"
        } else {
            "{\"score\": 1.0}"
        };
        entries.push(format!("\"c{i}\": {entry}"));
    }
    files.push((
        "cases/baseline.json".into(),
        format!(
            "{{\"goldgate_baseline\": 1, \"cases\": {{{}}}}}\n",
            entries.join(", ")
        ),
    ));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write_files(root, &refs);
}

/// A gate on ANLS whose baseline entries lacked ANLS for 9 of 10 cases compared the one that had
/// it, and held while the nine fell from 1.0 to 0.75; only its power line said "1 case". It now
/// fails, naming the cases and the fix, and blessing the baseline makes it compare all ten.
#[test]
fn a_gate_fails_when_baseline_entries_lack_its_metric() {
    let dir = tempfile::tempdir().unwrap();
    gated_on_anls(dir.path());
    let out = goldgate(dir.path(), &["test", "cases"]);
    let shown = stdout(&out);
    assert_eq!(out.status.code(), Some(101), "{shown}");
    assert_eq!(
        failure_block(&shown, "cases::aggregate"),
        "regression gate: 9 of 10 cases have no `anls` in the baseline `cases/baseline.json`: `c1`, `c2` and 7 more; the gate compares every case with an entry, and would judge the others alone: bless the baseline to record it, with: GOLDGATE_UPDATE=always goldgate test cases\nat cases/suite.yaml:2 (regression_gate)"
    );
    let (_, report) = support::goldgate_report(dir.path(), &["test", "cases"]);
    let gate = &report["aggregates"][0]["regression_gate"];
    assert_eq!(gate["held"], false);
    assert_eq!(gate["entries"], 10);
    assert_eq!(gate["lacking"].as_array().unwrap().len(), 9);
    // The fix the message names: the baseline blessed, the gate compares all ten and holds.
    let bless = support::goldgate_with(
        dir.path(),
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always")],
    );
    assert_ne!(bless.status.code(), None);
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// The control characters a terminal, a CI log or a page obeys: escape, BEL, a lone CR, NUL,
/// DEL and the C1 CSI.
fn obeyed(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` without its colour sequences (`ESC [ 1;31 m`), and no other.
fn without_colours(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let digits = after.find(|c: char| !(c.is_ascii_digit() || c == ';'));
        match digits {
            Some(end) if after[end..].starts_with('m') => rest = &after[end + 1..],
            _ => {
                out.push('\u{1b}');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A prediction holding terminal escapes (a title set by OSC, a screen cleared, a hyperlink, a
/// bell, a C1 CSI) reached standard error raw inside `::error` annotations, and the HTML page.
/// Every output now shows them escaped (`\u{1b}`), the same way in each: the terminal's
/// message, the annotations, the HTML page, the JUnit file and the step summary.
#[test]
fn control_characters_of_a_prediction_are_shown_in_every_output_never_obeyed() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = r#"{"fields": {"a": "x\u001b]0;pwned\u0007\u001b[2J\u001b]8;;http://evil\u001b\\y\u0000\r\u007f\u009bz"}}"#;
    write_files(
        dir.path(),
        &[
            (
                "cases/acme.yaml",
                &format!(
                    "prediction: acme.json\nrubrics:\n  - must_right: total\n    field: a\n    contains: \"1\"\n{CASE}"
                ),
            ),
            ("cases/acme.json", hostile),
        ],
    );
    let out_dir = tempfile::tempdir().unwrap();
    let file = |name: &str| out_dir.path().join(name).to_str().unwrap().to_owned();
    let (html, junit, summary) = (file("page.html"), file("junit.xml"), file("summary.md"));
    let out = support::goldgate_with(
        dir.path(),
        &[
            "test", "cases", "--html", &html, "--junit", &junit, "--color", "always",
        ],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", &summary),
        ],
    );
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let outputs = [
        ("standard output", stdout(&out)),
        ("standard error", stderr(&out)),
        ("HTML", std::fs::read_to_string(&html).unwrap()),
        ("JUnit", std::fs::read_to_string(&junit).unwrap()),
        ("step summary", std::fs::read_to_string(&summary).unwrap()),
    ];
    for (name, text) in &outputs {
        // goldgate's own colours are the only escapes, and only on the terminal.
        let raw: Vec<char> = without_colours(text)
            .chars()
            .filter(|&c| obeyed(c))
            .collect();
        assert!(raw.is_empty(), "{name} holds {raw:?}:\n{text}");
        // The step summary lists verdicts, not values.
        if *name != "step summary" {
            assert!(text.contains(r"\u{1b}]0;pwned\u{7}"), "{name}:\n{text}");
        }
    }
    assert!(
        stderr(&out).contains(r"::error file=cases/acme.yaml"),
        "{}",
        stderr(&out)
    );
}
