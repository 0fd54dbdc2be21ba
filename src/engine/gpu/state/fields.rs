//! How the state table's fields become GPU buffers: one allocation rule for every field, so the
//! memory estimate, checkpoints and the buffers agree.

use crate::engine::gpu::binding::{filled_buffer, zeroed_buffer};
use crate::engine::solver::Setup;
use crate::engine::state_table::{gpu_field_bytes, spec_of, Field, Kept, Shape};

/// Allocates the fields of `state_table::FIELDS` for one run: each at the table's size for the
/// run's shape, copyable both ways when a checkpoint keeps it.
pub struct FieldAlloc<'a> {
    device: &'a wgpu::Device,
    shape: Shape<'a>,
    bodies: usize,
}

impl<'a> FieldAlloc<'a> {
    /// For the run `setup` describes.
    pub fn new(device: &'a wgpu::Device, setup: &'a Setup) -> FieldAlloc<'a> {
        let shape = Shape {
            params: &setup.params,
            method: setup.method,
            pipes: None,
            navier_stokes: None,
            ns_spray: false,
            ns_markers: None,
            shallow_water: false,
            ns_fed: false,
        };
        FieldAlloc {
            device,
            shape,
            bodies: setup.bodies.len(),
        }
    }

    /// Bytes of one copy of `field` (a stand-in's where the run has none).
    pub fn bytes(&self, field: Field) -> u64 {
        gpu_field_bytes(field, &self.shape, self.bodies)
    }

    /// One copy of `field`, usable as `usage` (plus COPY_SRC and COPY_DST where a checkpoint
    /// keeps the field), holding `contents` where given and zeros else (wgpu zeroes new buffers).
    /// `contents` must fill the buffer: a stand-in for an absent field takes an empty slice or
    /// exactly its stand-in's bytes.
    pub fn buffer(&self, field: Field, label: &str, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let size = self.bytes(field);
        let usage = match spec_of(field).kept {
            Kept::Scratch => usage,
            _ => usage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        };
        if contents.is_empty() {
            return zeroed_buffer(self.device, label, size, usage);
        }
        assert_eq!(
            contents.len() as u64,
            size,
            "{label}: contents do not match the state table"
        );
        filled_buffer(self.device, label, contents, usage)
    }
}
