//! `--netcdf`: the run as one CF-1.8 NetCDF file, `DIR/output.nc`, through the `netcdf3` crate
//! (the 64-bit-offset classic format, which xarray, GDAL, Panoply and QGIS's mesh layer open).
//!
//! Dimensions `time` (the record dimension), `y`, `x`; coordinates `x`, `y` (the cell centres in
//! the DEM's map units, or the scene's metres) and `time` (seconds since the run's start), the
//! DEM's coordinate system as the `crs` grid mapping; per record the surface `h`, the `depth`
//! and, on models with one, the depth-averaged velocity `u`, `v`; once, the `ground`; and the
//! flood maps so far, rewritten at each record.
//!
//! The file grows a record at each snapshot and always opens: a record is written while the
//! header still counts only the records before it, then the header is rewritten to count it
//! (the crate writes a header each time a definition is set; the first writer's goes nowhere,
//! see `Region`). A killed run's file opens up to its last complete record, and a resumed run
//! rewrites the records from its checkpoint on, so its file ends as an uninterrupted run's does,
//! byte for byte.

use crate::error::{Error, Result};
use netcdf3::{DataSet, FileWriter, Version};
use std::cell::RefCell;
use std::io::{BufWriter, Cursor, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The file's name in the output folder.
pub const FILE: &str = "output.nc";

/// The value CF readers take for "no data": where the DEM has none (h, depth), and the flood
/// maps' own (first_wet's never wet).
const FILL: f32 = netcdf3::NC_FILL_F32;

/// What the file holds, fixed for a run: its grid, coordinates, coordinate system and variables.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// The cell centres' map coordinates along x, west to east.
    pub x: Vec<f64>,
    /// The cell centres' map coordinates along y, in the grid's row order (south to north).
    pub y: Vec<f64>,
    /// The DEM's coordinate system, when it has one the file can name.
    pub crs: Option<Crs>,
    /// Whether the model has a depth-averaged velocity (`u`, `v` per record).
    pub velocity: bool,
    /// The flood maps' names (`[output] summary`), with the value each uses for "never".
    pub maps: Vec<(String, Option<f32>)>,
    /// The cells with no data in the DEM, in the grid's order.
    pub void: Option<std::sync::Arc<Vec<bool>>>,
}

/// A coordinate system by its EPSG code, with its WKT (from `crs-definitions`' copy of the EPSG
/// registry).
#[derive(Clone, Debug, PartialEq)]
pub struct Crs {
    /// Its EPSG code.
    pub epsg: u16,
    /// Whether it is projected (metres) rather than geographic (degrees).
    pub projected: bool,
    /// Its OGC WKT (GDAL's `spatial_ref`, CF's `crs_wkt`).
    pub wkt: &'static str,
    /// Its PROJ string, for CF's grid-mapping parameters.
    pub proj4: &'static str,
}

impl Crs {
    /// The coordinate system a GeoTIFF's GeoKeys name by EPSG code (ProjectedCSTypeGeoKey, else
    /// GeographicTypeGeoKey), if the registry knows it. `Err` says why not, for a note.
    pub fn of_geokeys(keys: &crate::io::geotiff::GeoKeys) -> Result<Crs, String> {
        // Four words of header, then (key, location, count, value); location 0: the value is
        // the word itself.
        let key = |id: u16| {
            keys.directory
                .get(4..)
                .unwrap_or_default()
                .chunks_exact(4)
                .find(|k| k[0] == id && k[1] == 0)
                .map(|k| k[3])
        };
        let (code, projected) = match (key(3072), key(2048)) {
            (Some(code), _) => (code, true),
            (None, Some(code)) => (code, false),
            (None, None) => return Err("the DEM's GeoKeys name no EPSG coordinate system".into()),
        };
        if code == 32767 {
            return Err("the DEM's coordinate system is user-defined (no EPSG code)".into());
        }
        let def =
            crs_definitions::from_code(code).ok_or(format!("EPSG:{code} is not in the registry Shoal carries"))?;
        Ok(Crs {
            epsg: code,
            projected,
            wkt: def.wkt,
            proj4: def.proj4,
        })
    }

