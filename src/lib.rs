//! Shoal: a GPU compute-shader engine for height-field water on wgpu.
//!
//! Data flows one way: scene file → validated [`Scene`] → state (GPU buffers or CPU arrays) → the
//! passes of a step → outputs. Each WGSL pass in `wgsl/` has a Rust host struct in [`gpu`] and a
//! CPU twin of the same name in [`cpu`].
//!
//! ```no_run
//! use shoal::{Backend, Scene, Simulation};
//! let scene = Scene::builtin_default();
//! let mut sim = Simulation::new(&scene, Backend::Gpu)?;
//! sim.step(100)?;
//! let h = sim.surface()?; // absolute heights, row-major [ny, nx]
//! # Ok::<(), shoal::Error>(())
//! ```

pub mod batch;
pub mod bodies;
pub mod checkpoint;
pub mod compare;
pub mod cpu;
pub mod edit;
pub mod error;
pub mod gpu;
pub mod io;
pub mod params;
pub mod placement;
pub mod rain;
pub mod run;
pub mod scene;
pub mod schedule;
pub mod simulation;
pub mod solver;
pub mod state_table;
pub mod water;
pub mod wgsl;

pub use error::{Error, Result};
pub use scene::Scene;
pub use simulation::{Backend, FieldStats, Simulation};
pub use water::{Water, WaterOptions};
