// The example renderer's shaders (examples/render.rs): terrain, bodies and water drawn straight
// from Shoal's buffers. Heights are relative to Shoal's reference level; so is this whole world.

struct Camera {
    view_proj: mat4x4<f32>,
    // xyz: the eye; w: the cell size (metres).
    eye: vec4<f32>,
    // xyz: the direction sunlight travels (unit); w: unused.
    sun: vec4<f32>,
    // x: cells along x (as f32).
    grid: vec4<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;

const SUN_COLOUR: vec3<f32> = vec3<f32>(1.0, 0.96, 0.88);
const SAND: vec3<f32> = vec3<f32>(0.78, 0.70, 0.52);
const WOOD: vec3<f32> = vec3<f32>(0.58, 0.38, 0.20);
const DEEP: vec3<f32> = vec3<f32>(0.0, 0.22, 0.34);
// Absorption per metre of water, red first to go.
const ABSORB: vec3<f32> = vec3<f32>(4.5, 1.6, 0.9);

// Cell `index` of the grid (one vertex per cell, row-major) at height z.
fn grid_point(index: u32, z: f32) -> vec3<f32> {
    let nx = u32(camera.grid.x);
    let i = index % nx;
    let j = index / nx;
    return vec3<f32>((f32(i) + 0.5) * camera.eye.w, (f32(j) + 0.5) * camera.eye.w, z);
}

fn sky(dir: vec3<f32>) -> vec3<f32> {
    let up = clamp(dir.z, 0.0, 1.0);
    let base = mix(vec3<f32>(0.78, 0.86, 0.93), vec3<f32>(0.30, 0.52, 0.82), up);
    let sun = pow(max(dot(dir, -camera.sun.xyz), 0.0), 400.0);
    return base + 4.0 * sun * SUN_COLOUR;
}

// Lambert plus a little sky light.
fn lit(albedo: vec3<f32>, n: vec3<f32>, light: f32) -> vec3<f32> {
    let direct = max(dot(n, -camera.sun.xyz), 0.0) * light;
    return albedo * (0.25 + 0.85 * direct * SUN_COLOUR);
}

// Flat-shaded normal from the triangle's screen-space derivatives.
fn facet(p: vec3<f32>) -> vec3<f32> {
    let n = normalize(cross(dpdx(p), dpdy(p)));
    return select(n, -n, n.z < 0.0);
}

struct TerrainOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) caustics: f32,
    @location(2) wetness: f32,
    @location(3) depth: f32,
}

@vertex
fn terrain_vertex(
    @builtin(vertex_index) index: u32,
    @location(0) ground: f32,
    @location(1) caustics: f32,
    @location(2) wetness: f32,
    @location(3) depth: f32,
) -> TerrainOut {
    let p = grid_point(index, ground);
    var out: TerrainOut;
    out.clip = camera.view_proj * vec4<f32>(p, 1.0);
    out.world = p;
    out.caustics = caustics;
    out.wetness = wetness;
    out.depth = depth;
    return out;
}

@fragment
fn terrain_fragment(v: TerrainOut) -> @location(0) vec4<f32> {
    // Wet sand is darker (Kass & Miller's wetness map); under water the light is what the
    // caustics pass says reaches the ground.
    let albedo = SAND * (1.0 - 0.45 * clamp(v.wetness, 0.0, 1.0));
    let light = select(1.0, clamp(v.caustics, 0.0, 4.0), v.depth > 0.0);
    return vec4<f32>(lit(albedo, facet(v.world), light), 1.0);
}

struct BodyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

fn rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// One instance per body, read from Shoal's body states (BodyState, 144 bytes): position,
// rotation, half extents and kind.
@vertex
fn body_vertex(
    @location(0) corner: vec3<f32>,
    @location(1) face: vec3<f32>,
    @location(2) position: vec4<f32>,
    @location(3) rotation: vec4<f32>,
    @location(4) half_size: vec4<f32>,
    @location(5) kind: vec4<u32>,
) -> BodyOut {
    var local = corner * half_size.xyz;
    var n = face;
    if kind.x == 1u {
        // An ellipsoid: the subdivided cube pushed out onto the unit sphere, then scaled.
        let s = normalize(corner);
        local = s * half_size.xyz;
        n = normalize(s / half_size.xyz);
    }
    let p = position.xyz + rotate(rotation, local);
    var out: BodyOut;
    out.clip = camera.view_proj * vec4<f32>(p, 1.0);
    out.normal = rotate(rotation, n);
    return out;
}

