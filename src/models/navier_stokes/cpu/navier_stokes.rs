//! Foster & Metaxas's Navier-Stokes layer (seed 003, §3–4.3), twin of `wgsl/navier_stokes.wgsl`
//! (the height field's passes are `cpu/ns_surface.rs`): a staggered (MAC) grid of velocities on the cell faces and pressures at the centres,
//! whose velocities drive a height field: cell flags, the explicit momentum of eq. 2 (its
//! advection blended with the donor cell's), the pressure iteration of eqs. 5–9, the free surface
//! of eq. 10 and the height field of eq. 11 in flux form, checked against hydrostatics and the
//! dispersion of water waves.
//!
//! Pressure is kinematic (p/ρ, m²/s²) and relative to the air. Heights are relative to the
//! reference level, like the height field's.
//!
//! Two choices the seed leaves open, made here:
//! - A *Surface* cell's pressure puts the air's at the surface itself: it lies on the line from the
//!   Full cell under it to 0 at the surface (a ghost-fluid condition, `ghost_share`), so the wave's
//!   dynamic pressure reaches the surface too. The seed sets it to the applied pressure wherever
//!   the surface lies in the cell; then a wave lower than a cell would feel no restoring force.
//! - The height field reads the vertical velocity at its own height, interpolated in the
//!   *Surface* cell between its floor and its top face (the seed's w̄ is the cell's mean).
//!
//! Index order: cell (i, j, k) is `(k·ny + j)·nx + i`; u faces `(k·ny + j)·(nx + 1) + i` (face i
//! is the west face of cell i), v faces `(k·(ny + 1) + j)·nx + i`, w faces `(k·ny + j)·nx + i`
//! (face k is the floor of cell k).

use crate::models::navier_stokes::forcing::{Substep, INFLOW, OUTFLOW, WALL};
use crate::models::navier_stokes::state::{applied, in_window};
use crate::models::navier_stokes::state::{
    fluid, NsParams, NsState, PressureReport, Surface, DRY, EMPTY, FULL, SOLID, SURFACE,
};

/// The cell of column c that the surface passes through (None: the column is dry), and the
/// first cell above the ground.
fn surface_cell(p: &NsParams, s: &NsState, c: usize) -> (Option<usize>, usize) {
    let floor = (0..p.nz).find(|&k| p.centre(k) >= s.ground[c]).unwrap_or(p.nz);
    let top = ((s.h[c] - p.z0) / p.dz).floor();
    let top = if top < 0.0 {
        None
    } else {
        Some((top as usize).min(p.nz - 1))
    };
    // A film thinner than `DRY` is dry to the 3D grid: a front's upwind flux leaves such films
    // ahead of it, and as fluid they kept the still water's velocity the front then ran into.
    (top.filter(|&k| k >= floor && s.h[c] > s.ground[c] + DRY), floor)
}

/// Step 3 (§4.3): cells below the ground are Solid, those the surface crosses Surface, those under
/// it Full and those over it Empty.
pub fn set_flags(p: &NsParams, s: &mut NsState) {
    for c in 0..p.columns() {
        let (top, floor) = surface_cell(p, s, c);
        for k in 0..p.nz {
            s.flag[c + k * p.columns()] = match top {
                _ if k < floor => SOLID,
                Some(t) if k < t => FULL,
                Some(t) if k == t => SURFACE,
                _ => EMPTY,
            };
        }
    }
}

/// Whether a face between cells flagged `a` and `b` moves: neither is solid, one holds fluid
/// (the momentum's faces, and those a start's or an edit's velocities set: `setup::start_moving`).
pub(crate) fn moves(a: u8, b: u8) -> bool {
    a != SOLID && b != SOLID && (fluid(a) || fluid(b))
}

/// The flag of cell (i, j, k), Solid outside the domain (the sides are free-slip walls).
fn flag_at(p: &NsParams, s: &NsState, i: isize, j: isize, k: isize) -> u8 {
    flag_in(p, &s.flag, i, j, k)
}

/// `flag_at` over the flags alone.
fn flag_in(p: &NsParams, flag: &[u8], i: isize, j: isize, k: isize) -> u8 {
    if i < 0 || j < 0 || k < 0 || i >= p.nx as isize || j >= p.ny as isize || k >= p.nz as isize {
        return SOLID;
    }
    flag[p.cell(i as usize, j as usize, k as usize)]
}

/// A face velocity of one component at face (i, j, k) of its own array, with free-slip ghosts:
/// past the domain or into a solid cell a tangential neighbour repeats the face itself.
fn sample(
    field: &[f32],
    at: impl Fn(usize, usize, usize) -> usize,
    dims: [usize; 3],
    i: isize,
    j: isize,
    k: isize,
    own: f32,
) -> f32 {
    if i < 0 || j < 0 || k < 0 || i >= dims[0] as isize || j >= dims[1] as isize || k >= dims[2] as isize {
        return own;
    }
    field[at(i as usize, j as usize, k as usize)]
}

/// The donor cell's advection of a face whose control volume is partly water (`fill` < 1: a
/// Surface cell's faces, a front's): the mass-weighted mean of the face's own velocity `c` over
/// its water and each inflow's (mass, velocity), the mass in the control volume's units. The
/// flux form over a full cell would give a film the same change as a full cell, and the
/// water a front runs into would hold it back; this form is bounded by what flows in, at any
/// `fill`. Outflows leave the velocity as it is.
fn mixed(fill: f32, c: f32, inflows: &[(f32, f32)]) -> f32 {
    let (mut mass, mut momentum) = (fill, fill * c);
    for &(m, v) in inflows {
        mass += m;
        momentum += m * v;
    }
    if mass > 0.0 {
        momentum / mass
    } else {
        c
    }
}

