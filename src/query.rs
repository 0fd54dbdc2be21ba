//! Height queries for gameplay: the water's surface, depth and normal at a list of points.
//!
//! `Water::query` (embedding) records the query pass into the host's next `record` and maps
//! its answer when the host submits that encoder; `Water::answers` picks up what has arrived
//! without waiting (a non-blocking device poll): the answer to a query made in frame n is
//! there in frame n + 1 on a GPU that keeps up, n + 2 when the GPU runs a frame behind.
//! `Simulation::query` answers at once: a `Simulation` owns its submits and has already waited
//! for its last chunk, so its GPU backend runs the pass and reads back 32 bytes per point
//! from an idle device. Both run `query.wgsl` (twin `cpu::query`).

use bytemuck::{Pod, Zeroable};

/// Mirrors WGSL `QueryParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct QueryParams {
    /// Points.
    pub count: u32,
    /// Cell size, m.
    pub dx: f32,
    /// Cells along x.
    pub nx: u32,
    /// Cells along y.
    pub ny: u32,
}

/// One point's answer as the pass writes it; mirrors WGSL `RawSample`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RawSample {
    /// The surface relative to the reference level, m.
    pub height: f32,
    /// Depth, m.
    pub depth: f32,
    /// Padding.
    pub _pad: [f32; 2],
    /// The unit normal (x east, y north, z up), w = 0.
    pub normal: [f32; 4],
}

/// The water at one queried point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaterSample {
    /// The surface's height, m (absolute; the ground's where the point is dry).
    pub height: f64,
    /// The water's depth, m (0 where dry).
    pub depth: f64,
    /// The surface's unit normal (x east, y north, z up).
    pub normal: [f32; 3],
}

impl WaterSample {
    /// The sample of a raw answer, its height made absolute by `reference`.
    pub fn of(raw: &RawSample, reference: f64) -> WaterSample {
        WaterSample {
            height: raw.height as f64 + reference,
            depth: raw.depth as f64,
            normal: [raw.normal[0], raw.normal[1], raw.normal[2]],
        }
    }
}

/// Names a query until its answer arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QueryId(pub u64);

/// The points of a query as the pass reads them, f32 metres.
pub fn points_f32(points: &[[f64; 2]]) -> Vec<[f32; 2]> {
    points.iter().map(|p| [p[0] as f32, p[1] as f32]).collect()
}

#[cfg(test)]
mod tests {
    use super::{QueryParams, RawSample};
    use crate::wgsl::{check_mirror, fields};
    use std::mem::size_of;

    #[test]
    fn the_query_structs_mirror_their_wgsl_field_by_field() {
        check_mirror(
            "QueryParams",
            size_of::<QueryParams>(),
            fields!(QueryParams { count, dx, nx, ny }),
        );
        check_mirror(
            "RawSample",
            size_of::<RawSample>(),
            fields!(RawSample { height, depth, normal }),
        );
    }
}
