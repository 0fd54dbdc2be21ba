#import bodies_common
// Rigid bodies on the height field (GAMES103 "Two-Way Coupling", Wilson et al.'s dropped cube).
//
// `footprint` (every cell, after the water step): casts the vertical line through each cell centre
// against the bodies and keeps the lowest one: the column's `bottom` and `top`. Each wet column
// a body covers holds the body's volume below its waterline, clamp(waterline − bottom, 0,
// thickness): `held`, which the surface carries on top of the column's water, so the surface
// over a body stands at its waterline, and the water volume (reduce.wgsl) and the next step
// (which takes it off again first) stay exact. Then:
//   - the columns of a body that pierces the surface are tagged: the coupling solve
//     (coupling.wgsl) expels their water above the underside to the untagged cells. A covered
//     column whose water is below the underside (an air pocket, or a body above the water) is
//     tagged too, with nothing to expel: the solve passes water through it, and none is pushed
//     into a column inside a body;
//   - a body wholly under its waterline is flooded over: its columns are not tagged, and water
//     stands on it.
// Pinning a tagged column's surface to the underside instead (GAMES103's picture) drew the
// neighbours' water into it on every step, to be expelled again: the churn radiated ripples of
// the grid's size from a box floating at rest.
// Flooded or not is the whole body's (`kind.z`, set by `integrate`): a column pinned beside one
// flooded over stood the body's thickness below its neighbour, and the water poured back and
// forth between them grew without bound (a plunging sphere's rim).
// `integrate` (one workgroup per body, after the solve): the waterline is the mean surface of the
// wet, uncovered cells around the body; each covered column displaces clamp(waterline − bottom,
// 0, top − bottom) of water. Buoyancy ρ·g·dx²·Σ displaced acts at each column's centre (its torque
// about the centre of mass), gravity at the centre; quadratic drag on the wetted footprint and
// angular drag in proportion to the submerged share. In the Navier-Stokes layer (`bp.loads`) the
// pressure's force and torque on the body's nodes (seed 003 §5, ns_bodies.wgsl) replace the
// columns' buoyancy, and the drag acts on the body's velocity relative to the water's.
// Semi-implicit Euler, then the body is kept inside the domain and above the ground.
// Twin: src/cpu/bodies.rs.

@group(0) @binding(1) var<uniform> bp: BodyParams;
@group(0) @binding(2) var<storage, read> ground: array<f32>;
@group(0) @binding(3) var<storage, read_write> bodies: array<Body>;
@group(0) @binding(4) var<storage, read_write> cover: array<Cover>;
@group(0) @binding(5) var<storage, read_write> solve: Solve;
// 12 floats per body per step: position, (qw, qx, qy, qz), velocity, waterline, displaced.
@group(0) @binding(6) var<storage, read_write> history: array<f32>;
// With `bp.loads`, per body: (force, ·), (torque, ·), (the water's velocity around it, ·), world
// frame (ns_bodies.wgsl). A 48-byte stand-in otherwise.
@group(0) @binding(7) var<storage, read> loads: array<vec4<f32>>;

@group(1) @binding(0) var<storage, read_write> eta: array<f32>;

@group(2) @binding(0) var<uniform> slot: StepSlot;

const WG: u32 = 256u;
// Cells of uncovered water around a body that measure its waterline.
const RING: u32 = 2u;
const BIG: f32 = 1.0e30;

