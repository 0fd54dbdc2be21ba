//! Seed 004's virtual-pipe columns (after Mould & Yang) with their spray: each column of the grid
//! a stack of open spans between solids, water counted in whole units, pipes between neighbours.
//!
//! - `columns.rs`: the columns as a scene builds them, and the uniforms of `wgsl/pipes.wgsl`,
//!   which `params.rs` fills from the scene, the columns and the spray;
//! - `spray.rs`: the particle and the spray's uniforms (the Navier-Stokes layer's spray reuses
//!   the particle);
//! - `stencil.rs`: the nine-point stencil's directions and neighbours, and the start's velocities
//!   on the pipes; `edit.rs`: edits carried onto rebuilt columns in whole units;
//! - `cpu/`, `gpu/`, `wgsl/`: the passes, twin by twin (`pipes`, `pipe_rain`, `pipe_edits`, `spray`) and each
//!   backend's solver (`pipe_solver.rs`).

pub mod bodies;
pub mod columns;
pub mod cpu;
pub mod edit;
pub mod gpu;
pub mod params;
pub mod spray;
pub mod state;
pub mod stencil;

use crate::models::{Feature, Model};

/// The pipes as the engine sees them. `physics.damping` and its map slow the pipes' velocities
/// (each column's share in its feed, `columns::Columns::feed`); `[[pressure]]` pushes the top
/// cells (`pressure.wgsl` writes each step's head per column, `pipes.wgsl` adds g·Δ of it to a
/// pipe's push); `[friction] map` gives each pipe the mean of its columns' n². An absorbing side
/// is Flather's radiation condition (`pipes.wgsl` `radiated`); wave makers and river sides come
/// as per-step entries (`pipe_rain`), as on the height field. Bodies press their columns' top
/// cells with their weight through the air's head (`pipe_bodies.wgsl`), as on the shallow-water
/// model. Edits: a `Simulation` edits the terrain under the solids and carries the water onto the
/// columns it builds (`edit`); `Water` edits its buffers in place within a frame, in whole units
/// (`pipe_edits.wgsl`). Ghost sides stand their ghost at the sea's mean surface, reduced each substep
/// on the device (`sea_sums`, `sea_level`), or by the edge's slope (`ghost_level`). "Regions" are ruled out (the columns conserve
/// by construction). Height queries read each column's
/// surface over its top floor. Every pipeline of theirs, the spray's included, binds at
/// most 10 storage buffers (`tests/suite/models.rs` builds them on a device limited to 10).
pub struct Pipes;

impl Model for Pipes {
    fn key(&self) -> &'static str {
        "pipes"
    }
    fn name(&self) -> &'static str {
        "pipes model"
    }
    fn features(&self) -> &'static [Feature] {
        use Feature::*;
        &[
            Bodies,
            Sources,
            Hydrographs,
            HeldSources,
            Rain,
            Rainfall,
            Infiltration,
            AirPressure,
            Damping,
            DampingMap,
            WaveMakers,
            OpenSides,
            GhostSides,
            RiverSides,
            Friction,
            FrictionMap,
            Velocities,
            FloodMaps,
            Spray,
            Overhangs,
            Edits,
            InPlaceEdits,
            Queries,
            Embedding,
            Browser,
            Probes,
            Sections,
            Checkpoints,
            FastCpu,
        ]
    }
    fn ruled_out(&self) -> &'static [(Feature, &'static str)] {
        &[
            (Feature::ImplicitSolver, super::ADI_IS_KASS_AND_MILLERS),
            (
                Feature::Regions,
                "the columns count whole units, conserved by construction: there is no correction to share",
            ),
        ]
    }
}
