//! Which features a scene asks of its water model, and the one refusal for a feature the model
//! does not declare (`crate::models`): the table `shoal info --models` prints is the one checked
//! here.

use super::Check;
use crate::error::Result;
use crate::models::{self, Feature};
use crate::scene::{BoundaryMode, Method, Scene, VolumeCorrection};

/// What `scene` asks for: each feature with the key that asks and the words for it, in the
/// order the keys are checked.
pub fn requests(scene: &Scene) -> Vec<(Feature, String, String)> {
    let mut out = Vec::new();
    let mut ask = |f: Feature, key: &str, what: &str| out.push((f, key.to_string(), what.to_string()));
    if scene.physics.solver == Method::Adi {
        ask(Feature::ImplicitSolver, "physics.solver", "solver = \"adi\"");
    }
    if !scene.bodies.is_empty() {
        ask(Feature::Bodies, "body[0].shape", "a rigid body");
    }
    for (k, s) in scene.sources.iter().enumerate() {
        // One of the three (validation refuses a source with two).
        if s.height.is_some() {
            ask(Feature::HeldSources, &format!("source[{k}].height"), "a held height");
        } else if s.hydrograph.is_some() {
            ask(Feature::Hydrographs, &format!("source[{k}].hydrograph"), "a hydrograph");
        } else {
            ask(Feature::Sources, &format!("source[{k}].x"), "a [[source]]");
        }
    }
    if scene.rain.is_some() {
        ask(Feature::Rain, "rain.rate", "[rain]");
    }
    if scene.rainfall.is_some() {
        ask(Feature::Rainfall, "rainfall.intensity", "[rainfall]");
    }
    if !scene.pressure.is_empty() {
        ask(Feature::AirPressure, "pressure[0].strength", "[[pressure]]");
    }
    if scene.physics.damping > 0.0 {
        ask(Feature::Damping, "physics.damping", "physics.damping");
    }
    if scene.physics.damping_map.is_some() {
        ask(Feature::DampingMap, "physics.damping_map", "physics.damping_map");
    }
    if scene.boundary.maker.is_some() {
        ask(Feature::WaveMakers, "boundary.maker", "a wave maker");
    }
    side_requests(scene, &mut ask);
    if scene.water.u_npy.is_some() {
        ask(Feature::Velocities, "water.u_npy", "water.u_npy");
    }
    if scene.water.v_npy.is_some() {
        ask(Feature::Velocities, "water.v_npy", "water.v_npy");
    }
    if scene.friction.is_some() {
        ask(Feature::FrictionMap, "friction.map", "[friction] map");
    }
    if scene.physics.manning != 0.0 {
        ask(Feature::Friction, "physics.manning", "physics.manning");
    }
    if scene.physics.volume_correction == VolumeCorrection::Regions {
        ask(Feature::Regions, "physics.volume_correction", "\"regions\"");
    }
    if scene.output.summary {
        ask(Feature::FloodMaps, "output.summary", "the flood maps");
    }
    if scene.spray.is_some() {
        ask(Feature::Spray, "spray.enabled", "[spray]");
    }
    if !scene.terrain.overhangs.is_empty() {
        ask(Feature::Overhangs, "terrain.overhang[0].x0", "an overhang");
    }
    if !scene.terrain.rocks.is_empty() {
        ask(Feature::Overhangs, "terrain.rock[0].x", "a rock");
    }
    if !scene.output.probes.is_empty() {
        ask(Feature::Probes, "output.probe[0].x", "a probe");
    }
    if scene.infiltration.is_some() {
        ask(Feature::Infiltration, "infiltration.model", "[infiltration]");
    }
    if !scene.output.sections.is_empty() {
        ask(Feature::Sections, "output.section[0].x0", "a discharge line");
    }
    out
}

/// What the scene's sides ask for, each named by its `boundary.` key.
fn side_requests(scene: &Scene, ask: &mut impl FnMut(Feature, &str, &str)) {
    let b = &scene.boundary;
    for (name, side) in [
        ("all", b.all),
        ("west", b.west),
        ("east", b.east),
        ("south", b.south),
        ("north", b.north),
    ] {
        let key = format!("boundary.{name}");
        match side {
            Some(BoundaryMode::Open | BoundaryMode::Periodic | BoundaryMode::Absorb) => {
                ask(Feature::OpenSides, &key, "an open, periodic or absorbing side")
            }
            Some(BoundaryMode::GhostMean | BoundaryMode::GhostSlope) => ask(Feature::GhostSides, &key, "a ghost side"),
            Some(BoundaryMode::Maker) => ask(Feature::WaveMakers, &key, "a \"maker\" side"),
            Some(BoundaryMode::Free) => ask(Feature::RiverSides, &key, "a \"free\" side"),
            Some(BoundaryMode::Discharge) => ask(Feature::RiverSides, &key, "a \"discharge\" side"),
            Some(BoundaryMode::Stage) => ask(Feature::RiverSides, &key, "a \"stage\" side"),
            Some(BoundaryMode::Reflect) | None => {}
        }
    }
}

impl Check<'_> {
    /// Every feature the scene asks for is one its model takes.
    pub(super) fn features(&self) -> Result<()> {
        let model = self.scene.physics.model;
        for (feature, key, what) in requests(self.scene) {
            if !models::of(model).takes(feature) {
                return self.fail(&key, models::refusal(model, feature, &what));
            }
        }
        Ok(())
    }
}