/// The state a substep's momentum reads: the flags, the pressures and the velocities it starts
/// from. Each face's new velocity is a function of it alone, so the faces can be computed in any
/// order (the fast backend's threads) with the same bits.
pub(crate) struct Old<'a> {
    pub p: &'a NsParams,
    pub flag: &'a [u8],
    pub pressure: &'a [f32],
    pub u: &'a [f32],
    pub v: &'a [f32],
    pub w: &'a [f32],
    /// Each column's drag under `physics.damping_map` (`NsState::drag`).
    pub drag: &'a [f32],
    pub dt: f32,
    /// Each column's surface (`NsState::h`).
    pub h: &'a [f32],
}

impl Old<'_> {
    fn flag(&self, i: isize, j: isize, k: isize) -> u8 {
        flag_in(self.p, self.flag, i, j, k)
    }

    /// Whether the face between cells `a` and `b` lies in the air: both Empty, under the height
    /// field (the markers carry the water's velocity into the air themselves:
    /// `ns_markers::extend`). Its old velocity is no flow's, so a neighbour there reads as the
    /// face itself (`own`): the free surface carries no stress (∂u/∂n = 0), and what crosses it
    /// carries the surface cell's own momentum. Read as 0, a falling surface's top face brought
    /// in still air's momentum, which doubled the braking of a thinning flow (Ritter's fan).
    fn in_air(&self, a: u8, b: u8) -> bool {
        !self.p.markers && a == EMPTY && b == EMPTY
    }

    /// Whether a face whose two cells hold `fill` of water (their mean) advects by `mixed`:
    /// partly filled, under the height field (the markers' cells are whole).
    fn partial(&self, fill: f32) -> bool {
        !self.p.markers && fill < 1.0
    }

    fn u_at(&self, i: isize, j: isize, k: isize, own: f32) -> f32 {
        let p = self.p;
        if self.in_air(self.flag(i - 1, j, k), self.flag(i, j, k)) {
            return own;
        }
        sample(self.u, |a, b, c| p.uf(a, b, c), [p.nx + 1, p.ny, p.nz], i, j, k, own)
    }

    fn v_at(&self, i: isize, j: isize, k: isize, own: f32) -> f32 {
        let p = self.p;
        if self.in_air(self.flag(i, j - 1, k), self.flag(i, j, k)) {
            return own;
        }
        sample(self.v, |a, b, c| p.vf(a, b, c), [p.nx, p.ny + 1, p.nz], i, j, k, own)
    }

    fn w_at(&self, i: isize, j: isize, k: isize, own: f32) -> f32 {
        let p = self.p;
        if self.in_air(self.flag(i, j, k - 1), self.flag(i, j, k)) {
            return own;
        }
        sample(self.w, |a, b, c| p.wf(a, b, c), [p.nx, p.ny, p.nz + 1], i, j, k, own)
    }

    /// How much of cell (i, j, k) holds water: 1 Full, 0 Empty or Solid, a Surface cell the part
    /// under its column's surface.
    fn fill(&self, i: isize, j: isize, k: isize) -> f32 {
        let p = self.p;
        match self.flag(i, j, k) {
            FULL => 1.0,
            SURFACE => p.wet_in(k as usize, self.h[j as usize * p.nx + i as usize]) / p.dz,
            _ => 0.0,
        }
    }

    /// What a horizontal face's layers above layer k pour from the deeper of its two columns
    /// (`before`, `after`: (i, j)) into the other's Surface cell at layer k, where the height
    /// field puts that water: (the mass, its mean velocity), an inflow for `mixed`. `face(kk)` is the face's old
    /// velocity at layer kk. Without it a front kept the still film's velocity in its bottom
    /// layer while the water above it ran on.
    fn overflow(
        &self,
        k: isize,
        before: (isize, isize),
        after: (isize, isize),
        face: impl Fn(isize) -> f32,
    ) -> (f32, f32) {
        let (mut mass, mut momentum) = (0.0f32, 0.0f32);
        for kk in k + 1..self.p.nz as isize {
            let u = face(kk);
            let ((gi, gj), (ti, tj)) = if u > 0.0 { (before, after) } else { (after, before) };
            let pours =
                self.flag(ti, tj, k) == SURFACE && self.flag(ti, tj, kk) == EMPTY && fluid(self.flag(gi, gj, kk));
            if pours {
                let m = self.dt * u.abs() * self.fill(gi, gj, kk) / self.p.dx;
                mass += m;
                momentum += m * u;
            }
        }
        (mass, if mass > 0.0 { momentum / mass } else { 0.0 })
    }

    fn pressure(&self, i: isize, j: isize, k: isize) -> f32 {
        self.pressure[self.p.cell(i as usize, j as usize, k as usize)]
    }

    /// What an edge moving at `a` carries of a component that is `l` before it and `r` after
    /// it: the centred product of eq. 2 blended with the donor cell's by `upwind` (γ of Hirt's
    /// SOLA).
    fn flux(&self, a: f32, l: f32, r: f32) -> f32 {
        0.5 * a * (l + r) + 0.5 * self.p.upwind * a.abs() * (l - r)
    }

    /// The tentative u (eq. 2) of interior face (i, j, k), 0 where it does not move or on a side.
    pub(crate) fn u(&self, i: isize, j: isize, k: isize) -> f32 {
        let p = self.p;
        if i <= 0 || i >= p.nx as isize || !moves(self.flag(i - 1, j, k), self.flag(i, j, k)) {
            return 0.0;
        }
        let (dx, dz) = (p.dx, p.dz);
        let c = self.u[p.uf(i as usize, j as usize, k as usize)];
        let (ue, uw) = (self.u_at(i + 1, j, k, c), self.u_at(i - 1, j, k, c));
        let (un, us) = (self.u_at(i, j + 1, k, c), self.u_at(i, j - 1, k, c));
        let (ut, ub) = (self.u_at(i, j, k + 1, c), self.u_at(i, j, k - 1, c));
        // u², and uv, uw at the edges (averages of the nearest faces).
        let (uc_e, uc_w) = (0.5 * (c + ue), 0.5 * (uw + c));
        let vn = 0.5 * (self.v_at(i - 1, j + 1, k, 0.0) + self.v_at(i, j + 1, k, 0.0));
        let vs = 0.5 * (self.v_at(i - 1, j, k, 0.0) + self.v_at(i, j, k, 0.0));
        let wt = 0.5 * (self.w_at(i - 1, j, k + 1, 0.0) + self.w_at(i, j, k + 1, 0.0));
        let wb = 0.5 * (self.w_at(i - 1, j, k, 0.0) + self.w_at(i, j, k, 0.0));
        let advect = (self.flux(uc_w, uw, c) - self.flux(uc_e, c, ue)) / dx
            + (self.flux(vs, us, c) - self.flux(vn, c, un)) / dx
            + (self.flux(wb, ub, c) - self.flux(wt, c, ut)) / dz;
        let diffuse = p.nu
            * ((ue - 2.0 * c + uw) / (dx * dx) + (un - 2.0 * c + us) / (dx * dx) + (ut - 2.0 * c + ub) / (dz * dz));
        let column = p.columns_at(i as usize, j as usize);
        let fill = |jj: isize, kk: isize| 0.5 * (self.fill(i - 1, jj, kk) + self.fill(i, jj, kk));
        let carried = if self.partial(fill(j, k)) {
            let dt = self.dt;
            let inflows = [
                (dt * uc_w.max(0.0) * self.fill(i - 1, j, k) / dx, uw),
                (dt * (-uc_e).max(0.0) * self.fill(i, j, k) / dx, ue),
                (dt * vs.max(0.0) * fill(j - 1, k) / dx, us),
                (dt * (-vn).max(0.0) * fill(j + 1, k) / dx, un),
                (dt * wb.max(0.0) * fill(j, k - 1) / dz, ub),
                (dt * (-wt).max(0.0) * fill(j, k + 1) / dz, ut),
                self.overflow(k, (i - 1, j), (i, j), |kk| self.u_at(i, j, kk, 0.0)),
            ];
            mixed(fill(j, k), c, &inflows)
                + self.dt * ((self.pressure(i - 1, j, k) - self.pressure(i, j, k)) / dx + diffuse)
        } else {
            c + self.dt * (advect + (self.pressure(i - 1, j, k) - self.pressure(i, j, k)) / dx + diffuse)
        };
        self.dragged(carried, column - 1, column)
    }

    /// The tentative v of interior face (i, j, k), 0 where it does not move or on a side.
    pub(crate) fn v(&self, i: isize, j: isize, k: isize) -> f32 {
        let p = self.p;
        if j <= 0 || j >= p.ny as isize || !moves(self.flag(i, j - 1, k), self.flag(i, j, k)) {
            return 0.0;
        }
        let (dx, dz) = (p.dx, p.dz);
        let c = self.v[p.vf(i as usize, j as usize, k as usize)];
        let (vn, vs) = (self.v_at(i, j + 1, k, c), self.v_at(i, j - 1, k, c));
        let (ve, vw) = (self.v_at(i + 1, j, k, c), self.v_at(i - 1, j, k, c));
        let (vt, vb) = (self.v_at(i, j, k + 1, c), self.v_at(i, j, k - 1, c));
        let (vc_n, vc_s) = (0.5 * (c + vn), 0.5 * (vs + c));
        let ue = 0.5 * (self.u_at(i + 1, j - 1, k, 0.0) + self.u_at(i + 1, j, k, 0.0));
        let uw = 0.5 * (self.u_at(i, j - 1, k, 0.0) + self.u_at(i, j, k, 0.0));
        let wt = 0.5 * (self.w_at(i, j - 1, k + 1, 0.0) + self.w_at(i, j, k + 1, 0.0));
        let wb = 0.5 * (self.w_at(i, j - 1, k, 0.0) + self.w_at(i, j, k, 0.0));
        let advect = (self.flux(vc_s, vs, c) - self.flux(vc_n, c, vn)) / dx
            + (self.flux(uw, vw, c) - self.flux(ue, c, ve)) / dx
            + (self.flux(wb, vb, c) - self.flux(wt, c, vt)) / dz;
        let diffuse = p.nu
            * ((ve - 2.0 * c + vw) / (dx * dx) + (vn - 2.0 * c + vs) / (dx * dx) + (vt - 2.0 * c + vb) / (dz * dz));
        let column = p.columns_at(i as usize, j as usize);
        let fill = |ii: isize, kk: isize| 0.5 * (self.fill(ii, j - 1, kk) + self.fill(ii, j, kk));
        let carried = if self.partial(fill(i, k)) {
            let dt = self.dt;
            let inflows = [
                (dt * vc_s.max(0.0) * self.fill(i, j - 1, k) / dx, vs),
                (dt * (-vc_n).max(0.0) * self.fill(i, j, k) / dx, vn),
                (dt * uw.max(0.0) * fill(i - 1, k) / dx, vw),
                (dt * (-ue).max(0.0) * fill(i + 1, k) / dx, ve),
                (dt * wb.max(0.0) * fill(i, k - 1) / dz, vb),
                (dt * (-wt).max(0.0) * fill(i, k + 1) / dz, vt),
                self.overflow(k, (i, j - 1), (i, j), |kk| self.v_at(i, j, kk, 0.0)),
            ];
            mixed(fill(i, k), c, &inflows)
                + self.dt * ((self.pressure(i, j - 1, k) - self.pressure(i, j, k)) / dx + diffuse)
        } else {
            c + self.dt * (advect + (self.pressure(i, j - 1, k) - self.pressure(i, j, k)) / dx + diffuse)
        };
        self.dragged(carried, column - p.nx, column)
    }

    /// The tentative w of interior face (i, j, k), 0 where it does not move, at the floor or the
    /// top.
    pub(crate) fn w(&self, i: isize, j: isize, k: isize) -> f32 {
        let p = self.p;
        if k <= 0 || k >= p.nz as isize || !moves(self.flag(i, j, k - 1), self.flag(i, j, k)) {
            return 0.0;
        }
        let (dx, dz) = (p.dx, p.dz);
        let c = self.w[p.wf(i as usize, j as usize, k as usize)];
        let (wt, wb) = (self.w_at(i, j, k + 1, c), self.w_at(i, j, k - 1, c));
        let (we, ww) = (self.w_at(i + 1, j, k, c), self.w_at(i - 1, j, k, c));
        let (wn, ws) = (self.w_at(i, j + 1, k, c), self.w_at(i, j - 1, k, c));
        let (wc_t, wc_b) = (0.5 * (c + wt), 0.5 * (wb + c));
        let ue = 0.5 * (self.u_at(i + 1, j, k - 1, 0.0) + self.u_at(i + 1, j, k, 0.0));
        let uw = 0.5 * (self.u_at(i, j, k - 1, 0.0) + self.u_at(i, j, k, 0.0));
        let vn = 0.5 * (self.v_at(i, j + 1, k - 1, 0.0) + self.v_at(i, j + 1, k, 0.0));
        let vs = 0.5 * (self.v_at(i, j, k - 1, 0.0) + self.v_at(i, j, k, 0.0));
        let advect = (self.flux(wc_b, wb, c) - self.flux(wc_t, c, wt)) / dz
            + (self.flux(uw, ww, c) - self.flux(ue, c, we)) / dx
            + (self.flux(vs, ws, c) - self.flux(vn, c, wn)) / dx;
        let diffuse = p.nu
            * ((we - 2.0 * c + ww) / (dx * dx) + (wn - 2.0 * c + ws) / (dx * dx) + (wt - 2.0 * c + wb) / (dz * dz));
        let column = p.columns_at(i as usize, j as usize);
        self.dragged(
            c + self.dt * (advect - p.g + (self.pressure(i, j, k - 1) - self.pressure(i, j, k)) / dz + diffuse),
            column,
            column,
        )
    }

    /// Twin of `dragged`: a tentative velocity under `physics.damping`'s drag, implicit (÷ 1 +
    /// dt·drag); as it is without damping. Under `physics.damping_map` a face between columns
    /// `a` and `b` takes the mean of their drags.
    fn dragged(&self, v: f32, a: usize, b: usize) -> f32 {
        if self.p.drag == 0.0 {
            return v;
        }
        let drag = if self.p.drag < 0.0 {
            0.5 * (self.drag[a] + self.drag[b])
        } else {
            self.p.drag
        };
        v / (1.0 + self.dt * drag)
    }

    /// The new u of any face (i, j, k), a side's role applied (`side_velocity`).
    pub(crate) fn u_face(&self, i: usize, j: usize, k: usize, forcing: &Substep) -> f32 {
        let (p, (ii, jj, kk)) = (self.p, (i as isize, j as isize, k as isize));
        if i != 0 && i != p.nx {
            return self.u(ii, jj, kk);
        }
        let (side, inside, inner, inward) = if i == 0 {
            (0, 0, 1, 1.0)
        } else {
            (1, p.nx - 1, p.nx - 1, -1.0)
        };
        let fluid_inside = fluid(self.flag[p.cell(inside, j, k)]);
        side_velocity(
            p,
            k,
            forcing.sides[side],
            fluid_inside,
            inward,
            forcing,
            self.u(inner as isize, jj, kk),
        )
    }

    /// The new v of any face (i, j, k), a side's role applied.
    pub(crate) fn v_face(&self, i: usize, j: usize, k: usize, forcing: &Substep) -> f32 {
        let (p, (ii, jj, kk)) = (self.p, (i as isize, j as isize, k as isize));
        if j != 0 && j != p.ny {
            return self.v(ii, jj, kk);
        }
        let (side, inside, inner, inward) = if j == 0 {
            (2, 0, 1, 1.0)
        } else {
            (3, p.ny - 1, p.ny - 1, -1.0)
        };
        let fluid_inside = fluid(self.flag[p.cell(i, inside, k)]);
        side_velocity(
            p,
            k,
            forcing.sides[side],
            fluid_inside,
            inward,
            forcing,
            self.v(ii, inner as isize, kk),
        )
    }
}

