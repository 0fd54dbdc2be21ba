//! The one interface the GPU and CPU backends share, so tests and the CLI drive both the same way.

use crate::engine::bodies::SolveReport;
use crate::engine::params::{Params, Totals};
use crate::engine::state_table::Field;
use crate::error::Result;
use crate::models::navier_stokes::state::LayerFields;
use crate::scene::Method;

/// What a run of steps reports back: read at the end of a submit, never per step.
#[derive(Clone, Debug, Default)]
pub struct ChunkReport {
    /// Index within the chunk of the first step that produced a NaN or infinity.
    pub first_bad_step: Option<u32>,
    /// Reduction of the state after the chunk.
    pub totals: Totals,
    /// eta at each probe after each step: `steps × n_probes`, row per step.
    pub probes: Vec<f32>,
    /// The volume target after the chunk (metres·cells: × dx² is m³): the start's, plus the
    /// sources and drains asked for, less what drains could not take.
    pub target: f64,
    /// The height field's books' target after the chunk (`VolumeState::target_hi`, `target_lo`),
    /// as the next chunk goes on from it (the last step's shortfall not yet in it).
    pub books_target: [f32; 2],
    /// Connected bodies of water after the chunk (0 unless volume_correction = "regions" runs).
    pub regions: u32,
    /// Each body after each step: `steps × bodies × HISTORY_FLOATS`, row per step.
    pub bodies: Vec<f32>,
    /// How the coupling solve went on the chunk's last step.
    pub coupling: SolveReport,
    /// What the model reports beyond the level (the height field: nothing).
    pub model: ModelReport,
}

/// What a model reports of a chunk beyond the level, read at the end of a submit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ModelReport {
    /// The height field: its level is all there is (`ChunkReport::totals`).
    #[default]
    Level,
    /// The pipes.
    Pipes {
        /// The water after the chunk, and what sources, drains and open sides made during it, in
        /// exact units (`Columns::quantum`·dx² m³ each).
        water_units: (u64, i64),
        /// The spray after the chunk (None without spray).
        spray: Option<crate::models::pipes::spray::SprayReport>,
    },
    /// The Navier-Stokes layer.
    Layer {
        /// Its pressure iteration over the chunk: the most sweeps a substep took and the largest
        /// |D| one ended with.
        pressure: SolveReport,
        /// The largest |u|·δt/δx (condition 3) any substep of the chunk reached, for the next
        /// chunk's substeps.
        flow_courant: f32,
        /// Its spray and foam after the chunk (None without spray).
        spray: Option<crate::models::pipes::spray::SprayReport>,
        /// The markers an inflow could not bring for want of room, since the start (None without
        /// markers).
        markers_refused: Option<u64>,
    },
    /// The shallow-water model.
    Shallow {
        /// The largest (|u| + |v| + 2·sqrt(g·d))·dt/dx any substep of the chunk reached, for the
        /// next chunk's substeps.
        courant: f32,
    },
}

