//! The pipes model on the GPU: many steps per submit, one readback per chunk (the totals and the
//! probes' history), none per step.

use crate::engine::params::{Params, Totals, MAX_CHUNK};
use crate::engine::schedule::{Pass, Schedule};
use crate::engine::solver::{ChunkInput, ChunkReport, ModelReport, PipeSetup, Solver, SolverState};
use crate::error::{Error, Result};
use crate::models::pipes::columns::{Columns, PipeParams};
use crate::models::pipes::gpu::pipes::{PipeBuffers, Pipes};
use crate::models::pipes::gpu::spray::{Spray, SprayBuffers};
use crate::models::pipes::params::pipe_params;
use crate::models::pipes::spray::{Particle, SprayParams, SprayReport};
use crate::models::pipes::state::PipeState;
use crate::scene::Scene;

/// The pipes model's GPU backend, on a Device/Queue it shares with its caller.
pub struct GpuPipes {
    device: wgpu::Device,
    /// The chunks' spray parameters' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
    queue: wgpu::Queue,
    scene: Scene,
    columns: Columns,
    params: PipeParams,
    buffers: PipeBuffers,
    pipes: Pipes,
    schedule: Schedule,
    n_probes: u32,
    /// Staging for a chunk's report (the totals' partials, then the probes' history): one
    /// mapping per chunk.
    report_readback: wgpu::Buffer,
    /// Staging for the surface, at output steps.
    eta_readback: wgpu::Buffer,
    /// The spray: its uniforms, buffers and passes, where the scene makes spray.
    spray: Option<(SprayParams, SprayBuffers, Spray)>,
    /// The rain's pass, where the scene rains.
    rain: Option<crate::models::pipes::gpu::pipe_rain::PipeRain>,
    /// `[[pressure]]`: each step's air-pressure head per column (None: no patches).
    pressure: Option<crate::engine::gpu::pressure::Pressure>,
    /// The bodies and their passes (None: the scene has none).
    bodies: Option<crate::models::pipes::gpu::pipe_bodies::PipeBodies>,
    /// `[output] summary`: the flood maps' fold over the columns' surface, the maps, and the
    /// step slots' bind group it reads.
    summary: Option<(crate::engine::gpu::summary::Summary, wgpu::Buffer, wgpu::BindGroup)>,
    /// Each column's top floor − ref (the ground a query measures depth from), and the query
    /// pass on it and the surface, built at the first query.
    ground: Vec<f32>,
    query: Option<crate::engine::gpu::query::Query>,
    /// The live particles after the last chunk (the tally's count).
    particles: u32,
    /// Substeps per step (the sources' feed is per substep).
    substeps: u32,
    adapter: String,
}

/// Bytes of the spray's tally in a chunk's report.
const TALLY_BYTES: u64 = 32;

