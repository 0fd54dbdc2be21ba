//! The CPU backends side by side: cells/s of a whole explicit step (with the default global
//! volume correction: explicit, reduce, volume) and of an ADI step at the same dt, on the
//! single-threaded reference twin and on the fast backend with 1 and 2 threads (and every core,
//! when the machine has more). All of them produce the same bits.
//!
//! Before the clocks, what memory allows: a copy of 256 MiB on one thread, and a stream with the
//! fused step's traffic (read 16 B, write 12 B per cell: eta, vel, carry in place, ground read) on
//! 1 and 2 threads. The fast backend's explicit step with the global correction moves those 28 B
//! (`cpu::fast::fused`: the correction applied on the read, the reduction summed on the write);
//! the three passes apart moved 68 B.
//!
//! `cargo bench --bench cpu`; `SHOAL_BENCH_SIZES=256,1024` picks sizes (default 1024).

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::{Backend, Simulation};
use std::time::Instant;

const STEPS: u64 = 16;
const BYTES_PER_CELL_STEP: f64 = 28.0;

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

/// Cells per second of a stream with the fused step's traffic on `threads` threads: three fields
/// read and written in place, a fourth read, over bands of 32 Ki cells (as the step's bands).
fn stream_rate(threads: usize) -> f64 {
    use rayon::prelude::*;
    let n = 1 << 22;
    let ground = vec![-1.0f32; n];
    let mut fields = [vec![0.5f32; n], vec![1e-3f32; n], vec![1e-9f32; n]];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let band = 32 * 1024;
    let mut best = f64::MAX;
    for _ in 0..10 {
        let t = Instant::now();
        pool.install(|| {
            let [eta, vel, carry] = &mut fields;
            eta.par_chunks_mut(band)
                .zip(vel.par_chunks_mut(band))
                .zip(carry.par_chunks_mut(band))
                .zip(ground.par_chunks(band))
                .for_each(|(((e, v), r), g)| {
                    for i in 0..e.len() {
                        let w = e[i] + v[i];
                        (e[i], v[i], r[i]) = (w + r[i], w - g[i], r[i] * 0.5);
                    }
                });
        });
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&fields);
    n as f64 / best
}

fn cpu_backends(c: &mut Criterion) {
    let bandwidth = copy_bandwidth();
    eprintln!(
        "one-thread copy: {:.1} GB/s; at {BYTES_PER_CELL_STEP} B/cell/step that allows {:.2e} cells/s",
        bandwidth / 1e9,
        bandwidth / BYTES_PER_CELL_STEP
    );
    for threads in [1, 2] {
        let rate = stream_rate(threads);
        eprintln!(
            "a stream with the fused step's {BYTES_PER_CELL_STEP} B/cell, {threads} thread(s): {rate:.2e} cells/s ({:.1} GB/s)",
            rate * BYTES_PER_CELL_STEP / 1e9
        );
    }
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
