#import common
// Records eta at each probe's cell after every step into a history buffer, so probes.csv gets a
// row per step without a per-step readback. Twin: src/cpu/probe.rs.

@group(0) @binding(1) var<storage, read> probe_cells: array<u32>;
@group(0) @binding(2) var<storage, read_write> history: array<f32>;

@group(1) @binding(0) var<storage, read> eta: array<f32>;

@group(2) @binding(0) var<uniform> slot: StepSlot;

@compute @workgroup_size(64)
fn record(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = gid.x;
    if p >= params.n_probes {
        return;
    }
    history[slot.index * params.n_probes + p] = eta[probe_cells[p]];
}
