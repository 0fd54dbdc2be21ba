//! `[[output.section]]`: the discharge across a line, every step (sections.csv).
//!
//! A section's discharge is the line integral of the unit discharge q = (qx, qy) (m²/s) across
//! it, Q = ∫ q · n ds with n the line's left normal: the line is cut where it crosses cell edges
//! and each piece takes its cell's q, so Q = Σ l_c (qx_c n_x + qy_c n_y). Uniform flow gives
//! its exact discharge whatever the line's angle, and a line across a channel gives the
//! channel's. The model's probe pass reads the q's as it reads the gauges' surface: each piece
//! is a probe entry naming the cell and the component ([`QX`], [`QY`] in its top bits), and the
//! host sums the weighted history rows in f64, so no pass and no readback is added.

use crate::scene::Scene;

/// A probe entry's top two bits say which field it reads (probe_entry.wgsl).
pub const KIND_SHIFT: u32 = crate::wgsl::probe_entry::PROBE_SHIFT;
/// The cell's unit discharge along x.
pub const QX: u32 = crate::wgsl::probe_entry::PROBE_QX;
/// The cell's unit discharge along y.
pub const QY: u32 = crate::wgsl::probe_entry::PROBE_QY;

/// The bits of a probe entry that name its cell.
pub const CELL_MASK: u32 = (1 << KIND_SHIFT) - 1;

/// The probe entry reading `kind` at `cell`.
pub fn entry(cell: u32, kind: u32) -> u32 {
    cell | (kind << KIND_SHIFT)
}

/// Whether any of a probe pass's `entries` reads a unit discharge.
pub fn reads_flows(entries: &[u32]) -> bool {
    entries.iter().any(|&e| e >> KIND_SHIFT != 0)
}

/// Every section's probe entries and their weights (m), in file order.
#[derive(Clone, Debug, Default)]
pub struct Sections {
    /// Probe entries (after the gauges' in the model's probe list).
    pub entries: Vec<u32>,
    /// Each entry's weight: the piece's length times the normal's component (m).
    pub weights: Vec<f64>,
    /// Where each section's entries end in `entries`.
    pub ends: Vec<usize>,
}

impl Sections {
    /// The sections of `scene`'s `[[output.section]]`, on its grid.
    pub fn of(scene: &Scene) -> Sections {
        let g = scene.grid;
        let mut s = Sections::default();
        for line in &scene.output.sections {
            for (cell, w) in pieces(
                g.nx as usize,
                g.ny as usize,
                g.dx,
                [line.x0, line.y0],
                [line.x1, line.y1],
            ) {
                let kinds = [(QX, w[0]), (QY, w[1])];
                for (kind, weight) in kinds.into_iter().filter(|&(_, w)| w != 0.0) {
                    s.entries.push(entry(cell as u32, kind));
                    s.weights.push(weight);
                }
            }
            s.ends.push(s.entries.len());
        }
        s
    }

    /// The number of sections.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each section's discharge (m³/s) from the values its entries read (one step's).
    pub fn discharges(&self, values: &[f32]) -> Vec<f64> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                // + 0.0: a line no water crosses reads 0, not −0.
                let q = (start..end).map(|k| self.weights[k] * values[k] as f64).sum::<f64>() + 0.0;
                start = end;
                q
            })
            .collect()
    }
}

