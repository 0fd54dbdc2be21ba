//! The pieces every GPU pass builds with: buffers (zeroed, filled, staged), bind-group layout
//! entries, layouts, bind groups and pipelines, and how a pass is dispatched. Nothing here knows
//! a model or the state: the state (`state.rs`) and every pass build on these.

use wgpu::util::DeviceExt;

/// A zeroed buffer of `size` bytes (wgpu zeroes new buffers).
pub fn zeroed_buffer(device: &wgpu::Device, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// A buffer holding `contents`.
pub fn filled_buffer(device: &wgpu::Device, label: &str, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage,
    })
}

/// Layout entry of a storage buffer visible to compute.
pub fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The layout entries of bind group `group` that the entry points `entries` use (every entry
/// point of the shader when `entries` is empty), as the shader declares them: `bindings` is its
/// `wgsl::NAME::BINDINGS`, which build.rs read off naga. Each binding once, in order; none is
/// dynamic (the per-step slots keep their own layouts).
pub fn reflected(bindings: &[crate::wgsl::Binding], entries: &[&str], group: u32) -> Vec<wgpu::BindGroupLayoutEntry> {
    for e in entries {
        assert!(
            bindings.iter().any(|b| b.entry == *e),
            "no entry point {e} binds anything in this shader"
        );
    }
    let mut out: Vec<wgpu::BindGroupLayoutEntry> = Vec::new();
    let chosen = bindings
        .iter()
        .filter(|b| b.group == group && (entries.is_empty() || entries.contains(&b.entry)));
    for b in chosen {
        if out.iter().any(|e| e.binding == b.binding) {
            continue;
        }
        out.push(match b.kind {
            crate::wgsl::BindingKind::Uniform { .. } => uniform_entry(b.binding, false),
            crate::wgsl::BindingKind::Storage { read_only } => storage_entry(b.binding, read_only),
        });
    }
    out.sort_by_key(|e| e.binding);
    out
}

/// The bind-group layout [`reflected`] describes.
pub fn reflected_layout(
    device: &wgpu::Device,
    label: &str,
    bindings: &[crate::wgsl::Binding],
    entries: &[&str],
    group: u32,
) -> wgpu::BindGroupLayout {
    layout(device, label, &reflected(bindings, entries, group))
}

/// Layout entry of a uniform buffer visible to compute.
pub fn uniform_entry(binding: u32, dynamic: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            // A dynamic binding is a 16-byte window into the slot buffer; the rest bind whole.
            min_binding_size: if dynamic { std::num::NonZeroU64::new(16) } else { None },
        },
        count: None,
    }
}

/// Layout entry of a uniform buffer bound by dynamic offset, a window of `size` bytes.
pub fn dynamic_uniform_entry(binding: u32, size: u64) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: std::num::NonZeroU64::new(size),
        },
        ..uniform_entry(binding, true)
    }
}

/// A bind group over whole buffers, bindings numbered in order.
pub fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let numbered: Vec<(u32, &wgpu::Buffer)> = buffers.iter().enumerate().map(|(i, &b)| (i as u32, b)).collect();
    bind_group_at(device, label, layout, &numbered)
}

/// A bind group over whole buffers at the given bindings (for layouts that leave some out).
pub fn bind_group_at(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .map(|&(binding, b)| wgpu::BindGroupEntry {
            binding,
            resource: b.as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// The bytes of `count` per-step slots, `stride` bytes apart: each the step's index within its
/// submit (a `StepSlot`), then zeros. Every pass that runs per step reads its step from one.
pub fn slot_bytes(stride: u32, count: u32) -> Vec<u8> {
    let mut bytes = vec![0u8; (stride * count) as usize];
    for k in 0..count {
        let at = (k * stride) as usize;
        bytes[at..at + 4].copy_from_slice(&k.to_le_bytes());
    }
    bytes
}

/// The layout of the per-step slot uniform: one 16-byte window, moved by dynamic offset.
pub fn slot_layout(device: &wgpu::Device, label: &str) -> wgpu::BindGroupLayout {
    layout(device, label, &[uniform_entry(0, true)])
}

/// The bind group of the per-step slot uniform (one 16-byte window, moved by dynamic offset).
pub fn slot_bind_group(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, slots: &wgpu::Buffer) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("step slot"),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: slots,
                offset: 0,
                size: std::num::NonZeroU64::new(16),
            }),
        }],
    })
}

