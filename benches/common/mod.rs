//! What the benchmarks share: grid sizes from `SHOAL_BENCH_SIZES`, a group's sampling, and the
//! timed loop of whole steps (each `Simulation::step` ends with its chunk's report readback, so
//! the GPU has finished before the clock stops).
#![allow(dead_code)]

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};
use shoal::Simulation;
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
