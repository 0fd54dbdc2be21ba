//! `Water`: Shoal inside a host's renderer. It borrows the host's Device and Queue, records its
//! steps into the host's command encoder (no submit, no poll, no readback), and leaves the
//! surface in buffers the host binds directly, the same buffers every frame.

use crate::engine::edit::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};
use crate::engine::gpu::caustics::Caustics;
use crate::engine::gpu::edit::Edit;
use crate::engine::gpu::state::{books_at, Books};
use crate::engine::gpu::surface::{Look, Surface, SurfaceBuffers, SurfaceSource};
use crate::engine::gpu::GpuSolver;
use crate::error::{Error, Result};
use crate::query::{QueryId, WaterSample};
use crate::{Scene, Simulation};

mod navier_stokes;
mod pipes;
mod shallow_water;
mod watch;
use navier_stokes::NsPart;
use pipes::PipesPart;
use shallow_water::SwPart;

/// The water model a `Water` runs, with what only it needs.
enum Model {
    /// The height field: the host's edits.
    HeightField { edit: Box<Edit> },
    /// The pipes (seed 004): the top floor the render side reads as the ground, the bodies'
    /// covers (a stand-in without bodies) and the host's edits.
    Pipes(Box<PipesPart>),
    /// The shallow-water model: its edits, velocities, volume books and flow-following substeps.
    ShallowWater(Box<SwPart>),
    /// The Navier-Stokes layer: its bodies' covers, volume books and flow-following substeps.
    NavierStokes(Box<NsPart>),
}

/// What the render-side passes compute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaterOptions {
    /// Run the caustics pass (`SurfaceBuffers::caustics`).
    pub caustics: bool,
    /// Seconds for a dry cell's wetness to fall to 1/e.
    pub drying_time: f64,
    /// Direction the sunlight travels (need not be unit; z < 0).
    pub light: [f64; 3],
    /// The water's refractive index (for the caustics).
    pub refractive_index: f64,
    /// The deepest water (metres) the host's brushes and splashes will make, when deeper than
    /// the scene's: the substeps are chosen for it. The height field's and the pipes' embedded
    /// runs cannot raise them on the fly as a batch run does (that needs a readback); the
    /// shallow-water model's follows its flow a frame or two late, from books mapped without a
    /// stall. The Navier-Stokes layer takes no edits in `Water` and refuses it.
    pub max_depth: Option<f64>,
}

impl Default for WaterOptions {
    fn default() -> Self {
        WaterOptions {
            caustics: true,
            drying_time: 20.0,
            light: [0.3, 0.2, -1.0],
            refractive_index: 1.333,
            max_depth: None,
        }
    }
}

/// A scene's water on the host's device. It borrows the host's `Device` and `Queue`, records
/// its steps into the host's command encoder (no submit, no poll, no readback), and leaves the
/// surface in buffers the host binds directly, the same buffers every frame.
///
/// ```no_run
/// # fn frame(device: &wgpu::Device, queue: &wgpu::Queue) -> shoal::Result<()> {
/// let scene = shoal::Scene::builtin_default();
/// let mut water = shoal::Water::new(device, queue, &scene, Default::default())?;
/// let height = &water.buffers().height; // bind once: f32 per cell, row-major [ny, nx]
/// // each frame:
/// water.disturb(1.0, 1.0, 0.1, 0.02)?; // a splash, counted into the volume target
/// let mut encoder = device.create_command_encoder(&Default::default());
/// water.record(&mut encoder, 2); // two steps, then the surface, normals, wetness, caustics
/// // … the host's render passes, reading the buffers …
/// queue.submit([encoder.finish()]);
/// # Ok(()) }
/// ```
pub struct Water {
    sim: Simulation,
    surface: Surface,
    caustics: Option<Caustics>,
    model: Model,
    out: SurfaceBuffers,
    /// The render-side passes' uniform as built; each `record` sets its `decay`.
    look: Look,
    /// Edits since the last `record`, applied at the start of the next.
    edits: Vec<HostEdit>,
    /// Body fields the host set since the last `record`: (byte offset in the states, bytes).
    body_writes: Vec<(u64, Vec<u8>)>,
    options: WaterOptions,
    steps: u64,
    /// Height queries asked since the last `record`, and those recorded whose answer has yet
    /// to be picked up.
    queries: Vec<(QueryId, Vec<[f32; 2]>)>,
    in_flight: Vec<InFlight>,
    next_query: u64,
    /// The frame's look and body writes' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
}

