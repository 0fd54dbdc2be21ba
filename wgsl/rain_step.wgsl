// A chunk's rain (src/rain.rs `RainStep`), as volume.wgsl and pipe_rain.wgsl read it: per step,
// a run of (cell, value) entries, one per cell.
struct RainStep {
    start: u32,
    count: u32,
    // Rain the chunk's earlier steps added (metres·cells; the height field's volume target).
    before: f32,
    _pad0: u32,
}
