#import level
// The explicit height-field step (Kass & Miller eq. 8 in flux form, GAMES103 "Solution 1"):
//
//   vel' = (1 − tau)·vel + k · Σ_faces d_face·(eta_nbr − eta),   eta' = eta + vel' (compensated)
//
// with k = g·dt²/dx², vel = h^n − h^(n−1) (the per-step change: float32 keeps its digits), and
// d_face = (d + d_nbr)/2. Each face term is computed bit-identically, with opposite sign, by the two
// cells it joins, so with closed walls the sum of eta changes only by rounding.
// Wet/dry face rule: a face whose higher side is dry carries nothing. With the plain mean a dry bank
// standing above the water would leak into it every step and the dry-cell clamp would refill the
// bank: a still lake on a beach would rise forever. (Capping d_face at LISFLOOD-FP's flow depth,
// max(h) − max(b), was tried and made beaches drift more: a receding shore cell drains through its
// own inertia, `keep·vel`, and capped faces can no longer slow it before the clamp fires.)
// Twin: src/cpu/explicit.rs.
//
// The fused entries run one workgroup of 256 threads per SUMS_WG·SUMS_PER_THREAD cells in
// sums.wgsl's order (contiguous runs of 256 cells). In a closed basin with the global correction
// and nothing else (`Schedule::fuses_correction`) the step is fused with the passes around it: `step_sums` sums the level it writes into the reduction's partials (reduce.wgsl then
// only folds them), and `step_corrected*` applies the correction the last step settled as it
// reads each cell, by volume.wgsl's `apply` (which then runs once per chunk, not per step). The
// results are the unfused passes' bit for bit: the same operations on the same values.

// The level as the step reads it: (eta, vel, carry) of cell c, with the settled correction
// applied when `corrected` (volume.wgsl's `apply` on one cell: a wet cell moves by the
// correction, compensated, then the dry-cell rule). A neighbour's corrected height needs only
// its height, its ground and the correction: its carry, which its own thread rewrites in this
// dispatch, is read only for the cell itself.
fn read_cell(c: u32, corrected: bool) -> vec3<f32> {
    let level = vec3<f32>(eta_in[c], vel_in[c], carry[c]);
    if !corrected {
        return level;
    }
    let b = ground[c];
    let moved = take_correction(level.x, level.y, level.z, b, vec2<f32>(books.volume.correction, books.volume.vel_correction));
    return select(moved, vec3<f32>(b, 0.0, 0.0), moved.x <= b);
}

// `lift`: the rise of the air pressure's head across the face (0 without [[pressure]]).
fn face(eta_c: f32, d_c: f32, eta_n: f32, d_n: f32, lift: f32) -> f32 {
    return face_depth(eta_c, d_c, eta_n, d_n) * ((eta_n - eta_c) + lift);
}

// The neighbour across one face: a real cell (interior or periodic) or a ghost. `mode` is the side's
// boundary mode, or INTERIOR away from the sides; (eta_n, b_n) the neighbour cell's values (wrapped
// across a side), (eta_o, b_o) those of the opposite neighbour along the same axis (the inner cell
// at a side). Branch-free, and each cell's values are loaded once in `wave`: the software adapters
// pay per storage access, GPUs per instruction.
const INTERIOR: u32 = 6u;

