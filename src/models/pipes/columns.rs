//! The pipes model's columns (seed 004 after Mould & Yang): each column of the grid is a stack of
//! cells, the open spans between solids (the ground, `[[terrain.overhang]]` slabs and
//! `[[terrain.rock]]` spheres); water is counted in whole units of `quantum` metres of depth; and
//! the uniforms of `wgsl/pipes.wgsl`.

use crate::error::{Error, Result};
use crate::scene::{InitialFields, Scene};
use bytemuck::{Pod, Zeroable};

pub use crate::wgsl::columns::{MAX_LAYERS, NO_HOLD, SKY};

/// Mirror of WGSL `PipeParams` (pipes.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PipeParams {
    pub nx: u32,
    pub ny: u32,
    pub layers: u32,
    pub columns: u32,
    pub bc_west: u32,
    pub bc_east: u32,
    pub bc_south: u32,
    pub bc_north: u32,
    pub friction: f32,
    pub g_quantum: f32,
    pub dt_l_axial: f32,
    pub dt_l_diagonal: f32,
    pub move_axial: f32,
    pub move_diagonal: f32,
    pub still: i32,
    pub slot_shift: u32,
    pub n_probes: u32,
    pub quantum: f32,
    pub dynamic: f32,
    /// `physics.manning`: g·n²·dt (m^(1/3)·s), the semi-implicit Manning term's weight; 0
    /// without.
    pub manning: f32,
    /// 1 with `[[pressure]]` patches or bodies: the flow reads each top cell's air-pressure head.
    pub air: u32,
    /// g, m/s²: the air's head (metres, not units) times it is its push.
    pub gravity: f32,
    /// 1 with `[friction] map`: each pipe's Manning weight is g·dt times the mean of its two
    /// columns' n² (`manning` unread).
    pub friction_map: u32,
    /// g·dt, m/s (the map's n² times it is a Manning weight).
    pub g_dt: f32,
    /// `[spray] breaking`, or −1 without the spray: an axial pipe over a lip the spray breaks
    /// yields its flow to the spray (pipes.wgsl `piped`).
    pub breaking: f32,
    /// The spray's overfall law (`SprayParams::overfall`, units a step per m^(3/2) of depth) and
    /// the most units it sends through a face a step: a pipe over a lip the spray breaks carries
    /// what the spray leaves (pipes.wgsl `piped`).
    pub spray_law: f32,
    pub spray_most: f32,
    /// The drop, units, past which a giver's floor over its receiver's is a lip (an overfall)
    /// rather than a step of a slope: dx, steeper than 45° (pipes.wgsl `overfall`).
    pub lip: i32,
}

/// The internal step `[pipes] friction` is a factor per, s: seed 004's (and `[pipes] dt`'s
/// default).
pub const SEED_STEP: f64 = 0.005;

/// A pipe's width over dx: 2/3 axial, √2/6 diagonal, the weights that make the nine-point
/// stencil isotropic with long waves at sqrt(g·d) (the seed gives no widths).
pub const AXIAL_WIDTH: f64 = 2.0 / 3.0;
pub const DIAGONAL_WIDTH: f64 = std::f64::consts::SQRT_2 / 6.0;

/// Courant number sqrt(g·d)·dt/dx the internal step keeps to (the nine-point scheme is stable
/// to 0.87; the rest is room for depths that grow between checks).
pub const PIPE_COURANT: f64 = 0.5;

/// Thinnest open span that becomes a cell (metres): thinner gaps are solid.
const THINNEST_SPAN: f64 = 1e-3;

/// The columns of a scene: geometry, the initial water and what the sources do.
#[derive(Clone, Debug, PartialEq)]
pub struct Columns {
    /// Cells per column: the most open spans any column has.
    pub layers: u32,
    /// Metres per unit of height (a power of two).
    pub quantum: f64,
    /// A full cell's head rises 2^slot_shift units per unit of water past its ceiling.
    pub slot_shift: u32,
    /// (floor, ceiling) of cell a of column c at `a·columns + c`, units relative to the
    /// reference level; unused layers (SKY, SKY), a top cell's ceiling SKY.
    pub geometry: Vec<[i32; 2]>,
    /// The water in each cell at the start, units.
    pub water: Vec<u32>,
    /// Per column: the height it holds (units), or `NO_HOLD`.
    pub hold: Vec<i32>,
    /// Per column: m³/s its sources give (drains negative).
    pub rate: Vec<f64>,
    /// The still level, units.
    pub still: i32,
    /// The floor of each column's top cell (metres, absolute, a whole number of units from the
    /// reference): the ground a view from above sees.
    pub top_floor: Vec<f64>,
    /// `[water] u_npy`, `v_npy`: each column's velocity at the start, m/s (empty: at rest).
    pub velocity: Vec<[f32; 2]>,
    /// Per column: 1 − τ, the share of its pipes' velocity kept per step of `time.dt` under
    /// `physics.damping` and `damping_map` (empty without damping).
    pub keep: Vec<f32>,
    /// Per column: Manning's n² under `[friction] map` (empty without a map).
    pub n2: Vec<f32>,
}

