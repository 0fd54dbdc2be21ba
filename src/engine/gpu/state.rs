//! The simulation state in GPU storage buffers, and the small buffers the passes share.
//!
//! `eta[p]`, `vel[p]` (p = 0, 1) ping-pong: a step reads `current` and writes the other, and the
//! passes hold one bind group per direction, created once, picked by index.

use crate::engine::params::{StepSlot, Totals, MAX_CHUNK};
use crate::engine::solver::Setup;
use crate::engine::state_table::{gpu_field_bytes, spec_of, Field, Kept, Shape};
use crate::error::{Error, Result};
use wgpu::util::DeviceExt;

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
    /// What each drain cell could not take on the last step (16 B without sources).
    pub shortfall: wgpu::Buffer,
    /// The per-region correction's buffers (regions.wgsl), stand-ins unless it runs.
    pub regions: crate::engine::gpu::regions::RegionBuffers,
    /// The bodies and their coupling solve (bodies.wgsl, coupling.wgsl), stand-ins without bodies.
    pub bodies: crate::engine::gpu::bodies::BodyBuffers,
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
    // The passes' tiles are 16×16 cells, the explicit step's STEP_WIDTH × STEP_HEIGHT.
    use crate::wgsl::explicit::{STEP_HEIGHT, STEP_WIDTH};
    let max_groups = limits.max_compute_workgroups_per_dimension as u64;
    let (across, down) = (STEP_WIDTH.min(16) as u64, STEP_HEIGHT.min(16) as u64);
    if (nx as u64).div_ceil(across) > max_groups || (ny as u64).div_ceil(down) > max_groups {
        return too_large(format!("more than {max_groups} workgroups along one axis"));
    }
    Ok(())
}

/// Allocates the fields of `state_table::FIELDS` for one run: each at the table's size for the
/// run's shape, copyable both ways when a checkpoint keeps it.
pub struct FieldAlloc<'a> {
    device: &'a wgpu::Device,
    shape: Shape<'a>,
    bodies: usize,
}

impl<'a> FieldAlloc<'a> {
    /// For the run `setup` describes.
    pub fn new(device: &'a wgpu::Device, setup: &'a Setup) -> FieldAlloc<'a> {
        let shape = Shape {
            params: &setup.params,
            method: setup.method,
            pipes: None,
            navier_stokes: None,
            ns_spray: false,
            ns_markers: None,
        };
        FieldAlloc {
            device,
            shape,
            bodies: setup.bodies.len(),
        }
    }

    /// Bytes of one copy of `field` (a stand-in's where the run has none).
    pub fn bytes(&self, field: Field) -> u64 {
        gpu_field_bytes(field, &self.shape, self.bodies)
    }

    /// One copy of `field`, usable as `usage` (plus COPY_SRC and COPY_DST where a checkpoint
    /// keeps the field), holding `contents` where given and zeros else (wgpu zeroes new buffers).
    /// `contents` must fill the buffer: a stand-in for an absent field takes an empty slice or
    /// exactly its stand-in's bytes.
    pub fn buffer(&self, field: Field, label: &str, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let size = self.bytes(field);
        let usage = match spec_of(field).kept {
            Kept::Scratch => usage,
            _ => usage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        };
        if contents.is_empty() {
            return zeroed_buffer(self.device, label, size, usage);
        }
        assert_eq!(
            contents.len() as u64,
            size,
            "{label}: contents do not match the state table"
        );
        filled_buffer(self.device, label, contents, usage)
    }
}

/// A zeroed buffer of `size` bytes (wgpu zeroes new buffers).
pub fn zeroed_buffer(device: &wgpu::Device, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// A buffer holding `contents`.
pub fn filled_buffer(device: &wgpu::Device, label: &str, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage,
    })
}

/// One `StepSlot` per step of a submit, `stride` bytes apart.
fn slot_bytes(stride: u32) -> Vec<u8> {
    let mut bytes = vec![0u8; (stride * MAX_CHUNK) as usize];
    for k in 0..MAX_CHUNK {
        let slot = StepSlot { index: k, _pad: [0; 3] };
        let at = (k * stride) as usize;
        bytes[at..at + 16].copy_from_slice(bytemuck::bytes_of(&slot));
    }
    bytes
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
            slots: init("step slots", &slot_bytes(slot_stride), UNIFORM),
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
            regions: crate::engine::gpu::regions::RegionBuffers::new(
                device,
                &fields,
                params.nx * params.ny,
                params.regions,
            ),
            bodies: crate::engine::gpu::bodies::BodyBuffers::new(device, &fields, setup),
            region_capacity: params.regions,
            current: 0,
        })
    }

    /// What the body passes and the coupling bind of this state.
    pub fn body_surface(&self) -> crate::engine::gpu::bodies::BodySurface<'_> {
        crate::engine::gpu::bodies::BodySurface {
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

/// Layout entry of a storage buffer visible to compute.
pub fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Layout entry of a uniform buffer visible to compute.
pub fn uniform_entry(binding: u32, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            // A dynamic binding is a 16-byte window into the slot buffer; the rest bind whole.
            min_binding_size: if dynamic { std::num::NonZeroU64::new(16) } else { None },
        },
        count: None,
    }
}

/// A bind group over whole buffers, bindings numbered in order.
pub fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let numbered: Vec<(u32, &wgpu::Buffer)> = buffers.iter().enumerate().map(|(i, &b)| (i as u32, b)).collect();
    bind_group_at(device, label, layout, &numbered)
}

