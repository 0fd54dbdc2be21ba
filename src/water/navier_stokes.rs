//! `Water` on the Navier-Stokes layer: its height field as the surface, the steps recorded chunk
//! by chunk (at most the layer's own chunk) with their feeds staged in the host's encoder, and
//! the substeps following the flow from the stats mapped without a stall, as the shallow-water
//! model's do (`shallow_water.rs`).

use crate::engine::gpu::caustics::Caustics;
use crate::engine::gpu::surface::{Surface, SurfaceBuffers, SurfaceSource};
use crate::error::{Error, Result};
use crate::models::navier_stokes::gpu::ns_solver::GpuNs;
use crate::Simulation;

/// What `Water` keeps for the layer.
pub(super) struct NsPart {
    /// The bodies' covers, or a stand-in without bodies.
    pub(super) cover: wgpu::Buffer,
    /// The water at build, m³.
    start: f64,
    /// What the scene's sources, drains and rain asked since the build (metres·cells, f64).
    fed: f64,
    /// The stats' copy each frame's encoder maps on submit, for the flow's Courant number.
    watch: super::watch::FlowWatch,
}

/// The layer's GPU backend (`Water::new` refuses anything else).
pub(super) fn ns(sim: &mut Simulation) -> &mut GpuNs {
    sim.gpu_ns().expect("Water is built on the GPU Navier-Stokes layer")
}

/// The layer's surface: its height field over its ground, and the bodies' covers.
pub(super) fn layer_surface(
    device: &wgpu::Device,
    sim: &mut Simulation,
    out: &SurfaceBuffers,
) -> Result<(NsPart, Surface, Option<Caustics>, bool)> {
    let (nx, ny) = (sim.scene().grid.nx, sim.scene().grid.ny);
    let start = sim.target_volume();
    let gpu = sim
        .gpu_ns()
        .ok_or_else(|| Error::Embed("Water needs the GPU backend".into()))?;
    let bodies = gpu.body_buffers().is_some();
    let cover = match gpu.body_buffers() {
        Some((_, cover)) => cover.clone(),
        None => super::no_cover(device),
    };
    let (h, ground) = gpu.surface_buffers();
    let source = SurfaceSource {
        nx,
        ny,
        ground,
        levels: [h, h],
        cover: &cover,
    };
    let (surface, caustics) = super::render_passes(device, source, out);
    let watch = super::watch::FlowWatch::new(device, "ns stats watch", gpu.stats_buffer().size());
    let part = NsPart {
        cover,
        start,
        fed: 0.0,
        watch,
    };
    Ok((part, surface, caustics, bodies))
}

impl NsPart {
    /// `steps` steps after step `at` in chunks of at most the layer's own (`chunk_limit`), each
    /// with its feeds and pressure staged in `encoder`; the stats' copy mapped on submit when the
    /// last one has been read.
    pub(super) fn record(&mut self, sim: &mut Simulation, encoder: &mut wgpu::CommandEncoder, at: u64, steps: u32) {
        self.follow_flow(sim);
        let substeps = sim.substeps();
        let most = sim.chunk_limit();
        let mut done = 0;
        while done < steps {
            let n = (steps - done).min(most);
            for input in super::embedded_chunks(sim, at + done as u64, n) {
                self.fed += input.chunk.rain.total;
                ns(sim).record_embedded(encoder, input.steps, substeps, &input.chunk);
            }
            done += n;
        }
        if steps > 0 {
            self.watch.arm(encoder, ns(sim).stats_buffer());
        }
    }

    /// Reads the last mapped stats if they have arrived (never waits) and raises the substeps
    /// when their flow passed the layer's Courant target, as a batch run does between chunks:
    /// here a frame or two late; a flow that broke condition 3 (|u|·δt/δx < 1) meanwhile is
    /// reported by `check`.
    fn follow_flow(&mut self, sim: &mut Simulation) {
        let device = ns(sim).device().clone();
        self.watch.follow(sim, &device, courant_of);
    }

    /// The water now (its height field's and the spray's in the air) and the water the books
    /// hold it to (m³), both read back: the start and what the scene's feeds asked.
    pub(super) fn read_volume(&self, sim: &mut Simulation) -> Result<(f64, f64)> {
        let dx = sim.scene().grid.dx;
        let (h, ground) = read_level(sim)?;
        let volume: f64 = h.iter().zip(&ground).map(|(&e, &b)| (e - b).max(0.0) as f64).sum();
        let per_unit = sim.particle_unit().unwrap_or(0.0);
        let (_, _, in_flight) = ns(sim).read_books()?;
        Ok((
            volume * dx * dx + in_flight as f64 * per_unit,
            self.start + self.fed * dx * dx,
        ))
    }

    /// Fails if a step went NaN or infinite, or the flow broke condition 3 in the last chunk.
    pub(super) fn check(&mut self, sim: &mut Simulation, steps: u64) -> Result<()> {
        if let Some(e) = self.watch.outran() {
            return Err(e);
        }
        let (courant, nonfinite, _) = ns(sim).read_books()?;
        if nonfinite > 0 || courant.is_nan() {
            return Err(Error::Diverged { step: steps });
        }
        if courant >= 1.0 {
            return Err(Error::Embed(format!(
                "the flow reached |u|·δt/δx = {courant:.2} on the Navier-Stokes grid in the last frame (condition 3 \
                 asks < 1): shorten time.dt or raise time.substeps"
            )));
        }
        Ok(())
    }
}

/// The stats' flow Courant number.
fn courant_of(bytes: &[u8]) -> f32 {
    let at = crate::models::navier_stokes::gpu::navier_stokes::STAT_COURANT as usize * 4;
    f32::from_bits(bytemuck::pod_read_unaligned(&bytes[at..at + 4]))
}

/// The height field and its ground (h − ref, b − ref, f32 per cell) read back. Waits for the GPU.
pub(super) fn read_level(sim: &mut Simulation) -> Result<(Vec<f32>, Vec<f32>)> {
    let nx_ny = sim.scene().grid.cells();
    let gpu = ns(sim);
    let (h, ground) = gpu.surface_buffers();
    let f32s = |buffer: &wgpu::Buffer| -> Result<Vec<f32>> {
        Ok(bytemuck::pod_collect_to_vec(&crate::engine::gpu::readback::read(
            gpu.device(),
            gpu.queue(),
            buffer,
        )?))
    };
    let h = f32s(h)?;
    let mut ground = f32s(ground)?;
    ground.truncate(nx_ny);
    Ok((h, ground))
}
