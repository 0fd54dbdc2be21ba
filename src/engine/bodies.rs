//! Rigid bodies as the passes hold them: the mirrors of `wgsl/bodies_common.wgsl`, the scene's
//! `[[body]]` entries turned into mass properties and poses, and the rows of bodies.csv.

use crate::scene::{CouplingMethod, Scene};
use bytemuck::{Pod, Zeroable};

/// Mirror of WGSL `Body` (144 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyState {
    /// Centre x, y (metres) and z − ref; w: mass (kg).
    pub position: [f32; 4],
    /// Unit quaternion (x, y, z, w), body frame to world.
    pub rotation: [f32; 4],
    /// Linear velocity, m/s.
    pub velocity: [f32; 4],
    /// Angular velocity in the world frame, rad/s.
    pub spin: [f32; 4],
    /// Half extents (box) or semi-axes (ellipsoid).
    pub half: [f32; 4],
    /// Principal moments of inertia, body frame.
    pub inertia: [f32; 4],
    /// Waterline − ref (−`NO_BODY` when dry), displaced m³, submerged share, contact cells.
    pub contact: [f32; 4],
    /// Cells i0, j0, i1, j1 (inclusive) its footprint may cover; i0 > i1 when none.
    pub rect: [u32; 4],
    /// `SHAPE_*`, `MOTION_*`, 1 while flooded (wholly under water), 0.
    pub kind: [u32; 4],
}

/// `BodyState::kind` shapes and motions, `BodyParams::method` (from `wgsl/bodies_common.wgsl`).
pub use crate::wgsl::body::{
    COUPLING_JACOBI, COUPLING_PCG, LOADS_COLUMNS, LOADS_CURRENT, LOADS_LAYER, MOTION_FIXED, MOTION_FREE,
    MOTION_KINEMATIC, SHAPE_BOX, SHAPE_ELLIPSOID,
};
/// `Cover::bottom` of a column no body covers.
pub use crate::wgsl::cover::NO_BODY;
/// `Cover::owner` bit of a cell whose water the coupling expels.
pub use crate::wgsl::cover::TAGGED;

/// Mirror of WGSL `BodyParams` (64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyParams {
    /// Bodies in the scene.
    pub count: u32,
    /// PCG iterations or Jacobi sweeps per step.
    pub iterations: u32,
    /// `COUPLING_PCG` or `COUPLING_JACOBI`.
    pub method: u32,
    /// Where the water's forces come from: `LOADS_COLUMNS` (the displaced columns, still
    /// water), `LOADS_LAYER` (the Navier-Stokes layer's loads, `ns_bodies.wgsl`) or
    /// `LOADS_CURRENT` (the heads a body presses the shallow-water model's water with, drag
    /// against its velocity: `sw_bodies.wgsl`).
    pub loads: u32,
    /// Step length, s.
    pub dt: f32,
    /// m/s².
    pub gravity: f32,
    /// kg/m³.
    pub water_density: f32,
    /// Cell side, m.
    pub dx: f32,
    /// GAMES103's gamma.
    pub relaxation: f32,
    /// PCG's relative residual to stop at.
    pub tolerance: f32,
    /// Quadratic drag coefficient C_d.
    pub drag: f32,
    /// Angular drag per second.
    pub angular_drag: f32,
    /// Domain extent along x, m.
    pub width: f32,
    /// Domain extent along y, m.
    pub height: f32,
    /// The most cells one body's coupling box can hold (`box_cells`).
    pub box_cells: u32,
    /// 1: the model takes `Cover::held` as a pressure head on its water (`WaterModel::presses_bodies`): `footprint`
    /// leaves the surface alone and no coupling solve runs.
    pub pressed: u32,
}

/// Mirror of WGSL `Cover` (16 bytes): what covers one column.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Cover {
    /// The lowest body underside over the column, − ref (`NO_BODY` when none).
    pub bottom: f32,
    /// That body's top over the column, − ref.
    pub top: f32,
    /// Body index + 1 (0: none), with the `TAGGED` bit when the coupling expels its water.
    pub owner: u32,
    /// The body volume below the waterline the column holds, metres.
    pub held: f32,
}

impl Default for Cover {
    fn default() -> Self {
        Cover {
            bottom: NO_BODY,
            top: NO_BODY,
            owner: 0,
            held: 0.0,
        }
    }
}

impl Cover {
    /// The covering body's index + 1, 0 when none.
    pub fn owner(&self) -> u32 {
        self.owner & !TAGGED
    }
    /// Whether the coupling expels this column's water.
    pub fn tagged(&self) -> bool {
        self.owner & TAGGED != 0
    }
}

