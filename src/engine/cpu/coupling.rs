//! Twin of `wgsl/coupling.wgsl`: the virtual-height solve over the tagged cells' box and the
//! correction it makes. The dot products sum in cell order here and in workgroup trees on the
//! GPU, so the two agree to the solve's tolerance, not bit for bit.

use crate::engine::bodies::{BodyParams, Cover, COUPLING_PCG};
use crate::engine::bodies::{TagBox, EMPTY_BOX};
use crate::engine::params::Params;

pub use crate::engine::bodies::SolveReport;

/// The box the solve runs over: the tagged cells and their neighbours (`plan`).
#[derive(Clone, Copy, Debug)]
pub struct SolveBox {
    /// First cell (i, j).
    pub origin: [u32; 2],
    /// Last cell (i, j), inclusive.
    pub end: [u32; 2],
}

impl SolveBox {
    /// The tagged box grown by one cell, clipped to the grid; None when nothing is tagged.
    pub fn new(p: &Params, tags: TagBox) -> Option<SolveBox> {
        if tags == EMPTY_BOX || tags[0] > tags[2] {
            return None;
        }
        Some(SolveBox {
            origin: [tags[0].saturating_sub(1), tags[1].saturating_sub(1)],
            end: [(tags[2] + 1).min(p.nx - 1), (tags[3] + 1).min(p.ny - 1)],
        })
    }

    /// How many cells it holds.
    pub fn cells_count(&self) -> u64 {
        (self.end[0] + 1 - self.origin[0]) as u64 * (self.end[1] + 1 - self.origin[1]) as u64
    }

    fn cells(&self, nx: u32) -> impl Iterator<Item = (u32, u32, usize)> + '_ {
        (self.origin[1]..=self.end[1])
            .flat_map(move |j| (self.origin[0]..=self.end[0]).map(move |i| (i, j, (j * nx + i) as usize)))
    }
}

/// The solve's per-cell vectors, as `vecs` (b, x, r, p), `q` and `faces` hold them.
pub struct Vectors {
    /// (b, x, r, p) per cell.
    pub vecs: Vec<[f32; 4]>,
    /// A·p per cell.
    pub q: Vec<f32>,
    /// Which of a cell's four faces couple to a neighbour, as bits.
    pub faces: Vec<u32>,
}

impl Vectors {
    /// Zeroed vectors for `cells` cells.
    pub fn new(cells: usize) -> Vectors {
        Vectors {
            vecs: vec![[0.0; 4]; cells],
            q: vec![0.0; cells],
            faces: vec![0; cells],
        }
    }
}

fn neighbour(p: &Params, i: u32, j: u32, f: u32) -> Option<usize> {
    let (ni, nj) = match f {
        0 if i > 0 => (i - 1, j),
        1 if i + 1 < p.nx => (i + 1, j),
        2 if j > 0 => (i, j - 1),
        3 if j + 1 < p.ny => (i, j + 1),
        _ => return None,
    };
    Some((nj * p.nx + ni) as usize)
}

/// `face_mask`: the open faces of cell (i, j).
fn face_mask(p: &Params, i: u32, j: u32, ground: &[f32], eta: &[f32], cover: &[Cover]) -> u32 {
    let c = (j * p.nx + i) as usize;
    let open = |c: usize, n: usize| cover[n].tagged() || eta[n] > ground[n] || ground[n] < eta[c];
    let tagged = cover[c].tagged();
    let mut mask = 0;
    for f in 0..4 {
        if let Some(n) = neighbour(p, i, j, f) {
            if (tagged && open(c, n)) || (!tagged && cover[n].tagged() && open(n, c)) {
                mask |= 1 << f;
            }
        }
    }
    mask
}

fn neighbours_sum(p: &Params, i: u32, j: u32, mask: u32, cover: &[Cover], vecs: &[[f32; 4]], k: usize) -> f32 {
    let mut s = 0.0;
    for f in 0..4 {
        if mask & (1 << f) != 0 {
            let n = neighbour(p, i, j, f).expect("an open face has a neighbour");
            if cover[n].tagged() {
                s += vecs[n][k];
            }
        }
    }
    s
}

