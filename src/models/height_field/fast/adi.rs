//! `adi.wgsl` on every core, vectorised across lines: each sweep's lines go to threads in panels
//! of [`L`] neighbouring lines, and a panel's lines are solved side by side, one lane each, so
//! every step of Thomas' recurrence is one vector operation over [`L`] lines instead of a
//! dependent chain through one.
//!
//! A panel holds its lines' fields as `[position][lane]`: the column sweep copies a cache line of
//! each row (its lines are contiguous across a row), the row sweep transposes [`L`] rows. Each
//! line's arithmetic is the twin's (`cpu::adi`), operation for operation and in the same order, so
//! the bits are the twin's whatever the thread count: the interior equations are written out
//! here, the two end equations of every line (sides, the periodic wrap) come from the twin's own
//! `row` and `equation`. The step's end (each cell's compensated update and the dry-cell rule)
//! runs on rows of the grid as the column sweep's panels come back.

// Lane loops index by lane on purpose: iterator adaptors and closures handed to std's generic
// code do not inherit the target features `multiversion` compiles these functions for, so they
// stay out of line and the lanes run one by one (measured: scalar code at a third of the speed).
#![allow(clippy::needless_range_loop)]

use crate::engine::fast::items_per_task;
use crate::models::height_field::cpu::adi::{
    face_share, finish_cell, kept_change, share, slope_corners, sweeper, Row, Sweep,
};
use crate::models::height_field::cpu::explicit::{depth, face_depth, two_sum, Level, Out};
use multiversion::multiversion;
use rayon::prelude::*;

/// Lines solved side by side: one AVX-512 register of f32, and one 64-byte cache line of a row
/// in the column sweep.
const L: usize = 16;

/// One value for each line of a panel.
type Lanes = [f32; L];

/// As `cpu::adi::step`. Returns whether any value came out non-finite.
pub fn step(level: &Level, out: &mut Out) -> bool {
    let p = level.params;
    let (nx, ny) = (p.nx as usize, p.ny as usize);
    if nx < 3 || ny < 3 {
        return crate::models::height_field::cpu::adi::step(level, out);
    }
    let faces = !level.faces.is_empty();
    // Each face's `share` (the twin's), east and north of every cell, where the level keeps the
    // faces' memory; empty otherwise.
    let shares = if faces { share_table(level) } else { Shares::default() };
    // The row sweep's kept change: keep·vel, or where the level keeps the faces' memory (a scene
    // with a shoreline) what the faces agree each cell keeps (the twin's `base_rhs`), which the
    // sweep takes as its velocity with keep 1 (exact).
    let kept: Vec<f32> = if faces {
        let mut kept = vec![0.0f32; nx * ny];
        kept.par_chunks_mut(nx)
            .with_min_len(items_per_task(nx))
            .enumerate()
            .for_each(|(j, row)| {
                for (i, v) in row.iter_mut().enumerate() {
                    let c = j * nx + i;
                    *v = match alike(level, i, j) {
                        // No face of another state and none limited: nothing moved, the twin's
                        // keep·vel.
                        Some(_) if shares.whole(c, nx) => level.params.keep * level.vel[c],
                        _ => kept_change(level, c),
                    };
                }
            });
        kept
    } else {
        Vec::new()
    };
    let (velocity, keep) = if faces {
        (&kept[..], 1.0)
    } else {
        (level.vel, level.params.keep)
    };
    // The row sweep: panels of L rows, transposed in and out. It reads no δx (`rise` and `side`
    // read it on the column sweep only).
    let (rows, _) = sweeper(level, 0, &[]);
    // δx goes back into rows; the east faces' fluxes (with the faces' memory) stay in their
    // panels, `[band][position][lane]`, as the column sweep's stay in theirs.
    let mut dx = vec![0.0f32; nx * ny];
    let east: Vec<Vec<Lanes>> = dx
        .par_chunks_mut(L * nx)
        .with_min_len(items_per_task(L * nx))
        .enumerate()
        .map(|(b, band)| {
            let (first, count) = (b * L, band.len() / nx);
            let panel = Panel::rows([level.eta, level.ground, velocity, &shares.east], nx, first, count);
            let (x, flux) = solve(&rows, first, count, &panel, keep, faces);
            for (l, row) in band.chunks_exact_mut(nx).enumerate() {
                for (i, v) in row.iter_mut().enumerate() {
                    *v = x[i][l];
                }
            }
            flux
        })
        .collect();
    // The column sweep: panels of L columns, each row's cache line copied in.
    let (columns, _) = sweeper(level, 1, &dx);
    let (dy, north): (Vec<Vec<Lanes>>, Vec<Vec<Lanes>>) = (0..nx.div_ceil(L))
        .into_par_iter()
        .with_min_len(items_per_task(L * ny))
        .map(|b| {
            let (first, count) = (b * L, L.min(nx - b * L));
            let panel = Panel::columns([level.eta, level.ground, &dx, &shares.north], nx, first, count);
            solve(&columns, first, count, &panel, keep, faces)
        })
        .unzip();
    let bad = if faces {
        end_rows_with_faces(level, out, (&dx, &dy), (&east, &north), &shares)
    } else {
        end_rows(level, out, &dx, &dy)
    };
    bad | slope_corners(level, out)
}

