//! Twin of `wgsl/pipes.wgsl`: the pipes model's `flow_step`, `apply` and `surface`, the same f32
//! and integer operations in the same order per column (the WGSL explains the scheme). Each
//! column's work reads its neighbours and writes only its own cells and pipes, so the fast backend
//! runs the same functions over the columns in parallel and gets the same bits.
//!
//! Layout: the GPU keeps each field layer-major (`a·columns + c`, coalesced across a warp); here
//! a column's cells and pipes are contiguous (`c·layers + a`, `c·pipes + slot`) so that threads
//! take whole columns. `PipeState::to_gpu_layout` converts.

use crate::engine::fast::items_per_task;
use crate::models::pipes::columns::{PipeParams, NO_HOLD, SKY};
use crate::models::pipes::state::PipeState;
use crate::models::pipes::stencil::{ghost_geometry, ghost_inner, inside, neighbour, slot, unit, Far};
use crate::wgsl::pipes::{DIAGONAL_SHARE, LIMIT_MARGIN, MOST_UNITS, WEIR_SHARE};
use crate::wgsl::sides::{ABSORB, GHOST_MEAN, GHOST_SLOPE};
use rayon::prelude::*;

/// A cell's head in units (pipes.wgsl `head`).
pub fn head(p: &PipeParams, g: [i32; 2], w: u32) -> i32 {
    let cap = g[1].wrapping_sub(g[0]);
    if (w as i32) <= cap {
        g[0].wrapping_add(w as i32)
    } else {
        g[1].wrapping_add((w as i32).wrapping_sub(cap) << p.slot_shift)
    }
}

fn ghost_head(p: &PipeParams, lowest: [i32; 2]) -> i32 {
    p.still.max(lowest[0])
}

/// Twin of `lowest_head`: the head of column c's lowest cell (the one on its ground).
fn lowest_head(p: &PipeParams, s: &Shared, c: usize) -> i32 {
    let at = c * p.layers as usize;
    head(p, s.geometry[at], s.water[at])
}

/// Twin of `ghost_level`: the head of the ghost direction k from column (i, j) reaches through a
/// side of code `side` (pipes.wgsl explains each side's).
fn ghost_level(p: &PipeParams, s: &Shared, side: u32, (i, j, k): (u32, u32, usize), lowest: [i32; 2]) -> i32 {
    let bank = lowest[0] > p.still;
    let level = match side {
        GHOST_MEAN if !bank => s.sea,
        GHOST_SLOPE => {
            let edge = lowest_head(p, s, (j * p.nx + i) as usize);
            let level = edge
                .wrapping_mul(2)
                .wrapping_sub(lowest_head(p, s, ghost_inner(p, i, j, k)));
            if bank {
                level.min(edge)
            } else {
                level
            }
        }
        _ => p.still,
    };
    level.max(lowest[0])
}

/// Twin of `sea_sums` and `sea_level`: the sea's mean surface (units) that ghost-mean sides stand
/// their ghosts at, from the wet lowest cells whose floor lies at or below the still level, each
/// weighted by its water; the still level where there is none. The sums are exact (u64, wrapping
/// as the shader's pairs of words), so the columns' order does not matter.
pub fn sea_level(p: &PipeParams, s: &PipeState) -> i32 {
    let l = p.layers as usize;
    let mut sums = [0u64; 3];
    for (g, &w) in s.geometry.iter().zip(&s.water).step_by(l) {
        if g[0] == SKY || g[0] > p.still {
            continue;
        }
        let e = head(p, *g, w).wrapping_sub(p.still);
        sums[0] = sums[0].wrapping_add(w as u64);
        sums[1] = sums[1].wrapping_add(e.max(0) as u64 * w as u64);
        sums[2] = sums[2].wrapping_add((e.max(0) as i64 - e as i64) as u64 * w as u64);
    }
    if sums[0] == 0 {
        return p.still;
    }
    let mean = (wide(sums[1]) - wide(sums[2])) / wide(sums[0]);
    p.still.wrapping_add(mean.round_ties_even() as i32)
}

