//! The run's shared state (journals, shared command outputs, locks) under the system's temporary
//! folder, in `goldgate-UID`: a folder only its user can reach. It is created 0700; one that
//! exists is used only when it is a real folder (not a link), owned by this user and closed to
//! others, else refused with the fix. Files in it are created 0600 and never followed through a
//! link. Old runs and idle lock files are pruned.
//!
//! What a run leaves for later commands (its journal, the records `goldgate review` reads) is a
//! project's: it lives under `projects/KEY`, KEY a digest of the project root's canonical path,
//! so that a run in another checkout or another project never changes what this one reads.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What is older than this (a run's folder, an idle lock file) is pruned.
pub(crate) const KEEP: Duration = Duration::from_secs(24 * 3600);

/// The state folder, checked (and made, the first time) for this process.
pub(crate) fn state_dir() -> io::Result<PathBuf> {
    // Checked once; an `io::Error` is not `Clone`, so each caller gets one of the same kind
    // around the shared first error.
    static CHECKED: std::sync::OnceLock<Result<PathBuf, std::sync::Arc<io::Error>>> =
        std::sync::OnceLock::new();
    CHECKED
        .get_or_init(|| {
            let dir = std::env::temp_dir().join(format!("goldgate-{}", user_id()));
            private_dir(&dir).map(|()| dir).map_err(std::sync::Arc::new)
        })
        .clone()
        .map_err(|e| io::Error::new(e.kind(), e))
}

#[cfg(unix)]
fn user_id() -> u32 {
    // SAFETY: getuid(2) reads the process's user id; it cannot fail and touches no memory.
    unsafe { libc::getuid() }
}

#[cfg(not(unix))]
fn user_id() -> String {
    std::env::var("USERNAME").unwrap_or_default()
}

/// Makes `dir` a folder of this user's alone (0700), or checks that it is one: not a link, a
/// folder, owned by this user, with no access for others.
pub(crate) fn private_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot make goldgate's state folder `{}`: {e}",
                        dir.display()
                    ),
                ));
            }
        }
        let refuse = |why: String| {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "goldgate's state folder `{}` {why}: goldgate keeps a run's records and shared outputs there and uses no folder another user could reach; remove it (or point TMPDIR to a folder of your own) and run again",
                    dir.display()
                ),
            )
        };
        let meta = std::fs::symlink_metadata(dir)?;
        if meta.file_type().is_symlink() {
            return Err(refuse("is a symbolic link".into()));
        }
        if !meta.is_dir() {
            return Err(refuse("is not a folder".into()));
        }
        let me = user_id();
        if meta.uid() != me {
            return Err(refuse(format!(
                "is owned by user {}, not by you ({me})",
                meta.uid()
            )));
        }
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(refuse(format!(
                "has mode {mode:03o}: others may read or write it (goldgate makes it 700)"
            )));
        }
        Ok(())
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// A folder inside the state folder (made 0700), its parents too.
pub(crate) fn sub_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .recursive(true)
            .create(dir)
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// Opens a file of the state folder for reading and appending, created 0600; a link in its place
/// is refused, never followed.
pub(crate) fn open_private(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "`{}` is a symbolic link, and goldgate never writes its state through one",
                    path.display()
                ),
            )
        } else {
            e
        }
    })
}

/// Creates a new file of the state folder (0600), failing with `AlreadyExists` when there is
/// one, a link included.
pub(crate) fn create_private(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Opens a lock file of the state folder (0600, never through a link), for [`std::fs::File::lock`].
pub(crate) fn open_lock(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// A project's part of the state folder: its runs' journals and the records of its last run in
/// one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Project {
    /// The project's root, canonical.
    root: PathBuf,
    /// Its folder in the state folder.
    dir: PathBuf,
}

impl Project {
    /// The root of the project `dir` is in: the nearest folder up with `Cargo.toml` or `.git`,
    /// canonical; a folder in no project is its own root. Found by the folder's path as written,
    /// not where a link leads: a `cases` folder that links to a gold set kept elsewhere is this
    /// project's, as the end step of a split run, run from here, looks for its records.
    pub(crate) fn root_of(dir: &Path) -> PathBuf {
        let words = crate::base::fs::by_its_words(dir);
        words
            .ancestors()
            .find(|a| crate::base::fs::is_project(a))
            .map(crate::base::fs::canonical)
            .unwrap_or_else(|| crate::base::fs::canonical(dir))
    }

    /// The project `dir` is in, as a reader finds it: nothing is made.
    pub(crate) fn find(dir: &Path) -> io::Result<Project> {
        let root = Project::root_of(dir);
        let key = crate::base::fs::hash_hex(&[root.as_os_str().as_encoded_bytes()]);
        let dir = state_dir()?.join("projects").join(&key[..16]);
        Ok(Project { root, dir })
    }

    /// The project `dir` is in, its folder made (0700) the first time, its root noted.
    pub(crate) fn of(dir: &Path) -> io::Result<Project> {
        let project = Project::find(dir)?;
        sub_dir(&project.dir)?;
        // For readers that look for the projects inside a folder; written whole or not at all.
        let noted = project.dir.join("root");
        if std::fs::symlink_metadata(&noted).is_err() {
            crate::base::fs::write_atomically(&noted, project.root.as_os_str().as_encoded_bytes())?;
        }
        Ok(project)
    }

    /// The projects a reader of this one sees: itself, and those whose root is inside its root
    /// (the member crates of a workspace, whose tests a run from its root ran), in the order of
    /// their roots. Never a project beside it or above it. A project whose root is gone (a
    /// temporary folder) is removed on the way.
    pub(crate) fn within(&self) -> io::Result<Vec<Project>> {
        let mut found = vec![self.clone()];
        let Ok(list) = std::fs::read_dir(state_dir()?.join("projects")) else {
            return Ok(found);
        };
        for entry in list.flatten().filter(|e| e.path() != self.dir) {
            let Ok(noted) = std::fs::read(entry.path().join("root")) else {
                continue;
            };
            let theirs = root_from_bytes(noted);
            if !theirs.exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            } else if theirs.starts_with(&self.root) {
                found.push(Project {
                    root: theirs,
                    dir: entry.path(),
                });
            }
        }
        found.sort_by(|a, b| a.root.cmp(&b.root));
        Ok(found)
    }

    /// Its folder in the state folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }
}

