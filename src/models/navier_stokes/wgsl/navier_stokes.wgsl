#import ns_common
#import ns_grid
// Foster & Metaxas's Navier-Stokes layer (seed 003, §3–4.3) on the 3D grid: `columns` (the
// columns' surface, the cell flags, the Surface and Empty pressures), `momentum` (eq. 2),
// `surface_velocities` (eq. 10) and the pressure iteration of eqs. 5–9 in red-black sweeps.
// Twin: src/cpu/navier_stokes.rs, function for function.
//
// The pressure iteration runs with no readback: each substep records `begin`, then for every
// sweep `check` (the largest |D| over the Full cells), `decide` (converged, or out of sweeps:
// the sweeps' indirect arguments become 0 workgroups) and the `red` and `black` half-sweeps, all
// dispatched indirectly. A converged substep's remaining sweeps run no workgroup.

// The velocities a substep starts from, and those it writes (u, v, w faces in one buffer).
@group(1) @binding(0) var<storage, read> vel_old: array<f32>;
@group(1) @binding(1) var<storage, read_write> vel: array<f32>;
// The height field (`columns` only), and its cells' air head p/(ρ·g) this step (`[[pressure]]`,
// m: pressure.wgsl writes it before the substeps; zeros without patches).
@group(2) @binding(0) var<storage, read> h: array<f32>;
@group(2) @binding(1) var<storage, read> air_head: array<f32>;
// Each column's drag, 1/s (`momentum`, where ns.drag < 0; one zero without): physics.damping_map's
// (one word a column), or under Manning's friction three words a column, the drag (`columns`
// sets it each substep), the damping's and n².
@group(2) @binding(2) var<storage, read_write> drag_map: array<f32>;
// The sweeps' indirect arguments (`begin` and `decide` only).
@group(3) @binding(0) var<storage, read_write> args: array<u32, 3>;

// The largest |u|·dt/dx (condition 3) of the velocities the chunk's substeps started from.
const STAT_COURANT: u32 = 0u;
// This sweep's largest |D| over the Full cells.
const STAT_WORST: u32 = 1u;
// 1 once this substep's iteration has converged or run out of sweeps.
const STAT_DONE: u32 = 2u;
// Sweeps this substep has run.
const STAT_SWEEP: u32 = 3u;
// Over the chunk: the most sweeps a substep ran, and the largest |D| one ended with.
const STAT_MOST_SWEEPS: u32 = 4u;
const STAT_RESIDUAL: u32 = 5u;

// Water thinner than this (m) has no depth-averaged velocity (`state::DRY`, the flood maps' film).
const DRY_DEPTH: f32 = 1e-4;
// The least depth (m) Manning's law divides by (the shallow-water model's `FILM`).
const FILM: f32 = 1e-5;

fn ghost_flag(i: i32, j: i32, k: i32) -> u32 {
    if i < 0 || j < 0 || k < 0 || i >= i32(ns.nx) || j >= i32(ns.ny) || k >= i32(ns.nz) {
        return SOLID;
    }
    return flag[cell(u32(i), u32(j), u32(k))];
}

fn is_fluid(f: u32) -> bool {
    return f == FULL || f == SURFACE;
}

// ---- columns: twin of `columns` (coarse_mean, set_flags, surface_pressure) ----

