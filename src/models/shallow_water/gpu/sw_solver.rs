//! The shallow-water model on the GPU: a chunk of steps recorded into one submit (two dispatches
//! a substep, a probe pass and the flood maps' fold a step), and one readback at its end (the
//! books and the probes' rows), none per step.

use crate::engine::params::Totals;
use crate::engine::schedule::{ModelRun, Pass, Schedule};
use crate::engine::solver::{ChunkInput, ChunkReport, ModelReport, Setup, Solver, SolverState};
use crate::error::{Error, Result};
use crate::models::shallow_water::books::fed_target;
use crate::models::shallow_water::gpu::shallow_water::{ShallowWater, SwBuffers, BOOK_WORDS};
use crate::models::shallow_water::gpu::sw_bodies::SwBodies;
use crate::models::shallow_water::gpu::sw_feed::SwFeed;
use crate::models::shallow_water::gpu::sw_maps::SwMaps;
use crate::models::shallow_water::setup::{FlowMapParams, SwParams, SwSetup};
use crate::models::shallow_water::state::SwState;
use crate::summary::SummaryCell;

/// The shallow-water model's GPU backend, on a device it borrows.
pub struct GpuSw {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: String,
    setup: SwSetup,
    params: SwParams,
    ground: Vec<f32>,
    buffers: SwBuffers,
    pass: ShallowWater,
    /// What the scene feeds the water (None: nothing).
    feed: Option<SwFeed>,
    /// `[[pressure]]`: each step's air-pressure head after the ground (None: no patches).
    pressure: Option<crate::engine::gpu::pressure::Pressure>,
    schedule: Schedule,
    n_probes: u32,
    /// `[output] summary`: the fold and its maps, and the speed and hazard maps.
    summary: Option<(crate::engine::gpu::summary::Summary, wgpu::Buffer)>,
    flow_maps: Option<SwMaps>,
    /// Staging for a chunk's report: the books, then the probes' rows.
    report_readback: wgpu::Buffer,
    /// The height queries' pass on level 0's surface, built at the first query.
    query: Option<crate::engine::gpu::query::Query>,
    /// `shoal run --profile`'s timestamps (None until asked), and whether the next chunks take them.
    profiler: Option<crate::engine::gpu::profile::Profiler>,
    timing: bool,
    /// The scene's parameters as the cost model reads them (the profile's bytes per pass).
    cost_params: crate::engine::params::Params,
    /// Copies of `chunk_state` as the chunk started (`hold_chunk_start`; made at the first), and
    /// whether the next chunk's submit copies into them first.
    held: Vec<wgpu::Buffer>,
    holding: bool,
    /// The bodies (None: the scene has none).
    bodies: Option<SwBodies>,
}

