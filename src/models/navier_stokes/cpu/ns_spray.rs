//! Twin of `wgsl/ns_spray.wgsl`: the Navier-Stokes layer's spray and foam, pass for pass with the
//! same f32 and integer operations per slot and per cell (the WGSL explains the model). The GPU's
//! atomics are integer sums, so loops in index order give the same results.

use crate::models::navier_stokes::spray::{
    NsSprayParams, FULL_UNITS, SLOTS, T_ENDED, T_FOAM, T_LEFT, T_MADE, T_REFUSED, T_SPLIT, T_SPRAY,
};
use crate::models::navier_stokes::state::{NsParams, NsState, Surface};
use crate::models::pipes::cpu::spray::{hash, uniform01};
use crate::models::pipes::spray::Particle;
use crate::wgsl::ns_spray::SPLIT_KICK;

/// The spray's state: the twin of its GPU buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct NsSprayState {
    /// `SLOTS` particle slots per height-field cell.
    pub drops: Vec<Particle>,
    /// Units landed per height-field cell this step.
    pub landed: Vec<u32>,
    /// The units in the air (ns_surface's `volume[IN_FLIGHT]`).
    pub in_flight: u32,
    /// This chunk's counters (`T_*`).
    pub tally: [u32; 8],
}

impl NsSprayState {
    /// Every slot free.
    pub fn new(p: &NsSprayParams) -> NsSprayState {
        NsSprayState {
            drops: vec![Particle::default(); p.slots()],
            landed: vec![0; p.cells as usize],
            in_flight: 0,
            tally: [0; 8],
        }
    }

    /// The slots `drops` (a checkpoint's), the units in the air summed from them.
    pub fn load(&mut self, drops: &[Particle]) {
        self.drops = drops.to_vec();
        self.in_flight = drops.iter().map(|p| p.units).sum();
    }
}

fn random(p: &NsSprayParams, step: u32, index: u32, purpose: u32) -> f32 {
    uniform01(hash(
        p.seed ^ hash(step ^ hash(index.wrapping_mul(8).wrapping_add(purpose))),
    ))
}

fn is_free(d: &Particle) -> bool {
    d.units == 0 && d.age <= 0.0
}

fn cell_at(p: &NsSprayParams, x: f32, y: f32) -> usize {
    let i = (x / p.dx).floor().clamp(0.0, (p.fnx - 1) as f32) as usize;
    let j = (y / p.dx).floor().clamp(0.0, (p.fny - 1) as f32) as usize;
    j * p.fnx as usize + i
}

/// `flow_at`: the 3D grid's velocity at height z over height-field cell c.
fn flow_at(p: &NsSprayParams, ns: &NsParams, grid: &NsState, coarsen: usize, c: usize, z: f32) -> [f32; 3] {
    let fnx = p.fnx as usize;
    let i = ((c % fnx) / coarsen).min(ns.nx - 1);
    let j = ((c / fnx) / coarsen).min(ns.ny - 1);
    let up = (z - ns.z0) / ns.dz;
    let k = up.floor().clamp(0.0, (ns.nz - 1) as f32) as usize;
    let t = (up - k as f32).clamp(0.0, 1.0);
    let u = 0.5 * (grid.u[ns.uf(i, j, k)] + grid.u[ns.uf(i + 1, j, k)]);
    let v = 0.5 * (grid.v[ns.vf(i, j, k)] + grid.v[ns.vf(i, j + 1, k)]);
    let low = grid.w[ns.wf(i, j, k)];
    let w = low + t * (grid.w[ns.wf(i, j, k + 1)] - low);
    [u, v, w]
}

/// `bounce`: (x, v, whether it left through a side that lets it).
fn bounce(p: &NsSprayParams, x: f32, v: f32, size: f32, leave_low: u32, leave_high: u32) -> (f32, f32, bool) {
    if x < 0.0 {
        if leave_low != 0 {
            return (x, v, true);
        }
        return ((-x).min(size), -v * p.restitution, false);
    }
    if x >= size {
        if leave_high != 0 {
            return (x, v, true);
        }
        return ((size - (x - size)).max(0.0), -v * p.restitution, false);
    }
    (x, v, false)
}

/// What one step's passes read of the layer.
pub struct Layer<'a> {
    pub ns: &'a NsParams,
    pub grid: &'a NsState,
    pub coarsen: usize,
}

/// One step of the spray after the step's substeps: `step` is the step's number (1-based).
pub fn step(p: &NsSprayParams, layer: &Layer, s: &mut NsSprayState, f: &mut Surface, step: u32) {
    for i in 0..p.slots() {
        let d = s.drops[i];
        if d.units > 0 {
            s.drops[i] = flight(p, s, f, i, d, step);
        } else if d.age > 0.0 {
            s.drops[i] = drift(p, layer, f, d);
        }
    }
    for c in 0..p.cells as usize {
        birth(p, layer, s, f, c, step);
    }
}