/// A compute pipeline from a layout and an entry point.
pub fn pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layouts: &[&wgpu::BindGroupLayout],
    entry: &str,
) -> wgpu::ComputePipeline {
    let layouts: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().copied().map(Some).collect();
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(entry),
        bind_group_layouts: &layouts,
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(&layout),
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A bind group layout from its entries; where the device takes uniform buffers as storage
/// (`uniforms_as_storage`), its uniform entries bind read-only storage.
pub fn layout(device: &wgpu::Device, label: &str, entries: &[wgpu::BindGroupLayoutEntry]) -> wgpu::BindGroupLayout {
    let mut entries = entries.to_vec();
    if uniforms_as_storage(device) {
        for entry in &mut entries {
            if let wgpu::BindingType::Buffer { ty, .. } = &mut entry.ty {
                if *ty == wgpu::BufferBindingType::Uniform {
                    *ty = wgpu::BufferBindingType::Storage { read_only: true };
                }
            }
        }
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

/// Whether this device binds Shoal's uniform buffers as read-only storage buffers: on lavapipe
/// (Mesa's Vulkan on the CPU). Lavapipe inlines the values of uniforms that a compute shader's
/// branches read, and Mesa 22.x (Debian 12's, CI's) compiles the shader again at every pipeline
/// bind and never frees the last build (`update_inline_shader_state`, lvp_execute.c). Measured on
/// a 36×24 beach, explicit step under the global correction, 4000 steps: 24.7 s and 4.0 GB with
/// uniforms, 3.8 s and 0.1 GB with storage, whose loads it never inlines. The price there: ADI's
/// sweeps reload storage values after each store (256², 15 → 10.6 steps/s). Real GPUs keep uniform
/// buffers (their constant caches), and so does llvmpipe through GL, so CI still runs both kinds.
///
/// A device opened with a browser's binding limits (≤ 16 storage buffers a stage; lavapipe offers
/// 32) keeps uniforms, as a browser binds them: tests/web_limits.rs checks the web's counts there.
pub fn uniforms_as_storage(device: &wgpu::Device) -> bool {
    let info = device.adapter_info();
    info.backend == wgpu::Backend::Vulkan
        && info.driver == "llvmpipe"
        && device.limits().max_storage_buffers_per_shader_stage > 16
}

/// The usage of every buffer Shoal binds as uniforms: storage as well, for the devices that bind
/// them that way (`uniforms_as_storage`).
pub const UNIFORM: wgpu::BufferUsages = wgpu::BufferUsages::UNIFORM.union(wgpu::BufferUsages::STORAGE);

/// The alignment of a dynamic offset into a uniform buffer, whichever way the device binds it.
pub fn dynamic_offset_alignment(limits: &wgpu::Limits) -> u32 {
    limits
        .min_uniform_buffer_offset_alignment
        .max(limits.min_storage_buffer_offset_alignment)
        .max(16)
}

/// Records `pipeline` over `(x, y)` workgroups (a `linear_groups` pair).
pub fn dispatch(pass: &mut wgpu::ComputePass, pipeline: &wgpu::ComputePipeline, (x, y): (u32, u32)) {
    pass.set_pipeline(pipeline);
    pass.dispatch_workgroups(x, y, 1);
}

/// Workgroup counts for `groups` 1-D workgroups, folded into 2-D past the per-dimension limit.
pub fn linear_groups(groups: u32, max_per_dim: u32) -> (u32, u32) {
    if groups <= max_per_dim {
        (groups, 1)
    } else {
        let y = groups.div_ceil(max_per_dim);
        (groups.div_ceil(y), y)
    }
}