impl GpuSw {
    /// The backend for `setup` on `device`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        adapter: String,
        setup: &Setup,
        sw: &SwSetup,
    ) -> Result<GpuSw> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let params = sw.params(setup.params.substeps);
        let mut state = SwState::new(setup.eta, setup.ground, &sw.velocity);
        if params.infiltration != 0 {
            state.soil = vec![0.0; crate::engine::infiltration::SOIL_FLOATS * state.cells()];
        }
        let stage_ground = crate::models::shallow_water::setup::stage_ground(setup.ground, sw);
        let buffers = SwBuffers::new(device, &params, &stage_ground, &state, setup.probe_cells);
        let pass = ShallowWater::new(device, &buffers, &params);
        let feed = (setup.rain || params.infiltration != 0).then(|| {
            let max_chunk = crate::engine::params::MAX_CHUNK;
            SwFeed::new(
                device,
                crate::models::shallow_water::gpu::sw_feed::FeedBuffers::of(&buffers),
                &pass.slot_layout,
                &params,
                setup.rainfall_map,
                max_chunk,
            )
        });
        let pressure = (setup.pressure_patches > 0).then(|| {
            crate::engine::gpu::pressure::Pressure::new(
                device,
                [params.nx, params.ny],
                &buffers.ground,
                &pass.slot_layout,
                setup.pressure_patches,
                params.air_at,
            )
        });
        let summary = setup.summary.map(|wet| {
            let maps = crate::summary::initial(&state.eta, setup.ground, wet);
            let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
            let maps =
                crate::engine::gpu::binding::filled_buffer(device, "sw flood maps", bytemuck::cast_slice(&maps), usage);
            let source = crate::engine::gpu::summary::SummarySource {
                ground: &buffers.ground,
                levels: [&buffers.levels[0][0], &buffers.levels[0][0]],
                summary: &maps,
                cells: params.cells,
            };
            let fold = crate::engine::gpu::summary::Summary::new(device, source, &pass.slot_layout, wet);
            (fold, maps)
        });
        let flow_maps = setup.summary.map(|wet_depth| {
            let fp = FlowMapParams {
                cells: params.cells,
                wet_depth,
                film: params.film,
                _pad: 0,
            };
            SwMaps::new(device, &buffers, &fp, &vec![0.0; 2 * params.cells as usize])
        });
        let n_probes = setup.probe_cells.len() as u32;
        let bodies = (!setup.bodies.is_empty()).then(|| SwBodies::new(device, setup, &buffers));
        let report_readback = crate::engine::gpu::readback::buffer(
            device,
            "sw report readback",
            BOOK_WORDS * 4
                + n_probes.max(1) as u64 * crate::engine::params::MAX_CHUNK as u64 * 4
                + bodies.as_ref().map_or(0, |b| b.buffers.history.size()),
        );
        if let Some(e) = crate::engine::gpu::context::caught(scope.pop()) {
            return Err(Error::Gpu(e.to_string()));
        }
        Ok(GpuSw {
            device: device.clone(),
            queue: queue.clone(),
            adapter,
            setup: sw.clone(),
            params,
            ground: setup.ground.to_vec(),
            buffers,
            pass,
            feed,
            pressure,
            schedule: Schedule::new(ModelRun::ShallowWater, &setup.params, setup.rain),
            n_probes,
            summary,
            flow_maps,
            report_readback,
            query: None,
            profiler: None,
            timing: false,
            cost_params: setup.params,
            held: Vec::new(),
            holding: false,
            bodies,
        })
    }

    /// The step slots of `steps` steps from `first_step`.
    fn slots(&self, steps: u32, first_step: u64) -> Vec<crate::models::shallow_water::setup::SwSlot> {
        (0..steps).map(|k| self.setup.slot(first_step + k as u64, k)).collect()
    }

    /// Records a chunk of `steps` steps into `encoder` inside a host's frame (`Water`): its
    /// feeds, pressure and slots staged as copies in `encoder`, so chunks recorded back to back
    /// before one submit each read their own; no readback (the books stay on the GPU).
    pub fn record_embedded(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        steps: u32,
        substeps: u32,
        input: &ChunkInput,
    ) {
        if let Some(feed) = &mut self.feed {
            feed.stage(&self.device, encoder, &input.rain);
        }
        if let Some(air) = &self.pressure {
            air.stage(encoder, &input.pressure);
        }
        let slots = self.slots(steps, input.first_step);
        self.buffers.stage_slots(encoder, &slots);
        self.record_chunk(encoder, steps, substeps, input.first_step, None);
    }

    /// Records a chunk of `steps` steps into `encoder` (its slots, feeds and pressure in place):
    /// one compute pass for them all, or while `profiler` times them, one per pass with its
    /// timestamps.
    /// The buffers a chunk changes: level 0's surface and discharges, the carry, the soil, the
    /// flood and flow maps where the run keeps them, and the bodies and their covers.
    fn chunk_state(&self) -> Vec<&wgpu::Buffer> {
        let mut buffers: Vec<&wgpu::Buffer> = self.buffers.levels[0].iter().collect();
        buffers.extend([&self.buffers.carry, &self.buffers.soil]);
        buffers.extend(self.summary.as_ref().map(|(_, maps)| maps));
        buffers.extend(self.flow_maps.as_ref().map(|m| &m.maps));
        if let Some(b) = &self.bodies {
            buffers.extend([&b.buffers.states, &b.buffers.cover]);
        }
        buffers
    }

    fn record_chunk(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        steps: u32,
        substeps: u32,
        first_step: u64,
        profiler: Option<&mut crate::engine::gpu::profile::Profiler>,
    ) {
        if let Some((fold, _)) = &self.summary {
            fold.stage(encoder, first_step);
        }
        encoder.clear_buffer(&self.buffers.books, 0, None);
        let Some(profiler) = profiler else {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("shoal shallow water"),
                timestamp_writes: None,
            });
            for step in 0..steps {
                for p in self.schedule.step(substeps) {
                    self.record_pass(&mut pass, p, step);
                }
            }
            self.pass.totals(&mut pass);
            return;
        };
        let bodies = crate::engine::bodies::BodyParams::default();
        for step in 0..steps {
            for p in self.schedule.step(substeps) {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(p.name()),
                    timestamp_writes: profiler.time(p, p.name(), &self.cost_params, &bodies, false),
                });
                self.record_pass(&mut pass, p, step);
            }
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("chunk end"),
            // The totals: eta, qx, qy and the ground read once, one dispatch.
            timestamp_writes: profiler.writes("chunk end", 16, 1),
        });
        self.pass.totals(&mut pass);
    }

    /// Records pass `p` of step `step` of the chunk.
    fn record_pass(&self, pass: &mut wgpu::ComputePass, p: Pass, step: u32) {
        let offset = step * self.buffers.slot_stride;
        match p {
            Pass::ShallowWater => self.pass.substep(pass, offset),
            Pass::SwFeed => {
                let feed = self.feed.as_ref().expect("the schedule feeds only with feeds");
                feed.record(pass, self.pass.slot(), step, offset);
            }
            Pass::Pressure => {
                let air = self.pressure.as_ref().expect("the schedule presses only with patches");
                air.record(pass, self.pass.slot(), offset);
            }
            Pass::Probe => self.pass.probe(pass, offset),
            Pass::Summary => {
                let (fold, _) = self.summary.as_ref().expect("the schedule folds only with summary");
                fold.record(pass, self.pass.slot(), 0, offset);
            }
            Pass::SwMaps => {
                let maps = self.flow_maps.as_ref().expect("the schedule folds only with summary");
                maps.record(pass);
            }
            Pass::SwPress | Pass::Footprint | Pass::SwLoads | Pass::Integrate => {
                let bodies = self
                    .bodies
                    .as_ref()
                    .expect("the schedule has body passes only with bodies");
                bodies.record(pass, p, offset);
            }
            other => unreachable!("{other:?} is not a pass of the shallow-water model"),
        }
    }

    /// Submits `encoder` with the copies of the books and the chunk's probe rows, and reads them.
    fn report(&self, mut encoder: wgpu::CommandEncoder, steps: u32, target: f64) -> Result<ChunkReport> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let book_bytes = BOOK_WORDS * 4;
        let probe_bytes = (steps * self.n_probes * 4) as u64;
        let body_bytes = self.bodies.as_ref().map_or(0, |b| {
            (steps * b.buffers.count) as u64 * crate::engine::bodies::HISTORY_FLOATS as u64 * 4
        });
        let rb = &self.report_readback;
        encoder.copy_buffer_to_buffer(&self.buffers.books, 0, rb, 0, book_bytes);
        if probe_bytes > 0 {
            encoder.copy_buffer_to_buffer(&self.buffers.history, 0, rb, book_bytes, probe_bytes);
        }
        if let Some(b) = self.bodies.as_ref().filter(|_| body_bytes > 0) {
            encoder.copy_buffer_to_buffer(&b.buffers.history, 0, rb, book_bytes + probe_bytes, body_bytes);
        }
        self.queue.submit([encoder.finish()]);
        let bytes = crate::engine::gpu::readback::map(&self.device, rb, book_bytes + probe_bytes + body_bytes)?;
        if let Some(e) = crate::engine::gpu::context::caught(scope.pop()) {
            return Err(Error::Gpu(e.to_string()));
        }
        let (books, rest) = bytes.split_at(book_bytes as usize);
        let (probes, body_history) = rest.split_at(probe_bytes as usize);
        let books: Vec<u32> = bytemuck::pod_collect_to_vec(books);
        use crate::wgsl::shallow_water::{BOOK_COURANT, BOOK_DEEPEST, BOOK_NONFINITE};
        let nonfinite = books[BOOK_NONFINITE as usize];
        Ok(ChunkReport {
            // Checked once per chunk: a chunk that went bad is reported at its end.
            first_bad_step: (nonfinite != 0).then_some(steps.saturating_sub(1)),
            totals: Totals {
                max_depth: f32::from_bits(books[BOOK_DEEPEST as usize]),
                nonfinite,
                ..Totals::default()
            },
            probes: bytemuck::pod_collect_to_vec(probes),
            target,
            model: ModelReport::Shallow {
                courant: f32::from_bits(books[BOOK_COURANT as usize]),
            },
            bodies: bytemuck::pod_collect_to_vec(body_history),
            ..ChunkReport::default()
        })
    }

    /// The bodies' states (`BodyState` per body), None without bodies: `Water` binds them and
    /// stages a host's moves into them.
    pub fn body_states(&self) -> Option<&wgpu::Buffer> {
        self.bodies.as_ref().map(|b| &b.buffers.states)
    }

    /// The device the state lives on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// Its queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The state's buffers, for `Water`'s passes and the hosts that bind them.
    pub fn buffers(&self) -> &SwBuffers {
        &self.buffers
    }

    /// Records a height query on the state into `encoder` (`Water::query`): its answer's buffer.
    pub fn record_query(&mut self, encoder: &mut wgpu::CommandEncoder, dx: f32, points: &[[f32; 2]]) -> wgpu::Buffer {
        let device = self.device.clone();
        self.query_pass().record(&device, encoder, 0, dx, points)
    }

    /// The query pass on level 0's surface, built at the first query.
    fn query_pass(&mut self) -> &mut crate::engine::gpu::query::Query {
        let (device, buffers, p) = (&self.device, &self.buffers, &self.params);
        self.query.get_or_insert_with(|| {
            let source = crate::engine::gpu::query::QuerySource {
                nx: p.nx,
                ny: p.ny,
                ground: &buffers.ground,
                levels: &[&buffers.levels[0][0]],
            };
            crate::engine::gpu::query::Query::new(device, source)
        })
    }

    /// The books as the last chunk left them: (Courant number, non-finite cells), read back.
    pub fn read_books(&self) -> Result<(f32, u32)> {
        let bytes = crate::engine::gpu::readback::read(&self.device, &self.queue, &self.buffers.books)?;
        let books: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        use crate::wgsl::shallow_water::{BOOK_COURANT, BOOK_NONFINITE};
        Ok((
            f32::from_bits(books[BOOK_COURANT as usize]),
            books[BOOK_NONFINITE as usize],
        ))
    }

    /// Level 0's surface and discharges, the carry, and the soil's state with `[infiltration]`.
    fn read_state(&self) -> Result<SwState> {
        let [eta, qx, qy] = &self.buffers.levels[0];
        let (carry, soil) = (&self.buffers.carry, &self.buffers.soil);
        let infiltrating = self.params.infiltration != 0;
        let read = crate::engine::gpu::readback::read_whole(
            &self.device,
            &self.queue,
            &[Some(eta), Some(qx), Some(qy), Some(carry), infiltrating.then_some(soil)],
        )?;
        Ok(SwState {
            eta: bytemuck::pod_collect_to_vec(&read[0]),
            qx: bytemuck::pod_collect_to_vec(&read[1]),
            qy: bytemuck::pod_collect_to_vec(&read[2]),
            carry: bytemuck::pod_collect_to_vec(&read[3]),
            soil: match infiltrating {
                true => bytemuck::pod_collect_to_vec(&read[4]),
                false => Vec::new(),
            },
        })
    }
}

