//! Twin of `wgsl/regions.wgsl`: label the connected bodies of water, carry their targets across
//! the step, and compute each one's correction. The rules (merge, split, newborn, vanished) are
//! written out in the shader's header; here they run one cell at a time, in index order.

use crate::engine::cpu::volume::held_in_faces;
use crate::engine::params::Params;

/// Units per metre·cell of the fixed-point sums (2^28).
const FIXED: f64 = 268_435_456.0;

/// `x` in units of 2^-28, rounded to nearest, ties to even (the shader's `to_fixed`: the same
/// value, as f64 holds |x|·2^28 exactly).
pub fn to_fixed(x: f32) -> i64 {
    let m = (x.abs() as f64 * FIXED).round_ties_even() as i64;
    if x < 0.0 {
        -m
    } else {
        m
    }
}

/// The shader's `to_real`: the same f32 operations on the magnitude's two words.
pub fn to_real(v: i64) -> f32 {
    let m = v.unsigned_abs();
    let r = ((m >> 32) as u32 as f32 * 4_294_967_296.0 + m as u32 as f32) * (1.0 / FIXED as f32);
    if v < 0 {
        -r
    } else {
        r
    }
}

/// The neighbour of cell (x, y) along `dir` (0 east, 1 north, 2 west, 3 south), wrapping on
/// periodic sides.
fn neighbour(p: &Params, x: u32, y: u32, dir: u32) -> Option<usize> {
    let periodic = crate::scene::BoundaryMode::Periodic as u32;
    let (nx, ny) = (p.nx as i64, p.ny as i64);
    let (mut i, mut j) = (x as i64, y as i64);
    match dir {
        0 => i += 1,
        1 => j += 1,
        2 => i -= 1,
        _ => j -= 1,
    }
    if i < 0 || i >= nx {
        if p.bc_west != periodic || nx < 2 {
            return None;
        }
        i = i.rem_euclid(nx);
    }
    if j < 0 || j >= ny {
        if p.bc_south != periodic || ny < 2 {
            return None;
        }
        j = j.rem_euclid(ny);
    }
    Some((j * nx + i) as usize)
}

