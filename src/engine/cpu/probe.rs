//! Twin of `wgsl/probe.wgsl`: eta at each probe cell, appended once per step.

pub fn record(probe_cells: &[u32], eta: &[f32], history: &mut Vec<f32>) {
    history.extend(probe_cells.iter().map(|&c| eta[c as usize]));
}
