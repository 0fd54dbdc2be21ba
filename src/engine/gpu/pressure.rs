//! The air-pressure pass (`wgsl/pressure.wgsl`): each step's head per cell from the chunk's
//! patches. Pipeline and bind groups built once; the patches are uploaded (batch runs) or staged
//! in the encoder (embedded runs) per chunk, like the rain.

use crate::engine::gpu::binding::{bind_group, filled_buffer, pipeline, reflected_layout};
use crate::engine::pressure::Patch;

/// Mirror of WGSL `PressureParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PressureParams {
    pub count: u32,
    pub at: u32,
    pub nx: u32,
    pub ny: u32,
}

pub struct Pressure {
    head: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    patches: wgpu::Buffer,
    count: u32,
    nx: u32,
    ny: u32,
    /// Its staged writes' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
}

impl Pressure {
    /// The pass for `count` patches per step on an `nx × ny` grid, writing the head at word `at`
    /// of `ground` (past the ground); its step slots bound by `slot_layout` (any slot whose first
    /// 16 bytes are a `StepSlot`).
    pub fn new(
        device: &wgpu::Device,
        [nx, ny]: [u32; 2],
        ground: &wgpu::Buffer,
        slot_layout: &wgpu::BindGroupLayout,
        count: u32,
        at: u32,
    ) -> Pressure {
        let module =
            crate::engine::gpu::shaders::module(device, "pressure.wgsl", crate::engine::gpu::shaders::PRESSURE);
        let group_layout = reflected_layout(device, "pressure", crate::wgsl::pressure::BINDINGS, &[], 0);
        let pp = PressureParams { count, at, nx, ny };
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
        let group = bind_group(device, "pressure", &group_layout, &[&uniforms, &patches, ground]);
        Pressure {
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
            head: pipeline(device, &module, &[&group_layout, slot_layout], "head"),
            group,
            patches,
            count,
            nx,
            ny,
        }
    }

    /// Uploads a chunk's patches before it is recorded.
    pub fn upload(&self, queue: &wgpu::Queue, patches: &[Patch]) {
        if !patches.is_empty() {
            queue.write_buffer(&self.patches, 0, bytemuck::cast_slice(patches));
        }
    }

    /// Stages them as a copy in `encoder`, before the pass that steps them (embedded runs).
    pub fn stage(&self, encoder: &mut wgpu::CommandEncoder, patches: &[Patch]) {
        self.uploads
            .stage(encoder, &self.patches, 0, bytemuck::cast_slice(patches));
    }

    /// Records step `slot_offset`'s head, the step slots bound by `slot`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, slot: &wgpu::BindGroup, slot_offset: u32) {
        if self.count == 0 {
            return;
        }
        pass.set_pipeline(&self.head);
        pass.set_bind_group(0, &self.group, &[]);
        pass.set_bind_group(1, slot, &[slot_offset]);
        pass.dispatch_workgroups(self.nx.div_ceil(16), self.ny.div_ceil(16), 1);
    }
}

#[cfg(test)]
mod tests {
    use super::PressureParams;
    use crate::engine::pressure::Patch;
    use crate::wgsl::{check_mirror, fields};
    use std::mem::size_of;

    #[test]
    fn the_pressure_structs_mirror_their_wgsl_field_by_field() {
        check_mirror(
            "PressureParams",
            size_of::<PressureParams>(),
            fields!(PressureParams { count, at, nx, ny }),
        );
        check_mirror(
            "Patch",
            size_of::<Patch>(),
            fields!(Patch {
                x,
                y,
                head,
                shape,
                a,
                b
            }),
        );
    }
}
