//! `--netcdf` (issue 52): output.nc holds every snapshot as a record equal to its npy files, the
//! flood maps, the cell centres on the DEM's frame and the DEM's coordinate system; a killed
//! run's file opens up to its last record and a resumed run's ends as a straight run's
//! (`stops::`), and DEM nodata is the fill value (`geotiff::an_integer_dem…`).

use shoal::{Backend, Scene};
use std::path::Path;

fn npy(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap();
    npyz::NpyFile::new(&bytes[..]).unwrap().into_vec::<f32>().unwrap()
}

fn f32s(r: &mut netcdf3::FileReader, var: &str) -> Vec<f32> {
    r.read_var(var).unwrap().get_f32().unwrap().to_vec()
}

#[test]
fn output_nc_holds_each_snapshot_as_its_npy_files_on_the_dems_frame() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut scene = Scene::from_file(&root.join("scenes/storm_surge_sw.toml")).unwrap();
    scene.time.steps = 40;
    scene.output.every = 20;
    let out = dir.path().join("out");
    let options = shoal::run::RunOptions {
        netcdf: true,
        depth: true,
        velocity: true,
        geotiff: true,
        ..Default::default()
    };
    shoal::run::run(&scene, &out, Backend::Cpu, &options, &mut |_: &str| {}).unwrap();

    let mut r = netcdf3::FileReader::open(out.join("output.nc")).unwrap();
    let (nx, ny) = (scene.grid.nx as usize, scene.grid.ny as usize);
    assert_eq!(r.data_set().num_records(), Some(3));
    assert_eq!(r.read_var("step").unwrap().get_i32().unwrap(), &[0, 20, 40]);
    let time = r.read_var("time").unwrap().get_f64().unwrap().to_vec();
    assert_eq!(time, [0.0, 20.0 * scene.time.dt, 40.0 * scene.time.dt]);
    let cells = nx * ny;
    for (name, prefix) in [("h", "h"), ("depth", "d"), ("u", "u"), ("v", "v")] {
        let stack = f32s(&mut r, name);
        for (k, step) in [0, 20, 40].into_iter().enumerate() {
            let want = npy(&out.join(format!("{prefix}_{step:06}.npy")));
            // Bit for bit: the same f32 values the npy holds.
            assert!(stack[k * cells..(k + 1) * cells] == want[..], "{name} at step {step}");
        }
    }
    for map in ["max_depth", "max_speed", "max_hazard", "time_wet"] {
        assert!(f32s(&mut r, map) == npy(&out.join(format!("{map}.npy"))), "{map}");
    }
    // The cell centres on the GeoTIFF's frame: its north-west corner half a pixel out.
    let frame = shoal::io::geotiff::read_header(&out.join("h_000040.tif")).unwrap();
    let (origin, pixel) = (frame.origin.unwrap(), frame.pixel.unwrap());
    let x = r.read_var("x").unwrap().get_f64().unwrap().to_vec();
    let y = r.read_var("y").unwrap().get_f64().unwrap().to_vec();
    assert_eq!((x.len(), y.len()), (nx, ny));
    assert!(
        (x[0] - (origin[0] + 0.5 * pixel[0])).abs() < 1e-6,
        "{} {:?}",
        x[0],
        origin
    );
    assert!(
        (y[ny - 1] - (origin[1] - 0.5 * pixel[1])).abs() < 1e-6,
        "{} {:?}",
        y[ny - 1],
        origin
    );
    assert!(y[0] < y[ny - 1], "row 0 is the south edge");
    let ds = r.data_set();
    let wkt = ds.get_var_attr_as_string("crs", "spatial_ref").unwrap();
    assert!(wkt.contains("WGS 84 / UTM zone 33N"), "{wkt}");
    assert_eq!(ds.get_var_attr_as_string("h", "grid_mapping").as_deref(), Some("crs"));
    assert_eq!(ds.get_global_attr_as_string("Conventions").as_deref(), Some("CF-1.8"));
}

#[test]
fn a_model_without_a_velocity_writes_no_u_or_v() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scene.toml"),
        "[grid]\nnx = 8\nny = 6\ndx = 0.1\n[time]\ndt = 0.01\nsteps = 4\n[water]\nlevel = 0.2\n",
    )
    .unwrap();
    let scene = Scene::from_file(&dir.path().join("scene.toml")).unwrap();
    let options = shoal::run::RunOptions {
        netcdf: true,
        ..Default::default()
    };
    shoal::run::run(
        &scene,
        &dir.path().join("out"),
        Backend::Cpu,
        &options,
        &mut |_: &str| {},
    )
    .unwrap();
    let r = netcdf3::FileReader::open(dir.path().join("out/output.nc")).unwrap();
    let names = r.data_set().get_var_names();
    assert!(
        names.contains(&"h".to_string()) && names.contains(&"depth".to_string()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"u".to_string()) && !names.contains(&"crs".to_string()),
        "{names:?}"
    );
    // The scene's metres: cell centres at (i + 0.5)·dx.
    assert_eq!(r.data_set().get_var_attr_as_string("x", "units").as_deref(), Some("m"));
}
