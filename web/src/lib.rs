//! Shoal in the browser: the engine's WGSL passes on the visitor's GPU through WebGPU, drawn into
//! a canvas with the embedding example's renderer (`examples/render/renderer.rs`) straight from
//! Shoal's buffers. `web/index.html` drives it: a preset scene, clicks that splash, drags that
//! brush sand, the steps/s. Nothing here blocks: the device opens and the volume reads back
//! asynchronously, as the web requires.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::prelude::*;

#[path = "../../examples/render/renderer.rs"]
mod renderer;

/// The preset scenes the page offers: every one in `scenes/` but `BATCH_ONLY`, their files
/// among `FILES`.
const PRESETS: [(&str, &str); 27] = [
    ("default", include_str!("../../scenes/default.toml")),
    ("beach", include_str!("../../scenes/beach.toml")),
    ("cube_drop", include_str!("../../scenes/cube_drop.toml")),
    ("floating_blocks", include_str!("../../scenes/floating_blocks.toml")),
    ("wake", include_str!("../../scenes/wake.toml")),
    ("open_sea", include_str!("../../scenes/open_sea.toml")),
    ("run_up_sw", include_str!("../../scenes/run_up_sw.toml")),
    ("moonlight_cove", include_str!("../../scenes/moonlight_cove.toml")),
    ("waterfall", include_str!("../../scenes/waterfall.toml")),
    ("rapids", include_str!("../../scenes/rapids.toml")),
    ("forked_waterfall", include_str!("../../scenes/forked_waterfall.toml")),
    ("bridge", include_str!("../../scenes/bridge.toml")),
    ("river", include_str!("../../scenes/river.toml")),
    ("rain_pond", include_str!("../../scenes/rain_pond.toml")),
    ("fish_tank", include_str!("../../scenes/fish_tank.toml")),
    ("standing_wave", include_str!("../../scenes/standing_wave.toml")),
    ("wind_waves", include_str!("../../scenes/wind_waves.toml")),
    ("jet_tank", include_str!("../../scenes/jet_tank.toml")),
    ("sluice_gate", include_str!("../../scenes/sluice_gate.toml")),
    ("flume", include_str!("../../scenes/flume.toml")),
    ("storm_surge", include_str!("../../scenes/storm_surge.toml")),
    ("storm_surge_sw", include_str!("../../scenes/storm_surge_sw.toml")),
    ("dam_break_valley", include_str!("../../scenes/dam_break_valley.toml")),
    ("flash_flood", include_str!("../../scenes/flash_flood.toml")),
    ("flash_flood_sw", include_str!("../../scenes/flash_flood_sw.toml")),
    ("river_reach", include_str!("../../scenes/river_reach.toml")),
    ("ea_test1", include_str!("../../scenes/ea_test1.toml")),
];

/// The scenes in `scenes/` the page does not offer, and why: the Environment Agency's tests 2
/// and 4 fill a dry plain from sources at steps of 30 and 2 s, where only a batch run, which
/// runs a chunk again at more substeps when its flow outran them, keeps every depth
/// non-negative (`Water` follows the flow a frame late: its first frame outruns them).
const BATCH_ONLY: [&str; 2] = ["ea_test2", "ea_test4"];

/// The files the presets read (rasters, arrays, tables), provided under the paths their scenes
/// name (`shoal::io::files`: the page has no file system).
const FILES: [(&str, &[u8]); 11] = [
    ("bay.tif", include_bytes!("../../scenes/bay.tif")),
    ("valley.tif", include_bytes!("../../scenes/valley.tif")),
    ("valley_rain.tif", include_bytes!("../../scenes/valley_rain.tif")),
    (
        "valley_reservoir.npy",
        include_bytes!("../../scenes/valley_reservoir.npy"),
    ),
    ("flume_swash.npy", include_bytes!("../../scenes/flume_swash.npy")),
    ("ea_test1_stage.csv", include_bytes!("../../scenes/ea_test1_stage.csv")),
    ("flash_flood_q.csv", include_bytes!("../../scenes/flash_flood_q.csv")),
    (
        "flash_flood_rain.csv",
        include_bytes!("../../scenes/flash_flood_rain.csv"),
    ),
    ("jet_tank.csv", include_bytes!("../../scenes/jet_tank.csv")),
    (
        "river_reach_stage.csv",
        include_bytes!("../../scenes/river_reach_stage.csv"),
    ),
    ("sluice_gate.csv", include_bytes!("../../scenes/sluice_gate.csv")),
];

