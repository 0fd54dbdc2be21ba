// A probe entry is a cell with what to read of it in its top two bits: the surface (a gauge) or
// a unit discharge (a piece of a discharge line, or a gauge's velocity: engine/sections.rs). The
// probe passes of the models with a discharge read them (shallow_water.wgsl, pipes.wgsl).
const PROBE_SHIFT: u32 = 30u;
const PROBE_ETA: u32 = 0u;
const PROBE_QX: u32 = 1u;
const PROBE_QY: u32 = 2u;

// The cell an entry names.
fn probe_cell(entry: u32) -> u32 {
    return entry & ((1u << PROBE_SHIFT) - 1u);
}

// What it reads of the cell (PROBE_*).
fn probe_kind(entry: u32) -> u32 {
    return entry >> PROBE_SHIFT;
}
