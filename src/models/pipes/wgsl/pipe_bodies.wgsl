#import pressed
// Rigid bodies on the pipes (GAMES103's coupling as a pressure, as on the shallow-water model:
// sw_bodies.wgsl says why a body presses with its weight, not its draft). The body passes of the
// height field (bodies.wgsl) place them over the columns' surface (pipes.wgsl `surface`) and their
// top floors, pressed (`BodyParams::pressed`: the surface stays the water's own); these two passes
// join them to the columns:
//   - `press` (every column, before the substeps): the head a body presses its columns with, its
//     cover's `held` as `loads` scaled it, joins the air-pressure head (`[[pressure]]`'s, when the
//     scene has patches) the flow adds to each top cell's push (pipes.wgsl `air_on`). It moves no
//     water itself: the pipes push the water from under a body until surface plus head stands
//     level, every unit kept;
//   - `loads` (one workgroup per body, after `footprint`): pressed.wgsl's, over each column's
//     depth-averaged flow, Σ over its cells of units·quantum·velocity and units·quantum (the
//     probes' discharge): a log drifts with the river.
// Twin: src/models/pipes/cpu/pipe_bodies.rs.

// Mirrors `crate::models::pipes::gpu::pipe_bodies::PressGrid`.
struct PressGrid {
    nx: u32,
    ny: u32,
    columns: u32,
    layers: u32,
    // Metres per unit.
    quantum: f32,
    // 1 with [[pressure]] patches: pressure.wgsl wrote this step's head before `press` adds to it.
    patched: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> grid: PressGrid;
// The columns' forcing planes (pipes.wgsl `column_forcing`): the first, the air's head, m.
@group(0) @binding(2) var<storage, read_write> air: array<f32>;
@group(0) @binding(5) var<storage, read> water: array<u32>;
@group(0) @binding(6) var<storage, read> vel: array<vec2<f32>>;

@compute @workgroup_size(256)
fn press(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * WG;
    if c >= grid.columns {
        return;
    }
    air[c] = select(0.0, air[c], grid.patched != 0u) + cover[c].held;
}

@compute @workgroup_size(256)
fn loads(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let k = wid.x;
    if k >= bp.count {
        return;
    }
    let a = reach(k, grid.nx, grid.ny);
    var sum = vec4<f32>(0.0);
    for (var m = t; m < a.n; m = m + WG) {
        let c = reach_cell(a, m, grid.nx);
        var q = vec2<f32>(0.0);
        var d = 0.0;
        for (var l = 0u; l < grid.layers; l++) {
            let w = f32(water[l * grid.columns + c]) * grid.quantum;
            q = q + w * vel[l * grid.columns + c];
            d = d + w;
        }
        if d > 0.0 {
            sum = sum + vec4<f32>(q, d, 0.0);
        }
        sum = with_held(sum, k, c);
    }
    finish_loads(k, t, a, sum, grid.nx);
}
