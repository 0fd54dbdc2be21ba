//! `Simulation`: a scene's state on a backend, stepped in submits of many steps, with the stability
//! check and the divergence check made from GPU reductions at the end of each submit.

use crate::engine::cpu::CpuSolver;
use crate::engine::gpu::{GpuContext, GpuSolver};
use crate::engine::params::{self, Params, Totals, MAX_CHUNK};
use crate::engine::schedule::{ModelRun, Schedule};
use crate::engine::solver::{ChunkInput, Setup, Solver};
use crate::engine::state_table;
use crate::error::{Error, Result};
use crate::scene::{InitialFields, Scene, VolumeCorrection};

mod edits;

/// The CPU reference's largest grid: it keeps ~40 bytes per cell (56 with a shoreline's face memory)
/// and is meant for comparisons.
pub const CPU_MAX_CELLS: usize = 1 << 28;

/// Which implementation runs the passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// wgpu compute shaders on the preferred adapter (see `GpuContext::new`).
    Gpu,
    /// The fast CPU backend: every core of rayon's current pool, bit-identical to `Reference`.
    Cpu,
    /// The CPU reference twin, single-threaded: the readable definition of every pass.
    Reference,
}

/// A particle as `particles_NNNNNN.npy` holds it: x, y, z (absolute), vx, vy, vz, volume m³.
pub type Particle7 = [f32; 7];
/// Foam as `foam_NNNNNN.npy` holds it: x, y, z (absolute), seconds of life left.
pub type Foam4 = [f32; 4];

/// A scene stepping on one backend: its state, its clock and what it has sampled.
pub struct Simulation {
    scene: Scene,
    /// What the host adds each step: drops, hydrographs, rainfall (`crate::engine::feeds`).
    feeds: crate::engine::feeds::Feeds,
    /// The `[[pressure]]` patches, placed per chunk.
    patches: crate::engine::pressure::Patches,
    /// Each cell's 1 − tau per step under `physics.damping_map` (empty without one); the backend
    /// holds it per substep.
    damping_map: Vec<f32>,
    fields: InitialFields,
    ground_rel: Vec<f32>,
    solver: Box<dyn Solver>,
    params: Params,
    substeps: u32,
    step: u64,
    probe_cells: Vec<u32>,
    totals: Totals,
    /// Set once a step went non-finite: the state is lost and stepping refuses to go on.
    diverged_at: Option<u64>,
    /// The Navier-Stokes layer: the largest |u|·δt/δx of the last chunk's substeps.
    flow_courant: f32,
    /// The volume target above the still water (metres·cells), as the last chunk left it.
    target: f64,
    /// The still water's volume, Σ max(−ground, 0) (metres·cells), in f64.
    still: f64,
    /// Connected bodies of water at the last step, under volume_correction = "regions".
    regions: Option<u32>,
    notes: Vec<String>,
    /// Each body after each step since the last `take_body_samples`, a row of bodies per step.
    body_samples: Vec<Vec<crate::engine::bodies::BodySample>>,
    /// The bodies after the last step (their initial poses before any).
    bodies_now: Vec<crate::engine::bodies::BodySample>,
    /// The bodies as built: their shapes, for `body_tops`.
    body_shapes: Vec<crate::engine::bodies::BodyState>,
    /// How the coupling solve went on the last step.
    coupling: crate::engine::bodies::SolveReport,
    /// The Navier-Stokes layer's pressure iteration over the last chunk (None: other models).
    pressure: Option<crate::engine::bodies::SolveReport>,
    /// Keeps an owned GPU context alive (None on the CPU or on a borrowed device).
    context: Option<GpuContext>,
    /// The pipes model counts its water exactly: (units now, units it should hold, m³ per unit).
    units: Option<(u64, i64, f64)>,
    /// The spray now, with its made, ended and refused summed since the start (None without
    /// spray).
    spray: Option<crate::models::pipes::spray::SprayReport>,
    /// m³ of water per unit a particle carries (the pipes' unit, or the Navier-Stokes layer's
    /// spray unit; None without spray).
    particle_unit: Option<f64>,
    /// The spray is the Navier-Stokes layer's: its slots hold foam too.
    layer_spray: bool,
    /// The Navier-Stokes layer's marker capacity (None: no markers).
    marker_capacity: Option<u32>,
    /// The markers' buffer has been noted full.
    markers_full: bool,
    /// The Navier-Stokes layer's 3D grid from its floor to its top, m, absolute (None: other
    /// models).
    layer_extent: Option<(f64, f64)>,
    /// The pipes model's dimensions (None: the other models).
    pipe_shape: Option<state_table::PipeShape>,
    /// The Navier-Stokes layer's 3D grid, [nx, ny, nz] (None: the other models).
    layer_shape: Option<[usize; 3]>,
    /// The coupling's settings (the cost model's figures for the coupling solve).
    body_params: crate::engine::bodies::BodyParams,
    /// Since `start_profile`: what it measured (`Profiling`).
    profiling: Option<Profiling>,
    /// The backend it was built on (an edit rebuilds it there).
    backend: Backend,
}

impl Simulation {
    /// Builds the scene on a backend; for `Backend::Gpu` Shoal opens its own device.
    pub fn new(scene: &Scene, backend: Backend) -> Result<Simulation> {
        match backend {
            Backend::Cpu | Backend::Reference => Self::build(scene, |setup| {
                if setup.eta.len() > CPU_MAX_CELLS {
                    return Err(Error::GridTooLarge {
                        nx: setup.params.nx,
                        ny: setup.params.ny,
                        what: format!("the CPU backends run at most {CPU_MAX_CELLS} cells (16384²)"),
                    });
                }
                let fast = backend == Backend::Cpu;
                if let Some(layer) = setup.navier_stokes {
                    return Ok(Box::new(crate::models::navier_stokes::cpu::ns_solver::CpuNs::new(
                        layer,
                        setup,
                        scene.time.dt,
                        fast,
                    )));
                }
                if let Some(pipes) = setup.pipe_setup() {
                    return Ok(Box::new(crate::models::pipes::cpu::pipe_solver::CpuPipes::new(
                        &pipes, fast,
                    )));
                }
                Ok(if fast {
                    Box::new(CpuSolver::fast(setup))
                } else {
                    Box::new(CpuSolver::new(setup))
                })
            })
            .map(|sim| Simulation { backend, ..sim }),
            Backend::Gpu => {
                let context = GpuContext::new()?;
                let mut sim = Self::from_device(scene, &context.device, &context.queue)?;
                context.check()?;
                sim.context = Some(context);
                Ok(sim)
            }
        }
    }

