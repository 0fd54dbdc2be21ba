//! The explicit step pass (`wgsl/explicit.wgsl`): pipelines, built once; it binds the shared
//! [`LevelBindings`].

use super::level::LevelBindings;
use super::state::{linear_groups, pipeline, GpuState};

pub struct Explicit {
    step: wgpu::ComputePipeline,
    edges: wgpu::ComputePipeline,
    rescale: wgpu::ComputePipeline,
    max_groups: u32,
}

impl Explicit {
    pub fn new(device: &wgpu::Device, level: &LevelBindings) -> Explicit {
        let module = super::shaders::module(device, "explicit.wgsl", super::shaders::EXPLICIT);
        let layouts = level.layouts();
        Explicit {
            step: pipeline(device, &module, &layouts, "step"),
            edges: pipeline(device, &module, &layouts, "edges"),
            rescale: pipeline(device, &module, &layouts, "rescale_velocity"),
            max_groups: device.limits().max_compute_workgroups_per_dimension,
        }
    }

    /// Records one substep reading level `current`; the caller flips `current` after. `edges` is
    /// dispatched only when a side absorbs or two slope sides meet (see `schedule::needs_edges`).
    pub fn step(
        &self,
        pass: &mut wgpu::ComputePass,
        level: &LevelBindings,
        state: &GpuState,
        slot_offset: u32,
        edges: bool,
    ) {
        pass.set_pipeline(&self.step);
        level.bind(pass, state, slot_offset);
        pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
        if edges {
            pass.set_pipeline(&self.edges);
            pass.dispatch_workgroups((2 * state.nx + 2 * (state.ny - 2)).div_ceil(64), 1, 1);
        }
    }

    /// Records the velocity rescale (copies eta across): flips the level like a step.
    pub fn rescale(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState) {
        let (x, y) = linear_groups(state.cells().div_ceil(256), self.max_groups);
        pass.set_pipeline(&self.rescale);
        level.bind(pass, state, 0);
        pass.dispatch_workgroups(x, y, 1);
    }
}
