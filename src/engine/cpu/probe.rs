//! Twin of `wgsl/probe.wgsl`: each probe entry after a step, appended once per step: a gauge's
//! eta, or a discharge line piece's flow from the faces' flux memory.

use crate::engine::params::Params;
use crate::engine::sections::{CELL_MASK, KIND_SHIFT, QX, QY};

/// Each entry's value: eta (through `eta_at`, which may apply a deferred correction) for a
/// gauge, `cell_flow` for a discharge line's piece.
/// `faces` is the level's flux memory, two words a cell (east, north), as the GPU keeps it after
/// the per-step changes in its `vel` buffer.
pub fn record(p: &Params, probe_cells: &[u32], eta_at: impl Fn(usize) -> f32, faces: &[f32], history: &mut Vec<f32>) {
    history.extend(probe_cells.iter().map(|&entry| {
        let c = (entry & CELL_MASK) as usize;
        match entry >> KIND_SHIFT {
            QX => cell_flow(p, faces, c, false),
            QY => cell_flow(p, faces, c, true),
            _ => eta_at(c),
        }
    }));
}

/// The water the face east (north) of cell `c` moved out of it this substep, eastward
/// (northward) positive: its memory is signed into its owner, `c`.
fn moved_across(faces: &[f32], c: usize, north: bool) -> f32 {
    -faces[2 * c + usize::from(north)]
}

/// The cell's flow along x (`north` false) or y: the mean of its two faces', a face past a side
/// that is not periodic replaced by the other.
fn cell_flow(p: &Params, faces: &[f32], c: usize, north: bool) -> f32 {
    let (nx, ny) = (p.nx as usize, p.ny as usize);
    let (i, j) = (c % nx, c / nx);
    let periodic = crate::wgsl::sides::PERIODIC == if north { p.bc_south } else { p.bc_west };
    let (along, count) = if north { (j, ny) } else { (i, nx) };
    let before_real = along > 0 || periodic;
    let after_real = along + 1 < count || periodic;
    let before_cell = match (north, i == 0, j == 0) {
        (false, false, _) => c - 1,
        (false, true, _) => c + nx - 1,
        (true, _, false) => c - nx,
        (true, _, true) => c + nx * (ny - 1),
    };
    let after = moved_across(faces, c, north);
    let before = moved_across(faces, before_cell, north);
    let a = if after_real { after } else { before };
    let b = if before_real { before } else { after };
    if before_real || after_real {
        0.5 * (a + b)
    } else {
        0.0
    }
}
