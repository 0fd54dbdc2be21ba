//! Seed 004's spray on the host side: the particle and the uniforms of `wgsl/spray.wgsl`, and
//! what a chunk reports of the particles. The passes are `cpu::spray` and `gpu::spray`.

use crate::models::pipes::columns::Columns;
use crate::scene::Scene;
use bytemuck::{Pod, Zeroable};

pub use crate::wgsl::spray::{MOST_PER_FACE, SCAN_BLOCK};

/// Mirror of WGSL `Particle` (spray.wgsl): 32 bytes, for an embedding renderer's vertex pulling.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Particle {
    /// Metres from the domain's corner (x, y) and the reference level (z).
    pub pos: [f32; 3],
    /// The water it carries, in the columns' units.
    pub units: u32,
    /// m/s.
    pub vel: [f32; 3],
    /// Seconds since it left its column.
    pub age: f32,
}

/// Mirror of WGSL `SprayParams` (spray.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SprayParams {
    pub nx: u32,
    pub ny: u32,
    pub columns: u32,
    pub layers: u32,
    pub capacity: u32,
    pub base: u32,
    pub blocks: u32,
    pub seed: u32,
    pub first_step: u32,
    pub per_particle: u32,
    pub bc_west: u32,
    pub bc_east: u32,
    pub bc_south: u32,
    pub bc_north: u32,
    pub dx: f32,
    pub dt: f32,
    pub gravity: f32,
    pub quantum: f32,
    pub breaking: f32,
    pub weir: f32,
    pub lifetime: f32,
    pub restitution: f32,
    pub drag: f32,
    pub impact: f32,
    pub least: i32,
    pub overfall: f32,
    pub lip: i32,
    pub _pad: u32,
}

impl SprayParams {
    /// Elements of the scan: the particles' flags padded to a scan block, the columns' counts,
    /// and one more for the total.
    pub fn scan_len(&self) -> usize {
        (self.base + self.columns + 1) as usize
    }
}

/// The spray's uniforms for `scene` over `columns`, or None where `[spray] enabled = false`.
pub fn spray_params(scene: &Scene, columns: &Columns) -> Option<SprayParams> {
    let spray = scene.spray.unwrap_or_default();
    if !spray.enabled {
        return None;
    }
    let g = scene.grid;
    let sides = scene.boundary.sides().run_by(scene.physics.model);
    let n = g.cells() as u32;
    let q = columns.quantum;
    let dt = scene.time.dt;
    let gravity = scene.physics.gravity;
    let cell = g.dx * g.dx * q;
    let most = (u32::MAX / (2 * MOST_PER_FACE)) as f64;
    let base = spray.capacity.div_ceil(SCAN_BLOCK) * SCAN_BLOCK;
    Some(SprayParams {
        nx: g.nx,
        ny: g.ny,
        columns: n,
        layers: columns.layers,
        capacity: spray.capacity,
        base,
        blocks: (base + n + 1).div_ceil(SCAN_BLOCK),
        seed: spray.seed,
        first_step: 0,
        per_particle: (spray.volume(g.dx) / cell).round().clamp(1.0, most) as u32,
        bc_west: sides.west as u32,
        bc_east: sides.east as u32,
        bc_south: sides.south as u32,
        bc_north: sides.north as u32,
        dx: g.dx as f32,
        dt: dt as f32,
        gravity: gravity as f32,
        quantum: q as f32,
        breaking: spray.breaking as f32,
        // (2/3)·B·H^(3/2)·sqrt(2g)·dt with B = dx, over a unit's volume dx²·quantum.
        weir: (2.0 / 3.0 * (2.0 * gravity).sqrt() * dt / (g.dx * q)) as f32,
        lifetime: spray.lifetime as f32,
        restitution: spray.restitution as f32,
        drag: (-spray.drag * dt).exp() as f32,
        // F/A as head: μ·|v| / (ρ·g·dx²), in units.
        impact: (spray.impact / (scene.physics.water_density * gravity * cell)) as f32,
        least: (spray.least(g.dx) / q).round().min(i32::MAX as f64) as i32,
        // Over a free overfall the axial pipe's share of critical flow, (2/3)·sqrt(g)·(2/3)^(3/2)
        // per metre^(3/2) of depth: the pipe yields it to the spray (pipes.wgsl `piped`).
        overfall: (2.0 / 3.0 * (gravity * 8.0 / 27.0).sqrt() * dt / (g.dx * q)) as f32,
        lip: crate::models::pipes::columns::lip_units(scene, columns),
        _pad: 0,
    })
}

/// The particles after a chunk, and what they did during it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SprayReport {
    /// Particles in flight.
    pub count: u32,
    /// The water they carry, units.
    pub units: u64,
    /// Particles made during the chunk.
    pub made: u64,
    /// Particles that ended during the chunk: landed, expired or left the domain.
    pub ended: u64,
    /// Particles not made during the chunk because the buffer was full.
    pub refused: u64,
}

impl SprayReport {
    /// From the tally words (made, ended, refused, units low, units high, count).
    pub fn from_tally(t: &[u32]) -> SprayReport {
        SprayReport {
            made: t[0] as u64,
            ended: t[1] as u64,
            refused: t[2] as u64,
            units: t[3] as u64 | (t[4] as u64) << 32,
            count: t[5],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_particle_and_the_uniforms_mirror_their_wgsl_field_by_field() {
        crate::wgsl::check_mirror(
            "Particle",
            std::mem::size_of::<Particle>(),
            crate::wgsl::fields!(Particle { pos, units, vel, age }),
        );
        crate::wgsl::check_mirror(
            "SprayParams",
            std::mem::size_of::<SprayParams>(),
            crate::wgsl::fields!(SprayParams {
                nx,
                ny,
                columns,
                layers,
                capacity,
                base,
                blocks,
                seed,
                first_step,
                per_particle,
                bc_west,
                bc_east,
                bc_south,
                bc_north,
                dx,
                dt,
                gravity,
                quantum,
                breaking,
                weir,
                lifetime,
                restitution,
                drag,
                impact,
                least,
                overfall,
                lip
            }),
        );
    }
}
