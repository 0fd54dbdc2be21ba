#import bodies_common
// Two-way coupling through a virtual height (GAMES103 "Virtual Height" and "Poisson's Equation").
//
// The tagged cells (bodies.wgsl `footprint`) hold water above a body's underside that the body
// must expel: b_i = h_i − held_i − bottom_i (the surface less the body's own volume in it). The virtual height v solves the masked Poisson system
//   Σ_open faces (v_i − v_n) = b_i  on tagged cells,  v = 0 elsewhere,
// every face of weight 1, the domain's sides Neumann (no face). A face is open when its far cell
// is tagged, wet, or stands lower than the water to expel: water is never pushed up onto a dry
// bank. Then every cell moves γ·Σ_open faces (v_n − v_i): the flux of v through each face, the
// same number with opposite signs on its two sides, so the correction only moves water. With the
// exact v a tagged cell loses γ·b_i; γ < 1 spreads the expulsion over a few steps. The change is
// added to the per-step change too, as GAMES103 sets h_old ← h after the correction: the water
// leaves with the momentum the body gave it.
//
// Both solvers run over the box of the tagged cells and their neighbours (`plan`), with no
// readback, in one of two ways that `plan` picks each step:
//   - A box of at most SOLO cells (a body or a few close together): `solo`, one workgroup that
//     keeps its cells in registers and the box's v in workgroup memory, runs the whole solve and
//     the correction in one dispatch, and stops iterating at convergence.
//   - A larger box: one dispatch per pass over the box, dispatched indirectly:
//     - Jacobi: a fixed even number of sweeps, ping-ponging v between `x` and `p`.
//     - PCG with the diagonal preconditioner: dot products by workgroup trees and one workgroup
//       that folds their partials in a fixed order; when |r|² ≤ tol²·|b|², `beta` zeroes the
//       indirect arguments and the remaining iterations dispatch no work.
// Both do the same arithmetic per cell; PCG's dot products sum in a different order in each.
// Twin: src/cpu/coupling.rs.

@group(0) @binding(1) var<uniform> bp: BodyParams;
@group(0) @binding(2) var<storage, read> ground: array<f32>;
@group(0) @binding(3) var<storage, read> cover: array<Cover>;
// Per cell: (b, x, r, p); x holds v. Written in the box only.
@group(0) @binding(4) var<storage, read_write> vecs: array<vec4<f32>>;
// Per cell, PCG's (p, q) of this iteration: the direction the product made and A·p.
@group(0) @binding(5) var<storage, read_write> pq: array<vec2<f32>>;
@group(0) @binding(6) var<storage, read_write> partials: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read_write> solve: Solve;
// Per cell of the box, bit f set for each open face f (west, east, south, north): of a tagged
// cell, the faces it expels through; of an untagged one, the faces tagged cells expel into it.
// Fixed by `start`, so no later pass reads eta while `apply` writes it.
@group(0) @binding(8) var<storage, read_write> faces: array<u32>;

@group(1) @binding(0) var<storage, read_write> eta: array<f32>;
@group(1) @binding(1) var<storage, read_write> vel: array<f32>;

// The indirect arguments: [0..3) the box, [3..6) the box while PCG runs, [6..9) `solo` (one
// workgroup or none). Bound only to the one-workgroup passes that write them (a dispatch cannot
// read its own arguments' buffer as storage); those run every iteration and return at once once
// PCG has converged or `solo` has taken the step.
@group(2) @binding(0) var<storage, read_write> args: array<u32, 9>;

const WG: u32 = 256u;

var<workgroup> s_dot: array<vec2<f32>, WG>;
var<workgroup> s_converged: u32;

fn neighbour(i: u32, j: u32, f: u32) -> vec2<u32> {
    switch f {
        case 0u: { return vec2<u32>(i - 1u, j); }
        case 1u: { return vec2<u32>(i + 1u, j); }
        case 2u: { return vec2<u32>(i, j - 1u); }
        default: { return vec2<u32>(i, j + 1u); }
    }
}

