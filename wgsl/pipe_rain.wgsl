#import columns
#import rain_step
// Rain on the pipes model (SCENE.md [rain]): each step's drops, rasterised by the host as for the
// height field (rain.rs) and rounded to whole units of the columns' water, fall into each
// column's top cell (the one open to the sky: a bridge deck's, not the arch's under it) and count
// in the column's exchange, so the target takes exactly what fell. Once per step, after the
// substeps and the spray. One thread per entry; a step has at most one entry per column, so no
// two threads touch one column. Twin: src/cpu/pipe_rain.rs.

struct RainParams {
    columns: u32,
    layers: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> rp: RainParams;
@group(0) @binding(1) var<storage, read> geometry: array<vec2<i32>>;
@group(0) @binding(2) var<storage, read_write> water: array<u32>;
@group(0) @binding(3) var<storage, read_write> exchange: array<Exchange>;
@group(0) @binding(4) var<storage, read> rain_steps: array<RainStep>;
@group(0) @binding(5) var<storage, read> rain_cells: array<u32>;
@group(0) @binding(6) var<storage, read> rain_units: array<u32>;
@group(1) @binding(0) var<uniform> slot: StepSlot;

@compute @workgroup_size(64)
fn rain(@builtin(global_invocation_id) gid: vec3<u32>) {
    let step = rain_steps[slot.index];
    if gid.x >= step.count {
        return;
    }
    let k = step.start + gid.x;
    let c = rain_cells[k];
    let units = rain_units[k];
    let n = rp.columns;
    var top = 0u;
    for (var a = 1u; a < rp.layers; a++) {
        if geometry[a * n + c].x != SKY {
            top = a;
        }
    }
    water[top * n + c] += units;
    var e = exchange[c];
    let lo = e.lo + units;
    e.hi = e.hi + select(0u, 1u, lo < e.lo);
    e.lo = lo;
    exchange[c] = e;
}
