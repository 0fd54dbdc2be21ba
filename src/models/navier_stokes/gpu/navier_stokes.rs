//! The Navier-Stokes layer's 3D passes (`wgsl/navier_stokes.wgsl`), twin of
//! `cpu::navier_stokes`: its uniforms, the buffers both of its shaders share, and the pipelines
//! and bind groups of `columns`, `momentum`, `surface_velocities` and the pressure iteration,
//! built once.

use crate::engine::gpu::binding::{dispatch, linear_groups, pipeline, reflected_layout};
use crate::models::navier_stokes::gpu::buffers::NsUniforms;
use crate::models::navier_stokes::gpu::buffers::{NsBuffers, WG};

pub use crate::wgsl::navier_stokes::{STAT_COURANT, STAT_MOST_SWEEPS, STAT_RESIDUAL};

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
        let level_layout = reflected_layout(device, "ns level", crate::wgsl::navier_stokes::BINDINGS, &[], 1);
        let surface_layout = reflected_layout(
            device,
            "ns surface (read)",
            crate::wgsl::navier_stokes::BINDINGS,
            &[],
            2,
        );
        let args_layout = reflected_layout(device, "ns sweep args", crate::wgsl::navier_stokes::BINDINGS, &[], 3);
        let group = |label: &str, layout: &wgpu::BindGroupLayout, buffers: &[&wgpu::Buffer]| {
            crate::engine::gpu::binding::bind_group(device, label, layout, buffers)
        };
        let grid = group("ns grid", &grid_layout, &[&b.uniforms, &b.flag, &b.p, &b.col, &b.stats]);
        let levels = [0, 1].map(|a| group("ns level", &level_layout, &[&b.vel[a], &b.vel[1 - a]]));
        let surface = group("ns surface (read)", &surface_layout, &[&b.h, &b.air, &b.drag]);
        let args = group("ns sweep args", &args_layout, &[&b.args]);
        let cells = [&grid_layout, &level_layout];
        let with_surface = [&grid_layout, &level_layout, &surface_layout];
        let with_args = [&grid_layout, &level_layout, &surface_layout, &args_layout];
        let max = device.limits().max_compute_workgroups_per_dimension.min(65535);
        let groups = |threads: u32| linear_groups(threads.div_ceil(WG), max);
        NavierStokes {
            columns: pipeline(device, &module, &with_surface, "columns"),
            momentum: pipeline(device, &module, &with_surface, "momentum"),
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
    reflected_layout(device, "ns grid", crate::wgsl::navier_stokes::BINDINGS, &[], 0)
}