/// A backend: holds the state and runs the passes of a step. `Send` (but on the web, where wgpu's
/// handles are not), so a `Simulation` can live on
/// a worker thread.
pub trait Solver: wgpu::WasmNotSend + std::any::Any {
    /// Replaces the uniform parameters (k, damping, boundaries…), e.g. after a substep change.
    fn set_params(&mut self, params: &Params) -> Result<()>;
    /// Replaces the damping map's per-substep keep, each cell's (1 − tau)^(1/substeps), when the
    /// substeps change. Backends without a damping map take nothing.
    fn set_damping_map(&mut self, _keep: &[f32]) -> Result<()> {
        Ok(())
    }
    /// Multiplies the per-step change by `factor` (when the substep length changes).
    fn rescale_velocity(&mut self, factor: f32) -> Result<()>;
    /// Keeps the state the next chunk starts from, so `undo_chunk` can return to it (the
    /// shallow-water model, whose chunk may outrun its substeps: `Simulation::step` runs it again
    /// with more). False where the backend keeps nothing.
    fn hold_chunk_start(&mut self) -> Result<bool> {
        Ok(false)
    }
    /// Returns the state to where `hold_chunk_start` kept it.
    fn undo_chunk(&mut self) -> Result<()> {
        Ok(())
    }
    /// Runs `steps` steps of `substeps` substeps each (steps ≤ MAX_CHUNK), then reports.
    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport>;
    /// The surface relative to the reference level (a readback on the GPU).
    fn read_eta(&mut self) -> Result<Vec<f32>>;
    /// Each cell's region label (id + 1, 0 dry) under volume_correction = "regions", else empty.
    fn read_regions(&mut self) -> Result<Vec<u32>>;
    /// The Navier-Stokes layer's markers (x, z), in the order they were made (a readback on the
    /// GPU); none without them.
    fn read_markers(&mut self) -> Result<Vec<[f32; 2]>> {
        Ok(Vec::new())
    }
    /// The water at `points` (metres) on the current level (`query.wgsl`; on the GPU a pass and
    /// a readback of 32 B a point). Every model answers with its surface over its ground.
    fn query(&mut self, _dx: f32, _points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        Err(crate::error::Error::Unsupported(
            "height queries read the height field: this model has its own surface".into(),
        ))
    }
    /// What covers each column (a readback on the GPU): its `held` body volume under the
    /// surface is not water. Empty without bodies.
    fn read_cover(&mut self) -> Result<Vec<crate::engine::bodies::Cover>> {
        Ok(Vec::new())
    }
    /// The flood maps so far (a readback on the GPU); none without `[output] summary`.
    fn read_summary(&mut self) -> Result<Vec<crate::summary::SummaryCell>> {
        Ok(Vec::new())
    }
    /// The flood maps of the depth-averaged flow so far, each cell's (fastest speed, largest
    /// d·|u|) while wet; none for a model without depth-averaged velocities or without
    /// `[output] summary`.
    fn read_flow_maps(&mut self) -> Result<Vec<[f32; 2]>> {
        Ok(Vec::new())
    }
    /// `[infiltration]`'s state (`engine::infiltration::SOIL_FLOATS` per cell; a readback on the
    /// GPU); none for a model or scene without it.
    fn read_soil(&mut self) -> Result<Vec<f32>> {
        Ok(Vec::new())
    }
    /// The particles in flight (a readback on the GPU); none for a model without them.
    fn read_particles(&mut self) -> Result<Vec<crate::models::pipes::spray::Particle>> {
        Ok(Vec::new())
    }
    /// Each cell's depth-averaged velocity (u, v), m/s, 0 where dry: models with a velocity
    /// (a readback on the GPU); None for the others.
    fn read_velocity(&mut self) -> Result<Option<Vec<[f32; 2]>>> {
        Ok(None)
    }
    /// The Navier-Stokes layer's 3D fields (None for the other models).
    fn read_layer(&mut self) -> Result<Option<LayerFields>> {
        Ok(None)
    }
    /// Everything the backend carries from one step to the next (a readback on the GPU).
    fn save(&mut self) -> Result<SolverState>;
    /// Replaces the state with a saved one from a backend built from the same scene.
    fn load(&mut self, state: &SolverState) -> Result<()>;
    /// The device and queue a GPU backend runs on (None on the CPU): an edit rebuilds the
    /// backend on them.
    fn device_and_queue(&self) -> Option<(wgpu::Device, wgpu::Queue)> {
        None
    }
    /// Adapter or backend in words.
    fn describe(&self) -> String;
    /// Times each GPU pass from the next chunk on (`shoal run --profile`), or says why it cannot.
    fn start_profile(&mut self) -> std::result::Result<(), String> {
        Err("the CPU backends run no GPU passes; the figures are the wall clock's".into())
    }
    /// What `start_profile` has timed so far.
    fn profile(&self) -> Option<crate::engine::solver::PassTimes> {
        None
    }
    /// While profiling, whether the next chunks take timestamps (`Simulation` alternates, so
    /// that the wall clock is read on chunks that run as they would unprofiled).
    fn set_timing(&mut self, _on: bool) {}
    /// The backend as `Any`, so that `Water` (embedding) can reach the GPU backend's buffers
    /// without this trait naming a backend.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// The whole state a backend carries from step to step, as a checkpoint holds it. Fields a scene
/// does not use are empty.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolverState {
    /// The current level: h − ref, the per-step change, and the compensated update's residual.
    pub eta: Vec<f32>,
    pub vel: Vec<f32>,
    pub carry: Vec<f32>,
    /// The faces' flux memory, two per cell, where the level keeps it (`Params::faces`).
    pub faces: Vec<f32>,
    /// What each drain could not take on the last step (with sources).
    pub shortfall: Vec<f32>,
    /// What the dry-cell rule did since the last correction, two per cell (`CORRECT_CLAMPS`).
    pub clamped: Vec<f32>,
    /// volume_correction = "regions": the labels, each region's target as (low, high) words of
    /// its 64-bit fixed point, the water added since the last correction, and the region count.
    pub region_labels: Vec<u32>,
    pub region_targets: Vec<u32>,
    pub pending: Vec<f32>,
    pub region_count: u32,
    /// With bodies: their states and what covers each column (its `held` body volume carries over).
    pub bodies: Vec<crate::engine::bodies::BodyState>,
    pub cover: Vec<crate::engine::bodies::Cover>,
    /// The pipes model, column-major as `PipeState` holds them: water per column cell (units),
    /// each cell's mean velocity (x, y), the pipes' velocities, and the spray's impact pressure
    /// per column.
    pub pipe_water: Vec<u32>,
    pub pipe_vel: Vec<f32>,
    pub pipe_flow: Vec<f32>,
    pub pipe_pressure: Vec<i32>,
    /// The spray's particles in flight, in buffer order.
    pub particles: Vec<crate::models::pipes::spray::Particle>,
    /// The Navier-Stokes layer: the 3D grid's pressures and face velocities (its surface is
    /// `eta`), in `cpu::navier_stokes`'s order.
    pub ns_p: Vec<f32>,
    pub ns_u: Vec<f32>,
    pub ns_v: Vec<f32>,
    pub ns_w: Vec<f32>,
    /// The Navier-Stokes layer's cell flags (`state::SOLID` …), one word per 3D cell.
    pub ns_flags: Vec<u32>,
    /// The Navier-Stokes layer's pressure budget for the next chunk (0: none).
    pub ns_budget: u32,
    /// The Navier-Stokes layer's volume target under its global correction (a compensated pair,
    /// metres·cells over its whole surface; None: no correction, or a checkpoint from before it:
    /// the start's).
    pub ns_target: Option<[f32; 2]>,
    /// The Navier-Stokes layer's spray and foam slots, `ns_spray::SLOTS` per cell.
    pub ns_drops: Vec<crate::models::pipes::spray::Particle>,
    /// The layer's marker particles (x, z) in the order they were made, and their book
    /// (`cpu::ns_markers::Markers::book`).
    pub ns_markers: Vec<[f32; 2]>,
    pub ns_marker_book: Vec<u32>,
    /// The flood maps so far (`[output] summary`).
    pub summary: Vec<crate::summary::SummaryCell>,
    /// The pipes model's `[rainfall]`: each column's fraction of a unit carried.
    pub pipe_rain_carry: Vec<f32>,
    /// The shallow-water model's discharges per cell, m²/s (its surface is `eta`).
    pub sw_qx: Vec<f32>,
    pub sw_qy: Vec<f32>,
    /// The rounding the water fed to each cell has yet to give it, m (`cpu::sw_feed`).
    pub sw_carry: Vec<f32>,
    /// Each cell's fastest speed (m/s) and largest d·|u| (m²/s) while wet, interleaved.
    pub sw_flow_maps: Vec<f32>,
    /// `[infiltration]`'s state, four per cell (`engine::infiltration::SOIL_FLOATS`).
    pub soil: Vec<f32>,
    /// The pipes model's `[infiltration]`: the fraction of a unit each column's ground is owed.
    pub pipe_soil_owed: Vec<f32>,
}

