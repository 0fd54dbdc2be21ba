//! The shallow-water model's CPU twin (`shallow_water.rs`, the numerics) and its backend
//! (`sw_solver.rs`), which runs the twin or the fast path.
pub mod shallow_water;
pub mod sw_solver;
