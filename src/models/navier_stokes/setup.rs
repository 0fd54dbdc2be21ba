//! The Navier-Stokes layer as a scene builds it (seed 003, issue 18): the 3D grid over the
//! terrain, spanning the lowest ground to the highest water plus headroom, and the height field
//! at the scene's resolution. What the backends are built from.

use crate::models::navier_stokes::cpu::navier_stokes::moves;
use crate::models::navier_stokes::state::{
    MarkerParams, Markers, NsParams, NsState, Surface, EMPTY, FULL, SURFACE, WHOLE_SIDE,
};
use crate::scene::NsSurfaceMode;
use crate::scene::Scene;

/// sqrt(g·d)·dt/dx a substep may reach (the explicit surface's rule; measured stable at 0.25 in
/// the dispersion test and at 0.5 in the still pool).
pub const NS_COURANT: f64 = 0.5;

/// The most |u|·δt/δx (seed 003's condition 3, which asks < 1) a chunk may reach before the next
/// runs more substeps, and what they bring it back to. A chunk cannot react within itself (the
/// layer does not run a chunk again, as the shallow-water model does), so both leave room for
/// the flow to double in one: a dam break's front striking a wall went from 0.38 to past 1
/// within a 16-step chunk (0.5 and 0.35 let it).
pub const NS_FLOW_COURANT: f32 = 0.35;
const NS_FLOW_TARGET: f32 = 0.25;

/// Steps per submit at most: the flow's speed is checked between submits, so a flow that
/// accelerates (a dam break: |u| up to 2·sqrt(g·d)) gets its substeps before it outruns them.
pub const NS_CHUNK: u32 = 16;

/// The layer's cell-substeps a chunk may hold: fewer steps per submit on a larger grid or with
/// more substeps, so that a run checks its divergence and its stop requests about once a second
/// on the slowest backend (the CPU ran 1.3e-6 s per cell-substep: a 64²×32 layer at 77 substeps
/// took 13 s a step, and a 16-step chunk 194 s to say it had diverged at step 1). A function of
/// the scene and the substeps alone, so every backend and a resumed run chunk alike.
pub const NS_CHUNK_WORK: u64 = 500_000;

/// Steps per submit for a layer of `cells` 3D cells at `substeps`: the largest power of two
/// within `NS_CHUNK_WORK` of work, at least one step, at most `NS_CHUNK`. Submits end at
/// multiples of it (`Simulation::step`), and the substeps only rise, so it only halves: every
/// later boundary is one of the earlier, and a run split anywhere on them (a checkpoint every 16
/// steps) checks its flow at the steps a straight run does.
pub fn ns_chunk(cells: u64, substeps: u32) -> u32 {
    let per_step = cells.max(1) * substeps.max(1) as u64;
    let most = (NS_CHUNK_WORK / per_step).clamp(1, NS_CHUNK as u64);
    1 << most.ilog2()
}

/// Substeps for the next chunk when the last one, at `substeps`, reached `courant`.
pub fn flow_substeps(substeps: u32, courant: f32) -> u32 {
    if courant.is_finite() && courant > NS_FLOW_COURANT {
        (substeps as f32 * courant / NS_FLOW_TARGET).ceil() as u32
    } else {
        substeps
    }
}

/// The sweeps a substep's pressure iteration may run in the first chunk (or `max_sweeps`): a
/// start from rest needs the most (measured: 120–260 in the tests' tanks and dam break).
const FIRST_BUDGET: u32 = 256;
/// The fewest a budget shrinks to.
const LEAST_BUDGET: u32 = 32;

/// The pressure iteration's budget for the first chunk.
pub fn first_budget(max_sweeps: u32) -> u32 {
    FIRST_BUDGET.min(max_sweeps)
}

/// The budget for the next chunk after one at `budget` reported `report` (the most sweeps a
/// substep ran, the largest |D| one ended with): four times the most it needed (rounded up to
/// 16), or, where a substep ran out, twice the budget; never past `max_sweeps`. (Twice left no
/// room for a dam break's front striking a wall within one chunk: the iteration ran out there,
/// and the undivergent velocities it left grew a jet up the wall until the flow outran its
/// substeps. A chunk is not run again on the layer, as the shallow-water model's is.) The GPU records a
/// substep's sweeps as dispatches (4 per sweep, the converged ones empty), so the budget keeps
/// that count near what the flow needs rather than at `max_sweeps` (2000 by default); both
/// backends follow it, so they stay twins.
pub fn next_budget(budget: u32, report: crate::engine::bodies::SolveReport, epsilon: f32, max_sweeps: u32) -> u32 {
    let ran_out = report.residual >= epsilon || report.residual.is_nan();
    let want = if ran_out {
        budget.saturating_mul(2)
    } else {
        (4 * report.iterations).next_multiple_of(16).max(LEAST_BUDGET)
    };
    want.min(max_sweeps)
}