/// Every face's `share` (the twin's), `east` and `north` of each cell (1 at a ghost face); both
/// empty where the level keeps no memory (every share 1).
#[derive(Default)]
struct Shares {
    east: Vec<f32>,
    north: Vec<f32>,
}

impl Shares {
    /// Whether interior cell c's four faces keep their whole weight and memory.
    fn whole(&self, c: usize, nx: usize) -> bool {
        self.east[c] == 1.0 && self.north[c] == 1.0 && self.east[c - 1] == 1.0 && self.north[c - nx] == 1.0
    }
}

/// `Shares` over the whole grid, rows in parallel. Where no slope side, damping map or air
/// pressure enters `share`, every face takes `face_share` straight from the rows (the twin's
/// bits); otherwise each face takes the twin's `share`.
fn share_table(level: &Level) -> Shares {
    let p = level.params;
    let (nx, ny) = (p.nx as usize, p.ny as usize);
    let mut shares = Shares {
        east: vec![1.0; nx * ny],
        north: vec![1.0; nx * ny],
    };
    let periodic = |bc: u32| bc == crate::models::height_field::cpu::explicit::PERIODIC;
    let slope = [p.bc_west, p.bc_east, p.bc_south, p.bc_north]
        .contains(&crate::models::height_field::cpu::explicit::GHOST_SLOPE);
    let plain = !slope && p.forcing == 0;
    let (eta, ground, faces) = (level.eta, level.ground, level.faces);
    shares
        .east
        .par_chunks_mut(nx)
        .zip(shares.north.par_chunks_mut(nx))
        .with_min_len(items_per_task(nx))
        .enumerate()
        .for_each(|(j, (east, north))| {
            let row = j * nx..(j + 1) * nx;
            let up = ((j + 1) % ny) * nx..((j + 1) % ny + 1) * nx;
            let north_real = j + 1 < ny || periodic(p.bc_north);
            if !plain {
                for i in 0..nx {
                    let c = j * nx + i;
                    if i + 1 < nx || periodic(p.bc_east) {
                        east[i] = share(level, c, if i + 1 < nx { c + 1 } else { j * nx }, false);
                    }
                    if north_real {
                        north[i] = share(level, c, up.start + i, true);
                    }
                }
                return;
            }
            let (e, g, q) = (&eta[row.clone()], &ground[row], &faces[2 * j * nx..2 * (j + 1) * nx]);
            let (e_up, g_up) = (&eta[up.clone()], &ground[up]);
            let face = |o: (f32, f32), x: (f32, f32), q: f32| face_share(p.k, p.keep * q, o, x, q, None);
            for i in 0..nx - 1 {
                east[i] = face((e[i], g[i]), (e[i + 1], g[i + 1]), q[2 * i]);
            }
            if periodic(p.bc_east) {
                east[nx - 1] = face((e[nx - 1], g[nx - 1]), (e[0], g[0]), q[2 * nx - 2]);
            }
            if north_real {
                for i in 0..nx {
                    north[i] = face((e[i], g[i]), (e_up[i], g_up[i]), q[2 * i + 1]);
                }
            }
        });
    shares
}

/// Whether interior cell (i, j) and its four neighbours are all wet (Some(true)) or all dry
/// (Some(false)): then its faces are all real and all open or all closed (`open_face`), and it
/// keeps keep·vel. None at the perimeter and at a shoreline.
#[inline]
fn alike(level: &Level, i: usize, j: usize) -> Option<bool> {
    let (nx, ny) = (level.params.nx as usize, level.params.ny as usize);
    if i == 0 || j == 0 || i + 1 == nx || j + 1 == ny {
        return None;
    }
    let c = j * nx + i;
    let wet = |c: usize| level.eta[c] > level.ground[c];
    let open = wet(c);
    [c - 1, c + 1, c - nx, c + nx]
        .iter()
        .all(|&m| wet(m) == open)
        .then_some(open)
}

