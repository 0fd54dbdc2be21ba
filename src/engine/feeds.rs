//! What the host adds to the water step by step beyond the steady sources: `[rain]`'s drops,
//! `[[source]] hydrograph`s and `[rainfall]` (SCENE.md). Everything is a function of the step
//! index alone, so a run adds the same water however its steps are split into chunks or resumed.
//!
//! - Drops and hydrographs are sparse: a chunk lists, per step, (cell, height) entries, one per
//!   cell (`rain::RainChunk`), which the volume pass (`pipe_rain` under the pipes) adds exactly
//!   and the volume target adds as their f32 sum. A hydrograph's step share is the exact integral
//!   of its piecewise-linear rate over the step (`Table::integral`), spread evenly over the cells
//!   of its disc, as the steady rate is.
//! - Wave makers are sparse too: a `"maker"` side absorbs (Mur), and the line of cells
//!   `MAKER_INSET` cells inside it is a line source of water (Wei & Kirby's internal generation,
//!   1999): a source of q(t) m²/s per metre of line raises waves η = q/(2c) running both ways, so
//!   q = 2c·f(t) sends the maker's signal f into the domain, while its twin running out is
//!   absorbed by the side behind, as are the waves reflected back from the domain (a line
//!   source is transparent to them: the equations are linear). Each step the line's cells take
//!   2c/dx·∫f dt over the step, c = √(g·d) of the line's mean still depth.
//! - Rainfall is dense: each step carries one height (`RainStep::rainfall`, m at full intensity:
//!   the intensity's integral over the step) and the volume pass adds it × the cell's share of
//!   the map (`rainfall_map`, 1 everywhere when uniform), inside `apply` with the sources.

use crate::engine::rain::{RainChunk, RainStep};
use crate::engine::table::Table;
use crate::error::{Error, Result};
use crate::scene::Scene;
use std::collections::BTreeMap;

/// mm/h in m/s.
const MM_PER_HOUR: f64 = 1e-3 / 3600.0;

/// `Params::rainfall`: no rainfall, a uniform intensity, or a map.
pub const RAINFALL_NONE: u32 = 0;
pub use crate::wgsl::common::{RAINFALL_MAP, RAINFALL_UNIFORM};

/// A source's hydrograph: its disc's cells and its rate over time (m³/s).
#[derive(Clone, Debug)]
struct Hydrograph {
    /// The source's index in `[[source]]`.
    source: usize,
    cells: Vec<u32>,
    rate: Table,
    /// m² the disc's cells cover.
    area: f64,
}

pub use crate::scene::limits::MAKER_INSET;

/// A wave maker: the cells of its line source, and the height per unit of ∫f dt they take.
#[derive(Clone, Debug)]
struct MakerLine {
    cells: Vec<u32>,
    gain: f64,
    signal: Signal,
}

/// A maker's signal f(t), the surface it raises, m.
#[derive(Clone, Debug)]
enum Signal {
    Sine {
        amplitude: f64,
        omega: f64,
        phase: f64,
        period: f64,
    },
    Solitary {
        height: f64,
        rate: f64,
        peak_at: f64,
    },
    Table(Table),
}

impl Signal {
    fn at(&self, t: f64) -> f64 {
        match self {
            Signal::Sine {
                amplitude,
                omega,
                phase,
                period,
            } => {
                // A half-cosine ramp over the first period: a sine switched on at once would
                // start with a jump in its slope and shed a train of short waves.
                let ramp = if t < *period {
                    0.5 * (1.0 - (std::f64::consts::PI * t / period).cos())
                } else {
                    1.0
                };
                amplitude * ramp * (omega * t + phase).sin()
            }
            Signal::Solitary { height, rate, peak_at } => {
                let s = 1.0 / (rate * (t - peak_at)).cosh();
                height * s * s
            }
            Signal::Table(table) => table.at(t),
        }
    }

    /// ∫ f dt over [t0, t1]: exact for a table, Simpson's rule on 8 panels otherwise (error
    /// ~(ω·dt)⁴/10⁵ of the step's share: nothing at any usable step).
    fn integral(&self, t0: f64, t1: f64) -> f64 {
        if let Signal::Table(table) = self {
            return table.integral(t1) - table.integral(t0);
        }
        let n = 8;
        let h = (t1 - t0) / n as f64;
        let inner: f64 = (1..n)
            .map(|k| self.at(t0 + k as f64 * h) * if k % 2 == 1 { 4.0 } else { 2.0 })
            .sum();
        (self.at(t0) + inner + self.at(t1)) * h / 3.0
    }
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
    makers: Vec<MakerLine>,
    /// Steady sources and drains as per-step entries (the shallow-water model's; the height
    /// field takes them from its source field): each one's disc and its height a step (m).
    steady: Vec<(Vec<u32>, f64)>,
    /// Held heights as per-step entries: each held cell and its
    /// level − ref, its cell word flagged `HELD`; a later source's level wins where discs
    /// overlap.
    held: BTreeMap<u32, f32>,
    /// River sides as per-step entries (the height field's): each discharge or stage side's edge
    /// cells, and the sides' values over time (`rivers::Rivers`).
    river_sides: Option<RiverSides>,
    /// The reference level the models count heights from (the held levels are relative to it).
    reference: f64,
    grid: crate::scene::Grid,
    dt: f64,
}

