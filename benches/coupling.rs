//! The cost of two-way coupling: a step with 1 and 16 floating boxes against the same step with
//! none (GPU and CPU, 256² and 1024²; `SHOAL_BENCH_SIZES` for others), and Jacobi against PCG on
//! one body's masked Poisson system: iterations and time to the same relative residual (1e-5).
//!
//! Per step the bodies add: `footprint` over every cell (reads eta, ground, the cover; writes the
//! cover: ~28 B/cell, one ray cast per body whose rectangle holds the cell), then over the box of
//! the tagged cells only: `plan`, then `solo` (a workgroup per independent cluster of bodies,
//! the whole solve in one dispatch) and with several bodies `solo_report`; then `integrate` (one
//! workgroup per body over its footprint). The boxes here are small, so the coupling records 2
//! dispatches for one body and 3 for sixteen (a body whose box can outgrow 2048 cells would add
//! the passes over the whole box: `start` ~40 B/cell, per PCG iteration 4 dispatches, `apply`).
//!
//! `cargo bench --bench coupling`; `WGPU_BACKEND` picks the adapter.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::low_level::cpu::{solve, SolveBox, Vectors};
use shoal::low_level::Params;
use shoal::low_level::{BodyParams, Cover, COUPLING_JACOBI, COUPLING_PCG, TAGGED};
use shoal::{Backend, Scene, Simulation};
use std::path::Path;
use std::time::Instant;

const STEPS: u64 = 4;

/// A 16 m pool, 1 m deep, with `bodies` boxes of 0.6 m × 0.6 m × 0.3 m floating in a square
/// array (placed at their floating depth, so the water starts settled).
fn scene(n: u32, bodies: u32, coupling: &str) -> Scene {
    let dx = 16.0 / n as f64;
    let side = (bodies as f64).sqrt().ceil() as u32;
    let mut text = format!(
        "[grid]\nnx = {n}\nny = {n}\ndx = {dx}\n[time]\ndt = {dt}\n[physics]\ncoupling = \"{coupling}\"\n\
         [terrain]\nflat = -1.0\n[[water.bump]]\nx = 3.0\ny = 3.0\nradius = 0.5\nheight = 0.05\n",
        dt = 0.3 * dx / 9.81f64.sqrt()
    );
    for k in 0..bodies {
        let (x, y) = (2.0 + 4.0 * (k % side) as f64, 2.0 + 4.0 * (k / side) as f64);
        text += &format!("[[body]]\nsize = [0.6, 0.6, 0.3]\nposition = [{x}, {y}, 0.0]\ndensity = 500.0\n");
    }
    Scene::parse(&text, Path::new("bench"), Path::new(".")).expect("bench scene")
}

fn coupled_steps(c: &mut Criterion) {
    let mut group = common::group(c, "coupling", 5);
    for n in common::sizes(&[256, 1024]) {
        group.throughput(Throughput::Elements(n as u64 * n as u64 * STEPS));
        for bodies in [0, 1, 16] {
            for (name, backend) in [("gpu", Backend::Gpu), ("cpu", Backend::Cpu)] {
                let Ok(mut sim) = Simulation::new(&scene(n, bodies, "pcg"), backend) else {
                    continue;
                };
                let id = BenchmarkId::new(format!("{bodies}_bodies_pcg_{name}"), format!("{n}x{n}"));
                common::bench_steps(&mut group, id, &mut sim, STEPS);
            }
        }
    }
    group.finish();
}

/// One body's system: an `m`×`m` block of tagged cells in the middle of a pool, each holding
/// water to expel that varies from cell to cell.
fn block(m: u32) -> (Params, Vec<f32>, Vec<f32>, Vec<Cover>, SolveBox) {
    let n = m + 8;
    let p = Params {
        nx: n,
        ny: n,
        ..Params::default()
    };
    let cells = (n * n) as usize;
    let ground = vec![-1.0; cells];
    let mut eta = vec![0.0; cells];
    let mut cover = vec![Cover::default(); cells];
    for j in 4..4 + m {
        for i in 4..4 + m {
            let c = (j * n + i) as usize;
            cover[c] = Cover {
                bottom: -0.2,
                top: 0.1,
                owner: 1 | TAGGED,
                held: 0.0,
            };
            eta[c] = -0.2 + 0.001 * (1 + (i * 7 + j * 3) % 11) as f32;
        }
    }
    let bx = SolveBox::new(&p, [4, 4, 3 + m, 3 + m]).expect("a box");
    (p, ground, eta, cover, bx)
}

/// Iterations and CPU time of PCG and of Jacobi to the same relative residual, 1e-5 (float32
/// Jacobi stalls a little above 1e-6), then criterion times both.
fn solvers(c: &mut Criterion) {
    const TARGET: f32 = 1e-5;
    let mut group = common::group(c, "virtual_height", 3);
    for m in [16u32, 32, 64] {
        let (p, ground, eta, cover, bx) = block(m);
        let cells = (p.nx * p.ny) as usize;
        let params = |method, iterations| BodyParams {
            method,
            iterations,
            tolerance: TARGET,
            relaxation: 1.0,
            ..BodyParams::default()
        };
        let run = |bp: &BodyParams| {
            let mut v = Vectors::new(cells);
            let start = Instant::now();
            let report = solve(&p, bp, &bx, &ground, &cover, &eta, &mut v);
            (report, start.elapsed().as_secs_f64() * 1e3)
        };
        let pcg = params(COUPLING_PCG, 1000);
        let (report, pcg_ms) = run(&pcg);
        // The fewest Jacobi sweeps (even: doubling, then bisecting) that reach the target.
        let reaches = |sweeps: u32| run(&params(COUPLING_JACOBI, sweeps)).0.residual <= TARGET;
        let mut hi = 2;
        while !reaches(hi) && hi < 1 << 18 {
            hi *= 2;
        }
        if !reaches(hi) {
            let stall = run(&params(COUPLING_JACOBI, hi)).0.residual;
            println!(
                "{m}×{m} tagged cells: PCG {} iterations to {:.1e} in {pcg_ms:.2} ms; Jacobi stalls at {stall:.1e} after {hi} sweeps (CPU)",
                report.iterations, report.residual
            );
            continue;
        }
        let mut lo = hi / 2;
        while hi - lo > 2 {
            let mid = (lo + hi) / 4 * 2;
            if reaches(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let jacobi = params(COUPLING_JACOBI, hi);
        let (slow, jacobi_ms) = run(&jacobi);
        println!(
            "{m}×{m} tagged cells: PCG {} iterations to {:.1e} in {pcg_ms:.2} ms; Jacobi {hi} sweeps to {:.1e} in {jacobi_ms:.2} ms (CPU)",
            report.iterations, report.residual, slow.residual
        );
        for (name, bp) in [("pcg", pcg), ("jacobi", jacobi)] {
            group.bench_function(BenchmarkId::new(name, format!("{m}x{m}")), |b| {
                b.iter(|| {
                    let mut v = Vectors::new(cells);
                    solve(&p, &bp, &bx, &ground, &cover, &eta, &mut v)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, solvers, coupled_steps);
criterion_main!(benches);