/// Solves for the virtual height (left in `vecs[c][1]`) and applies the correction to eta and
/// vel: over each cluster's box where `clusters` forms them, else over the whole box. `tags`:
/// the tagged box and each body's. Returns how the solve went (the clusters': the most
/// iterations, the residuals' squares added in cluster order, as `solo_report`).
#[allow(clippy::too_many_arguments)]
pub fn couple(
    p: &Params,
    bp: &BodyParams,
    (tags, body_tags): (TagBox, &[TagBox]),
    ground: &[f32],
    cover: &[Cover],
    eta: &mut [f32],
    vel: &mut [f32],
    v: &mut Vectors,
) -> SolveReport {
    let Some(whole) = SolveBox::new(p, tags) else {
        return SolveReport::default();
    };
    let boxes = clusters(p, bp, body_tags).unwrap_or_else(|| vec![whole]);
    let mut sums = Sums::default();
    for bx in &boxes {
        let s = solve_sums(p, bp, bx, ground, cover, eta, v);
        apply(p, bp, bx, cover, eta, vel, v);
        sums.iterations = sums.iterations.max(s.iterations);
        sums.rr += s.rr;
        sums.rr0 += s.rr0;
    }
    sums.report()
}

/// The most bodies `clusters` groups (`coupling.wgsl`'s MAX_CLUSTERS).
const MAX_CLUSTERS: usize = crate::wgsl::coupling::MAX_CLUSTERS as usize;

/// `plan`'s clusters: the bodies' boxes (each body's tagged box grown by a cell), the first two
/// (in order) that share a cell merged into the first, the last taking the second's place, until
/// none do. Then each cluster's system is independent of the others' and no cell is corrected
/// by two. Some (`solo` solves each) unless there are over MAX_CLUSTERS bodies or a cluster's box
/// holds over `SOLO` cells where one body's may (`BodyParams::box_cells`): None, the passes over
/// the whole box solve.
pub fn clusters(p: &Params, bp: &BodyParams, body_tags: &[TagBox]) -> Option<Vec<SolveBox>> {
    if body_tags.len() > MAX_CLUSTERS {
        return None;
    }
    let mut boxes: Vec<SolveBox> = body_tags.iter().filter_map(|&t| SolveBox::new(p, t)).collect();
    'merge: loop {
        for a in 0..boxes.len() {
            for b in a + 1..boxes.len() {
                let (s, t) = (boxes[a], boxes[b]);
                let share = s.origin[0] <= t.end[0]
                    && t.origin[0] <= s.end[0]
                    && s.origin[1] <= t.end[1]
                    && t.origin[1] <= s.end[1];
                if share {
                    boxes[a] = SolveBox {
                        origin: [s.origin[0].min(t.origin[0]), s.origin[1].min(t.origin[1])],
                        end: [s.end[0].max(t.end[0]), s.end[1].max(t.end[1])],
                    };
                    boxes.swap_remove(b);
                    continue 'merge;
                }
            }
        }
        break;
    }
    let solo = crate::wgsl::coupling::SOLO;
    let wide = bp.box_cells > solo && boxes.iter().any(|b| b.cells_count() > solo as u64);
    (!wide).then_some(boxes)
}

/// How a solve went, before the residual is taken: what `solo` leaves in its cluster's slot.
#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    iterations: u32,
    rr: f32,
    rr0: f32,
}

impl Sums {
    fn report(self) -> SolveReport {
        SolveReport {
            iterations: self.iterations,
            residual: if self.rr0 > 0.0 {
                (self.rr / self.rr0).sqrt()
            } else {
                0.0
            },
        }
    }
}

/// `start`, then the Jacobi sweeps or the PCG iterations.
pub fn solve(
    p: &Params,
    bp: &BodyParams,
    bx: &SolveBox,
    ground: &[f32],
    cover: &[Cover],
    eta: &[f32],
    v: &mut Vectors,
) -> SolveReport {
    solve_sums(p, bp, bx, ground, cover, eta, v).report()
}

