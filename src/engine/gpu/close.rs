//! The closing pass of a fused explicit step (`wgsl/close.wgsl`): one workgroup folds the step's
//! partial sums, settles the volume correction and records the probes. Built only when the
//! schedule fuses the correction (`Schedule::fuses_correction`).

use crate::engine::gpu::state::GpuState;

use crate::engine::gpu::binding::{bind_group, pipeline, reflected_layout, slot_bind_group, slot_layout};

pub struct Close {
    close: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    /// `levels[p]` reads eta level p.
    levels: [wgpu::BindGroup; 2],
    slot: wgpu::BindGroup,
}

impl Close {
    pub fn new(device: &wgpu::Device, state: &GpuState) -> Close {
        let module = crate::engine::gpu::shaders::module(device, "close.wgsl", crate::engine::gpu::shaders::CLOSE);
        let shared_layout = reflected_layout(device, "close shared", crate::wgsl::close::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "close level", crate::wgsl::close::BINDINGS, &[], 1);
        let slot_layout = slot_layout(device, "close slot");
        Close {
            close: pipeline(device, &module, &[&shared_layout, &level_layout, &slot_layout], "close"),
            shared: bind_group(
                device,
                "close shared",
                &shared_layout,
                &[
                    &state.params,
                    &state.ground,
                    &state.books,
                    &state.probe_cells,
                    &state.probe_history,
                ],
            ),
            levels: [
                bind_group(device, "close level 0", &level_layout, &[&state.eta[0]]),
                bind_group(device, "close level 1", &level_layout, &[&state.eta[1]]),
            ],
            slot: slot_bind_group(device, &slot_layout, &state.slots),
        }
    }

    /// Records the close of the step whose slot is at `slot_offset`, after its last substep.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: &GpuState, slot_offset: u32) {
        pass.set_pipeline(&self.close);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_bind_group(2, &self.slot, &[slot_offset]);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
