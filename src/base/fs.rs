//! Files: reading, with errors that name the file, and writing a file so that a reader never
//! sees half of it (a temporary file beside it, fsync, rename; the file keeps its permissions, a new
//! one gets the usual 0644, not the temporary's 0600). Every file goldgate reads whole goes
//! through one reader, [`read_within`]: a regular file only (a FIFO or a device is refused before
//! a byte is read, never waited on) and within a budget; a document is only ever read in chunks,
//! to key a shared output ([`document_digest`]).

use std::io::{Read, Write};
use std::path::Path;

use crate::base::budget::{DOCUMENT_KEY_BYTES, FILE_BYTES};
use crate::base::location::LoadError;

/// Reads a file as UTF-8 text (a leading byte-order mark dropped), with an error naming it.
pub fn read_text(file: &Path) -> Result<String, LoadError> {
    text_of(
        file,
        read_within(file, FILE_BYTES, SPLIT_IT).map_err(|u| u.error)?,
    )
}

/// What to do about an input file over the budget.
const SPLIT_IT: &str = "split it into several cases, or keep only what is compared";

/// [`read_text`], with `Ok(None)` when the file does not exist (a baseline not written yet), and
/// `too_large` as the hint for a file over the budget.
pub(crate) fn read_text_if_present(
    file: &Path,
    too_large: &str,
) -> Result<Option<String>, LoadError> {
    match read_within(file, FILE_BYTES, too_large) {
        Ok(bytes) => text_of(file, bytes).map(Some),
        Err(Unread { missing: true, .. }) => Ok(None),
        Err(u) => Err(u.error),
    }
}

/// A file's bytes, at most `limit` of them, through the same checks as [`read_text`]: for the
/// files goldgate writes itself and reads back (a shared command output), whose bound is theirs.
pub(crate) fn read_bytes(file: &Path, limit: u64) -> Result<Vec<u8>, LoadError> {
    read_within(file, limit, "it is goldgate's own: remove it and run again").map_err(|u| u.error)
}

/// A document's bytes (a PDF whose pages are read or drawn), at most `limit` of them, through the
/// same checks as [`read_text`].
pub(crate) fn read_document(file: &Path, limit: u64) -> Result<Vec<u8>, LoadError> {
    read_within(
        file,
        limit,
        "goldgate reads a document's pages from a file of this size at most: split the document, or give its boxes as fractions of the page (`bbox_units: normalized`)",
    )
    .map_err(|u| u.error)
}

/// A file opened to be read in pieces (a table of millions of records, of which a few are kept),
/// through the same checks as [`read_text`]: a regular file, within the budget (more is refused
/// as it is read, not cut), a leading byte-order mark skipped. Its text is UTF-8 as its reader
/// reads it (`read_line` refuses what is not).
pub(crate) fn open_text(file: &Path) -> Result<std::io::BufReader<Bounded>, LoadError> {
    use std::io::BufRead;
    let (opened, size) = open_regular(file).map_err(|e| match e {
        Opened::Missing(e) => {
            LoadError::file(file, format!("cannot read the file: {}", io_reason(&e)))
        }
        Opened::Refused(error) => error,
    })?;
    if size > FILE_BYTES {
        return Err(LoadError::file(
            file,
            format!(
                "the file is {size} bytes, more than goldgate reads ({})",
                shown_bytes(FILE_BYTES)
            ),
        )
        .hint(SPLIT_IT));
    }
    let mut reader = std::io::BufReader::with_capacity(
        64 * 1024,
        Bounded {
            file: opened,
            left: FILE_BYTES,
        },
    );
    let starts_with_mark = reader
        .fill_buf()
        .map_err(|e| LoadError::file(file, format!("cannot read the file: {}", io_reason(&e))))?
        .starts_with(b"\xEF\xBB\xBF");
    if starts_with_mark {
        reader.consume(3);
    }
    Ok(reader)
}

/// A file read within a bound: reading past it is an error, not the end of the file (a file that
/// grows while it is read).
pub(crate) struct Bounded {
    file: std::fs::File,
    left: u64,
}

impl std::io::Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| {
            std::io::Error::other(format!(
                "it grew past {} while it was read",
                shown_bytes(FILE_BYTES)
            ))
        })?;
        Ok(n)
    }
}