    /// CF's grid-mapping name and parameters where the coordinate system is one CF names and
    /// its PROJ string says how (UTM, transverse Mercator, longitude-latitude); readers that
    /// know only CF's attributes then place the grid too. Others carry the WKT alone.
    fn cf_mapping(&self) -> Vec<(&'static str, Attr)> {
        let param = |name: &str| {
            self.proj4
                .split_whitespace()
                .find_map(|p| p.strip_prefix('+')?.strip_prefix(name)?.strip_prefix('='))
        };
        let num = |name: &str, default: f64| param(name).and_then(|v| v.parse().ok()).unwrap_or(default);
        match param("proj") {
            Some("longlat") => vec![("grid_mapping_name", Attr::Text("latitude_longitude".into()))],
            Some("utm") => {
                let zone = num("zone", 0.0);
                let south = self.proj4.split_whitespace().any(|p| p == "+south");
                vec![
                    ("grid_mapping_name", Attr::Text("transverse_mercator".into())),
                    ("longitude_of_central_meridian", Attr::Number(6.0 * zone - 183.0)),
                    ("latitude_of_projection_origin", Attr::Number(0.0)),
                    ("scale_factor_at_central_meridian", Attr::Number(0.9996)),
                    ("false_easting", Attr::Number(500_000.0)),
                    ("false_northing", Attr::Number(if south { 10_000_000.0 } else { 0.0 })),
                ]
            }
            Some("tmerc") => vec![
                ("grid_mapping_name", Attr::Text("transverse_mercator".into())),
                ("longitude_of_central_meridian", Attr::Number(num("lon_0", 0.0))),
                ("latitude_of_projection_origin", Attr::Number(num("lat_0", 0.0))),
                (
                    "scale_factor_at_central_meridian",
                    Attr::Number(num("k", num("k_0", 1.0))),
                ),
                ("false_easting", Attr::Number(num("x_0", 0.0))),
                ("false_northing", Attr::Number(num("y_0", 0.0))),
            ],
            _ => Vec::new(),
        }
    }
}

/// An attribute's value.
enum Attr {
    Text(String),
    Number(f64),
}

/// One snapshot's fields, in the grid's order (row 0 the south edge).
pub struct Record<'a> {
    /// The step number.
    pub step: u64,
    /// Seconds since the run's start.
    pub time: f64,
    /// The surface (m).
    pub h: &'a [f32],
    /// The depth h − b, 0 where dry (m).
    pub depth: &'a [f32],
    /// The depth-averaged velocity (where the layout has one).
    pub uv: Option<(&'a [f32], &'a [f32])>,
    /// The flood maps so far, in the layout's order.
    pub maps: &'a [&'a [f32]],
}

/// `output.nc` of one run: created (or, on a resume, reopened) once, a record appended at each
/// snapshot.
pub struct Stack {
    path: PathBuf,
    layout: Layout,
    /// Records the header counts.
    records: usize,
    /// The header's bytes (the same for any count of records): where the data starts.
    header_len: u64,
}

impl Stack {
    /// Creates `dir/output.nc` with its fixed variables (coordinates, crs, ground) and no
    /// record; built beside it and renamed into place, so the file under its name always opens.
    pub fn create(dir: &Path, layout: Layout, ground: &[f32]) -> Result<Stack> {
        let path = dir.join(FILE);
        let tmp = crate::io::atomic::temporary_for(&path)?;
        let file = tmp.as_file().try_clone().map_err(|e| Error::io(&path, e))?;
        let mut stack = Stack {
            path: path.clone(),
            layout,
            records: 0,
            header_len: 0,
        };
        stack.header_len = stack.header(0)?.len() as u64;
        let data_set = stack.data_set(0)?;
        let out = Shared::new(BufWriter::new(file));
        {
            let mut w = FileWriter::open_seek_write(FILE, Box::new(out.clone())).map_err(|e| stack.fail(e))?;
            w.set_def(&data_set, Version::Offset64Bit, 0)
                .map_err(|e| stack.fail(e))?;
            let l = &stack.layout;
            w.write_var_f64("x", &l.x).map_err(|e| stack.fail(e))?;
            w.write_var_f64("y", &l.y).map_err(|e| stack.fail(e))?;
            if l.crs.is_some() {
                w.write_var_i32("crs", &[0]).map_err(|e| stack.fail(e))?;
            }
            let ground: Vec<f32> = stack.masked(ground);
            w.write_var_f32("ground", &ground).map_err(|e| stack.fail(e))?;
            for (name, never) in &l.maps {
                // No map yet: all "never" (or 0) until the first record writes them.
                w.write_var_f32(name, &vec![never.unwrap_or(0.0); l.nx * l.ny])
                    .map_err(|e| stack.fail(e))?;
            }
        }
        out.flush_inner().map_err(|e| Error::io(&path, e))?;
        tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
        Ok(stack)
    }

