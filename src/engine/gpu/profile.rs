//! GPU time per pass for `shoal run --profile`: while profiling, each pass of a step runs in its
//! own compute pass with a timestamp at its start and end (`TIMESTAMP_QUERY`, which WebGPU and
//! every native backend but GL offer). The timestamps are resolved once per chunk, beside the
//! chunk's report readback: profiling adds no readback inside the step loop, only the split into
//! compute passes (which changes nothing a pass computes).

use crate::engine::solver::{PassTime, PassTimes};
use crate::error::Result;

/// Queries one chunk can hold: wgpu's limit for a query set, two per timed pass. Passes past it
/// run untimed (and are counted as such).
const QUERIES: u32 = wgpu::QUERY_SET_MAX_QUERIES;

/// The query set, its resolve and readback buffers, and what was timed.
pub struct Profiler {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds per timestamp tick (`Queue::get_timestamp_period`).
    period_ns: f64,
    /// The pass each pair of queries of this chunk times: an index into `times.passes`.
    pending: Vec<usize>,
    times: PassTimes,
}

impl Profiler {
    /// A profiler on this device, or why it cannot time passes.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> std::result::Result<Profiler, String> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            let backend = device.adapter_info().backend;
            return Err(format!(
                "the device has no TIMESTAMP_QUERY (this {backend:?} adapter does not offer it, or the \
                 embedding host opened the device without it)"
            ));
        }
        let bytes = QUERIES as u64 * wgpu::QUERY_SIZE as u64;
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        Ok(Profiler {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("profile timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: QUERIES,
            }),
            resolve: buffer(
                "profile resolve",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "profile readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            period_ns: queue.get_timestamp_period() as f64,
            pending: Vec::new(),
            times: PassTimes::default(),
        })
    }

    /// The timestamp writes for the next compute pass, which runs the pass `name` (costing
    /// `bytes_per_cell` and `dispatches` by the model); None once this chunk's queries are used.
    pub fn writes(
        &mut self,
        name: &'static str,
        bytes_per_cell: u32,
        dispatches: u32,
    ) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let index = match self.times.passes.iter().position(|p| p.name == name) {
            Some(i) => i,
            None => {
                self.times.passes.push(PassTime {
                    name,
                    runs: 0,
                    timed: 0,
                    seconds: 0.0,
                    bytes_per_cell,
                    dispatches,
                });
                self.times.passes.len() - 1
            }
        };
        self.times.passes[index].runs += 1;
        let at = 2 * self.pending.len() as u32;
        if at + 2 > QUERIES {
            self.times.untimed += 1;
            return None;
        }
        self.pending.push(index);
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(at),
            end_of_pass_write_index: Some(at + 1),
        })
    }

    /// The timestamp writes for a compute pass that runs the schedule's pass `p` (under `name`),
    /// with its cost from the model.
    pub fn time(
        &mut self,
        p: crate::engine::schedule::Pass,
        name: &'static str,
        params: &crate::engine::params::Params,
        bodies: &crate::engine::bodies::BodyParams,
        fused: bool,
    ) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let c = crate::engine::gpu::cost::pass_cost(p, params, bodies, fused);
        self.writes(name, c.read + c.written, c.dispatches)
    }

    /// Records the copy of this chunk's timestamps into the readback buffer (after its passes).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        let used = 2 * self.pending.len() as u32;
        if used > 0 {
            encoder.resolve_query_set(&self.queries, 0..used, &self.resolve, 0);
            encoder.copy_buffer_to_buffer(
                &self.resolve,
                0,
                &self.readback,
                0,
                used as u64 * wgpu::QUERY_SIZE as u64,
            );
        }
    }

    /// Reads the chunk's timestamps (after the submit that resolved them) into the totals.
    pub fn collect(&mut self, device: &wgpu::Device) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let bytes = crate::engine::gpu::readback::map(
            device,
            &self.readback,
            2 * self.pending.len() as u64 * wgpu::QUERY_SIZE as u64,
        )?;
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        let seconds = |t: u64| t as f64 * self.period_ns * 1e-9;
        for (k, &index) in self.pending.iter().enumerate() {
            // Timestamps of one pass can come out of order on some drivers: never negative.
            let pass = &mut self.times.passes[index];
            pass.timed += 1;
            pass.seconds += seconds(ticks[2 * k + 1].saturating_sub(ticks[2 * k]));
        }
        let first = ticks.iter().step_by(2).min().copied().unwrap_or(0);
        let last = ticks.iter().skip(1).step_by(2).max().copied().unwrap_or(0);
        self.times.span += seconds(last.saturating_sub(first));
        self.pending.clear();
        Ok(())
    }

    /// What was timed so far.
    pub fn times(&self) -> &PassTimes {
        &self.times
    }
}

/// A profiled run: the GPU's time per pass beside the cost model, and the wall clock.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The backend in words.
    pub backend: String,
    /// Cells of the height field.
    pub cells: u64,
    /// Steps run while profiling.
    pub steps: u64,
    /// (steps, wall-clock seconds) inside `Simulation::step` (recording, submits, the GPU's
    /// work and each chunk's report readback; writing outputs excluded), over the chunks that
    /// ran without timestamps. `Simulation` lets the first chunk warm up (first touches of new
    /// buffers cost the GPU more than a step), then times every other chunk.
    pub clock: (u64, f64),
    /// The clock is the first chunk's (the run had no later untimed one).
    pub warm: bool,
    /// Steps run with timestamps (what the per-step GPU times divide by).
    pub timed_steps: u64,
    /// The schedule's cost per step (`gpu::cost::describe`).
    pub cost: String,
    /// The timestamps, or why there are none.
    pub timed: std::result::Result<PassTimes, String>,
}