    /// Builds the scene on a Device and Queue the caller owns. Shoal keeps reference-counted
    /// handles to them; the caller keeps using its own.
    pub fn from_device(scene: &Scene, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Simulation> {
        // Before anything is allocated: a grid the adapter cannot hold is an error, not an OOM.
        crate::engine::gpu::state::check_grid_fits(&device.limits(), scene.grid.nx, scene.grid.ny)?;
        let adapter = crate::engine::gpu::context::adapter_line(&device.adapter_info());
        Self::build(scene, |setup| {
            if let Some(layer) = setup.navier_stokes {
                return Ok(Box::new(crate::models::navier_stokes::gpu::ns_solver::GpuNs::new(
                    device,
                    queue,
                    adapter.clone(),
                    layer,
                    setup,
                    scene.time.dt,
                )?));
            }
            if let Some(pipes) = setup.pipe_setup() {
                return Ok(Box::new(crate::models::pipes::gpu::pipe_solver::GpuPipes::new(
                    device,
                    queue,
                    adapter.clone(),
                    &pipes,
                )?));
            }
            Ok(Box::new(GpuSolver::new(device, queue, adapter.clone(), setup)?))
        })
    }

    /// Everything `build` checks and derives before a backend is made: `shoal validate` and
    /// `shoal run --dry-run` stop here.
    pub fn check(scene: &Scene) -> Result<Checked> {
        let prepared = Prepared::new(scene)?;
        let p = &prepared.params;
        Ok(Checked {
            scene_toml: scene.to_resolved_toml(prepared.fields.reference.0, prepared.substeps),
            substeps: prepared.substeps,
            gpu_bytes: state_table::gpu_bytes(
                &state_table::Shape {
                    params: p,
                    method: scene.physics.solver,
                    pipes: prepared.columns.as_ref().map(|c| state_table::PipeShape::of(scene, c)),
                    navier_stokes: prepared.layer.as_ref().map(|l| l.shape()),
                    ns_spray: prepared.layer.as_ref().is_some_and(|l| l.spray.is_some()),
                    ns_markers: prepared
                        .layer
                        .as_ref()
                        .and_then(|l| l.markers.as_ref().map(|m| m.0.capacity)),
                },
                prepared.bodies.len(),
            ),
            schedule: crate::engine::gpu::cost::describe(
                &schedule(scene, p),
                prepared.substeps,
                p,
                &prepared.body_params,
            ),
            notes: prepared.notes,
        })
    }

    pub(crate) fn build(scene: &Scene, make: impl FnOnce(&Setup) -> Result<Box<dyn Solver>>) -> Result<Simulation> {
        let Prepared {
            fields,
            eta,
            ground_rel,
            probe_cells,
            params,
            substeps,
            notes,
            source,
            feeds,
            patches,
            damping_keep,
            bodies,
            body_params,
            cover,
            columns,
            layer,
        } = Prepared::new(scene)?;
        // The initial water, as the backends' own reduction measures it (no shortfall yet).
        // Submerged bodies' volume in their columns is not water (`cover`).
        let before_sources = Params {
            sources: 0,
            correct: 0,
            ..params
        };
        let rest = vec![0.0f32; eta.len()];
        let totals = crate::engine::cpu::reduce::reduce(
            &before_sources,
            &ground_rel,
            &eta,
            &rest,
            crate::engine::cpu::reduce::Extras {
                shortfall: &[],
                clamped: &[],
                cover: &cover,
                faces: &[],
            },
        );
        let target = totals.sum_depth as f64;
        let still = ground_rel.iter().map(|&b| (-(b as f64)).max(0.0)).sum();
        let regions = (params.regions != 0).then(|| crate::engine::cpu::regions::label(&params, &ground_rel, &eta).1);
        // The second-order start (start.rs), unless the scene asks for the first-order one: the
        // explicit height field released at rest, without bodies (ADI's is at rest).
        let explicit = scene.physics.solver == crate::scene::Method::Explicit;
        let taylor = scene.water.start == crate::scene::Start::Taylor;
        let (vel, faces) = if taylor && explicit && columns.is_none() && layer.is_none() && bodies.is_empty() {
            crate::engine::start::taylor_vel(&params, &ground_rel, &eta)
        } else {
            (Vec::new(), Vec::new())
        };
        let solver = make(&Setup {
            params,
            method: scene.physics.solver,
            eta: &eta,
            vel: &vel,
            faces: &faces,
            ground: &ground_rel,
            probe_cells: &probe_cells,
            source: &source,
            rain: feeds.any(),
            rainfall_map: feeds.rainfall_map(),
            damping_keep: &damping_per_substep(&damping_keep, substeps),
            pressure_patches: patches.len() as u32,
            summary: scene.output.summary.then_some(scene.output.wet_depth as f32),
            bodies: &bodies,
            body_params,
            cover: &cover,
            pipes: columns.as_ref().map(|c| (scene, c)),
            navier_stokes: layer.as_ref(),
        })?;
        let reference = fields.reference.0;
        let layer_spray = layer.as_ref().and_then(|l| l.spray);
        Ok(Simulation {
            scene: scene.clone(),
            feeds,
            patches,
            damping_map: damping_keep,
            fields,
            ground_rel,
            solver,
            params,
            substeps,
            step: 0,
            probe_cells,
            totals,
            diverged_at: None,
            flow_courant: 0.0,
            target,
            still,
            regions,
            notes,
            bodies_now: bodies
                .iter()
                .map(|b| crate::engine::bodies::BodySample::of(b, reference))
                .collect(),
            body_shapes: bodies.clone(),
            body_samples: Vec::new(),
            coupling: Default::default(),
            pressure: None,
            context: None,
            units: columns.as_ref().map(|c| {
                let water = crate::models::pipes::columns::Columns::total(&c.water);
                (water, water as i64, c.quantum * scene.grid.dx * scene.grid.dx)
            }),
            spray: columns
                .as_ref()
                .and_then(|c| crate::models::pipes::spray::spray_params(scene, c))
                .map(|_| Default::default())
                .or(layer_spray.map(|_| Default::default())),
            particle_unit: match (&columns, layer_spray) {
                (Some(c), _) => crate::models::pipes::spray::spray_params(scene, c)
                    .map(|_| c.quantum * scene.grid.dx * scene.grid.dx),
                (None, Some(p)) => Some(p.unit_volume()),
                (None, None) => None,
            },
            layer_spray: layer_spray.is_some(),
            marker_capacity: layer.as_ref().and_then(|l| l.markers.as_ref().map(|m| m.0.capacity)),
            markers_full: false,
            layer_extent: layer.as_ref().map(|l| {
                let p = &l.params;
                let floor = p.z0 as f64 + reference;
                (floor, floor + p.nz as f64 * p.dz as f64)
            }),
            pipe_shape: columns.as_ref().map(|c| state_table::PipeShape::of(scene, c)),
            layer_shape: layer.as_ref().map(|l| l.shape()),
            body_params,
            profiling: None,
            backend: Backend::Gpu,
        })
    }

    /// Advances `n` steps, submitting up to `MAX_CHUNK` steps at a time. Returns each step's probe
    /// heights (absolute, a row of `probes` values per step).
    pub fn step(&mut self, n: u64) -> Result<Vec<Vec<f64>>> {
        if let Some(step) = self.diverged_at {
            return Err(Error::Diverged { step });
        }
        let mut rows = Vec::new();
        let mut left = n;
        while left > 0 {
            let chunk = left.min(self.chunk_limit() as u64) as u32;
            let input = ChunkInput {
                target: self.target,
                rain: if self.feeds.any() {
                    self.feeds.chunk(self.step, chunk)
                } else {
                    Default::default()
                },
                first_step: self.step,
                pressure: self.patches.chunk(self.step, chunk),
            };
            // Profiling: the first chunk warms up (first touches of fresh buffers, clocks), then
            // even chunks take timestamps (where the backend can) and the others are the wall
            // clock's.
            let chunk_index = self.profiling.as_mut().map(|p| {
                p.chunks += 1;
                (p.chunks, p.why_not.is_none())
            });
            let timed = chunk_index.is_some_and(|(k, can)| can && k % 2 == 0);
            let chunk_index = chunk_index.map(|(k, _)| k);
            if chunk_index.is_some() {
                self.solver.set_timing(timed);
            }
            let started = std::time::Instant::now();
            let report = self.solver.advance(chunk, self.substeps, &input)?;
            if let Some(p) = &mut self.profiling {
                let clock = match chunk_index {
                    Some(1) => &mut p.warm_up,
                    _ if timed => &mut p.timed_clock,
                    _ => &mut p.clock,
                };
                clock.0 += chunk as u64;
                clock.1 += started.elapsed().as_secs_f64();
            }
            if let Some(bad) = report
                .first_bad_step
                .or((report.totals.nonfinite != 0).then_some(chunk - 1))
            {
                let step = self.step + bad as u64 + 1;
                self.diverged_at = Some(step);
                return Err(Error::Diverged { step });
            }
            if !self.probe_cells.is_empty() {
                for row in report.probes.chunks_exact(self.probe_cells.len()) {
                    rows.push(
                        row.iter()
                            .zip(&self.probe_cells)
                            .map(|(&e, &c)| self.absolute(e, c as usize))
                            .collect(),
                    );
                }
            }
            let n_bodies = self.bodies_now.len();
            if n_bodies > 0 {
                let reference = self.fields.reference.0;
                for row in report
                    .bodies
                    .chunks_exact(n_bodies * crate::engine::bodies::HISTORY_FLOATS)
                {
                    let samples: Vec<_> = row
                        .chunks_exact(crate::engine::bodies::HISTORY_FLOATS)
                        .map(|h| crate::engine::bodies::BodySample::from_history(h, reference))
                        .collect();
                    self.bodies_now.clone_from(&samples);
                    self.body_samples.push(samples);
                }
                self.coupling = report.coupling;
            }
            self.step += chunk as u64;
            if let (Some(units), Some((water, made))) = (&mut self.units, report.water_units) {
                units.0 = water;
                units.1 += made;
            }
            if let Some(refused) = report.markers_refused.filter(|&r| r > 0 && !self.markers_full) {
                self.markers_full = true;
                let capacity = self.marker_capacity.unwrap_or(0);
                self.notes.push(format!(
                    "by step {}: the markers' buffer (navier_stokes.markers.capacity = {capacity}) was full: {refused} \
                     markers an inflow would have brought were not (more may follow); raise it",
                    self.step
                ));
            }
            if let Some(spray) = report.spray {
                // Noted the first time only; `spray().refused` keeps the count.
                if spray.refused > 0 && self.spray.is_none_or(|s| s.refused == 0) {
                    let (first, last) = (self.step - chunk as u64 + 1, self.step);
                    self.notes.push(if self.layer_spray {
                        format!(
                            "steps {first}–{last}: {} particles not thrown where a cell's {} slots all held \
                             spray in the air, their water left in the surface",
                            spray.refused,
                            crate::models::navier_stokes::spray::SLOTS
                        )
                    } else {
                        let capacity = self.scene.spray.unwrap_or_default().capacity;
                        format!(
                            "steps {first}–{last}: the particle buffer (spray.capacity = {capacity}) was full: {} \
                             particles not made, their water left in its columns; raise [spray] capacity",
                            spray.refused
                        )
                    });
                }
                let total = self.spray.get_or_insert_with(Default::default);
                total.count = spray.count;
                total.units = spray.units;
                total.made += spray.made;
                total.ended += spray.ended;
                total.refused += spray.refused;
            }
            self.pressure = report.pressure;
            if let Some(pressure) = report.pressure {
                let epsilon = self.scene.navier_stokes.clone().unwrap_or_default().epsilon as f32;
                // Noted the first time only.
                let max_sweeps = self.scene.navier_stokes.clone().unwrap_or_default().max_sweeps;
                let spent =
                    pressure.iterations >= max_sweeps && (pressure.residual >= epsilon || pressure.residual.is_nan());
                if spent && !self.notes.iter().any(|n| n.contains("max_sweeps")) {
                    self.notes.push(format!(
                        "steps {}–{}: the pressure iteration stopped at navier_stokes.max_sweeps = {} with |D| = \
                         {:.2e}/s over navier_stokes.epsilon: raise max_sweeps",
                        self.step - chunk as u64 + 1,
                        self.step,
                        pressure.iterations,
                        pressure.residual
                    ));
                }
            }
            self.flow_courant = report.flow_courant.unwrap_or(0.0);
            self.totals = report.totals;
            self.target = report.target;
            if self.regions.is_some() {
                self.regions = Some(report.regions);
            }
            left -= chunk as u64;
            self.check_stability()?;
        }
        Ok(rows)
    }

    /// The most steps one submit runs: `MAX_CHUNK`, or `NS_CHUNK` for the Navier-Stokes layer,
    /// whose flow can outrun its substeps within a chunk (a dam break).
    fn chunk_limit(&self) -> u32 {
        match self.scene.physics.model {
            crate::scene::WaterModel::NavierStokes => crate::models::navier_stokes::setup::NS_CHUNK,
            _ => MAX_CHUNK,
        }
    }

    /// Raises the substep count when the deepest water now needs it, or (the Navier-Stokes
    /// layer) when the flow ran faster than `NS_FLOW_COURANT` allows; never lowers it.
    fn check_stability(&mut self) -> Result<()> {
        let max_depth = self.totals.max_depth as f64;
        let mut needed = substeps_needed(&self.scene, max_depth);
        let flow = crate::models::navier_stokes::setup::flow_substeps(self.substeps, self.flow_courant);
        if flow > needed.max(self.substeps) {
            self.notes.push(format!(
                "at step {}: the flow reached |u|·δt/δx = {:.2} on the Navier-Stokes grid (condition 3 asks < 1); \
                 running {flow} substeps per step",
                self.step, self.flow_courant
            ));
            needed = flow;
            check_substeps(&self.scene, needed, max_depth)?;
            self.set_substeps(needed)?;
        }
        check_substeps(&self.scene, needed, max_depth)?;
        if needed > self.substeps {
            self.notes.push(format!(
                "at step {}: {}",
                self.step,
                substep_note(&self.scene, needed, max_depth)
            ));
            let factor = self.substeps as f32 / needed as f32;
            self.set_substeps(needed)?;
            self.solver.rescale_velocity(factor)?;
        }
        Ok(())
    }

    /// Plans the substeps for water up to `depth` metres deep, before any step (the water is at
    /// rest: no per-step change to rescale). For hosts that will deepen the water themselves.
    pub(crate) fn plan_for_depth(&mut self, depth: f64) -> Result<()> {
        let needed = substeps_needed(&self.scene, depth);
        check_substeps(&self.scene, needed, depth)?;
        if needed > self.substeps {
            self.set_substeps(needed)?;
        }
        Ok(())
    }

    /// Runs `substeps` per step from now on (the per-step change is the caller's to rescale).
    fn set_substeps(&mut self, substeps: u32) -> Result<()> {
        self.substeps = substeps;
        // Only what depends on the substeps changes: the sources, rainfall and forcing flags
        // stay (rebuilding the parameters from the scene lost them, and a run whose water
        // deepened past its substeps stopped raining, dropped its damping map and its pressure).
        self.params = self.params.with_substeps(&self.scene, substeps);
        self.solver.set_params(&self.params)?;
        if !self.damping_map.is_empty() {
            self.solver
                .set_damping_map(&damping_per_substep(&self.damping_map, substeps))?;
        }
        Ok(())
    }

    fn absolute(&self, eta: f32, cell: usize) -> f64 {
        if eta <= self.ground_rel[cell] {
            self.fields.ground[cell]
        } else {
            self.fields.reference.0 + eta as f64
        }
    }

    /// The surface relative to the reference level, as the solver stores it (a readback on the GPU).
    pub fn eta(&mut self) -> Result<Vec<f32>> {
        self.solver.read_eta()
    }

    /// The absolute surface h in f64, dry cells exactly at the ground (a readback on the GPU).
    pub fn surface(&mut self) -> Result<Vec<f64>> {
        let mut eta = self.solver.read_eta()?;
        // Over a body, the water's top (SCENE.md): the surface less the body volume the column
        // holds under it, so Σ max(h − b, 0)·dx² is the water's volume there too (a floating
        // body's underside where water runs under it, the ground where it rests on it).
        for (e, cover) in eta.iter_mut().zip(self.solver.read_cover()?) {
            if cover.held > 0.0 {
                *e -= cover.held;
            }
        }
        Ok(eta.iter().enumerate().map(|(c, &e)| self.absolute(e, c)).collect())
    }

    /// The probes' heights in a surface read with [`Simulation::surface`].
    pub fn probe_heights(&self, surface: &[f64]) -> Vec<f64> {
        self.probe_cells.iter().map(|&c| surface[c as usize]).collect()
    }

    /// Statistics of a surface read with [`Simulation::surface`].
    pub fn stats(&self, surface: &[f64]) -> FieldStats {
        let area = self.scene.grid.dx * self.scene.grid.dx;
        let mut s = FieldStats {
            volume: 0.0,
            h_min: f64::INFINITY,
            h_max: f64::NEG_INFINITY,
            wet_cells: 0,
            max_depth: 0.0,
        };
        for (h, b) in surface.iter().zip(&self.fields.ground) {
            let d = h - b;
            if d > 0.0 {
                s.volume += d * area;
                s.h_min = s.h_min.min(*h);
                s.h_max = s.h_max.max(*h);
                s.wet_cells += 1;
                s.max_depth = s.max_depth.max(d);
            }
        }
        // The pipes count their water exactly, under overhangs too.
        if let Some((water, _, per_unit)) = self.units {
            s.volume = water as f64 * per_unit;
        }
        if s.wet_cells == 0 {
            s.h_min = f64::NAN;
            s.h_max = f64::NAN;
        }
        s
    }

    /// The whole state at this step, for `shoal resume` (a readback on the GPU).
    pub fn checkpoint(&mut self) -> Result<crate::engine::checkpoint::Checkpoint> {
        let state = self.solver.save()?;
        let spray = self.spray.unwrap_or_default();
        Ok(crate::engine::checkpoint::Checkpoint {
            header: crate::engine::checkpoint::Header {
                nx: self.scene.grid.nx,
                ny: self.scene.grid.ny,
                step: self.step,
                substeps: self.substeps,
                target: self.target,
                counted_shortfall: state.counted_shortfall,
                region_count: state.region_count,
                ns_budget: (state.ns_budget != 0).then_some(state.ns_budget),
                pipes: self.units.map(|(_, target, _)| crate::engine::checkpoint::PipeHeader {
                    target_units: target,
                    made: spray.made,
                    ended: spray.ended,
                    refused: spray.refused,
                }),
                scene: Some(self.resolved_scene_toml()),
                coupling: (!self.bodies_now.is_empty())
                    .then_some([self.coupling.iterations, self.coupling.residual.to_bits()]),
            },
            ground: self.ground_rel.clone(),
            state,
        })
    }

    /// Continues from `checkpoint`, which must come from this scene (`path` names it in errors):
    /// the same grid, and state for the same sources, corrections and regions.
    pub fn restore(
        &mut self,
        checkpoint: &crate::engine::checkpoint::Checkpoint,
        path: &std::path::Path,
    ) -> Result<()> {
        let (h, s) = (&checkpoint.header, &checkpoint.state);
        let bad = |message: String| {
            Err(Error::Checkpoint {
                path: path.to_path_buf(),
                message,
            })
        };
        let grid = &self.scene.grid;
        if (h.nx, h.ny) != (grid.nx, grid.ny) {
            return bad(format!(
                "it holds a {}×{} grid, the scene {}×{}: it comes from another scene",
                h.nx, h.ny, grid.nx, grid.ny
            ));
        }
        let cells = self.ground_rel.len();
        let shape = state_table::Shape {
            params: &self.params,
            method: self.scene.physics.solver,
            pipes: self.pipe_shape,
            navier_stokes: self.layer_shape,
            ns_spray: self.layer_spray,
            ns_markers: self.marker_capacity,
        };
        if h.pipes.is_some() != self.units.is_some() {
            return bad("it comes from the other water model (physics.model)".into());
        }
        for spec in state_table::FIELDS
            .iter()
            .filter(|f| f.kept == state_table::Kept::State)
        {
            let (got, want) = (s.len(spec.field), spec.len(&shape, cells, self.bodies_now.len()));
            // The particles in flight, the markers made: any number up to the capacity.
            let fits = match spec.per {
                state_table::Per::Particle | state_table::Per::NsMarker => got <= want,
                // A checkpoint from before the faces' memory: it starts afresh.
                _ if spec.field == state_table::Field::Faces => got == want || got == 0,
                _ => got == want,
            };
            if !fits {
                return bad(format!(
                    "its {} holds {got} values where this scene needs {want}: it comes from another scene",
                    spec.what
                ));
            }
        }
        if checkpoint.ground != self.ground_rel {
            return bad("its terrain is not what the scene builds now (did a terrain file change?)".into());
        }
        if h.substeps == 0 || h.step == 0 && h.substeps != self.substeps {
            return bad(format!("its substep count {} is not this scene's", h.substeps));
        }
        if h.substeps != self.substeps {
            self.set_substeps(h.substeps)?;
        }
        self.solver.load(s)?;
        self.step = h.step;
        self.target = h.target;
        if let Some([iterations, residual]) = h.coupling {
            self.coupling = crate::engine::bodies::SolveReport {
                iterations,
                residual: f32::from_bits(residual),
            };
        }
        let reference = self.fields.reference.0;
        self.bodies_now = s
            .bodies
            .iter()
            .map(|b| crate::engine::bodies::BodySample::of(b, reference))
            .collect();
        if self.regions.is_some() {
            self.regions = Some(h.region_count);
        }
        if let (Some(units), Some(pipes)) = (&mut self.units, &h.pipes) {
            units.0 = s.pipe_water.iter().map(|&w| w as u64).sum();
            units.1 = pipes.target_units;
        }
        if let (Some(spray), true) = (&mut self.spray, self.layer_spray) {
            // The slots are the state; the counts of what was thrown and ended start again.
            let flying = s
                .ns_drops
                .iter()
                .filter(|p| crate::models::navier_stokes::spray::is_spray(p));
            *spray = crate::models::pipes::spray::SprayReport {
                count: flying.clone().count() as u32,
                units: flying.map(|p| p.units as u64).sum(),
                ..Default::default()
            };
        } else if let Some(spray) = &mut self.spray {
            let pipes = h.pipes.as_ref().expect("checked: a pipes checkpoint");
            *spray = crate::models::pipes::spray::SprayReport {
                count: s.particles.len() as u32,
                units: s.particles.iter().map(|p| p.units as u64).sum(),
                made: pipes.made,
                ended: pipes.ended,
                refused: pipes.refused,
            };
        }
        Ok(())
    }

    /// Each cell's connected body of water after the last step (id + 1, 0 dry), numbered by
    /// their first cell in row-major order, under `volume_correction = "regions"`; else empty.
    pub fn region_labels(&mut self) -> Result<Vec<u32>> {
        self.solver.read_regions()
    }

    /// Connected bodies of water after the last step, when `volume_correction = "regions"` runs.
    pub fn regions(&self) -> Option<u32> {
        self.regions
    }

    /// The GPU backend, for `Water`; None on the CPU.
    pub(crate) fn gpu_solver(&mut self) -> Option<&mut GpuSolver> {
        self.solver.as_any_mut().downcast_mut::<GpuSolver>()
    }

    /// The pipes model's GPU backend, for `Water`; None on the CPU or for the height field.
    pub(crate) fn gpu_pipes(&mut self) -> Option<&mut crate::models::pipes::gpu::pipe_solver::GpuPipes> {
        self.solver
            .as_any_mut()
            .downcast_mut::<crate::models::pipes::gpu::pipe_solver::GpuPipes>()
    }

    /// The ground relative to the reference level, f32 per cell as the backends hold it.
    pub(crate) fn ground_relative(&self) -> &[f32] {
        &self.ground_rel
    }

    /// The pipes model's units at the start and m³ per unit (None: the height field).
    pub(crate) fn unit_books(&self) -> Option<(i64, f64)> {
        self.units.map(|(_, target, per_unit)| (target, per_unit))
    }

    /// The volume target above the still water (metres·cells), as the GPU keeps it.
    pub(crate) fn target_above_still(&self) -> f64 {
        self.target
    }

    /// The volume the water should hold now, m³ (moved only by sources, drains and rain).
    pub fn target_volume(&self) -> f64 {
        if let Some((_, target, per_unit)) = self.units {
            return target as f64 * per_unit;
        }
        (self.still + self.target) * self.scene.grid.dx * self.scene.grid.dx
    }

    /// The Navier-Stokes layer's grid now, cell-centred: velocities (m/s) and pressure in Pa
    /// (ρ·p/ρ, relative to the air); None for the other models. A readback on the GPU.
    pub fn layer_fields(&mut self) -> Result<Option<crate::models::navier_stokes::state::LayerFields>> {
        let density = self.scene.physics.water_density as f32;
        Ok(self.solver.read_layer()?.map(|mut f| {
            f.pressure.iter_mut().for_each(|p| *p *= density);
            f
        }))
    }

    /// The pipes model's water in exact units, and what it should hold (None: the height field).
    /// The columns' water: with spray, the particles carry the rest (`spray`).
    pub fn water_units(&self) -> Option<(u64, i64)> {
        self.units.map(|(w, t, _)| (w, t))
    }

    /// The pipes model's unit of water, m³ (`water_units` × this is the volume; None: the
    /// height field).
    pub fn unit_volume(&self) -> Option<f64> {
        self.units.map(|u| u.2)
    }

    /// The spray after the last step: particles in flight and the units they carry, and the
    /// particles made, ended and refused since the start (None without spray).
    pub fn spray(&self) -> Option<crate::models::pipes::spray::SprayReport> {
        self.spray
    }

    /// (particles in flight, the water they carry in m³): (0, 0) for a model without them.
    pub fn particle_stats(&self) -> (u32, f64) {
        match (self.spray, self.particle_unit) {
            (Some(s), Some(per_unit)) => (s.count, s.units as f64 * per_unit),
            _ => (0, 0.0),
        }
    }

    /// The particles in flight, absolute: (x, y, z, vx, vy, vz, volume m³) each (a readback on the
    /// GPU); empty for a model without them.
    pub fn particles(&mut self) -> Result<Vec<Particle7>> {
        Ok(self.particles_and_foam()?.0)
    }

    /// The Navier-Stokes layer's foam, absolute: (x, y, z, seconds of life left) each (a readback
    /// on the GPU); empty without it.
    pub fn foam(&mut self) -> Result<Vec<Foam4>> {
        Ok(self.particles_and_foam()?.1)
    }

    /// `particles` and `foam` from one readback (the layer's slots hold both).
    pub fn particles_and_foam(&mut self) -> Result<(Vec<Particle7>, Vec<Foam4>)> {
        let per_unit = self.particle_unit.unwrap_or(0.0);
        let reference = self.fields.reference.0;
        let all = self.solver.read_particles()?;
        let up = |z: f32| (z as f64 + reference) as f32;
        let particles = all
            .iter()
            .filter(|p| p.units > 0)
            .map(|p| {
                [
                    p.pos[0],
                    p.pos[1],
                    up(p.pos[2]),
                    p.vel[0],
                    p.vel[1],
                    p.vel[2],
                    (p.units as f64 * per_unit) as f32,
                ]
            })
            .collect();
        let foam = all
            .iter()
            .filter(|p| self.layer_spray && crate::models::navier_stokes::spray::is_foam(p))
            .map(|p| [p.pos[0], p.pos[1], up(p.pos[2]), p.age])
            .collect();
        Ok((particles, foam))
    }

    /// The Navier-Stokes layer's marker particles (§4.1), absolute (x, y, z) each, in the order
    /// they were made, those that left through an outflow left out (a readback on the GPU);
    /// empty without them. y is the middle of the run's one row.
    pub fn markers(&mut self) -> Result<Vec<[f32; 3]>> {
        let reference = self.fields.reference.0;
        let y = (self.scene.grid.ny as f64 * self.scene.grid.dx / 2.0) as f32;
        Ok(self
            .solver
            .read_markers()?
            .iter()
            .filter(|m| m[0] >= 0.0)
            .map(|m| [m[0], y, (m[1] as f64 + reference) as f32])
            .collect())
    }

    /// The Navier-Stokes layer's 3D grid from its floor to its top, m, absolute (None: other
    /// models).
    pub fn layer_extent(&self) -> Option<(f64, f64)> {
        self.layer_extent
    }

    /// Whether the run tracks its water with marker particles.
    pub fn has_markers(&self) -> bool {
        self.marker_capacity.is_some()
    }

    /// Whether the spray is the Navier-Stokes layer's, which leaves foam.
    pub fn has_foam(&self) -> bool {
        self.layer_spray && self.scene.spray.is_some_and(|s| s.foam() > 0.0)
    }

    /// The scene as run (substeps resolved).
    pub fn scene(&self) -> &Scene {
        &self.scene
    }
    /// The flood maps so far (`[output] summary`; None without it): each cell's deepest water,
    /// highest surface, time of first wetting and time wet. A readback on the GPU.
    pub fn summary(&mut self) -> Result<Option<crate::summary::SummaryMaps>> {
        let cells = self.solver.read_summary()?;
        Ok((!cells.is_empty())
            .then(|| crate::summary::SummaryMaps::of(&cells, self.fields.reference.0, self.scene.time.dt)))
    }

    /// The water at `points` (x, y in metres; off the grid, its edge): surface height, depth
    /// and normal, bilinear between cell centres (`crate::query`). Answered at once from the
    /// state after the last step: on the GPU backend a small pass and a readback of 32 bytes a
    /// point from an idle device. The height field's models (not the pipes or the layer).
    pub fn query(&mut self, points: &[[f64; 2]]) -> Result<Vec<crate::query::WaterSample>> {
        let model = self.scene.physics.model;
        let queries = crate::models::Feature::Queries;
        if !crate::models::of(model).takes(queries) {
            return Err(Error::Unsupported(crate::models::refusal(
                model,
                queries,
                "Simulation::query",
            )));
        }
        let raw = self
            .solver
            .query(self.scene.grid.dx as f32, &crate::query::points_f32(points))?;
        let reference = self.fields.reference.0;
        Ok(raw
            .iter()
            .map(|r| crate::query::WaterSample::of(r, reference))
            .collect())
    }

    /// What the host adds to the water each step (drops, hydrographs, rainfall).
    pub(crate) fn feeds(&self) -> &crate::engine::feeds::Feeds {
        &self.feeds
    }
    /// The `[[pressure]]` patches.
    pub(crate) fn patches(&self) -> &crate::engine::pressure::Patches {
        &self.patches
    }
    /// Steps taken.
    pub fn step_index(&self) -> u64 {
        self.step
    }
    /// Simulated seconds.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.scene.time.dt
    }
    /// Substeps per step now.
    pub fn substeps(&self) -> u32 {
        self.substeps
    }
    /// The ground b, absolute, [ny, nx].
    pub fn ground(&self) -> &[f64] {
        &self.fields.ground
    }
    /// The bodies after the last step (absolute heights), in file order.
    pub fn bodies(&self) -> &[crate::engine::bodies::BodySample] {
        &self.bodies_now
    }