/// The layer at the start.
#[derive(Clone, Debug)]
pub struct NsLayer {
    /// The 3D grid's uniforms (the pressure iteration's `epsilon`, `max_sweeps`…).
    pub params: NsParams,
    /// The 3D grid's [floor, top] relative to the reference level, as its `dz` came from them
    /// (an edit keeps it: `Scene::layer_span`).
    pub span: [f32; 2],
    /// The 3D state at rest under the initial surface.
    pub state: NsState,
    /// The height field at the scene's resolution.
    pub surface: Surface,
    /// What drives it over time: inflow, outflow, the applied pressure.
    pub forcing: crate::models::navier_stokes::forcing::Forcing,
    /// The spray and foam's uniforms (None: the scene has no `[spray]`).
    pub spray: Option<crate::models::navier_stokes::spray::NsSprayParams>,
    /// `navier_stokes.surface = "markers"`: the markers' settings and their start (§4.1).
    pub markers: Option<(MarkerParams, Markers)>,
    /// Sources, rain or rainfall fall on its height field (`feed.rs`).
    pub fed: bool,
}

/// How high what a scene feeds the layer can raise its water (`NsLayer::build` stands the grid's
/// top over it): the feeds' volume over the domain's area, m, and the highest held level (− ref;
/// −∞ without).
#[derive(Clone, Copy, Debug)]
pub struct FedReach {
    pub rise: f32,
    pub level: f32,
}

impl Default for FedReach {
    fn default() -> FedReach {
        FedReach {
            rise: 0.0,
            level: f32::NEG_INFINITY,
        }
    }
}

impl NsLayer {
    /// The step both backends run for this layer.
    pub fn schedule(&self, params: &crate::engine::params::Params) -> crate::engine::schedule::Schedule {
        let model = crate::engine::schedule::ModelRun::NavierStokes {
            spray: self.spray.is_some(),
            markers: self.markers.is_some(),
        };
        crate::engine::schedule::Schedule::new(model, params, self.fed)
    }

    /// The 3D grid's cells along x, y and z.
    pub fn shape(&self) -> [usize; 3] {
        [self.params.nx, self.params.ny, self.params.nz]
    }

