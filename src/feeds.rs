//! What the host adds to the water step by step beyond the steady sources: `[rain]`'s drops,
//! `[[source]] hydrograph`s and `[rainfall]` (SCENE.md). Everything is a function of the step
//! index alone, so a run adds the same water however its steps are split into chunks or resumed.
//!
//! - Drops and hydrographs are sparse: a chunk lists, per step, (cell, height) entries, one per
//!   cell (`rain::RainChunk`), which the volume pass (`pipe_rain` under the pipes) adds exactly
//!   and the volume target adds as their f32 sum. A hydrograph's step share is the exact integral
//!   of its piecewise-linear rate over the step (`Table::integral`), spread evenly over the cells
//!   of its disc, as the steady rate is.
//! - Rainfall is dense: each step carries one height (`RainStep::rainfall`, m at full intensity:
//!   the intensity's integral over the step) and the volume pass adds it × the cell's share of
//!   the map (`rainfall_map`, 1 everywhere when uniform), inside `apply` with the sources.

use crate::error::{Error, Result};
use crate::rain::{RainChunk, RainStep};
use crate::scene::Scene;
use crate::table::Table;
use std::collections::BTreeMap;

/// mm/h in m/s.
const MM_PER_HOUR: f64 = 1e-3 / 3600.0;

/// `Params::rainfall`: no rainfall, a uniform intensity, or a map.
pub const RAINFALL_NONE: u32 = 0;
pub use crate::wgsl::common::{RAINFALL_MAP, RAINFALL_UNIFORM};

/// A source's hydrograph: its disc's cells and its rate over time (m³/s).
#[derive(Clone, Debug)]
struct Hydrograph {
    cells: Vec<u32>,
    rate: Table,
    /// m² the disc's cells cover.
    area: f64,
}

/// The scene's rainfall: the intensity at a map share of 1 (m/s), each cell's share, and the
/// factor over time.
#[derive(Clone, Debug)]
struct RainfallFeed {
    peak: f64,
    /// Per cell in [0, 1] (empty: uniform, every cell 1).
    share: Vec<f32>,
    /// Σ share in f64 (cells, for uniform).
    share_sum: f64,
    series: Option<Table>,
}

/// What a scene feeds its water over time, built once from the scene (tables and maps read).
#[derive(Clone, Debug, Default)]
pub struct Feeds {
    rain: Option<crate::scene::Rain>,
    hydrographs: Vec<Hydrograph>,
    rainfall: Option<RainfallFeed>,
    grid: crate::scene::Grid,
    dt: f64,
}

/// The cells whose centres lie in a disc (the cell its centre stands in, if none do): where a
/// source spreads its water.
pub fn disc_cells(grid: &crate::scene::Grid, x: f64, y: f64, radius: f64) -> Vec<u32> {
    let mut cells = Vec::new();
    let reach = (radius / grid.dx).ceil() as i64 + 1;
    let (ci, cj) = ((x / grid.dx).floor() as i64, (y / grid.dx).floor() as i64);
    for j in (cj - reach).max(0)..=(cj + reach).min(grid.ny as i64 - 1) {
        for i in (ci - reach).max(0)..=(ci + reach).min(grid.nx as i64 - 1) {
            let (cx, cy) = ((i as f64 + 0.5) * grid.dx, (j as f64 + 0.5) * grid.dx);
            if (cx - x).powi(2) + (cy - y).powi(2) <= radius * radius {
                cells.push((j * grid.nx as i64 + i) as u32);
            }
        }
    }
    if cells.is_empty() {
        let i = ((x / grid.dx).floor() as u32).min(grid.nx - 1);
        let j = ((y / grid.dx).floor() as u32).min(grid.ny - 1);
        cells.push(j * grid.nx + i);
    }
    cells
}

/// Whether a scene feeds its water step by step (drops, hydrographs or rainfall): each chunk then
/// brings a per-step table (`Feeds::any` of the built feeds).
pub fn staged(scene: &Scene) -> bool {
    scene.rain.is_some() || scene.sources.iter().any(|s| s.hydrograph.is_some()) || scene.rainfall.is_some()
}

impl Feeds {
    /// Reads the scene's hydrograph tables and rainfall map and series; errors name the key.
    pub fn new(scene: &Scene) -> Result<Feeds> {
        let grid = scene.grid;
        let mut hydrographs = Vec::new();
        for (k, s) in scene.sources.iter().enumerate() {
            let Some(file) = &s.hydrograph else { continue };
            let key = format!("source[{k}].hydrograph");
            let rate = crate::ns_forcing::read_table(scene, file, &key)?;
            if rate.min() < 0.0 {
                return Err(scene_error(
                    scene,
                    &key,
                    format!(
                        "\"{}\": a hydrograph's rates must be ≥ 0 m³/s (a drain is a negative steady `rate`)",
                        file.display()
                    ),
                ));
            }
            let cells = disc_cells(&grid, s.x, s.y, s.radius);
            let area = cells.len() as f64 * grid.dx * grid.dx;
            hydrographs.push(Hydrograph { cells, rate, area });
        }
        let rainfall = match &scene.rainfall {
            Some(r) => Some(rainfall(scene, r)?),
            None => None,
        };
        Ok(Feeds {
            rain: scene.rain,
            hydrographs,
            rainfall,
            grid,
            dt: scene.time.dt,
        })
    }

