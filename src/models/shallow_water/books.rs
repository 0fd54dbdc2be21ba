//! What the shallow-water model reports beyond its state, alike on every backend: the volume
//! target after a chunk the scene fed.

use crate::engine::solver::ChunkInput;

/// What a chunk's entries changed beyond what it asked, from its entries after the feed ran
/// (`heights` as the passes left them; `cells` and `asked` as the chunk brought them): back what
/// the drains and troughs could not take (a negative entry's height replaced by it), and what
/// the held cells gained (a `HELD` entry's replaced by it; the chunk's total asks nothing of
/// them). Summed in entry order in f64: both backends add the same f32 values in the same order.
pub fn unasked(cells: &[u32], asked: &[f32], heights: &[f32]) -> f64 {
    use crate::wgsl::rain_step::HELD;
    cells
        .iter()
        .zip(asked.iter().zip(heights))
        .filter(|(&c, (&a, _))| c & HELD != 0 || a < 0.0)
        .map(|(_, (_, &h))| h as f64)
        .sum()
}

/// Whether the books need a chunk's entries back after its feed ran (`unasked`): it brought a
/// drain, a trough or a held cell.
pub fn needs_back(rain: &crate::engine::rain::RainChunk) -> bool {
    use crate::wgsl::rain_step::HELD;
    rain.heights.iter().any(|&h| h < 0.0) || rain.cells.iter().any(|&c| c & HELD != 0)
}

/// The volume target after a chunk whose feed left its entries' `heights` (metres·cells): the
/// start's, what the chunk fed, back what drains and troughs could not take, and what the held
/// cells gained. Water also crosses open and river sides, which the target does not follow.
pub fn fed_target(input: &ChunkInput, heights: &[f32]) -> f64 {
    let rain = &input.rain;
    input.target + rain.total + unasked(&rain.cells, &rain.heights, heights)
}
