//! The Navier-Stokes layer's height-field passes (`wgsl/ns_surface.wgsl`), twin of
//! `cpu::ns_surface`: the surface moved by the 3D grid's fluxes, the global volume correction and
//! the probes; pipelines and bind groups built once.

use crate::engine::gpu::binding::{dispatch, linear_groups, pipeline, reflected_layout, slot_bind_group, slot_layout};
use crate::models::navier_stokes::gpu::buffers::NsUniforms;
use crate::models::navier_stokes::gpu::buffers::{NsBuffers, WG};

/// The pipelines of `ns_surface.wgsl` and their bind groups.
pub struct NsSurface {
    flux: wgpu::ComputePipeline,
    limit: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    volume_strips: wgpu::ComputePipeline,
    volume_fold: wgpu::ComputePipeline,
    volume_apply: wgpu::ComputePipeline,
    probe: wgpu::ComputePipeline,
    fields: wgpu::BindGroup,
    /// Velocity level a as the current velocities.
    levels: [wgpu::BindGroup; 2],
    probes: wgpu::BindGroup,
    slot: wgpu::BindGroup,
    cell_groups: (u32, u32),
    lattice_groups: (u32, u32),
    strip_groups: (u32, u32),
    n_probes: u32,
}

impl NsSurface {
    /// The passes over `b`, with the probes' cells in `probe_cells`, their per-step history in
    /// `history`, the step slots in `slots` and what covers each cell in `cover` (the bodies'
    /// held volume, which the volume leaves out).
    pub fn new(
        device: &wgpu::Device,
        b: &NsBuffers,
        u: &NsUniforms,
        probe_cells: &wgpu::Buffer,
        history: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        cover: &wgpu::Buffer,
    ) -> NsSurface {
        let module =
            crate::engine::gpu::shaders::module(device, "ns_surface.wgsl", crate::engine::gpu::shaders::NS_SURFACE);
        let fields_layout = reflected_layout(device, "ns surface", crate::wgsl::ns_surface::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "ns surface velocity", crate::wgsl::ns_surface::BINDINGS, &[], 1);
        let probe_layout = reflected_layout(device, "ns probes", crate::wgsl::ns_surface::BINDINGS, &[], 2);
        let slot_layout = slot_layout(device, "ns slot");
        let group = |label: &str, layout: &wgpu::BindGroupLayout, buffers: &[&wgpu::Buffer]| {
            crate::engine::gpu::binding::bind_group(device, label, layout, buffers)
        };
        let fields = group(
            "ns surface",
            &fields_layout,
            &[&b.uniforms, &b.h, &b.ground, &b.faces, &b.scale, &b.volume, cover],
        );
        let levels = [0, 1].map(|a| group("ns surface velocity", &level_layout, &[&b.vel[a]]));
        let probes = group("ns probes", &probe_layout, &[probe_cells, history]);
        let slot = slot_bind_group(device, &slot_layout, slots);
        let surface = [&fields_layout, &level_layout];
        let with_probes = [&fields_layout, &level_layout, &probe_layout, &slot_layout];
        let max = device.limits().max_compute_workgroups_per_dimension.min(65535);
        NsSurface {
            flux: pipeline(device, &module, &surface, "flux"),
            limit: pipeline(device, &module, &surface, "limit"),
            apply: pipeline(device, &module, &surface, "apply"),
            volume_strips: pipeline(device, &module, &surface, "volume_strips"),
            volume_fold: pipeline(device, &module, &surface, "volume_fold"),
            volume_apply: pipeline(device, &module, &surface, "volume_apply"),
            probe: pipeline(device, &module, &with_probes, "probe"),
            fields,
            levels,
            probes,
            slot,
            cell_groups: linear_groups((u.fnx * u.fny).div_ceil(WG), max),
            lattice_groups: linear_groups(((u.fnx + 1) * (u.fny + 1)).div_ceil(WG), max),
            strip_groups: linear_groups(u.strips.div_ceil(WG), max),
            n_probes: u.n_probes,
        }
    }

    fn bind(&self, pass: &mut wgpu::ComputePass, level: usize) {
        pass.set_bind_group(0, &self.fields, &[]);
        pass.set_bind_group(1, &self.levels[level], &[]);
    }

    /// Records the surface moved by the velocities of level `level`: `flux`, `limit`, `apply`.
    pub fn height(&self, pass: &mut wgpu::ComputePass, level: usize) {
        self.bind(pass, level);
        dispatch(pass, &self.flux, self.lattice_groups);
        dispatch(pass, &self.limit, self.cell_groups);
        dispatch(pass, &self.apply, self.cell_groups);
    }

    /// Records the volume's sum into the fold (`volume[0..8)`), and with `correct` its
    /// correction of every wet cell.
    pub fn volume(&self, pass: &mut wgpu::ComputePass, correct: bool) {
        self.bind(pass, 0);
        dispatch(pass, &self.volume_strips, self.strip_groups);
        dispatch(pass, &self.volume_fold, (1, 1));
        if correct {
            dispatch(pass, &self.volume_apply, self.cell_groups);
        }
    }

    /// Records what the probes read (surfaces, unit discharges under velocity level `level`, the
    /// current one) into history row `step` (its slot's dynamic offset).
    pub fn probe(&self, pass: &mut wgpu::ComputePass, slot_offset: u32, level: usize) {
        if self.n_probes == 0 {
            return;
        }
        self.bind(pass, level);
        pass.set_pipeline(&self.probe);
        pass.set_bind_group(2, &self.probes, &[]);
        pass.set_bind_group(3, &self.slot, &[slot_offset]);
        pass.dispatch_workgroups(self.n_probes.div_ceil(WG), 1, 1);
    }
}
