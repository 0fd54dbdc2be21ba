//! The surface pass (`wgsl/surface.wgsl`): the current level copied into the stable buffers a
//! renderer binds, with normals and the wetness map. Pipelines and bind groups built once.

use crate::engine::gpu::state::GpuState;

use crate::engine::gpu::binding::{bind_group, pipeline, reflected_layout};

/// What the render-side passes read of a model's state: the grid, the ground and the level
/// (h − ref per cell, by ping-pong index), and what covers each column.
#[derive(Clone, Copy)]
pub struct SurfaceSource<'a> {
    pub nx: u32,
    pub ny: u32,
    pub ground: &'a wgpu::Buffer,
    /// The level's buffers by ping-pong index (a model with one buffer gives it twice).
    pub levels: [&'a wgpu::Buffer; 2],
    /// `Cover` per cell, or one stand-in element (with `Look::bodies` 0, never read).
    pub cover: &'a wgpu::Buffer,
}

impl GpuState {
    /// The height field's state as the render-side passes read it.
    pub fn surface_source(&self) -> SurfaceSource<'_> {
        SurfaceSource {
            nx: self.nx,
            ny: self.ny,
            ground: &self.ground,
            levels: [&self.eta[0], &self.eta[1]],
            cover: &self.bodies.cover,
        }
    }
}
use bytemuck::{Pod, Zeroable};

/// Mirror of WGSL `Look` (`wgsl/look.wgsl`, 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Look {
    pub nx: u32,
    pub ny: u32,
    pub dx: f32,
    /// What a dry cell's wetness is multiplied by this frame.
    pub decay: f32,
    /// Direction the light travels (unit, z < 0) and 1 / the water's refractive index.
    pub light: [f32; 4],
    /// 1 when the scene has bodies (their columns are in shadow).
    pub bodies: u32,
    pub _pad: [u32; 3],
}

/// The buffers a renderer binds: created once, never replaced, written once per recorded frame.
/// Each holds one element per cell, row-major [ny, nx] (cell (i, j) at j·nx + i, x east, y
/// north), heights in metres relative to `Water::reference_level`. Usage: STORAGE | VERTEX |
/// COPY_SRC, so they bind as vertex buffers (step mode Vertex, one vertex per cell), as
/// read-only storage, or copy out.
pub struct SurfaceBuffers {
    /// f32: the water surface h − ref; a dry cell's is its ground.
    pub height: wgpu::Buffer,
    /// f32: max(h − b, 0), metres.
    pub depth: wgpu::Buffer,
    /// `vec4<f32>` (16 B): the unit surface normal (x, y, z up), w = 0.
    pub normals: wgpu::Buffer,
    /// f32 in [0, 1]: 1 while wet, decaying with the drying time while dry.
    pub wetness: wgpu::Buffer,
    /// f32: caustics intensity on the ground, 1 under flat water and on dry ground; None unless
    /// `WaterOptions::caustics`.
    pub caustics: Option<wgpu::Buffer>,
}

/// Usage of every render-side buffer.
pub const SURFACE_USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::VERTEX)
    .union(wgpu::BufferUsages::COPY_SRC);

impl SurfaceBuffers {
    /// The surface buffers for `cells` cells; the light buffer only with `caustics`.
    pub fn new(device: &wgpu::Device, cells: u64, caustics: bool) -> SurfaceBuffers {
        let field = |label: &str, bytes_per_cell: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: cells * bytes_per_cell,
                usage: SURFACE_USAGE,
                mapped_at_creation: false,
            })
        };
        SurfaceBuffers {
            height: field("surface height", 4),
            depth: field("surface depth", 4),
            normals: field("surface normals", 16),
            wetness: field("wetness", 4),
            caustics: caustics.then(|| field("caustics", 4)),
        }
    }
}

pub struct Surface {
    surface: wgpu::ComputePipeline,
    /// `Look`, written through the encoder each frame.
    pub look: wgpu::Buffer,
    shared: wgpu::BindGroup,
    /// `levels[p]` reads eta level p.
    levels: [wgpu::BindGroup; 2],
    groups: (u32, u32),
}

impl Surface {
    pub fn new(device: &wgpu::Device, source: SurfaceSource, out: &SurfaceBuffers) -> Surface {
        let module = crate::engine::gpu::shaders::module(device, "surface.wgsl", crate::engine::gpu::shaders::SURFACE);
        let look = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("look"),
            size: std::mem::size_of::<Look>() as u64,
            usage: crate::engine::gpu::binding::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let shared_layout = reflected_layout(device, "surface shared", crate::wgsl::surface::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "surface level", crate::wgsl::surface::BINDINGS, &[], 1);
        let level = |p: usize| bind_group(device, "surface level", &level_layout, &[source.levels[p]]);
        Surface {
            surface: pipeline(device, &module, &[&shared_layout, &level_layout], "surface"),
            shared: bind_group(
                device,
                "surface shared",
                &shared_layout,
                &[
                    &look,
                    source.ground,
                    &out.height,
                    &out.depth,
                    &out.normals,
                    &out.wetness,
                ],
            ),
            levels: [level(0), level(1)],
            look,
            groups: (source.nx.div_ceil(16), source.ny.div_ceil(16)),
        }
    }

    /// Records the pass over the current level (`look` staged before the pass).
    /// Records the pass over the level `current` (the ping-pong index).
    pub fn record(&self, pass: &mut wgpu::ComputePass, current: usize) {
        pass.set_pipeline(&self.surface);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[current], &[]);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }
}
