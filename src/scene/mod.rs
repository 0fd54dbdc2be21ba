//! The scene contract of `../shared/SCENE.md`: parse, validate, resolve defaults.
//!
//! One set of serde structs serves both directions: every field has its documented default, so
//! serialising a parsed [`Scene`] writes "the scene as it was run, with every default filled in".

mod exact;
mod fields;
pub mod limits;
pub(crate) mod locate;
pub(crate) mod validate;

pub(crate) use fields::{dem_void, read_classes, read_map, read_velocity};
pub use fields::{InitialFields, ReferenceLevel};

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The built-in scene `shoal run` uses without a scene file: drops falling on a pond around an island.
pub const DEFAULT_SCENE: &str = include_str!("../../scenes/default.toml");

/// A scene: the grid, the time, the physics, the ground, the water, the bodies and the outputs.
/// Read from TOML (`../shared/SCENE.md` is the contract) and validated on load.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Free text, for outputs and messages; default "untitled".
    #[serde(default = "default_name")]
    pub name: String,
    /// `[grid]`: the cells.
    #[serde(default)]
    pub grid: Grid,
    /// `[time]`: the step length and count.
    pub time: Time,
    /// `[physics]`: the solver and its constants.
    #[serde(default)]
    pub physics: Physics,
    /// `[boundary]`: what each side of the domain does.
    #[serde(default)]
    pub boundary: Boundary,
    /// `[terrain]`: the ground b.
    #[serde(default)]
    pub terrain: Terrain,
    /// `[water]`: the initial surface.
    #[serde(default)]
    pub water: InitialWater,
    /// `[[source]]`: steady inflows and drains.
    #[serde(default, rename = "source", skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
    /// `[rain]`: random drops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rain: Option<Rain>,
    /// `[rainfall]`: rain as an intensity (mm/h), uniform or a map, scaled by a series.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rainfall: Option<Rainfall>,
    /// `[friction]`: Manning's n per cell from a map, replacing `physics.manning` (SCENE.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<Friction>,
    /// `[infiltration]`: water the ground takes where it is wet (SCENE.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infiltration: Option<Infiltration>,
    /// `[[pressure]]`: air pressure patches on the surface, still or moving.
    #[serde(default, rename = "pressure", skip_serializing_if = "Vec::is_empty")]
    pub pressure: Vec<Pressure>,
    /// `[pipes]`: the column model's constants (`physics.model = "pipes"`; filled in with its
    /// defaults in the resolved scene).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipes: Option<Pipes>,
    /// `[spray]`: spray particles: the pipes model's (on by default with the pipes) or the
    /// Navier-Stokes layer's, with foam (on where the table is given); filled in with its defaults
    /// in the resolved scene.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spray: Option<Spray>,
    /// `[navier_stokes]`: seed 003's 3D layer (`physics.model = "navier-stokes"`; filled in with
    /// its defaults in the resolved scene).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navier_stokes: Option<NavierStokes>,
    /// `[[body]]`: rigid bodies, two-way coupled.
    #[serde(default, rename = "body", skip_serializing_if = "Vec::is_empty")]
    pub bodies: Vec<Body>,
    /// `[output]`: snapshots, probes, checkpoints.
    #[serde(default)]
    pub output: Output,
    /// Folder that relative paths in the scene resolve against.
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// Where the scene came from, for error messages.
    #[serde(skip)]
    pub origin: PathBuf,
    /// A ground given as numbers (`Simulation::set_ground`, an edit, Python's arrays): it takes
    /// the place of `[terrain]`, boxes included. Not a key: a scene written out names its
    /// `[terrain]` as read.
    #[serde(skip)]
    pub ground_override: Option<std::sync::Arc<Vec<f64>>>,
    /// The water an edit carries onto the rebuilt Navier-Stokes layer: it takes the place of
    /// `[water]`'s surface and velocities (`Simulation::edit`). Not a key.
    #[serde(skip)]
    pub water_override: Option<std::sync::Arc<CarriedWater>>,
    /// The Navier-Stokes layer's span, [floor, top] relative to the reference level, as an edit
    /// left it: the layer is built over it exactly (a loaded checkpoint's), or, with
    /// `water_override`, over it and whatever more the carried water needs. Not a key.
    #[serde(skip)]
    pub layer_span: Option<[f32; 2]>,
}

/// The water an edit carries onto a rebuilt model (`Scene::water_override`).
#[derive(Clone, Debug, PartialEq)]
pub struct CarriedWater {
    /// The surface per cell, absolute metres (row-major `[ny, nx]`).
    pub surface: Vec<f64>,
    /// The depth-averaged velocity per cell, m/s (empty: at rest).
    pub velocity: Vec<[f32; 2]>,
    /// The Navier-Stokes layer's depth-averaged face velocities, [u on its x faces, v on its y
    /// faces] (`navier_stokes::setup::face_means`), which it starts from in place of `velocity`.
    pub layer_faces: Option<[Vec<f32>; 2]>,
}

fn default_name() -> String {
    "untitled".into()
}

/// `[grid]`: the cells. Required, except what a `[terrain] geotiff` DEM gives (its pixels across
/// and down, its pixel size): a key left out is 0 here until `Scene::parse` fills it.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Grid {
    /// Cells along x (at least 2).
    pub nx: u32,
    /// Cells along y (at least 2).
    pub ny: u32,
    /// Side of a square cell, metres.
    pub dx: f64,
}

impl Grid {
    /// nx·ny.
    pub fn cells(&self) -> usize {
        self.nx as usize * self.ny as usize
    }
}

/// `[time]`: the step length and how many steps.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Time {
    /// Seconds per step.
    pub dt: f64,
    /// Steps to run (`--steps` overrides).
    #[serde(default)]
    pub steps: u64,
    /// Added to the contract: the least number of equal substeps per step (default 1). The engine
    /// raises it when the explicit solver's stability limit needs more, and the output scene.toml
    /// records the number it used.
    #[serde(default = "one")]
    pub substeps: u32,
}

fn one() -> u32 {
    1
}

/// The height-field solver (`physics.solver`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Kass & Miller's explicit scheme, substepped to its stability limit.
    Explicit,
    /// Kass & Miller's implicit ADI scheme: one x sweep and one y sweep per step.
    Adi,
}

/// The water model (`physics.model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaterModel {
    /// Kass & Miller's height field, by `physics.solver`.
    #[default]
    HeightField,
    /// Seed 004's columns of cells joined by virtual pipes (`[pipes]`).
    Pipes,
    /// Seed 003's Navier-Stokes layer under the height field (`[navier_stokes]`).
    NavierStokes,
    /// The nonlinear shallow-water equations by a well-balanced finite-volume scheme
    /// (`crate::models::shallow_water`), with Manning friction (`physics.manning`).
    ShallowWater,
}

impl WaterModel {
    /// Whether the model's bodies press on its water with their weight, a pressure head its own
    /// pressure gradient answers (`BodyParams::pressed`: the shallow-water model's
    /// `sw_bodies.wgsl`, the pipes' `pipe_bodies.wgsl`), rather than the height field's coupling
    /// solve expelling the water from under them or the Navier-Stokes layer's pressure pushing
    /// them.
    pub fn presses_bodies(self) -> bool {
        matches!(self, WaterModel::ShallowWater | WaterModel::Pipes)
    }
}

