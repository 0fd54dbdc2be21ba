// What covers each column: shared by the height field's passes (through common.wgsl) and the
// Navier-Stokes layer's surface (ns_surface.wgsl), which carries bodies too.

// What covers one column (bodies.wgsl `footprint`): the lowest body over the cell and the water
// its column holds. Read by the coupling solve and, for `held`, by reduce.wgsl and
// ns_surface.wgsl's volume. Mirrors
// `crate::bodies::Cover`.
struct Cover {
    // The body's underside and top over the cell centre, relative to the reference level;
    // NO_BODY when no body covers the column.
    bottom: f32,
    top: f32,
    // 1 + the body's index, 0 for none; TAGGED when the water touches a body that pierces the
    // surface: the coupling expels the water above `bottom`.
    owner: u32,
    // Body volume (metres·cells) the column holds below its surface: a submerged body's
    // thickness, which the surface carries on top of the water.
    held: f32,
}

const NO_BODY: f32 = 3.0e38;
const TAGGED: u32 = 0x80000000u;
