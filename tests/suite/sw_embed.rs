//! `Water` on the shallow-water model: the steps a host records against the batch run on the same
//! device kind, the velocity field it binds, its edits against `Simulation::edit`, its volume
//! books, and its substeps following a flow the plan did not foresee.

use crate::common;
use crate::embed::{own_device, POOL};

use shoal::low_level::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};
use shoal::{Backend, Water, WaterOptions};

/// The embed tests' pool with its beach and bump on the shallow-water model, `extra` before
/// `[output]`.
fn pool(extra: &str) -> String {
    POOL.replace("[terrain]", "[physics]\nmodel = \"shallow-water\"\n[terrain]")
        .replace("[output]", &format!("{extra}[output]"))
}

fn read_f32(device: &wgpu::Device, queue: &wgpu::Queue, buffer: &wgpu::Buffer) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(&shoal::readback::read(device, queue, buffer).unwrap())
}

/// Records `frames` (steps each) into one encoder per frame and submits it.
fn run(device: &wgpu::Device, queue: &wgpu::Queue, water: &mut Water, frames: &[u32]) {
    for &steps in frames {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, steps);
        queue.submit([encoder.finish()]);
    }
}

/// The steps a host records, in frames of any length and several to an encoder, are the batch
/// run's bit for bit: the same passes in the same order, the rain and a source's water staged per
/// chunk in the host's encoder where the batch run writes them through the queue. The velocity
/// field the host binds is the batch run's (`Simulation::velocity`, computed on the CPU from the
/// same state: the same f32 division, so within an ulp), the render side's height is the
/// surface over the ground, and the books hold the water to what the start, the rain and the
/// source brought (f32 depths of ~0.3 m over 1920 cells: a sum good to ~1e-7 relative).
#[test]
fn embedded_shallow_water_is_the_batch_run_bit_for_bit() {
    let (device, queue) = own_device();
    let rain = "[rain]\nrate = 40.0\nradius = 0.05\nheight = 0.004\nseed = 7\n\
                [[source]]\nx = 1.2\ny = 0.8\nradius = 0.1\nrate = 0.002\n";
    let scene = common::scene(&pool(rain));
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let velocity = water.velocity_buffer().expect("the model has velocities").clone();
    let height = water.buffers().height.clone();
    // What a renderer binds per vertex (the web page's draw found the ground without it).
    for (what, buffer) in [
        ("ground", water.ground_buffer().clone()),
        ("velocity", velocity.clone()),
    ] {
        assert!(
            buffer.usage().contains(wgpu::BufferUsages::VERTEX),
            "the {what} buffer's usage"
        );
    }
    let (v0, t0) = water.read_volume().unwrap();
    assert!((v0 - t0).abs() <= 1e-6 * v0, "at the start: {v0} vs {t0}");
    for frames in [[7, 5], [0, 13], [1, 39], [20, 30]] {
        let mut encoder = device.create_command_encoder(&Default::default());
        for steps in frames {
            water.record(&mut encoder, steps);
        }
        queue.submit([encoder.finish()]);
    }
    water.check().unwrap();
    assert_eq!(water.steps(), 115);
    assert_eq!(
        water.velocity_buffer(),
        Some(&velocity),
        "the velocity buffer was replaced"
    );
    assert_eq!(water.buffers().height, height);

    let mut batch = common::simulation(&scene, Backend::Gpu);
    batch.step(115).unwrap();
    assert_eq!(water.substeps(), batch.substeps(), "the plans differ");
    let (eta, ground) = water.read_level().unwrap();
    let want = batch.eta().unwrap();
    let differ: Vec<usize> = (0..eta.len())
        .filter(|&c| eta[c].to_bits() != want[c].to_bits())
        .collect();
    assert!(
        differ.is_empty(),
        "{} cells differ from the batch run, the first {:?}: {} vs {}",
        differ.len(),
        differ.first(),
        eta[differ[0]],
        want[differ[0]]
    );
    let on_gpu: Vec<[f32; 2]> =
        bytemuck::pod_collect_to_vec(&shoal::readback::read(&device, &queue, &velocity).unwrap());
    let twin = batch.velocity().unwrap().unwrap();
    let mut moving = 0;
    for (c, (a, b)) in on_gpu.iter().zip(&twin).enumerate() {
        for k in 0..2 {
            assert!(
                (a[k] - b[k]).abs() <= 2.0 * f32::EPSILON * b[k].abs(),
                "velocity {c}.{k}: {} vs {}",
                a[k],
                b[k]
            );
        }
        moving += (b[0].hypot(b[1]) > 1e-3) as usize;
        if eta[c] <= ground[c] {
            assert_eq!(*a, [0.0, 0.0], "a dry cell {c} moves");
        }
    }
    assert!(moving > 100, "the bump's waves move {moving} cells");
    let surface = read_f32(&device, &queue, &height);
    for c in 0..eta.len() {
        assert_eq!(surface[c], eta[c].max(ground[c]), "height at {c}");
    }
    let (v, t) = water.read_volume().unwrap();
    let fed = batch.target_volume() - v0;
    assert!(fed > 1e-4, "the rain and the source brought {fed} m³");
    assert!(
        (t - batch.target_volume()).abs() <= 1e-9 * t,
        "target {t} vs the batch run's"
    );
    assert!((v - t).abs() <= 1e-6 * v, "volume {v} vs target {t}");
}

