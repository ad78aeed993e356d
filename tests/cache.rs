//! The cache of `run:` outputs (`run.cache`, `GOLDGATE_CACHE`) as a team lives with it: the
//! `goldgate` binary run over a live suite whose command counts its calls, run after run, with
//! its document, script, inputs and variables changed in between, in `refresh` and `replay`, over
//! processes of one run and concurrent runs, and killed at any point.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod support;
use support::{case, stdout, verdict_of, write_files, write_owned};

/// The command: appends `PIPELINE DOCUMENT` to `$COUNTER`, then prints the document's text as
/// the field `total` (a document starting `fail` exits 3, one starting `text` prints no JSON,
/// one starting `notok` says its call failed, `ok: false`). `$SLOW` seconds of sleep first.
/// With `$GATE`, a call after the first two writes its process id to `$GATE.pid` and waits for
/// the file `$GATE` to exist.
const EXTRACT: &str = r#"echo "$2 $1" >> "$COUNTER"
[ -n "$SLOW" ] && sleep "$SLOW"
if [ -n "$GATE" ] && [ "$(wc -l < "$COUNTER")" -gt 2 ]; then
  echo $$ > "$GATE.pid.tmp" && mv "$GATE.pid.tmp" "$GATE.pid"
  while [ ! -e "$GATE" ]; do sleep 0.05; done
fi
text=$(cat "$1")
case "$text" in
  fail*) echo "the model is down" >&2; exit 3;;
  text*) echo "no JSON here";;
  notok*) printf '{"ok": false, "error": "rate limited"}\n';;
  paid*) printf '{"ok": true, "fields": {"total": "%s"}, "latency_ms": 250, "model": "m", "usage": {"input_tokens": 1000, "output_tokens": 100}}\n' "$text";;
  big*) printf '{"ok": true, "fields": {"total": "%s"}, "latency_ms": 250, "pad": "%0500000d"}\n' "$text" 0;;
  *) printf '{"ok": true, "fields": {"total": "%s"}, "latency_ms": 250}\n' "$text";;
esac
"#;

/// A live suite of three cases (`a`, `b`, `c`) and two pipelines, each case's document its gold.
fn project(extra_run: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let suite = format!(
        "run:\n  command: [sh, extract.sh, \"{{document}}\", \"{{pipeline}}\"]\n{extra_run}pipelines: [fast, careful]\nprediction_format:\n  fields: fields\n  latency_ms: latency_ms\n  ok: {{ ok: true }}\ndefaults:\n  thresholds: {{ min_exact_match: 1.0 }}\n"
    );
    let mut files: Vec<(String, String)> = vec![
        ("cases/suite.yaml".into(), suite),
        ("cases/extract.sh".into(), EXTRACT.into()),
        (
            "cases/prompts/system.txt".into(),
            "Extract the total.".into(),
        ),
    ];
    for c in ["a", "b", "c"] {
        files.push((format!("cases/docs/{c}.txt"), format!("1{c}")));
        files.push((
            format!("cases/{c}.yaml"),
            format!("document: docs/{c}.txt\ngold:\n  total: \"1{c}\"\n"),
        ));
    }
    write_owned(dir.path(), &files);
    dir
}

fn counter(dir: &Path) -> PathBuf {
    dir.join("counter.txt")
}

