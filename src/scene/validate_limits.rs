//! Magnitudes a scene may not exceed: numbers whose products would overflow float32 (the state's
//! precision) or whose work would never end are refused here, naming the key, rather than
//! written out as infinities, aborted on, or waited for.

use super::Check;
use crate::error::Result;

/// Cells Shoal indexes (u32 cell indices in the passes, with room for a level's two copies).
pub const MAX_CELLS: u64 = 1 << 30;
/// Heights and lengths, m: a thousand kilometres, far past any terrain, and far inside f32.
pub const LENGTH: f64 = 1e6;
/// Positions, m (a DEM's map coordinates stay in the file; scenes are local).
const POSITION: f64 = 1e9;
/// The largest cell, m.
const CELL: f64 = 1e5;
/// Flows, m³/s (the Amazon's is 2e5).
const RATE: f64 = 1e9;
/// The largest applied air pressure, Pa: a thousand atmospheres (any weather is under 1e4).
const PASCALS: f64 = 1e8;
/// Drops a step may bring (each is rasterised on the host).
const DROPS_PER_STEP: f64 = 1e6;

impl Check<'_> {
    /// Fails unless `v` is finite and |v| ≤ `max`.
    fn bounded(&self, key: &str, v: f64, max: f64, unit: &str) -> Result<()> {
        if v.is_finite() && v.abs() <= max {
            Ok(())
        } else {
            let got = if v.is_finite() && v.abs() >= 1e6 {
                format!("{v:e}")
            } else {
                format!("{v}")
            };
            self.fail(
                key,
                format!("must be a finite number of magnitude at most {max:e} {unit} (got {got})"),
            )
        }
    }

    /// Sizes, heights, rates and densities within what the engine computes in float32.
    pub(super) fn limits(&self) -> Result<()> {
        let s = self.scene;
        let g = &s.grid;
        let cells = g.nx as u64 * g.ny as u64;
        if cells > MAX_CELLS {
            return self.fail(
                "grid.nx",
                format!("nx·ny = {cells} cells, past the {MAX_CELLS} Shoal indexes"),
            );
        }
        self.bounded("grid.dx", g.dx, CELL, "m")?;
        if s.time.substeps > crate::scene::limits::MAX_SUBSTEPS {
            return self.fail(
                "time.substeps",
                format!(
                    "at most {} substeps a step (got {}): a step that needs more is far too long for its depth",
                    crate::scene::limits::MAX_SUBSTEPS,
                    s.time.substeps
                ),
            );
        }
        let p = &s.physics;
        self.bounded("physics.gravity", p.gravity, 1e4, "m/s²")?;
        self.bounded("physics.water_density", p.water_density, 1e5, "kg/m³")?;
        self.terrain_limits()?;
        self.solid_limits()?;
        self.forcing_limits()
    }

    /// The ground's and the water's heights, boxes and bumps within the domain and float32.
    fn terrain_limits(&self) -> Result<()> {
        let s = self.scene;
        let g = &s.grid;
        let t = &s.terrain;
        for (key, v) in [
            ("terrain.flat", t.flat),
            ("terrain.nodata", t.nodata),
            ("water.level", s.water.level),
        ] {
            if let Some(v) = v {
                self.bounded(key, v, LENGTH, "m")?;
            }
        }
        if let Some(sl) = t.slope {
            let rise = sl.base.abs() + (sl.grad[0].abs() * g.nx as f64 + sl.grad[1].abs() * g.ny as f64) * g.dx;
            self.bounded("terrain.slope", rise, LENGTH, "m of height over the domain")?;
        }
        if let Some(png) = &t.png {
            self.bounded("terrain.png", png.min, LENGTH, "m")?;
            self.bounded("terrain.png", png.max, LENGTH, "m")?;
        }
        for (i, b) in t.boxes.iter().enumerate() {
            let key = format!("terrain.box[{i}]");
            self.bounded(&format!("{key}.top"), b.top, LENGTH, "m")?;
            self.not_wholly_outside(&key, [b.x0, b.x1, b.y0, b.y1])?;
        }
        for (i, b) in s.water.bumps.iter().enumerate() {
            let key = format!("water.bump[{i}]");
            self.bounded(&format!("{key}.height"), b.height, LENGTH, "m")?;
            self.bounded(&format!("{key}.radius"), b.radius, POSITION, "m")?;
            if !self.inside(b.x, b.y) {
                return self.fail(
                    &format!("{key}.x"),
                    format!(
                        "({}, {}) is outside the domain [0, {}) × [0, {})",
                        b.x, b.y, self.wx, self.wy
                    ),
                );
            }
        }
        Ok(())
    }

    /// The pipes' solids within what their float32 heights hold: an overhang's or a rock's
    /// heights as the ground's (`LENGTH`), their corners and centres as positions. (A rock of
    /// radius 1e300 was accepted and wrote infinities: issue 57.)
    fn solid_limits(&self) -> Result<()> {
        let t = &self.scene.terrain;
        for (k, o) in t.overhangs.iter().enumerate() {
            for (name, v) in [("x0", o.x0), ("y0", o.y0), ("x1", o.x1), ("y1", o.y1)] {
                self.bounded(&format!("terrain.overhang[{k}].{name}"), v, POSITION, "m")?;
            }
            for (name, v) in [("bottom", o.bottom), ("top", o.top)] {
                self.bounded(&format!("terrain.overhang[{k}].{name}"), v, LENGTH, "m")?;
            }
            self.not_wholly_outside(&format!("terrain.overhang[{k}]"), [o.x0, o.x1, o.y0, o.y1])?;
        }
        for (k, r) in t.rocks.iter().enumerate() {
            for (name, v) in [("x", r.x), ("y", r.y)] {
                self.bounded(&format!("terrain.rock[{k}].{name}"), v, POSITION, "m")?;
            }
            for (name, v) in [("z", r.z), ("radius", r.radius)] {
                self.bounded(&format!("terrain.rock[{k}].{name}"), v, LENGTH, "m")?;
            }
            let reach = r.radius.abs();
            self.not_wholly_outside(
                &format!("terrain.rock[{k}]"),
                [r.x - reach, r.x + reach, r.y - reach, r.y + reach],
            )?;
        }
        Ok(())
    }

    /// Refuses a thing whose footprint `[x0, x1, y0, y1]` (m) lies wholly outside the domain: it
    /// would do nothing, and a scene that names it means something else.
    fn not_wholly_outside(&self, key: &str, [x0, x1, y0, y1]: [f64; 4]) -> Result<()> {
        if x1 < 0.0 || y1 < 0.0 || x0 >= self.wx || y0 >= self.wy {
            return self.fail(
                key,
                format!(
                    "[{x0}, {x1}] × [{y0}, {y1}] lies wholly outside the domain [0, {}) × [0, {})",
                    self.wx, self.wy
                ),
            );
        }
        Ok(())
    }

    /// A pressure patch's reach about its centre (three sigmas of a gaussian, half a box), and the
    /// ground its centre covers over the run (its path's points, or the centre where it stays;
    /// one moving at a velocity may come in later and is not judged).
    fn patch_footprint(p: &crate::scene::Pressure) -> Option<[f64; 4]> {
        let reach = match (p.radius, p.size) {
            (Some(r), _) => 3.0 * r.abs(),
            (None, Some([sx, sy])) => 0.5 * sx.abs().max(sy.abs()),
            _ => 0.0,
        };
        if p.velocity.is_some() {
            return None;
        }
        let points: Vec<[f64; 2]> = match p.path.is_empty() {
            true => vec![[p.x, p.y]],
            false => p.path.iter().map(|r| [r[1], r[2]]).collect(),
        };
        let mut b = [f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY];
        for [x, y] in points {
            b = [
                b[0].min(x - reach),
                b[1].max(x + reach),
                b[2].min(y - reach),
                b[3].max(y + reach),
            ];
        }
        Some(b)
    }

    /// Sources, rain, rainfall, pressure patches and bodies within what float32 holds.
    fn forcing_limits(&self) -> Result<()> {
        let s = self.scene;
        for (i, src) in s.sources.iter().enumerate() {
            self.bounded(&format!("source[{i}].rate"), src.rate, RATE, "m³/s")?;
            self.bounded(&format!("source[{i}].radius"), src.radius, POSITION, "m")?;
        }
        if let Some(r) = &s.rain {
            let per_step = r.rate * s.time.dt;
            if per_step.is_nan() || per_step > DROPS_PER_STEP {
                return self.fail(
                    "rain.rate",
                    format!(
                        "{} drops a step ({} /s × dt): at most {DROPS_PER_STEP:e}; for a steady downpour use [rainfall] intensity",
                        per_step, r.rate
                    ),
                );
            }
            self.bounded("rain.height", r.height, LENGTH, "m")?;
            self.bounded("rain.radius", r.radius, POSITION, "m")?;
        }
        if let Some(i) = s.rainfall.as_ref().and_then(|r| r.intensity) {
            self.bounded("rainfall.intensity", i, 1e6, "mm/h")?;
        }
        for (k, pr) in s.pressure.iter().enumerate() {
            self.bounded(&format!("pressure[{k}].strength"), pr.strength, PASCALS, "Pa")?;
            for (name, v) in [("x", pr.x), ("y", pr.y), ("radius", pr.radius.unwrap_or(0.0))] {
                self.bounded(&format!("pressure[{k}].{name}"), v, POSITION, "m")?;
            }
            if let Some(footprint) = Self::patch_footprint(pr) {
                let key = if pr.path.is_empty() { "x" } else { "path" };
                self.not_wholly_outside(&format!("pressure[{k}].{key}"), footprint)?;
            }
        }
        if let Some(f) = s.navier_stokes.as_ref().and_then(|ns| ns.forcing.as_ref()) {
            // The layer's own surface pressure, bounded as [[pressure]] is.
            self.bounded("navier_stokes.forcing.pressure", f.pressure, PASCALS, "Pa")?;
            self.bounded("navier_stokes.forcing.amplitude", f.amplitude, PASCALS, "Pa")?;
        }
        for (k, b) in s.bodies.iter().enumerate() {
            let key = |name: &str| format!("body[{k}].{name}");
            for v in b.position {
                self.bounded(&key("position"), v, POSITION, "m")?;
            }
            for v in b.size {
                self.bounded(&key("size"), v, LENGTH, "m")?;
            }
            for v in b.velocity {
                self.bounded(&key("velocity"), v, LENGTH, "m/s")?;
            }
            self.bounded(&key("density"), b.density, 1e6, "kg/m³")?;
        }
        Ok(())
    }
}