@compute @workgroup_size(64)
fn columns(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = thread_index(gid, groups);
    if c >= columns_3d() {
        return;
    }
    let i = c % ns.nx;
    let j = c / ns.nx;
    let cz = ns.coarsen;
    var sum = 0.0;
    var head = 0.0;
    for (var fj = j * cz; fj < (j + 1u) * cz; fj++) {
        for (var fi = i * cz; fi < (i + 1u) * cz; fi++) {
            sum += h[fj * ns.fnx + fi];
            head += air_head[fj * ns.fnx + fi];
        }
    }
    let hc = sum / f32(cz * cz);
    col[c] = hc;
    let ground = col[columns_3d() + c];
    // The first cell above the ground, and the cell the surface passes through (none: dry).
    var floor_k = ns.nz;
    for (var k = 0u; k < ns.nz; k++) {
        if centre(k) >= ground {
            floor_k = k;
            break;
        }
    }
    let top_f = floor((hc - ns.z0) / ns.dz);
    var top = -1;
    if top_f >= 0.0 {
        let t = min(u32(top_f), ns.nz - 1u);
        // A film thinner than DRY_DEPTH is dry to the 3D grid (twin: `surface_cell`).
        if t >= floor_k && hc > ground + DRY_DEPTH {
            top = i32(t);
        }
    }
    for (var k = 0u; k < ns.nz; k++) {
        var f = EMPTY;
        if k < floor_k {
            f = SOLID;
        } else if i32(k) < top {
            f = FULL;
        } else if i32(k) == top {
            f = SURFACE;
        }
        flag[c + k * columns_3d()] = f;
    }
    if ns.manning != 0u {
        drag_map[c] = manning_rate(c, i, j, hc, ground);
    }
    // A Surface cell's pressure: the line from the Full cell under it to the applied pressure at
    // the surface (`ghost_share`), or hydrostatic where none is under it; Empty cells the applied.
    let n = columns_3d();
    let air = applied(forcing(), i, j) + ns.g * (head / f32(cz * cz));
    for (var k = 0u; k < ns.nz; k++) {
        let at = c + k * n;
        let f = flag[at];
        if f == SURFACE {
            if k > 0u && flag[at - n] == FULL {
                let theta = (hc - centre(k)) / (hc - centre(k - 1u));
                p[at] = air + theta * (p[at - n] - air);
            } else {
                p[at] = air + ns.g * (hc - centre(k));
            }
        } else if f == EMPTY {
            p[at] = air;
        }
    }
}

// Twin of `manning_rate`: column c's drag under Manning's friction, its damping's plus
// g·n²·|U|/d^(4/3), U its depth-averaged velocity (the fluid cells' centred velocities of the
// substep's start, weighted by the water each holds under the surface hc), d its depth (at least
// the shallow-water model's film). Reads only its own column's flags, which `columns` has set.
fn manning_rate(c: u32, i: u32, j: u32, hc: f32, ground: f32) -> f32 {
    let n = columns_3d();
    let base = drag_map[n + c];
    let depth = hc - ground;
    if depth <= DRY_DEPTH {
        return base;
    }
    var sum = vec2<f32>(0.0, 0.0);
    var wet = 0.0;
    for (var k = 0u; k < ns.nz; k++) {
        let share = wet_in(k, hc);
        if share > 0.0 && is_fluid(flag[c + k * n]) {
            let u = 0.5 * (vel_old[uf(i, j, k)] + vel_old[uf(i + 1u, j, k)]);
            let v = 0.5 * (vel_old[vf(i, j, k)] + vel_old[vf(i, j + 1u, k)]);
            sum += share * vec2<f32>(u, v);
            wet += share;
        }
    }
    if wet <= 0.0 {
        return base;
    }
    let mean = sum / wet;
    return base + ns.g * drag_map[2u * n + c] * sqrt(mean.x * mean.x + mean.y * mean.y)
        / pow(max(depth, FILM), 4.0 / 3.0);
}

// ---- momentum: twin of `momentum` ----

// Twin of `Old::in_air`: under the height field, a face between two Empty cells lies in the air,
// and a neighbour there reads as the face itself (no stress at the free surface).
fn in_air(a: u32, b: u32) -> bool {
    return ns.markers == 0u && a == EMPTY && b == EMPTY;
}

// Twin of `Old::fill`: how much of cell (i, j, k) holds water (Surface: under its column's surface).
fn fill(i: i32, j: i32, k: i32) -> f32 {
    let f = ghost_flag(i, j, k);
    if f == FULL {
        return 1.0;
    }
    if f == SURFACE {
        return wet_in(u32(k), col[u32(j) * ns.nx + u32(i)]) / ns.dz;
    }
    return 0.0;
}

// The mean fill of the u (`along_x`) or v face (i, j, k)'s two cells.
fn face_fill(i: i32, j: i32, k: i32, along_x: bool) -> f32 {
    if along_x {
        return 0.5 * (fill(i - 1, j, k) + fill(i, j, k));
    }
    return 0.5 * (fill(i, j - 1, k) + fill(i, j, k));
}

