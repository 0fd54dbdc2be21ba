//! Volume that never drifts: the global correction on wet/dry beaches with both solvers, sources
//! and drains, on the CPU reference and the GPU.

use crate::common::*;
use shoal::{compare, Backend, Scene, Simulation};

/// A 36×24 beach (dx = 5 cm) with a drop running up and down it: wet/dry changes every step.
fn small_beach(solver: &str, correction: &str) -> Scene {
    scene(&format!(
        r#"
[grid]
nx = 36
ny = 24
dx = 0.05
[time]
dt = 0.01
[physics]
solver = "{solver}"
volume_correction = "{correction}"
[terrain]
slope = {{ base = -0.3, grad = [0.4, 0.0] }}
[water]
level = 0.0
[[water.bump]]
x = 0.45
y = 0.6
radius = 0.15
height = 0.06
"#
    ))
}

fn volume_error(sim: &mut Simulation) -> f64 {
    let h = sim.surface().unwrap();
    let v = sim.stats(&h).volume;
    for (h, b) in h.iter().zip(sim.ground()) {
        assert!(h >= b, "a cell's surface {h} lies below its ground {b}");
    }
    (v - sim.target_volume()).abs() / sim.target_volume()
}

/// 20,000 steps of waves running up and down a beach: "global" and "regions" hold the volume to
/// 1e-5 on both solvers, on the CPU for 20,000 steps and on the GPU for 4000 (which the
/// GPU-vs-CPU tests tie to the CPU, as `with_open_sides…` does: the GPU's 20,000 steps of the
/// four held lavapipe over 12 minutes); "none" shows what they correct.
#[test]
fn the_corrections_hold_a_beach_for_20000_steps() {
    for solver in ["explicit", "adi"] {
        let mut uncorrected = simulation(&small_beach(solver, "none"), Backend::Cpu);
        uncorrected.step(20_000).unwrap();
        eprintln!(
            "{solver} none: |V − V0|/V0 {:.2e} after 20,000 steps",
            volume_error(&mut uncorrected)
        );
    }
    // Every CPU run first: the GPU's hold then covers the GPU's runs alone.
    let runs = BOTH.iter().flat_map(|&backend| {
        ["explicit", "adi"]
            .into_iter()
            .flat_map(move |solver| ["global", "regions"].map(|correction| (solver, correction, backend)))
    });
    for (solver, correction, backend) in runs {
        // The GPU's 2000 steps: its passes are the twin's (gpu_matches_cpu_with_the_corrections),
        // and 4000 held lavapipe 62 s of CI's critical path (2026-12-05).
        let steps = if backend == Backend::Gpu { 2000 } else { 20_000 };
        let mut sim = simulation(&small_beach(solver, correction), backend);
        let mut worst = 0.0f64;
        for _ in 0..10 {
            sim.step(steps / 10).unwrap();
            worst = worst.max(volume_error(&mut sim));
        }
        eprintln!(
            "{solver} {backend:?} {correction}: max |V − V_target|/V_target {worst:.2e} over {steps} steps, {:?} regions at the end",
            sim.regions()
        );
        assert!(
            worst <= 1e-5,
            "{solver} {backend:?} {correction}: volume off its target by {worst:.2e}"
        );
    }
}

/// A round pond (2 m × 1.6 m) with beaches all round and dry land at the sides, and a swell
/// running up and down the beaches: water never reaches the sides, so whatever their mode no
/// water crosses them, and the volume must hold.
fn pond(solver: &str, correction: &str, sides: &str, dir: &std::path::Path) -> Scene {
    let (nx, ny, dx) = (40, 32, 0.05);
    write_npy(dir, "ground.npy", ny, nx, |i, j| {
        let (x, y) = ((i as f64 + 0.5) * dx - 1.0, (j as f64 + 0.5) * dx - 0.8);
        -0.15 + 0.6 * ((x * x + y * y).sqrt() - 0.3).max(0.0)
    });
    scene_in(
        dir,
        &format!(
            r#"
[grid]
nx = {nx}
ny = {ny}
dx = {dx}
[time]
dt = 0.01
[physics]
solver = "{solver}"
volume_correction = "{correction}"
[boundary]
all = "{sides}"
[terrain]
npy = "ground.npy"
[water]
level = 0.0
[[water.bump]]
x = 0.85
y = 0.75
radius = 0.12
height = 0.04
"#
        ),
    )
}