/// Twin of `wide`: a 64-bit sum as f32, from its four 16-bit pieces (each exact), high to low.
fn wide(x: u64) -> f32 {
    let piece = |shift: u32| ((x >> shift) & 0xffff) as f32;
    piece(48) * 281474976710656.0 + piece(32) * 4294967296.0 + piece(16) * 65536.0 + piece(0)
}

/// Twin of `radiated`: the velocity of a pipe through an absorbing side (Flather's radiation
/// condition), sqrt(g/d)·(η − still) with |η − still| ≤ d, along the pipe's share of the side's
/// normal.
fn radiated(p: &PipeParams, k: usize, lowest: [i32; 2], ha: i32) -> f32 {
    let d = ha.wrapping_sub(lowest[0]) as f32 * p.quantum;
    if d <= 0.0 {
        return 0.0;
    }
    let e = ha.wrapping_sub(ghost_head(p, lowest)) as f32 * p.quantum;
    let u = e.clamp(-d, d) * (p.gravity / d).sqrt();
    if k >= 4 {
        u * DIAGONAL_SHARE
    } else {
        u
    }
}

fn dt_l(p: &PipeParams, k: usize) -> f32 {
    if k >= 4 {
        p.dt_l_diagonal
    } else {
        p.dt_l_axial
    }
}

fn tentative(p: &PipeParams, v: f32, wet: i32, k: usize) -> u32 {
    let m = if k >= 4 { p.move_diagonal } else { p.move_axial };
    (m * v * wet as f32 + 0.5).min(MOST_UNITS) as u32
}

fn dot(v: [f32; 2]) -> f32 {
    v[0] * v[0] + v[1] * v[1]
}

/// One end of a pipe: its geometry, head, the pressure on it (units of head), velocity and the
/// air's head on it (m).
#[derive(Clone, Copy)]
struct End {
    g: [i32; 2],
    h: i32,
    p: i32,
    v: [f32; 2],
    air: f32,
}

/// The external pressure on a cell (pipes.wgsl `pressure`): the spray's impacts on a top cell.
fn pressure(g: [i32; 2], feed: [i32; 4]) -> i32 {
    if g[1] == SKY {
        feed[2]
    } else {
        0
    }
}

/// Twin of `air_on`: the air's head on a cell, m: its column's on a top cell (the one open to the
/// sky), 0 under a solid or without patches.
fn air_on(p: &PipeParams, g: [i32; 2], column_forcing: &[f32], c: usize) -> f32 {
    if p.air == 0 || g[1] != SKY {
        return 0.0;
    }
    column_forcing[c]
}

/// Twin of `manning_weight`: the Manning weight g·n²·dt of a pipe between columns `a` and `b`:
/// the scene's, or under `[friction] map` g·dt times the mean of their n² (the same for both
/// copies of the pipe).
pub fn manning_weight(p: &PipeParams, forcing: &[f32], a: usize, b: usize) -> f32 {
    if p.friction_map == 0 {
        return p.manning;
    }
    let n = p.columns as usize;
    p.g_dt * (0.5 * (forcing[n + a] + forcing[n + b]))
}

/// Twin of `lost`: the share of its velocity a column's pipes lose per substep to the damping
/// (`physics.damping` and its map), kept in its feed's fourth word.
pub fn lost(feed: [i32; 4]) -> f32 {
    f32::from_bits(feed[3] as u32)
}

/// The velocity a pipe between two columns keeps per substep beside the seed's friction: 1 −
/// the mean of their losses, the same for both copies of the pipe (1 exactly without damping).
pub fn kept(lost_a: f32, lost_b: f32) -> f32 {
    1.0 - 0.5 * (lost_a + lost_b)
}

