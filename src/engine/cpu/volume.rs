//! Twin of `wgsl/volume.wgsl`: the target, the global correction, sources and drains.

use crate::engine::params::{Params, Totals, CORRECT_CLAMPS, CORRECT_TARGET};
use crate::models::height_field::cpu::explicit::{depth, two_sum};
use crate::wgsl::common::RAINFALL_MAP;

use crate::engine::params::VolumeState;

/// [`VolumeState`] is the twin of WGSL `Volume`: the target as a pair of floats, this step's
/// correction.
impl VolumeState {
    /// The books holding the target `pair` (`target_hi`, `target_lo`).
    pub fn start(pair: [f32; 2]) -> VolumeState {
        VolumeState {
            target_hi: pair[0],
            target_lo: pair[1],
            ..VolumeState::default()
        }
    }

    /// The target as the pair the books hold.
    pub fn target_pair(&self) -> [f32; 2] {
        [self.target_hi, self.target_lo]
    }

    /// Twin of `target_plus` (common.wgsl): the target moved by `x`.
    fn add(&mut self, x: f32) {
        let (s, e) = two_sum(self.target_hi, x);
        (self.target_hi, self.target_lo) = two_sum(s, self.target_lo + e);
    }

    /// Twin of `settled` (common.wgsl); `fed` is the step's rain (`RainStep::added`).
    pub fn settle(&mut self, p: &Params, totals: &Totals, fed: f32) {
        self.add(totals.shortfall);
        let wet = totals.wet as f32;
        (self.correction, self.vel_correction) = match p.correct {
            _ if totals.wet == 0 => (0.0, 0.0),
            CORRECT_TARGET => (
                ((self.target_hi - totals.sum_depth) + self.target_lo) / wet,
                -totals.sum_vel / wet,
            ),
            CORRECT_CLAMPS => (-totals.made / wet, totals.dropped / wet),
            _ => (0.0, 0.0),
        };
        self.add(p.source_step);
        self.add(fed);
        self.held = totals.sum_depth - totals.made;
    }
}

/// The current level, written in place, and what `apply` reads.
pub struct Cells<'a> {
    pub ground: &'a [f32],
    pub source: &'a [f32],
    /// This step's rainfall height at a map share of 1 (`RainStep::rainfall`), and each cell's
    /// share (empty: uniform).
    pub rainfall: f32,
    pub rainfall_map: &'a [f32],
    pub shortfall: &'a mut [f32],
    pub eta: &'a mut [f32],
    pub vel: &'a mut [f32],
    pub carry: &'a mut [f32],
    /// Under `CORRECT_CLAMPS`: what the dry-cell rule did, reset here to what `apply`'s own does.
    pub clamped: &'a mut [[f32; 2]],
    /// volume_correction = "regions": the labels of this level, each region's (height, vel)
    /// correction and the water each cell gains after it (empty otherwise).
    pub labels: &'a [u32],
    pub corrections: &'a [[f32; 2]],
    pub pending: &'a mut [f32],
    /// The level's faces' memory (`explicit::Memory`), whole-grid; empty where it keeps none.
    pub faces: &'a [f32],
    /// `[infiltration]` (`Params::infiltration`): each cell's soil state, and its law's three
    /// parameter planes, whole-grid (empty without).
    pub soil: &'a mut [[f32; 4]],
    pub soil_law: &'a [f32],
    /// The grid index of this field's first cell (the fast backend's bands).
    pub first: usize,
}

/// Twin of `held_in_faces` (volume.wgsl, reduce.wgsl, regions.wgsl; common.wgsl's `face_words`
/// and `into_cell`): cell `c`'s faces' memory signed into it, which the dry-cell rule leaves in the
/// faces (the next step forgets or takes it back: `explicit::Memory`) and the vel correction does
/// not count as error (`reduce`); 0 without.
pub(crate) fn held_in_faces(p: &Params, faces: &[f32], c: usize) -> f32 {
    if faces.is_empty() {
        return 0.0;
    }
    let (nx, ny) = (p.nx as usize, p.ny as usize);
    let (i, j) = (c % nx, c / nx);
    let w = j * nx + if i == 0 { nx - 1 } else { i - 1 };
    let s = (if j == 0 { ny - 1 } else { j - 1 }) * nx + i;
    ((faces[2 * c] + faces[2 * c + 1]) - faces[2 * w]) - faces[2 * s + 1]
}