/// Through open, absorbing and ghost sides water may cross, so there the correction undoes what
/// the dry-cell rule does rather than hold a fixed target. Where nothing crosses, the volume and
/// the target must stay put. Measured over 20,000 steps: explicit 1.4e-5 (CPU) and 1.7e-6 (GPU),
/// ADI 3.5e-6 and 3.8e-7; uncorrected the pond ends with 1.00× its water on both (2.5× and none
/// before the faces kept their memory, issue 16).
/// What is left is float32 rounding of each cell's sum of face terms: it accumulates in the
/// per-step change, which a closed domain holds at zero but an open one may not; bound 1e-4.
#[test]
fn with_open_sides_the_correction_undoes_the_dry_cell_rule() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // Every side mode for 20,000 steps on the CPU; absorbing sides for 4000 on the GPU too,
    // which the GPU-vs-CPU test then ties to the CPU (20,000 steps on llvmpipe GL take minutes
    // each). The CPU's runs first, so that the GPU's hold covers the GPU's runs alone.
    let runs = [
        ("open", Backend::Cpu, 20_000),
        ("absorb", Backend::Cpu, 20_000),
        ("ghost-mean", Backend::Cpu, 20_000),
        ("absorb", Backend::Gpu, 4000),
    ];
    for solver in ["explicit", "adi"] {
        let mut uncorrected = simulation(&pond(solver, "none", "open", dir), Backend::Cpu);
        let v0 = uncorrected.target_volume();
        uncorrected.step(20_000).unwrap();
        let h = uncorrected.surface().unwrap();
        let grew = uncorrected.stats(&h).volume / v0;
        eprintln!("{solver} none: the pond ends with {grew:.2}× its water");
    }
    for (sides, backend, steps) in runs {
        for solver in ["explicit", "adi"] {
            let mut sim = simulation(&pond(solver, "global", sides, dir), backend);
            let v0 = sim.target_volume();
            let mut worst = 0.0f64;
            let mut target_moved = 0.0f64;
            for _ in 0..10 {
                sim.step(steps / 10).unwrap();
                worst = worst.max(volume_error(&mut sim));
                target_moved = target_moved.max((sim.target_volume() - v0).abs() / v0);
            }
            eprintln!("{solver} {sides} {backend:?}: |V − target|/target {worst:.1e}, target moved {target_moved:.1e}");
            assert!(
                worst <= 1e-5,
                "{solver} {sides} {backend:?}: volume off its target by {worst:.1e}"
            );
            assert!(
                target_moved <= 1e-4,
                "{solver} {sides} {backend:?}: no water crossed the sides, yet the target moved by {target_moved:.1e}"
            );
        }
    }
}

