//! `goldgate init` in fresh and half-set-up crates: the files it creates, the Cargo.toml it
//! leaves (comments, order and other entries kept), what it skips, its errors, and one slow
//! end-to-end run of `cargo test` inside the crate it set up.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use goldgate::cli::init::{GitPin, InitError, Source, init};
use serde_json::Value;

#[path = "support/e2e.rs"]
mod e2e;

/// This checkout, given as the goldgate path so the new crate builds against it.
fn goldgate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// This checkout as `--path`.
fn here() -> Source {
    Source::Path(goldgate_dir().to_path_buf())
}

/// A crate folder holding only `manifest` as Cargo.toml and an empty `src/lib.rs`.
fn crate_with(manifest: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/lib.rs"), "").unwrap();
    dir
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            (rel, fs::read(e.path()).unwrap())
        })
        .collect()
}

fn read(dir: &Path, file: &str) -> String {
    fs::read_to_string(dir.join(file)).unwrap()
}

/// The manifest with the goldgate path written as `GOLDGATE_DIR`, so it can be compared whole.
fn manifest(dir: &Path) -> String {
    read(dir, "Cargo.toml").replace(goldgate_dir().to_str().unwrap(), "GOLDGATE_DIR")
}

const MANIFEST: &str = r#"# The extraction pipeline for supplier invoices.
[package]
name = "invoice-extractor"
version = "0.3.0"
edition = "2021"   # kept on 2021 until the parser moves

[dependencies]
serde_json = "1"   # the pipeline writes JSON

[features]
default = []
"#;

const CREATED: [&str; 9] = [
    "created tests/goldgate.rs",
    "created schema/case.schema.json",
    "created schema/rubrics.schema.json",
    "created schema/suite.schema.json",
    "created cases/suite.yaml",
    "created cases/baseline.json",
    "created cases/example-invoice.yaml",
    "created cases/outputs/example-invoice.json",
    "created rubrics/invoice-basics.yaml",
];

const SKIPPED: [&str; 9] = [
    "skipped tests/goldgate.rs: it exists",
    "skipped schema/case.schema.json: it exists",
    "skipped schema/rubrics.schema.json: it exists",
    "skipped schema/suite.schema.json: it exists",
    "skipped cases/suite.yaml: it exists",
    "skipped cases/baseline.json: it exists",
    "skipped cases/example-invoice.yaml: it exists",
    "skipped cases/outputs/example-invoice.json: it exists",
    "skipped rubrics/invoice-basics.yaml: it exists",
];

fn lines(head: &[&str], tail: &[&str]) -> Vec<String> {
    head.iter().chain(tail).map(|s| s.to_string()).collect()
}

#[test]
fn sets_up_a_crate_and_keeps_the_rest_of_its_manifest() {
    let dir = crate_with(MANIFEST);
    let report = init(dir.path(), Some(&here())).unwrap();
    assert_eq!(
        report.lines,
        lines(
            &[
                "added goldgate to [dev-dependencies] in Cargo.toml",
                "added [[test]] goldgate to Cargo.toml",
            ],
            &CREATED,
        )
    );
    assert_eq!(
        manifest(dir.path()),
        format!(
            "{MANIFEST}\n[dev-dependencies]\ngoldgate = {{ path = \"GOLDGATE_DIR\" }}\n\n\
             [[test]]\nname = \"goldgate\"\nharness = false\n"
        )
    );
    let doc: toml_edit::DocumentMut = read(dir.path(), "Cargo.toml").parse().unwrap();
    assert_eq!(
        doc["dev-dependencies"]["goldgate"]["path"].as_str(),
        goldgate_dir().to_str()
    );
    assert_eq!(
        read(dir.path(), "tests/goldgate.rs"),
        "//! Runs every YAML case under cases/ as a test: `cargo test --test goldgate`.\n\n\
         fn main() -> std::process::ExitCode {\n    \
         goldgate::Harness::new(\"cases\").rubrics(\"rubrics\").run()\n}\n"
    );
    let case = read(dir.path(), "cases/example-invoice.yaml");
    for key in [
        "\ngold:\n",
        "\ncritical: [invoice_number, total]\n",
        "\n  - include: invoice-basics",
        "\n  - must_right: ",
        "\n  - easy_wrong: ",
        "\nthresholds:\n",
        "\nprediction: outputs/example-invoice.json",
    ] {
        assert!(
            case.contains(key),
            "the example case lacks `{key}`:\n{case}"
        );
    }
    assert!(
        case.starts_with("# yaml-language-server: $schema=../schema/case.schema.json\n"),
        "{case}"
    );
    assert!(read(dir.path(), "rubrics/invoice-basics.yaml").starts_with(
        "# yaml-language-server: $schema=../schema/rubrics.schema.json\n# Checks every invoice"
    ));
    // The schemas the editor is pointed at are this goldgate's, `$id` and all.
    for kind in ["case", "rubrics", "suite"] {
        let copy = read(dir.path(), &format!("schema/{kind}.schema.json"));
        assert_eq!(copy, goldgate::cli::schema(kind));
        let id = format!("urn:goldgate:{}:schema:{kind}", env!("CARGO_PKG_VERSION"));
        assert!(
            copy.contains(&format!("\n  \"$id\": \"{id}\",\n")),
            "{kind}"
        );
    }
}