impl Solver for GpuSw {
    fn set_params(&mut self, params: &crate::engine::params::Params) -> Result<()> {
        self.params = self.setup.params(params.substeps);
        self.queue
            .write_buffer(&self.buffers.params, 0, bytemuck::bytes_of(&self.params));
        Ok(())
    }

    /// The model carries discharges, not per-substep changes: nothing to rescale.
    fn rescale_velocity(&mut self, _factor: f32) -> Result<()> {
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        if let Some(feed) = &mut self.feed {
            feed.upload(&self.device, &self.queue, &input.rain);
        }
        if let Some(air) = &self.pressure {
            air.upload(&self.queue, &input.pressure);
        }
        self.buffers
            .write_slots(&self.queue, &self.slots(steps, input.first_step));
        let mut encoder = self.device.create_command_encoder(&Default::default());
        if std::mem::take(&mut self.holding) {
            for (from, to) in self.chunk_state().into_iter().zip(&self.held) {
                encoder.copy_buffer_to_buffer(from, 0, to, 0, from.size());
            }
        }
        let mut profiler = if self.timing { self.profiler.take() } else { None };
        self.record_chunk(&mut encoder, steps, substeps, input.first_step, profiler.as_mut());
        let fed_bytes = match &mut self.feed {
            Some(feed) => feed.stage_back(&self.device, &mut encoder, &input.rain),
            None => 0,
        };
        if let Some(profiler) = &profiler {
            profiler.resolve(&mut encoder);
        }
        // One submit and one wait: the report's; the entries' copy and the timestamps ride in
        // the same submit.
        let report = self.report(encoder, steps, input.target);
        if let Some(mut profiler) = profiler {
            if report.is_ok() {
                profiler.collect(&self.device)?;
            }
            self.profiler = Some(profiler);
        }
        let report = report?;
        let heights = match &self.feed {
            Some(feed) => feed.heights_after(&self.device, fed_bytes, &input.rain)?,
            None => input.rain.heights.clone(),
        };
        Ok(ChunkReport {
            target: fed_target(input, &heights),
            ..report
        })
    }

