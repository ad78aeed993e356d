//! The samples of the book (`docs/src/**/*.md`) and of the README, checked as a reader would use
//! them. What a fenced block is says how it is checked:
//!
//! - ```` ```yaml ```` whose first line is `# cases/….yaml` or `# rubrics/….yaml`: a file of a
//!   project. The files of one page (with the ```` ```json ```` blocks after a
//!   `<!-- file: cases/… -->` line) are written to a folder and `goldgate lint` must find no
//!   mistake in them.
//! - ```` ```yaml ```` whose first line is `# suite.yaml`: a whole suite file, valid against the
//!   suite schema.
//! - ```` ```yaml ```` whose first line is `# .github/workflows/…` (a workflow) or `- uses:` (its
//!   steps): it must parse, and a step that uses goldgate's Action gives only inputs of `action.yml`.
//! - any other ```` ```yaml ````: a fragment; it must parse, and a mapping must be valid against the
//!   case, suite or rubric set schema with no key required.
//! - ```` ```json ````, ```` ```toml ````: must parse.
//! - ```` ```rust ````: compiled by `mdbook test docs`; one marked `ignore` must include a file of
//!   `docs/src/examples/`, which this test compiles against goldgate.
//! - ```` ```sh ````, ```` ```console ````: every `goldgate …` and `cargo goldgate …` line names a
//!   subcommand and flags that `--help` lists.
//!
//! Every problem is named by its page and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod support;

#[path = "support/pdf.rs"]
mod pdf;
use support::goldgate;

/// The Rust samples of the book, compiled here against goldgate: a sample that stops compiling
/// fails this test's build.
#[allow(dead_code)]
mod harness_sample {
    include!("../docs/src/examples/harness.rs");
}

/// The files of `docs/src/examples/` that the module above compiles.
const COMPILED_EXAMPLES: &[&str] = &["harness.rs"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fenced code block of a Markdown page.
#[derive(Debug, Clone)]
struct Block {
    /// The page, relative to the repository (`docs/src/suites.md`).
    page: String,
    /// The line of the opening fence, from 1.
    line: usize,
    /// The info string (`yaml`, `rust,ignore`).
    info: String,
    /// The path an HTML comment `<!-- file: PATH -->` just above the block gives it.
    file: Option<String>,
    /// The block's text, its indentation removed, ending with a newline.
    text: String,
}

impl Block {
    fn at(&self) -> String {
        format!("{}:{}", self.page, self.line)
    }

    fn language(&self) -> &str {
        self.info
            .split([',', ' '])
            .next()
            .unwrap_or_default()
            .trim()
    }

    fn first_line(&self) -> &str {
        self.text.lines().next().unwrap_or_default().trim()
    }
}

/// The fenced blocks of a Markdown text (fences indented in lists included).
fn blocks_of(page: &str, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let Some(info) = line.trim_start().strip_prefix("```") else {
            i += 1;
            continue;
        };
        let file = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix("<!-- file:"))
            .and_then(|l| l.strip_suffix("-->"))
            .map(|p| p.trim().to_owned());
        let start = i;
        let mut body = String::new();
        i += 1;
        while i < lines.len() && lines[i].trim() != "```" {
            let l = lines[i];
            body.push_str(
                l.get(indent.min(l.len() - l.trim_start().len())..)
                    .unwrap_or(l),
            );
            body.push('\n');
            i += 1;
        }
        assert!(
            i < lines.len(),
            "{page}:{}: a code block is never closed",
            start + 1
        );
        blocks.push(Block {
            page: page.to_owned(),
            line: start + 1,
            info: info.trim().to_owned(),
            file,
            text: body,
        });
        i += 1;
    }
    blocks
}

/// The README and every page of the book, in a stable order.
fn pages() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    walk(&root().join("docs/src"), &mut files);
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path
                .strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (name, text)
        })
        .collect()
}

fn all_blocks() -> Vec<Block> {
    pages()
        .iter()
        .flat_map(|(page, text)| blocks_of(page, text))
        .collect()
}

/// The path a `# cases/….yaml` or `# rubrics/….yaml` first line gives a YAML block.
fn project_path(block: &Block) -> Option<String> {
    if let Some(file) = &block.file {
        return Some(file.clone());
    }
    let path = block.first_line().strip_prefix("# ")?;
    let is_file = (path.starts_with("cases/") || path.starts_with("rubrics/"))
        && (path.ends_with(".yaml") || path.ends_with(".yml"))
        && !path.contains(' ');
    (block.language() == "yaml" && is_file).then(|| path.to_owned())
}

