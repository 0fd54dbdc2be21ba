//! Twin of `wgsl/spray.wgsl`: the spray's passes in the same order with the same f32 and integer
//! operations per particle and per column (the WGSL explains the model). The GPU's atomics are
//! integer sums, so a loop in index order gives the same result; its three scan passes are one
//! exclusive prefix sum here. The cells are read in `PipeState`'s column-major layout.

use crate::models::pipes::spray::{Particle, SprayParams, SprayReport, MOST_PER_FACE};
use crate::models::pipes::state::PipeState;
use crate::wgsl::columns::SKY;
use crate::wgsl::sides::{PERIODIC, REFLECT};
use crate::wgsl::spray::NUDGE;

/// The spray's state: the twin of its GPU buffers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SprayState {
    /// The particles in flight, in buffer order.
    pub particles: Vec<Particle>,
    /// Survivor flags, then each column's new particles; offsets after the scan.
    pub counts: Vec<u32>,
    /// Per column: the units each axial face sends this step.
    pub plan: Vec<[u32; 4]>,
    /// Units landed per cell (column-major), impact per column, units that left per column.
    pub landed: Vec<u32>,
    pub impact: Vec<u32>,
    pub left: Vec<u32>,
    /// This chunk's made, ended and refused particles.
    pub tally: [u64; 3],
}

impl SprayState {
    pub fn new(p: &SprayParams) -> SprayState {
        let n = p.columns as usize;
        SprayState {
            particles: Vec::new(),
            counts: vec![0; p.scan_len()],
            plan: vec![[0; 4]; n],
            landed: vec![0; n * p.layers as usize],
            impact: vec![0; n],
            left: vec![0; n],
            tally: [0; 3],
        }
    }

    /// The particles now and what they did since the last call (the GPU's `totals`).
    pub fn report(&mut self) -> SprayReport {
        let [made, ended, refused] = std::mem::take(&mut self.tally);
        SprayReport {
            count: self.particles.len() as u32,
            units: self.particles.iter().map(|p| p.units as u64).sum(),
            made,
            ended,
            refused,
        }
    }
}

/// One step of the spray after the step's pipe substeps: `step` is the step's number (1-based).
pub fn step(p: &SprayParams, s: &mut SprayState, pipes: &mut PipeState, step: u32) {
    fly(p, s, pipes);
    count(p, s, pipes);
    let old = s.particles.len() as u32;
    let (survivors, total) = scan(p, s);
    let now = total.min(p.capacity);
    let next = compact(s, survivors);
    let next = emit(p, s, pipes, step, next);
    settle(p, s, pipes);
    s.particles = next;
    s.tally[0] += (now - survivors) as u64;
    s.tally[1] += (old - survivors) as u64;
    s.tally[2] += (total - now) as u64;
}

/// Twin of hash.wgsl `hash`.
pub(crate) fn hash(x: u32) -> u32 {
    let s = x.wrapping_mul(747796405).wrapping_add(2891336453);
    let w = ((s >> ((s >> 28) + 4)) ^ s).wrapping_mul(277803737);
    (w >> 22) ^ w
}

/// Twin of hash.wgsl `uniform01`.
pub(crate) fn uniform01(h: u32) -> f32 {
    (h >> 8) as f32 * 5.9604645e-8
}

const OFFSETS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

fn top_units(g: [i32; 2], w: u32) -> i32 {
    g[0] + (w as i32).min(g[1] - g[0])
}

/// Cells of column c: (geometry, water) of layer a.
fn cell(p: &SprayParams, s: &PipeState, c: usize, a: usize) -> ([i32; 2], u32) {
    let at = c * p.layers as usize + a;
    (s.geometry[at], s.water[at])
}

/// Twin of `top_layer`.
fn top_layer(p: &SprayParams, s: &PipeState, c: usize) -> usize {
    let l = p.layers as usize;
    crate::models::pipes::state::top_cell(&s.geometry[c * l..(c + 1) * l])
}

fn across(p: &SprayParams, i: u32, j: u32, k: usize) -> Option<usize> {
    let (ox, oy) = OFFSETS[k];
    let (x, y) = (i as i32 + ox, j as i32 + oy);
    if x < 0 || y < 0 || x >= p.nx as i32 || y >= p.ny as i32 {
        return None;
    }
    Some(y as usize * p.nx as usize + x as usize)
}

