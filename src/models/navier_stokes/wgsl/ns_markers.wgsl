#import ns_common
#import ns_grid
// Seed 003's marker particles (§4.1) for 2D runs of the Navier-Stokes layer (the grid one cell
// across, j = 0): massless points convected by the flow set the cells' flags, so the water can
// overturn and splash. Twin: src/cpu/ns_markers.rs, pass for pass. Per substep, in place of
// navier_stokes.wgsl's `columns`:
//   marker_clear, marker_count, marker_flags   counts per cell → Solid, Full, Surface, Empty
//                                               and the applied pressure on Surface and Empty
// and after the pressure iteration:
//   marker_extend  u carried one face into the air (cells the markers enter start with the
//                  water's horizontal velocity)
//   marker_move    each marker by the area-weighted velocity of its four nearest faces
//   marker_emit    one thread: the inflow's new markers, appended in face order (fixed order)
//   marker_top_clear, marker_top, marker_surface   the height field the outputs see
// A marker that leaves through an outflow side keeps its slot (at GONE): slots never move, so
// the order, and every output, is the same on every run.

struct MarkerParams {
    // Markers per cell side (per_cell = rows²), and the most the buffer holds.
    rows: u32,
    capacity: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(1) @binding(0) var<uniform> mp: MarkerParams;
// Each marker's (x, z): x from the west side, z relative to the reference level.
@group(1) @binding(1) var<storage, read_write> markers: array<vec2<f32>>;
// Markers per 3D cell (k·nx + i), then per height-field column the highest marker over it, as
// bits(z − z0) + 1 (0: none; `top_at`): one binding for both, so that every entry point binds
// at most WebGPU's 10 storage buffers.
@group(1) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;
// BOOK_COUNT, BOOK_REFUSED, then per layer of the inflow side the share of a marker owed (f32
// bits) and the markers brought so far.
@group(1) @binding(3) var<storage, read_write> book: array<u32>;

// Where column c's highest marker lies in `counts`: past the 3D cells' counts.
fn top_at(c: u32) -> u32 {
    return ns.nx * ns.nz + c;
}
// The velocities the substep ended with (u, v, w faces in one buffer; `marker_extend` carries
// them into the air).
@group(2) @binding(0) var<storage, read_write> vel: array<f32>;
// The height field and its ground.
@group(3) @binding(0) var<storage, read_write> h: array<f32>;
@group(3) @binding(1) var<storage, read> ground: array<f32>;

// Slots in use (markers made so far), and markers an inflow could not bring for want of room.
const BOOK_COUNT: u32 = 0u;
const BOOK_REFUSED: u32 = 1u;
// Where the inflow's per-layer words start.
const BOOK_FACES: u32 = 2u;

fn is_fluid(f: u32) -> bool {
    return f == FULL || f == SURFACE;
}

fn cell_of(m: vec2<f32>) -> vec2<u32> {
    let i = u32(clamp(floor(m.x / ns.dx), 0.0, f32(ns.nx - 1u)));
    let k = u32(clamp(floor((m.y - ns.z0) / ns.dz), 0.0, f32(ns.nz - 1u)));
    return vec2<u32>(i, k);
}

fn is_ground(i: u32, k: u32) -> bool {
    return centre(k) < column_ground(i);
}

// The farthest x and z a marker may take: a thousandth of a cell inside the east side and top.
fn edges() -> vec2<f32> {
    return vec2<f32>((f32(ns.nx) - 1e-3) * ns.dx, ns.z0 + (f32(ns.nz) - 1e-3) * ns.dz);
}

fn live(i: u32) -> bool {
    return i < book[BOOK_COUNT] && markers[i].x >= 0.0;
}

@compute @workgroup_size(64)
fn marker_clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c < ns.nx * ns.nz {
        atomicStore(&counts[c], 0u);
    }
}

@compute @workgroup_size(64)
fn marker_count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = thread_index(gid, groups);
    if i >= mp.capacity || !live(i) {
        return;
    }
    let a = cell_of(markers[i]);
    atomicAdd(&counts[a.y * ns.nx + a.x], 1u);
}

// Whether cell (i, k) is inside the grid, not ground, and holds no marker.
fn empty_at(i: i32, k: i32) -> bool {
    if i < 0 || k < 0 || i >= i32(ns.nx) || k >= i32(ns.nz) {
        return false;
    }
    return !is_ground(u32(i), u32(k)) && atomicLoad(&counts[u32(k) * ns.nx + u32(i)]) == 0u;
}

