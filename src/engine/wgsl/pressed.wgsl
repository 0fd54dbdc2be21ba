#import body
#import cover
// What the models whose bodies press on the water share (`BodyParams::pressed`: the shallow-water
// model's sw_bodies.wgsl, the pipes' pipe_bodies.wgsl): the bindings of their `loads` pass and
// its two halves around the model's own read of the water. A body presses the water under it with
// its weight, spread over its columns as their draft (`held`) is; `loads` scales each covered
// column's `held` to that head, and measures the water's depth-averaged velocity around the body
// (Σ q / Σ d over its footprint and REACH cells around), which `integrate`'s drag pulls it towards
// (LOADS_CURRENT). Twin: `engine::cpu::pressed`.

@group(0) @binding(1) var<uniform> bp: BodyParams;
@group(0) @binding(3) var<storage, read> bodies: array<Body>;
// `loads` scales each covered column's `held` to the head the body presses it with.
@group(0) @binding(4) var<storage, read_write> cover: array<Cover>;
// Three per body (bodies.wgsl): `loads` writes the third, the water's velocity around the body.
@group(0) @binding(8) var<storage, read_write> body_loads: array<vec4<f32>>;

const WG: u32 = 256u;
// Cells around a body's footprint whose water it drifts in (bodies.wgsl's RING).
const REACH: u32 = 2u;

var<workgroup> s_sum: array<vec4<f32>, WG>;

// The cells a body's loads read: its rect grown by REACH, clamped to the grid.
struct Reach {
    lo: vec2<u32>,
    // Columns across, and cells in all (0: the body covers nothing).
    w: u32,
    n: u32,
}

fn reach(k: u32, nx: u32, ny: u32) -> Reach {
    let r = bodies[k].rect;
    let some = r.x <= r.z && r.y <= r.w;
    let lo = vec2<u32>(select(r.x - REACH, 0u, r.x < REACH), select(r.y - REACH, 0u, r.y < REACH));
    let hi = vec2<u32>(min(r.z + REACH, nx - 1u), min(r.w + REACH, ny - 1u));
    let w = select(0u, hi.x + 1u - lo.x, some);
    return Reach(lo, w, w * select(0u, hi.y + 1u - lo.y, some));
}

// The m-th cell of the reach.
fn reach_cell(a: Reach, m: u32, nx: u32) -> u32 {
    return (a.lo.y + m / a.w) * nx + a.lo.x + m % a.w;
}

// Body k's covered columns' `held`, added to `sum.w`: what a thread adds beside the water's
// (qx, qy, d) of its cells.
fn with_held(sum: vec4<f32>, k: u32, c: u32) -> vec4<f32> {
    if (cover[c].owner & ~TAGGED) == k + 1u {
        return sum + vec4<f32>(0.0, 0.0, 0.0, cover[c].held);
    }
    return sum;
}

// The second half of `loads`, after each thread `t` summed (Σ qx, Σ qy, Σ d, Σ held) over its
// cells of the reach: the workgroup's tree, then a free body's columns scaled to press with its
// weight (a fixed or kinematic one with its draft), and the water's velocity around it.
fn finish_loads(k: u32, t: u32, a: Reach, sum: vec4<f32>, nx: u32) {
    s_sum[t] = sum;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if t < stride {
            s_sum[t] = s_sum[t] + s_sum[t + stride];
        }
        workgroupBarrier();
    }
    let s = s_sum[0];
    let b = bodies[k];
    let draft = bp.water_density * bp.dx * bp.dx * s.w;
    let scale = select(1.0, b.position.w / draft, b.kind.y == MOTION_FREE && draft > 0.0);
    for (var m = t; m < a.n; m = m + WG) {
        let c = reach_cell(a, m, nx);
        if (cover[c].owner & ~TAGGED) == k + 1u {
            cover[c].held = cover[c].held * scale;
        }
    }
    if t == 0u {
        body_loads[3u * k + 2u] = vec4<f32>(select(vec2<f32>(0.0), s.xy / s.z, s.z > 0.0), 0.0, 0.0);
    }
}
