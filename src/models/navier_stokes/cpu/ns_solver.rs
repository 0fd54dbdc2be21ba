//! The Navier-Stokes layer on the CPU (seed 003): `navier_stokes::step_with` per
//! substep, the global volume correction on the height field after each step, and the probes.

use crate::engine::bodies::SolveReport;
use crate::engine::params::{Params, Totals};
use crate::engine::schedule::{Pass, Schedule};
use crate::engine::solver::{ChunkInput, ChunkReport, ModelReport, Solver, SolverState};
use crate::error::{Error, Result};
use crate::models::navier_stokes::cpu::navier_stokes;
use crate::models::navier_stokes::cpu::ns_spray::NsSprayState;
use crate::models::navier_stokes::cpu::ns_surface;
use crate::models::navier_stokes::setup::start_target;
use crate::models::navier_stokes::setup::NsLayer;
use crate::models::navier_stokes::spray::NsSprayParams;
use crate::models::navier_stokes::state::{in_use, MarkerParams, Markers, NsParams, NsState, PressureReport, Surface};

/// The backend.
pub struct CpuNs {
    params: NsParams,
    state: NsState,
    surface: Surface,
    probe_cells: Vec<u32>,
    schedule: Schedule,
    dt: f32,
    /// The height field's volume at the start (metres·cells, a compensated pair), which
    /// `volume_correction = "global"` holds it to (None: no correction). No sources or drains
    /// reach the layer yet.
    target: Option<(f32, f32)>,
    /// The most sweeps a substep's pressure iteration runs in this chunk (`next_budget`).
    budget: u32,
    forcing: crate::models::navier_stokes::forcing::Forcing,
    /// The fast backend: the costly passes on threads (`cpu::fast::navier_stokes`), same bits.
    fast: bool,
    /// The spray and foam (None: the scene has none).
    spray: Option<(NsSprayParams, NsSprayState)>,
    /// Marker particles set the flags (None: the height field does).
    markers: Option<(MarkerParams, Markers)>,
    /// The bodies (None: the scene has none), moved by the layer's loads on them (`ns_bodies`).
    bodies: Option<LayerBodies>,
    /// `[output] summary`: the wet depth and the flood maps so far (empty without).
    wet_depth: f32,
    summary: Vec<crate::summary::SummaryCell>,
    /// Sources, rain and rainfall on the height field (None: the scene feeds it nothing).
    feed: Option<crate::models::navier_stokes::feed::LayerFeed>,
    /// `[[pressure]]` patches per step (0 without): `Pass::Pressure` writes their head into the
    /// surface's `air`.
    patches: usize,
}

/// The bodies in the layer on the CPU.
struct LayerBodies {
    set: crate::engine::cpu::bodies::BodySet,
    /// The height field's uniforms, which its footprint and coupling read.
    surface_params: Params,
    /// The per-step change the coupling adds to (scratch: the layer carries velocities).
    change: Vec<f32>,
    /// The last `ns_bodies::loads`, three per body.
    loads: Vec<[f32; 4]>,
}

impl LayerBodies {
    /// One of the schedule's body passes over the layer's grid `s` and surface `f`; `integrate`
    /// appends each body's history entry to `history`.
    fn run(&mut self, pass: Pass, ns: &NsParams, s: &NsState, f: &mut Surface, history: &mut Vec<f32>) {
        let p = &self.surface_params;
        match pass {
            Pass::Footprint => {
                self.set.footprint(p, &f.ground, &mut f.h);
                held_from(&mut f.held, &self.set.cover);
            }
            Pass::Coupling => self.set.couple(p, &f.ground, &mut f.h, &mut self.change),
            Pass::NsBodies => {
                self.loads = crate::models::navier_stokes::cpu::ns_bodies::loads(
                    ns,
                    &self.set.params,
                    s,
                    f,
                    &self.set.cover,
                    &self.set.states,
                );
            }
            Pass::Integrate => self.set.integrate(p, &f.ground, &f.h, &self.loads, history),
            other => unreachable!("{other:?} is not a body pass"),
        }
    }
}