/// `goldgate ARGS` in `dir`, the counter emptied first, with `envs`.
fn command(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Command {
    let mut cmd = support::command(dir, args);
    cmd.env("COUNTER", counter(dir))
        .env_remove("GOLDGATE_CACHE")
        .env_remove("SLOW")
        .env_remove("GATE")
        .envs(envs.iter().copied());
    cmd
}

/// Runs the suite; its output and the calls its command made (`PIPELINE DOCUMENT`), sorted.
fn run(dir: &Path, envs: &[(&str, &str)]) -> (Output, Vec<String>) {
    let _ = std::fs::remove_file(counter(dir));
    let out = command(dir, &["test", "cases"], envs).output().unwrap();
    (out, calls(dir))
}

fn calls(dir: &Path) -> Vec<String> {
    let mut calls: Vec<String> = std::fs::read_to_string(counter(dir))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    calls.sort();
    calls
}

/// `PIPELINE docs/X.txt` for each pipeline and each of `cases`, sorted.
fn each(cases: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = cases
        .iter()
        .flat_map(|c| {
            ["careful", "fast"]
                .iter()
                .map(move |p| format!("{p} docs/{c}.txt"))
        })
        .collect();
    all.sort();
    all
}

/// The line the end of a run says its calls in.
fn calls_line(out: &Output) -> String {
    stdout(out)
        .lines()
        .find(|l| l.starts_with("calls: "))
        .unwrap_or_else(|| panic!("no calls line:\n{}", stdout(out)))
        .to_owned()
}

fn cache_folder(dir: &Path) -> PathBuf {
    dir.join("cases/.goldgate/cache")
}

/// The kept outputs: the entries of the cache folder.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(cache_folder(dir))
        .map(|list| {
            list.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    name.ends_with(".json")
                        && name != "goldgate-cache.json"
                        && !name.starts_with('.')
                })
                .collect()
        })
        .unwrap_or_default();
    all.sort();
    all
}

/// The second run of an unchanged suite calls nothing: every output comes from the cache, the
/// verdicts are the same, and the end of the run says what the kept calls took.
#[test]
fn a_second_run_makes_no_call() {
    let dir = project("");
    let (first, calls) = run(dir.path(), &[]);
    assert!(first.status.success(), "{}", stdout(&first));
    assert_eq!(calls, each(&["a", "b", "c"]));
    assert_eq!(calls_line(&first), "calls: 6 made, none from the cache");
    assert_eq!(entries(dir.path()).len(), 6);

    let (second, calls) = run(dir.path(), &[]);
    assert!(second.status.success(), "{}", stdout(&second));
    assert_eq!(calls, Vec::<String>::new());
    // The latency each call reported (250 ms) is what the kept ones took.
    assert_eq!(
        calls_line(&second),
        "calls: 0 made, 6 outputs from the cache (their calls took 1.5 s when they were made)"
    );
    // The report says it too, per test and for the run.
    let report = dir.path().join("report.json");
    let out = command(
        dir.path(),
        &["test", "cases", "--report", report.to_str().unwrap()],
        &[],
    )
    .output()
    .unwrap();
    let report: Value = support::read_report(&report, &out);
    assert_eq!(
        report["summary"]["calls"],
        serde_json::json!({"called": 0, "cached": 6, "retries": 0, "errors": 0, "saved_latency_ms": 1500.0, "saved_cost_usd": 0.0, "spent_cost_usd": 0.0})
    );
    assert_eq!(case(&report, "a::fast")["calls"]["cached"], 1);
    // And the HTML page.
    let html = dir.path().join("page.html");
    command(
        dir.path(),
        &["test", "cases", "--html", html.to_str().unwrap()],
        &[],
    )
    .output()
    .unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<p class=\"calls\" id=\"calls\">calls: 0 made, 6 outputs from the cache (their calls took 1.5 s when they were made)</p>"),
        "{}",
        &page[..page.len().min(4000)]
    );
    // And the step summary of a CI run.
    let summary = dir.path().join("summary.md");
    command(
        dir.path(),
        &["test", "cases"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    )
    .output()
    .unwrap();
    let page = std::fs::read_to_string(&summary).unwrap();
    assert!(
        page.contains("\ncalls: 0 made, 6 outputs from the cache (their calls took 1.5 s when they were made)\n"),
        "{page}"
    );
    assert_eq!(case(&report, "a::fast")["metrics"]["latency_ms"], 250.0);
}