/// A bind group over whole buffers at the given bindings (for layouts that leave some out).
pub fn bind_group_at(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .map(|&(binding, b)| wgpu::BindGroupEntry {
            binding,
            resource: b.as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// The bind group of the per-step slot uniform (one 16-byte window, moved by dynamic offset).
pub fn slot_bind_group(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, slots: &wgpu::Buffer) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("step slot"),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: slots,
                offset: 0,
                size: std::num::NonZeroU64::new(16),
            }),
        }],
    })
}

/// A compute pipeline from a layout and an entry point.
pub fn pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layouts: &[&wgpu::BindGroupLayout],
    entry: &str,
) -> wgpu::ComputePipeline {
    let layouts: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().copied().map(Some).collect();
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(entry),
        bind_group_layouts: &layouts,
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(&layout),
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A bind group layout from its entries; where the device takes uniform buffers as storage
/// (`uniforms_as_storage`), its uniform entries bind read-only storage.
pub fn layout(device: &wgpu::Device, label: &str, entries: &[wgpu::BindGroupLayoutEntry]) -> wgpu::BindGroupLayout {
    let mut entries = entries.to_vec();
    if uniforms_as_storage(device) {
        for entry in &mut entries {
            if let wgpu::BindingType::Buffer { ty, .. } = &mut entry.ty {
                if *ty == wgpu::BufferBindingType::Uniform {
                    *ty = wgpu::BufferBindingType::Storage { read_only: true };
                }
            }
        }
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

/// Whether this device binds Shoal's uniform buffers as read-only storage buffers: on lavapipe
/// (Mesa's Vulkan on the CPU). Lavapipe inlines the values of uniforms that a compute shader's
/// branches read, and Mesa 22.x (Debian 12's, CI's) compiles the shader again at every pipeline
/// bind and never frees the last build (`update_inline_shader_state`, lvp_execute.c). Measured on
/// a 36×24 beach, explicit step under the global correction, 4000 steps: 24.7 s and 4.0 GB with
/// uniforms, 3.8 s and 0.1 GB with storage, whose loads it never inlines. The price there: ADI's
/// sweeps reload storage values after each store (256², 15 → 10.6 steps/s). Real GPUs keep uniform
/// buffers (their constant caches), and so does llvmpipe through GL, so CI still runs both kinds.
///
/// A device opened with a browser's binding limits (≤ 16 storage buffers a stage; lavapipe offers
/// 32) keeps uniforms, as a browser binds them: tests/web_limits.rs checks the web's counts there.
pub fn uniforms_as_storage(device: &wgpu::Device) -> bool {
    let info = device.adapter_info();
    info.backend == wgpu::Backend::Vulkan
        && info.driver == "llvmpipe"
        && device.limits().max_storage_buffers_per_shader_stage > 16
}

/// The usage of every buffer Shoal binds as uniforms: storage as well, for the devices that bind
/// them that way (`uniforms_as_storage`).
pub const UNIFORM: wgpu::BufferUsages = wgpu::BufferUsages::UNIFORM.union(wgpu::BufferUsages::STORAGE);

/// The alignment of a dynamic offset into a uniform buffer, whichever way the device binds it.
pub fn dynamic_offset_alignment(limits: &wgpu::Limits) -> u32 {
    limits
        .min_uniform_buffer_offset_alignment
        .max(limits.min_storage_buffer_offset_alignment)
        .max(16)
}

/// Records `pipeline` over `(x, y)` workgroups (a `linear_groups` pair).
pub fn dispatch(pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline, (x, y): (u32, u32)) {
    pass.set_pipeline(pipeline);
    pass.dispatch_workgroups(x, y, 1);
}

/// Workgroup counts for `groups` 1-D workgroups, folded into 2-D past the per-dimension limit.
pub fn linear_groups(groups: u32, max_per_dim: u32) -> (u32, u32) {
    if groups <= max_per_dim {
        (groups, 1)
    } else {
        let y = groups.div_ceil(max_per_dim);
        (groups.div_ceil(y), y)
    }
}

/// Copies `bytes` into `target` at `offset` as a command of `encoder`, through a staging buffer
/// made for it: unlike `Queue::write_buffer`, which lands before the whole next submit, the
/// copy lands in order with the commands around it (embedded hosts may record several frames
/// into one encoder).
/// The ground buffer: the ground, then the per-cell forcing: the damping map's 1 − tau
/// (`setup.damping_keep`), then room for
/// the pressure head where the scene has patches (its word offset: [`head_at`]).
fn ground_buffer(device: &wgpu::Device, setup: &Setup, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let cells = (setup.params.nx * setup.params.ny) as usize;
    let mut words: Vec<f32> = setup.ground.to_vec();
    words.extend_from_slice(setup.damping_keep);
    if setup.pressure_patches > 0 {
        words.resize(words.len() + cells, 0.0);
    }
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

pub fn stage(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    target: &wgpu::Buffer,
    offset: u64,
    bytes: &[u8],
) {
    if bytes.is_empty() {
        return;
    }
    let staging = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("staged edit"),
        contents: bytes,
        usage: wgpu::BufferUsages::COPY_SRC,
    });
    encoder.copy_buffer_to_buffer(&staging, 0, target, offset, bytes.len() as u64);
}
