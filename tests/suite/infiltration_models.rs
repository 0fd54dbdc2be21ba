//! `[infiltration]` on the height field and the pipes (issue 52), beside the shallow-water model
//! (infiltration.rs): the same laws (soil.wgsl). The height field's volume pass takes from each
//! wet cell, booked in the volume's target as a drain's take so the correction never puts the
//! water back; the pipes take whole units from each column's lowest cell, out of its exchange.
//! Each law's take against the shallow-water model's on the same ponded basin, a cell drained dry
//! exactly, the books adding up under rain and moving water, the fast CPU's bits, the GPU's
//! numbers, a resume.

use crate::common::*;
use crate::infiltration::{after, basin_on};
use shoal::Backend;

const LAWS: [&str; 4] = [
    "model = \"constant\"\nrate = 36.0\n",
    "model = \"horton\"\nf0 = 60.0\nfc = 10.0\nk = 2.0\n",
    "model = \"green-ampt\"\nks = 10.0\npsi = 0.11\ndtheta = 0.3\n",
    "model = \"curve-number\"\ncn = 80.0\nia_ratio = 0.1\n",
];

#[test]
fn each_law_takes_from_still_water_what_it_takes_on_the_shallow_water_model() {
    let dir = tempfile::tempdir().unwrap();
    for (model, law) in ["height-field", "pipes", "navier-stokes"]
        .into_iter()
        .flat_map(|m| LAWS.map(|l| (m, l)))
    {
        // Still water 0.3 m deep for 20 minutes, under 20 mm/h of rain (the curve number counts
        // rain alone): the water never runs short, so each model's soil sees the same steps.
        let extra = format!("[rainfall]\nintensity = 20.0\n[infiltration]\n{law}");
        let sw = after(
            &basin_on("shallow-water", dir.path(), 0.3, &extra),
            Backend::Reference,
            1200,
        );
        let hf = after(
            &basin_on("height-field", dir.path(), 0.3, &extra),
            Backend::Reference,
            1200,
        );
        let rain = 20.0 / 3.6e6 * 1200.0 * 100.0;
        eprintln!(
            "{model}, {}: taken {:.6e} m³ (shallow water {:.6e}), volume + taken − start − rain {:.2e} m³",
            law.lines().next().unwrap(),
            hf.2,
            sw.2,
            hf.1 + hf.2 - 30.0 - rain
        );
        assert!(hf.2 > 0.0, "{model}, {law}: the ground took nothing");
        // Same f32 arithmetic on the same still cells: within 1e-6 relative (rounding order); the
        // pipes take whole units, the fraction owed to the next step, so they trail by under a
        // unit a column.
        let tolerance = if model == "pipes" { 1e-5 } else { 1e-6 };
        assert!(
            (hf.2 - sw.2).abs() < tolerance * sw.2,
            "{model}, {law}: took {} m³, the shallow-water model {}",
            hf.2,
            sw.2
        );
        // What left the water is what the ground took (the correction held the target, which
        // books the takes): 1e-6 of the 30 m³.
        assert!(
            (hf.1 + hf.2 - 30.0 - rain).abs() < 1e-6 * 30.0,
            "{model}, {law}: volume {} + taken {} against 30 + rain {rain}",
            hf.1,
            hf.2
        );
    }
}

#[test]
fn a_cell_drains_dry_and_the_ground_takes_exactly_what_it_held() {
    let dir = tempfile::tempdir().unwrap();
    for model in ["height-field", "pipes", "navier-stokes"] {
        // 3600 mm/h on 1 cm: dry in 10 s.
        let scene = basin_on(
            model,
            dir.path(),
            0.01,
            "[infiltration]\nmodel = \"constant\"\nrate = 3600.0\n",
        );
        let (depth, volume, taken) = after(&scene, Backend::Reference, 25);
        // No water left; the pipes' dry surface is their floor in whole units, which the
        // ground's f64 sits within a unit of (measured 9.5e-9 m).
        assert_eq!(volume, 0.0, "{model}");
        assert!(depth < 1e-7, "{model}: {depth} m left");
        assert!((taken - 1.0).abs() < 1e-6, "{model}: taken {taken} m³ of 1");
    }
}