/// Each column's open spans (floor, ceiling) between its solids, bottom up; a column with more
/// than the model holds is an error naming where it stands.
fn column_spans(scene: &Scene, fields: &InitialFields) -> Result<Vec<Vec<(f64, f64)>>> {
    let n = fields.ground.len();
    let mut spans: Vec<Vec<(f64, f64)>> = Vec::with_capacity(n);
    for c in 0..n {
        let (x, y) = centre(scene, c);
        let open = open_spans(scene, fields.ground[c], x, y);
        if open.len() > MAX_LAYERS as usize {
            return Err(Error::Scene {
                file: scene.origin.clone(),
                line: None,
                message: format!(
                    "terrain: the column at ({x:.3}, {y:.3}) has {} open spans between solids; the pipes \
                     model holds at most {MAX_LAYERS} cells per column",
                    open.len()
                ),
            });
        }
        spans.push(open);
    }
    Ok(spans)
}

/// The coarsest unit the columns count in is 2^-this m (about 1 mm): a scene whose heights need
/// a coarser one to fit 32 bits is refused rather than rounded to it.
const COARSEST_UNIT_BITS: f64 = 10.0;

/// Units a source may give a cell in one internal step: far inside i32, so that a step's feed
/// never wraps.
const MOST_FEED_UNITS: f64 = (1u32 << 27) as f64;

/// The highest |level − reference| the water can reach, and the key that asks for the most: a
/// lake holding the start's water, what the sources and `added` bring over the run, over the
/// highest ground, surface or held height (a source's, a stage side's `levels`; a lake's level L
/// over ground b holding V obeys L ≤ max b + V/area), twice over for the water that piles up
/// while it flows.
fn water_reach(
    scene: &Scene,
    fields: &InitialFields,
    added: &[(String, f64)],
    levels: &[(String, f64)],
) -> (f64, String) {
    let reference = fields.reference.0;
    let area = scene.grid.cells() as f64 * scene.grid.dx * scene.grid.dx;
    let duration = scene.time.steps as f64 * scene.time.dt;
    let cell = scene.grid.dx * scene.grid.dx;
    let start: f64 = fields
        .surface
        .iter()
        .zip(&fields.ground)
        .map(|(h, b)| (h - b).max(0.0))
        .sum::<f64>()
        * cell;
    let mut asker = ("terrain".to_string(), 0.0);
    let mut top = fields
        .ground
        .iter()
        .chain(&fields.surface)
        .fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    for (key, level) in levels {
        if *level > top {
            top = *level;
            asker = (key.clone(), f64::INFINITY);
        }
    }
    let mut volume = start;
    let mut feeds: Vec<(String, f64)> = added.to_vec();
    for (k, s) in scene.sources.iter().enumerate() {
        if let Some(h) = s.height {
            if h > top {
                top = h;
                asker = (format!("source[{k}].height"), f64::INFINITY);
            }
        }
        if s.rate > 0.0 {
            feeds.push((format!("source[{k}].rate"), s.rate * duration));
        }
    }
    for (key, v) in feeds {
        volume += v;
        if v > asker.1 {
            asker = (key, v);
        }
    }
    let level = top + volume / area;
    let reach = 2.0 * (level - reference).abs().max((top - reference).abs());
    (reach, asker.0)
}

