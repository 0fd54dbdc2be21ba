#import sw_common
#import rain_step
#import soil
// What the scene feeds the shallow-water model each step, after its substeps (SCENE.md [rain],
// [rainfall], [[source]] rate and hydrograph, "maker" sides' line sources): the host rasterises
// a chunk's drops, hydrographs, steady sources and makers into per-step (cell, height) entries,
// one per cell (src/engine/feeds.rs), and the rainfall is one height a step times each cell's
// share of the map. Twin: src/models/shallow_water/cpu/sw_feed.rs, function by function.
//
// rainfall: every cell takes the step's rainfall (dense, one thread a cell);
// drops:    each entry of the step (one thread an entry: no two on a cell).
//
// held:     a [[source]] with a height: its cells' entries, flagged HELD in the cell word, carry
//           the level (− ref) the cell holds; it is set to it (its ground, dry, where the level
//           is below), and the entry's height is replaced by what the cell gained (negative:
//           gave), which the host adds to the volume target.
//
// Water falls at rest: a cell's discharges stay, so its velocity slows by the depth it gains.
// What a negative entry (a drain, a maker's trough) takes leaves with its velocity, and never
// more than the cell holds: the height it could not take is written back over the entry, which
// the host reads at the chunk's end and keeps out of the volume target. Heights are added with
// TwoSum into the cell's carry, so rain of 1e-7 m a step on a surface metres from the reference
// level is kept, not rounded away.

@group(0) @binding(1) var<storage, read> ground: array<f32>;
@group(0) @binding(2) var<storage, read_write> eta: array<f32>;
@group(0) @binding(3) var<storage, read_write> qx: array<f32>;
@group(0) @binding(4) var<storage, read_write> qy: array<f32>;
// The rounding each cell's fed water has yet to give its surface (m).
@group(0) @binding(5) var<storage, read_write> carry: array<f32>;
@group(0) @binding(6) var<storage, read> rain_steps: array<RainStep>;
@group(0) @binding(7) var<storage, read> rain_cells: array<u32>;
// Each entry's height (m); a negative one's is replaced by what its cell could not give.
@group(0) @binding(8) var<storage, read_write> rain_heights: array<f32>;
// [rainfall]'s share of the full intensity per cell (RAINFALL_MAP; unread when uniform).
@group(2) @binding(0) var<storage, read> share: array<f32>;
// [infiltration]'s state per cell: the depth taken so far F and its rounding, then Horton's
// time (steps) or the curve number's rain P (m) and its rounding (engine/infiltration.rs).
@group(2) @binding(1) var<storage, read_write> soil: array<vec4<f32>>;

const RAINFALL_MAP: u32 = 2u;


// Twin: `feed_cell`. Cell c takes `want` m (negative: gives); returns what it could not give.
fn feed_cell(c: u32, want: f32) -> f32 {
    let b = ground[c];
    let e = eta[c];
    if want > 0.0 {
        let s = two_sum(max(e, b), want + carry[c]);
        eta[c] = s.x;
        carry[c] = s.y;
        return 0.0;
    }
    let d = max(e - b, 0.0);
    let take = min(d, -want);
    let left = d - take;
    if left <= 0.0 {
        eta[c] = b;
        qx[c] = 0.0;
        qy[c] = 0.0;
    } else {
        eta[c] = e - take;
        let keep = left / d;
        qx[c] = qx[c] * keep;
        qy[c] = qy[c] * keep;
    }
    return -want - take;
}

// Twin: `hold_cell`. Cell c holds the level `level` (− ref), its ground where that is below:
// returns what it gained (m, negative: gave). The surface is set to the level and the rounding
// of the change goes to the carry, so surface + carry moves by exactly the height returned. The
// discharges stay (a reservoir's water flows on), but a cell left dry is at rest.
fn hold_cell(c: u32, level: f32) -> f32 {
    let b = ground[c];
    let e = eta[c];
    let held = max(level, b);
    let change = two_sum(held, -e);
    eta[c] = held;
    carry[c] = carry[c] - change.y;
    if held <= b {
        qx[c] = 0.0;
        qy[c] = 0.0;
    }
    return change.x;
}

@compute @workgroup_size(256)
fn rainfall(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 256u;
    if c >= p.cells {
        return;
    }
    let s = select(1.0, share[c], p.rainfall == RAINFALL_MAP);
    let height = (rain_steps[slot.index].rainfall * s) * p.one;
    if height > 0.0 {
        _ = feed_cell(c, height);
    }
}

@compute @workgroup_size(64)
fn drops(@builtin(global_invocation_id) gid: vec3<u32>) {
    let step = rain_steps[slot.index];
    if gid.x >= step.count {
        return;
    }
    let k = step.start + gid.x;
    let h = rain_heights[k];
    let cell = rain_cells[k];
    if (cell & HELD) != 0u {
        rain_heights[k] = hold_cell(cell & ~HELD, h);
    } else if h > 0.0 {
        _ = feed_cell(rain_cells[k], h);
    } else if h < 0.0 {
        rain_heights[k] = feed_cell(rain_cells[k], h);
    }
}

// Twin: `sw_feed::infiltrate_cell`. What the ground takes this step from cell c, which the step's
// rainfall gave `rain` m: its law's capacity (soil.wgsl), never more than the cell holds; the
// water leaves with its velocity and the soil's state keeps count.
fn infiltrate_cell(c: u32, rain: f32) {
    let par = vec3<f32>(
        ground[p.soil_at + c],
        ground[p.soil_at + p.cells + c],
        ground[p.soil_at + 2u * p.cells + c],
    );
    let step = soil_capacity(p.infiltration, par, soil[c], rain, p.one);
    var st = step.st;
    let cap = step.cap;
    let b = ground[c];
    let e = eta[c];
    let d = max(e - b, 0.0);
    let take = min(cap, d);
    if take > 0.0 {
        let left = d - take;
        if left <= 0.0 {
            eta[c] = b;
            qx[c] = 0.0;
            qy[c] = 0.0;
        } else {
            let s = two_sum(e, carry[c] - take);
            eta[c] = s.x;
            carry[c] = s.y;
            let keep = left / d;
            qx[c] = qx[c] * keep;
            qy[c] = qy[c] * keep;
        }
        st = soil_took(p.infiltration, st, take, cap, p.one);
    }
    soil[c] = st;
}

@compute @workgroup_size(256)
fn infiltrate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 256u;
    if c >= p.cells {
        return;
    }
    var rain = 0.0;
    if p.rainfall != 0u {
        let s = select(1.0, share[c], p.rainfall == RAINFALL_MAP);
        rain = (rain_steps[slot.index].rainfall * s) * p.one;
    }
    infiltrate_cell(c, rain);
}
