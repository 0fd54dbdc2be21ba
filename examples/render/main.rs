//! A host renderer embedding Shoal, headless: it owns its device, builds the water on it, and
//! each frame records Shoal's steps and its own render passes into one encoder. The water
//! surface is a grid mesh displaced in the vertex shader straight from Shoal's height buffer
//! (bound as a vertex buffer, as are its normals, depth, wetness, caustics and the ground), the
//! bodies are instanced from Shoal's body states, and the spray is a quad per particle
//! instanced from Shoal's particle buffer (on the pipes with `draw_indirect` on the count the GPU
//! wrote). No height or count is read back to draw the water; each finished frame is copied out
//! and written as a PNG. A small ball (a buoy) floats on the water where gameplay would ask: each frame
//! asks `Water::query` for the surface at its place and moves it when an answer arrives (a frame
//! later, without a stall); `marker.csv` logs the frame each answer was asked in and came back.
//!
//! `cargo run --release --example render -- --out DIR [--frames 48] [--width 640] [--height 400]
//!  [--scene SCENE.toml] [--no-spray]` (a scene with spray, e.g. scenes/waterfall.toml or
//!  scenes/sluice_gate.toml, draws it too: the pipes' live particles with `draw_indirect`, the
//!  Navier-Stokes layer's every slot, its free ones dropped by the vertex shader)

use shoal::{Scene, Water, WaterOptions};
use std::path::{Path, PathBuf};

mod renderer;
use renderer::Renderer;

/// The frames' colour format.
const COLOUR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

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
    /// `--no-spray`: the particles left undrawn (the same run: a test compares the frames).
    no_spray: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        out: PathBuf::new(),
        frames: 48,
        width: 640,
        height: 400,
        scene: None,
        no_spray: false,
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
            "--no-spray" => args.no_spray = true,
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    args.out =
        out.ok_or("usage: render --out DIR [--frames N] [--width W] [--height H] [--scene FILE] [--no-spray]")?;
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
    let renderer = Renderer::new(
        &device,
        COLOUR,
        (args.width, args.height),
        (nx, ny, dx as f32),
        options.light,
    );
    let target = Frame::new(&device, args.width, args.height);
    let bodies = water.bodies_buffer().cloned();
    let ground = water.ground_buffer().clone();
    // The spray (the pipes, the Navier-Stokes layer): the particles and, on the pipes, their
    // draw args (the layer's slots are drawn all); the same buffers every frame.
    let draw_args = water.particle_draw_args().cloned();
    let spray = water
        .particles_buffer()
        .cloned()
        .map(|p| (p, draw_args))
        .filter(|_| !args.no_spray);
    // The host's edits are the height field's (and the shallow-water model's): the pipes count
    // their water in whole units, and the Navier-Stokes layer takes none in `Water`.
    let editable = matches!(
        scene.physics.model,
        shoal::scene::WaterModel::HeightField | shoal::scene::WaterModel::ShallowWater
    );

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
        renderer.draw(
            &mut encoder,
            &target.view,
            water.buffers(),
            &ground,
            &solids,
            spray.as_ref(),
        );
        target.copy_out(&mut encoder);
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
        let image = target.read(&device)?;
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

/// The offscreen frame the example renders into, and the buffer it is copied out through.
struct Frame {
    colour: wgpu::Texture,
    view: wgpu::TextureView,
    readback: wgpu::Buffer,
    size: (u32, u32),
}

impl Frame {
    fn new(device: &wgpu::Device, width: u32, height: u32) -> Frame {
        let colour = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("frame"),
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            ..renderer::target_descriptor(width, height, COLOUR)
        });
        Frame {
            view: colour.create_view(&Default::default()),
            colour,
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("frame readback"),
                size: renderer::readback_bytes((width, height)),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            size: (width, height),
        }
    }

    /// Records the copy of the finished frame into the readback buffer.
    fn copy_out(&self, encoder: &mut wgpu::CommandEncoder) {
        renderer::copy_out(encoder, &self.colour, &self.readback, self.size);
    }

    /// Waits for the frame and copies it out (the picture, not the water: Shoal's state stays
    /// on the GPU).
    fn read(&self, device: &wgpu::Device) -> Result<image::RgbImage, String> {
        let (w, h) = self.size;
        let padded = shoal::readback::map(device, &self.readback, renderer::readback_bytes(self.size))
            .map_err(|e| e.to_string())?;
        let bytes = renderer::unpad(&padded, self.size);
        let rgb: Vec<u8> = bytes.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
        image::RgbImage::from_raw(w, h, rgb).ok_or_else(|| "frame size mismatch".to_string())
    }
}
