//! A host renderer embedding Shoal, headless: it owns its device, builds the water on it, and
//! each frame records Shoal's steps and its own render passes into one encoder. The water
//! surface is a grid mesh displaced in the vertex shader straight from Shoal's height buffer
//! (bound as a vertex buffer, as are its normals, depth, wetness, caustics and the ground), the
//! bodies are instanced from Shoal's body states, and the spray of a pipes scene is a quad per
//! particle instanced from Shoal's particle buffer with `draw_indirect` on the count the GPU
//! wrote. No height or count is read back to draw the water; each finished frame is copied out
//! and written as a PNG. A small ball (a buoy) floats on the water where gameplay would ask: each frame
//! asks `Water::query` for the surface at its place and moves it when an answer arrives (a frame
//! later, without a stall); `marker.csv` logs the frame each answer was asked in and came back.
//!
//! `cargo run --release --example render -- --out DIR [--frames 48] [--width 640] [--height 400]
//!  [--scene SCENE.toml]` (a pipes scene, e.g. scenes/waterfall.toml, draws its spray too)

use glam::{Mat4, Vec3};
use shoal::{Scene, Water, WaterOptions};
use std::path::{Path, PathBuf};

/// A cove: a sand beach rising to the east, a floating crate and a ball, a wave to start.
const COVE: &str = r#"
name = "cove"
[grid]
nx = 128
ny = 96
dx = 0.03125
[time]
dt = 0.016666667
steps = 0
[terrain]
slope = { base = -0.45, grad = [0.16, 0.0] }
[water]
level = 0.0
[[water.bump]]
x = 1.1
y = 1.6
radius = 0.18
height = 0.06
[[body]]
size = [0.42, 0.3, 0.16]
position = [1.7, 1.0, 0.0]
rotation = [0.0, 0.0, 25.0]
density = 550.0
[[body]]
shape = "sphere"
size = [0.24, 0.24, 0.24]
position = [0.9, 2.3, 0.0]
density = 650.0
"#;

struct Args {
    out: PathBuf,
    frames: u32,
    width: u32,
    height: u32,
    scene: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        out: PathBuf::new(),
        frames: 48,
        width: 640,
        height: 400,
        scene: None,
    };
    let mut it = std::env::args().skip(1);
    let mut out = None;
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<u32>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--out" => out = Some(PathBuf::from(value()?)),
            "--frames" => args.frames = number(value()?)?,
            "--width" => args.width = number(value()?)?,
            "--height" => args.height = number(value()?)?,
            "--scene" => args.scene = Some(PathBuf::from(value()?)),
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    args.out = out.ok_or("usage: render --out DIR [--frames N] [--width W] [--height H] [--scene FILE]")?;
    // Rows copied out of the frame must be 256-byte aligned: widths are multiples of 64.
    if args.width == 0 || !args.width.is_multiple_of(64) || args.height == 0 {
        return Err("--width must be a positive multiple of 64, --height positive".into());
    }
    Ok(args)
}

fn main() {
    if let Err(e) = parse_args().and_then(|args| run(&args)) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// The host's uniform (render.wgsl's `Camera`).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Camera {
    view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    sun: [f32; 4],
    grid: [f32; 4],
}

const COLOUR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

