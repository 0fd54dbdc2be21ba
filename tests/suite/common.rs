//! Helpers shared by the integration tests: one GPU device for the crate, held by one test at a
//! time; scenes from text, and runs on either backend.
#![allow(dead_code)]

use shoal::low_level::gpu::GpuContext;
use shoal::{Backend, Scene, Simulation};
use std::cell::RefCell;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// The test binary's GPU (wgpu's env vars pick it: CI runs the suite with WGPU_BACKEND=gl and
/// =vulkan), held by the calling test until it ends (see [`hold_gpu`]). A machine with no adapter
/// at all fails here with the install hint.
pub fn gpu() -> &'static GpuContext {
    hold_gpu();
    static GPU: OnceLock<GpuContext> = OnceLock::new();
    GPU.get_or_init(|| GpuContext::new().unwrap_or_else(|e| panic!("GPU tests need an adapter: {e}")))
}

/// Seconds one test may hold the GPU before the whole run fails (`SHOAL_GPU_TEST_TIMEOUT`
/// overrides). The slowest test holds it about 3 minutes on lavapipe on 2 cores.
const GPU_TEST_TIMEOUT_S: u64 = 900;

/// Which test holds the GPU, and since when.
static HOLDER: Mutex<Option<(String, Instant)>> = Mutex::new(None);

thread_local! {
    /// The calling test's hold on the GPU, released when its thread ends (libtest runs each test
    /// on a thread of its own, and thread-locals drop as it exits, panicking or not).
    static HELD: RefCell<Option<GpuHold>> = const { RefCell::new(None) };
}

struct GpuHold(#[allow(dead_code)] MutexGuard<'static, ()>);

impl Drop for GpuHold {
    fn drop(&mut self) {
        let held = HOLDER.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let (Some((name, since)), Ok(path)) = (held, std::env::var("SHOAL_GPU_HOLDS")) {
            log_hold(&path, &name, since.elapsed());
        }
    }
}

/// Appends "seconds test" to `path` (`SHOAL_GPU_HOLDS`): the GPU tests run one at a time, so
/// their holds are the suite's critical path, and CI prints the longest (`.ci/run`).
fn log_hold(path: &str, name: &str, held: Duration) {
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{:8.1} {name}", held.as_secs_f64());
    }
}

/// Makes the calling test the only one using a GPU device until it ends. wgpu's GL backend holds
/// one context lock while llvmpipe compiles or runs, and a thread that waits more than 6 s for it
/// panics inside wgpu-hal; GPU tests also each use every core through Mesa's own threads. So GPU
/// tests run one at a time while CPU-only tests run beside them. A watchdog fails the run, naming
/// the test, when one holds the GPU past [`GPU_TEST_TIMEOUT_S`]: a hung GPU test must not stall CI.
pub fn hold_gpu() {
    static GPU_LOCK: Mutex<()> = Mutex::new(());
    if HELD.with(|h| h.borrow().is_some()) {
        return;
    }
    let guard = GPU_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let name = std::thread::current().name().unwrap_or("a test").to_string();
    *HOLDER.lock().unwrap_or_else(|e| e.into_inner()) = Some((name, Instant::now()));
    start_watchdog();
    HELD.with(|h| *h.borrow_mut() = Some(GpuHold(guard)));
}

/// Ends the calling test's hold on the GPU before the test does, so that its CPU work after it
/// runs beside the next GPU test instead of keeping the device idle (the suite's GPU tests run
/// one at a time: their holds are its critical path).
pub fn release_gpu() {
    HELD.with(|h| h.borrow_mut().take());
}

fn start_watchdog() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let limit = std::env::var("SHOAL_GPU_TEST_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(GPU_TEST_TIMEOUT_S);
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_secs(1));
            let holder = HOLDER.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((name, since)) = holder.as_ref() {
                if since.elapsed() > Duration::from_secs(limit) {
                    // Straight to the stream: libtest captures `eprintln!` in threads a test
                    // starts, and `exit` would drop the capture with the message in it.
                    use std::io::Write;
                    let _ = writeln!(
                        std::io::stderr(),
                        "error: GPU test {name} has held the device for over {limit} s: failing the run \
                         (SHOAL_GPU_TEST_TIMEOUT sets the limit)"
                    );
                    std::process::exit(101);
                }
            }
        });
    });
}