fn has_neighbour(i: u32, j: u32, f: u32) -> bool {
    switch f {
        case 0u: { return i > 0u; }
        case 1u: { return i + 1u < params.nx; }
        case 2u: { return j > 0u; }
        default: { return j + 1u < params.ny; }
    }
}

// Whether tagged cell c can push water into its neighbour n.
fn open(c: u32, n: u32) -> bool {
    return is_tagged(cover[n]) || eta[n] > ground[n] || ground[n] < eta[c];
}

// The open faces of cell (i, j) (see `faces`).
fn face_mask(i: u32, j: u32) -> u32 {
    let c = cell(i, j);
    let tagged = is_tagged(cover[c]);
    var mask = 0u;
    for (var f = 0u; f < 4u; f = f + 1u) {
        if has_neighbour(i, j, f) {
            let n = neighbour(i, j, f);
            let cn = cell(n.x, n.y);
            if (tagged && open(c, cn)) || (!tagged && is_tagged(cover[cn]) && open(cn, c)) {
                mask = mask | (1u << f);
            }
        }
    }
    return mask;
}

// The diagonal of cell c: its open faces if tagged (0: nothing to solve there), else 0.
fn diagonal(c: u32) -> f32 {
    return select(0.0, f32(countOneBits(faces[c])), is_tagged(cover[c]));
}

// Σ over cell c's open faces to tagged neighbours of component `k` of vecs.
fn neighbours_sum(i: u32, j: u32, mask: u32, k: u32) -> f32 {
    var s = 0.0;
    for (var f = 0u; f < 4u; f = f + 1u) {
        if (mask & (1u << f)) != 0u {
            let n = neighbour(i, j, f);
            let cn = cell(n.x, n.y);
            if is_tagged(cover[cn]) {
                s = s + vecs[cn][k];
            }
        }
    }
    return s;
}

// The cell of this invocation in the box, or false past its end.
fn box_cell(gid: vec3<u32>) -> vec3<u32> {
    let i = solve.origin_i + gid.x;
    let j = solve.origin_j + gid.y;
    return vec3<u32>(i, j, select(0u, 1u, i <= solve.end_i && j <= solve.end_j));
}

// What a box pass that sums dot products knows of its invocation.
struct BoxLane {
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
}

// The workgroup's lanes' values, folded by a tree into s_dot[0] (seen by every lane after it).
fn tree(t: u32, value: vec2<f32>) {
    s_dot[t] = value;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if t < stride {
            s_dot[t] = s_dot[t] + s_dot[t + stride];
        }
        workgroupBarrier();
    }
}

// Folds each lane's (a, b) and writes the workgroup's partial.
fn partial(lane: BoxLane, value: vec2<f32>) {
    tree(lane.t, value);
    if lane.t == 0u {
        partials[lane.wid.x + lane.wid.y * lane.groups.x] = s_dot[0];
    }
}

// Folds the partials in a fixed order (lane t takes every WG-th), then a tree.
fn total(t: u32) -> vec2<f32> {
    var s = vec2<f32>(0.0);
    for (var p = t; p < solve.groups; p = p + WG) {
        s = s + partials[p];
    }
    tree(t, s);
    return s_dot[0];
}

// Whether the solve has converged, as one value for the whole workgroup: WGSL counts a load of
// read-write storage as non-uniform, and the folds after it wait at barriers, which only
// uniform control flow may reach (Tint, and so Chrome, refuses the shader otherwise).
fn converged(t: u32) -> bool {
    if t == 0u {
        s_converged = solve.converged;
    }
    return workgroupUniformLoad(&s_converged) != 0u;
}

fn stop() {
    solve.converged = 1u;
    args[3] = 0u;
    args[4] = 0u;
}