// The vertical line through (x, y) against body b: (underside, top) relative to the reference
// level, or (NO_BODY, NO_BODY) when it misses. In the body frame the line is o + t·d, t the
// height above the body's centre.
fn column(b: Body, x: f32, y: f32) -> vec2<f32> {
    let inverse = conjugate(b.rotation);
    let o = rotate(inverse, vec3<f32>(x - b.position.x, y - b.position.y, 0.0));
    let d = rotate(inverse, vec3<f32>(0.0, 0.0, 1.0));
    let h = b.half.xyz;
    var t0 = -BIG;
    var t1 = BIG;
    if b.kind.x == SHAPE_BOX {
        for (var a = 0u; a < 3u; a = a + 1u) {
            if abs(d[a]) < 1.0e-7 {
                if abs(o[a]) > h[a] {
                    return vec2<f32>(NO_BODY, NO_BODY);
                }
            } else {
                let ta = (-h[a] - o[a]) / d[a];
                let tb = (h[a] - o[a]) / d[a];
                t0 = max(t0, min(ta, tb));
                t1 = min(t1, max(ta, tb));
            }
        }
    } else {
        let os = o / h;
        let ds = d / h;
        let a = dot(ds, ds);
        let half_b = dot(os, ds);
        let disc = half_b * half_b - a * (dot(os, os) - 1.0);
        if disc <= 0.0 {
            return vec2<f32>(NO_BODY, NO_BODY);
        }
        let s = sqrt(disc);
        t0 = (-half_b - s) / a;
        t1 = (-half_b + s) / a;
    }
    if t0 >= t1 {
        return vec2<f32>(NO_BODY, NO_BODY);
    }
    return vec2<f32>(b.position.z + t0, b.position.z + t1);
}

// Half the world-axis extents of body b at rotation q.
fn extents(b: Body, q: vec4<f32>) -> vec3<f32> {
    let ax = rotate(q, vec3<f32>(b.half.x, 0.0, 0.0));
    let ay = rotate(q, vec3<f32>(0.0, b.half.y, 0.0));
    let az = rotate(q, vec3<f32>(0.0, 0.0, b.half.z));
    if b.kind.x == SHAPE_BOX {
        return abs(ax) + abs(ay) + abs(az);
    }
    return sqrt(ax * ax + ay * ay + az * az);
}


@compute @workgroup_size(16, 16)
fn footprint(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let j = gid.y;
    if i >= params.nx || j >= params.ny {
        return;
    }
    let c = cell(i, j);
    let x = (f32(i) + 0.5) * bp.dx;
    let y = (f32(j) + 0.5) * bp.dx;
    var bottom = NO_BODY;
    var top = NO_BODY;
    var owner = 0u;
    for (var k = 0u; k < bp.count; k = k + 1u) {
        let r = bodies[k].rect;
        if i >= r.x && i <= r.z && j >= r.y && j <= r.w {
            let hit = column(bodies[k], x, y);
            if hit.x < bottom {
                bottom = hit.x;
                top = hit.y;
                owner = k + 1u;
            }
        }
    }
    let old = cover[c];
    let g = ground[c];
    // The water's own top: the surface less what the column held for a submerged body (pressed,
    // the surface is the water's alone).
    let water = max(eta[c] - select(old.held, 0.0, bp.pressed != 0u), g);
    var held = 0.0;
    var tag = 0u;
    if owner != 0u {
        let b = bodies[owner - 1u];
        if water > g {
            // The body's volume below its waterline stands in the column's surface.
            held = clamp(b.contact.x - bottom, 0.0, top - bottom);
        }
        if b.kind.z == 0u {
            tag = TAGGED;
            atomicMin(&solve.box_min_i, i);
            atomicMin(&solve.box_min_j, j);
            atomicMax(&solve.box_max_i, i);
            atomicMax(&solve.box_max_j, j);
            atomicMin(&solve.clusters[owner - 1u].min_i, i);
            atomicMin(&solve.clusters[owner - 1u].min_j, j);
            atomicMax(&solve.clusters[owner - 1u].max_i, i);
            atomicMax(&solve.clusters[owner - 1u].max_j, j);
        }
    }
    if bp.pressed == 0u && (old.held != 0.0 || held != 0.0) {
        eta[c] = water + held;
    }
    cover[c] = Cover(bottom, top, owner | tag, held);
}

var<workgroup> s_sum: array<vec4<f32>, WG>;
var<workgroup> s_more: array<vec2<f32>, WG>;

// Folds s_sum (sums) and s_more (x: max, y: sum) into lane 0.
fn fold(t: u32) {
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if t < stride {
            s_sum[t] = s_sum[t] + s_sum[t + stride];
            let o = s_more[t + stride];
            s_more[t] = vec2<f32>(max(s_more[t].x, o.x), s_more[t].y + o.y);
        }
        workgroupBarrier();
    }
}

