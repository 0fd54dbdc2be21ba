//! `volume.wgsl`'s `apply` on every core: the twin's own loop over bands of cells. Each cell's
//! correction reads only that cell (and the shared per-region table), so the bands are
//! independent and the bits are the twin's.

use crate::engine::cpu::volume::{self, apply_plain, Cells};

use crate::engine::fast::items_per_task;
use crate::engine::params::is_plain;
use crate::engine::params::{Params, VolumeState};
use multiversion::multiversion;
use rayon::prelude::*;

/// Cells per band: large enough that a band's overhead vanishes, small enough to share the work.
const BAND: usize = 16 * 1024;

/// As `cpu::volume::apply`.
pub fn apply(p: &Params, state: &VolumeState, cells: &mut Cells) {
    let plain = is_plain(p);
    bands(cells)
        .into_par_iter()
        .with_min_len(items_per_task(BAND))
        .for_each(|mut band| {
            if plain {
                apply_band(p, state, band.ground, band.eta, band.vel, band.carry);
            } else {
                volume::apply(p, state, &mut band);
            }
        });
}

/// A band where `apply` touches the level alone (`is_plain`): the twin's `apply_plain` on each
/// cell, in a loop the compiler vectorises.
#[multiversion(targets = "simd")]
fn apply_band(p: &Params, state: &VolumeState, ground: &[f32], eta: &mut [f32], vel: &mut [f32], carry: &mut [f32]) {
    let n = eta.len();
    let (ground, vel, carry) = (&ground[..n], &mut vel[..n], &mut carry[..n]);
    for i in 0..n {
        (eta[i], vel[i], carry[i]) = apply_plain(p, state, ground[i], eta[i], vel[i], carry[i]);
    }
}

/// `cells` cut into bands of `BAND` cells (per-cell fields that are empty stay empty).
fn bands<'a>(cells: &'a mut Cells) -> Vec<Cells<'a>> {
    let n = cells.eta.len();
    let mut rest = Cells {
        ground: cells.ground,
        source: cells.source,
        rainfall: cells.rainfall,
        rainfall_map: cells.rainfall_map,
        shortfall: &mut *cells.shortfall,
        eta: &mut *cells.eta,
        vel: &mut *cells.vel,
        carry: &mut *cells.carry,
        clamped: &mut *cells.clamped,
        labels: cells.labels,
        corrections: cells.corrections,
        pending: &mut *cells.pending,
        faces: cells.faces,
        soil: &mut *cells.soil,
        soil_law: cells.soil_law,
        first: cells.first,
    };
    let mut out = Vec::with_capacity(n.div_ceil(BAND));
    while !rest.eta.is_empty() {
        let m = BAND.min(rest.eta.len());
        out.push(Cells {
            ground: split(&mut rest.ground, m),
            source: split(&mut rest.source, m),
            rainfall: rest.rainfall,
            rainfall_map: split(&mut rest.rainfall_map, m),
            shortfall: split_mut(&mut rest.shortfall, m),
            eta: split_mut(&mut rest.eta, m),
            vel: split_mut(&mut rest.vel, m),
            carry: split_mut(&mut rest.carry, m),
            clamped: split_mut(&mut rest.clamped, m),
            labels: split(&mut rest.labels, m),
            corrections: rest.corrections,
            pending: split_mut(&mut rest.pending, m),
            faces: rest.faces,
            soil: split_mut(&mut rest.soil, m),
            soil_law: rest.soil_law,
            first: rest.first,
        });
        rest.first += m;
    }
    out
}

/// The first `m` elements of a per-cell field, leaving the rest; an empty field stays empty.
fn split<'a, T>(field: &mut &'a [T], m: usize) -> &'a [T] {
    let (head, tail) = field.split_at(m.min(field.len()));
    *field = tail;
    head
}

fn split_mut<'a, T>(field: &mut &'a mut [T], m: usize) -> &'a mut [T] {
    let whole = std::mem::take(field);
    let (head, tail) = whole.split_at_mut(m.min(whole.len()));
    *field = tail;
    head
}
