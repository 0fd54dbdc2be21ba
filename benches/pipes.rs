//! The pipes model (seed 004) beside the height field's explicit step, and its spray.
//!
//! `pipes_vs_explicit`: steps/s and cells/s of the same 4 m basin (1 m deep, a drop in the
//! middle) at 256² and 1024², stepped by the explicit solver and by the pipes, on the GPU and the
//! CPU backend, side by side. A pipes step runs its substeps (the seed's 0.005 s internal step, or
//! more where its stability rule asks) and a readback per `STEPS` steps; throughput counts cells ×
//! steps. `spray`: steps/s of `scenes/waterfall.toml` once the fall sprays, and the particles
//! made and absorbed per second of wall time. What each step moves per cell (bytes, dispatches)
//! is printed from `gpu::cost`, as `shoal run --dry-run` prints it.
//!
//! `cargo bench --bench pipes`; `SHOAL_BENCH_SIZES=256` picks sizes, `WGPU_BACKEND` the adapter.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::{Backend, Scene, Simulation};
use std::path::Path;
use std::time::Instant;

const STEPS: u64 = 16;

/// The explicit bench's basin (`common::basin`) run by the pipes, at the same time step.
fn pipes_basin(n: u32) -> Scene {
    let dx = 4.0 / n as f64;
    let text = format!(
        "[grid]\nnx = {n}\nny = {n}\ndx = {dx}\n[time]\ndt = {dt}\n[physics]\nmodel = \"pipes\"\n\
         [terrain]\nflat = -1.0\n[[water.bump]]\nx = 2.0\ny = 2.0\nradius = 0.3\nheight = 0.02\n",
        dt = 0.2 * dx / 9.81f64.sqrt()
    );
    Scene::parse(&text, Path::new("bench"), Path::new(".")).expect("pipes bench scene")
}

fn pipes_vs_explicit(c: &mut Criterion) {
    let mut group = common::group(c, "pipes_vs_explicit", 8);
    for &n in &common::sizes(&[256, 1024]) {
        group.throughput(Throughput::Elements(n as u64 * n as u64 * STEPS));
        for (model, scene) in [
            ("explicit", common::basin(n, "explicit", 0.2)),
            ("pipes", pipes_basin(n)),
        ] {
            let checked = Simulation::check(&scene).expect("bench scene checks");
            eprintln!("{model} {n}²: {} substeps/step\n{}", checked.substeps, checked.schedule);
            for (name, backend) in [("gpu", Backend::Gpu), ("cpu", Backend::Cpu)] {
                let mut sim = Simulation::new(&scene, backend).expect("simulation");
                let id = BenchmarkId::new(format!("{model}/{name}"), format!("{n}x{n}"));
                common::bench_steps(&mut group, id, &mut sim, STEPS);
            }
        }
    }
    group.finish();
}

fn spray(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/waterfall.toml");
    let scene = Scene::from_file(&path).expect("the waterfall scene");
    let mut group = common::group(c, "spray", 8);
    let cells = scene.grid.nx as u64 * scene.grid.ny as u64;
    group.throughput(Throughput::Elements(cells * STEPS));
    for (name, backend) in [("gpu", Backend::Gpu), ("cpu", Backend::Cpu)] {
        let mut sim = Simulation::new(&scene, backend).expect("simulation");
        // Until the river falls and sprays steadily.
        sim.step(300).expect("step");
        let (before, start) = (sim.spray().unwrap_or_default(), Instant::now());
        sim.step(200).expect("step");
        let (after, seconds) = (sim.spray().unwrap_or_default(), start.elapsed().as_secs_f64());
        eprintln!(
            "waterfall on {}: {:.0} particles made/s, {:.0} absorbed or left/s, {} in flight",
            sim.describe_backend(),
            (after.made - before.made) as f64 / seconds,
            (after.ended - before.ended) as f64 / seconds,
            after.count
        );
        common::bench_steps(&mut group, BenchmarkId::new("waterfall", name), &mut sim, STEPS);
    }
    group.finish();
}

criterion_group!(benches, pipes_vs_explicit, spray);
criterion_main!(benches);
