//! Where goldgate writes inside a project: its baselines, histories, judges' verdicts and its cache
//! of outputs. One way every such path is resolved, checked and opened, so that no file outside the
//! project is ever written, whatever links a checkout holds.
//!
//! These files are committed, and a pull request can commit a link (`.goldgate/cache/index/…` to
//! `~/.bashrc`, a `kept` folder leading to `/`): so below the project's root a link is refused at
//! every part of the path, a `..` is taken as the folder it leads to (never as text that a link
//! would make lie), and what is written is made by a rename, which replaces a link and never
//! follows one, or opened with `O_NOFOLLOW`. Above the project's root links are the machine's
//! (`/tmp` to `/private/tmp`) and are followed. Outside any project nothing is refused: there is
//! nothing of a project's to protect.
//!
//! A report, JUnit file or page named on the command line is the user's own path and goes through
//! [`crate::base::fs::write_atomically`] instead, which writes through a link to its target.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use crate::base::fs::is_project;

/// Why a path cannot be written.
#[derive(Debug)]
pub enum Refused {
    /// It leads out of the project whose root this is.
    Outside { root: PathBuf },
    /// A part of it inside the project is a symbolic link.
    Link { link: PathBuf },
    /// A part of it could not be looked at.
    Io(std::io::Error),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Outside { root } => write!(
                f,
                "it leads out of the project `{}`, and goldgate writes nothing outside it",
                root.display()
            ),
            Refused::Link { link } => write!(
                f,
                "`{}` is a symbolic link, and goldgate writes nothing of a project through a link (a committed link can lead anywhere): replace the link with the folder or file itself",
                link.display()
            ),
            Refused::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Refused {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Refused::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<Refused> for std::io::Error {
    fn from(r: Refused) -> std::io::Error {
        match r {
            Refused::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::PermissionDenied, other.to_string()),
        }
    }
}

/// Where `path` really is: [`resolve_in`] the project its words put it in. That project is the
/// innermost folder with `Cargo.toml` or `.git` on its path as written (`..` taken by the words)
/// with no link between it and the outer project: links above a project are the machine's, a
/// link inside one cannot name another project to write in.
pub fn resolve(path: &Path) -> Result<PathBuf, Refused> {
    let words = crate::base::fs::by_its_words(path);
    let mut root: Option<PathBuf> = None;
    let mut at = PathBuf::new();
    // Not the file itself: it may be a link, never followed.
    let folders = words.parent().map(Path::components).into_iter().flatten();
    for part in folders {
        at.push(part);
        let link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
        if link && root.is_some() {
            break;
        }
        if is_project(&at) {
            root = std::fs::canonicalize(&at).ok();
        }
    }
    match root {
        Some(root) => resolve_in(&root, path),
        // In no project, the file is where its folder leads; a link in its place is replaced.
        None => Ok(match (words.parent(), words.file_name()) {
            (Some(dir), Some(name)) => crate::base::fs::canonical(dir).join(name),
            _ => words,
        }),
    }
}

/// Where `path` really is, walked a part at a time from the filesystem's root as the system walks
/// it: links followed until the walk reaches `root` (canonical), then refused; a `..` out of
/// `root`, or a walk that never reaches it, refused. Parts that do not exist yet are taken as
/// written (goldgate makes them as folders, never through a link). The path returned has no link
/// in it.
pub fn resolve_in(root: &Path, path: &Path) -> Result<PathBuf, Refused> {
    let absolute = std::path::absolute(path).map_err(Refused::Io)?;
    let outside = || Refused::Outside {
        root: root.to_path_buf(),
    };
    let mut at = PathBuf::new();
    let mut inside = false;
    // Once a part is missing, what follows is made by goldgate: nothing there to look at.
    let mut missing = false;
    for part in absolute.components() {
        match part {
            Component::Prefix(_) | Component::RootDir => at.push(part),
            Component::CurDir => {}
            Component::ParentDir if inside && at == root => return Err(outside()),
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => {
                at.push(name);
                if missing {
                    continue;
                }
                match std::fs::symlink_metadata(&at) {
                    Ok(m) if m.file_type().is_symlink() => {
                        if inside {
                            return Err(Refused::Link { link: at });
                        }
                        // Above the project: the machine's own link, followed.
                        at = std::fs::canonicalize(&at).map_err(Refused::Io)?;
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing = true,
                    Err(e) => return Err(Refused::Io(e)),
                }
                inside = inside || at == root;
            }
        }
    }
    if inside { Ok(at) } else { Err(outside()) }
}

/// Makes the folder `dir` and those it is in, each checked by [`resolve`] first and made one at a
/// time, so that a link put in the way is refused, never followed.
pub fn create_folders(dir: &Path) -> Result<PathBuf, Refused> {
    let real = resolve(dir)?;
    let mut at = PathBuf::new();
    for part in real.components() {
        at.push(part);
        match std::fs::create_dir(&at) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let meta = std::fs::symlink_metadata(&at).map_err(Refused::Io)?;
                if meta.file_type().is_symlink() {
                    return Err(Refused::Link { link: at });
                }
                if !meta.is_dir() {
                    return Err(Refused::Io(std::io::Error::other(format!(
                        "`{}` is not a folder",
                        at.display()
                    ))));
                }
            }
            Err(e) => return Err(Refused::Io(e)),
        }
    }
    Ok(real)
}

