//! The second-order start (issue 16): a wave released at rest begins with the per-substep change
//! a Taylor step gives, not with none.
//!
//! The solvers are two-level schemes: a step reads h^n and vel^n = h^n − h^(n−1). Starting from
//! vel⁰ = 0 says h^(−1) = h⁰, which puts the explicit solution half a step ahead with an
//! amplitude 1/cos(ω·dt/2) too large (+1.2 % at 10 cells per wavelength and Courant 0.5). At rest
//! ∂h/∂t = 0, so h^(−1) = h⁰ + ½·dt²·∂²h/∂t² + O(dt³), and the solver's own first substep from
//! rest is the discrete dt²·∂²h/∂t²: its change Δ. So vel⁰ = h⁰ − h^(−1) = −½·Δ. For the explicit
//! scheme this is exact mode by mode (undamped): cos(ω·dt) = 1 − k·λ/2 is both its dispersion
//! relation and h^(−1)/h⁰ here, so every mode starts at its amplitude and phase.
//!
//! ADI needs no such start: Kass & Miller's implicit scheme gives a mode (1 + a)·h^(n+1) =
//! 2·h^n − h^(n−1) (a = k·λ), whose solution from h^(−1) = h⁰ is exactly h⁰·r^n·cos(θ·n) with
//! r = 1/√(1 + a), tan θ = √a: at rest is already its start at the amplitude and phase (tested at
//! Courant 0.5 and 1: 0.01 % and 1e-4 step). Its own Taylor step from rest, which assumes a
//! small ω·dt, is wrong there: at Courant 10 it grew a ghost-slope basin's waves 2.4-fold. (Across
//! both axes the splitting adds a cross term, h^(−1) = h⁰·(1 + a_x·a_y/2) for a mode with a_x and
//! a_y; not built: it matters only where both are large.) So `Simulation` takes this module's
//! start for the explicit solver only.
//!
//! Computed once on the host with the CPU twins, for every backend (the same bits go to each).
//! A lake at rest has Δ = 0 and stays exactly at rest. Shorelines start at rest as before: a
//! cell that is dry, or has a dry neighbour, before or after the substep (the dry-cell rule is
//! not smooth, and a Taylor step across it made a splash over a ridge ring on for 900 more
//! steps). Each body of water's Σvel⁰ is then made zero: the masked shore and the sides leave a
//! remainder, which under open sides (where nothing holds Σvel at zero) raised a pond's level
//! by 2.6 % over 20,000 steps. Left at rest too: scenes with bodies (their first step is the
//! coupling's, which the twin step alone does not see) and the pressure's head (it starts with
//! the first step).

use crate::engine::cpu;
use crate::engine::params::Params;
use crate::models::height_field::cpu::explicit;

/// vel⁰ (per substep) for the level `eta` over `ground` under `params`, and under
/// `Params::faces` the faces' memory of it (−½ of each face's part of Δ where both its cells
/// start moving; empty otherwise).
pub fn taylor_vel(params: &Params, ground: &[f32], eta: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let n = eta.len();
    // The wave alone: no volume correction, clamp record, sources or bodies, no pressure head
    // (and from rest the damping has nothing to damp).
    let params = Params {
        correct: 0,
        forcing: 0,
        sources: 0,
        bodies: 0,
        ..*params
    };
    let rest = vec![0.0f32; n];
    let no_memory = vec![0.0f32; if params.faces != 0 { 2 * n } else { 0 }];
    let extras = cpu::reduce::Extras {
        shortfall: &[],
        clamped: &[],
        cover: &[],
        faces: &[],
    };
    // Ghost-mean sides read the mean wet surface.
    let totals = cpu::reduce::reduce(&params, ground, eta, &rest, extras);
    let level = explicit::Level {
        params: &params,
        ground,
        totals: &totals,
        eta,
        vel: &rest,
        forcing: &[],
        faces: &no_memory,
    };
    let (mut next, mut change, mut carry) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
    let mut faces = no_memory.clone();
    let mut out = explicit::Out {
        eta: &mut next,
        vel: &mut change,
        carry: &mut carry,
        clamped: &mut [],
        faces: &mut faces,
    };
    explicit::step(&level, &mut out, crate::engine::schedule::needs_edges(&params));
    // At a shoreline the Taylor step does not hold (the dry-cell rule is not smooth): a cell with
    // a dry cell among its four neighbours or itself, before or after the substep, starts at rest
    // as before. Elsewhere the water is smooth and the start is second order.
    let (nx, ny) = (params.nx as usize, params.ny as usize);
    let dry = |c: usize| eta[c] <= ground[c] || next[c] <= ground[c];
    let mut vel: Vec<Option<f32>> = (0..n)
        .map(|c| {
            let (i, j) = (c % nx, c / nx);
            let near = [
                (i > 0).then(|| c - 1),
                (i + 1 < nx).then(|| c + 1),
                (j > 0).then(|| c - nx),
                (j + 1 < ny).then(|| c + nx),
            ];
            (!dry(c) && !near.into_iter().flatten().any(dry)).then(|| -0.5 * change[c])
        })
        .collect();
    // The start must move no water: each body of water's Σvel⁰ is zero, or (where nothing holds
    // Σvel at zero: open sides) its level would drift at that rate for good. The masked shore
    // and the sides' fluxes leave a remainder; each body's is taken from its own cells evenly
    // (zero for a closed basin that is wet throughout).
    remove_drift(&params, ground, eta, &mut vel);
    // A face's memory is its part of the start where both its cells start moving (elsewhere
    // they start at rest, and so does the face).
    let moving = |c: usize| vel[c].is_some();
    for (c, pair) in faces.chunks_exact_mut(2).enumerate() {
        let (i, j) = (c % nx, c / nx);
        let east = j * nx + (i + 1) % nx;
        let north = ((j + 1) % ny) * nx + i;
        pair[0] = if moving(c) && moving(east) { -0.5 * pair[0] } else { 0.0 };
        pair[1] = if moving(c) && moving(north) {
            -0.5 * pair[1]
        } else {
            0.0
        };
    }
    (vel.into_iter().map(|v| v.unwrap_or(0.0)).collect(), faces)
}

/// Takes each body of water's mean from its moving cells' vel⁰, so that Σvel⁰ over each is zero.
fn remove_drift(params: &Params, ground: &[f32], eta: &[f32], vel: &mut [Option<f32>]) {
    let (labels, count) = cpu::regions::label(params, ground, eta);
    let mut sums = vec![(0.0f64, 0u32); count as usize];
    for (c, v) in vel.iter().enumerate() {
        if let (Some(v), l @ 1..) = (v, labels[c]) {
            let s = &mut sums[l as usize - 1];
            *s = (s.0 + *v as f64, s.1 + 1);
        }
    }
    for (c, v) in vel.iter_mut().enumerate() {
        if let (Some(v), l @ 1..) = (v.as_mut(), labels[c]) {
            let (sum, cells) = sums[l as usize - 1];
            *v -= (sum / cells as f64) as f32;
        }
    }
}
