//! The water models, a room each: what only that model has (its scene-derived setup, its state,
//! its CPU twin, its fast CPU path, its GPU passes and their WGSL). What every model uses lives in
//! `crate::engine`. A new model is a new folder here, a [`Model`] for it, and one line in
//! [`ALL`].
//!
//! Each model declares the features it takes ([`Feature`]): validation refuses a scene that asks
//! a model for one it does not declare, with one message naming both; the runtime calls (edits,
//! queries, `Water`) read the same answer; `shoal info --models` prints the table; and
//! `tests/suite/models.rs` runs every declared feature on every model and checks every
//! undeclared one is refused.

pub mod height_field;
pub mod navier_stokes;
pub mod pipes;
pub mod shallow_water;

use crate::scene::WaterModel;

/// What a scene or a caller may ask of a water model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// `physics.solver = "adi"`: Kass & Miller's implicit step.
    ImplicitSolver,
    /// `[[body]]`: rigid bodies floating on the water and moved by it.
    Bodies,
    /// `[[source]]` with a `rate`: sources and drains.
    Sources,
    /// `[[source]]` with a `hydrograph`: a rate over time.
    Hydrographs,
    /// `[[source]]` with a `height`: a source that holds its cells' level.
    HeldSources,
    /// `[rain]`: drops keyed by seed and step.
    Rain,
    /// `[rainfall]`: an intensity or a map of mm/h, steady or over time.
    Rainfall,
    /// `[infiltration]`: water the ground takes.
    Infiltration,
    /// `[[pressure]]`: air-pressure patches on the surface.
    AirPressure,
    /// `physics.damping`: Kass & Miller's τ (a drag on the velocities where the model has them).
    Damping,
    /// `physics.damping_map`: τ cell by cell.
    DampingMap,
    /// A `"maker"` side and `[boundary.maker]`: waves made at a side.
    WaveMakers,
    /// `"open"`, `"periodic"` and `"absorb"` sides.
    OpenSides,
    /// `"ghost-mean"` and `"ghost-slope"` sides.
    GhostSides,
    /// `"free"`, `"discharge"` and `"stage"` sides: a river's outflow, inflow and level.
    RiverSides,
    /// `physics.manning`: Manning friction.
    Friction,
    /// `[friction] map`: Manning's n per cell.
    FrictionMap,
    /// `[water] u_npy`, `v_npy` and `--velocity`: a depth-averaged velocity in and out.
    Velocities,
    /// `physics.volume_correction = "regions"`: each body of water keeps its own volume.
    Regions,
    /// `[output] summary`: the flood maps.
    FloodMaps,
    /// `[spray]`: particles thrown off breaking water.
    Spray,
    /// `[[terrain.overhang]]` and `[[terrain.rock]]`: solids with water under them.
    Overhangs,
    /// `Simulation::edit` and `set_ground` (and Python's `brush`, `disturb`, `set_ground`).
    Edits,
    /// `Water::brush` and `Water::disturb`: edits of the GPU buffers in place, within a frame.
    InPlaceEdits,
    /// Height queries (`Simulation::query`, `Water::query`).
    Queries,
    /// `Water`: the model recorded into a host renderer's encoder.
    Embedding,
    /// The browser build: every pass within WebGPU's 10 storage buffers a stage.
    Browser,
    /// `[[output.probe]]` gauges.
    Probes,
    /// `[[output.section]]` discharge lines.
    Sections,
    /// `--checkpoint-every`, `shoal resume`.
    Checkpoints,
    /// `--backend cpu`: the fast CPU backend, bit for bit the twin's.
    FastCpu,
}

impl Feature {
    /// Every feature, in the order `shoal info --models` prints them.
    pub const ALL: [Feature; 31] = [
        Feature::ImplicitSolver,
        Feature::Bodies,
        Feature::Sources,
        Feature::Hydrographs,
        Feature::HeldSources,
        Feature::Rain,
        Feature::Rainfall,
        Feature::Infiltration,
        Feature::AirPressure,
        Feature::Damping,
        Feature::DampingMap,
        Feature::WaveMakers,
        Feature::OpenSides,
        Feature::GhostSides,
        Feature::RiverSides,
        Feature::Friction,
        Feature::FrictionMap,
        Feature::Velocities,
        Feature::Regions,
        Feature::FloodMaps,
        Feature::Spray,
        Feature::Overhangs,
        Feature::Edits,
        Feature::InPlaceEdits,
        Feature::Queries,
        Feature::Embedding,
        Feature::Browser,
        Feature::Probes,
        Feature::Sections,
        Feature::Checkpoints,
        Feature::FastCpu,
    ];

