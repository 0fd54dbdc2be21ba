//! The host-edit pass (`wgsl/edit.wgsl`): brushes and splashes between steps, and the volume
//! target moved by what they changed. Pipelines built once; the edit list grows when needed.

use crate::engine::edit::HostEdit;
use crate::engine::gpu::binding::{bind_group, pipeline, reflected_layout};
use crate::engine::gpu::reduce::Reduce;
use crate::engine::gpu::state::GpuState;

pub struct Edit {
    apply: wgpu::ComputePipeline,
    mark: wgpu::ComputePipeline,
    rebase: wgpu::ComputePipeline,
    shared_layout: wgpu::BindGroupLayout,
    shared: wgpu::BindGroup,
    /// `levels[p]`: eta level p, edited in place.
    levels: [wgpu::BindGroup; 2],
    /// The edits.
    list: EditList,
}

/// The host's edits as a pass binds them (`host_edit.wgsl`'s `Edits`: a 16-byte count, then the
/// edits), staged in the host's encoder. It starts with room for 16 and grows, a new buffer,
/// when a frame brings more: the pass then rebuilds the bind group that holds it.
pub(crate) struct EditList {
    /// The list's buffer (replaced when it grows).
    pub(crate) buffer: wgpu::Buffer,
    capacity: usize,
    /// Its staged writes' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
}

impl EditList {
    pub(crate) fn new(device: &wgpu::Device) -> EditList {
        EditList {
            buffer: list_buffer(device, 16),
            capacity: 16,
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
        }
    }

    /// Copies `edits` into the list as a command of `encoder` (before the pass that applies
    /// them), growing it first if it is too short. True when it grew: rebuild its bind group.
    pub(crate) fn stage(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        edits: &[HostEdit],
    ) -> bool {
        let grew = edits.len() > self.capacity;
        if grew {
            self.capacity = edits.len().next_power_of_two();
            self.buffer = list_buffer(device, self.capacity);
        }
        self.uploads.stage(encoder, &self.buffer, 0, &list_bytes(edits));
        grew
    }
}

/// An `Edits` list with room for `capacity` edits.
fn list_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("edits"),
        size: 16 + (capacity * std::mem::size_of::<HostEdit>()) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// `edits` as an `Edits` list's bytes: their count, padded to 16 bytes, then the edits.
fn list_bytes(edits: &[HostEdit]) -> Vec<u8> {
    let mut bytes = bytemuck::bytes_of(&[edits.len() as u32, 0, 0, 0]).to_vec();
    bytes.extend_from_slice(bytemuck::cast_slice(edits));
    bytes
}

impl Edit {
    pub fn new(device: &wgpu::Device, state: &GpuState) -> Edit {
        let module = crate::engine::gpu::shaders::module(device, "edit.wgsl", crate::engine::gpu::shaders::EDIT);
        let shared_layout = reflected_layout(device, "edit shared", crate::wgsl::edit::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "edit level", crate::wgsl::edit::BINDINGS, &[], 1);
        let layouts = [&shared_layout, &level_layout];
        let list = EditList::new(device);
        let level = |p: usize| bind_group(device, "edit level", &level_layout, &[&state.eta[p]]);
        Edit {
            apply: pipeline(device, &module, &layouts, "apply_edits"),
            mark: pipeline(device, &module, &layouts, "mark"),
            rebase: pipeline(device, &module, &layouts, "rebase"),
            shared: Self::shared(device, &shared_layout, state, &list.buffer),
            shared_layout,
            levels: [level(0), level(1)],
            list,
        }
    }

    fn shared(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        state: &GpuState,
        list: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        bind_group(
            device,
            "edit shared",
            layout,
            &[&state.params, &state.ground, &state.books, list, &state.regions.pending],
        )
    }

    /// Copies the edits into the list as a command of `encoder` (before the pass that applies
    /// them), growing the list first if it is too short.
    pub fn stage(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        state: &GpuState,
        edits: &[HostEdit],
    ) {
        if self.list.stage(device, encoder, edits) {
            self.shared = Self::shared(device, &self.shared_layout, state, &self.list.buffer);
        }
    }

    /// Records the staged edits on the current level, with the target moved by what they changed:
    /// reduce, mark, edit, reduce, rebase.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: &GpuState, reduce: &Reduce) {
        reduce.reduce(pass, state);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_pipeline(&self.mark);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.apply);
        pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
        reduce.reduce(pass, state);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_pipeline(&self.rebase);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
