//! The Navier-Stokes layer's spray and foam (`wgsl/ns_spray.wgsl`), twin of `cpu::ns_spray`: its
//! uniforms, slots, landing words and tally; pipelines and bind groups built once.

use crate::engine::gpu::binding::{
    dispatch, filled_buffer, linear_groups, pipeline, reflected_layout, slot_bind_group, slot_layout, zeroed_buffer,
};
use crate::models::navier_stokes::gpu::buffers::{NsBuffers, WG};
use crate::models::navier_stokes::spray::NsSprayParams;
use crate::models::pipes::spray::Particle;
use wgpu::BufferUsages as U;

/// Bytes of the tally.
pub const TALLY_BYTES: u64 = 32;

/// The spray's buffers, pipelines and bind groups.
pub struct NsSpray {
    pub params: NsSprayParams,
    uniforms: wgpu::Buffer,
    /// `SLOTS` particles per height-field cell.
    pub drops: wgpu::Buffer,
    /// Per chunk: the `T_*` counters.
    pub tally: wgpu::Buffer,
    fly: wgpu::ComputePipeline,
    birth: wgpu::ComputePipeline,
    totals: wgpu::ComputePipeline,
    fields: wgpu::BindGroup,
    /// Velocity level a as the current velocities.
    levels: [wgpu::BindGroup; 2],
    slot: wgpu::BindGroup,
    slot_groups: (u32, u32),
    cell_groups: (u32, u32),
}

impl NsSpray {
    /// The passes over the layer's buffers `b`, with every slot free; `slots` are the step slots.
    pub fn new(device: &wgpu::Device, b: &NsBuffers, params: NsSprayParams, slots: &wgpu::Buffer) -> NsSpray {
        let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        let uniforms = filled_buffer(
            device,
            "ns spray uniforms",
            bytemuck::bytes_of(&params),
            crate::engine::gpu::binding::UNIFORM | U::COPY_DST,
        );
        // A host's renderer draws the slots as instances (`Water::particles_buffer`).
        let drops = zeroed_buffer(
            device,
            "ns spray slots",
            (params.slots() * 32) as u64,
            storage | U::VERTEX,
        );
        let landed = zeroed_buffer(device, "ns spray landed", params.cells as u64 * 4, storage);
        let tally = zeroed_buffer(device, "ns spray tally", TALLY_BYTES, storage);
        let module =
            crate::engine::gpu::shaders::module(device, "ns_spray.wgsl", crate::engine::gpu::shaders::NS_SPRAY);
        let fields_layout = reflected_layout(device, "ns spray", crate::wgsl::ns_spray::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "ns spray velocity", crate::wgsl::ns_spray::BINDINGS, &[], 1);
        let slot_layout = slot_layout(device, "ns spray slot");
        let fields = crate::engine::gpu::binding::bind_group(
            device,
            "ns spray",
            &fields_layout,
            &[
                &b.uniforms,
                &uniforms,
                &b.h,
                &b.ground,
                &drops,
                &landed,
                &b.volume,
                &tally,
            ],
        );
        let levels = [0, 1]
            .map(|a| crate::engine::gpu::binding::bind_group(device, "ns spray velocity", &level_layout, &[&b.vel[a]]));
        let layouts = [&fields_layout, &level_layout, &slot_layout];
        let max = device.limits().max_compute_workgroups_per_dimension.min(65535);
        NsSpray {
            params,
            uniforms,
            fly: pipeline(device, &module, &layouts, "fly"),
            birth: pipeline(device, &module, &layouts, "birth"),
            totals: pipeline(device, &module, &layouts, "totals"),
            fields,
            levels,
            slot: slot_bind_group(device, &slot_layout, slots),
            slot_groups: linear_groups((params.slots() as u32).div_ceil(WG), max),
            cell_groups: linear_groups(params.cells.div_ceil(WG), max),
            drops,
            tally,
        }
    }

    /// Keys the next chunk's random numbers: `first_step` steps ran before it (staged in
    /// `encoder`, so chunks recorded into one encoder each keep their own).
    pub fn start_chunk(
        &mut self,
        uploads: &crate::engine::gpu::uploads::Uploads,
        encoder: &mut wgpu::CommandEncoder,
        first_step: u32,
    ) {
        if self.params.first_step != first_step {
            self.params.first_step = first_step;
            uploads.stage(encoder, &self.uniforms, 0, bytemuck::bytes_of(&self.params));
        }
        encoder.clear_buffer(&self.tally, 0, None);
    }

    fn bind(&self, pass: &mut wgpu::ComputePass, level: usize, slot_offset: u32) {
        pass.set_bind_group(0, &self.fields, &[]);
        pass.set_bind_group(1, &self.levels[level], &[]);
        pass.set_bind_group(2, &self.slot, &[slot_offset]);
    }

    /// Records one step's `fly` and `birth` over the velocities of level `level`, step row
    /// `slot_offset` of the chunk.
    pub fn step(&self, pass: &mut wgpu::ComputePass, level: usize, slot_offset: u32) {
        self.bind(pass, level, slot_offset);
        dispatch(pass, &self.fly, self.slot_groups);
        dispatch(pass, &self.birth, self.cell_groups);
    }

    /// Records the chunk's count of spray and foam into the tally.
    pub fn totals(&self, pass: &mut wgpu::ComputePass) {
        self.bind(pass, 0, 0);
        dispatch(pass, &self.totals, self.slot_groups);
    }

    /// Writes the slots `drops` (a checkpoint's) and their units in the air into the layer's
    /// volume word.
    pub fn load(&self, queue: &wgpu::Queue, b: &NsBuffers, drops: &[Particle]) {
        queue.write_buffer(&self.drops, 0, bytemuck::cast_slice(drops));
        let in_flight: u32 = drops.iter().map(|p| p.units).sum();
        let at = crate::models::navier_stokes::spray::IN_FLIGHT as u64 * 4;
        queue.write_buffer(&b.volume, at, bytemuck::bytes_of(&in_flight));
    }
}
