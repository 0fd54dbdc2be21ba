//! Checks a parsed scene against the contract; every error names its key and line. One function
//! per part of the scene.

use super::{BoundaryMode, Scene, WaterModel};
use crate::error::Result;

#[path = "validate_forcing.rs"]
mod forcing;
#[path = "validate_limits.rs"]
pub(crate) mod limits;
#[path = "validate_models.rs"]
pub(crate) mod models;

/// Checks `scene`, parsed from `text` (for the lines errors name).
pub fn validate(scene: &Scene, text: &str) -> Result<()> {
    let g = &scene.grid;
    // Rounded to nanometres so 6 × 0.1 prints as 0.6.
    let size = |n: u32| (n as f64 * g.dx * 1e9).round() / 1e9;
    let c = Check {
        scene,
        text,
        wx: size(g.nx),
        wy: size(g.ny),
    };
    c.grid_and_time()?;
    c.limits()?;
    c.physics()?;
    c.features()?;
    c.boundary()?;
    c.terrain()?;
    c.water()?;
    c.probes()?;
    c.sections()?;
    c.sources()?;
    c.rain()?;
    c.forcing()?;
    c.bodies()?;
    c.coupling()?;
    c.model()
}

/// A scene under check, and the domain's extent (metres) for the "inside" checks.
struct Check<'a> {
    scene: &'a Scene,
    text: &'a str,
    wx: f64,
    wy: f64,
}

