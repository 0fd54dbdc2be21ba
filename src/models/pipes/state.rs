//! The pipes model's state, shared by both backends: the columns' cells and pipes (`PipeState`,
//! column-major here; the GPU keeps each field layer-major and `to_gpu_layout` converts), and the
//! surface the height-field outputs read from it.

use crate::engine::solver::SolverState;
use crate::error::{Error, Result};
use crate::models::pipes::columns::{PipeParams, SKY};

/// The pipes model's state: the twin of its GPU buffers, column-major.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PipeState {
    /// Cells per column.
    pub layers: usize,
    /// (floor, ceiling) per cell, units.
    pub geometry: Vec<[i32; 2]>,
    /// Water per cell, units.
    pub water: Vec<u32>,
    /// Velocity per pipe, m/s, from the cell toward its neighbour.
    pub flow: Vec<f32>,
    /// Units each cell gives through each pipe this substep.
    pub given: Vec<u32>,
    /// Each cell's limiter share this substep (1: not limited).
    pub scale: Vec<f32>,
    /// Each cell's mean velocity, from its pipes.
    pub vel: Vec<[f32; 2]>,
    /// Per column: (units per substep its sources give, held head or NO_HOLD, the spray's impact
    /// pressure on the top cell in units of head, the damping's share: `Columns::feed`).
    pub feed: Vec<[i32; 4]>,
    /// Per column, two planes: this step's air-pressure head p/(ρ·g) on its top cell, m
    /// (`[[pressure]]`, written before the substeps), then Manning's n² (`[friction] map`).
    /// Empty without either (`column_forcing`).
    pub column_forcing: Vec<f32>,
    /// Per column: water its sources, drains and open sides made since the chunk began.
    pub exchange: Vec<i64>,
}

/// The per-column forcing's two planes (`PipeState::column_forcing`): room for the air's head with
/// `[[pressure]]`, and the friction map's n²; empty without either.
pub fn column_forcing(columns: &crate::models::pipes::columns::Columns, patches: bool) -> Vec<f32> {
    let n = columns.top_floor.len();
    if !patches && columns.n2.is_empty() {
        return Vec::new();
    }
    let mut planes = vec![0.0; n];
    planes.extend_from_slice(&columns.n2);
    planes
}

impl PipeState {
    /// The state at the start: the columns' geometry and water, at rest.
    pub fn new(columns: &crate::models::pipes::columns::Columns, feed: Vec<[i32; 4]>) -> PipeState {
        let l = columns.layers as usize;
        let n = feed.len();
        let mut s = PipeState {
            layers: l,
            geometry: vec![[SKY, SKY]; l * n],
            water: vec![0; l * n],
            flow: vec![0.0; 8 * l * l * n],
            given: vec![0; 8 * l * l * n],
            scale: vec![1.0; l * n],
            vel: vec![[0.0; 2]; l * n],
            feed,
            column_forcing: Vec::new(),
            exchange: vec![0; n],
        };
        for a in 0..l {
            for c in 0..n {
                s.geometry[c * l + a] = columns.geometry[a * n + c];
                s.water[c * l + a] = columns.water[a * n + c];
            }
        }
        s
    }

    /// Columns.
    pub fn columns(&self) -> usize {
        self.feed.len()
    }

    /// A per-cell field (`per` values per cell or pipe run) in the GPU's layer-major order.
    pub fn to_gpu_layout<T: Copy>(&self, field: &[T], per: usize) -> Vec<T> {
        let n = self.columns();
        (0..per * n).map(|i| field[(i % n) * per + i / n]).collect()
    }

    /// `to_gpu_layout` undone: a field read back from the GPU in this twin's column-major order.
    pub fn in_twin_layout<T: Copy>(&self, gpu: &[T], per: usize) -> Vec<T> {
        let n = self.columns();
        (0..per * n).map(|i| gpu[(i % per) * n + i / per]).collect()
    }

    /// What a checkpoint keeps of this state: the water, velocities and pipes, the impact
    /// pressures, and `particles`. The rest is rebuilt from the scene or within a step.
    pub fn save(&self, particles: &[crate::models::pipes::spray::Particle]) -> SolverState {
        SolverState {
            pipe_water: self.water.clone(),
            pipe_vel: self.vel.iter().flatten().copied().collect(),
            pipe_flow: self.flow.clone(),
            pipe_pressure: self.feed.iter().map(|f| f[2]).collect(),
            particles: particles.to_vec(),
            ..SolverState::default()
        }
    }

