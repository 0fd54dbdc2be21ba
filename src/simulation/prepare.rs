//! From a scene to what a backend is built from: the substeps its depth needs (and the checks on
//! them), the per-cell fields (damping, sources, probes), the schedule, the memory checks, and
//! the bodies placed with the water settled round them.

use super::*;

/// The substeps the scene's model needs for water `max_depth` deep.
pub(super) fn substeps_needed(scene: &Scene, max_depth: f64) -> u32 {
    match scene.physics.model {
        crate::scene::WaterModel::Pipes => crate::models::pipes::columns::substeps_needed(scene, max_depth),
        crate::scene::WaterModel::NavierStokes => {
            crate::models::navier_stokes::setup::substeps_needed(scene, max_depth)
        }
        crate::scene::WaterModel::ShallowWater => {
            crate::models::shallow_water::setup::substeps_needed(scene, max_depth)
        }
        crate::scene::WaterModel::HeightField => params::substeps_needed(scene, max_depth),
    }
}

/// The deepest water over `ground` under the surface `eta` (both h − ref per cell), m.
pub(super) fn deepest(eta: &[f32], ground: &[f32]) -> f64 {
    eta.iter()
        .zip(ground)
        .map(|(e, b)| (e - b).max(0.0) as f64)
        .fold(0.0, f64::max)
}

