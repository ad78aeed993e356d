//! What a run prints and writes stays readable and bounded whatever a case holds: failure
//! messages of cases with thousands of fields, load errors of huge values, JUnit of characters
//! XML cannot hold, step summaries of text that looks like Markdown, and baselines blessed while
//! a test cannot be loaded.

use std::path::Path;
use std::process::Command;

mod support;
use support::{goldgate_with as goldgate, stdout, write_files};

fn write(dir: &Path, file: &str, text: &str) {
    write_files(dir, &[(file, text)]);
}

/// The failure block libtest prints for one test.
fn failure_block(out: &str, name: &str) -> String {
    let start = out.find(&format!("---- {name} ----\n")).unwrap_or_else(|| {
        panic!(
            "no failure block for {name} in:\n{}",
            &out[..out.len().min(3000)]
        )
    });
    let body = out[start..].split_once('\n').unwrap().1;
    let end = body
        .find("\n\n---- ")
        .or_else(|| body.find("\n\nfailures:\n"));
    body[..end.unwrap_or(body.len())].to_owned()
}

#[test]
fn the_failure_message_of_a_case_of_many_fields_and_variants_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    const FIELDS: usize = 20_000;
    let mut case = String::from("prediction: p.json\nthresholds: { min_exact_match: 1 }\ngold:\n");
    let mut prediction = serde_json::Map::new();
    // The field of many variants first: its block is among those shown.
    let variants: Vec<String> = (0..FIELDS).map(|i| format!("x{i}")).collect();
    case.push_str(&format!("  v: {{ any_of: [{}] }}\n", variants.join(", ")));
    prediction.insert("v".into(), "bbbbbbbbbb".into());
    for i in 0..FIELDS {
        case.push_str(&format!("  f{i}: aaaaaaaaaa\n"));
        prediction.insert(format!("f{i}"), "bbbbbbbbbb".into());
    }
    write(dir.path(), "cases/wide.yaml", &case);
    write(
        dir.path(),
        "cases/p.json",
        &serde_json::Value::Object(prediction).to_string(),
    );
    let out = goldgate(
        dir.path(),
        &["test", "cases", "--report", "report.json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(101));
    let text = stdout(&out);
    let message = failure_block(&text, "wide");
    assert!(
        message.starts_with("case failed: min_exact_match failed: 0.0000 < 1"),
        "{}",
        &message[..300]
    );
    // Twenty field blocks, then a count of the rest.
    assert_eq!(
        message.matches("\nfield `").count(),
        20,
        "{}",
        &message[..3000]
    );
    assert!(
        message.contains("… and 19981 more fields"),
        "{}",
        &message[..3000]
    );
    // Twenty rows of the table, then a count of the rest.
    let rows = message
        .lines()
        .filter(|l| l.contains(" | ") && !l.starts_with("  field "))
        .count();
    assert_eq!(rows, 20, "{message}");
    assert!(message.contains("… and 19981 more rows"), "{message}");
    // No line lists every variant: twenty, then a count of the rest.
    let longest = message.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest <= 2_500, "a line of {longest} characters");
    assert!(message.contains("… and 19980 more variants"), "{message}");
    assert!(
        message.len() < 64 * 1024,
        "a message of {} bytes",
        message.len()
    );
    assert!(
        message.lines().count() < 400,
        "{} lines",
        message.lines().count()
    );
    // The report keeps every field and variant.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let fields = report["cases"][0]["fields"]
        .as_array()
        .or_else(|| report["cases"][0]["outcome"]["fields"].as_array());
    if let Some(fields) = fields {
        assert_eq!(fields.len(), FIELDS + 1);
    } else {
        let whole = report.to_string();
        assert!(whole.contains("\"f19999\""));
        assert!(whole.contains("\"x19999\""));
    }
}

#[test]
fn load_errors_of_huge_values_are_bounded_in_the_message_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let nines = "9".repeat(99_000);
    let mut case = String::from("prediction: { n: 1 }\ngold: { n: 1 }\nrubrics:\n");
    for i in 0..300 {
        case.push_str(&format!(
            "  - must_right: r{i}\n    field: n\n    number: \"{nines}\"\n"
        ));
    }
    write(dir.path(), "cases/huge.yaml", &case);
    let out = goldgate(
        dir.path(),
        &["test", "cases", "--report", "report.json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(101));
    let text = stdout(&out);
    let message = failure_block(&text, "huge");
    let errors = message.lines().filter(|l| l.starts_with("error: ")).count();
    assert_eq!(errors, 20, "{}", &message[..message.len().min(3000)]);
    assert!(
        message.contains("… and 280 more errors"),
        "{}",
        &message[..3000]
    );
    let longest = message.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest <= 2_500, "a line of {longest} characters");
    assert!(
        text.len() < 256 * 1024,
        "{} bytes on standard output",
        text.len()
    );
    let report = std::fs::read(dir.path().join("report.json")).unwrap();
    assert!(report.len() < 4 << 20, "a report of {} bytes", report.len());
    // The record still lists every error, each cut with a note.
    let report: serde_json::Value = serde_json::from_slice(&report).unwrap();
    let problems = report["cases"][0]["errors"].as_array().unwrap();
    assert_eq!(problems.len(), 300);
    let first = problems[0]["message"].as_str().unwrap();
    assert!(first.chars().count() <= 2_100, "{}", first.chars().count());
    assert!(first.contains("more characters"), "{first}");
}

