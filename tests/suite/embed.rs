//! Embedding (`shoal::Water`): a host's own device, steps recorded into the host's encoders, the
//! surface buffers' identity, host edits and the render-side passes against their CPU twins.

use crate::common;

use shoal::low_level::cpu::{apply_edits, caustics, surface};
use shoal::low_level::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};
use shoal::{Backend, Water, WaterOptions};

/// A device the test owns, opened the way a host renderer would (wgpu's env vars pick the
/// backend), with the adapter's limits as `Water::new` asks.
pub(crate) fn own_device() -> (wgpu::Device, wgpu::Queue) {
    own_device_with(|_| {})
}

/// `own_device` with the adapter's limits changed by `limit` first.
pub(crate) fn own_device_with(limit: impl FnOnce(&mut wgpu::Limits)) -> (wgpu::Device, wgpu::Queue) {
    common::hold_gpu();
    pollster::block_on(async {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions::default())
            .await
            .expect("an adapter");
        let mut limits = adapter.limits();
        limit(&mut limits);
        adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("host"),
                required_limits: limits,
                ..Default::default()
            })
            .await
            .expect("a device")
    })
}

/// A closed 48 × 40 pool 0.3 m deep with a beach on its east side and a bump to start waves.
pub(crate) const POOL: &str = r#"
[grid]
nx = 48
ny = 40
dx = 0.05
[time]
dt = 0.01
steps = 60
[terrain]
slope = { base = -0.3, grad = [0.25, 0.0] }
[water]
level = 0.0
[[water.bump]]
x = 0.8
y = 1.0
radius = 0.15
height = 0.03
[output]
every = 0
"#;

fn read_f32(device: &wgpu::Device, queue: &wgpu::Queue, buffer: &wgpu::Buffer) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(&shoal::readback::read(device, queue, buffer).unwrap())
}

/// The caustics map under a vertical sun, checked against the CPU twin run on the GPU's own
/// normals, depth and `cover`: integer counts, so equal unless a weight rounds the other way
/// (1/65536 per ray; 4 rays may land on a cell from its neighbours).
fn caustics_against_the_twin(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    water: &mut Water,
    cover: &[shoal::low_level::Cover],
) -> Vec<f32> {
    let (nx, ny, dx) = water.grid();
    let out = water.buffers();
    let got = read_f32(device, queue, out.caustics.as_ref().unwrap());
    let normals: Vec<[f32; 4]> =
        bytemuck::pod_collect_to_vec(&shoal::readback::read(device, queue, &out.normals).unwrap());
    let depth = read_f32(device, queue, &out.depth);
    let light = [0.0, 0.0, -1.0];
    let twin = caustics(
        nx as usize,
        ny as usize,
        dx as f32,
        &normals,
        &depth,
        cover,
        light,
        1.0 / 1.333,
    );
    for c in 0..got.len() {
        assert!(
            (got[c] - twin[c]).abs() <= 4.0 / 65536.0,
            "cell {c}: {} vs {}",
            got[c],
            twin[c]
        );
    }
    got
}