/// Step 5: the tentative velocities of eq. (2) on every face between two non-solid cells of which
/// one holds fluid; faces on a solid cell are 0 (no flow through walls), a side's by its role.
/// Returns the largest |u|·dt/dx of the velocities it started from (condition 3), NaN where one
/// is.
pub fn momentum(p: &NsParams, s: &mut NsState, dt: f32, forcing: &Substep) -> f32 {
    momentum_with(p, s, dt, |old, u, v, w| {
        for k in 0..p.nz {
            for j in 0..p.ny {
                for i in 0..=p.nx {
                    u[p.uf(i, j, k)] = old.u_face(i, j, k, forcing);
                }
            }
            for j in 0..=p.ny {
                for i in 0..p.nx {
                    v[p.vf(i, j, k)] = old.v_face(i, j, k, forcing);
                }
            }
        }
        for k in 0..=p.nz {
            for j in 0..p.ny {
                for i in 0..p.nx {
                    w[p.wf(i, j, k)] = old.w(i as isize, j as isize, k as isize);
                }
            }
        }
    })
}

/// The frame of `momentum`: the old state, the new velocities `fill` writes from it (every face,
/// in any order), and condition 3 on the old.
pub(crate) fn momentum_with(
    p: &NsParams,
    s: &mut NsState,
    dt: f32,
    fill: impl FnOnce(&Old, &mut [f32], &mut [f32], &mut [f32]),
) -> f32 {
    let (u0, v0, w0) = (s.u.clone(), s.v.clone(), s.w.clone());
    let courant = courant(p, &u0, &v0, &w0, dt);
    let old = Old {
        p,
        flag: &s.flag,
        pressure: &s.p,
        u: &u0,
        v: &v0,
        w: &w0,
        drag: &s.drag,
        dt,
        h: &s.h,
    };
    let (mut u, mut v, mut w) = (vec![0.0; u0.len()], vec![0.0; v0.len()], vec![0.0; w0.len()]);
    fill(&old, &mut u, &mut v, &mut w);
    (s.u, s.v, s.w) = (u, v, w);
    courant
}

