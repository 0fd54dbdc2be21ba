//! Checks of what drives the water over time (SCENE.md's keys for issue 19): hydrographs,
//! `[rainfall]`, `[[pressure]]`, the damping map, wave makers and the flood maps (which models
//! take them: `validate_models.rs`). The files they name are read, and checked, when a simulation is built (`crate::engine::feeds`, `Simulation::new`).

use super::Check;
use crate::error::Result;
use crate::scene::{BoundaryMode, MakerKind, PressureShape};

impl Check<'_> {
    /// Hydrographs, rainfall, pressure patches and the damping map.
    pub(super) fn forcing(&self) -> Result<()> {
        let scene = self.scene;
        for (k, s) in scene.sources.iter().enumerate() {
            if s.hydrograph.is_some() && s.height.is_some() {
                return self.fail(
                    &format!("source[{k}].hydrograph"),
                    "a source holds a height or gives a rate (steady or a hydrograph), not both".into(),
                );
            }
            match s.height {
                Some(h) if !h.is_finite() => {
                    return self.fail(
                        &format!("source[{k}].height"),
                        format!("must be a finite number (got {h})"),
                    )
                }
                Some(_) if s.rate != 0.0 => {
                    return self.fail(
                        &format!("source[{k}].height"),
                        "a source holds a height or gives a rate, not both".into(),
                    )
                }
                _ => {}
            }
        }
        if let Some(r) = &scene.rainfall {
            if let Some(i) = r.intensity {
                if !(i >= 0.0 && i.is_finite()) {
                    return self.fail(
                        "rainfall.intensity",
                        format!("must be a finite number ≥ 0 mm/h (got {i})"),
                    );
                }
            }
            let png = r
                .map
                .as_ref()
                .and_then(|m| m.extension())
                .is_some_and(|e| e.eq_ignore_ascii_case("png"));
            match (r.intensity, &r.map) {
                (None, None) => {
                    return self.fail(
                        "rainfall.intensity",
                        "[rainfall] needs an intensity (mm/h over every cell) or a map".into(),
                    )
                }
                (Some(_), Some(_)) if !png => {
                    return self.fail(
                        "rainfall.intensity",
                        "give an intensity or a map of mm/h, not both (intensity scales only a PNG map's shades)"
                            .into(),
                    )
                }
                _ => {}
            }
        }
        if scene.pressure.len() > crate::scene::limits::MAX_PATCHES {
            return self.fail(
                &format!("pressure[{}].strength", crate::scene::limits::MAX_PATCHES),
                format!(
                    "at most {} pressure patches (every cell sums them all, every step)",
                    crate::scene::limits::MAX_PATCHES
                ),
            );
        }
        for (k, p) in scene.pressure.iter().enumerate() {
            self.patch(k, p)?;
        }
        let o = &scene.output;
        if let Some(t) = o.every_seconds {
            if !(t > 0.0 && t.is_finite()) {
                return self.fail(
                    "output.every_seconds",
                    format!("must be a finite number of seconds > 0 (got {t})"),
                );
            }
        }
        if o.gauges && o.probes.is_empty() {
            return self.fail(
                "output.gauges",
                "reads the [[output.probe]] gauges, and the scene has none".into(),
            );
        }
        if !(o.wet_depth >= 0.0 && o.wet_depth.is_finite()) {
            return self.fail(
                "output.wet_depth",
                format!("must be a finite number ≥ 0 m (got {})", o.wet_depth),
            );
        }
        self.maker()
    }

    /// The wave maker: a `"maker"` side and its `[boundary.maker]` come together.
    fn maker(&self) -> Result<()> {
        let scene = self.scene;
        let sides = scene.boundary.sides();
        let makes = sides.any(BoundaryMode::Maker);
        let Some(m) = &scene.boundary.maker else {
            if makes {
                return self.fail(
                    "boundary",
                    "a \"maker\" side needs a [boundary.maker] table (kind = \"sine\", \"solitary\" or \"table\")"
                        .into(),
                );
            }
            return Ok(());
        };
        if !makes {
            return self.fail(
                "boundary.maker",
                "no side is a \"maker\": give e.g. west = \"maker\"".into(),
            );
        }
        let g = &scene.grid;
        let least = 2 * crate::scene::limits::MAKER_INSET + 2;
        let along_x = sides.west == BoundaryMode::Maker || sides.east == BoundaryMode::Maker;
        let along_y = sides.south == BoundaryMode::Maker || sides.north == BoundaryMode::Maker;
        if (along_x && g.nx < least) || (along_y && g.ny < least) {
            return self.fail(
                "boundary.maker",
                format!(
                    "a wave maker needs at least {least} cells from its side to the opposite one (its line stands {} cells in)",
                    crate::scene::limits::MAKER_INSET
                ),
            );
        }
        let positive = |key: &str, v: Option<f64>, what: &str| -> Result<()> {
            match v {
                Some(v) if v > 0.0 && v.is_finite() => Ok(()),
                Some(v) => self.fail(key, format!("must be a finite number > 0 (got {v})")),
                None => self.fail("boundary.maker.kind", format!("this kind needs {what}")),
            }
        };
        self.finite("boundary.maker.phase", m.phase)?;
        match m.kind {
            MakerKind::Sine => {
                if let Some(a) = m.amplitude.filter(|a| !a.is_finite()) {
                    return self.fail("boundary.maker.amplitude", format!("must be a finite number (got {a})"));
                }
                if m.amplitude.is_none() {
                    return self.fail("boundary.maker.kind", "a sine needs an amplitude (m)".into());
                }
                positive("boundary.maker.period", m.period, "a period (s)")
            }
            MakerKind::Solitary => {
                positive("boundary.maker.height", m.height, "a height (m)")?;
                if m.depth.is_some() {
                    positive("boundary.maker.depth", m.depth, "a depth (m)")?;
                }
                Ok(())
            }
            MakerKind::Table => match m.file {
                Some(_) => Ok(()),
                None => self.fail(
                    "boundary.maker.kind",
                    "a table needs a file (a CSV of time,height)".into(),
                ),
            },
        }
    }

    /// One `[[pressure]]` patch.
    fn patch(&self, k: usize, p: &crate::scene::Pressure) -> Result<()> {
        let key = |name: &str| format!("pressure[{k}].{name}");
        for (name, v) in [("x", p.x), ("y", p.y), ("strength", p.strength)] {
            self.finite(&key(name), v)?;
        }
        match p.shape {
            PressureShape::Gaussian => match p.radius {
                Some(r) if r > 0.0 && r.is_finite() => {}
                Some(r) => return self.fail(&key("radius"), format!("must be a finite number > 0 m (got {r})")),
                None => return self.fail(&key("shape"), "a gaussian patch needs a radius (its sigma, m)".into()),
            },
            PressureShape::Box => match p.size {
                Some([sx, sy]) if sx > 0.0 && sy > 0.0 && sx.is_finite() && sy.is_finite() => {}
                Some(s) => return self.fail(&key("size"), format!("must be two finite numbers > 0 m (got {s:?})")),
                None => return self.fail(&key("shape"), "a box patch needs a size = [sx, sy] (m)".into()),
            },
        }
        if let Some(v) = p.velocity {
            if !v.iter().all(|c| c.is_finite()) {
                return self.fail(&key("velocity"), format!("must be two finite numbers (got {v:?})"));
            }
            if !p.path.is_empty() {
                return self.fail(
                    &key("path"),
                    "a patch moves at a velocity or along a path, not both".into(),
                );
            }
        }
        for (n, row) in p.path.iter().enumerate() {
            if !row.iter().all(|c| c.is_finite()) {
                return self.fail(
                    &key("path"),
                    format!("row {n} must be three finite numbers [t, x, y] (got {row:?})"),
                );
            }
            if n > 0 && row[0] <= p.path[n - 1][0] {
                return self.fail(
                    &key("path"),
                    format!("row {n}: times must increase ({} ≤ {})", row[0], p.path[n - 1][0]),
                );
            }
        }
        Ok(())
    }
}
