//! Writes the GeoTIFF rasters the preset scenes read, from formulas (nothing is downloaded):
//!
//! - `bay.tif`: a coast 40 × 30 km in 250 m pixels: a shelf deepening south to 45 m, a coastline
//!   wandering along y ≈ 23 km, and a bay cut north into the land (`scenes/storm_surge.toml`);
//! - `valley.tif`: a valley 1280 × 960 m in 10 m pixels falling 2 % east, its floodplain 200 m
//!   wide meandering between hills, a channel 1 m deep along it (`scenes/flash_flood.toml`);
//! - `valley_rain.tif`: the storm's intensity over the valley, mm/h, heavier upstream;
//! - `valley_reservoir.npy`: the valley's surface with a reservoir held to 36 m behind a dam at
//!   x = 250 m, dry ground below it (`scenes/dam_break_valley.toml`);
//! - `flume_swash.npy`: the flume's damping map, damping the swash zone of its beach (the
//!   run-up's wet/dry flicker) and nothing else (`scenes/flume.toml`);
//! - `ea_test2.tif`: the UK Environment Agency's benchmark test 2, a floodplain 2000 m square in
//!   20 m pixels, a 4 × 4 matrix of depressions 0.5 m deep from a product of sinusoids on a plane
//!   falling 1:1500 south and 1:3000 east (`scenes/ea_test2.toml`), on the British National Grid.
//!
//! `cargo run --release --example dems -- DIR` (the scenes' copies are in `scenes/`; a test
//! checks they are what this writes).

use shoal::io::geotiff;
use std::f64::consts::PI;
use std::path::Path;

/// A raster from f(x, y), x east and y north in metres from the south-west corner, written
/// north up with its north-west corner at `origin`, in UTM zone 33N.
fn raster(path: &Path, (w, h): (usize, usize), pixel: f64, origin: [f64; 2], f: impl Fn(f64, f64) -> f64) {
    // UTM zone 33N (EPSG:32633), WGS 84: both corners lie in it.
    raster_in(32633, path, (w, h), pixel, origin, f)
}

