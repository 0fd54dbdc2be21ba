//! Bodies on the pipes on the GPU: the height field's body passes (`bodies.wgsl`, pressed) bound
//! to the columns' surface and top floors, and `wgsl/pipe_bodies.wgsl`'s `press` and `loads`
//! (twin `cpu::pipe_bodies`), recorded by `engine::gpu::pressed`, built once.

use crate::engine::gpu::binding::{bind_group_at, filled_buffer, reflected_layout, UNIFORM};
use crate::engine::gpu::pressed::{PressShader, Pressed};
use crate::engine::gpu::state::{BodyBuffers, BodySurface, FieldAlloc};
use crate::engine::schedule::Pass;
use crate::engine::solver::PipeSetup;
use crate::models::pipes::bodies::PressGrid;
use crate::models::pipes::gpu::pipes::PipeBuffers;

/// The pipes' bodies: their buffers and passes.
pub struct PipeBodies {
    pub buffers: BodyBuffers,
    passes: Pressed,
}

impl PipeBodies {
    /// The bodies of `setup` over the pipes' buffers `b` (their uniforms `grid`), with the
    /// columns' top floors `floors` as the ground they rest on.
    pub fn new(
        device: &wgpu::Device,
        setup: &PipeSetup,
        grid: &PressGrid,
        b: &PipeBuffers,
        floors: &wgpu::Buffer,
    ) -> PipeBodies {
        let base = setup.base;
        let buffers = BodyBuffers::new(device, &FieldAlloc::new(device, base), base);
        let params = filled_buffer(device, "pipe body grid", bytemuck::bytes_of(&base.params), UNIFORM);
        // Pressed: `footprint` and `integrate` read the surface (`pipes.wgsl` `surface`), never
        // write it.
        let surface = BodySurface {
            params: &params,
            ground: floors,
            eta: [&b.eta, &b.eta],
            // The coupling's per-step change: no coupling runs on this model.
            vel: [&b.eta, &b.eta],
            slots: &b.slots,
            nx: grid.nx,
            ny: grid.ny,
        };
        let module =
            crate::engine::gpu::shaders::module(device, "pipe_bodies.wgsl", crate::engine::gpu::shaders::PIPE_BODIES);
        let layout = reflected_layout(device, "pipe bodies", crate::wgsl::pipe_bodies::BINDINGS, &[], 0);
        let uniforms = filled_buffer(device, "pipe press grid", bytemuck::bytes_of(grid), UNIFORM);
        // pressed.wgsl's bindings (1, 3, 4, 8) beside the pipes' own.
        let group = bind_group_at(
            device,
            "pipe bodies",
            &layout,
            &[
                (0, &uniforms),
                (1, &buffers.params),
                (2, &b.column_forcing),
                (3, &buffers.states),
                (4, &buffers.cover),
                (5, &b.water),
                (6, &b.vel),
                (8, &buffers.loads),
            ],
        );
        let shader = PressShader {
            module: &module,
            layout: &layout,
            group,
            cells: grid.columns,
        };
        PipeBodies {
            passes: Pressed::new(device, &surface, &buffers, shader),
            buffers,
        }
    }

    /// Records body pass `p` of the step whose slot is at `slot_offset`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, p: Pass, slot_offset: u32) {
        self.passes.record(pass, p, slot_offset);
    }
}
