//! The pipes' GPU passes and their solver.

pub mod pipe_bodies;
pub mod pipe_edits;
pub mod pipe_rain;
pub mod pipe_solver;
pub mod pipes;
pub mod spray;
