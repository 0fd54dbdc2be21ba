// Shared by the Navier-Stokes layer's passes (navier_stokes.wgsl, ns_surface.wgsl): its uniforms
// and the 3D grid's indexing. Twin: src/cpu/navier_stokes.rs (`NsParams`); the host's mirror is
// `crate::gpu::navier_stokes::NsUniforms`.
//
// Cell (i, j, k) is `(k·ny + j)·nx + i`. The velocities share one buffer: u faces first
// (`(k·ny + j)·(nx + 1) + i`, face i the west face of cell i), then v faces
// (`(k·(ny + 1) + j)·nx + i`), then w faces (`(k·ny + j)·nx + i`, face k the floor of cell k).

struct NsUniforms {
    // The 3D grid's cells along x, y and z.
    nx: u32,
    ny: u32,
    nz: u32,
    // The height field's cells along x and y, and its cells per 3D cell across.
    fnx: u32,
    fny: u32,
    coarsen: u32,
    // The most red-black sweeps of the pressure iteration per substep in this chunk (the host's
    // budget, at most navier_stokes.max_sweeps).
    budget: u32,
    n_probes: u32,
    // Horizontal and vertical cell size, m; the grid's floor relative to the reference level.
    dx: f32,
    dz: f32,
    z0: f32,
    // Gravity, m/s²; kinematic viscosity ν, m²/s.
    g: f32,
    nu: f32,
    // The pressure iteration's β₀ (eq. 7) and the largest |D| (1/s) a Full cell may keep.
    beta0: f32,
    epsilon: f32,
    // The share γ of donor-cell differencing in the momentum's advection.
    upwind: f32,
    // One substep, s.
    dt: f32,
    // Always 1.0: multiplying by it keeps the compiler's algebra out of `two_sum`.
    one: f32,
    // The volume the global correction holds the height field to (metres·cells, hi + lo).
    target_hi: f32,
    target_lo: f32,
    // 1: correct the volume after each step.
    correct: u32,
    // Strips of the volume's first level (ns_surface.wgsl).
    strips: u32,
    // The pressure sweeps' workgroups (x, y) over the grid's cells.
    cell_groups_x: u32,
    cell_groups_y: u32,
    // The travelling wave's wavenumber (rad/m) and direction.
    wave_k: f32,
    wave_dx: f32,
    wave_dy: f32,
    // Metres of depth one unit of spray makes in one height-field cell (ns_spray.wgsl; 0 without
    // spray): the correction's target leaves out the units in the air.
    spray_unit: f32,
    // 1: marker particles set the flags (ns_markers.wgsl); a Surface cell keeps the applied
    // pressure.
    markers: u32,
    // The inflow side's faces pump between these heights (relative to the reference level).
    window_lo: f32,
    window_hi: f32,
    // 1: the scene has bodies: the height field carries their submerged volume (ns_surface.wgsl's
    // `cover`), which is not water.
    bodies: u32,
    // physics.damping as a drag on the tentative velocities, 1/s (0 without).
    drag: f32,
    // 1: Manning's friction: `columns` sets each column's drag (`manning_rate`); drag < 0.
    manning: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> ns: NsUniforms;

// A side's role in a substep (`NsSubstep.sides`).
const SIDE_WALL: u32 = 0u;
const SIDE_INFLOW: u32 = 1u;
const SIDE_OUTFLOW: u32 = 2u;

// One substep's forcing, as the host evaluated it (`crate::ns_forcing::Substep`).
struct NsSubstep {
    // The inflow side's velocity into the domain, m/s; the applied pressure's mean (p/ρ); the
    // travelling wave's phase and amplitude (p/ρ).
    inflow: f32,
    pressure: f32,
    phase: f32,
    wave: f32,
    // Each side's role: west, east, south, north.
    sides: vec4<u32>,
}

const SOLID: u32 = 0u;
const FULL: u32 = 1u;
const SURFACE: u32 = 2u;
const EMPTY: u32 = 3u;

// Threads per workgroup of every pass over cells, faces or columns.
const NS_WG: u32 = 64u;

// The linear index of a thread of a dispatch that may span two dimensions of workgroups.
fn thread_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.y * groups.x * NS_WG + gid.x;
}

fn columns_3d() -> u32 {
    return ns.nx * ns.ny;
}

fn cell(i: u32, j: u32, k: u32) -> u32 {
    return (k * ns.ny + j) * ns.nx + i;
}

fn u_faces() -> u32 {
    return (ns.nx + 1u) * ns.ny * ns.nz;
}

fn v_faces() -> u32 {
    return ns.nx * (ns.ny + 1u) * ns.nz;
}

fn uf(i: u32, j: u32, k: u32) -> u32 {
    return (k * ns.ny + j) * (ns.nx + 1u) + i;
}

fn vf(i: u32, j: u32, k: u32) -> u32 {
    return u_faces() + (k * (ns.ny + 1u) + j) * ns.nx + i;
}

fn wf(i: u32, j: u32, k: u32) -> u32 {
    return u_faces() + v_faces() + (k * ns.ny + j) * ns.nx + i;
}

// The height of cell k's centre, m.
fn centre(k: u32) -> f32 {
    return ns.z0 + (f32(k) + 0.5) * ns.dz;
}

// How much of layer k lies under `top`, m, from 0 to dz (twin: `NsParams::wet_in`).
fn wet_in(k: u32, top: f32) -> f32 {
    return clamp(top - (ns.z0 + f32(k) * ns.dz), 0.0, ns.dz);
}

// Whether layer k's centre lies in the inflow's window: twin of `in_window`.
fn in_window(k: u32) -> bool {
    let z = centre(k);
    return z >= ns.window_lo && z <= ns.window_hi;
}
