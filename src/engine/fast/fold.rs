//! `reduce.wgsl`'s partial sums folded as the fused step writes its cells (`fast::fused`): each
//! workgroup's 256 lanes, field by field, in the twin's order (cell c of a workgroup goes to lane
//! c mod 256, each lane takes its cells in increasing c), then the twin's tree.

use crate::engine::cpu::reduce::{Lane, WG};
use crate::engine::params::CELLS_PER_PARTIAL;
use crate::models::height_field::cpu::explicit::on_bank;
use multiversion::multiversion;
use std::ops::Range;

/// One workgroup's 256 lanes as `reduce.wgsl` folds them, field by field.
pub(crate) struct Lanes {
    pub(crate) eta_depth: [f32; WG],
    pub(crate) wet_depth: [f32; WG],
    pub(crate) wet: [u32; WG],
    pub(crate) max_depth: [f32; WG],
    pub(crate) bad: [u32; WG],
    pub(crate) depth: [f32; WG],
    pub(crate) vel: [f32; WG],
}

/// Folds the cells a band writes into the partial sums of the workgroups that lie wholly inside
/// it. Cell c of a workgroup goes to lane c mod 256 and each lane takes its cells in increasing c:
/// the twin's order.
pub(crate) struct Folder {
    /// The band's cells.
    from: usize,
    to: usize,
    cells: usize,
    lanes: Box<Lanes>,
    /// The workgroups folded so far and their sums.
    pub(crate) done: Vec<(usize, Lane)>,
}

impl Folder {
    /// A band of cells `from..to` of a grid of `cells`.
    pub(crate) fn new(from: usize, to: usize, cells: usize) -> Folder {
        Folder {
            from,
            to,
            cells,
            lanes: Box::default(),
            done: Vec::new(),
        }
    }

    /// Cells `c..end`, cut where a lane run or a workgroup ends: `f(run, lanes)` for each run,
    /// with the workgroup's lanes and the run's first lane where the band holds the whole
    /// workgroup (`None` where it straddles two bands: `fused::step` sums it from memory after).
    pub(crate) fn runs(
        &mut self,
        mut c: usize,
        end: usize,
        mut f: impl FnMut(Range<usize>, Option<(&mut Lanes, usize)>),
    ) {
        while c < end {
            let group = c / CELLS_PER_PARTIAL;
            let (g_start, g_end) = (
                group * CELLS_PER_PARTIAL,
                ((group + 1) * CELLS_PER_PARTIAL).min(self.cells),
            );
            // Up to the group's end, `end` or the next lane-0 cell, whichever comes first.
            let run_end = g_end.min(end).min((c / WG + 1) * WG);
            if g_start >= self.from && g_end <= self.to {
                if c == g_start {
                    self.lanes.reset();
                }
                f(c..run_end, Some((&mut self.lanes, c % WG)));
                if run_end == g_end {
                    self.done.push((group, self.lanes.tree()));
                }
            } else {
                f(c..run_end, None);
            }
            c = run_end;
        }
    }

    /// The written cells from `c0` (eta, vel and ground of each).
    pub(crate) fn cells(&mut self, c0: usize, eta: &[f32], vel: &[f32], ground: &[f32]) {
        self.runs(c0, c0 + eta.len(), |run, lanes| {
            if let Some((lanes, t0)) = lanes {
                let s = run.start - c0..run.end - c0;
                fold(lanes, t0, &eta[s.clone()], &vel[s.clone()], &ground[s]);
            }
        });
    }
}

impl Default for Lanes {
    fn default() -> Lanes {
        Lanes {
            eta_depth: [0.0; WG],
            wet_depth: [0.0; WG],
            wet: [0; WG],
            max_depth: [0.0; WG],
            bad: [0; WG],
            depth: [0.0; WG],
            vel: [0.0; WG],
        }
    }
}

/// One whole workgroup's partial sums from its cells (eta, vel, ground), as `partial_sums` gives
/// them for a plain scene (`Lane::plain`): the cells in runs of 256 lanes, then the tree.
pub(crate) fn workgroup(lanes: &mut Lanes, eta: &[f32], vel: &[f32], ground: &[f32]) -> Lane {
    lanes.reset();
    for ((eta, vel), ground) in eta.chunks(WG).zip(vel.chunks(WG)).zip(ground.chunks(WG)) {
        fold(lanes, 0, eta, vel, ground);
    }
    lanes.tree()
}

