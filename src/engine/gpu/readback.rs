//! Reading GPU buffers back: only at output steps and at the end of a submit, never per step.
//! Natively a read waits for the GPU; on the web nothing may block, so reads there are the async
//! `read_async` (the blocking ones fail with a message saying so).

use crate::error::{Error, Result};

/// Asks for the first `bytes` of a MAP_READ buffer now (the request is made before this returns:
/// the caller may poll the device at once) and gives the future of its bytes, copied out once
/// mapped. Natively the caller polls the device; on the web the browser's event loop maps it.
fn mapped(buffer: &wgpu::Buffer, bytes: u64) -> impl std::future::Future<Output = Result<Vec<u8>>> + '_ {
    let slice = buffer.slice(..bytes);
    let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = sender.send(r);
    });
    async move {
        match receiver.receive().await {
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
}

/// Maps the first `bytes` of a MAP_READ buffer, waits for the GPU, and copies them out.
#[cfg(not(target_arch = "wasm32"))]
pub fn map(device: &wgpu::Device, buffer: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>> {
    let read = mapped(buffer, bytes);
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::Readback(e.to_string()))?;
    pollster::block_on(read)
}

/// On the web a read cannot wait: see `read_async`.
#[cfg(target_arch = "wasm32")]
pub fn map(_device: &wgpu::Device, _buffer: &wgpu::Buffer, _bytes: u64) -> Result<Vec<u8>> {
    Err(Error::Unsupported(
        "a blocking read of a GPU buffer on the web (use the async reads, e.g. Water::read_level_async)".into(),
    ))
}

/// A staging copy of a whole COPY_SRC buffer, submitted.
fn stage(device: &wgpu::Device, queue: &wgpu::Queue, source: &wgpu::Buffer) -> wgpu::Buffer {
    let staging = buffer(device, "staging", source.size());
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(source, 0, &staging, 0, source.size());
    queue.submit([encoder.finish()]);
    staging
}

/// Copies a whole COPY_SRC buffer into a fresh staging buffer and reads it (for tests and
/// one-off reads; the step loop keeps its own staging buffers).
pub fn read(device: &wgpu::Device, queue: &wgpu::Queue, source: &wgpu::Buffer) -> Result<Vec<u8>> {
    let staging = stage(device, queue, source);
    map(device, &staging, source.size())
}

/// Reads `(buffer, offset, bytes)` ranges of COPY_SRC buffers (offsets and sizes multiples of 4)
/// with one staging buffer, one submit and one wait: a checkpoint's fields, several of which
/// share a buffer (the level's velocity and the faces' memory), each read once.
pub fn read_ranges(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    ranges: &[(&wgpu::Buffer, u64, u64)],
) -> Result<Vec<Vec<u8>>> {
    let total: u64 = ranges.iter().map(|r| r.2).sum();
    if total == 0 {
        return Ok(vec![Vec::new(); ranges.len()]);
    }
    let staging = buffer(device, "staging ranges", total);
    let mut encoder = device.create_command_encoder(&Default::default());
    let mut at = 0;
    for &(source, offset, bytes) in ranges {
        if bytes > 0 {
            encoder.copy_buffer_to_buffer(source, offset, &staging, at, bytes);
        }
        at += bytes;
    }
    queue.submit([encoder.finish()]);
    let all = map(device, &staging, total)?;
    let mut at = 0;
    Ok(ranges
        .iter()
        .map(|r| {
            let part = all[at..(at + r.2 as usize)].to_vec();
            at += r.2 as usize;
            part
        })
        .collect())
}

/// Whole COPY_SRC buffers, `None` read as nothing, with `read_ranges`' one submit and one wait.
pub fn read_whole(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffers: &[Option<&wgpu::Buffer>],
) -> Result<Vec<Vec<u8>>> {
    let ranges: Vec<_> = buffers.iter().flatten().map(|b| (*b, 0, b.size())).collect();
    let mut read = read_ranges(device, queue, &ranges)?.into_iter();
    Ok(buffers
        .iter()
        .map(|b| b.and_then(|_| read.next()).unwrap_or_default())
        .collect())
}

/// `read` without blocking: on the web, awaiting it lets the browser map the buffer. Natively,
/// poll the device while awaiting it (or use `read`).
pub async fn read_async(device: &wgpu::Device, queue: &wgpu::Queue, source: &wgpu::Buffer) -> Result<Vec<u8>> {
    let staging = stage(device, queue, source);
    mapped(&staging, source.size()).await
}

/// A mappable buffer of `size` bytes (at least 4) that copies land in for reading.
pub fn buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}