/// Region labels (id + 1, 0 dry) numbered by each region's smallest cell, ids past `capacity`
/// sharing the last; and the number of regions.
pub fn label(p: &Params, ground: &[f32], eta: &[f32]) -> (Vec<u32>, u32) {
    let n = eta.len();
    let wet = |c: usize| eta[c] > ground[c];
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut c: usize) -> usize {
        while parent[c] != c {
            parent[c] = parent[parent[c]];
            c = parent[c];
        }
        c
    }
    for y in 0..p.ny {
        for x in 0..p.nx {
            let c = (y * p.nx + x) as usize;
            if !wet(c) {
                continue;
            }
            for dir in 0..2 {
                if let Some(m) = neighbour(p, x, y, dir).filter(|&m| wet(m)) {
                    let (a, b) = (find(&mut parent, c), find(&mut parent, m));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
    }
    let mut labels = vec![0u32; n];
    let mut count = 0u32;
    for c in 0..n {
        if !wet(c) {
            continue;
        }
        let r = find(&mut parent, c);
        labels[c] = if r == c {
            count += 1;
            (count - 1).min(p.regions - 1) + 1
        } else {
            labels[r]
        };
    }
    (labels, count)
}

/// Whether every cell is wet exactly where `old` labels it (the shader's `label_check`).
pub fn label_check(ground: &[f32], eta: &[f32], old: &[u32]) -> bool {
    eta.iter().zip(ground).zip(old).all(|((h, b), &l)| (h > b) == (l != 0))
}

/// The per-region state the GPU keeps in `RegionBuffers`.
pub struct Regions {
    labels: [Vec<u32>; 2],
    targets: [Vec<i64>; 2],
    current: usize,
    count: u32,
    /// Water added to each cell after the last correction (metres).
    pub pending: Vec<f32>,
    /// Per region (height correction, vel correction).
    pub corrections: Vec<[f32; 2]>,
}

/// What the shader's table holds for one region slot.
#[derive(Clone, Copy, Default)]
struct Slot {
    wet: u32,
    volume: i64,
    vel: i64,
    had_old: bool,
    overlap: i64,
    given: i64,
    /// Smallest and largest new region an old region reaches.
    reach: Option<(usize, usize)>,
}

impl Regions {
    pub fn new(p: &Params) -> Regions {
        let (n, cap) = ((p.nx * p.ny) as usize, p.regions as usize);
        Regions {
            labels: [vec![0; n], vec![0; n]],
            targets: [vec![0; cap], vec![0; cap]],
            current: 0,
            count: 0,
            pending: vec![0.0; n],
            corrections: vec![[0.0; 2]; cap],
        }
    }

    /// The latest labels.
    pub fn labels(&self) -> &[u32] {
        &self.labels[self.current]
    }

    /// Regions at the latest labelling.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The latest targets (2^-28 metres·cells).
    #[cfg(test)]
    pub fn targets(&self) -> &[i64] {
        &self.targets[self.current][..self.count.min(self.targets[0].len() as u32) as usize]
    }

    /// Twin of `Regions::record`: labels `eta`, carries the targets over and sets the corrections.
    /// `faces`: the level's faces' memory (`explicit::Memory`), empty where it keeps none.
    pub fn record(&mut self, p: &Params, ground: &[f32], eta: &[f32], vel: &[f32], faces: &[f32]) {
        let cap = p.regions as usize;
        let (q, fresh) = (self.current, 1 - self.current);
        // label_check: a wet set that is last step's keeps its labels (the numbering is a
        // function of the wet set, so `label` would give them again).
        let (labels, count) = if label_check(ground, eta, &self.labels[q]) {
            (self.labels[q].clone(), self.count)
        } else {
            label(p, ground, eta)
        };
        let (old_count, old) = (self.count as usize, std::mem::take(&mut self.labels[q]));
        let (rn, ro) = ((count as usize).min(cap), old_count.min(cap));
        let mut slots = vec![Slot::default(); cap];
        let mut targets = vec![0i64; cap];
        let old_target = std::mem::take(&mut self.targets[q]);
        let step = Relabel {
            p,
            ground,
            eta,
            labels: &labels,
            old: &old,
        };
        step.region_sum(vel, faces, &mut self.pending, &mut slots, &mut targets);
        step.region_split(&old_target, &mut slots, &mut targets);
        // region_settle: first the carry of the old targets
        for i in 0..ro {
            if let Some((lo, _)) = slots[i].reach {
                targets[lo] += old_target[i] - slots[i].given;
            }
        }
        // region_settle: then the corrections
        for j in 0..rn {
            let s = &slots[j];
            if !s.had_old {
                targets[j] = s.volume;
            }
            let w = s.wet as f32;
            self.corrections[j] = [to_real(targets[j] - s.volume) / w, -to_real(s.vel) / w];
        }
        self.labels[q] = old;
        self.labels[fresh] = labels;
        self.targets[q] = vec![0; cap];
        self.targets[fresh] = targets;
        self.count = count;
        self.current = fresh;
    }

    /// The saved part of the state: latest labels, targets as (low, high) words, pending water.
    pub fn save(&self) -> (Vec<u32>, Vec<u32>, Vec<f32>) {
        let words = self.targets[self.current]
            .iter()
            .flat_map(|&t| [t as u32, (t >> 32) as u32])
            .collect();
        (self.labels[self.current].clone(), words, self.pending.clone())
    }

    /// Restores what `save` gave, and the region count.
    pub fn load(&mut self, labels: &[u32], words: &[u32], pending: &[f32], count: u32) {
        self.labels[self.current] = labels.to_vec();
        self.targets[self.current] = words
            .chunks_exact(2)
            .map(|w| (w[0] as u64 | (w[1] as u64) << 32) as i64)
            .collect();
        self.pending = pending.to_vec();
        self.count = count;
    }

    /// The latest labels and corrections, and the pending water, for `volume::apply`.
    pub fn parts(&mut self) -> (&[u32], &[[f32; 2]], &mut [f32]) {
        (&self.labels[self.current], &self.corrections, &mut self.pending)
    }
}

/// One step's relabelling, as the GPU's passes see it: the new labels and last step's over the
/// grid.
struct Relabel<'a> {
    p: &'a Params,
    ground: &'a [f32],
    eta: &'a [f32],
    labels: &'a [u32],
    old: &'a [u32],
}

impl Relabel<'_> {
    /// Every cell as (x, y, index), row by row.
    fn cells(&self) -> impl Iterator<Item = (u32, u32, usize)> + '_ {
        let p = self.p;
        (0..p.ny).flat_map(move |y| (0..p.nx).map(move |x| (x, y, (y * p.nx + x) as usize)))
    }

    /// The old region a cell belonged to: its own label, or (a cell that was dry) the lowest of
    /// its neighbours'.
    fn old_region(&self, x: u32, y: u32, c: usize) -> u32 {
        let old = self.old;
        if old[c] != 0 {
            return old[c];
        }
        (0..4)
            .filter_map(|dir| neighbour(self.p, x, y, dir))
            .map(|m| old[m])
            .filter(|&l| l != 0)
            .min()
            .unwrap_or(0)
    }

    /// Twin of `region_sum`: each new region's wet cells, volume and velocity, the pending water
    /// moved to its region's target, and how much of each old region each new one overlaps.
    fn region_sum(&self, vel: &[f32], faces: &[f32], pending: &mut [f32], slots: &mut [Slot], targets: &mut [i64]) {
        let (p, ground, eta, labels, old) = (self.p, self.ground, self.eta, self.labels, self.old);
        for (x, y, c) in self.cells() {
            let wet = eta[c] > ground[c];
            let j1 = if wet { labels[c] } else { 0 };
            let i1 = if wet { self.old_region(x, y, c) } else { old[c] };
            let pend = std::mem::take(&mut pending[c]);
            if pend != 0.0 {
                if j1 != 0 {
                    targets[j1 as usize - 1] += to_fixed(pend);
                } else if i1 != 0 {
                    slots[i1 as usize - 1].given += to_fixed(-pend);
                }
            }
            if j1 == 0 {
                continue;
            }
            let (j, depth) = (j1 as usize - 1, to_fixed(eta[c] - ground[c]));
            let s = &mut slots[j];
            s.wet += 1;
            s.volume += depth;
            s.vel += to_fixed(vel[c] - held_in_faces(p, faces, c));
            s.had_old |= i1 != 0;
            if i1 != 0 {
                let o = &mut slots[i1 as usize - 1];
                o.overlap += depth;
                o.reach = Some(o.reach.map_or((j, j), |(lo, hi)| (lo.min(j), hi.max(j))));
            }
        }
    }

    /// Twin of `region_split`: an old region that split hands its target to the new ones by
    /// their share of its overlap.
    fn region_split(&self, old_target: &[i64], slots: &mut [Slot], targets: &mut [i64]) {
        let (ground, eta, labels) = (self.ground, self.eta, self.labels);
        let split = |s: &Slot| matches!(s.reach, Some((lo, hi)) if lo != hi);
        for (x, y, c) in self.cells() {
            if eta[c] <= ground[c] {
                continue;
            }
            let i1 = self.old_region(x, y, c);
            if i1 == 0 || !split(&slots[i1 as usize - 1]) {
                continue;
            }
            let i = i1 as usize - 1;
            let (overlap, d) = (slots[i].overlap, eta[c] - ground[c]);
            let excess = to_real(old_target[i] - overlap);
            let share = to_fixed(d) + to_fixed(excess * (d / to_real(overlap)));
            targets[labels[c] as usize - 1] += share;
            slots[i].given += share;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 7×1 channel with a ridge at cell 3 (ground 0) between two troughs (ground −1).
    fn channel(regions: u32) -> (Params, Vec<f32>) {
        let p = Params {
            nx: 7,
            ny: 1,
            regions,
            ..Params::default()
        };
        (p, vec![-1.0, -1.0, -1.0, 0.0, -1.0, -1.0, -1.0])
    }

    fn surface(west: f32, ridge: f32, east: f32) -> Vec<f32> {
        vec![west, west, west, ridge, east, east, east]
    }

    #[test]
    fn merging_regions_add_their_targets_and_splitting_shares_by_volume() {
        let (p, ground) = channel(8);
        let still = vec![0.0; 7];
        let mut r = Regions::new(&p);
        // Two troughs 0.5 m and 0.25 m deep: each region's first target is its volume.
        r.record(&p, &ground, &surface(-0.5, -0.1, -0.75), &still, &[]);
        let (west, east) = (3 * to_fixed(0.5), 3 * to_fixed(0.25));
        assert_eq!(r.targets(), &[west, east]);
        assert_eq!(r.labels(), &[1, 1, 1, 0, 2, 2, 2]);
        // Water over the ridge joins them: one region, the two targets added exactly, and the
        // water that appeared on the ridge (0.1 m) is taken back evenly.
        r.record(&p, &ground, &surface(-0.5, 0.1, -0.75), &still, &[]);
        assert_eq!(r.count(), 1);
        assert_eq!(r.targets(), &[west + east]);
        assert!((r.corrections[0][0] - -0.1 / 7.0).abs() < 1e-6);
        // The ridge dries with 0.4 m west and 0.1 m east: the target splits 0.4 : 0.1 by the
        // current volume, exactly summing to the merged one.
        r.record(&p, &ground, &surface(-0.6, -0.1, -0.9), &still, &[]);
        let t = r.targets();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0] + t[1], west + east);
        let (dw, de) = ((-0.6f32 - -1.0) as f64, (-0.9f32 - -1.0) as f64);
        let expect = (west + east) as f64 * dw / (dw + de);
        assert!(
            (t[0] as f64 - expect).abs() < 4.0,
            "west share {} against {expect}",
            t[0]
        );
    }

    #[test]
    fn pending_water_joins_its_cells_region_and_new_puddles_take_their_volume() {
        let (p, ground) = channel(8);
        let still = vec![0.0; 7];
        let mut r = Regions::new(&p);
        r.record(&p, &ground, &surface(-0.5, -0.1, -2.0), &still, &[]);
        assert_eq!(r.targets(), &[3 * to_fixed(0.5)]);
        // Rain of 1 cm on cell 1 and a new puddle in the dry east trough.
        r.pending[1] = 0.01;
        let mut eta = surface(-0.5, -0.1, -2.0);
        eta[1] += 0.01;
        eta[5] = -0.8;
        r.record(&p, &ground, &eta, &still, &[]);
        let puddle = to_fixed(eta[5] - ground[5]);
        assert_eq!(r.targets(), &[3 * to_fixed(0.5) + to_fixed(0.01), puddle]);
        assert_eq!(r.corrections[1], [0.0, 0.0]);
        assert!(r.pending.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn regions_past_the_capacity_share_the_last_slot() {
        let (p, ground) = channel(2);
        let eta = vec![-0.5, -2.0, -0.5, -0.1, -0.5, -2.0, -0.5];
        assert_eq!(label(&p, &ground, &eta), (vec![1, 0, 2, 0, 2, 0, 2], 4));
    }

    #[test]
    fn fixed_point_is_exact_and_symmetric() {
        for x in [0.0f32, 1.0, -1.0, 0.1, -3.25e-5, 123_456.79, 5.0e-8] {
            let f = to_fixed(x);
            assert_eq!(to_fixed(-x), -f);
            assert!((to_real(f) - x).abs() <= 2f32.powi(-28) + x.abs() * f32::EPSILON);
        }
    }
}
