//! Twin of `wgsl/adi.wgsl`: the same equations, built with the same f32 operations, solved line
//! by line with Thomas' algorithm (Sherman–Morrison on periodic lines) instead of PCR.

use crate::models::height_field::cpu::explicit::{
    depth, face_depth, limit, mean_surface, open_face, two_sum, Level, Out, ABSORB, GHOST_MEAN, GHOST_SLOPE, OPEN,
    PERIODIC,
};
use crate::wgsl::common::FORCE_PRESSURE;

/// One row before normalisation: a·x_(p−1) + b·x_p + c·x_(p+1) = r with b = 1 − a − c + g,
/// g the missing faces' diagonal term.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Row {
    pub(crate) a: f32,
    pub(crate) c: f32,
    pub(crate) r: f32,
    pub(crate) g: f32,
}

impl Row {
    pub(crate) fn b(&self) -> f32 {
        ((1.0 - self.a) - self.c) + self.g
    }
}

/// One sweep over every line of an axis (twin of WGSL `Sweep` and the functions that read it).
pub(crate) struct Sweep<'a> {
    pub(crate) level: &'a Level<'a>,
    /// 0: rows (x), 1: columns (y).
    pub(crate) axis: usize,
    /// Cells per line.
    pub(crate) n: u32,
    pub(crate) periodic: bool,
    bc_lo: u32,
    bc_hi: u32,
    /// The x sweep's final δx (read by the y sweep).
    dx: &'a [f32],
}

