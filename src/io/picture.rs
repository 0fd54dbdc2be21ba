//! Pictures of a surface: water tinted by depth and shaded by its surface normal, dry ground in
//! earth tones by height, north up. Used by `shoal run --png/--gif` and `examples/picture.rs`.

use crate::error::{Error, Result};
use crate::io::atomic;
use std::path::Path;

/// What stays fixed across a run's frames, so colours mean the same depth and height in each.
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    /// Lowest ground height, metres.
    pub ground_min: f64,
    /// Highest ground height, metres.
    pub ground_max: f64,
    /// The depth drawn darkest (the deepest water at the start, at least 1 cm).
    pub depth_scale: f64,
}

/// Water shallower than this is drawn as wet ground: a sheet of rain on a slope is not a lake.
const DRAWN_DEPTH: f64 = 0.001;

impl Palette {
    /// Whether it was made from a dry surface (its depth scale the 1 cm placeholder).
    pub fn is_dry(&self) -> bool {
        self.depth_scale <= 0.01
    }

    /// A palette for surfaces over `ground`, scaled to the first surface `h`.
    pub fn new(h: &[f64], ground: &[f64]) -> Palette {
        let (ground_min, ground_max) = ground
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &b| (lo.min(b), hi.max(b)));
        let depth = h.iter().zip(ground).map(|(h, b)| h - b).fold(0.0, f64::max);
        Palette {
            ground_min,
            ground_max,
            depth_scale: depth.max(0.01),
        }
    }
}

/// The surface `h` over `ground` ([ny, nx], row-major, cells of side `dx`) as an image twice the
/// grid's size. `tops`, when not empty, holds the top of the highest body over each cell (NaN
/// where none, `Simulation::body_tops`): bodies above the water are drawn in wood, shaded by
/// their top, and those under it show through the water.
pub fn render(
    h: &[f64],
    ground: &[f64],
    tops: &[f64],
    nx: usize,
    ny: usize,
    dx: f64,
    palette: &Palette,
) -> image::RgbImage {
    let mut img = image::RgbImage::new(nx as u32, ny as u32);
    let at = |f: &[f64], i: usize, j: usize| f[j.min(ny - 1) * nx + i.min(nx - 1)];
    for j in 0..ny {
        for i in 0..nx {
            let c = j * nx + i;
            let depth = h[c] - ground[c];
            let wet = depth > DRAWN_DEPTH;
            let field: &[f64] = if wet { h } else { ground };
            // Lambert shading from the surface normal, light from the north-west; waves are
            // exaggerated so millimetre ripples show.
            let relief = if wet { 40.0 } else { 4.0 };
            let gx = (at(field, i + 1, j) - at(field, i.saturating_sub(1), j)) / (2.0 * dx) * relief;
            let gy = (at(field, i, j + 1) - at(field, i, j.saturating_sub(1))) / (2.0 * dx) * relief;
            let light = ((gx - gy) * -0.5 + 1.0) / (1.0 + gx * gx + gy * gy).sqrt();
            let shade = (0.35 + 0.65 * light).clamp(0.0, 1.4);
            let rgb = if wet {
                let t = (depth / palette.depth_scale).clamp(0.0, 1.0);
                [
                    40.0 + 60.0 * (1.0 - t),
                    110.0 + 90.0 * (1.0 - t),
                    170.0 + 60.0 * (1.0 - t),
                ]
            } else {
                let span = (palette.ground_max - palette.ground_min).max(1e-9);
                let t = ((ground[c] - palette.ground_min) / span).clamp(0.0, 1.0);
                // Ground under a sheet of water is darker, as wet sand is.
                let damp = if depth > 0.0 { 0.8 } else { 1.0 };
                [150.0 + 70.0 * t, 125.0 + 60.0 * t, 80.0 + 50.0 * t].map(|v| v * damp)
            };
            let mut px = rgb.map(|v| (v * shade).clamp(0.0, 255.0) as u8);
            if let Some(&top) = tops.get(c).filter(|t| t.is_finite()) {
                let gx = (at(tops, i + 1, j) - at(tops, i.saturating_sub(1), j)) / (2.0 * dx);
                let gy = (at(tops, i, j + 1) - at(tops, i, j.saturating_sub(1))) / (2.0 * dx);
                let (gx, gy) = if gx.is_finite() && gy.is_finite() {
                    (gx, gy)
                } else {
                    (0.0, 0.0)
                };
                let light = ((gx - gy) * -0.5 + 1.0) / (1.0 + gx * gx + gy * gy).sqrt();
                let wood = [205.0, 140.0, 75.0].map(|v| (v * (0.45 + 0.55 * light)).clamp(0.0, 255.0));
                // Above the water: the body. Under it: the body seen through the water.
                let seen = if top >= h[c] { 1.0 } else { 0.45 };
                px = std::array::from_fn(|k| (wood[k] * seen + px[k] as f64 * (1.0 - seen)) as u8);
            }
            img.put_pixel(i as u32, (ny - 1 - j) as u32, image::Rgb(px));
        }
    }
    image::imageops::resize(
        &img,
        2 * nx as u32,
        2 * ny as u32,
        image::imageops::FilterType::CatmullRom,
    )
}

