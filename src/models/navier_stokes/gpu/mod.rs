//! The Navier-Stokes layer's GPU passes and their solver.

pub mod buffers;
pub mod feed;
pub mod navier_stokes;
pub mod ns_bodies;
pub mod ns_markers;
pub mod ns_solver;
pub mod ns_spray;
pub mod ns_surface;
