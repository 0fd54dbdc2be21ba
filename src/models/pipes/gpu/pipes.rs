//! The pipes model's passes (`wgsl/pipes.wgsl`): `flow_step` and `apply` per substep, `probe`
//! per step, `surface` and `totals` on request; pipelines and bind groups built once.

use crate::engine::gpu::binding::{
    bind_group_at, filled_buffer, linear_groups, pipeline, reflected_layout, slot_bind_group, slot_layout,
    zeroed_buffer,
};
use crate::models::pipes::columns::PipeParams;
use crate::models::pipes::state::PipeState;
use wgpu::BufferUsages as U;

/// Columns per workgroup of every pipes entry point.
pub const WG: u32 = 64;

/// The pipes model's GPU buffers, layer-major (`a·columns + c`; pipes `slot·columns + c`).
pub struct PipeBuffers {
    pub params: wgpu::Buffer,
    pub geometry: wgpu::Buffer,
    pub water: wgpu::Buffer,
    pub flow: wgpu::Buffer,
    pub given: wgpu::Buffer,
    pub scale: wgpu::Buffer,
    pub vel: wgpu::Buffer,
    pub feed: wgpu::Buffer,
    pub exchange: wgpu::Buffer,
    /// Per column, two planes: the step's air-pressure head (`[[pressure]]`), Manning's n²
    /// (`[friction] map`); one unread word without either (`state::column_forcing`).
    pub column_forcing: wgpu::Buffer,
    pub eta: wgpu::Buffer,
    pub probe_cells: wgpu::Buffer,
    pub history: wgpu::Buffer,
    /// Two vec4 per workgroup of columns (`totals`', or the sea's sums for ghost-mean sides), then
    /// one pair whose first word is the sea's level (`sea_level`).
    pub partials: wgpu::Buffer,
    /// One step index per step of a chunk, `slot_stride` bytes apart (dynamic offsets).
    pub slots: wgpu::Buffer,
    pub slot_stride: u32,
}

