#import level
// Kass & Miller's implicit step (§4–5) by alternating directions. With the depths d frozen from
// h^(n−1) for the step (their linearisation) and k = g·dt²/dx², the step solves the approximate
// factorisation
//
//   (I − k·∂x d ∂x)(I − k·∂y d ∂y) h^n = h^(n−1) + (1 − τ)(h^(n−1) − h^(n−2))        (eq. 17)
//
// as an x sweep, A_x h* = rhs over every row, then a y sweep, A_y h^n = h* over every column, then
// the dry-cell rule. A is eq. 15–16: tridiagonal, e_i = 1 + k(w_(i−½) + w_(i+½)), f_i = −k·w_(i+½),
// with the face depth w of the explicit solver (`face_depth`: the mean depth, nothing through a face
// whose higher side is dry, so a still lake on a beach stays still).
//
// Changes are solved for, not heights, so float32 keeps a small wave's digits: with u = h^(n−1),
//   x sweep: A_x δx = keep·vel + k·Dx(u)         (h* = u + δx)
//   y sweep: A_y δy = k·Dy(u + δx)               (h^n = h* + δy),   vel' = δx + δy
// where D(u) = Σ_faces w·(u_nbr − u). Every column of A sums to 1, so with closed walls each sweep
// keeps the sum along its lines (the first adds keep·Σvel, the second nothing).
//
// Conservation: in float32, b = 1 + k(w_l + w_r) rounds, so the columns of A sum to 1 only to
// ~ε·k·d, and at k·d = 100 a closed basin gained 3e-9 of its volume per step, for ever (vel keeps
// the error). So each solution x is rebuilt in flux form, δ = r + Σ_faces k·w·(x_nbr − x) − g·x
// (g: a boundary's diagonal term): it differs from x by the solve's residual only, and each face
// term is computed bitwise-equal and opposite by its two cells, so Σδ = Σr to rounding.
//
// Boundaries, each in implicit form (stable at any dt):
//   reflect      no face (eq. 16's end rows).
//   open         Dirichlet ghost at the still level: its face on the diagonal, its value in the rhs.
//   ghost-mean   the same with the ghost at the mean wet surface of h^(n−1) (Wilson et al.).
//   absorb       Sommerfeld's radiation condition ∂h/∂t = −c·∂h/∂n at the missing face: its flux
//                k·w·(h_ghost − h) becomes −s·δ with s = c·dt/dx = sqrt(k·d), so s joins the
//                diagonal: water leaves, nothing comes back, at any Courant number.
//   ghost-slope  zero normal curvature: the ghost face carries the inner face's flux mirrored, so
//                the edge cell's row is the identity (as in the explicit solver).
//   periodic     a cyclic system, solved by Sherman–Morrison: A = A' + u·vᵀ with A' tridiagonal,
//                u = (γ, 0…0, α), v = (1, 0…0, β/γ), γ = −b_0; the sweep solves A'y = r and A'z = u
//                together (the fourth channel) and `cyclic_factor` gives x = y − (v·y)/(1 + v·z)·z.
//
// Lines are solved on chip: one workgroup holds `tile` lines of `chip` cells each, CHIP cells in
// all, PER consecutive rows a thread in registers, by a modified Thomas sweep in each thread and
// parallel cyclic reduction (PCR) of the threads' end rows through one workgroup array of CHIP
// vec2s (16 KiB, what every adapter offers; see `solve`). A line longer than `chip` first takes `levels` PCR steps
// in global memory (`build`, `reduce_global`), which split it into 2^levels independent interleaved
// systems that fit (the Davidson / Zhang–Owens hybrid). Threads map so that neighbouring threads
// read neighbouring addresses: along the row for rows, across `tile` columns for columns.
// Twin: src/cpu/adi.rs (Thomas' algorithm on the same equations).

const WG: u32 = 256u;
const PER: u32 = 8u;
const CHIP: u32 = 2048u;

