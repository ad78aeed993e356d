//! The JSON Schema of case and rubric files: generated from the serde types, committed under
//! `schema/` for editors, and accepting every valid case the project ships.

use std::path::Path;

use goldgate::cli::schema;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn validator(kind: &str) -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(&schema(kind)).unwrap();
    jsonschema::draft7::new(&schema).expect("the generated schema is valid draft-07")
}

/// A YAML file as JSON, with YAML's types (what an editor validates).
fn yaml_as_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn committed_schemas_are_the_generated_ones() {
    for (kind, file) in [
        ("case", "case.schema.json"),
        ("rubrics", "rubrics.schema.json"),
        ("suite", "suite.schema.json"),
        ("report", "report.schema.json"),
        ("review", "review.schema.json"),
    ] {
        let path = root().join("schema").join(file);
        if std::env::var_os("GOLDGATE_BLESS").is_some() {
            std::fs::write(&path, schema(kind)).unwrap();
        }
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            schema(kind),
            "{file} is stale: run `goldgate schema > schema/{file}`"
        );
    }
}

#[test]
fn every_valid_case_and_rubric_set_validates() {
    let cases = validator("case");
    let mut checked = 0;
    for folder in [
        "cases",
        "tests/fixtures/verdicts/cases",
        "tests/fixtures/typed/cases",
        "tests/fixtures/checks/cases",
    ] {
        let dir = root().join(folder);
        for file in goldgate::cli::loading_case_files(&dir).unwrap() {
            let json = yaml_as_json(&file);
            let errors: Vec<String> = cases
                .iter_errors(&json)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", file.display());
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} cases validated");
    let suites = validator("suite");
    let mut suite_files = 0;
    for entry in walkdir::WalkDir::new(root().join("cases"))
        .into_iter()
        .filter_map(Result::ok)
    {
        if entry.file_name() == "suite.yaml" {
            let json = yaml_as_json(entry.path());
            let errors: Vec<String> = suites
                .iter_errors(&json)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{}: {errors:?}", entry.path().display());
            suite_files += 1;
        }
    }
    assert_eq!(suite_files, 3, "the example suites validate");
    let sets = validator("rubrics");
    for entry in std::fs::read_dir(root().join("rubrics")).unwrap() {
        let path = entry.unwrap().path();
        assert!(sets.is_valid(&yaml_as_json(&path)), "{}", path.display());
    }
}

#[test]
fn the_schema_refuses_a_misspelt_key() {
    let cases = validator("case");
    let good = serde_json::json!({ "prediction_text": "x", "rubrics": [{ "must_right": "a", "contains": "x" }] });
    assert!(cases.is_valid(&good));
    let misspelt = serde_json::json!({ "prediction_text": "x", "rubric": [{ "must_right": "a", "contains": "x" }] });
    assert!(!cases.is_valid(&misspelt));
    let misspelt_inside = serde_json::json!({ "prediction_text": "x", "rubrics": [{ "must-right": "a", "contains": "x" }] });
    assert!(!cases.is_valid(&misspelt_inside));
    let bad_profile = serde_json::json!({ "prediction_text": "x", "profile": "anls-star", "thresholds": { "min_score": 1 } });
    assert!(!cases.is_valid(&bad_profile));
}

/// The report of the shipped gold set, written by the binary, is what the committed report
/// schema describes; a record missing a key, or with one too many, is not.
#[test]
fn the_shipped_gold_sets_report_validates_against_the_report_schema() {
    let committed: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/report.schema.json")).unwrap(),
    )
    .unwrap();
    let report_schema = jsonschema::draft7::new(&committed).expect("a valid draft-07 schema");
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_goldgate"))
        .args(["test", "cases", "--report"])
        .arg(&report)
        .current_dir(root())
        .env_remove("GOLDGATE_RUN_ID")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("GOLDGATE_UPDATE")
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let errors: Vec<String> = report_schema
        .iter_errors(&json)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert!(json["cases"].as_array().unwrap().len() >= 10);
    let mut broken = json.clone();
    broken["cases"][0]["surprise"] = serde_json::json!(1);
    assert!(
        !report_schema.is_valid(&broken),
        "an unknown key in a record passed"
    );
    let mut broken = json;
    broken["cases"][0].as_object_mut().unwrap().remove("status");
    assert!(
        !report_schema.is_valid(&broken),
        "a record without its status passed"
    );
}

/// Each schema names itself: one `$id` per kind and goldgate version, right after `$schema`.
#[test]
fn every_schema_has_its_id() {
    for kind in ["case", "rubrics", "suite", "report", "review"] {
        let json: serde_json::Value = serde_json::from_str(&schema(kind)).unwrap();
        let keys: Vec<&String> = json.as_object().unwrap().keys().take(2).collect();
        assert_eq!(keys, ["$schema", "$id"], "{kind}");
        assert_eq!(
            json["$id"],
            format!("urn:goldgate:{}:schema:{kind}", env!("CARGO_PKG_VERSION"))
        );
    }
}

/// The user has the README and the docs, not the contract the project was built to: no schema
/// description, help text or crate documentation refers to it.
#[test]
fn nothing_a_user_reads_refers_to_the_contract() {
    let mention = |text: &str| text.contains("SPEC");
    for kind in ["case", "rubrics", "suite", "report", "review"] {
        assert!(!mention(&schema(kind)), "the {kind} schema mentions SPEC");
    }
    let help = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_goldgate"))
            .args(args)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let mut helps = vec![help(&["--help"])];
    for command in [
        "test",
        "score",
        "calibrate",
        "schema",
        "init",
        "lint",
        "agree",
        "report",
        "review",
    ] {
        helps.push(help(&[command, "--help"]));
        helps.push(help(&["help", command]));
    }
    for text in &helps {
        assert!(!mention(text), "{text}");
    }
    // `goldgate test --help` lists goldgate's flags, then the libtest flags and variables.
    let test = help(&["test", "--help"]);
    for flag in [
        "--rubrics DIR",
        "--report FILE",
        "--junit FILE",
        "--html FILE",
        "--annotations WHEN",
        "--exact",
        "--skip FILTER",
        "--list",
        "--test-threads N",
        "GOLDGATE_UPDATE=always",
        "GOLDGATE_REPORT=FILE",
    ] {
        assert!(
            test.contains(flag),
            "`goldgate test --help` lacks {flag}:\n{test}"
        );
    }
    // The crate docs are read on docs.rs: the sources' doc comments and the guide.
    for entry in walkdir::WalkDir::new(root().join("src")).into_iter() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            assert!(!mention(&text), "{} mentions SPEC", entry.path().display());
        }
    }
}
