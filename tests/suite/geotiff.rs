//! GeoTIFF DEMs as terrain (`[terrain] geotiff`): the grid from the file's size and pixel, the
//! ground north up, integer DEMs with nodata, resampling onto a grid the scene sets, and the
//! errors a bad file gets. The DEMs are written here (`shoal::io::geotiff::write` for float32;
//! the `tiff` crate's encoder for the others), never downloaded.

use crate::common::*;
use shoal::io::geotiff;
use shoal::{Backend, Scene};
use std::path::Path;
use tiff::encoder::{colortype, TiffEncoder};
use tiff::tags::Tag;

/// A frame of `pixel` m pixels with its north-west corner at `origin`, in no named CRS.
fn plain(pixel: [f64; 2], origin: [f64; 2]) -> geotiff::Frame {
    geotiff::Frame {
        pixel,
        origin,
        keys: None,
    }
}

/// A float32 DEM `w` × `h` (row 0 north) with 2 m pixels, its north-west corner at (1000, 5000),
/// in UTM zone 33N (EPSG:32633).
fn write_dem(dir: &Path, name: &str, w: usize, h: usize, height: impl Fn(usize, usize) -> f32) {
    let heights: Vec<f32> = (0..h)
        .flat_map(|r| (0..w).map(move |c| (c, r)))
        .map(|(c, r)| height(c, r))
        .collect();
    let frame = geotiff::Frame {
        keys: Some(geotiff::GeoKeys::epsg_projected(32633)),
        ..plain([2.0, 2.0], [1000.0, 5000.0])
    };
    geotiff::write(&dir.join(name), w, h, &heights, &frame, None).unwrap();
}

fn parse(dir: &Path, text: &str) -> Result<Scene, String> {
    std::fs::write(dir.join("scene.toml"), text).unwrap();
    Scene::from_file(&dir.join("scene.toml")).map_err(|e| e.to_string())
}

/// A bad file: what it is, how to write it, and what the error must say.
type BadCase = (&'static str, Box<dyn Fn(&Path)>, &'static str);

const TIME: &str = "[time]\ndt = 0.01\nsteps = 2\n";

#[test]
fn a_dem_sets_the_grid_and_its_ground_stands_north_up() {
    let dir = tempfile::tempdir().unwrap();
    // Column c, row r (row 0 north): c + 10·r metres below 50.
    write_dem(dir.path(), "dem.tif", 6, 4, |c, r| 50.0 - (c as f32 + 10.0 * r as f32));
    let scene = parse(
        dir.path(),
        &format!("{TIME}[terrain]\ngeotiff = \"dem.tif\"\n[water]\nlevel = 30.0\n"),
    )
    .unwrap();
    assert_eq!((scene.grid.nx, scene.grid.ny, scene.grid.dx), (6, 4, 2.0));
    let sim = simulation(&scene, Backend::Cpu);
    let ground = sim.ground();
    for j in 0..4 {
        for i in 0..6 {
            // Cell (i, j) has j = 0 at the south edge: the file's last row.
            let want = 50.0 - (i as f64 + 10.0 * (3 - j) as f64);
            assert_eq!(ground[j * 6 + i], want, "cell ({i}, {j})");
        }
    }
}

