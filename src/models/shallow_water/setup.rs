//! The shallow-water model as a scene sets it: its uniforms (`SwParams`, mirrored in
//! `wgsl/shallow_water.wgsl`), the depth below which a cell is a film, and the time-step rule.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;
use crate::scene::Scene;

/// Depth (m) below which a cell is a film: its velocity is desingularised (`velocity`) and the
/// reconstruction falls back to first order around it, so wet/dry fronts never divide by a
/// vanishing depth. A tenth of a millimetre: far below any depth the tests measure, far above
/// float32's rounding of a surface a few metres from the reference level.
pub const FILM: f32 = 1e-5;

/// The generalised minmod's θ (Kurganov & Petrova 2007 use 1.3): 1 is minmod, 2 the monotonised
/// central limiter; any θ ≤ 2 keeps a reconstructed depth non-negative.
pub const THETA: f32 = 2.0;

/// (|u| + |v| + 2·sqrt(g·d))·dt/dx a substep may reach: the bound under which the MUSCL-Hancock
/// halves of the hydrostatic reconstruction keep every depth non-negative (½ in 2-D).
pub const SW_COURANT: f32 = 0.5;
/// What the substeps aim for: a flow may speed up by 60 % within a chunk before it meets the bound.
pub const SW_TARGET: f32 = 0.3;

/// Steps per submit at most: the Courant number is checked between submits.
pub const SW_CHUNK: u32 = 16;

/// Mirror of WGSL `SwParams` (sw_common.wgsl), 96 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SwParams {
    /// Cells along x and y.
    pub nx: u32,
    pub ny: u32,
    /// The substep, s.
    pub dt: f32,
    /// 1/dx, 1/m.
    pub inv_dx: f32,
    /// m/s².
    pub g: f32,
    /// Manning's n², s²/m^(2/3).
    pub n2: f32,
    /// `FILM`.
    pub film: f32,
    /// The limiter's θ.
    pub theta: f32,
    /// Side codes (`BoundaryMode`): west, east, south, north.
    pub bc_west: u32,
    pub bc_east: u32,
    pub bc_south: u32,
    pub bc_north: u32,
    /// Probes.
    pub n_probes: u32,
    /// Cells (nx·ny).
    pub cells: u32,
    /// `[rainfall]` (`feeds::RAINFALL_*`): none, uniform or a map (`sw_feed.wgsl`).
    pub rainfall: u32,
    /// Always 1.0: `sw_feed.wgsl`'s TwoSum multiplies by it so that no compiler folds the
    /// rounding error it recovers to zero.
    pub one: f32,
    /// `[[pressure]]` or bodies: the word of the ground buffer where each step's pressure head
    /// p/(ρ·g) per cell starts (`pressure.wgsl` and `sw_bodies.wgsl` write it after the ground:
    /// `cells`); 0 without.
    pub air_at: u32,
    /// `[friction] map`: the word of the ground buffer where each cell's n² starts (after the
    /// ground and the air-pressure head); 0 without: every cell takes `n2`.
    pub friction_at: u32,
    /// `[infiltration]`'s law (`engine::infiltration`; 0 without).
    pub infiltration: u32,
    /// Where its three parameter planes start in the ground buffer (after the friction map's).
    pub soil_at: u32,
    /// `physics.damping` as a drag on the discharges, 1/s (`drag_rate`); 0 without.
    pub drag: f32,
    /// `physics.damping_map`: the word of the ground buffer where each cell's drag starts (after
    /// the soil's planes); 0 without: every cell takes `drag`.
    pub drag_at: u32,
    /// 1: `[[pressure]]` patches write the head at `air_at` each step before the bodies add
    /// their draft to it (`sw_bodies.wgsl`'s `press`); 0: the bodies write it alone.
    pub patched: u32,
    pub _pad: u32,
}

/// Mirror of WGSL `SwSlot` (shallow_water.wgsl): one step's index within its submit and the
/// river sides' values then (`rivers::Rivers::at`), bound with a dynamic offset.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SwSlot {
    pub index: u32,
    pub _pad: [u32; 3],
    /// West, east, south, north: a discharge's q (m²/s into the domain), a stage's level − ref.
    pub sides: [f32; 4],
}

/// Mirror of WGSL `FlowMapParams` (sw_maps.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct FlowMapParams {
    pub cells: u32,
    /// Depth above which a cell counts as wet, m (`[output] wet_depth`).
    pub wet_depth: f32,
    /// `setup::FILM`.
    pub film: f32,
    pub _pad: u32,
}

/// What the backends are built from: the scene's step and uniforms, the river sides, and the
/// start's velocities.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwSetup {
    /// The uniforms at one substep per step (`params` divides the step).
    pub base: SwParams,
    /// `time.dt`, s.
    pub dt: f64,
    /// (u, v) per cell at the start, m/s (empty: at rest).
    pub velocity: Vec<[f32; 2]>,
    /// The discharge and stage sides' values over time.
    pub rivers: crate::models::shallow_water::rivers::Rivers,
    /// `[friction] map`: n² per cell (empty without: `SwParams::n2` everywhere).
    pub friction: Vec<f32>,
    /// `[infiltration]`'s three parameter planes (empty without).
    pub soil: Vec<f32>,
    /// `physics.damping_map`: each cell's drag, 1/s (empty without: `SwParams::drag` everywhere).
    pub drag: Vec<f32>,
}

