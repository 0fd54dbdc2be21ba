//! The kernels and host structs behind the front door, for Shoal's own tests and benches (pass
//! against pass, GPU against CPU). Not a stable API: embedders use [`crate::Water`].

/// CPU twins of the passes.
pub mod cpu {
    pub use crate::cpu::adi::{cyclic_factor, sweep_x, sweep_y, thomas};
    pub use crate::cpu::caustics::caustics;
    pub use crate::cpu::coupling::{solve, SolveBox, Vectors};
    pub use crate::cpu::edit::apply_edits;
    pub use crate::cpu::explicit::Level;
    pub use crate::cpu::query::query;
    pub use crate::cpu::surface::{decay, surface};
    pub use crate::cpu::CpuSolver;
}

/// GPU passes and their host structs.
pub mod gpu {
    pub use crate::gpu::adi::Adi;
    pub use crate::gpu::context::adapter_line;
    pub use crate::gpu::level::LevelBindings;
    pub use crate::gpu::shaders::ALL as SHADERS;
    pub use crate::gpu::state::GpuState;
    pub use crate::gpu::{GpuContext, GpuSolver};
}

pub use crate::bodies::{BodyParams, Cover, COUPLING_JACOBI, COUPLING_PCG, SHAPE_BOX, SHAPE_ELLIPSOID, TAGGED};
pub use crate::edit::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};
pub use crate::params::{Params, Totals};
pub use crate::query::RawSample;
pub use crate::rain::RainChunk;

/// What a scene's drops, hydrographs and rainfall add during steps `first + 1 ..= first + steps`
/// (`crate::feeds`), as a chunk hands it to the backends.
pub fn feeds_chunk(scene: &crate::scene::Scene, first: u64, steps: u32) -> crate::error::Result<RainChunk> {
    let fields = crate::scene::InitialFields::build(scene)?;
    Ok(crate::feeds::Feeds::new(scene, &fields)?.chunk(first, steps))
}
pub use crate::solver::{Setup, Solver};