#[test]
fn an_integer_dem_with_nodata_gets_walls_or_the_height_the_scene_gives() {
    let dir = tempfile::tempdir().unwrap();
    // int16 heights, −9999 for nodata along the west column.
    let (w, h) = (5usize, 3usize);
    let data: Vec<i16> = (0..w * h)
        .map(|k| if k % w == 0 { -9999 } else { (k % w) as i16 })
        .collect();
    let mut file = std::fs::File::create(dir.path().join("dem16.tif")).unwrap();
    let mut enc = TiffEncoder::new(&mut file).unwrap();
    let mut image = enc.new_image::<colortype::GrayI16>(w as u32, h as u32).unwrap();
    image
        .encoder()
        .write_tag(Tag::ModelPixelScaleTag, &[1.0f64, 1.0, 0.0][..])
        .unwrap();
    image.encoder().write_tag(Tag::GdalNodata, "-9999").unwrap();
    image.write_data(&data).unwrap();
    drop(file);
    let base = format!("{TIME}[terrain]\ngeotiff = \"dem16.tif\"\n[water]\nlevel = 2.5\n");
    let scene = parse(dir.path(), &base).unwrap();
    let sim = simulation(&scene, Backend::Cpu);
    // Default: a wall 1 m above the highest of the ground (4) and the water (2.5).
    for j in 0..h {
        assert_eq!(sim.ground()[j * w], 5.0);
        assert_eq!(sim.ground()[j * w + 3], 3.0);
    }
    // The outputs on the DEM's frame say nodata where the DEM did, not the wall's 5 m (issue 52).
    let out = dir.path().join("out");
    let options = shoal::run::RunOptions {
        geotiff: true,
        netcdf: true,
        ..Default::default()
    };
    let mut notes = Vec::new();
    shoal::run::run(&scene, &out, Backend::Cpu, &options, &mut |n: &str| {
        notes.push(n.to_string())
    })
    .unwrap();
    let tif = geotiff::read(&out.join("h_000002.tif")).unwrap();
    for (k, v) in tif.heights.iter().enumerate() {
        assert_eq!(v.is_nan(), k % w == 0, "pixel {k}: {v}");
    }
    // output.nc too: the fill value there, in the grid's order (row 0 south: the west column
    // is still every w-th cell), and a note that the DEM names no coordinate system.
    let mut nc = netcdf3::FileReader::open(out.join("output.nc")).unwrap();
    let h = nc.read_var("h").unwrap().get_f32().unwrap().to_vec();
    for (k, v) in h.iter().enumerate() {
        assert_eq!(*v == netcdf3::NC_FILL_F32, k % w == 0, "cell {k}: {v}");
    }
    assert!(
        notes
            .iter()
            .any(|n| n.contains("--netcdf: the DEM names no coordinate system")),
        "{notes:?}"
    );
    let scene = parse(dir.path(), &base.replace("geotiff = ", "nodata = -1.0\ngeotiff = ")).unwrap();
    assert_eq!(simulation(&scene, Backend::Cpu).ground()[0], -1.0);
}

#[test]
fn a_grid_the_scene_sets_resamples_the_dem_over_the_domain() {
    // A plane sampled at its pixel centres is a plane: the grid's cell centres read it exactly
    // (bilinear), here at 2.5 times the DEM's resolution.
    let dir = tempfile::tempdir().unwrap();
    write_dem(dir.path(), "dem.tif", 8, 4, |c, r| 0.5 * c as f32 - 0.25 * r as f32);
    let text = format!("[grid]\nnx = 20\nny = 10\ndx = 0.8\n{TIME}[terrain]\ngeotiff = \"dem.tif\"\n");
    let scene = parse(dir.path(), &text).unwrap();
    let sim = simulation(&scene, Backend::Cpu);
    for j in 1..9 {
        for i in 1..19 {
            // Cell centre in pixel units (column, row from the north).
            let c = (i as f64 + 0.5) / 20.0 * 8.0 - 0.5;
            let r = (1.0 - (j as f64 + 0.5) / 10.0) * 4.0 - 0.5;
            let want = 0.5 * c - 0.25 * r;
            let got = sim.ground()[j * 20 + i];
            if (0.0..=7.0).contains(&c) && (0.0..=3.0).contains(&r) {
                assert!((got - want).abs() < 1e-9, "({i}, {j}): {got} vs {want}");
            }
        }
    }
}

