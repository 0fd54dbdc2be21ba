//! The Navier-Stokes layer's costly passes on threads, bit for bit the reference's
//! (`cpu::navier_stokes`, `cpu::ns_surface`): momentum per layer of faces, the pressure sweeps
//! and the height field's fluxes. The cheap per-column passes (flags, the Surface cells'
//! pressures and velocities, the volume) run the twin itself.
//!
//! The pressure sweep runs by layers (`half_sweep`): every face and pressure gets exactly the
//! additions the twin's cell-by-cell loop gives it, so the order of the threads cannot change a
//! bit.

use crate::engine::fast::items_per_task;
use crate::models::navier_stokes::cpu::navier_stokes::{self as twin, divergence, ghost_share, open_at, Costly};
use crate::models::navier_stokes::cpu::ns_surface;
use crate::models::navier_stokes::forcing::Substep;
use crate::models::navier_stokes::state::{NsParams, NsState, PressureReport, Surface, FULL, SURFACE};
use rayon::prelude::*;

/// The costly passes on threads, for `cpu::navier_stokes::step_with`.
/// The fewest 3D cells for which the threaded passes pay: below it each pressure half-sweep's
/// hand-off to rayon's pool (futex wake-ups, from outside the pool even on one thread) costs more
/// than the sweep. Measured on 2 cores (40 steps, 8 layers): 32² × 8 cells 0.21 s threaded against
/// 0.14 s on the reference's own loops, 64² × 8 even (0.51 / 0.53 s), 128² × 8 1.63 / 1.78 s; the
/// 2D jet tank (1,200 cells, 18 substeps of many sweeps) 13.3 s against 1.1 s for 100 steps.
pub const FAST_FROM: usize = 32 * 1024;

pub(crate) const FAST: Costly = Costly {
    momentum,
    pressure,
    height,
};

/// `cpu::navier_stokes::momentum`, a layer of faces per task.
fn momentum(p: &NsParams, s: &mut NsState, dt: f32, forcing: &Substep) -> f32 {
    twin::momentum_with(p, s, dt, |old, u, v, w| {
        // Nested loops, not a division per face: an integer division costs more than the face.
        u.par_chunks_mut((p.nx + 1) * p.ny)
            .with_min_len(items_per_task((p.nx + 1) * p.ny))
            .enumerate()
            .for_each(|(k, layer)| {
                for (j, row) in layer.chunks_mut(p.nx + 1).enumerate() {
                    for (i, u) in row.iter_mut().enumerate() {
                        *u = old.u_face(i, j, k, forcing);
                    }
                }
            });
        v.par_chunks_mut(p.nx * (p.ny + 1))
            .with_min_len(items_per_task(p.nx * (p.ny + 1)))
            .enumerate()
            .for_each(|(k, layer)| {
                for (j, row) in layer.chunks_mut(p.nx).enumerate() {
                    for (i, v) in row.iter_mut().enumerate() {
                        *v = old.v_face(i, j, k, forcing);
                    }
                }
            });
        w.par_chunks_mut(p.nx * p.ny)
            .with_min_len(items_per_task(p.nx * p.ny))
            .enumerate()
            .for_each(|(k, layer)| {
                for (j, row) in layer.chunks_mut(p.nx).enumerate() {
                    for (i, w) in row.iter_mut().enumerate() {
                        *w = old.w(i as isize, j as isize, k as isize);
                    }
                }
            });
    })
}

/// `cpu::navier_stokes::pressure`: the largest |D| by layers on threads (a max: any order), the
/// half-sweeps by `half_sweep`.
fn pressure(p: &NsParams, s: &mut NsState, dt: f32, budget: u32, sides: &[u32; 4]) -> PressureReport {
    let beta = p.beta0 / (2.0 * dt * (2.0 / (p.dx * p.dx) + 1.0 / (p.dz * p.dz)));
    let mut report = PressureReport::default();
    for sweep in 0..=budget {
        let state = &*s;
        let worst = (0..p.nz)
            .into_par_iter()
            .with_min_len(items_per_task(p.nx * p.ny))
            .map(|k| {
                let mut worst = 0.0f32;
                for j in 0..p.ny {
                    for i in 0..p.nx {
                        if state.flag[p.cell(i, j, k)] == FULL {
                            worst = worst.max(divergence(p, state, i, j, k).abs());
                        }
                    }
                }
                worst
            })
            .reduce(|| 0.0f32, f32::max);
        report = PressureReport {
            sweeps: sweep,
            divergence: worst,
        };
        if worst < p.epsilon || sweep == budget {
            break;
        }
        for colour in 0..2 {
            half_sweep(p, s, beta, dt, colour, sides);
        }
    }
    report
}