/// A changed document calls its case alone (both pipelines); a changed script, a changed input
/// (`run.inputs`) or a changed variable (`run.env`) calls every case; `refresh` calls all again.
#[test]
fn a_change_calls_what_it_touches_and_only_that() {
    let dir = project("  inputs: [prompts/*.txt]\n  env: [MODEL_NAME]\n");
    let model = [("MODEL_NAME", "model-1")];
    run(dir.path(), &model);
    std::fs::write(dir.path().join("cases/docs/b.txt"), "1b").unwrap();
    assert_eq!(
        run(dir.path(), &model).1,
        Vec::<String>::new(),
        "same bytes, same key"
    );

    std::fs::write(dir.path().join("cases/docs/b.txt"), "2b").unwrap();
    let (out, calls) = run(dir.path(), &model);
    assert_eq!(calls, each(&["b"]));
    // Gold says 1b: the case fails, on the new output.
    assert_eq!(
        verdict_of(&stdout(&out), "b::fast"),
        "test b::fast ... FAILED"
    );
    std::fs::write(dir.path().join("cases/docs/b.txt"), "1b").unwrap();
    assert_eq!(
        run(dir.path(), &model).1,
        Vec::<String>::new(),
        "the old key again"
    );

    let script = dir.path().join("cases/extract.sh");
    std::fs::write(&script, format!("# v2\n{EXTRACT}")).unwrap();
    assert_eq!(
        run(dir.path(), &model).1,
        each(&["a", "b", "c"]),
        "the script"
    );

    std::fs::write(dir.path().join("cases/prompts/system.txt"), "Extract it.").unwrap();
    assert_eq!(
        run(dir.path(), &model).1,
        each(&["a", "b", "c"]),
        "an input"
    );
    std::fs::write(dir.path().join("cases/prompts/extra.txt"), "More.").unwrap();
    assert_eq!(
        run(dir.path(), &model).1,
        each(&["a", "b", "c"]),
        "a new input"
    );

    assert_eq!(
        run(dir.path(), &[("MODEL_NAME", "model-2")]).1,
        each(&["a", "b", "c"]),
        "a variable"
    );
    assert_eq!(
        run(dir.path(), &[("MODEL_NAME", "model-2")]).1,
        Vec::<String>::new()
    );

    let (out, calls) = run(
        dir.path(),
        &[("MODEL_NAME", "model-2"), ("GOLDGATE_CACHE", "refresh")],
    );
    assert_eq!(calls, each(&["a", "b", "c"]), "refresh");
    assert_eq!(calls_line(&out), "calls: 6 made, none from the cache");
    assert_eq!(
        run(dir.path(), &[("MODEL_NAME", "model-2")]).1,
        Vec::<String>::new()
    );
    // A variable's value is a digest in the cache, never its text.
    for entry in walk(&cache_folder(dir.path())) {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("model-2"),
            "{} holds the variable's value",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            all.extend(walk(&p));
        } else {
            all.push(p);
        }
    }
    all
}

/// A call that failed (a non-zero exit, output that is no JSON, `ok: false`) is never kept: the
/// next run calls it again, and the others not.
#[test]
fn a_failed_call_is_never_kept() {
    let dir = project("");
    std::fs::write(dir.path().join("cases/docs/a.txt"), "fail now").unwrap();
    std::fs::write(dir.path().join("cases/docs/b.txt"), "text only").unwrap();
    std::fs::write(dir.path().join("cases/docs/c.txt"), "notok").unwrap();
    let (out, calls) = run(dir.path(), &[]);
    assert_eq!(calls, each(&["a", "b", "c"]));
    assert!(!out.status.success());
    assert_eq!(entries(dir.path()), Vec::<PathBuf>::new());
    let (_, calls) = run(dir.path(), &[]);
    assert_eq!(calls, each(&["a", "b", "c"]));
    // Fixed, it is kept.
    std::fs::write(dir.path().join("cases/docs/a.txt"), "1a").unwrap();
    run(dir.path(), &[]);
    assert_eq!(run(dir.path(), &[]).1, each(&["b", "c"]));
}

