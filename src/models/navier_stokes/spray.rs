//! Seed 003's spray and foam over the Navier-Stokes layer on the host side: the uniforms of
//! `wgsl/ns_spray.wgsl` (which explains the model) and the slots' meaning. The passes are
//! `cpu::ns_spray` and `gpu::ns_spray`; a particle is the pipes' `spray::Particle`.

use crate::models::pipes::spray::Particle;
use crate::scene::Scene;
use bytemuck::{Pod, Zeroable};

pub use crate::wgsl::ns_spray::{
    FULL_UNITS, IN_FLIGHT, SLOTS, T_ENDED, T_FOAM, T_LEFT, T_MADE, T_REFUSED, T_SPLIT, T_SPRAY,
};

/// Mirror of WGSL `NsSprayParams` (ns_spray.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NsSprayParams {
    pub fnx: u32,
    pub fny: u32,
    pub cells: u32,
    pub first_step: u32,
    pub seed: u32,
    pub leave_west: u32,
    pub leave_east: u32,
    pub leave_south: u32,
    pub leave_north: u32,
    pub dx: f32,
    pub dt: f32,
    pub g: f32,
    pub rise: f32,
    pub unit_h: f32,
    pub per_rise: f32,
    pub lifetime: f32,
    pub foam_life: f32,
    pub split: f32,
    pub drag: f32,
    pub wind_x: f32,
    pub wind_y: f32,
    pub restitution: f32,
    pub _pad: [u32; 2],
}

impl NsSprayParams {
    /// The particle slots: `SLOTS` per height-field cell.
    pub fn slots(&self) -> usize {
        self.cells as usize * SLOTS as usize
    }

    /// m³ of water per unit.
    pub fn unit_volume(&self) -> f64 {
        self.unit_h as f64 * (self.dx as f64).powi(2)
    }
}

/// The layer's spray uniforms for `scene`, or None where the scene has no `[spray]` table (the
/// layer throws spray only when asked) or turns it off.
pub fn ns_spray_params(scene: &Scene) -> Option<NsSprayParams> {
    let spray = scene.spray.filter(|s| s.enabled)?;
    let g = scene.grid;
    let dx = g.dx;
    let dt = scene.time.dt;
    let volume = spray.layer_volume(dx);
    let outflow = scene.navier_stokes.as_ref().map_or(&[][..], |ns| &ns.outflow[..]);
    let leaves = |side: crate::scene::Side| outflow.contains(&side) as u32;
    let [wind_x, wind_y] = spray.wind();
    Some(NsSprayParams {
        fnx: g.nx,
        fny: g.ny,
        cells: g.cells() as u32,
        first_step: 0,
        seed: spray.seed,
        leave_west: leaves(crate::scene::Side::West),
        leave_east: leaves(crate::scene::Side::East),
        leave_south: leaves(crate::scene::Side::South),
        leave_north: leaves(crate::scene::Side::North),
        dx: dx as f32,
        dt: dt as f32,
        g: scene.physics.gravity as f32,
        rise: spray.rise() as f32,
        unit_h: (volume / FULL_UNITS as f64 / (dx * dx)) as f32,
        per_rise: (spray.share() * dt * dx * dx / volume) as f32,
        lifetime: spray.lifetime as f32,
        foam_life: spray.foam() as f32,
        split: (spray.split() * dt).min(1.0) as f32,
        drag: (-spray.drag * dt).exp() as f32,
        wind_x: wind_x as f32,
        wind_y: wind_y as f32,
        restitution: spray.restitution as f32,
        _pad: [0; 2],
    })
}

/// What a slot holds (`wgsl/ns_spray.wgsl`'s `Particle`).
pub fn is_spray(p: &Particle) -> bool {
    p.units > 0
}

/// Foam: no water, life left.
pub fn is_foam(p: &Particle) -> bool {
    p.units == 0 && p.age > 0.0
}

/// The slots' report after a chunk, from the tally words and the units in the air: `made`
/// counts throws and splits, `refused` the throws no free slot took.
pub fn report(tally: &[u32], in_flight: u32) -> crate::models::pipes::spray::SprayReport {
    crate::models::pipes::spray::SprayReport {
        count: tally[T_SPRAY as usize],
        units: in_flight as u64,
        // A split makes a particle too.
        made: tally[T_MADE as usize] as u64 + tally[T_SPLIT as usize] as u64,
        ended: tally[T_ENDED as usize] as u64,
        refused: tally[T_REFUSED as usize] as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spray_uniforms_mirror_their_wgsl_field_by_field() {
        crate::wgsl::check_mirror(
            "NsSprayParams",
            std::mem::size_of::<NsSprayParams>(),
            crate::wgsl::fields!(NsSprayParams {
                fnx,
                fny,
                cells,
                first_step,
                seed,
                leave_west,
                leave_east,
                leave_south,
                leave_north,
                dx,
                dt,
                g,
                rise,
                unit_h,
                per_rise,
                lifetime,
                foam_life,
                split,
                drag,
                wind_x,
                wind_y,
                restitution
            }),
        );
    }
}
