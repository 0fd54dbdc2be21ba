//! `cpu::sw_feed`'s rainfall over rayon's pool, row by row, each cell by the twin's own `fed`: the
//! same bits (a cell's feed reads only the cell). The drops stay on the twin: a step has at most
//! one entry per cell, and few.

use rayon::prelude::*;

use crate::models::shallow_water::cpu::sw_feed::{fed, rainfall_height};
use crate::models::shallow_water::setup::SwParams;
use crate::models::shallow_water::state::SwState;

/// `rainfall` of the twin, bit for bit.
pub fn rainfall(p: &SwParams, ground: &[f32], share: &[f32], height: f32, s: &mut SwState) {
    let nx = p.nx as usize;
    s.eta
        .par_chunks_mut(nx)
        .zip(s.qx.par_chunks_mut(nx))
        .zip(s.qy.par_chunks_mut(nx))
        .zip(s.carry.par_chunks_mut(nx))
        .enumerate()
        .for_each(|(j, (((eta, qx), qy), carry))| {
            for k in 0..eta.len() {
                let c = j * nx + k;
                let h = rainfall_height(p, share, height, c);
                if h > 0.0 {
                    let (out, _) = fed(ground[c], [eta[k], qx[k], qy[k], carry[k]], h);
                    [eta[k], qx[k], qy[k], carry[k]] = out;
                }
            }
        });
}
