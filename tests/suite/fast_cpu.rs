//! The fast CPU backend against the reference twin: the same bits, step after step, whatever the
//! thread count. Tolerance: none. Every cell's f32 operations are the twin's, in the twin's
//! order, and the one reduction keeps the twin's fixed tree, so any difference is a bug.

use crate::common::{beach_scene, scene, scene_in, write_npy};
use shoal::{Backend, Scene, Simulation};

/// Runs `scene` on the reference and on the fast backend with 1 and 2 threads (every pass split
/// into tasks a row or an item long, whatever the grid's size), `steps` steps in
/// chunks of `chunk`, and demands the same bits of the state (eta, relative to the reference
/// level) and the same statistics after every chunk.
fn same_bits(scene: &Scene, steps: u64, chunk: u64) {
    // These grids are smaller than a task's share (`CELLS_PER_TASK`): split them anyway, so that
    // two threads share every pass as they would a large grid's.
    let _split = shoal::low_level::cpu::split_small_grids();
    let mut reference = Simulation::new(scene, Backend::Reference).unwrap();
    let pools: Vec<rayon::ThreadPool> = [1, 2]
        .map(|t| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap())
        .into();
    let mut fast: Vec<Simulation> = pools
        .iter()
        .map(|_| Simulation::new(scene, Backend::Cpu).unwrap())
        .collect();
    let mut done = 0;
    while done < steps {
        let n = chunk.min(steps - done);
        let want_probes = reference.step(n).unwrap();
        let want = reference.eta().unwrap();
        for (pool, sim) in pools.iter().zip(&mut fast) {
            let threads = pool.current_num_threads();
            let probes = pool.install(|| sim.step(n)).unwrap();
            let got = sim.eta().unwrap();
            if let Some(c) = (0..want.len()).find(|&c| want[c].to_bits() != got[c].to_bits()) {
                panic!(
                    "{}: {threads} thread(s), step {}: cell {c} is {} on the fast backend, {} on the twin",
                    scene.name,
                    done + n,
                    got[c],
                    want[c]
                );
            }
            // Debug prints each f64 exactly (NaN too), so equal text is equal bits.
            let text = |v: &dyn std::fmt::Debug| format!("{v:?}");
            assert_eq!(
                text(&probes),
                text(&want_probes),
                "{}: probes, {threads} thread(s)",
                scene.name
            );
            assert_eq!(text(&sim.bodies()), text(&reference.bodies()), "{}: bodies", scene.name);
            assert_eq!(sim.target_volume().to_bits(), reference.target_volume().to_bits());
        }
        done += n;
    }
}

/// Two sources and a drain, which every pass beside the step reads.
const SOURCES: &str = "[[source]]\nx = 0.5\ny = 0.5\nradius = 0.2\nrate = 0.002\n\
                       [[source]]\nx = 2.5\ny = 1.5\nradius = 0.2\nrate = -0.004\n";

/// A random surface over random ground, half of it dry: every face kind (wet-wet, wet-dry,
/// dry-dry) in every direction, on an `nx` × `ny` grid (67 × 41: rows that do not divide evenly
/// among threads), with `extra` appended to the scene.
fn random_scene(
    dir: &std::path::Path,
    solver: &str,
    sides: &str,
    correction: &str,
    (nx, ny): (usize, usize),
    extra: &str,
) -> Scene {
    let hash = |i: usize, j: usize, k: u64| {
        let mut x = ((i as u64) * 0x9E37_79B9_7F4A_7C15) ^ (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F) ^ k;
        x ^= x >> 29;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^= x >> 32;
        (x % 10_000) as f64 / 10_000.0
    };
    let name = format!("random, {solver}, {}, {correction}", sides.replace(['"', '\n'], " "));
    write_npy(dir, "ground.npy", ny, nx, |i, j| -0.3 + 0.4 * hash(i, j, 1));
    write_npy(dir, "h.npy", ny, nx, |i, j| 0.0 + 0.05 * hash(i, j, 2));
    scene_in(
        dir,
        &format!(
            "name = \"{name}\"\n[grid]\nnx = {nx}\nny = {ny}\ndx = 0.05\n[time]\ndt = 0.01\n\
             [physics]\nsolver = \"{solver}\"\nvolume_correction = \"{correction}\"\ndamping = 0.001\n[boundary]\n{sides}\n\
             [terrain]\nnpy = \"ground.npy\"\n[water]\nnpy = \"h.npy\"\n{extra}"
        ),
    )
}

#[test]
fn every_solver_side_mode_and_correction_gives_the_twins_bits_on_a_random_wet_dry_state() {
    let dir = tempfile::tempdir().unwrap();
    let sides = [
        "all = \"reflect\"",
        "all = \"open\"",
        "all = \"periodic\"",
        "all = \"absorb\"",
        "all = \"ghost-mean\"",
        "all = \"ghost-slope\"",
        "west = \"absorb\"\neast = \"ghost-slope\"\nsouth = \"periodic\"\nnorth = \"periodic\"",
    ];
    for solver in ["explicit", "adi"] {
        for side in sides {
            for correction in ["none", "global", "regions"] {
                same_bits(
                    &random_scene(dir.path(), solver, side, correction, (67, 41), SOURCES),
                    60,
                    25,
                );
            }
        }
    }
}

