//! The shallow-water pass (`wgsl/shallow_water.wgsl`): its buffers, pipelines and bind groups,
//! built once. A substep is two dispatches (`stage_one`, `stage_two`); `totals` runs once per
//! submit, `probe` once per step.

use crate::engine::gpu::binding::{
    bind_group, dynamic_offset_alignment, dynamic_uniform_entry, filled_buffer, layout, linear_groups, pipeline,
    reflected_layout, zeroed_buffer, UNIFORM,
};
use crate::engine::params::MAX_CHUNK;
use crate::models::shallow_water::setup::{SwParams, SwSlot};
use crate::models::shallow_water::state::SwState;

/// Words of the books (`BOOK_WORDS` in the WGSL): the Courant number, the non-finite cells, the
/// deepest water.
pub const BOOK_WORDS: u64 = crate::wgsl::shallow_water::BOOK_WORDS as u64;
/// The stages' tile edge, cells (`shallow_water.wgsl` TILE).
const TILE: u32 = crate::wgsl::shallow_water::TILE;

/// The model's GPU buffers: the uniforms, the ground, the two levels (U0, U1) of the surface and
/// discharges, the books, the probes and their per-step history, and the step slots.
pub struct SwBuffers {
    pub params: wgpu::Buffer,
    pub ground: wgpu::Buffer,
    /// [eta, qx, qy] of level 0 (the state) and level 1 (the stage between).
    pub levels: [[wgpu::Buffer; 3]; 2],
    /// The rounding the fed water has yet to give each cell (`sw_feed.wgsl`), state as the
    /// checkpoint table has it (`Field::SwCarry`), so held whether the scene feeds or not.
    pub carry: wgpu::Buffer,
    /// `[infiltration]`'s state, four floats a cell (`sw_feed.wgsl`'s `soil`; one vec4 without).
    pub soil: wgpu::Buffer,
    pub books: wgpu::Buffer,
    pub probe_cells: wgpu::Buffer,
    pub history: wgpu::Buffer,
    pub slots: wgpu::Buffer,
    /// Bytes between two step slots (the dynamic offset's alignment).
    pub slot_stride: u32,
    /// Its staged writes' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
}

