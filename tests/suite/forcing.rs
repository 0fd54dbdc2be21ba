//! Forcing over time (issue 19): hydrographs, rainfall intensity, air pressure patches and the
//! damping map, on every height-field backend, and their bad input.

use crate::common::{scene_in, simulation, water_volume, write_npy};
use shoal::Backend;
use std::path::Path;

const BACKENDS: [Backend; 3] = [Backend::Reference, Backend::Cpu, Backend::Gpu];

/// A flat, closed, dry basin 24 × 16 cells of 0.5 m: every drop of water in it was added, so
/// its f32 depths measure the added volume to ~1e-7 of itself.
fn dry_basin(extra: &str, solver: &str) -> String {
    format!(
        "[grid]\nnx = 24\nny = 16\ndx = 0.5\n[time]\ndt = 0.02\nsteps = 100\n\
         [physics]\nsolver = \"{solver}\"\n[terrain]\nflat = 0.0\n[water]\nlevel = 0.0\n{extra}"
    )
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn a_hydrograph_adds_the_integral_of_its_table_beside_the_steady_rate() {
    // Rows (s, m³/s): a flood rising to 0.2 and falling back, linear between rows; 0 held after.
    // Its integral is 0.05 + 0.0625 + 0.0125 = 0.125 m³, the steady rate's 0.01 m³/s · 2 s more.
    // Tolerance 1e-5 of the added volume (the issue's): the steps' shares are exact integrals,
    // so what is left is f32 rounding of the entries and of the depths' sum (~1e-7).
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "q.csv", "time,rate\n0,0\n0.5,0.2\n1.0,0.05\n1.5,0\n");
    for solver in ["explicit", "adi"] {
        let text = dry_basin(
            "[[source]]\nx = 6.0\ny = 4.0\nradius = 1.0\nrate = 0.01\nhydrograph = \"q.csv\"\n",
            solver,
        );
        let scene = scene_in(dir.path(), &text);
        for backend in BACKENDS {
            let mut sim = simulation(&scene, backend);
            sim.step(100).unwrap();
            let added = water_volume(&mut sim);
            let want = 0.125 + 0.01 * 2.0;
            assert!(
                ((added - want) / want).abs() < 1e-5,
                "{solver} {backend:?}: added {added} m³, the table and the steady rate give {want}"
            );
        }
    }
}

#[test]
fn rainfall_adds_its_intensity_over_the_area_and_time_for_uniform_and_map() {
    // 36 mm/h over 96 m² for 2 s scaled by a series rising 1 → 3 over the first second and held:
    // ∫ factor = 2 + 3 = 5 s, so 36e-3/3600 · 96 · 5 = 4.8e-3 m³. The map: 100 mm/h on the west
    // half, 50 on the east, same series: (100 + 50)/2 · 1e-3/3600 · 96 · 5 = 0.01 m³.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "r.csv", "time,factor\n0,1\n1,3\n");
    write_npy(dir.path(), "rain.npy", 16, 24, |i, _| if i < 12 { 100.0 } else { 50.0 });
    for (rainfall, want) in [
        ("intensity = 36.0", 36e-3 / 3600.0 * 96.0 * 5.0),
        ("map = \"rain.npy\"", 75e-3 / 3600.0 * 96.0 * 5.0),
    ] {
        let text = dry_basin(&format!("[rainfall]\n{rainfall}\nseries = \"r.csv\"\n"), "explicit");
        let scene = scene_in(dir.path(), &text);
        for backend in BACKENDS {
            let mut sim = simulation(&scene, backend);
            sim.step(100).unwrap();
            let added = water_volume(&mut sim);
            assert!(
                ((added - want) / want).abs() < 1e-5,
                "{rainfall} on {backend:?}: added {added} m³, ∫ intensity·area is {want}"
            );
        }
    }
}