// (phi_c, phi_n, phi_o): the pressure head at the cell, the neighbour and the opposite one; a
// ghost has the cell's own (no pressure gradient across a side).
fn face_term(mode: u32, eta_c: f32, d_c: f32, b_c: f32, eta_n: f32, b_n: f32, eta_o: f32, b_o: f32, mean: f32, phi: vec3<f32>) -> f32 {
    let real = mode == INTERIOR || mode == PERIODIC;
    // A bank: the edge's ground above the still level, no sea beyond it (`on_bank`).
    let bank = on_bank(b_c);
    var eta_g = eta_n;
    eta_g = select(eta_g, 0.0, !real); // Dirichlet at the still level
    eta_g = select(eta_g, mean, mode == GHOST_MEAN && !bank); // Wilson: mean surface height
    // A ghost stands on the edge's ground, its level never below it: beside a bank it is dry land
    // at the edge's height, so water leaves by its own depth and none comes in. (At the still
    // level 6 m below a rained-on bank an open side drained the film out uphill; at the mean wet
    // surface, halfway up a rained-on slope, a ghost-mean side poured in 5000× the rain.)
    let b_g = select(b_c, b_n, real);
    eta_g = select(max(eta_g, b_c), eta_g, real);
    let term = face(eta_c, d_c, eta_g, depth(eta_g, b_g), select(0.0, phi.y - phi.x, real));
    // Wilson's slope ghost, 2·h_edge − h_inner, is zero normal curvature: its face carries exactly
    // the inner face's flux, mirrored. (A ghost depth measured from the edge's ground instead pumps
    // water in wherever the surface slopes, and pours it onto dry sloping banks.) On a bank it only
    // lets water out: at the uphill side the mirror of the water draining downhill came in from
    // nothing, the top cells never drained, and rain on a slope diverged.
    let mirrored = -face(eta_c, d_c, eta_o, depth(eta_o, b_o), phi.z - phi.x);
    let slope = select(mirrored, min(mirrored, 0.0), bank);
    // reflect: no flux through the wall. absorb: `edges` replaces the cell with Mur's update, at
    // sea; on a bank, where Mur read the terrain's slope as a wave and made water from it, the
    // side lets the water out as an open one does.
    let wall = mode == REFLECT || (mode == ABSORB && !bank);
    return select(select(term, slope, mode == GHOST_SLOPE), 0.0, wall);
}

// The update of one cell: its new level and change (before edge overrides and the dry-cell
// rule), its east and north faces' new memory, and the four faces' new memory signed into it
// (what the dry-cell rule, if it fires, leaves in the faces: the clamp record books the rest).
struct Wave {
    eta: f32,
    vel: f32,
    memory: vec2<f32>,
    into: f32,
}

// The dry-cell rule and the store (level.wgsl's), booking the change less what stays in the
// faces, then the faces' memory.
fn store_step(c: u32, b_c: f32, r: Wave, eta_new: f32, residual: f32) -> vec2<f32> {
    let stored = store_booked(c, b_c, eta_new, r.vel, residual, r.vel - r.into);
    if params.faces != 0u {
        let at = params.nx * params.ny + 2u * c;
        vel_out[at] = r.memory.x;
        vel_out[at + 1u] = r.memory.y;
    }
    return stored;
}