/// A recorded query: its answer's buffer, and whether the map the submit requested is done.
struct InFlight {
    id: QueryId,
    points: usize,
    answer: wgpu::Buffer,
    mapped: std::sync::Arc<std::sync::Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>>,
}

impl Water {
    /// Builds the scene's state and passes on the host's device. The device should carry the
    /// adapter's limits (`required_limits: adapter.limits()`): wgpu's defaults allow 8 storage
    /// buffers per stage, and several passes bind more.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, scene: &Scene, options: WaterOptions) -> Result<Water> {
        let [lx, ly, lz] = options.light;
        let norm = (lx * lx + ly * ly + lz * lz).sqrt();
        check_options(scene, &options)?;
        let model = scene.physics.model;
        // Validation errors of the build come back as an Err (the guard pops on every return).
        let scopes = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut sim = Simulation::from_device(scene, device, queue)?;
        let (nx, ny) = (scene.grid.nx, scene.grid.ny);
        let out = SurfaceBuffers::new(device, nx as u64 * ny as u64, options.caustics);
        let (model, surface, caustics, bodies) = match model {
            crate::scene::WaterModel::Pipes => {
                let (part, surface, caustics) = pipes::pipes_surface(device, &mut sim, &out, options.max_depth)?;
                (Model::Pipes(Box::new(part)), surface, caustics, false)
            }
            crate::scene::WaterModel::ShallowWater => {
                let (part, surface, caustics) =
                    shallow_water::shallow_water_surface(device, &mut sim, &out, options.max_depth)?;
                (Model::ShallowWater(Box::new(part)), surface, caustics, false)
            }
            crate::scene::WaterModel::NavierStokes => {
                let (part, surface, caustics, bodies) = navier_stokes::layer_surface(device, &mut sim, &out)?;
                (Model::NavierStokes(Box::new(part)), surface, caustics, bodies)
            }
            _ => height_field_surface(device, &mut sim, &out, &options)?,
        };
        let look = Look {
            nx,
            ny,
            dx: scene.grid.dx as f32,
            decay: 1.0,
            light: [
                (lx / norm) as f32,
                (ly / norm) as f32,
                (lz / norm) as f32,
                (1.0 / options.refractive_index) as f32,
            ],
            bodies: bodies as u32,
            _pad: [0; 3],
        };
        if let Some(e) = crate::engine::gpu::context::caught(scopes.pop()) {
            return Err(e.into());
        }
        Ok(Water {
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
            sim,
            surface,
            caustics,
            model,
            out,
            look,
            edits: Vec::new(),
            body_writes: Vec::new(),
            options,
            steps: 0,
            queries: Vec::new(),
            in_flight: Vec::new(),
            next_query: 0,
        })
    }

    fn gpu(&mut self) -> &mut GpuSolver {
        solver(&mut self.sim)
    }

    /// The device the model's state lives on.
    fn device(&mut self) -> wgpu::Device {
        match self.model {
            Model::HeightField { .. } => solver(&mut self.sim).device().clone(),
            Model::Pipes(_) => pipes::pipes(&mut self.sim).device().clone(),
            Model::ShallowWater(_) => shallow_water::sw(&mut self.sim).device().clone(),
            Model::NavierStokes(_) => navier_stokes::ns(&mut self.sim).device().clone(),
        }
    }

    /// Records the host's edits, `steps` steps, and the surface passes into `encoder`. Submit
    /// every encoder recorded into, in order: the surface buffers then hold the state after
    /// these steps. `steps` may be 0 (edits and surface only).
    pub fn record(&mut self, encoder: &mut wgpu::CommandEncoder, steps: u32) {
        let dt = self.sim.scene().time.dt;
        let look = Look {
            decay: crate::engine::cpu::surface::decay(steps as f64 * dt, self.options.drying_time),
            ..self.look
        };
        self.uploads
            .stage(encoder, &self.surface.look, 0, bytemuck::bytes_of(&look));
        let current = match &mut self.model {
            Model::HeightField { edit } => {
                let edits = std::mem::take(&mut self.edits);
                let body_writes = std::mem::take(&mut self.body_writes);
                record_height_field(
                    &mut self.sim,
                    edit,
                    &self.uploads,
                    encoder,
                    (&edits, &body_writes),
                    self.steps,
                    steps,
                )
            }
            Model::Pipes(part) => {
                let edits = std::mem::take(&mut self.edits);
                let body_writes = std::mem::take(&mut self.body_writes);
                part.record(
                    &mut self.sim,
                    &self.uploads,
                    encoder,
                    (&edits, &body_writes),
                    self.steps,
                    steps,
                );
                0
            }
            Model::ShallowWater(part) => {
                let edits = std::mem::take(&mut self.edits);
                let body_writes = std::mem::take(&mut self.body_writes);
                if let Some(states) = shallow_water::sw(&mut self.sim).body_states() {
                    for (offset, bytes) in &body_writes {
                        self.uploads.stage(encoder, states, *offset, bytes);
                    }
                }
                part.record(&mut self.sim, encoder, &edits, self.steps, steps);
                0
            }
            Model::NavierStokes(part) => {
                let body_writes = std::mem::take(&mut self.body_writes);
                if let Some((states, _)) = navier_stokes::ns(&mut self.sim).body_buffers() {
                    for (offset, bytes) in &body_writes {
                        self.uploads.stage(encoder, states, *offset, bytes);
                    }
                }
                part.record(&mut self.sim, encoder, self.steps, steps);
                0
            }
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shoal surface"),
            timestamp_writes: None,
        });
        self.surface.record(&mut pass, current);
        if let Some(caustics) = &self.caustics {
            caustics.record(&mut pass);
        }
        drop(pass);
        self.steps += steps as u64;
        self.record_queries(encoder);
    }

    /// Asks for the water at `points` (x, y in metres; off the grid, its edge): the surface's
    /// height, depth and normal, bilinear between cell centres. The query runs in the next
    /// `record`, on the state after its steps, and its answer comes back without a stall: the
    /// buffer is mapped when the host submits that encoder, and [`Water::answers`] picks it up
    /// once the GPU has done the work, typically one frame later (two when the GPU runs a frame
    /// behind).
    pub fn query(&mut self, points: &[[f64; 2]]) -> Result<QueryId> {
        crate::models::require(
            self.sim.scene().physics.model,
            crate::models::Feature::Queries,
            "Water::query",
        )?;
        let id = QueryId(self.next_query);
        self.next_query += 1;
        self.queries.push((id, crate::query::points_f32(points)));
        Ok(id)
    }

    /// The answers that have arrived, in the order they were asked (never waits: a
    /// non-blocking device poll runs the map callbacks that are due).
    pub fn answers(&mut self) -> Result<Vec<(QueryId, Vec<WaterSample>)>> {
        if self.in_flight.is_empty() {
            return Ok(Vec::new());
        }
        let device = self.device();
        device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| Error::Readback(e.to_string()))?;
        let reference = self.sim.reference_level();
        let mut done = Vec::new();
        let mut waiting = Vec::new();
        for q in std::mem::take(&mut self.in_flight) {
            let state = q.mapped.lock().unwrap_or_else(|e| e.into_inner()).take();
            match state {
                None => waiting.push(q),
                Some(Err(e)) => return Err(Error::Readback(e.to_string())),
                Some(Ok(())) => {
                    let bytes = q
                        .answer
                        .slice(..)
                        .get_mapped_range()
                        .map_err(|e| Error::Readback(e.to_string()))?
                        .to_vec();
                    q.answer.unmap();
                    let raw: Vec<crate::query::RawSample> = bytemuck::pod_collect_to_vec(&bytes);
                    let samples = raw[..q.points].iter().map(|r| WaterSample::of(r, reference)).collect();
                    done.push((q.id, samples));
                }
            }
        }
        self.in_flight = waiting;
        Ok(done)
    }

    /// Records the queries asked since the last `record` after its surface pass, each mapped
    /// when the host submits the encoder.
    fn record_queries(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let dx = self.sim.scene().grid.dx as f32;
        for (id, points) in std::mem::take(&mut self.queries) {
            let answer = match self.model {
                Model::ShallowWater(_) => shallow_water::sw(&mut self.sim).record_query(encoder, dx, &points),
                Model::NavierStokes(_) => navier_stokes::ns(&mut self.sim).record_query(encoder, dx, &points),
                Model::Pipes(_) => pipes::pipes(&mut self.sim).record_query(encoder, dx, &points),
                _ => solver(&mut self.sim).record_query(encoder, dx, &points),
            };
            let mapped = std::sync::Arc::new(std::sync::Mutex::new(None));
            let flag = mapped.clone();
            encoder.map_buffer_on_submit(&answer, wgpu::MapMode::Read, .., move |r| {
                *flag.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
            self.in_flight.push(InFlight {
                id,
                points: points.len(),
                answer,
                mapped,
            });
        }
    }

    /// Adds a splash at (x, y) metres: the surface rises by `height` at the centre, falling off
    /// as (1 − r²/radius²)² (negative: a dip, down to the ground at most). The water it adds
    /// joins the volume target, so the correction keeps it. Applied at the next `record`.
    pub fn disturb(&mut self, x: f64, y: f64, radius: f64, height: f64) -> Result<()> {
        self.push_edit("disturb", EDIT_DISTURB, x, y, radius, height)
    }

    /// Raises the ground at (x, y) metres by `height` at the centre (negative digs), with the
    /// same falloff as `disturb`. Water on it rides along: no water is made or lost. Applied
    /// at the next `record`. On the pipes both edits count in whole units of their water, and a
    /// brush under a slab raises the ground no higher than leaves the water below it its room.
    /// To dig deeper than the scene's deepest water, say how deep in `WaterOptions::max_depth`.
    pub fn brush(&mut self, x: f64, y: f64, radius: f64, height: f64) -> Result<()> {
        self.push_edit("brush", EDIT_BRUSH, x, y, radius, height)
    }

    /// Queues an edit after checking its numbers: a NaN here would reach every cell it touches.
    fn push_edit(&mut self, what: &str, kind: u32, x: f64, y: f64, radius: f64, height: f64) -> Result<()> {
        crate::models::require(
            self.sim.scene().physics.model,
            crate::models::Feature::InPlaceEdits,
            what,
        )?;
        if ![x, y, radius, height].iter().all(|v| v.is_finite()) || radius <= 0.0 {
            return Err(Error::Embed(format!(
                "{what}({x}, {y}, radius {radius}, height {height}): need finite numbers and a positive radius"
            )));
        }
        let dx = self.sim.scene().grid.dx;
        self.edits.push(HostEdit::at(kind, x, y, radius, height, dx));
        Ok(())
    }

    /// Places body `index` (file order) at `position` (absolute metres) moving at `velocity`
    /// (m/s): a teleport, applied at the next `record`; the water responds through the coupling
    /// from the next step. Jumps of more than a cell, or into the water, throw waves; to drag a
    /// body each frame, use `drag_body`.
    pub fn move_body(&mut self, index: usize, position: [f64; 3], velocity: [f64; 3]) -> Result<()> {
        let at = self.body_offset(index)?;
        finite("move_body", &[position, velocity].concat())?;
        let reference = self.sim.reference_level();
        let pos = [position[0] as f32, position[1] as f32, (position[2] - reference) as f32];
        let vel = [velocity[0] as f32, velocity[1] as f32, velocity[2] as f32];
        // BodyState: position.xyz at byte 0 (mass at 12 stays), velocity.xyz at byte 32.
        self.body_writes.push((at, bytemuck::cast_slice(&pos).to_vec()));
        self.body_writes.push((at + 32, bytemuck::cast_slice(&vel).to_vec()));
        Ok(())
    }

    /// Sets body `index`'s horizontal velocity (m/s), e.g. a body the player drags: it keeps its
    /// vertical motion and spin, and buoyancy, drag and the coupling act on it as usual. Applied
    /// at the next `record`. Gentler on the water than `move_body`, which teleports.
    pub fn drag_body(&mut self, index: usize, vx: f64, vy: f64) -> Result<()> {
        let at = self.body_offset(index)?;
        finite("drag_body", &[vx, vy])?;
        self.body_writes
            .push((at + 32, bytemuck::cast_slice(&[vx as f32, vy as f32]).to_vec()));
        Ok(())
    }

    /// Byte offset of body `index` in the states buffer, or an error naming the bad index.
    fn body_offset(&self, index: usize) -> Result<u64> {
        let count = self.sim.bodies().len();
        if index >= count {
            return Err(Error::Embed(format!("no body {index}: the scene has {count}")));
        }
        Ok((index * std::mem::size_of::<crate::engine::bodies::BodyState>()) as u64)
    }

    /// The surface buffers, the same objects for the life of the `Water`.
    pub fn buffers(&self) -> &SurfaceBuffers {
        &self.out
    }

    /// The ground b − ref, f32 per cell, row-major [ny, nx], in the buffer's first nx·ny words
    /// (on the height field, Shoal's per-cell forcing follows them: bind or copy that range);
    /// brushes edit it in place. With the pipes, each column's top floor (a bridge deck, a rock's
    /// top; brushes move the ground under the solids, and this where no solid stands above).
    /// With the shallow-water model its first nx·ny words too (with air pressure, each step's
    /// head follows them). Usage STORAGE | VERTEX | COPY_SRC | COPY_DST.
    pub fn ground_buffer(&mut self) -> &wgpu::Buffer {
        match &self.model {
            Model::Pipes(part) => &part.ground,
            Model::ShallowWater(_) => &shallow_water::sw(&mut self.sim).buffers().ground,
            Model::NavierStokes(_) => navier_stokes::ns(&mut self.sim).surface_buffers().1,
            Model::HeightField { .. } => &solver(&mut self.sim).state().ground,
        }
    }

    /// The spray's particles (`[spray]` on the pipes or the Navier-Stokes layer):
    /// `crate::Particle` (32 B) each, position (x, y from the domain's corner, z − ref) at byte 0,
    /// units (u32) at 12, velocity at 16, age at 28. On the pipes the first `count` are live
    /// (`particle_draw_args`); on the layer every slot is drawn and a shader drops the free ones:
    /// spray has units > 0, foam units 0 and age > 0 (its seconds left), a free slot neither.
    /// Usage STORAGE | VERTEX | COPY_SRC | COPY_DST, so it binds as a per-instance vertex
    /// buffer. The same buffer for the life of the `Water`; None without spray.
    pub fn particles_buffer(&mut self) -> Option<&wgpu::Buffer> {
        if let Model::NavierStokes(_) = self.model {
            return navier_stokes::ns(&mut self.sim).particle_slots();
        }
        self.sim.gpu_pipes()?.particle_buffers().map(|(particles, _)| particles)
    }

    /// Indirect draw args for the particles, `[6, count, 0, 0]` (`draw_indirect`: six vertices,
    /// a quad, per live particle), written on the GPU each step: draw the spray with no readback.
    /// Usage STORAGE | INDIRECT | COPY_SRC | COPY_DST. None without spray, and on the layer
    /// (whose slots are not compacted: draw them all).
    pub fn particle_draw_args(&mut self) -> Option<&wgpu::Buffer> {
        self.sim.gpu_pipes()?.particle_buffers().map(|(_, draw)| draw)
    }

    /// The bodies' states, `crate::engine::bodies::BodyState` (144 B) per body in file order: position
    /// (xyz, z − ref; w mass) at byte 0, rotation quaternion (x, y, z, w) at 16, half extents at
    /// 64, kind (shape, …) at 128. Usage STORAGE | VERTEX | COPY_SRC | COPY_DST, so it binds as a
    /// per-instance vertex buffer. None without bodies.
    pub fn bodies_buffer(&mut self) -> Option<&wgpu::Buffer> {
        match self.model {
            Model::HeightField { .. } => {
                let state = self.gpu().state();
                (state.bodies.count > 0).then_some(&state.bodies.states)
            }
            Model::ShallowWater(_) => shallow_water::sw(&mut self.sim).body_states(),
            Model::Pipes(_) => self.sim.gpu_pipes()?.body_states(),
            Model::NavierStokes(_) => navier_stokes::ns(&mut self.sim)
                .body_buffers()
                .map(|(states, _)| states),
        }
    }

    /// What covers each column, `crate::engine::bodies::Cover` (16 B) per cell, row-major [ny, nx]:
    /// `owner` is 1 + the body's index (bit 31: the coupling expels its water), 0 where none;
    /// `bottom`/`top` the body's underside and top − ref. One stand-in element without bodies.
    pub fn covers_buffer(&mut self) -> &wgpu::Buffer {
        match &self.model {
            Model::Pipes(part) => &part.cover,
            Model::ShallowWater(part) => &part.cover,
            Model::NavierStokes(part) => &part.cover,
            Model::HeightField { .. } => &solver(&mut self.sim).state().bodies.cover,
        }
    }

    /// The shallow-water model's depth-averaged velocity (u, v), m/s, `vec2<f32>` per cell,
    /// row-major [ny, nx], 0 where dry, written by every `record` after its steps: for foam,
    /// flow maps and particles advected on the GPU. The same buffer for the life of the `Water`.
    /// Usage STORAGE | VERTEX | COPY_SRC | COPY_DST. None for the other models.
    pub fn velocity_buffer(&self) -> Option<&wgpu::Buffer> {
        match &self.model {
            Model::ShallowWater(part) => Some(part.velocity()),
            _ => None,
        }
    }

    /// The pipes' water in whole units, u32 per cell, layer-major (`layer · nx·ny + column`), and
    /// the m³ one unit holds: the exact volume (Σ units × it, the columns' water without the
    /// spray in flight, as `Simulation::stats` counts it) for a host that reads it back without a
    /// stall (`readback::read_async`), under overhangs too, where the `depth` buffer sees only the
    /// water over each column's top floor. None on the other models (their `depth` is all of it).
    /// The same buffer for the life of the `Water`. Usage STORAGE | COPY_SRC | COPY_DST.
    pub fn units_buffer(&mut self) -> Option<(&wgpu::Buffer, f64)> {
        let Model::Pipes(_) = self.model else {
            return None;
        };
        let per_unit = self.sim.unit_volume()?;
        Some((&pipes::pipes(&mut self.sim).buffers().water, per_unit))
    }

    /// Bodies in the scene.
    pub fn body_count(&self) -> usize {
        self.sim.bodies().len()
    }

    /// (nx, ny, dx): cells along x and y and the cell size in metres.
    pub fn grid(&self) -> (u32, u32, f64) {
        let g = &self.sim.scene().grid;
        (g.nx, g.ny, g.dx)
    }

    /// The level every height buffer is relative to (metres): add it for absolute heights.
    pub fn reference_level(&self) -> f64 {
        self.sim.reference_level()
    }

    /// Steps recorded so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Simulated time recorded so far, seconds.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.sim.scene().time.dt
    }

    /// The options it was built with.
    pub fn options(&self) -> &WaterOptions {
        &self.options
    }

    /// Substeps per step, as planned at build (the shallow-water model's follow its flow).
    pub fn substeps(&self) -> u32 {
        self.sim.substeps()
    }

    /// Reads the current level and ground back (h − ref, b − ref): for tests and tools, never a
    /// frame loop. Waits for the GPU.
    pub fn read_level(&mut self) -> Result<(Vec<f32>, Vec<f32>)> {
        if let Model::ShallowWater(_) = self.model {
            return shallow_water::read_level(&mut self.sim);
        }
        if let Model::NavierStokes(_) = self.model {
            return navier_stokes::read_level(&mut self.sim);
        }
        if let Model::Pipes(part) = &self.model {
            return part.read_level(&mut self.sim);
        }
        let gpu = self.gpu();
        let (device, queue) = (gpu.device().clone(), gpu.queue().clone());
        let state = gpu.state();
        let f32s = |b: &wgpu::Buffer| -> Result<Vec<f32>> {
            Ok(bytemuck::pod_collect_to_vec(&crate::engine::gpu::readback::read(
                &device, &queue, b,
            )?))
        };
        let mut ground = f32s(&state.ground)?;
        // The ground buffer's forcing words follow the ground.
        ground.truncate(state.cells() as usize);
        Ok((f32s(&state.eta[state.current])?, ground))
    }

    /// The water volume now (m³, Σ depth·dx² in f64) and the volume the correction holds it to,
    /// both read back: for tests and tools. With bodies, the water under a body's waterline
    /// counts in the first and not in the second. The shallow-water model corrects nothing (it
    /// conserves by construction): its second is the start, the splashes' water and what the
    /// scene's sources, drains and rain asked (a drain that ran dry counts as asked).
    pub fn read_volume(&mut self) -> Result<(f64, f64)> {
        if let Model::ShallowWater(part) = &self.model {
            return part.read_volume(&mut self.sim);
        }
        if let Model::NavierStokes(part) = &self.model {
            return part.read_volume(&mut self.sim);
        }
        if let Some((start, per_unit)) = self.sim.unit_books() {
            // The pipes count whole units: columns and particles now, and the start plus what
            // sources, drains and sides made since (the exchange an embedded run keeps).
            let books = self.sim.gpu_pipes().expect("built on the GPU pipes").read_books()?;
            let crate::engine::solver::ModelReport::Pipes {
                water_units: (water, exchange),
                spray,
            } = books.model
            else {
                return Err(Error::Embed("the pipes' books hold no units".into()));
            };
            let flying = spray.map_or(0, |s| s.units);
            return Ok(((water + flying) as f64 * per_unit, (start + exchange) as f64 * per_unit));
        }
        let (eta, ground) = self.read_level()?;
        let dx = self.sim.scene().grid.dx;
        let volume: f64 = eta.iter().zip(&ground).map(|(&e, &b)| (e - b).max(0.0) as f64).sum();
        let still: f64 = ground.iter().map(|&b| (-(b as f64)).max(0.0)).sum();
        let gpu = self.gpu();
        // The target's two words, not the whole books buffer (its partial sums grow with the grid);
        // the last step's drains' shortfall, if a drain ran short, joins it on the next step.
        let at = std::mem::offset_of!(crate::engine::params::VolumeState, target_hi) as u64;
        let range = (&gpu.state().books, books_at(Books::Volume) + at, 8);
        let raw = crate::engine::gpu::readback::read_ranges(gpu.device(), gpu.queue(), &[range])?;
        let pair: [f32; 2] = bytemuck::pod_read_unaligned(&raw[0]);
        let target = crate::engine::params::pair_value(pair) + still;
        Ok((volume * dx * dx, target * dx * dx))
    }

    /// Fails if a step went NaN or infinite since the `Water` was built (a readback: call it
    /// now and then, not every frame); with the shallow-water model, also when the last frame's
    /// flow outran the substeps (see `WaterOptions::max_depth`).
    pub fn check(&mut self) -> Result<()> {
        let steps = self.steps;
        if let Model::ShallowWater(part) = &mut self.model {
            return part.check(&mut self.sim, steps);
        }
        if let Model::NavierStokes(part) = &mut self.model {
            return part.check(&mut self.sim, steps);
        }
        if let Some(pipes) = self.sim.gpu_pipes() {
            if pipes.read_books()?.totals.nonfinite > 0 {
                return Err(Error::Diverged { step: steps });
            }
            return Ok(());
        }
        let gpu = self.gpu();
        let raw = crate::engine::gpu::readback::read(gpu.device(), gpu.queue(), &gpu.state().books)?;
        let at = books_at(Books::FirstBadStep) as usize;
        let flag: u32 = bytemuck::pod_read_unaligned(&raw[at..at + 4]);
        if flag != u32::MAX {
            return Err(Error::Diverged { step: steps });
        }
        Ok(())
    }
}

