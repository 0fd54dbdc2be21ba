//! The command line as users and outside checks drive it (SCENE.md): outputs, and bad input that
//! must end in `error: …` naming the key and line, a non-zero exit, and no panic.

use std::path::Path;
use std::process::Command;

pub(crate) fn shoal(args: &[&str], dir: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_shoal"))
        .args(args)
        .current_dir(dir)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("the shoal binary runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

const GOOD: &str = "[grid]\nnx = 8\nny = 6\ndx = 0.1\n\n[time]\ndt = 0.01\nsteps = 5\n";

/// Writes `scene` into a fresh folder, runs it on the CPU, and expects a clean failure whose
/// message contains every one of `expect`.
fn assert_rejected(scene: &str, expect: &[&str]) {
    assert_rejected_with(scene, expect, |_| {});
}

fn assert_rejected_with(scene: &str, expect: &[&str], setup: impl FnOnce(&Path)) {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    std::fs::write(dir.path().join("scene.toml"), scene).unwrap();
    let (ok, _, err) = shoal(&["run", "scene.toml", "--backend", "cpu", "--out", "out"], dir.path());
    assert!(!ok, "the scene was accepted:\n{scene}");
    assert!(
        err.starts_with("error: "),
        "stderr must start with `error: `, got:\n{err}"
    );
    assert!(!err.contains("panicked"), "shoal panicked:\n{err}");
    for e in expect {
        assert!(err.contains(e), "the message should mention {e:?}:\n{err}");
    }
    if let Ok(entries) = std::fs::read_dir(dir.path().join("out")) {
        for f in entries {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|x| x == "npy") {
                let bytes = std::fs::read(&f).unwrap();
                assert!(!bytes
                    .windows(4)
                    .any(|w| f32::from_le_bytes(w.try_into().unwrap()).is_nan()));
            }
        }
    }
}

#[test]
fn malformed_toml() {
    assert_rejected("[grid\nnx = 8\n", &["scene.toml:1"]);
}

#[test]
fn unknown_key_names_key_and_line() {
    assert_rejected(
        &format!("{GOOD}[physics]\nviscosity = 2\n"),
        &["viscosity", "scene.toml:10"],
    );
}

#[test]
fn wrong_type() {
    assert_rejected(
        "[grid]\nnx = \"many\"\nny = 6\ndx = 0.1\n[time]\ndt = 0.01\n",
        &["scene.toml:2", "invalid type"],
    );
}

#[test]
fn missing_grid() {
    assert_rejected("[time]\ndt = 0.01\n", &["grid"]);
}

#[test]
fn too_few_cells() {
    assert_rejected(
        &GOOD.replace("nx = 8", "nx = 1"),
        &["grid.nx", "scene.toml:2", "at least 2"],
    );
    assert_rejected(&GOOD.replace("ny = 6", "ny = 0"), &["grid.ny", "scene.toml:3"]);
}

#[test]
fn non_positive_dx_and_dt() {
    assert_rejected(&GOOD.replace("dx = 0.1", "dx = 0.0"), &["grid.dx", "scene.toml:4"]);
    assert_rejected(&GOOD.replace("dt = 0.01", "dt = -1.0"), &["time.dt", "scene.toml:7"]);
    assert_rejected(&GOOD.replace("dt = 0.01", "dt = nan"), &["time.dt"]);
    assert_rejected(&GOOD.replace("dt = 0.01", "dt = inf"), &["time.dt"]);
}

#[test]
fn unknown_solver_and_boundary() {
    assert_rejected(
        &format!("{GOOD}[physics]\nsolver = \"magic\"\n"),
        &["magic", "scene.toml:10"],
    );
    assert_rejected(
        &format!("{GOOD}[boundary]\nwest = \"bouncy\"\n"),
        &["bouncy", "scene.toml:10"],
    );
}

#[test]
fn bad_bodies_name_the_key() {
    let body = |keys: &str| format!("{GOOD}[[body]]\n{keys}\n");
    assert_rejected(
        &body("shape = \"cone\"\nsize = [0.1, 0.1, 0.1]\nposition = [0.1, 0.1, 0.1]"),
        &["cone", "scene.toml:10"],
    );
    assert_rejected(
        &body("size = [0.1, 0.0, 0.1]\nposition = [0.1, 0.1, 0.1]"),
        &["body[0].size", "> 0"],
    );
    assert_rejected(
        &body("size = [0.1, 0.1, 0.1]\nposition = [90.0, 0.1, 0.1]"),
        &["body[0].position", "outside the domain"],
    );
    assert_rejected(
        &body("size = [0.1, 0.1, 0.1]\nposition = [0.1, 0.1, 0.1]\ndensity = -5.0"),
        &["body[0].density"],
    );
    assert_rejected(
        &body("size = [0.1, 0.1, 0.1]\nposition = [0.1, 0.1, 0.1]\nfixed = true\nkinematic = true"),
        &["body[0].kinematic", "both"],
    );
    assert_rejected(
        &body("size = [0.1, 0.1, 0.1]\nposition = [0.1, 0.1, 0.1]\nmass = 3.0"),
        &["mass"],
    );
    assert_rejected(
        &format!("{GOOD}[physics]\ncoupling_relaxation = 1.5\n"),
        &["physics.coupling_relaxation", "(0, 1]"],
    );
    assert_rejected(
        &format!("{GOOD}[physics]\ncoupling = \"sor\"\n"),
        &["sor", "scene.toml:10"],
    );
}

#[test]
fn bad_source_and_rain() {
    assert_rejected(
        &format!("{GOOD}[[source]]\nx = 99.0\ny = 0.1\nradius = 0.1\nrate = 1.0\n"),
        &["source[0].x", "outside the domain", "scene.toml:10"],
    );
    assert_rejected(
        &format!("{GOOD}[rain]\nrate = -1.0\nradius = 0.1\nheight = 0.01\n"),
        &["rain.rate", "≥ 0", "scene.toml:10"],
    );
}

#[test]
fn periodic_on_one_side_only() {
    assert_rejected(
        &format!("{GOOD}[boundary]\nwest = \"periodic\"\n"),
        &["periodic", "scene.toml:10"],
    );
}

#[test]
fn two_terrain_kinds() {
    assert_rejected(
        &format!("{GOOD}[terrain]\nflat = 0.0\nslope = {{ base = 0.0, grad = [0.1, 0.0] }}\n"),
        &["at most one", "scene.toml:11"],
    );
}

#[test]
fn bad_npy_files() {
    let scene = format!("{GOOD}[terrain]\nnpy = \"ground.npy\"\n");
    assert_rejected(&scene, &["terrain.npy", "scene.toml:10", "ground.npy"]);
    assert_rejected_with(&scene, &["terrain.npy", "not a readable .npy"], |d| {
        std::fs::write(d.join("ground.npy"), b"definitely not numpy").unwrap()
    });
    assert_rejected_with(&scene, &["terrain.npy", "shape"], |d| {
        shoal::io::npy::write_2d(&d.join("ground.npy"), 8, 6, &[0.0f32; 48]).unwrap()
    });
    assert_rejected_with(&scene, &["terrain.npy", "dtype"], |d| {
        shoal::io::npy::write_2d(&d.join("ground.npy"), 6, 8, &[0i32; 48]).unwrap()
    });
    assert_rejected_with(
        &format!("{GOOD}[water]\nnpy = \"h.npy\"\n"),
        &["water.npy", "non-finite"],
        |d| {
            let mut h = [0.0f64; 48];
            h[7] = f64::NAN;
            shoal::io::npy::write_2d(&d.join("h.npy"), 6, 8, &h).unwrap()
        },
    );
}

#[test]
fn undecodable_png() {
    assert_rejected_with(
        &format!("{GOOD}[terrain]\npng = {{ path = \"g.png\", min = 0.0, max = 1.0 }}\n"),
        &["terrain.png", "scene.toml:10"],
        |d| std::fs::write(d.join("g.png"), b"\x89PNG but not really").unwrap(),
    );
}

#[test]
fn bad_bump_box_probe_damping_gravity() {
    assert_rejected(
        &format!("{GOOD}[[water.bump]]\nx = 0.1\ny = 0.1\nradius = 0.0\nheight = 0.1\n"),
        &["water.bump[0].radius", "scene.toml:12"],
    );
    assert_rejected(
        &format!("{GOOD}[[terrain.box]]\nx0 = 0.5\ny0 = 0.0\nx1 = 0.2\ny1 = 0.5\ntop = 1.0\n"),
        &["terrain.box[0].x1", "scene.toml:12"],
    );
    assert_rejected(
        &format!("{GOOD}[[output.probe]]\nname = \"far\"\nx = 5.0\ny = 0.1\n"),
        &["output.probe[0]", "outside the domain", "scene.toml:9"],
    );
    assert_rejected(
        &format!("{GOOD}[physics]\ndamping = 1.0\n"),
        &["physics.damping", "scene.toml:10"],
    );
    assert_rejected(
        &format!("{GOOD}[physics]\ngravity = 0.0\n"),
        &["physics.gravity", "scene.toml:10"],
    );
}

#[test]
fn output_folder_that_is_a_file_or_unwritable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), GOOD).unwrap();
    std::fs::write(dir.path().join("taken"), b"a file").unwrap();
    let (ok, _, err) = shoal(&["run", "scene.toml", "--backend", "cpu", "--out", "taken"], dir.path());
    assert!(
        !ok && err.starts_with("error: ") && err.contains("not a folder"),
        "{err}"
    );
    let (ok, _, err) = shoal(
        &["run", "scene.toml", "--backend", "cpu", "--out", "/proc/shoal-out"],
        dir.path(),
    );
    assert!(
        !ok && err.starts_with("error: ") && err.contains("/proc/shoal-out"),
        "{err}"
    );
}

