//! `[[output.section]]` (issue 52): the discharge across a line, every step, on the
//! shallow-water model (and the pipes, the layer and the height field); and `[output] gauges`, each probe's depth and velocity every step. Ritter's dam break gives the discharge exactly: at the dam the flow
//! stands at q = 8/27·h0·sqrt(g·h0) for all t > 0, and downstream q(x, t) = h·u with
//! u = 2/3·(c0 + x/t), h = (2·c0 − x/t)²/(9g). Uniform flow crosses any line at q·(its extent
//! across the flow). The twin, the fast CPU and the GPU read the same q's (the probe pass).

use crate::cli::shoal;
use crate::common::*;
use shoal::{Backend, Scene};
use std::path::Path;

const G: f64 = 9.81;

/// A 20 m × 0.2 m channel, 1 m of water west of x = 10 m, dry east; a line at the dam (north to
/// south: its left is east) and a slanted one from (12, 0) to (11, 0.2) (its left is west).
fn dam(dir: &Path, steps: u64) -> Scene {
    let (nx, ny) = (400usize, 4usize);
    let h: Vec<f32> = (0..nx * ny).map(|c| if c % nx < 200 { 1.0 } else { 0.0 }).collect();
    shoal::io::npy::write_f32_2d(&dir.join("h.npy"), ny, nx, &h).unwrap();
    let text = format!(
        "[grid]\nnx = {nx}\nny = {ny}\ndx = 0.05\n[time]\ndt = 0.005\nsteps = {steps}\n\
         [physics]\nmodel = \"shallow-water\"\n[water]\nnpy = \"h.npy\"\n[output]\nevery = 100\ngauges = true\n\
         [[output.section]]\nname = \"dam\"\nx0 = 10.0\ny0 = 0.2\nx1 = 10.0\ny1 = 0.0\n\
         [[output.section]]\nname = \"slant\"\nx0 = 12.0\ny0 = 0.0\nx1 = 11.0\ny1 = 0.2\n\
         [[output.probe]]\nname = \"g\"\nx = 11.0\ny = 0.1\n"
    );
    std::fs::write(dir.join("scene.toml"), text).unwrap();
    Scene::from_file(&dir.join("scene.toml")).unwrap()
}

/// Each step's discharges after `steps` steps on `backend`.
fn rows(scene: &Scene, backend: Backend, steps: u64) -> Vec<Vec<f64>> {
    let mut sim = simulation(scene, backend);
    sim.step(steps).unwrap();
    sim.take_section_rows()
}

/// The water (m³) a dam-break channel of `nx` 5 cm cells a row holds from column `dam` east: what
/// crossed a line at the dam.
fn water_east_of(sim: &mut shoal::Simulation, nx: usize, dam: usize) -> f64 {
    let surface = sim.surface().unwrap();
    let ground = sim.ground();
    (0..surface.len())
        .filter(|c| c % nx >= dam)
        .map(|c| (surface[c] - ground[c]).max(0.0) * 0.05 * 0.05)
        .sum()
}

/// Ritter's unit discharge at x metres past the dam at t seconds (h0 = 1 m).
fn ritter_q(x: f64, t: f64) -> f64 {
    let c0 = G.sqrt();
    let s = (x / t).clamp(-c0, 2.0 * c0);
    let h = (2.0 * c0 - s).powi(2) / (9.0 * G);
    h * 2.0 / 3.0 * (c0 + s)
}

