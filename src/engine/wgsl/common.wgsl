#import exact
#import sides
#import slot
#import cover
// Shared by every pass that reads `Params` (each says `#import common`, which build.rs
// resolves). Heights are stored relative to the scene's reference level: eta = h − ref,
// ground = b − ref. The structs here are mirrored in Rust (`crate::params`); a test checks
// their layouts field by field against naga's, and the constants reach Rust as `crate::wgsl::common`.

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
    // Always 1.0. Multiplying by it hides values from the shader compiler's algebra, which would
    // otherwise rewrite an error-free sum such as (a + b) − a into b (see `two_sum`).
    one: f32,
    // How volume.wgsl corrects (CORRECT_*): 0 not at all.
    correct: u32,
    // 1: the scene has sources or drains (a per-cell height per step in volume.wgsl's `source`).
    sources: u32,
    // Σ of the sources' requested height per step, drains negative (metres·cells): the target's
    // change each step, before any drain's shortfall.
    source_step: f32,
    // Regions the per-region correction tracks (regions.wgsl); 0: volume_correction is not "regions".
    regions: u32,
    // Rigid bodies (bodies.wgsl); 0: none. With bodies, `reduce` leaves out the body volume
    // that submerged bodies hold in their columns.
    bodies: u32,
    // Substeps per step (the pipes model derives its internal step from it).
    substeps: u32,
    // How [rainfall] falls in volume.wgsl's `apply` (RAINFALL_*): not, uniformly, or by the map.
    rainfall: u32,
    // Per-cell forcing fields the step reads (FORCE_* bits).
    forcing: u32,
    // 1: each step ends with summary.wgsl.
    summary: u32,
    // 1: the explicit step keeps each face's flux memory (explicit.wgsl's `faces_in`).
    faces: u32,
    // [infiltration]'s law (soil.wgsl's SOIL_*; 0: none), which volume.wgsl's `apply` takes.
    infiltration: u32,
    _pad5: u32,
}

const RAINFALL_UNIFORM: u32 = 1u;
const RAINFALL_MAP: u32 = 2u;
// The surface's air pressure as a head p/(ρg), m (pressure.wgsl), joins the surface's slope.
const FORCE_PRESSURE: u32 = 1u;
// Each cell's own 1 − tau (the damping map) replaces params.keep.
const FORCE_DAMPING_MAP: u32 = 2u;
// [infiltration]: the soil's state is kept (the height field's volume pass and the
// shallow-water model's feed take it: soil.wgsl).
const FORCE_INFILTRATION: u32 = 4u;

// Every pass binds the uniform parameters at group 0, binding 0.
@group(0) @binding(0) var<uniform> params: Params;

// Knuth's TwoSum through `params.one` (exact.wgsl).
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    return two_sum_through(a, b, params.one);
}

// Totals of the last reduction (reduce.wgsl).
struct Totals {
    // Σ eta·depth over wet cells: with `sum_wet_depth`, the mean surface ghost-mean sides read
    // (level.wgsl's `mean_surface`).
    sum_eta_depth: f32,
    wet: u32,
    max_depth: f32,
    nonfinite: u32,
    // Σ over cells of depth − still depth, max(d, 0) − max(−ground, 0): the volume above the
    // still water (metres·cells: × dx² is m³).
    sum_depth: f32,
    // Σ of what drains wanted and could not take on the last step (metres·cells).
    shortfall: f32,
    // Σ vel over wet cells: the volume's change per (sub)step, zero in a closed domain.
    sum_vel: f32,
    // Σ of what the dry-cell rule did since the last correction (CORRECT_CLAMPS): the water it
    // made, b − h, and the per-step change it dropped, vel (level.wgsl's `store`).
    made: f32,
    dropped: f32,
    // Σ of the body volume submerged bodies hold in their columns (bodies.wgsl), metres·cells.
    held: f32,
    // Σ depth over wet cells.
    sum_wet_depth: f32,
    _pad: u32,
}

// Params::correct. In a closed domain (reflect and periodic sides) the volume is held to a target
// that only sources, drains and rain move. Through open, absorbing and ghost sides water enters
// and leaves, so there the correction undoes what the dry-cell rule did instead: the water it
// made and the per-step change it dropped, measured cell by cell as `store` clamps.
const CORRECT_TARGET: u32 = 1u;
const CORRECT_CLAMPS: u32 = 2u;


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

// The volume target and this step's correction (volume.wgsl; edit.wgsl moves the target by
// what a host edit changed).
struct Volume {
    // The volume the water should hold above the still water (metres·cells) as an unevaluated
    // sum target_hi + target_lo (|lo| ≤ half an ulp of hi: 48 bits), less the last step's
    // drains' shortfall, which the next `settle` adds. Each step's own feed moves it in the same
    // operations however the steps are split into chunks, and the host writes back only the
    // words it read (moved by its edits), so a resumed run is the straight run's bits.
    target_hi: f32,
    target_lo: f32,
    _pad0: u32,
    // The height every wet cell moves by this step.
    correction: f32,
    // What every wet cell's vel moves by this step: −Σvel/W.
    vel_correction: f32,
    // Under CORRECT_CLAMPS: the volume above the still water once this step is corrected.
    held: f32,
    // Σ depth above the still water before a host edit (edit.wgsl's `mark`).
    marked: f32,
    _pad1: u32,
}

