//! What the pipes and the Navier-Stokes layer report beyond the level: the pipes' exact water
//! books, the spray's counts, the layer's markers, pressure iteration and flow Courant number, and
//! the shapes their outputs are laid out in.

use crate::engine::solver::ModelReport;
use crate::engine::state_table;
use crate::models::navier_stokes::setup::NsLayer;
use crate::models::pipes::columns::Columns;
use crate::scene::Scene;

/// A run's books beyond the level, kept by `Simulation`.
#[derive(Debug, Default)]
pub(super) struct ModelBooks {
    /// The Navier-Stokes layer: the largest |u|·δt/δx of the last chunk's substeps; the
    /// shallow-water model: the largest (|u| + |v| + 2·sqrt(g·d))·dt/dx.
    pub(super) flow_courant: f32,
    /// The Navier-Stokes layer's pressure iteration over the last chunk (None: other models).
    pub(super) pressure: Option<crate::engine::bodies::SolveReport>,
    /// The pipes model counts its water exactly: (units now, units it should hold, m³ per unit).
    pub(super) units: Option<(u64, i64, f64)>,
    /// The spray now, with its made, ended and refused summed since the start (None without
    /// spray).
    pub(super) spray: Option<crate::models::pipes::spray::SprayReport>,
    /// m³ of water per unit a particle carries (the pipes' unit, or the Navier-Stokes layer's
    /// spray unit; None without spray).
    pub(super) particle_unit: Option<f64>,
    /// The spray is the Navier-Stokes layer's: its slots hold foam too.
    pub(super) layer_spray: bool,
    /// The Navier-Stokes layer's marker capacity (None: no markers).
    pub(super) marker_capacity: Option<u32>,
    /// The markers' buffer has been noted full.
    pub(super) markers_full: bool,
    /// The shallow-water flow has been noted past its Courant bound.
    pub(super) outran: bool,
    /// The Navier-Stokes layer's 3D grid from its floor to its top, m, absolute (None: other
    /// models).
    pub(super) layer_extent: Option<(f64, f64)>,
    /// The pipes model's dimensions (None: the other models).
    pub(super) pipe_shape: Option<state_table::PipeShape>,
    /// The Navier-Stokes layer's 3D grid, [nx, ny, nz] (None: the other models).
    pub(super) layer_shape: Option<[usize; 3]>,
    /// Its [floor, top] relative to the reference level (`NsLayer::span`), and its grid.
    pub(super) layer_span: Option<[f32; 2]>,
    pub(super) layer_grid: Option<crate::models::navier_stokes::state::NsParams>,
}

impl ModelBooks {
    /// The books at the start, for the pipes' `columns` or the layer (neither: the height field).
    /// `reference`: the reference level, m.
    pub(super) fn new(scene: &Scene, columns: Option<&Columns>, layer: Option<&NsLayer>, reference: f64) -> ModelBooks {
        let cell_area = scene.grid.dx * scene.grid.dx;
        let layer_spray = layer.and_then(|l| l.spray);
        let pipe_spray = columns.and_then(|c| crate::models::pipes::spray::spray_params(scene, c));
        ModelBooks {
            units: columns.map(|c| {
                let water = Columns::total(&c.water);
                (water, water as i64, c.quantum * cell_area)
            }),
            spray: pipe_spray
                .map(|_| Default::default())
                .or(layer_spray.map(|_| Default::default())),
            particle_unit: match (columns, layer_spray) {
                (Some(c), _) => pipe_spray.map(|_| c.quantum * cell_area),
                (None, Some(p)) => Some(p.unit_volume()),
                (None, None) => None,
            },
            layer_spray: layer_spray.is_some(),
            marker_capacity: layer.and_then(|l| l.markers.as_ref().map(|m| m.0.capacity)),
            layer_extent: layer.map(|l| {
                let p = &l.params;
                let floor = p.z0 as f64 + reference;
                (floor, floor + p.nz as f64 * p.dz as f64)
            }),
            pipe_shape: columns.map(|c| state_table::PipeShape::of(scene, c)),
            layer_shape: layer.map(|l| l.shape()),
            layer_span: layer.map(|l| l.span),
            layer_grid: layer.map(|l| l.params),
            ..Default::default()
        }
    }

