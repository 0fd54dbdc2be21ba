//! The shallow-water model's feed (`wgsl/sw_feed.wgsl`): each step's rainfall on every cell and
//! its entries (drops, hydrographs, sources, drains, makers' line sources) into their cells, after
//! the substeps. The pipelines and bind groups are built once; the entry buffers grow, with their
//! group, when a chunk brings more entries than they hold.

use crate::engine::gpu::binding::{bind_group, filled_buffer, linear_groups, pipeline, reflected_layout};
use crate::engine::gpu::rain::RainBuffers;
use crate::engine::rain::RainChunk;
use crate::models::shallow_water::gpu::shallow_water::SwBuffers;

/// The pass: its three pipelines, the chunk's entries, the step slots, the rainfall's map and
/// the soil's state.
pub struct SwFeed {
    rainfall: wgpu::ComputePipeline,
    drops: wgpu::ComputePipeline,
    infiltrate: wgpu::ComputePipeline,
    entries: RainBuffers,
    share: wgpu::BindGroup,
    /// Whether the scene has `[rainfall]` and `[infiltration]`, and the cells' workgroups for
    /// them.
    raining: bool,
    infiltrating: bool,
    groups: (u32, u32),
    /// Staging for the entries' heights after a chunk's feed (`stage_back`), grown to fit.
    readback: Option<wgpu::Buffer>,
}

/// The buffers a feed changes and reads: its uniforms (`SwParams`), the ground (with the soil's
/// parameter planes at `soil_at` under `[infiltration]`), the surface, the discharges, the carry
/// and the soil's state (a 16-byte stand-in without).
pub struct FeedBuffers<'a> {
    pub params: &'a wgpu::Buffer,
    pub ground: &'a wgpu::Buffer,
    pub eta: &'a wgpu::Buffer,
    pub qx: &'a wgpu::Buffer,
    pub qy: &'a wgpu::Buffer,
    pub carry: &'a wgpu::Buffer,
    pub soil: &'a wgpu::Buffer,
}

impl<'a> FeedBuffers<'a> {
    /// The shallow-water model's: its current level.
    pub fn of(b: &'a SwBuffers) -> FeedBuffers<'a> {
        let [eta, qx, qy] = &b.levels[0];
        FeedBuffers {
            params: &b.params,
            ground: &b.ground,
            eta,
            qx,
            qy,
            carry: &b.carry,
            soil: &b.soil,
        }
    }
}

impl SwFeed {
    /// The feed of the water in `b`, with the step slots' layout `slot_layout`, the uniforms `p`
    /// (`[rainfall]`'s mode, `[infiltration]`'s law), the rainfall's map share (empty when
    /// uniform), and room for `max_chunk` steps.
    pub fn new(
        device: &wgpu::Device,
        b: FeedBuffers,
        slot_layout: &wgpu::BindGroupLayout,
        p: &crate::models::shallow_water::setup::SwParams,
        share: &[f32],
        max_chunk: u32,
    ) -> SwFeed {
        let module = crate::engine::gpu::shaders::module(device, "sw_feed.wgsl", crate::engine::gpu::shaders::SW_FEED);
        let bindings = crate::wgsl::sw_feed::BINDINGS;
        let state_layout = reflected_layout(device, "sw feed", bindings, &[], 0);
        let share_layout = reflected_layout(device, "sw feed share", bindings, &[], 2);
        let mut words = share.to_vec();
        words.resize(words.len().max(4), 0.0);
        let share_buffer = filled_buffer(
            device,
            "sw rainfall share",
            bytemuck::cast_slice(&words),
            wgpu::BufferUsages::STORAGE,
        );
        let layouts = [&state_layout, slot_layout, &share_layout];
        let max = device.limits().max_compute_workgroups_per_dimension;
        let cells = p.cells;
        SwFeed {
            rainfall: pipeline(device, &module, &layouts, "rainfall"),
            drops: pipeline(device, &module, &layouts, "drops"),
            infiltrate: pipeline(device, &module, &layouts, "infiltrate"),
            entries: RainBuffers::new(
                device,
                &state_layout,
                &[b.params, b.ground, b.eta, b.qx, b.qy, b.carry],
                max_chunk,
            ),
            share: bind_group(device, "sw feed share", &share_layout, &[&share_buffer, b.soil]),
            raining: p.rainfall != 0,
            infiltrating: p.infiltration != 0,
            groups: linear_groups(cells.div_ceil(256), max),
            readback: None,
        }
    }