    fn hold_chunk_start(&mut self) -> Result<bool> {
        if self.held.is_empty() {
            let held: Vec<wgpu::Buffer> = self
                .chunk_state()
                .iter()
                .map(|b| {
                    self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("sw chunk start"),
                        size: b.size(),
                        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                })
                .collect();
            self.held = held;
        }
        self.holding = true;
        Ok(true)
    }

    fn undo_chunk(&mut self) -> Result<()> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for (to, from) in self.chunk_state().into_iter().zip(&self.held) {
            encoder.copy_buffer_to_buffer(from, 0, to, 0, from.size());
        }
        self.queue.submit([encoder.finish()]);
        Ok(())
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        let bytes = crate::engine::gpu::readback::read(&self.device, &self.queue, &self.buffers.levels[0][0])?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// `query.wgsl` on level 0's surface, which means what the height field's does.
    fn query(&mut self, dx: f32, points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        let queue = self.queue.clone();
        let device = self.device.clone();
        self.query_pass().answer(&device, &queue, 0, dx, points)
    }

    fn read_velocity(&mut self) -> Result<Option<Vec<[f32; 2]>>> {
        let state = self.read_state()?;
        Ok(Some(state.velocities(self.params.film, &self.ground)))
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(Vec::new())
    }

    fn read_cover(&mut self) -> Result<Vec<crate::engine::bodies::Cover>> {
        match &self.bodies {
            Some(b) => Ok(b.buffers.read(&self.device, &self.queue)?.0),
            None => Ok(Vec::new()),
        }
    }

