//! Rain (SCENE.md `[rain]`): drops at random places and times, reproducible from the seed.
//!
//! Step n's drops come from a PCG stream keyed by (seed, n) alone, so a run gives the same drops
//! however its steps are split into chunks (or resumed). Each drop is a Gaussian of peak `height`
//! and sigma `radius`, cut at 3 sigma; the host rasterises a chunk's drops into (cell, height)
//! entries, one per cell per step (overlapping drops summed, with the hydrographs' entries:
//! `crate::engine::feeds`), so the GPU adds exactly these f32 values with no two threads on one cell, and
//! the volume target adds exactly their sum.

use crate::scene::{Grid, Rain};
use bytemuck::{Pod, Zeroable};
use rand::Rng;
use rand_distr::{Distribution, Poisson};
use std::collections::BTreeMap;

/// One step's entries in a [`RainChunk`]; mirrors WGSL `RainStep` (volume.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RainStep {
    pub start: u32,
    pub count: u32,
    /// Water this step adds: drops, hydrographs, rainfall (metres·cells), whichever chunk it
    /// falls in.
    pub added: f32,
    /// The rainfall's height this step at a map share of 1, m (`crate::engine::feeds`).
    pub rainfall: f32,
}

/// A chunk's rain: `steps[k]` names step k's entries in `cells`/`heights`.
#[derive(Clone, Debug, Default)]
pub struct RainChunk {
    /// Each step's run of entries.
    pub steps: Vec<RainStep>,
    /// Each entry's cell (row-major), one per cell per step.
    pub cells: Vec<u32>,
    /// Each entry's height (metres), overlapping drops summed.
    pub heights: Vec<f32>,
    /// Σ heights over the chunk (metres·cells), in f64.
    pub total: f64,
}

/// Drop centres (x, y) falling during step `step` (1-based: the step that ends at step·dt).
pub fn drops(rain: &Rain, grid: &Grid, dt: f64, step: u64) -> Vec<(f64, f64)> {
    let mut rng = rand_pcg::Pcg64::new(rain.seed as u128, step as u128);
    let mean = rain.rate * dt;
    let count = if mean > 0.0 {
        Poisson::new(mean).map(|p| p.sample(&mut rng) as u64).unwrap_or(0)
    } else {
        0
    };
    let (wx, wy) = (grid.nx as f64 * grid.dx, grid.ny as f64 * grid.dx);
    (0..count)
        .map(|_| (rng.random::<f64>() * wx, rng.random::<f64>() * wy))
        .collect()
}

/// Step `step`'s drops rasterised into `cells` (cell → height, overlapping drops summed).
pub fn step_drops(rain: &Rain, grid: &Grid, dt: f64, step: u64, cells: &mut BTreeMap<u32, f64>) {
    let sigma = rain.radius;
    let reach = (3.0 * sigma / grid.dx).ceil() as i64;
    for (x, y) in drops(rain, grid, dt, step) {
        let (ci, cj) = ((x / grid.dx).floor() as i64, (y / grid.dx).floor() as i64);
        for j in (cj - reach).max(0)..=(cj + reach).min(grid.ny as i64 - 1) {
            for i in (ci - reach).max(0)..=(ci + reach).min(grid.nx as i64 - 1) {
                let (cx, cy) = ((i as f64 + 0.5) * grid.dx, (j as f64 + 0.5) * grid.dx);
                let r2 = (cx - x).powi(2) + (cy - y).powi(2);
                if r2 <= 9.0 * sigma * sigma {
                    let h = rain.height * (-r2 / (2.0 * sigma * sigma)).exp();
                    *cells.entry((j * grid.nx as i64 + i) as u32).or_default() += h;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_and_step_give_the_same_drops() {
        let rain = Rain {
            rate: 40.0,
            radius: 0.05,
            height: 0.01,
            seed: 7,
        };
        let grid = Grid {
            nx: 64,
            ny: 48,
            dx: 0.02,
        };
        let cells = |rain: &Rain, step| {
            let mut cells = BTreeMap::new();
            step_drops(rain, &grid, 0.01, step, &mut cells);
            cells
        };
        let rained: usize = (1..=20).map(|n| cells(&rain, n).len()).sum();
        assert!(rained > 0, "40 drops/s for 0.2 s should rain");
        assert_eq!(cells(&rain, 13), cells(&rain, 13));
        let other = Rain { seed: 8, ..rain };
        assert!(
            (1..=20).any(|n| cells(&rain, n) != cells(&other, n)),
            "seeds 7 and 8 rained alike"
        );
    }
}
