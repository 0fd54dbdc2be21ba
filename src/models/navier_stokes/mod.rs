//! Seed 003's Navier-Stokes layer (Foster & Metaxas): a 3D MAC grid under the height field,
//! marker particles for 2D runs, its own spray and foam, and bodies that its pressure moves.
//!
//! - `setup.rs`: the layer as a scene builds it (the grid over the terrain, the height field);
//! - `forcing.rs`: the inflow, outflow and surface pressure per substep, evaluated on the host;
//! - `feed.rs`: sources, rain and rainfall on its height field (the shallow-water model's feed);
//! - `spray.rs`: the uniforms of `wgsl/ns_spray.wgsl`;
//! - `cpu/`, `fast/`, `gpu/`, `wgsl/`: the passes (`navier_stokes`, `ns_surface`, `ns_markers`,
//!   `ns_spray`, `ns_bodies`) and each backend's solver (`ns_solver.rs`).

pub mod cpu;
pub mod fast;
pub mod feed;
pub mod forcing;
pub mod gpu;
pub mod setup;
pub mod spray;
pub mod state;

use crate::models::{Feature, Model};

/// The layer as the engine sees it. `physics.damping` is a drag on its tentative velocities
/// (`cpu::navier_stokes` `dragged`), per column under `physics.damping_map`; Manning's friction
/// (`physics.manning`, `[friction]`) sets each column's drag from its depth-averaged flow every
/// substep (`manning_rate`), the depth-averaged law on every height of the column. Sources, drains, held heights, hydrographs, drops and
/// rainfall fall on its height field after the substeps by the shallow-water model's feed
/// (`sw_feed.wgsl`, `feed.rs`), and the volume then follows what they gave, uncorrected. Air
/// pressure adds its head to what the columns apply at the surface; edits rebuild the layer on
/// the edited ground from the carried water (`simulation/layer_edits.rs`); `Water` records its
/// chunks into a host's encoder, its substeps following the flow from stats mapped without a
/// stall (`water/navier_stokes.rs`). Not built yet: sides other than walls (its inflow and
/// outflow are its own), "regions" and in-place edits in `Water`. Wave makers are ruled out:
/// its inflow side makes its waves.
/// `[infiltration]` soaks its height field in the feed (`feed.rs`).
pub struct NavierStokes;

/// Whether `scene`'s layer is fed on its height field (`feed.rs`): steady sources or drains,
/// held heights, hydrographs, drops, rainfall, or the ground's `[infiltration]`.
pub fn fed(scene: &crate::scene::Scene) -> bool {
    scene.physics.model == crate::scene::WaterModel::NavierStokes
        && (scene.feeds_water() || scene.infiltration.is_some())
}

impl Model for NavierStokes {
    fn key(&self) -> &'static str {
        "navier-stokes"
    }
    fn name(&self) -> &'static str {
        "Navier-Stokes layer"
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
            Friction,
            FrictionMap,
            Velocities,
            FloodMaps,
            Spray,
            Edits,
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
                Feature::WaveMakers,
                "the layer's waves come in through its own inflow side ([navier_stokes.inflow]: a velocity, \
                 a sine or a table), and a maker's surface signal needs a side that absorbs what comes back, \
                 which the layer has not",
            ),
        ]
    }
}