// One thread: the box of the tagged cells and their neighbours, as indirect arguments; the box
// atomics emptied for the next step.
@compute @workgroup_size(1)
fn plan() {
    let i0 = atomicLoad(&solve.box_min_i);
    let j0 = atomicLoad(&solve.box_min_j);
    let i1 = atomicLoad(&solve.box_max_i);
    let j1 = atomicLoad(&solve.box_max_j);
    atomicStore(&solve.box_min_i, 0xffffffffu);
    atomicStore(&solve.box_min_j, 0xffffffffu);
    atomicStore(&solve.box_max_i, 0u);
    atomicStore(&solve.box_max_j, 0u);
    solve.iterations = select(0u, bp.iterations, bp.method != COUPLING_PCG);
    solve.rr = 0.0;
    solve.rr0 = 0.0;
    if i0 > i1 {
        solve.iterations = 0u;
        solve.converged = 1u;
        solve.groups = 0u;
        for (var a = 0u; a < 9u; a = a + 1u) {
            args[a] = 0u;
        }
        return;
    }
    solve.converged = 0u;
    solve.origin_i = select(i0 - 1u, 0u, i0 == 0u);
    solve.origin_j = select(j0 - 1u, 0u, j0 == 0u);
    solve.end_i = min(i1 + 1u, params.nx - 1u);
    solve.end_j = min(j1 + 1u, params.ny - 1u);
    if (solve.end_i + 1u - solve.origin_i) * (solve.end_j + 1u - solve.origin_j) <= SOLO {
        // `solo` takes the step: the box passes get no workgroups, their one-workgroup passes
        // return at once.
        solve.converged = 1u;
        solve.groups = 0u;
        for (var a = 0u; a < 6u; a = a + 1u) {
            args[a] = 0u;
        }
        args[6] = 1u;
        args[7] = 1u;
        args[8] = 1u;
        return;
    }
    args[6] = 0u;
    let gx = (solve.end_i - solve.origin_i) / 16u + 1u;
    let gy = (solve.end_j - solve.origin_j) / 16u + 1u;
    solve.groups_x = gx;
    solve.groups = gx * gy;
    args[0] = gx;
    args[1] = gy;
    args[2] = 1u;
    args[3] = gx;
    args[4] = gy;
    args[5] = 1u;
}

// b = the water above the underside; x = 0; r = b; p = z = r / diag; partials of (r·z, r·r).
@compute @workgroup_size(16, 16)
fn start(lane: BoxLane) {
    let at = box_cell(lane.gid);
    var dots = vec2<f32>(0.0);
    if at.z == 1u {
        let c = cell(at.x, at.y);
        let cv = cover[c];
        var b = 0.0;
        var p = 0.0;
        let mask = face_mask(at.x, at.y);
        faces[c] = mask;
        if is_tagged(cv) {
            let d = f32(countOneBits(mask));
            if d > 0.0 {
                b = max(eta[c] - cv.held - cv.bottom, 0.0);
                p = b / d;
            }
        }
        vecs[c] = vec4<f32>(b, 0.0, b, p);
        dots = vec2<f32>(b * p, b * b);
    }
    partial(lane, dots);
}

@compute @workgroup_size(256)
fn start_total(@builtin(local_invocation_index) t: u32) {
    if converged(t) {
        return;
    }
    let s = total(t);
    if t == 0u {
        solve.rz = s.x;
        solve.rr0 = s.y;
        solve.rr = s.y;
        // The first product's direction is start's p: z + 0·p.
        solve.alpha = 0.0;
        if s.y == 0.0 {
            stop();
        }
    }
}

// One Jacobi sweep: v' = (b + Σ tagged neighbours' v) / diag, from component `read_k` to `write_k`.
fn sweep(gid: vec3<u32>, read_k: u32, write_k: u32) {
    let at = box_cell(gid);
    if at.z == 0u {
        return;
    }
    let c = cell(at.x, at.y);
    var v = 0.0;
    let d = diagonal(c);
    if d > 0.0 {
        v = (vecs[c].x + neighbours_sum(at.x, at.y, faces[c], read_k)) / d;
    }
    vecs[c][write_k] = v;
}

@compute @workgroup_size(16, 16)
fn jacobi_even(@builtin(global_invocation_id) gid: vec3<u32>) {
    sweep(gid, 1u, 3u);
}

@compute @workgroup_size(16, 16)
fn jacobi_odd(@builtin(global_invocation_id) gid: vec3<u32>) {
    sweep(gid, 3u, 1u);
}

