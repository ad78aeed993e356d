//! Locks among processes: a read-merge-write of a shared file (a report, a baseline, a gold file
//! review edits, a journal) happens under one, so that two processes at once never lose each
//! other's work. Released when dropped, or when the process dies.

use std::path::Path;

use super::fs::{canonical, hash_hex};
use super::state;

/// A held lock on a file's behalf; released when dropped (or when the process dies).
#[derive(Debug)]
pub(crate) struct Held {
    _file: std::fs::File,
}

/// Waits for, then takes, the lock that guards `path` among processes: a read-merge-write of a
/// report or baseline happens under it, so that concurrent processes never lose each other's
/// entries. The lock file lives in the state folder, named by a hash of the path's canonical form;
/// it is not the file itself, because an atomic rename replaces that file's inode.
pub(crate) fn lock_for(path: &Path) -> std::io::Result<Held> {
    let dir = state::state_dir()?.join("locks");
    state::sub_dir(&dir)?;
    // Once a process: lock files idle for a day go (their paths may never be locked again).
    static PRUNED: std::sync::Once = std::sync::Once::new();
    PRUNED.call_once(|| state::prune_locks(&dir));
    let file = state::open_lock(&dir.join(format!(
        "{}.lock",
        hash_hex(&[canonical(path).as_os_str().as_encoded_bytes()])
    )))?;
    file.lock()?;
    Ok(Held { _file: file })
}

/// Waits for, then takes, the lock of a file of the user's that goldgate edits and replaces by a
/// rename (a gold file review edits): a read-check-write of it happens under this lock, so that
/// two edits at once never lose one. The lock is on the file itself, not on a lock file: every
/// process that edits it waits for the same lock whatever its state folder (`TMPDIR`), and no
/// lock file is left in the project. A rename gives the path a new file while a waiter holds the
/// old one's lock, so the lock is taken again until it is on the file the path names.
pub(crate) fn lock_in_place(path: &Path) -> std::io::Result<Held> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Each turn follows a rename by another process: a bound, not a wait for ever.
        for _ in 0..1000 {
            let file = std::fs::File::open(path)?;
            file.lock()?;
            let (held, named) = (file.metadata()?, std::fs::metadata(path)?);
            if (held.dev(), held.ino()) == (named.dev(), named.ino()) {
                return Ok(Held { _file: file });
            }
        }
        Err(std::io::Error::other(
            "another process replaces it faster than it can be locked",
        ))
    }
    // Where a file open for its lock cannot be renamed over, the state folder's lock guards it.
    #[cfg(not(unix))]
    lock_for(path)
}

/// Takes the lock of a file of the state folder by the file itself (a journal, a kept output's
/// own `.lock`), so that it goes with its run's folder.
pub(crate) fn lock_file(lock: &Path) -> std::io::Result<Held> {
    let file = state::open_lock(lock)?;
    file.lock()?;
    Ok(Held { _file: file })
}
