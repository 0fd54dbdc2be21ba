//! Twin of `wgsl/sw_bodies.wgsl`: the heads the bodies press the water with (`press`), and their
//! force, torque and the water's velocity around each body (`loads`). The body passes themselves
//! are the height field's (`engine::cpu::bodies`), pressed.

use crate::engine::bodies::{BodyParams, BodyState, Cover};
use crate::models::shallow_water::setup::SwParams;
use crate::models::shallow_water::state::SwState;

/// Twin of `press`: each cell's head at `p.air_at` of the stages' ground `stages` becomes the
/// patches' (when `p.patched`) plus the one its cover presses the water with (`held`, as `loads`
/// scaled it).
pub fn press(p: &SwParams, cover: &[Cover], stages: &mut [f32]) {
    let at = p.air_at as usize;
    for (c, cv) in cover.iter().enumerate().take(p.cells as usize) {
        let patches = if p.patched != 0 { stages[at + c] } else { 0.0 };
        stages[at + c] = patches + cv.held;
    }
}

/// Twin of `loads`: `engine::cpu::pressed::loads` over the cells deeper than the film.
pub fn loads(
    p: &SwParams,
    bp: &BodyParams,
    bodies: (&[BodyState], &mut [Cover]),
    ground: &[f32],
    s: &SwState,
    loads: &mut [[f32; 4]],
) {
    let water = |c: usize| {
        let d = s.eta[c] - ground[c];
        (d > p.film).then(|| [s.qx[c], s.qy[c], d])
    };
    crate::engine::cpu::pressed::loads((p.nx, p.ny), bp, bodies, water, loads);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bodies::{MOTION_FIXED, TAGGED};

    fn params(nx: u32, ny: u32) -> SwParams {
        SwParams {
            nx,
            ny,
            cells: nx * ny,
            air_at: nx * ny,
            film: 1.0e-3,
            ..SwParams::default()
        }
    }

    #[test]
    fn the_head_is_the_draft_added_to_the_patches_only_when_they_wrote_it() {
        let mut p = params(3, 1);
        let pierced = Cover {
            bottom: -0.1,
            top: 0.1,
            owner: 1 | TAGGED,
            held: 0.1,
        };
        let cover = [pierced, Cover { held: 0.05, ..pierced }, Cover::default()];
        let mut stages = vec![-1.0, -1.0, -1.0, 0.5, 0.5, 0.5];
        press(&p, &cover, &mut stages);
        assert_eq!(stages, [-1.0, -1.0, -1.0, 0.1, 0.05, 0.0]);
        p.patched = 1;
        let mut stages = vec![-1.0, -1.0, -1.0, 0.5, 0.5, 0.5];
        press(&p, &cover, &mut stages);
        assert_eq!(stages[3..], [0.6, 0.55, 0.5]);
    }

    #[test]
    fn a_free_body_presses_with_its_weight_and_drifts_at_the_mean_velocity_around_it() {
        let p = params(8, 8);
        let bp = BodyParams {
            dx: 0.5,
            gravity: 10.0,
            water_density: 1000.0,
            ..BodyParams::default()
        };
        let ground = vec![-1.0f32; 64];
        let mut s = SwState::new(&[0.0; 64], &ground, &[]);
        // Water 1 m deep at 0.5 m/s along x, but 2 m deep at 2 m/s in one cell near the body and
        // dry far from it (outside the reach: not counted).
        s.qx.fill(0.5);
        s.eta[2 * 8 + 2] = 1.0;
        s.qx[2 * 8 + 2] = 4.0;
        s.eta[7 * 8 + 7] = -1.0;
        // 100 kg over four columns whose draft holds 0.25·(0.2 + 0.2 + 0.2 + 0.4) m³ = 250 kg.
        let mut body = BodyState {
            position: [2.0, 2.0, 0.0, 100.0],
            rect: [3, 3, 4, 4],
            ..BodyState::default()
        };
        let mut cover = vec![Cover::default(); 64];
        for c in [27, 28, 35, 36] {
            cover[c] = Cover {
                bottom: -0.2,
                top: 0.2,
                owner: 1,
                held: if c == 28 { 0.4 } else { 0.2 },
            };
        }
        let start = cover.clone();
        let mut out = vec![[9.0f32; 4]; 3];
        loads(&p, &bp, (&[body], &mut cover), &ground, &s, &mut out);
        assert_eq!(cover[28].held, 0.4 * (100.0 / 250.0));
        let total: f32 = cover.iter().map(|cv| cv.held).sum();
        assert!(
            (1000.0 * 0.25 * total - 100.0).abs() < 1e-3,
            "the heads carry its weight: {total}"
        );
        // The reach covers cells 1..=6 both ways: 36 cells, 35 of 1 m at 0.5, one of 2 m at 4.
        let u = (35.0 * 0.5 + 4.0) / (35.0 + 2.0);
        assert!((out[2][0] - u).abs() < 1e-6, "{:?}", out[2]);
        assert_eq!(out[2][1..], [0.0, 0.0, 0.0]);
        assert_eq!(out[..2], [[9.0; 4]; 2], "the first two loads are the layer's alone");
        body.kind[1] = MOTION_FIXED;
        let mut fixed = start.clone();
        loads(&p, &bp, (&[body], &mut fixed), &ground, &s, &mut out);
        assert_eq!(fixed, start, "a fixed body presses with its draft");
    }
}