// Twin of `Old::overflow`: what the u (`along_x`) or v face (i, j, k)'s layers above k pour from
// the deeper column into the other's Surface cell at layer k: (mass, its mean velocity).
fn overflow(i: i32, j: i32, k: i32, along_x: bool) -> vec2<f32> {
    let bi = select(i, i - 1, along_x);
    let bj = select(j - 1, j, along_x);
    var mass = 0.0;
    var momentum = 0.0;
    for (var kk = k + 1; kk < i32(ns.nz); kk++) {
        var u = 0.0;
        if along_x {
            u = u_at(i, j, kk, 0.0);
        } else {
            u = v_at(i, j, kk, 0.0);
        }
        let forwards = u > 0.0;
        let gi = select(i, bi, forwards);
        let gj = select(j, bj, forwards);
        let ti = select(bi, i, forwards);
        let tj = select(bj, j, forwards);
        if ghost_flag(ti, tj, k) == SURFACE && ghost_flag(ti, tj, kk) == EMPTY && is_fluid(ghost_flag(gi, gj, kk)) {
            let m = ns.dt * abs(u) * fill(gi, gj, kk) / ns.dx;
            mass += m;
            momentum += m * u;
        }
    }
    if mass > 0.0 {
        return vec2<f32>(mass, momentum / mass);
    }
    return vec2<f32>(mass, 0.0);
}

// Twin of `mixed`: a partly filled face's donor-cell advection, the mass-weighted mean of its own
// velocity `c` over its water `fill0` and each inflow's (mass, velocity).
fn mixed(fill0: f32, c: f32, inflows: array<vec2<f32>, 7>) -> f32 {
    var list = inflows;
    var mass = fill0;
    var momentum = fill0 * c;
    for (var n = 0u; n < 7u; n++) {
        mass += list[n].x;
        momentum += list[n].x * list[n].y;
    }
    if mass > 0.0 {
        return momentum / mass;
    }
    return c;
}

// A face velocity of the old field, with free-slip ghosts: past the domain, `own`.
fn u_at(i: i32, j: i32, k: i32, own: f32) -> f32 {
    if i < 0 || j < 0 || k < 0 || i > i32(ns.nx) || j >= i32(ns.ny) || k >= i32(ns.nz) {
        return own;
    }
    if in_air(ghost_flag(i - 1, j, k), ghost_flag(i, j, k)) {
        return own;
    }
    return vel_old[uf(u32(i), u32(j), u32(k))];
}

fn v_at(i: i32, j: i32, k: i32, own: f32) -> f32 {
    if i < 0 || j < 0 || k < 0 || i >= i32(ns.nx) || j > i32(ns.ny) || k >= i32(ns.nz) {
        return own;
    }
    if in_air(ghost_flag(i, j - 1, k), ghost_flag(i, j, k)) {
        return own;
    }
    return vel_old[vf(u32(i), u32(j), u32(k))];
}

fn w_at(i: i32, j: i32, k: i32, own: f32) -> f32 {
    if i < 0 || j < 0 || k < 0 || i >= i32(ns.nx) || j >= i32(ns.ny) || k > i32(ns.nz) {
        return own;
    }
    if in_air(ghost_flag(i, j, k - 1), ghost_flag(i, j, k)) {
        return own;
    }
    return vel_old[wf(u32(i), u32(j), u32(k))];
}

fn pressure_at(i: i32, j: i32, k: i32) -> f32 {
    return p[cell(u32(i), u32(j), u32(k))];
}

fn moves(a: u32, b: u32) -> bool {
    return a != SOLID && b != SOLID && (is_fluid(a) || is_fluid(b));
}

// What an edge moving at `a` carries of a component `l` before it and `r` after it: eq. 2's
// centred product blended with the donor cell's by γ.
fn carried(a: f32, l: f32, r: f32) -> f32 {
    return 0.5 * a * (l + r) + 0.5 * ns.upwind * abs(a) * (l - r);
}