// The direction p = z + β·p of cell c (β is left in `alpha` by pcg_beta, 0 before the first
// iteration, where p = z is start's), from the last iteration's r and p (once a pass of its
// own after pcg_beta, a dispatch an iteration). A cell with nothing to solve keeps its p.
fn direction(c: u32) -> f32 {
    let d = diagonal(c);
    let v = vecs[c];
    return select(v.w, v.z / d + solve.alpha * v.w, d > 0.0);
}

// p = z + β·p and q = A·p on tagged cells (their neighbours' p made here too, from values no
// thread of this pass writes); partials of p·q. One dispatch fewer an iteration than a
// direction pass of its own.
@compute @workgroup_size(16, 16)
fn pcg_product(lane: BoxLane) {
    let at = box_cell(lane.gid);
    var dots = vec2<f32>(0.0);
    if at.z == 1u {
        let c = cell(at.x, at.y);
        var qc = 0.0;
        let p = direction(c);
        if is_tagged(cover[c]) {
            let mask = faces[c];
            var sum = 0.0;
            for (var f = 0u; f < 4u; f = f + 1u) {
                if (mask & (1u << f)) != 0u {
                    let n = neighbour(at.x, at.y, f);
                    let cn = cell(n.x, n.y);
                    if is_tagged(cover[cn]) {
                        sum = sum + direction(cn);
                    }
                }
            }
            qc = f32(countOneBits(mask)) * p - sum;
            dots = vec2<f32>(p * qc, 0.0);
        }
        pq[c] = vec2<f32>(p, qc);
    }
    partial(lane, dots);
}

@compute @workgroup_size(256)
fn pcg_alpha(@builtin(local_invocation_index) t: u32) {
    if converged(t) {
        return;
    }
    let s = total(t);
    if t == 0u {
        if s.x > 0.0 {
            solve.alpha = solve.rz / s.x;
        } else {
            solve.alpha = 0.0;
            stop();
        }
    }
}

// x += α·p, r −= α·q; partials of (r·z, r·r) with z = r / diag.
@compute @workgroup_size(16, 16)
fn pcg_update(lane: BoxLane) {
    let at = box_cell(lane.gid);
    var dots = vec2<f32>(0.0);
    if at.z == 1u {
        let c = cell(at.x, at.y);
        let d = diagonal(c);
        if d > 0.0 {
            var v = vecs[c];
            v.w = pq[c].x;
            v.y = v.y + solve.alpha * v.w;
            v.z = v.z - solve.alpha * pq[c].y;
            vecs[c] = v;
            dots = vec2<f32>(v.z * v.z / d, v.z * v.z);
        }
    }
    partial(lane, dots);
}

// β = r·z' / r·z, and the convergence test.
@compute @workgroup_size(256)
fn pcg_beta(@builtin(local_invocation_index) t: u32) {
    if converged(t) {
        return;
    }
    let s = total(t);
    if t == 0u {
        solve.iterations = solve.iterations + 1u;
        solve.rr = s.y;
        let beta = select(0.0, s.x / solve.rz, solve.rz > 0.0);
        solve.alpha = beta;
        solve.rz = s.x;
        if s.y <= bp.tolerance * bp.tolerance * solve.rr0 || solve.iterations >= bp.iterations {
            stop();
        }
    }
}

// Every cell in the box moves γ·Σ_open faces (v_n − v_i), v = 0 off the tagged cells.
@compute @workgroup_size(16, 16)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    let at = box_cell(gid);
    if at.z == 0u {
        return;
    }
    let c = cell(at.x, at.y);
    let mask = faces[c];
    if mask == 0u {
        return;
    }
    let v_c = select(0.0, vecs[c].y, is_tagged(cover[c]));
    var flux = 0.0;
    for (var f = 0u; f < 4u; f = f + 1u) {
        if (mask & (1u << f)) != 0u {
            let n = neighbour(at.x, at.y, f);
            let cn = cell(n.x, n.y);
            flux = flux + (select(0.0, vecs[cn].y, is_tagged(cover[cn])) - v_c);
        }
    }
    let change = bp.relaxation * flux;
    eta[c] = eta[c] + change;
    vel[c] = vel[c] + change;
}