#[test]
fn grid_too_large_for_the_adapter() {
    let huge = GOOD.replace("nx = 8", "nx = 30000").replace("ny = 6", "ny = 30000");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), &huge).unwrap();
    let (ok, _, err) = shoal(&["run", "scene.toml", "--backend", "gpu", "--out", "out"], dir.path());
    assert!(!ok && err.starts_with("error: ") && err.contains("too large"), "{err}");
    // Without --backend a software adapter sends the run to the CPU, which refuses it too.
    let (ok, _, err) = shoal(&["run", "scene.toml", "--out", "out"], dir.path());
    assert!(
        !ok && err.lines().any(|l| l.starts_with("error: ") && l.contains("too large")),
        "{err}"
    );
    let cpu = huge.replace("30000", "20000");
    std::fs::write(dir.path().join("scene.toml"), cpu).unwrap();
    let (ok, _, err) = shoal(&["run", "scene.toml", "--backend", "cpu", "--out", "out"], dir.path());
    assert!(!ok && err.contains("too large"), "{err}");
}

#[test]
fn default_scene_writes_the_contract_files_on_both_backends() {
    for backend in ["cpu", "gpu"] {
        let dir = tempfile::tempdir().unwrap();
        let (ok, _, err) = shoal(
            &["run", "--backend", backend, "--steps", "20", "--out", "out"],
            dir.path(),
        );
        assert!(ok, "{backend}: {err}");
        let out = dir.path().join("out");
        let stats = std::fs::read_to_string(out.join("stats.csv")).unwrap();
        assert!(stats.starts_with("step,time,volume,h_min,h_max"), "{stats}");
        assert_eq!(stats.lines().count(), 3, "header, step 0 and step 20:\n{stats}");
        let probes = std::fs::read_to_string(out.join("probes.csv")).unwrap();
        assert!(probes.starts_with("step,time,west_shore\n"));
        assert_eq!(probes.lines().count(), 22, "a row per step from step 0");
        for step in [0, 20] {
            let f = out.join(format!("h_{step:06}.npy"));
            let npy = npyz::NpyFile::new(std::fs::File::open(&f).unwrap()).unwrap();
            assert_eq!(npy.shape(), &[256, 256]);
            assert_eq!(npy.dtype().descr(), "'<f4'");
        }
        // The written scene has every default filled in and runs again as it is.
        let written = std::fs::read_to_string(out.join("scene.toml")).unwrap();
        for key in [
            "gravity = 9.81",
            "solver = \"explicit\"",
            "west = \"reflect\"",
            "substeps = 1",
            "every = 100",
        ] {
            assert!(written.contains(key), "scene.toml lacks {key}:\n{written}");
        }
        let (ok, _, err) = shoal(
            &[
                "run",
                "out/scene.toml",
                "--backend",
                backend,
                "--steps",
                "20",
                "--out",
                "again",
            ],
            dir.path(),
        );
        assert!(ok, "{err}");
        assert_eq!(
            std::fs::read(out.join("h_000020.npy")).unwrap(),
            std::fs::read(dir.path().join("again/h_000020.npy")).unwrap(),
            "{backend}: rerunning the written scene.toml gives other heights"
        );
        assert!(!std::fs::read_dir(&out)
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp")));
    }
}

#[test]
fn no_matching_adapter_says_what_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_shoal"))
            .args(["run", "--steps", "1"])
            .args(args)
            .current_dir(dir.path())
            .env("WGPU_ADAPTER_NAME", "no-such-gpu")
            .output()
            .unwrap()
    };
    let out = run(&["--backend", "gpu", "--out", "gpu"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.starts_with("error: no GPU adapter found"),
        "{err}"
    );
    assert!(
        err.contains("mesa-vulkan-drivers") && err.contains("--backend cpu"),
        "{err}"
    );
    // Without --backend the run goes on, on the CPU, and says why.
    let out = run(&["--out", "auto"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("note: no GPU adapter") && err.contains("CPU backend"),
        "{err}"
    );
}

#[test]
fn without_backend_a_run_takes_the_cpu_where_the_only_adapter_is_a_software_rasteriser() {
    let (ok, info, err) = shoal(&["info"], Path::new("."));
    assert!(ok, "{err}");
    let chosen = info
        .lines()
        .find(|l| l.starts_with("a run without --backend takes --backend "))
        .expect(&info);
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = shoal(&["run", "--steps", "2", "--out", "out"], dir.path());
    assert!(ok, "{err}");
    if chosen.contains("software rasteriser") {
        assert!(chosen.contains("takes --backend cpu ("), "{chosen}");
        assert!(
            err.contains("note: the only GPU adapter is a software rasteriser"),
            "{err}"
        );
    } else {
        assert!(!err.contains("CPU backend"), "{chosen}\n{err}");
    }
    let (ok, _, err) = shoal(
        &["run", "--steps", "2", "--out", "forced", "--backend", "gpu"],
        dir.path(),
    );
    assert!(
        ok && !err.contains("CPU backend"),
        "--backend gpu still runs on the adapter: {err}"
    );
}

#[test]
fn info_names_the_adapter() {
    let (ok, out, err) = shoal(&["info"], Path::new("."));
    assert!(ok, "{err}");
    assert!(
        out.contains("adapter:") && out.contains("max_storage_buffer_binding_size"),
        "{out}"
    );
}

#[test]
fn every_example_scene_parses_and_runs() {
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    // Scenes are the TOML files; the rest are their data (a gate's inflow table).
    for entry in std::fs::read_dir(&scenes).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let (ok, _, err) = shoal(
            &[
                "run",
                path.to_str().unwrap(),
                "--backend",
                "cpu",
                "--steps",
                "5",
                "--out",
                "out",
            ],
            dir.path(),
        );
        assert!(ok, "{}: {err}", path.display());
    }
}