    /// Whether each chunk brings a per-step table (`ChunkInput::rain`): drops, hydrographs or
    /// rainfall.
    pub fn any(&self) -> bool {
        self.rain.is_some() || !self.hydrographs.is_empty() || self.rainfall.is_some()
    }

    /// `Params::rainfall`.
    pub fn rainfall_mode(&self) -> u32 {
        match &self.rainfall {
            None => RAINFALL_NONE,
            Some(r) if r.share.is_empty() => RAINFALL_UNIFORM,
            Some(_) => RAINFALL_MAP,
        }
    }

    /// Each cell's share of the rainfall's full intensity (empty unless a map).
    pub fn rainfall_map(&self) -> &[f32] {
        self.rainfall.as_ref().map_or(&[], |r| &r.share)
    }

    /// The entries of steps `first + 1 ..= first + steps` (step n ends at n·dt).
    pub fn chunk(&self, first: u64, steps: u32) -> RainChunk {
        let mut out = RainChunk::default();
        for k in 0..steps {
            let n = first + k as u64 + 1;
            let (t0, t1) = ((n - 1) as f64 * self.dt, n as f64 * self.dt);
            let mut cells: BTreeMap<u32, f64> = BTreeMap::new();
            if let Some(rain) = &self.rain {
                crate::rain::step_drops(rain, &self.grid, self.dt, n, &mut cells);
            }
            for h in &self.hydrographs {
                let volume = h.rate.integral(t1) - h.rate.integral(t0);
                if volume > 0.0 {
                    let height = volume / h.area;
                    for &c in &h.cells {
                        *cells.entry(c).or_default() += height;
                    }
                }
            }
            let (rainfall, rainfall_total) = match &self.rainfall {
                Some(r) => {
                    let factor = match &r.series {
                        Some(s) => s.integral(t1) - s.integral(t0),
                        None => self.dt,
                    };
                    let height = (r.peak * factor) as f32;
                    (height, height as f64 * r.share_sum)
                }
                None => (0.0, 0.0),
            };
            let step = RainStep {
                start: out.cells.len() as u32,
                count: cells.len() as u32,
                before: out.total as f32,
                rainfall,
            };
            for (c, h) in cells {
                let h = h as f32;
                out.cells.push(c);
                out.heights.push(h);
                out.total += h as f64;
            }
            out.total += rainfall_total;
            out.steps.push(step);
        }
        out
    }
}

fn scene_error(scene: &Scene, key: &str, message: String) -> Error {
    let text = std::fs::read_to_string(&scene.origin).ok();
    scene.error_at(text.as_deref(), key, message)
}

/// `[rainfall]` as the feed adds it.
fn rainfall(scene: &Scene, r: &crate::scene::Rainfall) -> Result<RainfallFeed> {
    let series = match &r.series {
        Some(file) => {
            let table = crate::ns_forcing::read_table(scene, file, "rainfall.series")?;
            if table.min() < 0.0 {
                return Err(scene_error(
                    scene,
                    "rainfall.series",
                    format!("\"{}\": the factors must be ≥ 0", file.display()),
                ));
            }
            Some(table)
        }
        None => None,
    };
    let Some(map) = &r.map else {
        let peak = r.intensity.unwrap_or(0.0) * MM_PER_HOUR;
        return Ok(RainfallFeed {
            peak,
            share: Vec::new(),
            share_sum: scene.grid.cells() as f64,
            series,
        });
    };
    let (values, shares) = crate::scene::read_map(scene, "rainfall.map", map)?;
    let fail = |why: String| scene_error(scene, "rainfall.map", format!("\"{}\": {why}", map.display()));
    if let Some(bad) = values.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        return Err(fail(format!(
            "cell {bad} holds {}: intensities must be ≥ 0 mm/h",
            values[bad]
        )));
    }
    // A PNG's shades are shares of `intensity`; an NPY's or a GeoTIFF's values are mm/h, stored
    // as shares of their largest.
    let (peak_mm, scale) = if shares {
        let Some(full) = r.intensity else {
            return Err(fail(
                "a PNG map holds shades, not mm/h: give rainfall.intensity, the mm/h of white".into(),
            ));
        };
        (full, 1.0)
    } else {
        let top = values.iter().copied().fold(0.0, f64::max);
        (top, if top > 0.0 { 1.0 / top } else { 0.0 })
    };
    let share: Vec<f32> = values.iter().map(|v| (v * scale) as f32).collect();
    let share_sum = share.iter().map(|&s| s as f64).sum();
    Ok(RainfallFeed {
        peak: peak_mm * MM_PER_HOUR,
        share,
        share_sum,
        series,
    })
}
