//! `reduce.wgsl` on every core: the workgroups' partial sums in parallel, each in the twin's
//! order and by the twin's tree, then folded in the twin's fixed order, so the totals do not
//! depend on the thread count. A plain scene (no bodies, sources or clamp bookkeeping) folds its
//! workgroups with `fast::fold`'s vectorised lanes, each wet cell's change less what its faces
//! hold where the level keeps their memory (`volume::held_in_faces`); any other runs the twin's
//! `partial_sums`.

use crate::engine::cpu::reduce::{finish, partial_sums, Extras, Lane};
use crate::engine::cpu::volume::held_in_faces;
use crate::engine::fast::fold::{workgroup, Lanes};
use crate::engine::fast::items_per_task;
use crate::engine::params::{Params, Totals, CELLS_PER_PARTIAL, CORRECT_CLAMPS};
use rayon::prelude::*;

/// As `cpu::reduce::reduce`.
pub fn reduce(p: &Params, ground: &[f32], eta: &[f32], vel: &[f32], extras: Extras) -> Totals {
    let groups = eta.len().div_ceil(CELLS_PER_PARTIAL);
    let partials: Vec<Lane> = if p.bodies == 0 && p.sources == 0 && p.correct != CORRECT_CLAMPS {
        eta.par_chunks(CELLS_PER_PARTIAL)
            .zip(vel.par_chunks(CELLS_PER_PARTIAL))
            .zip(ground.par_chunks(CELLS_PER_PARTIAL))
            .with_min_len(items_per_task(CELLS_PER_PARTIAL))
            .enumerate()
            .map_init(
                || (Box::<Lanes>::default(), Vec::new()),
                |(lanes, unheld), (group, ((eta, vel), ground))| {
                    if extras.faces.is_empty() {
                        return workgroup(lanes, eta, vel, ground);
                    }
                    // The lanes add a wet cell's vel only: a dry one's passes as it is.
                    let c0 = group * CELLS_PER_PARTIAL;
                    unheld.clear();
                    unheld.extend(vel.iter().enumerate().map(|(k, &v)| {
                        if eta[k] > ground[k] {
                            v - held_in_faces(p, extras.faces, c0 + k)
                        } else {
                            v
                        }
                    }));
                    workgroup(lanes, eta, unheld, ground)
                },
            )
            .collect()
    } else {
        (0..groups)
            .into_par_iter()
            .with_min_len(items_per_task(CELLS_PER_PARTIAL))
            .map(|group| partial_sums(p, ground, eta, vel, extras, group))
            .collect()
    };
    finish(p, &partials)
}
