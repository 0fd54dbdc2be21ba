//! The uniform every pass reads, mirrored in `wgsl/common.wgsl` (`struct Params`), and the numbers
//! that set it: the step coefficient, damping and the substep count.

use crate::error::Result;
use crate::scene::{Scene, Sides};
use bytemuck::{Pod, Zeroable};

/// Courant-like number k·d_max the explicit solver aims for with substeps. Von Neumann for the 4-face
/// leapfrog gives g·d·dt²/dx² ≤ 1/2; 0.4 leaves 20 % for depths that grow between checks.
pub const STABLE_K_DEPTH: f64 = 0.4;

pub use crate::scene::limits::MAX_SUBSTEPS;

/// Steps recorded per submit at most (and the size of the per-step slot and probe buffers).
pub const MAX_CHUNK: u32 = 256;

/// Mirror of WGSL `Params`: scalars only, 96 bytes (a multiple of 16 for the uniform layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Params {
    /// Cells along x.
    pub nx: u32,
    /// Cells along y.
    pub ny: u32,
    /// g·dt_sub²/dx².
    pub k: f32,
    /// 1 − tau.
    pub keep: f32,
    /// West side's boundary code (`BoundaryMode`).
    pub bc_west: u32,
    /// East side's boundary code.
    pub bc_east: u32,
    /// South side's boundary code.
    pub bc_south: u32,
    /// North side's boundary code.
    pub bc_north: u32,
    /// Factor on the stored per-substep change (1 unless the substep length changed).
    pub vel_scale: f32,
    /// Workgroups of the reduction's first pass.
    pub n_partials: u32,
    /// Probes in the scene.
    pub n_probes: u32,
    /// Always 1.0 (see `two_sum` in common.wgsl).
    pub one: f32,
    /// How the volume is corrected: 0 not, `CORRECT_TARGET` or `CORRECT_CLAMPS`.
    pub correct: u32,
    /// 1 when the scene has sources or drains.
    pub sources: u32,
    /// Σ of the sources' requested height per step, drains negative (metres·cells).
    pub source_step: f32,
    /// Regions the per-region correction tracks (regions.wgsl's table); 0 unless
    /// volume_correction = "regions" runs.
    pub regions: u32,
    /// Rigid bodies in the scene (bodies.wgsl, coupling.wgsl); 0: none, and `reduce` skips the
    /// body volume held in the columns.
    pub bodies: u32,
    /// Substeps per step.
    pub substeps: u32,
    /// How `[rainfall]` falls (`feeds::RAINFALL_*`): not, uniformly, or by the map.
    pub rainfall: u32,
    /// Per-cell forcing fields the step reads (`FORCE_*` bits): the pressure head, the damping map.
    pub forcing: u32,
    /// 1: each step ends by folding the level into the summary maps (`summary.wgsl`).
    pub summary: u32,
    /// 1: the explicit step keeps each face's flux memory (`cpu::explicit::Memory`), for scenes
    /// with a shoreline (a dry cell at the start).
    pub faces: u32,
    /// `[infiltration]`'s law (`engine::infiltration`'s codes; 0: none): `volume.wgsl`'s `apply`
    /// takes it from each wet cell.
    pub infiltration: u32,
    /// Padding.
    pub _pad: u32,
}

/// Mirror of WGSL `Totals` (reduce.wgsl's result).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Totals {
    /// Σ eta·depth over wet cells (with `sum_wet_depth`, the ghost-mean sides' mean surface).
    pub sum_eta_depth: f32,
    /// Wet cells.
    pub wet: u32,
    /// Deepest water.
    pub max_depth: f32,
    /// Cells holding NaN or infinity.
    pub nonfinite: u32,
    /// Σ over cells of depth − still depth (max(−ground, 0)): the volume above the still water
    /// (metres·cells).
    pub sum_depth: f32,
    /// Σ of what drains wanted and could not take on the last step (metres·cells).
    pub shortfall: f32,
    /// Σ vel over wet cells.
    pub sum_vel: f32,
    /// Σ of the water the dry-cell rule made, b − h, since the last correction (`CORRECT_CLAMPS`).
    pub made: f32,
    /// Σ of the per-step change the dry-cell rule dropped since the last correction.
    pub dropped: f32,
    /// Σ of the body volume submerged bodies hold in their columns (metres·cells).
    pub held: f32,
    /// Σ depth over wet cells.
    pub sum_wet_depth: f32,
    /// Padding.
    pub _pad: u32,
}

/// `Params::correct`: with open, absorbing or ghost sides, undo what the dry-cell rule did.
pub use crate::wgsl::common::CORRECT_CLAMPS;
/// `Params::correct`: hold a closed domain to its target.
pub use crate::wgsl::common::CORRECT_TARGET;