impl Sweep<'_> {
    pub(crate) fn line_cell(&self, line: u32, p: u32) -> usize {
        let nx = self.level.params.nx;
        (if self.axis == 1 { p * nx + line } else { line * nx + p }) as usize
    }

    fn delta_x(&self, c: usize) -> f32 {
        self.dx[c]
    }

    fn rise(&self, c: usize, m: usize) -> f32 {
        let eta = self.level.eta;
        let mut r = eta[m] - eta[c];
        if self.axis == 1 {
            r += self.delta_x(m) - self.delta_x(c);
        }
        if let Some(f) = self
            .level
            .forcing()
            .filter(|_| self.level.params.forcing & FORCE_PRESSURE != 0)
        {
            r += f.head_of(m) - f.head_of(c);
        }
        r
    }

    /// Twin of `weight`: the face depth scaled by the face's `share`.
    fn weight(&self, lo: usize, hi: usize) -> f32 {
        let (eta, ground) = (self.level.eta, self.level.ground);
        face_depth(eta[lo], depth(eta[lo], ground[lo]), eta[hi], depth(eta[hi], ground[hi]))
            * share(self.level, lo, hi, self.axis == 1)
    }

    /// The x sweep's kept change: keep·vel, or where the level keeps the faces' memory, what the
    /// faces agree the cell keeps (`Memory::kept`: a wet cell less its closed faces', a dry cell
    /// its open ones').
    fn base_rhs(&self, c: usize) -> f32 {
        if self.axis != 0 {
            return 0.0;
        }
        kept_change(self.level, c)
    }

    fn side(&self, row: Row, c: usize, mode: u32) -> Row {
        let mut out = row;
        let k = self.level.params.k;
        let eta_c = self.level.eta[c];
        let b_c = self.level.ground[c];
        let d_c = depth(eta_c, b_c);
        // Twin of adi.wgsl's `side`: on a bank absorbing and slope sides let water out as an open
        // one does.
        let bank = crate::models::height_field::cpu::explicit::on_bank(b_c);
        if mode == OPEN || mode == GHOST_MEAN || ((mode == ABSORB || mode == GHOST_SLOPE) && bank) {
            let g = if mode == GHOST_MEAN && !bank {
                mean_surface(self.level.totals)
            } else {
                0.0
            }
            .max(b_c);
            let w = k * face_depth(eta_c, d_c, g, depth(g, b_c));
            let mut r = g - eta_c;
            if self.axis == 1 {
                r -= self.delta_x(c);
            }
            out.g += w;
            out.r += w * r;
        } else if mode == ABSORB {
            out.g += (k * d_c).sqrt();
        } else if mode == GHOST_SLOPE {
            out = Row {
                a: 0.0,
                c: 0.0,
                r: self.base_rhs(c),
                g: 0.0,
            };
        }
        out
    }

    pub(crate) fn row(&self, line: u32, p: u32) -> Row {
        let (n, k) = (self.n, self.level.params.k);
        let c = self.line_cell(line, p);
        let mut out = Row {
            a: 0.0,
            c: 0.0,
            r: self.base_rhs(c),
            g: 0.0,
        };
        let has_lo = p > 0 || self.periodic;
        let has_hi = p + 1 < n || self.periodic;
        if has_lo {
            let m = self.line_cell(line, if p == 0 { n - 1 } else { p - 1 });
            let w = k * self.weight(m, c);
            out.a = -w;
            out.r += w * self.rise(c, m);
        }
        if has_hi {
            let m = self.line_cell(line, if p + 1 == n { 0 } else { p + 1 });
            let w = k * self.weight(c, m);
            out.c = -w;
            out.r += w * self.rise(c, m);
        }
        if !has_lo {
            out = self.side(out, c, self.bc_lo);
        }
        if !has_hi {
            out = self.side(out, c, self.bc_hi);
        }
        out
    }

    /// Twin of `equation`: (a, c, r, r2) with b = 1, and β/γ on a periodic line's first row.
    pub(crate) fn equation(&self, line: u32, p: u32) -> ([f32; 4], Option<f32>) {
        let e = self.row(line, p);
        let (mut a, mut c, mut b) = (e.a, e.c, e.b());
        let mut r2 = 0.0;
        let mut ratio = None;
        if self.periodic {
            if p == 0 {
                ratio = Some(a / -b);
                r2 = -b;
                b *= 2.0;
                a = 0.0;
            }
            if p + 1 == self.n {
                let first = self.row(line, 0);
                r2 = c;
                b -= c * (first.a / -first.b());
                c = 0.0;
            }
        }
        ([a / b, c / b, e.r / b, r2 / b], ratio)
    }

    /// Twin of `conserved`: x rebuilt in flux form from its neighbours'.
    fn conserved(&self, line: u32, p: u32, x_lo: f32, x: f32, x_hi: f32) -> f32 {
        let e = self.row(line, p);
        ((e.r + (-e.a) * (x_lo - x)) + (-e.c) * (x_hi - x)) - e.g * x
    }

    /// Twin of `hi_flux`: what the face to position p + 1 moves into position p this step,
    /// k·w·(rise + x_hi − x), where the level keeps the faces' memory and the face is real (0
    /// otherwise).
    pub(crate) fn hi_flux(&self, line: u32, p: u32, x: f32, x_hi: f32) -> f32 {
        if self.level.faces.is_empty() || !(p + 1 < self.n || self.periodic) {
            return 0.0;
        }
        let c = self.line_cell(line, p);
        let m = self.line_cell(line, if p + 1 == self.n { 0 } else { p + 1 });
        let w = self.level.params.k * self.weight(c, m);
        w * self.rise(c, m) + w * (x_hi - x)
    }

    /// One line's δ and each position's `hi_flux`: Thomas (Sherman–Morrison on a periodic line),
    /// then the flux-form rebuild (twin of `solve`, `cyclic_factor`, `conserve` and `emit`).
    pub(crate) fn solve_line(&self, line: u32) -> Vec<(f32, f32)> {
        let n = self.n as usize;
        let mut ratio = 0.0;
        let equations: Vec<[f32; 4]> = (0..self.n)
            .map(|p| {
                let (e, r) = self.equation(line, p);
                if let Some(r) = r {
                    ratio = r;
                }
                e
            })
            .collect();
        let solved = thomas(&equations);
        let x: Vec<f32> = if self.periodic {
            let factor = cyclic_factor(ratio, solved[0], solved[n - 1]);
            solved.iter().map(|s| s[0] - factor * s[1]).collect()
        } else {
            solved.iter().map(|s| s[0]).collect()
        };
        (0..n)
            .map(|p| {
                let lo = if p > 0 {
                    x[p - 1]
                } else if self.periodic {
                    x[n - 1]
                } else {
                    0.0
                };
                let hi = if p + 1 < n {
                    x[p + 1]
                } else if self.periodic {
                    x[0]
                } else {
                    0.0
                };
                let delta = self.conserved(line, p as u32, lo, x[p], hi);
                (delta, self.hi_flux(line, p as u32, x[p], hi))
            })
            .collect()
    }
}

/// The x sweep's kept change of cell c (its `base_rhs`): keep·vel, or where the level keeps the
/// faces' memory, what the faces agree the cell keeps less what their `share` takes off.
pub(crate) fn kept_change(level: &Level, c: usize) -> f32 {
    let nx = level.params.nx as usize;
    let (i, j) = ((c % nx) as u32, (c / nx) as u32);
    match level.agreed(i, j) {
        Some((memory, agreed)) => agreed.kept + unshared(level, i, j, &memory, &agreed),
        None => level.keep_at(c) * level.vel[c],
    }
}

