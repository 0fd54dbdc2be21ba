//! The shallow-water model on the CPU: the schedule's passes by the twin (single-threaded, the
//! reference) or by the fast path (rayon's pool, the same bits).

use crate::engine::bodies::{BodyState, Cover};
use crate::engine::cpu::bodies::BodySet;
use crate::engine::params::Totals;
use crate::engine::schedule::{ModelRun, Pass, Schedule};
use crate::engine::solver::{ChunkInput, ChunkReport, ModelReport, Setup, Solver, SolverState};
use crate::error::Result;
use crate::models::shallow_water::cpu::shallow_water;
use crate::models::shallow_water::cpu::{feeding, sw_bodies, sw_maps};
use crate::models::shallow_water::fast::shallow_water as fast;
use crate::models::shallow_water::setup::{SwParams, SwSetup};
use crate::models::shallow_water::state::SwState;
use crate::summary::{SummaryCell, SummaryParams};

/// The shallow-water model's CPU backend.
pub struct CpuSw {
    params: SwParams,
    setup: SwSetup,
    ground: Vec<f32>,
    /// `[[pressure]]`: the ground, then each step's air-pressure head per cell (the stages'
    /// ground, as the GPU's buffer holds them: `SwParams::air_at`); empty without patches.
    forced: Vec<f32>,
    /// `[[pressure]]` patches per step.
    patches: usize,
    state: SwState,
    /// U1 between the stages; the fast path's U2 before it is swapped in.
    scratch: [SwState; 2],
    probe_cells: Vec<u32>,
    schedule: Schedule,
    /// `[rainfall]`'s share of the full intensity per cell (a map; empty when uniform).
    share: Vec<f32>,
    /// `[output] summary`: the wet depth and the maps so far.
    wet_depth: f32,
    summary: Vec<SummaryCell>,
    /// With the summary: each cell's fastest speed and largest d·|u| so far (`sw_maps`).
    flow_maps: Vec<[f32; 2]>,
    /// Over rayon's pool (the fast backend).
    parallel: bool,
    /// The state, flood maps and flow maps a chunk started from (`hold_chunk_start`).
    held: Option<Held>,
    /// The bodies (None: the scene has none).
    bodies: Option<Bodies>,
}

/// What a chunk changes, as it stood at the chunk's start.
struct Held {
    state: SwState,
    summary: Vec<SummaryCell>,
    flow_maps: Vec<[f32; 2]>,
    bodies: Vec<BodyState>,
    cover: Vec<Cover>,
}

/// The bodies on the water: the height field's body passes over the model's surface, pressed
/// (`BodyParams::pressed`), and the water's loads on each (`sw_bodies::loads`).
struct Bodies {
    set: BodySet,
    /// The grid's uniforms the body passes read.
    grid: crate::engine::params::Params,
    /// Three per body (`sw_bodies::loads`).
    loads: Vec<[f32; 4]>,
}

impl Bodies {
    /// Runs body pass `pass` of a step over `state` (its stages' ground `stages`), appending
    /// `Integrate`'s rows to `history`.
    fn run(
        &mut self,
        pass: Pass,
        p: &SwParams,
        (ground, stages): (&[f32], &mut [f32]),
        state: &mut SwState,
        history: &mut Vec<f32>,
    ) {
        match pass {
            Pass::SwPress => sw_bodies::press(p, &self.set.cover, stages),
            // Pressed: the cover only, the surface left as it is.
            Pass::Footprint => self.set.footprint(&self.grid, ground, &mut state.eta),
            Pass::SwLoads => {
                let bp = &self.set.params;
                let bodies = (&self.set.states[..], &mut self.set.cover[..]);
                sw_bodies::loads(p, bp, bodies, ground, state, &mut self.loads)
            }
            Pass::Integrate => self.set.integrate(&self.grid, ground, &state.eta, &self.loads, history),
            other => unreachable!("{other:?} is not a body pass"),
        }
    }
}

impl CpuSw {
    /// The backend for `setup`; `parallel`: the fast backend.
    pub fn new(setup: &Setup, sw: &SwSetup, parallel: bool) -> CpuSw {
        let mut state = SwState::new(setup.eta, setup.ground, &sw.velocity);
        if sw.base.infiltration != 0 {
            state.soil = vec![0.0; crate::engine::infiltration::SOIL_FLOATS * state.cells()];
        }
        let summary = setup
            .summary
            .map_or(Vec::new(), |wet| crate::summary::initial(&state.eta, setup.ground, wet));
        // Without patches or a map the stages read `ground` itself.
        let no_maps = sw.friction.is_empty() && sw.soil.is_empty() && sw.drag.is_empty();
        CpuSw {
            params: sw.params(setup.params.substeps),
            setup: sw.clone(),
            ground: setup.ground.to_vec(),
            forced: match sw.base.air_at == 0 && no_maps {
                true => Vec::new(),
                false => crate::models::shallow_water::setup::stage_ground(setup.ground, sw),
            },
            patches: setup.pressure_patches as usize,
            scratch: [state.clone(), state.clone()],
            state,
            probe_cells: setup.probe_cells.to_vec(),
            schedule: Schedule::new(ModelRun::ShallowWater, &setup.params, setup.rain),
            share: setup.rainfall_map.to_vec(),
            wet_depth: setup.summary.unwrap_or(0.0),
            flow_maps: vec![[0.0; 2]; if summary.is_empty() { 0 } else { setup.ground.len() }],
            summary,
            parallel,
            held: None,
            bodies: BodySet::new(setup).map(|set| Bodies {
                loads: vec![[0.0; 4]; 3 * set.states.len()],
                set,
                grid: setup.params,
            }),
        }
    }