    /// The layer for `scene` over `ground` with the surface `eta` (both h − ref per cell, f32,
    /// `reference` the reference level) and the start's depth-averaged `velocity` per cell (empty:
    /// at rest); `fed`: how high its feeds can raise the water, which the grid's top stands over
    /// with its headroom.
    pub fn build(
        scene: &Scene,
        (eta, ground, velocity): (&[f32], &[f32], &[[f32; 2]]),
        reference: f64,
        fed: FedReach,
    ) -> crate::error::Result<NsLayer> {
        let ns = scene.navier_stokes.clone().unwrap_or_default();
        let g = &scene.grid;
        let cz = ns.coarsen as usize;
        let surface = Surface {
            nx: g.nx as usize,
            ny: g.ny as usize,
            coarsen: cz,
            h: eta.iter().zip(ground).map(|(&h, &b)| h.max(b)).collect(),
            ground: ground.to_vec(),
            held: Vec::new(),
            air: Vec::new(),
        };
        let (coarse_ground, coarse_h) = (surface.coarse_mean(ground), surface.coarse_mean(&surface.h));
        let (floor, highest, deepest, window) = water_extent(&coarse_ground, &coarse_h, &ns, reference);
        let highest = highest.max(fed.level) + fed.rise;
        let markers = ns.surface == NsSurfaceMode::Markers;
        let headroom = ns.headroom.map_or((0.25 * deepest).max(g.dx as f32), |h| h as f32);
        let span = match (scene.layer_span, &scene.water_override) {
            // An edit's water: the span the layer had, and more where the water needs it.
            (Some([low, high]), Some(_)) => [low.min(floor), high.max(highest + headroom)],
            // A checkpoint of an edited run: the span its state stands on, exactly.
            (Some(kept), None) => kept,
            (None, _) => [floor, highest + headroom],
        };
        let [floor, top] = span;
        let dz = (top - floor) / ns.layers as f32;
        let params = NsParams {
            nx: surface.nx / cz,
            ny: surface.ny / cz,
            nz: ns.layers as usize,
            dx: (g.dx * cz as f64) as f32,
            dz,
            z0: floor,
            g: scene.physics.gravity as f32,
            nu: ns.viscosity as f32,
            beta0: ns.beta0 as f32,
            epsilon: ns.epsilon as f32,
            max_sweeps: ns.max_sweeps,
            upwind: ns.upwind as f32,
            wave: [0.0; 3],
            markers,
            window,
            drag: crate::engine::params::drag_rate(1.0 - scene.physics.damping, scene.time.dt),
            manning: false,
        };
        let mut state = NsState::at_rest(&params, &coarse_ground, &coarse_h);
        let mut params = params;
        if let Some(drag) = column_drags(scene, &surface, params.drag)? {
            state.drag = drag;
            params.drag = -1.0;
            params.manning = state.drag.len() == 3 * params.columns();
        }
        let faces = scene.water_override.as_ref().and_then(|w| w.layer_faces.as_ref());
        if let Some([u, v]) =
            faces.filter(|[u, v]| u.len() == (params.nx + 1) * params.ny && v.len() == params.nx * (params.ny + 1))
        {
            // An edit's: each line of faces its depth mean before the edit.
            start_moving(
                &params,
                &mut state,
                |i, j| u[j * (params.nx + 1) + i],
                |i, j| v[j * params.nx + i],
            );
        } else if !velocity.is_empty() {
            let along = |k: usize| velocity.iter().map(|v| v[k]).collect::<Vec<f32>>();
            let (u, v) = (surface.coarse_mean(&along(0)), surface.coarse_mean(&along(1)));
            let nx = params.nx;
            start_moving(
                &params,
                &mut state,
                |i, j| 0.5 * (u[j * nx + i - 1] + u[j * nx + i]),
                |i, j| 0.5 * (v[(j - 1) * nx + i] + v[j * nx + i]),
            );
        }
        // The wave forcing's depth defaults to the mean over the wet columns.
        let mean_depth = mean_wet_depth(&surface.h, &surface.ground);
        let forcing = crate::models::navier_stokes::forcing::Forcing::new(scene, mean_depth)?;
        if let Some(w) = forcing.wave() {
            params.wave = [w.k as f32, w.direction[0] as f32, w.direction[1] as f32];
        }
        // Under the pressure applied at the start.
        let start = forcing.at(0.0);
        let columns = params.nx * params.ny;
        for (at, p) in state.p.iter_mut().enumerate() {
            if matches!(state.flag[at], FULL | SURFACE) {
                let c = at % columns;
                *p += crate::models::navier_stokes::state::applied(&params, &start, c % params.nx, c / params.nx);
            }
        }
        let markers = match markers {
            true => Some(start_markers(scene, &params, &state, &coarse_h)?),
            false => None,
        };
        Ok(NsLayer {
            params,
            span,
            state,
            surface,
            forcing,
            spray: crate::models::navier_stokes::spray::ns_spray_params(scene),
            markers,
            fed: crate::models::navier_stokes::fed(scene),
        })
    }
}

/// The layer's vertical extent over the coarse columns: (the lowest ground, the highest water
/// (or an inflow window's top), the deepest water, the inflow's window relative to `reference`).
fn water_extent(
    coarse_ground: &[f32],
    coarse_h: &[f32],
    ns: &crate::scene::NavierStokes,
    reference: f64,
) -> (f32, f32, f32, [f32; 2]) {
    let floor = coarse_ground.iter().copied().fold(f32::MAX, f32::min);
    let deepest = coarse_h
        .iter()
        .zip(coarse_ground)
        .map(|(h, b)| h - b)
        .fold(0.0f32, f32::max);
    // The highest water, not the highest land: ground above the grid's top is solid anyway.
    let highest = coarse_h
        .iter()
        .zip(coarse_ground)
        .filter(|(h, b)| h > b)
        .map(|(h, _)| *h)
        .fold(f32::MIN, f32::max);
    let highest = if highest == f32::MIN { floor } else { highest };
    // An inflow's window (a jet's opening) lies inside the grid too.
    let window = ns
        .inflow
        .as_ref()
        .and_then(|f| f.window)
        .map_or(WHOLE_SIDE, |[lo, hi]| {
            [(lo - reference) as f32, (hi - reference) as f32]
        });
    let highest = if window == WHOLE_SIDE {
        highest
    } else {
        highest.max(window[1])
    };
    (floor, highest, deepest, window)
}

