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
// Both solvers run over the tagged cells and their neighbours, with no readback, in one of two
// ways that `plan` picks each step:
//   - Clusters of bodies whose boxes share no cell: `solo`, a workgroup per cluster that runs the
//     whole solve and the correction in one dispatch and stops iterating at convergence (its
//     cells in registers and v in workgroup memory up to SOLO cells, else `solo_wide`).
//   - The whole box, where one body's may outgrow SOLO cells: one dispatch per pass over the
//     box, dispatched indirectly:
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

// The most bodies `plan` forms clusters of; with more, the passes over the whole box solve.
const MAX_CLUSTERS: u32 = 64u;

// The tagged cells' box [i0, j0, i1, j1] grown by a cell, clipped to the grid.
fn grown(i0: u32, j0: u32, i1: u32, j1: u32) -> vec4<u32> {
    return vec4<u32>(
        select(i0 - 1u, 0u, i0 == 0u),
        select(j0 - 1u, 0u, j0 == 0u),
        min(i1 + 1u, params.nx - 1u),
        min(j1 + 1u, params.ny - 1u),
    );
}

fn cluster_box(k: u32) -> vec4<u32> {
    let c = &solve.clusters[k];
    return vec4<u32>((*c).origin_i, (*c).origin_j, (*c).end_i, (*c).end_j);
}

fn set_cluster_box(k: u32, b: vec4<u32>) {
    solve.clusters[k].origin_i = b.x;
    solve.clusters[k].origin_j = b.y;
    solve.clusters[k].end_i = b.z;
    solve.clusters[k].end_j = b.w;
}

fn box_cells(b: vec4<u32>) -> u32 {
    return (b.z + 1u - b.x) * (b.w + 1u - b.y);
}