impl GpuPipes {
    /// The backend for `setup`: buffers, then the passes, built once.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, adapter: String, setup: &PipeSetup) -> Result<GpuPipes> {
        let n_probes = setup.probe_cells.len() as u32;
        let params = pipe_params(setup.scene, setup.columns, setup.params.substeps, n_probes);
        let mut shape = PipeState::new(setup.columns, setup.columns.feed(setup.scene, setup.params.substeps));
        crate::models::pipes::stencil::start_moving(&params, &mut shape, &setup.columns.velocity);
        shape.column_forcing = crate::models::pipes::state::column_forcing(setup.columns, setup.air());
        PipeBuffers::check_fits(&device.limits(), &shape, setup.scene.grid.nx, setup.scene.grid.ny)?;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buffers = PipeBuffers::new(device, &params, &shape, setup.probe_cells, MAX_CHUNK);
        if !setup.columns.velocity.is_empty() {
            // The start's velocities (`start_moving`): its pipes and cells' means.
            let l = shape.layers;
            let flow = shape.to_gpu_layout(&shape.flow, 8 * l * l);
            queue.write_buffer(&buffers.flow, 0, bytemuck::cast_slice(&flow));
            queue.write_buffer(
                &buffers.vel,
                0,
                bytemuck::cast_slice(&shape.to_gpu_layout(&shape.vel, l)),
            );
        }
        let pipes = Pipes::new(device, &buffers, &params);
        let pressure = (setup.pressure_patches > 0).then(|| {
            let grid = [params.nx, params.ny];
            let (slots, _) = pipes.slots();
            crate::engine::gpu::pressure::Pressure::new(
                device,
                grid,
                &buffers.column_forcing,
                slots,
                setup.pressure_patches,
                0,
            )
        });
        let spray = setup.spray().map(|p| {
            let b = SprayBuffers::new(device, &p);
            let passes = Spray::new(device, &b, &buffers, &p);
            (p, b, passes)
        });
        let rainfall = crate::models::pipes::gpu::pipe_rain::Rainfall {
            mode: setup.params.rainfall,
            share: setup.rainfall_map,
            per_unit: (1.0 / setup.columns.quantum) as f32,
            infiltration: setup.params.infiltration,
            soil_law: setup.soil_law,
        };
        let rain = (setup.rain || setup.params.infiltration != 0).then(|| {
            crate::models::pipes::gpu::pipe_rain::PipeRain::new(
                device,
                &buffers,
                params.columns,
                params.layers,
                MAX_CHUNK,
                rainfall,
            )
        });
        // Each column's top floor − ref: the ground the flood maps measure depth from and the
        // bodies rest on.
        let floors = (setup.summary.is_some() || !setup.base.bodies.is_empty()).then(|| {
            crate::engine::gpu::binding::filled_buffer(
                device,
                "pipes top floor",
                bytemuck::cast_slice(setup.ground),
                wgpu::BufferUsages::STORAGE,
            )
        });
        let summary = setup
            .summary
            .map(|wet| summary_pass(device, setup, &params, &buffers, floors.as_ref().expect("floors"), wet));
        let bodies = (!setup.base.bodies.is_empty()).then(|| {
            let grid = crate::models::pipes::bodies::PressGrid::new(&params, setup.pressure_patches > 0);
            let floors = floors.as_ref().expect("floors");
            crate::models::pipes::gpu::pipe_bodies::PipeBodies::new(device, setup, &grid, &buffers, floors)
        });
        let staging = |label: &str, size: u64| crate::engine::gpu::readback::buffer(device, label, size);
        let report_readback = staging(
            "pipes report readback",
            buffers.partials.size()
                + TALLY_BYTES
                + buffers.history.size()
                + bodies.as_ref().map_or(0, |b| b.buffers.history.size()),
        );
        let eta_readback = staging("pipes surface readback", buffers.eta.size());
        if let Some(e) = crate::engine::gpu::context::caught(scope.pop()) {
            return Err(Error::Gpu(e.to_string()));
        }
        Ok(GpuPipes {
            device: device.clone(),
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
            queue: queue.clone(),
            scene: setup.scene.clone(),
            columns: setup.columns.clone(),
            params,
            buffers,
            pipes,
            schedule: setup.schedule(),
            n_probes,
            report_readback,
            eta_readback,
            spray,
            rain,
            pressure,
            bodies,
            summary,
            ground: setup.ground.to_vec(),
            query: None,
            particles: 0,
            substeps: setup.params.substeps,
            adapter,
        })
    }
}