/// Draws spray over a `render`ed frame: each particle (`Simulation::particles`: x, y, z, vx, vy,
/// vz, volume) as a white dot of 2×2 pixels (a cell's size), blended three quarters over the water so
/// that a dense sheet reads as white water and a lone drop still shows.
pub fn draw_spray(img: &mut image::RgbImage, particles: &[[f32; 7]], dx: f64) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    for p in particles {
        // Two pixels per cell, north up.
        let px = (p[0] as f64 / dx * 2.0).floor() as i64;
        let py = h - 1 - (p[1] as f64 / dx * 2.0).floor() as i64;
        for (x, y) in [(px, py), (px + 1, py), (px, py - 1), (px + 1, py - 1)] {
            if (0..w).contains(&x) && (0..h).contains(&y) {
                let pixel = img.get_pixel_mut(x as u32, y as u32);
                pixel.0 = pixel.0.map(|v| (0.25 * v as f32 + 0.75 * 245.0) as u8);
            }
        }
    }
}

/// Draws foam (x, y, z, life left) as single pixels blended halfway to white over a frame of
/// `render`'s layout: a froth on the water, lighter than the spray's dots.
pub fn draw_foam(img: &mut image::RgbImage, foam: &[[f32; 4]], dx: f64) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    for f in foam {
        let x = (f[0] as f64 / dx * 2.0).floor() as i64;
        let y = h - 1 - (f[1] as f64 / dx * 2.0).floor() as i64;
        if (0..w).contains(&x) && (0..h).contains(&y) {
            let pixel = img.get_pixel_mut(x as u32, y as u32);
            pixel.0 = pixel.0.map(|v| (0.5 * v as f32 + 0.5 * 235.0) as u8);
        }
    }
}

/// A side view of a 2D run's marker particles (x, y, z each; §4.1), two pixels per height-field
/// cell across and the same scale up, from `bottom` to `top` (m): sky, the ground's profile
/// (`ground` per column, m, absolute) in sand, each marker a 2×2 blue dot.
pub fn markers_side(markers: &[[f32; 3]], ground: &[f64], dx: f64, bottom: f64, top: f64) -> image::RgbImage {
    let scale = 2.0 / dx;
    let (w, h) = (2 * ground.len() as u32, ((top - bottom) * scale).ceil().max(1.0) as u32);
    let mut img = image::RgbImage::from_fn(w, h, |px, py| {
        let z = top - (py as f64 + 0.5) / scale;
        if z < ground[(px / 2) as usize] {
            image::Rgb([200, 180, 140])
        } else {
            image::Rgb([235, 240, 245])
        }
    });
    for m in markers {
        let px = (m[0] as f64 * scale).floor() as i64;
        let py = ((top - m[2] as f64) * scale).floor() as i64;
        for (x, y) in [(px, py), (px + 1, py), (px, py - 1), (px + 1, py - 1)] {
            if (0..w as i64).contains(&x) && (0..h as i64).contains(&y) {
                img.put_pixel(x as u32, y as u32, image::Rgb([40, 90, 190]));
            }
        }
    }
    img
}

/// A caustics light field (`cpu::caustics::ground_light`, [ny, nx], 1 under flat water) as a grey
/// image twice the grid's size, north up: grey 100 for 1, 255 for 2.55 and above.
pub fn caustics(light: &[f32], nx: usize, ny: usize) -> image::RgbImage {
    let img = image::RgbImage::from_fn(nx as u32, ny as u32, |i, j| {
        let v = light[(ny - 1 - j as usize) * nx + i as usize];
        image::Rgb([(v * 100.0).clamp(0.0, 255.0) as u8; 3])
    });
    image::imageops::resize(
        &img,
        2 * nx as u32,
        2 * ny as u32,
        image::imageops::FilterType::CatmullRom,
    )
}

/// Writes `img` as a PNG, atomically.
pub fn write_png(path: &Path, img: &image::RgbImage) -> Result<()> {
    let mut bytes = std::io::Cursor::new(Vec::new());
    img.write_to(&mut bytes, image::ImageFormat::Png)
        .map_err(|e| Error::io(path, std::io::Error::other(e)))?;
    atomic::write_bytes(path, bytes.get_ref())
}