/// `solve`, its residual's parts kept for adding up clusters.
fn solve_sums(
    p: &Params,
    bp: &BodyParams,
    bx: &SolveBox,
    ground: &[f32],
    cover: &[Cover],
    eta: &[f32],
    v: &mut Vectors,
) -> Sums {
    let (rz, rr0) = start(p, bx, ground, cover, eta, v);
    if bp.method != COUPLING_PCG {
        jacobi(p, bp, bx, cover, v, rr0)
    } else if rr0 == 0.0 {
        Sums::default()
    } else {
        pcg(p, bp, bx, cover, v, rz, rr0)
    }
}

/// `start`: each cell's open faces and right-hand side (the water a tagged column must expel),
/// x = 0, r = b, p = the preconditioned residual. Returns (r·z, r·r).
fn start(p: &Params, bx: &SolveBox, ground: &[f32], cover: &[Cover], eta: &[f32], v: &mut Vectors) -> (f32, f32) {
    let (mut rz, mut rr0) = (0.0f32, 0.0f32);
    for (i, j, c) in bx.cells(p.nx) {
        let mask = face_mask(p, i, j, ground, eta, cover);
        v.faces[c] = mask;
        let (mut b, mut pc) = (0.0, 0.0);
        let d = mask.count_ones() as f32;
        if cover[c].tagged() && d > 0.0 {
            b = (eta[c] - cover[c].held - cover[c].bottom).max(0.0);
            pc = b / d;
        }
        v.vecs[c] = [b, 0.0, b, pc];
        rz += b * pc;
        rr0 += b * b;
    }
    (rz, rr0)
}

/// A tagged cell's diagonal: its open faces (0 for untagged cells, which the solve leaves out).
fn diagonal(cover: &[Cover], v: &Vectors, c: usize) -> f32 {
    if cover[c].tagged() {
        v.faces[c].count_ones() as f32
    } else {
        0.0
    }
}

/// `jacobi`: `bp.iterations` sweeps, then the true residual of the final x for the report.
fn jacobi(p: &Params, bp: &BodyParams, bx: &SolveBox, cover: &[Cover], v: &mut Vectors, rr0: f32) -> Sums {
    for sweep in 0..bp.iterations {
        let (from, into) = if sweep % 2 == 0 { (1, 3) } else { (3, 1) };
        // Each sweep reads one component and writes the other: no cell sees another's write.
        for (i, j, c) in bx.cells(p.nx) {
            let d = diagonal(cover, v, c);
            v.vecs[c][into] = if d > 0.0 {
                (v.vecs[c][0] + neighbours_sum(p, i, j, v.faces[c], cover, &v.vecs, from)) / d
            } else {
                0.0
            };
        }
    }
    // The true residual of the final v, for the report.
    let mut rr = 0.0f32;
    for (i, j, c) in bx.cells(p.nx) {
        let d = diagonal(cover, v, c);
        if d > 0.0 {
            let r = v.vecs[c][0] - (d * v.vecs[c][1] - neighbours_sum(p, i, j, v.faces[c], cover, &v.vecs, 1));
            rr += r * r;
        }
    }
    Sums {
        iterations: bp.iterations,
        rr,
        rr0,
    }
}

