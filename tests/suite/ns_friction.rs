//! Manning's friction on the Navier-Stokes layer (issue 53): `columns` sets each column's drag to
//! g·n²·|U|/d^(4/3) from its depth-averaged flow U every substep (`manning_rate`), and every face
//! of the column divides its tentative velocity by 1 + dt·drag, so the column's mean flow obeys
//! the depth-averaged law the flood codes use, implicitly.

use crate::common::{max_diff, run, scene_in, simulation, write_npy};
use shoal::Backend;
use std::path::Path;

/// A closed channel 8 m long, 0.2 m wide and `depth` deep (5 cm cells, 8 layers), all of it set
/// moving at `u0` along x; `physics` and `tables` add lines.
fn channel(dir: &Path, u0: f64, depth: f64, physics: &str, tables: &str) -> shoal::Scene {
    write_npy(dir, "u.npy", 4, 160, |_, _| u0);
    scene_in(
        dir,
        &format!(
            "[grid]\nnx = 160\nny = 4\ndx = 0.05\n[time]\ndt = 0.005\n\
             [physics]\nmodel = \"navier-stokes\"\n{physics}[navier_stokes]\nlayers = 8\n\
             [terrain]\nflat = {}\n[water]\nlevel = 0.0\nu_npy = \"u.npy\"\n{tables}",
            -depth
        ),
    )
}

/// The mean of the depth-averaged u over the channel's middle metre (x from 3.5 to 4.5 m).
fn middle_u(velocity: &[[f32; 2]]) -> f64 {
    let cells: Vec<usize> = (0..4).flat_map(|j| (70..90).map(move |i| j * 160 + i)).collect();
    cells.iter().map(|&c| velocity[c][0] as f64).sum::<f64>() / cells.len() as f64
}

/// dU/dt = −g·n²·U²/d^(4/3) from U0: U(t) = U0 / (1 + g·n²·U0·t/d^(4/3)). A uniform flow
/// between two walls, 0.2 m/s in 0.1 m of water at n = 0.05 (a drag of 0.106/s at the start),
/// and at n = 0.1 (0.42/s). The walls stop the flow at the ends, and the waves they send travel
/// in at sqrt(g·d) = 0.99 m/s: after 2 s the middle metre (1.5 m beyond their reach) still
/// moves as the unbounded flow. The implicit factor 1/(1 + dt·g·n²·U/d^(4/3)) is exact for this
/// law (1/U grows by dt·g·n²/d^(4/3) a substep), so what is left is float32 and the layer's
/// surface: within 0.2 % of the law at 0.5, 1 and 2 s (measured: 0.035 % under it at most, as
/// much as the flow without friction loses); without
/// friction the flow keeps its speed to 1e-3 (measured: 0.04 % lost in 2 s).
#[test]
fn a_uniform_flow_slows_as_mannings_law_says() {
    let dir = tempfile::tempdir().unwrap();
    let (u0, d, g) = (0.2f64, 0.1f64, 9.81f64);
    let mut plain = simulation(&channel(dir.path(), u0, d, "", ""), Backend::Cpu);
    plain.step(400).unwrap();
    let kept = middle_u(&plain.velocity().unwrap().unwrap());
    eprintln!("without friction: U = {kept:.6} m/s after 2 s");
    assert!(
        (kept - u0).abs() < 1e-3 * u0,
        "without friction the flow went from {u0} to {kept} m/s"
    );
    for n in [0.05f64, 0.1] {
        let mut sim = simulation(
            &channel(dir.path(), u0, d, &format!("manning = {n}\n"), ""),
            Backend::Cpu,
        );
        for (steps, t) in [(100, 0.5f64), (100, 1.0), (200, 2.0)] {
            sim.step(steps).unwrap();
            let u = middle_u(&sim.velocity().unwrap().unwrap());
            let law = u0 / (1.0 + g * n * n * u0 * t / d.powf(4.0 / 3.0));
            eprintln!(
                "n = {n}, t = {t} s: U = {u:.6} m/s, the law {law:.6} ({:+.4} %)",
                100.0 * (u / law - 1.0)
            );
            assert!(
                (u / law - 1.0).abs() < 2e-3,
                "n = {n}, t = {t} s: U = {u} m/s against {law}"
            );
        }
    }
}

