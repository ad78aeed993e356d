//! Hardening IV, the run layer: the globs of `run.inputs` over folders of links, secrets kept
//! out of the committed cache and the run's files, every file a call's arguments name in its
//! key, a `run.call_errors: skip` that scored nothing, and `target_error` in the gold digest.
//! The `goldgate` binary runs over fixture folders made in a temporary folder by each test.

#![cfg(unix)]

use std::path::{Path, PathBuf};

mod support;
use support::{command, goldgate, goldgate_report, stderr, stdout, verdict_of, write_files};

/// A project (it has `.git`) whose suite runs `extract.sh` over each case's document, with
/// `run_extra` under `run:`.
fn project(run_extra: &str, script: &str, cases: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let suite = format!(
        "run:\n  command: [sh, extract.sh, \"{{document}}\"]\n{run_extra}prediction_format:\n  fields: fields\n  ok: {{ ok: true }}\ndefaults:\n  thresholds: {{ min_exact_match: 1.0 }}\n"
    );
    write_files(
        dir.path(),
        &[("cases/suite.yaml", &suite), ("cases/extract.sh", script)],
    );
    for (name, text) in cases {
        write_files(
            dir.path(),
            &[
                (&format!("cases/docs/{name}.txt"), text),
                (
                    &format!("cases/{name}.yaml"),
                    &format!("document: docs/{name}.txt\ngold:\n  total: \"{text}\"\n"),
                ),
            ],
        );
    }
    dir
}

/// Prints the document's text as the field `total`.
const ECHO: &str =
    "printf '{\"ok\": true, \"fields\": {\"total\": \"%s\"}}\\n' \"$(cat \"$1\")\"\n";

/// The `parts` of every index entry of the project's cache.
fn index_parts(dir: &Path) -> Vec<serde_json::Value> {
    let index = dir.join(".goldgate/cache/index");
    std::fs::read_dir(&index)
        .unwrap_or_else(|e| panic!("no index at {}: {e}", index.display()))
        .map(|e| {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            serde_json::from_str::<serde_json::Value>(&text).unwrap()["parts"].clone()
        })
        .collect()
}

/// `run.inputs: ["prompts/**/*.txt"]` over a folder holding links to itself: the glob followed
/// the loops as deep as a path may be, keying one prompt hundreds of times under as many names
/// (with two such links, without bound: past 20 s and 570 MB). A link to a folder is not
/// followed: the prompt is one input, its folder walked once.
#[test]
fn an_input_folder_that_links_to_itself_is_walked_once() {
    let dir = project("  inputs: [\"../prompts/**/*.txt\"]\n", ECHO, &[("a", "1")]);
    // Beside the cases folder: the cases' own discovery is not what is tested.
    write_files(dir.path(), &[("prompts/system.txt", "Extract.")]);
    std::os::unix::fs::symlink(".", dir.path().join("prompts/again")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("prompts/up")).unwrap();
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let parts = index_parts(dir.path());
    assert_eq!(parts.len(), 1, "{parts:?}");
    let inputs: Vec<&String> = parts[0]
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("input"))
        .collect();
    assert_eq!(inputs.len(), 1, "{inputs:?}");
    assert!(inputs[0].ends_with("/prompts/system.txt"), "{inputs:?}");
}

/// A glob that matches more files than a call is keyed by fails the call, saying the bound and
/// the fix (before, every file was hashed for every call, without bound).
#[test]
fn inputs_over_their_bound_are_refused() {
    let dir = project("  inputs: [\"../data/*.txt\"]\n", ECHO, &[("a", "1")]);
    std::fs::create_dir(dir.path().join("data")).unwrap();
    for i in 0..1_001 {
        std::fs::write(dir.path().join(format!("data/{i}.txt")), "").unwrap();
    }
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("`run.inputs` `../data/*.txt` matches more than 1000 files, more than goldgate hashes to key one call (name only the files that decide the output, such as `prompts/*.txt`)"),
        "{text}"
    );
}

