//! Air pressure on the surface (SCENE.md `[[pressure]]`): patches, still or moving, whose
//! pressure p pushes the water as a head p/(ρ·g) added to the surface in the height field's slope
//! (the shallow-water momentum equation with an atmospheric term: ∂u/∂t = −g·∇(h + p/(ρg))). At
//! rest under a steady patch, h + p/(ρg) is level: a low of −100 Pa raises the water 1.02 cm
//! (the inverse barometer). A patch moving faster than √(g·d) leaves a Kelvin-like wedge.
//!
//! The host places each patch at each step's middle, t = (n − ½)·dt, in f64 (a path's time never
//! rounds in f32), and hands the backends a [`Patch`] per patch per step; `pressure.wgsl` (twin
//! `cpu::pressure`) evaluates the head field from them once per step.

use crate::scene::{PressureShape, Scene};
use bytemuck::{Pod, Zeroable};

/// One patch at one step, in cell units; mirrors WGSL `Patch` (pressure.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Patch {
    /// Centre, in cells (x / dx): a cell (i, j) has its centre at (i + ½, j + ½).
    pub x: f32,
    pub y: f32,
    /// Head at the centre, p/(ρ·g), m.
    pub head: f32,
    /// `crate::wgsl::pressure::SHAPE_GAUSSIAN` or `SHAPE_BOX`.
    pub shape: u32,
    /// Gaussian: 1/(2σ²) in cells⁻²; box: half its extent along x in cells.
    pub a: f32,
    /// Box: half its extent along y in cells; unused for a Gaussian.
    pub b: f32,
    pub _pad: [u32; 2],
}

/// The scene's patches, ready to place at any step.
#[derive(Clone, Debug, Default)]
pub struct Patches {
    patches: Vec<crate::scene::Pressure>,
    /// ρ·g, Pa per metre of head.
    weight: f64,
    dx: f64,
    dt: f64,
}

impl Patches {
    /// The scene's `[[pressure]]` (validated: shapes sized, paths in time order).
    pub fn new(scene: &Scene) -> Patches {
        Patches {
            patches: scene.pressure.clone(),
            weight: scene.physics.water_density * scene.physics.gravity,
            dx: scene.grid.dx,
            dt: scene.time.dt,
        }
    }

    /// How many patches.
    pub fn len(&self) -> usize {
        self.patches.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.patches.is_empty()
    }

    /// Every patch during steps `first + 1 ..= first + steps`: `steps × len()`, row per step.
    pub fn chunk(&self, first: u64, steps: u32) -> Vec<Patch> {
        let mut out = Vec::with_capacity(steps as usize * self.patches.len());
        for k in 0..steps {
            let t = ((first + k as u64) as f64 + 0.5) * self.dt;
            out.extend(self.patches.iter().map(|p| self.place(p, t)));
        }
        out
    }

    /// Patch `p` at time `t`.
    fn place(&self, p: &crate::scene::Pressure, t: f64) -> Patch {
        let (x, y) = centre(p, t);
        let (shape, a, b) = match p.shape {
            PressureShape::Gaussian => {
                let sigma = p.radius.unwrap_or(1.0) / self.dx;
                (crate::wgsl::pressure::SHAPE_GAUSSIAN, 1.0 / (2.0 * sigma * sigma), 0.0)
            }
            PressureShape::Box => {
                let [sx, sy] = p.size.unwrap_or([self.dx; 2]);
                (crate::wgsl::pressure::SHAPE_BOX, 0.5 * sx / self.dx, 0.5 * sy / self.dx)
            }
        };
        Patch {
            x: (x / self.dx) as f32,
            y: (y / self.dx) as f32,
            head: (p.strength / self.weight) as f32,
            shape,
            a: a as f32,
            b: b as f32,
            _pad: [0; 2],
        }
    }
}

/// Where a patch's centre stands at time `t`: on its path (linear between rows, held before the
/// first and after the last), or moved from (x, y) at its velocity.
fn centre(p: &crate::scene::Pressure, t: f64) -> (f64, f64) {
    if let Some(first) = p.path.first() {
        let after = p.path.partition_point(|row| row[0] <= t);
        return match (after.checked_sub(1).map(|i| p.path[i]), p.path.get(after)) {
            (Some(a), Some(b)) => {
                let s = (t - a[0]) / (b[0] - a[0]);
                (a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s)
            }
            (Some(a), None) => (a[1], a[2]),
            _ => (first[1], first[2]),
        };
    }
    let [vx, vy] = p.velocity.unwrap_or([0.0, 0.0]);
    (p.x + vx * t, p.y + vy * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_moves_on_its_path_or_at_its_velocity() {
        let mut p = crate::scene::Pressure {
            shape: PressureShape::Gaussian,
            x: 1.0,
            y: 2.0,
            radius: Some(0.5),
            size: None,
            strength: -100.0,
            velocity: Some([2.0, -1.0]),
            path: Vec::new(),
        };
        assert_eq!(centre(&p, 0.5), (2.0, 1.5));
        p.path = vec![[1.0, 0.0, 0.0], [3.0, 4.0, 2.0]];
        assert_eq!(centre(&p, 0.0), (0.0, 0.0));
        assert_eq!(centre(&p, 2.0), (2.0, 1.0));
        assert_eq!(centre(&p, 9.0), (4.0, 2.0));
    }
}
