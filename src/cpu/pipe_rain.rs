//! Twin of `wgsl/pipe_rain.wgsl`: a step's drops, whole units per column, into each column's top
//! cell (the one open to the sky), counted in the column's exchange.

use super::pipes::PipeState;
use crate::columns::SKY;

/// Adds `units[k]` to the top cell of column `cells[k]`, for each entry of one step.
pub fn rain(s: &mut PipeState, cells: &[u32], units: &[u32]) {
    let l = s.layers;
    for (&c, &u) in cells.iter().zip(units) {
        let c = c as usize;
        let top = (1..l).rfind(|&a| s.geometry[c * l + a][0] != SKY).unwrap_or(0);
        s.water[c * l + top] += u;
        s.exchange[c] += u as i64;
    }
}
