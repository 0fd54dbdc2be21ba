//! The WGSL sources of every pass, as build.rs resolved their `#import` lines and validated them
//! with naga (a shader error fails the build, naming the WGSL file and line). Entry shaders are
//! the files with a `@compute` entry point; the rest (common, level, bodies_common, look) are
//! imported by them.

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// Compiles one of these sources into a shader module; where the device takes uniform buffers
/// as storage (`state::uniforms_as_storage`), its uniforms are declared read-only storage.
pub fn module(device: &wgpu::Device, label: &str, source: &'static str) -> wgpu::ShaderModule {
    let source: std::borrow::Cow<'static, str> = if crate::engine::gpu::binding::uniforms_as_storage(device) {
        source.replace("var<uniform>", "var<storage, read>").into()
    } else {
        source.into()
    };
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source),
    })
}