    /// The top of the highest body over each cell centre (absolute; NaN where none), from the
    /// bodies' poses after the last step: for pictures. Empty without bodies.
    pub fn body_tops(&self) -> Vec<f64> {
        if self.bodies_now.is_empty() {
            return Vec::new();
        }
        let g = &self.scene.grid;
        let reference = self.fields.reference.0;
        let mut tops = vec![f64::NAN; g.cells()];
        for (shape, now) in self.body_shapes.iter().zip(&self.bodies_now) {
            let [w, x, y, z] = now.orientation;
            let b = crate::engine::bodies::BodyState {
                position: [
                    now.position[0] as f32,
                    now.position[1] as f32,
                    (now.position[2] - reference) as f32,
                    0.0,
                ],
                rotation: [x as f32, y as f32, z as f32, w as f32],
                ..*shape
            };
            let [i0, j0, i1, j1] = crate::engine::cpu::bodies::rect(&b, g.nx, g.ny, g.dx as f32);
            for j in j0..=j1.min(g.ny - 1) {
                for i in i0..=i1.min(g.nx - 1) {
                    let (x, y) = ((i as f32 + 0.5) * g.dx as f32, (j as f32 + 0.5) * g.dx as f32);
                    let (bottom, top) = crate::engine::cpu::bodies::cast(&b, x, y);
                    let c = (j * g.nx + i) as usize;
                    let top = top as f64 + reference;
                    if bottom < crate::engine::bodies::NO_BODY && (tops[c].is_nan() || tops[c] < top) {
                        tops[c] = top;
                    }
                }
            }
        }
        tops
    }