#[test]
fn rainfall_and_the_damping_map_outlive_a_rise_in_the_substeps() {
    // A pool 1 m deep (12 m × 8 m) at dt = 0.1 s: k·d = 0.392, one substep up to 1.02 m. Rain
    // of 0.01 m/s deepens it past that within ~2 s, and the explicit solver takes a second
    // substep (checked after each chunk: here every 10 steps). Rebuilding the parameters for it
    // used to drop the rainfall and forcing flags (measured: 9.504 m³ of rain, and the map's
    // damping lost). Over 10 s it adds 0.01 · 96 · 10 = 9.6 m³; tolerance
    // 1e-5 of that, as for rainfall alone. The damping map (tau 1/64 everywhere, exact in f32)
    // must stay too, at the new substeps' keep: the same run with `damping = 0.015625` and no
    // map ends on the same bits.
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "tau.npy", 16, 24, |_, _| 0.015625);
    let pool = |extra: &str| {
        scene_in(
            dir.path(),
            &format!(
                "[grid]\nnx = 24\nny = 16\ndx = 0.5\n[time]\ndt = 0.1\nsteps = 100\n\
                 [physics]\n{extra}\n[terrain]\nflat = -1.0\n[water]\nlevel = 0.0\n\
                 [rainfall]\nintensity = 36000.0\n"
            ),
        )
    };
    let (mapped, uniform) = (pool("damping_map = \"tau.npy\""), pool("damping = 0.015625"));
    for backend in BACKENDS {
        let mut sim = simulation(&mapped, backend);
        let before = water_volume(&mut sim);
        assert_eq!(sim.substeps(), 1);
        // In chunks of 10 steps: the substeps are checked after each.
        for _ in 0..10 {
            sim.step(10).unwrap();
        }
        assert_eq!(
            sim.substeps(),
            2,
            "{backend:?}: the rain did not deepen the pool past one substep"
        );
        let added = water_volume(&mut sim) - before;
        assert!(
            ((added - 9.6) / 9.6).abs() < 1e-5,
            "{backend:?}: the rain added {added} m³ of 9.6 m³"
        );
        let mut reference = simulation(&uniform, backend);
        for _ in 0..10 {
            reference.step(10).unwrap();
        }
        assert_eq!(
            sim.surface().unwrap(),
            reference.surface().unwrap(),
            "{backend:?}: the damping map damped otherwise than its uniform tau"
        );
    }
}

/// A closed pool 2 m deep, 48 × 48 cells of 1 m, damped so it settles, under a still patch.
fn pool_under(patch: &str, solver: &str) -> String {
    format!(
        "[grid]\nnx = 48\nny = 48\ndx = 1.0\n[time]\ndt = 0.1\nsteps = 10\n\
         [physics]\nsolver = \"{solver}\"\ndamping = 0.02\n[terrain]\nflat = -2.0\n[water]\nlevel = 0.0\n\
         [[pressure]]\n{patch}\n"
    )
}

#[test]
fn a_still_pool_under_a_steady_low_settles_at_the_inverse_barometer_level() {
    // −1000 Pa at the centre of a Gaussian low (sigma 6 m): at rest h + p/(ρg) is level, so the
    // cell at the centre (its middle 0.5 m off the low's centre along each axis: exp(−0.5/72) of
    // the peak) stands 1000/(1000·9.81)·0.99308 = 0.10123 m above the far corner (whose own
    // share, exp(−(23.5²·2)/72) ≈ 2e-7, is nothing). The issue asks for 2 %; the settled balance
    // is the scheme's exactly, so this holds it to 0.1 % (measured: 3e-7), after 300 s of damped
    // sloshing (τ = 0.02 per step: amplitudes fall by e every ~5 s).
    let patch = "shape = \"gaussian\"\nx = 24.0\ny = 24.0\nradius = 6.0\nstrength = -1000.0";
    let want = 1000.0 / (1000.0 * 9.81) * (-0.5f64 / 72.0).exp();
    // The CPU's runs first, so that the GPU's hold covers the GPU's runs alone.
    for backend in [Backend::Cpu, Backend::Gpu] {
        for solver in ["explicit", "adi"] {
            let scene = crate::common::scene(&pool_under(patch, solver));
            let mut sim = simulation(&scene, backend);
            // The GPU settles for 150 s (its passes are the twin's; sloshing falls by e every
            // 5 s): 3000 steps held lavapipe 38 s of CI's critical path.
            sim.step(if backend == Backend::Gpu { 1500 } else { 3000 }).unwrap();
            let h = sim.surface().unwrap();
            let rise = h[24 * 48 + 24] - h[0];
            assert!(
                ((rise - want) / want).abs() < 1e-3,
                "{solver} {backend:?}: the low raised the centre {rise} m above the corner, the inverse barometer says {want}"
            );
        }
    }
}

#[test]
fn a_box_patch_of_high_pressure_pushes_the_water_down_by_its_head() {
    // A 10 × 10 m box of +500 Pa: inside it the settled surface stands 0.051 m below outside.
    let patch = "shape = \"box\"\nx = 24.0\ny = 24.0\nsize = [10.0, 10.0]\nstrength = 500.0";
    let scene = crate::common::scene(&pool_under(patch, "explicit"));
    // Exact once settled, as the Gaussian low: 1e-3 of the head.
    let mut sim = simulation(&scene, Backend::Cpu);
    sim.step(3000).unwrap();
    let h = sim.surface().unwrap();
    let drop = h[0] - h[24 * 48 + 24];
    let want = 500.0 / (1000.0 * 9.81);
    assert!(
        ((drop - want) / want).abs() < 1e-3,
        "the box pushed the water down {drop} m, want {want}"
    );
}

