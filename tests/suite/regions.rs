//! volume_correction = "regions": the labelling against its CPU twin, each body of water keeping
//! its own volume, and the merge and split rules.

use crate::common::*;
use rand::{Rng, SeedableRng};
use shoal::low_level::{HostEdit, EDIT_DISTURB};
use shoal::{Backend, Scene, Simulation};

/// Two basins along x, 1.5 m each, split by a dry ridge (0.09 m above the still level), each with
/// sloped beaches; a Gaussian swell in the west basin runs up and down its beaches.
fn two_basins(solver: &str, correction: &str, dir: &std::path::Path) -> Scene {
    basins(solver, correction, dir, |i, _| {
        let x = (i as f64 + 0.5) * 0.05;
        let centre = if x < 1.5 { 0.75 } else { 2.25 };
        -0.15 + 0.6 * ((x - centre).abs() - 0.35).max(0.0)
    })
}

/// A 60 × 12 grid of 5 cm cells on `ground` (of column and row), still water at 0 and a swell at
/// (0.75 m, 0.3 m).
fn basins(solver: &str, correction: &str, dir: &std::path::Path, ground: impl Fn(usize, usize) -> f64) -> Scene {
    let (nx, ny, dx) = (60, 12, 0.05);
    write_npy(dir, "ground.npy", ny, nx, ground);
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
[terrain]
npy = "ground.npy"
[water]
level = 0.0
[[water.bump]]
x = 0.75
y = 0.3
radius = 0.15
height = 0.04
"#
        ),
    )
}

/// The water west and east of x = 1.5 m (m³).
fn basin_volumes(sim: &mut Simulation) -> [f64; 2] {
    let h = sim.surface().unwrap();
    let (nx, dx) = (sim.scene().grid.nx as usize, sim.scene().grid.dx);
    let mut v = [0.0; 2];
    for (c, (h, b)) in h.iter().zip(sim.ground()).enumerate() {
        v[usize::from(c % nx >= nx / 2)] += (h - b).max(0.0) * dx * dx;
    }
    v
}

/// Fraction by which each basin's water moved from `v0`.
fn drift(v: [f64; 2], v0: [f64; 2]) -> [f64; 2] {
    [(v[0] - v0[0]).abs() / v0[0], (v[1] - v0[1]).abs() / v0[1]]
}

/// The swell runs up and down the west beaches. "regions" holds each basin to its own volume;
/// "global" holds the sum, and since the beaches make next to no water, the still east basin
/// stays put under it too.
#[test]
fn each_basin_keeps_its_own_volume() {
    let dir = tempfile::tempdir().unwrap();
    for solver in ["explicit", "adi"] {
        for backend in BOTH {
            let mut sim = simulation(&two_basins(solver, "regions", dir.path()), backend);
            let v0 = basin_volumes(&mut sim);
            let mut worst = [0.0f64; 2];
            for _ in 0..10 {
                sim.step(300).unwrap();
                let d = drift(basin_volumes(&mut sim), v0);
                worst = [worst[0].max(d[0]), worst[1].max(d[1])];
                assert_eq!(
                    sim.regions(),
                    Some(2),
                    "{solver} {backend:?}: the basins are two regions"
                );
            }
            // Measured: west 3.5e-9 (explicit) and 6–9e-9 (ADI), east 1–3e-15, on both backends.
            eprintln!(
                "{solver} {backend:?} regions: basins moved by west {:.1e}, east {:.1e}",
                worst[0], worst[1]
            );
            assert!(
                worst[0] <= 1e-5 && worst[1] <= 1e-5,
                "{solver} {backend:?}: a basin's volume moved by {worst:?}"
            );
        }
        let mut global = simulation(&two_basins(solver, "global", dir.path()), Backend::Cpu);
        let v0 = basin_volumes(&mut global);
        global.step(3000).unwrap();
        let d = drift(basin_volumes(&mut global), v0);
        // Where the beaches made water, "global" held the sum by taking the west's excess out of
        // the still east basin: ADI's dry-cell rule refilled what its sweeps overdrained and the
        // east basin paid 2.0e-4 after 3000 steps (0.46 before its faces kept their flux memory,
        // issue 16), ten times the bound "regions" keeps. Both solvers now limit their faces to
        // what a cell holds (the explicit step after its update, `limit`; ADI before its solve,
        // `share`), so the beaches make next to none, and the vel correction counts only what
        // the faces do not hold (`held_in_faces`): it took the flow through the shoreline's faces
        // for error and spread it over every wet cell, pumping the still basin by 1.16e-6
        // (explicit) and 6.7e-7 (ADI). Measured now 3.0e-7 and 9.1e-8 (6.0e-3 and 2.0e-4 before
        // the limit); with no correction the swell's basin drifts ±4e-7 in 3000 steps, the
        // float32 level's rounding. Bound 1e-6, for both.
        eprintln!("{solver} global: basins moved by west {:.2e}, east {:.2e}", d[0], d[1]);
        assert!(d[1] < 1e-6, "{solver}: the beaches made water ({:.1e})", d[1]);
    }
}