    /// The feature as the table and the messages name it.
    pub fn name(self) -> &'static str {
        match self {
            Feature::ImplicitSolver => "solver = \"adi\"",
            Feature::Bodies => "rigid bodies ([[body]])",
            Feature::Sources => "sources and drains ([[source]] rate)",
            Feature::Hydrographs => "hydrographs ([[source]] hydrograph)",
            Feature::HeldSources => "held heights ([[source]] height)",
            Feature::Rain => "[rain]",
            Feature::Rainfall => "[rainfall]",
            Feature::Infiltration => "[infiltration]",
            Feature::AirPressure => "air pressure ([[pressure]])",
            Feature::Damping => "damping (physics.damping)",
            Feature::DampingMap => "physics.damping_map",
            Feature::WaveMakers => "wave makers (\"maker\" sides)",
            Feature::OpenSides => "open, periodic and absorbing sides",
            Feature::GhostSides => "ghost-mean and ghost-slope sides",
            Feature::RiverSides => "free, discharge and stage sides",
            Feature::Friction => "Manning friction (physics.manning)",
            Feature::FrictionMap => "Manning's n per cell ([friction] map)",
            Feature::Velocities => "velocities (u_npy, v_npy, --velocity)",
            Feature::Regions => "volume_correction = \"regions\"",
            Feature::FloodMaps => "flood maps ([output] summary)",
            Feature::Spray => "[spray]",
            Feature::Overhangs => "overhangs and rocks",
            Feature::Edits => "edits (brush, disturb, set_ground)",
            Feature::InPlaceEdits => "Water's in-place brush and disturb",
            Feature::Queries => "height queries",
            Feature::Embedding => "Water (a host's encoder)",
            Feature::Browser => "the browser (10 storage buffers a stage)",
            Feature::Probes => "probes ([[output.probe]])",
            Feature::Sections => "discharge lines ([[output.section]])",
            Feature::Checkpoints => "checkpoints and resume",
            Feature::FastCpu => "the fast CPU backend",
        }
    }
}

/// A water model as the engine and its users see it: its name, and what it takes.
pub trait Model: Sync {
    /// Its `physics.model` value.
    fn key(&self) -> &'static str;
    /// Its name in words.
    fn name(&self) -> &'static str;
    /// The features it takes.
    fn features(&self) -> &'static [Feature];
    /// The features its physics rules out, each with why in a few words (a feature neither
    /// taken nor ruled out is one not built yet).
    fn ruled_out(&self) -> &'static [(Feature, &'static str)] {
        &[]
    }
    /// Whether it takes `feature`.
    fn takes(&self, feature: Feature) -> bool {
        self.features().contains(&feature)
    }
    /// Why its physics rules `feature` out, if it does.
    fn why_not(&self, feature: Feature) -> Option<&'static str> {
        self.ruled_out()
            .iter()
            .find(|(f, _)| *f == feature)
            .map(|(_, why)| *why)
    }
}

/// Why the seeds' implicit step is the height field's alone (the same words for every model
/// that rules it out).
pub(crate) const ADI_IS_KASS_AND_MILLERS: &str =
    "ADI is Kass & Miller's implicit step for the height field's wave equation; this model steps its own equations";

/// Every model, in the order the table prints them.
pub const ALL: [&dyn Model; 4] = [
    &height_field::HeightField,
    &pipes::Pipes,
    &navier_stokes::NavierStokes,
    &shallow_water::ShallowWater,
];

/// The model a scene's `physics.model` names.
pub fn of(model: WaterModel) -> &'static dyn Model {
    match model {
        WaterModel::HeightField => &height_field::HeightField,
        WaterModel::Pipes => &pipes::Pipes,
        WaterModel::NavierStokes => &navier_stokes::NavierStokes,
        WaterModel::ShallowWater => &shallow_water::ShallowWater,
    }
}

/// Why `model` refuses `what` (the feature as the scene or the caller asked for it): one message
/// for validation and the runtime calls, naming the model, the feature and the models that take
/// it.
pub fn refusal(model: WaterModel, feature: Feature, what: &str) -> String {
    let takers: Vec<String> = ALL
        .iter()
        .filter(|m| m.takes(feature))
        .map(|m| format!("\"{}\"", m.key()))
        .collect();
    let needs = match takers.len() {
        0 => "no model takes it yet".to_string(),
        _ => format!("needs physics.model = {}", takers.join(" or ")),
    };
    if let Some(why) = of(model).why_not(feature) {
        return format!(
            "{what} {needs}: the {} does not take {} ({why}; `shoal info --models` lists what each model takes)",
            of(model).name(),
            feature.name()
        );
    }
    format!(
        "{what} {needs}: {} is not built yet for the {} (`shoal info --models` lists what each model takes)",
        feature.name(),
        of(model).name()
    )
}

/// Refuses `what` (a call: `Simulation::edit`, `Water::query`…) where `model` does not take
/// `feature`, with [`refusal`]'s words.
pub fn require(model: WaterModel, feature: Feature, what: &str) -> crate::error::Result<()> {
    if of(model).takes(feature) {
        return Ok(());
    }
    Err(crate::error::Error::Unsupported(refusal(model, feature, what)))
}

/// The table `shoal info --models` prints: a row per feature, a column per model; "yes" where
/// the model takes it, "n/a" where its physics rules it out, "-" where it is not built yet.
pub fn table() -> String {
    let width = Feature::ALL.iter().map(|f| f.name().chars().count()).max().unwrap_or(0);
    let mut out = format!("{:width$}", "feature");
    for m in ALL {
        out.push_str(&format!("  {:>13}", m.key()));
    }
    out.push('\n');
    for f in Feature::ALL {
        out.push_str(&format!("{:width$}", f.name()));
        for m in ALL {
            let cell = match (m.takes(f), m.why_not(f)) {
                (true, _) => "yes",
                (false, Some(_)) => "n/a",
                (false, None) => "-",
            };
            out.push_str(&format!("  {cell:>13}"));
        }
        out.push('\n');
    }
    out
}