fn new_u(i: i32, j: i32, k: i32) -> f32 {
    let dx = ns.dx;
    let dz = ns.dz;
    let c = vel_old[uf(u32(i), u32(j), u32(k))];
    let ue = u_at(i + 1, j, k, c);
    let uw = u_at(i - 1, j, k, c);
    let un = u_at(i, j + 1, k, c);
    let us = u_at(i, j - 1, k, c);
    let ut = u_at(i, j, k + 1, c);
    let ub = u_at(i, j, k - 1, c);
    let uc_e = 0.5 * (c + ue);
    let uc_w = 0.5 * (uw + c);
    let vn = 0.5 * (v_at(i - 1, j + 1, k, 0.0) + v_at(i, j + 1, k, 0.0));
    let vs = 0.5 * (v_at(i - 1, j, k, 0.0) + v_at(i, j, k, 0.0));
    let wt = 0.5 * (w_at(i - 1, j, k + 1, 0.0) + w_at(i, j, k + 1, 0.0));
    let wb = 0.5 * (w_at(i - 1, j, k, 0.0) + w_at(i, j, k, 0.0));
    let advect = (carried(uc_w, uw, c) - carried(uc_e, c, ue)) / dx
        + (carried(vs, us, c) - carried(vn, c, un)) / dx
        + (carried(wb, ub, c) - carried(wt, c, ut)) / dz;
    let diffuse = ns.nu * ((ue - 2.0 * c + uw) / (dx * dx) + (un - 2.0 * c + us) / (dx * dx)
        + (ut - 2.0 * c + ub) / (dz * dz));
    let column = u32(j) * ns.nx + u32(i);
    let press = (pressure_at(i - 1, j, k) - pressure_at(i, j, k)) / dx;
    let own_fill = face_fill(i, j, k, true);
    if ns.markers == 0u && own_fill < 1.0 {
        let dt = ns.dt;
        let inflows = array<vec2<f32>, 7>(
            vec2<f32>(dt * max(uc_w, 0.0) * fill(i - 1, j, k) / dx, uw),
            vec2<f32>(dt * max(-uc_e, 0.0) * fill(i, j, k) / dx, ue),
            vec2<f32>(dt * max(vs, 0.0) * face_fill(i, j - 1, k, true) / dx, us),
            vec2<f32>(dt * max(-vn, 0.0) * face_fill(i, j + 1, k, true) / dx, un),
            vec2<f32>(dt * max(wb, 0.0) * face_fill(i, j, k - 1, true) / dz, ub),
            vec2<f32>(dt * max(-wt, 0.0) * face_fill(i, j, k + 1, true) / dz, ut),
            overflow(i, j, k, true));
        return dragged(mixed(own_fill, c, inflows) + ns.dt * (press + diffuse), column - 1u, column);
    }
    return dragged(c + ns.dt * (advect + press + diffuse), column - 1u, column);
}

fn new_v(i: i32, j: i32, k: i32) -> f32 {
    let dx = ns.dx;
    let dz = ns.dz;
    let c = vel_old[vf(u32(i), u32(j), u32(k))];
    let vn = v_at(i, j + 1, k, c);
    let vs = v_at(i, j - 1, k, c);
    let ve = v_at(i + 1, j, k, c);
    let vw = v_at(i - 1, j, k, c);
    let vt = v_at(i, j, k + 1, c);
    let vb = v_at(i, j, k - 1, c);
    let vc_n = 0.5 * (c + vn);
    let vc_s = 0.5 * (vs + c);
    let ue = 0.5 * (u_at(i + 1, j - 1, k, 0.0) + u_at(i + 1, j, k, 0.0));
    let uw = 0.5 * (u_at(i, j - 1, k, 0.0) + u_at(i, j, k, 0.0));
    let wt = 0.5 * (w_at(i, j - 1, k + 1, 0.0) + w_at(i, j, k + 1, 0.0));
    let wb = 0.5 * (w_at(i, j - 1, k, 0.0) + w_at(i, j, k, 0.0));
    let advect = (carried(vc_s, vs, c) - carried(vc_n, c, vn)) / dx
        + (carried(uw, vw, c) - carried(ue, c, ve)) / dx
        + (carried(wb, vb, c) - carried(wt, c, vt)) / dz;
    let diffuse = ns.nu * ((ve - 2.0 * c + vw) / (dx * dx) + (vn - 2.0 * c + vs) / (dx * dx)
        + (vt - 2.0 * c + vb) / (dz * dz));
    let column = u32(j) * ns.nx + u32(i);
    let press = (pressure_at(i, j - 1, k) - pressure_at(i, j, k)) / dx;
    let own_fill = face_fill(i, j, k, false);
    if ns.markers == 0u && own_fill < 1.0 {
        let dt = ns.dt;
        let inflows = array<vec2<f32>, 7>(
            vec2<f32>(dt * max(vc_s, 0.0) * fill(i, j - 1, k) / dx, vs),
            vec2<f32>(dt * max(-vc_n, 0.0) * fill(i, j, k) / dx, vn),
            vec2<f32>(dt * max(uw, 0.0) * face_fill(i - 1, j, k, false) / dx, vw),
            vec2<f32>(dt * max(-ue, 0.0) * face_fill(i + 1, j, k, false) / dx, ve),
            vec2<f32>(dt * max(wb, 0.0) * face_fill(i, j, k - 1, false) / dz, vb),
            vec2<f32>(dt * max(-wt, 0.0) * face_fill(i, j, k + 1, false) / dz, vt),
            overflow(i, j, k, false));
        return dragged(mixed(own_fill, c, inflows) + ns.dt * (press + diffuse), column - ns.nx, column);
    }
    return dragged(c + ns.dt * (advect + press + diffuse), column - ns.nx, column);
}

