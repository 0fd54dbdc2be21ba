//! Shoal: a GPU compute-shader engine for height-field water on wgpu.
//!
//! Data flows one way: scene file → validated [`Scene`] → state (GPU buffers or CPU arrays) → the
//! passes of a step → outputs. Every WGSL pass in `wgsl/` has a CPU twin of the same name, so
//! [`Backend::Gpu`] and [`Backend::Cpu`] can be compared cell by cell ([`compare`]).
//!
//! Three ways in:
//! - [`Simulation`]: step a scene on either backend and read the surface back (tests, scripts).
//! - [`Water`]: embed the water in your own renderer on your own wgpu `Device` and `Queue`; the
//!   state stays on the GPU and you bind its buffers ([`SurfaceBuffers`]).
//! - [`run`]: what `shoal run` does, outputs and all (`h_*.npy`, `stats.csv`, …).
//!
//! ```no_run
//! use shoal::{Backend, Scene, Simulation};
//! let scene = Scene::builtin_default();
//! let mut sim = Simulation::new(&scene, Backend::Gpu)?;
//! sim.step(100)?;
//! let h = sim.surface()?; // absolute heights, row-major [ny, nx]
//! # Ok::<(), shoal::Error>(())
//! ```
#![warn(missing_docs)]

pub mod batch;
pub mod compare;
mod engine;
mod error;
pub mod io;
mod models;
pub mod query;
pub mod run;
pub mod scene;
mod simulation;
pub mod summary;
mod water;
mod wgsl;

#[doc(hidden)]
pub mod low_level;

pub use engine::bodies::SolveReport;
pub use engine::bodies::{BodySample, BodyState};
pub use engine::checkpoint::Checkpoint;
#[cfg(target_arch = "wasm32")]
pub use engine::gpu::context::take_web_errors;
pub use engine::gpu::readback;
pub use engine::gpu::surface::SurfaceBuffers;
pub use error::{Error, Result};
pub use models::navier_stokes::state::LayerFields;
pub use models::pipes::spray::{Particle, SprayReport};
pub use query::{QueryId, WaterSample};
pub use scene::Scene;
pub use simulation::{Backend, Checked, FieldStats, Simulation};
pub use water::{Water, WaterOptions};
/// The wgpu Shoal is built on, for embedders: take `Device`, `Queue` and `CommandEncoder` from
/// here and they are the types `Water` takes, whatever version the host's own `Cargo.toml` names.
pub use wgpu;

/// What each water model takes, as `shoal info --models` prints it: a row per feature (bodies,
/// each forcing, sides, flood maps, edits, the browser…), a column per `physics.model`.
pub fn models_table() -> String {
    models::table()
}

/// The models the browser build cannot run, in words (the web page names them to a visitor who
/// asks for a scene it has no preset of).
pub fn models_off_the_browser() -> Vec<&'static str> {
    models::ALL
        .iter()
        .filter(|m| !m.takes(models::Feature::Browser))
        .map(|m| m.name())
        .collect()
}

/// The adapter `Backend::Gpu` picks on this machine, in words (what `shoal info` prints).
pub fn describe_adapter() -> Result<String> {
    Ok(engine::gpu::GpuContext::new()?.describe())
}

/// Whether `scene` fits the GPU adapter a run would take on this machine (what `shoal validate`
/// says per backend): the adapter in words, or the error a GPU run would meet.
pub fn gpu_fit(scene: &Scene) -> Result<String> {
    engine::gpu::context::gpu_fit(scene.grid.nx, scene.grid.ny)
}

/// The backend a run takes when none is asked for, and why: the GPU, unless the only adapter
/// wgpu finds is a software rasteriser (llvmpipe, lavapipe, SwiftShader, WARP) or there is none,
/// where the fast CPU backend is several times quicker for the same bits. Looks at the adapter
/// only: the device is opened once, by the run.
pub fn choose_backend() -> (Backend, String) {
    let threads = rayon::current_num_threads();
    match engine::gpu::context::preferred_adapter() {
        Ok(info) if info.device_type == wgpu::DeviceType::Cpu => (
            Backend::Cpu,
            format!(
                "the only GPU adapter is a software rasteriser ({}): running on the CPU backend \
                 ({threads} threads); --backend gpu runs on it anyway",
                info.name
            ),
        ),
        Ok(info) => (
            Backend::Gpu,
            format!("GPU adapter: {}", engine::gpu::context::adapter_line(&info)),
        ),
        Err(e) => (
            Backend::Cpu,
            format!("no GPU adapter ({e}): running on the CPU backend ({threads} threads)"),
        ),
    }
}
