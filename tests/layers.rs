//! The crate's layers (see the crate docs): each top-level module imports only from the layers
//! below it, siblings of one layer not from each other, and the renderer computes nothing (it
//! imports no metric and no scoring code). Read from the sources, so a new `use` that breaks
//! the picture fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module and its layer, from the bottom.
const LAYERS: [(&str, u32); 11] = [
    ("base", 0),
    ("spec", 1),
    ("metrics", 1),
    ("model", 2),
    ("load", 3),
    ("evaluate", 3),
    ("record", 4),
    ("review", 5),
    ("render", 6),
    ("run", 7),
    ("cli", 8),
];

/// What the renderer may not reach: it reads outcomes and records, it does not score.
const NOT_FOR_RENDER: [&str; 4] = [
    "crate::metrics",
    "crate::evaluate::field",
    "crate::evaluate::checks",
    "crate::evaluate::aggregate::aggregate",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

/// Every `crate::a::b…` path written in a file, as text (`use` lines and inline paths; a group
/// `crate::{a, b}` is not used in this crate).
fn crate_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(tail.len());
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            found.push(tail[..end].trim_end_matches(':').to_owned());
        }
        rest = &tail[end.max(7)..];
    }
    found
}

#[test]
fn each_layer_imports_only_from_below_and_render_computes_nothing() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = BTreeSet::new();
    let mut seen = 0;
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = top.trim_end_matches(".rs").to_owned();
        let Some(own) = layer(&module) else {
            assert!(
                ["lib", "main", "bin"].contains(&module.as_str()),
                "`src/{}` is in no layer: add it to LAYERS and to the crate docs",
                rel.display()
            );
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for path in crate_paths(&text) {
            seen += 1;
            let target = path.split("::").nth(1).unwrap_or("");
            if target == module {
                continue;
            }
            match layer(target) {
                Some(l) if l < own => {}
                Some(l) => {
                    wrong.insert(format!(
                        "src/{}: `{path}` reaches layer {l} from layer {own} ({module})",
                        rel.display()
                    ));
                }
                None => {
                    wrong.insert(format!(
                        "src/{}: `{path}` reaches outside the layers",
                        rel.display()
                    ));
                }
            }
            if module == "render" && NOT_FOR_RENDER.iter().any(|p| path.starts_with(p)) {
                wrong.insert(format!(
                    "src/{}: the renderer reaches `{path}`; keep what it shows in the outcome",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        seen > 100,
        "only {seen} crate paths found: the scan is broken"
    );
    assert!(
        wrong.is_empty(),
        "{} imports break the layers:\n{}",
        wrong.len(),
        wrong.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_scan_sees_paths_in_use_lines_and_code() {
    assert_eq!(
        crate_paths(
            "use crate::base::value::Value;\nlet x = crate::model::case::Case::new(); supercrate::x"
        ),
        ["crate::base::value::Value", "crate::model::case::Case::new"]
    );
}
