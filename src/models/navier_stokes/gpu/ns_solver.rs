//! The Navier-Stokes layer on the GPU: many steps per submit, one readback per chunk (the
//! iteration's bookkeeping, the volume's fold and the probes' history), none per step or per
//! pressure sweep.

use crate::engine::bodies::SolveReport;
use crate::engine::gpu::binding::{filled_buffer, zeroed_buffer};
use crate::engine::gpu::state::BodyBuffers;
use crate::engine::gpu::state::FieldAlloc;
use crate::engine::params::{Params, Totals, MAX_CHUNK};
use crate::engine::schedule::{Pass, Schedule};
use crate::engine::solver::{ChunkInput, ChunkReport, ModelReport, Setup, Solver, SolverState};
use crate::error::{Error, Result};
use crate::models::navier_stokes::gpu::buffers::NsBuffers;
use crate::models::navier_stokes::gpu::buffers::NsUniforms;
use crate::models::navier_stokes::gpu::buffers::STATS;
use crate::models::navier_stokes::gpu::navier_stokes::{NavierStokes, STAT_COURANT, STAT_MOST_SWEEPS, STAT_RESIDUAL};
use crate::models::navier_stokes::gpu::ns_bodies::LayerBodies;
use crate::models::navier_stokes::gpu::ns_markers::NsMarkers;
use crate::models::navier_stokes::gpu::ns_spray::{NsSpray, TALLY_BYTES};
use crate::models::navier_stokes::gpu::ns_surface::NsSurface;
use crate::models::navier_stokes::setup::NsLayer;
use crate::models::navier_stokes::state::LayerFields;
use crate::models::navier_stokes::state::{NsParams, NsState};
use wgpu::BufferUsages as U;

/// The layer's GPU backend, on a Device/Queue it shares with its caller.
pub struct GpuNs {
    device: wgpu::Device,
    /// The chunks' forcing records' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
    queue: wgpu::Queue,
    params: NsParams,
    uniforms: NsUniforms,
    buffers: NsBuffers,
    grid: NavierStokes,
    surface: NsSurface,
    schedule: Schedule,
    /// One step, s (a substep is dt / substeps).
    dt: f32,
    /// The substeps the uniforms hold.
    substeps: u32,
    /// The velocity level the next substep reads.
    level: usize,
    slot_stride: u32,
    n_probes: u32,
    /// Staging for a chunk's report: the bookkeeping, the volume's fold, the probes' history.
    report_readback: wgpu::Buffer,
    history: wgpu::Buffer,
    forcing: crate::models::navier_stokes::forcing::Forcing,
    /// The start's state: its columns' ground fills a regrown forcing buffer.
    start: NsState,
    adapter: String,
    /// The height field's cells along x and y, and the query pass on it, built at the first
    /// query.
    cells: [u32; 2],
    query: Option<crate::engine::gpu::query::Query>,
    /// `[output] summary`: the flood maps' fold over the height field, the maps, and the step
    /// slots' bind group it reads.
    summary: Option<(crate::engine::gpu::summary::Summary, wgpu::Buffer, wgpu::BindGroup)>,
    /// The spray and foam (None: the scene has none).
    spray: Option<NsSpray>,
    /// Marker particles set the flags (None: the height field does).
    markers: Option<NsMarkers>,
    /// The bodies (None: the scene has none).
    bodies: Option<LayerBodies>,
    /// Sources, rain and rainfall on the height field (None: the scene feeds it nothing).
    feed: Option<crate::models::navier_stokes::gpu::feed::LayerFeed>,
    /// `[[pressure]]`: each step's air head per height-field cell, and the step slots' bind
    /// group it reads (None: no patches).
    pressure: Option<(crate::engine::gpu::pressure::Pressure, wgpu::BindGroup)>,
    /// `[infiltration]`'s law (0: none): the feed soaks the ground.
    infiltration: u32,
}

/// Bytes of the bookkeeping and of the volume's fold in a chunk's report.
const STATS_BYTES: u64 = (STATS * 4) as u64;
const FOLD_BYTES: u64 = 32;
/// The markers' book's first words (slots used, refused) in a chunk's report.
const BOOK_BYTES: u64 = 8;
/// The coupling solve's scalars (`bodies::Solve`) in a chunk's report.
const SOLVE_BYTES: u64 = std::mem::size_of::<crate::engine::bodies::Solve>() as u64;
/// The report's fixed head: the bookkeeping, the fold, the spray's tally, the markers' book, the
/// coupling; then the probes' history and the bodies'.
const HEAD_BYTES: u64 = STATS_BYTES + FOLD_BYTES + TALLY_BYTES + BOOK_BYTES + SOLVE_BYTES;