#[test]
fn a_high_stronger_than_the_water_is_deep_clears_a_dry_patch_and_makes_no_water() {
    // Issue 57: +1e6 Pa (a head of 102 m) over 0.5 m of water, uncorrected: the wave it raised
    // dried the cells under it, and with no dry cell at the start the faces ran unlimited, so
    // the dry-cell rule refilled what they overdrained: 0.640 → 1.039 m³. A high whose head can
    // dry the water now runs the limited faces, which never take more than a cell holds. The
    // volume stays within 1e-5 of its 1.28 m³ (measured 2.8e-6 explicit, 7.9e-7 ADI on the CPU;
    // the f32 roundings of the drying cells), a hundred times inside the run's own 1e-3 guard.
    let text = "[grid]\nnx = 32\nny = 32\ndx = 0.05\n[time]\ndt = 0.005\n[physics]\nsolver = \"SOLVER\"\n\
                volume_correction = \"none\"\n[water]\nlevel = 0.5\n[[pressure]]\nx = 0.8\ny = 0.8\n\
                radius = 0.2\nstrength = 1.0e6\n";
    for backend in [Backend::Cpu, Backend::Gpu] {
        for solver in ["explicit", "adi"] {
            let scene = crate::common::scene(&text.replace("SOLVER", solver));
            let mut sim = simulation(&scene, backend);
            sim.step(200).unwrap();
            let h = sim.surface().unwrap();
            let volume: f64 = h.iter().map(|h| h.max(0.0)).sum::<f64>() * 0.05 * 0.05;
            assert!(
                (volume / 1.28 - 1.0).abs() < 1e-5,
                "{solver} {backend:?}: the volume went 1.28 → {volume} m³"
            );
            // The high cleared the water under its centre: a dry patch, not a film refilled.
            let centre = h[16 * 32 + 16];
            assert!(
                centre < 1e-3,
                "{solver} {backend:?}: {centre} m of water under a 102 m head"
            );
        }
    }
}

#[test]
fn a_patch_faster_than_the_waves_leaves_a_wedge_behind_it_and_calm_water_ahead() {
    // Water 0.5 m deep: waves run at c = √(g·d) = 2.21 m/s. A patch at 4.43 m/s (Froude 2)
    // trails a wedge of half-angle asin(1/2) = 30° (the shallow-water Mach cone); ahead of it,
    // and outside the wedge, the water has not heard of it yet.
    let text = "[grid]\nnx = 160\nny = 80\ndx = 0.5\n[time]\ndt = 0.04\nsteps = 10\n\
        [terrain]\nflat = -0.5\n[water]\nlevel = 0.0\n[boundary]\nall = \"absorb\"\n\
        [[pressure]]\nx = 10.0\ny = 20.0\nradius = 1.0\nstrength = 300.0\nvelocity = [4.43, 0.0]\n";
    let scene = crate::common::scene(text);
    let mut sim = simulation(&scene, Backend::Cpu);
    let steps = 300;
    sim.step(steps).unwrap();
    let h = sim.surface().unwrap();
    let t = steps as f64 * 0.04;
    let (px, py) = (10.0 + 4.43 * t, 20.0);
    let at = |x: f64, y: f64| h[(y / 0.5) as usize * 160 + (x / 0.5) as usize];
    let peak = h.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    // 4 m ahead of the centre (4 sigma): still.
    assert!(
        at(px + 4.0, py).abs() < 0.01 * peak,
        "ahead of the patch: {} (peak {peak})",
        at(px + 4.0, py)
    );
    // 12 m behind, the wedge's arms stand 12·tan 30° = 6.9 m off the track: disturbed there,
    // still well outside (13 m off the track).
    let arm = (0..=24)
        .map(|k| at(px - 12.0, py + 3.0 + 0.25 * k as f64).abs())
        .fold(0.0, f64::max);
    assert!(
        arm > 0.1 * peak,
        "no wake arm 12 m behind the patch (max {arm}, peak {peak})"
    );
    assert!(
        at(px - 12.0, py + 13.0).abs() < 0.02 * peak,
        "water outside the wedge moved: {}",
        at(px - 12.0, py + 13.0)
    );
}

