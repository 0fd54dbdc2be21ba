//! The spray's passes (`wgsl/spray.wgsl`): nine dispatches per step after the pipes' substeps,
//! the per-particle ones sized on the GPU (indirect from the live count), none read back; `totals`
//! once per chunk. Pipelines and bind groups built once, each entry bound to what it uses.

use crate::engine::gpu::binding::{
    filled_buffer, layout, linear_groups, pipeline, reflected, slot_bind_group, slot_layout, zeroed_buffer,
};
use crate::models::pipes::gpu::pipes::PipeBuffers;
use crate::models::pipes::spray::{Particle, SprayParams, SCAN_BLOCK};
use wgpu::BufferUsages as U;

/// Columns (or particles) per workgroup of the per-column and per-particle entries.
const WG: u32 = 64;

/// The spray's own buffers; the columns' are the pipes'.
pub struct SprayBuffers {
    pub params: wgpu::Buffer,
    /// The particles in flight (`Particle`, 32 bytes each, the first `count` live): stable for
    /// the life of the solver, for an embedding renderer (usage VERTEX too).
    pub particles: wgpu::Buffer,
    pub next: wgpu::Buffer,
    pub counts: wgpu::Buffer,
    pub plan: wgpu::Buffer,
    pub inbox: wgpu::Buffer,
    pub block_sums: wgpu::Buffer,
    /// (workgroups, 1, 1, count): dispatch args of the per-particle passes.
    pub args_now: wgpu::Buffer,
    pub args_next: wgpu::Buffer,
    /// Per chunk: made, ended, refused, units (low, high), count.
    pub tally: wgpu::Buffer,
    /// Indirect draw args (6 vertices per particle, `count` instances).
    pub draw: wgpu::Buffer,
}

impl SprayBuffers {
    pub fn new(device: &wgpu::Device, p: &SprayParams) -> SprayBuffers {
        let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        let particle_bytes = p.capacity as u64 * std::mem::size_of::<Particle>() as u64;
        let args = U::STORAGE | U::INDIRECT | U::COPY_SRC | U::COPY_DST;
        let no_particles: [u32; 4] = [1, 1, 1, 0];
        SprayBuffers {
            params: filled_buffer(
                device,
                "spray params",
                bytemuck::bytes_of(p),
                crate::engine::gpu::binding::UNIFORM | U::COPY_DST,
            ),
            // VERTEX too: an embedding renderer instances its quads straight from it.
            particles: zeroed_buffer(device, "spray particles", particle_bytes, storage | U::VERTEX),
            next: zeroed_buffer(device, "spray next particles", particle_bytes, storage),
            counts: zeroed_buffer(device, "spray counts", p.scan_len() as u64 * 4, storage),
            plan: zeroed_buffer(device, "spray plan", p.columns as u64 * 16, storage),
            inbox: zeroed_buffer(
                device,
                "spray inbox",
                (p.layers + 2) as u64 * p.columns as u64 * 4,
                storage,
            ),
            block_sums: zeroed_buffer(device, "spray block sums", p.blocks as u64 * 4, storage),
            args_now: filled_buffer(device, "spray args", bytemuck::bytes_of(&no_particles), args),
            args_next: filled_buffer(device, "spray next args", bytemuck::bytes_of(&no_particles), args),
            tally: zeroed_buffer(device, "spray tally", 32, storage),
            draw: filled_buffer(device, "spray draw args", bytemuck::bytes_of(&[6u32, 0, 0, 0]), args),
        }
    }
}

/// One entry point: its pipeline and the bind group of exactly the bindings it uses.
struct Entry {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    /// Whether it reads the step's slot (group 1): emit, for the random key.
    slot: bool,
}

/// How the dispatch of an entry is sized.
enum Size {
    Columns,
    Blocks,
    One,
    /// Indirect, from args_now (the live particles) or args_next (after the scan).
    Now,
    Next,
}

/// The pipelines of `spray.wgsl` and their bind groups.
pub struct Spray {
    entries: Vec<(Entry, Size)>,
    totals: Entry,
    slot_group: wgpu::BindGroup,
    columns: (u32, u32),
    blocks: u32,
}

