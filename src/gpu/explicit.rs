//! The explicit step pass (`wgsl/explicit.wgsl`): pipelines and bind groups, built once.

use super::state::{
    bind_group, layout, linear_groups, pipeline, slot_bind_group, storage_entry, uniform_entry, GpuState,
};

pub struct Explicit {
    step: wgpu::ComputePipeline,
    edges: wgpu::ComputePipeline,
    rescale: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p]` reads level p and writes level 1 − p.
    levels: [wgpu::BindGroup; 2],
    slot: wgpu::BindGroup,
    max_groups: u32,
}

impl Explicit {
    pub fn new(device: &wgpu::Device, state: &GpuState) -> Explicit {
        let module = super::shaders::module(device, "explicit.wgsl", super::shaders::EXPLICIT);
        let shared_layout = layout(
            device,
            "explicit shared",
            &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, false),
                storage_entry(4, false),
            ],
        );
        let level_layout = layout(
            device,
            "explicit levels",
            &[
                storage_entry(0, true),
                storage_entry(1, true),
                storage_entry(2, false),
                storage_entry(3, false),
            ],
        );
        let slot_layout = layout(device, "explicit slot", &[uniform_entry(0, true)]);
        let layouts = [&shared_layout, &level_layout, &slot_layout];
        let level = |p: usize| {
            bind_group(
                device,
                "explicit level",
                &level_layout,
                &[&state.eta[p], &state.vel[p], &state.eta[1 - p], &state.vel[1 - p]],
            )
        };
        Explicit {
            step: pipeline(device, &module, &layouts, "step"),
            edges: pipeline(device, &module, &layouts, "edges"),
            rescale: pipeline(device, &module, &layouts, "rescale_velocity"),
            shared: bind_group(
                device,
                "explicit shared",
                &shared_layout,
                &[
                    &state.params,
                    &state.ground,
                    &state.totals,
                    &state.first_bad_step,
                    &state.carry,
                ],
            ),
            levels: [level(0), level(1)],
            slot: slot_bind_group(device, &slot_layout, state),
            max_groups: device.limits().max_compute_workgroups_per_dimension,
        }
    }

    /// Records one substep reading level `current`; the caller flips `current` after. `edges` is
    /// dispatched only when a side absorbs or two slope sides meet (see `cpu::explicit::needs_edges`).
    pub fn step(&self, pass: &mut wgpu::ComputePass, state: &GpuState, slot_offset: u32, edges: bool) {
        pass.set_pipeline(&self.step);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_bind_group(2, &self.slot, &[slot_offset]);
        pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
        if edges {
            pass.set_pipeline(&self.edges);
            pass.dispatch_workgroups((2 * state.nx + 2 * (state.ny - 2)).div_ceil(64), 1, 1);
        }
    }

    /// Records the velocity rescale (copies eta across): flips the level like a step.
    pub fn rescale(&self, pass: &mut wgpu::ComputePass, state: &GpuState) {
        let (x, y) = linear_groups(state.cells().div_ceil(256), self.max_groups);
        pass.set_pipeline(&self.rescale);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_bind_group(2, &self.slot, &[0]);
        pass.dispatch_workgroups(x, y, 1);
    }
}
