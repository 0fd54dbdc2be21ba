//! The explicit step pass (`wgsl/explicit.wgsl`): pipelines, built once; it binds the shared
//! [`LevelBindings`].

use crate::engine::gpu::binding::{linear_groups, pipeline};
use crate::engine::gpu::level::LevelBindings;
use crate::engine::gpu::state::GpuState;

/// What one explicit substep does beside stepping (`explicit.wgsl`'s four step entries).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fusion {
    /// Apply the correction the last step settled as the level is read (`step_corrected`).
    pub corrected: bool,
    /// Write the reduction's partial sums of the level it writes (`step_sums`).
    pub sums: bool,
}

pub struct Explicit {
    /// Indexed by `Fusion`: plain, corrected, sums, corrected and sums.
    step: [wgpu::ComputePipeline; 4],
    edges: wgpu::ComputePipeline,
    rescale: wgpu::ComputePipeline,
    /// Workgroups of a fused step: one per reduction partial, within the per-dimension limit.
    groups: (u32, u32),
    max_groups: u32,
}

impl Explicit {
    pub fn new(device: &wgpu::Device, level: &LevelBindings, state: &GpuState) -> Explicit {
        let module =
            crate::engine::gpu::shaders::module(device, "explicit.wgsl", crate::engine::gpu::shaders::EXPLICIT);
        let layouts = level.layouts();
        let max_groups = device.limits().max_compute_workgroups_per_dimension;
        Explicit {
            step: ["step", "step_corrected", "step_sums", "step_corrected_sums"]
                .map(|entry| pipeline(device, &module, &layouts, entry)),
            edges: pipeline(device, &module, &layouts, "edges"),
            rescale: pipeline(device, &module, &layouts, "rescale_velocity"),
            groups: linear_groups(state.n_partials, max_groups),
            max_groups,
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
        fusion: Fusion,
    ) {
        pass.set_pipeline(&self.step[fusion.corrected as usize + 2 * fusion.sums as usize]);
        level.bind(pass, state, slot_offset);
        if fusion == Fusion::default() {
            // `step`: tiles of STEP_WIDTH × STEP_HEIGHT cells.
            use crate::wgsl::explicit::{STEP_HEIGHT, STEP_WIDTH};
            pass.dispatch_workgroups(state.nx.div_ceil(STEP_WIDTH), state.ny.div_ceil(STEP_HEIGHT), 1);
        } else {
            // The fused entries: one workgroup per reduction partial.
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
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
