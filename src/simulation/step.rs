//! Stepping: submits of many steps, the stability and divergence checks at each submit's end,
//! and the substeps a depth needs.

use super::*;

impl Simulation {
    /// Advances `n` steps, submitting up to `MAX_CHUNK` steps at a time. Returns each step's probe
    /// heights (absolute, a row of `probes` values per step).
    pub fn step(&mut self, n: u64) -> Result<Vec<Vec<f64>>> {
        if let Some(step) = self.diverged_at {
            return Err(Error::Diverged { step });
        }
        let mut rows = Vec::new();
        let mut left = n;
        let shallow = self.scene.physics.model == crate::scene::WaterModel::ShallowWater;
        while left > 0 {
            let limit = self.chunk_limit() as u64;
            // The layer's submits end at multiples of its chunk (`ns_chunk`); the others' where
            // the call's steps do.
            let aligned = match self.scene.physics.model {
                crate::scene::WaterModel::NavierStokes => limit - self.step % limit,
                _ => limit,
            };
            let chunk = left.min(aligned) as u32;
            let input = ChunkInput {
                target: self.target,
                books_target: self.books_target,
                rain: if self.feeds.any() {
                    self.feeds.chunk(self.step, chunk)
                } else {
                    Default::default()
                },
                first_step: self.step,
                pressure: self.patches.chunk(self.step, chunk),
            };
            let held = shallow && self.solver.hold_chunk_start()?;
            let report = self.advance_chunk(chunk, &input)?;
            if held && self.ran_again(chunk, &report)? {
                continue;
            }
            if let Some(bad) = report
                .first_bad_step
                .or((report.totals.nonfinite != 0).then_some(chunk - 1))
            {
                let step = self.step + bad as u64 + 1;
                self.diverged_at = Some(step);
                return Err(Error::Diverged { step });
            }
            self.take_probes(&report, &mut rows);
            self.take_bodies(&report);
            self.step += chunk as u64;
            self.books
                .take(&report, chunk, self.step, &self.scene, &mut self.notes)?;
            self.totals = report.totals;
            self.target = report.target;
            self.books_target = report.books_target;
            if self.regions.is_some() {
                self.regions = Some(report.regions);
            }
            left -= chunk as u64;
            self.check_stability()?;
        }
        Ok(rows)
    }

    /// The shallow-water model's chunk that outran its substeps: one whose flow passed
    /// `SW_COURANT` (past which the reconstruction no longer keeps every depth non-negative) or
    /// made a NaN goes back to its start and runs again with the substeps its Courant number
    /// asks (at most four times as many a try; four times after a NaN), up to `MAX_SUBSTEPS`.
    /// So the bound is kept, not hoped for, when the flow speeds up within a chunk (water
    /// arriving on dry ground from a source or a side: the substeps are planned from the depth
    /// at the start). True when it went back; the caller runs the chunk again.
    fn ran_again(&mut self, chunk: u32, report: &crate::engine::solver::ChunkReport) -> Result<bool> {
        use crate::models::shallow_water::setup::{flow_substeps, SW_COURANT};
        let crate::engine::solver::ModelReport::Shallow { courant } = report.model else {
            return Ok(false);
        };
        let bad = report.first_bad_step.is_some() || report.totals.nonfinite != 0 || !courant.is_finite();
        if !bad && courant <= SW_COURANT {
            return Ok(false);
        }
        // A chunk past the bound may have run unstable, its Courant number no measure of the
        // flow's: at most four times the substeps a try, as many tries as it takes.
        let most = self.substeps.saturating_mul(4);
        let needed = if bad {
            most
        } else {
            flow_substeps(self.substeps, courant).min(most)
        };
        let needed = needed.min(crate::engine::params::MAX_SUBSTEPS);
        if needed <= self.substeps {
            return Ok(false);
        }
        self.solver.undo_chunk()?;
        let (first, last) = (self.step + 1, self.step + chunk as u64);
        self.notes.push(match bad {
            true => format!("steps {first}–{last}: a value became NaN; ran them again at {needed} substeps per step"),
            false => format!(
                "steps {first}–{last}: the flow reached (|u| + |v| + 2·sqrt(g·d))·dt/dx = {courant:.2}, past {SW_COURANT}; \
                 ran them again at {needed} substeps per step"
            ),
        });
        self.set_substeps(needed)?;
        Ok(true)
    }