fn new_w(i: i32, j: i32, k: i32) -> f32 {
    let dx = ns.dx;
    let dz = ns.dz;
    let c = vel_old[wf(u32(i), u32(j), u32(k))];
    let wt = w_at(i, j, k + 1, c);
    let wb = w_at(i, j, k - 1, c);
    let we = w_at(i + 1, j, k, c);
    let ww = w_at(i - 1, j, k, c);
    let wn = w_at(i, j + 1, k, c);
    let ws = w_at(i, j - 1, k, c);
    let wc_t = 0.5 * (c + wt);
    let wc_b = 0.5 * (wb + c);
    let ue = 0.5 * (u_at(i + 1, j, k - 1, 0.0) + u_at(i + 1, j, k, 0.0));
    let uw = 0.5 * (u_at(i, j, k - 1, 0.0) + u_at(i, j, k, 0.0));
    let vn = 0.5 * (v_at(i, j + 1, k - 1, 0.0) + v_at(i, j + 1, k, 0.0));
    let vs = 0.5 * (v_at(i, j, k - 1, 0.0) + v_at(i, j, k, 0.0));
    let advect = (carried(wc_b, wb, c) - carried(wc_t, c, wt)) / dz
        + (carried(uw, ww, c) - carried(ue, c, we)) / dx
        + (carried(vs, ws, c) - carried(vn, c, wn)) / dx;
    let diffuse = ns.nu * ((we - 2.0 * c + ww) / (dx * dx) + (wn - 2.0 * c + ws) / (dx * dx)
        + (wt - 2.0 * c + wb) / (dz * dz));
    let column = u32(j) * ns.nx + u32(i);
    return dragged(c + ns.dt * (advect - ns.g + (pressure_at(i, j, k - 1) - pressure_at(i, j, k)) / dz + diffuse),
        column, column);
}

// Twin: `dragged`. A tentative velocity under physics.damping's drag, implicit (÷ 1 + dt·drag);
// as it is without damping. Under physics.damping_map (ns.drag < 0) a face between columns `a`
// and `b` takes the mean of their drags.
fn dragged(v: f32, a: u32, b: u32) -> f32 {
    if ns.drag == 0.0 {
        return v;
    }
    var rate = ns.drag;
    if ns.drag < 0.0 {
        rate = 0.5 * (drag_map[a] + drag_map[b]);
    }
    return v / (1.0 + ns.dt * rate);
}

// A side face's velocity into the domain's +axis direction (`inward` ±1): twin of `side_velocity`.
fn side_velocity(k: i32, role: u32, fluid_inside: bool, inward: f32, f: NsSubstep, inner: f32) -> f32 {
    if !fluid_inside {
        return 0.0;
    }
    if role == SIDE_INFLOW {
        if !in_window(u32(k)) {
            return 0.0;
        }
        return inward * f.inflow;
    }
    if role == SIDE_OUTFLOW {
        return inner;
    }
    return 0.0;
}

// The tentative u of face (i, j, k), 0 where it does not move (no side face).
fn tentative_u(i: i32, j: i32, k: i32) -> f32 {
    if i > 0 && i < i32(ns.nx) && moves(ghost_flag(i - 1, j, k), ghost_flag(i, j, k)) {
        return new_u(i, j, k);
    }
    return 0.0;
}

