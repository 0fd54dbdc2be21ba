//! Edits of a `Simulation` on the pipes model: the edited terrain builds new columns (the solids
//! stay where the scene put them) and the state is carried onto them in whole units
//! (`models::pipes::edit`), the same on every backend.

use super::edits::EDITED;
use super::Simulation;
use crate::engine::edit::HostEdit;
use crate::error::Result;
use crate::models::pipes::columns::Columns;
use crate::models::pipes::edit;

impl Simulation {
    /// Applies `edits` to the pipes' columns, on `terrain` (absolute metres; None: the terrain
    /// the run stands on): brushes move the terrain under the solids, splashes add whole units
    /// to the columns' top cells, which join the books' target.
    pub(super) fn edit_pipes(&mut self, edits: &[HostEdit], terrain: Option<Vec<f64>>) -> Result<()> {
        let nx = self.scene.grid.nx as usize;
        let old = self.pipe_columns().clone();
        let terrain = match terrain {
            Some(t) => t,
            None => crate::scene::InitialFields::build(&self.scene)?.ground,
        };
        let mut checkpoint = self.checkpoint()?;
        let mut next = self.build_on(edit::brushed_terrain(&terrain, nx, edits))?;
        let new = next.pipe_columns().clone();
        let shift = edit::finer_by(&old, &new)?;
        let s = &mut checkpoint.state;
        let mut water = edit::carry_water(&old, &new, &s.pipe_water, shift);
        let added = edit::splash(
            &mut water,
            new.layers as usize,
            &edit::top_cells(&new),
            new.quantum,
            nx,
            edits,
        );
        s.pipe_water = water;
        if new.layers != old.layers {
            // The pipes join other cells now: the water starts their flow from rest.
            let (l, n) = (new.layers as usize, new.top_floor.len());
            s.pipe_flow = vec![0.0; 8 * l * l * n];
            s.pipe_vel = vec![0.0; 2 * l * n];
        }
        // What counts in units counts in the finer ones (exact: a power of two).
        let scale = (shift as f64).exp2();
        s.pipe_pressure.iter_mut().for_each(|p| *p <<= shift);
        s.pipe_rain_carry.iter_mut().for_each(|f| *f *= scale as f32);
        s.pipe_soil_owed.iter_mut().for_each(|f| *f *= scale as f32);
        s.particles.iter_mut().for_each(|p| p.units <<= shift);
        if let Some(pipes) = &mut checkpoint.header.pipes {
            pipes.target_units = (pipes.target_units << shift) + added;
        }
        checkpoint.ground = next.ground_rel.clone();
        checkpoint.terrain = next.scene.ground_override.clone();
        next.restore(&checkpoint, std::path::Path::new(EDITED))?;
        self.adopt(next);
        Ok(())
    }

    /// The pipes' columns as the backend runs them.
    fn pipe_columns(&mut self) -> &Columns {
        let any: &dyn std::any::Any = self.solver.as_any_mut();
        if let Some(cpu) = any.downcast_ref::<crate::models::pipes::cpu::pipe_solver::CpuPipes>() {
            return cpu.columns();
        }
        any.downcast_ref::<crate::models::pipes::gpu::pipe_solver::GpuPipes>()
            .expect("the pipes run on the CPU or the GPU")
            .columns()
    }
}
