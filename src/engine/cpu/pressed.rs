//! Twin of `wgsl/pressed.wgsl`: the half of a pressed model's `loads` the shallow-water model and
//! the pipes share. Each body's covered columns have their `held` scaled to the head it presses
//! the water with (a free body's mass over the water its columns' draft holds; 1 without draft or
//! for a fixed or kinematic body), and its third load becomes the water's depth-averaged velocity
//! (Σ qx / Σ d, Σ qy / Σ d) over the wet cells of its `rect` grown by `REACH` (0 where none is).
//! The GPU folds the sums in a workgroup's tree, so the two agree to rounding, as `integrate`'s
//! own sums do.

use crate::engine::bodies::MOTION_FREE;
use crate::engine::bodies::{BodyParams, BodyState, Cover};
pub use crate::wgsl::pressed::REACH;

/// `loads` over a grid of `nx` × `ny` cells; `water(c)` is cell c's (qx, qy, d), None where the
/// model counts it dry.
pub fn loads(
    (nx, ny): (u32, u32),
    bp: &BodyParams,
    (bodies, cover): (&[BodyState], &mut [Cover]),
    water: impl Fn(usize) -> Option<[f32; 3]>,
    loads: &mut [[f32; 4]],
) {
    for (k, b) in bodies.iter().enumerate() {
        let r = b.rect;
        if !(r[0] <= r[2] && r[1] <= r[3]) {
            loads[3 * k + 2] = [0.0; 4];
            continue;
        }
        let cells = || {
            (r[1].saturating_sub(REACH)..=(r[3] + REACH).min(ny - 1)).flat_map(move |j| {
                (r[0].saturating_sub(REACH)..=(r[2] + REACH).min(nx - 1)).map(move |i| (j * nx + i) as usize)
            })
        };
        let mut sum = [0.0f32; 4];
        for c in cells() {
            if let Some([qx, qy, d]) = water(c) {
                sum = [sum[0] + qx, sum[1] + qy, sum[2] + d, sum[3]];
            }
            if cover[c].owner() == k as u32 + 1 {
                sum[3] += cover[c].held;
            }
        }
        let draft = bp.water_density * bp.dx * bp.dx * sum[3];
        let scale = if b.kind[1] == MOTION_FREE && draft > 0.0 {
            b.position[3] / draft
        } else {
            1.0
        };
        for c in cells() {
            if cover[c].owner() == k as u32 + 1 {
                cover[c].held *= scale;
            }
        }
        loads[3 * k + 2] = match sum[2] > 0.0 {
            true => [sum[0] / sum[2], sum[1] / sum[2], 0.0, 0.0],
            false => [0.0; 4],
        };
    }
}
