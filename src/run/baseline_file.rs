//! Baseline files: read once per run, and rewritten by `GOLDGATE_UPDATE=always` with a
//! read-merge-write under a lock, so that concurrent processes (nextest, two `goldgate test`
//! runs) each add their entries and none is lost.

use std::path::Path;

use crate::base::fs::{lock_for, write_atomically};
use crate::evaluate::baseline::{Baseline, Entry, parse, to_text};

/// Reads a baseline; `Ok(None)` when the file does not exist.
pub(crate) fn read(path: &Path) -> Result<Option<Baseline>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot read the baseline `{}`: {e}",
                path.display()
            ));
        }
    };
    parse(&text, &path.display().to_string()).map(Some)
}

/// What a blessing wrote to one baseline file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Written {
    /// Entries in the file after the write.
    pub(crate) entries: usize,
    /// Entries this run added.
    pub(crate) new: usize,
    /// Entries this run changed.
    pub(crate) changed: usize,
}

/// Adds (or replaces) `entries` in the baseline at `path` and removes those named in `drop`,
/// keeping every other entry, as one atomic rewrite under the file's lock.
pub(crate) fn merge(
    path: &Path,
    entries: &[(String, Entry)],
    drop: &[String],
) -> Result<Written, String> {
    let cannot = |e: std::io::Error| format!("cannot write the baseline `{}`: {e}", path.display());
    let _held = lock_for(path).map_err(cannot)?;
    let mut base = read(path)?.unwrap_or_default();
    let (mut new, mut changed) = (0, 0);
    for (id, entry) in entries {
        match base.cases.insert(id.clone(), entry.clone()) {
            None => new += 1,
            Some(old) if old != *entry => changed += 1,
            Some(_) => {}
        }
    }
    for name in drop {
        base.cases.remove(name);
    }
    write_atomically(path, to_text(&base).as_bytes()).map_err(cannot)?;
    Ok(Written {
        entries: base.cases.len(),
        new,
        changed,
    })
}
