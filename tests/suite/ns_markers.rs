//! The Navier-Stokes layer's marker particles (seed 003 §4.1) through scenes: a 2D run whose
//! flags come from massless markers convected by the flow. A still pool stays still; a jet through
//! an opening in the wall brings markers at its rate, falls into the pool and stays in the tank;
//! the GPU follows the CPU twin, reruns and resumes give the same bits; the keys are checked.

use crate::common::*;
use shoal::{Backend, Simulation};

/// A 2D tank 0.48 m wide (12 × 1 × 16 cells of 4 cm × 2.5 cm), a 10 cm pool, and `extra`.
fn tank(extra: &str) -> String {
    format!(
        "[grid]\nnx = 24\nny = 2\ndx = 0.02\n[time]\ndt = 0.01\nsubsteps = 4\n[physics]\n\
         model = \"navier-stokes\"\n[navier_stokes]\nlayers = 16\ncoarsen = 2\nsurface = \"markers\"\n\
         headroom = 0.1\n{extra}[terrain]\nflat = 0.0\n[water]\nlevel = 0.1\n"
    )
}

/// `tank` with a jet at 0.6 m/s through the west wall between 0.25 and 0.3 m for 0.2 s.
fn jet(dir: &std::path::Path) -> String {
    std::fs::write(dir.join("jet.csv"), "time,velocity\n0,0.6\n0.2,0.6\n0.21,0\n").unwrap();
    tank(
        "[navier_stokes.inflow]\nside = \"west\"\nkind = \"table\"\nfile = \"jet.csv\"\n\
         window = [0.25, 0.3]\n",
    )
}

#[test]
fn a_still_pool_of_markers_stays_at_rest() {
    // Markers on a 4 × 4 lattice in every cell under the surface; the flags they give hold the
    // pool's pressure hydrostatic, so nothing moves: every marker within 1e-6 m of where it
    // started after 100 steps (float32 rounding in w, ~1e-8 m/s).
    let dir = tempfile::tempdir().unwrap();
    let mut sim = simulation(&scene_in(dir.path(), &tank("")), Backend::Cpu);
    let start = sim.markers().unwrap();
    assert!(!start.is_empty() && start.iter().all(|m| m[2] < 0.1 && m[2] > 0.0));
    sim.step(100).unwrap();
    let now = sim.markers().unwrap();
    assert_eq!(now.len(), start.len());
    let moved = now
        .iter()
        .zip(&start)
        .map(|(a, b)| (a[0] - b[0]).abs().max((a[2] - b[2]).abs()))
        .fold(0.0f32, f32::max);
    assert!(moved < 1e-6, "a marker moved {moved} m");
}

#[test]
fn a_jet_brings_markers_at_its_rate_and_they_fall_into_the_pool() {
    // 16 markers per cell the jet's water fills: each of the window's faces (2 layers of 2.5 cm
    // between 0.25 and 0.3 m) brings 16·u·δt/δx a substep, the fractions carried over, so the
    // jet (0.6 m/s for 0.2 s, then down to 0 over 0.01 s) brings 16·(0.6·0.2 + 0.3·0.01)/0.04
    // = 49.2 per face: 98 (±1 for the fraction's rounding over 120 substeps in float32). The
    // jet falls, strikes the pool and the water stays in the tank: every marker inside it,
    // above the floor, and 1.2 s after the jet stops under 5 % of them are more than 4 cells
    // over the 11 cm pool (the slosh lasts: ν is water's).
    let dir = tempfile::tempdir().unwrap();
    let mut sim = simulation(&scene_in(dir.path(), &jet(dir.path())), Backend::Cpu);
    let start = sim.markers().unwrap().len();
    // In flight it is a projectile: after 0.1 s its head is 0.6·0.1 = 6 cm out and its lowest
    // marker ½·g·t² = 4.9 cm under the opening's bottom (0.25 m), within 1.5 cm (the jet's
    // head rounds off on a 4 cm grid).
    sim.step(10).unwrap();
    let flying: Vec<[f32; 3]> = sim.markers().unwrap().into_iter().filter(|m| m[2] > 0.12).collect();
    let head = flying.iter().map(|m| m[0]).fold(0.0f32, f32::max);
    let lowest = flying.iter().map(|m| m[2]).fold(1.0f32, f32::min);
    let fall = 0.25 - 0.5 * 9.81 * 0.1f32.powi(2);
    eprintln!("after 0.1 s: head {head:.4} m out (0.06), lowest {lowest:.4} m ({fall:.4})");
    assert!(
        (head - 0.06).abs() < 0.015 && (lowest - fall).abs() < 0.015,
        "{head}, {lowest}"
    );
    sim.step(20).unwrap();
    let brought = sim.markers().unwrap().len() - start;
    eprintln!("markers brought by the jet: {brought} (98 asked)");
    assert!((97..=99).contains(&brought), "{brought}");
    let mut above = Vec::new();
    for _ in 0..6 {
        sim.step(20).unwrap();
        let m = sim.markers().unwrap();
        assert_eq!(m.len(), start + brought, "markers came or went");
        for p in &m {
            assert!(
                p.iter().all(|v| v.is_finite()) && (0.0..=0.48).contains(&p[0]) && p[2] >= 0.0,
                "{p:?}"
            );
        }
        above.push(m.iter().filter(|p| p[2] > 0.2).count() as f64 / m.len() as f64);
    }
    eprintln!("share of the markers over 0.2 m every 0.2 s: {above:.3?}");
    assert!(*above.last().unwrap() < 0.05, "{above:?}");
}

