//! `explicit.wgsl`'s step on every core. Rows go to threads; the first and last row and the two
//! end cells of every row run the twin's own `wave` (side modes, wrap-around); the rest of a row
//! runs a straight loop over the row and its two neighbours, the same f32 operations as the twin's
//! interior, with the dry-cell rule as selects. The perimeter overrides (`edges`) run after, in
//! the twin's code.

use crate::engine::fast::items_per_task;
use crate::models::height_field::cpu::explicit::{
    depth, edges, face, held_back, limit, open_face, remember, two_sum, Level, NewMemory, Out,
};
use rayon::prelude::*;

/// One explicit substep into `out`, as `cpu::explicit::step`. Returns whether any value came out
/// non-finite.
pub fn step(level: &Level, out: &mut Out, with_edges: bool) -> bool {
    let nx = level.params.nx as usize;
    let held = held_back_everywhere(level);
    let rows = out.rows(nx);
    let bad = rows
        .into_par_iter()
        .with_min_len(items_per_task(nx).max(4))
        .enumerate()
        .map(|(j, mut row_out)| row(level, &held, &mut row_out, j as u32))
        .reduce(|| false, |a, b| a | b);
    if with_edges {
        bad | edges(level, out)
    } else {
        bad
    }
}

/// The twin's `held_back_at` for every cell's (east, north) face, where the level keeps the
/// faces' memory (empty where it keeps none): each face once, on every core, so that a cell's
/// row loop sees whether a face beyond its neighbours hands it momentum (`hand_on`) without
/// computing four more faces itself, and the cells that run the twin's `wave` (sides,
/// shorelines) take their `Memory::beyond` from it rather than four `held_back_at`s each (a
/// 960 × 2 beach strip, every cell on a side, 39 s against 41 s, 2026-12-06). Interior faces
/// take the twin's operations inline (no side, forcing or wrap to look for), the rest the twin's
/// own function.
fn held_back_everywhere(level: &Level) -> Vec<[f32; 2]> {
    let p = level.params;
    if level.faces.is_empty() {
        return Vec::new();
    }
    let (nx, ny) = (p.nx as usize, p.ny as usize);
    let (eta, ground, faces, keep, k) = (level.eta, level.ground, level.faces, p.keep, p.k);
    let plain = p.forcing == 0;
    (0..ny)
        .into_par_iter()
        .with_min_len(items_per_task(nx))
        .flat_map_iter(|j| {
            (0..nx).map(move |i| {
                let c = j * nx + i;
                let held = |b: usize, north: bool| -> f32 {
                    let q = faces[2 * c + north as usize];
                    let (d_a, d_b) = (depth(eta[c], ground[c]), depth(eta[b], ground[b]));
                    let open = open_face(true, eta[c] > ground[c], eta[b] > ground[b], q);
                    let remembered = remember(true, open, keep, q, k * face(eta[c], d_a, eta[b], d_b, 0.0));
                    held_back(
                        remembered,
                        limit(remembered, d_a, d_b),
                        remember(true, open, keep, q, 0.0),
                    )
                };
                [
                    if plain && i + 1 < nx {
                        held(c + 1, false)
                    } else {
                        level.held_back_at(i as u32, j as u32, false)
                    },
                    if plain && j + 1 < ny {
                        held(c + nx, true)
                    } else {
                        level.held_back_at(i as u32, j as u32, true)
                    },
                ]
            })
        })
        .collect()
}

/// What the faces beyond cell (i, j)'s neighbours hand on (the twin's `Level::beyond`), from
/// `held_back_everywhere`'s table. Its wrap-arounds are the twin's `(a + 2n − 2) % n` and
/// `(a + 1) % n`, with the division only where a cell is that near the start (a division a cell
/// cost 10 % of a half-dry 512² step).
#[inline(always)]
fn beyond(level: &Level, held: &[[f32; 2]], i: usize, j: usize) -> [f32; 4] {
    let (nx, ny) = (level.params.nx as usize, level.params.ny as usize);
    let back_two = |a: usize, n: usize| if a >= 2 { a - 2 } else { (a + 2 * n - 2) % n };
    let next = |a: usize, n: usize| if a + 1 < n { a + 1 } else { 0 };
    let (w2, e1) = (back_two(i, nx), next(i, nx));
    let (s2, n1) = (back_two(j, ny), next(j, ny));
    [
        held[j * nx + w2][0],
        held[j * nx + e1][0],
        held[s2 * nx + i][1],
        held[n1 * nx + i][1],
    ]
}

/// Row `j` into `out` (the row's own slices); `held` is `held_back_everywhere`'s.
fn row(level: &Level, held: &[[f32; 2]], out: &mut Out, j: u32) -> bool {
    let (nx, ny) = (level.params.nx, level.params.ny);
    let twin = |out: &mut Out, i: u32| -> bool {
        let c = level.cell(i, j);
        let (_, v, memory) = if held.is_empty() {
            level.wave(i, j)
        } else {
            level.wave_with(i, j, || beyond(level, held, i as usize, j as usize))
        };
        let (s, residual) = two_sum(level.eta[c], v + out.carry[i as usize]);
        out.store_step(i as usize, level.ground[c], (s, v, residual), memory)
    };
    if j == 0 || j == ny - 1 || nx < 3 {
        return (0..nx).fold(false, |bad, i| bad | twin(out, i));
    }
    let ends = twin(out, 0) | twin(out, nx - 1);
    if !level.faces.is_empty() {
        return ends | interior_with_faces(level, held, out, j as usize, twin);
    }
    ends | interior(level, out, j as usize)
}