// Mirrors `crate::gpu::adi::Sweep`: one sweep's shape, one copy per dispatch (dynamic offset).
struct Sweep {
    // 0: rows (x), 1: columns (y).
    axis: u32,
    n: u32,
    lines: u32,
    tile: u32,
    chip: u32,
    levels: u32,
    // A global step's distance along the line, and the scratch half it (or the solve) reads.
    stride: u32,
    src: u32,
    from_scratch: u32,
    periodic: u32,
    bc_lo: u32,
    bc_hi: u32,
    // The solve rebuilds its lines in flux form itself (whole lines on chip, not periodic) and, in
    // the y sweep, ends the step; otherwise it writes x at `out_at` for `conserve`.
    fused: u32,
    out_at: u32,
    z_at: u32,
    cyclic_at: u32,
}

@group(3) @binding(0) var<uniform> sweep: Sweep;
// δx (final) at 0, then as needed a solve's raw x, its z channel and per-line cyclic factors.
@group(3) @binding(1) var<storage, read_write> work: array<f32>;
// Two halves of (a, c, r, r2) per cell, for lines longer than a workgroup holds, each its own
// binding: one binding of both (32 B a cell) passed an H100's 2 GiB binding limit at 8192².
@group(3) @binding(2) var<storage, read_write> scratch0: array<vec4<f32>>;
@group(3) @binding(3) var<storage, read_write> scratch1: array<vec4<f32>>;

fn scratch_read(half: u32, c: u32) -> vec4<f32> {
    if half == 0u {
        return scratch0[c];
    }
    return scratch1[c];
}

fn line_cell(line: u32, p: u32) -> u32 {
    return select(line * params.nx + p, p * params.nx + line, sweep.axis == 1u);
}

// (line, position along it) of cell (i, j).
fn line_pos(i: u32, j: u32) -> vec2<u32> {
    return select(vec2<u32>(j, i), vec2<u32>(i, j), sweep.axis == 1u);
}

// The x sweep's result (final: `conserve` has run) at cell c.
fn delta_x(c: u32) -> f32 {
    return work[c];
}

// u_m − u_c for the sweep's known heights: eta (x sweep) or eta + δx (y sweep), the two
// differences taken apart so δx keeps its digits.
// The air pressure's head joins the known heights of both sweeps (explicit forcing: the
// water levels h + p/(ρg)); 0 without [[pressure]].
fn rise(c: u32, m: u32) -> f32 {
    var r = eta_in[m] - eta_in[c];
    if sweep.axis == 1u {
        r = r + (delta_x(m) - delta_x(c));
    }
    if (params.forcing & FORCE_PRESSURE) != 0u {
        r = r + (head_of(m) - head_of(c));
    }
    return r;
}

// Face depth between two cells times the face's `share`, always called with the lower position
// (the face's owner) first so both rows that share a face see the same bits.
fn weight(lo: u32, hi: u32) -> f32 {
    let e_lo = eta_in[lo];
    let e_hi = eta_in[hi];
    return face_depth(e_lo, depth(e_lo, ground[lo]), e_hi, depth(e_hi, ground[hi])) * share(lo, hi, sweep.axis == 1u);
}

// Where the level keeps the faces' memory, ADI limits each face as the explicit step does, but
// before its solve: a film's implicit weight and kept memory, frozen for the step, would otherwise
// move more than the film holds, and the dry-cell rule would refill it (on a rained-on dry slope
// ADI held 9.6× the rain after 100 s). The face's explicit estimate, kept memory + k·w·rise at
// the step's start, is held to `limit`'s share of its source, and the face keeps that part
// (`share`) of both its weight and its kept memory, in every row and flux that reads them; the
// solve is then exact for the limited system, so its flux form conserves as before. Twin:
// src/cpu/adi.rs (`share`).

// The part of its weight and kept memory the face between `owner` (its west or south cell) and
// `other` keeps: 1, or limit(estimate)/estimate where the estimate passes the limit. A face into
// a slope side's coasting cell (`coasts`) is not limited.
fn share(owner: u32, other: u32, north: bool) -> f32 {
    if params.faces == 0u || coasts(owner, north) || coasts(other, north) {
        return 1.0;
    }
    let e_o = eta_in[owner];
    let e_x = eta_in[other];
    let d_o = depth(e_o, ground[owner]);
    let d_x = depth(e_x, ground[other]);
    let q = memory_at(owner, north);
    let kept = select(0.0, keep_of(owner) * q, open_face(true, e_o > ground[owner], e_x > ground[other], q));
    var r = e_x - e_o;
    if (params.forcing & FORCE_PRESSURE) != 0u {
        r = r + (head_of(other) - head_of(owner));
    }
    let estimate = kept + (params.k * face_depth(e_o, d_o, e_x, d_x)) * r;
    let bounded = limit(estimate, d_o, d_x);
    return select(bounded / estimate, 1.0, bounded == estimate);
}

