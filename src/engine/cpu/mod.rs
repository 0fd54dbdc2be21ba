//! The CPU reference: the twin of every WGSL pass, same names, same f32 arithmetic in the same
//! order, so GPU and CPU agree to float32 rounding (fused multiply-adds on the GPU are the difference).
pub mod bodies;
pub mod caustics;
pub mod coupling;
pub mod edit;
pub mod pressed;
pub mod pressure;
pub mod probe;
pub mod query;
pub mod reduce;
pub mod regions;
pub mod summary;
pub mod surface;
pub mod volume;

use crate::engine::fast;
use crate::engine::params::{Params, Totals};
use crate::engine::schedule::{Pass, Schedule};
use crate::engine::solver::{ChunkInput, ChunkReport, Setup, Solver, SolverState};
use crate::error::Result;
use crate::models::height_field::cpu::{adi, explicit};
use crate::models::height_field::fast as hf_fast;

/// A CPU backend in words: the fast one (`fast`) on rayon's pool, or the single-threaded twin.
pub fn describe(fast: bool) -> String {
    if fast {
        format!("cpu ({} threads)", rayon::current_num_threads())
    } else {
        "cpu (reference, single thread)".into()
    }
}

/// The CPU backend's state: the same buffers as the GPU's, ping-ponged by index.
pub struct CpuSolver {
    params: Params,
    ground: Vec<f32>,
    eta: [Vec<f32>; 2],
    vel: [Vec<f32>; 2],
    /// The faces' flux memory, two per cell (`explicit::Memory`), beside `vel`; empty unless
    /// `Params::faces`.
    faces: [Vec<f32>; 2],
    /// Rounding residuals of the compensated eta update, updated in place.
    carry: Vec<f32>,
    /// What the dry-cell rule did to each cell since the last correction (`CORRECT_CLAMPS`).
    clamped: Vec<[f32; 2]>,
    current: usize,
    probe_cells: Vec<u32>,
    totals: Totals,
    /// The passes of a step, in order.
    schedule: Schedule,
    source: Vec<f32>,
    /// Each cell's share of `[rainfall]` (empty unless a map).
    rainfall_map: Vec<f32>,
    /// The per-cell forcing, as the GPU's buffer holds it: the damping map's 1 − tau, then the
    /// pressure head (`pressure.wgsl`'s twin writes it each step).
    forcing: Vec<f32>,
    /// `[[pressure]]` patches per step.
    patches: usize,
    /// The flood maps so far, and the depth above which a cell counts wet (`[output] summary`).
    summary: Vec<crate::summary::SummaryCell>,
    wet_depth: f32,
    shortfall: Vec<f32>,
    /// `[infiltration]`: each cell's soil state and the law's three parameter planes (empty
    /// without).
    soil: Vec<[f32; 4]>,
    soil_law: Vec<f32>,
    volume: crate::engine::params::VolumeState,
    /// The per-region correction, when the scene asks for it.
    regions: Option<regions::Regions>,
    /// Rigid bodies and their coupling, when the scene has any.
    bodies: Option<bodies::BodySet>,
    /// Whether the passes `cpu::fast` has run there, on every core of rayon's current pool;
    /// false: every pass runs the single-threaded reference twin.
    fast: bool,
    /// Fast backend: a correction `Volume` settled and did not write (`crate::engine::params::is_plain`); the next
    /// plain explicit step applies it as it reads (`fast::fused`), any other pass after `flush`.
    /// Never set between chunks.
    deferred: Option<crate::engine::params::VolumeState>,
    /// Fast backend: the totals of level `current` as the last fused step wrote it, for the
    /// `Reduce` pass; cleared by any pass that changes the level.
    fused_totals: Option<Totals>,
}

/// What one chunk gathers as its steps run.
struct Chunk<'a> {
    input: &'a ChunkInput,
    first_bad: Option<u32>,
    probes: Vec<f32>,
    history: Vec<f32>,
}

impl CpuSolver {
    /// The fast CPU backend: `cpu::fast`'s passes where it has them, bit-identical to the twin.
    /// It runs on rayon's current pool (`ThreadPool::install` chooses the threads).
    pub fn fast(setup: &Setup) -> CpuSolver {
        CpuSolver {
            fast: true,
            ..CpuSolver::new(setup)
        }
    }

