//! Twin of `wgsl/surface.wgsl`: the renderer's view of the current level (height, depth,
//! normals) and the wetness map's update for one frame.

/// The render-side fields of one frame, each row-major [ny, nx] like the GPU buffers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SurfaceFields {
    /// h − ref; a dry cell's is its ground.
    pub height: Vec<f32>,
    pub depth: Vec<f32>,
    /// Unit normals (x, y, z, 0).
    pub normals: Vec<[f32; 4]>,
}

/// Computes height, depth and normals from eta and ground (both relative to the reference), and
/// moves `wetness` on by one frame: 1 where wet, × `decay` where dry.
pub fn surface(
    nx: usize,
    ny: usize,
    dx: f32,
    eta: &[f32],
    ground: &[f32],
    decay: f32,
    wetness: &mut [f32],
) -> SurfaceFields {
    let mut out = SurfaceFields {
        height: vec![0.0; eta.len()],
        depth: vec![0.0; eta.len()],
        normals: vec![[0.0; 4]; eta.len()],
    };
    let level_of = |n: usize, h_c: f32| if eta[n] > ground[n] { eta[n] } else { h_c };
    for j in 0..ny {
        for i in 0..nx {
            let c = j * nx + i;
            let (e, b) = (eta[c], ground[c]);
            let wet = e > b;
            let h = if wet { e } else { b };
            out.height[c] = h;
            out.depth[c] = (e - b).max(0.0);
            wetness[c] = if wet { 1.0 } else { wetness[c] * decay };
            let (i0, i1) = (i.saturating_sub(1), (i + 1).min(nx - 1));
            let (j0, j1) = (j.saturating_sub(1), (j + 1).min(ny - 1));
            let span_x = (i1 - i0).max(1) as f32 * dx;
            let span_y = (j1 - j0).max(1) as f32 * dx;
            let (sx, sy) = if wet {
                (
                    (level_of(j * nx + i1, h) - level_of(j * nx + i0, h)) / span_x,
                    (level_of(j1 * nx + i, h) - level_of(j0 * nx + i, h)) / span_y,
                )
            } else {
                (0.0, 0.0)
            };
            let len = (sx * sx + sy * sy + 1.0).sqrt();
            out.normals[c] = [-sx / len, -sy / len, 1.0 / len, 0.0];
        }
    }
    out
}

/// The wetness factor for a dry cell over `elapsed` seconds with a drying time `drying` (s).
pub fn decay(elapsed: f64, drying: f64) -> f32 {
    if drying <= 0.0 {
        0.0
    } else {
        (-elapsed / drying).exp() as f32
    }
}
