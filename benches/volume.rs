//! The cost of `volume_correction = "global"` and `"regions"`: a step of each solver with and
//! without them, on the GPU and CPU backends at 256² and 1024² (`SHOAL_BENCH_SIZES` for others,
//! e.g. 4096).
//!
//! "global" adds per step: a reduction of the new level (2 dispatches, 4 B/cell read plus
//! ground), `settle` (1 thread) and `apply` (eta, vel, carry read and written: 24 B/cell), so
//! 4 dispatches and ~32 B/cell beside the explicit step's 28 B and the ADI step's 44 B.
//! "regions" adds regions.wgsl's 7 dispatches on top: a check of the wet set against the old
//! labels (12 B/cell until a workgroup finds a change), the union-find labelling (union and
//! compression, 12–16 B/cell each, and the tiles' scan), the numbering with the per-region sums
//! (28 B/cell), the split shares (12 B/cell) and one pass over the regions, so about 84 B/cell
//! more (it was 9 dispatches and ~110 B/cell with separate numbering and spreading passes), and
//! atomics about once per workgroup. Where the wet set did not change the labelling and the
//! split are empty dispatches: ~40 B/cell (`*_regions_pond_*`: a flat 1 m deep basin, every cell
//! wet, against `*_regions_*` on the beach).
//!
//! `cargo bench --bench volume`; `WGPU_BACKEND` picks the adapter.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shoal::{Backend, Scene, Simulation};
use std::path::Path;

const STEPS: u64 = 8;

/// A 4 m basin whose floor rises into a beach (`beach`; otherwise flat, 1 m deep: every cell wet,
/// a wet set that never changes), a drop in it, at one explicit substep per step.
fn scene(n: u32, solver: &str, correction: &str, beach: bool) -> Scene {
    let dx = 4.0 / n as f64;
    let floor = if beach {
        "slope = { base = -1.0, grad = [0.3, 0.0] }"
    } else {
        "flat = -1.0"
    };
    let text = format!(
        "[grid]\nnx = {n}\nny = {n}\ndx = {dx}\n[time]\ndt = {dt}\n[physics]\nsolver = \"{solver}\"\n\
         volume_correction = \"{correction}\"\n[terrain]\n{floor}\n\
         [[water.bump]]\nx = 1.5\ny = 2.0\nradius = 0.3\nheight = 0.02\n",
        dt = 0.3 * dx / 9.81f64.sqrt()
    );
    Scene::parse(&text, Path::new("bench"), Path::new(".")).expect("bench scene")
}

fn correction(c: &mut Criterion) {
    let mut group = common::group(c, "correction", 5);
    for n in common::sizes(&[256, 1024]) {
        group.throughput(Throughput::Elements(n as u64 * n as u64 * STEPS));
        for solver in ["explicit", "adi"] {
            // "regions" on a pond too: its labelling is skipped where the wet set did not change.
            let cases = [("none", true), ("global", true), ("regions", true), ("regions", false)];
            for (correction, beach) in cases {
                for (name, backend) in [("gpu", Backend::Gpu), ("cpu", Backend::Cpu)] {
                    let Ok(mut sim) = Simulation::new(&scene(n, solver, correction, beach), backend) else {
                        continue;
                    };
                    let pond = if beach { "" } else { "_pond" };
                    let id = BenchmarkId::new(format!("{solver}_{correction}{pond}_{name}"), format!("{n}x{n}"));
                    common::bench_steps(&mut group, id, &mut sim, STEPS);
                }
            }
        }
    }
    group.finish();
}

criterion_group!(benches, correction);
criterion_main!(benches);
