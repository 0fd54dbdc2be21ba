//! Numeric CSV tables: written row by row under their final names, each row in one write as it
//! comes, so a table is readable while the run goes and complete up to its last row however the
//! run ends (a kill can tear only the last line, which a resume drops); and read as the
//! `time,value` series a scene's tables hold.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A CSV file appended to row by row.
pub struct CsvWriter {
    path: PathBuf,
    out: std::fs::File,
}

impl CsvWriter {
    /// Starts a CSV with its header line (replacing any file of that name, atomically).
    pub fn create(path: &Path, header: &[&str]) -> Result<CsvWriter> {
        Self::continuing(path, &[header.join(",")])
    }

    /// A table that starts with `lines` (its header, then rows kept from an earlier run): they
    /// replace the file atomically, then rows are appended.
    pub fn continuing(path: &Path, lines: &[String]) -> Result<CsvWriter> {
        let mut text = lines.join("\n");
        text.push('\n');
        crate::io::atomic::write_bytes(path, text.as_bytes())?;
        let out = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        Ok(CsvWriter {
            path: path.to_path_buf(),
            out,
        })
    }

    /// Makes what has been written durable (a checkpoint's view of the table).
    pub fn publish(&mut self) -> Result<()> {
        self.out.sync_data().map_err(|e| Error::io(&self.path, e))
    }

    /// Writes one row of values: integers as such, floats in Rust's shortest round-trip form.
    pub fn row(&mut self, cells: &[Cell]) -> Result<()> {
        let text: Vec<String> = cells.iter().map(Cell::to_string).collect();
        self.line(&text.join(","))
    }

    /// Writes one line as it is (a row already in CSV form), in one write.
    pub fn line(&mut self, s: &str) -> Result<()> {
        let mut line = String::with_capacity(s.len() + 1);
        line.push_str(s);
        line.push('\n');
        self.out
            .write_all(line.as_bytes())
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Makes the table durable.
    pub fn finish(mut self) -> Result<()> {
        self.publish()
    }
}

/// The header and the complete rows of a table an earlier run wrote: a last line torn by a kill
/// (no newline, or fewer fields than the header) is left out.
pub fn complete_lines(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut lines: Vec<&str> = text.lines().collect();
    if !text.ends_with('\n') {
        lines.pop();
    }
    let fields = lines.first().map_or(0, |h| h.split(',').count());
    Ok(lines
        .into_iter()
        .take_while(|l| l.split(',').count() == fields)
        .map(str::to_string)
        .collect())
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
    let bytes = crate::io::files::read(path).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
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