/// The twin's `finish_cell` for a cell whose neighbourhood is `alike`: every face open
/// (`open`) or none, so the faces hold keep·q each or nothing and remember keep·q + flux or
/// 0 + flux.
fn finish_alike(level: &Level, out: &mut Out, c: usize, at: usize, open: bool, delta: f32, fluxes: [f32; 2]) -> bool {
    let nx = level.params.nx as usize;
    let keep = level.params.keep;
    let f = level.faces;
    let part = |q: f32| if open { keep * q } else { 0.0 };
    let (east, north, west, south) = (f[2 * c], f[2 * c + 1], f[2 * (c - 1)], f[2 * (c - nx) + 1]);
    let held = ((part(east) + part(north)) - part(west)) - part(south);
    let dropped = keep * level.vel[c] - held;
    let (s, residual) = two_sum(level.eta[c], delta + out.carry[at]);
    let faces = [part(east) + fluxes[0], part(north) + fluxes[1]];
    out.store_faces(at, level.ground[c], (s, delta, residual), faces, dropped)
}

/// The step's end where the level keeps the faces' memory: the twin's `finish_cell` on rows of
/// the grid, in parallel, from δ = δx + δy and each cell's east face flux (the row panels', by
/// band of L rows) and north face flux (the column panels', by band of L columns).
fn end_rows_with_faces(
    level: &Level,
    out: &mut Out,
    (dx, dy): (&[f32], &[Vec<Lanes>]),
    (east, north): (&[Vec<Lanes>], &[Vec<Lanes>]),
    shares: &Shares,
) -> bool {
    let nx = level.params.nx as usize;
    out.rows(nx)
        .into_par_iter()
        .with_min_len(items_per_task(nx).max(8))
        .enumerate()
        .map(|(j, mut row)| {
            (0..nx).fold(false, |bad, i| {
                let c = j * nx + i;
                let (b, l) = (i / L, i % L);
                let delta = dx[c] + dy[b][j][l];
                let fluxes = [east[j / L][i][j % L], north[b][j][l]];
                bad | match alike(level, i, j) {
                    Some(open) if shares.east[c] == 1.0 && shares.north[c] == 1.0 => {
                        finish_alike(level, &mut row, c, i, open, delta, fluxes)
                    }
                    _ => finish_cell(level, &mut row, c, i, delta, fluxes),
                }
            })
        })
        .reduce(|| false, |a, b| a | b)
}

/// A panel's inputs, `[position][lane]`: the level, the ground, the row sweep's velocity (x) or
/// the column sweep's δx (y), and where the level keeps the faces' memory each position's high
/// face's `share` (empty otherwise). Lanes past the panel's lines hold zeros, flat dry ground
/// whose equations are the identity.
struct Panel {
    eta: Vec<Lanes>,
    ground: Vec<Lanes>,
    extra: Vec<Lanes>,
    share: Vec<Lanes>,
}

impl Panel {
    /// The panel of `fields` (an empty one, the shares without memory, stays empty).
    fn of(fields: [&[f32]; 4], n: usize, mut fill: impl FnMut(&[f32], &mut [Lanes])) -> Panel {
        let mut panel = Panel {
            eta: Vec::new(),
            ground: Vec::new(),
            extra: Vec::new(),
            share: Vec::new(),
        };
        let into = [&mut panel.eta, &mut panel.ground, &mut panel.extra, &mut panel.share];
        for (field, into) in fields.into_iter().zip(into) {
            if !field.is_empty() {
                *into = vec![[0.0; L]; n];
                fill(field, into);
            }
        }
        panel
    }

    /// `fields`' `count` rows from row `first`, transposed: position i of lane l is cell i of
    /// row first + l.
    fn rows(fields: [&[f32]; 4], nx: usize, first: usize, count: usize) -> Panel {
        Panel::of(fields, nx, |field, into| {
            let rows: Vec<&[f32]> = (first..first + count).map(|j| &field[j * nx..(j + 1) * nx]).collect();
            for (b, block) in into.chunks_mut(L).enumerate() {
                transpose(&rows, b * L, block);
            }
        })
    }

