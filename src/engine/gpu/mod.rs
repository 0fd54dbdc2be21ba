//! The GPU backend: state in storage buffers, one struct per WGSL pass, readback only on request.
pub mod binding;
pub mod bodies;
pub mod caustics;
pub mod close;
pub mod context;
pub mod cost;
pub mod coupling;
pub mod edit;
pub mod level;
pub mod pressed;
pub mod pressure;
pub mod probe;
pub mod profile;
pub mod query;
pub mod rain;
pub mod readback;
pub mod reduce;
pub mod regions;
pub mod report;
pub mod shaders;
pub mod state;
pub mod summary;
pub mod surface;
pub mod uploads;
pub mod volume;

pub use context::GpuContext;

use crate::engine::params::Params;
use crate::engine::schedule::{Pass, Schedule};
use crate::engine::solver::{chunk_target, ChunkInput, ChunkReport, Setup, Solver, SolverState};
use crate::engine::state_table::{self, Field};
use crate::error::Result;
use crate::models::height_field::gpu::{adi, explicit};
use crate::scene::Method;
use state::{books_at, Books, GpuState};

/// Runs the passes of a step on a Device/Queue it shares with its caller (wgpu handles are
/// reference-counted clones: the caller keeps its own and can keep using them).
pub struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    params: Params,
    state: GpuState,
    level: level::LevelBindings,
    explicit: explicit::Explicit,
    /// The implicit step, built when the scene asks for `solver = "adi"`.
    adi: Option<adi::Adi>,
    reduce: reduce::Reduce,
    probe: probe::Probe,
    volume: volume::Volume,
    /// The per-region correction, built when the scene asks for `volume_correction = "regions"`.
    regions: Option<regions::Regions>,
    /// The `[[pressure]]` patches' head, built when the scene has patches.
    pressure: Option<pressure::Pressure>,
    /// The flood maps' fold, built under `[output] summary`.
    summary: Option<summary::Summary>,
    /// Height queries, built on the first.
    query: Option<query::Query>,
    /// The rigid bodies and their coupling solve, built when the scene has bodies.
    bodies: Option<(bodies::Bodies, coupling::Coupling)>,
    /// The passes of a step, in order.
    schedule: Schedule,
    /// The volume correction runs fused with the explicit step (`Schedule::fuses_correction`),
    /// and this pass closes each step (the reduction's fold, the settle, the probes).
    close: Option<close::Close>,
    /// The state fields this run holds, which `save` and `load` move (`state_table`).
    saved: Vec<Field>,
    /// The chunk's `report::Report`, then the probes' and bodies' histories: one mapping per
    /// chunk.
    report_readback: wgpu::Buffer,
    eta_readback: wgpu::Buffer,
    adapter: String,
    /// The coupling's settings, for the cost model's figures.
    body_params: crate::engine::bodies::BodyParams,
    /// Times each pass while `shoal run --profile` asks (None otherwise).
    profiler: Option<profile::Profiler>,
    /// Whether the profiler times the next chunk (`Solver::set_timing`).
    timing: bool,
}

