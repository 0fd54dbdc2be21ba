//! The shallow-water model's speed and hazard maps (`wgsl/sw_maps.wgsl`): one dispatch a step,
//! after the summary's fold; the pipeline, its buffer and bind group built once.

use crate::engine::gpu::binding::{bind_group, filled_buffer, linear_groups, pipeline, reflected_layout, UNIFORM};
use crate::models::shallow_water::gpu::shallow_water::SwBuffers;
use crate::models::shallow_water::setup::FlowMapParams;

/// The pass and its maps.
pub struct SwMaps {
    fold: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    /// (fastest speed, largest d·|u|) per cell.
    pub maps: wgpu::Buffer,
    groups: (u32, u32),
}

impl SwMaps {
    /// The maps of the state in `b`, starting from `start` (two per cell).
    pub fn new(device: &wgpu::Device, b: &SwBuffers, fp: &FlowMapParams, start: &[f32]) -> SwMaps {
        let module = crate::engine::gpu::shaders::module(device, "sw_maps.wgsl", crate::engine::gpu::shaders::SW_MAPS);
        let layout = reflected_layout(device, "sw maps", crate::wgsl::sw_maps::BINDINGS, &[], 0);
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let maps = filled_buffer(device, "sw flow maps", bytemuck::cast_slice(start), usage);
        let params = filled_buffer(device, "sw flow map params", bytemuck::bytes_of(fp), UNIFORM);
        let [eta, qx, qy] = &b.levels[0];
        let group = bind_group(device, "sw maps", &layout, &[&params, &b.ground, eta, qx, qy, &maps]);
        SwMaps {
            fold: pipeline(device, &module, &[&layout], "fold_flow"),
            group,
            maps,
            groups: linear_groups(
                fp.cells.div_ceil(256),
                device.limits().max_compute_workgroups_per_dimension,
            ),
        }
    }

    /// Folds the state after a step into the maps.
    pub fn record(&self, pass: &mut wgpu::ComputePass) {
        pass.set_bind_group(0, &self.group, &[]);
        crate::engine::gpu::binding::dispatch(pass, &self.fold, self.groups);
    }
}