/// A scene from TOML text; relative paths resolve against `dir`.
pub fn scene_in(dir: &Path, text: &str) -> Scene {
    Scene::parse(text, Path::new("<test scene>"), dir).unwrap_or_else(|e| panic!("test scene invalid: {e}"))
}

pub fn scene(text: &str) -> Scene {
    scene_in(Path::new("."), text)
}

/// Builds `scene` on the shared GPU or on a CPU backend.
pub fn simulation(scene: &Scene, backend: Backend) -> Simulation {
    match backend {
        Backend::Gpu => Simulation::from_device(scene, &gpu().device, &gpu().queue),
        cpu => Simulation::new(scene, cpu),
    }
    .unwrap_or_else(|e| panic!("building the simulation failed: {e}"))
}

pub const BOTH: [Backend; 2] = [Backend::Cpu, Backend::Gpu];

/// `scene` on `backend` run `half` steps, checkpointed into `dir`, restored into a fresh
/// simulation and run `half` more; and beside it a run of `2·half` straight: (resumed, straight).
pub fn resumed_and_straight(scene: &Scene, backend: Backend, half: u64, dir: &Path) -> (Simulation, Simulation) {
    let mut straight = simulation(scene, backend);
    straight.step(2 * half).unwrap();
    let mut first = simulation(scene, backend);
    first.step(half).unwrap();
    let path = dir.join("ck.bin");
    first.checkpoint().unwrap().write(&path).unwrap();
    let mut resumed = simulation(scene, backend);
    resumed
        .restore(&shoal::Checkpoint::read(&path).unwrap(), &path)
        .unwrap();
    resumed.step(half).unwrap();
    (resumed, straight)
}

/// Runs `steps` steps and returns the absolute surface.
pub fn run(scene: &Scene, backend: Backend, steps: u64) -> Vec<f64> {
    let mut sim = simulation(scene, backend);
    sim.step(steps).unwrap();
    sim.surface().unwrap()
}

/// Writes an f64 `[ny, nx]` array for a scene to read.
pub fn write_npy(dir: &Path, name: &str, ny: usize, nx: usize, f: impl Fn(usize, usize) -> f64) {
    let data: Vec<f64> = (0..ny)
        .flat_map(|j| (0..nx).map(move |i| (j, i)))
        .map(|(j, i)| f(i, j))
        .collect();
    shoal::io::npy::write_2d(&dir.join(name), ny, nx, &data).unwrap();
}

/// Times at which `signal` crosses `level` upwards, linearly interpolated (signal sampled every `dt`).
pub fn upward_crossings(signal: &[f64], level: f64, dt: f64) -> Vec<f64> {
    signal
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < level && w[1] >= level)
        .map(|(k, w)| (k as f64 + (level - w[0]) / (w[1] - w[0])) * dt)
        .collect()
}

/// Mean period from successive upward crossings.
pub fn mean_period(signal: &[f64], level: f64, dt: f64) -> f64 {
    let c = upward_crossings(signal, level, dt);
    assert!(c.len() >= 2, "fewer than two crossings: no period to measure");
    (c[c.len() - 1] - c[0]) / (c.len() - 1) as f64
}

/// A 72×48 basin (dx = 5 cm), no volume correction (these scenes compare the solvers' passes),
/// whose floor rises to the east into a dry beach, with an island and two drops.
pub fn beach_scene(boundary: &str, solver: &str, dt: f64) -> String {
    format!(
        r#"
[grid]
nx = 72
ny = 48
dx = 0.05
[time]
dt = {dt}
[physics]
solver = "{solver}"
volume_correction = "none"
damping = 0.002
[boundary]
{boundary}
[terrain]
slope = {{ base = -0.5, grad = [0.2, 0.02] }}
[[terrain.box]]
x0 = 1.2
y0 = 1.0
x1 = 1.6
y1 = 1.4
top = 0.1
[water]
level = 0.0
[[water.bump]]
x = 0.8
y = 0.7
radius = 0.15
height = 0.05
[[water.bump]]
x = 2.2
y = 1.8
radius = 0.1
height = 0.04
"#
    )
}

/// Runs `steps` steps and returns every body after every step (row 0: the start).
pub fn trajectory(sim: &mut Simulation, steps: u64) -> Vec<Vec<shoal::BodySample>> {
    let mut rows = vec![sim.bodies().to_vec()];
    sim.step(steps).unwrap();
    rows.extend(sim.take_body_samples());
    rows
}