// Whether cell c's row along a y face's axis (`north`) or an x face's is a slope side's identity
// row (`side`): it coasts on its kept change, which the face's flux never enters, so limiting the
// face would take off momentum the cell never had (at Courant 10 a slope-sided beach diverged).
fn coasts(c: u32, north: bool) -> bool {
    let at = select(c % params.nx, c / params.nx, north);
    let n = select(params.nx, params.ny, north);
    let lo = select(params.bc_west, params.bc_south, north);
    let hi = select(params.bc_east, params.bc_north, north);
    return ((at == 0u && lo == GHOST_SLOPE) || (at + 1u == n && hi == GHOST_SLOPE)) && !on_bank(ground[c]);
}

// `remember` with the kept memory scaled by the face's `share`.
fn remember_shared(real: bool, open: bool, keep: f32, q: f32, part: f32, flux: f32) -> f32 {
    return select(0.0, select(0.0, part * (keep * q), open) + flux, real);
}

// What the faces' `share` takes off cell c's kept change, signed into it: Σ (share − 1)·keep·q
// over its open faces, each term computed alike by the face's two cells (so it conserves).
fn unshared(c: u32, a: Agreed) -> f32 {
    let nx = params.nx;
    let i = c % nx;
    let j = c / nx;
    let w = west_of(c);
    let s = south_of(c);
    let e = select(c + 1u, c + 1u - nx, i + 1u == nx);
    let n = select(c + nx, i, j + 1u == params.ny);
    let pw = unshared_part(a.open.x, w, c, false, a.q.x);
    let pe = unshared_part(a.open.y, c, e, false, a.q.y);
    let ps = unshared_part(a.open.z, s, c, true, a.q.z);
    let pn = unshared_part(a.open.w, c, n, true, a.q.w);
    return ((pe + pn) * params.one - pw) * params.one - ps;
}

fn unshared_part(open: bool, owner: u32, other: u32, north: bool, q: f32) -> f32 {
    if !open {
        return 0.0;
    }
    let kq = keep_of(owner) * q;
    return share(owner, other, north) * kq - kq;
}

// One row of the system before normalisation: a·x_(p−1) + b·x_p + c·x_(p+1) = r with
// b = 1 − a − c + g, g the missing faces' diagonal term (open, ghost-mean, absorb).
struct Row {
    a: f32,
    c: f32,
    r: f32,
    g: f32,
}

// The x sweep's kept change: keep·vel, or where the level keeps the faces' memory, what the
// faces agree the cell keeps (level.wgsl's `agree`).
fn base_rhs(c: u32) -> f32 {
    if sweep.axis != 0u {
        return 0.0;
    }
    if params.faces == 0u {
        return keep_of(c) * vel_in[c];
    }
    let a = agree_at(c);
    return a.kept + unshared(c, a);
}

// The west and south neighbours of cell c (wrapped as periodic sides wrap).
fn west_of(c: u32) -> u32 {
    let i = c % params.nx;
    return select(c - 1u, c + params.nx - 1u, i == 0u);
}

fn south_of(c: u32) -> u32 {
    return select(c - params.nx, c + params.nx * (params.ny - 1u), c < params.nx);
}

fn wet_at(c: u32) -> bool {
    return eta_in[c] > ground[c];
}

// `agree` for cell c on the level as the step found it.
fn agree_at(c: u32) -> Agreed {
    let nx = params.nx;
    let i = c % nx;
    let j = c / nx;
    let e = select(c + 1u, c + 1u - nx, i + 1u == nx);
    let n = select(c + nx, i, j + 1u == params.ny);
    let wet = vec4<bool>(wet_at(west_of(c)), wet_at(e), wet_at(south_of(c)), wet_at(n));
    return agree(i, j, c, west_of(c), south_of(c), wet_at(c), wet, keep_of(c), vel_in[c]);
}