/// The probes' cells and their history (a submit's steps), never empty: a binding cannot be
/// zero bytes.
fn probe_buffers(device: &wgpu::Device, probe_cells: &[u32]) -> (wgpu::Buffer, wgpu::Buffer) {
    let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
    let cells: &[u32] = if probe_cells.is_empty() { &[0] } else { probe_cells };
    let probe_buffer = filled_buffer(device, "ns probes", bytemuck::cast_slice(cells), storage);
    let history = zeroed_buffer(
        device,
        "ns probe history",
        (MAX_CHUNK as usize * probe_cells.len().max(1) * 4) as u64,
        storage,
    );
    (probe_buffer, history)
}

impl GpuNs {
    /// The backend for `layer`, with the rest of `setup` (probes, bodies), stepping `dt` s per
    /// step at `setup.params.substeps` substeps.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        adapter: String,
        layer: &NsLayer,
        setup: &Setup,
        dt: f64,
    ) -> Result<GpuNs> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let (params, probe_cells) = (&setup.params, setup.probe_cells);
        let substeps = params.substeps.max(1);
        let n_probes = probe_cells.len() as u32;
        let uniforms = Self::uniforms(device, layer, setup, dt as f32 / substeps as f32);
        // Room for a submit's substeps now and after they double once; more regrows the buffer.
        let records = (crate::models::navier_stokes::setup::NS_CHUNK * substeps * 2) as usize;
        let buffers = NsBuffers::new(device, &uniforms, &layer.state, &layer.surface, records);
        let (probe_buffer, history) = probe_buffers(device, probe_cells);
        let slot_stride = crate::engine::gpu::binding::dynamic_offset_alignment(&device.limits());
        let slots = crate::engine::gpu::binding::slot_bytes(slot_stride, MAX_CHUNK);
        let slots = filled_buffer(device, "ns step slots", &slots, crate::engine::gpu::binding::UNIFORM);
        let grid = NavierStokes::new(device, &buffers, &uniforms, None);
        let markers = layer.markers.as_ref().map(|(mp, start)| {
            let p = &layer.params;
            let (fine, cells) = ((uniforms.fnx, uniforms.fny), (p.nx * p.ny * p.nz) as u32);
            NsMarkers::new(device, &buffers, &grid.grid_layout, *mp, start, p.nz, fine, cells)
        });
        // Stand-ins without bodies: the surface's volume binds `cover` either way.
        let body_buffers = BodyBuffers::new(device, &FieldAlloc::new(device, setup), setup);
        let surface = NsSurface::new(
            device,
            &buffers,
            &uniforms,
            &probe_buffer,
            &history,
            &slots,
            &body_buffers.cover,
        );
        let bodies = (body_buffers.count != 0)
            .then(|| LayerBodies::new(device, setup, &buffers, &grid.grid_layout, &slots, body_buffers));
        let spray = layer.spray.map(|p| NsSpray::new(device, &buffers, p, &slots));
        let summary = setup
            .summary
            .map(|wet| summary_pass(device, layer, &buffers, &slots, wet));
        let feed = layer.fed.then(|| {
            crate::models::navier_stokes::gpu::feed::LayerFeed::new(
                device,
                &buffers.h,
                (&buffers.ground, &layer.surface.ground),
                &slots,
                [layer.surface.nx, layer.surface.ny],
                (params.rainfall, setup.rainfall_map),
                (params.infiltration, setup.soil_law),
                MAX_CHUNK,
            )
        });
        let pressure = (setup.pressure_patches > 0).then(|| {
            use crate::engine::gpu::binding::{slot_bind_group, slot_layout};
            let layout = slot_layout(device, "ns pressure slot");
            let fine = [layer.surface.nx as u32, layer.surface.ny as u32];
            let pass = crate::engine::gpu::pressure::Pressure::new(
                device,
                fine,
                &buffers.air,
                &layout,
                setup.pressure_patches,
                0,
            );
            (pass, slot_bind_group(device, &layout, &slots))
        });
        let report_readback = crate::engine::gpu::readback::buffer(
            device,
            "ns report readback",
            HEAD_BYTES + history.size() + bodies.as_ref().map_or(0, |b| b.buffers.history.size()),
        );
        if let Some(e) = crate::engine::gpu::context::caught(scope.pop()) {
            return Err(Error::Gpu(e.to_string()));
        }
        Ok(GpuNs {
            device: device.clone(),
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
            queue: queue.clone(),
            params: layer.params,
            uniforms,
            buffers,
            grid,
            surface,
            schedule: layer.schedule(params),
            dt: dt as f32,
            substeps,
            level: 0,
            slot_stride,
            n_probes,
            report_readback,
            history,
            forcing: layer.forcing.clone(),
            start: layer.state.clone(),
            adapter,
            cells: [layer.surface.nx as u32, layer.surface.ny as u32],
            query: None,
            summary,
            spray,
            markers,
            bodies,
            feed,
            infiltration: params.infiltration,
            pressure,
        })
    }

    /// The layer's uniforms for `layer` and `setup`, stepping `dt` s per substep.
    fn uniforms(device: &wgpu::Device, layer: &NsLayer, setup: &Setup, dt: f32) -> NsUniforms {
        // As the CPU twin: no correction where water crosses a side or is fed.
        let corrected =
            setup.params.correct != 0 && !layer.forcing.open_sides() && layer.markers.is_none() && !layer.fed;
        let target = corrected.then(|| crate::models::navier_stokes::setup::start_target(&layer.surface, setup.cover));
        let max = device.limits().max_compute_workgroups_per_dimension.min(65535);
        let n_probes = setup.probe_cells.len() as u32;
        let mut uniforms = NsUniforms::new(&layer.params, &layer.surface, dt, target, n_probes, max);
        uniforms.spray_unit = layer.spray.map_or(0.0, |p| p.unit_h);
        uniforms.bodies = !setup.bodies.is_empty() as u32;
        uniforms
    }

    /// Room for `records` substeps' forcing: a new columns buffer (the columns' surface is
    /// rebuilt each substep, their ground is the start's) and the bind groups over it.
    fn grow_forcing(&mut self, records: usize) {
        self.buffers.col =
            crate::models::navier_stokes::gpu::buffers::columns_buffer(&self.device, &self.start, records);
        self.buffers.records = records;
        let layout = self.grid.grid_layout.clone();
        self.grid = NavierStokes::new(&self.device, &self.buffers, &self.uniforms, Some(layout));
    }

    /// The pressure iteration's budget from the next chunk on (written before its submit).
    /// Whether the feed soaks the ground (`[infiltration]`).
    fn infiltrating(&self) -> bool {
        self.infiltration != 0
    }

    fn set_budget(&mut self, budget: u32) {
        if budget != self.uniforms.budget {
            self.uniforms.budget = budget;
            self.queue
                .write_buffer(&self.buffers.uniforms, 0, bytemuck::bytes_of(&self.uniforms));
        }
    }

    /// Reads a whole buffer (not in the step loop: outputs, checkpoints).
    fn read<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer) -> Result<Vec<T>> {
        Ok(bytemuck::pod_collect_to_vec(&crate::engine::gpu::readback::read(
            &self.device,
            &self.queue,
            buffer,
        )?))
    }

    /// The markers now (a readback), None without them.
    fn marker_state(&self) -> Result<Option<crate::models::navier_stokes::state::Markers>> {
        let Some(m) = &self.markers else {
            return Ok(None);
        };
        let book: Vec<u32> = self.read(&m.book)?;
        let at: Vec<[f32; 2]> = self.read(&m.markers)?;
        Ok(Some(crate::models::navier_stokes::state::Markers::from_book(
            &book,
            &at,
            self.params.nz,
        )))
    }

    /// The 3D grid's state now (the flags as the last substep set them; the columns' surface
    /// and ground are not read).
    fn grid_state(&self) -> Result<NsState> {
        let p = &self.params;
        let flags: Vec<u32> = self.read(&self.buffers.flag)?;
        let vel: Vec<f32> = self.read(&self.buffers.vel[self.level])?;
        let (nu, nv) = ((p.nx + 1) * p.ny * p.nz, p.nx * (p.ny + 1) * p.nz);
        Ok(NsState {
            flag: flags.iter().map(|&f| f as u8).collect(),
            p: self.read(&self.buffers.p)?,
            u: vel[..nu].to_vec(),
            v: vel[nu..nu + nv].to_vec(),
            w: vel[nu + nv..].to_vec(),
            h: Vec::new(),
            ground: Vec::new(),
            drag: Vec::new(),
        })
    }

    /// Records a chunk's steps (forcing staged, then every step's passes, then the totals).
    fn record_chunk(&mut self, encoder: &mut wgpu::CommandEncoder, steps: u32, substeps: u32, input: &ChunkInput) {
        let budget = self.uniforms.budget;
        encoder.clear_buffer(&self.buffers.stats, 0, None);
        if let Some(spray) = &mut self.spray {
            spray.start_chunk(&self.uploads, encoder, input.first_step as u32);
        }
        let records = self.forcing.chunk(input.first_step, steps, substeps);
        if records.len() > self.buffers.records {
            self.grow_forcing(records.len().next_power_of_two());
        }
        let p = &self.params;
        let forcing_at = (2 * p.nx * p.ny * 4) as u64;
        self.uploads
            .stage(encoder, &self.buffers.col, forcing_at, bytemuck::cast_slice(&records));
        if let Some((summary, _, _)) = &self.summary {
            summary.stage(encoder, input.first_step);
        }
        if let Some((air, _)) = &self.pressure {
            air.stage(encoder, &input.pressure);
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("shoal navier-stokes"),
                timestamp_writes: None,
            });
            for step in 0..steps {
                for p in self.schedule.step(substeps) {
                    match p {
                        Pass::NavierStokes => {
                            let markers = self.markers.as_ref();
                            self.grid
                                .record(&mut pass, &self.buffers.args, self.level, budget, markers);
                            self.level = 1 - self.level;
                            if markers.is_none() {
                                self.surface.height(&mut pass, self.level);
                            }
                        }
                        Pass::NsSpray => {
                            let spray = self.spray.as_ref().expect("the schedule has spray only with it");
                            spray.step(&mut pass, self.level, step * self.slot_stride);
                        }
                        Pass::Footprint | Pass::Coupling | Pass::NsBodies | Pass::Integrate => {
                            let bodies = self
                                .bodies
                                .as_ref()
                                .expect("the schedule has body passes only with bodies");
                            bodies.record(&mut pass, p, &self.grid, self.level, step * self.slot_stride);
                        }
                        Pass::Probe => self.surface.probe(&mut pass, step * self.slot_stride, self.level),
                        Pass::SwFeed => {
                            let feed = self.feed.as_ref().expect("the schedule feeds only with feeds");
                            feed.record(&mut pass, step, step * self.slot_stride);
                        }
                        // Folded below, on the step's corrected surface.
                        Pass::Summary => {}
                        Pass::Pressure => {
                            let (air, slots) = self.pressure.as_ref().expect("the schedule presses only with patches");
                            air.record(&mut pass, slots, step * self.slot_stride);
                        }
                        other => unreachable!("{other:?} is not a pass of the Navier-Stokes layer"),
                    }
                }
                if self.uniforms.correct != 0 {
                    self.surface.volume(&mut pass, true);
                }
                if let Some((summary, _, slots)) = &self.summary {
                    summary.record(&mut pass, slots, 0, step * self.slot_stride);
                }
            }
            // The totals: the volume's fold, not applied; the spray and foam now.
            self.surface.volume(&mut pass, false);
            if let Some(spray) = &self.spray {
                spray.totals(&mut pass);
            }
        }
    }

    /// Runs `substeps` per step from the next submit (the uniforms' dt, written before it).
    fn use_substeps(&mut self, substeps: u32) {
        if substeps != self.substeps {
            self.substeps = substeps;
            self.uniforms.dt = self.dt / substeps as f32;
            self.queue
                .write_buffer(&self.buffers.uniforms, 0, bytemuck::bytes_of(&self.uniforms));
        }
    }

    /// `Water`: records a chunk of `steps` steps into the host's encoder, its feed's entries
    /// and the spray's step key staged in it (so several chunks share one encoder), with no
    /// readback; its stats stay in `stats_buffer` for the host's watch.
    pub(crate) fn record_embedded(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        steps: u32,
        substeps: u32,
        input: &ChunkInput,
    ) {
        self.use_substeps(substeps);
        if let Some(feed) = &mut self.feed {
            feed.stage(&self.device, encoder, &input.rain);
        }
        self.record_chunk(encoder, steps, substeps, input);
    }

    /// The chunk's stats (`STAT_*` words: the flow's Courant number, the pressure sweeps),
    /// cleared at each chunk's start.
    pub(crate) fn stats_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.stats
    }

    /// The layer's height field and its ground (f32 per surface cell, h − ref, b − ref).
    pub(crate) fn surface_buffers(&self) -> (&wgpu::Buffer, &wgpu::Buffer) {
        (&self.buffers.h, &self.buffers.ground)
    }

    /// The bodies' states and covers, None without bodies.
    pub(crate) fn body_buffers(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer)> {
        self.bodies.as_ref().map(|b| (&b.buffers.states, &b.buffers.cover))
    }

    /// The spray's slots (`Particle`, 32 B each: spray with units > 0, foam with units 0 and
    /// age > 0, free otherwise), None without spray.
    pub(crate) fn particle_slots(&self) -> Option<&wgpu::Buffer> {
        self.spray.as_ref().map(|s| &s.drops)
    }

    /// The device and the queue it runs on.
    pub(crate) fn device(&self) -> &wgpu::Device {
        &self.device
    }

    pub(crate) fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Records a height query on the height field into `encoder` (`Water::query`); returns the
    /// answer's buffer, mappable once the encoder's work is done.
    pub(crate) fn record_query(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        dx: f32,
        points: &[[f32; 2]],
    ) -> wgpu::Buffer {
        let device = self.device.clone();
        self.layer_query().record(&device, encoder, 0, dx, points)
    }

    /// `query.wgsl` over the layer's height field, built once.
    fn layer_query(&mut self) -> &mut crate::engine::gpu::query::Query {
        let (device, buffers, [nx, ny]) = (&self.device, &self.buffers, self.cells);
        self.query.get_or_insert_with(|| {
            let source = crate::engine::gpu::query::QuerySource {
                nx,
                ny,
                ground: &buffers.ground,
                levels: &[&buffers.h],
            };
            crate::engine::gpu::query::Query::new(device, source)
        })
    }

    /// The last chunk's stats and volume fold, read back (waits): (the flow's Courant number,
    /// cells holding NaN or infinity, the spray's units in the air).
    pub(crate) fn read_books(&self) -> Result<(f32, u32, u32)> {
        let stats: Vec<u32> = self.read(&self.buffers.stats)?;
        let fold: Vec<f32> = self.read(&self.buffers.volume)?;
        let in_flight = fold[crate::models::navier_stokes::spray::IN_FLIGHT as usize].to_bits();
        Ok((
            f32::from_bits(stats[STAT_COURANT as usize]),
            fold[4].to_bits(),
            in_flight,
        ))
    }

    /// Copies the chunk's report (stats, volume fold, spray tally, marker book, the bodies' solve
    /// and histories, the probes) into the readback; returns (probe, body) history bytes.
    fn copy_report(&self, encoder: &mut wgpu::CommandEncoder, steps: u32) -> (u64, u64) {
        let probe_bytes = (steps * self.n_probes * 4) as u64;
        let body_bytes = self.bodies.as_ref().map_or(0, |b| {
            (steps * b.buffers.count) as u64 * crate::engine::bodies::HISTORY_FLOATS as u64 * 4
        });
        let rb = &self.report_readback;
        let head = HEAD_BYTES;
        encoder.copy_buffer_to_buffer(&self.buffers.stats, 0, rb, 0, STATS_BYTES);
        encoder.copy_buffer_to_buffer(&self.buffers.volume, 0, rb, STATS_BYTES, FOLD_BYTES);
        if let Some(spray) = &self.spray {
            encoder.copy_buffer_to_buffer(&spray.tally, 0, rb, STATS_BYTES + FOLD_BYTES, TALLY_BYTES);
        }
        if let Some(m) = &self.markers {
            encoder.copy_buffer_to_buffer(&m.book, 0, rb, STATS_BYTES + FOLD_BYTES + TALLY_BYTES, BOOK_BYTES);
        }
        if let Some(b) = &self.bodies {
            let at = head - SOLVE_BYTES;
            encoder.copy_buffer_to_buffer(&b.buffers.solve, 0, rb, at, SOLVE_BYTES);
            encoder.copy_buffer_to_buffer(&b.buffers.history, 0, rb, head + probe_bytes, body_bytes);
        }
        if probe_bytes > 0 {
            encoder.copy_buffer_to_buffer(&self.history, 0, rb, head, probe_bytes);
        }
        (probe_bytes, body_bytes)
    }

    /// The chunk's report from its readback `bytes`; sets the next chunk's sweep budget.
    fn report(&mut self, bytes: &[u8], steps: u32, probe_bytes: u64, input: &ChunkInput) -> ChunkReport {
        let budget = self.uniforms.budget;
        let (stats, rest) = bytes.split_at(STATS_BYTES as usize);
        let (fold, rest) = rest.split_at(FOLD_BYTES as usize);
        let (tally, rest) = rest.split_at(TALLY_BYTES as usize);
        let (book, rest) = rest.split_at(BOOK_BYTES as usize);
        let (solve, rest) = rest.split_at(SOLVE_BYTES as usize);
        let (probes, body_history) = rest.split_at(probe_bytes as usize);
        let solve: crate::engine::bodies::Solve = bytemuck::pod_read_unaligned(solve);
        let tally: Vec<u32> = bytemuck::pod_collect_to_vec(tally);
        let book: Vec<u32> = bytemuck::pod_collect_to_vec(book);
        let stats: Vec<u32> = bytemuck::pod_collect_to_vec(stats);
        let fold: Vec<f32> = bytemuck::pod_collect_to_vec(fold);
        let courant = f32::from_bits(stats[STAT_COURANT as usize]);
        let pressure = SolveReport {
            iterations: stats[STAT_MOST_SWEEPS as usize],
            residual: f32::from_bits(stats[STAT_RESIDUAL as usize]),
        };
        self.set_budget(crate::models::navier_stokes::setup::next_budget(
            budget,
            pressure,
            self.params.epsilon,
            self.params.max_sweeps,
        ));
        ChunkReport {
            // Condition 3 is checked over the chunk: a chunk that broke it is reported at its end.
            first_bad_step: (courant.is_nan() || courant >= 1.0).then_some(steps.saturating_sub(1)),
            totals: Totals {
                max_depth: fold[3],
                held: fold[7],
                nonfinite: fold[4].to_bits(),
                sum_depth: (fold[0] as f64 + fold[1] as f64) as f32,
                ..Totals::default()
            },
            probes: bytemuck::pod_collect_to_vec(probes),
            target: input.target,
            model: ModelReport::Layer {
                pressure,
                flow_courant: courant,
                markers_refused: self
                    .markers
                    .as_ref()
                    .map(|_| book[crate::wgsl::ns_markers::BOOK_REFUSED as usize] as u64),
                spray: self.spray.as_ref().map(|_| {
                    crate::models::navier_stokes::spray::report(
                        &tally,
                        fold[crate::models::navier_stokes::spray::IN_FLIGHT as usize].to_bits(),
                    )
                }),
            },
            bodies: bytemuck::pod_collect_to_vec(body_history),
            coupling: self
                .bodies
                .as_ref()
                .map_or(SolveReport::default(), |b| b.report(&solve)),
            ..ChunkReport::default()
        }
    }
}