#[test]
fn a_bad_dem_is_a_clear_error_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: Vec<BadCase> = vec![
        ("missing", Box::new(|_: &Path| {}), "No such file"),
        (
            "not a TIFF",
            Box::new(|d: &Path| std::fs::write(d.join("dem.tif"), "hello").unwrap()),
            "not a readable TIFF",
        ),
        (
            "RGB",
            Box::new(|d: &Path| {
                let mut f = std::fs::File::create(d.join("dem.tif")).unwrap();
                let mut e = TiffEncoder::new(&mut f).unwrap();
                e.write_image::<colortype::RGB8>(2, 2, &[0u8; 12]).unwrap();
            }),
            "one band",
        ),
        (
            "no pixel size",
            Box::new(|d: &Path| {
                let mut f = std::fs::File::create(d.join("dem.tif")).unwrap();
                let mut e = TiffEncoder::new(&mut f).unwrap();
                e.write_image::<colortype::Gray32Float>(2, 2, &[0.0f32; 4]).unwrap();
            }),
            "no pixel size",
        ),
        (
            "oblong pixels",
            Box::new(|d: &Path| {
                geotiff::write(
                    &d.join("dem.tif"),
                    2,
                    2,
                    &[0.0; 4],
                    &plain([2.0, 3.0], [0.0, 0.0]),
                    None,
                )
                .unwrap()
            }),
            "2 × 3",
        ),
        (
            "all nodata",
            Box::new(|d: &Path| {
                geotiff::write(
                    &d.join("dem.tif"),
                    2,
                    2,
                    &[-1.0; 4],
                    &plain([1.0, 1.0], [0.0, 0.0]),
                    Some(-1.0),
                )
                .unwrap()
            }),
            "every pixel is nodata",
        ),
    ];
    for (what, make, says) in cases {
        let _ = std::fs::remove_file(d.join("dem.tif"));
        make(d);
        let text = format!("{TIME}[terrain]\ngeotiff = \"dem.tif\"\n");
        let e = match parse(d, &text) {
            Err(e) => e,
            Ok(scene) => match shoal::Simulation::new(&scene, Backend::Cpu) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("{what}: accepted"),
            },
        };
        assert!(e.contains("terrain.geotiff") && e.contains(says), "{what}: {e}");
    }
    // Without a DEM the grid's keys are required; a DEM is one terrain among the others.
    let e = parse(d, TIME).unwrap_err();
    assert!(e.contains("grid.nx") && e.contains("required"), "{e}");
    write_dem(d, "dem.tif", 4, 4, |_, _| 0.0);
    let e = parse(d, &format!("{TIME}[terrain]\nflat = 0.0\ngeotiff = \"dem.tif\"\n")).unwrap_err();
    assert!(e.contains("terrain.geotiff") && e.contains("at most one"), "{e}");
    let e = parse(
        d,
        &format!("[grid]\nnx = 4\nny = 4\ndx = 1.0\n{TIME}[terrain]\nnodata = 1.0\n"),
    )
    .unwrap_err();
    assert!(e.contains("terrain.nodata"), "{e}");
}