fn tentative_v(i: i32, j: i32, k: i32) -> f32 {
    if j > 0 && j < i32(ns.ny) && moves(ghost_flag(i, j - 1, k), ghost_flag(i, j, k)) {
        return new_v(i, j, k);
    }
    return 0.0;
}

var<workgroup> fastest: atomic<u32>;

// One thread per point (i, j, k) of the (nx + 1)·(ny + 1)·(nz + 1) lattice: the u, v and w faces
// that carry its index. Faces on the domain's sides and on a solid cell are 0.
@compute @workgroup_size(64)
fn momentum(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
            @builtin(local_invocation_index) l: u32) {
    if l == 0u {
        atomicStore(&fastest, 0u);
    }
    workgroupBarrier();
    let at = thread_index(gid, groups);
    let ex = ns.nx + 1u;
    let ey = ns.ny + 1u;
    var courant = 0.0;
    if at < ex * ey * (ns.nz + 1u) {
        let i = i32(at % ex);
        let j = i32((at / ex) % ey);
        let k = i32(at / (ex * ey));
        let nx = i32(ns.nx);
        let ny = i32(ns.ny);
        let nz = i32(ns.nz);
        let f = forcing();
        if j < ny && k < nz {
            let face = uf(u32(i), u32(j), u32(k));
            courant = max(courant, abs(vel_old[face]) * ns.dt / ns.dx);
            var u = tentative_u(i, j, k);
            if i == 0 || i == nx {
                // A side: west (inward +x) or east.
                let west = i == 0;
                let inside = select(nx - 1, 0, west);
                let inner = tentative_u(select(nx - 1, 1, west), j, k);
                let role = select(f.sides.y, f.sides.x, west);
                u = side_velocity(k, role, is_fluid(ghost_flag(inside, j, k)), select(-1.0, 1.0, west), f, inner);
            }
            vel[face] = u;
        }
        if i < nx && k < nz {
            let face = vf(u32(i), u32(j), u32(k));
            courant = max(courant, abs(vel_old[face]) * ns.dt / ns.dx);
            var v = tentative_v(i, j, k);
            if j == 0 || j == ny {
                let south = j == 0;
                let inside = select(ny - 1, 0, south);
                let inner = tentative_v(i, select(ny - 1, 1, south), k);
                let role = select(f.sides.w, f.sides.z, south);
                v = side_velocity(k, role, is_fluid(ghost_flag(i, inside, k)), select(-1.0, 1.0, south), f, inner);
            }
            vel[face] = v;
        }
        if i < nx && j < ny {
            let face = wf(u32(i), u32(j), u32(k));
            courant = max(courant, abs(vel_old[face]) * ns.dt / ns.dz);
            var w = 0.0;
            if k > 0 && k < nz && moves(ghost_flag(i, j, k - 1), ghost_flag(i, j, k)) {
                w = new_w(i, j, k);
            }
            vel[face] = w;
        }
    }
    // max() drops a NaN on some devices: a NaN's bits (above infinity's) go in directly.
    var bits = bitcast<u32>(courant);
    if at < ex * ey * (ns.nz + 1u) {
        bits = max(bits, nan_bits(at, ex, ey));
    }
    atomicMax(&fastest, bits);
    workgroupBarrier();
    if l == 0u {
        atomicMax(&stats[STAT_COURANT], atomicLoad(&fastest));
    }
}

// 0x7fc00000 where one of the point's old faces is not a number, else 0.
fn nan_bits(at: u32, ex: u32, ey: u32) -> u32 {
    let i = at % ex;
    let j = (at / ex) % ey;
    let k = at / (ex * ey);
    var bad = false;
    if j < ns.ny && k < ns.nz {
        bad = bad || is_nan(vel_old[uf(i, j, k)]);
    }
    if i < ns.nx && k < ns.nz {
        bad = bad || is_nan(vel_old[vf(i, j, k)]);
    }
    if i < ns.nx && j < ns.ny {
        bad = bad || is_nan(vel_old[wf(i, j, k)]);
    }
    return select(0u, 0x7fc00000u, bad);
}

// By the bits: a compiler may assume x == x.
fn is_nan(x: f32) -> bool {
    let b = bitcast<u32>(x);
    return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u;
}

// ---- surface_velocities: twin of `surface_velocities` ----

