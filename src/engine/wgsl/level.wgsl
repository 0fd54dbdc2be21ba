#import sums
#import carry
// The bindings every pass that advances the state shares (explicit.wgsl, adi.wgsl), and the
// last thing such a pass does to a cell: the dry-cell rule, the divergence flag and the store.
// Imported by them with `#import level` (build.rs resolves imports).

// The ground b − ref (words 0..nx·ny), then the per-cell forcing (params.forcing): each cell's
// 1 − tau under the damping map (FORCE_DAMPING_MAP, nx·ny words), then the air pressure's head
// p/(ρg) this step (FORCE_PRESSURE, pressure.wgsl). One binding for both, as WebGPU allows a
// pipeline 8 to 10 storage buffers; 16 unread bytes after the ground without either.
@group(0) @binding(1) var<storage, read> ground: array<f32>;
// Binding 2: the books (books.wgsl): the totals, the volume correction, the divergence flag.
// Binding 3: the carry (carry.wgsl): each cell's rounding residual, then its clamp record.
// The fused explicit step (explicit.wgsl's `step_sums`) writes its per-workgroup sums of the
// level it writes into the books' partials, and applies the correction the last step settled
// (the books' volume) as it reads.

@group(1) @binding(0) var<storage, read> eta_in: array<f32>;
@group(1) @binding(1) var<storage, read> vel_in: array<f32>;
@group(1) @binding(2) var<storage, read_write> eta_out: array<f32>;
@group(1) @binding(3) var<storage, read_write> vel_out: array<f32>;

@group(2) @binding(0) var<uniform> slot: StepSlot;

// Cell c's 1 − tau: the damping map's, or the scene's.
fn keep_of(c: u32) -> f32 {
    if (params.forcing & FORCE_DAMPING_MAP) != 0u {
        return ground[params.nx * params.ny + c];
    }
    return params.keep;
}

// The air pressure's head at cell c (0 without [[pressure]]): it joins the surface in every
// slope the step takes, so the water levels h + p/(ρg).
fn head_of(c: u32) -> f32 {
    if (params.forcing & FORCE_PRESSURE) != 0u {
        let n = params.nx * params.ny;
        let at = select(n, 2u * n, (params.forcing & FORCE_DAMPING_MAP) != 0u);
        return ground[at + c];
    }
    return 0.0;
}

// The depth a face carries: the mean of its two cells' depths, or nothing when its higher side is
// dry (see explicit.wgsl's header for why).
fn face_depth(eta_c: f32, d_c: f32, eta_n: f32, d_n: f32) -> f32 {
    let upper_depth = select(d_c, d_n, eta_n > eta_c);
    return select(0.0, 0.5 * (d_c + d_n), upper_depth > 0.0);
}

// The faces' flux memory (params.faces; issue 16): each cell's east and north faces, two words
// per cell after the nx·ny per-step changes in the same level buffer, so it ping-pongs with them
// and binds nothing new. A face's memory is the part of `vel` it put there, signed as its owner's
// face term: q' = keep·q + k·term while the face is open. A wet cell's `vel` is the sum of its
// faces' memories (and what other passes add), a dry cell's is zero. When a cell dried, the
// dry-cell rule zeroed its `vel` but its wet neighbours' `vel` still held their side of the
// shared faces: the flow out of the dry cell went on (a sloshing wave lost 4–6 % of its
// amplitude per period at a moving shoreline, however fine the grid). Now both sides agree on
// every face (`open_face`): a wet cell forgets a closed face's memory, a dry cell takes back an
// open one's. Used by both solvers (explicit.wgsl, adi.wgsl). Twin:
// src/cpu/explicit.rs (`Memory`).

// Whether a face keeps its memory: between two wet cells it does; where one side is dry, only
// while the memory moves water from the wet side into the dry one (`into_c`: the memory signed
// into this cell). Ghost faces (`real` false: a side other than periodic) keep none.
fn open_face(real: bool, wet_c: bool, wet_n: bool, into_c: f32) -> bool {
    return real && ((wet_c && wet_n) || (wet_c && into_c < 0.0) || (wet_n && into_c > 0.0));
}

// A face's new memory, owned by the cell whose 1 − tau is `keep`; `flux` what the face moves
// this step (the explicit step's k·term, ADI's from its solution).
fn remember(real: bool, open: bool, keep: f32, q: f32, flux: f32) -> f32 {
    return select(0.0, select(0.0, keep * q, open) + flux, real);
}

// The share of a cell's water one face may move out of it in a step: a quarter, so that its four
// faces together never take more than it holds and the dry-cell rule makes no water (issue 16:
// volume conserved by construction, the correction a safety net). Both solvers
// limit by it: explicit.wgsl after its step, adi.wgsl before its solve (`share`). The host reads it as
// crate::wgsl::level::FACE_SHARE (build.rs).
const FACE_SHARE: f32 = 0.25;

// A face's new memory `q`, signed into its owner (the west or south cell, `d_owner` deep;
// `d_other` the other side's depth), moving at most FACE_SHARE of what its source holds at the
// start of the step. Both sides of the face compute it from the same values, so the water it
// moves stays conserved. Selects, not clamp: a NaN passes through to the divergence flag.
fn limit(q: f32, d_owner: f32, d_other: f32) -> f32 {
    let least = -FACE_SHARE * d_owner;
    let most = FACE_SHARE * d_other;
    return select(select(q, most, q > most), least, q < least);
}