/// The divergence D of eq. (5) in cell (i, j, k), 1/s (positive: fluid flows in).
pub(crate) fn divergence(p: &NsParams, s: &NsState, i: usize, j: usize, k: usize) -> f32 {
    -((s.u[p.uf(i + 1, j, k)] - s.u[p.uf(i, j, k)]) / p.dx
        + (s.v[p.vf(i, j + 1, k)] - s.v[p.vf(i, j, k)]) / p.dx
        + (s.w[p.wf(i, j, k + 1)] - s.w[p.wf(i, j, k)]) / p.dz)
}

/// Step 6: eqs. (6)–(9) over the Full cells, red cells then black ((i + j + k) even, then odd: no
/// two cells of a colour share a face, so each colour's order is free), until every Full cell's
/// |D| < ε or `budget` sweeps. Faces on solid cells stay 0; a Surface cell's pressure follows the
/// Full cell under it (`ghost_share`).
pub fn pressure(p: &NsParams, s: &mut NsState, dt: f32, budget: u32, sides: &[u32; 4]) -> PressureReport {
    let beta = p.beta0 / (2.0 * dt * (2.0 / (p.dx * p.dx) + 1.0 / (p.dz * p.dz)));
    let mut report = PressureReport::default();
    for sweep in 0..=budget {
        let mut worst = 0.0f32;
        for j in 0..p.ny {
            for i in 0..p.nx {
                for k in 0..p.nz {
                    if s.flag[p.cell(i, j, k)] == FULL {
                        worst = worst.max(divergence(p, s, i, j, k).abs());
                    }
                }
            }
        }
        report = PressureReport {
            sweeps: sweep,
            divergence: worst,
        };
        if worst < p.epsilon || sweep == budget {
            break;
        }
        for colour in 0..2 {
            for k in 0..p.nz {
                for j in 0..p.ny {
                    for i in 0..p.nx {
                        if (i + j + k) % 2 != colour || s.flag[p.cell(i, j, k)] != FULL {
                            continue;
                        }
                        let dp = beta * divergence(p, s, i, j, k);
                        let (ii, jj, kk) = (i as isize, j as isize, k as isize);
                        let open = |di: isize, dj: isize, dk: isize| open_at(p, s, sides, ii + di, jj + dj, kk + dk);
                        let (sx, sz) = (dt / p.dx * dp, dt / p.dz * dp);
                        let [e, w, n, so, t, b] = [
                            open(1, 0, 0),
                            open(-1, 0, 0),
                            open(0, 1, 0),
                            open(0, -1, 0),
                            open(0, 0, 1),
                            open(0, 0, -1),
                        ];
                        if e {
                            s.u[p.uf(i + 1, j, k)] += sx;
                        }
                        if w {
                            s.u[p.uf(i, j, k)] -= sx;
                        }
                        if n {
                            s.v[p.vf(i, j + 1, k)] += sx;
                        }
                        if so {
                            s.v[p.vf(i, j, k)] -= sx;
                        }
                        if t {
                            // Under a Surface cell, whose pressure follows this one's by θ
                            // (`ghost_share`): the face between them feels (1 − θ) of δp.
                            let column = j * p.nx + i;
                            match ghost_share(p, s, column, k + 1).filter(|_| s.flag[p.cell(i, j, k + 1)] == SURFACE) {
                                Some(theta) => {
                                    s.w[p.wf(i, j, k + 1)] += (1.0 - theta) * sz;
                                    s.p[p.cell(i, j, k + 1)] += theta * dp;
                                }
                                None => s.w[p.wf(i, j, k + 1)] += sz,
                            }
                        }
                        if b {
                            s.w[p.wf(i, j, k)] -= sz;
                        }
                        s.p[p.cell(i, j, k)] += dp;
                    }
                }
            }
        }
    }
    report
}

