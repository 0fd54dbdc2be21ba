//! The river sides of the shallow-water model: what each `"discharge"` side lets in and the
//! level each `"stage"` side holds, steady or from a `time,value` table, evaluated by the host
//! once per step and handed to the passes in the step's slot (`SwSlot`).

use crate::engine::table::Table;
use crate::error::Result;
use crate::scene::{BoundaryMode, Scene};

/// One side's value over time.
#[derive(Clone, Debug, PartialEq)]
enum Series {
    Steady(f64),
    Table(Table),
}

/// The four sides' values (west, east, south, north): a discharge's q (m²/s into the domain), a
/// stage's level relative to the reference level (m), 0 for any other side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rivers {
    /// Each side's series, and whether it is a stage (a level, taken relative to `reference`).
    sides: [Option<(Series, bool)>; 4],
    reference: f64,
}

impl Rivers {
    /// The river sides of `scene` (validation has checked each has its value); their tables read,
    /// an unreadable one an error naming its key.
    pub fn new(scene: &Scene, reference: f64) -> Result<Rivers> {
        let b = &scene.boundary;
        let s = b.sides();
        let mut sides: [Option<(Series, bool)>; 4] = Default::default();
        for (k, (name, mode)) in [
            ("west", s.west),
            ("east", s.east),
            ("south", s.south),
            ("north", s.north),
        ]
        .into_iter()
        .enumerate()
        {
            let (kind, values) = match mode {
                BoundaryMode::Discharge => ("discharge", &b.discharge),
                BoundaryMode::Stage => ("stage", &b.stage),
                _ => continue,
            };
            let Some(values) = values else { continue };
            let v = values.for_side(name);
            let key = if values.has_own(name) {
                format!("boundary.{kind}.{name}.file")
            } else {
                format!("boundary.{kind}.file")
            };
            let series = match (&v.file, v.q.or(v.level)) {
                (Some(file), _) => {
                    let table = crate::engine::table::read(scene, file, &key)?;
                    if kind == "discharge" && table.min() < 0.0 {
                        let text = std::fs::read_to_string(&scene.origin).ok();
                        return Err(scene.error_at(
                            text.as_deref(),
                            &key,
                            format!(
                                "\"{}\": a discharge is what flows in (m²/s per metre of side, >= 0); the table \
                                 goes down to {}",
                                file.display(),
                                table.min()
                            ),
                        ));
                    }
                    Series::Table(table)
                }
                (None, value) => Series::Steady(value.unwrap_or(0.0)),
            };
            sides[k] = Some((series, mode == BoundaryMode::Stage));
        }
        Ok(Rivers { sides, reference })
    }

    /// Side `k`'s discharge over the first `duration` seconds, ∫q dt (m² per metre of side); 0
    /// for a side that is not a discharge.
    pub fn discharged(&self, k: usize, duration: f64) -> f64 {
        match &self.sides[k] {
            Some((Series::Steady(q), false)) => q * duration,
            Some((Series::Table(t), false)) => t.integral(duration) - t.integral(0.0),
            _ => 0.0,
        }
    }

    /// Side `k`'s highest level (m, absolute) if it is a stage.
    pub fn highest_stage(&self, k: usize) -> Option<f64> {
        match &self.sides[k] {
            Some((Series::Steady(level), true)) => Some(*level),
            Some((Series::Table(t), true)) => Some(t.max()),
            _ => None,
        }
    }

    /// The sides' values at time `t` (s), as the passes read them.
    pub fn at(&self, t: f64) -> [f32; 4] {
        std::array::from_fn(|k| match &self.sides[k] {
            None => 0.0,
            Some((series, stage)) => {
                let v = match series {
                    Series::Steady(v) => *v,
                    Series::Table(table) => table.at(t),
                };
                (if *stage { v - self.reference } else { v }) as f32
            }
        })
    }
}