// A missing face at the end of a line.
fn side(row: Row, c: u32, mode: u32) -> Row {
    var out = row;
    let eta_c = eta_in[c];
    let b_c = ground[c];
    let d_c = depth(eta_c, b_c);
    // On a bank (the edge's ground above the still level) absorbing and slope sides let the water
    // out as an open one does, by a ghost of dry land at the edge's height: a ghost's level never
    // lies below the edge's ground (explicit.wgsl's `face_term`).
    let bank = on_bank(b_c);
    if mode == OPEN || mode == GHOST_MEAN || ((mode == ABSORB || mode == GHOST_SLOPE) && bank) {
        let g = max(select(0.0, mean_surface(), mode == GHOST_MEAN && !bank), b_c);
        let w = params.k * face_depth(eta_c, d_c, g, depth(g, b_c));
        var r = g - eta_c;
        if sweep.axis == 1u {
            r = r - delta_x(c);
        }
        out.g = out.g + w;
        out.r = out.r + w * r;
    } else if mode == ABSORB {
        out.g = out.g + sqrt(params.k * d_c);
    } else if mode == GHOST_SLOPE {
        out = Row(0.0, 0.0, base_rhs(c), 0.0);
    }
    return out;
}

fn row(line: u32, p: u32) -> Row {
    let n = sweep.n;
    let c = line_cell(line, p);
    var out = Row(0.0, 0.0, base_rhs(c), 0.0);
    let has_lo = p > 0u || sweep.periodic != 0u;
    let has_hi = p + 1u < n || sweep.periodic != 0u;
    if has_lo {
        let m = line_cell(line, select(p - 1u, n - 1u, p == 0u));
        let w = params.k * weight(m, c);
        out.a = -w;
        out.r = out.r + w * rise(c, m);
    }
    if has_hi {
        let m = line_cell(line, select(p + 1u, 0u, p + 1u == n));
        let w = params.k * weight(c, m);
        out.c = -w;
        out.r = out.r + w * rise(c, m);
    }
    if !has_lo {
        out = side(out, c, sweep.bc_lo);
    }
    if !has_hi {
        out = side(out, c, sweep.bc_hi);
    }
    return out;
}

// The normalised equation (a, c, r, r2) of position p, b = 1; periodic lines take the
// Sherman–Morrison form (see the header), and their first row stores β/γ for `cyclic_factor`.
fn equation(line: u32, p: u32) -> vec4<f32> {
    let e = row(line, p);
    var a = e.a;
    var c = e.c;
    var b = ((1.0 - e.a) - e.c) + e.g;
    var r2 = 0.0;
    if sweep.periodic != 0u {
        if p == 0u {
            work[sweep.cyclic_at + line] = a / -b;
            r2 = -b;
            b = 2.0 * b;
            a = 0.0;
        }
        if p + 1u == sweep.n {
            let first = row(line, 0u);
            let b0 = ((1.0 - first.a) - first.c) + first.g;
            r2 = c;
            b = b - c * (first.a / -b0);
            c = 0.0;
        }
    }
    return vec4<f32>(a, c, e.r, r2) / b;
}

// The solution x at position p rebuilt in flux form from its neighbours' (see the header).
fn conserved(line: u32, p: u32, x_lo: f32, x: f32, x_hi: f32) -> f32 {
    let e = row(line, p);
    return ((e.r + (-e.a) * (x_lo - x)) + (-e.c) * (x_hi - x)) - e.g * x;
}

// Where the level keeps the faces' memory: what the face to position p + 1 moves into position
// p this step, k·w·(rise + x_hi − x); 0 at a line's end that is not periodic (a ghost face).
fn hi_flux(line: u32, p: u32, x: f32, x_hi: f32) -> f32 {
    if params.faces == 0u || !(p + 1u < sweep.n || sweep.periodic != 0u) {
        return 0.0;
    }
    let c = line_cell(line, p);
    let m = line_cell(line, select(p + 1u, 0u, p + 1u == sweep.n));
    let w = params.k * weight(c, m);
    return w * rise(c, m) + w * (x_hi - x);
}