    /// The reference CPU backend: the single-threaded twin of every pass, built from the same
    /// setup as the GPU one.
    pub fn new(setup: &Setup) -> CpuSolver {
        let n = setup.eta.len();
        let mut s = CpuSolver {
            params: setup.params,
            ground: setup.ground.to_vec(),
            eta: [setup.eta.to_vec(), vec![0.0; n]],
            vel: [
                if setup.vel.is_empty() {
                    vec![0.0; n]
                } else {
                    setup.vel.to_vec()
                },
                vec![0.0; n],
            ],
            faces: {
                let len = if setup.params.faces != 0 { 2 * n } else { 0 };
                let mut start = setup.faces.to_vec();
                start.resize(len, 0.0);
                [start, vec![0.0; len]]
            },
            carry: vec![0.0; n],
            clamped: vec![
                [0.0; 2];
                if setup.params.correct == crate::engine::params::CORRECT_CLAMPS {
                    n
                } else {
                    0
                }
            ],
            current: 0,
            probe_cells: setup.probe_cells.to_vec(),
            totals: Totals::default(),
            schedule: setup.schedule(),
            source: setup.source.to_vec(),
            rainfall_map: setup.rainfall_map.to_vec(),
            forcing: {
                let mut words = setup.damping_keep.to_vec();
                if setup.pressure_patches > 0 {
                    words.resize(words.len() + n, 0.0);
                }
                words
            },
            patches: setup.pressure_patches as usize,
            summary: setup
                .summary
                .map_or(Vec::new(), |wet| crate::summary::initial(setup.eta, setup.ground, wet)),
            wet_depth: setup.summary.unwrap_or(0.0),
            shortfall: vec![0.0; if setup.source.is_empty() { 0 } else { n }],
            soil: vec![[0.0; 4]; if setup.params.infiltration != 0 { n } else { 0 }],
            soil_law: setup.soil_law.to_vec(),
            volume: crate::engine::params::VolumeState::default(),
            regions: (setup.params.regions != 0).then(|| regions::Regions::new(&setup.params)),
            bodies: bodies::BodySet::new(setup),
            fast: false,
            deferred: None,
            fused_totals: None,
        };
        s.totals = s.reduce();
        if let Some(r) = &mut s.regions {
            r.record(&s.params, &s.ground, &s.eta[0], &s.vel[0], &s.faces[0]);
        }
        s
    }

    fn reduce(&self) -> Totals {
        let p = self.current;
        let extras = reduce::Extras {
            shortfall: &self.shortfall,
            clamped: &self.clamped,
            cover: self.bodies.as_ref().map_or(&[], |b| &b.cover),
            faces: &self.faces[p],
        };
        if self.fast {
            fast::reduce::reduce(&self.params, &self.ground, &self.eta[p], &self.vel[p], extras)
        } else {
            reduce::reduce(&self.params, &self.ground, &self.eta[p], &self.vel[p], extras)
        }
    }

    /// Runs one pass of step `index` of a chunk: the CPU executor of the schedule.
    fn run_pass(&mut self, pass: Pass, index: u32, chunk: &mut Chunk) {
        if self.fast {
            if !self.reads_deferred(pass) {
                self.flush();
            }
            if !matches!(
                pass,
                Pass::Reduce | Pass::Probe | Pass::Integrate | Pass::Regions | Pass::Summary
            ) {
                self.fused_totals = None;
            }
        }
        match pass {
            Pass::Reduce => self.totals = self.fused_totals.unwrap_or_else(|| self.reduce()),
            // In place: level `current` stays current.
            Pass::Explicit { edges } if self.fuses(edges) => {
                if self.fused_step() && chunk.first_bad.is_none() {
                    chunk.first_bad = Some(index);
                }
            }
            Pass::Explicit { .. } | Pass::Adi => {
                if self.substep(pass) && chunk.first_bad.is_none() {
                    chunk.first_bad = Some(index);
                }
                self.current = 1 - self.current;
            }
            Pass::Footprint | Pass::Coupling | Pass::Integrate => self.body_pass(pass, chunk),
            Pass::Regions => {
                let (p, r) = (self.current, self.regions.as_mut().expect("regions"));
                r.record(&self.params, &self.ground, &self.eta[p], &self.vel[p], &self.faces[p]);
            }
            Pass::Volume => self.correct(index, &chunk.input.rain),
            Pass::Summary => {
                let sp = crate::summary::SummaryParams {
                    first_step: chunk.input.first_step as u32,
                    wet_depth: self.wet_depth,
                    cells: self.ground.len() as u32,
                    _pad: 0,
                };
                let eta = &self.eta[self.current];
                summary::fold(&sp, index, &self.ground, eta, &mut self.summary);
            }
            Pass::Pressure => {
                let n = self.patches;
                let at = crate::engine::gpu::state::head_at(&self.params) as usize;
                let patches = &chunk.input.pressure[index as usize * n..(index as usize + 1) * n];
                let cells = self.eta[0].len();
                pressure::head(self.params.nx, patches, &mut self.forcing[at..at + cells]);
            }
            Pass::PipeFlow
            | Pass::PipeApply
            | Pass::Spray
            | Pass::PipeRain
            | Pass::NavierStokes
            | Pass::NsSpray
            | Pass::NsBodies
            | Pass::ShallowWater
            | Pass::SwFeed
            | Pass::SwMaps
            | Pass::SwPress
            | Pass::SwLoads
            | Pass::PipeSurface
            | Pass::PipePress
            | Pass::PipeLoads => {
                unreachable!("the pipes, Navier-Stokes and shallow-water models have their own backends")
            }
            Pass::Probe => self.probe(chunk),
        }
    }

