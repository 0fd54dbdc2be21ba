//! The GPU-side divergence flag (and its CPU twin) names the first step that went non-finite, and a
//! diverged `Simulation` refuses to go on.

use crate::common::*;
use shoal::low_level::cpu::CpuSolver;
use shoal::low_level::gpu::GpuSolver;
use shoal::low_level::Params;
use shoal::low_level::{Setup, Solver};
use shoal::scene::Method;

/// A basin with a 10 m bump, and parameters no stable run would have: k = f32::MAX, so the first
/// step's k·Σ d·Δh (Δh of metres) overflows to infinity.
fn exploding() -> (Params, Vec<f32>, Vec<f32>) {
    let scene = scene("[grid]\nnx = 20\nny = 10\ndx = 0.1\n[time]\ndt = 0.01\n[terrain]\nflat = -1.0\n[[water.bump]]\nx = 1.0\ny = 0.5\nradius = 0.2\nheight = 10.0\n");
    let fields = shoal::scene::InitialFields::build(&scene).unwrap();
    let (eta, ground) = fields.relative_f32();
    let mut params = Params::new(&scene, 1, 0);
    params.k = f32::MAX;
    // These tests drive a bare Solver with no volume target: no correction.
    params.correct = 0;
    (params, eta, ground)
}

fn assert_flags_first_step(solver: &mut dyn Solver) {
    let report = solver.advance(5, 1, &Default::default()).unwrap();
    assert_eq!(
        report.first_bad_step,
        Some(0),
        "{}: the first step overflows",
        solver.describe()
    );
}

const METHODS: [Method; 2] = [Method::Explicit, Method::Adi];

#[test]
fn cpu_flags_the_first_non_finite_step() {
    let (p, eta, ground) = exploding();
    for method in METHODS {
        assert_flags_first_step(&mut CpuSolver::new(&Setup::bare(p, method, &eta, &ground)));
    }
}

/// The GPU backend on the shared test device, with the level alone.
fn gpu_solver(p: Params, method: Method, eta: &[f32], ground: &[f32]) -> GpuSolver {
    let gpu = gpu();
    GpuSolver::new(
        &gpu.device,
        &gpu.queue,
        "test".into(),
        &Setup::bare(p, method, eta, ground),
    )
    .unwrap()
}

#[test]
fn gpu_flags_the_first_non_finite_step() {
    let (p, eta, ground) = exploding();
    for method in METHODS {
        let mut solver = gpu_solver(p, method, &eta, &ground);
        assert_flags_first_step(&mut solver);
    }
}

#[test]
fn a_stable_run_raises_no_flag() {
    let (mut p, eta, ground) = exploding();
    p.k = 0.01;
    for method in METHODS {
        let mut solver = gpu_solver(p, method, &eta, &ground);
        let report = solver.advance(100, 1, &Default::default()).unwrap();
        assert_eq!(report.first_bad_step, None, "{method:?}");
        assert_eq!(report.totals.nonfinite, 0, "{method:?}");
        assert_eq!(report.totals.wet, 200, "{method:?}");
    }
}