/// The UTF-8 text of a file's bytes, a leading byte-order mark dropped.
fn text_of(file: &Path, bytes: Vec<u8>) -> Result<String, LoadError> {
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    String::from_utf8(bytes).map_err(|e| {
        LoadError::file(
            file,
            format!(
                "the file is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
        .hint("save it as UTF-8")
    })
}

/// Why a file was not read; `missing` when it does not exist.
struct Unread {
    missing: bool,
    error: LoadError,
}

impl From<LoadError> for Unread {
    fn from(error: LoadError) -> Unread {
        Unread {
            missing: false,
            error,
        }
    }
}

/// The one way goldgate reads a file whole: a regular file only (a FIFO or a device is refused
/// before a byte is read), at most `limit` bytes (more is refused, not cut, with the hint
/// `too_large`).
fn read_within(file: &Path, limit: u64, too_large: &str) -> Result<Vec<u8>, Unread> {
    let cannot = |e: &std::io::Error| {
        LoadError::file(file, format!("cannot read the file: {}", io_reason(e)))
    };
    let opened = open_regular(file).map_err(|e| match e {
        Opened::Missing(e) => Unread {
            missing: true,
            error: cannot(&e),
        },
        Opened::Refused(error) => Unread::from(error),
    })?;
    let (opened, size) = opened;
    let over = |size: u64| {
        LoadError::file(
            file,
            format!(
                "the file is {size} bytes, more than goldgate reads ({})",
                shown_bytes(limit)
            ),
        )
        .hint(too_large)
    };
    if size > limit {
        return Err(over(size).into());
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // The size it has when opened is read, in one call (no second call to find the end); a
    // file that says it is empty (as those of /proc do) is read to its end, within the bound.
    let take = if size > 0 { size } else { limit + 1 };
    opened
        .take(take)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > limit {
        return Err(over(bytes.len() as u64).into());
    }
    Ok(bytes)
}

/// A bound as a message says it: in MiB when it is whole MiB.
fn shown_bytes(limit: u64) -> String {
    if limit >= 1 << 20 && limit.is_multiple_of(1 << 20) {
        format!("{} MiB", limit >> 20)
    } else {
        format!("{limit} bytes")
    }
}

/// Why [`open_regular`] opened nothing.
enum Opened {
    /// The file does not exist (or cannot be opened for another reason the OS gives).
    Missing(std::io::Error),
    /// It is not a regular file, or cannot be opened.
    Refused(LoadError),
}

/// Opens a regular file for reading, with its size; a FIFO, a socket, a device or a folder is
/// refused before a byte is read.
fn open_regular(file: &Path) -> Result<(std::fs::File, u64), Opened> {
    let cannot = |e: std::io::Error| {
        Opened::Refused(LoadError::file(
            file,
            format!("cannot read the file: {}", io_reason(&e)),
        ))
    };
    let not_regular = || {
        Opened::Refused(
            LoadError::file(
                file,
                "this is not a regular file (a FIFO, a socket or a device)",
            )
            .hint("goldgate reads cases, predictions, suites, rubric sets, baselines and documents from regular files only: put the file itself there"),
        )
    };
    // A FIFO or a device would block the run at `open` or be read for ever (`/dev/zero`): it is
    // opened without waiting, and its kind asked of the open file before a byte is read.
    let opened = match open_without_waiting(file) {
        Ok(opened) => opened,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Opened::Missing(e)),
        // A socket cannot be opened at all: said as for any file that is not regular.
        Err(e) => {
            return Err(match std::fs::metadata(file) {
                Ok(meta) if !meta.is_file() && !meta.is_dir() => not_regular(),
                _ => cannot(e),
            });
        }
    };
    let meta = opened.metadata().map_err(cannot)?;
    if meta.is_dir() {
        return Err(Opened::Refused(LoadError::file(
            file,
            "this is a folder, not a file",
        )));
    }
    if !meta.is_file() {
        return Err(not_regular());
    }
    Ok((opened, meta.len()))
}

/// A digest of a document for the key of a shared command output, read in chunks: its size,
/// and its first [`DOCUMENT_KEY_BYTES`] bytes (with its modification time when it is longer),
/// so that a scan of gigabytes costs neither its size in memory nor the time to read it all.
pub(crate) fn document_digest(file: &Path) -> Result<String, LoadError> {
    let (opened, size) = open_regular(file).map_err(|e| match e {
        Opened::Missing(e) => {
            LoadError::file(file, format!("cannot read the file: {}", io_reason(&e)))
        }
        Opened::Refused(error) => error,
    })?;
    let mut hash = Fnv::new();
    hash.part_header(8);
    hash.bytes(&size.to_le_bytes());
    if size > DOCUMENT_KEY_BYTES {
        // Its tail is not read: a document rewritten beyond the bound changes its time.
        let modified = opened
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        hash.part_header(16);
        hash.bytes(&modified.to_le_bytes());
    }
    let mut reader = opened.take(DOCUMENT_KEY_BYTES);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut chunk).map_err(|e| {
            LoadError::file(file, format!("cannot read the file: {}", io_reason(&e)))
        })?;
        if n == 0 {
            break;
        }
        hash.bytes(&chunk[..n]);
    }
    Ok(hash.hex())
}

