//! The Navier-Stokes layer (seed 003) beside the height field's explicit step.
//!
//! `ns_vs_explicit`: steps/s and surface cells/s of the same 4 m basin (1 m deep, a drop in the
//! middle) at 64² and 128² surface cells, stepped by the explicit solver and by the layer (8
//! layers under the surface, and with `coarsen = 2`), on the GPU and the CPU backend, side by
//! side (the layer's single-threaded reference twin too), at the explicit bench's time step. A layer step runs its substeps, each with its
//! pressure iteration; the sweeps the last submit's substeps took at most are printed (as
//! `Simulation::pressure` reports them), and what a substep moves per cell from `gpu::cost`.
//!
//! `cargo bench --bench navier_stokes`; `SHOAL_BENCH_SIZES=64` picks sizes, `WGPU_BACKEND` the
//! adapter.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::{Backend, Scene, Simulation};
use std::path::Path;

const STEPS: u64 = 16;

/// The explicit bench's basin run by the layer, at the same time step.
fn layer_basin(n: u32, coarsen: u32) -> Scene {
    let dx = 4.0 / n as f64;
    let text = format!(
        "[grid]\nnx = {n}\nny = {n}\ndx = {dx}\n[time]\ndt = {dt}\n[physics]\nmodel = \"navier-stokes\"\n\
         [navier_stokes]\nlayers = 8\ncoarsen = {coarsen}\n\
         [terrain]\nflat = -1.0\n[[water.bump]]\nx = 2.0\ny = 2.0\nradius = 0.3\nheight = 0.02\n",
        dt = 0.2 * dx / 9.81f64.sqrt()
    );
    Scene::parse(&text, Path::new("bench"), Path::new(".")).expect("layer bench scene")
}

fn ns_vs_explicit(c: &mut Criterion) {
    let mut group = common::group(c, "ns_vs_explicit", 8);
    for &n in &common::sizes(&[64, 128]) {
        group.throughput(Throughput::Elements(n as u64 * n as u64 * STEPS));
        for (model, scene) in [
            ("explicit", common::basin(n, "explicit", 0.2)),
            ("navier-stokes", layer_basin(n, 1)),
            ("navier-stokes-coarsen-2", layer_basin(n, 2)),
        ] {
            let checked = Simulation::check(&scene).expect("bench scene checks");
            eprintln!("{model} {n}²: {} substeps/step\n{}", checked.substeps, checked.schedule);
            // The layer's reference twin beside the fast backend (threads, the same bits).
            let backends: &[(&str, Backend)] = if model == "explicit" {
                &[("gpu", Backend::Gpu), ("cpu", Backend::Cpu)]
            } else {
                &[
                    ("gpu", Backend::Gpu),
                    ("cpu", Backend::Cpu),
                    ("reference", Backend::Reference),
                ]
            };
            for &(name, backend) in backends {
                let mut sim = Simulation::new(&scene, backend).expect("simulation");
                // Past the start's transient, whose pressure iteration takes the most sweeps.
                sim.step(STEPS).expect("warm-up");
                let id = BenchmarkId::new(format!("{model}/{name}"), format!("{n}x{n}"));
                common::bench_steps(&mut group, id, &mut sim, STEPS);
                if let Some(p) = sim.pressure() {
                    eprintln!(
                        "{model}/{name} {n}²: at most {} sweeps a substep, |D| ≤ {:.1e}/s",
                        p.iterations, p.residual
                    );
                }
            }
        }
    }
    group.finish();
}

criterion_group!(benches, ns_vs_explicit);
criterion_main!(benches);
