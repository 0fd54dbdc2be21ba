//! The pipes model on the CPU: the schedule's pipe passes run by `cpu::pipes`, single-threaded
//! (the reference) or over rayon's pool (the fast backend, the same bits).

use crate::engine::params::{Params, Totals};
use crate::engine::schedule::{Pass, Schedule};
use crate::engine::solver::{ChunkInput, ChunkReport, ModelReport, PipeSetup, Solver, SolverState};
use crate::error::Result;
use crate::models::pipes::bodies::PressGrid;
use crate::models::pipes::columns::{Columns, PipeParams};
use crate::models::pipes::cpu::spray::{self, SprayState};
use crate::models::pipes::cpu::{pipe_bodies, pipes};
use crate::models::pipes::params::pipe_params;
use crate::models::pipes::state;
use crate::models::pipes::state::PipeState;
use crate::scene::Scene;

/// The pipes model's CPU backend.
pub struct CpuPipes {
    scene: Scene,
    columns: Columns,
    params: PipeParams,
    state: PipeState,
    probe_cells: Vec<u32>,
    schedule: Schedule,
    /// The spray's uniforms and particles, where the scene makes spray.
    spray: Option<(crate::models::pipes::spray::SprayParams, SprayState)>,
    /// Spread the columns over rayon's pool (the fast backend; the spray runs on one thread).
    parallel: bool,
    /// `[rainfall]`: its mode, each column's share, units per metre, and each column's carry.
    rainfall: (u32, Vec<f32>, f32),
    rain_carry: Vec<f32>,
    /// `[infiltration]`: its law, parameter planes, each column's soil and owed fraction (empty
    /// without).
    soil_law: (u32, Vec<f32>),
    soil: Vec<[f32; 4]>,
    soil_owed: Vec<f32>,
    /// `[output] summary`: each column's top floor − ref, the wet depth, and the maps so far.
    ground: Vec<f32>,
    wet_depth: f32,
    summary: Vec<crate::summary::SummaryCell>,
    /// `[[pressure]]` patches per step (0 without).
    patches: usize,
    /// The bodies (None: the scene has none).
    bodies: Option<Bodies>,
}

/// The bodies on the columns: the height field's body passes over the columns' surface and top
/// floors, pressed (`BodyParams::pressed`), and `pipe_bodies`' press and loads.
struct Bodies {
    set: crate::engine::cpu::bodies::BodySet,
    /// The grid's uniforms the body passes read, and `pipe_bodies`'.
    grid: Params,
    press: PressGrid,
    /// The columns' surface as `PipeSurface` last left it.
    surface: Vec<f32>,
    /// Three per body (`pipe_bodies::loads`).
    loads: Vec<[f32; 4]>,
}

impl Bodies {
    /// Runs body pass `pass` of a step over `state` (the columns' top floors `ground`),
    /// appending `Integrate`'s rows to `history`.
    fn run(&mut self, pass: Pass, p: &PipeParams, ground: &[f32], state: &mut PipeState, history: &mut Vec<f32>) {
        match pass {
            Pass::PipePress => pipe_bodies::press(&self.press, &self.set.cover, state),
            Pass::PipeSurface => self.surface = state::surface(p, state),
            // Pressed: the cover only, the surface left as it is.
            Pass::Footprint => self.set.footprint(&self.grid, ground, &mut self.surface),
            Pass::PipeLoads => {
                let bodies = (&self.set.states[..], &mut self.set.cover[..]);
                pipe_bodies::loads(&self.press, &self.set.params, bodies, state, &mut self.loads)
            }
            Pass::Integrate => self
                .set
                .integrate(&self.grid, ground, &self.surface, &self.loads, history),
            other => unreachable!("{other:?} is not a body pass"),
        }
    }
}

impl CpuPipes {
    /// The columns it runs (as the scene built them).
    pub(crate) fn columns(&self) -> &Columns {
        &self.columns
    }

