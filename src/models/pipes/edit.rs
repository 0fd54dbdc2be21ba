//! Edits of the pipes' columns between steps (`Simulation::edit`, `set_ground`). The edited
//! terrain builds new columns (`Columns::build`, so every solid stays where the scene put it);
//! the water of the old columns is carried onto them in whole units, and a splash adds whole
//! units to each column's top cell. No unit is made or lost but a splash's.
//!
//! Both backends edit through their saved state (the same code on the CPU and the GPU), so the
//! GPU gives the twin's bits. `Water` edits its buffers in place instead (`PipeEditParams`,
//! `cpu::pipe_edits`, `gpu::pipe_edits`): whole units on the columns it has, no rebuild.

use crate::engine::edit::{HostEdit, EDIT_BRUSH, EDIT_DISTURB};
use crate::error::{Error, Result};
use crate::models::pipes::columns::{Columns, SKY};
use bytemuck::{Pod, Zeroable};

/// Mirror of WGSL `PipeEditParams` (pipe_edits.wgsl): what `Water`'s in-place edits need of the
/// grid and the columns (`cpu::pipe_edits`, `gpu::pipe_edits`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PipeEditParams {
    /// Cells along x.
    pub nx: u32,
    /// Columns (nx · ny).
    pub columns: u32,
    /// Cells per column.
    pub layers: u32,
    /// The columns' unit, metres (a power of two).
    pub unit: f32,
    /// 1 / `unit`.
    pub per_unit: f32,
    /// Padding.
    pub _pad: [u32; 3],
}

/// The terrain `terrain` (absolute metres, row-major, `nx` a row) after the brushes among
/// `edits`: each raises it by its bump's height (lowers it where negative), as `cpu::edit` raises
/// the height field's ground.
pub fn brushed_terrain(terrain: &[f64], nx: usize, edits: &[HostEdit]) -> Vec<f64> {
    let mut out = terrain.to_vec();
    for e in edits.iter().filter(|e| e.kind == EDIT_BRUSH) {
        for (c, b) in out.iter_mut().enumerate() {
            let w = e.weight(c % nx, c / nx);
            if w > 0.0 {
                *b += (e.amount * w) as f64;
            }
        }
    }
    out
}

/// How many times finer `new`'s unit is than `old`'s (a power of two), or an error where it is
/// coarser: the columns' water would not be whole units any more.
pub fn finer_by(old: &Columns, new: &Columns) -> Result<u32> {
    let ratio = old.quantum / new.quantum;
    if ratio < 1.0 {
        return Err(Error::Embed(format!(
            "the edit takes the pipes' heights past what their unit ({:e} m) counts in 32 bits: the columns \
             would count in {:e} m and lose their water's last units; edit less far from the reference level",
            old.quantum, new.quantum
        )));
    }
    Ok(ratio.log2().round() as u32)
}

/// The water of the `old` columns (`water`, column-major: `old.layers` cells a column, in
/// `old`'s units) on the `new` columns (column-major, `new.layers` a column, in `new`'s units,
/// 2^`shift` times finer): each cell's water goes to the new cell of its column whose span
/// overlaps its water's most (ties to the lower; where none overlaps, the nearest), so a brush
/// under a slab leaves the water in its cell and a span the edit closes gives its water to the
/// cell above or below. The sum of each column is kept, times 2^`shift`.
pub fn carry_water(old: &Columns, new: &Columns, water: &[u32], shift: u32) -> Vec<u32> {
    let n = old.top_floor.len();
    let (lo, ln) = (old.layers as usize, new.layers as usize);
    let mut out = vec![0u32; ln * n];
    for c in 0..n {
        let cells: Vec<[i64; 2]> = (0..ln)
            .map(|a| new.geometry[a * n + c])
            .take_while(|g| g[0] != SKY)
            .map(|g| [g[0] as i64, if g[1] == SKY { i64::MAX } else { g[1] as i64 }])
            .collect();
        for a in 0..lo {
            let g = old.geometry[a * n + c];
            let w = water[c * lo + a];
            if g[0] == SKY || w == 0 {
                continue;
            }
            // The old cell's water, in the new units: from its floor up to its top (a full
            // cell's slot above the ceiling counts as the cell's span).
            let floor = (g[0] as i64) << shift;
            let depth = match g[1] {
                SKY => w as i64,
                ceiling => (w as i64).min((ceiling - g[0]) as i64),
            } << shift;
            let span = [floor, floor + depth.max(1)];
            let overlap = |s: &[i64; 2]| (span[1].min(s[1]) - span[0].max(s[0])).max(0);
            let distance = |s: &[i64; 2]| (s[0] - span[1]).max(span[0] - s[1]).max(0);
            let best = (0..cells.len())
                .max_by_key(|&k| (overlap(&cells[k]), -distance(&cells[k]), -(k as i64)))
                .expect("every column has a top cell");
            out[c * ln + best] += w << shift;
        }
    }
    out
}

