// A rigid body and the bodies' uniforms, with no bindings: shared by the height field's body
// passes (bodies_common.wgsl) and the Navier-Stokes layer's loads (ns_bodies.wgsl).
// Mirrors `crate::bodies::{BodyState, BodyParams}`: keep them in step (a test checks their
// layouts field by field).

struct Body {
    // Centre x, y (metres) and z − ref; w: mass (kg).
    position: vec4<f32>,
    // Unit quaternion (x, y, z, w), body frame to world.
    rotation: vec4<f32>,
    // Linear velocity, m/s.
    velocity: vec4<f32>,
    // Angular velocity in the world frame, rad/s.
    spin: vec4<f32>,
    // Box: half extents along the body's axes; ellipsoid: semi-axes.
    half: vec4<f32>,
    // Principal moments of inertia in the body frame, kg·m².
    inertia: vec4<f32>,
    // What the last step measured: the waterline around the body (− ref; −NO_BODY when no water
    // touches it), the displaced volume (m³), the submerged share of its columns, contact cells.
    contact: vec4<f32>,
    // The cells whose centres its footprint may cover: i0, j0, i1, j1 inclusive (i0 > i1: none).
    rect: vec4<u32>,
    // x: SHAPE_*, y: MOTION_*, z: 1 while the body is flooded (wholly under the water).
    kind: vec4<u32>,
}

struct BodyParams {
    count: u32,
    // PCG: the most iterations per step; Jacobi: the sweeps per step (even).
    iterations: u32,
    // COUPLING_PCG or COUPLING_JACOBI.
    method: u32,
    // LOADS_COLUMNS: buoyancy by the columns a body displaces, drag against still water;
    // LOADS_LAYER: the water's forces on each body come from `loads` (ns_bodies.wgsl: the
    // Navier-Stokes layer's pressure and velocities); LOADS_CURRENT: the heads a body presses
    // the shallow-water model's water with, and drag against its velocity around the body, in
    // `loads` (sw_bodies.wgsl).
    loads: u32,
    // Seconds per step (bodies move once per step, after all substeps).
    dt: f32,
    gravity: f32,
    water_density: f32,
    dx: f32,
    // GAMES103's gamma: the share of the water to expel that one step moves.
    relaxation: f32,
    // PCG stops when |r|² ≤ tolerance²·|b|².
    tolerance: f32,
    // C_d of the quadratic drag ½·ρ·C_d·A·|v|·v on the wetted footprint A.
    drag: f32,
    // Angular drag per second at full submersion.
    angular_drag: f32,
    // The domain, metres.
    width: f32,
    height: f32,
    // The most cells one body's coupling box can hold (`crate::bodies::box_cells`): past
    // coupling.wgsl's SOLO the host records the passes over the box.
    box_cells: u32,
    // 1: the model takes each column's `held` as a pressure head on its water (the shallow-water
    // model, sw_bodies.wgsl's `press`): `footprint` leaves the surface alone and the coupling
    // solve does not run, the model's own pressure gradient moving the water from under a body.
    pressed: u32,
}

const SHAPE_BOX: u32 = 0u;
const SHAPE_ELLIPSOID: u32 = 1u;
const MOTION_FREE: u32 = 0u;
const MOTION_FIXED: u32 = 1u;
const MOTION_KINEMATIC: u32 = 2u;
const COUPLING_PCG: u32 = 0u;
const COUPLING_JACOBI: u32 = 1u;
const LOADS_COLUMNS: u32 = 0u;
const LOADS_LAYER: u32 = 1u;
const LOADS_CURRENT: u32 = 2u;

// v rotated by the unit quaternion q.
fn rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn conjugate(q: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(-q.xyz, q.w);
}