impl Profile {
    /// The timed table: each pass's runs, time per step, bytes per cell, bandwidth and
    /// dispatches, then the totals and what to make of timestamps that disagree with the clock.
    fn fmt_timed(&self, f: &mut std::fmt::Formatter<'_>, t: &PassTimes) -> std::fmt::Result {
        let (cells, wall_steps, wall) = (self.cells as f64, self.clock.0 as f64, self.clock.1.max(1e-12));
        let steps = self.timed_steps.max(1) as f64;
        writeln!(
            f,
            "#   {:<20} {:>6} {:>11} {:>7} {:>10} {:>9}",
            "pass", "runs", "µs/step", "B/cell", "GB/s", "dispatch"
        )?;
        let mut total = 0.0;
        let mut bytes = 0.0;
        for p in &t.passes {
            // Scaled from the timed runs to all of them.
            let seconds = p.seconds / p.timed.max(1) as f64 * p.runs as f64;
            total += seconds;
            let moved = p.bytes_per_cell as f64 * cells * p.runs as f64;
            bytes += moved;
            let rate = if p.bytes_per_cell == 0 {
                "-".to_string()
            } else {
                format!("{:.1}", moved / seconds.max(1e-12) / 1e9)
            };
            writeln!(
                f,
                "#   {:<20} {:>6} {:>11.2} {:>7} {:>10} {:>9}",
                p.name,
                p.runs,
                seconds / steps * 1e6,
                p.bytes_per_cell,
                rate,
                p.dispatches
            )?;
        }
        writeln!(
            f,
            "# GPU time per step: {:.2} µs in the passes, {:.2} µs from first to last timestamp; \
             {:.1} GB/s over the passes; {:.3e} cell-steps/s on the GPU",
            total / steps * 1e6,
            t.span / steps * 1e6,
            bytes / total.max(1e-12) / 1e9,
            steps * cells / total.max(1e-12)
        )?;
        // The timed chunk and the clock's chunks are different steps of one run: a GPU
        // step longer than the whole wall-clock step means one of them is not the other's
        // (an H200 at 4096², 2026-11-28: timestamps of 451–493 µs a step in runs whose
        // clock gave 228).
        let (gpu_step, wall_step) = (total / steps, wall / wall_steps.max(1.0));
        if self.clock.0 > 0 && !self.warm && gpu_step > 1.1 * wall_step {
            writeln!(
                f,
                "# the timestamps read {:.2} µs a step where the wall clock's whole step took {:.2}: \
                 the timed chunk ran slower than the others, or the timestamps are off; rerun, or trust \
                 the wall clock",
                gpu_step * 1e6,
                wall_step * 1e6
            )?;
        }
        if t.untimed > 0 {
            writeln!(
                f,
                "# {} pass runs went untimed (a chunk held more than {} timestamps); their time is \
                 scaled from the timed runs of the same pass, and the span leaves them out",
                t.untimed, QUERIES
            )?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cells = self.cells as f64;
        let (wall_steps, wall) = (self.clock.0 as f64, self.clock.1.max(1e-12));
        writeln!(
            f,
            "# profile: {} steps of {} cells on {}: {:.1} steps/s, {:.3e} cell-steps/s by the wall clock \
             over {} steps{} (outputs excluded)",
            self.steps,
            self.cells,
            self.backend,
            wall_steps / wall,
            wall_steps * cells / wall,
            self.clock.0,
            if self.warm {
                ", the first chunk's, warm-up included (run three chunks for a steady clock)"
            } else {
                ""
            },
        )?;
        match &self.timed {
            Err(why) => {
                writeln!(f, "# no GPU timestamps: {why}; the cost model alone:")?;
                write!(f, "{}", self.cost)
            }
            Ok(t) => self.fmt_timed(f, t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(pass_seconds: f64, clock: (u64, f64), warm: bool) -> String {
        Profile {
            backend: "test".into(),
            cells: 1 << 20,
            steps: 768,
            clock,
            warm,
            timed_steps: 256,
            cost: String::new(),
            timed: Ok(PassTimes {
                passes: vec![PassTime {
                    name: "explicit",
                    runs: 256,
                    timed: 256,
                    seconds: pass_seconds,
                    bytes_per_cell: 28,
                    dispatches: 1,
                }],
                span: pass_seconds,
                untimed: 0,
            }),
        }
        .to_string()
    }

    #[test]
    fn timestamps_longer_than_the_wall_clocks_step_are_flagged() {
        // 256 steps of 100 µs on the GPU; the clock's 256 steps took 26 ms (101.6 µs a step).
        assert!(!profile(256.0 * 100e-6, (256, 0.026), false).contains("timestamps read"));
        // The same timestamps where the clock's steps took 50 µs: flagged, with both figures.
        let flagged = profile(256.0 * 100e-6, (256, 256.0 * 50e-6), false);
        assert!(flagged.contains("the timestamps read 100.00 µs a step where the wall clock's whole step took 50.00"));
        // A warm-up clock is slow for its own reasons, and no clock says nothing.
        assert!(!profile(256.0 * 100e-6, (256, 256.0 * 50e-6), true).contains("timestamps read"));
        assert!(!profile(256.0 * 100e-6, (0, 0.0), false).contains("timestamps read"));
    }
}
