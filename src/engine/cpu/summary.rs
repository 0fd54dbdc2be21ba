//! Twin of `wgsl/summary.wgsl`: folds the level at the end of a step into the summary maps.

use crate::summary::{SummaryCell, SummaryParams, NEVER_WET};

/// Twin of `fold` at step `index` of the chunk.
pub fn fold(sp: &SummaryParams, index: u32, ground: &[f32], eta: &[f32], summary: &mut [SummaryCell]) {
    for ((s, &e), &b) in summary.iter_mut().zip(eta).zip(ground) {
        let d = (e - b).max(0.0);
        s.max_depth = s.max_depth.max(d);
        s.max_eta = s.max_eta.max(e.max(b));
        if d > sp.wet_depth {
            s.wet_steps += 1;
            if s.first_wet == NEVER_WET {
                s.first_wet = sp.first_step + index + 1;
            }
        }
    }
}