impl PipeBuffers {
    /// The largest buffers `new` allocates for `state` (name, bytes): the 8 pipes of every cell
    /// of a column, what each gives, and their velocities. Each is one binding.
    fn largest(state: &PipeState) -> [(&'static str, u64); 3] {
        [
            ("flow", state.flow.len() as u64 * 4),
            ("given", state.given.len() as u64 * 4),
            ("velocity", state.vel.len() as u64 * 8),
        ]
    }

    /// Checks `state`'s buffers against the device's limits before anything is allocated: at
    /// 8192² one column layer's pipes are 2 GiB, past the 2^31 − 4 bytes a binding may span on
    /// Vulkan (an H200 refused it at bind-group creation, 2026-12-04).
    pub fn check_fits(limits: &wgpu::Limits, state: &PipeState, nx: u32, ny: u32) -> crate::error::Result<()> {
        let most = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        match Self::largest(state).into_iter().find(|&(_, bytes)| bytes > most) {
            Some((name, bytes)) => Err(crate::error::Error::GridTooLarge {
                nx,
                ny,
                what: format!(
                    "the pipes model's {name} buffer needs {bytes} bytes ({} layer(s) of columns), the adapter \
                     binds at most {most} (max_storage_buffer_binding_size, max_buffer_size)",
                    state.layers
                ),
            }),
            None => Ok(()),
        }
    }

    /// The bytes of `partials` the totals fill (every pair but the sea level's).
    pub fn totals_bytes(&self) -> u64 {
        self.partials.size() - 32
    }

    /// The buffers for `state` (its geometry, water and feed), `probes` probe columns and
    /// `max_chunk` steps of probe history.
    pub fn new(
        device: &wgpu::Device,
        p: &PipeParams,
        state: &PipeState,
        probe_cells: &[u32],
        max_chunk: u32,
    ) -> PipeBuffers {
        let l = state.layers;
        let n = state.columns();
        let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        let slot_stride = crate::engine::gpu::binding::dynamic_offset_alignment(&device.limits());
        let slots = crate::engine::gpu::binding::slot_bytes(slot_stride, max_chunk);
        let groups = (n as u32).div_ceil(WG) as u64;
        let largest = Self::largest(state);
        PipeBuffers {
            params: filled_buffer(
                device,
                "pipe params",
                bytemuck::bytes_of(p),
                crate::engine::gpu::binding::UNIFORM | U::COPY_DST,
            ),
            geometry: filled_buffer(
                device,
                "pipe geometry",
                bytemuck::cast_slice(&state.to_gpu_layout(&state.geometry, l)),
                storage,
            ),
            water: filled_buffer(
                device,
                "pipe water",
                bytemuck::cast_slice(&state.to_gpu_layout(&state.water, l)),
                storage,
            ),
            flow: zeroed_buffer(device, "pipe flow", largest[0].1, storage),
            given: zeroed_buffer(device, "pipe given", largest[1].1, storage),
            scale: filled_buffer(
                device,
                "pipe scale",
                bytemuck::cast_slice(&state.to_gpu_layout(&state.scale, l)),
                storage,
            ),
            vel: zeroed_buffer(device, "pipe velocity", largest[2].1, storage),
            feed: filled_buffer(device, "pipe feed", bytemuck::cast_slice(&state.feed), storage),
            exchange: zeroed_buffer(device, "pipe exchange", (n * 8) as u64, storage),
            column_forcing: match state.column_forcing.is_empty() {
                true => zeroed_buffer(device, "pipe column forcing", 4, storage),
                false => filled_buffer(
                    device,
                    "pipe column forcing",
                    bytemuck::cast_slice(&state.column_forcing),
                    storage,
                ),
            },
            eta: zeroed_buffer(device, "pipe surface", (n * 4) as u64, storage),
            // Never empty: a binding cannot be zero bytes.
            probe_cells: filled_buffer(
                device,
                "pipe probes",
                bytemuck::cast_slice(if probe_cells.is_empty() { &[0u32] } else { probe_cells }),
                storage,
            ),
            history: zeroed_buffer(
                device,
                "pipe probe history",
                (max_chunk as usize * probe_cells.len().max(1) * 4) as u64,
                storage,
            ),
            partials: zeroed_buffer(device, "pipe totals", (groups + 1) * 32, storage),
            slots: filled_buffer(device, "pipe step slots", &slots, crate::engine::gpu::binding::UNIFORM),
            slot_stride,
        }
    }
}

/// The pipelines of `pipes.wgsl` and their bind groups.
pub struct Pipes {
    flow_step: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    surface: wgpu::ComputePipeline,
    probe: wgpu::ComputePipeline,
    totals: wgpu::ComputePipeline,
    /// `sea_sums` and `sea_level`, where a side is ghost-mean.
    sea: Option<(wgpu::ComputePipeline, wgpu::ComputePipeline)>,
    step_group: wgpu::BindGroup,
    view_group: wgpu::BindGroup,
    slot_layout: wgpu::BindGroupLayout,
    slot_group: wgpu::BindGroup,
    groups: (u32, u32),
}

impl Pipes {
    pub fn new(device: &wgpu::Device, b: &PipeBuffers, p: &PipeParams) -> Pipes {
        let columns = p.columns;
        let module = crate::engine::gpu::shaders::module(device, "pipes.wgsl", crate::engine::gpu::shaders::PIPES);
        // flow_step and apply: the state (9 storage buffers with the air's head); surface, probe
        // and totals: the view (read-only state and the outputs). Each within the web's 10.
        let bindings = crate::wgsl::pipes::BINDINGS;
        let step_layout = reflected_layout(
            device,
            "pipes step",
            bindings,
            &["flow_step", "apply", "sea_sums", "sea_level"],
            0,
        );
        let view_layout = reflected_layout(device, "pipes view", bindings, &["surface", "probe", "totals"], 0);
        let slot_layout = slot_layout(device, "pipes slot");
        let step_group = bind_group_at(
            device,
            "pipes step",
            &step_layout,
            &[
                (0, &b.params),
                (1, &b.geometry),
                (2, &b.water),
                (3, &b.flow),
                (4, &b.given),
                (5, &b.scale),
                (6, &b.vel),
                (7, &b.feed),
                (8, &b.exchange),
                (9, &b.column_forcing),
                (18, &b.partials),
            ],
        );
        let view_group = bind_group_at(
            device,
            "pipes view",
            &view_layout,
            &[
                (0, &b.params),
                (11, &b.geometry),
                (12, &b.water),
                (13, &b.flow),
                (14, &b.exchange),
                (15, &b.eta),
                (16, &b.probe_cells),
                (17, &b.history),
                (18, &b.partials),
                (19, &b.vel),
            ],
        );
        let slot_group = slot_bind_group(device, &slot_layout, &b.slots);
        let max = device.limits().max_compute_workgroups_per_dimension.min(65535);
        Pipes {
            flow_step: pipeline(device, &module, &[&step_layout], "flow_step"),
            apply: pipeline(device, &module, &[&step_layout], "apply"),
            surface: pipeline(device, &module, &[&view_layout], "surface"),
            probe: pipeline(device, &module, &[&view_layout, &slot_layout], "probe"),
            totals: pipeline(device, &module, &[&view_layout], "totals"),
            sea: [p.bc_west, p.bc_east, p.bc_south, p.bc_north]
                .contains(&crate::wgsl::sides::GHOST_MEAN)
                .then(|| {
                    (
                        pipeline(device, &module, &[&step_layout], "sea_sums"),
                        pipeline(device, &module, &[&step_layout], "sea_level"),
                    )
                }),
            step_group,
            view_group,
            slot_layout,
            slot_group,
            groups: linear_groups(columns.div_ceil(WG), max),
        }
    }