    /// Every body after every step since the last call: one row of bodies per step.
    pub fn take_body_samples(&mut self) -> Vec<Vec<crate::engine::bodies::BodySample>> {
        std::mem::take(&mut self.body_samples)
    }

    /// How the coupling solve went on the last step: PCG's iterations and relative residual
    /// (Jacobi: its sweeps; its residual is measured on the CPU only, NaN on the GPU).
    pub fn coupling(&self) -> crate::engine::bodies::SolveReport {
        self.coupling
    }

    /// The Navier-Stokes layer's pressure iteration over the last `step` call's last submit: the
    /// most red-black sweeps a substep ran and the largest |D| (1/s) one ended with. None for the
    /// other models.
    pub fn pressure(&self) -> Option<crate::engine::bodies::SolveReport> {
        self.pressure
    }

    /// The level heights are stored relative to.
    pub fn reference_level(&self) -> f64 {
        self.fields.reference.0
    }
    /// The backend in words (the adapter, or the CPU).
    pub fn describe_backend(&self) -> String {
        self.solver.describe()
    }
    /// Times each GPU pass from the next step on (where the backend can: the height field on a
    /// device with `TIMESTAMP_QUERY`), and the wall clock of stepping: `shoal run --profile`.
    pub fn start_profile(&mut self) {
        self.profiling = Some(Profiling {
            from: self.step,
            why_not: self.solver.start_profile().err(),
            ..Profiling::default()
        });
    }