/// Opens a file for reading; a FIFO opens at once instead of waiting for a writer.
fn open_without_waiting(file: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(file)
}

/// A project's root: a folder with `Cargo.toml` or `.git`.
pub fn is_project(dir: &Path) -> bool {
    dir.join("Cargo.toml").is_file() || dir.join(".git").exists()
}

/// The root of the project `dir` is in (the nearest folder up with `Cargo.toml` or `.git`),
/// canonical.
pub fn project_root(dir: &Path) -> Option<std::path::PathBuf> {
    let dir = std::fs::canonicalize(dir).ok()?;
    dir.ancestors()
        .find(|a| is_project(a))
        .map(Path::to_path_buf)
}

/// A path made absolute by its words alone: `..` and `.` resolved, links not followed, so that
/// where a path was *named* can be told from where it leads.
pub fn by_its_words(path: &Path) -> std::path::PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = std::path::PathBuf::new();
    for part in absolute.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The root of the project `dir` is in, when `file` (which exists) lies outside it, links
/// followed: a case in a repository reads nothing from outside it (`prediction: /etc/shadow`
/// would print the file in a failure message). Outside any project nothing is refused.
pub fn outside_the_project(dir: &Path, file: &Path) -> Option<std::path::PathBuf> {
    let (_, root) = folder(dir)?;
    let root = root?;
    // A file that is no link is where its folder is: one `lstat`, not a walk of its path.
    let real = match (file.parent(), file.file_name()) {
        (Some(parent), Some(name))
            if std::fs::symlink_metadata(file).is_ok_and(|m| !m.file_type().is_symlink()) =>
        {
            folder(if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            })?
            .0
            .join(name)
        }
        _ => std::fs::canonicalize(file).ok()?,
    };
    (!real.starts_with(&root)).then_some(root)
}

/// Where a case names a file: the file it is written in, where, and under which key.
pub(crate) type Named<'a> = (&'a Path, crate::base::location::Mark, &'a str);