impl SolverState {
    /// A field of the state as 32-bit words (f32 fields as their bits), for checkpoints and the
    /// GPU's buffers. `Ground` and the scratch fields are not the backend's state: empty.
    pub fn words(&self, field: Field) -> &[u32] {
        use bytemuck::cast_slice;
        match field {
            Field::Eta => cast_slice(&self.eta),
            Field::Vel => cast_slice(&self.vel),
            Field::Faces => cast_slice(&self.faces),
            Field::Carry => cast_slice(&self.carry),
            Field::Shortfall => cast_slice(&self.shortfall),
            Field::Clamped => cast_slice(&self.clamped),
            Field::RegionLabels => &self.region_labels,
            Field::RegionTargets => &self.region_targets,
            Field::Pending => cast_slice(&self.pending),
            Field::Bodies => cast_slice(&self.bodies),
            Field::Cover => cast_slice(&self.cover),
            Field::PipeWater => &self.pipe_water,
            Field::PipeVel => cast_slice(&self.pipe_vel),
            Field::PipeFlow => cast_slice(&self.pipe_flow),
            Field::PipePressure => cast_slice(&self.pipe_pressure),
            Field::Particles => cast_slice(&self.particles),
            Field::NsPressure => cast_slice(&self.ns_p),
            Field::NsU => cast_slice(&self.ns_u),
            Field::NsV => cast_slice(&self.ns_v),
            Field::NsW => cast_slice(&self.ns_w),
            Field::NsFlags => &self.ns_flags,
            Field::NsDrops => cast_slice(&self.ns_drops),
            Field::NsMarkers => cast_slice(&self.ns_markers),
            Field::NsMarkerBook => &self.ns_marker_book,
            Field::Summary => cast_slice(&self.summary),
            Field::PipeRainCarry => cast_slice(&self.pipe_rain_carry),
            Field::SwQx => cast_slice(&self.sw_qx),
            Field::SwQy => cast_slice(&self.sw_qy),
            Field::SwCarry => cast_slice(&self.sw_carry),
            Field::SwFlowMaps => cast_slice(&self.sw_flow_maps),
            Field::Soil => cast_slice(&self.soil),
            Field::PipeSoilOwed => cast_slice(&self.pipe_soil_owed),
            _ => &[],
        }
    }