impl Solver for GpuNs {
    fn set_params(&mut self, _params: &Params) -> Result<()> {
        Ok(())
    }

    /// The layer carries velocities, not per-substep changes: nothing to rescale.
    fn rescale_velocity(&mut self, _factor: f32) -> Result<()> {
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        self.use_substeps(substeps);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        if let Some(feed) = &mut self.feed {
            feed.upload(&self.device, &self.queue, &input.rain);
        }
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.record_chunk(&mut encoder, steps, substeps, input);
        let (probe_bytes, body_bytes) = self.copy_report(&mut encoder, steps);
        let fed_bytes = match &mut self.feed {
            Some(feed) => feed.stage_back(&self.device, &mut encoder, &input.rain),
            None => 0,
        };
        self.queue.submit([encoder.finish()]);
        let bytes = crate::engine::gpu::readback::map(
            &self.device,
            &self.report_readback,
            HEAD_BYTES + probe_bytes + body_bytes,
        )?;
        if let Some(e) = crate::engine::gpu::context::caught(scope.pop()) {
            return Err(Error::Gpu(e.to_string()));
        }
        let report = self.report(&bytes, steps, probe_bytes, input);
        // What the feed gave: the books follow it (no correction runs where the layer is fed).
        match &self.feed {
            Some(feed) => {
                let heights = feed.heights_after(&self.device, fed_bytes, &input.rain)?;
                Ok(ChunkReport {
                    target: crate::models::shallow_water::books::fed_target(input, &heights),
                    ..report
                })
            }
            None => Ok(report),
        }
    }