/// Twin of `share` (adi.wgsl): the part of its weight and kept memory a face between cells
/// `owner` (west or south) and `other` keeps, 1 unless the step's explicit estimate of what it
/// moves, kept memory + k·w·rise at the start of the step, exceeds `limit`'s share of its source
/// (the explicit step's rule, applied before the solve). 1 where the level keeps no memory.
pub(crate) fn share(level: &Level, owner: usize, other: usize, north: bool) -> f32 {
    if level.faces.is_empty() || coasts(level, owner, north) || coasts(level, other, north) {
        return 1.0;
    }
    let (eta, ground) = (level.eta, level.ground);
    let lift = level
        .forcing()
        .filter(|_| level.params.forcing & FORCE_PRESSURE != 0)
        .map(|f| f.head_of(other) - f.head_of(owner));
    let q = level.faces[2 * owner + north as usize];
    face_share(
        level.params.k,
        level.keep_at(owner) * q,
        (eta[owner], ground[owner]),
        (eta[other], ground[other]),
        q,
        lift,
    )
}

/// `share` of a face whose owner stands at `o` and other cell at `x` (each (eta, ground)), its
/// memory `q` (`kept_q`: at the owner's 1 − tau) and `lift` the rise of the air pressure's head
/// across it (None without `[[pressure]]`): the twin's operations, in its order.
pub(crate) fn face_share(k: f32, kept_q: f32, o: (f32, f32), x: (f32, f32), q: f32, lift: Option<f32>) -> f32 {
    let (d_o, d_x) = (depth(o.0, o.1), depth(x.0, x.1));
    let open = open_face(true, o.0 > o.1, x.0 > x.1, q);
    let kept = if open { kept_q } else { 0.0 };
    let mut rise = x.0 - o.0;
    if let Some(lift) = lift {
        rise += lift;
    }
    let estimate = kept + (k * face_depth(o.0, d_o, x.0, d_x)) * rise;
    let bounded = limit(estimate, d_o, d_x);
    if bounded == estimate {
        1.0
    } else {
        bounded / estimate
    }
}

/// Twin of `coasts`: whether cell c's row along the axis of a y face (`north`) or an x face is
/// a slope side's identity row (`side`): the cell coasts on its kept change, and a face into it
/// is not limited (the face's flux never enters the cell's change, so limiting it would take off
/// momentum the cell never had).
fn coasts(level: &Level, c: usize, north: bool) -> bool {
    let p = level.params;
    let (lo, hi) = if north {
        (p.bc_south, p.bc_north)
    } else {
        (p.bc_west, p.bc_east)
    };
    if lo != GHOST_SLOPE && hi != GHOST_SLOPE {
        return false;
    }
    let (nx, ny) = (p.nx as usize, p.ny as usize);
    let (at, n, lo, hi) = if north {
        (c / nx, ny, p.bc_south, p.bc_north)
    } else {
        (c % nx, nx, p.bc_west, p.bc_east)
    };
    ((at == 0 && lo == GHOST_SLOPE) || (at + 1 == n && hi == GHOST_SLOPE))
        && !crate::models::height_field::cpu::explicit::on_bank(level.ground[c])
}

/// Twin of `remember_shared`: `remember` with the kept memory scaled by the face's `share`.
pub(crate) fn remember_shared(real: bool, open: bool, keep: f32, q: f32, share: f32, flux: f32) -> f32 {
    if real {
        (if open { share * (keep * q) } else { 0.0 }) + flux
    } else {
        0.0
    }
}

/// Twin of `unshared`: what the faces' `share` takes off cell (i, j)'s kept change, signed into
/// the cell: Σ (share − 1)·keep·q over its open faces (west, east, south, north), each term
/// computed alike by the face's two cells.
pub(crate) fn unshared(
    level: &Level,
    i: u32,
    j: u32,
    memory: &crate::models::height_field::cpu::explicit::Memory,
    agreed: &crate::models::height_field::cpu::explicit::Agreed,
) -> f32 {
    let p = level.params;
    let (nx, ny) = (p.nx, p.ny);
    let c = level.cell(i, j);
    let w = level.cell(if i == 0 { nx - 1 } else { i - 1 }, j);
    let e = level.cell(if i == nx - 1 { 0 } else { i + 1 }, j);
    let s = level.cell(i, if j == 0 { ny - 1 } else { j - 1 });
    let n = level.cell(i, if j == ny - 1 { 0 } else { j + 1 });
    let part = |f: usize, owner: usize, other: usize, north: bool, q: f32| {
        if !agreed.open[f] {
            return 0.0;
        }
        let kq = level.keep_at(owner) * q;
        share(level, owner, other, north) * kq - kq
    };
    let (pw, pe) = (part(0, w, c, false, memory.west), part(1, c, e, false, memory.east));
    let (ps, pn) = (part(2, s, c, true, memory.south), part(3, c, n, true, memory.north));
    ((pe + pn) - pw) - ps
}