/// A small scene with a drop, so frames differ.
const DROP: &str = "[grid]\nnx = 40\nny = 30\ndx = 0.05\n[time]\ndt = 0.01\nsteps = 60\n[terrain]\nflat = -0.2\n\
                    [[water.bump]]\nx = 1.0\ny = 0.75\nradius = 0.1\nheight = 0.03\n[output]\nevery = 20\n";

#[test]
fn a_second_run_into_the_same_folder_needs_force() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), GOOD).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "scene.toml", "--backend", "cpu", "--out", "out"];
        args.extend(extra);
        shoal(&args, dir.path())
    };
    assert!(run(&[]).0);
    let before = std::fs::read(dir.path().join("out/stats.csv")).unwrap();
    let (ok, _, err) = run(&[]);
    assert!(!ok, "a second run overwrote the first");
    assert!(
        err.starts_with("error:") && err.contains("not empty") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("out/stats.csv")).unwrap(),
        before,
        "the first run's files changed"
    );
    let (ok, _, err) = run(&["--force"]);
    assert!(ok, "{err}");
}

#[test]
fn png_and_gif_frames_show_the_waves() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), DROP).unwrap();
    let args = [
        "run",
        "scene.toml",
        "--backend",
        "cpu",
        "--out",
        "out",
        "--png",
        "--gif",
        "waves.gif",
    ];
    let (ok, _, err) = shoal(&args, dir.path());
    assert!(ok, "{err}");
    let frames: Vec<image::RgbImage> = [0, 20, 40, 60]
        .iter()
        .map(|step| {
            let path = dir.path().join(format!("out/frame_{step:06}.png"));
            image::open(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .into_rgb8()
        })
        .collect();
    assert_eq!(frames[0].dimensions(), (80, 60), "twice the grid");
    let changed = |a: &image::RgbImage, b: &image::RgbImage| a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count();
    assert!(changed(&frames[0], &frames[3]) > 500, "the waves did not show");
    let gif = std::fs::File::open(dir.path().join("waves.gif")).unwrap();
    let decoder = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(gif)).unwrap();
    let count = image::AnimationDecoder::into_frames(decoder).count();
    assert_eq!(count, 4, "one GIF frame per output step");
}