/// Mirror of WGSL `Volume` (common.wgsl): the volume target at a chunk's start and this step's
/// correction. The GPU keeps it in one small buffer; the CPU twin steps it in `cpu::volume`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct VolumeState {
    /// The volume the water should hold above the still water (metres·cells) as the unevaluated
    /// sum `target_hi + target_lo`, less the last step's drains' shortfall (the next `settle`
    /// adds it).
    pub target_hi: f32,
    pub target_lo: f32,
    pub _pad0: u32,
    /// The height every wet cell moves by this step, and what every wet cell's vel moves by.
    pub correction: f32,
    pub vel_correction: f32,
    /// Under `CORRECT_CLAMPS`: the volume above the still water once this step is corrected.
    pub held: f32,
    /// Σ depth above the still water before a host edit (edit.wgsl's `mark`; GPU only).
    pub marked: f32,
    pub _pad1: u32,
}

/// Mirror of WGSL `StepSlot`, one per step of a submit, bound with a dynamic offset.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct StepSlot {
    pub index: u32,
    pub _pad: [u32; 3],
}

/// Most regions `volume_correction = "regions"` tells apart; regions past it (numbered by their
/// first cell) share the last slot and its one correction.
pub const MAX_REGIONS: u32 = 1 << 16;

/// Cells one reduce workgroup folds (256 threads × 8).
pub const CELLS_PER_PARTIAL: usize = (crate::wgsl::sums::SUMS_WG * crate::wgsl::sums::SUMS_PER_THREAD) as usize;

impl Params {
    /// The uniforms for `scene` at `substeps` substeps per step.
    pub fn new(scene: &Scene, substeps: u32, n_probes: u32) -> Params {
        let sides: Sides = scene.boundary.sides().run_by(scene.physics.model);
        let cells = scene.grid.cells();
        let mut p = Params {
            nx: scene.grid.nx,
            ny: scene.grid.ny,
            k: step_coefficient(scene, substeps) as f32,
            keep: keep_per_substep(1.0 - scene.physics.damping, substeps),
            bc_west: sides.west.as_run() as u32,
            bc_east: sides.east.as_run() as u32,
            bc_south: sides.south.as_run() as u32,
            bc_north: sides.north.as_run() as u32,
            vel_scale: 1.0,
            n_partials: cells.div_ceil(CELLS_PER_PARTIAL) as u32,
            n_probes,
            one: 1.0,
            correct: match scene.physics.volume_correction {
                crate::scene::VolumeCorrection::None => 0,
                _ if sides_are_closed(&sides) => CORRECT_TARGET,
                _ => CORRECT_CLAMPS,
            },
            sources: 0,
            source_step: 0.0,
            regions: 0,
            bodies: scene.bodies.len() as u32,
            substeps,
            rainfall: 0,
            forcing: match scene.infiltration {
                Some(_) => crate::wgsl::common::FORCE_INFILTRATION,
                None => 0,
            },
            summary: scene.output.summary as u32,
            faces: 0,
            infiltration: 0,
            _pad: 0,
        };
        // With bodies the columns hold body volume that the per-region sums would count as water:
        // such scenes correct globally (the CLI says so).
        if p.correct == CORRECT_TARGET
            && scene.physics.volume_correction == crate::scene::VolumeCorrection::Regions
            && scene.bodies.is_empty()
        {
            p.regions = (cells as u32).clamp(1, MAX_REGIONS);
        }
        p
    }
}

/// Whether water can only leave through sources and drains (reflect and periodic sides): the
/// sides where the volume's target is known exactly. Through open, absorbing and ghost sides
/// water enters and leaves, and the correction undoes the dry-cell rule instead.
pub fn sides_are_closed(sides: &Sides) -> bool {
    use crate::scene::BoundaryMode::{Periodic, Reflect};
    [sides.west, sides.east, sides.south, sides.north]
        .iter()
        .all(|m| matches!(m, Reflect | Periodic))
}

impl Params {
    /// Whether any side uses `mode`.
    pub fn uses(&self, mode: crate::scene::BoundaryMode) -> bool {
        let m = mode as u32;
        [self.bc_west, self.bc_east, self.bc_south, self.bc_north].contains(&m)
    }
}

/// What a substep keeps of the per-substep change when a whole step keeps `keep` (1 − tau):
/// keep^(1/substeps), so that k substeps damp a wave exactly as one step of `time.dt` would.
/// `physics.damping` is Kass & Miller's factor per step of `time.dt`, not per substep: before,
/// a wave decayed at the same rate per second whether dt was 0.016 s at 1 substep or 0.032 s
/// at 2, where a factor per step says the second decays half as fast per second. Computed in
/// f64; one substep keeps `keep`'s own bits.
pub fn keep_per_substep(keep: f64, substeps: u32) -> f32 {
    if substeps <= 1 {
        return keep as f32;
    }
    keep.powf(1.0 / substeps as f64) as f32
}

