//! What a caller reads of a run: the surface, its stats, the probes, the bodies, the spray and
//! markers, the flood maps, the books and the profile.

use super::*;

impl Simulation {
    pub(super) fn absolute(&self, eta: f32, cell: usize) -> f64 {
        if eta <= self.ground_rel[cell] {
            self.fields.ground[cell]
        } else {
            self.fields.reference.0 + eta as f64
        }
    }

    /// The surface relative to the reference level, as the solver stores it (a readback on the GPU).
    pub fn eta(&mut self) -> Result<Vec<f32>> {
        self.solver.read_eta()
    }

    /// Each cell's depth-averaged velocity (u, v), m/s, 0 where dry, row-major `[ny, nx]`, on
    /// models with a velocity (the shallow-water model); None on the others (a readback on the
    /// GPU).
    pub fn velocity(&mut self) -> Result<Option<Vec<[f32; 2]>>> {
        self.solver.read_velocity()
    }

    /// The absolute surface h in f64, dry cells exactly at the ground (a readback on the GPU).
    pub fn surface(&mut self) -> Result<Vec<f64>> {
        self.read_infiltrated()?;
        let mut eta = self.solver.read_eta()?;
        // Over a body, the water's top (SCENE.md): the surface less the body volume the column
        // holds under it, so Σ max(h − b, 0)·dx² is the water's volume there too (a floating
        // body's underside where water runs under it, the ground where it rests on it). A model
        // the bodies press on (`BodyParams::pressed`) shows the water's top already.
        let carried = match self.body_params.pressed {
            0 => self.solver.read_cover()?,
            _ => Vec::new(),
        };
        for (e, cover) in eta.iter_mut().zip(carried) {
            if cover.held > 0.0 {
                *e -= cover.held;
            }
        }
        Ok(eta.iter().enumerate().map(|(c, &e)| self.absolute(e, c)).collect())
    }

    /// Each `[[output.section]]`'s discharge (m³/s, positive towards the line's left) after each
    /// step since the last call, a row per step.
    pub fn take_section_rows(&mut self) -> Vec<Vec<f64>> {
        std::mem::take(&mut self.section_rows)
    }

    /// Each section's discharge now, from the depth-averaged velocity and the depth under
    /// `surface` (q = d·u: the state's discharges where the model keeps them; the rows
    /// [`Simulation::take_section_rows`] gives read those), zero on the height field, which has
    /// no velocity (its rows read the faces' flux memory: water starts at rest). Empty without
    /// sections.
    pub fn section_discharges(&mut self, surface: &[f64]) -> Result<Vec<f64>> {
        if self.sections.is_empty() {
            return Ok(Vec::new());
        }
        let Some(uv) = self.velocity()? else {
            return Ok(vec![0.0; self.sections.len()]);
        };
        let ground = self.ground();
        let values: Vec<f32> = self
            .sections
            .entries
            .iter()
            .map(|&e| {
                let cell = (e & crate::engine::sections::CELL_MASK) as usize;
                let d = (surface[cell] - ground[cell]).max(0.0) as f32;
                let axis = usize::from(e >> crate::engine::sections::KIND_SHIFT == crate::engine::sections::QY);
                d * uv[cell][axis]
            })
            .collect();
        Ok(self.sections.discharges(&values))
    }

    /// `[output] gauges`: each gauge's (h, depth, u, v) after each step since the last call, a
    /// row of gauges per step (u, v NaN on a model without a velocity).
    pub fn take_gauge_rows(&mut self) -> Vec<Vec<[f64; 4]>> {
        std::mem::take(&mut self.gauge_rows)
    }

    /// Each gauge's (h, depth, u, v) now (step 0's row of gauges.csv), the velocity as
    /// [`Simulation::velocity`] reads it.
    pub fn gauge_values_now(&mut self) -> Result<Vec<[f64; 4]>> {
        let eta = self.eta()?;
        let uv = self.velocity()?;
        Ok(self
            .probe_cells
            .iter()
            .map(|&c| {
                let c = c as usize;
                let [h, depth, ..] = self.gauge_values(eta[c], c, None);
                match &uv {
                    Some(uv) => [h, depth, uv[c][0] as f64, uv[c][1] as f64],
                    // A model whose probe pass reads the gauges' discharges but which keeps no
                    // velocity field (the pipes) starts at rest.
                    None if self.gauge_flows > 0 => [h, depth, 0.0, 0.0],
                    None => [h, depth, f64::NAN, f64::NAN],
                }
            })
            .collect())
    }