/// Replaces the file at `path` (inside its project, checked as [`resolve`] does) with `bytes`,
/// whole or not at all: a link in its place is replaced, never written through.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), Refused> {
    replace_with(path, |out| out.write_all(bytes))
}

/// [`replace`] with what `write` writes.
pub fn replace_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Refused> {
    let real = resolve(path)?;
    let dir = match real.parent() {
        Some(d) => d,
        None => Path::new("/"),
    };
    create_folders(dir)?;
    crate::base::fs::replace_in_place(&real, write).map_err(Refused::Io)
}

/// Opens the file at `path` (inside its project, checked as [`resolve`] does) to read and append,
/// made when new: a link in its place is refused (`O_NOFOLLOW`), never followed.
pub fn open_to_append(path: &Path) -> Result<std::fs::File, Refused> {
    let real = resolve(path)?;
    if let Some(dir) = real.parent() {
        create_folders(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).read(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(&real).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return Refused::Link { link: real.clone() };
        }
        Refused::Io(e)
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let (proj, outside) = (base.join("proj"), base.join("outside"));
        std::fs::create_dir_all(proj.join(".git")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        (tmp, proj, outside)
    }

    #[test]
    fn a_path_by_its_folders_is_where_it_leads() {
        let (_tmp, proj, _) = project();
        std::fs::create_dir_all(proj.join("cases/a")).unwrap();
        assert_eq!(
            resolve(&proj.join("cases/a/../b/baseline.json")).unwrap(),
            proj.join("cases/b/baseline.json")
        );
        assert!(matches!(
            resolve_in(&proj, &proj.join("cases/../../x")),
            Err(Refused::Outside { .. })
        ));
    }

    #[test]
    fn a_link_inside_the_project_is_refused_wherever_it_is_on_the_way() {
        let (_tmp, proj, outside) = project();
        symlink(&outside, proj.join("kept")).unwrap();
        // `kept/..` is the outside folder's parent for the system, not the project.
        for written in ["kept/../x.json", "kept/x.json", "kept"] {
            match resolve(&proj.join(written)) {
                Err(Refused::Link { link }) => assert_eq!(link, proj.join("kept")),
                other => panic!("{written}: {other:?}"),
            }
        }
        // A dangling link in the file's place is refused too, and nothing is made outside.
        symlink(outside.join("new.json"), proj.join("baseline.json")).unwrap();
        assert!(matches!(
            replace(&proj.join("baseline.json"), b"{}"),
            Err(Refused::Link { .. })
        ));
        assert!(matches!(
            open_to_append(&proj.join("baseline.json")),
            Err(Refused::Link { .. })
        ));
        assert!(!outside.join("new.json").exists());
    }

    #[test]
    fn a_link_above_the_project_is_the_machines_own() {
        let (_tmp, proj, outside) = project();
        symlink(&proj, outside.join("here")).unwrap();
        replace(&outside.join("here/cases/baseline.json"), b"{}").unwrap();
        assert_eq!(
            std::fs::read(proj.join("cases/baseline.json")).unwrap(),
            b"{}"
        );
    }
}