fn column_top(p: &SprayParams, s: &PipeState, c: usize) -> i32 {
    let (g, w) = cell(p, s, c, top_layer(p, s, c));
    top_units(g, w)
}

/// spray.wgsl `crest_of`: the crest water leaves column c over through face k, and whether it
/// is a free overfall, or None.
fn crest_of(p: &SprayParams, s: &PipeState, c: usize, k: usize, floor: i32, top: i32) -> Option<(i32, bool)> {
    let n = p.nx as usize;
    let b = across(p, (c % n) as u32, (c / n) as u32, k)?;
    if top <= floor {
        return None;
    }
    let (gb, wb) = cell(p, s, b, top_layer(p, s, b));
    let top_b = top_units(gb, wb);
    let depth = (top - floor) as f32;
    if top_b < floor {
        return ((floor - top_b) as f32 > p.breaking * depth).then_some((floor, floor - gb[0] > p.lip));
    }
    let over = top - top_b;
    let wave = top_b > gb[0] && over > p.least && over as f32 > p.breaking * depth;
    wave.then_some((top_b, false))
}

/// spray.wgsl `face_units`: the seed's weir over a wave, the axial pipe's share of critical flow
/// over a free overfall.
fn face_units(p: &SprayParams, s: &PipeState, c: usize, k: usize, floor: i32, top: i32, left: u32) -> u32 {
    let Some((crest, free)) = crest_of(p, s, c, k, floor, top) else {
        return 0;
    };
    let mut h = (top - crest) as f32 * p.quantum;
    if free {
        // The explicit midpoint rule on the lip's outflow (spray.wgsl says why).
        h = (h - 0.5 * (p.overfall * h * h.sqrt()) * p.quantum).max(0.0);
    }
    let law = if free { p.overfall } else { p.weir };
    let want = (law * h * h.sqrt()).min((MOST_PER_FACE * p.per_particle) as f32);
    (want as u32).min(left)
}

/// `count`: each column's spray this step, as units per face and a particle count.
pub fn count(p: &SprayParams, s: &mut SprayState, pipes: &PipeState) {
    for c in 0..p.columns as usize {
        let (g, w) = cell(p, pipes, c, top_layer(p, pipes, c));
        let top = top_units(g, w);
        let mut left = w;
        let mut units = [0u32; 4];
        let mut n = 0;
        for (k, u) in units.iter_mut().enumerate() {
            *u = face_units(p, pipes, c, k, g[0], top, left);
            left -= *u;
            n += u.div_ceil(p.per_particle);
        }
        s.plan[c] = units;
        s.counts[p.base as usize + c] = n;
    }
}

/// The three scan passes: counts → exclusive offsets in place; returns (survivors, all counts).
pub fn scan(p: &SprayParams, s: &mut SprayState) -> (u32, u32) {
    let live = s.particles.len();
    let mut running = 0u32;
    let mut survivors = 0;
    for (e, v) in s.counts.iter_mut().enumerate() {
        if e == p.base as usize {
            survivors = running;
        }
        let stale = (live..p.base as usize).contains(&e) || e >= (p.base + p.columns) as usize;
        let counted = if stale { 0 } else { *v };
        *v = running;
        running += counted;
    }
    (survivors, running)
}

/// `compact`: the survivors, in order.
fn compact(s: &SprayState, survivors: u32) -> Vec<Particle> {
    let mut next = Vec::with_capacity(survivors as usize);
    for (i, &q) in s.particles.iter().enumerate() {
        if s.counts[i + 1] != s.counts[i] {
            next.push(q);
        }
    }
    next
}