/// A prompt that is a link to a file outside the project: its bytes were read to key the call.
/// It is refused as every read out of the project is, naming the glob and the file.
#[test]
fn an_input_linked_out_of_the_project_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    write_files(outside.path(), &[("secret.txt", "not the project's")]);
    let dir = project("  inputs: [\"prompts/*.txt\"]\n", ECHO, &[("a", "1")]);
    std::fs::create_dir_all(dir.path().join("cases/prompts")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("cases/prompts/out.txt"),
    )
    .unwrap();
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("`run.inputs` `prompts/*.txt` matches `")
            && text.contains("prompts/out.txt`, outside the project `")
            && text.contains("a link that leads out counts as outside"),
        "{text}"
    );
}

/// The secret a pipeline logs, a `run.env` variable's.
const KEY: &str = "sk-test-0123456789abcdef";

/// A variable not named by `run.env` whose name says it is a secret.
const TOKEN: &str = "tok-fedcba9876543210";

/// Logs both secrets on its standard error; `fail` exits 3, `notok` says its call failed in the
/// secret's words.
const LOGS_ITS_KEY: &str = r#"echo "calling with $OPENAI_API_KEY and $SERVICE_TOKEN" >&2
text=$(cat "$1")
case "$text" in
  fail*) exit 3;;
  notok*) printf '{"ok": false, "error": "denied for %s"}\n' "$OPENAI_API_KEY";;
  *) printf '{"ok": true, "fields": {"total": "%s"}}\n' "$text";;
esac
"#;

/// Every file under `dir`, its text.
fn every_file(dir: &Path) -> Vec<(PathBuf, String)> {
    walk(dir)
        .into_iter()
        .map(|p| {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            (p, text)
        })
        .collect()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all.extend(walk(&path));
        } else {
            all.push(path);
        }
    }
    all
}

/// A pipeline that logs its key: the cache kept the standard error of each successful call,
/// the key's value in it, in a folder a team commits; its index kept an unsalted SHA-256 of the
/// value (a short secret is confirmed offline in one hash a guess). Neither the value nor its
/// digest is in any file of the project or the report, nor in what the run prints, whether the
/// call succeeded, failed, or said it failed; a secret-looking variable the suite does not name
/// is cleaned too. Replayed, the kept output still hits (the key holds the value).
#[test]
fn no_secret_is_kept_in_the_cache_or_the_run_files() {
    use sha2::Digest;
    let dir = project(
        "  env: [OPENAI_API_KEY]\n  call_errors: fail\n",
        LOGS_ITS_KEY,
        &[("a", "1"), ("b", "fail"), ("c", "notok")],
    );
    let report_dir = tempfile::tempdir().unwrap();
    let report = report_dir.path().join("report.json");
    let run = |extra: &[(&str, &str)]| {
        command(
            dir.path(),
            &["test", "cases", "--report", report.to_str().unwrap()],
        )
        .env("OPENAI_API_KEY", KEY)
        .env("SERVICE_TOKEN", TOKEN)
        .envs(extra.iter().copied())
        .output()
        .unwrap()
    };
    let out = run(&[]);
    let text = stdout(&out);
    assert_eq!(verdict_of(&text, "a"), "test a ... ok", "{text}");
    assert!(
        text.contains("[OPENAI_API_KEY] and [SERVICE_TOKEN]"),
        "{text}"
    );
    let digest = format!("{:x}", sha2::Sha256::digest(KEY.as_bytes()));
    let mut files = every_file(dir.path());
    files.extend(every_file(report_dir.path()));
    assert!(files.iter().any(|(p, _)| p.ends_with("report.json")));
    for (path, text) in files
        .iter()
        .map(|(p, t)| (p.display().to_string(), t.as_str()))
        .chain([
            ("stdout".to_owned(), text.as_str()),
            ("stderr".to_owned(), &*stderr(&out)),
        ])
    {
        for secret in [KEY, TOKEN, digest.as_str()] {
            assert!(!text.contains(secret), "`{secret}` in {path}:\n{text}");
        }
    }
    // The key still holds the value: replayed with it, the output is kept; with another, not.
    let replayed = run(&[("GOLDGATE_CACHE", "replay")]);
    assert_eq!(verdict_of(&stdout(&replayed), "a"), "test a ... ok");
    let other = run(&[
        ("GOLDGATE_CACHE", "replay"),
        ("OPENAI_API_KEY", "sk-other-key"),
    ]);
    assert!(
        stdout(&other)
            .contains("(the value of a variable `run.env` names changed (`OPENAI_API_KEY`))"),
        "{}",
        stdout(&other)
    );
}

