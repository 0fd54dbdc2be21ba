//! The shallow-water model's state, shared by both backends: the surface and the two discharges
//! per cell, struct of arrays as the GPU holds them.

use crate::engine::solver::SolverState;
use crate::error::{Error, Result};

/// The conserved variables per cell: the surface eta = h − ref (so a lake at rest is the same bits
/// in every wet cell, and float32 keeps small waves on deep water), and the discharges qx = d·u,
/// qy = d·v (m²/s). A dry cell's eta is its ground's exactly. `carry`: the rounding the water
/// fed to each cell (rain, sources: `cpu::sw_feed`) has yet to give its surface, m.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwState {
    pub eta: Vec<f32>,
    pub qx: Vec<f32>,
    pub qy: Vec<f32>,
    pub carry: Vec<f32>,
    /// `[infiltration]`'s state per cell (`engine::infiltration::SOIL_FLOATS` each; empty
    /// without): the depth taken so far and its rounding, the law's count and its rounding.
    pub soil: Vec<f32>,
}

impl SwState {
    /// Water with surface `eta` over `ground` (both h − ref), moving at `velocity` (u, v per cell,
    /// m/s; empty: at rest). A cell at or below its ground starts dry, its eta set to the ground.
    pub fn new(eta: &[f32], ground: &[f32], velocity: &[[f32; 2]]) -> SwState {
        let eta: Vec<f32> = eta.iter().zip(ground).map(|(&e, &b)| e.max(b)).collect();
        let depth = |c: usize| eta[c] - ground[c];
        let q = |k: usize| -> Vec<f32> {
            (0..eta.len())
                .map(|c| velocity.get(c).map_or(0.0, |v| depth(c) * v[k]))
                .collect()
        };
        SwState {
            qx: q(0),
            qy: q(1),
            carry: vec![0.0; eta.len()],
            soil: Vec::new(),
            eta,
        }
    }

    /// Each cell's depth-averaged velocity (u, v), m/s, over `ground`: the desingularised one the
    /// fluxes use (`velocity`), 0 where dry.
    pub fn velocities(&self, film: f32, ground: &[f32]) -> Vec<[f32; 2]> {
        (0..self.cells())
            .map(|c| {
                let h = (self.eta[c] - ground[c]).max(0.0);
                if h <= 0.0 {
                    return [0.0, 0.0];
                }
                [velocity(self.qx[c], h, film), velocity(self.qy[c], h, film)]
            })
            .collect()
    }

    /// Cells.
    pub fn cells(&self) -> usize {
        self.eta.len()
    }

    /// What a checkpoint keeps: the surface, the discharges and the carry.
    pub fn save(&self) -> SolverState {
        SolverState {
            eta: self.eta.clone(),
            sw_qx: self.qx.clone(),
            sw_qy: self.qy.clone(),
            sw_carry: self.carry.clone(),
            soil: self.soil.clone(),
            ..SolverState::default()
        }
    }

    /// The state a checkpoint kept, for a backend built from the same scene.
    pub fn load(&mut self, saved: &SolverState) -> Result<()> {
        let n = self.cells();
        if saved.eta.len() != n || saved.sw_qx.len() != n || saved.sw_qy.len() != n {
            return Err(Error::Unsupported(format!(
                "the shallow-water state holds {} cells, the saved state {}",
                n,
                saved.eta.len()
            )));
        }
        self.eta.clone_from(&saved.eta);
        self.qx.clone_from(&saved.sw_qx);
        self.qy.clone_from(&saved.sw_qy);
        // A checkpoint from before the feeds holds no carry: none was kept then.
        if saved.sw_carry.len() == n {
            self.carry.clone_from(&saved.sw_carry);
        } else {
            self.carry.fill(0.0);
        }
        if saved.soil.len() == self.soil.len() {
            self.soil.clone_from(&saved.soil);
        } else {
            return Err(Error::Unsupported(format!(
                "the shallow-water infiltration state holds {} values, the saved state {}",
                self.soil.len(),
                saved.soil.len()
            )));
        }
        Ok(())
    }
}

/// Each cell's discharge `q` after an edit (`Simulation::edit`) moved its depth from `before` to
/// `after`: water a splash adds comes at rest (the discharge stays, so the cell slows by the depth
/// it gains, as the water `sw_feed` brings does); water a trough takes leaves with its velocity
/// (the discharge scaled by the share of the depth left, as a drain's does), so no edit speeds a
/// cell up; a cell left dry is at rest. A brush keeps each depth, so its discharges stay.
pub fn edited_discharges(before: &[f32], after: &[f32], q: &mut [f32]) {
    for ((q, &d0), &d1) in q.iter_mut().zip(before).zip(after) {
        if d1 <= 0.0 {
            *q = 0.0;
        } else if d1 < d0 {
            *q *= d1 / d0;
        }
    }
}

/// Twin of WGSL `velocity` (sw_velocity.wgsl), kept beside the state so that the twin and the
/// outputs read one definition: the desingularised velocity of discharge `q` over depth `h`, q/h
/// on water at least `film` deep, 2·q·h/(h² + film²) under it (Kurganov & Petrova's), which goes
/// to 0 with the depth.
pub fn velocity(q: f32, h: f32, film: f32) -> f32 {
    if h >= film {
        q / h
    } else {
        2.0 * q * h / (h * h + film * film)
    }
}
