//! The WGSL sources of every pass, each with `common.wgsl` prepended (WGSL has no includes), and
//! `level.wgsl` too for the passes that advance the state; the render-side passes take
//! `look.wgsl` instead. Tests validate exactly these strings with naga.

macro_rules! shader {
    ($($file:literal),+) => {
        concat!(include_str!("../../wgsl/common.wgsl"), $("\n", include_str!(concat!("../../wgsl/", $file))),+)
    };
}

/// The render-side passes: `look.wgsl` instead of `common.wgsl` (they read no `Params`).
macro_rules! look_shader {
    ($file:literal) => {
        concat!(
            include_str!("../../wgsl/look.wgsl"),
            "\n",
            include_str!(concat!("../../wgsl/", $file))
        )
    };
}

pub const EXPLICIT: &str = shader!("level.wgsl", "explicit.wgsl");
pub const ADI: &str = shader!("level.wgsl", "adi.wgsl");
pub const REDUCE: &str = shader!("reduce.wgsl");
pub const PROBE: &str = shader!("probe.wgsl");
pub const VOLUME: &str = shader!("volume.wgsl");
pub const REGIONS: &str = shader!("regions.wgsl");
pub const BODIES: &str = shader!("bodies_common.wgsl", "bodies.wgsl");
pub const COUPLING: &str = shader!("bodies_common.wgsl", "coupling.wgsl");
pub const EDIT: &str = shader!("edit.wgsl");
pub const SURFACE: &str = look_shader!("surface.wgsl");
pub const CAUSTICS: &str = look_shader!("caustics.wgsl");

/// (file name, full source) of every shader.
pub const ALL: &[(&str, &str)] = &[
    ("explicit.wgsl", EXPLICIT),
    ("adi.wgsl", ADI),
    ("reduce.wgsl", REDUCE),
    ("probe.wgsl", PROBE),
    ("volume.wgsl", VOLUME),
    ("regions.wgsl", REGIONS),
    ("bodies.wgsl", BODIES),
    ("coupling.wgsl", COUPLING),
    ("edit.wgsl", EDIT),
    ("surface.wgsl", SURFACE),
    ("caustics.wgsl", CAUSTICS),
];

/// Files that are prepended to others rather than built on their own.
pub const PIECES: &[&str] = &["common.wgsl", "level.wgsl", "bodies_common.wgsl", "look.wgsl"];

/// Compiles one of these sources into a shader module.
pub fn module(device: &wgpu::Device, label: &str, source: &'static str) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}
