//! One step's feed on a CPU backend, pass by pass as `SwFeed::record` runs them: the twin's
//! functions (`sw_feed`), or on the fast backend their threaded copies (`fast::sw_feed`) where a
//! pass covers every cell. The shallow-water model's, and the Navier-Stokes layer's height
//! field's (`models::navier_stokes::feed`).

use crate::models::shallow_water::cpu::sw_feed;
use crate::models::shallow_water::fast::sw_feed as fast;
use crate::models::shallow_water::setup::SwParams;
use crate::models::shallow_water::state::SwState;

/// What one step's feed reads beside the water (`feed_step`): the uniforms, the ground, the
/// rainfall's map share, the stages' ground holding the soil's parameters (`infiltrate`), and
/// whether the dense passes run on rayon's pool (the fast backend: the same bits).
pub struct Feeding<'a> {
    pub p: &'a SwParams,
    pub ground: &'a [f32],
    pub share: &'a [f32],
    pub stages: &'a [f32],
    pub parallel: bool,
}

/// Step `k`'s feed of `rain` on `s` (`SwFeed::record`, pass by pass): the rainfall, then the
/// entries (their `heights`, a negative one's replaced by what its cell could not give, a held
/// one's by what its cell gained), then what the ground takes. The shallow-water model's, and
/// the Navier-Stokes layer's height field's (`models::navier_stokes::feed`).
pub fn feed_step(f: &Feeding, rain: &crate::engine::rain::RainChunk, heights: &mut [f32], k: usize, s: &mut SwState) {
    let (p, ground) = (f.p, f.ground);
    let step = rain.steps.get(k);
    let height = step.map_or(0.0, |s| s.rainfall);
    if let Some(step) = step {
        if p.rainfall != 0 && step.rainfall > 0.0 {
            if f.parallel {
                fast::rainfall(p, ground, f.share, step.rainfall, s);
            } else {
                sw_feed::rainfall(p, ground, f.share, step.rainfall, s);
            }
        }
        sw_feed::drops(ground, step, &rain.cells, heights, s);
    }
    if p.infiltration != 0 {
        if f.parallel {
            fast::infiltrate(p, ground, f.stages, f.share, height, s);
        } else {
            sw_feed::infiltrate(p, ground, f.stages, f.share, height, s);
        }
    }
}