#[test]
fn validate_and_dry_run_check_without_running() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), DROP).unwrap();
    let (ok, out, err) = shoal(&["validate", "scene.toml"], dir.path());
    assert!(ok, "{err}");
    assert!(
        out.contains("is valid") && out.contains("40×30") && out.contains("MiB"),
        "{out}"
    );
    let (ok, out, err) = shoal(&["run", "scene.toml", "--dry-run", "--steps", "7"], dir.path());
    assert!(ok, "{err}");
    assert!(
        out.contains("steps = 7") && out.contains("gravity = 9.81") && out.contains("MiB"),
        "{out}"
    );
    assert!(!dir.path().join("shoal-out").exists(), "a dry run wrote outputs");
    std::fs::write(dir.path().join("bad.toml"), DROP.replace("dx = 0.05", "dx = -1")).unwrap();
    let (ok, _, err) = shoal(&["validate", "bad.toml"], dir.path());
    assert!(!ok && err.starts_with("error:") && err.contains("dx"), "{err}");
}

#[test]
fn progress_goes_to_stderr_in_plain_lines_and_quiet_silences_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), DROP.replace("steps = 60", "steps = 600")).unwrap();
    let (ok, _, err) = shoal(&["run", "scene.toml", "--backend", "cpu", "--out", "a"], dir.path());
    assert!(ok, "{err}");
    assert!(
        err.contains("step 600/600 (100 %)") && err.contains("steps/s") && err.contains("ran \""),
        "{err}"
    );
    // A line at each whole tenth of the run (the chunks end there: every output step), rates
    // in three figures, not "9,153,212.0759/s".
    let steps: Vec<u64> = err
        .lines()
        .filter_map(|l| l.strip_prefix("step ")?.split('/').next()?.parse().ok())
        .collect();
    assert!(steps.len() >= 5 && steps.iter().all(|s| s % 60 == 0), "{err}");
    assert!(!err.contains(",0") && !err.contains("/s,"), "{err}");
    let (ok, _, err) = shoal(
        &["run", "scene.toml", "--backend", "cpu", "--out", "b", "--quiet"],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(err.is_empty(), "--quiet printed:\n{err}");
}

/// A beach under "regions" with rain and a spring, on the ADI solver: every part of the state a
/// checkpoint must carry (levels, residuals, region labels and targets, pending water, drains).
const BUSY: &str = "[grid]\nnx = 48\nny = 32\ndx = 0.05\n[time]\ndt = 0.02\nsteps = 300\n[physics]\nsolver = \"adi\"\n\
                    volume_correction = \"regions\"\n[terrain]\nslope = { base = -0.2, grad = [0.2, 0.0] }\n\
                    [water]\nlevel = 0.0\n[[water.bump]]\nx = 0.6\ny = 0.8\nradius = 0.15\nheight = 0.04\n\
                    [[source]]\nx = 0.3\ny = 0.4\nradius = 0.1\nrate = -0.001\n\
                    [rain]\nrate = 20.0\nradius = 0.05\nheight = 0.01\nseed = 3\n[output]\nevery = 50\n\
                    [[output.probe]]\nname = \"p\"\nx = 1.0\ny = 0.8\n";

/// A pool with a box dropped in and a scripted paddle under the surface: the bodies' state and
/// the columns they hold travel through a checkpoint too.
const FLOATING: &str = "[grid]\nnx = 40\nny = 30\ndx = 0.05\n[time]\ndt = 0.01\nsteps = 200\n[terrain]\nflat = -0.4\n\
                        [[body]]\nsize = [0.3, 0.3, 0.2]\nposition = [0.8, 0.7, 0.2]\nrotation = [5.0, 0.0, 10.0]\n\
                        density = 600.0\n[[body]]\nsize = [0.2, 0.4, 0.1]\nposition = [0.3, 0.8, -0.2]\n\
                        velocity = [0.3, 0.0, 0.0]\nkinematic = true\n[output]\nevery = 50\n";

#[test]
fn a_resumed_run_ends_with_the_same_bits_as_a_straight_one() {
    for (scene, steps, half) in [(DROP, "600", "300"), (BUSY, "300", "150"), (FLOATING, "200", "100")] {
        for backend in ["cpu", "gpu"] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("scene.toml"), scene).unwrap();
            let run = |out: &str, steps: &str| {
                let args = [
                    "run",
                    "scene.toml",
                    "--backend",
                    backend,
                    "--out",
                    out,
                    "--steps",
                    steps,
                ];
                let (ok, _, err) = shoal(&[&args[..], &["--checkpoint-every", half, "-q"]].concat(), dir.path());
                assert!(ok, "{err}");
            };
            run("straight", steps);
            run("split", half);
            let (ok, _, err) = shoal(&["resume", "split", "--steps", steps, "--backend", backend], dir.path());
            assert!(ok, "{err}");
            assert!(
                err.contains(&format!("resuming split at step {half} of {steps}")),
                "{err}"
            );
            let last = format!("h_{:06}.npy", steps.parse::<u64>().unwrap());
            let probes = scene.contains("probe");
            let bodies = scene.contains("body");
            for file in [last.as_str(), "stats.csv", "probes.csv", "bodies.csv"]
                .into_iter()
                .filter(|&f| (probes || f != "probes.csv") && (bodies || f != "bodies.csv"))
            {
                let read = |run: &str| std::fs::read(dir.path().join(run).join(file)).unwrap();
                assert!(
                    read("straight") == read("split"),
                    "{backend}: {file} differs after the resume"
                );
            }
        }
    }
}

