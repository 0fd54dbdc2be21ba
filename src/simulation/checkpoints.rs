//! The whole state at a step, and a run continued from it (`shoal resume`).

use super::*;

impl Simulation {
    /// The whole state at this step, for `shoal resume` (a readback on the GPU).
    pub fn checkpoint(&mut self) -> Result<crate::engine::checkpoint::Checkpoint> {
        let state = self.solver.save()?;
        let spray = self.books.spray.unwrap_or_default();
        Ok(crate::engine::checkpoint::Checkpoint {
            header: crate::engine::checkpoint::Header {
                nx: self.scene.grid.nx,
                ny: self.scene.grid.ny,
                step: self.step,
                substeps: self.substeps,
                target: self.target,
                books_target: Some(self.books_target.map(f32::to_bits)),
                counted_shortfall: 0.0,
                region_count: state.region_count,
                ns_budget: (state.ns_budget != 0).then_some(state.ns_budget),
                ns_span: self.books.layer_span.map(|span| span.map(f32::to_bits)),
                ns_target: state.ns_target.map(|t| t.map(f32::to_bits)),
                pipes: self
                    .books
                    .units
                    .map(|(_, target, _)| crate::engine::checkpoint::PipeHeader {
                        target_units: target,
                        made: spray.made,
                        ended: spray.ended,
                        refused: spray.refused,
                    }),
                scene: Some(self.resolved_scene_toml()),
                coupling: (!self.bodies_now.is_empty())
                    .then_some([self.coupling.iterations, self.coupling.residual.to_bits()]),
            },
            ground: self.ground_rel.clone(),
            state,
            terrain: self.scene.ground_override.clone(),
        })
    }

    /// Continues from `checkpoint`, which must come from this scene (`path` names it in errors):
    /// the same grid, and state for the same sources, corrections and regions.
    pub fn restore(
        &mut self,
        checkpoint: &crate::engine::checkpoint::Checkpoint,
        path: &std::path::Path,
    ) -> Result<()> {
        let (h, s) = (&checkpoint.header, &checkpoint.state);
        let bad = |message: String| {
            Err(Error::Checkpoint {
                path: path.to_path_buf(),
                message,
            })
        };
        let grid = &self.scene.grid;
        if (h.nx, h.ny) != (grid.nx, grid.ny) {
            return bad(format!(
                "it holds a {}×{} grid, the scene {}×{}: it comes from another scene",
                h.nx, h.ny, grid.nx, grid.ny
            ));
        }
        if h.pipes.is_some() != self.books.units.is_some() {
            return bad("it comes from the other water model (physics.model)".into());
        }
        if let Some(message) = self.misfit(s) {
            return bad(message);
        }
        let span = h.ns_span.map(|span| span.map(f32::from_bits));
        // A checkpoint's layer stands on the span it holds (before spans were kept: the scene's).
        if span.is_some() && span != self.books.layer_span || span.is_none() && self.scene.layer_span.is_some() {
            return bad(
                "an edit moved its Navier-Stokes layer's span: continue it with `Simulation::load`, which \
                 builds the layer over the span it holds"
                    .into(),
            );
        }
        if checkpoint.ground != self.ground_rel && checkpoint.terrain.is_some() && self.scene.ground_override.is_none()
        {
            return bad(
                "an edit gave it its terrain: continue it with `Simulation::load`, which builds on the terrain it holds"
                    .into(),
            );
        }
        if checkpoint.ground != self.ground_rel {
            return bad("its terrain is not what the scene builds now (did a terrain file change?)".into());
        }
        if h.substeps == 0 || h.step == 0 && h.substeps != self.substeps {
            return bad(format!("its substep count {} is not this scene's", h.substeps));
        }
        if h.substeps != self.substeps {
            self.set_substeps(h.substeps)?;
        }
        self.solver.load(s)?;
        self.step = h.step;
        self.target = h.target;
        self.books_target = match h.books_target {
            Some(bits) => bits.map(f32::from_bits),
            None => crate::engine::params::target_pair(h.target - h.counted_shortfall as f64),
        };
        if let Some([iterations, residual]) = h.coupling {
            self.coupling = crate::engine::bodies::SolveReport {
                iterations,
                residual: f32::from_bits(residual),
            };
        }
        let reference = self.fields.reference.0;
        self.bodies_now = s
            .bodies
            .iter()
            .map(|b| crate::engine::bodies::BodySample::of(b, reference))
            .collect();
        if self.regions.is_some() {
            self.regions = Some(h.region_count);
        }
        self.restore_books(h, s);
        Ok(())
    }
    /// Why the checkpoint's state `s` does not fit this scene's state table, if it does not.
    fn misfit(&self, s: &crate::engine::solver::SolverState) -> Option<String> {
        let cells = self.ground_rel.len();
        let shape = state_table::Shape {
            params: &self.params,
            method: self.scene.physics.solver,
            pipes: self.books.pipe_shape,
            navier_stokes: self.books.layer_shape,
            ns_spray: self.books.layer_spray,
            ns_markers: self.books.marker_capacity,
            shallow_water: self.scene.physics.model == crate::scene::WaterModel::ShallowWater,
            ns_fed: crate::models::navier_stokes::fed(&self.scene),
        };
        for spec in state_table::FIELDS
            .iter()
            .filter(|f| f.kept == state_table::Kept::State)
        {
            let (got, want) = (s.len(spec.field), spec.len(&shape, cells, self.bodies_now.len()));
            // The particles in flight, the markers made: any number up to the capacity.
            let fits = match spec.per {
                state_table::Per::Particle | state_table::Per::NsMarker => got <= want,
                // A checkpoint from before the faces' memory: it starts afresh.
                _ if spec.field == state_table::Field::Faces => got == want || got == 0,
                _ => got == want,
            };
            if !fits {
                return Some(format!(
                    "its {} holds {got} values where this scene needs {want}: it comes from another scene",
                    spec.what
                ));
            }
        }
        None
    }

    /// The books (the pipes' units, the spray's counts) as the checkpoint left them.
    fn restore_books(&mut self, h: &crate::engine::checkpoint::Header, s: &crate::engine::solver::SolverState) {
        if let (Some(units), Some(pipes)) = (&mut self.books.units, &h.pipes) {
            units.0 = s.pipe_water.iter().map(|&w| w as u64).sum();
            units.1 = pipes.target_units;
        }
        if let (Some(spray), true) = (&mut self.books.spray, self.books.layer_spray) {
            // The slots are the state; the counts of what was thrown and ended start again.
            let flying = s
                .ns_drops
                .iter()
                .filter(|p| crate::models::navier_stokes::spray::is_spray(p));
            *spray = crate::models::pipes::spray::SprayReport {
                count: flying.clone().count() as u32,
                units: flying.map(|p| p.units as u64).sum(),
                ..Default::default()
            };
        } else if let Some(spray) = &mut self.books.spray {
            let pipes = h.pipes.as_ref().expect("checked: a pipes checkpoint");
            *spray = crate::models::pipes::spray::SprayReport {
                count: s.particles.len() as u32,
                units: s.particles.iter().map(|p| p.units as u64).sum(),
                made: pipes.made,
                ended: pipes.ended,
                refused: pipes.refused,
            };
        }
    }
}
