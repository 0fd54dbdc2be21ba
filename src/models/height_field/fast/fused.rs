//! The plain explicit step on every core, fused with the passes on either side of it, so a step
//! reads and writes the level once:
//!
//! - **on its read**, the last step's `volume.wgsl` `apply` (the global correction): the fast
//!   backend defers it (`CpuSolver::deferred`) and each cell's corrected value is computed as the
//!   step reads it, by the twin's own [`apply_plain`];
//! - **on its write**, `reduce.wgsl`'s partial sums (`fast::fold`), in the twin's order.
//!
//! The arithmetic is the twin's, cell for cell, so the bits are those of explicit → reduce →
//! volume run one after the other, whatever the thread count. Rows go to threads in bands; each
//! band keeps its south, centre and north rows corrected in a ring (cache-resident) and writes
//! each new row in place once the ring holds what still needs the old one. Perimeter cells run
//! the twin's `wave_in`; the interior runs a straight loop the compiler vectorises (`multiversion`
//! picks AVX2 or AVX-512 at run time).
//!
//! Bytes per cell per step: eta, vel, carry read and written in place, ground read: 28 B, against
//! 68 B for the three passes apart.
//!
//! Not here: absorbing sides and slope corners (`edges` rewrites perimeter cells after the step,
//! so the sums would come too early) and clamp bookkeeping (`CORRECT_CLAMPS`); those steps run
//! `fast::explicit` on a corrected level.

use crate::engine::cpu::reduce::{finish, partial_sums, Extras, Lane};
use crate::engine::cpu::volume::apply_plain;
use crate::engine::fast::fold::Folder;
use crate::engine::fast::items_per_task;
use crate::engine::params::{Params, Totals, VolumeState};
use crate::models::height_field::cpu::explicit::{depth, face, mean_surface, two_sum, wave_in, Out, Rows};
use multiversion::multiversion;
use rayon::prelude::*;

/// Cells per band of rows: enough work to hide a band's start, few enough to share it out.
const BAND_CELLS: usize = 32 * 1024;

/// What the fused step reads besides the level.
pub struct Fusion<'a> {
    /// The uniforms.
    pub params: &'a Params,
    /// b − ref.
    pub ground: &'a [f32],
    /// The last reduction (ghost-mean sides read its mean wet surface).
    pub totals: &'a Totals,
    /// The correction settled by the last step and not yet written to the level.
    pub deferred: Option<&'a VolumeState>,
    /// Whether to fold the reduction of the new level (a scene without bodies, sources or clamp
    /// bookkeeping: `Lane::plain`).
    pub sums: bool,
}

/// The level the step reads and overwrites, row by row: per-cell eta, per-step change and
/// residuals.
pub struct InPlace<'a> {
    pub eta: &'a mut [f32],
    pub vel: &'a mut [f32],
    pub carry: &'a mut [f32],
}

/// One explicit substep of `level`, with `fusion.deferred` applied on the read, written back in
/// place: a row is written once the ring holds the rows that still need its old values, so
/// memory sees each cache line read once and written once (no second level to fetch for
/// ownership). Returns whether any value came out non-finite, and the new level's totals when
/// `fusion.sums`.
pub fn step(level: InPlace, fusion: &Fusion) -> (bool, Option<Totals>) {
    let p = fusion.params;
    let (nx, ny) = (p.nx as usize, p.ny as usize);
    let band_rows = (BAND_CELLS / nx).clamp(1, ny);
    let band = Band {
        fusion,
        p,
        mean: mean_surface(fusion.totals),
        band_rows,
        edges: edge_rows(&level, nx, ny, band_rows),
    };
    let chunk = band_rows * nx;
    let results: Vec<(bool, Vec<(usize, Lane)>)> = level
        .eta
        .par_chunks_mut(chunk)
        .zip(level.vel.par_chunks_mut(chunk))
        .zip(level.carry.par_chunks_mut(chunk))
        .with_min_len(items_per_task(chunk))
        .enumerate()
        .map(|(b, ((eta, vel), carry))| band.run(b * band_rows, [eta, vel, carry]))
        .collect();
    let bad = results.iter().any(|r| r.0);
    if !fusion.sums {
        return (bad, None);
    }
    let mut partials = vec![None; p.n_partials as usize];
    for (group, lane) in results.into_iter().flat_map(|r| r.1) {
        partials[group] = Some(lane);
    }
    // The few workgroups that straddle two bands: the twin's own partial sums, from memory.
    let none = Extras {
        shortfall: &[],
        clamped: &[],
        cover: &[],
        faces: &[],
    };
    let partials: Vec<Lane> = partials
        .into_iter()
        .enumerate()
        .map(|(g, lane)| lane.unwrap_or_else(|| partial_sums(p, fusion.ground, level.eta, level.vel, none, g)))
        .collect();
    (bad, Some(finish(p, &partials)))
}