#[test]
fn a_damping_map_of_tau_everywhere_damps_exactly_as_the_global_tau_and_a_partial_one_less() {
    // The map adds to `damping` cell by cell: a map of 0.01 everywhere is damping = 0.01, bit
    // for bit (both are 1 − 0.01 rounded once to f32); a map over half the basin damps less.
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "all.npy", 32, 32, |_, _| 0.01);
    write_npy(dir.path(), "half.npy", 32, 32, |i, _| if i < 16 { 0.01 } else { 0.0 });
    let base = "[grid]\nnx = 32\nny = 32\ndx = 0.1\n[time]\ndt = 0.01\nsteps = 10\n[terrain]\nflat = -0.5\n\
        [water]\nlevel = 0.0\n[[water.bump]]\nx = 1.6\ny = 1.6\nradius = 0.3\nheight = 0.02\n";
    for solver in ["explicit", "adi"] {
        let with = |physics: &str| {
            scene_in(
                dir.path(),
                &format!("{base}[physics]\nsolver = \"{solver}\"\n{physics}\n"),
            )
        };
        for backend in [Backend::Reference, Backend::Gpu] {
            let energy = |physics: &str| {
                let mut sim = simulation(&with(physics), backend);
                sim.step(150).unwrap();
                sim.surface().unwrap()
            };
            let global = energy("damping = 0.01");
            let mapped = energy("damping_map = \"all.npy\"");
            assert_eq!(
                global, mapped,
                "{solver} {backend:?}: a map of 0.01 everywhere is not damping = 0.01"
            );
            let swing = |h: &[f64]| h.iter().map(|v| v * v).sum::<f64>();
            let half = energy("damping_map = \"half.npy\"");
            let none = energy("damping = 0.0");
            assert!(
                swing(&global) < swing(&half) && swing(&half) < swing(&none),
                "{solver} {backend:?}: half a map should damp between none and all ({} {} {})",
                swing(&none),
                swing(&half),
                swing(&global)
            );
        }
    }
}

#[test]
fn every_forcing_at_once_agrees_between_the_gpu_and_its_cpu_twin() {
    // A moving low, a hydrograph, a rainfall map and series and a damping map on a sloping basin.
    // GPU and CPU agree to 1e-5 m over 100 steps: the same f32 operations in the same order but
    // for the GPU's exp() (a few ulps in the head) and fused multiply-adds.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "q.csv", "time,rate\n0,0\n1,0.3\n2,0\n");
    write(dir.path(), "r.csv", "time,factor\n0,0\n2,2\n");
    write_npy(dir.path(), "rain.npy", 16, 24, |i, j| (i + j) as f64);
    write_npy(dir.path(), "damp.npy", 16, 24, |i, _| if i > 18 { 0.05 } else { 0.0 });
    for solver in ["explicit", "adi"] {
        let text = format!(
            "[grid]\nnx = 24\nny = 16\ndx = 0.5\n[time]\ndt = 0.02\nsteps = 100\n\
             [physics]\nsolver = \"{solver}\"\ndamping_map = \"damp.npy\"\n\
             [terrain]\nslope = {{ base = -0.6, grad = [0.05, 0.0] }}\n[water]\nlevel = 0.0\n\
             [[source]]\nx = 3.0\ny = 4.0\nradius = 0.8\nhydrograph = \"q.csv\"\n\
             [rainfall]\nmap = \"rain.npy\"\nseries = \"r.csv\"\n\
             [[pressure]]\nx = 2.0\ny = 4.0\nradius = 1.0\nstrength = -400.0\nvelocity = [2.0, 0.5]\n\
             [[pressure]]\nshape = \"box\"\nsize = [2.0, 1.0]\nstrength = 150.0\npath = [[0.0, 10.0, 6.0], [2.0, 4.0, 6.0]]\n"
        );
        let scene = scene_in(dir.path(), &text);
        let cpu = {
            let mut sim = simulation(&scene, Backend::Reference);
            sim.step(100).unwrap();
            sim.surface().unwrap()
        };
        let gpu = {
            let mut sim = simulation(&scene, Backend::Gpu);
            sim.step(100).unwrap();
            sim.surface().unwrap()
        };
        let worst = cpu.iter().zip(&gpu).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(worst < 1e-5, "{solver}: GPU and CPU differ by {worst} m");
        let fast = {
            let mut sim = simulation(&scene, Backend::Cpu);
            sim.step(100).unwrap();
            sim.surface().unwrap()
        };
        assert_eq!(cpu, fast, "{solver}: the fast CPU backend is not the twin's bits");
    }
}