/// Twin of `totals`: the spray and foam now, into the tally; then the report.
pub fn totals(s: &mut NsSprayState) -> crate::models::pipes::spray::SprayReport {
    s.tally[T_SPRAY as usize] += s.drops.iter().filter(|d| d.units > 0).count() as u32;
    s.tally[T_FOAM as usize] += s.drops.iter().filter(|d| d.units == 0 && d.age > 0.0).count() as u32;
    let report = crate::models::navier_stokes::spray::report(&s.tally, s.in_flight);
    s.tally = [0; 8];
    report
}

fn drift(p: &NsSprayParams, layer: &Layer, f: &Surface, foam: Particle) -> Particle {
    let mut d = foam;
    let c = cell_at(p, d.pos[0], d.pos[1]);
    if f.h[c] <= f.ground[c] {
        return Particle::default();
    }
    let flow = flow_at(p, layer.ns, layer.grid, layer.coarsen, c, f.h[c]);
    let size = [p.fnx as f32 * p.dx, p.fny as f32 * p.dx];
    let x = d.pos[0] + flow[0] * p.dt;
    let y = d.pos[1] + flow[1] * p.dt;
    let past_x = (x < 0.0 && p.leave_west != 0) || (x >= size[0] && p.leave_east != 0);
    let past_y = (y < 0.0 && p.leave_south != 0) || (y >= size[1] && p.leave_north != 0);
    d.age -= p.dt;
    if past_x || past_y || d.age <= 0.0 {
        return Particle::default();
    }
    d.pos[0] = x.clamp(0.0, size[0]);
    d.pos[1] = y.clamp(0.0, size[1]);
    d.pos[2] = f.h[cell_at(p, d.pos[0], d.pos[1])];
    d
}

fn flight(p: &NsSprayParams, s: &mut NsSprayState, f: &Surface, i: usize, spray: Particle, step: u32) -> Particle {
    let mut d = spray;
    let t = p.dt;
    d.age += t;
    // Gravity exactly over the step (the WGSL adds (0, 0, fall) as one vector).
    let fall = [0.0, 0.0, -0.5 * p.g * t * t];
    for ((x, v), drop) in d.pos.iter_mut().zip(d.vel).zip(fall) {
        *x += v * t + drop;
    }
    d.vel[2] -= p.g * t;
    let wind = [p.wind_x, p.wind_y, 0.0];
    for (v, w) in d.vel.iter_mut().zip(wind) {
        *v = w + (*v - w) * p.drag;
    }
    let size = [p.fnx as f32 * p.dx, p.fny as f32 * p.dx];
    let bx = bounce(p, d.pos[0], d.vel[0], size[0], p.leave_west, p.leave_east);
    let by = bounce(p, d.pos[1], d.vel[1], size[1], p.leave_south, p.leave_north);
    if bx.2 || by.2 {
        s.tally[T_LEFT as usize] += d.units;
        s.in_flight -= d.units;
        s.tally[T_ENDED as usize] += 1;
        return Particle::default();
    }
    (d.pos[0], d.vel[0]) = (bx.0, bx.1);
    (d.pos[1], d.vel[1]) = (by.0, by.1);
    let c = cell_at(p, d.pos[0], d.pos[1]);
    let (b, h) = (f.ground[c], f.h[c]);
    let lands = d.pos[2] <= b || (d.pos[2] <= h && d.vel[2] < 0.0) || d.age >= p.lifetime;
    if !lands {
        return d;
    }
    s.landed[c] += d.units;
    s.in_flight -= d.units;
    s.tally[T_ENDED as usize] += 1;
    if p.foam_life <= 0.0 || h <= b {
        return Particle::default();
    }
    let life = p.foam_life * (d.units as f32 / FULL_UNITS as f32) * (0.5 + random(p, step, i as u32, 3));
    Particle {
        pos: [d.pos[0], d.pos[1], h],
        units: 0,
        vel: [0.0; 3],
        age: life,
    }
}

fn free_slot(s: &NsSprayState, c: usize) -> Option<usize> {
    let first = c * SLOTS as usize;
    (first..first + SLOTS as usize).find(|&at| is_free(&s.drops[at]))
}