    /// The probes' heights in a surface read with [`Simulation::surface`].
    pub fn probe_heights(&self, surface: &[f64]) -> Vec<f64> {
        self.probe_cells.iter().map(|&c| surface[c as usize]).collect()
    }

    /// Statistics of a surface read with [`Simulation::surface`].
    pub fn stats(&self, surface: &[f64]) -> FieldStats {
        let area = self.scene.grid.dx * self.scene.grid.dx;
        let mut s = FieldStats {
            volume: 0.0,
            h_min: f64::INFINITY,
            h_max: f64::NEG_INFINITY,
            wet_cells: 0,
            max_depth: 0.0,
        };
        for (h, b) in surface.iter().zip(&self.fields.ground) {
            let d = h - b;
            if d > 0.0 {
                s.volume += d * area;
                s.h_min = s.h_min.min(*h);
                s.h_max = s.h_max.max(*h);
                s.wet_cells += 1;
                s.max_depth = s.max_depth.max(d);
            }
        }
        // The pipes count their water exactly, under overhangs too.
        if let Some((water, _, per_unit)) = self.books.units {
            s.volume = water as f64 * per_unit;
        }
        if s.wet_cells == 0 {
            s.h_min = f64::NAN;
            s.h_max = f64::NAN;
        }
        s
    }

    /// Each cell's connected body of water after the last step (id + 1, 0 dry), numbered by
    /// their first cell in row-major order, under `volume_correction = "regions"`; else empty.
    pub fn region_labels(&mut self) -> Result<Vec<u32>> {
        self.solver.read_regions()
    }

    /// Connected bodies of water after the last step, when `volume_correction = "regions"` runs.
    pub fn regions(&self) -> Option<u32> {
        self.regions
    }

    /// The GPU backend, for `Water`; None on the CPU.
    pub(crate) fn gpu_solver(&mut self) -> Option<&mut GpuSolver> {
        self.solver.as_any_mut().downcast_mut::<GpuSolver>()
    }

    /// The pipes model's GPU backend, for `Water`; None on the CPU or for the height field.
    pub(crate) fn gpu_pipes(&mut self) -> Option<&mut crate::models::pipes::gpu::pipe_solver::GpuPipes> {
        self.solver
            .as_any_mut()
            .downcast_mut::<crate::models::pipes::gpu::pipe_solver::GpuPipes>()
    }

    /// The Navier-Stokes layer's GPU backend, for `Water`; None on the CPU or for other models.
    pub(crate) fn gpu_ns(&mut self) -> Option<&mut crate::models::navier_stokes::gpu::ns_solver::GpuNs> {
        self.solver
            .as_any_mut()
            .downcast_mut::<crate::models::navier_stokes::gpu::ns_solver::GpuNs>()
    }

    /// The shallow-water model's GPU backend, for `Water`; None on the CPU or for other models.
    pub(crate) fn gpu_sw(&mut self) -> Option<&mut crate::models::shallow_water::gpu::sw_solver::GpuSw> {
        self.solver
            .as_any_mut()
            .downcast_mut::<crate::models::shallow_water::gpu::sw_solver::GpuSw>()
    }

    /// The ground relative to the reference level, f32 per cell as the backends hold it.
    pub(crate) fn ground_relative(&self) -> &[f32] {
        &self.ground_rel
    }

    /// The pipes model's units at the start and m³ per unit (None: the height field).
    pub(crate) fn unit_books(&self) -> Option<(i64, f64)> {
        self.books.units.map(|(_, target, per_unit)| (target, per_unit))
    }

    /// The height field's books' target, as the next chunk goes on from it.
    pub(crate) fn books_target(&self) -> [f32; 2] {
        self.books_target
    }

    /// The volume the water should hold now, m³ (moved only by sources, drains and rain).
    pub fn target_volume(&self) -> f64 {
        if let Some((_, target, per_unit)) = self.books.units {
            return target as f64 * per_unit;
        }
        (self.still + self.target - self.infiltrated_beside_target()) * self.scene.grid.dx * self.scene.grid.dx
    }

