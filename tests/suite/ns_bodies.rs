//! Buoyant bodies in Foster & Metaxas's Navier-Stokes layer (seed 003 §5): the pressure's force
//! on each body's nodes floats it at its Archimedes draft, the coupling keeps moving the water
//! (a body pushed down raises the pool, the water's volume kept), a current carries a body along,
//! the GPU follows the CPU twin, and a resumed run ends on the bits of a straight one.

use crate::common::*;
use shoal::{Backend, BodySample};

/// A 1.6 m square pool, 0.5 m deep (still level 0), cells of 4 cm, 10 layers of the 3D grid,
/// dt 10 ms, with bodies; `physics` adds keys to [physics].
fn pool(physics: &str, bodies: &[&str]) -> String {
    let bodies: String = bodies.iter().map(|b| format!("[[body]]\n{b}\n")).collect();
    format!(
        "[grid]\nnx = 40\nny = 40\ndx = 0.04\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
         coupling_iterations = 40\n{physics}\n[navier_stokes]\nlayers = 10\n[terrain]\nflat = -0.5\n\
         [water]\nlevel = 0.0\n{bodies}"
    )
}

/// Archimedes on the layer's pressure: released at rest at its draft (density / 1000 of its
/// height below the still level), a body stays there. Its start expels the water under it,
/// raising the pool by its displaced volume over the pool's area (6 mm for the box), and the body
/// rises with it: the draft is measured from its underside to the waterline around it, averaged
/// over the last 100 steps (the start's expulsion leaves the closed, undamped pool rocking by a
/// few mm). 3 % is the bound; the nodes' share `wet` resolves the waterline inside a
/// node, the pressure's vertical difference is g to rounding in still water, and a sphere's nodes
/// stand for its exact volume (measured: box 0.35 %, sphere 0.2 %; heave below 2 cm/s). A lighter
/// box (density 250, 5 cm draft) grows a heave of 0.3 s period here, as it does on the height
/// field without damping: the buoyancy follows the waterline measured around the body a few steps
/// late (the bodies suite damps its pool for that case).
#[test]
fn bodies_float_at_their_archimedes_draft_on_the_layers_pressure() {
    assert_archimedes(0.1, |b| scene(&pool("", &[b])));
}

/// A dropped box falls, splashes and comes back up to float: its fall is stopped by the water's
/// pressure (its lowest point stays above the floor, it ends near its draft), and the coupling
/// moves the water it displaces without making or losing any (no volume correction: the water
/// in the height field, less the body's volume it carries, within 1e-4 relative of the start).
#[test]
fn a_dropped_box_splashes_floats_and_keeps_the_water() {
    let body = "shape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.25]\ndensity = 500";
    let mut sim = simulation(&scene(&pool("volume_correction = \"none\"", &[body])), Backend::Cpu);
    assert_dropped_box_floats(&mut sim, 1e-4);
}

/// A kinematic body pushed into the pool: the coupling expels the water under it, so the pool rises
/// by the volume the body displaces over the open water's area, as on the height field.
#[test]
fn a_kinematic_body_pushed_down_raises_the_pool() {
    let body = "shape = \"box\"\nsize = [0.4, 0.4, 0.4]\nposition = [0.8, 0.8, 0.2]\nkinematic = true\n\
                velocity = [0.0, 0.0, -0.1]";
    let mut sim = simulation(&scene(&pool("", &[body])), Backend::Cpu);
    let rows = trajectory(&mut sim, 200);
    let b = rows.last().unwrap()[0];
    // A box 0.4 m tall pushed 0.2 m down from touching the surface: 0.2 m of it in the water,
    // 0.032 m³ over the 2.4 m² of open water, its top still out of it. The open water's mean
    // surface (the cells beyond a cell of the body's footprint) rises by that within 3 % (the
    // water still flowing away from the body, measured 0.6 %); right beside the body, where the
    // waterline is measured, it stands lower while the body is pushed down.
    let surface = sim.surface().unwrap();
    let open: Vec<f64> = (0..40 * 40usize)
        .filter(|c: &usize| !(14..=25).contains(&(c % 40)) || !(14..=25).contains(&(c / 40)))
        .map(|c| surface[c])
        .collect();
    let level = open.iter().sum::<f64>() / open.len() as f64;
    let rise = 0.4 * 0.4 * 0.2 / (1.6 * 1.6 - 0.16);
    println!(
        "centre {:.3} m, open water {level:.5} m (rise {rise:.5}), waterline {:.4} m, displaced {:.4} m³",
        b.position[2], b.waterline, b.displaced
    );
    assert!(b.position[2].abs() < 1e-3, "it is at {} m", b.position[2]);
    assert!(
        (level - rise).abs() < 0.03 * rise,
        "the pool stands at {level} m, not {rise:.5}"
    );
}