/// Mirror of WGSL `Solve` (64 bytes): the coupling solve's box and scalars.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Solve {
    pub box_min: [u32; 2],
    pub box_max: [u32; 2],
    pub origin: [u32; 2],
    pub end: [u32; 2],
    pub groups_x: u32,
    pub groups: u32,
    pub rz: f32,
    pub rr0: f32,
    pub rr: f32,
    pub alpha: f32,
    pub iterations: u32,
    pub converged: u32,
}

impl Default for Solve {
    fn default() -> Self {
        Solve {
            box_min: [u32::MAX; 2],
            ..Zeroable::zeroed()
        }
    }
}

/// Mirror of WGSL `Cluster` (48 bytes), one per body after `Solve`: body k's tagged box, then
/// the box and solve of the cluster `plan` puts in slot k.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Cluster {
    pub min: [u32; 2],
    pub max: [u32; 2],
    pub origin: [u32; 2],
    pub end: [u32; 2],
    pub rr0: f32,
    pub rr: f32,
    pub iterations: u32,
    pub _pad: u32,
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster {
            min: [u32::MAX; 2],
            ..Zeroable::zeroed()
        }
    }
}

impl Solve {
    /// The coupling solve buffer's first contents: the head, then `bodies` empty clusters.
    pub fn with_clusters(bodies: usize) -> Vec<u8> {
        let mut bytes = bytemuck::bytes_of(&Solve::default()).to_vec();
        for _ in 0..bodies {
            bytes.extend_from_slice(bytemuck::bytes_of(&Cluster::default()));
        }
        bytes
    }

    /// The last step's relative residual |r|/|b| (0 when nothing was expelled).
    pub fn residual(&self) -> f32 {
        if self.rr0 > 0.0 {
            (self.rr / self.rr0).sqrt()
        } else {
            0.0
        }
    }
}

/// Floats per body per step in the history: position, (qw, qx, qy, qz), velocity, waterline,
/// displaced volume.
pub const HISTORY_FLOATS: usize = 12;

impl BodyParams {
    /// The bodies' uniforms for `scene`.
    pub fn new(scene: &Scene) -> BodyParams {
        let p = &scene.physics;
        let g = &scene.grid;
        let iterations = p.coupling_iterations();
        BodyParams {
            count: scene.bodies.len() as u32,
            iterations: match p.coupling {
                CouplingMethod::Pcg => iterations,
                CouplingMethod::Jacobi => iterations.div_ceil(2) * 2,
            },
            method: match p.coupling {
                CouplingMethod::Pcg => COUPLING_PCG,
                CouplingMethod::Jacobi => COUPLING_JACOBI,
            },
            loads: match p.model {
                crate::scene::WaterModel::NavierStokes => LOADS_LAYER,
                m if m.presses_bodies() => LOADS_CURRENT,
                _ => LOADS_COLUMNS,
            },
            dt: scene.time.dt as f32,
            gravity: p.gravity as f32,
            water_density: p.water_density as f32,
            dx: g.dx as f32,
            relaxation: p.coupling_relaxation as f32,
            tolerance: p.coupling_tolerance as f32,
            drag: p.body_drag as f32,
            angular_drag: p.body_angular_drag as f32,
            width: (g.nx as f64 * g.dx) as f32,
            height: (g.ny as f64 * g.dx) as f32,
            box_cells: box_cells(scene),
            pressed: p.model.presses_bodies() as u32,
        }
    }

    /// Whether `coupling.wgsl`'s `solo` (a workgroup per cluster of bodies) always solves the
    /// coupling: no body's box outgrows its workgroup memory and `plan` clusters every body. Then
    /// a step records it alone, without the passes over the whole box.
    pub fn always_solo(&self) -> bool {
        self.box_cells <= crate::wgsl::coupling::SOLO && self.count <= crate::wgsl::coupling::MAX_CLUSTERS
    }
}

/// The most cells one body's coupling box (its tagged cells and one more on each side) can hold,
/// the largest of the scene's bodies. A body's tagged cells lie in the cells whose centres its
/// horizontal extent covers, at most ⌊2R/dx⌋ + 1 a side with R its bounding sphere's radius
/// (whatever its rotation): half a box's diagonal, an ellipsoid's largest semi-axis; the box adds
/// one each side, and one more covers rounding.
pub fn box_cells(scene: &Scene) -> u32 {
    let g = &scene.grid;
    let one = |body: &crate::scene::Body| {
        one_body_box_cells(
            body.shape == crate::scene::BodyShape::Sphere,
            body.size,
            g.dx,
            g.nx,
            g.ny,
        )
    };
    let cells = scene.bodies.iter().map(one).max().unwrap_or(0);
    cells.min(u32::MAX as u64) as u32
}

