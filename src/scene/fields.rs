//! Builds the initial fields of a scene: the ground b and the water surface h, in f64, and the
//! reference level the engine stores heights against.

use super::Scene;
use crate::error::Result;
use crate::io::npy;
use std::path::Path;

/// The level heights are stored against on the GPU: the still surface (`water.level`), or, with an
/// initial surface from npy and no level, the mean of its wet cells. Storing `h − reference` keeps
/// the digits of small waves whatever the altitude of the lake.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReferenceLevel(pub f64);

/// The scene's initial state, row-major `[ny, nx]`, absolute heights in f64.
#[derive(Clone, Debug)]
pub struct InitialFields {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y.
    pub ny: usize,
    /// Ground height b.
    pub ground: Vec<f64>,
    /// Water surface h; `h == b` marks a dry cell.
    pub surface: Vec<f64>,
    /// The level the engine stores heights relative to.
    pub reference: ReferenceLevel,
}

impl InitialFields {
    /// Builds the ground and the initial surface from the scene's files and keys.
    pub fn build(scene: &Scene) -> Result<InitialFields> {
        let (nx, ny) = (scene.grid.nx as usize, scene.grid.ny as usize);
        let ground = build_ground(scene, nx, ny)?;

        let mut surface = match (&scene.water_override, &scene.water.npy) {
            (Some(carried), _) => carried.surface.clone(),
            (None, Some(p)) => read_field(scene, "water.npy", p, nx, ny)?,
            (None, None) => vec![scene.water.level.unwrap_or(0.0); nx * ny],
        };
        // An edit's carried water is the surface as it stands: no bump on it again.
        let bumps = if scene.water_override.is_some() {
            &[][..]
        } else {
            &scene.water.bumps[..]
        };
        for bump in bumps {
            let two_sigma2 = 2.0 * bump.radius * bump.radius;
            for_each_centre(scene, |idx, x, y| {
                let r2 = (x - bump.x).powi(2) + (y - bump.y).powi(2);
                surface[idx] += bump.height * (-r2 / two_sigma2).exp();
            });
        }
        for (h, &b) in surface.iter_mut().zip(&ground) {
            if *h <= b {
                *h = b;
            }
        }

        let reference = match (scene.water.level, &scene.water.npy) {
            (Some(level), _) => level,
            (None, Some(_)) => {
                let wet: Vec<f64> = surface
                    .iter()
                    .zip(&ground)
                    .filter(|(h, b)| h > b)
                    .map(|(h, _)| *h)
                    .collect();
                if wet.is_empty() {
                    0.0
                } else {
                    wet.iter().sum::<f64>() / wet.len() as f64
                }
            }
            (None, None) => 0.0,
        };
        Ok(InitialFields {
            nx,
            ny,
            ground,
            surface,
            reference: ReferenceLevel(reference),
        })
    }

    /// The f32 state the solvers start from: (eta = h − ref, ground = b − ref), rounded once from f64.
    pub fn relative_f32(&self) -> (Vec<f32>, Vec<f32>) {
        let r = self.reference.0;
        let eta = self.surface.iter().map(|h| (h - r) as f32).collect();
        let ground = self.ground.iter().map(|b| (b - r) as f32).collect();
        (eta, ground)
    }
}

fn for_each_centre(scene: &Scene, mut f: impl FnMut(usize, f64, f64)) {
    let (nx, ny, dx) = (scene.grid.nx as usize, scene.grid.ny as usize, scene.grid.dx);
    for j in 0..ny {
        for i in 0..nx {
            f(j * nx + i, (i as f64 + 0.5) * dx, (j as f64 + 0.5) * dx);
        }
    }
}