#[test]
fn bad_forcing_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "neg.csv", "time,rate\n0,1\n1,-1\n");
    write(dir.path(), "unsorted.csv", "time,rate\n0,1\n2,1\n1,1\n");
    write(dir.path(), "one.csv", "time,rate\n0,1\n");
    let parse = |extra: &str| {
        // A `[physics]` key joins the basin's own table.
        let text = match extra.strip_prefix("[physics]\n") {
            Some(key) => dry_basin("", "explicit").replace("[physics]\n", &format!("[physics]\n{key}")),
            None => dry_basin(extra, "explicit"),
        };
        shoal::Scene::parse(&text, Path::new("s.toml"), dir.path())
            .and_then(|s| shoal::Simulation::new(&s, Backend::Reference).map(|_| ()))
            .expect_err(extra)
            .to_string()
    };
    let src = |file: &str| format!("[[source]]\nx = 1.0\ny = 1.0\nradius = 0.5\nhydrograph = \"{file}\"\n");
    for (extra, says) in [
        (src("neg.csv"), "source[0].hydrograph"),
        (src("unsorted.csv"), "times must increase"),
        (src("one.csv"), "one row"),
        (src("missing.csv"), "source[0].hydrograph"),
        ("[rainfall]\nseries = \"one.csv\"\n".into(), "rainfall.intensity"),
        ("[rainfall]\nintensity = -1.0\n".into(), "rainfall.intensity"),
        ("[rainfall]\nmap = \"m.npy\"\nintensity = 3.0\n".into(), "not both"),
        ("[rainfall]\nmap = \"m.csv\"\n".into(), "rainfall.map"),
        ("[[pressure]]\nstrength = 10.0\n".into(), "needs a radius"),
        (
            "[[pressure]]\nshape = \"box\"\nstrength = 10.0\n".into(),
            "needs a size",
        ),
        (
            "[[pressure]]\nradius = 1.0\nstrength = 10.0\npath = [[1.0, 0.0, 0.0], [0.5, 1.0, 1.0]]\n".into(),
            "times must increase",
        ),
        (
            "[[pressure]]\nradius = 1.0\nstrength = nan\n".into(),
            "pressure[0].strength",
        ),
        (
            "[physics]\ndamping_map = \"nothing.npy\"\n".into(),
            "physics.damping_map",
        ),
    ] {
        let err = parse(&extra);
        assert!(err.contains(says), "{extra}: the error does not say {says:?}: {err}");
    }
}

#[test]
fn the_pipes_take_rainfall_in_whole_units_carrying_each_columns_fraction() {
    // 60 mm/h on a dry 2 % slope of 10 m columns for 100 s: 85.333 m³. The pipes add whole
    // units and carry each column's fraction to the next step, so the water (no spray here)
    // is the rainfall's integral less under one unit per column (512 · 2^-k m · 100 m²: 1e-6
    // of it); every backend adds the same units.
    let text = "[grid]\nnx = 32\nny = 16\ndx = 10.0\n[time]\ndt = 1.0\nsteps = 100\n\
        [physics]\nmodel = \"pipes\"\n[pipes]\ndt = 0.25\n[spray]\nenabled = false\n\
        [terrain]\nslope = { base = 10.0, grad = [-0.02, 0.0] }\n[water]\nlevel = 3.6\n\
        [rainfall]\nintensity = 60.0\n";
    let scene = crate::common::scene(text);
    let want = 60e-3 / 3600.0 * 32.0 * 16.0 * 100.0 * 100.0;
    let mut volumes = Vec::new();
    for backend in BACKENDS {
        let mut sim = simulation(&scene, backend);
        sim.step(100).unwrap();
        let added = water_volume(&mut sim);
        assert!(
            ((added - want) / want).abs() < 1e-5,
            "{backend:?}: {added} m³ of {want}"
        );
        volumes.push(added);
    }
    assert!(
        volumes.windows(2).all(|w| w[0] == w[1]),
        "the backends added different units: {volumes:?}"
    );
}