    /// Replaces a field from 32-bit words; `words` must hold whole elements (`Bodies` and
    /// `Cover` span several words each). Returns false, changing nothing, when it does not.
    pub fn set_words(&mut self, field: Field, words: &[u32]) -> bool {
        fn whole<T: bytemuck::Pod>(words: &[u32]) -> Option<Vec<T>> {
            let bytes: &[u8] = bytemuck::cast_slice(words);
            bytes
                .len()
                .is_multiple_of(std::mem::size_of::<T>())
                .then(|| bytemuck::pod_collect_to_vec(bytes))
        }
        let set = |target: &mut Vec<f32>| *target = bytemuck::cast_slice(words).to_vec();
        match field {
            Field::Eta => set(&mut self.eta),
            Field::Vel => set(&mut self.vel),
            Field::Faces => set(&mut self.faces),
            Field::Carry => set(&mut self.carry),
            Field::Shortfall => set(&mut self.shortfall),
            Field::Clamped => set(&mut self.clamped),
            Field::RegionLabels => self.region_labels = words.to_vec(),
            Field::RegionTargets => self.region_targets = words.to_vec(),
            Field::Pending => set(&mut self.pending),
            Field::Bodies => match whole(words) {
                Some(v) => self.bodies = v,
                None => return false,
            },
            Field::Cover => match whole(words) {
                Some(v) => self.cover = v,
                None => return false,
            },
            Field::PipeWater => self.pipe_water = words.to_vec(),
            Field::PipeVel => set(&mut self.pipe_vel),
            Field::PipeFlow => set(&mut self.pipe_flow),
            Field::PipePressure => self.pipe_pressure = bytemuck::cast_slice(words).to_vec(),
            Field::Particles => match whole(words) {
                Some(v) => self.particles = v,
                None => return false,
            },
            Field::NsPressure => set(&mut self.ns_p),
            Field::NsU => set(&mut self.ns_u),
            Field::NsV => set(&mut self.ns_v),
            Field::NsW => set(&mut self.ns_w),
            Field::NsFlags => self.ns_flags = words.to_vec(),
            Field::NsDrops => match whole(words) {
                Some(v) => self.ns_drops = v,
                None => return false,
            },
            Field::NsMarkers => match whole(words) {
                Some(v) => self.ns_markers = v,
                None => return false,
            },
            Field::NsMarkerBook => self.ns_marker_book = words.to_vec(),
            Field::Summary => match whole(words) {
                Some(v) => self.summary = v,
                None => return false,
            },
            Field::PipeRainCarry => set(&mut self.pipe_rain_carry),
            Field::SwQx => set(&mut self.sw_qx),
            Field::SwQy => set(&mut self.sw_qy),
            Field::SwCarry => set(&mut self.sw_carry),
            Field::SwFlowMaps => set(&mut self.sw_flow_maps),
            Field::Soil => set(&mut self.soil),
            Field::PipeSoilOwed => set(&mut self.pipe_soil_owed),
            _ => return words.is_empty(),
        }
        true
    }

    /// Elements `field` holds (as `words` counts them, per element of its own type).
    pub fn len(&self, field: Field) -> usize {
        match field {
            Field::Bodies => self.bodies.len(),
            Field::Cover => self.cover.len(),
            Field::Particles => self.particles.len(),
            Field::NsDrops => self.ns_drops.len(),
            Field::NsMarkers => self.ns_markers.len(),
            Field::Summary => self.summary.len(),
            _ => self.words(field).len(),
        }
    }
}