/// The host's brushes and splashes, applied on the GPU at the start of a frame, are
/// `Simulation::edit`'s on the batch run: the same f32 rule (`host_edit.wgsl`; its twin
/// `apply_edits`) and the same discharges after (`edited_discharges`). The batch run keeps its
/// ground in f64 about the absolute heights, so its f32 ground may part by an ulp (1e-6 m here);
/// the surfaces then by no more than the GPU-vs-CPU rule allows. No edit speeds a cell up (the
/// GPU's velocity field before and after), and the splashes' water joins the books.
#[test]
fn shallow_water_edits_in_a_frame_are_simulation_edits() {
    let (device, queue) = own_device();
    let scene = common::scene(&pool(""));
    let dx = scene.grid.dx;
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let mut batch = common::simulation(&scene, Backend::Gpu);
    run(&device, &queue, &mut water, &[10]);
    batch.step(10).unwrap();
    let speeds = |water: &Water| -> Vec<f32> {
        let v: Vec<[f32; 2]> = bytemuck::pod_collect_to_vec(
            &shoal::readback::read(&device, &queue, water.velocity_buffer().unwrap()).unwrap(),
        );
        v.iter().map(|v| v[0].hypot(v[1])).collect()
    };
    let before = speeds(&water);
    let (v0, _) = water.read_volume().unwrap();
    // A hill under the water, a pit, the dry beach raised; a splash, and a trough on the wave
    // down to the ground in its middle.
    let edits = [
        (EDIT_BRUSH, 0.6, 0.6, 0.2, 0.15),
        (EDIT_BRUSH, 0.9, 0.4, 0.15, -0.1),
        (EDIT_BRUSH, 2.2, 1.0, 0.2, 0.1),
        (EDIT_DISTURB, 1.05, 1.0, 0.1, 0.03),
        (EDIT_DISTURB, 0.8, 1.0, 0.3, -0.12),
    ];
    for &(kind, x, y, r, h) in &edits {
        if kind == EDIT_BRUSH {
            water.brush(x, y, r, h).unwrap();
        } else {
            water.disturb(x, y, r, h).unwrap();
        }
    }
    let host: Vec<HostEdit> = edits
        .iter()
        .map(|&(k, x, y, r, h)| HostEdit::at(k, x, y, r, h, dx))
        .collect();
    batch.edit(&host).unwrap();
    run(&device, &queue, &mut water, &[0]);
    let f64s = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    let (eta, ground) = water.read_level().unwrap();
    let reference = batch.reference_level();
    let moved: Vec<f64> = batch.ground().iter().map(|&b| b - reference).collect();
    let (diff, at) = shoal::compare::max_abs_diff(&moved, &f64s(&ground));
    assert!(diff <= 1e-6, "the brushes: the ground differs by {diff:.3e} at {at}");
    let tol = shoal::compare::tolerance(10, 0.15);
    let (diff, at) = shoal::compare::max_abs_diff(&f64s(&eta), &f64s(&batch.eta().unwrap()));
    assert!(diff <= tol, "the edits: {diff:.3e} at {at} (tolerance {tol:.3e})");
    for (c, (a, b)) in speeds(&water).iter().zip(&before).enumerate() {
        assert!(
            *a <= b * (1.0 + 1e-5) + 1e-7,
            "cell {c}: {b} m/s before the edit, {a} after"
        );
    }
    let (v1, t1) = water.read_volume().unwrap();
    assert!((v1 - v0).abs() > 1e-4, "the splashes moved {} m³", v1 - v0);
    assert!(
        (t1 - batch.target_volume()).abs() <= 1e-6 * t1,
        "target {t1} vs the batch run's"
    );
    assert!(
        (v1 - t1).abs() <= 1e-6 * v1,
        "after the edits: volume {v1} vs target {t1}"
    );

    run(&device, &queue, &mut water, &[15, 25]);
    batch.step(40).unwrap();
    water.check().unwrap();
    let (eta, _) = water.read_level().unwrap();
    let (diff, at) = shoal::compare::max_abs_diff(&f64s(&eta), &f64s(&batch.eta().unwrap()));
    eprintln!("40 steps after the edits: embedded vs batch {diff:.3e} m at {at}");
    let tol = shoal::compare::tolerance(50, 0.15);
    assert!(
        diff <= tol,
        "40 steps after the edits: {diff:.3e} at {at} (tolerance {tol:.3e})"
    );
    let (v, t) = water.read_volume().unwrap();
    assert!((v - t).abs() <= 1e-6 * v, "40 steps on: volume {v} vs target {t}");
}

