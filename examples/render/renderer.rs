//! The embedding example's renderer, shared by `examples/render` (frames to PNG) and the web demo
//! (`web/`, frames to a canvas): the water surface is a grid mesh displaced in the vertex shader
//! straight from Shoal's height buffer (bound as a vertex buffer, as are its normals, depth,
//! wetness, caustics and the ground), the bodies are instanced from Shoal's body states, and the
//! spray is a quad per particle drawn indirectly on the count the GPU wrote.

use glam::{Mat4, Vec3};

/// The host's uniform (render.wgsl's `Camera`).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Camera {
    view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    sun: [f32; 4],
    grid: [f32; 4],
}

const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

pub struct Renderer {
    terrain: wgpu::RenderPipeline,
    water: wgpu::RenderPipeline,
    bodies: wgpu::RenderPipeline,
    spray: wgpu::RenderPipeline,
    camera: wgpu::BindGroup,
    indices: wgpu::Buffer,
    index_count: u32,
    cube: wgpu::Buffer,
    cube_vertices: u32,
    depth: wgpu::TextureView,
    /// The camera's projection × view, for `on_plane`.
    view_proj: Mat4,
}

/// A vertex buffer of one `format` attribute per vertex (Shoal's per-cell buffers).
fn per_cell(location: u32, format: wgpu::VertexFormat) -> [wgpu::VertexAttribute; 1] {
    [wgpu::VertexAttribute {
        format,
        offset: 0,
        shader_location: location,
    }]
}

