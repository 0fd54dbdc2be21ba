//! Twin of `wgsl/ns_bodies.wgsl`: the water's loads on each body in the Navier-Stokes layer (seed
//! 003 §5, eqs. 13–15) from the pressure gradient at the body's nodes, and the water's velocity
//! around it. Same f32 arithmetic per node; the sums run in node order (the GPU's in lanes and a
//! tree), so the two agree to rounding, not bit for bit.

use crate::engine::bodies::{BodyParams, BodyState, Cover, SHAPE_ELLIPSOID};
use crate::engine::cpu::bodies::rotate;
use crate::models::navier_stokes::state::{NsParams, NsState, Surface, EMPTY, FULL, SOLID, SURFACE};
use crate::wgsl::ns_bodies::NODES_PER_AXIS;
use glam::{Vec3, Vec4};

fn is_fluid(f: u8) -> bool {
    f == FULL || f == SURFACE
}

/// Nodes along an axis of half length `half`.
fn nodes_along(half: f32, spacing: f32) -> u32 {
    ((2.0 * half / spacing).ceil() as u32).clamp(1, NODES_PER_AXIS)
}

/// (p_b − p_a)/delta between two cells, and 1, when both hold fluid; else 0s.
fn difference(s: &NsState, a: usize, b: usize, delta: f32) -> (f32, f32) {
    if is_fluid(s.flag[a]) && is_fluid(s.flag[b]) {
        ((s.p[b] - s.p[a]) / delta, 1.0)
    } else {
        (0.0, 0.0)
    }
}

/// The gradient at share t ∈ [0, 1] of the way from a cell's lower face (`low`) to its upper one.
fn between(low: (f32, f32), high: (f32, f32), t: f32) -> f32 {
    if low.1 != 0.0 && high.1 != 0.0 {
        low.0 + t * (high.0 - low.0)
    } else if low.1 != 0.0 {
        low.0
    } else {
        high.0
    }
}

/// ∇p (kinematic) at world point r: the seed's eq. 14 on both faces of the cell along each axis,
/// weighted by where r lies between them.
fn gradient(p: &NsParams, s: &NsState, r: Vec3) -> Vec3 {
    let x = (r.x / p.dx).clamp(0.0, p.nx as f32 - 0.001);
    let y = (r.y / p.dx).clamp(0.0, p.ny as f32 - 0.001);
    let z = ((r.z - p.z0) / p.dz).clamp(0.0, p.nz as f32 - 0.001);
    let (i, j, mut k) = (x as usize, y as usize, z as usize);
    while k > 0 && s.flag[p.cell(i, j, k)] == EMPTY {
        k -= 1;
    }
    while k + 1 < p.nz && s.flag[p.cell(i, j, k)] == SOLID {
        k += 1;
    }
    let c = p.cell(i, j, k);
    if !is_fluid(s.flag[c]) {
        return Vec3::new(0.0, 0.0, -p.g);
    }
    let none = (0.0, 0.0);
    let west = if i > 0 {
        difference(s, p.cell(i - 1, j, k), c, p.dx)
    } else {
        none
    };
    let east = if i + 1 < p.nx {
        difference(s, c, p.cell(i + 1, j, k), p.dx)
    } else {
        none
    };
    let south = if j > 0 {
        difference(s, p.cell(i, j - 1, k), c, p.dx)
    } else {
        none
    };
    let north = if j + 1 < p.ny {
        difference(s, c, p.cell(i, j + 1, k), p.dx)
    } else {
        none
    };
    let floor = if k > 0 {
        difference(s, p.cell(i, j, k - 1), c, p.dz)
    } else {
        none
    };
    let top = if k + 1 < p.nz {
        difference(s, c, p.cell(i, j, k + 1), p.dz)
    } else {
        none
    };
    Vec3::new(
        between(west, east, x - i as f32),
        between(south, north, y - j as f32),
        between(floor, top, (z - k as f32).clamp(0.0, 1.0)),
    )
}

