//! The passes of bodies that press on the water (`BodyParams::pressed`: the shallow-water model's
//! `SwBodies`, the pipes' `PipeBodies`): the height field's body passes (`bodies.wgsl`, pressed)
//! over the model's surface, and the model's own `press` and `loads` (each importing
//! `wgsl/pressed.wgsl`), recorded in a step's order. Built once.

use crate::engine::gpu::binding::{dispatch, linear_groups, pipeline};
use crate::engine::gpu::bodies::Bodies;
use crate::engine::gpu::state::{BodyBuffers, BodySurface};
use crate::engine::schedule::Pass;

/// A model's `press` and `loads` shader, its layout and its bind group over the model's buffers.
pub struct PressShader<'a> {
    pub module: &'a wgpu::ShaderModule,
    pub layout: &'a wgpu::BindGroupLayout,
    pub group: wgpu::BindGroup,
    /// The cells (columns) `press` runs over.
    pub cells: u32,
}

/// The body passes of a pressed model.
pub struct Pressed {
    bodies: Bodies,
    press: wgpu::ComputePipeline,
    loads: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    /// `press`'s workgroups over the cells, and the bodies (`loads`' workgroups).
    groups: (u32, u32),
    count: u32,
}

impl Pressed {
    /// The passes over `surface` with the bodies' `buffers` and the model's `shader`.
    pub fn new(device: &wgpu::Device, surface: &BodySurface, buffers: &BodyBuffers, shader: PressShader) -> Pressed {
        let max = device.limits().max_compute_workgroups_per_dimension;
        Pressed {
            bodies: Bodies::new(device, surface, buffers),
            press: pipeline(device, shader.module, &[shader.layout], "press"),
            loads: pipeline(device, shader.module, &[shader.layout], "loads"),
            group: shader.group,
            groups: linear_groups(shader.cells.div_ceil(256), max),
            count: buffers.count,
        }
    }

    /// Records body pass `p` of the step whose slot is at `slot_offset`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, p: Pass, slot_offset: u32) {
        match p {
            Pass::SwPress | Pass::PipePress => {
                pass.set_bind_group(0, &self.group, &[]);
                dispatch(pass, &self.press, self.groups);
            }
            Pass::Footprint => self.bodies.footprint(pass, 0, slot_offset),
            Pass::SwLoads | Pass::PipeLoads => {
                pass.set_pipeline(&self.loads);
                pass.set_bind_group(0, &self.group, &[]);
                pass.dispatch_workgroups(self.count, 1, 1);
            }
            Pass::Integrate => self.bodies.integrate(pass, 0, slot_offset),
            other => unreachable!("{other:?} is not a body pass of a pressed model"),
        }
    }
}