pub use crate::engine::params::drag_rate;

/// The most Manning's n a map may hold, s/m^(1/3): 10× the roughest floodplain in Chow's tables
/// (dense brush, 0.16), far past any calibration.
pub const MOST_MANNING: f64 = 1.0;

/// `[friction] map` as n² per cell (f32, as the stages use it), its errors naming the key: an NPY
/// or GeoTIFF of n (a PNG's shades are no n), every value finite in [0, `MOST_MANNING`]; a
/// GeoTIFF's nodata pixels take 0 (`read_map`'s rule for maps).
pub(crate) fn friction_map(scene: &Scene) -> Result<Vec<f32>> {
    let Some(f) = &scene.friction else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(&scene.origin).ok();
    let fail = |why: String| scene.error_at(text.as_deref(), "friction.map", why);
    if let Some(classes) = &f.classes {
        return land_cover(scene, &f.map, classes);
    }
    let (values, shades) = crate::scene::read_map(scene, "friction.map", &f.map)?;
    if shades {
        return Err(fail(format!(
            "{}: a PNG holds shades, not Manning's n: give an .npy or a GeoTIFF of n in s/m^(1/3)",
            f.map.display()
        )));
    }
    if let Some(c) = values
        .iter()
        .position(|n| !(n.is_finite() && (0.0..=MOST_MANNING).contains(n)))
    {
        let g = scene.grid;
        return Err(fail(format!(
            "{}: cell ({}, {}) holds n = {}: Manning's n must be a finite number in [0, {MOST_MANNING}] s/m^(1/3)",
            f.map.display(),
            c % g.nx as usize,
            c / g.nx as usize,
            values[c]
        )));
    }
    Ok(values.iter().map(|&n| (n * n) as f32).collect())
}

/// `[friction] map` as land-cover codes and `[friction.classes]` as each code's n: n² per cell,
/// a nodata pixel's 0. A code that is no integer, a table key that is none, an n out of range
/// or a code the table does not name is refused, naming the key, the cell and the codes named.
fn land_cover(
    scene: &Scene,
    map: &std::path::Path,
    classes: &std::collections::BTreeMap<String, f64>,
) -> Result<Vec<f32>> {
    let text = std::fs::read_to_string(&scene.origin).ok();
    let fail = |key: &str, why: String| scene.error_at(text.as_deref(), key, why);
    let mut table = std::collections::BTreeMap::new();
    for (code, &n) in classes {
        let key = format!("friction.classes.{code}");
        let Ok(c) = code.trim().parse::<i64>() else {
            return Err(fail(
                &key,
                format!("\"{code}\" is no class code: the keys are the map's integer codes"),
            ));
        };
        if !(n.is_finite() && (0.0..=MOST_MANNING).contains(&n)) {
            return Err(fail(
                &key,
                format!("Manning's n must be a finite number in [0, {MOST_MANNING}] s/m^(1/3) (got {n})"),
            ));
        }
        table.insert(c, n);
    }
    let named = || table.keys().map(|c| c.to_string()).collect::<Vec<_>>().join(", ");
    let codes = crate::scene::read_classes(scene, "friction.map", map)?;
    let nx = scene.grid.nx as usize;
    let mut n2 = Vec::with_capacity(codes.len());
    for (c, code) in codes.iter().enumerate() {
        let n = match code {
            None => 0.0,
            Some(v) => match (v.fract() == 0.0).then(|| table.get(&(*v as i64))).flatten() {
                Some(&n) => n,
                None => {
                    return Err(fail(
                        "friction.classes",
                        format!(
                            "{}: cell ({}, {}) holds class {v}, which [friction.classes] does not name (it names {})",
                            map.display(),
                            c % nx,
                            c / nx,
                            named()
                        ),
                    ))
                }
            },
        };
        n2.push((n * n) as f32);
    }
    Ok(n2)
}