/// `[navier_stokes]`: seed 003's 3D layer, a staggered grid whose velocities drive the height
/// field.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NavierStokes {
    /// Vertical cells, spanning the deepest water plus `headroom`; default 8.
    #[serde(default = "NavierStokes::default_layers")]
    pub layers: u32,
    /// Height-field cells per 3D cell across (the 3D part coarse, the surface fine); default 1.
    #[serde(default = "NavierStokes::default_coarsen")]
    pub coarsen: u32,
    /// Kinematic viscosity ν, m²/s; default 1e-6 (water).
    #[serde(default = "NavierStokes::default_viscosity")]
    pub viscosity: f64,
    /// The pressure iteration's relaxation β₀ (eq. 7), in [1, 2); default 1.7 (the seed's).
    #[serde(default = "NavierStokes::default_beta0")]
    pub beta0: f64,
    /// The largest divergence |D| (1/s) a Full cell may keep; default 1e-4 (the seed's).
    #[serde(default = "NavierStokes::default_epsilon")]
    pub epsilon: f64,
    /// The most red-black sweeps of the pressure iteration per substep; default 2000.
    #[serde(default = "NavierStokes::default_max_sweeps")]
    pub max_sweeps: u32,
    /// Room above the highest water, m; default a quarter of the deepest water.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<f64>,
    /// The share γ ∈ [0, 1] of donor-cell differencing in the momentum's advection (Hirt's
    /// SOLA): 0 is eq. 2's centred products, which forward Euler amplifies at fronts; default 1.
    #[serde(default = "NavierStokes::default_upwind")]
    pub upwind: f64,
    /// `[navier_stokes.inflow]`: a side that pumps water in (§3.2.2, §7.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inflow: Option<NsInflow>,
    /// Sides the water leaves through at its natural rate (§3.2.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outflow: Vec<Side>,
    /// `[navier_stokes.forcing]`: a pressure applied to the surface (§7.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forcing: Option<NsForcing>,
    /// What tracks the water: the height field (default), or marker particles (§4.1, 2D runs:
    /// the 3D grid one cell across), which can overturn and splash.
    #[serde(default)]
    pub surface: NsSurfaceMode,
    /// `[navier_stokes.markers]`: the marker particles' density and room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markers: Option<NsMarkers>,
}

/// What tracks the layer's water (`navier_stokes.surface`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NsSurfaceMode {
    /// One surface height per column (§4.3).
    #[default]
    HeightField,
    /// Massless marker particles convected by the flow set the cells' flags (§4.1).
    Markers,
}

/// `[navier_stokes.markers]`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NsMarkers {
    /// Markers per cell where the water starts, and where an inflow brings it: a square number,
    /// 1 to 64 (default 16; the seed's drop used 25).
    #[serde(default = "NsMarkers::default_per_cell")]
    pub per_cell: u32,
    /// Markers the buffer holds (default twice what fills every open cell); an inflow that
    /// finds it full brings no more, and the run notes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u32>,
}

impl NsMarkers {
    fn default_per_cell() -> u32 {
        16
    }
}

impl Default for NsMarkers {
    fn default() -> Self {
        NsMarkers {
            per_cell: Self::default_per_cell(),
            capacity: None,
        }
    }
}

/// One side of the domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// x = 0.
    West,
    /// x = nx·dx.
    East,
    /// y = 0.
    South,
    /// y = ny·dx.
    North,
}

/// How a time-dependent quantity varies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NsSeries {
    /// Always the mean.
    #[default]
    Constant,
    /// The mean plus `amplitude`·sin(2π·t/`period`).
    Sine,
    /// Linear between the rows of a CSV file `time,value`, held past its ends.
    Table,
    /// Seed 003's travelling wind-wave forcing (eq. 17; `forcing` only).
    Wave,
}

/// `[navier_stokes.inflow]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NsInflow {
    /// The side whose faces under the water pump it in.
    pub side: Side,
    /// Into the domain, m/s: constant, or the sine's mean.
    #[serde(default)]
    pub velocity: f64,
    /// How it varies: `constant`, `sine` or `table`.
    #[serde(default)]
    pub kind: NsSeries,
    /// The sine's amplitude, m/s.
    #[serde(default)]
    pub amplitude: f64,
    /// The sine's period, s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<f64>,
    /// The table: a CSV file of `time,velocity` rows (s, m/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// From this time (s) on the side is an outflow (the seed's Moonlight Cove).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<f64>,
    /// The heights (m, from low to high) between which the side's faces pump: a jet's opening.
    /// The rest of the side is a wall. Default the whole side.
    #[serde(deserialize_with = "exact::option", default, skip_serializing_if = "Option::is_none")]
    pub window: Option<[f64; 2]>,
}

/// `[navier_stokes.forcing]`: the pressure on the surface, Pa over the air's.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NsForcing {
    /// How it varies: `constant`, `sine`, `table` or `wave`.
    #[serde(default)]
    pub kind: NsSeries,
    /// The mean applied pressure, Pa (constant, or the sine's mean).
    #[serde(default)]
    pub pressure: f64,
    /// The sine's amplitude, Pa.
    #[serde(default)]
    pub amplitude: f64,
    /// The sine's period, s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<f64>,
    /// The table: a CSV file of `time,pressure` rows (s, Pa).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// The wave: its length (2L in the seed), m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wavelength: Option<f64>,
    /// The wave: the height of the wave it raises (a), m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// The wave: where it travels, degrees from +x towards +y.
    #[serde(default)]
    pub direction: f64,
    /// The wave: the depth D its speed is reckoned for, m (default the mean depth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    /// The wave: how long it blows, s (default four of the wave's periods); the wave is
    /// `height` high when it stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp: Option<f64>,
}

impl NavierStokes {
    fn default_layers() -> u32 {
        8
    }
    fn default_coarsen() -> u32 {
        1
    }
    fn default_viscosity() -> f64 {
        1e-6
    }
    fn default_beta0() -> f64 {
        1.7
    }
    fn default_epsilon() -> f64 {
        1e-4
    }
    fn default_max_sweeps() -> u32 {
        2000
    }
    fn default_upwind() -> f64 {
        1.0
    }
}

impl Default for NavierStokes {
    fn default() -> Self {
        NavierStokes {
            layers: Self::default_layers(),
            coarsen: Self::default_coarsen(),
            viscosity: Self::default_viscosity(),
            beta0: Self::default_beta0(),
            epsilon: Self::default_epsilon(),
            max_sweeps: Self::default_max_sweeps(),
            headroom: None,
            upwind: Self::default_upwind(),
            inflow: None,
            outflow: Vec::new(),
            forcing: None,
            surface: NsSurfaceMode::HeightField,
            markers: None,
        }
    }
}

