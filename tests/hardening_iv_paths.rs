//! What a project writes (its cache, baselines, histories, judges' verdicts) is written inside it
//! and never through a link, whatever a checkout holds: a link committed in the cache, a folder
//! that links out and a `..` after it, a cache folder that does not exist yet, a `.goldgate` that
//! leads out, a dangling link in a baseline's place. Each refusal is located and says the fix, and
//! the file outside is untouched.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

mod support;
use support::{failure_block, goldgate_with, stdout, write_files};

/// A project (`proj/`, with `.git`) and a folder beside it that is outside it (`outside/`), both
/// by their canonical paths (what messages name).
fn project_and_outside() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let (proj, outside) = (base.join("proj"), base.join("outside"));
    std::fs::create_dir_all(proj.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    (tmp, proj, outside)
}

/// A live suite in `proj/cases` with `suite_extra` added: one case, whose command prints the
/// document's text as `total`.
fn live_suite(proj: &Path, suite_extra: &str) {
    write_files(
        proj,
        &[
            (
                "cases/suite.yaml",
                &format!(
                    "run:\n  command: [sh, -c, 'printf \"{{\\\"total\\\": \\\"%s\\\"}}\" \"$(cat \"$0\")\"', \"{{document}}\"]\n{suite_extra}defaults:\n  thresholds: {{ min_exact_match: 1.0 }}\n"
                ),
            ),
            ("cases/doc.txt", "12"),
            (
                "cases/a.yaml",
                "document: doc.txt\ngold: { total: \"12\" }\n",
            ),
        ],
    );
}

fn run(proj: &Path, envs: &[(&str, &str)]) -> std::process::Output {
    let mut all = vec![("GOLDGATE_CACHE", "use")];
    all.extend_from_slice(envs);
    goldgate_with(proj, &["test", "cases"], &all)
}