fn build_ground(scene: &Scene, nx: usize, ny: usize) -> Result<Vec<f64>> {
    let t = &scene.terrain;
    if let Some(ground) = &scene.ground_override {
        return Ok(ground.to_vec());
    }
    let mut ground = if let Some(p) = &t.npy {
        read_field(scene, "terrain.npy", p, nx, ny)?
    } else if let Some(png) = &t.png {
        let path = scene.resolve_path(&png.path);
        let grey = read_png_grey(scene, "terrain.png", &path)?;
        resample(&grey, nx, ny)
            .into_iter()
            .map(|v| png.min + v * (png.max - png.min))
            .collect()
    } else if let Some(p) = &t.geotiff {
        read_dem(scene, p, nx, ny)?
    } else if let Some(p) = &t.exr {
        read_exr(scene, p, nx, ny)?
    } else if let Some(s) = t.slope {
        let mut g = vec![0.0; nx * ny];
        for_each_centre(scene, |idx, x, y| g[idx] = s.base + s.grad[0] * x + s.grad[1] * y);
        g
    } else {
        vec![t.flat.unwrap_or(0.0); nx * ny]
    };
    for b in &t.boxes {
        for_each_centre(scene, |idx, x, y| {
            if x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1 {
                ground[idx] = ground[idx].max(b.top);
            }
        });
    }
    Ok(ground)
}

/// A map file's resolved path, its extension in lower case, and the scene file's text (for
/// errors that quote their line).
fn map_file(scene: &Scene, p: &Path) -> (std::path::PathBuf, String, Option<String>) {
    let path = scene.resolve_path(p);
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    (path, ext, std::fs::read_to_string(&scene.origin).ok())
}

/// A per-cell map of classes (land cover) a key names: NPY `[ny, nx]` as is; a GeoTIFF taken at
/// each cell centre's nearest pixel (classes are codes, never blended), nodata as None. A PNG
/// is refused: its shades are no codes.
pub fn read_classes(scene: &Scene, key: &str, p: &Path) -> Result<Vec<Option<f64>>> {
    let (nx, ny) = (scene.grid.nx as usize, scene.grid.ny as usize);
    let (path, ext, text) = map_file(scene, p);
    match ext.as_str() {
        "npy" => Ok(read_field(scene, key, p, nx, ny)?.into_iter().map(Some).collect()),
        "tif" | "tiff" => {
            let dem = crate::io::geotiff::read(&path).map_err(|e| scene.error_at(text.as_deref(), key, e))?;
            let (w, h) = (dem.header.width, dem.header.height);
            let mut out = Vec::with_capacity(nx * ny);
            for j in 0..ny {
                for i in 0..nx {
                    // Row 0 of the file is the north edge; row 0 of the grid the south.
                    let x = ((i as f64 + 0.5) / nx as f64 * w as f64) as usize;
                    let y = ((1.0 - (j as f64 + 0.5) / ny as f64) * h as f64) as usize;
                    let v = dem.heights[y.min(h - 1) * w + x.min(w - 1)];
                    out.push(v.is_finite().then_some(v));
                }
            }
            Ok(out)
        }
        _ => Err(scene.error_at(
            text.as_deref(),
            key,
            format!("{}: a class map is an .npy or .tif file of class codes", path.display()),
        )),
    }
}

/// A per-cell map a key names (`[rainfall] map`, `[physics] damping_map`), by its extension:
/// NPY `[ny, nx]` as is; a GeoTIFF (`.tif`, `.tiff`) resampled over the domain, nodata as 0; a
/// greyscale PNG resampled, each shade as its share of full scale in [0, 1]. Returns the values
/// and whether they are PNG shares.
pub fn read_map(scene: &Scene, key: &str, p: &Path) -> Result<(Vec<f64>, bool)> {
    let (nx, ny) = (scene.grid.nx as usize, scene.grid.ny as usize);
    let (path, ext, text) = map_file(scene, p);
    match ext.as_str() {
        "npy" => Ok((read_field(scene, key, p, nx, ny)?, false)),
        "png" => Ok((resample(&read_png_grey(scene, key, &path)?, nx, ny), true)),
        "tif" | "tiff" => {
            let dem = crate::io::geotiff::read(&path).map_err(|e| scene.error_at(text.as_deref(), key, e))?;
            let raster = Raster {
                width: dem.header.width,
                height: dem.header.height,
                values: dem.heights,
            };
            let values = resample(&raster, nx, ny)
                .into_iter()
                .map(|v| if v.is_finite() { v } else { 0.0 })
                .collect();
            Ok((values, false))
        }
        _ => Err(scene.error_at(
            text.as_deref(),
            key,
            format!("{}: a map is an .npy, .png or .tif file", path.display()),
        )),
    }
}

