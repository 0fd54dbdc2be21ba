//! Twin of `wgsl/sw_feed.wgsl`: what the scene feeds the shallow-water model each step, after its
//! substeps: the rainfall on every cell, then the step's (cell, height) entries (drops,
//! hydrographs, steady sources and drains, wave makers' line sources; `engine::feeds`).
//!
//! Water falls at rest, so a cell's discharges stay (its velocity slows by the depth it gains);
//! water taken (a drain, a maker's trough) leaves with its velocity, never more than the cell
//! holds. Heights are added with TwoSum into the cell's carry, so rain of 1e-7 m a step on a
//! surface metres from the reference level is kept, not rounded away.

use crate::engine::feeds::RAINFALL_MAP;
use crate::engine::rain::RainStep;
use crate::models::height_field::cpu::explicit::two_sum;
use crate::models::shallow_water::setup::SwParams;
use crate::models::shallow_water::state::SwState;

/// A cell as the feed changes it: surface, discharges and carry.
pub type Fed = [f32; 4];

/// Twin of `feed_cell`'s arithmetic: a cell over ground `b` holding `cell` takes `want` m
/// (negative: gives). Returns the cell after, and what it could not give.
pub fn fed(b: f32, cell: Fed, want: f32) -> (Fed, f32) {
    let [e, qx, qy, carry] = cell;
    if want > 0.0 {
        let (e, carry) = two_sum(e.max(b), want + carry);
        return ([e, qx, qy, carry], 0.0);
    }
    let d = (e - b).max(0.0);
    let take = d.min(-want);
    let left = d - take;
    let short = -want - take;
    if left <= 0.0 {
        return ([b, 0.0, 0.0, carry], short);
    }
    let keep = left / d;
    ([e - take, qx * keep, qy * keep, carry], short)
}

/// Twin of `feed_cell`: cell `c` of `s` takes `want` m (negative: gives); returns what it could
/// not give.
pub fn feed_cell(ground: &[f32], s: &mut SwState, c: usize, want: f32) -> f32 {
    let (out, short) = fed(ground[c], [s.eta[c], s.qx[c], s.qy[c], s.carry[c]], want);
    [s.eta[c], s.qx[c], s.qy[c], s.carry[c]] = out;
    short
}

/// The height cell `c` takes from the step's rainfall `height` (m at a share of 1).
pub fn rainfall_height(p: &SwParams, share: &[f32], height: f32, c: usize) -> f32 {
    let sh = if p.rainfall == RAINFALL_MAP { share[c] } else { 1.0 };
    height * sh
}

/// Twin of `rainfall`: the step's rainfall `height` on every cell.
pub fn rainfall(p: &SwParams, ground: &[f32], share: &[f32], height: f32, s: &mut SwState) {
    for c in 0..s.cells() {
        let h = rainfall_height(p, share, height, c);
        if h > 0.0 {
            feed_cell(ground, s, c, h);
        }
    }
}

/// Twin of `infiltrate_cell`'s arithmetic: a cell over ground `b` holding `cell`, its soil's
/// state `soil` and parameters `par` (`engine::infiltration`), which the step's rainfall gave
/// `rain` m. Returns the cell and the soil after: what the ground took left with its velocity,
/// never more than the cell held.
pub fn infiltrated(p: &SwParams, b: f32, cell: Fed, soil: [f32; 4], par: [f32; 3], rain: f32) -> (Fed, [f32; 4]) {
    use crate::engine::infiltration::{capacity, took};
    let (cap, st) = capacity(p.infiltration, par, soil, rain);
    let [e, mut qx, mut qy, mut carry] = cell;
    let d = (e - b).max(0.0);
    let take = cap.min(d);
    if take <= 0.0 {
        return (cell, st);
    }
    let left = d - take;
    let e = if left <= 0.0 {
        (qx, qy) = (0.0, 0.0);
        b
    } else {
        let (e, c) = two_sum(e, carry - take);
        carry = c;
        let keep = left / d;
        (qx, qy) = (qx * keep, qy * keep);
        e
    };
    ([e, qx, qy, carry], took(p.infiltration, st, take, cap))
}

/// The parameters of cell `c` from the stages' ground (`SwParams::soil_at`).
pub fn soil_parameters(p: &SwParams, stages: &[f32], c: usize) -> [f32; 3] {
    crate::engine::infiltration::parameters_at(&stages[p.soil_at as usize..], p.cells as usize, c)
}

/// The rain cell `c` had from the step's rainfall `height` (0 without `[rainfall]`), as
/// `infiltrate` reads it.
pub fn rain_on(p: &SwParams, share: &[f32], height: f32, c: usize) -> f32 {
    if p.rainfall == 0 {
        return 0.0;
    }
    rainfall_height(p, share, height, c)
}