/// `[pipes]`: the column model's constants.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pipes {
    /// The internal step, seconds (the seed's 0.005): each `time.dt` runs ceil(dt / this) equal
    /// substeps, more where the wave-speed rule needs them.
    #[serde(default = "Pipes::default_dt")]
    pub dt: f64,
    /// The seed's friction f on a pipe's velocity per internal step, in (0, 1]; default 0.995.
    #[serde(default = "Pipes::default_friction")]
    pub friction: f64,
    /// Whether the head carries the seed's dynamic term v²/2 besides g·h (default false): a
    /// centred difference of the advection term across a pipe, which gives the pipes some
    /// inertia but amplifies fast flow over steps lower than a lip (docs/models/pipes.md has its
    /// figures); off, the pipes are hydrostatic, as in O'Brien & Hodgins and Mould & Yang.
    #[serde(default)]
    pub dynamic_head: bool,
}

impl Pipes {
    fn default_dt() -> f64 {
        0.005
    }
    fn default_friction() -> f64 {
        0.995
    }
}

impl Default for Pipes {
    fn default() -> Self {
        Pipes {
            dt: Self::default_dt(),
            friction: Self::default_friction(),
            dynamic_head: false,
        }
    }
}

/// `[spray]`: seed 004's spray, water that breaks free of the columns as particles.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spray {
    /// Whether the columns make spray (default true).
    #[serde(default = "Spray::default_enabled")]
    pub enabled: bool,
    /// A face breaks where the water stands over its crest by more than this share of its depth
    /// (the seed's 0.78, the height of a wave crest before it breaks).
    #[serde(default = "Spray::default_breaking")]
    pub breaking: f64,
    /// Water per particle, m³ (the last of a face's particles takes the remainder); default
    /// (dx/2)³.
    #[serde(default)]
    pub particle_volume: Option<f64>,
    /// Particles the buffer holds (default 65536); a full buffer is reported, and the water that
    /// did not fit stays in its column.
    #[serde(default = "Spray::default_capacity")]
    pub capacity: u32,
    /// Seconds a particle flies before it is absorbed where it is (default 10).
    #[serde(default = "Spray::default_lifetime")]
    pub lifetime: f64,
    /// Air drag, 1/s: a particle's speed falls by exp(−drag·t) (default 0: gravity alone, the seed's).
    #[serde(default)]
    pub drag: f64,
    /// Share of the speed into a wall or the ground that a bounce keeps (default 0.3).
    #[serde(default = "Spray::default_restitution")]
    pub restitution: f64,
    /// The seed's μ in the impact F = −v·μ − V·ρ·g, kg/s (default 0.01): with the particle's weight it
    /// becomes a pressure F/A on the column it lands on for the next step.
    #[serde(default = "Spray::default_impact")]
    pub impact: f64,
    /// The least height over the crest that breaks, metres (default dx/2): the columns resolve no
    /// wave shorter than two cells, so a crest a fraction of a cell high is a ripple of the grid,
    /// not a breaking wave.
    #[serde(default)]
    pub least_height: Option<f64>,
    /// Seed of the particles' random positions on their faces (default 0).
    #[serde(default)]
    pub seed: u32,
    /// The Navier-Stokes layer only: the surface's rising speed past which it throws spray, m/s
    /// (default 0.5; seed 003 §4.3's threshold).
    #[serde(default)]
    pub rise: Option<f64>,
    /// The Navier-Stokes layer only: the share of the water rising past `rise` that breaks away as
    /// spray (default 0.25).
    #[serde(default)]
    pub share: Option<f64>,
    /// The Navier-Stokes layer only: how often a particle in the air splits in two, per second
    /// (default 0.5).
    #[serde(default)]
    pub split: Option<f64>,
    /// The Navier-Stokes layer only: the mean life of the foam a full-size particle leaves where
    /// it lands, s (default 3; a split particle's foam lives in proportion; 0: no foam).
    #[serde(default)]
    pub foam: Option<f64>,
    /// The Navier-Stokes layer only: the wind the air resistance pulls particles towards, m/s
    /// (x, y; default calm).
    #[serde(deserialize_with = "exact::option", default)]
    pub wind: Option<[f64; 2]>,
}

impl Spray {
    fn default_enabled() -> bool {
        true
    }
    fn default_breaking() -> f64 {
        0.78
    }
    fn default_capacity() -> u32 {
        65536
    }
    fn default_lifetime() -> f64 {
        10.0
    }
    fn default_restitution() -> f64 {
        0.3
    }
    fn default_impact() -> f64 {
        0.01
    }

    /// The least height over a crest that breaks, m, for cells `dx` across.
    pub fn least(&self, dx: f64) -> f64 {
        self.least_height.unwrap_or(dx / 2.0)
    }

    /// The volume per particle, m³, for cells `dx` across.
    pub fn volume(&self, dx: f64) -> f64 {
        self.particle_volume.unwrap_or((dx / 2.0).powi(3))
    }

    /// The Navier-Stokes layer's rising speed that throws spray, m/s.
    pub fn rise(&self) -> f64 {
        self.rise.unwrap_or(0.5)
    }

    /// The Navier-Stokes layer's share of the excess rise thrown as spray.
    pub fn share(&self) -> f64 {
        self.share.unwrap_or(0.25)
    }

    /// The Navier-Stokes layer's volume per particle, m³, for cells `dx` across: (dx/4)³ unless
    /// set, a quarter of the pipes' edge, so a particle is under a millimetre of a cell's depth
    /// at dx = 5 cm and a throw does not dig a pit in the surface.
    pub fn layer_volume(&self, dx: f64) -> f64 {
        self.particle_volume.unwrap_or((dx / 4.0).powi(3))
    }

    /// The Navier-Stokes layer's splits per second of a particle in the air.
    pub fn split(&self) -> f64 {
        self.split.unwrap_or(0.5)
    }

    /// The Navier-Stokes layer's mean foam life of a full-size particle, s.
    pub fn foam(&self) -> f64 {
        self.foam.unwrap_or(3.0)
    }

    /// The Navier-Stokes layer's wind, m/s.
    pub fn wind(&self) -> [f64; 2] {
        self.wind.unwrap_or([0.0, 0.0])
    }
}

impl Default for Spray {
    fn default() -> Self {
        Spray {
            enabled: Self::default_enabled(),
            breaking: Self::default_breaking(),
            particle_volume: None,
            least_height: None,
            capacity: Self::default_capacity(),
            lifetime: Self::default_lifetime(),
            drag: 0.0,
            restitution: Self::default_restitution(),
            impact: Self::default_impact(),
            seed: 0,
            rise: None,
            share: None,
            split: None,
            foam: None,
            wind: None,
        }
    }
}

/// How the volume target is held (`physics.volume_correction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VolumeCorrection {
    /// No correction: the scheme's own conservation only.
    None,
    /// One correction over all wet cells.
    Global,
    /// One correction per connected wet region.
    Regions,
}

/// The bodies' virtual-height solve (`physics.coupling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CouplingMethod {
    /// Preconditioned conjugate gradients.
    Pcg,
    /// Jacobi sweeps.
    Jacobi,
}