fn pipe_velocity(p: &PipeParams, old: f32, [keep, weight]: [f32; 2], k: usize, direct: bool, a: End, b: End) -> f32 {
    let sill = a.g[0].max(b.g[0]);
    let top = a.g[1].min(b.g[1]);
    let mut push = p.g_quantum * a.h.wrapping_add(a.p).wrapping_sub(b.h.wrapping_add(b.p)) as f32
        + p.dynamic * (dot(a.v) - dot(b.v));
    if p.air != 0 {
        push += p.gravity * (a.air - b.air);
    }
    let mut v = (p.friction * keep) * old + dt_l(p, k) * push;
    let wet = (if v > 0.0 { a.h } else { b.h }).min(top) - sill;
    if wet > 0 && weight > 0.0 {
        v = manning(p, weight, v, flow_speed(a.v, b.v), wet);
    }
    v = overfall(p, v, k, direct, a, b, wet);
    if wet > 0 && top > sill {
        v
    } else {
        0.0
    }
}

/// Twin of `overfall`: a pipe over a free overfall (the giver's floor above the receiver's by
/// more than dx, the receiver's water at or below it) carries at most critical flow
/// (`critical`), or the share of it the spray leaves where the spray breaks the lip (`piped`).
/// Heights subtract wrapping, as the WGSL's i32 does.
fn overfall(p: &PipeParams, v: f32, k: usize, direct: bool, a: End, b: End, wet: i32) -> f32 {
    if v > 0.0 && a.g[0].wrapping_sub(b.g[0]) > p.lip && b.h <= a.g[0] {
        return v.min(critical(p, k, wet) * piped(p, k, direct, a.g, b.g, b.h, wet));
    }
    if v < 0.0 && b.g[0].wrapping_sub(a.g[0]) > p.lip && a.h <= b.g[0] {
        return v.max(-(critical(p, k, wet) * piped(p, k, direct, b.g, a.g, a.h, wet)));
    }
    v
}

/// Twin of `piped`: the share of its critical flow a pipe over a lip carries: 1, but for an axial
/// pipe between two top cells over a lip the spray breaks, what the spray's most units a face a
/// step leave of it, 1 − most/law (0 where they carry it all).
fn piped(p: &PipeParams, k: usize, direct: bool, give: [i32; 2], take: [i32; 2], h_take: i32, wet: i32) -> f32 {
    let breaks = p.breaking >= 0.0
        && k < 4
        && direct
        && give[1] == SKY
        && take[1] == SKY
        && give[0].wrapping_sub(h_take) as f32 > p.breaking * wet as f32;
    if !breaks {
        return 1.0;
    }
    let d = wet as f32 * p.quantum;
    let law = p.spray_law * d * d.sqrt();
    if law <= p.spray_most {
        return 0.0;
    }
    1.0 - p.spray_most / law
}

/// Twin of `critical`: the most a pipe carries over a lip `wet` units below the giver's head,
/// (2/3)^(3/2)·sqrt(g·d) (sqrt(g·d) with the dynamic head), along the pipe its share of it.
fn critical(p: &PipeParams, k: usize, wet: i32) -> f32 {
    let share = if p.dynamic > 0.0 { 1.0 } else { WEIR_SHARE };
    let c = share * (p.gravity * (wet as f32 * p.quantum)).sqrt();
    if k >= 4 {
        c * DIAGONAL_SHARE
    } else {
        c
    }
}

/// Twin of `flow_speed`: the water's speed at a pipe, the mean of its two cells' speeds.
fn flow_speed(a: [f32; 2], b: [f32; 2]) -> f32 {
    0.5 * (dot(a).sqrt() + dot(b).sqrt())
}

/// Twin of `manning`: Manning's friction of weight g·n²·dt on a pipe's velocity `v` at the
/// water's `speed` (`flow_speed`) over `wet` units of wetted height, semi-implicit.
pub fn manning(p: &PipeParams, weight: f32, v: f32, speed: f32, wet: i32) -> f32 {
    let r = wet as f32 * p.quantum;
    v / (1.0 + weight * speed / (r * r.powf(1.0 / 3.0)))
}

