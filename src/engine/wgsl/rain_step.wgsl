// A chunk's rain (src/rain.rs `RainStep`), as volume.wgsl and pipe_rain.wgsl read it: per step,
// a run of (cell, value) entries, one per cell.
struct RainStep {
    start: u32,
    count: u32,
    // Water the chunk's earlier steps added: drops, hydrographs, rainfall (metres·cells; the
    // height field's volume target).
    before: f32,
    // The rainfall's height this step at a map share of 1, m (src/feeds.rs).
    rainfall: f32,
}