/// `emit`: each column's new particles after the survivors while they fit; `plan` becomes the
/// units that went.
fn emit(p: &SprayParams, s: &mut SprayState, pipes: &PipeState, step: u32, mut next: Vec<Particle>) -> Vec<Particle> {
    let nx = p.nx as usize;
    for c in 0..p.columns as usize {
        let units = s.plan[c];
        if units == [0; 4] {
            continue;
        }
        let (i, j) = ((c % nx) as u32, (c / nx) as u32);
        let a = top_layer(p, pipes, c);
        let (g, w) = cell(p, pipes, c, a);
        let top = top_units(g, w);
        let key = hash(p.seed ^ hash(step ^ hash(c as u32)));
        let mut mean = [0.0f32; 2];
        for (ox, oy) in crate::models::pipes::stencil::OFFSETS {
            let (x, y) = (i as i32 + ox, j as i32 + oy);
            if x >= 0 && y >= 0 && x < p.nx as i32 && y < p.ny as i32 {
                let q = y as usize * nx + x as usize;
                let v = pipes.vel[q * p.layers as usize + top_layer(p, pipes, q)];
                mean = [mean[0] + v[0], mean[1] + v[1]];
            }
        }
        let own = pipes.vel[c * p.layers as usize + a];
        mean = [mean[0] + own[0], mean[1] + own[1]];
        let mut fitted = [0u32; 4];
        let mut at = s.counts[p.base as usize + c];
        let mut m_all = 0u32;
        for (k, &u) in units.iter().enumerate() {
            if u == 0 {
                continue;
            }
            let (crest, free) = crest_of(p, pipes, c, k, g[0], top).expect("a face that sends spray has a crest");
            let (ox, oy) = OFFSETS[k];
            let normal = [ox as f32, oy as f32];
            let h = (top - crest) as f32 * p.quantum;
            let speed = if free {
                (0.6666667 * p.gravity * h).sqrt()
            } else {
                0.6666667 * (2.0 * p.gravity * h).sqrt()
            };
            let mut dir = normal;
            if mean[0] * normal[0] + mean[1] * normal[1] > 0.0 {
                let len = (mean[0] * mean[0] + mean[1] * mean[1]).sqrt();
                dir = [mean[0] / len, mean[1] / len];
            }
            let k_behind = (k + 2) & 3;
            let fall = match across(p, i, j, k_behind) {
                Some(q) => ((column_top(p, pipes, q) - top) as f32 * p.quantum).max(0.0),
                None => 0.0,
            };
            let vz = -(2.0 * p.gravity * fall).sqrt();
            let n = u.div_ceil(p.per_particle);
            let centre = [
                (i as f32 + 0.5 + normal[0] * (0.5 + NUDGE)) * p.dx,
                (j as f32 + 0.5 + normal[1] * (0.5 + NUDGE)) * p.dx,
            ];
            let along = [-normal[1], normal[0]];
            for m in 0..n {
                if at >= p.capacity {
                    break;
                }
                let r = hash(key ^ hash(m_all));
                let sx = uniform01(r);
                let t = uniform01(hash(r));
                let off = (sx - 0.5) * p.dx;
                let mine = p.per_particle.min(u - m * p.per_particle);
                next.push(Particle {
                    pos: [
                        centre[0] + along[0] * off,
                        centre[1] + along[1] * off,
                        (crest as f32 + t * (top - crest) as f32) * p.quantum,
                    ],
                    units: mine,
                    vel: [dir[0] * speed, dir[1] * speed, vz],
                    age: 0.0,
                });
                fitted[k] += mine;
                at += 1;
                m_all += 1;
            }
        }
        s.plan[c] = fitted;
    }
    next
}

/// What height z is in column c: (the open cell it is in, or the lowest open cell above it
/// inside a solid; open).
fn locate(p: &SprayParams, s: &PipeState, c: usize, z: f32) -> (usize, bool) {
    for a in 0..p.layers as usize {
        let (g, _) = cell(p, s, c, a);
        if g[0] == SKY {
            break;
        }
        if z < g[0] as f32 * p.quantum {
            return (a, false);
        }
        if g[1] == SKY || z < g[1] as f32 * p.quantum {
            return (a, true);
        }
    }
    (top_layer(p, s, c), true)
}

fn column_of(p: &SprayParams, x: f32, y: f32) -> usize {
    let i = ((x / p.dx).max(0.0) as u32).min(p.nx - 1);
    let j = ((y / p.dx).max(0.0) as u32).min(p.ny - 1);
    (j * p.nx + i) as usize
}

fn land(p: &SprayParams, s: &mut SprayState, pipes: &PipeState, c: usize, a: usize, q: &Particle, hit: bool) {
    let l = p.layers as usize;
    s.landed[c * l + a] = s.landed[c * l + a].wrapping_add(q.units);
    if hit && a == top_layer(p, pipes, c) {
        let speed = (q.vel[0] * q.vel[0] + q.vel[1] * q.vel[1] + q.vel[2] * q.vel[2]).sqrt();
        let push = q.units.wrapping_add((p.impact * speed).min(1.0e9) as u32);
        s.impact[c] = s.impact[c].wrapping_add(push);
    }
}