/// An animated GIF written frame by frame under a temporary name, renamed into place by
/// `finish`: an interrupted run leaves no half-written GIF under its name, and neither does a
/// failed write (a full disk), which `finish` reports instead of renaming.
pub struct GifWriter {
    path: std::path::PathBuf,
    tmp: tempfile::NamedTempFile,
    /// Writes through a second handle of `tmp`; dropping it writes the GIF's trailer.
    encoder: image::codecs::gif::GifEncoder<Watched>,
    /// The first write error, the trailer's included (the encoder's drop swallows its own).
    failed: std::sync::Arc<std::sync::Mutex<Option<std::io::Error>>>,
    delay_ms: u32,
}

/// A file handle that remembers its first write error.
struct Watched {
    file: std::io::BufWriter<std::fs::File>,
    failed: std::sync::Arc<std::sync::Mutex<Option<std::io::Error>>>,
}

impl Watched {
    fn note<T>(&self, result: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &result {
            let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
            failed.get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        }
        result
    }
}

impl std::io::Write for Watched {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let result = self.file.write(bytes);
        self.note(result)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let result = self.file.flush();
        self.note(result)
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // The trailer sits in the buffer until here: its write must be seen too.
        let result = std::io::Write::flush(&mut self.file);
        let _ = self.note(result);
    }
}

impl GifWriter {
    /// Frames `delay_ms` apart.
    pub fn create(path: &Path, delay_ms: u32) -> Result<GifWriter> {
        // Checked before the run starts, in words about the file the user named.
        let refuse = |why: &str| Err(Error::io(path, std::io::Error::other(why.to_string())));
        if path.is_dir() {
            return refuse("is a folder: --gif takes the GIF file's name");
        }
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        if parent.is_some_and(|p| !p.is_dir()) {
            return refuse("its folder does not exist");
        }
        let tmp = atomic::temporary_for(path)?;
        let failed = std::sync::Arc::new(std::sync::Mutex::new(None));
        let handle = Watched {
            file: std::io::BufWriter::new(tmp.as_file().try_clone().map_err(|e| Error::io(path, e))?),
            failed: failed.clone(),
        };
        let mut encoder = image::codecs::gif::GifEncoder::new(handle);
        encoder
            .set_repeat(image::codecs::gif::Repeat::Infinite)
            .map_err(|e| Error::io(path, std::io::Error::other(e)))?;
        Ok(GifWriter {
            path: path.to_path_buf(),
            tmp,
            encoder,
            failed,
            delay_ms,
        })
    }

    /// Appends a frame.
    pub fn add(&mut self, img: &image::RgbImage) -> Result<()> {
        let rgba = image::DynamicImage::ImageRgb8(img.clone()).into_rgba8();
        let delay = image::Delay::from_numer_denom_ms(self.delay_ms, 1);
        self.encoder
            .encode_frame(image::Frame::from_parts(rgba, 0, 0, delay))
            .map_err(|e| Error::io(&self.path, std::io::Error::other(e)))
    }

    /// Completes the file and moves it to its name.
    pub fn finish(self) -> Result<()> {
        let GifWriter {
            path,
            tmp,
            encoder,
            failed,
            ..
        } = self;
        drop(encoder);
        if let Some(e) = failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
            // The temporary file goes with `tmp`: nothing is left under the GIF's name.
            return Err(Error::io(&path, e));
        }
        tmp.as_file().sync_all().map_err(|e| Error::io(&path, e))?;
        tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_particle_whitens_the_two_by_two_pixels_of_its_cell_north_up() {
        let blue = image::Rgb([40u8, 110, 170]);
        let mut img = image::RgbImage::from_pixel(8, 6, blue);
        // Cell (1, 0) of a 4 × 3 grid of 0.5 m cells: pixels x 2–3, rows 4–5 (the south row is
        // drawn last). One particle off the domain draws nothing.
        draw_spray(
            &mut img,
            &[
                [0.7, 0.2, 1.0, 0.0, 0.0, 0.0, 1e-6],
                [9.0, 0.2, 1.0, 0.0, 0.0, 0.0, 1e-6],
            ],
            0.5,
        );
        for (x, y, p) in img.enumerate_pixels() {
            let spray = (2..4).contains(&x) && (4..6).contains(&y);
            if spray {
                assert!(p.0.iter().all(|&v| v > 190), "({x}, {y}): {p:?}");
            } else {
                assert_eq!(*p, blue, "({x}, {y})");
            }
        }
    }
}
