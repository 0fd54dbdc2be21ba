//! The implicit ADI step beside the explicit one, and its x and y sweeps alone, on the GPU and CPU
//! backends at 256², 1024², 2048² (4096² with `SHOAL_BENCH_SIZES`; its 4096-cell lines take a global
//! PCR step and 512 MiB of scratch, more than the software adapters bind).
//!
//! Traffic per cell (lines on chip, not periodic; neighbour reads come from cache):
//!   x sweep: eta, ground, vel read (12 B), δx written (4 B)                          = 16 B
//!   y sweep: eta, ground, δx, carry read (16 B), eta, vel, carry written (12 B)        = 28 B
//!   ADI step: 44 B in 2 dispatches (explicit: 28 B in 1). Lines longer than 2048 cells add a
//!   build pass and a PCR pass per level (16–64 B each) and a flux-form pass.
//! Each GPU sample records many sweeps or steps in one submit and waits for the GPU before the
//! clock stops.
//!
//! `cargo bench --bench adi`; `SHOAL_BENCH_SIZES=256,1024` picks sizes, `WGPU_BACKEND` the adapter.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::low_level::cpu::Level;
use shoal::low_level::cpu::{sweep_x, sweep_y};
use shoal::low_level::gpu::{Adi, GpuContext, GpuState, LevelBindings};
use shoal::low_level::Setup;
use shoal::low_level::{Params, Totals};
use shoal::scene::InitialFields;
use shoal::scene::Method;
use shoal::{Backend, Simulation};
use std::time::Instant;

/// Steps (or sweeps) per sample.
const STEPS: u64 = 4;

/// Whole steps through `Simulation`: ADI at one step per dt, explicit with its substeps.
fn steps(c: &mut Criterion) {
    let mut group = common::group(c, "step", 6);
    let sizes = common::sizes(&[256, 1024, 2048]);
    for &n in &sizes {
        group.throughput(Throughput::Elements(n as u64 * n as u64 * STEPS));
        for solver in ["adi", "explicit"] {
            for (name, backend) in [("gpu", Backend::Gpu), ("cpu", Backend::Cpu)] {
                let mut sim = match Simulation::new(&common::basin(n, solver, 2.0), backend) {
                    Ok(sim) => sim,
                    Err(e) => {
                        eprintln!("{solver} {name} {n}²: skipped: {e}");
                        continue;
                    }
                };
                if n == sizes[0] {
                    eprintln!(
                        "{solver} {name}: {}, {} substeps",
                        sim.describe_backend(),
                        sim.substeps()
                    );
                }
                let id = BenchmarkId::new(format!("{solver}_{name}"), format!("{n}x{n}"));
                common::bench_steps(&mut group, id, &mut sim, STEPS);
            }
        }
    }
    group.finish();
}

/// The x and y sweeps alone: rows against columns.
fn sweeps(c: &mut Criterion) {
    let gpu = GpuContext::new().expect("GPU");
    let mut group = common::group(c, "sweep", 6);
    let sizes = common::sizes(&[256, 1024, 2048]);
    for &n in &sizes {
        let scene = common::basin(n, "adi", 2.0);
        let fields = InitialFields::build(&scene).expect("fields");
        let (eta, ground) = fields.relative_f32();
        let params = Params::new(&scene, 1, 0);
        group.throughput(Throughput::Elements(n as u64 * n as u64 * STEPS));

        let setup = Setup::bare(params, Method::Adi, &eta, &ground);
        let built = GpuState::new(&gpu.device, &setup).and_then(|state| {
            let level = LevelBindings::new(&gpu.device, &state);
            let adi = Adi::new(&gpu.device, &level, &params)?;
            Ok((state, level, adi))
        });
        match built {
            Ok((state, level, adi)) => {
                for axis in 0..2 {
                    if n == sizes[0] {
                        eprintln!("{} sweep: {} dispatches", ["x", "y"][axis], adi.dispatches(axis));
                    }
                    let id = BenchmarkId::new(format!("{}_gpu", ["x", "y"][axis]), format!("{n}x{n}"));
                    group.bench_with_input(id, &n, |b, _| {
                        b.iter_custom(|iters| {
                            let start = Instant::now();
                            for _ in 0..iters {
                                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                                {
                                    let mut pass = encoder.begin_compute_pass(&Default::default());
                                    level.bind(&mut pass, &state, 0);
                                    for _ in 0..STEPS {
                                        adi.sweep(&mut pass, &state, axis);
                                    }
                                }
                                gpu.queue.submit([encoder.finish()]);
                                gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
                            }
                            start.elapsed()
                        })
                    });
                }
            }
            Err(e) => eprintln!("gpu sweeps {n}²: skipped: {e}"),
        }

        let vel = vec![0.0f32; eta.len()];
        let totals = Totals::default();
        let level = Level {
            params: &params,
            ground: &ground,
            totals: &totals,
            eta: &eta,
            vel: &vel,
            forcing: &[],
            faces: &[],
        };
        let dx = sweep_x(&level);
        for axis in 0..2 {
            let id = BenchmarkId::new(format!("{}_cpu", ["x", "y"][axis]), format!("{n}x{n}"));
            group.bench_with_input(id, &n, |b, _| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    for _ in 0..iters * STEPS {
                        let out = if axis == 0 {
                            sweep_x(&level)
                        } else {
                            sweep_y(&level, &dx)
                        };
                        std::hint::black_box(out);
                    }
                    start.elapsed()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, steps, sweeps);
criterion_main!(benches);