    /// What was measured since `start_profile` (None before it).
    pub fn profile(&self) -> Option<crate::engine::gpu::profile::Profile> {
        let p = self.profiling.as_ref()?;
        // The wall clock of the untimed chunks after the first; of the first where there are none.
        let (clock, warm) = if p.clock.0 > 0 {
            (p.clock, false)
        } else {
            (p.warm_up, true)
        };
        Some(crate::engine::gpu::profile::Profile {
            backend: self.solver.describe(),
            cells: self.params.nx as u64 * self.params.ny as u64,
            steps: self.step - p.from,
            clock,
            warm,
            timed_steps: p.timed_clock.0,
            cost: crate::engine::gpu::cost::describe(
                &schedule(&self.scene, &self.params),
                self.substeps,
                &self.params,
                &self.body_params,
            ),
            timed: match &p.why_not {
                Some(why) => Err(why.clone()),
                None if p.timed_clock.0 == 0 => Err(
                    "the run stepped one chunk, which warms up; profile at least two (three for an unprofiled wall clock)".into(),
                ),
                None => self.solver.profile().ok_or_else(|| "the backend kept no timestamps".to_string()),
            },
        })
    }

    /// Messages for the user (substep changes), each handed out once.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }
    /// The scene as run, every default filled in, for the output scene.toml.
    pub fn resolved_scene_toml(&self) -> String {
        self.scene.to_resolved_toml(self.fields.reference.0, self.substeps)
    }
}