/// What a backend is built from: the uniform parameters, the method, and the initial fields
/// relative to the reference level.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// The uniforms.
    pub params: Params,
    /// The height-field solver.
    pub method: Method,
    /// h − ref at the start.
    pub eta: &'a [f32],
    /// The per-substep change at the start (`start::taylor_vel`); empty: at rest.
    pub vel: &'a [f32],
    /// The faces' flux memory at the start, two per cell (`start::taylor_vel`); empty: none
    /// (at rest, or `Params::faces` is 0).
    pub faces: &'a [f32],
    /// b − ref.
    pub ground: &'a [f32],
    /// Each probe's cell index.
    pub probe_cells: &'a [u32],
    /// Height per step each cell's sources ask for, drains negative; empty without sources.
    pub source: &'a [f32],
    /// Whether each chunk brings a per-step feed table in `ChunkInput::rain` (`[rain]`'s drops,
    /// hydrographs, `[rainfall]`: `feeds::Feeds::any`).
    pub rain: bool,
    /// Each cell's share of `[rainfall]`'s intensity (empty unless `params.rainfall` is the map).
    pub rainfall_map: &'a [f32],
    /// Each cell's 1 − tau under `physics.damping_map` (empty without it).
    pub damping_keep: &'a [f32],
    /// `[[pressure]]` patches (each chunk brings their places in `ChunkInput::pressure`).
    pub pressure_patches: u32,
    /// `[output] summary`: the depth above which a cell counts wet (None: no summary).
    pub summary: Option<f32>,
    /// The bodies at the start (empty without bodies), and their uniforms.
    pub bodies: &'a [crate::engine::bodies::BodyState],
    /// The bodies' uniforms.
    pub body_params: crate::engine::bodies::BodyParams,
    /// What covers each column at the start (`placement::settle_initial_water`); empty without bodies.
    pub cover: &'a [crate::engine::bodies::Cover],
    /// The pipes model: the scene and its columns (None: the height field).
    pub pipes: Option<(&'a crate::scene::Scene, &'a crate::models::pipes::columns::Columns)>,
    /// The Navier-Stokes layer (None: the other models).
    pub navier_stokes: Option<&'a crate::models::navier_stokes::setup::NsLayer>,
    /// The shallow-water model (None: the other models).
    pub shallow_water: Option<&'a crate::models::shallow_water::setup::SwSetup>,
    /// `[infiltration]` on the height field (`Params::infiltration`): its law's three parameter
    /// planes (`engine::infiltration::Soil::planes`); empty without.
    pub soil_law: &'a [f32],
}

impl<'a> Setup<'a> {
    /// A setup with the level and nothing else: no probes, sources, rain or bodies (tests and
    /// benches that drive a solver directly).
    pub fn bare(params: Params, method: Method, eta: &'a [f32], ground: &'a [f32]) -> Setup<'a> {
        Setup {
            params,
            method,
            eta,
            vel: &[],
            faces: &[],
            ground,
            probe_cells: &[],
            source: &[],
            rain: false,
            rainfall_map: &[],
            damping_keep: &[],
            pressure_patches: 0,
            summary: None,
            bodies: &[],
            body_params: Default::default(),
            cover: &[],
            pipes: None,
            navier_stokes: None,
            shallow_water: None,
            soil_law: &[],
        }
    }

    /// The pipes model's setup, when the scene runs it.
    pub fn pipe_setup(&self) -> Option<PipeSetup<'_>> {
        self.pipes.map(|(scene, columns)| PipeSetup {
            base: self,
            scene,
            columns,
            params: self.params,
            probe_cells: self.probe_cells,
            rain: self.rain,
            rainfall_map: self.rainfall_map,
            ground: self.ground,
            summary: self.summary,
            soil_law: self.soil_law,
            pressure_patches: self.pressure_patches,
        })
    }

    /// The passes of a step for this setup: the one list both backends run.
    pub fn schedule(&self) -> crate::engine::schedule::Schedule {
        use crate::engine::schedule::{ModelRun, Schedule};
        Schedule::new(ModelRun::HeightField(self.method), &self.params, self.rain)
            .reading_flows(crate::engine::sections::reads_flows(self.probe_cells))
    }
}

