//! `Water` on the pipes model: the columns' top floor the render side reads as the ground, the
//! bodies' covers, the host's edits in place in whole units (`gpu/pipe_edits.rs`), and the steps
//! recorded chunk by chunk with the scene's rain and air pressure as a batch run makes them.

use crate::engine::edit::HostEdit;
use crate::engine::gpu::caustics::Caustics;
use crate::engine::gpu::surface::{Surface, SurfaceBuffers, SurfaceSource};
use crate::error::{Error, Result};
use crate::models::pipes::gpu::pipe_edits::PipeEdits;
use crate::models::pipes::gpu::pipe_solver::GpuPipes;
use crate::Simulation;

/// What `Water` keeps for the pipes.
pub(super) struct PipesPart {
    /// Each column's top floor − ref (f32, metres): the ground a renderer binds; in-place
    /// brushes move it.
    pub(super) ground: wgpu::Buffer,
    /// The bodies' covers (a stand-in without bodies).
    pub(super) cover: wgpu::Buffer,
    edits: PipeEdits,
}

/// The pipes' GPU backend (`Water::new` refuses anything else).
pub(super) fn pipes(sim: &mut Simulation) -> &mut GpuPipes {
    sim.gpu_pipes().expect("Water is built on the GPU pipes")
}

/// The pipes' surface: their columns' top floor, the surface their pass writes and the bodies'
/// covers (they press the water: the surface is its own), their substeps planned for
/// `max_depth`.
pub(super) fn pipes_surface(
    device: &wgpu::Device,
    sim: &mut Simulation,
    out: &SurfaceBuffers,
    max_depth: Option<f64>,
) -> Result<(PipesPart, Surface, Option<Caustics>)> {
    if let Some(depth) = max_depth {
        sim.plan_for_depth(depth)?;
    }
    let (nx, ny) = (sim.scene().grid.nx, sim.scene().grid.ny);
    use wgpu::util::DeviceExt;
    let usage = wgpu::BufferUsages::STORAGE
        | wgpu::BufferUsages::VERTEX
        | wgpu::BufferUsages::COPY_SRC
        | wgpu::BufferUsages::COPY_DST;
    let ground = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("pipes top floor"),
        contents: bytemuck::cast_slice(sim.ground_relative()),
        usage,
    });
    let gpu = sim
        .gpu_pipes()
        .ok_or_else(|| Error::Embed("Water needs the GPU backend".into()))?;
    let cover = gpu.body_covers().cloned().unwrap_or_else(|| super::no_cover(device));
    let level = gpu.surface_buffer();
    let source = SurfaceSource {
        nx,
        ny,
        ground: &ground,
        levels: [level, level],
        cover: &cover,
    };
    let (surface, caustics) = super::render_passes(device, source, out);
    let edits = PipeEdits::new(device, gpu.buffers(), gpu.edit_params(), &ground);
    Ok((PipesPart { ground, cover, edits }, surface, caustics))
}

impl PipesPart {
    /// The host's edits and body writes, then `steps` steps after step `at` in chunks, each with
    /// the scene's rain, hydrographs and air pressure step by step (keyed by step index), then
    /// the surface.
    pub(super) fn record(
        &mut self,
        sim: &mut Simulation,
        uploads: &crate::engine::gpu::uploads::Uploads,
        encoder: &mut wgpu::CommandEncoder,
        (edits, body_writes): (&[HostEdit], &[(u64, Vec<u8>)]),
        at: u64,
        steps: u32,
    ) {
        let substeps = sim.substeps();
        let gpu = pipes(sim);
        if let Some(states) = gpu.body_states() {
            for (offset, bytes) in body_writes {
                uploads.stage(encoder, states, *offset, bytes);
            }
        }
        let device = gpu.device().clone();
        self.edits.record(&device, encoder, gpu.buffers(), &self.ground, edits);
        let mut done = 0;
        while done < steps {
            let n = (steps - done).min(crate::engine::params::MAX_CHUNK);
            let first = at + done as u64;
            let feeds = sim.feeds();
            let rain = if feeds.any() {
                feeds.chunk(first, n)
            } else {
                Default::default()
            };
            let pressure = sim.patches().chunk(first, n);
            pipes(sim).record_chunk(encoder, n, substeps, first, &rain, &pressure);
            done += n;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shoal pipes surface"),
            timestamp_writes: None,
        });
        pipes(sim).record_surface(&mut pass);
    }

    /// The surface and the top floor (h − ref, b − ref, f32 per column) read back, the floor as
    /// the in-place brushes left it. Waits for the GPU.
    pub(super) fn read_level(&self, sim: &mut Simulation) -> Result<(Vec<f32>, Vec<f32>)> {
        let eta = sim.eta()?;
        let gpu = pipes(sim);
        let ground = crate::engine::gpu::readback::read(gpu.device(), gpu.queue(), &self.ground)?;
        Ok((eta, bytemuck::pod_collect_to_vec(&ground)))
    }
}