impl Lanes {
    fn reset(&mut self) {
        self.eta_depth = [0.0; WG];
        self.wet_depth = [0.0; WG];
        self.wet = [0; WG];
        self.max_depth = [0.0; WG];
        self.bad = [0; WG];
        self.depth = [0.0; WG];
        self.vel = [0.0; WG];
    }

    /// The twin's `tree`, field by field (each field's additions are the twin's, in its order).
    fn tree(&mut self) -> Lane {
        let mut stride = WG / 2;
        while stride > 0 {
            halve(self, stride);
            stride /= 2;
        }
        Lane::plain(
            self.eta_depth[0],
            self.wet_depth[0],
            self.wet[0],
            self.max_depth[0],
            self.bad[0],
            self.depth[0],
            self.vel[0],
        )
    }
}

/// One level of the tree: lane t takes lane t + stride.
#[multiversion(targets = "simd")]
fn halve(l: &mut Lanes, stride: usize) {
    fn pair<T>(field: &mut [T; WG], stride: usize) -> (&mut [T], &[T]) {
        let (low, high) = field.split_at_mut(stride);
        (low, &high[..stride])
    }
    let (eta_depth, eta_depth_hi) = pair(&mut l.eta_depth, stride);
    let (wet_depth, wet_depth_hi) = pair(&mut l.wet_depth, stride);
    let (wet, wet_hi) = pair(&mut l.wet, stride);
    let (max_depth, max_depth_hi) = pair(&mut l.max_depth, stride);
    let (bad, bad_hi) = pair(&mut l.bad, stride);
    let (depth, depth_hi) = pair(&mut l.depth, stride);
    let (vel, vel_hi) = pair(&mut l.vel, stride);
    for t in 0..stride {
        eta_depth[t] += eta_depth_hi[t];
        wet_depth[t] += wet_depth_hi[t];
        wet[t] += wet_hi[t];
        max_depth[t] = max_depth[t].max(max_depth_hi[t]);
        bad[t] |= bad_hi[t];
        depth[t] += depth_hi[t];
        vel[t] += vel_hi[t];
    }
}

/// Cells into lanes `t0..`.
#[multiversion(targets = "simd")]
fn fold(lanes: &mut Lanes, t0: usize, eta: &[f32], vel: &[f32], ground: &[f32]) {
    let n = eta.len();
    let (vel, ground) = (&vel[..n], &ground[..n]);
    let mut into = lanes.slices(t0, n);
    for k in 0..n {
        into.add(k, eta[k], vel[k], ground[k]);
    }
}

/// Lanes `t0..t0 + n`, one slice per field, for a loop to add its cells to.
pub(crate) struct LaneSlices<'a> {
    eta_depth: &'a mut [f32],
    wet_depth: &'a mut [f32],
    wet: &'a mut [u32],
    max_depth: &'a mut [f32],
    bad: &'a mut [u32],
    depth: &'a mut [f32],
    vel: &'a mut [f32],
}

impl Lanes {
    pub(crate) fn slices(&mut self, t0: usize, n: usize) -> LaneSlices<'_> {
        let r = t0..t0 + n;
        LaneSlices {
            eta_depth: &mut self.eta_depth[r.clone()],
            wet_depth: &mut self.wet_depth[r.clone()],
            wet: &mut self.wet[r.clone()],
            max_depth: &mut self.max_depth[r.clone()],
            bad: &mut self.bad[r.clone()],
            depth: &mut self.depth[r.clone()],
            vel: &mut self.vel[r],
        }
    }
}

impl LaneSlices<'_> {
    /// Cell (eta, vel, ground) into lane k of the slices: the twin's `partial_sums` body as
    /// selects. Adding 0.0 where the twin adds nothing keeps the bits: a sum that starts at +0 is
    /// never −0, and x + 0 = x otherwise; the same for the max of depths, never below +0.
    #[inline(always)]
    pub(crate) fn add(&mut self, k: usize, e: f32, v: f32, g: f32) {
        let d = e - g;
        let finite = e.is_finite();
        let wet = finite && d > 0.0;
        self.depth[k] += if finite { e.max(g) - g.max(0.0) } else { 0.0 };
        self.bad[k] |= u32::from(!finite);
        let sea = wet && !on_bank(g);
        self.eta_depth[k] += if sea { e * d } else { 0.0 };
        self.wet_depth[k] += if sea { d } else { 0.0 };
        self.wet[k] += u32::from(wet);
        self.max_depth[k] = self.max_depth[k].max(if wet { d } else { 0.0 });
        self.vel[k] += if wet { v } else { 0.0 };
    }
}