#[test]
fn the_height_field_holds_the_rain_that_fell_on_a_closed_dry_slope() {
    // The pipes' slope above, on the height field's two solvers, closed sides. The films draining
    // down the dry slope used to overdrain their cells, the dry-cell rule refilled them, and the
    // explicit step's slope held 10.1× the rain after 100 s, 1.76× under the global correction
    // (which cannot take water back from films); ADI's 9.6× (none). Each face now moves at most a
    // quarter of what its source holds: the explicit step limits its faces after its update
    // (`limit`), ADI before its solve (adi.wgsl's `share`). Measured with no correction / the
    // global one: explicit 1.000007 / 0.999967, ADI 1.000012 / 1.000009 (CPU; the GPU's within
    // 1e-5 of them): the rain's f32 additions onto 10 m surfaces, compensated in each cell's
    // carry, which the volume read leaves out. Bound 1e-4.
    let want = 60e-3 / 3600.0 * 32.0 * 16.0 * 100.0 * 100.0;
    for (solver, correction) in [
        ("explicit", "none"),
        ("explicit", "global"),
        ("adi", "none"),
        ("adi", "global"),
    ] {
        let text = format!(
            "[grid]\nnx = 32\nny = 16\ndx = 10.0\n[time]\ndt = 1.0\nsteps = 100\n\
             [physics]\nsolver = \"{solver}\"\nvolume_correction = \"{correction}\"\n\
             [terrain]\nslope = {{ base = 10.0, grad = [-0.02, 0.0] }}\n[water]\nlevel = 3.6\n\
             [rainfall]\nintensity = 60.0\n"
        );
        let scene = crate::common::scene(&text);
        for backend in [Backend::Cpu, Backend::Gpu] {
            let mut sim = simulation(&scene, backend);
            let before = water_volume(&mut sim);
            sim.step(100).unwrap();
            let held = (water_volume(&mut sim) - before) / want;
            eprintln!("{solver} {correction} {backend:?}: the slope holds {held:.6} of the rain");
            assert!(
                (held - 1.0).abs() < 1e-4,
                "{solver} {correction} {backend:?}: held {held} of the rain"
            );
        }
    }
}

/// Depths (m) of a run's cells, row by row.
fn depths(sim: &mut shoal::Simulation) -> Vec<f64> {
    let surface = sim.surface().unwrap();
    surface
        .iter()
        .zip(sim.ground())
        .map(|(h, b)| (h - b).max(0.0))
        .collect()
}

#[test]
fn the_sides_of_a_rained_on_dry_slope_let_water_out_and_make_none() {
    // The closed slope above (explicit, no correction) with each open kind of side: every edge
    // cell stands on a bank, ground above the still level, with no sea beyond it. Measured before
    // the bank rule (held ÷ fallen at 100 s): absorb 4.50 (Mur read the terrain's slope as a wave),
    // ghost-mean 5566 (its ghost at the mean wet surface, halfway up the slope, poured in),
    // ghost-slope 3.74 and diverged at step 169 (the uphill ghost mirrored the water draining
    // downhill back in, and the slope corners' mean stood 0.1 m of water on them), open 0.51 (its
    // ghost at the still level, 6 m below, drained the film out uphill). Now each lets water out
    // and none in: at most the rain held (1e-4: the closed run holds 1.000007), the uphill column
    // the closed run's but for its corners, which drain through the long sides (a film moves
    // ~0.1 m/s, so the downhill side cannot reach it in 100 s: measured equal, bound 1e-6), no
    // cell deeper than the closed run's deepest (the pool at its downhill wall), and the three
    // backends within 1e-6 m of each other (measured equal). ADI, the same (its films limited
    // before the solve, `share`; before, it made water whatever its sides): held ÷ fallen
    // 0.8636 / 0.3056 / 0.2078 with every open kind of side (the explicit step's 0.8655 / 0.3062
    // / 0.2075); its backends within 2e-6 m (below; measured 9.5e-7 between the GPU and the CPU).
    for solver in ["explicit", "adi"] {
        sides_let_out_and_make_none(solver);
    }
}