/// Volume and extremes of the water.
#[derive(Clone, Copy, Debug)]
pub struct FieldStats {
    /// Σ d·dx², summed in f64.
    pub volume: f64,
    /// Lowest and highest wet surface (NaN with no wet cell).
    pub h_min: f64,
    /// See `h_min`.
    pub h_max: f64,
    /// Cells holding water.
    pub wet_cells: u64,
    /// Deepest water, metres.
    pub max_depth: f64,
}

/// The substeps the scene's model needs for water `max_depth` deep.
fn substeps_needed(scene: &Scene, max_depth: f64) -> u32 {
    match scene.physics.model {
        crate::scene::WaterModel::Pipes => crate::models::pipes::columns::substeps_needed(scene, max_depth),
        crate::scene::WaterModel::NavierStokes => {
            crate::models::navier_stokes::setup::substeps_needed(scene, max_depth)
        }
        crate::scene::WaterModel::HeightField => params::substeps_needed(scene, max_depth),
    }
}

/// The deepest water over `ground` under the surface `eta` (both h − ref per cell), m.
fn deepest(eta: &[f32], ground: &[f32]) -> f64 {
    eta.iter()
        .zip(ground)
        .map(|(e, b)| (e - b).max(0.0) as f64)
        .fold(0.0, f64::max)
}

/// The substeps the scene's model needs for water `max_depth` m deep (refused past the most a
/// step runs), and those a run takes: at least the scene's `time.substeps`.
fn plan_substeps(scene: &Scene, max_depth: f64) -> Result<(u32, u32)> {
    let needed = substeps_needed(scene, max_depth);
    check_substeps(scene, needed, max_depth)?;
    let substeps = needed.max(scene.time.substeps);
    check_adi_precision(scene, substeps, max_depth)?;
    Ok((needed, substeps))
}

/// The largest k·d_max (g·d·dt²/dx² of a substep) at which ADI's float32 rows keep the 1 of
/// their diagonal 1 + k·(w_l + w_r): past 2^22 it rounds away, the systems turn singular and the
/// step diverges at once (standing_wave.toml's 5 cm cells held at dt = 55 s, k·d = 5.9e6, and
/// failed at 60 s). ADI is unconditionally stable in exact arithmetic, not in float32.
const ADI_MAX_KD: f64 = (1u64 << 22) as f64;

fn check_adi_precision(scene: &Scene, substeps: u32, max_depth: f64) -> Result<()> {
    let adi = scene.physics.model == crate::scene::WaterModel::HeightField
        && scene.physics.solver == crate::scene::Method::Adi;
    let kd = params::step_coefficient(scene, substeps) * max_depth;
    if adi && kd > ADI_MAX_KD {
        let text = std::fs::read_to_string(&scene.origin).ok();
        return Err(scene.error_at(
            text.as_deref(),
            "time.dt",
            format!(
                "the ADI solver at dt = {} s has g·d_max·dt²/dx² = {kd:.3e} for water {max_depth:.3} m deep: past \
                 {ADI_MAX_KD:.3e} float32 loses the 1 of its rows' diagonal and the step diverges; use a dt \
                 under {:.3} s, or time.substeps",
                scene.time.dt,
                scene.time.dt * (ADI_MAX_KD / kd).sqrt()
            ),
        ));
    }
    Ok(())
}

fn check_substeps(scene: &Scene, needed: u32, max_depth: f64) -> Result<()> {
    if needed > params::MAX_SUBSTEPS {
        return Err(Error::Scene {
            file: scene.origin.clone(),
            line: None,
            message: format!(
                "time.dt = {} s would need {needed} substeps per step for water {max_depth:.3e} m deep \
                 (at most {} are run): use a shorter dt or a coarser grid",
                scene.time.dt,
                params::MAX_SUBSTEPS
            ),
        });
    }
    Ok(())
}

fn substep_note(scene: &Scene, substeps: u32, max_depth: f64) -> String {
    if scene.physics.model == crate::scene::WaterModel::NavierStokes {
        return format!(
            "water {max_depth:.4} m deep needs sqrt(g·d)·dt/dx ≤ {} on the Navier-Stokes grid; running \
             {substeps} equal substeps per step",
            crate::models::navier_stokes::setup::NS_COURANT
        );
    }
    if scene.physics.model == crate::scene::WaterModel::Pipes {
        return format!(
            "water {max_depth:.4} m deep needs sqrt(g·d)·dt/dx ≤ {} in the pipes; running {substeps} equal \
             substeps per step",
            crate::models::pipes::columns::PIPE_COURANT
        );
    }
    format!(
        "dt = {} s breaks the explicit stability limit g·d_max·dt²/dx² ≤ 1/2 (d_max = {:.4} m, \
         g·d_max·dt²/dx² = {:.3}); running {substeps} equal substeps per step",
        scene.time.dt,
        max_depth,
        params::step_coefficient(scene, 1) * max_depth
    )
}

/// The damping map's keep per substep at `substeps` (`params::keep_per_substep` per cell).
fn damping_per_substep(keep: &[f32], substeps: u32) -> Vec<f32> {
    keep.iter()
        .map(|&k| params::keep_per_substep(k as f64, substeps))
        .collect()
}

