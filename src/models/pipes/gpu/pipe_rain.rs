//! The pipes model's rain (`wgsl/pipe_rain.wgsl`): each step's drops, whole units per column,
//! into the columns' top cells. One dispatch on steps with drops, none on the others; the
//! pipeline and bind groups built once (the entry buffers grow, with their group, when a chunk
//! brings more drops than they hold).

use crate::engine::gpu::binding::{filled_buffer, pipeline, reflected_layout, slot_bind_group, slot_layout};
use crate::engine::gpu::rain::RainBuffers;
use crate::models::pipes::gpu::pipes::PipeBuffers;
use bytemuck::{Pod, Zeroable};

/// Mirror of WGSL `RainParams` (pipe_rain.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RainParams {
    pub columns: u32,
    pub layers: u32,
    /// `feeds::RAINFALL_*`.
    pub rainfall: u32,
    /// Units per metre of height.
    pub per_unit: f32,
    /// Always 1.0 (see `one` in pipe_rain.wgsl).
    pub one: f32,
    pub _pad: [u32; 3],
}

/// The pass: its pipelines, the chunk's drops, the step slots and the rainfall's share and carry.
pub struct PipeRain {
    rain: wgpu::ComputePipeline,
    rainfall: wgpu::ComputePipeline,
    drops: RainBuffers,
    slot_group: wgpu::BindGroup,
    slot_stride: u32,
    /// `[rainfall]`'s map shares (16 B when uniform) and the columns' carried fractions.
    pub carry: wgpu::Buffer,
    rainfall_group: wgpu::BindGroup,
    /// Whether the scene has `[rainfall]`, and its columns.
    raining: bool,
    columns: u32,
}

/// What the pipes' rain pass is built for: `[rainfall]`'s mode and map, and the columns' water
/// per metre of height.
#[derive(Clone, Copy, Debug)]
pub struct Rainfall<'a> {
    pub mode: u32,
    pub share: &'a [f32],
    pub per_unit: f32,
}

impl PipeRain {
    pub fn new(
        device: &wgpu::Device,
        b: &PipeBuffers,
        columns: u32,
        layers: u32,
        max_chunk: u32,
        rainfall: Rainfall,
    ) -> PipeRain {
        let module =
            crate::engine::gpu::shaders::module(device, "pipe_rain.wgsl", crate::engine::gpu::shaders::PIPE_RAIN);
        let bindings = crate::wgsl::pipe_rain::BINDINGS;
        let group_layout = reflected_layout(device, "pipe rain", bindings, &[], 0);
        let slot_layout = slot_layout(device, "pipe rain slot");
        let rainfall_layout = reflected_layout(device, "pipe rainfall", crate::wgsl::pipe_rain::BINDINGS, &[], 2);
        let params = RainParams {
            columns,
            layers,
            rainfall: rainfall.mode,
            per_unit: rainfall.per_unit,
            one: 1.0,
            _pad: [0; 3],
        };
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let share = filled_buffer(device, "pipe rainfall share", &padded(rainfall.share, 4), storage);
        let carry = filled_buffer(
            device,
            "pipe rainfall carry",
            &padded(&vec![0.0; columns as usize], 4),
            storage,
        );
        let rainfall_group =
            crate::engine::gpu::binding::bind_group(device, "pipe rainfall", &rainfall_layout, &[&share, &carry]);
        let layouts = [&group_layout, &slot_layout, &rainfall_layout];
        let params = filled_buffer(
            device,
            "pipe rain params",
            bytemuck::bytes_of(&params),
            crate::engine::gpu::binding::UNIFORM,
        );
        PipeRain {
            rain: pipeline(device, &module, &layouts, "rain"),
            rainfall: pipeline(device, &module, &layouts, "rainfall"),
            carry,
            rainfall_group,
            raining: rainfall.mode != 0,
            columns,
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
        rain: &crate::engine::rain::RainChunk,
        units: &[u32],
    ) {
        self.drops.stage(device, encoder, &rain.steps, &rain.cells, units);
    }

    /// Whether the scene has `[rainfall]`.
    pub fn raining(&self) -> bool {
        self.raining
    }

    /// Records step `index`'s drops (nothing on a step without), then its rainfall.
    pub fn record(&self, pass: &mut wgpu::ComputePass, index: u32) {
        let drops = self.drops.count(index);
        if drops == 0 && !self.raining {
            return;
        }
        pass.set_bind_group(0, self.drops.group(), &[]);
        pass.set_bind_group(1, &self.slot_group, &[index * self.slot_stride]);
        pass.set_bind_group(2, &self.rainfall_group, &[]);
        if drops > 0 {
            pass.set_pipeline(&self.rain);
            pass.dispatch_workgroups(drops.div_ceil(64), 1, 1);
        }
        if self.raining {
            pass.set_pipeline(&self.rainfall);
            let (x, y) = crate::engine::gpu::binding::linear_groups(self.columns.div_ceil(64), 65535);
            pass.dispatch_workgroups(x, y, 1);
        }
    }
}

/// `values` as bytes, at least `min` words (a binding is never empty).
fn padded(values: &[f32], min: usize) -> Vec<u8> {
    let mut words = values.to_vec();
    words.resize(words.len().max(min), 0.0);
    bytemuck::cast_slice(&words).to_vec()
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
            fields!(RainParams {
                columns,
                layers,
                rainfall,
                per_unit,
                one
            }),
        );
    }
}
