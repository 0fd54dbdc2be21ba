//! Edits of a `Simulation` between steps, on any backend: brushes and splashes (`HostEdit`, the
//! rules of `wgsl/edit.wgsl` and its twin `cpu::edit`) and a whole new ground. `Water` edits its
//! GPU buffers in place within the frame; a `Simulation` (the CPU backends, Python) rebuilds the
//! backend on the edited terrain and carries the state over, so every field derived from the
//! ground (the still water, the substeps, each solver's own tables) follows the edit.

use super::{Backend, Simulation};
use crate::engine::edit::HostEdit;
use crate::error::{Error, Result};
use crate::scene::{Scene, VolumeCorrection};

impl Simulation {
    /// Applies brushes and splashes in order (`HostEdit::at`, `EDIT_BRUSH` or `EDIT_DISTURB`): a
    /// brush moves the ground and the water on it (no water made or lost), a splash adds water
    /// at rest, which joins the volume target (and its region's, under "regions"); on the
    /// shallow-water model a trough's water leaves with its velocity
    /// (`shallow_water::state::edited_discharges`). On the pipes a brush moves the terrain under
    /// the solids and the water rides in whole units, and a splash adds whole units to each
    /// column's top cell (`models::pipes::edit`). On the Navier-Stokes layer the layer is built
    /// again from the edited surface and its depth-averaged flow (`layer_edits.rs`). Every model;
    /// the backend is rebuilt on the new ground, so batch edits into one call.
    pub fn edit(&mut self, edits: &[HostEdit]) -> Result<()> {
        self.editable("edits")?;
        if edits.is_empty() {
            return Ok(());
        }
        for e in edits {
            if ![e.x, e.y, e.radius, e.amount].iter().all(|v| v.is_finite()) || e.radius <= 0.0 {
                return Err(Error::Embed(format!(
                    "an edit at ({}, {}) cells, radius {}, height {}: need finite numbers and a positive radius",
                    e.x, e.y, e.radius, e.amount
                )));
            }
            // As the scene refuses probes and sources outside the domain: an edit there would
            // change nothing, silently.
            let g = self.scene.grid;
            if !(0.0..=g.nx as f32).contains(&e.x) || !(0.0..=g.ny as f32).contains(&e.y) {
                return Err(Error::Embed(format!(
                    "an edit at ({:.3}, {:.3}) m is outside the domain [0, {}] × [0, {}] m",
                    e.x as f64 * g.dx,
                    e.y as f64 * g.dx,
                    g.nx as f64 * g.dx,
                    g.ny as f64 * g.dx
                )));
            }
        }
        match self.scene.physics.model {
            crate::scene::WaterModel::Pipes => return self.edit_pipes(edits, None),
            crate::scene::WaterModel::NavierStokes => return self.edit_layer(edits, None),
            _ => {}
        }
        let mut checkpoint = self.checkpoint()?;
        let nx = self.scene.grid.nx as usize;
        let mut ground = checkpoint.ground.clone();
        let before = depths(&checkpoint.state.eta, &ground);
        let added = crate::engine::cpu::edit::apply_edits(nx, edits, &mut ground, &mut checkpoint.state.eta);
        if self.scene.physics.model == crate::scene::WaterModel::ShallowWater {
            // The model carries discharges: the water an edit adds or takes moves them.
            let after = depths(&checkpoint.state.eta, &ground);
            let state = &mut checkpoint.state;
            for q in [&mut state.sw_qx, &mut state.sw_qy] {
                crate::models::shallow_water::state::edited_discharges(&before, &after, q);
            }
        }
        if self.scene.physics.volume_correction == VolumeCorrection::Regions {
            // The splashes' water joins its region's target at the next correction.
            for (pending, a) in checkpoint.state.pending.iter_mut().zip(&added) {
                *pending += a;
            }
        }
        // The ground moves by what the edit moved it (in f64 about the absolute heights).
        let absolute: Vec<f64> = self
            .fields
            .ground
            .iter()
            .zip(ground.iter().zip(&checkpoint.ground))
            .map(|(&b, (&new, &old))| b + (new as f64 - old as f64))
            .collect();
        let depths = depths(&checkpoint.state.eta, &ground);
        let water: f64 = added.iter().map(|&a| a as f64).sum();
        checkpoint.ground = ground;
        self.rebuild(absolute, depths, checkpoint, water)
    }