fn sides_let_out_and_make_none(solver: &str) {
    let (nx, ny) = (32usize, 16usize);
    let rain_per_second = 60e-3 / 3600.0 * (nx * ny) as f64 * 100.0;
    let scene = |sides: &str| {
        crate::common::scene(&format!(
            "[grid]\nnx = {nx}\nny = {ny}\ndx = 10.0\n[time]\ndt = 1.0\nsteps = 300\n\
             [physics]\nsolver = \"{solver}\"\nvolume_correction = \"none\"\n\
             [boundary]\nall = \"{sides}\"\n\
             [terrain]\nslope = {{ base = 10.0, grad = [-0.02, 0.0] }}\n[water]\nlevel = 3.6\n\
             [rainfall]\nintensity = 60.0\n"
        ))
    };
    let mut closed = simulation(&scene("reflect"), Backend::Cpu);
    closed.step(100).unwrap();
    let closed_at_100 = depths(&mut closed);
    closed.step(200).unwrap();
    let deepest = depths(&mut closed).into_iter().fold(0.0f64, f64::max);
    for sides in ["open", "absorb", "ghost-mean", "ghost-slope"] {
        let mut finals: Vec<Vec<f64>> = Vec::new();
        for backend in BACKENDS {
            let mut sim = simulation(&scene(sides), backend);
            let before = water_volume(&mut sim);
            let mut held = Vec::new();
            for k in 1..=3 {
                sim.step(100).unwrap();
                held.push((water_volume(&mut sim) - before) / (rain_per_second * 100.0 * k as f64));
                let d = depths(&mut sim);
                if k == 1 {
                    for j in 1..ny - 1 {
                        let (got, want) = (d[j * nx], closed_at_100[j * nx]);
                        assert!(
                            (got - want).abs() <= 1e-6 * want,
                            "{solver} {sides} {backend:?}: the uphill cell of row {j} holds {got} m, closed {want} m"
                        );
                    }
                }
                let most = d.iter().copied().fold(0.0f64, f64::max);
                assert!(
                    most <= deepest,
                    "{solver} {sides} {backend:?}: a cell {most} m deep at {} s, the closed run's deepest {deepest} m",
                    100 * k
                );
                if k == 3 {
                    finals.push(d);
                }
            }
            eprintln!("{solver} {sides} {backend:?}: held ÷ fallen at 100, 200, 300 s {held:.5?}");
            for (k, h) in held.iter().enumerate() {
                assert!(
                    *h <= 1.0 + 1e-4,
                    "{solver} {sides} {backend:?}: held {h} of the rain at {} s",
                    100 * (k + 1)
                );
            }
        }
        // ADI's GPU solves its lines by PCR, the CPU by Thomas: 4 ulps of the slope's highest
        // surface (6.3 m above the still level, 4.8e-7 m an ulp) apart; the explicit step's
        // backends agree bit for bit.
        let apart = if solver == "adi" { 2e-6 } else { 1e-6 };
        for (d, backend) in finals.iter().zip(BACKENDS).skip(1) {
            let worst = d
                .iter()
                .zip(&finals[0])
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f64, f64::max);
            assert!(
                worst <= apart,
                "{solver} {sides} {backend:?}: {worst} m from the reference backend"
            );
        }
    }
}

/// A held height on the height field (issue 53): a source holding its disc at a level in a closed
/// 8 m basin 0.2 m deep, damped so that it settles (τ = 0.02 a step; undamped, the basin and the
/// held disc trade water like a U-tube, the volume swinging between 15 and 43 m³ about the full
/// 32). The volume pass sets the held cells and books what they gained (or gave) with the drains'
/// shortfall, so the global correction holds the water to a target that moves with it, and
/// "regions" each region's. After 120 s every cell stands within 1 mm of the level, held at 0.5
/// m (filling) or 0.1 m (draining), and the target within 2e-3 of a basin full to it (measured:
/// every cell within 7.2e-8 m, the volume the full basin's to 1e-7 relative); the water within
/// 1e-5 of its target on every backend and solver and under "regions" (measured ≤ 5.7e-8), the
/// fast path the twin's bits and the GPU within 1e-4 m of it.
#[test]
fn a_held_height_fills_or_drains_the_basin_to_its_level_on_the_height_field() {
    let cases = [
        ("explicit", "global", 0.5),
        ("adi", "global", 0.5),
        ("explicit", "regions", 0.5),
        ("explicit", "global", 0.1),
    ];
    for (solver, correction, level) in cases {
        let text = format!(
            "[grid]\nnx = 16\nny = 16\ndx = 0.5\n[time]\ndt = 0.05\n[physics]\nsolver = \"{solver}\"\n\
             damping = 0.02\nvolume_correction = \"{correction}\"\n[terrain]\nflat = 0.0\n[water]\nlevel = 0.2\n\
             [[source]]\nx = 4.0\ny = 4.0\nradius = 1.0\nheight = {level}\n"
        );
        let scene = scene_in(Path::new("."), &text);
        let mut surfaces = Vec::new();
        for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
            let mut sim = simulation(&scene, backend);
            sim.step(2400).unwrap();
            let (volume, target) = (water_volume(&mut sim), sim.target_volume());
            let h = sim.surface().unwrap();
            let off = h.iter().fold(0.0f64, |m, &v| m.max((v - level).abs()));
            let what = format!("{solver} {correction} held at {level} m, {backend:?}");
            eprintln!(
                "{what}: every cell within {off:.2e} m of the level, volume {volume:.6} m³, {:.2e} off its target",
                volume / target - 1.0
            );
            assert!(off < 1e-3, "{what}: a cell stands {off} m off the level");
            assert!((volume / target - 1.0).abs() < 1e-5, "{what}: {volume} vs {target}");
            let full = level * 64.0;
            assert!(
                (target / full - 1.0).abs() < 2e-3,
                "{what}: the target {target} m³, full {full} m³"
            );
            surfaces.push(sim.eta().unwrap());
        }
        assert_eq!(
            surfaces[0], surfaces[1],
            "{solver} {correction}: the fast path left the twin's bits"
        );
        let worst = surfaces[2]
            .iter()
            .zip(&surfaces[0])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{solver} {correction}: GPU and twin differ by {worst} m");
    }
}

