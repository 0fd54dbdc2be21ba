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
    /// Starts a CSV under a temporary name, with its header line.
    pub fn create(path: &Path, header: &[&str]) -> Result<CsvWriter> {
        Self::continuing(path, &[header.join(",")])
    }

    /// A table that starts with `lines` (its header, then rows kept from an earlier run).
    pub fn continuing(path: &Path, lines: &[String]) -> Result<CsvWriter> {
        let mut w = CsvWriter {
            path: path.to_path_buf(),
            out: std::io::BufWriter::new(crate::io::atomic::temporary_for(path)?),
        };
        for line in lines {
            w.line(line)?;
        }
        Ok(w)
    }

    /// Puts what has been written so far under the final name too (a checkpoint's view of the
    /// table), and goes on writing.
    pub fn publish(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        let written = std::fs::read(self.out.get_ref().path()).map_err(|e| Error::io(&self.path, e))?;
        crate::io::atomic::write_bytes(&self.path, &written)
    }

    /// Writes one row of values: integers as such, floats in Rust's shortest round-trip form.
    pub fn row(&mut self, cells: &[Cell]) -> Result<()> {
        let text: Vec<String> = cells.iter().map(Cell::to_string).collect();
        self.line(&text.join(","))
    }

    /// Writes one line as it is (a row already in CSV form).
    pub fn line(&mut self, s: &str) -> Result<()> {
        writeln!(self.out, "{s}").map_err(|e| Error::io(&self.path, e))
    }

    /// Flushes and renames the file to its final name.
    pub fn finish(self) -> Result<()> {
        let path = self.path;
        let tmp = self.out.into_inner().map_err(|e| Error::io(&path, e.into_error()))?;
        tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
        Ok(())
    }
}

/// One CSV cell.
pub enum Cell {
    /// An integer, written as is.
    Int(u64),
    /// A float, written with enough digits to read back the same f64.
    Float(f64),
    /// Free text, quoted where CSV needs it.
    Text(String),
    /// No value (an empty field).
    Empty,
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Int(v) => write!(f, "{v}"),
            Cell::Float(v) => write!(f, "{v}"),
            Cell::Text(t) if t.contains([',', '"', '\n', '\r']) => write!(f, "\"{}\"", t.replace('"', "\"\"")),
            Cell::Text(t) => write!(f, "{t}"),
            Cell::Empty => Ok(()),
        }
    }
}