@fragment
fn body_fragment(v: BodyOut) -> @location(0) vec4<f32> {
    return vec4<f32>(lit(WOOD, normalize(v.normal), 1.0), 1.0);
}

struct SprayOut {
    @builtin(position) clip: vec4<f32>,
    // The quad's corner in (-1, 1)², for a round dot.
    @location(0) corner: vec2<f32>,
}

// One instance per particle, read from Shoal's particle buffer (Particle, 32 bytes): a quad of
// one and a half cells across facing the eye, stretched a little along the particle's velocity;
// foam (no units, seconds of life left: the Navier-Stokes layer's) a dot half that size riding
// the surface; a free slot (neither) is dropped, its quad put outside the clip volume.
@vertex
fn spray_vertex(
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) velocity: vec3<f32>,
    @location(2) units: u32,
    @location(3) age: f32,
) -> SprayOut {
    var out: SprayOut;
    if units == 0u && !(age > 0.0) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        out.corner = vec2<f32>(0.0);
        return out;
    }
    let corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let corner = corners[index];
    let view = normalize(position - camera.eye.xyz);
    let right = normalize(cross(view, vec3<f32>(0.0, 0.0, 1.0)));
    let up = cross(right, view);
    let size = select(0.75, 0.375, units == 0u) * camera.eye.w;
    // The streak: up to three sizes long along the screen-projected velocity.
    let along = velocity - dot(velocity, view) * view;
    let streak = along * min(0.02, 3.0 * size / max(length(along), 1e-6));
    let p = position + size * (corner.x * right + corner.y * up) + 0.5 * (corner.y + 1.0) * streak;
    out.clip = camera.view_proj * vec4<f32>(p, 1.0);
    out.corner = corner;
    return out;
}

// White water, premultiplied, fading to the dot's rim.
@fragment
fn spray_fragment(v: SprayOut) -> @location(0) vec4<f32> {
    let r = length(v.corner);
    if r > 1.0 {
        discard;
    }
    let alpha = 0.85 * (1.0 - r * r);
    return vec4<f32>(vec3<f32>(0.95, 0.97, 1.0) * alpha, alpha);
}

struct WaterOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) depth: f32,
}

@vertex
fn water_vertex(
    @builtin(vertex_index) index: u32,
    @location(0) height: f32,
    @location(1) normal: vec4<f32>,
    @location(2) depth: f32,
) -> WaterOut {
    let p = grid_point(index, height);
    var out: WaterOut;
    out.clip = camera.view_proj * vec4<f32>(p, 1.0);
    out.world = p;
    out.normal = normal.xyz;
    out.depth = depth;
    return out;
}

// Premultiplied alpha over the terrain and bodies already drawn: Fresnel (Schlick) reflection
// of the sky, and the ground seen through the water, tinted and dimmed by the depth it crosses.
@fragment
fn water_fragment(v: WaterOut) -> @location(0) vec4<f32> {
    if v.depth < 1e-4 {
        discard;
    }
    let n = normalize(v.normal);
    let view = normalize(camera.eye.xyz - v.world);
    let cos_v = max(dot(n, view), 0.0);
    let fresnel = 0.02 + 0.98 * pow(1.0 - cos_v, 5.0);
    let reflected = sky(reflect(-view, n));
    let path = v.depth / max(cos_v, 0.2);
    let through = exp(-ABSORB * path);
    let seen = mean(through);
    let colour = fresnel * reflected + (1.0 - fresnel) * (1.0 - through) * DEEP;
    return vec4<f32>(colour, 1.0 - (1.0 - fresnel) * seen);
}

fn mean(v: vec3<f32>) -> f32 {
    return (v.x + v.y + v.z) / 3.0;
}