    /// `fields`' `count` columns from column `first`: position j of lane l is cell
    /// (first + l, j), a slice of row j.
    fn columns(fields: [&[f32]; 4], nx: usize, first: usize, count: usize) -> Panel {
        let ny = fields[0].len() / nx;
        let mut panel = Panel::of(fields, ny, |_, _| {});
        let mut into = [&mut panel.eta, &mut panel.ground, &mut panel.extra, &mut panel.share];
        // The fields row by row: a cache line of each in flight at each of the rows, which lie a
        // page apart, where hardware prefetchers do not follow.
        for j in 0..ny {
            let cells = j * nx + first..j * nx + first + count;
            for (field, into) in fields.iter().zip(into.iter_mut()).filter(|(f, _)| !f.is_empty()) {
                match <&Lanes>::try_from(&field[cells.clone()]) {
                    Ok(whole) => into[j] = *whole,
                    Err(_) => into[j][..count].copy_from_slice(&field[cells.clone()]),
                }
            }
        }
        panel
    }
}

/// Positions `i0..` of `rows` (one per lane; lanes past them stay zero) into `block`, one
/// position per entry: a tile of L × L through registers.
#[multiversion(targets = "simd")]
fn transpose(rows: &[&[f32]], i0: usize, block: &mut [Lanes]) {
    let w = block.len();
    let mut tile = [[0.0f32; L]; L];
    for (lane, row) in tile.iter_mut().zip(rows) {
        lane[..w].copy_from_slice(&row[i0..i0 + w]);
    }
    for (i, out) in block.iter_mut().enumerate() {
        let mut v = [0.0f32; L];
        for l in 0..L {
            v[l] = tile[l][i];
        }
        *out = v;
    }
}

/// A panel's equations before normalisation, `[position][lane]` (the twin's `Row`); `g` is zero
/// but at a line's two ends, which are kept apart.
struct Rows {
    a: Vec<Lanes>,
    c: Vec<Lanes>,
    r: Vec<Lanes>,
    /// The rise across each interior position's high face (the twin's `rise`), kept where the
    /// level keeps the faces' memory for their fluxes; empty otherwise.
    rise_hi: Vec<Lanes>,
    ends: [[Row; L]; 2],
}

/// The δ of the `count` lines from `first` of sweep `s`, `[position][lane]`, and with `faces`
/// each position's `hi_flux` (else empty): the twin's `solve_line` on each lane. `keep`: the row
/// sweep's factor on the panel's velocity.
fn solve(s: &Sweep, first: usize, count: usize, panel: &Panel, keep: f32, faces: bool) -> (Vec<Lanes>, Vec<Lanes>) {
    let n = s.n as usize;
    let line = |l: usize| (first + l) as u32;
    // The twin's own end equations: the sides, and the wrap of a periodic line.
    let end = |p: usize| -> [Row; L] {
        let mut rows = [Row::default(); L];
        for (l, row) in rows.iter_mut().enumerate().take(count) {
            *row = s.row(line(l), p as u32);
        }
        rows
    };
    let mut rows = Rows {
        a: vec![[0.0; L]; n],
        c: vec![[0.0; L]; n],
        r: vec![[0.0; L]; n],
        rise_hi: vec![[0.0; L]; if faces { n } else { 0 }],
        ends: [end(0), end(n - 1)],
    };
    let params = s.level.params;
    interior_rows(panel, &mut rows, params.k, (s.axis == 0).then_some(keep));
    // A periodic line's first and last equations are Sherman–Morrison's: the twin's `equation`.
    let mut ratio = [0.0f32; L];
    let mut wrapped = [[[0.0f32; 4]; L]; 2];
    if s.periodic {
        for l in 0..count {
            let (first_eq, r) = s.equation(line(l), 0);
            (wrapped[0][l], ratio[l]) = (first_eq, r.unwrap_or(0.0));
            wrapped[1][l] = s.equation(line(l), (n - 1) as u32).0;
        }
    }
    let x = thomas(&rows, s.periodic.then_some(&wrapped), &ratio);
    let flux = if faces {
        let mut flux = interior_fluxes(&rows, &x);
        // A line's two ends: the twin's own `hi_flux` (its sides, the periodic wrap).
        for q in [0, n - 1] {
            let hi = if q + 1 < n { q + 1 } else { 0 };
            for l in 0..count {
                flux[q][l] = s.hi_flux(line(l), q as u32, x[q][l], x[hi][l]);
            }
        }
        flux
    } else {
        Vec::new()
    };
    conserved(&mut rows, &x, s.periodic);
    (rows.r, flux)
}