/// Sherman–Morrison's (v·y)/(1 + v·z) from a periodic line's first and last (y, z) and β/γ.
pub fn cyclic_factor(ratio: f32, first: [f32; 2], last: [f32; 2]) -> f32 {
    let vy = first[0] + ratio * last[0];
    let vz = first[1] + ratio * last[1];
    vy / (1.0 + vz)
}

/// Thomas' algorithm on normalised tridiagonal equations a_i·x_(i−1) + x_i + c_i·x_(i+1) = r_i,
/// two right-hand sides at once (`[a, c, r, r2]`); returns (x for r, x for r2) per row.
pub fn thomas(equations: &[[f32; 4]]) -> Vec<[f32; 2]> {
    let n = equations.len();
    let mut c_prime = vec![0.0f32; n];
    let mut r_prime = vec![[0.0f32; 2]; n];
    for (i, &[a, c, r, r2]) in equations.iter().enumerate() {
        let (m, prev_r) = if i == 0 {
            (1.0, [0.0, 0.0])
        } else {
            (1.0 - a * c_prime[i - 1], r_prime[i - 1])
        };
        c_prime[i] = c / m;
        r_prime[i] = [(r - a * prev_r[0]) / m, (r2 - a * prev_r[1]) / m];
    }
    let mut x = vec![[0.0f32; 2]; n];
    for i in (0..n).rev() {
        x[i] = if i + 1 == n {
            r_prime[i]
        } else {
            [
                r_prime[i][0] - c_prime[i] * x[i + 1][0],
                r_prime[i][1] - c_prime[i] * x[i + 1][1],
            ]
        };
    }
    x
}

/// The sweep along `axis` (0: rows, giving δx; 1: columns, giving δy from `dx`) and its number
/// of lines.
pub(crate) fn sweeper<'a>(level: &'a Level, axis: usize, dx: &'a [f32]) -> (Sweep<'a>, u32) {
    let p = level.params;
    let (n, lines, lo, hi) = if axis == 0 {
        (p.nx, p.ny, p.bc_west, p.bc_east)
    } else {
        (p.ny, p.nx, p.bc_south, p.bc_north)
    };
    let s = Sweep {
        level,
        axis,
        n,
        periodic: lo == PERIODIC,
        bc_lo: lo,
        bc_hi: hi,
        dx,
    };
    (s, lines)
}

/// One sweep over every line of `axis`, line after line: each cell's δ and its `hi_flux` (the
/// flux through its east face on the x sweep, its north face on the y sweep).
fn sweep(level: &Level, axis: usize, dx: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let (s, lines) = sweeper(level, axis, dx);
    let mut out = vec![0.0f32; dx.len()];
    let mut flux = vec![0.0f32; dx.len()];
    for line in 0..lines {
        for (q, (v, f)) in s.solve_line(line).into_iter().enumerate() {
            let c = s.line_cell(line, q as u32);
            out[c] = v;
            flux[c] = f;
        }
    }
    (out, flux)
}

/// The x sweep's δx over the whole grid.
pub fn sweep_x(level: &Level) -> Vec<f32> {
    sweep(level, 0, &vec![0.0f32; level.eta.len()]).0
}

/// The y sweep's δy over the whole grid, from the x sweep's δx.
pub fn sweep_y(level: &Level, dx: &[f32]) -> Vec<f32> {
    sweep(level, 1, dx).0
}

/// Twin of the ADI step: x sweep, y sweep, the step's end per cell, then slope corners. Returns
/// whether any value came out non-finite.
pub fn step(level: &Level, out: &mut Out) -> bool {
    let (dx, east) = sweep(level, 0, &vec![0.0f32; level.eta.len()]);
    let (dy, north) = sweep(level, 1, &dx);
    if level.faces.is_empty() {
        end_step(level, out, &dx, &dy)
    } else {
        let mut bad = false;
        for c in 0..dx.len() {
            bad |= finish_cell(level, out, c, c, dx[c] + dy[c], [east[c], north[c]]);
        }
        bad | slope_corners(level, out)
    }
}