/// Cells 1..nx−1 of an interior row where the level keeps the faces' memory (a shoreline), the
/// clamp record booked by the twin's own `store_step`. A cell that is wet with its four
/// neighbours has every face open (`open_face`), one that is dry with them none; either keeps
/// keep·vel, so its change is the plain interior's, and each face's new memory is the twin's
/// `remember`: keep·q + k·term open, 0 + k·term closed. A cell at a shoreline, one whose faces
/// the twin's `limit` would cap, or one a face beyond its neighbours hands momentum on to, runs
/// the twin's `wave`.
fn interior_with_faces(
    level: &Level,
    held: &[[f32; 2]],
    out: &mut Out,
    j: usize,
    twin: impl Fn(&mut Out, u32) -> bool,
) -> bool {
    let p = level.params;
    let nx = p.nx as usize;
    let c0 = j * nx;
    let (eta, ground, faces) = (level.eta, level.ground, level.faces);
    let (keep, k) = (p.keep, p.k);
    let wet = |c: usize| eta[c] > ground[c];
    let d = |m: usize| depth(eta[m], ground[m]);
    let mut bad = false;
    for i in 1..nx - 1 {
        let c = c0 + i;
        let (w, e, s, n) = (c - 1, c + 1, c - nx, c + nx);
        let open = wet(c);
        if [w, e, s, n].iter().any(|&m| wet(m) != open) {
            bad |= twin(out, i as u32);
            continue;
        }
        let kept = |q: f32| if open { keep * q } else { 0.0 };
        let (eta_c, b_c) = (eta[c], ground[c]);
        let d_c = depth(eta_c, b_c);
        let term = |m: usize| face(eta_c, d_c, eta[m], depth(eta[m], ground[m]), 0.0);
        let (west, east, south, north) = (term(w), term(e), term(s), term(n));
        let v = keep * level.vel[c] + k * (((west + east) + south) + north);
        let east_new = kept(faces[2 * c]) + k * east;
        let north_new = kept(faces[2 * c + 1]) + k * north;
        let west_new = kept(faces[2 * w]) + k * -west;
        let south_new = kept(faces[2 * s + 1]) + k * -south;
        // A face moving more than its source's share (a thin sheet): the twin limits it.
        // So is one a face beyond its neighbours hands momentum on to (`hand_on`).
        if limit(west_new, d(w), d_c) != west_new
            || limit(east_new, d_c, d(e)) != east_new
            || limit(south_new, d(s), d_c) != south_new
            || limit(north_new, d_c, d(n)) != north_new
            || beyond(level, held, i, j) != [0.0; 4]
        {
            bad |= twin(out, i as u32);
            continue;
        }
        let memory = NewMemory {
            faces: [east_new, north_new],
            into: ((east_new + north_new) - west_new) - south_new,
        };
        let (sum, residual) = two_sum(eta_c, v + out.carry[i]);
        bad |= out.store_step(i, b_c, (sum, v, residual), memory);
    }
    bad
}

/// Cells 1..nx−1 of an interior row: every face is a real neighbour.
fn interior(level: &Level, out: &mut Out, j: usize) -> bool {
    let p = level.params;
    let nx = p.nx as usize;
    let c0 = j * nx;
    let (es, ec, en) = (
        &level.eta[c0 - nx..c0],
        &level.eta[c0..c0 + nx],
        &level.eta[c0 + nx..c0 + 2 * nx],
    );
    let (gs, gc, gn) = (
        &level.ground[c0 - nx..c0],
        &level.ground[c0..c0 + nx],
        &level.ground[c0 + nx..c0 + 2 * nx],
    );
    let vel_in = &level.vel[c0..c0 + nx];
    let (keep, k) = (p.keep, p.k);
    // The twin's `wave` for a cell whose four neighbours are all real (INTERIOR).
    let wave = |i: usize| -> f32 {
        let (eta_c, b_c) = (ec[i], gc[i]);
        let d_c = depth(eta_c, b_c);
        let west = face(eta_c, d_c, ec[i - 1], depth(ec[i - 1], gc[i - 1]), 0.0);
        let east = face(eta_c, d_c, ec[i + 1], depth(ec[i + 1], gc[i + 1]), 0.0);
        let south = face(eta_c, d_c, es[i], depth(es[i], gs[i]), 0.0);
        let north = face(eta_c, d_c, en[i], depth(en[i], gn[i]), 0.0);
        keep * vel_in[i] + k * (((west + east) + south) + north)
    };
    if !out.clamped.is_empty() {
        // Under CORRECT_CLAMPS the dry-cell rule also books what it did: the twin's `store`.
        let mut bad = false;
        for i in 1..nx - 1 {
            let v = wave(i);
            let (s, residual) = two_sum(ec[i], v + out.carry[i]);
            bad |= out.store(i, gc[i], s, v, residual);
        }
        return bad;
    }
    let (eta_out, vel_out, carry) = (&mut out.eta[..nx], &mut out.vel[..nx], &mut out.carry[..nx]);
    let mut bad = false;
    for i in 1..nx - 1 {
        let v = wave(i);
        let (s, residual) = two_sum(ec[i], v + carry[i]);
        // The twin's `store` without clamp bookkeeping, as selects.
        let dry = s <= gc[i];
        let eta = if dry { gc[i] } else { s };
        let vel = if dry { 0.0 } else { v };
        carry[i] = if dry { 0.0 } else { residual };
        eta_out[i] = eta;
        vel_out[i] = vel;
        bad |= !eta.is_finite() | !vel.is_finite();
    }
    bad
}
