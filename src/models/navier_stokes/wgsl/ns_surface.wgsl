#import ns_common
#import slot
#import cover
#import probe_entry
// The Navier-Stokes layer's height field (seed 003, §4.3) at its own resolution: moved by the 3D
// grid's velocities in flux form (`flux`, `limit`, `apply`: eq. 11 as ∂h/∂t = −∇·∫u dz, no cell
// giving more than it holds), the global volume correction (`volume_strips`, `volume_fold`,
// `volume_apply`) and the probes (a gauge's surface, or a unit discharge for a discharge line or
// a gauge's velocity). Twin: src/cpu/ns_surface.rs, function for function.

// The surface and the ground per height-field cell, m.
@group(0) @binding(1) var<storage, read_write> h: array<f32>;
@group(0) @binding(2) var<storage, read> ground: array<f32>;
// Per point (fi, fj) of the (fnx + 1)·(fny + 1) lattice: the flux of the face west of cell
// (fi, fj) towards +x and −x, and of the face south of it towards +y and −y, m²/s.
@group(0) @binding(3) var<storage, read_write> faces: array<vec4<f32>>;
// Per cell: the share of its outflows it can give.
@group(0) @binding(4) var<storage, read_write> scale: array<f32>;
// [0, 8): the fold (hi, lo, wet cells, deepest, bad cells, the correction, the spray's units in
// the air (ns_spray.wgsl), the bodies' held volume); then 8 per strip (hi, lo, wet cells,
// deepest, bad cells, held, 0, 0). Counts are u32 bits.
@group(0) @binding(5) var<storage, read_write> volume: array<f32>;
// With `ns.bodies`, what covers each cell: its `held` body volume stands in the surface and is not
// water (bodies.wgsl). A 16-byte stand-in otherwise.
@group(0) @binding(6) var<storage, read> cover: array<Cover>;
// The current velocities (u, v, w faces in one buffer; ns_common.wgsl's order).
@group(1) @binding(0) var<storage, read> vel: array<f32>;
@group(2) @binding(0) var<storage, read> probe_cells: array<u32>;
@group(2) @binding(1) var<storage, read_write> history: array<f32>;
@group(3) @binding(0) var<uniform> slot: StepSlot;

// Height-field cells per strip of the volume's first level (one thread each).
const STRIP: u32 = 64u;
// Lanes of the volume's second level (one workgroup).
const LANES: u32 = 256u;

fn fine_cells() -> u32 {
    return ns.fnx * ns.fny;
}

// The top of cell c's water: its surface less the body volume it carries (bodies.wgsl's `held`),
// which the fluxes do not move.
fn water_top(c: u32) -> f32 {
    if ns.bodies != 0u {
        return h[c] - cover[c].held;
    }
    return h[c];
}

// dt·coarsen/dx: a flux (m²/s) times this is metres of depth in one cell.
fn run() -> f32 {
    return ns.dt * f32(ns.coarsen) / ns.dx;
}

// What the face west (`along_x`) or south of cell (fi, fj) carries: (forwards, backwards). Past
// a side the cell inside stands for the one outside.
fn face_flux(along_x: bool, fi: u32, fj: u32) -> vec2<f32> {
    let cz = ns.coarsen;
    var along = fj;
    var across = fi;
    var end = ns.fny;
    if along_x {
        along = fi;
        across = fj;
        end = ns.fnx;
    }
    let after = fine_cell(along_x, min(along, end - 1u), fi, fj);
    var before = after;
    if along > 0u {
        before = fine_cell(along_x, along - 1u, fi, fj);
    }
    // The 3D faces either side along the axis, and where this face lies between them.
    let low = along / cz;
    let t = f32(along % cz) / f32(cz);
    var carried = vec2<f32>(0.0);
    for (var k = 0u; k < ns.nz; k++) {
        var at_low: f32;
        var at_high: f32;
        if along_x {
            at_low = vel[uf(low, across / cz, k)];
            at_high = vel[uf(min(low + 1u, ns.nx), across / cz, k)];
        } else {
            at_low = vel[vf(across / cz, low, k)];
            at_high = vel[vf(across / cz, min(low + 1u, ns.ny), k)];
        }
        var u = at_low;
        if t != 0.0 {
            u = at_low + t * (at_high - at_low);
        }
        let up = select(h[after], h[before], u > 0.0);
        let bottom = ns.z0 + f32(k) * ns.dz;
        let wet = max(min(up, bottom + ns.dz) - bottom, 0.0);
        if u > 0.0 {
            carried.x += u * wet;
        } else {
            carried.y -= u * wet;
        }
    }
    return carried;
}