    /// One submit of `chunk` steps, timed when a profile is being taken.
    fn advance_chunk(&mut self, chunk: u32, input: &ChunkInput) -> Result<crate::engine::solver::ChunkReport> {
        // Profiling: the first chunk warms up (first touches of fresh buffers, clocks), then
        // even chunks take timestamps (where the backend can) and the others are the wall
        // clock's.
        let chunk_index = self.profiling.as_mut().map(|p| {
            p.chunks += 1;
            (p.chunks, p.why_not.is_none())
        });
        let timed = chunk_index.is_some_and(|(k, can)| can && k % 2 == 0);
        let chunk_index = chunk_index.map(|(k, _)| k);
        if chunk_index.is_some() {
            self.solver.set_timing(timed);
        }
        let started = std::time::Instant::now();
        let report = self.solver.advance(chunk, self.substeps, input)?;
        if let Some(p) = &mut self.profiling {
            let clock = match chunk_index {
                Some(1) => &mut p.warm_up,
                _ if timed => &mut p.timed_clock,
                _ => &mut p.clock,
            };
            clock.0 += chunk as u64;
            clock.1 += started.elapsed().as_secs_f64();
        }
        Ok(report)
    }

    /// The probes' heights of each step of the chunk, absolute, onto `rows`, and the sections'
    /// discharges onto `section_rows` (their entries follow the gauges' in each row).
    fn take_probes(&mut self, report: &crate::engine::solver::ChunkReport, rows: &mut Vec<Vec<f64>>) {
        let gauges = self.probe_cells.len();
        let lines = self.sections.entries.len();
        let stride = gauges + lines + self.gauge_flows;
        if stride == 0 {
            return;
        }
        for row in report.probes.chunks_exact(stride) {
            if gauges > 0 {
                rows.push(
                    row[..gauges]
                        .iter()
                        .zip(&self.probe_cells)
                        .map(|(&e, &c)| self.absolute(e, c as usize))
                        .collect(),
                );
            }
            if !self.sections.is_empty() {
                let unit = self.section_unit();
                let discharges = self.sections.discharges(&row[gauges..gauges + lines]);
                self.section_rows
                    .push(discharges.into_iter().map(|q| q * unit).collect());
            }
            if self.scene.output.gauges {
                let flows = &row[gauges + lines..];
                let gauge_row = (0..gauges)
                    .map(|k| {
                        let q = (flows.len() == 2 * gauges).then(|| [flows[2 * k], flows[2 * k + 1]]);
                        self.gauge_values(row[k], self.probe_cells[k] as usize, q)
                    })
                    .collect();
                self.gauge_rows.push(gauge_row);
            }
        }
    }

    /// What one unit of a discharge line's probe values is in m²/s: 1, but on the height field,
    /// whose probe pass reads the faces' memory in metres of height a face moved in a substep
    /// (probe.wgsl), dx / dt_sub: a face dx wide moving m metres of a dx² cell in dt_sub carries
    /// m·dx/dt_sub m²/s.
    fn section_unit(&self) -> f64 {
        match self.scene.physics.model {
            crate::scene::WaterModel::HeightField => self.scene.grid.dx * self.substeps as f64 / self.scene.time.dt,
            _ => 1.0,
        }
    }

    /// A gauge's (h, depth, u, v) from its cell's surface `eta` (relative to the reference level)
    /// and, on a model with a velocity, its unit discharges `q`: h absolute, the depth over the
    /// ground, the velocity the desingularised one `--velocity` writes (0 where dry); u and v NaN
    /// without `q`.
    pub(super) fn gauge_values(&self, eta: f32, cell: usize, q: Option<[f32; 2]>) -> [f64; 4] {
        let h = self.absolute(eta, cell);
        let depth = (h - self.fields.ground[cell]).max(0.0);
        let [u, v] = match q {
            None => [f64::NAN; 2],
            Some(q) => {
                let d = (eta - self.ground_rel[cell]).max(0.0);
                let film = crate::models::shallow_water::setup::FILM;
                let speed = |q: f32| match d > 0.0 {
                    true => crate::models::shallow_water::state::velocity(q, d, film) as f64,
                    false => 0.0,
                };
                [speed(q[0]), speed(q[1])]
            }
        };
        [h, depth, u, v]
    }

    /// The bodies' samples of each step of the chunk, and the coupling's last solve.
    fn take_bodies(&mut self, report: &crate::engine::solver::ChunkReport) {
        let n_bodies = self.bodies_now.len();
        if n_bodies > 0 {
            let reference = self.fields.reference.0;
            for row in report
                .bodies
                .chunks_exact(n_bodies * crate::engine::bodies::HISTORY_FLOATS)
            {
                let samples: Vec<_> = row
                    .chunks_exact(crate::engine::bodies::HISTORY_FLOATS)
                    .map(|h| crate::engine::bodies::BodySample::from_history(h, reference))
                    .collect();
                self.bodies_now.clone_from(&samples);
                self.body_samples.push(samples);
            }
            self.coupling = report.coupling;
        }
    }

