#import sw_common
#import pressed
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
//     the river. Its bindings and halves are pressed.wgsl's, shared with the pipes.
// Twin: src/models/shallow_water/cpu/sw_bodies.rs.

// The stages' ground (setup.rs `stage_ground`): `press` writes the head at p.air_at.
@group(0) @binding(2) var<storage, read_write> ground: array<f32>;
@group(0) @binding(5) var<storage, read> eta: array<f32>;
@group(0) @binding(6) var<storage, read> qx: array<f32>;
@group(0) @binding(7) var<storage, read> qy: array<f32>;

@compute @workgroup_size(256)
fn press(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * WG;
    if c >= p.cells {
        return;
    }
    let at = p.air_at + c;
    ground[at] = select(0.0, ground[at], p.patched != 0u) + cover[c].held;
}

@compute @workgroup_size(256)
fn loads(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let k = wid.x;
    if k >= bp.count {
        return;
    }
    let a = reach(k, p.nx, p.ny);
    var sum = vec4<f32>(0.0);
    for (var m = t; m < a.n; m = m + WG) {
        let c = reach_cell(a, m, p.nx);
        let d = eta[c] - ground[c];
        if d > p.film {
            sum = sum + vec4<f32>(qx[c], qy[c], d, 0.0);
        }
        sum = with_held(sum, k, c);
    }
    finish_loads(k, t, a, sum, p.nx);
}