/// A committed schema of the repository (for a fragment, with its root's `required` removed),
/// and the keys of its root.
fn schema(kind: &str, whole: bool) -> Schema {
    let path = root().join(format!("schema/{kind}.schema.json"));
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    if !whole && let Some(object) = schema.as_object_mut() {
        object.remove("required");
    }
    let keys = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let validator =
        jsonschema::draft7::new(&schema).expect("the committed schema is valid draft-07");
    (validator, keys)
}

/// A schema's validator and the keys of its root.
type Schema = (jsonschema::Validator, Vec<String>);

/// YAML as JSON, with YAML's types; a repeated key keeps its last value, since a fragment may
/// show alternatives of one key.
fn yaml(text: &str) -> Result<Value, String> {
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::options::DuplicateKeyPolicy::LastWins,
    };
    serde_saphyr::from_str_with_options(text, options).map_err(|e| e.to_string())
}

/// The problems of one YAML block that is not a project file.
fn yaml_problems(block: &Block, validators: &BTreeMap<&str, Schema>) -> Vec<String> {
    let value = match yaml(&block.text) {
        Ok(v) => v,
        Err(e) => return vec![format!("{}: the YAML does not parse: {e}", block.at())],
    };
    let whole_suite = block.first_line() == "# suite.yaml";
    let kinds: &[&str] = if whole_suite {
        &["suite (whole)"]
    } else if value.is_object() {
        &["case", "suite", "rubrics"]
    } else {
        return Vec::new();
    };
    // Of the kinds it is not valid as, the one whose keys it writes most is named.
    let mut best: Option<(usize, &str, Vec<String>)> = None;
    for kind in kinds {
        let (validator, keys) = &validators[kind];
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{e} at `{}`", e.instance_path()))
            .collect();
        if errors.is_empty() {
            return Vec::new();
        }
        let unknown = value
            .as_object()
            .map_or(0, |m| m.keys().filter(|k| !keys.contains(*k)).count());
        if best
            .as_ref()
            .is_none_or(|(u, _, b)| (unknown, errors.len()) < (*u, b.len()))
        {
            best = Some((unknown, kind, errors));
        }
    }
    let (_, kind, errors) = best.unwrap();
    vec![format!(
        "{}: not valid as a {kind} file ({} of the schema): {}",
        block.at(),
        if whole_suite {
            "every key"
        } else {
            "no key required"
        },
        errors.join("; ")
    )]
}

/// A document as a page's sample names it: a PDF of two blank Letter pages (its pages are read
/// for boxes in points), else nothing.
fn blank_document(path: &Path) -> Vec<u8> {
    if path.extension().is_some_and(|e| e == "pdf") {
        let page = pdf::Page::new(612.0, 792.0);
        pdf::pdf(&[page.clone(), page], &[])
    } else {
        Vec::new()
    }
}

/// A GitHub workflow (`# .github/workflows/….yml` first) or a list of a workflow's steps.
fn is_workflow(block: &Block) -> bool {
    block.first_line().starts_with("# .github/workflows/")
        || block.first_line().starts_with("- uses:")
}

/// The problems of a workflow block: it parses, a whole workflow has `on` and `jobs`, and each step
/// that uses goldgate's Action (`…/goldgate@…`) gives only inputs `action.yml` declares.
fn workflow_problems(block: &Block) -> Vec<String> {
    let value = match yaml(&block.text) {
        Ok(v) => v,
        Err(e) => return vec![format!("{}: the YAML does not parse: {e}", block.at())],
    };
    let mut problems = Vec::new();
    let steps: Vec<&Value> = match &value {
        Value::Array(steps) => steps.iter().collect(),
        Value::Object(workflow) => {
            for key in ["on", "jobs"] {
                if !workflow.contains_key(key) {
                    problems.push(format!("{}: a workflow without `{key}`", block.at()));
                }
            }
            workflow
                .get("jobs")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|jobs| jobs.values())
                .filter_map(|job| job["steps"].as_array())
                .flatten()
                .collect()
        }
        _ => {
            return vec![format!(
                "{}: a workflow is a mapping or a list of steps",
                block.at()
            )];
        }
    };
    let action: Value = yaml(&std::fs::read_to_string(root().join("action.yml")).unwrap()).unwrap();
    let inputs = action["inputs"].as_object().unwrap();
    let ours = steps
        .iter()
        .filter(|s| s["uses"].as_str().is_some_and(|u| u.contains("/goldgate@")));
    let mut used = 0;
    for step in ours {
        used += 1;
        for key in step["with"].as_object().into_iter().flat_map(|w| w.keys()) {
            if !inputs.contains_key(key) {
                problems.push(format!(
                    "{}: action.yml has no input `{key}` (it has {:?})",
                    block.at(),
                    inputs.keys().collect::<Vec<_>>()
                ));
            }
        }
    }
    if used == 0 {
        problems.push(format!("{}: no step uses goldgate's Action", block.at()));
    }
    problems
}