fn divergence(i: u32, j: u32, k: u32) -> f32 {
    return -((vel[uf(i + 1u, j, k)] - vel[uf(i, j, k)]) / ns.dx
        + (vel[vf(i, j + 1u, k)] - vel[vf(i, j, k)]) / ns.dx
        + (vel[wf(i, j, k + 1u)] - vel[wf(i, j, k)]) / ns.dz);
}

// The low and high faces of cell (i, j, k) along axis 0 (z), 1 (x) or 2 (y).
fn axis_faces(axis: u32, i: u32, j: u32, k: u32) -> vec2<u32> {
    if axis == 0u {
        return vec2<u32>(wf(i, j, k), wf(i, j, k + 1u));
    } else if axis == 1u {
        return vec2<u32>(uf(i, j, k), uf(i + 1u, j, k));
    }
    return vec2<u32>(vf(i, j, k), vf(i, j + 1u, k));
}

fn axis_size(axis: u32) -> f32 {
    return select(ns.dx, ns.dz, axis == 0u);
}

// Each Surface cell's faces open to Empty cells (no two Surface cells share such a face, so the
// cells' order is free, as on the CPU).
@compute @workgroup_size(64)
fn surface_velocities(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let at = thread_index(gid, groups);
    if at >= columns_3d() * ns.nz || flag[at] != SURFACE {
        return;
    }
    let i = at % ns.nx;
    let j = (at / ns.nx) % ns.ny;
    let k = at / columns_3d();
    let ii = i32(i);
    let jj = i32(j);
    let kk = i32(k);
    // Per axis (z, x, y): whether the low and the high side are open (Empty).
    var lo = array<bool, 3>(ghost_flag(ii, jj, kk - 1) == EMPTY, ghost_flag(ii - 1, jj, kk) == EMPTY,
                            ghost_flag(ii, jj - 1, kk) == EMPTY);
    var hi = array<bool, 3>(ghost_flag(ii, jj, kk + 1) == EMPTY, ghost_flag(ii + 1, jj, kk) == EMPTY,
                            ghost_flag(ii, jj + 1, kk) == EMPTY);
    for (var a = 0u; a < 3u; a++) {
        if lo[a] != hi[a] {
            let f = axis_faces(a, i, j, k);
            if hi[a] {
                vel[f.y] = vel[f.x];
            } else {
                vel[f.x] = vel[f.y];
            }
        }
    }
    let rest = divergence(i, j, k);
    var one_sided = 3u;
    var both = 3u;
    for (var a = 0u; a < 3u; a++) {
        if lo[a] != hi[a] && one_sided == 3u {
            one_sided = a;
        }
        if lo[a] && hi[a] && both == 3u {
            both = a;
        }
    }
    if one_sided < 3u {
        let f = axis_faces(one_sided, i, j, k);
        let size = axis_size(one_sided);
        if lo[one_sided] {
            vel[f.x] -= rest * size;
        } else {
            vel[f.y] += rest * size;
        }
    } else if both < 3u {
        let f = axis_faces(both, i, j, k);
        let size = axis_size(both);
        vel[f.x] -= 0.5 * rest * size;
        vel[f.y] += 0.5 * rest * size;
    }
}

// ---- the pressure iteration: twin of `pressure` ----

// One thread: a substep's iteration starts, over every cell.
@compute @workgroup_size(1)
fn begin() {
    args[0] = ns.cell_groups_x;
    args[1] = ns.cell_groups_y;
    args[2] = 1u;
    atomicStore(&stats[STAT_WORST], 0u);
    atomicStore(&stats[STAT_DONE], 0u);
    atomicStore(&stats[STAT_SWEEP], 0u);
    atomicAdd(&stats[STAT_SUBSTEP], 1u);
}

var<workgroup> worst_here: atomic<u32>;

// The largest |D| over the Full cells, into STAT_WORST.
@compute @workgroup_size(64)
fn check(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
         @builtin(local_invocation_index) l: u32) {
    if l == 0u {
        atomicStore(&worst_here, 0u);
    }
    workgroupBarrier();
    let at = thread_index(gid, groups);
    if at < columns_3d() * ns.nz && flag[at] == FULL {
        let i = at % ns.nx;
        let j = (at / ns.nx) % ns.ny;
        let k = at / columns_3d();
        atomicMax(&worst_here, bitcast<u32>(abs(divergence(i, j, k))));
    }
    workgroupBarrier();
    if l == 0u {
        atomicMax(&stats[STAT_WORST], atomicLoad(&worst_here));
    }
}

