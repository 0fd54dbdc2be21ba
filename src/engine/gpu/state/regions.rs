//! The per-region correction's buffers, part of the state because `volume.wgsl` binds them
//! (the pass that fills them is `gpu/regions.rs`).

use crate::engine::gpu::binding::zeroed_buffer;
use crate::engine::gpu::state::FieldAlloc;
use crate::engine::state_table::Field;
use crate::wgsl::regions::{MASK_WORDS, TILE};

/// The buffers of the per-region correction, owned by `GpuState` because `volume.wgsl` binds them
/// too. 16-byte stand-ins when `params.regions` is 0.
pub struct RegionBuffers {
    /// Union-find parents, u32 per cell.
    pub parent: wgpu::Buffer,
    /// Roots per tile of 256 cells, then their exclusive scan; then each tile's root mask.
    pub roots: wgpu::Buffer,
    /// `STRIDE` u32 per region: this step's sums (regions.wgsl's field list).
    pub table: wgpu::Buffer,
    /// (old_count, count, _, _): regions last step and this step.
    pub counts: wgpu::Buffer,
    /// Water added to each cell after the last correction, f32 per cell.
    pub pending: wgpu::Buffer,
    /// Per region (height correction, vel correction).
    pub corrections: wgpu::Buffer,
    /// Region label per cell (id + 1, 0 dry), two levels.
    pub labels: [wgpu::Buffer; 2],
    /// Per region target, 64-bit fixed point (2^-28 metres·cells), two levels.
    pub targets: [wgpu::Buffer; 2],
    /// Which of `labels` and `targets` holds the latest step's.
    pub current: usize,
}

impl RegionBuffers {
    /// The region buffers: the table's fields through `fields`, 16-byte stand-ins for the rest
    /// when the per-region correction is off (`capacity` 0).
    pub fn new(device: &wgpu::Device, fields: &FieldAlloc, cells: u32, capacity: u32) -> RegionBuffers {
        let on = capacity > 0;
        let storage = wgpu::BufferUsages::STORAGE;
        let buffer =
            |label: &str, bytes: u64, usage| zeroed_buffer(device, label, if on { bytes.max(16) } else { 16 }, usage);
        let regions = capacity as u64;
        // The identity: every cell its own root (`region_sum` restores it each step).
        let identity: Vec<u32> = if on { (0..cells).collect() } else { Vec::new() };
        RegionBuffers {
            parent: fields.buffer(
                Field::RegionParents,
                "region parents",
                bytemuck::cast_slice(&identity),
                storage,
            ),
            roots: buffer(
                "region roots",
                cells.div_ceil(TILE) as u64 * (1 + MASK_WORDS as u64) * 4,
                storage,
            ),
            table: buffer(
                "region table",
                regions * crate::wgsl::regions::STRIDE as u64 * 4,
                storage,
            ),
            counts: buffer(
                "region counts",
                16,
                storage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            ),
            pending: fields.buffer(Field::Pending, "region pending", &[], storage),
            corrections: buffer("region corrections", regions * 8, storage),
            labels: [
                fields.buffer(Field::RegionLabels, "region labels 0", &[], storage),
                fields.buffer(Field::RegionLabels, "region labels 1", &[], storage),
            ],
            targets: [
                fields.buffer(Field::RegionTargets, "region targets 0", &[], storage),
                fields.buffer(Field::RegionTargets, "region targets 1", &[], storage),
            ],
            current: 0,
        }
    }
}