    /// What the pipes and the Navier-Stokes layer report of a chunk (their books, the spray, the
    /// markers, the pressure iteration), with a note the first time a buffer fills or the
    /// iteration runs out of sweeps. `step`: the step the chunk ended at.
    pub(super) fn take(
        &mut self,
        report: &crate::engine::solver::ChunkReport,
        chunk: u32,
        step: u64,
        scene: &Scene,
        notes: &mut Vec<String>,
    ) -> crate::error::Result<()> {
        let (first, last) = (step - chunk as u64 + 1, step);
        match report.model {
            ModelReport::Level => {}
            ModelReport::Pipes { water_units, spray } => {
                if let Some(units) = &mut self.units {
                    units.0 = water_units.0;
                    units.1 += water_units.1;
                }
                self.take_spray(spray, (first, last), scene, notes);
                self.check_units(step)?;
            }
            ModelReport::Layer {
                pressure,
                flow_courant,
                spray,
                markers_refused,
            } => {
                self.take_markers(markers_refused, step, notes);
                self.take_spray(spray, (first, last), scene, notes);
                self.take_pressure(pressure, (first, last), scene, notes);
                self.flow_courant = flow_courant;
            }
            ModelReport::Shallow { courant } => {
                let bound = crate::models::shallow_water::setup::SW_COURANT;
                if courant > bound && !self.outran {
                    self.outran = true;
                    notes.push(format!(
                        "steps {first}–{last}: the flow reached (|u| + |v| + 2·sqrt(g·d))·dt/dx = {courant:.2}, \
                         past the {bound} under which every depth stays non-negative (the dry-cell rule caught \
                         what it could); the next steps run more substeps, and a shorter time.dt avoids it"
                    ));
                }
                self.flow_courant = courant;
            }
        }
        Ok(())
    }

    /// The pipes' water (the columns' and the spray's) must equal its target to the unit: a
    /// transfer moves whole units, so any difference is water a unit's range could not hold.
    fn check_units(&self, step: u64) -> crate::error::Result<()> {
        let Some((water, target, per_unit)) = self.units else {
            return Ok(());
        };
        let held = water as i128 + self.spray.map_or(0, |s| s.units as i128);
        if held == target as i128 {
            return Ok(());
        }
        Err(crate::error::Error::VolumeParted {
            step,
            volume: held as f64 * per_unit,
            target: target as f64 * per_unit,
            why: format!(
                "the pipes count water exactly, and {} units of {per_unit:.3e} m³ are unaccounted for: a cell's \
                 water or a feed past the 32-bit units",
                held - target as i128
            ),
        })
    }

    /// The layer's markers an inflow could not bring, noted once.
    fn take_markers(&mut self, refused: Option<u64>, step: u64, notes: &mut Vec<String>) {
        if let Some(refused) = refused.filter(|&r| r > 0 && !self.markers_full) {
            self.markers_full = true;
            let capacity = self.marker_capacity.unwrap_or(0);
            notes.push(format!(
                "by step {}: the markers' buffer (navier_stokes.markers.capacity = {capacity}) was full: {refused} \
                 markers an inflow would have brought were not (more may follow); raise it",
                step
            ));
        }
    }

    /// The spray's counts of the chunk (steps `first` to `last`), summed since the start; its
    /// refusals noted once.
    fn take_spray(
        &mut self,
        spray: Option<crate::models::pipes::spray::SprayReport>,
        (first, last): (u64, u64),
        scene: &Scene,
        notes: &mut Vec<String>,
    ) {
        if let Some(spray) = spray {
            // Noted the first time only; `spray().refused` keeps the count.
            if spray.refused > 0 && self.spray.is_none_or(|s| s.refused == 0) {
                notes.push(if self.layer_spray {
                    format!(
                        "steps {first}–{last}: {} particles not thrown where a cell's {} slots all held \
                         spray in the air, their water left in the surface",
                        spray.refused,
                        crate::models::navier_stokes::spray::SLOTS
                    )
                } else {
                    let capacity = scene.spray.unwrap_or_default().capacity;
                    format!(
                        "steps {first}–{last}: the particle buffer (spray.capacity = {capacity}) was full: {} \
                         particles not made, their water left in its columns; raise [spray] capacity",
                        spray.refused
                    )
                });
            }
            let total = self.spray.get_or_insert_with(Default::default);
            total.count = spray.count;
            total.units = spray.units;
            total.made += spray.made;
            total.ended += spray.ended;
            total.refused += spray.refused;
        }
    }

    /// The layer's pressure iteration over the chunk, noted once where it ran out of sweeps.
    fn take_pressure(
        &mut self,
        pressure: crate::engine::bodies::SolveReport,
        (first, last): (u64, u64),
        scene: &Scene,
        notes: &mut Vec<String>,
    ) {
        self.pressure = Some(pressure);
        let epsilon = scene.navier_stokes.clone().unwrap_or_default().epsilon as f32;
        // Noted the first time only.
        let max_sweeps = scene.navier_stokes.clone().unwrap_or_default().max_sweeps;
        let spent = pressure.iterations >= max_sweeps && (pressure.residual >= epsilon || pressure.residual.is_nan());
        if spent && !notes.iter().any(|n| n.contains("max_sweeps")) {
            notes.push(format!(
                "steps {first}–{last}: the pressure iteration stopped at navier_stokes.max_sweeps = {} with \
                 |D| = {:.2e}/s over navier_stokes.epsilon: raise max_sweeps",
                pressure.iterations, pressure.residual
            ));
        }
    }
}