impl GpuPipes {
    /// Records `steps` steps (≤ MAX_CHUNK) after `first_step` into `encoder`, with their `rain`
    /// (the scene's drops for these steps, when it rains) and nothing read back: what `advance`
    /// submits, and what an embedded `Water` records into its host's encoder. The spray's step
    /// key and the drops are staged in the encoder, so chunks recorded back to back before one
    /// submit each see their own. The exchange is not cleared: it sums from the last clear.
    pub fn record_chunk(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        steps: u32,
        substeps: u32,
        first_step: u64,
        rain: &crate::engine::rain::RainChunk,
        pressure: &[crate::engine::pressure::Patch],
    ) {
        if let Some(air) = &self.pressure {
            air.stage(encoder, pressure);
        }
        if let Some(pass) = &mut self.rain {
            let units = self.columns.rain_units(&rain.heights);
            pass.stage(&self.device, encoder, rain, &units);
        }
        if let Some((summary, _, _)) = &self.summary {
            summary.stage(encoder, first_step);
        }
        if let Some((p, b, _)) = &self.spray {
            // The steps are numbered in u32 for the random key (the CPU twin wraps the same way).
            let p = SprayParams {
                first_step: first_step as u32,
                ..*p
            };
            self.uploads.stage(encoder, &b.params, 0, bytemuck::bytes_of(&p));
            encoder.clear_buffer(&b.tally, 0, None);
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shoal pipes"),
            timestamp_writes: None,
        });
        for step in 0..steps {
            for p in self.schedule.step(substeps) {
                match p {
                    Pass::Pressure => {
                        let air = self.pressure.as_ref().expect("the schedule presses only with patches");
                        air.record(&mut pass, self.pipes.slots().1, step * self.buffers.slot_stride);
                    }
                    Pass::PipeFlow => self.pipes.flow(&mut pass),
                    Pass::PipeApply => self.pipes.apply(&mut pass),
                    Pass::Probe => self
                        .pipes
                        .probe(&mut pass, self.n_probes, step * self.buffers.slot_stride),
                    Pass::Spray => {
                        let (_, b, spray) = self.spray.as_ref().expect("the schedule sprays only with spray");
                        spray.step(&mut pass, b, step * self.buffers.slot_stride);
                    }
                    Pass::PipeRain => self
                        .rain
                        .as_ref()
                        .expect("the schedule rains only with rain")
                        .record(&mut pass, step),
                    Pass::PipeSurface => self.pipes.surface(&mut pass),
                    Pass::PipePress | Pass::Footprint | Pass::PipeLoads | Pass::Integrate => self
                        .bodies
                        .as_ref()
                        .expect("the schedule has body passes only with bodies")
                        .record(&mut pass, p, step * self.buffers.slot_stride),
                    // On the surface the step's `PipeSurface` wrote.
                    Pass::Summary => {
                        let (summary, _, slots) = self.summary.as_ref().expect("summary");
                        summary.record(&mut pass, slots, 0, step * self.buffers.slot_stride);
                    }
                    other => unreachable!("{other:?} is not a pass of the pipes model"),
                }
            }
        }
    }

    /// Records the surface pass: `surface_buffer` then holds h − ref per column (the top of the
    /// highest water, or the top floor where a column holds none there), f32, row-major.
    pub fn record_surface(&self, pass: &mut wgpu::ComputePass) {
        self.pipes.surface(pass);
    }

    /// Records a height query on the state into `encoder` (`Simulation::query`, `Water::query`):
    /// the surface pass, then `query.wgsl` on it over the top floors; returns the answer's
    /// buffer, mappable once the encoder's work is done.
    pub fn record_query(&mut self, encoder: &mut wgpu::CommandEncoder, dx: f32, points: &[[f32; 2]]) -> wgpu::Buffer {
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("shoal pipes surface"),
                timestamp_writes: None,
            });
            self.pipes.surface(&mut pass);
        }
        let (device, buffers, params, ground) = (&self.device, &self.buffers, &self.params, &self.ground);
        let query = self.query.get_or_insert_with(|| {
            use wgpu::util::DeviceExt;
            let floors = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("pipes top floor (queries)"),
                contents: bytemuck::cast_slice(ground),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let source = crate::engine::gpu::query::QuerySource {
                nx: params.nx,
                ny: params.ny,
                ground: &floors,
                levels: &[&buffers.eta],
            };
            crate::engine::gpu::query::Query::new(device, source)
        });
        query.record(device, encoder, 0, dx, points)
    }

    /// The surface `record_surface` writes (f32 per column, row-major [ny, nx], h − ref).
    pub fn surface_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.eta
    }

    /// The bodies' states (`BodyState` per body), None without bodies: `Water` binds them and
    /// a renderer draws them.
    pub fn body_states(&self) -> Option<&wgpu::Buffer> {
        self.bodies.as_ref().map(|b| &b.buffers.states)
    }

    /// What covers each column (`Cover` per column), None without bodies.
    pub fn body_covers(&self) -> Option<&wgpu::Buffer> {
        self.bodies.as_ref().map(|b| &b.buffers.cover)
    }

    /// The particles in flight (`Particle`, 32 B each; the first `count` live, `count` in
    /// `draw_args`), and the indirect draw args `[6, count, 0, 0]`: None without spray.
    pub fn particle_buffers(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer)> {
        self.spray.as_ref().map(|(_, b, _)| (&b.particles, &b.draw))
    }

    /// Its buffers (what `Water`'s in-place edits bind).
    pub(crate) fn buffers(&self) -> &PipeBuffers {
        &self.buffers
    }

    /// The columns' size and unit, as the in-place edits take them.
    pub(crate) fn edit_params(&self) -> crate::models::pipes::edit::PipeEditParams {
        crate::models::pipes::edit::PipeEditParams {
            nx: self.scene.grid.nx,
            columns: self.columns.top_floor.len() as u32,
            layers: self.columns.layers,
            unit: self.columns.quantum as f32,
            per_unit: (1.0 / self.columns.quantum) as f32,
            _pad: [0; 3],
        }
    }

    /// The columns it runs (as the scene built them).
    pub(crate) fn columns(&self) -> &Columns {
        &self.columns
    }

    /// The device it runs on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue it submits to.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Records the totals after what `encoder` holds, submits it and reads the report back: the
    /// columns' water and the exchange (since it was last cleared), the spray's tally, and the
    /// last `steps` probe rows.
    fn report(&mut self, mut encoder: wgpu::CommandEncoder, steps: u32) -> Result<ChunkReport> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            self.pipes.totals(&mut pass);
            if let Some((_, b, spray)) = &self.spray {
                spray.totals(&mut pass, b);
            }
        }
        // The chunk's one readback: the totals' partials, the spray's tally, then this chunk's
        // probe rows.
        let partial_bytes = self.buffers.totals_bytes();
        let probe_bytes = (steps * self.n_probes * 4) as u64;
        encoder.copy_buffer_to_buffer(&self.buffers.partials, 0, &self.report_readback, 0, partial_bytes);
        if let Some((_, b, _)) = &self.spray {
            encoder.copy_buffer_to_buffer(&b.tally, 0, &self.report_readback, partial_bytes, TALLY_BYTES);
        }
        if probe_bytes > 0 {
            encoder.copy_buffer_to_buffer(
                &self.buffers.history,
                0,
                &self.report_readback,
                partial_bytes + TALLY_BYTES,
                probe_bytes,
            );
        }
        // Then each body after each step.
        let body_bytes = self.bodies.as_ref().map_or(0, |b| {
            (steps * b.buffers.count) as u64 * crate::engine::bodies::HISTORY_FLOATS as u64 * 4
        });
        if let Some(b) = self.bodies.as_ref().filter(|_| body_bytes > 0) {
            let at = partial_bytes + TALLY_BYTES + probe_bytes;
            encoder.copy_buffer_to_buffer(&b.buffers.history, 0, &self.report_readback, at, body_bytes);
        }
        self.queue.submit([encoder.finish()]);
        let total = partial_bytes + TALLY_BYTES + probe_bytes + body_bytes;
        let bytes = crate::engine::gpu::readback::map(&self.device, &self.report_readback, total)?;
        let (partial_bytes, rest) = bytes.split_at(partial_bytes as usize);
        let (tally_bytes, rest) = rest.split_at(TALLY_BYTES as usize);
        let (probe_bytes, body_history) = rest.split_at(probe_bytes as usize);
        let partials: Vec<[u32; 8]> = bytemuck::pod_collect_to_vec(partial_bytes);
        let probes: Vec<f32> = bytemuck::pod_collect_to_vec(probe_bytes);
        let spray = self.spray.as_ref().map(|_| {
            let tally: Vec<u32> = bytemuck::pod_collect_to_vec(tally_bytes);
            SprayReport::from_tally(&tally)
        });
        if let Some(s) = spray {
            self.particles = s.count;
        }
        if let Some(e) = crate::engine::gpu::context::caught(scope.pop()) {
            return Err(Error::Gpu(e.to_string()));
        }
        let (mut water, mut exchange, mut deepest, mut bad) = (0u64, 0i64, 0u32, 0u32);
        for g in &partials {
            water += g[0] as u64 + ((g[1] as u64) << 16);
            exchange += g[2] as i64 + ((g[3] as i64) << 16) + ((g[4] as i32 as i64) << 32);
            deepest = deepest.max(g[5]);
            bad += g[6];
        }
        Ok(ChunkReport {
            // Velocities are checked once per chunk: a chunk that went bad is reported at its end.
            first_bad_step: (bad != 0).then_some(steps.saturating_sub(1)),
            totals: Totals {
                max_depth: (deepest as f64 * self.columns.quantum) as f32,
                nonfinite: bad,
                ..Totals::default()
            },
            probes,
            bodies: bytemuck::pod_collect_to_vec(body_history),
            model: ModelReport::Pipes {
                water_units: (water, exchange),
                spray,
            },
            ..ChunkReport::default()
        })
    }

    /// What the run holds now, read back with no steps (an embedded `Water`'s checks): the
    /// columns' water, the exchange since it was last cleared (an embedded run never clears it),
    /// the particles in flight and any non-finite velocity.
    pub fn read_books(&mut self) -> Result<ChunkReport> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        if let Some((_, b, _)) = &self.spray {
            encoder.clear_buffer(&b.tally, 0, None);
        }
        self.report(encoder, 0)
    }

    /// A CPU twin's state of these columns at rest, with this run's feed: the layout a checkpoint
    /// holds.
    /// Whether the scene has `[rainfall]` (the rain pass then carries each column's fraction).
    fn raining(&self) -> bool {
        self.rain.as_ref().is_some_and(|r| r.raining())
    }

    fn twin(&self) -> PipeState {
        PipeState::new(&self.columns, self.columns.feed(&self.scene, self.substeps))
    }

    /// The twin's state holding the water and the cells' velocities read back (the GPU's
    /// layer-major bytes).
    fn twin_holding(&self, water: &[u8], vel: &[u8]) -> PipeState {
        let mut twin = self.twin();
        let l = twin.layers;
        twin.water = twin.in_twin_layout(&bytemuck::pod_collect_to_vec(water), l);
        twin.vel = twin.in_twin_layout(&bytemuck::pod_collect_to_vec(vel), l);
        twin
    }
}