    fn read_cover(&mut self) -> Result<Vec<crate::engine::bodies::Cover>> {
        match &self.bodies {
            Some(b) => Ok(b.buffers.read(&self.device, &self.queue)?.0),
            None => Ok(Vec::new()),
        }
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        self.read(&self.buffers.h)
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(Vec::new())
    }

    fn read_summary(&mut self) -> Result<Vec<crate::summary::SummaryCell>> {
        match &self.summary {
            Some((_, maps, _)) => self.read(maps),
            None => Ok(Vec::new()),
        }
    }

    /// `query.wgsl` on the layer's height field, whose surface and ground mean what the height
    /// field's do.
    fn query(&mut self, dx: f32, points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        let (device, queue) = (self.device.clone(), self.queue.clone());
        self.layer_query().answer(&device, &queue, 0, dx, points)
    }

    fn read_markers(&mut self) -> Result<Vec<[f32; 2]>> {
        Ok(self.marker_state()?.map_or_else(Vec::new, |m| m.at))
    }

    /// The spray and foam slots in use, in slot order.
    fn read_particles(&mut self) -> Result<Vec<crate::models::pipes::spray::Particle>> {
        match &self.spray {
            Some(spray) => Ok(crate::models::navier_stokes::state::in_use(&self.read(&spray.drops)?)),
            None => Ok(Vec::new()),
        }
    }