/// A splash three times deeper than the pool outruns the substeps planned for the scene's water:
/// the model's flow Courant number, read back from the books without a stall, raises them a frame
/// or two later as a batch run raises them between chunks, and the water stays finite and whole.
/// Planned for the splash with `max_depth`, it starts with them.
#[test]
fn a_deep_splash_raises_the_embedded_substeps() {
    let (device, queue) = own_device();
    let scene = common::scene(&pool(""));
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let planned = water.substeps();
    water.disturb(1.0, 1.0, 0.3, 0.9).unwrap();
    let (v0, _) = water.read_volume().unwrap();
    for _ in 0..8 {
        run(&device, &queue, &mut water, &[5]);
        // What a host's frame loop does between frames: its device polled now and then.
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    }
    eprintln!("substeps: {planned} planned, {} after the splash", water.substeps());
    assert!(
        water.substeps() > planned,
        "{} substeps after the splash, {planned} planned",
        water.substeps()
    );
    run(&device, &queue, &mut water, &[5]);
    water.check().unwrap();
    let (v, t) = water.read_volume().unwrap();
    assert!(t > v0 + 0.01, "the splash's water is in the books: {t} vs {v0}");
    assert!((v - t).abs() <= 1e-6 * v, "volume {v} vs target {t}");

    let options = WaterOptions {
        max_depth: Some(1.2),
        ..Default::default()
    };
    let deep = Water::new(&device, &queue, &scene, options).unwrap();
    assert!(deep.substeps() > planned, "max_depth planned {}", deep.substeps());
}

/// Bodies on the embedded shallow-water model step as in the batch run: a box floating in the
/// pool over frames of any length gives the batch run's surface bit for bit and, in the states
/// buffer a renderer binds per instance, its bodies; a host's `move_body` lands in that buffer
/// before the next steps.
#[test]
fn embedded_bodies_float_as_in_the_batch_run() {
    let (device, queue) = own_device();
    let body = "[[body]]\nshape = \"box\"\nsize = [0.3, 0.2, 0.1]\nposition = [0.5, 0.6, 0.0]\ndensity = 400\n";
    let scene = common::scene(&pool(body));
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    run(&device, &queue, &mut water, &[7, 0, 23, 30]);
    let mut batch = common::simulation(&scene, Backend::Gpu);
    batch.step(60).unwrap();
    let (eta, _) = water.read_level().unwrap();
    assert_eq!(eta, batch.eta().unwrap(), "the surface");
    let states = water.bodies_buffer().expect("the scene has a body").clone();
    let got: Vec<shoal::low_level::BodyState> =
        bytemuck::pod_collect_to_vec(&shoal::readback::read(&device, &queue, &states).unwrap());
    let want = batch.bodies()[0];
    let b = got[0];
    assert_eq!(
        [b.position[0], b.position[1]].map(f64::from),
        [want.position[0], want.position[1]],
        "the body's place"
    );
    assert_eq!(
        b.velocity[..3].iter().map(|&v| v as f64).collect::<Vec<_>>(),
        want.velocity,
        "its velocity"
    );
    assert!(
        want.velocity.iter().any(|v| v.abs() > 1e-4),
        "the bump's waves move it: {want:?}"
    );
    water.move_body(0, [0.9, 0.7, 0.0], [0.0; 3]).unwrap();
    run(&device, &queue, &mut water, &[0]);
    let moved: Vec<shoal::low_level::BodyState> =
        bytemuck::pod_collect_to_vec(&shoal::readback::read(&device, &queue, &states).unwrap());
    assert_eq!(
        [moved[0].position[0], moved[0].position[1]],
        [0.9, 0.7],
        "the host's move"
    );
}