// The height-field cell at position `l` along the axis through (fi, fj).
fn fine_cell(along_x: bool, l: u32, fi: u32, fj: u32) -> u32 {
    if along_x {
        return fj * ns.fnx + l;
    }
    return l * ns.fnx + fi;
}

// One thread per point (fi, fj) of the (fnx + 1)·(fny + 1) lattice: the face west of cell (fi, fj)
// and the face south of it (the last column and row: the east and north sides).
@compute @workgroup_size(64)
fn flux(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let e = thread_index(gid, groups);
    let ex = ns.fnx + 1u;
    if e >= ex * (ns.fny + 1u) {
        return;
    }
    let fi = e % ex;
    let fj = e / ex;
    var x = vec2<f32>(0.0);
    var y = vec2<f32>(0.0);
    if fj < ns.fny {
        x = face_flux(true, fi, fj);
    }
    if fi < ns.fnx {
        y = face_flux(false, fi, fj);
    }
    faces[e] = vec4<f32>(x, y);
}

// The four faces of cell c: west, east (x: forwards, y: backwards), south, north.
struct Around {
    w: vec2<f32>,
    e: vec2<f32>,
    s: vec2<f32>,
    n: vec2<f32>,
}

fn around(c: u32) -> Around {
    let ex = ns.fnx + 1u;
    let fi = c % ns.fnx;
    let fj = c / ns.fnx;
    let here = faces[fj * ex + fi];
    let east = faces[fj * ex + fi + 1u];
    let north = faces[(fj + 1u) * ex + fi];
    return Around(here.xy, east.xy, here.zw, north.zw);
}

@compute @workgroup_size(64)
fn limit(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c >= fine_cells() {
        return;
    }
    let a = around(c);
    let out = run() * (((a.e.x + a.w.y) + a.n.x) + a.s.y);
    let water = water_top(c) - ground[c];
    var share = 1.0;
    if out > water {
        share = max(water, 0.0) / out;
    }
    scale[c] = share;
}

// The share a neighbour gives of its outflows; past a side the outside gives in full.
fn giver(inside: bool, at: u32) -> f32 {
    if inside {
        return scale[at];
    }
    return 1.0;
}

@compute @workgroup_size(64)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c >= fine_cells() {
        return;
    }
    let fi = c % ns.fnx;
    let fj = c / ns.fnx;
    let a = around(c);
    var net = -(scale[c] * (((a.e.x + a.w.y) + a.n.x) + a.s.y));
    net += giver(fi > 0u, c - 1u) * a.w.x;
    net += giver(fi + 1u < ns.fnx, c + 1u) * a.e.y;
    net += giver(fj > 0u, c - ns.fnx) * a.s.x;
    net += giver(fj + 1u < ns.fny, c + ns.fnx) * a.n.y;
    h[c] = max(h[c] + run() * net, ground[c]);
}

// ---- the volume: twin of `volume`, `correction` and `correct` ----

fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = (a + b) * ns.one;
    let b_part = (s - a) * ns.one;
    let a_part = (s - b_part) * ns.one;
    let e = ((a - a_part) * ns.one) + ((b - b_part) * ns.one);
    return vec2<f32>(s, e);
}

fn finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// A partial sum: (hi, lo), wet cells, deepest, bad cells, the bodies' held volume.
struct VolumePart {
    hi: f32,
    lo: f32,
    wet: u32,
    deepest: f32,
    bad: u32,
    held: f32,
}

fn add(a: VolumePart, b: VolumePart) -> VolumePart {
    let s = two_sum(a.hi, b.hi);
    return VolumePart(s.x, a.lo + (b.lo + s.y), a.wet + b.wet, max(a.deepest, b.deepest), a.bad + b.bad,
                      a.held + b.held);
}

