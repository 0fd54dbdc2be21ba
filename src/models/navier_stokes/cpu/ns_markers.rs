//! Twin of `wgsl/ns_markers.wgsl`: seed 003's marker particles (§4.1) for 2D runs of the
//! Navier-Stokes layer (its grid one cell across): massless points convected by the area-weighted
//! velocity of the four nearest faces set the cells' flags, so the water can overturn and splash;
//! an inflow brings new ones through its window. The WGSL explains the passes; this file runs
//! them in the same order with the same f32 operations (integer counts on the GPU are atomics,
//! which sum to the same).

use crate::models::navier_stokes::forcing::{Substep, INFLOW, OUTFLOW};
use crate::models::navier_stokes::state::{applied, in_window};
use crate::models::navier_stokes::state::{
    MarkerParams, Markers, NsParams, NsState, Surface, EMPTY, FULL, GONE, SOLID, SURFACE,
};

/// The cell (i, k) a point lies in, clamped to the grid.
fn cell_of(p: &NsParams, x: f32, z: f32) -> (usize, usize) {
    let i = (x / p.dx).floor().clamp(0.0, (p.nx - 1) as f32) as usize;
    let k = ((z - p.z0) / p.dz).floor().clamp(0.0, (p.nz - 1) as f32) as usize;
    (i, k)
}

fn is_ground(p: &NsParams, s: &NsState, i: usize, k: usize) -> bool {
    p.centre(k) < s.ground[i]
}

/// Twin of `marker_count` and `marker_flags`: a cell below the ground is Solid; one with no
/// marker Empty; one with a marker next to an Empty cell Surface, else Full (§4.1). Surface and
/// Empty cells take the applied pressure (the seed's rule).
pub fn flags(p: &NsParams, s: &mut NsState, m: &Markers, forcing: &Substep) {
    let mut count = vec![0u32; p.nx * p.nz];
    for &[x, z] in m.at.iter().filter(|a| a[0] >= 0.0) {
        let (i, k) = cell_of(p, x, z);
        count[k * p.nx + i] += 1;
    }
    let empty = |i: isize, k: isize| {
        let inside = i >= 0 && k >= 0 && i < p.nx as isize && k < p.nz as isize;
        inside && !is_ground(p, s, i as usize, k as usize) && count[k as usize * p.nx + i as usize] == 0
    };
    let mut flag = vec![EMPTY; p.nx * p.nz];
    for k in 0..p.nz {
        for i in 0..p.nx {
            let (ii, kk) = (i as isize, k as isize);
            flag[k * p.nx + i] = if is_ground(p, s, i, k) {
                SOLID
            } else if count[k * p.nx + i] == 0 {
                EMPTY
            } else if empty(ii - 1, kk) || empty(ii + 1, kk) || empty(ii, kk - 1) || empty(ii, kk + 1) {
                SURFACE
            } else {
                FULL
            };
        }
    }
    for k in 0..p.nz {
        for i in 0..p.nx {
            let at = p.cell(i, 0, k);
            s.flag[at] = flag[k * p.nx + i];
            if matches!(s.flag[at], SURFACE | EMPTY) {
                s.p[at] = applied(p, forcing, i, 0);
            }
        }
    }
}

/// The area-weighted velocity at (x, z) (the seed's Fig. 3): u from the four x faces around it
/// (faces at i·dx, at their cells' mid-heights), w from the four z faces (at cell centres across,
/// at k·dz up), each weighted by the area opposite it; faces with no fluid on either side (whose
/// velocity nothing sets) are left out and the rest's weights renormalised, so a marker leaving
/// the water's edge keeps the water's speed. Past the grid's edge the nearest face.
pub fn velocity(p: &NsParams, s: &NsState, x: f32, z: f32) -> [f32; 2] {
    let axis = |v: f32, n: usize| {
        let low = v.floor().clamp(0.0, (n - 1) as f32);
        let t = (v - low).clamp(0.0, 1.0);
        let low = low as usize;
        (low, (low + 1).min(n - 1), t)
    };
    let wet = |i: isize, k: isize| {
        let inside = i >= 0 && k >= 0 && i < p.nx as isize && k < p.nz as isize;
        inside && matches!(s.flag[p.cell(i as usize, 0, k as usize)], FULL | SURFACE)
    };
    let fx = x / p.dx;
    let fz = (z - p.z0) / p.dz;
    let (i0, i1, ti) = axis(fx, p.nx + 1);
    let (k0, k1, tk) = axis(fz - 0.5, p.nz);
    let u_face = |i: usize, k: usize| {
        let (ii, kk) = (i as isize, k as isize);
        (s.u[p.uf(i, 0, k)], wet(ii - 1, kk) || wet(ii, kk))
    };
    let u = weigh([u_face(i0, k0), u_face(i1, k0), u_face(i0, k1), u_face(i1, k1)], ti, tk);
    let (i0, i1, ti) = axis(fx - 0.5, p.nx);
    let (k0, k1, tk) = axis(fz, p.nz + 1);
    let w_face = |i: usize, k: usize| {
        let (ii, kk) = (i as isize, k as isize);
        (s.w[p.wf(i, 0, k)], wet(ii, kk - 1) || wet(ii, kk))
    };
    let w = weigh([w_face(i0, k0), w_face(i1, k0), w_face(i0, k1), w_face(i1, k1)], ti, tk);
    [u, w]
}