    /// Reopens the `dir/output.nc` an earlier try of this run wrote, to go on at record `next`
    /// (the records before it stay). Refused, naming the file, when it is missing, holds fewer
    /// records, or was laid out for another grid or other outputs.
    pub fn reopen(dir: &Path, layout: Layout, next: usize) -> Result<Stack> {
        let path = dir.join(FILE);
        let mut stack = Stack {
            path: path.clone(),
            layout,
            records: next,
            header_len: 0,
        };
        let refuse = |message: String| {
            Err(Error::Output {
                path: path.clone(),
                message,
            })
        };
        let header = stack.header(next)?;
        stack.header_len = header.len() as u64;
        let mut on_disk = vec![0u8; header.len()];
        let read = std::fs::File::open(&path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut on_disk));
        match read {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return refuse(
                    "is missing: a resumed run with --netcdf goes on with the file its first try began (give \
                     --netcdf from the start)"
                        .into(),
                )
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return refuse("is too short to be this run's".into())
            }
            Err(e) => return Err(Error::io(&path, e)),
        }
        let counted = on_disk
            .get(4..8)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize);
        if on_disk[..4] != header[..4] || on_disk[8..header.len()] != header[8..] {
            return refuse("was written for another grid, coordinate system or set of outputs".into());
        }
        if counted.is_none_or(|n| n < next) {
            return refuse(format!(
                "holds {} records, fewer than the {next} before the checkpoint",
                counted.unwrap_or(0)
            ));
        }
        stack.records = next;
        Ok(stack)
    }

    /// Writes `record` as record `index` (the snapshot's place in the run's list), then counts
    /// the records up to it in the header.
    pub fn append(&mut self, index: usize, record: &Record) -> Result<()> {
        let l = &self.layout;
        let cells = l.nx * l.ny;
        let fields = [record.h, record.depth]
            .into_iter()
            .chain(record.uv.into_iter().flat_map(|(u, v)| [u, v]));
        if fields.chain(record.maps.iter().copied()).any(|f| f.len() != cells) {
            return Err(Error::Unsupported(format!(
                "{}: a field of the wrong size",
                self.path.display()
            )));
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.path)
            .map_err(|e| Error::io(&self.path, e))?;
        let out = Shared::new(BufWriter::new(file));
        {
            // Room for this record; its header goes nowhere (the one on disk still counts the
            // records before it).
            let data_set = self.data_set(index + 1)?;
            let region = Region {
                inner: out.clone(),
                at: 0,
                from: self.header_len,
            };
            let mut w = FileWriter::open_seek_write(FILE, Box::new(region)).map_err(|e| self.fail(e))?;
            w.set_def(&data_set, Version::Offset64Bit, 0)
                .map_err(|e| self.fail(e))?;
            w.write_record_f64("time", index, &[record.time])
                .map_err(|e| self.fail(e))?;
            let step = i32::try_from(record.step).unwrap_or(i32::MAX);
            w.write_record_i32("step", index, &[step]).map_err(|e| self.fail(e))?;
            w.write_record_f32("h", index, &self.masked(record.h))
                .map_err(|e| self.fail(e))?;
            w.write_record_f32("depth", index, &self.masked(record.depth))
                .map_err(|e| self.fail(e))?;
            if let (true, Some((u, v))) = (l.velocity, record.uv) {
                w.write_record_f32("u", index, &self.masked(u))
                    .map_err(|e| self.fail(e))?;
                w.write_record_f32("v", index, &self.masked(v))
                    .map_err(|e| self.fail(e))?;
            }
            for ((name, _), map) in l.maps.iter().zip(record.maps) {
                w.write_var_f32(name, &self.masked(map)).map_err(|e| self.fail(e))?;
            }
        }
        out.flush_inner().map_err(|e| Error::io(&self.path, e))?;
        // Only now the header counts the record.
        let header = self.header(index + 1)?;
        out.with(|w| {
            w.seek(SeekFrom::Start(0))?;
            w.write_all(&header)?;
            w.flush()?;
            w.get_ref().sync_data()
        })
        .map_err(|e| Error::io(&self.path, e))?;
        self.records = index + 1;
        Ok(())
    }

    /// The records the header counts.
    pub fn records(&self) -> usize {
        self.records
    }

    /// The header, as the crate writes it, of the file holding `records` records.
    fn header(&self, records: usize) -> Result<Vec<u8>> {
        let data_set = self.data_set(records)?;
        let out = Shared::new(Cursor::new(Vec::new()));
        {
            let mut w = FileWriter::open_seek_write(FILE, Box::new(out.clone())).map_err(|e| self.fail(e))?;
            w.set_def(&data_set, Version::Offset64Bit, 0)
                .map_err(|e| self.fail(e))?;
        }
        Ok(out.with(|c| Ok(std::mem::take(c.get_mut()))).unwrap_or_default())
    }

    /// `field` with the DEM's void cells as the fill value.
    fn masked(&self, field: &[f32]) -> Vec<f32> {
        match &self.layout.void {
            Some(void) => field
                .iter()
                .zip(void.iter())
                .map(|(&v, &n)| if n { FILL } else { v })
                .collect(),
            None => field.to_vec(),
        }
    }

    fn fail(&self, e: impl std::fmt::Debug) -> Error {
        Error::Output {
            path: self.path.clone(),
            message: format!("NetCDF: {e:?}"),
        }
    }

    /// The file's definition with `records` records: dimensions, variables, attributes.
    fn data_set(&self, records: usize) -> Result<DataSet> {
        self.define(records).map_err(|e| self.fail(e))
    }

    fn define(&self, records: usize) -> Result<DataSet, netcdf3::InvalidDataSet> {
        let l = &self.layout;
        let mut d = DataSet::new();
        d.set_unlimited_dim("time", records)?;
        d.add_fixed_dim("y", l.ny)?;
        d.add_fixed_dim("x", l.nx)?;
        d.add_global_attr_string("Conventions", "CF-1.8")?;
        d.add_global_attr_string("title", "Shoal run")?;
        d.add_global_attr_string("source", concat!("Shoal ", env!("CARGO_PKG_VERSION")))?;

        let text = |d: &mut DataSet, var: &str, attrs: &[(&str, &str)]| -> Result<(), netcdf3::InvalidDataSet> {
            for (name, value) in attrs {
                d.add_var_attr_string(var, name, value)?;
            }
            Ok(())
        };
        d.add_var_f64("time", &["time"])?;
        text(
            &mut d,
            "time",
            &[
                ("standard_name", "time"),
                ("long_name", "simulated time since the run's start"),
                ("units", "s"),
                ("axis", "T"),
            ],
        )?;
        d.add_var_i32("step", &["time"])?;
        text(&mut d, "step", &[("long_name", "step number")])?;
        let (xs, ys, unit) = match &l.crs {
            Some(c) if !c.projected => ("longitude", "latitude", ["degrees_east", "degrees_north"]),
            Some(_) => ("projection_x_coordinate", "projection_y_coordinate", ["m", "m"]),
            None => ("", "", ["m", "m"]),
        };
        for (var, standard, unit, axis) in [("x", xs, unit[0], "X"), ("y", ys, unit[1], "Y")] {
            d.add_var_f64(var, &[var])?;
            text(
                &mut d,
                var,
                &[
                    ("units", unit),
                    ("axis", axis),
                    ("long_name", &format!("{var} of the cell centre")),
                ],
            )?;
            if !standard.is_empty() {
                text(&mut d, var, &[("standard_name", standard)])?;
            }
        }
        if let Some(c) = &l.crs {
            d.add_var_i32("crs", &[] as &[&str])?;
            for (name, value) in c.cf_mapping() {
                match value {
                    Attr::Text(t) => d.add_var_attr_string("crs", name, t)?,
                    Attr::Number(n) => d.add_var_attr_f64("crs", name, vec![n])?,
                }
            }
            // CF's crs_wkt; GDAL reads spatial_ref.
            text(
                &mut d,
                "crs",
                &[
                    ("crs_wkt", c.wkt),
                    ("spatial_ref", c.wkt),
                    ("epsg_code", &format!("EPSG:{}", c.epsg)),
                ],
            )?;
        }
        let field = |d: &mut DataSet, var: &str, record: bool, attrs: &[(&str, &str)], fill: f32| {
            if record {
                d.add_var_f32(var, &["time", "y", "x"])?;
            } else {
                d.add_var_f32(var, &["y", "x"])?;
            }
            text(d, var, attrs)?;
            d.add_var_attr_f32(var, "_FillValue", vec![fill])?;
            if l.crs.is_some() {
                text(d, var, &[("grid_mapping", "crs")])?;
            }
            Ok::<(), netcdf3::InvalidDataSet>(())
        };
        field(
            &mut d,
            "ground",
            false,
            &[("long_name", "ground elevation"), ("units", "m")],
            FILL,
        )?;
        field(
            &mut d,
            "h",
            true,
            &[
                ("standard_name", "water_surface_height_above_reference_datum"),
                ("long_name", "water surface elevation (the ground where dry)"),
                ("units", "m"),
            ],
            FILL,
        )?;
        field(
            &mut d,
            "depth",
            true,
            &[("long_name", "water depth (0 where dry)"), ("units", "m")],
            FILL,
        )?;
        if l.velocity {
            field(
                &mut d,
                "u",
                true,
                &[
                    ("long_name", "depth-averaged velocity along x (0 where dry)"),
                    ("units", "m s-1"),
                ],
                FILL,
            )?;
            field(
                &mut d,
                "v",
                true,
                &[
                    ("long_name", "depth-averaged velocity along y (0 where dry)"),
                    ("units", "m s-1"),
                ],
                FILL,
            )?;
        }
        for (name, never) in &l.maps {
            let (long_name, unit) = map_meaning(name);
            field(
                &mut d,
                name,
                false,
                &[("long_name", long_name), ("units", unit)],
                never.unwrap_or(FILL),
            )?;
        }
        Ok(d)
    }
}