    /// Replaces the ground with `ground` (absolute metres, row-major `[ny, nx]`). Each column keeps
    /// its depth (and, on the shallow-water model, its discharges): the water rides on the new
    /// ground, none made or lost; a dry cell stays dry. On the pipes `ground` is the terrain under
    /// their solids (the overhangs and rocks stay), and each cell's water rides in whole units;
    /// on the Navier-Stokes layer its depth-averaged flow rides too. Every model; the backend is
    /// rebuilt on the new ground.
    pub fn set_ground(&mut self, ground: &[f64]) -> Result<()> {
        self.editable("set_ground")?;
        let g = self.scene.grid;
        if ground.len() != g.cells() {
            return Err(Error::Embed(format!(
                "set_ground: {} heights for a {}×{} grid (it takes nx·ny = {}, row-major [ny, nx])",
                ground.len(),
                g.nx,
                g.ny,
                g.cells()
            )));
        }
        if let Some(c) = ground
            .iter()
            .position(|b| !b.is_finite() || b.abs() > crate::scene::validate::limits::LENGTH)
        {
            return Err(Error::Embed(format!(
                "set_ground: the height at cell {c} is {}: heights are finite and within ±{:e} m",
                ground[c],
                crate::scene::validate::limits::LENGTH
            )));
        }
        match self.scene.physics.model {
            crate::scene::WaterModel::Pipes => return self.edit_pipes(&[], Some(ground.to_vec())),
            crate::scene::WaterModel::NavierStokes => return self.edit_layer(&[], Some(ground.to_vec())),
            _ => {}
        }
        let checkpoint = self.checkpoint()?;
        let depths = depths(&checkpoint.state.eta, &checkpoint.ground);
        self.rebuild(ground.to_vec(), depths, checkpoint, 0.0)
    }

    /// Refuses an edit where it is not built, or of a state that is lost.
    fn editable(&self, what: &str) -> Result<()> {
        if let Some(step) = self.diverged_at {
            return Err(Error::Diverged { step });
        }
        crate::models::require(self.scene.physics.model, crate::models::Feature::Edits, what)
    }

    /// A `Simulation` of the same scene on `ground`, on the same backend (the same device), holding
    /// `checkpoint`'s state with each column's water `depths` deep, and the water the edit `added`
    /// (metres·cells) in its target; then `self` is that. `checkpoint.ground` is the ground its
    /// level stands on (f32, relative).
    fn rebuild(
        &mut self,
        ground: Vec<f64>,
        depths: Vec<f32>,
        mut checkpoint: crate::engine::checkpoint::Checkpoint,
        added: f64,
    ) -> Result<()> {
        let mut next = self.build_on(ground)?;
        // The water on the new ground, column by column. Where the rebuilt ground keeps the bits of
        // the ground the level stands on (every cell an edit did not move, and those it moved
        // unless the f64 round trip rounds), the level stays as it is: rebuilt as b + d, each wet
        // cell would move by up to an ulp of its ground (7.6e-6 m at 100 m), noise on every wave.
        for (((eta, &b), &d), &old) in checkpoint
            .state
            .eta
            .iter_mut()
            .zip(&next.ground_rel)
            .zip(&depths)
            .zip(&checkpoint.ground)
        {
            if b.to_bits() != old.to_bits() {
                *eta = if d > 0.0 { b + d } else { b };
            }
        }
        checkpoint.ground = next.ground_rel.clone();
        let moved = self.still + added - next.still;
        checkpoint.header.target = self.target + moved;
        let books = crate::engine::params::pair_value(self.books_target) + moved;
        checkpoint.header.books_target = Some(crate::engine::params::target_pair(books).map(f32::to_bits));
        carry_face_memory(&mut checkpoint.state, next.params.faces != 0, next.ground_rel.len());
        checkpoint.terrain = next.scene.ground_override.clone();
        next.restore(&checkpoint, std::path::Path::new(EDITED))?;
        // The deepest water now may need more substeps (the per-step change is rescaled).
        next.totals.max_depth = depths.iter().fold(0.0f32, |m, &d| m.max(d));
        next.check_stability()?;
        self.adopt(next);
        Ok(())
    }

    /// A `Simulation` of this scene on the terrain `ground` (absolute metres; on the pipes the
    /// ground under their solids), on the same backend and device, at the start: what an edit
    /// carries the state onto. The heights stay relative to the same level (a scene whose level
    /// came from its water map would otherwise take another one from the edited water).
    pub(super) fn build_on(&mut self, ground: Vec<f64>) -> Result<Simulation> {
        self.build_with(ground, |_| {})
    }

