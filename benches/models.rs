//! Every model side by side (issue 53's speed table): the same 4 m basin, 1 m deep with a drop in
//! the middle, at the same time step (c·dt/dx = 0.2), stepped by the height field (explicit and
//! ADI), the pipes, the shallow-water model and the Navier-Stokes layer (8 layers), on the fast
//! CPU backend (every core) and on the GPU adapter wgpu picks (`WGPU_BACKEND`: lavapipe, llvmpipe
//! or a GPU). Each row: steps/s and cells/s (cells × steps per second of wall time, the
//! chunk's readback inside the clock, so the GPU has finished), and what a step costs a GPU by
//! the cost model (`shoal run --dry-run`): bytes per cell and dispatches. A model's CPU cells/s
//! over the explicit step's, against its bytes per cell over the explicit step's, says how far
//! its fast path is from its share of memory traffic (issue 53's goal: within 2×).
//!
//! `cargo bench --bench models`; `SHOAL_BENCH_SIZES=256,1024` (the default) picks sizes,
//! `SHOAL_BENCH_SECONDS` how long each row runs (default 3), `SHOAL_BENCH_BACKENDS=cpu` leaves the
//! GPU out. A plain table on stdout, not criterion's: the rows are one run's, side by side.

mod common;

use shoal::{Backend, Scene, Simulation};
use std::path::Path;
use std::time::Instant;

/// Steps per `Simulation::step` call: one chunk, one readback.
const STEPS: u64 = 16;

/// The basin on an `n`² grid under `physics` (TOML lines of `[physics]`) and `extra` tables.
fn basin(n: u32, physics: &str, extra: &str) -> Scene {
    let dx = 4.0 / n as f64;
    let text = format!(
        "[grid]\nnx = {n}\nny = {n}\ndx = {dx}\n[time]\ndt = {dt}\n[physics]\n{physics}\n\
         [terrain]\nflat = -1.0\n[[water.bump]]\nx = 2.0\ny = 2.0\nradius = 0.3\nheight = 0.02\n{extra}",
        dt = 0.2 * dx / 9.81f64.sqrt()
    );
    Scene::parse(&text, Path::new("bench"), Path::new(".")).expect("bench scene")
}

/// The models as the table names them: (name, `[physics]` lines, extra tables).
const MODELS: [(&str, &str, &str); 5] = [
    ("height field, explicit", "solver = \"explicit\"", ""),
    ("height field, ADI", "solver = \"adi\"", ""),
    ("pipes", "model = \"pipes\"", ""),
    ("shallow water", "model = \"shallow-water\"", ""),
    (
        "Navier-Stokes, 8 layers",
        "model = \"navier-stokes\"",
        "[navier_stokes]\nlayers = 8\n",
    ),
];

/// (bytes per cell, dispatches) of a step, read off the cost model's last line.
fn step_cost(schedule: &str) -> (u32, u32) {
    let line = schedule
        .lines()
        .find(|l| l.starts_with("# step total:"))
        .expect("the schedule's total");
    let number_before = |unit: &str| -> u32 {
        let end = line.find(unit).expect("a figure");
        let start = line[..end].trim_end().rfind(' ').map_or(0, |s| s + 1);
        line[start..end].trim().parse().expect("a number")
    };
    (number_before("B/cell"), number_before("dispatches"))
}

/// Steps per second of `sim`, over at least `seconds` of whole chunks after one warm-up chunk.
fn steps_per_second(sim: &mut Simulation, seconds: f64) -> f64 {
    sim.step(STEPS).expect("warm-up");
    let (start, mut steps) = (Instant::now(), 0u64);
    while start.elapsed().as_secs_f64() < seconds {
        sim.step(STEPS).expect("step");
        steps += STEPS;
    }
    steps as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    // `cargo bench` passes `--bench`; a plain table needs no arguments.
    let seconds: f64 = std::env::var("SHOAL_BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let backends: Vec<(&str, Backend)> = match std::env::var("SHOAL_BENCH_BACKENDS").as_deref() {
        Ok("cpu") => vec![("cpu", Backend::Cpu)],
        Ok("gpu") => vec![("gpu", Backend::Gpu)],
        _ => vec![("cpu", Backend::Cpu), ("gpu", Backend::Gpu)],
    };
    println!(
        "{:<24} {:>6} {:>8} {:>6} {:>5} {:>10} {:>12} {:>8} {:>8}",
        "model", "grid", "backend", "B/cell", "disp", "steps/s", "Mcells/s", "vs expl", "B ratio"
    );
    for &n in &common::sizes(&[256, 1024]) {
        let cells = n as f64 * n as f64;
        let mut explicit = [0.0f64; 2];
        let mut explicit_bytes = 0u32;
        for (k, (name, physics, extra)) in MODELS.iter().enumerate() {
            let scene = basin(n, physics, extra);
            let checked = Simulation::check(&scene).expect("bench scene checks");
            let (bytes, dispatches) = step_cost(&checked.schedule);
            if k == 0 {
                explicit_bytes = bytes;
            }
            for (b, (label, backend)) in backends.iter().enumerate() {
                let mut sim = match Simulation::new(&scene, *backend) {
                    Ok(sim) => sim,
                    Err(e) => {
                        println!("{name:<24} {n:>5}² {label:>8} skipped: {e}");
                        continue;
                    }
                };
                let rate = steps_per_second(&mut sim, seconds);
                let mcells = rate * cells / 1e6;
                if k == 0 {
                    explicit[b] = mcells;
                }
                let adapter = if *label == "gpu" {
                    format!(" ({})", sim.describe_backend())
                } else {
                    String::new()
                };
                println!(
                    "{name:<24} {n:>5}² {label:>8} {bytes:>6} {dispatches:>5} {rate:>10.1} {mcells:>12.2} {:>7.2}× {:>7.2}×{adapter}",
                    mcells / explicit[b],
                    bytes as f64 / explicit_bytes as f64
                );
            }
        }
    }
}