impl Solver for GpuPipes {
    fn set_params(&mut self, params: &Params) -> Result<()> {
        self.params = pipe_params(&self.scene, &self.columns, params.substeps, self.n_probes);
        self.substeps = params.substeps;
        self.queue
            .write_buffer(&self.buffers.params, 0, bytemuck::bytes_of(&self.params));
        let feed = self.columns.feed(&self.scene, params.substeps);
        self.queue
            .write_buffer(&self.buffers.feed, 0, bytemuck::cast_slice(&feed));
        Ok(())
    }

    /// The pipes carry velocities, not per-substep changes: nothing to rescale.
    fn rescale_velocity(&mut self, _factor: f32) -> Result<()> {
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        // The chunk reports what the sources, drains and sides made during it.
        encoder.clear_buffer(&self.buffers.exchange, 0, None);
        self.record_chunk(
            &mut encoder,
            steps,
            substeps,
            input.first_step,
            &input.rain,
            &input.pressure,
        );
        self.report(encoder, steps)
    }

    fn read_soil(&mut self) -> Result<Vec<f32>> {
        match &self.rain {
            Some(r) if r.soaking() => Ok(bytemuck::pod_collect_to_vec(&crate::engine::gpu::readback::read(
                &self.device,
                &self.queue,
                &r.soil,
            )?)),
            _ => Ok(Vec::new()),
        }
    }