    /// Takes the saved fields of `saved` (the particles are the spray's to take).
    pub fn load(&mut self, saved: &SolverState) -> Result<()> {
        let fits = saved.pipe_water.len() == self.water.len()
            && saved.pipe_vel.len() == 2 * self.vel.len()
            && saved.pipe_flow.len() == self.flow.len()
            && saved.pipe_pressure.len() == self.feed.len();
        if !fits {
            return Err(Error::Unsupported(
                "a saved state of other columns (another scene's pipes)".into(),
            ));
        }
        self.water.copy_from_slice(&saved.pipe_water);
        self.vel = saved.pipe_vel.chunks_exact(2).map(|v| [v[0], v[1]]).collect();
        self.flow.copy_from_slice(&saved.pipe_flow);
        for (f, &p) in self.feed.iter_mut().zip(&saved.pipe_pressure) {
            f[2] = p;
        }
        Ok(())
    }
}

/// Twin of the passes' `top_cell` (pipe_rain.wgsl, pipe_edits.wgsl) and `top_layer`
/// (spray.wgsl), three copies there since a WGSL helper cannot take the storage array and build.rs
/// validates each imported file alone: the layer of a column's top cell, the one open to the
/// sky, from its cells' geometry bottom up.
pub fn top_cell(column: &[[i32; 2]]) -> usize {
    (1..column.len()).rfind(|&a| column[a][0] != SKY).unwrap_or(0)
}

/// `surface` of column `c`: the top of its highest water, or its top floor where it holds none
/// there (units).
pub fn surface_units(p: &PipeParams, s: &PipeState, c: usize) -> i32 {
    let l = p.layers as usize;
    let mut top = s.geometry[c * l][0];
    for a in 0..l {
        let g = s.geometry[c * l + a];
        if g[0] == SKY {
            break;
        }
        let w = s.water[c * l + a];
        if w > 0 {
            top = g[0] + (w as i32).min(g[1] - g[0]);
        }
        if g[1] == SKY {
            top = top.max(g[0]);
        }
    }
    top
}

/// Twin of `probe` (pipes.wgsl): what probe entry `entry` reads (probe_entry.wgsl): its column's
/// surface h − ref in metres, or its unit discharge along x or y (m²/s: each cell's water times
/// its mean velocity, over the column's cells).
pub fn probe(p: &PipeParams, s: &PipeState, entry: u32) -> f32 {
    use crate::engine::sections::{CELL_MASK, KIND_SHIFT, QX};
    let c = (entry & CELL_MASK) as usize;
    let surface = surface_units(p, s, c) as f32 * p.quantum;
    let kind = entry >> KIND_SHIFT;
    if kind == 0 {
        return surface;
    }
    let l = p.layers as usize;
    let axis = usize::from(kind != QX);
    (0..l).fold(0.0, |q, a| {
        q + s.water[c * l + a] as f32 * p.quantum * s.vel[c * l + a][axis]
    })
}

/// Each column's depth-averaged velocity (u, v), m/s: its cells' mean velocities weighted by
/// their water (0 where dry), as `--velocity` writes it.
pub fn velocities(s: &PipeState) -> Vec<[f32; 2]> {
    let l = s.layers;
    (0..s.columns())
        .map(|c| {
            let (mut q, mut w) = ([0.0f32; 2], 0.0f32);
            for a in 0..l {
                let units = s.water[c * l + a] as f32;
                let v = s.vel[c * l + a];
                q = [q[0] + units * v[0], q[1] + units * v[1]];
                w += units;
            }
            if w > 0.0 {
                [q[0] / w, q[1] / w]
            } else {
                [0.0; 2]
            }
        })
        .collect()
}

/// h − ref in metres of every column (`surface`).
pub fn surface(p: &PipeParams, s: &PipeState) -> Vec<f32> {
    (0..p.columns as usize)
        .map(|c| surface_units(p, s, c) as f32 * p.quantum)
        .collect()
}
