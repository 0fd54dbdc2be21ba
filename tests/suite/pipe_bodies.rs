//! Bodies on the pipes (`pipe_bodies.wgsl`): a free body presses its columns' top cells with its
//! weight through the air's head, spread as its draft, and the columns' buoyancy floats it at its
//! Archimedes draft; the water keeps every unit (the head moves water, it never makes or takes
//! any); a log drifts with the river's current; the GPU follows the CPU twin, the fast path is the
//! twin's bits, and a resumed run ends on the bits of a straight one.

use crate::common::*;
use shoal::Backend;

/// The body suites' pool on this model (common.rs `body_pool`).
fn pool(bodies: &[&str]) -> String {
    body_pool("pipes", bodies)
}

/// Archimedes: released at rest at its draft (density / 1000 of its height below the still
/// level), a body stays there, as on the shallow-water model (sw_bodies.rs says how the draft is
/// measured). 3 % is the bound (measured: box 0.5 %, sphere 0.04 %; heave below 9 cm/s,
/// the pipes' friction calming the pool).
#[test]
fn bodies_float_at_their_archimedes_draft_on_the_pipes() {
    assert_archimedes(0.15, |b| scene(&pool(&[b])));
}

/// A box dropped from above the water falls, splashes and comes back up to float near its
/// draft. The heads it presses with move water and make none: the columns keep every unit (the
/// surface's volume to 1e-9, its f32 rounding; measured 0).
#[test]
fn a_dropped_box_splashes_floats_and_keeps_every_unit() {
    let body = "shape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.25]\ndensity = 500";
    let mut sim = simulation(&scene(&pool(&[body])), Backend::Cpu);
    assert_dropped_box_floats(&mut sim, 1e-9);
}

/// A channel 8 m long and 1 m wide, 0.5 m deep, periodic along x, its water moving at 0.5 m/s with
/// no friction to slow it: a log set down at rest drifts with the current, straight down the
/// channel (sw_bodies.rs gives the drag's law: within 5 % of the current after 6 s).
#[test]
fn a_log_drifts_with_the_river_on_the_pipes() {
    let dir = tempfile::tempdir().unwrap();
    write_npy(dir.path(), "u.npy", 25, 200, |_, _| 0.5);
    let text = "[grid]\nnx = 200\nny = 25\ndx = 0.04\n[time]\ndt = 0.01\n[physics]\nmodel = \"pipes\"\n\
                [pipes]\nfriction = 1.0\n[boundary]\nwest = \"periodic\"\neast = \"periodic\"\n\
                [terrain]\nflat = -0.5\n[water]\nlevel = 0.0\nu_npy = \"u.npy\"\n[[body]]\nshape = \"box\"\n\
                size = [0.8, 0.2, 0.1]\nposition = [1.0, 0.5, 0.0]\ndensity = 600\n";
    let mut sim = simulation(&scene_in(dir.path(), text), Backend::Cpu);
    assert_drifts(&mut sim, 600, (0.5, 0.5, 0.05, 3.0));
}

/// The GPU's `press` and `loads` and the body passes over the columns' surface follow the CPU
/// twin: a tilted box dropped into the pool, 60 steps. The water moves in whole units on both,
/// but the loads and `integrate` sum in a workgroup's tree on the GPU and in cell order on the
/// CPU, and the splash carries such rounding on (measured on lavapipe and llvmpipe: 3.7e-9 m,
/// 1.2e-7, 4.8e-8 m/s); the bounds leave two orders for another adapter's fused products. The
/// fast CPU path runs the twin's body passes: its bodies and surface are the twin's bits; a GPU
/// rerun gives the same bits.
#[test]
fn the_gpu_follows_the_cpu_twin_on_the_pipes_and_the_fast_path_is_the_twin() {
    let body = "shape = \"box\"\nsize = [0.3, 0.2, 0.15]\nposition = [0.7, 0.9, 0.2]\n\
                rotation = [15.0, -10.0, 25.0]\ndensity = 450";
    let ([dp, dq, dv], fall) = bodies_on_every_backend(&scene(&pool(&[body])), 60);
    assert!(fall < -1.0, "it never fell: {fall}");
    assert!(
        dp < 1e-6 && dq < 1e-5 && dv < 1e-5,
        "{dp:.2e} m, {dq:.2e}, {dv:.2e} m/s"
    );
}

/// A checkpoint carries the bodies and their columns' covers: a run resumed in the middle of a
/// dropped box's splash ends on the bits of a straight run, on both backends.
#[test]
fn a_resumed_run_with_bodies_on_the_pipes_ends_on_the_bits_of_a_straight_one() {
    let dir = tempfile::tempdir().unwrap();
    let body = "shape = \"box\"\nsize = [0.4, 0.4, 0.2]\nposition = [0.8, 0.8, 0.2]\ndensity = 500";
    assert_bodies_resume(&scene(&pool(&[body])), 20, dir.path());
}

