//! What the benchmarks share: grid sizes from `SHOAL_BENCH_SIZES`, a group's sampling, and the
//! timed loop of whole steps (each `Simulation::step` ends with its chunk's report readback, so
//! the GPU has finished before the clock stops).
#![allow(dead_code)]

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};
use shoal::{Scene, Simulation};
use std::path::Path;
use std::time::{Duration, Instant};

/// `SHOAL_BENCH_SIZES=256,1024`, or `default`.
pub fn sizes(default: &[u32]) -> Vec<u32> {
    std::env::var("SHOAL_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|v| v.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

/// A group of 10 samples: enough on the slow software adapters.
pub fn group<'a>(c: &'a mut Criterion, name: &str, seconds: u64) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(seconds))
        .warm_up_time(Duration::from_secs(1));
    group
}

/// Times `steps` whole steps of `sim` per iteration.
pub fn bench_steps(group: &mut BenchmarkGroup<WallTime>, id: BenchmarkId, sim: &mut Simulation, steps: u64) {
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                sim.step(steps).expect("step");
            }
            start.elapsed()
        })
    });
}

/// A 4 m square basin 1 m deep on an `n`² grid with a drop in the middle, `solver` "explicit" or
/// "adi", at the Courant number c·dt/dx = `courant`.
pub fn basin(n: u32, solver: &str, courant: f64) -> Scene {
    let dx = 4.0 / n as f64;
    let text = format!(
        "[grid]\nnx = {n}\nny = {n}\ndx = {dx}\n[time]\ndt = {dt}\n[physics]\nsolver = \"{solver}\"\n\
         [terrain]\nflat = -1.0\n[[water.bump]]\nx = 2.0\ny = 2.0\nradius = 0.3\nheight = 0.02\n",
        dt = courant * dx / 9.81f64.sqrt()
    );
    Scene::parse(&text, Path::new("bench"), Path::new(".")).expect("bench scene")
}