/// `box_cells` for one body of `size` (a box's extents, or an ellipsoid's diameters).
fn one_body_box_cells(ellipsoid: bool, size: [f64; 3], dx: f64, nx: u32, ny: u32) -> u64 {
    let radius = if ellipsoid {
        0.5 * size.iter().fold(0.0f64, |a, &s| a.max(s))
    } else {
        0.5 * size.iter().map(|s| s * s).sum::<f64>().sqrt()
    };
    let side = (2.0 * radius / dx).floor() as u64 + 4;
    side.min(nx as u64) * side.min(ny as u64)
}

/// One row of bodies.csv: a body after a step, heights absolute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodySample {
    /// Centre, metres, z absolute.
    pub position: [f64; 3],
    /// (w, x, y, z).
    pub orientation: [f64; 4],
    /// m/s.
    pub velocity: [f64; 3],
    /// The mean surface around the body (absolute), NaN when no water touches it.
    pub waterline: f64,
    /// Water displaced, m³.
    pub displaced: f64,
}

impl BodySample {
    /// From one history entry of `HISTORY_FLOATS` floats.
    pub fn from_history(h: &[f32], reference: f64) -> BodySample {
        let f = |k: usize| h[k] as f64;
        BodySample {
            position: [f(0), f(1), f(2) + reference],
            orientation: [f(3), f(4), f(5), f(6)],
            velocity: [f(7), f(8), f(9)],
            waterline: if h[10] > -1e37 { f(10) + reference } else { f64::NAN },
            displaced: f(11),
        }
    }

    /// The history entry of a state (step 0's row).
    pub fn of(state: &BodyState, reference: f64) -> BodySample {
        let [px, py, pz, _] = state.position;
        let [qx, qy, qz, qw] = state.rotation;
        let [vx, vy, vz, _] = state.velocity;
        let h = [
            px,
            py,
            pz,
            qw,
            qx,
            qy,
            qz,
            vx,
            vy,
            vz,
            state.contact[0],
            state.contact[1],
        ];
        BodySample::from_history(&h, reference)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cpu::coupling::SolveBox;
    use crate::engine::params::Params;

    /// The bound `always_solo` trusts: whatever a body's rotation and position, the box the
    /// coupling solves over (its rect grown by a cell) holds no more cells than `box_cells` says.
    #[test]
    fn one_bodys_box_never_holds_more_cells_than_its_bound() {
        let (nx, ny, dx) = (200u32, 200u32, 0.02f32);
        let p = Params {
            nx,
            ny,
            ..Params::default()
        };
        // A fixed stream of rotations and offsets (a simple LCG), boxes and ellipsoids.
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f32 / (1u64 << 53) as f32
        };
        for (kind, size) in [
            (SHAPE_BOX, [0.3f32, 0.2, 0.15]),
            (SHAPE_BOX, [0.6, 0.6, 0.3]),
            (SHAPE_BOX, [0.1, 0.6, 0.1]),
            (SHAPE_ELLIPSOID, [0.25, 0.25, 0.25]),
            (SHAPE_ELLIPSOID, [0.5, 0.1, 0.3]),
        ] {
            let bound = one_body_box_cells(kind == SHAPE_ELLIPSOID, size.map(f64::from), dx as f64, nx, ny);
            let mut largest = 0u64;
            for _ in 0..20_000 {
                let q = glam::Quat::from_xyzw(next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5).normalize();
                let state = BodyState {
                    position: [1.0 + next() * dx, 1.0 + next() * dx, 0.0, 1.0],
                    rotation: q.to_array(),
                    half: [0.5 * size[0], 0.5 * size[1], 0.5 * size[2], 0.0],
                    kind: [kind, MOTION_FREE, 0, 0],
                    ..Zeroable::zeroed()
                };
                let r = crate::engine::cpu::bodies::rect(&state, nx, ny, dx);
                let b = SolveBox::new(&p, r).expect("a box");
                let cells = (b.end[0] + 1 - b.origin[0]) as u64 * (b.end[1] + 1 - b.origin[1]) as u64;
                largest = largest.max(cells);
            }
            assert!(largest <= bound, "{size:?}: a box of {largest} cells, bound {bound}");
            // Nor loose by much (a long thin body cannot span its length both ways at once).
            assert!(2 * largest >= bound, "{size:?}: {largest} cells against {bound}");
        }
    }
}

/// How the last coupling solve went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveReport {
    /// PCG iterations, or Jacobi sweeps.
    pub iterations: u32,
    /// |r|/|b| as the solver tracks it (PCG's recurrence; Jacobi computes it at the end).
    pub residual: f32,
}

/// The tagged cells' bounding box (min i, min j, max i, max j), as `footprint`'s atomics leave it.
pub type TagBox = [u32; 4];

pub const EMPTY_BOX: TagBox = [u32::MAX, u32::MAX, 0, 0];