    /// The most steps one submit runs: `MAX_CHUNK`, or for the Navier-Stokes layer, whose flow
    /// can outrun its substeps within a chunk (a dam break), `ns_chunk` (at most `NS_CHUNK`, fewer
    /// where a step is a lot of work). A run checks its stop requests between chunks.
    pub fn chunk_limit(&self) -> u32 {
        match self.scene.physics.model {
            crate::scene::WaterModel::NavierStokes => {
                let cells = self.books.layer_shape.map_or(1, |[x, y, z]| (x * y * z) as u64);
                crate::models::navier_stokes::setup::ns_chunk(cells, self.substeps)
            }
            crate::scene::WaterModel::ShallowWater => crate::models::shallow_water::setup::SW_CHUNK,
            _ => MAX_CHUNK,
        }
    }

    /// Raises the substep count when the deepest water now needs it, or (the Navier-Stokes
    /// layer) when the flow ran faster than `NS_FLOW_COURANT` allows. The shallow-water model
    /// also lowers it when the flow has calmed (`calm_substeps`), never below what the depth
    /// needs; the other models never lower it.
    pub(super) fn check_stability(&mut self) -> Result<()> {
        let max_depth = self.totals.max_depth as f64;
        let mut needed = substeps_needed(&self.scene, max_depth);
        let shallow = self.scene.physics.model == crate::scene::WaterModel::ShallowWater;
        let flow = if shallow {
            crate::models::shallow_water::setup::flow_substeps(self.substeps, self.books.flow_courant)
        } else {
            crate::models::navier_stokes::setup::flow_substeps(self.substeps, self.books.flow_courant)
        };
        if flow > needed.max(self.substeps) {
            self.notes.push(if shallow {
                format!(
                    "at step {}: the flow reached (|u| + |v| + 2·sqrt(g·d))·dt/dx = {:.2}; running {flow} substeps \
                     per step",
                    self.step, self.books.flow_courant
                )
            } else {
                format!(
                    "at step {}: the flow reached |u|·δt/δx = {:.2} on the Navier-Stokes grid (condition 3 asks < \
                     1); running {flow} substeps per step",
                    self.step, self.books.flow_courant
                )
            });
            needed = flow;
            check_substeps(&self.scene, needed, max_depth)?;
            self.set_substeps(needed)?;
        }
        check_substeps(&self.scene, needed, max_depth)?;
        if shallow {
            let fewer = crate::models::shallow_water::setup::calm_substeps(self.substeps, self.books.flow_courant);
            if fewer.max(needed) < self.substeps {
                self.set_substeps(fewer.max(needed))?;
            }
        }
        if needed > self.substeps {
            self.notes.push(format!(
                "at step {}: {}",
                self.step,
                substep_note(&self.scene, needed, max_depth)
            ));
            let factor = self.substeps as f32 / needed as f32;
            self.set_substeps(needed)?;
            self.solver.rescale_velocity(factor)?;
        }
        Ok(())
    }

    /// Plans the substeps for water up to `depth` metres deep, before any step (the water is at
    /// rest: no per-step change to rescale). For hosts that will deepen the water themselves.
    pub(crate) fn plan_for_depth(&mut self, depth: f64) -> Result<()> {
        let needed = substeps_needed(&self.scene, depth);
        check_substeps(&self.scene, needed, depth)?;
        if needed > self.substeps {
            self.set_substeps(needed)?;
        }
        Ok(())
    }

    /// `Water` on the shallow-water model and the layer: more substeps from now on when a
    /// frame's flow reached `courant` past the target, as `check_stability` raises them between a
    /// batch run's chunks.
    pub(crate) fn follow_flow(&mut self, courant: f32) -> Result<()> {
        self.books.flow_courant = courant;
        let flow = match self.scene.physics.model {
            crate::scene::WaterModel::NavierStokes => {
                crate::models::navier_stokes::setup::flow_substeps(self.substeps, courant)
            }
            _ => crate::models::shallow_water::setup::flow_substeps(self.substeps, courant),
        };
        if flow > self.substeps {
            check_substeps(&self.scene, flow, self.totals.max_depth as f64)?;
            self.set_substeps(flow)?;
        }
        Ok(())
    }

    /// Runs `substeps` per step from now on (the per-step change is the caller's to rescale).
    pub(super) fn set_substeps(&mut self, substeps: u32) -> Result<()> {
        self.substeps = substeps;
        // Only what depends on the substeps changes: the sources, rainfall and forcing flags
        // stay (rebuilding the parameters from the scene lost them, and a run whose water
        // deepened past its substeps stopped raining, dropped its damping map and its pressure).
        self.params = self.params.with_substeps(&self.scene, substeps);
        self.solver.set_params(&self.params)?;
        if !self.damping_map.is_empty() {
            self.solver
                .set_damping_map(&damping_per_substep(&self.damping_map, substeps))?;
        }
        Ok(())
    }
}