fn wet_height(v: f32, a: End, b: End) -> i32 {
    (if v > 0.0 { a.h } else { b.h }).min(a.g[1].min(b.g[1])) - a.g[0].max(b.g[0])
}

/// A pipe's far end: a cell's geometry, head and velocity, or the ghost's, which takes `own`'s
/// velocity and air (no push across the side); None past the last used layer.
/// `at` is the pipe's column (i, j) and direction k.
fn far_end(
    p: &PipeParams,
    s: &Shared,
    far: Far,
    (b, at): (usize, (u32, u32, usize)),
    lowest: [i32; 2],
    own: End,
) -> Option<End> {
    let l = p.layers as usize;
    match far {
        Far::Ghost(side) => (b == 0).then(|| End {
            g: ghost_geometry(lowest),
            h: ghost_level(p, s, side, at, lowest),
            p: 0,
            v: own.v,
            air: own.air,
        }),
        Far::Cell(q, _) => {
            let g = s.geometry[q * l + b];
            (g[0] != SKY).then(|| End {
                g,
                h: head(p, g, s.water[q * l + b]),
                p: pressure(g, s.feed[q]),
                v: s.vel[q * l + b],
                air: air_on(p, g, s.column_forcing, q),
            })
        }
        Far::Nothing => None,
    }
}

/// What `flow_step` reads of every column.
struct Shared<'a> {
    geometry: &'a [[i32; 2]],
    water: &'a [u32],
    vel: &'a [[f32; 2]],
    feed: &'a [[i32; 4]],
    column_forcing: &'a [f32],
    /// The sea's mean surface ghost-mean sides read (`sea_level`; the still level without one).
    sea: i32,
}

/// `flow_step` for column `c`: its pipes' velocities (`flow`, its run of pipes), what it gives
/// through each (`given`), and each of its cells' limiter share (`scale`, per layer).
fn flow_column(p: &PipeParams, s: &Shared, c: usize, flow: &mut [f32], given: &mut [u32], scale: &mut [f32]) {
    let l = p.layers as usize;
    let (i, j) = ((c % p.nx as usize) as u32, (c / p.nx as usize) as u32);
    let lowest = s.geometry[c * l];
    for (a, share_out) in scale.iter_mut().enumerate() {
        let ga = s.geometry[c * l + a];
        if ga[0] == SKY {
            break;
        }
        let wa = s.water[c * l + a];
        let end_a = End {
            g: ga,
            h: head(p, ga, wa),
            p: pressure(ga, s.feed[c]),
            v: s.vel[c * l + a],
            air: air_on(p, ga, s.column_forcing, c),
        };
        let mut sum = 0.0f32;
        let mut exact = 0u32;
        let lost_a = lost(s.feed[c]);
        for k in 0..8 {
            let far = neighbour(p, i, j, k);
            if far == Far::Nothing {
                continue;
            }
            // A ghost's far column is the column itself.
            let q = if let Far::Cell(q, _) = far { q } else { c };
            let direct = matches!(far, Far::Cell(..)) && inside(p, i, j, k);
            let friction = [kept(lost_a, lost(s.feed[q])), manning_weight(p, s.column_forcing, c, q)];
            for b in 0..l {
                let Some(end_b) = far_end(p, s, far, (b, (i, j, k)), lowest, end_a) else {
                    break;
                };
                if ga[1].min(end_b.g[1]) <= ga[0].max(end_b.g[0]) {
                    continue;
                }
                let at = slot(p, k, a, b);
                let v = if far == Far::Ghost(ABSORB) {
                    radiated(p, k, lowest, end_a.h)
                } else {
                    pipe_velocity(p, flow[at], friction, k, direct, end_a, end_b)
                };
                flow[at] = v;
                let mut t = 0u32;
                if v > 0.0 {
                    t = tentative(p, v, wet_height(v, end_a, end_b), k).min(wa);
                    sum += t as f32;
                    exact = exact.saturating_add(t);
                } else if v < 0.0 && matches!(far, Far::Ghost(_)) {
                    // What the ghost gives (pipes.wgsl says why here).
                    t = tentative(p, -v, wet_height(v, end_a, end_b), k);
                }
                given[at] = t;
            }
        }
        let mut share = 1.0f32;
        if exact > wa {
            share = wa as f32 / sum * LIMIT_MARGIN;
            for k in 0..8 {
                for b in 0..l {
                    let at = slot(p, k, a, b);
                    // Only what the cell gives: a ghost's gift to it stays whole.
                    if flow[at] > 0.0 {
                        given[at] = (given[at] as f32 * share) as u32;
                    }
                }
            }
        }
        *share_out = share;
    }
}

