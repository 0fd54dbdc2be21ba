//! The volume pass (`wgsl/volume.wgsl`): the global correction and sources and drains, with the
//! target kept on the GPU. Pipelines and bind groups built once.

use super::level::LevelBindings;
use super::state::{bind_group, layout, pipeline, storage_entry, uniform_entry, GpuState};

pub struct Volume {
    settle: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p]`: level p, written in place.
    levels: [wgpu::BindGroup; 2],
}

impl Volume {
    pub fn new(device: &wgpu::Device, state: &GpuState, level: &LevelBindings) -> Volume {
        let module = super::shaders::module(device, "volume.wgsl", super::shaders::VOLUME);
        let shared_layout = layout(
            device,
            "volume shared",
            &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, false),
                storage_entry(4, true),
                storage_entry(5, false),
                storage_entry(6, false),
            ],
        );
        let level_layout = layout(
            device,
            "volume level",
            &[storage_entry(0, false), storage_entry(1, false)],
        );
        let layouts = [&shared_layout, &level_layout, &level.slot_layout];
        let level = |p: usize| bind_group(device, "volume level", &level_layout, &[&state.eta[p], &state.vel[p]]);
        Volume {
            settle: pipeline(device, &module, &layouts, "settle"),
            apply: pipeline(device, &module, &layouts, "apply"),
            shared: bind_group(
                device,
                "volume shared",
                &shared_layout,
                &[
                    &state.params,
                    &state.ground,
                    &state.totals,
                    &state.volume,
                    &state.source,
                    &state.shortfall,
                    &state.carry,
                ],
            ),
            levels: [level(0), level(1)],
        }
    }

    /// Records one step's correction, sources and drains on the current level (reduce first).
    pub fn correct(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, slot_offset: u32) {
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_bind_group(2, &level.slot, &[slot_offset]);
        pass.set_pipeline(&self.settle);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.apply);
        pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
    }
}
