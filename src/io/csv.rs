//! Numeric CSV tables written row by row and renamed into place when finished.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A CSV file built under a temporary name; `finish` moves it to its final name.
pub struct CsvWriter {
    path: PathBuf,
    out: std::io::BufWriter<tempfile::NamedTempFile>,
}

impl CsvWriter {
    pub fn create(path: &Path, header: &[&str]) -> Result<CsvWriter> {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let tmp = tempfile::Builder::new()
            .prefix(".shoal-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| Error::io(path, e))?;
        let mut w = CsvWriter {
            path: path.to_path_buf(),
            out: std::io::BufWriter::new(tmp),
        };
        w.line(&header.join(","))?;
        Ok(w)
    }

    /// Writes one row of values: integers as such, floats in Rust's shortest round-trip form.
    pub fn row(&mut self, cells: &[Cell]) -> Result<()> {
        let text: Vec<String> = cells.iter().map(Cell::to_string).collect();
        self.line(&text.join(","))
    }

    fn line(&mut self, s: &str) -> Result<()> {
        writeln!(self.out, "{s}").map_err(|e| Error::io(&self.path, e))
    }

    pub fn finish(self) -> Result<()> {
        let path = self.path;
        let tmp = self.out.into_inner().map_err(|e| Error::io(&path, e.into_error()))?;
        tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
        Ok(())
    }
}

/// One CSV cell.
pub enum Cell {
    Int(u64),
    Float(f64),
    /// No value (an empty field).
    Empty,
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Int(v) => write!(f, "{v}"),
            Cell::Float(v) => write!(f, "{v}"),
            Cell::Empty => Ok(()),
        }
    }
}