// The flux-form update of cell (i, j); `corrected`: the level read as `read_cell` reads it.
fn wave(i: u32, j: u32, corrected: bool) -> Wave {
    let nx = params.nx;
    let ny = params.ny;
    let c = cell(i, j);
    let here = read_cell(c, corrected);
    let eta_c = here.x;
    let b_c = ground[c];
    let d_c = depth(eta_c, b_c);
    let mean = mean_surface();
    let w = select(c - 1u, cell(nx - 1u, j), i == 0u);
    let e = select(c + 1u, cell(0u, j), i == nx - 1u);
    let s = select(c - nx, cell(i, ny - 1u), j == 0u);
    let n = select(c + nx, cell(i, 0u), j == ny - 1u);
    let eta_w = read_cell(w, corrected).x;
    let eta_e = read_cell(e, corrected).x;
    let eta_s = read_cell(s, corrected).x;
    let eta_n = read_cell(n, corrected).x;
    let b_w = ground[w];
    let b_e = ground[e];
    let b_s = ground[s];
    let b_n = ground[n];
    let phi_c = head_of(c);
    let phi_w = head_of(w);
    let phi_e = head_of(e);
    let phi_s = head_of(s);
    let phi_n = head_of(n);
    let mode_w = select(INTERIOR, params.bc_west, i == 0u);
    let mode_e = select(INTERIOR, params.bc_east, i == nx - 1u);
    let mode_s = select(INTERIOR, params.bc_south, j == 0u);
    let mode_n = select(INTERIOR, params.bc_north, j == ny - 1u);
    let west = face_term(mode_w, eta_c, d_c, b_c, eta_w, b_w, eta_e, b_e, mean, vec3<f32>(phi_c, phi_w, phi_e));
    let east = face_term(mode_e, eta_c, d_c, b_c, eta_e, b_e, eta_w, b_w, mean, vec3<f32>(phi_c, phi_e, phi_w));
    let south = face_term(mode_s, eta_c, d_c, b_c, eta_s, b_s, eta_n, b_n, mean, vec3<f32>(phi_c, phi_s, phi_n));
    let north = face_term(mode_n, eta_c, d_c, b_c, eta_n, b_n, eta_s, b_s, mean, vec3<f32>(phi_c, phi_n, phi_s));
    // The faces in a fixed order, each partial sum through `one` so no compiler reassociates them
    // (Mesa's GL path did: 1 ulp off the CPU twin in a third of the cells each step).
    let faces = (((west + east) * params.one + south) * params.one + north) * params.one;
    let keep = keep_of(c);
    if params.faces == 0u {
        let vel = keep * here.y + params.k * faces;
        return Wave(eta_c + vel, vel, vec2<f32>(0.0), 0.0);
    }
    let wet = vec4<bool>(eta_w > b_w, eta_e > b_e, eta_s > b_s, eta_n > b_n);
    let a = agree(i, j, c, w, s, eta_c > b_c, wet, keep, here.y);
    let vel = a.kept + params.k * faces;
    let keep_w = keep_of(w);
    let keep_s = keep_of(s);
    let west_new = remember(a.real.x, a.open.x, keep_w, a.q.x, params.k * -west);
    let east_new = remember(a.real.y, a.open.y, keep, a.q.y, params.k * east);
    let south_new = remember(a.real.z, a.open.z, keep_s, a.q.z, params.k * -south);
    let north_new = remember(a.real.w, a.open.w, keep, a.q.w, params.k * north);
    let remembered = vec4<f32>(west_new, east_new, south_new, north_new);
    let d_w = depth(eta_w, b_w);
    let d_e = depth(eta_e, b_e);
    let d_s = depth(eta_s, b_s);
    let d_n = depth(eta_n, b_n);
    let limited = vec4<f32>(limit(west_new, d_w, d_c), limit(east_new, d_c, d_e), limit(south_new, d_s, d_c), limit(north_new, d_c, d_n));
    // What `limit` held back of each face's kept memory, and of the faces one cell beyond the
    // neighbours (`hand_on`).
    let kept_q = vec4<f32>(
        remember(a.real.x, a.open.x, keep_w, a.q.x, 0.0),
        remember(a.real.y, a.open.y, keep, a.q.y, 0.0),
        remember(a.real.z, a.open.z, keep_s, a.q.z, 0.0),
        remember(a.real.w, a.open.w, keep, a.q.w, 0.0),
    );
    let excess = vec4<f32>(
        held_back(remembered.x, limited.x, kept_q.x),
        held_back(remembered.y, limited.y, kept_q.y),
        held_back(remembered.z, limited.z, kept_q.z),
        held_back(remembered.w, limited.w, kept_q.w),
    );
    // A loop, not four calls: every entry inlines `wave` (`edges` three times), and four inlined
    // copies of `held_back_at` made the module too large for SwiftShader's WebGPU to compile.
    var beyond = vec4<f32>(0.0);
    for (var f = 0u; f < 4u; f = f + 1u) {
        let north = f >= 2u;
        let x = select(select((i + 2u * nx - 2u) % nx, (i + 1u) % nx, f == 1u), i, north);
        let y = select(j, select((j + 2u * ny - 2u) % ny, (j + 1u) % ny, f == 3u), north);
        beyond[f] = held_back_at(x, y, north, corrected);
    }
    let handed = vec4<f32>(
        hand_on(a.real.x, limited.x, beyond.x, excess.y, d_w, d_c),
        hand_on(a.real.y, limited.y, excess.x, beyond.y, d_c, d_e),
        hand_on(a.real.z, limited.z, beyond.z, excess.w, d_s, d_c),
        hand_on(a.real.w, limited.w, excess.z, beyond.w, d_c, d_n),
    );
    let into = into_cell(remembered);
    let into_handed = into_cell(handed);
    let moved = select(vel, vel + (into_handed - into) * params.one, any(handed != remembered));
    return Wave(eta_c + moved, moved, handed.yw, into_handed);
}

