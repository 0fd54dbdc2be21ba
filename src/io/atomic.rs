//! Writes that never leave a half-written file under its final name: write a temporary file in
//! the same folder, flush it, then rename it into place.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Writes a whole file atomically through `fill`.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".shoal-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(path, e))?;
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