impl CpuNs {
    /// The backend for the layer of `setup`, stepping `dt` s per step; `fast` runs the costly
    /// passes on threads.
    pub fn new(layer: &NsLayer, setup: &crate::engine::solver::Setup, dt: f64, fast: bool) -> CpuNs {
        let (params, probe_cells) = (&setup.params, setup.probe_cells);
        let bodies = crate::engine::cpu::bodies::BodySet::new(setup).map(|set| LayerBodies {
            set,
            surface_params: setup.params,
            change: vec![0.0; setup.eta.len()],
            loads: Vec::new(),
        });
        let mut solver = CpuNs {
            params: layer.params,
            state: layer.state.clone(),
            surface: layer.surface.clone(),
            probe_cells: probe_cells.to_vec(),
            schedule: layer.schedule(params),
            dt: dt as f32,
            target: None,
            budget: crate::models::navier_stokes::setup::first_budget(layer.params.max_sweeps),
            forcing: layer.forcing.clone(),
            fast,
            spray: layer.spray.map(|p| (p, NsSprayState::new(&p))),
            markers: layer.markers.clone(),
            bodies,
            wet_depth: setup.summary.unwrap_or(0.0),
            summary: setup.summary.map_or(Vec::new(), |wet| {
                crate::summary::initial(&layer.surface.h, &layer.surface.ground, wet)
            }),
            feed: layer.fed.then(|| {
                let f = &layer.surface;
                crate::models::navier_stokes::feed::LayerFeed::new(
                    f.nx,
                    f.ny,
                    (params.rainfall, setup.rainfall_map),
                    (params.infiltration, setup.soil_law),
                    &f.ground,
                    fast,
                )
            }),
            patches: setup.pressure_patches as usize,
        };
        // Water crossing a side or fed changes the volume: the correction would undo it (the
        // fluxes conserve by construction; the sides exchange exactly what their faces carry,
        // the feed books what it gives). With markers the height field is drawn from them:
        // nothing to correct.
        if params.correct != 0 && !layer.forcing.open_sides() && layer.markers.is_none() && !layer.fed {
            solver.target = Some(start_target(&solver.surface, setup.cover));
        }
        held_from(&mut solver.surface.held, setup.cover);
        if solver.patches > 0 {
            solver.surface.air = vec![0.0; solver.surface.h.len()];
        }
        solver
    }

    /// What covers each height-field cell (empty without bodies).
    fn cover(&self) -> &[crate::engine::bodies::Cover] {
        self.bodies.as_ref().map_or(&[], |b| &b.set.cover)
    }

    /// One substep of the layer (the height field's surface or the markers'), on the threaded
    /// fast passes where the grid is large enough and the backend fast.
    fn substep_layer(
        &mut self,
        dt: f32,
        forcing: &crate::models::navier_stokes::forcing::Substep,
    ) -> (PressureReport, f32) {
        let p = &self.params;
        let threaded = self.fast && p.nx * p.ny * p.nz >= crate::models::navier_stokes::fast::navier_stokes::FAST_FROM;
        let costly = if threaded {
            &crate::models::navier_stokes::fast::navier_stokes::FAST
        } else {
            &navier_stokes::REFERENCE
        };
        match &mut self.markers {
            Some((mp, markers)) => navier_stokes::step_markers(
                costly,
                &self.params,
                &mut self.state,
                &mut self.surface,
                markers,
                mp,
                dt,
                self.budget,
                forcing,
            ),
            None => navier_stokes::step_with(
                costly,
                &self.params,
                &mut self.state,
                &mut self.surface,
                dt,
                self.budget,
                forcing,
            ),
        }
    }

