// Height queries for gameplay (src/query.rs): the water's surface, depth and normal at a list
// of points, bilinear between the four cell centres around each. A dry corner next to wet ones
// takes the mean of the wet corners' surface (the water meets a bank level, as surface.wgsl's
// normals have it); where all four are dry the surface is the ground's. Points off the grid
// read its edge. Twin: src/cpu/query.rs.

// Mirrors `crate::query::QueryParams`.
struct QueryParams {
    count: u32,
    dx: f32,
    // The grid, in cells: the pass reads no model's uniforms, so every model's surface can be
    // queried (the height field's, the shallow-water model's).
    nx: u32,
    ny: u32,
}

// Mirrors `crate::query::RawSample`.
struct RawSample {
    // The surface relative to the reference level, and the depth, m.
    height: f32,
    depth: f32,
    _pad0: f32,
    _pad1: f32,
    // The unit normal (x east, y north, z up), w = 0.
    normal: vec4<f32>,
}

@group(0) @binding(0) var<uniform> qp: QueryParams;
@group(0) @binding(1) var<storage, read> ground: array<f32>;
@group(0) @binding(2) var<storage, read> points: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> samples: array<RawSample>;
@group(1) @binding(0) var<storage, read> eta: array<f32>;

fn at(i: u32, j: u32) -> u32 {
    return j * qp.nx + i;
}

@compute @workgroup_size(64)
fn query(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= qp.count {
        return;
    }
    let p = points[gid.x];
    let fx = clamp(p.x / qp.dx - 0.5, 0.0, f32(qp.nx - 1u));
    let fy = clamp(p.y / qp.dx - 0.5, 0.0, f32(qp.ny - 1u));
    let i0 = min(u32(fx), qp.nx - 1u);
    let j0 = min(u32(fy), qp.ny - 1u);
    let i1 = min(i0 + 1u, qp.nx - 1u);
    let j1 = min(j0 + 1u, qp.ny - 1u);
    let tx = fx - f32(i0);
    let ty = fy - f32(j0);
    let corners = array<u32, 4>(at(i0, j0), at(i1, j0), at(i0, j1), at(i1, j1));
    var h: array<f32, 4>;
    var d: array<f32, 4>;
    var wet_sum = 0.0;
    var wet = 0u;
    for (var k = 0u; k < 4u; k++) {
        let c = corners[k];
        let e = eta[c];
        let b = ground[c];
        h[k] = max(e, b);
        d[k] = max(e - b, 0.0);
        if e > b {
            wet_sum = wet_sum + e;
            wet = wet + 1u;
        }
    }
    if wet > 0u {
        let level = wet_sum / f32(wet);
        for (var k = 0u; k < 4u; k++) {
            h[k] = select(level, h[k], d[k] > 0.0);
        }
    }
    let south = mix(h[0], h[1], tx);
    let north = mix(h[2], h[3], tx);
    let slope = vec2<f32>(
        mix(h[1] - h[0], h[3] - h[2], ty) / (f32(i1 - i0) * qp.dx + select(0.0, 1.0, i1 == i0)),
        (north - south) / (f32(j1 - j0) * qp.dx + select(0.0, 1.0, j1 == j0)),
    );
    var s: RawSample;
    s.height = mix(south, north, ty);
    s.depth = mix(mix(d[0], d[1], tx), mix(d[2], d[3], tx), ty);
    s.normal = vec4<f32>(normalize(vec3<f32>(-slope.x, -slope.y, 1.0)), 0.0);
    samples[gid.x] = s;
}
