//! The shallow-water model on the GPU: its pass (`shallow_water.rs`, after
//! `wgsl/shallow_water.wgsl`), its feed (`sw_feed.rs`), its speed and hazard maps (`sw_maps.rs`),
//! what `Water` adds inside a host's frame (`sw_water.rs`: edits, the velocity field) and its
//! backend (`sw_solver.rs`), each after the WGSL file of its name.
pub mod shallow_water;
pub mod sw_bodies;
pub mod sw_feed;
pub mod sw_maps;
pub mod sw_solver;
pub mod sw_water;