// The target moved by x: TwoSum, the error joining the low word, renormalised (Fast2Sum on
// ordered operands: exact.wgsl's `sum_exact_through`, the same bits as the twin's Knuth TwoSum).
// Twin: `VolumeState::add`.
fn target_plus(v_in: Volume, x: f32) -> Volume {
    var v = v_in;
    let s = sum_exact_through(v.target_hi, x, params.one);
    let r = sum_exact_through(s.x, v.target_lo + s.y, params.one);
    v.target_hi = r.x;
    v.target_lo = r.y;
    return v;
}

// volume.wgsl's `apply` on one wet cell (e, v, r) over ground b: the height moves by the
// correction delta.x (TwoSum, its rounding error joining the carry) and the per-step change by
// delta.y. The new height is a function of the height and the correction alone, so the fused
// explicit step (explicit.wgsl's `read_cell`) corrects a neighbour without its carry. Dry cells,
// or no correction, pass unchanged; the dry-cell rule comes after. Twin: src/cpu/volume.rs
// `correct_cell`.
fn take_correction(e: f32, v: f32, r: f32, b: f32, delta: vec2<f32>) -> vec3<f32> {
    if e > b && params.correct != 0u {
        let s = two_sum(e, delta.x);
        return vec3<f32>(s.x, v + delta.y, r + s.y);
    }
    return vec3<f32>(e, v, r);
}

// volume.wgsl's `settle` from the level's totals, with `fed` the step's rain, drops and
// hydrographs (metres·cells, `RainStep::added`): the last step's shortfall joins the target, every
// wet cell's correction is (target − V)/W (hi − V is exact, two nearby floats), and the step's own
// sources and rain join the target for the next step. Also run by close.wgsl, so one function
// holds the rule. Twin: `VolumeState::settle`.
fn settled(v_in: Volume, t: Totals, fed: f32) -> Volume {
    var v = target_plus(v_in, t.shortfall);
    var correction = 0.0;
    var vel_correction = 0.0;
    let wet = f32(t.wet);
    if params.correct == CORRECT_TARGET && t.wet > 0u {
        correction = ((v.target_hi - t.sum_depth) + v.target_lo) / wet;
        vel_correction = -t.sum_vel / wet;
    } else if params.correct == CORRECT_CLAMPS && t.wet > 0u {
        // Take back the water the dry-cell rule made, and give back the change it dropped.
        correction = -t.made / wet;
        vel_correction = t.dropped / wet;
    }
    v = target_plus(target_plus(v, params.source_step), fed);
    v.correction = correction;
    v.vel_correction = vel_correction;
    v.held = t.sum_depth - t.made;
    return v;
}

// The four faces' memory (west, east, south, north, each signed into its owner) signed into the
// cell, in a fixed order. Twin: src/cpu/volume.rs `held_in_faces`.
fn into_cell(q: vec4<f32>) -> f32 {
    return ((q.y + q.w) * params.one - q.x) * params.one - q.z;
}

// Where cell c's faces' memory (west, east, south, north) stands in a level's vel buffer, after
// its nx·ny changes: a cell owns its east and north faces and reads its west and south
// neighbours' (wrapped, as periodic sides read them). With `into_cell`: what the faces hold of a
// wet cell's change (volume.wgsl, reduce.wgsl and regions.wgsl's `held_in_faces`).
fn face_words(c: u32) -> vec4<u32> {
    let nx = params.nx;
    let n = nx * params.ny;
    let i = c % nx;
    let j = c / nx;
    let w = select(c - 1u, c + nx - 1u, i == 0u);
    let s = select(c - nx, c + n - nx, j == 0u);
    return vec4<u32>(n + 2u * w, n + 2u * c, n + 2u * s + 1u, n + 2u * c + 1u);
}

// Whether a cell on ground `b` stands on a bank: above the still level (0), land, not sea. At an
// edge there is no sea beyond the side to trade waves with: every side but a wall or a wrap lets
// water out only (explicit.wgsl's `face_term`, adi.wgsl's `side`), and neither Mur's update nor
// the slope corners' mean runs (`edges`, `corners`: on a sloping bank the mean of the neighbours'
// surfaces stood 0.1 m of water on a dry corner every step). The mean surface ghost-mean sides
// read leaves banks out (level.wgsl's `mean_surface`). Twin: src/cpu/explicit.rs.
fn on_bank(b: f32) -> bool {
    return b > 0.0;
}