/// Where the air's pressure (0) sits between a Surface cell's centre and the Full cell's under
/// it: the Surface cell's pressure is θ times the Full cell's, θ = (h − z_s)/(h − z_f), the line
/// through the Full cell's pressure and 0 at the surface (a ghost-fluid condition: the wave's
/// dynamic pressure reaches the surface, not only the hydrostatic part). h lies in the Surface
/// cell, so h − z_f ∈ [dz/2, 3dz/2) and θ ∈ [−1, 1/3). None where the cell under is not Full.
pub(crate) fn ghost_share(p: &NsParams, s: &NsState, column: usize, k: usize) -> Option<f32> {
    (!p.markers && k > 0 && s.flag[column + (k - 1) * p.columns()] == FULL).then(|| {
        let h = s.h[column];
        (h - p.centre(k)) / (h - p.centre(k - 1))
    })
}

/// The Surface cells' pressure: the ghost-fluid line from the Full cell under them to the applied
/// pressure at the surface (`ghost_share`), or hydrostatic from the surface where no Full cell
/// is under; Empty cells the applied pressure. At rest with none applied both give g·(h − z_c).
/// The applied pressure is the forcing's (`applied`) plus g times `air_head` per column (m;
/// `[[pressure]]`, None without patches).
pub fn surface_pressure(p: &NsParams, s: &mut NsState, forcing: &Substep, air_head: Option<&[f32]>) {
    for c in 0..p.columns() {
        let air = applied(p, forcing, c % p.nx, c / p.nx) + air_head.map_or(0.0, |a| p.g * a[c]);
        for k in 0..p.nz {
            let at = c + k * p.columns();
            match s.flag[at] {
                SURFACE => {
                    s.p[at] = match ghost_share(p, s, c, k) {
                        Some(theta) => air + theta * (s.p[at - p.columns()] - air),
                        None => air + p.g * (s.h[c] - p.centre(k)),
                    }
                }
                EMPTY => s.p[at] = air,
                _ => {}
            }
        }
    }
}