#[test]
fn a_bad_checkpoint_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.toml"), DROP).unwrap();
    std::fs::write(dir.path().join("b.toml"), DROP.replace("nx = 40", "nx = 41")).unwrap();
    for (scene, out) in [("a.toml", "a"), ("b.toml", "b")] {
        let args = [
            "run",
            scene,
            "--backend",
            "cpu",
            "--out",
            out,
            "--checkpoint-every",
            "20",
            "-q",
        ];
        assert!(shoal(&args, dir.path()).0);
    }
    let resume = |out: &str| shoal(&["resume", out, "--steps", "80", "--backend", "cpu"], dir.path());
    // A checkpoint from another grid.
    std::fs::copy(dir.path().join("b/checkpoint.bin"), dir.path().join("a/checkpoint.bin")).unwrap();
    let (ok, _, err) = resume("a");
    assert!(
        !ok && err.starts_with("error: checkpoint") && err.contains("41×30") && err.contains("another scene"),
        "{err}"
    );
    // One whose scene's terrain changed since.
    let scene_a = dir.path().join("a/scene.toml");
    let (ok, _, err) = shoal(
        &[
            "run",
            "a.toml",
            "--backend",
            "cpu",
            "--out",
            "a",
            "--force",
            "-q",
            "--checkpoint-every",
            "20",
        ],
        dir.path(),
    );
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&scene_a)
        .unwrap()
        .replace("flat = -0.2", "flat = -0.25");
    std::fs::write(&scene_a, text).unwrap();
    let (ok, _, err) = resume("a");
    assert!(!ok && err.contains("terrain"), "{err}");
    // A corrupted one: one byte flipped.
    let path = dir.path().join("b/checkpoint.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let (ok, _, err) = resume("b");
    assert!(
        !ok && err.starts_with("error: checkpoint") && err.contains("corrupted"),
        "{err}"
    );
    // None at all.
    std::fs::remove_file(&path).unwrap();
    let (ok, _, err) = resume("b");
    assert!(
        !ok && err.starts_with("error:") && err.contains("checkpoint.bin"),
        "{err}"
    );
}

/// The step an interrupted run says it stopped at ("error: interrupted at step N…").
fn interrupted_step(err: &str) -> u64 {
    err.split("interrupted at step ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no step in {err}"))
}

#[cfg(unix)]
#[test]
fn ctrl_c_writes_a_checkpoint_that_resumes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scene.toml"),
        DROP.replace("steps = 60", "steps = 200000"),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_shoal"))
        .args(["run", "scene.toml", "--backend", "cpu", "--out", "out"])
        .current_dir(dir.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the run is under way (its first snapshot written), interrupt it.
    let first = dir.path().join("out/h_000020.npy");
    let waited = std::time::Instant::now();
    while !first.exists() && waited.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "an interrupted run exited 0");
    assert!(
        err.contains("error: interrupted at step") && err.contains("shoal resume"),
        "{err}"
    );
    let stats = std::fs::read_to_string(dir.path().join("out/stats.csv")).unwrap();
    assert!(stats.lines().count() >= 2, "{stats}");
    // Resume to two snapshots past wherever the interrupt landed (how far the run got depends
    // on the machine's speed).
    let stopped = interrupted_step(&err);
    let until = (stopped / 20 + 2) * 20;
    let (ok, _, err) = shoal(
        &["resume", "out", "--steps", "10", "--backend", "cpu", "-q"],
        dir.path(),
    );
    assert!(!ok && err.contains("past the 10 steps"), "{err}");
    let (ok, _, err) = shoal(
        &["resume", "out", "--steps", &until.to_string(), "--backend", "cpu", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(dir.path().join(format!("out/h_{until:06}.npy")).exists());
}

#[test]
fn a_sweep_runs_every_scene_and_combination_and_reports_failures() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("base.toml"), DROP.replace("steps = 60", "steps = 20")).unwrap();
    std::fs::write(
        dir.path().join("broken.toml"),
        DROP.replace("[terrain]", "[physics]\ndamping = 2.0\n[terrain]"),
    )
    .unwrap();
    let sweep = "backend = \"cpu\"\nscenes = [\"base.toml\", \"broken.toml\"]\n[vary]\nscene = \"base.toml\"\n\
                 \"physics.damping\" = [0.0, 0.01]\n\"time.dt\" = [0.01, 0.02]\n";
    std::fs::write(dir.path().join("sweep.toml"), sweep).unwrap();
    let (ok, list, err) = shoal(&["batch", "sweep.toml", "--list"], dir.path());
    assert!(ok, "{err}");
    assert_eq!(list.lines().count(), 6, "{list}");
    assert!(list.contains("5\tbase-damping=0.01-dt=0.02"), "{list}");
    let (ok, _, err) = shoal(&["batch", "sweep.toml"], dir.path());
    assert!(!ok, "a sweep with a failed run exited 0");
    assert!(err.contains("error: 1 of 6 runs failed"), "{err}");
    let summary = std::fs::read_to_string(dir.path().join("sweep/summary.csv")).unwrap();
    let rows: Vec<&str> = summary.lines().collect();
    assert_eq!(rows[0], "run,status,steps,steps_per_s,volume_error,message");
    assert_eq!(rows.len(), 7, "{summary}");
    assert!(
        rows[2].starts_with("broken,failed,") && rows[2].contains("damping"),
        "{summary}"
    );
    for row in rows.iter().skip(1).filter(|r| !r.starts_with("broken")) {
        assert!(row.contains(",ok,20,"), "{row}");
    }
    // The damped runs ran with their own values.
    let written = std::fs::read_to_string(dir.path().join("sweep/base-damping=0.01-dt=0.02/scene.toml")).unwrap();
    assert!(
        written.contains("damping = 0.01") && written.contains("dt = 0.02"),
        "{written}"
    );

    // One run per task, as a job array runs it, then the summary.
    let (ok, _, err) = shoal(&["batch", "sweep.toml", "--only", "3", "--force"], dir.path());
    assert!(ok, "{err}");
    let (ok, _, err) = shoal(&["batch", "sweep.toml", "--only", "9"], dir.path());
    assert!(!ok && err.contains("--only 9"), "{err}");
}

