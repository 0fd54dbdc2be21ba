//! Twin of `wgsl/bodies.wgsl`: each column's cover, and the bodies' step. Same f32 arithmetic in
//! the same order, except the workgroup trees, which here sum in cell order.

use crate::engine::bodies::{BodyParams, BodyState, Cover, MOTION_FIXED, MOTION_FREE, NO_BODY, SHAPE_BOX, TAGGED};
use crate::engine::bodies::{TagBox, EMPTY_BOX};
use crate::engine::bodies::{LOADS_COLUMNS, LOADS_LAYER};
use crate::engine::params::Params;
use glam::{Vec3, Vec4};

use crate::wgsl::bodies::{BIG, RING};

fn quat(v: [f32; 4]) -> Vec4 {
    Vec4::from_array(v)
}

fn v3(v: [f32; 4]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

/// v rotated by the unit quaternion q (x, y, z, w), as WGSL `rotate`.
pub fn rotate(q: Vec4, v: Vec3) -> Vec3 {
    let u = q.truncate();
    let t = 2.0 * u.cross(v);
    v + q.w * t + u.cross(t)
}

fn conjugate(q: Vec4) -> Vec4 {
    Vec4::new(-q.x, -q.y, -q.z, q.w)
}

/// The vertical line through (x, y) against body b: (underside, top), or NO_BODY when it misses.
pub fn cast(b: &BodyState, x: f32, y: f32) -> (f32, f32) {
    let miss = (NO_BODY, NO_BODY);
    let inverse = conjugate(quat(b.rotation));
    let o = rotate(inverse, Vec3::new(x - b.position[0], y - b.position[1], 0.0));
    let d = rotate(inverse, Vec3::Z);
    let h = v3(b.half);
    let (mut t0, mut t1) = (-BIG, BIG);
    if b.kind[0] == SHAPE_BOX {
        for a in 0..3 {
            if d[a].abs() < 1.0e-7 {
                if o[a].abs() > h[a] {
                    return miss;
                }
            } else {
                let ta = (-h[a] - o[a]) / d[a];
                let tb = (h[a] - o[a]) / d[a];
                t0 = t0.max(ta.min(tb));
                t1 = t1.min(ta.max(tb));
            }
        }
    } else {
        let os = o / h;
        let ds = d / h;
        let a = ds.dot(ds);
        let half_b = os.dot(ds);
        let disc = half_b * half_b - a * (os.dot(os) - 1.0);
        if disc <= 0.0 {
            return miss;
        }
        let s = disc.sqrt();
        t0 = (-half_b - s) / a;
        t1 = (-half_b + s) / a;
    }
    if t0 >= t1 {
        return miss;
    }
    (b.position[2] + t0, b.position[2] + t1)
}

/// The bodies' state on the CPU, the twin of the GPU's body buffers: the height-field backend's
/// and the Navier-Stokes layer's.
pub struct BodySet {
    pub params: BodyParams,
    pub states: Vec<BodyState>,
    pub cover: Vec<Cover>,
    vectors: crate::engine::cpu::coupling::Vectors,
    /// The box `footprint` tagged on this step, for the coupling solve, and each body's.
    tags: TagBox,
    body_tags: Vec<TagBox>,
    /// How the last coupling solve went.
    pub last: crate::engine::cpu::coupling::SolveReport,
}

impl BodySet {
    /// The setup's bodies, None without any.
    pub fn new(setup: &crate::engine::solver::Setup) -> Option<BodySet> {
        (!setup.bodies.is_empty()).then(|| BodySet {
            params: setup.body_params,
            states: setup.bodies.to_vec(),
            cover: setup.cover.to_vec(),
            vectors: crate::engine::cpu::coupling::Vectors::new(setup.eta.len()),
            tags: EMPTY_BOX,
            body_tags: vec![EMPTY_BOX; setup.bodies.len()],
            last: Default::default(),
        })
    }

    /// `footprint` over the height field `eta`.
    pub fn footprint(&mut self, p: &Params, ground: &[f32], eta: &mut [f32]) {
        self.tags = footprint(
            p,
            &self.params,
            &self.states,
            ground,
            eta,
            &mut self.cover,
            &mut self.body_tags,
        );
    }

    /// The coupling solve over the box `footprint` tagged, correcting `eta` and the per-step
    /// change `vel`.
    pub fn couple(&mut self, p: &Params, ground: &[f32], eta: &mut [f32], vel: &mut [f32]) {
        let (params, tags) = (self.params, self.tags);
        self.last = crate::engine::cpu::coupling::couple(
            p,
            &params,
            (tags, &self.body_tags),
            ground,
            &self.cover,
            eta,
            vel,
            &mut self.vectors,
        );
    }

    /// `integrate`, appending each body's history entry to `history`; `loads` as there.
    ///
    /// Long (about 100 lines) on purpose: it mirrors `integrate` in bodies.wgsl statement for
    /// statement (forces, torques, the semi-implicit update), which the GPU-vs-CPU tests compare
    /// to the bit; one function on each side keeps the two readable side by side.
    pub fn integrate(&mut self, p: &Params, ground: &[f32], eta: &[f32], loads: &[[f32; 4]], history: &mut Vec<f32>) {
        let params = self.params;
        integrate(p, &params, &mut self.states, ground, eta, &self.cover, loads, history);
    }
}

/// `footprint` over every cell: the cover, `held`, and the surface of columns that flood over or
/// stop holding a submerged body. Returns the tagged cells' box; `body_tags[k]` becomes body k's.
pub fn footprint(
    p: &Params,
    bp: &BodyParams,
    bodies: &[BodyState],
    ground: &[f32],
    eta: &mut [f32],
    cover: &mut [Cover],
    body_tags: &mut [TagBox],
) -> TagBox {
    let grow = |b: TagBox, i: u32, j: u32| [b[0].min(i), b[1].min(j), b[2].max(i), b[3].max(j)];
    let mut tag_box = EMPTY_BOX;
    body_tags.fill(EMPTY_BOX);
    for j in 0..p.ny {
        for i in 0..p.nx {
            let c = (j * p.nx + i) as usize;
            let x = (i as f32 + 0.5) * bp.dx;
            let y = (j as f32 + 0.5) * bp.dx;
            let (mut bottom, mut top, mut owner) = (NO_BODY, NO_BODY, 0u32);
            for (k, b) in bodies.iter().enumerate() {
                let r = b.rect;
                if i >= r[0] && i <= r[2] && j >= r[1] && j <= r[3] {
                    let hit = cast(b, x, y);
                    if hit.0 < bottom {
                        (bottom, top, owner) = (hit.0, hit.1, k as u32 + 1);
                    }
                }
            }
            let old = cover[c];
            let water = (eta[c] - if bp.pressed != 0 { 0.0 } else { old.held }).max(ground[c]);
            let mut held = 0.0;
            let mut tag = 0;
            if owner != 0 {
                let b = &bodies[owner as usize - 1];
                if water > ground[c] {
                    held = (b.contact[0] - bottom).clamp(0.0, top - bottom);
                }
                if b.kind[2] == 0 {
                    tag = TAGGED;
                    tag_box = grow(tag_box, i, j);
                    let k = owner as usize - 1;
                    body_tags[k] = grow(body_tags[k], i, j);
                }
            }
            if bp.pressed == 0 && (old.held != 0.0 || held != 0.0) {
                eta[c] = water + held;
            }
            cover[c] = Cover {
                bottom,
                top,
                owner: owner | tag,
                held,
            };
        }
    }
    tag_box
}

/// Whether body b starts wholly under its waterline (its highest point below it).
pub fn starts_flooded(b: &BodyState) -> bool {
    b.position[2] + extents(b, quat(b.rotation)).z < b.contact[0]
}

/// Half the world-axis extents of body b at rotation q.
fn extents(b: &BodyState, q: Vec4) -> Vec3 {
    let ax = rotate(q, Vec3::new(b.half[0], 0.0, 0.0));
    let ay = rotate(q, Vec3::new(0.0, b.half[1], 0.0));
    let az = rotate(q, Vec3::new(0.0, 0.0, b.half[2]));
    if b.kind[0] == SHAPE_BOX {
        ax.abs() + ay.abs() + az.abs()
    } else {
        (ax * ax + ay * ay + az * az).map(f32::sqrt)
    }
}

fn cell_span(lo: f32, hi: f32, n: u32, dx: f32) -> (u32, u32) {
    let first = (lo / dx - 0.5).ceil().max(0.0);
    let last = (hi / dx - 0.5).floor().min(n as f32 - 1.0);
    if first > last {
        (1, 0)
    } else {
        (first as u32, last as u32)
    }
}

/// The cells a body's footprint may cover, as `integrate` sets `rect`.
pub fn rect(b: &BodyState, nx: u32, ny: u32, dx: f32) -> [u32; 4] {
    let e = extents(b, quat(b.rotation));
    let (x, y) = (b.position[0], b.position[1]);
    let sx = cell_span(x - e.x, x + e.x, nx, dx);
    let sy = cell_span(y - e.y, y + e.y, ny, dx);
    [sx.0, sy.0, sx.1, sy.1]
}

/// The mean surface of the open wet cells in a ring of `RING` cells around the body's footprint
/// (−`NO_BODY` when there is none): the level the body floats in.
fn waterline(p: &Params, b: &BodyState, ground: &[f32], eta: &[f32], cover: &[Cover]) -> f32 {
    let cell = |i: u32, j: u32| (j * p.nx + i) as usize;
    let r = b.rect;
    if !(r[0] <= r[2] && r[1] <= r[3]) {
        return -NO_BODY;
    }
    let ring = [
        r[0].saturating_sub(RING),
        r[1].saturating_sub(RING),
        (r[2] + RING).min(p.nx - 1),
        (r[3] + RING).min(p.ny - 1),
    ];
    let (mut sum, mut count) = (0.0f32, 0.0f32);
    for j in ring[1]..=ring[3] {
        for i in ring[0]..=ring[2] {
            let c = cell(i, j);
            if cover[c].owner == 0 && eta[c] > ground[c] {
                sum += eta[c];
                count += 1.0;
            }
        }
    }
    if count > 0.0 {
        sum / count
    } else {
        -NO_BODY
    }
}

/// Over the columns body `k` covers: (Σ displaced height, its moments about the centre along x
/// and y, Σ thickness), how deep the body reaches into the ground, and the columns the water
/// touches.
fn displacement(
    p: &Params,
    bp: &BodyParams,
    k: usize,
    b: &BodyState,
    ground: &[f32],
    cover: &[Cover],
    waterline: f32,
) -> (Vec4, f32, f32) {
    let cell = |i: u32, j: u32| (j * p.nx + i) as usize;
    let r = b.rect;
    let mut s = Vec4::ZERO;
    let mut deepest = -BIG;
    let mut touching = 0.0f32;
    if r[0] <= r[2] && r[1] <= r[3] {
        for j in r[1]..=r[3] {
            for i in r[0]..=r[2] {
                let cv = cover[cell(i, j)];
                if cv.owner() == k as u32 + 1 {
                    let thick = cv.top - cv.bottom;
                    let displaced = (waterline - cv.bottom).clamp(0.0, thick);
                    let arm_x = (i as f32 + 0.5) * bp.dx - b.position[0];
                    let arm_y = (j as f32 + 0.5) * bp.dx - b.position[1];
                    s += Vec4::new(displaced, displaced * arm_x, displaced * arm_y, thick);
                    deepest = deepest.max(ground[cell(i, j)] - cv.bottom);
                    touching += if displaced > 0.0 { 1.0 } else { 0.0 };
                }
            }
        }
    }
    (s, deepest, touching)
}

/// `integrate` for every body; appends each body's history entry to `history`. `loads`: with
/// `bp.loads`, each body's three `ns_bodies::loads` entries (force, torque, the water's velocity).
#[allow(clippy::too_many_arguments)]
pub fn integrate(
    p: &Params,
    bp: &BodyParams,
    bodies: &mut [BodyState],
    ground: &[f32],
    eta: &[f32],
    cover: &[Cover],
    loads: &[[f32; 4]],
    history: &mut Vec<f32>,
) {
    for (k, body) in bodies.iter_mut().enumerate() {
        let b = *body;
        let waterline = waterline(p, &b, ground, eta, cover);
        let (s, deepest, touching) = displacement(p, bp, k, &b, ground, cover, waterline);
        let area = bp.dx * bp.dx;
        let lift = bp.water_density * bp.gravity * area;
        let share = s.x / s.w.max(1.0e-30);
        let mass = b.position[3];
        let mut pos = v3(b.position);
        let mut q = quat(b.rotation);
        let mut v = v3(b.velocity);
        let mut w = v3(b.spin);
        let motion = b.kind[1];
        let (mut force, mut turning, mut fluid) = (
            Vec3::new(0.0, 0.0, lift * s.x),
            lift * Vec3::new(s.z, -s.y, 0.0),
            Vec3::ZERO,
        );
        if bp.loads == LOADS_LAYER {
            (force, turning) = (v3(loads[3 * k]), v3(loads[3 * k + 1]));
        }
        if bp.loads != LOADS_COLUMNS {
            fluid = v3(loads[3 * k + 2]);
        }
        if motion == MOTION_FREE {
            v += bp.dt * (force / mass - Vec3::new(0.0, 0.0, bp.gravity));
            if bp.loads != LOADS_COLUMNS {
                // The layer's pressure (or the shallow-water model's waterline) answers the heave
                // a step late: its hydrostatic stiffness ρ·g·A over the wetted footprint A taken
                // implicitly.
                let stiff = bp.water_density * bp.gravity * touching * area / mass;
                v.z /= 1.0 + bp.dt * bp.dt * stiff;
            }
            let resist = 0.5 * bp.water_density * bp.drag * touching * area / mass;
            let slip = v - fluid;
            v = fluid + slip / (1.0 + bp.dt * resist * slip.length());
            let torque = rotate(conjugate(q), turning);
            let inertia = v3(b.inertia);
            let mut wb = rotate(conjugate(q), w);
            wb += bp.dt * (torque - wb.cross(inertia * wb)) / inertia;
            wb /= 1.0 + bp.dt * bp.angular_drag * share;
            w = rotate(q, wb);
        }
        if motion != MOTION_FIXED {
            pos += bp.dt * v;
            let u = q.truncate();
            let dq = (q.w * w + w.cross(u)).extend(-w.dot(u));
            q = (q + 0.5 * bp.dt * dq).normalize();
        }
        let e = extents(&b, q);
        let x_lo = e.x.min(0.5 * bp.width);
        let y_lo = e.y.min(0.5 * bp.height);
        let x = pos.x.clamp(x_lo, bp.width - x_lo);
        let y = pos.y.clamp(y_lo, bp.height - y_lo);
        if x != pos.x {
            v.x = 0.0;
        }
        if y != pos.y {
            v.y = 0.0;
        }
        pos = Vec3::new(x, y, pos.z);
        if motion == MOTION_FREE && deepest > 0.0 {
            pos.z += deepest;
            v.z = v.z.max(0.0);
        }
        let top = pos.z + e.z;
        let mut flooded = b.kind[2];
        if flooded == 1 && top > waterline + 0.25 * e.z {
            flooded = 0;
        } else if flooded == 0 && top < waterline - 0.25 * e.z {
            flooded = 1;
        }
        body.kind[2] = flooded;
        body.position = [pos.x, pos.y, pos.z, mass];
        body.rotation = q.to_array();
        body.velocity = [v.x, v.y, v.z, 0.0];
        body.spin = [w.x, w.y, w.z, 0.0];
        body.contact = [waterline, s.x * area, share, touching];
        body.rect = rect(body, p.nx, p.ny, bp.dx);
        history.extend_from_slice(&[
            pos.x,
            pos.y,
            pos.z,
            q.w,
            q.x,
            q.y,
            q.z,
            v.x,
            v.y,
            v.z,
            waterline,
            s.x * area,
        ]);
    }
}