/// The height field's river sides: a `"discharge"` side's edge cells take q·dt/dx a step (q at
/// the step's middle), a `"stage"` side's are held at its level; the side itself is a wall.
#[derive(Clone, Debug)]
struct RiverSides {
    values: crate::models::shallow_water::rivers::Rivers,
    /// West, east, south, north: the side's edge cells, and whether it is a stage (None: neither).
    sides: [Option<(Vec<u32>, bool)>; 4],
}

/// The sides in the order the feeds keep them.
const SIDE_NAMES: [&str; 4] = ["west", "east", "south", "north"];

/// The cells along side `k` (west, east, south, north) of `grid`.
fn edge_cells(grid: &crate::scene::Grid, k: usize) -> Vec<u32> {
    let (nx, ny) = (grid.nx, grid.ny);
    match k {
        0 => (0..ny).map(|j| j * nx).collect(),
        1 => (0..ny).map(|j| j * nx + nx - 1).collect(),
        2 => (0..nx).collect(),
        _ => (0..nx).map(|i| (ny - 1) * nx + i).collect(),
    }
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
    scene.rain.is_some()
        || scene.sources.iter().any(|s| s.hydrograph.is_some())
        || scene.rainfall.is_some()
        || scene.boundary.sides().any(crate::scene::BoundaryMode::Maker)
}

impl Feeds {
    /// Reads the scene's hydrograph tables, rainfall map and series and wave maker; errors name
    /// the key. `fields`: the initial water (the makers' still depth).
    pub fn new(scene: &Scene, fields: &crate::scene::InitialFields) -> Result<Feeds> {
        let grid = scene.grid;
        let mut hydrographs = Vec::new();
        for (k, s) in scene.sources.iter().enumerate() {
            let Some(file) = &s.hydrograph else { continue };
            let key = format!("source[{k}].hydrograph");
            let rate = crate::engine::table::read(scene, file, &key)?;
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
            hydrographs.push(Hydrograph {
                source: k,
                cells,
                rate,
                area,
            });
        }
        let rainfall = match &scene.rainfall {
            Some(r) => Some(rainfall(scene, r)?),
            None => None,
        };
        let makers = makers(scene, fields)?;
        Ok(Feeds {
            rain: scene.rain,
            hydrographs,
            rainfall,
            makers,
            steady: Vec::new(),
            held: BTreeMap::new(),
            river_sides: None,
            reference: fields.reference.0,
            grid,
            dt: scene.time.dt,
        })
    }

    /// These feeds with the scene's steady sources and drains among each step's entries (a drain's
    /// negative), rate·dt spread evenly over its disc as `source_field` spreads it: for a model
    /// that adds every feed in one pass (the shallow-water model's `sw_feed`).
    /// Held heights come the same way (`with_held`).
    pub fn with_steady_sources(mut self, scene: &Scene) -> Feeds {
        self = self.with_held(scene);
        self.steady = scene
            .sources
            .iter()
            .map(|s| {
                let cells = disc_cells(&self.grid, s.x, s.y, s.radius);
                let height = s.rate * self.dt / (cells.len() as f64 * self.grid.dx * self.grid.dx);
                (cells, height)
            })
            .filter(|(_, h)| *h != 0.0)
            .collect();
        self
    }

    /// These feeds with the scene's held heights among each step's entries: each held cell an
    /// entry a step with its level − ref, its cell word flagged `HELD` (the height field's
    /// `volume.wgsl` and the shallow-water model's `sw_feed.wgsl` set the cell to it).
    pub fn with_held(mut self, scene: &Scene) -> Feeds {
        for s in scene.sources.iter() {
            if let Some(level) = s.height {
                for c in disc_cells(&self.grid, s.x, s.y, s.radius) {
                    self.held.insert(c, (level - self.reference) as f32);
                }
            }
        }
        self
    }

