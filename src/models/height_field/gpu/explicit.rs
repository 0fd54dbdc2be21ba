//! The explicit step pass (`wgsl/explicit.wgsl`): pipelines, built once; it binds the shared
//! [`LevelBindings`].

use crate::engine::gpu::binding::{linear_groups, pipeline};
use crate::engine::gpu::level::LevelBindings;
use crate::engine::gpu::state::GpuState;
use std::sync::atomic::{AtomicU8, Ordering};

/// What one explicit substep does beside stepping (`explicit.wgsl`'s four step entries).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fusion {
    /// Apply the correction the last step settled as the level is read (`step_corrected`).
    pub corrected: bool,
    /// Write the reduction's partial sums of the level it writes (`step_sums`).
    pub sums: bool,
}

/// How the plain step lays cells on threads: `explicit.wgsl`'s `step` (one cell a thread, in
/// CELL_TILE² tiles) or `step_rows` (two cells of a column a thread, in STEP_WIDTH × STEP_HEIGHT
/// tiles); the same operations on the same values either way, so the same bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepLayout {
    /// `step`: one cell a thread.
    Cell,
    /// `step_rows`: two cells of a column a thread.
    TwoRows,
}

/// 0: by adapter; 1 + the layout's index: forced (`force_step_layout`).
static FORCED_LAYOUT: AtomicU8 = AtomicU8::new(0);

/// Forces the layout of the plain steps built from now on (None: each adapter's own). For Shoal's
/// tests, which run `step_rows` on the software adapters CI has, where it is not the default.
pub fn force_step_layout(layout: Option<StepLayout>) {
    let code = match layout {
        None => 0,
        Some(StepLayout::Cell) => 1,
        Some(StepLayout::TwoRows) => 2,
    };
    FORCED_LAYOUT.store(code, Ordering::SeqCst);
}

impl StepLayout {
    /// Two rows a thread on hardware, where it streams faster (H200, 8192²: 579 → 513 µs); one
    /// cell on the software adapters, where two rows ran 1.7–2.5× slower (lavapipe, 2026-12-04).
    pub fn for_device(device: &wgpu::Device) -> StepLayout {
        match FORCED_LAYOUT.load(Ordering::SeqCst) {
            1 => StepLayout::Cell,
            2 => StepLayout::TwoRows,
            _ if device.adapter_info().device_type == wgpu::DeviceType::Cpu => StepLayout::Cell,
            _ => StepLayout::TwoRows,
        }
    }

    /// The entry point and its tile (cells across, down).
    fn entry(self) -> (&'static str, (u32, u32)) {
        use crate::wgsl::explicit::{CELL_TILE, STEP_HEIGHT, STEP_WIDTH};
        match self {
            StepLayout::Cell => ("step", (CELL_TILE, CELL_TILE)),
            StepLayout::TwoRows => ("step_rows", (STEP_WIDTH, STEP_HEIGHT)),
        }
    }
}

pub struct Explicit {
    /// Indexed by `Fusion`: plain, corrected, sums, corrected and sums.
    step: [wgpu::ComputePipeline; 4],
    /// The plain step's tile, cells across and down (`StepLayout::entry`).
    tile: (u32, u32),
    edges: wgpu::ComputePipeline,
    rescale: wgpu::ComputePipeline,
    /// Workgroups of a fused step: one per reduction partial, within the per-dimension limit.
    groups: (u32, u32),
    max_groups: u32,
}

impl Explicit {
    pub fn new(device: &wgpu::Device, level: &LevelBindings, state: &GpuState) -> Explicit {
        let module =
            crate::engine::gpu::shaders::module(device, "explicit.wgsl", crate::engine::gpu::shaders::EXPLICIT);
        let layouts = level.layouts();
        let max_groups = device.limits().max_compute_workgroups_per_dimension;
        let (plain, tile) = StepLayout::for_device(device).entry();
        Explicit {
            step: [plain, "step_corrected", "step_sums", "step_corrected_sums"]
                .map(|entry| pipeline(device, &module, &layouts, entry)),
            tile,
            edges: pipeline(device, &module, &layouts, "edges"),
            rescale: pipeline(device, &module, &layouts, "rescale_velocity"),
            groups: linear_groups(state.n_partials, max_groups),
            max_groups,
        }
    }

    /// Records one substep reading level `current`; the caller flips `current` after. `edges` is
    /// dispatched only when a side absorbs or two slope sides meet (see `schedule::needs_edges`).
    pub fn step(
        &self,
        pass: &mut wgpu::ComputePass,
        level: &LevelBindings,
        state: &GpuState,
        slot_offset: u32,
        edges: bool,
        fusion: Fusion,
    ) {
        pass.set_pipeline(&self.step[fusion.corrected as usize + 2 * fusion.sums as usize]);
        level.bind(pass, state, slot_offset);
        if fusion == Fusion::default() {
            // `step` or `step_rows`: one workgroup a tile.
            pass.dispatch_workgroups(state.nx.div_ceil(self.tile.0), state.ny.div_ceil(self.tile.1), 1);
        } else {
            // The fused entries: one workgroup per reduction partial.
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
        if edges {
            pass.set_pipeline(&self.edges);
            pass.dispatch_workgroups((2 * state.nx + 2 * (state.ny - 2)).div_ceil(64), 1, 1);
        }
    }

    /// Records the velocity rescale (copies eta across): flips the level like a step.
    pub fn rescale(&self, pass: &mut wgpu::ComputePass, level: &LevelBindings, state: &GpuState) {
        let (x, y) = linear_groups(state.cells().div_ceil(256), self.max_groups);
        pass.set_pipeline(&self.rescale);
        level.bind(pass, state, 0);
        pass.dispatch_workgroups(x, y, 1);
    }
}