/// The twin's `hi_flux` at every position but a line's two ends (left 0): k·w·rise + k·w·(x_hi
/// − x), with k·w the interior row's −c.
#[multiversion(targets = "simd")]
fn interior_fluxes(rows: &Rows, x: &[Lanes]) -> Vec<Lanes> {
    let n = x.len();
    let mut flux = vec![[0.0f32; L]; n];
    for q in 1..n - 1 {
        let (c, rise, x_c, x_hi) = (rows.c[q], rows.rise_hi[q], x[q], x[q + 1]);
        let mut f = [0.0f32; L];
        for l in 0..L {
            let w = -c[l];
            f[l] = w * rise[l] + w * (x_hi[l] - x_c[l]);
        }
        flux[q] = f;
    }
    flux
}

/// The twin's `row` at every position but a line's two ends: both faces are real neighbours.
///
/// (The hot loops here and below are plain `for` loops over lanes: a closure called from std's
/// generic helpers would not inherit the target features `multiversion` compiles for, and would
/// be called lane by lane.)
#[multiversion(targets = "simd")]
fn interior_rows(panel: &Panel, rows: &mut Rows, k: f32, keep: Option<f32>) {
    let n = panel.eta.len();
    let (eta, ground, extra) = (&panel.eta, &panel.ground, &panel.extra);
    let whole = [1.0f32; L];
    // Each position's high face's share, 1 where the level keeps no memory.
    let share = |q: usize| panel.share.get(q).unwrap_or(&whole);
    let (mut d_lo, mut d_c, mut d_hi) = ([0.0f32; L], [0.0f32; L], [0.0f32; L]);
    for l in 0..L {
        d_lo[l] = depth(eta[0][l], ground[0][l]);
        d_c[l] = depth(eta[1][l], ground[1][l]);
    }
    for q in 1..n - 1 {
        let (e_lo, e_c, e_hi) = (eta[q - 1], eta[q], eta[q + 1]);
        let (g_hi, x_lo, x_c, x_hi) = (ground[q + 1], extra[q - 1], extra[q], extra[q + 1]);
        let (mut rise_lo, mut rise_hi, mut base) = ([0.0f32; L], [0.0f32; L], [0.0f32; L]);
        for l in 0..L {
            d_hi[l] = depth(e_hi[l], g_hi[l]);
            rise_lo[l] = e_lo[l] - e_c[l];
            rise_hi[l] = e_hi[l] - e_c[l];
        }
        match keep {
            Some(keep) => {
                for l in 0..L {
                    base[l] = keep * x_c[l];
                }
            }
            // The column sweep's rise adds the row sweep's δx across the face.
            None => {
                for l in 0..L {
                    rise_lo[l] += x_lo[l] - x_c[l];
                    rise_hi[l] += x_hi[l] - x_c[l];
                }
            }
        }
        let (mut a, mut c, mut r) = ([0.0f32; L], [0.0f32; L], [0.0f32; L]);
        let (s_lo, s_hi) = (share(q - 1), share(q));
        for l in 0..L {
            let w_lo = k * (face_depth(e_lo[l], d_lo[l], e_c[l], d_c[l]) * s_lo[l]);
            let w_hi = k * (face_depth(e_c[l], d_c[l], e_hi[l], d_hi[l]) * s_hi[l]);
            a[l] = -w_lo;
            c[l] = -w_hi;
            r[l] = (base[l] + w_lo * rise_lo[l]) + w_hi * rise_hi[l];
        }
        (rows.a[q], rows.c[q], rows.r[q]) = (a, c, r);
        if !rows.rise_hi.is_empty() {
            rows.rise_hi[q] = rise_hi;
        }
        (d_lo, d_c) = (d_c, d_hi);
    }
    for (q, ends) in [0, n - 1].into_iter().zip(&rows.ends) {
        for (l, e) in ends.iter().enumerate() {
            (rows.a[q][l], rows.c[q][l], rows.r[q][l]) = (e.a, e.c, e.r);
        }
    }
}

/// A normalised equation per lane: a, c, r and the periodic line's second right-hand side r2.
#[derive(Clone, Copy, Default)]
struct Equation {
    a: Lanes,
    c: Lanes,
    r: Lanes,
    r2: Lanes,
}