/// Without sources the fast backend fuses the explicit step with the correction before it (applied
/// on the read) and the reduction after it (summed on the write): `cpu::fast::fused`. This grid
/// takes three bands of rows, and the reduction's 2048-cell workgroups straddle them.
#[test]
fn the_fused_explicit_step_gives_the_twins_bits_across_bands() {
    let dir = tempfile::tempdir().unwrap();
    let probes = "[[output.probe]]\nname = \"a\"\nx = 3.1\ny = 2.2\n[[output.probe]]\nname = \"b\"\nx = 0.3\ny = 8.0\n";
    let rain = "[rain]\nrate = 30.0\nradius = 0.2\nheight = 0.01\nseed = 5\n";
    for (side, correction, extra) in [
        ("all = \"reflect\"", "global", probes),
        ("all = \"periodic\"", "global", rain),
        ("all = \"open\"", "none", probes),
        ("all = \"ghost-mean\"", "global", ""),
        (
            "west = \"ghost-slope\"\neast = \"open\"\nsouth = \"periodic\"\nnorth = \"periodic\"",
            "global",
            "",
        ),
        ("all = \"absorb\"", "global", ""),
    ] {
        same_bits(
            &random_scene(dir.path(), "explicit", side, correction, (301, 227), extra),
            40,
            15,
        );
    }
}

/// The fast ADI solves 16 lines side by side (`cpu::fast::adi`): rows transposed into panels for
/// the x sweep, columns copied for the y sweep. 83 × 53 leaves the last panel of each sweep part
/// full (3 and 5 lines), and the sides cover the wrap (Sherman–Morrison's end equations) on
/// either axis, the ghost and absorbing ends and the slope corners.
#[test]
fn the_adi_panels_give_the_twins_bits_with_part_full_panels() {
    let dir = tempfile::tempdir().unwrap();
    for (side, correction) in [
        ("all = \"periodic\"", "global"),
        (
            "west = \"periodic\"\neast = \"periodic\"\nsouth = \"ghost-mean\"\nnorth = \"absorb\"",
            "none",
        ),
        (
            "west = \"open\"\neast = \"ghost-slope\"\nsouth = \"periodic\"\nnorth = \"periodic\"",
            "global",
        ),
        ("all = \"ghost-slope\"", "global"),
    ] {
        same_bits(&random_scene(dir.path(), "adi", side, correction, (83, 53), ""), 30, 12);
    }
}

#[test]
fn the_adi_beach_with_rain_and_probes_gives_the_twins_bits() {
    let mut text = beach_scene("all = \"reflect\"", "adi", 0.02);
    text = text.replace("volume_correction = \"none\"", "volume_correction = \"global\"");
    text.push_str("[rain]\nrate = 40.0\nradius = 0.05\nheight = 0.01\nseed = 3\n");
    text.push_str("[[output.probe]]\nname = \"a\"\nx = 0.6\ny = 1.0\n");
    same_bits(&scene(&text), 80, 30);
}

#[test]
fn the_explicit_beach_with_rain_hands_momentum_on_as_the_twin_does() {
    // Drops on the beach and the bump's waves running up it: films that `limit` holds back, whose
    // momentum `hand_on` passes on (the fast backend's row loop reads a table of what each face
    // held back and runs the twin's update where any is not zero).
    let mut text = beach_scene("all = \"reflect\"", "explicit", 0.01);
    text.push_str("[rain]\nrate = 40.0\nradius = 0.05\nheight = 0.01\nseed = 3\n");
    same_bits(&scene(&text), 300, 70);
}

/// Steps of each preset the twin and the fast backend run side by side: every preset's events
/// start within them (the jet tank's jet stops at step 155, the sluice gate closes at 60, the
/// flash flood's rain is falling by 200). Their whole runs took 367 s on two cores, most of it
/// the Navier-Stokes layer's single-threaded twin (wind waves 82 s, the sluice gate 62 s) and the
/// flash flood's 2400 steps (62 s): a quarter of the suite's time.
const PRESET_STEPS: u64 = 200;
/// Cells × steps a preset runs here at most: the benchmark scenes at their reports' sizes
/// (`ea_test4.toml`, 80 000 cells of ~20 substeps) run fewer steps, as many as the flash flood's
/// 12 288 cells run in 200.
const PRESET_WORK: u64 = 2_500_000;
/// Cells × layers × planned substeps × steps at most: the Navier-Stokes layer's presets and the
/// shallow-water model's deep ones cost that much more a step on the twin (measured on 2 cores,
/// 2026-12-06, the three runs of each: the sluice gate 64.6 s, the wind waves 45.5 s of the test's
/// 299 s; with this bound 21.6 s and 10.4 s of 181 s). Every event still starts within it: the jet tank's jet stops at step 155 (173 run),
/// Moonlight Cove's inflow turns outflow at 160 (162), the sluice gate closes at 60 (122), the
/// flash flood (200, its rain falling) runs all its steps, the dam break and the run-up start at
/// once (101 and 90).
const LAYERED_WORK: u64 = 10_000_000;

#[test]
fn every_preset_scene_gives_the_twins_bits_over_its_first_200_steps() {
    for entry in std::fs::read_dir("scenes").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let scene = Scene::from_file(&path).unwrap();
            let cells = scene.grid.nx as u64 * scene.grid.ny as u64;
            let layers = scene.navier_stokes.as_ref().map_or(1, |ns| ns.layers as u64);
            let substeps = Simulation::new(&scene, Backend::Reference).unwrap().substeps() as u64;
            let steps = scene
                .time
                .steps
                .min(PRESET_STEPS)
                .min(PRESET_WORK / cells)
                .min(LAYERED_WORK / (cells * layers * substeps));
            same_bits(&scene, steps, (steps / 2).max(1));
        }
    }
}