/// [`outside_the_project`] as a case's mistake: `file` (a `what`: "gold file", "document", …)
/// refused where it is `named`, before a byte of it is read, with the fix.
pub(crate) fn inside_the_project(file: &Path, what: &str, named: Named) -> Result<(), LoadError> {
    let (named_in, at, key) = named;
    let dir = named_in.parent().unwrap_or(Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    match outside_the_project(dir, file) {
        None => Ok(()),
        Some(root) => Err(LoadError::at(
            named_in,
            at,
            key,
            format!(
                "the {what} `{}` is outside the project `{}`, and goldgate reads nothing outside it",
                file.display(),
                root.display()
            ),
        )
        .hint(format!(
            "move the {what} into the project (the folder with Cargo.toml or .git) and name it from there; a link that leads out counts as outside"
        ))),
    }
}

/// A folder's canonical path and its project's root, found once per run: every case of a
/// folder asks for the same (a walk up the tree and a `readlink` per part of the path).
fn folder(dir: &Path) -> Option<(std::path::PathBuf, Option<std::path::PathBuf>)> {
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::sync::{Mutex, OnceLock};
    type Known = HashMap<PathBuf, Option<(PathBuf, Option<PathBuf>)>>;
    static KNOWN: OnceLock<Mutex<Known>> = OnceLock::new();
    let known = KNOWN.get_or_init(Mutex::default);
    if let Some(found) = known.lock().unwrap_or_else(|e| e.into_inner()).get(dir) {
        return found.clone();
    }
    let found = std::fs::canonicalize(dir).ok().map(|real| {
        let root = real
            .ancestors()
            .find(|a| is_project(a))
            .map(Path::to_path_buf);
        (real, root)
    });
    known
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(dir.to_path_buf(), found.clone());
    found
}

/// A short reason for an I/O error, fit for a message.
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "it does not exist".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// A relative path with `/` on every OS.
///
/// A name is printed where CI logs read workflow commands (`test NAME ... ok`, and alone on a
/// line of libtest's list of failures), so the name of a hostile file is made inert here, once,
/// for every place it is shown or matched: a control character becomes its escape (`\n`), and
/// a word joiner (U+2060, invisible) goes inside a leading `::` and every `##[`.
pub(crate) fn slashed(path: &Path) -> String {
    let name = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    if !name.chars().any(char::is_control) {
        // The common case: nothing to escape, nothing to make inert, the name kept as it is.
        return match crate::base::inert::inert(&name) {
            std::borrow::Cow::Borrowed(_) => name,
            std::borrow::Cow::Owned(safe) => safe,
        };
    }
    let escaped: String = name
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    // No line break is left: the name is one line, made inert as any printed line is.
    crate::base::inert::inert(&escaped).into_owned()
}

/// A case's name from a suite's folder: its path relative to the folder, without extension,
/// `/`-separated (`{case}`, and a baseline entry's key).
pub(crate) fn case_name(case_file: &Path, suite_dir: &Path) -> String {
    let rel = relative_to(case_file, suite_dir)
        .unwrap_or_else(|| case_file.to_path_buf())
        .with_extension("");
    slashed(&rel)
}

/// `path` relative to `dir`, however each is written (`cases/a/b.yaml` under `/abs/cases`, or
/// `./b.yaml` under `cases/a`): through their canonical forms when the written ones do not
/// share a prefix. `None` when `path` is not under `dir`.
pub(crate) fn relative_to(path: &Path, dir: &Path) -> Option<std::path::PathBuf> {
    if let Ok(rel) = path.strip_prefix(dir) {
        return Some(rel.to_path_buf());
    }
    let (path, dir) = (canonical(path), std::fs::canonicalize(dir).ok()?);
    path.strip_prefix(&dir).ok().map(Path::to_path_buf)
}

/// Where a link whose target does not exist yet points (links followed, up to 40 as the
/// kernel does): the file a write through it creates.
fn dangling_target(link: &Path) -> std::io::Result<std::path::PathBuf> {
    let mut at = link.to_path_buf();
    for _ in 0..40 {
        let to = std::fs::read_link(&at)?;
        at = match at.parent() {
            Some(dir) if to.is_relative() => dir.join(to),
            _ => to,
        };
        if !std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Ok(canonical(&at));
        }
    }
    Err(std::io::Error::other(format!(
        "`{}` is a loop of links",
        link.display()
    )))
}

/// The canonical form of a path whose file may not exist yet (its folder must, or will be made).
pub(crate) fn canonical(path: &Path) -> std::path::PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
    path.file_name()
        .map_or(parent.clone(), |name| parent.join(name))
}

/// FNV-1a over 128 bits, in hex: a stable name for cache entries and locks (the same in every
/// process and build, unlike std's hasher, which does not promise that).
pub(crate) fn hash_hex(parts: &[&[u8]]) -> String {
    let mut h = Fnv::new();
    for part in parts {
        h.part_header(part.len() as u64);
        h.bytes(part);
    }
    h.hex()
}

/// FNV-1a over 128 bits, fed in pieces: [`hash_hex`] of parts, or a file read in chunks.
struct Fnv(u128);

impl Fnv {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;

    fn new() -> Fnv {
        Fnv(Self::OFFSET)
    }