    /// The 3D grid, the height field and its ground read back (output steps only), averaged as
    /// the CPU twin's (`state::depth_averaged`).
    fn read_velocity(&mut self) -> Result<Option<Vec<[f32; 2]>>> {
        let [nx, ny] = self.cells.map(|n| n as usize);
        let held = match &self.bodies {
            Some(_) => self.read_cover()?.iter().map(|c| c.held).collect(),
            None => Vec::new(),
        };
        let surface = crate::models::navier_stokes::state::Surface {
            nx,
            ny,
            coarsen: nx / self.params.nx,
            h: self.read(&self.buffers.h)?,
            ground: self.read(&self.buffers.ground)?,
            held,
            air: Vec::new(),
        };
        Ok(Some(crate::models::navier_stokes::state::depth_averaged(
            &self.params,
            &self.grid_state()?,
            &surface,
        )))
    }

    fn read_layer(&mut self) -> Result<Option<LayerFields>> {
        Ok(Some(crate::models::navier_stokes::state::layer_fields(
            &self.params,
            &self.grid_state()?,
        )))
    }

    fn save(&mut self) -> Result<SolverState> {
        // Every field with one staging buffer, one submit and one wait (a checkpoint, an edit).
        let b = &self.buffers;
        let markers = self.markers.as_ref();
        let bodies = self.bodies.as_ref();
        let [h, p, vel, flags, drops, book, at, states, cover, summary, carry, soil] =
            crate::engine::gpu::readback::read_whole(
                &self.device,
                &self.queue,
                &[
                    Some(&b.h),
                    Some(&b.p),
                    Some(&b.vel[self.level]),
                    Some(&b.flag),
                    self.spray.as_ref().map(|s| &s.drops),
                    markers.map(|m| &m.book),
                    markers.map(|m| &m.markers),
                    bodies.map(|b| &b.buffers.states),
                    bodies.map(|b| &b.buffers.cover),
                    self.summary.as_ref().map(|(_, maps, _)| maps),
                    self.feed.as_ref().map(|f| &f.carry),
                    self.feed.as_ref().filter(|_| self.infiltrating()).map(|f| &f.soil),
                ],
            )?
            .try_into()
            .expect("one read per buffer");
        let params = &self.params;
        let vel: Vec<f32> = bytemuck::pod_collect_to_vec(&vel);
        let (nu, nv) = (
            (params.nx + 1) * params.ny * params.nz,
            params.nx * (params.ny + 1) * params.nz,
        );
        let markers = markers.map(|_| {
            let at: Vec<[f32; 2]> = bytemuck::pod_collect_to_vec(&at);
            crate::models::navier_stokes::state::Markers::from_book(
                &bytemuck::pod_collect_to_vec(&book),
                &at,
                params.nz,
            )
        });
        Ok(SolverState {
            eta: bytemuck::pod_collect_to_vec(&h),
            ns_p: bytemuck::pod_collect_to_vec(&p),
            ns_u: vel[..nu].to_vec(),
            ns_v: vel[nu..nu + nv].to_vec(),
            ns_w: vel[nu + nv..].to_vec(),
            ns_flags: bytemuck::pod_collect_to_vec(&flags),
            ns_budget: self.uniforms.budget,
            ns_target: (self.uniforms.correct != 0).then_some([self.uniforms.target_hi, self.uniforms.target_lo]),
            ns_drops: bytemuck::pod_collect_to_vec(&drops),
            ns_markers: markers.as_ref().map_or_else(Vec::new, |m| m.at.clone()),
            ns_marker_book: markers.as_ref().map_or_else(Vec::new, |m| m.book(params.nz)),
            bodies: bytemuck::pod_collect_to_vec(&states),
            cover: bytemuck::pod_collect_to_vec(&cover),
            summary: bytemuck::pod_collect_to_vec(&summary),
            sw_carry: bytemuck::pod_collect_to_vec(&carry),
            soil: bytemuck::pod_collect_to_vec(&soil),
            ..SolverState::default()
        })
    }

