//! Steps/s and cells/s of the explicit step on the GPU and CPU backends at 256², 1024², 2048².
//!
//! Each iteration runs one submit of `STEPS` steps and waits for its report readback, so the GPU has
//! finished before the clock stops. Traffic per cell per step, from the buffers the step touches:
//! eta, vel, ground read (12 B), carry read and written (8 B), eta and vel written (8 B) = 28 B;
//! neighbour reads come from cache. One dispatch per step (two with absorbing or slope-corner sides).
//!
//! `cargo bench --bench explicit`; `SHOAL_BENCH_SIZES=256,1024` picks sizes, `WGPU_BACKEND` the adapter.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::{Backend, Simulation};

const STEPS: u64 = 64;
const BYTES_PER_CELL_STEP: u64 = 28;

fn explicit_step(c: &mut Criterion) {
    let mut group = common::group(c, "explicit_step", 8);
    let sizes = common::sizes(&[256, 1024, 2048]);
    for &n in &sizes {
        let cells = n as u64 * n as u64;
        group.throughput(Throughput::Elements(cells * STEPS));
        for (name, backend) in [("gpu", Backend::Gpu), ("cpu", Backend::Cpu)] {
            let mut sim = Simulation::new(&common::basin(n, "explicit", 0.2), backend).expect("simulation");
            if n == sizes[0] {
                eprintln!("{name}: {} — {BYTES_PER_CELL_STEP} B/cell/step", sim.describe_backend());
            }
            common::bench_steps(&mut group, BenchmarkId::new(name, format!("{n}x{n}")), &mut sim, STEPS);
        }
    }
    group.finish();
}

criterion_group!(benches, explicit_step);
criterion_main!(benches);