/// A root as noted, by its bytes (a path need not be UTF-8).
fn root_from_bytes(bytes: Vec<u8>) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(bytes))
    }
    #[cfg(not(unix))]
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether a file or folder was last changed longer ago than [`KEEP`].
pub(crate) fn is_old(meta: &std::fs::Metadata) -> bool {
    meta.modified()
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > KEEP)
}

/// Removes the lock files of `dir` older than [`KEEP`] that no process holds (each is taken
/// without waiting first, so a held lock is never removed).
pub(crate) fn prune_locks(dir: &Path) {
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in list.flatten() {
        let old = entry.metadata().is_ok_and(|m| m.is_file() && is_old(&m));
        if !old {
            continue;
        }
        if let Ok(file) = open_lock(&entry.path())
            && file.try_lock().is_ok()
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_new_folder_is_closed_to_others_and_an_open_one_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("state");
        private_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let e = private_dir(&dir).unwrap_err().to_string();
        assert!(e.contains("has mode 755"), "{e}");
    }

    #[test]
    fn a_link_in_place_of_the_folder_or_a_file_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let real = root.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();
        let link = root.path().join("state");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = private_dir(&link).unwrap_err().to_string();
        assert!(e.contains("is a symbolic link"), "{e}");
        let target = root.path().join("victim");
        std::fs::write(&target, "mine").unwrap();
        let planted = real.join("journal");
        std::os::unix::fs::symlink(&target, &planted).unwrap();
        let e = open_private(&planted).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
    }

    #[test]
    fn files_are_made_for_their_user_alone() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("journal");
        drop(open_private(&file).unwrap());
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}

#[cfg(all(test, unix))]
mod projects {
    use super::*;

    /// Two checkouts of one layout are two projects; a crate inside a workspace is seen from
    /// the workspace's root, and the workspace is not seen from the crate.
    #[test]
    fn a_project_is_seen_from_its_root_and_from_the_folders_around_it_only() {
        let tmp = tempfile::tempdir().unwrap();
        let at = |p: &str| {
            let dir = tmp.path().join(p);
            std::fs::create_dir_all(&dir).unwrap();
            dir
        };
        for crate_dir in ["one", "two", "ws", "ws/member"] {
            std::fs::write(at(crate_dir).join("Cargo.toml"), "").unwrap();
        }
        let one = Project::of(&at("one/cases/inv")).unwrap();
        let two = Project::of(&at("two/cases")).unwrap();
        let member = Project::of(&at("ws/member/cases")).unwrap();
        assert_ne!(one.dir(), two.dir());
        let within = |dir: &str| Project::find(&at(dir)).unwrap().within().unwrap();
        assert_eq!(Project::of(&at("one")).unwrap(), one);
        assert_eq!(within("one/src"), vec![one.clone()]);
        assert_eq!(within("two"), [two]);
        let ws = Project::find(&at("ws")).unwrap();
        assert_eq!(within("ws"), [ws.clone(), member.clone()]);
        assert_eq!(within("ws/member"), vec![member.clone()]);
        // A project whose root is gone is forgotten.
        std::fs::remove_dir_all(tmp.path().join("one")).unwrap();
        assert_eq!(within("ws"), [ws, member]);
        assert!(!one.dir().exists());
    }
}

#[cfg(all(test, unix))]
mod pruning {
    use super::*;

    fn age(path: &Path, days: u64) {
        let past = std::time::SystemTime::now() - Duration::from_secs(days * 24 * 3600 + 60);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(past)
            .unwrap();
    }

    #[test]
    fn idle_lock_files_older_than_a_day_go_and_held_or_recent_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let (old, held, recent) = (
            dir.path().join("old.lock"),
            dir.path().join("held.lock"),
            dir.path().join("recent.lock"),
        );
        for p in [&old, &held, &recent] {
            drop(open_lock(p).unwrap());
        }
        age(&old, 2);
        age(&held, 2);
        let holder = open_lock(&held).unwrap();
        holder.lock().unwrap();
        prune_locks(dir.path());
        assert!(!old.exists());
        assert!(held.exists(), "a held lock was removed");
        assert!(recent.exists());
    }
}
