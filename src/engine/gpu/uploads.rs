//! Small host-to-GPU writes recorded in an encoder (a chunk's step slots, an edit list, the
//! frame's camera): written into a reused staging chunk and copied in the encoder, so several
//! recordings before one submit each read their own bytes (`Queue::write_buffer` would hand all
//! of them the last). The chunks come back for reuse when the encoder that read them has been
//! submitted and the copy is done: a frame creates no buffer once the first few frames have run
//! (a buffer mapped at creation every frame exhausted Chromium's mappable memory within seconds).

use std::num::NonZeroU64;
use std::sync::Mutex;

/// Bytes per staging chunk: every per-frame write fits many times over; a larger write gets a
/// chunk of its own size, reused as the others are.
const CHUNK_BYTES: u64 = 4096;

/// A staging belt shared by the passes of one solver (or one `Water`).
pub struct Uploads {
    belt: Mutex<wgpu::util::StagingBelt>,
}

impl Uploads {
    pub fn new(device: &wgpu::Device) -> Uploads {
        Uploads {
            belt: Mutex::new(wgpu::util::StagingBelt::new(device.clone(), CHUNK_BYTES)),
        }
    }

    /// Records a copy of `bytes` (a multiple of 4 long) into `target` at `offset`, in `encoder`.
    /// Each write closes its chunk against this encoder, so an encoder dropped unsubmitted holds
    /// only its own chunks, and interleaved encoders never share one.
    pub fn stage(&self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::Buffer, offset: u64, bytes: &[u8]) {
        let Some(size) = NonZeroU64::new(bytes.len() as u64) else {
            return;
        };
        // A poisoned lock means a panic elsewhere already ended this solver's use.
        let mut belt = self.belt.lock().unwrap_or_else(|e| e.into_inner());
        belt.write_buffer(encoder, target, offset, size).copy_from_slice(bytes);
        belt.finish_and_recall_on_submit(encoder);
    }
}
