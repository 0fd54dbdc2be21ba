//! Twin of `wgsl/pipe_rain.wgsl`: a step's drops, whole units per column, into each column's top
//! cell (the one open to the sky), counted in the column's exchange.

use crate::engine::fast::items_per_task;
use crate::engine::feeds::RAINFALL_MAP;
use crate::models::pipes::state::{top_cell, PipeState};
use crate::wgsl::rain_step::HELD;
use rayon::prelude::*;

/// Twin of `fall`: `units` into column c's top cell and its exchange.
fn fall(s: &mut PipeState, c: usize, units: u32) {
    let l = s.layers;
    let top = top_cell(&s.geometry[c * l..(c + 1) * l]);
    s.water[c * l + top] += units;
    s.exchange[c] += units as i64;
}

/// Twin of `take`: up to `units` from column c's top cell, never more than it holds.
fn take(s: &mut PipeState, c: usize, units: u32) {
    let l = s.layers;
    let at = c * l + top_cell(&s.geometry[c * l..(c + 1) * l]);
    let t = units.min(s.water[at]);
    s.water[at] -= t;
    s.exchange[c] -= t as i64;
}

/// Twin of `hold`: column c's top cell set to `level` (units from the reference level).
fn hold(s: &mut PipeState, c: usize, level: i32) {
    let l = s.layers;
    let at = c * l + top_cell(&s.geometry[c * l..(c + 1) * l]);
    let want = level.wrapping_sub(s.geometry[at][0]).max(0) as u32;
    s.exchange[c] += want as i64 - s.water[at] as i64;
    s.water[at] = want;
}

/// Twin of `rain`: each entry of one step on the top cell of column `cells[k]`: `units[k]` (i32
/// bits) added or, negative, taken; a cell flagged `HELD` set to the level `units[k]`.
pub fn rain(s: &mut PipeState, cells: &[u32], units: &[u32]) {
    for (&c, &u) in cells.iter().zip(units) {
        let u = u as i32;
        if c & HELD != 0 {
            hold(s, (c & !HELD) as usize, u);
        } else if u >= 0 {
            fall(s, c as usize, u as u32);
        } else {
            take(s, c as usize, u.unsigned_abs());
        }
    }
}

/// One column's slices as `rainfall` hands them out: its cells' geometry and water, its exchange
/// and its carried fraction.
type RainfallRun<'a> = (((&'a [[i32; 2]], &'a mut [u32]), &'a mut i64), &'a mut f32);
/// One column's slices as `infiltrate` hands them out: its cells' water, its exchange, soil and
/// owed fraction.
type SoakRun<'a> = (((&'a mut [u32], &'a mut i64), &'a mut [f32; 4]), &'a mut f32);

/// Twin of `rainfall`'s work on one column (`geometry`, `water`: its cells; `exchange`, `carried`:
/// its own): the height `add` in units plus what it carried; the whole units fall, the fraction
/// carries on.
fn rainfall_column(geometry: &[[i32; 2]], water: &mut [u32], exchange: &mut i64, carried: &mut f32, add: f32) {
    let add = add + *carried;
    let units = add.floor();
    *carried = add - units;
    if units > 0.0 {
        water[top_cell(geometry)] += units as u32;
        *exchange += units as i64;
    }
}

/// Twin of `rainfall`: the step's `height` (m at a share of 1) on every column, in whole units
/// of `per_unit` per metre, each column's fraction carried in `carry`. `parallel` spreads the
/// columns over rayon's pool (the fast backend): each reads and writes only its own column, so
/// the bits are the same.
pub fn rainfall(
    s: &mut PipeState,
    mode: u32,
    share: &[f32],
    per_unit: f32,
    height: f32,
    carry: &mut [f32],
    parallel: bool,
) {
    let l = s.layers;
    let add = |c: usize| height * if mode == RAINFALL_MAP { share[c] } else { 1.0 } * per_unit;
    let work = |(c, (((geometry, water), exchange), carried)): (usize, RainfallRun)| {
        rainfall_column(geometry, water, exchange, carried, add(c))
    };
    if parallel {
        s.geometry
            .par_chunks(l)
            .zip(s.water.par_chunks_mut(l))
            .zip(s.exchange.par_iter_mut())
            .zip(carry.par_iter_mut())
            .with_min_len(items_per_task(l))
            .enumerate()
            .for_each(work);
    } else {
        s.geometry
            .chunks(l)
            .zip(s.water.chunks_mut(l))
            .zip(s.exchange.iter_mut())
            .zip(carry.iter_mut())
            .enumerate()
            .for_each(work);
    }
}

/// What `infiltrate` needs of a step beyond the columns: the law, its parameter planes, units per
/// metre, and the rain each column's rainfall gave it (m), which the curve number counts.
pub struct Soaking<'a, R: Fn(usize) -> f32 + Sync> {
    pub law: u32,
    pub planes: &'a [f32],
    pub per_unit: f32,
    pub rain: R,
}

/// Twin of `infiltrate`'s work on one column (`lowest`: its lowest cell's water; `exchange`,
/// `soil`, `owed`: its own).
fn infiltrate_column<R: Fn(usize) -> f32 + Sync>(
    k: &Soaking<R>,
    n: usize,
    c: usize,
    lowest: &mut u32,
    exchange: &mut i64,
    soil: &mut [f32; 4],
    owed: &mut f32,
) {
    let par = crate::engine::infiltration::parameters_at(k.planes, n, c);
    let (cap, mut st) = crate::engine::infiltration::capacity(k.law, par, *soil, (k.rain)(c));
    let want = cap * k.per_unit + *owed;
    let whole = want.floor();
    let held = *lowest;
    let take = if whole < held as f32 {
        *owed = want - whole;
        whole as u32
    } else {
        // Short of water: the ground takes what there is and is owed nothing more.
        *owed = 0.0;
        held
    };
    if take > 0 {
        *lowest = held - take;
        *exchange -= take as i64;
        st = crate::engine::infiltration::took(k.law, st, take as f32 / k.per_unit, cap);
    }
    *soil = st;
}

/// Twin of `infiltrate`: each column's ground takes its law's capacity (`engine::infiltration`)
/// in whole units from its lowest cell, never more than that holds, the fraction left over owed
/// to the next step (`owed`); the units leave the column's exchange. `parallel` as `rainfall`.
pub fn infiltrate<R: Fn(usize) -> f32 + Sync>(
    s: &mut PipeState,
    k: &Soaking<R>,
    soil: &mut [[f32; 4]],
    owed: &mut [f32],
    parallel: bool,
) {
    let (n, l) = (owed.len(), s.layers);
    let work = |(c, (((column, exchange), soil), owed)): (usize, SoakRun)| {
        infiltrate_column(k, n, c, &mut column[0], exchange, soil, owed)
    };
    if parallel {
        s.water
            .par_chunks_mut(l)
            .zip(s.exchange.par_iter_mut())
            .zip(soil.par_iter_mut())
            .zip(owed.par_iter_mut())
            .with_min_len(items_per_task(l))
            .enumerate()
            .for_each(work);
    } else {
        s.water
            .chunks_mut(l)
            .zip(s.exchange.iter_mut())
            .zip(soil.iter_mut())
            .zip(owed.iter_mut())
            .enumerate()
            .for_each(work);
    }
}
