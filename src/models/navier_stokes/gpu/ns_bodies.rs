//! Bodies in the Navier-Stokes layer on the GPU: the loads pass (`wgsl/ns_bodies.wgsl`, twin
//! `cpu::ns_bodies`) and the height field's body passes (`bodies.wgsl`, `coupling.wgsl`) bound to
//! the layer's surface, built once.

use crate::engine::gpu::bodies::Bodies;

use crate::engine::gpu::state::BodySurface;

use crate::engine::gpu::binding::{bind_group, filled_buffer, pipeline, reflected_layout, zeroed_buffer};
use crate::engine::gpu::coupling::Coupling;
use crate::engine::gpu::state::BodyBuffers;
use crate::engine::schedule::Pass;
use crate::engine::solver::Setup;
use crate::models::navier_stokes::gpu::buffers::NsBuffers;
use crate::models::navier_stokes::gpu::navier_stokes::NavierStokes;

/// The loads pass: one workgroup per body.
struct Loads {
    pipeline: wgpu::ComputePipeline,
    /// Velocity level a as the current velocities.
    levels: [wgpu::BindGroup; 2],
    fields: wgpu::BindGroup,
}

/// The layer's bodies: their buffers, the footprint, coupling and integrate passes over the
/// layer's height field, and the loads pass over its 3D grid.
pub struct LayerBodies {
    pub buffers: BodyBuffers,
    bodies: Bodies,
    coupling: Coupling,
    loads: Loads,
}

impl LayerBodies {
    /// The bodies of `setup` over the layer's buffers `b`; `grid_layout` is the layer's group 0
    /// (its uniforms, flags and pressures), `slots` the step slots, `buffers` the bodies' buffers.
    pub fn new(
        device: &wgpu::Device,
        setup: &Setup,
        b: &NsBuffers,
        grid_layout: &wgpu::BindGroupLayout,
        slots: &wgpu::Buffer,
        buffers: BodyBuffers,
    ) -> LayerBodies {
        let (nx, ny) = (setup.params.nx, setup.params.ny);
        let storage = wgpu::BufferUsages::STORAGE;
        let params = filled_buffer(
            device,
            "ns body surface params",
            bytemuck::bytes_of(&setup.params),
            crate::engine::gpu::binding::UNIFORM,
        );
        // The coupling adds its correction to a per-step change as well; the layer has none.
        let change = zeroed_buffer(device, "ns body change (scratch)", nx as u64 * ny as u64 * 4, storage);
        let surface = BodySurface {
            params: &params,
            ground: &b.ground,
            eta: [&b.h, &b.h],
            vel: [&change, &change],
            slots,
            nx,
            ny,
        };
        let bodies = Bodies::new(device, &surface, &buffers);
        let coupling = Coupling::new(device, &surface, &buffers, &setup.body_params);
        let module =
            crate::engine::gpu::shaders::module(device, "ns_bodies.wgsl", crate::engine::gpu::shaders::NS_BODIES);
        let level_layout = reflected_layout(device, "ns bodies velocity", crate::wgsl::ns_bodies::BINDINGS, &[], 1);
        let fields_layout = reflected_layout(device, "ns bodies", crate::wgsl::ns_bodies::BINDINGS, &[], 2);
        let loads = Loads {
            pipeline: pipeline(
                device,
                &module,
                &[grid_layout, &level_layout, &fields_layout],
                "body_loads",
            ),
            levels: [0, 1].map(|a| bind_group(device, "ns bodies velocity", &level_layout, &[&b.vel[a]])),
            fields: bind_group(
                device,
                "ns bodies",
                &fields_layout,
                &[
                    &buffers.params,
                    &b.h,
                    &b.ground,
                    &buffers.states,
                    &buffers.loads,
                    &buffers.cover,
                ],
            ),
        };
        LayerBodies {
            buffers,
            bodies,
            coupling,
            loads,
        }
    }

    /// Records `p` (a body pass of the schedule) of a step, `level` the current velocities,
    /// `slot_offset` the step's slot.
    pub fn record(&self, pass: &mut wgpu::ComputePass, p: Pass, grid: &NavierStokes, level: usize, slot_offset: u32) {
        // The layer's surface is one buffer: both of the body passes' levels name it.
        match p {
            Pass::Footprint => self.bodies.footprint(pass, 0, slot_offset),
            Pass::Coupling => self.coupling.record(pass, 0),
            Pass::NsBodies => {
                pass.set_pipeline(&self.loads.pipeline);
                pass.set_bind_group(0, grid.grid_group(), &[]);
                pass.set_bind_group(1, &self.loads.levels[level], &[]);
                pass.set_bind_group(2, &self.loads.fields, &[]);
                pass.dispatch_workgroups(self.buffers.count, 1, 1);
            }
            Pass::Integrate => self.bodies.integrate(pass, 0, slot_offset),
            other => unreachable!("{other:?} is not a body pass"),
        }
    }

    /// How the coupling solve went, from its scalars in a chunk's report.
    pub fn report(&self, solve: &crate::engine::bodies::Solve) -> crate::engine::bodies::SolveReport {
        self.coupling.report(solve)
    }
}
