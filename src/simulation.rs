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

mod books;
mod checkpoints;
mod edits;
mod layer_edits;
mod pipe_edits;
mod prepare;
mod readout;
mod step;

use prepare::{
    check_substeps, damping_per_substep, schedule, start_change, start_totals, substep_note, substeps_needed, Prepared,
};

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
    /// The gauges' cells (the probe pass's first entries).
    probe_cells: Vec<u32>,
    /// The discharge lines (the probe pass's entries after the gauges').
    sections: crate::engine::sections::Sections,
    /// Each section's discharge after each step since the last `take_section_rows`.
    section_rows: Vec<Vec<f64>>,
    /// Probe entries after the sections': each gauge's qx and qy (`[output] gauges`, shallow
    /// water), else none.
    gauge_flows: usize,
    /// `[output] gauges`: each gauge's (h, depth, u, v) after each step since the last
    /// `take_gauge_rows` (u, v NaN on a model without a velocity).
    gauge_rows: Vec<Vec<[f64; 4]>>,
    /// `[infiltration]`: the depth the ground has taken, summed over the cells (metres·cells),
    /// as of the last surface read (`Simulation::surface`).
    infiltrated: f64,
    totals: Totals,
    /// Set once a step went non-finite: the state is lost and stepping refuses to go on.
    diverged_at: Option<u64>,
    /// The volume target above the still water (metres·cells), as the last chunk left it.
    target: f64,
    /// The height field's books' target, which the next chunk goes on from
    /// (`ChunkReport::books_target`).
    books_target: [f32; 2],
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
    /// What the pipes and the Navier-Stokes layer report beyond the level (`books.rs`).
    books: books::ModelBooks,
    /// Keeps an owned GPU context alive (None on the CPU or on a borrowed device).
    context: Option<GpuContext>,
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
                if let Some(sw) = setup.shallow_water {
                    return Ok(Box::new(crate::models::shallow_water::cpu::sw_solver::CpuSw::new(
                        setup, sw, fast,
                    )));
                }
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
            if let Some(sw) = setup.shallow_water {
                return Ok(Box::new(crate::models::shallow_water::gpu::sw_solver::GpuSw::new(
                    device,
                    queue,
                    adapter.clone(),
                    setup,
                    sw,
                )?));
            }
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
                    shallow_water: prepared.shallow.is_some(),
                    ns_fed: crate::models::navier_stokes::fed(scene),
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
        let p = Prepared::new(scene)?;
        let carried = if p.body_params.pressed != 0 {
            &[][..]
        } else {
            &p.cover[..]
        };
        let totals = start_totals(&p.params, &p.ground_rel, &p.eta, carried);
        let own_model = p.columns.is_some() || p.layer.is_some() || p.shallow.is_some();
        let (vel, faces) = start_change(
            scene,
            &p.params,
            &p.ground_rel,
            &p.eta,
            own_model || !p.bodies.is_empty(),
        );
        let damping = damping_per_substep(&p.damping_keep, p.substeps);
        let solver = make(&p.setup(scene, &vel, &faces, &damping))?;
        let reference = p.fields.reference.0;
        Ok(Simulation {
            scene: scene.clone(),
            target: totals.sum_depth as f64,
            books_target: [totals.sum_depth, 0.0],
            still: p.ground_rel.iter().map(|&b| (-(b as f64)).max(0.0)).sum(),
            regions: (p.params.regions != 0)
                .then(|| crate::engine::cpu::regions::label(&p.params, &p.ground_rel, &p.eta).1),
            books: books::ModelBooks::new(scene, p.columns.as_ref(), p.layer.as_ref(), reference),
            bodies_now: p
                .bodies
                .iter()
                .map(|b| crate::engine::bodies::BodySample::of(b, reference))
                .collect(),
            feeds: p.feeds,
            patches: p.patches,
            damping_map: p.damping_keep,
            fields: p.fields,
            ground_rel: p.ground_rel,
            solver,
            params: p.params,
            substeps: p.substeps,
            step: 0,
            probe_cells: p.probe_cells[..p.probe_cells.len() - p.sections.entries.len() - p.gauge_flows].to_vec(),
            sections: p.sections,
            section_rows: Vec::new(),
            gauge_flows: p.gauge_flows,
            gauge_rows: Vec::new(),
            infiltrated: 0.0,
            totals,
            diverged_at: None,
            notes: p.notes,
            body_shapes: p.bodies,
            body_samples: Vec::new(),
            coupling: Default::default(),
            context: None,
            body_params: p.body_params,
            profiling: None,
            backend: Backend::Gpu,
        })
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
