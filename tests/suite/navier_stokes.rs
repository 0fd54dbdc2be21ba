//! Foster & Metaxas's Navier-Stokes layer (seed 003) through scenes: the dispersion of water
//! waves the height field lacks, with the 3D grid at the surface's resolution and coarser, the
//! volume the height field keeps, and what is not built yet refused clearly. The layer's own
//! checks (hydrostatic rest, |D| < ε every step, convergence with resolution) are its unit tests
//! (src/cpu/navier_stokes.rs).

use crate::common::*;
use shoal::{Backend, Simulation};

/// A closed 2 m tank, 1 m deep, 32 × 2 cells, holding one wavelength of a standing wave 5 mm
/// high (cos, crests at the walls); `extra` appended.
fn tank(dir: &std::path::Path, model: &str, extra: &str) -> shoal::Scene {
    scene_in(dir, &tank_text(dir, model, extra))
}

/// `tank`'s scene file (its wave written into `dir`).
fn tank_text(dir: &std::path::Path, model: &str, extra: &str) -> String {
    write_npy(dir, "wave.npy", 2, 32, |i, _| {
        0.005 * (2.0 * std::f64::consts::PI * (i as f64 + 0.5) / 32.0).cos()
    });
    format!(
        "[grid]\nnx = 32\nny = 2\ndx = 0.0625\n[time]\ndt = 0.01\n[physics]\nmodel = \"{model}\"\n\
         [terrain]\nflat = -1.0\n[water]\nnpy = \"wave.npy\"\n\
         [[output.probe]]\nname = \"west\"\nx = 0.03\ny = 0.06\n{extra}"
    )
}

/// The period of the surface at the west wall over three periods (`steps` steps of 0.01 s).
fn period(scene: &shoal::Scene, steps: u64) -> f64 {
    let mut sim = simulation(scene, Backend::Cpu);
    let rows = sim.step(steps).unwrap();
    let west: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    let up = upward_crossings(&west, 0.0, 0.01);
    assert!(up.len() >= 4, "fewer than three periods: {up:?}");
    (up[3] - up[0]) / 3.0
}

#[test]
fn waves_in_deep_water_travel_at_their_dispersive_speed_where_a_height_field_cannot() {
    // k·D = π: ω² = g·k·tanh(k·D). The explicit height field gives ω = sqrt(g·D)·k whatever the
    // wavelength. 20 and 40 layers (6.3 and 3.1 cm) resolve the decay of the wave's motion with
    // depth (e^(kz)); with coarsen = 2 the 3D grid is 16 × 1 columns under the 32 × 2 surface.
    // The still surface lies on a cell boundary, so the wave carries it between two cells each
    // half period: the hardest case for the surface pressure (measured: −0.54 % at 20 layers,
    // −0.14 % at 40, +0.14 % coarsened; the hydrostatic extrapolation alone gave −2.7 % and
    // −1.2 %).
    let dir = tempfile::tempdir().unwrap();
    let (g, k, depth) = (9.81f64, std::f64::consts::PI, 1.0f64);
    let theory = 2.0 * std::f64::consts::PI / (g * k * (k * depth).tanh()).sqrt();
    let height_field = period(&tank(dir.path(), "height-field", ""), 500);
    let mut message = format!("linear theory {theory:.4} s; the explicit height field {height_field:.4} s");
    let mut errors = Vec::new();
    for (name, extra) in [
        ("20 layers", "[navier_stokes]\nlayers = 20\n"),
        ("40 layers", "[navier_stokes]\nlayers = 40\n"),
        ("40 layers, coarsen 2", "[navier_stokes]\nlayers = 40\ncoarsen = 2\n"),
    ] {
        let t = period(&tank(dir.path(), "navier-stokes", extra), 500);
        let error = t / theory - 1.0;
        message.push_str(&format!("; {name} {t:.4} s ({:+.2} %)", 100.0 * error));
        errors.push(error.abs());
    }
    eprintln!("{message}");
    assert!(errors[1] < 0.01 && errors[2] < 0.01, "{message}");
    assert!(errors[0] > errors[1], "no better at 40 layers than at 20: {message}");
    assert!(height_field / theory < 0.6, "{message}");
}

