//! The headless GPU context: instance from wgpu's environment variables, adapter choice, device.
//!
//! Shoal can also run on a Device/Queue the caller owns (see `Simulation::from_device`); this
//! context is only what the CLI and tests use when they own the GPU themselves.

use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};

/// An adapter and the device Shoal opened on it.
pub struct GpuContext {
    /// The device Shoal opened.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter it runs on.
    pub info: wgpu::AdapterInfo,
    /// Errors wgpu reported outside an error scope, kept here instead of panicking.
    pub uncaptured: Arc<Mutex<Option<String>>>,
}

/// What an error scope caught (the future of its `pop`). Natively it waits for the GPU's answer.
/// On the web nothing may block: the answer is awaited in the background and kept for
/// `take_web_errors`, and this returns None.
pub(crate) fn caught(pop: impl std::future::Future<Output = Option<wgpu::Error>> + 'static) -> Option<wgpu::Error> {
    #[cfg(not(target_arch = "wasm32"))]
    return pollster::block_on(pop);
    #[cfg(target_arch = "wasm32")]
    {
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(e) = pop.await {
                WEB_ERRORS.with(|errors| errors.borrow_mut().push(e.to_string()));
            }
        });
        None
    }
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    static WEB_ERRORS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// On the web: the errors Shoal's error scopes caught since the last call (they arrive a little
/// after the call that made them: check after awaiting).
#[cfg(target_arch = "wasm32")]
pub fn take_web_errors() -> Vec<String> {
    WEB_ERRORS.with(|errors| std::mem::take(&mut *errors.borrow_mut()))
}

impl GpuContext {
    /// Opens the preferred adapter: `WGPU_BACKEND` picks backends and `WGPU_ADAPTER_NAME` a name
    /// (substring, case-insensitive); otherwise discrete > integrated > virtual > CPU.
    pub fn new() -> Result<GpuContext> {
        pollster::block_on(Self::new_async())
    }

    async fn new_async() -> Result<GpuContext> {
        let adapter = choose_adapter(&instance()).await?;
        let info = adapter.get_info();
        // Ask for everything the adapter offers: large grids need its storage-buffer limits, and
        // a software adapter's limits are what it can actually do. Timestamps where offered, for
        // `shoal run --profile` (they cost nothing until a pass asks for them).
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("shoal"),
                required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await?;
        let uncaptured = Arc::new(Mutex::new(None));
        let slot = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut s = slot.lock().unwrap_or_else(|p| p.into_inner());
            s.get_or_insert_with(|| e.to_string());
        }));
        Ok(GpuContext {
            device,
            queue,
            info,
            uncaptured,
        })
    }

    /// Fails with the first uncaptured wgpu error, if any occurred.
    pub fn check(&self) -> Result<()> {
        match self.uncaptured.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(Error::Gpu(e)),
            None => Ok(()),
        }
    }

    /// The adapter, backend, driver and the limits that matter, for `shoal info`.
    pub fn describe(&self) -> String {
        let i = &self.info;
        let l = self.device.limits();
        format!(
            "adapter:  {}\n\
             limits:\n  max_buffer_size                      {}\n  max_storage_buffer_binding_size      {}\n  \
             max_compute_workgroup_storage_size   {}\n  max_compute_invocations_per_workgroup {}\n  \
             max_compute_workgroups_per_dimension {}\n  max_storage_buffers_per_shader_stage {}\n  \
             min_uniform_buffer_offset_alignment  {}\nlargest square grid: {}²",
            adapter_line(i),
            l.max_buffer_size,
            l.max_storage_buffer_binding_size,
            l.max_compute_workgroup_storage_size,
            l.max_compute_invocations_per_workgroup,
            l.max_compute_workgroups_per_dimension,
            l.max_storage_buffers_per_shader_stage,
            l.min_uniform_buffer_offset_alignment,
            largest_square(&l),
        )
    }
}

/// The adapter `GpuContext::new` would open, without opening a device on it: enough to decide
/// which backend a run takes.
pub fn preferred_adapter() -> Result<wgpu::AdapterInfo> {
    Ok(pollster::block_on(choose_adapter(&instance()))?.get_info())
}

/// Whether a grid of `nx × ny` fits the adapter a GPU run would take (its binding and buffer
/// limits, its workgroups): the adapter in words, or why not. Opens no device.
pub fn gpu_fit(nx: u32, ny: u32) -> Result<String> {
    let adapter = pollster::block_on(choose_adapter(&instance()))?;
    crate::engine::gpu::state::check_grid_fits(&adapter.limits(), nx, ny)?;
    Ok(adapter_line(&adapter.get_info()))
}

/// An instance with the backends wgpu's environment variables name.
fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle().with_env())
}

/// One line naming the adapter, for logs.
pub fn adapter_line(info: &wgpu::AdapterInfo) -> String {
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => "a discrete GPU",
        wgpu::DeviceType::IntegratedGpu => "an integrated GPU",
        wgpu::DeviceType::VirtualGpu => "a virtual GPU",
        wgpu::DeviceType::Cpu => "a software rasteriser on the CPU",
        wgpu::DeviceType::Other => "an adapter of unknown kind",
    };
    let api = match info.backend {
        wgpu::Backend::Vulkan => "Vulkan",
        wgpu::Backend::Metal => "Metal",
        wgpu::Backend::Dx12 => "Direct3D 12",
        wgpu::Backend::Gl => "OpenGL",
        wgpu::Backend::BrowserWebGpu => "WebGPU",
        _ => "no API",
    };
    let driver = [info.driver.as_str(), info.driver_info.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if driver.is_empty() {
        format!("{} ({kind}, {api})", info.name)
    } else {
        format!("{} ({kind}, {api}, driver {driver})", info.name)
    }
}

fn largest_square(l: &wgpu::Limits) -> u64 {
    let bytes = l.max_buffer_size.min(l.max_storage_buffer_binding_size);
    ((bytes / 4) as f64).sqrt() as u64
}

async fn choose_adapter(instance: &wgpu::Instance) -> Result<wgpu::Adapter> {
    let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
    let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
    let wanted = std::env::var("WGPU_ADAPTER_NAME").ok().map(|n| n.to_lowercase());
    let rank = |t: wgpu::DeviceType| match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let mut candidates: Vec<wgpu::Adapter> = adapters
        .into_iter()
        .filter(|a| match &wanted {
            Some(n) => a.get_info().name.to_lowercase().contains(n.as_str()),
            None => true,
        })
        .collect();
    candidates.sort_by_key(|a| rank(a.get_info().device_type));
    candidates.into_iter().next().ok_or_else(|| {
        Error::NoAdapter(match wanted {
            Some(n) => format!(" matching WGPU_ADAPTER_NAME=\"{n}\" (found: {})", names.join(", ")),
            None => String::new(),
        })
    })
}