/// The substeps the scene's model needs for water `max_depth` m deep (refused past the most a
/// step runs), and those a run takes: at least the scene's `time.substeps`.
pub(super) fn plan_substeps(scene: &Scene, max_depth: f64) -> Result<(u32, u32)> {
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
pub(super) const ADI_MAX_KD: f64 = (1u64 << 22) as f64;

pub(super) fn check_adi_precision(scene: &Scene, substeps: u32, max_depth: f64) -> Result<()> {
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

pub(super) fn check_substeps(scene: &Scene, needed: u32, max_depth: f64) -> Result<()> {
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

pub(super) fn substep_note(scene: &Scene, substeps: u32, max_depth: f64) -> String {
    if scene.physics.model == crate::scene::WaterModel::NavierStokes {
        return format!(
            "water {max_depth:.4} m deep needs sqrt(g·d)·dt/dx ≤ {} on the Navier-Stokes grid; running \
             {substeps} equal substeps per step",
            crate::models::navier_stokes::setup::NS_COURANT
        );
    }
    if scene.physics.model == crate::scene::WaterModel::ShallowWater {
        return format!(
            "water {max_depth:.4} m deep needs 2·sqrt(g·d)·dt/dx ≤ {} in the shallow-water model; running \
             {substeps} equal substeps per step",
            crate::models::shallow_water::setup::SW_TARGET
        );
    }
    if scene.physics.model == crate::scene::WaterModel::Pipes {
        return format!(
            "water {max_depth:.4} m deep needs sqrt(g·d)·dt/dx ≤ {} in the pipes; running {substeps} equal \
             substeps per step",
            crate::models::pipes::columns::PIPE_COURANT
        );
    }
    // The limit is 1/2; the substeps aim at STABLE_K_DEPTH below it, for depths that grow between
    // checks: a dt under the limit but over the aim takes substeps too, and the note says which.
    let kd = params::step_coefficient(scene, 1) * max_depth;
    let (why, aim) = if kd > 0.5 {
        (
            "breaks the explicit stability limit g·d_max·dt²/dx² ≤ 1/2",
            String::new(),
        )
    } else {
        (
            "is within the explicit stability limit g·d_max·dt²/dx² ≤ 1/2 but past the margin Shoal keeps",
            format!(", the aim {}", params::STABLE_K_DEPTH),
        )
    };
    format!(
        "dt = {} s {why} (d_max = {max_depth:.4} m, g·d_max·dt²/dx² = {kd:.3}{aim}); running {substeps} equal \
         substeps per step (g·d_max·dt²/dx² = {:.3} each)",
        scene.time.dt,
        params::step_coefficient(scene, substeps) * max_depth
    )
}

/// The damping map's keep per substep at `substeps` (`params::keep_per_substep` per cell).
pub(super) fn damping_per_substep(keep: &[f32], substeps: u32) -> Vec<f32> {
    keep.iter()
        .map(|&k| params::keep_per_substep(k as f64, substeps))
        .collect()
}

/// Height per step each cell's sources ask for (drains negative): a source spreads rate·dt evenly
/// over the cells whose centres lie in its disc (the cell it stands in, if none do). Empty when the
/// scene has no sources.
pub(super) fn source_field(scene: &Scene) -> Vec<f32> {
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
pub(super) fn probe_cells(scene: &Scene) -> Vec<u32> {
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

/// The step a scene asks for, for its parameters.
pub(super) fn schedule(scene: &Scene, p: &Params) -> Schedule {
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
        crate::scene::WaterModel::ShallowWater => ModelRun::ShallowWater,
        crate::scene::WaterModel::HeightField => ModelRun::HeightField(scene.physics.solver),
    };
    // The shallow-water model's and the Navier-Stokes layer's steady sources and held heights
    // come as per-step entries too (`sw_feed`).
    let sw_sources = matches!(model, ModelRun::ShallowWater | ModelRun::NavierStokes { .. })
        && scene.sources.iter().any(|s| s.rate != 0.0 || s.height.is_some());
    // The pipes' river sides are per-step entries (`pipe_rain`).
    let sides = scene.boundary.sides();
    let pipe_rivers = matches!(model, ModelRun::Pipes { .. })
        && (sides.any(crate::scene::BoundaryMode::Discharge) || sides.any(crate::scene::BoundaryMode::Stage));
    Schedule::new(
        model,
        p,
        crate::engine::feeds::staged(scene) || sw_sources || pipe_rivers,
    )
    .reading_flows(!scene.output.sections.is_empty())
}

/// A scene's fields and uniforms, checked, before any backend exists.
pub(super) struct Prepared {
    pub(super) fields: InitialFields,
    pub(super) eta: Vec<f32>,
    pub(super) ground_rel: Vec<f32>,
    pub(super) probe_cells: Vec<u32>,
    pub(super) params: Params,
    pub(super) substeps: u32,
    pub(super) notes: Vec<String>,
    pub(super) source: Vec<f32>,
    pub(super) feeds: crate::engine::feeds::Feeds,
    pub(super) patches: crate::engine::pressure::Patches,
    /// Each cell's 1 − tau under `physics.damping_map` (empty without it).
    pub(super) damping_keep: Vec<f32>,
    pub(super) bodies: Vec<crate::engine::bodies::BodyState>,
    pub(super) body_params: crate::engine::bodies::BodyParams,
    pub(super) cover: Vec<crate::engine::bodies::Cover>,
    /// The pipes model's columns (None: the height field).
    pub(super) columns: Option<crate::models::pipes::columns::Columns>,
    /// The Navier-Stokes layer (None: the other models).
    pub(super) layer: Option<crate::models::navier_stokes::setup::NsLayer>,
    /// The shallow-water model (None: the other models).
    pub(super) shallow: Option<crate::models::shallow_water::setup::SwSetup>,
    /// The discharge lines, whose entries follow the gauges' in `probe_cells`.
    pub(super) sections: crate::engine::sections::Sections,
    /// Probe entries after the sections': each gauge's qx and qy (`[output] gauges` on the
    /// shallow-water model), else none.
    pub(super) gauge_flows: usize,
    /// `[infiltration]` on the height field: its law's three parameter planes (empty without;
    /// the shallow-water model keeps its own in `shallow`).
    pub(super) soil_law: Vec<f32>,
}

impl Prepared {
    /// What the backends build from: this preparation of `scene`, with the start's velocities
    /// and faces and the damping per substep.
    pub(super) fn setup<'a>(
        &'a self,
        scene: &'a Scene,
        vel: &'a [f32],
        faces: &'a [f32],
        damping_keep: &'a [f32],
    ) -> Setup<'a> {
        Setup {
            params: self.params,
            method: scene.physics.solver,
            eta: &self.eta,
            vel,
            faces,
            ground: &self.ground_rel,
            probe_cells: &self.probe_cells,
            source: &self.source,
            rain: self.feeds.any(),
            rainfall_map: self.feeds.rainfall_map(),
            damping_keep,
            pressure_patches: self.patches.len() as u32,
            summary: scene.output.summary.then_some(scene.output.wet_depth as f32),
            bodies: &self.bodies,
            body_params: self.body_params,
            cover: &self.cover,
            pipes: self.columns.as_ref().map(|c| (scene, c)),
            navier_stokes: self.layer.as_ref(),
            shallow_water: self.shallow.as_ref(),
            soil_law: &self.soil_law,
        }
    }
}

/// The scene's `[[pressure]]` patches; where there are any, the step writes their head first
/// (`FORCE_PRESSURE`: the schedule's `Pass::Pressure`).
fn pressure_patches(scene: &Scene, params: &mut Params) -> crate::engine::pressure::Patches {
    let patches = crate::engine::pressure::Patches::new(scene);
    if !patches.is_empty() {
        params.forcing |= crate::wgsl::common::FORCE_PRESSURE;
    }
    patches
}

/// Whether a cell can run dry: one is dry at the start, ground stands above the still level (the
/// water on it runs off), a drain or the ground (`[infiltration]`) takes water, or an air-pressure
/// high's head p/(ρg) reaches half the shallowest water (a wave it raises overshoots its static
/// depression up to twice over). Without limited faces the dry-cell rule refills what such a
/// cell overdrains: under a 1e6 Pa high over 0.5 m of water the volume grew 0.64 → 1.04 m³
/// (issue 57).
fn can_dry(scene: &Scene, eta: &[f32], ground: &[f32]) -> bool {
    let shallowest = eta.iter().zip(ground).map(|(h, b)| h - b).fold(f32::INFINITY, f32::min) as f64;
    let weight = scene.physics.water_density * scene.physics.gravity;
    shallowest <= 0.0
        || ground.iter().any(|&b| b > 0.0)
        || scene.sources.iter().any(|s| s.rate < 0.0)
        || scene.infiltration.is_some()
        || scene.pressure.iter().any(|p| 2.0 * p.strength / weight >= shallowest)
}

/// Why a scene that asks for `volume_correction = "regions"` corrects globally, if it does.
fn region_notes(scene: &Scene, params: &Params) -> Vec<String> {
    let mut out = Vec::new();
    let correction = scene.physics.volume_correction;
    if correction == VolumeCorrection::Regions && params.correct == params::CORRECT_CLAMPS {
        out.push(
            "volume_correction = \"regions\" runs with reflect and periodic sides only: through open, \
             absorbing and ghost sides water crosses the boundary, so this run corrects globally, undoing \
             what the dry-cell rule does"
                .into(),
        );
    }
    if correction == VolumeCorrection::Regions && params.regions == 0 && !scene.bodies.is_empty() {
        out.push(
            "volume_correction = \"regions\" runs without bodies only: a submerged body's volume stands in its \
             columns, which the per-region sums would count as water, so this run corrects globally"
                .into(),
        );
    }
    out
}

/// Bytes of host memory a cell takes while a scene is built (its ground and surface in f64, their
/// f32 copies, the sources, the feeds) and a CPU backend holds it (two levels, carry, and the
/// options' fields): what `Prepared::new` checks against the machine's memory before it
/// allocates anything, so a grid too large is an error, not an abort.
pub(super) const HOST_BYTES_PER_CELL: u64 = 128;

/// Bytes of host memory a cell of the Navier-Stokes layer's 3D grid takes while the layer is
/// built and a CPU backend runs it: flags, pressure and three velocities (17 B), the twin's
/// scratch and the GPU's upload copies. Measured 2026-12-03: a 512² × 64 layer's run peaked at
/// 693 MB, 41 B a 3D cell with the height field's share; 64 leaves room for markers and bodies.
pub(super) const NS_HOST_BYTES_PER_CELL: u64 = 64;

/// The memory this process can take without swapping, in bytes: Linux's MemAvailable, or less
/// where the process's control group (a Slurm job, a container) has a limit closer; None where the
/// system does not say.
pub(super) fn available_memory() -> Option<u64> {
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
pub(super) fn cgroup_headroom() -> Option<u64> {
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
pub(super) fn check_host_memory(scene: &Scene) -> Result<()> {
    let g = scene.grid;
    let mut need = g.nx as u64 * g.ny as u64 * HOST_BYTES_PER_CELL;
    let mut what = format!("{HOST_BYTES_PER_CELL} B a cell");
    if scene.physics.model == crate::scene::WaterModel::NavierStokes {
        // The layer's 3D grid is most of it: nx/coarsen × ny/coarsen × layers cells.
        let ns = scene.navier_stokes.clone().unwrap_or_default();
        let c = ns.coarsen.max(1) as u64;
        let cells = (g.nx as u64 / c) * (g.ny as u64 / c) * ns.layers as u64;
        need = need.saturating_add(cells.saturating_mul(NS_HOST_BYTES_PER_CELL));
        what = format!(
            "{HOST_BYTES_PER_CELL} B a cell, and {NS_HOST_BYTES_PER_CELL} B a cell of the layer's {cells} 3D cells"
        );
    }
    match available_memory() {
        Some(have) if need > have => Err(Error::GridTooLarge {
            nx: g.nx,
            ny: g.ny,
            what: format!(
                "building it needs about {:.1} GiB of memory ({what}), and this machine has {:.1} GiB available",
                need as f64 / (1u64 << 30) as f64,
                have as f64 / (1u64 << 30) as f64
            ),
        }),
        _ => Ok(()),
    }
}

impl Prepared {
    pub(super) fn new(scene: &Scene) -> Result<Prepared> {
        check_host_memory(scene)?;
        match scene.physics.model {
            crate::scene::WaterModel::Pipes => return Self::pipes(scene),
            crate::scene::WaterModel::NavierStokes => return Self::navier_stokes(scene),
            crate::scene::WaterModel::ShallowWater => return Self::shallow_water(scene),
            crate::scene::WaterModel::HeightField => {}
        }
        let fields = InitialFields::build(scene)?;
        let (eta, ground_rel) = fields.relative_f32();
        // The discharge lines' pieces follow the gauges; the model has no velocity for the
        // gauges' own u and v.
        let sections = crate::engine::sections::Sections::of(scene);
        let mut probe_cells = probe_cells(scene);
        probe_cells.extend(&sections.entries);

        let max_depth = deepest(&eta, &ground_rel);
        let (needed, substeps) = plan_substeps(scene, max_depth)?;
        let mut notes = Vec::new();
        if needed > scene.time.substeps {
            notes.push(substep_note(scene, substeps, max_depth));
        }
        let mut params = Params::new(scene, substeps, probe_cells.len() as u32);
        notes.extend(region_notes(scene, &params));
        let mut eta = eta;
        let (bodies, body_params, cover) = place_bodies(scene, fields.reference.0, &params, &ground_rel, &mut eta);
        let mut source = source_field(scene);
        if !source.is_empty() {
            params.sources = 1;
            params.source_step = source.iter().map(|&s| s as f64).sum::<f64>() as f32;
        }
        // Held heights set their cells in the volume pass's `rain`, booked with the drains'
        // shortfall (volume.wgsl).
        let feeds = crate::engine::feeds::Feeds::new(scene, &fields)?
            .with_held(scene)
            .with_river_sides(scene)?;
        params.rainfall = feeds.rainfall_mode();
        let soil = crate::engine::infiltration::soil(scene)?.unwrap_or_default();
        params.infiltration = soil.law;
        if (params.rainfall != 0 || params.infiltration != 0 || feeds.holds()) && source.is_empty() {
            // Rainfall falls in the volume pass with the sources, from a field of none; what the
            // ground takes leaves there too, booked with the drains' shortfall (volume.wgsl).
            source = vec![0.0; eta.len()];
            params.sources = 1;
        }
        let damping_keep = params::damping_keep(scene)?;
        if !damping_keep.is_empty() {
            params.forcing |= crate::wgsl::common::FORCE_DAMPING_MAP;
        }
        let patches = pressure_patches(scene, &mut params);
        // A shoreline: both solvers keep each face's flux memory, so a face that dries forgets
        // its flow on both sides (cpu::explicit::Memory), and its limited faces never take more
        // than a cell holds. A discharge line reads its flow from that memory (probe.wgsl).
        // Otherwise it costs 16 B per cell per step for nothing: left off. (Where every cell
        // stays wet the step with it is the step without it, bit for bit: tests/suite/sections.rs.)
        if can_dry(scene, &eta, &ground_rel) || !sections.is_empty() {
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
            shallow: None,
            sections,
            gauge_flows: 0,
            soil_law: soil.planes,
        })
    }

    /// The pipes model: the columns, and the ground the outputs report, each column's top floor
    /// (what a view from above sees: a bridge deck, a rock's top).
    pub(super) fn pipes(scene: &Scene) -> Result<Prepared> {
        let mut fields = InitialFields::build(scene)?;
        // The discharge lines' entries and the gauges' discharges ride after the gauges, as on
        // the shallow-water model: the pipes' probe pass reads each column's unit discharge.
        let (probe_cells, sections, gauge_flows) = probe_entries(scene);
        let max_depth = fields
            .surface
            .iter()
            .zip(&fields.ground)
            .map(|(h, b)| h - b)
            .fold(0.0, f64::max);
        let (_, substeps) = plan_substeps(scene, max_depth)?;
        // Drops, hydrographs, rainfall, wave makers and river sides fall into (or, a maker's
        // trough, leave) the columns in whole units (`pipe_rain`); a stage side's edge cells are
        // held at its level there. The columns' units must hold what they bring.
        let feeds = crate::engine::feeds::Feeds::new(scene, &fields)?.with_river_sides(scene)?;
        let duration = scene.time.steps as f64 * scene.time.dt;
        let added = feeds.added_over(duration);
        let build = |fields: &InitialFields| {
            crate::models::pipes::columns::Columns::build(scene, fields, substeps, &added, &feeds.stage_levels())
        };
        let mut columns = build(&fields)?;
        // The bodies settle into the water over the columns' top floors (pressed: the water stands
        // at a pierced body's underside), and the columns hold the water they leave.
        let params = Params::new(scene, substeps, probe_cells.len() as u32);
        let placed = settle_on_columns(scene, &params, &columns.top_floor, &mut fields);
        if !placed.0.is_empty() {
            columns = build(&fields)?;
        }
        fields.ground.clone_from(&columns.top_floor);
        for (h, b) in fields.surface.iter_mut().zip(&fields.ground) {
            *h = h.max(*b);
        }
        let mut prepared = Self::of_model(scene, fields, probe_cells, substeps, Some(columns), None);
        (prepared.bodies, prepared.body_params, prepared.cover) = placed;
        prepared.params.rainfall = feeds.rainfall_mode();
        // `[infiltration]` soaks each column's lowest cell (`pipe_rain`'s `infiltrate`).
        let soil = crate::engine::infiltration::soil(scene)?.unwrap_or_default();
        prepared.params.infiltration = soil.law;
        // Air pressure: `pressure.wgsl` writes each step's head per column before the substeps,
        // which the flow adds to its top cells' push (`pipes.wgsl` `air_on`).
        let patches = pressure_patches(scene, &mut prepared.params);
        Ok(Prepared {
            feeds,
            patches,
            soil_law: soil.planes,
            sections,
            gauge_flows,
            ..prepared
        })
    }

    /// What the pipes and the Navier-Stokes layer are built from: no sources, bodies or covers
    /// (the layer adds its bodies) beside the model's own structure.
    pub(super) fn of_model(
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
            shallow: None,
            sections: Default::default(),
            gauge_flows: 0,
            soil_law: Vec::new(),
        }
    }

    /// The Navier-Stokes layer: the 3D grid under the height field, whose surface carries the
    /// bodies' submerged volume as the height field's does.
    pub(super) fn navier_stokes(scene: &Scene) -> Result<Prepared> {
        let fields = InitialFields::build(scene)?;
        // The discharge lines' entries and the gauges' discharges ride after the gauges, as on
        // the shallow-water model: the layer's probe pass reads each cell's unit discharge.
        let (probe_cells, sections, gauge_flows) = probe_entries(scene);
        let (mut eta, ground_rel) = fields.relative_f32();
        let (_, substeps) = plan_substeps(scene, deepest(&eta, &ground_rel))?;
        let params = Params::new(scene, substeps, probe_cells.len() as u32);
        let mut params = params;
        let (bodies, body_params, cover) = place_bodies(scene, fields.reference.0, &params, &ground_rel, &mut eta);
        // Sources, drains, held heights, hydrographs, drops and rainfall: the shallow-water
        // model's feed on the layer's height field (`models::navier_stokes::feed`).
        let feeds = crate::engine::feeds::Feeds::new(scene, &fields)?.with_steady_sources(scene);
        params.rainfall = feeds.rainfall_mode();
        let reach = fed_reach(scene, &feeds, fields.reference.0);
        // `[infiltration]`: the feed's `infiltrate` soaks each cell of the layer's height field.
        let soil = crate::engine::infiltration::soil(scene)?.unwrap_or_default();
        params.infiltration = soil.law;
        let velocity = crate::scene::read_velocity(scene)?;
        let layer = crate::models::navier_stokes::setup::NsLayer::build(
            scene,
            (&eta, &ground_rel, &velocity),
            fields.reference.0,
            reach,
        )?;
        // Air pressure: `pressure.wgsl` writes each step's head per height-field cell before the
        // substeps, which the columns add to the pressure they apply at the surface.
        let patches = pressure_patches(scene, &mut params);
        let prepared = Self::of_model(scene, fields, probe_cells, substeps, None, Some(layer));
        Ok(Prepared {
            eta,
            bodies,
            body_params,
            cover,
            feeds,
            params,
            patches,
            soil_law: soil.planes,
            sections,
            gauge_flows,
            ..prepared
        })
    }
}

/// How high `feeds` can raise a Navier-Stokes layer's water over the run: everything they and the
/// steady sources can add spread over the domain, and the highest held level.
fn fed_reach(
    scene: &Scene,
    feeds: &crate::engine::feeds::Feeds,
    reference: f64,
) -> crate::models::navier_stokes::setup::FedReach {
    let duration = scene.time.steps as f64 * scene.time.dt;
    let steady: f64 = scene.sources.iter().map(|s| s.rate.max(0.0) * duration).sum();
    let added: f64 = feeds.added_over(duration).iter().map(|(_, v)| v).sum::<f64>() + steady;
    let area = scene.grid.cells() as f64 * scene.grid.dx * scene.grid.dx;
    let level = scene
        .sources
        .iter()
        .filter_map(|s| s.height)
        .fold(f64::NEG_INFINITY, f64::max);
    crate::models::navier_stokes::setup::FedReach {
        rise: (added / area) as f32,
        level: (level - reference) as f32,
    }
}

impl Prepared {
    /// The shallow-water model: the surface and ground as the height field takes them, and the
    /// start's velocities.
    pub(super) fn shallow_water(scene: &Scene) -> Result<Prepared> {
        let fields = InitialFields::build(scene)?;
        let (probe_cells, sections, gauge_flows) = probe_entries(scene);
        let (eta, ground_rel) = fields.relative_f32();
        let max_depth = deepest(&eta, &ground_rel);
        let (needed, substeps) = plan_substeps(scene, max_depth)?;
        let mut sw = crate::models::shallow_water::setup::SwSetup::new(
            scene,
            probe_cells.len() as u32,
            crate::scene::read_velocity(scene)?,
            fields.reference.0,
        )?;
        // Drops, hydrographs, steady sources and drains, makers and rainfall: all in `sw_feed`.
        let feeds = crate::engine::feeds::Feeds::new(scene, &fields)?.with_steady_sources(scene);
        sw.base.rainfall = feeds.rainfall_mode();
        let reference = fields.reference.0;
        let mut prepared = Self::of_model(scene, fields, probe_cells, substeps, None, None);
        prepared.params.rainfall = feeds.rainfall_mode();
        // Bodies press on the water (`BodyParams::pressed`): the surface stays the water's own.
        let p = &mut prepared;
        (p.bodies, p.body_params, p.cover) = place_bodies(scene, reference, &p.params, &p.ground_rel, &mut p.eta);
        // Air pressure: `pressure.wgsl` writes each step's head after the ground, which the
        // stages lift the surface and ground by (`SwParams::air_at`).
        let patches = pressure_patches(scene, &mut prepared.params);
        if !sw.drag.is_empty() {
            // Each stage reads its cell's drag (the cost model's count).
            prepared.params.forcing |= crate::wgsl::common::FORCE_DAMPING_MAP;
        }
        if needed > scene.time.substeps {
            prepared.notes.push(substep_note(scene, substeps, max_depth));
        }
        Ok(Prepared {
            shallow: Some(sw),
            feeds,
            patches,
            sections,
            gauge_flows,
            ..prepared
        })
    }
}

/// The probe entries of a model whose probe pass reads unit discharges (the shallow-water model,
/// the pipes, the Navier-Stokes layer): the gauges, then the discharge lines' pieces, then under `[output] gauges` each
/// gauge's two unit discharges (for its velocity); with the sections and that last count.
fn probe_entries(scene: &Scene) -> (Vec<u32>, crate::engine::sections::Sections, usize) {
    let sections = crate::engine::sections::Sections::of(scene);
    let mut entries = probe_cells(scene);
    let gauges = entries.clone();
    entries.extend(&sections.entries);
    let gauge_flows = crate::engine::sections::gauge_entries(scene, &gauges);
    entries.extend(&gauge_flows);
    (entries, sections, gauge_flows.len())
}

/// The scene's bodies at rest and the water settled around them: `eta` then carries their
/// submerged volume (`held`) where the returned covers say. Empty without bodies.
pub(super) fn place_bodies(
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

/// The scene's bodies placed on the pipes' columns (`place_bodies` over their top floors
/// `top_floor`, absolute): the surface of `fields` then holds the water settled around them where
/// it changed. Empty without bodies.
fn settle_on_columns(
    scene: &Scene,
    params: &Params,
    top_floor: &[f64],
    fields: &mut InitialFields,
) -> (
    Vec<crate::engine::bodies::BodyState>,
    crate::engine::bodies::BodyParams,
    Vec<crate::engine::bodies::Cover>,
) {
    let reference = fields.reference.0;
    if scene.bodies.is_empty() {
        return (Vec::new(), crate::engine::bodies::BodyParams::new(scene), Vec::new());
    }
    let floor: Vec<f32> = top_floor.iter().map(|b| (b - reference) as f32).collect();
    let start: Vec<f32> = fields
        .surface
        .iter()
        .zip(top_floor)
        .map(|(h, b)| (h.max(*b) - reference) as f32)
        .collect();
    let mut eta = start.clone();
    let placed = place_bodies(scene, reference, params, &floor, &mut eta);
    for ((h, e), s) in fields.surface.iter_mut().zip(&eta).zip(&start) {
        if e != s {
            *h = *e as f64 + reference;
        }
    }
    placed
}

/// The initial water, as the backends' own reduction measures it (no shortfall yet): submerged
/// bodies' volume in their columns (`cover`) is not water. Where the model takes that volume as
/// a pressure head (`BodyParams::pressed`) the surface never carried it: pass no cover.
pub(super) fn start_totals(
    params: &Params,
    ground_rel: &[f32],
    eta: &[f32],
    cover: &[crate::engine::bodies::Cover],
) -> Totals {
    let before_sources = Params {
        sources: 0,
        correct: 0,
        bodies: if cover.is_empty() { 0 } else { params.bodies },
        ..*params
    };
    let rest = vec![0.0f32; eta.len()];
    crate::engine::cpu::reduce::reduce(
        &before_sources,
        ground_rel,
        eta,
        &rest,
        crate::engine::cpu::reduce::Extras {
            shortfall: &[],
            clamped: &[],
            cover,
            faces: &[],
        },
    )
}

/// The start's per-step change and face memory: the second-order start (`engine::start`),
/// unless the scene asks for the first-order one. Only the explicit height field released at rest
/// without bodies takes it (`other`: another model, or bodies; ADI's start is at rest).
pub(super) fn start_change(
    scene: &Scene,
    params: &Params,
    ground_rel: &[f32],
    eta: &[f32],
    other: bool,
) -> (Vec<f32>, Vec<f32>) {
    let explicit = scene.physics.solver == crate::scene::Method::Explicit;
    let taylor = scene.water.start == crate::scene::Start::Taylor;
    if taylor && explicit && !other {
        crate::engine::start::taylor_vel(params, ground_rel, eta)
    } else {
        (Vec::new(), Vec::new())
    }
}