    /// The backend for `setup`; `parallel`: the fast backend.
    pub fn new(setup: &PipeSetup, parallel: bool) -> CpuPipes {
        let params = pipe_params(
            setup.scene,
            setup.columns,
            setup.params.substeps,
            setup.probe_cells.len() as u32,
        );
        let feed = setup.columns.feed(setup.scene, setup.params.substeps);
        let mut state = PipeState::new(setup.columns, feed);
        state.column_forcing = crate::models::pipes::state::column_forcing(setup.columns, setup.air());
        crate::models::pipes::stencil::start_moving(&params, &mut state, &setup.columns.velocity);
        let summary = setup.summary.map_or(Vec::new(), |wet| {
            crate::summary::initial(&state::surface(&params, &state), setup.ground, wet)
        });
        CpuPipes {
            scene: setup.scene.clone(),
            columns: setup.columns.clone(),
            params,
            state,
            probe_cells: setup.probe_cells.to_vec(),
            schedule: setup.schedule(),
            spray: setup.spray().map(|p| (p, SprayState::new(&p))),
            parallel,
            rainfall: (
                setup.params.rainfall,
                setup.rainfall_map.to_vec(),
                (1.0 / setup.columns.quantum) as f32,
            ),
            rain_carry: vec![
                0.0;
                if setup.params.rainfall != 0 {
                    setup.columns.rate.len()
                } else {
                    0
                }
            ],
            soil_law: (setup.params.infiltration, setup.soil_law.to_vec()),
            soil: vec![
                [0.0; 4];
                if setup.params.infiltration != 0 {
                    setup.columns.rate.len()
                } else {
                    0
                }
            ],
            soil_owed: vec![
                0.0;
                if setup.params.infiltration != 0 {
                    setup.columns.rate.len()
                } else {
                    0
                }
            ],
            ground: setup.ground.to_vec(),
            wet_depth: setup.summary.unwrap_or(0.0),
            summary,
            patches: setup.pressure_patches as usize,
            bodies: crate::engine::cpu::bodies::BodySet::new(setup.base).map(|set| Bodies {
                loads: vec![[0.0; 4]; 3 * set.states.len()],
                set,
                grid: setup.base.params,
                press: PressGrid::new(&params, setup.pressure_patches > 0),
                surface: Vec::new(),
            }),
        }
    }
}

impl Solver for CpuPipes {
    fn set_params(&mut self, params: &Params) -> Result<()> {
        self.params = pipe_params(
            &self.scene,
            &self.columns,
            params.substeps,
            self.probe_cells.len() as u32,
        );
        self.state.feed = self.columns.feed(&self.scene, params.substeps);
        Ok(())
    }

    /// The pipes carry velocities, not per-substep changes: nothing to rescale.
    fn rescale_velocity(&mut self, _factor: f32) -> Result<()> {
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        self.state.exchange.iter_mut().for_each(|e| *e = 0);
        let rain = &input.rain;
        let rain_units = self.columns.rain_units(&rain.heights);
        let mut probes = Vec::with_capacity(steps as usize * self.probe_cells.len());
        let mut history = Vec::new();
        for k in 0..steps {
            for pass in self.schedule.step(substeps) {
                match pass {
                    Pass::Pressure => {
                        let n = self.patches;
                        let patches = &input.pressure[k as usize * n..(k as usize + 1) * n];
                        let air = &mut self.state.column_forcing[..self.params.columns as usize];
                        crate::engine::cpu::pressure::head(self.params.nx, patches, air);
                    }
                    Pass::PipeFlow => pipes::flow_step(&self.params, &mut self.state, self.parallel),
                    Pass::PipeApply => pipes::apply(&self.params, &mut self.state, self.parallel),
                    Pass::Spray => {
                        let (p, s) = self.spray.as_mut().expect("the schedule sprays only with spray");
                        // The GPU keys its random numbers by the step in u32: the same wrap.
                        let step = (input.first_step as u32).wrapping_add(k + 1);
                        spray::step(p, s, &mut self.state, step);
                    }
                    Pass::PipeRain => {
                        let step = rain.steps.get(k as usize);
                        if let Some(step) = step {
                            let run = step.start as usize..(step.start + step.count) as usize;
                            crate::models::pipes::cpu::pipe_rain::rain(
                                &mut self.state,
                                &rain.cells[run.clone()],
                                &rain_units[run],
                            );
                            let (mode, share, per_unit) = (self.rainfall.0, &self.rainfall.1, self.rainfall.2);
                            if mode != 0 {
                                let carry = &mut self.rain_carry;
                                crate::models::pipes::cpu::pipe_rain::rainfall(
                                    &mut self.state,
                                    mode,
                                    share,
                                    per_unit,
                                    step.rainfall,
                                    carry,
                                    self.parallel,
                                );
                            }
                        }
                        let (law, planes) = (self.soil_law.0, &self.soil_law.1);
                        if law != 0 {
                            let (mode, share, per_unit) = (self.rainfall.0, &self.rainfall.1, self.rainfall.2);
                            let height = step.map_or(0.0, |s| s.rainfall);
                            // As the WGSL's: the step's height at the column's share.
                            let rain = |c: usize| match mode {
                                0 => 0.0,
                                crate::engine::feeds::RAINFALL_MAP => height * share[c],
                                _ => height,
                            };
                            let soaking = crate::models::pipes::cpu::pipe_rain::Soaking {
                                law,
                                planes,
                                per_unit,
                                rain,
                            };
                            crate::models::pipes::cpu::pipe_rain::infiltrate(
                                &mut self.state,
                                &soaking,
                                &mut self.soil,
                                &mut self.soil_owed,
                                self.parallel,
                            );
                        }
                    }
                    // Without bodies the surface is the summary's alone, which the twin makes
                    // where it folds it (`state::surface`, the pass's own function).
                    Pass::PipeSurface if self.bodies.is_none() => {}
                    Pass::PipePress | Pass::PipeSurface | Pass::Footprint | Pass::PipeLoads | Pass::Integrate => {
                        let bodies = self
                            .bodies
                            .as_mut()
                            .expect("the schedule has body passes only with bodies");
                        bodies.run(pass, &self.params, &self.ground, &mut self.state, &mut history);
                    }
                    Pass::Summary => {
                        let sp = crate::summary::SummaryParams {
                            first_step: input.first_step as u32,
                            wet_depth: self.wet_depth,
                            cells: self.ground.len() as u32,
                            _pad: 0,
                        };
                        let surface = state::surface(&self.params, &self.state);
                        crate::engine::cpu::summary::fold(&sp, k, &self.ground, &surface, &mut self.summary);
                    }
                    Pass::Probe => probes.extend(
                        self.probe_cells
                            .iter()
                            .map(|&e| state::probe(&self.params, &self.state, e)),
                    ),
                    other => unreachable!("{other:?} is not a pass of the pipes model"),
                }
            }
        }
        let mut report = report(&self.columns, &self.state, steps, probes);
        report.bodies = history;
        if let ModelReport::Pipes { spray, .. } = &mut report.model {
            *spray = self.spray.as_mut().map(|(_, s)| s.report());
        }
        Ok(report)
    }