#[test]
fn a_link_committed_in_the_cache_is_refused_never_written_through() {
    let (_tmp, proj, outside) = project_and_outside();
    live_suite(&proj, "");
    let first = run(&proj, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stdout(&first));
    // A pull request replaces every index entry and every kept output by a link to a file of
    // the reviewer's.
    let victim = outside.join("bashrc");
    std::fs::write(&victim, "precious").unwrap();
    let cache = proj.join(".goldgate/cache");
    let mut planted = Vec::new();
    for dir in [cache.join("index"), cache.clone()] {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_file() && name.ends_with(".json") && name != "goldgate-cache.json" {
                std::fs::remove_file(entry.path()).unwrap();
                symlink(&victim, entry.path()).unwrap();
                planted.push(entry.path());
            }
        }
    }
    assert_eq!(planted.len(), 2, "{planted:?}");
    // A hit meets the link in the entry's place: never read through, so the call is made; its
    // output is not kept through the link either, and the case fails naming the link.
    let again = run(&proj, &[]);
    assert_eq!(again.status.code(), Some(101), "{}", stdout(&again));
    let block = failure_block(&stdout(&again), "a");
    assert!(
        block.contains("cannot be kept in the cache: `")
            && block.contains(
                "` is a symbolic link, and goldgate writes nothing of a project through a link"
            )
            && block.contains("remove the link"),
        "{block}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    for path in &planted {
        assert!(
            std::fs::symlink_metadata(path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    // Once the links are gone the cache works again.
    for path in &planted {
        std::fs::remove_file(path).unwrap();
    }
    let fixed = run(&proj, &[]);
    assert_eq!(fixed.status.code(), Some(0), "{}", stdout(&fixed));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

/// A suite `suite` with one scored case; its exit code and failure block for `a` after a run
/// that blesses, records verdicts and keeps its history.
fn refused_block(proj: &Path, suite: &str) -> (Option<i32>, String) {
    write_files(
        proj,
        &[
            ("cases/suite.yaml", suite),
            (
                "cases/a.yaml",
                "prediction: { total: \"1\" }\ngold: { total: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    let out = goldgate_with(
        proj,
        &["test", "cases"],
        &[("GOLDGATE_UPDATE", "always"), ("GOLDGATE_JUDGE", "record")],
    );
    (out.status.code(), failure_block(&stdout(&out), "a"))
}

#[test]
fn a_dot_dot_after_a_link_out_is_refused_for_baseline_history_and_verdicts() {
    let (_tmp, proj, outside) = project_and_outside();
    std::fs::create_dir_all(outside.join("deep")).unwrap();
    std::fs::create_dir_all(proj.join("cases")).unwrap();
    // `kept/..` is `outside/` for the system, `cases/` for the text.
    symlink(outside.join("deep"), proj.join("cases/kept")).unwrap();
    let link = proj.join("cases/kept");
    for (suite, key, written) in [
        (
            "baseline: kept/../baseline.json\n",
            "baseline",
            "kept/../baseline.json",
        ),
        (
            "history: kept/../history.jsonl\n",
            "history",
            "kept/../history.jsonl",
        ),
        (
            "judge:\n  command: [sh, -c, 'echo \"{\\\"held\\\": true, \\\"explanation\\\": \\\"yes\\\"}\"']\n  verdicts: kept/../verdicts.json\n",
            "judge.verdicts",
            "kept/../verdicts.json",
        ),
    ] {
        let (code, block) = refused_block(&proj, suite);
        assert_eq!(code, Some(101), "{key}: {block}");
        assert!(
            block.contains(&format!(
                "{key}: the {} `{written}` goes through the link `{}`: goldgate writes nothing of a project through a link",
                if key == "judge.verdicts" { "verdict file" } else { key },
                link.display()
            )),
            "{key}: {block}"
        );
        assert!(block.contains("cases/suite.yaml:"), "{block}");
    }
    let written: Vec<_> = std::fs::read_dir(&outside)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(written, vec![std::ffi::OsString::from("deep")]);
}

#[test]
fn a_dangling_link_in_a_baselines_or_historys_place_creates_nothing_outside() {
    let (_tmp, proj, outside) = project_and_outside();
    std::fs::create_dir_all(proj.join("cases")).unwrap();
    symlink(outside.join("new.json"), proj.join("cases/baseline.json")).unwrap();
    symlink(outside.join("new.jsonl"), proj.join("cases/history.jsonl")).unwrap();
    for (suite, key) in [
        ("baseline: baseline.json\n", "baseline"),
        ("history: history.jsonl\n", "history"),
    ] {
        let (code, block) = refused_block(&proj, suite);
        assert_eq!(code, Some(101), "{key}: {block}");
        assert!(block.contains("goes through the link"), "{key}: {block}");
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

#[test]
fn a_cache_folder_out_of_the_project_is_refused_before_it_is_made() {
    let (tmp, proj, _) = project_and_outside();
    live_suite(&proj, "  cache_folder: ../../../out1/c\n");
    let out = run(&proj, &[]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let block = failure_block(&stdout(&out), "a");
    assert!(
        block.contains(
            "run.cache_folder: the cache folder `../../../out1/c` is outside the project"
        ),
        "{block}"
    );
    assert!(!tmp.path().join("out1").exists());
    assert!(!tmp.path().parent().unwrap().join("out1").exists());
}

#[test]
fn a_goldgate_folder_that_links_out_is_refused_and_nothing_is_written_there() {
    let (_tmp, proj, outside) = project_and_outside();
    live_suite(&proj, "");
    symlink(&outside, proj.join(".goldgate")).unwrap();
    let out = run(&proj, &[]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let block = failure_block(&stdout(&out), "a");
    assert!(
        block.contains(&format!(
            "the cache folder `{}` goes through the link `{}`",
            proj.join(".goldgate/cache").display(),
            proj.join(".goldgate").display()
        )),
        "{block}"
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

/// A state folder goldgate refuses (here open to others; another user's is refused alike) leaves
/// the run without records for `goldgate review` and `report --last`: the run says so and why,
/// its verdict standing, where it once kept nothing in silence.
#[test]
fn a_state_folder_goldgate_refuses_is_said_not_kept_silently() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let (_tmp, proj, outside) = project_and_outside();
    write_files(
        &proj,
        &[(
            "cases/a.yaml",
            "prediction: { total: \"1\" }\ngold: { total: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
        )],
    );
    let uid = std::fs::metadata(&proj).unwrap().uid();
    let state = outside.join(format!("goldgate-{uid}"));
    std::fs::create_dir(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = goldgate_with(
        &proj,
        &["test", "cases"],
        &[("TMPDIR", outside.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let err = support::stderr(&out);
    assert!(
        err.contains(&format!(
            "warning: goldgate kept no records of this run for `goldgate review` and `goldgate report --last`: goldgate's state folder `{}` has mode 755",
            state.display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&state).unwrap().count(), 0);
}

/// A `cases` folder that links to a gold set kept in a project of its own is this project's for
/// the run's records: the processes of a split run keep them where the end step, run from the
/// crate, reads them (once, under the gold set's project, and the end step found no run).
#[test]
fn a_cases_folder_that_links_to_a_gold_set_elsewhere_is_one_run_of_this_project() {
    let (_tmp, proj, outside) = project_and_outside();
    let gold = outside.join("gold-set");
    std::fs::create_dir_all(gold.join(".git")).unwrap();
    write_files(
        &gold,
        &[
            (
                "cases/a.yaml",
                "prediction: { total: \"1\" }\ngold: { total: \"1\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
            (
                "cases/b.yaml",
                "prediction: { total: \"2\" }\ngold: { total: \"2\" }\nthresholds: { min_exact_match: 1.0 }\n",
            ),
        ],
    );
    symlink(gold.join("cases"), proj.join("cases")).unwrap();
    let id = format!("linked-{}", std::process::id());
    for name in ["a", "b"] {
        let out = goldgate_with(
            &proj,
            &["test", "cases", "--exact", name],
            &[
                ("GOLDGATE_RUN_ID", &id),
                (
                    "GOLDGATE_REPORT",
                    proj.join("report.json").to_str().unwrap(),
                ),
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    }
    let end = goldgate_with(&proj, &["report", "--run", &id], &[]);
    assert_eq!(
        end.status.code(),
        Some(0),
        "{}{}",
        stdout(&end),
        support::stderr(&end)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(proj.join("report.json")).unwrap()).unwrap();
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b"]);
}