// The whole coupling in one workgroup, for a box of at most SOLO cells (`plan` dispatches it
// then, and only then). Each lane keeps OWN cells of the box in registers, box cell k = t + WG·s
// (row-major in the box) in its slot s, and the box's v (PCG's direction p, Jacobi's iterate,
// then the solution) sits in workgroup memory, where the neighbours read it: an iteration touches
// no global memory and costs a few barriers instead of 4 dispatches, and the loop ends at
// convergence. The arithmetic per cell is the box passes' (start, pcg_*, jacobi_*, apply); PCG's
// dot products sum each lane's cells in slot order and then the lanes by a tree.
const SOLO: u32 = 2048u;
const OWN: u32 = SOLO / WG;

var<workgroup> s_v: array<f32, SOLO>;
var<workgroup> s_total: vec2<f32>;
var<workgroup> s_box: vec4<u32>;

// `tree` with its total handed to every lane as a uniform value (loops may stop on it).
fn fold_uniform(t: u32, value: vec2<f32>) -> vec2<f32> {
    tree(t, value);
    if t == 0u {
        s_total = s_dot[0];
    }
    return workgroupUniformLoad(&s_total);
}

// The box cell across face f of box cell k in a box w cells wide.
fn box_neighbour(k: u32, w: u32, f: u32) -> u32 {
    switch f {
        case 0u: { return k - 1u; }
        case 1u: { return k + 1u; }
        case 2u: { return k - w; }
        default: { return k + w; }
    }
}

// Σ of s_v across the faces in `bits` of box cell k.
fn shared_sum(k: u32, w: u32, bits: u32) -> f32 {
    var s = 0.0;
    for (var f = 0u; f < 4u; f = f + 1u) {
        if (bits & (1u << f)) != 0u {
            s = s + s_v[box_neighbour(k, w, f)];
        }
    }
    return s;
}