/// Adds the splashes among `edits` to the columns' top cells (`water` column-major, `layers` a
/// column, in units of `quantum` metres; `top` each column's top cell): each column gains its
/// bump's height in whole units, or loses as much of its top cell's water where negative (down
/// to that cell's floor). Returns the units added (less those taken).
pub fn splash(water: &mut [u32], layers: usize, top: &[usize], quantum: f64, nx: usize, edits: &[HostEdit]) -> i64 {
    let mut added = 0i64;
    for e in edits.iter().filter(|e| e.kind == EDIT_DISTURB) {
        for (c, &a) in top.iter().enumerate() {
            let w = e.weight(c % nx, c / nx);
            if w <= 0.0 {
                continue;
            }
            let units = ((e.amount * w) as f64 / quantum).round() as i64;
            let cell = &mut water[c * layers + a];
            let after = (*cell as i64 + units).clamp(0, u32::MAX as i64);
            added += after - *cell as i64;
            *cell = after as u32;
        }
    }
    added
}

/// Each column's top cell (the one open to the sky) in `columns`.
pub fn top_cells(columns: &Columns) -> Vec<usize> {
    let n = columns.top_floor.len();
    (0..n)
        .map(|c| {
            (0..columns.layers as usize)
                .find(|&a| columns.geometry[a * n + c][1] == SKY)
                .expect("every column ends open to the sky")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edit_uniforms_mirror_their_wgsl_field_by_field() {
        crate::wgsl::check_mirror(
            "PipeEditParams",
            std::mem::size_of::<PipeEditParams>(),
            crate::wgsl::fields!(PipeEditParams {
                nx,
                columns,
                layers,
                unit,
                per_unit
            }),
        );
    }

    /// Columns of one column with `cells` (floor, ceiling) bottom up.
    fn column(cells: &[[i32; 2]], layers: u32) -> Columns {
        let mut geometry = vec![[SKY, SKY]; layers as usize];
        geometry[..cells.len()].copy_from_slice(cells);
        Columns {
            layers,
            quantum: 1.0,
            slot_shift: 0,
            geometry,
            water: vec![0; layers as usize],
            hold: vec![crate::models::pipes::columns::NO_HOLD],
            rate: vec![0.0],
            still: 0,
            top_floor: vec![0.0],
            velocity: Vec::new(),
            keep: Vec::new(),
            n2: Vec::new(),
        }
    }

    #[test]
    fn a_brush_under_a_slab_keeps_the_water_in_its_cell_and_a_closed_span_gives_it_up() {
        let old = column(&[[0, 100], [120, SKY]], 2);
        // The ground rises 30 units under the slab: each cell keeps its water.
        let raised = column(&[[30, 100], [120, SKY]], 2);
        assert_eq!(carry_water(&old, &raised, &[50, 7], 0), vec![50, 7]);
        // The ground rises into the slab: the span under it closes and its water goes up.
        let closed = column(&[[120, SKY]], 2);
        assert_eq!(carry_water(&old, &closed, &[50, 7], 0), vec![57, 0]);
        // Twice finer units: twice the count, nothing else.
        assert_eq!(carry_water(&old, &raised, &[50, 7], 1), vec![100, 14]);
    }

    #[test]
    fn a_splash_adds_whole_units_and_a_dip_takes_no_more_than_the_top_cell_holds() {
        let e = |amount| HostEdit::at(EDIT_DISTURB, 0.5, 0.5, 10.0, amount, 1.0);
        let mut water = vec![3u32, 4];
        assert_eq!(splash(&mut water, 2, &[1], 0.25, 1, &[e(1.0)]), 4);
        assert_eq!(water, vec![3, 8]);
        assert_eq!(splash(&mut water, 2, &[1], 0.25, 1, &[e(-10.0)]), -8);
        assert_eq!(water, vec![3, 0]);
    }
}