/// A dam break over a basin under rain on `model`: wet and dry cells, moving water.
fn dam_break(model: &str, dir: &std::path::Path, law: &str) -> shoal::Scene {
    let extra = format!(
        "[rainfall]\nintensity = 500.0\n[[water.bump]]\nx = 2.0\ny = 5.0\nradius = 2.0\nheight = 0.2\n[infiltration]\n{law}"
    );
    let text = std::fs::read_to_string(basin_on(model, dir, 0.02, &extra).origin.clone())
        .unwrap()
        .replace("dt = 1.0", "dt = 0.1");
    std::fs::write(dir.join("scene.toml"), text).unwrap();
    shoal::Scene::from_file(&dir.join("scene.toml")).unwrap()
}

#[test]
fn every_law_on_the_fast_cpu_is_the_twins_bits_and_the_gpu_its_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for (model, law) in ["height-field", "pipes", "navier-stokes"]
        .into_iter()
        .flat_map(|m| LAWS.map(|l| (m, l)))
    {
        let scene = dam_break(model, dir.path(), law);
        let twin = after(&scene, Backend::Reference, 200);
        let twin_surface = run(&scene, Backend::Reference, 200);
        let fast = after(&scene, Backend::Cpu, 200);
        assert!(
            twin_surface == run(&scene, Backend::Cpu, 200) && twin == fast,
            "{model}, {law}: the fast CPU left the twin's bits"
        );
        // 2 cm over 100 m², the bump, 20 s of 500 mm/h: the volume and the ground's take add up
        // to what there was and what fell (1e-6 of it).
        let mut sim = simulation(&scene, Backend::Reference);
        let surface = sim.surface().unwrap();
        let start = sim.stats(&surface).volume;
        let rain = 500.0 / 3.6e6 * 20.0 * 100.0;
        assert!(
            (twin.1 + twin.2 - start - rain).abs() < 1e-6 * (start + rain),
            "{model}, {law}: volume {} + taken {} against {start} + {rain}",
            twin.1,
            twin.2
        );
        runs.push((model, scene, twin_surface, twin.2));
    }
    hold_gpu();
    for (model, scene, surface, taken) in &runs {
        let mut sim = simulation(scene, Backend::Gpu);
        sim.step(200).unwrap();
        let gpu = sim.surface().unwrap();
        let worst = gpu.iter().zip(surface).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        let gpu_taken = sim.infiltrated().unwrap();
        eprintln!("{model}: GPU vs twin {worst:.2e} m, taken {gpu_taken:.6e} against {taken:.6e}");
        // The models' GPU tolerance against their twins (1e-4 m); the laws' exp and sqrt differ
        // by an ulp or two.
        assert!(worst < 1e-4, "{model}: GPU vs twin {worst} m");
        assert!(
            (gpu_taken - taken).abs() < 1e-4 * taken.max(1e-3),
            "{model}: taken: GPU {gpu_taken} twin {taken}"
        );
    }
}

#[test]
fn a_resumed_run_keeps_the_soil_and_the_target_to_the_bit_on_both_models() {
    let dir = tempfile::tempdir().unwrap();
    for model in ["height-field", "pipes", "navier-stokes"] {
        let scene = dam_break(model, dir.path(), LAWS[1]);
        let (mut resumed, mut straight) = resumed_and_straight(&scene, Backend::Cpu, 50, dir.path());
        assert_eq!(resumed.surface().unwrap(), straight.surface().unwrap(), "{model}");
        assert_eq!(resumed.infiltrated(), straight.infiltrated(), "{model}");
        assert_eq!(resumed.target_volume(), straight.target_volume(), "{model}");
    }
}
