//! Velocities on the pipes (issue 53): `[water] u_npy`, `v_npy` start the pipes moving, and
//! `Simulation::velocity` (`--velocity`, sections) reads each column's depth-averaged velocity.

use crate::common::{scene_in, simulation, write_npy};
use shoal::Backend;

/// A periodic sheet 0.2 m deep on a flat floor, 2 × 0.8 m, started at 0.1 m/s east, with a
/// discharge line across it; the seed's friction off, so the uniform flow keeps its speed.
fn sheet(dir: &std::path::Path) -> shoal::Scene {
    write_npy(dir, "u.npy", 8, 20, |_, _| 0.1);
    scene_in(
        dir,
        "[grid]\nnx = 20\nny = 8\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\nmodel = \"pipes\"\n\
         [pipes]\nfriction = 1.0\n[spray]\nenabled = false\n\
         [boundary]\nwest = \"periodic\"\neast = \"periodic\"\nsouth = \"periodic\"\nnorth = \"periodic\"\n\
         [terrain]\nflat = -0.2\n[water]\nlevel = 0.0\nu_npy = \"u.npy\"\n\
         [[output.section]]\nname = \"across\"\nx0 = 1.0\ny0 = 0.0\nx1 = 1.0\ny1 = 0.8\n",
    )
}

#[test]
fn a_sheet_started_moving_keeps_its_speed_and_carries_its_discharge() {
    let dir = tempfile::tempdir().unwrap();
    let scene = sheet(dir.path());
    let mut after = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu] {
        let mut sim = simulation(&scene, backend);
        // Every pipe carries 0.1 m/s along its direction: each column's mean is 0.1 east (f32
        // rounding of the diagonals' 1/√2²: 1e-7 relative).
        let start = sim.velocity().unwrap().expect("the pipes have a velocity");
        for uv in &start {
            assert!((uv[0] - 0.1).abs() < 1e-7 && uv[1].abs() < 1e-8, "{backend:?}: {uv:?}");
        }
        sim.step(100).unwrap();
        // A uniform flow over a flat floor meets no pressure gradient: after 1 s it runs at the
        // speed it started with (1e-4: f32 heads), over a surface still flat to the unit.
        let uv = sim.velocity().unwrap().unwrap();
        for v in &uv {
            assert!((v[0] - 0.1).abs() < 1e-4 && v[1].abs() < 1e-4, "{backend:?}: {v:?}");
        }
        let surface = sim.surface().unwrap();
        assert!(surface.iter().all(|h| h.abs() < 1e-6), "{backend:?}: the surface moved");
        // Through the line across it, walked north (positive towards its left, the west):
        // −u·d·width = −0.1 · 0.2 · 0.8 m³/s.
        let q = sim.section_discharges(&surface).unwrap()[0];
        assert!(
            (q / -0.016 - 1.0).abs() < 1e-3,
            "{backend:?}: {q} m³/s through the line"
        );
        after.push(uv);
    }
    assert_eq!(after[0], after[1], "the fast CPU left the twin's bits");
    for (a, b) in after[0].iter().zip(&after[2]) {
        assert!(
            (a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6,
            "GPU {b:?} vs {a:?}"
        );
    }
}
