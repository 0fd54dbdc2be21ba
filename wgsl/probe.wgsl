#import common
// Records eta at each probe's cell after every step into a history buffer, so probes.csv gets a
// row per step without a per-step readback. Twin: src/cpu/probe.rs.

@group(0) @binding(1) var<storage, read> probe_cells: array<u32>;
@group(0) @binding(2) var<storage, read_write> history: array<f32>;

// For `record_corrected`: what volume.wgsl's `apply` reads of a cell's height.
@group(0) @binding(3) var<storage, read> ground: array<f32>;
@group(0) @binding(4) var<storage, read> volume: Volume;

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

// `record` where the correction the step settled is not yet in the level (the fused explicit
// step applies it as the next step reads): the probe's cell as volume.wgsl's `apply` leaves it.
// Twin: the fast CPU backend's probe of a deferred correction (src/cpu/mod.rs).
@compute @workgroup_size(64)
fn record_corrected(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = gid.x;
    if p >= params.n_probes {
        return;
    }
    let c = probe_cells[p];
    let b = ground[c];
    var e = eta[c];
    if e > b && params.correct != 0u {
        e = two_sum(e, volume.correction).x;
    }
    history[slot.index * params.n_probes + p] = select(e, b, e <= b);
}
