//! Twin of `wgsl/query.wgsl`: the water at a list of points.

use crate::query::RawSample;

/// `mix` as WGSL defines it.
fn mix(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

/// Twin of `query` for every point (x, y in metres) on a grid of `nx × ny` cells of `dx`.
pub fn query(nx: u32, ny: u32, dx: f32, eta: &[f32], ground: &[f32], points: &[[f32; 2]]) -> Vec<RawSample> {
    points
        .iter()
        .map(|p| {
            let fx = (p[0] / dx - 0.5).clamp(0.0, (nx - 1) as f32);
            let fy = (p[1] / dx - 0.5).clamp(0.0, (ny - 1) as f32);
            let (i0, j0) = ((fx as u32).min(nx - 1), (fy as u32).min(ny - 1));
            let (i1, j1) = ((i0 + 1).min(nx - 1), (j0 + 1).min(ny - 1));
            let (tx, ty) = (fx - i0 as f32, fy - j0 as f32);
            let corners = [(i0, j0), (i1, j0), (i0, j1), (i1, j1)].map(|(i, j)| (j * nx + i) as usize);
            let mut h = corners.map(|c| eta[c].max(ground[c]));
            let d = corners.map(|c| (eta[c] - ground[c]).max(0.0));
            let wet: Vec<f32> = corners
                .iter()
                .filter(|&&c| eta[c] > ground[c])
                .map(|&c| eta[c])
                .collect();
            if !wet.is_empty() {
                let level = wet.iter().fold(0.0f32, |s, &e| s + e) / wet.len() as f32;
                for k in 0..4 {
                    if d[k] <= 0.0 {
                        h[k] = level;
                    }
                }
            }
            let (south, north) = (mix(h[0], h[1], tx), mix(h[2], h[3], tx));
            let span = |a: u32, b: u32| (b - a) as f32 * dx + if a == b { 1.0 } else { 0.0 };
            let slope = [
                mix(h[1] - h[0], h[3] - h[2], ty) / span(i0, i1),
                (north - south) / span(j0, j1),
            ];
            let n = glam::Vec3::new(-slope[0], -slope[1], 1.0).normalize();
            RawSample {
                height: mix(south, north, ty),
                depth: mix(mix(d[0], d[1], tx), mix(d[2], d[3], tx), ty),
                _pad: [0.0; 2],
                normal: [n.x, n.y, n.z, 0.0],
            }
        })
        .collect()
}
