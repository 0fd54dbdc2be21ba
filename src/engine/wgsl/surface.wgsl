#import look
// What a renderer binds (src/water/mod.rs): the surface of the current level copied into buffers
// that never change identity, whichever level the ping-pong left current, with its normals and
// the wetness map. Runs once per recorded frame, not per step. Per cell (i, j), index j·nx + i:
//
//   height   f32: h − ref, a dry cell's h being its ground (SCENE.md's rule).
//   depth    f32: max(h − b, 0).
//   normals  vec4<f32>: the unit surface normal (x east, y north, z up), w = 0. Central
//            differences of the water surface; a dry neighbour counts as level with the cell,
//            so a shoreline does not bend the water toward the bank it meets.
//   wetness  f32 in [0, 1] (Kass & Miller's wetness map): 1 where there is water, else it decays
//            by `look.decay` per frame (exp(−elapsed / drying time)): wet sand dries slowly.
//
// Twin: src/cpu/surface.rs.

@group(0) @binding(0) var<uniform> look: Look;
@group(0) @binding(1) var<storage, read> ground: array<f32>;
@group(0) @binding(2) var<storage, read_write> height: array<f32>;
@group(0) @binding(3) var<storage, read_write> depth: array<f32>;
@group(0) @binding(4) var<storage, read_write> normals: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> wetness: array<f32>;

@group(1) @binding(0) var<storage, read> eta: array<f32>;

fn at(i: u32, j: u32) -> u32 {
    return j * look.nx + i;
}

// Water surface of neighbour n seen from wet cell c: its own surface if wet, c's if dry.
fn level_of(n: u32, h_c: f32) -> f32 {
    return select(h_c, eta[n], eta[n] > ground[n]);
}

@compute @workgroup_size(16, 16)
fn surface(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= look.nx || gid.y >= look.ny {
        return;
    }
    let i = gid.x;
    let j = gid.y;
    let c = at(i, j);
    let e = eta[c];
    let b = ground[c];
    let wet = e > b;
    let h = select(b, e, wet);
    height[c] = h;
    depth[c] = max(e - b, 0.0);
    wetness[c] = select(wetness[c] * look.decay, 1.0, wet);

    // One-sided at the grid's edges: the span is the distance between the samples used.
    let w = at(select(i - 1u, i, i == 0u), j);
    let ea = at(min(i + 1u, look.nx - 1u), j);
    let s = at(i, select(j - 1u, j, j == 0u));
    let n = at(i, min(j + 1u, look.ny - 1u));
    let span_x = f32(max(min(i + 1u, look.nx - 1u) - select(i - 1u, i, i == 0u), 1u)) * look.dx;
    let span_y = f32(max(min(j + 1u, look.ny - 1u) - select(j - 1u, j, j == 0u), 1u)) * look.dx;
    var slope = vec2<f32>(0.0, 0.0);
    if wet {
        slope = vec2<f32>(
            (level_of(ea, h) - level_of(w, h)) / span_x,
            (level_of(n, h) - level_of(s, h)) / span_y,
        );
    }
    normals[c] = vec4<f32>(normalize(vec3<f32>(-slope.x, -slope.y, 1.0)), 0.0);
}
