//! The Navier-Stokes layer's 3D passes (`wgsl/navier_stokes.wgsl`), twin of
//! `cpu::navier_stokes`: its uniforms, the buffers both of its shaders share, and the pipelines
//! and bind groups of `columns`, `momentum`, `surface_velocities` and the pressure iteration,
//! built once.

use crate::engine::gpu::state::{
    dispatch, filled_buffer, layout, linear_groups, pipeline, storage_entry, uniform_entry, zeroed_buffer,
};
use crate::models::navier_stokes::state::{NsParams, NsState, Surface, STRIP};
use bytemuck::{Pod, Zeroable};
use wgpu::BufferUsages as U;

/// Threads per workgroup of every pass over cells, faces or columns.
pub const WG: u32 = crate::wgsl::ns_common::NS_WG;

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
        }
    }
}

/// Words of the iteration's bookkeeping (`STAT_*` in navier_stokes.wgsl).
pub const STATS: usize = 8;
pub use crate::wgsl::navier_stokes::{STAT_COURANT, STAT_MOST_SWEEPS, STAT_RESIDUAL};

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
                crate::engine::gpu::state::UNIFORM | U::COPY_DST,
            ),
            flag: filled_buffer(device, "ns flags", bytemuck::cast_slice(&flags), storage),
            p: floats("ns pressure", &s.p),
            col,
            records,
            stats: zeroed_buffer(device, "ns stats", (STATS * 4) as u64, storage),
            vel: [floats("ns velocity 0", &vel), floats("ns velocity 1", &vel)],
            args: zeroed_buffer(device, "ns sweep args", 12, U::STORAGE | U::INDIRECT),
            h: floats("ns surface", &f.h),
            ground: floats("ns ground", &f.ground),
            faces: zeroed_buffer(device, "ns faces", lattice * 16, storage),
            scale: zeroed_buffer(device, "ns outflow share", cells * 4, storage),
            volume: zeroed_buffer(device, "ns volume", (8 + 8 * u.strips as u64) * 4, storage),
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

/// The pipelines of `navier_stokes.wgsl` and their bind groups.
pub struct NavierStokes {
    columns: wgpu::ComputePipeline,
    momentum: wgpu::ComputePipeline,
    surface_velocities: wgpu::ComputePipeline,
    begin: wgpu::ComputePipeline,
    check: wgpu::ComputePipeline,
    decide: wgpu::ComputePipeline,
    red: wgpu::ComputePipeline,
    black: wgpu::ComputePipeline,
    grid: wgpu::BindGroup,
    /// Group 0's layout (the marker passes share the group).
    pub grid_layout: wgpu::BindGroupLayout,
    /// Level a: reads velocity level a, writes level 1 − a.
    levels: [wgpu::BindGroup; 2],
    surface: wgpu::BindGroup,
    args: wgpu::BindGroup,
    column_groups: (u32, u32),
    lattice_groups: (u32, u32),
    cell_groups: (u32, u32),
}