/// A flat basin 0.5 m deep with absorbing sides: a swell leaves through them and takes water
/// with it. No cell ever dries, so the correction has nothing to undo: the run matches the
/// uncorrected one to rounding, and the target follows the water out.
#[test]
fn water_that_leaves_through_the_sides_leaves_the_target_too() {
    let text = |correction: &str| {
        format!(
            "[grid]\nnx = 48\nny = 32\ndx = 0.05\n[time]\ndt = 0.01\n[physics]\nvolume_correction = \"{correction}\"\n\
             [boundary]\nall = \"absorb\"\n[terrain]\nflat = -0.5\n[water]\nlevel = 0.0\n\
             [[water.bump]]\nx = 0.6\ny = 0.8\nradius = 0.15\nheight = 0.05\n"
        )
    };
    for backend in BOTH {
        let mut corrected = simulation(&scene(&text("global")), backend);
        let mut plain = simulation(&scene(&text("none")), backend);
        let v0 = corrected.target_volume();
        corrected.step(600).unwrap();
        plain.step(600).unwrap();
        let (a, b) = (corrected.surface().unwrap(), plain.surface().unwrap());
        let (diff, _) = compare::max_abs_diff(&a, &b);
        let v = corrected.stats(&a).volume;
        let left = (v0 - v) / v0;
        let off = volume_error(&mut corrected);
        eprintln!(
            "{backend:?}: {left:.2e} of the water left, |V − target|/target {off:.1e}, corrected − plain {diff:.1e} m"
        );
        assert!(
            left.abs() > 1e-4,
            "{backend:?}: the swell took no water out ({left:.1e})"
        );
        assert!(
            off <= 1e-6,
            "{backend:?}: the target did not follow the water ({off:.1e})"
        );
        assert!(
            diff <= 1e-6,
            "{backend:?}: the correction changed a run without dry cells by {diff:.1e} m"
        );
    }
}

/// A closed basin, `depth` deep, with one source over a disc, under `correction`.
fn basin_with_source(rate: f64, depth: f64, correction: &str) -> Scene {
    scene(&format!(
        r#"
[grid]
nx = 32
ny = 24
dx = 0.1
[time]
dt = 0.02
[physics]
volume_correction = "{correction}"
[terrain]
flat = -{depth}
[water]
level = 0.0
[[source]]
x = 1.6
y = 1.2
radius = 0.25
rate = {rate}
"#
    ))
}

#[test]
fn a_source_adds_rate_times_time() {
    // 5 cm of water (0.384 m³) and 0.04 m³ more: the source is exact without a correction, and
    // the correction holds the water to the target that counts it.
    let (rate, steps) = (0.002, 1000u64);
    for correction in ["none", "global", "regions"] {
        for backend in BOTH {
            let mut sim = simulation(&basin_with_source(rate, 0.05, correction), backend);
            let h0 = sim.surface().unwrap();
            let v0 = sim.stats(&h0).volume;
            sim.step(steps).unwrap();
            let h = sim.surface().unwrap();
            let added = sim.stats(&h).volume - v0;
            let want = rate * steps as f64 * 0.02;
            let err = (added - want).abs() / want;
            let off = volume_error(&mut sim);
            eprintln!("{correction} {backend:?}: added {added:.6e} m³, r·T = {want:.6e} m³ ({err:.1e}); |V − target|/target {off:.1e}");
            assert!(
                err <= 1e-5,
                "{correction} {backend:?}: the source added {added} m³, r·T = {want} m³"
            );
            assert!(
                off <= 1e-5,
                "{correction} {backend:?}: volume off its target by {off:.1e}"
            );
        }
    }
}

#[test]
fn a_drain_empties_a_basin_without_going_negative() {
    // A floor sloping down to the drain at its west end: 0.24 m³, drained at 0.02 m³/s.
    let text = r#"
[grid]
nx = 32
ny = 24
dx = 0.1
[time]
dt = 0.02
[terrain]
slope = { base = -0.1, grad = [0.05, 0.0] }
[water]
level = 0.0
[[source]]
x = 0.2
y = 1.2
radius = 0.3
rate = -0.02
"#;
    for backend in BOTH {
        let mut sim = simulation(&scene(text), backend);
        let h0 = sim.surface().unwrap();
        let v0 = sim.stats(&h0).volume;
        for _ in 0..10 {
            sim.step(250).unwrap();
            let h = sim.surface().unwrap();
            let off = (sim.stats(&h).volume - sim.target_volume()).abs();
            assert!(off <= 1e-5 * v0, "{backend:?}: volume off its target by {off:.2e} m³");
        }
        let h = sim.surface().unwrap();
        volume_error_abs(&mut sim, &h);
        let s = sim.stats(&h);
        eprintln!(
            "{backend:?}: {:.3e} of {v0:.3e} m³ left in {} wet cells, target {:.3e}",
            s.volume,
            s.wet_cells,
            sim.target_volume()
        );
        // Measured 0.3 % left after 50 s, in puddles the thin film leaves on the slope: the drain
        // empties what reaches it, never below the ground, and the target agrees throughout.
        assert!(s.volume < 1e-2 * v0, "{backend:?}: {} m³ left", s.volume);
    }
}

