//! `goldgate cache prune|clear`: the kept outputs of the suites' `run:` commands, pruned by age
//! or size, or cleared.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::run::cache::MARKER;

/// What to do to the cache folders under a folder.
pub(crate) enum Tidy {
    /// Remove the outputs unused for longer than `older_than`, then the least recently used
    /// ones until the folder holds at most `max_bytes`.
    Prune {
        older_than: Duration,
        max_bytes: Option<u64>,
    },
    /// Remove every kept output.
    Clear,
}

/// A cache folder that could not be tidied: the folder, and the system's error.
#[derive(Debug)]
pub(crate) struct TidyError {
    folder: PathBuf,
    source: std::io::Error,
}

impl std::fmt::Display for TidyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot tidy `{}`: {}",
            self.folder.display(),
            self.source
        )
    }
}

impl std::error::Error for TidyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// A kept output: its file, size and when it was last written or used.
struct Entry {
    path: PathBuf,
    bytes: u64,
    used: SystemTime,
}

/// Tidies every cache folder under `dir` (a folder holding goldgate's marker); what it did, a
/// line per folder.
pub(crate) fn tidy(dir: &Path, what: &Tidy) -> Result<String, TidyError> {
    let folders: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        // A build's output and other tools' hidden folders hold no cache of goldgate's.
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name == "target"
                    || name == "node_modules"
                    || (name.starts_with('.') && name != ".goldgate"))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.file_name() == MARKER)
        .filter_map(|e| e.path().parent().map(Path::to_path_buf))
        .collect();
    if folders.is_empty() {
        return Ok(format!(
            "no cache folder under `{}` (a suite's `run:` keeps its outputs in `.goldgate/cache` beside it, or in its `run.cache_folder`)\n",
            dir.display()
        ));
    }
    let mut out = String::new();
    for folder in folders {
        out.push_str(&tidy_folder(&folder, what)?);
    }
    Ok(out)
}

fn tidy_folder(folder: &Path, what: &Tidy) -> Result<String, TidyError> {
    let cannot = |source| TidyError {
        folder: folder.to_path_buf(),
        source,
    };
    let mut entries: Vec<Entry> = Vec::new();
    for e in std::fs::read_dir(folder).map_err(cannot)?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let is_output = name.len() == 64 + 5
            && name.ends_with(".json")
            && name[..64].bytes().all(|b| b.is_ascii_hexdigit());
        let Ok(meta) = e.metadata() else { continue };
        if is_output && meta.is_file() {
            entries.push(Entry {
                path: e.path(),
                bytes: meta.len(),
                used: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            });
        }
    }
    // The least recently used first.
    entries.sort_by_key(|e| e.used);
    let now = SystemTime::now();
    let before = entries.len();
    let removed: Vec<Entry> = match what {
        Tidy::Clear => std::mem::take(&mut entries),
        Tidy::Prune {
            older_than,
            max_bytes,
        } => {
            let (mut old, kept): (Vec<Entry>, Vec<Entry>) = entries
                .into_iter()
                .partition(|e| now.duration_since(e.used).unwrap_or_default() > *older_than);
            entries = kept;
            if let Some(max) = max_bytes {
                let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
                while total > *max && !entries.is_empty() {
                    let e = entries.remove(0);
                    total -= e.bytes;
                    old.push(e);
                }
            }
            old
        }
    };
    for e in &removed {
        std::fs::remove_file(&e.path).map_err(cannot)?;
    }
    if matches!(what, Tidy::Clear) {
        // What the index named is gone: a miss now says it was never kept.
        let _ = std::fs::remove_dir_all(folder.join("index"));
    }
    let kept_bytes: u64 = entries.iter().map(|e| e.bytes).sum();
    Ok(format!(
        "cache `{}`: {} of {before} outputs removed, {} kept ({})\n",
        folder.display(),
        removed.len(),
        entries.len(),
        size(kept_bytes)
    ))
}

/// Bytes as a person reads them.
fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}