/// The mean depth over the wet cells of `h` on `ground`.
fn mean_wet_depth(h: &[f32], ground: &[f32]) -> f64 {
    let wet: Vec<f64> = h
        .iter()
        .zip(ground)
        .filter(|(h, b)| h > b)
        .map(|(h, b)| (h - b) as f64)
        .collect();
    wet.iter().sum::<f64>() / wet.len().max(1) as f64
}

/// The markers' settings and their first fill of the water in `state` (§4.1).
/// A capacity under what the starting water needs is an error: the water left without markers
/// would be lost at the first substep (capacity = 1 lost 99.9 % of it, silently).
fn start_markers(
    scene: &Scene,
    params: &NsParams,
    state: &NsState,
    coarse_h: &[f32],
) -> crate::error::Result<(MarkerParams, Markers)> {
    let ns = scene.navier_stokes.clone().unwrap_or_default();
    let m = ns.markers.unwrap_or_default();
    let rows = (m.per_cell as f64).sqrt().round() as u32;
    let open = params.nx * params.ny * params.nz;
    let mp = MarkerParams {
        rows,
        capacity: m.capacity.unwrap_or((2 * m.per_cell as usize * open) as u32),
    };
    let (start, wanted) = Markers::fill_counting(params, &mp, &state.ground, coarse_h);
    if wanted > mp.capacity as u64 {
        let text = std::fs::read_to_string(&scene.origin).ok();
        return Err(scene.error_at(
            text.as_deref(),
            "navier_stokes.markers.capacity",
            format!(
                "holds {} markers, and the starting water needs {wanted} ({} a cell): the water without \
                 markers would be lost; give at least {wanted}, or leave it out (twice what fills every cell)",
                mp.capacity, m.per_cell
            ),
        ));
    }
    Ok((mp, start))
}

/// Substeps per step for water `max_depth` m deep: sqrt(g·d)·dt/dx ≤ `NS_COURANT` on the 3D grid.
pub fn substeps_needed(scene: &Scene, max_depth: f64) -> u32 {
    let ns = scene.navier_stokes.clone().unwrap_or_default();
    let dx = scene.grid.dx * ns.coarsen as f64;
    let courant = (scene.physics.gravity * max_depth.max(0.0)).sqrt() * scene.time.dt / dx;
    ((courant / NS_COURANT).ceil() as u32).max(1)
}

impl NsState {
    /// Water at rest at `h` over `ground` (per column), the pressure hydrostatic.
    pub fn at_rest(p: &NsParams, ground: &[f32], h: &[f32]) -> NsState {
        let cells = p.columns() * p.nz;
        let mut s = NsState {
            flag: vec![EMPTY; cells],
            p: vec![0.0; cells],
            u: vec![0.0; (p.nx + 1) * p.ny * p.nz],
            v: vec![0.0; p.nx * (p.ny + 1) * p.nz],
            w: vec![0.0; p.columns() * (p.nz + 1)],
            h: h.iter().zip(ground).map(|(&h, &b)| h.max(b)).collect(),
            ground: ground.to_vec(),
            drag: Vec::new(),
        };
        crate::models::navier_stokes::cpu::navier_stokes::set_flags(p, &mut s);
        for c in 0..p.columns() {
            for k in 0..p.nz {
                let at = c + k * p.columns();
                if matches!(s.flag[at], FULL | SURFACE) {
                    s.p[at] = p.g * (s.h[c] - p.centre(k));
                }
            }
        }
        s
    }
}

/// The start's velocities: each face between two cells of the grid, neither solid and one holding
/// fluid, takes `u(i, j)` (x face i of row j) or `v(i, j)` (y face j of column i), the same at
/// every depth; the domain's sides stay walls. From `[water] u_npy`, `v_npy`: the mean of the
/// face's two columns' depth-averaged velocity (the coarse means of the scene's); from an edit,
/// the face line's depth mean before it (`face_means`). The first substep's pressure makes the
/// field divergence-free.
pub fn start_moving(p: &NsParams, s: &mut NsState, u: impl Fn(usize, usize) -> f32, v: impl Fn(usize, usize) -> f32) {
    let NsState { flag, u: su, v: sv, .. } = s;
    for k in 0..p.nz {
        for j in 0..p.ny {
            for i in 0..p.nx {
                if i > 0 && moves(flag[p.cell(i - 1, j, k)], flag[p.cell(i, j, k)]) {
                    su[p.uf(i, j, k)] = u(i, j);
                }
                if j > 0 && moves(flag[p.cell(i, j - 1, k)], flag[p.cell(i, j, k)]) {
                    sv[p.vf(i, j, k)] = v(i, j);
                }
            }
        }
    }
}

