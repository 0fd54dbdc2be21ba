//! The air-pressure pass (`wgsl/pressure.wgsl`): each step's head per cell from the chunk's
//! patches. Pipeline and bind groups built once; the patches are uploaded (batch runs) or staged
//! in the encoder (embedded runs) per chunk, like the rain.

use crate::engine::gpu::binding::{bind_group, filled_buffer, pipeline, reflected_layout};
use crate::engine::gpu::level::LevelBindings;
use crate::engine::gpu::state::GpuState;
use crate::engine::pressure::Patch;

/// Mirror of WGSL `PressureParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PressureParams {
    pub count: u32,
    pub at: u32,
    pub _pad: [u32; 2],
}

pub struct Pressure {
    head: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    patches: wgpu::Buffer,
    count: u32,
}

impl Pressure {
    /// The pass for `count` patches per step, writing the head at word `at` of `state.ground` (past the ground).
    pub fn new(device: &wgpu::Device, state: &GpuState, level: &LevelBindings, count: u32, at: u32) -> Pressure {
        let module =
            crate::engine::gpu::shaders::module(device, "pressure.wgsl", crate::engine::gpu::shaders::PRESSURE);
        let group_layout = reflected_layout(device, "pressure", crate::wgsl::pressure::BINDINGS, &[], 0);
        let pp = PressureParams {
            count,
            at,
            _pad: [0; 2],
        };
        let uniforms = filled_buffer(
            device,
            "pressure params",
            bytemuck::bytes_of(&pp),
            crate::engine::gpu::binding::UNIFORM,
        );
        let patches = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pressure patches"),
            size: (crate::engine::params::MAX_CHUNK as u64 * count.max(1) as u64) * std::mem::size_of::<Patch>() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = bind_group(
            device,
            "pressure",
            &group_layout,
            &[&state.params, &uniforms, &patches, &state.ground],
        );
        Pressure {
            head: pipeline(device, &module, &[&group_layout, &level.slot_layout], "head"),
            group,
            patches,
            count,
        }
    }

    /// Uploads a chunk's patches before it is recorded.
    pub fn upload(&self, queue: &wgpu::Queue, patches: &[Patch]) {
        if !patches.is_empty() {
            queue.write_buffer(&self.patches, 0, bytemuck::cast_slice(patches));
        }
    }

    /// Stages them as a copy in `encoder`, before the pass that steps them (embedded runs).
    pub fn stage(&self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, patches: &[Patch]) {
        crate::engine::gpu::binding::stage(device, encoder, &self.patches, 0, bytemuck::cast_slice(patches));
    }

    /// Records step `slot_offset`'s head.
    pub fn record(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, slot_offset: u32) {
        if self.count == 0 {
            return;
        }
        pass.set_pipeline(&self.head);
        pass.set_bind_group(0, &self.group, &[]);
        pass.set_bind_group(1, &level.slot, &[slot_offset]);
        pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
    }
}
