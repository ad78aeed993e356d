//! The GitHub Action (`action.yml` at the repository's root), run as a runner would run it, minus
//! GitHub (see tests/support/action_runner.rs): the gate, the upload, the one comment on a pull
//! request. No local runner of composite actions installs from the registries this project
//! reaches (`act` needs Docker).

use std::path::{Path, PathBuf};

use serde_json::Value;

#[path = "support/action_runner.rs"]
mod action_runner;
mod support;
use action_runner::{Runner, action, root, write_project};

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
            "--event",
            "push",
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
    std::fs::write(
        runner.path("gh/runs.json"),
        r#"[{"databaseId": 2222, "event": "push", "headBranch": "main"}]"#,
    )
    .unwrap();
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
        r#"[{"databaseId": 3333, "event": "push", "headBranch": "main"}, {"databaseId": 2222, "event": "push", "headBranch": "main"}]"#,
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

/// The base report comes from a push to the base repository only: a fork's pull request from a
/// branch also named `main` runs the workflow too (event `pull_request`), and its artifact, newer,
/// is never taken as the base.
#[test]
fn a_forks_run_on_a_branch_of_the_same_name_never_supplies_the_base_report() {
    let runner = Runner::new("pull_request");
    let workspace = runner.path("workspace");
    write_project(&workspace);
    runner.publish_release("0.1.0", "x86_64-unknown-linux-musl");
    let base_run = support::goldgate(&workspace, &["test", "cases", "--report", "base.json"]);
    assert!(base_run.status.success(), "{}", support::stdout(&base_run));
    for run in ["2222", "3333"] {
        let artifact = runner.path(&format!("gh/artifacts/{run}/goldgate-report"));
        std::fs::create_dir_all(&artifact).unwrap();
        std::fs::copy(workspace.join("base.json"), artifact.join("report.json")).unwrap();
    }
    std::fs::write(
        runner.path("gh/runs.json"),
        r#"[{"databaseId": 3333, "event": "pull_request", "headBranch": "main"}, {"databaseId": 2222, "event": "push", "headBranch": "main"}]"#,
    )
    .unwrap();
    let run = runner.run(&[]);
    assert_eq!(
        run.exit_of("Comment on the pull request"),
        Some(0),
        "{}",
        run.log
    );
    let downloads: Vec<String> = runner
        .calls("gh")
        .iter()
        .filter(|c| c[..2] == ["run", "download"])
        .map(|c| c[2].clone())
        .collect();
    assert_eq!(downloads, ["2222"]);
}

/// An artifact name with a quote and a filter of its own in it is the marker's text, never part
/// of the program that finds the comment: the one comment is found again and updated.
#[test]
fn an_artifact_name_never_becomes_part_of_the_comments_filter() {
    let runner = Runner::new("pull_request");
    write_project(&runner.path("workspace"));
    runner.publish_release("0.1.0", "x86_64-unknown-linux-musl");
    let name = r#"x") or true | not | not or ("#;
    let first = runner.run(&[("artifact-name", name)]);
    assert_eq!(
        first.exit_of("Comment on the pull request"),
        Some(0),
        "{}",
        first.log
    );
    // Another tool's comment, which an injected `or true` would select and overwrite.
    let mut comments = runner.comments();
    comments.insert(
        0,
        serde_json::json!({"id": 7, "body": "another bot's comment"}),
    );
    std::fs::write(
        runner.path("gh/comments.json"),
        serde_json::to_string(&comments).unwrap(),
    )
    .unwrap();
    let second = runner.run(&[("artifact-name", name)]);
    assert_eq!(
        second.exit_of("Comment on the pull request"),
        Some(0),
        "{}",
        second.log
    );
    let comments = runner.comments();
    assert_eq!(comments.len(), 2, "{comments:?}");
    assert_eq!(comments[0]["body"], "another bot's comment");
    assert!(
        comments[1]["body"]
            .as_str()
            .unwrap()
            .starts_with(&format!("<!-- goldgate: {name} -->")),
        "{comments:?}"
    );
}

/// `args` is split into words and nothing more: a glob in it reaches goldgate as written, whatever
/// files the working folder holds (`--report k*.json` would become `--report keep.json`, and
/// overwrite it).
#[test]
fn the_args_input_is_never_expanded_as_a_glob() {
    let runner = Runner::new("push");
    let workspace = runner.path("workspace");
    write_project(&workspace);
    std::fs::write(workspace.join("keep.json"), "precious").unwrap();
    runner.publish_release("0.1.0", "x86_64-unknown-linux-musl");
    let run = runner.run(&[("args", "--report  k*.json")]);
    assert_eq!(run.gate["exit-code"], "0", "{}", run.log);
    assert_eq!(
        std::fs::read_to_string(workspace.join("keep.json")).unwrap(),
        "precious"
    );
    assert!(workspace.join("k*.json").is_file(), "{}", run.log);
}
