//! The rigid-body pass (`wgsl/bodies.wgsl`): each column's cover after the water step, and each
//! body's step after the coupling. Also holds the buffers the bodies and the coupling share.

use crate::engine::gpu::binding::{bind_group, pipeline, reflected_layout, slot_bind_group, slot_layout};
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
        let shared_layout = reflected_layout(device, "bodies shared", crate::wgsl::bodies::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "bodies level", crate::wgsl::bodies::BINDINGS, &[], 1);
        let slot_layout = slot_layout(device, "bodies slot");
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