fn birth(p: &NsSprayParams, layer: &Layer, s: &mut NsSprayState, f: &mut Surface, c: usize, step: u32) {
    let slots = SLOTS as usize;
    let first = c * slots;
    let mut h = f.h[c];
    let b = f.ground[c];
    let came = std::mem::take(&mut s.landed[c]);
    if came > 0 {
        h += came as f32 * p.unit_h;
    }
    let splitting: Vec<usize> = (0..slots)
        .filter(|&k| s.drops[first + k].units >= 2 && random(p, step, (first + k) as u32, 0) < p.split)
        .collect();
    for k in splitting {
        let Some(to) = free_slot(s, c) else {
            break;
        };
        let d = s.drops[first + k];
        let angle = 6.2831855 * random(p, step, (first + k) as u32, 1);
        let speed = (d.vel[0] * d.vel[0] + d.vel[1] * d.vel[1] + d.vel[2] * d.vel[2]).sqrt();
        let kick = [SPLIT_KICK * speed * angle.cos(), SPLIT_KICK * speed * angle.sin(), 0.0];
        let half = d.units / 2;
        let with = |sign: f32, units: u32| Particle {
            pos: d.pos,
            units,
            vel: [
                d.vel[0] + sign * kick[0],
                d.vel[1] + sign * kick[1],
                d.vel[2] + sign * kick[2],
            ],
            age: d.age,
        };
        s.drops[first + k] = with(-1.0, d.units - half);
        s.drops[to] = with(1.0, half);
        s.tally[T_SPLIT as usize] += 1;
    }
    if h > b {
        let flow = flow_at(p, layer.ns, layer.grid, layer.coarsen, c, h);
        let excess = flow[2] - p.rise;
        if excess > 0.0 {
            let want = (excess * p.per_rise + random(p, step, c as u32, 2)).floor() as u32;
            let most = (0.5 * (h - b) / (FULL_UNITS as f32 * p.unit_h)).floor() as u32;
            let n = want.min(most);
            // Room: the free slots, then the foam's.
            let room = (0..slots).filter(|&k| s.drops[first + k].units == 0).count() as u32;
            let made = n.min(room);
            h -= (made * FULL_UNITS) as f32 * p.unit_h;
            let (x, y) = ((c % p.fnx as usize) as f32, (c / p.fnx as usize) as f32);
            let mut m = 0;
            for (round, k) in (0..2).flat_map(|round| (0..slots).map(move |k| (round, k))) {
                if m == made {
                    break;
                }
                let at = first + k;
                let d = s.drops[at];
                if d.units == 0 && is_free(&d) == (round == 0) {
                    s.drops[at] = Particle {
                        pos: [
                            (x + random(p, step, at as u32, 4)) * p.dx,
                            (y + random(p, step, at as u32, 5)) * p.dx,
                            h,
                        ],
                        units: FULL_UNITS,
                        vel: flow,
                        age: 0.0,
                    };
                    m += 1;
                }
            }
            s.in_flight += made * FULL_UNITS;
            s.tally[T_MADE as usize] += made;
            s.tally[T_REFUSED as usize] += n - made;
        }
    }
    f.h[c] = h;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::navier_stokes::state::NsParams;

    /// Still water 0.2 m deep over a 16 × 16 grid of 5 cm cells (the 3D grid at rest: no flow),
    /// spray thrown at 0.5 m/s; `p` to adjust.
    fn still(adjust: impl Fn(&mut NsSprayParams)) -> (NsSprayParams, NsParams, NsState, Surface) {
        let ns = NsParams::water([16, 16, 4], 0.05, 0.1, -0.2);
        let ground = vec![-0.2f32; 256];
        let grid = NsState::at_rest(&ns, &ground, &vec![0.0; 256]);
        let f = Surface {
            nx: 16,
            ny: 16,
            coarsen: 1,
            h: vec![0.0; 256],
            ground,
            held: Vec::new(),
            air: Vec::new(),
        };
        let mut p = NsSprayParams {
            fnx: 16,
            fny: 16,
            cells: 256,
            dx: 0.05,
            dt: 0.01,
            g: 9.81,
            rise: 0.5,
            unit_h: 1e-5,
            per_rise: 1.0,
            lifetime: 10.0,
            foam_life: 2.0,
            split: 0.0,
            drag: 1.0,
            restitution: 0.5,
            ..NsSprayParams::default()
        };
        adjust(&mut p);
        (p, ns, grid, f)
    }

    fn one(pos: [f32; 3], vel: [f32; 3]) -> Particle {
        Particle {
            pos,
            units: FULL_UNITS,
            vel,
            age: 0.0,
        }
    }

    #[test]
    fn a_particle_flies_the_parabola_and_lands_where_it_meets_the_water_as_foam() {
        // Thrown from (0.1, 0.4, 0) at (2, 0, 1.5) m/s with no drag: gravity exactly over each
        // step, so after n steps z = 1.5·t − g·t²/2 to float32 rounding (1e-5 m over ~30 steps),
        // and it comes down on the water at t = 2·1.5/g ≈ 0.306 s, x ≈ 0.71 m, giving back its
        // units and leaving foam there.
        let (p, ns, grid, mut f) = still(|_| {});
        let layer = Layer {
            ns: &ns,
            grid: &grid,
            coarsen: 1,
        };
        let mut s = NsSprayState::new(&p);
        s.drops[0] = one([0.1, 0.4, 0.0], [2.0, 0.0, 1.5]);
        s.in_flight = FULL_UNITS;
        let before: f64 = f.h.iter().map(|&h| h as f64).sum();
        let mut n = 0;
        while s.drops[0].units > 0 {
            n += 1;
            step(&p, &layer, &mut s, &mut f, n);
            let d = s.drops[0];
            let t = n as f32 * p.dt;
            if d.units > 0 {
                let z = 1.5 * t - 0.5 * p.g * t * t;
                assert!(
                    (d.pos[2] - z).abs() < 1e-5 && (d.pos[0] - (0.1 + 2.0 * t)).abs() < 1e-5,
                    "{d:?} at {t}"
                );
            }
        }
        let t = n as f32 * p.dt;
        assert!((t - 2.0 * 1.5 / p.g).abs() <= p.dt, "landed at {t} s");
        let foam = s.drops[0];
        assert!(foam.units == 0 && foam.age > 0.0, "{foam:?}");
        assert!((foam.pos[0] - (0.1 + 2.0 * t)).abs() < 1e-4, "{foam:?}");
        let after: f64 = f.h.iter().map(|&h| h as f64).sum();
        assert!(
            (after - before - FULL_UNITS as f64 * p.unit_h as f64).abs() < 1e-9,
            "the water did not come back"
        );
        assert_eq!(s.in_flight, 0);
    }

    #[test]
    fn the_air_pulls_a_particle_to_the_wind_and_a_split_keeps_its_water_and_momentum() {
        // drag = e^(−k·dt) per step: after m steps the speed relative to the wind is e^(−k·m·dt)
        // of what it was, whatever the wind.
        let k = 2.0f32;
        let (p, ns, grid, mut f) = still(|p| {
            p.drag = (-k * p.dt).exp();
            p.wind_x = 3.0;
            p.g = 0.0;
            p.split = 0.0;
        });
        let layer = Layer {
            ns: &ns,
            grid: &grid,
            coarsen: 1,
        };
        let mut s = NsSprayState::new(&p);
        s.drops[0] = one([0.02, 0.4, 0.5], [0.0, 1.0, 0.0]);
        s.in_flight = FULL_UNITS;
        for n in 1..=20 {
            step(&p, &layer, &mut s, &mut f, n);
        }
        let d = s.drops[0];
        let keep = (-k * 20.0 * p.dt).exp();
        assert!(
            (d.vel[0] - 3.0 * (1.0 - keep)).abs() < 1e-5 && (d.vel[1] - keep).abs() < 1e-5,
            "{d:?}"
        );
        // Splits: every particle of a cell splits each step while it can: halves that keep the
        // units (16 → 8 + 8 → …) and the momentum (equal and opposite kicks).
        let (p, ns, grid, mut f) = still(|p| {
            p.split = 1.0;
            p.g = 0.0;
        });
        let layer = Layer {
            ns: &ns,
            grid: &grid,
            coarsen: 1,
        };
        let mut s = NsSprayState::new(&p);
        s.drops[0] = one([0.02, 0.02, 0.5], [1.0, 0.0, 0.0]);
        s.in_flight = FULL_UNITS;
        step(&p, &layer, &mut s, &mut f, 1);
        let cell: Vec<Particle> = s.drops[..SLOTS as usize]
            .iter()
            .copied()
            .filter(|d| d.units > 0)
            .collect();
        assert_eq!(cell.len(), 2, "{cell:?}");
        assert_eq!(cell.iter().map(|d| d.units).sum::<u32>(), FULL_UNITS);
        let momentum = |a: usize| cell.iter().map(|d| d.units as f32 * d.vel[a]).sum::<f32>();
        assert!((momentum(0) - FULL_UNITS as f32).abs() < 1e-5 && momentum(1).abs() < 1e-5);
        for n in 2..10 {
            step(&p, &layer, &mut s, &mut f, n);
        }
        let units: Vec<u32> = s.drops[..SLOTS as usize].iter().map(|d| d.units).collect();
        assert_eq!(units.iter().sum::<u32>(), FULL_UNITS, "{units:?}");
        assert!(units.iter().all(|&u| u == 2), "eight slots, two units each: {units:?}");
    }
}