/// A side face's velocity into the domain's +axis direction (`inward` is ±1): 0 on a wall or
/// where the cell inside holds no fluid; the inflow's on an inflow side; on an outflow side the
/// tentative velocity of the face inside it, `inner` (§3.2.2: it then relaxes freely in the
/// pressure iteration).
fn side_velocity(
    p: &NsParams,
    k: usize,
    role: u32,
    fluid_inside: bool,
    inward: f32,
    forcing: &Substep,
    inner: f32,
) -> f32 {
    match role {
        _ if !fluid_inside => 0.0,
        INFLOW if !in_window(p, k) => 0.0,
        INFLOW => inward * forcing.inflow,
        OUTFLOW => inner,
        WALL => 0.0,
        _ => 0.0,
    }
}

/// Whether the neighbour (i, j, k) of a Full cell takes part in its pressure update: a cell
/// inside that is not Solid, or past an outflow side.
pub(crate) fn open_at(p: &NsParams, s: &NsState, sides: &[u32; 4], i: isize, j: isize, k: isize) -> bool {
    let outside = [i < 0, i >= p.nx as isize, j < 0, j >= p.ny as isize];
    match outside.iter().position(|&o| o) {
        Some(side) => sides[side] == OUTFLOW && k >= 0 && k < p.nz as isize,
        None => flag_at(p, s, i, j, k) != SOLID,
    }
}

