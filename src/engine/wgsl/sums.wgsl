#import books
// The per-workgroup sums of a level, in one fixed order: imported by reduce.wgsl (`partial_sums`
// and `finish`) and by the fused explicit step (explicit.wgsl's `step_sums`), which sums the level
// it writes as it writes it. Both take the same cells in the same order (`sums_cell`: thread t of
// workgroup g takes cells (g·SUMS_PER_THREAD + m)·SUMS_WG + t, m = 0..SUMS_PER_THREAD), then the
// workgroup folds its lanes by `tree`. So a fused step's partials are bit for bit the
// reduction's of the level it wrote.
// Twin: src/cpu/reduce.rs.

// One partial per workgroup of SUMS_WG·SUMS_PER_THREAD cells (`books.partials`): written by
// reduce.wgsl's `partial_sums` or the fused explicit step, folded by `fold_partials`.

const SUMS_WG: u32 = 256u;
const SUMS_PER_THREAD: u32 = 8u;

// The m-th cell thread t of workgroup `group` takes (m < SUMS_PER_THREAD).
fn sums_cell(group: u32, m: u32, t: u32) -> u32 {
    return (group * SUMS_PER_THREAD + m) * SUMS_WG + t;
}

// One thread's running sums.
struct Lane {
    // Σ eta·d and Σ d over the sea's wet cells.
    eta_depth: f32,
    wet_depth: f32,
    wet: u32,
    max_depth: f32,
    bad: u32,
    depth: f32,
    short: f32,
    vel: f32,
    // made, dropped, held.
    clamp: vec4<f32>,
}

fn empty_lane() -> Lane {
    return Lane(0.0, 0.0, 0u, 0.0, 0u, 0.0, 0.0, 0.0, vec4<f32>(0.0));
}

// Adds cell (e, v) over ground b to a lane: the wet sums, the volume above the still water (less
// `held`, what a submerged body holds in the column), the largest depth and the non-finite flag.
fn add_cell(lane: ptr<function, Lane>, e: f32, b: f32, v: f32, held: f32) {
    let d = e - b;
    if is_finite(e) {
        // The volume above the still water, max(d, 0) − max(−b, 0), taken as max(e, b) − max(b, 0):
        // the same number, but a wet cell below the still level gives its own e, exactly, where
        // d = e − b would round the wave's height to the depth's ulp (7.6e-6 m in 100 m of
        // water) and the correction would spread that noise over every wet cell each step.
        // Small numbers, so no compiler reordering can cost more than their rounding.
        let above = max(e, b) - max(b, 0.0);
        (*lane).depth = (*lane).depth + (above - held);
    }
    if !is_finite(e) {
        (*lane).bad = 1u;
    } else if d > 0.0 {
        // The sea's cells (not on a bank: level.wgsl's `mean_surface`).
        let sea = select(d, 0.0, on_bank(b));
        (*lane).eta_depth = (*lane).eta_depth + e * sea;
        (*lane).wet_depth = (*lane).wet_depth + sea;
        (*lane).wet = (*lane).wet + 1u;
        (*lane).max_depth = max((*lane).max_depth, d);
        (*lane).vel = (*lane).vel + v;
    }
}

var<workgroup> s_eta_depth: array<f32, SUMS_WG>;
var<workgroup> s_wet_depth: array<f32, SUMS_WG>;
var<workgroup> s_wet: array<u32, SUMS_WG>;
var<workgroup> s_max: array<f32, SUMS_WG>;
var<workgroup> s_bad: array<u32, SUMS_WG>;
var<workgroup> s_depth: array<f32, SUMS_WG>;
var<workgroup> s_short: array<f32, SUMS_WG>;
var<workgroup> s_vel: array<f32, SUMS_WG>;
var<workgroup> s_clamp: array<vec4<f32>, SUMS_WG>;

// Folds the workgroup's lanes in a fixed tree; every thread gets the workgroup's sums.
fn tree(t: u32, lane: Lane) -> Lane {
    s_eta_depth[t] = lane.eta_depth;
    s_wet_depth[t] = lane.wet_depth;
    s_wet[t] = lane.wet;
    s_max[t] = lane.max_depth;
    s_bad[t] = lane.bad;
    s_depth[t] = lane.depth;
    s_short[t] = lane.short;
    s_vel[t] = lane.vel;
    s_clamp[t] = lane.clamp;
    workgroupBarrier();
    for (var stride = SUMS_WG / 2u; stride > 0u; stride = stride / 2u) {
        if t < stride {
            s_eta_depth[t] = s_eta_depth[t] + s_eta_depth[t + stride];
            s_wet_depth[t] = s_wet_depth[t] + s_wet_depth[t + stride];
            s_wet[t] = s_wet[t] + s_wet[t + stride];
            s_max[t] = max(s_max[t], s_max[t + stride]);
            s_bad[t] = s_bad[t] | s_bad[t + stride];
            s_depth[t] = s_depth[t] + s_depth[t + stride];
            s_short[t] = s_short[t] + s_short[t + stride];
            s_vel[t] = s_vel[t] + s_vel[t + stride];
            s_clamp[t] = s_clamp[t] + s_clamp[t + stride];
        }
        workgroupBarrier();
    }
    return Lane(s_eta_depth[0], s_wet_depth[0], s_wet[0], s_max[0], s_bad[0], s_depth[0], s_short[0], s_vel[0], s_clamp[0]);
}

// Thread t's share of the partials (n_partials of them),
// folded in reduce.wgsl's `finish` order; `tree` then folds the threads.
fn fold_partials(t: u32) -> Lane {
    var lane = empty_lane();
    for (var p = t; p < params.n_partials; p = p + SUMS_WG) {
        let q = books.partials[p];
        lane.eta_depth = lane.eta_depth + q.sum_eta_depth;
        lane.wet_depth = lane.wet_depth + q.sum_wet_depth;
        lane.wet = lane.wet + q.wet;
        lane.max_depth = max(lane.max_depth, q.max_depth);
        lane.bad = lane.bad | q.nonfinite;
        lane.depth = lane.depth + q.sum_depth;
        lane.short = lane.short + q.shortfall;
        lane.vel = lane.vel + q.sum_vel;
        lane.clamp = lane.clamp + vec4<f32>(q.made, q.dropped, q.held, 0.0);
    }
    return lane;
}

// A lane's sums as `Totals`: a workgroup's partial (reduce.wgsl's `finish` folds them) or the
// level's totals.
fn to_totals(l: Lane) -> Totals {
    return Totals(l.eta_depth, l.wet, l.max_depth, l.bad, l.depth, l.short, l.vel, l.clamp.x, l.clamp.y, l.clamp.z, l.wet_depth, 0u);
}