/// (x, v, left) past a side along one axis (spray.wgsl `side`).
fn side(p: &SprayParams, x: f32, v: f32, size: f32, low: u32, high: u32) -> (f32, f32, bool) {
    if x >= 0.0 && x < size {
        return (x, v, false);
    }
    let code = if x < 0.0 { low } else { high };
    if code == PERIODIC {
        return (if x < 0.0 { x + size } else { x - size }, v, false);
    }
    if code == REFLECT {
        return (if x < 0.0 { -x } else { 2.0 * size - x }, -p.restitution * v, false);
    }
    (x, v, true)
}

/// `fly`: every particle moved a step; survivors flagged in `counts`.
pub fn fly(p: &SprayParams, s: &mut SprayState, pipes: &PipeState) {
    for i in 0..s.particles.len() {
        let mut q = s.particles[i];
        s.counts[i] = 0;
        let c0 = column_of(p, q.pos[0], q.pos[1]);
        let v0 = q.vel;
        let mut v = [v0[0] * p.drag, v0[1] * p.drag, (v0[2] - p.gravity * p.dt) * p.drag];
        let mut x = [
            q.pos[0] + 0.5 * (v0[0] + v[0]) * p.dt,
            q.pos[1] + 0.5 * (v0[1] + v[1]) * p.dt,
            q.pos[2] + 0.5 * (v0[2] + v[2]) * p.dt,
        ];
        q.age += p.dt;
        let (xx, vx, gone_x) = side(p, x[0], v[0], p.nx as f32 * p.dx, p.bc_west, p.bc_east);
        let (xy, vy, gone_y) = side(p, x[1], v[1], p.ny as f32 * p.dx, p.bc_south, p.bc_north);
        x = [xx, xy, x[2]];
        v = [vx, vy, v[2]];
        if gone_x || gone_y {
            s.left[c0] = s.left[c0].wrapping_add(q.units);
            continue;
        }
        let mut c = column_of(p, x[0], x[1]);
        let (mut a, mut open) = locate(p, pipes, c, x[2]);
        if !open {
            let floor = cell(p, pipes, c, a).0[0] as f32 * p.quantum;
            if q.pos[2] >= floor {
                q.vel = v;
                land(p, s, pipes, c, a, &q, true);
                continue;
            }
            let nx = p.nx as usize;
            if c == c0 {
                x[2] = q.pos[2];
                v[2] *= -p.restitution;
            } else {
                if c % nx != c0 % nx {
                    v[0] *= -p.restitution;
                }
                if c / nx != c0 / nx {
                    v[1] *= -p.restitution;
                }
                x = [q.pos[0], q.pos[1], x[2]];
                c = c0;
            }
            (a, open) = locate(p, pipes, c, x[2]);
            if !open {
                q.vel = v;
                land(p, s, pipes, c, a, &q, false);
                continue;
            }
        }
        q.pos = x;
        q.vel = v;
        let (g, w) = cell(p, pipes, c, a);
        let surface = top_units(g, w) as f32 * p.quantum;
        if x[2] <= surface || q.age >= p.lifetime {
            land(p, s, pipes, c, a, &q, x[2] <= surface);
            continue;
        }
        s.particles[i] = q;
        s.counts[i] = 1;
    }
}

/// `settle`: the landed water into its cells, the sent water out of the top cells, the impact
/// pressure for the next step, and the water that left into the exchange.
pub fn settle(p: &SprayParams, s: &mut SprayState, pipes: &mut PipeState) {
    let l = p.layers as usize;
    for c in 0..p.columns as usize {
        let top = top_layer(p, pipes, c);
        for a in 0..l {
            let landed = std::mem::take(&mut s.landed[c * l + a]);
            let mut w = pipes.water[c * l + a];
            if a == top {
                let sent = s.plan[c];
                w -= sent[0] + sent[1] + sent[2] + sent[3];
            }
            pipes.water[c * l + a] = w.wrapping_add(landed);
        }
        pipes.feed[c][2] = std::mem::take(&mut s.impact[c]).min(0x3fffffff) as i32;
        pipes.exchange[c] -= std::mem::take(&mut s.left[c]) as i64;
    }
}