/// A body `height` tall of `density` released at rest at `draft` below the still level in the
/// middle of a 1.6 m pool (`body` → scene, from the body's TOML lines), 300 steps: its draft
/// (underside to the waterline around it) averaged over the last 100, and its fastest heave then.
pub fn settled_draft(
    shape: &str,
    size: [f64; 3],
    density: f64,
    draft: f64,
    scene_of: impl Fn(&str) -> Scene,
) -> (f64, f64) {
    let body = format!(
        "shape = \"{shape}\"\nsize = {size:?}\nposition = [0.8, 0.8, {}]\ndensity = {density}",
        size[2] / 2.0 - draft
    );
    let mut sim = simulation(&scene_of(&body), Backend::Cpu);
    let rows = trajectory(&mut sim, 300);
    let tail = &rows[200..];
    let mean = tail
        .iter()
        .map(|r| r[0].waterline - (r[0].position[2] - size[2] / 2.0))
        .sum::<f64>()
        / tail.len() as f64;
    let heave = tail.iter().map(|r| r[0].velocity[2].abs()).fold(0.0, f64::max);
    println!("{shape} {density}: draft {mean:.5} m (Archimedes {draft}), |w| ≤ {heave:.4} m/s");
    (mean, heave)
}

/// The body suites' pool for `model` (its `physics.model`): 1.6 m square, 0.5 m deep (still
/// level 0), cells of 4 cm, dt 10 ms, with `bodies` (each body's TOML lines).
pub fn body_pool(model: &str, bodies: &[&str]) -> String {
    let bodies: String = bodies.iter().map(|b| format!("[[body]]\n{b}\n")).collect();
    format!(
        "[grid]\nnx = 40\nny = 40\ndx = 0.04\n[time]\ndt = 0.01\n[physics]\nmodel = \"{model}\"\n\
         [terrain]\nflat = -0.5\n[water]\nlevel = 0.0\n{bodies}"
    )
}

/// Archimedes: a box (draft 0.1 m) and a sphere (0.2 m) of density 500 released at their drafts
/// in the pool `scene_of` builds float there within 3 % (the issue's bound), heaving below
/// `heave` m/s (`settled_draft`).
pub fn assert_archimedes(heave: f64, scene_of: impl Fn(&str) -> Scene) {
    for (shape, size, density, draft) in [("box", [0.4, 0.4, 0.2], 500.0, 0.1), ("sphere", [0.4; 3], 500.0, 0.2)] {
        let (mean, most) = settled_draft(shape, size, density, draft, &scene_of);
        assert!(
            (mean - draft).abs() <= 0.03 * draft,
            "a {shape} of density {density} floats at draft {mean:.5} m, not {draft} ± 3 %"
        );
        assert!(most < heave, "a {shape} still heaves at {most} m/s");
    }
}

/// A box dropped into the water (`drop_in`, 400 steps) falls faster than 1 m/s, stops above the
/// floor (its centre above −0.3 m) and ends floating near 0 (within 5 cm), the water's volume
/// changed by less than `volume` relative.
pub fn assert_dropped_box_floats(sim: &mut Simulation, volume: f64) {
    let (lowest, fastest, change, b) = drop_in(sim, 400);
    assert!(fastest < -1.0, "it never fell: {fastest} m/s");
    assert!(lowest > -0.3, "it sank to {lowest} m");
    assert!(
        b.position[2].abs() < 0.05,
        "it ends at {} m, not floating near 0",
        b.position[2]
    );
    assert!(change.abs() < volume, "the water changed by {change:.2e}");
}

/// A body dropped into the water, `steps` steps: its lowest centre (m), fastest fall (m/s), the
/// water's volume change relative to the start, and its last sample.
pub fn drop_in(sim: &mut Simulation, steps: u64) -> (f64, f64, f64, shoal::BodySample) {
    let before = water_volume(sim);
    let rows = trajectory(sim, steps);
    let lowest = rows.iter().map(|r| r[0].position[2]).fold(f64::MAX, f64::min);
    let fastest = rows.iter().map(|r| r[0].velocity[2]).fold(0.0, f64::min);
    let change = water_volume(sim) / before - 1.0;
    let b = rows.last().unwrap()[0];
    println!(
        "lowest centre {lowest:.3} m, fastest fall {fastest:.2} m/s, end centre {:.3} m, volume change {change:.2e}",
        b.position[2]
    );
    (lowest, fastest, change, b)
}

