//! Twin of `wgsl/pipe_edits.wgsl`: the host's edits in place on the pipes' columns (`Water::brush`
//! and `Water::disturb` on the pipes), in whole units. A brush moves each column's lowest floor,
//! its water riding along; a splash adds units to the top cell (or takes up to what it holds) and
//! counts them in the column's exchange. The rules and their reasons are the WGSL file's.

use crate::engine::edit::{HostEdit, EDIT_BRUSH};
use crate::models::pipes::columns::SKY;
use crate::models::pipes::edit::PipeEditParams;
use crate::models::pipes::state::{top_cell, PipeState};

/// The heights the columns count, in units either side of the reference level (`EDIT_RANGE`).
pub use crate::wgsl::pipe_edits::EDIT_RANGE;

/// Twin of `edit_units`: edit `e`'s height at column c, in whole units, rounded half away from
/// zero.
pub fn edit_units(e: &HostEdit, c: usize, p: &PipeEditParams) -> i32 {
    let w = e.weight(c % p.nx as usize, c / p.nx as usize);
    if w <= 0.0 {
        return 0;
    }
    let range = EDIT_RANGE as f32;
    ((e.amount * w) * p.per_unit).clamp(-range, range).round() as i32
}

/// Twin of `apply_edits`: `edits` in order on every column of `s` (column-major) and its top floor
/// (`top_floor`, metres − ref).
pub fn apply_edits(s: &mut PipeState, top_floor: &mut [f32], p: &PipeEditParams, edits: &[HostEdit]) {
    let l = s.layers;
    for c in 0..s.columns() {
        for e in edits {
            let units = edit_units(e, c, p);
            if units == 0 {
                continue;
            }
            if e.kind == EDIT_BRUSH {
                brush(s, top_floor, p, c, units);
            } else {
                splash(s, c * l + top_cell(&s.geometry[c * l..(c + 1) * l]), c, units);
            }
        }
    }
}

/// Twin of `brush`: column c's lowest floor moved by `units`.
fn brush(s: &mut PipeState, top_floor: &mut [f32], p: &PipeEditParams, c: usize, units: i32) {
    let at = c * s.layers;
    let [floor, ceiling] = s.geometry[at];
    let moved = if units > 0 {
        let high = match ceiling {
            SKY => EDIT_RANGE,
            _ => ceiling - s.water[at].min(EDIT_RANGE as u32) as i32,
        };
        (floor + units).min(high.max(floor))
    } else {
        (floor + units).max(-EDIT_RANGE)
    };
    s.geometry[at][0] = moved;
    if ceiling == SKY {
        top_floor[c] = moved as f32 * p.unit;
    }
}

/// Twin of `splash`: `units` into cell `at` (column c's top cell), or up to what it holds out.
fn splash(s: &mut PipeState, at: usize, c: usize, units: i32) {
    let w = s.water[at];
    let moved = if units >= 0 {
        (units as u32).min(u32::MAX - w) as i64
    } else {
        -(units.unsigned_abs().min(w) as i64)
    };
    s.water[at] = (w as i64 + moved) as u32;
    s.exchange[c] += moved;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::edit::EDIT_DISTURB;

    /// One column: a cell on the ground under a slab (ceiling at 100), and the deck's top cell.
    fn bridge(water: [u32; 2]) -> PipeState {
        PipeState {
            layers: 2,
            geometry: vec![[0, 100], [120, SKY]],
            water: water.to_vec(),
            feed: vec![[0; 4]],
            exchange: vec![0],
            ..Default::default()
        }
    }

    fn grid() -> PipeEditParams {
        PipeEditParams {
            nx: 1,
            columns: 1,
            unit: 0.25,
            per_unit: 4.0,
            ..Default::default()
        }
    }

    /// An edit of `amount` m at the column's centre (weight 1).
    fn edit(kind: u32, amount: f32) -> HostEdit {
        HostEdit::at(kind, 0.5, 0.5, 10.0, amount as f64, 1.0)
    }

    #[test]
    fn half_a_unit_rounds_away_from_zero_as_the_host_rounds() {
        assert_eq!(edit_units(&edit(EDIT_DISTURB, 0.125), 0, &grid()), 1);
        assert_eq!(edit_units(&edit(EDIT_DISTURB, -0.125), 0, &grid()), -1);
        assert_eq!(edit_units(&edit(EDIT_DISTURB, 0.375), 0, &grid()), 2);
        assert_eq!(edit_units(&edit(EDIT_DISTURB, 1e30), 0, &grid()), EDIT_RANGE);
    }

    #[test]
    fn a_brush_under_a_slab_stops_where_the_water_below_it_would_be_squeezed() {
        let mut s = bridge([60, 5]);
        let mut top = vec![30.0];
        // 10 m up: the floor stops at 100 − 60 = 40 units; the deck and its top floor stay.
        apply_edits(&mut s, &mut top, &grid(), &[edit(EDIT_BRUSH, 10.0)]);
        assert_eq!(s.geometry, vec![[40, 100], [120, SKY]]);
        assert_eq!((s.water.clone(), s.exchange[0], top[0]), (vec![60, 5], 0, 30.0));
        // Digging has no ceiling to meet.
        apply_edits(&mut s, &mut top, &grid(), &[edit(EDIT_BRUSH, -20.0)]);
        assert_eq!(s.geometry[0], [-40, 100]);
    }

    #[test]
    fn a_brush_in_the_open_carries_the_water_and_moves_the_top_floor() {
        let mut s = PipeState {
            layers: 1,
            geometry: vec![[8, SKY]],
            water: vec![7],
            feed: vec![[0; 4]],
            exchange: vec![0],
            ..Default::default()
        };
        let mut top = vec![2.0];
        apply_edits(&mut s, &mut top, &grid(), &[edit(EDIT_BRUSH, 1.0)]);
        assert_eq!((s.geometry[0], s.water[0], top[0]), ([12, SKY], 7, 3.0));
    }

    #[test]
    fn a_splash_lands_on_the_deck_and_a_dip_takes_no_more_than_the_top_cell_holds() {
        let mut s = bridge([60, 5]);
        let mut top = vec![30.0];
        apply_edits(&mut s, &mut top, &grid(), &[edit(EDIT_DISTURB, 1.0)]);
        assert_eq!((s.water.clone(), s.exchange[0]), (vec![60, 9], 4));
        apply_edits(&mut s, &mut top, &grid(), &[edit(EDIT_DISTURB, -10.0)]);
        assert_eq!((s.water.clone(), s.exchange[0]), (vec![60, 0], -5));
    }
}
