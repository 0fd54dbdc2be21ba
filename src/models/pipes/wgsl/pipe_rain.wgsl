#import columns
#import rain_step
#import soil
// Rain on the pipes model (SCENE.md [rain], [rainfall], and the hydrographs' entries): each
// step's drops and hydrograph entries, rasterised by the host as for the height field (feeds.rs)
// and rounded to whole units of the columns' water, fall into each column's top cell (the one
// open to the sky: a bridge deck's, not the arch's under it) and count in the column's
// exchange, so the target takes exactly what fell; then the rainfall, per column. Once per
// step, after the substeps and the spray. One thread per entry (a step has at most one entry
// per column) or per column, so no two threads touch one column. Twin: src/cpu/pipe_rain.rs.

struct RainParams {
    columns: u32,
    layers: u32,
    // [rainfall] (src/feeds.rs): RAINFALL_UNIFORM, RAINFALL_MAP or 0; units per metre of height.
    rainfall: u32,
    per_unit: f32,
    // Always 1.0: hides the products from the compiler, which would fuse them (see common.wgsl).
    one: f32,
    // [infiltration]'s law (soil.wgsl's SOIL_*; 0: none).
    infiltration: u32,
    _pad1: u32,
    _pad2: u32,
}

const RAINFALL_MAP: u32 = 2u;

@group(0) @binding(0) var<uniform> rp: RainParams;
@group(0) @binding(1) var<storage, read> geometry: array<vec2<i32>>;
@group(0) @binding(2) var<storage, read_write> water: array<u32>;
@group(0) @binding(3) var<storage, read_write> exchange: array<Exchange>;
@group(0) @binding(4) var<storage, read> rain_steps: array<RainStep>;
@group(0) @binding(5) var<storage, read> rain_cells: array<u32>;
@group(0) @binding(6) var<storage, read> rain_units: array<u32>;
@group(1) @binding(0) var<uniform> slot: StepSlot;
// [rainfall]: each column's share of the full intensity (RAINFALL_MAP), and the fraction of a
// unit each column's rainfall has yet to give (the state carries it: no rain is lost to
// rounding, and the water stays whole units).
@group(2) @binding(0) var<storage, read> share: array<f32>;
@group(2) @binding(1) var<storage, read_write> carry: array<f32>;
// [infiltration] (soil.wgsl): each column's soil state, its law's three parameter planes, and the
// fraction of a unit its ground is owed (the water leaves in whole units: the fraction a step's
// capacity leaves over is owed to the next, so the law's rate holds in the long run).
@group(3) @binding(0) var<storage, read_write> soil: array<vec4<f32>>;
@group(3) @binding(1) var<storage, read> soil_law: array<f32>;
@group(3) @binding(2) var<storage, read_write> owed: array<f32>;

// The column's top cell: the one open to the sky (a bridge deck's, not the arch's under it).
fn top_cell(c: u32) -> u32 {
    var top = 0u;
    for (var a = 1u; a < rp.layers; a++) {
        if geometry[a * rp.columns + c].x != SKY {
            top = a;
        }
    }
    return top;
}

// Adds `units` to column c's top cell and its exchange.
fn fall(c: u32, units: u32) {
    let n = rp.columns;
    water[top_cell(c) * n + c] += units;
    var e = exchange[c];
    let lo = e.lo + units;
    e.hi = e.hi + select(0u, 1u, lo < e.lo);
    e.lo = lo;
    exchange[c] = e;
}

// [rainfall] on every column, once per step: the step's height at the column's share, in units,
// plus what the column carried; the whole units fall, the fraction carries on.
@compute @workgroup_size(64)
fn rainfall(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 64u;
    if c >= rp.columns {
        return;
    }
    let s = select(1.0, share[c], rp.rainfall == RAINFALL_MAP);
    let add = ((rain_steps[slot.index].rainfall * s) * rp.one) * rp.per_unit * rp.one + carry[c];
    let units = floor(add);
    carry[c] = add - units;
    if units > 0.0 {
        fall(c, u32(units));
    }
}

// Adds `delta` units to column c's exchange (a two's-complement i64 in two words).
fn exchange_add(c: u32, delta: i32) {
    exchange[c] = exchange_plus(exchange[c], delta);
}

// Takes `units` from column c's top cell, never more than it holds (a wave maker's trough).
fn take(c: u32, units: u32) {
    let at = top_cell(c) * rp.columns + c;
    let w = water[at];
    let t = min(units, w);
    water[at] = w - t;
    exchange_add(c, -i32(t));
}

// Sets column c's top cell to `level` (units from the reference level; a stage side's edge):
// its water up to the level, none where its floor stands above it.
fn hold(c: u32, level: i32) {
    let at = top_cell(c) * rp.columns + c;
    let want = u32(max(level - geometry[at].x, 0));
    exchange_add(c, i32(want) - i32(water[at]));
    water[at] = want;
}

// One thread per entry: a drop's or a hydrograph's units fall, a wave maker's (signed, i32 bits)
// fall or leave, a held entry (its cell flagged HELD) sets its column's level.
@compute @workgroup_size(64)
fn rain(@builtin(global_invocation_id) gid: vec3<u32>) {
    let step = rain_steps[slot.index];
    if gid.x >= step.count {
        return;
    }
    let k = step.start + gid.x;
    let cell = rain_cells[k];
    let units = bitcast<i32>(rain_units[k]);
    if (cell & HELD) != 0u {
        hold(cell & ~HELD, units);
    } else if units >= 0 {
        fall(cell, u32(units));
    } else {
        take(cell, u32(-units));
    }
}

// [infiltration] on every column, once per step after the rain: the ground takes its law's
// capacity in whole units from the column's lowest cell (the one on the ground), never more than
// it holds; the units leave the column's exchange, so the target drops by exactly what the ground
// took. Twin: `pipe_rain::infiltrate`.
@compute @workgroup_size(64)
fn infiltrate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 64u;
    let n = rp.columns;
    if c >= n {
        return;
    }
    var rain = 0.0;
    if rp.rainfall != 0u {
        let s = select(1.0, share[c], rp.rainfall == RAINFALL_MAP);
        rain = (rain_steps[slot.index].rainfall * s) * rp.one;
    }
    let law = vec3<f32>(soil_law[c], soil_law[n + c], soil_law[2u * n + c]);
    let step = soil_capacity(rp.infiltration, law, soil[c], rain, rp.one);
    var st = step.st;
    let want = step.cap * rp.per_unit * rp.one + owed[c];
    let whole = floor(want);
    let held = water[c];
    var take = held;
    if whole < f32(held) {
        take = u32(whole);
        owed[c] = want - whole;
    } else {
        // Short of water: the ground takes what there is and is owed nothing more.
        owed[c] = 0.0;
    }
    if take > 0u {
        water[c] = held - take;
        var e = exchange[c];
        e.hi = e.hi - select(0u, 1u, e.lo < take);
        e.lo = e.lo - take;
        exchange[c] = e;
        st = soil_took(rp.infiltration, st, f32(take) / rp.per_unit, step.cap, rp.one);
    }
    soil[c] = st;
}