// The solution x at position p with its neighbours' rebuilt in flux form: the y sweep ends the
// step for the cell; the x sweep stores δx, and where the level keeps the faces' memory, its
// east face's flux in the cell's memory word until the y sweep's `finish_cell` reads it (only
// this cell's invocations touch the word).
fn emit(line: u32, p: u32, x_lo: f32, x: f32, x_hi: f32) {
    let c = line_cell(line, p);
    let delta = conserved(line, p, x_lo, x, x_hi);
    let flux = hi_flux(line, p, x, x_hi);
    if sweep.axis == 0u {
        work[c] = delta;
        if params.faces != 0u {
            vel_out[cells() + 2u * c] = flux;
        }
    } else {
        finish_cell(c, delta_x(c) + delta, flux);
    }
}

// One PCR step of equation e with its neighbours lo and hi at the current distance (zero
// equations past the ends): eliminates both couplings, doubling their distance.
fn pcr(e: vec4<f32>, lo: vec4<f32>, hi: vec4<f32>) -> vec4<f32> {
    let b = 1.0 - e.x * lo.y - e.y * hi.x;
    let a = -e.x * lo.x;
    let c = -e.y * hi.y;
    let r = e.z - e.x * lo.z - e.y * hi.z;
    let r2 = e.w - e.x * lo.w - e.y * hi.w;
    return vec4<f32>(a, c, r, r2) / b;
}

// The step's end for a cell: eta' = eta + δ (compensated), vel' = δ, then the dry-cell rule.
// Where the level keeps the faces' memory, the cell's east and north faces remember what they
// moved (`north`: the y sweep's `hi_flux`; the east face's the x sweep left in the word), and the
// clamp record books the kept change the faces do not hold.
fn finish_cell(c: u32, delta: f32, north: f32) {
    let s = two_sum(eta_in[c], delta + carry[c]);
    if params.faces == 0u {
        store(c, ground[c], s.x, delta, s.y);
        return;
    }
    let a = agree_at(c);
    let keep = keep_of(c);
    let at = cells() + 2u * c;
    let nx = params.nx;
    let e = select(c + 1u, c + 1u - nx, c % nx + 1u == nx);
    let n = select(c + nx, c % nx, c / nx + 1u == params.ny);
    let east_new = remember_shared(a.real.y, a.open.y, keep, a.q.y, share(c, e, false), vel_out[at]);
    let north_new = remember_shared(a.real.w, a.open.w, keep, a.q.w, share(c, n, true), north);
    let dropped = a.kept - held(a, keep_of(west_of(c)), keep, keep_of(south_of(c)));
    store_booked(c, ground[c], s.x, delta, s.y, dropped);
    vel_out[at] = east_new;
    vel_out[at + 1u] = north_new;
}

fn cells() -> u32 {
    return params.nx * params.ny;
}

// Every cell's equation into scratch half 0 (`scratch0`), for lines that take global steps.
@compute @workgroup_size(16, 16)
fn build(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= params.nx || gid.y >= params.ny {
        return;
    }
    let lp = line_pos(gid.x, gid.y);
    scratch0[cell(gid.x, gid.y)] = equation(lp.x, lp.y);
}

// One PCR step in global memory, half `src` to the other half.
@compute @workgroup_size(16, 16)
fn reduce_global(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= params.nx || gid.y >= params.ny {
        return;
    }
    let lp = line_pos(gid.x, gid.y);
    let s = sweep.stride;
    let c = cell(gid.x, gid.y);
    var lo = vec4<f32>(0.0);
    var hi = vec4<f32>(0.0);
    if lp.y >= s {
        lo = scratch_read(sweep.src, line_cell(lp.x, lp.y - s));
    }
    if lp.y + s < sweep.n {
        hi = scratch_read(sweep.src, line_cell(lp.x, lp.y + s));
    }
    let e = pcr(scratch_read(sweep.src, c), lo, hi);
    if sweep.src == 0u {
        scratch1[c] = e;
    } else {
        scratch0[c] = e;
    }
}

// 16 KiB: the smallest workgroup memory any adapter offers.
var<workgroup> exchange: array<vec2<f32>, CHIP>;