/// Twin of `weigh`: the bilinear blend of four (value, active) corners (low-low, high-low,
/// low-high, high-high) at (t, s), over the active ones only where any is.
fn weigh(corners: [(f32, bool); 4], t: f32, s: f32) -> f32 {
    let weights = [(1.0 - t) * (1.0 - s), t * (1.0 - s), (1.0 - t) * s, t * s];
    let (mut sum, mut total, mut all) = (0.0f32, 0.0f32, 0.0f32);
    for ((v, active), w) in corners.into_iter().zip(weights) {
        all += w * v;
        if active {
            sum += w * v;
            total += w;
        }
    }
    if total > 0.0 {
        sum / total
    } else {
        all
    }
}

/// Twin of `marker_extend`: the horizontal velocity carried one face into the air, so a cell
/// the markers enter starts with the water's u instead of the still air's (eq. 2 then moves it
/// from there; without it a falling jet's head lost half its reach). A u face with open air on
/// both sides takes the mean of the u faces above and below it that touch fluid. The vertical
/// velocity is not carried sideways: carrying a falling jet's w into the air beside it made the
/// splash where it struck the pool blow up. Faces touching fluid or ground, and the sides', are
/// left as they are. Reads only faces that touch fluid and writes only faces that do not: any
/// order gives the same.
pub fn extend(p: &NsParams, s: &mut NsState) {
    let fluid = |s: &NsState, i: isize, k: isize| {
        let inside = i >= 0 && k >= 0 && i < p.nx as isize && k < p.nz as isize;
        inside && matches!(s.flag[p.cell(i as usize, 0, k as usize)], FULL | SURFACE)
    };
    let air = |s: &NsState, i: isize, k: isize| {
        let inside = i >= 0 && k >= 0 && i < p.nx as isize && k < p.nz as isize;
        inside && s.flag[p.cell(i as usize, 0, k as usize)] == EMPTY
    };
    for k in 0..p.nz as isize {
        for i in 1..p.nx as isize {
            if !(air(s, i - 1, k) && air(s, i, k)) {
                continue;
            }
            let touches = |kk: isize| fluid(s, i - 1, kk) || fluid(s, i, kk);
            let (mut sum, mut n) = (0.0f32, 0.0f32);
            for kk in [k - 1, k + 1] {
                if kk >= 0 && kk < p.nz as isize && touches(kk) {
                    sum += s.u[p.uf(i as usize, 0, kk as usize)];
                    n += 1.0;
                }
            }
            if n > 0.0 {
                s.u[p.uf(i as usize, 0, k as usize)] = sum / n;
            }
        }
    }
}

/// The farthest x and z a marker may take: a thousandth of a cell inside the grid's east side
/// and top.
fn edges(p: &NsParams) -> (f32, f32) {
    ((p.nx as f32 - 1e-3) * p.dx, p.z0 + (p.nz as f32 - 1e-3) * p.dz)
}

/// Twin of `marker_move`: each marker by its area-weighted velocity × dt (the seed's forward
/// step). One that would enter the ground stays; one past an outflow side leaves (`GONE`); the
/// other sides and the grid's top hold it in.
pub fn advect(p: &NsParams, s: &NsState, m: &mut Markers, dt: f32, sides: &[u32; 4]) {
    // The highest point a marker may take, a thousandth of a cell inside the grid.
    let (width, top) = edges(p);
    for a in m.at.iter_mut().filter(|a| a[0] >= 0.0) {
        let [u, w] = velocity(p, s, a[0], a[1]);
        let (x, z) = (a[0] + u * dt, a[1] + w * dt);
        if (x < 0.0 && sides[0] == OUTFLOW) || (x > width && sides[1] == OUTFLOW) {
            *a = GONE;
            continue;
        }
        let (x, z) = (x.clamp(0.0, width), z.clamp(p.z0, top));
        let (i, k) = cell_of(p, x, z);
        if !is_ground(p, s, i, k) {
            *a = [x, z];
        }
    }
}

