//! Writes that never leave a half-written file under its final name: write a temporary file in
//! the same folder, flush it, then rename it into place.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// A temporary file beside `path`, to be persisted under it once complete. Readable as a normal
/// output file would be (tempfile's default, owner-only, would carry over the rename).
pub fn temporary_for(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".shoal-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The process umask applies, as for any file the user creates.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir).map_err(|e| Error::io(path, e))
}

/// Writes a whole file atomically through `fill`.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let mut tmp = temporary_for(path)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        fill(&mut w).map_err(|e| Error::io(path, e))?;
        w.flush().map_err(|e| Error::io(path, e))?;
    }
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Writes bytes atomically.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with(path, |w| w.write_all(bytes))
}