    /// The bodies' passes: their footprint on the water, the coupling solve, the integration.
    fn body_pass(&mut self, pass: Pass, chunk: &mut Chunk) {
        match pass {
            Pass::Footprint => {
                let b = self.bodies.as_mut().expect("bodies");
                b.footprint(&self.params, &self.ground, &mut self.eta[self.current]);
            }
            Pass::Coupling => {
                let (p, b) = (self.current, self.bodies.as_mut().expect("bodies"));
                b.couple(&self.params, &self.ground, &mut self.eta[p], &mut self.vel[p]);
            }
            Pass::Integrate => {
                let b = self.bodies.as_mut().expect("bodies");
                b.integrate(
                    &self.params,
                    &self.ground,
                    &self.eta[self.current],
                    &[],
                    &mut chunk.history,
                );
            }
            other => unreachable!("{other:?} is not a body pass"),
        }
    }

    /// The probes' heights after this step (through the deferred correction where there is one),
    /// and the discharge lines' flows.
    fn probe(&mut self, chunk: &mut Chunk) {
        let (p, eta, vel) = (&self.params, &self.eta[self.current], &self.vel[self.current]);
        let faces = &self.faces[self.current];
        match &self.deferred {
            Some(volume) => probe::record(
                p,
                &self.probe_cells,
                |c| volume::apply_plain(p, volume, self.ground[c], eta[c], vel[c], self.carry[c]).0,
                faces,
                &mut chunk.probes,
            ),
            None => probe::record(p, &self.probe_cells, |c| eta[c], faces, &mut chunk.probes),
        }
    }

    /// Whether the fast backend runs this explicit substep fused (`fast::fused`).
    fn fuses(&self, edges: bool) -> bool {
        self.fast
            && !edges
            && self.params.correct != crate::engine::params::CORRECT_CLAMPS
            && self.params.forcing & crate::engine::params::STEP_FORCING == 0
            && self.params.faces == 0
    }

    /// Whether `pass` runs as it should with a correction still deferred: the fused step applies
    /// it, the probes read their few cells corrected, and a `Reduce` the fused step already summed
    /// reads no cell.
    fn reads_deferred(&self, pass: Pass) -> bool {
        match pass {
            Pass::Explicit { edges } => self.fuses(edges),
            Pass::Reduce => self.fused_totals.is_some(),
            Pass::Probe => true,
            _ => false,
        }
    }

    /// Writes a deferred correction to the level: the twin's `apply`.
    fn flush(&mut self) {
        if let Some(volume) = self.deferred.take() {
            self.fused_totals = None;
            let p = self.current;
            let mut cells = volume::Cells {
                ground: &self.ground,
                source: &[],
                rainfall: 0.0,
                rainfall_map: &[],
                shortfall: &mut [],
                eta: &mut self.eta[p],
                vel: &mut self.vel[p],
                carry: &mut self.carry,
                clamped: &mut [],
                labels: &[],
                corrections: &[],
                pending: &mut [],
                faces: &[],
                soil: &mut [],
                soil_law: &[],
                first: 0,
            };
            fast::volume::apply(&self.params, &volume, &mut cells);
        }
    }