/// Step 7 (§3.2.3): the faces of each Surface cell open to Empty cells, set so that the cell
/// keeps no divergence. Along an axis open on one side only, the open face first repeats the face
/// opposite it (no change along that axis); the rest of the divergence goes to the first such
/// axis in the order z, x, y (eq. 10: the top face takes ∂u/∂x). An axis open on both sides keeps
/// its momentum velocities; with no one-sided axis, it takes the rest, split between its faces.
pub fn surface_velocities(p: &NsParams, s: &mut NsState) {
    for k in 0..p.nz {
        for j in 0..p.ny {
            for i in 0..p.nx {
                if s.flag[p.cell(i, j, k)] != SURFACE {
                    continue;
                }
                let (ii, jj, kk) = (i as isize, j as isize, k as isize);
                let empty = |di: isize, dj: isize, dk: isize| flag_at(p, s, ii + di, jj + dj, kk + dk) == EMPTY;
                // Per axis (z, x, y): the low and high face indices and whether each is open.
                let axes = [
                    (Axis::W, empty(0, 0, -1), empty(0, 0, 1)),
                    (Axis::U, empty(-1, 0, 0), empty(1, 0, 0)),
                    (Axis::V, empty(0, -1, 0), empty(0, 1, 0)),
                ];
                for &(axis, lo, hi) in &axes {
                    if lo != hi {
                        let (low, high) = faces(p, axis, i, j, k);
                        let field = field_mut(s, axis);
                        if hi {
                            field[high] = field[low];
                        } else {
                            field[low] = field[high];
                        }
                    }
                }
                let rest = divergence(p, s, i, j, k);
                if let Some(&(axis, lo, _)) = axes.iter().find(|(_, lo, hi)| lo != hi) {
                    // Moving the open face by δ changes D by ∓δ/size: take all of D.
                    let size = if axis == Axis::W { p.dz } else { p.dx };
                    let (low, high) = faces(p, axis, i, j, k);
                    let field = field_mut(s, axis);
                    if lo {
                        field[low] -= rest * size;
                    } else {
                        field[high] += rest * size;
                    }
                } else if let Some(&(axis, _, _)) = axes.iter().find(|(_, lo, hi)| *lo && *hi) {
                    let size = if axis == Axis::W { p.dz } else { p.dx };
                    let (low, high) = faces(p, axis, i, j, k);
                    let field = field_mut(s, axis);
                    field[low] -= 0.5 * rest * size;
                    field[high] += 0.5 * rest * size;
                }
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Axis {
    U,
    V,
    W,
}

fn faces(p: &NsParams, axis: Axis, i: usize, j: usize, k: usize) -> (usize, usize) {
    match axis {
        Axis::U => (p.uf(i, j, k), p.uf(i + 1, j, k)),
        Axis::V => (p.vf(i, j, k), p.vf(i, j + 1, k)),
        Axis::W => (p.wf(i, j, k), p.wf(i, j, k + 1)),
    }
}

fn field_mut(s: &mut NsState, axis: Axis) -> &mut Vec<f32> {
    match axis {
        Axis::U => &mut s.u,
        Axis::V => &mut s.v,
        Axis::W => &mut s.w,
    }
}

/// The largest of |u|·dt/dx, |v|·dt/dx and |w|·dt/dz over the grid's faces (seed 003's
/// condition 3 asks < 1); NaN where a velocity is. Twin of what `momentum` gathers.
pub fn courant(p: &NsParams, u: &[f32], v: &[f32], w: &[f32], dt: f32) -> f32 {
    let fastest = |field: &[f32], size: f32| {
        field.iter().fold(0.0f32, |m, v| {
            let c = v.abs() * dt / size;
            if c.is_nan() || m.is_nan() {
                f32::NAN
            } else {
                m.max(c)
            }
        })
    };
    fastest(u, p.dx).max(fastest(v, p.dx)).max(fastest(w, p.dz))
}

/// Twin of `columns`: each 3D column's surface (the mean of its height-field cells), the flags,
/// under Manning's friction each column's drag (`manning_rate`), and the Surface and Empty
/// cells' pressures.
pub fn columns(p: &NsParams, s: &mut NsState, f: &Surface, forcing: &Substep) {
    s.h = f.coarse_mean(&f.h);
    set_flags(p, s);
    if p.manning {
        for c in 0..p.columns() {
            s.drag[c] = manning_rate(p, s, c);
        }
    }
    // `[[pressure]]`'s head over each column, the mean of its cells' as for the surface.
    let air = (!f.air.is_empty()).then(|| f.coarse_mean(&f.air));
    surface_pressure(p, s, forcing, air.as_deref());
}

/// Twin of `manning_rate`: column c's drag under Manning's friction, 1/s, its damping's plus
/// g·n²·|U|/d^(4/3): U its depth-averaged velocity of the faces the substep starts from under the
/// column's surface (`state::column_velocity`, as the `u_`/`v_` outputs read it), d its depth, at least the shallow-water model's film. The
/// drag divides each tentative velocity of the column by 1 + dt·drag (`dragged`, a face the mean
/// of its two columns'), the same factor at every height, so the column's mean flow decays as
/// the depth-averaged law says (dU/dt = −g·n²·|U|·U/d^(4/3)), implicitly: stable at any n and
/// depth. The law is the flood codes'; the layer's vertical profile is left to its own
/// equations (no log-law bed layer). Columns in `s.drag`: the drag, the damping's, n².
pub fn manning_rate(p: &NsParams, s: &NsState, c: usize) -> f32 {
    let n = p.columns();
    let base = s.drag[n + c];
    let depth = s.h[c] - s.ground[c];
    if depth <= crate::models::navier_stokes::state::DRY {
        return base;
    }
    let [u, v] = crate::models::navier_stokes::state::column_velocity(p, s, c, s.h[c]);
    let film = crate::models::shallow_water::setup::FILM;
    base + p.g * s.drag[2 * n + c] * (u * u + v * v).sqrt() / depth.max(film).powf(4.0 / 3.0)
}

/// The costly passes of a substep: the reference's, or the fast backend's on threads (the same
/// bits). The order they run in is `step_with`'s alone.
pub(crate) struct Costly {
    pub momentum: fn(&NsParams, &mut NsState, f32, &Substep) -> f32,
    pub pressure: fn(&NsParams, &mut NsState, f32, u32, &[u32; 4]) -> PressureReport,
    pub height: fn(&NsParams, &NsState, &mut Surface, f32),
}

/// The reference's own passes.
pub(crate) const REFERENCE: Costly = Costly {
    momentum,
    pressure,
    height: crate::models::navier_stokes::cpu::ns_surface::height,
};

/// One substep of §6: `columns`, momentum, the surface velocities, the pressure iteration, the
/// surface velocities again (the iteration moved the faces under them), and the height field.
/// The pressure iteration runs at most `budget` sweeps (`crate::models::navier_stokes::setup::next_budget`).
/// Returns how the pressure iteration went and the largest |u|·dt/dx of the velocities the
/// substep started from (what `momentum` gathers). `costly` picks the reference's costly passes
/// (`REFERENCE`) or the fast backend's.
pub(crate) fn step_with(
    costly: &Costly,
    p: &NsParams,
    s: &mut NsState,
    f: &mut Surface,
    dt: f32,
    budget: u32,
    forcing: &Substep,
) -> (PressureReport, f32) {
    columns(p, s, f, forcing);
    let courant = (costly.momentum)(p, s, dt, forcing);
    surface_velocities(p, s);
    let report = (costly.pressure)(p, s, dt, budget, &forcing.sides);
    surface_velocities(p, s);
    (costly.height)(p, s, f, dt);
    (report, courant)
}

/// One substep of §6 with marker particles (§4.1) for the surface: their flags
/// (`ns_markers::flags`), momentum, the surface velocities, the pressure iteration, the surface
/// velocities again, the velocity carried one face into the air (`ns_markers::extend`), then the
/// markers moved by the new velocities, the inflow's new ones, and the height field `f` drawn
/// from them (for the outputs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn step_markers(
    costly: &Costly,
    p: &NsParams,
    s: &mut NsState,
    f: &mut Surface,
    markers: &mut crate::models::navier_stokes::state::Markers,
    mp: &crate::models::navier_stokes::state::MarkerParams,
    dt: f32,
    budget: u32,
    forcing: &Substep,
) -> (PressureReport, f32) {
    crate::models::navier_stokes::cpu::ns_markers::flags(p, s, markers, forcing);
    let courant = (costly.momentum)(p, s, dt, forcing);
    surface_velocities(p, s);
    let report = (costly.pressure)(p, s, dt, budget, &forcing.sides);
    surface_velocities(p, s);
    crate::models::navier_stokes::cpu::ns_markers::extend(p, s);
    crate::models::navier_stokes::cpu::ns_markers::advect(p, s, markers, dt, &forcing.sides);
    crate::models::navier_stokes::cpu::ns_markers::emit(p, markers, mp, dt, forcing);
    crate::models::navier_stokes::cpu::ns_markers::surface(p, mp, markers, f);
    (report, courant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manning_rates_thresholds_are_the_shaders() {
        assert_eq!(
            crate::models::navier_stokes::state::DRY,
            crate::wgsl::navier_stokes::DRY_DEPTH
        );
        assert_eq!(
            crate::models::shallow_water::setup::FILM,
            crate::wgsl::navier_stokes::FILM
        );
    }

    /// A 2-D channel (one cell across) `length` m long over flat ground at −`depth`, `nx` cells
    /// along it and `per_metre` layers per metre of depth, with a cell of headroom. The still
    /// surface (0) lies mid-cell, so a small wave never moves it to another cell.
    fn channel(nx: usize, length: f32, depth: f32, per_metre: usize) -> NsParams {
        let dz = 1.0 / per_metre as f32;
        let nz = (depth / dz).round() as usize + 2;
        NsParams {
            epsilon: 1e-5,
            max_sweeps: 5000,
            ..NsParams::water([nx, 1, nz], length / nx as f32, dz, -depth - 0.5 * dz)
        }
    }

    /// The height field at the 3D grid's resolution.
    fn fine(p: &NsParams, s: &NsState) -> Surface {
        Surface {
            nx: p.nx,
            ny: p.ny,
            coarsen: 1,
            h: s.h.clone(),
            ground: s.ground.clone(),
            held: Vec::new(),
            air: Vec::new(),
        }
    }

    #[test]
    fn a_still_pool_over_steps_stays_still_with_hydrostatic_pressure() {
        // Ground in three steps under 0.6 m of water, and a rock (two columns of the middle
        // row) standing out of it: every cell keeps p = g·depth at its centre and the surface
        // stays within 1e-6 m over 1000 steps (float rounding in w: ~1e-7 m/s).
        let mut p = channel(12, 1.2, 0.6, 10);
        p.ny = 3;
        let rock = |c: usize| c == 17 || c == 18;
        let ground: Vec<f32> = (0..36)
            .map(|c| {
                if rock(c) {
                    0.05
                } else {
                    [-0.6, -0.4, -0.25][(c % 12) / 4]
                }
            })
            .collect();
        let level: Vec<f32> = (0..36).map(|c| if rock(c) { 0.05 } else { 0.0 }).collect();
        let mut s = NsState::at_rest(&p, &ground, &level);
        let mut f = fine(&p, &s);
        for _ in 0..1000 {
            let (r, _) = step_with(&REFERENCE, &p, &mut s, &mut f, 0.01, p.max_sweeps, &Substep::default());
            assert!(r.divergence < p.epsilon, "{r:?}");
        }
        let worst =
            f.h.iter()
                .zip(&level)
                .map(|(h, l)| (h - l).abs())
                .fold(0.0f32, f32::max);
        assert!(worst < 1e-6, "the surface moved {worst} m");
        assert!((0..p.nz).all(|k| s.flag[17 + k * 36] != FULL), "the rock holds water");
        for c in 0..36 {
            for k in 0..p.nz {
                let at = c + k * 36;
                if s.flag[at] == FULL {
                    let want = p.g * -p.centre(k);
                    assert!(
                        (s.p[at] - want).abs() < 1e-4,
                        "p {} vs {want} at cell {c}, layer {k}",
                        s.p[at]
                    );
                }
            }
        }
    }

    /// The period of a standing wave of one wavelength in a closed channel, from the surface at
    /// the west wall: the time between its first and fourth downward crossings of the mean,
    /// over three periods.
    fn standing_period(nx: usize, length: f32, depth: f32, per_metre: usize, dt: f32) -> f64 {
        let p = channel(nx, length, depth, per_metre);
        let k = 2.0 * std::f32::consts::PI / length;
        let h: Vec<f32> = (0..nx).map(|i| 0.005 * (k * (i as f32 + 0.5) * p.dx).cos()).collect();
        let mut s = NsState::at_rest(&p, &vec![-depth; nx], &h);
        let mut f = fine(&p, &s);
        // Start from the still water's pressure with the displaced surface: the first step's
        // pressure iteration finds the wave's.
        let mut crossings = Vec::new();
        let mut before = f.h[0];
        for n in 1..40_000 {
            let (r, _) = step_with(&REFERENCE, &p, &mut s, &mut f, dt, p.max_sweeps, &Substep::default());
            assert!(r.divergence < p.epsilon, "step {n}: {r:?}");
            let now = f.h[0];
            if before > 0.0 && now <= 0.0 {
                // Linear interpolation of the crossing time.
                crossings.push((n as f64 - 1.0 + before as f64 / (before - now) as f64) * dt as f64);
                if crossings.len() == 4 {
                    return (crossings[3] - crossings[0]) / 3.0;
                }
            }
            before = now;
        }
        panic!("no three periods in 40000 steps");
    }

    #[test]
    fn a_standing_wave_in_deep_water_has_the_period_of_linear_theory() {
        // A 2 m wave in 1 m of water (k·D = π: deep): ω² = g·k·tanh(k·D). The height field's
        // solvers give ω = sqrt(g·D)·k, 44 % too fast here. 32 columns, 16 layers per metre.
        let (length, depth) = (2.0f32, 1.0f32);
        let k = 2.0 * std::f64::consts::PI / length as f64;
        let g = 9.81f64;
        let theory = 2.0 * std::f64::consts::PI / (g * k * (k * depth as f64).tanh()).sqrt();
        let shallow = 2.0 * std::f64::consts::PI / ((g * depth as f64).sqrt() * k);
        let period = standing_period(32, length, depth, 16, 0.005);
        let error = period / theory - 1.0;
        eprintln!(
            "period {period:.4} s; linear theory {theory:.4} s ({:+.2} %); a height field's {shallow:.4} s",
            100.0 * error
        );
        assert!(error.abs() < 0.03, "period {period} s vs theory {theory} s");
        // And it converges: at half the resolution both ways the error is larger.
        // And it converges: halving the cells both ways (and the step) shrinks the error.
        let coarse = standing_period(16, length, depth, 8, 0.01) / theory - 1.0;
        let fine = standing_period(64, length, depth, 32, 0.0025) / theory - 1.0;
        eprintln!(
            "16 columns, 8 layers per metre: {:+.2} %; 64 and 32: {:+.2} %",
            100.0 * coarse,
            100.0 * fine
        );
        assert!(
            coarse.abs() > error.abs() && error.abs() > fine.abs(),
            "{coarse}, {error}, {fine}"
        );
    }
}