/// Every band's first and last rows (eta, vel, carry), copied before any band writes: its
/// neighbours read them (and the last band reads row 0, the first row ny − 1, across the wrap),
/// possibly after the band overwrote them. Laid out [band][first, last][eta, vel, carry][nx].
fn edge_rows(level: &InPlace, nx: usize, ny: usize, band_rows: usize) -> Vec<f32> {
    let mut rows = Vec::with_capacity(6 * ny.div_ceil(band_rows) * nx);
    for j0 in (0..ny).step_by(band_rows) {
        for r in [j0, (j0 + band_rows).min(ny) - 1] {
            for field in [&*level.eta, &*level.vel, &*level.carry] {
                rows.extend_from_slice(&field[r * nx..(r + 1) * nx]);
            }
        }
    }
    rows
}

/// What every band shares.
struct Band<'a> {
    fusion: &'a Fusion<'a>,
    p: &'a Params,
    mean: f32,
    band_rows: usize,
    edges: Vec<f32>,
}

/// A corrected row: eta, its depth, the per-step change and the residuals.
#[derive(Clone)]
struct RowBuf {
    eta: Vec<f32>,
    depth: Vec<f32>,
    vel: Vec<f32>,
    carry: Vec<f32>,
    /// Which row (unwrapped: −1 is the last row seen from row 0) it holds.
    holds: Option<i64>,
}

impl Band<'_> {
    fn nx(&self) -> usize {
        self.p.nx as usize
    }

    fn ground(&self, r: usize) -> &[f32] {
        &self.fusion.ground[r * self.nx()..(r + 1) * self.nx()]
    }

    /// Row `r`'s raw (eta, vel, carry): from the edge copy for a band's first and last rows,
    /// otherwise from this band's own slices (`own`, from row `j0`), not yet overwritten: an
    /// inner row is read into the ring before the row below it is written.
    fn source<'s>(&'s self, own: &'s [&mut [f32]; 3], j0: usize, r: usize) -> [&'s [f32]; 3] {
        let (nx, ny) = (self.nx(), self.p.ny as usize);
        let band = r / self.band_rows;
        let first = band * self.band_rows;
        let last = (first + self.band_rows).min(ny) - 1;
        if r == first || r == last {
            let base = (2 * band + usize::from(r != first)) * 3 * nx;
            return [0, 1, 2].map(|f| &self.edges[base + f * nx..base + (f + 1) * nx]);
        }
        debug_assert_eq!(first, j0, "a band reads only its own inner rows");
        let at = (r - j0) * nx..(r - j0 + 1) * nx;
        [&own[0][at.clone()], &own[1][at.clone()], &own[2][at]]
    }

    /// The band of rows from `j0`, whose level rows are `own` (eta, vel, carry), stepped in place.
    /// Returns whether any value came out non-finite and the workgroups' partial sums it folded.
    fn run(&self, j0: usize, mut own: [&mut [f32]; 3]) -> (bool, Vec<(usize, Lane)>) {
        let (nx, ny) = (self.nx(), self.p.ny as usize);
        let rows = own[0].len() / nx;
        let empty = RowBuf {
            eta: vec![0.0; nx],
            depth: vec![0.0; nx],
            vel: vec![0.0; nx],
            carry: vec![0.0; nx],
            holds: None,
        };
        let mut ring = [empty.clone(), empty.clone(), empty];
        let mut folder = Folder::new(j0 * nx, (j0 + rows) * nx, nx * ny);
        let mut bad = false;
        for j in j0..j0 + rows {
            for r in [j as i64 - 1, j as i64, j as i64 + 1] {
                let slot = &mut ring[r.rem_euclid(3) as usize];
                if slot.holds != Some(r) {
                    let wrapped = r.rem_euclid(ny as i64) as usize;
                    self.correct_row(self.source(&own, j0, wrapped), self.ground(wrapped), slot);
                    slot.holds = Some(r);
                }
            }
            let o = (j - j0) * nx..(j - j0 + 1) * nx;
            let [s, c, n] = [j as i64 - 1, j as i64, j as i64 + 1].map(|r| &ring[r.rem_euclid(3) as usize]);
            let [eta, vel, carry] = &mut own;
            let mut out = Out {
                eta: &mut eta[o.clone()],
                vel: &mut vel[o.clone()],
                carry: &mut carry[o.clone()],
                clamped: &mut [],
                faces: &mut [],
            };
            bad |= self.step_row(j, [s, c, n], &mut out);
            if self.fusion.sums {
                folder.cells(j * nx, &eta[o.clone()], &vel[o], self.ground(j));
            }
        }
        (bad, folder.done)
    }

    /// A row as the twin's `apply` leaves it, from its raw (eta, vel, carry) and its ground.
    fn correct_row(&self, [eta, vel, carry]: [&[f32]; 3], ground: &[f32], out: &mut RowBuf) {
        match self.fusion.deferred {
            Some(v) => corrected(self.p, v, [eta, vel, carry, ground], out),
            None => {
                out.eta.copy_from_slice(eta);
                out.vel.copy_from_slice(vel);
                out.carry.copy_from_slice(carry);
                depths(eta, ground, &mut out.depth);
            }
        }
    }

    /// Row `j` from its three corrected rows (south, centre, north). Returns whether any value came
    /// out non-finite.
    fn step_row(&self, j: usize, rows: [&RowBuf; 3], out: &mut Out) -> bool {
        let (nx, ny) = (self.nx(), self.p.ny as usize);
        let ground = |r: i64| self.ground(r.rem_euclid(ny as i64) as usize);
        let stencil = Rows {
            south: (&rows[0].eta, ground(j as i64 - 1)),
            centre: (&rows[1].eta, ground(j as i64)),
            north: (&rows[2].eta, ground(j as i64 + 1)),
        };
        let (vel, carry) = (&rows[1].vel, &rows[1].carry);
        let twin = |out: &mut Out, i: usize| -> bool {
            // Never with the faces' memory (`CpuSolver::fuses`).
            let (_, v, _) = wave_in(self.p, &stencil, self.mean, vel[i], None, None, i as u32, j as u32);
            let (s, residual) = two_sum(stencil.centre.0[i], v + carry[i]);
            out.store(i, stencil.centre.1[i], s, v, residual)
        };
        if j == 0 || j == ny - 1 || nx < 3 {
            return (0..nx).fold(false, |bad, i| bad | twin(out, i));
        }
        let ends = twin(out, 0) | twin(out, nx - 1);
        let inputs = Interior {
            eta: [&rows[0].eta, &rows[1].eta, &rows[2].eta],
            depth: [&rows[0].depth, &rows[1].depth, &rows[2].depth],
            ground: stencil.centre.1,
            vel,
            carry,
            keep: self.p.keep,
            k: self.p.k,
        };
        ends | interior(&inputs, out.eta, out.vel, out.carry)
    }
}