/// Refuses a steady source that gives one of its cells more units in an internal step than
/// `MOST_FEED_UNITS`, naming its rate and the most it may give.
fn feeds_fit(scene: &Scene, dt_sub: f64, quantum: f64) -> Result<()> {
    let per_unit = scene.grid.dx * scene.grid.dx * quantum;
    for (k, s) in scene.sources.iter().enumerate() {
        let cells = crate::engine::feeds::disc_cells(&scene.grid, s.x, s.y, s.radius)
            .len()
            .max(1) as f64;
        let units = (s.rate / cells * dt_sub / per_unit).abs();
        if units > MOST_FEED_UNITS {
            let most = MOST_FEED_UNITS * per_unit * cells / dt_sub;
            return Err(Error::Scene {
                file: scene.origin.clone(),
                line: None,
                message: format!(
                    "source[{k}].rate: {} m³/s over {cells} cells gives each {:.3e} m of water per internal step \
                     ({dt_sub} s); the pipes' units take at most {most:.3e} m³/s there: lower the rate, widen the \
                     radius or shorten pipes.dt",
                    s.rate,
                    s.rate / cells * dt_sub / (scene.grid.dx * scene.grid.dx)
                ),
            });
        }
    }
    Ok(())
}

/// The largest |height − reference| among the surface and the spans' finite bounds (at least 1).
fn height_extent(spans: &[Vec<(f64, f64)>], fields: &InitialFields) -> f64 {
    let reference = fields.reference.0;
    let mut extent: f64 = 1.0;
    for (c, open) in spans.iter().enumerate() {
        extent = extent.max((fields.surface[c] - reference).abs());
        for &(lo, hi) in open {
            extent = extent.max((lo - reference).abs());
            if hi.is_finite() {
                extent = extent.max((hi - reference).abs());
            }
        }
    }
    extent
}

impl Columns {
    /// Builds the columns from the scene's solids and its initial surface; `substeps` sets the
    /// internal step that the slot's stiffness must keep stable with.
    ///
    /// `added`: the most water (m³) each feed beyond the steady sources can add over the run,
    /// by its key (`Feeds::added_over`). Every height the run can reach, the water those feeds
    /// and the held sources can raise included, must fit the units (`water_reach`): a scene past
    /// them is refused naming the key that asks for the most. `levels`: the highest level each
    /// stage side holds (`Feeds::stage_levels`).
    pub fn build(
        scene: &Scene,
        fields: &InitialFields,
        substeps: u32,
        added: &[(String, f64)],
        levels: &[(String, f64)],
    ) -> Result<Columns> {
        let n = fields.ground.len();
        let reference = fields.reference.0;
        let spans = column_spans(scene, fields)?;
        let layers = spans.iter().map(Vec::len).max().unwrap_or(1) as u32;

        // Every finite height, relative to the reference, must fit in i32 units with room for
        // the water above it: the solids and the start's surface, and the highest level the water
        // can reach.
        let (reach, asker) = water_reach(scene, fields, added, levels);
        let extent = height_extent(&spans, fields).max(reach);
        let exponent = (f64::from(1u32 << 28) / (2.0 * extent)).log2().floor().min(24.0);
        if exponent < COARSEST_UNIT_BITS {
            let most = f64::from(1u32 << 27) * (-COARSEST_UNIT_BITS).exp2();
            return Err(Error::Scene {
                file: scene.origin.clone(),
                line: None,
                message: format!(
                    "{asker}: the water could stand {extent:.4e} m from the reference level ({reference} m); the \
                     pipes model counts water in whole units of at most 2^-{COARSEST_UNIT_BITS} m in 32 bits, so its \
                     heights and water must stay within {most:.0} m of it"
                ),
            });
        }
        let exponent = exponent as i32;
        let quantum = (-exponent as f64).exp2();
        let units = |h: f64| ((h - reference) / quantum).round() as i32;

        let dt_sub = scene.time.dt / substeps as f64;
        feeds_fit(scene, dt_sub, quantum)?;
        let deepest_cell = spans
            .iter()
            .flatten()
            .filter(|(_, hi)| hi.is_finite())
            .map(|(lo, hi)| hi - lo)
            .fold(0.0, f64::max);
        let slot_shift = slot_shift(scene, dt_sub, deepest_cell);

        let mut geometry = vec![[SKY, SKY]; layers as usize * n];
        let mut water = vec![0u32; layers as usize * n];
        let mut top_floor = vec![0.0; n];
        for (c, open) in spans.iter().enumerate() {
            let level = units(fields.surface[c].max(fields.ground[c]));
            for (a, &(lo, hi)) in open.iter().enumerate() {
                let floor = units(lo);
                let mut ceiling = if hi.is_finite() { units(hi) } else { SKY };
                if ceiling != SKY && level > ceiling {
                    // A cell that starts full holds the level through its slot exactly: its
                    // ceiling snaps (by less than half a slot step) to the level less whole steps.
                    let step = 1i64 << slot_shift;
                    let above = ((level - ceiling) as i64 + step / 2) / step * step;
                    ceiling = (level as i64 - above).max(floor as i64 + 1) as i32;
                }
                geometry[a * n + c] = [floor, ceiling];
                water[a * n + c] = initial_water(floor, ceiling, level, slot_shift);
                if ceiling == SKY {
                    // The floor the columns stand their water on, in whole units: a dry column's
                    // surface is exactly its ground (depth 0, not the unit's rounding).
                    top_floor[c] = reference + floor as f64 * quantum;
                }
            }
        }
        let (hold, rate) = sources(scene, n, &units, &top_floor);
        Ok(Columns {
            layers,
            quantum,
            slot_shift,
            geometry,
            water,
            hold,
            rate,
            still: units(scene.water.level.unwrap_or(reference)),
            top_floor,
            velocity: crate::scene::read_velocity(scene)?,
            keep: damping(scene, n)?,
            n2: crate::models::shallow_water::setup::friction_map(scene)?,
        })
    }