/// `[physics]`: the solver and its constants.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Physics {
    /// `"height-field"` (default), `"pipes"`, `"navier-stokes"` or `"shallow-water"`.
    #[serde(default)]
    pub model: WaterModel,
    /// `"explicit"` (default) or `"adi"`.
    #[serde(default = "Physics::default_solver")]
    pub solver: Method,
    /// m/s²; default 9.81.
    #[serde(default = "Physics::default_gravity")]
    pub gravity: f64,
    /// Kass & Miller's tau (eq. 17), in [0, 1); default 0.
    #[serde(default)]
    pub damping: f64,
    /// How the volume target is held; default global.
    #[serde(default = "Physics::default_correction")]
    pub volume_correction: VolumeCorrection,
    /// The virtual-height solve for bodies; default PCG.
    #[serde(default = "Physics::default_coupling")]
    pub coupling: CouplingMethod,
    /// kg/m³; default 1000.
    #[serde(default = "Physics::default_density")]
    pub water_density: f64,
    /// GAMES103's relaxation gamma: the share of the water a body must expel that the coupling
    /// moves out in one step, in (0, 1]; default 0.9. At 1 the expulsion is exact, and with the
    /// momentum it gives the water it once fed a checkerboard over a whole pool; 0.9 spreads a
    /// sudden expulsion over a few steps.
    #[serde(default = "Physics::default_relaxation")]
    pub coupling_relaxation: f64,
    /// PCG: the most iterations per step; Jacobi: the sweeps per step (rounded up to even).
    /// Default 100 (PCG) and 40 (Jacobi) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupling_iterations: Option<u32>,
    /// PCG stops at this relative residual |r|/|b|; default 1e-6.
    #[serde(default = "Physics::default_tolerance")]
    pub coupling_tolerance: f64,
    /// Drag coefficient C_d of a body's quadratic drag ½·ρ·C_d·A·|v|·v, A its wetted footprint;
    /// default 1.0.
    #[serde(default = "Physics::default_drag")]
    pub body_drag: f64,
    /// Angular drag on a body, per second, scaled by its submerged share; default 1.0.
    #[serde(default = "Physics::default_drag")]
    pub body_angular_drag: f64,
    /// A per-cell damping (NPY `[ny, nx]`, or a greyscale PNG as a share of 1) added to `damping`
    /// in each cell: shallows, reeds, harbours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping_map: Option<PathBuf>,
    /// Manning's n, s/m^(1/3), on the shallow-water model; default 0 (no friction).
    #[serde(default)]
    pub manning: f64,
}

impl Physics {
    fn default_solver() -> Method {
        Method::Explicit
    }
    fn default_gravity() -> f64 {
        9.81
    }
    fn default_correction() -> VolumeCorrection {
        VolumeCorrection::Global
    }
    fn default_coupling() -> CouplingMethod {
        CouplingMethod::Pcg
    }
    fn default_density() -> f64 {
        1000.0
    }
    fn default_relaxation() -> f64 {
        0.9
    }
    fn default_tolerance() -> f64 {
        1e-6
    }
    fn default_drag() -> f64 {
        1.0
    }

    /// `coupling_iterations`, or its default for the chosen solver.
    pub fn coupling_iterations(&self) -> u32 {
        self.coupling_iterations.unwrap_or(match self.coupling {
            CouplingMethod::Pcg => 100,
            CouplingMethod::Jacobi => 40,
        })
    }
}

impl Default for Physics {
    fn default() -> Self {
        Physics {
            model: WaterModel::HeightField,
            solver: Self::default_solver(),
            gravity: Self::default_gravity(),
            damping: 0.0,
            volume_correction: Self::default_correction(),
            coupling: Self::default_coupling(),
            water_density: Self::default_density(),
            coupling_relaxation: Self::default_relaxation(),
            coupling_iterations: None,
            coupling_tolerance: Self::default_tolerance(),
            body_drag: Self::default_drag(),
            body_angular_drag: Self::default_drag(),
            damping_map: None,
            manning: 0.0,
        }
    }
}

/// What happens at one side of the domain. The discriminants are the codes the WGSL reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[repr(u32)]
pub enum BoundaryMode {
    /// Closed wall (Neumann): the missing face carries no flux.
    Reflect = crate::wgsl::sides::REFLECT,
    /// Dirichlet: the ghost holds the still level.
    Open = crate::wgsl::sides::OPEN,
    /// Wraps to the opposite side.
    Periodic = crate::wgsl::sides::PERIODIC,
    /// Non-reflecting (Mur's discrete Engquist–Majda condition).
    Absorb = crate::wgsl::sides::ABSORB,
    /// Wilson et al.: the ghost holds the mean surface height of the wet cells.
    GhostMean = crate::wgsl::sides::GHOST_MEAN,
    /// Wilson et al.: the ghost extrapolates linearly, 2·h_edge − h_inner.
    GhostSlope = crate::wgsl::sides::GHOST_SLOPE,
    /// A wave maker (`[boundary.maker]`): the side absorbs, and a line of cells just inside it
    /// makes the waves (`crate::engine::feeds`).
    Maker = crate::wgsl::sides::MAKER,
    /// Transmissive (the shallow-water model): the ghost copies the edge cell, so waves and
    /// flows leave by zero gradient.
    Free = crate::wgsl::sides::FREE,
    /// A river's inflow (the shallow-water model): a given discharge per metre of side into the
    /// domain, `[boundary.discharge]`.
    Discharge = crate::wgsl::sides::DISCHARGE,
    /// A river's outflow or a sea (the shallow-water model): a given level, `[boundary.stage]`.
    Stage = crate::wgsl::sides::STAGE,
}

impl BoundaryMode {
    /// The mode the passes run: a maker side absorbs (its waves come from the feeds).
    pub fn as_run(self) -> BoundaryMode {
        match self {
            BoundaryMode::Maker => BoundaryMode::Absorb,
            m => m,
        }
    }

    /// The mode the height field's and the pipes' passes run: as `as_run`, and a river side as
    /// they take it: `"free"` (transmissive) is their absorbing side (Mur's, Flather's),
    /// `"discharge"` and `"stage"` are walls whose edge cells the feeds fill or hold
    /// (`feeds::Feeds::with_river_sides`).
    pub fn on_height_field(self) -> BoundaryMode {
        match self {
            BoundaryMode::Free => BoundaryMode::Absorb,
            BoundaryMode::Discharge | BoundaryMode::Stage => BoundaryMode::Reflect,
            m => m.as_run(),
        }
    }
}

/// `[boundary]` as written: each side optional.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Boundary {
    /// Every side not named; default reflect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all: Option<BoundaryMode>,
    /// The x = 0 side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub west: Option<BoundaryMode>,
    /// The x = nx·dx side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub east: Option<BoundaryMode>,
    /// The y = 0 side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub south: Option<BoundaryMode>,
    /// The y = ny·dx side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub north: Option<BoundaryMode>,
    /// `[boundary.maker]`: the waves every `"maker"` side makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maker: Option<Maker>,
    /// `[boundary.discharge]`: what every `"discharge"` side lets in (`q`, m²/s per metre of
    /// side), steady or from a table, with per-side overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discharge: Option<RiverValues>,
    /// `[boundary.stage]`: the level every `"stage"` side holds (`level`, m), steady or from a
    /// table, with per-side overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<RiverValues>,
}