    /// The step slots' layout and bind group (a `StepSlot` per step of a chunk), for the passes
    /// beside the pipes' own that read them (the air pressure's).
    pub fn slots(&self) -> (&wgpu::BindGroupLayout, &wgpu::BindGroup) {
        (&self.slot_layout, &self.slot_group)
    }

    /// Records the flow pass alone (after the sea's level, where a side is ghost-mean).
    pub fn flow(&self, pass: &mut wgpu::ComputePass) {
        if let Some((sums, level)) = &self.sea {
            self.dispatch(pass, sums, &self.step_group);
            pass.set_pipeline(level);
            pass.dispatch_workgroups(1, 1, 1);
        }
        self.dispatch(pass, &self.flow_step, &self.step_group);
    }

    /// Records the apply pass alone.
    pub fn apply(&self, pass: &mut wgpu::ComputePass) {
        self.dispatch(pass, &self.apply, &self.step_group);
    }

    /// Records the surface of every column into `eta`.
    pub fn surface(&self, pass: &mut wgpu::ComputePass) {
        self.dispatch(pass, &self.surface, &self.view_group);
    }

    /// Records the per-workgroup totals into `partials`.
    pub fn totals(&self, pass: &mut wgpu::ComputePass) {
        self.dispatch(pass, &self.totals, &self.view_group);
    }

    /// Records the probes' surfaces into history row `step`.
    pub fn probe(&self, pass: &mut wgpu::ComputePass, probes: u32, slot_offset: u32) {
        if probes == 0 {
            return;
        }
        pass.set_pipeline(&self.probe);
        pass.set_bind_group(0, &self.view_group, &[]);
        pass.set_bind_group(1, &self.slot_group, &[slot_offset]);
        pass.dispatch_workgroups(probes.div_ceil(WG), 1, 1);
    }

    fn dispatch(&self, pass: &mut wgpu::ComputePass, p: &wgpu::ComputePipeline, group: &wgpu::BindGroup) {
        pass.set_pipeline(p);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }
}