/// Checks no surface lies below its ground.
fn volume_error_abs(sim: &mut Simulation, h: &[f64]) {
    for (h, b) in h.iter().zip(sim.ground()) {
        assert!(h >= b, "a cell's surface {h} lies below its ground {b}");
    }
}

#[test]
fn gpu_matches_cpu_with_the_corrections_and_a_source() {
    for (solver, correction, sides) in [
        ("explicit", "global", "reflect"),
        ("adi", "global", "reflect"),
        ("explicit", "regions", "reflect"),
        ("adi", "regions", "reflect"),
        ("explicit", "global", "absorb"),
        ("adi", "global", "open"),
    ] {
        let text = beach_scene(&format!("all = \"{sides}\""), solver, 0.01)
            .replace(
                "volume_correction = \"none\"",
                &format!("volume_correction = \"{correction}\""),
            )
            .replace(
                "[water]",
                "[[source]]\nx = 0.5\ny = 1.2\nradius = 0.1\nrate = 0.0005\n[water]",
            );
        let scene = scene(&text);
        let cpu = run(&scene, Backend::Cpu, 500);
        let gpu = run(&scene, Backend::Gpu, 500);
        // The correction moves every wet cell each step, and the source raises the water over
        // the beach, so a shoreline cell within rounding of its ground can flood a step apart on
        // the two backends (ADI: PCR and Thomas round differently in every solve; GL: its
        // compiler reorders float sums). Measured under "global": explicit identical bits on
        // lavapipe and 2.9e-5 m on GL, ADI 3.4e-5 m on both; bounded by four times the foundation's rule
        // (16 ulp per step). Under "regions" such a cell can also cut a puddle off a step apart,
        // and the puddle's share of the target then differs by up to its region's discrepancy:
        // ADI measured 8.9e-5 m at one cell on lavapipe (explicit: identical bits). There the
        // bound is 16 times the rule at any cell, and 4 times it in the root mean square.
        let base = compare::tolerance(500, 0.05) * 4.0;
        let tolerance = if correction == "regions" { base * 4.0 } else { base };
        let (diff, at) = compare::max_abs_diff(&gpu, &cpu);
        let rms = (gpu.iter().zip(&cpu).map(|(a, b)| (a - b) * (a - b)).sum::<f64>() / gpu.len() as f64).sqrt();
        eprintln!(
            "{solver} {correction} {sides}: max |gpu − cpu| {diff:.3e} m (tolerance {tolerance:.3e}), rms {rms:.1e}"
        );
        assert!(
            rms <= base,
            "{solver} {correction} {sides}: GPU and CPU differ by {rms:.3e} m rms"
        );
        assert!(
            diff <= tolerance,
            "{solver} {correction} {sides}: GPU and CPU differ by {diff:.3e} m at cell {at}"
        );
    }
}

/// A 10 cm deep pond in the rain.
fn rainy_pond(seed: u64) -> Scene {
    rainy_pond_with(seed, "global")
}

fn rainy_pond_with(seed: u64, correction: &str) -> Scene {
    scene(&format!(
        r#"
[grid]
nx = 40
ny = 30
dx = 0.05
[time]
dt = 0.01
[physics]
volume_correction = "{correction}"
[terrain]
flat = -0.1
[water]
level = 0.0
[rain]
rate = 30.0
radius = 0.04
height = 0.005
seed = {seed}
"#
    ))
}

