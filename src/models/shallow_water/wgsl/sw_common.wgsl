#import exact
// The shallow-water model's uniforms and step slots, bound alike by every pass of its room
// (shallow_water.wgsl, sw_feed.wgsl): group 0 binding 0 and group 1 binding 0.

// Mirrors `SwParams` (src/models/shallow_water/setup.rs).
struct SwParams {
    nx: u32,
    ny: u32,
    dt: f32,
    inv_dx: f32,
    g: f32,
    n2: f32,
    film: f32,
    theta: f32,
    bc_west: u32,
    bc_east: u32,
    bc_south: u32,
    bc_north: u32,
    n_probes: u32,
    cells: u32,
    // sw_feed.wgsl's: [rainfall]'s mode, and 1.0 for its TwoSum.
    rainfall: u32,
    one: f32,
    // [[pressure]] or bodies: where each step's pressure head starts in `ground` (pressure.wgsl
    // and sw_bodies.wgsl write it after the ground); 0 without.
    air_at: u32,
    // [friction] map: where each cell's n² starts in `ground`; 0 without (every cell takes n2).
    friction_at: u32,
    // [infiltration]: its law (sw_feed.wgsl's SOIL_*; 0 without), and where its three
    // parameter planes start in `ground`.
    infiltration: u32,
    soil_at: u32,
    // physics.damping as a drag on the discharges (1/s), and physics.damping_map: where each
    // cell's drag starts in `ground`; 0 without (every cell takes drag).
    drag: f32,
    drag_at: u32,
    // 1: [[pressure]] patches write each step's head at `air_at` (pressure.wgsl) before the
    // bodies add their draft to it (sw_bodies.wgsl's `press`); 0: the bodies write it alone.
    patched: u32,
    _pad0: u32,
}

@group(0) @binding(0) var<uniform> p: SwParams;

// Mirrors `SwSlot` (setup.rs): the step's index within its submit and the river sides' values
// then (west, east, south, north: a discharge's q into the domain, a stage's level − ref), one
// per step of a submit, bound with a dynamic offset. Its first 16 bytes are summary.wgsl's
// `StepSlot`, so the flood maps' fold binds the same slots.
struct SwSlot {
    index: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    sides: vec4<f32>,
}

@group(1) @binding(0) var<uniform> slot: SwSlot;

// Knuth's TwoSum through p.one (exact.wgsl): s = fl(a + b) and its exact error. The feed's
// heights go through it into the cell's carry.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    return two_sum_through(a, b, p.one);
}

// The stages' TwoSum (exact.wgsl's `sum_exact_through`): Knuth's form lost its error to zero
// inside the stages on lavapipe (rain far under the surface's ulp vanished).
fn sum_exact(a: f32, b: f32) -> vec2<f32> {
    return sum_exact_through(a, b, p.one);
}
