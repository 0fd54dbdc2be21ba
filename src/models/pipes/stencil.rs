//! The pipes' nine-point stencil, shared by both backends' host code and the twin: the eight
//! directions, a pipe's slot in its column's run, and what lies at a pipe's far end (columns.wgsl
//! `offset`, pipes.wgsl `neighbour`).

use crate::models::pipes::columns::{PipeParams, SKY};
use crate::models::pipes::state::PipeState;
use crate::wgsl::sides::{PERIODIC, REFLECT};

/// What a pipe's far end is.
#[derive(Clone, Copy, PartialEq)]
pub enum Far {
    /// A column, and the direction of its copy of the pipe (`opposite(k)`, or its mirror for a
    /// diagonal mirrored in a wall).
    Cell(usize, usize),
    Ghost(u32),
    Nothing,
}

/// Direction k's (di, dj): E, N, W, S, NE, NW, SW, SE (columns.wgsl `offset`).
pub const OFFSETS: [(i32, i32); 8] = [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)];

/// The direction back from direction k's neighbour.
pub fn opposite(k: usize) -> usize {
    (k & 4) | ((k + 2) & 3)
}

/// Direction k as a unit vector.
pub fn unit(k: usize) -> [f32; 2] {
    let (x, y) = OFFSETS[k];
    let (x, y) = (x as f32, y as f32);
    if k >= 4 {
        [x * 0.70710677, y * 0.70710677]
    } else {
        [x, y]
    }
}

/// Slot of pipe (direction k, own layer a, far layer b) within its column's run of pipes.
pub fn slot(p: &PipeParams, k: usize, a: usize, b: usize) -> usize {
    (k * p.layers as usize + a) * p.layers as usize + b
}

/// Twin of `inside`: whether direction k's offset from column (i, j) stays in the grid.
pub fn inside(p: &PipeParams, i: u32, j: u32, k: usize) -> bool {
    let (ox, oy) = OFFSETS[k];
    let (x, y) = (i as i32 + ox, j as i32 + oy);
    x >= 0 && y >= 0 && x < p.nx as i32 && y < p.ny as i32
}

/// Twin of `neighbour`: what lies at direction k's far end from column (i, j). A diagonal
/// through a wall is mirrored in it: the pipe joins the two columns along the wall, or reaches
/// the ghost beyond the other side; through a corner of two walls, nothing (pipes.wgsl explains
/// why).
pub fn neighbour(p: &PipeParams, i: u32, j: u32, k: usize) -> Far {
    let (ox, oy) = OFFSETS[k];
    let mut x = i as i32 + ox;
    let mut y = j as i32 + oy;
    let mut ghost = None;
    let mut back = opposite(k);
    let mut mirrored = false;
    if x < 0 || x >= p.nx as i32 {
        let side = if x < 0 { p.bc_west } else { p.bc_east };
        if side == REFLECT {
            if oy == 0 {
                return Far::Nothing;
            }
            x = i as i32;
            back ^= 1;
            mirrored = true;
        } else if side == PERIODIC {
            x = (x + p.nx as i32) % p.nx as i32;
        } else {
            ghost = Some(side);
        }
    }
    if y < 0 || y >= p.ny as i32 {
        let side = if y < 0 { p.bc_south } else { p.bc_north };
        if side == REFLECT {
            if ox == 0 || mirrored {
                return Far::Nothing;
            }
            y = j as i32;
            back = 11 - back;
        } else if side == PERIODIC {
            y = (y + p.ny as i32) % p.ny as i32;
        } else if ghost.is_none() {
            ghost = Some(side);
        }
    }
    match ghost {
        Some(side) => Far::Ghost(side),
        None => Far::Cell(y as usize * p.nx as usize + x as usize, back),
    }
}

/// Twin of `ghost_inner`: the column one step in from the side whose ghost direction k reaches
/// from column (i, j) (the side `neighbour` names), or the column itself in a grid one across.
pub fn ghost_inner(p: &PipeParams, i: u32, j: u32, k: usize) -> usize {
    let (ox, oy) = OFFSETS[k];
    let x = i as i32 + ox;
    let x_side = if x < 0 { p.bc_west } else { p.bc_east };
    let (mut ii, mut jj) = (i as i32, j as i32);
    if (x < 0 || x >= p.nx as i32) && x_side != REFLECT && x_side != PERIODIC {
        ii = (ii - ox).clamp(0, p.nx as i32 - 1);
    } else {
        jj = (jj - oy).clamp(0, p.ny as i32 - 1);
    }
    jj as usize * p.nx as usize + ii as usize
}

/// A ghost's geometry beyond an open side: open from the column's lowest floor to the sky.
pub fn ghost_geometry(lowest: [i32; 2]) -> [i32; 2] {
    [lowest[0], SKY]
}

/// Sets the start's velocities `uv` (m/s per column; empty: at rest): each open pipe of a wet
/// cell carries its column's velocity along its direction, and each cell's mean is what `apply`
/// reads back from them (with all eight pipes open, 0.25·Σ e_k (e_k · U) = U).
pub fn start_moving(p: &PipeParams, s: &mut PipeState, uv: &[[f32; 2]]) {
    if uv.is_empty() {
        return;
    }
    let l = p.layers as usize;
    let pipes = 8 * l * l;
    for (c, &u) in uv.iter().enumerate() {
        let (i, j) = ((c % p.nx as usize) as u32, (c / p.nx as usize) as u32);
        let lowest = s.geometry[c * l];
        for a in 0..l {
            let ga = s.geometry[c * l + a];
            if ga[0] == SKY {
                break;
            }
            let mut v = [0.0f32; 2];
            for k in 0..8 {
                let far = neighbour(p, i, j, k);
                for b in 0..l {
                    let gb = match far {
                        Far::Nothing => break,
                        Far::Ghost(_) if b > 0 => break,
                        Far::Ghost(_) => ghost_geometry(lowest),
                        Far::Cell(q, _) => s.geometry[q * l + b],
                    };
                    if gb[0] == SKY {
                        break;
                    }
                    if s.water[c * l + a] == 0 || ga[1].min(gb[1]) <= ga[0].max(gb[0]) {
                        continue;
                    }
                    let e = unit(k);
                    let along = e[0] * u[0] + e[1] * u[1];
                    s.flow[c * pipes + slot(p, k, a, b)] = along;
                    v = [v[0] + e[0] * along, v[1] + e[1] * along];
                }
            }
            s.vel[c * l + a] = [0.25 * v[0], 0.25 * v[1]];
        }
    }
}
