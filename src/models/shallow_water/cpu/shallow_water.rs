//! Twin of `wgsl/shallow_water.wgsl`: one substep of the nonlinear shallow-water equations, the
//! numerics the GPU and the fast CPU path follow.
//!
//! A Godunov-type finite-volume scheme on the cell-centred grid:
//! - **hydrostatic reconstruction** (Audusse, Bouchut, Bristeau, Klein & Perthame 2004): at each
//!   face the two sides' depths are re-read over the higher of their grounds, so a lake at rest
//!   over any ground, bumps that stand above it included, has zero fluxes and zero source: it
//!   stays at rest to the bit;
//! - the **HLL** flux on the reconstructed depths (Toro's dry-bed speeds), the tangential momentum
//!   upwinded by the mass flux; each face's flux is computed alike by both its cells, so water
//!   moves by fluxes and the volume changes only by rounding;
//! - **MUSCL** slopes of the surface, depth and velocities (a generalised minmod, θ = `THETA`),
//!   first order around films (a cell of the stencil under `FILM`), and the pressure and bed
//!   terms joined into −g·(d_e + d_w)/2·(η_e − η_w), which vanishes exactly on a flat surface;
//! - **SSP-RK2** (Heun) in time, with **Manning friction** implicit in each Euler stage, so a film
//!   at any n slows instead of reversing, and a steady flow is the discrete balance of slope and
//!   friction whatever the step: U1 = F(U0 + dt·L(U0)), U2 = ½·(U0 + F(U1 + dt·L(U1))), where
//!   F(q) = q / (1 + dt·g·n²·|u| / d^(4/3)).
//!
//! The time step keeps (|u| + |v| + 2·sqrt(g·d))·dt/dx under `SW_COURANT`, at which the
//! reconstruction keeps every depth non-negative; a cell that rounding leaves a hair under its
//! ground is set to it (dry, at rest).

use crate::models::height_field::cpu::explicit::two_sum;
use crate::models::shallow_water::setup::SwParams;
use crate::models::shallow_water::state::SwState;
use crate::wgsl::sides::{DISCHARGE, OPEN, PERIODIC, REFLECT, STAGE};

/// A cell as the stencil reads it: its surface and ground (h − ref), its discharges along the
/// axis of the sweep (normal) and across it (tangential), and whether it is a river side's
/// ghost, whose state the face takes as given (`flux`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub eta: f32,
    pub b: f32,
    pub qn: f32,
    pub qt: f32,
    pub fixed: bool,
}

/// One side of a face: the reconstructed surface, depth, normal and tangential velocities, and
/// whether it is a river side's given state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Side {
    pub eta: f32,
    pub h: f32,
    pub u: f32,
    pub v: f32,
    pub fixed: bool,
}

/// What crosses a face (per metre of face): mass, normal and tangential momentum, and the
/// hydrostatic pressure ½·g·d*² of each side's re-read depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flux {
    pub mass: f32,
    pub normal: f32,
    pub tangential: f32,
    pub p_left: f32,
    pub p_right: f32,
}

pub use crate::models::shallow_water::state::velocity;

/// The generalised minmod of the two one-sided differences.
pub fn limited(a: f32, b: f32, theta: f32) -> f32 {
    if a * b <= 0.0 {
        return 0.0;
    }
    let m = (theta * a.abs()).min(theta * b.abs()).min(0.5 * (a + b).abs());
    if a > 0.0 {
        m
    } else {
        -m
    }
}

/// The river sides' values this step (west, east, south, north): a discharge's q into the
/// domain, a stage's level − ref (`rivers::Rivers::at`); the WGSL reads them from the step slot.
pub type Sides = [f32; 4];

/// The air-pressure head p/(ρ·g) over cell `c` (`[[pressure]]`: `ground` then holds each step's
/// head after the ground, from word `p.air_at`), 0 without patches.
pub fn air(p: &SwParams, ground: &[f32], c: usize) -> f32 {
    if p.air_at == 0 {
        return 0.0;
    }
    ground[p.air_at as usize + c]
}