    /// `build_on`, with `change` made to the scene first (an edit's carried water).
    pub(super) fn build_with(&mut self, ground: Vec<f64>, change: impl FnOnce(&mut Scene)) -> Result<Simulation> {
        let mut scene = self.scene.clone();
        scene.ground_override = Some(std::sync::Arc::new(ground));
        scene.water.level.get_or_insert(self.fields.reference.0);
        change(&mut scene);
        let mut next = match self.solver.device_and_queue() {
            Some((device, queue)) => Simulation::from_device(&scene, &device, &queue)?,
            None => Simulation::new(&scene, self.backend)?,
        };
        next.backend = self.backend;
        Ok(next)
    }

    /// Makes `next` (from `build_on`, holding the state before the edit) this simulation. Until
    /// here `self` is whole: an edit refused on the way leaves the run as it was, its GPU context
    /// included.
    pub(super) fn adopt(&mut self, mut next: Simulation) {
        next.context = self.context.take();
        next.coupling = self.coupling;
        // The rebuild's notes are the first build's again: keep the ones the user has not taken.
        next.notes = std::mem::take(&mut self.notes);
        *self = next;
    }
}

/// What a restore's errors call the state an edit carries over.
pub(super) const EDITED: &str = "(the state before the edit)";

/// The faces' flux memory across an edit that changes whether the scene keeps it (a shoreline
/// made or removed: `prepare::can_dry`): kept where both keep it, none where the edited scene
/// keeps none, and where it starts keeping it, every face remembering nothing yet, as a scene
/// that starts with a shoreline does (issue 57: the edit was refused as "another scene's" state
/// and stepping went on without it).
fn carry_face_memory(state: &mut crate::engine::solver::SolverState, keeps: bool, cells: usize) {
    match (keeps, state.faces.is_empty()) {
        (true, true) => state.faces = vec![0.0; 2 * cells],
        (false, false) => state.faces.clear(),
        _ => {}
    }
}

/// Each column's depth (f32, as the solvers measure it).
pub(super) fn depths(eta: &[f32], ground: &[f32]) -> Vec<f32> {
    eta.iter()
        .zip(ground)
        .map(|(&e, &b)| crate::models::height_field::cpu::explicit::depth(e, b))
        .collect()
}

impl Simulation {
    /// Builds the simulation a checkpoint file holds: its scene as run (every default filled in,
    /// paths absolute), on the ground it had (an edited one included), with its state, on
    /// `backend`. What `shoal resume` does from a run folder, from the file alone.
    pub fn load(path: &std::path::Path, backend: Backend) -> Result<Simulation> {
        let checkpoint = crate::engine::checkpoint::Checkpoint::read(path)?;
        let Some(text) = &checkpoint.header.scene else {
            return Err(Error::Checkpoint {
                path: path.to_path_buf(),
                message: "it holds no scene (an earlier version wrote it): continue it with `shoal resume` from its \
                          run folder"
                    .into(),
            });
        };
        let base = path.parent().unwrap_or(std::path::Path::new("."));
        let mut scene = crate::scene::Scene::parse(text, path, base)?;
        // An edit's Navier-Stokes layer: over the span its state stands on.
        scene.layer_span = checkpoint.header.ns_span.map(|span| span.map(f32::from_bits));
        let mut sim = Simulation::new(&scene, backend)?;
        if let Some(terrain) = checkpoint.terrain.as_ref().filter(|t| t.len() == sim.ground_rel.len()) {
            // An edit gave the run this terrain: build on it exactly (the pipes' columns stand on
            // it under their solids).
            scene.ground_override = Some(terrain.clone());
            scene.water.level.get_or_insert(sim.fields.reference.0);
            sim = Simulation::new(&scene, backend)?;
        } else if checkpoint.ground != sim.ground_rel && checkpoint.ground.len() == sim.ground_rel.len() {
            // The ground was edited after the scene built it: build on the one the state stands on.
            let reference = sim.fields.reference.0;
            let ground = checkpoint.ground.iter().map(|&b| reference + b as f64).collect();
            scene.ground_override = Some(std::sync::Arc::new(ground));
            scene.water.level.get_or_insert(reference);
            sim = Simulation::new(&scene, backend)?;
        }
        sim.restore(&checkpoint, path)?;
        Ok(sim)
    }
}
