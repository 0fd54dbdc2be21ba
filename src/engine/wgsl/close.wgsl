#import sums
#import slot
// What closes a step whose explicit pass ran fused (`Schedule::fuses_correction`), in one
// workgroup: fold the partial sums the step wrote (reduce.wgsl's `finish`), settle the correction
// (volume.wgsl's `settle`), and record the probes as that correction will leave their cells
// (the next step applies it as it reads the level, so the level does not hold it yet). Three
// one-workgroup dispatches of the unfused schedule in one: on an H100 each cost 5–8 µs, as much
// as a third of a 1024² step. Twins: src/cpu/reduce.rs (`finish`), src/cpu/volume.rs
// (`VolumeState::settle`, `apply_plain` for the probes' cells).

@group(0) @binding(1) var<storage, read> ground: array<f32>;
// Binding 2: the books (books.wgsl): the partials it folds, the totals and volume it settles.
@group(0) @binding(3) var<storage, read> probe_cells: array<u32>;
@group(0) @binding(4) var<storage, read_write> history: array<f32>;

@group(1) @binding(0) var<storage, read> eta: array<f32>;

@group(2) @binding(0) var<uniform> slot: StepSlot;

var<workgroup> s_correction: f32;

@compute @workgroup_size(256)
fn close(@builtin(local_invocation_index) t: u32) {
    let k = tree(t, fold_partials(t));
    if t == 0u {
        books.totals = to_totals(k);
        // No rain in a fused schedule.
        let v = settled(books.volume, books.totals, 0.0);
        books.volume = v;
        s_correction = v.correction;
    }
    workgroupBarrier();
    let correction = s_correction;
    for (var p = t; p < params.n_probes; p = p + SUMS_WG) {
        let c = probe_cells[p];
        let b = ground[c];
        // volume.wgsl's `apply` on the probe's cell, as far as its height goes.
        let e = take_correction(eta[c], 0.0, 0.0, b, vec2<f32>(correction, 0.0)).x;
        history[slot.index * params.n_probes + p] = select(e, b, e <= b);
    }
}