/// Steps recorded into the host's own encoders (two `record` calls share one encoder) match the
/// CPU reference within `compare::tolerance` (4 ulp per step of the wave size), and the surface
/// buffers hold what the CPU twin of the surface pass makes of that level.
#[test]
fn steps_in_the_hosts_encoder_match_the_cpu() {
    let (device, queue) = own_device();
    let scene = common::scene(POOL);
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    for _ in 0..5 {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, 5);
        water.record(&mut encoder, 7);
        queue.submit([encoder.finish()]);
    }
    water.check().unwrap();
    assert_eq!(water.steps(), 60);

    let mut cpu = common::simulation(&scene, Backend::Cpu);
    cpu.step(60).unwrap();
    let cpu_eta = cpu.eta().unwrap();
    let (eta, ground) = water.read_level().unwrap();
    let scale = 0.03;
    let (diff, at) = shoal::compare::max_abs_diff(
        &eta.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        &cpu_eta.iter().map(|&v| v as f64).collect::<Vec<_>>(),
    );
    let tol = shoal::compare::tolerance(60, scale);
    assert!(diff <= tol, "gpu vs cpu: {diff:.3e} at {at} (tolerance {tol:.3e})");

    // The surface pass against its twin on the same level: the same f32 operations, so within
    // a few ulp of the values (normals: sqrt and division round on both sides).
    let (nx, ny, dx) = water.grid();
    let decay = shoal::low_level::cpu::decay(12.0 * 0.01, water.options().drying_time);
    let mut wetness = vec![0.0f32; eta.len()];
    let twin = surface(nx as usize, ny as usize, dx as f32, &eta, &ground, decay, &mut wetness);
    let out = water.buffers();
    assert_eq!(read_f32(&device, &queue, &out.height), twin.height);
    assert_eq!(read_f32(&device, &queue, &out.depth), twin.depth);
    let normals = read_f32(&device, &queue, &out.normals);
    for (c, n) in twin.normals.iter().enumerate() {
        for k in 0..4 {
            assert!(
                (normals[4 * c + k] - n[k]).abs() <= 1e-6,
                "normal {c}.{k}: {} vs {}",
                normals[4 * c + k],
                n[k]
            );
        }
    }
    // Wet cells read 1, cells the waves ran up and left are drying (below 1), and the beach
    // well above the waterline never got wet.
    let wet_gpu = read_f32(&device, &queue, &out.wetness);
    for c in 0..eta.len() {
        if eta[c] > ground[c] {
            assert_eq!(wet_gpu[c], 1.0, "wetness of wet cell {c}");
        } else {
            assert!(
                (0.0..1.0).contains(&wet_gpu[c]),
                "wetness of dry cell {c}: {}",
                wet_gpu[c]
            );
        }
        if ground[c] > 0.05 {
            assert_eq!(wet_gpu[c], 0.0, "wetness high on the beach, cell {c}");
        }
    }
}

/// The buffers a host binds are the same objects after any number of steps (odd or even, so
/// either ping-pong level current), and always hold the latest level.
#[test]
fn surface_handles_keep_their_identity_and_follow_the_ping_pong() {
    let (device, queue) = own_device();
    let scene = common::scene(POOL);
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let out = water.buffers();
    let before = [
        out.height.clone(),
        out.depth.clone(),
        out.normals.clone(),
        out.wetness.clone(),
        out.caustics.clone().unwrap(),
    ];
    let ground_before = water.ground_buffer().clone();
    for steps in [1, 2, 3] {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, steps);
        queue.submit([encoder.finish()]);
        let out = water.buffers();
        let now = [
            &out.height,
            &out.depth,
            &out.normals,
            &out.wetness,
            out.caustics.as_ref().unwrap(),
        ];
        for (a, b) in before.iter().zip(now) {
            assert_eq!(a, b, "a surface buffer was replaced after {steps} steps");
        }
        assert_eq!(&ground_before, water.ground_buffer());
        let (eta, ground) = water.read_level().unwrap();
        let height = read_f32(&device, &queue, &water.buffers().height);
        for c in 0..eta.len() {
            let h = if eta[c] > ground[c] { eta[c] } else { ground[c] };
            assert_eq!(height[c], h, "height at cell {c} after {} steps", water.steps());
        }
    }
}