/// What `apply` reads of every column.
struct Gathered<'a> {
    geometry: &'a [[i32; 2]],
    given: &'a [u32],
    scale: &'a [f32],
    feed: &'a [[i32; 4]],
}

/// `apply` for column `c`: its cells' new water (`water`, per layer) and velocities (`vel`), its
/// pipes slowed by a limited giver's share (`flow`), its sources; returns the water it made
/// (sources, drains, open sides).
///
/// Long (about 100 lines) on purpose: it is `apply` in pipes.wgsl line for line, so that a
/// reader checks the twin against the shader in one reading; split, the two would part.
fn apply_column(
    p: &PipeParams,
    s: &Gathered,
    c: usize,
    water: &mut [u32],
    vel: &mut [[f32; 2]],
    flow: &mut [f32],
) -> i64 {
    let l = p.layers as usize;
    let pipes = 8 * l * l;
    let (i, j) = ((c % p.nx as usize) as u32, (c / p.nx as usize) as u32);
    let own_given = &s.given[c * pipes..(c + 1) * pipes];
    let mut made = 0i32;
    for a in 0..l {
        let ga = s.geometry[c * l + a];
        if ga[0] == SKY {
            break;
        }
        let w0 = water[a];
        let s_own = s.scale[c * l + a];
        let mut out = 0u32;
        let mut inn = 0u32;
        let mut v = [0.0f32; 2];
        for k in 0..8 {
            let far = neighbour(p, i, j, k);
            if far == Far::Nothing {
                continue;
            }
            for b in 0..l {
                let at = slot(p, k, a, b);
                let mut u = flow[at];
                match far {
                    Far::Ghost(_) => {
                        if b > 0 {
                            break;
                        }
                        // `given` holds what the ghost gave where the pipe flows in.
                        if u < 0.0 {
                            inn = inn.wrapping_add(own_given[at]);
                            made = made.wrapping_add(own_given[at] as i32);
                        } else {
                            out = out.wrapping_add(own_given[at]);
                            made = made.wrapping_sub(own_given[at] as i32);
                        }
                        if u > 0.0 && s_own < 1.0 {
                            u *= s_own;
                            flow[at] = u;
                        }
                    }
                    Far::Cell(q, back) => {
                        if s.geometry[q * l + b][0] == SKY {
                            break;
                        }
                        out = out.wrapping_add(own_given[at]);
                        inn = inn.wrapping_add(s.given[q * pipes + slot(p, back, b, a)]);
                        let share = if u > 0.0 { s_own } else { s.scale[q * l + b] };
                        if u != 0.0 && share < 1.0 {
                            u *= share;
                            flow[at] = u;
                        }
                    }
                    Far::Nothing => unreachable!("skipped above"),
                }
                let e = unit(k);
                v = [v[0] + e[0] * u, v[1] + e[1] * u];
            }
        }
        let mut w = w0.wrapping_sub(out).wrapping_add(inn);
        // Sources feed the top cell (the one open to the sky).
        if ga[1] == SKY {
            let [rate, hold, _, _] = s.feed[c];
            if hold != NO_HOLD {
                let want = (hold - ga[0]).max(0) as u32;
                made = made.wrapping_add((want as i32).wrapping_sub(w as i32));
                w = want;
            } else if rate > 0 {
                w = w.wrapping_add(rate as u32);
                made = made.wrapping_add(rate);
            } else if rate < 0 {
                let take = rate.unsigned_abs().min(w);
                w -= take;
                made = made.wrapping_sub(take as i32);
            }
        }
        water[a] = w;
        vel[a] = [0.25 * v[0], 0.25 * v[1]];
    }
    made as i64
}

