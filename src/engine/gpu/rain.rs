//! A chunk's rain on the GPU: one `RainStep` per step and the chunk's (cell, value) entries, as
//! read-only storage in one bind group (group 3 of `volume.wgsl`, group 0's bindings 4–6 of
//! `pipe_rain.wgsl`: the layout is the caller's). The value is a height (f32, the height field)
//! or whole units (u32, the pipes); either is 4 bytes. Grown, with the bind group, when a chunk
//! brings more entries than they hold.

use crate::engine::gpu::binding::{bind_group, storage_entry};
use crate::engine::rain::RainStep;

const STEP_BYTES: u64 = std::mem::size_of::<RainStep>() as u64;

fn entries_buffer(device: &wgpu::Device, label: &str, entries: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: entries.max(4) * 4,
        // COPY_SRC: the shallow-water model's feed writes what drains could not take over the
        // values, which its report reads back.
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The layout entries of the three rain buffers at `first`, `first + 1`, `first + 2`.
pub fn layout_entries(first: u32) -> [wgpu::BindGroupLayoutEntry; 3] {
    [
        storage_entry(first, true),
        storage_entry(first + 1, true),
        storage_entry(first + 2, true),
    ]
}

/// The bind group of `fixed` then the three rain buffers.
fn group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    fixed: &[wgpu::Buffer],
    rain: [&wgpu::Buffer; 3],
) -> wgpu::BindGroup {
    let mut buffers: Vec<&wgpu::Buffer> = fixed.iter().collect();
    buffers.extend(rain);
    bind_group(device, "rain", layout, &buffers)
}

/// The rain buffers and their bind group.
pub struct RainBuffers {
    steps: wgpu::Buffer,
    cells: wgpu::Buffer,
    values: wgpu::Buffer,
    /// Built from `layout` with `fixed` bound first (buffers the pass binds beside the rain).
    group: wgpu::BindGroup,
    layout: wgpu::BindGroupLayout,
    fixed: Vec<wgpu::Buffer>,
    /// Entries per step of the chunk being recorded.
    counts: Vec<u32>,
    /// Its staged writes' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
}

impl RainBuffers {
    /// Buffers for `steps` steps a chunk, bound by `layout` after the `fixed` buffers (bindings
    /// 0.. in order; the rain's three follow).
    pub fn new(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        fixed: &[&wgpu::Buffer],
        steps: u32,
    ) -> RainBuffers {
        let steps = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("rain steps"),
            size: steps as u64 * STEP_BYTES,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let cells = entries_buffer(device, "rain cells", 0);
        let values = entries_buffer(device, "rain values", 0);
        let fixed: Vec<wgpu::Buffer> = fixed.iter().map(|&b| b.clone()).collect();
        let group = group(device, layout, &fixed, [&steps, &cells, &values]);
        RainBuffers {
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
            steps,
            cells,
            values,
            group,
            layout: layout.clone(),
            fixed,
            counts: Vec::new(),
        }
    }

    fn rebind(&mut self, device: &wgpu::Device) {
        self.group = group(
            device,
            &self.layout,
            &self.fixed,
            [&self.steps, &self.cells, &self.values],
        );
    }

    /// The per-step `RainStep`s (never regrown: bind groups of it alone are built once).
    pub fn steps(&self) -> &wgpu::Buffer {
        &self.steps
    }

    /// The entries' values (grown with the chunk: ask after each upload).
    pub fn values(&self) -> &wgpu::Buffer {
        &self.values
    }

    /// The bind group.
    pub fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }

    /// Entries of step `index` of the chunk last uploaded or staged (0 without rain).
    pub fn count(&self, index: u32) -> u32 {
        self.counts.get(index as usize).copied().unwrap_or(0)
    }

    /// Uploads a chunk's steps and entries before it is recorded (batch runs).
    pub fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        steps: &[RainStep],
        cells: &[u32],
        values: &[u32],
    ) {
        if self.fit(device, steps, cells.len()) {
            queue.write_buffer(&self.steps, 0, bytemuck::cast_slice(steps));
            for (buffer, words) in [(&self.cells, cells), (&self.values, values)] {
                if !words.is_empty() {
                    queue.write_buffer(buffer, 0, bytemuck::cast_slice(words));
                }
            }
        }
    }

    /// Stages them as copies in `encoder`, before the pass that steps them (embedded runs, whose
    /// chunks recorded back to back before one submit each need their own).
    pub fn stage(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        steps: &[RainStep],
        cells: &[u32],
        values: &[u32],
    ) {
        if self.fit(device, steps, cells.len()) {
            self.uploads.stage(encoder, &self.steps, 0, bytemuck::cast_slice(steps));
            self.uploads.stage(encoder, &self.cells, 0, bytemuck::cast_slice(cells));
            self.uploads
                .stage(encoder, &self.values, 0, bytemuck::cast_slice(values));
        }
    }

    /// Notes the chunk's counts and grows the entry buffers to fit; false without rain.
    fn fit(&mut self, device: &wgpu::Device, steps: &[RainStep], entries: usize) -> bool {
        self.counts = steps.iter().map(|s| s.count).collect();
        if steps.is_empty() {
            return false;
        }
        let entries = entries as u64;
        if entries * 4 > self.cells.size() {
            let capacity = entries.next_power_of_two();
            self.cells = entries_buffer(device, "rain cells", capacity);
            self.values = entries_buffer(device, "rain values", capacity);
            self.rebind(device);
        }
        true
    }
}