/// Host edits keep the books: a brush moves ground (and the water on it) without making or
/// losing water, a splash adds exactly what the CPU twin says, and the volume correction holds
/// the water to the target they leave, step after step.
#[test]
fn host_edits_keep_the_volume_accounting() {
    let (device, queue) = own_device();
    let scene = common::scene(&POOL.replace("every = 0", "every = 0\n[physics]\nvolume_correction = \"global\""));
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let (v0, t0) = water.read_volume().unwrap();
    // f32 heights of ~0.3 m over 1920 cells: a sum good to ~1e-7 relative.
    let tol = 1e-6 * v0;
    assert!((v0 - t0).abs() <= tol, "initial volume {v0} vs target {t0}");

    let (eta0, ground0) = water.read_level().unwrap();
    let (nx, _, dx) = water.grid();
    // Raise a hill under the water, dig a pit, raise the dry beach; then splash twice.
    water.brush(0.6, 0.6, 0.2, 0.15).unwrap();
    water.brush(0.9, 0.4, 0.15, -0.1).unwrap();
    water.brush(2.2, 1.0, 0.2, 0.1).unwrap();
    water.disturb(1.0, 1.4, 0.12, 0.04).unwrap();
    water.disturb(0.4, 1.6, 0.1, -0.02).unwrap();
    let edits = [
        HostEdit::at(EDIT_BRUSH, 0.6, 0.6, 0.2, 0.15, dx),
        HostEdit::at(EDIT_BRUSH, 0.9, 0.4, 0.15, -0.1, dx),
        HostEdit::at(EDIT_BRUSH, 2.2, 1.0, 0.2, 0.1, dx),
        HostEdit::at(EDIT_DISTURB, 1.0, 1.4, 0.12, 0.04, dx),
        HostEdit::at(EDIT_DISTURB, 0.4, 1.6, 0.1, -0.02, dx),
    ];
    let (mut eta_cpu, mut ground_cpu) = (eta0.clone(), ground0.clone());
    let added: f64 = apply_edits(nx as usize, &edits, &mut ground_cpu, &mut eta_cpu)
        .iter()
        .map(|&a| a as f64)
        .sum::<f64>()
        * dx
        * dx;
    assert!(added > 1e-4, "the splashes add water ({added} m³)");

    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 0);
    queue.submit([encoder.finish()]);
    let (eta, ground) = water.read_level().unwrap();
    assert_eq!(ground, ground_cpu, "the GPU brush matches its CPU twin");
    assert_eq!(eta, eta_cpu, "the GPU edits match their CPU twin");
    let (v1, t1) = water.read_volume().unwrap();
    assert!(
        (v1 - (v0 + added)).abs() <= tol,
        "after the edits: {v1} vs {v0} + {added}"
    );
    assert!((t1 - v1).abs() <= tol, "the target follows the edits: {t1} vs {v1}");

    for _ in 0..4 {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, 25);
        queue.submit([encoder.finish()]);
        let (v, t) = water.read_volume().unwrap();
        assert!(
            (v - v1).abs() <= tol,
            "step {}: volume {v} drifted from {v1}",
            water.steps()
        );
        assert!(
            (t - t1).abs() <= tol,
            "step {}: target {t} moved from {t1}",
            water.steps()
        );
    }
    water.check().unwrap();
}

/// The caustics pass against its twin, and the physics of it: flat water passes the light
/// straight through (1 everywhere wet), a raised bump is a lens that focuses it (brighter than
/// 1 under it) and conserves it (the light landing inside the pool is what entered it).
#[test]
fn caustics_focus_under_a_lens_and_match_the_cpu() {
    let (device, queue) = own_device();
    let flat = POOL.replace("[[water.bump]]\nx = 0.8\ny = 1.0\nradius = 0.15\nheight = 0.03\n", "");
    assert_ne!(flat, POOL);
    let options = WaterOptions {
        light: [0.0, 0.0, -1.0],
        ..Default::default()
    };
    for (text, lens) in [(flat.as_str(), false), (POOL, true)] {
        let scene = common::scene(text);
        let mut water = Water::new(&device, &queue, &scene, options).unwrap();
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, 0);
        queue.submit([encoder.finish()]);
        let got = caustics_against_the_twin(&device, &queue, &mut water, &[]);
        let nx = water.grid().0;
        let depth = read_f32(&device, &queue, &water.buffers().depth);
        if !lens {
            assert!(got.iter().all(|&v| v == 1.0), "flat water under a vertical sun reads 1");
            continue;
        }
        // The bump's top at (0.8, 1.0) m; a Gaussian cap of curvature 0.03/0.15² = 1.3 /m
        // focuses at 1 / ((1 − 1/1.333)·1.3) ≈ 3 m, so 0.13 m down the light gains ≈ 9 %.
        let centre = (20 * nx as usize) + 16;
        assert!(got[centre] > 1.03, "a bump focuses light under it: {}", got[centre]);
        let wet: Vec<usize> = (0..got.len()).filter(|&c| depth[c] > 0.0).collect();
        let sum: f64 = wet.iter().map(|&c| got[c] as f64).sum();
        assert!(
            (sum - wet.len() as f64).abs() < 0.01 * wet.len() as f64,
            "light is conserved: {sum} received by {} wet cells",
            wet.len()
        );
    }
}

