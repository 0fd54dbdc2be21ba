#import ns_grid
#import body
#import cover
// The water's loads on buoyant bodies in the Navier-Stokes layer (seed 003 §5, eqs. 13–15), once
// per step after the substeps, before bodies.wgsl's `integrate` moves the bodies with them.
//
// Each body is a lattice of nodes in its own frame (at most NODES_PER_AXIS along each axis,
// spaced about half the smaller of a height-field cell and a layer; an ellipsoid keeps the nodes
// inside it), each standing for an equal share dV of the body's exact volume. A node is in the
// water by the share `wet` of its vertical extent between the ground under it and the water's
// surface, so the force varies smoothly as the body sinks instead of in steps of a node. While
// the body pierces the surface: over the columns it covers, that surface is the column's, which
// carries the body's submerged volume (bodies.wgsl's `held`) up to its waterline, except that
// water still above its underside is water the coupling has yet to expel sideways, not water
// over the body (it would feel it twice and heave on it); over the cells at its rim it covers no
// centre of, the surface is its waterline (bodies.wgsl `integrate`, the mean surface of the open
// water around it): those cells hold the water just expelled into them, and a body a few cells
// across that read them was kicked out of the water. A flooded body reads the surface over it.
// On it acts
// f = −ρ·∇p·dV·wet (eq. 13; the gravity m·g is `integrate`'s, at the centre of mass), with ∇p the
// seed's difference of eq. 14 between the node's cell and its neighbour, taken on both faces of
// the cell along each axis and weighted by where the node lies between them (only faces between
// two fluid cells count; one-sided where the other is missing). A node above the layer's fluid
// cells of its column (water thinner than a layer) reads the nearest fluid cell below; one with
// no fluid cell in reach feels hydrostatic pressure. Eq. 15 sums the forces, and their moments
// about the centre of mass give the torque. The damping of eq. 16 is `integrate`'s drag on the
// body's velocity relative to the water's: the mean of the cell-centred velocities at the wet
// nodes, weighted by `wet`.
//
// The sums run in a fixed order (lane t takes nodes t, t + WG, …; the lanes fold pairwise), so a
// rerun gives the same bits. Twin: src/cpu/ns_bodies.rs.

// The velocities the last substep left (u, v, w faces in one buffer; ns_common.wgsl's order).
@group(1) @binding(0) var<storage, read> vel: array<f32>;
@group(2) @binding(0) var<uniform> bp: BodyParams;
// The height field (its surface carries the bodies' submerged volume) and its ground, m.
@group(2) @binding(1) var<storage, read> h: array<f32>;
@group(2) @binding(2) var<storage, read> ground: array<f32>;
@group(2) @binding(3) var<storage, read> bodies: array<Body>;
// Per body: (force, Σ wet·dV), (torque, nodes), (the water's velocity, Σ wet), N and N·m, world
// frame.
@group(2) @binding(4) var<storage, read_write> loads: array<vec4<f32>>;
// What covers each height-field cell (bodies.wgsl `footprint`).
@group(2) @binding(5) var<storage, read> cover: array<Cover>;

const WG: u32 = 256u;
const NODES_PER_AXIS: u32 = 16u;
const PI: f32 = 3.14159265358979;

var<workgroup> s_force: array<vec4<f32>, WG>;
var<workgroup> s_torque: array<vec4<f32>, WG>;
var<workgroup> s_fluid: array<vec4<f32>, WG>;

fn is_fluid(f: u32) -> bool {
    return f == FULL || f == SURFACE;
}

// Nodes along an axis of half length `half`.
fn nodes_along(half: f32, spacing: f32) -> u32 {
    return clamp(u32(ceil(2.0 * half / spacing)), 1u, NODES_PER_AXIS);
}

// The difference (p_b − p_a)/delta between two cells, and 1, when both hold fluid; else 0s.
fn difference(a: u32, b: u32, delta: f32) -> vec2<f32> {
    if is_fluid(flag[a]) && is_fluid(flag[b]) {
        return vec2<f32>((p[b] - p[a]) / delta, 1.0);
    }
    return vec2<f32>(0.0);
}

// The gradient at share t ∈ [0, 1] of the way from a cell's lower face (`low`) to its upper one.
fn between(low: vec2<f32>, high: vec2<f32>, t: f32) -> f32 {
    if low.y != 0.0 && high.y != 0.0 {
        return low.x + t * (high.x - low.x);
    }
    return select(high.x, low.x, low.y != 0.0);
}

