//! The reduction pass (`wgsl/reduce.wgsl`): wet-surface sum and count, largest depth, NaN flag.

use crate::engine::gpu::state::GpuState;

use crate::engine::gpu::binding::{bind_group, linear_groups, pipeline, reflected_layout};

pub struct Reduce {
    partial_sums: wgpu::ComputePipeline,
    finish: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p]` reads eta level p.
    levels: [wgpu::BindGroup; 2],
    groups: (u32, u32),
}

impl Reduce {
    pub fn new(device: &wgpu::Device, state: &GpuState) -> Reduce {
        let module = crate::engine::gpu::shaders::module(device, "reduce.wgsl", crate::engine::gpu::shaders::REDUCE);
        let shared_layout = reflected_layout(device, "reduce shared", crate::wgsl::reduce::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "reduce level", crate::wgsl::reduce::BINDINGS, &[], 1);
        let layouts = [&shared_layout, &level_layout];
        Reduce {
            partial_sums: pipeline(device, &module, &layouts, "partial_sums"),
            finish: pipeline(device, &module, &layouts, "finish"),
            shared: bind_group(
                device,
                "reduce shared",
                &shared_layout,
                &[
                    &state.params,
                    &state.ground,
                    &state.books,
                    &state.carry,
                    &state.bodies.cover,
                    &state.shortfall,
                ],
            ),
            levels: [
                bind_group(device, "reduce level 0", &level_layout, &[&state.eta[0], &state.vel[0]]),
                bind_group(device, "reduce level 1", &level_layout, &[&state.eta[1], &state.vel[1]]),
            ],
            groups: linear_groups(state.n_partials, device.limits().max_compute_workgroups_per_dimension),
        }
    }

    /// Records both passes over the current level; the books' totals hold the result after.
    pub fn reduce(&self, pass: &mut wgpu::ComputePass, state: &GpuState) {
        pass.set_pipeline(&self.partial_sums);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        pass.set_pipeline(&self.finish);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
