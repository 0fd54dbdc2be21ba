//! The volume pass (`wgsl/volume.wgsl`): the global correction and sources and drains, with the
//! target kept on the GPU. Pipelines and bind groups built once.

use crate::engine::gpu::binding::{bind_group_at, layout, pipeline, reflected, storage_entry};
use crate::engine::gpu::level::LevelBindings;
use crate::engine::gpu::state::GpuState;

/// One entry point's pipeline and the bind groups it takes at groups 0, 1 (`levels[p][q]`: level
/// p, written in place, and region labels q) and 3 (the rain: `None` for the whole chunk's,
/// which `drops` keeps, as it regrows it).
struct Entry {
    pipeline: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    levels: [[wgpu::BindGroup; 2]; 2],
    rain: Option<wgpu::BindGroup>,
}

/// What every entry point's pipeline and bind groups are built from.
struct Ends<'a> {
    device: &'a wgpu::Device,
    module: &'a wgpu::ShaderModule,
    state: &'a GpuState,
    level: &'a LevelBindings,
}

impl Ends<'_> {
    /// The entry point `name`: group 0 (the shared buffers) and group 1 (the level's eta and
    /// vel, the region labels) hold only what it uses, as volume.wgsl declares them; group 2 is
    /// the step slot, group 3 the rain (`rain_layout`, bound per chunk as `rain` unless given).
    fn entry(&self, name: &str, rain_layout: &wgpu::BindGroupLayout, rain: Option<wgpu::BindGroup>) -> Entry {
        let (device, state) = (self.device, self.state);
        let regions = &state.regions;
        let shared: [(u32, &wgpu::Buffer); 10] = [
            (0, &state.params),
            (1, &state.ground),
            (2, &state.books),
            (3, &state.carry),
            (4, &state.shortfall),
            (5, &state.source),
            (6, &regions.corrections),
            (7, &regions.pending),
            (8, &state.rainfall_map),
            (9, &state.soil),
        ];
        let label = format!("volume {name}");
        let bindings = crate::wgsl::volume::BINDINGS;
        let (e0, e1) = (reflected(bindings, &[name], 0), reflected(bindings, &[name], 1));
        let (l0, l1) = (layout(device, &label, &e0), layout(device, &label, &e1));
        // Each group binds those of its buffers the entry point uses.
        let bind = |l: &wgpu::BindGroupLayout, entries: &[wgpu::BindGroupLayoutEntry], all: &[(u32, &wgpu::Buffer)]| {
            let used: Vec<_> = all
                .iter()
                .filter(|(b, _)| entries.iter().any(|e| e.binding == *b))
                .copied()
                .collect();
            bind_group_at(device, &label, l, &used)
        };
        let g0 = bind(&l0, &e0, &shared);
        let g = |p: usize, q: usize| {
            bind(
                &l1,
                &e1,
                &[(0, &state.eta[p]), (1, &state.vel[p]), (2, &regions.labels[q])],
            )
        };
        let layouts = [&l0, &l1, &self.level.slot_layout, rain_layout];
        Entry {
            pipeline: pipeline(device, self.module, &layouts, name),
            shared: g0,
            levels: [[g(0, 0), g(0, 1)], [g(1, 0), g(1, 1)]],
            rain,
        }
    }
}

pub struct Volume {
    settle: Entry,
    /// `apply`, or `apply_regions` under "regions".
    apply: Entry,
    rain: Entry,
    /// The chunk's rain: a `RainStep` per step (zeros without rain) and (cell, height) entries.
    drops: crate::engine::gpu::rain::RainBuffers,
}

impl Volume {
    /// Each entry point gets a pipeline layout of only the buffers it uses: WebGPU allows a
    /// pipeline 8 to 10 storage buffers, and the file as a whole binds 14 (`apply` binds 10,
    /// `apply_regions` 13).
    pub fn new(device: &wgpu::Device, state: &GpuState, level: &LevelBindings) -> Volume {
        let module = crate::engine::gpu::shaders::module(device, "volume.wgsl", crate::engine::gpu::shaders::VOLUME);
        let rain_layout = layout(device, "volume rain", &crate::engine::gpu::rain::layout_entries(0));
        let drops =
            crate::engine::gpu::rain::RainBuffers::new(device, &rain_layout, &[], crate::engine::params::MAX_CHUNK);
        let steps_layout = layout(device, "volume rain steps", &[storage_entry(0, true)]);
        // `rain` binds the whole chunk's rain (group 3); the rest only its per-step records.
        let entry = |name: &str| {
            let ends = Ends {
                device,
                module: &module,
                state,
                level,
            };
            if name == "rain" {
                ends.entry(name, &rain_layout, None)
            } else {
                let steps = bind_group_at(device, "volume rain steps", &steps_layout, &[(0, drops.steps())]);
                ends.entry(name, &steps_layout, Some(steps))
            }
        };
        let apply = entry(if state.region_capacity > 0 {
            "apply_regions"
        } else {
            "apply"
        });
        let (settle, rain) = (entry("settle"), entry("rain"));
        Volume {
            settle,
            apply,
            rain,
            drops,
        }
    }

    /// Uploads a chunk's rain before it is recorded (growing the entry buffers if needed).
    pub fn upload_rain(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, rain: &crate::engine::rain::RainChunk) {
        let heights: &[u32] = bytemuck::cast_slice(&rain.heights);
        self.drops.upload(device, queue, &rain.steps, &rain.cells, heights);
    }

    /// Stages a chunk's rain as copies in `encoder`, before the pass that steps it (embedded
    /// runs).
    pub fn stage_rain(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        rain: &crate::engine::rain::RainChunk,
    ) {
        let heights: &[u32] = bytemuck::cast_slice(&rain.heights);
        self.drops.stage(device, encoder, &rain.steps, &rain.cells, heights);
    }

    /// Records step `index`'s correction, sources, drains and rain on the current level
    /// (reduce first).
    pub fn correct(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, index: u32) {
        self.record(pass, &self.settle, level, state, index, (1, 1));
        self.apply(pass, level, state, index);
        let drops = self.drops.count(index);
        if drops > 0 {
            self.record(pass, &self.rain, level, state, index, (drops.div_ceil(64), 1));
        }
    }

    /// Records `apply` alone, with step `index`'s slot: writes a settled correction that no fused
    /// step has applied yet into the level (at a chunk's end).
    pub fn apply(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState, index: u32) {
        self.record(
            pass,
            &self.apply,
            level,
            state,
            index,
            (state.nx.div_ceil(16), state.ny.div_ceil(16)),
        );
    }

    /// Records `entry` over `(x, y)` workgroups on the current level with the slot of step
    /// `index`.
    fn record(
        &self,
        pass: &mut wgpu::ComputePass,
        entry: &Entry,
        level: &LevelBindings,
        state: &GpuState,
        index: u32,
        (x, y): (u32, u32),
    ) {
        pass.set_pipeline(&entry.pipeline);
        pass.set_bind_group(0, &entry.shared, &[]);
        pass.set_bind_group(1, &entry.levels[state.current][state.regions.current], &[]);
        pass.set_bind_group(2, &level.slot, &[index * state.slot_stride]);
        pass.set_bind_group(3, entry.rain.as_ref().unwrap_or(self.drops.group()), &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
}
