//! Thacker's (1981) parabolic bowl with its planar mode released at rest: the amplitude a solver
//! keeps per period as the shoreline moves. Shared by the example (`main.rs`) and the tests
//! (`tests/suite/shorelines.rs` includes this file).

use std::path::Path;

use shoal::scene::Scene;
use shoal::{Backend, Simulation};

pub const G: f64 = 9.81;
pub const RADIUS: f64 = 1.0;
pub const DEPTH: f64 = 1.0;

/// Which bowl: `Strip` 1-D (four cells across, reflecting sides) or `Round`, the 2-D paraboloid.
#[derive(Clone, Copy, Debug)]
pub enum Bowl {
    Strip,
    Round,
}

/// The step: Courant 0.5 in the bowl's centre.
pub fn courant_dt(cells: usize) -> f64 {
    0.5 * (RADIUS / cells as f64) / (G * DEPTH).sqrt()
}

/// ADI's own damping of the planar mode per period at `courant_dt(cells)`, as it would be
/// without a moving shoreline: r^N, r = 1/√(1 + a) per step with a = (ω·dt)², over N = 2π/θ
/// steps, tan θ = √a (src/start.rs).
pub fn adi_own(cells: usize) -> f64 {
    let omega_dt = (2.0 * G * DEPTH).sqrt() / RADIUS * courant_dt(cells);
    let a = omega_dt * omega_dt;
    (1.0 / (1.0 + a)).sqrt().powf(std::f64::consts::TAU / a.sqrt().atan())
}

/// The amplitude kept in each period after the first.
pub fn kept(
    bowl: Bowl,
    solver: &str,
    backend: Backend,
    cells: usize,
    excursion: f64,
    periods: usize,
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let dx = RADIUS / cells as f64;
    let half = 1.25 * RADIUS;
    let nx = (2.0 * half / dx).round() as usize;
    let ny = match bowl {
        Bowl::Round => nx,
        Bowl::Strip => 4,
    };
    let omega = (2.0 * G * DEPTH).sqrt() / RADIUS;
    let period = std::f64::consts::TAU / omega;
    let dt = courant_dt(cells);
    let steps_per_period = (period / dt).round() as usize;
    let amplitude = excursion * RADIUS;
    let centre = |i: usize| (i as f64 + 0.5) * dx - half;
    let y_of = |j: usize| match bowl {
        Bowl::Round => centre(j),
        Bowl::Strip => 0.0,
    };
    let ground = |i: usize, j: usize| {
        let (x, y) = (centre(i), y_of(j));
        DEPTH * ((x * x + y * y) / (RADIUS * RADIUS) - 1.0)
    };
    let surface = |i: usize, j: usize| {
        let x = centre(i);
        (2.0 * amplitude * DEPTH / (RADIUS * RADIUS) * (x - 0.5 * amplitude)).max(ground(i, j))
    };
    let dir = tempfile::tempdir()?;
    let dir = dir.path();
    let grid = |f: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
        (0..ny)
            .flat_map(|j| (0..nx).map(move |i| (i, j)))
            .map(|(i, j)| f(i, j))
            .collect()
    };
    shoal::io::npy::write_2d(&dir.join("ground.npy"), ny, nx, &grid(&ground))?;
    shoal::io::npy::write_2d(&dir.join("h0.npy"), ny, nx, &grid(&surface))?;
    let text = format!(
        "[grid]\nnx = {nx}\nny = {ny}\ndx = {dx}\n[time]\ndt = {dt}\nsteps = {steps}\n\
         [physics]\nsolver = \"{solver}\"\n[terrain]\nnpy = \"ground.npy\"\n[water]\nnpy = \"h0.npy\"\n",
        steps = steps_per_period * periods,
    );
    let scene = Scene::parse(&text, Path::new("thacker.toml"), dir)?;
    let mut sim = Simulation::new(&scene, backend)?;
    let reference = sim.reference_level();
    let ground_rel: Vec<f64> = sim.ground().iter().map(|&b| b - reference).collect();
    let x_of: Vec<f64> = (0..nx * ny).map(|c| centre(c % nx)).collect();
    let mut track = Vec::with_capacity(steps_per_period * periods);
    for _ in 0..steps_per_period * periods {
        sim.step(1)?;
        let eta = sim.eta()?;
        let (mut moment, mut volume) = (0.0, 0.0);
        for c in 0..eta.len() {
            let d = (eta[c] as f64 - ground_rel[c]).max(0.0);
            moment += x_of[c] * d;
            volume += d;
        }
        track.push(moment / volume);
    }
    // The maximum near each whole period (the first at t = 0: the release), refined by a parabola
    // through the three samples around it.
    let peak = |p: usize| -> f64 {
        if p == 0 {
            return track[0];
        }
        let lo = p * steps_per_period - steps_per_period / 4;
        let hi = (p * steps_per_period + steps_per_period / 4).min(track.len() - 1);
        let m = (lo..hi).max_by(|&a, &b| track[a].total_cmp(&track[b])).unwrap_or(lo);
        if m == 0 || m + 1 >= track.len() {
            return track[m];
        }
        let (a, b, c) = (track[m - 1], track[m], track[m + 1]);
        let curve = a - 2.0 * b + c;
        if curve == 0.0 {
            b
        } else {
            b - 0.125 * (c - a) * (c - a) / curve
        }
    };
    let peaks: Vec<f64> = (0..periods).map(peak).collect();
    Ok(peaks.windows(2).map(|w| w[1] / w[0]).collect())
}