/// A flood map's meaning and unit (docs/guide.md, *Flood maps*).
fn map_meaning(name: &str) -> (&'static str, &'static str) {
    match name {
        "max_depth" => ("greatest water depth so far", "m"),
        "max_surface" => ("highest water surface so far", "m"),
        "first_wet" => ("time the cell was first wet", "s"),
        "time_wet" => ("time the cell has been wet", "s"),
        "max_speed" => ("greatest depth-averaged speed so far", "m s-1"),
        "max_hazard" => ("greatest depth times speed so far", "m2 s-1"),
        _ => ("flood map", "1"),
    }
}

/// A writer two owners share: the crate's `FileWriter` takes its output by value, and Shoal
/// flushes it after (and reads a header written into memory back).
struct Shared<W>(Rc<RefCell<W>>);

impl<W> Clone for Shared<W> {
    fn clone(&self) -> Self {
        Shared(Rc::clone(&self.0))
    }
}

impl<W> Shared<W> {
    fn new(w: W) -> Self {
        Shared(Rc::new(RefCell::new(w)))
    }

    fn with<T>(&self, f: impl FnOnce(&mut W) -> std::io::Result<T>) -> std::io::Result<T> {
        f(&mut self.0.borrow_mut())
    }
}

impl<W: Write> Shared<W> {
    fn flush_inner(&self) -> std::io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

impl<W: Write> Write for Shared<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

impl<W: Seek> Seek for Shared<W> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.0.borrow_mut().seek(pos)
    }
}