/// `[boundary.discharge]` or `[boundary.stage]`: a value for the sides of that kind (`q` for a
/// discharge, `level` for a stage, or a `file` of `time,q` / `time,level` rows, linear between
/// them), and `[boundary.discharge.west]` etc. where one side needs its own.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiverValues {
    /// A discharge: m²/s per metre of side, into the domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q: Option<f64>,
    /// A stage: the level held, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// A CSV of `time,q` or `time,level` rows, linear between them, held past the ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// `[boundary.discharge.west]` etc.: a side's own value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub west: Option<RiverValue>,
    /// See `west`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub east: Option<RiverValue>,
    /// See `west`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub south: Option<RiverValue>,
    /// See `west`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub north: Option<RiverValue>,
}

/// One side's own `[boundary.discharge.<side>]` or `[boundary.stage.<side>]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RiverValue {
    /// A discharge: m²/s per metre of side, into the domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q: Option<f64>,
    /// A stage: the level held, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// A CSV of `time,q` or `time,level` rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
}

impl RiverValues {
    fn own(&self, side: &str) -> &Option<RiverValue> {
        match side {
            "west" => &self.west,
            "east" => &self.east,
            "south" => &self.south,
            _ => &self.north,
        }
    }

    /// Whether `side` (`"west"`…) has a table of its own.
    pub fn has_own(&self, side: &str) -> bool {
        self.own(side).is_some()
    }

    /// What `side` reads: its own table, else the shared one.
    pub fn for_side(&self, side: &str) -> RiverValue {
        self.own(side).clone().unwrap_or(RiverValue {
            q: self.q,
            level: self.level,
            file: self.file.clone(),
        })
    }
}

/// `[boundary.maker]`: a wave maker's signal, the surface it raises just inside its side.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Maker {
    /// `"sine"`, `"solitary"` or `"table"`.
    pub kind: MakerKind,
    /// Sine: amplitude, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amplitude: Option<f64>,
    /// Sine: period, s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<f64>,
    /// Sine: phase at t = 0, degrees; default 0.
    #[serde(default)]
    pub phase: f64,
    /// Solitary: the wave's height, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Solitary: the still depth it travels in, m; default the still depth at the maker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    /// Table: a CSV of `time,height` rows (s, m), linear between rows, held at the ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
}

/// What a wave maker makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MakerKind {
    /// amplitude·sin(2π·t/period + phase), ramped in over its first period.
    Sine,
    /// One solitary wave of `height` (sech², Boussinesq's shape).
    Solitary,
    /// A time series of heights.
    Table,
}

/// The four sides with `all` and the default applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sides {
    /// The x = 0 side.
    pub west: BoundaryMode,
    /// The x = nx·dx side.
    pub east: BoundaryMode,
    /// The y = 0 side.
    pub south: BoundaryMode,
    /// The y = ny·dx side.
    pub north: BoundaryMode,
}

impl Sides {
    /// Every side the same.
    pub fn all(mode: BoundaryMode) -> Self {
        Sides {
            west: mode,
            east: mode,
            south: mode,
            north: mode,
        }
    }

    /// Whether some side is `mode`.
    pub fn any(&self, mode: BoundaryMode) -> bool {
        [self.west, self.east, self.south, self.north].contains(&mode)
    }

    /// The sides as `model`'s passes run them: on the height field and the pipes their river
    /// sides and makers (`BoundaryMode::on_height_field`), the others' as written.
    pub fn run_by(self, model: WaterModel) -> Sides {
        if !matches!(model, WaterModel::HeightField | WaterModel::Pipes) {
            return self;
        }
        Sides {
            west: self.west.on_height_field(),
            east: self.east.on_height_field(),
            south: self.south.on_height_field(),
            north: self.north.on_height_field(),
        }
    }
}

impl Boundary {
    /// The four sides, `all` and the default (reflect) applied.
    pub fn sides(&self) -> Sides {
        let all = self.all.unwrap_or(BoundaryMode::Reflect);
        Sides {
            west: self.west.unwrap_or(all),
            east: self.east.unwrap_or(all),
            south: self.south.unwrap_or(all),
            north: self.north.unwrap_or(all),
        }
    }

    /// Every side spelled out, for the output scene.toml.
    fn resolved(&self) -> Boundary {
        let s = self.sides();
        Boundary {
            all: None,
            west: Some(s.west),
            east: Some(s.east),
            south: Some(s.south),
            north: Some(s.north),
            maker: self.maker.clone(),
            discharge: self.discharge.clone(),
            stage: self.stage.clone(),
        }
    }
}

/// A plane ground: b = base + grad\[0\]·x + grad\[1\]·y.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slope {
    /// b at the origin, metres.
    pub base: f64,
    /// b's rise per metre along x and y.
    #[serde(deserialize_with = "exact::array")]
    pub grad: [f64; 2],
}

/// Ground from a greyscale picture.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PngTerrain {
    /// A greyscale PNG, resampled to the grid.
    pub path: PathBuf,
    /// The height black stands for.
    pub min: f64,
    /// The height white stands for.
    pub max: f64,
}

/// A rectangle of ground raised to `top`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainBox {
    /// West edge, metres.
    pub x0: f64,
    /// South edge, metres.
    pub y0: f64,
    /// East edge, metres.
    pub x1: f64,
    /// North edge, metres.
    pub y1: f64,
    /// The height b is raised to.
    pub top: f64,
}

/// `[terrain]`: the ground b; flat at 0 by default, at most one of flat, slope, npy, png, geotiff,
/// exr.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terrain {
    /// Flat ground at this height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flat: Option<f64>,
    /// A plane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slope: Option<Slope>,
    /// A float32/float64 `[ny, nx]` array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npy: Option<PathBuf>,
    /// A greyscale picture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub png: Option<PngTerrain>,
    /// A GeoTIFF DEM (one band of heights, metres): it sets the `[grid]` keys the scene leaves
    /// out, and is resampled onto the grid over the whole domain, north up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geotiff: Option<PathBuf>,
    /// An OpenEXR height map (metres; its channel `b`, else `height`, `Y` or `R`), resampled onto
    /// the grid over the whole domain, north up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exr: Option<PathBuf>,
    /// The height of the DEM's nodata pixels; default a wall 1 m above the highest of its ground
    /// and the still water.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodata: Option<f64>,
    /// `[[terrain.box]]`: raised rectangles.
    #[serde(default, rename = "box", skip_serializing_if = "Vec::is_empty")]
    pub boxes: Vec<TerrainBox>,
    /// `[[terrain.overhang]]` (pipes): solid slabs with open space under them.
    #[serde(default, rename = "overhang", skip_serializing_if = "Vec::is_empty")]
    pub overhangs: Vec<Overhang>,
    /// `[[terrain.rock]]` (pipes): solid spheres.
    #[serde(default, rename = "rock", skip_serializing_if = "Vec::is_empty")]
    pub rocks: Vec<Rock>,
}