    /// Per column (units per substep its sources give, the height it holds or `NO_HOLD`, the
    /// spray's impact pressure: none yet, the share of its pipes' velocity the damping takes a
    /// substep, 1 − keep^(1/substeps), as f32 bits: `cpu::pipes::lost`).
    pub fn feed(&self, scene: &Scene, substeps: u32) -> Vec<[i32; 4]> {
        let per_unit = scene.grid.dx * scene.grid.dx * self.quantum;
        let dt_sub = scene.time.dt / substeps as f64;
        let lost = |c: usize| match self.keep.get(c) {
            // In f64: 1 − a rounded keep would lose τ's digits when it is small.
            Some(&keep) => ((1.0 - (keep as f64).powf(1.0 / substeps as f64)) as f32).to_bits() as i32,
            None => 0,
        };
        self.rate
            .iter()
            .zip(&self.hold)
            .enumerate()
            .map(|(c, (&r, &h))| [(r * dt_sub / per_unit).round() as i32, h, 0, lost(c)])
            .collect()
    }

    /// A chunk's entries (`feeds::Feeds::chunk`: metres) as whole units of these columns'
    /// water, rounded to the nearest, as i32 bits: what `pipe_rain` adds (a drop, a hydrograph, a
    /// discharge side) or takes (a wave maker's trough) exactly, to the columns and the target;
    /// a held entry's (its cell flagged `HELD`) is its level, units from the reference level.
    pub fn rain_units(&self, heights: &[f32]) -> Vec<u32> {
        heights
            .iter()
            .map(|&h| (h as f64 / self.quantum).round() as i32 as u32)
            .collect()
    }

    /// Whole water in units (exact).
    pub fn total(water: &[u32]) -> u64 {
        water.iter().map(|&w| w as u64).sum()
    }
}

/// Each column's 1 − τ per step under `physics.damping` and `damping_map` (the height field's
/// Kass & Miller τ, here a drag on the pipes' velocities: a wave decays at −ln(1 − τ)/(2·dt) per
/// second, as on the height field); empty without damping.
fn damping(scene: &Scene, columns: usize) -> Result<Vec<f32>> {
    let keep = crate::engine::params::damping_keep(scene)?;
    if keep.is_empty() && scene.physics.damping > 0.0 {
        return Ok(vec![(1.0 - scene.physics.damping) as f32; columns]);
    }
    Ok(keep)
}

/// Units of water a cell from `floor` to `ceiling` holds at `level`: up to the level, and past
/// the ceiling the slot's share.
fn initial_water(floor: i32, ceiling: i32, level: i32, slot_shift: u32) -> u32 {
    if level <= floor {
        0
    } else if ceiling == SKY || level <= ceiling {
        (level - floor) as u32
    } else {
        (ceiling - floor) as u32 + ((level - ceiling) >> slot_shift) as u32
    }
}

/// The slot's stiffness: the largest power of two 2^s with sqrt(g·d·2^s)·dt/dx ≤ PIPE_COURANT
/// for the deepest cell with a ceiling (a full cell's pressure waves travel at that speed).
fn slot_shift(scene: &Scene, dt_sub: f64, deepest_cell: f64) -> u32 {
    if deepest_cell <= 0.0 {
        return 0;
    }
    let speed = PIPE_COURANT * scene.grid.dx / dt_sub;
    let bound = speed * speed / (scene.physics.gravity * deepest_cell);
    bound.log2().floor().clamp(0.0, 16.0) as u32
}