impl GpuSolver {
    /// The GPU backend on the caller's device: the state, then every pass, built once.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, adapter: String, setup: &Setup) -> Result<GpuSolver> {
        let params = setup.params;
        let scopes = Scopes::push(device);
        let state = GpuState::new(device, setup)?;
        let readback = |label: &str, size: u64| readback::buffer(device, label, size);
        let level = level::LevelBindings::new(device, &state);
        let adi = match setup.method {
            Method::Adi => Some(adi::Adi::new(device, &level, &params)?),
            Method::Explicit => None,
        };
        let volume = volume::Volume::new(device, &state, &level);
        let regions = (params.regions != 0).then(|| regions::Regions::new(device, &state));
        let bodies = (!setup.bodies.is_empty()).then(|| {
            (
                bodies::Bodies::new(device, &state.body_surface(), &state.bodies),
                coupling::Coupling::new(device, &state.body_surface(), &state.bodies, &setup.body_params),
            )
        });
        let history_bytes = state.bodies.history.size();
        let (pressure, summary) = forcing_passes(device, &state, &level, setup);
        let mut solver = GpuSolver {
            pressure,
            summary,
            query: None,
            bodies,
            volume,
            regions,
            explicit: explicit::Explicit::new(device, &level, &state),
            adi,
            level,
            reduce: reduce::Reduce::new(device, &state),
            probe: probe::Probe::new(device, &state),
            close: setup
                .schedule()
                .fuses_correction(&params)
                .then(|| close::Close::new(device, &state)),
            schedule: setup.schedule(),
            saved: state_table::state_fields(&state_table::Shape {
                params: &params,
                method: setup.method,
                pipes: None,
                navier_stokes: None,
                ns_spray: false,
                ns_markers: None,
                shallow_water: false,
                ns_fed: false,
            }),
            report_readback: readback(
                "report readback",
                report::HISTORY_AT + state.probe_history.size() + history_bytes,
            ),
            eta_readback: readback("eta readback", state.field_bytes()),
            device: device.clone(),
            queue: queue.clone(),
            params,
            state,
            adapter,
            body_params: setup.body_params,
            profiler: None,
            timing: false,
        };
        solver.start_regions();
        scopes.pop()?;
        Ok(solver)
    }

    /// Uploads what a chunk brings before it is recorded: the books' reset (no bad step yet, the
    /// volume target as the last chunk left it, moved by the host's edits), the rain, the
    /// pressure patches and the summary's first step.
    fn upload_chunk(&mut self, input: &ChunkInput) {
        self.queue.write_buffer(
            &self.state.books,
            books_at(Books::FirstBadStep),
            bytemuck::bytes_of(&u32::MAX),
        );
        self.volume.upload_rain(&self.device, &self.queue, &input.rain);
        if let Some(p) = &self.pressure {
            p.upload(&self.queue, &input.pressure);
        }
        if let Some(s) = &self.summary {
            s.upload(&self.queue, input.first_step);
        }
        self.set_target(input.books_target);
    }

    /// Reads one per-cell field through the field-sized staging buffer kept for output steps.
    fn read_field<T: bytemuck::Pod>(&self, field: &wgpu::Buffer) -> Result<Vec<T>> {
        let bytes = self.state.field_bytes();
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(field, 0, &self.eta_readback, 0, bytes);
        self.queue.submit([encoder.finish()]);
        Ok(bytemuck::pod_collect_to_vec(&readback::map(
            &self.device,
            &self.eta_readback,
            bytes,
        )?))
    }

    /// Labels the initial water: every region starts with its own volume as its target.
    fn start_regions(&mut self) {
        if let Some(regions) = &self.regions {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                regions.record(&mut pass, &mut self.state);
            }
            self.queue.submit([encoder.finish()]);
        }
    }

    /// The passes of step `step` of a chunk with `substeps` substeps, each with what its explicit
    /// substep fuses: with the correction fused, a step's first substep applies the correction the
    /// last step settled (none before a chunk's first: a chunk starts from a corrected level) and
    /// its last sums the level for the `Reduce` after it.
    fn plan(&self, step: u32, substeps: u32) -> impl Iterator<Item = (Pass, explicit::Fusion)> + '_ {
        let fused = self.fused();
        let mut k = 0;
        self.schedule.step(substeps).map(move |p| {
            let mut fusion = explicit::Fusion::default();
            if fused && matches!(p, Pass::Explicit { .. }) {
                fusion = explicit::Fusion {
                    corrected: k == 0 && step > 0,
                    sums: k + 1 == substeps,
                };
                k += 1;
            }
            (p, fusion)
        })
    }

    /// Records steps `from..to` of a chunk (their per-step slots) into an open pass: the
    /// schedule's substep passes `substeps` times, then its passes after them.
    fn record_steps(&mut self, pass: &mut wgpu::ComputePass, from: u32, to: u32, substeps: u32) {
        for step in from..to {
            let plan: Vec<_> = self.plan(step, substeps).collect();
            for (p, fusion) in plan {
                self.record_pass(pass, p, step, fusion);
            }
        }
    }

    /// Records steps `from..to` of a chunk into `encoder`, and when `last` the chunk's close
    /// (`record_close`): one compute pass for them all, or while profiling, one per pass with
    /// its timestamps.
    fn record_submit(&mut self, encoder: &mut wgpu::CommandEncoder, from: u32, to: u32, substeps: u32, last: bool) {
        let profiler = if self.timing { self.profiler.take() } else { None };
        let Some(mut profiler) = profiler else {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("shoal steps"),
                timestamp_writes: None,
            });
            self.record_steps(&mut pass, from, to, substeps);
            if last {
                self.record_close(&mut pass, to);
            }
            return;
        };
        for step in from..to {
            let plan: Vec<_> = self.plan(step, substeps).collect();
            for (p, fusion) in plan {
                if self.records_nothing(p) {
                    continue;
                }
                let name = if self.fused() && p == Pass::Reduce {
                    "close"
                } else {
                    p.name()
                };
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(name),
                    timestamp_writes: profiler.time(p, name, &self.params, &self.body_params, self.fused()),
                });
                self.record_pass(&mut pass, p, step, fusion);
            }
        }
        if last {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("chunk end"),
                timestamp_writes: {
                    let c = self.close_cost();
                    profiler.writes("chunk end", c.read + c.written, c.dispatches)
                },
            });
            self.record_close(&mut pass, to);
        }
        self.profiler = Some(profiler);
    }

    /// Whether the correction runs fused into the explicit step.
    fn fused(&self) -> bool {
        self.close.is_some()
    }

    /// Whether pass `p` records no dispatch: with the correction fused, `close` (recorded for the
    /// `Reduce`) settles and records the probes.
    fn records_nothing(&self, p: Pass) -> bool {
        self.fused() && matches!(p, Pass::Volume | Pass::Probe)
    }

    /// Records what ends a chunk of `steps` steps: the correction the last step settled, where
    /// the fused step left it unapplied, then the reduction the chunk's report reads.
    fn record_close(&mut self, pass: &mut wgpu::ComputePass, steps: u32) {
        if self.fused() {
            let last = steps.saturating_sub(1);
            self.volume.apply(pass, &self.level, &self.state, last);
        }
        self.reduce.reduce(pass, &self.state);
    }

    /// What `record_close` costs by the model: the reduction, and where the correction is fused
    /// the volume pass's `apply` (its bytes; one dispatch, the `settle` it leaves out is in close).
    fn close_cost(&self) -> cost::Cost {
        let reduce = cost::pass_cost(Pass::Reduce, &self.params, &self.body_params, false);
        if !self.fused() {
            return reduce;
        }
        let volume = cost::pass_cost(Pass::Volume, &self.params, &self.body_params, false);
        reduce
            + cost::Cost {
                dispatches: 1,
                ..volume
            }
    }

    /// Records one pass of step `step` (its index within the chunk).
    fn record_pass(&mut self, pass: &mut wgpu::ComputePass, p: Pass, step: u32, fusion: explicit::Fusion) {
        let slot = step * self.state.slot_stride;
        match p {
            Pass::Reduce if self.fused() => {
                let close = self.close.as_ref().expect("fused() means close was built");
                close.record(pass, &self.state, slot)
            }
            Pass::Reduce => self.reduce.reduce(pass, &self.state),
            Pass::Explicit { edges } => self.explicit.step(pass, &self.level, &self.state, slot, edges, fusion),
            Pass::Adi => {
                let adi = self.adi.as_ref().expect("the schedule runs ADI only when it was built");
                adi.step(pass, &self.level, &self.state, slot)
            }
            Pass::Footprint => self.bodies().0.footprint(pass, self.state.current, slot),
            Pass::Coupling => self.bodies().1.record(pass, self.state.current),
            Pass::Integrate => self.bodies().0.integrate(pass, self.state.current, slot),
            Pass::Regions => {
                let regions = self
                    .regions
                    .as_ref()
                    .expect("the schedule runs regions only when built");
                regions.record(pass, &mut self.state)
            }
            Pass::Volume | Pass::Probe if self.fused() => {}
            Pass::Volume => self.volume.correct(pass, &self.level, &self.state, step),
            Pass::Summary => {
                let s = self.summary.as_ref().expect("summary");
                s.record(pass, &self.level.slot, self.state.current, slot);
            }
            Pass::Pressure => {
                let p = self.pressure.as_ref().expect("patches");
                p.record(pass, &self.level.slot, slot);
            }
            Pass::Probe => self.probe.record(pass, &self.state, slot),
            Pass::PipeFlow
            | Pass::PipeApply
            | Pass::Spray
            | Pass::PipeRain
            | Pass::NavierStokes
            | Pass::NsSpray
            | Pass::NsBodies
            | Pass::ShallowWater
            | Pass::SwFeed
            | Pass::SwMaps
            | Pass::SwPress
            | Pass::SwLoads
            | Pass::PipeSurface
            | Pass::PipePress
            | Pass::PipeLoads => {
                unreachable!("the pipes, Navier-Stokes and shallow-water models have their own backends")
            }
        }
        if p.advances_level() {
            self.state.current = 1 - self.state.current;
        }
    }

    fn bodies(&self) -> &(bodies::Bodies, coupling::Coupling) {
        self.bodies
            .as_ref()
            .expect("the schedule runs the body passes only when they were built")
    }

    /// Records one chunk of `steps` steps (at most `EMBEDDED_CHUNK`) into the caller's encoder,
    /// for hosts that embed Shoal: no submit, no poll, no readback. The chunk's feeds (rain,
    /// hydrographs, rainfall), pressure patches and first step (the summary's) go in as copies
    /// ahead of its pass (`input.target` is unused: the volume target stays in the books, which
    /// each step's `settle` moves on). The caller must submit what it recorded, in order:
    /// Shoal's level index moves on as it records.
    pub fn record_chunk(&mut self, encoder: &mut wgpu::CommandEncoder, steps: u32, substeps: u32, input: &ChunkInput) {
        assert!(
            steps <= EMBEDDED_CHUNK,
            "record_chunk: {steps} steps exceed EMBEDDED_CHUNK"
        );
        if let Some(p) = &self.pressure {
            p.stage(encoder, &input.pressure);
        }
        if let Some(s) = &self.summary {
            s.stage(encoder, input.first_step);
        }
        let rain = (!input.rain.steps.is_empty()).then_some(&input.rain);
        if let Some(rain) = rain {
            self.volume.stage_rain(&self.device, encoder, rain);
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shoal steps"),
            timestamp_writes: None,
        });
        self.record_steps(&mut pass, 0, steps, substeps);
        if self.fused() && steps > 0 {
            self.volume.apply(&mut pass, &self.level, &self.state, steps - 1);
        }
    }

    /// Writes the volume target the GPU goes on from (`VolumeState::target_hi`, `target_lo`:
    /// metres·cells above the still water).
    pub fn set_target(&self, pair: [f32; 2]) {
        self.queue.write_buffer(
            &self.state.books,
            books_at(Books::Volume) + std::mem::offset_of!(crate::engine::params::VolumeState, target_hi) as u64,
            bytemuck::cast_slice(&pair),
        );
    }

    /// The reduction, for passes that measure the level around their own work (host edits).
    pub fn reduce(&self) -> &reduce::Reduce {
        &self.reduce
    }

    /// The device the state lives on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// Its queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Records a height query of `points` (metres) on the current level into `encoder`; the
    /// returned buffer holds the `RawSample`s once the encoder's work is done.
    pub fn record_query(&mut self, encoder: &mut wgpu::CommandEncoder, dx: f32, points: &[[f32; 2]]) -> wgpu::Buffer {
        let (device, current) = (self.device.clone(), self.state.current);
        self.query_pass().record(&device, encoder, current, dx, points)
    }

    /// The query pass over the height field's two levels, built at the first query.
    fn query_pass(&mut self) -> &mut query::Query {
        let (device, state, params) = (&self.device, &self.state, &self.params);
        self.query.get_or_insert_with(|| {
            let source = query::QuerySource {
                nx: params.nx,
                ny: params.ny,
                ground: &state.ground,
                levels: &[&state.eta[0], &state.eta[1]],
            };
            query::Query::new(device, source)
        })
    }

    /// The buffers holding the current state, for hosts that bind them directly.
    pub fn state(&self) -> &GpuState {
        &self.state
    }
}