    /// What the ground has taken that the target does not count (metres·cells): the
    /// shallow-water model's feed keeps no per-step total of it (the soil's state holds it),
    /// where the height field's volume pass books each step's take in the target as a drain's
    /// (its correction must not put the water back).
    fn infiltrated_beside_target(&self) -> f64 {
        match self.scene.physics.model {
            crate::scene::WaterModel::ShallowWater | crate::scene::WaterModel::NavierStokes => self.infiltrated,
            _ => 0.0,
        }
    }

    /// The water the ground has taken since the start (`[infiltration]`), m³, as of the last
    /// [`Simulation::surface`] (which reads it with the surface); None without infiltration.
    pub fn infiltrated(&self) -> Option<f64> {
        self.scene
            .infiltration
            .as_ref()
            .map(|_| self.infiltrated * self.scene.grid.dx * self.scene.grid.dx)
    }

    /// Reads the soil's state and sums the depth each cell took (with its rounding), in f64.
    fn read_infiltrated(&mut self) -> Result<()> {
        if self.scene.infiltration.is_none() {
            return Ok(());
        }
        let soil = self.solver.read_soil()?;
        self.infiltrated = soil
            .chunks_exact(crate::engine::infiltration::SOIL_FLOATS)
            .map(|s| s[0] as f64 + s[1] as f64)
            .sum();
        Ok(())
    }

    /// The Navier-Stokes layer's grid now, cell-centred: velocities (m/s) and pressure in Pa
    /// (ρ·p/ρ, relative to the air); None for the other models. A readback on the GPU.
    pub fn layer_fields(&mut self) -> Result<Option<crate::models::navier_stokes::state::LayerFields>> {
        let density = self.scene.physics.water_density as f32;
        Ok(self.solver.read_layer()?.map(|mut f| {
            f.pressure.iter_mut().for_each(|p| *p *= density);
            f
        }))
    }

    /// The pipes model's water in exact units, and what it should hold (None: the height field).
    /// The columns' water: with spray, the particles carry the rest (`spray`).
    pub fn water_units(&self) -> Option<(u64, i64)> {
        self.books.units.map(|(w, t, _)| (w, t))
    }

    /// The pipes model's unit of water, m³ (`water_units` × this is the volume; None: the
    /// height field).
    pub fn unit_volume(&self) -> Option<f64> {
        self.books.units.map(|u| u.2)
    }

    /// The spray after the last step: particles in flight and the units they carry, and the
    /// particles made, ended and refused since the start (None without spray).
    pub fn spray(&self) -> Option<crate::models::pipes::spray::SprayReport> {
        self.books.spray
    }

    /// The water one spray unit carries, m³; None without spray.
    pub(crate) fn particle_unit(&self) -> Option<f64> {
        self.books.particle_unit
    }

    /// (particles in flight, the water they carry in m³): (0, 0) for a model without them.
    pub fn particle_stats(&self) -> (u32, f64) {
        match (self.books.spray, self.books.particle_unit) {
            (Some(s), Some(per_unit)) => (s.count, s.units as f64 * per_unit),
            _ => (0, 0.0),
        }
    }

    /// The particles in flight, absolute: (x, y, z, vx, vy, vz, volume m³) each (a readback on the
    /// GPU); empty for a model without them.
    pub fn particles(&mut self) -> Result<Vec<Particle7>> {
        Ok(self.particles_and_foam()?.0)
    }

    /// The Navier-Stokes layer's foam, absolute: (x, y, z, seconds of life left) each (a readback
    /// on the GPU); empty without it.
    pub fn foam(&mut self) -> Result<Vec<Foam4>> {
        Ok(self.particles_and_foam()?.1)
    }

    /// `particles` and `foam` from one readback (the layer's slots hold both).
    pub fn particles_and_foam(&mut self) -> Result<(Vec<Particle7>, Vec<Foam4>)> {
        let per_unit = self.books.particle_unit.unwrap_or(0.0);
        let reference = self.fields.reference.0;
        let all = self.solver.read_particles()?;
        let up = |z: f32| (z as f64 + reference) as f32;
        let particles = all
            .iter()
            .filter(|p| p.units > 0)
            .map(|p| {
                [
                    p.pos[0],
                    p.pos[1],
                    up(p.pos[2]),
                    p.vel[0],
                    p.vel[1],
                    p.vel[2],
                    (p.units as f64 * per_unit) as f32,
                ]
            })
            .collect();
        let foam = all
            .iter()
            .filter(|p| self.books.layer_spray && crate::models::navier_stokes::spray::is_foam(p))
            .map(|p| [p.pos[0], p.pos[1], up(p.pos[2]), p.age])
            .collect();
        Ok((particles, foam))
    }

