//! Where the bodies start: their state from the scene, and the water settled around them. Setup
//! that runs the CPU twins of the body passes once, before the first step, on either backend.

use crate::engine::bodies::{
    BodyParams, BodyState, Cover, MOTION_FIXED, MOTION_FREE, MOTION_KINEMATIC, NO_BODY, SHAPE_BOX, SHAPE_ELLIPSOID,
};
use crate::scene::{BodyShape, Scene};
use glam::{DQuat, EulerRot};

/// The scene's bodies at rest in their initial poses, heights relative to `reference`; `eta` and
/// `ground` (relative too) give each one's first waterline.
pub fn initial(scene: &Scene, reference: f64, eta: &[f32], ground: &[f32]) -> Vec<BodyState> {
    let g = &scene.grid;
    scene
        .bodies
        .iter()
        .map(|b| {
            let half = b.size.map(|s| s / 2.0);
            let (volume, moments) = match b.shape {
                BodyShape::Box => {
                    let [a, bb, c] = b.size;
                    (
                        a * bb * c,
                        [bb * bb + c * c, a * a + c * c, a * a + bb * bb].map(|m| m / 12.0),
                    )
                }
                BodyShape::Sphere => {
                    let [a, bb, c] = half;
                    (
                        4.0 / 3.0 * std::f64::consts::PI * a * bb * c,
                        [bb * bb + c * c, a * a + c * c, a * a + bb * bb].map(|m| m / 5.0),
                    )
                }
            };
            let mass = b.density * volume;
            let [rx, ry, rz] = b.rotation.map(f64::to_radians);
            // x first, then y, then z: R = Rz·Ry·Rx.
            let q = DQuat::from_euler(EulerRot::ZYX, rz, ry, rx).normalize();
            let spin = b.angular_velocity.map(f64::to_radians);
            let inertia = moments.map(|m| (mass * m) as f32);
            let i = ((b.position[0] / g.dx).floor() as usize).min(g.nx as usize - 1);
            let j = ((b.position[1] / g.dx).floor() as usize).min(g.ny as usize - 1);
            let c = j * g.nx as usize + i;
            let waterline = if eta[c] > ground[c] { eta[c] } else { -NO_BODY };
            let mut state = BodyState {
                position: [
                    b.position[0] as f32,
                    b.position[1] as f32,
                    (b.position[2] - reference) as f32,
                    mass as f32,
                ],
                rotation: [q.x as f32, q.y as f32, q.z as f32, q.w as f32],
                velocity: [b.velocity[0] as f32, b.velocity[1] as f32, b.velocity[2] as f32, 0.0],
                spin: [spin[0] as f32, spin[1] as f32, spin[2] as f32, 0.0],
                half: [half[0] as f32, half[1] as f32, half[2] as f32, 0.0],
                inertia: [inertia[0], inertia[1], inertia[2], 0.0],
                contact: [waterline, 0.0, 0.0, 0.0],
                rect: [1, 1, 0, 0],
                kind: [
                    match b.shape {
                        BodyShape::Box => SHAPE_BOX,
                        BodyShape::Sphere => SHAPE_ELLIPSOID,
                    },
                    if b.fixed {
                        MOTION_FIXED
                    } else if b.kinematic {
                        MOTION_KINEMATIC
                    } else {
                        MOTION_FREE
                    },
                    0,
                    0,
                ],
            };
            state.rect = crate::engine::cpu::bodies::rect(&state, g.nx, g.ny, g.dx as f32);
            state.kind[2] = crate::engine::cpu::bodies::starts_flooded(&state) as u32;
            state
        })
        .collect()
}

/// The water the bodies stand in at the start, settled as if they had been lowered in slowly:
/// each column a body pierces holds water only up to the body's underside, each column of a body
/// under the water keeps its water, every covered column holds the body's volume below the
/// waterline (`Cover::held`), and the water that makes room for them raises all the rest evenly. Without this a body placed in the water expels its whole
/// draft in its first steps, with the momentum of a blow: a 20 cm post at once threw a ring of
/// water half a metre high. A model that takes the held volume as a pressure head
/// (`BodyParams::pressed`, the shallow-water model) keeps its surface the water's own: a pierced
/// column's water stands at the underside, a flooded one's where it was. Returns the columns'
/// cover to start from (empty without bodies).
pub fn settle_initial_water(
    params: &crate::engine::params::Params,
    body_params: &BodyParams,
    bodies: &[BodyState],
    ground: &[f32],
    eta: &mut [f32],
) -> Vec<Cover> {
    if bodies.is_empty() {
        return Vec::new();
    }
    let mut cover = vec![Cover::default(); eta.len()];
    let mut probe = eta.to_vec();
    let mut tags = vec![crate::engine::bodies::EMPTY_BOX; bodies.len()];
    crate::engine::cpu::bodies::footprint(params, body_params, bodies, ground, &mut probe, &mut cover, &mut tags);
    // A tagged column keeps its water up to the underside and shows the body's volume above it;
    // a flooded one keeps its surface, the body's volume in it raising the rest. Pressed, the
    // surface shows the water alone: the flooded column's is lowered by the body's volume.
    let mut room = 0.0f64;
    let pressed = body_params.pressed != 0;
    for (e, c) in eta.iter_mut().zip(&cover) {
        if c.tagged() {
            if *e > c.bottom {
                room += (*e - c.bottom) as f64;
                *e = c.bottom + if pressed { 0.0 } else { c.held };
            }
        } else {
            room += c.held as f64;
            if pressed {
                *e -= c.held;
            }
        }
    }
    let open: Vec<usize> = (0..eta.len())
        .filter(|&c| !cover[c].tagged() && eta[c] > ground[c])
        .collect();
    if !open.is_empty() {
        let rise = room / open.len() as f64;
        for c in open {
            eta[c] = (eta[c] as f64 + rise) as f32;
        }
    }
    cover
}
