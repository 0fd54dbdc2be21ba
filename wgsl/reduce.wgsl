#import common
// Deterministic tree reduction of the state: the sum of eta and the count over wet cells (for the
// ghost-mean side), the largest depth (for the stability check), a non-finite flag, the wet volume
// the drains' shortfall, Σvel and what the dry-cell rule did (for the volume correction,
// volume.wgsl).
// Two passes: `partial_sums` (one partial per workgroup of CELLS_PER_GROUP cells) and `finish`
// (one workgroup folds the partials). The order of every addition is fixed, so two runs give the
// same bits. Twin: src/cpu/reduce.rs.

const WG: u32 = 256u;
const PER_THREAD: u32 = 8u;

struct Partial {
    sum_eta: f32,
    wet: u32,
    max_depth: f32,
    nonfinite: u32,
    sum_depth: f32,
    shortfall: f32,
    sum_vel: f32,
    made: f32,
    dropped: f32,
    held: f32,
}

@group(0) @binding(1) var<storage, read> ground: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<Partial>;
@group(0) @binding(3) var<storage, read_write> totals: Totals;
// What each drain cell could not take on the last step (volume.wgsl); read only with sources.
@group(0) @binding(4) var<storage, read> shortfall: array<f32>;
// What the dry-cell rule did to each cell (level.wgsl); read only under CORRECT_CLAMPS.
@group(0) @binding(5) var<storage, read> clamped: array<vec2<f32>>;
// What covers each column (bodies.wgsl); read only with bodies, for the body volume a
// submerged body's column holds below its surface, which is not water.
@group(0) @binding(6) var<storage, read> cover: array<Cover>;

@group(1) @binding(0) var<storage, read> eta: array<f32>;
@group(1) @binding(1) var<storage, read> vel: array<f32>;

var<workgroup> s_sum: array<f32, WG>;
var<workgroup> s_wet: array<u32, WG>;
var<workgroup> s_max: array<f32, WG>;
var<workgroup> s_bad: array<u32, WG>;
var<workgroup> s_depth: array<f32, WG>;
var<workgroup> s_short: array<f32, WG>;
var<workgroup> s_vel: array<f32, WG>;
var<workgroup> s_clamp: array<vec4<f32>, WG>;

fn tree(t: u32) {
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if t < stride {
            s_sum[t] = s_sum[t] + s_sum[t + stride];
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
}

@compute @workgroup_size(256)
fn partial_sums(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let group = wid.x + wid.y * groups.x;
    let n = params.nx * params.ny;
    let base = group * WG * PER_THREAD;
    var sum = 0.0;
    var wet = 0u;
    var max_depth = 0.0;
    var bad = 0u;
    var depth_sum = 0.0;
    var short = 0.0;
    var vel_sum = 0.0;
    var clamp_sum = vec4<f32>(0.0);
    for (var m = 0u; m < PER_THREAD; m = m + 1u) {
        let c = base + m * WG + t;
        if c < n {
            let e = eta[c];
            let d = e - ground[c];
            if is_finite(e) {
                // The volume above the still water: small numbers, so float32 keeps the waves'
                // digits and no compiler reordering can cost more than their rounding.
                var water = max(d, 0.0);
                if params.bodies != 0u {
                    water = water - cover[c].held;
                    clamp_sum.z = clamp_sum.z + cover[c].held;
                }
                depth_sum = depth_sum + (water - max(-ground[c], 0.0));
            }
            if !is_finite(e) {
                bad = 1u;
            } else if d > 0.0 {
                sum = sum + e;
                wet = wet + 1u;
                max_depth = max(max_depth, d);
                vel_sum = vel_sum + vel[c];
            }
            if params.sources != 0u {
                short = short + shortfall[c];
            }
            if params.correct == CORRECT_CLAMPS {
                clamp_sum = clamp_sum + vec4<f32>(clamped[c], 0.0, 0.0);
            }
        }
    }
    s_sum[t] = sum;
    s_wet[t] = wet;
    s_max[t] = max_depth;
    s_bad[t] = bad;
    s_depth[t] = depth_sum;
    s_short[t] = short;
    s_vel[t] = vel_sum;
    s_clamp[t] = clamp_sum;
    tree(t);
    if t == 0u && group < params.n_partials {
        let k = s_clamp[0];
        partials[group] = Partial(s_sum[0], s_wet[0], s_max[0], s_bad[0], s_depth[0], s_short[0], s_vel[0], k.x, k.y, k.z);
    }
}

@compute @workgroup_size(256)
fn finish(@builtin(local_invocation_index) t: u32) {
    var sum = 0.0;
    var wet = 0u;
    var max_depth = 0.0;
    var bad = 0u;
    var depth_sum = 0.0;
    var short = 0.0;
    var vel_sum = 0.0;
    var clamp_sum = vec4<f32>(0.0);
    for (var p = t; p < params.n_partials; p = p + WG) {
        let q = partials[p];
        sum = sum + q.sum_eta;
        wet = wet + q.wet;
        max_depth = max(max_depth, q.max_depth);
        bad = bad | q.nonfinite;
        depth_sum = depth_sum + q.sum_depth;
        short = short + q.shortfall;
        vel_sum = vel_sum + q.sum_vel;
        clamp_sum = clamp_sum + vec4<f32>(q.made, q.dropped, q.held, 0.0);
    }
    s_sum[t] = sum;
    s_wet[t] = wet;
    s_max[t] = max_depth;
    s_bad[t] = bad;
    s_depth[t] = depth_sum;
    s_short[t] = short;
    s_vel[t] = vel_sum;
    s_clamp[t] = clamp_sum;
    tree(t);
    if t == 0u {
        let k = s_clamp[0];
        totals = Totals(s_sum[0], s_wet[0], s_max[0], s_bad[0], s_depth[0], s_short[0], s_vel[0], k.x, k.y, k.z, 0u, 0u);
    }
}