fn centre(scene: &Scene, c: usize) -> (f64, f64) {
    let nx = scene.grid.nx as usize;
    let dx = scene.grid.dx;
    (((c % nx) as f64 + 0.5) * dx, ((c / nx) as f64 + 0.5) * dx)
}

/// The open spans of the column at (x, y) over ground `b`, bottom up; the last reaches the sky.
fn open_spans(scene: &Scene, b: f64, x: f64, y: f64) -> Vec<(f64, f64)> {
    let mut solids: Vec<(f64, f64)> = vec![(f64::NEG_INFINITY, b)];
    for o in &scene.terrain.overhangs {
        if x >= o.x0 && x < o.x1 && y >= o.y0 && y < o.y1 {
            solids.push((o.bottom, o.top));
        }
    }
    for r in &scene.terrain.rocks {
        let d2 = (x - r.x).powi(2) + (y - r.y).powi(2);
        if d2 < r.radius * r.radius {
            let half = (r.radius * r.radius - d2).sqrt();
            solids.push((r.z - half, r.z + half));
        }
    }
    solids.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut open = Vec::new();
    let mut covered = f64::NEG_INFINITY;
    for (lo, hi) in solids {
        if lo - covered >= THINNEST_SPAN {
            open.push((covered, lo));
        }
        covered = covered.max(hi);
    }
    open.push((covered, f64::INFINITY));
    open
}

/// Per column: the height its sources hold (units, `NO_HOLD` if none), and the m³/s its rate
/// sources give, spread evenly over the columns whose centres lie in each disc (the column it
/// stands in, if none do).
fn sources(scene: &Scene, n: usize, units: &dyn Fn(f64) -> i32, top_floor: &[f64]) -> (Vec<i32>, Vec<f64>) {
    let g = scene.grid;
    let mut hold = vec![NO_HOLD; n];
    let mut rate = vec![0.0; n];
    for s in &scene.sources {
        let mut cells: Vec<usize> = (0..n)
            .filter(|&c| {
                let (x, y) = centre(scene, c);
                (x - s.x).powi(2) + (y - s.y).powi(2) <= s.radius * s.radius
            })
            .collect();
        if cells.is_empty() {
            let i = ((s.x / g.dx).floor() as usize).min(g.nx as usize - 1);
            let j = ((s.y / g.dx).floor() as usize).min(g.ny as usize - 1);
            cells.push(j * g.nx as usize + i);
        }
        for &c in &cells {
            match s.height {
                // Below the top floor the column holds no water there: a sink.
                Some(h) => hold[c] = units(h.max(top_floor[c])),
                None => rate[c] += s.rate / cells.len() as f64,
            }
        }
    }
    (hold, rate)
}

/// A drop of more than dx, in units: where a floor stands that far over its neighbour's, the pipes
/// and the spray take the edge for a lip (an overfall), not a step of a slope. A thin sheet on a
/// slope steps down its cells' floors by S·dx each: capped at critical flow at each step it ran
/// 16 times slower down a 10 % slope under 100 mm/h of rain than it had (0.98 → 0.062 m/s).
pub fn lip_units(scene: &Scene, columns: &Columns) -> i32 {
    (scene.grid.dx / columns.quantum).round().min(i32::MAX as f64) as i32
}

