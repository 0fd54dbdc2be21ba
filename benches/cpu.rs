//! The CPU backends side by side: cells/s of a whole explicit step (with the default global
//! volume correction: explicit, reduce, volume) and of an ADI step at the same dt, on the
//! single-threaded reference twin and on the fast backend with 1 and 2 threads (and every core,
//! when the machine has more). All of them produce the same bits.
//!
//! Before the clocks: the machine's one-thread memory bandwidth, from a copy of 256 MiB, and what
//! it allows a step that streams the fast backend's bytes per cell (explicit 28 B, reduce 12 B,
//! volume 28 B: 68 B per cell per step with the correction).
//!
//! `cargo bench --bench cpu`; `SHOAL_BENCH_SIZES=256,1024` picks sizes (default 1024).

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::{Backend, Simulation};
use std::time::Instant;

const STEPS: u64 = 16;
const BYTES_PER_CELL_STEP: f64 = 68.0;

/// Bytes per second of a one-thread copy of 256 MiB (read + write counted), best of five.
fn copy_bandwidth() -> f64 {
    let n = 64 << 20;
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        dst.copy_from_slice(std::hint::black_box(&src));
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(&dst);
    }
    (2 * n * 4) as f64 / best
}

fn cpu_backends(c: &mut Criterion) {
    let bandwidth = copy_bandwidth();
    eprintln!(
        "one-thread copy: {:.1} GB/s; at {BYTES_PER_CELL_STEP} B/cell/step that allows {:.2e} cells/s",
        bandwidth / 1e9,
        bandwidth / BYTES_PER_CELL_STEP
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1, 2];
    if cores > 2 {
        threads.push(cores);
    }
    let mut group = common::group(c, "cpu_step", 6);
    for &n in &common::sizes(&[1024]) {
        let cells = n as u64 * n as u64;
        group.throughput(Throughput::Elements(cells * STEPS));
        for solver in ["explicit", "adi"] {
            let mut sim = Simulation::new(&common::basin(n, solver, 0.2), Backend::Reference).expect("simulation");
            let id = BenchmarkId::new(format!("{solver}/reference"), format!("{n}x{n}"));
            common::bench_steps(&mut group, id, &mut sim, STEPS);
            for &t in &threads {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("pool");
                let mut sim = Simulation::new(&common::basin(n, solver, 0.2), Backend::Cpu).expect("simulation");
                let id = BenchmarkId::new(format!("{solver}/fast-{t}t"), format!("{n}x{n}"));
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| {
                        let start = Instant::now();
                        for _ in 0..iters {
                            pool.install(|| sim.step(STEPS)).expect("step");
                        }
                        start.elapsed()
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, cpu_backends);
criterion_main!(benches);
