//! Twin of `wgsl/edit.wgsl`'s `apply_edits`: host edits on the ground and the current level, in
//! the order they were made. Returns the water each cell gained (disturbances only).

use crate::engine::edit::{HostEdit, EDIT_BRUSH};

/// Applies host edits to `ground` and `eta` as edit.wgsl does, returning each cell's change of water.
pub fn apply_edits(nx: usize, edits: &[HostEdit], ground: &mut [f32], eta: &mut [f32]) -> Vec<f32> {
    let mut added = vec![0.0f32; eta.len()];
    for (c, (b, e)) in ground.iter_mut().zip(eta.iter_mut()).enumerate() {
        let (i, j) = (c % nx, c / nx);
        for edit in edits {
            let w = edit.weight(i, j);
            if w <= 0.0 {
                continue;
            }
            let lift = edit.amount * w;
            if edit.kind == EDIT_BRUSH {
                let wet = *e > *b;
                *b += lift;
                *e = if wet { *e + lift } else { *b };
            } else {
                let before = crate::models::height_field::cpu::explicit::depth(*e, *b);
                *e = ((*e).max(*b) + lift).max(*b);
                added[c] += crate::models::height_field::cpu::explicit::depth(*e, *b) - before;
            }
        }
    }
    added
}