/// The largest gaps between two runs' first body, step by step: position (m), orientation
/// (quaternion components), velocity (m/s).
pub fn trajectory_gaps(a: &[Vec<shoal::BodySample>], b: &[Vec<shoal::BodySample>]) -> [f64; 3] {
    let worst = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
    let mut gaps = [0.0f64; 3];
    for (c, g) in a.iter().zip(b) {
        let (c, g) = (c[0], g[0]);
        gaps[0] = gaps[0].max(worst(&c.position, &g.position));
        gaps[1] = gaps[1].max(worst(&c.orientation, &g.orientation));
        gaps[2] = gaps[2].max(worst(&c.velocity, &g.velocity));
    }
    gaps
}

/// A body's run of `steps` steps on the twin, the fast path and the GPU twice: the fast path's
/// bodies and surface are the twin's bits, a GPU rerun the GPU's. Returns the GPU's largest gaps
/// from the fast path (position m, orientation, velocity m/s) and the first body's fastest fall
/// (m/s), printed.
pub fn bodies_on_every_backend(s: &Scene, steps: u64) -> ([f64; 3], f64) {
    let mut runs: Vec<Vec<Vec<shoal::BodySample>>> = Vec::new();
    let mut surfaces = Vec::new();
    for backend in [Backend::Reference, Backend::Cpu, Backend::Gpu, Backend::Gpu] {
        let mut sim = simulation(s, backend);
        runs.push(trajectory(&mut sim, steps));
        surfaces.push(sim.eta().unwrap());
    }
    assert_eq!(runs[0], runs[1], "the fast path's bodies");
    assert_eq!(surfaces[0], surfaces[1], "the fast path's surface");
    assert_eq!(runs[2], runs[3], "a GPU rerun differs");
    let [dp, dq, dv] = trajectory_gaps(&runs[1], &runs[2]);
    let fall = runs[1].iter().map(|r| r[0].velocity[2]).fold(0.0, f64::min);
    println!("GPU vs CPU over {steps} steps: {dp:.2e} m, {dq:.2e}, {dv:.2e} m/s (fastest fall {fall:.2} m/s)");
    ([dp, dq, dv], fall)
}

/// A run resumed from a checkpoint at `half` steps ends on the bodies and surface of a straight
/// run of twice as many, on both backends.
pub fn assert_bodies_resume(s: &Scene, half: u64, dir: &Path) {
    for backend in BOTH {
        let (mut again, mut straight) = resumed_and_straight(s, backend, half, dir);
        assert_eq!(again.bodies(), straight.bodies(), "{backend:?}: the bodies");
        assert_eq!(
            again.eta().unwrap(),
            straight.eta().unwrap(),
            "{backend:?}: the surface"
        );
    }
}

/// A log set down in a current of `u` m/s along x at y = `y`: after `steps` steps on the CPU it
/// moves with the current within `share` of it, straight down its line (within 1 cm, 1 cm/s
/// across), and has gone past `past` m.
pub fn assert_drifts(sim: &mut Simulation, steps: u64, (u, y, share, past): (f64, f64, f64, f64)) {
    let rows = trajectory(sim, steps);
    let b = rows.last().unwrap()[0];
    println!(
        "after {steps} steps: at x {:.3} m, moving {:.4} m/s along x, {:.4} across",
        b.position[0], b.velocity[0], b.velocity[1]
    );
    assert!(
        (b.velocity[0] - u).abs() < share * u,
        "it drifts at {} m/s",
        b.velocity[0]
    );
    assert!(
        b.velocity[1].abs() < 0.01 && (b.position[1] - y).abs() < 0.01,
        "it left its line: {b:?}"
    );
    assert!(b.position[0] > past, "it went only to {}", b.position[0]);
}

/// The water in a run's surface, m³ (a body's volume in its columns left out).
pub fn water_volume(sim: &mut Simulation) -> f64 {
    let surface = sim.surface().unwrap();
    sim.stats(&surface).volume
}

/// Largest |a − b| of two fields.
pub fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
}

/// A run's surfaces on the twin, the fast path and the GPU, in that order: the fast path's are
/// the twin's bits, the GPU's within `tolerance` m of them.
pub fn assert_backends_agree(surfaces: &[Vec<f64>], tolerance: f64, what: &str) {
    assert_eq!(surfaces[0], surfaces[1], "{what}: the fast path left the twin's bits");
    let diff = max_diff(&surfaces[2], &surfaces[0]);
    eprintln!("{what}: GPU vs twin {diff:.2e} m");
    assert!(diff < tolerance, "{what}: GPU and twin differ by {diff} m");
}

