//! The volume pass (`wgsl/volume.wgsl`): the global correction and sources and drains, with the
//! target kept on the GPU. Pipelines and bind groups built once.

use super::level::LevelBindings;
use super::state::{bind_group, layout, pipeline, storage_entry, uniform_entry, GpuState};

pub struct Volume {
    settle: wgpu::ComputePipeline,
    roll: wgpu::ComputePipeline,
    apply: wgpu::ComputePipeline,
    rain: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p][q]`: level p, written in place, and region labels q.
    levels: [[wgpu::BindGroup; 2]; 2],
    rain_layout: wgpu::BindGroupLayout,
    /// One `RainStep` per step of a chunk (zeros without rain).
    rain_steps: wgpu::Buffer,
    /// The chunk's (cell, height) entries; grown (with their bind group) when a chunk needs more.
    rain_cells: wgpu::Buffer,
    rain_heights: wgpu::Buffer,
    rain_group: wgpu::BindGroup,
    /// Entries per step of the chunk being recorded.
    rain_counts: Vec<u32>,
}

const RAIN_STEP_BYTES: u64 = std::mem::size_of::<crate::rain::RainStep>() as u64;

fn rain_buffer(device: &wgpu::Device, label: &str, entries: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: entries.max(4) * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl Volume {
    pub fn new(device: &wgpu::Device, state: &GpuState, level: &LevelBindings) -> Volume {
        let module = super::shaders::module(device, "volume.wgsl", super::shaders::VOLUME);
        let shared_layout = layout(
            device,
            "volume shared",
            &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, true),
                storage_entry(3, false),
                storage_entry(4, true),
                storage_entry(5, false),
                storage_entry(6, false),
                storage_entry(7, true),
                storage_entry(8, false),
                storage_entry(9, false),
            ],
        );
        let level_layout = layout(
            device,
            "volume level",
            &[storage_entry(0, false), storage_entry(1, false), storage_entry(2, true)],
        );
        let rain_layout = layout(
            device,
            "volume rain",
            &[storage_entry(0, true), storage_entry(1, true), storage_entry(2, true)],
        );
        let layouts = [&shared_layout, &level_layout, &level.slot_layout, &rain_layout];
        let rain_steps = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("rain steps"),
            size: crate::params::MAX_CHUNK as u64 * RAIN_STEP_BYTES,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let rain_cells = rain_buffer(device, "rain cells", 0);
        let rain_heights = rain_buffer(device, "rain heights", 0);
        let rain_group = bind_group(
            device,
            "volume rain",
            &rain_layout,
            &[&rain_steps, &rain_cells, &rain_heights],
        );
        let labels = &state.regions.labels;
        let level = |p: usize, q: usize| {
            bind_group(
                device,
                "volume level",
                &level_layout,
                &[&state.eta[p], &state.vel[p], &labels[q]],
            )
        };
        Volume {
            settle: pipeline(device, &module, &layouts, "settle"),
            roll: pipeline(device, &module, &layouts, "roll"),
            apply: pipeline(device, &module, &layouts, "apply"),
            rain: pipeline(device, &module, &layouts, "rain"),
            shared: bind_group(
                device,
                "volume shared",
                &shared_layout,
                &[
                    &state.params,
                    &state.ground,
                    &state.totals,
                    &state.volume,
                    &state.source,
                    &state.shortfall,
                    &state.carry,
                    &state.regions.corrections,
                    &state.regions.pending,
                    &state.clamped,
                ],
            ),
            levels: [[level(0, 0), level(0, 1)], [level(1, 0), level(1, 1)]],
            rain_layout,
            rain_steps,
            rain_cells,
            rain_heights,
            rain_group,
            rain_counts: Vec::new(),
        }
    }

    /// Uploads a chunk's rain before it is recorded (growing the entry buffers if needed).
    pub fn upload_rain(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, rain: &crate::rain::RainChunk) {
        if self.fit_rain(device, rain) {
            queue.write_buffer(&self.rain_steps, 0, bytemuck::cast_slice(&rain.steps));
            for (buffer, bytes) in [
                (&self.rain_cells, bytemuck::cast_slice(&rain.cells)),
                (&self.rain_heights, bytemuck::cast_slice(&rain.heights)),
            ] {
                if !bytes.is_empty() {
                    queue.write_buffer(buffer, 0, bytes);
                }
            }
        }
    }

    /// Stages a chunk's rain as copies in `encoder`, before the pass that steps it (embedded
    /// runs), with one more `RainStep` past the chunk whose `before` is the chunk's whole rain,
    /// for `roll`.
    pub fn stage_rain(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        rain: &crate::rain::RainChunk,
    ) {
        if self.fit_rain(device, rain) {
            let mut steps = rain.steps.clone();
            steps.push(crate::rain::RainStep {
                before: rain.total as f32,
                ..Default::default()
            });
            super::state::stage(device, encoder, &self.rain_steps, 0, bytemuck::cast_slice(&steps));
            super::state::stage(device, encoder, &self.rain_cells, 0, bytemuck::cast_slice(&rain.cells));
            super::state::stage(
                device,
                encoder,
                &self.rain_heights,
                0,
                bytemuck::cast_slice(&rain.heights),
            );
        }
    }

    /// Notes each step's entries and grows the entry buffers (and their bind group) to hold the
    /// chunk's; false when the chunk has no rain to upload.
    fn fit_rain(&mut self, device: &wgpu::Device, rain: &crate::rain::RainChunk) -> bool {
        self.rain_counts = rain.steps.iter().map(|s| s.count).collect();
        if rain.steps.is_empty() {
            return false;
        }
        let entries = rain.cells.len() as u64;
        if entries * 4 > self.rain_cells.size() {
            let capacity = entries.next_power_of_two();
            self.rain_cells = rain_buffer(device, "rain cells", capacity);
            self.rain_heights = rain_buffer(device, "rain heights", capacity);
            self.rain_group = bind_group(
                device,
                "volume rain",
                &self.rain_layout,
                &[&self.rain_steps, &self.rain_cells, &self.rain_heights],
            );
        }
        true
    }

    /// Records step `index`'s correction, sources, drains and rain on the current level
    /// (reduce first).
    pub fn correct(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, index: u32) {
        self.bind(pass, level, state, index);
        pass.set_pipeline(&self.settle);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.apply);
        pass.dispatch_workgroups(state.nx.div_ceil(16), state.ny.div_ceil(16), 1);
        let drops = self.rain_counts.get(index as usize).copied().unwrap_or(0);
        if drops > 0 {
            pass.set_pipeline(&self.rain);
            pass.dispatch_workgroups(drops.div_ceil(64), 1, 1);
        }
    }

    /// Records the embedded runs' target carry after a chunk of `steps` steps (reduce first;
    /// with rain, `stage_rain` wrote the chunk's total past its last step).
    pub fn roll(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, steps: u32) {
        self.bind(pass, level, state, steps);
        pass.set_pipeline(&self.roll);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Binds the pass's groups for the current level with the slot of step `index`.
    fn bind(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, index: u32) {
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current][state.regions.current], &[]);
        pass.set_bind_group(2, &level.slot, &[index * state.slot_stride]);
        pass.set_bind_group(3, &self.rain_group, &[]);
    }
}