@compute @workgroup_size(256)
fn solo(@builtin(local_invocation_index) t: u32) {
    if t == 0u {
        s_box = vec4<u32>(solve.origin_i, solve.origin_j, solve.end_i, solve.end_j);
    }
    let bx = workgroupUniformLoad(&s_box);
    let w = bx.z + 1u - bx.x;
    let n = w * (bx.w + 1u - bx.y);
    let pcg = bp.method == COUPLING_PCG;
    // Per slot: the cell, its open faces, those to tagged cells (whose v is solved), its diagonal
    // (0: nothing to solve), b, and PCG's x, r, p, q (Jacobi's iterate in x).
    var cells: array<u32, OWN>;
    var mask: array<u32, OWN>;
    var inner: array<u32, OWN>;
    var d: array<f32, OWN>;
    var b: array<f32, OWN>;
    var x: array<f32, OWN>;
    var r: array<f32, OWN>;
    var p: array<f32, OWN>;
    var q: array<f32, OWN>;

    // start: b, r = b, p = z = r / diag; (r·z, r·r).
    var dots = vec2<f32>(0.0);
    for (var s = 0u; s < OWN; s = s + 1u) {
        let k = t + s * WG;
        if k < n {
            let i = bx.x + k % w;
            let j = bx.y + k / w;
            let c = cell(i, j);
            cells[s] = c;
            let m = face_mask(i, j);
            mask[s] = m;
            let cv = cover[c];
            if is_tagged(cv) {
                for (var f = 0u; f < 4u; f = f + 1u) {
                    if (m & (1u << f)) != 0u {
                        let nb = neighbour(i, j, f);
                        if is_tagged(cover[cell(nb.x, nb.y)]) {
                            inner[s] = inner[s] | (1u << f);
                        }
                    }
                }
                d[s] = f32(countOneBits(m));
                if d[s] > 0.0 {
                    b[s] = max(eta[c] - cv.held - cv.bottom, 0.0);
                    p[s] = b[s] / d[s];
                }
            }
            r[s] = b[s];
            dots = dots + vec2<f32>(b[s] * p[s], b[s] * b[s]);
            s_v[k] = select(0.0, p[s], pcg);
        }
    }
    let first = fold_uniform(t, dots);
    var rz = first.x;
    let rr0 = first.y;
    var rr = rr0;
    var iterations = 0u;

    if pcg {
        loop {
            if rr0 == 0.0 || iterations >= bp.iterations {
                break;
            }
            // s_v holds every cell's p.
            workgroupBarrier();
            // q = A·p and p·q (pcg_product).
            var pq = 0.0;
            for (var s = 0u; s < OWN; s = s + 1u) {
                let k = t + s * WG;
                if k < n && d[s] > 0.0 {
                    q[s] = d[s] * p[s] - shared_sum(k, w, inner[s]);
                    pq = pq + p[s] * q[s];
                }
            }
            let pq_total = fold_uniform(t, vec2<f32>(pq, 0.0)).x;
            if pq_total <= 0.0 {
                break;
            }
            // x += α·p, r −= α·q; (r·z, r·r) (pcg_alpha, pcg_update).
            let alpha = rz / pq_total;
            var sums = vec2<f32>(0.0);
            for (var s = 0u; s < OWN; s = s + 1u) {
                if t + s * WG < n && d[s] > 0.0 {
                    x[s] = x[s] + alpha * p[s];
                    r[s] = r[s] - alpha * q[s];
                    sums = sums + vec2<f32>(r[s] * r[s] / d[s], r[s] * r[s]);
                }
            }
            let next = fold_uniform(t, sums);
            // β and the convergence test (pcg_beta).
            iterations = iterations + 1u;
            rr = next.y;
            let beta = select(0.0, next.x / rz, rz > 0.0);
            rz = next.x;
            if rr <= bp.tolerance * bp.tolerance * rr0 {
                break;
            }
            // p = z + β·p, where the next product reads it (every lane has read the last p:
            // the folds since wait for all of them).
            for (var s = 0u; s < OWN; s = s + 1u) {
                let k = t + s * WG;
                if k < n && d[s] > 0.0 {
                    p[s] = r[s] / d[s] + beta * p[s];
                    s_v[k] = p[s];
                }
            }
        }
        if t == 0u {
            solve.iterations = iterations;
            solve.rz = rz;
            solve.rr0 = rr0;
            solve.rr = rr;
        }
    } else {
        // Jacobi's sweeps (jacobi_even, jacobi_odd): v' = (b + Σ tagged neighbours' v) / diag.
        for (var sweep = 0u; sweep < bp.iterations; sweep = sweep + 1u) {
            workgroupBarrier();
            for (var s = 0u; s < OWN; s = s + 1u) {
                let k = t + s * WG;
                if k < n && d[s] > 0.0 {
                    x[s] = (b[s] + shared_sum(k, w, inner[s])) / d[s];
                }
            }
            workgroupBarrier();
            for (var s = 0u; s < OWN; s = s + 1u) {
                let k = t + s * WG;
                if k < n {
                    s_v[k] = x[s];
                }
            }
        }
    }

    // apply: every cell of the box moves γ·Σ_open faces (v_n − v_i), v = 0 off the tagged cells.
    workgroupBarrier();
    for (var s = 0u; s < OWN; s = s + 1u) {
        let k = t + s * WG;
        if k < n {
            s_v[k] = x[s];
        }
    }
    workgroupBarrier();
    for (var s = 0u; s < OWN; s = s + 1u) {
        let k = t + s * WG;
        if k < n && mask[s] != 0u {
            var flux = 0.0;
            for (var f = 0u; f < 4u; f = f + 1u) {
                if (mask[s] & (1u << f)) != 0u {
                    flux = flux + (s_v[box_neighbour(k, w, f)] - x[s]);
                }
            }
            let change = bp.relaxation * flux;
            let c = cells[s];
            eta[c] = eta[c] + change;
            vel[c] = vel[c] + change;
        }
    }
}
