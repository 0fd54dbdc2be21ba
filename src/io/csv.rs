//! Numeric CSV tables: written row by row and renamed into place when finished, and read as the
//! `time,value` series a scene's tables hold.

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

/// The `time,value` rows of the CSV table at `path` (a header line allowed): at least two rows
/// of finite numbers, times increasing. The error says what is wrong and on which line.
pub fn read_series(path: &Path) -> std::result::Result<Vec<(f64, f64)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut rows: Vec<(f64, f64)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = match fields.as_slice() {
            [t, v] => t.parse::<f64>().ok().zip(v.parse::<f64>().ok()),
            _ => None,
        };
        match parsed {
            Some((t, v)) if t.is_finite() && v.is_finite() => {
                if rows.last().is_some_and(|&(last, _)| t <= last) {
                    return Err(format!("line {}: times must increase", n + 1));
                }
                rows.push((t, v));
            }
            // The first line may name the columns.
            None if n == 0 => {}
            _ => return Err(format!("line {}: not two finite numbers `time,value`", n + 1)),
        }
    }
    match rows.len() {
        0 => Err("no rows".into()),
        1 => Err("one row: a table needs two or more (a value that never changes is a constant)".into()),
        _ => Ok(rows),
    }
}

#[cfg(test)]
mod tests {
    use super::read_series;

    fn read(text: &str) -> Result<Vec<(f64, f64)>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, text).unwrap();
        read_series(&path)
    }

    #[test]
    fn a_series_has_two_rows_or_more_of_finite_numbers_in_increasing_time() {
        assert_eq!(read("time,rate\n0,1\n2.5,3\n\n").unwrap(), vec![(0.0, 1.0), (2.5, 3.0)]);
        for (text, says) in [
            ("time,rate\n0,1\n0,2\n", "line 3: times must increase"),
            ("time,rate\n1,1\n0,2\n", "line 3: times must increase"),
            ("0,1\n1,NaN\n", "line 2: not two finite numbers"),
            ("0,1\n1,2,3\n", "line 2: not two finite numbers"),
            ("time,rate\n0,1\n", "one row"),
            ("time,rate\n", "no rows"),
        ] {
            let e = read(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
