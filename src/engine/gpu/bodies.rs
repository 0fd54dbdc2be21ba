//! The rigid-body pass (`wgsl/bodies.wgsl`): each column's cover after the water step, and each
//! body's step after the coupling. Also holds the buffers the bodies and the coupling share.

use crate::engine::gpu::binding::{bind_group, layout, pipeline, slot_bind_group, storage_entry, uniform_entry};
use crate::engine::gpu::state::BodyBuffers;
use crate::engine::gpu::state::BodySurface;

pub struct Bodies {
    footprint: wgpu::ComputePipeline,
    integrate: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p]`: level p, written in place.
    levels: [wgpu::BindGroup; 2],
    slot: wgpu::BindGroup,
    /// The height field's cells along x and y, and the bodies.
    nx: u32,
    ny: u32,
    count: u32,
}

impl Bodies {
    pub fn new(device: &wgpu::Device, surface: &BodySurface, b: &BodyBuffers) -> Bodies {
        let module = crate::engine::gpu::shaders::module(device, "bodies.wgsl", crate::engine::gpu::shaders::BODIES);
        let shared_layout = layout(
            device,
            "bodies shared",
            &[
                uniform_entry(0, false),
                uniform_entry(1, false),
                storage_entry(2, true),
                storage_entry(3, false),
                storage_entry(4, false),
                storage_entry(5, false),
                storage_entry(6, false),
                storage_entry(7, true),
            ],
        );
        let level_layout = layout(device, "bodies level", &[storage_entry(0, false)]);
        let slot_layout = layout(device, "bodies slot", &[uniform_entry(0, true)]);
        let layouts = [&shared_layout, &level_layout, &slot_layout];
        Bodies {
            footprint: pipeline(device, &module, &layouts, "footprint"),
            integrate: pipeline(device, &module, &layouts, "integrate"),
            shared: bind_group(
                device,
                "bodies shared",
                &shared_layout,
                &[
                    surface.params,
                    &b.params,
                    surface.ground,
                    &b.states,
                    &b.cover,
                    &b.solve,
                    &b.history,
                    &b.loads,
                ],
            ),
            levels: [0, 1].map(|p| bind_group(device, "bodies level", &level_layout, &[surface.eta[p]])),
            slot: slot_bind_group(device, &slot_layout, surface.slots),
            nx: surface.nx,
            ny: surface.ny,
            count: b.count,
        }
    }

    fn bind(&self, pass: &mut wgpu::ComputePass, level: usize, slot_offset: u32) {
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[level], &[]);
        pass.set_bind_group(2, &self.slot, &[slot_offset]);
    }

    /// Each column's cover from the bodies' current poses, on height-field level `level`; tags
    /// the cells to expel.
    pub fn footprint(&self, pass: &mut wgpu::ComputePass, level: usize, slot_offset: u32) {
        pass.set_pipeline(&self.footprint);
        self.bind(pass, level, slot_offset);
        pass.dispatch_workgroups(self.nx.div_ceil(16), self.ny.div_ceil(16), 1);
    }

    /// Forces, one semi-implicit Euler step, and the history row `slot_offset / stride`.
    pub fn integrate(&self, pass: &mut wgpu::ComputePass, level: usize, slot_offset: u32) {
        pass.set_pipeline(&self.integrate);
        self.bind(pass, level, slot_offset);
        pass.dispatch_workgroups(self.count, 1, 1);
    }
}
