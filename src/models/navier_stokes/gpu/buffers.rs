//! The layer's GPU buffers, which its passes (`navier_stokes.rs`, `ns_markers.rs`, `ns_surface.rs`,
//! `ns_spray.rs`, `ns_bodies.rs`) bind.

use crate::engine::gpu::binding::{filled_buffer, linear_groups, zeroed_buffer};
use crate::models::navier_stokes::state::{NsParams, NsState, Surface, STRIP};
use bytemuck::{Pod, Zeroable};
use wgpu::BufferUsages as U;
/// Threads per workgroup of every pass over cells, faces or columns.
pub const WG: u32 = crate::wgsl::ns_common::NS_WG;

/// The layer's GPU buffers, shared by both of its shaders.
pub struct NsBuffers {
    pub uniforms: wgpu::Buffer,
    /// One u32 flag per 3D cell.
    pub flag: wgpu::Buffer,
    pub p: wgpu::Buffer,
    /// Per 3D column its surface, then per column its ground, then the chunk's forcing, one
    /// `ns_forcing::Substep` per substep (room for `records`).
    pub col: wgpu::Buffer,
    pub records: usize,
    pub stats: wgpu::Buffer,
    /// The velocities (u, v, w faces in one buffer), two levels: a substep reads one and
    /// writes the other.
    pub vel: [wgpu::Buffer; 2],
    /// The pressure sweeps' indirect arguments.
    pub args: wgpu::Buffer,
    /// The height field and its ground.
    pub h: wgpu::Buffer,
    pub ground: wgpu::Buffer,
    /// Per height-field cell the air's head this step (`[[pressure]]`; zeros without patches).
    pub air: wgpu::Buffer,
    /// Each 3D column's drag words under `physics.damping_map` or Manning's friction
    /// (`NsState::drag`; one zero without).
    pub drag: wgpu::Buffer,
    /// Per height-field cell: its west and south faces' fluxes, and its outflows' share.
    pub faces: wgpu::Buffer,
    pub scale: wgpu::Buffer,
    /// The volume's fold and its strips' partial sums (ns_surface.wgsl).
    pub volume: wgpu::Buffer,
}

impl NsBuffers {
    /// The buffers for the state `s` under the surface `f`, with room for `records` substeps'
    /// forcing.
    pub fn new(device: &wgpu::Device, u: &NsUniforms, s: &NsState, f: &Surface, records: usize) -> NsBuffers {
        let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        let floats = |label: &str, values: &[f32]| filled_buffer(device, label, bytemuck::cast_slice(values), storage);
        let flags: Vec<u32> = s.flag.iter().map(|&f| f as u32).collect();
        let col = columns_buffer(device, s, records);
        let vel: Vec<f32> = s.u.iter().chain(&s.v).chain(&s.w).copied().collect();
        let cells = f.h.len() as u64;
        let lattice = ((f.nx + 1) * (f.ny + 1)) as u64;
        NsBuffers {
            uniforms: filled_buffer(
                device,
                "ns uniforms",
                bytemuck::bytes_of(u),
                crate::engine::gpu::binding::UNIFORM | U::COPY_DST,
            ),
            flag: filled_buffer(device, "ns flags", bytemuck::cast_slice(&flags), storage),
            p: floats("ns pressure", &s.p),
            col,
            records,
            stats: zeroed_buffer(device, "ns stats", (STATS * 4) as u64, storage),
            vel: [floats("ns velocity 0", &vel), floats("ns velocity 1", &vel)],
            args: zeroed_buffer(device, "ns sweep args", 12, U::STORAGE | U::INDIRECT),
            // A host's renderer binds these two as vertex buffers too (`Water`).
            h: filled_buffer(device, "ns surface", bytemuck::cast_slice(&f.h), storage | U::VERTEX),
            ground: filled_buffer(
                device,
                "ns ground",
                bytemuck::cast_slice(&f.ground),
                storage | U::VERTEX,
            ),
            air: zeroed_buffer(device, "ns air head", cells * 4, storage),
            drag: match s.drag.is_empty() {
                true => zeroed_buffer(device, "ns drag map", 4, storage),
                false => floats("ns drag map", &s.drag),
            },
            faces: zeroed_buffer(device, "ns faces", lattice * 16, storage),
            scale: zeroed_buffer(device, "ns outflow share", cells * 4, storage),
            volume: zeroed_buffer(device, "ns volume", (8 + 8 * u.strips as u64) * 4, storage),
        }
    }
}