    fn load(&mut self, saved: &SolverState) -> Result<()> {
        let p = &self.params;
        let cells = p.nx * p.ny * p.nz;
        let fits = saved.eta.len() as u64 * 4 == self.buffers.h.size()
            && saved.ns_p.len() == cells
            && saved.ns_u.len() == (p.nx + 1) * p.ny * p.nz
            && saved.ns_v.len() == p.nx * (p.ny + 1) * p.nz
            && saved.ns_w.len() == cells + p.nx * p.ny;
        if !fits {
            return Err(Error::Unsupported(
                "a saved state of another grid (another scene's Navier-Stokes layer)".into(),
            ));
        }
        let vel: Vec<f32> = saved
            .ns_u
            .iter()
            .chain(&saved.ns_v)
            .chain(&saved.ns_w)
            .copied()
            .collect();
        self.queue
            .write_buffer(&self.buffers.h, 0, bytemuck::cast_slice(&saved.eta));
        self.queue
            .write_buffer(&self.buffers.p, 0, bytemuck::cast_slice(&saved.ns_p));
        self.queue
            .write_buffer(&self.buffers.vel[self.level], 0, bytemuck::cast_slice(&vel));
        if saved.ns_flags.len() == cells {
            self.queue
                .write_buffer(&self.buffers.flag, 0, bytemuck::cast_slice(&saved.ns_flags));
        }
        if saved.ns_budget != 0 {
            self.set_budget(saved.ns_budget);
        }
        if let Some([hi, lo]) = saved.ns_target.filter(|_| self.uniforms.correct != 0) {
            self.uniforms.target_hi = hi;
            self.uniforms.target_lo = lo;
            self.queue
                .write_buffer(&self.buffers.uniforms, 0, bytemuck::bytes_of(&self.uniforms));
        }
        if let Some(spray) = &self.spray {
            spray.load(&self.queue, &self.buffers, &saved.ns_drops);
        }
        if let Some(m) = &self.markers {
            let nz = self.params.nz;
            m.load(
                &self.queue,
                &crate::models::navier_stokes::state::Markers::from_book(&saved.ns_marker_book, &saved.ns_markers, nz),
                nz,
            );
        }
        if let Some(b) = &self.bodies {
            self.queue
                .write_buffer(&b.buffers.states, 0, bytemuck::cast_slice(&saved.bodies));
            self.queue
                .write_buffer(&b.buffers.cover, 0, bytemuck::cast_slice(&saved.cover));
        }
        if let Some((_, maps, _)) = self.summary.as_ref().filter(|_| !saved.summary.is_empty()) {
            self.queue.write_buffer(maps, 0, bytemuck::cast_slice(&saved.summary));
        }
        if let Some(feed) = self
            .feed
            .as_ref()
            .filter(|f| saved.sw_carry.len() as u64 * 4 == f.carry.size())
        {
            self.queue
                .write_buffer(&feed.carry, 0, bytemuck::cast_slice(&saved.sw_carry));
        }
        if let Some(feed) = self
            .feed
            .as_ref()
            .filter(|f| self.infiltrating() && saved.soil.len() as u64 * 4 == f.soil.size())
        {
            self.queue
                .write_buffer(&feed.soil, 0, bytemuck::cast_slice(&saved.soil));
        }
        Ok(())
    }

