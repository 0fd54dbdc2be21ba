//! The pipes model's rain (`wgsl/pipe_rain.wgsl`): each step's drops, whole units per column,
//! into the columns' top cells. One dispatch on steps with drops, none on the others; the
//! pipeline and bind groups built once (the entry buffers grow, with their group, when a chunk
//! brings more drops than they hold).

use crate::engine::gpu::binding::{
    bind_group_at, filled_buffer, layout, pipeline, reflected, reflected_layout, slot_bind_group, slot_layout,
};
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
    /// `[infiltration]`'s law (`engine::infiltration`; 0: none).
    pub infiltration: u32,
    pub _pad: [u32; 2],
}

/// The pass: its pipelines, the chunk's drops, the step slots, the rainfall's share and carry and
/// the infiltration's soil.
pub struct PipeRain {
    rain: wgpu::ComputePipeline,
    rainfall: wgpu::ComputePipeline,
    infiltrate: wgpu::ComputePipeline,
    drops: RainBuffers,
    slot_group: wgpu::BindGroup,
    slot_stride: u32,
    /// `[rainfall]`'s map shares (16 B when uniform) and the columns' carried fractions.
    pub carry: wgpu::Buffer,
    rainfall_group: wgpu::BindGroup,
    /// `[infiltration]`: each column's soil state and the fraction of a unit its ground is owed
    /// (16 B stand-ins without), and their group with the law's planes.
    pub soil: wgpu::Buffer,
    pub owed: wgpu::Buffer,
    /// `infiltrate`'s groups 0, 2 and 3 (its own layouts: what it uses).
    soak_groups: [wgpu::BindGroup; 3],
    /// Whether the scene has `[rainfall]`, and its columns.
    raining: bool,
    /// `[infiltration]`'s law (0: none).
    infiltration: u32,
    columns: u32,
}

/// What the pipes' rain pass is built for: `[rainfall]`'s mode and map, the columns' water per
/// metre of height, and `[infiltration]`'s law and its three parameter planes (0 and empty
/// without).
#[derive(Clone, Copy, Debug)]
pub struct Rainfall<'a> {
    pub mode: u32,
    pub share: &'a [f32],
    pub per_unit: f32,
    pub infiltration: u32,
    pub soil_law: &'a [f32],
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
        // `infiltrate` binds only what it uses (7 storage buffers: within a browser's 10), in
        // layouts of its own; the drops' and the rainfall's pipelines never see the soil.
        let soak = |group: u32| reflected(bindings, &["infiltrate"], group);
        let (soak0, soak2, soak3) = (soak(0), soak(2), soak(3));
        let soak_layouts = [
            layout(device, "pipe soak", &soak0),
            layout(device, "pipe soak share", &soak2),
            layout(device, "pipe soil", &soak3),
        ];
        let params = RainParams {
            columns,
            layers,
            rainfall: rainfall.mode,
            per_unit: rainfall.per_unit,
            one: 1.0,
            infiltration: rainfall.infiltration,
            _pad: [0; 2],
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
        let soaking = rainfall.infiltration != 0;
        let per_column = |floats: usize| vec![0.0f32; if soaking { floats * columns as usize } else { 0 }];
        let soil = filled_buffer(device, "pipe soil", &padded(&per_column(4), 4), storage);
        let owed = filled_buffer(device, "pipe soil owed", &padded(&per_column(1), 4), storage);
        let law = filled_buffer(device, "pipe soil law", &padded(rainfall.soil_law, 4), storage);
        let layouts = [&group_layout, &slot_layout, &rainfall_layout];
        let params = filled_buffer(
            device,
            "pipe rain params",
            bytemuck::bytes_of(&params),
            crate::engine::gpu::binding::UNIFORM,
        );
        let drops = RainBuffers::new(
            device,
            &group_layout,
            &[&params, &b.geometry, &b.water, &b.exchange],
            max_chunk,
        );
        // Each soak group holds those of its group's buffers `infiltrate` uses.
        let used = |label: &str,
                    l: &wgpu::BindGroupLayout,
                    entries: &[wgpu::BindGroupLayoutEntry],
                    all: &[(u32, &wgpu::Buffer)]| {
            let chosen: Vec<_> = all
                .iter()
                .filter(|(n, _)| entries.iter().any(|e| e.binding == *n))
                .copied()
                .collect();
            bind_group_at(device, label, l, &chosen)
        };
        let soak_groups = [
            used(
                "pipe soak",
                &soak_layouts[0],
                &soak0,
                &[
                    (0, &params),
                    (1, &b.geometry),
                    (2, &b.water),
                    (3, &b.exchange),
                    (4, drops.steps()),
                ],
            ),
            used("pipe soak share", &soak_layouts[1], &soak2, &[(0, &share), (1, &carry)]),
            used(
                "pipe soil",
                &soak_layouts[2],
                &soak3,
                &[(0, &soil), (1, &law), (2, &owed)],
            ),
        ];
        let [s0, s2, s3] = &soak_layouts;
        PipeRain {
            rain: pipeline(device, &module, &layouts, "rain"),
            rainfall: pipeline(device, &module, &layouts, "rainfall"),
            infiltrate: pipeline(device, &module, &[s0, &slot_layout, s2, s3], "infiltrate"),
            carry,
            rainfall_group,
            soil,
            owed,
            soak_groups,
            raining: rainfall.mode != 0,
            infiltration: rainfall.infiltration,
            columns,
            drops,
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

    /// Whether the scene has `[infiltration]`.
    pub fn soaking(&self) -> bool {
        self.infiltration != 0
    }

    /// Records step `index`'s drops (nothing on a step without), then its rainfall, then what
    /// the ground takes.
    pub fn record(&self, pass: &mut wgpu::ComputePass, index: u32) {
        let drops = self.drops.count(index);
        if drops == 0 && !self.raining && !self.soaking() {
            return;
        }
        pass.set_bind_group(0, self.drops.group(), &[]);
        pass.set_bind_group(1, &self.slot_group, &[index * self.slot_stride]);
        pass.set_bind_group(2, &self.rainfall_group, &[]);
        if drops > 0 {
            pass.set_pipeline(&self.rain);
            pass.dispatch_workgroups(drops.div_ceil(64), 1, 1);
        }
        let (x, y) = crate::engine::gpu::binding::linear_groups(self.columns.div_ceil(64), 65535);
        if self.raining {
            pass.set_pipeline(&self.rainfall);
            pass.dispatch_workgroups(x, y, 1);
        }
        if self.soaking() {
            pass.set_pipeline(&self.infiltrate);
            pass.set_bind_group(0, &self.soak_groups[0], &[]);
            pass.set_bind_group(2, &self.soak_groups[1], &[]);
            pass.set_bind_group(3, &self.soak_groups[2], &[]);
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
                one,
                infiltration
            }),
        );
    }
}
