//! Runs that end any way at all (issue 21): tables whole up to their last row, SIGTERM and
//! SIGHUP handled as Ctrl-C, a resumed run's files the same as a straight run's, and `--force`
//! clearing what an older run left.

#![cfg(unix)]

use crate::cli::shoal;
use std::path::Path;
use std::process::Command;

/// A pool 160 × 120 with a drop, a gauge and a snapshot and checkpoint every 40 steps: slow
/// enough on the CPU backend that a signal lands mid-run.
const POOL: &str = "[grid]\nnx = 160\nny = 120\ndx = 0.05\n[time]\ndt = 0.01\nsteps = 400000\n\
    [terrain]\nflat = -0.2\n[[water.bump]]\nx = 4.0\ny = 3.0\nradius = 0.2\nheight = 0.03\n\
    [output]\nevery = 40\ncheckpoint_every = 40\n[[output.probe]]\nname = \"g\"\nx = 1.0\ny = 1.0\n";

/// Starts `shoal run` on POOL into `dir/out` and sends `signal` once a few snapshots are out;
/// returns (exit status success, stderr).
fn run_and_signal(dir: &Path, signal: &str) -> (bool, String) {
    std::fs::write(dir.join("scene.toml"), POOL).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_shoal"))
        .args(["run", "scene.toml", "--backend", "cpu", "--out", "out", "--netcdf"])
        .current_dir(dir)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let third = dir.join("out/h_000120.npy");
    let waited = std::time::Instant::now();
    while !third.exists() && waited.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// POOL on a 40 × 30 grid (its drop moved in with it), `steps` long: quick on the CPU.
fn small_pool(steps: u64) -> String {
    POOL.replace("steps = 400000", &format!("steps = {steps}"))
        .replace("nx = 160\nny = 120", "nx = 40\nny = 30")
        .replace("x = 4.0\ny = 3.0", "x = 1.0\ny = 0.75")
}

/// The complete rows of a table (a torn last line left out) and whether one was torn.
fn rows(path: &Path) -> Vec<String> {
    shoal::io::csv::complete_lines(path).unwrap()
}

#[test]
fn every_stop_keeps_whole_tables_and_a_resume_writes_what_a_straight_run_writes() {
    for signal in ["-TERM", "-HUP", "-KILL", "-INT"] {
        let dir = tempfile::tempdir().unwrap();
        let (ok, err) = run_and_signal(dir.path(), signal);
        assert!(!ok, "{signal}: the run exited 0");
        if signal != "-KILL" {
            assert!(err.contains("error: interrupted at step"), "{signal}: {err}");
        }
        // The tables are readable and whole up to their last row: probes one row per step from
        // step 0, stats one per snapshot.
        let probes = rows(&dir.path().join("out/probes.csv"));
        assert!(probes.len() > 120, "{signal}: {} probe rows", probes.len());
        for (k, row) in probes.iter().skip(1).enumerate() {
            assert!(
                row.starts_with(&format!("{k},")),
                "{signal}: probes.csv row {k} is {row}"
            );
        }
        let stats = rows(&dir.path().join("out/stats.csv"));
        assert!(stats.len() >= 4, "{signal}: stats.csv holds {} lines", stats.len());
        // output.nc opens, its records each an h snapshot (the last may be a record short of
        // them: a kill between the npy and the record).
        let mut nc = netcdf3::FileReader::open(dir.path().join("out/output.nc")).unwrap();
        let records = nc.data_set().num_records().unwrap();
        assert!(
            records + 1 >= stats.len() - 1 && records >= 3,
            "{signal}: {records} records, {} stats rows",
            stats.len()
        );
        let h = nc.read_var("h").unwrap().get_f32().unwrap().to_vec();
        let cells = 160 * 120;
        for k in 0..records {
            let npy = std::fs::read(dir.path().join(format!("out/h_{:06}.npy", 40 * k))).unwrap();
            let npy = npyz::NpyFile::new(&npy[..]).unwrap().into_vec::<f32>().unwrap();
            assert!(h[k * cells..(k + 1) * cells] == npy[..], "{signal}: record {k}");
        }
        // Resume to a snapshot past the stop: the same files and rows as one run straight there
        // with the same checkpoints (chunks end at the same steps).
        let until = {
            let last: u64 = probes.last().unwrap().split(',').next().unwrap().parse().unwrap();
            (last / 40 + 2) * 40
        };
        let until = until.to_string();
        let (ok, _, err) = shoal(
            &["resume", "out", "--steps", &until, "--backend", "cpu", "-q", "--netcdf"],
            dir.path(),
        );
        assert!(ok, "{signal}: {err}");
        let (ok, _, err) = shoal(
            &[
                "run",
                "scene.toml",
                "--steps",
                &until,
                "--backend",
                "cpu",
                "-q",
                "--out",
                "straight",
                "--netcdf",
            ],
            dir.path(),
        );
        assert!(ok, "{err}");
        let names = |run: &str| {
            let mut n: Vec<String> = std::fs::read_dir(dir.path().join(run))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != "checkpoint.bin")
                .collect();
            n.sort();
            n
        };
        assert_eq!(names("out"), names("straight"), "{signal}: the resumed run's files");
        for name in names("straight") {
            if name == "scene.toml" {
                continue;
            }
            let read = |run: &str| std::fs::read(dir.path().join(run).join(&name)).unwrap();
            assert!(
                read("out") == read("straight"),
                "{signal}: {name} differs from a straight run's"
            );
        }
    }
}

