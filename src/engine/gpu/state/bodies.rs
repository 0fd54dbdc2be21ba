//! The bodies' buffers, part of the state because the level's passes and checkpoints read
//! them (the passes are `gpu/bodies.rs` and `gpu/coupling.rs`).

use crate::engine::bodies::{BodyState, Cover, Solve, HISTORY_FLOATS};
use crate::engine::gpu::binding::{filled_buffer, zeroed_buffer};
use crate::engine::gpu::state::FieldAlloc;
use crate::engine::params::MAX_CHUNK;
use crate::engine::solver::Setup;
use crate::engine::state_table::Field;

/// The buffers of the bodies and their coupling solve: 16-byte stand-ins without bodies (reduce
/// still binds `cover`).
pub struct BodyBuffers {
    pub count: u32,
    pub params: wgpu::Buffer,
    /// `BodyState` per body.
    pub states: wgpu::Buffer,
    /// `Cover` per cell.
    pub cover: wgpu::Buffer,
    /// `HISTORY_FLOATS` per body per step of a chunk.
    pub history: wgpu::Buffer,
    /// The coupling's `Solve` scalars.
    pub solve: wgpu::Buffer,
    /// Indirect dispatch arguments: the box at 0, the box while PCG runs at 12.
    pub args: wgpu::Buffer,
    /// (b, x, r, p), PCG's (p, q) and the open-face masks per cell, and the dot products' partials.
    pub vecs: wgpu::Buffer,
    pub q: wgpu::Buffer,
    pub faces: wgpu::Buffer,
    pub partials: wgpu::Buffer,
    /// Per body the water's force, torque and velocity around it (`ns_bodies.wgsl`), three
    /// `vec4<f32>`; a stand-in for one body where the columns' buoyancy moves the bodies.
    pub loads: wgpu::Buffer,
}

impl BodyBuffers {
    /// The bodies' buffers: their states and the columns' covers through `fields` (stand-ins
    /// without bodies), the solve's work space beside them.
    pub fn new(device: &wgpu::Device, fields: &FieldAlloc, setup: &Setup) -> BodyBuffers {
        let (nx, ny) = (setup.params.nx, setup.params.ny);
        let count = setup.bodies.len() as u32;
        let cells = if count == 0 { 1 } else { nx as u64 * ny as u64 };
        let storage = wgpu::BufferUsages::STORAGE;
        let init = |label: &str, contents: &[u8], usage| filled_buffer(device, label, contents, usage);
        // 16 bytes at least: a binding cannot be empty.
        let empty = |label: &str, size: u64, usage| zeroed_buffer(device, label, size.max(16), usage);
        // Without bodies the stand-ins hold one empty body and one uncovered column.
        let (stand_in, no_cover) = ([BodyState::default()], [Cover::default()]);
        let states: &[BodyState] = if count == 0 { &stand_in } else { setup.bodies };
        let cover: &[Cover] = if setup.cover.is_empty() { &no_cover } else { setup.cover };
        let groups = nx.div_ceil(16) as u64 * ny.div_ceil(16) as u64;
        let copy = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        BodyBuffers {
            count,
            params: init(
                "body params",
                bytemuck::bytes_of(&setup.body_params),
                crate::engine::gpu::binding::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
            // VERTEX too: a renderer binds the states as a per-instance vertex buffer (`Water`).
            states: fields.buffer(
                Field::Bodies,
                "bodies",
                bytemuck::cast_slice(states),
                storage | wgpu::BufferUsages::VERTEX,
            ),
            cover: fields.buffer(Field::Cover, "cover", bytemuck::cast_slice(cover), storage),
            history: empty(
                "body history",
                MAX_CHUNK as u64 * count as u64 * HISTORY_FLOATS as u64 * 4,
                storage | copy,
            ),
            solve: init(
                "coupling solve",
                &Solve::with_clusters(count.max(1) as usize),
                storage | copy,
            ),
            args: empty("coupling dispatch", 36, storage | wgpu::BufferUsages::INDIRECT),
            vecs: empty("coupling vectors", cells * 16, storage),
            q: empty("coupling p and q", cells * 8, storage),
            faces: empty("coupling faces", cells * 4, storage),
            partials: empty("coupling partials", groups * 8, storage),
            loads: empty(
                "body loads",
                48 * if setup.body_params.loads != 0 { count as u64 } else { 1 },
                storage,
            ),
        }
    }
}

impl BodyBuffers {
    /// The columns' covers and the bodies' states, read back (a checkpoint, `read_cover`): two
    /// copies, one wait.
    pub fn read(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> crate::error::Result<(Vec<Cover>, Vec<BodyState>)> {
        let read = crate::engine::gpu::readback::read_whole(device, queue, &[Some(&self.cover), Some(&self.states)])?;
        Ok((
            bytemuck::pod_collect_to_vec(&read[0]),
            bytemuck::pod_collect_to_vec(&read[1]),
        ))
    }
}

/// The height field the body passes and the coupling act on: the height-field models' two
/// levels, or the Navier-Stokes layer's one surface (then both levels name it).
pub struct BodySurface<'a> {
    /// The `Params` uniform (common.wgsl) of the height field's grid.
    pub params: &'a wgpu::Buffer,
    pub ground: &'a wgpu::Buffer,
    pub eta: [&'a wgpu::Buffer; 2],
    /// The per-step change the coupling adds its correction to (scratch in the layer, which
    /// carries velocities instead).
    pub vel: [&'a wgpu::Buffer; 2],
    /// The step slots (`StepSlot` at each `state::dynamic_offset_alignment`).
    pub slots: &'a wgpu::Buffer,
    pub nx: u32,
    pub ny: u32,
}
