//! A step as a schedule: the passes of one step, in order, built once from the scene. The GPU
//! backend records it (`gpu::GpuSolver`), the CPU backend runs it (`cpu::CpuSolver`): the order of
//! a step is written here and nowhere else.
//!
//! A water model contributes the passes of its substep ([`ModelRun::substep`]); the passes around it
//! (the bodies' coupling, the volume correction, the probes) follow from the scene. Adding a pass
//! or a model means a variant of [`Pass`], a line in [`Schedule::new`], and one arm in each
//! executor (the compiler lists the executors that lack it). What each pass costs a GPU is
//! declared beside its dispatches, in `gpu::cost`.

use crate::engine::params::Params;
use crate::scene::{BoundaryMode, Method};

/// One pass of a step, named after its WGSL file (and entry point where a file has several).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// `reduce.wgsl`: the totals of the current level (the mean wet surface that ghost-mean sides
    /// read; the volume that the correction holds to its target).
    Reduce,
    /// `explicit.wgsl`: one explicit substep of Kass & Miller's height field (eq. 17 with the
    /// face depths of §4), then `edges` where a side absorbs or two slope sides meet.
    Explicit { edges: bool },
    /// `adi.wgsl`: one implicit substep by alternating directions (§4–5).
    Adi,
    /// `bodies.wgsl` `footprint`: what covers each column, and the cells a body expels water from.
    Footprint,
    /// `coupling.wgsl`: GAMES103's virtual-height solve, applied to the level.
    Coupling,
    /// `bodies.wgsl` `integrate`: forces and one semi-implicit Euler step of each body.
    Integrate,
    /// `regions.wgsl`: labels the connected bodies of water and each one's correction.
    Regions,
    /// `volume.wgsl` `settle`, `apply`, `rain`: the correction, sources, drains and this step's drops.
    Volume,
    /// `probe.wgsl`: the gauges' heights after the step (under the pipes, `pipes.wgsl` `probe`).
    Probe,
    /// `pipes.wgsl` `flow_step`: every pipe's velocity, and what each cell gives (limited).
    PipeFlow,
    /// `pipes.wgsl` `apply`: the cells take what they were given; sources and drains.
    PipeApply,
    /// `spray.wgsl`: the particles fly and land, the breaking faces make new ones (fly, count,
    /// the scan's three passes, compact, emit, settle, copy).
    Spray,
    /// `pipe_rain.wgsl`: this step's drops into the columns' top cells, in whole units.
    PipeRain,
    /// Seed 003's layer (`cpu::navier_stokes::step_with`): flags, momentum, the pressure iteration,
    /// the surface velocities and the height field.
    NavierStokes,
    /// `ns_spray.wgsl`: the layer's spray and foam fly, land and drift (`fly`), and each cell
    /// takes its landed water, splits its particles and throws new spray (`birth`).
    NsSpray,
    /// `ns_bodies.wgsl` `body_loads`: the layer's pressure and velocities on each body's nodes,
    /// which `Integrate` moves it by.
    NsBodies,
    /// `pressure.wgsl` `head`: the `[[pressure]]` patches' head per cell for this step, before
    /// its substeps.
    Pressure,
    /// `summary.wgsl` `fold`: the step's level into the flood maps, last.
    Summary,
    /// `shallow_water.wgsl` `stage_one`, `stage_two`: one SSP-RK2 substep of the shallow-water
    /// equations (each stage a fused reconstruct–flux–update–friction pass over every cell).
    ShallowWater,
    /// `sw_feed.wgsl` `rainfall`, `drops`: the step's rainfall, drops, hydrographs, sources,
    /// drains and makers' line sources into the shallow-water model, after its substeps.
    SwFeed,
    /// `sw_maps.wgsl` `fold_flow`: the step's speed and d·|u| into the shallow-water model's
    /// flood maps, after `Summary`.
    SwMaps,
    /// `sw_bodies.wgsl` `press`: the bodies' draft as a pressure head on the shallow-water
    /// model's water, before its substeps (after `Pressure`).
    SwPress,
    /// `sw_bodies.wgsl` `loads`: the force and torque of the heads each body presses the water
    /// with, and the water's velocity around it, which `Integrate` moves it by.
    SwLoads,
    /// `pipes.wgsl` `surface`: each column's surface, which the body passes read (the pipes with
    /// bodies; readouts and the flood maps run it on their own).
    PipeSurface,
    /// `pipe_bodies.wgsl` `press`: the bodies' weight as a pressure head on the columns' top
    /// cells, before the substeps (after `Pressure`).
    PipePress,
    /// `pipe_bodies.wgsl` `loads`: the heads each body presses its columns with, and the water's
    /// velocity around it, which `Integrate` moves it by.
    PipeLoads,
}

