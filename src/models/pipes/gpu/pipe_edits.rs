//! The host's edits in place on the pipes' columns (`wgsl/pipe_edits.wgsl`), inside a host's
//! frame: what `Water::brush` and `Water::disturb` record on the pipes. Pipeline and bind group
//! built once; the edit list grows when a frame brings more edits than it holds.

use crate::engine::edit::HostEdit;
use crate::engine::gpu::binding::{bind_group, filled_buffer, linear_groups, pipeline, reflected_layout};
use crate::engine::gpu::edit::EditList;
use crate::models::pipes::edit::PipeEditParams;
use crate::models::pipes::gpu::pipes::PipeBuffers;
use crate::models::pipes::state::PipeState;

/// The pass: `apply_edits` over one bind group.
pub struct PipeEdits {
    apply: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    group: wgpu::BindGroup,
    params: wgpu::Buffer,
    /// The edits.
    list: EditList,
    groups: (u32, u32),
}

impl PipeEdits {
    /// The pass over the columns in `b` (`p`: their size and unit) and the top floor a renderer
    /// binds (`top_floor`, f32 metres − ref per column).
    pub fn new(device: &wgpu::Device, b: &PipeBuffers, p: PipeEditParams, top_floor: &wgpu::Buffer) -> PipeEdits {
        let module =
            crate::engine::gpu::shaders::module(device, "pipe_edits.wgsl", crate::engine::gpu::shaders::PIPE_EDITS);
        let layout = reflected_layout(device, "pipe edits", crate::wgsl::pipe_edits::BINDINGS, &[], 0);
        let params = filled_buffer(
            device,
            "pipe edit params",
            bytemuck::bytes_of(&p),
            crate::engine::gpu::binding::UNIFORM,
        );
        let list = EditList::new(device);
        let group = Self::group(device, &layout, b, &params, &list.buffer, top_floor);
        PipeEdits {
            apply: pipeline(device, &module, &[&layout], "apply_edits"),
            layout,
            group,
            params,
            list,
            groups: linear_groups(
                p.columns.div_ceil(64),
                device.limits().max_compute_workgroups_per_dimension,
            ),
        }
    }

    fn group(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        b: &PipeBuffers,
        params: &wgpu::Buffer,
        list: &wgpu::Buffer,
        top_floor: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        bind_group(
            device,
            "pipe edits",
            layout,
            &[params, &b.geometry, &b.water, &b.exchange, list, top_floor],
        )
    }

    /// Records `edits` (none: nothing) into `encoder`: the list's copy, then the pass.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        b: &PipeBuffers,
        top_floor: &wgpu::Buffer,
        edits: &[HostEdit],
    ) {
        if edits.is_empty() {
            return;
        }
        if self.list.stage(device, encoder, edits) {
            self.group = Self::group(device, &self.layout, b, &self.params, &self.list.buffer, top_floor);
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shoal pipe edits"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, &self.group, &[]);
        crate::engine::gpu::binding::dispatch(&mut pass, &self.apply, self.groups);
    }
}

/// Runs the pass once on `state` (the twin's column-major columns: geometry, water and exchange)
/// and `top_floor` on `device`, and reads them back in the twin's layout: the pass against its
/// twin, for Shoal's tests (`low_level::pipes`). Waits for the GPU.
pub fn run_once(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    state: &PipeState,
    top_floor: &[f32],
    p: PipeEditParams,
    edits: &[HostEdit],
) -> crate::error::Result<(PipeState, Vec<f32>)> {
    // The pipes' own fields at rest, where the test's state leaves them out.
    let (l, n) = (state.layers, state.columns());
    let full = PipeState {
        flow: vec![0.0; 8 * l * l * n],
        given: vec![0; 8 * l * l * n],
        scale: vec![1.0; l * n],
        vel: vec![[0.0; 2]; l * n],
        ..state.clone()
    };
    let b = PipeBuffers::new(device, &Default::default(), &full, &[], 1);
    queue.write_buffer(&b.exchange, 0, bytemuck::cast_slice(&state.exchange));
    let floor = filled_buffer(
        device,
        "pipe edits top floor",
        bytemuck::cast_slice(top_floor),
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    );
    let mut pass = PipeEdits::new(device, &b, p, &floor);
    let mut encoder = device.create_command_encoder(&Default::default());
    pass.record(device, &mut encoder, &b, &floor, edits);
    queue.submit([encoder.finish()]);
    fn whole(buffer: &wgpu::Buffer) -> (&wgpu::Buffer, u64, u64) {
        (buffer, 0, buffer.size())
    }
    let read = crate::engine::gpu::readback::read_ranges(
        device,
        queue,
        &[whole(&b.geometry), whole(&b.water), whole(&b.exchange), whole(&floor)],
    )?;
    let out = PipeState {
        geometry: state.in_twin_layout(&bytemuck::pod_collect_to_vec(&read[0]), l),
        water: state.in_twin_layout(&bytemuck::pod_collect_to_vec(&read[1]), l),
        exchange: bytemuck::pod_collect_to_vec(&read[2]),
        ..state.clone()
    };
    Ok((out, bytemuck::pod_collect_to_vec(&read[3])))
}
