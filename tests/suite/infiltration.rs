//! `[infiltration]` (issue 52) on the shallow-water model: each law against its own solution on
//! ponded ground (constant, Horton's integral, Green & Ampt's implicit F(t)) and the curve
//! number's runoff under steady rain; never more than a cell holds; the volume and what the ground
//! took adding up to the start's; maps; the twin, the fast CPU and the GPU; a resume; bad input.

use crate::cli::shoal;
use crate::common::*;
use shoal::{Backend, Scene};
use std::path::Path;

/// A flat closed basin of 10 × 10 one-metre cells, water `depth` deep (0: dry), stepped a second
/// at a time, with the `[infiltration]` (and further) lines `extra`.
fn basin(dir: &Path, depth: f64, extra: &str) -> Scene {
    basin_on("shallow-water", dir, depth, extra)
}

/// The basin on `model`.
pub fn basin_on(model: &str, dir: &Path, depth: f64, extra: &str) -> Scene {
    std::fs::write(dir.join("scene.toml"), basin_text_on(model, depth, extra)).unwrap();
    Scene::from_file(&dir.join("scene.toml")).unwrap()
}

/// The basin's scene file.
fn basin_text(depth: f64, extra: &str) -> String {
    basin_text_on("shallow-water", depth, extra)
}

/// The basin's scene file on `model`.
fn basin_text_on(model: &str, depth: f64, extra: &str) -> String {
    format!(
        "[grid]\nnx = 10\nny = 10\ndx = 1.0\n[time]\ndt = 1.0\nsteps = 10\n[physics]\nmodel = \"{model}\"\n\
         [terrain]\nflat = {}\n[water]\nlevel = 0.0\n{extra}",
        -depth
    )
}

/// The mean depth after `steps` steps on `backend`, with the water's volume and what the ground
/// took (m³).
pub fn after(scene: &Scene, backend: Backend, steps: u64) -> (f64, f64, f64) {
    let mut sim = simulation(scene, backend);
    sim.step(steps).unwrap();
    let surface = sim.surface().unwrap();
    let stats = sim.stats(&surface);
    let cells = surface.len() as f64;
    let depth: f64 = surface
        .iter()
        .zip(sim.ground())
        .map(|(h, b)| (h - b).max(0.0))
        .sum::<f64>()
        / cells;
    (depth, stats.volume, sim.infiltrated().unwrap())
}

const MM_H: f64 = 1.0 / 3.6e6;

#[test]
fn a_constant_rate_takes_rate_times_time_and_never_more_than_the_water() {
    let dir = tempfile::tempdir().unwrap();
    let scene = basin(dir.path(), 0.1, "[infiltration]\nmodel = \"constant\"\nrate = 36.0\n");
    let (depth, volume, taken) = after(&scene, Backend::Reference, 600);
    eprintln!(
        "constant: depth error {:.2e} m, volume + taken − start {:.2e} m³",
        depth - 0.094,
        volume + taken - 10.0
    );
    // 36 mm/h for 600 s: 6 mm. Within 1e-6 m: f32 surfaces 0.1 m off the reference, the
    // steps' takes kept by TwoSum (measured 1e-10).
    assert!((depth - (0.1 - 0.006)).abs() < 1e-6, "depth {depth}");
    assert!((taken - 0.6).abs() < 1e-6 * 100.0, "taken {taken} m³");
    // What left the water is what the ground took: the volume and the books add up.
    assert!((volume + taken - 10.0).abs() < 1e-6, "volume {volume} + taken {taken}");
    // 3600 mm/h on 1 cm: dry in 10 s, exactly, and the ground took the whole centimetre.
    let scene = basin(
        dir.path(),
        0.01,
        "[infiltration]\nmodel = \"constant\"\nrate = 3600.0\n",
    );
    let (depth, volume, taken) = after(&scene, Backend::Reference, 25);
    assert_eq!((depth, volume), (0.0, 0.0));
    assert!((taken - 1.0).abs() < 1e-6, "taken {taken} m³ of 1");
}

#[test]
fn hortons_capacity_decays_as_his_integral_says() {
    let dir = tempfile::tempdir().unwrap();
    let (f0, fc, k) = (60.0, 10.0, 2.0);
    let scene = basin(
        dir.path(),
        0.5,
        &format!("[infiltration]\nmodel = \"horton\"\nf0 = {f0}\nfc = {fc}\nk = {k}\n"),
    );
    let t = 3600.0;
    let (depth, _, taken) = after(&scene, Backend::Reference, 3600);
    // F(t) = fc·t + (f0 − fc)/k·(1 − e^(−k·t)), rates in m/s and k in 1/s.
    let (f0, fc, k) = (f0 * MM_H, fc * MM_H, k / 3600.0);
    let want = fc * t + (f0 - fc) / k * (1.0 - (-k * t).exp());
    eprintln!(
        "horton: F {:.6e} m against {want:.6e} ({:+.2e})",
        taken / 100.0,
        taken / 100.0 / want - 1.0
    );
    // Within 0.1 %: a step takes the capacity at its start (a left sum, k·dt/2 = 3e-4 high).
    assert!(
        (taken / 100.0 - want).abs() < 1e-3 * want,
        "F {} m against Horton's {want}",
        taken / 100.0
    );
    assert!(
        (0.5 - depth - taken / 100.0).abs() < 1e-6,
        "the water lost what the ground took"
    );
}

