//! The flood maps (`[output] summary`, issue 19): what they hold, on every height-field backend,
//! as files, and across a resume.

use crate::cli::shoal;
use crate::common::{scene_in, simulation, write_npy};
use shoal::Backend;

/// A valley 40 × 20 m sloping east into a pond, a hydrograph pouring in at its dry west end. The
/// maps count a cell wet above 1 cm: Kass & Miller's water has no friction, and since the explicit
/// step keeps its faces' flux memory (issue 16) a film under a millimetre runs down the slope
/// ahead of the flood, crossing 1 mm out of order; the flood itself arrives in order.
fn valley(dir: &std::path::Path) -> String {
    std::fs::write(dir.join("q.csv"), "time,rate\n0,0\n5,2\n10,0\n").unwrap();
    "[grid]\nnx = 40\nny = 20\ndx = 1.0\n[time]\ndt = 0.05\nsteps = 400\n\
     [terrain]\nslope = { base = 0.5, grad = [-0.02, 0.0] }\n[water]\nlevel = 0.0\n\
     [[source]]\nx = 2.0\ny = 10.0\nradius = 1.5\nhydrograph = \"q.csv\"\n\
     [output]\nevery = 200\nsummary = true\nwet_depth = 0.01\n"
        .into()
}

#[test]
fn the_flood_maps_hold_the_worst_of_the_run_and_agree_across_backends() {
    let dir = tempfile::tempdir().unwrap();
    let scene = scene_in(dir.path(), &valley(dir.path()));
    let (nx, t_end) = (40, 400.0 * 0.05);
    let mut maps = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&scene, backend);
        let start = sim.surface().unwrap();
        let ground = sim.ground().to_vec();
        sim.step(400).unwrap();
        let end = sim.surface().unwrap();
        let m = sim.summary().unwrap().expect("summary = true keeps the maps");
        for c in 0..end.len() {
            let depth = (end[c] - ground[c]) as f32;
            assert!(
                m.max_depth[c] >= depth - 1e-6,
                "{backend:?} cell {c}: max depth below the last"
            );
            assert!(
                m.max_surface[c] as f64 >= end[c] - 1e-5,
                "{backend:?} cell {c}: max surface below the last"
            );
            assert!(
                (0.0..=t_end as f32 + 1e-4).contains(&m.time_wet[c]),
                "{backend:?} cell {c}: time wet {}",
                m.time_wet[c]
            );
            if start[c] - ground[c] > 0.011 {
                assert_eq!(m.first_wet[c], 0.0, "{backend:?} cell {c} was wet at the start");
            }
        }
        // Down the valley's axis from the source towards the pond, the flood arrives later and
        // later. (It crossed 1 cm at x = 19 m too, at 19.15 s, while the dry-cell rule made water
        // at its front; since the explicit step's faces never take more than a cell holds, the
        // thinning flood ends short of it within the run: x = 18 m at 18.85 s.)
        let row: Vec<f32> = (4..19).map(|i| m.first_wet[10 * nx + i]).collect();
        assert!(
            row.iter().all(|&t| t > 0.0),
            "{backend:?}: the flood never reached the axis: {row:?}"
        );
        assert!(
            row.windows(2).all(|w| w[0] <= w[1]),
            "{backend:?}: arrival times not increasing downstream: {row:?}"
        );
        maps.push(m);
    }
    assert_eq!(maps[0], maps[1], "the fast CPU backend's maps are not the twin's");
    // The GPU's level differs from the twin's by f32 rounding: depths to 1e-5 m, and a wetting
    // time may cross the 1 cm threshold a step apart.
    let (cpu, gpu) = (&maps[0], &maps[2]);
    let worst = cpu
        .max_depth
        .iter()
        .zip(&gpu.max_depth)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(worst < 1e-5, "GPU and CPU max depths differ by {worst} m");
    let off = cpu
        .first_wet
        .iter()
        .zip(&gpu.first_wet)
        .filter(|(a, b)| (*a - *b).abs() > 0.051)
        .count();
    assert!(off == 0, "{off} cells' wetting times differ by more than a step");
}