    /// A part's length comes first, so that ("ab", "c") and ("a", "bc") differ.
    fn part_header(&mut self, len: u64) {
        self.bytes(&len.to_le_bytes());
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u128::from(*b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    fn hex(&self) -> String {
        format!("{:032x}", self.0)
    }
}

/// Replaces `path` with `bytes` atomically.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |out| out.write_all(bytes))
}

/// Replaces `path` atomically with what `write` writes (buffered), so that a large file is never
/// held in memory whole.
pub(crate) fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // A symbolic link is written through (its target is updated, the link stays); a device, a
    // FIFO or a folder is never replaced by a rename.
    let target;
    let path = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            target = std::fs::canonicalize(path).or_else(|_| dangling_target(path))?;
            target.as_path()
        }
        _ => path,
    };
    replace_in_place(path, write)
}

/// Replaces the file at `path` (no link: a link there is replaced by the rename) with what `write`
/// writes, through a temporary file beside it; a device, a FIFO or a folder is never replaced.
pub(crate) fn replace_in_place(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    replace_checked(path, write, || Ok(true)).map(drop)
}

/// Replaces the file at `path` with `bytes` unless it no longer holds `was`, the bytes its edit
/// was made from: an editor that saved it since (its write is not under goldgate's lock) keeps its
/// save, and `Ok(false)` says the edit was not written. The bytes are compared after the new file
/// is written whole and just before the rename, so that a save is lost only if it lands within
/// that compare-and-rename, not anywhere in an edit's reading, checking and writing.
pub(crate) fn replace_unless_changed(
    path: &Path,
    was: &[u8],
    bytes: &[u8],
) -> std::io::Result<bool> {
    replace_checked(
        path,
        |out| out.write_all(bytes),
        || Ok(std::fs::read(path)? == was),
    )
}

/// [`replace_in_place`], the rename made only when `still` says yes (`Ok(false)` otherwise).
fn replace_checked(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    still: impl FnOnce() -> std::io::Result<bool>,
) -> std::io::Result<bool> {
    if let Ok(m) = std::fs::symlink_metadata(path)
        && !m.is_file()
    {
        return Err(std::io::Error::other(format!(
            "`{}` is not a regular file, so goldgate will not replace it",
            path.display()
        )));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    remove_stale_temporaries(dir, path);
    let mut tmp = tempfile::Builder::new()
        .prefix(&temporary_prefix(path))
        .tempfile_in(dir)?;
    {
        let mut out = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut out)?;
        out.flush()?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o666 & !umask(), |m| m.permissions().mode());
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    tmp.as_file().sync_all()?;
    if !still()? {
        return Ok(false);
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(true)
}

/// The name of the temporary files written beside `path` (`.report.json.goldgate-XXXXXX`): one
/// a killed process left behind can be told from anyone else's file.
fn temporary_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    format!(".{name}.goldgate-")
}