fn run(args: &Args) -> Result<(), String> {
    let scene = match &args.scene {
        Some(path) => Scene::from_file(path).map_err(|e| e.to_string())?,
        None => Scene::parse(COVE, Path::new("<cove>"), Path::new(".")).map_err(|e| e.to_string())?,
    };
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let (device, queue) = open_device()?;

    // Shoal, built on the host's device.
    let options = WaterOptions::default();
    let mut water = Water::new(&device, &queue, &scene, options).map_err(|e| e.to_string())?;
    let (nx, ny, dx) = water.grid();
    let renderer = Renderer::new(&device, args, nx, ny, dx as f32, options.light);
    let bodies = water.bodies_buffer().cloned();
    let ground = water.ground_buffer().clone();
    // The spray (a pipes scene): the particles and their draw args, the same buffers every frame.
    let spray = water
        .particles_buffer()
        .cloned()
        .zip(water.particle_draw_args().cloned());
    // The host's edits are the height field's: the pipes count their water in whole units.
    let editable = scene.physics.model != shoal::scene::WaterModel::Pipes;

    let mut rng = 0x2545_f491_u32;
    let mut random = move || {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        rng as f64 / u32::MAX as f64
    };
    let (width_m, height_m) = (nx as f64 * dx, ny as f64 * dx);
    // The buoy: one instance for the bodies' pipeline, written by the host when an answer comes.
    let buoy_at = [0.3 * width_m, 0.45 * height_m];
    let buoy = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("buoy"),
        size: std::mem::size_of::<shoal::BodyState>() as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut buoy_shown = false;
    let mut asked: Vec<(shoal::QueryId, u32)> = Vec::new();
    let mut log = String::from("asked,answered,height,depth,nx,ny,nz\n");
    for frame in 0..args.frames {
        // The host's edits between steps: drops of rain, a sand bar pushed up, the crate dragged.
        if editable && frame % 5 == 4 {
            water
                .disturb(random() * width_m * 0.5 + 0.2, random() * height_m, 0.07, 0.03)
                .map_err(|e| e.to_string())?;
        }
        if editable && (12..20).contains(&frame) {
            water.brush(0.5, 0.6, 0.25, 0.012).map_err(|e| e.to_string())?;
        }
        if (24..36).contains(&frame) && water.body_count() > 0 {
            water.drag_body(0, -0.3, 0.15).map_err(|e| e.to_string())?;
        }
        if editable {
            asked.push((water.query(&[buoy_at]).map_err(|e| e.to_string())?, frame));
        }
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        water.record(&mut encoder, 2);
        // The bodies from Shoal's states, and the buoy once an answer has placed it.
        let mut solids: Vec<(&wgpu::Buffer, u32)> = bodies.iter().map(|b| (b, water.body_count() as u32)).collect();
        if buoy_shown {
            solids.push((&buoy, 1));
        }
        renderer.draw(&mut encoder, water.buffers(), &ground, &solids, spray.as_ref());
        queue.submit([encoder.finish()]);
        // Whatever has come back (never waits): the buoy rides the newest answer.
        for (id, samples) in water.answers().map_err(|e| e.to_string())? {
            let s = samples[0];
            let when = asked.iter().find(|(q, _)| *q == id).map_or(frame, |(_, f)| *f);
            log.push_str(&format!(
                "{when},{frame},{},{},{},{},{}\n",
                s.height, s.depth, s.normal[0], s.normal[1], s.normal[2]
            ));
            let radius = 0.05;
            let z = (s.height - water.reference_level()) as f32;
            let state = shoal::BodyState {
                position: [buoy_at[0] as f32, buoy_at[1] as f32, z, 0.0],
                rotation: [0.0, 0.0, 0.0, 1.0],
                half: [radius; 4],
                kind: [shoal::low_level::SHAPE_ELLIPSOID, 0, 0, 0],
                ..Default::default()
            };
            queue.write_buffer(&buoy, 0, bytemuck::bytes_of(&state));
            buoy_shown = true;
        }
        let image = renderer.read_frame(&device)?;
        let path = args.out.join(format!("frame_{frame:03}.png"));
        shoal::io::picture::write_png(&path, &image).map_err(|e| e.to_string())?;
    }
    water.check().map_err(|e| e.to_string())?;
    std::fs::write(args.out.join("marker.csv"), log).map_err(|e| e.to_string())?;
    println!("wrote {} frames to {}", args.frames, args.out.display());
    Ok(())
}

/// The host's own device, as any wgpu program opens one. Shoal's passes bind more storage
/// buffers than wgpu's default limits allow, so ask for the adapter's.
fn open_device() -> Result<(wgpu::Device, wgpu::Queue), String> {
    pollster::block_on(async {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions::default())
            .await
            .map_err(|e| format!("no adapter: {e}"))?;
        adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("render example"),
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no device: {e}"))
    })
}