#[test]
fn the_height_field_over_the_layer_keeps_its_volume_with_no_correction() {
    // Eq. (12) moves the surface by the velocities and does not conserve by construction: with
    // `volume_correction = "none"` the wave's volume changes by 9e-7 of itself over 300 steps
    // (measured); the issue asks 1e-5. The default global correction holds it exactly.
    let dir = tempfile::tempdir().unwrap();
    let text = tank_text(dir.path(), "navier-stokes", "[navier_stokes]\nlayers = 20\n");
    let text = text.replace("[physics]\n", "[physics]\nvolume_correction = \"none\"\n");
    let scene = scene_in(dir.path(), &text);
    let mut sim = simulation(&scene, Backend::Cpu);
    let volume = |sim: &mut Simulation| {
        let surface = sim.surface().unwrap();
        sim.stats(&surface).volume
    };
    let before = volume(&mut sim);
    sim.step(300).unwrap();
    let after = volume(&mut sim);
    let change = (after - before) / before;
    eprintln!("volume change over 300 steps: {change:.2e}");
    assert!(change.abs() < 1e-5, "{change:.3e}");
}

#[test]
fn what_the_layer_does_not_take_yet_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, key) in [
        ("[navier_stokes]\ncoarsen = 3\n", "navier_stokes.coarsen"),
        ("[navier_stokes]\nbeta0 = 2.0\n", "navier_stokes.beta0"),
        ("[boundary]\neast = \"open\"\n", "boundary.east"),
        (
            "[navier_stokes.inflow]\nside = \"west\"\nkind = \"sine\"\n",
            "navier_stokes.inflow.period",
        ),
        (
            "[navier_stokes]\noutflow = [\"west\"]\n[navier_stokes.inflow]\nside = \"west\"\n",
            "navier_stokes.outflow",
        ),
        (
            "[navier_stokes.forcing]\nkind = \"wave\"\nheight = 0.01\n",
            "navier_stokes.forcing.wavelength",
        ),
        (
            "[navier_stokes]\ncoarsen = 2\noutflow = [\"north\"]\n",
            "navier_stokes.outflow",
        ),
    ] {
        let text = tank_text(dir.path(), "navier-stokes", extra);
        let e = shoal::Scene::parse(&text, std::path::Path::new("s.toml"), dir.path())
            .err()
            .unwrap_or_else(|| panic!("accepted: {extra}"))
            .to_string();
        assert!(e.contains(key), "{e} does not name {key}");
    }
    // A table that is not there, or not numbers, fails the build naming its key and line.
    for (contents, what) in [
        (None, "navier_stokes.inflow.file"),
        (Some("time,v\n0,1\nx,2\n"), "line 3"),
    ] {
        if let Some(c) = contents {
            std::fs::write(dir.path().join("q.csv"), c).unwrap();
        }
        let extra = "[navier_stokes.inflow]\nside = \"west\"\nkind = \"table\"\nfile = \"q.csv\"\n";
        let scene = scene_in(dir.path(), &tank_text(dir.path(), "navier-stokes", extra));
        let e = Simulation::new(&scene, Backend::Cpu)
            .err()
            .expect("a bad table")
            .to_string();
        assert!(e.contains(what) && e.contains("navier_stokes.inflow.file"), "{e}");
    }
}

