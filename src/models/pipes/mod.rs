//! Seed 004's virtual-pipe columns (after Mould & Yang) with their spray: each column of the grid
//! a stack of open spans between solids, water counted in whole units, pipes between neighbours.
//!
//! - `columns.rs`: the columns as a scene builds them, and the uniforms of `wgsl/pipes.wgsl`;
//! - `spray.rs`: the particle and the spray's uniforms (the Navier-Stokes layer's spray reuses
//!   the particle);
//! - `cpu/`, `gpu/`, `wgsl/`: the passes, twin by twin (`pipes`, `pipe_rain`, `spray`) and each
//!   backend's solver (`pipe_solver.rs`).

pub mod columns;
pub mod cpu;
pub mod gpu;
pub mod spray;
pub mod state;