#[test]
fn ritters_discharge_crosses_the_dam_line_and_a_slanted_one() {
    let dir = tempfile::tempdir().unwrap();
    let steps = 400;
    let scene = dam(dir.path(), steps);
    let twin = rows(&scene, Backend::Reference, steps);
    assert_eq!(twin.len(), steps as usize);
    let width = 0.2;
    // At the dam: 8/27·h0·sqrt(g·h0) across the 0.2 m. Within 0.5 %: the line takes the q of
    // the cells east of the dam, half a cell (at x/t ≤ 0.025/t) off it (measured 4e-6).
    let at_dam = 8.0 / 27.0 * G.sqrt() * width;
    for (k, row) in twin.iter().enumerate().skip(100) {
        let err = (row[0] - at_dam).abs() / at_dam;
        assert!(
            err < 5e-3,
            "step {}: {} m³/s at the dam against Ritter's {at_dam}",
            k + 1,
            row[0]
        );
    }
    // The slanted line: −∫ q dy over x from 12 to 11 m (2 s in), Ritter's mean q over 1–2 m past
    // the dam times 0.2 m, negative (its left is west). Within 2 %: the line's pieces take their
    // cells' q (first order in dx) on a profile the scheme smooths at its front (measured 0.3 %).
    let t = steps as f64 * 0.005;
    let mean: f64 = (0..1000)
        .map(|k| ritter_q(1.0 + (k as f64 + 0.5) / 1000.0, t))
        .sum::<f64>()
        / 1000.0;
    let want = -mean * width;
    let got = twin.last().unwrap()[1];
    assert!(
        (got - want).abs() < 0.02 * want.abs(),
        "slanted line: {got} m³/s against Ritter's {want}"
    );

    assert_eq!(
        rows(&scene, Backend::Cpu, steps),
        twin,
        "the fast CPU left the twin's bits"
    );
    hold_gpu();
    let gpu = rows(&scene, Backend::Gpu, steps);
    release_gpu();
    // GPU vs twin: the shallow-water model's GPU tolerance on the surface (1e-4 m) read as a
    // discharge: 1e-4 of the dam's (float32 rounding of a bore over 1200 substeps).
    for (g, c) in gpu.iter().zip(&twin) {
        for (a, b) in g.iter().zip(c) {
            assert!((a - b).abs() <= 1e-4 * at_dam, "GPU {a} vs twin {b}");
        }
    }
}

#[test]
fn uniform_flow_crosses_a_slanted_line_at_its_exact_discharge() {
    // 0.3 m of water at 0.5 m/s east in a periodic basin: every cell's q = 0.15 m²/s for ever.
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny) = (40usize, 20usize);
    shoal::io::npy::write_f32_2d(&dir.path().join("u.npy"), ny, nx, &vec![0.5; nx * ny]).unwrap();
    let text = "[grid]\nnx = 40\nny = 20\ndx = 0.1\n[time]\ndt = 0.01\nsteps = 20\n\
        [physics]\nmodel = \"shallow-water\"\n[boundary]\nall = \"periodic\"\n[terrain]\nflat = -0.3\n\
        [water]\nlevel = 0.0\nu_npy = \"u.npy\"\n[output]\nevery = 10\n\
        [[output.section]]\nname = \"slant\"\nx0 = 0.7\ny0 = 0.1\nx1 = 3.2\ny1 = 1.9\n";
    std::fs::write(dir.path().join("scene.toml"), text).unwrap();
    let scene = Scene::from_file(&dir.path().join("scene.toml")).unwrap();
    // Its left normal's x-part is −Δy: Q = −0.15 · 1.8 m.
    let want = -0.15 * 1.8;
    let out = dir.path().join("out");
    shoal::run::run(&scene, &out, Backend::Cpu, &Default::default(), &mut |_: &str| {}).unwrap();
    let csv = std::fs::read_to_string(out.join("sections.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "step,time,slant");
    assert_eq!(lines.len(), 22, "a row per step from step 0");
    for line in &lines[1..] {
        let q: f64 = line.split(',').nth(2).unwrap().parse().unwrap();
        // f32 q's and depths: 1e-6 relative.
        assert!((q - want).abs() < 1e-6 * want.abs(), "{line}: against {want}");
    }
}

#[test]
fn bad_sections_are_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let base =
        "[grid]\nnx = 10\nny = 10\ndx = 0.1\n[time]\ndt = 0.01\nsteps = 2\n[physics]\nmodel = \"shallow-water\"\n";
    let line = |name: &str, ends: [f64; 4]| {
        format!(
            "[[output.section]]\nname = \"{name}\"\nx0 = {}\ny0 = {}\nx1 = {}\ny1 = {}\n",
            ends[0], ends[1], ends[2], ends[3]
        )
    };
    for (text, key, says) in [
        (line("a", [0.2, 0.2, 0.2, 0.2]), "output.section[0].x1", "no length"),
        (
            line("a", [0.2, 0.2, 1.2, 0.2]),
            "output.section[0].x1",
            "outside the domain",
        ),
        (
            line("a", [-0.1, 0.2, 0.5, 0.2]),
            "output.section[0].x0",
            "outside the domain",
        ),
        (line("a,b", [0.2, 0.2, 0.5, 0.2]), "output.section[0].name", "commas"),
        (
            line("a", [0.2, 0.2, 0.5, 0.2]) + &line("a", [0.2, 0.4, 0.5, 0.4]),
            "output.section[1].name",
            "another section",
        ),
    ] {
        std::fs::write(dir.path().join("bad.toml"), format!("{base}{text}")).unwrap();
        let (ok, _, err) = shoal(
            &["run", "bad.toml", "--backend", "cpu", "--out", "out", "--force"],
            dir.path(),
        );
        assert!(
            !ok && err.starts_with("error:") && err.contains(key) && err.contains(says),
            "{key}: {err}"
        );
        assert!(!dir.path().join("out/sections.csv").exists());
    }
}