/// Cell `cell` (index `c`) as the stencil reads it: under air pressure its surface and ground
/// are both lifted by the head a = p/(ρ·g). The depth is the same, and the pressure's force
/// −g·d·∂a/∂x joins the bed's −g·d·∂b/∂x in the reconstruction, so water under a steady low
/// stands at rest where η + a is level (the inverse barometer), over any ground, by the lake at
/// rest's own argument. Without patches the cell is read as it is, bit for bit.
pub fn lift(p: &SwParams, cell: Cell, a: f32) -> Cell {
    if p.air_at == 0 {
        return cell;
    }
    Cell {
        eta: cell.eta + a,
        b: cell.b + a,
        ..cell
    }
}

/// Cell `(i, j)` of `s` as the x sweep reads it, `i` possibly off the grid by two: the ghosts
/// follow the west and east sides.
pub fn at_x(p: &SwParams, sides: &Sides, ground: &[f32], s: &SwState, i: i32, j: i32) -> Cell {
    let nx = p.nx as i32;
    let row = (j * nx) as usize;
    let index = |k: i32| row + k as usize;
    let raw = |k: i32| {
        let c = index(k);
        Cell {
            eta: s.eta[c],
            b: ground[c],
            qn: s.qx[c],
            qt: s.qy[c],
            fixed: false,
        }
    };
    let read = |k: i32| lift(p, raw(k), air(p, ground, index(k)));
    if (0..nx).contains(&i) {
        return read(i);
    }
    let (mode, value) = if i < 0 {
        (p.bc_west, sides[0])
    } else {
        (p.bc_east, sides[1])
    };
    let edge_air = air(p, ground, index(if i < 0 { 0 } else { nx - 1 }));
    ghost(p, mode, value, i, nx, edge_air, read, raw)
}

/// Cell `(i, j)` as the y sweep reads it (normal: qy), `j` possibly off the grid by two.
pub fn at_y(p: &SwParams, sides: &Sides, ground: &[f32], s: &SwState, i: i32, j: i32) -> Cell {
    let (nx, ny) = (p.nx as i32, p.ny as i32);
    let index = |k: i32| (k * nx + i) as usize;
    let raw = |k: i32| {
        let c = index(k);
        Cell {
            eta: s.eta[c],
            b: ground[c],
            qn: s.qy[c],
            qt: s.qx[c],
            fixed: false,
        }
    };
    let read = |k: i32| lift(p, raw(k), air(p, ground, index(k)));
    if (0..ny).contains(&j) {
        return read(j);
    }
    let (mode, value) = if j < 0 {
        (p.bc_south, sides[2])
    } else {
        (p.bc_north, sides[3])
    };
    let edge_air = air(p, ground, index(if j < 0 { 0 } else { ny - 1 }));
    ghost(p, mode, value, j, ny, edge_air, read, raw)
}

/// The ghost at `k` (−2, −1, n or n + 1) of a line of `n` cells, by the side's `mode`: periodic
/// wraps; reflect mirrors the line with the normal discharge reversed (no mass crosses the wall);
/// open holds the still level (eta 0, never under the edge's ground; under air pressure the
/// inverse barometer's, −a) over the edge's ground with its discharge; free (and absorb) copy
/// the edge's depth and discharges over its ground's slope carried on (`free`), so flows leave
/// by zero gradient. The river sides give the face a state of their own
/// (`fixed`), the one the outgoing characteristic allows: a discharge `value` (m²/s into the
/// domain) at the depth where the edge's Riemann invariant u ∓ 2·sqrt(g·d) meets it
/// (`inflow_depth`); a stage `value` (level − ref) at the velocity that invariant gives its depth.
///
/// `read` gives a cell as the stencil reads it (`lift`ed), `raw` as it is; `edge_air` is the edge
/// cell's air head. Periodic and reflecting ghosts are cells of the line and carry their own
/// head; the others are built from the edge's raw cells and lifted by the edge's head, so a free
/// side carries the ground's slope on but not the pressure's, and a still pool under a low stays
/// still at a free side over flat ground.
#[allow(clippy::too_many_arguments)]
pub fn ghost(
    p: &SwParams,
    mode: u32,
    value: f32,
    k: i32,
    n: i32,
    edge_air: f32,
    read: impl Fn(i32) -> Cell,
    raw: impl Fn(i32) -> Cell,
) -> Cell {
    let edge = if k < 0 { 0 } else { n - 1 };
    let inner = if k < 0 { 1 } else { n - 2 };
    match mode {
        PERIODIC => read((k + n) % n),
        REFLECT => {
            let c = read(if k < 0 { -1 - k } else { 2 * n - 1 - k });
            Cell { qn: -c.qn, ..c }
        }
        OPEN => {
            let e = raw(edge);
            let still = if p.air_at == 0 { 0.0 } else { -edge_air };
            lift(
                p,
                Cell {
                    eta: e.b.max(still),
                    ..e
                },
                edge_air,
            )
        }
        DISCHARGE | STAGE => {
            let inward = if k < 0 { 1.0 } else { -1.0 };
            lift(p, river(mode, value, p.g, inward, raw(edge), raw(inner)), edge_air)
        }
        _ => lift(p, free(raw(edge), raw(inner)), edge_air),
    }
}