/// Each run of a sweep goes in a process of its own: one that aborts (here a grid that cannot
/// be allocated under an address-space limit, or refused for the machine's memory where it has
/// less) is that run's failure, and the runs after it go on and the summary is written.
#[cfg(unix)]
#[test]
fn a_run_that_aborts_fails_alone_in_its_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let small = "[grid]\nnx = 40\nny = 30\ndx = 0.05\n[time]\ndt = 0.01\nsteps = 20\n[terrain]\nflat = -0.2\n";
    std::fs::write(dir.path().join("small.toml"), small).unwrap();
    std::fs::write(dir.path().join("after.toml"), small).unwrap();
    // 16 M cells: ~2 GiB to build, over the 800 MB the limit below leaves.
    std::fs::write(
        dir.path().join("big.toml"),
        small.replace("nx = 40\nny = 30", "nx = 4000\nny = 4000"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("sweep.toml"),
        "backend = \"cpu\"\nscenes = [\"small.toml\", \"big.toml\", \"after.toml\"]\n",
    )
    .unwrap();
    let out = Command::new("sh")
        .args([
            "-c",
            &format!(
                "ulimit -v 800000; exec {} batch sweep.toml -q",
                env!("CARGO_BIN_EXE_shoal")
            ),
        ])
        .current_dir(dir.path())
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.lines().last().unwrap().starts_with("error: 1 of 3 runs failed"),
        "{err}"
    );
    let summary = std::fs::read_to_string(dir.path().join("sweep/summary.csv")).unwrap();
    let rows: Vec<&str> = summary.lines().collect();
    assert_eq!(rows.len(), 4, "{summary}");
    assert!(
        rows[1].starts_with("small,ok,20,") && rows[3].starts_with("after,ok,20,"),
        "{summary}"
    );
    assert!(
        rows[2].starts_with("big,failed,") && (rows[2].contains("signal 6") || rows[2].contains("memory")),
        "{summary}"
    );
}

#[test]
fn a_bad_sweep_file_is_an_error_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("base.toml"), GOOD).unwrap();
    for (sweep, expect) in [
        ("scenes = [\"base.toml\"]\nbackend = \"tpu\"\n", "sweep.toml:2"),
        ("scenes = [\"base.toml\"]\nspeed = 3\n", "unknown field `speed`"),
        ("backend = \"cpu\"\n", "names no runs"),
        (
            "[vary]\nscene = \"nothere.toml\"\n\"time.dt\" = [0.1]\n",
            "nothere.toml",
        ),
        (
            "[vary]\nscene = \"base.toml\"\n\"time.dt\" = []\n",
            "time.dt has no values",
        ),
    ] {
        std::fs::write(dir.path().join("sweep.toml"), sweep).unwrap();
        let (ok, _, err) = shoal(&["batch", "sweep.toml"], dir.path());
        assert!(
            !ok && err.starts_with("error:") && err.contains(expect),
            "{sweep}: {err}"
        );
        assert!(!dir.path().join("sweep").exists(), "{sweep}: a bad sweep ran");
    }
}

#[test]
fn a_write_that_fails_mid_run_is_a_clear_error_and_keeps_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), DROP).unwrap();
    // The snapshot of step 40 cannot be written: a folder stands under its name (this fails for
    // root too, unlike a read-only folder).
    std::fs::create_dir_all(dir.path().join("out/h_000040.npy")).unwrap();
    let (ok, _, err) = shoal(
        &["run", "scene.toml", "--backend", "cpu", "--out", "out", "--force"],
        dir.path(),
    );
    assert!(!ok, "the run did not notice its failed write");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("error:") && last.contains("h_000040.npy"), "{err}");
    for step in [0, 20] {
        let f = std::fs::File::open(dir.path().join(format!("out/h_{step:06}.npy"))).unwrap();
        assert_eq!(npyz::NpyFile::new(f).unwrap().shape(), &[30, 40]);
    }
    let stats = std::fs::read_to_string(dir.path().join("out/stats.csv")).unwrap();
    assert_eq!(stats.lines().count(), 3, "the header and steps 0 and 20:\n{stats}");
    let names: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.ends_with(".tmp")),
        "temporary files left: {names:?}"
    );
}

#[test]
fn bodies_csv_has_a_row_per_body_per_step_from_step_0() {
    for backend in ["cpu", "gpu"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("scene.toml"), FLOATING).unwrap();
        let (ok, _, err) = shoal(
            &[
                "run",
                "scene.toml",
                "--backend",
                backend,
                "--out",
                "out",
                "--steps",
                "20",
                "-q",
            ],
            dir.path(),
        );
        assert!(ok, "{err}");
        let text = std::fs::read_to_string(dir.path().join("out/bodies.csv")).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,waterline,displaced"
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 21 * 2, "{backend}: {text}");
        for (k, row) in rows.iter().enumerate() {
            assert_eq!(row[0], (k / 2).to_string());
            assert_eq!(row[2], (k % 2).to_string());
            assert!(
                row[3..13].iter().all(|v| v.parse::<f64>().unwrap().is_finite()),
                "{row:?}"
            );
        }
        // Step 0 is the scene's pose: the box at z = 0.2, turned 10° about z.
        assert!((rows[0][5].parse::<f64>().unwrap() - 0.2).abs() < 1e-6, "{:?}", rows[0]);
        // The box falls, the scripted paddle moves at 0.3 m/s.
        assert!(rows[40][5].parse::<f64>().unwrap() < 0.2, "{:?}", rows[40]);
        assert!(
            (rows[41][3].parse::<f64>().unwrap() - 0.36).abs() < 1e-4,
            "{:?}",
            rows[41]
        );
        let stats = std::fs::read_to_string(dir.path().join("out/stats.csv")).unwrap();
        assert!(
            stats
                .lines()
                .next()
                .unwrap()
                .contains("coupling_iterations,coupling_residual"),
            "{stats}"
        );
    }
}

/// `--caustics` writes the light on the ground at each output step: at step 0 the bump is a lens
/// (curvature 3 /m focuses at ≈ 1.3 m, so 0.23 m down it gains ≈ 45 %), flat water far from
/// it reads grey 100, and the pattern moves with the waves.
#[test]
fn caustics_pngs_show_the_light_the_waves_focus() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.toml"), DROP).unwrap();
    let args = ["run", "scene.toml", "--backend", "cpu", "--out", "out", "--caustics"];
    let (ok, _, err) = shoal(&args, dir.path());
    assert!(ok, "{err}");
    let frame = |step: u32| {
        let path = dir.path().join(format!("out/caustics_{step:06}.png"));
        image::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .into_rgb8()
    };
    let (first, last) = (frame(0), frame(60));
    assert_eq!(first.dimensions(), (80, 60), "twice the grid");
    // Cell (19.5, 14.5) is the bump's top: image (39, 29), north up.
    let centre = first.get_pixel(39, 29)[0];
    assert!(centre > 125, "the lens focuses: grey {centre}");
    assert_eq!(first.get_pixel(2, 2)[0], 100, "flat water far from the bump");
    assert_ne!(first, last, "the caustics moved");
}