#[test]
fn a_resumed_run_writes_a_straight_runs_sections() {
    let dir = tempfile::tempdir().unwrap();
    dam(dir.path(), 200);
    let run = |args: &[&str]| {
        let (ok, _, err) = shoal(args, dir.path());
        assert!(ok, "{args:?}: {err}");
    };
    run(&[
        "run",
        "scene.toml",
        "--backend",
        "cpu",
        "-q",
        "--out",
        "out",
        "--checkpoint-every",
        "100",
    ]);
    run(&["resume", "out", "--steps", "300", "--backend", "cpu", "-q"]);
    run(&[
        "run",
        "scene.toml",
        "--steps",
        "300",
        "--backend",
        "cpu",
        "-q",
        "--out",
        "straight",
        "--checkpoint-every",
        "100",
    ]);
    for (table, lines) in [("sections.csv", 302), ("gauges.csv", 302), ("probes.csv", 302)] {
        let read = |run: &str| std::fs::read(dir.path().join(run).join(table)).unwrap();
        assert!(read("out") == read("straight"), "{table} differs from a straight run's");
        assert_eq!(
            String::from_utf8(read("out")).unwrap().lines().count(),
            lines,
            "{table}"
        );
    }
}

/// `[output] gauges` on Ritter's dam break: 1.025 m past the dam (the gauge's cell centre) at
/// t = 2 s the depth is (2·c0 − x/t)²/(9g) and the velocity 2/3·(c0 + x/t); the gauge's h is its
/// probes.csv column. The twin, the fast CPU path (its bits) and the GPU (its rounding).
#[test]
fn a_gauge_reads_ritters_depth_and_velocity() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dam(dir.path(), 400);
    let (x, t) = (1.025, 2.0);
    let c0 = G.sqrt();
    let (depth, speed) = ((2.0 * c0 - x / t).powi(2) / (9.0 * G), 2.0 / 3.0 * (c0 + x / t));
    let mut last = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        if backend == Backend::Gpu {
            crate::common::hold_gpu();
        }
        let mut sim = simulation(&scene, backend);
        let probes = sim.step(400).unwrap();
        let rows = sim.take_gauge_rows();
        assert_eq!(rows.len(), 400);
        let [h, d, u, v] = rows[399][0];
        assert_eq!(h, probes[399][0], "{backend:?}: the gauge's h is its probe's");
        eprintln!("{backend:?}: depth {d:.4} m against {depth:.4}, u {u:.4} m/s against {speed:.4}, v {v:e}");
        // Within 0.5 % (measured on all three: depth 0.3754 m against 0.3747, +0.19 %; u 2.4262
        // m/s against 2.4297, −0.14 %: the rarefaction's kink at the dam, 20 cells upstream).
        assert!(
            (d - depth).abs() < 0.005 * depth,
            "{backend:?}: depth {d} against {depth}"
        );
        assert!((u - speed).abs() < 0.005 * speed, "{backend:?}: u {u} against {speed}");
        assert!(v.abs() < 1e-6, "{backend:?}: v {v} across a 1-D channel");
        last.push(rows[399][0]);
    }
    assert_eq!(last[0], last[1], "the fast path left the twin's bits");
    assert!(
        (last[2][1] - last[0][1]).abs() < 1e-5,
        "GPU {:?} against twin {:?}",
        last[2],
        last[0]
    );
}