/// The height field's part of `Water::record`: the host's edits and body writes, then `steps`
/// steps after step `at`. Returns the level the steps left current.
fn record_height_field(
    sim: &mut Simulation,
    edit: &mut Edit,
    uploads: &crate::engine::gpu::uploads::Uploads,
    encoder: &mut wgpu::CommandEncoder,
    (edits, body_writes): (&[HostEdit], &[(u64, Vec<u8>)]),
    at: u64,
    steps: u32,
) -> usize {
    let substeps = sim.substeps();
    let gpu = solver(sim);
    let device = gpu.device().clone();
    let state = gpu.state();
    for (offset, bytes) in body_writes {
        uploads.stage(encoder, &state.bodies.states, *offset, bytes);
    }
    if !edits.is_empty() {
        edit.stage(&device, encoder, state, edits);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shoal edits"),
            timestamp_writes: None,
        });
        edit.record(&mut pass, state, gpu.reduce());
    }
    for input in embedded_chunks(sim, at, steps) {
        solver(sim).record_chunk(encoder, input.steps, substeps, &input.chunk);
    }
    solver(sim).state().current
}

/// A frame's `steps` steps after step `at`, cut into the chunks an encoder records (at most
/// `EMBEDDED_CHUNK` steps each), each with the scene's rain, sources and air pressure step by step
/// as a batch run makes them (keyed by step index).
fn embedded_chunks(sim: &Simulation, at: u64, steps: u32) -> Vec<EmbeddedChunk> {
    let mut chunks = Vec::new();
    let mut done = 0;
    while done < steps {
        let n = (steps - done).min(crate::engine::gpu::EMBEDDED_CHUNK);
        let first_step = at + done as u64;
        let chunk = crate::engine::solver::ChunkInput {
            target: 0.0,
            books_target: [0.0; 2],
            rain: if sim.feeds().any() {
                sim.feeds().chunk(first_step, n)
            } else {
                Default::default()
            },
            first_step,
            pressure: sim.patches().chunk(first_step, n),
        };
        chunks.push(EmbeddedChunk { steps: n, chunk });
        done += n;
    }
    chunks
}