/// Each cell's 1 − tau (per step of `time.dt`) under `physics.damping_map`: the scene's tau plus the map's, in [0, 1]
/// (NPY values as they are, a PNG's shades as shares of 1). Empty without a map.
fn damping_keep(scene: &Scene) -> Result<Vec<f32>> {
    let Some(map) = &scene.physics.damping_map else {
        return Ok(Vec::new());
    };
    let (values, _) = crate::scene::read_map(scene, "physics.damping_map", map)?;
    let tau = scene.physics.damping;
    if let Some(bad) = values.iter().position(|&v| !(v >= 0.0 && tau + v <= 1.0)) {
        let text = std::fs::read_to_string(&scene.origin).ok();
        return Err(scene.error_at(
            text.as_deref(),
            "physics.damping_map",
            format!(
                "\"{}\": cell {bad} holds {}: a cell's damping, physics.damping ({tau}) plus the map's, must \
                 lie in [0, 1]",
                map.display(),
                values[bad]
            ),
        ));
    }
    Ok(values.iter().map(|&v| (1.0 - (tau + v)) as f32).collect())
}

/// Height per step each cell's sources ask for (drains negative): a source spreads rate·dt evenly
/// over the cells whose centres lie in its disc (the cell it stands in, if none do). Empty when the
/// scene has no sources.
fn source_field(scene: &Scene) -> Vec<f32> {
    if scene.sources.is_empty() {
        return Vec::new();
    }
    let g = scene.grid;
    let mut field = vec![0.0f64; g.cells()];
    for s in &scene.sources {
        let cells = crate::engine::feeds::disc_cells(&g, s.x, s.y, s.radius);
        let height = s.rate * scene.time.dt / (cells.len() as f64 * g.dx * g.dx);
        for c in cells {
            field[c as usize] += height;
        }
    }
    field.into_iter().map(|h| h as f32).collect()
}

/// The cell containing each probe.
fn probe_cells(scene: &Scene) -> Vec<u32> {
    let g = scene.grid;
    scene
        .output
        .probes
        .iter()
        .map(|p| {
            let i = ((p.x / g.dx).floor() as u32).min(g.nx - 1);
            let j = ((p.y / g.dx).floor() as u32).min(g.ny - 1);
            j * g.nx + i
        })
        .collect()
}

/// What `Simulation::start_profile` measures.
#[derive(Debug, Default)]
struct Profiling {
    /// The step it started at.
    from: u64,
    /// Chunks run since.
    chunks: u64,
    /// (steps, wall-clock seconds) of the first chunk, of the later ones run without
    /// timestamps, and of those with.
    warm_up: (u64, f64),
    clock: (u64, f64),
    timed_clock: (u64, f64),
    /// Why the backend times no passes (None: it does).
    why_not: Option<String>,
}

/// The step a scene asks for, for its parameters.
fn schedule(scene: &Scene, p: &Params) -> Schedule {
    let model = match scene.physics.model {
        crate::scene::WaterModel::Pipes => ModelRun::Pipes {
            spray: scene.spray.unwrap_or_default().enabled,
        },
        crate::scene::WaterModel::NavierStokes => ModelRun::NavierStokes {
            spray: crate::models::navier_stokes::spray::ns_spray_params(scene).is_some(),
            markers: scene
                .navier_stokes
                .as_ref()
                .is_some_and(|ns| ns.surface == crate::scene::NsSurfaceMode::Markers),
        },
        crate::scene::WaterModel::HeightField => ModelRun::HeightField(scene.physics.solver),
    };
    Schedule::new(model, p, crate::engine::feeds::staged(scene))
}

/// What `Simulation::check` reports: a scene that would run, and what it would take.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The scene with every default filled in, as `scene.toml` would hold it.
    pub scene_toml: String,
    /// Substeps per step the stability rule asks for at the start.
    pub substeps: u32,
    /// About how many bytes of GPU buffers the scene needs.
    pub gpu_bytes: u64,
    /// What the run would say on stderr before its first step.
    pub notes: Vec<String>,
    /// The passes of a step and what each costs a GPU, as TOML comment lines.
    pub schedule: String,
}

/// A scene's fields and uniforms, checked, before any backend exists.
struct Prepared {
    fields: InitialFields,
    eta: Vec<f32>,
    ground_rel: Vec<f32>,
    probe_cells: Vec<u32>,
    params: Params,
    substeps: u32,
    notes: Vec<String>,
    source: Vec<f32>,
    feeds: crate::engine::feeds::Feeds,
    patches: crate::engine::pressure::Patches,
    /// Each cell's 1 − tau under `physics.damping_map` (empty without it).
    damping_keep: Vec<f32>,
    bodies: Vec<crate::engine::bodies::BodyState>,
    body_params: crate::engine::bodies::BodyParams,
    cover: Vec<crate::engine::bodies::Cover>,
    /// The pipes model's columns (None: the height field).
    columns: Option<crate::models::pipes::columns::Columns>,
    /// The Navier-Stokes layer (None: the other models).
    layer: Option<crate::models::navier_stokes::setup::NsLayer>,
}

/// Bytes of host memory a cell takes while a scene is built (its ground and surface in f64, their
/// f32 copies, the sources, the feeds) and a CPU backend holds it (two levels, carry, and the
/// options' fields): what `Prepared::new` checks against the machine's memory before it
/// allocates anything, so a grid too large is an error, not an abort.
const HOST_BYTES_PER_CELL: u64 = 128;

/// The memory this process can take without swapping, in bytes: Linux's MemAvailable, or less
/// where the process's control group (a Slurm job, a container) has a limit closer; None where the
/// system does not say.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(match cgroup_headroom() {
        Some(room) => room.min(kb * 1024),
        None => kb * 1024,
    })
}

/// What the process's control group may still take (limit − usage; v2's memory.max, v1's
/// memory.limit_in_bytes); None without one. Its folder is looked for under its own path, then at
/// the mount's root (a container sees its own group there).
fn cgroup_headroom() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let root = std::path::Path::new("/sys/fs/cgroup");
    let (base, path, files) = match membership.lines().find_map(|l| l.split_once(":memory:")) {
        Some((_, path)) => (
            root.join("memory"),
            path,
            ["memory.limit_in_bytes", "memory.usage_in_bytes"],
        ),
        None => {
            let path = membership.lines().find_map(|l| l.strip_prefix("0::"))?;
            (root.to_path_buf(), path, ["memory.max", "memory.current"])
        }
    };
    [base.join(path.trim_start_matches('/')), base].iter().find_map(|dir| {
        let read = |name: &str| -> Option<u64> { std::fs::read_to_string(dir.join(name)).ok()?.trim().parse().ok() };
        Some(read(files[0])?.saturating_sub(read(files[1])?))
    })
}

/// Refuses a grid the host cannot hold while it builds the scene (and a CPU backend runs it).
fn check_host_memory(scene: &Scene) -> Result<()> {
    let g = scene.grid;
    let need = g.nx as u64 * g.ny as u64 * HOST_BYTES_PER_CELL;
    match available_memory() {
        Some(have) if need > have => Err(Error::GridTooLarge {
            nx: g.nx,
            ny: g.ny,
            what: format!(
                "building it needs about {:.1} GiB of memory ({HOST_BYTES_PER_CELL} B a cell), and this machine \
                 has {:.1} GiB available",
                need as f64 / (1u64 << 30) as f64,
                have as f64 / (1u64 << 30) as f64
            ),
        }),
        _ => Ok(()),
    }
}