#[test]
fn green_and_ampts_front_follows_its_implicit_solution() {
    let dir = tempfile::tempdir().unwrap();
    let (ks, psi, dtheta) = (10.0, 0.11, 0.3);
    let scene = basin(
        dir.path(),
        0.5,
        &format!("[infiltration]\nmodel = \"green-ampt\"\nks = {ks}\npsi = {psi}\ndtheta = {dtheta}\n"),
    );
    let (_, _, taken) = after(&scene, Backend::Reference, 3600);
    let f = taken / 100.0;
    // t(F) = (F − M·ln(1 + F/M))/Ks, M = ψ·Δθ: the time Green & Ampt give for the F measured.
    let (ks, m) = (ks * MM_H, psi * dtheta);
    let t = (f - m * (1.0 + f / m).ln()) / ks;
    eprintln!(
        "green-ampt: F {f:.6e} m is the law's at {t:.1} s ({:+.2e})",
        t / 3600.0 - 1.0
    );
    // Within 2 %: explicit steps from the first step's √(2·Ks·M·dt) (measured 0.1 %).
    assert!(
        (t - 3600.0).abs() < 0.02 * 3600.0,
        "F {f} m is Green & Ampt's at {t} s, not 3600 s"
    );
}

#[test]
fn the_curve_number_lets_the_rain_past_its_abstraction_run_off() {
    let dir = tempfile::tempdir().unwrap();
    // 50 mm/h for 2 h on dry ground at CN 80: P = 100 mm, S = 63.5 mm, Ia = 12.7 mm, and the
    // runoff (P − Ia)²/(P − Ia + S) = 50.54 mm stays on the flat basin.
    let scene = basin(
        dir.path(),
        0.0,
        "[rainfall]\nintensity = 50.0\n[infiltration]\nmodel = \"curve-number\"\ncn = 80.0\n",
    );
    let (depth, volume, taken) = after(&scene, Backend::Reference, 7200);
    let (p, s) = (0.1, 0.0254 * (1000.0 / 80.0 - 10.0));
    let ia = 0.2 * s;
    let want = (p - ia) * (p - ia) / (p - ia + s);
    eprintln!(
        "curve number: runoff {depth:.6e} m against {want:.6e} ({:+.2e})",
        depth / want - 1.0
    );
    // Within 1e-4 relative: f32 sums of 1.4e-5 m a step, compensated (measured 2e-7).
    assert!(
        (depth - want).abs() < 1e-4 * want,
        "runoff {depth} m against the SCS {want}"
    );
    assert!(
        (volume + taken - p * 100.0).abs() < 1e-4 * p * 100.0,
        "rain = runoff + losses"
    );
}

#[test]
fn a_rate_map_takes_water_only_where_it_says_and_where_the_cell_is_wet() {
    let dir = tempfile::tempdir().unwrap();
    // East half permeable; the ground a step up in the north-east quarter stands dry.
    write_npy(dir.path(), "rate.npy", 10, 10, |i, _| if i >= 5 { 36.0 } else { 0.0 });
    write_npy(dir.path(), "ground.npy", 10, 10, |i, j| {
        if i >= 5 && j >= 5 {
            0.5
        } else {
            -0.1
        }
    });
    basin(
        dir.path(),
        0.1,
        "[infiltration]\nmodel = \"constant\"\nrate_map = \"rate.npy\"\n",
    );
    let text = std::fs::read_to_string(dir.path().join("scene.toml"))
        .unwrap()
        .replace("flat = -0.1", "npy = \"ground.npy\"");
    std::fs::write(dir.path().join("scene.toml"), text).unwrap();
    let scene = Scene::from_file(&dir.path().join("scene.toml")).unwrap();
    let (_, _, taken) = after(&scene, Backend::Reference, 100);
    // 25 wet permeable cells, 1 mm each in 100 s (the water moves between them as it goes).
    assert!((taken - 0.025).abs() < 1e-6, "taken {taken} m³ of 0.025");
}