/// `[water] u_npy` and `v_npy` (or an edit's carried water): the start's (u, v) per cell, m/s
/// (either absent: 0); empty when neither is given. Each must be a float NPY of the grid's `[ny, nx]` with finite values.
pub fn read_velocity(scene: &Scene) -> Result<Vec<[f32; 2]>> {
    if let Some(carried) = &scene.water_override {
        return Ok(carried.velocity.clone());
    }
    let w = &scene.water;
    if w.u_npy.is_none() && w.v_npy.is_none() {
        return Ok(Vec::new());
    }
    let (nx, ny) = (scene.grid.nx as usize, scene.grid.ny as usize);
    let read = |key: &str, p: &Option<std::path::PathBuf>| match p {
        Some(p) => read_field(scene, key, p, nx, ny),
        None => Ok(vec![0.0; nx * ny]),
    };
    let (u, v) = (read("water.u_npy", &w.u_npy)?, read("water.v_npy", &w.v_npy)?);
    Ok(u.iter().zip(&v).map(|(&u, &v)| [u as f32, v as f32]).collect())
}

fn read_field(scene: &Scene, key: &str, p: &Path, nx: usize, ny: usize) -> Result<Vec<f64>> {
    let path = scene.resolve_path(p);
    let text = std::fs::read_to_string(&scene.origin).ok();
    let field = npy::read_f64_2d(&path).map_err(|e| scene.error_at(text.as_deref(), key, e))?;
    if field.shape != [ny, nx] {
        return Err(scene.error_at(
            text.as_deref(),
            key,
            format!(
                "{} has shape {:?}, the grid needs [ny, nx] = [{ny}, {nx}]",
                path.display(),
                field.shape
            ),
        ));
    }
    if let Some(bad) = field.data.iter().position(|v| !v.is_finite()) {
        return Err(scene.error_at(
            text.as_deref(),
            key,
            format!("{} holds a non-finite value at flat index {bad}", path.display()),
        ));
    }
    Ok(field.data)
}

/// A raster read from a file, row 0 at the top (the north edge): a greyscale image in [0, 1], or a
/// DEM's heights with NaN for nodata.
struct Raster {
    width: usize,
    height: usize,
    values: Vec<f64>,
}

