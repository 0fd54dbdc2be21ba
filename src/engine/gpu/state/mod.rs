//! The simulation state in GPU storage buffers, and the small buffers the passes share.
//!
//! `eta[p]`, `vel[p]` (p = 0, 1) ping-pong: a step reads `current` and writes the other, and the
//! passes hold one bind group per direction, created once, picked by index.

mod bodies;
mod fields;
mod regions;

pub use bodies::{BodyBuffers, BodySurface};
pub use fields::FieldAlloc;
pub use regions::RegionBuffers;

use crate::engine::gpu::binding::{dynamic_offset_alignment, filled_buffer, zeroed_buffer, UNIFORM};
use crate::engine::params::{Totals, MAX_CHUNK};
use crate::engine::solver::Setup;
use crate::engine::state_table::Field;
use crate::error::{Error, Result};

/// The state's GPU buffers (`state_table::FIELDS` lists what each holds).
pub struct GpuState {
    /// Cells along x.
    pub nx: u32,
    /// Cells along y.
    pub ny: u32,
    /// The `Params` uniform.
    pub params: wgpu::Buffer,
    /// b − ref, f32 [ny, nx], then the per-cell forcing (level.wgsl): the damping map's 1 − tau,
    /// then the pressure head (16 B without either). One buffer, one binding: see level.wgsl.
    pub ground: wgpu::Buffer,
    /// h − ref, f32 [ny, nx], two levels of the ping-pong.
    pub eta: [wgpu::Buffer; 2],
    /// h^n − h^(n−1) per substep, f32 [ny, nx], ping-ponged with eta.
    pub vel: [wgpu::Buffer; 2],
    /// Rounding residual of each cell's compensated eta update, f32 [ny, nx], updated in place,
    /// then what the dry-cell rule did to each cell since the last correction: (water made,
    /// per-step change dropped), `vec2<f32>` per cell under `CORRECT_CLAMPS`, else 16 bytes.
    /// One buffer, one binding (carry.wgsl); `field_range` says where each field is.
    pub carry: wgpu::Buffer,
    /// The books (`Books` in books.wgsl): the reduction's `Totals`, the volume target and this
    /// step's correction (`VolumeState`), the first step index (within a submit) that produced a
    /// non-finite value (u32::MAX when none), then the reduction's per-workgroup partial sums.
    /// One binding, so that a pass binds few storage buffers; `books_at` says where each is.
    pub books: wgpu::Buffer,
    /// Workgroups of the reduction's first pass (`Params::n_partials`).
    pub n_partials: u32,
    /// One `StepSlot` per step of a submit, `slot_stride` bytes apart, for dynamic offsets.
    pub slots: wgpu::Buffer,
    /// Bytes between step slots (the device's uniform offset alignment).
    pub slot_stride: u32,
    /// Each probe's cell index.
    pub probe_cells: wgpu::Buffer,
    /// Each probe's height after each step of a submit.
    pub probe_history: wgpu::Buffer,
    /// Probes in the scene.
    pub n_probes: u32,
    /// Height per step each cell's sources ask for, drains negative (16 B without sources).
    pub source: wgpu::Buffer,
    /// Each cell's share of `[rainfall]`'s intensity (16 B without a map).
    pub rainfall_map: wgpu::Buffer,
    /// The flood maps so far (16 B without `[output] summary`).
    pub summary: wgpu::Buffer,
    /// What each drain cell could not take on the last step, less what its ground took (16 B
    /// without sources).
    pub shortfall: wgpu::Buffer,
    /// `[infiltration]`: each cell's soil state, `vec4<f32>` (16 B without).
    pub soil: wgpu::Buffer,
    /// The per-region correction's buffers (regions.wgsl), stand-ins unless it runs.
    pub regions: crate::engine::gpu::state::RegionBuffers,
    /// The bodies and their coupling solve (bodies.wgsl, coupling.wgsl), stand-ins without bodies.
    pub bodies: crate::engine::gpu::state::BodyBuffers,
    /// Regions its table holds (`Params::regions`, 0 when off).
    pub region_capacity: u32,
    /// Which of the two levels holds the current state.
    pub current: usize,
}

/// Checks the grid against the device before anything is allocated.
pub fn check_grid_fits(limits: &wgpu::Limits, nx: u32, ny: u32) -> Result<()> {
    let too_large = |what: String| Err(Error::GridTooLarge { nx, ny, what });
    let cells = nx as u64 * ny as u64;
    let bytes = cells * 4;
    if cells >= u32::MAX as u64 / 2 {
        return too_large(format!("{cells} cells exceed the 32-bit cell index"));
    }
    if bytes > limits.max_storage_buffer_binding_size {
        return too_large(format!(
            "one height field needs {bytes} bytes, the adapter binds at most {} (max_storage_buffer_binding_size)",
            limits.max_storage_buffer_binding_size
        ));
    }
    if bytes > limits.max_buffer_size {
        return too_large(format!(
            "one height field needs {bytes} bytes, the adapter's max_buffer_size is {}",
            limits.max_buffer_size
        ));
    }
    // The passes' tiles are 16×16 cells, the explicit step's two-row tiles STEP_WIDTH × STEP_HEIGHT.
    use crate::wgsl::explicit::{STEP_HEIGHT, STEP_WIDTH};
    let max_groups = limits.max_compute_workgroups_per_dimension as u64;
    let (across, down) = (STEP_WIDTH.min(16) as u64, STEP_HEIGHT.min(16) as u64);
    if (nx as u64).div_ceil(across) > max_groups || (ny as u64).div_ceil(down) > max_groups {
        return too_large(format!("more than {max_groups} workgroups along one axis"));
    }
    Ok(())
}