/// The part of a file from byte `from` on: writes before it are dropped (they are the header,
/// which the crate writes whenever a definition is set and which must not yet count a record
/// still being written).
struct Region<W> {
    inner: Shared<W>,
    at: u64,
    from: u64,
}

impl<W: Write + Seek> Write for Region<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let end = self.at + buf.len() as u64;
        if end <= self.from {
            self.at = end;
            return Ok(buf.len());
        }
        // A write straddling the boundary keeps its tail.
        let skip = self.from.saturating_sub(self.at) as usize;
        if skip > 0 {
            self.inner.seek(SeekFrom::Start(self.from))?;
        }
        self.inner.write_all(&buf[skip..])?;
        self.at = end;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write + Seek> Seek for Region<W> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.at = match pos {
            SeekFrom::Start(p) => p,
            // The crate seeks only from the start; anything else goes to the file and is kept.
            other => self.inner.seek(other)?,
        };
        if self.at >= self.from {
            self.inner.seek(SeekFrom::Start(self.at))?;
        }
        Ok(self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(crs: Option<Crs>) -> Layout {
        Layout {
            nx: 3,
            ny: 2,
            x: vec![0.5, 1.5, 2.5],
            y: vec![0.5, 1.5],
            crs,
            velocity: true,
            maps: vec![("max_depth".into(), None), ("first_wet".into(), Some(-1.0))],
            void: None,
        }
    }

    fn record<'a>(step: u64, h: &'a [f32], maps: &'a [&'a [f32]]) -> Record<'a> {
        Record {
            step,
            time: step as f64 * 0.5,
            h,
            depth: h,
            uv: Some((h, h)),
            maps,
        }
    }

    #[test]
    fn records_read_back_and_a_reopened_file_ends_as_an_unbroken_one() {
        let dir = tempfile::tempdir().unwrap();
        let crs = Crs::of_geokeys(&crate::io::geotiff::GeoKeys::epsg_projected(32633)).unwrap();
        assert!(crs.wkt.contains("UTM zone 33N"));
        let fields: Vec<Vec<f32>> = (0..3).map(|k| (0..6).map(|c| (k * 10 + c) as f32).collect()).collect();
        let maps: Vec<&[f32]> = vec![&fields[2], &fields[1]];
        let write = |dir: &Path, break_after: Option<usize>| {
            let mut s = Stack::create(dir, layout(Some(crs.clone())), &[0.0; 6]).unwrap();
            for (k, f) in fields.iter().enumerate() {
                if break_after == Some(k) {
                    s = Stack::reopen(dir, layout(Some(crs.clone())), k).unwrap();
                }
                s.append(k, &record(k as u64 * 10, f, &maps)).unwrap();
            }
            std::fs::read(dir.join(FILE)).unwrap()
        };
        let whole = write(dir.path(), None);
        let other = tempfile::tempdir().unwrap();
        assert_eq!(whole, write(other.path(), Some(1)), "reopened at record 1");

        let mut r = netcdf3::FileReader::open(dir.path().join(FILE)).unwrap();
        assert_eq!(r.data_set().num_records(), Some(3));
        let h = r.read_var("h").unwrap();
        assert_eq!(h.get_f32().unwrap(), fields.concat().as_slice());
        let t = r.read_var("time").unwrap();
        assert_eq!(t.get_f64().unwrap(), &[0.0, 5.0, 10.0]);
        let wkt = r.data_set().get_var_attr_as_string("crs", "spatial_ref").unwrap();
        assert!(wkt.contains("UTM zone 33N"));
    }

    #[test]
    fn a_file_cut_inside_a_record_opens_with_the_records_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let h = [1.0f32; 6];
        let mut s = Stack::create(dir.path(), layout(None), &[0.0; 6]).unwrap();
        s.append(0, &record(0, &h, &[&h, &h])).unwrap();
        s.append(1, &record(1, &h, &[&h, &h])).unwrap();
        // What a kill inside the third record leaves: its data half there, the header at 2.
        let path = dir.path().join(FILE);
        let len = std::fs::metadata(&path).unwrap().len();
        let header = s.header(2).unwrap();
        s.append(2, &record(2, &h, &[&h, &h])).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[..header.len()].copy_from_slice(&header);
        bytes.truncate(len as usize + 20);
        std::fs::write(&path, &bytes).unwrap();
        let mut r = netcdf3::FileReader::open(&path).unwrap();
        assert_eq!(r.data_set().num_records(), Some(2));
        assert_eq!(r.read_var("h").unwrap().get_f32().unwrap(), &[1.0f32; 12]);
    }

    #[test]
    fn reopening_refuses_another_layout_and_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Stack::reopen(dir.path(), layout(None), 0).is_err());
        let mut s = Stack::create(dir.path(), layout(None), &[0.0; 6]).unwrap();
        s.append(0, &record(0, &[0.0; 6], &[&[0.0; 6], &[0.0; 6]])).unwrap();
        let mut other = layout(None);
        other.velocity = false;
        let e = Stack::reopen(dir.path(), other, 1).err().unwrap().to_string();
        assert!(e.contains("another grid"), "{e}");
        let e = Stack::reopen(dir.path(), layout(None), 2).err().unwrap().to_string();
        assert!(e.contains("fewer than"), "{e}");
    }

    #[test]
    fn a_user_defined_crs_is_named_as_one_the_file_cannot_carry() {
        let mut keys = crate::io::geotiff::GeoKeys::epsg_projected(32633);
        keys.directory[4 * 3 + 3] = 32767;
        let e = Crs::of_geokeys(&keys).unwrap_err();
        assert!(e.contains("user-defined"), "{e}");
    }
}