impl Pass {
    /// Whether the pass writes the next level of the ping-pong (the caller flips it after).
    pub fn advances_level(self) -> bool {
        matches!(self, Pass::Explicit { .. } | Pass::Adi)
    }

    /// The pass's name as `shoal run --dry-run` prints it: its WGSL file and entry points.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Reduce => "reduce",
            Pass::Explicit { edges: false } => "explicit",
            Pass::Explicit { edges: true } => "explicit + edges",
            Pass::Adi => "adi",
            Pass::Footprint => "bodies.footprint",
            Pass::Coupling => "coupling",
            Pass::Integrate => "bodies.integrate",
            Pass::Regions => "regions",
            Pass::Volume => "volume",
            Pass::Probe => "probe",
            Pass::PipeFlow => "pipes.flow_step",
            Pass::PipeApply => "pipes.apply",
            Pass::Spray => "spray",
            Pass::PipeRain => "pipe_rain",
            Pass::NavierStokes => "navier_stokes",
            Pass::NsSpray => "ns_spray",
            Pass::NsBodies => "ns_bodies",
            Pass::Pressure => "pressure",
            Pass::Summary => "summary",
            Pass::ShallowWater => "shallow_water",
            Pass::SwFeed => "sw_feed",
            Pass::SwMaps => "sw_maps",
            Pass::SwPress => "sw_bodies.press",
            Pass::SwLoads => "sw_bodies.loads",
            Pass::PipeSurface => "pipes.surface",
            Pass::PipePress => "pipe_bodies.press",
            Pass::PipeLoads => "pipe_bodies.loads",
        }
    }
}

/// A water model: what advances the level by one substep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelRun {
    /// Kass & Miller's height field, by the explicit or the ADI solver.
    HeightField(Method),
    /// Seed 004's columns joined by virtual pipes, with or without its spray.
    Pipes { spray: bool },
    /// Seed 003's Navier-Stokes layer under the height field, with or without its spray; or
    /// with marker particles in place of the height field (2D runs).
    NavierStokes { spray: bool, markers: bool },
    /// The nonlinear shallow-water equations (`crate::models::shallow_water`).
    ShallowWater,
}

impl ModelRun {
    /// What runs, in the scene's words: the model's key (SCENE.md's `physics.model`), the
    /// height field's solver, and the spray or markers where they run.
    pub fn describe(self) -> String {
        match self {
            ModelRun::HeightField(Method::Explicit) => "height-field, explicit".into(),
            ModelRun::HeightField(Method::Adi) => "height-field, adi".into(),
            ModelRun::Pipes { spray } => format!("pipes{}", if spray { ", spray" } else { "" }),
            ModelRun::NavierStokes { spray, markers } => format!(
                "navier-stokes{}{}",
                if spray { ", spray" } else { "" },
                if markers { ", markers" } else { "" }
            ),
            ModelRun::ShallowWater => "shallow-water".into(),
        }
    }

    /// The passes of one substep, in order.
    pub fn substep(self, params: &Params) -> Vec<Pass> {
        match self {
            ModelRun::HeightField(method) => {
                let mut passes = Vec::new();
                // Ghost-mean sides read the mean wet surface of the level they step from.
                if params.uses(BoundaryMode::GhostMean) {
                    passes.push(Pass::Reduce);
                }
                passes.push(match method {
                    Method::Explicit => Pass::Explicit {
                        edges: needs_edges(params),
                    },
                    Method::Adi => Pass::Adi,
                });
                passes
            }
            ModelRun::Pipes { .. } => vec![Pass::PipeFlow, Pass::PipeApply],
            ModelRun::NavierStokes { .. } => vec![Pass::NavierStokes],
            ModelRun::ShallowWater => vec![Pass::ShallowWater],
        }
    }
}

/// Whether the explicit solver's `edges` entry has anything to do: a side absorbs (Mur's
/// condition runs after the interior) or two ghost-slope sides meet at a corner.
pub fn needs_edges(p: &Params) -> bool {
    p.uses(BoundaryMode::Absorb) || slope_corners(p)
}

/// Whether a ghost-slope side along x meets one along y: the corner cells then need their own
/// rule (explicit.wgsl's `edges`, adi.wgsl's `corners`).
pub fn slope_corners(p: &Params) -> bool {
    let slope = BoundaryMode::GhostSlope as u32;
    let slope_x = p.bc_west == slope || p.bc_east == slope;
    let slope_y = p.bc_south == slope || p.bc_north == slope;
    slope_x && slope_y
}