    /// The chunk's report from what its steps gathered; sets the next chunk's sweep budget.
    fn report(
        &mut self,
        input: &ChunkInput,
        worst: PressureReport,
        fastest: f32,
        first_bad_step: Option<u32>,
        probes: Vec<f32>,
        history: Vec<f32>,
    ) -> ChunkReport {
        let sum = ns_surface::volume(&self.surface, self.cover());
        let pressure = SolveReport {
            iterations: worst.sweeps,
            residual: worst.divergence,
        };
        let p = &self.params;
        self.budget = crate::models::navier_stokes::setup::next_budget(self.budget, pressure, p.epsilon, p.max_sweeps);
        ChunkReport {
            first_bad_step,
            totals: Totals {
                max_depth: sum.deepest,
                held: sum.held,
                nonfinite: sum.bad,
                sum_depth: sum.total() as f32,
                ..Totals::default()
            },
            probes,
            target: input.target,
            model: ModelReport::Layer {
                pressure,
                flow_courant: fastest,
                spray: self
                    .spray
                    .as_mut()
                    .map(|(_, s)| crate::models::navier_stokes::cpu::ns_spray::totals(s)),
                markers_refused: self.markers.as_ref().map(|(_, m)| m.refused),
            },
            bodies: history,
            coupling: self.bodies.as_ref().map_or(Default::default(), |b| b.set.last),
            ..ChunkReport::default()
        }
    }
}

/// The surface's `held` from the bodies' covers (empty without bodies).
fn held_from(held: &mut Vec<f32>, cover: &[crate::engine::bodies::Cover]) {
    held.clear();
    held.extend(cover.iter().map(|c| c.held));
}

impl Solver for CpuNs {
    fn set_params(&mut self, _params: &Params) -> Result<()> {
        Ok(())
    }

