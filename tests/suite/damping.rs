//! Damping on every model that takes it (issue 53): `physics.damping` is Kass & Miller's τ, the
//! share of a wave's per-step change lost per step of `time.dt`, so a wave's amplitude decays at
//! −ln(1 − τ)/(2·dt) per second. The pipes, the shallow-water model and the Navier-Stokes layer
//! have velocities, and take τ as a drag on them at r = −ln(1 − τ)/dt per second: by the damped wave equation
//! η_tt + r·η_t = c²·∇²η the same decay, which these tests measure on each model beside the
//! height field; and a map of one value is the uniform damping to the bit.

use crate::common::{run, scene_in, simulation, write_npy};
use shoal::Backend;
use std::path::Path;

const NX: usize = 64;
const DT: f64 = 0.01;

/// A closed basin 2 m long and 0.5 m deep on `model`, its surface the first sloshing mode (5 mm:
/// linear), a probe at the west wall; `physics` adds lines (the damping).
fn basin(dir: &Path, model: &str, physics: &str) -> shoal::Scene {
    write_npy(dir, "mode.npy", 4, NX, |i, _| {
        0.5 + 0.005 * (std::f64::consts::PI * (i as f64 + 0.5) / NX as f64).cos()
    });
    let extra = match model {
        "pipes" => "[pipes]\nfriction = 1.0\n[spray]\nenabled = false\n",
        _ => "",
    };
    scene_in(
        dir,
        &format!(
            "[grid]\nnx = {NX}\nny = 4\ndx = {}\n[time]\ndt = {DT}\n\
             [physics]\nmodel = \"{model}\"\nvolume_correction = \"none\"\n{physics}{extra}\
             [terrain]\nflat = 0.0\n[water]\nnpy = \"mode.npy\"\n\
             [[output.probe]]\nname = \"wall\"\nx = 0.01\ny = 0.06\n",
            2.0 / NX as f64
        ),
    )
}

/// The wall's surface, one sample a step for `steps` steps.
fn wall(scene: &shoal::Scene, backend: Backend, steps: u64) -> Vec<f64> {
    let mut sim = simulation(scene, backend);
    let rows = sim.step(steps).unwrap_or_else(|e| panic!("{e}"));
    rows.iter().map(|r| r[0] - 0.5).collect()
}

/// (time, height) of each crest of `signal` (a sample above both neighbours), the start's
/// excluded; parabola through the three samples.
fn crests(signal: &[f64]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for k in 1..signal.len() - 1 {
        let (a, b, c) = (signal[k - 1], signal[k], signal[k + 1]);
        if b > a && b >= c && b > 0.0 {
            let curve = a - 2.0 * b + c;
            let shift = 0.5 * (a - c) / curve;
            let top = b - 0.25 * (a - c) * shift;
            out.push(((k as f64 + 1.0 + shift) * DT, top));
        }
    }
    out
}

#[test]
fn a_wave_decays_at_kass_and_millers_rate_on_every_model_that_takes_damping() {
    let dir = tempfile::tempdir().unwrap();
    let tau: f64 = 0.002;
    // r/2: the amplitude's decay per second on the height field at this τ.
    let expected = -(1.0 - tau).ln() / (2.0 * DT);
    for model in ["height-field", "pipes", "shallow-water", "navier-stokes"] {
        let plain = wall(&basin(dir.path(), model, ""), Backend::Cpu, 400);
        let damped = wall(
            &basin(dir.path(), model, &format!("damping = {tau}\n")),
            Backend::Cpu,
            400,
        );
        let (p, d) = (crests(&plain), crests(&damped));
        assert!(p.len() >= 2 && d.len() >= 2, "{model}: crests {p:?} {d:?}");
        // Each model's own dissipation (HLL's, the pipes') is in both runs: the ratio of their
        // crests is the damping's alone. At a crest the water is still (its kinetic energy 0),
        // so the crest follows the envelope e^(−r·t/2) exactly for linear waves: 1.5 % allows
        // for the crests' sampling and the 1 % nonlinearity (measured: −0.13 % on the height
        // field, +0.28 % on the pipes, +0.46 % on the shallow-water model, +1.0 % on the
        // Navier-Stokes layer, whose drag acts on the tentative velocities before the pressure
        // iteration and its own dissipation is not a factor apart from it).
        for (a, b) in p.iter().zip(&d).take(2) {
            let rate = -(b.1 / a.1).ln() / b.0;
            eprintln!(
                "{model}: crest at {:.3} s, decay {rate:.5}/s against {expected:.5}/s",
                b.0
            );
            assert!(
                (rate / expected - 1.0).abs() < 0.015,
                "{model}: the crest at {:.3} s decays at {rate:.4}/s, Kass & Miller's rate is {expected:.4}/s",
                b.0
            );
        }
    }
}