thread_local! {
    /// The last panic's message (a panic in wasm reaches JavaScript as "unreachable").
    static PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    /// Why the device was lost, once it is: no frame is recorded on a lost device (its buffers
    /// can no longer be mapped, and wgpu would panic inside the first write).
    static LOST: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Why the WebGPU device was lost ("" while it is not): the page then starts again on a 2D
/// canvas, since the loss in practice comes from the WebGPU canvas (headless Chromium's
/// SwiftShader destroys the device at the first frame it presents).
#[wasm_bindgen]
pub fn device_lost() -> String {
    LOST.with(|l| l.borrow().clone().unwrap_or_default())
}

/// The last panic's message, for the page's error line ("" if none).
#[wasm_bindgen]
pub fn last_panic() -> String {
    PANIC.with(|p| p.borrow().clone())
}

/// The preset scenes' names, in the page's order.
#[wasm_bindgen]
pub fn presets() -> Vec<String> {
    PRESETS.iter().map(|(name, _)| name.to_string()).collect()
}

/// A one-shot channel for a map callback's answer.
fn futures_channel<T: Send>() -> (
    futures_intrusive::channel::shared::OneshotSender<T>,
    impl std::future::Future<Output = Result<T, &'static str>>,
) {
    let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
    (sender, async move {
        receiver.receive().await.ok_or("the map callback never ran")
    })
}

fn js_error(message: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&message.to_string())
}

/// What a visitor who asked for `scene` is told: the presets there are, and the models whose
/// scenes no preset can hold.
fn unknown_preset(scene: &str) -> String {
    let names: Vec<&str> = PRESETS.iter().map(|(name, _)| *name).collect();
    let off = shoal::models_off_the_browser();
    let why = match off.len() {
        0 => String::new(),
        _ => format!(
            "; a scene on the {} does not run in a browser yet (its passes bind more storage buffers \
             than WebGPU's 10 a stage): run it with `shoal run`",
            off.join(" or the ")
        ),
    };
    let batch = match BATCH_ONLY.contains(&scene) {
        true => "; it fills a dry plain from sources at long steps, which only a batch run's re-run of an \
                 outrun chunk keeps non-negative: run it with `shoal run`"
            .to_string(),
        false => String::new(),
    };
    format!(
        "this page has no preset scene {scene:?}{batch}: it runs {}{why}",
        names.join(", ")
    )
}

/// Where frames go: the canvas's own WebGPU context, or (where the browser cannot give one, as
/// headless Chromium on a software adapter cannot) a texture of ours, read back and put into the
/// canvas's 2D context by `show`.
enum Target {
    Canvas {
        surface: wgpu::Surface<'static>,
        view_format: wgpu::TextureFormat,
    },
    Offscreen {
        texture: wgpu::Texture,
        readback: wgpu::Buffer,
        context: web_sys::CanvasRenderingContext2d,
        size: (u32, u32),
    },
}

/// The offscreen frames' format (RGBA bytes, as the 2D context takes them).
const OFFSCREEN: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A preset scene running on WebGPU into a canvas.
#[wasm_bindgen]
pub struct Demo {
    device: wgpu::Device,
    queue: wgpu::Queue,
    target: Target,
    water: shoal::Water,
    renderer: renderer::Renderer,
    ground: wgpu::Buffer,
    bodies: Option<wgpu::Buffer>,
    spray: Option<(wgpu::Buffer, Option<wgpu::Buffer>)>,
    adapter: String,
    limits: String,
}