#[test]
fn a_schema_of_another_goldgate_is_kept_and_pointed_out() {
    let dir = crate_with(MANIFEST);
    fs::create_dir(dir.path().join("schema")).unwrap();
    fs::write(dir.path().join("schema/case.schema.json"), "{}\n").unwrap();
    let report = init(dir.path(), Some(&here())).unwrap();
    assert_eq!(read(dir.path(), "schema/case.schema.json"), "{}\n");
    assert_eq!(
        report.lines[3],
        "skipped schema/case.schema.json: it exists (another goldgate's: `goldgate schema \
         --kind case > schema/case.schema.json` brings it up to date)"
    );
    assert_eq!(report.lines[4], "created schema/rubrics.schema.json");
}

#[test]
fn a_second_run_changes_nothing_and_says_what_it_skipped() {
    let dir = crate_with(MANIFEST);
    init(dir.path(), Some(&here())).unwrap();
    let before = files(dir.path());
    let report = init(dir.path(), Some(&here())).unwrap();
    assert_eq!(files(dir.path()), before);
    assert_eq!(
        report.lines,
        lines(
            &[
                "skipped goldgate in [dev-dependencies]: Cargo.toml has it",
                "skipped [[test]] goldgate: Cargo.toml has it",
            ],
            &SKIPPED,
        )
    );
    assert_eq!(report.to_string(), report.lines.join("\n") + "\n");
}

#[test]
fn an_existing_harness_file_is_not_overwritten() {
    let dir = crate_with(MANIFEST);
    fs::create_dir(dir.path().join("tests")).unwrap();
    let mine = "fn main() {\n    println!(\"my own harness\");\n}\n";
    fs::write(dir.path().join("tests/goldgate.rs"), mine).unwrap();
    let report = init(dir.path(), Some(&here())).unwrap();
    assert_eq!(read(dir.path(), "tests/goldgate.rs"), mine);
    assert_eq!(report.lines[2], "skipped tests/goldgate.rs: it exists");
    assert_eq!(report.lines[3..], CREATED[1..]);
}

#[test]
fn a_sorted_dev_dependency_table_stays_sorted_and_other_tests_stay_first() {
    let dir = crate_with(
        r#"[package]
name = "receipts"
version = "0.1.0"
edition = "2024"

[dev-dependencies]
# benchmarks
criterion = "0.5"
tempfile = "3"

[[test]]
name = "cli"

[[bench]]
name = "parse"
harness = false
"#,
    );
    init(dir.path(), Some(&here())).unwrap();
    assert_eq!(
        manifest(dir.path()),
        r#"[package]
name = "receipts"
version = "0.1.0"
edition = "2024"

[dev-dependencies]
# benchmarks
criterion = "0.5"
goldgate = { path = "GOLDGATE_DIR" }
tempfile = "3"

[[test]]
name = "cli"

[[test]]
name = "goldgate"
harness = false

[[bench]]
name = "parse"
harness = false
"#
    );
}