/// `--geotiff` and `--exr`: each snapshot's surface as h_NNNNNN.tif (north up, on the DEM's map
/// frame, so GIS tools overlay it on the DEM) and h_NNNNNN.exr (channels R = G = B = h for tools
/// that read RGB, and h, d, b by name, north up; the cell size, time and step in its header), the
/// same numbers as h_NNNNNN.npy.
#[test]
fn snapshots_as_geotiff_and_exr_match_the_npy_and_the_dems_frame() {
    let dir = tempfile::tempdir().unwrap();
    write_dem(dir.path(), "dem.tif", 6, 4, |c, r| {
        -1.0 + 0.1 * c as f32 + 0.05 * r as f32
    });
    let scene = parse(
        dir.path(),
        &format!("{TIME}[terrain]\ngeotiff = \"dem.tif\"\n[water]\nlevel = 0.0\n[[water.bump]]\nx = 4.0\ny = 4.0\nradius = 2.0\nheight = 0.1\n"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let options = shoal::run::RunOptions {
        geotiff: true,
        exr: true,
        depth: true,
        ..Default::default()
    };
    shoal::run::run(&scene, &out, Backend::Cpu, &options, &mut |_: &str| {}).unwrap();
    let npy = shoal::io::npy::read_f64_2d(&out.join("h_000002.npy")).unwrap();
    assert_eq!(npy.shape, [4, 6]);
    let tif = geotiff::read(&out.join("h_000002.tif")).unwrap();
    assert_eq!(
        (tif.header.pixel, tif.header.origin),
        (Some([2.0, 2.0]), Some([1000.0, 5000.0]))
    );
    // The DEM's coordinate system goes with it, key for key (issue 52: every output came back as
    // LOCAL_CS["unnamed"], and gdalwarp could not reproject it); the flood maps' too.
    let crs = geotiff::read_geokeys(&dir.path().join("dem.tif")).unwrap();
    assert_eq!(crs, Some(geotiff::GeoKeys::epsg_projected(32633)));
    assert_eq!(geotiff::read_geokeys(&out.join("h_000002.tif")).unwrap(), crs);
    let exr = exr::prelude::read_first_flat_layer_from_file(out.join("h_000002.exr")).unwrap();
    let channel = |name: &str| {
        let c = exr
            .layer_data
            .channel_data
            .list
            .iter()
            .find(|c| c.name == *name)
            .unwrap();
        c.sample_data.values_as_f32().collect::<Vec<f32>>()
    };
    let (h, d, b) = (channel("h"), channel("d"), channel("b"));
    // What a DCC tool reads by default (Blender loads R, G, B and ignores h, d, b): the surface.
    for name in ["R", "G", "B"] {
        assert_eq!(channel(name), h, "exr {name}");
    }
    let other = &exr.layer_data.attributes.other;
    let attribute = |name: &str| other.get(&exr::meta::attribute::Text::from(name)).cloned();
    use exr::meta::attribute::AttributeValue::{F32, F64};
    assert_eq!(attribute(shoal::io::exr::DX_ATTRIBUTE), Some(F32(2.0)));
    assert!(matches!(attribute(shoal::io::exr::STEP_ATTRIBUTE), Some(F64(s)) if s == 2.0));
    assert!(matches!(attribute(shoal::io::exr::TIME_ATTRIBUTE), Some(F64(t)) if t > 0.0));
    // --depth: d_NNNNNN.npy (the grid's order, row 0 south) and .tif (north up), the EXR's d.
    let depth = shoal::io::npy::read_f64_2d(&out.join("d_000002.npy")).unwrap();
    let depth_tif = geotiff::read(&out.join("d_000002.tif")).unwrap();
    assert_eq!(geotiff::read_geokeys(&out.join("d_000002.tif")).unwrap(), crs);
    for row in 0..4 {
        for i in 0..6 {
            let k = row * 6 + i;
            assert_eq!(depth.data[(3 - row) * 6 + i] as f32, d[k], "d npy ({i}, {row})");
            assert_eq!(depth_tif.heights[k] as f32, d[k], "d tif ({i}, {row})");
        }
    }
    assert!(depth.data.iter().any(|&v| v > 0.0) && depth.data.iter().all(|&v| v >= 0.0));
    for row in 0..4 {
        for i in 0..6 {
            // Row 0 of the rasters is the north edge, the grid's j = 3.
            let want = npy.data[(3 - row) * 6 + i];
            let k = row * 6 + i;
            assert_eq!(tif.heights[k], want as f32 as f64, "tif ({i}, {row})");
            assert_eq!(h[k], want as f32, "exr h ({i}, {row})");
            assert_eq!(b[k], -1.0 + 0.1 * i as f32 + 0.05 * row as f32, "exr b ({i}, {row})");
            assert_eq!(d[k], (h[k] - b[k]).max(0.0), "exr d ({i}, {row})");
        }
    }
}

/// `[terrain] exr`: a height map from an OpenEXR (Shoal's own `--exr` output here, whose `b` is the
/// ground) reads back as the same ground, north up; a file without a channel of heights, or not
/// an EXR, is an error naming `terrain.exr` and what it found.
#[test]
fn an_exr_height_map_is_terrain_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ground: Vec<f32> = (0..24).map(|k| -1.0 + 0.01 * k as f32).collect();
    let surface = vec![0.0f32; 24];
    let stamp = shoal::io::exr::Stamp {
        dx: 1.0,
        time: 0.0,
        step: 0,
    };
    shoal::io::exr::write_height(&d.join("g.exr"), (6, 4), &surface, &ground, stamp).unwrap();
    let grid = "[grid]\nnx = 6\nny = 4\ndx = 0.5\n";
    let scene = parse(d, &format!("{grid}{TIME}[terrain]\nexr = \"g.exr\"\n")).unwrap();
    let sim = simulation(&scene, Backend::Cpu);
    let got: Vec<f32> = sim.ground().iter().map(|&b| b as f32).collect();
    assert_eq!(got, ground);
    // A picture's RGBA has no b: its R is read.
    exr::prelude::write_rgba_file(d.join("rgba.exr"), 2, 2, |_, _| (0.5f32, 0.0f32, 0.0f32, 1.0f32)).unwrap();
    let scene = parse(d, &format!("{grid}{TIME}[terrain]\nexr = \"rgba.exr\"\n")).unwrap();
    assert!(shoal::Simulation::new(&scene, Backend::Cpu)
        .unwrap()
        .ground()
        .iter()
        .all(|&b| b == 0.5));
    let depth_only = exr::prelude::SpecificChannels::build()
        .with_channel("Z")
        .with_pixel_fn(|_| (1.0f32,));
    let image = exr::prelude::Image::from_channels((2, 2), depth_only);
    exr::prelude::WritableImage::write(&image)
        .to_file(d.join("z.exr"))
        .unwrap();
    std::fs::write(d.join("bad.exr"), "not an exr").unwrap();
    for (file, says) in [("z.exr", "found Z"), ("bad.exr", "not a readable OpenEXR")] {
        let scene = parse(d, &format!("{grid}{TIME}[terrain]\nexr = \"{file}\"\n")).unwrap();
        let e = shoal::Simulation::new(&scene, Backend::Cpu).err().unwrap().to_string();
        assert!(e.contains("terrain.exr") && e.contains(says), "{file}: {e}");
    }
}

/// The `[grid]` keys a scene gives win over the DEM's, one by one: `dx` alone keeps the file's
/// pixels across and down; inline tables count too.
#[test]
fn grid_keys_the_scene_gives_override_the_dems_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    write_dem(dir.path(), "dem.tif", 6, 4, |_, _| 0.0);
    let dem = "[terrain]\ngeotiff = \"dem.tif\"\n";
    for (grid, want) in [
        ("[grid]\ndx = 0.5\n", (6, 4, 0.5)),
        ("[grid]\nnx = 12\n", (12, 4, 2.0)),
        ("grid = { ny = 8 }\n", (6, 8, 2.0)),
    ] {
        let scene = parse(dir.path(), &format!("{grid}{TIME}{dem}")).unwrap();
        assert_eq!((scene.grid.nx, scene.grid.ny, scene.grid.dx), want, "{grid}");
    }
}

#[test]
fn the_preset_scenes_rasters_are_what_the_project_writes() {
    // scenes/bay.tif, valley.tif, valley_rain.tif, valley_reservoir.npy and flume_swash.npy come from formulas
    // (examples/dems.rs), not from a download: writing them again gives the same bytes.
    let exe = std::env::current_exe().unwrap();
    let dems = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join(format!("dems{}", std::env::consts::EXE_SUFFIX));
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(dems)
        .arg(dir.path())
        .output()
        .expect("the dems example runs (cargo test builds it)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    for name in [
        "bay.tif",
        "valley.tif",
        "valley_rain.tif",
        "valley_reservoir.npy",
        "flume_swash.npy",
        "ea_test2.tif",
    ] {
        let made = std::fs::read(dir.path().join(name)).unwrap();
        let kept = std::fs::read(scenes.join(name)).unwrap_or_else(|e| panic!("scenes/{name}: {e}"));
        assert!(
            made == kept,
            "scenes/{name} is not what `cargo run --example dems` writes"
        );
    }
}