/// `--config=conf.json` named a file inside an `=` argument: it was no part of the key, and a
/// changed configuration reused the old output (0 calls, the run passed). Every word of an
/// argument that names a file is keyed: after `=`, and after a short option (`-ostyle.txt`).
#[test]
fn a_file_named_inside_an_argument_is_keyed() {
    let script = "printf '{\"ok\": true, \"fields\": {\"total\": \"%s%s\"}}\\n' \"$(cat conf.json)\" \"$(cat style.txt)\"\n";
    let dir = project("", script, &[]);
    write_files(
        dir.path(),
        &[
            (
                "cases/suite.yaml",
                "run:\n  command: [sh, extract.sh, \"{document}\", --config=conf.json, -ostyle.txt]\nprediction_format:\n  fields: fields\n  ok: { ok: true }\n",
            ),
            ("cases/conf.json", "10"),
            ("cases/style.txt", "a"),
            ("cases/docs/a.txt", ""),
            (
                "cases/a.yaml",
                "document: docs/a.txt\ngold:\n  total: \"10a\"\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    let first = goldgate(dir.path(), &["test", "cases"]);
    assert!(first.status.success(), "{}", stdout(&first));
    for (file, text) in [("conf.json", "99"), ("style.txt", "b")] {
        std::fs::write(dir.path().join("cases").join(file), text).unwrap();
        let out = goldgate(dir.path(), &["test", "cases"]);
        let shown = stdout(&out);
        assert_eq!(out.status.code(), Some(101), "{file}: {shown}");
        assert!(shown.contains("calls: 1 made"), "{file}: {shown}");
    }
}

/// `run.call_errors: skip` with a pipeline whose every call fails: every case ignored, nothing
/// scored, and the run passed. It fails, saying which pipeline, how many, the first error and the
/// fix; a pipeline with one case scored still passes.
#[test]
fn a_skip_that_leaves_nothing_scored_fails_the_run() {
    let script = "case \"$2\" in down) echo \"the model is down\" >&2; exit 3;; esac\ncase \"$(cat \"$1\")\" in fail*) exit 3;; esac\nprintf '{\"ok\": true, \"fields\": {\"total\": \"%s\"}}\\n' \"$(cat \"$1\")\"\n";
    let dir = project("", script, &[("a", "1"), ("b", "fail")]);
    let suite = |pipelines: &str| {
        format!(
            "run:\n  command: [sh, extract.sh, \"{{document}}\", \"{{pipeline}}\"]\n  call_errors: skip\npipelines: [{pipelines}]\nprediction_format:\n  fields: fields\n  ok: {{ ok: true }}\ndefaults:\n  thresholds: {{ min_exact_match: 1.0 }}\n"
        )
    };
    write_files(dir.path(), &[("cases/suite.yaml", &suite("up"))]);
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    write_files(dir.path(), &[("cases/suite.yaml", &suite("up, down"))]);
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    assert_eq!(verdict_of(&stdout(&out), "a::up"), "test a::up ... ok");
    assert!(
        stderr(&out).contains("error: nothing of the pipeline `down` of `cases` was scored: all 2 calls failed and `run.call_errors: skip` left their cases out, so the run checked nothing of it; the first, `a::down`: cases/suite.yaml:2:3: run.command: `sh extract.sh docs/a.txt down` failed (exit status: 3), as applied to `cases/a.yaml` (fix the pipeline's calls and run again; `run.call_errors: fail` shows each case's error)"),
        "{}",
        stderr(&out)
    );
}

/// A suite's `target_error` decides the run's advice on automatic acceptance, yet the gold
/// digest left it out: two runs under different bounds read as comparable. It is in the digest;
/// the default writes nothing, so a suite that does not set it keeps its digest.
#[test]
fn target_error_is_in_the_gold_digest() {
    let digest = |suite: &str| {
        let dir = tempfile::tempdir().unwrap();
        write_files(
            dir.path(),
            &[
                ("cases/suite.yaml", suite),
                (
                    "cases/a.yaml",
                    "prediction: {total: \"1\"}\ngold: {total: \"1\"}\nthresholds: { min_exact_match: 1.0 }\n",
                ),
            ],
        );
        let (out, report) = goldgate_report(dir.path(), &["test", "cases"]);
        assert!(out.status.success(), "{}", stdout(&out));
        support::case(&report, "a")["gold_digest"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let unset = digest("defaults: {}\n");
    assert_eq!(digest("target_error: 0.01\n"), unset);
    let five = digest("target_error: 0.05\n");
    assert_ne!(five, unset);
    assert_ne!(digest("target_error: 0.1\n"), five);
}

/// The same run split over processes (one test each, as nextest runs them): no process holds the
/// whole suite, so the run's end step finds that nothing was scored, and fails saying so.
#[test]
fn a_split_run_whose_skips_scored_nothing_fails_at_its_end() {
    let script = "exit 3\n";
    let dir = project("  call_errors: skip\n", script, &[("a", "1"), ("b", "2")]);
    let id = format!("skips-{}", std::process::id());
    for name in ["a", "b"] {
        let out = support::goldgate_with(
            dir.path(),
            &["test", "cases", "--exact", name],
            &[("GOLDGATE_RUN_ID", &id)],
        );
        // One test, ignored: the process cannot tell the suite scored nothing.
        assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    }
    let end = support::goldgate_with(dir.path(), &["report", "--run", &id], &[]);
    assert_eq!(
        end.status.code(),
        Some(101),
        "{}{}",
        stdout(&end),
        stderr(&end)
    );
    assert!(
        stdout(&end).contains("error: nothing of `cases` was scored: all 2 calls failed and `run.call_errors: skip` left their cases out, so the run checked nothing of it; the first, `a`: "),
        "{}",
        stdout(&end)
    );
}

/// A kept output's file is read back within what a command may print, as JSON writes it (129
/// MiB), where a committed entry padded to 385 MiB was read whole (1.25 GB resident): an entry
/// over the bound is no entry, the call made again, and its output kept anew.
#[test]
fn a_cache_entry_over_what_a_command_may_print_is_never_read() {
    use std::io::Write;
    let dir = project("", ECHO, &[("a", "1")]);
    let out = goldgate(dir.path(), &["test", "cases"]);
    assert!(out.status.success(), "{}", stdout(&out));
    let cache = dir.path().join(".goldgate/cache");
    let entry = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.ends_with(".json") && name != "goldgate-cache.json"
        })
        .expect("an entry");
    // The same entry, still JSON, past the bound by trailing white space.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&entry)
        .unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..130 {
        file.write_all(&spaces).unwrap();
    }
    drop(file);
    let again = goldgate(dir.path(), &["test", "cases"]);
    assert!(again.status.success(), "{}", stdout(&again));
    assert!(
        stdout(&again).contains("calls: 1 made, none from the cache"),
        "{}",
        stdout(&again)
    );
    assert!(std::fs::metadata(&entry).unwrap().len() < 1 << 20);
}
