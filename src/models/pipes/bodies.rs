//! Rigid bodies on the pipes: the uniforms of `wgsl/pipe_bodies.wgsl` (its passes are
//! `cpu/pipe_bodies.rs` and `gpu/pipe_bodies.rs`). The bodies press their columns' top cells with
//! their weight, as on the shallow-water model (`BodyParams::pressed`).

use bytemuck::{Pod, Zeroable};

/// Mirror of WGSL `PressGrid` (pipe_bodies.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PressGrid {
    pub nx: u32,
    pub ny: u32,
    pub columns: u32,
    pub layers: u32,
    /// Metres per unit.
    pub quantum: f32,
    /// 1 with `[[pressure]]` patches: their head stands in the plane before `press` adds to it.
    pub patched: u32,
    pub _pad0: u32,
    pub _pad1: u32,
}

impl PressGrid {
    /// The grid of the pipes' uniforms `p`; `patched`: the scene has `[[pressure]]` patches.
    pub fn new(p: &crate::models::pipes::columns::PipeParams, patched: bool) -> PressGrid {
        PressGrid {
            nx: p.nx,
            ny: p.ny,
            columns: p.columns,
            layers: p.layers,
            quantum: p.quantum,
            patched: patched as u32,
            ..PressGrid::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uniforms_mirror_their_wgsl_field_by_field() {
        crate::wgsl::check_mirror(
            "PressGrid",
            std::mem::size_of::<PressGrid>(),
            crate::wgsl::fields!(PressGrid {
                nx,
                ny,
                columns,
                layers,
                quantum,
                patched
            }),
        );
    }
}