impl SwBuffers {
    /// The buffers for `state` over `ground`.
    pub fn new(device: &wgpu::Device, p: &SwParams, ground: &[f32], state: &SwState, probe_cells: &[u32]) -> SwBuffers {
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let field = |label: &str, values: &[f32]| filled_buffer(device, label, bytemuck::cast_slice(values), storage);
        let stride = dynamic_offset_alignment(&device.limits()).max(SLOT_BYTES as u32);
        // A binding is never empty: at least one probe's room.
        let probes = probe_cells.len().max(1) as u64;
        SwBuffers {
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
            params: filled_buffer(
                device,
                "sw params",
                bytemuck::bytes_of(p),
                UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            // A host's renderer binds it as a vertex buffer (`Water::ground_buffer`).
            ground: filled_buffer(
                device,
                "sw ground",
                bytemuck::cast_slice(ground),
                storage | wgpu::BufferUsages::VERTEX,
            ),
            levels: [
                [
                    field("sw eta 0", &state.eta),
                    field("sw qx 0", &state.qx),
                    field("sw qy 0", &state.qy),
                ],
                [
                    field("sw eta 1", &state.eta),
                    field("sw qx 1", &state.qx),
                    field("sw qy 1", &state.qy),
                ],
            ],
            carry: field("sw carry", &state.carry),
            soil: match state.soil.is_empty() {
                true => zeroed_buffer(device, "sw soil", 16, storage),
                false => field("sw soil", &state.soil),
            },
            books: zeroed_buffer(device, "sw books", BOOK_WORDS * 4, storage),
            probe_cells: filled_buffer(
                device,
                "sw probe cells",
                bytemuck::cast_slice(&if probe_cells.is_empty() {
                    vec![0]
                } else {
                    probe_cells.to_vec()
                }),
                storage,
            ),
            history: zeroed_buffer(device, "sw probe history", probes * MAX_CHUNK as u64 * 4, storage),
            slots: zeroed_buffer(
                device,
                "sw step slots",
                (MAX_CHUNK * stride) as u64,
                UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            slot_stride: stride,
        }
    }

    /// Writes a submit's slots, one per step at the slot stride.
    pub fn write_slots(&self, queue: &wgpu::Queue, slots: &[SwSlot]) {
        queue.write_buffer(&self.slots, 0, &self.slot_bytes(slots));
    }

    /// Stages them as a copy in `encoder` (embedded runs, whose chunks share one submit).
    pub fn stage_slots(&self, encoder: &mut wgpu::CommandEncoder, slots: &[SwSlot]) {
        self.uploads.stage(encoder, &self.slots, 0, &self.slot_bytes(slots));
    }

    /// The slots' bytes at the slot stride.
    fn slot_bytes(&self, slots: &[SwSlot]) -> Vec<u8> {
        let stride = self.slot_stride as usize;
        let mut bytes = vec![0u8; slots.len() * stride];
        for (k, slot) in slots.iter().enumerate() {
            bytes[k * stride..k * stride + SLOT_BYTES as usize].copy_from_slice(bytemuck::bytes_of(slot));
        }
        bytes
    }
}

/// Bytes of a `SwSlot`.
const SLOT_BYTES: u64 = std::mem::size_of::<SwSlot>() as u64;

/// The pass: `stage_one`, `stage_two`, `totals` and `probe`, each with its bind groups.
pub struct ShallowWater {
    stage_one: wgpu::ComputePipeline,
    stage_two: wgpu::ComputePipeline,
    totals: wgpu::ComputePipeline,
    probe: wgpu::ComputePipeline,
    state: wgpu::BindGroup,
    probes: wgpu::BindGroup,
    /// The stages' group 2: the carry.
    carry: wgpu::BindGroup,
    slot: wgpu::BindGroup,
    /// The layout of the step slots' bind group (the flood maps' fold binds it too).
    pub slot_layout: wgpu::BindGroupLayout,
    /// The stages' workgroups: one per TILE × TILE tile of the grid.
    tiles: (u32, u32),
    /// `totals`': 256 cells a workgroup, in a line.
    groups: (u32, u32),
    n_probes: u32,
}

impl ShallowWater {
    /// The pass over `b`. Every pipeline binds at most 10 storage buffers (the web's limit).
    pub fn new(device: &wgpu::Device, b: &SwBuffers, p: &SwParams) -> ShallowWater {
        let module = crate::engine::gpu::shaders::module(
            device,
            "shallow_water.wgsl",
            crate::engine::gpu::shaders::SHALLOW_WATER,
        );
        let bindings = crate::wgsl::shallow_water::BINDINGS;
        let state_layout = reflected_layout(device, "sw state", bindings, &[], 0);
        let probe_layout = reflected_layout(device, "sw probes", bindings, &["probe"], 2);
        let carry_layout = reflected_layout(device, "sw carry", bindings, &["stage_one", "stage_two"], 2);
        // The slot's window is a whole `SwSlot` (the flood maps' fold reads its first 16 bytes).
        let slot_layout = layout(device, "sw slot", &[dynamic_uniform_entry(0, SLOT_BYTES)]);
        let slot = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("sw slot"),
            layout: &slot_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &b.slots,
                    offset: 0,
                    size: std::num::NonZeroU64::new(SLOT_BYTES),
                }),
            }],
        });
        let [l0, l1] = &b.levels;
        let state = bind_group(
            device,
            "sw state",
            &state_layout,
            &[
                &b.params, &b.ground, &l0[0], &l0[1], &l0[2], &l1[0], &l1[1], &l1[2], &b.books,
            ],
        );
        let probes = bind_group(device, "sw probes", &probe_layout, &[&b.probe_cells, &b.history]);
        let carry = crate::engine::gpu::binding::bind_group_at(device, "sw carry", &carry_layout, &[(2, &b.carry)]);
        let max = device.limits().max_compute_workgroups_per_dimension;
        ShallowWater {
            stage_one: pipeline(
                device,
                &module,
                &[&state_layout, &slot_layout, &carry_layout],
                "stage_one",
            ),
            stage_two: pipeline(
                device,
                &module,
                &[&state_layout, &slot_layout, &carry_layout],
                "stage_two",
            ),
            totals: pipeline(device, &module, &[&state_layout], "totals"),
            probe: pipeline(device, &module, &[&state_layout, &slot_layout, &probe_layout], "probe"),
            slot,
            state,
            probes,
            carry,
            slot_layout,
            tiles: (p.nx.div_ceil(TILE), p.ny.div_ceil(TILE)),
            groups: linear_groups(p.cells.div_ceil(256), max),
            n_probes: p.n_probes,
        }
    }

    /// One substep of the step whose slot is at `offset`: both stages.
    pub fn substep(&self, pass: &mut wgpu::ComputePass, offset: u32) {
        pass.set_bind_group(0, &self.state, &[]);
        pass.set_bind_group(1, &self.slot, &[offset]);
        pass.set_bind_group(2, &self.carry, &[]);
        for stage in [&self.stage_one, &self.stage_two] {
            crate::engine::gpu::binding::dispatch(pass, stage, self.tiles);
        }
    }

    /// The deepest water and the non-finite cells into the books.
    pub fn totals(&self, pass: &mut wgpu::ComputePass) {
        pass.set_bind_group(0, &self.state, &[]);
        crate::engine::gpu::binding::dispatch(pass, &self.totals, self.groups);
    }

    /// The surface at the probes into history row `step` (slot offset `offset`).
    pub fn probe(&self, pass: &mut wgpu::ComputePass, offset: u32) {
        if self.n_probes == 0 {
            return;
        }
        pass.set_pipeline(&self.probe);
        pass.set_bind_group(0, &self.state, &[]);
        pass.set_bind_group(1, &self.slot, &[offset]);
        pass.set_bind_group(2, &self.probes, &[]);
        pass.dispatch_workgroups(self.n_probes.div_ceil(64), 1, 1);
    }

    /// The step slots' bind group.
    pub fn slot(&self) -> &wgpu::BindGroup {
        &self.slot
    }
}
