//! Twin of `wgsl/ns_surface.wgsl`: the Navier-Stokes layer's height field (seed 003, §4.3) at
//! its own resolution, moved by the 3D grid's velocities, and its global volume correction.
//!
//! The surface moves by eq. (11) in the form that conserves, ∂h/∂t = −∇·∫u dz, in three passes:
//! `fluxes` (each face between two cells carries Σ_k u_k·a_k per metre of face: u_k the 3D face
//! velocity of layer k interpolated to the face, a_k the part of the layer under the upwind
//! cell's surface, from the layer's floor, since the 3D grid's fluid fills its cells), `limit`
//! (a cell whose outflows would take more than it holds has them scaled down to its water, the
//! pipe model's limiter) and `apply`. For a small wave this is eq. 12's w at the surface (the
//! layers under it keep D = 0, so it is their net inflow); unlike eq. 12's centred difference it
//! carries the water that leaves a column sideways into the Empty cells of a lower one (a front,
//! a dam break: eq. 12 lost it, and the surface broke into columns). The volume is kept by
//! construction; the correction is a safety net.

use crate::models::height_field::cpu::explicit::two_sum;
use crate::models::navier_stokes::state::{NsParams, NsState, Surface, LANES, STRIP};

/// Step 8 (§4.3): the height field moved by the 3D grid's velocities over `dt`.
pub fn height(p: &NsParams, s: &NsState, f: &mut Surface, dt: f32) {
    let faces = fluxes(p, s, f);
    let scale = limit(f, &faces, f.run(p, dt));
    apply(f, &faces, &scale, f.run(p, dt));
}

/// Twin of `flux`: per point (fi, fj) of the (nx + 1)·(ny + 1) lattice, what the face west of
/// cell (fi, fj) and the face south of it carry, m²/s: [west towards +x, west towards −x, south
/// towards +y, south towards −y], each ≥ 0 (the last column and row hold the east and north
/// sides). A side carries what its face velocity moves (0 on a wall), at the depth of the cell
/// inside.
pub fn fluxes(p: &NsParams, s: &NsState, f: &Surface) -> Vec<[f32; 4]> {
    (0..(f.nx + 1) * (f.ny + 1)).map(|e| lattice_flux(p, s, f, e)).collect()
}

/// `fluxes` at lattice point e.
pub fn lattice_flux(p: &NsParams, s: &NsState, f: &Surface, e: usize) -> [f32; 4] {
    let (fi, fj) = (e % (f.nx + 1), e / (f.nx + 1));
    let [a, b] = if fj < f.ny {
        face_flux(p, s, f, true, fi, fj)
    } else {
        [0.0; 2]
    };
    let [d, e] = if fi < f.nx {
        face_flux(p, s, f, false, fi, fj)
    } else {
        [0.0; 2]
    };
    [a, b, d, e]
}

/// What the face west (`along_x`) or south of cell (fi, fj) carries: [forwards, backwards].
fn face_flux(p: &NsParams, s: &NsState, f: &Surface, along_x: bool, fi: usize, fj: usize) -> [f32; 2] {
    let cz = f.coarsen;
    let (along, across, end) = if along_x { (fi, fj, f.nx) } else { (fj, fi, f.ny) };
    // The cells before and after the face (past a side: the cell inside stands for both).
    let cell = |l: usize| if along_x { fj * f.nx + l } else { l * f.nx + fi };
    let after = cell(along.min(end - 1));
    let before = if along == 0 { after } else { cell(along - 1) };
    // The 3D faces either side along the axis, and where this face lies between them.
    let (low, t) = (along / cz, (along % cz) as f32 / cz as f32);
    let velocity = |k: usize| {
        let at = |l: usize| {
            if along_x {
                s.u[p.uf(l, across / cz, k)]
            } else {
                s.v[p.vf(across / cz, l, k)]
            }
        };
        if t == 0.0 {
            at(low)
        } else {
            at(low) + t * (at(low + 1) - at(low))
        }
    };
    let mut carried = [0.0f32; 2];
    for k in 0..p.nz {
        let u = velocity(k);
        let up = if u > 0.0 { f.h[before] } else { f.h[after] };
        let bottom = p.z0 + k as f32 * p.dz;
        let wet = (up.min(bottom + p.dz) - bottom).max(0.0);
        if u > 0.0 {
            carried[0] += u * wet;
        } else {
            carried[1] -= u * wet;
        }
    }
    carried
}

