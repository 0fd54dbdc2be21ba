//! A copy of a model's books that each frame's encoder maps on submit, read by the next
//! `record` if it has arrived and never waited for: how an embedded run's substeps follow its
//! flow (the shallow-water model's books, the layer's stats) without a stall.

use crate::error::{Error, Result};

/// A map's outcome, set by its callback.
type Mapped = std::sync::Arc<std::sync::Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>>;

/// The watch buffer, whether its copy is on its way, and why the substeps could not follow.
pub(super) struct FlowWatch {
    watch: wgpu::Buffer,
    mapped: Mapped,
    /// The copy is mapped or on its way.
    pending: bool,
    /// Why the substeps could not follow the flow, reported by `Water::check`.
    outran: Option<Error>,
}

impl FlowWatch {
    /// A watch over `bytes` bytes of books.
    pub(super) fn new(device: &wgpu::Device, label: &str, bytes: u64) -> FlowWatch {
        let watch = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        FlowWatch {
            watch,
            mapped: Default::default(),
            pending: false,
            outran: None,
        }
    }

    /// Copies `books` at the end of what `encoder` holds and maps the copy on submit, unless the
    /// last copy has not been read yet.
    pub(super) fn arm(&mut self, encoder: &mut wgpu::CommandEncoder, books: &wgpu::Buffer) {
        if self.pending {
            return;
        }
        encoder.copy_buffer_to_buffer(books, 0, &self.watch, 0, None);
        let flag = self.mapped.clone();
        encoder.map_buffer_on_submit(&self.watch, wgpu::MapMode::Read, .., move |r| {
            *flag.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        });
        self.pending = true;
    }

    /// Reads the last copy if it has arrived (never waits) and raises `sim`'s substeps when the
    /// flow's Courant number it holds (`courant_of`) passed the model's target, as a batch run
    /// does between chunks, a frame or two late.
    pub(super) fn follow(&mut self, sim: &mut crate::Simulation, device: &wgpu::Device, courant_of: fn(&[u8]) -> f32) {
        let courant = match self.take(device) {
            None => return,
            Some(Ok(bytes)) => courant_of(&bytes),
            Some(Err(e)) => {
                self.outran = Some(e);
                return;
            }
        };
        if let Err(e) = sim.follow_flow(courant) {
            self.outran.get_or_insert(e);
        }
    }

    /// Why the substeps could not follow the flow since the last call, if they could not.
    pub(super) fn outran(&mut self) -> Option<Error> {
        self.outran.take()
    }

    /// The copy's bytes if its map has completed (a non-blocking poll runs the callbacks that are
    /// due), None while it is on its way or none was armed.
    fn take(&mut self, device: &wgpu::Device) -> Option<Result<Vec<u8>>> {
        if !self.pending {
            return None;
        }
        let _ = device.poll(wgpu::PollType::Poll);
        let state = self.mapped.lock().unwrap_or_else(|e| e.into_inner()).take()?;
        self.pending = false;
        Some(match state {
            Err(e) => Err(Error::Readback(e.to_string())),
            Ok(()) => {
                let bytes = self.watch.slice(..).get_mapped_range().map(|r| r.to_vec());
                self.watch.unmap();
                bytes.map_err(|e| Error::Readback(e.to_string()))
            }
        })
    }
}
