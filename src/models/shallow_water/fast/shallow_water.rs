//! `cpu::shallow_water`'s stages over rayon's pool, bit for bit, in bands of rows (one band a
//! task). The twin works cell by cell as the GPU's threads do: each cell reads its own five-cell
//! lines, so every reconstruction is made three times and every face's flux twice. A band makes
//! each cell's reconstruction once per axis and each face's flux once, by the twin's own
//! functions on the same inputs (the twin's two cells of a face compute its flux alike), so every
//! number is the twin's. The Courant number is the largest of the bands' (max is exact in any
//! order).

use crate::engine::fast::items_per_task;
use rayon::prelude::*;

use crate::models::shallow_water::cpu::shallow_water::{
    at_x, at_y, both_axes, cell_rates, courant, courant_of_primitive, faces, flux, primitive, stage_one_out,
    stage_two_out, Flux, Side, Sides,
};
use crate::models::shallow_water::setup::SwParams;
use crate::models::shallow_water::state::SwState;

/// Rows a task steps: the y sweep makes two reconstructions and one flux row more than it
/// keeps per band, 1/8 more work at 16 rows, and a 1024² grid still has 64 tasks.
const BAND: usize = 16;

/// A band's first row and its surface, qx, qy and carry to write.
type Band<'a> = (usize, (((&'a mut [f32], &'a mut [f32]), &'a mut [f32]), &'a mut [f32]));

/// Bands of `out`'s four fields, zipped, each with its first row.
fn bands<'a>(p: &SwParams, out: &'a mut SwState) -> impl IndexedParallelIterator<Item = Band<'a>> {
    let cells = p.nx as usize * BAND;
    out.eta
        .par_chunks_mut(cells)
        .zip(out.qx.par_chunks_mut(cells))
        .zip(out.qy.par_chunks_mut(cells))
        .zip(out.carry.par_chunks_mut(cells))
        .with_min_len(items_per_task(cells))
        .enumerate()
        .map(|(b, fields)| (b * BAND, fields))
}

/// The twin's `rates` of every cell of rows `rows` of `s`, row-major, each with the cell's
/// Courant number (`courant` of `s`).
fn band_rates(
    p: &SwParams,
    sides: &Sides,
    ground: &[f32],
    s: &SwState,
    rows: std::ops::Range<usize>,
) -> Vec<([f32; 3], f32)> {
    let nx = p.nx as usize;
    let n = rows.len();
    // The y sweep: the primitive values of the cells of rows first − 2 ..= last + 2 (ghosts past
    // the sides), each made once; each cell's (south, north) faces for rows first − 1 ..= last
    // + 1; the flux through the south face of rows first ..= last + 1.
    let first = rows.start as i32;
    let prims: Vec<Side> = (0..n + 4)
        .flat_map(|r| (0..nx).map(move |i| (i as i32, first - 2 + r as i32)))
        .map(|(i, j)| primitive(at_y(p, sides, ground, s, i, j), p.film))
        .collect();
    let made: Vec<(Side, Side)> = (0..(n + 2) * nx)
        .map(|k| faces(prims[k], prims[k + nx], prims[k + 2 * nx], p))
        .collect();
    let south: Vec<Flux> = (0..(n + 1) * nx)
        .map(|k| flux(made[k].1, made[k + nx].0, p.g))
        .collect();
    let mut out = Vec::with_capacity(n * nx);
    let (mut line, mut along, mut west) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..n {
        let j = first + r as i32;
        // The x sweep along row j: cells −2 ..= nx + 1, faces of cells −1 ..= nx, the flux
        // through the west face of cells 0 ..= nx. A cell on the grid reads as the y sweep read
        // it with its axes swapped (the same cell, the same arithmetic), so only the four
        // ghosts are made here.
        let row = &prims[(r + 2) * nx..(r + 3) * nx];
        let ghost = |i: i32| primitive(at_x(p, sides, ground, s, i, j), p.film);
        line.clear();
        line.extend([ghost(-2), ghost(-1)]);
        line.extend(row.iter().map(|c| Side { u: c.v, v: c.u, ..*c }));
        line.extend([ghost(nx as i32), ghost(nx as i32 + 1)]);
        along.clear();
        along.extend((0..nx + 2).map(|k| faces(line[k], line[k + 1], line[k + 2], p)));
        west.clear();
        west.extend((0..=nx).map(|k| flux(along[k].1, along[k + 1].0, p.g)));
        for i in 0..nx {
            let x = cell_rates(west[i], west[i + 1], along[i + 1], p);
            let at = r * nx + i;
            let y = cell_rates(south[at], south[at + nx], made[at + nx], p);
            // The cell's Courant number from the primitive values the sweep made, where no air
            // lifts it (`courant_of_primitive`).
            let c = (first as usize + r) * nx + i;
            let courant = match p.air_at {
                0 => courant_of_primitive(p, row[i]),
                _ => courant(p, s.eta[c], ground[c], s.qx[c], s.qy[c]),
            };
            out.push((both_axes(x, y), courant));
        }
    }
    out
}

/// `stage_one` of the twin, bit for bit.
pub fn stage_one(p: &SwParams, sides: &Sides, ground: &[f32], u0: &SwState, u1: &mut SwState) -> f32 {
    let nx = p.nx as usize;
    bands(p, u1)
        .map(|(row, (((eta, qx), qy), carry))| {
            let rates = band_rates(p, sides, ground, u0, row..row + eta.len() / nx);
            let mut most = 0.0f32;
            for (k, &(rate, courant)) in rates.iter().enumerate() {
                let out = stage_one_out(p, ground, u0, row * nx + k, rate);
                (eta[k], qx[k], qy[k], carry[k]) = (out[0], out[1], out[2], out[3]);
                most = most.max(courant);
            }
            most
        })
        .reduce(|| 0.0, f32::max)
}

/// `stage_two` of the twin, bit for bit: U2 into `u2` (the backend then swaps it with U0).
pub fn stage_two(p: &SwParams, sides: &Sides, ground: &[f32], u0: &SwState, u1: &SwState, u2: &mut SwState) -> f32 {
    let nx = p.nx as usize;
    bands(p, u2)
        .map(|(row, (((eta, qx), qy), carry))| {
            let rates = band_rates(p, sides, ground, u1, row..row + eta.len() / nx);
            let mut most = 0.0f32;
            for (k, &(rate, courant)) in rates.iter().enumerate() {
                let out = stage_two_out(p, ground, u0, u1, row * nx + k, rate);
                (eta[k], qx[k], qy[k], carry[k]) = (out[0], out[1], out[2], out[3]);
                most = most.max(courant);
            }
            most
        })
        .reduce(|| 0.0, f32::max)
}