impl GpuState {
    /// Allocates and fills the state for `setup`: the table's fields through [`FieldAlloc`], then
    /// the small buffers beside them (uniforms, reduction, probes, step slots).
    pub fn new(device: &wgpu::Device, setup: &Setup) -> Result<GpuState> {
        let (params, probe_cells) = (&setup.params, setup.probe_cells);
        check_grid_fits(&device.limits(), params.nx, params.ny)?;
        let fields = FieldAlloc::new(device, setup);
        let storage = wgpu::BufferUsages::STORAGE;
        let copy = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        // A host binds the surface fields as vertex data (`Water`).
        let bound = storage | wgpu::BufferUsages::VERTEX;
        let eta: &[u8] = bytemuck::cast_slice(setup.eta);
        let init = |label: &str, contents: &[u8], usage| filled_buffer(device, label, contents, usage);
        let empty = |label: &str, size: u64, usage| zeroed_buffer(device, label, size, usage);
        let slot_stride = dynamic_offset_alignment(&device.limits());
        // Zero-sized bindings break some drivers: probe buffers hold at least one element.
        let probe_words: &[u32] = if probe_cells.is_empty() { &[0] } else { probe_cells };
        let history_len = (MAX_CHUNK as usize * probe_cells.len()).max(1);
        let n_partials = params.n_partials.max(1) as u64;
        Ok(GpuState {
            nx: params.nx,
            ny: params.ny,
            params: init("params", bytemuck::bytes_of(params), UNIFORM | copy),
            ground: ground_buffer(device, setup, bound | copy),
            eta: [
                fields.buffer(Field::Eta, "eta 0", eta, bound),
                fields.buffer(Field::Eta, "eta 1", eta, bound),
            ],
            vel: [
                vel_buffer(device, setup, &fields, "vel 0", true),
                vel_buffer(device, setup, &fields, "vel 1", false),
            ],
            carry: zeroed_buffer(
                device,
                "carry",
                params.nx as u64 * params.ny as u64 * 4 + fields.bytes(Field::Clamped),
                storage | copy,
            ),
            books: init("books", &books_bytes(n_partials), storage | copy),
            n_partials: params.n_partials,
            slots: init(
                "step slots",
                &crate::engine::gpu::binding::slot_bytes(slot_stride, MAX_CHUNK),
                UNIFORM,
            ),
            slot_stride,
            probe_cells: init("probe cells", bytemuck::cast_slice(probe_words), storage),
            probe_history: empty("probe history", history_len as u64 * 4, storage | copy),
            n_probes: probe_cells.len() as u32,
            source: fields.buffer(Field::Source, "source", bytemuck::cast_slice(setup.source), storage),
            rainfall_map: fields.buffer(
                Field::RainfallMap,
                "rainfall map",
                bytemuck::cast_slice(setup.rainfall_map),
                storage,
            ),
            summary: fields.buffer(
                Field::Summary,
                "summary",
                bytemuck::cast_slice(
                    &setup
                        .summary
                        .map_or(Vec::new(), |wet| crate::summary::initial(setup.eta, setup.ground, wet)),
                ),
                storage | copy,
            ),
            shortfall: fields.buffer(Field::Shortfall, "shortfall", &[], storage),
            soil: fields.buffer(Field::Soil, "soil", &[], storage),
            regions: crate::engine::gpu::state::RegionBuffers::new(
                device,
                &fields,
                params.nx * params.ny,
                params.regions,
            ),
            bodies: crate::engine::gpu::state::BodyBuffers::new(device, &fields, setup),
            region_capacity: params.regions,
            current: 0,
        })
    }