    fn read_summary(&mut self) -> Result<Vec<SummaryCell>> {
        match &self.summary {
            Some((_, maps)) => Ok(bytemuck::pod_collect_to_vec(&crate::engine::gpu::readback::read(
                &self.device,
                &self.queue,
                maps,
            )?)),
            None => Ok(Vec::new()),
        }
    }

    fn read_flow_maps(&mut self) -> Result<Vec<[f32; 2]>> {
        match &self.flow_maps {
            Some(m) => Ok(bytemuck::pod_collect_to_vec(&crate::engine::gpu::readback::read(
                &self.device,
                &self.queue,
                &m.maps,
            )?)),
            None => Ok(Vec::new()),
        }
    }

    fn read_soil(&mut self) -> Result<Vec<f32>> {
        if self.params.infiltration == 0 {
            return Ok(Vec::new());
        }
        let bytes = crate::engine::gpu::readback::read(&self.device, &self.queue, &self.buffers.soil)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    fn save(&mut self) -> Result<SolverState> {
        let flow: Vec<[f32; 2]> = self.read_flow_maps()?;
        let (cover, bodies) = match &self.bodies {
            Some(b) => b.buffers.read(&self.device, &self.queue)?,
            None => Default::default(),
        };
        Ok(SolverState {
            summary: self.read_summary()?,
            sw_flow_maps: bytemuck::cast_slice(&flow).to_vec(),
            bodies,
            cover,
            ..self.read_state()?.save()
        })
    }

    fn load(&mut self, saved: &SolverState) -> Result<()> {
        let mut state = self.read_state()?;
        state.load(saved)?;
        let [eta, qx, qy] = &self.buffers.levels[0];
        self.queue.write_buffer(eta, 0, bytemuck::cast_slice(&state.eta));
        self.queue.write_buffer(qx, 0, bytemuck::cast_slice(&state.qx));
        self.queue.write_buffer(qy, 0, bytemuck::cast_slice(&state.qy));
        self.queue
            .write_buffer(&self.buffers.carry, 0, bytemuck::cast_slice(&state.carry));
        if !state.soil.is_empty() {
            self.queue
                .write_buffer(&self.buffers.soil, 0, bytemuck::cast_slice(&state.soil));
        }
        if let Some((_, maps)) = &self.summary {
            if saved.summary.len() == self.ground.len() {
                self.queue.write_buffer(maps, 0, bytemuck::cast_slice(&saved.summary));
            }
        }
        if let Some(m) = &self.flow_maps {
            if saved.sw_flow_maps.len() == 2 * self.ground.len() {
                self.queue
                    .write_buffer(&m.maps, 0, bytemuck::cast_slice(&saved.sw_flow_maps));
            }
        }
        if let Some(b) = &self.bodies {
            self.queue
                .write_buffer(&b.buffers.states, 0, bytemuck::cast_slice(&saved.bodies));
            self.queue
                .write_buffer(&b.buffers.cover, 0, bytemuck::cast_slice(&saved.cover));
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
        self.profiler = Some(crate::engine::gpu::profile::Profiler::new(&self.device, &self.queue)?);
        Ok(())
    }

    fn profile(&self) -> Option<crate::engine::solver::PassTimes> {
        self.profiler.as_ref().map(|p| p.times().clone())
    }

    fn set_timing(&mut self, on: bool) {
        self.timing = on;
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