#[wasm_bindgen]
impl Demo {
    /// Opens WebGPU (the adapter's own limits asked for: WebGPU's defaults bind too few storage
    /// buffers for Shoal's passes) and builds the preset `scene`, drawing into `canvas` through
    /// its WebGPU context, or with `offscreen` into a texture that `show` puts into its 2D context.
    /// Fails with a message where the browser has no WebGPU or the adapter cannot run the scene.
    pub async fn start(canvas: web_sys::HtmlCanvasElement, scene: String, offscreen: bool) -> Result<Demo, JsValue> {
        LOST.with(|l| *l.borrow_mut() = None);
        std::panic::set_hook(Box::new(|info| {
            let message = info.to_string();
            web_sys::console::error_1(&JsValue::from_str(&message));
            PANIC.with(|p| *p.borrow_mut() = message);
        }));
        for (path, bytes) in FILES {
            shoal::io::files::provide(path, bytes.to_vec());
        }
        let text = PRESETS
            .iter()
            .find(|(name, _)| *name == scene)
            .map(|(_, text)| *text)
            .ok_or_else(|| js_error(unknown_preset(&scene)))?;
        let scene =
            shoal::Scene::parse(text, std::path::Path::new(&scene), std::path::Path::new(".")).map_err(js_error)?;
        let (width, height) = (canvas.width(), canvas.height());

        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::BROWSER_WEBGPU,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let (surface, context) = if offscreen {
            let context = canvas
                .get_context("2d")
                .ok()
                .flatten()
                .and_then(|c| wasm_bindgen::JsCast::dyn_into::<web_sys::CanvasRenderingContext2d>(c).ok())
                .ok_or_else(|| js_error("the canvas has no 2D context"))?;
            (None, Some(context))
        } else {
            let surface = instance
                .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
                .map_err(|e| js_error(format!("this browser has no WebGPU canvas: {e}")))?;
            (Some(surface), None)
        };
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                compatible_surface: surface.as_ref(),
                ..Default::default()
            })
            .await
            .map_err(|e| js_error(format!("this browser offers no WebGPU adapter: {e}")))?;
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("shoal web"),
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| js_error(format!("the adapter refused a device: {e}")))?;

        let target = match (surface, context) {
            (Some(surface), _) => {
                let mut config = surface
                    .get_default_config(&adapter, width, height)
                    .ok_or_else(|| js_error("the canvas cannot be drawn on with this adapter"))?;
                // The renderer writes linear colour into an sRGB view of the canvas.
                let view_format = config.format.add_srgb_suffix();
                config.view_formats = vec![view_format];
                surface.configure(&device, &config);
                Target::Canvas { surface, view_format }
            }
            (None, Some(context)) => Target::Offscreen {
                texture: device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("frame"),
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                    ..renderer::target_descriptor(width, height, OFFSCREEN)
                }),
                readback: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("frame readback"),
                    size: renderer::readback_bytes((width, height)),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                context,
                size: (width, height),
            },
            (None, None) => unreachable!("one of the two was made above"),
        };
        let view_format = match &target {
            Target::Canvas { view_format, .. } => *view_format,
            Target::Offscreen { .. } => OFFSCREEN,
        };

        device.set_device_lost_callback(|reason, message| {
            let message = format!("the WebGPU device was lost ({reason:?}): {message}");
            web_sys::console::error_1(&JsValue::from_str(&message));
            LOST.with(|l| *l.borrow_mut() = Some(message));
        });
        // The first error says why; the ones after it follow from it (invalid command buffers).
        device.on_uncaptured_error(std::sync::Arc::new(|e: wgpu::Error| {
            let message = format!("WebGPU: {e}");
            web_sys::console::error_1(&JsValue::from_str(&message));
            PANIC.with(|p| {
                if p.borrow().is_empty() {
                    *p.borrow_mut() = message;
                }
            });
        }));
        // Building the water: its errors come back through a scope, awaited (nothing may block).
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let options = shoal::WaterOptions {
            caustics: true,
            ..Default::default()
        };
        let mut water = shoal::Water::new(&device, &queue, &scene, options).map_err(js_error)?;
        let (nx, ny, dx) = water.grid();
        let renderer = renderer::Renderer::new(
            &device,
            view_format,
            (width, height),
            (nx, ny, dx as f32),
            options.light,
        );
        if let Some(e) = scope.pop().await {
            return Err(js_error(format!("WebGPU refused Shoal's passes: {e}")));
        }
        // Shoal's own scopes answer in the background: give them a moment, then look.
        wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
            let _ = web_sys::window().map(|w| w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 50));
        }))
        .await?;
        let errors = shoal::take_web_errors();
        if !errors.is_empty() {
            return Err(js_error(format!(
                "WebGPU refused Shoal's passes: {}",
                errors.join("; ")
            )));
        }
        let lost = last_panic();
        if !lost.is_empty() {
            return Err(js_error(lost));
        }
        let info = adapter.get_info();
        Ok(Demo {
            ground: water.ground_buffer().clone(),
            bodies: water.bodies_buffer().cloned(),
            // The pipes' live particles and their draw args; the layer's every slot.
            spray: {
                let args = water.particle_draw_args().cloned();
                water.particles_buffer().cloned().map(|p| (p, args))
            },
            // Browsers may hide the adapter's name (Chromium does on SwiftShader).
            adapter: match (info.name.as_str(), info.driver.as_str()) {
                ("", "") => format!("a WebGPU adapter whose name the browser keeps ({:?})", info.device_type),
                ("", driver) => format!("{driver} ({:?})", info.device_type),
                (name, _) => format!("{name} ({:?})", info.device_type),
            },
            limits: format!(
                "{} storage buffers per stage, {} MiB per storage binding",
                limits.max_storage_buffers_per_shader_stage,
                limits.max_storage_buffer_binding_size >> 20
            ),
            device,
            queue,
            target,
            water,
            renderer,
        })
    }

    /// Runs `steps` steps and draws the frame: one encoder, one submit, no readback (offscreen,
    /// `show` then reads the frame).
    pub fn frame(&mut self, steps: u32) -> Result<(), JsValue> {
        if let Some(lost) = LOST.with(|l| l.borrow().clone()) {
            return Err(js_error(lost));
        }
        let (view, texture) = match &self.target {
            Target::Canvas { surface, view_format } => {
                let texture = match surface.get_current_texture() {
                    wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
                    other => return Err(js_error(format!("the canvas gave no frame: {other:?}"))),
                };
                let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
                    format: Some(*view_format),
                    ..Default::default()
                });
                (view, Some(texture))
            }
            Target::Offscreen { texture, .. } => (texture.create_view(&Default::default()), None),
        };
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.water.record(&mut encoder, steps);
        let solids: Vec<(&wgpu::Buffer, u32)> = self
            .bodies
            .iter()
            .map(|b| (b, self.water.body_count() as u32))
            .collect();
        self.renderer.draw(
            &mut encoder,
            &view,
            self.water.buffers(),
            &self.ground,
            &solids,
            self.spray.as_ref(),
        );
        if let Target::Offscreen {
            texture,
            readback,
            size,
            ..
        } = &self.target
        {
            renderer::copy_out(&mut encoder, texture, readback, *size);
        }
        self.queue.submit([encoder.finish()]);
        if let Some(texture) = texture {
            self.queue.present(texture);
        }
        Ok(())
    }

    /// Offscreen: reads the last frame back and puts it into the canvas (a Promise); with the
    /// canvas's WebGPU context, nothing to do.
    pub fn show(&self) -> js_sys::Promise {
        let Target::Offscreen {
            readback,
            context,
            size,
            ..
        } = &self.target
        else {
            return js_sys::Promise::resolve(&JsValue::UNDEFINED);
        };
        let (readback, context, (width, height)) = (readback.clone(), context.clone(), *size);
        wasm_bindgen_futures::future_to_promise(async move {
            let (sender, receiver) = futures_channel();
            readback.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                let _ = sender.send(r);
            });
            receiver.await.map_err(js_error)?.map_err(js_error)?;
            let padded = readback.slice(..).get_mapped_range().map_err(js_error)?.to_vec();
            let pixels = renderer::unpad(&padded, (width, height));
            readback.unmap();
            let image =
                web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(&pixels), width, height)?;
            context.put_image_data(&image, 0.0, 0.0)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// A splash where the point (x, y) of the canvas (normalised: −1 to 1, y up) looks onto the
    /// water.
    pub fn splash(&mut self, x: f32, y: f32) -> Result<(), JsValue> {
        if let Some((px, py)) = self.renderer.on_plane(x, y, 0.0) {
            self.water.disturb(px as f64, py as f64, 0.12, 0.04).map_err(js_error)?;
        }
        Ok(())
    }

    /// Raises (negative: digs) the sand by `height` metres where (x, y) of the canvas looks.
    pub fn brush(&mut self, x: f32, y: f32, height: f32) -> Result<(), JsValue> {
        if let Some((px, py)) = self.renderer.on_plane(x, y, 0.0) {
            self.water
                .brush(px as f64, py as f64, 0.25, height as f64)
                .map_err(js_error)?;
        }
        Ok(())
    }

    /// Steps run.
    pub fn steps(&self) -> f64 {
        self.water.steps() as f64
    }

    /// The adapter, in words.
    pub fn adapter(&self) -> String {
        self.adapter.clone()
    }

    /// The limits Shoal meets on this adapter.
    pub fn limits(&self) -> String {
        self.limits.clone()
    }

    /// The water's volume now (m³), read back without blocking: a Promise of a number. Σ
    /// depth·dx² in f64 from the depth the surface pass wrote; on the pipes, their whole units
    /// (under overhangs too, where the surface sees only the water over the top floor).
    pub fn volume(&mut self) -> js_sys::Promise {
        let (device, queue) = (self.device.clone(), self.queue.clone());
        let dx = self.water.grid().2;
        let units = self.water.units_buffer().map(|(b, per_unit)| (b.clone(), per_unit));
        let depth = self.water.buffers().depth.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let volume = match units {
                Some((water, per_unit)) => {
                    let bytes = shoal::readback::read_async(&device, &queue, &water)
                        .await
                        .map_err(js_error)?;
                    let units: &[u32] = bytemuck::cast_slice(&bytes);
                    units.iter().map(|&w| w as u64).sum::<u64>() as f64 * per_unit
                }
                None => {
                    let bytes = shoal::readback::read_async(&device, &queue, &depth)
                        .await
                        .map_err(js_error)?;
                    let depths: &[f32] = bytemuck::cast_slice(&bytes);
                    depths.iter().map(|&d| d as f64).sum::<f64>() * dx * dx
                }
            };
            Ok(JsValue::from_f64(volume))
        })
    }
}
