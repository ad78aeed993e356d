//! The GitHub Action (`action.yml` at the repository's root), run as a runner would run it, minus
//! GitHub: its `run:` steps are executed with bash (as a runner does, `bash --noprofile --norc -eo
//! pipefail FILE`) in a temporary workspace, with `${{ … }}` replaced from the inputs, `github`,
//! `runner` and the steps' outputs, and fake `curl` and `gh` on the `PATH` that record their
//! arguments and serve a release archive, the base branch's artifact and the pull request's
//! comments from a folder. Its `uses:` steps (the cache, the upload) are checked, not run: the
//! files they are given must exist. No local runner of composite actions installs from the
//! registries this project reaches (`act` needs Docker).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

mod support;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `action.yml`, read as JSON with YAML's types.
fn action() -> Value {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

/// The `gh` a runner has, faked: each call is appended to `$FAKE_GH/calls.jsonl` as a JSON array
/// of its arguments; `run list` prints `runs.json` through the `--jq` filter, `run download` copies
/// `artifacts/RUN/NAME/`, and `api` reads and writes `comments.json` (a filter is applied with jq,
/// as gh applies its own).
const FAKE_GH: &str = r#"#!/usr/bin/env bash
set -euo pipefail
state="$FAKE_GH"
jq -cn '$ARGS.positional' --args -- "$@" >> "$state/calls.jsonl"
flag() { local name="$1"; shift; while [ $# -gt 0 ]; do if [ "$1" = "$name" ]; then echo "$2"; return; fi; shift; done; }
filter="$(flag --jq "$@")"
case "$1 ${2:-}" in
  "run list")
    jq -r "${filter:-.}" "$state/runs.json" ;;
  "run download")
    src="$state/artifacts/$3/$(flag --name "$@")"
    [ -d "$src" ] || { echo "no valid artifacts found to download" >&2; exit 1; }
    mkdir -p "$(flag --dir "$@")" && cp -r "$src/." "$(flag --dir "$@")/" ;;
  api*)
    method="$(flag --method "$@")"; method="${method:-GET}"
    path=""; for a in "${@:2}"; do case "$a" in repos/*) path="$a" ;; esac; done
    body="$(flag -F "$@")"; body="${body#body=@}"
    [ -f "$state/comments.json" ] || echo '[]' > "$state/comments.json"
    case "$method $path" in
      "GET repos/"*/issues/*/comments)
        jq -r "${filter:-.}" "$state/comments.json" ;;
      "POST repos/"*/issues/*/comments)
        id=$((1000 + $(jq length "$state/comments.json")))
        jq --rawfile b "$body" --argjson id "$id" '. + [{id: $id, body: $b}]' "$state/comments.json" > "$state/c" \
          && mv "$state/c" "$state/comments.json" ;;
      "PATCH repos/"*/issues/comments/*)
        jq --rawfile b "$body" --argjson id "${path##*/}" 'map(if .id == $id then .body = $b else . end)' \
          "$state/comments.json" > "$state/c" && mv "$state/c" "$state/comments.json" ;;
      *) echo "fake gh: no such call: $*" >&2; exit 2 ;;
    esac ;;
  *) echo "fake gh: no such call: $*" >&2; exit 2 ;;
esac
"#;

/// `curl`, faked: records its arguments in `$FAKE_CURL/calls.jsonl`, and writes the file of
/// `$FAKE_CURL/releases/` named as the URL ends to its `-o` path, else fails as curl `--fail` does.
const FAKE_CURL: &str = r#"#!/usr/bin/env bash
set -euo pipefail
jq -cn '$ARGS.positional' --args -- "$@" >> "$FAKE_CURL/calls.jsonl"
out=""; url=""
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift 2 ;; -*) shift ;; *) url="$1"; shift ;; esac; done
file="$FAKE_CURL/releases/${url##*/}"
[ -f "$file" ] || { echo "curl: (22) The requested URL returned error: 404" >&2; exit 22; }
cp "$file" "$out"
"#;