/// `replay` calls nothing: kept outputs are used, and a call without one fails its case alone,
/// saying which part of the call changed and how to record it.
#[test]
fn replay_calls_nothing_and_fails_a_miss_saying_why() {
    let dir = project("");
    run(dir.path(), &[]);
    std::fs::write(dir.path().join("cases/docs/b.txt"), "2b").unwrap();
    let (out, calls) = run(dir.path(), &[("GOLDGATE_CACHE", "replay")]);
    assert_eq!(calls, Vec::<String>::new());
    let text = stdout(&out);
    for test in ["a::fast", "a::careful", "c::fast", "c::careful"] {
        assert_eq!(verdict_of(&text, test), format!("test {test} ... ok"));
    }
    assert_eq!(verdict_of(&text, "b::fast"), "test b::fast ... FAILED");
    assert!(
        text.contains("error: cases/suite.yaml:2:3: run.cache: no output of the call for `cases/b.yaml` is kept in `cases/.goldgate/cache` (the document `docs/b.txt` changed), and the cache replays, calling nothing"),
        "{text}"
    );
    assert!(
        text.contains("run it once where the pipeline can be called (`GOLDGATE_CACHE=use goldgate test`, or `cargo goldgate test`) and commit `cases/.goldgate/cache`"),
        "{text}"
    );
    assert_eq!(
        calls_line(&out),
        "calls: 0 made, 4 outputs from the cache (their calls took 1.0 s when they were made)"
    );
    // A call never made before says so.
    write_files(
        dir.path(),
        &[
            ("cases/docs/d.txt", "1d"),
            (
                "cases/d.yaml",
                "document: docs/d.txt\ngold:\n  total: \"1d\"\n",
            ),
        ],
    );
    let (out, _) = run(dir.path(), &[("GOLDGATE_CACHE", "replay")]);
    assert!(
        stdout(&out).contains("no output of the call for `cases/d.yaml` is kept in `cases/.goldgate/cache` (no output of this call was ever kept)"),
        "{}",
        stdout(&out)
    );
    // The suite says it too; the variable wins over the suite.
    let suite = dir.path().join("cases/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.replacen("run:\n", "run:\n  cache: replay\n", 1),
    )
    .unwrap();
    assert_eq!(run(dir.path(), &[]).1, Vec::<String>::new());
    assert_eq!(
        run(dir.path(), &[("GOLDGATE_CACHE", "use")]).1,
        each(&["b", "d"])
    );
    let (out, _) = run(dir.path(), &[("GOLDGATE_CACHE", "sometimes")]);
    assert!(
        support::stderr(&out)
            .contains("GOLDGATE_CACHE=`sometimes` is not one of `use`, `refresh`, `replay`, `off`"),
        "{}",
        support::stderr(&out)
    );
}

/// `off` reads and keeps nothing.
#[test]
fn off_calls_every_time_and_keeps_nothing() {
    let dir = project("  cache: off\n");
    assert_eq!(run(dir.path(), &[]).1, each(&["a", "b", "c"]));
    assert_eq!(run(dir.path(), &[]).1, each(&["a", "b", "c"]));
    assert!(!cache_folder(dir.path()).exists());
}

/// The processes of one run (nextest's way: `--exact NAME` each, one run id) share the cache:
/// each call is made once, and a later run in one process makes none.
#[test]
fn split_processes_share_the_cache() {
    let dir = project("");
    let list = command(
        dir.path(),
        &["test", "cases", "--list", "--format", "terse"],
        &[],
    )
    .output()
    .unwrap();
    let names: Vec<String> = stdout(&list)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .filter(|n| !n.contains("::aggregate"))
        .map(str::to_owned)
        .collect();
    assert_eq!(names.len(), 6, "{}", stdout(&list));
    let _ = std::fs::remove_file(counter(dir.path()));
    std::thread::scope(|s| {
        for chunk in names.chunks(3) {
            let dir = dir.path();
            s.spawn(move || {
                for name in chunk {
                    let out = command(
                        dir,
                        &["test", "cases", "--exact", name],
                        &[("GOLDGATE_RUN_ID", "split-run")],
                    )
                    .output()
                    .unwrap();
                    assert!(out.status.success(), "{name}: {}", stdout(&out));
                }
            });
        }
    });
    assert_eq!(calls(dir.path()), each(&["a", "b", "c"]));
    assert_eq!(run(dir.path(), &[]).1, Vec::<String>::new());
}

/// 32 runs at once of one case, each a run of its own (no run id: only the cache is shared),
/// make its call once: the others wait for the first one's output and read it.
#[test]
fn thirty_two_concurrent_runs_make_one_call() {
    let dir = project("");
    let children: Vec<std::process::Child> = (0..32)
        .map(|_| {
            command(
                dir.path(),
                &["test", "cases", "--exact", "a::fast"],
                &[("SLOW", "0.3")],
            )
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stdout(&out));
    }
    assert_eq!(calls(dir.path()), ["fast docs/a.txt"]);
}