#[test]
fn an_unsorted_dev_dependency_table_gets_goldgate_last_and_an_inline_test_list_grows() {
    let dir = crate_with(
        "test = [{ name = \"cli\" }]\n\n[package]\nname = \"ids\"\nversion = \"0.1.0\"\n\n\
         [dev-dependencies]\ntempfile = \"3\"\ncriterion = \"0.5\"\n",
    );
    init(dir.path(), Some(&here())).unwrap();
    assert_eq!(
        manifest(dir.path()),
        "test = [{ name = \"cli\" }, { name = \"goldgate\", harness = false }]\n\n\
         [package]\nname = \"ids\"\nversion = \"0.1.0\"\n\n\
         [dev-dependencies]\ntempfile = \"3\"\ncriterion = \"0.5\"\n\
         goldgate = { path = \"GOLDGATE_DIR\" }\n"
    );
}

/// goldgate is on no registry: without `--path` or `--git` there is no dependency that resolves,
/// so init writes nothing and says how to say where goldgate is.
#[test]
fn without_a_path_or_a_url_nothing_is_written_and_it_says_how() {
    let dir = crate_with(MANIFEST);
    let before = files(dir.path());
    let err = init(dir.path(), None).unwrap_err();
    assert!(matches!(err, InitError::NoSource { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "init cannot know where goldgate lives: it is not published on crates.io, so \
             `goldgate = \"0.1\"` would leave a Cargo.toml that does not resolve. Say where it \
             is: `goldgate init --path DIR` (a goldgate checkout on this machine) or `goldgate \
             init --git URL` (its repository, with `--branch`, `--tag` or `--rev` to pin it). \
             Nothing was written.\nThis goldgate was built from `{0}`: `goldgate init --path {0}`",
            goldgate_dir().display()
        )
    );
    assert_eq!(files(dir.path()), before);

    // A crate that has its goldgate dependency needs no source: the rest is set up.
    let dir = crate_with(&format!(
        "{MANIFEST}\n[dev-dependencies]\ngoldgate = {{ git = \"https://example.com/goldgate\" }}\n"
    ));
    let report = init(dir.path(), None).unwrap();
    assert_eq!(
        report.lines[0],
        "skipped goldgate in [dev-dependencies]: Cargo.toml has it"
    );
}

#[test]
fn a_git_source_is_written_with_its_pin() {
    let dir = crate_with(MANIFEST);
    let git = Source::Git {
        url: "https://example.com/acme/goldgate.git".into(),
        pin: Some((GitPin::Tag, "v0.1.0".into())),
    };
    init(dir.path(), Some(&git)).unwrap();
    assert_eq!(
        read(dir.path(), "Cargo.toml"),
        format!(
            "{MANIFEST}\n[dev-dependencies]\ngoldgate = {{ git = \"https://example.com/acme/goldgate.git\", \
             tag = \"v0.1.0\" }}\n\n[[test]]\nname = \"goldgate\"\nharness = false\n"
        )
    );
}

#[test]
fn a_source_that_cannot_resolve_is_refused_before_anything_is_written() {
    let dir = crate_with(MANIFEST);
    let before = files(dir.path());
    let scp = Source::Git {
        url: "git@github.com:acme/goldgate.git".into(),
        pin: None,
    };
    assert_eq!(
        init(dir.path(), Some(&scp)).unwrap_err().to_string(),
        "`git@github.com:acme/goldgate.git` is not a URL Cargo can fetch: give `--git` one such \
         as `https://host/owner/goldgate.git`, `ssh://git@host/owner/goldgate.git` or \
         `file:///path/to/goldgate`. Nothing was written"
    );
    // The crate's own folder is a crate, but not goldgate.
    assert_eq!(
        init(dir.path(), Some(&Source::Path(".".into())))
            .unwrap_err()
            .to_string(),
        "`.` is not a goldgate checkout: its Cargo.toml is package `invoice-extractor`. Give \
         `--path` the folder that holds goldgate's Cargo.toml. Nothing was written"
    );
    let missing = init(
        dir.path(),
        Some(&Source::Path("../no-such-goldgate".into())),
    )
    .unwrap_err()
    .to_string();
    assert!(
        missing.starts_with(
            "`../no-such-goldgate` is not a goldgate checkout: its Cargo.toml cannot be read ("
        ),
        "{missing}"
    );
    assert_eq!(files(dir.path()), before);
}

/// The command line: `--git` with `--branch`, and no source at all (exit 1, nothing written).
#[test]
fn the_command_says_where_goldgate_comes_from() {
    let dir = crate_with(MANIFEST);
    let goldgate = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_goldgate"));
        cmd.current_dir(dir.path()).env("NO_COLOR", "1");
        cmd
    };
    let out = goldgate().arg("init").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: init cannot know where goldgate lives"),
        "{stderr}"
    );
    assert_eq!(read(dir.path(), "Cargo.toml"), MANIFEST);
    let out = goldgate()
        .args([
            "init",
            "--git",
            "ssh://git@example.com/goldgate.git",
            "--branch",
            "main",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        read(dir.path(), "Cargo.toml").contains(
            "\n[dev-dependencies]\ngoldgate = { git = \"ssh://git@example.com/goldgate.git\", branch = \"main\" }\n"
        )
    );
    let out = goldgate()
        .args([
            "init",
            "--path",
            ".",
            "--git",
            "https://example.com/goldgate",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--path and --git conflict");
}

#[test]
fn existing_entries_are_left_as_they_are() {
    let original = r#"[package]
name = "forms"
version = "0.1.0"

[dev-dependencies]
goldgate = { version = "0.1", default-features = false }   # pinned by hand

[[test]]
name = "goldgate"
path = "tests/gold.rs"
harness = false
"#;
    let dir = crate_with(original);
    let report = init(dir.path(), Some(&here())).unwrap();
    assert_eq!(read(dir.path(), "Cargo.toml"), original);
    assert_eq!(
        report.lines,
        lines(
            &[
                "skipped goldgate in [dev-dependencies]: Cargo.toml has it",
                "skipped [[test]] goldgate: Cargo.toml has it",
                "skipped tests/goldgate.rs: [[test]] goldgate runs `tests/gold.rs`",
            ],
            &CREATED[1..],
        )
    );
    assert!(!dir.path().join("tests/goldgate.rs").exists());
}

#[test]
fn a_normal_dependency_counts_and_a_test_target_without_harness_false_is_pointed_out() {
    let original = "[package]\nname = \"forms\"\nversion = \"0.1.0\"\n\n\
                    [dependencies]\ngoldgate = \"0.1\"\n\n[[test]]\nname = \"goldgate\"\n";
    let dir = crate_with(original);
    let report = init(dir.path(), Some(&here())).unwrap();
    assert_eq!(read(dir.path(), "Cargo.toml"), original);
    assert_eq!(
        report.lines[..2],
        [
            "skipped goldgate in [dependencies]: Cargo.toml has it",
            "skipped [[test]] goldgate: Cargo.toml has it, without `harness = false`: add it, \
             or the cases will not run",
        ]
    );
}

#[test]
fn a_folder_without_cargo_toml_is_an_error_and_is_left_empty() {
    let dir = tempfile::tempdir().unwrap();
    let err = init(dir.path(), None).unwrap_err();
    assert!(matches!(err, InitError::NoManifest { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "no Cargo.toml in `{}`: run goldgate init inside a crate",
            dir.path().display()
        )
    );
    assert!(files(dir.path()).is_empty());
}

#[test]
fn a_manifest_that_is_not_toml_is_an_error_and_nothing_is_written() {
    let broken = "[package]\nname = \"x\nversion = \"0.1.0\"\n";
    let dir = crate_with(broken);
    let before = files(dir.path());
    let err = init(dir.path(), None).unwrap_err().to_string();
    let head = format!(
        "`{}` is not valid TOML: TOML parse error at line 2",
        dir.path().join("Cargo.toml").display()
    );
    assert!(err.starts_with(&head), "{err}");
    assert_eq!(files(dir.path()), before);
}

#[test]
fn a_workspace_root_and_a_misshapen_entry_are_errors() {
    let dir = crate_with("[workspace]\nmembers = [\"extractor\"]\n");
    let file = dir.path().join("Cargo.toml");
    assert_eq!(
        init(dir.path(), None).unwrap_err().to_string(),
        format!(
            "`{}` has no [package]: run goldgate init inside a member crate, not at the workspace root",
            file.display()
        )
    );
    fs::write(
        &file,
        "dev-dependencies = \"goldgate\"\n\n[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    assert_eq!(
        init(dir.path(), None).unwrap_err().to_string(),
        format!(
            "`{}`: `dev-dependencies` is not a table: fix it, then run goldgate init again",
            file.display()
        )
    );
    assert_eq!(files(dir.path()).len(), 2, "only Cargo.toml and src/lib.rs");
}

/// The example case passes under the harness: every rubric, the included ones too, holds.
#[test]
fn the_example_case_passes() {
    let dir = crate_with(MANIFEST);
    init(dir.path(), Some(&here())).unwrap();
    let report = dir.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(["test", "cases"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .env("GOLDGATE_REPORT", &report)
        // Under nextest, this run is not part of the outer one; and a caller's
        // GOLDGATE_UPDATE or GOLDGATE_FAIL_ON is not this run's.
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("GOLDGATE_RUN_ID")
        .env_remove("GOLDGATE_UPDATE")
        .env_remove("GOLDGATE_FAIL_ON")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("\ntest example-invoice ... ok\n"),
        "{stdout}"
    );
    // The suite init writes holds the run to its baseline, empty until it is blessed.
    assert!(
        stdout.ends_with(
            "goldgate: no regression against cases/baseline.json (0 known failures, 0 fixed, 1 new)\n"
        ),
        "{stdout}"
    );
    let report: Value = serde_json::from_str(&fs::read_to_string(report).unwrap()).unwrap();
    let case = &report["cases"][0];
    assert_eq!(case["passed"], true);
    assert_eq!(case["score"], 1.0);
    let rubrics = case["rubrics"].as_array().unwrap();
    assert_eq!(
        rubrics.len(),
        6,
        "4 included from invoice-basics, 2 in the case"
    );
    assert!(rubrics.iter().all(|r| r["held"] == true), "{rubrics:#?}");
    assert_eq!(case["thresholds"].as_array().unwrap().len(), 5);
}

/// `cargo new`, `init`, then `cargo test` in the new crate: the example case runs and passes.
///
/// It builds goldgate and its dependencies (minutes of CPU on 2 cores) in the target folder the
/// tests that build crates share: ignored unless asked for (`.ci/run` runs it).
#[test]
#[ignore = "builds a whole crate (minutes of CPU); .ci/run runs the ignored tests"]
fn cargo_test_passes_in_a_crate_it_set_up() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("invoice-extractor");
    let new = Command::new(&cargo)
        .args(["new", "--lib", "--vcs", "none", "--offline", "--quiet"])
        .arg(&krate)
        .output()
        .unwrap();
    assert!(new.status.success(), "{new:?}");
    let report = init(&krate, Some(&here())).unwrap();
    assert_eq!(report.lines.len(), 11, "{report}");
    assert!(
        report.lines.iter().all(|l| !l.starts_with("skipped")),
        "{report}"
    );
    // goldgate's own lock file pins the versions it is tested with, and lets the build be reused.
    fs::copy(goldgate_dir().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    let target = e2e::target();
    let out = Command::new(&cargo)
        .args(["test", "--offline"])
        .current_dir(&krate)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_TERM_COLOR", "never")
        .env("NO_COLOR", "1")
        .env_remove("GOLDGATE_REPORT")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("GOLDGATE_RUN_ID")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("Running tests/goldgate.rs"), "{stderr}");
    assert!(
        stdout.contains("\ntest example-invoice ... ok\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("goldgate: 1 cases, 1 passed, 0 failed"),
        "{stdout}"
    );

    // The harness's `--help` is goldgate's own, not libtest-mimic's.
    let out = Command::new(&cargo)
        .args(["test", "--offline", "--test", "goldgate", "--", "--help"])
        .current_dir(&krate)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    assert!(
        help.starts_with("Runs every YAML case under the harness's cases folder as a test"),
        "{help}"
    );
    assert!(help.contains("\n  GOLDGATE_UPDATE=always "), "{help}");
}