    fn read_cover(&mut self) -> Result<Vec<crate::engine::bodies::Cover>> {
        Ok(self.bodies.as_ref().map_or(Vec::new(), |b| b.set.cover.clone()))
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        Ok(state::surface(&self.params, &self.state))
    }

    /// The height field's query twin on the columns' surface over their top floors (what a view
    /// from above sees), which mean what the height field's eta and ground do.
    fn query(&mut self, dx: f32, points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        let (nx, ny) = (self.params.nx, self.params.ny);
        let surface = state::surface(&self.params, &self.state);
        Ok(crate::engine::cpu::query::query(
            nx,
            ny,
            dx,
            &surface,
            &self.ground,
            points,
        ))
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(Vec::new())
    }

    fn read_velocity(&mut self) -> Result<Option<Vec<[f32; 2]>>> {
        Ok(Some(state::velocities(&self.state)))
    }

    fn read_soil(&mut self) -> Result<Vec<f32>> {
        Ok(self.soil.iter().flatten().copied().collect())
    }

    fn read_summary(&mut self) -> Result<Vec<crate::summary::SummaryCell>> {
        Ok(self.summary.clone())
    }

    fn read_particles(&mut self) -> Result<Vec<crate::models::pipes::spray::Particle>> {
        Ok(self.spray.as_ref().map_or(Vec::new(), |(_, s)| s.particles.clone()))
    }

    fn save(&mut self) -> Result<SolverState> {
        Ok(SolverState {
            pipe_rain_carry: self.rain_carry.clone(),
            soil: self.soil.iter().flatten().copied().collect(),
            pipe_soil_owed: self.soil_owed.clone(),
            summary: self.summary.clone(),
            bodies: self.bodies.as_ref().map_or(Vec::new(), |b| b.set.states.clone()),
            cover: self.bodies.as_ref().map_or(Vec::new(), |b| b.set.cover.clone()),
            ..self
                .state
                .save(self.spray.as_ref().map_or(&[], |(_, s)| &s.particles[..]))
        })
    }

    fn load(&mut self, saved: &SolverState) -> Result<()> {
        self.state.load(saved)?;
        if !self.soil.is_empty() {
            self.soil = saved.soil.chunks_exact(4).map(|k| [k[0], k[1], k[2], k[3]]).collect();
            self.soil_owed.clone_from(&saved.pipe_soil_owed);
        }
        if saved.pipe_rain_carry.len() == self.rain_carry.len() {
            self.rain_carry.clone_from(&saved.pipe_rain_carry);
        }
        if saved.summary.len() == self.summary.len() {
            self.summary.clone_from(&saved.summary);
        }
        if let Some((_, s)) = &mut self.spray {
            s.particles = saved.particles.clone();
        }
        if let Some(b) = &mut self.bodies {
            b.set.states.clone_from(&saved.bodies);
            b.set.cover.clone_from(&saved.cover);
        }
        Ok(())
    }

    fn describe(&self) -> String {
        crate::engine::cpu::describe(self.parallel)
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// A chunk's report from the state after it, as the GPU's `totals` gives it: the exact water and
/// what sources, drains and open sides made, the deepest cell, and whether a pipe went non-finite
/// (checked once per chunk, so reported at the chunk's last step, as on the GPU).
fn report(columns: &Columns, s: &PipeState, steps: u32, probes: Vec<f32>) -> ChunkReport {
    let (water, exchange, deepest, bad) = pipes::totals(s);
    ChunkReport {
        first_bad_step: (bad != 0).then_some(steps - 1),
        totals: Totals {
            max_depth: (deepest as f64 * columns.quantum) as f32,
            nonfinite: bad,
            ..Totals::default()
        },
        probes,
        model: ModelReport::Pipes {
            water_units: (water, exchange),
            spray: None,
        },
        ..ChunkReport::default()
    }
}