impl Equation {
    /// The twin's `equation` away from a periodic line's ends: the row divided by its b.
    #[inline(always)]
    fn normalised(rows: &Rows, q: usize, g: &Lanes) -> Equation {
        let (a, c, r) = (&rows.a[q], &rows.c[q], &rows.r[q]);
        let mut e = Equation::default();
        for l in 0..L {
            let b = ((1.0 - a[l]) - c[l]) + g[l];
            e.a[l] = a[l] / b;
            e.c[l] = c[l] / b;
            e.r[l] = r[l] / b;
            e.r2[l] = 0.0 / b;
        }
        e
    }

    /// A line's first (`e` 0) or last (1) equation: the twin's own for a periodic line
    /// (`wrapped`), else normalised with the side's g.
    fn end(rows: &Rows, wrapped: Option<&[[[f32; 4]; L]; 2]>, e: usize) -> Equation {
        let mut eq = Equation::default();
        match wrapped {
            Some(w) => {
                for l in 0..L {
                    [eq.a[l], eq.c[l], eq.r[l], eq.r2[l]] = w[e][l];
                }
            }
            None => {
                let mut g = [0.0f32; L];
                for l in 0..L {
                    g[l] = rows.ends[e][l].g;
                }
                eq = Equation::normalised(rows, if e == 0 { 0 } else { rows.a.len() - 1 }, &g);
            }
        }
        eq
    }
}

/// The twin's `equation` and `thomas` on every lane, then the cyclic correction where `wrapped`
/// holds a periodic line's two end equations (and `ratio` its β/γ). Returns x.
#[multiversion(targets = "simd")]
fn thomas(rows: &Rows, wrapped: Option<&[[[f32; 4]; L]; 2]>, ratio: &Lanes) -> Vec<Lanes> {
    let n = rows.a.len();
    let periodic = wrapped.is_some();
    let mut c_prime = vec![[0.0f32; L]; n];
    let mut r_prime = vec![[0.0f32; L]; n];
    // The second right-hand side only a periodic line solves.
    let mut r2_prime = vec![[0.0f32; L]; if periodic { n } else { 0 }];
    let first = Equation::end(rows, wrapped, 0);
    for l in 0..L {
        c_prime[0][l] = first.c[l] / 1.0;
        r_prime[0][l] = (first.r[l] - first.a[l] * 0.0) / 1.0;
    }
    if periodic {
        for l in 0..L {
            r2_prime[0][l] = (first.r2[l] - first.a[l] * 0.0) / 1.0;
        }
    }
    let zero = [0.0f32; L];
    for q in 1..n {
        let eq = if q == n - 1 {
            Equation::end(rows, wrapped, 1)
        } else {
            Equation::normalised(rows, q, &zero)
        };
        // Whole lanes in and out of locals, so the compiler sees no aliasing between rows.
        let (c_prev, r_prev) = (c_prime[q - 1], r_prime[q - 1]);
        let (mut m, mut c, mut r) = ([0.0f32; L], [0.0f32; L], [0.0f32; L]);
        for l in 0..L {
            m[l] = 1.0 - eq.a[l] * c_prev[l];
            c[l] = eq.c[l] / m[l];
            r[l] = (eq.r[l] - eq.a[l] * r_prev[l]) / m[l];
        }
        (c_prime[q], r_prime[q]) = (c, r);
        if periodic {
            let r2_prev = r2_prime[q - 1];
            let mut r2 = [0.0f32; L];
            for l in 0..L {
                r2[l] = (eq.r2[l] - eq.a[l] * r2_prev[l]) / m[l];
            }
            r2_prime[q] = r2;
        }
    }
    // Back substitution in place: r′ becomes x (and r2′ the second solution).
    back_substitute(&mut r_prime, &c_prime);
    if periodic {
        back_substitute(&mut r2_prime, &c_prime);
        let mut factor = [0.0f32; L];
        for l in 0..L {
            let first = [r_prime[0][l], r2_prime[0][l]];
            let last = [r_prime[n - 1][l], r2_prime[n - 1][l]];
            factor[l] = crate::models::height_field::cpu::adi::cyclic_factor(ratio[l], first, last);
        }
        for (x, x2) in r_prime.iter_mut().zip(&r2_prime) {
            let mut v = *x;
            for l in 0..L {
                v[l] -= factor[l] * x2[l];
            }
            *x = v;
        }
    }
    r_prime
}