/// The GeoTIFF DEM at `p` on the grid: resampled over the whole domain, nodata pixels at
/// `terrain.nodata` (default a wall 1 m above the highest of the DEM's ground and the still
/// water).
fn read_dem(scene: &Scene, p: &Path, nx: usize, ny: usize) -> Result<Vec<f64>> {
    let path = scene.resolve_path(p);
    let text = std::fs::read_to_string(&scene.origin).ok();
    let fail = |why: String| scene.error_at(text.as_deref(), "terrain.geotiff", why);
    let dem = crate::io::geotiff::read(&path).map_err(fail)?;
    let highest = dem
        .heights
        .iter()
        .copied()
        .filter(|h| h.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    if highest == f64::NEG_INFINITY {
        return Err(fail(format!("{}: every pixel is nodata", path.display())));
    }
    let raster = Raster {
        width: dem.header.width,
        height: dem.header.height,
        values: dem.heights,
    };
    let wall = scene
        .terrain
        .nodata
        .unwrap_or_else(|| highest.max(scene.water.level.unwrap_or(0.0)) + 1.0);
    Ok(resample(&raster, nx, ny)
        .into_iter()
        .map(|h| if h.is_finite() { h } else { wall })
        .collect())
}

/// The cells of the grid (its order, row 0 the south edge) that the scene's GeoTIFF DEM leaves
/// without data, resampled as `read_dem` resamples the heights: where the outputs on the DEM's
/// frame write nodata, not the wall that stands there. None without a DEM, or with no such cell.
pub fn dem_void(scene: &Scene) -> Option<Vec<bool>> {
    let p = scene.terrain.geotiff.as_ref()?;
    let dem = crate::io::geotiff::read(&scene.resolve_path(p)).ok()?;
    let raster = Raster {
        width: dem.header.width,
        height: dem.header.height,
        values: dem.heights,
    };
    let g = scene.grid;
    let void: Vec<bool> = resample(&raster, g.nx as usize, g.ny as usize)
        .into_iter()
        .map(|h| !h.is_finite())
        .collect();
    void.contains(&true).then_some(void)
}

/// The OpenEXR height map at `p` on the grid, resampled over the whole domain.
fn read_exr(scene: &Scene, p: &Path, nx: usize, ny: usize) -> Result<Vec<f64>> {
    let path = scene.resolve_path(p);
    let text = std::fs::read_to_string(&scene.origin).ok();
    let fail = |why: String| scene.error_at(text.as_deref(), "terrain.exr", why);
    let map = crate::io::exr::read_height(&path).map_err(fail)?;
    if let Some(bad) = map.values.iter().position(|v| !v.is_finite()) {
        return Err(fail(format!(
            "{}: pixel {bad} of channel {} is not finite",
            path.display(),
            map.channel
        )));
    }
    let raster = Raster {
        width: map.width,
        height: map.height,
        values: map.values,
    };
    Ok(resample(&raster, nx, ny))
}

fn read_png_grey(scene: &Scene, key: &str, path: &Path) -> Result<Raster> {
    let text = std::fs::read_to_string(&scene.origin).ok();
    let bytes = crate::io::files::read(path)
        .map_err(|e| scene.error_at(text.as_deref(), key, format!("{}: {e}", path.display())))?;
    let img = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| scene.error_at(text.as_deref(), key, format!("{}: {e}", path.display())))?
        .decode()
        .map_err(|e| {
            scene.error_at(
                text.as_deref(),
                key,
                format!("{} cannot be decoded: {e}", path.display()),
            )
        })?
        .into_luma16();
    Ok(Raster {
        width: img.width() as usize,
        height: img.height() as usize,
        values: img.pixels().map(|p| p.0[0] as f64 / 65535.0).collect(),
    })
}

/// Bilinear resampling onto the grid's cell centres. The raster is a map: its top row is the
/// north side (largest y), so j = ny − 1 samples near row 0. Only taps of non-zero weight count,
/// so a grid of the raster's own size reads each pixel exactly and NaN (nodata) spreads to the
/// cells whose samples touch it, no further.
fn resample(img: &Raster, nx: usize, ny: usize) -> Vec<f64> {
    let sample = |u: f64, v: f64| {
        let fx = (u * img.width as f64 - 0.5).clamp(0.0, (img.width - 1) as f64);
        let fy = (v * img.height as f64 - 0.5).clamp(0.0, (img.height - 1) as f64);
        let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(img.width - 1), (y0 + 1).min(img.height - 1));
        let (tx, ty) = (fx - x0 as f64, fy - y0 as f64);
        let at = |x: usize, y: usize| img.values[y * img.width + x];
        let mix = |a: f64, b: f64, t: f64| {
            if t == 0.0 {
                a
            } else if t == 1.0 {
                b
            } else {
                a * (1.0 - t) + b * t
            }
        };
        let row = |y: usize| mix(at(x0, y), at(x1, y), tx);
        if ty == 0.0 {
            row(y0)
        } else {
            mix(row(y0), row(y1), ty)
        }
    };
    let mut out = vec![0.0; nx * ny];
    for j in 0..ny {
        for i in 0..nx {
            let u = (i as f64 + 0.5) / nx as f64;
            let v = 1.0 - (j as f64 + 0.5) / ny as f64;
            out[j * nx + i] = sample(u, v);
        }
    }
    out
}