/// Twin of `finish_cell` where the level keeps the faces' memory: cell c's compensated update and
/// the dry-cell rule, then its east and north faces' new memory from what they moved this step
/// (`fluxes`, the sweeps' `hi_flux`). The clamp record books the kept change the faces do not
/// hold (`Memory::held`), as the explicit step's does. `at`: the cell's index in `out` (c in
/// the whole level's, its column in a row's).
pub(crate) fn finish_cell(level: &Level, out: &mut Out, c: usize, at: usize, delta: f32, fluxes: [f32; 2]) -> bool {
    let p = level.params;
    let (nx, ny) = (p.nx, p.ny);
    let (i, j) = ((c % nx as usize) as u32, (c / nx as usize) as u32);
    let (memory, agreed) = level.agreed(i, j).expect("the level keeps the faces' memory");
    let keep = level.keep_at(c);
    let keep_w = level.keep_at(level.cell(if i == 0 { nx - 1 } else { i - 1 }, j));
    let keep_s = level.keep_at(level.cell(i, if j == 0 { ny - 1 } else { j - 1 }));
    let e = level.cell((i + 1) % nx, j);
    let n = level.cell(i, (j + 1) % ny);
    // A face's new memory: its kept memory at its `share`, plus what it moved this step.
    let remembered = |f: usize, q: f32, other: usize, north: bool, flux: f32| {
        remember_shared(
            agreed.real[f],
            agreed.open[f],
            keep,
            q,
            share(level, c, other, north),
            flux,
        )
    };
    let east = remembered(1, memory.east, e, false, fluxes[0]);
    let north = remembered(3, memory.north, n, true, fluxes[1]);
    let dropped = agreed.kept - memory.held(agreed.open, [keep_w, keep, keep_s]);
    let (s, residual) = two_sum(level.eta[c], delta + out.carry[at]);
    out.store_faces(at, level.ground[c], (s, delta, residual), [east, north], dropped)
}

/// The step's end from the two sweeps' δx and δy: each cell's compensated update and the dry-cell
/// rule, then the slope corners.
pub(crate) fn end_step(level: &Level, out: &mut Out, dx: &[f32], dy: &[f32]) -> bool {
    let mut bad = false;
    for c in 0..dx.len() {
        let delta = dx[c] + dy[c];
        let (s, residual) = two_sum(level.eta[c], delta + out.carry[c]);
        bad |= out.store(c, level.ground[c], s, delta, residual);
    }
    bad | slope_corners(level, out)
}

/// The step's last part: where both sides meeting at a corner are ghost-slope, the corner takes
/// the mean of its two new neighbours along the sides, at sea (not `on_bank`).
pub(crate) fn slope_corners(level: &Level, out: &mut Out) -> bool {
    let p = level.params;
    let (nx, ny) = (p.nx, p.ny);
    let mut bad = false;
    for t in 0..4u32 {
        let (east, north) = (t & 1 != 0, t & 2 != 0);
        let x_slope = (if east { p.bc_east } else { p.bc_west }) == GHOST_SLOPE;
        let y_slope = (if north { p.bc_north } else { p.bc_south }) == GHOST_SLOPE;
        let i = if east { nx - 1 } else { 0 };
        let j = if north { ny - 1 } else { 0 };
        let c = level.cell(i, j);
        if x_slope && y_slope && !crate::models::height_field::cpu::explicit::on_bank(level.ground[c]) {
            let x_nbr = level.cell(if east { nx - 2 } else { 1 }, j);
            let y_nbr = level.cell(i, if north { ny - 2 } else { 1 });
            let eta_new = 0.5 * (out.eta[x_nbr] + out.eta[y_nbr]);
            bad |= out.store(c, level.ground[c], eta_new, eta_new - level.eta[c], 0.0);
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::thomas;

    #[test]
    fn thomas_solves_a_small_system_exactly() {
        // x = (1, 2, 3): rows (a, c) with b = 1.
        let rows = [
            [0.0, -0.25, 1.0 - 0.5],
            [-0.25, -0.25, 2.0 - 1.0],
            [-0.25, 0.0, 3.0 - 0.5],
        ];
        let eqs: Vec<[f32; 4]> = rows.iter().map(|r| [r[0], r[1], r[2], 0.0]).collect();
        let x = thomas(&eqs);
        for (i, want) in [1.0, 2.0, 3.0].iter().enumerate() {
            assert!((x[i][0] - want).abs() < 1e-6, "x[{i}] = {}", x[i][0]);
        }
    }
}
