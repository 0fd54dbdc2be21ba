//! Helpers shared by the integration tests: one GPU device per test binary, scenes from text,
//! and runs on either backend.
#![allow(dead_code)]

use shoal::gpu::GpuContext;
use shoal::{Backend, Scene, Simulation};
use std::path::Path;
use std::sync::OnceLock;

/// The test binary's GPU (wgpu's env vars pick it: CI runs the suite with WGPU_BACKEND=gl and
/// =vulkan). A machine with no adapter at all fails here with the install hint.
pub fn gpu() -> &'static GpuContext {
    static GPU: OnceLock<GpuContext> = OnceLock::new();
    GPU.get_or_init(|| GpuContext::new().unwrap_or_else(|e| panic!("GPU tests need an adapter: {e}")))
}

/// A scene from TOML text; relative paths resolve against `dir`.
pub fn scene_in(dir: &Path, text: &str) -> Scene {
    Scene::parse(text, Path::new("<test scene>"), dir).unwrap_or_else(|e| panic!("test scene invalid: {e}"))
}

pub fn scene(text: &str) -> Scene {
    scene_in(Path::new("."), text)
}

/// Builds `scene` on the shared GPU or on the CPU.
pub fn simulation(scene: &Scene, backend: Backend) -> Simulation {
    match backend {
        Backend::Gpu => Simulation::from_device(scene, &gpu().device, &gpu().queue),
        Backend::Cpu => Simulation::new(scene, Backend::Cpu),
    }
    .unwrap_or_else(|e| panic!("building the simulation failed: {e}"))
}

pub const BOTH: [Backend; 2] = [Backend::Cpu, Backend::Gpu];

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