/// One of a frame's chunks: its steps and what feeds them.
struct EmbeddedChunk {
    steps: u32,
    chunk: crate::engine::solver::ChunkInput,
}

/// The GPU backend a `Water` is built on (`Water::new` refuses anything else).
fn solver(sim: &mut Simulation) -> &mut GpuSolver {
    sim.gpu_solver().expect("Water is built on the GPU backend")
}

/// Refuses a body edit with a non-finite number in it (it would turn the body, then the water,
/// to NaN).
fn finite(what: &str, values: &[f64]) -> Result<()> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::Embed(format!("{what}: {values:?} are not all finite")))
    }
}

/// The options and the scene's model, checked before anything is built.
fn check_options(scene: &Scene, options: &WaterOptions) -> Result<()> {
    let [lx, ly, lz] = options.light;
    let norm = (lx * lx + ly * ly + lz * lz).sqrt();
    if !(lz < 0.0 && norm.is_finite()) {
        return Err(Error::Embed(format!(
            "WaterOptions::light {:?} must point down (z < 0)",
            options.light
        )));
    }
    if !(options.refractive_index >= 1.0 && options.drying_time >= 0.0) {
        return Err(Error::Embed(
            "WaterOptions: refractive_index must be ≥ 1 and drying_time ≥ 0".into(),
        ));
    }
    if let Some(depth) = options.max_depth.filter(|d| !(d.is_finite() && *d > 0.0)) {
        return Err(Error::Embed(format!(
            "WaterOptions::max_depth {depth} must be positive"
        )));
    }
    crate::models::require(scene.physics.model, crate::models::Feature::Embedding, "Water")?;
    if scene.physics.model == crate::scene::WaterModel::NavierStokes && options.max_depth.is_some() {
        return Err(Error::Embed(format!(
            "WaterOptions::max_depth plans the substeps for the deepest water the host's edits make: the {} \
             has no edits in Water and follows its flow",
            crate::models::of(scene.physics.model).name()
        )));
    }
    Ok(())
}