// ∇p (kinematic) at world point r.
fn gradient(r: vec3<f32>) -> vec3<f32> {
    let x = clamp(r.x / ns.dx, 0.0, f32(ns.nx) - 0.001);
    let y = clamp(r.y / ns.dx, 0.0, f32(ns.ny) - 0.001);
    let z = clamp((r.z - ns.z0) / ns.dz, 0.0, f32(ns.nz) - 0.001);
    let i = u32(x);
    let j = u32(y);
    var k = u32(z);
    // Down through the air, then up out of the ground, to the nearest fluid cell.
    while k > 0u && flag[cell(i, j, k)] == EMPTY {
        k -= 1u;
    }
    while k + 1u < ns.nz && flag[cell(i, j, k)] == SOLID {
        k += 1u;
    }
    let c = cell(i, j, k);
    if !is_fluid(flag[c]) {
        return vec3<f32>(0.0, 0.0, -ns.g);
    }
    var west = vec2<f32>(0.0);
    var east = vec2<f32>(0.0);
    var south = vec2<f32>(0.0);
    var north = vec2<f32>(0.0);
    var floor = vec2<f32>(0.0);
    var top = vec2<f32>(0.0);
    if i > 0u {
        west = difference(cell(i - 1u, j, k), c, ns.dx);
    }
    if i + 1u < ns.nx {
        east = difference(c, cell(i + 1u, j, k), ns.dx);
    }
    if j > 0u {
        south = difference(cell(i, j - 1u, k), c, ns.dx);
    }
    if j + 1u < ns.ny {
        north = difference(c, cell(i, j + 1u, k), ns.dx);
    }
    if k > 0u {
        floor = difference(cell(i, j, k - 1u), c, ns.dz);
    }
    if k + 1u < ns.nz {
        top = difference(c, cell(i, j, k + 1u), ns.dz);
    }
    return vec3<f32>(
        between(west, east, x - f32(i)),
        between(south, north, y - f32(j)),
        between(floor, top, clamp(z - f32(k), 0.0, 1.0)),
    );
}

// The cell-centred velocity of the layer's cell holding r.
fn water_velocity(r: vec3<f32>) -> vec3<f32> {
    let i = min(u32(max(r.x / ns.dx, 0.0)), ns.nx - 1u);
    let j = min(u32(max(r.y / ns.dx, 0.0)), ns.ny - 1u);
    let k = min(u32(max((r.z - ns.z0) / ns.dz, 0.0)), ns.nz - 1u);
    return 0.5 * vec3<f32>(
        vel[uf(i, j, k)] + vel[uf(i + 1u, j, k)],
        vel[vf(i, j, k)] + vel[vf(i, j + 1u, k)],
        vel[wf(i, j, k)] + vel[wf(i, j, k + 1u)],
    );
}

// One workgroup per body.
@compute @workgroup_size(256)
fn body_loads(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let k = wid.x;
    if k >= bp.count {
        return;
    }
    let b = bodies[k];
    let half = b.half.xyz;
    let q = b.rotation;
    let centre = b.position.xyz;
    let fine = ns.dx / f32(ns.coarsen);
    let spacing = 0.5 * min(fine, ns.dz);
    let n = vec3<u32>(nodes_along(half.x, spacing), nodes_along(half.y, spacing), nodes_along(half.z, spacing));
    let step = 2.0 * half / vec3<f32>(n);
    // The vertical extent of a node's box in the world.
    let extent = abs(rotate(q, vec3<f32>(step.x, 0.0, 0.0)).z) + abs(rotate(q, vec3<f32>(0.0, step.y, 0.0)).z)
        + abs(rotate(q, vec3<f32>(0.0, 0.0, step.z)).z);
    var force = vec4<f32>(0.0);
    var torque = vec4<f32>(0.0);
    var fluid = vec4<f32>(0.0);
    let total = n.x * n.y * n.z;
    for (var m = t; m < total; m += WG) {
        let a = vec3<u32>(m % n.x, (m / n.x) % n.y, m / (n.x * n.y));
        let local = (vec3<f32>(a) + 0.5) * step - half;
        if b.kind.x == SHAPE_ELLIPSOID {
            let s = local / half;
            if dot(s, s) > 1.0 {
                continue;
            }
        }
        torque.w += 1.0;
        let arm = rotate(q, local);
        let r = centre + arm;
        let fi = min(u32(max(r.x / fine, 0.0)), ns.fnx - 1u);
        let fj = min(u32(max(r.y / fine, 0.0)), ns.fny - 1u);
        let fc = fj * ns.fnx + fi;
        var surface = h[fc];
        if b.kind.z == 0u {
            let cv = cover[fc];
            if (cv.owner & TAGGED) != 0u {
                surface = min(surface, cv.bottom + cv.held);
            } else {
                surface = b.contact.x;
            }
        }
        let bed = ground[fc];
        if surface <= bed {
            continue;
        }
        let wet = clamp((surface - r.z) / extent + 0.5, 0.0, 1.0) - clamp((bed - r.z) / extent + 0.5, 0.0, 1.0);
        if wet <= 0.0 {
            continue;
        }
        let f = -bp.water_density * wet * gradient(r);
        force += vec4<f32>(f, wet);
        torque += vec4<f32>(cross(arm, f), 0.0);
        fluid += vec4<f32>(wet * water_velocity(r), wet);
    }
    s_force[t] = force;
    s_torque[t] = torque;
    s_fluid[t] = fluid;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
        if t < stride {
            s_force[t] += s_force[t + stride];
            s_torque[t] += s_torque[t + stride];
            s_fluid[t] += s_fluid[t + stride];
        }
        workgroupBarrier();
    }
    if t != 0u {
        return;
    }
    var volume = 8.0 * half.x * half.y * half.z;
    if b.kind.x == SHAPE_ELLIPSOID {
        volume = 4.0 / 3.0 * PI * half.x * half.y * half.z;
    }
    let sums = s_torque[0];
    let dv = volume / max(sums.w, 1.0);
    let wet = s_fluid[0].w;
    var water = vec3<f32>(0.0);
    if wet > 0.0 {
        water = s_fluid[0].xyz / wet;
    }
    loads[3u * k] = vec4<f32>(dv * s_force[0].xyz, dv * s_force[0].w);
    loads[3u * k + 1u] = vec4<f32>(dv * sums.xyz, sums.w);
    loads[3u * k + 2u] = vec4<f32>(water, wet);
}