/// The fewest equal substeps of `time.dt` that keep each within `[pipes] dt` and within the
/// wave-speed rule sqrt(g·d_max)·dt/dx ≤ PIPE_COURANT.
pub fn substeps_needed(scene: &Scene, max_depth: f64) -> u32 {
    let pipes = scene.pipes.unwrap_or_default();
    let by_step = scene.time.dt / pipes.dt;
    let speed = (scene.physics.gravity * max_depth.max(0.0)).sqrt();
    let by_wave = scene.time.dt * speed / (PIPE_COURANT * scene.grid.dx);
    (by_step.max(by_wave) - 1e-9).ceil().clamp(1.0, u32::MAX as f64) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uniforms_mirror_their_wgsl_field_by_field() {
        crate::wgsl::check_mirror(
            "PipeParams",
            std::mem::size_of::<PipeParams>(),
            crate::wgsl::fields!(PipeParams {
                nx,
                ny,
                layers,
                columns,
                bc_west,
                bc_east,
                bc_south,
                bc_north,
                friction,
                g_quantum,
                dt_l_axial,
                dt_l_diagonal,
                move_axial,
                move_diagonal,
                still,
                slot_shift,
                n_probes,
                quantum,
                dynamic,
                manning,
                air,
                gravity,
                friction_map,
                g_dt,
                breaking,
                spray_law,
                spray_most,
                lip
            }),
        );
    }

    fn scene(extra: &str) -> Scene {
        let text = format!(
            "[grid]\nnx = 4\nny = 2\ndx = 1.0\n[time]\ndt = 0.01\n[physics]\nmodel = \"pipes\"\n[water]\nlevel = 1.0\n{extra}"
        );
        Scene::parse(&text, std::path::Path::new("t.toml"), std::path::Path::new(".")).unwrap()
    }

    fn columns(extra: &str) -> Columns {
        let s = scene(extra);
        Columns::build(&s, &InitialFields::build(&s).unwrap(), 2, &[], &[]).unwrap()
    }

    #[test]
    fn a_slab_splits_the_columns_under_it_in_two_cells() {
        let c = columns("[[terrain.overhang]]\nx0 = 0.0\ny0 = 0.0\nx1 = 2.0\ny1 = 2.0\nbottom = 0.5\ntop = 0.7\n");
        assert_eq!(c.layers, 2);
        let n = 8;
        let q = c.quantum;
        // Column 0: ground 0 (reference 1 m above), slab 0.5..0.7.
        let [f0, c0] = c.geometry[0];
        let [f1, c1] = c.geometry[n];
        assert_eq!(f0 as f64 * q, -1.0);
        assert!(
            (c0 as f64 * q + 0.5).abs() < 1e-3,
            "the slab's underside, snapped: {}",
            c0 as f64 * q
        );
        assert!(((f1 as f64 * q) + 0.3).abs() < 1e-6);
        assert_eq!(c1, SKY);
        // Column 3 has no slab: one cell, the second layer unused.
        assert_eq!(c.geometry[3][1], SKY);
        assert_eq!(c.geometry[n + 3], [SKY, SKY]);
        // The cell under the slab starts full, its head at the level exactly: the lake is at rest.
        let head = |g: [i32; 2], w: u32| {
            let cap = g[1] - g[0];
            if (w as i32) <= cap {
                g[0] + w as i32
            } else {
                g[1] + ((w as i32 - cap) << c.slot_shift)
            }
        };
        assert_eq!(head(c.geometry[0], c.water[0]), 0);
        assert_eq!(head(c.geometry[n], c.water[n]), 0);
        assert_eq!(head(c.geometry[3], c.water[3]), 0);
        // The top floors stand on the units' grid, within half a unit of the solids' tops.
        assert!((c.top_floor[0] - 0.7).abs() <= c.quantum / 2.0);
        assert_eq!(c.top_floor[3], 0.0);
    }

    #[test]
    fn a_rock_leaves_open_space_under_its_equator_only_where_the_ground_is_below_it() {
        let c = columns("[[terrain.rock]]\nx = 0.5\ny = 0.5\nz = 2.0\nradius = 0.5\n");
        // The rock floats above the ground at column 0: ground..bottom of the rock, then its top up.
        assert_eq!(c.layers, 2);
        assert!((c.top_floor[0] - 2.5).abs() < 1e-12);
        let buried = columns("[[terrain.rock]]\nx = 0.5\ny = 0.5\nz = 0.0\nradius = 0.5\n");
        assert_eq!(buried.layers, 1, "a rock half in the ground adds no cell");
        assert!((buried.top_floor[0] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_quantum_is_a_power_of_two_that_leaves_room_for_the_heights() {
        let c = columns("");
        assert_eq!(c.quantum, (-24f64).exp2());
        assert_eq!(c.water[0], 1 << 24, "1 m of water is 2^24 units");
    }

    #[test]
    fn sources_hold_or_give_over_their_disc() {
        let c = columns("[[source]]\nx = 0.5\ny = 0.5\nradius = 0.1\nheight = 1.5\n[[source]]\nx = 3.5\ny = 1.5\nradius = 0.1\nrate = 2.0\n");
        assert_eq!(c.hold[0] as f64 * c.quantum, 0.5);
        assert_eq!(c.hold[1], NO_HOLD);
        assert_eq!(c.rate[7], 2.0);
        let s = scene("[[source]]\nx = 3.5\ny = 1.5\nradius = 0.1\nrate = 2.0\n");
        let feed = c.feed(&s, 2);
        // 2 m³/s × 0.005 s over 1 m² = 1 cm per substep.
        assert_eq!(feed[7][0], (0.01 / c.quantum).round() as i32);
    }
}
