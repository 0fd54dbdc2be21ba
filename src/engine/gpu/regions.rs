//! The per-region volume pass (`wgsl/regions.wgsl`): labels the connected bodies of water, carries
//! their targets across the step and computes each one's correction, which `volume.wgsl`'s `apply`
//! spreads. Seven dispatches: check, union, compress, scan, number-and-sum, split, settle, of which
//! union, compress, scan and split are empty on a step whose wet set is last step's. Pipelines
//! and bind groups built once; labels and targets ping-pong by index.

use crate::engine::gpu::state::GpuState;

use crate::engine::gpu::binding::{bind_group, filled_buffer, linear_groups, pipeline, reflected_layout};

/// Cells per labelling tile, and the words of a tile's root mask.
use crate::wgsl::regions::{self as wgsl, TILE};

/// The regions' passes. `label_check` decides on the GPU whether the wet set changed; the
/// labelling and the split are dispatched indirectly from what it wrote, so a step whose wet set
/// is last step's runs three passes with work (check, sum, settle) and four empty dispatches.
pub struct Regions {
    label_check: wgpu::ComputePipeline,
    label_union: wgpu::ComputePipeline,
    label_root: wgpu::ComputePipeline,
    label_scan: wgpu::ComputePipeline,
    region_sum: wgpu::ComputePipeline,
    region_split: wgpu::ComputePipeline,
    region_settle: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p]` reads level p.
    levels: [wgpu::BindGroup; 2],
    /// `sides[q]`: old labels and targets q, new 1 − q.
    sides: [wgpu::BindGroup; 2],
    /// `label_args`: the indirect dispatches' arguments this step, then the full ones.
    args: wgpu::Buffer,
    args_group: wgpu::BindGroup,
    cell_groups: (u32, u32),
}

/// Bytes into `label_args` of each indirect pass's arguments: three u32 each, in the order of
/// `full` in `Regions::new`.
const UNION_ARGS: u64 = 0;
const ROOT_ARGS: u64 = 12;
const SCAN_ARGS: u64 = 2 * 12;
const SPLIT_ARGS: u64 = 3 * 12;

impl Regions {
    pub fn new(device: &wgpu::Device, state: &GpuState) -> Regions {
        let module = crate::engine::gpu::shaders::module(device, "regions.wgsl", crate::engine::gpu::shaders::REGIONS);
        let shared_layout = reflected_layout(device, "regions shared", crate::wgsl::regions::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "regions level", crate::wgsl::regions::BINDINGS, &[], 1);
        let side_layout = reflected_layout(device, "regions sides", crate::wgsl::regions::BINDINGS, &[], 2);
        let args_layout = reflected_layout(device, "regions label args", crate::wgsl::regions::BINDINGS, &[], 3);
        let layouts = [&shared_layout, &level_layout, &side_layout];
        // The passes that read or write `label_args` (those dispatched from it must not bind it).
        let with_args = [&shared_layout, &level_layout, &side_layout, &args_layout];
        let r = &state.regions;
        let level = |p: usize| bind_group(device, "regions level", &level_layout, &[&state.eta[p], &state.vel[p]]);
        let side = |q: usize| {
            bind_group(
                device,
                "regions sides",
                &side_layout,
                &[&r.labels[q], &r.labels[1 - q], &r.targets[q], &r.targets[1 - q]],
            )
        };
        let max = device.limits().max_compute_workgroups_per_dimension;
        let cell_groups = (state.nx.div_ceil(16), state.ny.div_ceil(16));
        let tiles = linear_groups(state.cells().div_ceil(TILE), max);
        let full = [
            [cell_groups.0, cell_groups.1, 1],
            [tiles.0, tiles.1, 1],
            [1, 1, 1],
            [cell_groups.0, cell_groups.1, 1],
        ];
        let mut words = vec![0u32; wgsl::ARGS as usize];
        words.extend(full.iter().flatten());
        let args = filled_buffer(
            device,
            "regions label args",
            bytemuck::cast_slice(&words),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
        );
        Regions {
            label_check: pipeline(device, &module, &with_args, "label_check"),
            label_union: pipeline(device, &module, &layouts, "label_union"),
            label_root: pipeline(device, &module, &layouts, "label_root"),
            label_scan: pipeline(device, &module, &layouts, "label_scan"),
            region_sum: pipeline(device, &module, &with_args, "region_sum"),
            region_split: pipeline(device, &module, &layouts, "region_split"),
            region_settle: pipeline(device, &module, &with_args, "region_settle"),
            shared: bind_group(
                device,
                "regions shared",
                &shared_layout,
                &[
                    &state.params,
                    &state.ground,
                    &r.parent,
                    &r.roots,
                    &r.table,
                    &r.counts,
                    &r.pending,
                    &r.corrections,
                ],
            ),
            levels: [level(0), level(1)],
            sides: [side(0), side(1)],
            args_group: bind_group(device, "regions label args", &args_layout, &[&args]),
            args,
            cell_groups,
        }
    }

    /// Records the labelling and the per-region sums of the current level, and each region's
    /// correction; the new labels and targets become current.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: &mut GpuState) {
        let q = state.regions.current;
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_bind_group(2, &self.sides[q], &[]);
        let (x, y) = self.cell_groups;
        // Unset while the passes dispatched from `label_args` run: a buffer is either bound for
        // writing or read for a dispatch's size.
        let with_args = |pass: &mut wgpu::ComputePass, on: bool| {
            pass.set_bind_group(3, on.then_some(&self.args_group), &[]);
        };
        with_args(pass, true);
        pass.set_pipeline(&self.label_check);
        pass.dispatch_workgroups(x, y, 1);
        with_args(pass, false);
        for (pipeline, at) in [
            (&self.label_union, UNION_ARGS),
            (&self.label_root, ROOT_ARGS),
            (&self.label_scan, SCAN_ARGS),
        ] {
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups_indirect(&self.args, at);
        }
        with_args(pass, true);
        pass.set_pipeline(&self.region_sum);
        pass.dispatch_workgroups(x, y, 1);
        with_args(pass, false);
        pass.set_pipeline(&self.region_split);
        pass.dispatch_workgroups_indirect(&self.args, SPLIT_ARGS);
        with_args(pass, true);
        pass.set_pipeline(&self.region_settle);
        pass.dispatch_workgroups(1, 1, 1);
        state.regions.current = 1 - q;
    }
}
