//! `volume.wgsl`'s `apply` on every core: the twin's own loop over bands of cells. Each cell's
//! correction reads only that cell (and the shared per-region table), so the bands are
//! independent and the bits are the twin's.

use crate::cpu::volume::{self, Cells};
use crate::params::{Params, VolumeState};
use rayon::prelude::*;

/// Cells per band: large enough that a band's overhead vanishes, small enough to share the work.
const BAND: usize = 16 * 1024;

/// As `cpu::volume::apply`.
pub fn apply(p: &Params, state: &VolumeState, cells: &mut Cells) {
    bands(cells)
        .into_par_iter()
        .for_each(|mut band| volume::apply(p, state, &mut band));
}

/// `cells` cut into bands of `BAND` cells (per-cell fields that are empty stay empty).
fn bands<'a>(cells: &'a mut Cells) -> Vec<Cells<'a>> {
    let n = cells.eta.len();
    let mut rest = Cells {
        ground: cells.ground,
        source: cells.source,
        shortfall: &mut *cells.shortfall,
        eta: &mut *cells.eta,
        vel: &mut *cells.vel,
        carry: &mut *cells.carry,
        clamped: &mut *cells.clamped,
        labels: cells.labels,
        corrections: cells.corrections,
        pending: &mut *cells.pending,
    };
    let mut out = Vec::with_capacity(n.div_ceil(BAND));
    while !rest.eta.is_empty() {
        let m = BAND.min(rest.eta.len());
        out.push(Cells {
            ground: split(&mut rest.ground, m),
            source: split(&mut rest.source, m),
            shortfall: split_mut(&mut rest.shortfall, m),
            eta: split_mut(&mut rest.eta, m),
            vel: split_mut(&mut rest.vel, m),
            carry: split_mut(&mut rest.carry, m),
            clamped: split_mut(&mut rest.clamped, m),
            labels: split(&mut rest.labels, m),
            corrections: rest.corrections,
            pending: split_mut(&mut rest.pending, m),
        });
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