#[test]
fn a_run_writes_the_layers_velocity_and_pressure_at_the_snapshots() {
    // A still pool 1 m deep, 8 layers over 1.25 m (a quarter of the depth as headroom): the
    // bottom cell's centre lies 0.921875 m under the surface, so its pressure is
    // ρ·g·0.921875 = 9043.6 Pa, and nothing moves.
    let dir = tempfile::tempdir().unwrap();
    let text = "[grid]\nnx = 6\nny = 4\ndx = 0.1\n[time]\ndt = 0.01\nsteps = 10\n[physics]\n\
                model = \"navier-stokes\"\n[terrain]\nflat = -1.0\n[output]\nevery = 10\n";
    std::fs::write(dir.path().join("pool.toml"), text).unwrap();
    let (ok, _, err) = crate::cli::shoal(
        &["run", "pool.toml", "--backend", "cpu", "--out", "out", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    // float32 C-order arrays: the header names the shape, then 4 bytes per value.
    let read = |name: &str| {
        let bytes = std::fs::read(dir.path().join("out").join(name)).unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize + 10;
        let header = String::from_utf8_lossy(&bytes[..header_len]).replace(' ', "");
        let values: Vec<f32> = bytes[header_len..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        (header, values)
    };
    let (header, velocity) = read("velocity_000010.npy");
    assert!(header.contains("'shape':(8,4,6,3,)"), "{header}");
    assert!(velocity.iter().all(|v| v.abs() < 1e-5), "the still pool moves");
    let (header, pressure) = read("pressure_000010.npy");
    assert!(
        header.contains("'shape':(8,4,6,)") && header.contains("<f4"),
        "{header}"
    );
    let want = 1000.0 * 9.81 * 0.921875;
    assert!(
        (pressure[0] - want).abs() < 0.01,
        "{} Pa at the bottom, want {want}",
        pressure[0]
    );
    // The top layer is air: 0.
    assert_eq!(pressure[7 * 24], 0.0);
}

#[test]
fn a_resumed_layer_ends_with_the_bits_of_a_straight_run() {
    // The height field, the 3D grid's pressures, velocities and flags go through a checkpoint
    // file, and the correction's target is rebuilt from the scene. The 3D grid read straight
    // after the restore is the one saved (issue 57: the flags were rebuilt at the next substep
    // only, so the velocity and pressure files a resume wrote at its first step were masked by
    // the flags of the start, 0 in 3,702 cells of a wave's crest).
    let dir = tempfile::tempdir().unwrap();
    let scene = tank(
        dir.path(),
        "navier-stokes",
        "[navier_stokes]\nlayers = 12\ncoarsen = 2\n",
    );
    let file = dir.path().join("checkpoint.bin");
    let bits = |sim: &mut Simulation| sim.eta().unwrap().iter().map(|h| h.to_bits()).collect::<Vec<_>>();
    // On both backends: the GPU's pressure budget and velocity level go through it too.
    let mut resumed = None;
    for backend in BOTH {
        let mut straight = simulation(&scene, backend);
        let start = straight.eta().unwrap();
        straight.step(160).unwrap();
        assert_ne!(straight.eta().unwrap(), start, "the wave did not move");
        let mut first = simulation(&scene, backend);
        first.step(80).unwrap();
        first.checkpoint().unwrap().write(&file).unwrap();
        let mut again = simulation(&scene, backend);
        again.restore(&shoal::Checkpoint::read(&file).unwrap(), &file).unwrap();
        assert_eq!(
            again.layer_fields().unwrap(),
            first.layer_fields().unwrap(),
            "{backend:?}: the 3D grid at the step restored"
        );
        again.step(80).unwrap();
        assert_eq!(bits(&mut again), bits(&mut straight), "{backend:?}: the surface");
        assert_eq!(
            again.layer_fields().unwrap(),
            straight.layer_fields().unwrap(),
            "{backend:?}: the 3D grid"
        );
        resumed = Some(again);
    }
    let mut resumed = resumed.unwrap();
    // A height-field checkpoint of the same grid is not this layer's.
    let other = tank(dir.path(), "height-field", "");
    let mut hf = simulation(&other, Backend::Cpu);
    hf.checkpoint().unwrap().write(&file).unwrap();
    let e = resumed
        .restore(&shoal::Checkpoint::read(&file).unwrap(), &file)
        .unwrap_err()
        .to_string();
    assert!(e.contains("another scene") || e.contains("other"), "{e}");
}

#[test]
fn a_dam_break_runs_with_substeps_from_the_flow_and_keeps_its_volume() {
    // Half a metre of water let go over 5 cm: the front runs at up to 2·sqrt(g·d) ≈ 4.4 m/s,
    // twice what the start's substeps (sqrt(g·d)·δt/δx ≤ 0.5) allow for. The run raises them
    // between submits from the flow's |u|·δt/δx, and the surface's fluxes (limited to what a
    // cell holds) keep the volume with no correction: within 1e-5 of itself (float32 sums of
    // ~1e3 terms per step over 3 s). The front reaches the far wall (2 m) and the water stays
    // finite and above the ground.
    let dir = tempfile::tempdir().unwrap();
    let text = "[grid]\nnx = 40\nny = 2\ndx = 0.05\n[time]\ndt = 0.02\n[physics]\n\
                model = \"navier-stokes\"\nvolume_correction = \"none\"\n[navier_stokes]\nlayers = 16\n\
                [terrain]\nflat = -0.05\n[[water.bump]]\nx = 0.0\ny = 0.05\nradius = 0.4\nheight = 0.5\n";
    let mut sim = simulation(&scene_in(dir.path(), text), Backend::Cpu);
    let start = sim.substeps();
    let volume = |sim: &mut Simulation| {
        let surface = sim.surface().unwrap();
        sim.stats(&surface).volume
    };
    let before = volume(&mut sim);
    let mut far_wall = 0.0f64;
    for _ in 0..10 {
        sim.step(15).unwrap();
        let eta = sim.eta().unwrap();
        far_wall = far_wall.max(eta[39] as f64);
    }
    let change = volume(&mut sim) / before - 1.0;
    eprintln!(
        "substeps {start} → {}; volume change {change:.2e}; highest at the far wall {far_wall:.3} m",
        sim.substeps()
    );
    assert!(sim.substeps() > start, "the substeps never rose");
    assert!(change.abs() < 1e-5, "{change:.3e}");
    assert!(far_wall > 0.05, "the front never reached the far wall");
}

/// 1 m of water over its first `held` columns against the west wall, the rest of a flat dry
/// bed `nx` × 2 cells of `dx`, 32 layers, steps of `dt`: on the CPU backend.
fn dry_bed_dam(dir: &std::path::Path, nx: usize, dx: f64, dt: f64, held: usize) -> Simulation {
    write_npy(dir, "dam.npy", 2, nx, |i, _| if i < held { 1.0 } else { 0.0 });
    let text = format!(
        "[grid]\nnx = {nx}\nny = 2\ndx = {dx}\n[time]\ndt = {dt}\n[physics]\nmodel = \"navier-stokes\"\n\
         [navier_stokes]\nlayers = 32\n[terrain]\nflat = 0.0\n[water]\nnpy = \"dam.npy\"\n"
    );
    simulation(&scene_in(dir, &text), Backend::Cpu)
}

/// Ritter's dam break on the layer (SWASHES §4.1.1): 1 m of water 5 m long against a wall, let
/// go over a dry bed, dx = 5 cm, 32 layers (3.9 cm), t = 2 s, on the CPU backend. Measured:
/// the 10 cm depth's reach −0.9 % of Ritter's x0 + t·(2·c0 − 3·sqrt(g·d)), the 1 cm depth's
/// −14.3 %, the 1 mm tip's −22.3 %, and where Ritter's depth is 0.1–0.5 m (clear of the wall's
/// reflection) the depth within 3.0 % and the velocity within 4.3 %. Before the free surface
/// read the air as still water's faces, partly filled faces advected by mass and films under
/// 0.1 mm were dry to the 3D grid, the same reaches were −4.9, −39.7 and −45.7 %: the bottom
/// layer kept the film's velocity that the front ran into, and the front moved as a blunt
/// wall at half speed. What is left is the tip thinner than two layers, which still piles up.
#[test]
fn ritters_dam_break_runs_its_fan_at_ritters_speed_down_to_a_centimetre() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, dx, x0, t) = (400usize, 0.05f64, 5.0f64, 2.0f64);
    let mut sim = dry_bed_dam(dir.path(), nx, dx, 0.01, 100);
    sim.step(200).unwrap();
    let ground = sim.ground().to_vec();
    let depth: Vec<f64> = sim.surface().unwrap()[..nx]
        .iter()
        .zip(&ground)
        .map(|(h, b)| (h - b).max(0.0))
        .collect();
    let velocity = sim.velocity().unwrap().expect("the layer has a velocity");
    let (g, c0) = (9.81f64, 9.81f64.sqrt());
    // How far past the dam a depth reaches (between the last cell deeper and the next), and
    // Ritter's reach for it.
    let reach = |d: f64| {
        let last = depth.iter().rposition(|&h| h > d).unwrap();
        let (a, b) = (depth[last], depth.get(last + 1).copied().unwrap_or(0.0));
        (last as f64 + 0.5) * dx + dx * (a - d) / (a - b) - x0
    };
    let exact = |d: f64| t * (2.0 * c0 - 3.0 * (g * d).sqrt());
    let off: Vec<f64> = [0.1, 0.01, 0.001].iter().map(|&d| reach(d) / exact(d) - 1.0).collect();
    let (mut worst_h, mut worst_u) = (0.0f64, 0.0f64);
    for i in 0..nx {
        let xi = ((i as f64 + 0.5) * dx - x0) / t;
        let h = (2.0 * c0 - xi).powi(2) / (9.0 * g);
        if xi * t > -3.0 && (0.1..0.5).contains(&h) {
            worst_h = worst_h.max((depth[i] / h - 1.0).abs());
            worst_u = worst_u.max((velocity[i][0] as f64 / (2.0 / 3.0 * (c0 + xi)) - 1.0).abs());
        }
    }
    eprintln!(
        "Ritter on 32 layers: reach of 10 cm {:+.1} %, 1 cm {:+.1} %, 1 mm {:+.1} %; 0.1–0.5 m: depth within {:.1} %, \
         velocity within {:.1} %",
        100.0 * off[0],
        100.0 * off[1],
        100.0 * off[2],
        100.0 * worst_h,
        100.0 * worst_u
    );
    // Tolerances: the measured figures with a margin of about a tenth of a cell's reach.
    assert!(off[0].abs() < 0.02, "the 10 cm depth is {:+.1} % off", 100.0 * off[0]);
    assert!(off[1].abs() < 0.16, "the 1 cm depth is {:+.1} % off", 100.0 * off[1]);
    assert!(off[2].abs() < 0.24, "the 1 mm tip is {:+.1} % off", 100.0 * off[2]);
    assert!(worst_h < 0.04, "the fan's depth is {:.1} % off", 100.0 * worst_h);
    assert!(worst_u < 0.05, "the fan's velocity is {:.1} % off", 100.0 * worst_u);
}

/// Martin & Moyce's collapse of a water column (1952, their Fig. 3, n² = 2, a = 2.25 in, as
/// digitised in PySPH's `db_exp_data.py`): T = t·sqrt(2g/a) and the surge's reach Z = z/a.
const MARTIN_MOYCE: [(f64, f64); 15] = [
    (0.832, 1.217),
    (1.219, 1.474),
    (1.997, 2.292),
    (2.547, 2.995),
    (3.345, 4.134),
    (4.034, 4.944),
    (4.418, 5.881),
    (5.091, 6.980),
    (5.685, 7.945),
    (6.306, 8.966),
    (6.822, 9.986),
    (7.439, 10.963),
    (8.031, 11.977),
    (8.633, 13.005),
    (9.237, 13.970),
];

/// A column a = 0.5 m wide and 1 m high against the west wall collapses over a dry bed (dx =
/// 2.5 cm, 32 layers), its surge's reach (the last cell deeper than 1 mm) read every 0.05 s and
/// set against Martin & Moyce's. Measured for T ≥ 1: 5.4 % off on average (before the fronts'
/// rules, 21 %, −36 % at T = 9.2), within 8.6 % from T = 2.5 on, the late dZ/dT 1.55 against the
/// data's 1.65 (before 0.80). Early on (T < 2.5) the layer runs ahead, +20 % at T = 1.2: its
/// height field spreads at once where the real column still stands.
#[test]
fn a_collapsing_column_surges_as_martin_and_moyce_measured() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, dx, a, g) = (300usize, 0.025f64, 0.5f64, 9.81f64);
    let mut sim = dry_bed_dam(dir.path(), nx, dx, 0.005, 20);
    let ground = sim.ground().to_vec();
    let mut reach = vec![(0.0f64, 1.0f64)];
    for n in 1..=30 {
        sim.step(10).unwrap();
        let surface = sim.surface().unwrap();
        let last = (0..nx).rev().find(|&i| surface[i] - ground[i] > 1e-3).unwrap();
        reach.push((n as f64 * 0.05 * (2.0 * g / a).sqrt(), (last + 1) as f64 * dx / a));
    }
    let at = |t: f64| {
        let k = reach.iter().position(|r| r.0 >= t).unwrap();
        let ((t0, z0), (t1, z1)) = (reach[k - 1], reach[k]);
        z0 + (z1 - z0) * (t - t0) / (t1 - t0)
    };
    let off: Vec<(f64, f64)> = MARTIN_MOYCE
        .iter()
        .filter(|(t, _)| *t >= 1.0)
        .map(|&(t, z)| (t, at(t) / z - 1.0))
        .collect();
    let mean = off.iter().map(|o| o.1.abs()).sum::<f64>() / off.len() as f64;
    let late = off.iter().filter(|o| o.0 >= 2.5).map(|o| o.1.abs()).fold(0.0, f64::max);
    eprintln!(
        "Martin & Moyce: {off:.3?}; mean |off| {:.1} %, from T = 2.5 within {:.1} %",
        100.0 * mean,
        100.0 * late
    );
    // The goal, 10 % for T ≥ 1, holds from T = 2.5: before, the height field's start.
    assert!(mean < 0.07, "the surge is {:.1} % off on average", 100.0 * mean);
    assert!(late < 0.10, "the surge is {:.1} % off past T = 2.5", 100.0 * late);
}

