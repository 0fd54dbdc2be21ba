//! Sources, drains, held heights, hydrographs, drops and rainfall on the Navier-Stokes layer's
//! height field: the shallow-water model's feed (`sw_feed.wgsl`, twin `cpu::sw_feed`), run once
//! a step after the layer's substeps (and its spray) on the surface `h` over its ground, both
//! h − ref at the scene's grid. The 3D grid takes the water at its next substep, when it sets its
//! cells from the surface: new water starts at the velocity of the faces it fills.
//!
//! The feed's discharges are stand-ins (zeros: the layer's velocities live on its 3D grid), so a
//! drain or a trough takes its water and nothing else; its carry holds the rounding of each cell's
//! fed water (rain of 1e-7 m a step on a surface metres from the reference level is kept), which
//! checkpoints save as the shallow-water model's (`Field::SwCarry`). Where the layer is fed, its
//! global correction does not run: the fluxes conserve by construction, and the volume follows
//! what the feed gave (`shallow_water::books::fed_target`).

use crate::engine::rain::RainChunk;
use crate::models::shallow_water::cpu::feeding;
use crate::models::shallow_water::setup::SwParams;
use crate::models::shallow_water::state::SwState;

/// The feed's uniforms for a height field of `nx` × `ny` cells under `[rainfall]`'s `mode`
/// (`feeds::RAINFALL_*`) and `[infiltration]`'s `law` (0: none; its parameter planes follow the
/// ground in the stages' buffer, `stages`): the fields `sw_feed.wgsl` reads.
pub fn feed_params(nx: usize, ny: usize, rainfall: u32, law: u32) -> SwParams {
    SwParams {
        nx: nx as u32,
        ny: ny as u32,
        cells: (nx * ny) as u32,
        rainfall,
        infiltration: law,
        soil_at: if law != 0 { (nx * ny) as u32 } else { 0 },
        one: 1.0,
        ..SwParams::default()
    }
}

/// The ground as the feed's stages read it: the ground, then `[infiltration]`'s three parameter
/// planes (`soil`; none without).
pub fn stages(ground: &[f32], soil: &[f32]) -> Vec<f32> {
    [ground, soil].concat()
}

/// The layer's feed on a CPU backend.
pub struct LayerFeed {
    params: SwParams,
    /// `[rainfall]`'s share per cell (empty when uniform).
    share: Vec<f32>,
    /// The water as the feed takes it: the surface lent in for each step (`eta` empty between),
    /// the stand-in discharges and the carry.
    water: SwState,
    /// The fast backend: the rainfall over rayon's pool (the same bits).
    parallel: bool,
    /// The ground and `[infiltration]`'s parameter planes (`stages`; empty without: the
    /// ground each step lends).
    stages: Vec<f32>,
}

impl LayerFeed {
    /// The feed of a height field of `nx` × `ny` cells over `ground`, `[rainfall]`'s `mode` and
    /// `share`, `[infiltration]`'s `law` and parameter planes `soil` (0 and empty without).
    pub fn new(
        nx: usize,
        ny: usize,
        (mode, share): (u32, &[f32]),
        (law, soil): (u32, &[f32]),
        ground: &[f32],
        parallel: bool,
    ) -> LayerFeed {
        let cells = nx * ny;
        LayerFeed {
            params: feed_params(nx, ny, mode, law),
            share: share.to_vec(),
            water: SwState {
                eta: Vec::new(),
                qx: vec![0.0; cells],
                qy: vec![0.0; cells],
                carry: vec![0.0; cells],
                soil: match law {
                    0 => Vec::new(),
                    _ => vec![0.0; crate::engine::infiltration::SOIL_FLOATS * cells],
                },
            },
            parallel,
            stages: match law {
                0 => Vec::new(),
                _ => stages(ground, soil),
            },
        }
    }

    /// Step `k`'s feed of `rain` on the surface `h` over `ground` (`heights`: the chunk's entries,
    /// as `feeding::feed_step` leaves them).
    pub fn step(&mut self, h: &mut Vec<f32>, ground: &[f32], rain: &RainChunk, heights: &mut [f32], k: usize) {
        std::mem::swap(h, &mut self.water.eta);
        let feeding = feeding::Feeding {
            p: &self.params,
            ground,
            share: &self.share,
            stages: if self.stages.is_empty() { ground } else { &self.stages },
            parallel: self.parallel,
        };
        feeding::feed_step(&feeding, rain, heights, k, &mut self.water);
        std::mem::swap(h, &mut self.water.eta);
    }

    /// The rounding each cell's fed water has yet to give it, m.
    pub fn carry(&self) -> &[f32] {
        &self.water.carry
    }

    /// Restores the carry (a checkpoint's); a carry of another size is left as it is.
    pub fn set_carry(&mut self, carry: &[f32]) {
        if carry.len() == self.water.carry.len() {
            self.water.carry.copy_from_slice(carry);
        }
    }

    /// `[infiltration]`'s state, `SOIL_FLOATS` per cell (empty without).
    pub fn soil(&self) -> &[f32] {
        &self.water.soil
    }

    /// Restores the soil's state (a checkpoint's); one of another size is left as it is.
    pub fn set_soil(&mut self, soil: &[f32]) {
        if soil.len() == self.water.soil.len() {
            self.water.soil.copy_from_slice(soil);
        }
    }
}
