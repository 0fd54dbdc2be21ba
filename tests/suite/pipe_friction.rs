//! Manning's n per cell on the pipes (`[friction] map`, issue 53): each pipe takes g·dt times
//! the mean of its two columns' n² (`pipes.wgsl` `manning_weight`), so a map of one n is
//! `physics.manning = n` to float32 rounding, a rough reach slows the flow, and the GPU and the
//! fast CPU step it as the twin does.

use crate::common::{run, scene_in, write_npy};
use shoal::Backend;
use std::path::Path;

/// A dam break down a flat channel 4 m long (dx = 0.1 m): 0.2 m of water in its western half
/// against 2 cm in the eastern, the seed's friction off; `physics` adds lines, `map` names a
/// `[friction] map`.
fn channel(dir: &Path, physics: &str, map: Option<&str>) -> shoal::Scene {
    let friction = map.map_or(String::new(), |m| format!("[friction]\nmap = \"{m}\"\n"));
    write_npy(dir, "h.npy", 4, 40, |i, _| if i < 20 { 0.2 } else { 0.02 });
    scene_in(
        dir,
        &format!(
            "[grid]\nnx = 40\nny = 4\ndx = 0.1\n[time]\ndt = 0.01\n\
             [physics]\nmodel = \"pipes\"\n{physics}[pipes]\nfriction = 1.0\n[spray]\nenabled = false\n\
             [terrain]\nflat = 0.0\n[water]\nnpy = \"h.npy\"\n{friction}"
        ),
    )
}

/// The water east of the dam (m³ per metre of width) after the run.
fn carried(surface: &[f64]) -> f64 {
    (20..40).map(|i| surface[i] - 0.02).sum::<f64>() * 0.1
}

#[test]
fn a_friction_map_of_one_n_is_the_scenes_n_and_a_rough_reach_slows_the_flow() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "n.npy", 4, 40, |_, _| 0.03);
    write_npy(dir.path(), "rough.npy", 4, 40, |i, _| if i >= 20 { 0.1 } else { 0.03 });
    let uniform = run(&channel(dir.path(), "manning = 0.03\n", None), Backend::Cpu, 100);
    let map = run(&channel(dir.path(), "", Some("n.npy")), Backend::Cpu, 100);
    // The weights differ in their last bits (g·n²·dt rounded once, or g·dt times the mean of
    // n² in f32): a unit of water here and there after 100 steps.
    let apart = uniform.iter().zip(&map).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(apart < 1e-5, "a map of n = 0.03 lies {apart} m from manning = 0.03");
    // n = 0.1 east of the dam only: the flow into that reach slows, less than where the whole
    // channel is that rough (measured 0.0897, 0.0823 and 0.0756 m³/m carried east in 1 s).
    let rough = run(&channel(dir.path(), "", Some("rough.npy")), Backend::Cpu, 100);
    let roughest = run(&channel(dir.path(), "manning = 0.1\n", None), Backend::Cpu, 100);
    let (smooth, slowed, slowest) = (carried(&map), carried(&rough), carried(&roughest));
    eprintln!(
        "carried east of the dam in 1 s: {smooth:.5} m³/m at n = 0.03, {slowed:.5} at 0.1 east, {slowest:.5} at 0.1"
    );
    assert!(
        slowest < slowed && slowed < 0.95 * smooth,
        "carried {smooth}, {slowed} and {slowest} m³/m at n = 0.03, 0.1 east and 0.1"
    );
}

#[test]
fn a_friction_map_steps_the_same_on_the_gpu_and_the_twins() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "rough.npy", 4, 40, |i, j| {
        0.01 + 0.004 * i as f64 + 0.01 * j as f64
    });
    let scene = channel(dir.path(), "", Some("rough.npy"));
    let reference = run(&scene, Backend::Reference, 60);
    assert_eq!(reference, run(&scene, Backend::Cpu, 60), "the fast CPU left the twin");
    let gpu = run(&scene, Backend::Gpu, 60);
    let apart = reference
        .iter()
        .zip(&gpu)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(apart < 1e-6, "the GPU's surface lies {apart} m from the twin's");
}
