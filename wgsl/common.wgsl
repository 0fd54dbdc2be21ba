// Shared by every pass (prepended to each shader by src/gpu/shaders.rs).
// Heights are stored relative to the scene's reference level: eta = h − ref, ground = b − ref.
// Mirrors `crate::params::Params` in Rust: keep both in step (a test checks the size).

struct Params {
    nx: u32,
    ny: u32,
    // g·dt²/dx² for one substep.
    k: f32,
    // 1 − tau: Kass & Miller eq. 17 damping of the per-step change.
    keep: f32,
    bc_west: u32,
    bc_east: u32,
    bc_south: u32,
    bc_north: u32,
    // Factor applied to vel when the substep count changes (vel is a per-substep change).
    vel_scale: f32,
    n_partials: u32,
    n_probes: u32,
    _pad: u32,
}

// Totals of the last reduction (reduce.wgsl).
struct Totals {
    sum_eta: f32,
    wet: u32,
    max_depth: f32,
    nonfinite: u32,
}

// One step's index within the current submit, bound with a dynamic offset.
struct StepSlot {
    index: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const REFLECT: u32 = 0u;
const OPEN: u32 = 1u;
const PERIODIC: u32 = 2u;
const ABSORB: u32 = 3u;
const GHOST_MEAN: u32 = 4u;
const GHOST_SLOPE: u32 = 5u;

fn cell(i: u32, j: u32) -> u32 {
    return j * params.nx + i;
}

// NaN and ±inf both have an all-ones exponent; comparisons with NaN may be folded away, bits are not.
fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

fn depth(eta: f32, ground_rel: f32) -> f32 {
    return max(eta - ground_rel, 0.0);
}