    fn read_summary(&mut self) -> Result<Vec<crate::summary::SummaryCell>> {
        match &self.summary {
            Some((_, maps, _)) => Ok(bytemuck::pod_collect_to_vec(&crate::engine::gpu::readback::read(
                &self.device,
                &self.queue,
                maps,
            )?)),
            None => Ok(Vec::new()),
        }
    }

    fn read_cover(&mut self) -> Result<Vec<crate::engine::bodies::Cover>> {
        match &self.bodies {
            Some(b) => Ok(b.buffers.read(&self.device, &self.queue)?.0),
            None => Ok(Vec::new()),
        }
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            self.pipes.surface(&mut pass);
        }
        let bytes = self.buffers.eta.size();
        encoder.copy_buffer_to_buffer(&self.buffers.eta, 0, &self.eta_readback, 0, bytes);
        self.queue.submit([encoder.finish()]);
        let surface = crate::engine::gpu::readback::map(&self.device, &self.eta_readback, bytes)?;
        Ok(bytemuck::pod_collect_to_vec(&surface))
    }

    fn query(&mut self, dx: f32, points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let answer = self.record_query(&mut encoder, dx, points);
        crate::engine::gpu::query::submit_and_read(&self.device, &self.queue, encoder, &answer, points.len())
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(Vec::new())
    }

    /// The columns' water and cells' velocities read back (one submit), weighted as the twin's.
    fn read_velocity(&mut self) -> Result<Option<Vec<[f32; 2]>>> {
        let b = &self.buffers;
        let ranges = [(&b.water, 0, b.water.size()), (&b.vel, 0, b.vel.size())];
        let [water, vel] = crate::engine::gpu::readback::read_ranges(&self.device, &self.queue, &ranges)?
            .try_into()
            .expect("one read per range");
        Ok(Some(crate::models::pipes::state::velocities(
            &self.twin_holding(&water, &vel),
        )))
    }

    fn read_particles(&mut self) -> Result<Vec<Particle>> {
        let Some((_, b, _)) = &self.spray else {
            return Ok(Vec::new());
        };
        // At output steps only: the live particles.
        let bytes = self.particles as u64 * std::mem::size_of::<Particle>() as u64;
        let read = crate::engine::gpu::readback::read_ranges(&self.device, &self.queue, &[(&b.particles, 0, bytes)])?;
        Ok(bytemuck::pod_collect_to_vec(&read[0]))
    }

    /// Reads the state back into the CPU twin's layout, so that a checkpoint resumes on either.
    fn save(&mut self) -> Result<SolverState> {
        let b = &self.buffers;
        // Every field with one staging buffer, one submit and one wait; an absent one is an
        // empty range.
        fn whole(buffer: &wgpu::Buffer) -> (&wgpu::Buffer, u64, u64) {
            (buffer, 0, buffer.size())
        }
        let none = (&b.water, 0, 0);
        let carry = match &self.rain {
            Some(r) if self.raining() => whole(&r.carry),
            _ => none,
        };
        let summary = self.summary.as_ref().map_or(none, |(_, maps, _)| whole(maps));
        let (soil, owed) = match &self.rain {
            Some(r) if r.soaking() => (whole(&r.soil), whole(&r.owed)),
            _ => (none, none),
        };
        let particles = self.spray.as_ref().map_or(none, |(_, spray, _)| {
            (
                &spray.particles,
                0,
                self.particles as u64 * std::mem::size_of::<Particle>() as u64,
            )
        });
        let ranges = [
            whole(&b.water),
            whole(&b.vel),
            whole(&b.flow),
            whole(&b.feed),
            carry,
            summary,
            particles,
            soil,
            owed,
            self.bodies.as_ref().map_or(none, |b| whole(&b.buffers.states)),
            self.bodies.as_ref().map_or(none, |b| whole(&b.buffers.cover)),
        ];
        let [water, vel, flow, feed, carry, summary, particles, soil, owed, bodies, cover] =
            crate::engine::gpu::readback::read_ranges(&self.device, &self.queue, &ranges)?
                .try_into()
                .expect("one read per range");
        let mut twin = self.twin_holding(&water, &vel);
        let l = twin.layers;
        twin.flow = twin.in_twin_layout(&bytemuck::pod_collect_to_vec(&flow), 8 * l * l);
        twin.feed = bytemuck::pod_collect_to_vec(&feed);
        let particles: Vec<Particle> = bytemuck::pod_collect_to_vec(&particles);
        Ok(SolverState {
            bodies: bytemuck::pod_collect_to_vec(&bodies),
            cover: bytemuck::pod_collect_to_vec(&cover),
            pipe_rain_carry: bytemuck::pod_collect_to_vec(&carry),
            summary: bytemuck::pod_collect_to_vec(&summary),
            soil: bytemuck::pod_collect_to_vec(&soil),
            pipe_soil_owed: bytemuck::pod_collect_to_vec(&owed),
            ..twin.save(&particles)
        })
    }

    fn load(&mut self, saved: &SolverState) -> Result<()> {
        let mut twin = self.twin();
        twin.load(saved)?;
        let l = twin.layers;
        let b = &self.buffers;
        let write = |buffer: &wgpu::Buffer, bytes: &[u8]| self.queue.write_buffer(buffer, 0, bytes);
        write(&b.water, bytemuck::cast_slice(&twin.to_gpu_layout(&twin.water, l)));
        write(&b.vel, bytemuck::cast_slice(&twin.to_gpu_layout(&twin.vel, l)));
        write(
            &b.flow,
            bytemuck::cast_slice(&twin.to_gpu_layout(&twin.flow, 8 * l * l)),
        );
        write(&b.feed, bytemuck::cast_slice(&twin.feed));
        if let Some(r) = self.rain.as_ref().filter(|_| !saved.pipe_rain_carry.is_empty()) {
            write(&r.carry, bytemuck::cast_slice(&saved.pipe_rain_carry));
        }
        if let Some(r) = self.rain.as_ref().filter(|r| r.soaking()) {
            write(&r.soil, bytemuck::cast_slice(&saved.soil));
            write(&r.owed, bytemuck::cast_slice(&saved.pipe_soil_owed));
        }
        if let Some(b) = &self.bodies {
            write(&b.buffers.states, bytemuck::cast_slice(&saved.bodies));
            write(&b.buffers.cover, bytemuck::cast_slice(&saved.cover));
        }
        if let Some((_, maps, _)) = self.summary.as_ref().filter(|_| !saved.summary.is_empty()) {
            write(maps, bytemuck::cast_slice(&saved.summary));
        }
        if let Some((p, spray, _)) = &self.spray {
            let n = saved.particles.len() as u32;
            if n > p.capacity {
                return Err(Error::Unsupported(format!(
                    "{n} particles in flight, over this scene's spray.capacity = {}",
                    p.capacity
                )));
            }
            if n > 0 {
                write(&spray.particles, bytemuck::cast_slice(&saved.particles));
            }
            // The live count, as `copy` leaves it: the per-particle passes' dispatch and the draw.
            write(&spray.args_now, bytemuck::cast_slice(&[n.div_ceil(64).max(1), 1, 1, n]));
            write(&spray.draw, bytemuck::cast_slice(&[6u32, n, 0, 0]));
            self.particles = n;
        }
        Ok(())
    }

    fn device_and_queue(&self) -> Option<(wgpu::Device, wgpu::Queue)> {
        Some((self.device.clone(), self.queue.clone()))
    }
    fn describe(&self) -> String {
        self.adapter.clone()
    }

    fn start_profile(&mut self) -> std::result::Result<(), String> {
        Err("the pipes model's GPU passes take no timestamps yet; the figures are the wall clock's".into())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// The summary maps' fold over the columns' surface: the pass, its maps (from the start's
/// surface) and the step slots' bind group.
fn summary_pass(
    device: &wgpu::Device,
    setup: &PipeSetup,
    params: &PipeParams,
    buffers: &PipeBuffers,
    ground: &wgpu::Buffer,
    wet: f32,
) -> (crate::engine::gpu::summary::Summary, wgpu::Buffer, wgpu::BindGroup) {
    let twin = PipeState::new(setup.columns, setup.columns.feed(setup.scene, setup.params.substeps));
    let first = crate::summary::initial(&crate::models::pipes::state::surface(params, &twin), setup.ground, wet);
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let maps = crate::engine::gpu::binding::filled_buffer(device, "pipes summary", bytemuck::cast_slice(&first), usage);
    let slot_layout = crate::engine::gpu::binding::slot_layout(device, "summary slot");
    let source = crate::engine::gpu::summary::SummarySource {
        ground,
        levels: [&buffers.eta, &buffers.eta],
        summary: &maps,
        cells: params.columns,
    };
    let pass = crate::engine::gpu::summary::Summary::new(device, source, &slot_layout, wet);
    let slots = crate::engine::gpu::binding::slot_bind_group(device, &slot_layout, &buffers.slots);
    (pass, maps, slots)
}
