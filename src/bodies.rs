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
    COUPLING_JACOBI, COUPLING_PCG, MOTION_FIXED, MOTION_FREE, MOTION_KINEMATIC, SHAPE_BOX, SHAPE_ELLIPSOID,
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
    /// 1: the water's forces come from the Navier-Stokes layer's loads (`ns_bodies.wgsl`), not
    /// from the displaced columns.
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
    /// Padding.
    pub _pad1: [f32; 2],
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

impl Solve {
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
            loads: (p.model == crate::scene::WaterModel::NavierStokes) as u32,
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
            _pad1: [0.0; 2],
        }
    }
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