#[test]
fn force_clears_the_files_an_older_longer_run_left_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let scene = small_pool(120);
    std::fs::write(dir.path().join("scene.toml"), scene).unwrap();
    let run = |steps: &str| {
        let (ok, _, err) = shoal(
            &[
                "run",
                "scene.toml",
                "--steps",
                steps,
                "--backend",
                "cpu",
                "-q",
                "--out",
                "out",
                "--force",
            ],
            dir.path(),
        );
        assert!(ok, "{err}");
    };
    run("120");
    std::fs::write(dir.path().join("out/notes.txt"), "mine").unwrap();
    std::fs::write(dir.path().join("out/.shoal-abc123.tmp"), "left by a kill").unwrap();
    run("40");
    let out = dir.path().join("out");
    assert!(!out.join("h_000080.npy").exists() && !out.join("h_000120.npy").exists());
    assert!(!out.join(".shoal-abc123.tmp").exists());
    assert!(out.join("h_000040.npy").exists() && out.join("notes.txt").exists());
    let stats = std::fs::read_to_string(out.join("stats.csv")).unwrap();
    assert_eq!(stats.lines().count(), 3, "{stats}");
}

#[test]
fn resume_refuses_a_scene_edited_in_what_the_checkpoint_depends_on() {
    // A resume continues the run its checkpoint was made by: a changed dt (which then
    // diverged) is refused naming the key; how long it runs and how often it writes may change.
    let dir = tempfile::tempdir().unwrap();
    let scene = small_pool(80);
    std::fs::write(dir.path().join("scene.toml"), scene).unwrap();
    let (ok, _, err) = shoal(
        &["run", "scene.toml", "--backend", "cpu", "-q", "--out", "out"],
        dir.path(),
    );
    assert!(ok, "{err}");
    let written = dir.path().join("out/scene.toml");
    let as_run = std::fs::read_to_string(&written).unwrap();
    std::fs::write(&written, as_run.replace("dt = 0.01", "dt = 0.02")).unwrap();
    let (ok, _, err) = shoal(
        &["resume", "out", "--steps", "160", "--backend", "cpu", "-q"],
        dir.path(),
    );
    assert!(!ok && err.contains("time.dt: 0.02 here, 0.01 in the run"), "{err}");
    std::fs::write(&written, as_run.replace("every = 40", "every = 20")).unwrap();
    let (ok, _, err) = shoal(
        &["resume", "out", "--steps", "160", "--backend", "cpu", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    assert!(dir.path().join("out/h_000100.npy").exists());
}

#[test]
fn a_resume_that_writes_again_a_missed_snapshot_writes_a_straight_runs_row_with_bodies() {
    // A run stopped between its checkpoint and its snapshot: the resume writes that snapshot's
    // stats row again, with the coupling figures of the step before the stop (kept in the
    // checkpoint), as a straight run does.
    let dir = tempfile::tempdir().unwrap();
    let scene = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/cube_drop.toml"))
        .unwrap()
        .replace("nx = 120\nny = 120\ndx = 0.02", "nx = 60\nny = 60\ndx = 0.04")
        .replace("every = 20", "every = 20\ncheckpoint_every = 20");
    std::fs::write(dir.path().join("scene.toml"), scene).unwrap();
    let run = |out: &str, steps: &str| {
        let (ok, _, err) = shoal(
            &[
                "run",
                "scene.toml",
                "--steps",
                steps,
                "--backend",
                "cpu",
                "-q",
                "--out",
                out,
            ],
            dir.path(),
        );
        assert!(ok, "{err}");
    };
    run("out", "80");
    run("straight", "120");
    // Undo the snapshot at 80 (the cube is in the water: the coupling solve iterates): its file and its stats row.
    let out = dir.path().join("out");
    std::fs::remove_file(out.join("h_000040.npy")).unwrap();
    let stats = std::fs::read_to_string(out.join("stats.csv")).unwrap();
    let kept: Vec<&str> = stats.lines().filter(|l| !l.starts_with("80,")).collect();
    assert_eq!(kept.len() + 1, stats.lines().count(), "{stats}");
    std::fs::write(out.join("stats.csv"), kept.join("\n") + "\n").unwrap();
    let (ok, _, err) = shoal(
        &["resume", "out", "--steps", "120", "--backend", "cpu", "-q"],
        dir.path(),
    );
    assert!(ok, "{err}");
    for name in ["stats.csv", "bodies.csv", "probes.csv", "h_000080.npy", "h_000120.npy"] {
        let read = |run: &str| std::fs::read(dir.path().join(run).join(name)).unwrap();
        assert!(
            read("out") == read("straight"),
            "{name} differs from a straight run's:\n{}\n---\n{}",
            String::from_utf8_lossy(&read("out"))
                .lines()
                .take(8)
                .collect::<Vec<_>>()
                .join("\n"),
            String::from_utf8_lossy(&read("straight"))
                .lines()
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