/// A run killed (`kill -9`) at any point leaves the cache readable: every entry in it is whole,
/// none torn is ever read as a kept output, and the next run gives the right verdicts.
#[test]
fn a_run_killed_at_any_point_leaves_the_cache_readable() {
    let dir = project("");
    for c in ["a", "b", "c"] {
        std::fs::write(
            dir.path().join(format!("cases/docs/{c}.txt")),
            format!("big {c}"),
        )
        .unwrap();
        std::fs::write(
            dir.path().join(format!("cases/{c}.yaml")),
            format!("document: docs/{c}.txt\ngold:\n  total: \"big {c}\"\n"),
        )
        .unwrap();
    }
    for step in 0..12u64 {
        let mut child = command(dir.path(), &["test", "cases"], &[])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(15 * step));
        let _ = child.kill();
        let _ = child.wait();
        for entry in entries(dir.path()) {
            let json: Value = serde_json::from_slice(&std::fs::read(&entry).unwrap())
                .unwrap_or_else(|e| panic!("{} is torn: {e}", entry.display()));
            assert_eq!(json["goldgate_cache"], 1, "{}", entry.display());
        }
    }
    let (out, _) = run(dir.path(), &[]);
    assert!(out.status.success(), "{}", stdout(&out));
    let (out, calls) = run(dir.path(), &[("GOLDGATE_CACHE", "replay")]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(calls, Vec::<String>::new());
}

/// A suite that runs each case 3 times keeps three outputs per case and pipeline, and a second
/// run reads all of them.
#[test]
fn a_repeated_case_keeps_every_attempt() {
    let dir = project("  repeat: 3\npass: majority\n");
    let (out, calls) = run(dir.path(), &[]);
    assert!(out.status.success(), "{}", stdout(&out));
    let thrice: Vec<String> = each(&["a", "b", "c"])
        .into_iter()
        .flat_map(|c| [c.clone(), c.clone(), c])
        .collect();
    assert_eq!(calls, thrice);
    assert_eq!(entries(dir.path()).len(), 18);
    assert_eq!(calls_line(&out), "calls: 18 made, none from the cache");
    let (out, calls) = run(dir.path(), &[]);
    assert_eq!(calls, Vec::<String>::new());
    assert_eq!(
        calls_line(&out),
        "calls: 0 made, 18 outputs from the cache (their calls took 4.5 s when they were made)"
    );
}

/// `goldgate cache prune` removes the outputs no run used for a while, then the least recently
/// used beyond a size; `goldgate cache clear` removes every one, and the next run calls again.
#[test]
fn prune_and_clear_remove_kept_outputs() {
    let dir = project("");
    run(dir.path(), &[]);
    assert_eq!(entries(dir.path()).len(), 6);
    let tidy = |args: &[&str]| {
        let out = command(dir.path(), args, &[]).output().unwrap();
        assert!(out.status.success(), "{}", support::stderr(&out));
        stdout(&out)
    };
    // An output last used 40 days ago goes; the others stay.
    let old = entries(dir.path())[0].clone();
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(40 * 24 * 3600);
    std::fs::File::options()
        .append(true)
        .open(&old)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let said = tidy(&["cache", "prune", "cases"]);
    assert!(
        said.starts_with("cache `cases/.goldgate/cache`: 1 of 6 outputs removed, 5 kept ("),
        "{said}"
    );
    assert!(!old.exists());
    assert_eq!(
        run(dir.path(), &[]).1.len(),
        1,
        "the pruned one is called again"
    );
    // A size of 0 MB keeps nothing.
    let said = tidy(&["cache", "prune", "cases", "--max-mb", "0"]);
    assert!(
        said.starts_with("cache `cases/.goldgate/cache`: 6 of 6 outputs removed, 0 kept"),
        "{said}"
    );
    run(dir.path(), &[]);
    let said = tidy(&["cache", "clear", "cases"]);
    assert_eq!(
        said,
        "cache `cases/.goldgate/cache`: 6 of 6 outputs removed, 0 kept (0 B)\n"
    );
    assert_eq!(run(dir.path(), &[]).1, each(&["a", "b", "c"]));
    let (out, _) = run(dir.path(), &[("GOLDGATE_CACHE", "replay")]);
    assert!(out.status.success());
    let nothing = tidy(&["cache", "clear", "docs-elsewhere"]);
    assert!(
        nothing.starts_with("no cache folder under `docs-elsewhere`"),
        "{nothing}"
    );
}