/// The project files of one page, linted together: `(path, block)` pairs.
fn lint_problems(page: &str, files: &[(String, &Block)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    for (path, block) in files {
        let to = dir.path().join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, &block.text).unwrap();
    }
    // A scan is no text a page shows: each `document:` a case names is there, empty, as a missing
    // one is an error of its case.
    for (path, block) in files {
        let folder = Path::new(path).parent().unwrap_or(Path::new(""));
        for line in block.text.lines() {
            if let Some(document) = line.strip_prefix("document:") {
                let to = dir
                    .path()
                    .join(folder)
                    .join(document.trim().trim_matches('"'));
                if !to.exists() {
                    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                    std::fs::write(&to, blank_document(&to)).unwrap();
                }
            }
        }
    }
    if !files
        .iter()
        .any(|(p, _)| p.starts_with("cases/") && p.ends_with("ml"))
    {
        let (path, block) = &files[0];
        return vec![format!(
            "{}: `{path}` is shown without a case that uses it, so nothing loads it",
            block.at()
        )];
    }
    let out = goldgate(dir.path(), &["lint", "cases"]);
    if out.status.code() == Some(0) {
        return Vec::new();
    }
    // Each error line names a file of the project: name the page and line it was shown at.
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut problems: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("error"))
        .map(|l| {
            let shown = files
                .iter()
                .find_map(|(p, b)| {
                    let after = &l[l.find(&format!("{p}:"))? + p.len() + 1..];
                    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                    Some(match digits.parse::<usize>() {
                        // The fence is the page's line `b.line`; the file's line 1 is the next.
                        Ok(n) => format!("{}:{}", b.page, b.line + n),
                        Err(_) => b.at(),
                    })
                })
                .unwrap_or_else(|| page.to_owned());
            format!("{shown}: `goldgate lint` of the page's files: {l}")
        })
        .collect();
    if problems.is_empty() {
        problems.push(format!(
            "{page}: `goldgate lint` of the page's files failed: {text}"
        ));
    }
    problems
}

#[test]
fn every_yaml_json_and_toml_sample_loads() {
    let validators: BTreeMap<&str, Schema> = [
        ("case", schema("case", false)),
        ("suite", schema("suite", false)),
        ("rubrics", schema("rubrics", false)),
        ("suite (whole)", schema("suite", true)),
    ]
    .into_iter()
    .collect();
    let blocks = all_blocks();
    let mut problems = Vec::new();
    let mut projects: BTreeMap<String, Vec<(String, &Block)>> = BTreeMap::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for block in &blocks {
        if let Some(path) = project_path(block) {
            *counts.entry("project files").or_default() += 1;
            projects
                .entry(block.page.clone())
                .or_default()
                .push((path, block));
            continue;
        }
        match block.language() {
            "yaml" if is_workflow(block) => {
                *counts.entry("workflow").or_default() += 1;
                problems.extend(workflow_problems(block));
            }
            "yaml" => {
                *counts.entry("yaml").or_default() += 1;
                problems.extend(yaml_problems(block, &validators));
            }
            "json" => {
                *counts.entry("json").or_default() += 1;
                if let Err(e) = serde_json::from_str::<Value>(&block.text) {
                    problems.push(format!("{}: the JSON does not parse: {e}", block.at()));
                }
            }
            "toml" => {
                *counts.entry("toml").or_default() += 1;
                if let Err(e) = block.text.parse::<toml_edit::DocumentMut>() {
                    problems.push(format!("{}: the TOML does not parse: {e}", block.at()));
                }
            }
            _ => {}
        }
    }
    for (page, files) in &projects {
        problems.extend(lint_problems(page, files));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // A change that made the reader find no block would check nothing.
    for kind in ["project files", "yaml", "toml", "workflow"] {
        assert!(
            counts.get(kind).is_some_and(|&n| n > 0),
            "no {kind} block found: {counts:?}"
        );
    }
}

#[test]
fn the_readme_tour_is_the_case_whose_failure_it_shows() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let shown: Vec<(String, Block)> = blocks_of("README.md", &readme)
        .into_iter()
        .filter_map(|b| project_path(&b).map(|p| (p, b)))
        .collect();
    let paths: Vec<&str> = shown.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "cases/acme.yaml",
            "cases/outputs/acme.json",
            "rubrics/basics.yaml"
        ]
    );
    for (path, block) in &shown {
        let fixture =
            std::fs::read_to_string(root().join("tests/fixtures/readme").join(path)).unwrap();
        // A YAML block's first line names its file; the fixture has no such line.
        let text = if block.file.is_some() {
            block.text.as_str()
        } else {
            block.text.split_once('\n').unwrap().1
        };
        assert_eq!(
            text,
            fixture,
            "{}: `{path}` differs from tests/fixtures/readme/{path}, whose failure the README shows",
            block.at()
        );
    }
}