// The momentum `limit` held back at a face (its new memory `remembered` less `limited`), as far
// as the face's kept memory `kept` carried it: the water the face had set moving. The rest is
// this step's pressure across the face, which on a cell barely wet (a film on a bank beside the
// sea) is the bank's height, not a wave's: handed on, it made energy (a beach kept 1.027 of its
// energy over 50 run-ups).
fn held_back(remembered: f32, limited: f32, kept: f32) -> f32 {
    let excess = remembered - limited;
    return select(max(excess, min(kept, 0.0)), min(excess, max(kept, 0.0)), excess > 0.0);
}

// `held_back` at the real face east of (north of, `north`) cell (i, j), computed as the cell
// that owns it computes it in `wave`; 0 at a ghost face.
fn held_back_at(i: u32, j: u32, north: bool, corrected: bool) -> f32 {
    let nx = params.nx;
    let ny = params.ny;
    let real = select(i + 1u < nx || params.bc_east == PERIODIC, j + 1u < ny || params.bc_north == PERIODIC, north);
    let a = cell(i, j);
    let b = select(cell((i + 1u) % nx, j), cell(i, (j + 1u) % ny), north);
    let eta_a = read_cell(a, corrected).x;
    let eta_b = read_cell(b, corrected).x;
    let b_a = ground[a];
    let b_b = ground[b];
    let d_a = depth(eta_a, b_a);
    let d_b = depth(eta_b, b_b);
    let q = memory_at(a, north);
    let open = open_face(true, eta_a > b_a, eta_b > b_b, q);
    let keep = keep_of(a);
    let remembered = remember(true, open, keep, q, params.k * face(eta_a, d_a, eta_b, d_b, head_of(b) - head_of(a)));
    let kept = remember(true, open, keep, q, 0.0);
    return select(0.0, held_back(remembered, limit(remembered, d_a, d_b), kept), real);
}

// A real face's new memory `q` (signed into its owner, the west or south cell, after `limit`)
// with what `limit` held back at the faces beyond its two cells handed on to it (issue 16).
// `from_before` is `held_back` at the face before the owner along the axis, `from_after` at the
// face after the other cell. A face that `limit` held back from draining a film into a cell hands
// what it held back to that cell's far face, where the water it was pushing stands: without this
// a wave lost 4.5 % of its energy over 50 run-ups of a 1:20 beach, to the momentum the limit
// dropped as each shoreline cell drained, and the loss shrank only as fast as dx. Only what
// moves water into the cell between passes on (negative at the face before: out of its owner,
// into the owner here; positive at the face after: into its owner, the other cell here). The sum
// is limited again, so it never moves more than a quarter of its source; both sides of the face
// compute it from the same values, so the water it moves stays conserved.
fn hand_on(real: bool, q: f32, from_before: f32, from_after: f32, d_owner: f32, d_other: f32) -> f32 {
    let handed = min(from_before, 0.0) + max(from_after, 0.0);
    return select(q, limit(q + handed, d_owner, d_other), real && handed != 0.0);
}