/// Twin of `marker_emit`: an inflow side brings `rows`² markers per cell its water fills, into
/// each face of its window, the rows of a face in turn, spread over the distance the water
/// enters in the substep.
pub fn emit(p: &NsParams, m: &mut Markers, mp: &MarkerParams, dt: f32, forcing: &Substep) {
    let inflow_side = (0..2).find(|&side| forcing.sides[side] == INFLOW);
    let Some(side) = inflow_side else {
        return;
    };
    if forcing.inflow <= 0.0 {
        return;
    }
    let rows = mp.rows;
    let per_cell = (rows * rows) as f32;
    let reach = forcing.inflow * dt;
    let (width, _) = edges(p);
    for k in (0..p.nz).filter(|&k| in_window(p, k)) {
        let owed = m.owed[k] + per_cell * reach / p.dx;
        let n = owed.floor();
        m.owed[k] = owed - n;
        for e in 0..n as u32 {
            if m.at.len() >= mp.capacity as usize {
                m.refused += 1;
                continue;
            }
            let row = m.brought[k] % rows;
            m.brought[k] = m.brought[k].wrapping_add(1);
            let into = reach * (e as f32 + 0.5) / n;
            let x = if side == 0 { into } else { width - into };
            let z = p.z0 + (k as f32 + (row as f32 + 0.5) / rows as f32) * p.dz;
            m.at.push([x, z]);
        }
    }
}

/// Twin of `marker_top` and `marker_surface`: the height field as the markers give it, per
/// height-field cell: the highest marker over its column plus half a marker's spacing (the water
/// reaches past its top marker), or its ground where none is. The same in every row of a 2D run.
pub fn surface(p: &NsParams, mp: &MarkerParams, m: &Markers, f: &mut Surface) {
    // Heights over the grid's floor (≥ 0: the GPU takes their maximum as bits).
    let mut highest: Vec<Option<f32>> = vec![None; f.nx];
    let fine_dx = p.dx / f.coarsen as f32;
    for &[x, z] in m.at.iter().filter(|a| a[0] >= 0.0) {
        let c = ((x / fine_dx).floor() as usize).min(f.nx - 1);
        let up = z - p.z0;
        highest[c] = Some(highest[c].map_or(up, |h| h.max(up)));
    }
    let half = 0.5 * p.dz / mp.rows as f32;
    for (c, h) in f.h.iter_mut().enumerate() {
        *h = match highest[c % f.nx] {
            None => f.ground[c],
            Some(up) => ((p.z0 + up) + half).max(f.ground[c]),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An 8 × 1 × 6 grid of 0.1 m × 0.05 m cells, flat ground under the grid, water to `h`.
    fn grid(h: f32) -> (NsParams, NsState) {
        let p = NsParams {
            markers: true,
            ..NsParams::water([8, 1, 6], 0.1, 0.05, 0.0)
        };
        let s = NsState::at_rest(&p, &[-1.0; 8], &[h; 8]);
        (p, s)
    }

    #[test]
    fn the_area_weighting_gives_a_linear_flow_exactly_inside_the_water() {
        // u = 1 + 2x + 3z and w = −1 + x − 4z on the faces of a full grid: the four-face weighting
        // of the seed's Fig. 3 is bilinear, so it returns them at any point (float32 rounding).
        let (p, mut s) = grid(1.0);
        for k in 0..p.nz {
            for i in 0..=p.nx {
                let (x, z) = (i as f32 * p.dx, p.centre(k));
                s.u[p.uf(i, 0, k)] = 1.0 + 2.0 * x + 3.0 * z;
            }
        }
        for k in 0..=p.nz {
            for i in 0..p.nx {
                let (x, z) = ((i as f32 + 0.5) * p.dx, k as f32 * p.dz);
                s.w[p.wf(i, 0, k)] = -1.0 + x - 4.0 * z;
            }
        }
        for (x, z) in [(0.37f32, 0.11f32), (0.05, 0.03), (0.71, 0.26)] {
            let [u, w] = velocity(&p, &s, x, z);
            assert!((u - (1.0 + 2.0 * x + 3.0 * z)).abs() < 1e-5, "u {u} at ({x}, {z})");
            assert!((w - (-1.0 + x - 4.0 * z)).abs() < 1e-5, "w {w} at ({x}, {z})");
        }
    }

    #[test]
    fn the_air_takes_the_waters_velocity_one_face_out_and_no_further() {
        // Water to 0.1 m (two layers) moving at u = 0.5 on the faces it touches: the u faces of
        // the first layer of air take the mean of those touching water under them (0.5); the
        // layers above, and the sides' faces, stay as they were.
        let (p, mut s) = grid(0.1);
        let m = Markers::fill(
            &p,
            &MarkerParams {
                rows: 2,
                capacity: 1000,
            },
            &[-1.0; 8],
            &[0.1; 8],
        );
        flags(&p, &mut s, &m, &Substep::default());
        for k in 0..2 {
            for i in 1..p.nx {
                s.u[p.uf(i, 0, k)] = 0.5;
            }
        }
        extend(&p, &mut s);
        assert_eq!(s.u[p.uf(3, 0, 2)], 0.5, "the first layer of air");
        assert_eq!(s.u[p.uf(3, 0, 3)], 0.0, "the second");
        assert_eq!(s.u[p.uf(0, 0, 2)], 0.0, "a side face");
    }
}