    /// The Navier-Stokes layer's marker particles (§4.1), absolute (x, y, z) each, in the order
    /// they were made, those that left through an outflow left out (a readback on the GPU);
    /// empty without them. y is the middle of the run's one row.
    pub fn markers(&mut self) -> Result<Vec<[f32; 3]>> {
        let reference = self.fields.reference.0;
        let y = (self.scene.grid.ny as f64 * self.scene.grid.dx / 2.0) as f32;
        Ok(self
            .solver
            .read_markers()?
            .iter()
            .filter(|m| m[0] >= 0.0)
            .map(|m| [m[0], y, (m[1] as f64 + reference) as f32])
            .collect())
    }

    /// The Navier-Stokes layer's 3D grid from its floor to its top, m, absolute (None: other
    /// models).
    pub fn layer_extent(&self) -> Option<(f64, f64)> {
        self.books.layer_extent
    }

    /// Whether the run tracks its water with marker particles.
    pub fn has_markers(&self) -> bool {
        self.books.marker_capacity.is_some()
    }

    /// Whether the spray is the Navier-Stokes layer's, which leaves foam.
    pub fn has_foam(&self) -> bool {
        self.books.layer_spray && self.scene.spray.is_some_and(|s| s.foam() > 0.0)
    }

    /// The scene as run (substeps resolved).
    pub fn scene(&self) -> &Scene {
        &self.scene
    }
    /// The flood maps so far (`[output] summary`; None without it): each cell's deepest water,
    /// highest surface, time of first wetting and time wet, and where the model has
    /// depth-averaged velocities its fastest speed and largest d·|u|. A readback on the GPU.
    pub fn summary(&mut self) -> Result<Option<crate::summary::SummaryMaps>> {
        let cells = self.solver.read_summary()?;
        if cells.is_empty() {
            return Ok(None);
        }
        let mut maps = crate::summary::SummaryMaps::of(&cells, self.fields.reference.0, self.scene.time.dt);
        maps.add_flow(&self.solver.read_flow_maps()?);
        Ok(Some(maps))
    }

    /// The water at `points` (x, y in metres; off the grid, its edge): surface height, depth
    /// and normal, bilinear between cell centres (`crate::query`). Answered at once from the
    /// state after the last step: on the GPU backend a small pass and a readback of 32 bytes a
    /// point from an idle device. Every model: the pipes read each column's surface over its top
    /// floor, the Navier-Stokes layer its height field.
    pub fn query(&mut self, points: &[[f64; 2]]) -> Result<Vec<crate::query::WaterSample>> {
        crate::models::require(
            self.scene.physics.model,
            crate::models::Feature::Queries,
            "Simulation::query",
        )?;
        let raw = self
            .solver
            .query(self.scene.grid.dx as f32, &crate::query::points_f32(points))?;
        let reference = self.fields.reference.0;
        Ok(raw
            .iter()
            .map(|r| crate::query::WaterSample::of(r, reference))
            .collect())
    }