/// The passes of one step: `before` once, `substep` `substeps` times, then `after` once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub model: ModelRun,
    pub before: Vec<Pass>,
    pub substep: Vec<Pass>,
    pub after: Vec<Pass>,
    /// The scene feeds its water step by step (`feeds::Feeds::any`): the volume pass drops it
    /// after the correction (the pipes' `pipe_rain`, the shallow-water model's `sw_feed`).
    pub rain: bool,
    /// The probe pass reads discharge lines' flows (`[[output.section]]`), not heights alone.
    pub flows: bool,
}

impl Schedule {
    /// The step the scene asks for. `rain`: the scene has `[rain]`.
    pub fn new(model: ModelRun, params: &Params, rain: bool) -> Schedule {
        let mut after = Vec::new();
        match model {
            // The global correction (a safety net: the surface's fluxes conserve by
            // construction) runs inside the layer's step, on the height field, after the spray.
            ModelRun::NavierStokes { spray, .. } => {
                if spray {
                    after.push(Pass::NsSpray);
                }
                // Sources, rain and rainfall on its height field: the shallow-water model's feed
                // (`models::navier_stokes::feed`), which the 3D grid takes at its next substep.
                if rain {
                    after.push(Pass::SwFeed);
                }
                // The coupling expels the water from under the bodies as on the height field;
                // the layer's pressure, not the columns, then moves them.
                if params.bodies != 0 {
                    after.extend([Pass::Footprint, Pass::Coupling, Pass::NsBodies, Pass::Integrate]);
                }
            }
            // Conserved by construction: no correction; sources act inside `apply`.
            ModelRun::Pipes { spray } => {
                if spray {
                    after.push(Pass::Spray);
                }
                if rain || params.infiltration != 0 {
                    after.push(Pass::PipeRain);
                }
                // The bodies press on the top cells (`PipePress`, before the next step's
                // substeps), as on the shallow-water model: the pipes move the water.
                if params.bodies != 0 {
                    after.extend([Pass::PipeSurface, Pass::Footprint, Pass::PipeLoads, Pass::Integrate]);
                }
            }
            // Conserved by construction (fluxes both cells of a face compute alike): no correction;
            // what the scene feeds it falls after the substeps.
            ModelRun::ShallowWater => {
                if rain || params.forcing & crate::wgsl::common::FORCE_INFILTRATION != 0 {
                    after.push(Pass::SwFeed);
                }
                // The bodies press on the water (`SwPress`, before the next step's substeps):
                // no coupling solve, the model's pressure gradient moves the water.
                if params.bodies != 0 {
                    after.extend([Pass::Footprint, Pass::SwLoads, Pass::Integrate]);
                }
            }
            ModelRun::HeightField(_) => {
                if params.bodies != 0 {
                    after.extend([Pass::Footprint, Pass::Coupling, Pass::Integrate]);
                }
                if corrects(params, rain) {
                    after.push(Pass::Reduce);
                    if params.regions != 0 {
                        after.push(Pass::Regions);
                    }
                    after.push(Pass::Volume);
                }
            }
        }
        if params.n_probes != 0 {
            after.push(Pass::Probe);
        }
        if params.summary != 0 {
            // The pipes' maps fold their surface: the pass that writes it runs once a step (with
            // bodies it already has, before their footprint, and nothing after moves the water).
            if matches!(model, ModelRun::Pipes { .. }) && params.bodies == 0 {
                after.push(Pass::PipeSurface);
            }
            after.push(Pass::Summary);
            if model == ModelRun::ShallowWater {
                after.push(Pass::SwMaps);
            }
        }
        let pressure = params.forcing & crate::wgsl::common::FORCE_PRESSURE != 0;
        let mut before = if pressure { vec![Pass::Pressure] } else { Vec::new() };
        if params.bodies != 0 {
            match model {
                ModelRun::ShallowWater => before.push(Pass::SwPress),
                ModelRun::Pipes { .. } => before.push(Pass::PipePress),
                _ => {}
            }
        }
        Schedule {
            model,
            before,
            substep: model.substep(params),
            after,
            rain,
            flows: false,
        }
    }

    /// This schedule with the probe pass reading discharge lines' flows where `flows`.
    pub fn reading_flows(self, flows: bool) -> Schedule {
        Schedule { flows, ..self }
    }