// The cells whose centres lie within [lo, hi] along one axis of n cells: (first, last), first >
// last when none.
fn cell_span(lo: f32, hi: f32, n: u32) -> vec2<u32> {
    let first = max(ceil(lo / bp.dx - 0.5), 0.0);
    let last = min(floor(hi / bp.dx - 0.5), f32(n) - 1.0);
    if first > last {
        return vec2<u32>(1u, 0u);
    }
    return vec2<u32>(u32(first), u32(last));
}

@compute @workgroup_size(256)
fn integrate(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let k = wid.x;
    if k >= bp.count {
        return;
    }
    let b = bodies[k];
    let r = b.rect;
    let ring = vec4<u32>(
        select(r.x - RING, 0u, r.x < RING),
        select(r.y - RING, 0u, r.y < RING),
        min(r.z + RING, params.nx - 1u),
        min(r.w + RING, params.ny - 1u),
    );
    let ring_w = select(0u, ring.z + 1u - ring.x, r.x <= r.z && r.y <= r.w);
    let ring_n = ring_w * (ring.w + 1u - ring.y);

    // The waterline: the mean surface of the wet cells around the body that no body covers.
    var sum = vec4<f32>(0.0);
    for (var m = t; m < ring_n; m = m + WG) {
        let c = cell(ring.x + m % ring_w, ring.y + m / ring_w);
        if cover[c].owner == 0u && eta[c] > ground[c] {
            sum = sum + vec4<f32>(eta[c], 1.0, 0.0, 0.0);
        }
    }
    s_sum[t] = sum;
    s_more[t] = vec2<f32>(0.0);
    fold(t);
    let around = s_sum[0];
    let waterline = select(-NO_BODY, around.x / around.y, around.y > 0.0);
    workgroupBarrier();

    // What each covered column displaces, its moment arms, and how far the body is in the ground.
    let rect_w = select(0u, r.z + 1u - r.x, r.x <= r.z && r.y <= r.w);
    let rect_n = rect_w * (r.w + 1u - r.y);
    sum = vec4<f32>(0.0);
    var deepest = -BIG;
    var touching = 0.0;
    for (var m = t; m < rect_n; m = m + WG) {
        let i = r.x + m % rect_w;
        let j = r.y + m / rect_w;
        let cv = cover[cell(i, j)];
        if owner_of(cv) == k + 1u {
            let thick = cv.top - cv.bottom;
            let displaced = clamp(waterline - cv.bottom, 0.0, thick);
            let arm_x = (f32(i) + 0.5) * bp.dx - b.position.x;
            let arm_y = (f32(j) + 0.5) * bp.dx - b.position.y;
            sum = sum + vec4<f32>(displaced, displaced * arm_x, displaced * arm_y, thick);
            deepest = max(deepest, ground[cell(i, j)] - cv.bottom);
            touching = touching + select(0.0, 1.0, displaced > 0.0);
        }
    }
    s_sum[t] = sum;
    s_more[t] = vec2<f32>(deepest, touching);
    fold(t);
    if t != 0u {
        return;
    }
    let s = s_sum[0];
    let area = bp.dx * bp.dx;
    let lift = bp.water_density * bp.gravity * area;
    let share = s.x / max(s.w, 1.0e-30);
    let mass = b.position.w;
    var pos = b.position.xyz;
    var q = b.rotation;
    var v = b.velocity.xyz;
    var w = b.spin.xyz;
    let motion = b.kind.y;
    // The water's force and torque (world frame) and the velocity of the water around the body:
    // buoyancy by the displaced columns in still water, or with `bp.loads` what ns_bodies.wgsl
    // measured in the Navier-Stokes layer or sw_bodies.wgsl on the shallow-water model.
    var force = vec3<f32>(0.0, 0.0, lift * s.x);
    var turning = lift * vec3<f32>(s.z, -s.y, 0.0);
    var fluid = vec3<f32>(0.0);
    if bp.loads == LOADS_LAYER {
        force = loads[3u * k].xyz;
        turning = loads[3u * k + 1u].xyz;
    }
    if bp.loads != LOADS_COLUMNS {
        fluid = loads[3u * k + 2u].xyz;
    }
    if motion == MOTION_FREE {
        v = v + bp.dt * (force / mass - vec3<f32>(0.0, 0.0, bp.gravity));
        if bp.loads != LOADS_COLUMNS {
            // The layer's pressure (or the shallow-water model's waterline) answers the body's
            // heave a step late: its hydrostatic stiffness ρ·g·A over the wetted footprint A is
            // taken implicitly.
            let stiff = bp.water_density * bp.gravity * s_more[0].y * area / mass;
            v.z = v.z / (1.0 + bp.dt * bp.dt * stiff);
        }
        // Quadratic drag ½·ρ·C_d·A·|v − u|·(v − u) over the wetted footprint A, u the water's
        // velocity, taken implicitly.
        let resist = 0.5 * bp.water_density * bp.drag * s_more[0].y * area / mass;
        let slip = v - fluid;
        v = fluid + slip / (1.0 + bp.dt * resist * length(slip));
        // Euler's equations in the body frame: I·dω/dt = τ − ω × I·ω.
        let torque = rotate(conjugate(q), turning);
        let inertia = b.inertia.xyz;
        var wb = rotate(conjugate(q), w);
        wb = wb + bp.dt * (torque - cross(wb, inertia * wb)) / inertia;
        wb = wb / (1.0 + bp.dt * bp.angular_drag * share);
        w = rotate(q, wb);
    }
    if motion != MOTION_FIXED {
        pos = pos + bp.dt * v;
        let dq = vec4<f32>(q.w * w + cross(w, q.xyz), -dot(w, q.xyz));
        q = normalize(q + 0.5 * bp.dt * dq);
    }
    // Inside the domain: the footprint's world extents stay within the sides.
    let e = extents(b, q);
    let x_lo = min(e.x, 0.5 * bp.width);
    let y_lo = min(e.y, 0.5 * bp.height);
    let x = clamp(pos.x, x_lo, bp.width - x_lo);
    let y = clamp(pos.y, y_lo, bp.height - y_lo);
    v.x = select(v.x, 0.0, x != pos.x);
    v.y = select(v.y, 0.0, y != pos.y);
    pos = vec3<f32>(x, y, pos.z);
    // Above the ground: lift it by how deep its underside reached into the ground.
    let into_ground = s_more[0].x;
    if motion == MOTION_FREE && into_ground > 0.0 {
        pos.z = pos.z + into_ground;
        v.z = max(v.z, 0.0);
    }
    // Flooded or piercing, with a margin of a quarter of its half height either way, so that a
    // splash around a body at the surface does not flip it back and forth.
    let top = pos.z + e.z;
    var flooded = b.kind.z;
    if flooded == 1u && top > waterline + 0.25 * e.z {
        flooded = 0u;
    } else if flooded == 0u && top < waterline - 0.25 * e.z {
        flooded = 1u;
    }
    bodies[k].kind.z = flooded;
    let span_x = cell_span(pos.x - e.x, pos.x + e.x, params.nx);
    let span_y = cell_span(pos.y - e.y, pos.y + e.y, params.ny);
    bodies[k].position = vec4<f32>(pos, mass);
    bodies[k].rotation = q;
    bodies[k].velocity = vec4<f32>(v, 0.0);
    bodies[k].spin = vec4<f32>(w, 0.0);
    bodies[k].contact = vec4<f32>(waterline, s.x * area, share, s_more[0].y);
    bodies[k].rect = vec4<u32>(span_x.x, span_y.x, span_x.y, span_y.y);
    let row = (slot.index * bp.count + k) * 12u;
    history[row] = pos.x;
    history[row + 1u] = pos.y;
    history[row + 2u] = pos.z;
    history[row + 3u] = q.w;
    history[row + 4u] = q.x;
    history[row + 5u] = q.y;
    history[row + 6u] = q.z;
    history[row + 7u] = v.x;
    history[row + 8u] = v.y;
    history[row + 9u] = v.z;
    history[row + 10u] = waterline;
    history[row + 11u] = s.x * area;
}