    /// One substep by the twin or the fast path, with the river sides' values `sides`; its
    /// largest Courant number.
    fn substep(&mut self, sides: &shallow_water::Sides) -> f32 {
        let forced = !self.forced.is_empty();
        let (p, ground) = (&self.params, if forced { &self.forced[..] } else { &self.ground[..] });
        if !self.parallel {
            return shallow_water::substep(p, sides, ground, &mut self.state, &mut self.scratch[0]);
        }
        let [one, two] = &mut self.scratch;
        let a = fast::stage_one(p, sides, ground, &self.state, one);
        let b = fast::stage_two(p, sides, ground, &self.state, one, two);
        std::mem::swap(&mut self.state, two);
        // The stages leave the soil alone: the state's stays the state's (the carry is U2's).
        std::mem::swap(&mut self.state.soil, &mut two.soil);
        a.max(b)
    }

    /// The flow maps' uniforms.
    fn flow_map_params(&self) -> sw_maps::FlowMapParams {
        sw_maps::FlowMapParams {
            cells: self.params.cells,
            wet_depth: self.wet_depth,
            film: self.params.film,
            _pad: 0,
        }
    }

    /// Step `k`'s feed of `rain` (its entries' `heights`, a negative one's replaced by what its
    /// cell could not give): the rainfall, then the entries, then what the ground takes.
    fn feed(&mut self, rain: &crate::engine::rain::RainChunk, heights: &mut [f32], k: usize) {
        let feeding = feeding::Feeding {
            p: &self.params,
            ground: &self.ground,
            share: &self.share,
            stages: &self.forced,
            parallel: self.parallel,
        };
        feeding::feed_step(&feeding, rain, heights, k, &mut self.state);
    }
}

impl Solver for CpuSw {
    fn set_params(&mut self, params: &crate::engine::params::Params) -> Result<()> {
        self.params = self.setup.params(params.substeps);
        Ok(())
    }

    /// The model carries discharges, not per-substep changes: nothing to rescale.
    fn rescale_velocity(&mut self, _factor: f32) -> Result<()> {
        Ok(())
    }

    fn hold_chunk_start(&mut self) -> Result<bool> {
        let (bodies, cover) = self
            .bodies
            .as_ref()
            .map_or((&[][..], &[][..]), |b| (&b.set.states, &b.set.cover));
        match &mut self.held {
            Some(held) => {
                held.state.clone_from(&self.state);
                held.summary.clone_from(&self.summary);
                held.flow_maps.clone_from(&self.flow_maps);
                held.bodies.clone_from_slice(bodies);
                held.cover.clone_from_slice(cover);
            }
            None => {
                self.held = Some(Held {
                    state: self.state.clone(),
                    summary: self.summary.clone(),
                    flow_maps: self.flow_maps.clone(),
                    bodies: bodies.to_vec(),
                    cover: cover.to_vec(),
                })
            }
        }
        Ok(true)
    }