    /// What the host adds to the water each step (drops, hydrographs, rainfall).
    pub(crate) fn feeds(&self) -> &crate::engine::feeds::Feeds {
        &self.feeds
    }
    /// The `[[pressure]]` patches.
    pub(crate) fn patches(&self) -> &crate::engine::pressure::Patches {
        &self.patches
    }
    /// Steps taken.
    pub fn step_index(&self) -> u64 {
        self.step
    }
    /// Simulated seconds.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.scene.time.dt
    }
    /// Substeps per step now.
    pub fn substeps(&self) -> u32 {
        self.substeps
    }
    /// The ground b, absolute, [ny, nx].
    pub fn ground(&self) -> &[f64] {
        &self.fields.ground
    }
    /// The bodies after the last step (absolute heights), in file order.
    pub fn bodies(&self) -> &[crate::engine::bodies::BodySample] {
        &self.bodies_now
    }

    /// The top of the highest body over each cell centre (absolute; NaN where none), from the
    /// bodies' poses after the last step: for pictures. Empty without bodies.
    pub fn body_tops(&self) -> Vec<f64> {
        if self.bodies_now.is_empty() {
            return Vec::new();
        }
        let g = &self.scene.grid;
        let reference = self.fields.reference.0;
        let mut tops = vec![f64::NAN; g.cells()];
        for (shape, now) in self.body_shapes.iter().zip(&self.bodies_now) {
            let [w, x, y, z] = now.orientation;
            let b = crate::engine::bodies::BodyState {
                position: [
                    now.position[0] as f32,
                    now.position[1] as f32,
                    (now.position[2] - reference) as f32,
                    0.0,
                ],
                rotation: [x as f32, y as f32, z as f32, w as f32],
                ..*shape
            };
            let [i0, j0, i1, j1] = crate::engine::cpu::bodies::rect(&b, g.nx, g.ny, g.dx as f32);
            for j in j0..=j1.min(g.ny - 1) {
                for i in i0..=i1.min(g.nx - 1) {
                    let (x, y) = ((i as f32 + 0.5) * g.dx as f32, (j as f32 + 0.5) * g.dx as f32);
                    let (bottom, top) = crate::engine::cpu::bodies::cast(&b, x, y);
                    let c = (j * g.nx + i) as usize;
                    let top = top as f64 + reference;
                    if bottom < crate::engine::bodies::NO_BODY && (tops[c].is_nan() || tops[c] < top) {
                        tops[c] = top;
                    }
                }
            }
        }
        tops
    }

    /// Every body after every step since the last call: one row of bodies per step.
    pub fn take_body_samples(&mut self) -> Vec<Vec<crate::engine::bodies::BodySample>> {
        std::mem::take(&mut self.body_samples)
    }

    /// How the coupling solve went on the last step: PCG's iterations and relative residual
    /// (Jacobi: its sweeps; its residual is measured on the CPU only, NaN on the GPU).
    pub fn coupling(&self) -> crate::engine::bodies::SolveReport {
        self.coupling
    }

    /// The Navier-Stokes layer's pressure iteration over the last `step` call's last submit: the
    /// most red-black sweeps a substep ran and the largest |D| (1/s) one ended with. None for the
    /// other models.
    pub fn pressure(&self) -> Option<crate::engine::bodies::SolveReport> {
        self.books.pressure
    }

    /// The level heights are stored relative to.
    pub fn reference_level(&self) -> f64 {
        self.fields.reference.0
    }
    /// The backend in words (the adapter, or the CPU).
    pub fn describe_backend(&self) -> String {
        self.solver.describe()
    }
    /// Times each GPU pass from the next step on (where the backend can: the height field on a
    /// device with `TIMESTAMP_QUERY`), and the wall clock of stepping: `shoal run --profile`.
    pub fn start_profile(&mut self) {
        self.profiling = Some(Profiling {
            from: self.step,
            why_not: self.solver.start_profile().err(),
            ..Profiling::default()
        });
    }

    /// What was measured since `start_profile` (None before it).
    pub fn profile(&self) -> Option<crate::engine::gpu::profile::Profile> {
        let p = self.profiling.as_ref()?;
        // The wall clock of the untimed chunks after the first; of the first where there are none.
        let (clock, warm) = if p.clock.0 > 0 {
            (p.clock, false)
        } else {
            (p.warm_up, true)
        };
        Some(crate::engine::gpu::profile::Profile {
            backend: self.solver.describe(),
            cells: self.params.nx as u64 * self.params.ny as u64,
            steps: self.step - p.from,
            clock,
            warm,
            timed_steps: p.timed_clock.0,
            cost: crate::engine::gpu::cost::describe(
                &schedule(&self.scene, &self.params),
                self.substeps,
                &self.params,
                &self.body_params,
            ),
            timed: match &p.why_not {
                Some(why) => Err(why.clone()),
                None if p.timed_clock.0 == 0 => Err(
                    "the run stepped one chunk, which warms up; profile at least two (three for an unprofiled wall clock)".into(),
                ),
                None => self.solver.profile().ok_or_else(|| "the backend kept no timestamps".to_string()),
            },
        })
    }

    /// Messages for the user (substep changes), each handed out once.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
    /// The scene as run, every default filled in, for the output scene.toml.
    pub fn resolved_scene_toml(&self) -> String {
        self.scene.to_resolved_toml(self.fields.reference.0, self.substeps)
    }
}