#[test]
fn every_rust_sample_is_compiled() {
    let examples = root().join("docs/src/examples");
    let mut found: Vec<String> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(
        found, COMPILED_EXAMPLES,
        "every file of docs/src/examples is compiled by the module `harness_sample` of tests/docs.rs: add it there"
    );
    let mut problems = Vec::new();
    let mut rust = 0;
    for block in all_blocks() {
        if block.language() != "rust" {
            continue;
        }
        rust += 1;
        let included = block
            .text
            .trim()
            .strip_prefix("{{#include examples/")
            .and_then(|r| r.strip_suffix("}}"));
        let untested = ["ignore", "no_run", "compile_fail"]
            .iter()
            .any(|a| block.info.split(',').any(|w| w.trim() == *a));
        // The README is read on GitHub, where an include is not expanded: its sample is a copy
        // of one that is compiled.
        let copies_an_example = || {
            COMPILED_EXAMPLES
                .iter()
                .any(|f| std::fs::read_to_string(examples.join(f)).is_ok_and(|t| t == block.text))
        };
        match included {
            Some(file) if COMPILED_EXAMPLES.contains(&file) => {}
            Some(file) => problems.push(format!(
                "{}: `examples/{file}` is not compiled by tests/docs.rs",
                block.at()
            )),
            None if block.page == "README.md" && !copies_an_example() => problems.push(format!(
                "{}: a Rust sample of the README must be a file of docs/src/examples, word for word",
                block.at()
            )),
            None if block.page == "README.md" => {}
            None if untested => problems.push(format!(
                "{}: a Rust sample marked `{}` is compiled by nothing: put it in docs/src/examples and include it",
                block.at(),
                block.info
            )),
            None => {} // `mdbook test docs` compiles and runs it.
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(rust > 0, "no Rust block found");
}

/// The subcommands `goldgate --help` lists.
fn subcommands() -> Vec<String> {
    let out = goldgate(root(), &["--help"]);
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    help.split("Commands:")
        .nth(1)
        .expect("`goldgate --help` lists its commands")
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// Whether `help` names `flag` as a flag (not as the start of a longer one).
fn names_flag(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(i, _)| {
        let after = help[i + flag.len()..].chars().next();
        let before = help[..i].chars().last();
        !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
            && !before.is_some_and(|c| c.is_alphanumeric() || c == '-')
    })
}

/// The words of a shell line, quotes removed, a trailing comment dropped.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '#') if !in_word => break,
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The `goldgate` or `cargo goldgate` command of a shell line, as its words from the program on.
fn goldgate_command(line: &str) -> Option<Vec<String>> {
    let words = words(line.trim().trim_start_matches("$ "));
    let start = words
        .iter()
        .position(|w| !w.contains('=') || w.starts_with('-'))?;
    let words = &words[start..];
    match words.first().map(String::as_str) {
        Some("goldgate") => Some(words.to_vec()),
        Some("cargo") if words.get(1).is_some_and(|w| w == "goldgate") => Some(words.to_vec()),
        _ => None,
    }
}

#[test]
fn every_goldgate_command_shown_names_real_flags() {
    let known = subcommands();
    let mut helps: BTreeMap<String, String> = BTreeMap::new();
    let mut help_of = |sub: &str| -> String {
        helps
            .entry(sub.to_owned())
            .or_insert_with(|| {
                let out = if sub == "cargo goldgate" {
                    Command::new(env!("CARGO_BIN_EXE_cargo-goldgate"))
                        .args(["goldgate", "test", "--help"])
                        .output()
                        .unwrap()
                } else {
                    // A subcommand of a subcommand is `cache prune`.
                    let mut args: Vec<&str> = sub.split(' ').collect();
                    args.push("--help");
                    goldgate(root(), &args)
                };
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                )
            })
            .clone()
    };
    let mut problems = Vec::new();
    let mut commands = 0;
    for block in all_blocks() {
        if !["sh", "console", "bash", "shell"].contains(&block.language()) {
            continue;
        }
        // A line ending in `\` goes on on the next.
        let mut joined = Vec::new();
        let mut current = String::new();
        for (n, line) in block.text.lines().enumerate() {
            if current.is_empty() {
                joined.push(n);
            }
            match line.trim_end().strip_suffix('\\') {
                Some(head) => {
                    current.push_str(head);
                    current.push(' ');
                }
                None => {
                    current.push_str(line);
                    let at = format!("{}:{}", block.page, block.line + 1 + joined.last().unwrap());
                    if let Some(words) = goldgate_command(&current) {
                        commands += 1;
                        problems.extend(command_problems(&at, &words, &known, &mut help_of));
                    }
                    current.clear();
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(commands > 10, "only {commands} goldgate commands found");
}

fn command_problems(
    at: &str,
    words: &[String],
    known: &[String],
    help_of: &mut impl FnMut(&str) -> String,
) -> Vec<String> {
    let (program, sub, rest) = if words[0] == "cargo" {
        match words.get(2).map(String::as_str) {
            Some("test") => ("cargo goldgate", "cargo goldgate", &words[3..]),
            // The same arguments as `goldgate review`.
            Some("review") => ("cargo goldgate", "review", &words[3..]),
            other => {
                return vec![format!(
                    "{at}: `cargo goldgate` knows `test` and `review`, not {other:?}"
                )];
            }
        }
    } else {
        let Some(sub) = words.get(1) else {
            return Vec::new();
        };
        // `goldgate --version`: a flag of the program itself.
        if sub.starts_with('-') {
            let help = support::stdout(&goldgate(root(), &["--help"]));
            return if names_flag(&help, sub) {
                Vec::new()
            } else {
                vec![format!(
                    "{at}: `goldgate` has no flag `{sub}` (its --help does not list it)"
                )]
            };
        }
        if !known.contains(sub) {
            return vec![format!(
                "{at}: `goldgate {sub}` is no subcommand (`goldgate --help` lists {known:?})"
            )];
        }
        ("goldgate", sub.as_str(), &words[2..])
    };
    // A subcommand with subcommands of its own (`goldgate cache prune`): the flags are theirs.
    let nested;
    let (sub, rest) = match rest.first() {
        Some(next) if !next.starts_with('-') && help_of(sub).contains("\nCommands:") => {
            nested = format!("{sub} {next}");
            (nested.as_str(), &rest[1..])
        }
        _ => (sub, rest),
    };
    let help = help_of(sub);
    let mut problems = Vec::new();
    // What follows `--` is the runner's (`cargo goldgate test -- --partition …`).
    for word in rest.iter().take_while(|w| *w != "--") {
        for part in word.split('|') {
            let flag = part
                .trim_matches(|c| c == '[' || c == ']')
                .split('=')
                .next()
                .unwrap_or_default();
            let is_flag = flag.starts_with('-') && flag.len() > 1 && flag != "-";
            if is_flag && !names_flag(&help, flag) {
                problems.push(format!(
                    "{at}: `{program} {}` has no flag `{flag}` (its --help does not list it)",
                    if sub == program { "test" } else { sub }
                ));
            }
        }
    }
    problems
}

/// The id mdBook and GitHub give a heading: lowercase, spaces as `-`, punctuation dropped.
fn heading_id(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The ids of a page's headings, code blocks left out.
fn heading_ids(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut ids = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            ids.push(heading_id(line.trim_start_matches('#')));
        }
    }
    ids
}

#[test]
fn every_link_between_pages_leads_somewhere() {
    let mut problems = Vec::new();
    let mut links = 0;
    for (page, text) in pages() {
        let dir = root().join(&page).parent().unwrap().to_path_buf();
        let mut in_code = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            for (i, _) in line.match_indices("](") {
                let target = line[i + 2..].split(')').next().unwrap_or_default();
                if target.contains("://") || target.starts_with('<') {
                    continue;
                }
                links += 1;
                let at = format!("{page}:{}", n + 1);
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let path = if file.is_empty() {
                    root().join(&page)
                } else {
                    dir.join(file)
                };
                let Ok(linked) = std::fs::read(&path) else {
                    problems.push(format!("{at}: the link `{target}` leads to no file"));
                    continue;
                };
                if !anchor.is_empty()
                    && !heading_ids(&String::from_utf8_lossy(&linked)).contains(&anchor.to_owned())
                {
                    problems.push(format!(
                        "{at}: the link `{target}` names no heading of `{file}`"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(links > 20, "only {links} links found");
}
