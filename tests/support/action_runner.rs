//! The GitHub Action (`action.yml`) run as a runner would run it, minus GitHub: its `run:` steps
//! are executed with bash (as a runner does, `bash --noprofile --norc -eo pipefail FILE`) in a
//! temporary workspace, with `${{ … }}` replaced from the inputs, `github`, `runner` and the steps'
//! outputs, and fake `curl` and `gh` on the `PATH` that record their arguments and serve a release
//! archive, the base branch's artifact and the pull request's comments from a folder. Its `uses:`
//! steps (the cache, the upload) are recorded, not run.
//!
//! Included with `#[path = "support/action_runner.rs"] mod action_runner;` by tests/action.rs and
//! tests/install.rs (the wheel through the Action's `pip` route).

#![allow(dead_code)] // each test file uses its own part

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::support;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `action.yml`, read as JSON with YAML's types.
pub fn action() -> Value {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

/// The `gh` a runner has, faked: each call is appended to `$FAKE_GH/calls.jsonl` as a JSON array
/// of its arguments; `run list` prints the runs of `runs.json` its `--branch` and `--event` select
/// through the `--jq` filter, `run download` copies
/// `artifacts/RUN/NAME/`, and `api` reads and writes `comments.json` (a filter is applied with jq,
/// as gh applies its own).
pub const FAKE_GH: &str = r#"#!/usr/bin/env bash
set -euo pipefail
state="$FAKE_GH"
jq -cn '$ARGS.positional' --args -- "$@" >> "$state/calls.jsonl"
flag() { local name="$1"; shift; while [ $# -gt 0 ]; do if [ "$1" = "$name" ]; then echo "$2"; return; fi; shift; done; }
filter="$(flag --jq "$@")"
case "$1 ${2:-}" in
  "run list")
    # As gh filters: `--branch` by the run's head branch, `--event` by what triggered it.
    jq -r --arg b "$(flag --branch "$@")" --arg e "$(flag --event "$@")" \
      "[.[] | select((\$b == \"\" or .headBranch == \$b) and (\$e == \"\" or .event == \$e))] | ${filter:-.}" \
      "$state/runs.json" ;;
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
pub const FAKE_CURL: &str = r#"#!/usr/bin/env bash
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
pub const ACTION_PATH: &str = "_work/_actions/acme/goldgate/v0";

/// A place for one job: the repository's checkout, the runner's folders and the fakes' state.
pub struct Runner {
    dir: tempfile::TempDir,
    /// What `github.*` and `runner.*` read.
    pub github: Value,
    pub runner: Value,
    /// Variables of the job's environment (`env:` of the workflow), set for every step.
    pub env: Vec<(String, String)>,
}

/// What one run of the action did.
#[derive(Debug)]
pub struct Run {
    /// Each step's name and exit code (`None`: skipped).
    pub steps: Vec<(String, Option<i32>)>,
    /// The `uses:` steps run, with their `with:` resolved.
    pub uses: Vec<(String, BTreeMap<String, String>)>,
    /// The outputs the gate step wrote.
    pub gate: BTreeMap<String, String>,
    /// Standard output and error of every step, for a failure's message.
    pub log: String,
}

impl Run {
    pub fn exit_of(&self, step: &str) -> Option<i32> {
        self.steps
            .iter()
            .find(|(name, _)| name == step)
            .unwrap_or_else(|| panic!("no step `{step}`: {:?}", self.steps))
            .1
    }
}

impl Runner {
    pub fn new(event: &str) -> Runner {
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
            env: Vec::new(),
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The release archive `curl` serves: the binaries this test target was built with, as links
    /// (a debug build weighs 200 MB, which gzip would take seconds over).
    pub fn publish_release(&self, version: &str, target: &str) {
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
    pub fn calls(&self, fake: &str) -> Vec<Vec<String>> {
        let text =
            std::fs::read_to_string(self.path(&format!("{fake}/calls.jsonl"))).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn comments(&self) -> Vec<Value> {
        let text =
            std::fs::read_to_string(self.path("gh/comments.json")).unwrap_or_else(|_| "[]".into());
        serde_json::from_str::<Value>(&text)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    /// Runs the action's steps with `with` as its inputs, in order, as a runner would.
    pub fn run(&self, with: &[(&str, &str)]) -> Run {
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
            cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
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
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A YAML scalar as the text GitHub would read.
pub fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The value of `a.b.c` in the context: a missing property is empty, as in GitHub's expressions;
/// an input the action does not declare, or an unknown context, is a mistake of the action.
pub fn lookup(path: &str, context: &Value) -> String {
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
pub fn substitute(text: &str, context: &Value) -> String {
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
pub fn condition(expr: &str, context: &Value, failed: bool) -> bool {
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
pub fn failed_allowed(expr: &str) -> bool {
    ["always()", "failure()"].iter().any(|f| expr.contains(f))
}

/// Two invoices whose predictions match their gold: the base branch's state.
pub fn write_project(workspace: &Path) {
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