/// River sides on the height field (issue 53): Kass & Miller's surface has no discharge to set,
/// so a `"discharge"` side is a wall whose edge cells take q·dt/dx a step (q·W·dt over its width
/// W), a `"stage"` side a wall whose edge cells are held at its level (as a `[[source]]` height),
/// and a `"free"` side Mur's absorbing one. A 4 × 1 m channel 0.3 m deep: with a discharge of
/// 0.02 m²/s at its west end and walls elsewhere it holds exactly q·W·t more after 10 s (the
/// target; the water within 1e-5 of it on every backend, measured ≤ 4e-8). With a stage 5 cm above
/// the water at its east end, the step it makes runs west at the long-wave speed sqrt(g·d): it
/// passes half its height 1.95 m from the stage's cells at 1.95 m / 1.716 m/s = 1.137 s, within
/// 6 % (measured 1.10 s, −3.2 %: the held column rises in one step, its step's foot runs ahead),
/// on target. The fast path is the twin's bits and the GPU within 1e-4 m of it. A free side runs
/// the absorbing side's bits.
#[test]
fn river_sides_on_the_height_field_let_in_their_discharge_and_hold_their_stage() {
    let channel = |sides: &str| crate::common::river_channel("solver = \"explicit\"", sides);
    let start = 4.0 * 1.0 * 0.3;
    for (sides, case) in [("west = \"discharge\"", "discharge"), ("east = \"stage\"", "stage")] {
        let scene = scene_in(Path::new("."), &channel(sides));
        let mut surfaces = Vec::new();
        for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
            let mut sim = simulation(&scene, backend);
            let rows = sim.step(1000).unwrap();
            let (volume, target) = (water_volume(&mut sim), sim.target_volume());
            eprintln!(
                "{case} {backend:?}: volume {volume:.6} m³, target {target:.6} m³ ({:.2e})",
                volume / target - 1.0
            );
            assert!(
                (volume / target - 1.0).abs() < 1e-5,
                "{case} {backend:?}: {volume} vs {target}"
            );
            if case == "discharge" {
                let want = start + 0.02 * 1.0 * 10.0;
                assert!(
                    (target / want - 1.0).abs() < 1e-6,
                    "{backend:?}: the target {target} m³, q·W·t {want}"
                );
            } else {
                let arrival = rows.iter().position(|r| r[0] > 0.025).expect("the step arrives") as f64 * 0.01 + 0.01;
                let want = 1.95 / (9.81f64 * 0.3).sqrt();
                eprintln!("the stage's step passes the middle at {arrival:.2} s (sqrt(g·d): {want:.3} s)");
                assert!(
                    (arrival / want - 1.0).abs() < 0.06,
                    "{backend:?}: it arrives at {arrival} s, not {want}"
                );
            }
            surfaces.push(sim.eta().unwrap());
        }
        assert_eq!(surfaces[0], surfaces[1], "{case}: the fast path left the twin's bits");
        let worst = surfaces[2]
            .iter()
            .zip(&surfaces[0])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{case}: GPU and twin differ by {worst} m");
    }
    let bump = "[[water.bump]]\nx = 2.0\ny = 0.5\nradius = 0.3\nheight = 0.02\n";
    let free = format!("{}{bump}", channel("east = \"free\""));
    let absorb = format!("{}{bump}", channel("east = \"absorb\""));
    let runs: Vec<Vec<f32>> = [free, absorb]
        .iter()
        .map(|text| {
            let mut sim = simulation(&scene_in(Path::new("."), text), Backend::Cpu);
            sim.step(300).unwrap();
            sim.eta().unwrap()
        })
        .collect();
    assert_eq!(runs[0], runs[1], "a free side is not the absorbing side");
}