    /// The fused explicit substep of level `current` (with any deferred correction), written back
    /// in place; its totals go to `fused_totals`. Returns whether any value came out non-finite.
    fn fused_step(&mut self) -> bool {
        let p = &self.params;
        let deferred = self.deferred.take();
        let fusion = hf_fast::fused::Fusion {
            params: p,
            ground: &self.ground,
            totals: &self.totals,
            deferred: deferred.as_ref(),
            sums: p.sources == 0 && p.correct != crate::engine::params::CORRECT_CLAMPS && p.bodies == 0,
        };
        let level = hf_fast::fused::InPlace {
            eta: &mut self.eta[self.current],
            vel: &mut self.vel[self.current],
            carry: &mut self.carry,
        };
        let (bad, totals) = hf_fast::fused::step(level, &fusion);
        self.fused_totals = totals;
        bad
    }

    /// Twin of the model's substep pass (explicit or ADI) from level `current` into the other.
    /// Returns whether any value came out non-finite.
    fn substep(&mut self, pass: Pass) -> bool {
        let [eta_a, eta_b] = &mut self.eta;
        let [vel_a, vel_b] = &mut self.vel;
        let [faces_a, faces_b] = &mut self.faces;
        let (eta_in, eta_out, vel_in, vel_out, faces_in, faces_out) = if self.current == 0 {
            (&*eta_a, eta_b, &*vel_a, vel_b, &*faces_a, faces_b)
        } else {
            (&*eta_b, eta_a, &*vel_b, vel_a, &*faces_b, faces_a)
        };
        let level = explicit::Level {
            params: &self.params,
            ground: &self.ground,
            totals: &self.totals,
            eta: eta_in,
            vel: vel_in,
            forcing: &self.forcing,
            faces: faces_in,
        };
        let mut out = explicit::Out {
            eta: eta_out,
            vel: vel_out,
            carry: &mut self.carry,
            clamped: &mut self.clamped,
            faces: faces_out,
        };
        // The fast passes step the scene's damping alone: with a damping map or pressure, the
        // twin's passes run.
        let fast = self.fast && self.params.forcing & crate::engine::params::STEP_FORCING == 0;
        match pass {
            Pass::Explicit { edges } if fast => hf_fast::explicit::step(&level, &mut out, edges),
            Pass::Explicit { edges } => explicit::step(&level, &mut out, edges),
            Pass::Adi if fast => hf_fast::adi::step(&level, &mut out),
            Pass::Adi => adi::step(&level, &mut out),
            other => unreachable!("{other:?} is not a substep"),
        }
    }

    /// Twin of volume.wgsl's `settle`, `apply` and `rain` for step `index` (after `Reduce` and,
    /// under "regions", `Regions`).
    fn correct(&mut self, index: u32, rain: &crate::engine::rain::RainChunk) {
        let drops = rain.steps.get(index as usize).copied().unwrap_or_default();
        self.volume.settle(&self.params, &self.totals, drops.added);
        if self.fast && drops.count == 0 && crate::engine::params::is_plain(&self.params) {
            self.deferred = Some(self.volume);
            return;
        }
        let p = self.current;
        let (labels, corrections, pending) = match &mut self.regions {
            Some(r) => r.parts(),
            None => (&[][..], &[][..], &mut [][..]),
        };
        let mut cells = volume::Cells {
            ground: &self.ground,
            source: &self.source,
            rainfall: drops.rainfall,
            rainfall_map: &self.rainfall_map,
            shortfall: &mut self.shortfall,
            eta: &mut self.eta[p],
            vel: &mut self.vel[p],
            carry: &mut self.carry,
            clamped: &mut self.clamped,
            labels,
            corrections,
            pending,
            faces: &self.faces[p],
            soil: &mut self.soil,
            soil_law: &self.soil_law,
            first: 0,
        };
        if self.fast {
            fast::volume::apply(&self.params, &self.volume, &mut cells);
        } else {
            volume::apply(&self.params, &self.volume, &mut cells);
        }
        let run = drops.start as usize..(drops.start + drops.count) as usize;
        volume::rain(&self.params, &mut cells, &rain.cells[run.clone()], &rain.heights[run]);
    }
}

impl Solver for CpuSolver {
    fn set_params(&mut self, params: &Params) -> Result<()> {
        self.params = *params;
        Ok(())
    }