/// One colour's eqs. 6–9, the twin's scatter by layers of cells: a Full cell of the colour in
/// layer k moves its faces in layers k (u, v, its floor) and k + 1 (its top), its pressure and
/// the Surface cell's over it. Even layers run on threads together, then odd ones: two layers a
/// round apart share no face and no pressure. No two cells of a colour share a face, so every
/// face and pressure gets the twin's additions and the threads' order changes no bit.
///
/// Long (about 90 lines) on purpose: the twin's sweep body with the threads' split around it;
/// the body must stay the twin's, in its order, for the bits to match.
fn half_sweep(p: &NsParams, s: &mut NsState, beta: f32, dt: f32, colour: usize, sides: &[u32; 4]) {
    let plane = p.nx * p.ny;
    // dt/dx·δp as the twin rounds it: the quotient once, then the product.
    let (over_x, over_z) = (dt / p.dx, dt / p.dz);
    let (ux, vx) = ((p.nx + 1) * p.ny, p.nx * (p.ny + 1));
    let NsState {
        flag,
        p: pressure,
        u,
        v,
        w,
        h,
        ground,
        ..
    } = s;
    let view = NsState {
        flag: std::mem::take(flag),
        p: Vec::new(),
        u: Vec::new(),
        v: Vec::new(),
        w: Vec::new(),
        h: std::mem::take(h),
        ground: std::mem::take(ground),
        drag: Vec::new(),
    };
    for parity in 0..2 {
        // Round `parity`: layers k = parity, parity + 2, …, each with its u and v layer, its
        // w planes k and k + 1 and its pressure layers k and k + 1.
        let skip = |len: usize| parity * len;
        let u = &mut u[skip(ux)..];
        let v = &mut v[skip(vx)..];
        let w = &mut w[skip(plane)..];
        let pr = &mut pressure[skip(plane)..];
        u.par_chunks_mut(2 * ux)
            .zip(v.par_chunks_mut(2 * vx))
            .zip(w.par_chunks_mut(2 * plane))
            .zip(pr.par_chunks_mut(2 * plane))
            .with_min_len(items_per_task(2 * plane))
            .enumerate()
            .for_each(|(m, (((u, v), w), pr))| {
                let k = parity + 2 * m;
                if k >= p.nz {
                    return;
                }
                let open = |i: usize, j: usize, di: isize, dj: isize, dk: isize| {
                    open_at(p, &view, sides, i as isize + di, j as isize + dj, k as isize + dk)
                };
                let top = w.len() > plane;
                for j in 0..p.ny {
                    for i in 0..p.nx {
                        let c = j * p.nx + i;
                        if (i + j + k) % 2 != colour || view.flag[k * plane + c] != FULL {
                            continue;
                        }
                        let (ue, uw) = (j * (p.nx + 1) + i + 1, j * (p.nx + 1) + i);
                        let (vn, vs) = ((j + 1) * p.nx + i, j * p.nx + i);
                        // The twin's `divergence`, operation for operation.
                        let d = -((u[ue] - u[uw]) / p.dx + (v[vn] - v[vs]) / p.dx + (w[plane + c] - w[c]) / p.dz);
                        let dp = beta * d;
                        let (sx, sz) = (over_x * dp, over_z * dp);
                        if open(i, j, 1, 0, 0) {
                            u[ue] += sx;
                        }
                        if open(i, j, -1, 0, 0) {
                            u[uw] -= sx;
                        }
                        if open(i, j, 0, 1, 0) {
                            v[vn] += sx;
                        }
                        if open(i, j, 0, -1, 0) {
                            v[vs] -= sx;
                        }
                        if top && open(i, j, 0, 0, 1) {
                            let surface = view.flag[(k + 1) * plane + c] == SURFACE;
                            match ghost_share(p, &view, c, k + 1).filter(|_| surface) {
                                Some(theta) => {
                                    w[plane + c] += (1.0 - theta) * sz;
                                    pr[plane + c] += theta * dp;
                                }
                                None => w[plane + c] += sz,
                            }
                        }
                        if open(i, j, 0, 0, -1) {
                            w[c] -= sz;
                        }
                        pr[c] += dp;
                    }
                }
            });
    }
    (*flag, *h, *ground) = (view.flag, view.h, view.ground);
}

/// `cpu::ns_surface::height`, its three passes over threads.
fn height(p: &NsParams, s: &NsState, f: &mut Surface, dt: f32) {
    let run = dt * f.coarsen as f32 / p.dx;
    let lattice = (f.nx + 1) * (f.ny + 1);
    let faces: Vec<[f32; 4]> = (0..lattice)
        .into_par_iter()
        .with_min_len(items_per_task(1))
        .map(|e| ns_surface::lattice_flux(p, s, f, e))
        .collect();
    let scale: Vec<f32> = (0..f.nx * f.ny)
        .into_par_iter()
        .with_min_len(items_per_task(1))
        .map(|c| ns_surface::share(f, &faces, run, c))
        .collect();
    let news: Vec<f32> = (0..f.nx * f.ny)
        .into_par_iter()
        .with_min_len(items_per_task(1))
        .map(|c| ns_surface::moved(f, &faces, &scale, run, c))
        .collect();
    f.h = news;
}