impl Spray {
    pub fn new(device: &wgpu::Device, b: &SprayBuffers, pipes: &PipeBuffers, p: &SprayParams) -> Spray {
        let module = crate::engine::gpu::shaders::module(device, "spray.wgsl", crate::engine::gpu::shaders::SPRAY);
        let buffer = |binding: u32| -> &wgpu::Buffer {
            match binding {
                0 => &b.params,
                1 => &pipes.geometry,
                2 | 11 => &pipes.water,
                3 => &pipes.vel,
                4 => &b.particles,
                5 => &b.next,
                6 => &b.counts,
                7 => &b.plan,
                8 => &b.inbox,
                9 => &pipes.feed,
                10 => &pipes.exchange,
                12 => &b.block_sums,
                13 | 14 => &b.args_now,
                15 | 16 => &b.args_next,
                17 => &b.tally,
                18 => &b.draw,
                _ => unreachable!("spray.wgsl has no binding {binding}"),
            }
        };
        let slot_layout = slot_layout(device, "spray slot");
        // Each entry point binds what it uses (group 0), as spray.wgsl declares it, and the
        // step slot (group 1) if it reads it.
        let bindings = crate::wgsl::spray::BINDINGS;
        let entry = |name: &str| -> Entry {
            let entries = reflected(bindings, &[name], 0);
            let slot = bindings.iter().any(|b| b.entry == name && b.group == 1);
            let group_layout = layout(device, name, &entries);
            let resources: Vec<_> = entries
                .iter()
                .map(|e| wgpu::BindGroupEntry {
                    binding: e.binding,
                    resource: buffer(e.binding).as_entire_binding(),
                })
                .collect();
            let layouts: Vec<&wgpu::BindGroupLayout> = if slot {
                vec![&group_layout, &slot_layout]
            } else {
                vec![&group_layout]
            };
            Entry {
                pipeline: pipeline(device, &module, &layouts, name),
                group: device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(name),
                    layout: &group_layout,
                    entries: &resources,
                }),
                slot,
            }
        };
        let entries = vec![
            (entry("fly"), Size::Now),
            (entry("count"), Size::Columns),
            (entry("scan_reduce"), Size::Blocks),
            (entry("scan_top"), Size::One),
            (entry("scan_down"), Size::Blocks),
            (entry("compact"), Size::Now),
            (entry("emit"), Size::Columns),
            (entry("settle"), Size::Columns),
            (entry("copy"), Size::Next),
        ];
        let totals = entry("totals");
        let slot_group = slot_bind_group(device, &slot_layout, &pipes.slots);
        let max = device.limits().max_compute_workgroups_per_dimension.min(65535);
        debug_assert_eq!(SCAN_BLOCK, 1024);
        Spray {
            entries,
            totals,
            slot_group,
            columns: linear_groups(p.columns.div_ceil(WG), max),
            blocks: p.blocks,
        }
    }

    /// Records one step of the spray; `slot_offset` selects the step's index (the random key).
    pub fn step(&self, pass: &mut wgpu::ComputePass, b: &SprayBuffers, slot_offset: u32) {
        for (e, size) in &self.entries {
            pass.set_pipeline(&e.pipeline);
            pass.set_bind_group(0, &e.group, &[]);
            if e.slot {
                pass.set_bind_group(1, &self.slot_group, &[slot_offset]);
            }
            match size {
                Size::Columns => pass.dispatch_workgroups(self.columns.0, self.columns.1, 1),
                Size::Blocks => pass.dispatch_workgroups(self.blocks, 1, 1),
                Size::One => pass.dispatch_workgroups(1, 1, 1),
                Size::Now => pass.dispatch_workgroups_indirect(&b.args_now, 0),
                Size::Next => pass.dispatch_workgroups_indirect(&b.args_next, 0),
            }
        }
    }

    /// Records the chunk's particle totals into the tally.
    pub fn totals(&self, pass: &mut wgpu::ComputePass, b: &SprayBuffers) {
        pass.set_pipeline(&self.totals.pipeline);
        pass.set_bind_group(0, &self.totals.group, &[]);
        pass.dispatch_workgroups_indirect(&b.args_now, 0);
    }
}