/// `[friction] map`: a map of one n is `physics.manning = n` (each column the mean of its cells'
/// n², rounded alike to float32 but for the map's own reading), and a rough reach in the east
/// half slows the flow there and not in the west; a marker surface refuses both, naming the key.
#[test]
fn a_friction_map_of_one_n_is_the_scenes_n_and_a_rough_reach_slows_only_itself() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "n.npy", 4, 160, |_, _| 0.1);
    write_npy(dir.path(), "rough.npy", 4, 160, |i, _| if i >= 80 { 0.1 } else { 0.0 });
    let map = "[friction]\nmap = \"n.npy\"\n";
    let velocity = |physics: &str, tables: &str| {
        let mut sim = simulation(&channel(dir.path(), 0.2, 0.1, physics, tables), Backend::Cpu);
        sim.step(200).unwrap();
        sim.velocity().unwrap().unwrap()
    };
    let (scene_n, mapped) = (velocity("manning = 0.1\n", ""), velocity("", map));
    let apart = scene_n
        .iter()
        .zip(&mapped)
        .map(|(a, b)| (a[0] - b[0]).abs())
        .fold(0.0f32, f32::max);
    assert!(
        apart < 1e-6,
        "a map of n = 0.1 moves the flow {apart} m/s from manning = 0.1"
    );
    let rough = velocity("", "[friction]\nmap = \"rough.npy\"\n");
    // 2.4 m and 5.8 m along, each 1.6 m from where the reach changes and 1.6 m or more from a
    // wall, past the waves both send in 1 s (the wall's rarefaction reaches 1.2 m).
    let (west, east, all) = (rough[160 + 48][0], rough[160 + 116][0], mapped[160 + 116][0]);
    eprintln!("after 1 s: {west:.5} m/s in the smooth west, {east:.5} in the rough east, {all:.5} all rough");
    assert!((west - 0.2).abs() < 2e-4, "the smooth west went to {west} m/s");
    assert!((east - all).abs() < 1e-4, "the rough east: {east} m/s, all rough {all}");
    let markers = "[grid]\nnx = 60\nny = 2\ndx = 0.01\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
                   manning = 0.03\n[navier_stokes]\nlayers = 20\ncoarsen = 2\nsurface = \"markers\"\n\
                   [terrain]\nflat = 0.0\n[water]\nlevel = 0.1\n";
    let err = shoal::Scene::parse(markers, Path::new("s.toml"), dir.path()).err();
    let err = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("physics.manning") && err.contains("markers"), "{err}");
}

/// A rough basin (a map of n from 0.01 to 0.1) with a flow across it, 32 768 cells: the fast CPU
/// steps it on its threads to the twin's bits, the GPU to its numbers.
#[test]
fn the_gpu_and_the_fast_cpu_follow_the_twin() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "n.npy", 64, 64, |i, j| 0.01 + 0.001 * (i + j) as f64 * 0.7);
    write_npy(dir.path(), "u.npy", 64, 64, |i, _| if i < 32 { 0.3 } else { 0.0 });
    let basin = |friction: &str| {
        let text = "[grid]\nnx = 64\nny = 64\ndx = 0.05\n[time]\ndt = 0.005\n[physics]\nmodel = \"navier-stokes\"\n\
                    [navier_stokes]\nlayers = 8\n[terrain]\nflat = -0.1\n[water]\nlevel = 0.0\nu_npy = \"u.npy\"\n";
        scene_in(dir.path(), &format!("{text}{friction}"))
    };
    let scene = basin("[friction]\nmap = \"n.npy\"\n");
    let reference = run(&scene, Backend::Reference, 12);
    assert_eq!(reference, run(&scene, Backend::Cpu, 12), "the fast CPU left the twin");
    let gpu = run(&scene, Backend::Gpu, 12);
    let apart = max_diff(&reference, &gpu);
    // The friction moves the surface far more than that: its effect is not lost in the noise.
    let effect = max_diff(&reference, &run(&basin(""), Backend::Reference, 12));
    eprintln!("the GPU {apart:.2e} m from the twin; the friction moved the surface {effect:.2e} m");
    assert!(apart < 1e-6, "the GPU's surface lies {apart} m from the twin's");
    assert!(
        effect > 100.0 * apart.max(1e-8),
        "the friction moved the surface {effect} m"
    );
}
