//! Nothing a case names is read or written outside its project, links followed: gold files
//! (named or linked out), documents, metadata tables and schemas are refused at load, located
//! where they are named, the other cases running on; review refuses to write through a link, and
//! two reviews at once never lose an edit.

use std::path::{Path, PathBuf};

mod support;
use support::{failure_block, goldgate, stderr, stdout, verdict_of, write_files};

/// A project (`proj/`, with `.git`) and a folder beside it that is outside it (`outside/`).
fn project_and_outside() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("proj");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(proj.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    (tmp, proj, outside)
}

#[cfg(unix)]
#[test]
fn a_gold_file_outside_the_project_is_refused_at_its_gold_line_and_review_never_writes_it() {
    let (_tmp, proj, outside) = project_and_outside();
    let gold = "{\"total\": \"1\"}\n";
    write_files(&outside, &[("g1.json", gold), ("g2.json", gold)]);
    std::os::unix::fs::symlink(outside.join("g1.json"), proj.join("linked.json")).unwrap();
    write_files(
        &proj,
        &[
            (
                "cases/named.yaml",
                "gold: ../../outside/g2.json\nprediction: { total: \"2\" }\nthresholds: { min_exact_match: 1 }\n",
            ),
            (
                "cases/linked.yaml",
                "gold: ../linked.json\nprediction: { total: \"2\" }\nthresholds: { min_exact_match: 1 }\n",
            ),
            (
                "cases/inside.yaml",
                "gold: { total: \"1\" }\nprediction: { total: \"1\" }\nthresholds: { min_exact_match: 1 }\n",
            ),
        ],
    );
    let out = goldgate(&proj, &["test", "cases", "--report", "report.json"]);
    let text = stdout(&out);
    // The other case runs on.
    assert_eq!(verdict_of(&text, "inside"), "test inside ... ok", "{text}");
    let real = std::fs::canonicalize(&proj).unwrap();
    assert_eq!(
        failure_block(&text, "named"),
        format!(
            "error: cases/named.yaml:1:7: gold: the gold file `cases/../../outside/g2.json` is outside the project `{}`, and goldgate reads nothing outside it (move the gold file into the project (the folder with Cargo.toml or .git) and name it from there; a link that leads out counts as outside)\nthe case could not be loaded, so it was not run",
            real.display()
        )
    );
    let linked = failure_block(&text, "linked");
    assert!(
        linked.starts_with(
            "error: cases/linked.yaml:1:7: gold: the gold file `cases/../linked.json` is outside the project"
        ),
        "{linked}"
    );
    // Whatever the run's records hold, review writes neither file.
    let review = goldgate(
        &proj,
        &[
            "review",
            "cases",
            "--report",
            "report.json",
            "--accept",
            "--all",
        ],
    );
    for file in ["g1.json", "g2.json"] {
        assert_eq!(
            std::fs::read_to_string(outside.join(file)).unwrap(),
            gold,
            "{file} was written: {}{}",
            stdout(&review),
            stderr(&review)
        );
    }
}

#[test]
fn a_document_outside_the_project_is_refused_and_never_embedded_in_the_page() {
    let (_tmp, proj, outside) = project_and_outside();
    let from = support::fixtures("grounding");
    for file in ["cases/suite.yaml", "cases/out/ocr/invoice.json"] {
        let to = proj.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from.join(file), to).unwrap();
    }
    std::fs::copy(from.join("invoice.png"), outside.join("secret.png")).unwrap();
    let case = std::fs::read_to_string(from.join("cases/invoice.yaml"))
        .unwrap()
        .replace(
            "document: ../invoice.png",
            "document: ../../outside/secret.png",
        );
    write_files(&proj, &[("cases/invoice.yaml", &case)]);
    let page = proj.join("page.html");
    let out = goldgate(&proj, &["test", "cases", "--html", page.to_str().unwrap()]);
    let text = stdout(&out);
    let block = failure_block(&text, "invoice::ocr");
    assert!(
        block.starts_with(
            "error: cases/invoice.yaml:2:11: document: the document `cases/../../outside/secret.png` is outside the project"
        ),
        "{block}"
    );
    assert!(
        block.contains("move the document into the project"),
        "{block}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("iVBORw0KGgo"), "the image is embedded");
}