#[test]
fn the_pipes_spray_writes_particles_at_the_snapshots_counts_them_in_stats_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/waterfall.toml");
    let scene = scene.to_str().unwrap();
    let (ok, _, err) = shoal(
        &["run", scene, "--backend", "cpu", "--steps", "200", "--out", "out", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    // A run stopped at step 100 and resumed ends with the same files: the particles in flight
    // and the spray's counters travel through the checkpoint.
    let split = ["run", scene, "--backend", "cpu", "--steps", "100", "--out", "split"];
    let (ok, _, err) = shoal(&[&split[..], &["--checkpoint-every", "100", "-q"]].concat(), dir.path());
    assert!(ok, "{err}");
    let (ok, _, err) = shoal(
        &["resume", "split", "--steps", "200", "--backend", "cpu", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    for file in ["particles_000200.npy", "h_000200.npy", "stats.csv"] {
        let read = |run: &str| std::fs::read(dir.path().join(run).join(file)).unwrap();
        assert!(read("out") == read("split"), "{file} differs after the resume");
    }
    let out = dir.path().join("out");
    let stats = std::fs::read_to_string(out.join("stats.csv")).unwrap();
    let header: Vec<&str> = stats.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (particles, volume) = (column("particles"), column("particle_volume"));
    let last: Vec<&str> = stats.lines().last().unwrap().split(',').collect();
    let n: usize = last[particles].parse().unwrap();
    let v: f64 = last[volume].parse().unwrap();
    assert!(n > 0 && v > 0.0, "no spray by step 200: {stats}");
    // float32 [n, 7]: the header names the shape, then 28 bytes per particle.
    for step in ["000000", "000100", "000200"] {
        let bytes = std::fs::read(out.join(format!("particles_{step}.npy"))).unwrap();
        let text = String::from_utf8_lossy(&bytes[..128]);
        assert!(text.contains("'descr': '<f4'"), "{text}");
        if step == "000200" {
            assert!(text.contains(&format!("'shape': ({n}, 7")), "{text}");
            let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize + 10;
            assert_eq!(bytes.len() - header_len, n * 28);
            let sum: f64 = bytes[header_len..]
                .chunks_exact(4)
                .skip(6)
                .step_by(7)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64)
                .sum();
            assert!((sum - v).abs() <= 1e-6 * v, "the particles' volumes {sum} vs stats {v}");
        }
    }
}

/// A `--gif` that cannot be written whole (the file-size limit a full disk stands for: `ulimit
/// -f`, with SIGXFSZ ignored so the write fails with EFBIG) is an error naming the GIF, and
/// nothing is left under its name or as a temporary beside it; the snapshots under the limit
/// are written.
#[cfg(unix)]
#[test]
fn a_gif_that_cannot_be_written_whole_leaves_no_file_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("gif.toml");
    std::fs::write(
        &scene,
        "name = \"gif\"\n[grid]\nnx = 96\nny = 96\ndx = 0.05\n[time]\ndt = 0.01\nsteps = 400\n\
         [water]\nlevel = 0.5\n[[water.bump]]\nx = 2.4\ny = 2.4\nradius = 0.6\nheight = 0.1\n\
         [output]\nevery = 10\n",
    )
    .unwrap();
    // 200 KiB: each snapshot is 37 kB, the GIF about 975 kB (measured 2026-12-03).
    let shoal = env!("CARGO_BIN_EXE_shoal");
    let done = Command::new("bash")
        .current_dir(dir.path())
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 200; exec '{shoal}' run gif.toml --backend cpu --out out -q --gif frames.gif"
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(!done.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("error:") && stderr.contains("frames.gif"),
        "{stderr}"
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".gif") || name.starts_with(".shoal-"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(dir.path().join("out").join("h_000000.npy").exists());
}

/// The substep note says what is true of the scene's dt: open_sea's dt is within the explicit
/// limit (g·d·dt²/dx² = 0.412 ≤ 1/2) but past the 0.4 Shoal aims at, and it said it "breaks"
/// the limit; a dt past the limit still says so. Each names the substeps' own figure.
#[test]
fn the_substep_note_says_whether_the_limit_or_the_margin_is_passed() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (ok, out, err) = shoal(&["validate", "scenes/open_sea.toml"], repo);
    assert!(ok, "{err}");
    let note = format!("{out}{err}");
    assert!(
        note.contains("is within the explicit stability limit") && note.contains("0.412"),
        "{note}"
    );
    assert!(!note.contains("breaks"), "{note}");
    let dir = tempfile::tempdir().unwrap();
    let scene = GOOD
        .replace("dt = 0.01", "dt = 0.05")
        .replace("steps = 5", "steps = 5\n[water]\nlevel = 1.0\n");
    std::fs::write(dir.path().join("s.toml"), scene).unwrap();
    let (ok, out, err) = shoal(&["validate", "s.toml"], dir.path());
    let note = format!("{out}{err}");
    assert!(
        ok && note.contains("breaks the explicit stability limit") && note.contains("each)"),
        "{note}"
    );
}

/// A sweep run again finishes what is unfinished and says so in its exit status: a failed run is
/// tried again (and fails again, exit non-zero, where it said "done already" and exited 0); a
/// scheduler's retry of a task whose process was killed (its folder holds files, no run.csv)
/// runs it (it failed with "output folder … is not empty", and the retry after that said "done
/// already"); a run stopped by SIGTERM is "interrupted" in summary.csv and the next `shoal
/// batch` resumes it from its checkpoint to the end.
#[cfg(unix)]
#[test]
fn a_sweep_run_again_finishes_what_did_not_finish() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.toml"), DROP.replace("steps = 60", "steps = 20")).unwrap();
    std::fs::write(
        d.join("broken.toml"),
        DROP.replace("[terrain]", "[physics]\ndamping = 2.0\n[terrain]"),
    )
    .unwrap();
    std::fs::write(
        d.join("sweep.toml"),
        "backend = \"cpu\"\nscenes = [\"a.toml\", \"broken.toml\"]\n",
    )
    .unwrap();
    let summary = || std::fs::read_to_string(d.join("sweep/summary.csv")).unwrap();
    let (ok, _, _) = shoal(&["batch", "sweep.toml", "-q"], d);
    assert!(!ok);
    let (ok, _, err) = shoal(&["batch", "sweep.toml", "-q"], d);
    assert!(!ok && err.contains("1 of 1 runs failed"), "{err}");
    assert!(
        summary().contains("broken,failed,") && summary().contains("a,ok,20,"),
        "{}",
        summary()
    );

    // A killed task: files in its folder, no run.csv.
    std::fs::remove_file(d.join("sweep/a/run.csv")).unwrap();
    let (ok, _, err) = shoal(&["batch", "sweep.toml", "--only", "0", "-q"], d);
    assert!(ok, "{err}");
    assert!(summary().contains("a,ok,20,"), "{}", summary());

    // A stopped sweep, then the same sweep with a bound on the steps: the run resumes.
    std::fs::write(d.join("long.toml"), DROP.replace("steps = 60", "steps = 100000000")).unwrap();
    std::fs::write(d.join("stop.toml"), "backend = \"cpu\"\nscenes = [\"long.toml\"]\n").unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_shoal"))
        .args(["batch", "stop.toml"])
        .current_dir(d)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let first = d.join("stop/long/h_000020.npy");
    let waited = std::time::Instant::now();
    while !first.exists() && waited.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("resumes the interrupted run"),
        "{err}"
    );
    let table = std::fs::read_to_string(d.join("stop/summary.csv")).unwrap();
    assert!(table.contains("long,interrupted,"), "{table}");
    let stopped = interrupted_step(&err);
    let until = (stopped / 20 + 2) * 20;
    std::fs::write(
        d.join("stop.toml"),
        format!("backend = \"cpu\"\nsteps = {until}\nscenes = [\"long.toml\"]\n"),
    )
    .unwrap();
    let (ok, _, err) = shoal(&["batch", "stop.toml"], d);
    assert!(ok && err.contains("resumed from its checkpoint"), "{err}");
    let table = std::fs::read_to_string(d.join("stop/summary.csv")).unwrap();
    // Its row counts the steps this try ran (steps_per_s is theirs), from the checkpoint on.
    assert!(table.contains("long,ok,"), "{table}");
    assert!(d.join(format!("stop/long/h_{until:06}.npy")).exists());
}

