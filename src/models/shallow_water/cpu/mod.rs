//! The shallow-water model's CPU twin (`shallow_water.rs`, the numerics) and its backend
//! (`sw_solver.rs`), which runs the twin or the fast path; `sw_feed.rs` the water the scene feeds it.
pub mod shallow_water;
pub mod sw_bodies;
pub mod sw_feed;
pub mod sw_maps;
pub mod sw_solver;