/// Twin of `probe` (ns_surface.wgsl): what probe entry `entry` reads (probe_entry.wgsl): its
/// cell's surface, or its unit discharge along x or y (`unit_discharge`).
pub fn probe(p: &NsParams, s: &NsState, f: &Surface, entry: u32) -> f32 {
    use crate::engine::sections::{CELL_MASK, KIND_SHIFT, QX, QY};
    let c = (entry & CELL_MASK) as usize;
    match entry >> KIND_SHIFT {
        kind @ (QX | QY) => unit_discharge(p, s, f, kind == QX, c),
        _ => f.h[c],
    }
}

/// Twin of `unit_discharge`: cell c's unit discharge along x (`along_x`) or y, m²/s: the mean of
/// what its two faces on that axis carry now (`face_flux` under the current velocities and
/// surface, each face's forwards less backwards), before the limiter (which only trims a cell's
/// last film within a substep). A discharge line sums these (`engine::sections`).
pub fn unit_discharge(p: &NsParams, s: &NsState, f: &Surface, along_x: bool, c: usize) -> f32 {
    let (fi, fj) = (c % f.nx, c / f.nx);
    let near = face_flux(p, s, f, along_x, fi, fj);
    let far = match along_x {
        true => face_flux(p, s, f, true, fi + 1, fj),
        false => face_flux(p, s, f, false, fi, fj + 1),
    };
    0.5 * ((near[0] - near[1]) + (far[0] - far[1]))
}

/// The four faces of cell c: (west, east, south, north), each [forwards, backwards].
fn around(f: &Surface, faces: &[[f32; 4]], c: usize) -> [[f32; 2]; 4] {
    let (fi, fj) = (c % f.nx, c / f.nx);
    let e = |i: usize, j: usize| faces[j * (f.nx + 1) + i];
    let (here, east, north) = (e(fi, fj), e(fi + 1, fj), e(fi, fj + 1));
    [
        [here[0], here[1]],
        [east[0], east[1]],
        [here[2], here[3]],
        [north[2], north[3]],
    ]
}

/// Twin of `limit`: per cell, the share of its outflows it can give (1, or its water over what
/// they would take).
pub fn limit(f: &Surface, faces: &[[f32; 4]], run: f32) -> Vec<f32> {
    (0..f.nx * f.ny).map(|c| share(f, faces, run, c)).collect()
}

/// `limit` in cell c.
pub fn share(f: &Surface, faces: &[[f32; 4]], run: f32, c: usize) -> f32 {
    let [w, e, so, n] = around(f, faces, c);
    let out = run * (((e[0] + w[1]) + n[0]) + so[1]);
    let water = f.water_top(c) - f.ground[c];
    if out > water {
        water.max(0.0) / out
    } else {
        1.0
    }
}

/// Twin of `apply`: each cell gains what flows in (scaled by its giver's share; past a side the
/// giver is the outside, which gives in full) and loses what flows out (scaled by its own).
pub fn apply(f: &mut Surface, faces: &[[f32; 4]], scale: &[f32], run: f32) {
    f.h = (0..f.nx * f.ny).map(|c| moved(f, faces, scale, run, c)).collect();
}