/// What the surface pass reads and the model's own part of `Water`, for one model.
type Built = (Model, Surface, Option<Caustics>, bool);

/// The render side's passes over a model's surface: the surface and, when asked, the caustics.
fn render_passes(device: &wgpu::Device, source: SurfaceSource, out: &SurfaceBuffers) -> (Surface, Option<Caustics>) {
    let surface = Surface::new(device, source, out);
    let caustics = out
        .caustics
        .as_ref()
        .map(|c| Caustics::new(device, source, &surface, out, c));
    (surface, caustics)
}

/// A stand-in for the covers' buffer where the model has no bodies: one empty `Cover`.
fn no_cover(device: &wgpu::Device) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("no covers"),
        size: std::mem::size_of::<crate::engine::bodies::Cover>() as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::VERTEX
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The height field's surface, its edits, and its substeps planned for `max_depth`.
fn height_field_surface(
    device: &wgpu::Device,
    sim: &mut Simulation,
    out: &SurfaceBuffers,
    options: &WaterOptions,
) -> Result<Built> {
    if let Some(depth) = options.max_depth {
        sim.plan_for_depth(depth)?;
    }
    let target = sim.books_target();
    let gpu = sim
        .gpu_solver()
        .ok_or_else(|| Error::Embed("Water needs the GPU backend".into()))?;
    gpu.set_target(target);
    let state = gpu.state();
    let (surface, caustics) = render_passes(device, state.surface_source(), out);
    let edit = Edit::new(device, state);
    Ok((
        Model::HeightField { edit: Box::new(edit) },
        surface,
        caustics,
        state.bodies.count > 0,
    ))
}
