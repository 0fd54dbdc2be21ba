//! The pipes' uniforms (`PipeParams`, mirrored in `wgsl/pipes.wgsl`) for a scene, its columns
//! and its substeps: the columns' numbers, and the spray's that the overfalls read (a module of
//! its own, which both `columns` and `spray` feed).

use crate::models::pipes::columns::{lip_units, Columns, PipeParams, AXIAL_WIDTH, DIAGONAL_WIDTH, SEED_STEP};
use crate::models::pipes::spray::{spray_params, MOST_PER_FACE};
use crate::scene::Scene;

/// The uniforms for `substeps` substeps per step.
pub fn pipe_params(scene: &Scene, columns: &Columns, substeps: u32, n_probes: u32) -> PipeParams {
    let sides = scene.boundary.sides().run_by(scene.physics.model);
    let pipes = scene.pipes.unwrap_or_default();
    let dx = scene.grid.dx;
    let dt = scene.time.dt / substeps as f64;
    PipeParams {
        nx: scene.grid.nx,
        ny: scene.grid.ny,
        layers: columns.layers,
        columns: scene.grid.cells() as u32,
        bc_west: sides.west as u32,
        bc_east: sides.east as u32,
        bc_south: sides.south as u32,
        bc_north: sides.north as u32,
        // The seed's factor per internal step as a rate: per `SEED_STEP` (the seed's, and
        // `[pipes] dt`'s default), so a substep of any length decays by the same amount per
        // second (f^(dt/SEED_STEP)) and the friction depends neither on `[pipes] dt` nor on
        // the substeps the wave rule adds.
        friction: pipes.friction.powf(dt / SEED_STEP) as f32,
        g_quantum: (scene.physics.gravity * columns.quantum) as f32,
        dt_l_axial: (dt / dx) as f32,
        dt_l_diagonal: (dt / (dx * std::f64::consts::SQRT_2)) as f32,
        move_axial: (dt * AXIAL_WIDTH / dx) as f32,
        move_diagonal: (dt * DIAGONAL_WIDTH / dx) as f32,
        still: columns.still,
        slot_shift: columns.slot_shift,
        n_probes,
        quantum: columns.quantum as f32,
        dynamic: if pipes.dynamic_head { 0.5 } else { 0.0 },
        manning: (scene.physics.gravity * scene.physics.manning * scene.physics.manning * dt) as f32,
        // The bodies press the top cells through the air's head (`pipe_bodies.wgsl` `press`).
        air: (!scene.pressure.is_empty() || !scene.bodies.is_empty()) as u32,
        gravity: scene.physics.gravity as f32,
        friction_map: !columns.n2.is_empty() as u32,
        g_dt: (scene.physics.gravity * dt) as f32,
        lip: lip_units(scene, columns),
        ..spray_yield(scene, columns)
    }
}

/// What the pipes read of the spray (`breaking`, `spray_law`, `spray_most`; the other fields
/// default): its breaking criterion, its overfall law and its most units a face a step, or
/// `breaking` −1 where `[spray] enabled = false`.
fn spray_yield(scene: &Scene, columns: &Columns) -> PipeParams {
    match spray_params(scene, columns) {
        Some(spray) => PipeParams {
            breaking: spray.breaking,
            spray_law: spray.overfall,
            spray_most: (MOST_PER_FACE * spray.per_particle) as f32,
            ..PipeParams::default()
        },
        None => PipeParams {
            breaking: -1.0,
            ..PipeParams::default()
        },
    }
}
