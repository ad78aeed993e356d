//! Files: reading text with errors that name the file, and writing a file so that a reader never
//! sees half of it (a temporary file beside it, fsync, rename; the file keeps its permissions, a new
//! one gets the usual 0644, not the temporary's 0600).

use std::io::Write;
use std::path::Path;

use crate::base::location::LoadError;

/// Reads a file as UTF-8 text (a leading byte-order mark dropped), with an error naming it.
pub fn read_text(file: &Path) -> Result<String, LoadError> {
    if file.is_dir() {
        return Err(LoadError::file(file, "this is a folder, not a file"));
    }
    let bytes = std::fs::read(file)
        .map_err(|e| LoadError::file(file, format!("cannot read the file: {}", io_reason(&e))))?;
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

/// A short reason for an I/O error, fit for a message.
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "it does not exist".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// A relative path with `/` on every OS.
pub(crate) fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Replaces `path` with `bytes` atomically.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o644, |m| m.permissions().mode());
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn keeps_the_mode_of_the_file_it_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("baseline.json");
        write_atomically(&file, b"one").unwrap();
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o644
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
