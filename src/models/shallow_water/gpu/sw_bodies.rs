//! Bodies on the shallow-water model on the GPU: the height field's body passes (`bodies.wgsl`,
//! pressed) bound to the model's surface, and `wgsl/sw_bodies.wgsl`'s `press` and `loads`
//! (twin `cpu::sw_bodies`), recorded by `engine::gpu::pressed`, built once.

use crate::engine::gpu::binding::{bind_group, filled_buffer, reflected_layout, UNIFORM};
use crate::engine::gpu::pressed::{PressShader, Pressed};
use crate::engine::gpu::state::{BodyBuffers, BodySurface, FieldAlloc};
use crate::engine::schedule::Pass;
use crate::engine::solver::Setup;
use crate::models::shallow_water::gpu::shallow_water::SwBuffers;

/// The model's bodies: their buffers and passes.
pub struct SwBodies {
    pub buffers: BodyBuffers,
    passes: Pressed,
}

impl SwBodies {
    /// The bodies of `setup` over the model's buffers `b`.
    pub fn new(device: &wgpu::Device, setup: &Setup, b: &SwBuffers) -> SwBodies {
        let buffers = BodyBuffers::new(device, &FieldAlloc::new(device, setup), setup);
        let grid = filled_buffer(device, "sw body grid", bytemuck::bytes_of(&setup.params), UNIFORM);
        let [eta, qx, qy] = &b.levels[0];
        // The footprint and integrate passes read and (not pressed) write one level: the state's.
        let surface = BodySurface {
            params: &grid,
            ground: &b.ground,
            eta: [eta, eta],
            // The coupling's per-step change: no coupling runs on this model.
            vel: [eta, eta],
            slots: &b.slots,
            nx: setup.params.nx,
            ny: setup.params.ny,
        };
        let module =
            crate::engine::gpu::shaders::module(device, "sw_bodies.wgsl", crate::engine::gpu::shaders::SW_BODIES);
        let layout = reflected_layout(device, "sw bodies", crate::wgsl::sw_bodies::BINDINGS, &[], 0);
        let group = bind_group(
            device,
            "sw bodies",
            &layout,
            &[
                &b.params,
                &buffers.params,
                &b.ground,
                &buffers.states,
                &buffers.cover,
                eta,
                qx,
                qy,
                &buffers.loads,
            ],
        );
        let shader = PressShader {
            module: &module,
            layout: &layout,
            group,
            cells: setup.params.nx * setup.params.ny,
        };
        SwBodies {
            passes: Pressed::new(device, &surface, &buffers, shader),
            buffers,
        }
    }

    /// Records body pass `p` of the step whose slot is at `slot_offset`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, p: Pass, slot_offset: u32) {
        self.passes.record(pass, p, slot_offset);
    }
}
