// A chunk's rain (src/rain.rs `RainStep`), as volume.wgsl and pipe_rain.wgsl read it: per step,
// a run of (cell, value) entries, one per cell.
struct RainStep {
    start: u32,
    count: u32,
    // Water this step adds: drops, hydrographs, rainfall (metres·cells; the height field's
    // volume target takes it as the step's `settle` reads it).
    added: f32,
    // The rainfall's height this step at a map share of 1, m (src/feeds.rs).
    rainfall: f32,
}

// An entry's cell word with this bit holds its level (a [[source]] with a height), not a height to
// add (volume.wgsl's and sw_feed.wgsl's `rain` / `drops`).
const HELD: u32 = 0x80000000u;
