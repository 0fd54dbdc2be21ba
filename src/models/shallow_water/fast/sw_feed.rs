//! `cpu::sw_feed`'s rainfall over rayon's pool, row by row, each cell by the twin's own `fed`: the
//! same bits (a cell's feed reads only the cell). The drops stay on the twin: a step has at most
//! one entry per cell, and few.

use crate::engine::fast::items_per_task;
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
        .with_min_len(items_per_task(nx))
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

/// `infiltrate` of the twin, bit for bit: each cell by the twin's own `infiltrated` (a cell's
/// infiltration reads only the cell and its soil).
pub fn infiltrate(p: &SwParams, ground: &[f32], stages: &[f32], share: &[f32], height: f32, s: &mut SwState) {
    use crate::models::shallow_water::cpu::sw_feed::{infiltrated, rain_on, soil_parameters};
    const N: usize = crate::engine::infiltration::SOIL_FLOATS;
    let nx = p.nx as usize;
    s.eta
        .par_chunks_mut(nx)
        .zip(s.qx.par_chunks_mut(nx))
        .zip(s.qy.par_chunks_mut(nx))
        .zip(s.carry.par_chunks_mut(nx))
        .zip(s.soil.par_chunks_mut(N * nx))
        .with_min_len(items_per_task(nx))
        .enumerate()
        .for_each(|(j, ((((eta, qx), qy), carry), soil))| {
            for k in 0..eta.len() {
                let c = j * nx + k;
                let st: [f32; N] = soil[N * k..N * (k + 1)].try_into().expect("four floats a cell");
                let cell = [eta[k], qx[k], qy[k], carry[k]];
                let rain = rain_on(p, share, height, c);
                let (out, st) = infiltrated(p, ground[c], cell, st, soil_parameters(p, stages, c), rain);
                [eta[k], qx[k], qy[k], carry[k]] = out;
                soil[N * k..N * (k + 1)].copy_from_slice(&st);
            }
        });
}