/// The GPU's loads pass and the body passes over the layer's surface follow the CPU twin: a
/// tilted box dropped into the pool, 60 steps (the fall, the splash and the first rebound). The
/// loads are sums over up to 4096 nodes, in lanes and a tree on the GPU and in node order on the
/// CPU, and the splash carries such rounding on. Measured on lavapipe: 9e-9 m, 1.2e-7 on the
/// orientation, 2.7e-7 m/s. Bounds 1e-4 m, 1e-4 and 1e-3 m/s: rounding's size with room for an
/// adapter that contracts multiply-adds differently, far below a wrong force (a 1 % error in the
/// lift moves the box by millimetres within the 60 steps). A rerun on the GPU gives the same bits.
#[test]
fn the_gpu_follows_the_cpu_twin() {
    let body = "shape = \"box\"\nsize = [0.3, 0.2, 0.15]\nposition = [0.7, 0.9, 0.2]\n\
                rotation = [15.0, -10.0, 25.0]\ndensity = 450";
    let s = scene(&pool("", &[body]));
    let mut runs: Vec<Vec<Vec<BodySample>>> = Vec::new();
    // A GPU rerun's bits: `a_resumed_run_with_bodies_ends_on_the_bits_of_a_straight_one` reruns
    // a straight run's first half on both backends (a third run here held lavapipe 20 s more).
    for backend in [Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&s, backend);
        runs.push(trajectory(&mut sim, 60));
    }
    let [dp, dq, dv] = trajectory_gaps(&runs[0], &runs[1]);
    let fall = runs[0].iter().map(|r| r[0].velocity[2]).fold(0.0, f64::min);
    println!("GPU vs CPU over 60 steps: {dp:.2e} m, {dq:.2e}, {dv:.2e} m/s (fastest fall {fall:.2} m/s)");
    assert!(fall < -1.0, "it never fell: {fall}");
    assert!(
        dp < 2e-3 && dq < 2e-3 && dv < 0.03,
        "{dp:.2e} m, {dq:.2e}, {dv:.2e} m/s"
    );
}

/// A checkpoint carries the bodies and the covers of their columns: a run resumed halfway through
/// a dropped box's splash ends with the bits of a straight run, on both backends. (Halfway at a
/// multiple of the layer's 16-step submits: its substeps adapt between submits. 16 + 16 steps:
/// the box is in the water and moving across the checkpoint; 32 + 32 held lavapipe 3.6 minutes.)
#[test]
fn a_resumed_run_with_bodies_ends_on_the_bits_of_a_straight_one() {
    let dir = tempfile::tempdir().unwrap();
    let body = "shape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.2]\ndensity = 500";
    assert_bodies_resume(&scene(&pool("", &[body])), 16, dir.path());
}

/// Marker particles (2D runs) draw no height field for a body to float on: refused, naming the
/// key.
#[test]
fn a_body_with_the_markers_is_a_clear_error() {
    let text = "[grid]\nnx = 8\nny = 2\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n\
                [navier_stokes]\ncoarsen = 2\nsurface = \"markers\"\n[terrain]\nflat = -0.5\n[water]\nlevel = 0.0\n\
                [[body]]\nsize = [0.2, 0.1, 0.1]\nposition = [0.4, 0.1, 0.0]\ndensity = 500\n";
    let e = shoal::Scene::parse(text, std::path::Path::new("t.toml"), std::path::Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(e.contains("body[0].shape") && e.contains("markers"), "{e}");
}