#[test]
fn the_gpu_markers_follow_the_twin_and_reruns_and_resumes_give_the_same_bits() {
    // The same passes in the same order; the GPU may fuse a multiply-add in the area weighting,
    // so positions are compared within 1e-5 m after 32 steps of the jet (measured on lavapipe:
    // 1.9e-7 m; a 2500th of a cell, and the
    // flags they give agree, or the flows would part by far more). A GPU rerun gives the same
    // bits, and a resume from a checkpoint split on a submit's boundary too, on both backends.
    let dir = tempfile::tempdir().unwrap();
    let scene = scene_in(dir.path(), &jet(dir.path()));
    let mut cpu = simulation(&scene, Backend::Cpu);
    let mut gpu = simulation(&scene, Backend::Gpu);
    cpu.step(32).unwrap();
    gpu.step(32).unwrap();
    let (a, b) = (cpu.markers().unwrap(), gpu.markers().unwrap());
    assert_eq!(a.len(), b.len());
    let worst = a
        .iter()
        .zip(&b)
        .map(|(p, q)| (p[0] - q[0]).abs().max((p[2] - q[2]).abs()))
        .fold(0.0f32, f32::max);
    eprintln!("{} markers, GPU − CPU ≤ {worst:.2e} m", a.len());
    assert!(worst < 1e-5, "{worst}");
    let bits = |sim: &mut Simulation| {
        let m: Vec<u32> = sim.markers().unwrap().iter().flatten().map(|v| v.to_bits()).collect();
        let h: Vec<u32> = sim.eta().unwrap().iter().map(|v| v.to_bits()).collect();
        (m, h)
    };
    let mut again = simulation(&scene, Backend::Gpu);
    again.step(32).unwrap();
    assert!(bits(&mut again) == bits(&mut gpu), "a GPU rerun differs");
    let file = dir.path().join("checkpoint.bin");
    for backend in BOTH {
        let mut straight = simulation(&scene, backend);
        straight.step(48).unwrap();
        let mut first = simulation(&scene, backend);
        first.step(16).unwrap();
        first.checkpoint().unwrap().write(&file).unwrap();
        let mut resumed = simulation(&scene, backend);
        resumed
            .restore(&shoal::Checkpoint::read(&file).unwrap(), &file)
            .unwrap();
        resumed.step(32).unwrap();
        assert!(
            bits(&mut resumed) == bits(&mut straight),
            "{backend:?}: a resume differs"
        );
    }
}

#[test]
fn a_full_marker_buffer_is_noted_never_overrun() {
    // Room for the pool's markers and 20 more: the jet's 98 find 20 slots, the rest are refused
    // and the run says so once, on both backends (at the first submit that found it full).
    let dir = tempfile::tempdir().unwrap();
    let text = jet(dir.path());
    let mut probe = simulation(&scene_in(dir.path(), &text), Backend::Cpu);
    let room = probe.markers().unwrap().len() + 20;
    let text = text.replace(
        "[navier_stokes.inflow]",
        &format!("[navier_stokes.markers]\ncapacity = {room}\n[navier_stokes.inflow]"),
    );
    let scene = scene_in(dir.path(), &text);
    for backend in BOTH {
        let mut sim = simulation(&scene, backend);
        sim.step(32).unwrap();
        assert_eq!(sim.markers().unwrap().len(), room, "{backend:?}");
        let notes = sim.take_notes();
        let noted: Vec<&String> = notes.iter().filter(|n| n.contains("markers' buffer")).collect();
        assert_eq!(noted.len(), 1, "{backend:?}: {notes:?}");
        assert!(
            noted[0].contains("by step 16") && noted[0].contains("56 markers"),
            "{}",
            noted[0]
        );
    }
}

#[test]
fn the_marker_keys_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    for (text, key) in [
        (tank("").replace("ny = 2", "ny = 4"), "navier_stokes.surface"),
        (
            tank("[navier_stokes.markers]\nper_cell = 10\n"),
            "navier_stokes.markers.per_cell",
        ),
        (
            tank("[navier_stokes.markers]\ncapacity = 0\n"),
            "navier_stokes.markers.capacity",
        ),
        (
            tank("").replace("surface = \"markers\"\n", "") + "[navier_stokes.markers]\nper_cell = 4\n",
            "navier_stokes.markers.per_cell",
        ),
        (tank("") + "[spray]\n", "spray.enabled"),
        (
            tank("[navier_stokes.inflow]\nside = \"west\"\nvelocity = 0.5\nwindow = [0.3, 0.2]\n"),
            "navier_stokes.inflow.window",
        ),
        (
            tank("[navier_stokes.inflow]\nside = \"south\"\nvelocity = 0.5\n"),
            "navier_stokes.inflow.side",
        ),
    ] {
        let e = shoal::Scene::parse(&text, std::path::Path::new("s.toml"), dir.path())
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"))
            .to_string();
        assert!(e.contains(key), "{e} does not name {key}");
    }
}
