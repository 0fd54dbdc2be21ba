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

