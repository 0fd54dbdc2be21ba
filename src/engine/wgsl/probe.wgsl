#import common
#import probe_entry
// Records each probe entry after every step into a history buffer, so probes.csv and
// sections.csv get a row per step without a per-step readback. Twin: src/engine/cpu/probe.rs.
//
// A gauge reads eta. A discharge line's piece (PROBE_QX, PROBE_QY: engine/sections.rs) reads
// its cell's flow along the axis from the faces' flux memory the level keeps after its per-step
// changes (level.wgsl's `memory_at`; the host keeps that memory in a scene with a discharge
// line): the mean of the cell's two faces on that axis, in metres of height a face moved out of
// its west (south) cell this substep, which the host turns into m²/s (× dx / dt_sub). A face
// the domain does not hold (past a side that is not periodic) gives the cell's other face.

@group(0) @binding(1) var<storage, read> probe_cells: array<u32>;
@group(0) @binding(2) var<storage, read_write> history: array<f32>;

@group(1) @binding(0) var<storage, read> eta: array<f32>;
@group(1) @binding(1) var<storage, read> vel: array<f32>;

@group(2) @binding(0) var<uniform> slot: StepSlot;

// The water the face east (north) of cell c moved out of c, eastward (northward) positive: its
// memory is signed into its owner, c.
fn moved_across(c: u32, north: bool) -> f32 {
    return -vel[params.nx * params.ny + 2u * c + u32(north)];
}

// The cell's flow along x (`north` false) or y, as the mean of its two faces'.
fn cell_flow(c: u32, north: bool) -> f32 {
    let nx = params.nx;
    let ny = params.ny;
    let i = c % nx;
    let j = c / nx;
    let periodic = select(params.bc_west == PERIODIC, params.bc_south == PERIODIC, north);
    let along = select(i, j, north);
    let count = select(nx, ny, north);
    let before_real = along > 0u || periodic;
    let after_real = along + 1u < count || periodic;
    let before_cell = select(select(c - 1u, c + nx - 1u, i == 0u), select(c - nx, c + nx * (ny - 1u), j == 0u), north);
    let after = moved_across(c, north);
    let before = moved_across(before_cell, north);
    let a = select(before, after, after_real);
    let b = select(after, before, before_real);
    return select(0.0, 0.5 * (a + b), before_real || after_real);
}

@compute @workgroup_size(64)
fn record(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = gid.x;
    if p >= params.n_probes {
        return;
    }
    let entry = probe_cells[p];
    let c = probe_cell(entry);
    let kind = probe_kind(entry);
    var value = eta[c];
    if kind != PROBE_ETA {
        value = cell_flow(c, kind == PROBE_QY);
    }
    history[slot.index * params.n_probes + p] = value;
}