/// The largest difference between two runs' surfaces (m) and 3D grids (pressure in Pa,
/// velocity in m/s).
fn differences(a: &mut Simulation, b: &mut Simulation) -> (f32, f32, f32) {
    let worst = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| (p - q).abs()).fold(0.0f32, f32::max);
    let (ea, eb) = (a.eta().unwrap(), b.eta().unwrap());
    let (la, lb) = (a.layer_fields().unwrap().unwrap(), b.layer_fields().unwrap().unwrap());
    let flat = |l: &shoal::LayerFields| l.velocity.iter().flatten().copied().collect::<Vec<f32>>();
    (
        worst(&ea, &eb),
        worst(&la.pressure, &lb.pressure),
        worst(&flat(&la), &flat(&lb)),
    )
}

#[test]
fn the_gpu_passes_follow_the_cpu_twin() {
    // A standing wave over the 3D grid at half the surface's resolution, a dam break whose front
    // runs over dry-ish ground, and a channel with inflow, outflow and wind, on the GPU and on
    // the CPU twin: the same numerics in
    // the same order (the pressure sweeps, the fluxes, the volume's compensated fold), so they
    // differ only where a compiler fuses a multiply-add or divides by a reciprocal. Measured on
    // lavapipe after 48 steps: the wave 9.3e-10 m, 9.8e-4 Pa, 1.0e-8 m/s; the dam break after 32
    // steps, as its front nears the east wall, 8.9e-8 m, 2.9e-3 Pa, 1.6e-6 m/s. (Past step 36 the front strikes the
    // wall, and the jet up it grows the backends' rounding as any chaotic splash does: 1.7e-6 m
    // and 3.7e-5 m/s at step 48, since the front runs at Ritter's speed; before, at half speed,
    // 4.2e-7 m and 2.2e-6 m/s.) Bounds: 1e-6 m on the surface (2e-4 of
    // the wave's 5 mm), 0.05 Pa on the pressure (5e-6 of the 1e4 Pa at the floor: the iteration
    // stops once |D| < ε, so rounding moves where it stops), and 2e-5 m/s on the velocities
    // (1e-5 of the front's 2 m/s).
    let dir = tempfile::tempdir().unwrap();
    let (dam, forced) = (dam_break_text(), forced_channel_text());
    for (name, scene, steps) in [
        (
            "standing wave",
            tank(
                dir.path(),
                "navier-stokes",
                "[navier_stokes]\nlayers = 12\ncoarsen = 2\n",
            ),
            48,
        ),
        ("dam break", scene_in(dir.path(), &dam), 32),
        ("forced channel", scene_in(dir.path(), &forced), 48),
    ] {
        let mut cpu = simulation(&scene, Backend::Cpu);
        let mut gpu = simulation(&scene, Backend::Gpu);
        let rows_cpu = cpu.step(steps).unwrap();
        let rows_gpu = gpu.step(steps).unwrap();
        let (dh, dp, du) = differences(&mut cpu, &mut gpu);
        eprintln!(
            "{name}: |Δh| {dh:.2e} m, |Δp| {dp:.2e} Pa, |Δu| {du:.2e} m/s; substeps {} / {}",
            cpu.substeps(),
            gpu.substeps()
        );
        assert_eq!(rows_cpu.len(), rows_gpu.len());
        assert_eq!(cpu.substeps(), gpu.substeps(), "{name}: the substeps rose differently");
        assert!(
            dh < 1e-6 && dp < 0.05 && du < 2e-5,
            "{name}: {dh:.2e} m, {dp:.2e} Pa, {du:.2e} m/s"
        );
        // A rerun on the GPU gives the same bits: the sweeps' order and the folds are fixed.
        let mut again = simulation(&scene, Backend::Gpu);
        again.step(steps).unwrap();
        assert_eq!(again.eta().unwrap(), gpu.eta().unwrap(), "{name}: a GPU rerun differs");
    }
}