impl Solver for GpuSolver {
    fn set_params(&mut self, params: &Params) -> Result<()> {
        self.params = *params;
        self.queue
            .write_buffer(&self.state.params, 0, bytemuck::bytes_of(params));
        Ok(())
    }

    fn set_damping_map(&mut self, keep: &[f32]) -> Result<()> {
        // The map's words follow the ground's (level.wgsl).
        let at = self.state.field_bytes();
        self.queue
            .write_buffer(&self.state.ground, at, bytemuck::cast_slice(keep));
        Ok(())
    }

    fn rescale_velocity(&mut self, factor: f32) -> Result<()> {
        let mut p = self.params;
        p.vel_scale = factor;
        self.queue.write_buffer(&self.state.params, 0, bytemuck::bytes_of(&p));
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            self.explicit.rescale(&mut pass, &self.level, &self.state);
        }
        self.state.current = 1 - self.state.current;
        self.queue.submit([encoder.finish()]);
        let params = self.params;
        self.set_params(&params)
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        assert!(
            steps <= crate::engine::params::MAX_CHUNK,
            "advance: {steps} steps exceed MAX_CHUNK"
        );
        let scopes = Scopes::push(&self.device);
        self.upload_chunk(input);
        // Steps go out in submits of bounded work, the report readback only after the last.
        let software = self.device.adapter_info().device_type == wgpu::DeviceType::Cpu;
        let per_submit = steps_per_submit(self.state.cells(), substeps, self.adi.is_some(), software);
        let mut index = 0;
        let mut encoder = loop {
            let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("shoal steps"),
            });
            let end = (index + per_submit).min(steps);
            self.record_submit(&mut encoder, index, end, substeps, end == steps);
            index = end;
            if index == steps {
                break encoder;
            }
            self.queue.submit([encoder.finish()]);
        };
        let probe_bytes = steps as u64 * self.state.n_probes as u64 * 4;
        let b = &self.state.bodies;
        let body_bytes = steps as u64 * b.count as u64 * crate::engine::bodies::HISTORY_FLOATS as u64 * 4;
        let regions = self.regions.is_some();
        report::record(
            &mut encoder,
            &self.state,
            &self.report_readback,
            regions,
            probe_bytes,
            body_bytes,
        );
        if let Some(profiler) = &self.profiler {
            profiler.resolve(&mut encoder);
        }
        self.queue.submit([encoder.finish()]);

        let bytes = readback::map(
            &self.device,
            &self.report_readback,
            report::HISTORY_AT + probe_bytes + body_bytes,
        )?;
        let (head, probes, body_history) = report::read(&bytes, probe_bytes, body_bytes);
        if let Some(profiler) = &mut self.profiler {
            profiler.collect(&self.device)?;
        }
        let totals = head.totals;
        let coupling = match &self.bodies {
            Some((_, coupling)) if body_bytes > 0 => coupling.report(&head.solve),
            _ => Default::default(),
        };
        scopes.pop()?;
        let books_target = head.books_target;
        Ok(ChunkReport {
            first_bad_step: (head.first_bad_step != u32::MAX).then_some(head.first_bad_step),
            totals,
            probes,
            target: chunk_target(input, &self.params, books_target, totals.shortfall, head.held),
            books_target,
            regions: head.regions,
            bodies: body_history,
            coupling,
            model: Default::default(),
        })
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        self.read_field(&self.state.eta[self.state.current])
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        if self.regions.is_none() {
            return Ok(Vec::new());
        }
        self.read_field(&self.state.regions.labels[self.state.regions.current])
    }

    fn query(&mut self, dx: f32, points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        let (device, queue, current) = (self.device.clone(), self.queue.clone(), self.state.current);
        self.query_pass().answer(&device, &queue, current, dx, points)
    }

    fn read_cover(&mut self) -> Result<Vec<crate::engine::bodies::Cover>> {
        if self.bodies.is_none() {
            return Ok(Vec::new());
        }
        let bytes = readback::read(&self.device, &self.queue, &self.state.bodies.cover)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    fn read_soil(&mut self) -> Result<Vec<f32>> {
        if self.params.infiltration == 0 {
            return Ok(Vec::new());
        }
        let bytes = readback::read(&self.device, &self.queue, &self.state.soil)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    fn read_summary(&mut self) -> Result<Vec<crate::summary::SummaryCell>> {
        if self.summary.is_none() {
            return Ok(Vec::new());
        }
        let bytes = readback::read(&self.device, &self.queue, &self.state.summary)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    fn save(&mut self) -> Result<SolverState> {
        let mut state = SolverState {
            ..SolverState::default()
        };
        // Every field's range, and the region counts, in one read.
        let mut ranges: Vec<(&wgpu::Buffer, u64, u64)> = self
            .saved
            .iter()
            .map(|&field| {
                let (buffer, at, size) = self.state.field_range(field).expect("state fields have buffers");
                (buffer, at, size.unwrap_or(buffer.size() - at))
            })
            .collect();
        let counts_size = std::mem::size_of::<report::RegionCounts>() as u64;
        if self.regions.is_some() {
            ranges.push((&self.state.regions.counts, 0, counts_size));
        }
        let parts = readback::read_ranges(&self.device, &self.queue, &ranges)?;
        for (&field, bytes) in self.saved.iter().zip(&parts) {
            // Collected, not cast: a byte vector need not be aligned for u32s.
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(bytes);
            state.set_words(field, &words);
        }
        if self.regions.is_some() {
            let counts: report::RegionCounts = bytemuck::pod_read_unaligned(&parts[self.saved.len()]);
            state.region_count = counts.count;
        }
        Ok(state)
    }

    fn load(&mut self, state: &SolverState) -> Result<()> {
        let scopes = Scopes::push(&self.device);
        for &field in &self.saved {
            let words = state.words(field);
            let (buffer, at, _) = self.state.field_range(field).expect("state fields have buffers");
            if !words.is_empty() {
                self.queue.write_buffer(buffer, at, bytemuck::cast_slice(words));
            } else if field == Field::Faces {
                // A checkpoint from before the faces' memory: it starts afresh.
                self.queue
                    .write_buffer(buffer, at, &vec![0u8; (buffer.size() - at) as usize]);
            }
        }
        if self.regions.is_some() {
            let counts = report::RegionCounts {
                count: state.region_count,
                ..Default::default()
            };
            self.queue
                .write_buffer(&self.state.regions.counts, 0, bytemuck::bytes_of(&counts));
        }
        // The totals the next step starts from (ghost-mean sides read them), as the end of a
        // chunk leaves them: a reduction of the restored level.
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            self.reduce.reduce(&mut pass, &self.state);
        }
        self.queue.submit([encoder.finish()]);
        scopes.pop()
    }

    fn device_and_queue(&self) -> Option<(wgpu::Device, wgpu::Queue)> {
        Some((self.device.clone(), self.queue.clone()))
    }
    fn describe(&self) -> String {
        format!("gpu: {}", self.adapter)
    }

    fn start_profile(&mut self) -> std::result::Result<(), String> {
        self.profiler = Some(profile::Profiler::new(&self.device, &self.queue)?);
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

/// Cell-substeps one submit carries at most on a software adapter (an ADI step counts as
/// `ADI_COST`). A submit is one unit of work to the driver: wgpu's GL backend holds its context
/// lock while llvmpipe runs it, and another thread waiting more than 6 s for that lock panics
/// inside wgpu. 2²¹ keeps a submit near 0.2 s on llvmpipe.
const SOFTWARE_SUBMIT_CELL_STEPS: u64 = 1 << 21;

/// The same on a GPU: 2²⁸ cell-substeps are ~4 ms of explicit steps on an H100 (~7e10 cells/s),
/// far inside any driver's watchdog, and long enough that the submits' own cost (tens of µs
/// each) stays hidden behind the GPU's work. With the software adapters' bound a 1024² grid went
/// out two steps per submit and ran at half the GPU's speed (measured: 33 k steps/s by the wall
/// clock against 66 k by the GPU's timestamps).
const GPU_SUBMIT_CELL_STEPS: u64 = 1 << 28;

/// An ADI step's cost in explicit substeps on the software adapters (measured: 1.3 M cells/s per
/// sweep against 15 M for the explicit step).
const ADI_COST: u64 = 20;

/// The passes that only some scenes have: the air-pressure patches and the summary maps' fold.
fn forcing_passes(
    device: &wgpu::Device,
    state: &GpuState,
    level: &level::LevelBindings,
    setup: &Setup,
) -> (Option<pressure::Pressure>, Option<summary::Summary>) {
    let pressure = (setup.pressure_patches > 0).then(|| {
        let head = state.cells() + state::head_at(&setup.params);
        pressure::Pressure::new(
            device,
            [state.nx, state.ny],
            &state.ground,
            &level.slot_layout,
            setup.pressure_patches,
            head,
        )
    });
    let summary = setup.summary.map(|wet| {
        let source = summary::SummarySource {
            ground: &state.ground,
            levels: [&state.eta[0], &state.eta[1]],
            summary: &state.summary,
            cells: state.cells(),
        };
        summary::Summary::new(device, source, &level.slot_layout, wet)
    });
    (pressure, summary)
}

/// Steps per submit for this grid; `software`: the adapter is a CPU rasteriser.
fn steps_per_submit(cells: u32, substeps: u32, adi: bool, software: bool) -> u32 {
    let bound = if software {
        SOFTWARE_SUBMIT_CELL_STEPS
    } else {
        GPU_SUBMIT_CELL_STEPS
    };
    let per_step = cells as u64 * substeps as u64 * if adi { ADI_COST } else { 1 };
    (bound / per_step.max(1)).clamp(1, crate::engine::params::MAX_CHUNK as u64) as u32
}

/// Steps an embedded chunk holds at most: one a step slot.
pub const EMBEDDED_CHUNK: u32 = crate::engine::params::MAX_CHUNK;

/// Validation and out-of-memory error scopes, popped together into one `Result`.
struct Scopes {
    validation: wgpu::ErrorScopeGuard,
    memory: wgpu::ErrorScopeGuard,
}

impl Scopes {
    fn push(device: &wgpu::Device) -> Scopes {
        let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        Scopes { validation, memory }
    }

    fn pop(self) -> Result<()> {
        let validation = crate::engine::gpu::context::caught(self.validation.pop());
        let memory = crate::engine::gpu::context::caught(self.memory.pop());
        match validation.or(memory) {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}
