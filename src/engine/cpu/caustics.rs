//! Twin of `wgsl/caustics.wgsl`: light refracted at the surface, splatted where it lands, in the
//! same 1/2^16 integer units, so the two agree unless a weight rounds the other way.

/// One cell's worth of light in the integer counts (WGSL `round` ties to even, so does the twin).
pub use crate::wgsl::caustics::CAUSTIC_ONE;

/// The caustics intensity per cell (1 = flat water; dry cells 1). `light` is the direction the
/// light travels (unit, z < 0), `ratio` 1 / the water's refractive index; `cover`, with bodies,
/// what covers each column (covered columns pass no light), else empty.
#[allow(clippy::too_many_arguments)]
pub fn caustics(
    nx: usize,
    ny: usize,
    dx: f32,
    normals: &[[f32; 4]],
    depth: &[f32],
    cover: &[crate::engine::bodies::Cover],
    light: [f32; 3],
    ratio: f32,
) -> Vec<f32> {
    let mut received = vec![0u32; depth.len()];
    for j in 0..ny {
        for i in 0..nx {
            let c = j * nx + i;
            let d = depth[c];
            if d <= 0.0 || cover.get(c).is_some_and(|k| k.owner != 0) {
                continue;
            }
            let [n0, n1, n2, _] = normals[c];
            let cos_in = -(n0 * light[0] + n1 * light[1] + n2 * light[2]);
            let k = (1.0 - ratio * ratio * (1.0 - cos_in * cos_in)).max(0.0);
            let bend = ratio * cos_in - k.sqrt();
            let t = [
                ratio * light[0] + bend * n0,
                ratio * light[1] + bend * n1,
                ratio * light[2] + bend * n2,
            ];
            let reach = d / (-t[2]).max(1e-3) / dx;
            let land = [i as f32 + t[0] * reach, j as f32 + t[1] * reach];
            let base = [land[0].floor(), land[1].floor()];
            let f = [land[0] - base[0], land[1] - base[1]];
            let (bi, bj) = (base[0] as i64, base[1] as i64);
            for (di, dj, w) in [
                (0, 0, (1.0 - f[0]) * (1.0 - f[1])),
                (1, 0, f[0] * (1.0 - f[1])),
                (0, 1, (1.0 - f[0]) * f[1]),
                (1, 1, f[0] * f[1]),
            ] {
                let (si, sj) = (bi + di, bj + dj);
                if si < 0 || sj < 0 || si >= nx as i64 || sj >= ny as i64 || w <= 0.0 {
                    continue;
                }
                let at = sj as usize * nx + si as usize;
                received[at] = received[at].wrapping_add((w * CAUSTIC_ONE).round_ties_even() as u32);
            }
        }
    }
    received
        .iter()
        .zip(depth)
        .map(|(&got, &d)| if d > 0.0 { got as f32 / CAUSTIC_ONE } else { 1.0 })
        .collect()
}

/// The light on the ground under the surface `h` (absolute, [ny, nx]) with the sun straight down,
/// 1 under flat water and on dry ground: the caustics pass run on the CPU for pictures of a run.
/// `tops` (`Simulation::body_tops`, NaN where no body; empty without bodies) shades the columns
/// under the bodies.
pub fn ground_light(h: &[f64], ground: &[f64], tops: &[f64], reference: f64, grid: &crate::scene::Grid) -> Vec<f32> {
    let (nx, ny) = (grid.nx as usize, grid.ny as usize);
    let eta: Vec<f32> = h.iter().map(|&v| (v - reference) as f32).collect();
    let ground: Vec<f32> = ground.iter().map(|&v| (v - reference) as f32).collect();
    let mut wetness = vec![0.0; eta.len()];
    let dx = grid.dx as f32;
    let fields = crate::engine::cpu::surface::surface(nx, ny, dx, &eta, &ground, 0.0, &mut wetness);
    let cover: Vec<crate::engine::bodies::Cover> = tops
        .iter()
        .map(|t| crate::engine::bodies::Cover {
            owner: t.is_finite() as u32,
            ..Default::default()
        })
        .collect();
    caustics(
        nx,
        ny,
        dx,
        &fields.normals,
        &fields.depth,
        &cover,
        [0.0, 0.0, -1.0],
        1.0 / 1.333,
    )
}
