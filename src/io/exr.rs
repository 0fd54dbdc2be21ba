//! OpenEXR height maps through the `exr` crate, for renderers and DCC tools (Houdini, Blender,
//! Unreal take float height fields as EXR): written as one float32 layer whose channels are the
//! surface `h`, the depth `d` and the ground `b`, in metres, north up (the image's first row is
//! the north edge, the grid's row ny − 1); read as terrain from one channel of heights.

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

/// The channels a terrain is read from, in order of preference: Shoal's own ground, a height
/// field's, luminance, red.
pub const HEIGHT_CHANNELS: [&str; 4] = ["b", "height", "Y", "R"];

/// A height map read from an EXR's first layer: `width` × `height` values, row 0 the top (north)
/// edge, from the channel named.
#[derive(Clone, Debug, PartialEq)]
pub struct HeightMap {
    /// Pixels along x.
    pub width: usize,
    /// Pixels along y.
    pub height: usize,
    /// Row-major, row 0 the north edge.
    pub values: Vec<f64>,
    /// The channel they came from (one of `HEIGHT_CHANNELS`).
    pub channel: String,
}

/// The heights in the EXR at `path`: the first of `HEIGHT_CHANNELS` its first layer holds.
pub fn read_height(path: &Path) -> Result<HeightMap, String> {
    let image = exr::prelude::read_first_flat_layer_from_file(path)
        .map_err(|e| format!("{} is not a readable OpenEXR: {e}", path.display()))?;
    let layer = &image.layer_data;
    let list = &layer.channel_data.list;
    let Some((name, channel)) = HEIGHT_CHANNELS
        .iter()
        .find_map(|&n| list.iter().find(|c| c.name == *n).map(|c| (n, c)))
    else {
        let found: Vec<String> = list.iter().map(|c| c.name.to_string()).collect();
        return Err(format!(
            "{} has no channel of heights: looked for {} and found {}",
            path.display(),
            HEIGHT_CHANNELS.join(", "),
            found.join(", ")
        ));
    };
    Ok(HeightMap {
        width: layer.size.width(),
        height: layer.size.height(),
        values: channel.sample_data.values_as_f32().map(f64::from).collect(),
        channel: name.to_string(),
    })
}