    fn undo_chunk(&mut self) -> Result<()> {
        if let Some(held) = &self.held {
            self.state.clone_from(&held.state);
            self.summary.clone_from(&held.summary);
            self.flow_maps.clone_from(&held.flow_maps);
            if let Some(b) = &mut self.bodies {
                b.set.states.clone_from(&held.bodies);
                b.set.cover.clone_from(&held.cover);
            }
        }
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        let mut probes = Vec::with_capacity(steps as usize * self.probe_cells.len());
        let mut courant = 0.0f32;
        let passes: Vec<Pass> = self.schedule.step(substeps).collect();
        let mut heights = input.rain.heights.clone();
        let mut history = Vec::new();
        for k in 0..steps {
            let sides = self.setup.slot(input.first_step + k as u64, k).sides;
            for &pass in &passes {
                match pass {
                    Pass::ShallowWater => courant = courant.max(self.substep(&sides)),
                    Pass::SwFeed => self.feed(&input.rain, &mut heights, k as usize),
                    Pass::Pressure => {
                        let (n, cells) = (self.patches, self.ground.len());
                        let patches = &input.pressure[k as usize * n..(k as usize + 1) * n];
                        crate::engine::cpu::pressure::head(self.params.nx, patches, &mut self.forced[cells..2 * cells]);
                    }
                    Pass::Probe => {
                        probes.extend(self.probe_cells.iter().map(|&e| shallow_water::probe(&self.state, e)))
                    }
                    Pass::Summary => {
                        let sp = SummaryParams {
                            first_step: input.first_step as u32,
                            wet_depth: self.wet_depth,
                            cells: self.ground.len() as u32,
                            _pad: 0,
                        };
                        crate::engine::cpu::summary::fold(&sp, k, &self.ground, &self.state.eta, &mut self.summary);
                    }
                    Pass::SwMaps => {
                        let fp = self.flow_map_params();
                        sw_maps::fold_flow(&fp, &self.ground, &self.state, &mut self.flow_maps);
                    }
                    Pass::SwPress | Pass::Footprint | Pass::SwLoads | Pass::Integrate => {
                        let bodies = self
                            .bodies
                            .as_mut()
                            .expect("the schedule has body passes only with bodies");
                        let stages = (&self.ground[..], &mut self.forced[..]);
                        bodies.run(pass, &self.params, stages, &mut self.state, &mut history);
                    }
                    other => unreachable!("{other:?} is not a pass of the shallow-water model"),
                }
            }
        }
        Ok(ChunkReport {
            totals: totals(&self.params, &self.ground, &self.state),
            probes,
            target: crate::models::shallow_water::books::fed_target(input, &heights),
            model: ModelReport::Shallow { courant },
            bodies: history,
            ..ChunkReport::default()
        })
    }

    fn read_cover(&mut self) -> Result<Vec<Cover>> {
        Ok(self.bodies.as_ref().map_or(Vec::new(), |b| b.set.cover.clone()))
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        Ok(self.state.eta.clone())
    }

    fn read_velocity(&mut self) -> Result<Option<Vec<[f32; 2]>>> {
        Ok(Some(self.state.velocities(self.params.film, &self.ground)))
    }

    /// The height field's query twin on this model's surface: its eta has the same meaning
    /// (h − ref, a dry cell's its ground's).
    fn query(&mut self, dx: f32, points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        let p = &self.params;
        Ok(crate::engine::cpu::query::query(
            p.nx,
            p.ny,
            dx,
            &self.state.eta,
            &self.ground,
            points,
        ))
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(Vec::new())
    }

    fn read_summary(&mut self) -> Result<Vec<SummaryCell>> {
        Ok(self.summary.clone())
    }

    fn read_flow_maps(&mut self) -> Result<Vec<[f32; 2]>> {
        Ok(self.flow_maps.clone())
    }

    fn read_soil(&mut self) -> Result<Vec<f32>> {
        Ok(self.state.soil.clone())
    }

    fn save(&mut self) -> Result<SolverState> {
        Ok(SolverState {
            summary: self.summary.clone(),
            sw_flow_maps: bytemuck::cast_slice(&self.flow_maps).to_vec(),
            bodies: self.bodies.as_ref().map_or(Vec::new(), |b| b.set.states.clone()),
            cover: self.bodies.as_ref().map_or(Vec::new(), |b| b.set.cover.clone()),
            ..self.state.save()
        })
    }

    fn load(&mut self, saved: &SolverState) -> Result<()> {
        self.state.load(saved)?;
        if let Some(b) = &mut self.bodies {
            b.set.states.clone_from(&saved.bodies);
            b.set.cover.clone_from(&saved.cover);
        }
        if saved.summary.len() == self.summary.len() {
            self.summary.clone_from(&saved.summary);
        }
        // A checkpoint from before the flow maps starts them afresh.
        if saved.sw_flow_maps.len() == 2 * self.flow_maps.len() {
            self.flow_maps = bytemuck::pod_collect_to_vec(bytemuck::cast_slice::<f32, u8>(&saved.sw_flow_maps));
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

/// Twin of `totals` (shallow_water.wgsl): the deepest water, the cells holding NaN or infinity,
/// and the depth above the still water (Σ d − max(−b, 0), metres·cells).
pub fn totals(p: &SwParams, ground: &[f32], s: &SwState) -> Totals {
    let mut t = Totals::default();
    let mut above = 0.0f64;
    for (c, &b) in ground.iter().enumerate().take(p.cells as usize) {
        let (e, qx, qy) = (s.eta[c], s.qx[c], s.qy[c]);
        if !(e.is_finite() && qx.is_finite() && qy.is_finite()) {
            t.nonfinite += 1;
            continue;
        }
        let d = (e - b).max(0.0);
        t.max_depth = t.max_depth.max(d);
        above += d as f64 - (-b).max(0.0) as f64;
    }
    t.sum_depth = above as f32;
    t
}