/// The two basins with a tall swell at the foot of the ridge: it washes over (the regions merge)
/// and falls back, leaving each basin its share (they split), with puddles coming and going.
fn splash(solver: &str, dir: &std::path::Path) -> Scene {
    let mut scene = two_basins(solver, "regions", dir);
    scene.water.bumps[0].x = 1.1;
    scene.water.bumps[0].height = 0.2;
    scene
}

/// Merging adds the targets and splitting shares them: through both the total holds to 1e-5,
/// and once the basins have parted for good each basin keeps its share to 1e-5.
#[test]
fn a_splash_over_the_ridge_merges_and_splits_the_basins() {
    let dir = tempfile::tempdir().unwrap();
    for solver in ["explicit", "adi"] {
        for backend in BOTH {
            let mut sim = simulation(&splash(solver, dir.path()), backend);
            let mut history = Vec::new();
            let mut worst = 0.0f64;
            let mut parted = None;
            for k in 0..300 {
                sim.step(10).unwrap();
                history.push(sim.regions().unwrap());
                if k % 10 == 9 {
                    let h = sim.surface().unwrap();
                    let off = (sim.stats(&h).volume - sim.target_volume()).abs() / sim.target_volume();
                    worst = worst.max(off);
                }
                if k == 100 {
                    parted = Some(basin_volumes(&mut sim));
                }
            }
            let merged = history.iter().position(|&r| r == 1);
            let last_change = history.windows(2).rposition(|w| w[0] != w[1]).map_or(0, |k| k + 1);
            let d = drift(basin_volumes(&mut sim), parted.unwrap());
            eprintln!(
                "{solver} {backend:?}: merged at step {:?}, regions last changed at step {}, total off by {worst:.1e}, basins moved by {:.1e} / {:.1e} since step 1010",
                merged.map(|k| 10 * (k + 1)),
                10 * (last_change + 1),
                d[0],
                d[1]
            );
            assert!(
                merged.is_some(),
                "{solver} {backend:?}: the splash never joined the basins"
            );
            // Parted for good: from step 1000 on, never one region again. Puddles may still
            // come and go as extra regions (ADI's shoreline keeps its sloshing since issue 16:
            // measured last change at step 2910, against 320 for the explicit step).
            assert!(
                history[100..].iter().all(|&r| r >= 2),
                "{solver} {backend:?}: the basins had not parted for good by step 1000: {history:?}"
            );
            assert!(worst <= 1e-5, "{solver} {backend:?}: the total moved by {worst:.1e}");
            assert!(
                d[0] <= 1e-5 && d[1] <= 1e-5,
                "{solver} {backend:?}: after parting, a basin moved by {d:?}"
            );
        }
    }
}