    /// The layer carries velocities, not per-substep changes: nothing to rescale.
    fn rescale_velocity(&mut self, _factor: f32) -> Result<()> {
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, input: &ChunkInput) -> Result<ChunkReport> {
        let dt = self.dt / substeps as f32;
        let mut probes = Vec::with_capacity(steps as usize * self.probe_cells.len());
        let mut history = Vec::new();
        let mut worst = PressureReport::default();
        let mut first_bad_step = None;
        let mut fastest = 0.0f32;
        let records = self.forcing.chunk(input.first_step, steps, substeps);
        let mut heights = input.rain.heights.clone();
        let mut substep = 0;
        let passes: Vec<Pass> = self.schedule.step(substeps).collect();
        'steps: for k in 0..steps {
            for &pass in &passes {
                match pass {
                    // Folded below, on the step's corrected surface.
                    Pass::Summary => {}
                    Pass::NavierStokes => {
                        let (r, courant) = self.substep_layer(dt, &records[substep]);
                        substep += 1;
                        worst.sweeps = worst.sweeps.max(r.sweeps);
                        worst.divergence = worst.divergence.max(r.divergence);
                        // Past condition 3 (|u|·δt/δx < 1) the explicit momentum no longer
                        // holds: the state is lost, as with a non-finite value. (Measured on
                        // the velocities each substep starts from, as the GPU's momentum does.)
                        if !fastest.is_nan() {
                            fastest = if courant.is_nan() {
                                courant
                            } else {
                                fastest.max(courant)
                            };
                        }
                        if courant.is_nan() || courant >= 1.0 {
                            // The state is lost: what the chunk would compute after this is
                            // waste (a diverged 16-step chunk took 194 s to say so).
                            first_bad_step.get_or_insert(k);
                            break 'steps;
                        }
                    }
                    Pass::NsSpray => {
                        let (sp, spray) = self.spray.as_mut().expect("the schedule has spray only with it");
                        let layer = crate::models::navier_stokes::cpu::ns_spray::Layer {
                            ns: &self.params,
                            grid: &self.state,
                            coarsen: self.surface.coarsen,
                        };
                        crate::models::navier_stokes::cpu::ns_spray::step(
                            sp,
                            &layer,
                            spray,
                            &mut self.surface,
                            input.first_step as u32 + k + 1,
                        );
                    }
                    Pass::Footprint | Pass::Coupling | Pass::NsBodies | Pass::Integrate => {
                        let b = self
                            .bodies
                            .as_mut()
                            .expect("the schedule has body passes only with bodies");
                        b.run(pass, &self.params, &self.state, &mut self.surface, &mut history);
                    }
                    Pass::Probe => probes.extend(self.probe_cells.iter().map(|&e| {
                        crate::models::navier_stokes::cpu::ns_surface::probe(
                            &self.params,
                            &self.state,
                            &self.surface,
                            e,
                        )
                    })),
                    Pass::SwFeed => {
                        let feed = self.feed.as_mut().expect("the schedule feeds only with feeds");
                        let f = &mut self.surface;
                        feed.step(&mut f.h, &f.ground, &input.rain, &mut heights, k as usize);
                    }
                    Pass::Pressure => {
                        let n = self.patches;
                        let patches = &input.pressure[k as usize * n..(k as usize + 1) * n];
                        crate::engine::cpu::pressure::head(self.surface.nx as u32, patches, &mut self.surface.air);
                    }
                    other => unreachable!("{other:?} is not a pass of the Navier-Stokes layer"),
                }
            }
            if let Some(target) = self.target {
                let in_air = self.spray.as_ref().map_or(0.0, |(p, s)| s.in_flight as f32 * p.unit_h);
                let delta = ns_surface::correction(&ns_surface::volume(&self.surface, self.cover()), target, in_air);
                ns_surface::correct(&mut self.surface, delta);
            }
            if !self.summary.is_empty() {
                let sp = crate::summary::SummaryParams {
                    first_step: input.first_step as u32,
                    wet_depth: self.wet_depth,
                    cells: self.summary.len() as u32,
                    _pad: 0,
                };
                let f = &self.surface;
                crate::engine::cpu::summary::fold(&sp, k, &f.ground, &f.h, &mut self.summary);
            }
        }
        let report = self.report(input, worst, fastest, first_bad_step, probes, history);
        // What the feed gave: the books follow it (no correction runs where the layer is fed).
        Ok(match self.feed {
            Some(_) => ChunkReport {
                target: crate::models::shallow_water::books::fed_target(input, &heights),
                ..report
            },
            None => report,
        })
    }

    fn read_cover(&mut self) -> Result<Vec<crate::engine::bodies::Cover>> {
        Ok(self.bodies.as_ref().map_or(Vec::new(), |b| b.set.cover.clone()))
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        Ok(self.surface.h.clone())
    }

    fn read_summary(&mut self) -> Result<Vec<crate::summary::SummaryCell>> {
        Ok(self.summary.clone())
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(Vec::new())
    }

    /// The height field's query twin on the layer's surface over its ground.
    fn query(&mut self, dx: f32, points: &[[f32; 2]]) -> Result<Vec<crate::query::RawSample>> {
        let f = &self.surface;
        Ok(crate::engine::cpu::query::query(
            f.nx as u32,
            f.ny as u32,
            dx,
            &f.h,
            &f.ground,
            points,
        ))
    }

    fn read_markers(&mut self) -> Result<Vec<[f32; 2]>> {
        Ok(self.markers.as_ref().map_or_else(Vec::new, |(_, m)| m.at.clone()))
    }

    /// The spray and foam slots in use, in slot order.
    fn read_soil(&mut self) -> Result<Vec<f32>> {
        Ok(self.feed.as_ref().map_or_else(Vec::new, |f| f.soil().to_vec()))
    }

    fn read_particles(&mut self) -> Result<Vec<crate::models::pipes::spray::Particle>> {
        Ok(self.spray.as_ref().map_or_else(Vec::new, |(_, s)| in_use(&s.drops)))
    }

    fn read_velocity(&mut self) -> Result<Option<Vec<[f32; 2]>>> {
        Ok(Some(crate::models::navier_stokes::state::depth_averaged(
            &self.params,
            &self.state,
            &self.surface,
        )))
    }

    fn read_layer(&mut self) -> Result<Option<crate::models::navier_stokes::state::LayerFields>> {
        Ok(Some(crate::models::navier_stokes::state::layer_fields(
            &self.params,
            &self.state,
        )))
    }

    /// The height field and the 3D grid's pressures and velocities; the flags are rebuilt from
    /// the height field at the start of each substep.
    fn save(&mut self) -> Result<SolverState> {
        Ok(SolverState {
            eta: self.surface.h.clone(),
            ns_p: self.state.p.clone(),
            ns_u: self.state.u.clone(),
            ns_v: self.state.v.clone(),
            ns_w: self.state.w.clone(),
            ns_flags: self.state.flag.iter().map(|&f| f as u32).collect(),
            ns_budget: self.budget,
            ns_target: self.target.map(|(hi, lo)| [hi, lo]),
            ns_drops: self.spray.as_ref().map_or_else(Vec::new, |(_, s)| s.drops.clone()),
            ns_markers: self.markers.as_ref().map_or_else(Vec::new, |(_, m)| m.at.clone()),
            ns_marker_book: self
                .markers
                .as_ref()
                .map_or_else(Vec::new, |(_, m)| m.book(self.params.nz)),
            bodies: self.bodies.as_ref().map_or_else(Vec::new, |b| b.set.states.clone()),
            cover: self.cover().to_vec(),
            summary: self.summary.clone(),
            sw_carry: self.feed.as_ref().map_or_else(Vec::new, |f| f.carry().to_vec()),
            soil: self.feed.as_ref().map_or_else(Vec::new, |f| f.soil().to_vec()),
            ..SolverState::default()
        })
    }

    fn load(&mut self, saved: &SolverState) -> Result<()> {
        let s = &mut self.state;
        let fits = saved.eta.len() == self.surface.h.len()
            && saved.ns_p.len() == s.p.len()
            && saved.ns_u.len() == s.u.len()
            && saved.ns_v.len() == s.v.len()
            && saved.ns_w.len() == s.w.len();
        if !fits {
            return Err(Error::Unsupported(
                "a saved state of another grid (another scene's Navier-Stokes layer)".into(),
            ));
        }
        self.surface.h.clone_from(&saved.eta);
        s.p.clone_from(&saved.ns_p);
        s.u.clone_from(&saved.ns_u);
        s.v.clone_from(&saved.ns_v);
        s.w.clone_from(&saved.ns_w);
        // The flags as the last substep left them (an edit's state, saved before any step, holds
        // none: the next substep sets them).
        if saved.ns_flags.len() == s.flag.len() {
            s.flag = saved.ns_flags.iter().map(|&f| f as u8).collect();
        }
        if saved.ns_budget != 0 {
            self.budget = saved.ns_budget;
        }
        if let (Some([hi, lo]), Some(_)) = (saved.ns_target, self.target) {
            self.target = Some((hi, lo));
        }
        if saved.summary.len() == self.summary.len() {
            self.summary.clone_from(&saved.summary);
        }
        if let Some((_, spray)) = &mut self.spray {
            spray.load(&saved.ns_drops);
        }
        if let Some(feed) = &mut self.feed {
            feed.set_carry(&saved.sw_carry);
            feed.set_soil(&saved.soil);
        }
        if let Some((_, markers)) = &mut self.markers {
            *markers = Markers::from_book(&saved.ns_marker_book, &saved.ns_markers, self.params.nz);
        }
        if let Some(b) = &mut self.bodies {
            b.set.states.clone_from(&saved.bodies);
            b.set.cover.clone_from(&saved.cover);
            held_from(&mut self.surface.held, &b.set.cover);
        }
        Ok(())
    }

    fn describe(&self) -> String {
        crate::engine::cpu::describe(self.fast)
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