/// A free side's ghost beyond edge cell `e` (`i` the cell inside it): the edge's depth and
/// discharges over the ground's slope carried on (`beyond`), so a uniform flow, whose depth is
/// the same all along (a river at its normal depth, a sheet running off a plane), leaves as it
/// comes. Still water over a sloping ground at a free side is not still: the ghost's surface
/// stands a ground slope off the edge's (on `storm_surge_sw.toml`'s shelf with free sides the sea
/// rose 2.6 m in an hour with no forcing at all); a sea's side is `"open"`. Carrying the depth's
/// slope on as well (2·d_e − d_i) balances both, but grew a still pool's rounding 15-fold in 400
/// steps and changed what a maker's waves leave by, so it is not the rule.
pub fn free(e: Cell, i: Cell) -> Cell {
    let b = beyond(e, i);
    Cell {
        eta: b + (e.eta - e.b).max(0.0),
        b,
        ..e
    }
}

/// The ground a ghost stands on beyond edge cell `e`, whose neighbour inside is `i`: the edge's
/// slope carried on (2·b_e − b_i), so the edge cell feels the whole of its bed's slope, as an
/// inner cell does from its two faces (a flat ghost leaves it half, and a river's end cells pile
/// up to make up the rest: 12 % too deep at both ends of MacDonald's channel).
pub fn beyond(e: Cell, i: Cell) -> f32 {
    2.0 * e.b - i.b
}

/// A river side's ghost beside edge cell `e` (`i` the cell inside it); `inward`: +1 on a west or
/// south side (the domain lies towards +x), −1 on the others. The invariant
/// R = u_e − inward·2·c_e leaves the domain through the side, so the ghost keeps it.
pub fn river(mode: u32, value: f32, g: f32, inward: f32, e: Cell, i: Cell) -> Cell {
    let he = (e.eta - e.b).max(0.0);
    let ue = if he > 0.0 { e.qn / he } else { 0.0 };
    let invariant = ue - inward * 2.0 * (g * he).sqrt();
    let b = beyond(e, i);
    let (h, qn, qt) = if mode == DISCHARGE {
        let qn = inward * value;
        (inflow_depth(qn, invariant, inward, g, he), qn, 0.0)
    } else {
        let h = (value - b).max(0.0);
        let u = invariant + inward * 2.0 * (g * h).sqrt();
        let v = if he > 0.0 { e.qt / he } else { 0.0 };
        (h, h * u, h * v)
    };
    Cell {
        eta: b + h,
        b,
        qn,
        qt,
        fixed: true,
    }
}

