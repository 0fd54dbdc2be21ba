//! Twin of `wgsl/reduce.wgsl`: the same tree, the same order of additions, the same bits.

use crate::engine::cpu::volume::held_in_faces;
use crate::engine::params::{Params, Totals, CELLS_PER_PARTIAL, CORRECT_CLAMPS};
use crate::models::height_field::cpu::explicit::on_bank;

pub(crate) const WG: usize = crate::wgsl::sums::SUMS_WG as usize;
const PER_THREAD: usize = crate::wgsl::sums::SUMS_PER_THREAD as usize;

/// One thread's (or one workgroup's) sums.
#[derive(Clone, Copy, Default)]
pub(crate) struct Lane {
    eta_depth: f32,
    wet_depth: f32,
    wet: u32,
    max_depth: f32,
    bad: u32,
    depth: f32,
    short: f32,
    vel: f32,
    made: f32,
    dropped: f32,
    held: f32,
}

impl Lane {
    /// A lane of a scene without bodies, sources or clamp bookkeeping (their sums stay zero).
    pub(crate) fn plain(
        eta_depth: f32,
        wet_depth: f32,
        wet: u32,
        max_depth: f32,
        bad: u32,
        depth: f32,
        vel: f32,
    ) -> Lane {
        Lane {
            eta_depth,
            wet_depth,
            wet,
            max_depth,
            bad,
            depth,
            vel,
            ..Lane::default()
        }
    }
}

/// The workgroup's tree: lanes folded pairwise at halving strides, as `reduce.wgsl` does.
fn tree(lanes: &mut [Lane; WG]) -> Lane {
    let mut stride = WG / 2;
    while stride > 0 {
        for t in 0..stride {
            let o = lanes[t + stride];
            let l = &mut lanes[t];
            l.eta_depth += o.eta_depth;
            l.wet_depth += o.wet_depth;
            l.wet += o.wet;
            l.max_depth = l.max_depth.max(o.max_depth);
            l.bad |= o.bad;
            l.depth += o.depth;
            l.short += o.short;
            l.vel += o.vel;
            l.made += o.made;
            l.dropped += o.dropped;
            l.held += o.held;
        }
        stride /= 2;
    }
    lanes[0]
}

/// The cell fields `reduce` reads beside the level: the drains' shortfall (read only with
/// sources) and what the dry-cell rule did (read only under `CORRECT_CLAMPS`).
#[derive(Clone, Copy)]
pub struct Extras<'a> {
    pub shortfall: &'a [f32],
    pub clamped: &'a [[f32; 2]],
    /// What covers each column (its `held` body volume); read only with bodies.
    pub cover: &'a [crate::engine::bodies::Cover],
    /// The level's faces' memory (`explicit::Memory`), whole-grid; empty where it keeps none.
    pub faces: &'a [f32],
}

/// `partial_sums` over every workgroup, then `finish`.
pub fn reduce(p: &Params, ground: &[f32], eta: &[f32], vel: &[f32], extras: Extras) -> Totals {
    let partials: Vec<Lane> = (0..eta.len().div_ceil(CELLS_PER_PARTIAL))
        .map(|group| partial_sums(p, ground, eta, vel, extras, group))
        .collect();
    finish(p, &partials)
}

/// Twin of `partial_sums` for workgroup `group`: its cells folded by the workgroup's tree.
pub(crate) fn partial_sums(p: &Params, ground: &[f32], eta: &[f32], vel: &[f32], extras: Extras, group: usize) -> Lane {
    let n = eta.len();
    let base = group * CELLS_PER_PARTIAL;
    let mut lanes = [Lane::default(); WG];
    for (t, lane) in lanes.iter_mut().enumerate() {
        for m in 0..PER_THREAD {
            let c = base + m * WG + t;
            if c < n {
                let e = eta[c];
                let d = e - ground[c];
                if e.is_finite() {
                    // max(d, 0) − max(−b, 0), without d's rounding (sums.wgsl's `add_cell`).
                    let mut above = e.max(ground[c]) - ground[c].max(0.0);
                    if p.bodies != 0 {
                        above -= extras.cover[c].held;
                        lane.held += extras.cover[c].held;
                    }
                    lane.depth += above;
                }
                if !e.is_finite() {
                    lane.bad = 1;
                } else if d > 0.0 {
                    // The sea's cells (not on a bank: `mean_surface`).
                    let sea = if on_bank(ground[c]) { 0.0 } else { d };
                    lane.eta_depth += e * sea;
                    lane.wet_depth += sea;
                    lane.wet += 1;
                    lane.max_depth = lane.max_depth.max(d);
                    lane.vel += vel[c] - held_in_faces(p, extras.faces, c);
                }
                if p.sources != 0 {
                    lane.short += extras.shortfall[c];
                }
                if p.correct == CORRECT_CLAMPS {
                    lane.made += extras.clamped[c][0];
                    lane.dropped += extras.clamped[c][1];
                }
            }
        }
    }
    tree(&mut lanes)
}

/// Twin of `finish`: the workgroups' partials folded in their fixed order.
pub(crate) fn finish(p: &Params, partials: &[Lane]) -> Totals {
    debug_assert_eq!(partials.len(), p.n_partials as usize);
    let mut lanes = [Lane::default(); WG];
    for (t, lane) in lanes.iter_mut().enumerate() {
        for q in partials.iter().skip(t).step_by(WG) {
            lane.eta_depth += q.eta_depth;
            lane.wet_depth += q.wet_depth;
            lane.wet += q.wet;
            lane.max_depth = lane.max_depth.max(q.max_depth);
            lane.bad |= q.bad;
            lane.depth += q.depth;
            lane.short += q.short;
            lane.vel += q.vel;
            lane.made += q.made;
            lane.dropped += q.dropped;
            lane.held += q.held;
        }
    }
    let l = tree(&mut lanes);
    Totals {
        sum_eta_depth: l.eta_depth,
        wet: l.wet,
        max_depth: l.max_depth,
        nonfinite: l.bad,
        sum_depth: l.depth,
        shortfall: l.short,
        sum_vel: l.vel,
        made: l.made,
        dropped: l.dropped,
        held: l.held,
        sum_wet_depth: l.wet_depth,
        _pad: 0,
    }
}