/// Sources in an embedded run: the target moves on the GPU from chunk to chunk (volume.wgsl's
/// `roll`), so a pool fills at the source's rate over records longer than a chunk (255 steps).
#[test]
fn embedded_sources_fill_at_their_rate_across_chunks() {
    let (device, queue) = own_device();
    let text = POOL.replace(
        "[output]",
        "[[source]]\nx = 0.5\ny = 1.0\nradius = 0.15\nrate = 0.002\n[output]",
    );
    let scene = common::scene(&text);
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let (v0, _) = water.read_volume().unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 300);
    queue.submit([encoder.finish()]);
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 100);
    queue.submit([encoder.finish()]);
    let (v, t) = water.read_volume().unwrap();
    let want = v0 + 0.002 * water.time();
    // 1e-6 of the volume: f32 sums over 1920 cells of 0.3 m, and the source's f32 height per step.
    let tol = 1e-6 * v;
    assert!((v - want).abs() <= tol, "volume {v} vs {want} after {} s", water.time());
    assert!((t - v).abs() <= tol, "target {t} vs volume {v}");
    water.check().unwrap();
}

/// The implicit solver and the per-region correction embed too: ADI steps recorded by the host
/// match the CPU reference, and a splash joins its region's target.
#[test]
fn embedded_adi_with_regions_matches_the_cpu_and_keeps_a_splash() {
    let (device, queue) = own_device();
    let text = POOL.replace(
        "every = 0",
        "every = 0\n[physics]\nsolver = \"adi\"\nvolume_correction = \"regions\"",
    );
    let scene = common::scene(&text);
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    for _ in 0..4 {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, 10);
        queue.submit([encoder.finish()]);
    }
    let mut cpu = common::simulation(&scene, Backend::Cpu);
    cpu.step(40).unwrap();
    let (eta, _) = water.read_level().unwrap();
    let f64s = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    let (diff, at) = shoal::compare::max_abs_diff(&f64s(&eta), &f64s(&cpu.eta().unwrap()));
    let tol = shoal::compare::tolerance(40, 0.03);
    assert!(diff <= tol, "ADI gpu vs cpu: {diff:.3e} at {at} (tolerance {tol:.3e})");

    let (v0, _) = water.read_volume().unwrap();
    water.disturb(0.6, 1.0, 0.12, 0.04).unwrap();
    let (dx, nx) = (water.grid().2, water.grid().0 as usize);
    let (mut e, mut b) = water.read_level().unwrap();
    let added: f64 = apply_edits(
        nx,
        &[HostEdit::at(EDIT_DISTURB, 0.6, 1.0, 0.12, 0.04, dx)],
        &mut b,
        &mut e,
    )
    .iter()
    .map(|&a| a as f64)
    .sum::<f64>()
        * dx
        * dx;
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 50);
    queue.submit([encoder.finish()]);
    let (v, _) = water.read_volume().unwrap();
    assert!(
        (v - (v0 + added)).abs() <= 1e-6 * v,
        "regions kept {v}, want {v0} + {added}"
    );
}

