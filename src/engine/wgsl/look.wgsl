// Shared by the render-side passes, surface.wgsl and caustics.wgsl (`#import look`; they
// read no `Params`). Mirrors `crate::gpu::surface::Look`.

struct Look {
    nx: u32,
    ny: u32,
    // Cell size, metres.
    dx: f32,
    // What a dry cell's wetness is multiplied by this frame.
    decay: f32,
    // Direction the light travels (unit, z < 0), and 1 / the water's refractive index.
    light: vec4<f32>,
    // 1 when the scene has bodies: their columns (caustics.wgsl's `cover`) are in shadow.
    bodies: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}