    /// What the body passes and the coupling bind of this state.
    pub fn body_surface(&self) -> crate::engine::gpu::state::BodySurface<'_> {
        crate::engine::gpu::state::BodySurface {
            params: &self.params,
            ground: &self.ground,
            eta: [&self.eta[0], &self.eta[1]],
            vel: [&self.vel[0], &self.vel[1]],
            slots: &self.slots,
            nx: self.nx,
            ny: self.ny,
        }
    }

    /// nx·ny.
    pub fn cells(&self) -> u32 {
        self.nx * self.ny
    }

    /// The buffer holding `field` of the current state (the current level of a ping-ponged
    /// one) and the byte range the field takes in it (`None`: the rest of the buffer), for the
    /// fields a backend saves and loads (`Kept::State`); None for the rest.
    pub fn field_range(&self, field: Field) -> Option<(&wgpu::Buffer, u64, Option<u64>)> {
        let residuals = self.field_bytes();
        match field {
            Field::Carry => return Some((&self.carry, 0, Some(residuals))),
            Field::Clamped => return Some((&self.carry, residuals, None)),
            Field::Vel => return Some((&self.vel[self.current], 0, Some(residuals))),
            Field::Faces => return Some((&self.vel[self.current], residuals, None)),
            _ => {}
        }
        let r = &self.regions;
        let whole = match field {
            Field::Eta => &self.eta[self.current],
            Field::Shortfall => &self.shortfall,
            Field::Soil => &self.soil,
            Field::RegionLabels => &r.labels[r.current],
            Field::RegionTargets => &r.targets[r.current],
            Field::Pending => &r.pending,
            Field::Bodies => &self.bodies.states,
            Field::Cover => &self.bodies.cover,
            Field::Summary => &self.summary,
            _ => return None,
        };
        Some((whole, 0, None))
    }

    /// Bytes of one height field.
    pub fn field_bytes(&self) -> u64 {
        self.cells() as u64 * 4
    }
}

/// A level's per-step change, then the faces' flux memory where the run keeps it (`Field::Faces`,
/// two words per cell: explicit.wgsl's `memory_at`), holding the setup's start when `start`.
fn vel_buffer(device: &wgpu::Device, setup: &Setup, fields: &FieldAlloc, label: &str, start: bool) -> wgpu::Buffer {
    let usage = wgpu::BufferUsages::STORAGE
        | wgpu::BufferUsages::VERTEX
        | wgpu::BufferUsages::COPY_SRC
        | wgpu::BufferUsages::COPY_DST;
    let faces = if setup.params.faces != 0 {
        fields.bytes(Field::Faces)
    } else {
        0
    };
    let size = fields.bytes(Field::Vel) + faces;
    if !start || setup.vel.is_empty() && setup.faces.is_empty() {
        return zeroed_buffer(device, label, size, usage);
    }
    let mut words = setup.vel.to_vec();
    words.resize(setup.eta.len(), 0.0);
    words.extend(setup.faces);
    words.resize(size as usize / 4, 0.0);
    filled_buffer(device, label, bytemuck::cast_slice(&words), usage)
}

/// The parts of the books (`Books` in books.wgsl).
#[derive(Clone, Copy, Debug)]
pub enum Books {
    Totals,
    Volume,
    FirstBadStep,
    Partials,
}

/// Where a part of the books starts, in bytes: naga's offset of the WGSL member, so the host
/// cannot drift from the shader.
pub fn books_at(part: Books) -> u64 {
    let name = match part {
        Books::Totals => "totals",
        Books::Volume => "volume",
        Books::FirstBadStep => "first_bad_step",
        Books::Partials => "partials",
    };
    let layout = crate::wgsl::layout("Books").expect("books.wgsl declares Books");
    let (_, offset) = layout
        .members
        .iter()
        .find(|(m, _)| *m == name)
        .expect("a member of Books");
    *offset as u64
}

/// The books at the start: zero totals and volume, no bad step, zero partials.
fn books_bytes(n_partials: u64) -> Vec<u8> {
    let mut bytes = vec![0u8; (books_at(Books::Partials) + n_partials * size_of::<Totals>() as u64) as usize];
    let bad = books_at(Books::FirstBadStep) as usize;
    bytes[bad..bad + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    bytes
}

/// The ground buffer: the ground, then the per-cell forcing: the damping map's 1 − tau
/// (`setup.damping_keep`), then room for the pressure head where the scene has patches (its word
/// offset: [`head_at`]), then `[infiltration]`'s three parameter planes (volume.wgsl's
/// `soil_law_at`).
fn ground_buffer(device: &wgpu::Device, setup: &Setup, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let cells = (setup.params.nx * setup.params.ny) as usize;
    let mut words: Vec<f32> = setup.ground.to_vec();
    words.extend_from_slice(setup.damping_keep);
    if setup.pressure_patches > 0 {
        words.resize(words.len() + cells, 0.0);
    }
    words.extend_from_slice(setup.soil_law);
    words.resize(words.len().max(cells + 4), 0.0);
    filled_buffer(device, "ground", bytemuck::cast_slice(&words), usage)
}

/// Where the pressure head starts among the forcing's words, after the damping map (the CPU
/// twins' forcing; on the GPU the forcing follows the ground: add nx·ny).
pub fn head_at(params: &crate::engine::params::Params) -> u32 {
    if params.forcing & crate::wgsl::common::FORCE_DAMPING_MAP != 0 {
        params.nx * params.ny
    } else {
        0
    }
}
