//! The CPU reference: the twin of every WGSL pass, same names, same f32 arithmetic in the same
//! order, so GPU and CPU agree to float32 rounding (fused multiply-adds on the GPU are the difference).

pub mod adi;
pub mod bodies;
pub mod caustics;
pub mod coupling;
pub mod edit;
pub mod explicit;
pub mod probe;
pub mod reduce;
pub mod regions;
pub mod surface;
pub mod volume;

use crate::error::Result;
use crate::params::{Params, Totals};
use crate::scene::Solver as Method;
use crate::solver::{ChunkInput, ChunkReport, Setup, Solver, SolverState};

/// The CPU backend's state: the same buffers as the GPU's, ping-ponged by index.
pub struct CpuSolver {
    params: Params,
    ground: Vec<f32>,
    eta: [Vec<f32>; 2],
    vel: [Vec<f32>; 2],
    /// Rounding residuals of the compensated eta update, updated in place.
    carry: Vec<f32>,
    /// What the dry-cell rule did to each cell since the last correction (`CORRECT_CLAMPS`).
    clamped: Vec<[f32; 2]>,
    current: usize,
    probe_cells: Vec<u32>,
    totals: Totals,
    method: Method,
    source: Vec<f32>,
    shortfall: Vec<f32>,
    volume: volume::Volume,
    /// See `GpuSolver::counted_shortfall`.
    counted_shortfall: f32,
    rains: bool,
    /// The per-region correction, when the scene asks for it.
    regions: Option<regions::Regions>,
    /// Rigid bodies and their coupling, when the scene has any.
    bodies: Option<Bodies>,
}

/// The bodies' state on the CPU: the twin of the GPU's body buffers.
struct Bodies {
    params: crate::bodies::BodyParams,
    states: Vec<crate::bodies::BodyState>,
    cover: Vec<crate::bodies::Cover>,
    vectors: coupling::Vectors,
    last: coupling::SolveReport,
}

impl CpuSolver {
    pub fn new(setup: &Setup) -> CpuSolver {
        let n = setup.eta.len();
        let mut s = CpuSolver {
            params: setup.params,
            ground: setup.ground.to_vec(),
            eta: [setup.eta.to_vec(), vec![0.0; n]],
            vel: [vec![0.0; n], vec![0.0; n]],
            carry: vec![0.0; n],
            clamped: vec![
                [0.0; 2];
                if setup.params.correct == crate::params::CORRECT_CLAMPS {
                    n
                } else {
                    0
                }
            ],
            current: 0,
            probe_cells: setup.probe_cells.to_vec(),
            totals: Totals::default(),
            method: setup.method,
            source: setup.source.to_vec(),
            shortfall: vec![0.0; if setup.source.is_empty() { 0 } else { n }],
            volume: volume::Volume::default(),
            counted_shortfall: 0.0,
            rains: setup.rain,
            regions: (setup.params.regions != 0).then(|| regions::Regions::new(&setup.params)),
            bodies: (!setup.bodies.is_empty()).then(|| Bodies {
                params: setup.body_params,
                states: setup.bodies.to_vec(),
                cover: setup.cover.to_vec(),
                vectors: coupling::Vectors::new(n),
                last: Default::default(),
            }),
        };
        s.totals = s.reduce();
        if let Some(r) = &mut s.regions {
            r.record(&s.params, &s.ground, &s.eta[0], &s.vel[0]);
        }
        s
    }

    fn reduce(&self) -> Totals {
        let p = self.current;
        let extras = reduce::Extras {
            shortfall: &self.shortfall,
            clamped: &self.clamped,
            cover: self.bodies.as_ref().map_or(&[], |b| &b.cover),
        };
        reduce::reduce(&self.params, &self.ground, &self.eta[p], &self.vel[p], extras)
    }
}

impl Solver for CpuSolver {
    fn set_params(&mut self, params: &Params) -> Result<()> {
        self.params = *params;
        Ok(())
    }

