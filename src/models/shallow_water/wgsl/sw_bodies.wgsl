#import sw_common
#import body
#import cover
// Rigid bodies on the shallow-water model. The body passes of the height field (bodies.wgsl)
// place them and move them by the columns' buoyancy, ρ·g·dx² times the draft below the waterline
// around them; with `bp.pressed` their `footprint` leaves the surface the water's own, and these
// two passes join them to the model:
//   - `press` (every cell, before the substeps): a free body presses on the water under it with
//     its weight, spread over its columns as its draft is: the head of column c is
//     held_c · m / (ρ·dx²·Σ held), `held` = clamp(waterline − underside, 0, thickness) from the
//     last `footprint`, which `loads` scaled (a fixed or kinematic body would press with its
//     draft: validation refuses them). The head joins the air-pressure head the stages already lift surface and ground by
//     (shallow_water.wgsl's `lift`). It moves no water itself: the model's own pressure gradient
//     pushes the water from under a body until surface plus head stands level, none made or lost.
//     At Archimedes' balance (ρ·dx²·Σ held = m) the head is the draft: the water's top stands at
//     the underside. Pressing with the draft itself, which follows the waterline, closed a loop:
//     the water it pushed out raised the waterline beside the body, which pressed harder, and a
//     box held still in the pool set it sloshing without bound; the weight presses the same
//     however the water around stands;
//   - `loads` (one workgroup per body, after the feed and `footprint`): each covered column's
//     `held` scaled by its body's m / (ρ·dx²·Σ held) for the next `press` (the cover is state, so
//     a resumed run presses as a straight one); and the water's
//     depth-averaged velocity around it, Σ q / Σ d over the wet cells of its footprint and REACH
//     cells around, which `integrate`'s drag pulls it towards (LOADS_CURRENT): a log drifts with
//     the river.
// Twin: src/models/shallow_water/cpu/sw_bodies.rs.

@group(0) @binding(1) var<uniform> bp: BodyParams;
// The stages' ground (setup.rs `stage_ground`): `press` writes the head at p.air_at.
@group(0) @binding(2) var<storage, read_write> ground: array<f32>;
@group(0) @binding(3) var<storage, read> bodies: array<Body>;
// `loads` scales each covered column's `held` to the head the body presses it with.
@group(0) @binding(4) var<storage, read_write> cover: array<Cover>;
@group(0) @binding(5) var<storage, read> eta: array<f32>;
@group(0) @binding(6) var<storage, read> qx: array<f32>;
@group(0) @binding(7) var<storage, read> qy: array<f32>;
// Three per body (bodies.wgsl): `loads` writes the third, the water's velocity around the body.
@group(0) @binding(8) var<storage, read_write> body_loads: array<vec4<f32>>;

const WG: u32 = 256u;
// Cells around a body's footprint whose water it drifts in (bodies.wgsl's RING).
const REACH: u32 = 2u;

@compute @workgroup_size(256)
fn press(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * WG;
    if c >= p.cells {
        return;
    }
    let at = p.air_at + c;
    ground[at] = select(0.0, ground[at], p.patched != 0u) + cover[c].held;
}

var<workgroup> s_sum: array<vec4<f32>, WG>;

@compute @workgroup_size(256)
fn loads(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let k = wid.x;
    if k >= bp.count {
        return;
    }
    let b = bodies[k];
    let r = b.rect;
    let some = r.x <= r.z && r.y <= r.w;
    let lo = vec2<u32>(select(r.x - REACH, 0u, r.x < REACH), select(r.y - REACH, 0u, r.y < REACH));
    let hi = vec2<u32>(min(r.z + REACH, p.nx - 1u), min(r.w + REACH, p.ny - 1u));
    let w = select(0u, hi.x + 1u - lo.x, some);
    let n = w * select(0u, hi.y + 1u - lo.y, some);
    var sum = vec4<f32>(0.0);
    for (var m = t; m < n; m = m + WG) {
        let c = (lo.y + m / w) * p.nx + lo.x + m % w;
        let d = eta[c] - ground[c];
        if d > p.film {
            sum = sum + vec4<f32>(qx[c], qy[c], d, 0.0);
        }
        if (cover[c].owner & ~TAGGED) == k + 1u {
            sum.w = sum.w + cover[c].held;
        }
    }
    s_sum[t] = sum;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if t < stride {
            s_sum[t] = s_sum[t] + s_sum[t + stride];
        }
        workgroupBarrier();
    }
    // A free body presses with its weight; a fixed or kinematic one with its draft.
    let s = s_sum[0];
    let draft = bp.water_density * bp.dx * bp.dx * s.w;
    let scale = select(1.0, b.position.w / draft, b.kind.y == MOTION_FREE && draft > 0.0);
    for (var m = t; m < n; m = m + WG) {
        let c = (lo.y + m / w) * p.nx + lo.x + m % w;
        if (cover[c].owner & ~TAGGED) == k + 1u {
            cover[c].held = cover[c].held * scale;
        }
    }
    if t == 0u {
        body_loads[3u * k + 2u] = vec4<f32>(select(vec2<f32>(0.0), s.xy / s.z, s.z > 0.0), 0.0, 0.0);
    }
}