    fn set_damping_map(&mut self, keep: &[f32]) -> Result<()> {
        self.forcing[..keep.len()].copy_from_slice(keep);
        Ok(())
    }

    fn rescale_velocity(&mut self, factor: f32) -> Result<()> {
        explicit::rescale_velocity(&mut self.vel[self.current], factor);
        explicit::rescale_velocity(&mut self.faces[self.current], factor);
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        self.volume = crate::engine::params::VolumeState::start(input.books_target);
        let mut chunk = Chunk {
            input,
            first_bad: None,
            probes: Vec::with_capacity(steps as usize * self.probe_cells.len()),
            history: Vec::new(),
        };
        let schedule = self.schedule.clone();
        for index in 0..steps {
            for pass in schedule.step(substeps) {
                self.run_pass(pass, index, &mut chunk);
            }
        }
        self.flush();
        self.totals = self.fused_totals.take().unwrap_or_else(|| self.reduce());
        Ok(ChunkReport {
            first_bad_step: chunk.first_bad,
            totals: self.totals,
            probes: chunk.probes,
            target: crate::engine::solver::chunk_target(
                input,
                &self.params,
                self.volume.target_pair(),
                self.totals.shortfall,
                self.volume.held,
            ),
            books_target: self.volume.target_pair(),
            regions: self.regions.as_ref().map_or(0, |r| r.count()),
            bodies: chunk.history,
            coupling: self.bodies.as_ref().map_or(Default::default(), |b| b.last),
            model: Default::default(),
        })
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        Ok(self.eta[self.current].clone())
    }

    fn query(&mut self, dx: f32, points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        self.flush();
        let p = &self.params;
        Ok(query::query(
            p.nx,
            p.ny,
            dx,
            &self.eta[self.current],
            &self.ground,
            points,
        ))
    }

    fn read_cover(&mut self) -> Result<Vec<crate::engine::bodies::Cover>> {
        Ok(self.bodies.as_ref().map_or(Vec::new(), |b| b.cover.clone()))
    }

    fn read_summary(&mut self) -> Result<Vec<crate::summary::SummaryCell>> {
        Ok(self.summary.clone())
    }

    fn read_soil(&mut self) -> Result<Vec<f32>> {
        Ok(self.soil.iter().flatten().copied().collect())
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(self.regions.as_ref().map_or(Vec::new(), |r| r.labels().to_vec()))
    }

    fn save(&mut self) -> Result<SolverState> {
        let p = self.current;
        let mut state = SolverState {
            eta: self.eta[p].clone(),
            vel: self.vel[p].clone(),
            faces: self.faces[p].clone(),
            carry: self.carry.clone(),
            shortfall: self.shortfall.clone(),
            clamped: self.clamped.iter().flatten().copied().collect(),
            summary: self.summary.clone(),
            soil: self.soil.iter().flatten().copied().collect(),
            ..SolverState::default()
        };
        if let Some(r) = &self.regions {
            (state.region_labels, state.region_targets, state.pending) = r.save();
            state.region_count = r.count();
        }
        if let Some(b) = &self.bodies {
            state.bodies.clone_from(&b.states);
            state.cover.clone_from(&b.cover);
        }
        Ok(state)
    }

    fn load(&mut self, state: &SolverState) -> Result<()> {
        let p = self.current;
        self.eta[p].clone_from(&state.eta);
        self.vel[p].clone_from(&state.vel);
        self.faces[p].clone_from(&state.faces);
        self.faces[p].resize(self.faces[1 - p].len(), 0.0);
        self.carry.clone_from(&state.carry);
        self.shortfall.clone_from(&state.shortfall);
        self.clamped = state.clamped.chunks_exact(2).map(|k| [k[0], k[1]]).collect();
        if !self.soil.is_empty() {
            self.soil = state.soil.chunks_exact(4).map(|k| [k[0], k[1], k[2], k[3]]).collect();
        }
        if let Some(r) = &mut self.regions {
            r.load(
                &state.region_labels,
                &state.region_targets,
                &state.pending,
                state.region_count,
            );
        }
        if let Some(b) = &mut self.bodies {
            b.states.clone_from(&state.bodies);
            b.cover.clone_from(&state.cover);
        }
        if !self.summary.is_empty() {
            self.summary.clone_from(&state.summary);
        }
        self.totals = self.reduce();
        Ok(())
    }

    fn describe(&self) -> String {
        crate::engine::cpu::describe(self.fast)
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
