//! Twin of `wgsl/pressure.wgsl`: each cell's air-pressure head from one step's patches.

use crate::engine::pressure::Patch;
use crate::wgsl::pressure::SHAPE_BOX;

/// Twin of `patch_head`.
fn patch_head(q: &Patch, i: u32, j: u32) -> f32 {
    let dx = (i as f32 + 0.5) - q.x;
    let dy = (j as f32 + 0.5) - q.y;
    if q.shape == SHAPE_BOX {
        return if dx.abs() <= q.a && dy.abs() <= q.b {
            q.head
        } else {
            0.0
        };
    }
    q.head * (-(dx * dx + dy * dy) * q.a).exp()
}

/// Twin of `head`: writes the step's head into `head` (the cells of a grid `nx` wide, row-major).
pub fn head(nx: u32, patches: &[Patch], head: &mut [f32]) {
    let nx = nx as usize;
    for (c, h) in head.iter_mut().enumerate() {
        let (i, j) = ((c % nx) as u32, (c / nx) as u32);
        *h = patches.iter().fold(0.0f32, |sum, q| sum + patch_head(q, i, j));
    }
}