/// Twin of `infiltrate`: every cell's ground takes its step's share (`stages`: the stages'
/// ground, holding the parameters; `height`: the step's rainfall).
pub fn infiltrate(p: &SwParams, ground: &[f32], stages: &[f32], share: &[f32], height: f32, s: &mut SwState) {
    const N: usize = crate::engine::infiltration::SOIL_FLOATS;
    for (c, &b) in ground.iter().enumerate().take(s.cells()) {
        let soil: [f32; N] = s.soil[N * c..N * (c + 1)].try_into().expect("four floats a cell");
        let cell = [s.eta[c], s.qx[c], s.qy[c], s.carry[c]];
        let rain = rain_on(p, share, height, c);
        let (out, st) = infiltrated(p, b, cell, soil, soil_parameters(p, stages, c), rain);
        [s.eta[c], s.qx[c], s.qy[c], s.carry[c]] = out;
        s.soil[N * c..N * (c + 1)].copy_from_slice(&st);
    }
}

/// Twin of `hold_cell`'s arithmetic: a cell over ground `b` holding `cell` holds `level` (− ref;
/// its ground where that is below). Returns the cell after, and what it gained (negative: gave);
/// the surface's rounding goes to the carry, so surface + carry moves by exactly that.
pub fn held(b: f32, cell: Fed, level: f32) -> (Fed, f32) {
    let [e, qx, qy, carry] = cell;
    let target = level.max(b);
    let (gained, lost) = two_sum(target, -e);
    let carry = carry - lost;
    if target <= b {
        return ([target, 0.0, 0.0, carry], gained);
    }
    ([target, qx, qy, carry], gained)
}

/// Twin of `hold_cell`: cell `c` of `s` holds `level`; returns what it gained.
pub fn hold_cell(ground: &[f32], s: &mut SwState, c: usize, level: f32) -> f32 {
    let (out, gained) = held(ground[c], [s.eta[c], s.qx[c], s.qy[c], s.carry[c]], level);
    [s.eta[c], s.qx[c], s.qy[c], s.carry[c]] = out;
    gained
}

/// Twin of `drops`: step `step`'s entries of `cells` and `heights`; a negative entry's height is
/// replaced by what its cell could not give, a held entry's (`HELD` in its cell word: its height
/// the level) by what its cell gained.
pub fn drops(ground: &[f32], step: &RainStep, cells: &[u32], heights: &mut [f32], s: &mut SwState) {
    use crate::wgsl::rain_step::HELD;
    let run = step.start as usize..(step.start + step.count) as usize;
    for (&c, h) in cells[run.clone()].iter().zip(&mut heights[run]) {
        if c & HELD != 0 {
            *h = hold_cell(ground, s, (c & !HELD) as usize, *h);
        } else if *h > 0.0 {
            feed_cell(ground, s, c as usize, *h);
        } else if *h < 0.0 {
            *h = feed_cell(ground, s, c as usize, *h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_cell(eta: f32, q: f32) -> SwState {
        SwState {
            eta: vec![eta],
            qx: vec![q],
            qy: vec![-q],
            carry: vec![0.0],
            soil: Vec::new(),
        }
    }

    #[test]
    fn rain_far_under_the_surfaces_rounding_is_kept_in_the_carry() {
        // 1e-8 m a step on a surface 7 m from the reference level: a tenth of its ulp (4.8e-7).
        let mut s = one_cell(7.0, 0.0);
        for _ in 0..1000 {
            feed_cell(&[0.0], &mut s, 0, 1e-8);
        }
        let held = s.eta[0] as f64 + s.carry[0] as f64 - 7.0;
        assert!((held - 1e-5).abs() < 1e-9, "held {held}, fell 1e-5");
    }

    #[test]
    fn a_drain_takes_what_the_cell_holds_with_its_velocity_and_no_more() {
        let mut s = one_cell(0.3, 0.2);
        let short = feed_cell(&[0.1], &mut s, 0, -0.05);
        assert_eq!(short, 0.0);
        assert!((s.eta[0] - 0.25).abs() < 1e-7);
        // The velocity (q / d = 1 m/s) is kept: q scales with the depth left.
        assert!((s.qx[0] / (s.eta[0] - 0.1) - 1.0).abs() < 1e-5);
        let short = feed_cell(&[0.1], &mut s, 0, -0.5);
        assert!((short - 0.35).abs() < 1e-6, "short {short}");
        assert_eq!((s.eta[0], s.qx[0], s.qy[0]), (0.1, 0.0, 0.0));
    }
}