impl Renderer {
    /// The pipelines for frames of `width` × `height` in `format` (an sRGB one), of an nx × ny
    /// grid of cells dx apart lit from `light`.
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        (width, height): (u32, u32),
        (nx, ny, dx): (u32, u32, f32),
        light: [f64; 3],
    ) -> Renderer {
        use wgpu::util::DeviceExt;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("render.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("render.wgsl").into()),
        });
        let (w, h) = (nx as f32 * dx, ny as f32 * dx);
        let centre = Vec3::new(w * 0.52, h * 0.45, -0.2);
        let eye = centre + Vec3::new(-0.25 * w, -1.25 * h, 1.0 * w.max(h));
        let aspect = width as f32 / height as f32;
        // Near and far planes scaled to the domain: a 120 m lake and a 5 m pond both fit.
        let size = w.max(h);
        let view_proj = Mat4::perspective_rh(40f32.to_radians(), aspect, 0.01 * size, 10.0 * size)
            * Mat4::look_at_rh(eye, centre, Vec3::Z);
        let sun = Vec3::new(light[0] as f32, light[1] as f32, light[2] as f32).normalize();
        let camera = Camera {
            view_proj: view_proj.to_cols_array_2d(),
            eye: [eye.x, eye.y, eye.z, dx],
            sun: [sun.x, sun.y, sun.z, 0.0],
            grid: [nx as f32, ny as f32, 0.0, 0.0],
        };
        let camera_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("camera"),
            contents: bytemuck::bytes_of(&camera),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let camera_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("camera"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let camera_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("camera"),
            layout: &camera_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: camera_buffer.as_entire_binding(),
            }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render"),
            bind_group_layouts: &[Some(&camera_layout)],
            immediate_size: 0,
        });

        // Shoal's buffers as vertex buffers: one f32 (or vec4) per cell, step mode Vertex.
        let f32_cell = |location| per_cell(location, wgpu::VertexFormat::Float32);
        let terrain_attrs = [f32_cell(0), f32_cell(1), f32_cell(2), f32_cell(3)];
        let water_attrs = [f32_cell(0), per_cell(1, wgpu::VertexFormat::Float32x4), f32_cell(2)];
        let cell_layout = |attributes, array_stride| wgpu::VertexBufferLayout {
            array_stride,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes,
        };
        let terrain_buffers: Vec<_> = terrain_attrs.iter().map(|a| cell_layout(a, 4)).collect();
        let water_buffers = [
            cell_layout(&water_attrs[0], 4),
            cell_layout(&water_attrs[1], 16),
            cell_layout(&water_attrs[2], 4),
        ];
        // The bodies: a subdivided cube per vertex, Shoal's BodyState per instance.
        let body_buffers = [
            wgpu::VertexBufferLayout {
                array_stride: 24,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3],
            },
            wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<shoal::BodyState>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &[
                    attr(2, wgpu::VertexFormat::Float32x4, 0),
                    attr(3, wgpu::VertexFormat::Float32x4, 16),
                    attr(4, wgpu::VertexFormat::Float32x4, 64),
                    attr(5, wgpu::VertexFormat::Uint32x4, 128),
                ],
            },
        ];
        // The spray: a quad (six vertices) per instance, Shoal's Particle (32 bytes) per instance:
        // position at 0, units at 12, velocity at 16, age at 28 (a slot of the layer's that is
        // neither spray nor foam is free, and the vertex shader drops it).
        let spray_buffers = [wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<shoal::Particle>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &[
                attr(0, wgpu::VertexFormat::Float32x3, 0),
                attr(1, wgpu::VertexFormat::Float32x3, 16),
                attr(2, wgpu::VertexFormat::Uint32, 12),
                attr(3, wgpu::VertexFormat::Float32, 28),
            ],
        }];
        let pipeline =
            |label: &str, vs: &str, fs: &str, buffers: &[wgpu::VertexBufferLayout], blend: Option<wgpu::BlendState>| {
                let buffers: Vec<Option<wgpu::VertexBufferLayout>> = buffers.iter().cloned().map(Some).collect();
                device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(label),
                    layout: Some(&layout),
                    vertex: wgpu::VertexState {
                        module: &module,
                        entry_point: Some(vs),
                        compilation_options: Default::default(),
                        buffers: &buffers,
                    },
                    primitive: wgpu::PrimitiveState::default(),
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: DEPTH,
                        depth_write_enabled: Some(true),
                        depth_compare: Some(wgpu::CompareFunction::LessEqual),
                        stencil: Default::default(),
                        bias: Default::default(),
                    }),
                    multisample: Default::default(),
                    fragment: Some(wgpu::FragmentState {
                        module: &module,
                        entry_point: Some(fs),
                        compilation_options: Default::default(),
                        targets: &[Some(wgpu::ColorTargetState {
                            format,
                            blend,
                            write_mask: wgpu::ColorWrites::ALL,
                        })],
                    }),
                    multiview_mask: None,
                    cache: None,
                })
            };

        let mut indices: Vec<u32> = Vec::with_capacity(((nx - 1) * (ny - 1) * 6) as usize);
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                let c = j * nx + i;
                indices.extend_from_slice(&[c, c + 1, c + nx, c + 1, c + nx + 1, c + nx]);
            }
        }
        let cube = subdivided_cube(8);
        let depth = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            format: DEPTH,
            ..target_descriptor(width, height, DEPTH)
        });
        Renderer {
            terrain: pipeline("terrain", "terrain_vertex", "terrain_fragment", &terrain_buffers, None),
            bodies: pipeline("bodies", "body_vertex", "body_fragment", &body_buffers, None),
            spray: pipeline(
                "spray",
                "spray_vertex",
                "spray_fragment",
                &spray_buffers,
                Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
            ),
            water: pipeline(
                "water",
                "water_vertex",
                "water_fragment",
                &water_buffers,
                Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
            ),
            camera: camera_group,
            index_count: indices.len() as u32,
            indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("grid indices"),
                contents: bytemuck::cast_slice(&indices),
                usage: wgpu::BufferUsages::INDEX,
            }),
            cube_vertices: (cube.len() / 6) as u32,
            cube: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("cube"),
                contents: bytemuck::cast_slice(&cube),
                usage: wgpu::BufferUsages::VERTEX,
            }),
            depth: depth.create_view(&Default::default()),
            view_proj,
        }
    }

    /// Where the point (x, y) of the frame (normalised device coordinates: −1 to 1, y up) looks
    /// onto the plane z = `level` (metres relative to the reference level): (x, y) in metres, or
    /// None where it looks away from it.
    #[allow(dead_code, reason = "the web demo's clicks; the example draws without a pointer")]
    pub fn on_plane(&self, x: f32, y: f32, level: f32) -> Option<(f32, f32)> {
        let inverse = self.view_proj.inverse();
        let near = inverse.project_point3(Vec3::new(x, y, 0.0));
        let far = inverse.project_point3(Vec3::new(x, y, 1.0));
        let ray = far - near;
        if ray.z.abs() < 1e-9 {
            return None;
        }
        let t = (level - near.z) / ray.z;
        (t > 0.0).then(|| {
            let p = near + ray * t;
            (p.x, p.y)
        })
    }

    /// Records the frame into `view`: terrain, bodies, the spray, then the water blended over
    /// them. `solids`: instance buffers of `BodyState`s and their counts (the bodies, the buoy);
    /// `spray`: the particles and their indirect draw args (the pipes, which compact the live
    /// ones), or without them every slot (the Navier-Stokes layer's, the free ones dropped).
    pub fn draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        out: &shoal::SurfaceBuffers,
        ground: &wgpu::Buffer,
        solids: &[(&wgpu::Buffer, u32)],
        spray: Option<&(wgpu::Buffer, Option<wgpu::Buffer>)>,
    ) {
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("frame"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.62,
                            g: 0.74,
                            b: 0.86,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.camera, &[]);
            pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);

            pass.set_pipeline(&self.terrain);
            let caustics = out.caustics.as_ref().unwrap_or(&out.wetness);
            for (slot, buffer) in [ground, caustics, &out.wetness, &out.depth].into_iter().enumerate() {
                pass.set_vertex_buffer(slot as u32, buffer.slice(..));
            }
            pass.draw_indexed(0..self.index_count, 0, 0..1);

            for (instances, count) in solids {
                pass.set_pipeline(&self.bodies);
                pass.set_vertex_buffer(0, self.cube.slice(..));
                pass.set_vertex_buffer(1, instances.slice(..));
                pass.draw(0..self.cube_vertices, 0..*count);
            }

            // Before the water, so spray under the surface is seen through it.
            if let Some((particles, args)) = spray {
                pass.set_pipeline(&self.spray);
                pass.set_vertex_buffer(0, particles.slice(..));
                match args {
                    Some(args) => pass.draw_indirect(args, 0),
                    None => {
                        let slots = particles.size() / std::mem::size_of::<shoal::Particle>() as u64;
                        pass.draw(0..6, 0..slots as u32);
                    }
                }
            }

            pass.set_pipeline(&self.water);
            for (slot, buffer) in [&out.height, &out.normals, &out.depth].into_iter().enumerate() {
                pass.set_vertex_buffer(slot as u32, buffer.slice(..));
            }
            pass.draw_indexed(0..self.index_count, 0, 0..1);
        }
    }
}