/// Each column's drag words (`NsState::drag`), None where every face takes `uniform` (the
/// scene's `physics.damping` as a rate): under `physics.damping_map` each column the mean of its
/// cells' drags, as the shallow-water model takes each cell's (`drag_rate` of its 1 − τ); under
/// Manning's friction (`physics.manning` or the `[friction]` map) three words a column: the drag
/// `columns` sets each substep (the damping's until then), the damping's, and the mean of its
/// cells' n² (the flow in a column is one, so its cells' roughness is averaged as the pipes
/// average two columns').
fn column_drags(scene: &Scene, surface: &Surface, uniform: f32) -> crate::error::Result<Option<Vec<f32>>> {
    let keep = crate::engine::params::damping_keep(scene)?;
    let damping = match keep.is_empty() {
        true => None,
        false => {
            let drag: Vec<f32> = keep
                .iter()
                .map(|&keep| crate::engine::params::drag_rate(keep as f64, scene.time.dt))
                .collect();
            Some(surface.coarse_mean(&drag))
        }
    };
    let n2 = match scene.friction.is_some() {
        true => Some(surface.coarse_mean(&crate::models::shallow_water::setup::friction_map(scene)?)),
        false if scene.physics.manning > 0.0 => {
            let columns = (surface.nx / surface.coarsen) * (surface.ny / surface.coarsen);
            Some(vec![(scene.physics.manning * scene.physics.manning) as f32; columns])
        }
        false => None,
    };
    Ok(match (damping, n2) {
        (damping, None) => damping,
        (damping, Some(n2)) => {
            let base = damping.unwrap_or_else(|| vec![uniform; n2.len()]);
            Some(base.iter().chain(&base).chain(&n2).copied().collect())
        }
    })
}

/// Each vertical line of faces' velocity averaged over the water at it, in `p`'s grid with its
/// `flags` and face velocities `u`, `v`, under each 3D column's water `top` (relative): u on the
/// x faces ((nx + 1)·ny, row-major), v on the y faces (nx·(ny + 1)); each face that moves water
/// weighs the depth of water at it under its two columns' mean top. What an edit carries onto
/// the rebuilt layer (`start_moving`): its depth-averaged flow, face by face, so the columns'
/// means read back as they were (cell means of cell means would smooth them).
pub fn face_means(p: &NsParams, flags: &[u8], (u, v): (&[f32], &[f32]), top: &[f32]) -> [Vec<f32>; 2] {
    let line = |a: usize, b: usize, face: &dyn Fn(usize) -> f32| {
        let level = 0.5 * (top[a] + top[b]);
        let (mut sum, mut wet) = (0.0f32, 0.0f32);
        for k in 0..p.nz {
            let share = p.wet_in(k, level);
            if share > 0.0 && moves(flags[a + k * p.columns()], flags[b + k * p.columns()]) {
                sum += share * face(k);
                wet += share;
            }
        }
        if wet > 0.0 {
            sum / wet
        } else {
            0.0
        }
    };
    let mut mean_u = vec![0.0f32; (p.nx + 1) * p.ny];
    let mut mean_v = vec![0.0f32; p.nx * (p.ny + 1)];
    for j in 0..p.ny {
        for i in 0..p.nx {
            let c = j * p.nx + i;
            if i > 0 {
                mean_u[j * (p.nx + 1) + i] = line(c - 1, c, &|k| u[p.uf(i, j, k)]);
            }
            if j > 0 {
                mean_v[j * p.nx + i] = line(c - p.nx, c, &|k| v[p.vf(i, j, k)]);
            }
        }
    }
    [mean_u, mean_v]
}

/// The volume a corrected layer holds its height field to: the start's, as `ns_surface::volume`
/// sums it under the bodies' start `cover` (the GPU backend gets the same pair).
pub fn start_target(surface: &Surface, cover: &[crate::engine::bodies::Cover]) -> (f32, f32) {
    let sum = crate::models::navier_stokes::cpu::ns_surface::volume(surface, cover);
    (sum.hi, sum.lo)
}