impl NavierStokes {
    /// The passes over `b`; `grid_layout` reuses a layout for group 0 (a rebuild over a regrown
    /// forcing buffer keeps the one the marker passes were built with).
    pub fn new(
        device: &wgpu::Device,
        b: &NsBuffers,
        u: &NsUniforms,
        grid_layout: Option<wgpu::BindGroupLayout>,
    ) -> NavierStokes {
        let module = crate::engine::gpu::shaders::module(
            device,
            "navier_stokes.wgsl",
            crate::engine::gpu::shaders::NAVIER_STOKES,
        );
        let grid_layout = grid_layout.unwrap_or_else(|| grid_group_layout(device));
        let level_layout = layout(device, "ns level", &[storage_entry(0, true), storage_entry(1, false)]);
        let surface_layout = layout(device, "ns surface (read)", &[storage_entry(0, true)]);
        let args_layout = layout(device, "ns sweep args", &[storage_entry(0, false)]);
        let group = |label: &str, layout: &wgpu::BindGroupLayout, buffers: &[&wgpu::Buffer]| {
            crate::engine::gpu::state::bind_group(device, label, layout, buffers)
        };
        let grid = group("ns grid", &grid_layout, &[&b.uniforms, &b.flag, &b.p, &b.col, &b.stats]);
        let levels = [0, 1].map(|a| group("ns level", &level_layout, &[&b.vel[a], &b.vel[1 - a]]));
        let surface = group("ns surface (read)", &surface_layout, &[&b.h]);
        let args = group("ns sweep args", &args_layout, &[&b.args]);
        let cells = [&grid_layout, &level_layout];
        let with_surface = [&grid_layout, &level_layout, &surface_layout];
        let with_args = [&grid_layout, &level_layout, &surface_layout, &args_layout];
        let max = device.limits().max_compute_workgroups_per_dimension.min(65535);
        let groups = |threads: u32| linear_groups(threads.div_ceil(WG), max);
        NavierStokes {
            columns: pipeline(device, &module, &with_surface, "columns"),
            momentum: pipeline(device, &module, &cells, "momentum"),
            surface_velocities: pipeline(device, &module, &cells, "surface_velocities"),
            begin: pipeline(device, &module, &with_args, "begin"),
            check: pipeline(device, &module, &cells, "check"),
            decide: pipeline(device, &module, &with_args, "decide"),
            red: pipeline(device, &module, &cells, "red"),
            black: pipeline(device, &module, &cells, "black"),
            grid,
            grid_layout,
            levels,
            surface,
            args,
            column_groups: groups(u.nx * u.ny),
            lattice_groups: groups((u.nx + 1) * (u.ny + 1) * (u.nz + 1)),
            cell_groups: (u.cell_groups_x, u.cell_groups_y),
        }
    }

    /// Group 0 of the layer's passes (uniforms, flags, pressures, columns, bookkeeping), for the
    /// passes of other shaders that read the grid (`ns_bodies`).
    pub fn grid_group(&self) -> &wgpu::BindGroup {
        &self.grid
    }

    /// Records one substep's 3D part, reading velocity level `level` and leaving the new
    /// velocities in level 1 − `level`: `begin` (the substep's forcing record, the iteration's
    /// state), `columns`, `momentum`, `surface_velocities`, the pressure
    /// iteration (2 + 4·`budget` dispatches, those past convergence with no workgroups; the
    /// uniforms' `budget` must match), and `surface_velocities` again.
    /// With `markers` their flags stand in for `columns`, and they move after the last
    /// `surface_velocities` by the substep's new velocities.
    pub fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        args: &wgpu::Buffer,
        level: usize,
        budget: u32,
        markers: Option<&crate::models::navier_stokes::gpu::ns_markers::NsMarkers>,
    ) {
        let bind = |pass: &mut wgpu::ComputePass| {
            pass.set_bind_group(0, &self.grid, &[]);
            pass.set_bind_group(1, &self.levels[level], &[]);
            pass.set_bind_group(2, &self.surface, &[]);
            pass.set_bind_group(3, &self.args, &[]);
        };
        bind(pass);
        let indirect = |pass: &mut wgpu::ComputePass, p: &wgpu::ComputePipeline| {
            pass.set_pipeline(p);
            pass.dispatch_workgroups_indirect(args, 0);
        };
        dispatch(pass, &self.begin, (1, 1));
        match markers {
            Some(m) => {
                m.flags(pass, level);
                bind(pass);
            }
            None => dispatch(pass, &self.columns, self.column_groups),
        }
        dispatch(pass, &self.momentum, self.lattice_groups);
        dispatch(pass, &self.surface_velocities, self.cell_groups);
        for sweep in 0..=budget {
            indirect(pass, &self.check);
            dispatch(pass, &self.decide, (1, 1));
            if sweep < budget {
                indirect(pass, &self.red);
                indirect(pass, &self.black);
            }
        }
        dispatch(pass, &self.surface_velocities, self.cell_groups);
        if let Some(m) = markers {
            m.advance(pass, 1 - level);
        }
    }
}

/// Group 0 of the layer's passes: the uniforms, flags, pressures, columns and bookkeeping.
fn grid_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    layout(
        device,
        "ns grid",
        &[
            uniform_entry(0, false),
            storage_entry(1, false),
            storage_entry(2, false),
            storage_entry(3, false),
            storage_entry(4, false),
        ],
    )
}
