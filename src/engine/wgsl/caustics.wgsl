#import look
// Caustics on the ground (Kass & Miller §6's caustic shading; Evan Wallace's WebGL Water): light
// refracted at the surface, traced down to the ground, counted where it lands. Runs after
// surface.wgsl, once per frame:
//
//   scatter  per wet cell not under a body (a body stops the light: its shadow): refract the light (Snell, 1 / index in look.light.w) through the cell's
//            normal, follow it down the cell's depth, and splat one cell's worth of light
//            bilinearly onto the four cells around where it lands. Integer atomics in 1/2^16
//            units: order-free, so the map is the same on every run and every adapter.
//   resolve  per cell: intensity = light received / one cell's worth, so flat water reads 1,
//            focused light more, spread light less; dry ground reads 1 (direct light). Clears
//            the counts for the next frame.
//
// Light leaving the grid is lost, so water beside a wall whose rays lean outward reads darker.
// Twin: src/cpu/caustics.rs.

const CAUSTIC_ONE: f32 = 65536.0;

@group(0) @binding(0) var<uniform> look: Look;
@group(0) @binding(1) var<storage, read> normals: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> depth: array<f32>;
@group(0) @binding(3) var<storage, read_write> received: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> caustics: array<f32>;
// What covers each column (bodies.wgsl's `Cover`; one stand-in element without bodies).
@group(0) @binding(5) var<storage, read> cover: array<Shade>;

// Mirror of common.wgsl's `Cover`, of which only `owner` matters here: 1 + the body's index
// (with a flag bit), 0 where no body covers the column.
struct Shade {
    bottom: f32,
    top: f32,
    owner: u32,
    held: f32,
}

fn splat(i: i32, j: i32, weight: f32) {
    if i < 0 || j < 0 || i >= i32(look.nx) || j >= i32(look.ny) || weight <= 0.0 {
        return;
    }
    atomicAdd(&received[u32(j) * look.nx + u32(i)], u32(round(weight * CAUSTIC_ONE)));
}

@compute @workgroup_size(16, 16)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= look.nx || gid.y >= look.ny {
        return;
    }
    let c = gid.y * look.nx + gid.x;
    let d = depth[c];
    if d <= 0.0 || (look.bodies != 0u && cover[c].owner != 0u) {
        return;
    }
    let n = normals[c].xyz;
    let l = look.light.xyz;
    let ratio = look.light.w;
    let cos_in = -dot(n, l);
    let k = max(1.0 - ratio * ratio * (1.0 - cos_in * cos_in), 0.0);
    let t = ratio * l + (ratio * cos_in - sqrt(k)) * n;
    let land = vec2<f32>(f32(gid.x), f32(gid.y)) + t.xy * (d / max(-t.z, 1e-3) / look.dx);
    let base = floor(land);
    let f = land - base;
    let i = i32(base.x);
    let j = i32(base.y);
    splat(i, j, (1.0 - f.x) * (1.0 - f.y));
    splat(i + 1, j, f.x * (1.0 - f.y));
    splat(i, j + 1, (1.0 - f.x) * f.y);
    splat(i + 1, j + 1, f.x * f.y);
}

@compute @workgroup_size(16, 16)
fn resolve(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= look.nx || gid.y >= look.ny {
        return;
    }
    let c = gid.y * look.nx + gid.x;
    let got = atomicExchange(&received[c], 0u);
    caustics[c] = select(1.0, f32(got) / CAUSTIC_ONE, depth[c] > 0.0);
}
