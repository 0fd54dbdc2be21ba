//! Twin of `wgsl/pipe_rain.wgsl`: a step's drops, whole units per column, into each column's top
//! cell (the one open to the sky), counted in the column's exchange.

use crate::engine::feeds::RAINFALL_MAP;
use crate::models::pipes::columns::SKY;
use crate::models::pipes::state::PipeState;

/// Twin of `fall`: `units` into column c's top cell and its exchange.
fn fall(s: &mut PipeState, c: usize, units: u32) {
    let l = s.layers;
    let top = (1..l).rfind(|&a| s.geometry[c * l + a][0] != SKY).unwrap_or(0);
    s.water[c * l + top] += units;
    s.exchange[c] += units as i64;
}

/// Twin of `rain`: adds `units[k]` to the top cell of column `cells[k]`, for each entry of one
/// step.
pub fn rain(s: &mut PipeState, cells: &[u32], units: &[u32]) {
    for (&c, &u) in cells.iter().zip(units) {
        fall(s, c as usize, u);
    }
}

/// Twin of `rainfall`: the step's `height` (m at a share of 1) on every column, in whole units
/// of `per_unit` per metre, each column's fraction carried in `carry`.
pub fn rainfall(s: &mut PipeState, mode: u32, share: &[f32], per_unit: f32, height: f32, carry: &mut [f32]) {
    for (c, carried) in carry.iter_mut().enumerate() {
        let sh = if mode == RAINFALL_MAP { share[c] } else { 1.0 };
        let add = height * sh * per_unit + *carried;
        let units = add.floor();
        *carried = add - units;
        if units > 0.0 {
            fall(s, c, units as u32);
        }
    }
}

/// Twin of `infiltrate`: each column's ground takes its law's capacity (`engine::infiltration`)
/// in whole units of `per_unit` per metre from its lowest cell, never more than that holds, the
/// fraction left over owed to the next step (`owed`); the units leave the column's exchange.
/// `rain`: what the step's rainfall gave the column (m), which the curve number counts.
pub fn infiltrate(
    s: &mut PipeState,
    law: u32,
    planes: &[f32],
    soil: &mut [[f32; 4]],
    owed: &mut [f32],
    per_unit: f32,
    rain: impl Fn(usize) -> f32,
) {
    let (n, l) = (owed.len(), s.layers);
    for c in 0..n {
        let par = crate::engine::infiltration::parameters_at(planes, n, c);
        let (cap, mut st) = crate::engine::infiltration::capacity(law, par, soil[c], rain(c));
        let want = cap * per_unit + owed[c];
        let whole = want.floor();
        let held = s.water[c * l];
        let take = if whole < held as f32 {
            owed[c] = want - whole;
            whole as u32
        } else {
            // Short of water: the ground takes what there is and is owed nothing more.
            owed[c] = 0.0;
            held
        };
        if take > 0 {
            s.water[c * l] = held - take;
            s.exchange[c] -= take as i64;
            st = crate::engine::infiltration::took(law, st, take as f32 / per_unit, cap);
        }
        soil[c] = st;
    }
}