impl Prepared {
    fn new(scene: &Scene) -> Result<Prepared> {
        check_host_memory(scene)?;
        match scene.physics.model {
            crate::scene::WaterModel::Pipes => return Self::pipes(scene),
            crate::scene::WaterModel::NavierStokes => return Self::navier_stokes(scene),
            crate::scene::WaterModel::HeightField => {}
        }
        let fields = InitialFields::build(scene)?;
        let (eta, ground_rel) = fields.relative_f32();
        let probe_cells = probe_cells(scene);

        let max_depth = deepest(&eta, &ground_rel);
        let (needed, substeps) = plan_substeps(scene, max_depth)?;
        let mut notes = Vec::new();
        if needed > scene.time.substeps {
            notes.push(substep_note(scene, substeps, max_depth));
        }
        let mut params = Params::new(scene, substeps, probe_cells.len() as u32);
        let correction = scene.physics.volume_correction;
        if correction == VolumeCorrection::Regions && params.correct == params::CORRECT_CLAMPS {
            notes.push(
                "volume_correction = \"regions\" runs with reflect and periodic sides only: through open, \
                 absorbing and ghost sides water crosses the boundary, so this run corrects globally, undoing \
                 what the dry-cell rule does"
                    .into(),
            );
        }
        if correction == VolumeCorrection::Regions && params.regions == 0 && !scene.bodies.is_empty() {
            notes.push(
                "volume_correction = \"regions\" runs without bodies only: a submerged body's volume stands in its \
                 columns, which the per-region sums would count as water, so this run corrects globally"
                    .into(),
            );
        }
        let mut eta = eta;
        let (bodies, body_params, cover) = place_bodies(scene, fields.reference.0, &params, &ground_rel, &mut eta);
        let mut source = source_field(scene);
        if !source.is_empty() {
            params.sources = 1;
            params.source_step = source.iter().map(|&s| s as f64).sum::<f64>() as f32;
        }
        let feeds = crate::engine::feeds::Feeds::new(scene, &fields)?;
        params.rainfall = feeds.rainfall_mode();
        if params.rainfall != 0 && source.is_empty() {
            // Rainfall falls in the volume pass with the sources, from a field of none.
            source = vec![0.0; eta.len()];
            params.sources = 1;
        }
        let damping_keep = damping_keep(scene)?;
        if !damping_keep.is_empty() {
            params.forcing |= crate::wgsl::common::FORCE_DAMPING_MAP;
        }
        let patches = crate::engine::pressure::Patches::new(scene);
        if !patches.is_empty() {
            params.forcing |= crate::wgsl::common::FORCE_PRESSURE;
        }
        // A shoreline: both solvers keep each face's flux memory, so a face that dries forgets
        // its flow on both sides (cpu::explicit::Memory). Without a dry cell at the start it costs
        // 16 B per cell per step for nothing: left off.
        if eta.iter().zip(&ground_rel).any(|(h, b)| h <= b) {
            params.faces = 1;
        }
        Ok(Prepared {
            feeds,
            patches,
            damping_keep,
            fields,
            eta,
            ground_rel,
            probe_cells,
            params,
            substeps,
            notes,
            source,
            bodies,
            body_params,
            cover,
            columns: None,
            layer: None,
        })
    }

    /// The pipes model: the columns, and the ground the outputs report, each column's top floor
    /// (what a view from above sees: a bridge deck, a rock's top).
    fn pipes(scene: &Scene) -> Result<Prepared> {
        let mut fields = InitialFields::build(scene)?;
        let probe_cells = probe_cells(scene);
        let max_depth = fields
            .surface
            .iter()
            .zip(&fields.ground)
            .map(|(h, b)| h - b)
            .fold(0.0, f64::max);
        let (_, substeps) = plan_substeps(scene, max_depth)?;
        let columns = crate::models::pipes::columns::Columns::build(scene, &fields, substeps)?;
        fields.ground.clone_from(&columns.top_floor);
        for (h, b) in fields.surface.iter_mut().zip(&fields.ground) {
            *h = h.max(*b);
        }
        // Drops, hydrographs and rainfall fall into the columns in whole units (`pipe_rain`).
        let feeds = crate::engine::feeds::Feeds::new(scene, &fields)?;
        let mut prepared = Self::of_model(scene, fields, probe_cells, substeps, Some(columns), None);
        prepared.params.rainfall = feeds.rainfall_mode();
        Ok(Prepared { feeds, ..prepared })
    }

    /// What the pipes and the Navier-Stokes layer are built from: no sources, bodies or covers
    /// (the layer adds its bodies) beside the model's own structure.
    fn of_model(
        scene: &Scene,
        fields: InitialFields,
        probe_cells: Vec<u32>,
        substeps: u32,
        columns: Option<crate::models::pipes::columns::Columns>,
        layer: Option<crate::models::navier_stokes::setup::NsLayer>,
    ) -> Prepared {
        let (eta, ground_rel) = fields.relative_f32();
        let params = Params::new(scene, substeps, probe_cells.len() as u32);
        Prepared {
            fields,
            eta,
            ground_rel,
            probe_cells,
            params,
            substeps,
            notes: Vec::new(),
            source: Vec::new(),
            feeds: Default::default(),
            patches: Default::default(),
            damping_keep: Vec::new(),
            bodies: Vec::new(),
            body_params: crate::engine::bodies::BodyParams::new(scene),
            cover: Vec::new(),
            columns,
            layer,
        }
    }

    /// The Navier-Stokes layer: the 3D grid under the height field, whose surface carries the
    /// bodies' submerged volume as the height field's does.
    fn navier_stokes(scene: &Scene) -> Result<Prepared> {
        let fields = InitialFields::build(scene)?;
        let probe_cells = probe_cells(scene);
        let (mut eta, ground_rel) = fields.relative_f32();
        let (_, substeps) = plan_substeps(scene, deepest(&eta, &ground_rel))?;
        let params = Params::new(scene, substeps, probe_cells.len() as u32);
        let (bodies, body_params, cover) = place_bodies(scene, fields.reference.0, &params, &ground_rel, &mut eta);
        let layer = crate::models::navier_stokes::setup::NsLayer::build(scene, &eta, &ground_rel, fields.reference.0)?;
        Ok(Prepared {
            eta,
            bodies,
            body_params,
            cover,
            ..Self::of_model(scene, fields, probe_cells, substeps, None, Some(layer))
        })
    }
}

/// The scene's bodies at rest and the water settled around them: `eta` then carries their
/// submerged volume (`held`) where the returned covers say. Empty without bodies.
fn place_bodies(
    scene: &Scene,
    reference: f64,
    params: &Params,
    ground: &[f32],
    eta: &mut [f32],
) -> (
    Vec<crate::engine::bodies::BodyState>,
    crate::engine::bodies::BodyParams,
    Vec<crate::engine::bodies::Cover>,
) {
    let mut bodies = crate::engine::placement::initial(scene, reference, eta, ground);
    let body_params = crate::engine::bodies::BodyParams::new(scene);
    let cover = crate::engine::placement::settle_initial_water(params, &body_params, &bodies, ground, eta);
    if !cover.is_empty() {
        // The waterlines the bodies start from, over the settled water.
        let flooded: Vec<u32> = bodies.iter().map(|b| b.kind[2]).collect();
        bodies = crate::engine::placement::initial(scene, reference, eta, ground);
        for (b, f) in bodies.iter_mut().zip(flooded) {
            b.kind[2] = f;
        }
    }
    (bodies, body_params, cover)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_simulation_can_move_to_another_thread() {
        fn is_send<T: Send>() {}
        is_send::<Simulation>();
    }

    /// A simulation whose first step overflows: a 10 m bump and k = f32::MAX.
    pub(crate) fn exploding() -> Simulation {
        let text = "[grid]\nnx = 8\nny = 4\ndx = 0.1\n[time]\ndt = 0.01\n[terrain]\nflat = -1.0\n\
                    [[water.bump]]\nx = 0.4\ny = 0.2\nradius = 0.1\nheight = 10.0\n";
        let scene = Scene::parse(text, std::path::Path::new("test"), std::path::Path::new(".")).unwrap();
        Simulation::build(&scene, |setup| {
            let params = Params {
                k: f32::MAX,
                ..setup.params
            };
            Ok(Box::new(CpuSolver::new(&Setup { params, ..*setup })))
        })
        .unwrap()
    }

    #[test]
    fn a_diverged_simulation_names_the_step_and_refuses_to_go_on() {
        let mut sim = exploding();
        assert!(matches!(sim.step(10), Err(Error::Diverged { step: 1 })));
        assert!(matches!(sim.step(1), Err(Error::Diverged { step: 1 })));
    }
}
