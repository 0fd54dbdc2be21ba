//! OpenEXR height maps through the `exr` crate, for renderers and DCC tools (Houdini, Blender,
//! Unreal take float height fields as EXR): written as one float32 layer whose channels are `R`,
//! `G` and `B`, each the surface height (what a tool that reads RGB by default, Blender among
//! them, shows as a grey height map), and the surface `h`, the depth `d` and the ground `b` by
//! name, in metres, north up (the image's first row is the north edge, the grid's row ny − 1),
//! with the cell size, time and step as header attributes; read as terrain from one channel of
//! heights.

use std::path::Path;

/// Where and when a height map was taken, for its header.
#[derive(Clone, Copy, Debug)]
pub struct Stamp {
    /// The cell size, m.
    pub dx: f64,
    /// The simulated time, s.
    pub time: f64,
    /// The step.
    pub step: u64,
}

/// The header attributes `write_height` adds, by name (for tools and tests that read them).
pub const DX_ATTRIBUTE: &str = "shoal_dx_m";
/// The simulated time, s (f64).
pub const TIME_ATTRIBUTE: &str = "shoal_time_s";
/// The step (f64: any step a run can reach is exact in it).
pub const STEP_ATTRIBUTE: &str = "shoal_step";
/// What the values measure, in words.
pub const DATUM_ATTRIBUTE: &str = "shoal_datum";

/// Writes `surface` and `ground` (row-major `[ny, nx]`, row 0 the south edge) to `path` as the
/// channels R = G = B = h and h, d = max(h − b, 0) and b, atomically.
pub fn write_height(
    path: &Path,
    (nx, ny): (usize, usize),
    surface: &[f32],
    ground: &[f32],
    stamp: Stamp,
) -> crate::error::Result<()> {
    use exr::prelude::*;
    let at = |x: usize, y: usize| (ny - 1 - y) * nx + x;
    let channels = SpecificChannels::build()
        .with_channel("B")
        .with_channel("G")
        .with_channel("R")
        .with_channel("b")
        .with_channel("d")
        .with_channel("h")
        .with_pixel_fn(|p: Vec2<usize>| {
            let c = at(p.x(), p.y());
            let (h, b) = (surface[c], ground[c]);
            (h, h, h, b, (h - b).max(0.0), h)
        });
    let mut image = Image::from_channels((nx, ny), channels);
    // Per layer: the reader puts attributes it does not know there, whatever the writer did.
    let other = &mut image.layer_data.attributes.other;
    other.insert(Text::from(DX_ATTRIBUTE), AttributeValue::F32(stamp.dx as f32));
    other.insert(Text::from(TIME_ATTRIBUTE), AttributeValue::F64(stamp.time));
    other.insert(Text::from(STEP_ATTRIBUTE), AttributeValue::F64(stamp.step as f64));
    other.insert(
        Text::from(DATUM_ATTRIBUTE),
        AttributeValue::Text(Text::from(
            "metres above the scene's z = 0; R = G = B = h the surface, d the depth, b the ground; north up",
        )),
    );
    image.layer_data.attributes.software_name = Some(Text::from(concat!("Shoal ", env!("CARGO_PKG_VERSION"))));
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
