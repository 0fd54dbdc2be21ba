#import ns_common
// The Navier-Stokes layer's grid state in group 0 after its uniforms (ns_common.wgsl), shared by
// navier_stokes.wgsl and ns_markers.wgsl (which bind the same group): the flags, the pressures,
// the columns with the chunk's forcing records, the iteration's bookkeeping; and the forcing of
// the current substep.

// Cell flags (SOLID, FULL, SURFACE, EMPTY), one u32 per cell.
@group(0) @binding(1) var<storage, read_write> flag: array<u32>;
// Kinematic pressure p/ρ per cell, m²/s², relative to the air.
@group(0) @binding(2) var<storage, read_write> p: array<f32>;
// Per 3D column its surface (the mean of its height-field cells), then per column its ground
// (m), then the chunk's forcing: 8 words per substep (`NsSubstep`).
@group(0) @binding(3) var<storage, read_write> col: array<f32>;
// The iteration's bookkeeping (navier_stokes.wgsl's STAT_*), f32 values as their bits (≥ 0, so
// u32 order is theirs).
@group(0) @binding(4) var<storage, read_write> stats: array<atomic<u32>, 8>;

// Substeps begun in this chunk: the current substep's forcing is record STAT_SUBSTEP − 1.
const STAT_SUBSTEP: u32 = 6u;

// This substep's forcing.
fn forcing() -> NsSubstep {
    let at = 2u * columns_3d() + 8u * (atomicLoad(&stats[STAT_SUBSTEP]) - 1u);
    let sides = vec4<u32>(bitcast<u32>(col[at + 4u]), bitcast<u32>(col[at + 5u]), bitcast<u32>(col[at + 6u]),
                          bitcast<u32>(col[at + 7u]));
    return NsSubstep(col[at], col[at + 1u], col[at + 2u], col[at + 3u], sides);
}

// The pressure applied over column (i, j) (§7.2, kinematic): the forcing's mean plus its
// travelling wave at the column's centre.
fn applied(f: NsSubstep, i: u32, j: u32) -> f32 {
    let x = (f32(i) + 0.5) * ns.dx;
    let y = (f32(j) + 0.5) * ns.dx;
    return f.pressure + f.wave * cos(ns.wave_k * (x * ns.wave_dx + y * ns.wave_dy) - f.phase);
}

// The ground under 3D column c, m (relative to the reference level).
fn column_ground(c: u32) -> f32 {
    return col[columns_3d() + c];
}