/// `raster` in the projected coordinate system `epsg`.
fn raster_in(
    epsg: u16,
    path: &Path,
    (w, h): (usize, usize),
    pixel: f64,
    origin: [f64; 2],
    f: impl Fn(f64, f64) -> f64,
) {
    let values: Vec<f32> = (0..h)
        .flat_map(|row| (0..w).map(move |col| (col, row)))
        .map(|(col, row)| {
            let (x, y) = ((col as f64 + 0.5) * pixel, ((h - 1 - row) as f64 + 0.5) * pixel);
            f(x, y) as f32
        })
        .collect();
    let frame = geotiff::Frame {
        pixel: [pixel, pixel],
        origin,
        keys: Some(geotiff::GeoKeys::epsg_projected(epsg)),
    };
    geotiff::write(path, w, h, &values, &frame, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn smoothstep(a: f64, b: f64, x: f64) -> f64 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The bay: ground in metres above mean sea level.
fn bay(x: f64, y: f64) -> f64 {
    let km = 1000.0;
    // The coastline's y wanders; the shelf deepens south of it, the land rises north.
    let coast = 23.0 * km + 900.0 * (x / (6.3 * km)).sin() + 500.0 * (x / (2.1 * km) + 1.0).sin();
    let shelf = -45.0 * (1.0 - smoothstep(0.0, coast, y)).powf(0.7) - 2.0;
    let land = 28.0 * smoothstep(coast, coast + 6.0 * km, y);
    // The bay: a drowned valley 7 km wide cut north into the land, shallowing to its head.
    let across = ((x - 21.0 * km) / (3.5 * km)).powi(2);
    let bay = (28.0 + 18.0 * (1.0 - smoothstep(coast - 2.0 * km, 29.0 * km, y)))
        * (-across).exp()
        * smoothstep(coast - 6.0 * km, coast, y);
    // Rolling ground and sea floor.
    let relief = 1.6 * (x / (1.3 * km)).sin() * (y / (1.7 * km)).cos() + 0.8 * ((x + y) / (0.9 * km)).sin();
    shelf + land - bay + relief
}

/// The valley's floor line (its y at x) and its ground.
fn valley(x: f64, y: f64) -> f64 {
    let axis = 480.0 + 90.0 * (2.0 * PI * x / 900.0).sin();
    let across = (y - axis).abs();
    let floor = 30.0 - 0.02 * x;
    // A floodplain 200 m wide rising 0.5 % from the channel, then the hills.
    let hills = (across - 100.0).max(0.0);
    let sides = 0.005 * across + 0.00015 * hills * hills;
    let channel = smoothstep(6.0, 12.0, across) - 1.0;
    let relief = 0.3 * (x / 37.0).sin() * (y / 53.0).cos();
    floor + sides + channel + relief
}

/// The storm's intensity over the valley, mm/h: 90 upstream, 40 at the outlet.
fn valley_rain(x: f64, y: f64) -> f64 {
    90.0 - 50.0 * x / 1280.0 + 8.0 * (y / 160.0).sin()
}

/// EA test 2's floodplain: a plane falling 1:1500 to the south and 1:3000 to the east (2 m from
/// its north-west corner to its south-east), less a depression 0.5 m deep in each 500 m square,
/// sin²(π·x/500)·sin²(π·y/500): sixteen alike, meeting the plane smoothly along the squares'
/// edges. Its lowest corner is at 0 m.
fn ea_test2(x: f64, y: f64) -> f64 {
    let plane = 2000.0 / 3000.0 - x / 3000.0 + y / 1500.0;
    let dip = ((PI * x / 500.0).sin() * (PI * y / 500.0).sin()).powi(2);
    plane - 0.5 * dip
}

fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "scenes".into());
    let out = Path::new(&out);
    std::fs::create_dir_all(out).unwrap();
    // A projected frame (metres, e.g. a UTM zone): the north-west corners.
    raster(&out.join("bay.tif"), (160, 120), 250.0, [500_000.0, 4_330_000.0], bay);
    raster(
        &out.join("valley.tif"),
        (128, 96),
        10.0,
        [640_000.0, 5_100_960.0],
        valley,
    );
    raster(
        &out.join("valley_rain.tif"),
        (128, 96),
        10.0,
        [640_000.0, 5_100_960.0],
        valley_rain,
    );
    // EA test 2 on the British National Grid (EPSG:27700), its north-west corner at an
    // arbitrary grid point in England.
    raster_in(
        27700,
        &out.join("ea_test2.tif"),
        (100, 100),
        20.0,
        [420_000.0, 302_000.0],
        ea_test2,
    );
    // The reservoir: [ny, nx] rows from the south, as the grid stores them (row j at y = (j + ½)·10).
    let reservoir: Vec<f64> = (0..96)
        .flat_map(|j| (0..128).map(move |i| (i, j)))
        .map(|(i, j)| {
            let (x, y) = ((i as f64 + 0.5) * 10.0, (j as f64 + 0.5) * 10.0);
            let b = valley(x, y) as f32 as f64;
            if x < 250.0 {
                b.max(36.0)
            } else {
                b
            }
        })
        .collect();
    shoal::io::npy::write_2d(&out.join("valley_reservoir.npy"), 96, 128, &reservoir).unwrap();
    // The flume: 600 × 8 cells of 2.5 cm; its shore is at x = 14 m.
    let swash: Vec<f64> = (0..8)
        .flat_map(|_| (0..600).map(|i| 0.02 * smoothstep(11.5, 13.5, (i as f64 + 0.5) * 0.025)))
        .collect();
    shoal::io::npy::write_2d(&out.join("flume_swash.npy"), 8, 600, &swash).unwrap();
    println!(
        "wrote bay.tif, valley.tif, valley_rain.tif, valley_reservoir.npy, flume_swash.npy and ea_test2.tif to {}",
        out.display()
    );
}
