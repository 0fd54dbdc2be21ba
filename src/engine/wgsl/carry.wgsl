#import common
// What a store leaves behind in each cell, one binding for the passes that keep it (level.wgsl's
// `store`, volume.wgsl's `apply`, reduce.wgsl): words 0..nx·ny hold the rounding residual of each
// cell's last eta update (read and written only by its own cell); under CORRECT_CLAMPS, words
// nx·ny.. hold per cell a pair, what the dry-cell rule did since the last correction (the water
// it made and the per-step change it dropped: written by `store`, summed by the reduction, reset
// by `apply`). One binding rather than two because WebGPU lets a pipeline bind only 8 to 10
// storage buffers. Every importer binds it at group 0, binding 3. Host: `GpuState::carry`.

@group(0) @binding(3) var<storage, read_write> carry: array<f32>;

// Cell c's clamp record (made, dropped).
fn clamped_at(c: u32) -> vec2<f32> {
    let at = params.nx * params.ny + 2u * c;
    return vec2<f32>(carry[at], carry[at + 1u]);
}

fn set_clamped(c: u32, record: vec2<f32>) {
    let at = params.nx * params.ny + 2u * c;
    carry[at] = record.x;
    carry[at + 1u] = record.y;
}
