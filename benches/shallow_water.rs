//! The shallow-water model beside the height field's explicit step and the pipes, on the same 4 m
//! basin 1 m deep with a drop in the middle (`common::basin`), at 256² and 1024², on the GPU and
//! the fast CPU backend, side by side. Each model runs the substeps its own rule asks at the
//! same time.dt (the shallow-water model: (|u| + |v| + 2·sqrt(g·d))·dt/dx ≤ 0.3, about 5× the
//! explicit step's count here); throughput counts cells × steps. What a step moves per cell
//! (bytes, dispatches) is printed from `gpu::cost`, as `shoal run --dry-run` prints it.
//!
//! `cargo bench --bench shallow_water`; `SHOAL_BENCH_SIZES=1024` picks sizes, `WGPU_BACKEND` the
//! adapter.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::{Backend, Scene, Simulation};

const STEPS: u64 = 8;

/// The basin of `common::basin` on `model`.
fn basin(n: u32, model: &str) -> Scene {
    let scene = common::basin(n, "explicit", 0.2);
    let text = scene.to_resolved_toml(0.0, 1);
    let text = text.replace("model = \"height-field\"", &format!("model = \"{model}\""));
    Scene::parse(&text, std::path::Path::new("bench"), std::path::Path::new(".")).expect("bench scene")
}

fn shallow_water(c: &mut Criterion) {
    let mut group = common::group(c, "shallow_water", 8);
    for &n in &common::sizes(&[256, 1024]) {
        group.throughput(Throughput::Elements(n as u64 * n as u64 * STEPS));
        for model in ["shallow-water", "height-field", "pipes"] {
            let scene = basin(n, model);
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

criterion_group!(benches, shallow_water);
criterion_main!(benches);
