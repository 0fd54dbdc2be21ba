//! The passes `Water` adds to the shallow-water model (`wgsl/sw_water.wgsl`): the host's edits in
//! place on the state, and the velocity field a renderer binds. Pipelines and the bind group built
//! once; the edit list grows when a frame brings more edits than it holds.

use crate::engine::edit::HostEdit;
use crate::engine::gpu::binding::{bind_group, linear_groups, pipeline, reflected_layout, zeroed_buffer};
use crate::engine::gpu::edit::EditList;
use crate::models::shallow_water::gpu::shallow_water::SwBuffers;

/// The pass: `apply_edits` and `velocities` over one bind group.
pub struct SwWater {
    apply: wgpu::ComputePipeline,
    velocities: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    group: wgpu::BindGroup,
    /// The edits.
    list: EditList,
    /// The water the host's splashes added to each cell (m, f32 per cell).
    pub added: wgpu::Buffer,
    /// (u, v) per cell, m/s, 0 where dry (`vec2<f32>`): what renderers bind.
    pub velocity: wgpu::Buffer,
    groups: (u32, u32),
}

/// Usage of the buffers a host may bind or copy.
const SHARED: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::VERTEX)
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

impl SwWater {
    /// The passes over the state in `b` (level 0).
    pub fn new(device: &wgpu::Device, b: &SwBuffers, cells: u32) -> SwWater {
        let module =
            crate::engine::gpu::shaders::module(device, "sw_water.wgsl", crate::engine::gpu::shaders::SW_WATER);
        let layout = reflected_layout(device, "sw water", crate::wgsl::sw_water::BINDINGS, &[], 0);
        let list = EditList::new(device);
        let added = zeroed_buffer(device, "sw edited water", cells as u64 * 4, SHARED);
        let velocity = zeroed_buffer(device, "sw velocity", cells as u64 * 8, SHARED);
        let group = Self::group(device, &layout, b, &list.buffer, &added, &velocity);
        SwWater {
            apply: pipeline(device, &module, &[&layout], "apply_edits"),
            velocities: pipeline(device, &module, &[&layout], "velocities"),
            layout,
            group,
            list,
            added,
            velocity,
            groups: linear_groups(
                cells.div_ceil(256),
                device.limits().max_compute_workgroups_per_dimension,
            ),
        }
    }

    fn group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        b: &SwBuffers,
        list: &wgpu::Buffer,
        added: &wgpu::Buffer,
        velocity: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        let [eta, qx, qy] = &b.levels[0];
        bind_group(
            device,
            "sw water",
            layout,
            &[&b.params, &b.ground, eta, qx, qy, list, added, velocity],
        )
    }

    /// Records `edits` (none: nothing) into `encoder`: the list's copy, then the pass.
    pub fn record_edits(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        b: &SwBuffers,
        edits: &[HostEdit],
    ) {
        if edits.is_empty() {
            return;
        }
        if self.list.stage(device, encoder, edits) {
            self.group = Self::group(device, &self.layout, b, &self.list.buffer, &self.added, &self.velocity);
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shoal sw edits"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &self.group, &[]);
        crate::engine::gpu::binding::dispatch(&mut pass, &self.apply, self.groups);
    }

    /// Writes the velocity field of the state as it stands.
    pub fn record_velocities(&self, pass: &mut wgpu::ComputePass) {
        pass.set_bind_group(0, &self.group, &[]);
        crate::engine::gpu::binding::dispatch(pass, &self.velocities, self.groups);
    }
}