/// Twin of `apply`.
pub fn apply(p: &Params, volume: &VolumeState, cells: &mut Cells) {
    for c in 0..cells.eta.len() {
        let b = cells.ground[c];
        let (mut e, mut v, mut r) = (cells.eta[c], cells.vel[c], cells.carry[c]);
        let delta = if p.regions != 0 {
            cells.corrections[cells.labels[c].max(1) as usize - 1]
        } else {
            [volume.correction, volume.vel_correction]
        };
        (e, v, r) = correct_cell(p, delta, b, e, v, r);
        if p.sources != 0 {
            let rain = if p.rainfall != 0 {
                let share = if p.rainfall == RAINFALL_MAP {
                    cells.rainfall_map[c]
                } else {
                    1.0
                };
                cells.rainfall * share
            } else {
                0.0
            };
            let want = cells.source[c] + rain;
            let mut short = 0.0;
            let mut added = 0.0;
            if want > 0.0 {
                (e, r) = two_sum(e.max(b), want + r);
                added = want;
            } else if want < 0.0 {
                let take = depth(e, b).min(-want);
                short = -want - take;
                e -= take;
                added = -take;
            }
            if p.infiltration != 0 {
                let law = crate::engine::infiltration::parameters_at(
                    cells.soil_law,
                    cells.soil_law.len() / 3,
                    cells.first + c,
                );
                let took;
                (e, r, cells.soil[c], took) = infiltrated(p, b, e, r, cells.soil[c], law, rain);
                short -= took;
                added -= took;
            }
            cells.shortfall[c] = short;
            if p.regions != 0 {
                cells.pending[c] = added;
            }
        }
        if p.correct == CORRECT_CLAMPS {
            // A cell it dries books the change it drops less what stays in the faces (a cell
            // that was dry already holds no change).
            let was_wet = cells.eta[c] > b;
            let held = if was_wet {
                held_in_faces(p, cells.faces, cells.first + c)
            } else {
                0.0
            };
            cells.clamped[c] = if e <= b { [(b - e) - r, v - held] } else { [0.0; 2] };
        }
        (e, v, r) = dry_rule(b, e, v, r);
        cells.eta[c] = e;
        cells.vel[c] = v;
        cells.carry[c] = r;
    }
}

/// Twin of `apply_at`'s infiltration: a cell over ground `b` at (e, r), its soil `soil` and
/// law's parameters `law`, which the step's rainfall gave `rain` m, gives its ground the law's
/// capacity or what it holds (dry then, at its ground), after its sources. Returns the cell, the
/// soil and what the ground took, which the volume's target books as a drain's.
pub(crate) fn infiltrated(
    p: &Params,
    b: f32,
    e: f32,
    r: f32,
    soil: [f32; 4],
    law: [f32; 3],
    rain: f32,
) -> (f32, f32, [f32; 4], f32) {
    let (cap, st) = crate::engine::infiltration::capacity(p.infiltration, law, soil, rain);
    if e <= b || cap <= 0.0 {
        return (e, r, st, 0.0);
    }
    let water = (e - b) + r;
    if water <= 0.0 {
        return (e, r, st, 0.0);
    }
    if cap >= water {
        return (
            b,
            0.0,
            crate::engine::infiltration::took(p.infiltration, st, water, cap),
            water,
        );
    }
    let (e, r) = two_sum(e, r - cap);
    (
        e,
        r,
        crate::engine::infiltration::took(p.infiltration, st, cap, cap),
        cap,
    )
}

/// `apply`'s correction of one cell: a wet cell takes its share (`delta`: height, per-step change).
/// The height moves by TwoSum, its rounding error joining the cell's carry: the new height
/// depends on the cell's height and the correction alone, so the fused explicit step
/// (explicit.wgsl's `read_cell`) can correct a neighbour as it reads it without reading the
/// neighbour's carry, which the neighbour's own thread is rewriting.
fn correct_cell(p: &Params, delta: [f32; 2], b: f32, e: f32, v: f32, r: f32) -> (f32, f32, f32) {
    if e > b && p.correct != 0 {
        let (e, err) = two_sum(e, delta[0]);
        (e, v + delta[1], r + err)
    } else {
        (e, v, r)
    }
}

/// `apply`'s dry-cell rule: a cell at or below its ground holds no water and no motion.
fn dry_rule(b: f32, e: f32, v: f32, r: f32) -> (f32, f32, f32) {
    if e <= b {
        (b, 0.0, 0.0)
    } else {
        (e, v, r)
    }
}

/// `apply` on one cell (e, v, r) over ground `b`, where [`is_plain`] holds.
pub(crate) fn apply_plain(p: &Params, volume: &VolumeState, b: f32, e: f32, v: f32, r: f32) -> (f32, f32, f32) {
    let (e, v, r) = correct_cell(p, [volume.correction, volume.vel_correction], b, e, v, r);
    dry_rule(b, e, v, r)
}

/// Twin of `rain`: one step's entries.
pub fn rain(p: &Params, cells: &mut Cells, entries: &[u32], heights: &[f32]) {
    use crate::wgsl::rain_step::HELD;
    for (&word, &h) in entries.iter().zip(heights) {
        let c = (word & !HELD) as usize;
        let b = cells.ground[c];
        let mut added = h;
        if word & HELD != 0 {
            let held = h.max(b);
            added = (held - cells.eta[c].max(b)) - cells.carry[c];
            cells.eta[c] = held;
            if held <= b {
                cells.vel[c] = 0.0;
            }
            cells.carry[c] = 0.0;
            cells.shortfall[c] += added;
        } else {
            let (e, r) = two_sum(cells.eta[c].max(b), h + cells.carry[c]);
            cells.eta[c] = e;
            cells.carry[c] = r;
        }
        if p.regions != 0 {
            cells.pending[c] += added;
        }
    }
}