/// A row after `apply`, from its (eta, vel, carry, ground).
#[multiversion(targets = "simd")]
fn corrected(p: &Params, v: &VolumeState, [eta, vel, carry, ground]: [&[f32]; 4], out: &mut RowBuf) {
    let n = out.eta.len();
    let (eta, vel, carry, ground) = (&eta[..n], &vel[..n], &carry[..n], &ground[..n]);
    let (eta_out, depth_out, vel_out, carry_out) = (
        &mut out.eta[..n],
        &mut out.depth[..n],
        &mut out.vel[..n],
        &mut out.carry[..n],
    );
    for i in 0..n {
        let (e, v, r) = apply_plain(p, v, ground[i], eta[i], vel[i], carry[i]);
        eta_out[i] = e;
        depth_out[i] = depth(e, ground[i]);
        vel_out[i] = v;
        carry_out[i] = r;
    }
}

#[multiversion(targets = "simd")]
fn depths(eta: &[f32], ground: &[f32], out: &mut [f32]) {
    let n = out.len();
    let (eta, ground) = (&eta[..n], &ground[..n]);
    for i in 0..n {
        out[i] = depth(eta[i], ground[i]);
    }
}

/// What an interior row reads: the corrected rows south, centre and north and their depths, the
/// centre's ground, per-step change and residuals.
struct Interior<'a> {
    eta: [&'a [f32]; 3],
    depth: [&'a [f32]; 3],
    ground: &'a [f32],
    vel: &'a [f32],
    carry: &'a [f32],
    keep: f32,
    k: f32,
}

/// Cells 1..nx−1 of an interior row, where every face is a real neighbour: the twin's `wave`,
/// the compensated update and `store`'s dry-cell rule as selects. Returns whether any value came
/// out non-finite.
#[multiversion(targets = "simd")]
fn interior(r: &Interior, eta_out: &mut [f32], vel_out: &mut [f32], carry_out: &mut [f32]) -> bool {
    let nx = eta_out.len();
    let [es, ec, en] = r.eta.map(|row| &row[..nx]);
    let [ds, dc, dn] = r.depth.map(|row| &row[..nx]);
    let (ground, vel, carry) = (&r.ground[..nx], &r.vel[..nx], &r.carry[..nx]);
    let (vel_out, carry_out) = (&mut vel_out[..nx], &mut carry_out[..nx]);
    let mut bad = false;
    for i in 1..nx - 1 {
        let (eta_c, d_c) = (ec[i], dc[i]);
        let west = face(eta_c, d_c, ec[i - 1], dc[i - 1], 0.0);
        let east = face(eta_c, d_c, ec[i + 1], dc[i + 1], 0.0);
        let south = face(eta_c, d_c, es[i], ds[i], 0.0);
        let north = face(eta_c, d_c, en[i], dn[i], 0.0);
        let v = r.keep * vel[i] + r.k * (((west + east) + south) + north);
        let (s, residual) = two_sum(eta_c, v + carry[i]);
        let dry = s <= ground[i];
        let eta = if dry { ground[i] } else { s };
        let vel_new = if dry { 0.0 } else { v };
        carry_out[i] = if dry { 0.0 } else { residual };
        eta_out[i] = eta;
        vel_out[i] = vel_new;
        bad |= !eta.is_finite() | !vel_new.is_finite();
    }
    bad
}
