//! The pipes model on the GPU: many steps per submit, one readback per chunk (the totals and the
//! probes' history), none per step.

use super::pipes::{PipeBuffers, Pipes};
use crate::columns::{pipe_params, Columns, PipeParams};
use crate::cpu::pipes::PipeState;
use crate::error::{Error, Result};
use crate::params::{Params, Totals, MAX_CHUNK};
use crate::scene::Scene;
use crate::schedule::{Pass, Schedule};
use crate::solver::{ChunkInput, ChunkReport, PipeSetup, Solver, SolverState};

/// The pipes model's GPU backend, on a Device/Queue it shares with its caller.
pub struct GpuPipes {
    device: wgpu::Device,
    queue: wgpu::Queue,
    scene: Scene,
    columns: Columns,
    params: PipeParams,
    buffers: PipeBuffers,
    pipes: Pipes,
    schedule: Schedule,
    n_probes: u32,
    /// Staging for a chunk's report (the totals' partials, then the probes' history): one
    /// mapping per chunk.
    report_readback: wgpu::Buffer,
    /// Staging for the surface, at output steps.
    eta_readback: wgpu::Buffer,
    adapter: String,
}

impl GpuPipes {
    /// The backend for `setup`: buffers, then the passes, built once.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, adapter: String, setup: &PipeSetup) -> Result<GpuPipes> {
        let n_probes = setup.probe_cells.len() as u32;
        let params = pipe_params(setup.scene, setup.columns, setup.params.substeps, n_probes);
        let shape = PipeState::new(setup.columns, setup.columns.feed(setup.scene, setup.params.substeps));
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buffers = PipeBuffers::new(device, &params, &shape, setup.probe_cells, MAX_CHUNK);
        let pipes = Pipes::new(device, &buffers, params.columns);
        let staging = |label: &str, size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let report_readback = staging(
            "pipes report readback",
            buffers.partials.size() + buffers.history.size(),
        );
        let eta_readback = staging("pipes surface readback", buffers.eta.size());
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(e.to_string()));
        }
        Ok(GpuPipes {
            device: device.clone(),
            queue: queue.clone(),
            scene: setup.scene.clone(),
            columns: setup.columns.clone(),
            params,
            buffers,
            pipes,
            schedule: setup.schedule(),
            n_probes,
            report_readback,
            eta_readback,
            adapter,
        })
    }
}

impl Solver for GpuPipes {
    fn set_params(&mut self, params: &Params) -> Result<()> {
        self.params = pipe_params(&self.scene, &self.columns, params.substeps, self.n_probes);
        self.queue
            .write_buffer(&self.buffers.params, 0, bytemuck::bytes_of(&self.params));
        let feed = self.columns.feed(&self.scene, params.substeps);
        self.queue
            .write_buffer(&self.buffers.feed, 0, bytemuck::cast_slice(&feed));
        Ok(())
    }

    /// The pipes carry velocities, not per-substep changes: nothing to rescale.
    fn rescale_velocity(&mut self, _factor: f32) -> Result<()> {
        Ok(())
    }

    fn advance(&mut self, steps: u32, substeps: u32, _input: &ChunkInput) -> Result<ChunkReport> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.buffers.exchange, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            for step in 0..steps {
                for p in self.schedule.step(substeps) {
                    match p {
                        Pass::PipeFlow => self.pipes.flow(&mut pass),
                        Pass::PipeApply => self.pipes.apply(&mut pass),
                        Pass::Probe => self
                            .pipes
                            .probe(&mut pass, self.n_probes, step * self.buffers.slot_stride),
                        other => unreachable!("{other:?} is not a pass of the pipes model"),
                    }
                }
            }
            self.pipes.totals(&mut pass);
        }
        // The chunk's one readback: the totals' partials, then this chunk's probe rows.
        let partial_bytes = self.buffers.partials.size();
        let probe_bytes = (steps * self.n_probes * 4) as u64;
        encoder.copy_buffer_to_buffer(&self.buffers.partials, 0, &self.report_readback, 0, partial_bytes);
        if probe_bytes > 0 {
            encoder.copy_buffer_to_buffer(
                &self.buffers.history,
                0,
                &self.report_readback,
                partial_bytes,
                probe_bytes,
            );
        }
        self.queue.submit([encoder.finish()]);
        let bytes = super::readback::map(&self.device, &self.report_readback, partial_bytes + probe_bytes)?;
        let (partial_bytes, probe_bytes) = bytes.split_at(partial_bytes as usize);
        let partials: Vec<[u32; 8]> = bytemuck::pod_collect_to_vec(partial_bytes);
        let probes: Vec<f32> = bytemuck::pod_collect_to_vec(probe_bytes);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(e.to_string()));
        }
        let (mut water, mut exchange, mut deepest, mut bad) = (0u64, 0i64, 0u32, 0u32);
        for g in &partials {
            water += g[0] as u64 + ((g[1] as u64) << 16);
            exchange += g[2] as i64 + ((g[3] as i64) << 16) + ((g[4] as i32 as i64) << 32);
            deepest = deepest.max(g[5]);
            bad += g[6];
        }
        Ok(ChunkReport {
            // Velocities are checked once per chunk: a chunk that went bad is reported at its end.
            first_bad_step: (bad != 0).then_some(steps - 1),
            totals: Totals {
                max_depth: (deepest as f64 * self.columns.quantum) as f32,
                nonfinite: bad,
                ..Totals::default()
            },
            probes,
            water_units: Some((water, exchange)),
            ..ChunkReport::default()
        })
    }

    fn read_eta(&mut self) -> Result<Vec<f32>> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            self.pipes.surface(&mut pass);
        }
        let bytes = self.buffers.eta.size();
        encoder.copy_buffer_to_buffer(&self.buffers.eta, 0, &self.eta_readback, 0, bytes);
        self.queue.submit([encoder.finish()]);
        let surface = super::readback::map(&self.device, &self.eta_readback, bytes)?;
        Ok(bytemuck::pod_collect_to_vec(&surface))
    }

    fn read_regions(&mut self) -> Result<Vec<u32>> {
        Ok(Vec::new())
    }

    fn save(&mut self) -> Result<SolverState> {
        Err(Error::Unsupported("checkpoints of the pipes model".into()))
    }

    fn load(&mut self, _state: &SolverState) -> Result<()> {
        Err(Error::Unsupported("checkpoints of the pipes model".into()))
    }

    fn describe(&self) -> String {
        self.adapter.clone()
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
