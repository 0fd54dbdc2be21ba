//! Kass & Miller's height field (seed 001): the explicit step (eq. 17 with the face depths of §4)
//! and the implicit one by alternating directions (§4–5). Its level (eta and the per-step change,
//! ping-ponged) is the engine's own (`engine::gpu::level`, `engine/wgsl/level.wgsl`), which the
//! volume correction, the bodies and the other models' surfaces share.
//!
//! - `cpu/`: the twins (`explicit.rs`, `adi.rs`) that define the numerics;
//! - `fast/`: the fast CPU backend's explicit and ADI steps, and the explicit step fused with the
//!   volume correction (`fused.rs`), bit for bit the twins';
//! - `gpu/`, `wgsl/`: the passes (`explicit.wgsl`, `adi.wgsl`).

pub mod cpu;
pub mod fast;
pub mod gpu;

use crate::models::{Feature, Model};

/// The height field as the engine sees it: it takes every feature but the pipes' own
/// (overhangs) and spray. Held heights set their cells in the volume pass's `rain`, booked with
/// the drains' shortfall; a `"discharge"` or `"stage"` side is a wall whose edge cells the feeds
/// fill or hold, a `"free"` one Mur's absorbing side (`BoundaryMode::on_height_field`).
pub struct HeightField;

impl Model for HeightField {
    fn key(&self) -> &'static str {
        "height-field"
    }
    fn name(&self) -> &'static str {
        "height field"
    }
    fn features(&self) -> &'static [Feature] {
        use Feature::*;
        &[
            ImplicitSolver,
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
            Regions,
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
        const NO_VELOCITY: &str = "Kass & Miller's height field carries no velocity for Manning's law to slow: \
                                   physics.damping is its drag";
        &[
            (Friction, NO_VELOCITY),
            (FrictionMap, NO_VELOCITY),
            (
                Velocities,
                "Kass & Miller's equations carry no velocity: the surface and its change are the state",
            ),
            (
                Overhangs,
                "a height field holds one surface per column, so no water under a solid",
            ),
        ]
    }
}