// One thread: the box of the tagged cells and their neighbours, and how to solve it. The bodies'
// boxes (grown by a cell) that share a cell merge into clusters, until no two clusters' boxes do:
// then no cell of one cluster's box has a tagged neighbour in another's, so their systems are
// independent and no cell is corrected by two. `solo` solves each cluster with a workgroup of its
// own, unless there are over MAX_CLUSTERS bodies, or a cluster's box holds over SOLO cells where
// one body's may (`bp.box_cells`): then the passes over the whole box do, which the host records
// only then. Every box atomic is emptied for the next step.
// Twin: `cpu::coupling::clusters`.
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
    // Body k's box into slot m ≤ k (a slot's box and its atomics are different words).
    var m = 0u;
    for (var k = 0u; k < bp.count; k = k + 1u) {
        let lo = vec2<u32>(atomicLoad(&solve.clusters[k].min_i), atomicLoad(&solve.clusters[k].min_j));
        let hi = vec2<u32>(atomicLoad(&solve.clusters[k].max_i), atomicLoad(&solve.clusters[k].max_j));
        atomicStore(&solve.clusters[k].min_i, 0xffffffffu);
        atomicStore(&solve.clusters[k].min_j, 0xffffffffu);
        atomicStore(&solve.clusters[k].max_i, 0u);
        atomicStore(&solve.clusters[k].max_j, 0u);
        if lo.x <= hi.x {
            set_cluster_box(m, grown(lo.x, lo.y, hi.x, hi.y));
            m = m + 1u;
        }
    }
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
    let union_box = grown(i0, j0, i1, j1);
    solve.origin_i = union_box.x;
    solve.origin_j = union_box.y;
    solve.end_i = union_box.z;
    solve.end_j = union_box.w;

    // Merge the first two clusters (in slot order) whose boxes share a cell into the first, the
    // last cluster taking the second's slot, until none do.
    var solos = 0u;
    if bp.count <= MAX_CLUSTERS {
        loop {
            var merged = false;
            for (var a = 0u; a < m && !merged; a = a + 1u) {
                for (var b = a + 1u; b < m && !merged; b = b + 1u) {
                    let p = cluster_box(a);
                    let q = cluster_box(b);
                    if p.x <= q.z && q.x <= p.z && p.y <= q.w && q.y <= p.w {
                        set_cluster_box(a, vec4<u32>(min(p.xy, q.xy), max(p.zw, q.zw)));
                        set_cluster_box(b, cluster_box(m - 1u));
                        m = m - 1u;
                        merged = true;
                    }
                }
            }
            if !merged {
                break;
            }
        }
        solos = m;
        // A cluster past SOLO cells: the passes over the box where a body may be that large
        // (the host records them then), else `solo_wide`.
        if bp.box_cells > SOLO {
            for (var a = 0u; a < m; a = a + 1u) {
                if box_cells(cluster_box(a)) > SOLO {
                    solos = 0u;
                }
            }
        }
    }
    if solos > 0u {
        // `solo` takes the step: the box passes get no workgroups, their one-workgroup passes
        // return at once.
        solve.converged = 1u;
        solve.groups = 0u;
        for (var a = 0u; a < 6u; a = a + 1u) {
            args[a] = 0u;
        }
        args[6] = solos;
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

// b = the water above the underside; x = 0; r = b; p = z = r / diag; returns (r·z, r·r).
fn start_cell(i: u32, j: u32) -> vec2<f32> {
    let c = cell(i, j);
    let cv = cover[c];
    var b = 0.0;
    var p = 0.0;
    let mask = face_mask(i, j);
    faces[c] = mask;
    if is_tagged(cv) {
        let d = f32(countOneBits(mask));
        if d > 0.0 {
            b = max(eta[c] - cv.held - cv.bottom, 0.0);
            p = b / d;
        }
    }
    vecs[c] = vec4<f32>(b, 0.0, b, p);
    return vec2<f32>(b * p, b * b);
}

// `start_cell` over the box; partials of (r·z, r·r).
@compute @workgroup_size(16, 16)
fn start(lane: BoxLane) {
    let at = box_cell(lane.gid);
    var dots = vec2<f32>(0.0);
    if at.z == 1u {
        dots = start_cell(at.x, at.y);
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

// One Jacobi sweep at cell (i, j): v' = (b + Σ tagged neighbours' v) / diag, from component
// `read_k` to `write_k`.
fn sweep_cell(i: u32, j: u32, read_k: u32, write_k: u32) {
    let c = cell(i, j);
    var v = 0.0;
    let d = diagonal(c);
    if d > 0.0 {
        v = (vecs[c].x + neighbours_sum(i, j, faces[c], read_k)) / d;
    }
    vecs[c][write_k] = v;
}

fn sweep(gid: vec3<u32>, read_k: u32, write_k: u32) {
    let at = box_cell(gid);
    if at.z == 1u {
        sweep_cell(at.x, at.y, read_k, write_k);
    }
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
fn direction(c: u32, beta: f32) -> f32 {
    let d = diagonal(c);
    let v = vecs[c];
    return select(v.w, v.z / d + beta * v.w, d > 0.0);
}

// p = z + β·p and q = A·p on tagged cells (their neighbours' p made here too, from values no
// thread of this pass writes); partials of p·q. One dispatch fewer an iteration than a
// direction pass of its own.
fn product_cell(i: u32, j: u32, beta: f32) -> f32 {
    let c = cell(i, j);
    var qc = 0.0;
    var pq_c = 0.0;
    let p = direction(c, beta);
    if is_tagged(cover[c]) {
        let mask = faces[c];
        var sum = 0.0;
        for (var f = 0u; f < 4u; f = f + 1u) {
            if (mask & (1u << f)) != 0u {
                let n = neighbour(i, j, f);
                let cn = cell(n.x, n.y);
                if is_tagged(cover[cn]) {
                    sum = sum + direction(cn, beta);
                }
            }
        }
        qc = f32(countOneBits(mask)) * p - sum;
        pq_c = p * qc;
    }
    pq[c] = vec2<f32>(p, qc);
    return pq_c;
}

@compute @workgroup_size(16, 16)
fn pcg_product(lane: BoxLane) {
    let at = box_cell(lane.gid);
    var dots = vec2<f32>(0.0);
    if at.z == 1u {
        dots.x = product_cell(at.x, at.y, solve.alpha);
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

// x += α·p, r −= α·q at cell (i, j); returns (r·z, r·r) with z = r / diag.
fn update_cell(i: u32, j: u32, alpha: f32) -> vec2<f32> {
    let c = cell(i, j);
    let d = diagonal(c);
    if d > 0.0 {
        var v = vecs[c];
        v.w = pq[c].x;
        v.y = v.y + alpha * v.w;
        v.z = v.z - alpha * pq[c].y;
        vecs[c] = v;
        return vec2<f32>(v.z * v.z / d, v.z * v.z);
    }
    return vec2<f32>(0.0);
}

@compute @workgroup_size(16, 16)
fn pcg_update(lane: BoxLane) {
    let at = box_cell(lane.gid);
    var dots = vec2<f32>(0.0);
    if at.z == 1u {
        dots = update_cell(at.x, at.y, solve.alpha);
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

// Cell (i, j) moves γ·Σ_open faces (v_n − v_i), v = 0 off the tagged cells.
fn apply_cell(i: u32, j: u32) {
    let c = cell(i, j);
    let mask = faces[c];
    if mask == 0u {
        return;
    }
    let v_c = select(0.0, vecs[c].y, is_tagged(cover[c]));
    var flux = 0.0;
    for (var f = 0u; f < 4u; f = f + 1u) {
        if (mask & (1u << f)) != 0u {
            let n = neighbour(i, j, f);
            let cn = cell(n.x, n.y);
            flux = flux + (select(0.0, vecs[cn].y, is_tagged(cover[cn])) - v_c);
        }
    }
    let change = bp.relaxation * flux;
    eta[c] = eta[c] + change;
    vel[c] = vel[c] + change;
}

@compute @workgroup_size(16, 16)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    let at = box_cell(gid);
    if at.z == 1u {
        apply_cell(at.x, at.y);
    }
}

// The whole coupling of one cluster (`plan`) in one workgroup: workgroup k takes cluster k. For a
// box of at most SOLO cells each lane keeps OWN cells of the box in registers, box cell
// k = t + WG·s (row-major in the box) in its slot s, and the box's v (PCG's direction p, Jacobi's
// iterate, then the solution) sits in workgroup memory, where the neighbours read it: an
// iteration touches no global memory and costs a few barriers instead of 4 dispatches, and the
// loop ends at convergence. A larger box runs `solo_wide`. The arithmetic per cell is the box
// passes' (start, pcg_*, jacobi_*, apply); PCG's dot products sum each lane's cells in slot order
// and then the lanes by a tree.
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
fn solo(
    @builtin(local_invocation_index) t: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    if t == 0u {
        s_box = cluster_box(wid.x);
    }
    let bx = workgroupUniformLoad(&s_box);
    let w = bx.z + 1u - bx.x;
    let n = w * (bx.w + 1u - bx.y);
    if n > SOLO {
        solo_wide(t, wid.x, groups.x, bx, w, n);
        return;
    }
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
        report_cluster(t, wid.x, groups.x, iterations, rr0, rr);
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

// How cluster `slot`'s PCG solve went, in its slot (and the head's, when it is the only one; with
// several `solo_report` adds them up).
fn report_cluster(t: u32, slot: u32, clusters: u32, iterations: u32, rr0: f32, rr: f32) {
    if t == 0u {
        solve.clusters[slot].iterations = iterations;
        solve.clusters[slot].rr0 = rr0;
        solve.clusters[slot].rr = rr;
        if clusters == 1u {
            solve.iterations = iterations;
            solve.rr0 = rr0;
            solve.rr = rr;
        }
    }
}

// `solo` for a cluster whose box outgrows workgroup memory (where the passes over the box are not
// recorded to take it, `plan`): the box passes' own cell functions in loops over the box, with
// their buffers (no other cluster's cell among them), a storage barrier where they would end a
// dispatch. Slower than the box passes over a large box, but one dispatch.
fn solo_wide(t: u32, slot: u32, clusters: u32, bx: vec4<u32>, w: u32, n: u32) {
    var dots = vec2<f32>(0.0);
    for (var k = t; k < n; k = k + WG) {
        dots = dots + start_cell(bx.x + k % w, bx.y + k / w);
    }
    storageBarrier();
    let first = fold_uniform(t, dots);
    var rz = first.x;
    let rr0 = first.y;
    var rr = rr0;
    var iterations = 0u;
    if bp.method == COUPLING_PCG {
        var beta = 0.0;
        loop {
            if rr0 == 0.0 || iterations >= bp.iterations {
                break;
            }
            var pq_sum = 0.0;
            for (var k = t; k < n; k = k + WG) {
                pq_sum = pq_sum + product_cell(bx.x + k % w, bx.y + k / w, beta);
            }
            storageBarrier();
            let pq_total = fold_uniform(t, vec2<f32>(pq_sum, 0.0)).x;
            if pq_total <= 0.0 {
                break;
            }
            let alpha = rz / pq_total;
            var sums = vec2<f32>(0.0);
            for (var k = t; k < n; k = k + WG) {
                sums = sums + update_cell(bx.x + k % w, bx.y + k / w, alpha);
            }
            storageBarrier();
            let next = fold_uniform(t, sums);
            iterations = iterations + 1u;
            rr = next.y;
            beta = select(0.0, next.x / rz, rz > 0.0);
            rz = next.x;
            if rr <= bp.tolerance * bp.tolerance * rr0 {
                break;
            }
        }
        report_cluster(t, slot, clusters, iterations, rr0, rr);
    } else {
        for (var sweep = 0u; sweep < bp.iterations; sweep = sweep + 1u) {
            let read_k = select(3u, 1u, sweep % 2u == 0u);
            for (var k = t; k < n; k = k + WG) {
                sweep_cell(bx.x + k % w, bx.y + k / w, read_k, 4u - read_k);
            }
            storageBarrier();
            workgroupBarrier();
        }
    }
    storageBarrier();
    workgroupBarrier();
    for (var k = t; k < n; k = k + WG) {
        apply_cell(bx.x + k % w, bx.y + k / w);
    }
}

// One thread, after several clusters' `solo`: how the step's solve went, from the clusters' own
// (the most iterations any took; the residuals' squares added, in slot order).
@compute @workgroup_size(1)
fn solo_report() {
    let m = args[6];
    if m < 2u || bp.method != COUPLING_PCG {
        return;
    }
    var iterations = 0u;
    var rr = 0.0;
    var rr0 = 0.0;
    for (var k = 0u; k < m; k = k + 1u) {
        iterations = max(iterations, solve.clusters[k].iterations);
        rr = rr + solve.clusters[k].rr;
        rr0 = rr0 + solve.clusters[k].rr0;
    }
    solve.iterations = iterations;
    solve.rr = rr;
    solve.rr0 = rr0;
}
