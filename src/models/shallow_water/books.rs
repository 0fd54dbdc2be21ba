//! What the shallow-water model reports beyond its state, alike on every backend: the volume
//! target after a chunk the scene fed.

use crate::engine::solver::ChunkInput;

/// What the drains and troughs of a chunk could not take, from its entries after the feed ran
/// (`heights` as the passes left them, a negative entry's replaced by what its cell could not
/// give; `asked` as the chunk brought them), summed in entry order in f64: both backends add the
/// same f32 values in the same order.
pub fn shortfall(asked: &[f32], heights: &[f32]) -> f64 {
    asked
        .iter()
        .zip(heights)
        .filter(|(&a, _)| a < 0.0)
        .map(|(_, &h)| h as f64)
        .sum()
}

/// The volume target after a chunk whose feed left its entries' `heights` (metres·cells): the
/// start's, what the chunk fed, and back what drains and troughs could not take. Water also
/// crosses open and river sides, which the target does not follow.
pub fn fed_target(input: &ChunkInput, heights: &[f32]) -> f64 {
    input.target + input.rain.total + shortfall(&input.rain.heights, heights)
}