/// `run.retries` calls again after a non-zero exit, a timeout or output that is not JSON, saying
/// each retry; a call that still fails is a call error (JUnit's `<error>`, not `<failure>`),
/// counted apart, and `call_errors: skip` leaves its case out of the means instead of failing it.
#[test]
fn retries_then_call_errors_counted_apart() {
    // `flaky` documents fail their first call (a marker file remembers it), `fail` ones always.
    let flaky = r#"marker="$1.$2.called"
if [ ! -e "$marker" ]; then : > "$marker"; echo "429 too many requests" >&2; exit 1; fi
"#;
    let dir = project("  retries: { max: 2, backoff_s: 0 }\n");
    std::fs::write(
        dir.path().join("cases/extract.sh"),
        format!("echo \"$2 $1\" >> \"$COUNTER\"\ncase \"$(cat \"$1\")\" in flaky*) {{ {flaky} }};; esac\n{}", EXTRACT.lines().skip(1).collect::<Vec<_>>().join("\n")),
    )
    .unwrap();
    std::fs::write(dir.path().join("cases/docs/a.txt"), "flaky").unwrap();
    std::fs::write(
        dir.path().join("cases/a.yaml"),
        "document: docs/a.txt\ngold:\n  total: flaky\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("cases/docs/b.txt"), "fail").unwrap();
    let junit = dir.path().join("junit.xml");
    let (out, calls) = run(dir.path(), &[("GOLDGATE_JUNIT", junit.to_str().unwrap())]);
    let text = stdout(&out);
    // a: called twice per pipeline (its retry passed); b: three times (2 retries, then an error).
    let mut want: Vec<String> = each(&["a", "a", "b", "b", "b", "c"]);
    want.sort();
    assert_eq!(calls, want, "{text}");
    assert_eq!(verdict_of(&text, "a::fast"), "test a::fast ... ok");
    assert_eq!(verdict_of(&text, "b::fast"), "test b::fast ... FAILED");
    assert!(
        support::stderr(&out).contains("retry 1 of 2 for `cases/a.yaml` in 0.0 s: "),
        "{}",
        support::stderr(&out)
    );
    assert!(text.contains("(the last of 3 calls; before it: "), "{text}");
    assert_eq!(
        calls_line(&out),
        "calls: 12 made (6 retries, 2 call errors: failed after their retries), none from the cache"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    let b = &xml[xml.find("name=\"b::fast\"").unwrap()..];
    let b = &b[..b.find("</testcase>").unwrap()];
    assert!(b.contains("<error "), "{b}");
    assert!(!b.contains("<failure"), "{b}");
    let a = &xml[xml.find("name=\"c::fast\"").unwrap()..];
    assert!(!a[..a.find("</testcase>").unwrap_or(a.len())].contains("<error"));

    // Skipped instead: ignored with the reason, left out of the run's means.
    let suite = dir.path().join("cases/suite.yaml");
    let yaml = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        yaml.replacen("run:\n", "run:\n  call_errors: skip\n", 1),
    )
    .unwrap();
    let report = dir.path().join("report.json");
    let out = command(
        dir.path(),
        &["test", "cases", "--report", report.to_str().unwrap()],
        &[],
    )
    .output()
    .unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        verdict_of(&text, "b::fast")
            .starts_with("test b::fast ... ignored (call error, skipped (run.call_errors: skip): "),
        "{text}"
    );
    let report = support::read_report(&report, &out);
    assert_eq!(report["summary"]["ignored"], 2);
    assert_eq!(report["summary"]["exact_match"], 1.0);
    assert_eq!(case(&report, "b::fast")["error"]["kind"], "call");
}

