//! The Navier-Stokes layer's marker particles (`wgsl/ns_markers.wgsl`), twin of
//! `cpu::ns_markers`: the markers, their per-cell counts, the inflow's book and the columns'
//! highest marker; pipelines and bind groups built once.

use crate::engine::gpu::binding::{dispatch, filled_buffer, linear_groups, pipeline, reflected_layout, zeroed_buffer};
use crate::models::navier_stokes::gpu::buffers::{NsBuffers, WG};
use crate::models::navier_stokes::state::{MarkerParams, Markers};
use bytemuck::{Pod, Zeroable};
use wgpu::BufferUsages as U;

/// Mirror of WGSL `MarkerParams` (ns_markers.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MarkerUniforms {
    pub rows: u32,
    pub capacity: u32,
    pub _pad: [u32; 2],
}

/// The markers' buffers, pipelines and bind groups.
pub struct NsMarkers {
    /// (x, z) per slot, `capacity` of them.
    pub markers: wgpu::Buffer,
    /// The inflow's book (`BOOK_*`).
    pub book: wgpu::Buffer,
    clear: wgpu::ComputePipeline,
    count: wgpu::ComputePipeline,
    flags: wgpu::ComputePipeline,
    extend: wgpu::ComputePipeline,
    advect: wgpu::ComputePipeline,
    emit: wgpu::ComputePipeline,
    top_clear: wgpu::ComputePipeline,
    top: wgpu::ComputePipeline,
    surface: wgpu::ComputePipeline,
    state: wgpu::BindGroup,
    /// Velocity level a as the current velocities.
    levels: [wgpu::BindGroup; 2],
    fields: wgpu::BindGroup,
    marker_groups: (u32, u32),
    cell_groups: (u32, u32),
    column_groups: (u32, u32),
    surface_groups: (u32, u32),
    lattice_groups: (u32, u32),
}

impl NsMarkers {
    /// The passes over the layer's buffers `b` (group 0 is the 3D grid's, laid out by
    /// `grid_layout`), starting from `start`; `nz` layers, the height field `fine` (nx, ny)
    /// cells, `cells` 3D cells.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        device: &wgpu::Device,
        b: &NsBuffers,
        grid_layout: &wgpu::BindGroupLayout,
        params: MarkerParams,
        start: &Markers,
        nz: usize,
        fine: (u32, u32),
        cells: u32,
    ) -> NsMarkers {
        // (nx + 1)·(nz + 1) of `marker_extend` (the grid is one cell across).
        let lattice = (cells / nz as u32 + 1) * (nz as u32 + 1);
        let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        let uniforms = MarkerUniforms {
            rows: params.rows,
            capacity: params.capacity,
            _pad: [0; 2],
        };
        let uniforms = filled_buffer(
            device,
            "ns marker uniforms",
            bytemuck::bytes_of(&uniforms),
            crate::engine::gpu::binding::UNIFORM,
        );
        let mut at = start.at.clone();
        at.resize(params.capacity as usize, [0.0; 2]);
        let markers = filled_buffer(device, "ns markers", bytemuck::cast_slice(&at), storage);
        let book = filled_buffer(device, "ns marker book", bytemuck::cast_slice(&start.book(nz)), storage);
        // The 3D cells' counts, then the columns' highest markers (`top_at`).
        let counts = zeroed_buffer(
            device,
            "ns marker counts and tops",
            (cells + fine.0) as u64 * 4,
            storage,
        );
        let module =
            crate::engine::gpu::shaders::module(device, "ns_markers.wgsl", crate::engine::gpu::shaders::NS_MARKERS);
        let state_layout = reflected_layout(device, "ns markers", crate::wgsl::ns_markers::BINDINGS, &[], 1);
        let level_layout = reflected_layout(device, "ns marker velocity", crate::wgsl::ns_markers::BINDINGS, &[], 2);
        let fields_layout = reflected_layout(device, "ns marker surface", crate::wgsl::ns_markers::BINDINGS, &[], 3);
        let group = |label: &str, layout: &wgpu::BindGroupLayout, buffers: &[&wgpu::Buffer]| {
            crate::engine::gpu::binding::bind_group(device, label, layout, buffers)
        };
        let state = group("ns markers", &state_layout, &[&uniforms, &markers, &counts, &book]);
        let levels = [0, 1].map(|a| group("ns marker velocity", &level_layout, &[&b.vel[a]]));
        let fields = group("ns marker surface", &fields_layout, &[&b.h, &b.ground]);
        let layouts = [grid_layout, &state_layout, &level_layout, &fields_layout];
        let max = device.limits().max_compute_workgroups_per_dimension.min(65535);
        let groups = |threads: u32| linear_groups(threads.div_ceil(WG), max);
        NsMarkers {
            clear: pipeline(device, &module, &layouts, "marker_clear"),
            count: pipeline(device, &module, &layouts, "marker_count"),
            flags: pipeline(device, &module, &layouts, "marker_flags"),
            extend: pipeline(device, &module, &layouts, "marker_extend"),
            advect: pipeline(device, &module, &layouts, "marker_move"),
            emit: pipeline(device, &module, &layouts, "marker_emit"),
            top_clear: pipeline(device, &module, &layouts, "marker_top_clear"),
            top: pipeline(device, &module, &layouts, "marker_top"),
            surface: pipeline(device, &module, &layouts, "marker_surface"),
            state,
            levels,
            fields,
            marker_groups: groups(params.capacity),
            cell_groups: groups(cells),
            column_groups: groups(fine.0),
            surface_groups: groups(fine.0 * fine.1),
            lattice_groups: groups(lattice),
            markers,
            book,
        }
    }

    /// Writes the markers `m` (a start or a checkpoint's) and their book.
    pub fn load(&self, queue: &wgpu::Queue, m: &Markers, nz: usize) {
        queue.write_buffer(&self.markers, 0, bytemuck::cast_slice(&m.at));
        queue.write_buffer(&self.book, 0, bytemuck::cast_slice(&m.book(nz)));
    }

    fn bind(&self, pass: &mut wgpu::ComputePass, level: usize) {
        pass.set_bind_group(1, &self.state, &[]);
        pass.set_bind_group(2, &self.levels[level], &[]);
        pass.set_bind_group(3, &self.fields, &[]);
    }

    /// Records the flags from the markers (group 0, the grid's, already bound), in place of
    /// `columns`: `marker_clear`, `marker_count`, `marker_flags`.
    pub fn flags(&self, pass: &mut wgpu::ComputePass, level: usize) {
        self.bind(pass, level);
        dispatch(pass, &self.clear, self.cell_groups);
        dispatch(pass, &self.count, self.marker_groups);
        dispatch(pass, &self.flags, self.cell_groups);
    }

    /// Records the velocities of level `level` carried into the air, the markers moved by them,
    /// the inflow's new ones, and the height field drawn from them (group 0 already bound).
    pub fn advance(&self, pass: &mut wgpu::ComputePass, level: usize) {
        self.bind(pass, level);
        dispatch(pass, &self.extend, self.lattice_groups);
        dispatch(pass, &self.advect, self.marker_groups);
        dispatch(pass, &self.emit, (1, 1));
        dispatch(pass, &self.top_clear, self.column_groups);
        dispatch(pass, &self.top, self.marker_groups);
        dispatch(pass, &self.surface, self.surface_groups);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_uniforms_mirror_their_wgsl_field_by_field() {
        crate::wgsl::check_mirror(
            "MarkerParams",
            std::mem::size_of::<MarkerUniforms>(),
            crate::wgsl::fields!(MarkerUniforms { rows, capacity }),
        );
    }
}
