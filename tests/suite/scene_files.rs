//! Scene inputs read from files: PNG terrain orientation and scaling, npy in either memory order,
//! and relative paths that resolve against the scene file's folder, not the working directory.

use shoal::{Backend, Scene, Simulation};
use std::path::Path;

const GRID: &str = "[grid]\nnx = 4\nny = 2\ndx = 1.0\n[time]\ndt = 0.01\n";

#[test]
fn png_terrain_is_a_map_north_up_black_min_white_max() {
    let dir = tempfile::tempdir().unwrap();
    // 4×2 pixels: the top row white, the bottom row black.
    let img = image::GrayImage::from_fn(4, 2, |_, y| image::Luma([if y == 0 { 255 } else { 0 }]));
    img.save(dir.path().join("g.png")).unwrap();
    let text = format!("{GRID}[terrain]\npng = {{ path = \"g.png\", min = -2.0, max = 0.5 }}\n");
    let scene = Scene::parse(&text, Path::new("t"), dir.path()).unwrap();
    let sim = Simulation::new(&scene, Backend::Cpu).unwrap();
    let b = sim.ground();
    assert!(
        b[..4].iter().all(|&v| (v + 2.0).abs() < 1e-12),
        "south row (j = 0) = min: {b:?}"
    );
    assert!(
        b[4..].iter().all(|&v| (v - 0.5).abs() < 1e-12),
        "north row (j = 1) = max: {b:?}"
    );
}

#[test]
fn fortran_order_npy_reads_as_the_same_field() {
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<f64> = (0..8).map(|k| k as f64 * 0.1 - 1.0).collect();
    let path = dir.path().join("b.npy");
    {
        use npyz::WriterBuilder;
        let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut w = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&[2, 4])
            .order(npyz::Order::Fortran)
            .writer(file)
            .begin_nd()
            .unwrap();
        // Column-major: element [j, i] sits at i·ny + j.
        w.extend((0..8).map(|k| values[(k % 2) * 4 + k / 2])).unwrap();
        w.finish().unwrap();
    }
    let scene = Scene::parse(
        &format!("{GRID}[terrain]\nnpy = \"b.npy\"\n"),
        Path::new("t"),
        dir.path(),
    )
    .unwrap();
    let sim = Simulation::new(&scene, Backend::Cpu).unwrap();
    assert_eq!(sim.ground(), &values[..]);
}

#[test]
fn relative_paths_resolve_against_the_scene_folder() {
    let scenes = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    shoal::io::npy::write_2d(&scenes.path().join("b.npy"), 2, 4, &[-1.0f32; 8]).unwrap();
    std::fs::write(
        scenes.path().join("s.toml"),
        format!("{GRID}steps = 2\n[terrain]\nnpy = \"b.npy\"\n"),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shoal"))
        .args([
            "run",
            scenes.path().join("s.toml").to_str().unwrap(),
            "--backend",
            "cpu",
            "--out",
            "out",
        ])
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        elsewhere.path().join("out/h_000002.npy").exists(),
        "--out is relative to the working directory"
    );
}

/// A scene without a table every scene needs names that table, not the first key of the file
/// (it blamed `grid` on line 1 for a missing [time]).
#[test]
fn a_missing_table_is_named_not_the_first_key() {
    for (text, first) in [
        ("[grid]\nnx = 8\nny = 8\ndx = 1.0\n", "grid"),
        ("name = \"x\"\n[grid]\nnx = 8\nny = 8\ndx = 1.0\n", "name"),
    ] {
        let e = shoal::Scene::parse(text, std::path::Path::new("s.toml"), std::path::Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no [time] table"), "{e}");
        assert!(!e.contains(&format!("{first}:")) && !e.contains("s.toml:1"), "{e}");
    }
}
