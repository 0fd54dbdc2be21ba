//! What an embedded frame costs (`shoal::Water`): the render-side passes alone (surface; surface
//! and caustics) and a whole frame of 2 steps plus both, at 256² and 1024².
//!
//! Each iteration records `FRAMES` frames, one encoder and submit each as a host would, then
//! waits for the GPU (`PollType::wait_indefinitely`) before the clock stops. Traffic per cell:
//! surface reads eta and ground (8 B; neighbours from cache) and the wetness (4 B), writes height,
//! depth, normals and wetness (28 B) = 40 B, 1 dispatch; caustics reads normals and depth (20 B),
//! adds into ~4 counters and resolves them (~16 B + 8 B), writes the map (4 B) ≈ 48 B, 2
//! dispatches.
//!
//! `cargo bench --bench embed`; `SHOAL_BENCH_SIZES=256` picks sizes, `WGPU_BACKEND` the adapter.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::low_level::gpu::GpuContext;
use shoal::{Scene, Water, WaterOptions};
use std::path::Path;
use std::time::Instant;

const FRAMES: u32 = 16;

fn scene(n: u32) -> Scene {
    let dx = 4.0 / n as f64;
    let text = format!(
        "[grid]\nnx = {n}\nny = {n}\ndx = {dx}\n[time]\ndt = {dt}\n[terrain]\nslope = {{ base = -1.0, grad = [0.4, 0.0] }}\n\
         [[water.bump]]\nx = 1.0\ny = 2.0\nradius = 0.3\nheight = 0.05\n",
        dt = 0.2 * dx / 9.81f64.sqrt()
    );
    Scene::parse(&text, Path::new("bench"), Path::new(".")).expect("bench scene")
}

fn frames(c: &mut Criterion) {
    let context = GpuContext::new().expect("a GPU adapter");
    let (device, queue) = (&context.device, &context.queue);
    eprintln!("{}", shoal::low_level::gpu::adapter_line(&context.info));
    let mut group = common::group(c, "embedded_frame", 6);
    for &n in &common::sizes(&[256, 1024]) {
        group.throughput(Throughput::Elements(n as u64 * n as u64 * FRAMES as u64));
        for (name, caustics, steps) in [
            ("surface", false, 0),
            ("surface+caustics", true, 0),
            ("2 steps+both", true, 2),
        ] {
            let options = WaterOptions {
                caustics,
                ..Default::default()
            };
            let mut water = Water::new(device, queue, &scene(n), options).expect("water");
            group.bench_function(BenchmarkId::new(name, format!("{n}x{n}")), |b| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        for _ in 0..FRAMES {
                            let mut encoder = device.create_command_encoder(&Default::default());
                            water.record(&mut encoder, steps);
                            queue.submit([encoder.finish()]);
                        }
                        device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
                    }
                    start.elapsed()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