    /// Whether the GPU fuses the volume correction into the explicit step: the step sums the
    /// level it writes (the `Reduce` after it only folds the partials) and the next step applies
    /// the correction `Volume` settles as it reads the level (a chunk's last by `apply`), so a
    /// step streams the level once instead of three times. Only where the correction is all that
    /// `apply` does and nothing but the probes reads the level between steps: the plain explicit
    /// step, a closed domain held to its target, no sources, rain, regions or bodies. The fast
    /// CPU backend fuses the same steps (`cpu::fast::fused`); the results are the same bits.
    pub fn fuses_correction(&self, p: &Params) -> bool {
        self.substep == [Pass::Explicit { edges: false }]
            && self.before.is_empty()
            && p.forcing & crate::engine::params::STEP_FORCING == 0
            && p.correct == crate::engine::params::CORRECT_TARGET
            && crate::engine::params::is_plain(p)
            && !self.rain
            // close.wgsl records the probes' heights alone.
            && !self.flows
            && self.after
                == [Pass::Reduce, Pass::Volume]
                    .into_iter()
                    .chain((p.n_probes != 0).then_some(Pass::Probe))
                    .collect::<Vec<_>>()
    }

    /// Every pass of a step with `substeps` substeps, in the order they run.
    pub fn step(&self, substeps: u32) -> impl Iterator<Item = Pass> + '_ {
        self.before
            .iter()
            .copied()
            .chain((0..substeps).flat_map(|_| self.substep.iter().copied()))
            .chain(self.after.iter().copied())
    }
}

/// Whether a step ends with the volume pass: a correction to hold, sources, drains or rain.
pub fn corrects(params: &Params, rain: bool) -> bool {
    params.correct != 0 || params.sources != 0 || rain
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params {
            nx: 8,
            ny: 8,
            ..Params::default()
        }
    }

    #[test]
    fn a_plain_explicit_step_is_one_pass() {
        let s = Schedule::new(ModelRun::HeightField(Method::Explicit), &params(), false);
        assert_eq!(s.step(3).collect::<Vec<_>>(), vec![Pass::Explicit { edges: false }; 3]);
    }

    #[test]
    fn the_order_is_model_bodies_correction_probes() {
        let p = Params {
            correct: crate::engine::params::CORRECT_TARGET,
            regions: 4,
            bodies: 1,
            n_probes: 2,
            bc_west: BoundaryMode::GhostMean as u32,
            ..params()
        };
        let s = Schedule::new(ModelRun::HeightField(Method::Adi), &p, false);
        use Pass::*;
        assert_eq!(
            s.step(1).collect::<Vec<_>>(),
            vec![Reduce, Adi, Footprint, Coupling, Integrate, Reduce, Regions, Volume, Probe]
        );
    }

    #[test]
    fn a_pipes_step_is_flow_then_apply_per_substep_then_the_probes() {
        let p = Params {
            n_probes: 1,
            sources: 1,
            ..params()
        };
        let s = Schedule::new(ModelRun::Pipes { spray: false }, &p, false);
        use Pass::*;
        assert_eq!(
            s.step(2).collect::<Vec<_>>(),
            vec![PipeFlow, PipeApply, PipeFlow, PipeApply, Probe]
        );
        let s = Schedule::new(ModelRun::Pipes { spray: true }, &p, false);
        assert_eq!(
            s.step(1).collect::<Vec<_>>(),
            vec![PipeFlow, PipeApply, Spray, Probe],
            "the spray after the substeps, so the probes see where it landed"
        );
    }

    #[test]
    fn rain_alone_brings_the_volume_pass() {
        let s = Schedule::new(ModelRun::HeightField(Method::Explicit), &params(), true);
        assert_eq!(s.after, vec![Pass::Reduce, Pass::Volume]);
    }

    #[test]
    fn the_correction_fuses_into_the_plain_explicit_step_of_a_closed_basin() {
        use crate::engine::params::{CORRECT_CLAMPS, CORRECT_TARGET};
        use crate::scene::Method;
        let closed = Params {
            correct: CORRECT_TARGET,
            n_probes: 1,
            ..params()
        };
        let fuses = |model, p: &Params, rain| Schedule::new(model, p, rain).fuses_correction(p);
        let explicit = ModelRun::HeightField(Method::Explicit);
        assert!(fuses(explicit, &closed, false));
        assert!(fuses(explicit, &Params { n_probes: 0, ..closed }, false));
        // Anything else that reads or writes the level between steps keeps the passes apart.
        assert!(!fuses(explicit, &closed, true));
        let reading_flows = Schedule::new(explicit, &closed, false).reading_flows(true);
        assert!(!reading_flows.fuses_correction(&closed));
        assert!(!fuses(ModelRun::HeightField(Method::Adi), &closed, false));
        for other in [
            Params { sources: 1, ..closed },
            Params { regions: 4, ..closed },
            Params { bodies: 1, ..closed },
            Params {
                correct: CORRECT_CLAMPS,
                ..closed
            },
            Params { correct: 0, ..closed },
            Params {
                bc_west: BoundaryMode::Absorb as u32,
                ..closed
            },
        ] {
            assert!(!fuses(explicit, &other, false), "{other:?}");
        }
    }
}