/// The cells the segment from `a` to `b` crosses (metres; the grid's cells `dx` wide, cell
/// (i, j) at index j·nx + i), each with its piece's length times the left normal (x, y
/// components), merged per cell.
pub fn pieces(nx: usize, ny: usize, dx: f64, a: [f64; 2], b: [f64; 2]) -> Vec<(usize, [f64; 2])> {
    let d = [b[0] - a[0], b[1] - a[1]];
    let length = d[0].hypot(d[1]);
    if length == 0.0 {
        return Vec::new();
    }
    let normal = [-d[1] / length, d[0] / length];
    // Where the segment crosses each grid line, as a fraction of its length.
    let mut cuts = vec![0.0, 1.0];
    for axis in 0..2 {
        if d[axis] != 0.0 {
            let (lo, hi) = (a[axis].min(b[axis]), a[axis].max(b[axis]));
            let first = (lo / dx).ceil() as i64;
            let last = (hi / dx).floor() as i64;
            cuts.extend((first..=last).map(|k| (k as f64 * dx - a[axis]) / d[axis]));
        }
    }
    cuts.retain(|t| (0.0..=1.0).contains(t));
    cuts.sort_by(f64::total_cmp);
    let mut out: Vec<(usize, [f64; 2])> = Vec::new();
    for pair in cuts.windows(2) {
        let piece = (pair[1] - pair[0]) * length;
        if piece <= 0.0 {
            continue;
        }
        let mid = 0.5 * (pair[0] + pair[1]);
        let cell_of = |axis: usize, n: usize| (((a[axis] + mid * d[axis]) / dx).floor().max(0.0) as usize).min(n - 1);
        let cell = cell_of(1, ny) * nx + cell_of(0, nx);
        let w = [piece * normal[0], piece * normal[1]];
        match out.last_mut() {
            Some((c, acc)) if *c == cell => {
                acc[0] += w[0];
                acc[1] += w[1];
            }
            _ => out.push((cell, w)),
        }
    }
    out
}

/// `[output] gauges` on the shallow-water model: probe entries reading each gauge cell's qx and
/// qy (two per gauge, in the gauges' order), for the velocity at the gauge every step.
pub fn gauge_entries(scene: &Scene, gauges: &[u32]) -> Vec<u32> {
    if !scene.output.gauges {
        return Vec::new();
    }
    gauges
        .iter()
        .flat_map(|&c| [c | (QX << KIND_SHIFT), c | (QY << KIND_SHIFT)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagonal_line_weighs_each_cell_by_its_piece_and_sums_to_the_lines_extent() {
        // From (0.5, 0.25) to (3.5, 2.75) on 1 m cells: left normal (−2.5, 3)/|d|.
        let p = pieces(4, 3, 1.0, [0.5, 0.25], [3.5, 2.75]);
        let (sx, sy): (f64, f64) = p.iter().fold((0.0, 0.0), |(x, y), (_, w)| (x + w[0], y + w[1]));
        // Σ l·n = (−Δy, Δx): uniform flow's discharge whatever the path.
        assert!((sx + 2.5).abs() < 1e-12 && (sy - 3.0).abs() < 1e-12, "{sx} {sy}");
        assert_eq!(p.first().unwrap().0, 0);
        assert_eq!(p.last().unwrap().0, 2 * 4 + 3);
        // Each cell once, in order along the line, all inside.
        let cells: Vec<usize> = p.iter().map(|&(c, _)| c).collect();
        assert!(
            cells.windows(2).all(|w| w[0] != w[1]) && cells.iter().all(|&c| c < 12),
            "{cells:?}"
        );
    }

    #[test]
    fn a_line_across_a_channel_reads_qx_only_and_signs_by_its_left() {
        // South to north at x = 1.5: left is west, so eastward flow counts negative.
        let p = pieces(3, 4, 1.0, [1.5, 0.0], [1.5, 4.0]);
        assert_eq!(p.iter().map(|&(c, _)| c).collect::<Vec<_>>(), [1, 4, 7, 10]);
        assert!(p.iter().all(|&(_, w)| w == [-1.0, 0.0]), "{p:?}");
        // Ending exactly on the domain's edge keeps the last cell inside.
        let p = pieces(3, 4, 1.0, [3.0, 0.5], [0.0, 0.5]);
        assert_eq!(p.iter().map(|&(c, _)| c).collect::<Vec<_>>(), [2, 1, 0]);
        assert!(p.iter().all(|&(_, w)| w == [0.0, -1.0]), "{p:?}");
    }
}
