//! OpenEXR height maps through the `exr` crate, for renderers and DCC tools (Houdini, Blender,
//! Unreal take float height fields as EXR): one float32 layer whose channels are the surface `h`,
//! the depth `d` and the ground `b`, in metres, north up (the image's first row is the north
//! edge, the grid's row ny − 1).

use std::path::Path;

/// Writes `surface` and `ground` (row-major `[ny, nx]`, row 0 the south edge) to `path` as the
/// channels h, d = max(h − b, 0) and b, atomically.
pub fn write_height(path: &Path, nx: usize, ny: usize, surface: &[f32], ground: &[f32]) -> crate::error::Result<()> {
    use exr::prelude::*;
    let at = |x: usize, y: usize| (ny - 1 - y) * nx + x;
    let channels = SpecificChannels::build()
        .with_channel("b")
        .with_channel("d")
        .with_channel("h")
        .with_pixel_fn(|p: Vec2<usize>| {
            let c = at(p.x(), p.y());
            let (h, b) = (surface[c], ground[c]);
            (b, (h - b).max(0.0), h)
        });
    let image = Image::from_channels((nx, ny), channels);
    let mut bytes = std::io::Cursor::new(Vec::new());
    image
        .write()
        .to_buffered(&mut bytes)
        .map_err(|e| crate::error::Error::io(path, std::io::Error::other(e)))?;
    crate::io::atomic::write_bytes(path, bytes.get_ref())
}