// Solves `tile` lines (or, after global steps, one interleaved part of each) on chip.
// Workgroup (x, y): lines x·tile…, part y of 2^levels. Each thread holds PER consecutive rows of
// a line and brings them to the form x_k + a'_k·x_first + c'_k·x_last = d'_k by a modified
// Thomas sweep down and up its rows (Laszlo, Giles & Appleyard 2016), where x_first and x_last
// are its own first and last unknowns; those rows still couple to the neighbouring threads'
// ends, a tridiagonal system of two unknowns a thread that PCR solves through workgroup memory
// (log2(2·threads per line) steps of two barriers), and each thread then has its other rows at
// once. Measured on an H100 the line-wide PCR this replaces ran the 1024² step at 80 GB/s: 44
// barriers and 8 rows of PCR work a thread each step left the solve waiting, not streaming.
@compute @workgroup_size(256)
fn solve(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) group: vec3<u32>) {
    let tile = sweep.tile;
    let per_line = WG / tile;
    let line_in_tile = select(t / per_line, t % tile, sweep.axis == 1u);
    let lane = select(t % per_line, t / tile, sweep.axis == 1u);
    let line = group.x * tile + line_in_tile;
    let parts = 1u << sweep.levels;
    let part = group.y;
    let n = sweep.n;
    let len = select(0u, (n - part + parts - 1u) / parts, part < n);
    let live = line < sweep.lines;
    let at = line_in_tile * sweep.chip;
    let first = lane * PER;

    // This thread's rows (a, c, r, r2); rows past the line are x = 0 and couple to nothing.
    var eq: array<vec4<f32>, PER>;
    for (var q = 0u; q < PER; q++) {
        let m = first + q;
        var e = vec4<f32>(0.0);
        if live && m < len {
            let p = part + parts * m;
            if sweep.from_scratch != 0u {
                e = scratch_read(sweep.src, line_cell(line, p));
            } else {
                e = equation(line, p);
            }
        }
        eq[q] = e;
    }

    // Down: row k ≥ 2 loses its coupling to row k − 1 for one to row 0 (row 1's is already).
    for (var k = 2u; k < PER; k++) {
        let e = eq[k];
        let up = eq[k - 1u];
        let r = 1.0 / (1.0 - e.x * up.y);
        eq[k] = vec4<f32>(-r * e.x * up.x, r * e.y, r * (e.zw - e.x * up.zw));
    }
    // Up: rows PER − 3 … 1 lose theirs to row k + 1 for one to the last row; row 0 its to row 1.
    for (var i = 0u; i + 3u < PER; i++) {
        let k = PER - 3u - i;
        let e = eq[k];
        let down = eq[k + 1u];
        eq[k] = vec4<f32>(e.x - e.y * down.x, -e.y * down.y, e.zw - e.y * down.zw);
    }
    let r0 = 1.0 / (1.0 - eq[0].y * eq[1].x);
    eq[0] = vec4<f32>(r0 * eq[0].x, -r0 * eq[0].y * eq[1].y, r0 * (eq[0].zw - eq[0].y * eq[1].zw));

    // The threads' first and last rows: unknowns 2·lane and 2·lane + 1 of a tridiagonal system,
    // by PCR. Each line keeps 4·per_line vec2s of the exchange array (4·WG in all).
    let count = 2u * per_line;
    let base = line_in_tile * 4u * per_line;
    var ends = array<vec4<f32>, 2>(eq[0], eq[PER - 1u]);
    for (var s = 1u; s < count; s = s * 2u) {
        for (var h = 0u; h < 2u; h++) {
            let i = 2u * lane + h;
            exchange[base + 2u * i] = ends[h].xy;
            exchange[base + 2u * i + 1u] = ends[h].zw;
        }
        workgroupBarrier();
        var next: array<vec4<f32>, 2>;
        for (var h = 0u; h < 2u; h++) {
            let i = 2u * lane + h;
            var lo = vec4<f32>(0.0);
            var hi = vec4<f32>(0.0);
            if i >= s {
                let j = base + 2u * (i - s);
                lo = vec4<f32>(exchange[j], exchange[j + 1u]);
            }
            if i + s < count {
                let j = base + 2u * (i + s);
                hi = vec4<f32>(exchange[j], exchange[j + 1u]);
            }
            next[h] = pcr(ends[h], lo, hi);
        }
        workgroupBarrier();
        ends = next;
    }

    // Every row from the ends: (x, z), z the periodic lines' second channel.
    let x_first = ends[0].zw;
    let x_last = ends[1].zw;
    var x: array<vec2<f32>, PER>;
    for (var q = 0u; q < PER; q++) {
        x[q] = eq[q].zw - eq[q].x * x_first - eq[q].y * x_last;
    }
    x[0] = x_first;
    x[PER - 1u] = x_last;

    if sweep.fused != 0u {
        // Whole lines on chip: neighbours' x through the exchange array, then flux form.
        for (var q = 0u; q < PER; q++) {
            exchange[at + first + q] = x[q];
        }
        workgroupBarrier();
        for (var q = 0u; q < PER; q++) {
            let m = first + q;
            if live && m < len {
                let x_lo = select(0.0, exchange[at + max(m, 1u) - 1u].x, m > 0u);
                let x_hi = select(0.0, exchange[at + min(m + 1u, sweep.chip - 1u)].x, m + 1u < len);
                emit(line, m, x_lo, x[q].x, x_hi);
            }
        }
    } else {
        for (var q = 0u; q < PER; q++) {
            let m = first + q;
            if live && m < len {
                let c = line_cell(line, part + parts * m);
                work[sweep.out_at + c] = x[q].x;
                if sweep.periodic != 0u {
                    work[sweep.z_at + c] = x[q].y;
                }
            }
        }
    }
}