/// Every call is paid for: a case run 3 times costs its 3 calls (the attempt shown keeps its own
/// figure), the run's end says what the calls made cost, and a second run, calling nothing,
/// says what the kept ones had cost.
#[test]
fn every_call_counts_in_the_spend() {
    let dir = project(
        "  repeat: 3\npass: majority\npricing:\n  m: { input_per_mtok: 1.0, output_per_mtok: 10.0 }\n",
    );
    let suite = dir.path().join("cases/suite.yaml");
    let yaml = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        yaml.replace(
            "  latency_ms: latency_ms\n",
            "  latency_ms: latency_ms\n  usage: usage\n  model: model\n",
        ),
    )
    .unwrap();
    for c in ["a", "b", "c"] {
        std::fs::write(
            dir.path().join(format!("cases/docs/{c}.txt")),
            format!("paid {c}"),
        )
        .unwrap();
        std::fs::write(
            dir.path().join(format!("cases/{c}.yaml")),
            format!("document: docs/{c}.txt\ngold:\n  total: paid {c}\n"),
        )
        .unwrap();
    }
    // 1,000 tokens in at $1 and 100 out at $10 a million: $0.002 a call.
    let report = dir.path().join("report.json");
    let out = command(
        dir.path(),
        &["test", "cases", "--report", report.to_str().unwrap()],
        &[],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(
        calls_line(&out),
        "calls: 18 made for $0.0360, none from the cache"
    );
    let report = support::read_report(&report, &out);
    let a = case(&report, "a::fast");
    assert!(
        (a["metrics"]["cost_usd"].as_f64().unwrap() - 0.006).abs() < 1e-12,
        "{a}"
    );
    for attempt in a["repeat"]["each"].as_array().unwrap() {
        assert!(
            (attempt["metrics"]["cost_usd"].as_f64().unwrap() - 0.002).abs() < 1e-12,
            "{attempt}"
        );
    }
    let (out, calls) = run(dir.path(), &[]);
    assert_eq!(calls, Vec::<String>::new());
    assert_eq!(
        calls_line(&out),
        "calls: 0 made, 18 outputs from the cache (their calls took 4.5 s and $0.0360 when they were made)"
    );
}

/// The most calls the log of `timed.sh` shows running at once.
fn most_at_once(log: &Path) -> usize {
    let mut events: Vec<(u128, i32)> = std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|l| {
            let (what, at) = l.split_once(' ').unwrap();
            (
                at.trim().parse::<u128>().unwrap(),
                if what == "start" { 1 } else { -1 },
            )
        })
        .collect();
    // An end before a start at the same instant: touching calls do not overlap.
    events.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, step) in events {
        now += step;
        most = most.max(now);
    }
    most as usize
}

/// A live suite of `n` cases whose command sleeps 0.4 s, logging when each call starts and ends.
fn timed(n: usize, run: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![
        (
            "cases/suite.yaml".to_owned(),
            format!("run:\n  command: [sh, timed.sh, \"{{document}}\"]\n  cache: off\n{run}defaults:\n  thresholds: {{ min_exact_match: 1.0 }}\n"),
        ),
        (
            "cases/timed.sh".to_owned(),
            "echo \"start $(date +%s%N)\" >> \"$LOG\"\nsleep 0.4\necho \"end $(date +%s%N)\" >> \"$LOG\"\nprintf '{\"fields\": {\"total\": \"%s\"}}\\n' \"$(cat \"$1\")\"\n".to_owned(),
        ),
    ];
    for i in 0..n {
        files.push((format!("cases/docs/{i}.txt"), format!("t{i}")));
        files.push((
            format!("cases/c{i}.yaml"),
            format!("document: docs/{i}.txt\ngold:\n  total: t{i}\n"),
        ));
    }
    write_owned(dir.path(), &files);
    dir
}