    /// These feeds with the scene's `"discharge"` and `"stage"` sides as per-step entries along
    /// their edges (the height field's, whose passes run them as walls): a discharge's q·dt/dx
    /// a step into each edge cell, so q·L·dt over the side's length L; a stage's level held in
    /// each (`HELD`). A corner two discharge sides share takes both; a stage wins a corner.
    pub fn with_river_sides(mut self, scene: &Scene) -> Result<Feeds> {
        let s = scene.boundary.sides();
        let modes = [s.west, s.east, s.south, s.north];
        let sides: [Option<(Vec<u32>, bool)>; 4] = std::array::from_fn(|k| match modes[k] {
            crate::scene::BoundaryMode::Discharge => Some((edge_cells(&self.grid, k), false)),
            crate::scene::BoundaryMode::Stage => Some((edge_cells(&self.grid, k), true)),
            _ => None,
        });
        if sides.iter().any(Option::is_some) {
            let values = crate::models::shallow_water::rivers::Rivers::new(scene, self.reference)?;
            self.river_sides = Some(RiverSides { values, sides });
        }
        Ok(self)
    }

    /// Whether some cell is held at a level (a `[[source]]` with a height, a `"stage"` side): its
    /// gains are booked with the drains' shortfall.
    pub fn holds(&self) -> bool {
        !self.held.is_empty()
            || self
                .river_sides
                .as_ref()
                .is_some_and(|r| r.sides.iter().flatten().any(|(_, stage)| *stage))
    }

    /// Whether each chunk brings a per-step table (`ChunkInput::rain`): drops, hydrographs or
    /// rainfall.
    pub fn any(&self) -> bool {
        self.rain.is_some()
            || !self.hydrographs.is_empty()
            || self.rainfall.is_some()
            || !self.makers.is_empty()
            || !self.steady.is_empty()
            || !self.held.is_empty()
            || self.river_sides.is_some()
    }

    /// The most water (m³) each feed can add over the first `duration` seconds, by the key that
    /// asks for it: hydrographs their integral, rainfall its intensity's, drops their count times
    /// a drop's volume (2π·σ²·height, a Gaussian's of that peak and sigma, or a cell's worth
    /// where the drop is smaller than a cell). What a model whose
    /// water has a finite range (the pipes' units) checks that range against before it runs.
    pub fn added_over(&self, duration: f64) -> Vec<(String, f64)> {
        let mut added = Vec::new();
        for h in &self.hydrographs {
            let volume = h.rate.integral(duration) - h.rate.integral(0.0);
            added.push((format!("source[{}].hydrograph", h.source), volume.max(0.0)));
        }
        if let Some(r) = &self.rainfall {
            let factor = match &r.series {
                Some(s) => s.integral(duration) - s.integral(0.0),
                None => duration,
            };
            let area = self.grid.dx * self.grid.dx;
            added.push((
                "rainfall.intensity".into(),
                (r.peak * factor * r.share_sum * area).max(0.0),
            ));
        }
        if let Some(rain) = &self.rain {
            let footprint = (std::f64::consts::TAU * rain.radius * rain.radius).max(self.grid.dx * self.grid.dx);
            let drop = footprint * rain.height.abs();
            added.push(("rain.rate".into(), rain.rate * duration * drop));
        }
        if let Some(r) = &self.river_sides {
            for (k, side) in r.sides.iter().enumerate() {
                if let Some((edge, false)) = side {
                    let length = edge.len() as f64 * self.grid.dx;
                    added.push((
                        format!("boundary.{}", SIDE_NAMES[k]),
                        (r.values.discharged(k, duration) * length).max(0.0),
                    ));
                }
            }
        }
        for m in &self.makers {
            // A signal's crest is at most its largest value for the whole run (a bound).
            let most = (0..=64)
                .map(|k| m.signal.at(duration * k as f64 / 64.0).abs())
                .fold(0.0, f64::max);
            let line = m.cells.len() as f64 * self.grid.dx * self.grid.dx;
            added.push(("boundary.maker".into(), m.gain * most * duration * line));
        }
        added
    }