/// What the pipes model's backends are built from.
#[derive(Clone, Copy, Debug)]
pub struct PipeSetup<'a> {
    /// The whole setup it is part of (the bodies, their uniforms and covers).
    pub base: &'a Setup<'a>,
    /// The scene (its `[pipes]`, sides, step).
    pub scene: &'a crate::scene::Scene,
    /// The columns, their water and sources.
    pub columns: &'a crate::models::pipes::columns::Columns,
    /// The height-field uniforms (the substeps).
    pub params: Params,
    /// Each probe's column.
    pub probe_cells: &'a [u32],
    /// Whether each chunk brings a per-step feed table in `ChunkInput::rain`.
    pub rain: bool,
    /// Each column's share of `[rainfall]`'s intensity (empty unless `params.rainfall` is the map).
    pub rainfall_map: &'a [f32],
    /// Each column's top floor − ref (what the flood maps measure depth from).
    pub ground: &'a [f32],
    /// `[output] summary`: the depth above which a column counts wet (None: no summary).
    pub summary: Option<f32>,
    /// `[infiltration]` (`Params::infiltration`): its law's three parameter planes, a value per
    /// column each (empty without).
    pub soil_law: &'a [f32],
    /// `[[pressure]]` patches per step (`ChunkInput::pressure` holds as many per step).
    pub pressure_patches: u32,
}

impl PipeSetup<'_> {
    /// The passes of a step.
    pub fn schedule(&self) -> crate::engine::schedule::Schedule {
        let spray = self.spray().is_some();
        crate::engine::schedule::Schedule::new(
            crate::engine::schedule::ModelRun::Pipes { spray },
            &self.params,
            self.rain,
        )
    }

    /// Whether the flow reads an air head on the top cells: `[[pressure]]`'s, or the one the
    /// bodies press with (`pipe_bodies.wgsl` `press`).
    pub fn air(&self) -> bool {
        self.pressure_patches > 0 || !self.base.bodies.is_empty()
    }

    /// The spray's uniforms, or None without spray.
    pub fn spray(&self) -> Option<crate::models::pipes::spray::SprayParams> {
        crate::models::pipes::spray::spray_params(self.scene, self.columns)
    }
}

/// What the host hands a chunk: the volume target at its start and its rain.
#[derive(Clone, Debug, Default)]
pub struct ChunkInput {
    /// metres·cells
    pub target: f64,
    /// The height field's books' target at the chunk's start (`ChunkReport::books_target`, moved
    /// by the host's edits).
    pub books_target: [f32; 2],
    /// One entry per step of the chunk, or empty without rain.
    pub rain: crate::engine::rain::RainChunk,
    /// The steps run before the chunk (the spray's random numbers are keyed by the step).
    pub first_step: u64,
    /// Each step's `[[pressure]]` patches where they stand then: `steps × patches`, row per step
    /// (empty without them).
    pub pressure: Vec<crate::engine::pressure::Patch>,
}

/// The target after a chunk (metres·cells). Under `CORRECT_TARGET`: the books' (`books`, which
/// has counted the start's, the sources and drains asked for and the rain, less what drains
/// could not take) with the last step's shortfall `last`, which the next chunk's first `settle`
/// adds to the books. Under `CORRECT_CLAMPS` the boundary moves water too, so the target is what
/// the last step held (`held`, measured on the backend) plus that step's sources, drains and rain.
pub fn chunk_target(input: &ChunkInput, params: &Params, books: [f32; 2], last: f32, held: f32) -> f64 {
    if params.correct == crate::engine::params::CORRECT_CLAMPS {
        let rain_last = input.rain.steps.last().map_or(0.0, |s| s.added as f64);
        return held as f64 + params.source_step as f64 + rain_last + last as f64;
    }
    crate::engine::params::pair_value(books) + last as f64
}

/// What the GPU spent on one pass, summed over every time it ran while timed.
#[derive(Clone, Debug, PartialEq)]
pub struct PassTime {
    /// The pass, as `--dry-run` names it.
    pub name: &'static str,
    /// How many times it ran.
    pub runs: u64,
    /// How many of those were timed.
    pub timed: u64,
    /// GPU seconds between its start and end timestamps, summed over the timed runs.
    pub seconds: f64,
    /// What one run moves per cell, by the cost model (`gpu::cost`).
    pub bytes_per_cell: u32,
    /// Its dispatches per run, by the cost model.
    pub dispatches: u32,
}

/// The timestamps taken so far, per pass in the order passes first ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassTimes {
    pub passes: Vec<PassTime>,
    /// GPU seconds from each chunk's first timestamp to its last, summed: the passes' own time
    /// plus the gaps between them (launches, barriers).
    pub span: f64,
    /// Passes that ran untimed because a chunk had more than the query set holds.
    pub untimed: u64,
}