// `wave` for a cell with no side among its faces, in a scene with no air pressure, no damping map
// and no faces' memory: the same operations on the same values in the same order (a real face's
// lift is head − head = 0 there, its keep params.keep), less what only sides, ghosts and forcing
// need. `wave` computes every face twice (its own term and the slope ghost's mirror) and loads the
// forcing fields' flags five times: on an H200 the plain step took 947 µs at 8192² with `wave`
// alone (1.98 TB/s) and 579 with this (3.25 TB/s), bound by those instructions, not its 28
// bytes. `here` is the cell's level as read, (eta_s, b_s) and (eta_n, b_n) its south and north
// neighbours' height and ground (the plain step reads a column once for two rows); the west and
// east ones are read here.
fn wave_plain(c: u32, here: vec3<f32>, b_c: f32, eta_s: f32, b_s: f32, eta_n: f32, b_n: f32) -> Wave {
    let eta_c = here.x;
    let d_c = depth(eta_c, b_c);
    let eta_w = eta_in[c - 1u];
    let eta_e = eta_in[c + 1u];
    let west = face(eta_c, d_c, eta_w, depth(eta_w, ground[c - 1u]), 0.0);
    let east = face(eta_c, d_c, eta_e, depth(eta_e, ground[c + 1u]), 0.0);
    let south = face(eta_c, d_c, eta_s, depth(eta_s, b_s), 0.0);
    let north = face(eta_c, d_c, eta_n, depth(eta_n, b_n), 0.0);
    let faces = (((west + east) * params.one + south) * params.one + north) * params.one;
    let vel = params.keep * here.y + params.k * faces;
    return Wave(eta_c + vel, vel, vec2<f32>(0.0), 0.0);
}

// Whether cell (i, j) may take `wave_plain`: uniform in the scene, then per cell.
fn plain(i: u32, j: u32) -> bool {
    let scene = params.faces == 0u && (params.forcing & (FORCE_PRESSURE | FORCE_DAMPING_MAP)) == 0u;
    return scene && i > 0u && j > 0u && i + 1u < params.nx && j + 1u < params.ny;
}

// Cell c's new level from `r`, compensated (see `step_cells`), stored with the dry-cell rule.
fn step_store(c: u32, here: vec3<f32>, b_c: f32, r: Wave) {
    let sum = two_sum(here.x, r.vel + here.z);
    store_step(c, b_c, r, sum.x, sum.y);
}

// The plain step's update of cell (i, j), one cell alone: `wave_plain` where it may, else `wave`.
fn step_cell(i: u32, j: u32) {
    let c = cell(i, j);
    let here = read_cell(c, false);
    if plain(i, j) {
        let nx = params.nx;
        step_store(c, here, ground[c], wave_plain(c, here, ground[c], eta_in[c - nx], ground[c - nx], eta_in[c + nx], ground[c + nx]));
        return;
    }
    step_store(c, here, ground[c], wave(i, j, false));
}

// Steps workgroup `group`'s cells (sums.wgsl's order); returns this thread's sums of what it wrote.
fn step_cells(group: u32, t: u32, corrected: bool) -> Lane {
    let n = params.nx * params.ny;
    var lane = empty_lane();
    for (var m = 0u; m < SUMS_PER_THREAD; m = m + 1u) {
        let c = sums_cell(group, m, t);
        if c < n {
            let j = c / params.nx;
            let i = c - j * params.nx;
            let here = read_cell(c, corrected);
            // `wave`, not `wave_plain` (13 % faster here on an H200): with it lavapipe grew faster
            // still, by the leak `state::uniforms_as_storage` now avoids; not yet brought back.
            let r = wave(i, j, corrected);
            // eta' = eta + (vel' + carry), compensated (Knuth's TwoSum): the exact rounding error
            // goes back into `carry`. Plain f32 addition drifts the volume systematically
            // (−1.7e-6 in 20,000 steps on a test basin); with the carry, Σ(eta + carry) changes
            // only by roundings of vel's size.
            let sum = two_sum(here.x, r.vel + here.z);
            let b = ground[c];
            let stored = store_step(c, b, r, sum.x, sum.y);
            // Σvel counts what the faces do not hold (reduce.wgsl's `partial_sums`).
            add_cell(&lane, stored.x, b, stored.y - r.into, 0.0);
        }
    }
    return lane;
}

// The reduction's partial of the level the workgroup wrote (reduce.wgsl's `partial_sums`).
fn write_sums(group: u32, t: u32, lane: Lane) {
    let sums = tree(t, lane);
    if t == 0u && group < params.n_partials {
        books.partials[group] = to_totals(sums);
    }
}