/// Removes the temporaries of `path` left by a process killed before its rename, once they are an
/// hour old: younger ones may belong to a process of the run still writing.
fn remove_stale_temporaries(dir: &Path, path: &Path) {
    let prefix = temporary_prefix(path);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let hour = std::time::Duration::from_secs(3600);
    for entry in entries.flatten() {
        let stale = entry.file_name().to_string_lossy().starts_with(&prefix)
            && entry
                .metadata()
                .ok()
                .filter(std::fs::Metadata::is_file)
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > hour);
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The process's file-mode creation mask, for the mode of a new file written through a temporary
/// one (created 0600). Read from `/proc/self/status`: `umask(2)` can only be read by setting it,
/// which would race with other threads creating files. 022 where it cannot be read.
#[cfg(unix)]
pub(crate) fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|m| u32::from_str_radix(m.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_hostile_file_name_is_an_inert_test_name() {
        let j = '\u{2060}';
        assert_eq!(
            slashed(Path::new("invoices/acme::guided")),
            "invoices/acme::guided"
        );
        assert_eq!(
            slashed(Path::new("n\n::error::NAME")),
            "n\\n::error::NAME",
            "no line break, so no line starting with `::`"
        );
        assert_eq!(
            slashed(Path::new("::add-mask::x")),
            format!(":{j}:add-mask::x")
        );
        assert_eq!(
            slashed(Path::new("a/##[error]b")),
            format!("a/##{j}[error]b")
        );
    }
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_file_over_the_budget_and_a_fifo_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        // Sparse: 64 MiB and one byte, written in no time.
        std::fs::File::create(&big)
            .unwrap()
            .set_len(FILE_BYTES + 1)
            .unwrap();
        let e = read_text(&big).unwrap_err();
        assert_eq!(
            e.message,
            "the file is 67108865 bytes, more than goldgate reads (64 MiB)"
        );
        let fifo = dir.path().join("pipe.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = read_text(&fifo).unwrap_err();
            assert!(e.message.starts_with("this is not a regular file"), "{e:?}");
        }
    }

    #[test]
    fn names_stay_the_same_and_a_document_is_keyed_from_its_start() {
        // Verdict keys and run folders are named by it: the value of the formula, pinned.
        assert_eq!(hash_hex(&[b"ab", b"c"]), "b6ce7db35a06e7457857fa227a8bde4e");
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.pdf"), dir.path().join("b.pdf"));
        std::fs::write(&a, "one").unwrap();
        std::fs::write(&b, "two").unwrap();
        assert_ne!(document_digest(&a).unwrap(), document_digest(&b).unwrap());
        std::fs::write(&b, "one").unwrap();
        assert_eq!(document_digest(&a).unwrap(), document_digest(&b).unwrap());
        // Past the bound only the size and time tell: the rest is never read.
        let big = dir.path().join("big.pdf");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(DOCUMENT_KEY_BYTES + 1)
            .unwrap();
        assert_eq!(document_digest(&big).unwrap().len(), 32);
        let fifo = dir.path().join("pipe.pdf");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let e = document_digest(&fifo).unwrap_err();
            assert!(e.message.starts_with("this is not a regular file"), "{e:?}");
            assert_eq!(
                read_text_if_present(&fifo, SPLIT_IT).unwrap_err().message,
                e.message
            );
        }
        assert_eq!(
            read_text_if_present(&dir.path().join("none.json"), SPLIT_IT),
            Ok(None)
        );
    }

    #[test]
    fn writes_through_a_link_and_never_replaces_what_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.json");
        std::fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A link to a file not there yet (relative, through a second link) creates the file.
        std::os::unix::fs::symlink("later.json", dir.path().join("hop.json")).unwrap();
        let dangling = dir.path().join("dangling.json");
        std::os::unix::fs::symlink("hop.json", &dangling).unwrap();
        write_atomically(&dangling, b"first").unwrap();
        assert!(
            std::fs::symlink_metadata(&dangling)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("later.json")).unwrap(),
            "first"
        );
        let folder = dir.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        let e = write_atomically(&folder, b"x").unwrap_err();
        assert!(e.to_string().contains("is not a regular file"), "{e}");
        assert!(folder.is_dir());
        let e = write_atomically(Path::new("/dev/null"), b"x").unwrap_err();
        assert!(e.to_string().contains("is not a regular file"), "{e}");
    }

    #[test]
    fn temporaries_of_a_killed_write_are_removed_once_stale() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("report.json");
        let old = dir.path().join(".report.json.goldgate-AbC123");
        let fresh = dir.path().join(".report.json.goldgate-XyZ789");
        let other = dir.path().join(".other.json.goldgate-AbC123");
        for f in [&old, &fresh, &other] {
            std::fs::write(f, "partial").unwrap();
        }
        let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        for f in [&old, &other] {
            std::fs::File::options()
                .write(true)
                .open(f)
                .unwrap()
                .set_modified(two_hours_ago)
                .unwrap();
        }
        write_atomically(&file, b"whole").unwrap();
        assert!(!old.exists(), "a stale temporary of this file stays");
        assert!(
            fresh.exists(),
            "a temporary still being written was removed"
        );
        assert!(other.exists(), "another file's temporary was removed");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "whole");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 3, "{left:?}");
    }

    #[test]
    fn keeps_the_mode_of_the_file_it_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("baseline.json");
        write_atomically(&file, b"one").unwrap();
        // A new file: as the umask says (644 under the usual 022).
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o666 & !umask()
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o664)).unwrap();
        write_atomically(&file, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "two");
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o664
        );
    }
}