/// `apply`'s new surface in cell c.
pub fn moved(f: &Surface, faces: &[[f32; 4]], scale: &[f32], run: f32, c: usize) -> f32 {
    let (nx, fi, fj) = (f.nx, c % f.nx, c / f.nx);
    let [w, e, so, n] = around(f, faces, c);
    let giver = |inside: bool, at: usize| if inside { scale[at] } else { 1.0 };
    let mut net = -(scale[c] * (((e[0] + w[1]) + n[0]) + so[1]));
    net += giver(fi > 0, c.wrapping_sub(1)) * w[0];
    net += giver(fi + 1 < nx, c + 1) * e[1];
    net += giver(fj > 0, c.wrapping_sub(nx)) * so[0];
    net += giver(fj + 1 < f.ny, c + nx) * n[1];
    (f.h[c] + run * net).max(f.ground[c])
}

/// The height field's water Σ max(h − b, 0) (metres·cells) as a compensated f32 pair, and what
/// the totals need: twin of `volume_strips` then `volume_fold`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VolumeSum {
    pub hi: f32,
    pub lo: f32,
    /// Cells holding water.
    pub wet: u32,
    /// The deepest water, m.
    pub deepest: f32,
    /// Cells whose surface is not finite.
    pub bad: u32,
    /// The body volume the surface carries (`Surface::held`'s sum, metres·cells).
    pub held: f32,
}

impl VolumeSum {
    /// The sum, in f64.
    pub fn total(&self) -> f64 {
        self.hi as f64 + self.lo as f64
    }

    /// Adds `other` (its pair compensated: the order is the GPU's).
    fn add(&mut self, other: &VolumeSum) {
        let (s, e) = two_sum(self.hi, other.hi);
        self.hi = s;
        self.lo += other.lo + e;
        self.wet += other.wet;
        self.deepest = self.deepest.max(other.deepest);
        self.bad += other.bad;
        self.held += other.held;
    }
}

/// Twin of `volume_strips` and `volume_fold`: each strip of `STRIP` cells summed in order, lane
/// l of `LANES` summing strips l, l + LANES, …, then the lanes folded pairwise, halving. `cover`:
/// what covers each cell (empty without bodies), whose `held` body volume is not water.
pub fn volume(f: &Surface, cover: &[crate::engine::bodies::Cover]) -> VolumeSum {
    let strips: Vec<VolumeSum> = (0..f.h.len())
        .step_by(STRIP)
        .map(|start| {
            let mut sum = VolumeSum::default();
            for c in start..(start + STRIP).min(f.h.len()) {
                let (h, b) = (f.h[c], f.ground[c]);
                if !h.is_finite() {
                    sum.bad += 1;
                    continue;
                }
                // A body's volume the surface carries is not water (bodies.wgsl `held`).
                let held = cover.get(c).map_or(0.0, |v| v.held);
                let d = (h - b).max(0.0) - held;
                sum.held += held;
                let (s, e) = two_sum(sum.hi, d);
                sum.hi = s;
                sum.lo += e;
                sum.wet += (h > b) as u32;
                sum.deepest = sum.deepest.max(d);
            }
            sum
        })
        .collect();
    let mut lanes = [VolumeSum::default(); LANES];
    for (i, strip) in strips.iter().enumerate() {
        lanes[i % LANES].add(strip);
    }
    let mut stride = LANES / 2;
    while stride > 0 {
        for l in 0..stride {
            let other = lanes[l + stride];
            lanes[l].add(&other);
        }
        stride /= 2;
    }
    lanes[0]
}

/// Twin of `volume_fold`'s last line: the height every wet cell gains so that the water is
/// `target` (hi, lo) less `in_air` (the spray's, metres·cells) again; 0 with no wet cell.
pub fn correction(sum: &VolumeSum, target: (f32, f32), in_air: f32) -> f32 {
    if sum.wet == 0 {
        return 0.0;
    }
    ((((target.0 - sum.hi) + target.1) - sum.lo) - in_air) / sum.wet as f32
}

/// Twin of `volume_apply`: `delta` on every wet cell, never below its ground.
pub fn correct(f: &mut Surface, delta: f32) {
    for (h, &b) in f.h.iter_mut().zip(&f.ground) {
        if *h > b {
            *h = (*h + delta).max(b);
        }
    }
}