#[test]
fn a_run_writes_the_maps_at_its_end_and_checkpoints_and_a_resume_carries_them() {
    // Straight to 400 steps, and to 200 with a checkpoint then resumed to 400: the same maps,
    // bit for bit (the CPU backend; the maps are state the checkpoint keeps).
    let dir = tempfile::tempdir().unwrap();
    // The source 10 m further down the valley, so that its high west end never wets. (Beside
    // the source at 2 m nothing stays dry: the flood runs the 22 m to the sea in 18 s, as a
    // frictionless one down a 2 % slope should; before `hand_on` its front stalled at 16 m.)
    let text = valley(dir.path()).replace("x = 2.0\n", "x = 12.0\n");
    std::fs::write(dir.path().join("valley.toml"), text).unwrap();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            "valley.toml",
            "--out",
            out,
            "--backend",
            "cpu",
            "-q",
            "--geotiff",
        ];
        args.extend(extra);
        let (ok, _, err) = shoal(&args, dir.path());
        assert!(ok, "{err}");
    };
    run("straight", &[]);
    run("split", &["--steps", "200", "--checkpoint-every", "200"]);
    let (ok, _, err) = shoal(
        &[
            "resume",
            "split",
            "--steps",
            "400",
            "--backend",
            "cpu",
            "-q",
            "--geotiff",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    for name in ["max_depth", "max_surface", "first_wet", "time_wet"] {
        let read = |run: &str| std::fs::read(dir.path().join(run).join(format!("{name}.npy"))).unwrap();
        assert!(read("straight") == read("split"), "{name}.npy differs after a resume");
        let tif = shoal::io::geotiff::read(&dir.path().join("straight").join(format!("{name}.tif"))).unwrap();
        assert_eq!((tif.header.width, tif.header.height), (40, 20), "{name}.tif");
    }
    let never = shoal::io::npy::read_f64_2d(&dir.path().join("straight/first_wet.npy")).unwrap();
    assert!(
        never.data.iter().all(|v| v.is_finite()),
        "first_wet.npy holds a non-finite value"
    );
    assert!(
        never.data.contains(&-1.0),
        "the high west end beside the source never wets: its cells should read -1"
    );
}

#[test]
fn the_maps_keys_are_checked() {
    let text = "[grid]\nnx = 8\nny = 8\ndx = 0.1\n[time]\ndt = 0.01\n[output]\nsummary = true\nwet_depth = -1.0\n";
    let err = shoal::Scene::parse(text, std::path::Path::new("s.toml"), std::path::Path::new("."))
        .expect_err("a negative wet depth")
        .to_string();
    assert!(err.contains("output.wet_depth"), "{err}");
}

#[test]
fn the_navier_stokes_layer_keeps_the_maps_of_the_surface_it_steps() {
    // A dam break in the layer (0.3 m of water behind x = 0.5 m, a dry flume beyond): stepped
    // one step at a time, the maps are the worst of the surfaces each step left (deepest water
    // and highest surface to f32 rounding, first wetting and time wet to the step), the fast
    // CPU's bits are the twin's, and the GPU's maps are the twin's within the layer's GPU
    // rounding (a front a step early or late at a cell: the times to one step, the depths to
    // 1 mm).
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "h.npy", 2, 40, |i, _| if i < 10 { 0.3 } else { -0.1 });
    let scene = scene_in(
        dir.path(),
        "[grid]\nnx = 40\nny = 2\ndx = 0.05\n[time]\ndt = 0.005\n[physics]\nmodel = \"navier-stokes\"\n\
         [navier_stokes]\nlayers = 16\n[terrain]\nflat = -0.1\n[water]\nnpy = \"h.npy\"\n\
         [output]\nsummary = true\nwet_depth = 0.001\n",
    );
    let dt = scene.time.dt;
    let mut maps = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&scene, backend);
        let ground = sim.ground().to_vec();
        let (mut deepest, mut first) = (vec![0.0f64; 80], vec![f64::NAN; 80]);
        for step in 0..=60 {
            if step > 0 {
                sim.step(1).unwrap();
            }
            for (c, (h, b)) in sim.surface().unwrap().iter().zip(&ground).enumerate() {
                deepest[c] = deepest[c].max(h - b);
                if h - b > 0.001 && first[c].is_nan() {
                    first[c] = step as f64 * dt;
                }
            }
        }
        let m = sim.summary().unwrap().expect("the layer keeps the maps");
        if backend == Backend::Reference {
            for c in 0..80 {
                assert!(
                    (m.max_depth[c] as f64 - deepest[c]).abs() < 1e-6,
                    "cell {c}: {} vs {}",
                    m.max_depth[c],
                    deepest[c]
                );
                let want = if first[c].is_nan() { -1.0 } else { first[c] };
                assert!(
                    (m.first_wet[c] as f64 - want).abs() < 1e-6,
                    "cell {c}: wet at {} vs {want}",
                    m.first_wet[c]
                );
            }
            let reached = m.first_wet.iter().filter(|&&t| t > 0.0).count();
            assert!(reached >= 6, "the front reached {reached} dry cells");
        }
        maps.push(m);
    }
    assert_eq!(maps[0], maps[1], "the fast CPU's maps are not the twin's");
    // A checkpoint keeps them: saved at step 30 and resumed, the run ends with the straight
    // run's maps (both in submits of 30: the layer's pressure budget follows its submits).
    let mut straight = simulation(&scene, Backend::Cpu);
    straight.step(30).unwrap();
    let saved = straight.checkpoint().unwrap();
    straight.step(30).unwrap();
    let mut resumed = simulation(&scene, Backend::Cpu);
    resumed.restore(&saved, std::path::Path::new("checkpoint")).unwrap();
    resumed.step(30).unwrap();
    assert_eq!(
        resumed.summary().unwrap(),
        straight.summary().unwrap(),
        "the resumed maps"
    );
    for (c, (a, b)) in maps[0].max_depth.iter().zip(&maps[2].max_depth).enumerate() {
        assert!((a - b).abs() < 1e-3, "cell {c}: GPU depth {b} vs {a}");
        let (ta, tb) = (maps[0].first_wet[c], maps[2].first_wet[c]);
        assert!((ta - tb).abs() <= dt as f32 * 1.01, "cell {c}: GPU wet at {tb} vs {ta}");
    }
}