/// A solid slab from `bottom` to `top` over a rectangle (a bridge deck, a ledge, a rock arch's
/// roof): the columns under it hold a cell below the slab and one above.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overhang {
    /// West edge, metres.
    pub x0: f64,
    /// South edge, metres.
    pub y0: f64,
    /// East edge, metres.
    pub x1: f64,
    /// North edge, metres.
    pub y1: f64,
    /// The slab's underside, metres.
    pub bottom: f64,
    /// The slab's top, metres.
    pub top: f64,
}

/// A solid sphere (the seed's rocks): centre (x, y, z) and radius, metres.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rock {
    /// Centre x, metres.
    pub x: f64,
    /// Centre y, metres.
    pub y: f64,
    /// Centre height, metres.
    pub z: f64,
    /// Radius, metres.
    pub radius: f64,
}

/// A Gaussian added to the initial surface.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bump {
    /// Centre x, metres.
    pub x: f64,
    /// Centre y, metres.
    pub y: f64,
    /// The Gaussian's sigma, metres.
    pub radius: f64,
    /// Peak height, metres.
    pub height: f64,
}

/// `[water]`: the initial surface.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialWater {
    /// Still surface height; ground at or above it starts dry; default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// The initial surface h, `[ny, nx]`; replaces `level`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npy: Option<PathBuf>,
    /// `[[water.bump]]`: Gaussians added to the surface, at rest.
    #[serde(default, rename = "bump", skip_serializing_if = "Vec::is_empty")]
    pub bumps: Vec<Bump>,
    /// The initial depth-averaged velocity along x, m/s, `[ny, nx]` (models with a velocity);
    /// default at rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub u_npy: Option<PathBuf>,
    /// The same along y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v_npy: Option<PathBuf>,
    /// How the water released at rest takes its first step (a project key); default "taylor".
    #[serde(default, skip_serializing_if = "Start::is_default")]
    pub start: Start,
}

/// How the water released at rest takes its first step (`[water] start`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Start {
    /// The per-step change starts at zero: h^(−1) = h⁰ (first order in time for the explicit
    /// solver; for ADI this is its second-order start).
    Rest,
    /// The default: the explicit solver's Taylor step (`src/start.rs`), second order and exact
    /// per mode; ADI starts at rest, which is exact per mode for its scheme.
    #[default]
    Taylor,
}

impl Start {
    fn is_default(&self) -> bool {
        *self == Start::default()
    }
}

/// A steady inflow over a disc, or a drain, with an optional hydrograph.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Centre x, metres.
    pub x: f64,
    /// Centre y, metres.
    pub y: f64,
    /// Disc radius, metres.
    pub radius: f64,
    /// m³/s; negative drains, never more than is there. 0 when the source holds a `height`.
    #[serde(default)]
    pub rate: f64,
    /// Pipes: the surface height (metres) the source's columns hold whatever flows out (the
    /// seed's source columns); below the ground, a sink that takes all that reaches it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// A CSV table of `time,rate` rows (s, m³/s, linear between rows, held at the ends) whose rate
    /// the source gives over time, beside its steady `rate` (`crate::engine::feeds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hydrograph: Option<PathBuf>,
}

/// `[friction]`: Manning's n per cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Friction {
    /// n in s/m^(1/3) per cell: NPY `[ny, nx]` or a GeoTIFF (resampled over the domain, north up;
    /// nodata pixels take 0); with `classes`, a land-cover code per cell.
    pub map: PathBuf,
    /// `[friction.classes]`: n for each land-cover code the map holds (`1 = 0.035`); the map is
    /// then read at each cell's nearest pixel, and a code the table does not name is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes: Option<std::collections::BTreeMap<String, f64>>,
}

/// `[infiltration] model`: how the ground takes water.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InfiltrationModel {
    /// A steady rate (`rate`, mm/h).
    Constant,
    /// Horton's decaying capacity f = fc + (f0 − fc)·e^(−k·t) (`f0`, `fc` mm/h, `k` 1/h).
    Horton,
    /// Green & Ampt's f = Ks·(1 + ψ·Δθ/F) (`ks` mm/h, `psi` m, `dtheta`).
    GreenAmpt,
    /// The SCS curve number's losses of the rain (`cn`, `ia_ratio`).
    CurveNumber,
}

/// `[infiltration]`: each parameter a value, or a per-cell map (`P_map`, NPY or GeoTIFF)
/// replacing it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Infiltration {
    /// How the ground takes water.
    pub model: InfiltrationModel,
    /// constant: mm/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// `rate` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_map: Option<PathBuf>,
    /// horton: the initial capacity, mm/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f0: Option<f64>,
    /// `f0` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f0_map: Option<PathBuf>,
    /// horton: the final capacity, mm/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fc: Option<f64>,
    /// `fc` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fc_map: Option<PathBuf>,
    /// horton: the decay rate, 1/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<f64>,
    /// `k` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k_map: Option<PathBuf>,
    /// green-ampt: the saturated conductivity, mm/h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ks: Option<f64>,
    /// `ks` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ks_map: Option<PathBuf>,
    /// green-ampt: the wetting front's suction head, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psi: Option<f64>,
    /// `psi` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psi_map: Option<PathBuf>,
    /// green-ampt: the moisture deficit (saturated less initial water content), in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtheta: Option<f64>,
    /// `dtheta` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtheta_map: Option<PathBuf>,
    /// curve-number: the curve number, in (0, 100].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cn: Option<f64>,
    /// `cn` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cn_map: Option<PathBuf>,
    /// curve-number: the initial abstraction as a share of the retention S (default 0.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ia_ratio: Option<f64>,
    /// `ia_ratio` per cell (NPY `[ny, nx]` or GeoTIFF), replacing the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ia_ratio_map: Option<PathBuf>,
}

impl Infiltration {
    /// Each parameter's key, its value and its map, in a fixed order.
    pub fn parameters(&self) -> [(&'static str, Option<f64>, Option<&PathBuf>); 9] {
        [
            ("rate", self.rate, self.rate_map.as_ref()),
            ("f0", self.f0, self.f0_map.as_ref()),
            ("fc", self.fc, self.fc_map.as_ref()),
            ("k", self.k, self.k_map.as_ref()),
            ("ks", self.ks, self.ks_map.as_ref()),
            ("psi", self.psi, self.psi_map.as_ref()),
            ("dtheta", self.dtheta, self.dtheta_map.as_ref()),
            ("cn", self.cn, self.cn_map.as_ref()),
            ("ia_ratio", self.ia_ratio, self.ia_ratio_map.as_ref()),
        ]
    }
}

/// `[rainfall]`: rain as an intensity over the ground, beside `[rain]`'s random drops.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rainfall {
    /// mm/h over every cell; with a PNG `map`, the mm/h of its full scale (white).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intensity: Option<f64>,
    /// Per-cell mm/h: NPY `[ny, nx]`, a GeoTIFF (resampled, north up), or a greyscale PNG whose
    /// shade is the share of `intensity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<PathBuf>,
    /// A CSV table of `time,factor` rows the intensity is scaled by over time (linear between
    /// rows, held at the ends); without it the factor is 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<PathBuf>,
}