#[test]
fn rain_is_reproducible_from_its_seed_and_counted_in_the_target() {
    let mut surfaces = Vec::new();
    for backend in BOTH {
        let runs: Vec<Vec<f64>> = [7, 7, 8]
            .iter()
            .map(|&seed| {
                let mut sim = simulation(&rainy_pond(seed), backend);
                let h0 = sim.surface().unwrap();
                let v0 = sim.stats(&h0).volume;
                // Uneven chunks: the drops depend on the step, not on how steps are grouped.
                sim.step(100).unwrap();
                sim.step(157).unwrap();
                sim.step(43).unwrap();
                let off = volume_error(&mut sim);
                let rained = sim.target_volume() - v0;
                eprintln!("{backend:?} seed {seed}: {rained:.3e} m³ of rain, |V − target|/target {off:.1e}");
                assert!(rained > 1e-4, "{backend:?}: 3 s of rain added only {rained} m³");
                assert!(off <= 1e-5, "{backend:?}: volume off its target by {off:.1e}");
                sim.surface().unwrap()
            })
            .collect();
        assert!(runs[0] == runs[1], "{backend:?}: two runs with seed 7 differ");
        assert!(runs[0] != runs[2], "{backend:?}: seeds 7 and 8 gave the same rain");
        surfaces.push(runs[0].clone());
    }
    let d = compare::check_fields(&surfaces[1], &surfaces[0], 300, 0.005).unwrap();
    eprintln!("rain: max |gpu − cpu| {d:.3e} m");
}

/// The GPU folds the global correction into the explicit step in a closed basin
/// (`Schedule::fuses_correction`): the step sums the level it writes, the next step applies the
/// settled correction as it reads, the probes read their cells corrected, and a chunk's end
/// writes the last correction. Same operations on the same values as the unfused passes and the
/// CPU twin, so on lavapipe the surface and the probes are the twin's bits, over chunks of 100
/// steps (each ends with `apply`) and across a wet/dry beach. Elsewhere (GL's compiler may
/// reorder sums) within the foundation's rule, four times over (see the bound below).
#[test]
fn the_fused_correction_gives_the_unfused_passes_bits() {
    let text = beach_scene("all = \"reflect\"", "explicit", 0.01)
        .replace("volume_correction = \"none\"", "volume_correction = \"global\"")
        .replace(
            "[water]",
            "[[output.probe]]\nname = \"shore\"\nx = 2.6\ny = 1.2\n[water]",
        );
    let scene = scene(&text);
    let mut gpu = simulation(&scene, Backend::Gpu);
    let mut cpu = simulation(&scene, Backend::Reference);
    let exact = crate::common::gpu().info.backend == wgpu::Backend::Vulkan;
    let tolerance = compare::tolerance(300, 0.05) * 4.0;
    for chunk in 0..3 {
        let probes = (gpu.step(100).unwrap(), cpu.step(100).unwrap());
        let (g, c) = (gpu.surface().unwrap(), cpu.surface().unwrap());
        let (diff, at) = compare::max_abs_diff(&g, &c);
        let probe_diff = probes
            .0
            .iter()
            .flatten()
            .zip(probes.1.iter().flatten())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        eprintln!("chunk {chunk}: max |gpu − cpu| {diff:.3e} m at {at}, probes {probe_diff:.3e} m");
        if exact {
            assert_eq!(g, c, "chunk {chunk}: the fused GPU step left other bits than the twin");
            assert_eq!(probes.0, probes.1, "chunk {chunk}: the probes read other bits");
        } else {
            // GL's compiler reorders float sums, and a shoreline cell within rounding of its
            // ground then floods a step apart, and its neighbours after it. Measured on llvmpipe
            // GL: 5.2e-5 m at one cell after 100 steps, 9.3e-4 m after 300, and the same bits
            // with the passes unfused (a build with the fusion switched off): GL's difference,
            // not the fusion's. The bound holds in the root mean square.
            let rms = (g.iter().zip(&c).map(|(a, b)| (a - b) * (a - b)).sum::<f64>() / g.len() as f64).sqrt();
            assert!(rms <= tolerance, "chunk {chunk}: {rms:.3e} m rms");
        }
    }
    assert!(gpu.describe_backend().starts_with("gpu"));
}