/// A host that will dig deeper says so, and gets the substeps for it; a bad depth is an error.
#[test]
fn max_depth_plans_the_substeps() {
    let (device, queue) = own_device();
    let scene = common::scene(POOL);
    let plain = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let deep = WaterOptions {
        max_depth: Some(3.0),
        ..Default::default()
    };
    let planned = Water::new(&device, &queue, &scene, deep).unwrap();
    assert!(
        planned.substeps() > plain.substeps(),
        "{} substeps for 3 m vs {} for the scene's 0.3 m",
        planned.substeps(),
        plain.substeps()
    );
    let bad = WaterOptions {
        max_depth: Some(-1.0),
        ..Default::default()
    };
    let err = Water::new(&device, &queue, &scene, bad).err().unwrap();
    assert!(err.to_string().contains("max_depth"), "{err}");
    let down = WaterOptions {
        light: [0.0, 0.0, 1.0],
        ..Default::default()
    };
    let err = Water::new(&device, &queue, &scene, down).err().unwrap();
    assert!(err.to_string().contains("light"), "{err}");
    // The Navier-Stokes layer's substeps follow its flow: a depth to plan for is refused by
    // name, not ignored.
    let layer = crate::common::scene(
        "[grid]\nnx = 8\nny = 8\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\nmodel = \"navier-stokes\"\n[terrain]\nflat = -0.5\n",
    );
    let deep = WaterOptions {
        max_depth: Some(3.0),
        ..Default::default()
    };
    let err = Water::new(&device, &queue, &layer, deep).err().unwrap();
    assert!(
        err.to_string().contains("Navier-Stokes") && err.to_string().contains("max_depth"),
        "{err}"
    );
    assert!(Water::new(&device, &queue, &layer, WaterOptions::default()).is_ok());
}

/// The scene's rain falls in an embedded run as in a batch run (drops keyed by step, however
/// the frames split the steps), and the volume target takes every drop across chunks. The pool
/// starts still: with a wave running up the beach as well, how the steps are split into chunks
/// moves a puddle by ~1.4 mm even between two CPU batch runs (the target's f32 start absorbs
/// each chunk's rain, a rounding the wet/dry rule on the beach amplifies), so no 4-ulp rule holds.
#[test]
fn embedded_rain_matches_the_batch_run() {
    let (device, queue) = own_device();
    // A flat pool: no shoreline. The embedded run keeps the volume target on the GPU (volume.wgsl's
    // `roll`, a pair of f32) where the batch run uploads its f64 target each chunk, so the two
    // correct by values an ulp apart; at a rained-on shoreline that ulp grows as the films flip
    // wet and dry (on the pool's beach: 3e-4 m after 300 steps, as a 1e-7 m change of the still
    // level does there; 8e-6 before `hand_on` carried the shoreline's momentum on).
    let still = POOL
        .replace("[[water.bump]]\nx = 0.8\ny = 1.0\nradius = 0.15\nheight = 0.03\n", "")
        .replace("grad = [0.25, 0.0]", "grad = [0.0, 0.0]");
    assert_ne!(still, POOL);
    let text = still.replace(
        "[output]",
        "[rain]\nrate = 40.0\nradius = 0.05\nheight = 0.004\nseed = 7\n[output]",
    );
    let scene = common::scene(&text);
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let (v0, _) = water.read_volume().unwrap();
    let mut left = 300;
    while left > 0 {
        let n = left.min(7);
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, n);
        queue.submit([encoder.finish()]);
        left -= n;
    }
    let mut cpu = common::simulation(&scene, Backend::Cpu);
    cpu.step(300).unwrap();
    let (eta, _) = water.read_level().unwrap();
    let f64s = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    let (diff, at) = shoal::compare::max_abs_diff(&f64s(&eta), &f64s(&cpu.eta().unwrap()));
    let tol = shoal::compare::tolerance(300, 0.03);
    let (v, t) = water.read_volume().unwrap();
    let fell = cpu.target_volume() - v0;
    assert!(diff <= tol, "rain: gpu vs cpu {diff:.3e} at {at} (tolerance {tol:.3e})");
    assert!(fell > 1e-4, "it rained ({fell} m³)");
    assert!((v - (v0 + fell)).abs() <= 1e-6 * v, "volume {v} vs {v0} + {fell}");
    assert!((t - v).abs() <= 1e-6 * v, "target {t} vs volume {v}");
}