    /// The highest level each `"stage"` side holds (m, absolute), by the key that asks for it:
    /// what a model whose water has a finite range checks that range against, as `added_over`.
    pub fn stage_levels(&self) -> Vec<(String, f64)> {
        let Some(r) = &self.river_sides else {
            return Vec::new();
        };
        (0..4)
            .filter_map(|k| {
                r.values
                    .highest_stage(k)
                    .map(|l| (format!("boundary.{}", SIDE_NAMES[k]), l))
            })
            .collect()
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
                crate::engine::rain::step_drops(rain, &self.grid, self.dt, n, &mut cells);
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
            for (disc, height) in &self.steady {
                for &c in disc {
                    *cells.entry(c).or_default() += height;
                }
            }
            for m in &self.makers {
                let height = m.gain * m.signal.integral(t0, t1);
                for &c in &m.cells {
                    *cells.entry(c).or_default() += height;
                }
            }
            // A stage side's cells are held this step; a source's held disc wins over them.
            let mut held = BTreeMap::new();
            if let Some(r) = &self.river_sides {
                let values = r.values.at(0.5 * (t0 + t1));
                for (side, &value) in r.sides.iter().zip(&values) {
                    match side {
                        Some((edge, true)) => held.extend(edge.iter().map(|&c| (c, value))),
                        Some((edge, false)) => {
                            let height = value as f64 * self.dt / self.grid.dx;
                            for &c in edge {
                                *cells.entry(c).or_default() += height;
                            }
                        }
                        None => {}
                    }
                }
            }
            held.extend(self.held.iter().map(|(&c, &level)| (c, level)));
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
            let mut step = RainStep {
                start: out.cells.len() as u32,
                count: cells.len() as u32,
                added: 0.0,
                rainfall,
            };
            let mut added = rainfall_total;
            for (c, h) in cells {
                // A held cell is set to its level: what else falls on it is moot (and two
                // entries on one cell would race).
                if held.contains_key(&c) {
                    continue;
                }
                let h = h as f32;
                out.cells.push(c);
                out.heights.push(h);
                added += h as f64;
            }
            // What a held cell gains is known once it is held (`sw_feed`'s `hold_cell`): the
            // model's books add it from the entry's height after the chunk.
            for (&c, &level) in &held {
                out.cells.push(c | crate::wgsl::rain_step::HELD);
                out.heights.push(level);
            }
            step.count = (out.cells.len() as u32) - step.start;
            step.added = added as f32;
            out.total += added;
            out.steps.push(step);
        }
        out
    }
}

fn scene_error(scene: &Scene, key: &str, message: String) -> Error {
    let text = std::fs::read_to_string(&scene.origin).ok();
    scene.error_at(text.as_deref(), key, message)
}

/// The line sources of the scene's `"maker"` sides.
fn makers(scene: &Scene, fields: &crate::scene::InitialFields) -> Result<Vec<MakerLine>> {
    use crate::scene::{BoundaryMode, MakerKind};
    let sides = scene.boundary.sides();
    let Some(maker) = &scene.boundary.maker else {
        return Ok(Vec::new());
    };
    let (nx, ny) = (scene.grid.nx, scene.grid.ny);
    let g = scene.physics.gravity;
    let mut lines = Vec::new();
    for (side, mode) in [
        ("west", sides.west),
        ("east", sides.east),
        ("south", sides.south),
        ("north", sides.north),
    ] {
        if mode != BoundaryMode::Maker {
            continue;
        }
        let cells: Vec<u32> = match side {
            "west" => (0..ny).map(|j| j * nx + MAKER_INSET).collect(),
            "east" => (0..ny).map(|j| j * nx + nx - 1 - MAKER_INSET).collect(),
            "south" => (0..nx).map(|i| MAKER_INSET * nx + i).collect(),
            _ => (0..nx).map(|i| (ny - 1 - MAKER_INSET) * nx + i).collect(),
        };
        let depths: Vec<f64> = cells
            .iter()
            .map(|&c| fields.surface[c as usize] - fields.ground[c as usize])
            .filter(|&d| d > 0.0)
            .collect();
        if depths.is_empty() {
            return Err(scene_error(
                scene,
                &format!("boundary.{side}"),
                format!("the wave maker's line, {MAKER_INSET} cells inside the {side} side, is dry: it needs water to make waves in"),
            ));
        }
        let still = depths.iter().sum::<f64>() / depths.len() as f64;
        let c = (g * still).sqrt();
        let signal = match maker.kind {
            MakerKind::Sine => {
                let period = maker.period.unwrap_or(1.0);
                Signal::Sine {
                    amplitude: maker.amplitude.unwrap_or(0.0),
                    omega: std::f64::consts::TAU / period,
                    phase: maker.phase.to_radians(),
                    period,
                }
            }
            MakerKind::Solitary => {
                // Boussinesq's solitary wave H·sech²(K(x − c_s t)), K = √(3H/4d³), passing the
                // maker at c_s = √(g(d + H)); its crest comes 4/(K·c_s) s in, when the wave's
                // front is 7e-4 of its height.
                let height = maker.height.unwrap_or(0.0);
                let d = maker.depth.unwrap_or(still);
                let k = (3.0 * height / (4.0 * d * d * d)).sqrt();
                let rate = k * (g * (d + height)).sqrt();
                Signal::Solitary {
                    height,
                    rate,
                    peak_at: 4.0 / rate,
                }
            }
            MakerKind::Table => {
                let file = maker.file.clone().unwrap_or_default();
                Signal::Table(crate::engine::table::read(scene, &file, "boundary.maker.file")?)
            }
        };
        lines.push(MakerLine {
            cells,
            gain: 2.0 * c / scene.grid.dx,
            signal,
        });
    }
    Ok(lines)
}

/// `[rainfall]` as the feed adds it.
fn rainfall(scene: &Scene, r: &crate::scene::Rainfall) -> Result<RainfallFeed> {
    let series = match &r.series {
        Some(file) => {
            let table = crate::engine::table::read(scene, file, "rainfall.series")?;
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