/// `[[pressure]]`: a patch of air pressure on the surface (a boat, a storm's low).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pressure {
    /// `"gaussian"` (default) or `"box"`.
    #[serde(default)]
    pub shape: PressureShape,
    /// Centre at t = 0, metres.
    #[serde(default)]
    pub x: f64,
    /// Centre y at t = 0, metres.
    #[serde(default)]
    pub y: f64,
    /// Gaussian: its sigma, metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Box: full extents [sx, sy], metres.
    #[serde(deserialize_with = "exact::option", default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f64; 2]>,
    /// Pa at the centre (the box's every cell); negative is a low, which raises the still water
    /// by −strength/(ρ·g).
    pub strength: f64,
    /// m/s: the centre moves from (x, y) at this velocity.
    #[serde(deserialize_with = "exact::option", default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f64; 2]>,
    /// [[t, x, y], …]: the centre's path, linear between rows, held before the first and after
    /// the last (replaces x, y and velocity).
    #[serde(deserialize_with = "exact::list", default, skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<[f64; 3]>,
}

/// A pressure patch's profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PressureShape {
    /// strength·exp(−r²/(2·radius²)).
    #[default]
    Gaussian,
    /// strength over a `size[0]` × `size[1]` rectangle.
    Box,
}

/// `[rain]`: random drops, reproducible from the seed.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rain {
    /// Drops per second over the whole domain.
    pub rate: f64,
    /// Drop radius, metres.
    pub radius: f64,
    /// Peak height of each drop's Gaussian, metres.
    pub height: f64,
    /// Seed of the drop sequence; default 0.
    #[serde(default)]
    pub seed: u64,
}

/// A rigid body, two-way coupled with the water.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Box (default) or sphere.
    #[serde(default = "Body::default_shape")]
    pub shape: BodyShape,
    /// Box: full extents along its own axes; sphere: its three diameters.
    #[serde(deserialize_with = "exact::array")]
    pub size: [f64; 3],
    /// Centre, metres.
    #[serde(deserialize_with = "exact::array")]
    pub position: [f64; 3],
    /// Euler angles in degrees, applied x then y then z.
    #[serde(deserialize_with = "exact::array", default)]
    pub rotation: [f64; 3],
    /// m/s.
    #[serde(deserialize_with = "exact::array", default)]
    pub velocity: [f64; 3],
    /// Angular velocity about the world x, y and z axes, degrees per second; default 0.
    #[serde(deserialize_with = "exact::array", default)]
    pub angular_velocity: [f64; 3],
    /// kg/m³; default 500.
    #[serde(default = "Body::default_density")]
    pub density: f64,
    /// true: the body does not move but still displaces water.
    #[serde(default)]
    pub fixed: bool,
    /// true: the body moves with its `velocity` and `angular_velocity` whatever the water does
    /// (a scripted paddle, a boat on rails), and still pushes the water; default false.
    #[serde(default)]
    pub kinematic: bool,
}

/// A body's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyShape {
    /// A box with the three extents of `size`.
    Box,
    /// An ellipsoid with the three diameters of `size` (a sphere when they are equal).
    Sphere,
}

impl Body {
    fn default_shape() -> BodyShape {
        BodyShape::Box
    }
    fn default_density() -> f64 {
        500.0
    }
}

/// A gauge: h of the cell holding (x, y), every step.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    /// The column's name in probes.csv.
    pub name: String,
    /// x, metres.
    pub x: f64,
    /// y, metres.
    pub y: f64,
}

/// A discharge line (`[[output.section]]`): the discharge across the segment from (x0, y0) to
/// (x1, y1), positive towards its left, every step in sections.csv.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// The column's name in sections.csv.
    pub name: String,
    /// The first end's x, metres.
    pub x0: f64,
    /// The first end's y, metres.
    pub y0: f64,
    /// The second end's x, metres.
    pub x1: f64,
    /// The second end's y, metres.
    pub y1: f64,
}

/// `[output]`: what is written, and when.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// An h snapshot every this many steps, plus step 0 and the last; 0: those two only.
    #[serde(default = "Output::default_every")]
    pub every: u64,
    /// An h snapshot at each multiple of this many seconds of simulated time (the first step
    /// whose time reaches it), plus step 0 and the last; replaces `every` where given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_seconds: Option<f64>,
    /// Write checkpoint.bin every this many steps (`shoal run --checkpoint-every N` sets it, and
    /// `shoal resume` goes on with it). 0 or absent: only when interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_every: Option<u64>,
    /// `[[output.probe]]`: gauges read every step.
    #[serde(default, rename = "probe", skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<Probe>,
    /// `[[output.section]]`: discharge lines read every step.
    #[serde(default, rename = "section", skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Section>,
    /// Keep the flood maps (`crate::summary`): each cell's deepest water, highest surface, time
    /// of first wetting and time wet, written at the end of the run and at checkpoints.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub summary: bool,
    /// The depth (m) above which the summary counts a cell wet; default 0.001.
    #[serde(default = "Output::default_wet_depth")]
    pub wet_depth: f64,
    /// Write gauges.csv: each probe's surface, depth and, on a model with a velocity, its
    /// depth-averaged velocity, every step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gauges: bool,
}

impl Output {
    fn default_every() -> u64 {
        10
    }
    fn default_wet_depth() -> f64 {
        0.001
    }
}

impl Default for Output {
    fn default() -> Self {
        Output {
            every: Self::default_every(),
            every_seconds: None,
            checkpoint_every: None,
            probes: Vec::new(),
            sections: Vec::new(),
            summary: false,
            wet_depth: Self::default_wet_depth(),
            gauges: false,
        }
    }
}