#[test]
fn a_damping_map_of_one_value_is_the_uniform_damping_to_the_bit() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "tau.npy", 4, NX, |_, _| 0.003);
    for model in ["pipes", "shallow-water", "navier-stokes"] {
        let uniform = wall(&basin(dir.path(), model, "damping = 0.003\n"), Backend::Cpu, 50);
        let map = wall(
            &basin(dir.path(), model, "damping_map = \"tau.npy\"\n"),
            Backend::Cpu,
            50,
        );
        assert_eq!(uniform, map, "{model}");
    }
}

/// A sponge: the damping map strong in the basin's east quarter. The GPU steps it as the twin
/// does (to f32 rounding: the GPU's own order of a few sums; on the Navier-Stokes layer its
/// iteration stops where |D| falls under ε, which rounding moves), and the fast CPU path is the
/// twin's bits.
#[test]
fn a_sponge_damps_the_same_on_the_gpu_and_the_twins() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "sponge.npy", 4, NX, |i, _| {
        if i >= 3 * NX / 4 {
            0.05
        } else {
            0.0
        }
    });
    for model in ["pipes", "shallow-water", "navier-stokes"] {
        let scene = basin(dir.path(), model, "damping_map = \"sponge.npy\"\n");
        let reference = run(&scene, Backend::Reference, 60);
        let fast = run(&scene, Backend::Cpu, 60);
        assert_eq!(reference, fast, "{model}: the fast CPU left the twin");
        let gpu = run(&scene, Backend::Gpu, 60);
        for (c, (a, b)) in reference.iter().zip(&gpu).enumerate() {
            assert!((a - b).abs() < 1e-6, "{model}, cell {c}: GPU {b} vs twin {a}");
        }
        // The sponge damps, less than its τ everywhere would: the wall's swing over the fourth
        // second (after 1.7 periods of the mode) lies between the undamped basin's and the
        // uniformly damped one's (measured: the sponge 0.36–0.45 of the undamped swing, the
        // uniform τ under 1e-3 of it, on every model).
        let swing = |physics: &str| {
            let signal = wall(&basin(dir.path(), model, physics), Backend::Cpu, 400);
            signal[300..].iter().fold(0.0f64, |m, v| m.max(v.abs()))
        };
        let (e0, e1, e2) = (
            swing(""),
            swing("damping_map = \"sponge.npy\"\n"),
            swing("damping = 0.05\n"),
        );
        eprintln!("{model}: the wall's swing undamped {e0:.3e} m, the sponge {e1:.3e}, everywhere {e2:.3e}");
        assert!(e0 > e1 && e1 > e2, "{model}: {e0} > {e1} > {e2} does not hold");
        let plain = run(&basin(dir.path(), model, ""), Backend::Cpu, 60);
        assert_ne!(plain, reference, "{model}: the sponge did nothing");
    }
}

/// The Navier-Stokes layer's drag (`dragged`) on the GPU as on its twin: the basin damped for
/// 40 steps, surfaces within 1e-6 m (the layer's own GPU check: its iteration stops where |D|
/// falls under ε, which rounding moves), the fast CPU path the twin's bits.
#[test]
fn the_layers_drag_is_the_same_on_the_gpu_and_the_twins() {
    let dir = tempfile::tempdir().unwrap();
    let scene = basin(dir.path(), "navier-stokes", "damping = 0.05\n");
    let reference = run(&scene, Backend::Reference, 40);
    assert_eq!(reference, run(&scene, Backend::Cpu, 40), "the fast CPU left the twin");
    let gpu = run(&scene, Backend::Gpu, 40);
    let apart = reference
        .iter()
        .zip(&gpu)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(apart < 1e-6, "the GPU's surface lies {apart} m from the twin's");
    let plain = run(&basin(dir.path(), "navier-stokes", ""), Backend::Cpu, 40);
    assert_ne!(plain, reference, "the drag did nothing");
}
