//! The probe pass (`wgsl/probe.wgsl`): eta at the probe cells, and the discharge lines' flows
//! from the faces' memory, into a per-step history buffer.

use crate::engine::gpu::state::GpuState;

use crate::engine::gpu::binding::{bind_group, pipeline, reflected_layout, slot_bind_group, slot_layout};

pub struct Probe {
    record: wgpu::ComputePipeline,
    shared: wgpu::BindGroup,
    levels: [wgpu::BindGroup; 2],
    slot: wgpu::BindGroup,
}

impl Probe {
    pub fn new(device: &wgpu::Device, state: &GpuState) -> Probe {
        let module = crate::engine::gpu::shaders::module(device, "probe.wgsl", crate::engine::gpu::shaders::PROBE);
        let shared_layout = reflected_layout(device, "probe shared", crate::wgsl::probe::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "probe level", crate::wgsl::probe::BINDINGS, &[], 1);
        let slot_layout = slot_layout(device, "probe slot");
        Probe {
            record: pipeline(
                device,
                &module,
                &[&shared_layout, &level_layout, &slot_layout],
                "record",
            ),
            shared: bind_group(
                device,
                "probe shared",
                &shared_layout,
                &[&state.params, &state.probe_cells, &state.probe_history],
            ),
            levels: [
                bind_group(device, "probe level 0", &level_layout, &[&state.eta[0], &state.vel[0]]),
                bind_group(device, "probe level 1", &level_layout, &[&state.eta[1], &state.vel[1]]),
            ],
            slot: slot_bind_group(device, &slot_layout, &state.slots),
        }
    }

    /// Records the probe entries of the current level into history row `slot_offset / stride`.
    pub fn record(&self, pass: &mut wgpu::ComputePass, state: &GpuState, slot_offset: u32) {
        if state.n_probes == 0 {
            return;
        }
        pass.set_pipeline(&self.record);
        pass.set_bind_group(0, &self.shared, &[]);
        pass.set_bind_group(1, &self.levels[state.current], &[]);
        pass.set_bind_group(2, &self.slot, &[slot_offset]);
        pass.dispatch_workgroups(state.n_probes.div_ceil(64), 1, 1);
    }
}
