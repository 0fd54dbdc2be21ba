//! `reduce.wgsl` on every core: the workgroups' partial sums in parallel, each by the twin's own
//! tree, then folded in the twin's fixed order, so the totals do not depend on the thread count.

use crate::cpu::reduce::{finish, partial_sums, Extras, Lane};
use crate::params::{Params, Totals, CELLS_PER_PARTIAL};
use rayon::prelude::*;

/// As `cpu::reduce::reduce`.
pub fn reduce(p: &Params, ground: &[f32], eta: &[f32], vel: &[f32], extras: Extras) -> Totals {
    let partials: Vec<Lane> = (0..eta.len().div_ceil(CELLS_PER_PARTIAL))
        .into_par_iter()
        .map(|group| partial_sums(p, ground, eta, vel, extras, group))
        .collect();
    finish(p, &partials)
}