/// Thomas' back substitution on every lane, in place: x_q = r′_q − c′_q·x_(q+1).
#[inline(always)]
fn back_substitute(r_prime: &mut [Lanes], c_prime: &[Lanes]) {
    let n = r_prime.len();
    let mut next = r_prime[n - 1];
    for q in (0..n - 1).rev() {
        let (mut x, c) = (r_prime[q], c_prime[q]);
        for l in 0..L {
            x[l] -= c[l] * next[l];
        }
        r_prime[q] = x;
        next = x;
    }
}

/// The twin's `conserved` on every lane: δ rebuilt in flux form from x, written over `rows.r`.
#[multiversion(targets = "simd")]
fn conserved(rows: &mut Rows, x: &[Lanes], periodic: bool) {
    let n = x.len();
    let zero = [0.0f32; L];
    let mut g = [[0.0f32; L]; 2];
    for (e, g) in g.iter_mut().enumerate() {
        for l in 0..L {
            g[l] = rows.ends[e][l].g;
        }
    }
    for q in 0..n {
        let lo = match q {
            0 if periodic => &x[n - 1],
            0 => &zero,
            _ => &x[q - 1],
        };
        let hi = match q + 1 {
            _ if q + 1 < n => &x[q + 1],
            _ if periodic => &x[0],
            _ => &zero,
        };
        let g = match q {
            0 => &g[0],
            _ if q == n - 1 => &g[1],
            _ => &zero,
        };
        let (a, c, mut r, x) = (rows.a[q], rows.c[q], rows.r[q], x[q]);
        let (lo, hi, g) = (*lo, *hi, *g);
        for l in 0..L {
            r[l] = ((r[l] + (-a[l]) * (lo[l] - x[l])) + (-c[l]) * (hi[l] - x[l])) - g[l] * x[l];
        }
        rows.r[q] = r;
    }
}

/// The step's end on rows of the grid, in parallel: δ = δx + δy (δy from the column panels),
/// each cell's compensated update and the dry-cell rule (the twin's `end_step`).
fn end_rows(level: &Level, out: &mut Out, dx: &[f32], dy: &[Vec<Lanes>]) -> bool {
    let nx = level.params.nx as usize;
    let rows = out.rows(nx);
    rows.into_par_iter()
        .with_min_len(items_per_task(nx).max(8))
        .enumerate()
        .map(|(j, mut row)| {
            let cells = j * nx..(j + 1) * nx;
            let mut delta = dx[cells.clone()].to_vec();
            for (d, panel) in delta.chunks_mut(L).zip(dy) {
                add_lanes(d, &panel[j]);
            }
            let (eta, ground) = (&level.eta[cells.clone()], &level.ground[cells]);
            if row.clamped.is_empty() {
                end_row(&delta, eta, ground, row.eta, row.vel, row.carry)
            } else {
                (0..nx).fold(false, |bad, i| {
                    let (s, residual) = two_sum(eta[i], delta[i] + row.carry[i]);
                    bad | row.store(i, ground[i], s, delta[i], residual)
                })
            }
        })
        .reduce(|| false, |a, b| a | b)
}

/// δx + δy, in the twin's order, for the cells of one panel's lanes.
fn add_lanes(dx: &mut [f32], dy: &Lanes) {
    for (x, y) in dx.iter_mut().zip(dy) {
        *x += *y;
    }
}

/// One row's end where no clamp is recorded: `store`'s dry-cell rule as selects.
#[multiversion(targets = "simd")]
fn end_row(
    delta: &[f32],
    eta: &[f32],
    ground: &[f32],
    eta_out: &mut [f32],
    vel_out: &mut [f32],
    carry: &mut [f32],
) -> bool {
    let n = delta.len();
    let (eta, ground, eta_out, vel_out, carry) = (
        &eta[..n],
        &ground[..n],
        &mut eta_out[..n],
        &mut vel_out[..n],
        &mut carry[..n],
    );
    let mut bad = false;
    for i in 0..n {
        let (s, residual) = two_sum(eta[i], delta[i] + carry[i]);
        let dry = s <= ground[i];
        let e = if dry { ground[i] } else { s };
        let v = if dry { 0.0 } else { delta[i] };
        carry[i] = if dry { 0.0 } else { residual };
        eta_out[i] = e;
        vel_out[i] = v;
        bad |= !e.is_finite() | !v.is_finite();
    }
    bad
}
