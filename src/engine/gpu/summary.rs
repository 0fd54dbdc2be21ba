//! The summary pass (`wgsl/summary.wgsl`): folds each step's surface into the flood maps.
//! Pipeline and bind groups built once; the chunk's first step goes in as a uniform, written
//! before a batch chunk or staged in an embedded one's encoder.

use crate::engine::gpu::binding::{bind_group, filled_buffer, pipeline, reflected_layout};
use crate::summary::SummaryParams;

/// What the pass folds: the ground (b − ref), the surface of each ping-pong level (h − ref;
/// the pipes have one), and the maps.
pub struct SummarySource<'a> {
    pub ground: &'a wgpu::Buffer,
    pub levels: [&'a wgpu::Buffer; 2],
    pub summary: &'a wgpu::Buffer,
    pub cells: u32,
}

pub struct Summary {
    fold: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p]` reads level p.
    levels: [wgpu::BindGroup; 2],
    uniforms: wgpu::Buffer,
    params: SummaryParams,
    /// Its staged writes' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
}

impl Summary {
    /// The pass over `source`, its step slots bound by `slot_layout` (a dynamic uniform offset).
    pub fn new(
        device: &wgpu::Device,
        source: SummarySource,
        slot_layout: &wgpu::BindGroupLayout,
        wet_depth: f32,
    ) -> Summary {
        let module = crate::engine::gpu::shaders::module(device, "summary.wgsl", crate::engine::gpu::shaders::SUMMARY);
        let shared_layout = reflected_layout(device, "summary", crate::wgsl::summary::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "summary level", crate::wgsl::summary::BINDINGS, &[], 1);
        let params = SummaryParams {
            first_step: 0,
            wet_depth,
            cells: source.cells,
            _pad: 0,
        };
        let usage = crate::engine::gpu::binding::UNIFORM | wgpu::BufferUsages::COPY_DST;
        let uniforms = filled_buffer(device, "summary params", bytemuck::bytes_of(&params), usage);
        let shared = bind_group(
            device,
            "summary",
            &shared_layout,
            &[&uniforms, source.ground, source.summary],
        );
        let at = |p: usize| bind_group(device, "summary level", &level_layout, &[source.levels[p]]);
        Summary {
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
            fold: pipeline(device, &module, &[&shared_layout, &level_layout, slot_layout], "fold"),
            shared,
            levels: [at(0), at(1)],
            uniforms,
            params,
        }
    }

    fn params(&self, first_step: u64) -> SummaryParams {
        SummaryParams {
            first_step: first_step as u32,
            ..self.params
        }
    }

    /// Writes the chunk's first step before a batch chunk.
    pub fn upload(&self, queue: &wgpu::Queue, first_step: u64) {
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&self.params(first_step)));
    }

    /// Stages it in `encoder` before an embedded chunk's pass.
    pub fn stage(&self, encoder: &mut wgpu::CommandEncoder, first_step: u64) {
        let sp = self.params(first_step);
        self.uploads.stage(encoder, &self.uniforms, 0, bytemuck::bytes_of(&sp));
    }

    /// Records the fold of level `current` for the step whose slot is at `slot_offset`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, slot: &wgpu::BindGroup, current: usize, slot_offset: u32) {
        pass.set_pipeline(&self.fold);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[current], &[]);
        pass.set_bind_group(2, slot, &[slot_offset]);
        let (x, y) = crate::engine::gpu::binding::linear_groups(self.params.cells.div_ceil(256), 65535);
        pass.dispatch_workgroups(x, y, 1);
    }
}