@compute @workgroup_size(64)
fn marker_flags(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c >= ns.nx * ns.nz {
        return;
    }
    let i = c % ns.nx;
    let k = c / ns.nx;
    let ii = i32(i);
    let kk = i32(k);
    var f = FULL;
    if is_ground(i, k) {
        f = SOLID;
    } else if atomicLoad(&counts[c]) == 0u {
        f = EMPTY;
    } else if empty_at(ii - 1, kk) || empty_at(ii + 1, kk) || empty_at(ii, kk - 1) || empty_at(ii, kk + 1) {
        f = SURFACE;
    }
    let at = cell(i, 0u, k);
    flag[at] = f;
    if f == SURFACE || f == EMPTY {
        p[at] = applied(forcing(), i, 0u);
    }
}

// (low, high, t) of coordinate v (in faces or centres) over n of them.
fn axis(v: f32, n: u32) -> vec3<f32> {
    let low = clamp(floor(v), 0.0, f32(n - 1u));
    let t = clamp(v - low, 0.0, 1.0);
    return vec3<f32>(low, f32(min(u32(low) + 1u, n - 1u)), t);
}

fn wet(i: i32, k: i32) -> bool {
    return i >= 0 && k >= 0 && i < i32(ns.nx) && k < i32(ns.nz) && is_fluid(flag[cell(u32(i), 0u, u32(k))]);
}

// The bilinear blend of four corners' values (low-low, high-low, low-high, high-high) at (t, s),
// over the active ones only where any is: twin of `weigh`.
fn weigh(v: vec4<f32>, counts_in: vec4<bool>, t: f32, s: f32) -> f32 {
    let weights = vec4<f32>((1.0 - t) * (1.0 - s), t * (1.0 - s), (1.0 - t) * s, t * s);
    var sum = 0.0;
    var total = 0.0;
    var all = 0.0;
    for (var c = 0u; c < 4u; c++) {
        all += weights[c] * v[c];
        if counts_in[c] {
            sum += weights[c] * v[c];
            total += weights[c];
        }
    }
    if total > 0.0 {
        return sum / total;
    }
    return all;
}

fn u_face(i: u32, k: u32) -> f32 {
    return vel[uf(i, 0u, k)];
}

fn u_active(i: u32, k: u32) -> bool {
    return wet(i32(i) - 1, i32(k)) || wet(i32(i), i32(k));
}

fn w_face(i: u32, k: u32) -> f32 {
    return vel[wf(i, 0u, k)];
}

fn w_active(i: u32, k: u32) -> bool {
    return wet(i32(i), i32(k) - 1) || wet(i32(i), i32(k));
}

// The area-weighted velocity at m (the seed's Fig. 3), faces with no fluid beside them left out:
// twin of `velocity`.
fn velocity(m: vec2<f32>) -> vec2<f32> {
    let fx = m.x / ns.dx;
    let fz = (m.y - ns.z0) / ns.dz;
    let ax = axis(fx, ns.nx + 1u);
    let az = axis(fz - 0.5, ns.nz);
    let i0 = u32(ax.x);
    let i1 = u32(ax.y);
    let k0 = u32(az.x);
    let k1 = u32(az.y);
    let u = weigh(vec4<f32>(u_face(i0, k0), u_face(i1, k0), u_face(i0, k1), u_face(i1, k1)),
                  vec4<bool>(u_active(i0, k0), u_active(i1, k0), u_active(i0, k1), u_active(i1, k1)), ax.z, az.z);
    let bx = axis(fx - 0.5, ns.nx);
    let bz = axis(fz, ns.nz + 1u);
    let j0 = u32(bx.x);
    let j1 = u32(bx.y);
    let l0 = u32(bz.x);
    let l1 = u32(bz.y);
    let w = weigh(vec4<f32>(w_face(j0, l0), w_face(j1, l0), w_face(j0, l1), w_face(j1, l1)),
                  vec4<bool>(w_active(j0, l0), w_active(j1, l0), w_active(j0, l1), w_active(j1, l1)), bx.z, bz.z);
    return vec2<f32>(u, w);
}

fn air(i: i32, k: i32) -> bool {
    return i >= 0 && k >= 0 && i < i32(ns.nx) && k < i32(ns.nz) && flag[cell(u32(i), 0u, u32(k))] == EMPTY;
}

