//! `examples/render.rs`, the embedding example, runs on the software adapter and its frames show
//! the water moving: pixels change over the pool between frames, and the sky above it does not.

use std::path::PathBuf;

/// `cargo test` builds the examples next to the test binaries' folder.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().unwrap().parent().unwrap();
    profile
        .join("examples")
        .join(format!("render{}", std::env::consts::EXE_SUFFIX))
}

fn frame(dir: &std::path::Path, n: u32) -> image::RgbImage {
    image::open(dir.join(format!("frame_{n:03}.png")))
        .unwrap_or_else(|e| panic!("frame {n}: {e}"))
        .to_rgb8()
}

#[test]
fn the_render_example_draws_moving_water() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(example())
        .args([
            "--out",
            dir.path().to_str().unwrap(),
            "--frames",
            "12",
            "--width",
            "320",
            "--height",
            "200",
        ])
        .output()
        .expect("the render example runs (cargo test builds it)");
    assert!(
        out.status.success(),
        "render example failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (first, last) = (frame(dir.path(), 0), frame(dir.path(), 11));
    assert_eq!(first.dimensions(), (320, 200));
    let changed = |x0: u32, y0: u32, x1: u32, y1: u32| {
        let mut n = 0;
        for y in y0..y1 {
            for x in x0..x1 {
                let (a, b) = (first.get_pixel(x, y), last.get_pixel(x, y));
                if a.0.iter().zip(b.0).any(|(p, q)| p.abs_diff(q) > 2) {
                    n += 1;
                }
            }
        }
        n
    };
    // The pool fills the middle of the frame: the wave spreading from the bump changes it.
    let pool = changed(80, 60, 240, 160);
    assert!(pool > 500, "only {pool} pixels of the pool changed in 11 frames");
    // The top rows are sky (the clear colour): nothing there moves.
    assert_eq!(changed(0, 0, 320, 12), 0, "the sky changed");
    // The frames are pictures, not blanks: the pool is not the clear colour.
    let sky = *first.get_pixel(2, 2);
    assert_ne!(*first.get_pixel(160, 110), sky);
    // The buoy's height queries: every frame's answer came back within two frames of the ask,
    // without a stall, and rides the water (within the bump's 6 cm of the still level, wet).
    let log = std::fs::read_to_string(dir.path().join("marker.csv")).unwrap();
    let rows: Vec<Vec<f64>> = log
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(rows.len() >= 10, "only {} of 12 queries answered", rows.len());
    for r in &rows {
        assert!(
            (0.0..=2.0).contains(&(r[1] - r[0])),
            "a query asked in frame {} came back in {}",
            r[0],
            r[1]
        );
        assert!(
            r[2].abs() < 0.06 && r[3] > 0.1,
            "the buoy's water: height {} depth {}",
            r[2],
            r[3]
        );
    }
}

/// Runs the example at 320 × 200 for `frames` frames of `scene` into `out_dir`, with `flags`;
/// fails the test (naming `name`) where it fails.
fn run_scene(name: &str, out_dir: &std::path::Path, frames: u32, scene: &std::path::Path, flags: &[&str]) {
    let out = std::process::Command::new(example())
        .args(["--out", out_dir.to_str().unwrap(), "--frames", &frames.to_string()])
        .args(["--width", "320", "--height", "200", "--scene", scene.to_str().unwrap()])
        .args(flags)
        .output()
        .expect("the render example runs (cargo test builds it)");
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Near-white pixels: the spray's dots (sand, sky and water stay below 235 in some channel).
fn white(img: &image::RgbImage) -> usize {
    img.pixels().filter(|p| p.0.iter().all(|&v| v > 235)).count()
}

#[test]
fn the_render_example_draws_the_waterfalls_spray_from_shoals_particle_buffer() {
    // The waterfall at 3.2 s (80 frames of two steps): the river has reached the cliff and
    // breaks into spray there. The example instances a quad per particle straight from Shoal's
    // buffer, counted by the draw args the GPU wrote. The same scene without spray draws none.
    let dir = tempfile::tempdir().unwrap();
    let scene = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/waterfall.toml");
    let calm = dir.path().join("calm.toml");
    let text = std::fs::read_to_string(&scene).unwrap();
    std::fs::write(&calm, format!("{text}\n[spray]\nenabled = false\n")).unwrap();
    let mut whites = Vec::new();
    for (name, path) in [("spray", &scene), ("calm", &calm)] {
        let out_dir = dir.path().join(name);
        run_scene(name, &out_dir, 80, path, &[]);
        whites.push(white(&frame(&out_dir, 79)));
    }
    // Measured on lavapipe: 56 near-white pixels with spray, none without.
    assert!(whites[0] >= 20, "only {} spray pixels", whites[0]);
    assert_eq!(whites[1], 0, "white pixels without spray");
}

#[test]
fn the_render_example_draws_the_layers_spray_and_foam_from_every_slot() {
    // A dam break in a Navier-Stokes tank (32 × 6 columns, 12 layers) strikes the far wall and
    // throws spray from step 16 on. The layer's slots are not compacted: the example draws
    // every one and its vertex shader drops the free ones (neither spray nor foam). The same
    // run with `--no-spray` gives the same frames until the first particle and differs where
    // they are drawn after (measured on lavapipe: 0 pixels to frame 7, 615–1335 from frame 9).
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("tank.toml");
    std::fs::write(
        &scene,
        "[grid]\nnx = 32\nny = 6\ndx = 0.05\n[time]\ndt = 0.02\n[physics]\nmodel = \"navier-stokes\"\n\
         [navier_stokes]\nlayers = 12\n[terrain]\nflat = -0.05\n\
         [[water.bump]]\nx = 0.0\ny = 0.15\nradius = 0.4\nheight = 0.5\n[spray]\nseed = 3\n",
    )
    .unwrap();
    let mut frames = Vec::new();
    for (name, flags) in [("drawn", &[][..]), ("undrawn", &["--no-spray"][..])] {
        let out_dir = dir.path().join(name);
        run_scene(name, &out_dir, 14, &scene, flags);
        frames.push((frame(&out_dir, 0), frame(&out_dir, 13)));
    }
    let differ = |a: &image::RgbImage, b: &image::RgbImage| {
        a.pixels()
            .zip(b.pixels())
            .filter(|(p, q)| p.0.iter().zip(q.0).any(|(u, v)| u.abs_diff(v) > 2))
            .count()
    };
    assert_eq!(
        differ(&frames[0].0, &frames[1].0),
        0,
        "the first frames differ before any spray"
    );
    let drawn = differ(&frames[0].1, &frames[1].1);
    assert!(
        drawn > 200,
        "the spray and foam changed only {drawn} pixels of the last frame"
    );
    assert!(white(&frames[0].1) > white(&frames[1].1), "no white dots drawn");
}

/// The example's own shaders validate with naga, like Shoal's.
#[test]
fn the_render_example_shaders_validate() {
    let source = include_str!("../../examples/render/render.wgsl");
    let module = naga::front::wgsl::parse_str(source).unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)));
}