#[test]
fn the_pipes_keep_the_flood_maps_too_alike_on_every_backend() {
    // The valley run by the pipes (whole units, never more taken from a column than it holds):
    // the maps fold the columns' surface over their top floors, the same bits on every backend
    // (the pipes' units are integers and their surface the same f32 products).
    let dir = tempfile::tempdir().unwrap();
    let text = valley(dir.path()).replace(
        "[terrain]",
        "[physics]\nmodel = \"pipes\"\n[pipes]\ndt = 0.05\n[spray]\nenabled = false\n[terrain]",
    );
    let scene = scene_in(dir.path(), &text);
    let maps: Vec<_> = [Backend::Reference, Backend::Cpu, Backend::Gpu]
        .into_iter()
        .map(|backend| {
            let mut sim = simulation(&scene, backend);
            sim.step(200).unwrap();
            sim.summary().unwrap().expect("the pipes keep the maps")
        })
        .collect();
    assert!(maps[0].first_wet.iter().any(|&t| t > 0.0), "the flood wetted nothing");
    assert_eq!(maps[0], maps[1]);
    assert_eq!(maps[0], maps[2], "the GPU pipes' maps are not the twin's");
}

#[test]
fn the_flood_leaves_the_pond_below_it_at_rest_until_it_arrives() {
    // The dry-cell rule refilled the cells the flood's thin front overdrained, and the global
    // correction took that water back from every wet cell: the pond, 16 m beyond the flood's
    // 1 cm reach, fell 7.6 cm in the run. The explicit step's faces never take more than a cell
    // holds (`limit`), so no water is made and the pond waits. Measured −2.0e-5 m; the volume
    // gains the hydrograph's 10 m³ (to 1e-6) either way.
    let dir = tempfile::tempdir().unwrap();
    let scene = scene_in(dir.path(), &valley(dir.path()));
    for backend in [Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&scene, backend);
        let pond = 10 * 40 + 35;
        let before = sim.surface().unwrap()[pond];
        sim.step(400).unwrap();
        let after = sim.surface().unwrap()[pond];
        eprintln!("{backend:?}: the pond at x = 35 m moved {:+.2e} m", after - before);
        assert!(
            (after - before).abs() < 1e-3,
            "{backend:?}: the pond moved {} m",
            after - before
        );
    }
}