// The horizontal velocity carried one face into the air: twin of `extend`. Thread (i, k) of the
// (nx + 1)·(nz + 1) lattice takes u face (i, k); it reads only faces touching fluid and writes
// only faces that do not.
@compute @workgroup_size(64)
fn marker_extend(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let t = thread_index(gid, groups);
    if t >= (ns.nx + 1u) * (ns.nz + 1u) {
        return;
    }
    let i = i32(t % (ns.nx + 1u));
    let k = i32(t / (ns.nx + 1u));
    let nz = i32(ns.nz);
    let nx = i32(ns.nx);
    if k < nz && i >= 1 && i < nx && air(i - 1, k) && air(i, k) {
        var sum = 0.0;
        var n = 0.0;
        for (var d = -1; d <= 1; d += 2) {
            let kk = k + d;
            if kk >= 0 && kk < nz && (wet(i - 1, kk) || wet(i, kk)) {
                sum += vel[uf(u32(i), 0u, u32(kk))];
                n += 1.0;
            }
        }
        if n > 0.0 {
            vel[uf(u32(i), 0u, u32(k))] = sum / n;
        }
    }
}

@compute @workgroup_size(64)
fn marker_move(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = thread_index(gid, groups);
    if i >= mp.capacity || !live(i) {
        return;
    }
    let m = markers[i];
    let v = velocity(m);
    let x = m.x + v.x * ns.dt;
    let z = m.y + v.y * ns.dt;
    let e = edges();
    let f = forcing();
    if (x < 0.0 && f.sides.x == SIDE_OUTFLOW) || (x > e.x && f.sides.y == SIDE_OUTFLOW) {
        markers[i] = vec2<f32>(-1.0, 0.0);
        return;
    }
    let to = vec2<f32>(clamp(x, 0.0, e.x), clamp(z, ns.z0, e.y));
    let a = cell_of(to);
    if !is_ground(a.x, a.y) {
        markers[i] = to;
    }
}

// One thread: rows² markers per cell the inflow's water fills, per face of its window, the rows
// of a face in turn, spread over the distance the water enters in the substep.
@compute @workgroup_size(1)
fn marker_emit() {
    let f = forcing();
    var side = 2u;
    if f.sides.x == SIDE_INFLOW {
        side = 0u;
    } else if f.sides.y == SIDE_INFLOW {
        side = 1u;
    }
    if side == 2u || f.inflow <= 0.0 {
        return;
    }
    let rows = mp.rows;
    let per_cell = f32(rows * rows);
    let reach = f.inflow * ns.dt;
    let width = edges().x;
    for (var k = 0u; k < ns.nz; k++) {
        if !in_window(k) {
            continue;
        }
        let owed = bitcast<f32>(book[BOOK_FACES + 2u * k]) + per_cell * reach / ns.dx;
        let n = floor(owed);
        book[BOOK_FACES + 2u * k] = bitcast<u32>(owed - n);
        for (var e = 0u; e < u32(n); e++) {
            if book[BOOK_COUNT] >= mp.capacity {
                book[BOOK_REFUSED] += 1u;
                continue;
            }
            let row = book[BOOK_FACES + 2u * k + 1u] % rows;
            book[BOOK_FACES + 2u * k + 1u] += 1u;
            let into = reach * (f32(e) + 0.5) / n;
            var x = into;
            if side == 1u {
                x = width - into;
            }
            let z = ns.z0 + (f32(k) + (f32(row) + 0.5) / f32(rows)) * ns.dz;
            markers[book[BOOK_COUNT]] = vec2<f32>(x, z);
            book[BOOK_COUNT] += 1u;
        }
    }
}

@compute @workgroup_size(64)
fn marker_top_clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c < ns.fnx {
        atomicStore(&counts[top_at(c)], 0u);
    }
}

@compute @workgroup_size(64)
fn marker_top(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = thread_index(gid, groups);
    if i >= mp.capacity || !live(i) {
        return;
    }
    let m = markers[i];
    let fine_dx = ns.dx / f32(ns.coarsen);
    let c = min(u32(floor(m.x / fine_dx)), ns.fnx - 1u);
    atomicMax(&counts[top_at(c)], bitcast<u32>(m.y - ns.z0) + 1u);
}

// The height field as the markers give it: twin of `surface`.
@compute @workgroup_size(64)
fn marker_surface(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c >= ns.fnx * ns.fny {
        return;
    }
    let t = atomicLoad(&counts[top_at(c % ns.fnx)]);
    if t == 0u {
        h[c] = ground[c];
    } else {
        let half = 0.5 * ns.dz / f32(mp.rows);
        h[c] = max((ns.z0 + bitcast<f32>(t - 1u)) + half, ground[c]);
    }
}
