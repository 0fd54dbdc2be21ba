//! `cpu::shallow_water`'s stages over rayon's pool: each row of cells on a thread, each cell by the
//! twin's own function, the Courant number the largest of the rows' (max is exact in any order).

use rayon::prelude::*;

use crate::models::shallow_water::cpu::shallow_water::{stage_one_cell, stage_two_cell, Sides};
use crate::models::shallow_water::setup::SwParams;
use crate::models::shallow_water::state::SwState;

/// A row's first cell and its surface, qx, qy and carry to write.
type Row<'a> = (usize, (((&'a mut [f32], &'a mut [f32]), &'a mut [f32]), &'a mut [f32]));

/// Rows of `out`'s four fields, zipped, each with its first cell's index.
fn rows<'a>(p: &SwParams, out: &'a mut SwState) -> impl IndexedParallelIterator<Item = Row<'a>> {
    let nx = p.nx as usize;
    out.eta
        .par_chunks_mut(nx)
        .zip(out.qx.par_chunks_mut(nx))
        .zip(out.qy.par_chunks_mut(nx))
        .zip(out.carry.par_chunks_mut(nx))
        .enumerate()
        .map(move |(j, cells)| (j * nx, cells))
}

/// `stage_one` of the twin, bit for bit.
pub fn stage_one(p: &SwParams, sides: &Sides, ground: &[f32], u0: &SwState, u1: &mut SwState) -> f32 {
    rows(p, u1)
        .map(|(first, (((eta, qx), qy), carry))| {
            let mut most = 0.0f32;
            for k in 0..eta.len() {
                let (out, courant) = stage_one_cell(p, sides, ground, u0, first + k);
                (eta[k], qx[k], qy[k], carry[k]) = (out[0], out[1], out[2], out[3]);
                most = most.max(courant);
            }
            most
        })
        .reduce(|| 0.0, f32::max)
}

/// `stage_two` of the twin, bit for bit: U2 into `u2` (the backend then swaps it with U0).
pub fn stage_two(p: &SwParams, sides: &Sides, ground: &[f32], u0: &SwState, u1: &SwState, u2: &mut SwState) -> f32 {
    rows(p, u2)
        .map(|(first, (((eta, qx), qy), carry))| {
            let mut most = 0.0f32;
            for k in 0..eta.len() {
                let (out, courant) = stage_two_cell(p, sides, ground, u0, u1, first + k);
                (eta[k], qx[k], qy[k], carry[k]) = (out[0], out[1], out[2], out[3]);
                most = most.max(courant);
            }
            most
        })
        .reduce(|| 0.0, f32::max)
}