#[test]
fn every_law_on_the_fast_cpu_is_the_twins_bits_and_the_gpu_its_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let laws = [
        "model = \"constant\"\nrate = 36.0\n",
        "model = \"horton\"\nf0 = 60.0\nfc = 10.0\nk = 2.0\n",
        "model = \"green-ampt\"\nks = 10.0\npsi = 0.11\ndtheta = 0.3\n",
        "model = \"curve-number\"\ncn = 80.0\nia_ratio = 0.1\n",
    ];
    let mut runs = Vec::new();
    for law in laws {
        // A dam break over a rained-on slope: wet and dry cells, moving water, rain.
        let extra = format!("[rainfall]\nintensity = 500.0\n[[water.bump]]\nx = 2.0\ny = 5.0\nradius = 2.0\nheight = 0.2\n[infiltration]\n{law}");
        let scene = basin(dir.path(), 0.02, &extra);
        let twin = (
            run(&scene, Backend::Reference, 60),
            after(&scene, Backend::Reference, 60).2,
        );
        let fast = (run(&scene, Backend::Cpu, 60), after(&scene, Backend::Cpu, 60).2);
        assert!(twin == fast, "{law}: the fast CPU left the twin's bits");
        runs.push((scene, twin));
    }
    hold_gpu();
    for (scene, twin) in &runs {
        let gpu = (run(scene, Backend::Gpu, 60), after(scene, Backend::Gpu, 60).2);
        let worst = gpu
            .0
            .iter()
            .zip(&twin.0)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        // The model's GPU tolerance (1e-4 m); the laws' exp and sqrt differ by an ulp or two.
        assert!(
            worst < 1e-4,
            "{:?}: GPU vs twin {worst} m",
            scene.infiltration.as_ref().map(|i| i.model)
        );
        assert!(
            (gpu.1 - twin.1).abs() < 1e-4 * twin.1.max(1e-3),
            "taken: GPU {} twin {}",
            gpu.1,
            twin.1
        );
    }
}

#[test]
fn a_resumed_run_keeps_the_soils_state_to_the_bit() {
    let dir = tempfile::tempdir().unwrap();
    let scene = basin(
        dir.path(),
        0.05,
        "[rainfall]\nintensity = 20.0\n[infiltration]\nmodel = \"horton\"\nf0 = 60.0\nfc = 10.0\nk = 2.0\n",
    );
    let (mut resumed, mut straight) = resumed_and_straight(&scene, Backend::Cpu, 50, dir.path());
    assert_eq!(resumed.eta().unwrap(), straight.eta().unwrap());
    let (a, b) = (resumed.surface().unwrap(), straight.surface().unwrap());
    assert_eq!(a, b);
    assert_eq!(resumed.infiltrated(), straight.infiltrated());
    assert_eq!(resumed.target_volume(), straight.target_volume());
}

#[test]
fn bad_infiltration_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("rate.npy"), [0u8; 4]).unwrap();
    write_npy(
        dir.path(),
        "bad.npy",
        10,
        10,
        |i, _| if i == 3 { f64::NAN } else { 1.0 },
    );
    write_npy(dir.path(), "small.npy", 5, 5, |_, _| 1.0);
    for (law, key, says) in [
        ("model = \"constant\"\n", "infiltration.rate", "needs rate"),
        ("model = \"constant\"\nrate = -1.0\n", "infiltration.rate", "≥ 0"),
        (
            "model = \"constant\"\nrate = 1.0\nf0 = 2.0\n",
            "infiltration.f0",
            "does not take f0",
        ),
        (
            "model = \"constant\"\nrate = 1.0\nrate_map = \"bad.npy\"\n",
            "infiltration.rate_map",
            "not both",
        ),
        (
            "model = \"constant\"\nrate_map = \"bad.npy\"\n",
            "infiltration.rate_map",
            "non-finite",
        ),
        (
            "model = \"constant\"\nrate_map = \"small.npy\"\n",
            "infiltration.rate_map",
            "",
        ),
        (
            "model = \"green-ampt\"\nks = 1.0\npsi = 0.1\ndtheta = 1.5\n",
            "infiltration.dtheta",
            "[0, 1]",
        ),
        ("model = \"curve-number\"\ncn = 0.0\n", "infiltration.cn", "(0, 100]"),
        ("model = \"philip\"\n", "infiltration.model", "unknown variant"),
    ] {
        std::fs::write(
            dir.path().join("scene.toml"),
            basin_text(0.1, &format!("[infiltration]\n{law}")),
        )
        .unwrap();
        let (ok, _, err) = shoal(
            &["run", "scene.toml", "--backend", "cpu", "--out", "out", "--force"],
            dir.path(),
        );
        assert!(
            !ok && err.starts_with("error:") && err.contains(key) && err.contains(says),
            "{law}: {err}"
        );
        assert!(
            !dir.path().join("out/stats.csv").exists(),
            "{law}: a stats.csv was written"
        );
    }
}
