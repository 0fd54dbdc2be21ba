//! Twin of `wgsl/sw_maps.wgsl`: the shallow-water model's flood maps beyond the four every model
//! folds (`engine::cpu::summary`): each cell's fastest depth-averaged speed and largest d·|u|
//! (the hazard ratings' depth times velocity) while wet, once at the end of every step.

pub use crate::models::shallow_water::setup::FlowMapParams;
use crate::models::shallow_water::state::{velocity, SwState};

/// Twin of `fold_flow`: `maps` (speed, d·|u| per cell) raised to the state's where it is wet.
pub fn fold_flow(fp: &FlowMapParams, ground: &[f32], s: &SwState, maps: &mut [[f32; 2]]) {
    for (c, m) in maps.iter_mut().enumerate() {
        let d = (s.eta[c] - ground[c]).max(0.0);
        if d > fp.wet_depth {
            let (u, v) = (velocity(s.qx[c], d, fp.film), velocity(s.qy[c], d, fp.film));
            let speed = (u * u + v * v).sqrt();
            *m = [m[0].max(speed), m[1].max(d * speed)];
        }
    }
}
