//! Twin of `wgsl/pipe_bodies.wgsl`: the heads the bodies press the columns with (`press`), and
//! the water's velocity around each body (`loads`, `engine::cpu::pressed`'s over the columns'
//! depth-averaged flow). The body passes themselves are the height field's
//! (`engine::cpu::bodies`), pressed.

use crate::engine::bodies::{BodyParams, BodyState, Cover};
use crate::models::pipes::bodies::PressGrid;
use crate::models::pipes::state::PipeState;

/// Twin of `press`: each column's air head (the first plane of `s.column_forcing`) becomes the
/// patches' (when `grid.patched`) plus the one its cover presses the water with.
pub fn press(grid: &PressGrid, cover: &[Cover], s: &mut PipeState) {
    let air = &mut s.column_forcing[..grid.columns as usize];
    for (a, cv) in air.iter_mut().zip(cover) {
        let patches = if grid.patched != 0 { *a } else { 0.0 };
        *a = patches + cv.held;
    }
}

/// Twin of `loads`: a column's flow is Σ over its cells of units·quantum times the cell's velocity
/// and units·quantum, in layer order; a column with no water is dry.
pub fn loads(
    grid: &PressGrid,
    bp: &BodyParams,
    bodies: (&[BodyState], &mut [Cover]),
    s: &PipeState,
    loads: &mut [[f32; 4]],
) {
    let layers = s.layers;
    let water = |c: usize| {
        let (mut q, mut d) = ([0.0f32; 2], 0.0f32);
        for l in 0..grid.layers as usize {
            let w = s.water[c * layers + l] as f32 * grid.quantum;
            let v = s.vel[c * layers + l];
            q = [q[0] + w * v[0], q[1] + w * v[1]];
            d += w;
        }
        (d > 0.0).then_some([q[0], q[1], d])
    };
    crate::engine::cpu::pressed::loads((grid.nx, grid.ny), bp, bodies, water, loads);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bodies::TAGGED;

    #[test]
    fn the_head_joins_the_patches_only_when_they_wrote_it() {
        let columns = 3;
        let mut grid = PressGrid {
            nx: 3,
            ny: 1,
            columns,
            layers: 1,
            quantum: 1.0 / 1024.0,
            ..PressGrid::default()
        };
        let pierced = Cover {
            bottom: -0.1,
            top: 0.1,
            owner: 1 | TAGGED,
            held: 0.1,
        };
        let cover = [pierced, Cover { held: 0.05, ..pierced }, Cover::default()];
        let mut s = PipeState {
            column_forcing: vec![0.5, 0.5, 0.5, 7.0, 7.0, 7.0],
            ..PipeState::default()
        };
        press(&grid, &cover, &mut s);
        assert_eq!(
            s.column_forcing,
            [0.1, 0.05, 0.0, 7.0, 7.0, 7.0],
            "the n² plane untouched"
        );
        grid.patched = 1;
        s.column_forcing[..3].fill(0.5);
        press(&grid, &cover, &mut s);
        assert_eq!(s.column_forcing[..3], [0.6, 0.55, 0.5]);
    }

    #[test]
    fn a_body_drifts_at_the_depth_averaged_velocity_of_the_columns_around_it() {
        let (nx, ny) = (8u32, 8u32);
        let n = (nx * ny) as usize;
        let grid = PressGrid {
            nx,
            ny,
            columns: nx * ny,
            layers: 2,
            quantum: 0.25,
            ..PressGrid::default()
        };
        // Two cells a column: 4 units (1 m) at 0.5 m/s below, none above; one column near the
        // body holds 4 more units above at 2 m/s; one far from it (outside the reach) is dry.
        let mut s = PipeState {
            layers: 2,
            water: (0..2 * n).map(|i| if i % 2 == 0 { 4 } else { 0 }).collect(),
            vel: (0..2 * n)
                .map(|i| if i % 2 == 0 { [0.5, 0.0] } else { [9.0, 9.0] })
                .collect(),
            ..PipeState::default()
        };
        let near = 2 * 8 + 2;
        s.water[2 * near + 1] = 4;
        s.vel[2 * near + 1] = [2.0, 0.0];
        s.water[2 * 63] = 0;
        let bp = BodyParams {
            dx: 0.5,
            gravity: 10.0,
            water_density: 1000.0,
            ..BodyParams::default()
        };
        let body = BodyState {
            position: [2.0, 2.0, 0.0, 100.0],
            rect: [3, 3, 4, 4],
            ..BodyState::default()
        };
        let mut cover = vec![Cover::default(); n];
        for c in [27, 28, 35, 36] {
            cover[c] = Cover {
                bottom: -0.2,
                top: 0.2,
                owner: 1,
                held: 0.25,
            };
        }
        let mut out = vec![[9.0f32; 4]; 3];
        loads(&grid, &bp, (&[body], &mut cover), &s, &mut out);
        // The reach covers cells 1..=6 both ways: 35 columns of 1 m at 0.5, one of 2 m at 1.25.
        let u = (35.0 * 0.5 + 2.5) / (35.0 + 2.0);
        assert!((out[2][0] - u).abs() < 1e-6, "{:?}", out[2]);
        assert_eq!(out[2][1..], [0.0, 0.0, 0.0]);
        // 100 kg over four columns whose draft holds 1000·0.25·1.0 = 250 kg.
        assert_eq!(cover[28].held, 0.25 * (100.0 / 250.0));
    }
}
