//! The shallow-water model's CPU twin (`shallow_water.rs`, the numerics) and its backend
//! (`sw_solver.rs`), which runs the twin or the fast path; `sw_feed.rs` the water the scene feeds it,
//! `feeding.rs` one step of it on either CPU backend.
pub mod feeding;
pub mod shallow_water;
pub mod sw_bodies;
pub mod sw_feed;
pub mod sw_maps;
pub mod sw_solver;