impl SwSetup {
    /// The model as `scene` sets it, with `n_probes` probes; `reference`: the reference level.
    pub fn new(scene: &Scene, n_probes: u32, velocity: Vec<[f32; 2]>, reference: f64) -> Result<SwSetup> {
        let sides = scene.boundary.sides();
        let friction = friction_map(scene)?;
        let soil = crate::engine::infiltration::soil(scene)?.unwrap_or_default();
        let dt = scene.time.dt;
        let drag: Vec<f32> = crate::engine::params::damping_keep(scene)?
            .iter()
            .map(|&keep| drag_rate(keep as f64, dt))
            .collect();
        let cells = scene.grid.nx * scene.grid.ny;
        // The stages' ground: the ground, the air-pressure head with patches or bodies (which
        // press on the water with their draft, `sw_bodies.wgsl`), then n² with a map.
        let air_at = if scene.pressure.is_empty() && scene.bodies.is_empty() {
            0
        } else {
            cells
        };
        let base = SwParams {
            nx: scene.grid.nx,
            ny: scene.grid.ny,
            dt: scene.time.dt as f32,
            inv_dx: (1.0 / scene.grid.dx) as f32,
            g: scene.physics.gravity as f32,
            n2: (scene.physics.manning * scene.physics.manning) as f32,
            film: FILM,
            theta: THETA,
            bc_west: sides.west.as_run() as u32,
            bc_east: sides.east.as_run() as u32,
            bc_south: sides.south.as_run() as u32,
            bc_north: sides.north.as_run() as u32,
            n_probes,
            cells,
            rainfall: 0,
            one: 1.0,
            air_at,
            friction_at: match friction.is_empty() {
                true => 0,
                false => cells + air_at,
            },
            infiltration: soil.law,
            soil_at: match soil.law {
                0 => 0,
                _ => cells + air_at + friction.len() as u32,
            },
            drag: drag_rate(1.0 - scene.physics.damping, dt),
            drag_at: match drag.is_empty() {
                true => 0,
                false => cells + air_at + (friction.len() + soil.planes.len()) as u32,
            },
            patched: !scene.pressure.is_empty() as u32,
            _pad: 0,
        };
        Ok(SwSetup {
            base,
            dt: scene.time.dt,
            velocity,
            rivers: crate::models::shallow_water::rivers::Rivers::new(scene, reference)?,
            friction,
            soil: soil.planes,
            drag,
        })
    }

    /// The slot of step `step` (counted from the start), the `index`-th of its submit: the
    /// river sides' values at the step's middle.
    pub fn slot(&self, step: u64, index: u32) -> SwSlot {
        SwSlot {
            index,
            _pad: [0; 3],
            sides: self.rivers.at((step as f64 + 0.5) * self.dt),
        }
    }

    /// The uniforms at `substeps` equal substeps per step.
    pub fn params(&self, substeps: u32) -> SwParams {
        SwParams {
            dt: (self.dt / substeps.max(1) as f64) as f32,
            ..self.base
        }
    }
}

/// The ground as the stages read it (`SwParams::air_at`, `friction_at`, `soil_at`, `drag_at`):
/// the ground; with `[[pressure]]` patches or bodies, room for each step's pressure head
/// (`pressure.wgsl` and `sw_bodies.wgsl` write it); with `[friction] map`, each cell's n²; with
/// `[infiltration]`, its three parameter planes; with `physics.damping_map`, each cell's drag.
pub fn stage_ground(ground: &[f32], sw: &SwSetup) -> Vec<f32> {
    let air = match sw.base.air_at {
        0 => Vec::new(),
        _ => vec![0.0; ground.len()],
    };
    [ground, &air, &sw.friction, &sw.soil, &sw.drag].concat()
}

/// Substeps for water `max_depth` deep at rest: 2·sqrt(g·d)·dt/dx within `SW_TARGET`.
pub fn substeps_needed(scene: &Scene, max_depth: f64) -> u32 {
    let speed = 2.0 * (scene.physics.gravity * max_depth.max(0.0)).sqrt();
    let courant = speed * scene.time.dt / scene.grid.dx;
    ((courant / SW_TARGET as f64).ceil() as u32).max(1)
}

/// Substeps for the next chunk when the last one, at `substeps`, reached `courant`: more once it
/// passed `SW_TARGET` by a fifth, back to the target; never fewer.
pub fn flow_substeps(substeps: u32, courant: f32) -> u32 {
    if courant.is_finite() && courant > 1.2 * SW_TARGET {
        (substeps as f32 * courant / SW_TARGET).ceil() as u32
    } else {
        substeps
    }
}

/// Substeps for the next chunk when the last one, at `substeps`, reached only `courant`: fewer
/// once the flow ran under half the target (a flood come to rest after its peak), back to the
/// target; the caller keeps at least what the depth needs.
pub fn calm_substeps(substeps: u32, courant: f32) -> u32 {
    if courant.is_finite() && courant < 0.5 * SW_TARGET {
        ((substeps as f32 * courant / SW_TARGET).ceil() as u32).clamp(1, substeps)
    } else {
        substeps
    }
}

#[cfg(test)]
mod tests {
    use super::{FlowMapParams, SwParams, SwSlot};
    use crate::wgsl::{check_mirror, fields};
    use std::mem::size_of;

    #[test]
    fn the_uniforms_mirror_their_wgsl_field_by_field() {
        check_mirror(
            "SwParams",
            size_of::<SwParams>(),
            fields!(SwParams {
                nx,
                ny,
                dt,
                inv_dx,
                g,
                n2,
                film,
                theta,
                bc_west,
                bc_east,
                bc_south,
                bc_north,
                n_probes,
                cells,
                rainfall,
                one,
                air_at,
                friction_at,
                infiltration,
                soil_at,
                drag,
                drag_at,
                patched
            }),
        );
        check_mirror("SwSlot", size_of::<SwSlot>(), fields!(SwSlot { index, sides }));
        check_mirror(
            "FlowMapParams",
            size_of::<FlowMapParams>(),
            fields!(FlowMapParams { cells, wet_depth, film }),
        );
    }
}