/// The PCG iterations (`pcg_*`), stopping at `bp.tolerance` relative residual.
fn pcg(p: &Params, bp: &BodyParams, bx: &SolveBox, cover: &[Cover], v: &mut Vectors, mut rz: f32, rr0: f32) -> Sums {
    let mut iterations = 0;
    let mut rr = rr0;
    while iterations < bp.iterations {
        let mut pq = 0.0f32;
        for (i, j, c) in bx.cells(p.nx) {
            let mut qc = 0.0;
            if cover[c].tagged() {
                let mask = v.faces[c];
                qc = mask.count_ones() as f32 * v.vecs[c][3] - neighbours_sum(p, i, j, mask, cover, &v.vecs, 3);
                pq += v.vecs[c][3] * qc;
            }
            v.q[c] = qc;
        }
        if pq <= 0.0 {
            break;
        }
        let alpha = rz / pq;
        let (mut rz_new, mut rr_new) = (0.0f32, 0.0f32);
        for (_, _, c) in bx.cells(p.nx) {
            let d = diagonal(cover, v, c);
            if d > 0.0 {
                let x = &mut v.vecs[c];
                x[1] += alpha * x[3];
                x[2] -= alpha * v.q[c];
                rz_new += x[2] * x[2] / d;
                rr_new += x[2] * x[2];
            }
        }
        iterations += 1;
        rr = rr_new;
        let beta = if rz > 0.0 { rz_new / rz } else { 0.0 };
        rz = rz_new;
        if rr_new <= bp.tolerance * bp.tolerance * rr0 || iterations >= bp.iterations {
            break;
        }
        for (_, _, c) in bx.cells(p.nx) {
            let d = diagonal(cover, v, c);
            if d > 0.0 {
                let x = &mut v.vecs[c];
                x[3] = x[2] / d + beta * x[3];
            }
        }
    }
    Sums { iterations, rr, rr0 }
}