    fn read_soil(&mut self) -> Result<Vec<f32>> {
        match self.feed.as_ref().filter(|_| self.infiltrating()) {
            Some(feed) => self.read(&feed.soil),
            None => Ok(Vec::new()),
        }
    }

    fn device_and_queue(&self) -> Option<(wgpu::Device, wgpu::Queue)> {
        Some((self.device.clone(), self.queue.clone()))
    }
    fn describe(&self) -> String {
        self.adapter.clone()
    }

    fn start_profile(&mut self) -> std::result::Result<(), String> {
        Err("the Navier-Stokes layer's GPU passes take no timestamps yet; the figures are the wall clock's".into())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// The flood maps' fold over the layer's height field (`[output] summary`): the pass, its maps
/// (from the start's surface) and the step slots' bind group.
fn summary_pass(
    device: &wgpu::Device,
    layer: &NsLayer,
    buffers: &NsBuffers,
    slots: &wgpu::Buffer,
    wet: f32,
) -> (crate::engine::gpu::summary::Summary, wgpu::Buffer, wgpu::BindGroup) {
    let f = &layer.surface;
    let first = crate::summary::initial(&f.h, &f.ground, wet);
    let maps = filled_buffer(
        device,
        "ns summary",
        bytemuck::cast_slice(&first),
        U::STORAGE | U::COPY_SRC | U::COPY_DST,
    );
    let slot_layout = crate::engine::gpu::binding::slot_layout(device, "summary slot");
    let source = crate::engine::gpu::summary::SummarySource {
        ground: &buffers.ground,
        levels: [&buffers.h, &buffers.h],
        summary: &maps,
        cells: f.h.len() as u32,
    };
    let pass = crate::engine::gpu::summary::Summary::new(device, source, &slot_layout, wet);
    let slots = crate::engine::gpu::binding::slot_bind_group(device, &slot_layout, slots);
    (pass, maps, slots)
}