/// `run.concurrency` is how many calls run at once, whatever the cores or `--test-threads`: 6
/// cases of a suite that allows 6 run their calls together on a machine of fewer cores; a suite
/// that allows 1 runs them one by one on 4 test threads; a case run 4 times on one test thread
/// runs its attempts at once.
#[test]
fn calls_run_as_many_at_once_as_the_suite_says() {
    let measure = |dir: &Path, args: &[&str]| {
        let log = dir.join("log.txt");
        let mut all = vec!["test", "cases"];
        all.extend_from_slice(args);
        let out = command(dir, &all, &[("LOG", log.to_str().unwrap())])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stdout(&out));
        most_at_once(&log)
    };
    let wide = timed(6, "  concurrency: 6\n");
    let at_once = measure(wide.path(), &[]);
    assert!(at_once > 2, "{at_once} calls at once of 6 allowed");
    let narrow = timed(4, "  concurrency: 1\n");
    assert_eq!(measure(narrow.path(), &["--test-threads", "4"]), 1);
    let repeated = timed(1, "  concurrency: 4\n  repeat: 4\npass: all\n");
    let attempts = measure(repeated.path(), &["--test-threads", "1"]);
    assert!(attempts > 1, "the 4 attempts ran {attempts} at once");
}

/// A run killed part-way, run again, calls only the cases it had not finished: what it finished
/// is kept.
#[test]
fn a_killed_run_resumes_where_it_stopped() {
    let dir = project("");
    let gate = dir.path().join("gate");
    let mut child = command(
        dir.path(),
        &["test", "cases", "--test-threads", "1"],
        &[("GATE", gate.to_str().unwrap())],
    )
    .stdout(std::process::Stdio::null())
    .spawn()
    .unwrap();
    // The third call holds the run until the gate opens: two outputs are kept, whatever the
    // machine's speed. It says so by writing its process id.
    let pid_file = gate.with_extension("pid");
    while !pid_file.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before its third call");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The call runs in a process group of its own, which outlives the run: ended before the
    // next run starts, so that it writes nothing into it. The gate opens too, should a process
    // of it have escaped the kill.
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: kill(2) with a negative pid signals the group the call leads; no memory is touched.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    std::fs::write(&gate, "").unwrap();
    let kept = entries(dir.path()).len();
    assert_eq!(kept, 2, "{kept} outputs kept");
    let (out, calls) = run(dir.path(), &[]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert!(
        calls_line(&out).starts_with("calls: 4 made, 2 outputs from the cache ("),
        "{}",
        calls_line(&out)
    );
}

/// In a project (a folder with `.git` or `Cargo.toml`), every suite keeps its outputs in one
/// folder at its root, `.goldgate/cache`; two suites' cases of one name are two calls there.
#[test]
fn a_project_keeps_one_cache_at_its_root() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let suite = "run:\n  command: [sh, ../extract.sh, \"{document}\", one]\nprediction_format:\n  fields: fields\n  latency_ms: latency_ms\n  ok: { ok: true }\ndefaults:\n  thresholds: { min_exact_match: 1.0 }\n";
    let mut files: Vec<(String, String)> = vec![("cases/extract.sh".into(), EXTRACT.into())];
    for s in ["x", "y"] {
        files.push((format!("cases/{s}/suite.yaml"), suite.into()));
        files.push((format!("cases/{s}/docs/a.txt"), format!("{s}1")));
        files.push((
            format!("cases/{s}/a.yaml"),
            format!("document: docs/a.txt\ngold:\n  total: \"{s}1\"\n"),
        ));
    }
    write_owned(dir.path(), &files);
    let (out, calls) = run(dir.path(), &[]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(calls, ["one docs/a.txt", "one docs/a.txt"]);
    let root = dir.path().join(".goldgate/cache");
    assert!(root.join("goldgate-cache.json").is_file());
    assert!(!dir.path().join("cases/x/.goldgate").exists());
    assert_eq!(run(dir.path(), &[]).1, Vec::<String>::new());
    std::fs::write(dir.path().join("cases/y/docs/a.txt"), "y1").unwrap();
    assert_eq!(run(dir.path(), &[]).1, Vec::<String>::new());
    std::fs::write(dir.path().join("cases/y/docs/a.txt"), "y2").unwrap();
    let (out, calls) = run(dir.path(), &[("GOLDGATE_CACHE", "replay")]);
    assert_eq!(calls, Vec::<String>::new());
    let text = stdout(&out);
    assert_eq!(verdict_of(&text, "x/a"), "test x/a ... ok");
    assert!(
        text.contains("no output of the call for `cases/y/a.yaml` is kept in `.goldgate/cache` (the document `docs/a.txt` changed)"),
        "{text}"
    );
}
