//! The volume pass (`wgsl/volume.wgsl`): the global correction and sources and drains, with the
//! target kept on the GPU. Pipelines and bind groups built once.

use super::level::LevelBindings;
use super::state::{bind_group, layout, pipeline, storage_entry, uniform_entry, GpuState};

pub struct Volume {
    settle: wgpu::ComputePipeline,
    roll: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    rain: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p][q]`: level p, written in place, and region labels q.
    levels: [[wgpu::BindGroup; 2]; 2],
    /// The chunk's rain: a `RainStep` per step (zeros without rain) and (cell, height) entries.
    drops: super::rain::RainBuffers,
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
                storage_entry(7, true),
                storage_entry(8, false),
                storage_entry(9, false),
                storage_entry(10, true),
            ],
        );
        let level_layout = layout(
            device,
            "volume level",
            &[storage_entry(0, false), storage_entry(1, false), storage_entry(2, true)],
        );
        let rain_layout = layout(device, "volume rain", &super::rain::layout_entries(0));
        let layouts = [&shared_layout, &level_layout, &level.slot_layout, &rain_layout];
        let drops = super::rain::RainBuffers::new(device, &rain_layout, &[], crate::params::MAX_CHUNK);
        let labels = &state.regions.labels;
        let level = |p: usize, q: usize| {
            bind_group(
                device,
                "volume level",
                &level_layout,
                &[&state.eta[p], &state.vel[p], &labels[q]],
            )
        };
        Volume {
            settle: pipeline(device, &module, &layouts, "settle"),
            roll: pipeline(device, &module, &layouts, "roll"),
            apply: pipeline(device, &module, &layouts, "apply"),
            rain: pipeline(device, &module, &layouts, "rain"),
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
                    &state.regions.corrections,
                    &state.regions.pending,
                    &state.clamped,
                    &state.rainfall_map,
                ],
            ),
            levels: [[level(0, 0), level(0, 1)], [level(1, 0), level(1, 1)]],
            drops,
        }
    }

    /// Uploads a chunk's rain before it is recorded (growing the entry buffers if needed).
    pub fn upload_rain(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, rain: &crate::rain::RainChunk) {
        let heights: &[u32] = bytemuck::cast_slice(&rain.heights);
        self.drops.upload(device, queue, &rain.steps, &rain.cells, heights);
    }

    /// Stages a chunk's rain as copies in `encoder`, before the pass that steps it (embedded
    /// runs), with one more `RainStep` past the chunk whose `before` is the chunk's whole rain,
    /// for `roll`.
    pub fn stage_rain(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        rain: &crate::rain::RainChunk,
    ) {
        let mut steps = rain.steps.clone();
        if !steps.is_empty() {
            steps.push(crate::rain::RainStep {
                before: rain.total as f32,
                ..Default::default()
            });
        }
        let heights: &[u32] = bytemuck::cast_slice(&rain.heights);
        self.drops.stage(device, encoder, &steps, &rain.cells, heights);
    }

    /// Records step `index`'s correction, sources, drains and rain on the current level
    /// (reduce first).
    pub fn correct(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, index: u32) {
        self.bind(pass, level, state, index);
        pass.set_pipeline(&self.settle);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.apply);
        pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
        let drops = self.drops.count(index);
        if drops > 0 {
            pass.set_pipeline(&self.rain);
            pass.dispatch_workgroups(drops.div_ceil(64), 1, 1);
        }
    }

    /// Records `apply` alone, with step `index`'s slot: writes a settled correction that no fused
    /// step has applied yet into the level (at a chunk's end).
    pub fn apply(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, index: u32) {
        self.bind(pass, level, state, index);
        pass.set_pipeline(&self.apply);
        pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
    }

    /// Records the embedded runs' target carry after a chunk of `steps` steps (reduce first;
    /// with rain, `stage_rain` wrote the chunk's total past its last step).
    pub fn roll(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, steps: u32) {
        self.bind(pass, level, state, steps);
        pass.set_pipeline(&self.roll);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Binds the pass's groups for the current level with the slot of step `index`.
    fn bind(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, index: u32) {
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current][state.regions.current], &[]);
        pass.set_bind_group(2, &level.slot, &[index * state.slot_stride]);
        pass.set_bind_group(3, self.drops.group(), &[]);
    }
}
