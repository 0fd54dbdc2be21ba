//! The bind groups of `wgsl/level.wgsl`, shared by every pass that advances the state (explicit,
//! ADI): group 0 (params, ground, the books and the carry), group 1 (the ping-pong levels,
//! one bind group per direction, picked by `state.current`) and group 2 (the per-step slot).
//! Built once; the passes' pipeline layouts use these same layouts.

use crate::engine::gpu::state::GpuState;

use crate::engine::gpu::binding::{bind_group, layout, slot_bind_group, slot_layout, storage_entry, uniform_entry};

/// The bind groups every pass that reads a level shares (`wgsl/level.wgsl`).
pub struct LevelBindings {
    /// Params, ground, carry and the other buffers every level pass reads.
    pub shared_layout: wgpu::BindGroupLayout,
    /// One ping-pong level: eta and vel in, eta and vel out.
    pub level_layout: wgpu::BindGroupLayout,
    /// The step slot, with a dynamic offset.
    pub slot_layout: wgpu::BindGroupLayout,
    /// The shared buffers.
    pub shared: wgpu::BindGroup,
    /// `levels[p]` reads level p and writes level 1 − p.
    pub levels: [wgpu::BindGroup; 2],
    /// The step slots.
    pub slot: wgpu::BindGroup,
}

impl LevelBindings {
    /// Builds the layouts and bind groups once.
    pub fn new(device: &wgpu::Device, state: &GpuState) -> LevelBindings {
        let shared_layout = layout(
            device,
            "level shared",
            &[
                uniform_entry(0, false),
                storage_entry(1, true),
                storage_entry(2, false),
                storage_entry(3, false),
            ],
        );
        let level_layout = layout(
            device,
            "levels",
            &[
                storage_entry(0, true),
                storage_entry(1, true),
                storage_entry(2, false),
                storage_entry(3, false),
            ],
        );
        let slot_layout = slot_layout(device, "step slot");
        let level = |p: usize| {
            bind_group(
                device,
                "level",
                &level_layout,
                &[&state.eta[p], &state.vel[p], &state.eta[1 - p], &state.vel[1 - p]],
            )
        };
        LevelBindings {
            shared: bind_group(
                device,
                "level shared",
                &shared_layout,
                &[&state.params, &state.ground, &state.books, &state.carry],
            ),
            levels: [level(0), level(1)],
            slot: slot_bind_group(device, &slot_layout, &state.slots),
            shared_layout,
            level_layout,
            slot_layout,
        }
    }

    /// The three layouts, in group order, for a pass's pipeline layout.
    pub fn layouts(&self) -> [&wgpu::BindGroupLayout; 3] {
        [&self.shared_layout, &self.level_layout, &self.slot_layout]
    }

    /// Binds groups 0–2 for a substep that reads level `state.current`.
    pub fn bind(&self, pass: &mut wgpu::ComputePass, state: &GpuState, slot_offset: u32) {
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_bind_group(2, &self.slot, &[slot_offset]);
    }
}