/// gauges.csv on the height field: its depth, and empty u and v (the model has no velocity);
/// without probes the key is refused by name.
#[test]
fn gauges_on_a_model_without_a_velocity_give_the_depth_alone() {
    let dir = tempfile::tempdir().unwrap();
    let base = "[grid]\nnx = 10\nny = 10\ndx = 0.1\n[time]\ndt = 0.01\nsteps = 3\n[terrain]\nflat = -0.2\n\
                [output]\nevery = 1\ngauges = true\n";
    let probe = "[[output.probe]]\nname = \"g\"\nx = 0.55\ny = 0.55\n";
    std::fs::write(dir.path().join("hf.toml"), format!("{base}{probe}")).unwrap();
    let (ok, _, err) = shoal(
        &["run", "hf.toml", "--backend", "cpu", "--out", "out", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(dir.path().join("out/gauges.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "step,time,probe,h,depth,u,v");
    assert_eq!(lines.len(), 5, "{text}");
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[2], "0");
        assert!((cells[4].parse::<f64>().unwrap() - 0.2).abs() < 1e-6, "{line}");
        assert_eq!((cells[5], cells[6]), ("", ""), "{line}");
    }
    std::fs::write(dir.path().join("bad.toml"), base).unwrap();
    let (ok, _, err) = shoal(
        &["run", "bad.toml", "--backend", "cpu", "--out", "bad", "-q"],
        dir.path(),
    );
    assert!(
        !ok && err.starts_with("error:") && err.contains("output.gauges"),
        "{err}"
    );
    assert!(!dir.path().join("bad/gauges.csv").exists());
}

#[test]
fn the_pipes_discharge_through_the_dam_line_is_the_water_east_of_it() {
    // The same dam break on the pipes: no Ritter here (the pipes' front runs at a third of his
    // speed, issue 51), so the check is the books: what crossed the dam line, ∫Q dt, is the water
    // east of it now. The line's pieces take their cells' unit discharge (each cell's water times
    // its mean pipe velocity, the one the spray reads), not the pipes' own fluxes through the
    // line: measured 6.5 % under the water that crossed (0.2779 against 0.2973 m³ in 2 s). Checked
    // to 10 %, which a wrong sign, axis or unit fails by far; the pipes' fluxes themselves would
    // make it exact (left for the pipes' own section pass).
    let dir = tempfile::tempdir().unwrap();
    let steps = 400;
    let scene = dam(dir.path(), steps);
    let text = std::fs::read_to_string(dir.path().join("scene.toml"))
        .unwrap()
        .replace("model = \"shallow-water\"", "model = \"pipes\"");
    std::fs::write(dir.path().join("scene.toml"), text).unwrap();
    let scene = Scene::from_file(&scene.origin).unwrap();
    let mut sim = simulation(&scene, Backend::Reference);
    sim.step(steps).unwrap();
    let crossed: f64 = sim.take_section_rows().iter().map(|r| r[0] * 0.005).sum();
    let east = water_east_of(&mut sim, 400, 200);
    let gauges = sim.take_gauge_rows();
    let [_, depth, u, v] = gauges.last().unwrap()[0];
    eprintln!("pipes: crossed the dam line {crossed:.6e} m³, east of it {east:.6e} m³; gauge depth {depth:.4} m, u {u:.4}, v {v:.2e} m/s");
    assert!(east > 0.01, "the water went nowhere: {east} m³");
    assert!(
        (crossed - east).abs() < 0.1 * east,
        "∫Q dt {crossed} m³ against the water east of the line {east} m³"
    );
    // The gauge 1 m past the dam: water moving east, none across the channel.
    assert!(
        depth > 0.0 && u > 0.0 && v.abs() < 1e-3 * u,
        "gauge: depth {depth}, u {u}, v {v}"
    );
    let rows_of = |backend| {
        let mut sim = simulation(&scene, backend);
        sim.step(steps).unwrap();
        (sim.take_section_rows(), sim.take_gauge_rows())
    };
    let twin = rows_of(Backend::Reference);
    assert!(rows_of(Backend::Cpu) == twin, "the fast CPU left the twin's bits");
    hold_gpu();
    let gpu = rows_of(Backend::Gpu);
    release_gpu();
    // The pipes' units are integers: the GPU's water is the twin's; its velocities are f32 sums
    // in another order (1e-5 of the flow).
    for (g, c) in gpu.0.iter().zip(&twin.0) {
        assert!(
            (g[0] - c[0]).abs() <= 1e-5 * c[0].abs().max(1e-3),
            "GPU {} vs twin {}",
            g[0],
            c[0]
        );
    }
}

#[test]
fn the_layers_discharge_through_the_dam_line_is_the_water_east_of_it_and_ritters() {
    // A dam break on the Navier-Stokes layer, 0.2 m of water west of x = 2 m in a 4 m channel
    // (8 layers): its probe pass reads each cell's unit discharge as the mean of what its two
    // faces carry (the fluxes that move its surface, before the limiter). The books: ∫Q dt
    // through the dam line is the water east of it; the flow at the dam is Ritter's
    // 8/27·h0·sqrt(g·h0) (the layer's dam-site depth is right, issue 54, though its front is
    // slow); the gauge 0.5 m past the dam moves east, not across. Measured after 1 s: ∫Q dt 2.8 %
    // under the water east (the rows are the flow at each step's end, each cell's the mean of
    // its two faces), Q at the dam over the last half second 4.1 % under Ritter's; checked to 5 %
    // and 10 %, which a wrong sign, axis or unit fails by far. The GPU within 1e-4 of the flow.
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny, steps, h0, dt) = (80usize, 4usize, 200u64, 0.2f64, 0.005f64);
    let h: Vec<f32> = (0..nx * ny)
        .map(|c| if c % nx < 40 { h0 as f32 } else { 0.0 })
        .collect();
    shoal::io::npy::write_f32_2d(&dir.path().join("h.npy"), ny, nx, &h).unwrap();
    let text = format!(
        "[grid]\nnx = {nx}\nny = {ny}\ndx = 0.05\n[time]\ndt = {dt}\nsteps = {steps}\n\
         [physics]\nmodel = \"navier-stokes\"\n[navier_stokes]\nlayers = 8\n[water]\nnpy = \"h.npy\"\n\
         [output]\nevery = 100\ngauges = true\n\
         [[output.section]]\nname = \"dam\"\nx0 = 2.0\ny0 = 0.2\nx1 = 2.0\ny1 = 0.0\n\
         [[output.probe]]\nname = \"g\"\nx = 2.5\ny = 0.1\n"
    );
    std::fs::write(dir.path().join("scene.toml"), text).unwrap();
    let scene = Scene::from_file(&dir.path().join("scene.toml")).unwrap();
    let run_of = |backend| {
        let mut sim = simulation(&scene, backend);
        sim.step(steps).unwrap();
        let east = water_east_of(&mut sim, nx, 40);
        (sim.take_section_rows(), sim.take_gauge_rows(), east)
    };
    let (twin, gauges, east) = run_of(Backend::Reference);
    let crossed: f64 = twin.iter().map(|r| r[0] * dt).sum();
    let at_dam = 8.0 / 27.0 * h0 * (G * h0).sqrt() * 0.2;
    let late: f64 = twin[100..].iter().map(|r| r[0]).sum::<f64>() / (twin.len() - 100) as f64;
    let [_, depth, u, v] = gauges.last().unwrap()[0];
    eprintln!(
        "layer: crossed {crossed:.6e} m³, east {east:.6e} m³; Q at the dam {late:.6e} m³/s (Ritter {at_dam:.6e}); \
         gauge depth {depth:.4} m, u {u:.4}, v {v:.2e} m/s"
    );
    assert!(east > 0.005, "the water went nowhere: {east} m³");
    assert!(
        (crossed - east).abs() < 0.05 * east,
        "∫Q dt {crossed} m³ against the water east of the line {east} m³"
    );
    assert!(
        (late - at_dam).abs() < 0.1 * at_dam,
        "Q at the dam {late} m³/s against Ritter's {at_dam}"
    );
    assert!(
        depth > 0.0 && u > 0.0 && v.abs() < 1e-3 * u,
        "gauge: depth {depth}, u {u}, v {v}"
    );
    let fast = run_of(Backend::Cpu);
    assert!(fast.0 == twin && fast.1 == gauges, "the fast CPU left the twin's bits");
    let gpu = run_of(Backend::Gpu);
    for (g, c) in gpu.0.iter().zip(&twin) {
        assert!((g[0] - c[0]).abs() <= 1e-4 * at_dam, "GPU {} vs twin {}", g[0], c[0]);
    }
}

/// A 20 m × 0.2 m channel 1 m deep on the height field (`solver`, and `physics`' lines), the
/// surface 1 cm up west of x = 10 m, with a discharge line at the dam (its left is east), and
/// without it where `line` is false.
fn linear_dam(dir: &Path, solver: &str, physics: &str, line: bool, steps: u64) -> Scene {
    let (nx, ny) = (400usize, 4usize);
    let h: Vec<f32> = (0..nx * ny).map(|c| if c % nx < 200 { 1.01 } else { 1.0 }).collect();
    shoal::io::npy::write_f32_2d(&dir.join("h.npy"), ny, nx, &h).unwrap();
    let section = "[[output.section]]\nname = \"dam\"\nx0 = 10.0\ny0 = 0.2\nx1 = 10.0\ny1 = 0.0\n";
    let text = format!(
        "[grid]\nnx = {nx}\nny = {ny}\ndx = 0.05\n[time]\ndt = 0.005\nsteps = {steps}\n\
         [physics]\nsolver = \"{solver}\"\n{physics}[terrain]\nflat = 0.0\n[water]\nnpy = \"h.npy\"\n[output]\nevery = 100\n{}",
        if line { section } else { "" }
    );
    let name = format!("{solver}_{}_{line}.toml", physics.len());
    std::fs::write(dir.join(&name), text).unwrap();
    Scene::from_file(&dir.join(name)).unwrap()
}

#[test]
fn the_height_fields_discharge_is_the_water_that_crossed_and_the_linear_bores() {
    // Kass & Miller's height field has no velocity, but where it keeps the faces' flux memory
    // (which a discharge line turns on) each face remembers the water it moved: the line's pieces
    // read their cells' mean of two faces. A 1 cm step on 1 m of water is a linear dam break:
    // a bore of half the step runs each way at c = sqrt(g·d), so the flow at the dam stands at
    // c·Δ/2 per metre. The books: ∫Q dt through the dam line is the water that came east of it.
    // Measured after 2 s (the bores 6.3 m out, far from the walls), c taken at the dam's depth
    // 1.005 m: explicit ∫Q dt 0.42 % under the water east (the row's cell reads the dam face and
    // the one east of it, which has carried half the cell's rise less), Q at the dam over the
    // second second within 1e-5 of c·Δ/2; ADI (its faces from its implicit solution) 0.40 % and
    // 1e-5. Checked to 1 % and 2 %: the bore's own nonlinearity (Δ/d = 1 %) could be that big
    // on another grid or step, and a wrong sign, axis, unit or substep
    // scale fails by far. The fast CPU is the twin's bits, the GPU within 1e-4 of the flow
    // (measured: explicit the same bits, ADI 2.3e-10 m³/s, 7e-8 of it).
    let dir = tempfile::tempdir().unwrap();
    let (nx, steps, dt) = (400usize, 400u64, 0.005f64);
    let at_dam = (G * 1.005).sqrt() * 0.005 * 0.2;
    for solver in ["explicit", "adi"] {
        let scene = linear_dam(dir.path(), solver, "", true, steps);
        let run_of = |scene: &Scene, backend| {
            let mut sim = simulation(scene, backend);
            let before = water_east_of(&mut sim, nx, 200);
            sim.step(steps).unwrap();
            let east = water_east_of(&mut sim, nx, 200) - before;
            (sim.take_section_rows(), east, sim.surface().unwrap())
        };
        let (twin, east, surface) = run_of(&scene, Backend::Reference);
        let crossed: f64 = twin.iter().map(|r| r[0] * dt).sum();
        let late: f64 = twin[200..].iter().map(|r| r[0]).sum::<f64>() / (twin.len() - 200) as f64;
        eprintln!(
            "{solver}: crossed {crossed:.6e} m³, east {east:.6e} m³ ({:+.3} %); Q at the dam {late:.6e} m³/s, \
             c·Δ/2 {at_dam:.6e} ({:+.3} %)",
            100.0 * (crossed / east - 1.0),
            100.0 * (late / at_dam - 1.0)
        );
        assert!(east > 1e-3, "the water went nowhere: {east} m³");
        assert!(
            (crossed - east).abs() < 0.01 * east,
            "{solver}: ∫Q dt {crossed} m³ against the water east of the line {east} m³"
        );
        assert!(
            (late - at_dam).abs() < 0.02 * at_dam,
            "{solver}: Q at the dam {late} m³/s against c·Δ/2 {at_dam}"
        );
        // The step with the memory is the step without it; the global correction's sum of the
        // per-step changes counts the memory's part apart (`held_in_faces`), which rounds
        // otherwise: measured 3.9e-9 m at most after 400 steps, checked to 1e-8.
        let without = |physics: &str| {
            run_of(
                &linear_dam(dir.path(), solver, physics, false, steps),
                Backend::Reference,
            )
            .2
        };
        let moved = without("")
            .iter()
            .zip(&surface)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        eprintln!("{solver}: the line moved the surface by {moved:.3e} m at most");
        assert!(moved < 1e-8, "{solver}: the line moved the water {moved} m");
        let uncorrected = "volume_correction = \"none\"\n";
        let with = run_of(
            &linear_dam(dir.path(), solver, uncorrected, true, steps),
            Backend::Reference,
        )
        .2;
        assert!(with == without(uncorrected), "{solver}: the line changed the step");
        let fast = run_of(&scene, Backend::Cpu);
        assert!(
            fast.0 == twin && fast.2 == surface,
            "{solver}: the fast CPU left the twin's bits"
        );
        let gpu = run_of(&scene, Backend::Gpu);
        let worst = gpu
            .0
            .iter()
            .zip(&twin)
            .map(|(g, c)| (g[0] - c[0]).abs())
            .fold(0.0, f64::max);
        eprintln!("{solver}: GPU rows within {worst:.3e} m³/s of the twin's");
        assert!(worst <= 1e-4 * at_dam, "{solver}: GPU rows {worst} m³/s off the twin's");
    }
}
