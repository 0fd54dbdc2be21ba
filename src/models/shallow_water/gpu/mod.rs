//! The shallow-water model on the GPU: its pass (`shallow_water.rs`, after
//! `wgsl/shallow_water.wgsl`) its feed (`sw_feed.rs`, after
//! `wgsl/sw_feed.wgsl`) and its backend (`sw_solver.rs`).
pub mod shallow_water;
pub mod sw_feed;
pub mod sw_maps;
pub mod sw_solver;
