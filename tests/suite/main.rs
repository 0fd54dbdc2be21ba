//! Shoal's integration tests, one crate so wgpu links once. CPU-only tests run in parallel; every
//! test that touches a GPU device takes `common::gpu()` (or `common::hold_gpu()`), which lets one
//! such test run at a time and fails the run if it holds the device past a time limit.
//!
//! CI runs the whole crate on lavapipe and, on llvmpipe GL, the GPU-vs-CPU set `.ci/run` lists.
//! Set `SHOAL_GPU_HOLDS=FILE` to log how long each GPU test held the device (CI prints the
//! longest): those holds, one at a time, are the suite's critical path.

mod adi;
mod architecture;
mod bodies;
mod cli;
mod common;
mod costs;
mod damping;
mod divergence;
mod docs;
mod ea_benchmarks;
mod edits;
mod embed;
mod fast_cpu;
mod forcing;
mod fuzz;
mod geotiff;
mod gpu_vs_cpu;
mod infiltration;
mod infiltration_models;
mod limits;
mod makers;
mod models;
mod navier_stokes;
mod netcdf;
mod ns_bodies;
mod ns_edits;
mod ns_feeds;
mod ns_friction;
mod ns_markers;
mod ns_pressure;
mod ns_spray;
mod ns_velocity;
mod ns_water;
mod physics;
mod pipe_bodies;
mod pipe_edits;
mod pipe_friction;
mod pipe_pressure;
mod pipe_sides;
mod pipe_velocity;
mod pipe_weir;
mod pipes;
mod query;
mod regions;
mod render_example;
mod scene_files;
mod sections;
mod shaders;
mod shallow_water;
mod shorelines;
mod stops;
mod summary;
mod sw_bodies;
mod sw_embed;
mod sw_feeds;
mod sw_pressure;
mod volume;
mod web_limits;
