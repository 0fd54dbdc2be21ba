//! Seed 003's Navier-Stokes layer (Foster & Metaxas): a 3D MAC grid under the height field,
//! marker particles for 2D runs, its own spray and foam, and bodies that its pressure moves.
//!
//! - `setup.rs`: the layer as a scene builds it (the grid over the terrain, the height field);
//! - `forcing.rs`: the inflow, outflow and surface pressure per substep, evaluated on the host;
//! - `spray.rs`: the uniforms of `wgsl/ns_spray.wgsl`;
//! - `cpu/`, `fast/`, `gpu/`, `wgsl/`: the passes (`navier_stokes`, `ns_surface`, `ns_markers`,
//!   `ns_spray`, `ns_bodies`) and each backend's solver (`ns_solver.rs`).

pub mod cpu;
pub mod fast;
pub mod forcing;
pub mod gpu;
pub mod setup;
pub mod spray;
pub mod state;