impl Check<'_> {
    /// Fails naming `key` and its line.
    fn fail(&self, key: &str, msg: String) -> Result<()> {
        Err(self.scene.error_at(Some(self.text), key, msg))
    }

    fn finite(&self, key: &str, v: f64) -> Result<()> {
        if v.is_finite() {
            Ok(())
        } else {
            self.fail(key, format!("must be a finite number (got {v})"))
        }
    }

    /// Whether (x, y) lies in the domain [0, wx) × [0, wy).
    fn inside(&self, x: f64, y: f64) -> bool {
        x >= 0.0 && x < self.wx && y >= 0.0 && y < self.wy
    }

    /// The grid and the step.
    fn grid_and_time(&self) -> Result<()> {
        let g = &self.scene.grid;
        if g.nx < 2 {
            return self.fail("grid.nx", format!("must be at least 2 (got {})", g.nx));
        }
        if g.ny < 2 {
            return self.fail("grid.ny", format!("must be at least 2 (got {})", g.ny));
        }
        if !(g.dx > 0.0 && g.dx.is_finite()) {
            return self.fail("grid.dx", format!("must be a finite number > 0 (got {})", g.dx));
        }
        if !(self.scene.time.dt > 0.0 && self.scene.time.dt.is_finite()) {
            return self.fail(
                "time.dt",
                format!("must be a finite number > 0 (got {})", self.scene.time.dt),
            );
        }
        if self.scene.time.substeps == 0 {
            return self.fail("time.substeps", "must be at least 1".into());
        }
        Ok(())
    }

    /// The physics constants.
    fn physics(&self) -> Result<()> {
        let p = &self.scene.physics;
        if !(p.gravity > 0.0 && p.gravity.is_finite()) {
            return self.fail(
                "physics.gravity",
                format!("must be a finite number > 0 (got {})", p.gravity),
            );
        }
        if !(0.0..1.0).contains(&p.damping) {
            return self.fail("physics.damping", format!("must be in [0, 1) (got {})", p.damping));
        }
        if !(p.water_density > 0.0 && p.water_density.is_finite()) {
            return self.fail(
                "physics.water_density",
                format!("must be > 0 (got {})", p.water_density),
            );
        }
        if !(p.manning >= 0.0 && p.manning.is_finite()) {
            return self.fail(
                "physics.manning",
                format!("Manning's n must be a finite number >= 0 s/m^(1/3) (got {})", p.manning),
            );
        }
        Ok(())
    }

    /// Periodic sides come in pairs.
    fn boundary(&self) -> Result<()> {
        let s = self.scene.boundary.sides();
        let periodic = BoundaryMode::Periodic;
        if (s.west == periodic) != (s.east == periodic) {
            let key = if s.west == periodic {
                "boundary.west"
            } else {
                "boundary.east"
            };
            let key = if self.scene.boundary.west.is_some() || self.scene.boundary.east.is_some() {
                key
            } else {
                "boundary.all"
            };
            return self.fail(key, "periodic must be set on both west and east".into());
        }
        if (s.south == periodic) != (s.north == periodic) {
            let key = if s.south == periodic {
                "boundary.south"
            } else {
                "boundary.north"
            };
            return self.fail(key, "periodic must be set on both south and north".into());
        }
        self.rivers()
    }

    /// Every `"discharge"` and `"stage"` side has its value: a finite `q` ≥ 0 (m²/s into the
    /// domain) or `level`, or a `file`, in `[boundary.discharge]` / `[boundary.stage]` or the
    /// side's own table; a table has no key of the other kind.
    fn rivers(&self) -> Result<()> {
        let b = &self.scene.boundary;
        let s = b.sides();
        for (kind, mode, values, key) in [
            ("discharge", BoundaryMode::Discharge, &b.discharge, "q"),
            ("stage", BoundaryMode::Stage, &b.stage, "level"),
        ] {
            let other = if key == "q" { "level" } else { "q" };
            if let Some(v) = values {
                let wrong = if key == "q" { v.level.is_some() } else { v.q.is_some() };
                if wrong {
                    return self.fail(
                        &format!("boundary.{kind}.{other}"),
                        format!("[boundary.{kind}] takes `{key}` or `file`, not `{other}`"),
                    );
                }
            }
            for (side, m) in [
                ("west", s.west),
                ("east", s.east),
                ("south", s.south),
                ("north", s.north),
            ] {
                if m != mode {
                    continue;
                }
                let Some(values) = values else {
                    return self.fail(
                        &format!("boundary.{side}"),
                        format!("a \"{kind}\" side needs a [boundary.{kind}] table with `{key}` or `file`"),
                    );
                };
                let v = values.for_side(side);
                let at = if values.has_own(side) {
                    format!("boundary.{kind}.{side}")
                } else {
                    format!("boundary.{kind}")
                };
                let (value, wrong) = if key == "q" { (v.q, v.level) } else { (v.level, v.q) };
                if wrong.is_some() {
                    return self.fail(
                        &format!("{at}.{other}"),
                        format!("a {kind} takes `{key}` or `file`, not `{other}`"),
                    );
                }
                match (value, &v.file) {
                    (Some(_), Some(_)) => {
                        return self.fail(&format!("{at}.file"), format!("give `{key}` or `file`, not both"))
                    }
                    (None, None) => {
                        return self.fail(&at, format!("the {side} side is a {kind}: give `{key}` (or `file`)"))
                    }
                    (Some(x), None) if !x.is_finite() || (key == "q" && x < 0.0) => {
                        let want = if key == "q" {
                            "a finite number >= 0 (m²/s into the domain)"
                        } else {
                            "a finite level (m)"
                        };
                        return self.fail(&format!("{at}.{key}"), format!("must be {want} (got {x})"));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// At most one ground source, finite numbers, boxes the right way round.
    fn terrain(&self) -> Result<()> {
        let t = &self.scene.terrain;
        let kinds: Vec<&str> = [
            t.flat.map(|_| "flat"),
            t.slope.map(|_| "slope"),
            t.npy.as_ref().map(|_| "npy"),
            t.png.as_ref().map(|_| "png"),
            t.geotiff.as_ref().map(|_| "geotiff"),
            t.exr.as_ref().map(|_| "exr"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if kinds.len() > 1 {
            return self.fail(
                &format!("terrain.{}", kinds[1]),
                format!(
                    "at most one of flat / slope / npy / png / geotiff / exr may be given (got {})",
                    kinds.join(" and ")
                ),
            );
        }
        if let Some(v) = t.flat {
            self.finite("terrain.flat", v)?;
        }
        if let Some(v) = t.nodata {
            self.finite("terrain.nodata", v)?;
            if t.geotiff.is_none() {
                return self.fail(
                    "terrain.nodata",
                    "is the height of a GeoTIFF DEM's nodata pixels: give terrain.geotiff".into(),
                );
            }
        }
        if let Some(sl) = t.slope {
            self.finite("terrain.slope", sl.base)?;
            self.finite("terrain.slope", sl.grad[0])?;
            self.finite("terrain.slope", sl.grad[1])?;
        }
        if let Some(png) = &t.png {
            self.finite("terrain.png", png.min)?;
            self.finite("terrain.png", png.max)?;
            if png.max < png.min {
                return self.fail("terrain.png", format!("max ({}) is below min ({})", png.max, png.min));
            }
        }
        for (i, b) in t.boxes.iter().enumerate() {
            let key = format!("terrain.box[{i}]");
            for v in [b.x0, b.y0, b.x1, b.y1, b.top] {
                self.finite(&key, v)?;
            }
            if b.x1 < b.x0 {
                return self.fail(
                    &format!("{key}.x1"),
                    format!("x1 ({}) is less than x0 ({})", b.x1, b.x0),
                );
            }
            if b.y1 < b.y0 {
                return self.fail(
                    &format!("{key}.y1"),
                    format!("y1 ({}) is less than y0 ({})", b.y1, b.y0),
                );
            }
        }
        Ok(())
    }

    /// The initial surface.
    fn water(&self) -> Result<()> {
        if let Some(l) = self.scene.water.level {
            self.finite("water.level", l)?;
        }
        for (i, b) in self.scene.water.bumps.iter().enumerate() {
            let key = format!("water.bump[{i}]");
            for v in [b.x, b.y, b.height] {
                self.finite(&key, v)?;
            }
            if !(b.radius > 0.0 && b.radius.is_finite()) {
                return self.fail(&format!("{key}.radius"), format!("must be > 0 (got {})", b.radius));
            }
        }
        Ok(())
    }

    /// A table's column names (`table[i].name`): each non-empty and CSV-safe, none used twice
    /// (`what`: how the error names another of them).
    fn column_names<'n>(&self, table: &str, what: &str, names: impl Iterator<Item = &'n str>) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for (i, name) in names.enumerate() {
            let key = format!("{table}[{i}].name");
            if name.is_empty() || name.contains([',', '\n', '"']) {
                return self.fail(&key, "must be non-empty, without commas, quotes or newlines".into());
            }
            if !seen.insert(name) {
                return self.fail(&key, format!("\"{name}\" is used by another {what}"));
            }
        }
        Ok(())
    }

    /// Probes: unique CSV-safe names, inside the domain.
    fn probes(&self) -> Result<()> {
        let names = self.scene.output.probes.iter().map(|p| p.name.as_str());
        self.column_names("output.probe", "probe", names)?;
        for (i, pr) in self.scene.output.probes.iter().enumerate() {
            let key = format!("output.probe[{i}]");
            if !(self.inside(pr.x, pr.y)) {
                return self.fail(
                    &key,
                    format!(
                        "({}, {}) is outside the domain [0, {}) × [0, {})",
                        pr.x, pr.y, self.wx, self.wy
                    ),
                );
            }
        }
        Ok(())
    }

    /// Discharge lines: unique CSV-safe names, both ends inside the domain (its edges
    /// included), of some length.
    fn sections(&self) -> Result<()> {
        let names = self.scene.output.sections.iter().map(|s| s.name.as_str());
        self.column_names("output.section", "section", names)?;
        for (i, s) in self.scene.output.sections.iter().enumerate() {
            let key = format!("output.section[{i}]");
            for (end, x, y) in [("0", s.x0, s.y0), ("1", s.x1, s.y1)] {
                let inside = |v: f64, w: f64| v.is_finite() && (0.0..=w).contains(&v);
                if !(inside(x, self.wx) && inside(y, self.wy)) {
                    return self.fail(
                        &format!("{key}.x{end}"),
                        format!("({x}, {y}) is outside the domain [0, {}] × [0, {}]", self.wx, self.wy),
                    );
                }
            }
            if s.x0 == s.x1 && s.y0 == s.y1 {
                return self.fail(
                    &format!("{key}.x1"),
                    "the line has no length: its ends are the same point".into(),
                );
            }
        }
        Ok(())
    }

    /// Sources and drains inside the domain, with finite rates.
    fn sources(&self) -> Result<()> {
        for (k, s) in self.scene.sources.iter().enumerate() {
            let key = format!("source[{k}]");
            if !(self.inside(s.x, s.y)) {
                return self.fail(
                    &format!("{key}.x"),
                    format!(
                        "({}, {}) is outside the domain [0, {}) × [0, {})",
                        s.x, s.y, self.wx, self.wy
                    ),
                );
            }
            if !(s.radius >= 0.0 && s.radius.is_finite()) {
                return self.fail(&format!("{key}.radius"), format!("must be ≥ 0 (got {})", s.radius));
            }
            if !s.rate.is_finite() {
                return self.fail(
                    &format!("{key}.rate"),
                    format!("must be a finite number (got {})", s.rate),
                );
            }
        }
        Ok(())
    }

    /// Random drops.
    fn rain(&self) -> Result<()> {
        if let Some(r) = &self.scene.rain {
            if !(r.rate >= 0.0 && r.rate.is_finite()) {
                return self.fail(
                    "rain.rate",
                    format!("must be a finite number ≥ 0 drops/s (got {})", r.rate),
                );
            }
            if !(r.radius > 0.0 && r.radius.is_finite()) {
                return self.fail("rain.radius", format!("must be > 0 (got {})", r.radius));
            }
            if !(r.height >= 0.0 && r.height.is_finite()) {
                return self.fail("rain.height", format!("must be a finite number ≥ 0 (got {})", r.height));
            }
        }
        Ok(())
    }

    /// `navier_stokes.surface = "markers"` and `[navier_stokes.markers]`: 2D runs only, a square
    /// density, room for the start; an inflow's window.
    fn ns_markers(&self, ns: &crate::scene::NavierStokes) -> Result<()> {
        use crate::scene::{NsSurfaceMode, Side};
        if let Some([lo, hi]) = ns.inflow.as_ref().and_then(|f| f.window) {
            if !(lo.is_finite() && hi.is_finite() && lo < hi) {
                return self.fail(
                    "navier_stokes.inflow.window",
                    format!("must be two finite heights, low then high, m (got [{lo}, {hi}])"),
                );
            }
        }
        let markers = ns.surface == NsSurfaceMode::Markers;
        if !markers {
            if ns.markers.is_some() {
                return self.fail(
                    "navier_stokes.markers.per_cell",
                    "[navier_stokes.markers] needs navier_stokes.surface = \"markers\"".into(),
                );
            }
            return Ok(());
        }
        let g = &self.scene.grid;
        if g.ny != ns.coarsen {
            return self.fail(
                "navier_stokes.surface",
                format!(
                    "\"markers\" tracks 2D runs: the 3D grid must be one cell across (grid.ny = coarsen; got                      grid.ny = {}, coarsen = {})",
                    g.ny, ns.coarsen
                ),
            );
        }
        if let Some(side) = ns.inflow.as_ref().map(|f| f.side) {
            if matches!(side, Side::South | Side::North) {
                return self.fail(
                    "navier_stokes.inflow.side",
                    "with markers the inflow comes through the west or east side (the run is 2D in x and z)".into(),
                );
            }
        }
        if self.scene.spray.is_some() {
            return self.fail(
                "spray.enabled",
                "[spray] takes water from a height field; with markers the surface is drawn from them".into(),
            );
        }
        if self.scene.feeds_water() || self.scene.infiltration.is_some() {
            return self.fail(
                "navier_stokes.surface",
                "sources, rain and rainfall fall on the layer's height field, and [infiltration] soaks it; with \
                 markers the surface is drawn from them"
                    .into(),
            );
        }
        if !self.scene.pressure.is_empty() {
            return self.fail(
                "navier_stokes.surface",
                "[[pressure]] presses the layer's height field's columns; with markers the surface is drawn from \
                 them"
                    .into(),
            );
        }
        if self.scene.physics.manning > 0.0 || self.scene.friction.is_some() {
            let key = if self.scene.friction.is_some() {
                "friction.map"
            } else {
                "physics.manning"
            };
            return self.fail(
                key,
                "Manning's friction slows each column of the layer's height field by its depth; with markers \
                 the water need not stand in columns (a jet, a breaking wave), so it has no depth to take"
                    .into(),
            );
        }
        let m = ns.markers.unwrap_or_default();
        let rows = (m.per_cell as f64).sqrt().round() as u32;
        if !(1..=64).contains(&m.per_cell) || rows * rows != m.per_cell {
            return self.fail(
                "navier_stokes.markers.per_cell",
                format!("must be a square number, 1 to 64 (got {})", m.per_cell),
            );
        }
        let most = crate::scene::limits::MOST_MARKERS;
        if let Some(c) = m.capacity.filter(|&c| c == 0 || c > most) {
            return self.fail(
                "navier_stokes.markers.capacity",
                format!("must be 1 to {most} markers (got {c})"),
            );
        }
        let cells = (g.nx / ns.coarsen.max(1)) as u64 * ns.layers as u64;
        if m.capacity.is_none() && 2 * m.per_cell as u64 * cells > most as u64 {
            return self.fail(
                "navier_stokes.markers.capacity",
                format!("the default (2 × per_cell × the grid's {cells} cells) passes {most}: set it"),
            );
        }
        Ok(())
    }

    /// `[navier_stokes]`'s inflow, outflow and forcing.
    fn ns_forcing(&self, ns: &crate::scene::NavierStokes) -> Result<()> {
        use crate::scene::{NsSeries, Side};
        let g = &self.scene.grid;
        let across = |side: Side| match side {
            Side::West | Side::East => g.nx,
            Side::South | Side::North => g.ny,
        } / ns.coarsen.max(1);
        let finite = |v: f64| v.is_finite();
        let positive = |v: Option<f64>| v.is_none_or(|v| v > 0.0 && v.is_finite());
        for (n, &side) in ns.outflow.iter().enumerate() {
            if across(side) < 2 {
                return self.fail(
                    "navier_stokes.outflow",
                    format!("{side:?} needs at least 2 cells of the 3D grid across it"),
                );
            }
            if ns.outflow[..n].contains(&side) || ns.inflow.as_ref().is_some_and(|i| i.side == side) {
                return self.fail("navier_stokes.outflow", format!("{side:?} is named twice"));
            }
        }
        if let Some(i) = &ns.inflow {
            let key = |k: &str| format!("navier_stokes.inflow.{k}");
            if across(i.side) < 2 {
                return self.fail(
                    &key("side"),
                    format!("{:?} needs at least 2 cells of the 3D grid across it", i.side),
                );
            }
            if !(finite(i.velocity) && finite(i.amplitude)) {
                return self.fail(&key("velocity"), "must be a finite speed, m/s".into());
            }
            if !positive(i.period) || (i.kind == NsSeries::Sine && i.period.is_none()) {
                return self.fail(&key("period"), "a sine needs a period > 0 s".into());
            }
            if i.kind == NsSeries::Table && i.file.is_none() {
                return self.fail(&key("file"), "a table needs a CSV file of time,velocity rows".into());
            }
            if i.kind == NsSeries::Wave {
                return self.fail(&key("kind"), "must be constant, sine or table".into());
            }
            if i.until.is_some_and(|t| !(t >= 0.0 && t.is_finite())) {
                return self.fail(&key("until"), "must be a time ≥ 0 s".into());
            }
        }
        if let Some(f) = &ns.forcing {
            let key = |k: &str| format!("navier_stokes.forcing.{k}");
            if !(finite(f.pressure) && finite(f.amplitude)) {
                return self.fail(&key("pressure"), "must be a finite pressure, Pa".into());
            }
            if !positive(f.period) || (f.kind == NsSeries::Sine && f.period.is_none()) {
                return self.fail(&key("period"), "a sine needs a period > 0 s".into());
            }
            if f.kind == NsSeries::Table && f.file.is_none() {
                return self.fail(&key("file"), "a table needs a CSV file of time,pressure rows".into());
            }
            if f.kind == NsSeries::Wave {
                if f.wavelength.is_none() || !positive(f.wavelength) {
                    return self.fail(&key("wavelength"), "the wave needs a wavelength > 0 m".into());
                }
                if !f.height.is_some_and(|h| h >= 0.0 && h.is_finite()) {
                    return self.fail(&key("height"), "the wave needs a height ≥ 0 m".into());
                }
                if !positive(f.ramp) || !positive(f.depth) || !finite(f.direction) {
                    return self.fail(&key("ramp"), "ramp and depth must be > 0, direction finite".into());
                }
            }
        }
        Ok(())
    }

    /// The Navier-Stokes layer's keys, and what it does not take yet.
    fn navier_stokes(&self) -> Result<()> {
        let scene = self.scene;
        let ns = scene.navier_stokes.clone().unwrap_or_default();
        if !(2..=256).contains(&ns.layers) {
            return self.fail("navier_stokes.layers", format!("must be 2 to 256 (got {})", ns.layers));
        }
        let g = &scene.grid;
        if ns.coarsen == 0 || !g.nx.is_multiple_of(ns.coarsen) || !g.ny.is_multiple_of(ns.coarsen) {
            return self.fail(
                "navier_stokes.coarsen",
                format!(
                    "must be ≥ 1 and divide grid.nx and grid.ny ({} × {}; got {})",
                    g.nx, g.ny, ns.coarsen
                ),
            );
        }
        if !(ns.viscosity >= 0.0 && ns.viscosity.is_finite()) {
            return self.fail(
                "navier_stokes.viscosity",
                format!("must be a finite number ≥ 0 m²/s (got {})", ns.viscosity),
            );
        }
        if !(1.0..2.0).contains(&ns.beta0) {
            return self.fail("navier_stokes.beta0", format!("must be in [1, 2) (got {})", ns.beta0));
        }
        if !(ns.epsilon > 0.0 && ns.epsilon.is_finite()) {
            return self.fail(
                "navier_stokes.epsilon",
                format!("must be a finite number > 0 per second (got {})", ns.epsilon),
            );
        }
        if ns.max_sweeps == 0 {
            return self.fail("navier_stokes.max_sweeps", "must be at least 1".into());
        }
        self.ns_forcing(&ns)?;
        self.ns_markers(&ns)?;
        if !(0.0..=1.0).contains(&ns.upwind) {
            return self.fail("navier_stokes.upwind", format!("must be in [0, 1] (got {})", ns.upwind));
        }
        if let Some(h) = ns.headroom.filter(|h| !(*h > 0.0 && h.is_finite())) {
            return self.fail(
                "navier_stokes.headroom",
                format!("must be a finite number > 0 m (got {h})"),
            );
        }
        if !scene.bodies.is_empty() && ns.surface == crate::scene::NsSurfaceMode::Markers {
            return self.fail(
                "body[0].shape",
                "a rigid body floats on the layer's height field: navier_stokes.surface = \"markers\" takes none"
                    .into(),
            );
        }
        Ok(())
    }

    /// Bodies: positive sizes and density, inside the domain, not both fixed and kinematic.
    fn bodies(&self) -> Result<()> {
        for (k, b) in self.scene.bodies.iter().enumerate() {
            let key = |name: &str| format!("body[{k}].{name}");
            if !b.size.iter().all(|&s| s > 0.0 && s.is_finite()) {
                return self.fail(&key("size"), format!("every extent must be > 0 (got {:?})", b.size));
            }
            let [x, y, z] = b.position;
            if !(self.inside(x, y) && z.is_finite()) {
                return self.fail(
                    &key("position"),
                    format!("({x}, {y}) is outside the domain [0, {}) × [0, {})", self.wx, self.wy),
                );
            }
            let all_finite = |v: &[f64; 3]| v.iter().all(|c| c.is_finite());
            for (name, v) in [
                ("rotation", &b.rotation),
                ("velocity", &b.velocity),
                ("angular_velocity", &b.angular_velocity),
            ] {
                if !all_finite(v) {
                    return self.fail(&key(name), format!("must be finite numbers (got {v:?})"));
                }
            }
            if !(b.density > 0.0 && b.density.is_finite()) {
                return self.fail(&key("density"), format!("must be > 0 kg/m³ (got {})", b.density));
            }
            if b.fixed && b.kinematic {
                return self.fail(&key("kinematic"), "a body cannot be both fixed and kinematic".into());
            }
            let model = self.scene.physics.model;
            if model.presses_bodies() && (b.fixed || b.kinematic) {
                let which = if b.fixed { "fixed" } else { "kinematic" };
                return self.fail(
                    &key(which),
                    format!(
                        "the {} floats free bodies only: a body it does not move would press on the water \
                         with its draft, which the water around it feeds back on (raise the terrain for an \
                         obstacle)",
                        if model == crate::scene::WaterModel::Pipes {
                            "pipes model"
                        } else {
                            "shallow-water model"
                        }
                    ),
                );
            }
            let cells = b.size[0].min(b.size[1]) / self.scene.grid.dx;
            if cells > (self.scene.grid.nx.max(self.scene.grid.ny)) as f64 {
                return self.fail(&key("size"), "the body is larger than the domain".into());
            }
        }
        Ok(())
    }

    /// The coupling solve and the bodies' drag.
    fn coupling(&self) -> Result<()> {
        let p = &self.scene.physics;
        if !(p.coupling_relaxation > 0.0 && p.coupling_relaxation <= 1.0) {
            return self.fail(
                "physics.coupling_relaxation",
                format!("must be in (0, 1] (got {})", p.coupling_relaxation),
            );
        }
        if p.coupling_iterations == Some(0) || p.coupling_iterations.is_some_and(|n| n > 10_000) {
            return self.fail("physics.coupling_iterations", "must be in 1..=10000".into());
        }
        if !(p.coupling_tolerance > 0.0 && p.coupling_tolerance < 1.0) {
            return self.fail(
                "physics.coupling_tolerance",
                format!("must be in (0, 1) (got {})", p.coupling_tolerance),
            );
        }
        for (name, v) in [("body_drag", p.body_drag), ("body_angular_drag", p.body_angular_drag)] {
            if !(v >= 0.0 && v.is_finite()) {
                return self.fail(
                    &format!("physics.{name}"),
                    format!("must be a finite number ≥ 0 (got {v})"),
                );
            }
        }
        Ok(())
    }

    /// `[spray]`: every number in its range.
    fn spray(&self) -> Result<()> {
        let s = self.scene.spray.unwrap_or_default();
        let positive = |v: f64| v > 0.0 && v.is_finite();
        if !positive(s.breaking) {
            return self.fail(
                "spray.breaking",
                format!("must be a finite number > 0 (got {})", s.breaking),
            );
        }
        let volume = s.volume(self.scene.grid.dx);
        if !positive(volume) {
            return self.fail(
                "spray.particle_volume",
                format!("must be a finite number > 0 m³ (got {volume})"),
            );
        }
        let least = s.least(self.scene.grid.dx);
        if !(least >= 0.0 && least.is_finite()) {
            return self.fail(
                "spray.least_height",
                format!("must be a finite number ≥ 0 m (got {least})"),
            );
        }
        if s.capacity == 0 || s.capacity > crate::scene::limits::MOST_PARTICLES {
            return self.fail(
                "spray.capacity",
                format!(
                    "must be 1 to {} particles (got {})",
                    crate::scene::limits::MOST_PARTICLES,
                    s.capacity
                ),
            );
        }
        if !positive(s.lifetime) {
            return self.fail(
                "spray.lifetime",
                format!("must be a finite number > 0 s (got {})", s.lifetime),
            );
        }
        if !(s.drag >= 0.0 && s.drag.is_finite()) {
            return self.fail(
                "spray.drag",
                format!("must be a finite number ≥ 0 per second (got {})", s.drag),
            );
        }
        if !(0.0..=1.0).contains(&s.restitution) {
            return self.fail(
                "spray.restitution",
                format!("must be in [0, 1] (got {})", s.restitution),
            );
        }
        if !(s.impact >= 0.0 && s.impact.is_finite()) {
            return self.fail(
                "spray.impact",
                format!("must be a finite number ≥ 0 kg/s (got {})", s.impact),
            );
        }
        let layer_keys = [
            ("spray.rise", s.rise.is_some()),
            ("spray.share", s.share.is_some()),
            ("spray.split", s.split.is_some()),
            ("spray.foam", s.foam.is_some()),
            ("spray.wind", s.wind.is_some()),
        ];
        if self.scene.physics.model != WaterModel::NavierStokes {
            if let Some((key, _)) = layer_keys.iter().find(|(_, set)| *set) {
                return self.fail(
                    key,
                    "belongs to the Navier-Stokes layer's spray (physics.model = \"navier-stokes\")".into(),
                );
            }
            return Ok(());
        }
        self.layer_spray(&s)
    }

    /// The Navier-Stokes layer's own spray keys: its rise, share, split, foam and wind, and the
    /// height-field cells its slots can count.
    fn layer_spray(&self, s: &crate::scene::Spray) -> Result<()> {
        if !(s.rise() >= 0.0 && s.rise().is_finite()) {
            return self.fail(
                "spray.rise",
                format!("must be a finite number ≥ 0 m/s (got {})", s.rise()),
            );
        }
        if !(0.0..=1.0).contains(&s.share()) {
            return self.fail("spray.share", format!("must be in [0, 1] (got {})", s.share()));
        }
        if !(s.split() >= 0.0 && s.split().is_finite()) {
            return self.fail(
                "spray.split",
                format!("must be a finite number ≥ 0 per second (got {})", s.split()),
            );
        }
        if !(s.foam() >= 0.0 && s.foam().is_finite()) {
            return self.fail(
                "spray.foam",
                format!("must be a finite number ≥ 0 s (got {})", s.foam()),
            );
        }
        if !s.wind().iter().all(|w| w.is_finite()) {
            return self.fail("spray.wind", format!("must be finite m/s (got {:?})", s.wind()));
        }
        let cells = self.scene.grid.cells() as u64;
        if cells * crate::scene::limits::SLOTS as u64 * crate::scene::limits::FULL_UNITS as u64 > u32::MAX as u64 {
            return self.fail(
                "spray.enabled",
                format!(
                    "the layer's spray holds at most {} height-field cells",
                    crate::scene::limits::MOST_CELLS
                ),
            );
        }
        Ok(())
    }

    /// The water model, and what each model reads: overhangs, rocks, held sources and `[pipes]`
    /// belong to the pipes.
    fn model(&self) -> Result<()> {
        let scene = self.scene;
        let pipes = scene.physics.model == WaterModel::Pipes;
        let navier_stokes = scene.physics.model == WaterModel::NavierStokes;
        if !navier_stokes && scene.navier_stokes.is_some() {
            return self.fail(
                "navier_stokes.layers",
                "[navier_stokes] needs physics.model = \"navier-stokes\"".into(),
            );
        }
        if !pipes {
            if scene.pipes.is_some() {
                return self.fail(
                    "pipes.dt",
                    "[pipes] needs physics.model = \"pipes\" (a height field holds one surface per column)".into(),
                );
            }
            if navier_stokes {
                self.navier_stokes()?;
                return self.spray();
            }
            return Ok(());
        }
        let p = scene.pipes.unwrap_or_default();
        if !(p.dt > 0.0 && p.dt.is_finite()) {
            return self.fail("pipes.dt", format!("must be a finite number > 0 s (got {})", p.dt));
        }
        if !(p.friction > 0.0 && p.friction <= 1.0) {
            return self.fail("pipes.friction", format!("must be in (0, 1] (got {})", p.friction));
        }
        self.spray()?;
        for (k, o) in scene.terrain.overhangs.iter().enumerate() {
            let key = |name: &str| format!("terrain.overhang[{k}].{name}");
            for (name, v) in [
                ("x0", o.x0),
                ("y0", o.y0),
                ("x1", o.x1),
                ("y1", o.y1),
                ("bottom", o.bottom),
                ("top", o.top),
            ] {
                self.finite(&key(name), v)?;
            }
            if !(o.x0 < o.x1 && o.y0 < o.y1) {
                return self.fail(&key("x1"), "the slab needs x0 < x1 and y0 < y1".into());
            }
            if o.bottom >= o.top {
                return self.fail(&key("top"), format!("must be above bottom ({} ≤ {})", o.top, o.bottom));
            }
        }
        for (k, r) in scene.terrain.rocks.iter().enumerate() {
            let key = |name: &str| format!("terrain.rock[{k}].{name}");
            for (name, v) in [("x", r.x), ("y", r.y), ("z", r.z)] {
                self.finite(&key(name), v)?;
            }
            if !(r.radius > 0.0 && r.radius.is_finite()) {
                return self.fail(&key("radius"), format!("must be > 0 (got {})", r.radius));
            }
        }
        Ok(())
    }
}
