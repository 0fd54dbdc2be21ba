//! Bodies on the shallow-water model (`sw_bodies.wgsl`): a free body presses on the water with its
//! weight, spread as its draft, and the columns' buoyancy floats it at its Archimedes draft; the
//! water's volume is untouched (the head moves water, it never makes or takes any); a log drifts
//! with the river's current; the GPU follows the CPU twin, the fast path is the twin's bits, and a
//! resumed run ends on the bits of a straight one.

use crate::common::*;
use shoal::Backend;

/// The body suites' pool on this model (common.rs `body_pool`).
fn pool(bodies: &[&str]) -> String {
    body_pool("shallow-water", bodies)
}

/// Archimedes: released at rest at its draft (density / 1000 of its height below the still
/// level), a body stays there. The start settles the water it displaces into the pool (6 mm for
/// the box) and the body rises with it: the draft is measured from its underside to the waterline
/// around it, averaged over the last 100 of 300 steps, the closed, undamped pool rocking the
/// body by a few mm all along. 3 % is the bound; the columns' draft resolves the
/// waterline in every column, and the sphere's columns stand for its volume to about 1 % at 10
/// cells across (measured: box 1.3 %, sphere 0.3 %; heave below 13 cm/s: the waterline the
/// buoyancy follows answers a step late, which the pool, undamped, never stops rocking).
#[test]
fn bodies_float_at_their_archimedes_draft_on_the_shallow_water_model() {
    assert_archimedes(0.15, |b| scene(&pool(&[b])));
}

/// A box dropped from above the water falls, splashes and comes back up to float near its
/// draft, its lowest point above the floor. The heads it presses with move water and make none:
/// the water's volume is the start's to float32 rounding (1e-6 relative; measured ~1e-10).
#[test]
fn a_dropped_box_splashes_floats_and_keeps_the_water() {
    let body = "shape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.25]\ndensity = 500";
    let mut sim = simulation(&scene(&pool(&[body])), Backend::Cpu);
    assert_dropped_box_floats(&mut sim, 1e-6);
}

/// A channel 8 m long and 1 m wide, 0.5 m deep, periodic along x, its water moving at 0.5 m/s with
/// no friction to slow it: a log (0.8 × 0.2 × 0.1 m, density 600) set down at rest drifts with
/// the current, straight down the channel. Its quadratic drag (C_d 1 on its wetted footprint A,
/// k = ρ·C_d·A / 2m ≈ 8–10 /m) closes the slip s as s₀ / (1 + k·s₀·t): 3–4 % of the current
/// left after 6 s, so it moves at 0.5 m/s within 5 % then (measured 0.4841 m/s: 3.2 %).
#[test]
fn a_log_drifts_with_the_river() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "u.npy", 25, 200, |_, _| 0.5);
    let text = "[grid]\nnx = 200\nny = 25\ndx = 0.04\n[time]\ndt = 0.01\n[physics]\nmodel = \"shallow-water\"\n\
                [boundary]\nwest = \"periodic\"\neast = \"periodic\"\n[terrain]\nflat = -0.5\n\
                [water]\nlevel = 0.0\nu_npy = \"u.npy\"\n[[body]]\nshape = \"box\"\nsize = [0.8, 0.2, 0.1]\n\
                position = [1.0, 0.5, 0.0]\ndensity = 600\n";
    let mut sim = simulation(&scene_in(dir.path(), text), Backend::Cpu);
    assert_drifts(&mut sim, 600, (0.5, 0.5, 0.05, 3.0));
}

/// The GPU's `press` and `loads` and the body passes over the model's surface follow the CPU
/// twin: a tilted box dropped into the pool, 60 steps. The loads and `integrate` sum in a
/// workgroup's tree on the GPU and in cell order on the CPU, and the splash carries such rounding
/// on (measured on lavapipe: 1e-7 m). Bounds as the layer's (ns_bodies.rs). The fast CPU path runs
/// the twin's body passes: its bodies and surface are the twin's bits; a GPU rerun gives the same
/// bits.
#[test]
fn the_gpu_follows_the_cpu_twin_and_the_fast_path_is_the_twin() {
    let body = "shape = \"box\"\nsize = [0.3, 0.2, 0.15]\nposition = [0.7, 0.9, 0.2]\n\
                rotation = [15.0, -10.0, 25.0]\ndensity = 450";
    let ([dp, dq, dv], fall) = bodies_on_every_backend(&scene(&pool(&[body])), 60);
    assert!(fall < -1.0, "it never fell: {fall}");
    assert!(
        dp < 2e-3 && dq < 2e-3 && dv < 0.03,
        "{dp:.2e} m, {dq:.2e}, {dv:.2e} m/s"
    );
}

/// A checkpoint carries the bodies and their columns' covers (whose heads the next step presses
/// with): a run resumed in the middle of a dropped box's splash ends on the bits of a straight run,
/// on both backends.
#[test]
fn a_resumed_run_with_bodies_ends_on_the_bits_of_a_straight_one() {
    let dir = tempfile::tempdir().unwrap();
    let body = "shape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.2]\ndensity = 500";
    assert_bodies_resume(&scene(&pool(&[body])), 20, dir.path());
}

/// A fixed or kinematic body would press on the water with its draft, which the water beside it
/// feeds back on: refused, naming the key.
#[test]
fn a_fixed_body_on_the_shallow_water_model_is_a_clear_error() {
    for (key, line) in [("fixed", "fixed = true"), ("kinematic", "kinematic = true")] {
        let body = format!("shape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.0]\n{line}");
        let e = shoal::Scene::parse(
            &pool(&[&body]),
            std::path::Path::new("t.toml"),
            std::path::Path::new("."),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(&format!("body[0].{key}")) && e.contains("free bodies"),
            "{e}"
        );
    }
}