/// Random ground, 60 % of it under the water: near the percolation threshold, so the regions are
/// many, large and tangled (long union-find chains, regions across many tiles).
fn tangled(nx: usize, ny: usize, sides: &str, dir: &std::path::Path) -> Scene {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(nx as u64 * 7 + ny as u64);
    let ground: Vec<f64> = (0..nx * ny).map(|_| rng.random_range(-1.0..1.0)).collect();
    write_npy(dir, "ground.npy", ny, nx, |i, j| ground[j * nx + i]);
    scene_in(
        dir,
        &format!(
            r#"
[grid]
nx = {nx}
ny = {ny}
dx = 0.1
[time]
dt = 0.005
[physics]
volume_correction = "regions"
[boundary]
all = "{sides}"
[terrain]
npy = "ground.npy"
[water]
level = 0.2
[[water.bump]]
x = 1.0
y = 1.0
radius = 0.3
height = 0.3
"#
        ),
    )
}

/// Checks `labels` label the wet cells of `sim`'s surface as connected regions numbered in the
/// order of their first cell; returns the number of regions.
fn check_labels(sim: &mut Simulation, labels: &[u32], periodic: bool) -> u32 {
    let (nx, ny) = (sim.scene().grid.nx as usize, sim.scene().grid.ny as usize);
    let h = sim.surface().unwrap();
    let mut next = 1;
    let mut seen = vec![false; labels.len()];
    for c in 0..labels.len() {
        assert_eq!(
            labels[c] != 0,
            h[c] > sim.ground()[c],
            "cell {c}: labelled {} but wet is {}",
            labels[c],
            h[c] > sim.ground()[c]
        );
        if labels[c] == 0 || seen[c] {
            continue;
        }
        assert_eq!(labels[c], next, "cell {c} opens region {} out of order", labels[c]);
        next += 1;
        // Flood the region from its first cell: every neighbour it reaches has its label.
        let mut stack = vec![c];
        seen[c] = true;
        while let Some(k) = stack.pop() {
            let (i, j) = (k % nx, k / nx);
            let mut neighbours = Vec::new();
            if i + 1 < nx || periodic {
                neighbours.push(j * nx + (i + 1) % nx);
            }
            if i > 0 || periodic {
                neighbours.push(j * nx + (i + nx - 1) % nx);
            }
            if j + 1 < ny || periodic {
                neighbours.push((j + 1) % ny * nx + i);
            }
            if j > 0 || periodic {
                neighbours.push((j + ny - 1) % ny * nx + i);
            }
            for m in neighbours {
                if labels[m] != 0 {
                    assert_eq!(labels[m], labels[c], "neighbours {k} and {m} in two regions");
                    if !seen[m] {
                        seen[m] = true;
                        stack.push(m);
                    }
                }
            }
        }
    }
    for c in 0..labels.len() {
        assert!(
            labels[c] == 0 || seen[c],
            "region {} is not connected (cell {c})",
            labels[c]
        );
    }
    next - 1
}

/// The GPU's union-find labels the same regions, with the same numbers, as the CPU twin, and both
/// are correct connected-component labellings, also after waves have moved the shores.
#[test]
fn gpu_labels_match_the_cpu_twin() {
    let dir = tempfile::tempdir().unwrap();
    for (nx, ny, sides) in [(97, 61, "reflect"), (64, 48, "periodic"), (300, 200, "reflect")] {
        let scene = tangled(nx, ny, sides, dir.path());
        let mut cpu = simulation(&scene, Backend::Cpu);
        let mut gpu = simulation(&scene, Backend::Gpu);
        let labels = gpu.region_labels().unwrap();
        assert!(
            labels == cpu.region_labels().unwrap(),
            "{nx}×{ny} {sides}: GPU and CPU label differently"
        );
        let regions = check_labels(&mut gpu, &labels, sides == "periodic");
        // The cells whose wetness differed from the start's at any of four reads 100 steps apart.
        let mut flipped = vec![false; labels.len()];
        let mut moved = labels.clone();
        for _ in 0..4 {
            gpu.step(100).unwrap();
            moved = gpu.region_labels().unwrap();
            for (f, (a, b)) in flipped.iter_mut().zip(labels.iter().zip(&moved)) {
                *f |= (*a == 0) != (*b == 0);
            }
        }
        let after = check_labels(&mut gpu, &moved, sides == "periodic");
        assert_eq!(Some(after), gpu.regions());
        let changed = flipped.iter().filter(|&&f| f).count();
        eprintln!("{nx}×{ny} {sides}: {regions} regions, {after} after 400 steps, {changed} cells wetted or dried");
        assert!(changed > 20, "{nx}×{ny}: the waves moved only {changed} shore cells");
        assert!(
            regions > 20,
            "{nx}×{ny}: only {regions} regions: the test needs a tangled mask"
        );
    }
}

