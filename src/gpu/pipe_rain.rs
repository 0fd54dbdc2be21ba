//! The pipes model's rain (`wgsl/pipe_rain.wgsl`): each step's drops, whole units per column,
//! into the columns' top cells. One dispatch on steps with drops, none on the others; the
//! pipeline and bind groups built once (the entry buffers grow, with their group, when a chunk
//! brings more drops than they hold).

use super::pipes::PipeBuffers;
use super::rain::{layout_entries, RainBuffers};
use super::state::{filled_buffer, layout, pipeline, slot_bind_group, storage_entry, uniform_entry};
use bytemuck::{Pod, Zeroable};

/// Mirror of WGSL `RainParams` (pipe_rain.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RainParams {
    pub columns: u32,
    pub layers: u32,
    pub _pad: [u32; 2],
}

/// The pass: its pipeline, the chunk's drops and the step slots.
pub struct PipeRain {
    rain: wgpu::ComputePipeline,
    drops: RainBuffers,
    slot_group: wgpu::BindGroup,
    slot_stride: u32,
}

impl PipeRain {
    pub fn new(device: &wgpu::Device, b: &PipeBuffers, columns: u32, layers: u32, max_chunk: u32) -> PipeRain {
        let module = super::shaders::module(device, "pipe_rain.wgsl", super::shaders::PIPE_RAIN);
        let [steps, cells, units] = layout_entries(4);
        let group_layout = layout(
            device,
            "pipe rain",
            &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, false),
                storage_entry(3, false),
                steps,
                cells,
                units,
            ],
        );
        let slot_layout = layout(device, "pipe rain slot", &[uniform_entry(0, true)]);
        let params = RainParams {
            columns,
            layers,
            _pad: [0; 2],
        };
        let params = filled_buffer(
            device,
            "pipe rain params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        PipeRain {
            rain: pipeline(device, &module, &[&group_layout, &slot_layout], "rain"),
            drops: RainBuffers::new(
                device,
                &group_layout,
                &[&params, &b.geometry, &b.water, &b.exchange],
                max_chunk,
            ),
            slot_group: slot_bind_group(device, &slot_layout, &b.slots),
            slot_stride: b.slot_stride,
        }
    }

    /// Stages a chunk's drops (`units` per entry of `rain`) in `encoder`, before the pass that
    /// steps them.
    pub fn stage(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        rain: &crate::rain::RainChunk,
        units: &[u32],
    ) {
        self.drops.stage(device, encoder, &rain.steps, &rain.cells, units);
    }

    /// Records step `index`'s drops (nothing on a step without).
    pub fn record(&self, pass: &mut wgpu::ComputePass, index: u32) {
        let drops = self.drops.count(index);
        if drops == 0 {
            return;
        }
        pass.set_pipeline(&self.rain);
        pass.set_bind_group(0, self.drops.group(), &[]);
        pass.set_bind_group(1, &self.slot_group, &[index * self.slot_stride]);
        pass.dispatch_workgroups(drops.div_ceil(64), 1, 1);
    }
}

#[cfg(test)]
mod tests {
    use super::RainParams;
    use crate::wgsl::{check_mirror, fields};
    use std::mem::size_of;

    #[test]
    fn rain_params_mirror_their_wgsl_field_by_field() {
        check_mirror(
            "RainParams",
            size_of::<RainParams>(),
            fields!(RainParams { columns, layers }),
        );
    }
}
