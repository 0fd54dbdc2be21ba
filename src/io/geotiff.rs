//! GeoTIFF DEMs through the `tiff` crate: one band of heights (float32/64 or 8-, 16-, 32-bit
//! integers, in strips or tiles, uncompressed, LZW, Deflate or PackBits), its pixel size and the
//! map position of its north-west corner from the GeoTIFF tags (ModelPixelScale and
//! ModelTiepoint), and GDAL's nodata value. Rows are kept as stored: row 0 is the north edge.

use std::path::Path;
use tiff::decoder::{Decoder, DecodingResult};
use tiff::tags::Tag;
use tiff::ColorType;

/// What a GeoTIFF's header says of its DEM.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DemHeader {
    /// Pixels along x (columns).
    pub width: usize,
    /// Pixels along y (rows).
    pub height: usize,
    /// The pixel's size along x and y in map units (ModelPixelScale), if the file says.
    pub pixel: Option<[f64; 2]>,
    /// The map position of the north-west corner of pixel (0, 0) (ModelTiepoint), if the file
    /// says.
    pub origin: Option<[f64; 2]>,
}

/// A GeoTIFF's coordinate system as its three GeoKey tags hold it, carried verbatim from a DEM
/// to the rasters written on its frame: the GeoKeyDirectory (the keys, which point into the other
/// two), the GeoDoubleParams and the GeoAsciiParams.
#[derive(Clone, Debug, PartialEq)]
pub struct GeoKeys {
    /// Tag 34735: a header of four words, then (key, location, count, value) per key.
    pub directory: Vec<u16>,
    /// Tag 34736, where keys with a double value keep it.
    pub doubles: Option<Vec<f64>>,
    /// Tag 34737, where keys with a text value keep it ('|'-terminated).
    pub ascii: Option<String>,
}

impl GeoKeys {
    /// A projected coordinate system by its EPSG code (ProjectedCSTypeGeoKey), in metres, pixels
    /// as areas: what GDAL writes for `-a_srs EPSG:code`.
    pub fn epsg_projected(code: u16) -> GeoKeys {
        GeoKeys {
            // GTModelType = projected, GTRasterType = area, ProjectedCSType = code,
            // ProjLinearUnits = metre (EPSG 9001).
            directory: vec![
                1, 1, 0, 4, 1024, 0, 1, 1, 1025, 0, 1, 1, 3072, 0, 1, code, 3076, 0, 1, 9001,
            ],
            doubles: None,
            ascii: None,
        }
    }
}

/// The GeoKeys of the GeoTIFF at `path` (None: it has no GeoKeyDirectory, or one too short to
/// hold its own header).
pub fn read_geokeys(path: &Path) -> Result<Option<GeoKeys>, String> {
    let mut d = open(path)?;
    let bad = |what: String| format!("{}: {what}", path.display());
    let directory = match d.find_tag(Tag::GeoKeyDirectoryTag) {
        Ok(Some(v)) => v.into_u16_vec().map_err(|e| bad(format!("its GeoKeyDirectory: {e}")))?,
        _ => return Ok(None),
    };
    // The header (version, revision, minor revision, key count), then four words per key.
    if directory.len() < 4 || directory.len() < 4 + 4 * directory[3] as usize {
        return Ok(None);
    }
    let doubles = match d.find_tag(Tag::GeoDoubleParamsTag) {
        Ok(Some(v)) => Some(v.into_f64_vec().map_err(|e| bad(format!("its GeoDoubleParams: {e}")))?),
        _ => None,
    };
    let ascii = match d.find_tag(Tag::GeoAsciiParamsTag) {
        Ok(Some(v)) => Some(v.into_string().map_err(|e| bad(format!("its GeoAsciiParams: {e}")))?),
        _ => None,
    };
    Ok(Some(GeoKeys {
        directory,
        doubles,
        ascii,
    }))
}

/// A DEM as the file holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Dem {
    /// Its size, pixel and origin.
    pub header: DemHeader,
    /// Heights row-major, row 0 the north edge; NaN where the file says nodata.
    pub heights: Vec<f64>,
}

fn open(path: &Path) -> Result<Decoder<std::io::Cursor<Vec<u8>>>, String> {
    let bytes = crate::io::files::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Decoder::new(std::io::Cursor::new(bytes)).map_err(|e| format!("{} is not a readable TIFF: {e}", path.display()))
}

/// The header of the GeoTIFF at `path`.
pub fn read_header(path: &Path) -> Result<DemHeader, String> {
    header(&mut open(path)?, path)
}

fn header<R: std::io::Read + std::io::Seek>(d: &mut Decoder<R>, path: &Path) -> Result<DemHeader, String> {
    let bad = |what: String| format!("{}: {what}", path.display());
    let (width, height) = d.dimensions().map_err(|e| bad(e.to_string()))?;
    match d.colortype().map_err(|e| bad(e.to_string()))? {
        ColorType::Gray(_) => {}
        other => {
            return Err(bad(format!(
                "holds {other:?} pixels; a DEM is one band of heights (grey, float or integer)"
            )))
        }
    }
    let pixel = match d.find_tag(Tag::ModelPixelScaleTag) {
        Ok(Some(v)) => {
            let s = v.into_f64_vec().map_err(|e| bad(format!("its ModelPixelScale: {e}")))?;
            if s.len() < 2 || !(s[0] > 0.0 && s[1] > 0.0 && s[0].is_finite() && s[1].is_finite()) {
                return Err(bad(format!("its ModelPixelScale {s:?} is not a positive pixel size")));
            }
            Some([s[0], s[1]])
        }
        _ => None,
    };
    // The tiepoint (i, j, k, x, y, z): raster point (i, j) lies at map point (x, y).
    let origin = match (d.find_tag(Tag::ModelTiepointTag), pixel) {
        (Ok(Some(v)), Some([sx, sy])) => {
            let t = v.into_f64_vec().map_err(|e| bad(format!("its ModelTiepoint: {e}")))?;
            (t.len() >= 6).then(|| [t[3] - t[0] * sx, t[4] + t[1] * sy])
        }
        _ => None,
    };
    Ok(DemHeader {
        width: width as usize,
        height: height as usize,
        pixel,
        origin,
    })
}