/// `[vary] scene` reads the varied scene's own files beside that scene (a DEM in its folder, the
/// sweep elsewhere), and an entry of an array of tables sweeps by its index
/// (`"source.0.rate"`); an index past the list is a sweep error naming it.
#[test]
fn a_varied_scene_keeps_its_folder_and_its_arrays_of_tables_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("scenes")).unwrap();
    let ground: Vec<f64> = (0..40 * 30).map(|_| -0.2).collect();
    shoal::io::npy::write_2d(&d.join("scenes/ground.npy"), 30, 40, &ground).unwrap();
    std::fs::write(
        d.join("scenes/src.toml"),
        DROP.replace("steps = 60", "steps = 20")
            .replace("flat = -0.2\n", "npy = \"ground.npy\"\n")
            + "[[source]]\nx = 1.0\ny = 0.75\nradius = 0.1\nrate = 0.001\n",
    )
    .unwrap();
    std::fs::write(
        d.join("sweep.toml"),
        "backend = \"cpu\"\n[vary]\nscene = \"scenes/src.toml\"\n\"source.0.rate\" = [0.001, 0.002]\n",
    )
    .unwrap();
    let (ok, _, err) = shoal(&["batch", "sweep.toml", "-q"], d);
    assert!(ok, "{err}");
    let written = std::fs::read_to_string(d.join("sweep/src-rate=0.002/scene.toml")).unwrap();
    assert!(written.contains("rate = 0.002"), "{written}");
    std::fs::write(
        d.join("sweep.toml"),
        "backend = \"cpu\"\n[vary]\nscene = \"scenes/src.toml\"\n\"source.3.rate\" = [0.001]\n",
    )
    .unwrap();
    let (ok, _, err) = shoal(&["batch", "sweep.toml", "--list"], d);
    assert!(
        !ok && err.contains("source.3") && err.contains("has 1 of them"),
        "{err}"
    );
}

/// `[output] every_seconds`: snapshots and stats.csv rows at the first step whose time reaches
/// each multiple of the interval (dt = 0.01 s, 0.075 s: steps 8, 15, 23), plus step 0 and the
/// last; a non-positive interval is refused naming the key.
#[test]
fn every_seconds_writes_at_intervals_of_simulated_time() {
    let dir = tempfile::tempdir().unwrap();
    let text = GOOD.replace("steps = 5", "steps = 30") + "[output]\nevery_seconds = 0.075\n";
    std::fs::write(dir.path().join("scene.toml"), &text).unwrap();
    let (ok, _, err) = shoal(
        &["run", "scene.toml", "--backend", "cpu", "--out", "out", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    let out = dir.path().join("out");
    let mut snapshots: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("h_") && n.ends_with(".npy"))
        .collect();
    snapshots.sort();
    assert_eq!(
        snapshots,
        [
            "h_000000.npy",
            "h_000008.npy",
            "h_000015.npy",
            "h_000023.npy",
            "h_000030.npy"
        ]
    );
    let stats = std::fs::read_to_string(out.join("stats.csv")).unwrap();
    let steps: Vec<&str> = stats.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(steps, ["0", "8", "15", "23", "30"], "{stats}");
    for bad in ["0.0", "-1.0", "nan"] {
        std::fs::write(
            dir.path().join("bad.toml"),
            text.replace("every_seconds = 0.075", &format!("every_seconds = {bad}")),
        )
        .unwrap();
        let (ok, _, err) = shoal(&["validate", "bad.toml"], dir.path());
        assert!(
            !ok && err.starts_with("error:") && err.contains("output.every_seconds"),
            "{bad}: {err}"
        );
    }
}
