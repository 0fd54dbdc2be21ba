//! `adi.wgsl` on every core: the lines of each sweep solved on threads by the twin's own
//! `solve_line` (Thomas, or the cyclic solve on periodic axes), gathered in order, then the twin's
//! step end. The lines are independent, so the bits are the twin's.

use crate::cpu::adi::{end_step, sweeper};
use crate::cpu::explicit::{Level, Out};
use rayon::prelude::*;

/// As `cpu::adi::step`.
pub fn step(level: &Level, out: &mut Out) -> bool {
    let dx = sweep(level, 0, &vec![0.0f32; level.eta.len()]);
    let dy = sweep(level, 1, &dx);
    end_step(level, out, &dx, &dy)
}

fn sweep(level: &Level, axis: usize, dx: &[f32]) -> Vec<f32> {
    let (s, lines) = sweeper(level, axis, dx);
    let solved: Vec<Vec<f32>> = (0..lines).into_par_iter().map(|line| s.solve_line(line)).collect();
    let mut out = vec![0.0f32; dx.len()];
    for (line, values) in solved.into_iter().enumerate() {
        for (q, v) in values.into_iter().enumerate() {
            out[s.line_cell(line as u32, q as u32)] = v;
        }
    }
    out
}
