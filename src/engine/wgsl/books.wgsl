#import common
// The books every pass on the height field keeps, in one binding: the last reduction's totals,
// the volume target and this step's correction, the first step that diverged, and the
// reduction's per-workgroup partials (sums.wgsl). One binding rather than four because WebGPU
// lets a pipeline bind only 8 to 10 storage buffers (the explicit step binds eight). Every
// importer binds it at group 0, binding 2; the host finds each part at naga's offsets
// (`GpuState::books_at`). Twins: `Totals` and `VolumeState` in src/params.rs.

struct Books {
    totals: Totals,
    volume: Volume,
    // The first step of the chunk that left a non-finite or over-deep cell (level.wgsl's
    // `store`), u32::MAX while none has.
    first_bad_step: atomic<u32>,
    partials: array<Totals>,
}

@group(0) @binding(2) var<storage, read_write> books: Books;
