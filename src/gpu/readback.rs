//! Reading GPU buffers back: only at output steps and at the end of a submit, never per step.

use crate::error::{Error, Result};

/// Maps the first `bytes` of a MAP_READ buffer, waits for the GPU, and copies them out.
pub fn map(device: &wgpu::Device, buffer: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>> {
    let slice = buffer.slice(..bytes);
    let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = sender.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::Readback(e.to_string()))?;
    match pollster::block_on(receiver.receive()) {
        Some(Ok(())) => {}
        Some(Err(e)) => return Err(Error::Readback(e.to_string())),
        None => return Err(Error::Readback("the map callback never ran".into())),
    }
    let data = slice
        .get_mapped_range()
        .map_err(|e| Error::Readback(e.to_string()))?
        .to_vec();
    buffer.unmap();
    Ok(data)
}

/// Copies a whole COPY_SRC buffer into a fresh staging buffer and reads it (for tests and
/// one-off reads; the step loop keeps its own staging buffers).
pub fn read(device: &wgpu::Device, queue: &wgpu::Queue, source: &wgpu::Buffer) -> Result<Vec<u8>> {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("staging"),
        size: source.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(source, 0, &staging, 0, source.size());
    queue.submit([encoder.finish()]);
    map(device, &staging, source.size())
}