impl Params {
    /// These parameters at `substeps` substeps per step: the step coefficient k and the damping's
    /// per-substep keep follow; everything else (sources, rainfall, forcing) stays.
    pub fn with_substeps(&self, scene: &Scene, substeps: u32) -> Params {
        Params {
            k: step_coefficient(scene, substeps) as f32,
            keep: keep_per_substep(1.0 - scene.physics.damping, substeps),
            substeps,
            ..*self
        }
    }
}

/// k = g·dt_sub²/dx² for `substeps` equal substeps of the scene's dt.
pub fn step_coefficient(scene: &Scene, substeps: u32) -> f64 {
    let dt = scene.time.dt / substeps as f64;
    scene.physics.gravity * dt * dt / (scene.grid.dx * scene.grid.dx)
}

/// The fewest equal substeps that keep k·d_max within [`STABLE_K_DEPTH`]; always 1 for the
/// implicit ADI solver, which is stable at any dt (up to float32: `ADI_MAX_KD` in simulation.rs).
pub fn substeps_needed(scene: &Scene, max_depth: f64) -> u32 {
    if scene.physics.solver == crate::scene::Method::Adi {
        return 1;
    }
    let courant = step_coefficient(scene, 1) * max_depth;
    if courant <= STABLE_K_DEPTH {
        1
    } else {
        (courant / STABLE_K_DEPTH).sqrt().ceil().min(u32::MAX as f64) as u32
    }
}

/// Whether `apply` touches nothing but the level: no sources or drains, no regions, no clamp
/// bookkeeping. Then it is [`apply_plain`] on every cell, which the fast backend runs on the next
/// step's read instead of writing the level back (`cpu::fast::fused`).
/// The `Params::forcing` bits the height field's step reads per cell (the pressure head, the
/// damping map); `FORCE_INFILTRATION` is the volume pass's.
pub const STEP_FORCING: u32 = crate::wgsl::common::FORCE_PRESSURE | crate::wgsl::common::FORCE_DAMPING_MAP;

/// An f64 target as the books' pair (`VolumeState::target_hi`, `target_lo`): hi the nearest f32,
/// lo the rest (hi + lo keeps 48 bits).
pub fn target_pair(target: f64) -> [f32; 2] {
    let hi = target as f32;
    [hi, (target - hi as f64) as f32]
}

/// The books' pair as one f64.
pub fn pair_value(pair: [f32; 2]) -> f64 {
    pair[0] as f64 + pair[1] as f64
}

pub(crate) fn is_plain(p: &Params) -> bool {
    p.sources == 0 && p.regions == 0 && p.correct != CORRECT_CLAMPS
}

/// Each cell's 1 − tau (per step of `time.dt`) under `physics.damping_map`: the scene's tau plus the map's, in [0, 1]
/// (NPY values as they are, a PNG's shades as shares of 1). Empty without a map.
pub fn damping_keep(scene: &Scene) -> Result<Vec<f32>> {
    let Some(map) = &scene.physics.damping_map else {
        return Ok(Vec::new());
    };
    let (values, _) = crate::scene::read_map(scene, "physics.damping_map", map)?;
    let tau = scene.physics.damping;
    if let Some(bad) = values.iter().position(|&v| !(v >= 0.0 && tau + v <= 1.0)) {
        let text = std::fs::read_to_string(&scene.origin).ok();
        return Err(scene.error_at(
            text.as_deref(),
            "physics.damping_map",
            format!(
                "\"{}\": cell {bad} holds {}: a cell's damping, physics.damping ({tau}) plus the map's, must \
                 lie in [0, 1]",
                map.display(),
                values[bad]
            ),
        ));
    }
    Ok(values.iter().map(|&v| (1.0 - (tau + v)) as f32).collect())
}

/// Kass & Miller's τ (`physics.damping`, the share of a wave's per-step change lost per step of
/// `dt`) as a linear drag on a model's velocities (the shallow-water model's discharges, the
/// Navier-Stokes layer's velocities), r = −ln(1 − τ)/dt per second, so a long wave decays at
/// r/2 = −ln(1 − τ)/(2·dt) per second, as it does on the height field at the same τ (the damped
/// wave equation η_tt + r·η_t = c²·∇²η). τ = 1 (all lost) is a drag of 1e30/s: the implicit
/// division stops the water (q/(1 + dt·r)) without an infinity in a buffer.
pub fn drag_rate(keep: f64, dt: f64) -> f32 {
    if keep <= 0.0 {
        return 1e30;
    }
    (-keep.ln() / dt) as f32
}