struct Renderer {
    terrain: wgpu::RenderPipeline,
    water: wgpu::RenderPipeline,
    bodies: wgpu::RenderPipeline,
    spray: wgpu::RenderPipeline,
    camera: wgpu::BindGroup,
    indices: wgpu::Buffer,
    index_count: u32,
    cube: wgpu::Buffer,
    cube_vertices: u32,
    colour: wgpu::Texture,
    depth: wgpu::TextureView,
    readback: wgpu::Buffer,
    size: (u32, u32),
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
    fn new(device: &wgpu::Device, args: &Args, nx: u32, ny: u32, dx: f32, light: [f64; 3]) -> Renderer {
        use wgpu::util::DeviceExt;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("render.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("render.wgsl").into()),
        });
        let (w, h) = (nx as f32 * dx, ny as f32 * dx);
        let centre = Vec3::new(w * 0.52, h * 0.45, -0.2);
        let eye = centre + Vec3::new(-0.25 * w, -1.25 * h, 1.0 * w.max(h));
        let aspect = args.width as f32 / args.height as f32;
        let view_proj =
            Mat4::perspective_rh(40f32.to_radians(), aspect, 0.05, 50.0) * Mat4::look_at_rh(eye, centre, Vec3::Z);
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
        // position at 0, velocity at 16.
        let spray_buffers = [wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<shoal::Particle>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &[
                attr(0, wgpu::VertexFormat::Float32x3, 0),
                attr(1, wgpu::VertexFormat::Float32x3, 16),
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
                            format: COLOUR,
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
        let colour = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("frame"),
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            ..target_descriptor(args)
        });
        let depth = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            format: DEPTH,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            ..target_descriptor(args)
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
            colour,
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("frame readback"),
                size: args.width as u64 * args.height as u64 * 4,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            size: (args.width, args.height),
        }
    }

    /// Records the frame: terrain, bodies, the spray, then the water blended over them; then the
    /// copy out. `solids`: instance buffers of `BodyState`s and their counts (the bodies, the
    /// buoy); `spray`: the particles and their indirect draw args.
    fn draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        out: &shoal::SurfaceBuffers,
        ground: &wgpu::Buffer,
        solids: &[(&wgpu::Buffer, u32)],
        spray: Option<&(wgpu::Buffer, wgpu::Buffer)>,
    ) {
        let view = self.colour.create_view(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("frame"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
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
                pass.draw_indirect(args, 0);
            }

            pass.set_pipeline(&self.water);
            for (slot, buffer) in [&out.height, &out.normals, &out.depth].into_iter().enumerate() {
                pass.set_vertex_buffer(slot as u32, buffer.slice(..));
            }
            pass.draw_indexed(0..self.index_count, 0, 0..1);
        }
        encoder.copy_texture_to_buffer(
            self.colour.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.size.0 * 4),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d {
                width: self.size.0,
                height: self.size.1,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Waits for the frame and copies it out (the picture, not the water: Shoal's state stays
    /// on the GPU).
    fn read_frame(&self, device: &wgpu::Device) -> Result<image::RgbImage, String> {
        let (w, h) = self.size;
        let bytes = shoal::readback::map(device, &self.readback, w as u64 * h as u64 * 4).map_err(|e| e.to_string())?;
        let rgb: Vec<u8> = bytes.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        image::RgbImage::from_raw(w, h, rgb).ok_or_else(|| "frame size mismatch".to_string())
    }
}

fn attr(location: u32, format: wgpu::VertexFormat, offset: u64) -> wgpu::VertexAttribute {
    wgpu::VertexAttribute {
        format,
        offset,
        shader_location: location,
    }
}

/// The frame's size and colour format, for the colour and depth targets.
fn target_descriptor(args: &Args) -> wgpu::TextureDescriptor<'static> {
    wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: args.width,
            height: args.height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: COLOUR,
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