fn attr(location: u32, format: wgpu::VertexFormat, offset: u64) -> wgpu::VertexAttribute {
    wgpu::VertexAttribute {
        format,
        offset,
        shader_location: location,
    }
}

/// Records the copy of a finished `size` frame in `texture` (4 bytes a pixel) into `buffer`.
pub fn copy_out(encoder: &mut wgpu::CommandEncoder, texture: &wgpu::Texture, buffer: &wgpu::Buffer, size: (u32, u32)) {
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded_row(size.0)),
                rows_per_image: None,
            },
        },
        wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        },
    );
}

/// Bytes a row of a `width`-pixel frame takes in a readback: a copy's rows must be 256-byte
/// multiples.
pub fn padded_row(width: u32) -> u32 {
    (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
}

/// Bytes of the readback buffer `copy_out` fills for a frame of `size`.
pub fn readback_bytes(size: (u32, u32)) -> u64 {
    padded_row(size.0) as u64 * size.1 as u64
}

/// The frame's RGBA8 pixels, row after row, from the padded rows of a readback.
pub fn unpad(bytes: &[u8], (width, height): (u32, u32)) -> Vec<u8> {
    let row = padded_row(width) as usize;
    bytes
        .chunks_exact(row)
        .take(height as usize)
        .flat_map(|r| &r[..width as usize * 4])
        .copied()
        .collect()
}

/// A render target of `width` × `height` in `format`.
pub fn target_descriptor(width: u32, height: u32, format: wgpu::TextureFormat) -> wgpu::TextureDescriptor<'static> {
    wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    }
}

/// A cube [−1, 1]³ with each face split into n × n quads: (corner xyz, face normal xyz) per
/// vertex, triangle list. Subdivided so the ellipsoid pushed out from it is round.
fn subdivided_cube(n: u32) -> Vec<f32> {
    let mut out = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let normal = Vec3::from_array(std::array::from_fn(|k| if k == axis { sign } else { 0.0 }));
            let (u, v) = {
                let u = Vec3::from_array(std::array::from_fn(|k| if k == (axis + 1) % 3 { 1.0 } else { 0.0 }));
                let v = normal.cross(u);
                (u, v)
            };
            let at =
                |a: u32, b: u32| normal + u * (2.0 * a as f32 / n as f32 - 1.0) + v * (2.0 * b as f32 / n as f32 - 1.0);
            for a in 0..n {
                for b in 0..n {
                    for (p, q) in [(a, b), (a + 1, b), (a + 1, b + 1), (a, b), (a + 1, b + 1), (a, b + 1)] {
                        out.extend_from_slice(&at(p, q).to_array());
                        out.extend_from_slice(&normal.to_array());
                    }
                }
            }
        }
    }
    out
}