fn load_partial(at: u32) -> VolumePart {
    return VolumePart(volume[at], volume[at + 1u], bitcast<u32>(volume[at + 2u]), volume[at + 3u],
                   bitcast<u32>(volume[at + 4u]), volume[at + 5u]);
}

// One thread per strip of STRIP cells, summed in order.
@compute @workgroup_size(64)
fn volume_strips(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = thread_index(gid, groups);
    if t >= ns.strips {
        return;
    }
    var sum = VolumePart(0.0, 0.0, 0u, 0.0, 0u, 0.0);
    let end = min((t + 1u) * STRIP, fine_cells());
    for (var c = t * STRIP; c < end; c++) {
        let x = h[c];
        if !finite(x) {
            sum.bad += 1u;
            continue;
        }
        let b = ground[c];
        var d = max(x - b, 0.0);
        if ns.bodies != 0u {
            d -= cover[c].held;
            sum.held += cover[c].held;
        }
        let s = two_sum(sum.hi, d);
        sum.hi = s.x;
        sum.lo += s.y;
        sum.wet += select(0u, 1u, x > b);
        sum.deepest = max(sum.deepest, d);
    }
    let at = 8u + 8u * t;
    volume[at] = sum.hi;
    volume[at + 1u] = sum.lo;
    volume[at + 2u] = bitcast<f32>(sum.wet);
    volume[at + 3u] = sum.deepest;
    volume[at + 4u] = bitcast<f32>(sum.bad);
    volume[at + 5u] = sum.held;
}

var<workgroup> lanes: array<VolumePart, LANES>;

// One workgroup: lane l sums strips l, l + LANES, …; the lanes fold pairwise, halving; then the
// correction every wet cell takes.
@compute @workgroup_size(256)
fn volume_fold(@builtin(local_invocation_index) l: u32) {
    var sum = VolumePart(0.0, 0.0, 0u, 0.0, 0u, 0.0);
    for (var t = l; t < ns.strips; t += LANES) {
        sum = add(sum, load_partial(8u + 8u * t));
    }
    lanes[l] = sum;
    workgroupBarrier();
    for (var stride = LANES / 2u; stride > 0u; stride /= 2u) {
        if l < stride {
            lanes[l] = add(lanes[l], lanes[l + stride]);
        }
        workgroupBarrier();
    }
    if l == 0u {
        let total = lanes[0];
        var delta = 0.0;
        if total.wet > 0u {
            // The spray in the air (ns_spray.wgsl's IN_FLIGHT word) is water the surface lacks.
            let in_air = f32(bitcast<u32>(volume[6])) * ns.spray_unit;
            delta = ((((ns.target_hi - total.hi) + ns.target_lo) - total.lo) - in_air) / f32(total.wet);
        }
        volume[0] = total.hi;
        volume[1] = total.lo;
        volume[2] = bitcast<f32>(total.wet);
        volume[3] = total.deepest;
        volume[4] = bitcast<f32>(total.bad);
        volume[5] = delta;
        volume[7] = total.held;
    }
}

@compute @workgroup_size(64)
fn volume_apply(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c >= fine_cells() {
        return;
    }
    let x = h[c];
    let b = ground[c];
    if x > b {
        h[c] = max(x + volume[5], b);
    }
}

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x;
    if q >= ns.n_probes {
        return;
    }
    let entry = probe_cells[q];
    let c = probe_cell(entry);
    let kind = probe_kind(entry);
    var value = h[c];
    if kind == PROBE_QX || kind == PROBE_QY {
        value = unit_discharge(kind == PROBE_QX, c);
    }
    history[slot.index * ns.n_probes + q] = value;
}

// Twin of `unit_discharge`: cell c's unit discharge along x (`along_x`) or y, m²/s: the mean of
// what its two faces on that axis carry now (`face_flux`, each face's forwards less backwards),
// under the current velocities and surface, before the limiter.
fn unit_discharge(along_x: bool, c: u32) -> f32 {
    let fi = c % ns.fnx;
    let fj = c / ns.fnx;
    let near = face_flux(along_x, fi, fj);
    var far: vec2<f32>;
    if along_x {
        far = face_flux(true, fi + 1u, fj);
    } else {
        far = face_flux(false, fi, fj + 1u);
    }
    return 0.5 * ((near.x - near.y) + (far.x - far.y));
}