/// Two basins 0.3 m deep inside walls 0.5 m above the still water, the one between them 0.4 m
/// thick, with a swell in the west one.
fn walled_basins(dir: &std::path::Path) -> Scene {
    basins("explicit", "regions", dir, |i, j| {
        let wall = i == 0 || i == 59 || j == 0 || j == 11 || (26..34).contains(&i);
        if wall {
            0.5
        } else {
            -0.3
        }
    })
}

/// Where the wet set does not change from one step to the next, `label_check` leaves the
/// labelling's dispatches empty and each cell keeps its label. Between vertical walls the swell
/// wets and dries nothing, so every step after the first takes that way: the labels stay those of
/// the start, each basin keeps its volume, and the GPU's levels are the CPU twin's (the twin
/// keeps its labels the same way). A splash on the middle wall then changes the wet set: both
/// label again, alike, with a third region on the wall.
#[test]
fn a_wet_set_that_does_not_change_keeps_its_labels() {
    let dir = tempfile::tempdir().unwrap();
    let scene = walled_basins(dir.path());
    let mut cpu = simulation(&scene, Backend::Cpu);
    let mut gpu = simulation(&scene, Backend::Gpu);
    let start = gpu.region_labels().unwrap();
    assert_eq!(check_labels(&mut gpu, &start, false), 2);
    let (v0, level0) = (basin_volumes(&mut gpu), gpu.surface().unwrap());
    for _ in 0..6 {
        cpu.step(50).unwrap();
        gpu.step(50).unwrap();
        let labels = gpu.region_labels().unwrap();
        assert!(labels == start, "the walls hold the water: the wet set never changes");
        assert!(labels == cpu.region_labels().unwrap(), "GPU and CPU label differently");
        let (g, c) = (gpu.surface().unwrap(), cpu.surface().unwrap());
        let apart = g.iter().zip(&c).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        // The explicit step and the correction are the twin's to the bit on lavapipe and GL
        // (volume::gpu_matches_cpu); a few ulps of the 0.3 m depth leave room for a compiler
        // that contracts a multiply-add.
        assert!(apart <= 1e-7, "GPU and CPU levels {apart:e} m apart");
        // Each basin's own water, to the correction's fixed point and f32 depths (the same
        // bound as the basins with beaches, each_basin_keeps_its_own_volume).
        let d = drift(basin_volumes(&mut gpu), v0);
        assert!(d[0] < 5e-8 && d[1] < 5e-8, "basins drifted {d:?}");
    }
    // The swell moved: the kept labels carried a live surface, not a still one.
    let moved = gpu
        .surface()
        .unwrap()
        .iter()
        .zip(&level0)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(moved > 1e-3, "the swell barely moved ({moved:e} m)");
    let dx = scene.grid.dx;
    let splash = [HostEdit::at(EDIT_DISTURB, 1.5, 0.3, 0.06, 0.05, dx)];
    for sim in [&mut cpu, &mut gpu] {
        sim.edit(&splash).unwrap();
        sim.step(1).unwrap();
    }
    let labels = gpu.region_labels().unwrap();
    assert!(
        labels == cpu.region_labels().unwrap(),
        "after the splash GPU and CPU label differently"
    );
    assert_eq!(
        check_labels(&mut gpu, &labels, false),
        3,
        "the splash makes a pool on the wall"
    );
    assert_eq!(gpu.regions(), Some(3));
}