/// `shoal run --profile`'s figures: on an adapter with timestamps, every pass of the step is
/// timed (the first chunk warms up, then chunks alternate between timestamps and the wall
/// clock), each with its cost-model bytes; without timestamps, the reason and the cost model.
#[test]
fn a_profile_times_each_pass_of_the_step() {
    let text = beach_scene("all = \"reflect\"", "explicit", 0.01)
        .replace("volume_correction = \"none\"", "volume_correction = \"global\"")
        .replace(
            "[water]",
            "[[output.probe]]\nname = \"shore\"\nx = 2.6\ny = 1.2\n[water]",
        );
    let mut sim = simulation(&scene(&text), Backend::Gpu);
    sim.start_profile();
    for _ in 0..3 {
        sim.step(20).unwrap();
    }
    let profile = sim.profile().expect("profiling started");
    assert_eq!((profile.steps, profile.clock.0, profile.timed_steps), (60, 20, 20));
    assert!(!profile.warm);
    let text = profile.to_string();
    match &profile.timed {
        Ok(times) => {
            let names: Vec<_> = times
                .passes
                .iter()
                .map(|p| (p.name, p.runs, p.bytes_per_cell))
                .collect();
            // The fused step: explicit streams the level once (28 B) and, on a beach, its faces'
            // flux memory (16 B); close folds, settles and probes; the chunk's end reduces (12 B,
            // and a wet cell's faces on a beach, 8 B) and applies (28 B).
            assert_eq!(names, [("explicit", 20, 44), ("close", 20, 0), ("chunk end", 1, 48)]);
            assert!(
                times.passes.iter().all(|p| p.timed == p.runs && p.seconds > 0.0),
                "{times:?}"
            );
            assert!(text.contains("GPU time per step"), "{text}");
        }
        Err(why) => assert!(text.contains(why.as_str()) && text.contains("explicit"), "{text}"),
    }
    // The CPU backends say why they have no GPU passes to time.
    let mut cpu = simulation(&scene(&text_of_beach()), Backend::Cpu);
    cpu.start_profile();
    cpu.step(5).unwrap();
    assert!(cpu.profile().unwrap().timed.is_err());
}

fn text_of_beach() -> String {
    beach_scene("all = \"reflect\"", "explicit", 0.01)
}

#[test]
fn the_same_steps_give_the_same_bits_however_they_are_submitted() {
    // Drops, a source and a drain, under the global correction: the target moves every step.
    // It used to be the host's f64 at each submit's start plus an f32 sum of the submit's feeds,
    // so 1 + 36 + 63 steps ended 1e-8 m from 100; the books now move it step by step in the same
    // operations, and the host hands back the very words it read.
    let scene = scene(
        "[grid]\nnx = 40\nny = 30\ndx = 0.05\n[time]\ndt = 0.01\n[terrain]\nflat = -0.1\n[water]\nlevel = 0.0\n\
         [rain]\nrate = 30.0\nradius = 0.04\nheight = 0.005\nseed = 5\n\
         [[source]]\nx = 0.5\ny = 0.7\nradius = 0.1\nrate = 0.001\n\
         [[source]]\nx = 1.5\ny = 0.7\nradius = 0.1\nrate = -0.0005\n",
    );
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut whole = simulation(&scene, backend);
        whole.step(100).unwrap();
        let mut split = simulation(&scene, backend);
        for n in [1, 36, 63] {
            split.step(n).unwrap();
        }
        assert_eq!(
            whole.surface().unwrap(),
            split.surface().unwrap(),
            "{backend:?}: 100 steps at once and as 1 + 36 + 63 differ"
        );
        assert_eq!(whole.target_volume(), split.target_volume(), "{backend:?}: targets");
    }
}