// The plain step's tiles. `step_rows`: STEP_WIDTH cells across (one thread each) by STEP_HEIGHT
// down, each thread stepping two cells of a column, so the column's heights and grounds are read
// once for both. Measured on an H200 (Vulkan, 2026-11-28) at 8192²: 16×16 one cell a thread 579
// µs (947 with `wave` alone); two rows a thread in 16×32 tiles 763, 32×16 520, 64×8 513, 128×4
// 515. The same scheme in CUDA C (benches/peer) at 8192²: 16×16 one cell 2.89 TB/s, 64×4 3.48,
// 32×8 two rows 3.90. `step`: CELL_TILE² cells, one a thread, for the software adapters, where
// two rows ran 1.7× (256²) to 2.5× (72×48) slower than one cell (lavapipe, Mesa 22.3, 2026-12-04;
// the two-row build no longer leaks there: `state::uniforms_as_storage`). The host picks
// (`explicit::Explicit::new`) and reads these as crate::wgsl::explicit::*.
const STEP_WIDTH: u32 = 64u;
const STEP_HEIGHT: u32 = 8u;
const CELL_TILE: u32 = 16u;

// The plain step, one cell a thread.
@compute @workgroup_size(CELL_TILE, CELL_TILE)
fn step(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x < params.nx && gid.y < params.ny {
        step_cell(gid.x, gid.y);
    }
}

// The plain step: rows j and j + 1 of column i. Measured faster than the fused entries' runs of
// 256 cells where nothing needs sums.
@compute @workgroup_size(STEP_WIDTH, STEP_HEIGHT / 2u)
fn step_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let j = 2u * gid.y;
    if i >= params.nx || j >= params.ny {
        return;
    }
    if plain(i, j) && plain(i, j + 1u) {
        let nx = params.nx;
        let c = cell(i, j);
        let here = read_cell(c, false);
        let above = read_cell(c + nx, false);
        let b_s = ground[c - nx];
        let b_c = ground[c];
        let b_a = ground[c + nx];
        let b_n = ground[c + 2u * nx];
        let eta_s = eta_in[c - nx];
        let eta_n = eta_in[c + 2u * nx];
        // Both cells' updates before either store: the stores (storage, as the uniforms are on
        // lavapipe) would otherwise make every uniform and neighbour read after them a reload.
        let lower = wave_plain(c, here, b_c, eta_s, b_s, above.x, b_a);
        let upper = wave_plain(c + nx, above, b_a, here.x, b_c, eta_n, b_n);
        step_store(c, here, b_c, lower);
        step_store(c + nx, above, b_a, upper);
        return;
    }
    step_cell(i, j);
    if j + 1u < params.ny {
        step_cell(i, j + 1u);
    }
}

@compute @workgroup_size(256)
fn step_corrected(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    step_cells(wid.x + wid.y * groups.x, t, true);
}

@compute @workgroup_size(256)
fn step_sums(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let group = wid.x + wid.y * groups.x;
    write_sums(group, t, step_cells(group, t, false));
}

@compute @workgroup_size(256)
fn step_corrected_sums(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let group = wid.x + wid.y * groups.x;
    write_sums(group, t, step_cells(group, t, true));
}

// Mur's discrete first-order Engquist–Majda condition at an absorbing side:
//   eta_0' = eta_1 + (s − 1)/(s + 1)·(eta_1' − eta_0),  s = c·dt/dx = sqrt(k·d),
// on the surface above its rest under the air (eta + phi, phi the pressure head): a still sea
// under a low stands at the inverse barometer's level at the side, as in the open ocean, and the
// side lets only waves out. (On eta alone the side read the low's slope as a wave, and a low near
// it drew the sea in without end.) lift = phi_1 − phi_0, 0 without [[pressure]].
fn mur(c: u32, eta_c: f32, d_c: f32, ii: u32, ij: u32) -> f32 {
    let s = sqrt(params.k * d_c);
    let r = (s - 1.0) / (s + 1.0);
    let m = cell(ii, ij);
    let lift = head_of(m) - head_of(c);
    return (eta_in[m] + lift) + r * ((wave(ii, ij, false).eta - eta_c) + lift);
}