/// The cell-centred velocity of the layer's cell holding r.
fn water_velocity(p: &NsParams, s: &NsState, r: Vec3) -> Vec3 {
    let i = ((r.x / p.dx).max(0.0) as usize).min(p.nx - 1);
    let j = ((r.y / p.dx).max(0.0) as usize).min(p.ny - 1);
    let k = (((r.z - p.z0) / p.dz).max(0.0) as usize).min(p.nz - 1);
    0.5 * Vec3::new(
        s.u[p.uf(i, j, k)] + s.u[p.uf(i + 1, j, k)],
        s.v[p.vf(i, j, k)] + s.v[p.vf(i, j + 1, k)],
        s.w[p.wf(i, j, k)] + s.w[p.wf(i, j, k + 1)],
    )
}

/// Per body three entries: (force, Σ wet·dV), (torque, nodes), (the water's velocity, Σ wet);
/// N, N·m and m/s in the world frame, as `body_loads` writes them. `cover`: what covers each
/// height-field cell.
pub fn loads(
    p: &NsParams,
    bp: &BodyParams,
    s: &NsState,
    f: &Surface,
    cover: &[Cover],
    bodies: &[BodyState],
) -> Vec<[f32; 4]> {
    let mut out = Vec::with_capacity(3 * bodies.len());
    for b in bodies {
        let half = Vec3::new(b.half[0], b.half[1], b.half[2]);
        let q = Vec4::from_array(b.rotation);
        let centre = Vec3::new(b.position[0], b.position[1], b.position[2]);
        let fine = p.dx / f.coarsen as f32;
        let spacing = 0.5 * fine.min(p.dz);
        let n = [half.x, half.y, half.z].map(|h| nodes_along(h, spacing));
        let step = 2.0 * half / Vec3::new(n[0] as f32, n[1] as f32, n[2] as f32);
        let extent = rotate(q, Vec3::new(step.x, 0.0, 0.0)).z.abs()
            + rotate(q, Vec3::new(0.0, step.y, 0.0)).z.abs()
            + rotate(q, Vec3::new(0.0, 0.0, step.z)).z.abs();
        let (mut force, mut torque, mut fluid) = (Vec4::ZERO, Vec4::ZERO, Vec4::ZERO);
        for m in 0..n[0] * n[1] * n[2] {
            let a = [m % n[0], (m / n[0]) % n[1], m / (n[0] * n[1])];
            let local = (Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32) + 0.5) * step - half;
            if b.kind[0] == SHAPE_ELLIPSOID {
                let u = local / half;
                if u.dot(u) > 1.0 {
                    continue;
                }
            }
            torque.w += 1.0;
            let arm = rotate(q, local);
            let r = centre + arm;
            let fi = ((r.x / fine).max(0.0) as usize).min(f.nx - 1);
            let fj = ((r.y / fine).max(0.0) as usize).min(f.ny - 1);
            let fc = fj * f.nx + fi;
            // Piercing the surface: its columns' surface short of water still to expel, its
            // waterline at its rim; flooded, the surface over it.
            let surface = match cover.get(fc) {
                _ if b.kind[2] != 0 => f.h[fc],
                Some(cv) if cv.tagged() => f.h[fc].min(cv.bottom + cv.held),
                _ => b.contact[0],
            };
            let bed = f.ground[fc];
            if surface <= bed {
                continue;
            }
            let wet = ((surface - r.z) / extent + 0.5).clamp(0.0, 1.0) - ((bed - r.z) / extent + 0.5).clamp(0.0, 1.0);
            if wet <= 0.0 {
                continue;
            }
            let force_here = -bp.water_density * wet * gradient(p, s, r);
            force += force_here.extend(wet);
            torque += arm.cross(force_here).extend(0.0);
            fluid += (wet * water_velocity(p, s, r)).extend(wet);
        }
        let volume = if b.kind[0] == SHAPE_ELLIPSOID {
            4.0 / 3.0 * std::f32::consts::PI * half.x * half.y * half.z
        } else {
            8.0 * half.x * half.y * half.z
        };
        let dv = volume / torque.w.max(1.0);
        let water = if fluid.w > 0.0 {
            fluid.truncate() / fluid.w
        } else {
            Vec3::ZERO
        };
        out.push([dv * force.x, dv * force.y, dv * force.z, dv * force.w]);
        out.push([dv * torque.x, dv * torque.y, dv * torque.z, torque.w]);
        out.push([water.x, water.y, water.z, fluid.w]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bodies::{BodyState, MOTION_FREE, SHAPE_BOX};

    /// A still pool 1 m deep over a flat floor at −1 m: 8 × 8 × 8 cells of 0.25 m.
    fn pool() -> (NsParams, NsState, Surface) {
        let p = NsParams::water([8, 8, 8], 0.25, 0.25, -1.0);
        let surface = Surface {
            nx: 8,
            ny: 8,
            coarsen: 1,
            h: vec![0.0; 64],
            ground: vec![-1.0; 64],
            held: Vec::new(),
            air: Vec::new(),
        };
        let s = NsState::at_rest(&p, &surface.ground, &surface.h);
        (p, s, surface)
    }

    fn body(shape: u32, z: f32) -> BodyState {
        BodyState {
            position: [1.0, 1.0, z, 1.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            half: [0.3, 0.3, 0.2, 0.0],
            kind: [shape, MOTION_FREE, 0, 0],
            ..BodyState::default()
        }
    }

    /// Every cell of the pool covered and tagged, the box's underside at −1 m and its held volume
    /// up to the still level: the nodes read the pool's surface, 0.
    fn cover() -> Vec<crate::engine::bodies::Cover> {
        vec![
            crate::engine::bodies::Cover {
                bottom: -1.0,
                top: 1.0,
                owner: 1 | crate::engine::bodies::TAGGED,
                held: 1.0,
            };
            64
        ]
    }

    fn params() -> BodyParams {
        BodyParams {
            count: 1,
            water_density: 1000.0,
            gravity: 9.81,
            loads: crate::engine::bodies::LOADS_LAYER,
            ..BodyParams::default()
        }
    }

    /// Archimedes in still water: ρ·g times the volume under the surface, straight up, no torque.
    /// A box 0.4 m tall at its centre −0.1 m has 0.3 m of it below the surface: 3/4 of its
    /// volume. The nodes are spaced 0.125 m (half a cell), so the box's top node layer straddles
    /// the surface; the share `wet` makes the sum exact up to rounding (tolerance 1e-4 relative).
    #[test]
    fn still_water_lifts_a_box_by_the_weight_of_the_water_it_displaces() {
        let (p, s, f) = pool();
        for (z, under) in [(-0.1f32, 0.3f32), (-0.5, 0.4), (0.0, 0.2), (0.15, 0.05)] {
            let l = loads(&p, &params(), &s, &f, &cover(), &[body(SHAPE_BOX, z)]);
            let want = 1000.0 * 9.81 * 0.6 * 0.6 * under;
            assert!(
                (l[0][2] - want).abs() < 1e-4 * want,
                "centre {z}: lift {} N, want {want}",
                l[0][2]
            );
            assert!(
                l[0][0].abs() < 1e-3 && l[0][1].abs() < 1e-3,
                "sideways {:?}",
                &l[0][..2]
            );
            assert!(l[1][..3].iter().all(|t| t.abs() < 1e-3), "torque {:?}", &l[1][..3]);
        }
    }

    /// An ellipsoid wholly under water displaces its exact volume (the nodes' dV is the volume
    /// over the nodes inside it), so it is lifted by ρ·g·4/3·π·abc within rounding.
    #[test]
    fn a_submerged_ellipsoid_is_lifted_by_its_exact_volume() {
        let (p, s, f) = pool();
        let l = loads(&p, &params(), &s, &f, &cover(), &[body(SHAPE_ELLIPSOID, -0.5)]);
        let want = 1000.0 * 9.81 * 4.0 / 3.0 * std::f32::consts::PI * 0.3 * 0.3 * 0.2;
        assert!((l[0][2] - want).abs() < 1e-4 * want, "lift {} N, want {want}", l[0][2]);
    }

    /// Eq. 14's gradient, not only gravity's: a pressure sloping along x by 2 m²/s² per metre
    /// (kinematic) pushes the box towards the low side with ρ·(∂p/∂x)·V under water, and lifts
    /// it as before.
    #[test]
    fn a_sloping_pressure_pushes_the_body_down_the_slope() {
        let (p, mut s, f) = pool();
        for k in 0..p.nz {
            for j in 0..p.ny {
                for i in 0..p.nx {
                    s.p[p.cell(i, j, k)] += 2.0 * (i as f32 + 0.5) * p.dx;
                }
            }
        }
        let l = loads(&p, &params(), &s, &f, &cover(), &[body(SHAPE_BOX, -0.1)]);
        let under = 0.6 * 0.6 * 0.3;
        let want = -1000.0 * 2.0 * under;
        assert!(
            (l[0][0] - want).abs() < 1e-3 * want.abs(),
            "F_x {} N, want {want}",
            l[0][0]
        );
        assert!(
            (l[0][2] - 1000.0 * 9.81 * under).abs() < 1e-3 * 9810.0 * under,
            "lift {}",
            l[0][2]
        );
    }

    /// The water's velocity around the body is that of the cells its wet nodes lie in.
    #[test]
    fn the_water_velocity_is_read_at_the_wet_nodes() {
        let (p, mut s, f) = pool();
        s.u.iter_mut().for_each(|u| *u = 0.5);
        let l = loads(&p, &params(), &s, &f, &cover(), &[body(SHAPE_BOX, -0.1)]);
        assert!(
            (l[2][0] - 0.5).abs() < 1e-6 && l[2][1].abs() < 1e-6,
            "water velocity {:?}",
            l[2]
        );
        assert!(l[2][3] > 0.0);
    }

    /// The drag acts on the body's velocity relative to the water's (the seed's damping "with
    /// the coefficients adjusted proportional to the relative velocity between a node and the
    /// local fluid"): a body at rest in water streaming at 0.3 m/s, its weight balanced, is
    /// carried towards the stream's speed and never past it.
    #[test]
    fn the_drag_carries_a_body_towards_the_waters_velocity() {
        let p = crate::engine::params::Params {
            nx: 40,
            ny: 40,
            ..crate::engine::params::Params::default()
        };
        let bp = BodyParams {
            dt: 0.01,
            dx: 0.04,
            drag: 1.0,
            width: 1.6,
            height: 1.6,
            ..params()
        };
        let mut b = [BodyState {
            position: [0.8, 0.8, 0.0, 2.0],
            inertia: [0.1; 4],
            ..body(SHAPE_BOX, 0.0)
        }];
        b[0].rect = crate::engine::cpu::bodies::rect(&b[0], 40, 40, 0.04);
        // Its weight held up, the water at 0.3 m/s along x; 25 wet columns under it.
        let loads = [[0.0, 0.0, 2.0 * 9.81, 0.0], [0.0; 4], [0.3, 0.0, 0.0, 1.0]];
        let ground = vec![-1.0f32; 1600];
        let eta = vec![0.0f32; 1600];
        let mut cover = vec![crate::engine::bodies::Cover::default(); 1600];
        for j in 18..23 {
            for i in 18..23 {
                cover[j * 40 + i] = crate::engine::bodies::Cover {
                    bottom: -0.05,
                    top: 0.05,
                    owner: 1,
                    held: 0.05,
                };
            }
        }
        let mut history = Vec::new();
        let mut speeds = Vec::new();
        for _ in 0..200 {
            crate::engine::cpu::bodies::integrate(&p, &bp, &mut b, &ground, &eta, &cover, &loads, &mut history);
            b[0].position[0] = 0.8;
            b[0].rect = crate::engine::cpu::bodies::rect(&b[0], 40, 40, 0.04);
            speeds.push(b[0].velocity[0]);
        }
        assert!(speeds.windows(2).all(|w| w[1] >= w[0] && w[1] <= 0.3), "{speeds:?}");
        assert!(speeds[199] > 0.25, "after 2 s it moves at {} m/s", speeds[199]);
        assert!(b[0].velocity[2].abs() < 1e-6, "it rose or sank: {:?}", b[0].velocity);
    }
}