/// serde's words for what a key expected, in a scene writer's: `expected u32` is "a whole number
/// from 0 to 4294967295", `expected f64` "a number", a sequence an array, a map or `struct
/// Grid` a table.
fn plain_words(message: &str) -> String {
    const WORDS: [(&str, &str); 14] = [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected usize", "expected a whole number, 0 or more"),
        ("expected i32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected f32", "expected a number"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected a table"),
        ("expected a borrowed string", "expected a string"),
        ("invalid type: sequence", "invalid type: array"),
        ("invalid type: map", "invalid type: table"),
    ];
    let mut out = WORDS
        .iter()
        .fold(message.to_string(), |m, (rust, plain)| replace_word(&m, rust, plain));
    // `expected struct Grid`: a table.
    while let Some(at) = out.find("expected struct ") {
        let end = out[at + 16..]
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .map_or(out.len(), |k| at + 16 + k);
        out.replace_range(at..end, "expected a table");
    }
    out
}

/// `text` with each `word` that does not run on into a longer word (`u32` but not `u320`)
/// replaced by `by`.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let after = &rest[at + word.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            out.push_str(word);
        } else {
            out.push_str(by);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

impl Scene {
    /// Whether the scene feeds its water: a `[[source]]` with a rate or a held height, a
    /// hydrograph, `[rain]` or `[rainfall]` (a model without per-step feeds refuses them).
    pub fn feeds_water(&self) -> bool {
        self.rain.is_some()
            || self.rainfall.is_some()
            || self
                .sources
                .iter()
                .any(|s| s.rate != 0.0 || s.height.is_some() || s.hydrograph.is_some())
    }

    /// Reads and validates a scene file; relative paths resolve against its folder.
    pub fn from_file(path: &Path) -> Result<Scene> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Scene::parse(&text, path, &base)
    }

    /// The built-in default scene.
    pub fn builtin_default() -> Scene {
        Scene::parse(DEFAULT_SCENE, Path::new("<built-in default scene>"), Path::new("."))
            .expect("the built-in scene is valid (checked by a test)")
    }

    /// Parses and validates scene text. `origin` names it in errors; `base_dir` anchors relative paths.
    pub fn parse(text: &str, origin: &Path, base_dir: &Path) -> Result<Scene> {
        let mut scene: Scene = toml::from_str(text).map_err(|e| {
            let message = plain_words(e.message().trim());
            // A table the scene lacks is reported against the whole document (offset 0), where
            // the first key would take the blame: name the table instead, at no line.
            if e.span().is_some_and(|s| s.start == 0) && message.starts_with("missing field") {
                let table = message.split('`').nth(1).unwrap_or_default();
                return Error::Scene {
                    file: origin.to_path_buf(),
                    line: None,
                    message: format!("the scene has no [{table}] table, which every scene needs ({message})"),
                };
            }
            // Name the key, as every other error does (the reader gives only its position).
            let key = e.span().and_then(|s| locate::key_at(text, s.start));
            Error::Scene {
                file: origin.to_path_buf(),
                line: e.span().map(|s| locate::line_of_offset(text, s.start)),
                message: match key {
                    Some(key) if !message.contains(&key) => format!("{key}: {message}"),
                    _ => message,
                },
            }
        })?;
        scene.base_dir = base_dir.to_path_buf();
        scene.origin = origin.to_path_buf();
        scene.grid_from_dem(text)?;
        validate::validate(&scene, text)?;
        Ok(scene)
    }

    /// Fills the `[grid]` keys `text` leaves out from the scene's GeoTIFF DEM: its pixels across
    /// and down, its pixel size. Without a DEM they are required.
    fn grid_from_dem(&mut self, text: &str) -> Result<()> {
        let given = |key: &str| locate::has_key(text, key);
        let Some(missing) = ["grid.nx", "grid.ny", "grid.dx"].into_iter().find(|k| !given(k)) else {
            return Ok(());
        };
        let Some(dem) = self.terrain.geotiff.clone() else {
            let why = "required (or a [terrain] geotiff DEM, which gives it)".to_string();
            return Err(self.error_at(Some(text), missing, why));
        };
        let path = self.resolve_path(&dem);
        let fail = |scene: &Scene, why: String| scene.error_at(Some(text), "terrain.geotiff", why);
        let h = crate::io::geotiff::read_header(&path).map_err(|e| fail(self, e))?;
        if !given("grid.nx") {
            self.grid.nx = h.width as u32;
        }
        if !given("grid.ny") {
            self.grid.ny = h.height as u32;
        }
        if !given("grid.dx") {
            self.grid.dx = match h.pixel {
                Some([sx, sy]) if (sx - sy).abs() <= 1e-9 * sx.max(sy) => sx,
                Some([sx, sy]) => {
                    let why = format!(
                        "{}: its pixels are {sx} × {sy}, and Shoal's cells are square: give [grid] dx (the DEM \
                         is resampled onto the grid)",
                        path.display()
                    );
                    return Err(fail(self, why));
                }
                None => {
                    let why = format!(
                        "{} gives no pixel size (no ModelPixelScale tag): give [grid] dx",
                        path.display()
                    );
                    return Err(fail(self, why));
                }
            };
        }
        Ok(())
    }

    /// An error about `key` (a dotted path such as `water.bump[1].radius`), located in `text`.
    pub(crate) fn error_at(&self, text: Option<&str>, key: &str, message: String) -> Error {
        Error::Scene {
            file: self.origin.clone(),
            line: text.and_then(|t| locate::line_of_key(t, key)),
            message: format!("{key}: {message}"),
        }
    }

    /// Resolves a path written in the scene against the scene's folder.
    pub fn resolve_path(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base_dir.join(p)
        }
    }

    /// The scene as it was run: every default filled in, paths absolute, and the substeps used.
    pub fn to_resolved_toml(&self, reference: f64, substeps: u32) -> String {
        let mut s = self.clone();
        s.boundary = self.boundary.resolved();
        s.time.substeps = substeps;
        if s.terrain.slope.is_none()
            && s.terrain.npy.is_none()
            && s.terrain.png.is_none()
            && s.terrain.geotiff.is_none()
        {
            s.terrain.flat.get_or_insert(0.0);
        }
        // Every file the scene names, absolute: `shoal resume` reads this scene.toml from the
        // output folder.
        let abs = |p: &mut PathBuf| *p = std::path::absolute(self.resolve_path(p)).unwrap_or(p.clone());
        let t = &mut s.terrain;
        for p in [
            &mut t.npy,
            &mut t.geotiff,
            &mut t.exr,
            &mut s.water.npy,
            &mut s.physics.damping_map,
        ]
        .into_iter()
        .flatten()
        {
            abs(p);
        }
        if let Some(f) = &mut s.friction {
            abs(&mut f.map);
        }
        if let Some(png) = &mut s.terrain.png {
            abs(&mut png.path);
        }
        for p in s.sources.iter_mut().filter_map(|src| src.hydrograph.as_mut()) {
            abs(p);
        }
        if let Some(r) = &mut s.rainfall {
            r.map.iter_mut().chain(r.series.iter_mut()).for_each(abs);
        }
        if let Some(p) = s.boundary.maker.as_mut().and_then(|m| m.file.as_mut()) {
            abs(p);
        }
        if let Some(ns) = &mut s.navier_stokes {
            let inflow = ns.inflow.as_mut().and_then(|i| i.file.as_mut());
            let forcing = ns.forcing.as_mut().and_then(|f| f.file.as_mut());
            inflow.into_iter().chain(forcing).for_each(abs);
        }
        s.water.level = Some(reference);
        if s.physics.model == WaterModel::Pipes {
            s.pipes.get_or_insert_with(Pipes::default);
            let spray = s.spray.get_or_insert_with(Spray::default);
            spray.particle_volume = Some(spray.volume(s.grid.dx));
            spray.least_height = Some(spray.least(s.grid.dx));
        }
        if s.physics.model == WaterModel::NavierStokes {
            s.navier_stokes.get_or_insert_with(NavierStokes::default);
            if let Some(spray) = &mut s.spray {
                spray.particle_volume = Some(spray.layer_volume(s.grid.dx));
                spray.rise = Some(spray.rise());
                spray.share = Some(spray.share());
                spray.split = Some(spray.split());
                spray.foam = Some(spray.foam());
                spray.wind = Some(spray.wind());
            }
        }
        toml::to_string(&s).expect("a scene always serialises")
    }
}
