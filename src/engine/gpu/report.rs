//! A chunk's report: copied from the state's buffers into one readback after the chunk's last
//! step, and read back as one struct (then the probes' and bodies' histories behind it). The
//! copies take their offsets from mirrored structs, never from literal numbers.

use crate::engine::bodies::Solve;
use crate::engine::gpu::state::{books_at, Books, GpuState};
use crate::engine::params::{Totals, VolumeState};
use bytemuck::{Pod, Zeroable};
use std::mem::{offset_of, size_of};

/// Mirror of WGSL `Meta` (regions.wgsl): the region counts before and after the last labelling.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RegionCounts {
    pub old_count: u32,
    pub count: u32,
    pub _pad: [u32; 2],
}

/// The head of the report readback.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Report {
    /// The reduction after the chunk.
    pub totals: Totals,
    /// First step within the chunk that went non-finite; u32::MAX when none.
    pub first_bad_step: u32,
    /// `VolumeState::target_hi`, `::target_lo` and `::held` after the chunk.
    pub books_target: [f32; 2],
    /// `RegionCounts::count` (left 0 unless "regions" runs).
    pub regions: u32,
    pub held: f32,
    /// The coupling solve of the chunk's last step (left 0 without bodies).
    pub solve: Solve,
}

/// Where the probes' history starts in the readback; the bodies' history follows it.
pub const HISTORY_AT: u64 = size_of::<Report>() as u64;

/// Records the copies of the report into `readback`: the head, then `probe_bytes` of the probes'
/// history and `body_bytes` of the bodies'.
pub fn record(
    encoder: &mut wgpu::CommandEncoder,
    state: &GpuState,
    readback: &wgpu::Buffer,
    regions: bool,
    probe_bytes: u64,
    body_bytes: u64,
) {
    let at = |offset: usize| offset as u64;
    let word = 4;
    encoder.copy_buffer_to_buffer(
        &state.books,
        books_at(Books::Totals),
        readback,
        at(offset_of!(Report, totals)),
        size_of::<Totals>() as u64,
    );
    encoder.copy_buffer_to_buffer(
        &state.books,
        books_at(Books::FirstBadStep),
        readback,
        at(offset_of!(Report, first_bad_step)),
        word,
    );
    let volume = |field: usize, to: usize, bytes: u64, encoder: &mut wgpu::CommandEncoder| {
        encoder.copy_buffer_to_buffer(
            &state.books,
            books_at(Books::Volume) + at(field),
            readback,
            at(to),
            bytes,
        )
    };
    volume(
        offset_of!(VolumeState, target_hi),
        offset_of!(Report, books_target),
        2 * word,
        encoder,
    );
    volume(offset_of!(VolumeState, held), offset_of!(Report, held), word, encoder);
    if regions {
        let count = at(offset_of!(RegionCounts, count));
        encoder.copy_buffer_to_buffer(
            &state.regions.counts,
            count,
            readback,
            at(offset_of!(Report, regions)),
            word,
        );
    }
    if probe_bytes > 0 {
        encoder.copy_buffer_to_buffer(&state.probe_history, 0, readback, HISTORY_AT, probe_bytes);
    }
    if body_bytes > 0 {
        let b = &state.bodies;
        let solve = size_of::<Solve>() as u64;
        encoder.copy_buffer_to_buffer(&b.solve, 0, readback, at(offset_of!(Report, solve)), solve);
        encoder.copy_buffer_to_buffer(&b.history, 0, readback, HISTORY_AT + probe_bytes, body_bytes);
    }
}

/// The report's head and the f32 words of its two histories, from the mapped readback.
pub fn read(bytes: &[u8], probe_bytes: u64, body_bytes: u64) -> (Report, Vec<f32>, Vec<f32>) {
    let head: Report = bytemuck::pod_read_unaligned(&bytes[..HISTORY_AT as usize]);
    let words = |from: u64, len: u64| -> Vec<f32> {
        bytes[from as usize..(from + len) as usize]
            .chunks_exact(4)
            .map(bytemuck::pod_read_unaligned)
            .collect()
    };
    (
        head,
        words(HISTORY_AT, probe_bytes),
        words(HISTORY_AT + probe_bytes, body_bytes),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wgsl::{check_mirror, fields};

    #[test]
    fn the_volume_and_region_records_mirror_their_wgsl() {
        check_mirror(
            "Volume",
            size_of::<VolumeState>(),
            fields!(VolumeState {
                target_hi,
                target_lo,
                correction,
                vel_correction,
                held,
                marked
            }),
        );
        check_mirror(
            "Meta",
            size_of::<RegionCounts>(),
            fields!(RegionCounts { old_count, count }),
        );
    }
}
