//! The query pass (`wgsl/query.wgsl`): the water at a list of points, recorded into an encoder
//! with its points staged ahead of it and its answer copied into a buffer of its own to map.
//! Pipeline and layouts built once; the point and sample buffers grow, with their bind group,
//! when a query brings more points than they hold. It reads a surface and a ground and no
//! model's uniforms, so every model with a surface over its ground builds one ([`QuerySource`]).

use crate::engine::gpu::binding::{bind_group, pipeline, reflected_layout};
use crate::query::{QueryParams, RawSample};
use wgpu::util::DeviceExt;

const SAMPLE_BYTES: u64 = std::mem::size_of::<RawSample>() as u64;

/// What a query reads: the grid, its ground and each level's surface (both h − ref, a dry
/// cell's surface at or under its ground).
pub struct QuerySource<'a> {
    pub nx: u32,
    pub ny: u32,
    pub ground: &'a wgpu::Buffer,
    /// The surface of each level a model keeps its state in (the height field: two).
    pub levels: &'a [&'a wgpu::Buffer],
}

pub struct Query {
    query: wgpu::ComputePipeline,
    shared_layout: wgpu::BindGroupLayout,
    /// `levels[p]` reads level p.
    levels: Vec<wgpu::BindGroup>,
    uniforms: wgpu::Buffer,
    ground: wgpu::Buffer,
    points: wgpu::Buffer,
    samples: wgpu::Buffer,
    shared: wgpu::BindGroup,
    /// Points the buffers hold.
    capacity: u64,
    nx: u32,
    ny: u32,
    /// Its staged writes' belt.
    uploads: crate::engine::gpu::uploads::Uploads,
}

fn storage(device: &wgpu::Device, label: &str, bytes: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE | usage,
        mapped_at_creation: false,
    })
}

impl Query {
    pub fn new(device: &wgpu::Device, source: QuerySource) -> Query {
        let module = crate::engine::gpu::shaders::module(device, "query.wgsl", crate::engine::gpu::shaders::QUERY);
        let shared_layout = reflected_layout(device, "query", crate::wgsl::query::BINDINGS, &[], 0);
        let level_layout = reflected_layout(device, "query level", crate::wgsl::query::BINDINGS, &[], 1);
        let levels = source
            .levels
            .iter()
            .map(|&eta| bind_group(device, "query level", &level_layout, &[eta]))
            .collect();
        let uniforms = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("query params"),
            contents: bytemuck::bytes_of(&QueryParams::default()),
            usage: crate::engine::gpu::binding::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let capacity = 64;
        let points = storage(device, "query points", capacity * 8, wgpu::BufferUsages::COPY_DST);
        let samples = storage(
            device,
            "query samples",
            capacity * SAMPLE_BYTES,
            wgpu::BufferUsages::COPY_SRC,
        );
        let shared = bind_group(
            device,
            "query",
            &shared_layout,
            &[&uniforms, source.ground, &points, &samples],
        );
        Query {
            uploads: crate::engine::gpu::uploads::Uploads::new(device),
            query: pipeline(device, &module, &[&shared_layout, &level_layout], "query"),
            levels,
            shared_layout,
            uniforms,
            ground: source.ground.clone(),
            points,
            samples,
            shared,
            capacity,
            nx: source.nx,
            ny: source.ny,
        }
    }

    /// Records the query of `points` (metres) on level `level` into `encoder`, and returns a
    /// mappable buffer that holds the answer once the encoder's work is done.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        level: usize,
        dx: f32,
        points: &[[f32; 2]],
    ) -> wgpu::Buffer {
        let n = points.len() as u64;
        if n > self.capacity {
            self.capacity = n.next_power_of_two();
            self.points = storage(device, "query points", self.capacity * 8, wgpu::BufferUsages::COPY_DST);
            self.samples = storage(
                device,
                "query samples",
                self.capacity * SAMPLE_BYTES,
                wgpu::BufferUsages::COPY_SRC,
            );
            self.shared = bind_group(
                device,
                "query",
                &self.shared_layout,
                &[&self.uniforms, &self.ground, &self.points, &self.samples],
            );
        }
        let qp = QueryParams {
            count: n as u32,
            dx,
            nx: self.nx,
            ny: self.ny,
        };
        self.uploads.stage(encoder, &self.uniforms, 0, bytemuck::bytes_of(&qp));
        self.uploads
            .stage(encoder, &self.points, 0, bytemuck::cast_slice(points));
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("shoal query"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.query);
            pass.set_bind_group(0, &self.shared, &[]);
            pass.set_bind_group(1, &self.levels[level], &[]);
            pass.dispatch_workgroups((n as u32).div_ceil(64).max(1), 1, 1);
        }
        let answer = crate::engine::gpu::readback::buffer(device, "query answer", (n * SAMPLE_BYTES).max(SAMPLE_BYTES));
        if n > 0 {
            encoder.copy_buffer_to_buffer(&self.samples, 0, &answer, 0, n * SAMPLE_BYTES);
        }
        answer
    }

    /// Records the query into its own submit and reads the answer back (a `Simulation`'s
    /// query: the device is idle between its chunks).
    pub fn answer(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        level: usize,
        dx: f32,
        points: &[[f32; 2]],
    ) -> crate::error::Result<Vec<RawSample>> {
        let mut encoder = device.create_command_encoder(&Default::default());
        let answer = self.record(device, &mut encoder, level, dx, points);
        submit_and_read(device, queue, encoder, &answer, points.len())
    }
}

/// Submits `encoder`, which ends with a query's `answer`, and reads its `points` samples back.
pub fn submit_and_read(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    encoder: wgpu::CommandEncoder,
    answer: &wgpu::Buffer,
    points: usize,
) -> crate::error::Result<Vec<RawSample>> {
    queue.submit([encoder.finish()]);
    let bytes = crate::engine::gpu::readback::map(device, answer, answer.size())?;
    let mut samples: Vec<RawSample> = bytemuck::pod_collect_to_vec(&bytes);
    samples.truncate(points);
    Ok(samples)
}