/// Mirror of WGSL `NsUniforms` (ns_common.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NsUniforms {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    pub fnx: u32,
    pub fny: u32,
    pub coarsen: u32,
    pub budget: u32,
    pub n_probes: u32,
    pub dx: f32,
    pub dz: f32,
    pub z0: f32,
    pub g: f32,
    pub nu: f32,
    pub beta0: f32,
    pub epsilon: f32,
    pub upwind: f32,
    pub dt: f32,
    pub one: f32,
    pub target_hi: f32,
    pub target_lo: f32,
    pub correct: u32,
    pub strips: u32,
    pub cell_groups_x: u32,
    pub cell_groups_y: u32,
    pub wave_k: f32,
    pub wave_dx: f32,
    pub wave_dy: f32,
    /// Metres of depth per unit of spray in one height-field cell (0 without spray).
    pub spray_unit: f32,
    pub markers: u32,
    pub window_lo: f32,
    pub window_hi: f32,
    /// 1: the scene has bodies (their held volume is not water).
    pub bodies: u32,
    /// `physics.damping`'s drag, 1/s.
    pub drag: f32,
    /// 1: Manning's friction sets each column's drag every substep (`manning_rate`).
    pub manning: u32,
    pub _pad: [u32; 2],
}

impl NsUniforms {
    /// The uniforms of the layer `p` over `surface`, a substep of `dt` s, correcting towards
    /// `target` (None: no correction), on a device with `max_groups` workgroups per dimension.
    pub fn new(
        p: &NsParams,
        surface: &Surface,
        dt: f32,
        target: Option<(f32, f32)>,
        n_probes: u32,
        max_groups: u32,
    ) -> NsUniforms {
        let (gx, gy) = linear_groups(((p.nx * p.ny * p.nz) as u32).div_ceil(WG), max_groups);
        let (target_hi, target_lo) = target.unwrap_or_default();
        NsUniforms {
            nx: p.nx as u32,
            ny: p.ny as u32,
            nz: p.nz as u32,
            fnx: surface.nx as u32,
            fny: surface.ny as u32,
            coarsen: surface.coarsen as u32,
            budget: crate::models::navier_stokes::setup::first_budget(p.max_sweeps),
            n_probes,
            dx: p.dx,
            dz: p.dz,
            z0: p.z0,
            g: p.g,
            nu: p.nu,
            beta0: p.beta0,
            epsilon: p.epsilon,
            upwind: p.upwind,
            dt,
            one: 1.0,
            target_hi,
            target_lo,
            correct: target.is_some() as u32,
            strips: surface.h.len().div_ceil(STRIP) as u32,
            cell_groups_x: gx,
            cell_groups_y: gy,
            wave_k: p.wave[0],
            wave_dx: p.wave[1],
            wave_dy: p.wave[2],
            spray_unit: 0.0,
            markers: p.markers as u32,
            window_lo: p.window[0],
            window_hi: p.window[1],
            bodies: 0,
            drag: p.drag,
            manning: p.manning as u32,
            _pad: [0; 2],
        }
    }
}

/// The columns' surface and ground from `s`, and room for `records` substeps' forcing.
pub fn columns_buffer(device: &wgpu::Device, s: &NsState, records: usize) -> wgpu::Buffer {
    let mut col: Vec<f32> = s.h.iter().chain(&s.ground).copied().collect();
    col.resize(col.len() + records * 8, 0.0);
    filled_buffer(
        device,
        "ns columns",
        bytemuck::cast_slice(&col),
        U::STORAGE | U::COPY_SRC | U::COPY_DST,
    )
}

/// Words of the iteration's bookkeeping (`STAT_*` in navier_stokes.wgsl).
pub const STATS: usize = 8;
