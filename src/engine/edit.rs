//! Host edits between steps (`Water::brush`, `Water::disturb`): the mirror of WGSL `HostEdit`
//! (`wgsl/edit.wgsl`), shared by the GPU pass and its CPU twin (`cpu::edit`).

use bytemuck::{Pod, Zeroable};

/// `HostEdit::kind`: raise (or lower) the ground, carrying the water on it (`EDIT_BRUSH`), or
/// add water at rest (`EDIT_DISTURB`).
pub use crate::wgsl::host_edit::{EDIT_BRUSH, EDIT_DISTURB};

/// Mirror of WGSL `HostEdit` (32 bytes): a bump of `amount` metres at the centre, (1 − r²/R²)².
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct HostEdit {
    /// Centre in cell units: cell (i, j)'s centre is at (i, j).
    pub x: f32,
    /// See `x`.
    pub y: f32,
    /// Radius in cells.
    pub radius: f32,
    /// Peak height, metres.
    pub amount: f32,
    /// `EDIT_BRUSH` (moves ground and water) or `EDIT_DISTURB` (water only).
    pub kind: u32,
    /// Padding.
    pub _pad: [u32; 3],
}

impl HostEdit {
    /// An edit centred at (x, y) metres (SCENE.md coordinates) with a radius in metres.
    pub fn at(kind: u32, x: f64, y: f64, radius: f64, amount: f64, dx: f64) -> HostEdit {
        HostEdit {
            x: (x / dx - 0.5) as f32,
            y: (y / dx - 0.5) as f32,
            radius: (radius / dx) as f32,
            amount: amount as f32,
            kind,
            _pad: [0; 3],
        }
    }

    /// The bump's weight at cell (i, j), as `bump` in edit.wgsl computes it.
    pub fn weight(&self, i: usize, j: usize) -> f32 {
        let r = self.radius.max(1e-6);
        let (dx, dy) = ((i as f32 - self.x) / r, (j as f32 - self.y) / r);
        let q = (1.0 - (dx * dx + dy * dy)).max(0.0);
        q * q
    }
}