/// The XML 1.0 characters: anything else makes the document unreadable.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[test]
fn junit_stays_well_formed_whatever_characters_the_data_holds() {
    let dir = tempfile::tempdir().unwrap();
    for (name, value) in [
        ("ffff", "\\uFFFF"),
        ("fffe", "\\uFFFE"),
        ("control", "a\\u0001b\\u001Bc"),
    ] {
        write(
            dir.path(),
            &format!("cases/{name}.yaml"),
            &format!(
                "prediction: {{ x: \"{value}\" }}\ngold: {{ x: y }}\nrubrics:\n  - must_right: \"exact \\uFFFF\"\n    field: x\n    exact: true\n"
            ),
        );
    }
    let out = goldgate(dir.path(), &["test", "cases", "--junit", "j.xml"], &[]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let xml = std::fs::read_to_string(dir.path().join("j.xml")).unwrap();
    assert!(xml.contains("<testcase name=\"ffff\""), "{xml}");
    let bad: Vec<char> = xml.chars().filter(|c| !xml_char(*c)).collect();
    assert!(bad.is_empty(), "{bad:?} in {xml}");
    assert!(
        !xml.contains("&#x"),
        "no character references of forbidden characters: {xml}"
    );
    assert!(xml.contains('\u{FFFD}'), "{xml}");
    let parsed = Command::new("python3")
        .args([
            "-c",
            "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])",
            "j.xml",
        ])
        .current_dir(dir.path())
        .output();
    match parsed {
        Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr)),
        // Without Python, the character scan above stands alone.
        Err(e) => eprintln!("python3 not run: {e}"),
    }
}

#[test]
fn the_step_summary_shows_markdown_and_html_in_labels_as_text() {
    let dir = tempfile::tempdir().unwrap();
    // A backtick in the label closes the span the verdict line puts it in.
    let label =
        "lab`el ![t](https://evil.example/t.png) <img src=https://evil.example/p.png> **b** | x";
    write(
        dir.path(),
        "cases/evil.yaml",
        &format!(
            "prediction: {{ x: z }}\ngold: {{ x: y }}\nrubrics:\n  - must_right: {}\n    field: x\n    exact: true\n",
            serde_json::to_string(label).unwrap()
        ),
    );
    let summary = dir.path().join("summary.md");
    let out = goldgate(
        dir.path(),
        &["test", "cases"],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    let page = std::fs::read_to_string(&summary).unwrap();
    let line = page
        .lines()
        .find(|l| l.starts_with("- ") && l.contains("evil"))
        .unwrap_or_else(|| panic!("{page}"));
    // No raw HTML, no image, link or emphasis outside a code span.
    let outside = outside_code_spans(line);
    assert!(!outside.contains('<'), "{line}");
    assert!(!outside.contains("!["), "{line}");
    assert!(!outside.contains("]("), "{line}");
    assert!(!outside.contains('*'), "{line}");
    assert!(!outside.contains('|'), "{line}");
    // The text is all still there, to be read.
    assert!(line.contains("evil.example/t.png"), "{line}");
    assert!(line.contains("&lt;img"), "{line}");
}

/// What a CommonMark reader renders as Markdown: the line without its code spans (a span opens
/// with a run of backticks and closes at the next run of the same length).
fn outside_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' && i + 1 < chars.len() {
            // An escaped character is text.
            i += 2;
            continue;
        }
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let open = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + open;
        let mut closed = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let run = chars[j..].iter().take_while(|c| **c == '`').count();
                if run == open {
                    closed = Some(j + run);
                    break;
                }
                j += run;
            } else {
                j += 1;
            }
        }
        match closed {
            Some(end) => i = end,
            None => {
                out.extend(&chars[i..i + open]);
                i += open;
            }
        }
    }
    out
}

#[test]
fn blessing_keeps_the_entry_of_a_test_that_could_not_be_loaded() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cases/suite.yaml", "baseline: baseline.json\n");
    for name in ["a", "b"] {
        write(
            dir.path(),
            &format!("cases/{name}.yaml"),
            "prediction: { x: y }\ngold: { x: y }\nthresholds: { min_anls: 0.5 }\n",
        );
    }
    let always = [("GOLDGATE_UPDATE", "always")];
    let out = goldgate(dir.path(), &["test", "cases"], &always);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let base = dir.path().join("cases/baseline.json");
    let entries = |base: &Path| -> Vec<String> {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(base).unwrap()).unwrap();
        json["cases"].as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(entries(&base), ["a", "b"]);

    // Two files of one test name: `b` runs, and fails, but it is still a test of the set.
    write(
        dir.path(),
        "cases/b.yml",
        "prediction: { x: y }\ngold: { x: y }\n",
    );
    let out = goldgate(dir.path(), &["test", "cases"], &always);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(101), "{text}");
    assert!(text.contains("test b ... FAILED"), "{text}");
    assert!(!text.contains("no longer exist"), "{text}");
    assert_eq!(entries(&base), ["a", "b"]);
    // Without blessing, nothing is said to be gone either.
    let out = goldgate(dir.path(), &["test", "cases"], &[]);
    assert!(
        !stdout(&out).contains("no longer exist"),
        "{}",
        stdout(&out)
    );

    // A case deleted is still dropped.
    std::fs::remove_file(dir.path().join("cases/b.yml")).unwrap();
    std::fs::remove_file(dir.path().join("cases/b.yaml")).unwrap();
    let out = goldgate(dir.path(), &["test", "cases"], &always);
    assert!(
        stdout(&out).contains("dropped 1 entries of tests that no longer exist: b"),
        "{}",
        stdout(&out)
    );
    assert_eq!(entries(&base), ["a"]);
}