/// The depth d at which discharge `qn` (signed along the axis) keeps the outgoing invariant:
/// qn/d − inward·2·sqrt(g·d) = `invariant`, monotone in d, so one root; by bisection (60 halvings
/// of a bracket doubled from the edge's depth), the same steps on every backend.
pub fn inflow_depth(qn: f32, invariant: f32, inward: f32, g: f32, he: f32) -> f32 {
    let f = |d: f32| qn / d - inward * 2.0 * (g * d).sqrt() - invariant;
    // f → +∞·inward·sign(qn) at d → 0; the root lies where f changes sign.
    let (mut lo, mut hi) = (0.0f32, 2.0 * he.max(1e-3));
    let at_zero = if qn * inward > 0.0 { 1.0 } else { -1.0 };
    for _ in 0..30 {
        if f(hi) * at_zero < 0.0 {
            break;
        }
        hi *= 2.0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if f(mid) * at_zero > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A cell's primitive values: surface, depth, normal and tangential velocities.
pub fn primitive(c: Cell, film: f32) -> Side {
    let h = (c.eta - c.b).max(0.0);
    Side {
        eta: c.eta,
        h,
        u: velocity(c.qn, h, film),
        v: velocity(c.qt, h, film),
        fixed: c.fixed,
    }
}

/// The west and east faces of `cur` between `prev` and `next` along the sweep: limited slopes,
/// or the cell's own values (first order) where any of the three is a film or `cur` a river's
/// given state.
pub fn reconstruct(prev: Cell, cur: Cell, next: Cell, p: &SwParams) -> (Side, Side) {
    faces(
        primitive(prev, p.film),
        primitive(cur, p.film),
        primitive(next, p.film),
        p,
    )
}

/// `reconstruct` from the three cells' primitive values (`primitive`): the fast path makes each
/// cell's once.
pub fn faces(a: Side, c: Side, n: Side, p: &SwParams) -> (Side, Side) {
    if a.h < p.film || c.h < p.film || n.h < p.film || c.fixed {
        return (c, c);
    }
    // Velocities, not discharges, are limited: at a front the depth's slope is steep, and a
    // discharge limited apart from it would put a large q over a face's vanishing depth.
    let slope = |x: f32, y: f32, z: f32| limited(y - x, z - y, p.theta);
    let (s_eta, s_h) = (slope(a.eta, c.eta, n.eta), slope(a.h, c.h, n.h));
    let (s_u, s_v) = (slope(a.u, c.u, n.u), slope(a.v, c.v, n.v));
    let face = |half: f32| Side {
        eta: c.eta + half * s_eta,
        h: (c.h + half * s_h).max(0.0),
        u: c.u + half * s_u,
        v: c.v + half * s_v,
        fixed: false,
    };
    let (west, east) = (face(-0.5), face(0.5));
    (west, east)
}

/// The flux through the face between `l` (its west or south side) and `r`: the depths re-read
/// over the higher ground, then HLL. Where both sides hold the same state it is that state's
/// physical flux exactly (the central form below), so a lake at rest moves nothing. A river
/// side's given state (`fixed`) crosses the face as it is: its physical flux.
pub fn flux(l: Side, r: Side, g: f32) -> Flux {
    let ground = (l.eta - l.h).max(r.eta - r.h);
    let hl = (l.eta - ground).max(0.0);
    let hr = (r.eta - ground).max(0.0);
    let p_left = 0.5 * g * hl * hl;
    let p_right = 0.5 * g * hr * hr;
    if hl <= 0.0 && hr <= 0.0 {
        return Flux {
            mass: 0.0,
            normal: 0.0,
            tangential: 0.0,
            p_left,
            p_right,
        };
    }
    let (cl, cr) = ((g * hl).sqrt(), (g * hr).sqrt());
    let (sl, sr) = if hl <= 0.0 {
        (r.u - 2.0 * cr, r.u + cr)
    } else if hr <= 0.0 {
        (l.u - cl, l.u + 2.0 * cl)
    } else {
        ((l.u - cl).min(r.u - cr), (l.u + cl).max(r.u + cr))
    };
    let (ql, qr) = (hl * l.u, hr * r.u);
    let (fl, fr) = ([ql, ql * l.u + p_left], [qr, qr * r.u + p_right]);
    let (ul, ur) = ([hl, ql], [hr, qr]);
    // A river side's state crosses at its own depth, so a discharge comes in as given.
    let own = |c: Side| [c.h * c.u, c.h * c.u * c.u + 0.5 * g * c.h * c.h];
    let f = if l.fixed {
        own(l)
    } else if r.fixed {
        own(r)
    } else if sl >= 0.0 {
        fl
    } else if sr <= 0.0 {
        fr
    } else {
        let spread = sr - sl;
        let lean = (sr + sl) / spread;
        let diffusion = sr * sl / spread;
        let f = |k: usize| 0.5 * (fl[k] + fr[k]) - 0.5 * lean * (fr[k] - fl[k]) + diffusion * (ur[k] - ul[k]);
        [f(0), f(1)]
    };
    Flux {
        mass: f[0],
        normal: f[1],
        tangential: f[0] * if f[0] > 0.0 { l.v } else { r.v },
        p_left,
        p_right,
    }
}

/// What a line of five cells (the cell in the middle) gains per second along one axis: surface,
/// normal and tangential discharge.
pub fn line_rates(c: [Cell; 5], p: &SwParams) -> [f32; 3] {
    let (_, west_of_w) = reconstruct(c[0], c[1], c[2], p);
    let (w, e) = reconstruct(c[1], c[2], c[3], p);
    let (east_of_e, _) = reconstruct(c[2], c[3], c[4], p);
    cell_rates(flux(west_of_w, w, p.g), flux(e, east_of_e, p.g), (w, e), p)
}

/// What a cell gains per second along one axis from its west and east faces' fluxes `fw`, `fe`
/// and its own reconstructed faces `(w, e)`: surface, normal and tangential discharge.
pub fn cell_rates(fw: Flux, fe: Flux, (w, e): (Side, Side), p: &SwParams) -> [f32; 3] {
    let surface = 0.5 * p.g * (w.h + e.h) * (e.eta - w.eta);
    [
        -(fe.mass - fw.mass) * p.inv_dx,
        -((fe.normal - fe.p_left) - (fw.normal - fw.p_right) + surface) * p.inv_dx,
        -(fe.tangential - fw.tangential) * p.inv_dx,
    ]
}

/// What cell `(i, j)` of `s` gains per second: surface, qx, qy.
pub fn rates(p: &SwParams, sides: &Sides, ground: &[f32], s: &SwState, i: u32, j: u32) -> [f32; 3] {
    let (i, j) = (i as i32, j as i32);
    let x = line_rates(
        std::array::from_fn(|k| at_x(p, sides, ground, s, i + k as i32 - 2, j)),
        p,
    );
    let y = line_rates(
        std::array::from_fn(|k| at_y(p, sides, ground, s, i, j + k as i32 - 2)),
        p,
    );
    both_axes(x, y)
}

/// A cell's rates from its x sweep's and its y sweep's (each surface, normal, tangential): the
/// surface's, then qx's (x's normal, y's tangential), then qy's.
pub fn both_axes(x: [f32; 3], y: [f32; 3]) -> [f32; 3] {
    [x[0] + y[0], x[1] + y[2], x[2] + y[1]]
}

/// (|u| + |v| + 2·sqrt(g·d))·dt/dx of a cell.
pub fn courant(p: &SwParams, eta: f32, b: f32, qx: f32, qy: f32) -> f32 {
    let h = (eta - b).max(0.0);
    let (u, v) = (velocity(qx, h, p.film), velocity(qy, h, p.film));
    (u.abs() + v.abs() + 2.0 * (p.g * h).sqrt()) * p.dt * p.inv_dx
}

/// `courant` from the cell's primitive values as the y sweep makes them (`primitive` of `at_y`:
/// `u` is qy's velocity, `v` qx's), the same arithmetic where no air lifts the cell (a lift may
/// round its depth): the fast path's, which has them made.
pub fn courant_of_primitive(p: &SwParams, c: Side) -> f32 {
    (c.v.abs() + c.u.abs() + 2.0 * (p.g * c.h).sqrt()) * p.dt * p.inv_dx
}

/// Twin of `friction_of`: cell c's friction, Manning's n² (its map's, in the stages' ground
/// from `p.friction_at`, or the scene's one value) and the damping's linear drag in 1/s (its
/// map's from `p.drag_at`, or the scene's).
pub fn friction_of(p: &SwParams, ground: &[f32], c: usize) -> [f32; 2] {
    let n2 = match p.friction_at {
        0 => p.n2,
        at => ground[at as usize + c],
    };
    let drag = match p.drag_at {
        0 => p.drag,
        at => ground[at as usize + c],
    };
    [n2, drag]
}

/// One Euler stage of a cell at `dt` from (eta, qx, qy) with `rate`, then the dry-cell rule and
/// the implicit friction (`friction`: n² and the drag, one factor): the cell's new (eta, qx, qy),
/// and the surface it is owed beyond it, for the carry: what rounding the sum lost (TwoSum's
/// error), and where the cell ends dry what the dry-cell rule gave it (negative). A trickle into
/// a dry cell under half its ground's ulp is owed, not lost: dropped, it took 1e-4 of a settling
/// floodplain's water in 20 hours.
pub fn euler(p: &SwParams, b: f32, friction: [f32; 2], cell: [f32; 3], rate: [f32; 3]) -> ([f32; 3], f32) {
    let (sum, lost) = two_sum(cell[0], p.dt * rate[0]);
    let eta = sum.max(b);
    let h = eta - b;
    if h <= 0.0 {
        return ([eta, 0.0, 0.0], (sum - eta) + lost);
    }
    let (mut qx, mut qy) = (cell[1] + p.dt * rate[1], cell[2] + p.dt * rate[2]);
    // Without a drag the factor is 1 + 0 = 1 exactly, so Manning's alone keeps its bits.
    let mut keep = 1.0 + p.dt * friction[1];
    if friction[0] > 0.0 {
        let (u, v) = (velocity(qx, h, p.film), velocity(qy, h, p.film));
        let speed = (u * u + v * v).sqrt();
        keep += p.dt * p.g * friction[0] * speed / h.max(p.film).powf(4.0 / 3.0);
    }
    if keep != 1.0 {
        qx /= keep;
        qy /= keep;
    }
    ([eta, qx, qy], lost)
}

/// Twin of `owed_paid`: stage two's surface `eta` with what the cell is `owed` paid in (TwoSum):
/// the surface and what is still owed. A cell the payment would take under its ground `b` stays
/// at its ground, owing the rest.
pub fn owed_paid(eta: f32, owed: f32, b: f32) -> (f32, f32) {
    let (paid, rest) = two_sum(eta, owed);
    if paid < b {
        return (b, rest + (paid - b));
    }
    (paid, rest)
}

/// Twin of `stage_one` at cell `c`: U1 = F(U0 + dt·L(U0)) and the carry with half the stage's
/// rounding owed (U2 takes ½·U1), as (eta, qx, qy, carry); and the cell's Courant number.
pub fn stage_one_cell(p: &SwParams, sides: &Sides, ground: &[f32], u0: &SwState, c: usize) -> ([f32; 4], f32) {
    let (i, j) = ((c % p.nx as usize) as u32, (c / p.nx as usize) as u32);
    stage_one_at(p, ground, u0, c, rates(p, sides, ground, u0, i, j))
}

/// `stage_one_cell` with the cell's `rate` (`rates` of U0) given.
pub fn stage_one_at(p: &SwParams, ground: &[f32], u0: &SwState, c: usize, rate: [f32; 3]) -> ([f32; 4], f32) {
    let courant = courant(p, u0.eta[c], ground[c], u0.qx[c], u0.qy[c]);
    (stage_one_out(p, ground, u0, c, rate), courant)
}

/// `stage_one_at`'s cell without its Courant number.
pub fn stage_one_out(p: &SwParams, ground: &[f32], u0: &SwState, c: usize, rate: [f32; 3]) -> [f32; 4] {
    let here = [u0.eta[c], u0.qx[c], u0.qy[c]];
    let (out, lost) = euler(p, ground[c], friction_of(p, ground, c), here, rate);
    [out[0], out[1], out[2], u0.carry[c] + 0.5 * lost]
}

/// Twin of `stage_two` at cell `c`: U2 = ½·(U0 + F(U1 + dt·L(U1))) with what the cell is owed
/// paid in, as (eta, qx, qy, carry); and U1's Courant number. Every rounding of the surface's
/// sums (stage one's half, stage two's, the mean's) goes into the carry, so the water moves
/// only by the fluxes: where a film drains a cell by less than half its surface's ulp a step,
/// the plain sums kept it there while its lower neighbour (a finer ulp) took the water in, and
/// a floodplain settling for hours gained 0.34 % of its volume.
pub fn stage_two_cell(
    p: &SwParams,
    sides: &Sides,
    ground: &[f32],
    u0: &SwState,
    u1: &SwState,
    c: usize,
) -> ([f32; 4], f32) {
    let (i, j) = ((c % p.nx as usize) as u32, (c / p.nx as usize) as u32);
    stage_two_at(p, ground, u0, u1, c, rates(p, sides, ground, u1, i, j))
}

/// `stage_two_cell` with the cell's `rate` (`rates` of U1) given.
pub fn stage_two_at(
    p: &SwParams,
    ground: &[f32],
    u0: &SwState,
    u1: &SwState,
    c: usize,
    rate: [f32; 3],
) -> ([f32; 4], f32) {
    let courant = courant(p, u1.eta[c], ground[c], u1.qx[c], u1.qy[c]);
    (stage_two_out(p, ground, u0, u1, c, rate), courant)
}

/// `stage_two_at`'s cell without its Courant number.
pub fn stage_two_out(p: &SwParams, ground: &[f32], u0: &SwState, u1: &SwState, c: usize, rate: [f32; 3]) -> [f32; 4] {
    let one = [u1.eta[c], u1.qx[c], u1.qy[c]];
    let (v, lost) = euler(p, ground[c], friction_of(p, ground, c), one, rate);
    let (pair, pair_lost) = two_sum(u0.eta[c], v[0]);
    let owed = u1.carry[c] + 0.5 * (lost + pair_lost);
    let (eta, carry) = owed_paid(0.5 * pair, owed, ground[c]);
    let dry = eta <= ground[c];
    let mean = |k: usize, a: &[f32]| if dry { 0.0 } else { 0.5 * (a[c] + v[k]) };
    [eta, mean(1, &u0.qx), mean(2, &u0.qy), carry]
}

/// Twin of `stage_one`: U0 → U1 over every cell; returns the largest Courant number of U0.
pub fn stage_one(p: &SwParams, sides: &Sides, ground: &[f32], u0: &SwState, u1: &mut SwState) -> f32 {
    let mut most = 0.0f32;
    for c in 0..u0.cells() {
        let (out, courant) = stage_one_cell(p, sides, ground, u0, c);
        (u1.eta[c], u1.qx[c], u1.qy[c], u1.carry[c]) = (out[0], out[1], out[2], out[3]);
        most = most.max(courant);
    }
    most
}

/// Twin of `stage_two`: U0 and U1 → U2, written over U0 (a cell reads only its own U0, so in
/// place); returns the largest Courant number of U1.
pub fn stage_two(p: &SwParams, sides: &Sides, ground: &[f32], u0: &mut SwState, u1: &SwState) -> f32 {
    let mut most = 0.0f32;
    for c in 0..u0.cells() {
        let (out, courant) = stage_two_cell(p, sides, ground, u0, u1, c);
        (u0.eta[c], u0.qx[c], u0.qy[c], u0.carry[c]) = (out[0], out[1], out[2], out[3]);
        most = most.max(courant);
    }
    most
}

/// One substep of the twin: both stages, `scratch` holding U1. Returns the substep's largest
/// Courant number.
pub fn substep(p: &SwParams, sides: &Sides, ground: &[f32], state: &mut SwState, scratch: &mut SwState) -> f32 {
    let one = stage_one(p, sides, ground, state, scratch);
    one.max(stage_two(p, sides, ground, state, scratch))
}

/// Twin of `probe`: what a probe entry reads, a gauge's surface or a discharge line's unit
/// discharge (`engine::sections`).
pub fn probe(s: &SwState, entry: u32) -> f32 {
    use crate::engine::sections::{CELL_MASK, KIND_SHIFT, QX, QY};
    let c = (entry & CELL_MASK) as usize;
    match entry >> KIND_SHIFT {
        QX => s.qx[c],
        QY => s.qy[c],
        _ => s.eta[c],
    }
}