/// Over a waterfall's lip: a shelf 0.7 m above the channel's floor downstream, 0.2 m of water on
/// each, the upper water running at 0.5 m/s toward the lip, fed as fast from the west (0.1 m²/s,
/// no friction), the east side open. A log set down
/// 1 m above the lip drifts to it, goes over with the water and comes down to float on the lower
/// water: after 6 s it is past the lip, its centre within its height of the lower surface, and
/// its underside never went below the floor (measured: over the lip after 1.32 s, its centre no
/// lower than −0.820 m, then floating at −0.813 m, waterline −0.804).
#[test]
fn a_log_goes_over_a_waterfall_and_floats_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let (nx, ny, dx) = (120, 12, 0.05);
    let upper = |i: usize| (i as f64 + 0.5) * dx < 3.0;
    write_npy(dir.path(), "h.npy", ny, nx, |i, _| if upper(i) { -0.1 } else { -0.8 });
    write_npy(dir.path(), "u.npy", ny, nx, |i, _| if upper(i) { 0.5 } else { 0.0 });
    let text = format!(
        "[grid]\nnx = {nx}\nny = {ny}\ndx = {dx}\n[time]\ndt = 0.01\n[physics]\nmodel = \"pipes\"\n\
         [pipes]\nfriction = 1.0\n[boundary]\nwest = \"discharge\"\neast = \"open\"\n\
         [boundary.discharge]\nq = 0.1\n[terrain]\nflat = -1.0\n[[terrain.box]]\nx0 = 0.0\ny0 = 0.0\n\
         x1 = 3.0\ny1 = 0.6\ntop = -0.3\n[water]\nlevel = -0.8\nnpy = \"h.npy\"\nu_npy = \"u.npy\"\n[[body]]\n\
         shape = \"box\"\nsize = [0.3, 0.2, 0.08]\nposition = [2.0, 0.3, -0.108]\ndensity = 600\n"
    );
    let mut sim = simulation(&scene_in(dir.path(), &text), Backend::Cpu);
    let rows = trajectory(&mut sim, 600);
    let lowest = rows.iter().map(|r| r[0].position[2]).fold(f64::MAX, f64::min);
    let b = rows.last().unwrap()[0];
    let over = rows.iter().position(|r| r[0].position[0] > 3.0);
    println!(
        "over the lip after {over:?} steps; after 6 s at x {:.3} m, z {:.3} m (waterline {:.3}), lowest z {lowest:.3} m",
        b.position[0], b.position[2], b.waterline
    );
    assert!(b.position[0] > 3.2, "it stayed above the lip: x {}", b.position[0]);
    assert!(
        (b.position[2] - b.waterline).abs() < 0.08 && b.waterline < -0.6,
        "it does not float on the lower water: {b:?}"
    );
    assert!(lowest > -0.96, "it went down to {lowest} m, through the floor");
}

/// A fixed or kinematic body would press on the water with its draft, which the water beside it
/// feeds back on: refused on the pipes as on the shallow-water model, naming the key.
#[test]
fn a_fixed_body_on_the_pipes_is_a_clear_error() {
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
            e.contains(&format!("body[0].{key}")) && e.contains("pipes model floats free bodies"),
            "{e}"
        );
    }
}

/// Bodies on the embedded pipes step as in the batch run: a box dropped into the pool over frames
/// of any length gives the batch run's surface bit for bit and, in the states buffer a renderer
/// binds per instance, its bodies; the covers buffer is the bodies'; a host's `move_body` lands
/// in the states before the next steps.
#[test]
fn embedded_bodies_on_the_pipes_float_as_in_the_batch_run() {
    let (device, queue) = crate::embed::own_device();
    let body = "shape = \"box\"\nsize = [0.3, 0.2, 0.1]\nposition = [0.5, 0.6, 0.1]\ndensity = 400";
    let s = scene(&pool(&[body]));
    let mut water = shoal::Water::new(&device, &queue, &s, shoal::WaterOptions::default()).unwrap();
    for steps in [7, 0, 23, 30] {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, steps);
        queue.submit([encoder.finish()]);
    }
    let mut batch = simulation(&s, Backend::Gpu);
    batch.step(60).unwrap();
    let (eta, _) = water.read_level().unwrap();
    assert_eq!(eta, batch.eta().unwrap(), "the surface");
    let read = |b: &wgpu::Buffer| shoal::readback::read(&device, &queue, b).unwrap();
    let states = water.bodies_buffer().expect("the scene has a body").clone();
    let got: Vec<shoal::low_level::BodyState> = bytemuck::pod_collect_to_vec(&read(&states));
    let (want, b) = (batch.bodies()[0], got[0]);
    assert_eq!(
        b.position[..3].iter().map(|&v| v as f64).collect::<Vec<_>>(),
        [
            want.position[0],
            want.position[1],
            want.position[2] - batch.reference_level()
        ],
        "the body's place"
    );
    assert!(want.velocity[2].abs() > 1e-3, "the fall moves it: {want:?}");
    let covers: Vec<shoal::low_level::Cover> = bytemuck::pod_collect_to_vec(&read(water.covers_buffer()));
    assert_eq!(covers.len(), 40 * 40, "the bodies' covers, one a column");
    assert!(covers.iter().any(|c| c.owner != 0), "no column covered");
    water.move_body(0, [0.9, 0.7, 0.0], [0.0; 3]).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 0);
    queue.submit([encoder.finish()]);
    let moved: Vec<shoal::low_level::BodyState> = bytemuck::pod_collect_to_vec(&read(&states));
    assert_eq!(
        [moved[0].position[0], moved[0].position[1]],
        [0.9, 0.7],
        "the host's move"
    );
}