#[test]
fn a_metadata_table_or_schema_outside_the_project_is_refused_where_the_suite_names_it() {
    let (_tmp, proj, outside) = project_and_outside();
    write_files(
        &outside,
        &[
            ("meta.csv", "id,lang\na,en\n"),
            ("schema.json", "{\"properties\": {\"total\": {}}}"),
        ],
    );
    let suite = |extra: &str| {
        format!(
            "cases:\n  gold: labels/{{case}}.json\n{extra}pipelines:\n  p: out/{{case}}.json\ndefaults:\n  thresholds: {{ min_exact_match: 1 }}\n"
        )
    };
    write_files(
        &proj,
        &[
            (
                "cases/m/suite.yaml",
                &suite("  metadata: ../../../outside/meta.csv\n  key: id\n"),
            ),
            ("cases/m/labels/a.json", "{\"total\": \"1\"}"),
            ("cases/m/out/a.json", "{\"total\": \"1\"}"),
            (
                "cases/s/suite.yaml",
                &suite("  schema: ../../../outside/schema.json\n"),
            ),
            ("cases/s/labels/a.json", "{\"total\": \"1\"}"),
            ("cases/s/out/a.json", "{\"total\": \"1\"}"),
        ],
    );
    let text = stdout(&goldgate(&proj, &["test", "cases"]));
    let block = failure_block(&text, "m/a::p");
    assert!(
        block.starts_with(
            "error: cases/m/suite.yaml:3:13: cases.metadata: the metadata table `cases/m/../../../outside/meta.csv` is outside the project"
        ),
        "{block}"
    );
    let block = failure_block(&text, "s/a::p");
    assert!(
        block.starts_with(
            "error: cases/s/suite.yaml:3:11: cases.schema: the schema `cases/s/../../../outside/schema.json` is outside the project"
        ),
        "{block}"
    );
}

/// Writes `text` to `file` with a modification time well before any run of the test.
fn written_long_ago(file: &Path, text: &str) {
    std::fs::write(file, text).unwrap();
    let then = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(then)
        .unwrap();
}

/// A case whose gold `a` and `b` are in `cases/g.json`, both off their predictions, run once:
/// its records are in `report.json`.
fn two_fields_off_their_gold(proj: &Path, gold: &str) {
    write_files(
        proj,
        &[(
            "cases/c.yaml",
            "gold: g.json\nprediction: { a: \"A2\", b: \"B2\" }\nthresholds: { min_exact_match: 1 }\n",
        )],
    );
    written_long_ago(&proj.join("cases/g.json"), gold);
    let run = goldgate(proj, &["test", "cases", "--report", "report.json"]);
    assert_eq!(run.status.code(), Some(101), "{}", stdout(&run));
}

#[cfg(unix)]
#[test]
fn review_refuses_to_write_through_a_link_even_one_inside_the_project() {
    let (_tmp, proj, _) = project_and_outside();
    let gold = "{\"a\": \"A1\", \"b\": \"B1\"}\n";
    two_fields_off_their_gold(&proj, gold);
    std::fs::rename(proj.join("cases/g.json"), proj.join("real.json")).unwrap();
    std::os::unix::fs::symlink("../real.json", proj.join("cases/g.json")).unwrap();
    let out = goldgate(
        &proj,
        &[
            "review",
            "cases",
            "--report",
            "report.json",
            "--accept",
            "c#a",
        ],
    );
    assert_eq!(
        stderr(&out),
        "refused `c#a`: `cases/g.json` is a link, and review writes no file through a link (it could lead out of the project): edit the file it leads to by hand, or put that file in the link's place\n"
    );
    assert_eq!(
        std::fs::read_to_string(proj.join("real.json")).unwrap(),
        gold
    );
}

#[test]
fn two_reviews_at_once_on_one_gold_file_never_lose_an_edit() {
    let (_tmp, proj, _) = project_and_outside();
    let gold = "{\"a\": \"A1\", \"b\": \"B1\"}\n";
    two_fields_off_their_gold(&proj, gold);
    let review = |id: &str| {
        support::command(
            &proj,
            &["review", "cases", "--report", "report.json", "--accept", id],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
    };
    let refused = |id: &str| {
        format!(
            "refused `{id}`: `cases/g.json` changed since the run: run the tests again (`goldgate review --run`) and review what they find\n"
        )
    };
    for attempt in 0..20 {
        // The gold as the run read it, older than the run's records.
        written_long_ago(&proj.join("cases/g.json"), gold);
        let both = [review("c#a"), review("c#b")].map(|child| child.wait_with_output().unwrap());
        let text = std::fs::read_to_string(proj.join("cases/g.json")).unwrap();
        let edited = [("c#a", "\"a\": \"A2\""), ("c#b", "\"b\": \"B2\"")];
        for (out, (id, value)) in both.iter().zip(edited) {
            let said = format!("{}{}", stdout(out), stderr(out));
            if text.contains(value) {
                assert!(out.status.success(), "attempt {attempt}: {said}");
                assert!(
                    said.contains("cases/g.json:1: "),
                    "attempt {attempt}: {said}"
                );
            } else {
                // Not in the file: the review said it refused, and printed no edit.
                assert_eq!(
                    stderr(out),
                    refused(id),
                    "attempt {attempt}: {said}\n{text}"
                );
                assert!(
                    !said.contains("cases/g.json:1: "),
                    "attempt {attempt}: {said}\n{text}"
                );
            }
        }
        assert!(
            text.contains("\"a\": \"A2\"") || text.contains("\"b\": \"B2\""),
            "attempt {attempt}: neither edit was made: {text}"
        );
    }
}
