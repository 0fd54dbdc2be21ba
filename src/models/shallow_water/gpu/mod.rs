//! The shallow-water model on the GPU: its pass (`shallow_water.rs`, after
//! `wgsl/shallow_water.wgsl`) and its backend (`sw_solver.rs`).
pub mod shallow_water;
pub mod sw_solver;
