//! What a scene feeds the Navier-Stokes layer (issue 53): steady sources and drains, held
//! heights, hydrographs, drops and rainfall on its height field, by the shallow-water model's
//! feed, after the layer's substeps.

use crate::common::{assert_backends_agree, resumed_and_straight, scene_in, simulation, water_volume};
use shoal::Backend;
use std::path::Path;

/// A 3.2 × 1.6 m basin 0.3 m deep, 8 layers, with `extra` tables.
fn basin(extra: &str) -> String {
    format!(
        "[grid]\nnx = 32\nny = 16\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
         [navier_stokes]\nlayers = 8\n[terrain]\nflat = -0.3\n[water]\nlevel = 0.0\n{extra}"
    )
}

/// Issue 53's test: rain on the layer adds ∫ intensity · area, to 1e-5. Rainfall of 3600 mm/h
/// (1 mm/s) over the 5.12 m² basin for 2 s, a 2 l/s source and a 1 l/s drain: the water holds
/// the start's 1.536 m³ + 0.01024 + 0.004 − 0.002 (the target, which follows the feed: no
/// correction runs on a fed layer), within 1e-6 of it (measured 4e-8, the target's f32 sum;
/// the water within 2.3e-10 of what was asked). The fast path is the twin's bits; the GPU within 1e-6 m of it.
#[test]
fn rainfall_sources_and_drains_on_the_layer_add_what_they_give() {
    let extra = "[rainfall]\nintensity = 3600.0\n\
                 [[source]]\nx = 1.0\ny = 0.8\nradius = 0.15\nrate = 0.002\n\
                 [[source]]\nx = 2.5\ny = 0.8\nradius = 0.15\nrate = -0.001\n";
    let scene = scene_in(Path::new("."), &basin(extra));
    let want = 3.2 * 1.6 * 0.3 + 1e-3 * 5.12 * 2.0 + 0.002 * 2.0 - 0.001 * 2.0;
    let mut surfaces = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&scene, backend);
        sim.step(200).unwrap();
        let (volume, target) = (water_volume(&mut sim), sim.target_volume());
        eprintln!(
            "{backend:?}: volume {volume:.8} m³, target {target:.8} m³, asked {want:.8} m³ ({:.1e})",
            volume / want - 1.0
        );
        assert!(
            (target / want - 1.0).abs() < 1e-5,
            "{backend:?}: the target {target} m³, asked {want}"
        );
        assert!(
            (volume / target - 1.0).abs() < 1e-6,
            "{backend:?}: {volume} m³ against {target}"
        );
        surfaces.push(sim.surface().unwrap());
    }
    assert_backends_agree(&surfaces, 1e-6, "rainfall, a source and a drain");
}

/// A held height and drops: a `[[source]]` holding 0.05 m above the still water keeps its cells
/// at that level while the layer carries the water away (every held cell within 1e-6 m of it at
/// the end: measured 7.5e-10), and `[rain]`'s drops fall; the books follow what the held cells
/// gained and the drops gave (within 1e-6 of the water: measured 3.3e-8), and a drain on a dry
/// bank takes nothing it has not got. Twin, fast path and GPU.
#[test]
fn held_heights_and_drops_on_the_layer_keep_their_books() {
    let extra = "[[terrain.box]]\nx0 = 2.8\ny0 = 0.0\nx1 = 3.2\ny1 = 1.6\ntop = 0.1\n\
                 [[source]]\nx = 0.6\ny = 0.8\nradius = 0.2\nheight = 0.05\n\
                 [[source]]\nx = 3.0\ny = 0.8\nradius = 0.1\nrate = -0.01\n\
                 [rain]\nrate = 20.0\nradius = 0.1\nheight = 0.01\nseed = 3\n";
    let scene = scene_in(Path::new("."), &basin(extra));
    let mut surfaces = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&scene, backend);
        let start = water_volume(&mut sim);
        sim.step(150).unwrap();
        let (volume, target) = (water_volume(&mut sim), sim.target_volume());
        let h = sim.surface().unwrap();
        let held = |i: usize, j: usize| ((i as f64 + 0.5) * 0.1 - 0.6).hypot((j as f64 + 0.5) * 0.1 - 0.8) <= 0.2;
        let off = (0..16 * 32)
            .filter(|c| held(c % 32, c / 32))
            .fold(0.0f64, |m, c| m.max((h[c] - 0.05).abs()));
        eprintln!(
            "{backend:?}: held cells within {off:.1e} m of 0.05, gained {:.6} m³, volume {:.1e} off its target",
            volume - start,
            volume / target - 1.0
        );
        assert!(off < 1e-6, "{backend:?}: a held cell is {off} m off its level");
        assert!(volume > start + 1e-3, "{backend:?}: the held height gave nothing");
        assert!(
            (volume / target - 1.0).abs() < 1e-6,
            "{backend:?}: {volume} m³ against {target}"
        );
        surfaces.push(sim.surface().unwrap());
    }
    assert_backends_agree(&surfaces, 1e-5, "a held height and drops");
}

/// Rain of 1e-8 m a step (3.6 mm/h at dt = 0.01 s) on water 7 m above the reference level,
/// where an f32 surface's step is 4.8e-7 m: the feed's carry keeps it (as the shallow-water
/// model's), so 1000 steps raise the water 1e-5 m within 2 % rather than not at all; a checkpoint
/// carries the carry, so a resumed run ends on a straight run's bits (CPU and GPU).
#[test]
fn light_rain_on_a_high_layer_is_kept_and_a_resume_keeps_its_carry() {
    let text = basin("[rainfall]\nintensity = 3.6\n")
        .replace("flat = -0.3", "flat = 6.7")
        .replace("level = 0.0", "level = 7.0");
    let dir = tempfile::tempdir().unwrap();
    let scene = scene_in(dir.path(), &text);
    let mut sim = simulation(&scene, Backend::Cpu);
    let start = water_volume(&mut sim);
    sim.step(1000).unwrap();
    let rise = (water_volume(&mut sim) - start) / 5.12;
    eprintln!("1000 steps of 1e-8 m raised the water {rise:.3e} m");
    assert!(
        (rise / 1e-5 - 1.0).abs() < 0.02,
        "the rain raised the water {rise} m, not 1e-5"
    );
    for backend in [Backend::Cpu, Backend::Gpu] {
        let (mut resumed, mut straight) = resumed_and_straight(&scene, backend, 60, dir.path());
        assert_eq!(
            resumed.surface().unwrap(),
            straight.surface().unwrap(),
            "{backend:?}: the resumed run left the straight one's bits"
        );
    }
}

/// With markers the layer's surface is drawn from them: a feed has no height field to fall on,
/// nor `[infiltration]` one to soak, and validation says so, naming the key.
#[test]
fn a_fed_layer_with_markers_is_refused_naming_the_key() {
    for feed in [
        "[rainfall]\nintensity = 10.0\n",
        "[infiltration]\nmodel = \"constant\"\nrate = 10.0\n",
    ] {
        let text = format!(
            "[grid]\nnx = 32\nny = 2\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
             [navier_stokes]\nlayers = 8\ncoarsen = 2\nsurface = \"markers\"\n[terrain]\nflat = -0.3\n[water]\nlevel = 0.0\n{feed}"
        );
        let err = shoal::Scene::parse(&text, Path::new("s.toml"), Path::new("."))
            .expect_err("a fed layer with markers")
            .to_string();
        assert!(err.contains("navier_stokes.surface"), "the error names no key: {err}");
    }
}