/// One column's slices of the arrays `flow_step` writes: pipes' velocities, units given, shares.
type FlowRun<'a> = ((&'a mut [f32], &'a mut [u32]), &'a mut [f32]);
/// One column's slices of the arrays `apply` writes: water, velocities, pipes, exchange.
type ApplyRun<'a> = (((&'a mut [u32], &'a mut [[f32; 2]]), &'a mut [f32]), &'a mut i64);

/// `flow_step` over every column; `parallel` spreads the columns over rayon's pool (the same
/// bits: a column's work reads the others and writes only itself).
pub fn flow_step(p: &PipeParams, s: &mut PipeState, parallel: bool) {
    let l = p.layers as usize;
    let pipes = 8 * l * l;
    let sea_sides = [p.bc_west, p.bc_east, p.bc_south, p.bc_north].contains(&GHOST_MEAN);
    let shared = Shared {
        geometry: &s.geometry,
        water: &s.water,
        vel: &s.vel,
        feed: &s.feed,
        column_forcing: &s.column_forcing,
        sea: if sea_sides { sea_level(p, s) } else { p.still },
    };
    let flow_work = |(c, ((flow, given), scale)): (usize, FlowRun)| flow_column(p, &shared, c, flow, given, scale);
    let columns = s
        .flow
        .chunks_mut(pipes)
        .zip(s.given.chunks_mut(pipes))
        .zip(s.scale.chunks_mut(l));
    if parallel {
        s.flow
            .par_chunks_mut(pipes)
            .zip(s.given.par_chunks_mut(pipes))
            .zip(s.scale.par_chunks_mut(l))
            .with_min_len(items_per_task(l))
            .enumerate()
            .for_each(flow_work);
    } else {
        columns.enumerate().for_each(flow_work);
    }
}

/// `apply` over every column (in parallel as `flow_step`).
pub fn apply(p: &PipeParams, s: &mut PipeState, parallel: bool) {
    let l = p.layers as usize;
    let pipes = 8 * l * l;
    let gathered = Gathered {
        geometry: &s.geometry,
        given: &s.given,
        scale: &s.scale,
        feed: &s.feed,
    };
    let apply_work = |(c, (((water, vel), flow), exchange)): (usize, ApplyRun)| {
        *exchange += apply_column(p, &gathered, c, water, vel, flow);
    };
    if parallel {
        s.water
            .par_chunks_mut(l)
            .zip(s.vel.par_chunks_mut(l))
            .zip(s.flow.par_chunks_mut(pipes))
            .zip(s.exchange.par_iter_mut())
            .with_min_len(items_per_task(l))
            .enumerate()
            .for_each(apply_work);
    } else {
        s.water
            .chunks_mut(l)
            .zip(s.vel.chunks_mut(l))
            .zip(s.flow.chunks_mut(pipes))
            .zip(s.exchange.iter_mut())
            .enumerate()
            .for_each(apply_work);
    }
}

/// The twin of `totals`: (water in units, exchange in units, deepest cell's water in units,
/// pipes and velocities that are not finite).
pub fn totals(s: &PipeState) -> (u64, i64, u32, u32) {
    let water = s.water.iter().map(|&w| w as u64).sum();
    let exchange = s.exchange.iter().sum();
    let mut deepest = 0u32;
    for (g, &w) in s.geometry.iter().zip(&s.water) {
        if g[0] != SKY {
            deepest = deepest.max(w.min(g[1].wrapping_sub(g[0]) as u32));
        }
    }
    let bad = s.flow.iter().filter(|f| !f.is_finite()).count() as u32;
    (water, exchange, deepest, bad)
}