/// Where the runner checked the action out (`uses: acme/goldgate@v0`), as GitHub names the folder:
/// the install step reads the action's repository from it.
const ACTION_PATH: &str = "_work/_actions/acme/goldgate/v0";

/// A place for one job: the repository's checkout, the runner's folders and the fakes' state.
struct Runner {
    dir: tempfile::TempDir,
    /// What `github.*` and `runner.*` read.
    github: Value,
    runner: Value,
}

/// What one run of the action did.
#[derive(Debug)]
struct Run {
    /// Each step's name and exit code (`None`: skipped).
    steps: Vec<(String, Option<i32>)>,
    /// The `uses:` steps run, with their `with:` resolved.
    uses: Vec<(String, BTreeMap<String, String>)>,
    /// The outputs the gate step wrote.
    gate: BTreeMap<String, String>,
    /// Standard output and error of every step, for a failure's message.
    log: String,
}

impl Run {
    fn exit_of(&self, step: &str) -> Option<i32> {
        self.steps
            .iter()
            .find(|(name, _)| name == step)
            .unwrap_or_else(|| panic!("no step `{step}`: {:?}", self.steps))
            .1
    }
}

impl Runner {
    fn new(event: &str) -> Runner {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        for folder in [
            "workspace",
            "temp",
            "tool-cache",
            "fake-bin",
            "gh",
            "curl/releases",
            ACTION_PATH,
        ] {
            std::fs::create_dir_all(p.join(folder)).unwrap();
        }
        for (name, script) in [("gh", FAKE_GH), ("curl", FAKE_CURL)] {
            let path = p.join("fake-bin").join(name);
            std::fs::write(&path, script).unwrap();
            make_executable(&path);
        }
        std::fs::write(p.join("gh/runs.json"), "[]").unwrap();
        let github = json!({
            "event_name": event,
            "event": if event == "pull_request" {
                json!({"pull_request": {"number": 7}})
            } else {
                json!({})
            },
            "base_ref": if event == "pull_request" { "main" } else { "" },
            "repository": "acme/extractor",
            "workflow_ref": "acme/extractor/.github/workflows/gold.yml@refs/pull/7/merge",
            "server_url": "https://github.com",
            "run_id": "4242",
            "token": "fake-token",
            "action_repository": "",
        });
        let runner = json!({
            "os": "Linux",
            "arch": "X64",
            "temp": p.join("temp"),
            "tool_cache": p.join("tool-cache"),
        });
        Runner {
            dir,
            github,
            runner,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The release archive `curl` serves: the binaries this test target was built with, as links
    /// (a debug build weighs 200 MB, which gzip would take seconds over).
    fn publish_release(&self, version: &str, target: &str) {
        let staging = self.path("staging");
        std::fs::create_dir_all(&staging).unwrap();
        for (name, exe) in [
            ("goldgate", env!("CARGO_BIN_EXE_goldgate")),
            ("cargo-goldgate", env!("CARGO_BIN_EXE_cargo-goldgate")),
        ] {
            std::os::unix::fs::symlink(exe, staging.join(name)).unwrap();
        }
        let archive = self
            .path("curl/releases")
            .join(format!("goldgate-{version}-{target}.tar.gz"));
        let tar = Command::new("tar")
            .arg("-czf")
            .arg(&archive)
            .arg("-C")
            .arg(&staging)
            .args(["goldgate", "cargo-goldgate"])
            .output()
            .unwrap();
        assert!(tar.status.success(), "{tar:?}");
    }

    /// The calls a fake made, each a list of arguments.
    fn calls(&self, fake: &str) -> Vec<Vec<String>> {
        let text =
            std::fs::read_to_string(self.path(&format!("{fake}/calls.jsonl"))).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn comments(&self) -> Vec<Value> {
        let text =
            std::fs::read_to_string(self.path("gh/comments.json")).unwrap_or_else(|_| "[]".into());
        serde_json::from_str::<Value>(&text)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    /// Runs the action's steps with `with` as its inputs, in order, as a runner would.
    fn run(&self, with: &[(&str, &str)]) -> Run {
        let action = action();
        let mut inputs = serde_json::Map::new();
        for (name, spec) in action["inputs"].as_object().unwrap() {
            let default = spec["default"].as_str().unwrap_or_default();
            inputs.insert(name.clone(), Value::String(default.to_owned()));
        }
        for (name, value) in with {
            assert!(
                inputs.contains_key(*name),
                "action.yml has no input `{name}`"
            );
            inputs.insert((*name).to_owned(), Value::String((*value).to_owned()));
        }
        let mut context = json!({
            "inputs": inputs,
            "github": self.github,
            "runner": self.runner,
            "steps": {},
        });
        // `${{ github.token }}`, a default, reads the context too.
        let token = substitute(
            context["inputs"]["github-token"].as_str().unwrap(),
            &context,
        );
        context["inputs"]["github-token"] = Value::String(token);

        let mut run = Run {
            steps: Vec::new(),
            uses: Vec::new(),
            gate: BTreeMap::new(),
            log: String::new(),
        };
        let mut failed = false;
        let mut extra_path: Vec<String> = Vec::new();
        for (i, step) in action["runs"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            let name = step["name"].as_str().unwrap().to_owned();
            let wanted = step["if"]
                .as_str()
                .map_or(!failed, |c| condition(c, &context, failed));
            if !wanted {
                run.steps.push((name, None));
                continue;
            }
            if let Some(uses) = step["uses"].as_str() {
                let with: BTreeMap<String, String> = step["with"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| (k.clone(), substitute(&scalar(v), &context)))
                            .collect()
                    })
                    .unwrap_or_default();
                run.uses.push((uses.to_owned(), with));
                run.steps.push((name, Some(0)));
                continue;
            }
            let script = self.path(&format!("temp/step-{i}.sh"));
            std::fs::write(&script, step["run"].as_str().unwrap()).unwrap();
            let output_file = self.path(&format!("temp/output-{i}"));
            let path_file = self.path(&format!("temp/path-{i}"));
            std::fs::write(&output_file, "").unwrap();
            std::fs::write(&path_file, "").unwrap();
            let workdir = step["working-directory"]
                .as_str()
                .map_or(".".to_owned(), |w| substitute(w, &context));
            let mut path = vec![self.path("fake-bin").display().to_string()];
            path.extend(extra_path.iter().rev().cloned());
            path.push(std::env::var("PATH").unwrap_or_default());
            let mut cmd = Command::new("bash");
            cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
                .arg(&script)
                .current_dir(self.path("workspace").join(workdir))
                .env("PATH", path.join(":"))
                .env("GITHUB_OUTPUT", &output_file)
                .env("GITHUB_PATH", &path_file)
                .env("GITHUB_ACTIONS", "true")
                .env("GITHUB_WORKSPACE", self.path("workspace"))
                .env("GITHUB_STEP_SUMMARY", self.path("temp/summary.md"))
                .env("GITHUB_ACTION_PATH", self.path(ACTION_PATH))
                .env("RUNNER_TEMP", self.path("temp"))
                .env("FAKE_GH", self.path("gh"))
                .env("FAKE_CURL", self.path("curl"))
                .env("NO_COLOR", "1");
            support::clear_run_settings(&mut cmd);
            cmd.env("GITHUB_ACTIONS", "true")
                .env("GITHUB_STEP_SUMMARY", self.path("temp/summary.md"));
            for (key, value) in step["env"].as_object().into_iter().flatten() {
                cmd.env(key, substitute(&scalar(value), &context));
            }
            let out = cmd.output().unwrap();
            let code = out.status.code().unwrap_or(-1);
            run.log += &format!(
                "--- {name} (exit {code})\n{}{}",
                support::stdout(&out),
                support::stderr(&out)
            );
            run.steps.push((name, Some(code)));
            failed |= code != 0;
            extra_path.extend(
                std::fs::read_to_string(&path_file)
                    .unwrap()
                    .lines()
                    .map(str::to_owned),
            );
            let outputs: serde_json::Map<String, Value> = std::fs::read_to_string(&output_file)
                .unwrap()
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_owned(), Value::String(v.to_owned())))
                .collect();
            if let Some(id) = step["id"].as_str() {
                if id == "gate" {
                    run.gate = outputs
                        .iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                        .collect();
                }
                context["steps"][id] = json!({ "outputs": outputs });
            }
        }
        run
    }
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A YAML scalar as the text GitHub would read.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The value of `a.b.c` in the context: a missing property is empty, as in GitHub's expressions;
/// an input the action does not declare, or an unknown context, is a mistake of the action.
fn lookup(path: &str, context: &Value) -> String {
    let mut parts = path.split('.');
    let head = parts.next().unwrap();
    assert!(
        ["inputs", "github", "runner", "steps"].contains(&head),
        "action.yml reads an unknown context: `{path}`"
    );
    let mut value = &context[head];
    for part in parts {
        if head == "inputs" {
            assert!(
                value.get(part).is_some(),
                "action.yml reads `{path}`, an input it does not declare"
            );
        }
        value = &value[part];
    }
    match value {
        Value::Null => String::new(),
        other => scalar(other),
    }
}

/// Text with every `${{ path }}` replaced.
fn substitute(text: &str, context: &Value) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("a closed expression") + start;
        out.push_str(&lookup(rest[start + 3..end].trim(), context));
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// An `if:` of the forms the action writes: `always()`, `success()`, `failure()`, `X == 'v'`,
/// `X != 'v'`, joined by `&&`. Any other form fails the test, so that it is added here.
fn condition(expr: &str, context: &Value, failed: bool) -> bool {
    let expr = expr.trim().trim_start_matches("${{").trim_end_matches("}}");
    expr.split("&&").all(|term| {
        let term = term.trim();
        match term {
            "always()" => true,
            "success()" => !failed,
            "failure()" => failed,
            _ => {
                let (left, right, equal) = if let Some((l, r)) = term.split_once("!=") {
                    (l, r, false)
                } else if let Some((l, r)) = term.split_once("==") {
                    (l, r, true)
                } else {
                    panic!("action.yml: an `if:` this test cannot read: `{term}`")
                };
                let literal = right.trim().trim_matches('\'');
                (lookup(left.trim(), context) == literal) == equal
            }
        }
    }) && (failed_allowed(expr) || !failed)
}

/// A step whose condition has no status function runs only after success, as on GitHub.
fn failed_allowed(expr: &str) -> bool {
    ["always()", "failure()"].iter().any(|f| expr.contains(f))
}

/// Two invoices whose predictions match their gold: the base branch's state.
fn write_project(workspace: &Path) {
    support::write_files(
        workspace,
        &[
            (
                "cases/inv/a.yaml",
                "prediction: outputs/a.json\ngold:\n  number: A-1\n  total: 10.5\nthresholds:\n  min_exact_match: 1.0\n",
            ),
            (
                "cases/inv/b.yaml",
                "prediction: outputs/b.json\ngold:\n  number: B-2\n  total: 20\nthresholds:\n  min_exact_match: 1.0\n",
            ),
            (
                "cases/inv/outputs/a.json",
                r#"{"fields": {"number": "A-1", "total": 10.5}}"#,
            ),
            (
                "cases/inv/outputs/b.json",
                r#"{"fields": {"number": "B-2", "total": 20}}"#,
            ),
        ],
    );
}

#[test]
fn the_action_pins_the_crates_version_and_downloads_what_binstall_does() {
    let action = action();
    let manifest: toml_edit::DocumentMut = std::fs::read_to_string(root().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let version = manifest["package"]["version"].as_str().unwrap();
    assert_eq!(
        action["inputs"]["version"]["default"], version,
        "action.yml's pinned version is the crate's: bump both at a release"
    );
    // cargo binstall and the action fetch one archive per release and target.
    let pkg_url = manifest["package"]["metadata"]["binstall"]["pkg-url"]
        .as_str()
        .unwrap();
    let binstall = pkg_url
        .replace("{ repo }", "https://github.com/acme/goldgate")
        .replace("{ version }", version)
        .replace("{ name }", "goldgate")
        .replace("{ target }", "x86_64-unknown-linux-musl");
    let install = action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Install goldgate")
        .unwrap();
    let script = install["run"].as_str().unwrap();
    let action_url = script
        .lines()
        .find_map(|l| l.trim().strip_prefix("url=\""))
        .unwrap()
        .trim_end_matches('"')
        .replace("$repository", "acme/goldgate")
        .replace("$VERSION", version)
        .replace(
            "$archive",
            &format!("goldgate-{version}-x86_64-unknown-linux-musl.tar.gz"),
        );
    assert_eq!(action_url, binstall);
}

/// The first run of a pull request whose base branch has no report yet: the gate runs from the
/// pre-built binary, its files are uploaded, and one comment says there is nothing to compare
/// with; the second run takes goldgate from the cache and updates that comment.
#[test]
fn a_pull_request_gets_one_comment_however_often_it_runs() {
    let runner = Runner::new("pull_request");
    write_project(&runner.path("workspace"));
    runner.publish_release("0.1.0", "x86_64-unknown-linux-musl");

    let first = runner.run(&[]);
    for step in [
        "Install goldgate",
        "Run the gate",
        "Comment on the pull request",
        "Verdict",
    ] {
        assert_eq!(first.exit_of(step), Some(0), "{step}:\n{}", first.log);
    }
    let curl = runner.calls("curl");
    assert_eq!(curl.len(), 1, "{curl:?}");
    assert_eq!(
        curl[0].last().unwrap(),
        "https://github.com/acme/goldgate/releases/download/v0.1.0/goldgate-0.1.0-x86_64-unknown-linux-musl.tar.gz"
    );
    assert!(
        first
            .log
            .contains("goldgate 0.1.0: the pre-built binary for x86_64-unknown-linux-musl"),
        "{}",
        first.log
    );
    // The gate ran the binary on the cases folder: its report holds both tests, passed.
    let report_path = PathBuf::from(&first.gate["report"]);
    assert_eq!(
        report_path,
        runner.path("workspace/goldgate-report/report.json")
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["inv/a", "inv/b"]);
    assert_eq!(first.gate["exit-code"], "0");
    // The upload is given the report and the page, both written.
    let (uses, with) = first
        .uses
        .iter()
        .find(|(u, _)| u.starts_with("actions/upload-artifact@"))
        .unwrap();
    assert_eq!(with["name"], "goldgate-report", "{uses}");
    let uploaded: Vec<&str> = with["path"].lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(uploaded.len(), 2, "{uploaded:?}");
    for file in &uploaded {
        assert!(Path::new(file).is_file(), "{file} was not written");
    }
    assert!(uploaded[1].ends_with("goldgate-report/report.html"));

    // No run of `main` has the artifact: the comment says so, under its marker.
    let comments = runner.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert_eq!(
        comments[0]["body"].as_str().unwrap(),
        "<!-- goldgate: goldgate-report -->\n\
         goldgate: no report of `main` to compare with (no finished run of `gold.yml` on it \
         with the artifact `goldgate-report`); this run's report and page: \
         https://github.com/acme/extractor/actions/runs/4242\n"
    );
    let gh = runner.calls("gh");
    assert_eq!(
        gh[0],
        [
            "run",
            "list",
            "--repo",
            "acme/extractor",
            "--workflow",
            "gold.yml",
            "--branch",
            "main",
            "--status",
            "completed",
            "--limit",
            "20",
            "--json",
            "databaseId",
            "--jq",
            ".[].databaseId"
        ]
    );

    // The second run: goldgate from the cache (no download), the one comment updated.
    std::fs::write(
        runner.path("workspace/cases/inv/outputs/b.json"),
        r#"{"fields": {"number": "B-3", "total": 20}}"#,
    )
    .unwrap();
    let second = runner.run(&[]);
    assert_eq!(
        runner.calls("curl").len(),
        1,
        "downloaded again:\n{}",
        second.log
    );
    assert!(
        second.log.contains("goldgate 0.1.0: cached in "),
        "{}",
        second.log
    );
    assert_eq!(second.gate["exit-code"], "101", "{}", second.log);
    assert_eq!(
        second.exit_of("Comment on the pull request"),
        Some(0),
        "{}",
        second.log
    );
    assert_eq!(second.exit_of("Verdict"), Some(101), "{}", second.log);
    let comments = runner.comments();
    assert_eq!(comments.len(), 1, "a second comment: {comments:?}");
    assert_eq!(comments[0]["id"], 1000);
    let gh = runner.calls("gh");
    let methods: Vec<&str> = gh
        .iter()
        .filter(|c| c[0] == "api")
        .filter_map(|c| {
            c.iter()
                .position(|a| a == "--method")
                .map(|i| c[i + 1].as_str())
        })
        .collect();
    assert_eq!(methods, ["POST", "PATCH"]);
}

/// A push (no pull request): the gate runs and fails the job with its own exit code; nothing is
/// commented, `gh` is never called.
#[test]
fn a_push_runs_the_gate_and_comments_nothing() {
    let runner = Runner::new("push");
    write_project(&runner.path("workspace"));
    std::fs::write(
        runner.path("workspace/cases/inv/outputs/a.json"),
        r#"{"fields": {"number": "A-7", "total": 10.5}}"#,
    )
    .unwrap();
    runner.publish_release("0.1.0", "x86_64-unknown-linux-musl");
    let run = runner.run(&[("cases", "cases/inv")]);
    assert_eq!(run.gate["exit-code"], "101", "{}", run.log);
    // The cases folder is `cases/inv`: its tests are named from there.
    assert!(run.log.contains("\ntest a ... FAILED\n"), "{}", run.log);
    assert_eq!(run.exit_of("Comment on the pull request"), Some(0));
    assert!(
        run.log.contains("no comment: not a pull request"),
        "{}",
        run.log
    );
    assert_eq!(run.exit_of("Verdict"), Some(101));
    assert!(runner.calls("gh").is_empty());
}

/// `command` replaces `goldgate test CASES`: the report and the page are still where the action
/// uploads them from, through GOLDGATE_REPORT and GOLDGATE_HTML.
#[test]
fn a_command_runs_instead_of_the_binary_on_a_folder() {
    let runner = Runner::new("push");
    write_project(&runner.path("workspace"));
    runner.publish_release("0.1.0", "x86_64-unknown-linux-musl");
    let run = runner.run(&[
        (
            "command",
            "goldgate test cases --exact inv/b && echo command ran",
        ),
        ("output-dir", "out/gate"),
    ]);
    assert_eq!(run.gate["exit-code"], "0", "{}", run.log);
    assert!(run.log.contains("command ran"), "{}", run.log);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(runner.path("workspace/out/gate/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["cases"].as_array().unwrap().len(), 1);
    assert!(runner.path("workspace/out/gate/report.html").is_file());
}

/// A base report `goldgate report --compare` cannot read: the comment says so, with goldgate's own
/// error, and the gate's verdict stands.
#[test]
fn a_comparison_that_fails_is_said_in_the_comment() {
    let runner = Runner::new("pull_request");
    write_project(&runner.path("workspace"));
    runner.publish_release("0.1.0", "x86_64-unknown-linux-musl");
    let artifact = runner.path("gh/artifacts/2222/goldgate-report");
    std::fs::create_dir_all(&artifact).unwrap();
    std::fs::write(artifact.join("report.json"), "{\"not\": \"a report\"").unwrap();
    std::fs::write(runner.path("gh/runs.json"), r#"[{"databaseId": 2222}]"#).unwrap();
    let run = runner.run(&[]);
    assert_eq!(
        run.exit_of("Comment on the pull request"),
        Some(0),
        "{}",
        run.log
    );
    assert_eq!(run.exit_of("Verdict"), Some(0), "{}", run.log);
    let comments = runner.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    let body = comments[0]["body"].as_str().unwrap();
    let head = "<!-- goldgate: goldgate-report -->\n\
                goldgate could not compare with the report of `main` (this run's report and page: \
                https://github.com/acme/extractor/actions/runs/4242):\n\n```text\nerror: ";
    assert!(body.starts_with(head), "{body}");
    assert!(body.ends_with("\n```\n"), "{body}");
}
/// A pull request whose base branch has a report: the comment is `goldgate report --compare BASE
/// HEAD --markdown` under the marker, BASE the artifact of the newest finished run of the workflow
/// on `main` that has it; a later push rewrites that one comment with the new comparison.
#[test]
fn the_comment_compares_with_the_base_branchs_last_report() {
    let runner = Runner::new("pull_request");
    let workspace = runner.path("workspace");
    write_project(&workspace);
    runner.publish_release("0.1.0", "x86_64-unknown-linux-musl");
    // The run on `main`: its report is the artifact of run 2222; run 3333, newer, has none.
    let base_run = support::goldgate(&workspace, &["test", "cases", "--report", "base.json"]);
    assert!(base_run.status.success(), "{}", support::stdout(&base_run));
    let artifact = runner.path("gh/artifacts/2222/goldgate-report");
    std::fs::create_dir_all(&artifact).unwrap();
    std::fs::rename(workspace.join("base.json"), artifact.join("report.json")).unwrap();
    std::fs::write(
        runner.path("gh/runs.json"),
        r#"[{"databaseId": 3333}, {"databaseId": 2222}]"#,
    )
    .unwrap();

    let compare = |head: &Path| -> String {
        let base = runner.path("temp/goldgate-comment/base/report.json");
        let out = support::goldgate(
            &workspace,
            &[
                "report",
                "--compare",
                base.to_str().unwrap(),
                head.to_str().unwrap(),
                "--markdown",
                "--page-url",
                "https://github.com/acme/extractor/actions/runs/4242",
            ],
        );
        format!(
            "<!-- goldgate: goldgate-report -->\n{}",
            support::stdout(&out)
        )
    };

    // The pull request breaks b's number.
    std::fs::write(
        workspace.join("cases/inv/outputs/b.json"),
        r#"{"fields": {"number": "B-3", "total": 20}}"#,
    )
    .unwrap();
    let first = runner.run(&[]);
    assert_eq!(first.exit_of("Verdict"), Some(101), "{}", first.log);
    let head = PathBuf::from(&first.gate["report"]);
    let comments = runner.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    let body = comments[0]["body"].as_str().unwrap();
    assert_eq!(body, compare(&head));
    assert!(body.contains("inv/b"), "{body}");
    // Run 3333 was tried first, then 2222's artifact was taken.
    let gh = runner.calls("gh");
    let downloads: Vec<&str> = gh
        .iter()
        .filter(|c| c[..2] == ["run", "download"])
        .map(|c| c[2].as_str())
        .collect();
    assert_eq!(downloads, ["3333", "2222"]);

    // A later push fixes b and breaks a: the one comment now says that.
    std::fs::write(
        workspace.join("cases/inv/outputs/b.json"),
        r#"{"fields": {"number": "B-2", "total": 20}}"#,
    )
    .unwrap();
    std::fs::write(
        workspace.join("cases/inv/outputs/a.json"),
        r#"{"fields": {"number": "A-1", "total": 11.5}}"#,
    )
    .unwrap();
    let second = runner.run(&[]);
    assert_eq!(second.exit_of("Verdict"), Some(101), "{}", second.log);
    let comments = runner.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    let updated = comments[0]["body"].as_str().unwrap();
    assert_eq!(updated, compare(&head));
    assert_ne!(updated, body);
}