/// The air-pressure tests' pool: 16 × 16 m, 1 m deep (dx = 0.5 m), flat and at rest, under a
/// Gaussian low of −500 Pa (σ = 3 m) at its centre, damped (τ = 0.02 a step) so that it settles
/// within a minute; `physics` lines (the model) after `[physics]`, `extra` tables after them.
pub fn pool_under_a_low(physics: &str, extra: &str) -> Scene {
    scene_in(
        Path::new("."),
        &format!(
            "[grid]\nnx = 32\nny = 32\ndx = 0.5\n[time]\ndt = 0.05\n[physics]\n{physics}\ndamping = 0.02\n\
             {extra}[terrain]\nflat = -1.0\n[water]\nlevel = 0.0\n\
             [[pressure]]\nshape = \"gaussian\"\nx = 8.0\ny = 8.0\nradius = 3.0\nstrength = -500.0\n"
        ),
    )
}

/// How `surface` (absolute, the low's pool) stands against the inverse barometer: its rise from
/// the corner to the centre over the low's head there, less 1, and the spread of h + a (m), which
/// is 0 at rest.
pub fn against_the_barometer(surface: &[f64]) -> (f64, f64) {
    // The low's head at cell (i, j), m (negative), ρ·g at the scenes' defaults.
    let head = |i: usize, j: usize| {
        let (x, y) = (0.5 * (i as f64 + 0.5), 0.5 * (j as f64 + 0.5));
        -500.0 / (1000.0 * 9.81) * (-((x - 8.0).powi(2) + (y - 8.0).powi(2)) / 18.0).exp()
    };
    let (lo, hi) = surface
        .iter()
        .enumerate()
        .map(|(c, h)| h + head(c % 32, c / 32))
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let rise = surface[16 * 32 + 16] - surface[0];
    (rise / (head(0, 0) - head(16, 16)) - 1.0, hi - lo)
}

/// The river sides' test channel: 4 × 1 m, 0.3 m deep, walls along it, `model_lines` after
/// `[physics]`, `sides` in `[boundary]`, a discharge of 0.02 m²/s and a stage at 0.05 m for
/// whichever side asks, and a gauge at its middle.
pub fn river_channel(model_lines: &str, sides: &str) -> String {
    format!(
        "[grid]\nnx = 40\nny = 10\ndx = 0.1\n[time]\ndt = 0.01\n[physics]\n{model_lines}\n[terrain]\nflat = -0.3\n\
         [water]\nlevel = 0.0\n[boundary]\n{sides}\n[boundary.discharge]\nq = 0.02\n[boundary.stage]\nlevel = 0.05\n\
         [[output.probe]]\nname = \"middle\"\nx = 2.0\ny = 0.5\n"
    )
}

/// A 2 m sea at the still level west of a 1:10 beach, and up the beach a pond behind a wall 1.2 m
/// above it, on a 40 × 8 grid of 1 m cells: a lake at rest that must stay at rest whatever the
/// sides (the shorelines' and the pipes' ghost sides on a bank). Writes its start, `h0.npy`, into
/// `dir`; returns the scene's `[grid]`, `[terrain]` and `[water]` tables (`[time]`, `[physics]`
/// and `[boundary]` are the caller's). The sea's 20 columns and the pond's 5 are wet, 8 rows each.
pub fn sea_and_pond_on_a_bank(dir: &Path) -> String {
    let (nx, ny) = (40usize, 8usize);
    let ground = |i: usize| if i == 26 { 1.5 } else { -2.0 + 0.1 * (i as f64 + 0.5) };
    write_npy(dir, "h0.npy", ny, nx, |i, _| {
        let b = ground(i);
        if b < 0.0 {
            0.0
        } else if i >= 27 && b < 1.2 {
            1.2
        } else {
            // Dry: below the ground, which the start takes as the ground itself.
            b - 1.0
        }
    });
    format!(
        "[grid]\nnx = {nx}\nny = {ny}\ndx = 1.0\n[terrain]\nslope = {{ base = -2.0, grad = [0.1, 0.0] }}\n\
         [[terrain.box]]\nx0 = 26.0\ny0 = 0.0\nx1 = 27.0\ny1 = 8.0\ntop = 1.5\n[water]\nlevel = 0.0\nnpy = \"h0.npy\"\n"
    )
}
