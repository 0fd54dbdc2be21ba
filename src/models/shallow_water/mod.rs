//! The nonlinear shallow-water equations: mass and both momentum components with advection, by a
//! well-balanced, positivity-preserving Godunov-type finite-volume scheme (hydrostatic
//! reconstruction, HLL, MUSCL, SSP-RK2) with Manning friction. The numerics are written down once,
//! in the twin `cpu/shallow_water.rs` (its header cites the papers); `wgsl/shallow_water.wgsl` is
//! their GPU pass and `fast/` their fast CPU path.
//!
//! - `setup.rs`: the uniforms, the film depth, the Courant rule;
//! - `state.rs`: the surface and discharges, both backends';
//! - `books.rs`: the volume target of a chunk the scene fed;
//! - `rivers.rs`: the discharge and stage sides' values over time;
//! - `cpu/sw_feed.rs` (twin), `gpu/sw_feed.rs`, `wgsl/sw_feed.wgsl`: rain, sources and makers;
//! - `cpu/sw_bodies.rs` (twin), `gpu/sw_bodies.rs`, `wgsl/sw_bodies.wgsl`: the bodies' draft as a
//!   pressure head on the water and the current they drift in;
//! - `cpu/`, `fast/`, `gpu/`, `wgsl/`: the passes, and each backend's solver (`sw_solver.rs`).

pub mod books;
pub mod cpu;
pub mod fast;
pub mod gpu;
pub mod rivers;
pub mod setup;
pub mod state;

use crate::models::{Feature, Model};

/// The shallow-water model as the engine sees it. Sources, drains, hydrographs, rain, rainfall
/// wave makers' line sources and held heights fall after the substeps (`sw_feed`); air pressure lifts surface
/// and ground alike in the stencil (`cpu::shallow_water::lift`); damping is a linear drag on the
/// discharges, implicit with Manning's (`setup::drag_rate`). `Water` runs it in a host's
/// frame (`src/water/shallow_water.rs`, with `gpu/sw_water.rs`'s edits and velocity field), and
/// so the browser: its pipelines bind at most 9 storage buffers, within the web's 10. Bodies
/// press on the water with their draft's head and drift with its current (`sw_bodies`). Not
/// built yet: spray; ghost sides, regions and overhangs are ruled out.
pub struct ShallowWater;

impl Model for ShallowWater {
    fn key(&self) -> &'static str {
        "shallow-water"
    }
    fn name(&self) -> &'static str {
        "shallow-water model"
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
            Friction,
            FrictionMap,
            Velocities,
            RiverSides,
            OpenSides,
            FloodMaps,
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
        use Feature::*;
        &[
            (ImplicitSolver, super::ADI_IS_KASS_AND_MILLERS),
            (
                GhostSides,
                "its \"free\" side is the zero-gradient (ghost-slope) condition on depth and discharge",
            ),
            (
                Regions,
                "its finite-volume fluxes conserve every body of water by construction: there is no correction to share",
            ),
            (Overhangs, "depth-averaged, it holds one water column per cell, so no water under a solid"),
        ]
    }
}
