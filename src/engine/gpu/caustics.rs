//! The caustics pass (`wgsl/caustics.wgsl`): light refracted through the surface normals,
//! counted on the ground. Runs after the surface pass, whose outputs it reads.

use crate::engine::gpu::binding::{bind_group, pipeline, reflected_layout};
use crate::engine::gpu::surface::{Surface, SurfaceBuffers, SurfaceSource};

pub struct Caustics {
    scatter: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    nx: u32,
    ny: u32,
}

impl Caustics {
    /// Writes `caustics` from `out`'s normals and depth, in the shadow of what `source.cover` says
    /// covers each column.
    pub fn new(
        device: &wgpu::Device,
        source: SurfaceSource,
        surface: &Surface,
        out: &SurfaceBuffers,
        caustics: &wgpu::Buffer,
    ) -> Caustics {
        let module =
            crate::engine::gpu::shaders::module(device, "caustics.wgsl", crate::engine::gpu::shaders::CAUSTICS);
        let group_layout = reflected_layout(device, "caustics", crate::wgsl::caustics::BINDINGS, &[], 0);
        // Light received per cell, in 1/2^16 units; `resolve` leaves it zeroed for the next frame.
        let received = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("caustics received"),
            size: source.nx as u64 * source.ny as u64 * 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Caustics {
            scatter: pipeline(device, &module, &[&group_layout], "scatter"),
            resolve: pipeline(device, &module, &[&group_layout], "resolve"),
            group: bind_group(
                device,
                "caustics",
                &group_layout,
                &[
                    &surface.look,
                    &out.normals,
                    &out.depth,
                    &received,
                    caustics,
                    source.cover,
                ],
            ),
            nx: source.nx,
            ny: source.ny,
        }
    }

    pub fn record(&self, pass: &mut wgpu::ComputePass) {
        pass.set_bind_group(0, &self.group, &[]);
        for pipeline in [&self.scatter, &self.resolve] {
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups(self.nx.div_ceil(16), self.ny.div_ceil(16), 1);
        }
    }
}
