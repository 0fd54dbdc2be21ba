//! `Water` on the shallow-water model: the host's edits and the velocity field (`SwWater`), the
//! steps recorded chunk by chunk with their feeds staged in the host's encoder, the volume books
//! kept on the host, and the substeps following the flow from the books read without a stall.

use crate::engine::edit::HostEdit;
use crate::engine::gpu::caustics::Caustics;
use crate::engine::gpu::surface::{Surface, SurfaceBuffers, SurfaceSource};
use crate::error::{Error, Result};
use crate::models::shallow_water::gpu::sw_solver::GpuSw;
use crate::models::shallow_water::gpu::sw_water::SwWater;
use crate::Simulation;

/// What `Water` keeps for the shallow-water model.
pub(super) struct SwPart {
    extras: SwWater,
    /// A stand-in cover (no bodies on this model).
    pub(super) cover: wgpu::Buffer,
    /// The water at build, m³.
    start: f64,
    /// What the scene's sources, drains and rain asked since the build (metres·cells, f64).
    fed: f64,
    /// The books' copy each frame's encoder maps on submit, for the flow's Courant number.
    watch: super::watch::FlowWatch,
}

/// The shallow-water model's GPU backend (`Water::new` refuses anything else).
pub(super) fn sw(sim: &mut Simulation) -> &mut GpuSw {
    sim.gpu_sw().expect("Water is built on the GPU shallow-water backend")
}

/// The model's surface, its edits and velocities, its substeps planned for `max_depth`.
pub(super) fn shallow_water_surface(
    device: &wgpu::Device,
    sim: &mut Simulation,
    out: &SurfaceBuffers,
    max_depth: Option<f64>,
) -> Result<(SwPart, Surface, Option<Caustics>)> {
    if let Some(depth) = max_depth {
        sim.plan_for_depth(depth)?;
    }
    let (nx, ny) = (sim.scene().grid.nx, sim.scene().grid.ny);
    let start = sim.target_volume();
    let cover = super::no_cover(device);
    let gpu = sim
        .gpu_sw()
        .ok_or_else(|| Error::Embed("Water needs the GPU backend".into()))?;
    let b = gpu.buffers();
    let level = &b.levels[0][0];
    let source = SurfaceSource {
        nx,
        ny,
        ground: &b.ground,
        levels: [level, level],
        cover: &cover,
    };
    let (surface, caustics) = super::render_passes(device, source, out);
    let extras = SwWater::new(device, b, nx * ny);
    let watch = super::watch::FlowWatch::new(device, "sw books watch", b.books.size());
    let part = SwPart {
        extras,
        cover,
        start,
        fed: 0.0,
        watch,
    };
    Ok((part, surface, caustics))
}

impl SwPart {
    /// The host's edits, then `steps` steps after step `at` in chunks, each with its feeds and
    /// pressure staged in `encoder`, then the velocity field; the books' copy mapped on submit
    /// when the last one has been read.
    pub(super) fn record(
        &mut self,
        sim: &mut Simulation,
        encoder: &mut wgpu::CommandEncoder,
        edits: &[HostEdit],
        at: u64,
        steps: u32,
    ) {
        self.follow_flow(sim);
        let substeps = sim.substeps();
        let gpu = sw(sim);
        let device = gpu.device().clone();
        self.extras.record_edits(&device, encoder, gpu.buffers(), edits);
        for input in super::embedded_chunks(sim, at, steps) {
            self.fed += input.chunk.rain.total;
            sw(sim).record_embedded(encoder, input.steps, substeps, &input.chunk);
        }
        let gpu = sw(sim);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shoal sw velocities"),
            timestamp_writes: None,
        });
        self.extras.record_velocities(&mut pass);
        drop(pass);
        if steps > 0 {
            self.watch.arm(encoder, &gpu.buffers().books);
        }
    }

    /// Reads the last mapped books if they have arrived (never waits) and raises the substeps
    /// when their flow passed the Courant target, as a batch run does between chunks: here a
    /// frame or two late, so a flow that outruns the plan by more than the margin between
    /// `SW_TARGET` and `SW_COURANT` in one frame is reported by `check`.
    fn follow_flow(&mut self, sim: &mut Simulation) {
        let device = sw(sim).device().clone();
        self.watch.follow(sim, &device, courant_of);
    }

    /// The velocity field, (u, v) per cell.
    pub(super) fn velocity(&self) -> &wgpu::Buffer {
        &self.extras.velocity
    }

    /// The water now and the water the books hold it to (m³), both read back: the start, what
    /// the splashes added (read from the GPU) and what the scene's feeds asked. Drains that ran
    /// dry count as asked here (a batch run reads back what they could not take), and water
    /// crossing open and river sides is followed by neither.
    pub(super) fn read_volume(&self, sim: &mut Simulation) -> Result<(f64, f64)> {
        let dx = sim.scene().grid.dx;
        let (eta, ground) = read_level(sim)?;
        let volume: f64 = eta.iter().zip(&ground).map(|(&e, &b)| (e - b).max(0.0) as f64).sum();
        let gpu = sw(sim);
        let raw = crate::engine::gpu::readback::read(gpu.device(), gpu.queue(), &self.extras.added)?;
        let added: f64 = bytemuck::pod_collect_to_vec::<u8, f32>(&raw)
            .iter()
            .map(|&a| a as f64)
            .sum();
        Ok((volume * dx * dx, self.start + (added + self.fed) * dx * dx))
    }

    /// Fails if a step went NaN or infinite, or the flow outran the substeps the model can run.
    pub(super) fn check(&mut self, sim: &mut Simulation, steps: u64) -> Result<()> {
        if let Some(e) = self.watch.outran() {
            return Err(e);
        }
        let (courant, nonfinite) = sw(sim).read_books()?;
        if nonfinite > 0 {
            return Err(Error::Diverged { step: steps });
        }
        let bound = crate::models::shallow_water::setup::SW_COURANT;
        if courant > bound {
            return Err(Error::Embed(format!(
                "the flow reached (|u| + |v| + 2·sqrt(g·d))·dt/dx = {courant:.2} in the last frame, past the {bound} \
                 under which every depth stays non-negative: plan more substeps with WaterOptions::max_depth or \
                 shorten time.dt"
            )));
        }
        Ok(())
    }
}

/// The books' Courant number.
fn courant_of(bytes: &[u8]) -> f32 {
    let at = crate::wgsl::shallow_water::BOOK_COURANT as usize * 4;
    f32::from_bits(bytemuck::pod_read_unaligned(&bytes[at..at + 4]))
}

/// The surface and ground (h − ref, b − ref, f32 per cell) read back. Waits for the GPU.
pub(super) fn read_level(sim: &mut Simulation) -> Result<(Vec<f32>, Vec<f32>)> {
    let gpu = sw(sim);
    let b = gpu.buffers();
    let f32s = |buffer: &wgpu::Buffer| -> Result<Vec<f32>> {
        Ok(bytemuck::pod_collect_to_vec(&crate::engine::gpu::readback::read(
            gpu.device(),
            gpu.queue(),
            buffer,
        )?))
    };
    let eta = f32s(&b.levels[0][0])?;
    let mut ground = f32s(&b.ground)?;
    // With air pressure, the head's room follows the ground.
    ground.truncate(eta.len());
    Ok((eta, ground))
}