// The p-th perimeter cell: the south row, the north row, then the west and east columns without
// their corners. 2·nx + 2·(ny − 2) cells in all.
fn perimeter_cell(p: u32) -> vec2<u32> {
    let nx = params.nx;
    let ny = params.ny;
    if p < nx {
        return vec2<u32>(p, 0u);
    }
    if p < 2u * nx {
        return vec2<u32>(p - nx, ny - 1u);
    }
    let q = p - 2u * nx;
    if q < ny - 2u {
        return vec2<u32>(0u, q + 1u);
    }
    return vec2<u32>(nx - 1u, q - (ny - 2u) + 1u);
}

// Overrides on the perimeter, after `step` in the same submit, at sea (not `on_bank`):
// absorbing sides take Mur's update, and a corner between two slope ghosts — zero curvature both
// ways, it would never move (the flaw Wilson et al. describe) — takes the mean of its two edge neighbours' new heights. (Bilinear
// extrapolation, x + y − diagonal, is not a convex combination and grew without bound after a few
// thousand steps.) Reads only the old level, recomputing the neighbours' update, so it never races
// with `step`'s writes.
@compute @workgroup_size(64)
fn edges(@builtin(global_invocation_id) gid: vec3<u32>) {
    let nx = params.nx;
    let ny = params.ny;
    if gid.x >= 2u * nx + 2u * (ny - 2u) {
        return;
    }
    let ij = perimeter_cell(gid.x);
    let i = ij.x;
    let j = ij.y;
    let c = cell(i, j);
    let eta_c = eta_in[c];
    let b_c = ground[c];
    let d_c = depth(eta_c, b_c);

    var mur_sum = 0.0;
    var mur_count = 0u;
    if i == 0u && params.bc_west == ABSORB {
        mur_sum += mur(c, eta_c, d_c, 1u, j);
        mur_count += 1u;
    }
    if i == nx - 1u && params.bc_east == ABSORB {
        mur_sum += mur(c, eta_c, d_c, nx - 2u, j);
        mur_count += 1u;
    }
    if j == 0u && params.bc_south == ABSORB {
        mur_sum += mur(c, eta_c, d_c, i, 1u);
        mur_count += 1u;
    }
    if j == ny - 1u && params.bc_north == ABSORB {
        mur_sum += mur(c, eta_c, d_c, i, ny - 2u);
        mur_count += 1u;
    }
    let x_edge = select(select(nx, nx - 2u, i == nx - 1u && params.bc_east == GHOST_SLOPE), 1u, i == 0u && params.bc_west == GHOST_SLOPE);
    let y_edge = select(select(ny, ny - 2u, j == ny - 1u && params.bc_north == GHOST_SLOPE), 1u, j == 0u && params.bc_south == GHOST_SLOPE);
    if on_bank(b_c) {
        return;
    }
    if mur_count > 0u && d_c > 0.0 {
        let eta_new = mur_sum / f32(mur_count);
        store(c, b_c, eta_new, eta_new - eta_c, 0.0);
    } else if x_edge < nx && y_edge < ny {
        let eta_new = 0.5 * (wave(x_edge, j, false).eta + wave(i, y_edge, false).eta);
        store(c, b_c, eta_new, eta_new - eta_c, 0.0);
    }
}

// Rescales the per-step change (and the faces' memory of it) when the substep count changes;
// copies eta to the other buffer.
@compute @workgroup_size(256)
fn rescale_velocity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = gid.x + gid.y * groups.x * 256u;
    let n = params.nx * params.ny;
    if c >= n {
        return;
    }
    eta_out[c] = eta_in[c];
    vel_out[c] = vel_in[c] * params.vel_scale;
    if params.faces != 0u {
        let at = n + 2u * c;
        vel_out[at] = vel_in[at] * params.vel_scale;
        vel_out[at + 1u] = vel_in[at + 1u] * params.vel_scale;
    }
}