// Sherman–Morrison per periodic line: turns the stored β/γ into (v·y)/(1 + v·z).
@compute @workgroup_size(64)
fn cyclic_factor(@builtin(global_invocation_id) gid: vec3<u32>) {
    let line = gid.x;
    if line >= sweep.lines {
        return;
    }
    let ratio = work[sweep.cyclic_at + line];
    let first = line_cell(line, 0u);
    let last = line_cell(line, sweep.n - 1u);
    let vy = work[sweep.out_at + first] + ratio * work[sweep.out_at + last];
    let vz = work[sweep.z_at + first] + ratio * work[sweep.z_at + last];
    work[sweep.cyclic_at + line] = vy / (1.0 + vz);
}

// A solve's x at position p of a line, Sherman–Morrison's correction applied on periodic lines
// (after `cyclic_factor`).
fn solved(line: u32, p: u32) -> f32 {
    let c = line_cell(line, p);
    var x = work[sweep.out_at + c];
    if sweep.periodic != 0u {
        x = x - work[sweep.cyclic_at + line] * work[sweep.z_at + c];
    }
    return x;
}

// The flux-form rebuild when the solve could not fuse it (lines split by global steps, or
// periodic): δx stored, or the step ended from δy.
@compute @workgroup_size(16, 16)
fn conserve(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= params.nx || gid.y >= params.ny {
        return;
    }
    let lp = line_pos(gid.x, gid.y);
    let line = lp.x;
    let p = lp.y;
    let n = sweep.n;
    let wraps = sweep.periodic != 0u;
    var x_lo = 0.0;
    var x_hi = 0.0;
    if p > 0u || wraps {
        x_lo = solved(line, select(p - 1u, n - 1u, p == 0u));
    }
    if p + 1u < n || wraps {
        x_hi = solved(line, select(p + 1u, 0u, p + 1u == n));
    }
    emit(line, p, x_lo, solved(line, p), x_hi);
}

// A corner between two slope sides never moves under zero curvature both ways (Wilson et al.'s
// flaw): it takes the mean of its two edge neighbours' new heights, as in the explicit solver,
// at sea.
@compute @workgroup_size(4)
fn corners(@builtin(local_invocation_index) t: u32) {
    let nx = params.nx;
    let ny = params.ny;
    let east = (t & 1u) != 0u;
    let north = (t & 2u) != 0u;
    let x_slope = select(params.bc_west, params.bc_east, east) == GHOST_SLOPE;
    let y_slope = select(params.bc_south, params.bc_north, north) == GHOST_SLOPE;
    if !(x_slope && y_slope) {
        return;
    }
    let i = select(0u, nx - 1u, east);
    let j = select(0u, ny - 1u, north);
    let c = cell(i, j);
    // Not on a bank, where the mean of the neighbours' surfaces stands water on a dry slope.
    if on_bank(ground[c]) {
        return;
    }
    let x_nbr = cell(select(1u, nx - 2u, east), j);
    let y_nbr = cell(i, select(1u, ny - 2u, north));
    let eta_new = 0.5 * (eta_out[x_nbr] + eta_out[y_nbr]);
    store(c, ground[c], eta_new, eta_new - eta_in[c], 0.0);
}