#[test]
fn an_inflow_raises_a_closed_basin_by_what_it_brings() {
    // A basin 2 m long, 0.5 m deep, fed at 1 cm/s through its whole west side: the side's flux
    // is u·D per metre of side, so D grows as D₀·e^(u·t/L) (1.005 % in 2 s; Q·t/A to first
    // order). No correction runs where water crosses a side: what the fluxes carry is all
    // there is. Measured: +0.024 % of the gain off the exact one.
    let dir = tempfile::tempdir().unwrap();
    let text = "[grid]\nnx = 40\nny = 2\ndx = 0.05\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
                [navier_stokes]\nlayers = 12\n[navier_stokes.inflow]\nside = \"west\"\nvelocity = 0.01\n\
                [terrain]\nflat = -0.5\n";
    let mut sim = simulation(&scene_in(dir.path(), text), Backend::Cpu);
    let before = water_volume(&mut sim);
    sim.step(200).unwrap();
    let gained = water_volume(&mut sim) - before;
    let exact = before * ((0.01f64 * 2.0 / 2.0).exp() - 1.0);
    eprintln!("gained {gained:.6e} m³, exact {exact:.6e}");
    assert!((gained / exact - 1.0).abs() < 2e-3, "{gained} vs {exact}");
}

#[test]
fn a_channel_carries_its_inflow_out_through_the_outflow() {
    // A 3 m free-slip channel 0.5 m deep, fed through its west side at up to 5 cm/s (ramped in
    // over 3 s from a CSV table), leaving through its east side at its natural rate. Over 12 s
    // 0.0263 m³ comes in; the outflow carries all but what the channel's own slow seiche
    // holds at that moment (measured: −0.5e-3 m³, 2 %; the outflow is a pressure-release end,
    // so the basin's quarter-wave mode, ±7 mm at 5.4 s, rings once the ramp has excited it).
    // Upstream of the outflow the surface stays smooth: no cell differs from its neighbour by
    // more than 1 mm over the last five (measured: 0.4 mm).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ramp.csv"), "time,velocity\n0,0\n3,0.05\n").unwrap();
    let text = "[grid]\nnx = 60\nny = 2\ndx = 0.05\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
                [navier_stokes]\nlayers = 12\noutflow = [\"east\"]\n[navier_stokes.inflow]\nside = \"west\"\n\
                kind = \"table\"\nfile = \"ramp.csv\"\n[terrain]\nflat = -0.5\n";
    let mut sim = simulation(&scene_in(dir.path(), text), Backend::Cpu);
    let before = water_volume(&mut sim);
    let mut roughest = 0.0f32;
    for _ in 0..12 {
        sim.step(100).unwrap();
        let eta = sim.eta().unwrap();
        roughest = roughest.max((55..59).map(|i| (eta[i + 1] - eta[i]).abs()).fold(0.0, f32::max));
    }
    let came_in = 0.5 * 3.0 * 0.05 * 0.5 * 0.1 + 9.0 * 0.05 * 0.5 * 0.1;
    let kept = water_volume(&mut sim) - before;
    eprintln!("came in {came_in:.4e} m³, kept {kept:.3e} m³; roughest step near the outflow {roughest:.2e} m");
    assert!(
        kept.abs() < 0.05 * came_in,
        "the outflow let out {} of it",
        1.0 - kept / came_in
    );
    assert!(roughest < 1e-3, "{roughest} m near the outflow");
}

#[test]
fn applied_pressure_presses_evenly_and_the_wind_wave_raises_its_wave() {
    let dir = tempfile::tempdir().unwrap();
    // An even 500 Pa over a still pool moves nothing: the pressure under it is 500 Pa more
    // than the hydrostatic one (§7.2: the Surface cells take the applied pressure).
    let pool = "[grid]\nnx = 6\nny = 4\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
                [navier_stokes.forcing]\npressure = 500.0\n[terrain]\nflat = -1.0\n";
    let mut sim = simulation(&scene_in(dir.path(), pool), Backend::Cpu);
    sim.step(50).unwrap();
    let moved = sim.eta().unwrap().iter().map(|h| h.abs()).fold(0.0f32, f32::max);
    assert!(moved < 1e-6, "the pressed pool moved {moved} m");
    let layer = sim.layer_fields().unwrap().unwrap();
    // The bottom cell's centre lies 0.921875 m under the surface (8 layers over 1.25 m).
    let want = 500.0 + 1000.0 * 9.81 * 0.921875;
    assert!(
        (layer.pressure[0] - want).abs() < 0.01,
        "{} Pa vs {want}",
        layer.pressure[0]
    );
    // Eq. 17's travelling pressure at the free wave's speed raises a 1 m wave 1 cm high over
    // four periods (3.2 s) in 1 m of water, by linear theory. In this closed 4 m tank it
    // reflects off the walls, so the highest point differs from the amplitude by up to the
    // reflection's share: measured 1.9 cm at 3 s. Without the forcing nothing moves.
    let wind = "[grid]\nnx = 64\nny = 2\ndx = 0.0625\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
                [navier_stokes]\nlayers = 16\n[navier_stokes.forcing]\nkind = \"wave\"\nwavelength = 1.0\n\
                height = 0.01\n[terrain]\nflat = -1.0\n";
    let mut sim = simulation(&scene_in(dir.path(), wind), Backend::Cpu);
    sim.step(300).unwrap();
    let highest = sim.eta().unwrap().iter().map(|h| h.abs()).fold(0.0f32, f32::max);
    eprintln!("the wind wave: {highest:.4} m high at 3 s");
    assert!((0.005..0.025).contains(&highest), "{highest} m");
}

/// Half a metre of water let go over 5 cm in a 2 m channel, 16 layers.
fn dam_break_text() -> String {
    "[grid]\nnx = 40\nny = 2\ndx = 0.05\n[time]\ndt = 0.02\n[physics]\n\
               model = \"navier-stokes\"\n[navier_stokes]\nlayers = 16\n\
               [terrain]\nflat = -0.05\n[[water.bump]]\nx = 0.0\ny = 0.05\nradius = 0.4\nheight = 0.5\n"
        .to_string()
}

/// Water in at a sine through the west side, out through the east, under eq. 17's wind.
fn forced_channel_text() -> String {
    "[grid]\nnx = 32\nny = 4\ndx = 0.0625\n[time]\ndt = 0.01\n[physics]\n\
                  model = \"navier-stokes\"\n[navier_stokes]\nlayers = 10\noutflow = [\"east\"]\n\
                  [navier_stokes.inflow]\nside = \"west\"\nkind = \"sine\"\nvelocity = 0.05\namplitude = 0.05\n\
                  period = 0.5\n[navier_stokes.forcing]\nkind = \"wave\"\nwavelength = 0.5\nheight = 0.01\n\
                  direction = 30.0\n[terrain]\nflat = -0.5\n"
        .to_string()
}

#[test]
fn the_fast_cpu_layer_gives_the_references_bits_on_any_thread_count() {
    // Smaller than a task's share (`CELLS_PER_TASK`): split anyway, as a large grid is.
    let _split = shoal::low_level::cpu::split_small_grids();
    // Momentum by layers of faces, the pressure sweeps gathered per face, the fluxes per
    // lattice point: each face and cell gets the reference's additions in the reference's
    // order, whatever the threads. The backend threads a layer of at least `FAST_FROM` cells
    // (smaller ones run the reference's loops): the scenes here are widened past it.
    let dir = tempfile::tempdir().unwrap();
    let dam = dam_break_text()
        .replace("ny = 2", "ny = 48")
        .replace("nx = 40", "nx = 48");
    // 48 × 48 × 16 and 72 × 48 × 10 cells.
    let channel = forced_channel_text()
        .replace("ny = 4", "ny = 48")
        .replace("nx = 32", "nx = 72");
    for text in [dam, channel] {
        let scene = scene_in(dir.path(), &text);
        let run = |backend: Backend, threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let mut sim = simulation(&scene, backend);
                sim.step(32).unwrap();
                let bits: Vec<u32> = sim.eta().unwrap().iter().map(|h| h.to_bits()).collect();
                (bits, sim.layer_fields().unwrap(), sim.substeps())
            })
        };
        let reference = run(Backend::Reference, 1);
        for threads in [1, 2, 3] {
            assert!(run(Backend::Cpu, threads) == reference, "{threads} threads: {text}");
        }
    }
}