/// A floating body stops the light: the ground under its middle gets none (light reaches the
/// edge of its shadow only from the open water beside it, 1.2 cells away at most here), and the
/// GPU's shadow matches the twin given the same covers.
#[test]
fn a_floating_body_shades_the_caustics() {
    let (device, queue) = own_device();
    let text = POOL.replace(
        "[output]",
        "[[body]]\nsize = [0.4, 0.4, 0.1]\nposition = [0.6, 1.0, 0.0]\n[output]",
    );
    let options = WaterOptions {
        light: [0.0, 0.0, -1.0],
        ..Default::default()
    };
    let mut water = Water::new(&device, &queue, &common::scene(&text), options).unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 1);
    queue.submit([encoder.finish()]);
    let cover: Vec<shoal::low_level::Cover> =
        bytemuck::pod_collect_to_vec(&shoal::readback::read(&device, &queue, &water.covers_buffer().clone()).unwrap());
    let got = caustics_against_the_twin(&device, &queue, &mut water, &cover);
    let nx = water.grid().0;
    // The body's middle: cell (11.5, 19.5) of a 0.4 m (8-cell) square.
    let middle = 20 * nx as usize + 12;
    assert!(cover[middle].owner != 0, "the body covers its middle");
    assert_eq!(got[middle], 0.0, "no light under the body");
    assert!(got[20 * nx as usize + 30] > 0.9, "open water beside it is lit");
}

/// The wetness map against its twin frame by frame: 1 where wet, × exp(−elapsed / drying time)
/// per frame where dry (the same f32 product on both sides, so equal to the bit), on a beach the
/// wave runs up and leaves.
#[test]
fn wetness_follows_its_twin_frame_by_frame() {
    let (device, queue) = own_device();
    let text = POOL.replace("height = 0.03", "height = 0.08");
    let scene = common::scene(&text);
    let options = WaterOptions {
        drying_time: 0.2,
        ..Default::default()
    };
    let mut water = Water::new(&device, &queue, &scene, options).unwrap();
    let (nx, ny, dx) = water.grid();
    let mut twin = vec![0.0f32; (nx * ny) as usize];
    let mut drying = 0;
    // 60 frames of 3 steps: the first cells the wave leaves start drying at frame 45 (frame 23
    // while the dry-cell rule refilled overdrained cells; each face now takes at most a quarter
    // of what its source holds, so a film drains over a few more steps).
    for _ in 0..60 {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, 3);
        queue.submit([encoder.finish()]);
        let (eta, ground) = water.read_level().unwrap();
        let decay = shoal::low_level::cpu::decay(3.0 * 0.01, 0.2);
        surface(nx as usize, ny as usize, dx as f32, &eta, &ground, decay, &mut twin);
        let got = read_f32(&device, &queue, &water.buffers().wetness);
        assert_eq!(got, twin, "wetness after {} steps", water.steps());
        drying = drying.max(got.iter().filter(|&&w| w > 0.0 && w < 1.0).count());
    }
    assert!(drying > 0, "the wave left wet sand behind to dry");
}