    /// Copies the chunk's entry heights after its feed into the staging buffer (grown to fit)
    /// where the books need them back (`books::needs_back`: a drain, a trough or a held cell,
    /// whose entries the pass replaced by what their cells could not give or gained): the bytes
    /// to map after the submit, 0 when none (the others are as the chunk brought them).
    pub fn stage_back(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, rain: &RainChunk) -> u64 {
        if !crate::models::shallow_water::books::needs_back(rain) {
            return 0;
        }
        let bytes = rain.heights.len() as u64 * 4;
        if self.readback.as_ref().is_none_or(|b| b.size() < bytes) {
            let size = bytes.next_power_of_two();
            self.readback = Some(crate::engine::gpu::readback::buffer(device, "fed heights", size));
        }
        let staging = self.readback.as_ref().expect("made above");
        encoder.copy_buffer_to_buffer(self.heights(), 0, staging, 0, bytes);
        bytes
    }

    /// The chunk's entry heights as its feed left them: `bytes` (`stage_back`'s) mapped from the
    /// staging once the submit's report has been waited for, or the chunk's own where 0.
    pub fn heights_after(&self, device: &wgpu::Device, bytes: u64, rain: &RainChunk) -> crate::error::Result<Vec<f32>> {
        match (&self.readback, bytes) {
            (Some(staging), bytes) if bytes > 0 => Ok(bytemuck::pod_collect_to_vec(
                &crate::engine::gpu::readback::map(device, staging, bytes)?,
            )),
            _ => Ok(rain.heights.clone()),
        }
    }

    /// Uploads a chunk's entries before it is recorded.
    pub fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, rain: &RainChunk) {
        let heights: &[u32] = bytemuck::cast_slice(&rain.heights);
        self.entries.upload(device, queue, &rain.steps, &rain.cells, heights);
    }

    /// Stages them as copies in `encoder` (embedded runs: chunks recorded back to back before
    /// one submit each need their own).
    pub fn stage(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, rain: &RainChunk) {
        let heights: &[u32] = bytemuck::cast_slice(&rain.heights);
        self.entries.stage(device, encoder, &rain.steps, &rain.cells, heights);
    }

    /// The entries' heights as the chunk's passes leave them (a negative one's replaced by what
    /// its cell could not give).
    pub fn heights(&self) -> &wgpu::Buffer {
        self.entries.values()
    }

    /// Records step `index` (slot group `slot` at `offset`): the rainfall, then the entries
    /// (nothing on a step without), then what the ground takes.
    pub fn record(&self, pass: &mut wgpu::ComputePass, slot: &wgpu::BindGroup, index: u32, offset: u32) {
        let entries = self.entries.count(index);
        if entries == 0 && !self.raining && !self.infiltrating {
            return;
        }
        pass.set_bind_group(0, self.entries.group(), &[]);
        pass.set_bind_group(1, slot, &[offset]);
        pass.set_bind_group(2, &self.share, &[]);
        if self.raining {
            crate::engine::gpu::binding::dispatch(pass, &self.rainfall, self.groups);
        }
        if entries > 0 {
            pass.set_pipeline(&self.drops);
            pass.dispatch_workgroups(entries.div_ceil(64), 1, 1);
        }
        if self.infiltrating {
            crate::engine::gpu::binding::dispatch(pass, &self.infiltrate, self.groups);
        }
    }
}