/// The shallow-water model's speed and hazard maps against Ritter's dam break (1 m onto a dry bed
/// at x0 = 10 m, dx = 5 cm, 2 s): 2 m downstream the hazard d·|u| grows as the rarefaction
/// passes, its largest by t = 2 s Ritter's h·u at ξ = (x − x0)/t = 1 m/s, (2c0 − ξ)²/(9g) ·
/// ⅔(c0 + ξ) = 0.864 m²/s: within 2 % (the profile is smooth there; measured in the note). The
/// fastest speed while wet (deeper than 1 cm) is the front's as it passes, Ritter's
/// 2c0 − 2·sqrt(g·w) = 5.64 m/s where the depth is w: within 5 % (the front is first order;
/// measured). The fast CPU path gives the twin's bits, the GPU within rounding, and `shoal run`
/// writes them as max_speed and max_hazard beside the other maps.
#[test]
fn the_shallow_water_models_speed_and_hazard_maps_follow_ritter() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, dx, x0) = (500usize, 0.05, 10.0);
    write_npy(dir.path(), "b.npy", 2, nx, |_, _| 0.0);
    write_npy(dir.path(), "h.npy", 2, nx, |i, _| {
        if (i as f64 + 0.5) * dx < x0 {
            1.0
        } else {
            0.0
        }
    });
    let text = format!(
        "[grid]\nnx = {nx}\nny = 2\ndx = {dx}\n[time]\ndt = 0.01\nsteps = 200\n[physics]\nmodel = \"shallow-water\"\n\
         [terrain]\nnpy = \"b.npy\"\n[water]\nnpy = \"h.npy\"\n[output]\nevery = 200\nsummary = true\nwet_depth = 0.01\n"
    );
    let scene = scene_in(dir.path(), &text);
    let run = |backend| {
        if backend == Backend::Gpu {
            crate::common::hold_gpu();
        }
        let mut sim = simulation(&scene, backend);
        sim.step(200).unwrap();
        let maps = sim.summary().unwrap().unwrap();
        (maps.max_speed, maps.max_hazard)
    };
    let twin = run(Backend::Reference);
    assert_eq!(run(Backend::Cpu), twin, "the fast path left the twin's bits");
    let gpu = run(Backend::Gpu);
    let worst = gpu
        .1
        .iter()
        .zip(&twin.1)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "GPU and twin hazard maps differ by {worst} m²/s");
    let (g, c0) = (9.81f64, 9.81f64.sqrt());
    let k = ((x0 + 2.0) / dx) as usize;
    let xi = ((k as f64 + 0.5) * dx - x0) / 2.0;
    let hazard = (2.0 * c0 - xi).powi(2) / (9.0 * g) * 2.0 / 3.0 * (c0 + xi);
    let speed = 2.0 * c0 - 2.0 * (g * 0.01).sqrt();
    let (s, h) = (twin.0[k] as f64, twin.1[k] as f64);
    eprintln!(
        "2 m down: hazard {h:.4} m²/s (Ritter {hazard:.4}, {:+.2} %), speed {s:.3} m/s (Ritter {speed:.3}, {:+.2} %)",
        100.0 * (h / hazard - 1.0),
        100.0 * (s / speed - 1.0)
    );
    assert!((h / hazard - 1.0).abs() < 0.02, "hazard {h}, Ritter {hazard}");
    assert!((s / speed - 1.0).abs() < 0.05, "speed {s}, Ritter {speed}");
    std::fs::write(dir.path().join("ritter.toml"), &text).unwrap();
    let (ok, _, err) = shoal(
        &["run", "ritter.toml", "--out", "out", "--backend", "cpu", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    let written = shoal::io::npy::read_f64_2d(&dir.path().join("out/max_hazard.npy")).unwrap();
    let row: Vec<f32> = written.data.iter().take(nx).map(|&v| v as f32).collect();
    assert_eq!(row, twin.1[..nx], "max_hazard.npy is not the run's map");
    assert!(dir.path().join("out/max_speed.npy").exists());
}
