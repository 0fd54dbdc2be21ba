//! The kernels and host structs behind the front door, for Shoal's own tests and benches (pass
//! against pass, GPU against CPU). Not a stable API: embedders use [`crate::Water`].

/// CPU twins of the passes.
pub mod cpu {
    pub use crate::engine::cpu::caustics::caustics;
    pub use crate::engine::cpu::coupling::{solve, SolveBox, Vectors};
    pub use crate::engine::cpu::edit::apply_edits;
    pub use crate::engine::cpu::query::query;
    pub use crate::engine::cpu::surface::{decay, surface};
    pub use crate::engine::cpu::CpuSolver;
    pub use crate::engine::fast::{split_small_grids, SmallGridSplit, CELLS_PER_TASK};
    pub use crate::models::height_field::cpu::adi::{cyclic_factor, sweep_x, sweep_y, thomas};
    pub use crate::models::height_field::cpu::explicit::Level;
}

/// The pipes' in-place edits (`Water::brush`, `Water::disturb`): the pass against its twin on
/// columns a test builds.
pub mod pipes {
    pub use crate::models::pipes::columns::SKY;
    pub use crate::models::pipes::cpu::pipe_edits::{apply_edits, EDIT_RANGE};
    pub use crate::models::pipes::edit::PipeEditParams;
    pub use crate::models::pipes::gpu::pipe_edits::run_once;
    pub use crate::models::pipes::state::PipeState;
}

/// The water models' declared features (`shoal info --models`).
pub mod models {
    pub use crate::models::{of, refusal, Feature, Model, ALL};
}

/// GPU passes and their host structs.
pub mod gpu {
    pub use crate::engine::gpu::context::adapter_line;
    pub use crate::engine::gpu::level::LevelBindings;
    pub use crate::engine::gpu::shaders::ALL as SHADERS;
    pub use crate::engine::gpu::state::GpuState;
    pub use crate::engine::gpu::{GpuContext, GpuSolver};
    pub use crate::models::height_field::gpu::adi::Adi;
    pub use crate::models::height_field::gpu::explicit::{force_step_layout, StepLayout};
}

pub use crate::engine::bodies::{
    BodyParams, BodyState, Cover, COUPLING_JACOBI, COUPLING_PCG, SHAPE_BOX, SHAPE_ELLIPSOID, TAGGED,
};
pub use crate::engine::edit::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};
pub use crate::engine::params::{Params, Totals};
pub use crate::engine::rain::RainChunk;
pub use crate::query::RawSample;

/// What a scene's drops, hydrographs and rainfall add during steps `first + 1 ..= first + steps`
/// (`crate::engine::feeds`), as a chunk hands it to the backends.
pub fn feeds_chunk(scene: &crate::scene::Scene, first: u64, steps: u32) -> crate::error::Result<RainChunk> {
    let fields = crate::scene::InitialFields::build(scene)?;
    Ok(crate::engine::feeds::Feeds::new(scene, &fields)?.chunk(first, steps))
}
pub use crate::engine::solver::{Setup, Solver};
