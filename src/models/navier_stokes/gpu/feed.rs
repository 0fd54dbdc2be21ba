//! The layer's feed on the GPU: the shallow-water model's `SwFeed` (`sw_feed.wgsl`) over the
//! layer's surface and ground (`models::navier_stokes::feed` says why and what it keeps), with
//! the buffers only it needs: its uniforms, the stand-in discharges, the carry, the soil's state
//! (a stand-in without `[infiltration]`), the ground and the soil's parameter planes as its
//! stages read them (with `[infiltration]`), and a slot window as wide as its `SwSlot`. Built
//! once.

use crate::engine::gpu::binding::{dynamic_uniform_entry, filled_buffer, layout, zeroed_buffer, UNIFORM};
use crate::engine::rain::RainChunk;
use crate::models::shallow_water::gpu::sw_feed::{FeedBuffers, SwFeed};
use crate::models::shallow_water::setup::{SwParams, SwSlot};
use wgpu::BufferUsages as U;

/// Bytes of the slot window the feed reads (`SwSlot`: the step's index, then the river sides'
/// values, unread here).
const SLOT_BYTES: u64 = std::mem::size_of::<SwSlot>() as u64;

/// The feed and its buffers.
pub struct LayerFeed {
    pass: SwFeed,
    slot: wgpu::BindGroup,
    /// The rounding each cell's fed water has yet to give it (checkpointed).
    pub carry: wgpu::Buffer,
    /// `[infiltration]`'s state, `SOIL_FLOATS` per cell (checkpointed; 16 bytes without).
    pub soil: wgpu::Buffer,
    /// Held for the bind groups: the uniforms, the stand-in discharges, and the stages' ground
    /// with the soil's parameters (None without `[infiltration]`: the layer's ground).
    _held: ([wgpu::Buffer; 3], Option<wgpu::Buffer>),
}

impl LayerFeed {
    /// The feed of the surface `h` over `ground` (`nx` × `ny` cells; `ground_values` its
    /// heights), `[rainfall]`'s `mode` and map `share`, `[infiltration]`'s `law` and parameter
    /// planes `soil_planes` (0 and empty without), reading its step's index from the layer's
    /// `slots` (one per `stride` bytes).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        device: &wgpu::Device,
        h: &wgpu::Buffer,
        (ground, ground_values): (&wgpu::Buffer, &[f32]),
        slots: &wgpu::Buffer,
        [nx, ny]: [usize; 2],
        (mode, share): (u32, &[f32]),
        (law, soil_planes): (u32, &[f32]),
        max_chunk: u32,
    ) -> LayerFeed {
        let p: SwParams = crate::models::navier_stokes::feed::feed_params(nx, ny, mode, law);
        let bytes = (nx * ny * 4) as u64;
        let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        let params = filled_buffer(device, "ns feed params", bytemuck::bytes_of(&p), UNIFORM);
        let qx = zeroed_buffer(device, "ns feed qx (stand-in)", bytes, U::STORAGE);
        let qy = zeroed_buffer(device, "ns feed qy (stand-in)", bytes, U::STORAGE);
        let carry = zeroed_buffer(device, "ns feed carry", bytes, storage);
        let soil = match law {
            0 => zeroed_buffer(device, "ns feed soil (stand-in)", 16, storage),
            _ => zeroed_buffer(
                device,
                "ns feed soil",
                bytes * crate::engine::infiltration::SOIL_FLOATS as u64,
                storage,
            ),
        };
        let stages = (law != 0).then(|| {
            let values = crate::models::navier_stokes::feed::stages(ground_values, soil_planes);
            filled_buffer(device, "ns feed stages", bytemuck::cast_slice(&values), U::STORAGE)
        });
        let slot_layout = layout(device, "ns feed slot", &[dynamic_uniform_entry(0, SLOT_BYTES)]);
        let slot = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ns feed slot"),
            layout: &slot_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: slots,
                    offset: 0,
                    size: std::num::NonZeroU64::new(SLOT_BYTES),
                }),
            }],
        });
        let buffers = FeedBuffers {
            params: &params,
            ground: stages.as_ref().unwrap_or(ground),
            eta: h,
            qx: &qx,
            qy: &qy,
            carry: &carry,
            soil: &soil,
        };
        let pass = SwFeed::new(device, buffers, &slot_layout, &p, share, max_chunk);
        LayerFeed {
            pass,
            slot,
            carry,
            soil,
            _held: ([params, qx, qy], stages),
        }
    }

    /// Uploads a chunk's entries before it is recorded.
    pub fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, rain: &RainChunk) {
        self.pass.upload(device, queue, rain);
    }

    /// Stages a chunk's entries in `encoder` (`Water`: several chunks share one encoder).
    pub fn stage(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, rain: &RainChunk) {
        self.pass.stage(device, encoder, rain);
    }

    /// Records step `index`'s feed, its slot at `offset`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, index: u32, offset: u32) {
        self.pass.record(pass, &self.slot, index, offset);
    }

    /// `SwFeed::stage_back`.
    pub fn stage_back(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, rain: &RainChunk) -> u64 {
        self.pass.stage_back(device, encoder, rain)
    }

    /// `SwFeed::heights_after`.
    pub fn heights_after(&self, device: &wgpu::Device, bytes: u64, rain: &RainChunk) -> crate::error::Result<Vec<f32>> {
        self.pass.heights_after(device, bytes, rain)
    }
}