// The mean surface ghost-mean sides stand their ghosts at (Wilson et al.'s mean of the columns):
// the last reduction's mean eta over the sea, its wet cells not on a bank, each weighted by its
// depth; the still level where there is no sea. Counting every wet cell let water on land decide
// it: films on a beach stand at the beach's height, so a ghost-mean side poured water in for as
// long as a bank was wet (a source on a 1:10 bank above a 2 m sea, 0.5 m³ in 25 s: the sea gained
// 476 m³), and a film flipping wet or dry by a rounding, which the GPU's and the CPU's ADI solves
// need not share, moved the ghost by its height over the wet count. Twin: src/cpu/explicit.rs.
fn mean_surface() -> f32 {
    let t = books.totals;
    return select(0.0, t.sum_eta_depth / t.sum_wet_depth, t.sum_wet_depth > 0.0);
}

fn memory_at(c: u32, north: bool) -> f32 {
    return vel_in[params.nx * params.ny + 2u * c + u32(north)];
}

// A wet cell's closed faces, or a dry cell's open ones: the memory `kept` moves.
fn pick(open: bool, wet_c: bool, q: f32) -> f32 {
    return select(0.0, q, open != wet_c);
}

// What a cell's faces (west, east, south, north) agree on at the start of a step: their memory
// signed as their owners' face terms, which are real and which keep their memory, and the part
// of the cell's change it keeps (a wet cell less its closed faces', a dry cell plus its open
// ones').
struct Agreed {
    q: vec4<f32>,
    real: vec4<bool>,
    open: vec4<bool>,
    kept: f32,
}

// The agreement for cell c = (i, j), whose west and south neighbours are w and s; `wet` the four
// neighbours' wet flags, `keep` and `vel_c` the cell's 1 − tau and change.
fn agree(i: u32, j: u32, c: u32, w: u32, s: u32, wet_c: bool, wet: vec4<bool>, keep: f32, vel_c: f32) -> Agreed {
    let q = vec4<f32>(memory_at(w, false), memory_at(c, false), memory_at(s, true), memory_at(c, true));
    let real = vec4<bool>(
        i > 0u || params.bc_west == PERIODIC,
        i + 1u < params.nx || params.bc_east == PERIODIC,
        j > 0u || params.bc_south == PERIODIC,
        j + 1u < params.ny || params.bc_north == PERIODIC,
    );
    let open = vec4<bool>(
        open_face(real.x, wet_c, wet.x, -q.x),
        open_face(real.y, wet_c, wet.y, q.y),
        open_face(real.z, wet_c, wet.z, -q.z),
        open_face(real.w, wet_c, wet.w, q.w),
    );
    let moved = ((pick(open.y, wet_c, q.y) + pick(open.w, wet_c, q.w)) * params.one - pick(open.x, wet_c, q.x)) * params.one
        - pick(open.z, wet_c, q.z);
    let kept = select(keep * (vel_c + moved), keep * (vel_c - moved), wet_c);
    return Agreed(q, real, open, select(kept, keep * vel_c, moved == 0.0));
}

// The memory the open faces keep, signed into the cell, each face at its owner's 1 − tau
// (`keep_w`, `keep`, `keep_s`): what of the kept change the faces hold, the rest being what other
// passes added (the clamp record books it when the cell dries).
fn held(a: Agreed, keep_w: f32, keep: f32, keep_s: f32) -> f32 {
    let e = select(0.0, keep * a.q.y, a.open.y);
    let n = select(0.0, keep * a.q.w, a.open.w);
    let w = select(0.0, keep_w * a.q.x, a.open.x);
    let s = select(0.0, keep_s * a.q.z, a.open.z);
    return ((e + n) * params.one - w) * params.one - s;
}

// Dry cells (Kass & Miller §4): a surface at or below the ground is the ground, at rest.
// Then the divergence flag, then the store. Returns what it stored: (eta, vel).
fn store(c: u32, b_c: f32, eta_new: f32, vel_new: f32, residual: f32) -> vec2<f32> {
    return store_booked(c, b_c, eta_new, vel_new, residual, vel_new);
}

// `store`, booking `dropped` in the clamp record as the change the rule drops (the explicit
// step's faces keep part of it: explicit.wgsl's `store_step`).
fn store_booked(c: u32, b_c: f32, eta_new: f32, vel_new: f32, residual: f32, dropped: f32) -> vec2<f32> {
    var eta = eta_new;
    var vel = vel_new;
    var res = residual;
    if eta <= b_c {
        if params.correct == CORRECT_CLAMPS && is_finite(eta) {
            // The water the clamp makes, and the per-step change it drops: the solver's own
            // change of this cell, which its neighbours' opposite face terms balance.
            set_clamped(c, clamped_at(c) + vec2<f32>((b_c - eta_new) - residual, dropped));
        }
        eta = b_c;
        vel = 0.0;
        res = 0.0;
    }
    carry[c] = res;
    if !is_finite(eta) || !is_finite(vel) {
        atomicMin(&books.first_bad_step, slot.index);
    }
    eta_out[c] = eta;
    vel_out[c] = vel;
    return vec2<f32>(eta, vel);
}

