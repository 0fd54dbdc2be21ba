//! The summary pass (`wgsl/summary.wgsl`): folds each step's level into the flood maps.
//! Pipeline and bind groups built once; the chunk's first step goes in as a uniform, written
//! before a batch chunk or staged in an embedded one's encoder.

use super::level::LevelBindings;
use super::state::{bind_group, filled_buffer, layout, pipeline, storage_entry, uniform_entry, GpuState};
use crate::summary::SummaryParams;

pub struct Summary {
    fold: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p]` reads level p.
    levels: [wgpu::BindGroup; 2],
    uniforms: wgpu::Buffer,
    wet_depth: f32,
}

impl Summary {
    pub fn new(device: &wgpu::Device, state: &GpuState, level: &LevelBindings, wet_depth: f32) -> Summary {
        let module = super::shaders::module(device, "summary.wgsl", super::shaders::SUMMARY);
        let shared_layout = layout(
            device,
            "summary",
            &[
                uniform_entry(0, false),
                uniform_entry(1, false),
                storage_entry(2, true),
                storage_entry(3, false),
            ],
        );
        let level_layout = layout(device, "summary level", &[storage_entry(0, true)]);
        let sp = SummaryParams {
            first_step: 0,
            wet_depth,
            _pad: [0; 2],
        };
        let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let uniforms = filled_buffer(device, "summary params", bytemuck::bytes_of(&sp), usage);
        let shared = bind_group(
            device,
            "summary",
            &shared_layout,
            &[&state.params, &uniforms, &state.ground, &state.summary],
        );
        let at = |p: usize| bind_group(device, "summary level", &level_layout, &[&state.eta[p]]);
        Summary {
            fold: pipeline(
                device,
                &module,
                &[&shared_layout, &level_layout, &level.slot_layout],
                "fold",
            ),
            shared,
            levels: [at(0), at(1)],
            uniforms,
            wet_depth,
        }
    }

    fn params(&self, first_step: u64) -> SummaryParams {
        SummaryParams {
            first_step: first_step as u32,
            wet_depth: self.wet_depth,
            _pad: [0; 2],
        }
    }

    /// Writes the chunk's first step before a batch chunk.
    pub fn upload(&self, queue: &wgpu::Queue, first_step: u64) {
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&self.params(first_step)));
    }

    /// Stages it in `encoder` before an embedded chunk's pass.
    pub fn stage(&self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, first_step: u64) {
        let sp = self.params(first_step);
        super::state::stage(device, encoder, &self.uniforms, 0, bytemuck::bytes_of(&sp));
    }

    /// Records step `slot_offset`'s fold of the current level.
    pub fn record(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, slot_offset: u32) {
        pass.set_pipeline(&self.fold);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_bind_group(2, &level.slot, &[slot_offset]);
        let (x, y) = super::state::linear_groups(state.cells().div_ceil(256), 65535);
        pass.dispatch_workgroups(x, y, 1);
    }
}
