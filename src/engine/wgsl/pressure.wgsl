#import slot
// The air pressure on the surface (SCENE.md [[pressure]], src/pressure.rs), once per step before
// the substeps: each cell's head p/(ρg) summed over the patches where they stand this step (the
// host places them, in cell units, at the step's middle). The explicit and ADI steps add it to
// the surface in every slope they take (level.wgsl's `head_of`). Twin: src/cpu/pressure.rs.

const SHAPE_GAUSSIAN: u32 = 0u;
const SHAPE_BOX: u32 = 1u;

// Mirrors `crate::pressure::Patch`.
struct Patch {
    x: f32,
    y: f32,
    // p/(ρg) at the centre, m.
    head: f32,
    shape: u32,
    // Gaussian: 1/(2σ²) in cells⁻²; box: half its extent along x, in cells.
    a: f32,
    // Box: half its extent along y, in cells.
    b: f32,
    _pad0: u32,
    _pad1: u32,
}

struct PressureParams {
    // Patches per step.
    count: u32,
    // Where the head starts in `ground` (after the ground and the damping map, if any).
    at: u32,
    // The grid, in cells: the pass reads no model's uniforms, so every model that takes air
    // pressure writes its head with it (the height field, the shallow-water model).
    nx: u32,
    ny: u32,
}

@group(0) @binding(0) var<uniform> pp: PressureParams;
// `count` patches per step of the chunk, row per step.
@group(0) @binding(1) var<storage, read> patches: array<Patch>;
// The ground buffer: the ground, then the per-cell forcing (level.wgsl), whose head this writes.
@group(0) @binding(2) var<storage, read_write> ground: array<f32>;
@group(1) @binding(0) var<uniform> slot: StepSlot;

// Patch q's head at the centre of cell (i, j).
fn patch_head(q: Patch, i: u32, j: u32) -> f32 {
    let dx = (f32(i) + 0.5) - q.x;
    let dy = (f32(j) + 0.5) - q.y;
    if q.shape == SHAPE_BOX {
        return select(0.0, q.head, abs(dx) <= q.a && abs(dy) <= q.b);
    }
    return q.head * exp(-(dx * dx + dy * dy) * q.a);
}

@compute @workgroup_size(16, 16)
fn head(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= pp.nx || gid.y >= pp.ny {
        return;
    }
    var sum = 0.0;
    let first = slot.index * pp.count;
    for (var k = 0u; k < pp.count; k++) {
        sum = sum + patch_head(patches[first + k], gid.x, gid.y);
    }
    ground[pp.at + gid.y * pp.nx + gid.x] = sum;
}