/// Bad host input gets a clear error and never reaches the GPU: a NaN in an edit would spread
/// to every cell it touches, one in a body to the body and then the water.
#[test]
fn bad_edits_are_refused_and_change_nothing() {
    let (device, queue) = own_device();
    let text = POOL.replace(
        "[output]",
        "[[body]]\nsize = [0.3, 0.3, 0.1]\nposition = [0.6, 1.0, 0.0]\n[output]",
    );
    let mut water = Water::new(&device, &queue, &common::scene(&text), WaterOptions::default()).unwrap();
    let before = water.read_level().unwrap();
    let errors = [
        water.disturb(f64::NAN, 1.0, 0.1, 0.01).err(),
        water.disturb(1.0, 1.0, 0.0, 0.01).err(),
        water.brush(1.0, 1.0, 0.1, f64::INFINITY).err(),
        water.move_body(0, [0.6, f64::NAN, 0.0], [0.0; 3]).err(),
        water.drag_body(0, f64::NAN, 0.0).err(),
        water.drag_body(3, 0.1, 0.0).err(),
    ];
    for (k, e) in errors.iter().enumerate() {
        let e = e.as_ref().unwrap_or_else(|| panic!("bad edit {k} was accepted"));
        assert!(!e.to_string().is_empty(), "edit {k}: {e}");
    }
    let mut encoder = device.create_command_encoder(&Default::default());
    water.record(&mut encoder, 0);
    queue.submit([encoder.finish()]);
    assert_eq!(water.read_level().unwrap(), before, "a refused edit changed the water");
}

/// The pipes model embedded: steps recorded into the host's encoders in pieces of any size give
/// the batch run's bits (the spray's random key is staged per piece), the spray's particles and
/// indirect draw args are stable buffers the GPU keeps current, and the books stay exact.
#[test]
fn an_embedded_waterfall_matches_the_batch_run_and_hands_over_its_spray() {
    let (device, queue) = own_device();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/waterfall.toml");
    let scene = shoal::Scene::from_file(&path).unwrap();
    let mut water = Water::new(&device, &queue, &scene, WaterOptions::default()).unwrap();
    let particles = water.particles_buffer().expect("the waterfall sprays").clone();
    let draw = water.particle_draw_args().unwrap().clone();
    for steps in [7, 5, 0, 28] {
        let mut encoder = device.create_command_encoder(&Default::default());
        water.record(&mut encoder, steps);
        water.record(&mut encoder, steps);
        queue.submit([encoder.finish()]);
    }
    water.check().unwrap();
    assert_eq!(water.steps(), 80);
    assert_eq!(
        water.particles_buffer(),
        Some(&particles),
        "the particle buffer was replaced"
    );
    assert_eq!(water.particle_draw_args(), Some(&draw));

    let mut batch = common::simulation(&scene, Backend::Gpu);
    batch.step(80).unwrap();
    let (eta, ground) = water.read_level().unwrap();
    let want = batch.eta().unwrap();
    let differ = (0..eta.len())
        .filter(|&c| eta[c].to_bits() != want[c].to_bits())
        .count();
    assert_eq!(
        differ, 0,
        "{differ} cells of the embedded surface are not the batch run's"
    );
    // The render side's height: the surface seen from above.
    let height = read_f32(&device, &queue, &water.buffers().height);
    for c in 0..eta.len() {
        assert_eq!(height[c], eta[c].max(ground[c]), "height at {c}");
    }
    // [6, count, 0, 0], and the particles the batch run has, in the same order.
    let args: Vec<u32> = bytemuck::pod_collect_to_vec(&shoal::readback::read(&device, &queue, &draw).unwrap());
    let flying = batch.particles().unwrap();
    assert!(!flying.is_empty(), "nothing in flight at step 80");
    assert_eq!(args, vec![6, flying.len() as u32, 0, 0]);
    let live: Vec<shoal::Particle> =
        bytemuck::pod_collect_to_vec(&shoal::readback::read(&device, &queue, &particles).unwrap());
    for (k, (p, q)) in live.iter().zip(&flying).enumerate() {
        assert_eq!([p.pos[0], p.pos[1]], [q[0], q[1]], "particle {k}");
    }
    // Columns and particles hold what the start and the outfall leave, to the unit.
    let (volume, target) = water.read_volume().unwrap();
    assert_eq!(volume, target);
    let want = batch.target_volume();
    assert!(
        (volume - want).abs() <= 1e-12 * want,
        "{volume} m³ vs the batch run's {want} m³"
    );
}