/// `apply`: every cell of the box moves γ·Σ_open faces (v_n − v_i).
pub fn apply(
    p: &Params,
    bp: &BodyParams,
    bx: &SolveBox,
    cover: &[Cover],
    eta: &mut [f32],
    vel: &mut [f32],
    v: &Vectors,
) {
    let x = |c: usize| if cover[c].tagged() { v.vecs[c][1] } else { 0.0 };
    for (i, j, c) in bx.cells(p.nx) {
        let mask = v.faces[c];
        if mask == 0 {
            continue;
        }
        let v_c = x(c);
        let mut flux = 0.0f32;
        for f in 0..4 {
            if mask & (1 << f) != 0 {
                let n = neighbour(p, i, j, f).expect("an open face has a neighbour");
                flux += x(n) - v_c;
            }
        }
        let change = bp.relaxation * flux;
        eta[c] += change;
        vel[c] += change;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 12×10 pool with an 4×3 block of tagged cells, each holding some water to expel.
    fn pool() -> (Params, Vec<f32>, Vec<f32>, Vec<Cover>, TagBox) {
        let p = Params {
            nx: 12,
            ny: 10,
            ..Params::default()
        };
        let n = 120;
        let ground = vec![-1.0; n];
        let mut eta = vec![0.0; n];
        let mut cover = vec![Cover::default(); n];
        for j in 3..6 {
            for i in 4..8 {
                let c = j * 12 + i;
                cover[c] = Cover {
                    bottom: -0.1,
                    top: 0.1,
                    owner: 1 | crate::engine::bodies::TAGGED,
                    held: 0.0,
                };
                eta[c] = -0.1 + 0.01 * (1 + (i * 7 + j * 3) % 5) as f32;
            }
        }
        (p, ground, eta, cover, [4, 3, 7, 5])
    }

    fn params(method: u32, iterations: u32) -> BodyParams {
        BodyParams {
            method,
            iterations,
            tolerance: 1e-6,
            relaxation: 1.0,
            ..BodyParams::default()
        }
    }

    #[test]
    fn pcg_reaches_its_tolerance_and_agrees_with_jacobi_run_to_convergence() {
        let (p, ground, eta, cover, tags) = pool();
        let bx = SolveBox::new(&p, tags).unwrap();
        let mut pcg = Vectors::new(120);
        let report = solve(&p, &params(COUPLING_PCG, 100), &bx, &ground, &cover, &eta, &mut pcg);
        assert!(report.residual <= 1e-6, "PCG stopped at {report:?}");
        assert!(report.iterations < 30, "PCG took {report:?}");
        let mut jacobi = Vectors::new(120);
        let slow = solve(
            &p,
            &params(crate::engine::bodies::COUPLING_JACOBI, 2000),
            &bx,
            &ground,
            &cover,
            &eta,
            &mut jacobi,
        );
        assert!(slow.residual <= 1e-6, "Jacobi stopped at {slow:?}");
        let worst = (0..120)
            .map(|c| (pcg.vecs[c][1] - jacobi.vecs[c][1]).abs())
            .fold(0.0f32, f32::max);
        let scale = (0..120).map(|c| pcg.vecs[c][1].abs()).fold(0.0f32, f32::max);
        // Both within 1e-6 of the same system's solution: v agrees to a few 1e-6 of its size.
        assert!(
            worst <= 1e-5 * scale,
            "PCG and Jacobi differ by {worst} (v up to {scale})"
        );
    }

    /// `plan`'s clusters: boxes grown by a cell that share one merge, a merge that reaches a
    /// third box takes it too, and a cluster past SOLO cells where a body may be that large (or
    /// too many bodies) leaves the solve to the passes over the whole box.
    #[test]
    fn bodies_whose_grown_boxes_share_a_cell_form_one_cluster() {
        let p = Params {
            nx: 200,
            ny: 200,
            ..Params::default()
        };
        let solo = crate::wgsl::coupling::SOLO;
        let small = BodyParams {
            box_cells: solo,
            ..BodyParams::default()
        };
        let large = BodyParams {
            box_cells: solo + 1,
            ..small
        };
        let cells_with = |bp: &BodyParams, b: &[TagBox]| {
            clusters(&p, bp, b).map(|c| c.iter().map(|b| (b.origin, b.end)).collect::<Vec<_>>())
        };
        let cells = |b: &[TagBox]| cells_with(&large, b);
        // One untagged column between the tagged boxes: grown, they share it (it takes both
        // bodies' water); two: they do not.
        assert_eq!(
            cells(&[[10, 10, 19, 19], [21, 10, 30, 19]]),
            Some(vec![([9, 9], [31, 20])])
        );
        assert_eq!(
            cells(&[[10, 10, 19, 19], [22, 10, 30, 19]]),
            Some(vec![([9, 9], [20, 20]), ([21, 9], [31, 20])])
        );
        // An untagged body drops out; a merged box that reaches a third box takes it in: 0 and 2
        // merge, their box overlaps 1, and the last (3) fills the place 2 left.
        assert_eq!(
            cells(&[
                [10, 10, 14, 14],
                [20, 30, 24, 34],
                [16, 10, 20, 28],
                EMPTY_BOX,
                [60, 60, 64, 64]
            ]),
            Some(vec![([9, 9], [25, 35]), ([59, 59], [65, 65])])
        );
        // 46 × 46 cells grown is past SOLO's 2048; 45 × 45 is not. Where no body can be that
        // large, a cluster that is (bodies together) still takes a workgroup (`solo_wide`).
        assert_eq!(cells(&[[10, 10, 53, 53]]), None);
        assert!(cells(&[[10, 10, 52, 52]]).is_some());
        assert_eq!(
            cells_with(&small, &[[10, 10, 30, 53], [31, 10, 53, 53]]),
            Some(vec![([9, 9], [54, 54])])
        );
        let many = vec![[0, 0, 0, 0]; MAX_CLUSTERS + 1];
        assert_eq!(cells(&many), None);
    }

    #[test]
    fn the_exact_solve_expels_all_the_water_and_keeps_the_volume() {
        let (p, ground, mut eta, cover, tags) = pool();
        let before: f64 = eta.iter().map(|&e| e as f64).sum();
        let mut vel = vec![0.0; 120];
        let mut v = Vectors::new(120);
        couple(
            &p,
            &params(COUPLING_PCG, 100),
            (tags, &[tags]),
            &ground,
            &cover,
            &mut eta,
            &mut vel,
            &mut v,
        );
        for c in 0..120 {
            if cover[c].tagged() {
                assert!(
                    (eta[c] - cover[c].bottom).abs() < 1e-6,
                    "cell {c} keeps {}",
                    eta[c] - cover[c].bottom
                );
            }
        }
        let after: f64 = eta.iter().map(|&e| e as f64).sum();
        assert!(
            (after - before).abs() < 1e-6,
            "the correction changed the volume by {}",
            after - before
        );
    }
}