/// The DEM at `path`: heights in the file's units, nodata as NaN.
pub fn read(path: &Path) -> Result<Dem, String> {
    let mut d = open(path)?;
    let h = header(&mut d, path)?;
    let bad = |what: String| format!("{}: {what}", path.display());
    let nodata = match d.find_tag(Tag::GdalNodata) {
        Ok(Some(v)) => {
            let text = v.into_string().map_err(|e| bad(format!("its GDAL_NODATA tag: {e}")))?;
            let text = text.trim_matches(char::from(0)).trim();
            Some(
                text.parse::<f64>()
                    .map_err(|_| bad(format!("its GDAL_NODATA tag \"{text}\" is not a number")))?,
            )
        }
        _ => None,
    };
    let values: Vec<f64> = match d.read_image().map_err(|e| bad(format!("cannot be decoded: {e}")))? {
        DecodingResult::F32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::F64(v) => v,
        DecodingResult::I16(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::U16(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::I32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::U32(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::I8(v) => v.into_iter().map(f64::from).collect(),
        DecodingResult::U8(v) => v.into_iter().map(f64::from).collect(),
        _ => {
            return Err(bad(
                "holds samples of a type a DEM does not use (64-bit integers or half floats)".into(),
            ))
        }
    };
    if values.len() != h.width * h.height {
        return Err(bad(format!(
            "holds {} samples for {} × {} pixels: more than one band?",
            values.len(),
            h.width,
            h.height
        )));
    }
    let heights = values
        .into_iter()
        .map(|v| match nodata {
            Some(n) if v == n || (n.is_nan() && v.is_nan()) => f64::NAN,
            _ if !v.is_finite() => f64::NAN,
            _ => v,
        })
        .collect();
    Ok(Dem { header: h, heights })
}

/// Where a raster lies: its pixel size and the map point of its north-west corner, and the
/// coordinate system its DEM named (None: a plain projected raster whose GeoKeys name none).
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The pixel's size along x and y, map units.
    pub pixel: [f64; 2],
    /// The map point of the raster's north-west corner.
    pub origin: [f64; 2],
    /// The DEM's coordinate system.
    pub keys: Option<GeoKeys>,
}

/// Writes a float32 DEM (row 0 the north edge) with its frame and nodata value as GeoTIFF tags,
/// deflated, atomically (nothing under `path` until it is whole).
pub fn write(
    path: &Path,
    width: usize,
    height: usize,
    heights: &[f32],
    frame: &Frame,
    nodata: Option<f64>,
) -> crate::error::Result<()> {
    let (pixel, origin) = (frame.pixel, frame.origin);
    let bad = |e: tiff::TiffError| crate::error::Error::io(path, std::io::Error::other(e));
    let mut bytes = std::io::Cursor::new(Vec::new());
    let mut encoder = tiff::encoder::TiffEncoder::new(&mut bytes)
        .map_err(bad)?
        .with_compression(tiff::encoder::Compression::Deflate(Default::default()));
    let mut image = encoder
        .new_image::<tiff::encoder::colortype::Gray32Float>(width as u32, height as u32)
        .map_err(bad)?;
    let tags = image.encoder();
    tags.write_tag(Tag::ModelPixelScaleTag, &[pixel[0], pixel[1], 0.0][..])
        .map_err(bad)?;
    tags.write_tag(Tag::ModelTiepointTag, &[0.0, 0.0, 0.0, origin[0], origin[1], 0.0][..])
        .map_err(bad)?;
    match &frame.keys {
        // The DEM's own keys, verbatim: its CRS (an EPSG code, or a whole user-defined one).
        Some(keys) => {
            tags.write_tag(Tag::GeoKeyDirectoryTag, &keys.directory[..])
                .map_err(bad)?;
            if let Some(doubles) = &keys.doubles {
                tags.write_tag(Tag::GeoDoubleParamsTag, &doubles[..]).map_err(bad)?;
            }
            if let Some(ascii) = &keys.ascii {
                tags.write_tag(Tag::GeoAsciiParamsTag, ascii.as_str()).map_err(bad)?;
            }
        }
        // Version 1.1.0, 2 keys: a projected model (GTModelType 1024 = 1), pixels as areas
        // (GTRasterType 1025 = 1).
        None => tags
            .write_tag(
                Tag::GeoKeyDirectoryTag,
                &[1u16, 1, 0, 2, 1024, 0, 1, 1, 1025, 0, 1, 1][..],
            )
            .map_err(bad)?,
    }
    if let Some(n) = nodata {
        tags.write_tag(Tag::GdalNodata, format!("{n}").as_str()).map_err(bad)?;
    }
    image.write_data(heights).map_err(bad)?;
    crate::io::atomic::write_bytes(path, bytes.get_ref())
}