// One thread, after each `check`: stop when every Full cell's |D| < ε or the budget is spent
// (the rest of the substep's sweeps then have no workgroups), else count a sweep.
@compute @workgroup_size(1)
fn decide() {
    if atomicLoad(&stats[STAT_DONE]) != 0u {
        return;
    }
    let worst = atomicLoad(&stats[STAT_WORST]);
    let sweep = atomicLoad(&stats[STAT_SWEEP]);
    if bitcast<f32>(worst) < ns.epsilon || sweep == ns.budget {
        atomicStore(&stats[STAT_DONE], 1u);
        args[0] = 0u;
        args[1] = 0u;
        atomicMax(&stats[STAT_MOST_SWEEPS], sweep);
        atomicMax(&stats[STAT_RESIDUAL], worst);
    } else {
        atomicStore(&stats[STAT_SWEEP], sweep + 1u);
        atomicStore(&stats[STAT_WORST], 0u);
    }
}

// Whether the neighbour (i, j, k) of a Full cell takes part in its pressure update: a cell inside
// that is not Solid, or past an outflow side. Twin of `open_at`.
fn open_at(i: i32, j: i32, k: i32, sides: vec4<u32>) -> bool {
    let layer = k >= 0 && k < i32(ns.nz);
    if i < 0 {
        return sides.x == SIDE_OUTFLOW && layer;
    }
    if i >= i32(ns.nx) {
        return sides.y == SIDE_OUTFLOW && layer;
    }
    if j < 0 {
        return sides.z == SIDE_OUTFLOW && layer;
    }
    if j >= i32(ns.ny) {
        return sides.w == SIDE_OUTFLOW && layer;
    }
    return ghost_flag(i, j, k) != SOLID;
}

// Eqs. 6–9 for the Full cells of one colour ((i + j + k) even: red; odd: black). No two cells of
// a colour share a face, and a Surface cell's pressure follows only the Full cell under it.
fn relax(at: u32, colour: u32) {
    if at >= columns_3d() * ns.nz || flag[at] != FULL {
        return;
    }
    let i = at % ns.nx;
    let j = (at / ns.nx) % ns.ny;
    let k = at / columns_3d();
    if (i + j + k) % 2u != colour {
        return;
    }
    let beta = ns.beta0 / (2.0 * ns.dt * (2.0 / (ns.dx * ns.dx) + 1.0 / (ns.dz * ns.dz)));
    let dp = beta * divergence(i, j, k);
    let ii = i32(i);
    let jj = i32(j);
    let kk = i32(k);
    let sx = ns.dt / ns.dx * dp;
    let sz = ns.dt / ns.dz * dp;
    let sides = forcing().sides;
    if open_at(ii + 1, jj, kk, sides) {
        vel[uf(i + 1u, j, k)] += sx;
    }
    if open_at(ii - 1, jj, kk, sides) {
        vel[uf(i, j, k)] -= sx;
    }
    if open_at(ii, jj + 1, kk, sides) {
        vel[vf(i, j + 1u, k)] += sx;
    }
    if open_at(ii, jj - 1, kk, sides) {
        vel[vf(i, j, k)] -= sx;
    }
    let above = ghost_flag(ii, jj, kk + 1);
    if above != SOLID {
        if above == SURFACE && ns.markers == 0u {
            // Under a Surface cell, whose pressure follows this one's by θ (`ghost_share`; with
            // markers a Surface cell keeps the applied pressure).
            let hc = col[j * ns.nx + i];
            let theta = (hc - centre(k + 1u)) / (hc - centre(k));
            vel[wf(i, j, k + 1u)] += (1.0 - theta) * sz;
            p[at + columns_3d()] += theta * dp;
        } else {
            vel[wf(i, j, k + 1u)] += sz;
        }
    }
    if ghost_flag(ii, jj, kk - 1) != SOLID {
        vel[wf(i, j, k)] -= sz;
    }
    p[at] += dp;
}

@compute @workgroup_size(64)
fn red(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    relax(thread_index(gid, groups), 0u);
}

@compute @workgroup_size(64)
fn black(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    relax(thread_index(gid, groups), 1u);
}