    fn rescale_velocity(&mut self, factor: f32) -> Result<()> {
        explicit::rescale_velocity(&mut self.vel[self.current], factor);
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        self.volume = volume::Volume::start(input.target);
        self.volume.shortfall = -self.counted_shortfall;
        let ghost_mean = self.params.uses(crate::scene::BoundaryMode::GhostMean);
        let mut first_bad = None;
        let mut probes = Vec::with_capacity(steps as usize * self.probe_cells.len());
        let mut history = Vec::new();
        for index in 0..steps {
            for _ in 0..substeps {
                if ghost_mean {
                    self.totals = self.reduce();
                }
                let (src, dst) = (self.current, 1 - self.current);
                let [eta_a, eta_b] = &mut self.eta;
                let [vel_a, vel_b] = &mut self.vel;
                let (eta_in, eta_out, vel_in, vel_out) = if src == 0 {
                    (&*eta_a, eta_b, &*vel_a, vel_b)
                } else {
                    (&*eta_b, eta_a, &*vel_b, vel_a)
                };
                let level = explicit::Level {
                    params: &self.params,
                    ground: &self.ground,
                    totals: &self.totals,
                    eta: eta_in,
                    vel: vel_in,
                };
                let mut out = explicit::Out {
                    eta: eta_out,
                    vel: vel_out,
                    carry: &mut self.carry,
                    clamped: &mut self.clamped,
                };
                let bad = match self.method {
                    Method::Explicit => explicit::step(&level, &mut out),
                    Method::Adi => adi::step(&level, &mut out),
                };
                if bad && first_bad.is_none() {
                    first_bad = Some(index);
                }
                self.current = dst;
            }
            if let Some(b) = &mut self.bodies {
                let p = self.current;
                let tags = bodies::footprint(
                    &self.params,
                    &b.params,
                    &b.states,
                    &self.ground,
                    &mut self.eta[p],
                    &mut b.cover,
                );
                b.last = coupling::couple(
                    &self.params,
                    &b.params,
                    tags,
                    &self.ground,
                    &b.cover,
                    &mut self.eta[p],
                    &mut self.vel[p],
                    &mut b.vectors,
                );
                bodies::integrate(
                    &self.params,
                    &b.params,
                    &mut b.states,
                    &self.ground,
                    &self.eta[p],
                    &b.cover,
                    &mut history,
                );
            }
            if self.params.correct != 0 || self.params.sources != 0 || self.rains {
                self.totals = self.reduce();
                let rain = input.rain.steps.get(index as usize).copied().unwrap_or_default();
                self.volume.settle(&self.params, &self.totals, index, rain.before);
                let p = self.current;
                let (labels, corrections, pending) = match &mut self.regions {
                    Some(r) => {
                        r.record(&self.params, &self.ground, &self.eta[p], &self.vel[p]);
                        r.parts()
                    }
                    None => (&[][..], &[][..], &mut [][..]),
                };
                let mut cells = volume::Cells {
                    ground: &self.ground,
                    source: &self.source,
                    shortfall: &mut self.shortfall,
                    eta: &mut self.eta[p],
                    vel: &mut self.vel[p],
                    carry: &mut self.carry,
                    clamped: &mut self.clamped,
                    labels,
                    corrections,
                    pending,
                };
                volume::apply(&self.params, &self.volume, &mut cells);
                let run = rain.start as usize..(rain.start + rain.count) as usize;
                let (entries, heights) = (&input.rain.cells[run.clone()], &input.rain.heights[run]);
                volume::rain(&self.params, &mut cells, entries, heights);
            }
            probe::record(&self.probe_cells, &self.eta[self.current], &mut probes);
        }
        self.totals = self.reduce();
        self.counted_shortfall = self.totals.shortfall;
        Ok(ChunkReport {
            first_bad_step: first_bad,
            totals: self.totals,
            probes,
            target: crate::solver::chunk_target(
                input,
                steps,
                &self.params,
                self.volume.shortfall,
                self.totals.shortfall,
                self.volume.held,
            ),
            regions: self.regions.as_ref().map_or(0, |r| r.count()),
            bodies: history,
            coupling: self.bodies.as_ref().map_or(Default::default(), |b| b.last),
        })
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        Ok(self.eta[self.current].clone())
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(self.regions.as_ref().map_or(Vec::new(), |r| r.labels().to_vec()))
    }

    fn save(&mut self) -> Result<SolverState> {
        let p = self.current;
        let mut state = SolverState {
            eta: self.eta[p].clone(),
            vel: self.vel[p].clone(),
            carry: self.carry.clone(),
            shortfall: self.shortfall.clone(),
            clamped: self.clamped.iter().flatten().copied().collect(),
            counted_shortfall: self.counted_shortfall,
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
        self.carry.clone_from(&state.carry);
        self.shortfall.clone_from(&state.shortfall);
        self.clamped = state.clamped.chunks_exact(2).map(|k| [k[0], k[1]]).collect();
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
        self.counted_shortfall = state.counted_shortfall;
        self.totals = self.reduce();
        Ok(())
    }

    fn describe(&self) -> String {
        "cpu (reference, single thread)".into()
    }
}
